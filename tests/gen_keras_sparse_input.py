#!/usr/bin/python3
# gen_keras_sparse_input.py — writes tests/programs/keras_sparse_input.out: a model on a sparse input, recomputed with numpy.
"""Independent reference for keras_sparse_input.tfs.

    /usr/bin/python3 tests/gen_keras_sparse_input.py

Keras 2.15: Dense on a tf.SparseTensor sums the kernel rows weighted by the entries (embedding_lookup_sparse,
combiner "sum"), the product of the dense matrix with the kernel.  fit with shuffle=False takes batches of rows
in order; the reported epoch loss is the mean of the batch losses weighted by the batch sizes; SGD(0.1) without
momentum: w -= 0.1 * g.  validation_split only splits tf.Tensor and ndarray inputs (data_adapter's message).
Computed in float64, printed to 5 decimals away from rounding ties.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.zeros((5, 4))
for (r, c), v in zip([[0, 1], [0, 3], [1, 0], [2, 2], [3, 0], [3, 1], [3, 2], [4, 3]], [1.5, -2.0, 3.0, 0.5, 1.0, 1.0, -1.0, 2.5]):
    X[r, c] = v
Y = np.array([[1.0], [0.5], [-0.5], [2.0], [0.0]])
W = [np.array([[0.5, -0.25, 0.125], [0.75, 0.5, -0.5], [-0.375, 0.25, 1.0], [0.25, 0.625, -0.75]]),
     np.array([0.0531, 0.1072, -0.0473]), np.array([[0.531], [-0.717], [0.673]]), np.array([0.2137])]


def forward(w, x):
    z = x @ w[0] + w[1]
    h = np.maximum(z, 0.0)
    return z, h, h @ w[2] + w[3]


def fmt(values):
    out = []
    for v in np.reshape(values, [-1]):
        assert abs(abs(v) * 1e5 % 1 - 0.5) > 1e-3, v
        out.append("%.5f" % v)
    return " ".join(out)


def step(w, x, y, lr=0.1):
    z, h, p = forward(w, x)
    loss = np.mean((p - y) ** 2)
    dp = 2.0 * (p - y) / p.size
    g3, g2 = dp.sum(0), h.T @ dp
    dz = (dp @ w[2].T) * (z > 0)
    g1, g0 = dz.sum(0), x.T @ dz
    return [w[0] - lr * g0, w[1] - lr * g1, w[2] - lr * g2, w[3] - lr * g3], loss


pred = forward(W, X)[2]
lines = ["(None, 4) (None, 1)", fmt(pred), fmt(pred), fmt([np.mean((pred - Y) ** 2)])]
w = W
epoch_losses = []
for epoch in range(2):
    total = 0.0
    for lo, hi in [(0, 2), (2, 4), (4, 5)]:
        w, loss = step(w, X[lo:hi], Y[lo:hi])
        total += loss * (hi - lo)
    epoch_losses.append(total / 5)
lines += [fmt(epoch_losses), fmt(w[0]), fmt(forward(w, X)[2]), "['loss'] 2",
          "ValueError: `validation_split` is only supported for Tensors or NumPy arrays, found following types in the "
          "input: [<class 'tensorflow.python.framework.sparse_tensor.SparseTensor'>]",
          "[(4, 3), (3,), (3, 1), (1,)]"]
with open(os.path.join(HERE, "programs", "keras_sparse_input.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
