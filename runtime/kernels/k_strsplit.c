/* k_strsplit.c — StringSplitV2/StringSplit, the string ops whose outputs are a sparse tensor's indices, values and dense_shape. */
#include <string.h>

#include "kernels/kstr.h"

/* A growing array of pieces (offset and length into their element) with the element each came from. */
typedef struct Pieces {
  tfs_i64 n, cap;
  tfs_i64 *row, *off, *len;
} Pieces;

static void pieces_add(Pieces *p, tfs_i64 row, tfs_i64 off, tfs_i64 len) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 16;
    p->row = realloc(p->row, sizeof(tfs_i64) * (size_t)p->cap);
    p->off = realloc(p->off, sizeof(tfs_i64) * (size_t)p->cap);
    p->len = realloc(p->len, sizeof(tfs_i64) * (size_t)p->cap);
    if (!p->row || !p->off || !p->len) rt_throw(ERR_MEMORY, "out of memory");
  }
  p->row[p->n] = row;
  p->off[p->n] = off;
  p->len[p->n++] = len;
}

static void pieces_free(Pieces *p) {
  free(p->row);
  free(p->off);
  free(p->len);
}

static bool ws(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

/* StringSplitV2's pieces of s, as TF's kernel cuts them (Python's str.split but for maxsplit): at sep, or at runs of
 * whitespace when sep is empty; maxsplit 0 keeps s whole, maxsplit k > 0 ends with the rest after k splits (its
 * leading whitespace dropped, kept even when empty). */
static void split_v2(Pieces *p, tfs_i64 row, const char *s, tfs_i64 n, const char *sep, tfs_i64 nsep, tfs_i64 maxsplit) {
  tfs_i64 i = 0, splits = 0;
  if (maxsplit == 0) {
    pieces_add(p, row, 0, n);
    return;
  }
  if (!nsep) {
    while (i < n && ws(s[i])) i++;
    while (i < n) {
      tfs_i64 a = i;
      while (i < n && !ws(s[i])) i++;
      pieces_add(p, row, a, i - a);
      while (i < n && ws(s[i])) i++;
      if (maxsplit > 0 && ++splits == maxsplit) {
        pieces_add(p, row, i, n - i);
        return;
      }
    }
    return;
  }
  tfs_i64 a = 0;
  while (i + nsep <= n) {
    if (memcmp(s + i, sep, (size_t)nsep)) {
      i++;
      continue;
    }
    pieces_add(p, row, a, i - a);
    i += nsep;
    a = i;
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  pieces_add(p, row, a, n - a);
}

/* StringSplit's pieces of s: cut at every byte of delim (each byte when delim is empty); empty ones dropped when skip. */
static void split_v1(Pieces *p, tfs_i64 row, const char *s, tfs_i64 n, const char *delim, tfs_i64 nd, bool skip) {
  if (!n) return;   /* an empty string has no pieces, empty ones allowed or not */
  if (!nd) {
    for (tfs_i64 i = 0; i < n; i++) pieces_add(p, row, i, 1);
    return;
  }
  tfs_i64 a = 0;
  for (tfs_i64 i = 0; i <= n; i++)
    if (i == n || memchr(delim, s[i], (size_t)nd)) {
      if (!skip || i > a) pieces_add(p, row, a, i - a);
      a = i + 1;
    }
}

/* outputs: indices int64 [N, 2], values string [N], shape int64 [2]; input must be 1-D and sep a scalar */
void meta_string_split(OpCall *c) {
  const TMeta *x = &c->inm[0], *sep = &c->inm[1];
  if (sep->dtype != DT_STRING)
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute %s as input #1(zero-based) was expected to be a string tensor but is a %s tensor",
            c->op->graph_name, dtype_short_name(sep->dtype));
  for (int k = 0; k < 2; k++) {
    const TMeta *m = k ? sep : x;
    if (m->rank < 0 || m->rank == 1 - k) continue;
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s must be a %s, got shape: ", k ? (c->op->id == OP_STRING_SPLIT ? "delimiter" : "sep") : "input", k ? "scalar" : "vector");
    op_shape_text(&b, m->rank, m->shape);
    /* errindex: input must be a vector, got shape: … */
    /* errindex: sep must be a scalar, got shape: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  op_reserve_outputs(c, 3);
  tfs_i64 sh[2] = {-1, 2}, two = 2;
  meta_set(&c->outm[0], DT_INT64, 2, sh);
  meta_set(&c->outm[1], DT_STRING, 1, sh);
  meta_set(&c->outm[2], DT_INT64, 1, &two);
}

void k_string_split(OpCall *c) {
  const Tensor *x = c->in[0];
  const Str *sp = s_elem(c->in[1], 0);
  bool v2 = c->op->id == OP_STRING_SPLIT_V2;
  tfs_i64 arg = v2 ? op_attr_int(c, 0, -1) : op_attr_bool(c, 0, true);
  tfs_i64 nrows = x->shape[0], width = 0;
  Pieces p = {0};
  for (tfs_i64 r = 0; r < nrows; r++) {
    const Str *s = s_elem(x, r);
    tfs_i64 before = p.n;
    if (v2) split_v2(&p, r, s_data(s), s_len(s), s_data(sp), s_len(sp), arg);
    else split_v1(&p, r, s_data(s), s_len(s), s_data(sp), s_len(sp), arg != 0);
    if (p.n - before > width) width = p.n - before;
  }
  tfs_i64 sh[2] = {p.n, 2}, two = 2;
  Tensor *ind = tensor_new(DT_INT64, 2, sh), *val = tensor_new(DT_STRING, 1, &p.n), *shape = tensor_new(DT_INT64, 1, &two);
  int64_t *id = tensor_data(ind);
  for (tfs_i64 k = 0, col = 0; k < p.n; k++) {
    col = k && p.row[k] == p.row[k - 1] ? col + 1 : 0;
    id[2 * k] = p.row[k];
    id[2 * k + 1] = col;
    s_set(val, k, s_data(s_elem(x, p.row[k])) + p.off[k], p.len[k]);
  }
  ((int64_t *)tensor_data(shape))[0] = nrows;
  ((int64_t *)tensor_data(shape))[1] = width;
  pieces_free(&p);
  c->out[0] = ind;
  c->out[1] = val;
  c->out[2] = shape;
}
