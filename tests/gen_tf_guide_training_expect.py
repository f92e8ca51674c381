#!/usr/bin/python3
"""gen_tf_guide_training_expect.py — numpy oracle for examples/tf_guides/basic_training_loops: writes its .out.re.

Run with /usr/bin/python3 (numpy 1.24) from the source root.  The guide program's data is numpy's seeded normal noise
(as float32) on a float32 line; the losses and weights it prints are computed here in float64 and in float32 (numpy's
summation order); where the two round differently at the printed precision (a float32 sum's last bit depends on the
order of the additions) the line accepts both.  fit's progress lines are matched without their timings."""
import re

import numpy as np

np.random.seed(0)
x32 = np.linspace(-2, 2, 201).astype(np.float32)
y32 = (x32 * np.float32(3.0) + np.float32(2.0)) + np.random.randn(201).astype(np.float32)
x, y = x32.astype(np.float64), y32.astype(np.float64)


def loss(w, b):
    return np.mean((y - (w * x + b)) ** 2)


def loss32(w, b):
    return np.mean(np.square(y32 - (np.float32(w) * x32 + np.float32(b))))


def either(fmt, a, b):
    """A regex matching fmt % a or fmt % b (the float64 and float32 results)."""
    sa, sb = fmt % a, fmt % b
    return re.escape(sa) if sa == sb else "(%s|%s)" % (re.escape(sa), re.escape(sb))


def train(w, b, lr=0.1):
    r = (w * x + b) - y
    return w - lr * np.mean(2 * r * x), b - lr * np.mean(2 * r)


lines = [re.escape("<dtype: 'float32'> (201,) (201,)"),
         re.escape("Variables: (<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.0>, "
                   "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=5.0>)")]
w, b = 5.0, 0.0
start = loss(w, b)
lines.append("Current loss: " + either("%1.6f", start, loss32(w, b)))
lines.append("Starting:")
report = lambda w, b: re.escape(f"     W = {w:1.2f}, b = {b:1.2f}, loss=") + either("%2.5f", start, loss32(5.0, 0.0))
lines.append(report(w, b))
fit_losses, epochs = [], []
for epoch in range(10):
    fit_losses.append((loss(w, b), loss32(w, b)))
    w, b = train(w, b)
    epochs += [re.escape(f"Epoch {epoch:2d}:"), report(w, b)]
lines += epochs
lines.append(re.escape(f"10 10 {w:.4f} {b:.4f}"))
lines.append("Current loss: " + either("%1.6f", loss(w, b), loss32(w, b)))
lines += epochs   # the Keras model trained by the same loop
lines.append(re.escape("['checkpoint', 'my_checkpoint.data-00000-of-00001', 'my_checkpoint.index']"))
lines.append("201")
for k, (l64, l32) in enumerate(fit_losses):
    lines.append(re.escape(f"Epoch {k + 1}/10"))
    lines.append(r"1/1 \[==============================\] \- \d+s \d+(s|ms|us)/step \- loss: " + either("%.4f", l64, l32))
lines.append(re.escape(f"W = {w:1.2f}, b = {b:1.2f}"))
with open("examples/tf_guides/basic_training_loops.out.re", "w") as out:
    out.write("".join("^%s$\n" % l for l in lines))
