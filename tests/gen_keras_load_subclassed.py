#!/usr/bin/python3
"""gen_keras_load_subclassed.py — writes tests/programs/keras_load_subclassed.out: the numbers of
keras_load_subclassed.tfs recomputed with numpy (the two Dense layers' forward pass, mse, its gradients, SGD steps)
and the texts Keras 2.15 prints for the loaded models (keras/saving/legacy/saved_model/load.py: a revived model is an
instance of a Model subclass named as the saved class, its layers revived from their configs; a class found in
custom_objects or registered is rebuilt from its config; a call whose input fits no saved function raises
"Could not find matching concrete function ...").

    /usr/bin/python3 tests/gen_keras_load_subclassed.py

Also writes saved_model_replay_cond's expectations: the loaded function's value (w * t for t > 0), and inside
tf.function tfs's own refusal of a loaded graph with a graph cond (docs/errors.md), except under --eager.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32


def fixed(shapes):
    return [((((np.arange(int(np.prod(s))) + k) % 7) * 0.1 + 0.05)).reshape(s) for k, s in enumerate(shapes)]


def r4(a):
    return np.round(np.asarray(a, dtype=F), 4)


x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype=F).astype(np.float64)
y = np.array([[1.0, 0.0], [0.0, 1.0]])
out = []
p = print


def print(*a):   # noqa: A001 — the program's print, collected
    out.append(" ".join(str(v) for v in a))


def forward(w, xs):
    k1, b1, k2, b2 = w
    h = np.maximum(xs @ k1 + b1, 0)
    return h, h @ k2 + b2


def mse_grads(w, xs, ys):
    # d mean((xs -> y_pred - ys)^2) / d each weight
    k1, b1, k2, b2 = w
    pre = xs @ k1 + b1
    h, yp = forward(w, xs)
    d = 2 * (yp - ys) / yp.size
    gk2, gb2 = h.T @ d, d.sum(0)
    dh = (d @ k2.T) * (pre > 0)
    return [xs.T @ dh, dh.sum(0), gk2, gb2]


w = fixed([(3, 4), (4,), (4, 2), (2,)])
print("Net net True False")
print("['d1', 'd2'] ['Dense', 'Dense'] [TensorShape([3, 4]), TensorShape([4]), TensorShape([4, 2]), TensorShape([2])]")
print("SGD mse 26")
yp = forward(w, x)[1]
for _ in range(3):
    print(r4(yp))
print(round(float(np.mean((yp - y) ** 2)), 4))
print([np.round(np.asarray(g, dtype=F), 3) for g in mse_grads(w, x, y)])
losses = []
for _ in range(3):   # fit: one batch per epoch, the loss before each step
    losses.append(np.mean((forward(w, x)[1] - y) ** 2))
    w = [v - 0.1 * g for v, g in zip(w, mse_grads(w, x, y))]
print(r4(losses))
print(r4(forward(w, x)[1]))
print("ValueError: Could not find matching concrete function to call loaded from the SavedModel. Got:")
w0 = fixed([(3, 4), (4,), (4, 2), (2,)])
print("Net True net 2 ['d1', 'd2']")
print(r4(forward(w0, x)[1]))
k, b = fixed([(3, 1), (1,)])
print("Scaled True scaled 2.0 None")
print(r4((x @ k + b) * 2.0))
# d sum((x @ k + b) * 2) / d k, d b
print([r4(2.0 * x.sum(0).reshape(3, 1)), r4([2.0 * len(x)])])
print(r4((x @ k + b) * 2.0 * 2.0))
with open(os.path.join(HERE, "programs", "keras_load_subclassed.out"), "w") as f:
    f.write("\n".join(out) + "\n")


# saved_model_replay_cond.tfs: w = 2; f(3) eagerly, then f(1) inside tf.function (refused) or eagerly (--eager)
progs = os.path.join(HERE, "programs")
with open(os.path.join(progs, "saved_model_replay_cond.out"), "w") as f:
    f.write("%s\n" % F(3.0 * 2.0))
with open(os.path.join(progs, "saved_model_replay_cond.eager.out"), "w") as f:
    f.write("%s\n%s\n" % (F(3.0 * 2.0), F(1.0 * 2.0)))
with open(os.path.join(progs, "saved_model_replay_cond.status"), "w") as f:
    f.write("1\n")
with open(os.path.join(progs, "saved_model_replay_cond.err"), "w") as f:
    f.write("saved_model_replay_cond.tfs:22:12: error: UnimplementedError: a loaded function with a graph cond or while "
            "loop cannot be differentiated or called inside tf.function in tfs (node 'cond')\n"
            "    return lc.f(t)\n           ^\n")
