#!/usr/bin/python3
# gen_parallel_map_expect.py — writes tests/programs/data_parallel_map.out from numpy (TF's tf.data.Dataset.map semantics).
"""Reference for tests/programs/data_parallel_map.tfs:

    /usr/bin/python3 tests/gen_parallel_map_expect.py

A parallel map gives the sequential map's elements in input order (TF's ParallelMapDataset with
deterministic order; tfs keeps the order with deterministic=False too).  Values are computed with
numpy in float32 as the map functions do; an element's error appears at that element and iteration
goes on (TF's iterator after a map error); the error text is tfs's form of TF's Reshape message,
"(node Reshape in tf.function 'shaped')" naming the op as TF's graph errors do.  A batch of 4
runs jobs 1..3 on worker threads, so 20 elements make 15 worker runs; a function that must stay on
the main thread (a Variable, a py_function) makes none; a string map of 2 elements with 2 calls runs
one of them on a worker.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_parallel_map.out")


def heavy(x):
    v = np.float32(x) * np.float32(0.5) + np.arange(16, dtype=np.float32) * np.float32(0.25)
    m = v.reshape(4, 4)
    return (m @ m.T).sum(dtype=np.float32), v.max()


def main():
    lines = []
    out = lines.append
    n = 20
    out("AUTOTUNE: same values as the sequential map: True %d" % n)
    out("runs on worker threads: %d" % (n // 4 * 3))
    out("4 calls: same values: True")
    for x in range(n):
        a, b = heavy(x)
        out("%.2f %.2f" % (a, b))
    for a, b in zip(np.arange(7.0), np.arange(7) * 3):
        out("%s %s" % (a + b, a * a))
    def collatz(n):
        i = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            i += 1
        return i

    out("collatz %s" % [collatz(n) for n in range(1, 13)])
    for npc in ["None", "3"]:
        for k in range(6):
            x = 3 + k
            if k == 5:
                out("%s %d end" % (npc, k))
            elif x == 4:
                out("%s %d %s" % (npc, k, np.arange(4).reshape(2, 2).tolist()))
            else:
                out("%s %d InvalidArgumentError: Input to reshape is a tensor with %d values, but the requested shape "
                    "has 4 (node Reshape in tf.function 'shaped')" % (npc, k, x))
    out("after %s ValueError: input 3 is bad" % [i * 10 for i in range(3)])
    out("stopped at 5 %.2f" % heavy(5)[0])
    out("first %.2f" % heavy(0)[0])
    out("sum of squares %d" % sum(i * i for i in range(10)))
    out(str([float(np.float32(i) * np.float32(2.0)) for i in range(4)]))
    out(str([float(i + 1) for i in range(4)]))
    out("runs on worker threads: 0")
    out(str([s + "!" for s in ["a", "b"]]))
    out("string map runs on worker threads: 1")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
