#!/usr/bin/env python3
"""gen_keras_rnn_cell_subclass.py — expected output of tests/programs/keras_rnn_cell_subclass.tfs: Keras 2.15's
SimpleRNN, GRU (reset_after=True) and LSTM cell equations with kernels and recurrent kernels of ones and zero biases
(LSTM's forget gate: 1, unit_forget_bias),
each changed as the program's subclass changes its call, in numpy float32.  Run with /usr/bin/python3."""
import os
import numpy as np

f32 = np.float32
x = (np.arange(12, dtype=f32) / f32(20.0)).reshape(2, 3, 2)
U = 3


def sigmoid(v):
    return (f32(1) / (f32(1) + np.exp(-v))).astype(f32)


def run(step, nstates):
    states = [np.zeros((2, U), f32) for _ in range(nstates)]
    outs = []
    for t in range(3):
        out, states = step(x[:, t], states)
        outs.append(out)
    return np.stack(outs, 1)


def simple(xt, s):   # Twice: the output doubled, the state as SimpleRNNCell's
    h = np.tanh(xt @ np.ones((2, U), f32) + s[0] @ np.ones((U, U), f32)).astype(f32)
    return h * f32(2), [h]


def gru(xt, s):      # HalfState: GRUCell (reset_after=True), the new state halved
    h = s[0]
    xz = xt @ np.ones((2, U), f32)
    rz = h @ np.ones((U, U), f32)
    z, r = sigmoid(xz + rz), sigmoid(xz + rz)
    hh = np.tanh(xz + r * rz).astype(f32)
    new = (z * h + (f32(1) - z) * hh).astype(f32)
    return new, [f32(0.5) * new]


def lstm(xt, s):     # Clipped: LSTMCell's output capped at 0.1, the states as LSTMCell's
    h, c = s
    z = xt @ np.ones((2, 4 * U), f32) + h @ np.ones((U, 4 * U), f32)
    # unit_forget_bias=True (Keras's default): the forget gate's bias is 1 whatever bias_initializer says
    i, fg, g, o = sigmoid(z[:, :U]), sigmoid(z[:, U:2 * U] + f32(1)), np.tanh(z[:, 2 * U:3 * U]), sigmoid(z[:, 3 * U:])
    c = (fg * c + i * g).astype(f32)
    h = (o * np.tanh(c)).astype(f32)
    return np.minimum(h, f32(0.1)), [h, c]


lines = ["Twice.call (2, 2)"] * 4   # Keras's first-step call, then one per step
for name, step, n in (("Twice", simple, 1), ("HalfState", gru, 1), ("Clipped", lstm, 2)):
    y = run(step, n)
    lines.append("%s %r" % (name, np.round(y, 5).tolist()))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "keras_rnn_cell_subclass.out")
open(out, "w").write("\n".join(lines) + "\n")
