#!/usr/bin/env python3
"""gen_fwdacc_expect.py — expected output of tests/programs/fwdacc_jvp.tfs, computed with torch.autograd.functional.

Each JVP the program prints is torch.autograd.functional.jvp (or hvp / vhp) of the same function at the same float32
values, rounded to 4 decimals and printed as numpy prints arrays.
usage: gen_fwdacc_expect.py > tests/programs/fwdacc_jvp.out
"""
import numpy as np
import torch
from torch.autograd.functional import hvp, jvp

F = torch.float32


def show(name, v):
    print(name, np.round(v.detach().numpy(), 4))


def T(x):
    return torch.tensor(x, dtype=F)


def rng(n, shape):
    return torch.arange(n, dtype=F).reshape(shape)


x, tx = T([0.5, -1.0, 2.0]), T([1.0, 2.0, 3.0])
show("elementwise", jvp(lambda z: torch.sin(z) * torch.exp(z) + z ** 2 - torch.tanh(z) / (1.0 + z * z), x, tx)[1])
print(True)

a = rng(6, (2, 3)) / 4.0 - 0.5
b = rng(6, (3, 2)) / 3.0 - 1.0
ta = torch.ones(2, 3) * 0.5
tb = rng(6, (3, 2)) - 2.0
show("matmul", jvp(lambda p, q: p @ q, (a, b), (ta, tb))[1])
show("matmul_t", jvp(lambda p, q: p.T @ q.T, (a, b), (ta, tb))[1])

ta2 = ta * T([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]])
show("reduce_sum", jvp(lambda p: (p * p).sum(0), a, ta2)[1])
show("reduce_mean", jvp(lambda p: torch.exp(p).mean(1), a, ta2)[1])
show("reduce_max", jvp(lambda p: p.max(1).values, a, ta2)[1])
show("logsumexp", jvp(lambda p: torch.logsumexp(p.reshape(-1), 0), a, ta2)[1])
show("softmax", jvp(lambda p: torch.softmax(p, -1), a, ta2)[1])

inp = rng(8, (2, 4)) / 8.0
w1 = rng(12, (4, 3)) / 10.0 - 0.6
b1 = T([0.1, -0.2, 0.3])
w2 = rng(6, (3, 2)) / 5.0 - 0.5
tw1, tb1, tw2 = torch.ones(4, 3) * 0.1, T([1.0, 0.0, -1.0]), rng(6, (3, 2)) / 6.0


def mlp(p, q, r):
    return torch.tanh(torch.relu(inp @ p + q)) @ r


show("mlp", jvp(mlp, (w1, b1, w2), (tw1, tb1, tw2))[1])
show("mlp_loss", jvp(lambda p, q, r: ((mlp(p, q, r) - 1.0) ** 2).mean(), (w1, b1, w2), (tw1, tb1, tw2))[1])

v = T([1.0, 2.0])
show("backward", 3.0 * v ** 2)   # the gradient of sum(v ** 3)
show("hvp", hvp(lambda z: (z ** 3).sum(), v, T([1.0, 0.0]))[1])

p, vp = T([0.3, -0.7, 1.1]), T([1.0, -2.0, 0.5])


def f(z):
    return (torch.sin(z) * z ** 2).sum() + torch.prod(z) + torch.exp(z[:2] * z[1:]).sum()


show("hvp_fwd_over_back", hvp(f, p, vp)[1])
show("hvp_back_over_fwd", hvp(f, p, vp)[1])   # the Hessian is symmetric: v^T H = H v

pr = T(1.1)
show("inner", jvp(lambda z: z ** 3.5, pr, T(1.0))[1])
show("outer", jvp(lambda z: jvp(lambda w: w ** 3.5, z, T(1.0), create_graph=True)[1], pr, T(1.0))[1])

print(None)
print(None)
print("tf.Tensor(0.0, shape=(), dtype=float32)")
print("tf.Tensor(0.0, shape=(), dtype=float32)")


def g(z):
    return (torch.sigmoid(z) * z).sum(0)


show("function", jvp(g, a, ta)[1])
show("function_again", jvp(g, a * 2.0, ta)[1])
