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


def write_cases(name, head, prelude, func, cases, numpy_rows, call, func_out, errors):
    """A program printing each case's expression, numpy's text of each numpy row, the function's results
    and each error's class and message, with the expected output beside it."""
    prog = head + prelude.split("\n") + func.split("\n") + [""]
    out = []
    for expr, v in cases:
        prog.append("print(%s)" % expr)
        out.append(tstr(v if isinstance(v, np.generic) else np.asarray(v)))
    for expr, text in numpy_rows:
        prog.append("print(%s)" % expr)
        out.append(text)
    prog += ["for t in %s:" % call, "    print(t)"]
    out += func_out
    for expr, cls, msg in errors:
        exc = "tf.errors." + cls if cls.endswith("ArgumentError") else cls
        prog += ["try:", "    print(%s)" % expr, "except %s as e:" % exc, "    print('%s:', e)" % cls]
        out.append("%s: %s" % (cls, msg))
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("\n".join(prog) + "\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(out) + "\n")


def write_main():
    head = ["# %s.tfs — generated by tests/gen_complex_expect.py: complex64/complex128 tensors (creation, parts, "
            "arithmetic, reductions, matmul, casts, printing, errors)." % NAME, "import tensorflow as tf", ""]
    write_cases(NAME, head, PRELUDE, FUNC, CASES, NUMPY, "f(z, w)", func_expect(), ERRORS)


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


# ---- complex_math: the elementwise math TF's kernels register for complex64/complex128 ----
# TF computes them with std::complex's functions, which libstdc++ takes from glibc's cexp, clog, csqrt, csin,
# ccos, ctanh and cpow; numpy's complex ufuncs call the same glibc functions, so np.exp etc. are the oracle.
# Pow is cpow = exp(y * log(x)) for every exponent (numpy multiplies out small integer powers instead, so the
# expectation spells out exp(y * log(x))); log1p and expm1 split into real functions as numpy's do; Sign is
# x * (1 / |x|) (0 at 0) as Eigen's scalar_sign_op; Sigmoid 1 / (1 + exp(-x)).

def c_sign(a):
    r = np.abs(a)
    inv = np.where(r == 0, 0, 1 / np.where(r == 0, 1, r)).astype(r.dtype)
    return (a.real * inv + 1j * (a.imag * inv)).astype(a.dtype)


def c_log1p(a):   # complex64 in double, rounded once
    w = a.astype(c128)
    re, im = w.real + 1, w.imag
    return (np.log(np.hypot(re, im)) + 1j * np.arctan2(im, re)).astype(a.dtype)


def c_expm1(a):
    w = a.astype(c128)
    re, im = w.real, w.imag
    h = np.sin(im / 2)
    return ((np.expm1(re) * np.cos(im) - 2 * h * h) + 1j * (np.exp(re) * np.sin(im))).astype(a.dtype)


def c_rsqrt(a):
    """Eigen's complex_rsqrt: w / |z| and y / (2 w |z|) with w = sqrt((|x| + |z|) / 2), in the part dtype."""
    x, y = a.real, a.imag
    R = x.dtype.type
    r = np.hypot(x, y)
    w = np.sqrt(R(0.5) * (np.abs(x) + r))
    woz = w / r
    other = np.abs(y) / (R(2) * w * r)
    re = np.where(x >= 0, woz, other)
    im = np.where(x >= 0, -y / (R(2) * w * r), np.where(y < 0, woz, -woz))
    out = np.empty(a.shape, a.dtype)
    out.real, out.imag = re, im
    return out


def c_pow(x, y):
    return np.exp(y * np.log(x))


MATH_PRELUDE = """z = tf.constant([1 + 2j, 3 - 1j, -0.5 + 0.25j])
m = tf.constant([[1 + 1j, 2], [0.5j, -1 - 3j]], dtype=tf.complex64)
p = tf.constant([0.5 + 0.5j, -2j, 4])"""
P = np.array([0.5 + 0.5j, -2j, 4], c128)

MATH_CASES = [
    ("tf.exp(z)", np.exp(Z)),
    ("tf.math.exp(m)", np.exp(M)),
    ("tf.math.log(z)", np.log(Z)),
    ("tf.math.log(m)", np.log(M)),
    ("tf.sqrt(z)", np.sqrt(Z)),
    ("tf.math.sqrt(m)", np.sqrt(M)),
    ("tf.math.rsqrt(z)", c_rsqrt(Z)),
    ("tf.math.rsqrt(m)", c_rsqrt(M)),
    ("tf.pow(z, p)", c_pow(Z, P)),
    ("z ** 0.5", c_pow(Z, c128(0.5))),
    ("m ** tf.constant(1j, tf.complex64)", c_pow(M, c64(1j))),
    ("tf.square(m)", M * M),
    ("tf.math.reciprocal(z)", 1 / Z),
    ("tf.math.reciprocal(m * tf.constant([[1, 1], [1, 1 - 1j]], tf.complex64))", 1 / (M * np.array([[1, 1], [1, 1 - 1j]], c64))),
    ("tf.sin(z)", np.sin(Z)),
    ("tf.cos(z)", np.cos(Z)),
    ("tf.math.sin(m)", np.sin(M)),
    ("tf.math.cos(m)", np.cos(M)),
    ("tf.tanh(z)", np.tanh(Z)),
    ("tf.math.tanh(m)", np.tanh(M)),
    ("tf.sigmoid(z)", 1 / (1 + np.exp(-Z))),
    ("tf.math.log1p(z)", c_log1p(Z)),
    ("tf.math.log1p(tf.constant([1e-10 + 1e-10j]))", c_log1p(np.array([1e-10 + 1e-10j]))),
    ("tf.math.expm1(m)", c_expm1(M)),
    ("tf.math.expm1(tf.constant([1e-10 - 2e-10j]))", c_expm1(np.array([1e-10 - 2e-10j]))),
    ("tf.sign(z)", c_sign(Z)),
    ("tf.math.sign(tf.constant([0j, 3 + 4j, -2j], tf.complex64))", c_sign(np.array([0j, 3 + 4j, -2j], c64))),
    ("tf.reduce_prod(z)", c128(np.prod(Z))),
    ("tf.reduce_prod(m, axis=0)", np.prod(M, axis=0)),
    ("tf.math.reduce_prod(m, axis=1, keepdims=True)", np.prod(M, axis=1, keepdims=True)),
]

# numpy orders complex numbers lexicographically (real part first): max/min of a complex array
MATH_NUMPY = [
    ("z.numpy().max(), z.numpy().min()", "%s %s" % (Z.max(), Z.min())),
    ("np.max(m.numpy()), np.min(m.numpy())", "%s %s" % (np.max(M), np.min(M))),
    ("np.max(np.array([1 + 2j, 1 + 3j, 1 - 5j])), np.min(np.array([2j, -1j, 1]))",
     "%s %s" % (np.max(np.array([1 + 2j, 1 + 3j, 1 - 5j])), np.min(np.array([2j, -1j, 1])))),
    ("m.numpy().max(axis=0)", str(M.max(axis=0))),
    ("np.min(m.numpy(), axis=1, keepdims=True)", str(np.min(M, axis=1, keepdims=True))),
    # numpy 1.24's sign of a complex number is the sign of its real part (of the imaginary part where that is 0)
    ("np.sign(np.array([3 + 4j, -2j, 0j, -1 + 5j, 2j], np.complex64))",
     str(np.sign(np.array([3 + 4j, -2j, 0j, -1 + 5j, 2j], np.complex64)))),
    ("np.exp(z.numpy()), np.sqrt(m.numpy())", "%s %s" % (np.exp(Z), np.sqrt(M))),
]

MATH_FUNC = """

@tf.function
def g(a, b):
    return tf.exp(a) * tf.math.log(b), tf.sqrt(a) + tf.math.reciprocal(b), a ** b, tf.reduce_prod(tf.tanh(a))
"""


def math_func_expect():
    return [tstr(np.exp(Z) * np.log(P)), tstr(np.sqrt(Z) + 1 / P), tstr(c_pow(Z, P)), tstr(c128(np.prod(np.tanh(Z))))]


ALLOWED = "bfloat16, half, float, double, int32, int64, uint8, int8, int16, uint16, uint32, uint64"
MATH_ERRORS = [
    ("tf.reduce_max(z)", "InvalidArgumentError",
     "Value for attr 'T' of complex128 is not in the list of allowed values: %s ; NodeDef: {{node Max}}" % ALLOWED),
    ("tf.reduce_min(m)", "InvalidArgumentError",
     "Value for attr 'T' of complex64 is not in the list of allowed values: %s ; NodeDef: {{node Min}}" % ALLOWED),
]


def write_math():
    name = NAME.replace("tensors", "math")
    head = ["# %s.tfs — generated by tests/gen_complex_expect.py: elementwise math, Pow, Prod of complex tensors; "
            "numpy's complex max/min; TF's error for reduce_max." % name, "import numpy as np", "import tensorflow as tf", ""]
    write_cases(name, head, MATH_PRELUDE, MATH_FUNC, MATH_CASES, MATH_NUMPY, "g(z, p)", math_func_expect(), MATH_ERRORS)


# ---- complex_math_grad: gradients of the elementwise math, as math_grad.py writes them for complex x: the
# derivative at conj(x) (or of conj(y)) times the upstream gradient; checked here against torch's complex
# autograd, whose gradient of a real loss is the same dL/dre + i dL/dim.
MGRAD = """import tensorflow as tf

zv = tf.Variable([1 + 2j, 0.5 - 1j])
pv = tf.Variable([0.5 + 0.5j, 2 + 0j])
w = tf.constant([2 - 1j, 1j])


def grad(f):
    with tf.GradientTape() as t:
        loss = tf.math.real(tf.reduce_sum(f(zv) * w))
    return t.gradient(loss, zv)


@tf.function
def traced():
    with tf.GradientTape() as t:
        loss = tf.math.real(tf.reduce_sum(tf.exp(zv) * tf.sqrt(pv) * w))
    return t.gradient(loss, [zv, pv])


for f in [tf.exp, tf.math.log, tf.sqrt, tf.math.rsqrt, tf.sin, tf.cos, tf.tanh, tf.sigmoid, tf.math.reciprocal,
          tf.math.log1p, tf.math.expm1, tf.sign, tf.square, lambda x: tf.reduce_prod(x, keepdims=True)]:
    print(grad(f))
with tf.GradientTape() as t:
    loss = tf.math.real(tf.reduce_sum(zv ** pv * w))
for g in t.gradient(loss, [zv, pv]):
    print(g)
for g in traced():
    print(g)
"""


def mgrad_expect():
    import torch
    z = np.array([1 + 2j, 0.5 - 1j], c128)
    p = np.array([0.5 + 0.5j, 2 + 0j], c128)
    w = np.array([2 - 1j, 1j], c128)
    dy = np.conj(w)
    cz = np.conj(z)

    def yc(v):
        return np.conj(v)
    rs = yc(c_rsqrt(z))
    th, sg, rc = yc(np.tanh(z)), yc(1 / (1 + np.exp(-z))), yc(1 / z)
    rows = [
        (dy * yc(np.exp(z)), torch.exp),
        (dy / cz, torch.log),
        (dy * 0.5 / yc(np.sqrt(z)), torch.sqrt),
        (dy * (-0.5 * (rs * (rs * rs))), torch.rsqrt),
        (dy * np.cos(cz), torch.sin),
        (-(dy * np.sin(cz)), torch.cos),
        (dy * (1 - th * th), torch.tanh),
        (dy * (sg * (1 - sg)), torch.sigmoid),
        (-(dy * (rc * rc)), torch.reciprocal),
        (dy / (1 + cz), lambda t: torch.log(1 + t)),   # torch 1.13 has no complex log1p/expm1
        (dy * np.exp(cz), lambda t: torch.exp(t) - 1),
        (np.zeros(2, c128), None),                        # Sign: no gradient (zeros)
        (dy * (2 * cz), torch.square),
        (dy.sum() * yc(np.prod(z) / z), lambda t: torch.prod(t, 0, keepdim=True)),   # prod [1] broadcasts against w
    ]
    out = []
    zt = torch.tensor(z, requires_grad=True)
    wt = torch.tensor(w)
    for want, tf_ in rows:
        if tf_ is not None:   # the convention and the formula against torch's autograd
            zt.grad = None
            torch.real(torch.sum(tf_(zt) * wt)).backward()
            assert np.allclose(zt.grad.numpy(), want, rtol=1e-12), (tf_, zt.grad, want)
        out.append(tstr(want))
    # Pow: dx = dy * y * x^(y-1), dy = dy * x^y * log(x) on the conjugates
    x, y, zz = cz, np.conj(p), np.conj(c_pow(z, p))
    gx = dy * (y * c_pow(x, y - 1))
    gp = dy * (zz * np.log(x))
    zt.grad = None
    pt = torch.tensor(p, requires_grad=True)
    torch.real(torch.sum(zt ** pt * wt)).backward()
    assert np.allclose(zt.grad.numpy(), gx) and np.allclose(pt.grad.numpy(), gp), (zt.grad, gx, pt.grad, gp)
    out += [tstr(gx), tstr(gp)]
    # traced: loss = real(sum(exp(z) * sqrt(p) * w))
    e, r = np.exp(z), np.sqrt(p)
    d1 = dy * np.conj(r)               # upstream of exp(z)
    d2 = dy * np.conj(e)               # upstream of sqrt(p)
    out += [tstr(d1 * np.conj(e)), tstr(d2 * 0.5 / np.conj(r))]
    return out


def write_math_grad():
    name = NAME.replace("tensors", "math") + "_grad"
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_complex_expect.py: gradients of complex elementwise math, "
                "TF's conj convention.\n" % name + MGRAD)
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(mgrad_expect()) + "\n")


# ---- complex_linalg: tf.linalg.inv, det, solve of complex matrices (LAPACKE's c/z getrf, getri, getrs), numpy's
# inv/det/solve as the oracle; gradients with TF's linalg_grad.py formulas: inv -y^H dy y^H, solve (grad_b =
# solve(A^H, dy), grad_a = -grad_b x^H), both checked against torch's autograd; det's dy * det * inv(A)^H is TF's
# formula as written (no conj on det, so it differs from torch's for a complex det) and is spelled out here.
LINALG = """import tensorflow as tf

a = tf.constant([[1 + 1j, 2], [1j, 1 + 2j]], tf.complex64)   # det -1 + 1j: exact inverses
b = tf.constant([[2 - 1j, 1j], [3, 0.5 + 0.5j]])
a2 = tf.cast(a, tf.complex128)
print(tf.linalg.inv(a))
print(tf.linalg.inv(a2, adjoint=True))
print(tf.linalg.det(a), tf.linalg.det(a2))
print(tf.linalg.det(tf.stack([a2, a2 * 2j])))
print(tf.linalg.solve(a2, b))
print(tf.linalg.solve(a2, b, adjoint=True))
print(tf.matmul(a2, b, adjoint_a=True, adjoint_b=True))
av = tf.Variable(a2)
bv = tf.Variable(b)
with tf.GradientTape(persistent=True) as t:
    l1 = tf.math.real(tf.reduce_sum(tf.linalg.inv(av) * b))
    l2 = tf.math.imag(tf.reduce_sum(tf.linalg.solve(av, bv)))
    l3 = tf.math.real(tf.linalg.det(av) * (1 + 2j))
print(t.gradient(l1, av))
for g in t.gradient(l2, [av, bv]):
    print(g)
print(t.gradient(l3, av))
try:
    tf.linalg.inv(tf.constant([[1j, 2j], [1j, 2j]]))
except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError:", e)
"""


def linalg_expect():
    import torch
    a = np.array([[1 + 1j, 2], [1j, 1 + 2j]], c64)
    b = np.array([[2 - 1j, 1j], [3, 0.5 + 0.5j]], c128)
    a2 = a.astype(c128)
    H = lambda m: np.conj(m).swapaxes(-1, -2)
    out = [tstr(np.linalg.inv(a)), tstr(np.linalg.inv(H(a2))),
           "%s %s" % (tstr(c64(np.linalg.det(a))), tstr(c128(np.linalg.det(a2)))),
           tstr(np.linalg.det(np.stack([a2, a2 * 2j]))),
           tstr(np.linalg.solve(a2, b)), tstr(np.linalg.solve(H(a2), b)), tstr(H(a2) @ H(b))]
    y = np.linalg.inv(a2)
    g1 = -(H(y) @ (np.conj(b) @ H(y)))                     # dy = conj(b)
    x = np.linalg.solve(a2, b)
    gb = np.linalg.solve(H(a2), np.full((2, 2), 1j))        # dy of imag(sum(x)) = complex(0, 1)
    ga = -(gb @ H(x))
    det = np.linalg.det(a2)
    g3 = np.conj(1 + 2j) * det * np.linalg.inv(H(a2))      # TF's _MatrixDeterminantGrad: grad * det * inv(A^H)
    at = torch.tensor(a2, requires_grad=True)
    bt = torch.tensor(b, requires_grad=True)
    torch.real(torch.sum(torch.linalg.inv(at) * torch.tensor(b))).backward()
    assert np.allclose(at.grad.numpy(), g1), (at.grad, g1)
    at.grad = None
    torch.imag(torch.sum(torch.linalg.solve(at, bt))).backward()
    assert np.allclose(at.grad.numpy(), ga) and np.allclose(bt.grad.numpy(), gb)
    out += [tstr(g1), tstr(ga), tstr(gb), tstr(g3),
            "InvalidArgumentError: Input is not invertible."]
    return out


def write_linalg():
    name = NAME.replace("tensors", "linalg")
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_complex_expect.py: tf.linalg inv, det, solve of complex matrices "
                "and their gradients.\n" % name + LINALG)
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(linalg_expect()) + "\n")


MSAVED = """import sys

import tensorflow as tf


class M(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.complex128)])
    def f(self, z):
        return tf.exp(z) ** 0.5, tf.linalg.inv(z), tf.reduce_prod(tf.sign(z)), tf.math.rsqrt(z)


m = M()
z = tf.constant([[1 + 1j, 2], [1j, 1 + 2j]])
for t in m.f(z):
    print(t)
tf.saved_model.save(m, sys.argv[1] + "/m")
for t in tf.saved_model.load(sys.argv[1] + "/m").f(z):
    print(t)
"""


def write_math_saved():
    """the complex math ops' GraphDef forms: Exp, Pow, MatrixInverse, Sign, Prod, Rsqrt of complex128 through a SavedModel"""
    name = NAME.replace("tensors", "math") + "_saved"
    z = np.array([[1 + 1j, 2], [1j, 1 + 2j]], c128)
    sg = c_sign(z).reshape(-1)
    prod = sg[0]
    for v in sg[1:]:
        prod = prod * v
    outs = [c_pow(np.exp(z), c128(0.5)), np.linalg.inv(z), c128(prod), c_rsqrt(z)]
    with open(os.path.join(PROGS, name + ".tfs"), "w") as f:
        f.write("# %s.tfs — generated by tests/gen_complex_expect.py: complex math ops through a SavedModel.\n" % name
                + MSAVED)
    with open(os.path.join(PROGS, name + ".args"), "w") as f:
        f.write("@TMPDIR@\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write(("\n".join(tstr(o) for o in outs) + "\n") * 2)


if __name__ == "__main__":
    write_main()
    write_grad()
    write_saved()
    write_math()
    write_math_grad()
    write_linalg()
    write_math_saved()
