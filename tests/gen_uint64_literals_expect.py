#!/usr/bin/python3
# gen_uint64_literals_expect.py — writes tests/programs/uint64_literals.out: Python's ints and numpy's uint64 printing, TF 2.15's conversion rules.
"""TF's rules (tensorflow/python/lib/core/py_seq_tensor.cc): a Python int converts through the requested
dtype's converter when TF has one (uint64, float32, float64, complex128 take 2**64 - 1), else through int64's,
which raises "Can't convert Python sequence with out-of-range integer to Tensor." (a ValueError) for an int
above int64; without a dtype an int is int32 or int64, so the same error.  Tensors print as numpy prints their
values.  Arithmetic beyond int64 is Python's (unbounded ints); an int beyond uint64 converts only through the
float converters."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "programs", "uint64_literals.out")
ERR = "Can't convert Python sequence with out-of-range integer to Tensor."


def tensor(a, dt):
    a = np.asarray(a, dtype=dt)
    shape = "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (np.array2string(a, separator=" ") if a.ndim else str(a[()]),
                                                   shape, np.dtype(dt).name)


def main():
    x = 2**64 - 1
    lines = []
    lines.append(" ".join(str(v) for v in [x, type(x).__name__, x == 2**64 - 1, x > 2**63, 2**63 < x, x != 7,
                                            hash(x), hash(2**63)]))
    lines.append(" ".join(str(v) for v in [2**63, 2**62 * 4 - 1, 2**64 - 2**63, -(2**63), 0xFFFFFFFFFFFFFFFF,
                                            {x: "max"}[2**64 - 1], [x], (2**63,)]))
    lines.append(tensor(x, np.uint64))
    lines.append(tensor([x, 2**63, 7], np.uint64))
    a = np.array([[2**63 + 5], [1]], dtype=np.uint64)
    lines.append("<tf.Tensor: shape=(2, 1), dtype=uint64, numpy=\n%s>" % repr(a))
    lines.append(tensor(np.float32(x), np.float32) + " " + tensor(np.float64(x), np.float64))
    lines.append("%s %s" % (np.uint64(x), [x]))
    lines.append(str(np.uint64(x)))
    lines.append("%s %s" % (np.uint64(x), np.array([x, 3], dtype=np.uint64)))
    for dt in ["None", "<dtype: 'int64'>", "<dtype: 'int32'>", "<dtype: 'uint32'>", "<dtype: 'uint8'>",
               "<dtype: 'float16'>", "<dtype: 'bool'>"]:
        lines.append("%s ValueError: %s" % (dt, ERR))
    lines.append("%d %d %d" % (x + 1, x * x, -x - 1))
    for dt in ["None", "<dtype: 'int64'>", "<dtype: 'uint64'>"]:
        lines.append("%s ValueError: %s" % (dt, ERR))
    lines.append(tensor(np.float32(2**70), np.float32) + " " + tensor(np.array([2**70, -(2**80)], np.float64), np.float64))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
