/* k_rnn_simple.c — the Keras SimpleRNN layer's whole sequence as one op (TfsSimpleRNNSequence) and its backpropagation through time. */
#pragma GCC optimize("O3")
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/vmath.h"
#include "kernels/k_rnn.h"
#include "kernels/k_rnn_act.h"

/* As the LSTM's op (k_rnn.c): xp [T,B,H] is the input projected for every step (one MatMul made by the layer),
 * then per step one product h @ recurrent_kernel and h = act((xp_t + hU) + bias), which is SimpleRNNCell's step
 * op by op (same product routine, additions in its order, the elementwise kernels' activation bits).  Outputs:
 * hs [B,T,H] in step order, the last h [B,H], and act [T,B,nact*H]: with a mask or recurrent dropout each step's
 * product input (h, times the recurrent mask), which the gradient needs (nact = 1); without either nothing
 * (nact = 0: a step's output is in hs, its input state the previous output or h0); 0 steps with save=False. */
void meta_srnn_seq(OpCall *c) {
  bool fwd = c->op->id == OP_SRNN_SEQ;
  tfs_i64 b, t, h, g;
  rnn_dims(c, fwd, fwd ? 0 : 2, fwd ? 2 : 1, 1, "SimpleRNN", &b, &t, &h, &g);
  rnn_act_attr_simple(c, fwd ? 3 : 2, RNN_TANH);
  int mi = fwd ? 4 : 6, nact = rnn_masked(c, mi) ? 1 : 0;
  tfs_i64 s[3] = {b, t, h}, sa[3] = {t, b, h >= 0 ? nact * h : -1}, bh[2] = {b, h}, tb[2] = {t, b};
  rnn_need_shape(c, fwd ? 1 : 0, 2, bh, "SimpleRNN");
  rnn_need_shape(c, mi, 2, tb, "SimpleRNN");
  rnn_need_shape(c, mi + 1, 2, bh, "SimpleRNN");
  if (fwd) {
    rnn_need_shape(c, 3, 1, &h, "SimpleRNN");
    rnn_meta_outputs(c, 1, s, bh, sa);
    return;
  }
  /* the gradient: dxp [T,B,H], dh0, d recurrent_kernel, d bias */
  rnn_meta_grad(c, s, bh, sa, h, "SimpleRNN");
  meta_set(&c->outm[3], DT_FLOAT32, 1, &h);
}

/* one sequence's batch rows [lo, hi), every step (rows are independent: no barrier between steps) */
typedef struct {
  const float *xp, *bias, *u, *mask, *rk;
  float *h, *z, *q, *hs, *act;
  tfs_i64 B, T, H, nact;
  bool back, zero;
  RnnAct fn;
} SrnnSeq;

static void srnn_fwd_rows(void *ctx, int part, int nparts) {
  const SrnnSeq *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  /* the activation applies to a [B,H] tensor: a row's place decides which of its elements are packet lanes */
  tfs_i64 nvall = B * H - (B * H) % VM_PACKET;
  for (tfs_i64 s = 0; s < T; s++) {
    tfs_i64 t = p->back ? T - 1 - s : s;
    const float *hin = p->h;
    if (p->rk) {   /* recurrent dropout: the state entering the product times the kept units */
      for (tfs_i64 i = lo * H; i < hi * H; i++) p->q[i] = p->h[i] * p->rk[i];
      hin = p->q;
    }
    matmul_2d(DT_FLOAT32, p->z + lo * H, hin + lo * H, p->u, hi - lo, H, H, NULL, false);
    for (tfs_i64 b = lo; b < hi; b++) {
      float *out = p->hs + (b * T + s) * H;
      if (p->act) memcpy(p->act + (s * B + b) * H, hin + b * H, sizeof(float) * (size_t)H);
      if (p->mask && p->mask[t * B + b] == 0.0f) {
        /* skipped (Keras' backend.rnn): the state stays, the output repeats the previous one (zeros first) */
        if (p->zero || s == 0) memset(out, 0, sizeof(float) * (size_t)H);
        else memcpy(out, out - H, sizeof(float) * (size_t)H);
        continue;
      }
      const float *restrict x = p->xp + (t * B + b) * H, *restrict bias = p->bias;
      float *restrict zb = p->z + b * H;
      if (bias)
        for (tfs_i64 j = 0; j < H; j++) zb[j] = (x[j] + zb[j]) + bias[j];
      else
        for (tfs_i64 j = 0; j < H; j++) zb[j] = x[j] + zb[j];
      rnn_act_row(p->fn, p->h + b * H, zb, H, nvall - b * H);
      memcpy(out, p->h + b * H, sizeof(float) * (size_t)H);
    }
  }
}

static void srnn_forward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *xp = rnn_held(&hd, c->in[0]), *h0 = rnn_held(&hd, c->in[1]), *u = rnn_held(&hd, c->in[2]);
  const float *bias = rnn_held(&hd, rnn_opt_in(c, 3)), *mask = rnn_held(&hd, rnn_opt_in(c, 4)), *rk = rnn_held(&hd, rnn_opt_in(c, 5));
  bool back = op_attr_bool(c, 0, false), save = op_attr_bool(c, 1, true), zero = op_attr_bool(c, 2, false);
  tfs_i64 T = c->in[0]->shape[0], B = c->in[0]->shape[1], H = c->in[2]->shape[0];
  float *h = tensor_data(c->out[1]);
  /* scratch: the products [B,H] and h * recurrent_mask [B,H] */
  float *w = malloc(sizeof(float) * (size_t)(2 * B * H + 1));
  if (!w) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(h, h0, sizeof(float) * (size_t)(B * H));
  SrnnSeq st = {xp, bias, u, mask, rk, h, w, w + B * H, tensor_data(c->out[0]),
                save && (mask || rk) ? tensor_data(c->out[2]) : NULL, B, T, H, mask || rk ? 1 : 0, back, zero,
                rnn_act_attr_simple(c, 3, RNN_TANH)};
  int np = rnn_parts(B, T, H * H);
  if (np > 1) tp_run(np, srnn_fwd_rows, &st);
  else srnn_fwd_rows(&st, 0, 1);   /* not as a pool job: its products may still split */
  free(w);
  rnn_held_release(&hd);
}

/* Backpropagation through time for batch rows [lo, hi): per step (last first) dz = (dhs_t + dh) * act'(h_t) into
 * dxp's time-t block, the step's input state into hp (time order, as dxp), then dh = (dz @ U^T) * recurrent_mask */
typedef struct {
  const float *h0, *u, *hs, *act, *dhs, *mask, *rk;
  float *dxp, *hp, *dh, *e, *dout;
  tfs_i64 B, T, H, nact;
  bool back, zero;
  RnnAct fn;
} SrnnBack;

static bool srnn_skipped(const SrnnBack *p, tfs_i64 t, tfs_i64 b) { return p->mask && p->mask[t * p->B + b] == 0.0f; }

static void srnn_bwd_rows(void *ctx, int part, int nparts) {
  const SrnnBack *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  float *dh = p->dh, *dout = p->dout;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    tfs_i64 t = p->back ? T - 1 - s : s;
    for (tfs_i64 b = lo; b < hi; b++) {
      float *x = p->dxp + (t * B + b) * H, *hpr = p->hp + (t * B + b) * H;
      const float *hin = p->nact ? p->act + (s * B + b) * H : s ? p->hs + (b * T + s - 1) * H : p->h0 + b * H;
      memcpy(hpr, hin, sizeof(float) * (size_t)H);
      if (srnn_skipped(p, t, b)) {
        /* no step: the state's gradient passes; the output's goes to the previous output unless that was zeros */
        memset(x, 0, sizeof(float) * (size_t)H);
        for (tfs_i64 j = 0; j < H; j++)
          dout[b * H + j] = p->zero ? 0.0f : (p->dhs ? p->dhs[(b * T + s) * H + j] : 0.0f) + dout[b * H + j];
        continue;
      }
      const float *y = p->hs + (b * T + s) * H;
      for (tfs_i64 j = 0; j < H; j++) {
        float dhv = p->dhs ? p->dhs[(b * T + s) * H + j] + dh[b * H + j] : dh[b * H + j];
        if (p->mask) dhv += dout[b * H + j], dout[b * H + j] = 0.0f;
        x[j] = dhv * rnn_act_dy(p->fn, y[j]);
      }
    }
    matmul_any(DT_FLOAT32, p->e + lo * H, p->dxp + (t * B + lo) * H, p->u, hi - lo, H, H, false, true);
    for (tfs_i64 b = lo; b < hi; b++) {
      if (srnn_skipped(p, t, b)) continue;
      const float *e = p->e + b * H, *k = p->rk ? p->rk + b * H : NULL;
      for (tfs_i64 j = 0; j < H; j++) dh[b * H + j] = k ? e[j] * k[j] : e[j];
    }
  }
}

/* Inputs: h0, recurrent_kernel, hs, act, the gradients of hs and h_last (None: zeros), mask, recurrent_mask;
 * outputs dxp, dh0, d recurrent_kernel (ONE product hp^T @ dxp over all steps) and d bias (dxp's column sums). */
static void srnn_backward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *h0 = rnn_held(&hd, c->in[0]), *u = rnn_held(&hd, c->in[1]), *hs = rnn_held(&hd, c->in[2]);
  const float *act = rnn_held(&hd, c->in[3]), *dhs = rnn_held(&hd, rnn_opt_in(c, 4)), *dhl = rnn_held(&hd, rnn_opt_in(c, 5));
  const float *mask = rnn_held(&hd, rnn_opt_in(c, 6)), *rk = rnn_held(&hd, rnn_opt_in(c, 7));
  bool back = op_attr_bool(c, 0, false), zero = op_attr_bool(c, 1, false);
  tfs_i64 B = c->in[2]->shape[0], T = c->in[2]->shape[1], H = c->in[1]->shape[0], N = T * B;
  float *dxp = tensor_data(c->out[0]), *dh0 = tensor_data(c->out[1]), *du = tensor_data(c->out[2]), *db = tensor_data(c->out[3]);
  /* hp [T,B,H] and dh, e, dout [B,H]: a pooled tensor, which a steady training loop reuses (as the LSTM's) */
  tfs_i64 nw = N * H + 3 * B * H;
  Tensor *wt = tensor_new(DT_FLOAT32, 1, &nw);
  float *hp = tensor_data(wt), *dh = hp + N * H, *e = dh + B * H, *dout = e + B * H;
  if (dhl) memcpy(dh, dhl, sizeof(float) * (size_t)(B * H));
  else memset(dh, 0, sizeof(float) * (size_t)(B * H));
  memset(dout, 0, sizeof(float) * (size_t)(B * H));
  SrnnBack st = {h0, u, hs, act, dhs, mask, rk, dxp, hp, dh, e, dout, B, T, H, mask || rk ? 1 : 0, back, zero,
                 rnn_act_attr_simple(c, 2, RNN_TANH)};
  int np = rnn_parts(B, T, H * H);
  if (np > 1) tp_run(np, srnn_bwd_rows, &st);
  else if (B > 0) srnn_bwd_rows(&st, 0, 1);
  memcpy(dh0, dh, sizeof(float) * (size_t)(B * H));
  if (N > 0 && H > 0) matmul_any(DT_FLOAT32, du, hp, dxp, H, H, N, true, false);
  else memset(du, 0, sizeof(float) * (size_t)(H * H));
  rnn_col_sums(db, dxp, N, H);
  tensor_release(wt);
  rnn_held_release(&hd);
}

void k_srnn_seq(OpCall *c) {
  if (c->op->id == OP_SRNN_SEQ) srnn_forward(c);
  else srnn_backward(c);
}
