#!/usr/bin/python3
# gen_data_concat_composite_expect.py — writes tests/programs/data_concat_composite.out from a Python model of TF 2.15's concatenate over ragged and sparse specs.
"""Reference for tests/programs/data_concat_composite.tfs:

    /usr/bin/python3 tests/gen_data_concat_composite_expect.py

TF 2.15's concatenate_op.py maps most_specific_common_supertype over the two element specs: TensorSpec,
RaggedTensorSpec (same dtype, ragged_rank and row_splits_dtype) and SparseTensorSpec (same dtype) keep the
dimensions both shapes agree on (rank unknown when the ranks differ); any None raises TypeError
"Incompatible dataset elements".  sparse_batch's batches are dense_to_sparse_batch_dataset_op.cc's.
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_concat_composite.out")


def relax(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return [x if x == y else None for x, y in zip(a, b)]


def shape_text(s):
    return "TensorShape(None)" if s is None else "TensorShape([%s])" % ", ".join("None" if d is None else str(d) for d in s)


def ragged(shape, dtype, rr=1):
    return "RaggedTensorSpec(%s, tf.%s, %d, tf.int64)" % (shape_text(shape), dtype, rr)


def sparse(shape, dtype):
    return "SparseTensorSpec(%s, tf.%s)" % (shape_text(shape), dtype)


def tensor(shape, dtype):
    return "TensorSpec(shape=(%s), dtype=tf.%s, name=None)" % (
        ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else ""), dtype)


def sparse_batches(rows, size, width):
    out = []
    for b in range(0, len(rows), size):
        part = rows[b:b + size]
        w = width if width >= 0 else max(len(r) for r in part)
        out.append(([len(part), w], [r + [0] * (w - len(r)) for r in part]))
    return out


def main():
    L = []
    p = L.append
    p(ragged(relax([2, None], [1, None]), "int32"))
    p(repr([[[1], [2, 3]], [[4, 5, 6]]]))
    p("(%s, %s)" % (ragged(relax([1, None], [2, None]), "string"), tensor(relax([2], [1]), "float32")))
    p(repr([([[b"x"]], [1.0, 2.0]), ([[b"y", b"z"], []], [3.0])]))
    p(sparse(relax([None, 4], [None, None]), "int64"))
    rows = [[x] * x for x in range(3)]
    for shape, dense in sparse_batches(rows, 2, 4) + sparse_batches(rows, 1, -1):
        p("%r %r" % (shape, dense))
    for a, b in [(ragged([2, None], "int32"), tensor([1, 2], "int32")),
                 (ragged([2, None], "int32"), ragged([1, None, None], "int32", 2)),
                 (sparse([None, 4], "int64"), ragged([2, None], "int32"))]:
        p("TypeError: Incompatible dataset elements:\n  %s vs.   %s" % (a, b))
    with open(OUT, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
