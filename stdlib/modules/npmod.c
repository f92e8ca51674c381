/* npmod.c — `_numpy`: the native helpers of stdlib/numpy.tfs (dtype objects, in-place stores, sorting, the legacy MT19937 stream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/nprandom.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"

static MtState np_mt;
static bool np_mt_ready;

static MtState *mt(void) {
  if (!np_mt_ready) {   /* unseeded: numpy seeds from the OS; any seed will do */
    mt_seed(&np_mt, (uint32_t)time(NULL) ^ (uint32_t)clock());
    np_mt_ready = true;
  }
  return &np_mt;
}

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

static Val npm_is_ndarray(Val self, int n, const Val *args, const Kw *kw) {
  want_args("is_ndarray", n, 1, kw);
  return val_bool(val_is(args[0], &ndarray_type));
}

/* put(a, positions, values): a.flat[positions[i]] = values[i], in place (a gets a private buffer first). */
static Val npm_put(Val self, int n, const Val *args, const Kw *kw) {
  want_args("put", n, 3, kw);
  if (!val_is(args[0], &ndarray_type)) rt_throw(ERR_TYPE, "_numpy.put: expected an ndarray");
  NdArray *a = (NdArray *)args[0].u.o;
  Tensor *pos = arg_tensor(args[1], "put"), *vals = arg_tensor(args[2], "put");
  if (pos->dtype != DT_INT64 || vals->dtype != a->t->dtype || pos->size != vals->size)
    rt_throw(ERR_TYPE, "_numpy.put: positions must be int64 and values of the array's dtype and count");
  if (a->t->buf->rc > 1 || !tensor_is_contiguous(a->t) || a->t->offset) {
    Tensor *c = tensor_new(a->t->dtype, a->t->rank, a->t->shape);
    tensor_copy_into(c, a->t);
    tensor_release(a->t);
    a->t = c;
  }
  Tensor *pc = tensor_contiguous(pos), *vc = tensor_contiguous(vals);
  const int64_t *p = tensor_data(pc);
  size_t es = (size_t)dtype_info[a->t->dtype].size;
  char *dst = tensor_data(a->t);
  const char *src = tensor_data(vc);
  for (tfs_i64 i = 0; i < pc->size; i++) {
    if (p[i] < 0 || p[i] >= a->t->size) continue;
    if (dtype_holds_refs(a->t->dtype)) {
      Obj **d = (Obj **)(dst + (size_t)p[i] * es), *o = ((Obj *const *)src)[i];
      if (o) TFS_INCREF(val_obj(o));
      if (*d) TFS_DECREF(val_obj(*d));
      *d = o;
    } else {
      memcpy(dst + (size_t)p[i] * es, src + (size_t)i * es, es);
    }
  }
  tensor_release(pc);
  tensor_release(vc);
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

/* savez(path, names, arrays, compress): np.savez / np.savez_compressed's archive of name.npy members. */
static Val npm_savez(Val self, int n, const Val *args, const Kw *kw) {
  want_args("savez", n, 4, kw);
  if (!val_is(args[0], &str_type) || !val_is(args[1], &list_type) || !val_is(args[2], &list_type))
    rt_throw(ERR_TYPE, "_numpy.savez: expected a path, a list of names and a list of arrays");
  npz_write_ex("np.savez", str_cstr(args[0]), args[1], args[2], rt_truthy(args[3]));
  return val_none();
}

/* ---- the legacy RandomState stream ---- */

static Val npm_seed(Val self, int n, const Val *args, const Kw *kw) {
  want_args("seed", n, 1, kw);
  if (args[0].tag != VT_INT) rt_throw(ERR_TYPE, "Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'");
  if (args[0].u.i < 0 || args[0].u.i > 0xffffffffLL) rt_throw(ERR_VALUE, "Seed must be between 0 and 2**32 - 1");
  mt_seed(&np_mt, (uint32_t)args[0].u.i);
  np_mt_ready = true;
  return val_none();
}

static Tensor *count_tensor(DType dt, Val nv, const char *what) {
  tfs_i64 cnt = val_to_index(nv, what);
  if (cnt < 0) rt_throw(ERR_VALUE, "negative dimensions are not allowed");
  return tensor_new(dt, 1, &cnt);
}

/* mt_draw(n, kind): n doubles of random_sample (kind 0) or gauss (kind 1). */
static Val npm_draw(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_draw", n, 2, kw);
  Tensor *r = count_tensor(DT_FLOAT64, args[0], "mt_draw");
  double *o = tensor_data(r);
  bool g = rt_truthy(args[1]);
  MtState *s = mt();
  for (tfs_i64 i = 0; i < r->size; i++) o[i] = g ? mt_gauss(s) : mt_double(s);
  return nd_owned(r);
}

/* mt_interval(n, max): n int64 values uniform in [0, max] (numpy's masked rejection). */
static Val npm_interval(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_interval", n, 2, kw);
  Tensor *r = count_tensor(DT_INT64, args[0], "mt_interval");
  int64_t *o = tensor_data(r);
  uint64_t mx = (uint64_t)val_to_index(args[1], "mt_interval");
  MtState *s = mt();
  for (tfs_i64 i = 0; i < r->size; i++) o[i] = (int64_t)mt_interval(s, mx);
  return nd_owned(r);
}

/* mt_shuffle_order(n): the swaps numpy's legacy shuffle makes, as a permutation of range(n). */
static Val npm_shuffle_order(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_shuffle_order", n, 1, kw);
  Tensor *r = count_tensor(DT_INT64, args[0], "mt_shuffle_order");
  int64_t *o = tensor_data(r);
  MtState *s = mt();
  for (tfs_i64 i = 0; i < r->size; i++) o[i] = i;
  for (tfs_i64 i = r->size - 1; i > 0; i--) {
    tfs_i64 j = (tfs_i64)mt_interval(s, (uint64_t)i), t = o[i];
    o[i] = o[j];
    o[j] = t;
  }
  return nd_owned(r);
}

#define NPM(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_numpy." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin npm_fns[] = {
  NPM("set_methods", npm_set_methods), NPM("dtype", npm_dtype), NPM("is_ndarray", npm_is_ndarray),
  NPM("put", npm_put), NPM("argsort", npm_argsort), NPM("cumulate", npm_cumulate), NPM("seed", npm_seed),
  NPM("savez", npm_savez), NPM("mt_draw", npm_draw), NPM("mt_interval", npm_interval), NPM("mt_shuffle_order", npm_shuffle_order),
};

static Val npm_attr(const char *name) {
  for (size_t i = 0; i < sizeof npm_fns / sizeof npm_fns[0]; i++)
    if (!strcmp(npm_fns[i].name + 7, name)) return val_obj(&npm_fns[i]);
  return val_undef();
}

Val numpy_native_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_numpy", npm_attr);
  return val_incref(mod);
}
