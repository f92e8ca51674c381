#!/usr/bin/python3
"""gen_random_gamma_poisson.py — writes tests/programs/random_gamma_poisson.out.

    /usr/bin/python3 tests/gen_random_gamma_poisson.py

Shapes follow TF's random_ops.py (`shape` + the broadcast shape of alpha and beta; the stateless ops' output is
`shape`); the draws themselves are tfs's own, so the program checks them by statistics and determinism and prints
True. RandomGammaGrad is the implicit-reparameterization derivative d x / d alpha = -(dP/dalpha)(alpha, x) / p(x)
(P the regularized lower incomplete gamma, p the Gamma(alpha, 1) density), computed here with mpmath's numerical
derivative of its incomplete gamma at 30 digits. meshgrid and broadcast_dynamic_shape come from numpy.
"""
import os

import mpmath
import numpy as np

from gen_sparse_expect import T, NAMES

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES.update({np.dtype(np.float64): "float64"})
mpmath.mp.dps = 30


def shape(s):
    return "(" + ", ".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def gamma_grad(a, x):
    a, x = mpmath.mpf(a), mpmath.mpf(x)
    dp = mpmath.diff(lambda aa: mpmath.gammainc(aa, 0, x, regularized=True), a)
    pdf = mpmath.exp((a - 1) * mpmath.log(x) - x - mpmath.loggamma(a))
    return float(-dp / pdf)


def main():
    out = []
    out.append(shape((3, 2) + np.broadcast_shapes((2, 1), (2,))))
    out.append("<dtype: 'float64'> <dtype: 'float16'>")
    out.append("%s <dtype: 'int64'>" % shape((5, 2)))
    out.append(shape((6, 2)))
    out.append("<dtype: 'int32'>")   # stateless_poisson's default dtype
    for what in ("gamma", "stateless gamma", "poisson", "stateless poisson"):
        out.append("%s mean, variance (True, True)" % what)
    out.append("positive True integral True")
    out.append("poisson of 0 [0.0, 0.0, 0.0] of -1 [nan, nan]")   # TF's kernel: rate 0 draws 0, a negative rate NaN
    out.append("same seeds, same draws True")
    out.append("stateless: True True")
    out.append("stateless poisson traced True")
    ga = [0.05, 0.3, 0.5, 0.9, 1.0, 1.7, 3.0, 8.0, 25.0, 120.0, 0.3, 2.0, 8.0, 0.05, 3.0]
    gx = [1e-8, 0.01, 0.7, 2.5, 0.4, 1.0, 6.0, 8.0, 20.0, 130.0, 4.0, 0.05, 30.0, 0.9, 1.0]
    out.append(" ".join("%.8g" % gamma_grad(a, x) for a, x in zip(ga, gx)))
    out.append(" ".join("%.5g" % gamma_grad(float(np.float32(a)), float(np.float32(x))) for a, x in zip(ga[:6], gx[:6])))
    out.append("dalpha is RandomGammaGrad / beta True")
    out.append("mean dx/dalpha near 1/beta True")
    out.append("dbeta is -sum(x) / beta True")
    out.append("traced stateless gradient True True")
    X, Y = np.meshgrid(np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32))
    out += [T(X), T(Y)]
    I, J, K = np.meshgrid(np.array([0.5, 1.5], np.float32), np.array([1, 2, 3], np.float32), np.array([-1], np.float32), indexing="ij")
    out.append("%s %s %s %s" % (shape(I.shape), shape(J.shape), shape(K.shape), np.float32((I * J + K).sum())))
    P, Q, R = np.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0])
    out.append("%s %s %s" % (shape(P.shape), shape(Q.shape), shape(R.shape)))
    u, w = np.array([1, 2, 3], np.float32), np.array([10, 20], np.float32)
    # z = sum_ij u_j^2 w_i: dz/du_j = 2 u_j sum(w), dz/dw_i = sum(u^2)
    out.append("%s %s" % (T(2 * u * w.sum()), T(np.full(2, (u * u).sum(), np.float32))))
    out.append(T(np.meshgrid(np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32), indexing="ij")[1]))
    out.append("[]")
    out.append("ValueError: indexing parameter must be either 'xy' or 'ij'")
    out.append("TypeError: 'sparse' is an invalid keyword argument for this function")
    out.append("%s %s" % (T(np.array(np.broadcast_shapes((2, 1, 3), (4, 1)), np.int32)), T(np.array(np.broadcast_shapes((5,), (1,)), np.int64))))
    out.append("InvalidArgumentError: Shape passed in must end with broadcasted shape.")
    with open(os.path.join(HERE, "programs", "random_gamma_poisson.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
