/* npmtdist.c — `_numpy`'s legacy RandomState draws beyond uniform/gauss: distributions, bounded integers of each width,
 * multinomial, dirichlet, seeding from a list of words. numpy.tfs validates and broadcasts; these loop in C order. */
#include <cblas.h>
#include <string.h>

#include "kernels/ops.h"

#include "kernels/nprandom.h"
#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"

static void want(const char *what, int n, int k, const Kw *kw) {
  if (n != k || (kw && kw->n)) rt_throw(ERR_TYPE, "_numpy.%s() takes %d positional arguments", what, k);
}

/* a float64 / int64 parameter array, packed: owned, released by the caller */
static Tensor *param(Val v, DType dt, const char *what) {
  Tensor *t = val_as_tensor(v);
  if (!t || t->sym || t->dtype != dt) rt_throw(ERR_TYPE, "_numpy.%s: expected a %s array", what, dtype_short_name(dt));
  return tensor_contiguous(t);
}

static Val owned_nd(Tensor *t) {
  Val a = ndarray_new(t);
  tensor_release(t);
  return a;
}

static Tensor *out_vector(DType dt, Val nv) {
  tfs_i64 n = val_to_index(nv, "draws");
  if (n < 0) rt_throw(ERR_VALUE, "negative dimensions are not allowed");
  return tensor_new(dt, 1, &n);
}

static void release_tensor(void *t) { tensor_release(t); }

/* param, held until rt_unhold: an error meanwhile releases it */
static Tensor *held_param(Val v, DType dt, const char *what) {
  Tensor *t = param(v, dt, what);
  rt_hold_fn(release_tensor, t);
  return t;
}

/* mt_dist(state, kind, n, a, b, c): n draws of a legacy distribution; each parameter a float64 array of 1 or n values
 * (None: unused) */
static Val npm_mt_dist(Val self, int n, const Val *args, const Kw *kw) {
  want("mt_dist", n, 6, kw);
  MtState *s = npm_mt_state(args[0]);
  int kind = (int)val_to_index(args[1], "mt_dist");
  tfs_i64 cnt = val_to_index(args[2], "mt_dist");
  if (cnt < 0) rt_throw(ERR_VALUE, "negative dimensions are not allowed");
  Tensor *p[3] = {NULL, NULL, NULL};
  const double *pd[3] = {NULL, NULL, NULL};
  int mark = rt_hold_val(val_none());
  for (int i = 0; i < 3; i++) {
    if (args[3 + i].tag == VT_NONE) continue;
    p[i] = held_param(args[3 + i], DT_FLOAT64, "mt_dist");
    pd[i] = tensor_data(p[i]);
    if (p[i]->size != 1 && p[i]->size != cnt)
      rt_throw(ERR_VALUE, "_numpy.mt_dist: a parameter of %lld values for %lld draws", (long long)p[i]->size,
               (long long)cnt);
  }
  Tensor *r = tensor_new(kind >= MTD_FIRST_INT ? DT_INT64 : DT_FLOAT64, 1, &cnt);
  double *od = tensor_data(r);
  int64_t *oi = tensor_data(r);
  for (tfs_i64 k = 0; k < cnt; k++) {
    double v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
      if (pd[i]) v[i] = pd[i][p[i]->size == 1 ? 0 : k];
    int64_t iv = 0;
    double d = mt_legacy_draw(s, kind, v[0], v[1], v[2], &iv);
    if (kind >= MTD_FIRST_INT) oi[k] = iv;
    else od[k] = d;
  }
  rt_unhold(mark);
  for (int i = 0; i < 3; i++)
    if (p[i]) tensor_release(p[i]);
  return owned_nd(r);
}

/* numpy's buffered draws of 8 and 16 bits, and of single bits for bool: a 32-bit draw is used up low part first */
typedef struct Buf { uint32_t word; int left; } Buf;

static uint64_t buffered(MtState *s, Buf *b, int bits) {
  if (!b->left) {
    b->word = mt_next32(s);
    b->left = 32 / bits - 1;
  } else {
    b->word >>= bits;
    b->left--;
  }
  return b->word & (bits == 8 ? 0xffu : bits == 16 ? 0xffffu : 1u);
}

static uint64_t bounded(MtState *s, uint64_t rng, int bits, Buf *b) {
  if (rng == 0) return 0;
  if (bits == 1) return buffered(s, b, 1);
  if (bits > 16) return mt_interval(s, rng);
  uint64_t mask = rng, v;
  for (int sh = 1; sh < 64; sh <<= 1) mask |= mask >> sh;
  while ((v = buffered(s, b, bits) & mask) > rng) {
  }
  return v;
}

/* mt_bounded(state, n, rng, bits): n draws in [0, rng] (rng: int64 array of 1 or n values, read as unsigned) as
 * randint makes them for a dtype of that many bits (1: bool), one 32-bit buffer shared by all the draws as numpy's */
static Val npm_mt_bounded(Val self, int n, const Val *args, const Kw *kw) {
  want("mt_bounded", n, 4, kw);
  MtState *s = npm_mt_state(args[0]);
  Tensor *rt = param(args[2], DT_INT64, "mt_bounded");
  int mark = rt_hold_fn(release_tensor, rt);
  Tensor *r = out_vector(DT_INT64, args[1]);
  rt_unhold(mark);
  int bits = (int)val_to_index(args[3], "mt_bounded");
  const int64_t *rg = tensor_data(rt);
  int64_t *o = tensor_data(r);
  Buf b = {0, 0};
  for (tfs_i64 k = 0; k < r->size; k++) {
    o[k] = (int64_t)bounded(s, (uint64_t)rg[rt->size == 1 ? 0 : k], bits, &b);
  }
  tensor_release(rt);
  return owned_nd(r);
}

/* mt_multinomial(state, n, pvals, count): count draws of the legacy multinomial, count * len(pvals) int64 values */
static Val npm_mt_multinomial(Val self, int n, const Val *args, const Kw *kw) {
  want("mt_multinomial", n, 4, kw);
  MtState *s = npm_mt_state(args[0]);
  int64_t trials = val_to_index(args[1], "mt_multinomial");
  Tensor *pv = param(args[2], DT_FLOAT64, "mt_multinomial");
  int mark = rt_hold_fn(release_tensor, pv);
  tfs_i64 cnt = val_to_index(args[3], "mt_multinomial") * pv->size;
  Tensor *r = tensor_new(DT_INT64, 1, &cnt);
  rt_unhold(mark);
  for (tfs_i64 k = 0; k < cnt; k += pv->size)
    mt_multinomial(s, trials, (int64_t *)tensor_data(r) + k, tensor_data(pv), pv->size);
  tensor_release(pv);
  return owned_nd(r);
}

/* mt_dirichlet(state, alpha, count): count draws, each standard gammas normalised by their sum */
static Val npm_mt_dirichlet(Val self, int n, const Val *args, const Kw *kw) {
  want("mt_dirichlet", n, 3, kw);
  MtState *s = npm_mt_state(args[0]);
  Tensor *al = param(args[1], DT_FLOAT64, "mt_dirichlet");
  int mark = rt_hold_fn(release_tensor, al);
  tfs_i64 k = al->size, cnt = val_to_index(args[2], "mt_dirichlet") * k;
  Tensor *r = tensor_new(DT_FLOAT64, 1, &cnt);
  rt_unhold(mark);
  const double *a = tensor_data(al);
  double *o = tensor_data(r);
  for (tfs_i64 i = 0; i < cnt; i += k) {
    double acc = 0.0;
    for (tfs_i64 j = 0; j < k; j++) {
      o[i + j] = mt_std_gamma(s, a[j]);
      acc += o[i + j];
    }
    double inv = 1.0 / acc;
    for (tfs_i64 j = 0; j < k; j++) o[i + j] *= inv;
  }
  tensor_release(al);
  return owned_nd(r);
}

/* mt_seed_words(state, key): numpy's seeding from an array of uint32 words (init_by_array) */
static Val npm_mt_seed_words(Val self, int n, const Val *args, const Kw *kw) {
  want("mt_seed_words", n, 2, kw);
  MtState *s = npm_mt_state(args[0]);
  Tensor *key = param(args[1], DT_UINT32, "mt_seed_words");
  if (key->size < 1 || key->size > 0x7fffffff) {
    tensor_release(key);
    rt_throw(ERR_VALUE, "Seed must be non-empty");
  }
  mt_seed_array(s, tensor_data(key), (int)key->size);
  tensor_release(key);
  return val_none();
}

/* blas_dot(x, b): float64 x [m, k] times b [k, n] through OpenBLAS as numpy's np.dot picks it (cblasfuncs.c): a 1-row
 * x by gemv on b transposed, a 1x1 b as a product per element, gemm otherwise; multivariate_normal's last step, so
 * its values are numpy's on every ISA path */
static Val npm_blas_dot(Val self, int n, const Val *args, const Kw *kw) {
  want("blas_dot", n, 2, kw);
  int mark = rt_hold_val(val_none());
  Tensor *x = held_param(args[0], DT_FLOAT64, "blas_dot");
  Tensor *b = held_param(args[1], DT_FLOAT64, "blas_dot");
  if (x->rank != 2 || b->rank != 2 || x->shape[1] != b->shape[0]) rt_throw(ERR_VALUE, "_numpy.blas_dot: shapes differ");
  tfs_i64 m = x->shape[0], k = x->shape[1], nn = b->shape[1], dims[2] = {m, nn};
  Tensor *r = tensor_new(DT_FLOAT64, 2, dims);
  const double *xd = tensor_data(x), *bd = tensor_data(b);
  double *o = tensor_data(r);
  blas_ready();
  if (k == 1 && nn == 1)
    for (tfs_i64 i = 0; i < m; i++) o[i] = xd[i] * bd[0];
  else if (m == 1)
    cblas_dgemv(CblasRowMajor, CblasTrans, (blasint)k, (blasint)nn, 1.0, bd, (blasint)nn, xd, 1, 0.0, o, 1);
  else if (m * nn * k > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)nn, (blasint)k, 1.0, xd, (blasint)k, bd,
                (blasint)nn, 0.0, o, (blasint)nn);
  rt_unhold(mark);
  tensor_release(x);
  tensor_release(b);
  return owned_nd(r);
}

#define NPT(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_numpy." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin npt_fns[] = {
  NPT("mt_dist", npm_mt_dist), NPT("mt_bounded", npm_mt_bounded), NPT("mt_multinomial", npm_mt_multinomial),
  NPT("mt_dirichlet", npm_mt_dirichlet), NPT("mt_seed_words", npm_mt_seed_words), NPT("blas_dot", npm_blas_dot),
};

Val npm_mt_attr(const char *name) {
  for (size_t i = 0; i < sizeof npt_fns / sizeof npt_fns[0]; i++)
    if (!strcmp(npt_fns[i].name + 7, name)) return val_obj(&npt_fns[i]);
  return val_undef();
}
