#!/usr/bin/python3
# gen_data_resample_expect.py — writes tests/programs/data_resample.out: a numpy model of TF 2.15's rejection_resample (its class shares checked by simulation) and of DenseToSparseBatchDataset.
"""Reference for tests/programs/data_resample.tfs:

    /usr/bin/python3 tests/gen_data_resample_expect.py

rejection_resample as TF 2.15's dataset_ops.py builds it: the initial distribution given or estimated (class
counts smoothed by 10, re-estimated every 32 elements), acceptance (r - min r) / (max r - min r) for
r = target / initial, and a mix with the original stream with probability min r (sample_from_datasets stopping
at the first exhausted input).  The program's random numbers are tfs's own, so the model checks with numpy's
generator that the statistic the program prints (each class share within 0.04 of its target over at least 500
elements) holds for many seeds; the deterministic cases (min r = 1: the input mapped; min r = 0: only the
filter) are computed exactly.  sparse_batch follows dense_to_sparse_batch_dataset_op.cc: every entry of each
element, row-major, with the batch index in front; -1 dimensions take the batch's largest.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_data_expect  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_resample.out")
TINY = np.finfo(np.float32).tiny


def accept_and_mix(initial, target):
    r = target / (initial + TINY)
    return (r - r.min()) / (r.max() - r.min()), r.min()


def resample(classes, target, initial, rng):
    target = np.asarray(target, np.float32)
    n = len(target)
    if initial is None:
        seen = np.full(n, 10, np.int64)
        dists = []
        for i in range(0, len(classes), 32):
            seen = seen + np.bincount(classes[i:i + 32], minlength=n)
            dists += [(seen / seen.sum()).astype(np.float32)] * 32
    else:
        dists = [np.asarray(initial, np.float32)] * len(classes)
    filtered = []
    for c, d in zip(classes, dists):
        a, _ = accept_and_mix(d, target)
        if rng.uniform() < a[c]:
            filtered.append(c)
    probs = [accept_and_mix(d, target)[1] for d in dists]
    out, i, j, k = [], 0, 0, 0
    while True:
        p = probs[k % len(probs)]
        k += 1
        if rng.uniform() < p:
            if i == len(classes):
                break
            out.append(classes[i])
            i += 1
        else:
            if j == len(filtered):
                break
            out.append(filtered[j])
            j += 1
    return np.bincount(out, minlength=n).tolist()


def close(counts, target):
    total = sum(counts)
    return total >= 500 and max(abs(counts[i] / total - target[i]) for i in range(len(target))) < 0.04


def sparse_batch(rows, size, row):
    out = []
    for b in range(0, len(rows), size):
        part = [np.asarray(r) for r in rows[b:b + size]]
        dense = [max(max(p.shape[j] for p in part), 0) if row[j] < 0 else row[j] for j in range(len(row))]
        idx, vals = [], []
        for i, p in enumerate(part):
            for pos in np.ndindex(*p.shape):
                idx.append([i] + list(pos))
                vals.append(p[pos].item() if not isinstance(p[pos], bytes) else p[pos])
        out.append((idx, vals, [len(part)] + dense))
    return out


def main():
    target = [0.5, 0.2, 0.2, 0.1]
    classes = np.arange(2000) % 4
    for initial in (None, [0.25] * 4):
        for seed in range(20):
            assert close(resample(classes, target, initial, np.random.default_rng(seed)), target), (initial, seed)
    L = []
    p = L.append
    s32, s64 = "TensorSpec(shape=(), dtype=tf.int32, name=None)", "TensorSpec(shape=(), dtype=tf.int64, name=None)"
    p("spec (%s, %s)" % (s32, s64))
    p("estimated initial: True")
    p("given initial: True")
    p("tuple (%s, (%s, %s))" % (s32, s64, s64))
    # min(target / initial) = 1: every element, mapped to (class, element)
    p("same dist " + repr([(x % 2, (x % 2, x * 10)) for x in range(8)]))
    # min r = 0: the filter alone, accepting class 0 always and the others never
    a, m = accept_and_mix(np.full(4, 0.25, np.float32), np.array([1, 0, 0, 0], np.float32))
    assert m == 0 and a.tolist() == [1, 0, 0, 0]
    p("only class 0 " + repr(np.bincount(classes[classes == 0], minlength=4).tolist()))
    p("SparseTensorSpec(TensorShape([None, 6]), tf.string)")
    words = [s.encode().split() for s in ["a b c", "a b", "a b c d"]]
    for idx, vals, shape in sparse_batch([np.array(w, dtype=object) for w in words], 2, [6]):
        p("%r %r %r" % (idx, vals, shape))
    grid = [np.arange(k * 2).reshape(k, 2) for k in range(1, 4)]
    for idx, vals, shape in sparse_batch(grid, 2, [-1, 2]):
        p("%r %r %r" % (idx, vals, shape))
    p("SparseTensorSpec(TensorShape([None, None, 2]), tf.int64)")
    p("DataLossError: Input element had shape ([3]) that is larger than the row shape ([2]).")
    p("TypeError: `dense_to_sparse_batch` requires an input dataset whose elements have a single component, but "
      "the given dataset has the following component types: (tf.int64, tf.int64).")
    gen_data_expect.write_out(OUT, L)


if __name__ == "__main__":
    main()
