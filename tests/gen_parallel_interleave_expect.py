#!/usr/bin/python3
# gen_parallel_interleave_expect.py — writes tests/programs/data_parallel_interleave.out from Python and numpy (TF's Dataset.interleave order).
"""Reference for tests/programs/data_parallel_interleave.tfs:

    /usr/bin/python3 tests/gen_parallel_interleave_expect.py

TF's ParallelInterleaveDatasetV4 with deterministic order gives InterleaveDatasetOp's elements in its order:
a cycle of cycle_length open inputs, block_length elements from each in turn, an exhausted input replaced in
its slot by the next input element when the cycle reaches that slot.  interleave() below is that rule; the
values are computed with numpy as the map functions do (float32).  An error of an input ends the iteration
at that input's element (the elements before it come first); the message texts are tfs's forms of TF's
(Reshape's "(node Reshape in tf.function 'shaped')", TFRecordDataset's missing file).  Worker-thread runs are
only checked to happen (> 0) for the inputs tfs pulls on workers, and to be 0 for the others.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_data_expect  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_parallel_interleave.out")


class Failed(Exception):
    pass


def interleave(inputs, fn, cycle_length, block_length):
    """(elements, error): fn(x) gives an input's elements as a list, or raises Failed; an element given as a
    Failed instance stands for an error raised when that element is reached.  The order is gen_data_expect's."""
    got = []
    try:
        gen_data_expect.interleave(inputs, fn, cycle_length, block_length, out=got)
    except Failed as err:
        return got, str(err)
    return got, None


def heavy(x):
    v = np.float32(x) * np.float32(0.5) + np.arange(16, dtype=np.float32) * np.float32(0.25)
    m = v.reshape(4, 4)
    return (m @ m.T).sum(dtype=np.float32)


def main():
    lines = []
    out = lines.append
    for cl, bl in [(1, 1), (2, 1), (3, 2), (4, 3), (8, 1), (2, 5)]:
        for npc in ["1", "2", "-1"]:
            got, _ = interleave(range(1, 8), lambda x: [y * 10 + x for y in range(x)], cl, bl)
            out("%d %d %s %s" % (cl, bl, npc, got))
    out("range+map inputs ran on worker threads: True")
    got, _ = interleave(range(10), lambda x: ["%.2f" % heavy(x)], 4, 1)
    out(str(sorted(got, key=float)))   # deterministic=False: a multiset
    out("from_tensors+map inputs ran on worker threads: True")
    got, _ = interleave(range(5), lambda x: [[x, x * x]], 3, 1)
    out(str(got))
    files = [["f%d-r%d" % (f, r) for r in range(3 + 2 * f)] for f in range(5)]
    for cl, bl in [(2, 1), (3, 2), (5, 4)]:
        got, _ = interleave(files, lambda f: f, cl, bl)
        out("%d %d True %s" % (cl, bl, " ".join(got)))
    got, _ = interleave(files, lambda f: f[1:3], 2, 1)
    out(" ".join(got))
    reshape = ("Input to reshape is a tensor with %d values, but the requested shape has 4 "
               "(node Reshape in tf.function 'shaped')")
    for npc in ["None", "2"]:
        got, err = interleave([4, 4, 6, 4], lambda x: [Failed(reshape % x) if x != 4 else int(np.arange(4).sum())], 2, 1)
        out("%s after %s InvalidArgumentError: %s" % (npc, got, err))
    missing = "tf.data.TFRecordDataset: OUT/missing.tfrecord; No such file or directory"
    for npc in ["None", "-1"]:
        got, err = interleave([files[0], [Failed(missing)], files[1]], lambda f: f, 3, 1)
        out("%s after %s NotFoundError: %s" % (npc, got, err))

    def opener(x):
        if x == 3:
            raise Failed("input 3 is bad")
        return list(range(x))

    for npc in ["None", "2"]:
        got, err = interleave(range(1, 6), opener, 2, 1)
        out("%s after %s ValueError: %s" % (npc, got, err))
    got, _ = interleave(files, lambda f: f, 3, 1)
    out("stopped at 4 %s" % got[4])
    got, _ = interleave(range(1, 8), lambda x: [y + 100 for y in range(x)], 3, 1)
    out("first %d" % got[0])
    out(str(interleave(range(1, 4), lambda x: [y * 3 for y in range(x)], 2, 1)[0]))
    out(str(interleave(range(1, 4), lambda x: [y for y in range(x) if y % 2 == 0], 2, 1)[0]))
    out(str(interleave(range(1, 4), lambda x: [y + 1 for y in range(x)], 2, 1)[0]))
    out("main-thread inputs ran on worker threads: 0")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
