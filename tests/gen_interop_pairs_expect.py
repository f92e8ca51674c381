#!/usr/bin/env python3
"""gen_interop_pairs_expect.py — expected output of tests/programs/tf_graph_interop_pairs.tfs, computed with numpy.

The program's operands are small integers, so every product and sum is exact in float32 and float64: numpy's
gradients in float64 are the program's bits, whatever order a kernel sums in, and the graph's gradients equal the
eager ones (the last column).
usage: gen_interop_pairs_expect.py > tests/programs/tf_graph_interop_pairs.out
"""
import numpy as np


def pattern(shape, mod, shift):
    n = int(np.prod(shape))
    return ((np.arange(n) * 7 % mod) - shift).astype(np.float64).reshape(shape)


def shape_text(s):
    return "(%s)" % ", ".join(str(d) for d in s)


def run(batch, sizes):
    x = pattern([batch, sizes[0]], 5, 2)
    ws = [pattern([sizes[i], sizes[i + 1]], 3, 1) for i in range(len(sizes) - 1)]
    c = pattern([batch, sizes[-1]], 3, 1)
    hs, zs = [x], []
    h = x
    for i, w in enumerate(ws):
        z = h @ w
        zs.append(z)
        h = np.maximum(z, 0) if i + 1 < len(ws) else z
        hs.append(h)
    dh = c
    dws = [None] * len(ws)
    for i in reversed(range(len(ws))):
        dz = dh if i + 1 == len(ws) else dh * (zs[i] > 0)
        dws[i] = hs[i].T @ dz
        dh = dz @ ws[i].T
    for i, g in enumerate([dh] + dws):
        w = pattern(g.shape, 11, 5)
        print(batch, i, shape_text(g.shape), int(g.sum()), int((g * g).sum()), int((g * w).sum()), True)


run(8, [24, 32, 16, 4])
run(16, [48, 64, 40, 8])
run(32, [48, 64, 40, 8])
