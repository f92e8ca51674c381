#!/usr/bin/python3
"""gen_sparse_cwise.py — writes tests/programs/sparse_cwise.out: SparseDenseCwiseMul/Div as TF defines them (the dense
operand broadcast to the sparse shape, read at each entry's index), and their gradients, computed with numpy.

    /usr/bin/python3 tests/gen_sparse_cwise.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32
ind = np.array([[0, 1], [1, 0], [1, 2]])
vals = np.array([2.0, 3.0, -4.0], f32)
shape = [2, 3]
d = np.array([[1, 2, 3], [4, 5, 6]], f32)
row = np.array([10, 20, 30], f32)
col = np.array([[0.5], [4.0]], f32)


def at(dense):
    b = np.broadcast_to(dense, shape)
    return np.array([b[tuple(i)] for i in ind], f32)


def line(values):
    return "SparseTensor %s %s %s" % (ind.tolist(), values.astype(f32).tolist(), shape)


out = [line(vals * at(d)), line(at(d) * vals), line(vals / at(d)), line(vals * at(row)), line(at(row) * vals),
       line(vals / at(col)), line(at(col) * vals)]
# y1 = sum((w * sp).values * c): dv = c * w[ind], dw[ind] += c * v
c = np.array([1, 2, 3], f32)
dv1 = c * at(d)
dw1 = np.zeros(shape, f32)
for k, i in enumerate(ind):
    dw1[tuple(i)] += c[k] * vals[k]
# y2 = sum(v / w[ind]): dv = 1 / w[ind], dw[ind] += -v / w[ind]**2
dv2 = f32(1) / at(d)
dw2 = np.zeros(shape, f32)
for k, i in enumerate(ind):
    dw2[tuple(i)] += -vals[k] / (d[tuple(i)] * d[tuple(i)])
out.append("%s %s" % (dv1.tolist(), dw1.tolist()))
out.append("%s %s" % (dv2.tolist(), dw2.tolist()))
out.append("%s %s" % ((at(d) * vals).tolist(), (vals * at(row)).tolist()))
out.append("TypeError: unsupported operand type(s) for *: 'int' and 'SparseTensor'")
with open(os.path.join(HERE, "programs", "sparse_cwise.out"), "w") as fh:
    fh.write("\n".join(out) + "\n")
