#!/usr/bin/python3
# gen_keras_additive_attention.py — writes tests/programs/keras_additive_attention.out: AdditiveAttention with numpy.
"""Independent reference for keras_additive_attention.tfs.

    /usr/bin/python3 tests/gen_keras_additive_attention.py

Keras 2.15 (layers/attention/additive_attention.py, base_dense_attention.py): scores[b, i, j] =
sum_d scale[d] * tanh(q[b, i, d] + k[b, j, d]) (scale = 1 without use_scale; the weight `scale` has the value's
last dimension), masked positions (value mask False, or j > i under use_causal_mask) get scores - 1e9, the
weights are softmax over j, the output is weights @ value; get_config is the base layer's keys, then dropout,
then use_scale.  Printed to 4 decimals (float64 here; no value near a rounding tie, checked).
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(a):
    out = []
    for v in np.reshape(a, [-1]):
        assert abs(abs(v) * 1e4 % 1 - 0.5) > 1e-3, v
        out.append("%.4f" % (0.0 if abs(v) < 5e-5 else v))
    return " ".join(out)


def attend(q, v, k, scale, allowed):
    scores = (np.tanh(q[:, :, None, :] + k[:, None, :, :]) * scale).sum(-1)
    masked = scores - 1e9 * (~allowed)
    w = np.exp(masked - masked.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return w @ v, w


q = np.linspace(-1.0, 1.0, 2 * 3 * 4).reshape(2, 3, 4)
v = np.cos(np.arange(2 * 5 * 4)).reshape(2, 5, 4)
vmask = np.array([[True] * 5, [True, True, True, False, False]])
out, w = attend(q, v, v, np.array([0.5, -1.0, 0.75, 0.25]), np.broadcast_to(vmask[:, None, :], (2, 3, 5)))
causal = np.broadcast_to(np.tril(np.ones((3, 5), bool)), (2, 3, 5))
plain, _ = attend(q, v, v * 0.5, 1.0, causal)
lines = [
    "['additive_attention/scale:0'] (4,) {'name': 'additive_attention', 'trainable': True, 'dtype': 'float32', "
    "'dropout': 0.0, 'use_scale': True}",
    fmt(w),
    fmt(out),
    fmt(plain),
    "[] False",
    "(None, 3, 4) 4",
]
with open(os.path.join(HERE, "programs", "keras_additive_attention.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
