#!/usr/bin/python3
"""gen_keras_revive_regularizers.py — writes tests/programs/keras_revive_regularizers.out: keras_revive_regularizers.tfs
recomputed with numpy. Keras 2.15's legacy loader revives a built-in layer from its config, so the layer keeps its
kernel_regularizer (l2: 0.1 * sum(kernel ** 2), part of model.losses and of fit's loss) and kernel_constraint (NonNeg:
w * (w >= 0), applied after each optimizer step) on the loaded variables.

    /usr/bin/python3 tests/gen_keras_revive_regularizers.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32

x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype=F)
y = np.array([[-4.0, -1.0], [1.0, -6.0]], dtype=F)
shapes = [(3, 2), (2,), (2,)]
w, b, sc = [((((np.arange(int(np.prod(s))) + k) % 7) * 0.1 + 0.05)).astype(F).reshape(s) for k, s in enumerate(shapes)]
# the unregistered Scale layer comes back as a Layer subclass of that name (revive_custom_object) with its weight
lines = ["Net False ['Dense', 'Scale'] True", f"s [TensorShape([2])] {sc}"]
penalty = lambda k: F(0.1) * np.sum(np.square(k))
lines.append(str(np.round(float(penalty(w)), 4)))
# one SGD(0.1) step on mse + the penalty: the loss fit reports is the one before the step
h = x @ w + b
pred = h * sc
loss = np.mean(np.square(pred - y)) + penalty(w)
g = 2.0 * (pred - y) / pred.size
dsc = (g * h).sum(axis=0)
gh = g * sc
dw = x.T @ gh + F(0.2) * w
db = gh.sum(axis=0)
w = w - F(0.1) * dw
b = b - F(0.1) * db
w = w * (w >= 0).astype(F)
lines.append(str(np.round(np.array([loss], dtype=F), 4)))
lines.append(str(np.round(w, 4)))
lines.append(str(np.round(float(penalty(w)), 4)))
with open(os.path.join(HERE, "programs", "keras_revive_regularizers.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
