#!/usr/bin/python3
# gen_reshape_zero_expect.py — writes tests/programs/reshape_zero_infer.out from TF 2.15's ReshapeOp rule for a -1 beside zero sizes.
"""Reference for tests/programs/reshape_zero_infer.tfs:

    /usr/bin/python3 tests/gen_reshape_zero_expect.py

tensorflow/core/kernels/reshape_op.h (ReshapeOp::Compute, ValidateSizes): the requested sizes' product leaves
the zeros out; with a -1 present, the input's dimensions are multiplied too, its zero dimensions left out
when the request has a zero; unless the input had such a zero dimension, that count must be a multiple of
the product ("... requires a multiple of P"); the -1 becomes count // product, and the shape's element count
must equal the input's ("... but the requested shape has N"). numpy refuses these (it cannot infer -1 for
a size-0 array), so the rule is written out here.
"""
import math
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "reshape_zero_infer.out")
CASES = [([0], [-1, 0]), ([0, 3], [-1, 0]), ([2, 0, 3], [0, -1]), ([0], [-1, 5]), ([0, 4], [2, -1, 0]),
         ([5], [-1, 0]), ([2, 3], [0, -1]), ([0], [0, 0])]


def reshape(src, sizes):
    product, has_zero, unknown = 1, False, -1
    for i, s in enumerate(sizes):
        if s == -1:
            unknown = i
        elif s == 0:
            has_zero = True
        else:
            product *= s
    shape = list(sizes)
    n = math.prod(src)
    if unknown >= 0:
        count, in_zero = 1, False
        for d in src:
            if d > 0 or not has_zero:
                count *= d
            else:
                in_zero = True
        if not in_zero and count % product:
            return "InvalidArgumentError: Input to reshape is a tensor with %d values, but the requested shape " \
                   "requires a multiple of %d" % (count, product)
        shape[unknown] = count // product
    if math.prod(shape) != n:
        return "InvalidArgumentError: Input to reshape is a tensor with %d values, but the requested shape has %d" % (
            n, math.prod(shape))
    return "(%s)" % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))


def main(eager):
    lines = []
    for src, sizes in CASES:
        for name in ("eager", "graph"):
            r = reshape(src, sizes)
            if name == "graph" and r.startswith("Invalid") and not eager:
                r += " (node Reshape in tf.function 'traced')"   # tfs names the failing node so
            lines.append("%s %s %s %s" % (name, src, sizes, r))
    lines.append(reshape([0, 3], [-1, 0]))
    with open(OUT.replace(".out", ".eager.out") if eager else OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(False)
    main(True)   # `tfs run --eager`: the function runs its ops eagerly, no graph node to name
