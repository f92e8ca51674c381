#!/usr/bin/python3
"""gen_linalg_eig_expect.py — golden program for tf.linalg.eig and eigvals (TF's Eig op) and their gradient.

    /usr/bin/python3 tests/gen_linalg_eig_expect.py    # writes tests/programs/linalg_eig.tfs and its expectations

Eigenvectors are unique only up to a complex phase, and the two values of a conjugate pair have the same magnitude (so
TF's ascending-|e| order leaves them in either order): the program shows what is invariant, as TF's own tests compare
it — real(e) and |imag(e)|, |v| element by element, the residual A v - v diag(e) and the column norms.  The oracle is
numpy's eig (LAPACK geev) sorted by |e|; the gradients are central differences in float64 of losses invariant to those
choices (numpy's eig again), for a real input and a complex one (TF's complex gradient: dL/dre + i dL/dim).
Printing and the eager / tf.function / GradientTape harness are gen_coreapi_expect.py's (floats rounded to 4 places).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_coreapi_expect import f32, show, write  # noqa: E402

A = f32([[2, 1, 0], [-1, 2, 1], [0.5, 0, 4]])                     # 4.09 and a conjugate pair
S = f32([[4, 1, 0.5], [1, 3, -1], [0.5, -1, 2]])                   # symmetric: three real eigenvalues
D = np.array([[1.0, 2.0, 0.0, 0.5], [0.0, -3.0, 1.0, 0.0], [1.0, 0.0, 5.0, -2.0], [0.0, 1.0, 0.0, 7.5]])
Z = np.array([[1 + 1j, 0.5, -0.2j], [0.3, 2 - 0.5j, 1], [0.1j, -0.4, 3]])
W3 = np.array([1.0, 2.0, 3.0])
WV = np.arange(9.0).reshape(3, 3)


def eig_sorted(a):
    """numpy's eigen-pairs of each matrix of a in ascending |e| (TF's order)."""
    a = np.asarray(a)
    es = np.empty(a.shape[:-1], complex)
    vs = np.empty(a.shape, complex)
    for idx in np.ndindex(a.shape[:-2]):
        e, v = np.linalg.eig(a[idx])
        o = np.argsort(np.abs(e), kind="stable")
        es[idx], vs[idx] = e[o], v[:, o]
    return es, vs


def inv_e(a, dt):
    e, _ = eig_sorted(a)
    return (e.real.astype(dt), np.abs(e.imag).astype(dt))


def abs_v(a, dt):
    return np.abs(eig_sorted(a)[1]).astype(dt)


def loss(a):
    # invariant to eigenvector phases and to the order within a conjugate pair
    e, v = eig_sorted(a)
    return (e.real * W3).sum() + (e.imag ** 2 * W3[::-1]).sum() + (np.abs(v) ** 2 * WV).sum()


def loss_vals(a):
    e, _ = eig_sorted(a)
    return (e.real * W3).sum() + (e.imag ** 2).sum()


def num_grad(f, a):
    a = np.asarray(a, np.complex128 if np.iscomplexobj(a) else np.float64)
    g = np.zeros(a.shape, a.dtype)
    h = 1e-6
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = h
        g[i] = (f(a + d) - f(a - d)) / (2 * h)
        if np.iscomplexobj(a):
            g[i] += 1j * (f(a + 1j * d) - f(a - 1j * d)) / (2 * h)
    return g


def cpair(z, dt):
    return (z.real.astype(dt), z.imag.astype(dt))


def main():
    assert np.all(np.diff(np.abs(eig_sorted(D)[0])) > 1e-3) and np.all(np.diff(np.abs(eig_sorted(Z)[0])) > 1e-3)
    inputs = [
        "a = tf.constant(%s)" % A.tolist(),
        "s = tf.constant(%s)" % S.tolist(),
        "d = tf.constant(%s, tf.float64)" % D.tolist(),
        "z = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (Z.real.tolist(), Z.imag.tolist()),
        "w3 = tf.constant(%s, tf.float64)" % W3.tolist(),
        "wv = tf.constant(%s, tf.float64)" % WV.tolist(),
        "",
        "def inv_e(e):",
        "    return (tf.math.real(e), tf.abs(tf.math.imag(e)))",
        "",
        "def residual_ok(m, tol):",
        "    # A v == v diag(e) and unit columns",
        "    e, v = tf.linalg.eig(m)",
        "    mc = tf.cast(m, v.dtype)",
        "    r = tf.reduce_max(tf.abs(tf.matmul(mc, v) - v * tf.expand_dims(e, -2)))",
        "    n = tf.reduce_max(tf.abs(tf.sqrt(tf.reduce_sum(tf.abs(v) ** 2, axis=-2)) - 1))",
        "    return tf.logical_and(r < tol, tf.cast(n, r.dtype) < tol)",
        "",
        "def loss(m):",
        "    e, v = tf.linalg.eig(m)",
        "    e = tf.cast(e, tf.complex128)",
        "    v = tf.cast(v, tf.complex128)",
        "    return (tf.reduce_sum(tf.math.real(e) * w3) + tf.reduce_sum(tf.math.imag(e) ** 2 * tf.reverse(w3, [0]))",
        "            + tf.reduce_sum(tf.abs(v) ** 2 * wv))",
    ]
    b = np.stack([A, S])
    cases = [
        ("eigvals", "inv_e(tf.linalg.eigvals(a))", inv_e(A, np.float32)),
        ("eigvals symmetric", "inv_e(tf.linalg.eigvals(s))", inv_e(S, np.float32)),
        ("eigvals float64", "tf.math.real(tf.linalg.eigvals(d))", cpair(eig_sorted(D)[0], np.float64)[0]),
        ("eigvals complex128", "(lambda e: (tf.math.real(e), tf.math.imag(e)))(tf.linalg.eigvals(z))",
         cpair(eig_sorted(Z)[0], np.float64)),
        ("eig batch", "inv_e(tf.linalg.eig(tf.stack([a, s]))[0])", inv_e(b, np.float32)),
        ("eig |v|", "tf.abs(tf.linalg.eig(a)[1])", abs_v(A, np.float32)),
        ("eig |v| float64", "tf.abs(tf.linalg.eig(d)[1])", abs_v(D, np.float64)),
        ("eig |v| complex128", "tf.abs(tf.linalg.eig(z)[1])", abs_v(Z, np.float64)),
        ("eig residual", "tf.stack([residual_ok(a, 1e-5), residual_ok(d, 1e-12), residual_ok(z, 1e-12)])",
         np.array([True, True, True])),
    ]
    grads = [
        ("eig float64", "loss", "d[:3, :3]", num_grad(loss, D[:3, :3])),
        ("eig float32", "lambda x: tf.cast(loss(x), tf.float32)", "a", f32(num_grad(loss, A.astype(np.float64)))),
        ("eigvals", "lambda x: tf.reduce_sum(tf.math.real(tf.linalg.eigvals(x)) * w3) + "
         "tf.reduce_sum(tf.math.imag(tf.linalg.eigvals(x)) ** 2)", "d[1:, 1:]", num_grad(loss_vals, D[1:, 1:])),
    ]
    bad = [
        ("tf.linalg.eig(tf.ones([2, 3]))", "InvalidArgumentError: Input matrix must be square."),
        ("tf.linalg.eigvals(tf.ones([3]))", "InvalidArgumentError: Input tensor 0 must have rank >= 2, got 1"),
        ("tf.linalg.eig(tf.ones([2, 2], tf.int32))",
         "UnboundLocalError: cannot access local variable 'out_dtype' where it is not associated with a value"),
        ("tf.raw_ops.Eig(input=tf.eye(2), Tout=tf.float32)",
         "InvalidArgumentError: Value for attr 'Tout' of float is not in the list of allowed values: complex64, "
         "complex128 ; NodeDef: {{node Eig}}"),
    ]
    # the gradient for a complex input, shown as its real and imaginary parts
    src = ["for fn in (loss, tf.function(loss)):", "    with tf.GradientTape() as tape:", "        tape.watch(z)",
           "        y = fn(z)", "    g = tape.gradient(y, z)", "    show('grad eig complex128', (tf.math.real(g), tf.math.imag(g)))"]
    gz = cpair(num_grad(loss, Z), np.float64)
    expect = [show("grad eig complex128", gz)] * 2
    # output dtypes and shapes (eager: a tf.function returns Python values as tensors)
    src += ["print([t.dtype.name for t in tf.linalg.eig(a) + tf.linalg.eig(d)])",
            "print([t.shape.as_list() for t in tf.linalg.eig(tf.zeros([2, 0, 0]))], tf.linalg.eigvals(s).shape)"]
    expect += [str(["complex64", "complex64", "complex128", "complex128"]), "[[2, 0], [2, 0, 0]] (3,)"]
    src += ["BAD = ["] + ["    lambda: %s," % e for e, _ in bad] + ["]", "for f in BAD:", "    try:", "        f()",
                                                                       "        print('no error')",
                                                                       "    except (tf.errors.InvalidArgumentError, UnboundLocalError) as e:",
                                                                       "        print(type(e).__name__ + ': ' + str(e))"]
    write("linalg_eig", "tf.linalg.eig and eigvals (general matrices, complex results), invariants of their outputs, "
          "their gradient (TF's _EigGrad) and bad input", inputs, cases, grads, (src, expect + [m for _, m in bad]),
          by="tests/gen_linalg_eig_expect.py (expected values from numpy's eig and central differences)")


if __name__ == "__main__":
    main()
