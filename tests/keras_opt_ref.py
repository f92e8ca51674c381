# keras_opt_ref.py — numpy update rules shared by the optimizer generators (gen_keras_optimizers*.py).
"""FTRL-Proximal as TF's ApplyFtrl(V2) kernels compute it, which both Keras 2.15's
Ftrl and the legacy OptimizerV2 Ftrl use: accumulator n (starting at
initial_accumulator_value), linear term z, the shrinkage entering z only."""
import numpy as np


def ftrl_step(w, g, st, rate, o):
    """One step from weights w with gradient g; st holds n and z between steps; o the options (lr_power, l1, l2,
    beta, init, shrink). Returns the new weights."""
    pw = -o.get("lr_power", -0.5)
    l1, l2 = o.get("l1", 0.0), o.get("l2", 0.0) + o.get("beta", 0.0) / (2.0 * rate)
    n = st.get("n", np.full(w.shape, o.get("init", 0.1)))
    n2 = n + g * g
    st["z"] = st.get("z", np.zeros(w.shape)) + g + 2 * o.get("shrink", 0.0) * w - (n2 ** pw - n ** pw) / rate * w
    st["n"] = n2
    zz = st["z"]
    return (np.clip(zz, -l1, l1) - zz) / (n2 ** pw / rate + 2 * l2)
