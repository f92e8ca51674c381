#!/usr/bin/env python3
"""gen_var_scatter_expect.py — expected output of tests/programs/var_scatter_slices.tfs, computed with numpy.

Each scatter is numpy's unbuffered ufunc.at (np.add.at, np.multiply.at, ... : repeated indices combine one by one),
printed as numpy prints arrays; the errors' texts are TF 2.15's.
usage: gen_var_scatter_expect.py > tests/programs/var_scatter_slices.out
"""
import numpy as np

F = np.float32
v = np.array([[1, 2], [3, 4], [5, 6]], F)
np.add.at(v, [2, 0, 2], np.array([[10, 20], [1, 1], [0.5, 0.5]], F))
print(v)
np.subtract.at(v, [1], np.array([[1, 1]], F))
print(v)
np.multiply.at(v, [0, 0], np.array([[2, 3], [2, 2]], F))
print(v)
np.divide.at(v, [2], np.array([[4, 8]], F))
print(v)
np.minimum.at(v, [1, 2], np.array([[0, 100], [3, 1]], F))
print(v)
np.maximum.at(v, [1], np.array([[9, -9]], F))
print(v)
v[0] = [7, 8]
print(v)
v[[1, 2]] = 0
print(v)
w = np.zeros(5, F)
np.add.at(w, np.array([[0, 1], [1, 4]]), np.array([[1, 2], [3, 4]], F))
print(w)
k = np.array([10, 20, 30, 40], np.int32)
k[0] = int(10 / 3)       # integer division truncates toward zero, as TF's kernels
k[3] = int(40 / -7)
k[1] *= 5
print(k)
print("IndexedSlices(indices=tf.Tensor([1], shape=(1,), dtype=int32), values=tf.Tensor([[1. 2.]], shape=(1, 2), "
      "dtype=float32), dense_shape=tf.Tensor([3 2], shape=(2,), dtype=int32))")
print("<dtype: 'float32'> (3, 2)", -np.array([[1, 2]], F))
u = np.array([1, 2, 3, 4], F)
for vals, idx in [([1, 2], [0, 3]), ([0.5, 0.5], [2, 2])]:
    np.add.at(u, idx, np.array(vals, F))
    np.multiply.at(u, idx, np.array(vals, F))
    print(u)
print("TypeError: Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: "
      "tf.Tensor([1. 2.], shape=(2,), dtype=float32)")
print("InvalidArgumentError: indices[0] = 5 is not in [0, 3)")
print("InvalidArgumentError: Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
      "updates.shape [1,3], indices.shape [1], params.shape [3,2]")
b = np.arange(12, dtype=F).reshape(2, 3, 2)
b[0, 2] = [-1, -2]   # batch_scatter_update: row i's indices address b[i]
b[1, 0] = [-3, -4]
print(b)
print(np.array([8, 2, 9], F))
