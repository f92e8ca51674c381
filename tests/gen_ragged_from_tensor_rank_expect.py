#!/usr/bin/python3
# gen_ragged_from_tensor_rank_expect.py — writes tests/programs/ragged_from_tensor_rank.out with numpy, as TF 2.15's RaggedTensor.from_tensor(ragged_rank=k) builds it.
"""Reference for tests/programs/ragged_from_tensor_rank.tfs:

    /usr/bin/python3 tests/gen_ragged_from_tensor_rank_expect.py

TF 2.15's ragged_tensor.py from_tensor: for ragged_rank > 1 the tensor is reshaped to
[prod(shape[:ragged_rank])] + shape[ragged_rank:], converted with ragged_rank 1 (uniform rows, or rows cut by
padding/lengths), then each folded dimension k is restored with from_uniform_row_length(shape[k],
nrows=prod(shape[:k])): row_splits 0, d, 2d, ... and a static row length, so the static shape keeps every
dimension known; only rows cut by padding/lengths are None.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "ragged_from_tensor_rank.out")


def shape_text(dims):
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def main():
    L = []
    for shape, rr in [([2, 2, 2], 2), ([2, 3, 2, 2], 3), ([2, 3, 2, 2], 2), ([3, 2, 4], 1)]:
        splits = [list(range(0, int(np.prod(shape[:k + 1])) * shape[k + 1] + 1, shape[k + 1])) for k in range(rr)]
        flat = [int(np.prod(shape[:rr + 1]))] + shape[rr + 1:]
        L.append("%s %d %r %s" % (shape_text(shape), rr, splits, shape_text(flat)))
        L.append("True True")
    p = np.array([[[1, 0, 0], [2, 3, 0]], [[4, 5, 6], [0, 0, 0]]])
    rows = p.reshape(4, 3)
    lens = [max([i + 1 for i, v in enumerate(r) if v != 0], default=0) for r in rows]
    inner = [0] + np.cumsum(lens).tolist()
    nested = [[rows[2 * i + j][:lens[2 * i + j]].tolist() for j in range(2)] for i in range(2)]
    L.append("%s %r %r" % (shape_text([2, 2, None]), [[0, 2, 4], inner], nested))
    with open(OUT, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
