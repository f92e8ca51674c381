/* memview.c — memoryview over bytes and bytearray: one-dimensional views of unsigned bytes (format 'B'), CPython's messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* A view of obj's bytes start, start + step, ... (len of them).  A bytearray
 * is read afresh at each access: writes through either side are seen by the
 * other. */
typedef struct MemView {
  Obj hdr;
  Val obj;            /* the bytes or bytearray (owned); VT_UNDEF once released */
  tfs_i64 start, len, step;
  bool ro;            /* toreadonly(): read-only even over a bytearray */
} MemView;

static MemView *mv_of(Val v) { return (MemView *)v.u.o; }

static void mv_live(const MemView *m) {
  if (val_is_undef(m->obj)) rt_throw(ERR_VALUE, "operation forbidden on released memoryview object");
}

/* The viewed bytes (live view): CPython forbids resizing an exported bytearray; tfs lets it
 * happen and refuses a view that now reaches past the end. */
static unsigned char *mv_data(const MemView *m) {
  mv_live(m);
  size_t n;
  const unsigned char *d = byteslike_data(m->obj, &n);
  tfs_i64 last = m->len ? m->start + (m->len - 1) * m->step : 0;
  if (m->len && (last < 0 || (size_t)last >= n || m->start >= (tfs_i64)n))
    rt_throw(ERR_VALUE, "memoryview: the bytearray it views was resized");
  return (unsigned char *)d;
}

static Val mv_new(Val obj, tfs_i64 start, tfs_i64 len, tfs_i64 step) {
  MemView *m = obj_new(&memoryview_type, sizeof(MemView));
  m->obj = val_incref(obj);
  m->start = start;
  m->len = len;
  m->step = step;
  m->ro = false;
  return val_obj(m);
}

//! memoryview(object)
//!   A view of the bytes of a bytes or bytearray object without copying them: len, indexing and slicing
//!   (a view again), tobytes(), tolist(), hex(), cast('B'), release() and use in a with statement;
//!   writable over a bytearray.
Val memoryview_of(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  /* argument clinic's texts, not the generic binder's */
  int nkw = kw ? kw->n : 0;
  if (n + nkw > 1) rt_throw(ERR_TYPE, "memoryview() takes at most 1 argument (%d given)", n + nkw);
  Val a[1] = {n ? args[0] : val_undef()};
  if (nkw && !strcmp(kw->names[0], "object")) a[0] = kw->vals[0];
  if (val_is_undef(a[0])) rt_throw(ERR_TYPE, "memoryview() missing required argument 'object' (pos 1)");
  if (val_is(a[0], &memoryview_type)) {
    const MemView *o = mv_of(a[0]);
    mv_live(o);
    Val r = mv_new(o->obj, o->start, o->len, o->step);
    mv_of(r)->ro = o->ro;
    return r;
  }
  size_t len;
  if (!byteslike_data(a[0], &len))
    rt_throw(ERR_TYPE, "memoryview: a bytes-like object is required, not '%s'", val_type_name(a[0]));
  return mv_new(a[0], 0, (tfs_i64)len, 1);
}

static bool mv_readonly(const MemView *m) { return m->ro || !val_is(m->obj, &bytearray_type); }

/* The view's bytes, contiguous (malloc'd; *n its length). */
static unsigned char *mv_copy(const MemView *m, size_t *n) {
  const unsigned char *d = mv_data(m);
  unsigned char *r = malloc((size_t)m->len + 1);
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < m->len; i++) r[i] = d[m->start + i * m->step];
  *n = (size_t)m->len;
  return r;
}

static Val mv_bytes(const MemView *m) {
  size_t n;
  unsigned char *d = mv_copy(m, &n);
  Val r = bytes_new(d, n);
  free(d);
  return r;
}

static tfs_i64 mv_index(const MemView *m, Val key) {
  if (key.tag != VT_INT && key.tag != VT_BOOL) rt_throw(ERR_TYPE, "memoryview: invalid slice key");
  tfs_i64 i = key.u.i < 0 ? key.u.i + m->len : key.u.i;
  if (i < 0 || i >= m->len) rt_throw(ERR_INDEX, "index out of bounds on dimension 1");
  return m->start + i * m->step;
}

static Val mv_getitem(Val self, Val key) {
  MemView *m = mv_of(self);
  mv_live(m);
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, n = slice_indices(key, m->len, &start, &stop, &step);
    Val r = mv_new(m->obj, m->start + start * m->step, n, m->step * step);
    mv_of(r)->ro = m->ro;
    return r;
  }
  tfs_i64 at = mv_index(m, key);
  return val_int(mv_data(m)[at]);
}

static unsigned char mv_byte(Val v) {
  if (v.tag != VT_INT && v.tag != VT_BOOL) rt_throw(ERR_TYPE, "memoryview: invalid type for format 'B'");
  if (v.u.i < 0 || v.u.i > 255) rt_throw(ERR_VALUE, "memoryview: invalid value for format 'B'");
  return (unsigned char)v.u.i;
}

static void mv_setitem(Val self, Val key, Val v) {
  MemView *m = mv_of(self);
  mv_live(m);
  if (mv_readonly(m)) rt_throw(ERR_TYPE, "cannot modify read-only memory");
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, n = slice_indices(key, m->len, &start, &stop, &step);
    size_t vn;
    const unsigned char *src = byteslike_data(v, &vn);
    if (!src && val_is(v, &memoryview_type)) {
      unsigned char *c = mv_copy(mv_of(v), &vn);
      if ((tfs_i64)vn != n) {
        free(c);
        rt_throw(ERR_VALUE, "memoryview assignment: lvalue and rvalue have different structures");
      }
      unsigned char *d = mv_data(m);
      for (tfs_i64 k = 0; k < n; k++) d[m->start + (start + k * step) * m->step] = c[k];
      free(c);
      return;
    }
    if (!src) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(v));
    if ((tfs_i64)vn != n) rt_throw(ERR_VALUE, "memoryview assignment: lvalue and rvalue have different structures");
    unsigned char *d = mv_data(m), *tmp = malloc(vn + 1);   /* src may be the viewed bytes themselves */
    if (!tmp) rt_throw(ERR_MEMORY, "out of memory");
    memcpy(tmp, src, vn);
    for (tfs_i64 k = 0; k < n; k++) d[m->start + (start + k * step) * m->step] = tmp[k];
    free(tmp);
    return;
  }
  tfs_i64 at = mv_index(m, key);
  unsigned char b = mv_byte(v);
  mv_data(m)[at] = b;
}

static tfs_i64 mv_len(Val self) {
  mv_live(mv_of(self));
  return mv_of(self)->len;
}

static bool mv_step(Iter *it, Val *out) {
  MemView *m = mv_of(it->src);
  if (it->i >= m->len) return false;
  *out = val_int(mv_data(m)[m->start + it->i++ * m->step]);
  return true;
}

static Val mv_iter(Val self) {
  mv_live(mv_of(self));
  return iter_new("memory_iterator", mv_step, self, val_undef(), 0, 0);
}

static void mv_repr(StrBuf *b, Val v) {
  sb_printf(b, "<%smemory at %p>", val_is_undef(mv_of(v)->obj) ? "released " : "", (void *)v.u.o);
}

/* == and != against a view or bytes-like value: the same bytes (a released view equals only itself). */
static Val mv_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  if (a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o) return val_bool(op == CMP_EQ);
  bool eq = false;
  for (int side = 0; side < 2; side++) {
    Val x = side ? b : a, y = side ? a : b;
    if (!val_is(x, &memoryview_type)) continue;
    size_t yn;
    const unsigned char *yd = byteslike_data(y, &yn);
    if (!yd && !val_is(y, &memoryview_type)) return val_undef();
    if (val_is_undef(mv_of(x)->obj) || (val_is(y, &memoryview_type) && val_is_undef(mv_of(y)->obj))) break;
    size_t xn;
    unsigned char *xd = mv_copy(mv_of(x), &xn), *yc = NULL;
    if (!yd) yd = yc = mv_copy(mv_of(y), &yn);
    eq = xn == yn && !memcmp(xd, yd, xn);
    free(xd);
    free(yc);
    break;
  }
  return val_bool(op == CMP_EQ ? eq : !eq);
}

static bool mv_eq(Val a, Val b) { return mv_compare(CMP_EQ, a, b).u.i != 0; }

/* A read-only view hashes as the bytes it shows (CPython); a writable one cannot. */
static tfs_u64 mv_hash(Val v) {
  MemView *m = mv_of(v);
  mv_live(m);
  if (mv_readonly(m)) {
    Val b = mv_bytes(m);
    tfs_u64 h = val_hash(b);
    val_decref(b);
    return h;
  }
  rt_throw(ERR_VALUE, "cannot hash writable memoryview object");
}

static void mv_release(MemView *m) {
  Val o = m->obj;
  m->obj = val_undef();
  val_decref(o);
}

static void mv_free(Obj *o) {
  val_decref(((MemView *)o)->obj);
  free(o);
}

static void mv_noargs(const char *what, int n, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "memoryview.%s() takes no keyword arguments", what);
  if (n) rt_throw(ERR_TYPE, "memoryview.%s() takes no arguments (%d given)", what, n);
}

//! memoryview.tobytes()
//!   The viewed bytes as a new bytes object.
static Val mv_tobytes(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("tobytes", n, kw);
  return mv_bytes(mv_of(self));
}

//! memoryview.tolist()
//!   The viewed bytes as a list of ints.
static Val mv_tolist(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("tolist", n, kw);
  MemView *m = mv_of(self);
  const unsigned char *d = mv_data(m);
  Val r = list_new(m->len);
  for (tfs_i64 i = 0; i < m->len; i++) list_append(r, val_int(d[m->start + i * m->step]));
  return r;
}

//! memoryview.hex()
//!   The viewed bytes as a string of two hex digits each.
static Val mv_hex(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("hex", n, kw);
  size_t len;
  unsigned char *d = mv_copy(mv_of(self), &len);
  char *s = malloc(2 * len + 1);
  if (!s) {
    free(d);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < len; i++) snprintf(s + 2 * i, 3, "%02x", d[i]);
  s[2 * len] = 0;
  free(d);
  return str_take(s, (tfs_i64)(2 * len));
}

//! memoryview.release()
//!   Let go of the viewed object: any later use of the view raises ValueError.
static Val mv_release_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("release", n, kw);
  mv_release(mv_of(self));
  return val_none();
}

//! memoryview.cast(format)
//!   A new view of the same bytes in another format: 'B' (unsigned bytes) only.
static Val mv_cast(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "cast", .sig = "format"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  MemView *m = mv_of(self);
  mv_live(m);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "cast() argument 'format' must be str, not %s", val_type_name(a[0]));
  if (m->step != 1) rt_throw(ERR_TYPE, "memoryview: casts are restricted to C-contiguous views");
  if (strcmp(str_cstr(a[0]), "B"))
    rt_throw(ERR_VALUE, "memoryview: tfs casts only to format 'B', not '%s'", str_cstr(a[0]));
  Val r = mv_new(m->obj, m->start, m->len, 1);
  mv_of(r)->ro = m->ro;
  return r;
}

//! memoryview.toreadonly()
//!   A read-only view of the same bytes.
static Val mv_toreadonly(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("toreadonly", n, kw);
  MemView *m = mv_of(self);
  mv_live(m);
  Val r = mv_new(m->obj, m->start, m->len, m->step);
  mv_of(r)->ro = true;
  return r;
}

static Val mv_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  mv_noargs("__enter__", n, kw);
  mv_live(mv_of(self));
  return val_incref(self);
}

static Val mv_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)n;
  (void)args;
  (void)kw;
  mv_release(mv_of(self));
  return val_bool(false);
}

static Val mv_getattr(Val self, const char *name) {
  static const struct { const char *name; BuiltinFn fn; } methods[] = {
    {"tobytes", mv_tobytes}, {"tolist", mv_tolist}, {"hex", mv_hex}, {"release", mv_release_m}, {"cast", mv_cast}, {"toreadonly", mv_toreadonly},
    {"__enter__", mv_enter}, {"__exit__", mv_exit},
  };
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
    if (!strcmp(name, methods[i].name)) return builtin_new(name, methods[i].fn, self, NULL);
  MemView *m = mv_of(self);
  static const char *const data[] = {"format", "itemsize", "nbytes", "readonly", "ndim", "shape", "strides", "obj",
                                     "c_contiguous", "f_contiguous", "contiguous", "suboffsets"};
  bool known = false;
  for (size_t i = 0; i < sizeof data / sizeof *data; i++) known |= !strcmp(name, data[i]);
  if (!known) return val_undef();
  mv_live(m);
  if (!strcmp(name, "format")) return str_from_cstr("B");
  if (!strcmp(name, "itemsize") || !strcmp(name, "ndim")) return val_int(1);
  if (!strcmp(name, "nbytes")) return val_int(m->len);
  if (!strcmp(name, "readonly")) return val_bool(mv_readonly(m));
  if (!strcmp(name, "shape")) return tuple_pack(1, val_int(m->len));
  if (!strcmp(name, "strides")) return tuple_pack(1, val_int(m->step));
  if (!strcmp(name, "obj")) return val_incref(m->obj);
  if (!strcmp(name, "suboffsets")) return tuple_new(0);
  return val_bool(m->step == 1 || m->len <= 1);   /* c_contiguous, f_contiguous (one dimension: the same), contiguous */
}

const Type memoryview_type = {
  .name = "memoryview",
  .free = mv_free,   /* no traverse: bytes and bytearray hold no references, so no cycle runs through a view */
  .repr = mv_repr,
  .getattr = mv_getattr,
  .getitem = mv_getitem,
  .setitem = mv_setitem,
  .iter = mv_iter,
  .len = mv_len,
  .compare = mv_compare,
  .eq = mv_eq,
  .hash = mv_hash,
};
