#!/usr/bin/python3
# gen_nn_loss_expect.py — writes tests/programs/nn_compute_average_loss.out from numpy (TF 2.15's nn_impl semantics: sum of the weighted per-example losses over the global batch, 0 for a zero batch; regularization over the replicas).
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def t(v, dt="float32"):
    return "tf.Tensor(%s, shape=(), dtype=%s)" % (repr(float(v)) if dt == "float64" else str(np.float32(v)), dt)


def avg(losses, w=None, gbs=None, dt=np.float32):
    x = np.asarray(losses, dt)
    if w is not None:
        w = np.asarray(w, dt)
        if w.ndim == x.ndim - 1:
            w = w[..., None]
        x = x * np.broadcast_to(w, x.shape)
    gbs = x.shape[0] * 1 if gbs is None else gbs    # one replica
    return dt(0) if gbs == 0 else dt(x.sum(dtype=dt) / dt(gbs))


l = [1.0, 2.0, 3.0, 4.0]
out = [t(avg(l)), t(avg(l, gbs=8)), t(avg(l, [1.0, 0.0, 1.0, 0.5], 5)), t(avg(l, [1.0, 0.0, 1.0, 0.5], 0)),
       t(avg([[1.0, 2.0], [3.0, 4.0]], [2.0, 1.0])), t(avg([0.5, 1.5], gbs=4, dt=np.float64), "float64"),
       t(np.float32(4.0) / 1),
       t(avg(l)) + " " + t(np.float32(2.0)),
       "RuntimeError: You are calling `compute_average_loss` in cross replica context, while it was expected to be called in replica context.",
       "RuntimeError: You are calling `scale_regularization_loss` in cross replica context, while it was expected to be called in replica context.",
       "ValueError: Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. Received per_example_loss=2.0 with rank 0"]
with open(os.path.join(HERE, "programs", "nn_compute_average_loss.out"), "w") as f:
    f.write("\n".join(out) + "\n")
