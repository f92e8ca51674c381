#!/usr/bin/python3
# gen_data_additions_expect.py — writes tests/programs/data_additions.out from Python (TF 2.15's unbatch, rebatch, list_files and tf.data.Options rules).
"""Reference for tests/programs/data_additions.tfs:

    /usr/bin/python3 tests/gen_data_additions_expect.py

Modelled on TF 2.15's tensorflow/python/data: unbatch_op.py (element spec without the leading dimension,
UnbatchDatasetOp's cardinality n * batch when the batch is static, its errors), rebatch_op.py (unbatch().batch(N)
cycling through batch_sizes; the static batch dimension of _compute_static_batch_dim), dataset_ops.list_files
(MatchingFiles' sorted matches, a shuffle over all of them by default, the Assert's text when none match) and
util/options.py + ops/options.py (unset options read as defaults, merge keeps the last value that differs from
the default, nested options merged recursively, the aliases experimental_deterministic/experimental_threading,
the read-only options() result and the AttributeError/TypeError/ValueError texts).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_data_expect  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_additions.out")


def spec(shape, dtype="tf.int64"):
    return "TensorSpec(shape=%s, dtype=%s, name=None)" % (shape, dtype)


def batches(elems, size, drop=False):
    out = [elems[i:i + size] for i in range(0, len(elems), size)]
    return [b for b in out if len(b) == size or not drop]


def rebatch(rows, sizes, drop):
    out, k, cur = [], 0, []
    for r in rows:
        cur.append(r)
        if len(cur) == sizes[k % len(sizes)]:
            out.append(cur)
            cur, k = [], k + 1
    if cur and not drop:
        out.append(cur)
    return out


def static_dim(sizes, drop, in_dim):
    new = sizes[0] if all(b == sizes[0] for b in sizes) else None
    if new is not None and not drop and (in_dim is None or in_dim % new != 0):
        return None
    return new


# ---- a model of TF's OptionsBase -------------------------------------------------------------------------
FIELDS = {
    "Options": {"deterministic": None, "experimental_slack": None, "threading": "ThreadingOptions",
                "experimental_optimization": "OptimizationOptions"},
    "ThreadingOptions": {"private_threadpool_size": None, "max_intra_op_parallelism": None},
    "OptimizationOptions": {"map_parallelization": None},
}
ALIASES = {"experimental_deterministic": "deterministic"}


def opts(kind="Options"):
    return {"kind": kind, "set": {}}


def get(o, name):
    name = ALIASES.get(name, name)
    if name not in o["set"]:
        sub = FIELDS[o["kind"]][name]
        o["set"][name] = opts(sub) if sub else None
    return o["set"][name]


def put(o, name, value):
    name = ALIASES.get(name, name)
    if name not in FIELDS[o["kind"]]:
        return "AttributeError: Cannot set the property %s on %s." % (name, o["kind"])
    o["set"][name] = value
    return None


def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return all(same(get(a, n), get(b, n)) for n in set(a["set"]) | set(b["set"]))
    return a == b


def merge(*os_):
    result, default = opts(os_[0]["kind"]), opts(os_[0]["kind"])
    for o in os_:
        for name in list(o["set"]):
            this, that, base = get(result, name), get(o, name), get(default, name)
            if same(that, base):
                continue
            if same(this, base):
                put(result, name, merge(that) if isinstance(that, dict) else that)
            elif isinstance(this, dict):
                put(result, name, merge(this, that))
            elif this != that:
                put(result, name, that)
    return result


def self_check():
    """The model against the examples of TF's Dataset.rebatch docstring."""
    rows = [x for b in batches(list(range(8)), 4) for x in b]
    assert rebatch(rows, [2], False) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    rows = [x for b in batches(list(range(16)), 4) for x in b]
    assert rebatch(rows, [2, 1, 1], False) == [[0, 1], [2], [3], [4, 5], [6], [7], [8, 9], [10], [11], [12, 13],
                                               [14], [15]]


def main():
    self_check()
    lines = []
    out = lines.append
    out("<_UnbatchDataset element_spec=%s>" % spec("()"))
    out("-2 %s" % list(range(7)))
    out("%s 6 %s" % (spec("()"), list(range(6))))
    out("(%s, %s)" % (spec("(2,)", "tf.int32"), spec("(1,)", "tf.float32")))
    out(str([([1, 2], [0.5]), ([3, 4], [1.5]), ([5, 6], [2.5])]))
    out(str([{"a": [1, 2], "b": b"x"}, {"a": [3, 4], "b": b"y"}]))
    out("ValueError: Cannot unbatch an input with scalar components.")
    out("ValueError: `unbatch()` is only supported for datasets of elements whose components have a matching leading "
        "dimension. Encountered both 2 and 3.")
    out("InvalidArgumentError: Input element must have the same batch size in each component. Component 0 had size 2 "
        "but component 1 had size 3.")

    for n, b, bdrop, sizes, drop in [(8, 4, False, 2, False), (16, 4, False, [2, 1, 1], False), (10, 4, False, 3, False),
                                     (10, 4, False, 3, True), (12, 4, True, 2, False), (12, 4, True, 3, False)]:
        sizes = sizes if isinstance(sizes, list) else [sizes]
        rows = [x for bt in batches(list(range(n)), b, bdrop) for x in bt]
        dim = static_dim(sizes, drop, b if bdrop else None)
        out("%s %s" % (spec("(%s,)" % dim), rebatch(rows, sizes, drop)))
    out("<_RebatchDataset element_spec=%s>" % spec("(None,)"))
    out("ValueError: Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset with scalar "
        "elements. Fix the issue by adding the `batch` transformation to the dataset.")

    files = ["b.txt", "a.txt", "c.csv", "d.txt"]
    txt = sorted("OUT/" + f for f in files if f.endswith(".txt"))
    out("<_TensorSliceDataset element_spec=%s>" % spec("()", "tf.string"))
    out(str(txt))
    out(str(sorted("OUT/" + f for f in files if f.endswith(".csv") or f.startswith("a"))))
    out("<_ShuffleDataset %d" % len(txt))
    out("True %d" % len(txt))
    out("InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
        "b'No files matched pattern: OUT/*.png'")

    o = opts()
    out("%s %s %s %s" % (get(o, "deterministic"), get(o, "experimental_deterministic"),
                         get(get(o, "threading"), "private_threadpool_size"),
                         get(get(o, "experimental_optimization"), "map_parallelization")))
    put(o, "experimental_deterministic", False)
    put(get(o, "threading"), "private_threadpool_size", 4)
    put(get(o, "experimental_optimization"), "map_parallelization", True)
    out("%s %s %s %s" % (get(o, "deterministic"), same(o, o), same(o, opts()), same(opts(), opts())))
    out("<_OptionsDataset element_spec=%s>" % spec("()"))
    out(str(list(range(6))))
    m = merge(o)          # carried through map, batch and padded_batch
    out("%s %s %s" % (get(m, "deterministic"), get(m, "experimental_deterministic"),
                      get(get(m, "threading"), "private_threadpool_size")))
    out("%s %s" % (get(opts(), "deterministic"), same(merge(opts()), opts())))
    o2 = opts()
    put(o2, "deterministic", True)
    put(o2, "experimental_slack", True)
    m2 = merge(m, o2)
    out("%s %s %s %s" % (get(m2, "deterministic"), get(m2, "experimental_slack"),
                         get(get(m2, "threading"), "private_threadpool_size"),
                         get(get(m2, "experimental_optimization"), "map_parallelization")))
    zz = merge(merge(o), merge(o2))
    out("%s %s" % (get(zz, "deterministic"), get(zz, "experimental_slack")))
    mo = merge(o, o2)
    out("%s %s %s" % (get(mo, "deterministic"), get(mo, "experimental_slack"), get(o, "deterministic")))
    out(str(sorted(x * 2 for x in range(6))))
    out(str(sorted(gen_data_expect.interleave(range(6), lambda x: range(x), 2, 1))))   # deterministic=False: a multiset
    out(put(o, "foo", 1))
    out(put(get(o, "threading"), "pool", 1))
    out("TypeError: Property \"deterministic\" must be of type <class 'bool'>, got: 1 (type: <class 'int'>)")
    for _ in range(2):
        out("ValueError: Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no effect. Use "
            "`tf.data.Dataset.with_options(options)` to set or update dataset options.")
    gen_data_expect.write_out(OUT, lines)


if __name__ == "__main__":
    main()
