#!/usr/bin/env python3
"""gen_keras_focal.py — expected output of tests/programs/keras_losses_categorical_focal.tfs, with numpy.

Keras 2.15's backend.categorical_focal_crossentropy: softmax of logits, probabilities renormalized over the last
axis and clipped to [1e-7, 1 - 1e-7], then sum(alpha * (1 - p)^gamma * -y * log p) over the classes; labels smoothed
as y * (1 - s) + s / classes; the class's reduction is the mean over the batch (sum_over_batch_size), "sum" the sum.
usage: gen_keras_focal.py > tests/programs/keras_losses_categorical_focal.out
"""
import numpy as np

F = np.float32
YT = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], F)
YP = np.array([[0.05, 0.9, 0.05], [0.1, 0.85, 0.05]], F)
LG = np.array([[1.0, 3.0, -1.0], [0.5, 2.0, 0.0]], F)


def focal(y, p, alpha=0.25, gamma=2.0, logits=False, smooth=0.0):
    y = y * F(1 - smooth) + F(smooth) / F(y.shape[-1]) if smooth else y
    if logits:
        e = np.exp(p - p.max(-1, keepdims=True))
        p = e / e.sum(-1, keepdims=True)
    p = p / p.sum(-1, keepdims=True)
    p = np.clip(p, F(1e-7), F(1 - 1e-7))
    return np.sum(F(alpha) * np.power(1 - p, F(gamma)) * (-y * np.log(p)), axis=-1).astype(F)


def r(a):
    return [round(float(v), 5) for v in np.asarray(a, F).reshape(-1)]


print(r(focal(YT, YP)))
print(r(focal(YT, YP, alpha=0.5, gamma=1.0)))
print(r(focal(YT, LG, logits=True)))
print(r(focal(YT, YP, smooth=0.2)))
print("categorical_focal_crossentropy", r([focal(YT, YP).mean()]))
print(r([focal(YT, LG, gamma=3.0, logits=True).sum()]))
print(r(focal(YT, YP) * np.array([0.5, 2.0], F)))
print(r(focal(YT, YP)))
print("CategoricalFocalCrossentropy")
