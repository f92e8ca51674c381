#!/usr/bin/env python3
"""gen_keras_rnn_cell_save.py — expected output of tests/programs/keras_rnn_cell_save.tfs: the program's cell
h_t = x_t @ ones + decay * h_{t-1}, one RNN and a stack of two, computed with numpy.  Run with /usr/bin/python3."""
import os
import numpy as np


def rnn(xs, units, decay):
    h = np.zeros((xs.shape[0], units), np.float32)
    out = []
    for t in range(xs.shape[1]):
        h = (xs[:, t] @ np.ones((xs.shape[2], units), np.float32) + np.float32(decay) * h).astype(np.float32)
        out.append(h)
    return np.stack(out, 1)


def fmt(a):
    return repr(np.round(a.astype(np.float32), 4).tolist())   # as the program: float32 values rounded


data = (np.arange(30, dtype=np.float32) / np.float32(10.0)).reshape(2, 5, 3)
one = rnn(data, 4, 0.5)[:, -1]
two = rnn(rnn(data, 4, 0.5), 2, 0.25)
lines = []
for ext in ("keras", "h5"):
    lines.append("%s ['InputLayer', 'RNN', 'RNN'] StackedRNNCells" % ext)
    lines.append("one " + fmt(one))
    lines.append("two " + fmt(two))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "keras_rnn_cell_save.out")
open(out, "w").write("\n".join(lines) + "\n")
