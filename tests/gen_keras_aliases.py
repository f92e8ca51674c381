#!/usr/bin/env python3
"""gen_keras_aliases.py — expected output of tests/programs/keras_api_aliases.tfs.

The aliases are the same classes in Keras 2.15 (keras_export lists both names); Rescaling and Normalization values,
CosineDecay (0.5 * (1 + cos(pi * step / decay_steps))) and normalize (x / max(norm, 1 for 0)) with numpy;
split_dataset as Keras 2.15's keras/utils/dataset_utils.py cuts (left = first left_size samples, right = last
right_size, sizes from fractions by round(), shuffled by Python's random.seed(seed) + random.shuffle) and its
errors, the split cases from Keras's dataset_utils_test.py. usage: gen_keras_aliases.py > tests/programs/keras_api_aliases.out
"""
import math
import random

import numpy as np


def norm(x, axis=-1, order=2):
    n = np.atleast_1d(np.linalg.norm(x, order, axis))
    n[n == 0] = 1
    return x / np.expand_dims(n, axis)


print(True)
print(True)
print([[1.0, 0.2]])
v = np.array([1.0, 2.0, 3.0], np.float32)
print([[round(float(e), 5) for e in row] for row in (np.array([[2.0], [4.0]], np.float32) - v.mean()) / np.sqrt(v.var())])
print(True, True, round(0.5 * (1 + math.cos(math.pi * 0.5)), 5), 0.0)
print(np.round(norm(np.array([[3.0, 4.0], [0.0, 0.0]])), 5).tolist())
print(np.round(norm(np.array([[1.0, 2.0], [3.0, -2.0]]), axis=0, order=1), 5).tolist())
print(np.round(norm(np.array([2.0, 0.0, 1.0, 2.0])), 5).tolist())
print([1], [2, 3])
print([1], [2, 3, 4, 5, 6, 7, 8, 9, 10])
print([1, 2], [6, 7, 8, 9, 10])
print(120, 80, "(32,)")
x = np.arange(10.0).reshape((5, 2))
print(3, [[x[3].tolist(), 3], [x[4].tolist(), 4]])
print([0, 1], [2, 3, 4])
print(5, 5)
s = list(range(10))
random.seed(3)
random.shuffle(s)
print(s[:6], s[-4:])
arr = "[1 2 3]"
print("TypeError: The `dataset` argument must be either a `tf.data.Dataset` object or a list/tuple of arrays. Received: dataset=None of type <class 'NoneType'>")
print("ValueError: At least one of the `left_size` or `right_size` must be specified. Received: left_size=None and right_size=None")
print("ValueError: `left_size` should be either a positive integer smaller than 3, or a float within the range `[0, 1]`. Received: left_size=3")
print("ValueError: Both `left_size` and `right_size` are zero. At least one of the split sizes must be non-zero.")
print("TypeError: Invalid `left_size` and `right_size` Types. Expected: integer or float or None, Received: type(left_size)=<class 'str'> and type(right_size)=<class 'str'>")
print("TypeError: Invalid `right_size` Type. Expected: int or float or None,Received: type(right_size)=<class 'str'>.")
print("ValueError: The sum of `left_size` and `right_size` is greater than 1. It must be less than or equal to 1.")
print("ValueError: Received a list of NumPy arrays with different lengths. Mismatch found at index 1, Expected shape=(3, 2) Received shape=(4, 2).Please provide a list of NumPy arrays with the same length.")
print("ValueError: Received an empty list dataset. Please provide a non-empty list of arrays.")
print("http://localhost:9000 /publish/epoch/end/ data None False")
print("ImportError: RemoteMonitor requires the `requests` library.")
print(True, True, True)
