/* k_rnn.c — the Keras LSTM layer's whole sequence as one op (TfsLSTMSequence) and its backpropagation through time (TfsLSTMSequenceGrad). */
#pragma GCC optimize("O3")
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/vmath.h"

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
static void need_shape(OpCall *c, int i, int rank, const tfs_i64 *want) {
  const TMeta *m = &c->inm[i];
  if (m->rank == TMETA_ABSENT || m->rank < 0) return;
  bool ok = m->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = m->shape[d] < 0 || want[d] < 0 || m->shape[d] == want[d];
  if (!ok) {
    StrBuf sb;
    sb_init(&sb);
    sb_printf(&sb, "LSTM sequence: input %d must have shape ", i);
    op_shape_text(&sb, rank, want);
    sb_puts(&sb, ", got ");
    op_shape_text(&sb, m->rank, m->shape);
    /* errindex: LSTM sequence: input … must have shape …, got … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &sb);
  }
}

/* shape: xp [T,B,4H] (time-major: each step reads one block), h0 / c0 [B,H], recurrent_kernel [H,4H], bias [4H] (optional); the gradient's inputs are
 * h0, c0, recurrent_kernel, then the forward outputs and their gradients (hs [B,T,H] first). */
void meta_lstm_seq(OpCall *c) {
  bool fwd = c->op->id == OP_LSTM_SEQ;
  const TMeta *xs = &c->inm[fwd ? 0 : 3], *u = &c->inm[fwd ? 3 : 2];
  if (xs->rank >= 0 && xs->rank != 3) op_fail(c, ERR_INVALID_ARGUMENT, "LSTM sequence: inputs must be 3-D, got rank %d", xs->rank);
  if (u->rank >= 0 && u->rank != 2) op_fail(c, ERR_INVALID_ARGUMENT, "LSTM sequence: recurrent_kernel must be 2-D, got rank %d", u->rank);
  tfs_i64 b = dim_or(xs, fwd ? 1 : 0), t = dim_or(xs, fwd ? 0 : 1), h = dim_or(u, 0), g = h >= 0 ? 4 * h : -1;
  if (h >= 0 && u->shape[1] >= 0 && u->shape[1] != g)
    op_fail(c, ERR_INVALID_ARGUMENT, "LSTM sequence: recurrent_kernel must be [units, 4 * units]");
  if (fwd && h >= 0 && xs->rank == 3 && xs->shape[2] >= 0 && xs->shape[2] != g)
    op_fail(c, ERR_INVALID_ARGUMENT, "LSTM sequence: xp must have 4 * units columns");
  tfs_i64 s[3] = {b, t, h}, sc[3] = {t, b, h}, s5[3] = {t, b, h >= 0 ? 5 * h : -1}, bh[2] = {b, h};
  need_shape(c, fwd ? 1 : 0, 2, bh);
  need_shape(c, fwd ? 2 : 1, 2, bh);
  if (fwd) need_shape(c, 4, 1, &g);
  else {
    for (int i = 3; i < 7; i++) need_shape(c, i, 3, i == 5 ? s5 : i == 4 ? sc : s);
    need_shape(c, 7, 2, bh);
    need_shape(c, 8, 2, bh);
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

typedef struct {
  Tensor *t[12];
  int n;
} Held;

static const float *held(Held *hd, Tensor *t) {
  if (!t) return NULL;
  hd->t[hd->n] = tensor_contiguous(t);
  return tensor_data(hd->t[hd->n++]);
}
static void held_release(Held *hd) {
  for (int i = 0; i < hd->n; i++) tensor_release(hd->t[i]);
}

/* The whole sequence for batch rows [lo, hi): a row's recurrence reads only its own h and c, so each part runs
 * every step of its rows (its slice of the product h @ recurrent_kernel, then the gates) with no barrier
 * between steps: one thread-pool job per sequence instead of two per step, whose hand-offs cost more than
 * a step's 64x256x64 product saved (docs/performance.md, "Splitting products by shape"). */
typedef struct {
  const float *xp, *bias, *u;
  float *h, *cc, *z, *hs, *cs, *act;
  tfs_i64 B, T, H;
  bool back;
} LstmSeq;

static void lstm_gates(const LstmSeq *p, tfs_i64 s, tfs_i64 t, tfs_i64 lo, tfs_i64 hi) {
  tfs_i64 H = p->H, G = 4 * H, T = p->T, B = p->B;
  float *act = p->act + (p->cs ? s * B * 5 * H : 0);
  /* restrict locals: the loops below vectorise only when the compiler knows the buffers apart */
  for (tfs_i64 b = lo; b < hi; b++) {
    const float *restrict x = p->xp + (t * B + b) * G, *restrict bias = p->bias;
    float *restrict zb = p->z + b * G;
    if (bias)
      for (tfs_i64 j = 0; j < G; j++) zb[j] = (x[j] + zb[j]) + bias[j];
    else
      for (tfs_i64 j = 0; j < G; j++) zb[j] = x[j] + zb[j];
    /* the vector loops of vmath.c over a row's gates, with the elementwise kernels' bits: TF applies each
     * sigmoid to a [B, H] gate, whose last B*H % 8 elements take Eigen's scalar formula */
    float *restrict a = act + b * 5 * H;
    tfs_i64 nv = B * H - (B * H) % VM_PACKET - b * H;
    if (nv >= H) vm_sigmoid_part_f32(a, zb, 2 * H, 2 * H);
    else {
      vm_sigmoid_part_f32(a, zb, H, nv);
      vm_sigmoid_part_f32(a + H, zb + H, H, nv);
    }
    vm_tanh_f32(a + 2 * H, zb + 2 * H, H);
    vm_sigmoid_part_f32(a + 3 * H, zb + 3 * H, H, nv);
    float *restrict cc = p->cc + b * H;
    for (tfs_i64 j = 0; j < H; j++) {
      float fc = a[H + j] * cc[j], ig = a[j] * a[2 * H + j];
      cc[j] = fc + ig;
    }
    vm_tanh_f32(a + 4 * H, cc, H);
    float *restrict h = p->h + b * H, *restrict hs = p->hs + (b * T + s) * H;
    for (tfs_i64 j = 0; j < H; j++) h[j] = a[3 * H + j] * a[4 * H + j];
    memcpy(hs, h, sizeof(float) * (size_t)H);
    if (p->cs) memcpy(p->cs + (s * B + b) * H, cc, sizeof(float) * (size_t)H);
  }
}

static void lstm_fwd_rows(void *ctx, int part, int nparts) {
  const LstmSeq *p = ctx;
  tfs_i64 H = p->H, G = 4 * H, lo, hi;
  tp_slice(p->B, part, nparts, &lo, &hi);
  if (hi <= lo || H <= 0) return;
  for (tfs_i64 s = 0; s < p->T; s++) {
    matmul_2d(DT_FLOAT32, p->z + lo * G, p->h + lo * H, p->u, hi - lo, G, H, NULL, false);
    lstm_gates(p, s, p->back ? p->T - 1 - s : s, lo, hi);
  }
}

/* Parts of a sequence's batch: one per thread (each runs all steps, so more would only shorten the product's
 * rows), at least 4 rows each, and none for a sequence too small to pay for a hand-off. */
static int lstm_parts(tfs_i64 B, tfs_i64 T, tfs_i64 H) {
  int np = tp_parts(T * B * 4 * H * H, (tfs_i64)1 << 15);
  int most = tp_threads();
  if (np > most) np = most;
  if (np > B / 4) np = (int)(B / 4);
  return np < 1 ? 1 : np;
}

static void lstm_forward(OpCall *c) {
  Held hd = {.n = 0};
  const float *xp = held(&hd, c->in[0]), *h0 = held(&hd, c->in[1]), *c0 = held(&hd, c->in[2]), *u = held(&hd, c->in[3]);
  const float *bias = held(&hd, c->in[4]);
  bool back = op_attr_bool(c, 0, false), save = op_attr_bool(c, 1, true);
  tfs_i64 T = c->in[0]->shape[0], B = c->in[0]->shape[1], H = c->in[3]->shape[0], G = 4 * H;
  float *h = tensor_data(c->out[1]), *cc = tensor_data(c->out[2]);   /* the states, last ones at the end */
  /* the gates' sums [B,4H], and without save one step's activations [B,5H] after them */
  float *z = malloc(sizeof(float) * (size_t)(B * G + (save ? 0 : B * 5 * H) + 1));
  if (!z) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(h, h0, sizeof(float) * (size_t)(B * H));
  memcpy(cc, c0, sizeof(float) * (size_t)(B * H));
  LstmSeq st = {xp, bias, u, h, cc, z, tensor_data(c->out[0]), save ? tensor_data(c->out[3]) : NULL,
                save ? tensor_data(c->out[4]) : z + B * G, B, T, H, back};
  int np = lstm_parts(B, T, H);
  if (np > 1) tp_run(np, lstm_fwd_rows, &st);
  else lstm_fwd_rows(&st, 0, 1);   /* not as a pool job: its products may still split */
  free(z);
  held_release(&hd);
}

/* Backpropagation through time for batch rows [lo, hi) (independent as in the forward pass): per step (last
 * first) the gate gradients dz in one loop, then the recurrent gradient dz @ recurrent_kernel^T of its rows. */
typedef struct {
  const float *h0, *c0, *u, *hs, *cs, *act, *dhs;
  float *dxp, *dz, *hp, *dh, *dc;
  tfs_i64 B, T, H;
  bool back;
} LstmBack;

static void lstm_bwd_rows(void *ctx, int part, int nparts) {
  const LstmBack *p = ctx;
  tfs_i64 B = p->B, T = p->T, H = p->H, G = 4 * H, lo, hi;
  tp_slice(B, part, nparts, &lo, &hi);
  if (hi <= lo) return;
  const float *h0 = p->h0, *c0 = p->c0, *hs = p->hs, *cs = p->cs, *act = p->act, *dhs = p->dhs;
  float *dz = p->dz, *hp = p->hp, *dh = p->dh, *dc = p->dc, *dxp = p->dxp;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    tfs_i64 t = p->back ? T - 1 - s : s;
    for (tfs_i64 b = lo; b < hi; b++) {
      const float *a = act + (s * B + b) * 5 * H;
      float *z = dz + (s * B + b) * G, *x = dxp + (t * B + b) * G;
      for (tfs_i64 j = 0; j < H; j++) {
        tfs_i64 k = (b * T + s) * H + j;
        float i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j], tc = a[4 * H + j];
        float cp = s ? cs[((s - 1) * B + b) * H + j] : c0[b * H + j];
        float dhv = dhs[k] + dh[b * H + j];
        float dcv = dc[b * H + j] + dhv * o * (1.0f - tc * tc);
        z[j] = dcv * g * i * (1.0f - i);
        z[H + j] = dcv * cp * f * (1.0f - f);
        z[2 * H + j] = dcv * i * (1.0f - g * g);
        z[3 * H + j] = dhv * tc * o * (1.0f - o);
        dc[b * H + j] = dcv * f;
        hp[(s * B + b) * H + j] = s ? hs[k - H] : h0[b * H + j];
      }
      memcpy(x, z, sizeof(float) * (size_t)G);
    }
    if (H > 0) matmul_any(DT_FLOAT32, dh + lo * H, dz + (s * B + lo) * G, p->u, hi - lo, H, G, false, true);
  }
}

/* From the forward op's saved outputs: the rows' recurrences above, then the recurrent kernel's gradient as
 * ONE product over all steps (h_prev^T [H, T*B] @ dz [T*B, 4H]) and the bias's as sums in a fixed order.
 * Inputs: h0, c0, recurrent_kernel, hs, cs, act, and the gradients of hs, h_last and c_last (those of cs and
 * act are not taken: the layer reads them only for this op). */
static void lstm_backward(OpCall *c) {
  Held hd = {.n = 0};
  const float *h0 = held(&hd, c->in[0]), *c0 = held(&hd, c->in[1]), *u = held(&hd, c->in[2]), *hs = held(&hd, c->in[3]);
  const float *cs = held(&hd, c->in[4]), *act = held(&hd, c->in[5]), *dhs = held(&hd, c->in[6]), *dhl = held(&hd, c->in[7]);
  const float *dcl = held(&hd, c->in[8]);
  bool back = op_attr_bool(c, 0, false);
  tfs_i64 B = c->in[3]->shape[0], T = c->in[3]->shape[1], H = c->in[2]->shape[0], G = 4 * H;
  float *dxp = tensor_data(c->out[0]), *dh0 = tensor_data(c->out[1]), *dc0 = tensor_data(c->out[2]);
  float *du = tensor_data(c->out[3]), *db = tensor_data(c->out[4]);
  /* dz by step [T, B, 4H] and h_prev by step [T, B, H], contiguous for the final product */
  float *dz = malloc(sizeof(float) * (size_t)(T * B * G + T * B * H + 2 * B * H));
  if (!dz) rt_throw(ERR_MEMORY, "out of memory");
  float *hp = dz + T * B * G, *dh = hp + T * B * H, *dc = dh + B * H;
  memcpy(dh, dhl, sizeof(float) * (size_t)(B * H));
  memcpy(dc, dcl, sizeof(float) * (size_t)(B * H));
  LstmBack st = {h0, c0, u, hs, cs, act, dhs, dxp, dz, hp, dh, dc, B, T, H, back};
  int np = lstm_parts(B, T, H);
  if (np > 1) tp_run(np, lstm_bwd_rows, &st);
  else if (B > 0) lstm_bwd_rows(&st, 0, 1);
  memcpy(dh0, dh, sizeof(float) * (size_t)(B * H));
  memcpy(dc0, dc, sizeof(float) * (size_t)(B * H));
  if (T * B > 0 && H > 0) matmul_any(DT_FLOAT32, du, hp, dz, H, G, T * B, true, false);
  else memset(du, 0, sizeof(float) * (size_t)(H * G));
  for (tfs_i64 j = 0; j < G; j++) db[j] = 0.0f;
  for (tfs_i64 r = 0; r < T * B; r++)
    for (tfs_i64 j = 0; j < G; j++) db[j] += dz[r * G + j];
  free(dz);
  held_release(&hd);
}

void k_lstm_seq(OpCall *c) {
  if (c->op->id == OP_LSTM_SEQ) lstm_forward(c);
  else lstm_backward(c);
}
