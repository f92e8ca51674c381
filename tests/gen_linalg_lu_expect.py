#!/usr/bin/python3
"""gen_linalg_lu_expect.py — golden programs for tf.linalg.lu, lu_solve, lu_matrix_inverse, lu_reconstruct, sqrtm, logm.

    /usr/bin/python3 tests/gen_linalg_lu_expect.py    # writes tests/programs/linalg_lu*.tfs and their expectations

The oracles: PyTorch's LAPACK LU (torch.linalg.lu_factor: the packed factors and getrf's row swaps, turned into TF's
permutation by applying the swaps in order to 0..M-1) and torch.autograd for the LU gradients; numpy's eigendecomposition
V f(D) V^-1 for sqrtm and logm (test matrices diagonalizable, no eigenvalue on the negative real axis) and central
differences of it for the sqrtm gradient.  Printing and the eager / tf.function / GradientTape harness are
gen_coreapi_expect.py's (floats rounded to 4 places).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_coreapi_expect import PROGS, f32, i32, write  # noqa: E402

torch.set_default_dtype(torch.float64)

A = f32([[1, 2, 3], [4, 5, 6], [7, 8, 10]])
B = np.stack([A, A.T + f32(np.eye(3))])                                  # a batch of two
D = np.array([[2, -1, 0, 3], [1, 4, -2, 0.5], [-3, 0.5, 1, 2], [0.5, 2, 5, -1]])   # float64
RHS = f32([[1, 2], [-2, 0.5], [3, 1]])
W3 = f32([[1, -1, 2], [0.5, 3, -2], [1, 1, 0.25]])
S = f32([[4, 1, 0.5], [1, 3, -1], [0.5, -1, 2]])                        # symmetric positive definite
N2 = np.array([[4.0, 1.0], [2.0, 3.0]])                                   # eigenvalues 5 and 2
ROT = np.array([[1.0, -2.0], [2.0, 1.0]])                                 # eigenvalues 1 +- 2i: a 2 x 2 Schur block
MIX = np.array([[3, -1, 0.5, 0], [1, 2, 0, 0.3], [0, 0.2, 4, 1], [0.1, 0, -0.5, 5]])   # real and complex eigenvalues
C_RE = f32([[2, 1], [0.5, 3]])
C_IM = f32([[0.1, 0], [0.2, -0.3]])
C3 = np.array([[1 + 1j, 0.5, -0.2j], [0.3, 2 - 0.5j, 1], [0.1j, -0.4, 3]])


def lu_np(a):
    """(packed LU, perm) for each matrix of a, as TF's Lu: perm[i] is the input row that is row i of L @ U."""
    a = np.asarray(a)
    lu, piv = torch.linalg.lu_factor(torch.tensor(a.astype(np.float64)))
    lu, piv = lu.numpy(), piv.numpy() - 1
    perm = np.broadcast_to(np.arange(a.shape[-1]), piv.shape).copy()
    for idx in np.ndindex(piv.shape[:-1]):
        p = perm[idx]
        for i, j in enumerate(piv[idx]):
            p[i], p[j] = p[j], p[i]
    return lu.astype(a.dtype), perm


def matfunc(a, f):
    """f of each diagonalizable matrix of a by its eigendecomposition (principal branch of f on the eigenvalues)."""
    a = np.asarray(a)
    out = np.empty(a.shape, dtype=complex)
    for idx in np.ndindex(a.shape[:-2]):
        e, v = np.linalg.eig(a[idx].astype(complex))
        out[idx] = v @ np.diag(f(e)) @ np.linalg.inv(v)
    return out


def sqrtm_real(a):
    r = matfunc(a, np.sqrt)
    assert np.abs(r.imag).max() < 1e-9
    return r.real.astype(np.asarray(a).dtype)


def sqrtm_grad(a, w):
    # d/dA sum(w * sqrtm(A)) by central differences in float64
    a = np.asarray(a, np.float64)
    g = np.zeros_like(a)
    h = 1e-6
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = ((sqrtm_real(a + e) - sqrtm_real(a - e)) * w).sum() / (2 * h)
    return g


def torch_grad(f, a):
    x = torch.tensor(np.asarray(a, np.float64), requires_grad=True)
    f(x).backward()
    return x.grad.numpy()


def cpair(z, dt):
    return (z.real.astype(dt), z.imag.astype(dt))


def main():
    lu_a, p_a = lu_np(A)
    lu_b, p_b = lu_np(B)
    lu_d, p_d = lu_np(D)
    for m in (N2, ROT, MIX, S):
        assert not np.any((np.abs(np.linalg.eigvals(m).imag) < 1e-12) & (np.linalg.eigvals(m).real <= 0))
    c = C_RE + 1j * C_IM
    inputs = [
        "a = tf.constant(%s)" % A.tolist(),
        "b = tf.constant(%s)" % B.tolist(),
        "d = tf.constant(%s, tf.float64)" % D.tolist(),
        "rhs = tf.constant(%s)" % RHS.tolist(),
        "w3 = tf.constant(%s)" % W3.tolist(),
        "s = tf.constant(%s)" % S.tolist(),
        "c = tf.complex(tf.constant(%s), tf.constant(%s))" % (C_RE.tolist(), C_IM.tolist()),
        "z3 = tf.complex(tf.constant(%s, tf.float64), tf.constant(%s, tf.float64))" % (C3.real.tolist(), C3.imag.tolist()),
    ]
    cases = [
        ("lu", "tf.linalg.lu(a)", (lu_a, i32(p_a))),
        ("lu batch int64", "tf.linalg.lu(b, output_idx_type=tf.int64)", (lu_b, p_b.astype(np.int64))),
        ("lu float64", "tf.linalg.lu(d)", (lu_d, i32(p_d))),
        ("lu_reconstruct", "tf.linalg.lu_reconstruct(*tf.linalg.lu(a))", A),
        ("lu_reconstruct batch", "tf.linalg.lu_reconstruct(*tf.linalg.lu(b))", B),
        ("lu_solve", "tf.linalg.lu_solve(*tf.linalg.lu(a), rhs)", f32(np.linalg.solve(A.astype(np.float64), RHS))),
        ("lu_solve broadcast rhs", "tf.linalg.lu_solve(*tf.linalg.lu(b), rhs)",
         f32(np.linalg.solve(B.astype(np.float64), RHS[None]))),
        ("lu_solve broadcast perm", "tf.linalg.lu_solve(*tf.linalg.lu(a), tf.stack([rhs, -2.0 * rhs]))",
         f32(np.linalg.solve(A.astype(np.float64), np.stack([RHS, -2 * RHS])))),
        ("lu_matrix_inverse float64", "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(d))", np.linalg.inv(D)),
        ("lu_matrix_inverse batch", "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(b))", f32(np.linalg.inv(B.astype(np.float64)))),
        ("sqrtm", "tf.linalg.sqrtm(s)", sqrtm_real(S)),
        ("sqrtm float64", "tf.linalg.sqrtm(tf.constant(%s, tf.float64))" % N2.tolist(), sqrtm_real(N2)),
        ("sqrtm complex eigenvalues", "tf.linalg.sqrtm(tf.constant(%s, tf.float64))" % ROT.tolist(), sqrtm_real(ROT)),
        ("sqrtm mixed blocks", "tf.linalg.sqrtm(tf.constant(%s, tf.float64))" % MIX.tolist(), sqrtm_real(MIX)),
        ("sqrtm batch", "tf.linalg.sqrtm(tf.stack([s, s * 2.0]))", np.stack([sqrtm_real(S), sqrtm_real(S * 2)]).astype(np.float32)),
        ("sqrtm complex64", "(lambda r: (tf.math.real(r), tf.math.imag(r)))(tf.linalg.sqrtm(c))",
         cpair(matfunc(c, np.sqrt), np.float32)),
        ("logm complex64", "(lambda r: (tf.math.real(r), tf.math.imag(r)))(tf.linalg.logm(c))",
         cpair(matfunc(c, np.log), np.float32)),
        ("logm complex128 batch", "(lambda r: (tf.math.real(r), tf.math.imag(r)))(tf.linalg.logm(tf.stack([z3, z3 * 0.5])))",
         cpair(matfunc(np.stack([C3, C3 * 0.5]), np.log), np.float64)),
        ("logm of expm", "tf.math.real(tf.linalg.logm(tf.complex(tf.linalg.expm(s * 0.5), tf.zeros([3, 3]))))", S * 0.5),
    ]
    w2 = np.array([[1.0, 2.0], [3.0, 4.0]])
    grads = [
        ("lu", "lambda x: tf.reduce_sum(tf.linalg.lu(x)[0] * w3)", "a",
         f32(torch_grad(lambda x: (torch.linalg.lu_factor(x)[0] * torch.tensor(W3.astype(np.float64))).sum(), A))),
        ("lu float64", "lambda x: tf.reduce_sum(tf.linalg.lu(x)[0] ** 2)", "d",
         torch_grad(lambda x: (torch.linalg.lu_factor(x)[0] ** 2).sum(), D)),
        ("lu_solve", "lambda x: tf.reduce_sum(tf.linalg.lu_solve(*tf.linalg.lu(x), rhs) * rhs)", "a",
         f32(torch_grad(lambda x: (torch.linalg.solve(x, torch.tensor(RHS.astype(np.float64))) *
                                   torch.tensor(RHS.astype(np.float64))).sum(), A))),
        ("lu_matrix_inverse", "lambda x: tf.reduce_sum(tf.linalg.lu_matrix_inverse(*tf.linalg.lu(x)) * w3)", "a",
         f32(torch_grad(lambda x: (torch.linalg.inv(x) * torch.tensor(W3.astype(np.float64))).sum(), A))),
        ("sqrtm", "lambda x: tf.reduce_sum(tf.linalg.sqrtm(x) * w3)", "s", f32(sqrtm_grad(S, W3))),
        ("sqrtm float64", "lambda x: tf.reduce_sum(tf.linalg.sqrtm(x) * tf.constant(%s, tf.float64))" % w2.tolist(),
         "tf.constant(%s, tf.float64)" % N2.tolist(), sqrtm_grad(N2, w2)),
        ("sqrtm batch", "lambda x: tf.reduce_sum(tf.linalg.sqrtm(x) * w3)", "tf.stack([s, s * 2.0])",
         f32(np.stack([sqrtm_grad(S, W3), sqrtm_grad(S * 2, W3)]))),
    ]
    # bad input: TF's messages (the kernels' InvalidArgumentError, linalg_impl.py's static ValueError)
    bad = [
        ("tf.linalg.lu(tf.constant([[1.0, 2.0], [2.0, 4.0]]))", "InvalidArgumentError: Input is not invertible."),
        ("tf.linalg.lu(tf.ones([2, 3]))", "InvalidArgumentError: Input matrix must be square."),
        ("tf.linalg.lu(tf.ones([3]))", "InvalidArgumentError: Input tensor must have rank >= 2, got 1"),
        ("tf.linalg.lu(tf.eye(2), output_idx_type=tf.float32)",
         "InvalidArgumentError: Value for attr 'output_idx_type' of float is not in the list of allowed values: "
         "int32, int64 ; NodeDef: {{node Lu}}"),
        ("tf.linalg.sqrtm(tf.ones([2, 3]))", "InvalidArgumentError: Input matrix must be square."),
        ("tf.linalg.sqrtm(tf.ones([3]))", "InvalidArgumentError: Input tensor 0 must have rank >= 2, got 1"),
        ("tf.linalg.logm(tf.eye(2))",
         "InvalidArgumentError: Value for attr 'T' of float is not in the list of allowed values: complex64, "
         "complex128 ; NodeDef: {{node MatrixLogarithm}}"),
        ("tf.linalg.lu_solve(*tf.linalg.lu(a), tf.ones([3]))", "ValueError: Input `rhs` must have at least 2 dimensions."),
        ("tf.linalg.lu_solve(*tf.linalg.lu(a), tf.ones([2, 1]))",
         "ValueError: `lower_upper.shape[-1]` must equal `rhs.shape[-1]`."),
        ("tf.linalg.lu_reconstruct(a, tf.constant([[0, 1, 2]]))", "ValueError: `rank(lower_upper)` must equal `rank(perm) + 1`"),
        ("tf.linalg.lu_reconstruct(tf.ones([2, 3]), tf.constant([0, 1]))", "ValueError: `lower_upper` must be square."),
        ("tf.linalg.lu_matrix_inverse(tf.ones([4]), tf.constant(0))", "ValueError: Input `lower_upper` must have at least 2 dimensions."),
    ]
    src = ["BAD = ["] + ["    lambda: %s," % e for e, _ in bad] + ["]", "for f in BAD:", "    try:", "        f()",
                                                                       "        print('no error')",
                                                                       "    except (tf.errors.InvalidArgumentError, ValueError) as e:",
                                                                       "        print(type(e).__name__ + ': ' + str(e))"]
    write("linalg_lu", "tf.linalg.lu with lu_solve, lu_matrix_inverse, lu_reconstruct; sqrtm (real Schur blocks, "
          "complex); logm (complex only, as TF); their gradients (LU: TF's _LuGrad, sqrtm: the Sylvester solve) and "
          "bad input", inputs, cases, grads, (src, [m for _, m in bad]),
          by="tests/gen_linalg_lu_expect.py (expected values from torch's LAPACK LU and numpy)")
    # an uncaught error: located at the call, inside a tf.function and eagerly
    with open(os.path.join(PROGS, "linalg_lu_singular.tfs"), "w") as f:
        f.write("# linalg_lu_singular.tfs — tf.linalg.lu of a singular matrix inside a tf.function: TF's error, located\n"
                "# generated by tests/gen_linalg_lu_expect.py\nimport tensorflow as tf\n\n@tf.function\ndef factor(m):\n"
                "    return tf.linalg.lu(m)\n\nprint(factor(tf.constant([[1.0, 2.0], [1.0, 2.0]])))\n")
    line = "    return tf.linalg.lu(m)\n           ^\n"
    with open(os.path.join(PROGS, "linalg_lu_singular.err"), "w") as f:
        f.write("linalg_lu_singular.tfs:7:12: error: InvalidArgumentError: Input is not invertible. (node Lu in "
                "tf.function 'factor')\n" + line)
    with open(os.path.join(PROGS, "linalg_lu_singular.eager.err"), "w") as f:
        f.write("Traceback (most recent call last):\n  linalg_lu_singular.tfs:9 in <module>\n  linalg_lu_singular.tfs:7 in "
                "factor\nlinalg_lu_singular.tfs:7:12: error: InvalidArgumentError: Input is not invertible.\n" + line)
    with open(os.path.join(PROGS, "linalg_lu_singular.status"), "w") as f:
        f.write("1\n")
    with open(os.path.join(PROGS, "linalg_lu_singular.out"), "w") as f:
        f.write("")


if __name__ == "__main__":
    main()
