/* k_rnn.h — helpers shared by the fused recurrent ops' kernels (k_rnn.c: LSTM, GRU; k_rnn_simple.c: SimpleRNN). */
#pragma once
#include "object/object.h"
#include "kernels/ops.h"

/* the contiguous float data of the inputs a kernel reads, released together */
typedef struct {
  Tensor *t[12];
  int n;
} RnnHeld;

const float *rnn_held(RnnHeld *hd, Tensor *t);
void rnn_held_release(RnnHeld *hd);
/* input i, NULL when absent or beyond the inputs given */
Tensor *rnn_opt_in(const OpCall *c, int i);
/* input i must have shape want (unknown dims pass); the error names the layer */
void rnn_need_shape(OpCall *c, int i, int rank, const tfs_i64 *want, const char *layer);
/* batch, steps, units and k * units from the sequence (input xi) and recurrent kernel (input ui [H, k*H]) */
void rnn_dims(OpCall *c, bool fwd, int xi, int ui, int k, const char *layer, tfs_i64 *b, tfs_i64 *t, tfs_i64 *h,
              tfs_i64 *g);
/* a GRU's or SimpleRNN's forward outputs (hs s, h_last bh, act sa: 0 steps unless attribute si, save, is true) */
void rnn_meta_outputs(OpCall *c, int si, const tfs_i64 *s, const tfs_i64 *bh, tfs_i64 *sa);
/* a GRU's or SimpleRNN's gradient op: its inputs' shapes and outputs dxp [T,B,g], dh0, d recurrent_kernel */
void rnn_meta_grad(OpCall *c, const tfs_i64 *s, const tfs_i64 *bh, tfs_i64 *sa, tfs_i64 g, const char *layer);
/* whether inputs mi (mask) or mi + 1 (recurrent mask) are given */
bool rnn_masked(const OpCall *c, int mi);
/* thread-pool parts of a sequence's batch rows (hh: the multiply-adds of a step's product per row) */
int rnn_parts(tfs_i64 B, tfs_i64 T, tfs_i64 hh);
/* sums of the rows of m [n, w] into out[w], in row order */
void rnn_col_sums(float *out, const float *m, tfs_i64 n, tfs_i64 w);
