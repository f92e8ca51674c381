#!/usr/bin/python3
"""gen_keras_savedmodel_inputs.py — writes tests/programs/keras_savedmodel_inputs.out: the 8-input model's
predictions (concatenate, then a Dense of fixed weights) and the *args function's sums, with numpy.

    /usr/bin/python3 tests/gen_keras_savedmodel_inputs.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
F = np.float32
k = (np.arange(8, dtype=F) * 0.25 - 1.0).reshape(8, 1)
b = np.array([0.5], dtype=F)
xs = [np.array([[i + 1.0], [-i * 0.5]], dtype=F) for i in range(8)]
y = np.round((np.concatenate(xs, axis=1) @ k + b).astype(F), 4)
total = sum(np.array([float(i), 1.0], dtype=F) for i in range(7)).astype(F)
lines = [str(y), "True 8 " + str(y), "['o'] " + str(y), "%s %s" % (total, total)]
with open(os.path.join(HERE, "programs", "keras_savedmodel_inputs.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
