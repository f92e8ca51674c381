#!/usr/bin/python3
# gen_keras_focal_loss.py — writes tests/programs/keras_focal_loss.out: Keras 2.15's binary focal crossentropy, with PyTorch.
"""Independent reference for keras_focal_loss.tfs.

    /usr/bin/python3 tests/gen_keras_focal_loss.py

Keras 2.15 (losses.binary_focal_crossentropy, backend.binary_focal_crossentropy): labels smoothed to
y (1 - s) + s / 2; p = sigmoid(logits) or the prediction; bce = -(y log(clip(p) + eps) + (1 - y) log(1 - clip(p) + eps))
(eps 1e-7; from logits: relu(x) - x y + log(1 + exp(-|x|))); p_t = y p + (1 - y)(1 - p); loss = (1 - p_t)^gamma bce,
times y alpha + (1 - y)(1 - alpha) with apply_class_balancing; mean over the last axis; the class reduces with
sum_over_batch_size (sum of weighted losses / batch), sum or none.  The fit lines train Dense(1, sigmoid) with
SGD(0.5) on one batch of 4 for 2 epochs (gradients by torch autograd in float64).  Printed to 5 decimals.
"""
import os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-7


def focal(y, p, gamma=2.0, alpha=0.25, balance=False, logits=False, smoothing=0.0):
    y = y * (1.0 - smoothing) + smoothing / 2.0
    if logits:
        prob = torch.sigmoid(p)
        bce = torch.relu(p) - p * y + torch.log(1.0 + torch.exp(-torch.abs(p)))
    else:
        prob = p
        c = torch.clamp(p, EPS, 1.0 - EPS)
        bce = -(y * torch.log(c + EPS) + (1.0 - y) * torch.log(1.0 - c + EPS))
    p_t = y * prob + (1.0 - y) * (1.0 - prob)
    out = (1.0 - p_t) ** gamma * bce
    if balance:
        out = (y * alpha + (1.0 - y) * (1.0 - alpha)) * out
    return out.mean(-1)


def fmt(v):
    vals = np.reshape(np.asarray(v, dtype=np.float64), [-1])
    for x in vals:
        assert abs(abs(x) * 1e5 % 1 - 0.5) > 1e-3, x
    return " ".join("%.5f" % x for x in vals)


T = lambda a: torch.tensor(a, dtype=torch.float64)
y = T([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
p = T([[0.2, 0.7, 0.95], [0.4, 0.1, 0.6]])
logits = T([[-1.5, 0.5, 2.0], [0.25, -2.0, 1.0]])
lines = [
    fmt(focal(y, p)),
    fmt(focal(y, p, gamma=0.0)),
    fmt(focal(y, logits, logits=True, gamma=1.5)),
    fmt(focal(y, p, balance=True, alpha=0.4, smoothing=0.1)),
    fmt(focal(y, p).mean()),
    fmt(focal(y, p, gamma=3.0).sum()),
    fmt(focal(y, logits, logits=True)),
    fmt((focal(y, p, balance=True) * T([1.0, 0.5])).sum() / 2),
    "binary_focal_crossentropy BinaryFocalCrossentropy",
]
w = T([[0.5], [-0.25]]).requires_grad_()
b = T([0.1]).requires_grad_()
x = T([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7], [2.0, 1.0]])
t = T([[1.0], [0.0], [1.0], [0.0]])
losses = []
for epoch in range(2):
    loss = focal(t, torch.sigmoid(x @ w + b)).mean()
    losses.append(loss.item())
    gw, gb = torch.autograd.grad(loss, [w, b])
    with torch.no_grad():
        w -= 0.5 * gw
        b -= 0.5 * gb
lines.append(fmt(losses))
with open(os.path.join(HERE, "programs", "keras_focal_loss.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
