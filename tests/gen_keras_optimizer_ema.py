#!/usr/bin/python3
# gen_keras_optimizer_ema.py — writes tests/programs/keras_optimizer_ema.out: Keras 2.15's optimizer EMA recomputed with numpy.
"""Independent reference for keras_optimizer_ema.tfs.

    /usr/bin/python3 tests/gen_keras_optimizer_ema.py

Keras 2.15 (keras/optimizers/optimizer.py): with use_ema the optimizer keeps
an average per variable, starting at the variable's value when it is built;
after each step average = m * average + (1 - m) * variable; when
ema_overwrite_frequency is set, the step whose count before its increment
plus one is a multiple of it copies the averages into the variables;
finalize_variable_values (fit calls it after the last epoch) does the same.
Computed in float64, printed to 4 decimals; names, config and error texts
are Keras's written out here.
"""
import math
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
T = np.array([0.5, 1.0, -1.0])
C = np.array([1.0, 3.0, 0.5])


def fmt(a):
    return " ".join("%.4f" % x for x in a)


def grad(w):
    return 2.0 * C * (w - T)


lines = []
# SGD(0.1) with ema_momentum=0.6, overwrite every 3 steps: the weights after each of 5 steps
w = np.array([1.0, -2.0, 0.5])
avg = w.copy()
for it in range(5):
    w = w - 0.1 * grad(w)
    avg = 0.6 * avg + 0.4 * w
    if (it + 1) % 3 == 0:
        w = avg.copy()
    lines.append("sgd %d %s | %s" % (it + 1, fmt(w), fmt(avg)))
# Adam(0.1) with the default ema_momentum 0.99, no overwrite: 4 steps, then finalize_variable_values
w = np.array([1.0, -2.0, 0.5])
avg = w.copy()
m, v = np.zeros(3), np.zeros(3)
for it in range(4):
    g = grad(w)
    t = it + 1
    m = m + (g - m) * 0.1
    v = v + (g * g - v) * 0.001
    w = w - m * (0.1 * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)) / (np.sqrt(v) + 1e-7)
    avg = 0.99 * avg + 0.01 * w
lines.append("adam " + fmt(w))
lines.append("finalized " + fmt(avg))
lines.append("['iteration:0', 'Adam/average/w:0', 'Adam/m/w:0', 'Adam/v/w:0']")
# fit: Dense(1) from zeros, mse, whole batch, SGD(0.1, use_ema=True, ema_momentum=0.9), 3 epochs: the
# weights fit leaves are the averages
X = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0], [2.0, 0.0]])
Y = np.array([[1.0], [2.0], [0.0], [1.0]])
W, b = np.zeros((2, 1)), np.zeros(1)
aW, ab = W.copy(), b.copy()
for _ in range(3):
    e = X @ W + b - Y
    W, b = W - 0.1 * (2.0 / 4 * X.T @ e), b - 0.1 * (2.0 / 4 * e.sum(0))
    aW, ab = 0.9 * aW + 0.1 * W, 0.9 * ab + 0.1 * b
lines.append("fit " + fmt(aW[:, 0]) + " " + fmt(ab))
lines.append("True 0.9 None")
lines.append("ValueError: `ema_momentum` must be in the range [0, 1]. Received: ema_momentum=1.5")
lines.append("ValueError: `ema_overwrite_frequency` must be an integer > 1 or None. Received: ema_overwrite_frequency=0.5")
lines.append("SGD 2.0")
lines.append("ValueError: The length of model variables (2) to override does not match the length of model variables "
             "stored in the optimizer (1). Please check if the optimizer was called on your model.")
with open(os.path.join(HERE, "programs", "keras_optimizer_ema.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
