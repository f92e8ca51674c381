/* ndarray.c — the host ndarray returned by .numpy(): its storage, numpy dtype objects and numpy's str()/repr() printing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "tensor/tensor.h"
#include "tensor/tprint.h"

/* ---- numpy dtype objects (a.dtype prints 'float32', repr dtype('float32')) ---- */


/* DT_VARIANT's dtype object stands for numpy's object dtype 'O' (npobj.c's arrays); no ndarray holds variants. */
static const char *np_dtype_name(DType dt) { return dt == DT_STRING || dt == DT_VARIANT ? "object" : dtype_info[dt].name; }
/* A dtype object's text: '<U3' for numpy's text arrays, else its dtype's name. */
static const char *npdtype_text(Val v, char *buf, size_t n) {
  const NpDType *d = (const NpDType *)v.u.o;
  if (!d->uwidth) return np_dtype_name(d->dt);
  snprintf(buf, n, "<U%d", d->uwidth < 0 ? 0 : d->uwidth);   /* -1: np.dtype(str), '<U0' */
  return buf;
}
static void npdtype_str(StrBuf *b, Val v) { char t[24]; sb_puts(b, npdtype_text(v, t, sizeof t)); }
static void npdtype_repr(StrBuf *b, Val v) {
  char t[24];
  if (((const NpDType *)v.u.o)->uwidth == -1) { sb_puts(b, "dtype('<U')"); return; }   /* numpy's unsized str dtype */
  if (((const NpDType *)v.u.o)->dt == DT_VARIANT) { sb_puts(b, "dtype('O')"); return; }
  sb_printf(b, "dtype('%s')", npdtype_text(v, t, sizeof t));
}
/* dtype('O') equals object, 'O', 'object' and '|O' as numpy's does. */
static bool objdtype_eq(Val a, Val b) {
  if (val_is(b, &npdtype_type)) return ((NpDType *)b.u.o)->dt == DT_VARIANT && !((NpDType *)b.u.o)->uwidth;
  if (val_is(b, &type_type)) return ((TypeObj *)b.u.o)->tag == -1;
  if (!val_is(b, &str_type)) return false;
  const char *s = str_cstr(b);
  return !strcmp(s, "O") || !strcmp(s, "object") || !strcmp(s, "|O");
}
static bool npdtype_eq(Val a, Val b) {
  if (val_is(a, &npdtype_type) && ((NpDType *)a.u.o)->dt == DT_VARIANT && !((NpDType *)a.u.o)->uwidth) return objdtype_eq(a, b);
  if (val_is(b, &npdtype_type) && ((NpDType *)b.u.o)->dt == DT_VARIANT && !((NpDType *)b.u.o)->uwidth) return objdtype_eq(b, a);
  if (val_is(a, &npdtype_type) && val_is(b, &npdtype_type) && (((NpDType *)a.u.o)->uwidth || ((NpDType *)b.u.o)->uwidth))
    return ((NpDType *)a.u.o)->uwidth == ((NpDType *)b.u.o)->uwidth;
  if (val_is(a, &npdtype_type) && ((NpDType *)a.u.o)->uwidth && val_is(b, &str_type)) {   /* a.dtype == '<U2' */
    char t[24];
    return !strcmp(npdtype_text(a, t, sizeof t), ((Str *)b.u.o)->data);
  }
  DType x, y;
  return val_as_dtype(a, &x) && val_as_dtype(b, &y) && x == y;
}
static Val npdtype_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  bool e = npdtype_eq(a, b);
  return val_bool(op == CMP_EQ ? e : !e);
}
static Val npdtype_getattr(Val self, const char *name) {
  const NpDType *d = (const NpDType *)self.u.o;
  if (!strcmp(name, "name") && d->uwidth) {   /* numpy names text dtypes by their bits: 'str96' for '<U3' */
    char t[32];
    if (d->uwidth < 0) snprintf(t, sizeof t, "str");   /* np.dtype(str): unsized */
    else snprintf(t, sizeof t, "str%d", 32 * d->uwidth);
    return str_from_cstr(t);
  }
  if (!strcmp(name, "name")) return str_from_cstr(np_dtype_name(d->dt));
  if (d->dt == DT_VARIANT) {   /* dtype('O') */
    if (!strcmp(name, "kind") || !strcmp(name, "char")) return str_from_cstr("O");
    if (!strcmp(name, "str")) return str_from_cstr("|O");
    if (!strcmp(name, "itemsize")) return val_int(8);
  }
  if (!strcmp(name, "itemsize") && d->uwidth) return val_int(d->uwidth < 0 ? 0 : 4 * (tfs_i64)d->uwidth);   /* UCS4 */
  if (!strcmp(name, "kind") && d->uwidth) return str_from_cstr("U");
  if (!strcmp(name, "kind")) {   /* numpy's kind letters: bool, signed, unsigned, float, complex */
    DType t = d->dt;
    const char *k = t == DT_BOOL ? "b" : dtype_is_complex(t) ? "c" : dtype_info[t].is_float ? "f"
                  : t == DT_UINT8 || t == DT_UINT16 || t == DT_UINT32 || t == DT_UINT64 ? "u" : dtype_info[t].is_int ? "i" : NULL;
    if (k) return str_from_cstr(k);
  }
  if (d->uwidth || d->dt == DT_VARIANT || !np_dtype_name(d->dt)) return val_undef();
  /* numeric dtypes: numpy's size, type code, array-protocol string and byte order */
  static const char codes[DT__COUNT] = {[DT_BOOL] = '?', [DT_INT8] = 'b', [DT_UINT8] = 'B', [DT_INT16] = 'h', [DT_UINT16] = 'H',
                                        [DT_INT32] = 'i', [DT_UINT32] = 'I', [DT_INT64] = 'l', [DT_UINT64] = 'L', [DT_FLOAT16] = 'e',
                                        [DT_FLOAT32] = 'f', [DT_FLOAT64] = 'd', [DT_COMPLEX64] = 'F', [DT_COMPLEX128] = 'D'};
  int size = (int)dtype_info[d->dt].size;
  if (!codes[d->dt]) return val_undef();
  if (!strcmp(name, "itemsize")) return val_int(size);
  if (!strcmp(name, "alignment")) return val_int(dtype_is_complex(d->dt) ? size / 2 : size);   /* a complex aligns as its parts */
  if (!strcmp(name, "char")) return str_from_cstr((char[]){codes[d->dt], 0});
  if (!strcmp(name, "byteorder")) return str_from_cstr(size == 1 ? "|" : "=");
  if (!strcmp(name, "str")) {
    Val k = npdtype_getattr(self, "kind");
    char t[16];
    snprintf(t, sizeof t, "%c%s%d", size == 1 ? '|' : '<', str_cstr(k), size);
    val_decref(k);
    return str_from_cstr(t);
  }
  if (!strcmp(name, "type")) return typeobj_for(&npscalar_types[d->dt]);   /* np.float32 ...: the class numpy.tfs set up */
  return val_undef();
}
/* np.float32(1.5), np.int64(2.7): a numpy scalar of the dtype (numbers are truncated to integers, as numpy does). */
Val npscalar_new(DType dt, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", np_dtype_name(dt));
  if (n > 1) rt_throw(ERR_TYPE, "%s() takes at most 1 argument (%d given)", np_dtype_name(dt), n);
  Val v = n ? args[0] : val_int(0);
  if (dtype_info[dt].is_int && v.tag == VT_FLOAT) {
    if (!isfinite(v.u.f)) rt_throw(ERR_OVERFLOW, "cannot convert float %s to integer", isnan(v.u.f) ? "NaN" : "infinity");
    v = val_int((tfs_i64)v.u.f);
  }
  if (dt == DT_BOOL && (v.tag == VT_INT || v.tag == VT_FLOAT)) v = val_bool(v.tag == VT_INT ? v.u.i != 0 : v.u.f != 0);
  Tensor *t;
  Tensor *src = val_as_tensor(v);
  bool seq = val_is(v, &list_type) || val_is(v, &tuple_type);
  if (dt == DT_BOOL && ((src && src->dtype != DT_BOOL && src->dtype != DT_STRING) || seq)) {
    /* np.bool_([1, 0, 2]), np.bool_(array): an array of x != 0 (numbers read as they are, lists at the defaults) */
    Tensor *in = src ? src : tensor_from_val(v, -1);
    t = tensor_new(DT_BOOL, in->rank, in->shape);
    for (tfs_i64 i = 0; i < in->size; i++) ((bool *)tensor_data(t))[i] = tensor_get_f(in, i) != 0;
    if (!src) tensor_release(in);
  } else {
    t = tensor_from_val(v, dt);
  }
  Val r = ndarray_new(t);
  tensor_release(t);
  return r;
}
static Val npdtype_call(Val self, int n, const Val *args, const Kw *kw) { return npscalar_new(((NpDType *)self.u.o)->dt, n, args, kw); }

const Type npdtype_type = {
  .name = "numpy.dtype", .free = (void (*)(Obj *))free, .repr = npdtype_repr, .str = npdtype_str, .getattr = npdtype_getattr, .call = npdtype_call,
  .compare = npdtype_compare, .eq = npdtype_eq,
};
NpDType npdtypes[DT__COUNT] = {
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_FLOAT32}, {{(tfs_i64)1 << 60, &npdtype_type}, DT_FLOAT64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT32},   {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_BOOL},    {{(tfs_i64)1 << 60, &npdtype_type}, DT_STRING},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_UINT8},   {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT8},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_INT16},   {{(tfs_i64)1 << 60, &npdtype_type}, DT_UINT16},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_UINT32},  {{(tfs_i64)1 << 60, &npdtype_type}, DT_UINT64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_FLOAT16}, {{(tfs_i64)1 << 60, &npdtype_type}, DT_BFLOAT16},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_VARIANT},  {{(tfs_i64)1 << 60, &npdtype_type}, DT_COMPLEX64},
  {{(tfs_i64)1 << 60, &npdtype_type}, DT_COMPLEX128}, {{(tfs_i64)1 << 60, &npdtype_type}, DT_RESOURCE},
};

Val npdtype_unicode(int width) {
  NpDType *d = obj_new(&npdtype_type, sizeof(NpDType));
  d->dt = DT_STRING;
  d->uwidth = width;
  return val_obj(d);
}

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
static void words_push_cb(void *ws, const char *w, size_t n) { words_push(ws, w, n); }

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
  else if (ml + mr && ml + mr < mw) ml = mw - mr;   /* a wider nan/inf widens the numbers' left part, as numpy */
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

/* Characters (code points) in n bytes of UTF-8: numpy measures lines in characters (text arrays). */
static size_t u8chars(const char *p, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)p[i] & 0xC0) != 0x80;
  return c;
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
  bool wrap = u8chars(line->data, line->len) + u8chars(word, wlen) > width && line->len > strlen(indent);
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

/* Element i of a string tensor as Python writes it: b'..' for bytes, '..' for numpy's text arrays (uni). */
static void string_elem_repr(StrBuf *b, const Tensor *t, tfs_i64 i, bool uni) {
  const Str *e = ((Str **)t->buf->data)[tensor_elem_offset(t, i)];
  if (!uni) { bytes_repr(b, e); return; }
  Val v = str_new(e ? e->data : "", e ? e->len : 0);
  val_repr(b, v);
  TFS_DECREF(v);
}

/* Element words of t as numpy would format them (padding dropped); uni: t holds a '<U n' array's text. */
static void tensor_words(Words *ws, const Tensor *t, bool uni) {
  if (t->dtype == DT_STRING) {
    bool summary = t->size > np_print_opts.threshold;
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
      string_elem_repr(&b, t, i, uni);
      words_push(ws, b.data, b.len);
      sb_free(&b);
    }
    return;
  }
  if (dtype_is_complex(t->dtype)) {   /* complex words hold spaces ("2.  +1.j  "): taken whole, not split */
    tprint_numpy_words(t, words_push_cb, ws);
    return;
  }
  StrBuf b;
  sb_init(&b);
  tprint_numpy(&b, t);
  sb_putc(&b, 0);
  words_from_str(ws, b.data);
  sb_free(&b);
}

static void str_impl(StrBuf *b, const Tensor *t, bool uni) {
  if (t->dtype != DT_STRING) { tprint_numpy(b, t); return; }
  if (t->rank == 0 && uni) {   /* str(np.array('abc')) is abc */
    const Str *e = ((Str **)t->buf->data)[t->offset];
    if (e) sb_putn(b, e->data, (size_t)e->len);
    return;
  }
  if (t->rank == 0) { bytes_repr(b, ((Str **)t->buf->data)[t->offset]); return; }
  if (t->size == 0) {
    for (int i = 0; i < t->rank && t->shape[i]; i++) sb_putc(b, '[');
    sb_puts(b, "[]");
    for (int i = 0; i < t->rank && t->shape[i]; i++) sb_putc(b, ']');
    return;
  }
  Words ws = {0};
  tensor_words(&ws, t, uni);
  format_rec(b, t->shape, t->rank, 0, &ws, t->size > np_print_opts.threshold, " ", (size_t)np_print_opts.linewidth, " ");
  words_free(&ws);
}

void ndarray_str_tensor(StrBuf *b, const Tensor *t) { str_impl(b, t, false); }

void ndarray_scalar_repr(StrBuf *b, const Tensor *t) {
  if (t->dtype == DT_STRING) { bytes_repr(b, ((Str **)t->buf->data)[t->offset]); return; }
  if (t->dtype == DT_FLOAT16 || dtype_is_complex(t->dtype)) {   /* float16's shortest digits; numpy's complex str */
    tprint_numpy_scalar(b, t->dtype, tensor_data(t));
    return;
  }
  if (t->dtype == DT_UINT64) {   /* above 2**63 a host int would not hold it: its digits, unsigned */
    sb_printf(b, "%llu", (unsigned long long)*(const uint64_t *)tensor_data(t));
    return;
  }
  Val v = scalar_of(t);
  val_repr(b, v);
  TFS_DECREF(v);
}

/* A 0-d array's repr: its element as array2string writes it ('array(1.)', 'array(1.5, dtype=float32)'). */
static void repr_0d(StrBuf *b, const Tensor *t, int uwidth) {
  sb_puts(b, "array(");
  if (uwidth) {
    string_elem_repr(b, t, 0, true);
    sb_printf(b, ", dtype='<U%d')", uwidth);
    return;
  }
  if (t->dtype == DT_STRING) {
    ndarray_scalar_repr(b, t);
  } else {
    tfs_i64 one = 1;
    Tensor *v = tensor_new(t->dtype, 1, &one);   /* the element as a 1-element vector: numpy's element format */
    memcpy(tensor_data(v), tensor_data(t), (size_t)dtype_info[t->dtype].size);
    StrBuf e;
    sb_init(&e);
    tprint_numpy(&e, v);
    tensor_release(v);
    size_t lead = 1;
    while (lead < e.len - 1 && e.data[lead] == ' ') lead++;   /* ' True' pads in arrays only */
    sb_putn(b, e.data + lead, e.len - 1 - lead);   /* without the brackets */
    sb_free(&e);
  }
  if (t->dtype != DT_FLOAT64 && t->dtype != DT_INT64 && t->dtype != DT_BOOL && t->dtype != DT_COMPLEX128)
    sb_printf(b, ", dtype=%s", np_dtype_name(t->dtype));
  sb_putc(b, ')');
}

/* uwidth: t holds a '<U n' array's text (its words unpadded, its dtype quoted). */
static void repr_impl(StrBuf *b, const Tensor *t, int uwidth) {
  if (t->rank == 0) { repr_0d(b, t, uwidth); return; }
  bool skip_dtype = (t->dtype == DT_FLOAT64 || t->dtype == DT_INT64 || t->dtype == DT_BOOL || t->dtype == DT_COMPLEX128) &&
                    t->size;   /* numpy's default dtypes go unnamed, but an empty array's dtype is named */
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
    tensor_words(&ws, t, uwidth > 0);
    if (!uwidth && t->dtype != DT_STRING) words_pad(&ws, dtype_info[t->dtype].is_float, t->dtype == DT_BOOL ? 5 : 0);   /* numpy: ' True' in arrays; an object array's bytes unpadded */
    format_rec(b, t->shape, t->rank, 0, &ws, t->size > np_print_opts.threshold, "       ", (size_t)np_print_opts.linewidth - 1, ", ");
    words_free(&ws);
  }
  if (skip_dtype) { sb_putc(b, ')'); return; }
  sb_putc(b, ',');
  char dstr[40];
  if (uwidth) snprintf(dstr, sizeof dstr, "dtype='<U%d')", uwidth);
  else snprintf(dstr, sizeof dstr, "dtype=%s)", np_dtype_name(t->dtype));
  size_t last_nl = start;
  for (size_t i = start; i < b->len; i++)
    if (b->data[i] == '\n') last_nl = i + 1;
  size_t last_len = u8chars(b->data + last_nl, b->len - last_nl);
  if (last_len + strlen(dstr) + 1 > (size_t)np_print_opts.linewidth) sb_puts(b, "\n      ");
  else sb_putc(b, ' ');
  sb_puts(b, dstr);
}

void ndarray_repr_tensor(StrBuf *b, const Tensor *t) { repr_impl(b, t, 0); }

/* ---- the ndarray type ------------------------------------------------------------------ */

Type npscalar_types[DT__COUNT];   /* names and slots: kernels/ndarrayobj.c */

static NdArray *nd_alloc(const Type *ty, Tensor *t) {
  NdArray *a = obj_new(ty, sizeof(NdArray));
  a->t = tensor_retain(t);
  a->base = NULL;
  a->views = NULL;
  a->nviews = a->vcap = 0;
  a->readonly = false;
  a->uwidth = 0;
  return a;
}

Val ndarray_new_0d(Tensor *t) { return val_obj(nd_alloc(&ndarray_type, t)); }

/* numpy.str_, the str subclass stdlib/numpy.tfs defines (VT_UNDEF until numpy is imported: a plain str). */
static Val np_str_class = {VT_UNDEF, {0}};

void ndarray_set_str_type(Val cls) {
  val_decref(np_str_class);
  np_str_class = val_incref(cls);
}

Val ndarray_str_scalar(const char *s, tfs_i64 n) {
  Val v = str_new(s, n);
  if (val_is_undef(np_str_class)) return v;
  int mark = rt_hold_val(v);
  Val r = rt_call(np_str_class, 1, &v, NULL);
  rt_unhold(mark);
  val_decref(v);
  return r;
}

Val ndarray_new_unicode(Tensor *t, int width, bool keep0d) {
  if (t->dtype != DT_STRING) rt_throw(ERR_TYPE, "_numpy: a text array needs a string tensor");
  if (t->rank == 0 && !keep0d) {   /* numpy's str_ scalar */
    const Str *e = ((Str **)t->buf->data)[t->offset];
    return ndarray_str_scalar(e ? e->data : "", e ? e->len : 0);
  }
  NdArray *a = nd_alloc(&ndarray_type, t);
  a->uwidth = width < 1 ? 1 : width;   /* numpy: '<U0' arrays are '<U1' */
  return val_obj(a);
}

int ndarray_uwidth(Val v) { return val_is(v, &ndarray_type) ? ((NdArray *)v.u.o)->uwidth : 0; }

_Noreturn void ndarray_symbolic_error(Tensor *t) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, val_obj(t));   /* <tf.Tensor 'Mul:0' shape=... */
  const char *q = b.data ? strchr(b.data, '\'') : NULL, *e = q ? strchr(q + 1, '\'') : NULL;
  char name[160];
  snprintf(name, sizeof name, "%.*s", q && e ? (int)(e - q - 1) : 0, q ? q + 1 : "");
  sb_free(&b);
  rt_throw(ERR_NOTIMPL, "Cannot convert a symbolic tf.Tensor (%s) to a numpy array. This error may indicate that you're "
           "trying to pass a Tensor to a NumPy call, which is not supported.", name);
}

Val ndarray_new(Tensor *t) {
  if (t->sym) ndarray_symbolic_error(t);   /* a graph tensor has no values: TF's error for it reaching numpy */
  if (t->rank == 0 && (t->dtype == DT_STRING || t->dtype == DT_VARIANT)) return scalar_of(t);   /* bytes */
  if (t->rank != 0) return ndarray_new_0d(t);
  return val_obj(nd_alloc(&npscalar_types[t->dtype], t));   /* numpy.float32(1.5) ... */
}

Val ndarray_view_new(Val of, Tensor *t) {
  NdArray *src = (NdArray *)of.u.o, *own = ndarray_owner(src);
  if (own->nviews == own->vcap) {
    int cap = own->vcap ? own->vcap * 2 : 4;
    NdArray **nv = realloc(own->views, sizeof(NdArray *) * (size_t)cap);
    if (!nv) rt_throw(ERR_MEMORY, "out of memory");
    own->views = nv;
    own->vcap = cap;
  }
  NdArray *a = nd_alloc(&ndarray_type, t);
  a->base = own;
  own->hdr.rc++;
  a->readonly = src->readonly;
  a->uwidth = src->uwidth;
  own->views[own->nviews++] = a;
  return val_obj(a);
}

/* Member i of a's family (0: the owner). */
static NdArray *fam_member(NdArray *own, int i) { return i ? own->views[i - 1] : own; }

void ndarray_prepare_write(NdArray *a) {
  if (a->readonly) rt_throw(ERR_VALUE, "assignment destination is read-only");
  NdArray *own = ndarray_owner(a);
  Buffer *buf = a->t->buf;
  tfs_i64 held = 0;
  bool shared = false;
  for (int i = 0; i <= own->nviews; i++) {
    Tensor *m = fam_member(own, i)->t;
    if (m->buf != buf) continue;
    held++;
    shared |= m->hdr.rc > 1;   /* the tensor object itself escaped (tf.constant(a) ...) */
  }
  if (!shared && buf->rc == held) return;
  /* copy-on-write: the family moves to a private copy; the other holders keep the old values */
  tfs_i64 n = buf->nelem;
  Tensor *c = tensor_new(buf->dtype, 1, &n);
  size_t es = (size_t)dtype_info[buf->dtype].size;
  memcpy(c->buf->data, buf->data, (size_t)n * es);
  if (dtype_holds_refs(buf->dtype))
    for (tfs_i64 k = 0; k < n; k++) {
      Obj *o = ((Obj **)c->buf->data)[k];
      if (o) TFS_INCREF(val_obj(o));
    }
  for (int i = 0; i <= own->nviews; i++) {
    NdArray *m = fam_member(own, i);
    if (m->t->buf != buf) continue;
    Tensor *nt = tensor_view(c, m->t->rank, m->t->shape, m->t->strides, m->t->offset);
    tensor_release(m->t);
    m->t = nt;
  }
  tensor_release(c);
}

static void ndarray_free(Obj *o) {
  NdArray *a = (NdArray *)o;
  tensor_release(a->t);
  free(a->views);
  if (a->base) {
    NdArray *own = a->base;
    for (int i = own->nviews - 1; i >= 0; i--)
      if (own->views[i] == a) {
        own->views[i] = own->views[--own->nviews];
        break;
      }
    TFS_DECREF(val_obj(own));
  }
  free(o);
}

static void ndarray_str(StrBuf *b, Val v) {
  const NdArray *a = (const NdArray *)v.u.o;
  if (a->t->rank == 0 && a->t->dtype != DT_STRING) ndarray_scalar_repr(b, a->t);   /* str(np.array(1.0)) is '1.0' */
  else str_impl(b, a->t, a->uwidth > 0);
}
static void ndarray_repr(StrBuf *b, Val v) { repr_impl(b, ((NdArray *)v.u.o)->t, ((NdArray *)v.u.o)->uwidth); }

Type ndarray_type = {   /* the operators and methods: kernels/ndarrayobj.c */
  .name = "numpy.ndarray", .free = ndarray_free, .repr = ndarray_repr, .str = ndarray_str,
};
