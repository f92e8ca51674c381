#!/usr/bin/env python3
"""graphdef_gather_nd_eval.py — the GraphDef of tf.gather_nd(batch_dims > 0) on shapes unknown while tracing computes the gather.

Runs tests/programs/graphdef_gather_nd_dyn.tfs with --dump-graphs (its functions f: batch_dims=2, int32 indices, and
g: batch_dims=1, int64 indices, both with None dims), evaluates each dumped GraphDef (TF's batch_gather_nd form: Shape,
StridedSlice, Prod, Range, meshgrid, Tile, ConcatV2, GatherNd, Reshape) with graphdef_rnn_eval's numpy interpreter of
TF's ops from the program's inputs, and compares the result with numpy's gather of each batch entry (exact).
usage: graphdef_gather_nd_eval.py TFS PROGRAM
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graphdef_rnn_eval import run  # noqa: E402
from graphdef_tfops import parse  # noqa: E402


def batch_gather(p, ix, bd):
    """numpy: out[b..., j...] = p[b...][ix[b..., j...]]"""
    out = np.empty(ix.shape[:-1] + p.shape[bd + ix.shape[-1]:], p.dtype)
    for b in np.ndindex(*p.shape[:bd]):
        for j in np.ndindex(*ix.shape[bd:-1]):
            out[b + j] = p[b][tuple(ix[b + j])]
    return out


def main():
    tfs, prog = sys.argv[1:3]
    q = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)   # the program's inputs
    i1 = np.array([[[[2], [0], [1]], [[1], [1], [3]], [[0], [0], [0]]],
                   [[[3], [2], [1]], [[0], [1], [2]], [[3], [3], [3]]]], np.int32)
    i2 = np.array([[[1, 4], [2, 0]], [[3, 3], [0, 1]], [[2, 2], [1, 1]]], np.int64)
    cases = {"f": ({"q": q, "i": i1}, batch_gather(q, i1, 2)),
             "g": ({"q": q.reshape(3, 8, 5), "i": i2}, batch_gather(q.reshape(3, 8, 5), i2, 1))}
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([tfs, "run", "--dump-graphs", d, prog], check=True, stdout=subprocess.DEVNULL)
        seen, bad = set(), 0
        for fn in sorted(os.listdir(d)):
            stem = fn.split("_")[0]
            if not fn.endswith(".pbtxt") or stem not in cases:
                continue
            feeds, want = cases[stem]
            got = run(parse(open(os.path.join(d, fn)).read()), feeds)[0]
            ok = got.shape == want.shape and np.array_equal(got, want)
            print(("ok   " if ok else "FAIL ") + fn)
            bad += not ok
            seen.add(stem)
    if seen != set(cases):
        print("FAIL: no GraphDef of", sorted(set(cases) - seen))
        bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
