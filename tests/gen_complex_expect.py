#!/usr/bin/python3
"""gen_complex_expect.py — golden programs of complex64/complex128 tensors, with numpy expectations.

    /usr/bin/python3 tests/gen_complex_expect.py     # writes tests/programs/complex_tensors{,_grad}.tfs and .out

TF prints a tensor as "tf.Tensor(<numpy str of its value>, shape=.., dtype=..)" and .numpy() is the numpy
value, so numpy's str of the same complex array is the oracle for printing.  TF's complex kernels are
std::complex arithmetic (Eigen), which numpy's complex ufuncs compute too; the operands below are chosen so
every quotient is exact (denominators whose squared magnitude is a power of two), so the last digit does
not hang on the two libraries' division algorithms.  abs is hypot and angle atan2 in both.

complex_tensors_grad: gradients as TF's math_grad.py defines them for complex ops — the conjugate of the
forward value (Mul: dy * conj(y)), Real: complex(dy, 0), Imag: complex(0, dy), Complex: (real(dy), imag(dy)),
ComplexAbs: dy * x / |x|, Angle: -complex(dy, 0) / complex(imag(x), real(x)), Cast: the gradient cast back.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
NAME = "complex_tensors"


def tstr(a):
    text = str(a)
    if "\n" in text:   # TF's numpy_text starts a multi-line value on its own line
        text = "\n" + text
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (text, tuple(np.shape(a)), a.dtype.name)


c64, c128, f32, f64 = np.complex64, np.complex128, np.float32, np.float64
Z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j], c128)
W = np.array([1 + 1j, 2j, 2], c128)
M = np.array([[1 + 1j, 2], [0.5j, -1 - 3j]], c64)
X = np.array([1.5, -2.0, 0.0], f32)

PRELUDE = """z = tf.constant([1 + 2j, 3 - 1j, -0.5 + 0.25j])
w = tf.constant([1 + 1j, 2j, 2])
m = tf.constant([[1 + 1j, 2], [0.5j, -1 - 3j]], dtype=tf.complex64)
x = tf.constant([1.5, -2.0, 0.0])"""

CASES = [
    # creation
    ("tf.constant(3 + 4j)", c128(3 + 4j)),
    ("tf.constant(-2.5j, dtype=tf.complex64)", c64(-2.5j)),
    ("tf.constant(1.5, dtype=tf.complex128)", c128(1.5)),
    ("z", Z),
    ("tf.constant([1 + 2j, 3], dtype=tf.complex64)", np.array([1 + 2j, 3], c64)),
    ("tf.constant([[1.5 + 0.5j, -2j], [0.25, 1e-5 + 1j]])", np.array([[1.5 + 0.5j, -2j], [0.25, 1e-5 + 1j]], c128)),
    ("tf.constant([1e10 + 1j, 1])", np.array([1e10 + 1j, 1], c128)),
    ("tf.complex(x, tf.constant([3.0, -4.0, 0.5]))", (X + 1j * np.array([3.0, -4.0, 0.5], f32)).astype(c64)),
    ("tf.complex(tf.constant([1.0, 2.0], tf.float64), tf.constant(2.0, tf.float64))", np.array([1 + 2j, 2 + 2j], c128)),
    ("tf.zeros([2], tf.complex64)", np.zeros(2, c64)),
    ("tf.ones([2, 2], tf.complex128)", np.ones((2, 2), c128)),
    # parts
    ("tf.math.real(z)", Z.real),
    ("tf.math.imag(z)", Z.imag),
    ("tf.math.conj(z)", np.conj(Z)),
    ("tf.math.angle(w)", np.angle(W)),
    ("tf.abs(z)", np.abs(Z)),
    ("tf.abs(m)", np.abs(M.astype(c128)).astype(f32)),
    ("tf.math.real(m)", M.real),
    ("tf.math.angle(m)", np.angle(M.astype(c128)).astype(f32)),   # glibc's atan2f rounds correctly; numpy's SIMD one may not
    ("tf.math.real(x)", X),
    ("tf.math.imag(x)", np.zeros(3, f32)),
    ("tf.math.conj(x)", X),
    ("tf.math.angle(x)", np.where(X < 0, np.pi, 0).astype(f32)),
    # arithmetic
    ("z + w", Z + W),
    ("z - w", Z - W),
    ("z * w", Z * W),
    ("z / w", Z / W),
    ("-z", -Z),
    ("z * 2", Z * 2),
    ("z + 1.5", Z + 1.5),
    ("2j * z", 2j * Z),
    ("tf.square(z)", Z * Z),
    ("tf.equal(z, tf.constant([1 + 2j, 3, -0.5 + 0.25j]))", Z == np.array([1 + 2j, 3, -0.5 + 0.25j])),
    ("tf.not_equal(z, w)", Z != W),
    ("tf.constant([1j, 2]) == 1j", np.array([True, False])),
    ("tf.reduce_sum(z)", c128(Z.sum())),
    ("tf.reduce_mean(m, axis=0)", M.mean(axis=0).astype(c64)),
    ("tf.reduce_sum(m, axis=1, keepdims=True)", M.sum(axis=1, keepdims=True)),
    ("tf.matmul(m, m)", M @ M),
    ("tf.matmul(m, m, adjoint_b=True)", M @ M.conj().T),
    ("tf.matmul(m, m, transpose_a=True)", M.T @ M),
    # casts (TF: complex to real keeps the real part)
    ("tf.cast(z, tf.float32)", Z.real.astype(f32)),
    ("tf.cast(z, tf.int32)", Z.real.astype(np.int32)),
    ("tf.cast(x, tf.complex64)", X.astype(c64)),
    ("tf.cast(m, tf.complex128)", M.astype(c128)),
    ("tf.cast(tf.constant([1, -2]), tf.complex128)", np.array([1, -2], c128)),
    # shape ops move complex elements
    ("tf.reshape(m, [4])", M.reshape(4)),
    ("tf.transpose(m)", M.T),
    ("tf.concat([z, w], 0)", np.concatenate([Z, W])),
    ("tf.stack([z, w])", np.stack([Z, W])),
    ("z[1:]", Z[1:]),
    ("tf.gather(z, [2, 0])", Z[[2, 0]]),
    ("tf.where(tf.constant([True, False, True]), z, w)", np.where([True, False, True], Z, W)),
]

# .numpy() values and their Python items
NUMPY = [
    ("z.numpy()", str(Z)),
    ("m.numpy()", str(M)),
    ("tf.constant(1 + 2j).numpy()", str(c128(1 + 2j))),
    ("tf.constant(2j, tf.complex64).numpy()", str(c64(2j))),
    ("tf.constant(-1.5 + 0j).numpy()", str(c128(-1.5 + 0j))),
    ("z.dtype, z.dtype.is_complex, z.dtype.real_dtype, tf.complex64.size, tf.complex128.size, tf.float32.is_complex",
     "<dtype: 'complex128'> True <dtype: 'float64'> 8 16 False"),
    ("tf.complex64, repr(tf.complex128), tf.as_dtype(8), tf.as_dtype(18)",
     "<dtype: 'complex64'> tf.complex128 <dtype: 'complex64'> <dtype: 'complex128'>"),
]

FUNC = """

@tf.function
def f(a, b):
    c = tf.complex(tf.math.real(a) * 2.0, tf.math.imag(b))
    return tf.reduce_sum(c * tf.math.conj(a) / b), tf.abs(c), tf.matmul(tf.reshape(a, [1, 3]), tf.reshape(b, [3, 1]))
"""


def func_expect():
    c = 2.0 * Z.real + 1j * W.imag
    r = c128(np.sum(c * np.conj(Z) / W))
    return [tstr(r), tstr(np.abs(c)), tstr(Z.reshape(1, 3) @ W.reshape(3, 1))]


ERRORS = [
    ("tf.constant([1 + 2j], tf.complex64) + tf.constant([1.0])", "InvalidArgumentError",
     "cannot compute AddV2 as input #1(zero-based) was expected to be a complex64 tensor but is a float tensor"),
    ("tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))", "TypeError",
     "The `real` and `imag` components have incorrect types: float32 float64"),
]


def write_main():
    prog = ["# %s.tfs — generated by tests/gen_complex_expect.py: complex64/complex128 tensors (creation, parts, "
            "arithmetic, reductions, matmul, casts, printing, errors)." % NAME, "import tensorflow as tf", ""]
    prog += PRELUDE.split("\n") + FUNC.split("\n") + [""]
    out = []
    for expr, v in CASES:
        prog.append("print(%s)" % expr)
        out.append(tstr(v if isinstance(v, np.generic) else np.asarray(v)))
    for expr, text in NUMPY:
        prog.append("print(%s)" % expr)
        out.append(text)
    prog.append("for t in f(z, w):")
    prog.append("    print(t)")
    out += func_expect()
    for expr, cls, msg in ERRORS:
        exc = "tf.errors.InvalidArgumentError" if cls == "InvalidArgumentError" else cls
        prog += ["try:", "    print(%s)" % expr, "except %s as e:" % exc, "    print('%s:', e)" % cls]
        out.append("%s: %s" % (cls, msg))
    with open(os.path.join(PROGS, NAME + ".tfs"), "w") as f:
        f.write("\n".join(prog) + "\n")
    with open(os.path.join(PROGS, NAME + ".out"), "w") as f:
        f.write("\n".join(out) + "\n")


GRAD = """import tensorflow as tf

zv = tf.Variable([3 + 4j, 1 + 1j])
wv = tf.Variable([1 - 1j, 2j])
a = tf.Variable([3.0, -1.0])
b = tf.Variable([4.0, 1.0])


def grads(fn):
    with tf.GradientTape() as t:
        y = fn()
    return t.gradient(y, [zv, wv, a, b])


def show(fn):
    for g in grads(fn):
        print(g)


@tf.function
def traced(fn):
    return grads(fn)


cases = [
    lambda: tf.reduce_sum(tf.abs(zv)),
    lambda: tf.math.real(tf.reduce_sum(zv * wv)),
    lambda: tf.math.imag(tf.reduce_sum(zv / wv)),
    lambda: tf.reduce_sum(tf.abs(tf.complex(a, b))),
    lambda: tf.reduce_sum(tf.math.angle(zv)),
    lambda: tf.reduce_sum(tf.cast(zv, tf.float32) * a),
    lambda: tf.math.real(tf.reduce_sum(tf.matmul(tf.reshape(zv, [1, 2]), tf.reshape(wv, [2, 1])))),
    lambda: tf.math.real(tf.reduce_sum(tf.math.conj(zv) + tf.cast(a, tf.complex128) * 1j)),
]
for fn in cases:
    show(fn)
print(traced(cases[0])[0])
print(traced(cases[3])[2])
"""


def grad_expect():
    z = np.array([3 + 4j, 1 + 1j], c128)
    w = np.array([1 - 1j, 2j], c128)
    a = np.array([3.0, -1.0], f32)
    b = np.array([4.0, 1.0], f32)
    none = "None"
    out = []

    def row(gz=None, gw=None, ga=None, gb=None):
        for g in (gz, gw, ga, gb):
            out.append(none if g is None else tstr(g))

    row(gz=z / np.abs(z))                                   # ComplexAbs
    row(gz=np.conj(w), gw=np.conj(z))                       # Real of Mul
    # Imag of RealDiv: dy = complex(0, 1); gx = dy / conj(w); gy = dy * (-conj(z) / conj(w) / conj(w))
    dy = np.full(2, 1j, c128)
    row(gz=dy / np.conj(w), gw=dy * (-np.conj(z) / np.conj(w) / np.conj(w)))
    c = (a + 1j * b).astype(c64)
    g = c / np.abs(c)
    row(ga=g.real.astype(f32), gb=g.imag.astype(f32))       # Complex of ComplexAbs
    row(gz=-1 / (z.imag + 1j * z.real))                     # Angle
    row(gz=a.astype(c128), ga=z.real.astype(f32))           # Cast complex -> float
    row(gz=np.conj(w), gw=np.conj(z))                       # MatMul
    row(gz=np.conj(np.ones(2, c128)), ga=np.zeros(2, f32))  # Conj of complex(1, 0): 1-0j; real(cast(a) * 1j) does not depend on a
    out.append(tstr(z / np.abs(z)))
    out.append(tstr(g.real.astype(f32)))
    return out


def write_grad():
    name = NAME + "_grad"
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_complex_expect.py: gradients of complex ops, TF's conj convention.\n"
                % name + GRAD)
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(grad_expect()) + "\n")


SAVED = """import sys

import tensorflow as tf


class M(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.complex64), tf.TensorSpec([2], tf.float32)])
    def f(self, z, x):
        c = tf.complex(x, x * 2.0) * tf.constant([1 - 1j, 2j], tf.complex64)
        return z * c + tf.cast(x, tf.complex64), tf.abs(z), tf.math.angle(c), tf.math.real(z) + tf.math.imag(z)


m = M()
z = tf.constant([3 + 4j, -1j], tf.complex64)
x = tf.constant([1.0, -0.5])
for t in m.f(z, x):
    print(t)
tf.saved_model.save(m, sys.argv[1] + "/m")
for t in tf.saved_model.load(sys.argv[1] + "/m").f(z, x):
    print(t)
"""


def write_saved():
    """complex64 through a SavedModel: GraphDef consts of complex64, Complex, ComplexAbs, Angle, Real, Imag nodes."""
    name = NAME + "_saved"
    z = np.array([3 + 4j, -1j], c64)
    x = np.array([1.0, -0.5], f32)
    c = (x + 1j * (x * f32(2))).astype(c64) * np.array([1 - 1j, 2j], c64)
    outs = [z * c + x.astype(c64), np.abs(z.astype(c128)).astype(f32), np.angle(c.astype(c128)).astype(f32),
            z.real + z.imag]
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_complex_expect.py: complex64 through a SavedModel.\n" % name + SAVED)
    with open(os.path.join(PROGS, name + ".args"), "w") as f:
        f.write("@TMPDIR@\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write(("\n".join(tstr(o) for o in outs) + "\n") * 2)


if __name__ == "__main__":
    write_main()
    write_grad()
    write_saved()
