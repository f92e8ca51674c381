#!/usr/bin/python3
# gen_data_expect.py — writes tests/programs/data_more.out and data_more_errors.* from a pure-Python model of TF 2.15's tf.data transformations.
"""Independent reference for tests/programs/data_more.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_data_expect.py

Each transformation is modelled on plain lists, as TF 2.15 defines it
(tensorflow/python/data/ops/{padded_batch,window,interleave,scan,take_while,unique}_op.py and the
kernels they call): padded_batch pads every component to the batch's longest (or to the given shape)
with the padding value; window i starts at element i*shift and takes `size` elements `stride` apart;
interleave is InterleaveDatasetOp's cycle (block_length elements from each open input, an exhausted
slot refilled in place); scan threads the state.  The models are first checked against the examples
of TF's docstrings, then print what the program prints.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "programs", "data_more.out")


def write_out(path, lines):
    """Writes one expected-output file: the printed lines, each ended by a newline."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def spec(shape, dtype):
    if shape is None:
        s = "<unknown>"
    else:
        s = "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    return "TensorSpec(shape=%s, dtype=tf.%s, name=None)" % (s, dtype)


def dspec(inner):
    return "DatasetSpec(%s, TensorShape([]))" % inner


def dims(x):
    d = []
    while isinstance(x, list):
        d.append(len(x))
        x = x[0] if x else None
    return d


def pad(x, shape, value):
    if not shape:
        return x
    return [pad(e, shape[1:], value) for e in x] + [pad_full(shape[1:], value)] * (shape[0] - len(x))


def pad_full(shape, value):
    return value if not shape else [pad_full(shape[1:], value) for _ in range(shape[0])]


def maxdims(col, padded):
    rank = len(dims(col[0])) if padded is None else len(padded)
    out = []
    for k in range(rank):
        big = max(shape_of(c)[k] for c in col)
        want = None if padded is None else padded[k]
        out.append(big if want is None else want)
    return out


def shape_of(x):
    # the full shape of a (possibly ragged in the model) nested list: the largest length at each depth
    if not isinstance(x, list):
        return []
    subs = [shape_of(e) for e in x]
    inner = [max(s[k] for s in subs) for k in range(len(subs[0]))] if subs and subs[0] else []
    return [len(x)] + inner


def padded_batch(elems, n, padded_shapes=None, values=None, drop=False, tuple_elems=False):
    out = []
    for i in range(0, len(elems), n):
        rows = elems[i:i + n]
        if drop and len(rows) < n:
            break
        if tuple_elems:
            comps = []
            for c in range(len(rows[0])):
                col = [r[c] for r in rows]
                ps = None if padded_shapes is None else padded_shapes[c]
                target = maxdims(col, ps)
                comps.append([pad(x, target, 0 if values is None else values[c]) for x in col])
            out.append(tuple(comps))
        else:
            target = maxdims(rows, padded_shapes)
            out.append([pad(x, target, 0 if values is None else values) for x in rows])
    return out


def window(elems, size, shift=None, stride=1, drop=False):
    shift = size if shift is None else shift
    out = []
    for start in range(0, len(elems), shift):
        w = elems[start::stride][:size]
        if drop and len(w) < size:
            continue
        out.append(w)
    return out


def interleave(inputs, fn, cycle, block, out=None):
    """TF's InterleaveDataset order; elements appended to out (a fresh list unless given).  An element that is
    an exception instance is raised when the cycle reaches it (the elements before it are in out)."""
    slots = [None] * cycle
    it = iter(inputs)
    end, nopen, ci, bi = False, 0, 0, 0
    out = [] if out is None else out
    while not end or nopen:
        if slots[ci] is not None:
            x = next(slots[ci], None)
            if x is not None:
                if isinstance(x, BaseException):
                    raise x
                out.append(x)
                bi += 1
                if bi == block:
                    bi, ci = 0, (ci + 1) % cycle
                continue
            slots[ci] = None
            nopen -= 1
            bi, ci = 0, (ci + 1) % cycle
        elif not end:
            e = next(it, None)
            if e is None:
                end = True
            else:
                slots[ci] = iter(fn(e))
                nopen += 1
        else:
            bi, ci = 0, (ci + 1) % cycle
    return out


def scan(elems, state, fn):
    out = []
    for e in elems:
        state, o = fn(state, e)
        out.append(o)
    return out


def take_while(elems, pred):
    out = []
    for e in elems:
        if not pred(e):
            break
        out.append(e)
    return out


def unique(elems):
    out = []
    for e in elems:
        if e not in out:
            out.append(e)
    return out


def group_by_window(elems, key, size, reduce):
    # TF's GroupByWindowDataset: a window is reduced when full; at the end the partial ones, in key order
    groups, out = {}, []
    for e in elems:
        k = key(e)
        groups.setdefault(k, []).append(e)
        if len(groups[k]) >= size(k):
            out += reduce(k, groups.pop(k))
    for k in sorted(groups):
        out += reduce(k, groups[k])
    return out


def card_window(n, size, shift, stride, drop):
    shift = size if shift is None else shift
    span = (size - 1) * stride + 1
    if drop:
        return 0 if n < span else (n - span) // shift + 1
    return (n + shift - 1) // shift


def check_docstrings():
    # the examples of TF 2.15's docstrings
    A = [[x] * x for x in range(1, 5)]
    assert padded_batch(A, 2) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert padded_batch(A, 2, [5]) == [[[1, 0, 0, 0, 0], [2, 2, 0, 0, 0]], [[3, 3, 3, 0, 0], [4, 4, 4, 4, 0]]]
    assert padded_batch([([1, 2, 3], [10]), ([4, 5], [11, 12])], 2, ([4], [None]), (-1, 100), tuple_elems=True) == \
        [([[1, 2, 3, -1], [4, 5, -1, -1]], [[10, 100], [11, 12]])]
    assert window(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert window(list(range(7)), 3, 1, 2, True) == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    assert interleave(range(1, 6), lambda x: [x] * 6, 2, 4) == \
        [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]
    assert scan(range(10), 0, lambda s, i: (s + i, s + i)) == [0, 1, 3, 6, 10, 15, 21, 28, 36, 45]
    assert take_while(range(10), lambda x: x < 5) == [0, 1, 2, 3, 4]
    assert unique([1, 37, 2, 37, 2, 1]) == [1, 37, 2]
    batch3 = lambda k, w: [w[i:i + 3] for i in range(0, len(w), 3)]
    assert group_by_window(range(10), lambda x: x % 2, lambda k: 3, batch3) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    assert bucket(BUCKET_IN) == [[[1, 2, 3, 4], [5, 6, 7, 0]], [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]],
                                 [[0, 0], [21, 22]]]


BUCKET_IN = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20], [21, 22]]


def bucket(elems, bounds=(3, 5), sizes=(2, 2, 2)):
    lows, highs = [-2 ** 31] + list(bounds), list(bounds) + [2 ** 31 - 1]
    key = lambda e: [lo <= len(e) < hi for lo, hi in zip(lows, highs)].index(True)
    return group_by_window(elems, key, lambda k: sizes[k], lambda k, w: padded_batch(w, sizes[k]))


def main():
    check_docstrings()
    L = []
    p = L.append
    i64, i32, f32 = "int64", "int32", "float32"
    pair = "(%s, %s)" % (spec([], i64), spec([None], i64))
    p("<_FlatMapDataset element_spec=%s>" % pair)
    p("take3 " + pair)
    p("  " + repr([(i, [1] * i) for i in range(1, 4)]))
    p("dict {'x': %s, 'n': %s}" % (spec([2], f32), spec([], i32)))
    p("  " + repr([{"x": [float(i), i + 0.5], "n": i} for i in range(3)]))
    p("args " + spec(None, i32))
    p("  " + repr(list(range(4))))
    A = [[x] * x for x in range(1, 5)]
    p("B " + spec([None, None], i32))
    p("  " + repr(padded_batch(A, 2)))
    p("C " + spec([None, 5], i32))
    p("  " + repr(padded_batch(A, 2, [5])))
    p("D " + spec([None, 5], i32))
    p("  " + repr(padded_batch(A, 2, [5], -1)))
    p("E (%s, %s)" % (spec([None, 4], i32), spec([None, None], i32)))
    p("  " + repr(padded_batch([([1, 2, 3], [10]), ([4, 5], [11, 12])], 2, ([4], [None]), (-1, 100), tuple_elems=True)))
    F = [[[x, x]] * (x % 3 + 1) for x in range(1, 8)]
    # tf.fill([x % 3 + 1, 2], x): TF's Fill shape function reads the packed dims (MakeShapeFromShapeTensor): (None, 2)
    p("F " + spec([3, None, 2], i64))
    p("  " + repr(padded_batch(F, 3, drop=True)))
    p("card %d %d" % ((7 + 2) // 3, 7 // 3))
    p("<_WindowDataset element_spec=%s>" % dspec(spec([], i64)))
    for w in window(list(range(7)), 3):
        p("  <_VariantDataset element_spec=%s> %r" % (spec([], i64), w))
    for args in [(3, 2), (3, 1, 2, True), (2, 3), (4, 1, 1, True), (3, 5)]:
        full = list(args) + [None, 1, False][len(args) - 1:]
        size, shift, stride, drop = full[0], full[1], full[2], full[3]
        p("window %r %d %r" % (args, card_window(7, size, shift, stride, drop), window(list(range(7)), size, shift, stride, drop)))
    p("(%s, %s)" % (dspec(spec([], i64)), dspec(spec([], i64))))
    p("batched (%s, %s)" % (spec([None], i64), spec([None], i64)))
    ws = list(zip(window(list(range(5)), 2), window(list(range(10, 15)), 2)))
    p("  " + repr([(a, b) for a, b in ws]))
    p("flat " + spec([], i32))
    p("  " + repr(list(range(1, 10))))
    for cl, bl in [(2, 4), (3, 1), (1, 2), (4, 3)]:
        p("interleave %d %d %r" % (cl, bl, interleave(range(1, 6), lambda x: [x] * (x + 1), cl, bl)))
    p("<_ParallelInterleaveDataset element_spec=%s>" % spec([], i64))
    p("<_ScanDataset element_spec=%s>" % spec([], i64))
    p("scan " + spec([], i64))
    p("  " + repr(scan(range(10), 0, lambda s, i: (s + i, s + i))))
    p("scan2 (%s, %s)" % (spec([], i64), spec([], f32)))
    p("  " + repr(scan(range(1, 6), (1, 0.5), lambda s, x: ((s[0] * x, s[1] * 2.0), (s[0], float(x) + s[1])))))
    p("take_while " + spec([], i64))
    p("  " + repr(take_while(range(10), lambda x: x < 5)))
    p("take_while2 " + spec([], i32))
    p("  " + repr(take_while([3, 1, 4, 1, 5, 9, 2], lambda x: x % 2 == 1)))
    p("unique " + spec([], i32))
    p("  " + repr(unique([1, 37, 2, 37, 2, 1])))
    p("<_UniqueDataset element_spec=%s>" % spec([], i64))
    p("<_RandomDataset element_spec=%s> -1" % spec([], i64))
    p("True 5")   # a seed repeats the numbers; five int64 draws are distinct (a collision has odds ~2**-60)
    p("tf.Tensor(%d, shape=(), dtype=int64)" % sum(sum(r) for r in padded_batch([[x] * x for x in range(1, 6)], 2, [6], -1) for r in r))
    p("tf.Tensor(%d, shape=(), dtype=int64)" % sum(scan(range(10), 0, lambda a, x: (a + x, a))))
    p("tf.Tensor(%d, shape=(), dtype=int64)" % sum(take_while(range(20), lambda x: x < 7)))
    p("<_GroupByWindowDataset element_spec=%s>" % spec([None], i64))
    p("grouped " + spec([None], i64))
    p("  " + repr(group_by_window(range(10), lambda x: x % 2, lambda k: 3,
                                  lambda k, w: [w[i:i + 3] for i in range(0, len(w), 3)])))
    p("bucketed " + spec([None, None], i64))
    p("  " + repr(bucket(BUCKET_IN)))
    p("sized " + spec([None], i64))
    p("  " + repr(group_by_window(range(12), lambda x: x % 3, lambda k: k + 1,
                                  lambda k, w: [w[i:i + 4] for i in range(0, len(w), 4)])))
    write_out(OUT, L)


# ---- data_more_errors: TF 2.15's messages for the same misuse, from the templates of its sources --------------

def spec_t(shape, dtype):
    return spec(shape, dtype)


def errors_expect():
    i32, i64 = "int32", "int64"
    L = [
        "TypeError: `generator` must be a Python callable.",
        "TypeError: To specify the output signature you need to provide either the `output_signature` argument "
        "or the `output_types` argument.",
        "TypeError: The `output_types` argument can not be used together with the `output_signature` argument.",
        "TypeError: `output_signature` must contain objects that are subclass of `tf.TypeSpec` but found "
        "<class 'int'> which is not.",
        # generator_py_func's errors reach the program through the py_func as InvalidArgumentError
        "InvalidArgumentError: ValueError: `generator` yielded an element of shape (3,) where an element of "
        "shape (2,) was expected.",
        "InvalidArgumentError: TypeError: `generator` yielded an element that did not match the expected "
        "structure. The expected structure was (%s, %s), but the yielded element was [1, 2, 3]."
        % (spec_t([3], i32), spec_t([], i32)),
        "ValueError: You must provide `padded_shapes` argument because component 0 has unknown rank.",
        "InvalidArgumentError: Attempted to pad to a smaller size than the input element.",
        "InvalidArgumentError: Batch size must be greater than zero.",
        "InvalidArgumentError: Window size must be greater than zero.",
        "TypeError: The `map_func` argument must return a `Dataset` object. Got "
        "<class 'tensorflow.python.framework.tensor.Tensor'>.",
        "ValueError: Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type "
        "is %s." % spec_t([], i64),
        "TypeError: Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output "
        "value but its return type is %s." % spec_t([], i64),
        "TypeError: Invalid `scan_func`. The element types for the new state must match the initial state. "
        "Expected <dtype: 'int64'>, got <dtype: 'float32'>.",
        "InvalidArgumentError: UniqueDataset only supports inputs with a single component.",
    ]
    base = os.path.join(HERE, "programs", "data_more_errors")
    write_out(base + ".out", L)
    src = open(base + ".tfs").read().splitlines()
    line = len(src)
    text = src[-1]
    col = text.index("tf.data") + 1
    with open(base + ".err", "w") as f:
        f.write("data_more_errors.tfs:%d:%d: error: TypeError: The `map_func` argument must return a `Dataset` "
                "object. Got <class 'tensorflow.python.framework.tensor.Tensor'>.\n%s\n%s^\n"
                % (line, col, text, " " * (col - 1)))
    with open(base + ".status", "w") as f:
        f.write("1\n")


# ---- data_csv: the files read with Python's csv module ----------------------------------------------------

def csv_expect():
    import csv
    progs = os.path.join(HERE, "programs")
    small = os.path.join(progs, "data", "small.csv")
    lines = open(small).read().split("\n")
    lines = lines[:-1] if lines[-1] == "" else lines
    rows = list(csv.reader(lines[1:]))
    L = []
    p = L.append
    p("<TextLineDatasetV2 element_spec=%s>" % spec([], "string"))
    p(repr([l.encode() for l in lines] * 2))
    p("<CsvDatasetV2 element_spec=(%s, %s, %s)>" % (spec([], "int32"), spec([], "float32"), spec([], "string")))
    p(repr([(int(r[0]), float(r[1]), r[2].encode()) for r in rows]))
    p(repr([(float(r[1]), r[2].encode()) for r in rows]))
    feats = ", ".join("'%s': %s" % (k, spec([None], "float32")) for k in ["sl", "sw", "pl", "pw"])
    p("({%s}, %s)" % (feats, spec([None], "int32")))
    iris = list(csv.reader(open(os.path.join(HERE, "programs", "data", "iris.csv")).read().splitlines()[1:]))
    import struct
    f32 = lambda x: struct.unpack("f", struct.pack("f", float(x)))[0]
    # float32 sums per batch of 32, as the program adds them (tf.reduce_sum in float32, then a Python float)
    total = 0.0
    for i in range(0, len(iris), 32):
        b = 0.0
        for r in iris[i:i + 32]:
            b = f32(b + f32(r[0]))
        total += b
    p("%d %r %d" % (len(iris), round(total, 3), sum(int(r[4]) for r in iris)))
    # make_csv_dataset's inference on small.csv: a int32, b float32 (2.5), c string; num_epochs=None: fixed batch
    p("{'a': %s, 'b': %s, 'c': %s}" % (spec([2], "int32"), spec([2], "float32"), spec([2], "string")))
    b = {"a": [int(r[0]) for r in rows], "b": [float(r[1]) for r in rows], "c": [r[2].encode() for r in rows]}
    p(repr([b, b]))
    write_out(os.path.join(progs, "data_csv.out"), L)


if __name__ == "__main__":
    main()
    errors_expect()
    csv_expect()
