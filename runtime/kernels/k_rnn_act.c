/* k_rnn_act.c — the fused recurrent ops' activations over a row, with the bits of the elementwise ops the cells use. */
#pragma GCC optimize("O3")
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <string.h>

#include "kernels/k_rnn_act.h"
#include "kernels/vmath.h"

static const char *const names[] = {"tanh", "sigmoid", "relu", "linear", "hard_sigmoid", "elu", "selu", "softsign",
                                    "softplus", "swish", "gelu"};

const char *rnn_act_name(RnnAct a) { return names[a]; }

/* the first n names; "silu" is swish's other name (Keras' get) */
static RnnAct act_attr(OpCall *c, int i, RnnAct dflt, int n) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  const char *s = val_is(v, &str_type) ? str_cstr(v) : "";
  for (int k = 0; k < n; k++)
    if (!strcmp(s, names[k])) return (RnnAct)k;
  if (n > RNN_SWISH && !strcmp(s, "silu")) return RNN_SWISH;
  if (n == RNN_SIMPLE_ACTS)
    /* errindex: recurrent sequence: unsupported activation '…' (tanh, sigmoid, relu, linear, hard_sigmoid) */
    op_fail(c, ERR_INVALID_ARGUMENT, "recurrent sequence: unsupported activation '%s' (tanh, sigmoid, relu, linear, hard_sigmoid)", s);
  else
    /* errindex: recurrent sequence: unsupported activation '…' (tanh, sigmoid, relu, linear, hard_sigmoid, elu, selu, softsign, softplus, swish, gelu) */
    op_fail(c, ERR_INVALID_ARGUMENT, "recurrent sequence: unsupported activation '%s' (tanh, sigmoid, relu, linear, hard_sigmoid, "
            "elu, selu, softsign, softplus, swish, gelu)", s);
  return dflt;
}
RnnAct rnn_act_attr(OpCall *c, int i, RnnAct dflt) { return act_attr(c, i, dflt, (int)(sizeof names / sizeof names[0])); }
RnnAct rnn_act_attr_simple(OpCall *c, int i, RnnAct dflt) { return act_attr(c, i, dflt, RNN_SIMPLE_ACTS); }

/* the elementwise kernels' formulas (k_elementwise.c) and stdlib keras_activations.tfs's compositions, each op
 * rounded to float32: elu's expm1 and gelu's erf through double; softplus as TF's kernel (its thresholds) */
static inline float elu1(float x) { return x > 0 ? x : (float)expm1((double)x); }
static inline float selu1(float x) {
  float y = elu1(x);
  return RNN_SELU_SCALE * (x > 0.0f ? y : RNN_SELU_ALPHA * y);
}
static inline float softplus1(float x) {
  float e = (float)exp((double)x);
  return x > 13.942385f ? x : x < -13.942385f ? e : (float)log1p((double)e);
}
static inline float gelu1(float x) { return 0.5f * x * (1.0f + (float)erf((double)(x / 1.4142135623730951f))); }

float rnn_act1(RnnAct a, float x) {
  float y = x;
  rnn_act_row(a, &y, &x, 1, 0);
  return y;
}

float rnn_act_grad_x(RnnAct a, float d, float x) {
  if (a == RNN_SWISH) {   /* TF's swish gradient: s * (1 + x * (1 - s)) */
    float s = vm_sigmoid_tail1(x);
    return d * (s * (1.0f + x * (1.0f - s)));
  }
  /* gelu: Phi(x) + x * phi(x), through double */
  double xd = x, k = 0.5 * (1.0 + erf(xd / 1.4142135623730951)) + xd * 0.3989422804014327 * exp(-0.5 * xd * xd);
  return d * (float)k;
}

void rnn_act_row(RnnAct a, float *restrict o, const float *restrict x, tfs_i64 n, tfs_i64 nv) {
  switch (a) {
    case RNN_TANH: vm_tanh_f32(o, x, n); return;
    case RNN_SIGMOID: vm_sigmoid_part_f32(o, x, n, nv); return;
    case RNN_RELU:   /* the Relu kernel's formula (NaN passes) */
      for (tfs_i64 j = 0; j < n; j++) o[j] = x[j] > 0 ? x[j] : (x[j] != x[j] ? x[j] : 0.0f);
      return;
    case RNN_HARD_SIGMOID:   /* Keras 2.15: clip_by_value(0.2 * x + 0.5, 0, 1), each op rounded */
      for (tfs_i64 j = 0; j < n; j++) {
        float v = 0.2f * x[j];
        v = v + 0.5f;
        v = v < 1.0f ? v : 1.0f;
        o[j] = v > 0.0f ? v : 0.0f;
      }
      return;
    case RNN_ELU:
      for (tfs_i64 j = 0; j < n; j++) o[j] = elu1(x[j]);
      return;
    case RNN_SELU:
      for (tfs_i64 j = 0; j < n; j++) o[j] = selu1(x[j]);
      return;
    case RNN_SOFTSIGN:   /* x / (1 + abs(x)) */
      for (tfs_i64 j = 0; j < n; j++) o[j] = x[j] / (1.0f + fabsf(x[j]));
      return;
    case RNN_SOFTPLUS:
      for (tfs_i64 j = 0; j < n; j++) o[j] = softplus1(x[j]);
      return;
    case RNN_SWISH:   /* x * sigmoid(x), the sigmoid's bits as the gate tensor's (o and x apart) */
      vm_sigmoid_part_f32(o, x, n, nv);
      for (tfs_i64 j = 0; j < n; j++) o[j] = x[j] * o[j];
      return;
    case RNN_GELU:
      for (tfs_i64 j = 0; j < n; j++) o[j] = gelu1(x[j]);
      return;
    default:
      if (o != x) memcpy(o, x, sizeof(float) * (size_t)n);
  }
}
