#!/usr/bin/python3
"""gen_dtypes_expect.py — the golden program of the small dtypes (int8 int16 uint16 uint32 uint64 float16 bfloat16), with numpy expectations.

    /usr/bin/python3 tests/gen_dtypes_expect.py        # writes tests/programs/dtypes_small{,_ops}.tfs and .out

Each case is a .tfs expression giving a tensor and the numpy array TF holds for it; the program prints
str() of the tensor (TF: "tf.Tensor(<numpy str of the value>, shape=.., dtype=..)").  numpy has float16
natively (TF's casts to half round to nearest even, as numpy's); bfloat16 is built here from float32 bits
with round-to-nearest-even, and prints as ml_dtypes prints it (each element as C++ `ostream << float`,
i.e. %g).  The dtype attribute lines come from numpy's iinfo/finfo.

dtypes_small_ops: arithmetic, comparisons, reductions, matmul and a gradient on them.  TF's CPU kernels
for Eigen::half compute each op in float32 and round the result to half (numpy's float16 ufuncs do the
same); reductions and matmul accumulate in float32 and round once; small ints wrap in their width.
The oracle below writes that out in float32 (h() rounds a float32 result to half).
"""
import os

import numpy as np

np.seterr(all="ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
NAME = "dtypes_small"


class BF16:
    """A bfloat16 array: the float32 values it holds."""

    def __init__(self, values):
        bits = np.asarray(values, np.float32).reshape(-1).view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16   # round to nearest even (no NaN in the cases)
        self.v = (bits << 16).astype(np.uint32).view(np.float32)


def tstr(a):
    if isinstance(a, BF16):
        return "tf.Tensor([%s], shape=(%d,), dtype=bfloat16)" % (" ".join("%g" % x for x in a.v), a.v.size)
    text = str(a)
    if "\n" in text:   # TF's numpy_text starts a multi-line value on its own line
        text = "\n" + text
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (text, tuple(a.shape), a.dtype.name)


F = [1.5, -2.25, 0.1, 1.0 / 3.0, 3.14159, 100.7]
SMALL = ["int8", "int16", "uint16", "uint32", "uint64", "float16", "bfloat16"]

CASES = [
    # tf.constant from Python values
    ("tf.constant([1, -2, 127, -128], dtype=tf.int8)", np.array([1, -2, 127, -128], np.int8)),
    ("tf.constant([1, -2, 32767], dtype=tf.int16)", np.array([1, -2, 32767], np.int16)),
    ("tf.constant([0, 65535], dtype=tf.uint16)", np.array([0, 65535], np.uint16)),
    ("tf.constant([0, 4294967295], dtype=tf.uint32)", np.array([0, 4294967295], np.uint32)),
    ("tf.constant([0, 9223372036854775807], dtype=tf.uint64)", np.array([0, 9223372036854775807], np.uint64)),
    ("tf.constant([1.0, 2.5, 0.1, 65504.0], dtype=tf.float16)", np.array([1.0, 2.5, 0.1, 65504.0], np.float16)),
    ("tf.constant([1, 2, 3], dtype=tf.float16)", np.array([1, 2, 3], np.float16)),
    ("tf.constant(0.1, dtype=tf.float16)", np.float16(0.1)),
    ("tf.constant([[1.5, 2.0], [3.25, -4.0]], dtype=tf.float16)", np.array([[1.5, 2.0], [3.25, -4.0]], np.float16)),
    ("tf.constant([1.0, 2.5, 0.1, 300.0], dtype=tf.bfloat16)", BF16([1.0, 2.5, 0.1, 300.0])),
    # float16 rounding: halfway cases, overflow to inf, subnormals and underflow to zero
    ("tf.cast(tf.constant([2049.0, 2051.0, 65519.0, 65520.0, -70000.0]), tf.float16)",
     np.array([2049.0, 2051.0, 65519.0, 65520.0, -70000.0], np.float32).astype(np.float16)),
    ("tf.cast(tf.constant([1e-5, 6e-8, 2e-8, 1e-7, -3e-6]), tf.float16)",
     np.array([1e-5, 6e-8, 2e-8, 1e-7, -3e-6], np.float32).astype(np.float16)),
    ("tf.cast(tf.constant([1000.5, 0.0001, 3.0]), tf.float16)", np.array([1000.5, 0.0001, 3.0], np.float32).astype(np.float16)),
    ("tf.cast(tf.constant([1.0, 257.0, 259.0, 1e30, 0.3]), tf.bfloat16)", BF16([1.0, 257.0, 259.0, 1e30, 0.3])),
    # back to float32: the exact value of each half
    ("tf.cast(tf.cast(tf.constant(%r), tf.float16), tf.float32)" % F,
     np.array(F, np.float32).astype(np.float16).astype(np.float32)),
    ("tf.cast(tf.cast(tf.constant(%r), tf.bfloat16), tf.float64)" % F,
     BF16(F).v.astype(np.float64)),
    # float to int truncates toward zero; int to narrower int wraps
    ("tf.cast(tf.constant([1.9, -1.9, 100.5, -100.5]), tf.int8)", np.array([1, -1, 100, -100], np.int8)),
    ("tf.cast(tf.constant([1.9, 70000.5, 2.5]), tf.uint32)", np.array([1, 70000, 2], np.uint32)),
    ("tf.cast(tf.constant([300, -1, 128, 65537]), tf.int8)", np.array([300, -1, 128, 65537], np.int32).astype(np.int8)),
    ("tf.cast(tf.constant([300, -1, 128, 65537]), tf.uint16)", np.array([300, -1, 128, 65537], np.int32).astype(np.uint16)),
    ("tf.cast(tf.constant([-1, 5], tf.int64), tf.uint64)", np.array([-1, 5], np.int64).astype(np.uint64)),
    ("tf.cast(tf.constant([-1, 5], tf.int64), tf.uint32)", np.array([-1, 5], np.int64).astype(np.uint32)),
    ("tf.cast(tf.constant([40000, 65535], tf.uint16), tf.int16)", np.array([40000, 65535], np.uint16).astype(np.int16)),
    ("tf.cast(tf.constant([-3, 0, 7], tf.int8), tf.float16)", np.array([-3, 0, 7], np.int8).astype(np.float16)),
    ("tf.cast(tf.constant([2.5, -0.0, 0.0], tf.float16), tf.bool)", np.array([2.5, -0.0, 0.0], np.float16).astype(bool)),
    ("tf.cast(tf.constant([True, False]), tf.bfloat16)", BF16([1.0, 0.0])),
    ("tf.cast(tf.constant([1.5, -2.5], tf.float16), tf.int32)", np.array([1, -2], np.int32)),
    ("tf.cast(tf.constant([1.5, 2.75], tf.float16), tf.bfloat16)", BF16([1.5, 2.75])),
    # creation ops
    ("tf.zeros([2, 2], tf.float16)", np.zeros([2, 2], np.float16)),
    ("tf.ones([3], tf.uint32)", np.ones([3], np.uint32)),
    ("tf.ones([3], tf.bfloat16)", BF16([1.0, 1.0, 1.0])),
    ("tf.fill([2], tf.constant(-7, tf.int8))", np.full([2], -7, np.int8)),
    ("tf.zeros_like(tf.constant([1, 2], tf.uint16))", np.zeros([2], np.uint16)),
    ("tf.ones_like(tf.constant([1, 2], tf.float16))", np.ones([2], np.float16)),
    # scientific form of float16 arrays (a wide ratio) and its padding
    ("tf.constant([0.001, 1000.0, 3.0], dtype=tf.float16)", np.array([0.001, 1000.0, 3.0], np.float16)),
]


A16 = [[1.5, 2.0], [0.1, -3.0]]
B8 = [[1, 2], [3, 4]]


def h(x):
    """A float32 computation's result rounded to float16."""
    return np.asarray(x, np.float32).astype(np.float16)


def a32():
    return np.array(A16, np.float16).astype(np.float32)


b8 = np.array(B8, np.int8)
with np.errstate(all="ignore"):
    OPS = [
        ("a * a", h(a32() * a32())),
        ("a - 0.3", h(a32() - np.float32(np.float16(0.3)))),
        ("a / 3", h(a32() / np.float32(3))),
        ("tf.exp(a)", h(np.exp(a32()))),
        ("tf.sqrt(tf.abs(a))", h(np.sqrt(np.abs(a32())))),
        ("tf.tanh(a)", h(np.tanh(a32()))),
        ("tf.maximum(a, 1.0)", h(np.maximum(a32(), 1))),
        ("tf.reduce_sum(a)", h(a32().sum())),
        ("tf.reduce_mean(a, axis=0)", h(a32().mean(axis=0))),
        ("tf.reduce_max(a, axis=1)", h(a32().max(axis=1))),
        ("tf.matmul(a, a)", h(a32() @ a32())),
        ("a < 1.0", a32() < 1),
        ("tf.reshape(tf.cast(a, tf.bfloat16) * 3.0, [-1])", BF16(BF16(A16).v.reshape(-1) * np.float32(3))),
        ("b + b", b8 + b8),
        ("b * 100", (b8.astype(np.int64) * 100).astype(np.int8)),
        ("b // 2", b8 // 2),
        ("b / 2", (b8 / 2).astype(np.float32)),
        ("-b", -b8),
        ("tf.reduce_sum(b)", np.int8(b8.sum())),
        ("tf.matmul(b, b)", (b8.astype(np.int64) @ b8.astype(np.int64)).astype(np.int8)),
        ("tf.equal(b, 2)", b8 == 2),
        ("tf.constant([70000, 5], tf.uint32) * 70000", (np.array([70000, 5], np.uint64) * 70000).astype(np.uint32)),
        ("tf.constant([3, 9], tf.uint16) - tf.constant([5, 1], tf.uint16)", np.array([3, 9], np.uint16) - np.array([5, 1], np.uint16)),
        ("tf.constant([300, 7], tf.int16) > 100", np.array([300, 7]) > 100),
        ("f(a, b)", h(h(a32() @ a32()).astype(np.float32) + b8.astype(np.float32))),
        ("grad(x)", np.array([6.0, 12.0], np.float16)),
    ]

OPS_PRELUDE = """a = tf.constant(%r, tf.float16)
b = tf.constant(%r, tf.int8)


@tf.function
def f(u, v):
    return tf.matmul(u, u) + tf.cast(v, tf.float16)


def grad(x):
    x = tf.Variable(x)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(x * x * 3.0)
    return t.gradient(y, x)


x = tf.constant([1.0, 2.0], tf.float16)
""" % (A16, B8)

# TF's message for mixed dtypes: the op's input #1 converted to the first input's dtype fails (DataTypeString names).
MIXED = [("tf.constant([1.0], tf.float16) + tf.constant([1.0], tf.float32)", "AddV2", "half", "float"),
         ("tf.constant([1], tf.int8) * tf.constant([1], tf.int32)", "Mul", "int8", "int32"),
         ("tf.constant([1.0], tf.bfloat16) - tf.constant([1.0], tf.float16)", "Sub", "bfloat16", "half")]


def write_ops():
    name = NAME + "_ops"
    prog = ["# %s.tfs — generated by tests/gen_dtypes_expect.py: ops on float16, bfloat16 and the small ints." % name,
            "import tensorflow as tf", ""] + OPS_PRELUDE.split("\n")
    out = []
    for expr, v in OPS:
        prog.append("print(%s)" % expr)
        out.append(tstr(v if isinstance(v, (BF16, np.generic)) else np.asarray(v)))
    for expr, op, want, got in MIXED:
        prog += ["try:", "    print(%s)" % expr, "except tf.errors.InvalidArgumentError as e:",
                 "    print('InvalidArgumentError:', e)"]
        out.append("InvalidArgumentError: cannot compute %s as input #1(zero-based) was expected to be a %s tensor "
                   "but is a %s tensor" % (op, want, got))
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("\n".join(prog) + "\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(out) + "\n")


SAVED = """import sys

import tensorflow as tf


class M(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([3], tf.float16)])
    def f(self, x):
        return x * tf.constant(2.5, tf.float16) + tf.cast(tf.constant([3, -1, 7], tf.int8), tf.float16)


m = M()
x = tf.constant([1.0, 0.1, -3.3], tf.float16)
print(m.f(x))
tf.saved_model.save(m, sys.argv[1] + "/m")
print(tf.saved_model.load(sys.argv[1] + "/m").f(x))
"""


def write_saved():
    """A float16 function and its int8 constant through a SavedModel (GraphDef consts as tensor_content)."""
    name = NAME + "_saved"
    x = np.array([1.0, 0.1, -3.3], np.float16).astype(np.float32)
    v = h(h(x * np.float32(2.5)).astype(np.float32) + np.array([3, -1, 7], np.float32))
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_dtypes_expect.py: float16 and int8 through a SavedModel.\n" % name + SAVED)
    with open(os.path.join(PROGS, name + ".args"), "w") as f:
        f.write("@TMPDIR@\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write((tstr(v) + "\n") * 2)


def dtype_lines():
    out = []
    for name in SMALL:
        if name == "bfloat16":
            lo, hi, size, fl = -3.3895313892515355e38, 3.3895313892515355e38, 2, True
        else:
            d = np.dtype(name)
            info = np.finfo(d) if d.kind == "f" else np.iinfo(d)
            lo, hi, size, fl = info.min, info.max, d.itemsize, d.kind == "f"
        hi_s = repr(float(hi)) if fl else repr(int(hi))
        lo_s = repr(float(lo)) if fl else repr(int(lo))
        line = "%s tf.%s %s %d %s %s %s" % ("<dtype: '%s'>" % name, name, name, size, fl, not fl, lo_s)
        if name != "uint64":   # 2**64 - 1 is past tfs' 64-bit ints
            line += " " + hi_s
        out.append(line)
    return out


def main():
    prog = ["# %s.tfs — generated by tests/gen_dtypes_expect.py: the small dtypes (names, casts, printing, creation)." % NAME,
            "import tensorflow as tf", ""]
    for name in SMALL:
        d = "tf." + name
        tail = "" if name == "uint64" else ", %s.max" % d
        prog.append("print(%s, repr(%s), %s.name, %s.size, %s.is_floating, %s.is_integer, %s.min%s)" % (d, d, d, d, d, d, d, tail))
    for expr, _ in CASES:
        prog.append("print(%s)" % expr)
    out = dtype_lines() + [tstr(v if isinstance(v, BF16) else np.asarray(v) if not isinstance(v, np.generic) else v)
                           for _, v in CASES]
    # a 0-d value prints as numpy's scalar str; tstr handles it through np.generic's str and shape ()
    with open(os.path.join(PROGS, NAME + ".tfs"), "w") as f:
        f.write("\n".join(prog) + "\n")
    with open(os.path.join(PROGS, NAME + ".out"), "w") as f:
        f.write("\n".join(out) + "\n")
    write_ops()
    write_saved()


if __name__ == "__main__":
    main()
