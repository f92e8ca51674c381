#!/usr/bin/python3
# eigen_float.py — numpy float32 model of TF 2.15's CPU Sigmoid and Tanh (Eigen's float algorithms) for the expectation generators.
"""TF's Sigmoid/Tanh of float32 are Eigen's scalar_logistic_op<float> and generic_fast_tanh_float, built for
x86-64 with AVX and without FMA (TF's pip wheels): every multiply-add is a float multiply, then a float add.
Eigen evaluates a tensor in packets of 8 floats; the last size % 8 elements go through the scalar operator,
which for the logistic is a different formula (exp through the C library, then e / (1 + e)).

Written from Eigen's description and coefficients (read with the `search` tool), independently of
runtime/kernels/vmath.c: numpy float32 arithmetic rounds each operation, as those kernels must.

    sigmoid(a)  tanh(a)    # a: numpy float32 array, taken as one tensor in C order
"""
import ctypes

import numpy as np

_libm = ctypes.CDLL('libm.so.6')   # the C library's expf, as Eigen's scalar path calls it (numpy has its own)
_libm.expf.restype = ctypes.c_float
_libm.expf.argtypes = [ctypes.c_float]

f = np.float32
PACKET = 8


def _sig_packet(x):
    x = x.astype(f)
    with np.errstate(all='ignore'):
        zero = x < f(-104.0)
        nan = np.isnan(x)
        t = np.where(nan | zero, f(-104.0), x).astype(f)
        t = np.minimum(t, f(16.6355324)).astype(f)
        h = t * f(0.5)
        m = np.floor(h * f(1.44269504088896341) + f(0.5)).astype(f)
        r = m * f(-0.693359375) + h
        r = m * f(2.12194440e-4) + r
        r2 = r * r
        pe = r2 * f(4.1898667812347412109375e-2) + f(0.49999141693115234375)
        po = r2 * f(8.33471305668354034423828125e-3) + f(0.16666877269744873046875)
        pl = r + f(1.0)
        p = r * po + pe
        p = r2 * p + pl
        e = p * np.ldexp(f(1.0), m.astype(np.int32)).astype(f)
        e = e * e
        y = e / (f(1.0) + e)
    y = np.where(zero, f(0.0), y)
    return np.where(nan, x, y).astype(f)


def _sig_scalar(x):
    x = x.astype(f)
    with np.errstate(all='ignore'):
        m = np.where(f(16.6355324) < x, f(16.6355324), x).astype(f)
        e = np.array([_libm.expf(float(v)) for v in m], f)
        return (e / (f(1.0) + e)).astype(f)


def sigmoid(a):
    a = np.asarray(a, dtype=f)
    flat = a.reshape(-1)
    n = flat.size
    k = n - n % PACKET
    out = np.concatenate([_sig_packet(flat[:k]), _sig_scalar(flat[k:])]) if n else flat.copy()
    return out.reshape(a.shape).astype(f)


def tanh(a):
    a = np.asarray(a, dtype=f)
    c = f(7.90531110763549805)
    with np.errstate(all='ignore'):
        x = np.clip(a, -c, c).astype(f)   # NaN stays
        x2 = x * x
        p = x2 * f(-2.76076847742355e-16) + f(2.00018790482477e-13)
        for k in (-8.60467152213735e-11, 5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
                  4.89352455891786e-03):
            p = x2 * p + f(k)
        p = x * p
        q = x2 * f(1.19825839466702e-06) + f(1.18534705686654e-04)
        q = x2 * q + f(2.26843463243900e-03)
        q = x2 * q + f(4.89352518554385e-03)
        y = p / q
    return np.where(np.abs(a) < f(0.0004), a, y).astype(f)
