#!/usr/bin/python3
# gen_eigen_activations.py — writes tests/programs/eigen_activations.out from the numpy float32 model of TF's Sigmoid/Tanh (tests/eigen_float.py).
"""    /usr/bin/python3 tests/gen_eigen_activations.py

The inputs are the program's, built with the same float32 operations (a product, then a difference)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eigen_float as E  # noqa: E402

f = np.float32
wide = np.arange(131).astype(f) * f(0.99) - f(110.0)
gates = np.arange(97).astype(f) * f(0.083) - f(4.0)
special = np.array([0.0, -0.0, 1e-30, -1e-30, 0.0003, -0.0004, 7.9, 8.0, -9.0, 16.6, 16.7, -103.9, -104.1,
                    3.25, -3.25, np.inf, -np.inf], f)
out = []
for v in [wide, gates, special, gates[:13], gates[40:41]]:
    out.append(str(E.sigmoid(v).tolist()))
    out.append(str(E.tanh(v).tolist()))
g = gates[:90].reshape(9, 10)
out.append(str(E.sigmoid(g).tolist()))
out.append(str(E.tanh(g).tolist()))
out.append(str(E.sigmoid(np.ascontiguousarray(g[:, :3])).tolist()))
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'programs', 'eigen_activations.out')
with open(path, 'w') as fh:
    fh.write('\n'.join(out) + '\n')
