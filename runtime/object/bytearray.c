/* bytearray.c — the mutable byte string: the type, bytearray(...), item and slice assignment, the mutating methods. */
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"

typedef struct ByteArray { Obj hdr; size_t len, cap; unsigned char *data; } ByteArray;

static void ba_free(Obj *o) {
  free(((ByteArray *)o)->data);
  free(o);
}

static ByteArray *ba_of(Val v) { return (ByteArray *)v.u.o; }

/* Room for `need` bytes (the data pointer may move). */
static void ba_reserve(ByteArray *a, size_t need) {
  if (need <= a->cap) return;
  if (need > ((size_t)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
  size_t cap = a->cap ? a->cap : 8;
  while (cap < need) cap *= 2;
  unsigned char *d = realloc(a->data, cap);
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  a->data = d;
  a->cap = cap;
}

Val bytearray_new(const void *data, size_t n) {
  ByteArray *a = obj_new(&bytearray_type, sizeof(ByteArray));
  a->len = a->cap = 0;
  a->data = NULL;
  Val r = val_obj(a);
  int mark = rt_hold_val(r);
  ba_reserve(a, n);
  rt_unhold(mark);
  if (n) memcpy(a->data, data, n);
  a->len = n;
  return r;
}

/* The bytes of a bytes or bytearray (NULL: v is neither); the pointer is valid until the next change. */
const unsigned char *byteslike_data(Val v, size_t *n) {
  if (val_is(v, &bytes_type)) return bytes_data(v, n);
  if (!val_is(v, &bytearray_type)) return NULL;
  *n = ba_of(v)->len;
  return ba_of(v)->data ? ba_of(v)->data : (const unsigned char *)"";
}

/* A new value of like's kind (bytearray for a bytearray, else bytes) holding d[0..n). */
Val byteslike_new(Val like, const void *d, size_t n) {
  return val_is(like, &bytearray_type) ? bytearray_new(d, n) : bytes_new(d, n);
}

static void ba_repr(StrBuf *b, Val v) {
  Val t = bytes_new(ba_of(v)->data, ba_of(v)->len);
  int mark = rt_hold_val(t);
  sb_puts(b, "bytearray(");
  bytes_type.repr(b, t);
  sb_putc(b, ')');
  rt_unhold(mark);
  val_decref(t);
}

static tfs_i64 ba_len(Val v) { return (tfs_i64)ba_of(v)->len; }
static int ba_truthy(Val v) { return ba_of(v)->len != 0; }

static tfs_i64 ba_index(Val key, size_t n) {
  int64_t i = val_to_index(key, "bytearray indices");
  if (i < 0) i += (int64_t)n;
  if (i < 0 || i >= (int64_t)n) rt_throw(ERR_INDEX, "bytearray index out of range");
  return i;
}

static unsigned char ba_byte(Val v) {
  int64_t x = val_to_index(v, NULL);
  if (x < 0 || x > 255) rt_throw(ERR_VALUE, "byte must be in range(0, 256)");
  return (unsigned char)x;
}

static Val ba_getitem(Val self, Val key) {
  ByteArray *a = ba_of(self);
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, n = slice_indices(key, (tfs_i64)a->len, &start, &stop, &step);
    Val r = bytearray_new(NULL, 0);
    int mark = rt_hold_val(r);
    ba_reserve(ba_of(r), (size_t)n);
    rt_unhold(mark);
    for (tfs_i64 k = 0; k < n; k++) ba_of(r)->data[k] = a->data[start + k * step];
    ba_of(r)->len = (size_t)n;
    return r;
  }
  return val_int(a->data[ba_index(key, a->len)]);
}

/* Replace a[at..at+old) by n bytes from src (src may point into a: it is copied first). */
static void ba_splice(ByteArray *a, size_t at, size_t old, const unsigned char *src, size_t n) {
  unsigned char *tmp = NULL;
  if (n) {
    tmp = malloc(n);
    if (!tmp) rt_throw(ERR_MEMORY, "out of memory");
    memcpy(tmp, src, n);
  }
  size_t len = a->len - old + n;
  if (len > a->cap) {
    size_t cap = a->cap ? a->cap : 8;
    while (cap < len) cap *= 2;
    unsigned char *d = len > ((size_t)1 << 36) ? NULL : realloc(a->data, cap);
    if (!d) {
      free(tmp);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    a->data = d;
    a->cap = cap;
  }
  if (a->len > at + old) memmove(a->data + at + n, a->data + at + old, a->len - at - old);
  if (n) memcpy(a->data + at, tmp, n);
  free(tmp);
  a->len = len;
}

/* The bytes v gives to slice assignment and extend: a bytes-like object, or an iterable of ints in range(256).
 * An owned malloc'd buffer (NULL when n is 0). */
static unsigned char *ba_source(Val v, size_t *n) {
  size_t m;
  const unsigned char *d = byteslike_data(v, &m);
  if (d) {
    unsigned char *r = m ? malloc(m) : NULL;
    if (m && !r) rt_throw(ERR_MEMORY, "out of memory");
    if (m) memcpy(r, d, m);
    *n = m;
    return r;
  }
  Val l = list_from_iterable(v);
  int mark = rt_hold_val(l);
  tfs_i64 cnt;
  const Val *items;
  seq_items(l, &cnt, &items);
  for (tfs_i64 i = 0; i < cnt; i++) ba_byte(items[i]);
  unsigned char *r = cnt > 0 ? malloc((size_t)cnt) : NULL;
  if (cnt > 0 && !r) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < cnt; i++) r[i] = (unsigned char)items[i].u.i;
  rt_unhold(mark);
  val_decref(l);
  *n = (size_t)cnt;
  return r;
}

static void ba_setitem(Val self, Val key, Val v) {
  ByteArray *a = ba_of(self);
  if (!val_is(key, &slice_type)) {
    tfs_i64 i = ba_index(key, a->len);
    a->data[i] = ba_byte(v);
    return;
  }
  if (v.tag == VT_INT || v.tag == VT_BOOL || val_is(v, &str_type))
    rt_throw(ERR_TYPE, "can assign only bytes, buffers, or iterables of ints in range(0, 256)");
  size_t n;
  unsigned char *src = ba_source(v, &n);
  tfs_i64 start, stop, step, cnt = slice_indices(key, (tfs_i64)a->len, &start, &stop, &step);
  if (step == 1) {
    ba_splice(a, (size_t)start, (size_t)cnt, src, n);   /* copies src first */
    free(src);
    return;
  }
  if ((tfs_i64)n != cnt) {
    free(src);
    rt_throw(ERR_VALUE, "attempt to assign bytes of size %zu to extended slice of size %lld", n, (long long)cnt);
  }
  for (tfs_i64 k = 0; k < cnt; k++) a->data[start + k * step] = src[k];
  free(src);
}

void bytearray_delitem(Val self, Val key) {
  ByteArray *a = ba_of(self);
  if (!val_is(key, &slice_type)) {
    tfs_i64 i = ba_index(key, a->len);
    ba_splice(a, (size_t)i, 1, NULL, 0);
    return;
  }
  tfs_i64 start, stop, step, cnt = slice_indices(key, (tfs_i64)a->len, &start, &stop, &step);
  if (step < 0) start += (cnt - 1) * step, step = -step;
  size_t w = 0;
  for (size_t i = 0, nd = 0; i < a->len; i++) {
    if ((tfs_i64)nd < cnt && (tfs_i64)i == start + (tfs_i64)nd * step) nd++;
    else a->data[w++] = a->data[i];
  }
  a->len = w;
}

/* ba + bytes-like is a bytearray, ba * n too; mixed with bytes on the left the bytes' rule applies. */
static Val ba_binop(int op, Val a, Val b) {
  if (op == BIN_ADD && val_is(a, &bytearray_type)) {
    size_t m;
    const unsigned char *d = byteslike_data(b, &m);
    if (!d) rt_throw(ERR_TYPE, "can't concat %s to bytearray", val_type_name(b));
    Val r = bytearray_new(ba_of(a)->data, ba_of(a)->len);
    int mark = rt_hold_val(r);
    ba_splice(ba_of(r), ba_of(r)->len, 0, d, m);
    rt_unhold(mark);
    return r;
  }
  if (op == BIN_MUL) {
    Val seq = val_is(a, &bytearray_type) ? a : b, n = val_is(a, &bytearray_type) ? b : a;
    if (n.tag != VT_INT && n.tag != VT_BOOL) rt_throw(ERR_TYPE, "can't multiply sequence by non-int of type '%s'", val_type_name(n));
    Val t = bytes_new(ba_of(seq)->data, ba_of(seq)->len);
    int mark = rt_hold_val(t);
    Val rep = rt_binop(BIN_MUL, t, n);
    rt_unhold(mark);
    val_decref(t);
    size_t m;
    const unsigned char *d = byteslike_data(rep, &m);
    mark = rt_hold_val(rep);
    Val r = bytearray_new(d, m);
    rt_unhold(mark);
    val_decref(rep);
    return r;
  }
  if (op == BIN_MOD && val_is(a, &bytearray_type)) return format_percent(a, b);
  return val_undef();
}

/* ba += x and ba *= n change ba itself, as CPython's bytearray does. */
static Val ba_inplace(int op, Val a, Val b) {
  if (!val_is(a, &bytearray_type)) return val_undef();
  ByteArray *x = ba_of(a);
  if (op == BIN_ADD) {
    size_t m;
    const unsigned char *d = byteslike_data(b, &m);
    if (!d) rt_throw(ERR_TYPE, "can't concat %s to bytearray", val_type_name(b));
    ba_splice(x, x->len, 0, d, m);
    return val_incref(a);
  }
  if (op == BIN_MUL) {
    Val r = ba_binop(op, a, b);
    int mark = rt_hold_val(r);
    ba_splice(x, 0, x->len, ba_of(r)->data, ba_of(r)->len);
    rt_unhold(mark);
    val_decref(r);
    return val_incref(a);
  }
  return val_undef();
}

static bool ba_step(Iter *it, Val *out) {
  const ByteArray *a = ba_of(it->src);
  if (it->i >= (tfs_i64)a->len) return false;
  *out = val_int(a->data[it->i++]);
  return true;
}

static Val ba_iter(Val self) { return iter_new("bytearray_iterator", ba_step, self, val_undef(), 0, 0); }

//! bytearray.append(item)
//!   Add the byte value item (an int in range(256)) at the end.
static Val ba_append(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "append", .sig = "item"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  unsigned char c = ba_byte(a[0]);
  ba_splice(ba_of(self), ba_of(self)->len, 0, &c, 1);
  return val_none();
}

//! bytearray.extend(iterable_of_ints)
//!   Add the bytes of a bytes-like object, or the ints of an iterable, at the end.
static Val ba_extend(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "extend", .sig = "iterable_of_ints"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (a[0].tag != VT_OBJ || (!a[0].u.o->type->iter && !val_is(a[0], &list_type) && !val_is(a[0], &tuple_type)))
    rt_throw(ERR_TYPE, "can't extend bytearray with %s", val_type_name(a[0]));
  size_t m;
  unsigned char *d = ba_source(a[0], &m);
  ba_splice(ba_of(self), ba_of(self)->len, 0, d, m);
  free(d);
  return val_none();
}

//! bytearray.pop(index=-1)
//!   Remove and return the byte value at index (the last one by default).
static Val ba_pop(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "pop", .sig = "index=-1"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  ByteArray *x = ba_of(self);
  int64_t i = val_to_index(a[0], NULL);
  if (!x->len) rt_throw(ERR_INDEX, "pop from empty bytearray");
  if (i < 0) i += (int64_t)x->len;
  if (i < 0 || i >= (int64_t)x->len) rt_throw(ERR_INDEX, "pop index out of range");
  unsigned char c = x->data[i];
  ba_splice(x, (size_t)i, 1, NULL, 0);
  return val_int(c);
}

//! bytearray.insert(index, item)
//!   Insert the byte value item before index (clamped to the ends, as list.insert).
static Val ba_insert(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "insert", .sig = "index, item"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  ByteArray *x = ba_of(self);
  int64_t i = val_to_index(a[0], NULL);
  unsigned char c = ba_byte(a[1]);
  if (i < 0) i += (int64_t)x->len;
  if (i < 0) i = 0;
  if (i > (int64_t)x->len) i = (int64_t)x->len;
  ba_splice(x, (size_t)i, 0, &c, 1);
  return val_none();
}

//! bytearray.remove(value)
//!   Remove the first occurrence of the byte value; ValueError when there is none.
static Val ba_remove(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "remove", .sig = "value"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  ByteArray *x = ba_of(self);
  unsigned char c = ba_byte(a[0]);
  unsigned char *p = x->len ? memchr(x->data, c, x->len) : NULL;
  if (!p) rt_throw(ERR_VALUE, "value not found in bytearray");
  ba_splice(x, (size_t)(p - x->data), 1, NULL, 0);
  return val_none();
}

//! bytearray.reverse()
//!   Reverse the bytes in place.
static Val ba_reverse(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "reverse", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  ByteArray *x = ba_of(self);
  for (size_t i = 0, j = x->len; i + 1 < j; i++, j--) {
    unsigned char t = x->data[i];
    x->data[i] = x->data[j - 1];
    x->data[j - 1] = t;
  }
  return val_none();
}

//! bytearray.clear()
//!   Remove every byte.
static Val ba_clear(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "clear", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  ba_of(self)->len = 0;
  return val_none();
}

//! bytearray.copy()
//!   A new bytearray with the same bytes.
static Val ba_copy(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "copy", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return bytearray_new(ba_of(self)->data, ba_of(self)->len);
}

static Val ba_getattr(Val self, const char *name) {
  static const struct { const char *name; BuiltinFn fn; } own[] = {
    {"bytearray.append", ba_append}, {"bytearray.clear", ba_clear}, {"bytearray.copy", ba_copy},
    {"bytearray.extend", ba_extend}, {"bytearray.insert", ba_insert}, {"bytearray.pop", ba_pop},
    {"bytearray.remove", ba_remove}, {"bytearray.reverse", ba_reverse},
  };
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    if (!strcmp(own[i].name + 10, name)) return builtin_new(own[i].name, own[i].fn, self, NULL);
  return bytes_method(self, name);
}

const Type bytearray_type = {.name = "bytearray", .free = ba_free, .repr = ba_repr, .getattr = ba_getattr,
                             .getitem = ba_getitem, .setitem = ba_setitem, .iter = ba_iter, .truthy = ba_truthy,
                             .binop = ba_binop, .inplace = ba_inplace, .compare = byteslike_compare, .len = ba_len,
                             .eq = byteslike_eq};
