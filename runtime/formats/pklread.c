/* pklread.c — reads Python pickles (protocols 0-5) of data: containers, numbers, text and numpy arrays; no other globals. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/iofile.h"
#include "formats/pklread.h"
#include "object/object.h"
#include "tensor/tensor.h"

/* Pickle's machine: a stack of values with marks, a memo, and the globals it may name. The callables numpy's
 * pickles name (and what REDUCE makes of them before BUILD fills it) are objects of a private type that never
 * leaves this file: the stack and memo hold them as any value, and they are resolved when stored in a list,
 * dict or set, or returned. */

enum {
  G_RECONSTRUCT, G_NDARRAY, G_DTYPE, G_SCALAR, G_FROMBUFFER, G_CODECS_ENCODE, G_SET, G_FROZENSET,
  P_ARRAY,   /* _reconstruct's result: an ndarray waiting for BUILD's state */
  P_DTYPE,   /* numpy.dtype(...)'s result: a type string, BUILD adds the byte order and item size */
};

typedef struct PklObj {
  Obj hdr;
  int kind;
  char type[24];      /* P_DTYPE: 'u1', 'f8', 'O8', 'U20' ... */
  char order;         /* P_DTYPE: '<', '>', '|', '=' ('|' until BUILD says) */
  tfs_i64 elsize;     /* P_DTYPE: BUILD's item size, -1 when not given */
  Val result;         /* P_ARRAY: the built array (VT_UNDEF before BUILD) */
} PklObj;

static void pklobj_free(Obj *o) {
  val_decref(((PklObj *)o)->result);
  free(o);
}
static void pklobj_repr(StrBuf *b, Val v) { sb_printf(b, "<pickle object %d>", ((PklObj *)v.u.o)->kind); }
static const Type pklobj_type = {.name = "pickle object", .free = pklobj_free, .repr = pklobj_repr};

static const char *const global_names[] = {
  [G_RECONSTRUCT] = "numpy.core.multiarray._reconstruct", [G_NDARRAY] = "numpy.ndarray", [G_DTYPE] = "numpy.dtype",
  [G_SCALAR] = "numpy.core.multiarray.scalar", [G_FROMBUFFER] = "numpy.core.numeric._frombuffer",
  [G_CODECS_ENCODE] = "_codecs.encode", [G_SET] = "builtins.set", [G_FROZENSET] = "builtins.frozenset",
  [P_ARRAY] = "an ndarray", [P_DTYPE] = "a numpy.dtype",
};

static Val pklobj_new(int kind) {
  PklObj *o = calloc(1, sizeof *o);
  if (!o) rt_throw(ERR_MEMORY, "out of memory");
  o->hdr.rc = 1;
  o->hdr.type = &pklobj_type;
  o->kind = kind;
  o->order = '|';
  o->elsize = -1;
  o->result = val_undef();
  return val_obj(o);
}

static PklObj *as_pkl(Val v) { return v.tag == VT_OBJ && v.u.o->type == &pklobj_type ? (PklObj *)v.u.o : NULL; }

typedef struct Pkl {
  const unsigned char *start, *p, *end;
  const char *where;
  PklPy2Str py2;
  Val *stack;
  tfs_i64 sn, scap;
  tfs_i64 *marks;
  tfs_i64 mn, mcap;
  Val *memo;
  tfs_i64 memon;      /* slots allocated (VT_UNDEF: unset) */
  tfs_i64 memolen;    /* len(memo) as MEMOIZE counts it: one past the highest key set */
  tfs_i64 opat;       /* the offset of the opcode being run */
  int op;
} Pkl;

static void pkl_release(void *vp) {
  Pkl *P = vp;
  for (tfs_i64 i = 0; i < P->sn; i++) val_decref(P->stack[i]);
  for (tfs_i64 i = 0; i < P->memon; i++) val_decref(P->memo[i]);
  free(P->stack);
  free(P->marks);
  free(P->memo);
  P->stack = NULL;
  P->memo = NULL;
  P->marks = NULL;
  P->sn = P->memon = 0;
}

static const char *op_text(int op, char buf[16]) {
  if (op >= 0x21 && op < 0x7f) snprintf(buf, 16, "'%c'", op);
  else snprintf(buf, 16, "0x%02x", op & 0xff);
  return buf;
}

/* A damaged stream: ValueError naming the file, the byte offset and the opcode. */
#define BAD(P, ...) bad(P, __VA_ARGS__)
static _Noreturn void bad(Pkl *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void bad(Pkl *P, const char *fmt, ...) {
  char msg[512], ob[16];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (P->op < 0) rt_throw(ERR_VALUE, "%s: damaged pickle: %s (at byte %lld)", P->where, msg, (long long)P->opat);
  rt_throw(ERR_VALUE, "%s: damaged pickle: %s (opcode %s at byte %lld)", P->where, msg, op_text(P->op, ob), (long long)P->opat);
}

static const unsigned char *take(Pkl *P, tfs_i64 n) {
  if (n < 0 || P->end - P->p < n) BAD(P, "pickle data was truncated");
  const unsigned char *q = P->p;
  P->p += n;
  return q;
}
static tfs_i64 le(const unsigned char *q, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | q[i];
  return (tfs_i64)v;
}
/* A protocol-0 argument: the text up to the next newline (its length in *n, the newline skipped). */
static const char *line(Pkl *P, tfs_i64 *n) {
  const unsigned char *nl = memchr(P->p, '\n', (size_t)(P->end - P->p));
  if (!nl) BAD(P, "pickle data was truncated");
  const char *s = (const char *)P->p;
  *n = nl - P->p;
  P->p = nl + 1;
  return s;
}

static void push(Pkl *P, Val v) {   /* takes v */
  if (P->sn == P->scap) {
    tfs_i64 cap = P->scap ? P->scap * 2 : 64;
    Val *ns = realloc(P->stack, sizeof(Val) * (size_t)cap);
    if (!ns) { val_decref(v); rt_throw(ERR_MEMORY, "out of memory"); }
    P->stack = ns;
    P->scap = cap;
  }
  P->stack[P->sn++] = v;
}
static Val pop(Pkl *P) {   /* owned */
  if (P->sn == 0 || (P->mn && P->sn == P->marks[P->mn - 1])) BAD(P, "unpickling stack underflow");
  return P->stack[--P->sn];
}
static Val *top(Pkl *P) {
  if (P->sn == 0 || (P->mn && P->sn == P->marks[P->mn - 1])) BAD(P, "unpickling stack underflow");
  return &P->stack[P->sn - 1];
}
/* The stack position of the last MARK, which is popped. */
static tfs_i64 pop_mark(Pkl *P) {
  if (P->mn == 0) BAD(P, "could not find MARK");
  return P->marks[--P->mn];
}

/* A value as it may be stored in a list, dict or set or returned: a built array becomes its ndarray (or lists),
 * tuples are rebuilt when they hold one; numpy's callables and dtypes are no data. Owned. */
static Val resolve(Pkl *P, Val v, int depth) {
  PklObj *o = as_pkl(v);
  if (o) {
    if (o->kind == P_ARRAY && !val_is_undef(o->result)) return val_incref(o->result);
    if (o->kind == P_ARRAY) BAD(P, "an ndarray was used before its state was set");
    rt_throw(ERR_NOTIMPL, "%s: tfs does not read %s from a pickle as a value (only numpy arrays and scalars)",
             P->where, global_names[o->kind]);
  }
  if (!val_is(v, &tuple_type)) return val_incref(v);
  if (depth > 200) BAD(P, "tuples nested too deeply");
  Tuple *t = (Tuple *)v.u.o;
  tfs_i64 i = 0;
  for (; i < t->len; i++)
    if (as_pkl(t->items[i]) || val_is(t->items[i], &tuple_type)) break;
  if (i == t->len) return val_incref(v);
  Val r = tuple_new(t->len);
  int mark = rt_hold_val(r);
  for (i = 0; i < t->len; i++) ((Tuple *)r.u.o)->items[i] = resolve(P, t->items[i], depth + 1);
  rt_unhold(mark);
  return r;
}

/* ---- text ---- */

/* A str holding the code points of s[0..n) taken as Latin-1 (owned). */
static Val latin1_str(const unsigned char *s, tfs_i64 n) {
  char *u = malloc((size_t)n * 2 + 1);
  if (!u) rt_throw(ERR_MEMORY, "out of memory");
  tfs_i64 k = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    if (s[i] < 0x80) u[k++] = (char)s[i];
    else { u[k++] = (char)(0xC0 | s[i] >> 6); u[k++] = (char)(0x80 | (s[i] & 63)); }
  }
  u[k] = 0;
  Val v = str_new(u, k);
  free(u);
  return v;
}

/* A Python 2 str: bytes, or text decoded as the load asked. */
static Val py2_str(Pkl *P, const unsigned char *s, tfs_i64 n) {
  if (P->py2 == PKL_PY2_BYTES) return bytes_new(s, (size_t)n);
  if (P->py2 == PKL_PY2_LATIN1) return latin1_str(s, n);
  for (tfs_i64 i = 0; i < n; i++)
    if (s[i] >= 0x80)
      rt_throw(ERR_VALUE, "%s: 'ascii' codec can't decode byte 0x%02x in position %lld: ordinal not in range(128) "
               "(a Python 2 str in the pickle; numpy's np.load takes encoding='latin1' or 'bytes' for it)",
               P->where, s[i], (long long)i);
  return str_new((const char *)s, n);
}

static Val utf8_text(Pkl *P, const unsigned char *s, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n;) {
    size_t m = utf8_seq(s + i, (size_t)(n - i), NULL);
    if (!m) BAD(P, "'utf-8' codec can't decode byte 0x%02x in position %lld", s[i], (long long)i);
    i += (tfs_i64)m;
  }
  return str_new((const char *)s, n);
}

static void put_utf8(StrBuf *b, uint32_t c) {
  if (c < 0x80) sb_putc(b, (char)c);
  else if (c < 0x800) { sb_putc(b, (char)(0xC0 | c >> 6)); sb_putc(b, (char)(0x80 | (c & 63))); }
  else if (c < 0x10000) { sb_putc(b, (char)(0xE0 | c >> 12)); sb_putc(b, (char)(0x80 | (c >> 6 & 63))); sb_putc(b, (char)(0x80 | (c & 63))); }
  else {
    sb_putc(b, (char)(0xF0 | c >> 18)); sb_putc(b, (char)(0x80 | (c >> 12 & 63)));
    sb_putc(b, (char)(0x80 | (c >> 6 & 63))); sb_putc(b, (char)(0x80 | (c & 63)));
  }
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Protocol 0's UNICODE argument: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes are Latin-1). */
static Val raw_unicode(Pkl *P, const char *s, tfs_i64 n) {
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (tfs_i64 i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    int w = c == '\\' && i + 1 < n ? (s[i + 1] == 'u' ? 4 : s[i + 1] == 'U' ? 8 : 0) : 0;
    if (w) {
      if (i + 2 + w > n) BAD(P, "truncated \\%c escape in a UNICODE argument", s[i + 1]);
      uint32_t cp = 0;
      for (int k = 0; k < w; k++) {
        int h = hexval((unsigned char)s[i + 2 + k]);
        if (h < 0) BAD(P, "bad \\%c escape in a UNICODE argument", s[i + 1]);
        cp = cp << 4 | (uint32_t)h;
      }
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) BAD(P, "code point 0x%x out of range in a UNICODE argument", (unsigned)cp);
      put_utf8(&b, cp);
      i += 1 + w;
    } else {
      put_utf8(&b, c);
    }
  }
  Val v = str_new(b.data ? b.data : "", (tfs_i64)b.len);
  rt_unhold(mark);
  sb_free(&b);
  return v;
}

/* Protocol 0's STRING argument: a quoted Python 2 literal with backslash escapes. */
static Val quoted_string(Pkl *P, const char *s, tfs_i64 n) {
  if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0]) BAD(P, "the STRING opcode argument must be quoted");
  unsigned char *o = malloc((size_t)n);
  if (!o) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(o);
  tfs_i64 k = 0;
  for (tfs_i64 i = 1; i < n - 1; i++) {
    if (s[i] != '\\' || i + 1 >= n - 1) { o[k++] = (unsigned char)s[i]; continue; }
    char e = s[++i];
    switch (e) {
    case 'n': o[k++] = '\n'; break;
    case 't': o[k++] = '\t'; break;
    case 'r': o[k++] = '\r'; break;
    case 'a': o[k++] = 7; break;
    case 'b': o[k++] = 8; break;
    case 'f': o[k++] = 12; break;
    case 'v': o[k++] = 11; break;
    case '\n': break;
    case 'x': {
      int h1 = i + 1 < n - 1 ? hexval((unsigned char)s[i + 1]) : -1, h2 = i + 2 < n - 1 ? hexval((unsigned char)s[i + 2]) : -1;
      if (h1 < 0 || h2 < 0) BAD(P, "invalid \\x escape in a STRING argument");
      o[k++] = (unsigned char)(h1 << 4 | h2);
      i += 2;
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        int v = e - '0';
        for (int d = 0; d < 2 && i + 1 < n - 1 && s[i + 1] >= '0' && s[i + 1] <= '7'; d++) v = v * 8 + (s[++i] - '0');
        o[k++] = (unsigned char)v;
      } else if (e == '\\' || e == '\'' || e == '"') {
        o[k++] = (unsigned char)e;
      } else {
        o[k++] = '\\';
        o[k++] = (unsigned char)e;
      }
    }
  }
  Val v = py2_str(P, o, k);
  rt_unhold(mark);
  free(o);
  return v;
}

/* The bytes a text or bytes-like value stands for in numpy's state (a Python 2 str read as text holds Latin-1). */
static const unsigned char *raw_bytes(Pkl *P, Val v, tfs_i64 *n, unsigned char **owned, const char *what) {
  *owned = NULL;
  size_t bn;
  const unsigned char *d = byteslike_data(v, &bn);
  if (d) { *n = (tfs_i64)bn; return d; }
  if (!val_is(v, &str_type)) BAD(P, "%s must be bytes, not %s", what, val_type_name(v));
  const Str *s = (const Str *)v.u.o;
  unsigned char *o = malloc((size_t)s->len + 1);
  if (!o) rt_throw(ERR_MEMORY, "out of memory");
  tfs_i64 k = 0;
  for (tfs_i64 i = 0; i < s->len;) {
    unsigned char c = (unsigned char)s->data[i];
    if (c < 0x80) { o[k++] = c; i++; continue; }
    if ((c == 0xC2 || c == 0xC3) && i + 1 < s->len) { o[k++] = (unsigned char)((c & 3) << 6 | (s->data[i + 1] & 63)); i += 2; continue; }
    free(o);
    rt_throw(ERR_VALUE, "%s: 'latin-1' codec can't encode a character of %s: ordinal not in range(256)", P->where, what);
  }
  *owned = o;
  *n = k;
  return o;
}

static const char *text_arg(Pkl *P, Val v, char *buf, size_t n, const char *what) {
  size_t bn;
  const unsigned char *d = byteslike_data(v, &bn);
  if (d) {
    snprintf(buf, n, "%.*s", (int)(bn < n ? bn : n - 1), (const char *)d);
    return buf;
  }
  if (!val_is(v, &str_type)) BAD(P, "%s must be a str, not %s", what, val_type_name(v));
  snprintf(buf, n, "%s", str_cstr(v));
  return buf;
}

/* ---- numpy ---- */

static Tuple *tuple_arg(Pkl *P, Val v, tfs_i64 min, tfs_i64 max, const char *what) {
  if (!val_is(v, &tuple_type)) BAD(P, "%s must be a tuple, not %s", what, val_type_name(v));
  Tuple *t = (Tuple *)v.u.o;
  if (t->len < min || t->len > max) BAD(P, "%s has %lld items", what, (long long)t->len);
  return t;
}

static int shape_arg(Pkl *P, Val v, tfs_i64 *shape, tfs_i64 *count) {
  Tuple *t = tuple_arg(P, v, 0, TFS_MAX_RANK, "an ndarray's shape");
  *count = 1;
  for (tfs_i64 i = 0; i < t->len; i++) {
    if (t->items[i].tag != VT_INT || t->items[i].u.i < 0) BAD(P, "an ndarray's shape holds a %s", val_type_name(t->items[i]));
    shape[i] = t->items[i].u.i;
    if (shape[i] && *count > ((tfs_i64)1 << 40) / shape[i]) BAD(P, "an ndarray's shape is too large");
    *count *= shape[i];
  }
  return (int)t->len;
}

/* The .npy descr of a pickled dtype ('<f4', '|u1', '<U5', '|O'); 'O' for object arrays. */
static void dtype_descr(Pkl *P, Val v, char *descr, size_t n) {
  PklObj *d = as_pkl(v);
  if (!d || d->kind != P_DTYPE) BAD(P, "an ndarray's dtype is %s, not a numpy.dtype", d ? global_names[d->kind] : val_type_name(v));
  if (d->type[0] == 'O') { snprintf(descr, n, "|O"); return; }
  char order = d->order == '=' ? '<' : d->order;
  if (d->type[0] == 'U' && d->elsize > 0) snprintf(descr, n, "%cU%lld", order, (long long)(d->elsize / 4));
  else snprintf(descr, n, "%c%s", order, d->type);
}

/* The ndarray (owned) of dtype, shape and elements raw (bytes, or a list of objects for dtype 'O'). */
static Val make_array(Pkl *P, Val dtype, Val shapev, bool fortran, Val raw) {
  char descr[40];
  dtype_descr(P, dtype, descr, sizeof descr);
  tfs_i64 shape[TFS_MAX_RANK], count;
  int rank = shape_arg(P, shapev, shape, &count);
  if (!strcmp(descr, "|O")) {
    if (!val_is(raw, &list_type)) BAD(P, "an object array's state must be a list, not %s", val_type_name(raw));
    List *l = (List *)raw.u.o;
    if (l->len != count) BAD(P, "an object array of %lld elements has %lld in its state", (long long)count, (long long)l->len);
    Val items = list_new(count);   /* the elements in C order: an object ndarray (tensor/npobj.c) */
    int mark = rt_hold_val(items);
    for (tfs_i64 i = 0; i < count; i++) {
      tfs_i64 off = i;
      if (fortran && rank > 1) {   /* the state lists the elements in column-major order */
        tfs_i64 rem = i, stride = 1, idx[TFS_MAX_RANK];
        off = 0;
        for (int k = rank - 1; k >= 0; k--) { idx[k] = rem % shape[k]; rem /= shape[k]; }
        for (int k = 0; k < rank; k++) { off += idx[k] * stride; stride *= shape[k]; }
      }
      list_append(items, l->items[off]);
    }
    Val r = npobj_new(items, rank, shape);
    rt_unhold(mark);
    val_decref(items);
    return r;
  }
  unsigned char *owned;
  tfs_i64 n;
  const unsigned char *d = raw_bytes(P, raw, &n, &owned, "an ndarray's data");
  int om = owned ? rt_hold_mem(owned) : -1;
  char what[600];
  snprintf(what, sizeof what, "%s (a pickled ndarray)", P->where);
  int uw = 0;
  Tensor *t = npy_from_raw(descr, fortran, rank, shape, d, n, true, what, &uw);
  if (om >= 0) { rt_unhold(om); free(owned); }
  Val r = uw ? ndarray_new_unicode(t, uw, true) : ndarray_new_0d(t);
  tensor_release(t);
  return r;
}

/* ndarray.__setstate__((version,) shape, dtype, is_fortran, data). */
static void build_array(Pkl *P, PklObj *a, Val state) {
  if (!val_is_undef(a->result)) BAD(P, "an ndarray's state was set twice");
  Tuple *t = tuple_arg(P, state, 4, 5, "an ndarray's state");
  int o = t->len == 5;
  a->result = make_array(P, t->items[o + 1], t->items[o], rt_truthy(t->items[o + 2]), t->items[o + 3]);
}

/* numpy.dtype's state: (version, byteorder, subdtype, names, fields, elsize, alignment, flags[, metadata]). */
static void build_dtype(Pkl *P, PklObj *d, Val state) {
  Tuple *t = tuple_arg(P, state, 8, 9, "a numpy.dtype's state");
  char ob[8];
  text_arg(P, t->items[1], ob, sizeof ob, "a numpy.dtype's byte order");
  if (strlen(ob) != 1 || !strchr("<>|=", ob[0])) BAD(P, "a numpy.dtype's byte order is '%s'", ob);
  if (t->items[3].tag != VT_NONE) rt_throw(ERR_NOTIMPL, "%s: tfs does not read structured numpy dtypes from a pickle", P->where);
  d->order = ob[0];
  if (t->items[5].tag == VT_INT) d->elsize = t->items[5].u.i;
}

/* callable(*args) for the globals this reader knows (owned result). */
static Val reduce(Pkl *P, Val fn, Val args) {
  PklObj *f = as_pkl(fn);
  if (!f || f->kind >= P_ARRAY) BAD(P, "REDUCE of %s, which is not callable", f ? global_names[f->kind] : val_type_name(fn));
  Tuple *a = tuple_arg(P, args, 0, 8, "REDUCE's arguments");
  switch (f->kind) {
  case G_RECONSTRUCT: {   /* _reconstruct(ndarray, (0,), b'b'): an empty array for BUILD */
    PklObj *c = a->len ? as_pkl(a->items[0]) : NULL;
    if (!c || c->kind != G_NDARRAY) rt_throw(ERR_NOTIMPL, "%s: tfs reads numpy.ndarray from a pickle, not subclasses", P->where);
    return pklobj_new(P_ARRAY);
  }
  case G_DTYPE: {   /* dtype('f8', False, True) */
    if (a->len < 1) BAD(P, "numpy.dtype() without a type");
    Val d = pklobj_new(P_DTYPE);
    int mark = rt_hold_val(d);
    text_arg(P, a->items[0], ((PklObj *)d.u.o)->type, sizeof ((PklObj *)d.u.o)->type, "a numpy.dtype's type");
    rt_unhold(mark);
    return d;
  }
  case G_SCALAR: {   /* scalar(dtype, raw bytes): a numpy scalar; for dtype 'O' the object itself */
    if (a->len != 2) BAD(P, "numpy scalar() takes 2 arguments, %lld given", (long long)a->len);
    char descr[40];
    dtype_descr(P, a->items[0], descr, sizeof descr);
    if (!strcmp(descr, "|O")) return resolve(P, a->items[1], 0);
    unsigned char *owned;
    tfs_i64 n;
    const unsigned char *d = raw_bytes(P, a->items[1], &n, &owned, "a numpy scalar's data");
    int om = owned ? rt_hold_mem(owned) : -1;
    int uw = 0;
    Tensor *t = npy_from_raw(descr, false, 0, NULL, d, n, true, P->where, &uw);
    if (om >= 0) { rt_unhold(om); free(owned); }
    Val s;
    if (uw) {   /* numpy.str_ */
      const Str *e = ((Str **)tensor_data(t))[0];
      s = ndarray_str_scalar(e->data, e->len);
    } else {
      s = ndarray_new(t);   /* a 0-d array's element as numpy's scalar */
    }
    tensor_release(t);
    return s;
  }
  case G_FROMBUFFER: {   /* _frombuffer(buffer, dtype, shape, order): protocol 5's in-band arrays */
    if (a->len != 4) BAD(P, "numpy _frombuffer() takes 4 arguments, %lld given", (long long)a->len);
    char ord[4];
    text_arg(P, a->items[3], ord, sizeof ord, "_frombuffer's order");
    return make_array(P, a->items[1], a->items[2], ord[0] == 'F', a->items[0]);
  }
  case G_CODECS_ENCODE: {   /* Python 3 bytes in protocols 0-2: _codecs.encode(text, 'latin1') */
    char enc[16];
    if (a->len != 2 || !val_is(a->items[0], &str_type)) BAD(P, "_codecs.encode() needs a str and an encoding");
    text_arg(P, a->items[1], enc, sizeof enc, "_codecs.encode's encoding");
    if (strcmp(enc, "latin1") && strcmp(enc, "latin-1")) rt_throw(ERR_NOTIMPL, "%s: tfs reads _codecs.encode(..., 'latin1') from a pickle, not '%s'", P->where, enc);
    unsigned char *owned;
    tfs_i64 n;
    raw_bytes(P, a->items[0], &n, &owned, "_codecs.encode's text");
    Val b = bytes_new(owned, (size_t)n);
    free(owned);
    return b;
  }
  case G_SET: case G_FROZENSET: {
    Val l = a->len ? resolve(P, a->items[0], 0) : list_new(0);
    int mark = rt_hold_val(l);
    Val s;
    if (f->kind == G_FROZENSET) s = frozenset_from_iterable(l);
    else { s = set_new(); int m2 = rt_hold_val(s); set_update(s, l); rt_unhold(m2); }
    if (val_is_undef(s)) s = frozenset_from_iterable(val_undef());
    rt_unhold(mark);
    val_decref(l);
    return s;
  }
  default: break;
  }
  BAD(P, "REDUCE of %s", global_names[f->kind]);
}

/* GLOBAL module.name: one of numpy's callables or Python's set/frozenset; anything else is refused by name. */
static Val global(Pkl *P, const char *mod, tfs_i64 ml, const char *name, tfs_i64 nl) {
  char q[300];
  snprintf(q, sizeof q, "%.*s.%.*s", (int)(ml < 140 ? ml : 140), mod, (int)(nl < 140 ? nl : 140), name);
  static const struct { const char *name; int kind; } known[] = {
    {"numpy.core.multiarray._reconstruct", G_RECONSTRUCT}, {"numpy._core.multiarray._reconstruct", G_RECONSTRUCT},
    {"numpy.ndarray", G_NDARRAY}, {"numpy.dtype", G_DTYPE},
    {"numpy.core.multiarray.scalar", G_SCALAR}, {"numpy._core.multiarray.scalar", G_SCALAR},
    {"numpy.core.numeric._frombuffer", G_FROMBUFFER}, {"numpy._core.numeric._frombuffer", G_FROMBUFFER},
    {"_codecs.encode", G_CODECS_ENCODE}, {"builtins.set", G_SET}, {"__builtin__.set", G_SET},
    {"builtins.frozenset", G_FROZENSET}, {"__builtin__.frozenset", G_FROZENSET},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (!strcmp(q, known[i].name)) return pklobj_new(known[i].kind);
  rt_throw(ERR_NOTIMPL, "%s: the pickle names the global '%s', which tfs does not load (it reads Python's containers, "
           "numbers and text and numpy's arrays, dtypes and scalars only)", P->where, q);
}

/* ---- memo ---- */

static void memo_put(Pkl *P, tfs_i64 key) {
  Val *t = top(P);
  /* a key past the bytes read so far is no key pickle writes (each PUT takes at least two bytes) */
  if (key < 0 || key > P->p - P->start) BAD(P, "memo key %lld out of range", (long long)key);
  if (key >= P->memon) {
    tfs_i64 cap = P->memon ? P->memon : 64;
    while (cap <= key) cap *= 2;
    Val *nm = realloc(P->memo, sizeof(Val) * (size_t)cap);
    if (!nm) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 i = P->memon; i < cap; i++) nm[i] = val_undef();
    P->memo = nm;
    P->memon = cap;
  }
  Val old = P->memo[key];
  P->memo[key] = val_incref(*t);
  val_decref(old);
  if (key >= P->memolen) P->memolen = key + 1;
}

static void memo_get(Pkl *P, tfs_i64 key) {
  if (key < 0 || key >= P->memon || val_is_undef(P->memo[key])) BAD(P, "Memo value not found at index %lld", (long long)key);
  push(P, val_incref(P->memo[key]));
}

static tfs_i64 text_int(Pkl *P, const char *s, tfs_i64 n, const char *what) {
  char buf[64];
  if (n > 0 && s[n - 1] == 'L') n--;   /* LONG's Python 2 suffix */
  if (n <= 0 || n >= (tfs_i64)sizeof buf) BAD(P, "bad %s argument", what);
  memcpy(buf, s, (size_t)n);
  buf[n] = 0;
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end || end == buf) BAD(P, "bad %s argument '%s'", what, buf);
  if (errno == ERANGE) rt_throw(ERR_OVERFLOW, "%s: the pickle holds the integer %s, which does not fit a tfs int (64-bit)", P->where, buf);
  return v;
}

/* LONG1/LONG4: a little-endian two's complement integer of n bytes. */
static Val long_bytes(Pkl *P, const unsigned char *q, tfs_i64 n) {
  if (n == 0) return val_int(0);
  tfs_i64 k = n;
  bool neg = q[n - 1] & 0x80;
  while (k > 1 && q[k - 1] == (neg ? 0xff : 0) && ((q[k - 2] & 0x80) != 0) == neg) k--;   /* redundant sign bytes */
  if (k > 8) rt_throw(ERR_OVERFLOW, "%s: the pickle holds a %lld-byte integer, which does not fit a tfs int (64-bit)", P->where, (long long)k);
  uint64_t v = neg ? ~(uint64_t)0 : 0;
  for (tfs_i64 i = k - 1; i >= 0; i--) v = v << 8 | q[i];
  return val_int((tfs_i64)v);
}

/* ---- containers ---- */

/* Whether v is, or (through tuples) holds, a list, dict or set still open on the stack below `from`: storing it
 * would make a container hold itself. Python allows such cycles; data never has them, and tfs refuses them
 * so that nothing read stays unreachable but alive. */
static bool holds_open(Pkl *P, Val v, tfs_i64 from, int depth) {
  if (v.tag != VT_OBJ) return false;
  if (val_is(v, &tuple_type)) {
    if (depth > 200) BAD(P, "tuples nested too deeply");
    Tuple *t = (Tuple *)v.u.o;
    for (tfs_i64 i = 0; i < t->len; i++)
      if (holds_open(P, t->items[i], from, depth + 1)) return true;
    return false;
  }
  if (!val_is(v, &list_type) && !val_is(v, &dict_type) && !val_is(v, &set_type)) return false;
  for (tfs_i64 i = 0; i < from; i++)
    if (P->stack[i].tag == VT_OBJ && P->stack[i].u.o == v.u.o) return true;
  return false;
}

static void add_items(Pkl *P, Val container, tfs_i64 from, bool pairs) {
  if (pairs && (P->sn - from) % 2) BAD(P, "odd number of items for SETITEMS");
  for (tfs_i64 i = from; i < P->sn; i += pairs ? 2 : 1) {
    if (holds_open(P, P->stack[i + (pairs ? 1 : 0)], from, 0))
      rt_throw(ERR_NOTIMPL, "%s: the pickle stores a container inside itself, which tfs does not load", P->where);
    Val v = resolve(P, P->stack[i + (pairs ? 1 : 0)], 0);
    int mark = rt_hold_val(v);
    if (pairs) {
      Val k = resolve(P, P->stack[i], 0);
      int km = rt_hold_val(k);
      dict_set(container, k, v);
      rt_unhold(km);
      val_decref(k);
    } else if (val_is(container, &list_type)) {
      list_append(container, v);
    } else {
      set_add(container, v);
    }
    rt_unhold(mark);
    val_decref(v);
  }
  while (P->sn > from) val_decref(P->stack[--P->sn]);
}

static Val tuple_from(Pkl *P, tfs_i64 from) {
  Val t = tuple_new(P->sn - from);
  for (tfs_i64 i = from; i < P->sn; i++) ((Tuple *)t.u.o)->items[i - from] = P->stack[i];
  P->sn = from;
  return t;
}

static void need(Pkl *P, tfs_i64 n) {
  if (P->sn - (P->mn ? P->marks[P->mn - 1] : 0) < n) BAD(P, "unpickling stack underflow");
}

static Val *container_below(Pkl *P, tfs_i64 from, const Type *ty, const char *opname) {
  if (from < 1 || (P->mn && from - 1 < P->marks[P->mn - 1])) BAD(P, "unpickling stack underflow");
  Val *c = &P->stack[from - 1];
  if (!val_is(*c, ty)) BAD(P, "%s on %s", opname, val_type_name(*c));
  return c;
}

Val pkl_load(const unsigned char *data, tfs_i64 len, const char *where, PklPy2Str py2, tfs_i64 *used) {
  Pkl P = {.start = data, .p = data, .end = data + len, .where = where, .py2 = py2};
  int hold = rt_hold_fn(pkl_release, &P);
  for (;;) {
    P.opat = P.p - P.start;
    P.op = -1;
    if (P.p >= P.end) BAD(&P, "pickle data was truncated");
    int op = P.op = *P.p++;
    tfs_i64 n;
    const unsigned char *q;
    switch (op) {
    case 0x80:   /* PROTO */
      q = take(&P, 1);
      if (*q > 5) BAD(&P, "unsupported pickle protocol: %d", *q);
      break;
    case 0x95: take(&P, 8); break;   /* FRAME: the data follows inline */
    case '.': {   /* STOP */
      Val r = pop(&P);
      int m = rt_hold_val(r);
      Val out = resolve(&P, r, 0);
      rt_unhold(m);
      val_decref(r);
      if (used) *used = P.p - P.start;
      rt_unhold(hold);
      pkl_release(&P);
      return out;
    }
    case '(':   /* MARK */
      if (P.mn == P.mcap) {
        tfs_i64 cap = P.mcap ? P.mcap * 2 : 16;
        tfs_i64 *nm = realloc(P.marks, sizeof(tfs_i64) * (size_t)cap);
        if (!nm) rt_throw(ERR_MEMORY, "out of memory");
        P.marks = nm;
        P.mcap = cap;
      }
      P.marks[P.mn++] = P.sn;
      break;
    case '0': val_decref(pop(&P)); break;   /* POP */
    case '1': {   /* POP_MARK */
      tfs_i64 from = pop_mark(&P);
      while (P.sn > from) val_decref(P.stack[--P.sn]);
      break;
    }
    case '2': push(&P, val_incref(*top(&P))); break;   /* DUP */
    case 'N': push(&P, val_none()); break;
    case 0x88: push(&P, val_bool(true)); break;
    case 0x89: push(&P, val_bool(false)); break;
    case 'I': {
      const char *s = line(&P, &n);
      if (n == 2 && !memcmp(s, "00", 2)) push(&P, val_bool(false));
      else if (n == 2 && !memcmp(s, "01", 2)) push(&P, val_bool(true));
      else push(&P, val_int(text_int(&P, s, n, "INT")));
      break;
    }
    case 'L': { const char *s = line(&P, &n); push(&P, val_int(text_int(&P, s, n, "LONG"))); break; }
    case 'J': q = take(&P, 4); push(&P, val_int((int32_t)(uint32_t)le(q, 4))); break;
    case 'K': q = take(&P, 1); push(&P, val_int(q[0])); break;
    case 'M': q = take(&P, 2); push(&P, val_int(le(q, 2))); break;
    case 0x8a: n = *take(&P, 1); push(&P, long_bytes(&P, take(&P, n), n)); break;
    case 0x8b: {
      n = (int32_t)(uint32_t)le(take(&P, 4), 4);
      if (n < 0) BAD(&P, "LONG pickle has negative byte count");
      push(&P, long_bytes(&P, take(&P, n), n));
      break;
    }
    case 'F': {
      const char *s = line(&P, &n);
      char buf[64], *end;
      if (n <= 0 || n >= (tfs_i64)sizeof buf) BAD(&P, "bad FLOAT argument");
      memcpy(buf, s, (size_t)n);
      buf[n] = 0;
      double d = strtod(buf, &end);
      if (*end) BAD(&P, "bad FLOAT argument '%s'", buf);
      push(&P, val_float(d));
      break;
    }
    case 'G': {
      q = take(&P, 8);
      uint64_t u = 0;
      for (int i = 0; i < 8; i++) u = u << 8 | q[i];   /* big-endian */
      double d;
      memcpy(&d, &u, 8);
      push(&P, val_float(d));
      break;
    }
    case 'S': { const char *s = line(&P, &n); push(&P, quoted_string(&P, s, n)); break; }
    case 'T': {
      n = (int32_t)(uint32_t)le(take(&P, 4), 4);
      if (n < 0) BAD(&P, "BINSTRING pickle has negative byte count");
      q = take(&P, n);
      push(&P, py2_str(&P, q, n));
      break;
    }
    case 'U': n = *take(&P, 1); q = take(&P, n); push(&P, py2_str(&P, q, n)); break;
    case 'V': { const char *s = line(&P, &n); push(&P, raw_unicode(&P, s, n)); break; }
    case 'X': n = le(take(&P, 4), 4); q = take(&P, n); push(&P, utf8_text(&P, q, n)); break;
    case 0x8c: n = *take(&P, 1); q = take(&P, n); push(&P, utf8_text(&P, q, n)); break;
    case 0x8d: n = le(take(&P, 8), 8); q = take(&P, n); push(&P, utf8_text(&P, q, n)); break;
    case 'B': n = le(take(&P, 4), 4); q = take(&P, n); push(&P, bytes_new(q, (size_t)n)); break;
    case 'C': n = *take(&P, 1); q = take(&P, n); push(&P, bytes_new(q, (size_t)n)); break;
    case 0x8e: n = le(take(&P, 8), 8); q = take(&P, n); push(&P, bytes_new(q, (size_t)n)); break;
    case 0x96: n = le(take(&P, 8), 8); q = take(&P, n); push(&P, bytearray_new(q, (size_t)n)); break;
    case ']': push(&P, list_new(0)); break;
    case ')': push(&P, tuple_new(0)); break;
    case '}': push(&P, dict_new()); break;
    case 0x8f: push(&P, set_new()); break;
    case 'l': {   /* LIST */
      tfs_i64 from = pop_mark(&P);
      Val l = list_new(P.sn - from);
      int m = rt_hold_val(l);
      add_items(&P, l, from, false);
      rt_unhold(m);
      push(&P, l);
      break;
    }
    case 'd': {   /* DICT */
      tfs_i64 from = pop_mark(&P);
      Val d = dict_new();
      int m = rt_hold_val(d);
      add_items(&P, d, from, true);
      rt_unhold(m);
      push(&P, d);
      break;
    }
    case 0x91: {   /* FROZENSET */
      tfs_i64 from = pop_mark(&P);
      Val s = set_new();
      int m = rt_hold_val(s);
      add_items(&P, s, from, false);
      Val f = frozenset_from_iterable(s);
      if (val_is_undef(f)) f = frozenset_from_iterable(val_undef());
      rt_unhold(m);
      val_decref(s);
      push(&P, f);
      break;
    }
    case 't': push(&P, tuple_from(&P, pop_mark(&P))); break;
    case 0x85: case 0x86: case 0x87: need(&P, op - 0x84); push(&P, tuple_from(&P, P.sn - (op - 0x84))); break;
    case 'a': {   /* APPEND */
      need(&P, 2);
      container_below(&P, P.sn - 1, &list_type, "APPEND");
      add_items(&P, P.stack[P.sn - 2], P.sn - 1, false);
      break;
    }
    case 'e': { tfs_i64 from = pop_mark(&P); add_items(&P, *container_below(&P, from, &list_type, "APPENDS"), from, false); break; }
    case 's': {   /* SETITEM */
      need(&P, 3);
      container_below(&P, P.sn - 2, &dict_type, "SETITEM");
      add_items(&P, P.stack[P.sn - 3], P.sn - 2, true);
      break;
    }
    case 'u': { tfs_i64 from = pop_mark(&P); add_items(&P, *container_below(&P, from, &dict_type, "SETITEMS"), from, true); break; }
    case 0x90: { tfs_i64 from = pop_mark(&P); add_items(&P, *container_below(&P, from, &set_type, "ADDITEMS"), from, false); break; }
    case 'c': {   /* GLOBAL */
      tfs_i64 ml, nl;
      const char *mod = line(&P, &ml);
      const char *name = line(&P, &nl);
      push(&P, global(&P, mod, ml, name, nl));
      break;
    }
    case 0x93: {   /* STACK_GLOBAL */
      need(&P, 2);
      Val name = P.stack[P.sn - 1], mod = P.stack[P.sn - 2];
      if (!val_is(name, &str_type) || !val_is(mod, &str_type)) BAD(&P, "STACK_GLOBAL requires str");
      Val g = global(&P, str_cstr(mod), ((Str *)mod.u.o)->len, str_cstr(name), ((Str *)name.u.o)->len);
      val_decref(pop(&P));
      val_decref(pop(&P));
      push(&P, g);
      break;
    }
    case 'R': {   /* REDUCE */
      need(&P, 2);
      Val r = reduce(&P, P.stack[P.sn - 2], P.stack[P.sn - 1]);
      val_decref(pop(&P));
      val_decref(pop(&P));
      push(&P, r);
      break;
    }
    case 'b': {   /* BUILD */
      need(&P, 2);
      PklObj *o = as_pkl(P.stack[P.sn - 2]);
      if (o && o->kind == P_ARRAY) build_array(&P, o, P.stack[P.sn - 1]);
      else if (o && o->kind == P_DTYPE) build_dtype(&P, o, P.stack[P.sn - 1]);
      else rt_throw(ERR_NOTIMPL, "%s: tfs does not set the state of %s read from a pickle", where,
                    o ? global_names[o->kind] : val_type_name(P.stack[P.sn - 2]));
      val_decref(pop(&P));
      break;
    }
    case 0x81: case 0x92: {   /* NEWOBJ, NEWOBJ_EX: cls.__new__(cls, ...) */
      tfs_i64 k = op == 0x81 ? 2 : 3;
      need(&P, k);
      PklObj *o = as_pkl(P.stack[P.sn - k]);
      rt_throw(ERR_NOTIMPL, "%s: tfs does not create %s objects from a pickle", where, o ? global_names[o->kind] : val_type_name(P.stack[P.sn - k]));
    }
    case 'o': {   /* OBJ */
      tfs_i64 from = pop_mark(&P);
      if (from >= P.sn) BAD(&P, "OBJ without a class");
      PklObj *o = as_pkl(P.stack[from]);
      rt_throw(ERR_NOTIMPL, "%s: tfs does not create %s objects from a pickle", where, o ? global_names[o->kind] : val_type_name(P.stack[from]));
    }
    case 'i': {   /* INST module\nname\n */
      tfs_i64 ml, nl;
      const char *mod = line(&P, &ml);
      const char *name = line(&P, &nl);
      rt_throw(ERR_NOTIMPL, "%s: the pickle creates an instance of '%.*s.%.*s', which tfs does not load", where,
               (int)(ml < 140 ? ml : 140), mod, (int)(nl < 140 ? nl : 140), name);
    }
    case 'p': { const char *s = line(&P, &n); memo_put(&P, text_int(&P, s, n, "PUT")); break; }
    case 'q': memo_put(&P, *take(&P, 1)); break;
    case 'r': memo_put(&P, le(take(&P, 4), 4)); break;
    case 0x94: memo_put(&P, P.memolen); break;   /* MEMOIZE */
    case 'g': { const char *s = line(&P, &n); memo_get(&P, text_int(&P, s, n, "GET")); break; }
    case 'h': memo_get(&P, *take(&P, 1)); break;
    case 'j': memo_get(&P, le(take(&P, 4), 4)); break;
    case 'P': case 'Q':
      rt_throw(ERR_NOTIMPL, "%s: the pickle refers to persistent ids, which tfs does not load (byte %lld)", where, (long long)P.opat);
    case 0x82: case 0x83: case 0x84:
      rt_throw(ERR_NOTIMPL, "%s: the pickle uses the extension registry (copyreg), which tfs does not load (byte %lld)", where, (long long)P.opat);
    case 0x97: case 0x98:
      rt_throw(ERR_NOTIMPL, "%s: the pickle holds out-of-band buffers (protocol 5), which tfs does not load (byte %lld)", where, (long long)P.opat);
    default:
      P.op = -1;
      if (op >= 0x20 && op < 0x7f) BAD(&P, "invalid load key, '%c'.", op);
      BAD(&P, "invalid load key, '\\x%02x'.", op);
    }
  }
}
