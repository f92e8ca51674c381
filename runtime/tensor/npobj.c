/* npobj.c — numpy's object (dtype 'O') ndarrays: a list of Python values, a shape and strides into it; type() is numpy.ndarray. */
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "tensor/tensor.h"

/* Indexing, assignment, printing, comparison and the methods are numpy.tfs functions (over obj_items and the
 * shape), given once by _numpy.set_obj_methods; this file keeps the storage and the fast paths Keras's loops
 * take (len, iteration and a[i] of a 1-D array). */
static Val obj_methods = {VT_UNDEF, {0}};

void npobj_set_methods(Val methods) {
  val_decref(obj_methods);
  obj_methods = val_incref(methods);
}

bool val_is_npobj(Val v) { return val_is(v, &npobj_type); }

Val npobj_new(Val items, int rank, const tfs_i64 *shape) {
  if (!val_is(items, &list_type)) rt_throw(ERR_TYPE, "an object array's items must be a list, not %s", val_type_name(items));
  tfs_i64 n = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  if (n != ((List *)items.u.o)->len)
    rt_throw(ERR_VALUE, "cannot reshape array of size %lld into an object array of %lld elements", (long long)((List *)items.u.o)->len, (long long)n);
  NpObj *a = obj_new(&npobj_type, sizeof(NpObj));
  a->items = val_incref(items);
  a->rank = rank;
  memcpy(a->shape, shape, sizeof(tfs_i64) * (size_t)rank);
  a->offset = 0;
  tfs_i64 k = 1;
  for (int i = rank - 1; i >= 0; i--) { a->strides[i] = k; k *= shape[i]; }
  a->base = val_undef();
  return val_obj(a);
}

/* numpy's np.array(seq, dtype=object) of nested lists and tuples: the dimensions go as deep as every
 * element at a level is a list or tuple of one length; what is below is stored as it is. */
Val npobj_from_nested(Val seq) {
  tfs_i64 shape[TFS_MAX_RANK];
  int rank = 0;
  Val level = list_new(1);
  int mark = rt_hold_val(level);
  list_append(level, seq);
  for (;;) {
    List *l = (List *)level.u.o;
    tfs_i64 len = -1;
    bool deeper = rank < TFS_MAX_RANK;
    for (tfs_i64 i = 0; deeper && i < l->len; i++) {
      Val e = l->items[i];
      tfs_i64 n = val_is(e, &list_type) ? ((List *)e.u.o)->len : val_is(e, &tuple_type) ? ((Tuple *)e.u.o)->len : -1;
      if (n < 0 || (len >= 0 && n != len)) deeper = false;
      len = n;
    }
    if (!deeper || (l->len == 0 && rank)) break;
    Val next = list_new(l->len * len);
    for (tfs_i64 i = 0; i < l->len; i++) {
      Val e = l->items[i];
      const Val *sub = val_is(e, &list_type) ? ((List *)e.u.o)->items : ((Tuple *)e.u.o)->items;
      for (tfs_i64 j = 0; j < len; j++) list_append(next, sub[j]);
    }
    rt_unhold(mark);
    val_decref(level);
    level = next;
    mark = rt_hold_val(level);
    shape[rank++] = len;
    if (len == 0) break;
  }
  Val r = npobj_new(level, rank, shape);
  rt_unhold(mark);
  val_decref(level);
  return r;
}

/* tf.constant / tf.convert_to_tensor of an object array: TF takes text (bytes or str) only. */
_Noreturn void npobj_to_tensor_fail(Val v) {
  List *l = (List *)((NpObj *)v.u.o)->items.u.o;
  const char *what = "NoneType";
  for (tfs_i64 i = 0; i < l->len; i++)
    if (!val_is(l->items[i], &str_type) && !val_is(l->items[i], &bytes_type)) { what = val_type_name(l->items[i]); break; }
  rt_throw(ERR_VALUE, "Failed to convert a NumPy array to a Tensor (Unsupported object type %s).", what);
}

static void npobj_free(Obj *o) {
  val_decref(((NpObj *)o)->items);
  val_decref(((NpObj *)o)->base);
  free(o);
}
static void npobj_traverse(Obj *o, GcVisit visit, void *arg) {
  visit(((NpObj *)o)->items, true, arg);
  if (!val_is_undef(((NpObj *)o)->base)) visit(((NpObj *)o)->base, true, arg);
}
static void npobj_clear(Obj *o) {   /* leaves an empty array (its shape all zeros) */
  NpObj *a = (NpObj *)o;
  Val l = a->items, b = a->base;
  a->items = list_new(0);
  a->base = val_undef();
  a->offset = 0;
  for (int i = 0; i < a->rank; i++) a->shape[i] = 0;
  val_decref(l);
  val_decref(b);
}

/* The numpy module's function `name` (owned), or a TypeError when numpy was not imported. */
static Val method(const char *name) {
  Val f = dict_get_str(obj_methods, name);
  if (val_is_undef(f)) rt_throw(ERR_TYPE, "an object ndarray's %s needs 'import numpy'", name);
  return f;
}

static Val call_method(const char *name, int n, const Val *args) {
  Val f = method(name);
  int mark = rt_hold_val(f);
  Val r = rt_call(f, n, args, NULL);
  rt_unhold(mark);
  val_decref(f);
  return r;
}

static void print_with(const char *name, StrBuf *b, Val v) {
  if (val_is_undef(obj_methods)) { sb_puts(b, "array(..., dtype=object)"); return; }
  Val s = call_method(name, 1, &v);
  if (!val_is(s, &str_type)) rt_throw(ERR_TYPE, "%s returned %s, not str", name, val_type_name(s));
  sb_puts(b, str_cstr(s));
  val_decref(s);
}
static void npobj_repr(StrBuf *b, Val v) { print_with("__repr__", b, v); }
static void npobj_str(StrBuf *b, Val v) { print_with("__str__", b, v); }

/* A numpy-module function bound to its array (a.tolist, a.astype): self is (function, array). */
static Val bound_call(Val self, int n, const Val *args, const Kw *kw) {
  const Val *fa = ((Tuple *)self.u.o)->items;
  Val stack[8], *all = n < 7 ? stack : malloc(sizeof(Val) * (size_t)(n + 1));
  if (!all) rt_throw(ERR_MEMORY, "out of memory");
  all[0] = fa[1];
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  Val r = rt_call(fa[0], n + 1, all, kw);
  if (all != stack) free(all);
  return r;
}

Val ndarray_bind(Val f, Val self, const char *name) {
  Val pair = tuple_new(2);
  ((Tuple *)pair.u.o)->items[0] = f;
  ((Tuple *)pair.u.o)->items[1] = val_incref(self);
  Val b = builtin_new(name, bound_call, pair, NULL);
  val_decref(pair);
  return b;
}

static Val npobj_getattr(Val self, const char *name) {
  NpObj *a = (NpObj *)self.u.o;
  if (!strcmp(name, "shape")) {
    Val tu = tuple_new(a->rank);
    for (int i = 0; i < a->rank; i++) ((Tuple *)tu.u.o)->items[i] = val_int(a->shape[i]);
    return tu;
  }
  if (!strcmp(name, "dtype")) return val_obj(&npdtypes[DT_VARIANT]);   /* dtype('O') */
  if (!strcmp(name, "ndim")) return val_int(a->rank);
  tfs_i64 size = 1;
  for (int i = 0; i < a->rank; i++) size *= a->shape[i];
  if (!strcmp(name, "size")) return val_int(size);
  if (!strcmp(name, "base")) return val_is_undef(a->base) ? val_none() : val_incref(a->base);
  if (!strcmp(name, "itemsize")) return val_int(8);
  if (!strcmp(name, "nbytes")) return val_int(8 * size);
  Val f = dict_get_str(obj_methods, name);
  if (val_is_undef(f) || (!strncmp(name, "__", 2) && strcmp(name, "__abs__"))) {   /* abs(a) asks for __abs__ */
    val_decref(f);
    return val_undef();
  }
  if (!strcmp(name, "T")) {   /* properties */
    int mark = rt_hold_val(f);
    Val r = rt_call(f, 1, &self, NULL);
    rt_unhold(mark);
    val_decref(f);
    return r;
  }
  return ndarray_bind(f, self, name);
}

/* a[i] of a 1-D array (i an int in range, negative from the end): the element's list position; else -1. */
static tfs_i64 flat_index(Val self, Val key) {
  NpObj *a = (NpObj *)self.u.o;
  if (a->rank != 1 || key.tag != VT_INT) return -1;
  tfs_i64 i = key.u.i < 0 ? key.u.i + a->shape[0] : key.u.i;
  return i >= 0 && i < a->shape[0] ? a->offset + i * a->strides[0] : -1;
}

static Val npobj_getitem(Val self, Val key) {
  tfs_i64 i = flat_index(self, key);
  if (i >= 0) return val_incref(((List *)((NpObj *)self.u.o)->items.u.o)->items[i]);
  Val args[2] = {self, key};
  return call_method("__getitem__", 2, args);
}

static void npobj_setitem(Val self, Val key, Val v) {
  tfs_i64 i = flat_index(self, key);
  if (i >= 0) {
    List *l = (List *)((NpObj *)self.u.o)->items.u.o;
    Val old = l->items[i];
    l->items[i] = val_incref(v);
    val_decref(old);
    return;
  }
  Val args[3] = {self, key, v};
  val_decref(call_method("__setitem__", 3, args));
}

static tfs_i64 npobj_len(Val self) {
  NpObj *a = (NpObj *)self.u.o;
  if (a->rank == 0) rt_throw(ERR_TYPE, "len() of unsized object");
  return a->shape[0];
}

typedef struct NpObjIter { Obj hdr; Val a; tfs_i64 i; } NpObjIter;
static void objiter_free(Obj *o) { val_decref(((NpObjIter *)o)->a); free(o); }
static void objiter_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<iterator>"); }
static bool objiter_next(Val it, Val *out) {
  NpObjIter *ni = (NpObjIter *)it.u.o;
  if (ni->i >= ((NpObj *)ni->a.u.o)->shape[0]) return false;
  *out = npobj_getitem(ni->a, val_int(ni->i++));
  return true;
}
static Val objiter_iter(Val self) { return val_incref(self); }
static const Type objiter_type = {
  .name = "iterator", .free = objiter_free, .repr = objiter_repr, .iter = objiter_iter, .next = objiter_next,
};
static Val npobj_iter(Val self) {
  if (((NpObj *)self.u.o)->rank == 0) rt_throw(ERR_TYPE, "iteration over a 0-d array");
  NpObjIter *it = obj_new(&objiter_type, sizeof(NpObjIter));
  it->a = val_incref(self);
  it->i = 0;
  return val_obj(it);
}

static Val npobj_compare(int op, Val a, Val b) {
  if (val_is_undef(obj_methods)) return val_undef();
  Val args[3] = {val_int(op), a, b};
  return call_method("__compare__", 3, args);
}

static int npobj_truthy(Val v) {
  NpObj *a = (NpObj *)v.u.o;
  tfs_i64 size = 1;
  for (int i = 0; i < a->rank; i++) size *= a->shape[i];
  if (size != 1) rt_throw(ERR_VALUE, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  return rt_truthy(((List *)a->items.u.o)->items[a->offset]);
}

/* Arithmetic and unary operators: numpy.tfs applies Python's operator to each element. */
static Val npobj_binop(int op, Val a, Val b) {
  if (val_is_undef(obj_methods)) return val_undef();
  Val args[3] = {val_int(op), a, b};
  return call_method("__binop__", 3, args);
}
static Val npobj_inplace(int op, Val a, Val b) {   /* a op= b writes a's elements (and so its base's) */
  if (val_is_undef(obj_methods) || !val_is_npobj(a)) return val_undef();
  Val args[3] = {val_int(op), a, b};
  return call_method("__inplace__", 3, args);
}
static Val npobj_unop(int op, Val a) {
  if (val_is_undef(obj_methods)) return val_undef();
  Val args[2] = {val_int(op), a};
  return call_method("__unop__", 2, args);
}

static bool npobj_eq(Val a, Val b) { return a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o; }

static Val npobj_klass(Val self) {
  (void)self;
  return typeobj_for(&ndarray_type);   /* type(a) is numpy.ndarray, as numpy's object arrays */
}

const Type npobj_type = {
  .name = "numpy.ndarray", .free = npobj_free, .traverse = npobj_traverse, .clear = npobj_clear,
  .repr = npobj_repr, .str = npobj_str, .getattr = npobj_getattr, .getitem = npobj_getitem, .setitem = npobj_setitem,
  .iter = npobj_iter, .len = npobj_len, .compare = npobj_compare, .binop = npobj_binop, .unop = npobj_unop,
  .inplace = npobj_inplace, .truthy = npobj_truthy, .eq = npobj_eq,
  .klass = npobj_klass,
};
