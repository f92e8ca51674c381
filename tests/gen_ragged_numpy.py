#!/usr/bin/python3
"""gen_ragged_numpy.py — writes tests/programs/ragged_numpy.out: numpy 1.24 runs TF 2.15's RaggedTensor.numpy()
(ragged_tensor.py: the rows sliced from values.numpy() by row_splits; np.array of them, dtype=object when their lengths
differ; no rows: zeros of shape (0, 0) + values.shape[1:]) on the values and splits of ragged_numpy.tfs.

    /usr/bin/python3 tests/gen_ragged_numpy.py
"""
import contextlib
import io
import os

import numpy as np


def ragged_numpy(values, splits):
    rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
    if not rows:
        return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
    ragged = any(len(r) != len(rows[0]) for r in rows)
    return np.array(rows, dtype=object if ragged else None)


def main():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        a = ragged_numpy(np.array([1, 2, 3, 4, 5, 6], np.int32), [0, 1, 3, 6])   # [[1], [2, 3], [4, 5, 6]]
        print(type(a).__name__, a.dtype, a.shape)
        print(a)
        print(repr(a))
        print(ragged_numpy(np.array([1, 2, 3, 4], np.int32), [0, 2, 4]))
        inner = ragged_numpy(np.array([1, 2, 3, 4], np.int32), [0, 1, 3, 4])     # [[[1], [2, 3]], [[4]]]
        print(repr(ragged_numpy(inner, [0, 2, 3])))
        print(repr(ragged_numpy(np.array([b"a", b"b", b"c"], dtype=object), [0, 1, 3])))
        print(repr(ragged_numpy(np.array([1.5], np.float32), [0, 1, 1])))
        print(repr(ragged_numpy(np.zeros([0, 2], np.float32), [0])))
        # as_numpy_iterator of ragged_batch(2): the batches' numpy()
        print([ragged_numpy(np.array([1, 2, 3], np.int32), [0, 1, 3]), np.array([[4, 5, 6]], np.int32)])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "ragged_numpy.out")
    with open(path + ".tmp", "w") as f:
        f.write(out.getvalue())
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
