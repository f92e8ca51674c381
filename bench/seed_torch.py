#!/usr/bin/env python3
"""seed_torch.py — the seed workloads in PyTorch eager and TorchScript (frozen), timed like bench/seed.tfs."""
import sys
import time

import torch

def timed(fn, number):
    fn()
    best = 1e30
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def power(x, n: int):
    r = x
    for _ in range(n - 1):
        r = torch.matmul(r, x)
    return r


def dense_stack(x, ws: list[torch.Tensor], bs: list[torch.Tensor]):
    for i in range(len(ws)):
        x = torch.relu(torch.matmul(x, ws[i]) + bs[i])
    return x


def mlp(x, w1, b1, w2, b2):
    return torch.matmul(torch.relu(torch.matmul(x, w1) + b1), w2) + b2


# The weighted workloads as modules, for torch.jit.freeze (weights become constants).
class DenseM(torch.nn.Module):
    def __init__(self, ws, bs):
        super().__init__()
        self.ws, self.bs = ws, bs

    def forward(self, x):
        for w, b in zip(self.ws, self.bs):
            x = torch.relu(torch.matmul(x, w) + b)
        return x


class MlpM(torch.nn.Module):
    def __init__(self, w1, b1, w2, b2):
        super().__init__()
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2

    def forward(self, x):
        return torch.matmul(torch.relu(torch.matmul(x, self.w1) + self.b1), self.w2) + self.b2


def frozen(m):
    return torch.jit.freeze(torch.jit.script(m.eval()))


def get_mse(y_true, y_pred):
    sq_diff = torch.pow(y_true - y_pred, 2)
    # integer mean truncates, as tf.reduce_mean does on int32
    return torch.div(torch.sum(sq_diff), sq_diff.numel(), rounding_mode="trunc")


def count_loop(n):
    i = torch.tensor(0)
    s = torch.tensor(0)
    while bool(i < n):
        s = s + i
        i = i + 1
    return s


def add_loop(c, b, n: int):
    for _ in range(n):
        c = c + b
    return c


def add10_chain(c, b):
    for _ in range(100):
        c = c + b
    return c


def scalar_add(a, b):
    return a + b


torch.manual_seed(1)
px = torch.randint(0, 3, (10, 10), dtype=torch.int32)
dx = torch.randn(20, 28, 28).reshape(20, 784)
ws = [torch.randn(784, 64) * 0.1] + [torch.randn(64, 64) * 0.1 for _ in range(99)]
bs = [torch.zeros(64) for _ in range(100)]
mx = torch.randn(60, 784)
mw1, mb1 = torch.randn(784, 128) * 0.05, torch.zeros(128)
mw2, mb2 = torch.randn(128, 10) * 0.1, torch.zeros(10)
ya = torch.tensor([1, 2, 3, 4, 5], dtype=torch.int32)
yb = torch.tensor([2, 2, 1, 4, 8], dtype=torch.int32)
s0, s1 = ya[0], ya[1]
ta, tb = torch.ones(10, 10), torch.full((10, 10), 0.5)

modes = sys.argv[1:] or ["eager"]
with torch.no_grad():
    for mode in modes:
        if mode == "graph":  # TorchScript: the peer of a traced tf.function
            fpower = torch.jit.script(power)
            fdense = torch.jit.script(dense_stack)
            fmlp = torch.jit.script(mlp)
            fmse = torch.jit.script(get_mse)
            fadd = torch.jit.script(scalar_add)
            floop = torch.jit.script(count_loop)
            fchain = torch.jit.script(add10_chain)
        else:
            fpower, fdense, fmse, fadd, floop, fmlp = power, dense_stack, get_mse, scalar_add, count_loop, mlp
            fchain = add10_chain
        # graph mode: a 4th column with frozen TorchScript (weights folded in as constants)
        fz_dense = fz_mlp = ""
        if mode == "graph":
            zd, zm = frozen(DenseM(ws, bs)), frozen(MlpM(mw1, mb1, mw2, mb2))
            fz_dense = " %s" % round(timed(lambda: zd(dx), 20), 2)
            fz_mlp = " %s" % round(timed(lambda: zm(mx), 200), 2)
        print("power", mode, round(timed(lambda: fpower(px, 100), 200), 2))
        print("dense", mode, "%s%s" % (round(timed(lambda: fdense(dx, ws, bs), 20), 2), fz_dense))
        print("mlp", mode, "%s%s" % (round(timed(lambda: fmlp(mx, mw1, mb1, mw2, mb2), 200), 2), fz_mlp))
        print("mse", mode, round(timed(lambda: fmse(ya, yb), 20000), 3))
        print("scalar_add", mode, round(timed(lambda: fadd(s0, s1), 20000), 3))
        print("add10_step_ns", mode, round(timed(lambda: fchain(ta, tb), 200) * 1000 / 100, 2))
        if mode == "eager":
            print("scalar_op_ns", mode, round(timed(lambda: add_loop(s0, s1, 1000), 200) * 1000 / 1000, 2))
        nloop = torch.tensor(10000)
        print("while_iter_ns", mode, round(timed(lambda: floop(nloop), 3 if mode == "eager" else 20) * 1000 / 10000, 2))
