#!/usr/bin/python3
"""gen_linalg_complex_expect.py — golden program for tf.linalg on complex64/complex128 matrices: cholesky, eigh, qr,
svd, slogdet, lu, triangular_solve, lstsq, expm, logdet and the gradients TF defines for them.

    /usr/bin/python3 tests/gen_linalg_complex_expect.py    # writes tests/programs/linalg_complex.tfs and .out

The oracle is numpy's LAPACK (cholesky, eigh, qr, svd, slogdet, solve) and eig-based V exp(D) V^-1 for expm.  Where a
factor is unique only up to phases (eigh's and svd's vectors) the program shows what is invariant: |v| element by
element and the reconstruction.  Gradients are central differences in float64 (TF's complex gradient:
dL/dre + i dL/dim) of real losses; for cholesky of the loss on (A + A^H) / 2 and for eigh on A's lower
triangle made Hermitian, as TF's gradients assume.  Complex results print as (real, imag) pairs, rounded to 4 places by
gen_coreapi_expect.py's harness.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_coreapi_expect import show, write  # noqa: E402

H = np.array([[4, 1 - 1j, 0.5j], [1 + 1j, 3, -1 + 0.5j], [-0.5j, -1 - 0.5j, 2.5]])   # Hermitian positive definite
G = np.array([[1 + 1j, 0.5, -0.2j], [0.3, 2 - 0.5j, 1], [0.1j, -0.4, 3]])
T = np.array([[2 + 1j, 1 - 1j], [0.5j, -1 + 0.5j], [1, 2j]])                            # 3 x 2
RHS = np.array([[1 + 1j, 2], [-1j, 0.5], [3, 1 - 2j]])
RD = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])                                    # rank 1
RDB = np.array([[1.0], [2.0]])
W = np.array([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0], [0.25, 2.0, 1.5]])


def cpair(z, dt=np.float64):
    z = np.asarray(z)
    return (z.real.astype(dt), z.imag.astype(dt))


def herm(a):
    return (a + a.conj().T) / 2


def lower(a):
    low = np.tril(a, -1)
    return low + low.conj().T + np.diag(np.diag(a).real)


def num_grad(f, a):
    a = np.asarray(a, np.complex128)
    g = np.zeros(a.shape, np.complex128)
    h = 1e-6
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = h
        g[i] = (f(a + d) - f(a - d)) / (2 * h) + 1j * (f(a + 1j * d) - f(a - 1j * d)) / (2 * h)
    return g


def expm(a):
    e, v = np.linalg.eig(a)
    return v @ np.diag(np.exp(e)) @ np.linalg.inv(v)


def main():
    inputs = [
        "h = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (H.real.tolist(), H.imag.tolist()),
        "g = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (G.real.tolist(), G.imag.tolist()),
        "t = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (T.real.tolist(), T.imag.tolist()),
        "rhs = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (RHS.real.tolist(), RHS.imag.tolist()),
        "w = tf.constant(%s, tf.float64)" % W.tolist(),
        "h64 = tf.cast(h, tf.complex64)",
        "",
        "def ri(x):",
        "    return (tf.math.real(x), tf.math.imag(x))",
        "",
        "def close(x, y, tol):",
        "    return tf.reduce_max(tf.abs(x - y)) < tol",
    ]
    e, v = np.linalg.eigh(H)
    q, r = np.linalg.qr(T)
    qf, rf = np.linalg.qr(T, mode="complete")
    s = np.linalg.svd(T, compute_uv=False)
    u, _, vh = np.linalg.svd(T, full_matrices=False)
    sign, logabs = np.linalg.slogdet(G)
    cases = [
        ("cholesky", "ri(tf.linalg.cholesky(h))", cpair(np.linalg.cholesky(H))),
        ("cholesky complex64", "ri(tf.linalg.cholesky(h64))", cpair(np.linalg.cholesky(H), np.float32)),
        ("eigh", "(lambda ev: (ri(ev[0]), tf.abs(ev[1])))(tf.linalg.eigh(h))", (cpair(e.astype(complex)), np.abs(v))),
        ("eigvalsh complex64", "ri(tf.linalg.eigvalsh(h64))", cpair(e.astype(complex), np.float32)),
        ("qr", "(lambda qr: (ri(qr[0]), ri(qr[1])))(tf.linalg.qr(t))", (cpair(q), cpair(r))),
        ("qr full", "ri(tf.linalg.qr(t, full_matrices=True)[1])", cpair(rf)),
        ("qr full reconstructs", "close(tf.matmul(*tf.linalg.qr(t, full_matrices=True)), t, 1e-12)", np.array(True)),
        ("svd values", "tf.linalg.svd(t, compute_uv=False)", s),
        ("svd", "(lambda suv: (suv[0], tf.abs(suv[1]), tf.abs(suv[2])))(tf.linalg.svd(t))",
         (s, np.abs(u), np.abs(vh.conj().T))),
        ("svd reconstructs", "(lambda suv: close(tf.matmul(suv[1] * tf.cast(suv[0], tf.complex128), suv[2], adjoint_b=True), t, 1e-12))"
         "(tf.linalg.svd(t))", np.array(True)),
        ("slogdet", "(lambda sl: (ri(sl[0]), ri(sl[1])))(tf.linalg.slogdet(g))",
         (cpair(sign), cpair(np.complex128(logabs)))),
        ("det", "ri(tf.linalg.det(g))", cpair(np.linalg.det(G))),
        ("lu reconstructs", "close(tf.linalg.lu_reconstruct(*tf.linalg.lu(g)), g, 1e-12)", np.array(True)),
        ("lu_solve", "ri(tf.linalg.lu_solve(*tf.linalg.lu(g), rhs))", cpair(np.linalg.solve(G, RHS))),
        ("triangular_solve lower", "ri(tf.linalg.triangular_solve(g, rhs))", cpair(np.linalg.solve(np.tril(G), RHS))),
        ("triangular_solve upper adjoint", "ri(tf.linalg.triangular_solve(g, rhs, lower=False, adjoint=True))",
         cpair(np.linalg.solve(np.triu(G).conj().T, RHS))),
        ("logdet", "tf.linalg.logdet(h)", np.float64(np.linalg.slogdet(H)[1])),
        ("lstsq", "ri(tf.linalg.lstsq(t, rhs))", cpair(np.linalg.lstsq(T, RHS, rcond=None)[0])),
        ("lstsq fast=False", "ri(tf.linalg.lstsq(t, rhs, fast=False))", cpair(np.linalg.lstsq(T, RHS, rcond=None)[0])),
        ("lstsq rank deficient fast=False l2 ignored", "tf.linalg.lstsq(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64), "
         "l2_regularizer=0.5, fast=False)" % (RD.tolist(), RDB.tolist()), np.linalg.pinv(RD) @ RDB),
        ("lstsq l2_regularizer", "tf.linalg.lstsq(tf.math.real(t), tf.math.real(rhs), l2_regularizer=0.5)",
         np.linalg.solve(T.real.T @ T.real + 0.5 * np.eye(2), T.real.T @ RHS.real)),
        ("expm", "ri(tf.linalg.expm(g))", cpair(expm(G))),
        ("expm complex64", "ri(tf.linalg.expm(tf.cast(g, tf.complex64) * 0.5))", cpair(expm(G * 0.5), np.float32)),
    ]

    def lchol(a):
        return (np.linalg.cholesky(herm(a)).real * W).sum() + (np.linalg.cholesky(herm(a)).imag * W.T).sum()

    def leigh(a):
        # eigh reads the lower triangle (and the diagonal's real part), as TF's gradient assumes
        ee, vv = np.linalg.eigh(lower(a))
        return (ee * W[0]).sum() + (np.abs(vv) ** 2 * W).sum()

    def lqr(a):
        qq, rr = np.linalg.qr(a)
        return (qq.real * RHS.real).sum() + (qq.imag * RHS.imag).sum() + (np.abs(rr) ** 2 * W[:2, :2]).sum()

    def ltri(a):
        x = np.linalg.solve(np.tril(a), RHS)
        return (x.real * RHS.real).sum() - (x.imag * RHS.real).sum()

    def lslog(a):
        return np.linalg.slogdet(a)[1]

    def linv(a):
        return (np.linalg.inv(a).real * W).sum()

    grad_src = [
        ("cholesky", "lambda x: tf.reduce_sum(tf.math.real(tf.linalg.cholesky(x)) * w) + "
         "tf.reduce_sum(tf.math.imag(tf.linalg.cholesky(x)) * tf.transpose(w))", "h", num_grad(lchol, H)),
        ("eigh", "lambda x: (lambda ev: tf.reduce_sum(tf.math.real(ev[0]) * w[0]) + tf.reduce_sum(tf.abs(ev[1]) ** 2 * w))"
         "(tf.linalg.eigh(x))", "h", num_grad(leigh, H)),
        ("qr", "lambda x: (lambda qr: tf.reduce_sum(tf.math.real(qr[0]) * tf.math.real(rhs)) + "
         "tf.reduce_sum(tf.math.imag(qr[0]) * tf.math.imag(rhs)) + tf.reduce_sum(tf.abs(qr[1]) ** 2 * w[:2, :2]))"
         "(tf.linalg.qr(x))", "t", num_grad(lqr, T)),
        ("triangular_solve", "lambda x: (lambda s: tf.reduce_sum(tf.math.real(s) * tf.math.real(rhs)) - "
         "tf.reduce_sum(tf.math.imag(s) * tf.math.real(rhs)))(tf.linalg.triangular_solve(x, rhs))", "g",
         num_grad(ltri, G)),
        ("slogdet", "lambda x: tf.math.real(tf.linalg.slogdet(x)[1])", "g", num_grad(lslog, G)),
        ("inv", "lambda x: tf.reduce_sum(tf.math.real(tf.linalg.inv(x)) * w)", "g", num_grad(linv, G)),
    ]
    src = ["def grad_of(f, x):", "    with tf.GradientTape() as tape:", "        tape.watch(x)", "        y = f(x)",
           "    return ri(tape.gradient(y, x))", ""]
    expect = []
    for i, (label, fn, x, gv) in enumerate(grad_src):
        src.append("gf%d = %s" % (i, fn))
        src.append("show('grad %s', grad_of(gf%d, %s))" % (label, i, x))
        src.append("show('function grad %s', grad_of(tf.function(gf%d), %s))" % (label, i, x))
        expect += [show("grad " + label, cpair(gv)), show("function grad " + label, cpair(gv))]
    bad = [
        ("tf.linalg.cholesky(tf.complex(tf.constant([[1.0, 2.0], [2.0, 1.0]]), tf.zeros([2, 2])))",
         "InvalidArgumentError: Cholesky decomposition was not successful. The input might not be valid."),
        ("tf.linalg.qr(tf.zeros([3], tf.complex64))", "InvalidArgumentError: Input tensor 0 must have rank >= 2, got 1"),
        ("tf.linalg.eigh(tf.zeros([2, 3], tf.complex128))", "InvalidArgumentError: Input matrix must be square."),
        ("tf.linalg.triangular_solve(g, tf.zeros([2, 1], tf.complex128))",
         "InvalidArgumentError: Input matrix and rhs are incompatible."),
        ("tf.linalg.lstsq(t, rhs, l2_regularizer=0.1)",
         "NotImplementedError: matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due to poor "
         "accuracy."),
        ("tf.linalg.pinv(g)", "TypeError: Input `a` must have `float`-like `dtype` (saw complex128)."),
    ]
    # the gradient of complex svd: tests/gen_svd_norm_complex_grad.py (PyTorch's autograd)
    src += ["BAD = ["] + ["    lambda: %s," % b for b, _ in bad] + [
        "]", "for f in BAD:", "    try:", "        f()", "        print('no error')",
        "    except (tf.errors.InvalidArgumentError, TypeError, NotImplementedError) as e:", "        print(type(e).__name__ + ': ' + str(e))"]
    expect += [m for _, m in bad]
    write("linalg_complex", "tf.linalg cholesky, eigh, qr, svd, slogdet, lu, triangular_solve, lstsq, expm, logdet of "
          "complex matrices, their gradients and bad input", inputs, cases, [], (src, expect),
          by="tests/gen_linalg_complex_expect.py (expected values from numpy's LAPACK and central differences)")


if __name__ == "__main__":
    main()
