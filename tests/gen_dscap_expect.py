#!/usr/bin/env python3
"""gen_dscap_expect.py — expected output of tests/programs/dscap_map_capture.tfs (and .eager.out), computed with numpy.

Each function's dataset pipeline is evaluated over numpy arrays with the call's argument values (what TF's
MapDataset/FilterDataset compute from their captured inputs), in float32 / int64 as the program's tensors, and
printed as TF 2.15 prints a scalar tensor; the GraphDef lines are TF's MapDataset form (input_dataset, then the
captured tensor 'x' as other_arguments; Targuments lists its dtype).
usage: gen_dscap_expect.py [--eager] > tests/programs/dscap_map_capture[.eager].out
(--eager: functions run eagerly, tf.config.run_functions_eagerly(True): no call traces)
gen_dscap_expect.py --host [--eager] > tests/programs/dscap_host[.eager].out (scan, take_while and group_by_window
evaluated as TF's ScanDataset / TakeWhileDataset / GroupByWindowDataset: full windows reduced as they fill, the rest at
the end by key order; rejection_resample's lines are its class-share checks, which hold for TF's sampling)
gen_dscap_expect.py --error-eager > tests/programs/dscap_error.eager.out (the map function reading np.mean(x) of an
eager x, as functions run eagerly)
"""
import sys

import numpy as np

F32, I64 = np.float32, np.int64


def t32(x):
    return "tf.Tensor(%s, shape=(), dtype=float32)" % F32(x)


def t64(x):
    return "tf.Tensor(%d, shape=(), dtype=int64)" % I64(x)


def total(x):
    return np.sum(np.arange(4).astype(F32) + F32(x), dtype=F32)


def loop(x, k):
    m = np.arange(6).astype(F32) * F32(x)
    return np.sum(m[m > F32(k)], dtype=F32)


def first_two(x, v):
    e = np.arange(3).astype(F32) + F32(x) + F32(v)
    return e[0] + e[1]


def batched(x):
    return np.sum(np.arange(5, dtype=I64) * I64(x))


def weighted(x):
    return np.sum(np.arange(4).astype(F32) * F32(x), dtype=F32)


def zipped(x, y):
    e = np.arange(3, dtype=I64)
    return np.sum((e + x) * (e * y))


if "--error-eager" in sys.argv[1:]:
    x = np.array([1.0, 3.0], F32)
    print(t32(np.sum(np.arange(3).astype(F32) + np.mean(x), dtype=F32)))
    sys.exit(0)

def running(x, n):
    out, st = [], I64(0)
    for e in np.arange(n, dtype=I64) * I64(x):
        out.append(st * I64(x))
        st = st + e
    return np.sum(np.array(out, I64))


def below(x):
    e = np.arange(10, dtype=I64)
    return np.sum(e[:np.argmin(e < x)] if (e >= x).any() else e)


def grouped(x):
    groups, wins = {}, []
    for e in range(7):
        k = e % x
        groups.setdefault(k, []).append(e)
        if len(groups[k]) == 2:
            wins.append(groups.pop(k))
    wins += [groups[k] for k in sorted(groups)]
    acc = I64(0)
    for w in wins:
        acc = acc * I64(3) + I64(sum(w) * 10 + len(w))
    return acc


def fold2(vals):
    acc = I64(0)
    for v in vals:
        acc = acc * I64(2) + I64(v)
    return acc


def nested(x):
    # flat_map: range(e) + x for e in 0..3; interleave (cycle 2, block 1) of [e*x, e*x] for e in 0..3;
    # group_by_window of 0..4 by parity, windows of 2 mapped y*x+k, full ones as they fill, the rest by key
    a = [y + x for e in range(4) for y in range(e)]
    b = []
    for pair in ((0, 1), (2, 3)):
        for _ in range(2):
            b += [pair[0] * x, pair[1] * x]
    groups, wins = {}, []
    for e in range(5):
        k = e % 2
        groups.setdefault(k, []).append(e)
        if len(groups[k]) == 2:
            wins.append((k, groups.pop(k)))
    wins += [(k, groups[k]) for k in sorted(groups)]
    c = [y * x + k for k, w in wins for y in w]
    return "(<tf.Tensor: shape=(), dtype=int64, numpy=%d>, <tf.Tensor: shape=(), dtype=int64, numpy=%d>, " \
           "<tf.Tensor: shape=(), dtype=int64, numpy=%d>)" % (fold2(a), fold2(b), fold2(c))


def cumulative(xs):
    c = np.cumsum(np.array(xs, F32), dtype=F32)
    return np.sum(c, dtype=F32)


if "--host" in sys.argv[1:]:
    print("\n".join([t64(running(2, 4)), t64(running(3, 5)), t64(below(3)), t64(below(6)), t64(grouped(2)),
                     t64(grouped(3)), nested(2), nested(5), t32(cumulative([1.0, 2.0, 3.0])), t32(cumulative([4.0, 5.0])),
                     "estimated initial: True", "given initial: True", "another dataset: True",
                     "tensor target: True", "another target: True",
                     "0 0 0" if "--eager" in sys.argv[1:] else "1 1 1"]))
    sys.exit(0)

lines = [t32(total(1.5)), t32(total(-2.0)), t32(loop(2.0, 3.0)), t32(loop(3.0, 5.0)),
         t32(first_two(1.0, 10.0)), t32(first_two(1.0, 20.0)), t64(batched(2)), t64(batched(3)),
         t32(weighted(1.0)), t32(weighted(0.5)), t64(zipped(1, 2)), t64(zipped(2, -1)),
         # one trace each: the values reach the datasets as inputs, not as trace-time constants
         "0 0" if "--eager" in sys.argv[1:] else "1 1",
         "MapDataset 2 x", "list {", "  type: DT_FLOAT", "}", ""]
print("\n".join(lines))
