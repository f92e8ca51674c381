#!/usr/bin/python3
"""gen_keras_rnn_nested.py — writes tests/programs/keras_rnn_nested.out: Keras 2.15's RNN over nested inputs
(keras/layers/rnn/base_rnn.py + backend.rnn: the cell called on the tuple of each step's slices, zero states shaped
[batch, *state_size], outputs in processing order, go_backwards reading the steps last to first; return_state adds
the flattened final states) for the test's NestedCell with ones kernels, run with numpy; Functional output names as
Functional._set_output_names uniquifies them.

    /usr/bin/python3 tests/gen_keras_rnn_nested.py
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
x1 = (np.arange(12, dtype=np.float32) % 5).reshape(2, 3, 2)
x2 = (np.arange(12, dtype=np.float32) % 4 - 1).reshape(2, 3, 2, 1)


def cell(i1, i2, s1, s2, u1, u2, u3):
    k1 = np.ones((i1.shape[1], u1), np.float32)
    k23 = np.ones((i2.shape[1], i2.shape[2], u2, u3), np.float32)
    o1 = i1 @ k1 + s1
    o23 = np.einsum("bij,ijkl->bkl", i2, k23) - s2
    return (o1, o23), (s1 + o1, s2 + o23)


def rnn(go_backwards=False, u=(2, 3, 2)):
    s1 = np.zeros((2, u[0]), np.float32)
    s2 = np.zeros((2, u[1], u[2]), np.float32)
    outs = []
    for t in (range(2, -1, -1) if go_backwards else range(3)):
        out, (s1, s2) = cell(x1[:, t], x2[:, t], s1, s2, *u)
        outs.append(out)
    return outs, s1, s2


def output_names(layer_names):
    # Functional._set_output_names: a repeated layer name gets _1, _2, ... appended
    seen, counts, names = set(), {}, []
    for name in layer_names:
        proposal = name
        while proposal in seen:
            n = counts.get(name, 1)
            proposal = "%s_%d" % (name, n)
            counts[name] = n + 1
        seen.add(proposal)
        names.append(proposal)
    return names


def show(name, x):
    return "%s %s %s" % (name, tuple(x.shape), x.astype(np.int32).tolist())


lines = []
outs, s1, s2 = rnn()
lines.append(show("last output_1", outs[-1][0]))
lines.append(show("last output_2_3", outs[-1][1]))
outs, s1, s2 = rnn(go_backwards=True)
lines.append("3")
lines.append(show("seq output_1", np.stack([o[0] for o in outs], 1)))
lines.append(show("seq output_2_3", np.stack([o[1] for o in outs], 1)))
lines.append(show("state_1", s1))
lines.append(show("state_2_3", s2))
# the test's third RNN layer ("rnn_2") makes both outputs: [batch, unit_1] and [batch, unit_2, unit_3]
lines.append("%s [TensorShape([None, 2]), TensorShape([None, 3, 2])]" % output_names(["rnn_2", "rnn_2"]))
outs, s1, s2 = rnn()
lines.append(show("model output_1", outs[-1][0]))
lines.append(show("model output_2_3", outs[-1][1]))
with open(os.path.join(HERE, "programs", "keras_rnn_nested.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
