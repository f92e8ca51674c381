#!/usr/bin/python3
# gen_keras_optimizer_slots.py — writes tests/programs/keras_optimizer_slots.out: Keras 2.15's optimizer slots, with numpy.
"""Independent reference for keras_optimizer_slots.tfs.

    /usr/bin/python3 tests/gen_keras_optimizer_slots.py

Keras 2.15 (keras/optimizers/sgd.py, adam.py, rmsprop.py, ...): `build(var_list)` makes the slots through
`add_variable_from_reference(var, name)`, named "<name>/<variable>" (inside the optimizer's name scope when
`apply_gradients` builds, so "SGD/m/d/kernel:0"; none on a direct `build` call); `variables` is
[iterations] + the slots in the order built. SGD builds `m` for every variable whatever `momentum` is, and
its dense step is m = -lr g + momentum m; w += m.  Adam builds (m, v) per variable, then vhat per variable;
RMSprop velocity per variable, then momentum (momentum > 0), then average_gradient (centered).
The two SGD steps are computed in float64 (Dense(1) on a batch of 4, mean squared error) and printed to 5
decimals; the script checks no value sits near a rounding tie, so float32 does not show.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.25], [2.0, 1.0]])
Y = np.array([[1.1], [0.3], [-0.7], [2.3]])


def fmt(values):
    out = []
    for v in values:
        scaled = abs(v) * 1e5
        assert abs(scaled - np.floor(scaled) - 0.5) > 1e-3, v   # far from a tie
        out.append("%.5f" % v)
    return " ".join(out)


def step(k, b, lr=0.1):
    err = X @ k + b - Y                    # (4, 1)
    dpred = 2.0 * err / err.size           # d mean((pred - y)^2) / d pred
    gk, gb = X.T @ dpred, dpred.sum(0)
    mk, mb = -lr * gk, -lr * gb            # momentum 0: m = -lr g + 0 * m
    return k + mk, b + mb, mk, mb


k, b = np.array([[0.537], [-0.213]]), np.array([0.137])
k1, b1, mk, mb = step(k, b)
k2, b2, mk2, mb2 = step(k1, b1)


def names(opt, groups, scope=""):
    out = ["iteration:0"]
    for group in groups:
        for var in ["w", "b"]:
            out += [f"{scope}{slot}/{var}:0" for slot in group]
    return opt + " " + str(out)


lines = [
    "before build 1",
    str(["iteration:0", "SGD/m/d/kernel:0", "SGD/m/d/bias:0"]),
    fmt(list(mk.ravel()) + list(mb)),
    fmt(list(k1.ravel()) + list(b1)),
    "model weights 2",
    "loaded " + str(["iteration:0", "SGD/m/d/kernel:0", "SGD/m/d/bias:0"]) + " 2",
    fmt(list(mk2.ravel()) + list(mb2)),
    fmt(list(k2.ravel()) + list(b2)),
    names("Adam", [("m", "v"), ("vhat",)]),
    names("RMSprop", [("velocity",), ("momentum",), ("average_gradient",)]),
    names("RMSprop", [("velocity",)]),
    names("SGD", [("m",)]),
    names("Adagrad", [("accumulator",)]),
    names("Adadelta", [("accumulated_grad", "accumulated_delta_var")]),
    names("Adamax", [("m", "u")]),
    names("Nadam", [("m", "v")]),
    names("Ftrl", [("accumulator", "linear")]),
    "True",
    "[0.3]",
]
with open(os.path.join(HERE, "programs", "keras_optimizer_slots.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
