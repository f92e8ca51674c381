/* k_random_dist.c — gamma and Poisson draws (RandomGamma, RandomPoissonV2 and their stateless forms) and
 * RandomGammaGrad, the derivative of a gamma draw with respect to its shape parameter. */
#include <math.h>
#include <string.h>

#include "object/half.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/rngstream.h"

/* ---- shapes: RandomGamma/RandomPoissonV2 draw `shape` (attribute 0) draws of each parameter, output shape + the
 * parameter's shape; the stateless ops' output is `shape`, whose last dimensions must be the parameter's ---- */

static void meta_draws(OpCall *c, const TMeta *param, DType dt, bool stateless) {
  tfs_i64 dims[2 * TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, 0), dims, false, c->op->graph_name);
  if (stateless) {
    bool fits = param->rank <= r;
    for (int i = 0; fits && i < param->rank; i++) {
      tfs_i64 want = dims[r - param->rank + i], have = param->shape[i];
      fits = want < 0 || have < 0 || want == have;
    }
    if (param->rank >= 0 && !fits) op_fail(c, ERR_INVALID_ARGUMENT, "Shape passed in must end with broadcasted shape.");
    meta_set(&c->outm[0], dt, r, dims);
    return;
  }
  if (param->rank < 0) {
    meta_set(&c->outm[0], dt, -1, dims);
    return;
  }
  if (r + param->rank > TFS_MAX_RANK)
    op_fail(c, ERR_INVALID_ARGUMENT, "%s: the output would have rank %d, more than %d", c->op->graph_name, r + param->rank, TFS_MAX_RANK);
  memcpy(dims + r, param->shape, sizeof(tfs_i64) * (size_t)param->rank);
  meta_set(&c->outm[0], dt, r + param->rank, dims);
}

static bool is_stateless(const OpCall *c) {
  return c->op->id == OP_STATELESS_GAMMA || c->op->id == OP_STATELESS_POISSON;
}

/* RandomGamma(shape, alpha; seed), StatelessRandomGammaV2(shape, seed, alpha): alpha's dtype. */
void meta_random_gamma(OpCall *c) {
  bool sl = is_stateless(c);
  if (sl) random_check_seed_meta(c, &c->inm[0]);
  meta_draws(c, &c->inm[sl ? 1 : 0], c->inm[sl ? 1 : 0].dtype, sl);
}

/* RandomPoissonV2(shape, rate; dtype, seed), StatelessRandomPoisson(shape, seed, lam; dtype). */
void meta_random_poisson(OpCall *c) {
  bool sl = is_stateless(c);
  if (sl) random_check_seed_meta(c, &c->inm[0]);
  int dt = op_attr_dtype(c, 1, sl ? DT_INT32 : DT_FLOAT32);
  const unsigned ok = DTM_FLOAT | DTM(DT_FLOAT16) | DTM(DT_INT32) | DTM(DT_INT64);
  if (!(ok & DTM(dt)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'dtype' of %s is not in the list of allowed values: half, float, double, int32, int64",
            dtype_short_name((DType)dt));
  meta_draws(c, &c->inm[sl ? 1 : 0], (DType)dt, sl);
}

/* ---- samplers (double precision; the kernels round to the output dtype) ---- */

/* Marsaglia and Tsang's method; a shape below 1 draws with shape + 1 and scales by u^(1/alpha), as TF's kernel. */
static double gamma_draw(tfs_u64 *st, double alpha) {
  if (!(alpha > 0)) return NAN;
  if (alpha == 1.0) return -log1p(-u01(st));   /* an exponential draw */
  bool boost = alpha < 1.0;
  double d = (boost ? alpha + 1.0 : alpha) - 1.0 / 3.0, cc = 1.0 / sqrt(9.0 * d);
  double x;
  for (;;) {
    double z = normal01(st), v = 1.0 + cc * z;
    if (v <= 0) continue;
    v = v * v * v;
    double u = u01(st);
    if (u < 1.0 - 0.0331 * (z * z) * (z * z) || log(u) < 0.5 * z * z + d * (1.0 - v + log(v))) {
      x = d * v;
      break;
    }
  }
  if (boost) {
    double u = u01(st);
    x *= pow(u, 1.0 / alpha);
  }
  return x;
}

/* Knuth's product of uniforms below rate 12, Hormann's transformed rejection (PTRS) from 12 on, as TF's kernel;
 * a negative or NaN rate gives NaN. */
static double poisson_draw(tfs_u64 *st, double rate) {
  if (!(rate >= 0)) return NAN;
  if (rate < 12.0) {
    double lim = exp(-rate), prod = 1.0, k = 0;
    for (;;) {
      prod *= u01(st);
      if (prod <= lim) return k;
      k += 1;
    }
  }
  if (isinf(rate)) return rate;
  double lr = log(rate), b = 0.931 + 2.53 * sqrt(rate), a = -0.059 + 0.02483 * b;
  double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    double u = u01(st) - 0.5, v = u01(st), us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    double s = log(v * inv_alpha / (a / (us * us) + b)), t = -rate + k * lr - lgamma(k + 1.0);
    if (s <= t) return k;
  }
}

/* The draws: output [samples..., params...] holds sample i of parameter j at i * nparam + j, as TF. */
static void draw_all(OpCall *c, const Tensor *param, bool gamma_dist) {
  Tensor *o = c->out[0];
  tfs_u64 st = is_stateless(c) ? random_seed_stream(c->in[0], (tfs_u64)c->op->id)
                               : random_stream_key(c, gamma_dist ? 1 : 2);
  tfs_i64 np = param->size;
  if (np == 0 || o->size == 0) return;
  for (tfs_i64 i = 0; i < o->size; i++) {
    double p = tensor_get_f(param, i % np);
    double v = gamma_dist ? gamma_draw(&st, p) : poisson_draw(&st, p);
    switch (o->dtype) {
    case DT_FLOAT32: ((float *)tensor_data(o))[i] = (float)v; break;
    case DT_FLOAT64: ((double *)tensor_data(o))[i] = v; break;
    case DT_INT32: ((int32_t *)tensor_data(o))[i] = isnan(v) ? 0 : v > 2147483647.0 ? INT32_MAX : (int32_t)v; break;
    case DT_INT64: ((int64_t *)tensor_data(o))[i] = isnan(v) ? 0 : v > 9.2e18 ? INT64_MAX : (int64_t)v; break;
    default: ((uint16_t *)tensor_data(o))[i] = f32_to_f16((float)v); break;   /* float16 */
    }
  }
}

void k_random_gamma(OpCall *c) {
  if (op_run_half_as_f32(c, k_random_gamma)) return;
  draw_all(c, c->in[is_stateless(c) ? 1 : 0], true);
}

void k_random_poisson(OpCall *c) {
  draw_all(c, c->in[is_stateless(c) ? 1 : 0], false);
}

/* ---- RandomGammaGrad(alpha, sample): d sample / d alpha at a fixed CDF value (implicit reparameterization) ----
 * For P(a, x) the regularized lower incomplete gamma, dx/da = -(dP/da) / p(x), p the gamma density. Both parts are
 * computed as ratios to the density, so nothing underflows: below max(1, a) from P's series
 * P = x^a e^-x sum_n x^n / Gamma(a + n + 1), differentiated term by term (each term's log-derivative is
 * log x - digamma(a + n + 1)); above it from the continued fraction of Q = 1 - P (Cephes' igamc), carried forward with
 * the derivatives of its recurrences. */

static double digamma_d(double x) {
  double r = 0;
  while (x < 6) { r -= 1 / x; x += 1; }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

static double gamma_sample_der_alpha(double a, double x) {
  if (!(a > 0) || isnan(x)) return NAN;
  if (x <= 0) return 0;
  if (isinf(x)) return INFINITY;
  double lx = log(x);
  if (x < 1 || x < a) {
    double term = 1, psi = digamma_d(a + 1), sum = 0;
    for (int n = 0; n < 2000; n++) {
      if (n > 0) {
        term *= x / (a + n);
        psi += 1 / (a + n);
      }
      double add = term * (lx - psi);
      sum += add;
      if (fabs(add) <= 1e-17 * fabs(sum) && term < 1e-17) break;
    }
    return -(x / a) * sum;
  }
  /* Q = e^{a log x - x} / Gamma(a) * ans, ans the continued fraction; d/da through y = 1 - a + c, z = x + y + 1 + 2c */
  double y = 1 - a, z = x + y + 1, cnt = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  double dpkm2 = 0, dqkm2 = 0, dpkm1 = 0, dqkm1 = -x;
  double ans = pkm1 / qkm1, dans = (dpkm1 * qkm1 - pkm1 * dqkm1) / (qkm1 * qkm1);
  for (int it = 0; it < 2000; it++) {
    cnt += 1;
    y += 1;
    z += 2;
    double yc = y * cnt, dyc = -cnt;
    double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double dpk = dpkm1 * z - pkm1 - dpkm2 * yc - pkm2 * dyc, dqk = dqkm1 * z - qkm1 - dqkm2 * yc - qkm2 * dyc;
    bool done = false;
    if (qk != 0) {
      double r = pk / qk, dr = (dpk * qk - pk * dqk) / (qk * qk);
      done = fabs(ans - r) <= 1e-16 * fabs(r) && fabs(dans - dr) <= 1e-15 * fabs(dr);
      ans = r;
      dans = dr;
    }
    pkm2 = pkm1; pkm1 = pk; qkm2 = qkm1; qkm1 = qk;
    dpkm2 = dpkm1; dpkm1 = dpk; dqkm2 = dqkm1; dqkm1 = dqk;
    if (fabs(pk) > 0x1p+100) {   /* rescaled together: the ratios are unchanged */
      const double s = 0x1p-100;
      pkm2 *= s; pkm1 *= s; qkm2 *= s; qkm1 *= s;
      dpkm2 *= s; dpkm1 *= s; dqkm2 *= s; dqkm1 *= s;
    }
    if (done) break;
  }
  /* dQ/da / p(x) = x * (dans + ans * (log x - digamma(a))); dP/da = -dQ/da */
  return x * (dans + ans * (lx - digamma_d(a)));
}

/* broadcast of the two inputs, as the other binary ops */
void meta_random_gamma_grad(OpCall *c) {
  op_broadcast_meta(c, &c->inm[0], &c->inm[1], &c->outm[0]);
  c->outm[0].dtype = c->inm[0].dtype;
}

/* flat offset of output element i in an input of rank r (right-aligned against the output, size-1 dims repeat) */
static tfs_i64 bcast_offset(const Tensor *o, const Tensor *t, tfs_i64 i) {
  tfs_i64 off = 0, stride = 1;
  for (int d = o->rank - 1, e = t->rank - 1; d >= 0; d--, e--) {
    tfs_i64 k = i % o->shape[d];
    i /= o->shape[d];
    if (e < 0) continue;
    if (t->shape[e] != 1) off += k * stride;
    stride *= t->shape[e];
  }
  return off;
}

void k_random_gamma_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_random_gamma_grad)) return;
  Tensor *a = c->in[0], *x = c->in[1], *o = c->out[0];
  for (tfs_i64 i = 0; i < o->size; i++) {
    double v = gamma_sample_der_alpha(tensor_get_f(a, bcast_offset(o, a, i)), tensor_get_f(x, bcast_offset(o, x, i)));
    if (o->dtype == DT_FLOAT32) ((float *)tensor_data(o))[i] = (float)v;
    else ((double *)tensor_data(o))[i] = v;
  }
}
