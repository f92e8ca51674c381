/* k_strsplit.c — the string ops whose outputs are a sparse or ragged tensor's components: StringSplitV2/StringSplit
 * (indices, values, dense_shape), UnicodeDecode(WithOffsets) (row_splits, code points, byte offsets) and UnicodeEncode. */
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

/* ---- Unicode ---- */

static bool unicode_char(int64_t v);

/* The attribute checks TF's op definitions and kernels make: errors one of three words (attribute i), a
 * replacement_char (attribute i + 1) that is a Unicode character. */
static bool uc_errors(const OpCall *c, int i, int *mode) {
  const char *e = attr_text(c, i, "replace");
  *mode = !strcmp(e, "strict") ? 0 : !strcmp(e, "replace") ? 1 : !strcmp(e, "ignore") ? 2 : -1;
  if (*mode < 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'errors' of \"%s\" is not in the list of allowed values: \"strict\", \"replace\", \"ignore\"", e);
  if (!unicode_char(op_attr_int(c, i + 1, 0xFFFD))) op_fail(c, ERR_INVALID_ARGUMENT, "replacement_char out of unicode codepoint range");
  return true;
}

static void uc_encoding(const OpCall *c, const char *enc, const char *what) {
  if (!strcmp(enc, "UTF-8")) return;
  if (!strcmp(enc, "UTF-16-BE") || !strcmp(enc, "UTF-32-BE"))
    op_fail(c, ERR_UNIMPLEMENTED, "%s: tfs's kernel reads and writes UTF-8 only (encoding '%s')", c->op->graph_name, enc);
  if (!strcmp(what, "output"))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'output_encoding' of \"%s\" is not in the list of allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"", enc);
  op_fail(c, ERR_INVALID_ARGUMENT, "Could not create converter for input encoding: %s", enc);
}

/* outputs: row_splits (Tsplits) [n + 1], char_values int32 [N] (and char_to_byte_starts int64 [N]) for the flattened input */
void meta_unicode_decode(OpCall *c) {
  int mode;
  uc_errors(c, 1, &mode);
  uc_encoding(c, attr_text(c, 0, ""), "input");
  int ts = op_attr_dtype(c, 4, DT_INT64);
  if (ts != DT_INT32 && ts != DT_INT64)
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'Tsplits' of %s is not in the list of allowed values: int32, int64", dtype_info[ts].name);
  const TMeta *x = &c->inm[0];
  tfs_i64 n = x->rank < 0 ? -1 : 1, unknown = -1;
  for (int d = 0; d < x->rank && n >= 0; d++) n = x->shape[d] < 0 ? -1 : n * x->shape[d];
  int nout = c->op->id == OP_UNICODE_DECODE_OFFSETS ? 3 : 2;
  op_reserve_outputs(c, nout);
  tfs_i64 ns = n < 0 ? -1 : n + 1;
  meta_set(&c->outm[0], (DType)ts, 1, &ns);
  meta_set(&c->outm[1], DT_INT32, 1, &unknown);
  if (nout == 3) meta_set(&c->outm[2], DT_INT64, 1, &unknown);
}

/* The length of the well-formed UTF-8 character at s[0..n) and its code point, or 0 and the length of the maximal
 * ill-formed subpart to replace (Unicode's "maximal subpart" practice, as ICU and Python apply it). */
static int utf8_next(const unsigned char *s, tfs_i64 n, int32_t *cp) {
  unsigned char b = s[0];
  if (b < 0x80) { *cp = b; return 1; }
  int need;
  int32_t v;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) { need = 1; v = b & 0x1F; }
  else if (b >= 0xE0 && b <= 0xEF) { need = 2; v = b & 0x0F; if (b == 0xE0) lo = 0xA0; if (b == 0xED) hi = 0x9F; }
  else if (b >= 0xF0 && b <= 0xF4) { need = 3; v = b & 0x07; if (b == 0xF0) lo = 0x90; if (b == 0xF4) hi = 0x8F; }
  else { *cp = -1; return 1; }
  int k = 1;
  for (; k <= need; k++) {
    if (k >= n) break;
    unsigned char t = s[k];
    if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) break;
    v = (v << 6) | (t & 0x3F);
  }
  if (k <= need) { *cp = -1; return k; }
  *cp = v;
  return k;
}

void k_unicode_decode(OpCall *c) {
  const Tensor *x = c->in[0];
  int mode;
  uc_errors(c, 1, &mode);
  int32_t repl = (int32_t)op_attr_int(c, 2, 0xFFFD);
  bool ctrl = op_attr_bool(c, 3, false);
  bool offs = c->op->id == OP_UNICODE_DECODE_OFFSETS;
  tfs_i64 n = nelems(x), np = n + 1, total = 0, cap = 16;
  int32_t *cps = malloc(sizeof(int32_t) * (size_t)cap);
  int64_t *starts = malloc(sizeof(int64_t) * (size_t)cap);
  tfs_i64 *splits = malloc(sizeof(tfs_i64) * (size_t)np);
  if (!cps || !starts || !splits) rt_throw(ERR_MEMORY, "out of memory");
  splits[0] = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    const Str *s = s_elem(x, i);
    const unsigned char *p = (const unsigned char *)s_data(s);
    tfs_i64 len = s_len(s);
    for (tfs_i64 j = 0; j < len;) {
      int32_t cp;
      int k = utf8_next(p + j, len - j, &cp);
      if (cp < 0 || (ctrl && cp < 0x20)) {   /* a control character counts as ill-formed when replaced (TF) */
        if (mode == 0) {
          free(cps);
          free(starts);
          free(splits);
          op_fail(c, ERR_INVALID_ARGUMENT, "Invalid formatting on input string");
        }
        cp = mode == 1 ? repl : -1;
      }
      if (cp >= 0) {
        if (total == cap) {
          cap *= 2;
          cps = realloc(cps, sizeof(int32_t) * (size_t)cap);
          starts = realloc(starts, sizeof(int64_t) * (size_t)cap);
          if (!cps || !starts) rt_throw(ERR_MEMORY, "out of memory");
        }
        cps[total] = cp;
        starts[total++] = j;
      }
      j += k;
    }
    splits[i + 1] = total;
  }
  Tensor *rs = tensor_new(c->outm[0].dtype, 1, &np), *cv = tensor_new(DT_INT32, 1, &total);
  for (tfs_i64 i = 0; i < np; i++) dtype_store_i(rs->dtype, (char *)tensor_data(rs) + i * dtype_info[rs->dtype].size, splits[i]);
  memcpy(tensor_data(cv), cps, sizeof(int32_t) * (size_t)total);
  c->out[0] = rs;
  c->out[1] = cv;
  if (offs) {
    Tensor *st = tensor_new(DT_INT64, 1, &total);
    memcpy(tensor_data(st), starts, sizeof(int64_t) * (size_t)total);
    c->out[2] = st;
  }
  free(cps);
  free(starts);
  free(splits);
}

/* shape: one string per row, [len(input_splits) - 1] */
void meta_unicode_encode(OpCall *c) {
  int mode;
  uc_errors(c, 1, &mode);
  uc_encoding(c, attr_text(c, 0, ""), "output");
  if (c->inm[0].dtype != DT_INT32)
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute UnicodeEncode as input #0(zero-based) was expected to be a int32 tensor but is a %s tensor",
            dtype_short_name(c->inm[0].dtype));
  if (c->inm[0].rank >= 0 && c->inm[0].rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "input_values must be a vector");
  if (c->inm[1].rank >= 0 && c->inm[1].rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "input_splits must be a vector");
  tfs_i64 n = c->inm[1].rank == 1 && c->inm[1].shape[0] >= 0 ? (c->inm[1].shape[0] > 0 ? c->inm[1].shape[0] - 1 : 0) : -1;
  meta_set(&c->outm[0], DT_STRING, 1, &n);
}

/* ICU's U_IS_UNICODE_CHAR: a scalar value that is no noncharacter (U+FDD0..U+FDEF, U+xxFFFE/F) */
static bool unicode_char(int64_t v) {
  if (v < 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
  return !(v >= 0xFDD0 && (v <= 0xFDEF || (v & 0xFFFE) == 0xFFFE));
}

static void put_utf8(StrBuf *b, int64_t v) {
  char u[4];
  int k;
  if (v < 0x80) { u[0] = (char)v; k = 1; }
  else if (v < 0x800) { u[0] = (char)(0xC0 | (v >> 6)); u[1] = (char)(0x80 | (v & 0x3F)); k = 2; }
  else if (v < 0x10000) { u[0] = (char)(0xE0 | (v >> 12)); u[1] = (char)(0x80 | ((v >> 6) & 0x3F)); u[2] = (char)(0x80 | (v & 0x3F)); k = 3; }
  else { u[0] = (char)(0xF0 | (v >> 18)); u[1] = (char)(0x80 | ((v >> 12) & 0x3F)); u[2] = (char)(0x80 | ((v >> 6) & 0x3F)); u[3] = (char)(0x80 | (v & 0x3F)); k = 4; }
  sb_putn(b, u, (size_t)k);
}

void k_unicode_encode(OpCall *c) {
  const Tensor *v = c->in[0], *sp = c->in[1];
  int mode;
  uc_errors(c, 1, &mode);
  int64_t repl = op_attr_int(c, 2, 0xFFFD);
  tfs_i64 nv = nelems(v), ns = nelems(sp);
  const char *sd = (const char *)sp->buf->data;
  size_t ssz = (size_t)dtype_info[sp->dtype].size;
  tfs_i64 prev = 0;
  for (tfs_i64 i = 0; i < ns; i++) {   /* TF's checks: splits start at 0, ascend, end within the values */
    tfs_i64 s = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, i) * ssz);
    if ((i == 0 && s != 0) || s < prev || s > nv)
      op_fail(c, ERR_INVALID_ARGUMENT, "Invalid split value.");
    prev = s;
  }
  const char *vd = (const char *)v->buf->data;
  for (tfs_i64 r = 0; r + 1 < ns; r++) {
    tfs_i64 a = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, r) * ssz);
    tfs_i64 e = dtype_load_i(sp->dtype, sd + (size_t)tensor_elem_offset(sp, r + 1) * ssz);
    StrBuf b;
    sb_init(&b);
    for (tfs_i64 j = a; j < e; j++) {
      int64_t cp = *(const int32_t *)(vd + (size_t)tensor_elem_offset(v, j) * 4);
      if (!unicode_char(cp)) {
        if (mode == 0) {
          sb_free(&b);
          op_fail(c, ERR_INVALID_ARGUMENT, "Code point is out of range for Unicode, or a noncharacter.");
        }
        if (mode == 2) continue;
        cp = repl;
      }
      put_utf8(&b, cp);
    }
    s_set(c->out[0], r, b.data ? b.data : "", (tfs_i64)b.len);
    sb_free(&b);
  }
}
