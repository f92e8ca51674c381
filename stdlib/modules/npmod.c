/* npmod.c — `_numpy`: the native helpers of stdlib/numpy.tfs (dtype objects, in-place stores, sorting, .npz writing, the legacy MT19937 and PCG64 streams). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <errno.h>

#include "formats/iofile.h"
#include "formats/pklread.h"
#include "kernels/nprandom.h"
#include "object/atomicfile.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "tensor/tprint.h"


static Tensor *arg_tensor(Val v, const char *what) {
  Tensor *t = val_as_tensor(v);
  if (!t || t->sym) rt_throw(ERR_TYPE, "_numpy.%s: expected an array, not '%s'", what, val_type_name(v));
  return t;
}

static Val nd_owned(Tensor *t) {
  Val a = ndarray_new(t);
  tensor_release(t);
  return a;
}

static Val nd_owned_0d(Tensor *t) {
  Val a = ndarray_new_0d(t);
  tensor_release(t);
  return a;
}

static void want_args(const char *what, int n, int want, const Kw *kw) {
  if (n != want || (kw && kw->n)) rt_throw(ERR_TYPE, "_numpy.%s() takes %d positional arguments", what, want);
}

static Val npm_set_methods(Val self, int n, const Val *args, const Kw *kw) {
  want_args("set_methods", n, 1, kw);
  ndarray_set_methods(args[0]);
  return val_none();
}

static Val npm_dtype(Val self, int n, const Val *args, const Kw *kw) {
  want_args("dtype", n, 1, kw);
  DType dt;
  if (!val_as_dtype(args[0], &dt) || dt == DT_VARIANT) return val_none();
  return val_obj(&npdtypes[dt]);
}

/* result_dtype(a, b): the dtype numpy 1.24 gives a binary ufunc's result (None: not numbers or arrays). */
static Val npm_result_dtype(Val self, int n, const Val *args, const Kw *kw) {
  want_args("result_dtype", n, 2, kw);
  DType dt;
  if (!ndarray_result_dtype(args[0], args[1], &dt)) return val_none();
  return val_obj(&npdtypes[dt]);
}

/* wrap(t): a tensor result as numpy gives it (0-d: the numpy scalar of its dtype). */
static Val npm_wrap(Val self, int n, const Val *args, const Kw *kw) {
  want_args("wrap", n, 1, kw);
  if (!val_is_tensor(args[0])) return val_incref(args[0]);
  return ndarray_new(arg_tensor(args[0], "wrap"));
}

/* array0(t): t as an ndarray, a 0-d one too (np.array(7), np.zeros(())). */
static Val npm_array0(Val self, int n, const Val *args, const Kw *kw) {
  want_args("array0", n, 1, kw);
  return ndarray_new_0d(arg_tensor(args[0], "array0"));
}

/* text(t, width): a string tensor as numpy's '<U width' array (0-d too: np.array('abc')). */
static Val npm_text(Val self, int n, const Val *args, const Kw *kw) {
  want_args("text", n, 2, kw);
  return ndarray_new_unicode(arg_tensor(args[0], "text"), (int)val_to_index(args[1], "text"), true);
}

/* set_str_type(cls): numpy.str_, the class of a text array's elements. */
static Val npm_set_str_type(Val self, int n, const Val *args, const Kw *kw) {
  want_args("set_str_type", n, 1, kw);
  ndarray_set_str_type(args[0]);
  return val_none();
}

/* udtype(n): dtype('<U n'); n 0: np.dtype(str), printed '<U0' (its repr dtype('<U')). */
static Val npm_udtype(Val self, int n, const Val *args, const Kw *kw) {
  want_args("udtype", n, 1, kw);
  tfs_i64 w = val_to_index(args[0], "udtype");
  if (w < 0 || w > 0x7fffffff / 4) rt_throw(ERR_VALUE, "_numpy.udtype: bad width %lld", (long long)w);
  return npdtype_unicode(w ? (int)w : -1);
}

/* uwidth(a): a '<U n' array's n, 0 for other values. */
static Val npm_uwidth(Val self, int n, const Val *args, const Kw *kw) {
  want_args("uwidth", n, 1, kw);
  return val_int(ndarray_uwidth(args[0]));
}

/* ---- numpy's scalar types as classes: np.float32(1.5), isinstance(x, np.floating), type(x) ---- */

#define NP_CTOR(dt) static Val ctor_##dt(Val self, int n, const Val *args, const Kw *kw) { (void)self; return npscalar_new(dt, n, args, kw); }
NP_CTOR(DT_FLOAT32) NP_CTOR(DT_FLOAT64) NP_CTOR(DT_INT32) NP_CTOR(DT_INT64) NP_CTOR(DT_BOOL) NP_CTOR(DT_UINT8)
NP_CTOR(DT_INT8) NP_CTOR(DT_INT16) NP_CTOR(DT_UINT16) NP_CTOR(DT_UINT32) NP_CTOR(DT_UINT64) NP_CTOR(DT_FLOAT16)
NP_CTOR(DT_COMPLEX64) NP_CTOR(DT_COMPLEX128)

enum { NPA_GENERIC, NPA_NUMBER, NPA_INTEGER, NPA_SIGNED, NPA_UNSIGNED, NPA_INEXACT, NPA_FLOATING, NPA_COMPLEX, NPA__COUNT };
static const char *const npa_names[NPA__COUNT] = {"generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
                                                  "complexfloating"};
static const int npa_base[NPA__COUNT] = {-1, NPA_GENERIC, NPA_NUMBER, NPA_INTEGER, NPA_INTEGER, NPA_NUMBER, NPA_INEXACT, NPA_INEXACT};
static Type npa_types[NPA__COUNT];   /* the abstract classes: no instances of their own */

static TypeObj *npa_class(int k) {
  if (!npa_types[k].name) {
    static char names[NPA__COUNT][32];
    snprintf(names[k], sizeof names[k], "numpy.%s", npa_names[k]);
    npa_types[k].name = names[k];
  }
  TypeObj *o = (TypeObj *)typeobj_for(&npa_types[k]).u.o;
  if (npa_base[k] >= 0 && !o->base) o->base = npa_class(npa_base[k]);
  return o;
}

static TypeObj *np_scalar_class(DType dt) {
  static const BuiltinFn ctors[DT__COUNT] = {
    [DT_FLOAT32] = ctor_DT_FLOAT32, [DT_FLOAT64] = ctor_DT_FLOAT64, [DT_INT32] = ctor_DT_INT32,
    [DT_INT64] = ctor_DT_INT64, [DT_BOOL] = ctor_DT_BOOL, [DT_UINT8] = ctor_DT_UINT8,
    [DT_INT8] = ctor_DT_INT8, [DT_INT16] = ctor_DT_INT16, [DT_UINT16] = ctor_DT_UINT16,
    [DT_UINT32] = ctor_DT_UINT32, [DT_UINT64] = ctor_DT_UINT64, [DT_FLOAT16] = ctor_DT_FLOAT16,
    [DT_COMPLEX64] = ctor_DT_COMPLEX64, [DT_COMPLEX128] = ctor_DT_COMPLEX128,
  };
  TypeObj *o = (TypeObj *)typeobj_for(&npscalar_types[dt]).u.o;
  if (!o->ctor) {
    o->ctor = ctors[dt];
    bool uns = dt == DT_UINT8 || dt == DT_UINT16 || dt == DT_UINT32 || dt == DT_UINT64;
    o->base = npa_class(dt == DT_BOOL ? NPA_GENERIC : dtype_info[dt].is_float ? NPA_FLOATING : dtype_is_complex(dt) ? NPA_COMPLEX
                        : uns ? NPA_UNSIGNED : NPA_SIGNED);
  }
  return o;
}

/* scalar_type(name): np.float32 ... ('float32', 'bool'), or an abstract class ('floating'); None if unknown. */
static Val npm_scalar_type(Val self, int n, const Val *args, const Kw *kw) {
  want_args("scalar_type", n, 1, kw);
  if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_numpy.scalar_type: expected a name");
  const char *nm = str_cstr(args[0]);
  for (int k = 0; k < NPA__COUNT; k++)
    if (!strcmp(nm, npa_names[k])) return val_obj(npa_class(k));
  DType dt;
  if (!val_as_dtype(args[0], &dt) || dt == DT_STRING || dt == DT_VARIANT || dt == DT_BFLOAT16) return val_none();   /* bfloat16 is no numpy type */
  return val_obj(np_scalar_class(dt));
}

static Val npm_is_ndarray(Val self, int n, const Val *args, const Kw *kw) {
  want_args("is_ndarray", n, 1, kw);
  return val_bool(val_is_ndarray(args[0]));   /* numpy scalars too: array-likes of their dtype */
}

/* warn(category, message): numpy's warnings.warn(message, category, stacklevel=2), shown at the user's line. */
static Val npm_warn(Val self, int n, const Val *args, const Kw *kw) {
  want_args("warn", n, 2, kw);
  if (!val_is(args[0], &str_type) || !val_is(args[1], &str_type)) rt_throw(ERR_TYPE, "_numpy.warn: expected two strings");
  rt_warn(str_cstr(args[0]), str_cstr(args[1]));
  return val_none();
}

/* ---- object (dtype 'O') arrays: numpy.tfs's functions over the flat items (tensor/npobj.c) ---- */

static Val npm_set_obj_methods(Val self, int n, const Val *args, const Kw *kw) {
  want_args("set_obj_methods", n, 1, kw);
  npobj_set_methods(args[0]);
  return val_none();
}

/* objarray(items, shape): an object array of the list items (kept, not copied) in C order. */
static Val npm_objarray(Val self, int n, const Val *args, const Kw *kw) {
  want_args("objarray", n, 2, kw);
  if (!val_is(args[1], &tuple_type) && !val_is(args[1], &list_type)) rt_throw(ERR_TYPE, "_numpy.objarray: the shape must be a tuple");
  tfs_i64 len = val_is(args[1], &tuple_type) ? ((Tuple *)args[1].u.o)->len : ((List *)args[1].u.o)->len;
  const Val *it = val_is(args[1], &tuple_type) ? ((Tuple *)args[1].u.o)->items : ((List *)args[1].u.o)->items;
  if (len > TFS_MAX_RANK) rt_throw(ERR_VALUE, "maximum supported dimension for an ndarray is %d, found %lld", TFS_MAX_RANK, (long long)len);
  tfs_i64 shape[TFS_MAX_RANK];
  for (tfs_i64 i = 0; i < len; i++) shape[i] = val_to_index(it[i], "objarray");
  return npobj_new(args[0], (int)len, shape);
}

static Val npm_obj_nested(Val self, int n, const Val *args, const Kw *kw) {
  want_args("obj_nested", n, 1, kw);
  return npobj_from_nested(args[0]);
}

/* obj_items(a): the object array's elements in C order (its own list when it is all of it, else a copy). */
static Val npm_obj_items(Val self, int n, const Val *args, const Kw *kw) {
  want_args("obj_items", n, 1, kw);
  if (!val_is_npobj(args[0])) rt_throw(ERR_TYPE, "_numpy.obj_items: expected an object array");
  return npobj_values(args[0]);
}

/* obj_layout(a): (the list shared with a's views and base, offset, strides) — where a's elements sit. */
static Val npm_obj_layout(Val self, int n, const Val *args, const Kw *kw) {
  want_args("obj_layout", n, 1, kw);
  if (!val_is_npobj(args[0])) rt_throw(ERR_TYPE, "_numpy.obj_layout: expected an object array");
  const NpObj *a = (const NpObj *)args[0].u.o;
  Val st = tuple_new(a->rank);
  for (int i = 0; i < a->rank; i++) ((Tuple *)st.u.o)->items[i] = val_int(a->strides[i]);
  Val r = tuple_new(3);
  ((Tuple *)r.u.o)->items[0] = val_incref(a->items);
  ((Tuple *)r.u.o)->items[1] = val_int(a->offset);
  ((Tuple *)r.u.o)->items[2] = st;
  return r;
}

/* obj_view(a, offset, shape, strides): a view of a's list (numpy's basic indexing, reshape, transpose). */
static Val npm_obj_view(Val self, int n, const Val *args, const Kw *kw) {
  want_args("obj_view", n, 4, kw);
  if (!val_is_npobj(args[0])) rt_throw(ERR_TYPE, "_numpy.obj_view: expected an object array");
  tfs_i64 shape[TFS_MAX_RANK], strides[TFS_MAX_RANK];
  Val sh = args[2], st = args[3];
  if (!val_is(sh, &tuple_type) || !val_is(st, &tuple_type) || ((Tuple *)sh.u.o)->len != ((Tuple *)st.u.o)->len)
    rt_throw(ERR_TYPE, "_numpy.obj_view: the shape and strides must be tuples of one length");
  tfs_i64 len = ((Tuple *)sh.u.o)->len;
  if (len > TFS_MAX_RANK) rt_throw(ERR_VALUE, "maximum supported dimension for an ndarray is %d, found %lld", TFS_MAX_RANK, (long long)len);
  for (tfs_i64 i = 0; i < len; i++) {
    shape[i] = val_to_index(((Tuple *)sh.u.o)->items[i], "obj_view");
    strides[i] = val_to_index(((Tuple *)st.u.o)->items[i], "obj_view");
  }
  return npobj_view(args[0], val_to_index(args[1], "obj_view"), (int)len, shape, strides);
}

static Val npm_is_obj(Val self, int n, const Val *args, const Kw *kw) {
  want_args("is_obj", n, 1, kw);
  return val_bool(val_is_npobj(args[0]));
}

static Val npm_objdtype(Val self, int n, const Val *args, const Kw *kw) {
  want_args("objdtype", n, 0, kw);
  return val_obj(&npdtypes[DT_VARIANT]);
}

/* put(a, positions, values): a.flat[positions[i]] = values[i], in place through a's views. */
static Val npm_put(Val self, int n, const Val *args, const Kw *kw) {
  want_args("put", n, 3, kw);
  if (!val_is(args[0], &ndarray_type)) rt_throw(ERR_TYPE, "_numpy.put: expected an ndarray");
  NdArray *a = (NdArray *)args[0].u.o;
  Tensor *pos = arg_tensor(args[1], "put"), *vals = arg_tensor(args[2], "put");
  if (pos->dtype != DT_INT64 || vals->dtype != a->t->dtype || pos->size != vals->size)
    rt_throw(ERR_TYPE, "_numpy.put: positions must be int64 and values of the array's dtype and count");
  Tensor *pc = tensor_contiguous(pos), *vc = tensor_copy(vals);   /* values may be views of a itself */
  int hm = rt_hold_val(val_obj(pc));
  rt_hold_val(val_obj(vc));
  ndarray_prepare_write(a);
  rt_unhold(hm);
  const int64_t *p = tensor_data(pc);
  size_t es = (size_t)dtype_info[a->t->dtype].size;
  char *dst = a->t->buf->data;
  const char *src = tensor_data(vc);
  for (tfs_i64 i = 0; i < pc->size; i++) {
    if (p[i] < 0 || p[i] >= a->t->size) continue;
    char *d = dst + (size_t)tensor_elem_offset(a->t, p[i]) * es;
    if (dtype_holds_refs(a->t->dtype)) {
      Obj *o = ((Obj *const *)src)[i];
      if (o) TFS_INCREF(val_obj(o));
      if (*(Obj **)d) TFS_DECREF(val_obj(*(Obj **)d));
      *(Obj **)d = o;
    } else {
      memcpy(d, src + (size_t)i * es, es);
    }
  }
  tensor_release(pc);
  tensor_release(vc);
  return val_none();
}

static NdArray *arg_array(Val v, const char *what) {
  if (!val_is(v, &ndarray_type)) rt_throw(ERR_TYPE, "_numpy.%s: expected an ndarray, not '%s'", what, val_type_name(v));
  return (NdArray *)v.u.o;
}

/* A view of array a in a's family: its memory from a's offset with this shape and strides. */
static Val view_of(Val a, int rank, const tfs_i64 *shape, const tfs_i64 *strides) {
  Tensor *t = ((NdArray *)a.u.o)->t, *v = tensor_view(t, rank, shape, strides, t->offset);
  Val r = ndarray_view_new(a, v);
  tensor_release(v);
  return r;
}

/* reshape_view(a, shape): a view of a with that shape (same size) when its strides allow one, as
 * numpy's reshape without a copy; None when the data must be copied. */
static Val npm_reshape_view(Val self, int n, const Val *args, const Kw *kw) {
  want_args("reshape_view", n, 2, kw);
  NdArray *a = arg_array(args[0], "reshape_view");
  Tensor *t = a->t;
  tfs_i64 nd[TFS_MAX_RANK], ns[TFS_MAX_RANK], od[TFS_MAX_RANK], os[TFS_MAX_RANK];
  int nn = val_to_dims(args[1], nd, false, "shape"), on = 0;
  for (int i = 0; i < t->rank; i++)
    if (t->shape[i] != 1) { od[on] = t->shape[i]; os[on++] = t->strides[i]; }   /* 1-dims carry no layout */
  if (t->size == 0) on = 0;
  int oi = 0, ni = 0;
  while (oi < on && ni < nn) {   /* match groups of old and new dims with equal products */
    tfs_i64 np_ = nd[ni], op_ = od[oi];
    int nj = ni + 1, oj = oi + 1;
    while (np_ != op_) {
      if (np_ < op_) { if (nj == nn) return val_none(); np_ *= nd[nj++]; }
      else { if (oj == on) return val_none(); op_ *= od[oj++]; }
    }
    for (int k = oi; k < oj - 1; k++)
      if (os[k] != od[k + 1] * os[k + 1]) return val_none();   /* the group is not one run of memory */
    ns[nj - 1] = os[oj - 1];
    for (int k = nj - 1; k > ni; k--) ns[k - 1] = ns[k] * nd[k];
    ni = nj;
    oi = oj;
  }
  tfs_i64 last = ni ? ns[ni - 1] : 1;
  for (; ni < nn; ni++) ns[ni] = last;   /* trailing 1-dims (or an empty or one-element array) */
  if (t->size == 0 || on == 0) {
    tfs_i64 s = 1;
    for (int k = nn - 1; k >= 0; k--) { ns[k] = s; s *= nd[k] ? nd[k] : 1; }
  }
  return view_of(args[0], nn, nd, ns);
}

/* transpose_view(a, axes): the view with a's axes permuted (numpy's transpose never copies). */
static Val npm_transpose_view(Val self, int n, const Val *args, const Kw *kw) {
  want_args("transpose_view", n, 2, kw);
  NdArray *a = arg_array(args[0], "transpose_view");
  tfs_i64 ax[TFS_MAX_RANK], sh[TFS_MAX_RANK], st[TFS_MAX_RANK];
  int r = val_to_dims(args[1], ax, false, "axes");
  if (r != a->t->rank) rt_throw(ERR_VALUE, "axes don't match array");
  for (int i = 0; i < r; i++) {
    tfs_i64 k = ax[i] < 0 ? ax[i] + r : ax[i];
    if (k < 0 || k >= r) rt_throw(ERR_VALUE, "axes don't match array");
    sh[i] = a->t->shape[k];
    st[i] = a->t->strides[k];
  }
  return view_of(args[0], r, sh, st);
}

/* copy(a): a new array owning a packed copy of a's values (a.copy(), np.array(a)). */
static Val npm_copy(Val self, int n, const Val *args, const Kw *kw) {
  want_args("copy", n, 1, kw);
  Tensor *t = arg_tensor(args[0], "copy");
  Val r = nd_owned_0d(tensor_copy(t));
  if (ndarray_uwidth(args[0])) ((NdArray *)r.u.o)->uwidth = ndarray_uwidth(args[0]);   /* a text array's copy keeps its width */
  return r;
}

/* Element offsets (into the buffer) that an array's elements occupy: [lo, hi]. */
static void extent(const Tensor *t, tfs_i64 *lo, tfs_i64 *hi) {
  *lo = *hi = t->offset;
  for (int i = 0; i < t->rank; i++) {
    tfs_i64 span = (t->shape[i] - 1) * t->strides[i];
    if (span < 0) *lo += span; else *hi += span;
  }
}

/* shares_memory(a, b, exact): whether a and b are in one family with elements in common (exact), or
 * whose memory ranges overlap (numpy's may_share_memory); arrays outside a family never share. */
static Val npm_shares_memory(Val self, int n, const Val *args, const Kw *kw) {
  want_args("shares_memory", n, 3, kw);
  if (!val_is(args[0], &ndarray_type) || !val_is(args[1], &ndarray_type)) return val_bool(false);
  NdArray *a = (NdArray *)args[0].u.o, *b = (NdArray *)args[1].u.o;
  if (ndarray_owner(a) != ndarray_owner(b) || a->t->buf != b->t->buf || !a->t->size || !b->t->size) return val_bool(false);
  tfs_i64 alo, ahi, blo, bhi;
  extent(a->t, &alo, &ahi);
  extent(b->t, &blo, &bhi);
  if (ahi < blo || bhi < alo) return val_bool(false);
  if (!rt_truthy(args[2])) return val_bool(true);
  tfs_i64 lo = alo < blo ? blo : alo, hi = ahi < bhi ? ahi : bhi;
  unsigned char *mark = calloc((size_t)(hi - lo + 1), 1);
  if (!mark) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < a->t->size; i++) {
    tfs_i64 o = tensor_elem_offset(a->t, i);
    if (o >= lo && o <= hi) mark[o - lo] = 1;
  }
  bool hit = false;
  for (tfs_i64 i = 0; i < b->t->size && !hit; i++) {
    tfs_i64 o = tensor_elem_offset(b->t, i);
    hit = o >= lo && o <= hi && mark[o - lo];
  }
  free(mark);
  return val_bool(hit);
}

/* flags(a): (C_CONTIGUOUS, F_CONTIGUOUS, OWNDATA, WRITEABLE) as numpy computes them. */
static Val npm_flags(Val self, int n, const Val *args, const Kw *kw) {
  want_args("flags", n, 1, kw);
  Tensor *t = arg_tensor(args[0], "flags");
  bool c = true, f = true;
  tfs_i64 s = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    if (t->shape[i] == 0) { c = f = true; s = 0; break; }
    if (t->shape[i] != 1 && t->strides[i] != s) c = false;
    s *= t->shape[i];
  }
  s = 1;
  for (int i = 0; i < t->rank && t->size; i++) {
    if (t->shape[i] != 1 && t->strides[i] != s) f = false;
    s *= t->shape[i];
  }
  bool nd = val_is(args[0], &ndarray_type);
  Val tu = tuple_new(4);
  Val *it = ((Tuple *)tu.u.o)->items;
  it[0] = val_bool(c);
  it[1] = val_bool(f);
  it[2] = val_bool(!nd || !((NdArray *)args[0].u.o)->base);
  it[3] = val_bool(nd && !((NdArray *)args[0].u.o)->readonly);
  return tu;
}

/* set_writeable(a, flag): numpy's a.flags.writeable = flag (a view of a read-only array stays read-only). */
static Val npm_set_writeable(Val self, int n, const Val *args, const Kw *kw) {
  want_args("set_writeable", n, 2, kw);
  NdArray *a = arg_array(args[0], "set_writeable");
  bool w = rt_truthy(args[1]);
  if (w && a->base && a->base->readonly) rt_throw(ERR_VALUE, "cannot set WRITEABLE flag to True of this array");
  a->readonly = !w;
  return val_none();
}

/* argsort(a): stable ascending order along the last axis of a float64 array (int64 indices). */
static Val npm_argsort(Val self, int n, const Val *args, const Kw *kw) {
  want_args("argsort", n, 1, kw);
  Tensor *t = arg_tensor(args[0], "argsort");
  if (t->dtype != DT_FLOAT64 || t->rank == 0) rt_throw(ERR_TYPE, "_numpy.argsort: expected a float64 array");
  Tensor *c = tensor_contiguous(t), *r = tensor_new(DT_INT64, t->rank, t->shape);
  tfs_i64 len = t->shape[t->rank - 1], rows = len ? t->size / len : 0;
  const double *v = tensor_data(c);
  int64_t *o = tensor_data(r);
  for (tfs_i64 i = 0; i < rows; i++) np_argsort_f64(v + i * len, len, o + i * len);
  tensor_release(c);
  return nd_owned(r);
}

/* cumulate(a, product): running sums (or products) along the last axis of a float64 or int64 array. */
static Val npm_cumulate(Val self, int n, const Val *args, const Kw *kw) {
  want_args("cumulate", n, 2, kw);
  Tensor *t = arg_tensor(args[0], "cumulate");
  bool prod = rt_truthy(args[1]);
  if ((t->dtype != DT_FLOAT64 && t->dtype != DT_INT64) || t->rank == 0)
    rt_throw(ERR_TYPE, "_numpy.cumulate: expected a float64 or int64 array");
  Tensor *r = tensor_new(t->dtype, t->rank, t->shape);
  tensor_copy_into(r, t);
  tfs_i64 len = t->shape[t->rank - 1], rows = len ? t->size / len : 0;
  for (tfs_i64 i = 0; i < rows; i++) {
    if (t->dtype == DT_FLOAT64) {
      double *v = (double *)tensor_data(r) + i * len;
      for (tfs_i64 k = 1; k < len; k++) v[k] = prod ? v[k - 1] * v[k] : v[k - 1] + v[k];
    } else {
      int64_t *v = (int64_t *)tensor_data(r) + i * len;   /* numpy's int64 wraps */
      for (tfs_i64 k = 1; k < len; k++)
        v[k] = (int64_t)(prod ? (uint64_t)v[k - 1] * (uint64_t)v[k] : (uint64_t)v[k - 1] + (uint64_t)v[k]);
    }
  }
  return nd_owned(r);
}

/* printoptions(precision, threshold, linewidth, suppress): sets those not None; returns the
 * options as they were, (precision, threshold, linewidth, suppress). */
static Val npm_printoptions(Val self, int n, const Val *args, const Kw *kw) {
  want_args("printoptions", n, 4, kw);
  NpPrintOpts o = np_print_opts;
  Val was = tuple_pack(4, val_int(o.precision), val_int(o.threshold), val_int(o.linewidth), val_bool(o.suppress));
  if (args[0].tag != VT_NONE) o.precision = (int)val_to_index(args[0], "precision");
  if (args[1].tag != VT_NONE) o.threshold = val_to_index(args[1], "threshold");
  if (args[2].tag != VT_NONE) o.linewidth = (int)val_to_index(args[2], "linewidth");
  if (args[3].tag != VT_NONE) o.suppress = rt_truthy(args[3]);
  if (o.precision < 0 || o.precision > 40) {
    val_decref(was);
    rt_throw(ERR_VALUE, "precision must be a non-negative integer (tfs: at most 40)");
  }
  if (o.linewidth < 1 || o.threshold < 0) {
    val_decref(was);
    rt_throw(ERR_VALUE, "linewidth must be positive and threshold non-negative");
  }
  np_print_opts = o;
  return was;
}

/* savez(path, names, arrays, compress): np.savez / np.savez_compressed's archive of name.npy members. */
static Val npm_savez(Val self, int n, const Val *args, const Kw *kw) {
  want_args("savez", n, 4, kw);
  if (!val_is(args[0], &str_type) || !val_is(args[1], &list_type) || !val_is(args[2], &list_type))
    rt_throw(ERR_TYPE, "_numpy.savez: expected a path, a list of names and a list of arrays");
  npz_write_ex("np.savez", str_cstr(args[0]), args[1], args[2], rt_truthy(args[3]));
  return val_none();
}

/* frombuffer(buffer, dtype, count, offset): np.frombuffer's 1-D array over a bytes-like object's bytes (a copy:
 * tfs arrays own their memory), with numpy 1.24's messages. */
static Val npm_frombuffer(Val self, int n, const Val *args, const Kw *kw) {
  want_args("frombuffer", n, 4, kw);
  size_t len;
  const unsigned char *p = byteslike_data(args[0], &len);
  if (!p) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(args[0]));
  DType dt;
  if (!val_as_dtype_arg(args[1], &dt) || dt == DT_STRING) rt_throw(ERR_TYPE, "np.frombuffer: unsupported dtype");
  if (args[2].tag != VT_INT || args[3].tag != VT_INT) rt_throw(ERR_TYPE, "'float' object cannot be interpreted as an integer");
  tfs_i64 count = args[2].u.i, off = args[3].u.i, esz = dtype_info[dt].size;
  if (off < 0 || (size_t)off > len)
    rt_throw(ERR_VALUE, "offset must be non-negative and no greater than buffer length (%lld)", (long long)len);
  tfs_i64 avail = (tfs_i64)len - off;
  if (count < 0) {
    if (avail % esz) rt_throw(ERR_VALUE, "buffer size must be a multiple of element size");
    count = avail / esz;
  } else if (count * esz > avail) {
    rt_throw(ERR_VALUE, "buffer is smaller than requested size");
  }
  Tensor *t = tensor_new(dt, 1, &count);
  memcpy(tensor_data(t), p + off, (size_t)(count * esz));
  Val r = ndarray_new_0d(t);
  tensor_release(t);
  return r;
}

/* save(path, arr): np.save's .npy, version 1.0 (a text array as '<U n', UTF-32LE). */
static Val npm_save(Val self, int n, const Val *args, const Kw *kw) {
  want_args("save", n, 2, kw);
  if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_numpy.save: expected a path");
  size_t len;
  char *buf = val_is_npobj(args[1]) ? npy_format_object(args[1], &len) : npy_format_ex(arg_tensor(args[1], "save"), ndarray_uwidth(args[1]), &len);
  int mark = rt_hold_mem(buf);
  int e = af_write(str_cstr(args[0]), buf, len);
  if (e) rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "np.save: %s; %s", str_cstr(args[0]), strerror(e));
  rt_unhold(mark);
  free(buf);
  return val_none();
}

/* load(path): np.load by the file's magic: an ndarray (.npy), a dict name -> ndarray or None (.npz; None: an
 * object member), the str 'object' (an object .npy) or 'pickle' (neither: numpy would try pickle). */
static Val npm_load(Val self, int n, const Val *args, const Kw *kw) {
  want_args("load", n, 1, kw);
  if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_numpy.load: expected a path");
  const char *path = str_cstr(args[0]);
  tfs_i64 len;
  unsigned char *data = (unsigned char *)io_read_bytes(path, "np.load", &len, false);
  int mark = rt_hold_mem(data);
  Val r;
  if (len >= 4 && (!memcmp(data, "PK\x03\x04", 4) || !memcmp(data, "PK\x05\x06", 4))) {
    r = npz_parse(data, len, path, true);
  } else if (len >= 6 && !memcmp(data, "\x93NUMPY", 6)) {
    int uw = 0;
    Tensor *t = npy_parse_ex(data, len, path, &uw);
    if (!t) r = str_from_cstr("object");
    else {
      r = uw ? ndarray_new_unicode(t, uw, true) : ndarray_new_0d(t);
      tensor_release(t);
    }
  } else {
    r = str_from_cstr("pickle");
  }
  rt_unhold(mark);
  free(data);
  return r;
}

/* unpickle(path or member bytes, name, encoding): np.load(allow_pickle=True) of an object .npy (or .npz member: its
 * bytes) or of a plain pickle, Python 2 str read as encoding says; an object array comes back as its nested lists. */
static Val npm_unpickle(Val self, int n, const Val *args, const Kw *kw) {
  want_args("unpickle", n, 3, kw);
  if (!val_is(args[1], &str_type) || !val_is(args[2], &str_type)) rt_throw(ERR_TYPE, "_numpy.unpickle: expected a name and an encoding");
  const char *enc = str_cstr(args[2]);
  PklPy2Str py2 = !strcmp(enc, "bytes") ? PKL_PY2_BYTES : !strcmp(enc, "latin1") ? PKL_PY2_LATIN1 : PKL_PY2_ASCII;
  const char *where = str_cstr(args[1]);
  size_t bn;
  const unsigned char *b = byteslike_data(args[0], &bn);
  unsigned char *data = NULL;
  tfs_i64 len = (tfs_i64)bn;
  if (!b) {
    if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_numpy.unpickle: expected a path or bytes");
    data = (unsigned char *)io_read_bytes(str_cstr(args[0]), "np.load", &len, false);
    b = data;
  }
  int mark = data ? rt_hold_mem(data) : -1;
  Val r = len >= 6 && !memcmp(b, "\x93NUMPY", 6) ? npy_load_object(b, len, where, py2) : pkl_load(b, len, where, py2, NULL);
  if (mark >= 0) {
    rt_unhold(mark);
    free(data);
  }
  return r;
}

/* ---- the legacy RandomState stream: MT19937 state objects (np.random.RandomState, and np.random's own) ---- */

typedef struct MtObj { Obj hdr; MtState s; bool ready; } MtObj;
static void mtobj_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "MT19937()"); }
static const Type mtobj_type = {.name = "numpy.random.MT19937", .free = (void (*)(Obj *))free, .repr = mtobj_repr};
/* the global stream of np.random.seed/rand/...: one RandomState like the others, never freed */
static MtObj np_mt = {{TFS_IMMORTAL_RC, &mtobj_type}, {{0}, 0, false, 0}, false};

/* numpy seeds an unseeded stream from the OS; any seed will do */
static void mt_seed_clock(MtObj *o) {
  mt_seed(&o->s, (uint32_t)time(NULL) ^ (uint32_t)clock() ^ (uint32_t)(uintptr_t)o);
  o->ready = true;
}

MtState *npm_mt_state(Val v) {
  if (!val_is(v, &mtobj_type)) rt_throw(ERR_TYPE, "_numpy: expected an MT19937 state, not '%s'", val_type_name(v));
  MtObj *o = (MtObj *)v.u.o;
  if (!o->ready) mt_seed_clock(o);
  return &o->s;
}

/* RandomState.seed(seed): an int in [0, 2**32 - 1] (numpy's legacy seeding), None from the clock. */
static void mt_reseed(MtObj *o, Val seed) {
  if (seed.tag == VT_NONE) {
    mt_seed_clock(o);
    return;
  }
  if (seed.tag != VT_INT) rt_throw(ERR_TYPE, "Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'");
  if (seed.u.i < 0 || seed.u.i > 0xffffffffLL) rt_throw(ERR_VALUE, "Seed must be between 0 and 2**32 - 1");
  mt_seed(&o->s, (uint32_t)seed.u.i);
  o->ready = true;
}

/* mt_global(): the state of np.random's own stream. */
static Val npm_mt_global(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_global", n, 0, kw);
  return val_obj(&np_mt);
}

/* mt_new(seed): a new RandomState's state. */
static Val npm_mt_new(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_new", n, 1, kw);
  MtObj *o = obj_new(&mtobj_type, sizeof(MtObj));
  o->ready = false;
  Val r = val_obj(o);
  int mark = rt_hold_val(r);
  mt_reseed(o, args[0]);
  rt_unhold(mark);
  return r;
}

/* mt_seed(state, seed) */
static Val npm_seed(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_seed", n, 2, kw);
  npm_mt_state(args[0]);
  mt_reseed((MtObj *)args[0].u.o, args[1]);
  return val_none();
}

/* mt_get_state(state): ('MT19937', key as uint32[624], pos, has_gauss, cached_gaussian), as RandomState.get_state. */
static Val npm_mt_get_state(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_get_state", n, 1, kw);
  MtState *s = npm_mt_state(args[0]);
  tfs_i64 len = 624;
  Tensor *key = tensor_new(DT_UINT32, 1, &len);
  memcpy(tensor_data(key), s->key, sizeof s->key);
  Val t = tuple_new(5);
  Val *it = ((Tuple *)t.u.o)->items;
  it[0] = str_from_cstr("MT19937");
  it[1] = nd_owned(key);
  it[2] = val_int(s->pos);
  it[3] = val_int(s->has_gauss);
  it[4] = val_float(s->has_gauss ? s->gauss : 0.0);
  return t;
}

/* mt_set_state(state, key, pos, has_gauss, cached_gaussian): RandomState.set_state's parts, checked by the caller. */
static Val npm_mt_set_state(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_set_state", n, 5, kw);
  MtState *s = npm_mt_state(args[0]);
  Tensor *key = tensor_contiguous(arg_tensor(args[1], "mt_set_state"));
  if (key->size != 624 || key->dtype != DT_UINT32) {
    tensor_release(key);
    rt_throw(ERR_VALUE, "state must be 624 elements");
  }
  memcpy(s->key, tensor_data(key), sizeof s->key);
  tensor_release(key);
  tfs_i64 pos = val_to_index(args[2], "mt_set_state");
  s->pos = pos < 0 || pos > 624 ? 624 : (int)pos;
  s->has_gauss = rt_truthy(args[3]);
  s->gauss = args[4].tag == VT_FLOAT ? args[4].u.f : args[4].tag == VT_INT ? (double)args[4].u.i : 0.0;
  return val_none();
}

static Tensor *count_tensor(DType dt, Val nv, const char *what) {
  tfs_i64 cnt = val_to_index(nv, what);
  if (cnt < 0) rt_throw(ERR_VALUE, "negative dimensions are not allowed");
  return tensor_new(dt, 1, &cnt);
}

/* The draws of both streams, n at a time, into a new float64 or int64 array. */
enum { D_MT_DOUBLE, D_MT_GAUSS, D_MT_INTERVAL, D_PCG_DOUBLE, D_PCG_BOUNDED, D_PCG_NORMAL };

static Val draws(Val nv, int kind, void *st, uint64_t arg) {
  bool f = kind == D_MT_DOUBLE || kind == D_MT_GAUSS || kind == D_PCG_DOUBLE || kind == D_PCG_NORMAL;
  Tensor *r = count_tensor(f ? DT_FLOAT64 : DT_INT64, nv, "draws");
  double *od = tensor_data(r);
  int64_t *oi = tensor_data(r);
  for (tfs_i64 i = 0; i < r->size; i++) {
    switch (kind) {
      case D_MT_DOUBLE: od[i] = mt_double(st); break;
      case D_MT_GAUSS: od[i] = mt_gauss(st); break;
      case D_MT_INTERVAL: oi[i] = (int64_t)mt_interval(st, arg); break;
      case D_PCG_DOUBLE: od[i] = pcg_double(st); break;
      case D_PCG_NORMAL: od[i] = pcg_standard_normal(st); break;
      default: oi[i] = (int64_t)pcg_bounded(st, arg); break;
    }
  }
  return nd_owned(r);
}

/* The swaps numpy's shuffles make (i from n-1 down to 1 swaps with a draw in [0, i]), as a permutation of range(n). */
static uint64_t iv_mt(void *s, uint64_t max) { return mt_interval(s, max); }
static uint64_t iv_pcg(void *s, uint64_t max) { return pcg_interval(s, max); }

static Val shuffle_order(Val nv, uint64_t (*interval)(void *, uint64_t), void *st) {
  Tensor *r = count_tensor(DT_INT64, nv, "shuffle_order");
  int64_t *o = tensor_data(r);
  for (tfs_i64 i = 0; i < r->size; i++) o[i] = i;
  for (tfs_i64 i = r->size - 1; i > 0; i--) {
    tfs_i64 j = (tfs_i64)interval(st, (uint64_t)i), t = o[i];
    o[i] = o[j];
    o[j] = t;
  }
  return nd_owned(r);
}

/* mt_draw(state, n, gauss): n doubles of random_sample, or of the polar gauss. */
static Val npm_draw(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_draw", n, 3, kw);
  return draws(args[1], rt_truthy(args[2]) ? D_MT_GAUSS : D_MT_DOUBLE, npm_mt_state(args[0]), 0);
}

/* mt_interval(state, n, max): n int64 values uniform in [0, max] (numpy's masked rejection). */
static Val npm_interval(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_interval", n, 3, kw);
  return draws(args[1], D_MT_INTERVAL, npm_mt_state(args[0]), (uint64_t)val_to_index(args[2], "mt_interval"));
}

/* mt_shuffle_order(state, n): the legacy shuffle's order. */
static Val npm_shuffle_order(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_shuffle_order", n, 2, kw);
  return shuffle_order(args[1], iv_mt, npm_mt_state(args[0]));
}

/* ---- the Generator stream (default_rng): PCG64 state objects ---- */

typedef struct PcgObj { Obj hdr; PcgState s; } PcgObj;
static void pcgobj_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "PCG64()"); }
static const Type pcgobj_type = {.name = "numpy.random.PCG64", .free = (void (*)(Obj *))free, .repr = pcgobj_repr};

static PcgState *pcg_arg(Val v) {
  if (!val_is(v, &pcgobj_type)) rt_throw(ERR_TYPE, "_numpy: expected a PCG64 state, not '%s'", val_type_name(v));
  return &((PcgObj *)v.u.o)->s;
}

/* pcg_new(seed): SeedSequence(seed) -> PCG64; None seeds from the clock (numpy: from the OS). */
static Val npm_pcg_new(Val self, int n, const Val *args, const Kw *kw) {
  want_args("pcg_new", n, 1, kw);
  uint64_t seed;
  if (args[0].tag == VT_NONE) seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)clock();
  else if (args[0].tag == VT_INT && args[0].u.i >= 0) seed = (uint64_t)args[0].u.i;
  else if (args[0].tag == VT_INT) rt_throw(ERR_VALUE, "expected non-negative integer");
  else rt_throw(ERR_TYPE, "SeedSequence expects int or sequence of ints for entropy not %s", val_type_name(args[0]));
  uint32_t words[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  PcgObj *o = obj_new(&pcgobj_type, sizeof(PcgObj));
  pcg_seed_sequence(&o->s, words, seed >> 32 ? 2 : 1);
  return val_obj(o);
}

/* pcg_draw(state, n): n doubles in [0, 1). */
static Val npm_pcg_draw(Val self, int n, const Val *args, const Kw *kw) {
  want_args("pcg_draw", n, 2, kw);
  return draws(args[1], D_PCG_DOUBLE, pcg_arg(args[0]), 0);
}

/* pcg_normal(state, n): n standard normal doubles (Generator.standard_normal's ziggurat). */
static Val npm_pcg_normal(Val self, int n, const Val *args, const Kw *kw) {
  want_args("pcg_normal", n, 2, kw);
  return draws(args[1], D_PCG_NORMAL, pcg_arg(args[0]), 0);
}

/* pcg_bounded(state, n, rng): n int64 values uniform in [0, rng] (Generator.integers). */
static Val npm_pcg_bounded(Val self, int n, const Val *args, const Kw *kw) {
  want_args("pcg_bounded", n, 3, kw);
  return draws(args[1], D_PCG_BOUNDED, pcg_arg(args[0]), (uint64_t)val_to_index(args[2], "pcg_bounded"));
}

/* pcg_shuffle_order(state, n): Generator.shuffle's order. */
static Val npm_pcg_shuffle_order(Val self, int n, const Val *args, const Kw *kw) {
  want_args("pcg_shuffle_order", n, 2, kw);
  return shuffle_order(args[1], iv_pcg, pcg_arg(args[0]));
}

#define NPM(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_numpy." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin npm_fns[] = {
  NPM("set_methods", npm_set_methods), NPM("dtype", npm_dtype), NPM("result_dtype", npm_result_dtype), NPM("is_ndarray", npm_is_ndarray), NPM("warn", npm_warn), NPM("wrap", npm_wrap), NPM("array0", npm_array0), NPM("scalar_type", npm_scalar_type),
  NPM("text", npm_text), NPM("uwidth", npm_uwidth), NPM("set_str_type", npm_set_str_type), NPM("udtype", npm_udtype),
  NPM("put", npm_put), NPM("reshape_view", npm_reshape_view), NPM("transpose_view", npm_transpose_view), NPM("copy", npm_copy),
  NPM("shares_memory", npm_shares_memory), NPM("flags", npm_flags), NPM("set_writeable", npm_set_writeable), NPM("argsort", npm_argsort), NPM("cumulate", npm_cumulate), NPM("mt_seed", npm_seed),
  NPM("savez", npm_savez), NPM("frombuffer", npm_frombuffer), NPM("save", npm_save), NPM("load", npm_load), NPM("unpickle", npm_unpickle), NPM("printoptions", npm_printoptions), NPM("mt_draw", npm_draw), NPM("pcg_new", npm_pcg_new), NPM("pcg_draw", npm_pcg_draw), NPM("pcg_normal", npm_pcg_normal),
  NPM("pcg_bounded", npm_pcg_bounded), NPM("pcg_shuffle_order", npm_pcg_shuffle_order), NPM("mt_interval", npm_interval), NPM("mt_shuffle_order", npm_shuffle_order),
  NPM("set_obj_methods", npm_set_obj_methods), NPM("objarray", npm_objarray), NPM("obj_nested", npm_obj_nested), NPM("obj_items", npm_obj_items),
  NPM("obj_layout", npm_obj_layout), NPM("obj_view", npm_obj_view),
  NPM("is_obj", npm_is_obj), NPM("objdtype", npm_objdtype),
  NPM("mt_global", npm_mt_global), NPM("mt_new", npm_mt_new), NPM("mt_get_state", npm_mt_get_state), NPM("mt_set_state", npm_mt_set_state),
};

static Val npm_attr(const char *name) {
  for (size_t i = 0; i < sizeof npm_fns / sizeof npm_fns[0]; i++)
    if (!strcmp(npm_fns[i].name + 7, name)) return val_obj(&npm_fns[i]);
  return npm_mt_attr(name);
}

Val numpy_native_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_numpy", npm_attr);
  return val_incref(mod);
}
