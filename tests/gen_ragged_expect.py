#!/usr/bin/python3
# gen_ragged_expect.py — writes tests/programs/ragged_*.out from a list model of TF 2.15's tf.RaggedTensor.
"""Independent reference for tests/programs/ragged_basic.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_ragged_expect.py

A ragged value is modelled as nested Python lists plus its ragged_rank; the results are computed with list code
and numpy (float32 where TF computes in float32). Printing follows TF's RaggedTensor.__repr__
(tensorflow/python/ops/ragged/ragged_tensor.py): "<tf.RaggedTensor %s>" of RaggedTensor.numpy() -- rows as numpy
arrays, an object array when their lengths differ -- laid out by numpy's own array2string under
np.printoptions(formatter={"all": _formatter}), _formatter being TF's (array2string with ", " separators, repr of
the list for an empty array, str of a scalar). Error messages follow TF's check_ops / row_partition.py.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
I32_MIN = -2 ** 31


def formatter(x):
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size != 0 else repr(x.tolist())
    return str(x)


def to_numpy(rows, rr, dtype):
    # TF's RaggedTensor.numpy(): rows of the values (recursively), stacked when of one shape
    if rr == 0:
        return np.array(rows, dtype=dtype)
    arrs = [to_numpy(r, rr - 1, dtype) if rr > 1 else np.array(r, dtype=dtype) for r in rows]
    if not arrs:
        return np.zeros((0, 0), dtype=dtype)
    if any(len(a) != len(arrs[0]) for a in arrs):
        out = np.empty(len(arrs), dtype=object)
        for i, a in enumerate(arrs):
            out[i] = a
        return out
    return np.array(arrs)


def R(rows, rr=None, dtype=np.int32):
    if rr is None:
        rr = depth(rows) - 1
    with np.printoptions(formatter={"all": formatter}):
        return "<tf.RaggedTensor %s>" % formatter(to_numpy(rows, rr, dtype))


def depth(x):
    return 1 + max([depth(e) for e in x] + [0]) if isinstance(x, list) else 0


def f32(v):
    return float(np.float32(v))


def mean32(xs):
    s = np.float32(0)
    for x in xs:
        s = np.float32(s + np.float32(x))
    return float(np.float32(s / np.float32(len(xs)))) if xs else float("nan")


def cols(rows):
    w = max(len(r) for r in rows)
    return [[r[j] for r in rows if len(r) > j] for j in range(w)]


def m(rows, fn):
    return [[fn(x) for x in r] for r in rows]


def nonneg(msg, v):
    shown = [str(e) for e in v[:3]] + (["..."] if len(v) > 3 else [])
    return ("InvalidArgumentError: %s.  \nCondition x >= 0 did not hold element-wise:\nx (shape=(%d,) dtype=int64) = "
            "\n%s" % (msg, len(v), shown))


def main():
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    rt = [[1, 2], [3], [], [4, 5, 6]]
    flat = [x for r in rt for x in r]
    splits = [0, 2, 3, 3, 6]
    p(R(rt))
    p("(4, None)", "int32", 1, "int64")
    p(flat, splits, flat, 1)
    p([len(r) for r in rt], [i for i, r in enumerate(rt) for _ in r], 4, [4, 3])
    p(rt)
    p([r + [0] * (3 - len(r)) for r in rt], [(r[:2] + [-1] * 2)[:2] for r in rt[:3]])
    p(True, False)
    p(rt[0], R(rt[1:]), R([r[:2] for r in rt]), rt[3][1], rt[-1], R(rt[::2]))
    p(R(m(rt, lambda x: x + 1)), R([[x * x for x in r] for r in rt]), R(m(rt, lambda x: 2 * x)),
      R([[x - 10 * (i + 1) for x in r] for i, r in enumerate(rt)]))
    p(R(m(rt, lambda x: x > 2), dtype=bool), R(m(rt, lambda x: -x)), R(rt), R(m(rt, lambda x: max(x, 3))))
    p([sum(r) for r in rt], [sum(c) for c in cols(rt)], sum(flat))
    p([max(r) if r else I32_MIN for r in rt], [min(c) for c in cols(rt)], [max(r) if r else I32_MIN for r in rt])
    f = [[1.5, 2.0], [0.1], [-3.25, 4.0, 1e-05]]
    p(R(f, dtype=np.float32), "float32")
    p([mean32(r) for r in f], [mean32(c) for c in cols(f)], sum(flat) / len(flat),
      [sum(r) / len(r) if r else float("nan") for r in rt])
    p(R([[np.float32(x) * np.float32(x) for x in r] for r in f], dtype=np.float32))
    p(R(rt + rt[:2]))
    p(R([r + [10 * x for x in r] for r in rt]))
    p([rt[:2], rt[2:]])
    p([[r, [10 * x for x in r]] for r in rt])
    p(R([list(range(n)) for n in [3, 1, 2]]), R([list(range(a, b, 2)) for a, b in [(0, 4), (5, 8)]]))
    ex = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    for _ in range(4):
        p(R(ex))
    p(R([[1], [2, 3], []]))
    p(R([[1], [2, 3, 0]]))
    n = [[[1, 2], []], [[3, 4, 5]]]
    p(R(n), "(2, None, None)", 2, [[0, 2, 3], [0, 2, 2, 5]])
    p(n, [[[1, 2, 0], [0, 0, 0]], [[3, 4, 5], [0, 0, 0]]], [2, 2, 3])
    c = [[[1, 2], [3, 4]], [[5, 6]]]
    p(R(c, rr=1), "(2, None, 2)", 1, [[1, 2], [3, 4], [5, 6]])
    p(R([[1, 2], [3, 4]]), R([[b"a", b"bc"], [b"d"]], dtype=object))
    p(R([[True], [False, True]], dtype=bool), "(2, None)")
    p(R([list(range(k)) for k in [12, 3, 25]]))
    p(R([[x for x in r if x > 2] for r in rt]), R([rt[0], rt[2]]))
    d = [[1, 2], [3, 4], [5, 6]]
    p(R([[x for x in r if x > 2] for r in rt]), [d[0], d[2]], [x for r in d for x in r if x > 2], [[r[1]] for r in d],
      [[1, 2], [3, 4]])
    L.append("InvalidArgumentError: Arguments to from_row_splits do not form a valid RaggedTensor:zero\n"
             "Condition x == y did not hold.\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:\n[0]")
    L.append(nonneg("Arguments to from_row_splits do not form a valid RaggedTensor:monotonic", [3, -2]))
    L.append("ValueError: row_splits tensor may not be empty.")
    L.append(nonneg("Arguments to from_row_lengths do not form a valid RowPartition", [2, -1]))
    L.append("ValueError: all scalar values must have the same nesting depth")
    L.append("ValueError: RaggedTensor constructor is private; please use one of the factory methods instead "
             "(e.g., RaggedTensor.from_row_lengths())")
    L.append("ValueError: Specify argument `lengths` or `padding`, but not both.")
    L.append("ValueError: Shapes (3,) and (2,) are incompatible")
    L.append("ValueError: mask cannot be scalar.")
    with open(os.path.join(HERE, "programs", "ragged_basic.out"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def strings():
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    S = lambda rows: R(rows, dtype=object)
    x = [s.encode().split() for s in ["a b  c", "", "d"]]
    p(S(x), "(3, None)", "string")
    p(S([s.split(b",") for s in [b"a,b,,c", b"x"]]), S([b"a b c d".split(None, 2)]))
    p(S([[s.split(b",") if s else [b""] for s in row] for row in [[b"a,b", b"c"], [b"", b"d,e,f"]]]))
    p(S([[s[i:i + 1] for i in range(len(s))] for s in [b"ab", b"c", b""]]))
    p(S([[c.encode() for c in s] for s in ["hé", "!"]]), R([[ord(c) for c in s] for s in ["hé", "!"]]))
    p([b"+".join(r) for r in x], b"".join(b for r in x for b in r))
    p(S([[b + b"-" + b for b in r] for r in x]), S([[b.upper() for b in r] for r in x]), R(m(x, len)))
    p(b"one scalar".split())
    with open(os.path.join(HERE, "programs", "ragged_strings.out"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def function():
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    x, splits = [1.0, 2.0, 3.0, 4.0, 5.0], [0, 2, 2, 5]
    rows = [x[splits[i]:splits[i + 1]] for i in range(3)]
    doubled = [[v * 2.0 + 1.0 for v in r] for r in rows]
    p([sum(r, 0.0) for r in rows])
    p([max(c) for c in cols(doubled)])
    p([r + [-1.0] * (3 - len(r)) for r in rows])
    p(sum(x) / len(x))
    p([i for i, r in enumerate(rows) for _ in r])
    p([v for r in doubled for v in r])
    rows = [[7], [8, 9], []]
    p([(r + [0, 0])[:2] for r in rows] + [[0, 0]])
    p([min(r) if r else 2 ** 31 - 1 for r in rows])
    for rr in ([[1, 2], [3], []], [[5], [6, 7, 8]]):
        p([[sum(r) for r in rr], sum(v * v for r in rr for v in r)])
    rt = [[1, 2], [3], [], [4, 5, 6]]
    for r in rt:
        p(r)
    p([sum(r) for r in rt])
    with open(os.path.join(HERE, "programs", "ragged_function.out"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def reduce_rows(fn, group):
    # rows of varying lengths reduced elementwise, aligned at their start (TF's ragged segment reductions)
    return [fn(c) for c in cols(group)] if any(group) else []


def reduce_ax(fn, rt, axis):
    # rt a nested list of ragged_rank 2 ([B, (r), (c)]); axis 0, 1 or 2
    if axis == 0:
        return [reduce_rows(fn, g) for g in cols(rt)] if any(rt) else []
    if axis == 1:
        return [reduce_rows(fn, r) for r in rt]
    return [[fn(c) for c in r] for r in rt]


I32_LOWEST = -2 ** 31


def rmax(xs):
    return max(xs) if xs else I32_LOWEST


def rmin(xs):
    return min(xs) if xs else 2 ** 31 - 1


def composite(eager):
    # eager: `tfs run --eager` (tf.config.run_functions_eagerly(True)): no traces, no signature checks
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    shape = lambda dims: "TensorShape([" + ", ".join("None" if d is None else str(d) for d in dims) + "])"
    spec = lambda dims, dt, rr: "RaggedTensorSpec(%s, tf.%s, %d, tf.int64)" % (shape(dims), dt, rr)
    calls = [[[1, 2], [3], []], [[4], [5, 6, 7], [8]], [[9], [10, 11]]]
    for c in calls:
        p(R(m(c, lambda v: v + 1)))
    if eager:
        p(0, "[%s]" % ", ".join(shape([len(c), None]) for c in calls))
    else:
        p(2, "[%s, %s]" % (shape([3, None]), shape([2, None])))   # one trace per RaggedTensorSpec: [3, None], [2, None]
    x, lens = [1.0, 2.0, 3.0, 4.0], [3, 0, 1]
    splits = [0] + list(np.cumsum(lens))
    rows = [x[splits[i]:splits[i + 1]] for i in range(3)]
    p(R(rows, dtype=np.float32), sum(x))
    p([int(v) for v in splits], "(3, None)")
    for r in ([[1.0, 2.0], [3.0], [5.0, 7.0, 9.0]], [[4.0], [6.0, 8.0]]):
        p([mean32(row) for row in r], R(m(r, lambda v: v * 2.0), dtype=np.float32))
    p(0 if eager else 1)
    sig = spec([None, None], "float32", 1)
    p(sig)
    p(spec([2, None, None], "int32", 2))
    if eager:
        p(R([[1, 2], [3]]))
    else:
        p("TypeError: Binding inputs to tf.function failed due to `Can not cast %s to %s`. Received args: "
          "(%s,) and kwargs: {} for signature: (rt: %s)." % (spec([2, None], "int32", 1), sig, R([[1, 2], [3]]), sig))
    p(R(m([[1], [2, 3, 4]], lambda v: v + 1)))

    def dyn(rows, rr, inner=()):
        lengths, level = [len(rows)], rows
        for _ in range(rr):
            lengths.append(tuple(len(r) for r in level))
            level = [e for r in level for e in r]
        return "<DynamicRaggedShape lengths=[%s] num_row_partitions=%d>" % (
            ", ".join(str(v) for v in lengths + list(inner)), rr)
    p(dyn([[1, 2], [3], []], 1))
    p(2, 1, "<dtype: 'int32'>", 3)
    p(dyn([[[1, 2], [3]], [[4]]], 2))
    p(dyn([[[1, 2]], [[3, 4], [5, 6]]], 1, [2]))
    p("ValueError: Index 1 is not uniform")
    r = [[1, 2], [3], [4, 5, 6]]
    # in a graph the row lengths are not static
    p(dyn(r, 1) if eager else "<DynamicRaggedShape lengths=[3, None] num_row_partitions=1>")
    p([len(r), [len(r), max(len(x) for x in r)]])

    r2 = [[[1, 2], [3]], [], [[4], [5, 6, 7], []]]
    for axis in (0, 1, 2, -1):
        a = axis % 3
        p(axis, reduce_ax(sum, r2, a), reduce_ax(rmax, r2, a))
    p(reduce_ax(mean32, [[[float(v) for v in c] for c in r] for r in r2], 1))
    p([sum(sum(c) for c in r) for r in r2], [rmin(c) for c in cols(reduce_ax(rmin, r2, 1))])
    p([[v] for v in reduce_ax(sum, r2, 1)], [[[v] for v in r] for r in reduce_ax(sum, r2, 2)])
    r1 = [[1, 2], [3], []]
    p([[sum(x)] for x in r1], [[max(c) for c in cols(r1)]], [[sum(sum(x) for x in r1)]])
    p(reduce_ax(sum, r2, 0), [[v] for v in reduce_ax(sum, r2, 1)])
    # a ragged argument in a list (one trace), gradients through a ragged argument and a ragged result
    pairs = [([[1.0, 2.0], [3.0]], 2.0), ([[4.0], [5.0, 6.0]], 3.0)]
    p(*[[sum(r) * sc for r in rows] for rows, sc in pairs], 0 if eager else 1)
    rows = [[1.0, 2.0], [3.0]]
    p(sum(map(sum, rows)) * 2.0, sum(map(sum, rows)))             # d/dv sum(rt * v) = sum(rt)
    xs, w = [1.0, 2.0, 3.0], [1.0, 10.0, 100.0]
    p(R([[v * v for v in xs[:2]], [xs[2] ** 2]], dtype=np.float32), 2, [2 * a * b for a, b in zip(xs, w)])
    fs = spec([2, None], "float32", 1)
    L.extend(["Input Parameters:", "  rt (POSITIONAL_OR_KEYWORD): " + fs, "Output Type:",
              "  Dict[['r', %s], ['n', TensorSpec(shape=(), dtype=tf.int64, name=None)]]" % fs, "Captures:", "  None"])
    with open(os.path.join(HERE, "programs", "ragged_composite%s.out" % (".eager" if eager else "")), "w") as fh:
        fh.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
    strings()
    function()
    composite(False)
    composite(True)
