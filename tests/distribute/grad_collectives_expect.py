#!/usr/bin/env python3
"""grad_collectives_expect.py — checks the per-rank gradients of grad_collectives.out against numpy (TF's collective gradients, 2 ranks).

usage: /usr/bin/python3 tests/distribute/grad_collectives_expect.py tests/distribute/grad_collectives.out
"""
import re
import sys

import numpy as np

X = np.arange(12, dtype=np.float64).reshape(4, 3) / 10 - 0.3
w = np.array([0.5, -1.0, 2.0])
N = 2
s, g, pos = (X * w).sum(0), X * w, np.arange(1, 5)[:, None]
want = {}
for r in range(N):
    x = X[2 * r:2 * r + 2]
    want[(r, "sum")] = N * 2 * s * x.sum(0)                        # all-sum of dy, times d(colsum)/dw
    want[(r, "mean")] = np.cos(s) * N * x.sum(0)                   # all-mean of dy
    want[(r, "gather")] = (N * 2 * g * pos * X)[2 * r:2 * r + 2].sum(0)   # this rank's rows of the all-summed dy
    want[(r, "bcast")] = N * 6 * w * 3 if r == 0 else 0 * w        # all-summed on the root, zero elsewhere
seen = 0
for line in open(sys.argv[1]):
    m = re.match(r"rank (\d) (eager|graph) (\w+) \[(.*)\]", line)
    if m:
        got = np.array([float(v) for v in m.group(4).split(",")])
        if not np.allclose(got, want[(int(m.group(1)), m.group(3))], rtol=1e-5, atol=1e-6):
            sys.exit("mismatch: %s (want %s)" % (line.strip(), want[(int(m.group(1)), m.group(3))]))
        seen += 1
if seen != 16:
    sys.exit("expected 16 per-rank gradient lines, saw %d" % seen)
print("grad_collectives.out: 16 per-rank gradients agree with numpy")
