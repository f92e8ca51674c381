#!/usr/bin/python3
# gen_keras_optimizers_legacy.py — writes tests/programs/keras_optimizers_legacy.out: TF 2.15's OptimizerV2 rules in numpy.
"""Independent reference for keras_optimizers_legacy.tfs.

    /usr/bin/python3 tests/gen_keras_optimizers_legacy.py

The update rules follow tf.keras.optimizers.legacy (keras/optimizers/legacy/
*.py and the TF training kernels they call): the learning rate divided by
1 + decay * iterations (iterations counted before the step), every clipping
that is set applied in the order clipvalue, clipnorm, global_clipnorm;
Adagrad's and RMSprop's (without momentum) epsilon added to the square
root, RMSprop's with momentum inside it; Nadam's momentum schedule
0.96 ** (0.004 * t) with its running product.  Computed in float64 and
printed to 4 decimals.  The lines after the table (slot and variable names,
configs, error messages) are Keras's behaviour written out here.
"""
import math
import os
import numpy as np

from keras_opt_ref import ftrl_step

HERE = os.path.dirname(os.path.abspath(__file__))
T = np.array([0.5, 1.0, -1.0])
C = np.array([1.0, 3.0, 0.5])
Z = np.zeros(3)


def grad(w):
    return 2.0 * C * (w - T)


def clip(g, o):
    if o.get("clipvalue"):
        g = np.clip(g, -o["clipvalue"], o["clipvalue"])
    if o.get("clipnorm"):
        g = g * (o["clipnorm"] / max(np.sqrt(np.sum(g * g)), o["clipnorm"]))
    if o.get("global_clipnorm"):
        g = g * (o["global_clipnorm"] / max(np.sqrt(np.sum(g * g)), o["global_clipnorm"]))
    return g


def run(kind, lr, steps=4, **o):
    w = np.array([1.0, -2.0, 0.5])
    st = {}
    for it in range(steps):
        rate = lr(it) if callable(lr) else lr
        if o.get("decay") and kind != "nadam":
            rate = rate / (1.0 + o["decay"] * it)
        g = clip(grad(w), o)
        t = it + 1
        if kind == "sgd":
            mom = o.get("momentum", 0.0)
            if mom > 0:
                st["m"] = st.get("m", Z) * mom - rate * g
                w = w + (st["m"] * mom - rate * g if o.get("nesterov") else st["m"])
            else:
                w = w - rate * g
        elif kind == "adam":
            b1, b2, eps = 0.9, 0.999, 1e-7
            st["m"] = st.get("m", Z) + (g - st.get("m", Z)) * (1 - b1)
            st["v"] = st.get("v", Z) + (g * g - st.get("v", Z)) * (1 - b2)
            a = rate * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            v = st["v"]
            if o.get("amsgrad"):
                st["vhat"] = np.maximum(st.get("vhat", Z), v)
                v = st["vhat"]
            w = w - a * st["m"] / (np.sqrt(v) + eps)
        elif kind == "rmsprop":
            rho, eps, mom = 0.9, 1e-7, o.get("momentum", 0.0)
            st["rms"] = rho * st.get("rms", Z) + (1 - rho) * g * g
            den = st["rms"]
            if o.get("centered"):
                st["mg"] = rho * st.get("mg", Z) + (1 - rho) * g
                den = den - st["mg"] ** 2
            if mom > 0:
                st["mom"] = mom * st.get("mom", Z) + rate * g / np.sqrt(den + eps)
                w = w - st["mom"]
            else:
                w = w - rate * g / (np.sqrt(den) + eps)
        elif kind == "adagrad":
            st["acc"] = st.get("acc", np.full(3, 0.1)) + g * g
            w = w - rate * g / (np.sqrt(st["acc"]) + 1e-7)
        elif kind == "adadelta":
            rho, eps = 0.95, 1e-7
            st["ag"] = rho * st.get("ag", Z) + (1 - rho) * g * g
            up = np.sqrt(st.get("av", Z) + eps) / np.sqrt(st["ag"] + eps) * g
            w = w - rate * up
            st["av"] = rho * st.get("av", Z) + (1 - rho) * up * up
        elif kind == "adamax":
            b1, b2, eps = 0.9, 0.999, 1e-7
            st["m"] = st.get("m", Z) + (g - st.get("m", Z)) * (1 - b1)
            st["u"] = np.maximum(b2 * st.get("u", Z), np.abs(g))
            w = w - rate / (1 - b1 ** t) * st["m"] / (st["u"] + eps)
        elif kind == "nadam":
            b1, b2, eps, d = 0.9, 0.999, 1e-7, 0.004
            m_t = b1 * (1 - 0.5 * 0.96 ** (d * t))
            m_t1 = b1 * (1 - 0.5 * 0.96 ** (d * (t + 1)))
            st["cache"] = st.get("cache", 1.0) * m_t
            nxt = st["cache"] * m_t1
            gp = g / (1 - st["cache"])
            st["m"] = b1 * st.get("m", Z) + (1 - b1) * g
            st["v"] = b2 * st.get("v", Z) + (1 - b2) * g * g
            mbar = (1 - m_t) * gp + m_t1 * st["m"] / (1 - nxt)
            w = w - rate * mbar / (np.sqrt(st["v"] / (1 - b2 ** t)) + eps)
        elif kind == "ftrl":
            w = ftrl_step(w, g, st, rate, o)   # keras/optimizers/ftrl.py and legacy/ftrl.py: TF's ApplyFtrl(V2)
    return w, st


def fmt(a):
    return " ".join("%.4f" % x for x in a)


lines = []
for label, args in [
    ("SGD", ("sgd", 0.1)),
    ("SGD momentum", ("sgd", 0.1, 4, {"momentum": 0.9})),
    ("SGD nesterov", ("sgd", 0.1, 4, {"momentum": 0.9, "nesterov": True})),
    ("SGD decay", ("sgd", 0.1, 4, {"decay": 0.5})),
    ("SGD clipvalue clipnorm", ("sgd", 0.1, 4, {"clipvalue": 2.0, "clipnorm": 1.5})),
    ("SGD global_clipnorm", ("sgd", 0.1, 4, {"global_clipnorm": 2.0})),
    ("SGD schedule", ("sgd", lambda s: 0.1 * 0.5 ** (s / 2.0))),
    ("Adam", ("adam", 0.1)),
    ("Adam amsgrad", ("adam", 0.1, 4, {"amsgrad": True})),
    ("Adam decay", ("adam", 0.1, 4, {"decay": 0.25})),
    ("RMSprop", ("rmsprop", 0.1)),
    ("RMSprop centered", ("rmsprop", 0.1, 4, {"centered": True})),
    ("RMSprop momentum", ("rmsprop", 0.1, 4, {"momentum": 0.5})),
    ("RMSprop momentum centered", ("rmsprop", 0.1, 4, {"momentum": 0.5, "centered": True})),
    ("Adagrad", ("adagrad", 0.1)),
    ("Adadelta", ("adadelta", 1.0)),
    ("Adamax", ("adamax", 0.1)),
    ("Nadam", ("nadam", 0.1)),
    ("Ftrl", ("ftrl", 0.1)),
    ("Ftrl l1 l2 shrinkage beta", ("ftrl", 0.5, 4, {"lr_power": -0.7, "init": 0.2, "l1": 0.3, "l2": 0.1, "shrink": 0.05, "beta": 0.4})),
]:
    kind, lr = args[0], args[1]
    o = args[3] if len(args) > 3 else {}
    w, st = run(kind, lr, 4, **o)
    lines.append(label + " " + fmt(w))
# the slots after Adam's 4 steps, read through get_slot
w, st = run("adam", 0.1)
lines.append("m " + fmt(st["m"]) + " v " + fmt(st["v"]))
# the learning rate is a Variable once made: a new value reaches the traced step (w -= lr * 2 per step)
x = 1.0 - 0.1 * 2
lines.append("%.4f" % x)
x -= 0.5 * 2
lines.append("%.4f 0.5000 2 2" % x)   # two traces: the first made the hyperparameter Variables
lines.append("['m', 'v'] ['Adam/iter:0', 'Adam/w/m:0', 'Adam/w/v:0']")
lines.append("['Nadam/iter:0', 'Nadam/momentum_cache:0', 'Nadam/w/m:0', 'Nadam/w/v:0']")
lines.append("['RMSprop/iter:0', 'RMSprop/w/rms:0', 'RMSprop/w/momentum:0', 'RMSprop/w/mg:0']")
lines.append("{'name': 'SGD', 'clipnorm': 1.0, 'learning_rate': 0.01, 'decay': 0.0, 'momentum': 0.0, 'nesterov': False}")
lines.append("{'name': 'Adam', 'learning_rate': 0.5, 'decay': 0.1, 'beta_1': 0.9, 'beta_2': 0.999, 'epsilon': 1e-07, 'amsgrad': False}")
lines.append("{'name': 'Nadam', 'learning_rate': 0.001, 'decay': 0.004, 'beta_1': 0.9, 'beta_2': 0.999, 'epsilon': 1e-07}")
lines.append("{'name': 'Ftrl', 'learning_rate': 0.001, 'decay': 0.0, 'initial_accumulator_value': 0.1, 'learning_rate_power': -0.5, "
             "'l1_regularization_strength': 0.0, 'l2_regularization_strength': 0.0, 'beta': 0.0, 'l2_shrinkage_regularization_strength': 0.0}")
lines.append("SGD 0.5 True False")
# model.fit with a legacy SGD(0.1, momentum=0.5): Dense(1) from zeros, mse on the whole batch, 3 epochs
X = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0], [2.0, 0.0]])
Y = np.array([[1.0], [2.0], [0.0], [1.0]])
W, b = np.zeros((2, 1)), np.zeros(1)
mw, mb = np.zeros((2, 1)), np.zeros(1)
for _ in range(3):
    e = X @ W + b - Y
    gw, gb = 2.0 / 4 * X.T @ e, 2.0 / 4 * e.sum(0)
    mw, mb = 0.5 * mw - 0.1 * gw, 0.5 * mb - 0.1 * gb
    W, b = W + mw, b + mb
lines.append("fit " + fmt(W[:, 0]) + " " + fmt(b) + " 3")
lines.append("ValueError: Expected decay >= 0, received: -1.0")
lines.append("ValueError: Cannot accept both `clipnorm` and `global_clipnorm`. Received: `clipnorm`=1.0, `global_clipnorm`=1.0.")
lines.append("ValueError: `momentum` must be between [0, 1]. Received: momentum=1.5 (of type <class 'float'>).")
lines.append("ValueError: initial_accumulator_value must be non-negative: -0.1")
lines.append("ValueError: The Nadam optimizer does not support tf.keras.optimizers.LearningRateSchedules as the learning rate.")
lines.append("ValueError: `l1_regularization_strength` needs to be positive or zero. Received: l1_regularization_strength=-1.0.")
lines.append("TypeError Unexpected keyword argument passed to optimizer: betas")
# saved and loaded (.keras, .h5): an Adam of the legacy module again, its config as given; the .h5 file restores the
# iteration count (4 samples / batch 2 = 2 steps) and the slots, so one more epoch on each ends alike
for name in ("m.keras", "m.h5"):
    lines.append("%s Adam True 0.25 0.01 False" % name)
lines.append("2 ['Adam/iter:0']")
lines.append("[True, True] 4")
with open(os.path.join(HERE, "programs", "keras_optimizers_legacy.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
# under `tfs run --eager` the step is never traced
with open(os.path.join(HERE, "programs", "keras_optimizers_legacy.eager.out"), "w") as f:
    f.write("\n".join(l.replace("0.5000 2 2", "0.5000 0 2") for l in lines) + "\n")
