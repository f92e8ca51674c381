#!/usr/bin/python3
# gen_keras_datasets_expect.py — writes tests/programs/keras_datasets_cache.out: Keras 2.15's fashion_mnist and boston_housing loaders modelled in numpy.
"""Reference for tests/programs/keras_datasets_cache.tfs (Keras is not installed here).

    /usr/bin/python3 tests/gen_keras_datasets_expect.py

The program writes small stand-ins for Keras's cached files (fashion-mnist's four gzipped IDX files, a
boston_housing.npz) into a temporary KERAS_HOME and loads them. This model builds the same arrays and applies
Keras 2.15's loaders as written in keras/src/datasets/fashion_mnist.py (np.frombuffer after an 8- or 16-byte
header, images reshaped to (n, 28, 28)) and boston_housing.py (np.random.RandomState(seed).shuffle of the
row indices, the first int(n * (1 - test_split)) rows for training), and get_file's messages
(keras/src/utils/data_utils.py).
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def fashion():
    ytr = (np.arange(5) * 3 % 10).astype(np.uint8)
    xtr = (np.arange(5 * 784) % 251).astype(np.uint8).reshape(5, 28, 28)
    yte = np.array([9, 0], np.uint8)
    xte = (np.arange(2 * 784) % 7).astype(np.uint8).reshape(2, 28, 28)
    return (xtr, ytr), (xte, yte)


def boston(test_split, seed):
    x = np.arange(20 * 13, dtype=np.float64).reshape(20, 13) / 7
    y = np.arange(20, dtype=np.float64) * 1.5
    rng = np.random.RandomState(seed)
    idx = np.arange(len(x))
    rng.shuffle(idx)
    x, y = x[idx], y[idx]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def main():
    out = []
    (xtr, ytr), (xte, yte) = fashion()
    out.append("fashion %s %s %s %s %s" % (xtr.shape, xtr.dtype, ytr.shape, xte.shape, yte.dtype))
    out.append("%s %s %d %d" % (ytr.tolist(), yte.tolist(), int(xtr.sum()), int(xte[1, 27].sum())))
    for split, seed in [(0.2, 113), (0.25, 5)]:
        (a, b), (c, d) = boston(split, seed)
        out.append("boston %s %s %s %s" % (a.shape, b.shape, c.shape, d.shape))
        out.append("%s %s" % (b.tolist(), d.tolist()))
        out.append("%r" % a[0, :3].tolist())
    out.append("AssertionError")
    out.append("True True")
    out.append("True")
    out.append('ValueError: Please specify the "origin" argument (URL of the file to download).')
    out.append("ValueError: Can't parse the file name from the origin provided: 'https://example.com/'.Please specify the `fname` as the input param.")
    out.append("OSError True")
    with open(os.path.join(HERE, "programs", "keras_datasets_cache.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
