#!/usr/bin/python3
# gen_keras_optimizers.py — writes tests/programs/keras_optimizers.out: Keras 2.15's update rules recomputed with numpy.
"""Independent reference for keras_optimizers.tfs.

    /usr/bin/python3 tests/gen_keras_optimizers.py

The update rules follow Keras 2.15's keras/optimizers/*.py (the 2.11+
optimizers): learning rate read from its variable (or a schedule evaluated
at the step count before the update), gradients clipped (clipnorm per
gradient, else global_clipnorm, else clipvalue), weight decay
w -= w * lr * wd before the update.  Computed in float64 and printed to 4
decimals, so float32 rounding does not show.  The lines after the
optimizer table (variable-backed learning rate, error messages, config)
are Keras's behaviour written out here.
"""
import math
import os
import numpy as np

from keras_opt_ref import ftrl_step

HERE = os.path.dirname(os.path.abspath(__file__))
T = np.array([0.5, 1.0, -1.0])
C = np.array([1.0, 3.0, 0.5])


def grad(w):
    return 2.0 * C * (w - T)


def clip(g, o):
    if o.get("clipnorm"):
        n = np.sqrt(np.sum(g * g))
        return g * (o["clipnorm"] / max(n, o["clipnorm"]))
    if o.get("global_clipnorm"):
        n = np.sqrt(np.sum(g * g))
        return g * (o["global_clipnorm"] / max(n, o["global_clipnorm"]))
    if o.get("clipvalue"):
        return np.clip(g, -o["clipvalue"], o["clipvalue"])
    return g


def run(kind, lr, steps=4, **o):
    w = np.array([1.0, -2.0, 0.5])
    st = {}
    z = np.zeros(3)
    for it in range(steps):
        rate = lr(it) if callable(lr) else lr
        g = clip(grad(w), o)
        if o.get("weight_decay"):
            w = w - w * rate * o["weight_decay"]
        t = it + 1
        if kind == "sgd":
            mom = o.get("momentum", 0.0)
            if mom == 0:
                w = w - g * rate
            else:
                m = st.get("m", z)
                m = m * mom - g * rate
                st["m"] = m
                w = w + (m * mom - g * rate if o.get("nesterov") else m)
        elif kind == "adam":
            b1, b2, eps = 0.9, 0.999, 1e-7
            m = st.get("m", z) + (g - st.get("m", z)) * (1 - b1)
            v = st.get("v", z) + (g * g - st.get("v", z)) * (1 - b2)
            st["m"], st["v"] = m, v
            alpha = rate * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            if o.get("amsgrad"):
                st["vhat"] = np.maximum(st.get("vhat", z), v)
                v = st["vhat"]
            w = w - m * alpha / (np.sqrt(v) + eps)
        elif kind == "rmsprop":
            rho, eps, mom = 0.9, 1e-7, o.get("momentum", 0.0)
            vel = rho * st.get("vel", z) + (1 - rho) * g * g
            st["vel"] = vel
            den = vel + eps
            if o.get("centered"):
                avg = rho * st.get("avg", z) + (1 - rho) * g
                st["avg"] = avg
                den = vel - avg * avg + eps
            inc = rate * g / np.sqrt(den)
            if mom > 0:
                st["mom"] = mom * st.get("mom", z) + inc
                w = w - st["mom"]
            else:
                w = w - inc
        elif kind == "adagrad":
            acc = st.get("acc", np.full(3, 0.1)) + g * g
            st["acc"] = acc
            w = w - rate * g / np.sqrt(acc + 1e-7)
        elif kind == "adadelta":
            rho, eps = 0.95, 1e-7
            ag = rho * st.get("ag", z) + (1 - rho) * g * g
            delta = -np.sqrt(st.get("ad", z) + eps) * g / np.sqrt(ag + eps)
            st["ag"], st["ad"] = ag, rho * st.get("ad", z) + (1 - rho) * delta * delta
            w = w + rate * delta
        elif kind == "adamax":
            b1, b2, eps = 0.9, 0.999, 1e-7
            m = st.get("m", z) + (g - st.get("m", z)) * (1 - b1)
            u = np.maximum(b2 * st.get("u", z), np.abs(g))
            st["m"], st["u"] = m, u
            w = w - rate * m / ((1 - b1 ** t) * (u + eps))
        elif kind == "nadam":
            b1, b2, eps = 0.9, 0.999, 1e-7
            u_t = b1 * (1 - 0.5 * 0.96 ** t)
            u_t1 = b1 * (1 - 0.5 * 0.96 ** (t + 1))
            up = st.get("up", 1.0) * u_t
            st["up"] = up
            up1 = up * u_t1
            m = st.get("m", z) + (g - st.get("m", z)) * (1 - b1)
            v = st.get("v", z) + (g * g - st.get("v", z)) * (1 - b2)
            st["m"], st["v"] = m, v
            m_hat = u_t1 * m / (1 - up1) + (1 - u_t) * g / (1 - up)
            v_hat = v / (1 - b2 ** t)
            w = w - m_hat * rate / (np.sqrt(v_hat) + eps)
        elif kind == "ftrl":
            w = ftrl_step(w, g, st, rate, o)   # keras/optimizers/ftrl.py and legacy/ftrl.py: TF's ApplyFtrl(V2)
    return " ".join("%.4f" % x for x in w)


def expo(i0, ds, dr, stair=False):
    return lambda s: i0 * dr ** (math.floor(s / ds) if stair else s / ds)


def piecewise(b, v):
    def f(s):
        for i, x in enumerate(b):
            if s <= x:
                return v[i]
        return v[-1]
    return f


def poly(i0, ds, end, power=1.0, cycle=False):
    def f(s):
        d = ds
        if cycle:
            d = ds * (1.0 if s == 0 else math.ceil(s / ds))
        else:
            s = min(s, ds)
        return (i0 - end) * (1 - s / d) ** power + end
    return f


def cosine(i0, ds, alpha=0.0, target=None, warm=0):
    def decay(s, start):
        s = min(s, ds)
        return start * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * s / ds)) + alpha)
    def f(s):
        if target is None:
            return decay(s, i0)
        if s < warm:
            return i0 + s / warm * (target - i0)
        return decay(s - warm, target)
    return f


def restarts(i0, first, t_mul=2.0, m_mul=1.0, alpha=0.0):
    def f(s):
        frac = s / first
        i = math.floor(math.log(1 - frac * (1 - t_mul)) / math.log(t_mul))
        sum_r = (1 - t_mul ** i) / (1 - t_mul)
        frac = (frac - sum_r) / t_mul ** i
        cos = 0.5 * m_mul ** i * (1 + math.cos(math.pi * frac))
        return i0 * ((1 - alpha) * cos + alpha)
    return f


lines = [
    "SGD " + run("sgd", 0.1),
    "SGD momentum " + run("sgd", 0.1, momentum=0.9),
    "SGD nesterov " + run("sgd", 0.1, momentum=0.9, nesterov=True),
    "Adam " + run("adam", 0.1),
    "Adam amsgrad " + run("adam", 0.1, amsgrad=True),
    "AdamW " + run("adam", 0.1, weight_decay=0.1),
    "RMSprop " + run("rmsprop", 0.1),
    "RMSprop momentum centered " + run("rmsprop", 0.1, momentum=0.5, centered=True),
    "Adagrad " + run("adagrad", 0.1),
    "Adadelta " + run("adadelta", 1.0),
    "Adamax " + run("adamax", 0.1),
    "Nadam " + run("nadam", 0.1),
    "Ftrl " + run("ftrl", 0.1),
    "Ftrl l1 l2 shrinkage beta " + run("ftrl", 0.5, lr_power=-0.7, init=0.2, l1=0.3, l2=0.1, shrink=0.05, beta=0.4),
    "Ftrl fixed rate " + run("ftrl", 0.1, lr_power=0.0, l1=2.0),
    "SGD clipnorm " + run("sgd", 0.1, clipnorm=1.0),
    "SGD clipvalue " + run("sgd", 0.1, clipvalue=0.5),
    "SGD global_clipnorm " + run("sgd", 0.1, global_clipnorm=2.0),
    "SGD weight_decay " + run("sgd", 0.1, weight_decay=0.5),
    "ExponentialDecay " + run("sgd", expo(0.1, 2, 0.5)),
    "ExponentialDecay staircase " + run("sgd", expo(0.1, 2, 0.5, True)),
    "PiecewiseConstantDecay " + run("sgd", piecewise([1, 2], [0.1, 0.05, 0.01])),
    "PolynomialDecay " + run("sgd", poly(0.1, 3, 0.01, 2.0)),
    "PolynomialDecay cycle " + run("sgd", poly(0.1, 2, 0.01, cycle=True)),
    "CosineDecay " + run("sgd", cosine(0.1, 3, 0.1)),
    "CosineDecay warmup " + run("sgd", cosine(0.0, 3, target=0.1, warm=2)),
    "CosineDecayRestarts " + run("sgd", restarts(0.1, 2)),
    "InverseTimeDecay " + run("sgd", lambda s: 0.1 / (1 + 0.5 * s)),
    "LearningRateSchedule subclass " + run("sgd", lambda s: 0.2 * 0.5 ** s),
]
# w = 1 - 0.1*2, then - 0.5*2, then - 0.25*2; two traces: Keras 2.15's SGD makes its momentum slot (also with
# momentum 0, keras/optimizers/sgd.py build) in the first call, and a tf.function that created variables traces again
w = 1.0 - 0.2
lines.append("%.4f" % w)
w -= 1.0
lines.append("%.4f" % w)
w -= 0.5
lines.append("%.4f 0.2500 0.2500 2" % w)
lines.append("True 3")
lines.append("TypeError: This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` constructor "
             "argument, hence its learning rate is not settable. If you need the learning rate to be settable, you should "
             "instantiate the optimizer with a float `learning_rate` argument.")
lines.append("ValueError: At most one of `clipnorm` and `global_clipnorm` can be set. Received: clipnorm=1.0, global_clipnorm=1.0.")
lines.append("ValueError: decay is deprecated in the new Keras optimizer, please check the docstring for valid arguments, "
             "or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.Adam.")
lines.append("TypeError: betas is not a valid argument, kwargs should be empty  for `optimizer_experimental.Optimizer`.")
lines.append("ValueError: `momentum` must be between [0, 1].")
lines.append("ValueError: `learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.5.")
lines.append("ValueError: `l1_regularization_strength` needs to be positive or zero. Received: l1_regularization_strength=-1.0.")
lines.append("[('amsgrad', False), ('beta_1', 0.9), ('beta_2', 0.999), ('clipnorm', None), ('clipvalue', None), ('ema_momentum', 0.99)] Adam 0.5 15")
with open(os.path.join(HERE, "programs", "keras_optimizers.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
# under `tfs run --eager` the step is never traced
with open(os.path.join(HERE, "programs", "keras_optimizers.eager.out"), "w") as f:
    f.write("\n".join(l.replace("0.2500 0.2500 2", "0.2500 0.2500 0") for l in lines) + "\n")
