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

/* bytes == bytearray compares the bytes, as CPython. */
bool byteslike_eq(Val a, Val b) {
  size_t n, m;
  const unsigned char *x = byteslike_data(a, &n), *y = byteslike_data(b, &m);
  return x && y && n == m && (!n || !memcmp(x, y, n));
}

static tfs_u64 bytes_hash(Val v) {
  const Bytes *x = (const Bytes *)v.u.o;
  tfs_u64 h = 1469598103934665603ull;
  for (size_t i = 0; i < x->len; i++) h = (h ^ x->data[i]) * 1099511628211ull;
  return h;
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

static Val bytes_getattr(Val self, const char *name) { return bytes_method(self, name); }

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
    size_t m;
    const unsigned char *yd = byteslike_data(b, &m);   /* bytes + bytearray is bytes */
    if (!yd) rt_throw(ERR_TYPE, "can't concat %s to bytes", val_type_name(b));
    const Bytes *x = (const Bytes *)a.u.o;
    unsigned char *d;
    Val r = bytes_alloc(x->len + m, &d);
    if (x->len) memcpy(d, x->data, x->len);
    if (m) memcpy(d + x->len, yd, m);
    return r;
  }
  if (op == BIN_MOD && val_is(a, &bytes_type)) return format_percent(a, b);
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

/* < <= > >= between bytes and bytearrays: byte-wise, the shorter first on a tie; other pairs are the caller's. */
Val byteslike_compare(int op, Val a, Val b) {
  size_t n, m;
  const unsigned char *x = byteslike_data(a, &n), *y = byteslike_data(b, &m);
  if (!x || !y) return val_undef();
  int c = n && m ? memcmp(x, y, n < m ? n : m) : 0;
  if (!c) c = n < m ? -1 : n > m;
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
  size_t n, m;
  const unsigned char *d = byteslike_data(c, &n), *s;
  if (x.tag == VT_INT || x.tag == VT_BOOL) {
    if (x.u.i < 0 || x.u.i > 255) rt_throw(ERR_VALUE, "byte must be in range(0, 256)");
    return n && memchr(d, (int)x.u.i, n) != NULL;
  }
  if (!(s = byteslike_data(x, &m))) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(x));
  return !m || (n && memmem(d, n, s, m) != NULL);
}

const Type bytes_type = {.name = "bytes", .free = bytes_free, .repr = bytes_repr, .getattr = bytes_getattr,
                         .getitem = bytes_getitem, .iter = bytes_iter, .truthy = bytes_truthy,
                         .binop = bytes_binop, .compare = byteslike_compare,
                         .len = bytes_len, .eq = byteslike_eq, .hash = bytes_hash};

/* bytes(), bytes(n), bytes(iterable of ints), bytes(str, encoding), bytes(bytes-like); bytearray(...) likewise. */
Val bytes_build(int n, const Val *args, const Kw *kw, bool mutable_) {
  static ArgSpec spec = {.what = "bytes", .sig = "source=, encoding=, errors="},
                 bspec = {.what = "bytearray", .sig = "source=, encoding=, errors="};
  Val a[3];
  args_parse(mutable_ ? &bspec : &spec, n, args, kw, a);
  Val src = a[0];
  size_t len;
  const unsigned char *d;
  if (val_is(src, &str_type)) {
    if (val_is_undef(a[1])) rt_throw(ERR_TYPE, "string argument without an encoding");
    Val enc = rt_getattr(src, "encode");
    int mark = rt_hold_val(enc);
    Val r = rt_call(enc, val_is_undef(a[2]) ? 1 : 2, a + 1, NULL);
    rt_unhold(mark);
    val_decref(enc);
    if (!mutable_) return r;
    mark = rt_hold_val(r);
    d = byteslike_data(r, &len);
    Val ba = bytearray_new(d, len);
    rt_unhold(mark);
    val_decref(r);
    return ba;
  }
  if (!val_is_undef(a[1])) rt_throw(ERR_TYPE, "encoding without a string argument");
  if (!val_is_undef(a[2])) rt_throw(ERR_TYPE, "errors without a string argument");
  if (val_is_undef(src)) return mutable_ ? bytearray_new("", 0) : bytes_new("", 0);
  if (val_is(src, &bytes_type) && !mutable_) return val_incref(src);
  if ((d = byteslike_data(src, &len))) return mutable_ ? bytearray_new(d, len) : bytes_new(d, len);
  if (src.tag == VT_INT || src.tag == VT_BOOL) {
    if (src.u.i < 0) rt_throw(ERR_VALUE, "negative count");
    if (src.u.i > ((tfs_i64)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
    unsigned char *z;
    Val r = bytes_alloc((size_t)src.u.i, &z);
    memset(z, 0, (size_t)src.u.i);
    if (!mutable_) return r;
    int mark = rt_hold_val(r);
    Val ba = bytearray_new(z, (size_t)src.u.i);
    rt_unhold(mark);
    val_decref(r);
    return ba;
  }
  if (src.tag != VT_OBJ || (!src.u.o->type->iter && !val_is(src, &list_type) && !val_is(src, &tuple_type)))
    rt_throw(ERR_TYPE, "cannot convert '%s' object to %s", val_type_name(src), mutable_ ? "bytearray" : "bytes");
  Val l = list_from_iterable(src);
  int mark = rt_hold_val(l);
  tfs_i64 cnt;
  const Val *items;
  seq_items(l, &cnt, &items);
  for (tfs_i64 i = 0; i < cnt; i++) {
    int64_t v = val_to_index(items[i], NULL);
    if (v < 0 || v > 255) rt_throw(ERR_VALUE, mutable_ ? "byte must be in range(0, 256)" : "bytes must be in range(0, 256)");
  }
  unsigned char *z;
  Val r = bytes_alloc((size_t)cnt, &z);
  for (tfs_i64 i = 0; i < cnt; i++) z[i] = (unsigned char)items[i].u.i;
  rt_unhold(mark);
  val_decref(l);
  if (!mutable_) return r;
  mark = rt_hold_val(r);
  Val ba = bytearray_new(z, (size_t)cnt);
  rt_unhold(mark);
  val_decref(r);
  return ba;
}

Val bytes_construct(int n, const Val *args, const Kw *kw) { return bytes_build(n, args, kw, false); }

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
