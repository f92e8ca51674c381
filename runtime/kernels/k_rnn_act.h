/* k_rnn_act.h — the activations the fused recurrent ops take (Keras' tanh, sigmoid, relu, linear, hard_sigmoid, elu, selu, softsign, softplus, swish, gelu) by name. */
#pragma once
#include "object/object.h"
#include "kernels/ops.h"
#include <math.h>
#include <stdbool.h>

typedef enum {
  RNN_TANH, RNN_SIGMOID, RNN_RELU, RNN_LINEAR, RNN_HARD_SIGMOID,   /* SimpleRNN's (RNN_SIMPLE_ACTS) */
  RNN_ELU, RNN_SELU, RNN_SOFTSIGN, RNN_SOFTPLUS, RNN_SWISH, RNN_GELU
} RnnAct;
#define RNN_SIMPLE_ACTS 5   /* the fused SimpleRNN takes the first five (its gradient reads only the outputs) */

/* stdlib keras_activations.tfs's selu constants (scale * where(x > 0, elu, alpha * elu)), as float32 */
#define RNN_SELU_SCALE 1.0507009873554805f
#define RNN_SELU_ALPHA 1.6732632423543772f

/* attribute i (a name; dflt when not given) as an activation; an unknown name is an InvalidArgumentError */
RnnAct rnn_act_attr(OpCall *c, int i, RnnAct dflt);
/* the same for the fused SimpleRNN, which takes only the first RNN_SIMPLE_ACTS */
RnnAct rnn_act_attr_simple(OpCall *c, int i, RnnAct dflt);
/* swish and gelu: their derivative needs the pre-activation, which the LSTM and GRU keep in place of the output
 * (rnn_act_at recomputes the output from it) */
static inline bool rnn_act_pre(RnnAct a) { return a == RNN_SWISH || a == RNN_GELU; }
/* act(x) of one float, as rnn_act_row's scalar path (the sigmoid in swish: Eigen's scalar formula) */
float rnn_act1(RnnAct a, float x);
/* the LSTM's and GRU's gradients: from a kept value s, the output *y and pre-activation *x (s itself for the
 * activations whose derivative the output determines) */
static inline void rnn_act_at(RnnAct a, float s, float *y, float *x) {
  *x = s;
  *y = rnn_act_pre(a) ? rnn_act1(a, s) : s;
}
/* d times swish's or gelu's derivative at x (rnn_act_grad) */
float rnn_act_grad_x(RnnAct a, float d, float x);
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
    case RNN_ELU: return y > 0.0f ? 1.0f : y + 1.0f;   /* TF's EluGrad: exp(x) = y + 1 below 0 */
    case RNN_SELU: return y > 0.0f ? RNN_SELU_SCALE : y + RNN_SELU_SCALE * RNN_SELU_ALPHA;   /* TF's SeluGrad */
    case RNN_SOFTSIGN: {   /* 1 / (1 + |x|)² = (1 - |y|)² */
      float m = 1.0f - fabsf(y);
      return m * m;
    }
    case RNN_SOFTPLUS: return (float)-expm1(-(double)y);   /* sigmoid(x) = 1 - exp(-y) */
    default: return 1.0f;
  }
}
/* d times the derivative from y, or from the pre-activation x for swish and gelu (the fused LSTM's and GRU's
 * gradients: their sigmoid and tanh products keep the order they had before other activations, (d * y) * (1 - y)) */
static inline float rnn_act_grad(RnnAct a, float d, float y, float x) {
  switch (a) {
    case RNN_TANH: return d * (1.0f - y * y);
    case RNN_SIGMOID: return d * y * (1.0f - y);
    case RNN_SWISH:
    case RNN_GELU: return rnn_act_grad_x(a, d, x);
    default: return d * rnn_act_dy(a, y);
  }
}
