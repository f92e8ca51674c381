/* npmod.c — `_numpy`: the native helpers of stdlib/numpy.tfs (dtype objects, in-place stores, sorting, .npz writing, the legacy MT19937 and PCG64 streams). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/nprandom.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "tensor/tprint.h"

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

/* ---- numpy's scalar types as classes: np.float32(1.5), isinstance(x, np.floating), type(x) ---- */

#define NP_CTOR(dt) static Val ctor_##dt(Val self, int n, const Val *args, const Kw *kw) { (void)self; return npscalar_new(dt, n, args, kw); }
NP_CTOR(DT_FLOAT32) NP_CTOR(DT_FLOAT64) NP_CTOR(DT_INT32) NP_CTOR(DT_INT64) NP_CTOR(DT_BOOL) NP_CTOR(DT_UINT8)
NP_CTOR(DT_INT8) NP_CTOR(DT_INT16) NP_CTOR(DT_UINT16) NP_CTOR(DT_UINT32) NP_CTOR(DT_UINT64) NP_CTOR(DT_FLOAT16)

enum { NPA_GENERIC, NPA_NUMBER, NPA_INTEGER, NPA_SIGNED, NPA_UNSIGNED, NPA_INEXACT, NPA_FLOATING, NPA__COUNT };
static const char *const npa_names[NPA__COUNT] = {"generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating"};
static const int npa_base[NPA__COUNT] = {-1, NPA_GENERIC, NPA_NUMBER, NPA_INTEGER, NPA_INTEGER, NPA_NUMBER, NPA_INEXACT};
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
  };
  TypeObj *o = (TypeObj *)typeobj_for(&npscalar_types[dt]).u.o;
  if (!o->ctor) {
    o->ctor = ctors[dt];
    bool uns = dt == DT_UINT8 || dt == DT_UINT16 || dt == DT_UINT32 || dt == DT_UINT64;
    o->base = npa_class(dt == DT_BOOL ? NPA_GENERIC : dtype_info[dt].is_float ? NPA_FLOATING : uns ? NPA_UNSIGNED : NPA_SIGNED);
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

/* put(a, positions, values): a.flat[positions[i]] = values[i], in place (a gets a private buffer first). */
static Val npm_put(Val self, int n, const Val *args, const Kw *kw) {
  want_args("put", n, 3, kw);
  if (!val_is_ndarray(args[0])) rt_throw(ERR_TYPE, "_numpy.put: expected an ndarray");
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

/* mt_draw(n, gauss): n doubles of random_sample, or of the polar gauss. */
static Val npm_draw(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_draw", n, 2, kw);
  return draws(args[0], rt_truthy(args[1]) ? D_MT_GAUSS : D_MT_DOUBLE, mt(), 0);
}

/* mt_interval(n, max): n int64 values uniform in [0, max] (numpy's masked rejection). */
static Val npm_interval(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_interval", n, 2, kw);
  return draws(args[0], D_MT_INTERVAL, mt(), (uint64_t)val_to_index(args[1], "mt_interval"));
}

/* mt_shuffle_order(n): the legacy shuffle's order. */
static Val npm_shuffle_order(Val self, int n, const Val *args, const Kw *kw) {
  want_args("mt_shuffle_order", n, 1, kw);
  return shuffle_order(args[0], iv_mt, mt());
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
  NPM("set_methods", npm_set_methods), NPM("dtype", npm_dtype), NPM("is_ndarray", npm_is_ndarray), NPM("wrap", npm_wrap), NPM("array0", npm_array0), NPM("scalar_type", npm_scalar_type),
  NPM("put", npm_put), NPM("argsort", npm_argsort), NPM("cumulate", npm_cumulate), NPM("seed", npm_seed),
  NPM("savez", npm_savez), NPM("printoptions", npm_printoptions), NPM("mt_draw", npm_draw), NPM("pcg_new", npm_pcg_new), NPM("pcg_draw", npm_pcg_draw), NPM("pcg_normal", npm_pcg_normal),
  NPM("pcg_bounded", npm_pcg_bounded), NPM("pcg_shuffle_order", npm_pcg_shuffle_order), NPM("mt_interval", npm_interval), NPM("mt_shuffle_order", npm_shuffle_order),
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
