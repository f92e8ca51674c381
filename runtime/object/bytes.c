/* bytes.c — an immutable byte string (b'..', SerializeToString, str.encode): the type, bytes(...), operators, indexing. */
#define _GNU_SOURCE   /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/hosttypes.h"
#include "object/object.h"

typedef struct Bytes { Obj hdr; size_t len; unsigned char data[]; } Bytes;

static void bytes_free(Obj *o) { free(o); }

/* Python's repr: printable ASCII as is, \t \n \r \\ and the quote escaped, others \xNN;
 * double quotes when the bytes hold a ' and no " */
static void bytes_repr(StrBuf *b, Val v) {
  const Bytes *x = (const Bytes *)v.u.o;
  char q = memchr(x->data, '\'', x->len) && !memchr(x->data, '"', x->len) ? '"' : '\'';
  sb_putc(b, 'b');
  sb_putc(b, q);
  for (size_t i = 0; i < x->len; i++) {
    unsigned char c = x->data[i];
    if (c == '\\' || c == (unsigned char)q) sb_printf(b, "\\%c", c);
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 32 || c >= 127) sb_printf(b, "\\x%02x", c);
    else sb_putc(b, (char)c);
  }
  sb_putc(b, q);
}

static tfs_i64 bytes_len(Val v) { return (tfs_i64)((const Bytes *)v.u.o)->len; }

static bool bytes_eq(Val a, Val b) {
  if (!val_is(a, &bytes_type) || !val_is(b, &bytes_type)) return false;
  const Bytes *x = (const Bytes *)a.u.o, *y = (const Bytes *)b.u.o;
  return x->len == y->len && !memcmp(x->data, y->data, x->len);
}

static tfs_u64 bytes_hash(Val v) {
  const Bytes *x = (const Bytes *)v.u.o;
  tfs_u64 h = 1469598103934665603ull;
  for (size_t i = 0; i < x->len; i++) h = (h ^ x->data[i]) * 1099511628211ull;
  return h;
}

//! bytes.decode(encoding='utf-8', errors='strict')
//!   The str the bytes encode (UTF-8 or ASCII); UnicodeDecodeError where they are not valid.
static Val bytes_decode_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "decode", .sig = "encoding='utf-8', errors='strict'"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const Bytes *x = (const Bytes *)self.u.o;
  const char *enc = val_is(a[0], &str_type) ? str_cstr(a[0]) : "utf-8";
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "decode() argument 'encoding' must be str, not %s", val_type_name(a[0]));
  if (!val_is(a[1], &str_type) || strcmp(str_cstr(a[1]), "strict"))
    rt_throw(ERR_NOTIMPL, "bytes.decode: only errors='strict' is supported");
  bool ascii = !strcasecmp(enc, "ascii") || !strcasecmp(enc, "us-ascii");
  if (!ascii && strcasecmp(enc, "utf-8") && strcasecmp(enc, "utf8") && strcasecmp(enc, "utf_8")) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown encoding: %.150s", enc);
    exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
  }
  for (size_t i = 0; i < x->len;) {
    const char *why = NULL;
    size_t len = ascii ? (x->data[i] < 0x80 ? 1 : 0) : utf8_seq(x->data + i, x->len - i, &why);
    if (!len) {   /* a truncated sequence at the end is reported whole, as CPython does */
      size_t end = !ascii && !strcmp(why, "unexpected end of data") ? x->len : i + 1;
      exc_unicode_decode_error(ascii ? "ascii" : "utf-8", x->data[i], i, end, ascii ? "ordinal not in range(128)" : why);
    }
    i += len;
  }
  return str_new((const char *)x->data, (tfs_i64)x->len);
}

/* b[i] is an int, b[i:j:k] bytes (Python's indexing and slicing). */
static Val bytes_getitem(Val self, Val key) {
  const Bytes *x = (const Bytes *)self.u.o;
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, n = slice_indices(key, (tfs_i64)x->len, &start, &stop, &step);
    Bytes *r = obj_new(&bytes_type, sizeof(Bytes) + (size_t)n);
    r->len = (size_t)n;
    for (tfs_i64 k = 0; k < n; k++) r->data[k] = x->data[start + k * step];
    return val_obj(r);
  }
  int64_t i = val_to_index(key, "byte indices");
  if (i < 0) i += (int64_t)x->len;
  if (i < 0 || i >= (int64_t)x->len) rt_throw(ERR_INDEX, "index out of range");
  return val_int(x->data[i]);
}

static Val bytes_getattr(Val self, const char *name) {
  if (!strcmp(name, "decode")) return builtin_new("bytes.decode", bytes_decode_m, self, NULL);
  return bytes_method(self, name);
}

/* An owned bytes of n bytes, its data left for the caller to fill. */
Val bytes_alloc(size_t n, unsigned char **data) {
  Bytes *b = obj_new(&bytes_type, sizeof(Bytes) + n);
  b->len = n;
  *data = b->data;
  return val_obj(b);
}

/* b + b2 and b * n; the operand errors are CPython's. */
static Val bytes_binop(int op, Val a, Val b) {
  if (op == BIN_ADD && val_is(a, &bytes_type)) {
    if (!val_is(b, &bytes_type)) rt_throw(ERR_TYPE, "can't concat %s to bytes", val_type_name(b));
    const Bytes *x = (const Bytes *)a.u.o, *y = (const Bytes *)b.u.o;
    unsigned char *d;
    Val r = bytes_alloc(x->len + y->len, &d);
    if (x->len) memcpy(d, x->data, x->len);
    if (y->len) memcpy(d + x->len, y->data, y->len);
    return r;
  }
  if (op == BIN_MUL) {
    Val seq = val_is(a, &bytes_type) ? a : b, n = val_is(a, &bytes_type) ? b : a;
    if (n.tag != VT_INT && n.tag != VT_BOOL)
      rt_throw(ERR_TYPE, "can't multiply sequence by non-int of type '%s'", val_type_name(n));
    const Bytes *x = (const Bytes *)seq.u.o;
    tfs_i64 k = n.u.i < 0 ? 0 : n.u.i, total;
    if (__builtin_mul_overflow((tfs_i64)x->len, k, &total) || total > ((tfs_i64)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
    unsigned char *d;
    Val r = bytes_alloc((size_t)total, &d);
    for (tfs_i64 i = 0; i < k; i++) memcpy(d + (size_t)i * x->len, x->data, x->len);
    return r;
  }
  return val_undef();
}

/* < <= > >= between bytes: byte-wise, the shorter first on a tie; other pairs are the caller's. */
static Val bytes_compare(int op, Val a, Val b) {
  if (!val_is(a, &bytes_type) || !val_is(b, &bytes_type)) return val_undef();
  const Bytes *x = (const Bytes *)a.u.o, *y = (const Bytes *)b.u.o;
  int c = memcmp(x->data, y->data, x->len < y->len ? x->len : y->len);
  if (!c) c = x->len < y->len ? -1 : x->len > y->len;
  switch (op) {
  case CMP_LT: return val_bool(c < 0);
  case CMP_LE: return val_bool(c <= 0);
  case CMP_GT: return val_bool(c > 0);
  case CMP_GE: return val_bool(c >= 0);
  case CMP_EQ: return val_bool(c == 0);
  case CMP_NE: return val_bool(c != 0);
  default: return val_undef();
  }
}

static bool bytes_step(Iter *it, Val *out) {
  const Bytes *x = (const Bytes *)it->src.u.o;
  if (it->i >= (tfs_i64)x->len) return false;
  *out = val_int(x->data[it->i++]);
  return true;
}

static Val bytes_iter(Val self) { return iter_new("bytes_iterator", bytes_step, self, val_undef(), 0, 0); }
static int bytes_truthy(Val v) { return ((const Bytes *)v.u.o)->len != 0; }

/* x in b: a byte value (an int) or a sub-sequence (bytes). */
bool bytes_contains(Val c, Val x) {
  const Bytes *b = (const Bytes *)c.u.o;
  if (x.tag == VT_INT || x.tag == VT_BOOL) {
    if (x.u.i < 0 || x.u.i > 255) rt_throw(ERR_VALUE, "byte must be in range(0, 256)");
    return memchr(b->data, (int)x.u.i, b->len) != NULL;
  }
  if (!val_is(x, &bytes_type)) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(x));
  const Bytes *s = (const Bytes *)x.u.o;
  return !s->len || memmem(b->data, b->len, s->data, s->len) != NULL;
}

const Type bytes_type = {.name = "bytes", .free = bytes_free, .repr = bytes_repr, .getattr = bytes_getattr,
                         .getitem = bytes_getitem, .iter = bytes_iter, .truthy = bytes_truthy,
                         .binop = bytes_binop, .compare = bytes_compare,
                         .len = bytes_len, .eq = bytes_eq, .hash = bytes_hash};

/* bytes(), bytes(n), bytes(iterable of ints), bytes(str, encoding), bytes(bytes). */
Val bytes_construct(int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "bytes", .sig = "source=, encoding=, errors="};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Val src = a[0];
  if (val_is(src, &str_type)) {
    if (val_is_undef(a[1])) rt_throw(ERR_TYPE, "string argument without an encoding");
    Val enc = rt_getattr(src, "encode");
    int mark = rt_hold_val(enc);
    Val r = rt_call(enc, val_is_undef(a[2]) ? 1 : 2, a + 1, NULL);
    rt_unhold(mark);
    val_decref(enc);
    return r;
  }
  if (!val_is_undef(a[1])) rt_throw(ERR_TYPE, "encoding without a string argument");
  if (!val_is_undef(a[2])) rt_throw(ERR_TYPE, "errors without a string argument");
  if (val_is_undef(src)) return bytes_new("", 0);
  if (val_is(src, &bytes_type)) return val_incref(src);
  if (src.tag == VT_INT || src.tag == VT_BOOL) {
    if (src.u.i < 0) rt_throw(ERR_VALUE, "negative count");
    if (src.u.i > ((tfs_i64)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
    unsigned char *d;
    Val r = bytes_alloc((size_t)src.u.i, &d);
    memset(d, 0, (size_t)src.u.i);
    return r;
  }
  if (src.tag != VT_OBJ || (!src.u.o->type->iter && !val_is(src, &list_type) && !val_is(src, &tuple_type)))
    rt_throw(ERR_TYPE, "cannot convert '%s' object to bytes", val_type_name(src));
  Val l = list_from_iterable(src);
  int mark = rt_hold_val(l);
  tfs_i64 len;
  const Val *items;
  seq_items(l, &len, &items);
  for (tfs_i64 i = 0; i < len; i++) {
    int64_t v = val_to_index(items[i], NULL);
    if (v < 0 || v > 255) rt_throw(ERR_VALUE, "bytes must be in range(0, 256)");
  }
  unsigned char *d;
  Val r = bytes_alloc((size_t)len, &d);
  for (tfs_i64 i = 0; i < len; i++) d[i] = (unsigned char)items[i].u.i;
  rt_unhold(mark);
  val_decref(l);
  return r;
}

Val bytes_new(const void *data, size_t n) {
  Bytes *b = obj_new(&bytes_type, sizeof(Bytes) + n);
  b->len = n;
  if (n) memcpy(b->data, data, n);
  return val_obj(b);
}

const void *bytes_data(Val v, size_t *n) {
  const Bytes *x = (const Bytes *)v.u.o;
  *n = x->len;
  return x->data;
}
