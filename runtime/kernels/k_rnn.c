/* k_rnn.c — the Keras LSTM and GRU layers' whole sequences as one op each (TfsLSTMSequence, TfsGRUSequence) and their backpropagation through time. */
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

/* The forward op takes the input already projected for every step (one MatMul of [B*T, F] by the kernel, made
 * by the layer), then per step one product h @ recurrent_kernel for all four gates (Keras' order i, f, g, o) and
 * the gates, cell and output in one loop.  Each value is what the layer's op-by-op step computes: the same
 * product routine, (xp + hU) + bias, the sigmoid and tanh of the elementwise kernels (through double, rounded
 * once), f*c + i*g with each product rounded: the outputs are the same bits.  Outputs: hs [B,T,H] in step
 * order (reversed in time with go_backwards, as Keras returns them), the last h and c [B,H], and for the
 * gradient the cells cs [T,B,H] and activations [T,B,5H] (i, f, g, o, tanh c) of every step, step-major so
 * that each step writes and reads one contiguous block; with save=False (inference) those two have 0 steps and
 * each step's activations go to one reused block [B,5H], which stays in cache. */

static tfs_i64 dim_or(const TMeta *m, int d) { return m->rank > d ? m->shape[d] : -1; }

/* input i must have shape want (unknown dims on either side pass): the kernels index by these sizes */
void rnn_need_shape(OpCall *c, int i, int rank, const tfs_i64 *want, const char *layer) {
  if (i >= c->nin) return;   /* an optional input a caller (op_run) left off */
  const TMeta *m = &c->inm[i];
  if (m->rank == TMETA_ABSENT || m->rank < 0) return;
  bool ok = m->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = m->shape[d] < 0 || want[d] < 0 || m->shape[d] == want[d];
  if (!ok) {
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s sequence: input %d must have shape ", layer, i);
    op_shape_text(&sb, rank, want);
    sb_puts(&sb, ", got ");
    op_shape_text(&sb, m->rank, m->shape);
    /* errindex: LSTM sequence: input … must have shape …, got … */
    /* errindex: GRU sequence: input … must have shape …, got … */
    /* errindex: SimpleRNN sequence: input … must have shape …, got … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &sb);
  }
}

/* The batch, steps, units and gate columns of a fused recurrent op from its sequence (input xi: xp [T,B,k*H] for
 * the forward op, hs [B,T,H] for the gradient) and recurrent kernel (input ui, [H, k*H]), -1 where unknown. */
void rnn_dims(OpCall *c, bool fwd, int xi, int ui, int k, const char *layer, tfs_i64 *b, tfs_i64 *t, tfs_i64 *h,
              tfs_i64 *g) {
  const TMeta *xs = &c->inm[xi], *u = &c->inm[ui];
  if (xs->rank >= 0 && xs->rank != 3) op_fail(c, ERR_INVALID_ARGUMENT, "%s sequence: inputs must be 3-D, got rank %d", layer, xs->rank);
  if (u->rank >= 0 && u->rank != 2) op_fail(c, ERR_INVALID_ARGUMENT, "%s sequence: recurrent_kernel must be 2-D, got rank %d", layer, u->rank);
  *b = dim_or(xs, fwd ? 1 : 0), *t = dim_or(xs, fwd ? 0 : 1), *h = dim_or(u, 0), *g = *h >= 0 ? k * *h : -1;
  if (*h >= 0 && u->shape[1] >= 0 && u->shape[1] != *g)
    op_fail(c, ERR_INVALID_ARGUMENT, "%s sequence: recurrent_kernel must be [units, %d * units]", layer, k);
  if (fwd && *h >= 0 && xs->rank == 3 && xs->shape[2] >= 0 && xs->shape[2] != *g)
    op_fail(c, ERR_INVALID_ARGUMENT, "%s sequence: xp must have %d * units columns", layer, k);
}

/* whether a fused recurrent op has a mask or recurrent dropout mask (inputs mi, mi + 1) */
bool rnn_masked(const OpCall *c, int mi) {
  for (int i = mi; i < mi + 2 && i < c->nin; i++)
    if (c->inm[i].rank != TMETA_ABSENT) return true;
  return false;
}

/* shape: xp [T,B,4H] (time-major: each step reads one block), h0 / c0 [B,H], recurrent_kernel [H,4H], bias [4H] (optional); the gradient's inputs are
 * h0, c0, recurrent_kernel, then the forward outputs and their gradients (hs [B,T,H] first). */
void meta_lstm_seq(OpCall *c) {
  bool fwd = c->op->id == OP_LSTM_SEQ;
  tfs_i64 b, t, h, g;
  rnn_dims(c, fwd, fwd ? 0 : 3, fwd ? 3 : 2, 4, "LSTM", &b, &t, &h, &g);
  rnn_act_attr(c, fwd ? 3 : 2, RNN_TANH);
  rnn_act_attr(c, fwd ? 4 : 3, RNN_SIGMOID);
  const TMeta *u = &c->inm[fwd ? 3 : 2];
  /* with a mask or recurrent dropout each step's activations also keep the product's input (the state h, masked) */
  int mi = fwd ? 5 : 9, nact = rnn_masked(c, mi) ? 6 : 5;
  tfs_i64 s[3] = {b, t, h}, sc[3] = {t, b, h}, s5[3] = {t, b, h >= 0 ? nact * h : -1}, bh[2] = {b, h}, tb[2] = {t, b};
  rnn_need_shape(c, fwd ? 1 : 0, 2, bh, "LSTM");
  rnn_need_shape(c, fwd ? 2 : 1, 2, bh, "LSTM");
  rnn_need_shape(c, mi, 2, tb, "LSTM");
  rnn_need_shape(c, mi + 1, 2, bh, "LSTM");
  if (fwd) rnn_need_shape(c, 4, 1, &g, "LSTM");
  else {
    for (int i = 3; i < 7; i++) rnn_need_shape(c, i, 3, i == 5 ? s5 : i == 4 ? sc : s, "LSTM");
    rnn_need_shape(c, 7, 2, bh, "LSTM");
    rnn_need_shape(c, 8, 2, bh, "LSTM");
  }
  if (fwd) {
    if (!op_attr_bool(c, 1, true)) sc[0] = s5[0] = 0;
    op_reserve_outputs(c, 5);
    meta_set(&c->outm[0], DT_FLOAT32, 3, s);
    meta_set(&c->outm[1], DT_FLOAT32, 2, bh);
    meta_set(&c->outm[2], DT_FLOAT32, 2, bh);
    meta_set(&c->outm[3], DT_FLOAT32, 3, sc);
    meta_set(&c->outm[4], DT_FLOAT32, 3, s5);
    return;
  }
  /* the gradient: dxp, dh0, dc0, d recurrent_kernel, d bias */
  op_reserve_outputs(c, 5);
  sc[2] = g;
  meta_set(&c->outm[0], DT_FLOAT32, 3, sc);
  c->outm[1] = c->inm[0];
  c->outm[2] = c->inm[1];
  c->outm[3] = *u;
  meta_set(&c->outm[4], DT_FLOAT32, 1, &g);
}

/* A GRU's or SimpleRNN's forward outputs hs [B,T,H], h_last [B,H], act [T,B,k*H] (0 steps without save: attribute
 * si false) */
void rnn_meta_outputs(OpCall *c, int si, const tfs_i64 *s, const tfs_i64 *bh, tfs_i64 *sa) {
  if (!op_attr_bool(c, si, true)) sa[0] = 0;
  op_reserve_outputs(c, 3);
  meta_set(&c->outm[0], DT_FLOAT32, 3, s);
  meta_set(&c->outm[1], DT_FLOAT32, 2, bh);
  meta_set(&c->outm[2], DT_FLOAT32, 3, sa);
}

/* A GRU's or SimpleRNN's gradient op (inputs h0, recurrent_kernel, hs, act, dhs, dh_last): the inputs' shapes, then
 * its outputs dxp [T,B,g], dh0, d recurrent_kernel; the caller sets d bias (output 3) */
void rnn_meta_grad(OpCall *c, const tfs_i64 *s, const tfs_i64 *bh, tfs_i64 *sa, tfs_i64 g, const char *layer) {
  rnn_need_shape(c, 2, 3, s, layer);
  rnn_need_shape(c, 3, 3, sa, layer);
  rnn_need_shape(c, 4, 3, s, layer);
  rnn_need_shape(c, 5, 2, bh, layer);
  op_reserve_outputs(c, 4);
  sa[2] = g;
  meta_set(&c->outm[0], DT_FLOAT32, 3, sa);
  c->outm[1] = c->inm[0];
  c->outm[2] = c->inm[1];
}

/* input i, NULL when absent or beyond the inputs given (op_run callers may give only the leading ones) */
Tensor *rnn_opt_in(const OpCall *c, int i) { return i < c->nin ? c->in[i] : NULL; }

const float *rnn_held(RnnHeld *hd, Tensor *t) {
  if (!t) return NULL;
  hd->t[hd->n] = tensor_contiguous(t);
  return tensor_data(hd->t[hd->n++]);
}
void rnn_held_release(RnnHeld *hd) {
  for (int i = 0; i < hd->n; i++) tensor_release(hd->t[i]);
}

/* The whole sequence for batch rows [lo, hi): a row's recurrence reads only its own h and c, so each part runs
 * every step of its rows (its slice of the product h @ recurrent_kernel, then the gates) with no barrier
 * between steps: one thread-pool job per sequence instead of two per step, whose hand-offs cost more than
 * a step's 64x256x64 product saved (docs/performance.md, "Splitting products by shape"). */
typedef struct {
  const float *xp, *bias, *u, *mask, *rk;
  float *h, *cc, *z, *hs, *cs, *act, *q;
  tfs_i64 B, T, H, nact;   /* nact: 6 with a mask or recurrent dropout (the product's input kept), else 5 */
  bool back, zero;
  RnnAct fn, rfn;          /* activation (g and the cell's output), recurrent activation (i, f, o) */
} LstmSeq;

/* A step skipped by the mask (Keras' backend.rnn): the states stay, the output is the previous step's output (or
 * zeros with zero_output_for_mask, and before any step); its activations are zeros, which the gradient skips. */
static void lstm_skip(const LstmSeq *p, float *a, tfs_i64 s, tfs_i64 b) {
  tfs_i64 H = p->H, T = p->T;
  float *hs = p->hs + (b * T + s) * H;
  if (p->zero || s == 0) memset(hs, 0, sizeof(float) * (size_t)H);
  else memcpy(hs, hs - H, sizeof(float) * (size_t)H);
  memset(a, 0, sizeof(float) * (size_t)(5 * H));
  if (p->cs) memcpy(p->cs + (s * p->B + b) * H, p->cc + b * H, sizeof(float) * (size_t)H);
}

static void lstm_gates(const LstmSeq *p, tfs_i64 s, tfs_i64 t, tfs_i64 lo, tfs_i64 hi) {
  tfs_i64 H = p->H, G = 4 * H, T = p->T, B = p->B, na = p->nact;
  float *act = p->act + (p->cs ? s * B * na * H : 0);
  /* restrict locals: the loops below vectorise only when the compiler knows the buffers apart */
  for (tfs_i64 b = lo; b < hi; b++) {
    float *restrict a = act + b * na * H;
    if (na == 6) memcpy(a + 5 * H, (p->rk ? p->q : p->h) + b * H, sizeof(float) * (size_t)H);
    if (p->mask && p->mask[t * B + b] == 0.0f) {
      lstm_skip(p, a, s, b);
      continue;
    }
    const float *restrict x = p->xp + (t * B + b) * G, *restrict bias = p->bias;
    float *restrict zb = p->z + b * G;
    if (bias)
      for (tfs_i64 j = 0; j < G; j++) zb[j] = (x[j] + zb[j]) + bias[j];
    else
      for (tfs_i64 j = 0; j < G; j++) zb[j] = x[j] + zb[j];
    /* the vector loops of vmath.c over a row's gates, with the elementwise kernels' bits: TF applies each
     * sigmoid to a [B, H] gate, whose last B*H % 8 elements take Eigen's scalar formula */
    tfs_i64 nv = B * H - (B * H) % VM_PACKET - b * H;
    if (nv >= H) rnn_act_row(p->rfn, a, zb, 2 * H, 2 * H);
    else {
      rnn_act_row(p->rfn, a, zb, H, nv);
      rnn_act_row(p->rfn, a + H, zb + H, H, nv);
    }
    rnn_act_row(p->fn, a + 2 * H, zb + 2 * H, H, nv);
    rnn_act_row(p->rfn, a + 3 * H, zb + 3 * H, H, nv);
    float *restrict cc = p->cc + b * H;
    for (tfs_i64 j = 0; j < H; j++) {
      float fc = a[H + j] * cc[j], ig = a[j] * a[2 * H + j];
      cc[j] = fc + ig;
    }
    rnn_act_row(p->fn, a + 4 * H, cc, H, nv);
    float *restrict h = p->h + b * H, *restrict hs = p->hs + (b * T + s) * H;
    for (tfs_i64 j = 0; j < H; j++) h[j] = a[3 * H + j] * a[4 * H + j];
    memcpy(hs, h, sizeof(float) * (size_t)H);
    if (p->cs) memcpy(p->cs + (s * B + b) * H, cc, sizeof(float) * (size_t)H);
    /* swish, gelu: the gradient's derivative needs the gates' pre-activations, kept in place of their outputs (the
     * cell's own is cs) */
    if (rnn_act_pre(p->rfn)) {
      memcpy(a, zb, sizeof(float) * (size_t)(2 * H));
      memcpy(a + 3 * H, zb + 3 * H, sizeof(float) * (size_t)H);
    }
    if (rnn_act_pre(p->fn)) memcpy(a + 2 * H, zb + 2 * H, sizeof(float) * (size_t)H);
  }
}

static void lstm_fwd_rows(void *ctx, int part, int nparts) {
  const LstmSeq *p = ctx;
  tfs_i64 H = p->H, G = 4 * H, lo, hi;
  tp_slice(p->B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  for (tfs_i64 s = 0; s < p->T; s++) {
    const float *hin = p->h;
    if (p->rk) {   /* recurrent dropout: the product of the state times the kept units (the layer's h * mask) */
      for (tfs_i64 i = lo * H; i < hi * H; i++) p->q[i] = p->h[i] * p->rk[i];
      hin = p->q;
    }
    matmul_2d(DT_FLOAT32, p->z + lo * G, hin + lo * H, p->u, hi - lo, G, H, NULL, false);
    lstm_gates(p, s, p->back ? p->T - 1 - s : s, lo, hi);
  }
}

/* Parts of a sequence's batch: one per thread (each runs all steps, so more would only shorten the product's
 * rows), at least 4 rows each, and none for a sequence too small to pay for a hand-off. */
int rnn_parts(tfs_i64 B, tfs_i64 T, tfs_i64 hh) {
  int np = tp_parts(T * B * hh, (tfs_i64)1 << 15);
  int most = tp_threads();
  if (np > most) np = most;
  if (np > B / 4) np = (int)(B / 4);
  return np < 1 ? 1 : np;
}

static void lstm_forward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *xp = rnn_held(&hd, c->in[0]), *h0 = rnn_held(&hd, c->in[1]), *c0 = rnn_held(&hd, c->in[2]), *u = rnn_held(&hd, c->in[3]);
  const float *bias = rnn_held(&hd, c->in[4]), *mask = rnn_held(&hd, rnn_opt_in(c, 5)), *rk = rnn_held(&hd, rnn_opt_in(c, 6));
  bool back = op_attr_bool(c, 0, false), save = op_attr_bool(c, 1, true), zero = op_attr_bool(c, 2, false);
  tfs_i64 T = c->in[0]->shape[0], B = c->in[0]->shape[1], H = c->in[3]->shape[0], G = 4 * H, na = mask || rk ? 6 : 5;
  float *h = tensor_data(c->out[1]), *cc = tensor_data(c->out[2]);   /* the states, last ones at the end */
  /* the gates' sums [B,4H], h * recurrent_mask [B,H], and without save one step's activations [B,nact*H] */
  float *z = malloc(sizeof(float) * (size_t)(B * G + B * H + (save ? 0 : B * na * H) + 1));
  if (!z) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(h, h0, sizeof(float) * (size_t)(B * H));
  memcpy(cc, c0, sizeof(float) * (size_t)(B * H));
  LstmSeq st = {xp, bias, u, mask, rk, h, cc, z, tensor_data(c->out[0]), save ? tensor_data(c->out[3]) : NULL,
                save ? tensor_data(c->out[4]) : z + B * G + B * H, z + B * G, B, T, H, na, back, zero,
                rnn_act_attr(c, 3, RNN_TANH), rnn_act_attr(c, 4, RNN_SIGMOID)};
  int np = rnn_parts(B, T, 4 * H * H);
  if (np > 1) tp_run(np, lstm_fwd_rows, &st);
  else lstm_fwd_rows(&st, 0, 1);   /* not as a pool job: its products may still split */
  free(z);
  rnn_held_release(&hd);
}

/* Backpropagation through time for batch rows [lo, hi) (independent as in the forward pass): per step (last
 * first) the gate gradients dz in one loop, then the recurrent gradient dz @ recurrent_kernel^T of its rows. */
typedef struct {
  const float *h0, *c0, *u, *hs, *cs, *act, *dhs, *mask, *rk;
  float *dxp, *dz, *hp, *dh, *dc, *e, *dout;
  tfs_i64 B, T, H, nact;
  bool back, zero;
  RnnAct fn, rfn;
} LstmBack;

/* With a mask or recurrent dropout: dh_prev is (dz @ U^T) * recurrent_mask for a step that ran, dh itself for a
 * skipped one (whose state passed through), from e = dz @ U^T of rows [lo, hi) */
static void lstm_bwd_dh(const LstmBack *p, tfs_i64 t, tfs_i64 lo, tfs_i64 hi) {
  tfs_i64 H = p->H;
  for (tfs_i64 b = lo; b < hi; b++) {
    if (p->mask && p->mask[t * p->B + b] == 0.0f) continue;
    float *dh = p->dh + b * H;
    const float *e = p->e + b * H, *k = p->rk ? p->rk + b * H : NULL;
    for (tfs_i64 j = 0; j < H; j++) dh[j] = k ? e[j] * k[j] : e[j];
  }
}

static void lstm_bwd_rows(void *ctx, int part, int nparts) {
  const LstmBack *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, G = 4 * H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo) return;
  const float *h0 = p->h0, *c0 = p->c0, *hs = p->hs, *cs = p->cs, *act = p->act, *dhs = p->dhs;
  float *dz = p->dz, *hp = p->hp, *dh = p->dh, *dc = p->dc, *dxp = p->dxp, *dout = p->dout;
  tfs_i64 na = p->nact;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    tfs_i64 t = p->back ? T - 1 - s : s;
    for (tfs_i64 b = lo; b < hi; b++) {
      const float *a = act + (s * B + b) * na * H;
      float *z = dz + (s * B + b) * G, *x = dxp + (t * B + b) * G;
      if (p->mask && p->mask[t * B + b] == 0.0f) {
        /* skipped: no gate gradient; the output's gradient goes to the previous output unless it was zeros */
        memset(z, 0, sizeof(float) * (size_t)G);
        memset(x, 0, sizeof(float) * (size_t)G);
        memcpy(hp + (s * B + b) * H, a + 5 * H, sizeof(float) * (size_t)H);
        for (tfs_i64 j = 0; j < H; j++) dout[b * H + j] = p->zero ? 0.0f : dhs[(b * T + s) * H + j] + dout[b * H + j];
        continue;
      }
      for (tfs_i64 j = 0; j < H; j++) {
        tfs_i64 k = (b * T + s) * H + j;
        float i, f, g, o, xi, xf, xg, xo, tc = a[4 * H + j], xc = cs[(s * B + b) * H + j];
        rnn_act_at(p->rfn, a[j], &i, &xi);
        rnn_act_at(p->rfn, a[H + j], &f, &xf);
        rnn_act_at(p->fn, a[2 * H + j], &g, &xg);
        rnn_act_at(p->rfn, a[3 * H + j], &o, &xo);
        float cp = s ? cs[((s - 1) * B + b) * H + j] : c0[b * H + j];
        float dhv = dhs[k] + dh[b * H + j];
        if (dout) dhv += dout[b * H + j], dout[b * H + j] = 0.0f;
        float dcv = dc[b * H + j] + rnn_act_grad(p->fn, dhv * o, tc, xc);
        z[j] = rnn_act_grad(p->rfn, dcv * g, i, xi);
        z[H + j] = rnn_act_grad(p->rfn, dcv * cp, f, xf);
        z[2 * H + j] = rnn_act_grad(p->fn, dcv * i, g, xg);
        z[3 * H + j] = rnn_act_grad(p->rfn, dhv * tc, o, xo);
        dc[b * H + j] = dcv * f;
        hp[(s * B + b) * H + j] = na == 6 ? a[5 * H + j] : s ? hs[k - H] : h0[b * H + j];
      }
      memcpy(x, z, sizeof(float) * (size_t)G);
    }
    if (H <= 0) continue;
    if (na == 5) matmul_any(DT_FLOAT32, dh + lo * H, dz + (s * B + lo) * G, p->u, hi - lo, H, G, false, true);
    else {
      matmul_any(DT_FLOAT32, p->e + lo * H, dz + (s * B + lo) * G, p->u, hi - lo, H, G, false, true);
      lstm_bwd_dh(p, t, lo, hi);
    }
  }
}

/* From the forward op's saved outputs: the rows' recurrences above, then the recurrent kernel's gradient as
 * ONE product over all steps (h_prev^T [H, T*B] @ dz [T*B, 4H]) and the bias's as sums in a fixed order.
 * Inputs: h0, c0, recurrent_kernel, hs, cs, act, and the gradients of hs, h_last and c_last (those of cs and
 * act are not taken: the layer reads them only for this op). */
static void lstm_backward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *h0 = rnn_held(&hd, c->in[0]), *c0 = rnn_held(&hd, c->in[1]), *u = rnn_held(&hd, c->in[2]), *hs = rnn_held(&hd, c->in[3]);
  const float *cs = rnn_held(&hd, c->in[4]), *act = rnn_held(&hd, c->in[5]), *dhs = rnn_held(&hd, c->in[6]), *dhl = rnn_held(&hd, c->in[7]);
  const float *dcl = rnn_held(&hd, c->in[8]), *mask = rnn_held(&hd, rnn_opt_in(c, 9)), *rk = rnn_held(&hd, rnn_opt_in(c, 10));
  bool back = op_attr_bool(c, 0, false), zero = op_attr_bool(c, 1, false);
  tfs_i64 B = c->in[3]->shape[0], T = c->in[3]->shape[1], H = c->in[2]->shape[0], G = 4 * H, na = mask || rk ? 6 : 5;
  float *dxp = tensor_data(c->out[0]), *dh0 = tensor_data(c->out[1]), *dc0 = tensor_data(c->out[2]);
  float *du = tensor_data(c->out[3]), *db = tensor_data(c->out[4]);
  /* dz by step [T, B, 4H] and h_prev by step [T, B, H], contiguous for the final product: megabytes each call, as
   * a tensor whose pooled buffer a steady training loop reuses (as the GRU's scratch) */
  tfs_i64 nw = T * B * G + T * B * H + 4 * B * H;
  Tensor *wt = tensor_new(DT_FLOAT32, 1, &nw);
  float *dz = tensor_data(wt);
  float *hp = dz + T * B * G, *dh = hp + T * B * H, *dc = dh + B * H, *e = dc + B * H, *dout = e + B * H;
  memcpy(dh, dhl, sizeof(float) * (size_t)(B * H));
  memcpy(dc, dcl, sizeof(float) * (size_t)(B * H));
  memset(dout, 0, sizeof(float) * (size_t)(B * H));
  LstmBack st = {h0, c0, u, hs, cs, act, dhs, mask, rk, dxp, dz, hp, dh, dc, e, mask ? dout : NULL, B, T, H, na, back, zero,
                 rnn_act_attr(c, 2, RNN_TANH), rnn_act_attr(c, 3, RNN_SIGMOID)};
  int np = rnn_parts(B, T, 4 * H * H);
  if (np > 1) tp_run(np, lstm_bwd_rows, &st);
  else if (B > 0) lstm_bwd_rows(&st, 0, 1);
  memcpy(dh0, dh, sizeof(float) * (size_t)(B * H));
  memcpy(dc0, dc, sizeof(float) * (size_t)(B * H));
  if (T * B > 0 && H > 0) matmul_any(DT_FLOAT32, du, hp, dz, H, G, T * B, true, false);
  else memset(du, 0, sizeof(float) * (size_t)(H * G));
  for (tfs_i64 j = 0; j < G; j++) db[j] = 0.0f;
  for (tfs_i64 r = 0; r < T * B; r++)
    for (tfs_i64 j = 0; j < G; j++) db[j] += dz[r * G + j];
  tensor_release(wt);
  rnn_held_release(&hd);
}

void k_lstm_seq(OpCall *c) {
  if (c->op->id == OP_LSTM_SEQ) lstm_forward(c);
  else lstm_backward(c);
}

/* ---- GRU ----
 * TfsGRUSequence runs a Keras GRU layer's whole sequence the same way: xp [T,B,3H] (time-major, the input
 * projected for every step by one MatMul, without bias), h0 [B,H], recurrent_kernel [H,3H] (gates z, r, h as
 * Keras orders them, which is also ONNX's order), bias [2,3H] (reset_after: input and recurrent biases) or [3H].
 * reset_after (the default, cuDNN's form): one product h @ U for the three gates, hh = tanh(x_h + r * (hU_h + b1_h));
 * reset_after=False: h @ U[:, :2H] for z and r, then hh = tanh(x_h + (r * h) @ U[:, 2H:]), a second product.
 * Each value is what GRUCell.step computes op by op, in its order and roundings: (xp + b0) + (hU + b1), the
 * elementwise kernels' sigmoid (each row in its place of the [B,H] gate tensor) and tanh, z*h + (1-z)*hh.
 * Outputs: hs [B,T,H] in step order, the last h [B,H], and for the gradient the activations [T,B,4H] of every
 * step (z, r, hh, q where q is hU_h + b1_h with reset_after, r * h_prev without), 0 steps with save=False. */
void meta_gru_seq(OpCall *c) {
  bool fwd = c->op->id == OP_GRU_SEQ, after = op_attr_bool(c, 1, true);
  tfs_i64 b, t, h, g;
  rnn_dims(c, fwd, fwd ? 0 : 2, fwd ? 2 : 1, 3, "GRU", &b, &t, &h, &g);
  rnn_act_attr(c, fwd ? 4 : 3, RNN_TANH);
  rnn_act_attr(c, fwd ? 5 : 4, RNN_SIGMOID);
  /* with a mask or recurrent dropout each step's activations also keep the step's input state (h, masked) */
  int mi = fwd ? 4 : 6, nact = rnn_masked(c, mi) ? 5 : 4;
  tfs_i64 s[3] = {b, t, h}, s4[3] = {t, b, h >= 0 ? nact * h : -1}, bh[2] = {b, h}, b2[2] = {2, g}, tb[2] = {t, b};
  rnn_need_shape(c, fwd ? 1 : 0, 2, bh, "GRU");
  rnn_need_shape(c, mi, 2, tb, "GRU");
  rnn_need_shape(c, mi + 1, 2, bh, "GRU");
  if (fwd) {
    rnn_need_shape(c, 3, after ? 2 : 1, after ? b2 : &g, "GRU");
    rnn_meta_outputs(c, 2, s, bh, s4);
    return;
  }
  rnn_meta_grad(c, s, bh, s4, g, "GRU");
  if (after) meta_set(&c->outm[3], DT_FLOAT32, 2, b2);
  else meta_set(&c->outm[3], DT_FLOAT32, 1, &g);
}

/* one sequence's batch rows [lo, hi), every step (as lstm_fwd_rows) */
typedef struct {
  const float *xp, *b0, *b1, *u, *uzr, *uh, *mask, *rk;
  float *h, *rec, *pre, *q, *hs, *act, *hq;
  tfs_i64 B, T, H, nact;   /* nact: 5 with a mask or recurrent dropout (the step's input state kept), else 4 */
  bool back, after, save, zero;
  RnnAct fn, rfn;          /* activation (the candidate hh), recurrent activation (z, r) */
} GruSeq;

static void gru_fwd_rows(void *ctx, int part, int nparts) {
  const GruSeq *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, G = 3 * H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  tfs_i64 nvall = B * H - (B * H) % VM_PACKET;
  /* reset_after=False: h @ U[:, :2H] in rec [B,2H], (r*h) @ U[:, 2H:] in rh [B,H] after it */
  float *rh = p->rec + B * 2 * H;
  tfs_i64 na = p->nact;
  for (tfs_i64 s = 0; s < T; s++) {
    tfs_i64 t = p->back ? T - 1 - s : s;
    float *act = p->act + (p->save ? s * B * na * H : 0);
    /* the step's input state: h, or h times recurrent dropout's kept units (Keras' h_tm1 *= rec_dp_mask) */
    float *hin = p->h;
    if (p->rk) {
      for (tfs_i64 i = lo * H; i < hi * H; i++) p->hq[i] = p->h[i] * p->rk[i];
      hin = p->hq;
    }
    if (p->after) matmul_2d(DT_FLOAT32, p->rec + lo * G, hin + lo * H, p->u, hi - lo, G, H, NULL, false);
    else matmul_2d(DT_FLOAT32, p->rec + lo * 2 * H, hin + lo * H, p->uzr, hi - lo, 2 * H, H, NULL, false);
    for (tfs_i64 b = lo; b < hi; b++) {
      const float *restrict x = p->xp + (t * B + b) * G, *restrict b0 = p->b0, *restrict b1 = p->b1;
      float *restrict r3 = p->rec + b * (p->after ? G : 2 * H), *restrict pr = p->pre + b * G;
      float *restrict a = act + b * na * H, *restrict h = hin + b * H;
      if (b0)
        for (tfs_i64 j = 0; j < G; j++) pr[j] = x[j] + b0[j];
      else memcpy(pr, x, sizeof(float) * (size_t)G);
      if (p->after && b1)
        for (tfs_i64 j = 0; j < G; j++) r3[j] = r3[j] + b1[j];
      for (tfs_i64 j = 0; j < 2 * H; j++) pr[j] = pr[j] + r3[j];
      /* z and r are two [B,H] tensors in the op-by-op steps: each row's place decides packet or scalar sigmoid */
      tfs_i64 nv = nvall - b * H;
      if (nv >= H) rnn_act_row(p->rfn, a, pr, 2 * H, 2 * H);
      else {
        rnn_act_row(p->rfn, a, pr, H, nv);
        rnn_act_row(p->rfn, a + H, pr + H, H, nv);
      }
      if (p->after) {
        for (tfs_i64 j = 0; j < H; j++) {
          float q = r3[2 * H + j];
          a[3 * H + j] = q;
          pr[2 * H + j] = pr[2 * H + j] + a[H + j] * q;
        }
      } else {
        float *restrict q = p->q + b * H;
        for (tfs_i64 j = 0; j < H; j++) a[3 * H + j] = q[j] = a[H + j] * h[j];
      }
    }
    if (!p->after) {
      matmul_2d(DT_FLOAT32, rh + lo * H, p->q + lo * H, p->uh, hi - lo, H, H, NULL, false);
      for (tfs_i64 b = lo; b < hi; b++) {
        float *restrict pr = p->pre + b * G + 2 * H;
        const float *restrict e = rh + b * H;
        for (tfs_i64 j = 0; j < H; j++) pr[j] = pr[j] + e[j];
      }
    }
    for (tfs_i64 b = lo; b < hi; b++) {
      float *a = act + b * na * H, *h = p->h + b * H, *out = p->hs + (b * T + s) * H;
      const float *hv = hin + b * H;
      rnn_act_row(p->fn, a + 2 * H, p->pre + b * G + 2 * H, H, nvall - b * H);
      if (na == 5) memcpy(a + 4 * H, hv, sizeof(float) * (size_t)H);
      if (p->mask && p->mask[t * B + b] == 0.0f) {
        /* skipped (Keras' backend.rnn): the state stays, the output repeats the previous one (zeros first) */
        if (p->zero || s == 0) memset(out, 0, sizeof(float) * (size_t)H);
        else memcpy(out, out - H, sizeof(float) * (size_t)H);
      } else {
        for (tfs_i64 j = 0; j < H; j++) {
          float z = a[j], zh = z * hv[j], oh = (1.0f - z) * a[2 * H + j];
          h[j] = zh + oh;
        }
        memcpy(out, h, sizeof(float) * (size_t)H);
      }
      /* swish, gelu: the gates' pre-activations in place of their outputs, for the gradient's derivative */
      const float *pr = p->pre + b * G;
      if (rnn_act_pre(p->rfn)) memcpy(a, pr, sizeof(float) * (size_t)(2 * H));
      if (rnn_act_pre(p->fn)) memcpy(a + 2 * H, pr + 2 * H, sizeof(float) * (size_t)H);
    }
  }
}

/* U's column blocks [H, 2H] (z, r) and [H, H] (h) as contiguous matrices, for reset_after=False's two products */
static float *gru_split_u(const float *u, tfs_i64 H) {
  float *w = malloc(sizeof(float) * (size_t)(3 * H * H + 1));
  if (!w) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < H; i++) {
    memcpy(w + i * 2 * H, u + i * 3 * H, sizeof(float) * (size_t)(2 * H));
    memcpy(w + 2 * H * H + i * H, u + i * 3 * H + 2 * H, sizeof(float) * (size_t)H);
  }
  return w;
}

static void gru_forward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *xp = rnn_held(&hd, c->in[0]), *h0 = rnn_held(&hd, c->in[1]), *u = rnn_held(&hd, c->in[2]), *bias = rnn_held(&hd, c->in[3]);
  const float *mask = rnn_held(&hd, rnn_opt_in(c, 4)), *rk = rnn_held(&hd, rnn_opt_in(c, 5));
  bool back = op_attr_bool(c, 0, false), after = op_attr_bool(c, 1, true), save = op_attr_bool(c, 2, true);
  bool zero = op_attr_bool(c, 3, false);
  tfs_i64 T = c->in[0]->shape[0], B = c->in[0]->shape[1], H = c->in[2]->shape[0], G = 3 * H, na = mask || rk ? 5 : 4;
  float *h = tensor_data(c->out[1]);
  /* scratch: the recurrent products [B,3H], the pre-activations [B,3H], r*h [B,H], h * recurrent_mask [B,H], one
   * step's activations [B,nact*H] without save */
  float *w = malloc(sizeof(float) * (size_t)(2 * B * G + 2 * B * H + (save ? 0 : B * na * H) + 1));
  if (!w) rt_throw(ERR_MEMORY, "out of memory");
  float *uzr = after || H == 0 ? NULL : gru_split_u(u, H);
  memcpy(h, h0, sizeof(float) * (size_t)(B * H));
  GruSeq st = {xp, bias, bias && after ? bias + G : NULL, u, uzr, uzr ? uzr + 2 * H * H : NULL, mask, rk, h, w,
               w + B * G, w + 2 * B * G, tensor_data(c->out[0]), save ? tensor_data(c->out[2]) : w + 2 * B * G + 2 * B * H,
               w + 2 * B * G + B * H, B, T, H, na, back, after, save, zero, rnn_act_attr(c, 4, RNN_TANH),
               rnn_act_attr(c, 5, RNN_SIGMOID)};
  int np = rnn_parts(B, T, 3 * H * H);
  if (np > 1) tp_run(np, gru_fwd_rows, &st);
  else gru_fwd_rows(&st, 0, 1);
  free(uzr);
  free(w);
  rnn_held_release(&hd);
}

/* Backpropagation through time for batch rows [lo, hi): per step (last first) the gate gradients, then the
 * recurrent gradient through U of its rows (reset_after=False: first through U[:, 2H:], which r's gradient
 * needs, then through U[:, :2H]).  dg holds the gradients at the recurrent products' outputs: [T,B,3H] with
 * reset_after (z, r, and r * d hh_pre), else [T,B,2H] for z, r and dph [T,B,H] after it. */
typedef struct {
  const float *h0, *u, *uzr, *uh, *hs, *act, *dhs, *mask, *rk;
  float *dxp, *dg, *dph, *hp, *qb, *dh, *e, *dout;
  tfs_i64 B, T, H, nact;
  bool back, after, zero;
  RnnAct fn, rfn;
} GruBack;

/* A step the mask skipped: no gate gradient; the state's gradient passes; the output's goes to the previous
 * output unless that was zeros */
static void gru_bwd_skip(const GruBack *p, tfs_i64 s, tfs_i64 t, tfs_i64 b) {
  tfs_i64 B = p->B, T = p->T, H = p->H, G = 3 * H;
  const float *a = p->act + (s * B + b) * p->nact * H;
  memset(p->dxp + (t * B + b) * G, 0, sizeof(float) * (size_t)G);
  memset(p->dg + (s * B + b) * (p->after ? G : 2 * H), 0, sizeof(float) * (size_t)(p->after ? G : 2 * H));
  memcpy(p->hp + (s * B + b) * H, a + 4 * H, sizeof(float) * (size_t)H);
  if (!p->after) {
    memset(p->dph + (s * B + b) * H, 0, sizeof(float) * (size_t)H);
    memset(p->qb + (s * B + b) * H, 0, sizeof(float) * (size_t)H);
  }
  for (tfs_i64 j = 0; j < H; j++) {
    float d = p->dout[b * H + j] + (p->dhs ? p->dhs[(b * T + s) * H + j] : 0.0f);
    p->dout[b * H + j] = p->zero ? 0.0f : d;
  }
}

static void gru_bwd_rows(void *ctx, int part, int nparts) {
  const GruBack *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, G = 3 * H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  const float *hs = p->hs, *dhs = p->dhs;
  float *dh = p->dh, *e = p->e, *hp = p->hp;
  tfs_i64 na = p->nact;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    tfs_i64 t = p->back ? T - 1 - s : s, rows = hi - lo;
    for (tfs_i64 b = lo; b < hi; b++) {
      if (p->mask && p->mask[t * B + b] == 0.0f) {
        gru_bwd_skip(p, s, t, b);
        continue;
      }
      const float *a = p->act + (s * B + b) * na * H;
      float *x = p->dxp + (t * B + b) * G, *hpr = hp + (s * B + b) * H;
      float *g = p->dg + (s * B + b) * (p->after ? G : 2 * H);
      for (tfs_i64 j = 0; j < H; j++) {
        tfs_i64 k = (b * T + s) * H + j;
        float z, hh, xz, xh, hpv = na == 5 ? a[4 * H + j] : s ? hs[k - H] : p->h0[b * H + j];
        rnn_act_at(p->rfn, a[j], &z, &xz);
        rnn_act_at(p->fn, a[2 * H + j], &hh, &xh);
        float dhv = dhs ? dhs[k] + dh[b * H + j] : dh[b * H + j];
        if (p->dout) dhv += p->dout[b * H + j], p->dout[b * H + j] = 0.0f;
        float dz = dhv * (hpv - hh), dn = rnn_act_grad(p->fn, dhv * (1.0f - z), hh, xh);
        float gz = rnn_act_grad(p->rfn, dz, z, xz);
        x[j] = g[j] = gz;
        x[2 * H + j] = dn;
        dh[b * H + j] = dhv * z;
        hpr[j] = hpv;
        if (p->after) {
          float r, xr;
          rnn_act_at(p->rfn, a[H + j], &r, &xr);
          float gr = rnn_act_grad(p->rfn, dn * a[3 * H + j], r, xr);
          x[H + j] = g[H + j] = gr;
          g[2 * H + j] = dn * r;
        } else {
          p->dph[(s * B + b) * H + j] = dn;
          p->qb[(s * B + b) * H + j] = a[3 * H + j];
        }
      }
    }
    if (p->after) {
      matmul_any(DT_FLOAT32, e + lo * H, p->dg + (s * B + lo) * G, p->u, rows, H, G, false, true);
    } else {
      /* d(r*h) = dph @ U_h^T: r's gradient and a part of h's */
      matmul_any(DT_FLOAT32, e + lo * H, p->dph + (s * B + lo) * H, p->uh, rows, H, H, false, true);
      for (tfs_i64 b = lo; b < hi; b++) {
        const float *a = p->act + (s * B + b) * na * H, *hpr = hp + (s * B + b) * H;
        float *x = p->dxp + (t * B + b) * G, *g = p->dg + (s * B + b) * 2 * H;
        for (tfs_i64 j = 0; j < H; j++) {
          float r, xr, ev = e[b * H + j];
          rnn_act_at(p->rfn, a[H + j], &r, &xr);
          float gr = rnn_act_grad(p->rfn, ev * hpr[j], r, xr);
          x[H + j] = g[H + j] = gr;
          dh[b * H + j] += ev * r;
        }
      }
      matmul_any(DT_FLOAT32, e + lo * H, p->dg + (s * B + lo) * 2 * H, p->uzr, rows, H, 2 * H, false, true);
    }
    for (tfs_i64 i = lo * H; i < hi * H; i++) dh[i] += e[i];
    if (p->rk)   /* dh so far is the gradient of the step's input h * recurrent_mask (a skipped row's passed through) */
      for (tfs_i64 b = lo; b < hi; b++)
        if (!p->mask || p->mask[t * B + b] != 0.0f)
          for (tfs_i64 j = b * H; j < (b + 1) * H; j++) dh[j] *= p->rk[j];
  }
}

/* sums of the rows of m [n, w] into out[w], in row order */
void rnn_col_sums(float *out, const float *m, tfs_i64 n, tfs_i64 w) {
  for (tfs_i64 j = 0; j < w; j++) out[j] = 0.0f;
  for (tfs_i64 r = 0; r < n; r++)
    for (tfs_i64 j = 0; j < w; j++) out[j] += m[r * w + j];
}

/* Inputs: h0, recurrent_kernel, hs, act, and the gradients of hs and h_last; outputs dxp, dh0, d recurrent_kernel
 * (ONE product over all steps per block of U) and d bias (sums of dxp's and, with reset_after, dg's rows). */
static void gru_backward(OpCall *c) {
  RnnHeld hd = {.n = 0};
  const float *h0 = rnn_held(&hd, c->in[0]), *u = rnn_held(&hd, c->in[1]), *hs = rnn_held(&hd, c->in[2]), *act = rnn_held(&hd, c->in[3]);
  const float *dhs = rnn_held(&hd, c->in[4]), *dhl = rnn_held(&hd, c->in[5]), *mask = rnn_held(&hd, rnn_opt_in(c, 6)), *rk = rnn_held(&hd, rnn_opt_in(c, 7));
  bool back = op_attr_bool(c, 0, false), after = op_attr_bool(c, 1, true), zero = op_attr_bool(c, 2, false);
  tfs_i64 B = c->in[2]->shape[0], T = c->in[2]->shape[1], H = c->in[1]->shape[0], G = 3 * H, N = T * B, na = mask || rk ? 5 : 4;
  float *dxp = tensor_data(c->out[0]), *dh0 = tensor_data(c->out[1]), *du = tensor_data(c->out[2]);
  float *db = tensor_data(c->out[3]);
  /* dg [T,B,3H] (or [T,B,2H] + dph [T,B,H]), h_prev [T,B,H], r*h_prev [T,B,H] (reset_after=False), dh and e [B,H]:
   * megabytes each call, as tensors, whose pooled buffers a steady training loop reuses (fresh mallocs of that size
   * fault in every page) */
  tfs_i64 nw[4] = {N * G, N * H, after ? 0 : N * H, 3 * B * H};
  Tensor *wt[4];
  for (int i = 0; i < 4; i++) wt[i] = tensor_new(DT_FLOAT32, 1, &nw[i]);
  float *dg = tensor_data(wt[0]), *hp = tensor_data(wt[1]), *qb = tensor_data(wt[2]), *dh = tensor_data(wt[3]), *e = dh + B * H;
  float *dout = e + B * H;   /* with a mask: the gradient of the output a skipped step repeated */
  memset(dout, 0, sizeof(float) * (size_t)(B * H));
  float *uzr = after || H == 0 ? NULL : gru_split_u(u, H);
  if (dhl) memcpy(dh, dhl, sizeof(float) * (size_t)(B * H));
  else memset(dh, 0, sizeof(float) * (size_t)(B * H));
  GruBack st = {h0, u, uzr, uzr ? uzr + 2 * H * H : NULL, hs, act, dhs, mask, rk, dxp, dg, dg + N * 2 * H, hp, qb, dh, e,
                mask ? dout : NULL, B, T, H, na, back, after, zero, rnn_act_attr(c, 3, RNN_TANH), rnn_act_attr(c, 4, RNN_SIGMOID)};
  int np = rnn_parts(B, T, 3 * H * H);
  if (np > 1) tp_run(np, gru_bwd_rows, &st);
  else if (B > 0) gru_bwd_rows(&st, 0, 1);
  memcpy(dh0, dh, sizeof(float) * (size_t)(B * H));
  if (N > 0 && H > 0) {
    if (after) matmul_any(DT_FLOAT32, du, hp, dg, H, G, N, true, false);
    else {
      /* U[:, :2H]'s gradient from h_prev, U[:, 2H:]'s from r * h_prev; reuse the split block's memory */
      matmul_any(DT_FLOAT32, uzr, hp, dg, H, 2 * H, N, true, false);
      matmul_any(DT_FLOAT32, uzr + 2 * H * H, qb, dg + N * 2 * H, H, H, N, true, false);
      for (tfs_i64 i = 0; i < H; i++) {
        memcpy(du + i * G, uzr + i * 2 * H, sizeof(float) * (size_t)(2 * H));
        memcpy(du + i * G + 2 * H, uzr + 2 * H * H + i * H, sizeof(float) * (size_t)H);
      }
    }
  } else memset(du, 0, sizeof(float) * (size_t)(H * G));
  rnn_col_sums(db, dxp, N, G);
  if (after) rnn_col_sums(db + G, dg, N, G);
  free(uzr);
  for (int i = 0; i < 4; i++) tensor_release(wt[i]);
  rnn_held_release(&hd);
}

void k_gru_seq(OpCall *c) {
  if (c->op->id == OP_GRU_SEQ) gru_forward(c);
  else gru_backward(c);
}
