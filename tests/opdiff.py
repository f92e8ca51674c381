#!/usr/bin/env python3
"""opdiff.py — every op of the op table (runtime/kernels/ops.def) run in a tf.function graph on random
shapes and dtypes, against its eager result (issue 28).

For each op the generator below has one or more call templates (a public API call, or for internal ops
the public code that stages them: a slice for StridedSlice, a gradient for _ScatterGrad and the conv/pool
backprops, a taped tensor loop for the _Stack ops, a TensorArray for the TensorList ops, a dataset loop for
the _Dataset ops).  The script fails when an op of ops.def has no template, so a new op must get one.

Each generated case is a function of tensor inputs, called eagerly and as tf.function — with static input
shapes, with every dimension unknown (input_signature of None dims) or after a call on other shapes under
reduce_retracing=True — and both results must agree: the same error class, or the same dtype, shape and
values (floats to a relative 1e-4, NaN equal to NaN).  Shapes include empty dimensions; data-dependent
output shapes come from tf.where(c), tf.boolean_mask-style gathers and slices of unknown size.  Random ops
compare dtype and shape only.  A run must end normally: a crash, a sanitizer report or an unlocated error
is a failure.

usage: opdiff.py TFS [--count N] [--seed S] [--budget SECONDS] [--keep DIR]
Prints how many calls ran (each case is one eager and one graph call).
"""
import argparse

import errtext
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OPS_DEF = os.path.join(HERE, "..", "runtime", "kernels", "ops.def")

NUM = ["float32", "float64", "int32", "int64"]
FLOAT = ["float32", "float64"]
INT = ["int32", "int64"]
HALF = ["float16", "bfloat16"]   # computed in float32, rounded per op
SMALL = HALF + ["int8", "int16", "uint16", "uint32"]   # the small dtypes the elementwise, reduce and matmul kernels widen
CPLX = ["complex64", "complex128"]   # literals of real values; tf.complex makes the imaginary parts
CPLX_MATH = ("SQRT", "RSQRT", "EXP", "LOG", "LOG1P", "EXPM1", "SIN", "COS", "TANH", "SIGMOID", "RECIPROCAL")

PRELUDE = r'''
import _dist
def _same(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not isinstance(a, (list, tuple)) or not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        for i in range(len(a)):
            if not _same(a[i], b[i]):
                return False
        return True
    if a is None or b is None:
        return a is None and b is None
    a = tf.convert_to_tensor(a)
    b = tf.convert_to_tensor(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if _SHAPE_ONLY:
        return True
    if a.dtype.is_complex:
        return _same(tf.math.real(a), tf.math.real(b)) and _same(tf.math.imag(a), tf.math.imag(b))
    if a.dtype.is_floating:
        af = tf.cast(a, tf.float64)
        bf = tf.cast(b, tf.float64)
        nan = tf.math.is_nan(af)
        if not bool(tf.reduce_all(nan == tf.math.is_nan(bf))):
            return False
        close = tf.logical_or(af == bf, tf.abs(af - bf) <= 1e-4 * (1.0 + tf.abs(af)))
        return bool(tf.reduce_all(tf.logical_or(nan, close)))
    return bool(tf.reduce_all(a == b))

def _show(v):
    if isinstance(v, (list, tuple)):
        return '[' + ', '.join([_show(e) for e in v]) + ']'
    if v is None:
        return 'None'
    t = tf.convert_to_tensor(v)
    return str(t.dtype.name) + str(t.shape) + ' ' + str(t.numpy()).replace('\n', ' ')

def _run(f, args):
    try:
        return f(*args), None
    except Exception as e:
        return None, _emsg(e)[:200]

_SHAPE_ONLY = False

# Errors TF itself raises in a graph where eager execution has the concrete shapes: unstack of an unknown
# dimension (array_ops.unstack), stacking an empty TensorList whose element shape is not fully defined.
_STAGING = ['Cannot infer argument `num` from shape', 'Tried to stack elements of an empty list with non-fully-defined']

def _staging(msg):
    for s in _STAGING:
        if s in msg:
            return True
    return False

def _check(name, f, g, args, shape_only=False, warm=None):
    global _SHAPE_ONLY
    _SHAPE_ONLY = shape_only
    if warm is not None:
        _run(g, warm)
    e, ee = _run(f, args)
    r, re = _run(g, args)
    if ee is not None or re is not None:
        if ee is not None and re is not None and ee.split(':')[0] == re.split(':')[0]:
            print('ok-error', name, ee.split(':')[0])
        elif ee is None and re.split(':')[0] in ('UnimplementedError', 'NotImplementedError'):
            print('ok-limit', name, re)
        elif ee is None and _staging(re):
            print('ok-staging', name)
        else:
            print('MISMATCH', name, 'eager:', ee if ee is not None else _show(e), '| graph:', re if re is not None else _show(r))
        return
    try:
        ok = _same(e, r)
    except Exception as ex:
        print('MISMATCH', name, 'comparing:', type(ex).__name__)
        return
    if ok:
        print('ok', name)
    else:
        print('MISMATCH', name, 'eager:', _show(e), '| graph:', _show(r))
'''
PRELUDE += errtext.EMSG



def parse_ops():
    ops = []
    for line in open(OPS_DEF):
        m = re.match(r'\s*OP(?:_UP)?\((\w+),\s*"([^"]*)"', line)
        if m:
            ops.append(m.group(1))
    return ops


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def shape(self, rank=None, lo=0, hi=4, nonempty=False):
        if rank is None:
            rank = self.r.choice([0, 1, 1, 2, 2, 3])
        dims = []
        for _ in range(rank):
            if not nonempty and self.r.random() < 0.12:
                dims.append(0)
            else:
                dims.append(self.r.randint(max(lo, 1), hi))
        return tuple(dims)

    def values(self, n, dtype, lo=-5, hi=5):
        r = self.r
        if dtype == "bool":
            return [r.choice(["True", "False"]) for _ in range(n)]
        if dtype == "string":
            return ["'%s'" % r.choice(["a", "bc", "", "x y"]) for _ in range(n)]
        if dtype.startswith("int") or dtype.startswith("uint"):
            if dtype.startswith("uint"):
                lo = max(lo, 0)
            return [str(r.randint(lo, hi)) for _ in range(n)]
        out = []
        for _ in range(n):
            p = r.random()
            if p < 0.03:
                out.append("float('nan')")
            elif p < 0.05:
                out.append(r.choice(["float('inf')", "-float('inf')"]))
            elif p < 0.15:
                out.append("0.0")
            else:
                out.append(repr(round(r.uniform(lo, hi), 3)))
        return out

    def lit(self, shape, dtype, lo=-5, hi=5):
        n = 1
        for d in shape:
            n *= d
        vals = self.values(n, dtype, lo, hi)
        if shape == ():
            return "tf.constant(%s, dtype=tf.%s)" % (vals[0], dtype)
        return "tf.reshape(tf.constant([%s], dtype=tf.%s), %s)" % (", ".join(vals), dtype, list(shape))

    def bcast(self, s):
        """A shape broadcastable against s."""
        r = self.r
        c = r.random()
        if c < 0.4 or not s:
            return s if c < 0.8 else ()
        k = r.randint(0, len(s))
        t = list(s[k:])
        return tuple(1 if (d and r.random() < 0.3) else d for d in t)


def T(*xs):
    return list(xs)


def templates(g, op):
    """[(body expression over a0.., [(shape, dtype, lo, hi) or literal source], flags)] for op."""
    r = g.r
    def inp(shape, dtype, lo=-5, hi=5):
        return g.lit(shape, dtype, lo, hi)
    bin_num = {"ADD": "tf.add", "SUB": "tf.subtract", "MUL": "tf.multiply", "DIV": "tf.divide",
               "FLOORDIV": "tf.math.floordiv", "MOD": "tf.math.floormod", "POW": "tf.pow",
               "MAXIMUM": "tf.maximum", "MINIMUM": "tf.minimum", "SQDIFF": "tf.math.squared_difference",
               "LESS": "tf.less", "LESS_EQUAL": "tf.less_equal", "GREATER": "tf.greater",
               "GREATER_EQUAL": "tf.greater_equal"}
    if op in bin_num:
        dt = r.choice(NUM + SMALL + (CPLX if op in ("ADD", "SUB", "MUL", "DIV", "POW") else []))
        s = g.shape()
        t = g.bcast(s)
        if r.random() < 0.5:
            s, t = t, s
        hi = 3 if op == "POW" else 5
        lo = 0 if op == "POW" and dt.startswith("int") else -5
        return ["%s(a0, a1)" % bin_num[op], [inp(s, dt, lo, hi), inp(t, dt, lo, hi)]]
    if op in ("EQUAL", "NOT_EQUAL"):
        dt = r.choice(NUM + CPLX + ["bool", "string"])
        s = g.shape()
        return ["tf.%s(a0, a1)" % op.lower(), [inp(s, dt), inp(g.bcast(s), dt)]]
    if op in ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR"):
        s = g.shape()
        fn = {"LOGICAL_AND": "tf.logical_and", "LOGICAL_OR": "tf.logical_or", "LOGICAL_XOR": "tf.math.logical_xor"}[op]
        return ["%s(a0, a1)" % fn, [inp(s, "bool"), inp(g.bcast(s), "bool")]]
    bits = {"BITWISE_AND": "bitwise_and", "BITWISE_OR": "bitwise_or", "BITWISE_XOR": "bitwise_xor",
            "LEFT_SHIFT": "left_shift", "RIGHT_SHIFT": "right_shift"}
    ints = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    if op in bits:   # shift amounts past the width too (TF clamps them)
        dt, s = r.choice(ints), g.shape()
        hi = 70 if "SHIFT" in op else 100
        return ["tf.bitwise.%s(a0, a1)" % bits[op], [inp(s, dt, -100, 100), inp(g.bcast(s), dt, -3, hi)]]
    if op == "INVERT":
        return ["tf.bitwise.invert(a0)", [inp(g.shape(), r.choice(ints + ["float32"]), -100, 100)]]
    unary = {"NEG": ("tf.negative", NUM), "ABS": ("tf.abs", NUM), "SIGN": ("tf.sign", NUM),
             "SQUARE": ("tf.square", NUM), "SQRT": ("tf.sqrt", FLOAT), "RSQRT": ("tf.math.rsqrt", FLOAT),
             "EXP": ("tf.exp", FLOAT), "LOG": ("tf.math.log", FLOAT), "LOG1P": ("tf.math.log1p", FLOAT),
             "SIN": ("tf.sin", FLOAT), "COS": ("tf.cos", FLOAT), "TANH": ("tf.tanh", FLOAT),
             "SIGMOID": ("tf.sigmoid", FLOAT), "FLOOR": ("tf.floor", FLOAT), "CEIL": ("tf.math.ceil", FLOAT),
             "ROUND": ("tf.round", NUM), "RECIPROCAL": ("tf.math.reciprocal", FLOAT),
             "SOFTPLUS": ("tf.math.softplus", FLOAT), "RELU": ("tf.nn.relu", NUM), "RELU6": ("tf.nn.relu6", NUM),
             "ELU": ("tf.nn.elu", FLOAT), "IS_NAN": ("tf.math.is_nan", FLOAT), "IS_INF": ("tf.math.is_inf", FLOAT),
             "IS_FINITE": ("tf.math.is_finite", FLOAT), "IDENTITY": ("tf.identity", NUM + ["bool", "string"]),
             "STOP_GRADIENT": ("tf.stop_gradient", NUM), "SHAPE": ("tf.shape", NUM + ["bool"]),
             "SIZE": ("tf.size", NUM), "RANK": ("tf.rank", NUM), "ZEROS_LIKE": ("tf.zeros_like", NUM + ["bool"]),
             "ONES_LIKE": ("tf.ones_like", NUM + ["bool"]),
             "EXPM1": ("tf.math.expm1", FLOAT), "ERF": ("tf.math.erf", FLOAT), "ERFC": ("tf.math.erfc", FLOAT),
             "LGAMMA": ("tf.math.lgamma", FLOAT), "DIGAMMA": ("tf.math.digamma", FLOAT), "SELU": ("tf.nn.selu", FLOAT),
             "TAN": ("tf.math.tan", FLOAT), "ASIN": ("tf.math.asin", FLOAT), "ACOS": ("tf.math.acos", FLOAT),
             "ATAN": ("tf.math.atan", FLOAT), "SINH": ("tf.math.sinh", FLOAT), "COSH": ("tf.math.cosh", FLOAT),
             "ASINH": ("tf.math.asinh", FLOAT), "ACOSH": ("tf.math.acosh", FLOAT), "ATANH": ("tf.math.atanh", FLOAT),
             "RINT": ("tf.math.rint", FLOAT), "NP_LOG10": ("tf.raw_ops.TfsLog10", FLOAT),
             "NP_LOG2": ("tf.raw_ops.TfsLog2", FLOAT), "NP_EXP2": ("tf.raw_ops.TfsExp2", FLOAT),
             "NP_CBRT": ("tf.raw_ops.TfsCbrt", FLOAT)}
    if op in unary:
        fn, dts = unary[op]
        if dts is FLOAT:   # the ones TF registers complex kernels for take complex too
            dts = FLOAT + HALF + (CPLX if op in CPLX_MATH else [])
        elif op in ("NEG", "ABS", "SIGN", "SQUARE", "ROUND", "RELU", "RELU6"):
            dts = NUM + HALF + ["int8", "int16"] + (CPLX if op in ("NEG", "ABS", "SIGN", "SQUARE") else [])
        dt = r.choice(dts)
        return ["%s(a0)" % fn, [inp(g.shape(), dt)]]
    if op in ("FFT", "IFFT", "RFFT", "IRFFT"):   # tf.signal: complex64/float32 only (kissfft's float build)
        fn = {"FFT": "tf.signal.fft(a0)", "IFFT": "tf.signal.ifft(a0)", "RFFT": "tf.signal.rfft(a0, fft_length=[%d])",
              "IRFFT": "tf.signal.irfft(a0, fft_length=[%d])"}[op]
        if "%d" in fn:
            fn = fn % r.choice([1, 2, 3, 4, 5])
        return [fn, [inp(g.shape(rank=r.choice([1, 2]), nonempty=True), "float32" if op == "RFFT" else "complex64")]]
    if op == "ATAN2":
        dt = r.choice(FLOAT)
        s = g.shape()
        return ["tf.math.atan2(a0, a1)", [inp(s, dt), inp(g.bcast(s), dt)]]
    if op == "COMPLEX":
        dt = r.choice(FLOAT)
        s = g.shape()
        return ["tf.complex(a0, a1)", [inp(s, dt), inp(g.bcast(s), dt)]]
    if op in ("REAL", "IMAG", "CONJ", "ANGLE"):
        fn = "tf.math." + op.lower()
        s = g.shape()
        if r.random() < 0.25:   # a real tensor: what TF's wrappers make of it
            return ["%s(a0)" % fn, [inp(s, r.choice(FLOAT))]]
        dt = r.choice(FLOAT)
        return ["%s(tf.complex(a0, a1))" % fn, [inp(s, dt), inp(s, dt)]]
    if op == "LOGICAL_NOT":
        return ["tf.logical_not(a0)", [inp(g.shape(), "bool")]]
    if op == "LEAKY_RELU":
        return ["tf.nn.leaky_relu(a0, alpha=%s)" % r.choice(["0.2", "0.01", "1.5"]), [inp(g.shape(), r.choice(FLOAT))]]
    if op == "GELU":
        return ["tf.nn.gelu(a0, approximate=%s)" % r.choice(["True", "False"]), [inp(g.shape(), r.choice(FLOAT))]]
    if op == "CAST":
        src = r.choice(NUM + SMALL + CPLX + ["bool"])
        dst = r.choice(NUM + SMALL + CPLX + ["bool", "uint8", "uint64"])
        return ["tf.cast(a0, tf.%s)" % dst, [inp(g.shape(), src, -3, 300 if dst == "uint8" and src in NUM else 5)]]
    if op == "BITCAST":
        # to an integer type no larger than the source: every shape works and no NaN bit pattern appears
        size = {"float16": 2, "bfloat16": 2, "int8": 1, "int16": 2, "uint16": 2, "uint32": 4, "float32": 4, "int32": 4,
                "float64": 8, "int64": 8, "complex64": 8, "complex128": 16}
        src = r.choice(NUM + SMALL + CPLX)
        dst = r.choice([d for d in ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
                        if {"uint8": 1, "uint64": 8}.get(d, size.get(d, 0)) <= size[src]])
        return ["tf.bitcast(a0, tf.%s)" % dst, [inp(g.shape(), src, -3, 5)]]
    if op == "SELECT":
        s = g.shape()
        if r.random() < 0.5:   # tf.where(c): indices, a data-dependent shape
            return ["tf.where(a0)", [inp(s, r.choice(["bool", "float32", "int32"]))]]
        dt = r.choice(NUM)
        return ["tf.where(a0, a1, a2)", [inp(g.bcast(s), "bool"), inp(s, dt), inp(g.bcast(s), dt)]]
    if op == "CLIP":
        dt = r.choice(NUM)
        s = g.shape()
        return ["tf.clip_by_value(a0, a1, a2)", [inp(s, dt), inp(g.bcast(s), dt, -5, 0), inp(g.bcast(s), dt, 0, 5)]]
    if op == "ADD_N":
        dt = r.choice(NUM)
        s = g.shape()
        n = r.randint(1, 3)
        return ["tf.add_n([%s])" % ", ".join("a%d" % i for i in range(n)), [inp(s, dt) for _ in range(n)]]
    reds = {"SUM": "tf.reduce_sum", "MEAN": "tf.reduce_mean", "MAX": "tf.reduce_max", "MIN": "tf.reduce_min",
            "PROD": "tf.reduce_prod", "ANY": "tf.reduce_any", "ALL": "tf.reduce_all",
            "LOGSUMEXP": "tf.reduce_logsumexp"}
    if op in reds:
        dt = "bool" if op in ("ANY", "ALL") else (r.choice(FLOAT + HALF) if op == "LOGSUMEXP" else r.choice(NUM + SMALL + (CPLX if op in ("SUM", "MEAN", "PROD") else [])))
        s = g.shape()
        ax = axis_arg(g, len(s))
        return ["%s(a0%s, keepdims=%s)" % (reds[op], ax, r.choice(["True", "False"])), [inp(s, dt, -3, 3)]]
    if op in ("ARGMAX", "ARGMIN"):
        s = g.shape(rank=r.randint(1, 3))
        ot = r.choice(["", ", output_type=tf.int32"])
        return ["tf.math.%s(a0, axis=%d%s)" % (op.lower(), r.randint(-len(s), len(s) - 1), ot), [inp(s, r.choice(NUM))]]
    if op in ("SOFTMAX", "LOG_SOFTMAX"):
        s = g.shape(rank=r.randint(1, 3))
        return ["tf.nn.%s(a0, axis=%d)" % (op.lower(), r.randint(-len(s), len(s) - 1)), [inp(s, r.choice(FLOAT))]]
    if op == "SPARSE_XENT":
        b, c = r.randint(0, 3), r.randint(1, 4)
        return ["tf.nn.sparse_softmax_cross_entropy_with_logits(labels=a0, logits=a1)",
                [inp((b,), r.choice(INT), 0, c - 1), inp((b, c), r.choice(FLOAT))]]
    if op == "XENT":
        s = g.shape(rank=r.randint(1, 3), nonempty=True)
        dt = r.choice(FLOAT)
        return ["tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(a0), logits=a1)", [inp(s, dt), inp(s, dt)]]
    if op == "NORM":
        if r.random() < 0.4:   # a matrix norm (ord 2: the largest singular value), of a real or complex matrix
            s = g.shape(rank=r.randint(2, 3))
            ax = r.choice(["[-2, -1]", "[0, 1]", "(1, 0)"])
            call = "tf.norm(%s, ord=%s, axis=%s)" % ("%s", r.choice(["'fro'", "1", "2", "float('inf')"]), ax)
        else:
            s = g.shape(rank=r.randint(1, 3))
            call = "tf.norm(%s%s%s)" % ("%s", ", ord=%s" % r.choice(["1", "2", "3.0", "float('inf')"]) if r.random() < 0.5 else "",
                                        ", axis=%d" % r.randint(-len(s), len(s) - 1) if r.random() < 0.5 else "")
        dt = r.choice(FLOAT)
        if r.random() < 0.4:
            return [call % "tf.complex(a0, a1)", [inp(s, dt), inp(s, dt)]]
        return [call % "a0", [inp(s, dt)]]
    linalg = ("MATRIX_INVERSE", "MATRIX_DETERMINANT", "LOG_MATRIX_DETERMINANT", "MATRIX_SOLVE", "CHOLESKY", "QR", "SVD",
              "SELF_ADJOINT_EIG", "TRIANGULAR_SOLVE", "BAND_PART", "DIAG_PART", "LU", "MATRIX_SQRT", "MATRIX_LOG", "EIG")
    if op in linalg:   # LAPACK-backed: batches of n x n (or m x n) matrices, made well-conditioned where the op needs it
        dt = r.choice(FLOAT)
        batch = tuple(r.randint(0, 2) for _ in range(r.randint(0, 1)))
        n = r.randint(0, 3)
        sq = batch + (n, n)
        eye = "tf.eye(%d, dtype=tf.%s) * 8.0" % (n, dt)
        if op == "MATRIX_INVERSE":
            return ["tf.linalg.inv(a0 + %s, adjoint=%s)" % (eye, r.random() < 0.3), [inp(sq, dt)]]
        if op == "MATRIX_DETERMINANT":
            return ["tf.linalg.det(a0)", [inp(sq, dt)]]
        if op == "LOG_MATRIX_DETERMINANT":
            return ["tf.linalg.slogdet(a0 + %s)" % eye, [inp(sq, dt)]]
        if op == "MATRIX_SOLVE":
            return ["tf.linalg.solve(a0 + %s, a1)" % eye, [inp(sq, dt), inp(batch + (n, r.randint(0, 2)), dt)]]
        if op == "CHOLESKY":
            return ["tf.linalg.cholesky(tf.matmul(a0, a0, transpose_b=True) + %s)" % eye, [inp(sq, dt)]]
        if op == "LU":
            return ["tf.linalg.lu(a0 + %s%s)" % (eye, r.choice(["", ", output_idx_type=tf.int64"])), [inp(sq, dt)]]
        spd = "tf.matmul(a0, a0, transpose_b=True) + %s" % eye
        if op == "MATRIX_SQRT":   # symmetric positive definite, real or as complex
            if r.random() < 0.3:
                return ["tf.linalg.sqrtm(tf.complex(%s, a0 * 0.1))" % spd, [inp(sq, dt)]]
            return ["tf.linalg.sqrtm(%s)" % spd, [inp(sq, dt)]]
        if op == "MATRIX_LOG":   # complex only, as TF
            return ["tf.linalg.logm(tf.complex(%s, a0 * 0.1))" % spd, [inp(sq, dt)]]
        if op == "SELF_ADJOINT_EIG":
            return ["tf.linalg.eigh(a0 + tf.linalg.adjoint(a0))", [inp(sq, dt)]]
        if op == "EIG":   # general matrices: complex eigen-pairs, or the values alone
            return [r.choice(["tf.linalg.eig(a0)", "tf.linalg.eigvals(a0)"]), [inp(sq, dt)]]
        if op == "TRIANGULAR_SOLVE":
            return ["tf.linalg.triangular_solve(a0 + %s, a1, lower=%s)" % (eye, r.random() < 0.5),
                    [inp(sq, dt), inp(batch + (n, r.randint(0, 2)), dt)]]
        rect = batch + (r.randint(0, 3), r.randint(0, 3))
        if op == "QR":
            return ["tf.linalg.qr(a0, full_matrices=%s)" % (r.random() < 0.5), [inp(rect, dt)]]
        if op == "SVD":   # real or complex
            x = "tf.complex(a0, a0 * 0.5 - 1.0)" if r.random() < 0.3 else "a0"
            return ["tf.linalg.svd(%s, full_matrices=%s, compute_uv=%s)" % (x, r.random() < 0.5, r.random() < 0.7),
                    [inp(rect, dt)]]
        if op == "BAND_PART":
            return ["tf.linalg.band_part(a0, %d, %d)" % (r.randint(-1, 2), r.randint(-1, 2)), [inp(rect, dt)]]
        if rect[-2] and rect[-1] and r.random() < 0.6:   # a band inside the matrix (TF's bounds), padded and aligned
            lo, hi = r.randint(1 - rect[-2], 0), r.randint(0, rect[-1] - 1)
            k = "%d" % lo if r.random() < 0.3 else "(%d, %d)" % (lo, hi)
            return ["tf.linalg.diag_part(a0, k=%s, padding_value=%d, align='%s')"
                    % (k, r.randint(-2, 2), r.choice(["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])),
                    [inp(rect, dt)]]
        return ["tf.linalg.diag_part(a0)", [inp(rect, dt)]]
    if op in ("MATMUL", "FUSED_MATMUL"):
        dt = r.choice(NUM + SMALL) if op == "MATMUL" else r.choice(FLOAT)
        m, k, n = r.randint(0, 3), r.randint(0, 3), r.randint(1, 3)
        ta, tb = r.random() < 0.3, r.random() < 0.3
        batch = (r.randint(1, 2),) if r.random() < 0.3 and op == "MATMUL" else ()
        a = batch + ((k, m) if ta else (m, k))
        b = batch + ((n, k) if tb else (k, n))
        call = "tf.matmul(a0, a1, transpose_a=%s, transpose_b=%s)" % (ta, tb)
        if op == "FUSED_MATMUL":   # the planner fuses MatMul + BiasAdd (+ Relu)
            return ["tf.nn.relu(tf.nn.bias_add(%s, a2))" % call, [inp(a, dt), inp(b, dt), inp((n,), dt)]]
        return [call, [inp(a, dt), inp(b, dt)]]
    if op == "TRANSPOSE":
        s = g.shape()
        perm = list(range(len(s)))
        r.shuffle(perm)
        return ["tf.transpose(a0%s)" % (", perm=%s" % perm if r.random() < 0.7 else ""), [inp(s, r.choice(NUM + ["bool"]))]]
    if op == "BIAS_ADD":
        s = g.shape(rank=r.randint(1, 3))
        dt = r.choice(NUM)
        return ["tf.nn.bias_add(a0, a1)", [inp(s, dt), inp((s[-1],), dt)]]
    if op in ("CONV2D", "CONV2D_BP_INPUT", "CONV2D_BP_FILTER", "FUSED_CONV2D"):
        n, h, w, c, o = r.randint(1, 2), r.randint(1, 5), r.randint(1, 5), r.randint(1, 2), r.randint(1, 2)
        kh, kw = r.randint(1, 3), r.randint(1, 3)
        st, pad = r.choice([1, 2]), r.choice(["SAME", "VALID"])
        if pad == "VALID":
            h, w = max(h, kh), max(w, kw)
        dl = r.choice([1, 1, 2])
        if pad == "VALID":
            h, w = max(h, (kh - 1) * dl + 1), max(w, (kw - 1) * dl + 1)
        call = "tf.nn.conv2d(a0, a1, strides=%d, padding='%s'%s)" % (st, pad, ", dilations=%d" % dl if dl > 1 else "")
        ins = [inp((n, h, w, c), "float32"), inp((kh, kw, c, o), "float32")]
        if op == "CONV2D_BP_INPUT" and r.random() < 0.4:   # conv2d_transpose stages it directly
            oh, ow = (h + st - 1) // st if pad == "SAME" else (h - kh) // st + 1, (w + st - 1) // st if pad == "SAME" else (w - kw) // st + 1
            return ["tf.nn.conv2d_transpose(a0, a1, [%d, %d, %d, %d], %d, '%s')" % (n, h, w, c, st, pad),
                    [inp((n, oh, ow, o), "float32"), inp((kh, kw, c, o), "float32")]]
        if op == "CONV2D":
            return [call, ins]
        if op == "FUSED_CONV2D":   # the planner fuses Conv2D + BiasAdd (+ Relu)
            return ["tf.nn.relu(tf.nn.bias_add(%s, a2))" % call, ins + [inp((o,), "float32")]]
        return ["_grad2(lambda p, q: %s, a0, a1)" % call.replace("a0", "p").replace("a1", "q"), ins]
    if op in ("DEPTHWISE", "DEPTHWISE_BP_INPUT", "DEPTHWISE_BP_FILTER"):
        n, h, w, c, m = r.randint(1, 2), r.randint(1, 5), r.randint(1, 5), r.randint(1, 3), r.randint(1, 2)
        kh, kw = r.randint(1, 3), r.randint(1, 3)
        dl = r.choice([1, 1, 2])
        st = 1 if dl > 1 else r.choice([1, 2])   # tf.nn.depthwise_conv2d: dilations only with stride 1
        pad = r.choice(["SAME", "VALID", "EXPLICIT"])
        if pad == "VALID":
            h, w = max(h, (kh - 1) * dl + 1), max(w, (kw - 1) * dl + 1)
        padding = "'%s'" % pad if pad != "EXPLICIT" else str([[0, 0], [r.randint(0, 2), r.randint(0, 2)], [r.randint(0, 2), r.randint(0, 2)], [0, 0]])
        if pad == "EXPLICIT":
            h, w = max(h, (kh - 1) * dl + 1), max(w, (kw - 1) * dl + 1)
        dt = r.choice(FLOAT)
        call = "tf.nn.depthwise_conv2d(a0, a1, [1, %d, %d, 1], %s%s)" % (st, st, padding, ", dilations=[%d, %d]" % (dl, dl) if dl > 1 else "")
        ins = [inp((n, h, w, c), dt), inp((kh, kw, c, m), dt)]
        if op == "DEPTHWISE":
            return [call, ins]
        return ["_grad2(lambda p, q: %s, a0, a1)" % call.replace("a0", "p").replace("a1", "q"), ins]
    resize = {"RESIZE_BILINEAR": "bilinear", "RESIZE_NEAREST": "nearest", "RESIZE_BICUBIC": "bicubic", "RESIZE_AREA": "area",
              "SCALE_TRANSLATE": "lanczos3", "RESIZE_BILINEAR_GRAD": "bilinear", "RESIZE_NEAREST_GRAD": "nearest",
              "RESIZE_BICUBIC_GRAD": "bicubic", "SCALE_TRANSLATE_GRAD": "lanczos3"}
    if op in resize:
        n, h, w, c = r.randint(1, 2), r.randint(1, 5), r.randint(1, 5), r.randint(1, 3)
        size = [r.randint(1, 7), r.randint(1, 7)]
        aa = ", antialias=True" if op.startswith("SCALE") else ""
        call = "tf.image.resize(a0, %s, method='%s'%s)" % (size, resize[op], aa)
        ins = [inp((n, h, w, c), "float32")]
        if op.endswith("_GRAD"):
            return ["_grad1(lambda p: %s, a0)" % call.replace("a0", "p"), ins]
        return [call, ins]
    if op == "PROJ_TRANSFORM":
        n, h, w, c = r.randint(1, 2), r.randint(1, 5), r.randint(1, 5), r.randint(1, 3)
        call = ("tf.raw_ops.ImageProjectiveTransformV3(images=a0, transforms=a1, output_shape=%s, fill_value=%s, "
                "interpolation='%s', fill_mode='%s')" % ([r.randint(1, 6), r.randint(1, 6)], r.choice(["0.0", "-1.5"]),
                                                        r.choice(["NEAREST", "BILINEAR"]),
                                                        r.choice(["REFLECT", "WRAP", "CONSTANT", "NEAREST"])))
        return [call, [inp((n, h, w, c), r.choice(["float32", "float64", "int32"])),
                       inp((r.choice([1, n]), 8), "float32", -2, 2)]]
    if op in ("DECODE_GIF", "DECODE_BMP"):   # no encoders: a PNG through DecodeGif, DecodeBmp refusing it
        h, w, c = r.randint(1, 5), r.randint(1, 5), 3
        return ["tf.io.%s(tf.io.encode_png(tf.cast(a0, tf.uint8)))" % op.lower(), [inp((h, w, c), "int32", 0, 255)]]
    if op in ("DECODE_PNG", "ENCODE_PNG", "DECODE_IMAGE", "DECODE_JPEG", "ENCODE_JPEG"):
        h, w, c = r.randint(1, 5), r.randint(1, 5), r.choice([1, 3] if "JPEG" in op else [1, 2, 3, 4])
        img = "tf.cast(a0, tf.uint8)"
        if "JPEG" in op:
            return ["tf.io.decode_jpeg(tf.io.encode_jpeg(%s))" % img, [inp((h, w, c), "int32", 0, 255)]]
        dec = "tf.io.decode_image" if op == "DECODE_IMAGE" else "tf.io.decode_png"
        return ["%s(tf.io.encode_png(%s))" % (dec, img), [inp((h, w, c), "int32", 0, 255)]]
    # the fused recurrent ops' activations (k_rnn_act.c): SimpleRNN's first five, LSTM's and GRU's all
    acts = ["tanh", "sigmoid", "relu", "linear", "hard_sigmoid", "elu", "selu", "softsign", "softplus", "swish", "gelu"]
    if op in ("LSTM_SEQ", "LSTM_SEQ_GRAD"):   # the fused LSTM (k_rnn.c), each activation, and through a tape its gradient
        t_, b_, h_ = r.randint(1, 4), r.randint(1, 3), r.randint(1, 3)
        call = ("tf.raw_ops.TfsLSTMSequence(xp=a0, h0=a1, c0=a2, recurrent_kernel=a3, bias=a4, go_backwards=%s, "
                "activation='%s', recurrent_activation='%s')[0]" % (r.choice(["False", "True"]), r.choice(acts), r.choice(acts)))
        ins = [inp((t_, b_, 4 * h_), "float32", -1, 1), inp((b_, h_), "float32", -1, 1), inp((b_, h_), "float32", -1, 1),
               inp((h_, 4 * h_), "float32", -1, 1), inp((4 * h_,), "float32", -1, 1)]
        if op == "LSTM_SEQ":
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("xp=a0", "xp=p"), ins]
    if op in ("BNORM_TRAIN", "BNORM_TRAIN_GRAD"):   # Keras BatchNormalization's fused training op (k_bnorm.c), its gradient
        shape, c_ = g.shape(), r.randint(1, 4)
        call = "tf.raw_ops.TfsBatchNormTrain(x=a0, gamma=a1, beta=a2, epsilon=%s)[0]" % r.choice(["0.001", "0.1"])
        ins = [inp(tuple(shape) + (c_,), "float32", -2, 2), inp((c_,), "float32", 0.5, 2), inp((c_,), "float32", -1, 1)]
        if op == "BNORM_TRAIN":
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("x=a0", "x=p"), ins]
    if op in ("GRU_SEQ", "GRU_SEQ_GRAD"):   # the fused GRU (k_rnn.c), both reset forms, each activation, and its gradient
        t_, b_, h_, after = r.randint(1, 4), r.randint(1, 3), r.randint(1, 3), r.choice([True, False])
        call = ("tf.raw_ops.TfsGRUSequence(xp=a0, h0=a1, recurrent_kernel=a2, bias=a3, go_backwards=%s, reset_after=%s, "
                "activation='%s', recurrent_activation='%s')[0]" % (r.choice(["False", "True"]), after, r.choice(acts), r.choice(acts)))
        ins = [inp((t_, b_, 3 * h_), "float32", -1, 1), inp((b_, h_), "float32", -1, 1), inp((h_, 3 * h_), "float32", -1, 1),
               inp((2, 3 * h_) if after else (3 * h_,), "float32", -1, 1)]
        if op == "GRU_SEQ":
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("xp=a0", "xp=p"), ins]
    if op in ("SRNN_SEQ", "SRNN_SEQ_GRAD"):   # the fused SimpleRNN (k_rnn_simple.c), each activation, and its gradient
        t_, b_, h_ = r.randint(1, 4), r.randint(1, 3), r.randint(1, 3)
        call = ("tf.raw_ops.TfsSimpleRNNSequence(xp=a0, h0=a1, recurrent_kernel=a2, bias=a3, go_backwards=%s, activation='%s')[0]"
                % (r.choice(["False", "True"]), r.choice(acts[:5])))
        ins = [inp((t_, b_, h_), "float32", -1, 1), inp((b_, h_), "float32", -1, 1), inp((h_, h_), "float32", -1, 1),
               inp((h_,), "float32", -1, 1)]
        if op == "SRNN_SEQ":
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("xp=a0", "xp=p"), ins]
    if op in ("CONV3D", "CONV3D_BP_INPUT", "CONV3D_BP_FILTER"):   # k_conv3d.c (vol2col + GEMM) and its gradients
        n, c, o = r.randint(1, 2), r.randint(1, 2), r.randint(1, 2)
        d, h, w = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
        kd, kh, kw = r.randint(1, 2), r.randint(1, 3), r.randint(1, 2)
        dl = r.choice([1, 1, 2])
        st = 1 if dl > 1 else r.choice([1, 2])
        pad = r.choice(["SAME", "VALID"])
        if pad == "VALID":
            d, h, w = max(d, (kd - 1) * dl + 1), max(h, (kh - 1) * dl + 1), max(w, (kw - 1) * dl + 1)
        dt = r.choice(FLOAT)
        call = "tf.nn.conv3d(a0, a1, [1, %d, %d, %d, 1], '%s'%s)" % (st, st, st, pad,
                                                                   ", dilations=[1, %d, %d, %d, 1]" % (dl, dl, dl) if dl > 1 else "")
        ins = [inp((n, d, h, w, c), dt), inp((kd, kh, kw, c, o), dt)]
        if op == "CONV3D":
            return [call, ins]
        return ["_grad2(lambda p, q: %s, a0, a1)" % call.replace("a0", "p").replace("a1", "q"), ins]
    if op in ("MAX_POOL3D", "AVG_POOL3D", "MAX_POOL3D_GRAD", "AVG_POOL3D_GRAD"):
        n, d, h, w, c = r.randint(1, 2), r.randint(1, 4), r.randint(2, 4), r.randint(1, 4), r.randint(1, 2)
        k, st, pad = r.choice([1, 2]), r.choice([1, 2]), r.choice(["SAME", "VALID"])
        if pad == "VALID":
            d, h, w = max(d, k), max(h, k), max(w, k)
        fn = "tf.nn.max_pool3d" if op.startswith("MAX") else "tf.nn.avg_pool3d"
        call = "%s(a0, ksize=%d, strides=%d, padding='%s')" % (fn, k, st, pad)
        ins = [inp((n, d, h, w, c), r.choice(FLOAT))]
        if not op.endswith("_GRAD"):
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("a0", "p"), ins]
    if op == "SUM_TO":   # a broadcasting op's gradient where the graph knows no dims: summed to the operand's shape at run time
        s = g.shape(rank=r.randint(1, 3), nonempty=True)
        t = tuple(1 if r.random() < 0.4 else x for x in s[r.randint(0, len(s)):])
        dt = r.choice(FLOAT)
        return ["_grad2(lambda p, q: p * q, a0, a1)", [inp(s, dt), inp(t, dt)]]
    if op in ("MAX_POOL", "MAX_POOL_GRAD"):
        n, h, w, c = r.randint(1, 2), r.randint(2, 5), r.randint(2, 5), r.randint(1, 2)
        k, st, pad = r.choice([1, 2]), r.choice([1, 2]), r.choice(["SAME", "VALID"])
        call = "tf.nn.max_pool2d(a0, ksize=%d, strides=%d, padding='%s')" % (k, st, pad)
        ins = [inp((n, h, w, c), "float32")]
        if op == "MAX_POOL":
            return [call, ins]
        return ["_grad1(lambda p: %s, a0)" % call.replace("a0", "p"), ins]
    if op == "RESHAPE":
        s = g.shape()
        n = 1
        for d in s:
            n *= d
        tgt = r.choice([[-1], [n], [1, -1] if n else [0, 2], [n, 1], [2, -1]])
        return ["tf.reshape(a0, %s)" % tgt, [inp(s, r.choice(NUM))]]
    if op == "EXPAND_DIMS":
        s = g.shape()
        return ["tf.expand_dims(a0, %d)" % r.randint(-len(s) - 1, len(s)), [inp(s, r.choice(NUM))]]
    if op == "SQUEEZE":
        s = tuple(d if r.random() < 0.5 else 1 for d in g.shape())
        ones = [i for i, d in enumerate(s) if d == 1]
        ax = "" if not ones or r.random() < 0.4 else ", axis=%s" % r.sample(ones, r.randint(1, len(ones)))
        return ["tf.squeeze(a0%s)" % ax, [inp(s, r.choice(NUM))]]
    if op == "STRIDED_SLICE":
        s = g.shape(rank=r.randint(1, 3))
        return ["a0[%s]" % slice_key(g, s), [inp(s, r.choice(NUM + ["bool"]))]]
    if op == "SLICE":
        s = g.shape(rank=r.randint(1, 3))
        b = [r.randint(0, d) for d in s]
        z = [r.choice([-1, r.randint(0, d - bb)]) for d, bb in zip(s, b)]
        return ["tf.slice(a0, %s, %s)" % (b, z), [inp(s, r.choice(NUM))]]
    if op == "CONCAT":
        s = list(g.shape(rank=r.randint(1, 3)))
        ax = r.randint(0, len(s) - 1)
        n = r.randint(1, 3)
        dt = r.choice(NUM)
        parts = []
        for _ in range(n):
            s2 = list(s)
            s2[ax] = r.randint(0, 3)
            parts.append(inp(tuple(s2), dt))
        return ["tf.concat([%s], %d)" % (", ".join("a%d" % i for i in range(n)), ax), parts]
    if op == "STACK":
        s = g.shape()
        n = r.randint(1, 3)
        dt = r.choice(NUM)
        return ["tf.stack([%s], axis=%d)" % (", ".join("a%d" % i for i in range(n)), r.randint(-len(s) - 1, len(s))),
                [inp(s, dt) for _ in range(n)]]
    if op == "UNSTACK":
        s = g.shape(rank=r.randint(1, 3))
        return ["tf.unstack(a0, axis=%d)" % r.randint(-len(s), len(s) - 1), [inp(s, r.choice(NUM))]]
    if op == "GATHER":
        s = g.shape(rank=r.randint(1, 3))
        ax = r.randint(0, len(s) - 1)
        ishape = g.shape(rank=r.randint(0, 2))
        return ["tf.gather(a0, a1, axis=%d)" % ax, [inp(s, r.choice(NUM)), inp(ishape, r.choice(INT), 0, max(s[ax] - 1, 0))]]
    if op == "GATHER_ND":
        s = g.shape(rank=r.randint(1, 3), nonempty=True)
        k = r.randint(1, len(s))
        nidx = r.randint(0, 3)
        idx = [[r.randint(0, s[j] - 1) for j in range(k)] for _ in range(nidx)]
        src = "tf.constant(%s, dtype=tf.int32)" % idx if idx else "tf.zeros([0, %d], tf.int32)" % k
        return ["tf.gather_nd(a0, a1)", [inp(s, r.choice(NUM)), src]]
    if op == "PAD":
        s = g.shape(rank=r.randint(1, 3))
        mode = r.choice(["CONSTANT", "CONSTANT", "REFLECT", "SYMMETRIC"])
        pads = []
        for d in s:
            lim = d - 1 if mode == "REFLECT" else d if mode == "SYMMETRIC" else 2
            pads.append([r.randint(0, max(lim, 0)), r.randint(0, max(lim, 0))])
        dt = r.choice(NUM)
        cv = ", constant_values=a1" if mode == "CONSTANT" and r.random() < 0.5 else ""
        ins = [inp(s, dt)] + ([inp((), dt)] if cv else [])
        return ["tf.pad(a0, %s, mode='%s'%s)" % (pads, mode, cv), ins]
    if op == "TILE":
        s = g.shape()
        return ["tf.tile(a0, %s)" % [r.randint(0, 2) for _ in s], [inp(s, r.choice(NUM))]]
    if op == "BROADCAST_TO":
        s = g.bcast(g.shape())
        tgt = [r.randint(1, 2)] + [d if d != 1 else r.randint(0, 3) for d in s]
        return ["tf.broadcast_to(a0, %s)" % tgt, [inp(s, r.choice(NUM))]]
    if op == "ONE_HOT":
        s = g.shape(rank=r.randint(0, 2))
        depth = r.randint(0, 4)
        return ["tf.one_hot(a0, %d, axis=%d)" % (depth, r.randint(-1, len(s))), [inp(s, r.choice(INT), -1, depth)]]
    if op in ("ZEROS", "ONES"):
        return ["tf.%s(tf.shape(a0), tf.%s)" % (op.lower(), r.choice(NUM + ["bool"])), [inp(g.shape(), "float32")]]
    if op == "FILL":
        return ["tf.fill(tf.shape(a0), a1)", [inp(g.shape(), "float32"), inp((), r.choice(NUM))]]
    if op == "EYE":
        return ["tf.eye(%d, %s, dtype=tf.%s) + tf.cast(tf.reduce_sum(a0), tf.%s)"
                % (r.randint(0, 3), r.choice(["None", "2", "0"]), "float32", "float32"), [inp(g.shape(), "float32")]]
    if op == "RANGE":
        dt = r.choice(NUM)
        d = r.choice([1, 2, -1]) if dt.startswith("int") else r.choice([0.5, 1.0, -1.5])
        return ["tf.range(a0, a1, %s)" % d, [inp((), dt, -3, 3), inp((), dt, -3, 6)]]
    if op == "LINSPACE":
        dt = r.choice(FLOAT)
        return ["tf.linspace(a0, a1, %d)" % r.randint(0, 4), [inp((), dt), inp((), dt)]]
    if op in ("RANDOM_UNIFORM", "RANDOM_NORMAL", "TRUNC_NORMAL"):
        fn = {"RANDOM_UNIFORM": "tf.random.uniform", "RANDOM_NORMAL": "tf.random.normal",
              "TRUNC_NORMAL": "tf.random.truncated_normal"}[op]
        return ["%s(tf.shape(a0), seed=%d)" % (fn, r.randint(1, 9)), [inp(g.shape(), "float32")], "shape_only"]
    if op in ("RANDOM_GAMMA", "RANDOM_POISSON"):   # stateful: the shapes agree; eager and graph draw differently
        fn = "tf.random.gamma" if op == "RANDOM_GAMMA" else "tf.random.poisson"
        return ["%s([%d], a0, dtype=a0.dtype, seed=%d)" % (fn, r.randint(0, 3), r.randint(1, 9)), [inp(g.shape(), r.choice(FLOAT), 0.5, 4)], "shape_only"]
    if op in ("STATELESS_GAMMA", "STATELESS_POISSON"):   # same seed: same numbers in both
        s = tuple(g.shape())
        fn = "tf.random.stateless_gamma" if op == "STATELESS_GAMMA" else "tf.random.stateless_poisson"
        par = "alpha=a0, dtype=a0.dtype" if op == "STATELESS_GAMMA" else "lam=a0"
        return ["%s(%s, seed=tf.cast(a1, tf.int64), %s)" % (fn, [r.randint(0, 3)] + list(s), par),
                [inp(s, r.choice(FLOAT), 0.5, 4), inp((2,), r.choice(INT), 0, 1000)]]
    if op == "RANDOM_GAMMA_GRAD":
        dt = r.choice(FLOAT)
        s = g.shape()
        return ["tf.raw_ops.RandomGammaGrad(alpha=a0, sample=a1)", [inp(s, dt, 0.5, 4), inp(g.bcast(s), dt, 0.1, 6)]]
    if op == "DROPOUT":
        rate = r.choice(["0.0", "0.5"])
        return ["tf.nn.dropout(a0, %s, seed=3)" % rate, [inp(g.shape(), r.choice(FLOAT))], "shape_only"]
    asserts = {"ASSERT_EQUAL": "tf.debugging.assert_equal(a0, a1)", "ASSERT_GREATER": "tf.debugging.assert_greater(a0, a1)",
               "ASSERT_GREATER_EQUAL": "tf.debugging.assert_greater_equal(a0, a1)",
               "ASSERT_LESS": "tf.debugging.assert_less(a0, a1)", "ASSERT_LESS_EQUAL": "tf.debugging.assert_less_equal(a0, a1)",
               "ASSERT_NON_NEGATIVE": "tf.debugging.assert_non_negative(a0)",
               "ASSERT_POSITIVE": "tf.debugging.assert_positive(a0)",
               "ASSERT_NON_POSITIVE": "tf.debugging.assert_non_positive(-a0)",
               "ASSERT_NEGATIVE": "tf.debugging.assert_negative(-a0 - 1)",
               "ASSERT_NONE_EQUAL": "tf.debugging.assert_none_equal(a0, a1 + 3)"}
    if op in asserts:
        dt = r.choice(NUM)
        s = g.shape()
        ins = [inp(s, dt, 0, 2)] + ([inp(g.bcast(s), dt, 0, 2)] if "a1" in asserts[op] else [])
        return ["_after(%s, a0)" % asserts[op], ins]
    if op == "ASSERT_FINITE":
        return ["tf.debugging.assert_all_finite(a0, 'bad')", [inp(g.shape(), r.choice(FLOAT))]]
    if op == "CHECK_NUMERICS":
        return ["tf.debugging.check_numerics(a0, 'bad')", [inp(g.shape(), r.choice(FLOAT))]]
    if op == "CHECK_NUMERICS_V2":
        return ["tf.raw_ops.CheckNumericsV2(tensor=a0, message='bad')", [inp(g.shape(), r.choice(FLOAT))]]
    if op == "TFS_ASSERT":
        # assert_shapes' runtime Assert: passes or fails by a0's size (unknown dims make it a graph Assert)
        return ["_after(tf.raw_ops.TfsAssert(data=[tf.size(a0) >= 0, 'size', tf.shape(a0)]), a0 + 1)",
                [inp(g.shape(), r.choice(NUM))]]
    if op == "PRINT":
        return ["_after(tf.print(a0), a0 + 1)", [inp(g.shape(), r.choice(NUM))]]
    if op == "TIMESTAMP":
        return ["tf.timestamp() * 0.0 + tf.cast(tf.size(a0), tf.float64)", [inp(g.shape(), "float32")]]
    if op == "NOOP":
        return ["_after(tf.no_op(), a0 + 1)", [inp(g.shape(), r.choice(NUM))]]
    if op == "WRITE_SUMMARY":
        return ["_summary(a0)", [inp((), "float32")]]
    if op in ("READ_VARIABLE", "ASSIGN_VARIABLE", "ASSIGN_ADD_VARIABLE", "ASSIGN_SUB_VARIABLE"):
        dt = r.choice(FLOAT)
        meth = {"READ_VARIABLE": "read_value()", "ASSIGN_VARIABLE": "assign(a0)", "ASSIGN_ADD_VARIABLE": "assign_add(a0)",
                "ASSIGN_SUB_VARIABLE": "assign_sub(a0)"}[op]
        s = g.shape()
        return ["_var(a0, lambda v: v.%s)" % meth, [inp(s, dt)]]
    if op.startswith("RESOURCE_SCATTER_"):   # Variable.scatter_add...(tf.IndexedSlices) on a float variable of a0's shape
        dt = r.choice(FLOAT)
        s = g.shape(rank=r.randint(1, 3), nonempty=True)
        n = r.randint(0, 3)
        idx = [r.randint(0, s[0] - 1) for _ in range(n)]
        meth = "scatter_" + op[len("RESOURCE_SCATTER_"):].lower()
        return ["_var(a0, lambda v: v.%s(tf.IndexedSlices(a1, tf.constant(%s, shape=[%d], dtype=tf.int32))))" % (meth, idx, n),
                [inp(s, dt, 1, 3), inp(tuple([n]) + tuple(s[1:]), dt, 1, 3)]]
    if op in ("TL_RESERVE", "TL_SET_ITEM", "TL_GET_ITEM", "TL_STACK", "TL_LENGTH", "TL_RESIZE"):
        s = g.shape()
        return ["_ta_loop(a0, %d)" % r.randint(0, 3), [inp(s, r.choice(NUM))]]
    if op in ("TL_FROM_TENSOR", "TL_GATHER", "TL_SCATTER", "TL_CONCAT"):
        s = g.shape(rank=r.randint(2, 3))
        n = s[0]
        idx = [r.randint(0, max(n - 1, 0)) for _ in range(r.randint(0, 3))] if n else []
        return ["_ta_ops(a0, %s)" % idx, [inp(s, r.choice(FLOAT))]]
    if op in ("TL_ADD", "TL_CONCAT_GRAD"):
        s = g.shape(rank=2, nonempty=True)
        return ["_grad1(lambda p: _ta_ops(p, [0]), a0)", [inp(s, "float32")]]
    if op in ("CUMSUM", "CUMPROD"):
        s = g.shape(rank=r.randint(1, 3))
        fn = "tf.math.cumsum" if op == "CUMSUM" else "tf.math.cumprod"
        return ["%s(a0, axis=%d, exclusive=%s, reverse=%s)" % (fn, r.randint(-len(s), len(s) - 1), r.random() < 0.5,
                                                                r.random() < 0.5), [inp(s, r.choice(NUM), -3, 3)]]
    if op == "TOP_K":   # tf.math.top_k's values and indices, or sort/argsort built on it
        s = g.shape(rank=r.randint(1, 3))
        k = r.randint(0, s[-1])
        f = r.choice(["tuple(tf.math.top_k(a0, %d))" % k, "tf.sort(a0, direction='DESCENDING')", "tf.argsort(a0)"])
        return [f, [inp(s, r.choice(NUM))]]
    if op == "TOP_K_GRAD":
        s = g.shape(rank=r.randint(1, 3))
        return ["_grad1(lambda p: tf.math.top_k(p, %d).values, a0)" % r.randint(0, s[-1]), [inp(s, r.choice(FLOAT))]]
    if op.startswith("TENSOR_SCATTER_"):
        s = g.shape(rank=r.randint(1, 3), nonempty=True)
        depth = r.randint(1, len(s))
        n = r.randint(0, 3)
        idx = [[r.randint(0, s[d] - 1) for d in range(depth)] for _ in range(n)]
        dt = r.choice(NUM)
        fn = "tf.tensor_scatter_nd_" + op[len("TENSOR_SCATTER_"):].lower()
        return ["%s(a0, tf.constant(%s, shape=[%d, %d], dtype=tf.int32), a1)" % (fn, idx, n, depth),
                [inp(s, dt), inp(tuple([n]) + tuple(s[depth:]), dt)]]
    if op in ("STATELESS_UNIFORM", "STATELESS_NORMAL", "STATELESS_TRUNC_NORMAL"):   # same seed: same numbers in both
        fn = {"STATELESS_UNIFORM": "tf.random.stateless_uniform", "STATELESS_NORMAL": "tf.random.stateless_normal",
              "STATELESS_TRUNC_NORMAL": "tf.random.stateless_truncated_normal"}[op]
        return ["%s(%s, seed=tf.cast(a0, tf.int64), dtype=tf.%s)" % (fn, list(g.shape()), r.choice(FLOAT)),
                [inp((2,), r.choice(INT), 0, 1000)]]
    if op == "PY_FUNC":   # a host function run by the graph at each call
        dt = r.choice(NUM)
        fn = r.choice(["tf.py_function(lambda v: v * 2, [a0], tf.%s)" % dt,
                       "tf.numpy_function(lambda v: v + 1, [a0], tf.%s)" % dt])
        return [fn, [inp(g.shape(), dt)]]
    if op in ("UNIQUE", "UNIQUE_WITH_COUNTS"):   # a data-dependent output size
        fn = "tf.unique" if op == "UNIQUE" else "tf.unique_with_counts"
        return ["tuple(%s(a0))" % fn, [inp((r.randint(0, 6),), r.choice(NUM), -2, 2)]]
    if op == "ENSURE_SHAPE":   # a compatible expected shape (some dims None): the value passes through
        dt = r.choice(NUM + ["string"])
        s = g.shape()
        want = [d if r.random() < 0.5 else None for d in s] if r.random() < 0.8 else None
        return ["tf.ensure_shape(a0, %r)" % (want,), [inp(s, dt)]]
    if op in ("DECODE_RAW", "DECODE_PADDED_RAW"):   # strings of equal (or, padded, any) length as numbers
        n = r.randint(0, 3)
        width = r.choice([0, 4, 8])
        strs = ["".join(r.choice("ab\x01") for _ in range(width if op == "DECODE_RAW" else r.randint(0, 6))) for _ in range(n)]
        call = "tf.io.decode_raw(a0, tf.%s%s)" % (r.choice(["uint8", "int16", "int32", "float32"]),
                                                  "" if op == "DECODE_RAW" else ", fixed_length=%d" % r.choice([4, 8]))
        return [call, ["tf.constant(%r, tf.string)" % (strs,)]]
    sparse = {"SPARSE_TO_DENSE": "tf.sparse.to_dense(tf.sparse.from_dense(a0))",
              "SPARSE_REORDER": "tf.sparse.reorder(tf.sparse.from_dense(a0)).values",
              "SPARSE_REDUCE_SUM": "tf.sparse.reduce_sum(tf.sparse.from_dense(a0), axis=%d)",
              "SPARSE_REDUCE_MAX": "tf.sparse.reduce_max(tf.sparse.from_dense(a0), axis=%d)",
              "SPARSE_REDUCE_SUM_SPARSE": "tf.sparse.reduce_sum(tf.sparse.from_dense(a0), axis=%d, output_is_sparse=True).values",
              "SPARSE_REDUCE_MAX_SPARSE": "tf.sparse.reduce_max(tf.sparse.from_dense(a0), axis=%d, output_is_sparse=True).values"}
    if op in sparse:   # a SparseTensor of a dense input's nonzeros
        s = g.shape(rank=r.randint(1, 3))
        body = sparse[op] % r.randint(0, len(s) - 1) if "%d" in sparse[op] else sparse[op]
        return [body, [inp(s, r.choice(NUM), -2, 2)]]
    merges = {"SPARSE_ADD": "tf.sparse.add", "SPARSE_MAXIMUM": "tf.sparse.maximum", "SPARSE_MINIMUM": "tf.sparse.minimum"}
    if op in merges or op == "SPARSE_ADD_GRAD":   # two SparseTensors of one dense shape; SparseAddGrad by the gradient
        s = g.shape(rank=r.randint(1, 3))
        dt = "float32" if op == "SPARSE_ADD_GRAD" else r.choice(NUM)
        if op == "SPARSE_ADD_GRAD":
            return ["_grad1(lambda p: tf.sparse.add(tf.sparse.from_dense(p), tf.sparse.from_dense(a1), threshold=1).values, a0)",
                    [inp(s, dt, -2, 2), inp(s, dt, -2, 2)]]
        return ["%s(tf.sparse.from_dense(a0), tf.sparse.from_dense(a1)).values" % merges[op],
                [inp(s, dt, -2, 2), inp(s, dt, -2, 2)]]
    if op in ("SPARSE_RESHAPE", "SPARSE_SLICE", "SPARSE_SLICE_GRAD", "SPARSE_SOFTMAX", "SPARSE_FILL_EMPTY_ROWS",
              "SPARSE_FILL_EMPTY_ROWS_GRAD", "SPARSE_CONCAT"):   # a SparseTensor of a dense input's nonzeros
        s = list(g.shape(rank=r.randint(2 if op == "SPARSE_SOFTMAX" else 1, 3)))
        dt = "float32" if op.endswith("_GRAD") else r.choice(FLOAT if op == "SPARSE_SOFTMAX" else NUM)
        start = [r.randint(0, 2) for _ in s]
        size = [r.randint(0, 3) for _ in s]
        body = {"SPARSE_RESHAPE": "tf.sparse.reshape(tf.sparse.from_dense(a0), [-1, 1]).indices",
                "SPARSE_SLICE": "tf.sparse.slice(tf.sparse.from_dense(a0), %r, %r).values" % (start, size),
                "SPARSE_SLICE_GRAD": "_grad1(lambda p: tf.sparse.slice(tf.sparse.from_dense(p), %r, %r).values, a0)" % (start, size),
                "SPARSE_SOFTMAX": "tf.sparse.softmax(tf.sparse.from_dense(a0)).values",
                "SPARSE_FILL_EMPTY_ROWS": "tf.sparse.fill_empty_rows(tf.sparse.from_dense(a0), 3)[0].values",
                "SPARSE_FILL_EMPTY_ROWS_GRAD": "_grad1(lambda p: tf.sparse.fill_empty_rows(tf.sparse.from_dense(p), 3.0)[0].values, a0)",
                "SPARSE_CONCAT": "tf.sparse.concat(%d, [tf.sparse.from_dense(a0), tf.sparse.from_dense(a0)]).indices" % r.randint(-len(s), len(s) - 1)}[op]
        if op in ("SPARSE_SLICE_GRAD", "SPARSE_FILL_EMPTY_ROWS_GRAD", "SPARSE_FILL_EMPTY_ROWS") and not s[0]:
            s[0] = 1   # a gradient through rows
        return [body, [inp(tuple(s), dt, -2, 2)]]
    if op in ("SPARSE_DENSE_MUL", "SPARSE_DENSE_DIV", "SPARSE_DENSE_ADD"):   # the dense side: trailing dims, some 1
        s = list(g.shape(rank=r.randint(1, 3)))
        t = [1 if r.random() < 0.3 else n for n in s[r.randint(0, len(s)):]]
        dt = r.choice(NUM + SMALL)
        raw = {"SPARSE_DENSE_MUL": "SparseDenseCwiseMul", "SPARSE_DENSE_DIV": "SparseDenseCwiseDiv",
               "SPARSE_DENSE_ADD": "SparseDenseCwiseAdd"}[op]
        body = ("(lambda sp: tf.raw_ops.%s(sp_indices=sp.indices, sp_values=sp.values, sp_shape=sp.dense_shape, "
                "dense=a1))(tf.sparse.from_dense(a0))" % raw)
        if op != "SPARSE_DENSE_ADD" and r.random() < 0.3:   # the gradient in the dense operand
            dt = r.choice(FLOAT)
            body = "_grad1(lambda p: (tf.sparse.from_dense(a0) %s p).values, a1)" % ("*" if op == "SPARSE_DENSE_MUL" else "/")
        return [body, [inp(tuple(s), dt, -2, 3), inp(tuple(t), dt, 1, 4)]]
    if op == "SPARSE_DENSE_MATMUL":
        m, k, n = r.randint(0, 3), r.randint(1, 3), r.randint(0, 3)
        dt = r.choice(FLOAT)
        return ["tf.sparse.sparse_dense_matmul(tf.sparse.from_dense(a0), a1)", [inp((m, k), dt, -2, 2), inp((k, n), dt)]]
    segs = {"SPARSE_SEGMENT_SUM": "tf.sparse.segment_sum", "SPARSE_SEGMENT_MEAN": "tf.sparse.segment_mean",
            "SPARSE_SEGMENT_SQRTN": "tf.sparse.segment_sqrt_n"}
    grads = {"SPARSE_SEGMENT_SUM_GRAD": "tf.sparse.segment_sum", "SPARSE_SEGMENT_MEAN_GRAD": "tf.sparse.segment_mean",
             "SPARSE_SEGMENT_SQRTN_GRAD": "tf.sparse.segment_sqrt_n"}
    if op in segs or op in grads:   # rows picked by indices into sorted segments; the Grad ops by the gradient
        rows = r.randint(1, 4)
        k = r.randint(0, 4)
        idx = sorted(r.randint(0, rows - 1) for _ in range(k))
        ids = sorted(r.randint(0, 2) for _ in range(k))
        s = (rows,) + tuple(g.shape(rank=r.randint(0, 1)))
        if op in segs:
            return ["%s(a0, %r, %r)" % (segs[op], idx, ids), [inp(s, r.choice(FLOAT))]]
        return ["_grad1(lambda p: %s(p, %r, %r), a0)" % (grads[op], idx, ids), [inp(s, "float32")]]
    if op in ("LOWER_BOUND", "UPPER_BOUND"):
        dt = r.choice(NUM)
        lead = g.shape(rank=r.randint(0, 1))
        side = "left" if op == "LOWER_BOUND" else "right"
        return ["tf.searchsorted(tf.sort(a0), a1, side='%s')" % side,
                [inp(tuple(lead) + (r.randint(1, 4),), dt), inp(tuple(lead) + (r.randint(0, 3),), dt)]]
    if op == "TRIGAMMA":   # staged by digamma's gradient
        return ["_grad1(lambda p: tf.math.digamma(p), a0)", [inp(g.shape(), r.choice(FLOAT))]]
    if op == "SCATTER_GRAD":
        s = g.shape(rank=r.randint(1, 2))
        f = r.choice(["tf.gather(p, [0, 0])" if s[0] else "tf.gather(p, [])", "p[::-1]", "tf.pad(p, %s)" % ([[1, 0]] * len(s))])
        return ["_grad1(lambda p: %s, a0)" % f, [inp(s, "float32")]]
    if op == "COLL_REDUCE":   # one process: the collectives are the identity (tests/distribute.py runs them on 2 ranks)
        dt = r.choice(NUM)
        ins = [inp(g.shape(), dt) for _ in range(r.randint(1, 3))]
        return ["_dist.all_reduce([%s], %d)" % (", ".join("a%d" % i for i in range(len(ins))), r.randint(0, 4)), ins]
    if op == "COLL_GATHER":
        s = g.shape(rank=r.randint(1, 3))
        return ["_dist.all_gather(a0, %d)" % r.randint(-len(s), len(s) - 1), [inp(s, r.choice(NUM))]]
    if op == "DIST_CHECK":   # one process: the check compares nothing and returns nothing; the value passes through
        s = g.shape()
        return ["_dist_check(a0)", [inp(s, r.choice(NUM))]]
    if op in ("COLL_GRAD_START", "COLL_GRAD_WAIT"):   # staged by a tape's gradient in replica context, waited by all_reduce
        return ["_grad_overlap(a0, %d)" % r.randint(0, 1), [inp(g.shape(), r.choice(NUM))]]
    if op == "COLL_BCAST":
        return ["_dist.broadcast(a0, 0)", [inp(g.shape(), r.choice(NUM))]]
    if op in ("STACK_PUSH", "STACK_SIZE", "STACK_GET", "RNG_STATE", "RNG_SWAP"):
        s = g.shape()
        rnd = "True" if op.startswith("RNG") else "False"
        return ["_grad1(lambda p: _loop(p, %d, %s), a0)" % (r.randint(0, 3), rnd), [inp(s, "float32")],
                "shape_only" if rnd == "True" else ""]
    if op == "DATASET_TENSORS":
        return ["_ds_tensors(a0)", [inp(g.shape(), r.choice(NUM))]]
    if op == "DATASET_RANGE":
        return ["_ds_range(a0, a1)", [inp((), r.choice(INT), -2, 6), inp((), r.choice(INT), -2, 3)]]
    if op in ("DATASET_ITER", "DATASET_NEXT", "DATASET_GETNEXT", "DATASET_SINGLE", "DATASET_RELEASE", "DATASET_SLICES"):
        s = g.shape(rank=r.randint(1, 2))
        return ["_ds_sum(a0)", [inp(s, r.choice(FLOAT))]]
    if op in ("READ_FILE", "WRITE_FILE"):
        return ["_file_roundtrip(a0)", ["tf.constant(%r)" % r.choice(["", "abc", "x\\ny"])]]
    if op == "WRITE_NPY":
        return ["_npy(a0)", [inp(g.shape(), r.choice(NUM))]]
    strings = {"STRING_LENGTH": "tf.strings.length(a0, unit=%r)" % r.choice(["BYTE", "UTF8_CHAR"]),
               "STRING_UPPER": "tf.strings.upper(a0)", "STRING_LOWER": "tf.strings.lower(a0)",
               "STRING_STRIP": "tf.strings.strip(a0)", "REGEX_FULL_MATCH": "tf.strings.regex_full_match(a0, 'b.*')",
               "REGEX_REPLACE": "tf.strings.regex_replace(a0, '[a ]', '<\\\\0>', %r)" % r.choice([True, False]),
               "UNICODE_TRANSCODE": "tf.strings.unicode_transcode(a0, 'UTF-8', %r, errors=%r)" % (
                   r.choice(["UTF-8", "UTF-16-BE", "UTF-32-BE"]), r.choice(["replace", "ignore"]))}
    if op in strings:
        return [strings[op], [inp(g.shape(), "string")]]
    more = {"STRING_SPLIT_V2": "tf.strings.split(a0%s).flat_values" % r.choice(["", ", sep=' '", ", maxsplit=1", ", sep='a', maxsplit=0"]),
            "STRING_SPLIT": "tf.strings.bytes_split(a0).row_splits",
            "UNICODE_DECODE": "tf.strings.unicode_decode(a0, 'UTF-8', errors=%r).flat_values" % r.choice(["replace", "ignore"]),
            "UNICODE_DECODE_OFFSETS": "tf.strings.unicode_decode_with_offsets(a0, 'UTF-8')[1].flat_values",
            "STRING_TO_HASH_BUCKET_FAST": "tf.strings.to_hash_bucket_fast(a0, %d)" % r.randint(1, 1000),
            "STRING_TO_HASH_BUCKET_STRONG": "tf.strings.to_hash_bucket_strong(a0, %d, [%d, %d])" % (
                r.randint(1, 1000), r.randint(-2 ** 63, 2 ** 63 - 1), r.randint(0, 2 ** 63 - 1)),
            "REGEX_REPLACE_T": "tf.strings.regex_replace(a0, tf.constant('[a ]+'), tf.constant('<\\\\0>'), %r)" % r.choice([True, False])}
    if op in more:   # rank 1 or more: the ragged results' components
        return [more[op], [inp([r.randint(0, 3)] + list(g.shape())[:2], "string")]]
    if op == "UNICODE_ENCODE":
        return ["tf.strings.unicode_encode(a0, 'UTF-8', errors=%r)" % r.choice(["replace", "ignore"]),
                [inp([r.randint(0, 3)] + list(g.shape())[:1], "int32", -2, 300)]]   # rank 3+: see tfs's notes (issue 31)
    if op == "REDUCE_JOIN":
        s = g.shape()
        ax = r.choice([None] + list(range(-len(s), len(s))))
        return ["tf.strings.reduce_join(a0, axis=%r, keepdims=%r, separator=%r)" % (ax, r.choice([True, False]), r.choice(["", "-"])),
                [inp(s, "string")]]
    if op == "UNSORTED_SEGMENT_JOIN":
        s = [r.randint(0, 4)] + list(g.shape())[:1]
        k = r.randint(1, 3)
        ids = [r.randint(0, k - 1) for _ in range(s[0])]
        return ["tf.strings.unsorted_segment_join(a0, tf.constant(%r, tf.int32), %d, separator=%r)" % (ids, k, r.choice(["", ","])),
                [inp(s, "string")]]
    if op == "STRING_FORMAT":
        return ["tf.strings.format('a{}b{}', [a0, a1], summarize=%d)" % r.choice([-1, 1, 3]),
                [inp(g.shape(), r.choice(NUM + ["bool"])), inp(g.shape(), "string")]]
    if op == "STRING_JOIN":
        s = g.shape()
        return ["tf.strings.join([a0, 'x', a1], separator=%r)" % r.choice(["", "-"]), [inp(s, "string"), inp(s, "string")]]
    if op == "SUBSTR":
        return ["tf.strings.substr(a0, 0, %d, unit=%r)" % (r.randint(-1, 3), r.choice(["BYTE", "UTF8_CHAR"])),
                [inp(g.shape(), "string")]]
    if op == "AS_STRING":
        t = r.choice(NUM + ["bool"])
        kw = r.choice(["", ", width=5", ", fill='0', width=4"] + ([", precision=2", ", scientific=True", ", shortest=True"]
                                                                  if t.startswith("float") else []))
        return ["tf.strings.as_string(a0%s)" % kw, [inp(g.shape(), t)]]
    if op == "STRING_TO_NUMBER":
        t = r.choice(NUM)
        return ["tf.strings.to_number(tf.strings.as_string(a0), tf.%s)" % t, [inp(g.shape(), t)]]
    if op in ("SERIALIZE_TENSOR", "PARSE_TENSOR"):   # a tensor through TF's TensorProto bytes and back
        t = r.choice(NUM + ["bool"])
        return ["tf.io.parse_tensor(tf.io.serialize_tensor(a0), tf.%s)" % t, [inp(g.shape(), t)]]
    if op == "PARSE_EXAMPLE":   # Examples of one int64 feature, some records lacking it (the default fills in)
        recs = [r.choice([[r.randint(-5, 5)], []]) for _ in range(r.randint(0, 3))]
        return ["tf.io.parse_example(a0, {'x': tf.io.FixedLenFeature([1], tf.int64, default_value=[7])})['x']",
                ["tf.constant(%r, dtype=tf.string)" % [tf_example_bytes(v) for v in recs] if recs
                 else "tf.zeros([0], tf.string)"]]
    if op == "DECODE_CSV":
        recs = [",".join(r.choice(["1", "2", ""]) for _ in range(2)) for _ in range(r.randint(0, 3))]
        return ["tf.io.decode_csv(a0, [[0], [7]])", ["tf.constant(%r, dtype=tf.string)" % recs if recs else
                                                   "tf.zeros([0], tf.string)"]]
    return None


def tf_example_bytes(values):
    """A tf.train.Example with int64 feature 'x' = values (empty: no feature), in protobuf's wire form."""
    def varint(n):
        n &= (1 << 64) - 1
        out = b""
        while True:
            out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
            n >>= 7
            if not n:
                return out

    def field(num, payload):   # a length-delimited field
        return varint(num << 3 | 2) + varint(len(payload)) + payload

    if not values:
        return b""
    packed = b"".join(varint(v) for v in values)
    feature = field(3, field(1, packed))                   # Feature.int64_list(3) -> Int64List.value(1), packed
    entry = field(1, b"x") + field(2, feature)              # map entry: key(1), value(2)
    return field(1, field(1, entry))                       # Example.features(1) -> Features.feature(1)


def axis_arg(g, rank):
    r = g.r
    c = r.random()
    if c < 0.3 or rank == 0:
        return ""
    if c < 0.7:
        return ", axis=%d" % r.randint(-rank, rank - 1)
    return ", axis=%s" % sorted(r.sample(range(rank), r.randint(1, rank)))


def slice_key(g, s):
    r = g.r
    parts = []
    for d in s:
        c = r.random()
        if c < 0.25:
            parts.append(str(r.randint(-d, d - 1)) if d else ":")
        elif c < 0.85:
            a = r.choice(["", str(r.randint(-3, 3))])
            b = r.choice(["", str(r.randint(-3, 3))])
            st = r.choice(["", "", "2", "-1", "-2"])
            parts.append("%s:%s%s" % (a, b, (":" + st) if st else ""))
        else:
            parts.append(":")
    if r.random() < 0.2:
        parts.insert(r.randint(0, len(parts)), "None")
    if r.random() < 0.2 and parts:
        parts[-1] = "..."
    return ", ".join(parts)


HELPERS = r'''
def _after(op, v):
    return v

def _dist_check(x):
    _dist.check([x], ("x:0",))
    return x

_ov = [tf.Variable([1.0, 2.0, 3.0]), tf.Variable([[0.5], [-1.0]])]

def _grad_overlap(x, op):
    # a tape's gradients in replica context with the overlap forced on (one process: the buckets reduce nothing)
    was = _dist.overlap(2)
    _dist.replica(1)
    with tf.GradientTape() as t:
        s = tf.reduce_sum(tf.cast(x, tf.float32))
        y = s * tf.reduce_sum(_ov[0] * _ov[0]) + tf.reduce_sum(_ov[1]) * s
    r = _dist.all_reduce(t.gradient(y, _ov), op)
    _dist.replica(-1)
    _dist.overlap(was)
    return r

def _grad1(f, x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return y, t.gradient(y, x)

def _grad2(f, x, w):
    with tf.GradientTape() as t:
        t.watch([x, w])
        y = f(x, w)
    return y, t.gradient(y, [x, w])

def _var(x, f):
    v = _VARS[0]
    v.assign(tf.zeros_like(v) + 1.0)
    f(v)
    return v.read_value()

def _ta_loop(x, n):
    ta = tf.TensorArray(x.dtype, size=0, dynamic_size=True, element_shape=x.shape)
    for i in tf.range(n):
        ta = ta.write(i, x * tf.cast(i + 1, x.dtype))
    return ta.stack(), ta.size()

def _ta_ops(x, idx):
    ta = tf.TensorArray(x.dtype, size=0, dynamic_size=True, infer_shape=False)
    ta = ta.unstack(x)
    r = [ta.stack(), ta.gather(idx) if idx else x[:0]]
    tb = tf.TensorArray(x.dtype, size=tf.shape(x)[0])
    tb = tb.scatter(tf.range(tf.shape(x)[0]), x * 2.0)
    r.append(tb.stack())
    r.append(tb.concat())
    return tf.reduce_sum(r[0]) + tf.reduce_sum(r[1]) + tf.reduce_sum(r[2]) + tf.reduce_sum(r[3])

def _loop(x, n, rnd):
    y = x
    for i in tf.range(n):
        if rnd:
            y = y * tf.random.uniform(tf.shape(x), seed=5) + tf.sin(y)
        else:
            y = y * tf.sin(y) + 1.0
    return tf.reduce_sum(y)

def _ds_sum(x):
    s = tf.zeros(tf.shape(x)[1:], x.dtype)
    for e in tf.data.Dataset.from_tensor_slices(x):
        s = s + e
    return s

def _ds_tensors(x):
    n = tf.zeros_like(x)
    for e in tf.data.Dataset.from_tensors(x):
        n = n + e
    return n

def _ds_range(n, step):
    s = tf.constant(0, tf.int64)
    k = 0
    for e in tf.data.Dataset.range(0, n, tf.where(step == 0, tf.ones_like(step), step)):
        s = s + e
        k += 1
    return s, k

def _file_roundtrip(c):
    tf.io.write_file(_TMP + '/f.txt', c)
    return tf.io.read_file(_TMP + '/f.txt')

def _npy(x):
    tf.io.write_npy(_TMP + '/a.npy', x)
    return x

def _summary(x):
    with _WRITER.as_default():
        tf.summary.scalar('s', x, step=1)
    return x
'''


def case_source(k, op, tmpl, mode, g):
    expr, ins = tmpl[0], tmpl[1]
    shape_only = len(tmpl) > 2 and tmpl[2] == "shape_only"
    params = ", ".join("a%d" % i for i in range(len(ins)))
    lines = ["def _f%d(%s):" % (k, params), "    return %s" % expr]
    args = "(%s%s)" % (", ".join(ins), "," if len(ins) == 1 else "")
    lines.append("_a%d = %s" % (k, args))
    warm = "None"
    if mode == "none":
        lines.append("_g%d = tf.function(_f%d, input_signature=[tf.TensorSpec([None] * len(a.shape), a.dtype) for a in _a%d])"
                     % (k, k, k))
    elif mode == "rr":
        lines.append("_g%d = tf.function(_f%d, reduce_retracing=True)" % (k, k))
        # a first call on other shapes (one more element along each dim), so the checked call runs a relaxed trace
        warm = "tuple([tf.concat([a, a[:1]], 0) if len(a.shape) > 0 and a.shape[0] != 0 else a for a in _a%d])" % k
    else:
        lines.append("_g%d = tf.function(_f%d)" % (k, k))
    lines.append("_check(%r, _f%d, _g%d, _a%d, %s, %s)" % ("%d:%s:%s" % (k, op, mode), k, k, k, shape_only, warm))
    return "\n".join(lines) + "\n"


def gen_file(rnd, ops, n, tmp, start_k):
    g = Gen(rnd)
    src = [PRELUDE, HELPERS,
           "_TMP = %r" % tmp,
           "_VARS = [tf.Variable(tf.zeros([]))]",
           "_WRITER = tf.summary.create_file_writer(_TMP + '/logs')"]
    cases = 0
    k = start_k
    for _ in range(n):
        op = rnd.choice(ops)
        t = templates(g, op)
        mode = rnd.choice(["static", "static", "none", "rr"])
        if op in ("READ_VARIABLE", "ASSIGN_VARIABLE", "ASSIGN_ADD_VARIABLE", "ASSIGN_SUB_VARIABLE") or \
                op.startswith("RESOURCE_SCATTER_"):
            # a variable of the input's shape, made before the trace (TF: Variables are created on the first call only)
            src.append("_VARS[0] = tf.Variable(tf.zeros_like(%s))" % t[1][0])
            if mode == "rr":
                mode = "static"
        src.append(case_source(k, op, t, mode, g))
        k += 1
        cases += 1
    return "\n".join(src), cases


SANITIZER = re.compile(rb"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")


def run_file(tfs, path, cwd):
    try:
        p = subprocess.run([tfs, "run", path], cwd=cwd, capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("--count", type=int, default=400, help="cases (one eager and one graph call each)")
    ap.add_argument("--per-file", type=int, default=60)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--budget", type=float, default=0, help="stop starting new files after this many seconds")
    ap.add_argument("--keep", help="write the generated programs here")
    ap.add_argument("--op", action="append", help="only these ops (ids of ops.def)")
    args = ap.parse_args()
    args.tfs = os.path.abspath(args.tfs)
    ops = parse_ops()
    g = Gen(random.Random(0))
    missing = [op for op in ops if templates(g, op) is None]
    if missing:
        print("opdiff: ops of ops.def without a template: %s" % ", ".join(missing))
        return 1
    chosen = args.op or ops
    rnd = random.Random(args.seed)
    t0 = time.time()
    calls = cases = files = nerr = nlimit = 0
    limits = set()
    failures = []
    covered = set()
    with tempfile.TemporaryDirectory() as tmp:
        keep = args.keep or tmp
        os.makedirs(keep, exist_ok=True)
        k = 0
        while cases < args.count:
            if args.budget and time.time() - t0 > args.budget:
                break
            n = min(args.per_file, args.count - cases)
            # every op once in the first files, then at random
            src, made = gen_file(rnd, chosen, n, tmp, k)
            path = os.path.join(keep, "opdiff_%d.tfs" % files)
            with open(path, "w") as f:
                f.write(src)
            rc, out, err = run_file(args.tfs, path, tmp)
            lines = out.decode("utf-8", "replace").splitlines()
            done = [l for l in lines if l.startswith(("ok", "MISMATCH"))]
            nerr += sum(1 for l in done if l.startswith("ok-error"))
            limits.update(" ".join(l.split()[2:]) for l in done if l.startswith("ok-limit"))
            nlimit += sum(1 for l in done if l.startswith("ok-limit"))
            for l in done:
                covered.add(l.split()[1].split(":")[1])
            calls += 2 * len(done)
            cases += made
            k += made
            files += 1
            for l in done:
                if l.startswith("MISMATCH"):
                    failures.append("%s: %s" % (path, l))
            if rc != 0 or SANITIZER.search(err) or len(done) != made:
                tail = err.decode("utf-8", "replace").strip().splitlines()[-12:]
                failures.append("%s: exit %s after %d of %d cases\n    %s" % (path, rc, len(done), made, "\n    ".join(tail)))
                if not args.keep:
                    import shutil
                    shutil.copy(path, os.path.join(os.getcwd(), os.path.basename(path)))
    print("opdiff: %d files, %d cases, %d calls (eager + graph), %d of %d ops run, %.0f s"
          % (files, cases, calls, len(covered), len(chosen), time.time() - t0))
    print("opdiff: %d cases raised the same error class eagerly and in the graph; %d ran eagerly but the graph "
          "raised Unimplemented (a stated limit):" % (nerr, nlimit))
    for l in sorted(limits):
        print("  limit:", l)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
