#!/usr/bin/python3
"""gen_sparse_cwise_ops.py — writes tests/programs/sparse_cwise_ops.out and the sparse_cwise_err_*.err goldens: TF's
SparseDenseCwiseMul/Div/Add computed with numpy.

    /usr/bin/python3 tests/gen_sparse_cwise_ops.py

The kernel (tensorflow/core/kernels/sparse_dense_binary_op_shared.cc) reads the dense operand, broadcast to the
sparse shape (the dense side only), at each entry's index, and combines it with the value in the values' dtype
(integer Div truncates, float16 computes in float32 and rounds); `st / dense` first casts integer values to
_TRUEDIV_TABLE's float dtype (math_ops._sparse_dense_truediv).  The gradients are sparse_grad.py's
_SparseDenseCwiseMulOrDivGrad: dx = dy * dense (dy / dense), d(dense) = the sum of dy * values
(dy * -values / dense**2) over the entries reading each dense place.
"""
import os

import numpy as np

from gen_sparse_expect import NAMES, T, err

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32
NAMES.update({np.dtype(np.float64): "float64", np.dtype(np.uint8): "uint8", np.dtype(np.float16): "float16"})


def read(ind, shape, dense):
    """the dense operand broadcast to the sparse shape, read at each index (and the place it reads)"""
    dense = np.asarray(dense)
    b = np.broadcast_to(dense, shape)
    return np.array([b[tuple(i)] for i in ind], dense.dtype)


def places(ind, shape, dense):
    off = len(shape) - dense.ndim
    return [tuple(i[off + j] // (shape[off + j] // dense.shape[j]) for j in range(dense.ndim)) for i in ind]


def grads(ind, vals, shape, dense, dy, is_mul):
    g = read(ind, shape, dense)
    dx = dy * g if is_mul else dy / g
    dyv = dy * vals if is_mul else dy * (-vals / (g * g))
    dd = np.zeros(dense.shape, dense.dtype)
    for p, u in zip(places(ind, shape, dense), dyv):
        dd[p] += u
    return dx.astype(dense.dtype), dd


def main():
    L = []
    ind = np.array([[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 2]])
    vals = np.array([1.5, -2.0, 4.0, 0.5], f32)
    shape = [2, 3, 4]
    d3 = np.arange(1, 25, dtype=f32).reshape(2, 3, 4)
    d_row = np.array([1, 2, 4, 8], f32)
    d_mid = np.array([[2], [3], [5]], f32)
    d_b = np.array([[[1, 2, 3, 4]], [[5, 6, 7, 8]]], f32)
    for dd in [d3, d_row, d_mid, d_b, np.array(4, f32)]:
        g = read(ind, shape, dd)
        L += [T(vals * g), T(vals / g), T(vals + g)]
    si = np.array([[0, 0], [1, 1], [1, 2]])
    sv = np.array([7, -7, 9], np.int32)
    di = np.array([[2, 2, 2], [3, 2, 4]], np.int32)
    gi = read(si, [2, 3], di)
    L.append(T((np.trunc(sv / gi)).astype(np.int32)))   # C's integer division
    L.append(T(sv.astype(np.float64) / gi.astype(np.float64)))
    L.append(T(sv * gi))
    s8 = np.array([100, 7], np.uint8)
    L.append(T((s8 * np.uint8(3)).astype(np.uint8)))
    L.append(T(s8.astype(f32) / f32(3)))
    sh = np.array([1.5, 3.0], np.float16)
    L.append(T((sh.astype(f32) / np.array([3.0, 7.0], f32)).astype(np.float16)))
    L.append(T(np.array([2, 3], f32) * read([[1, 2], [0, 0]], [2, 3], np.array([[1, 2, 3], [4, 5, 6]], f32))))
    c = np.array([1, 2, 3, 4], f32)
    r = np.array([1, 2, 4, 8], f32)
    for dd, is_mul in [(d_mid, True), (d_mid, False), (r, True), (np.array(4, f32), False)]:
        dx, dd_ = grads(ind, vals, shape, dd, c, is_mul)
        L += [T(dx), T(dd_)]
    # the tf.function: the loss sums both results, so the gradients add
    g = read(ind, shape, d_mid)
    L += [T(vals * g), T(vals / g)]
    dx1, dw1 = grads(ind, vals, shape, d_mid, c, True)
    dx2, dw2 = grads(ind, vals, shape, d_mid, c, False)
    L += [T(dx1 + dx2), T(dw1 + dw2)]
    L.append(str(['op: "SparseDenseCwiseDiv"', 'op: "SparseDenseCwiseMul"']))
    with open(os.path.join(HERE, "programs", "sparse_cwise_ops.out"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    # TF's kernel messages (sparse_dense_binary_op_shared.cc)
    for name, line, col, msg in ERRS:
        with open(os.path.join(HERE, "programs", name + ".tfs")) as fh:
            src = fh.read().splitlines()[line - 1]
        err(name, line, col, src, msg)


ERRS = [
    ("sparse_cwise_err_bcast", 4, 8, "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
     "shapes: [2,3] vs. [2]"),
    ("sparse_cwise_err_zero", 4, 8, "SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero "),
    ("sparse_cwise_err_bounds", 4, 8, "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape"),
]

if __name__ == "__main__":
    main()
