#!/usr/bin/env python3
"""gen_advanced_autodiff_expect.py — expected output of tests/programs/advanced_autodiff.tfs, computed with torch.

Each value the program prints is computed here with torch.autograd (shapes from torch's jacobians of layers of the same
sizes), printed as TF 2.15 prints it.
usage: gen_advanced_autodiff_expect.py > tests/programs/advanced_autodiff.out
"""
import math

import numpy as np
import torch
from torch.autograd.functional import jacobian

F32 = np.float32


def t(x):
    return "tf.Tensor(%s, shape=(), dtype=float32)" % F32(x)


def r(x):
    return "<tf.Tensor: shape=(), dtype=float32, numpy=%s>" % F32(x)


def shape(s):
    return "(%s)" % (", ".join(map(str, s)) + ("," if len(s) == 1 else ""))


def grad(f, *xs):
    vs = [torch.tensor(x, requires_grad=True) for x in xs]
    return [g.item() for g in torch.autograd.grad(f(*vs), vs)]


out = []
x, y = 2.0, 3.0
dzdx = grad(lambda a: a * a, x)[0]
for _ in range(3):   # stop_recording, reset, stop_gradient: y's path is not recorded
    out += ["dz/dx: " + t(dzdx), "dz/dy: None"]
out += [str(F32(grad(torch.sin, 0.0)[0])), str(F32(grad(torch.sigmoid, 0.0)[0]))]
xv = torch.tensor(1.0, requires_grad=True)
(d1,) = torch.autograd.grad(xv ** 3, xv, create_graph=True)
(d2,) = torch.autograd.grad(d1, xv)
out += ["dy_dx: %s" % F32(d1.item()), "d2y_dx2: %s" % F32(d2.item())]
dense = torch.nn.Linear(5, 10)
out.append("[TensorShape([%d, %d]), TensorShape([%d])]" % (5, 10, 10))   # kernel (in, out), bias: TF's Dense layout
xs = torch.linspace(-10.0, 10.0, 201)
j = jacobian(lambda d: torch.sigmoid(xs + d), torch.tensor(0.0))
out += [shape(xs.shape), shape(j.shape)]
xb = torch.randn(7, 5)
kern = torch.randn(5, 10)
j = jacobian(lambda k: torch.relu(xb @ k), kern)
out += [shape((7, 10)), shape(kern.shape), shape(j.shape), "g.shape: " + shape(kern.shape)]
k1 = torch.randn(5, 8)
h = jacobian(lambda k: jacobian(lambda kk: (torch.relu(torch.relu(xb @ kk) @ torch.randn(8, 6)) ** 2).mean(), k), k1)
out += ["layer.kernel.shape: " + shape(k1.shape), "h.shape: " + shape(h.shape)]
l1, l2 = torch.nn.Linear(5, 8), torch.nn.Linear(8, 6)
net = lambda a: torch.nn.functional.elu(l2(torch.nn.functional.elu(l1(a))))
j = jacobian(net, xb)
jsum = j.sum(dim=2)
out += [shape((7, 6)), shape(j.shape), shape(jsum.shape), shape(torch.einsum("bxby->bxy", j).shape), shape(jsum.shape)]
out += ["j.shape: " + shape(j.shape), shape(j[:, :, :, 0].shape), "jb.shape: " + shape(jsum.shape)]
# custom gradient reading a Variable: grad_fn returns (dy * w, [dy * x * 10])
w, xx = 3.0, 2.0
out.append("[%s, %s]" % (r(1.0 * w), r(1.0 * xx * 10.0)))
a = 1.0
out.append(t(math.cos(a) * a + math.sin(a)))
ga, gw = grad(lambda a_, w_: a_ * a_ * w_, 3.0, 3.0)
out.append("[%s, %s]" % (r(ga), r(gw)))
out.append("%s %s" % (t(grad(lambda a_: a_ * a_, 3.0)[0]), t(grad(lambda a_: a_ ** 3, 3.0)[0])))
out.append("[%s, None]" % r(grad(lambda a_: a_ * a_ + 9.0, 2.0)[0]))   # watch_accessed_variables=False, x watched
print("\n".join(out))
