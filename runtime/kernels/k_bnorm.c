/* k_bnorm.c — Keras BatchNormalization's training step over the last axis as one op (TfsBatchNormTrain) and its gradient in two passes (TfsBatchNormTrainGrad). */
#pragma GCC optimize("O3")
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"

/* The forward op computes what the layer's ops compute, in their order and roundings, so its outputs are their
 * bits: the mean as reduce_mean over every row of [M, C] (column sums in row order, then / M), the population
 * variance as the mean of squared_difference(x, mean), inv = 1 / sqrt(var + epsilon), scale = inv * gamma,
 * offset = -mean * scale + beta, y = x * scale + offset.  One pass for the sums, one for the squares, one for y
 * (split over rows by the pool: each element's value does not depend on the split).  Outputs: y, mean [C],
 * variance [C] (population: the layer applies Bessel's correction for the moving variance) and inv [C] for the
 * gradient.  The gradient op is the closed form of those ops' gradient (the mean's gradient through the offset,
 * the variance's with the mean held, as tf.nn.moments' stop_gradient): with xc = x - mean,
 * dx = (gamma inv) dy + xc (2 dvar / M - gamma inv^3 sum(dy xc) / M) + dmean / M - gamma inv sum(dy) / M,
 * d gamma = inv sum(dy xc), d beta = sum(dy): one pass for the two sums, one for dx. */

/* shape: x [..., C] with C known at run time; gamma/beta [C] when given */
void meta_bnorm(OpCall *c) {
  bool fwd = c->op->id == OP_BNORM_TRAIN;
  const TMeta *x = &c->inm[fwd ? 0 : 1];
  if (x->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "batch normalization: the input must have a channel axis, got a scalar");
  tfs_i64 C = x->rank > 0 ? x->shape[x->rank - 1] : -1;
  for (int i = fwd ? 1 : 2; i < c->nin; i++) {
    const TMeta *m = &c->inm[i];
    if (m->rank == TMETA_ABSENT || m->rank < 0) continue;
    if (m->rank != 1 || (C >= 0 && m->shape[0] >= 0 && m->shape[0] != C))
      /* errindex: batch normalization: input … must have shape [C] for C = …, got rank … */
      op_fail(c, ERR_INVALID_ARGUMENT, "batch normalization: input %d must have shape [C] for C = %lld, got rank %d", i,
              (long long)C, m->rank);
  }
  op_reserve_outputs(c, fwd ? 4 : 3);
  c->outm[0] = *x;
  for (int i = 1; i < (fwd ? 4 : 3); i++) meta_set(&c->outm[i], DT_FLOAT32, 1, &C);
}

typedef struct {
  const float *x, *dy, *mean, *k, *p, *q;
  float *y;
  tfs_i64 M, C;
} BnRows;

/* y = x * k + p (forward: k = scale, p = offset), or dx = dy * k + (x - mean) * q + p (gradient), rows of a part */
static void bn_rows(void *ctx, int part, int nparts) {
  const BnRows *b = ctx;
  tfs_i64 lo, hi, C = b->C;
  tp_slice(b->M, part, nparts, &lo, &hi);
  const float *restrict k = b->k, *restrict p = b->p;
  for (tfs_i64 r = lo; r < hi; r++) {
    const float *restrict x = b->x + r * C;
    float *restrict y = b->y + r * C;
    if (!b->dy) {
      for (tfs_i64 j = 0; j < C; j++) {
        float s = x[j] * k[j];
        y[j] = s + p[j];
      }
    } else {
      const float *restrict dy = b->dy + r * C, *restrict mean = b->mean, *restrict q = b->q;
      for (tfs_i64 j = 0; j < C; j++) {
        float a = dy[j] * k[j], e = (x[j] - mean[j]) * q[j];
        y[j] = (a + e) + p[j];
      }
    }
  }
}

static void bn_run(BnRows *b) {
  int np = tp_parts(b->M * b->C, TP_EW_MIN_PART);
  if (np > 1) tp_run(np, bn_rows, b);
  else bn_rows(b, 0, 1);
}

static const float *bn_in(OpCall *c, int i, Tensor **hold) {
  if (!c->in[i]) return NULL;
  *hold = tensor_contiguous(c->in[i]);
  return tensor_data(*hold);
}

static void bn_release(Tensor **h, int n) {
  for (int i = 0; i < n; i++)
    if (h[i]) tensor_release(h[i]);
}

static void bn_forward(OpCall *c) {
  Tensor *hx = NULL, *hg = NULL, *hb = NULL;
  const float *x = bn_in(c, 0, &hx), *gamma = bn_in(c, 1, &hg), *beta = bn_in(c, 2, &hb);
  float eps = (float)op_attr_float(c, 0, 0.001);
  tfs_i64 C = c->in[0]->shape[c->in[0]->rank - 1], M = C ? c->in[0]->size / C : 0;
  float *mean = tensor_data(c->out[1]), *var = tensor_data(c->out[2]), *inv = tensor_data(c->out[3]);
  float *w = malloc(sizeof(float) * (size_t)(2 * C + 1));
  if (!w) rt_throw(ERR_MEMORY, "out of memory");
  float *scale = w, *off = w + C;
  for (tfs_i64 j = 0; j < C; j++) mean[j] = var[j] = 0.0f;
  for (tfs_i64 r = 0; r < M; r++)
    for (tfs_i64 j = 0; j < C; j++) mean[j] = mean[j] + x[r * C + j];
  for (tfs_i64 j = 0; j < C; j++) mean[j] = M ? mean[j] / (float)M : NAN;
  for (tfs_i64 r = 0; r < M; r++)
    for (tfs_i64 j = 0; j < C; j++) {
      float d = x[r * C + j] - mean[j];
      var[j] = var[j] + d * d;
    }
  for (tfs_i64 j = 0; j < C; j++) {
    var[j] = M ? var[j] / (float)M : NAN;
    inv[j] = 1.0f / sqrtf(var[j] + eps);
    scale[j] = gamma ? inv[j] * gamma[j] : inv[j];
    off[j] = -mean[j] * scale[j];
    if (beta) off[j] = off[j] + beta[j];
  }
  BnRows b = {x, NULL, NULL, scale, off, NULL, tensor_data(c->out[0]), M, C};
  bn_run(&b);
  free(w);
  Tensor *h[3] = {hx, hg, hb};
  bn_release(h, 3);
}

/* inputs: dy, x, mean, inv, gamma (optional), and the gradients of the mean and variance outputs */
static void bn_backward(OpCall *c) {
  Tensor *h[7] = {0};
  const float *dy = bn_in(c, 0, &h[0]), *x = bn_in(c, 1, &h[1]), *mean = bn_in(c, 2, &h[2]), *inv = bn_in(c, 3, &h[3]);
  const float *gamma = bn_in(c, 4, &h[4]), *dmean = bn_in(c, 5, &h[5]), *dvar = bn_in(c, 6, &h[6]);
  tfs_i64 C = c->in[1]->shape[c->in[1]->rank - 1], M = C ? c->in[1]->size / C : 0;
  float *dg = tensor_data(c->out[1]), *db = tensor_data(c->out[2]);
  float *w = malloc(sizeof(float) * (size_t)(3 * C + 1));
  if (!w) rt_throw(ERR_MEMORY, "out of memory");
  float *k = w, *p = w + C, *q = w + 2 * C;
  /* dg holds sum(dy * xc) until the end, db sum(dy) */
  for (tfs_i64 j = 0; j < C; j++) dg[j] = db[j] = 0.0f;
  for (tfs_i64 r = 0; r < M; r++)
    for (tfs_i64 j = 0; j < C; j++) {
      float d = dy[r * C + j];
      db[j] = db[j] + d;
      dg[j] = dg[j] + d * (x[r * C + j] - mean[j]);
    }
  float fm = (float)M;
  for (tfs_i64 j = 0; j < C; j++) {
    float g = gamma ? gamma[j] : 1.0f;
    k[j] = g * inv[j];
    q[j] = -(k[j] * inv[j] * inv[j] * dg[j]) / fm;
    if (dvar) q[j] = q[j] + 2.0f * dvar[j] / fm;
    p[j] = -(k[j] * db[j]) / fm;
    if (dmean) p[j] = p[j] + dmean[j] / fm;
    dg[j] = inv[j] * dg[j];
  }
  BnRows b = {x, dy, mean, k, p, q, tensor_data(c->out[0]), M, C};
  bn_run(&b);
  free(w);
  bn_release(h, 7);
}

void k_bnorm(OpCall *c) {
  if (c->op->id == OP_BNORM_TRAIN) bn_forward(c);
  else bn_backward(c);
}
