/* ndarray.c — the host ndarray returned by .numpy(): numpy str()/repr() printing, ==, indexing, tolist, shape, dtype. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "ops.h"

/* ---- numpy dtype objects (a.dtype prints 'float32', repr dtype('float32')) ---- */

typedef struct NpDType { Obj hdr; DType dt; } NpDType;   /* layout shared with tensor.c's DTypeObj */

static const char *np_dtype_name(DType dt) { return dt == DT_STRING ? "object" : dtype_info[dt].name; }
static void npdtype_str(StrBuf *b, Val v) { sb_puts(b, np_dtype_name(((NpDType *)v.u.o)->dt)); }
static void npdtype_repr(StrBuf *b, Val v) { sb_printf(b, "dtype('%s')", np_dtype_name(((NpDType *)v.u.o)->dt)); }
static bool npdtype_eq(Val a, Val b) {
  DType x, y;
  return val_as_dtype(a, &x) && val_as_dtype(b, &y) && x == y;
}
static Val npdtype_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  bool e = npdtype_eq(a, b);
  return val_bool(op == CMP_EQ ? e : !e);
}
static Val npdtype_getattr(Val self, const char *name) {
  if (!strcmp(name, "name")) return str_from_cstr(np_dtype_name(((NpDType *)self.u.o)->dt));
  return val_undef();
}
const Type npdtype_type = {
  .name = "numpy.dtype", .repr = npdtype_repr, .str = npdtype_str, .getattr = npdtype_getattr,
  .compare = npdtype_compare, .eq = npdtype_eq,
};
static NpDType npdtypes[DT__COUNT] = {
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_FLOAT32}, {{(tfs_i64)1 << 60, &npdtype_type}, DT_FLOAT64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT32},   {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_BOOL},    {{(tfs_i64)1 << 60, &npdtype_type}, DT_STRING},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_UINT8},   {{(tfs_i64)1 << 60, &npdtype_type}, DT_VARIANT},
};

/* ---- scalars ---------------------------------------------------------------------
 * A float32 scalar becomes the host float nearest to its shortest decimal form,
 * so it prints as numpy prints np.float32 (0.1, not 0.10000000149011612) and
 * converts back to the same float32. */

static double f32_shortest(float f) {
  if (!isfinite(f)) return (double)f;
  char buf[40];
  for (int p = 1; p <= 9; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, (double)f);
    if (strtof(buf, NULL) == f) return strtod(buf, NULL);
  }
  return (double)f;
}

static Val scalar_of(const Tensor *t) {
  if (t->dtype == DT_FLOAT32) return val_float(f32_shortest((float)tensor_get_f(t, 0)));
  return tensor_item(t, 0);
}

/* Bytes literal as Python prints it: b'a\n' */
static void bytes_repr(StrBuf *b, const Str *s) {
  const char *p = s ? s->data : "";
  tfs_i64 n = s ? s->len : 0;
  bool dq = memchr(p, '\'', (size_t)n) && !memchr(p, '"', (size_t)n);
  char q = dq ? '"' : '\'';
  sb_putc(b, 'b');
  sb_putc(b, q);
  for (tfs_i64 i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == (unsigned char)q || c == '\\') { sb_putc(b, '\\'); sb_putc(b, (char)c); }
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 32 || c >= 127) sb_printf(b, "\\x%02x", c);
    else sb_putc(b, (char)c);
  }
  sb_putc(b, q);
}

/* ---- layout: numpy's _formatArray over pre-formatted element words ----------------- */

typedef struct Words { char **w; tfs_i64 n, pos; } Words;

static void words_free(Words *ws) {
  for (tfs_i64 i = 0; i < ws->n; i++) free(ws->w[i]);
  free(ws->w);
}

static void words_push(Words *ws, const char *s, size_t len) {
  if ((ws->n & (ws->n - 1)) == 0) {
    char **nw = realloc(ws->w, sizeof(char *) * (size_t)(ws->n ? ws->n * 2 : 1));
    if (!nw) rt_throw(ERR_MEMORY, "out of memory");
    ws->w = nw;
  }
  char *c = malloc(len + 1);
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(c, s, len);
  c[len] = 0;
  ws->w[ws->n++] = c;
}

/* Split a numpy str() into element words (padding dropped). */
static void words_from_str(Words *ws, const char *s) {
  while (*s) {
    if (*s == '[' || *s == ']' || *s == ' ' || *s == '\n') { s++; continue; }
    size_t len = 0;
    while (s[len] && s[len] != ' ' && s[len] != '\n' && s[len] != ']') len++;
    words_push(ws, s, len);
    s += len;
  }
}

/* Re-pad words as numpy does: floats align on the decimal point, others right-align. */
static void words_pad(Words *ws, bool is_float, size_t minw) {
  size_t ml = 0, mr = 0, mw = minw;
  for (tfs_i64 i = 0; i < ws->n; i++) {
    const char *w = ws->w[i];
    if (!strcmp(w, "...")) continue;
    size_t len = strlen(w);
    const char *dot = is_float ? strchr(w, '.') : NULL;
    if (dot) {
      size_t l = (size_t)(dot - w);
      if (l > ml) ml = l;
      if (len - l > mr) mr = len - l;
    } else if (len > mw) mw = len;
  }
  if (ml + mr > mw) mw = ml + mr;
  for (tfs_i64 i = 0; i < ws->n; i++) {
    const char *w = ws->w[i];
    if (!strcmp(w, "...")) continue;
    size_t len = strlen(w);
    const char *dot = is_float ? strchr(w, '.') : NULL;
    size_t lp, rp;
    if (dot) {
      lp = ml - (size_t)(dot - w);
      rp = mr - (len - (size_t)(dot - w));
    } else {
      lp = mw - len;
      rp = 0;
    }
    if (!lp && !rp) continue;
    char *n = malloc(len + lp + rp + 1);
    if (!n) rt_throw(ERR_MEMORY, "out of memory");
    memset(n, ' ', lp);
    memcpy(n + lp, w, len);
    memset(n + lp + len, ' ', rp);
    n[lp + len + rp] = 0;
    free(ws->w[i]);
    ws->w[i] = n;
  }
}

static void str_rstrip_append(StrBuf *s, const StrBuf *line) {
  size_t n = line->len;
  while (n && line->data[n - 1] == ' ') n--;
  sb_putn(s, line->data, n);
}

/* Append `word` (possibly multi-line) to `line`, wrapping into `s` when needed. */
static void extend_line(StrBuf *s, StrBuf *line, const char *word, size_t width, const char *indent) {
  const char *nl = strchr(word, '\n');
  size_t wlen = nl ? (size_t)(nl - word) : strlen(word);
  if (nl) {
    /* multi-line word: numpy puts it on a fresh line unless it fits */
    if (line->len > strlen(indent)) {
      str_rstrip_append(s, line);
      sb_putc(s, '\n');
      line->len = 0;
      sb_puts(line, indent);
    }
    sb_puts(line, word);
    return;
  }
  bool wrap = line->len + wlen > width && line->len > strlen(indent);
  if (wrap) {
    str_rstrip_append(s, line);
    sb_putc(s, '\n');
    line->len = 0;
    sb_puts(line, indent);
  }
  sb_putn(line, word, wlen);
}

static void format_rec(StrBuf *out, const tfs_i64 *shape, int rank, int axis, Words *ws, bool summary,
                       const char *indent, size_t width, const char *sep) {
  if (axis == rank) {
    sb_puts(out, ws->pos < ws->n ? ws->w[ws->pos++] : "?");
    return;
  }
  size_t ilen = strlen(indent);
  char *next_indent = malloc(ilen + 2);
  if (!next_indent) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(next_indent, indent, ilen);
  next_indent[ilen] = ' ';
  next_indent[ilen + 1] = 0;
  size_t next_width = width - 1;
  tfs_i64 n = shape[axis];
  bool show = summary && n > 6;
  tfs_i64 lead = show ? 3 : 0, trail = show ? 3 : n;
  StrBuf s;
  sb_init(&s);
  size_t seplen = strlen(sep);
  size_t sep_r = seplen;
  while (sep_r && sep[sep_r - 1] == ' ') sep_r--;
  if (axis == rank - 1) {
    size_t elem_width = width - (sep_r > 1 ? sep_r : 1);
    StrBuf line;
    sb_init(&line);
    sb_puts(&line, indent);
    for (tfs_i64 i = 0; i < lead; i++) {
      StrBuf w;
      sb_init(&w);
      format_rec(&w, shape, rank, axis + 1, ws, summary, next_indent, next_width, sep);
      extend_line(&s, &line, w.data ? w.data : "", elem_width, indent);
      sb_free(&w);
      sb_puts(&line, sep);
    }
    if (show) {
      if (ws->pos < ws->n && !strcmp(ws->w[ws->pos], "...")) ws->pos++;
      extend_line(&s, &line, "...", elem_width, indent);
      sb_puts(&line, sep);
    }
    for (tfs_i64 i = trail; i >= 1; i--) {
      StrBuf w;
      sb_init(&w);
      format_rec(&w, shape, rank, axis + 1, ws, summary, next_indent, next_width, sep);
      extend_line(&s, &line, w.data ? w.data : "", elem_width, indent);
      sb_free(&w);
      if (i > 1) sb_puts(&line, sep);
    }
    sb_putn(&s, line.data, line.len);
    sb_free(&line);
  } else {
    StrBuf line_sep;
    sb_init(&line_sep);
    sb_putn(&line_sep, sep, sep_r);
    for (int k = 0; k < rank - axis - 1; k++) sb_putc(&line_sep, '\n');
    for (tfs_i64 i = 0; i < lead; i++) {
      sb_puts(&s, indent);
      format_rec(&s, shape, rank, axis + 1, ws, summary, next_indent, next_width, sep);
      sb_putn(&s, line_sep.data, line_sep.len);
    }
    if (show) {
      if (ws->pos < ws->n && !strcmp(ws->w[ws->pos], "...")) ws->pos++;
      sb_puts(&s, indent);
      sb_puts(&s, "...");
      sb_putn(&s, line_sep.data, line_sep.len);
    }
    for (tfs_i64 i = trail; i >= 1; i--) {
      sb_puts(&s, indent);
      format_rec(&s, shape, rank, axis + 1, ws, summary, next_indent, next_width, sep);
      if (i > 1) sb_putn(&s, line_sep.data, line_sep.len);
    }
    sb_free(&line_sep);
  }
  sb_putc(out, '[');
  if (s.len > ilen) sb_putn(out, s.data + ilen, s.len - ilen);
  sb_putc(out, ']');
  sb_free(&s);
  free(next_indent);
}

/* Element words of t as numpy would format them (padding dropped). */
static void tensor_words(Words *ws, const Tensor *t) {
  if (t->dtype == DT_STRING) {
    bool summary = t->size > 1000;
    for (tfs_i64 i = 0; i < t->size; i++) {
      if (summary) {
        /* keep the first/last 3 along each axis */
        tfs_i64 r = i;
        bool keep = true;
        for (int d = t->rank - 1; d >= 0; d--) {
          tfs_i64 k = r % t->shape[d];
          r /= t->shape[d];
          if (t->shape[d] > 6 && k >= 3 && k < t->shape[d] - 3) keep = false;
        }
        if (!keep) continue;
      }
      StrBuf b;
      sb_init(&b);
      bytes_repr(&b, ((Str **)t->buf->data)[tensor_elem_offset(t, i)]);
      words_push(ws, b.data, b.len);
      sb_free(&b);
    }
    return;
  }
  StrBuf b;
  sb_init(&b);
  tprint_numpy(&b, t);
  sb_putc(&b, 0);
  words_from_str(ws, b.data);
  sb_free(&b);
}

void ndarray_str_tensor(StrBuf *b, const Tensor *t) {
  if (t->dtype != DT_STRING) { tprint_numpy(b, t); return; }
  if (t->rank == 0) { bytes_repr(b, ((Str **)t->buf->data)[t->offset]); return; }
  if (t->size == 0) {
    for (int i = 0; i < t->rank && t->shape[i]; i++) sb_putc(b, '[');
    sb_puts(b, "[]");
    for (int i = 0; i < t->rank && t->shape[i]; i++) sb_putc(b, ']');
    return;
  }
  Words ws = {0};
  tensor_words(&ws, t);
  format_rec(b, t->shape, t->rank, 0, &ws, t->size > 1000, " ", 75, " ");
  words_free(&ws);
}

static void scalar_repr(StrBuf *b, const Tensor *t) {
  if (t->dtype == DT_STRING) { bytes_repr(b, ((Str **)t->buf->data)[t->offset]); return; }
  Val v = scalar_of(t);
  val_repr(b, v);
  TFS_DECREF(v);
}

void ndarray_repr_tensor(StrBuf *b, const Tensor *t) {
  if (t->rank == 0) { scalar_repr(b, t); return; }
  bool skip_dtype = t->dtype == DT_FLOAT64 || t->dtype == DT_INT64 || t->dtype == DT_BOOL;
  size_t start = b->len;
  sb_puts(b, "array(");
  if (t->size == 0) {
    if (t->rank == 1) sb_puts(b, "[]");
    else {
      sb_puts(b, "[], shape=");
      sb_putc(b, '(');
      for (int i = 0; i < t->rank; i++) sb_printf(b, i ? ", %lld" : "%lld", (long long)t->shape[i]);
      if (t->rank == 1) sb_putc(b, ',');
      sb_putc(b, ')');
    }
  } else {
    Words ws = {0};
    tensor_words(&ws, t);
    words_pad(&ws, dtype_info[t->dtype].is_float, t->dtype == DT_BOOL ? 5 : 0);   /* numpy: ' True' in arrays */
    format_rec(b, t->shape, t->rank, 0, &ws, t->size > 1000, "       ", skip_dtype ? 74 : 74, ", ");
    words_free(&ws);
  }
  if (skip_dtype) { sb_putc(b, ')'); return; }
  sb_putc(b, ',');
  char dstr[40];
  snprintf(dstr, sizeof dstr, "dtype=%s)", np_dtype_name(t->dtype));
  size_t last_nl = start;
  for (size_t i = start; i < b->len; i++)
    if (b->data[i] == '\n') last_nl = i + 1;
  size_t last_len = b->len - last_nl;
  if (last_len + strlen(dstr) + 1 > 75) sb_puts(b, "\n      ");
  else sb_putc(b, ' ');
  sb_puts(b, dstr);
}

/* ---- the ndarray type ------------------------------------------------------------------ */

Val ndarray_new(Tensor *t) {
  /* 0-d: a host scalar; but a string stays a 0-d array, which prints as numpy's bytes scalar (b'a') */
  if (t->rank == 0 && t->dtype != DT_STRING) return scalar_of(t);
  NdArray *a = obj_new(&ndarray_type, sizeof(NdArray));
  a->t = tensor_retain(t);
  return val_obj(a);
}

/* Wrap an op result (owned tensor Val) as an ndarray value. */
static Val wrap(Val r) {
  if (!val_is_tensor(r)) return r;
  Val a = ndarray_new(val_tensor(r));
  TFS_DECREF(r);
  return a;
}

static void ndarray_free(Obj *o) {
  tensor_release(((NdArray *)o)->t);
  free(o);
}

static void ndarray_str(StrBuf *b, Val v) { ndarray_str_tensor(b, ((NdArray *)v.u.o)->t); }
static void ndarray_repr(StrBuf *b, Val v) { ndarray_repr_tensor(b, ((NdArray *)v.u.o)->t); }

static Val tolist_rec(const Tensor *t, int axis, tfs_i64 *flat) {
  if (axis == t->rank) return tensor_item(t, (*flat)++);
  Val l = list_new(t->shape[axis]);
  for (tfs_i64 i = 0; i < t->shape[axis]; i++) {
    Val e = tolist_rec(t, axis + 1, flat);
    list_append(l, e);
    TFS_DECREF(e);
  }
  return l;
}

static Val nd_tolist(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfs_i64 flat = 0;
  return tolist_rec(val_as_tensor(self), 0, &flat);
}

static Val nd_item(Val self, int n, const Val *args, const Kw *kw) {
  (void)args; (void)kw;
  Tensor *t = val_as_tensor(self);
  if (n != 0 || t->size != 1) rt_throw(ERR_VALUE, "can only convert an array of size 1 to a Python scalar");
  return tensor_item(t, 0);
}

static Val nd_abs(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  return wrap(op_apply1(OP_ABS, self));
}

static Val ndarray_getattr(Val self, const char *name) {
  Tensor *t = ((NdArray *)self.u.o)->t;
  if (!strcmp(name, "shape")) {
    Val tu = tuple_new(t->rank);
    for (int i = 0; i < t->rank; i++) ((Tuple *)tu.u.o)->items[i] = val_int(t->shape[i]);
    return tu;
  }
  if (!strcmp(name, "dtype")) return val_obj(&npdtypes[t->dtype]);
  if (!strcmp(name, "ndim")) return val_int(t->rank);
  if (!strcmp(name, "size")) return val_int(t->size);
  if (!strcmp(name, "tolist")) return builtin_new("ndarray.tolist", nd_tolist, self, NULL);
  if (!strcmp(name, "item")) return builtin_new("ndarray.item", nd_item, self, NULL);
  if (!strcmp(name, "T")) {
    Val r = op_apply1(OP_TRANSPOSE, self);
    return wrap(r);
  }
  if (!strcmp(name, "__abs__")) return builtin_new("ndarray.__abs__", nd_abs, self, NULL);   /* abs(a) */
  return val_undef();
}

/* numpy's promotion for two array dtypes. */
static DType np_promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DT_BOOL) return b;
  if (b == DT_BOOL) return a;
  bool fa = dtype_info[a].is_float, fb = dtype_info[b].is_float;
  if (fa && fb) return DT_FLOAT64;
  if (!fa && !fb) return DT_INT64;
  DType f = fa ? a : b, i = fa ? b : a;
  (void)i;
  return f == DT_FLOAT32 ? DT_FLOAT64 : DT_FLOAT64;
}

static Val cast_to(Val v, DType dt) {
  Val dv = dtype_val(dt);
  OpAttrs at = {1, {dv}};
  return op_apply(&op_defs[OP_CAST], 1, &v, &at);
}

/* Apply a binary op with numpy's dtype rules; results are ndarrays. */
static Val np_apply(OpId id, Val a, Val b) {
  Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
  if ((ta && !val_is(a, &ndarray_type)) || (tb && !val_is(b, &ndarray_type)))
    return op_apply2(id, a, b);   /* a tf tensor wins: TF result */
  Val ca = val_incref(a), cb = val_incref(b);
  if (ta && tb && ta->dtype != tb->dtype) {
    DType d = np_promote(ta->dtype, tb->dtype);
    if (ta->dtype != d) { Val c = cast_to(a, d); TFS_DECREF(ca); ca = c; }
    if (tb->dtype != d) { Val c = cast_to(b, d); TFS_DECREF(cb); cb = c; }
  } else if (ta && !tb && b.tag == VT_FLOAT && dtype_info[ta->dtype].is_int) {
    Val c = cast_to(a, DT_FLOAT64);
    TFS_DECREF(ca);
    ca = c;
  } else if (tb && !ta && a.tag == VT_FLOAT && dtype_info[tb->dtype].is_int) {
    Val c = cast_to(b, DT_FLOAT64);
    TFS_DECREF(cb);
    cb = c;
  }
  Val r = op_apply2(id, ca, cb);
  TFS_DECREF(ca);
  TFS_DECREF(cb);
  return wrap(r);
}

static Val ndarray_binop(int op, Val a, Val b) {
  static const int ops[BIN__COUNT] = {
    [BIN_ADD] = OP_ADD, [BIN_SUB] = OP_SUB, [BIN_MUL] = OP_MUL, [BIN_DIV] = OP_DIV,
    [BIN_FLOORDIV] = OP_FLOORDIV, [BIN_MOD] = OP_MOD, [BIN_POW] = OP_POW, [BIN_MATMUL] = OP_MATMUL,
    [BIN_LSHIFT] = -1, [BIN_RSHIFT] = -1,
    [BIN_BITAND] = OP_LOGICAL_AND, [BIN_BITOR] = OP_LOGICAL_OR, [BIN_BITXOR] = OP_LOGICAL_XOR,
  };
  if (op < 0 || op >= BIN__COUNT || ops[op] < 0) return val_undef();
  return np_apply((OpId)ops[op], a, b);
}

static Val ndarray_compare(int op, Val a, Val b) {
  static const int ops[] = {OP_LESS, OP_LESS_EQUAL, OP_GREATER, OP_GREATER_EQUAL, OP_EQUAL, OP_NOT_EQUAL};
  if (op < CMP_LT || op > CMP_NE) return val_undef();
  if (op == CMP_EQ || op == CMP_NE) {
    bool ok = val_as_tensor(a) && val_as_tensor(b);
    Val other = val_as_tensor(a) ? b : a;
    if (!ok && !(other.tag == VT_INT || other.tag == VT_FLOAT || other.tag == VT_BOOL || val_is(other, &list_type) ||
                 val_is(other, &tuple_type) || val_is(other, &str_type)))
      return val_bool(op == CMP_NE);
  }
  return np_apply((OpId)ops[op], a, b);
}

static Val ndarray_unop(int op, Val a) {
  if (op == UN_NEG) return wrap(op_apply1(OP_NEG, a));
  if (op == UN_POS) return val_incref(a);
  if (op == UN_INVERT && val_as_tensor(a)->dtype == DT_BOOL) return wrap(op_apply1(OP_LOGICAL_NOT, a));
  return val_undef();
}

/* numpy's IndexError for integer indices out of range (checked before the
 * shared strided-slice op, whose error text is TF's). */
static void np_check_index(const Tensor *t, Val key) {
  const Val *items = &key;
  tfs_i64 n = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &n, &items);
  int axis = 0;
  for (tfs_i64 k = 0; k < n; k++) {
    Val it = items[k];
    if (val_is(it, &ellipsis_type)) return;   /* positions after ... are not simple */
    if (it.tag == VT_NONE) continue;
    if (axis >= t->rank)
      rt_throw(ERR_INDEX, "too many indices for array: array is %d-dimensional, but %lld were indexed", t->rank, (long long)n);
    if (it.tag == VT_INT) {
      tfs_i64 d = t->shape[axis];
      if (it.u.i < -d || it.u.i >= d)
        rt_throw(ERR_INDEX, "index %lld is out of bounds for axis %d with size %lld", (long long)it.u.i, axis, (long long)d);
    }
    axis++;
  }
}

static Val ndarray_getitem(Val self, Val key) {
  np_check_index(((NdArray *)self.u.o)->t, key);
  OpAttrs at = {1, {key}};
  return wrap(op_apply(&op_defs[OP_STRIDED_SLICE], 1, &self, &at));
}

static tfs_i64 ndarray_len(Val self) {
  const Tensor *t = ((NdArray *)self.u.o)->t;
  if (t->rank == 0) rt_throw(ERR_TYPE, "len() of unsized object");   /* numpy's text: a 0-d array has no length */
  return t->shape[0];
}

static int ndarray_truthy(Val v) {
  Tensor *t = ((NdArray *)v.u.o)->t;
  if (t->size != 1)
    rt_throw(ERR_VALUE, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  return tensor_get_f(t, 0) != 0;
}

typedef struct NdIter { Obj hdr; Val a; tfs_i64 i; } NdIter;
static void nditer_free(Obj *o) { TFS_DECREF(((NdIter *)o)->a); free(o); }
static void nditer_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<iterator>"); }
static bool nditer_next(Val it, Val *out) {
  NdIter *ni = (NdIter *)it.u.o;
  if (ni->i >= ((NdArray *)ni->a.u.o)->t->shape[0]) return false;
  *out = ndarray_getitem(ni->a, val_int(ni->i++));
  return true;
}
static Val nditer_iter(Val self) { return val_incref(self); }
static const Type nditer_type = {
  .name = "iterator", .free = nditer_free, .repr = nditer_repr, .iter = nditer_iter, .next = nditer_next,
};
static Val ndarray_iter(Val self) {
  NdIter *it = obj_new(&nditer_type, sizeof(NdIter));
  it->a = val_incref(self);
  it->i = 0;
  return val_obj(it);
}

static bool ndarray_eq(Val a, Val b) {
  if (a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o) return true;
  Val r = ndarray_compare(CMP_EQ, a, b);
  bool res = rt_truthy(r);
  TFS_DECREF(r);
  return res;
}

const Type ndarray_type = {
  .name = "numpy.ndarray", .free = ndarray_free, .repr = ndarray_repr, .str = ndarray_str,
  .getattr = ndarray_getattr, .getitem = ndarray_getitem, .iter = ndarray_iter, .len = ndarray_len,
  .binop = ndarray_binop, .unop = ndarray_unop, .compare = ndarray_compare, .truthy = ndarray_truthy,
  .eq = ndarray_eq,
};
