/* k_rnn_act.h — the activations the fused recurrent ops take (Keras' tanh, sigmoid, relu, linear, hard_sigmoid) by name. */
#pragma once
#include "object/object.h"
#include "kernels/ops.h"

typedef enum { RNN_TANH, RNN_SIGMOID, RNN_RELU, RNN_LINEAR, RNN_HARD_SIGMOID } RnnAct;

/* attribute i (a name; dflt when not given) as an activation; an unknown name is an InvalidArgumentError */
RnnAct rnn_act_attr(OpCall *c, int i, RnnAct dflt);
/* the name of an activation ("tanh", ...), as the attribute spells it */
const char *rnn_act_name(RnnAct a);
/* o = act(x) for n contiguous floats of one row: the bits of the elementwise op the Keras cell applies to its
 * [B, n] tensor; nv: how many of them are packet lanes there (the sigmoid's tail takes Eigen's scalar formula) */
void rnn_act_row(RnnAct a, float *o, const float *x, tfs_i64 n, tfs_i64 nv);

/* the derivative at the pre-activation whose value was y, from y (as TF's TanhGrad/SigmoidGrad/ReluGrad; hard
 * sigmoid: 0.2 strictly inside (0, 1), zero where clipped; TF's clip_by_value gradient also passes a value exactly
 * at a bound, which y cannot tell from a clipped one) */
static inline float rnn_act_dy(RnnAct a, float y) {
  switch (a) {
    case RNN_TANH: return 1.0f - y * y;
    case RNN_SIGMOID: return y * (1.0f - y);
    case RNN_RELU: return y > 0.0f ? 1.0f : 0.0f;
    case RNN_HARD_SIGMOID: return y > 0.0f && y < 1.0f ? 0.2f : 0.0f;
    default: return 1.0f;
  }
}
/* d times the derivative from y (the fused LSTM's and GRU's gradients: their sigmoid and tanh products keep the
 * order they had before other activations, (d * y) * (1 - y)) */
static inline float rnn_act_grad(RnnAct a, float d, float y) {
  switch (a) {
    case RNN_TANH: return d * (1.0f - y * y);
    case RNN_SIGMOID: return d * y * (1.0f - y);
    default: return d * rnn_act_dy(a, y);
  }
}
