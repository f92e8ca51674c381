#!/usr/bin/env python3
"""gen_keras_adafactor_lion.py — expected output of tests/programs/keras_optimizers_adafactor_lion.tfs, with numpy.

The update rules as Keras 2.15's keras/optimizers/adafactor.py and lion.py write them, in float32:
Adafactor: lr = min(lr, 1/sqrt(t)) for a constant rate with relative_step, rho = min(lr, 1/sqrt(t)),
alpha = max(epsilon_2, rms(var)) * rho, g2 = g^2 + epsilon_1, beta2_t = 1 - t^beta_2_decay; a variable of rank >= 2
keeps row/column means r, c of g2 (v = r / mean(r) outer c), a vector a plain average v; the step is
alpha * u / max(1, rms(u) / clip_threshold) with u = g / sqrt(v). Lion: var -= lr * sign(b1 m + (1 - b1) g), then
m = b2 m + (1 - b2) g. usage: gen_keras_adafactor_lion.py > tests/programs/keras_optimizers_adafactor_lion.out
"""
import numpy as np

F = np.float32
GW = [[[0.5, -1.0, 2.0], [0.1, 0.0, -0.3]], [[-0.2, 0.4, 1.0], [1.5, -0.5, 0.2]], [[0.3, 0.3, -0.6], [0.0, 2.0, 1.0]]]
GB = [[0.2, -0.1, 0.05], [1.0, 0.5, -2.0], [-0.3, 0.0, 0.4]]
G3 = np.arange(12, dtype=F).reshape((2, 2, 3)) / F(10.0) - F(0.5)


def show(tag, vs):
    print(tag, [[round(float(x), 5) for x in np.asarray(v).reshape(-1)] for v in vs])


def rms(x):
    return np.sqrt(np.mean(np.square(x)))


class Adafactor:
    def __init__(self, lr=0.001, beta_2_decay=-0.8, eps1=1e-30, eps2=1e-3, clip=1.0, relative=True, schedule=None):
        self.lr, self.d, self.e1, self.e2, self.clip, self.rel, self.sched = lr, beta_2_decay, eps1, eps2, clip, relative, schedule
        self.t = 0
        self.state = {}

    def apply(self, pairs):
        lr_now = F(self.sched(self.t)) if self.sched else F(self.lr)
        for g, var, key in pairs:
            g = np.asarray(g, F)
            if key not in self.state:
                if var.ndim >= 2:
                    self.state[key] = [np.zeros(var.shape[:-1], F), np.zeros(var.shape[:-2] + var.shape[-1:], F), np.zeros(var.shape, F)]
                else:
                    self.state[key] = [None, None, np.zeros(var.shape, F)]
            r, c, v = self.state[key]
            step = F(self.t + 1)
            lr = lr_now
            if self.sched is None and self.rel:
                lr = min(lr, F(1) / np.sqrt(step))
            rho = min(lr, F(1) / np.sqrt(step))
            alpha = max(F(self.e2), rms(var)) * rho
            g2 = np.square(g) + F(self.e1)
            b2 = F(1) - np.power(step, F(self.d))
            if var.ndim >= 2:
                r = (b2 * r + (1 - b2) * np.mean(g2, axis=-1)).astype(F)
                c = (b2 * c + (1 - b2) * np.mean(g2, axis=-2)).astype(F)
                v = (np.expand_dims(r / np.mean(r, axis=-1, keepdims=True), -1) * np.expand_dims(c, -2)).astype(F)
            else:
                v = (b2 * v + (1 - b2) * g2).astype(F)
            self.state[key] = [r, c, v]
            u = g / np.sqrt(v)
            uh = u / max(F(1), rms(u) / F(self.clip))
            var -= (alpha * uh).astype(F)
        self.t += 1


class Lion:
    def __init__(self, lr=0.0001, b1=0.9, b2=0.99):
        self.lr, self.b1, self.b2 = F(lr), F(b1), F(b2)
        self.m = {}

    def apply(self, pairs):
        for g, var, key in pairs:
            g = np.asarray(g, F)
            m = self.m.get(key, np.zeros(var.shape, F))
            var -= self.lr * np.sign(m * self.b1 + g * (1 - self.b1))
            self.m[key] = (m * self.b2 + g * (1 - self.b2)).astype(F)


def run(opt, steps=3):
    w = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]], F)
    b = np.array([0.1, -0.2, 0.3], F)
    for s in range(steps):
        opt.apply([(GW[s], w, "w"), (GB[s], b, "b")])
        show(f"step {s + 1}", [w, b])


run(Adafactor())
print(['iteration:0', 'Adafactor/r/w:0', 'Adafactor/c/w:0', 'Adafactor/v/w:0', 'Adafactor/v/b:0'])
print("Adafactor -0.8 1e-30 True")
run(Adafactor(lr=0.5, clip=0.5, relative=False), 2)
run(Adafactor(lr=0.5), 2)
k = np.ones((2, 2, 3), F)
a3 = Adafactor(eps2=0.01, schedule=lambda t: F(0.8) * F(0.5) ** F(t))
for s in range(2):
    a3.apply([(G3 * F(s + 1), k, "k")])
    show(f"3-D step {s + 1}", [k])
print(['iteration:0', 'Adafactor/r/k:0', 'Adafactor/c/k:0', 'Adafactor/v/k:0'])
run(Lion(lr=0.1))
print(['iteration:0', 'Lion/m/w:0', 'Lion/m/b:0'])
print("Lion 0.0001 0.9 0.99")
run(Lion(lr=0.05, b1=0.5, b2=0.8), 2)
