#!/usr/bin/python3
"""gen_keras_to_categorical.py — writes tests/programs/keras_to_categorical.out: Keras 2.15's to_categorical
(keras/utils/np_utils.py: ids as int, a trailing axis of 1 dropped, num_classes = max + 1 when not given, rows set by
numpy fancy indexing, reshaped to the ids' shape + (num_classes,)) run with numpy.

    /usr/bin/python3 tests/gen_keras_to_categorical.py
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def to_categorical(y, num_classes=None, dtype="float32"):
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.reshape(-1)
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


lines = []
a = to_categorical([0, 2, 1])
lines.append("%s %s %s" % (type(a).__name__, a.dtype, a.shape))
lines += str(a).splitlines()
b = to_categorical(np.array([[1], [3]]), 5)
lines.append("%s %s" % (b.shape, b.tolist()))
c = to_categorical([[0, 1], [2, -1]], num_classes=3, dtype="int32")
lines.append("%s %s %s" % (c.dtype, c.shape, c.tolist()))
try:
    to_categorical([0, 4, 7], num_classes=3)
except IndexError as e:
    lines.append("IndexError: %s" % e)
try:
    to_categorical([1, -5], num_classes=3)
except IndexError as e:
    lines.append("IndexError: %s" % e)
with open(os.path.join(HERE, "programs", "keras_to_categorical.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
