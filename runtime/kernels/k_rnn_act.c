/* k_rnn_act.c — the fused recurrent ops' activations over a row, with the bits of the elementwise ops the cells use. */
#pragma GCC optimize("O3")
#pragma GCC optimize("fp-contract=off")
#include <string.h>

#include "kernels/k_rnn_act.h"
#include "kernels/vmath.h"

static const char *const names[] = {"tanh", "sigmoid", "relu", "linear", "hard_sigmoid"};

const char *rnn_act_name(RnnAct a) { return names[a]; }

RnnAct rnn_act_attr(OpCall *c, int i, RnnAct dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  const char *s = val_is(v, &str_type) ? str_cstr(v) : "";
  for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
    if (!strcmp(s, names[k])) return (RnnAct)k;
  /* errindex: recurrent sequence: unsupported activation '…' (tanh, sigmoid, relu, linear, hard_sigmoid) */
  op_fail(c, ERR_INVALID_ARGUMENT, "recurrent sequence: unsupported activation '%s' (tanh, sigmoid, relu, linear, hard_sigmoid)", s);
  return dflt;
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
    default:
      if (o != x) memcpy(o, x, sizeof(float) * (size_t)n);
  }
}
