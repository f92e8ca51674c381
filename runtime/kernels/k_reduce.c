/* k_reduce.c — reductions (sum, mean, max, min, prod, any, all, logsumexp), argmax/argmin, softmax family, cross-entropy, norm. */
#pragma GCC optimize("O3")

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"

/* ---- plans: reduce over the middle of a contiguous [O, R, I] ---------------------------
 * Size-1 dims are dropped; when the reduced dims are not one block, the input is
 * permuted (copied) so that they come last. */

typedef struct RPlan {
  tfs_i64 O, R, I;
  Tensor *x;                  /* owned, contiguous */
} RPlan;

static void rplan(Tensor *in, const bool *red, RPlan *p) {
  int nd = 0, first = -1, last = -1;
  tfs_i64 dims[TFS_MAX_RANK];
  bool fl[TFS_MAX_RANK];
  int src[TFS_MAX_RANK];
  for (int d = 0; d < in->rank; d++) {
    if (in->shape[d] == 1) continue;
    dims[nd] = in->shape[d];
    fl[nd] = red[d];
    src[nd] = d;
    if (red[d]) {
      if (first < 0) first = nd;
      last = nd;
    }
    nd++;
  }
  bool block = true;
  for (int k = first; first >= 0 && k <= last; k++) block &= fl[k];
  p->O = p->R = p->I = 1;
  if (first < 0) {
    for (int k = 0; k < nd; k++) p->O *= dims[k];
    p->x = tensor_contiguous(in);
    return;
  }
  if (block) {
    for (int k = 0; k < nd; k++) *(k < first ? &p->O : k <= last ? &p->R : &p->I) *= dims[k];
    p->x = tensor_contiguous(in);
    return;
  }
  tfs_i64 shape[TFS_MAX_RANK], strides[TFS_MAX_RANK];
  int m = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < nd; k++)
      if (fl[k] == (pass == 1)) {
        shape[m] = dims[k];
        strides[m] = in->strides[src[k]];
        *(pass ? &p->R : &p->O) *= dims[k];
        m++;
      }
  Tensor *v = tensor_view(in, m, shape, strides, in->offset);
  p->x = tensor_copy(v);
  tensor_release(v);
}

/* numpy's pairwise summation (so float sums round as numpy's do). */
#define PAIRWISE(name, T)                                                            \
  static T name(const T *a, tfs_i64 n, tfs_i64 s) {                                  \
    if (n < 8) {                                                                     \
      T r = 0;                                                                       \
      for (tfs_i64 i = 0; i < n; i++) r += a[i * s];                                 \
      return r;                                                                      \
    }                                                                                \
    if (n <= 128) {                                                                  \
      T r[8];                                                                        \
      for (int j = 0; j < 8; j++) r[j] = a[j * s];                                   \
      tfs_i64 i;                                                                     \
      for (i = 8; i < n - (n % 8); i += 8)                                           \
        for (int j = 0; j < 8; j++) r[j] += a[(i + j) * s];                          \
      T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));     \
      for (; i < n; i++) res += a[i * s];                                            \
      return res;                                                                    \
    }                                                                                \
    tfs_i64 n2 = n / 2;                                                              \
    n2 -= n2 % 8;                                                                    \
    return name(a, n2, s) + name(a + n2 * s, n - n2, s);                             \
  }
PAIRWISE(psum_f32, float)
PAIRWISE(psum_f64, double)

/* Reduce [O,R,I] -> [O,I] for one op and element type. */
#define REDUCE_T(sfx, T, U, ISF)                                                                      \
  static void reduce_##sfx(OpId id, const T *x, T *o, tfs_i64 O, tfs_i64 R, tfs_i64 I) {              \
    for (tfs_i64 q = 0; q < O; q++) {                                                                 \
      const T *xb = x + q * R * I;                                                                    \
      T *ob = o + q * I;                                                                              \
      switch (id) {                                                                                   \
      case OP_SUM: case OP_MEAN:                                                                      \
        if (I == 1 && ISF) {                                                                          \
          ob[0] = (T)0 + PSUM(xb, R);                                                                 \
        } else {                                                                                      \
          for (tfs_i64 i = 0; i < I; i++) ob[i] = 0;                                                  \
          for (tfs_i64 r = 0; r < R; r++)                                                             \
            for (tfs_i64 i = 0; i < I; i++) ob[i] = (T)((U)ob[i] + (U)xb[r * I + i]);                 \
        }                                                                                             \
        if (id == OP_MEAN) {                                                                          \
          for (tfs_i64 i = 0; i < I; i++) ob[i] = R ? (T)(ob[i] / (T)R) : (ISF ? (T)NAN : 0);         \
        }                                                                                             \
        break;                                                                                        \
      case OP_PROD:                                                                                   \
        for (tfs_i64 i = 0; i < I; i++) ob[i] = 1;                                                    \
        for (tfs_i64 r = 0; r < R; r++)                                                               \
          for (tfs_i64 i = 0; i < I; i++) ob[i] = (T)((U)ob[i] * (U)xb[r * I + i]);                   \
        break;                                                                                        \
      case OP_MAX: case OP_MIN: {                                                                     \
        bool mx = id == OP_MAX;                                                                       \
        for (tfs_i64 i = 0; i < I; i++) ob[i] = mx ? LOWEST : HIGHEST;                                \
        for (tfs_i64 r = 0; r < R; r++)                                                               \
          for (tfs_i64 i = 0; i < I; i++) {                                                           \
            T v = xb[r * I + i], c = ob[i];                                                           \
            ob[i] = (v != v || c != c) ? (c != c ? c : v) : (mx ? (v > c ? v : c) : (v < c ? v : c)); \
          }                                                                                           \
        break;                                                                                        \
      }                                                                                               \
      default: break;                                                                                 \
      }                                                                                               \
    }                                                                                                 \
  }

#define PSUM(a, n) psum_f32(a, n, 1)
#define LOWEST (-INFINITY)
#define HIGHEST INFINITY
REDUCE_T(f32, float, float, 1)
#undef PSUM
#define PSUM(a, n) psum_f64(a, n, 1)
REDUCE_T(f64, double, double, 1)
#undef PSUM
#undef LOWEST
#undef HIGHEST
#define PSUM(a, n) 0
#define LOWEST INT32_MIN
#define HIGHEST INT32_MAX
REDUCE_T(i32, int32_t, uint32_t, 0)
#undef LOWEST
#undef HIGHEST
#define LOWEST INT64_MIN
#define HIGHEST INT64_MAX
REDUCE_T(i64, int64_t, uint64_t, 0)
#undef LOWEST
#undef HIGHEST
/* uint64 values above 2**63 order and divide (Mean) as unsigned, which int64 would not */
#define LOWEST 0
#define HIGHEST UINT64_MAX
REDUCE_T(u64, uint64_t, uint64_t, 0)
#undef LOWEST
#undef HIGHEST
#undef PSUM

/* complex Prod: C's complex multiply (as std::complex's) along R, in row order */
#define REDUCE_PROD_C(sfx, T)                                                                 \
  static void reduce_prod_##sfx(const T *x, T *o, tfs_i64 O, tfs_i64 R, tfs_i64 I) {          \
    for (tfs_i64 q = 0; q < O; q++) {                                                         \
      const T *xb = x + q * R * I;                                                            \
      T *ob = o + q * I;                                                                      \
      for (tfs_i64 i = 0; i < I; i++) ob[i] = 1;                                              \
      for (tfs_i64 r = 0; r < R; r++)                                                         \
        for (tfs_i64 i = 0; i < I; i++) ob[i] *= xb[r * I + i];                               \
    }                                                                                         \
  }
REDUCE_PROD_C(c64, float _Complex)
REDUCE_PROD_C(c128, double _Complex)

static void reduce_bool(OpId id, const bool *x, bool *o, tfs_i64 O, tfs_i64 R, tfs_i64 I) {
  bool any = id == OP_ANY;
  for (tfs_i64 q = 0; q < O; q++) {
    const bool *xb = x + q * R * I;
    bool *ob = o + q * I;
    for (tfs_i64 i = 0; i < I; i++) ob[i] = !any;
    for (tfs_i64 r = 0; r < R; r++)
      for (tfs_i64 i = 0; i < I; i++) ob[i] = any ? (ob[i] | xb[r * I + i]) : (ob[i] & xb[r * I + i]);
  }
}

/* Scratch: iscr[0..rank) reduce flags of the input dims. */
/* shape: the input shape without the reduced axes (all axes when axis is None), or with them kept as 1 when keepdims=True. */
void meta_reduce(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  bool keep = op_attr_bool(c, 1, false);
  o->dtype = a->dtype;
  if (a->rank < 0) { o->rank = -1; return; }
  int axes[TFS_MAX_RANK];
  int n = op_attr_axes(c, 0, a->rank, axes);
  for (int d = 0; d < a->rank; d++) c->iscr[d] = 0;
  for (int k = 0; k < n; k++) c->iscr[axes[k]] = 1;
  int r = 0;
  for (int d = 0; d < a->rank; d++) {
    if (!c->iscr[d]) o->shape[r++] = a->shape[d];
    else if (keep) o->shape[r++] = 1;
  }
  o->rank = r;
}

static void reduce_plan(OpCall *c, RPlan *p) {
  bool red[TFS_MAX_RANK];
  for (int d = 0; d < c->in[0]->rank; d++) red[d] = c->iscr[d] != 0;
  rplan(c->in[0], red, p);
}

static void logsumexp(OpCall *c, RPlan *p) {
  Tensor *o = c->out[0];
  bool f32 = o->dtype == DT_FLOAT32;
  for (tfs_i64 q = 0; q < p->O; q++)
    for (tfs_i64 i = 0; i < p->I; i++) {
      tfs_i64 base = q * p->R * p->I + i;
      double mx = -INFINITY;
      for (tfs_i64 r = 0; r < p->R; r++) {
        double v = f32 ? ((float *)tensor_data(p->x))[base + r * p->I] : ((double *)tensor_data(p->x))[base + r * p->I];
        if (v > mx || v != v) mx = v;
      }
      if (!isfinite(mx)) mx = 0;
      double s = 0;
      for (tfs_i64 r = 0; r < p->R; r++) {
        double v = f32 ? ((float *)tensor_data(p->x))[base + r * p->I] : ((double *)tensor_data(p->x))[base + r * p->I];
        s += exp(v - mx);
      }
      double res = log(s) + mx;
      if (f32) ((float *)tensor_data(o))[q * p->I + i] = (float)res;
      else ((double *)tensor_data(o))[q * p->I + i] = res;
    }
}

void k_reduce(OpCall *c) {
  if (c->in[0]->dtype != DT_BOOL && c->in[0]->dtype != DT_UINT64 && ew_wide(c->in[0]->dtype) >= 0) {   /* halves sum in float, small ints in int64 */
    ew_run_wide(c, (DType)ew_wide(c->in[0]->dtype), k_reduce);
    return;
  }
  RPlan p;
  reduce_plan(c, &p);
  Tensor *o = c->out[0];
  OpId id = c->op->id;
  void *x = tensor_data(p.x), *od = tensor_data(o);
  if (id == OP_LOGSUMEXP) logsumexp(c, &p);
  else switch (o->dtype) {
  case DT_FLOAT32: reduce_f32(id, x, od, p.O, p.R, p.I); break;
  case DT_FLOAT64: reduce_f64(id, x, od, p.O, p.R, p.I); break;
  case DT_INT32: reduce_i32(id, x, od, p.O, p.R, p.I); break;
  case DT_INT64: reduce_i64(id, x, od, p.O, p.R, p.I); break;
  case DT_UINT64: reduce_u64(id, x, od, p.O, p.R, p.I); break;
  case DT_BOOL: reduce_bool(id, x, od, p.O, p.R, p.I); break;
  /* complex sum and mean act on the real and imaginary parts apart: a row of I complex numbers is a row
   * of 2I floats; prod multiplies complex numbers */
  case DT_COMPLEX64:
    if (id == OP_PROD) reduce_prod_c64(x, od, p.O, p.R, p.I);
    else reduce_f32(id, x, od, p.O, p.R, p.I * 2);
    break;
  case DT_COMPLEX128:
    if (id == OP_PROD) reduce_prod_c128(x, od, p.O, p.R, p.I);
    else reduce_f64(id, x, od, p.O, p.R, p.I * 2);
    break;
  default: break;
  }
  tensor_release(p.x);
}

/* ---- argmax / argmin ---------------------------------------------------------------------------- */

/* shape: the input's shape without the reduced axis; int64 unless output_type says int32. */
void meta_argminmax(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  int dt = op_attr_dtype(c, 1, DT_INT64);
  if (dt != DT_INT32 && dt != DT_INT64) op_fail(c, ERR_INVALID_ARGUMENT, "output_type must be int32 or int64");
  o->dtype = (DType)dt;
  if (a->rank < 0) { o->rank = -1; return; }
  tfs_i64 axis = op_attr_int(c, 0, 0);
  if (a->rank == 0 || axis < -a->rank || axis >= a->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Expected dimension in the range [%d, %d), but got %lld", -a->rank, a->rank, (long long)axis);
  int ax = (int)(axis < 0 ? axis + a->rank : axis);
  if (a->shape[ax] == 0) {
    StrBuf s;
    sb_init(&s);
    sb_printf(&s, "Reduction axis %d is empty in shape ", ax);
    op_shape_text(&s, a->rank, a->shape);
    /* errindex: Reduction axis … is empty in shape … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
  c->iscr[0] = ax;
  int r = 0;
  for (int d = 0; d < a->rank; d++)
    if (d != ax) o->shape[r++] = a->shape[d];
  o->rank = r;
}

void k_argminmax(OpCall *c) {
  Tensor *a = c->in[0], *o = c->out[0];
  /* keep the reduced dim even when it has size 1 */
  tfs_i64 O = 1, R = a->shape[c->iscr[0]], I = 1;
  for (int d = 0; d < c->iscr[0]; d++) O *= a->shape[d];
  for (int d = (int)c->iscr[0] + 1; d < a->rank; d++) I *= a->shape[d];
  Tensor *x = tensor_contiguous(a);
  bool mx = c->op->id == OP_ARGMAX;
  for (tfs_i64 q = 0; q < O; q++)
    for (tfs_i64 i = 0; i < I; i++) {
      tfs_i64 best = 0, base = q * R * I + i;
      switch (x->dtype) {
#define ARGLOOP(T)                                                                      \
  {                                                                                     \
    const T *p = (const T *)tensor_data(x) + base;                                      \
    T bv = p[0];                                                                        \
    for (tfs_i64 r = 1; r < R; r++) {                                                   \
      T v = p[r * I];                                                                   \
      if (bv != bv) break;                                                              \
      if (v != v || (mx ? v > bv : v < bv)) { bv = v; best = r; }                        \
    }                                                                                   \
  }
      case DT_FLOAT32: ARGLOOP(float) break;
      case DT_FLOAT64: ARGLOOP(double) break;
      case DT_INT32: ARGLOOP(int32_t) break;
      case DT_INT64: ARGLOOP(int64_t) break;
      default: break;
#undef ARGLOOP
      }
      if (o->dtype == DT_INT32) ((int32_t *)tensor_data(o))[q * I + i] = (int32_t)best;
      else ((int64_t *)tensor_data(o))[q * I + i] = best;
    }
  tensor_release(x);
}

/* ---- softmax family ------------------------------------------------------------------------------- */

/* shape: the input's shape (the last axis, or axis, is normalised). */
void meta_softmax(OpCall *c) {
  const TMeta *a = &c->inm[0];
  c->outm[0] = *a;
  if (a->rank < 0) return;
  tfs_i64 axis = op_attr_int(c, 0, -1);
  if (a->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "logits must have >= 1 dimension, got shape []");
  if (axis < -a->rank || axis >= a->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "`axis` must be in the range [%d, %d) where %d is the number of dimensions in the input. Received: axis=%lld",
            -a->rank, a->rank, a->rank, (long long)axis);
  c->iscr[0] = axis < 0 ? axis + a->rank : axis;
}

static void ori(const Tensor *x, int ax, tfs_i64 *O, tfs_i64 *R, tfs_i64 *I) {
  *O = *I = 1;
  *R = x->shape[ax];
  for (int d = 0; d < ax; d++) *O *= x->shape[d];
  for (int d = ax + 1; d < x->rank; d++) *I *= x->shape[d];
}

/* softmax / log_softmax over axis, as TF's kernels compute it: shift by the
 * max, exp, sum; softmax multiplies by the sum's reciprocal. */
#define SOFTMAX_T(name, T, EXP, LOG)                                                       \
  static void name(const T *x, T *o, tfs_i64 O, tfs_i64 R, tfs_i64 I, bool logsm) {         \
    for (tfs_i64 q = 0; q < O; q++)                                                         \
      for (tfs_i64 i = 0; i < I; i++) {                                                     \
        const T *xb = x + q * R * I + i;                                                    \
        T *ob = o + q * R * I + i;                                                          \
        T mx = -INFINITY;                                                                   \
        for (tfs_i64 r = 0; r < R; r++) mx = xb[r * I] > mx ? xb[r * I] : mx;               \
        T s = 0;                                                                            \
        for (tfs_i64 r = 0; r < R; r++) {                                                   \
          T e = EXP(xb[r * I] - mx);                                                        \
          s += e;                                                                           \
          if (!logsm) ob[r * I] = e;                                                        \
        }                                                                                   \
        if (logsm) {                                                                        \
          T ls = LOG(s);                                                                    \
          for (tfs_i64 r = 0; r < R; r++) ob[r * I] = (xb[r * I] - mx) - ls;                \
        } else {                                                                            \
          T inv = (T)1 / s;                                                                 \
          for (tfs_i64 r = 0; r < R; r++) ob[r * I] *= inv;                                 \
        }                                                                                   \
      }                                                                                     \
  }
SOFTMAX_T(softmax_f32, float, expf, logf)
SOFTMAX_T(softmax_f64, double, exp, log)

void k_softmax(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *o = c->out[0];
  tfs_i64 O, R, I;
  ori(x, (int)c->iscr[0], &O, &R, &I);
  bool logsm = c->op->id == OP_LOG_SOFTMAX;
  if (x->dtype == DT_FLOAT32) softmax_f32(tensor_data(x), tensor_data(o), O, R, I, logsm);
  else if (x->dtype == DT_FLOAT64) softmax_f64(tensor_data(x), tensor_data(o), O, R, I, logsm);
  else {
    /* float16/bfloat16: computed in float32 and rounded once (keeps a 16-bit softmax summing to ~1) */
    Tensor *xf = tensor_new(DT_FLOAT32, x->rank, x->shape), *of = tensor_new(DT_FLOAT32, x->rank, x->shape);
    ew_cast(xf, x);
    softmax_f32(tensor_data(xf), tensor_data(of), O, R, I, logsm);
    ew_cast(o, of);
    tensor_release(xf);
    tensor_release(of);
  }
  tensor_release(x);
}

static _Noreturn void xent_shape_fail(OpCall *c, const TMeta *l, const TMeta *g) {
  StrBuf s;
  sb_init(&s);
  sb_puts(&s, "Shape mismatch: The shape of labels (received ");
  shape_format(&s, l->rank, l->shape);
  sb_puts(&s, ") should equal the shape of logits except for the last dimension (received ");
  shape_format(&s, g->rank, g->shape);
  sb_puts(&s, ").");
  /* errindex: Shape mismatch: The shape of labels (received …) should equal the shape of logits except for the last dimension (received …). */
  op_fail_sb(c, ERR_VALUE, &s);
}

/* shape: labels' shape (logits have one more dimension, the classes). */
void meta_sparse_xent(OpCall *c) {
  const TMeta *l = &c->inm[0], *g = &c->inm[1];
  TMeta *o = &c->outm[0];
  if (g->rank >= 0 && l->rank >= 0) {
    if (g->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Logits cannot be scalars - received shape ().");
    if (l->rank != g->rank - 1) xent_shape_fail(c, l, g);
    for (int d = 0; d < l->rank; d++)
      if (l->shape[d] >= 0 && g->shape[d] >= 0 && l->shape[d] != g->shape[d]) xent_shape_fail(c, l, g);
  }
  *o = *l;
  o->dtype = g->dtype;
  for (int d = 0; d < l->rank; d++)
    if (o->shape[d] < 0 && g->rank > d) o->shape[d] = g->shape[d];
}

void k_sparse_xent(OpCall *c) {
  Tensor *lab = c->in[0], *x = tensor_contiguous(c->in[1]), *o = c->out[0];
  tfs_i64 C = x->shape[x->rank - 1], B = lab->size;
  for (tfs_i64 b = 0; b < B; b++) {
    tfs_i64 k = tensor_get_i(lab, b);
    if (k < 0 || k >= C) {
      StrBuf s;
      sb_init(&s);
      sb_printf(&s, "Received a label value of %lld which is outside the valid range of [0, %lld).  Label values:", (long long)k, (long long)C);
      for (tfs_i64 j = 0; j < B; j++) sb_printf(&s, " %lld", (long long)tensor_get_i(lab, j));
      tensor_release(x);
      /* errindex: Received a label value of … which is outside the valid range of [0, …).  Label values: … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
    }
  }
  for (tfs_i64 b = 0; b < B; b++) {
    tfs_i64 k = tensor_get_i(lab, b);
    if (x->dtype == DT_FLOAT32) {
      const float *r = (const float *)tensor_data(x) + b * C;
      float mx = -INFINITY, s = 0;
      for (tfs_i64 j = 0; j < C; j++) mx = r[j] > mx ? r[j] : mx;
      for (tfs_i64 j = 0; j < C; j++) s += expf(r[j] - mx);
      ((float *)tensor_data(o))[b] = logf(s) - (r[k] - mx);
    } else {
      const double *r = (const double *)tensor_data(x) + b * C;
      double mx = -INFINITY, s = 0;
      for (tfs_i64 j = 0; j < C; j++) mx = r[j] > mx ? r[j] : mx;
      for (tfs_i64 j = 0; j < C; j++) s += exp(r[j] - mx);
      ((double *)tensor_data(o))[b] = log(s) - (r[k] - mx);
    }
  }
  tensor_release(x);
}

/* shape: labels and logits share a shape; the result drops the last (class) axis. */
void meta_xent(OpCall *c) {
  const TMeta *l = &c->inm[0], *g = &c->inm[1];
  TMeta *o = &c->outm[0];
  TMeta bm;
  op_broadcast_meta(c, l, g, &bm);
  if (bm.rank < 0) { o->rank = -1; o->dtype = g->dtype; return; }
  if (bm.rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "logits and labels must be at least 1-D");
  tfs_i64 axis = op_attr_int(c, 0, -1);
  if (axis < -bm.rank || axis >= bm.rank) op_fail(c, ERR_INVALID_ARGUMENT, "axis %lld out of range for rank %d", (long long)axis, bm.rank);
  int ax = (int)(axis < 0 ? axis + bm.rank : axis);
  c->iscr[0] = ax;
  c->iscr[1] = bm.rank;
  for (int d = 0; d < bm.rank; d++) c->iscr[2 + d] = bm.shape[d];
  o->dtype = g->dtype;
  o->rank = 0;
  for (int d = 0; d < bm.rank; d++)
    if (d != ax) o->shape[o->rank++] = bm.shape[d];
}

void k_xent(OpCall *c) {
  int ax = (int)c->iscr[0], r = (int)c->iscr[1];
  tfs_i64 shape[TFS_MAX_RANK];
  for (int d = 0; d < r; d++) shape[d] = c->iscr[2 + d];
  DType dt = c->in[1]->dtype;
  /* broadcast both to the common shape, contiguous */
  Tensor *l = tensor_new(dt, r, shape), *g = tensor_new(dt, r, shape);
  {
    Tensor *zero = tensor_scalar(dt);
    ew_fill(zero, 0, 0);
    ew_binary(OP_ADD, l, c->in[0], zero);
    ew_binary(OP_ADD, g, c->in[1], zero);
    tensor_release(zero);
  }
  tfs_i64 O, R, I;
  ori(g, ax, &O, &R, &I);
  Tensor *o = c->out[0];
  for (tfs_i64 q = 0; q < O; q++)
    for (tfs_i64 i = 0; i < I; i++) {
      tfs_i64 base = q * R * I + i;
      if (dt == DT_FLOAT32) {
        const float *x = (const float *)tensor_data(g) + base, *y = (const float *)tensor_data(l) + base;
        float mx = -INFINITY, s = 0, loss = 0;
        for (tfs_i64 k = 0; k < R; k++) mx = x[k * I] > mx ? x[k * I] : mx;
        for (tfs_i64 k = 0; k < R; k++) s += expf(x[k * I] - mx);
        float ls = logf(s);
        for (tfs_i64 k = 0; k < R; k++) loss += y[k * I] * (ls - (x[k * I] - mx));
        ((float *)tensor_data(o))[q * I + i] = loss;
      } else {
        const double *x = (const double *)tensor_data(g) + base, *y = (const double *)tensor_data(l) + base;
        double mx = -INFINITY, s = 0, loss = 0;
        for (tfs_i64 k = 0; k < R; k++) mx = x[k * I] > mx ? x[k * I] : mx;
        for (tfs_i64 k = 0; k < R; k++) s += exp(x[k * I] - mx);
        double ls = log(s);
        for (tfs_i64 k = 0; k < R; k++) loss += y[k * I] * (ls - (x[k * I] - mx));
        ((double *)tensor_data(o))[q * I + i] = loss;
      }
    }
  tensor_release(l);
  tensor_release(g);
}

/* ---- linalg.norm --------------------------------------------------------------------------------------
 * Scratch: iscr[0..rank) reduce flags; fscr[0] the order p (inf: max), fscr[1] the NORM_* mode; a matrix norm's
 * row and column axes in iscr[TFS_MAX_RANK], iscr[TFS_MAX_RANK + 1]. */

/* whether a norm of complex input is TF's sqrt(sum(x * conj(x))) (complex result), from the scratch meta_norm set */
static bool norm_cplx_sq(const OpCall *c) {
  int mode = (int)c->fscr[1];
  return c->fscr[0] == 2 && (mode == NORM_VECTOR || mode == NORM_FRO);
}

/* shape: a scalar, or the input's shape without the reduced axes (kept as 1 with keepdims=True). */
void meta_norm(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  Val ordv = op_attr(c, 0), axv = op_attr(c, 1);
  /* a matrix norm: axis a list or tuple of two axes, in the order given (rows, columns) */
  bool matrix = (val_is(axv, &list_type) && ((List *)axv.u.o)->len == 2) || (val_is(axv, &tuple_type) && ((Tuple *)axv.u.o)->len == 2);
  double p = 2;
  int mode = NORM_VECTOR;
  if (val_is(ordv, &str_type)) {
    const char *s = str_cstr(ordv);
    if (matrix && (!strcmp(s, "fro") || !strcmp(s, "euclidean"))) mode = NORM_FRO;
    else if (strcmp(s, "euclidean")) op_fail(c, ERR_VALUE, matrix ? "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got %s" : "'ord' must be a supported vector norm, got %s", s);
  } else if (ordv.tag != VT_UNDEF && ordv.tag != VT_NONE) {
    p = op_attr_float(c, 0, 2);
    if (matrix) {
      if (p == 1) mode = NORM_ONE;
      else if (isinf(p) && p > 0) mode = NORM_INF;
      else if (p == 2) mode = NORM_TWO;
      else op_fail(c, ERR_VALUE, "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got %g", p);
    } else if (!(p > 0)) {
      op_fail(c, ERR_VALUE, "'ord' must be a supported vector norm, got %g", p);
    }
  } else if (matrix) {
    mode = NORM_FRO;
  }
  if (mode == NORM_FRO) p = 2;
  c->fscr[0] = p;
  c->fscr[1] = mode;
  /* a complex tensor (TF's linalg_ops.norm): 'euclidean' and 'fro' are sqrt(sum(x * conj(x))), complex; the other
   * orders take abs(x) first, real */
  o->dtype = dtype_is_complex(a->dtype) && !norm_cplx_sq(c) ? dtype_real_part(a->dtype) : a->dtype;
  if (a->rank < 0) { o->rank = -1; return; }
  int axes[TFS_MAX_RANK];
  int n = op_attr_axes(c, 1, a->rank, axes);
  if (matrix) {
    const Val *it = val_is(axv, &list_type) ? ((List *)axv.u.o)->items : ((Tuple *)axv.u.o)->items;
    for (int k = 0; k < 2; k++) {
      int64_t v;
      if (!val_as_int(it[k], &v)) op_fail(c, ERR_TYPE, "'axis' must be None, an integer, or a tuple of 2 unique integers");
      c->iscr[TFS_MAX_RANK + k] = op_norm_axis(c, v, a->rank);
    }
    if (n != 2) op_fail(c, ERR_VALUE, "'axis' must be None, an integer, or a tuple of 2 unique integers, got [%lld, %lld]",
                        (long long)c->iscr[TFS_MAX_RANK], (long long)c->iscr[TFS_MAX_RANK + 1]);
  }
  bool keep = op_attr_bool(c, 2, false);
  for (int d = 0; d < a->rank; d++) c->iscr[d] = 0;
  for (int k = 0; k < n; k++) c->iscr[axes[k]] = 1;
  int r = 0;
  for (int d = 0; d < a->rank; d++) {
    if (!c->iscr[d]) o->shape[r++] = a->shape[d];
    else if (keep) o->shape[r++] = 1;
  }
  o->rank = r;
}

static void norm_complex(OpCall *c);

void k_norm(OpCall *c) {
  if (dtype_is_complex(c->in[0]->dtype)) {
    norm_complex(c);
    return;
  }
  int mode = (int)c->fscr[1];
  if (mode == NORM_ONE || mode == NORM_INF || mode == NORM_TWO) {
    linalg_matrix_norm(c, mode, (int)c->iscr[TFS_MAX_RANK], (int)c->iscr[TFS_MAX_RANK + 1]);
    return;
  }
  RPlan pl;
  reduce_plan(c, &pl);
  Tensor *o = c->out[0];
  double p = c->fscr[0];
  bool f32 = o->dtype == DT_FLOAT32;
  /* transform |x|^p in place on the (owned) packed copy, then reduce */
  Tensor *x = pl.x;
  if (x->hdr.rc > 1 || x == c->in[0]) {
    Tensor *cp = tensor_copy(x);
    tensor_release(x);
    x = pl.x = cp;
  }
  tfs_i64 n = x->size;
  OpId rop = isinf(p) ? OP_MAX : OP_SUM;
  if (f32) {
    float *v = tensor_data(x);
    for (tfs_i64 i = 0; i < n; i++) v[i] = p == 2 ? v[i] * v[i] : p == 1 || isinf(p) ? fabsf(v[i]) : powf(fabsf(v[i]), (float)p);
    reduce_f32(rop, v, tensor_data(o), pl.O, pl.R, pl.I);
    float *ov = tensor_data(o);
    for (tfs_i64 i = 0; i < o->size; i++) ov[i] = p == 2 ? sqrtf(ov[i]) : p == 1 || isinf(p) ? ov[i] : powf(ov[i], 1.0f / (float)p);
  } else {
    double *v = tensor_data(x);
    for (tfs_i64 i = 0; i < n; i++) v[i] = p == 2 ? v[i] * v[i] : p == 1 || isinf(p) ? fabs(v[i]) : pow(fabs(v[i]), p);
    reduce_f64(rop, v, tensor_data(o), pl.O, pl.R, pl.I);
    double *ov = tensor_data(o);
    for (tfs_i64 i = 0; i < o->size; i++) ov[i] = p == 2 ? sqrt(ov[i]) : p == 1 || isinf(p) ? ov[i] : pow(ov[i], 1.0 / p);
  }
  tensor_release(x);
}

/* A complex input: the real norm of |x| (TF's math_ops.abs first), or for 'euclidean' / 'fro' sqrt of the sum of
 * re^2 + im^2 (x * conj(x), whose imaginary part is 0) written as a complex result with a zero imaginary part. */
static void norm_complex(OpCall *c) {
  if ((int)c->fscr[1] == NORM_TWO) {   /* the largest singular value of the complex matrix itself */
    linalg_matrix_norm(c, NORM_TWO, (int)c->iscr[TFS_MAX_RANK], (int)c->iscr[TFS_MAX_RANK + 1]);
    return;
  }
  Tensor *in0 = c->in[0], *out0 = c->out[0], *x = tensor_contiguous(in0);
  bool sq = norm_cplx_sq(c), f32 = x->dtype == DT_COMPLEX64;
  Tensor *ab = tensor_new(dtype_real_part(x->dtype), x->rank, x->shape);
  for (tfs_i64 i = 0; i < x->size; i++) {
    if (f32) {
      const float *z = (const float *)tensor_data(x) + 2 * i;
      ((float *)tensor_data(ab))[i] = sq ? z[0] * z[0] + z[1] * z[1] : hypotf(z[0], z[1]);
    } else {
      const double *z = (const double *)tensor_data(x) + 2 * i;
      ((double *)tensor_data(ab))[i] = sq ? z[0] * z[0] + z[1] * z[1] : hypot(z[0], z[1]);
    }
  }
  tensor_release(x);
  Tensor *sum = sq ? tensor_new(ab->dtype, out0->rank, out0->shape) : NULL;
  double p = c->fscr[0];
  c->in[0] = ab;
  if (sq) c->out[0] = sum, c->fscr[0] = 1;   /* the squares are made: their plain sum */
  k_norm(c);
  c->in[0] = in0, c->out[0] = out0, c->fscr[0] = p;
  tensor_release(ab);
  if (!sq) return;
  for (tfs_i64 i = 0; i < out0->size; i++) {
    if (f32) ((float *)tensor_data(out0))[2 * i] = sqrtf(((float *)tensor_data(sum))[i]), ((float *)tensor_data(out0))[2 * i + 1] = 0;
    else ((double *)tensor_data(out0))[2 * i] = sqrt(((double *)tensor_data(sum))[i]), ((double *)tensor_data(out0))[2 * i + 1] = 0;
  }
  tensor_release(sum);
}
