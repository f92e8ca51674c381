#!/usr/bin/env python3
"""gen_keras_sequence.py — expected output of tests/programs/keras_utils_sequence.tfs, computed with numpy.

Keras 2.15 trains on a keras.utils.Sequence batch by batch, in index order with shuffle=False (KerasSequenceAdapter), one SGD step per
batch of Dense(1) under mse; the epoch's loss is the batch losses' mean weighted by batch size (the loss tracker's
sample_weight is the batch size); the adapter's on_epoch_end calls the Sequence's after fit's epochs, evaluate and
predict. usage: gen_keras_sequence.py > tests/programs/keras_utils_sequence.out
"""
import numpy as np

F = np.float32
X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0], [-1.0, 1.5], [0.0, 3.0]], dtype=F)
Y = np.array([[1.0], [0.0], [2.0], [-0.5], [1.5]], dtype=F)
W = np.array([1.0, 2.0, 0.5, 1.0, 3.0], dtype=F)


def batches(bs, weighted):
    for i in range((len(X) + bs - 1) // bs):
        sl = slice(i * bs, (i + 1) * bs)
        yield X[sl], Y[sl], (W[sl] if weighted else np.ones(len(X[sl]), F))


def fit(epochs, bs=2, weighted=False):
    k = np.full((2, 1), 0.5, F)
    b = np.zeros((1,), F)
    hist = []
    for _ in range(epochs):
        tot, n = 0.0, 0
        for x, y, w in batches(bs, weighted):
            e = x @ k + b - y
            # mse per sample (mean over the last axis), weighted, summed over the batch size
            loss = np.sum(w * np.mean(e * e, axis=1)) / len(x)
            g = 2.0 * e * w[:, None] / len(x)
            k = (k - F(0.02) * (x.T @ g)).astype(F)
            b = (b - F(0.02) * g.sum(0)).astype(F)
            tot += float(loss) * len(x)
            n += len(x)
        hist.append(tot / n)
    return k, b, hist


out = ["3 True"]
k, b, hist = fit(3)
out.append(str([f"{v:.5f}" for v in hist]))
out.append("on_epoch_end calls: 3 items: [0, 1, 2]")
e = X @ k + b - Y
out.append(f"{float(np.mean(e * e)):.5f} on_epoch_end calls: 4")
p = (X @ k + b)[:, 0]
out.append(f"(5, 1) {[f'{float(v):.5f}' for v in p]} on_epoch_end calls: 5")
k2, b2, hist2 = fit(2, weighted=True)
out.append(str([f"{v:.5f}" for v in hist2]))
out.append("['loss', 'val_loss'] 2 2")
out.append("[(2, 2), (2, 2), (1, 2)]")
out.append("ValueError: `y` argument is not supported when using `keras.utils.Sequence` as input.")
out.append("ValueError: `sample_weight` argument is not supported when using `keras.utils.Sequence` as input.")
out.append("ValueError: `validation_split` is only supported for Tensors or NumPy arrays, found following types in the input: [<Batches>]")
out.append("NotImplementedError")
print("\n".join(out))
