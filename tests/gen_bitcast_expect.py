#!/usr/bin/python3
"""gen_bitcast_expect.py — the expected output of tests/programs/bitcast.tfs: tf.bitcast's results from numpy's .view.

    /usr/bin/python3 tests/gen_bitcast_expect.py        # writes tests/programs/bitcast.out and bitcast.eager.out

TF's Bitcast reads the input's bytes as the new dtype (little-endian, as numpy's .view on this machine): a smaller
type adds a last dimension of size(T) / size(type), a larger one drops the last dimension, which must be that ratio.
The messages are TF's: the CPU kernel (tensorflow/c/kernels/bitcast_op.cc) names dtypes by their DataType numbers,
the shape function (array_ops.cc) speaks while a tf.function is traced, and a dtype outside the op's list fails
the attribute check.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "programs", "bitcast.out")


def bitcast(a, dt):
    a = np.array(a, order="C")   # (ascontiguousarray would make a scalar 1-d)
    n_in, n_out = a.dtype.itemsize, np.dtype(dt).itemsize
    if n_in > n_out:
        return a.reshape(a.shape + (1,)).view(dt)            # (..., 1) of T viewed as (..., ratio) of type
    if n_in < n_out:
        return a.view(dt).reshape(a.shape[:-1])              # the last dimension (the ratio) becomes one element
    return a.view(dt)


def tf_str(v):
    # TF's print of an eager tensor: numpy's array text, on its own line below "tf.Tensor(" when it has several
    body = np.array2string(v, separator=" ", max_line_width=75) if v.ndim else str(v)
    shape = "(" + ", ".join(str(d) for d in v.shape) + ("," if v.ndim == 1 else "") + ")"
    return "tf.Tensor(" + ("\n" if "\n" in body else "") + body + f", shape={shape}, dtype={v.dtype})"


def main():
    cases = [
        (np.array(0xffffffff, np.uint32), np.uint8),
        (np.array([0., 1., 1.], np.float32), np.uint8),
        (np.array([[1.5, -2.0], [0.25, 3.0]], np.float32), np.int32),
        (np.array([1.0, -1.0], np.float64), np.uint64),
        (np.array([[1, 2, 3, 4], [-1, -2, -3, -4]], np.int8), np.int32),
        (np.array([[1, 0], [255, 255]], np.uint8), np.int16),
        (np.array([1.0, 2.0], np.float16), np.uint16),
        (np.array([1 + 2j], np.complex64), np.float32),
        (np.array([[0.0, 1.0], [2.0, -3.0]], np.float64), np.complex128),
        (np.array([7], np.int64), np.int16),
        (np.array([2.0, 1.0], np.float32), np.int32),
        (np.array([[258, -1]], np.int16), np.int8),
    ]
    lines = [tf_str(bitcast(a, dt)) for a, dt in cases]
    all_types = "bfloat16, half, float, double, int32, int64, uint8, int8, int16, uint16, uint32, uint64, complex64, complex128"
    lines += [
        "InvalidArgumentError: Cannot bitcast from 1 to 18",    # float32 [3] -> complex128: the last dim is not 4
        "InvalidArgumentError: Cannot bitcast from 6 to 3",     # an int8 scalar -> int32: no last dimension
        "InvalidArgumentError: Cannot bitcast from 5 to 2",     # int16 [3] -> float64
        "InvalidArgumentError: Cannot bitcast from 6 to 3",     # int8 [3] -> int32
        f"InvalidArgumentError: Value for attr 'type' of bool is not in the list of allowed values: {all_types} ; NodeDef: {{{{node Bitcast}}}}",
        f"InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: {all_types} ; NodeDef: {{{{node Bitcast}}}}",
    ]
    with open(OUT, "w") as f:   # traced, the shape function speaks
        f.write("\n".join(lines + ["ValueError: Cannot bitcast due to shape. 3 does not match 4"]) + "\n")
    with open(OUT.replace(".out", ".eager.out"), "w") as f:   # run eagerly (tfs run --eager), the kernel
        f.write("\n".join(lines + ["InvalidArgumentError: Cannot bitcast from 6 to 3"]) + "\n")


if __name__ == "__main__":
    main()
