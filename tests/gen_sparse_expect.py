#!/usr/bin/python3
# gen_sparse_expect.py — writes tests/programs/sparse_*.out/.err from a numpy model of TF 2.15's tf.sparse.
"""Independent reference for tests/programs/sparse_*.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_sparse_expect.py

A sparse value is modelled as (indices, values, dense_shape) numpy arrays; each op is computed from its definition
over the dense numpy array (sums of repeated indices, row-major sorted output where TF's kernel sorts).  Printing
follows TF's SparseTensor.__repr__ ("%s" of each component tensor) and EagerTensor.__str__ ("tf.Tensor(%s,
shape=%s, dtype=%s)" of str(ndarray), a newline before a multi-line array).  Error messages follow TF's
SparseTensor::IndicesValid (tensorflow/core/util/sparse/sparse_tensor.cc).
"""
import os
import numpy as np

from gen_ragged_expect import R   # TF's RaggedTensor.__repr__ model

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
NAMES = {np.dtype(np.float32): "float32", np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
         np.dtype(bool): "bool"}


def T(a):
    a = np.asarray(a)
    text = str(a)
    if "\n" in text:
        text = "\n" + text
    shape = "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (text, shape, NAMES[a.dtype])


class Sp:
    def __init__(self, ind, vals, shape, dtype=np.int32):
        self.ind = np.array(ind, np.int64).reshape(-1, len(shape))
        self.vals = np.array(vals, dtype)
        self.shape = np.array(shape, np.int64)

    def __str__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (T(self.ind), T(self.vals), T(self.shape))

    def dense(self, default=0):
        d = np.full(tuple(self.shape), default, self.vals.dtype)
        for i, v in zip(self.ind, self.vals):
            d[tuple(i)] += v if default == 0 else 0
            if default != 0:
                d[tuple(i)] = v
        return d


def from_dense(d):
    d = np.asarray(d)
    ind = np.argwhere(d != (b"" if d.dtype == object else 0))   # TF's: not_equal to zeros_like ("" for strings)
    return Sp(ind, d[tuple(ind.T)], d.shape, d.dtype)


def order(sp):
    key = [tuple(i) for i in sp.ind]
    perm = sorted(range(len(key)), key=lambda k: key[k])
    return Sp(sp.ind[perm], sp.vals[perm], sp.shape, sp.vals.dtype)


def add(a, b, thresh=0):
    # TF's SparseAdd kernel: the operands merged as if row-major sorted (an unsorted one is not reordered), the
    # smaller index first; equal indices summed once, kept when thresh <= |sum|
    i = j = 0
    keys, vals = [], []
    while i < len(a.ind) or j < len(b.ind):
        x = list(a.ind[i]) if i < len(a.ind) else None
        y = list(b.ind[j]) if j < len(b.ind) else None
        if y is None or (x is not None and x < y):
            keys.append(x), vals.append(a.vals[i])
            i += 1
        elif x is None or y < x:
            keys.append(y), vals.append(b.vals[j])
            j += 1
        else:
            v = a.vals[i] + b.vals[j]
            if abs(v) >= thresh:
                keys.append(x), vals.append(v)
            i += 1
            j += 1
    return Sp(keys, vals, a.shape, a.vals.dtype)


def basic():
    L = []
    f32 = np.float32
    st = Sp([[0, 0], [1, 2]], [1.0, 2.0], [3, 4], f32)
    L.append(str(st))
    L.append("(3, 4) <dtype: 'float32'>")
    L.append("SparseTensorSpec(TensorShape([3, 4]), tf.float32)")
    L.append(T(st.dense()))
    L.append(T(st.dense(default=f32(-1))))
    L.append(str(from_dense(np.array([[0, 7], [5, 0]], np.int32))))
    b = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], f32)
    L.append(T(st.dense() @ b))
    L.append(T(st.dense() @ b))
    L.append(T(st.dense().T @ np.ones((3, 2), f32)))
    u = Sp([[1, 0], [0, 3], [0, 1]], [3, 2, 1], [2, 4])
    r = order(u)
    L.append(str(r))
    L.append(str(from_dense(r.dense().reshape(4, -1))))
    other = Sp([[0, 1], [1, 1]], [-1, 5], [2, 4])
    L.append(str(add(r, other)))
    L.append(str(add(r, other, 1)))
    L.append(T(u.dense() + np.ones((2, 4), np.int32)))
    du = u.dense()
    L.append("%s %s %s" % (T(du.sum(dtype=np.int32)), T(du.sum(1, dtype=np.int32)),
                           T(du.sum(0, keepdims=True, dtype=np.int32))))
    L.append(str(Sp([[0, 0]], [1], [2, 2])))   # the entries of r in [0:2, 1:3], shifted
    L.append(str(from_dense(np.concatenate([r.dense(), Sp([[0, 0]], [9], [2, 1]).dense()], 1))))
    L.append(str(Sp(u.ind[[0, 2]], u.vals[[0, 2]], u.shape)))
    L.append(str(from_dense(u.dense().T)))
    L.append("(2, 4, 1)")
    L.append(str(Sp([[0, 0], [1, 1]], [1.0, 1.0], [3, 2], f32)))
    ind = np.zeros((2, 4), bool)
    ind[0, 2] = ind[0, 0] = ind[1, 3] = True
    L.append(T(ind))
    L.append(str(Sp(u.ind, u.vals * 10, u.shape)))
    L.append(str(Sp(u.ind, u.vals * np.array([2, 1, 1], np.int32), u.shape)))
    L.append(str(Sp(st.ind, st.vals / f32(2), st.shape, f32)))
    # d/dvalues and d/dw of sum(A @ w * [1, -1]): A^T-weighted rows of w, and A^T @ upstream
    up = np.tile(np.array([[1, -1]], f32), (3, 1))
    sp = Sp([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 3], f32)
    w = np.array([[1, 2], [3, 4], [5, 6]], f32)
    L.append(T(np.array([(up[i] * w[j]).sum() for i, j in sp.ind], f32)))
    L.append(T(sp.dense().T @ up))
    for s, d in ((Sp([[0, 1], [1, 0]], [2.0, 3.0], [2, 2], f32), np.eye(2, dtype=f32)),
                 (Sp([[0, 0], [0, 1], [1, 1]], [1.0, 4.0, 5.0], [2, 2], f32), np.array([[1, 2], [3, 4]], f32))):
        L.append(T(s.dense() @ d))
        L.append(T(s.dense().sum(0)))
        L.append(str(Sp(s.ind, s.vals * f32(2), s.shape, f32)))
        L.append(T(s.dense()))
    # the sorting ops inside a tf.function (the count of values unknown while tracing)
    L.append(str(r))
    L.append(str(from_dense(u.dense().T)))
    L.append(str(from_dense(np.concatenate([u.dense(), other.dense()], 0))))
    L.append(str(add(u, other)))   # u is not sorted: TF's kernel merges it as it is
    return "\n".join(L) + "\n"


def varlen():
    # parse_example of VarLenFeatures: row b's j-th value at [b, j], dense_shape [batch, longest]
    recs = [([3, 0, 1], [b"a"]), ([], [b"", b"c"]), ([7], [])]

    def batch(rows, dtype):
        ind = [[b, j] for b, r in enumerate(rows) for j in range(len(r))]
        vals = [v for r in rows for v in r]
        return Sp(ind, np.array(vals, dtype) if vals else np.zeros(0, dtype), [len(rows), max(len(r) for r in rows)],
                  dtype)

    def single(row, dtype):
        return Sp([[j] for j in range(len(row))], np.array(row, dtype) if row else np.zeros(0, dtype), [len(row)],
                  dtype)

    NAMES[np.dtype(object)] = "string"
    ids = [r[0] for r in recs]
    L = ["ids %s" % batch(ids, np.int64), "n %s" % T(np.array([-1, -1, -1], np.int64)),
         "name %s" % batch([r[1] for r in recs], object), "w %s" % batch(ids, np.float32),
         str(single(ids[0], np.int64)), str(single(ids[1], np.int64))]
    w = batch(ids, np.float32)
    L.append(T(w.dense()[:2]))
    L.append(T(batch(ids[2:], np.float32).dense()))
    return "\n".join(L) + "\n"


def ragged():
    # to_sparse: an entry per value at [row, position...] in the bounding shape; from_sparse: rows of the values
    # grouped by their first index (TF's RaggedTensor.__repr__ of a list model)
    def to_sparse(rows, dtype=np.int32):
        ind, vals = [], []

        def walk(x, path):
            if isinstance(x, list):
                for j, e in enumerate(x):
                    walk(e, path + [j])
            else:
                ind.append(path)
                vals.append(x)
        walk(rows, [])

        def bound(x, d):
            if not isinstance(x, list):
                return []
            inner = [bound(e, d + 1) for e in x]
            width = [max([i[k] for i in inner if len(i) > k] + [0]) for k in range(max([len(i) for i in inner] + [0]))]
            return [len(x)] + width
        return Sp(ind, np.array(vals, dtype), bound(rows, 0), dtype)

    rt = [[1, 2], [], [3, 4, 5]]
    st = to_sparse(rt)
    # from_sparse of [[0, 0], [2, 0], [2, 1]] -> [1., 2., 3.] in 4 rows
    back = [[], [], [], []]
    for (r, _), v in zip([[0, 0], [2, 0], [2, 1]], [1.0, 2.0, 3.0]):
        back[r].append(v)
    L = [str(st), R(rt), R(back, 1, np.float32), str(to_sparse([[[1], [2, 3]], [[4]]])), "(%s, %s)" % (st, R(rt))]
    return "\n".join(L) + "\n"


def keras():
    # Keras 2.15's encodings (index 0 is the OOV token of a lookup layer), as SparseTensors of their non-zero entries
    def encode(rows, depth, mode):
        out = np.zeros((len(rows), depth), np.float32)
        for i, r in enumerate(rows):
            for t in r:
                out[i, t] = 1.0 if mode != "count" else out[i, t] + 1.0
        return out
    vocab = {"a": 1, "b": 2, "c": 3}
    L = [str(from_dense(encode([[vocab.get(t, 0) for t in r] for r in [["a", "c"], ["b", "z"]]], 4, "multi_hot"))),
         str(from_dense(encode([[0, 1, 1], [3, 3, 0]], 4, "count"))),
         T(encode([[{10: 1, 20: 2}.get(t, 0)] for t in [10, 30, 20]], 3, "one_hot"))]
    return "\n".join(L) + "\n"


def dense():
    NAMES[np.dtype(object)] = "string"
    s = np.array([[b"", b"x", b""], [b"yy", b"", b""]], object)
    dash = np.where(s == b"", b"-", s)
    L = [T(s), T(dash), str(from_dense(np.array([[b"", b"a"], [b"b", b""]], object)))]
    ind = np.zeros((2, 4), bool)
    ind[0, 2] = ind[0, 0] = ind[1, 3] = True
    L.append(T(ind))
    # d/dv of sum(to_dense(v at [0,1], [1,0]) * w): w at those places
    L.append(T(np.array([2.0, 3.0], np.float32)))
    L.append(T(np.where(s == b"", b"?", s)))
    return "\n".join(L) + "\n"


def err(name, line, col, src, msg, cls="InvalidArgumentError"):
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("")
    with open(os.path.join(PROGS, name + ".err"), "w") as f:
        f.write("%s.tfs:%d:%d: error: %s: %s\n%s\n%s^\n" % (name, line, col, cls, msg, src, " " * (col - 1)))
    with open(os.path.join(PROGS, name + ".status"), "w") as f:
        f.write("1\n")


def main():
    with open(os.path.join(PROGS, "sparse_basic.out"), "w") as f:
        f.write(basic())
    with open(os.path.join(PROGS, "sparse_dense.out"), "w") as f:
        f.write(dense())
    with open(os.path.join(PROGS, "sparse_keras.out"), "w") as f:
        f.write(keras())
    with open(os.path.join(PROGS, "sparse_ragged.out"), "w") as f:
        f.write(ragged())
    with open(os.path.join(PROGS, "sparse_varlen.out"), "w") as f:
        f.write(varlen())
    for name, msg in (("sparse_err_order", "indices[1] = [0,0] is out of order. Many sparse ops require sorted "
                       "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"),
                      ("sparse_err_bounds", "indices[1] = [3,0] is out of bounds: need 0 <= index < [3,4]")):
        with open(os.path.join(PROGS, name + ".tfs")) as f:
            src = f.read().splitlines()[2]
        err(name, 3, 7, src, msg)
    # TF's SparseTensor.__init__: indices.shape.with_rank(2)
    with open(os.path.join(PROGS, "sparse_err_rank.tfs")) as f:
        src = f.read().splitlines()[2]
    err("sparse_err_rank", 3, 6, src, "Shape (2,) must have rank 2", "ValueError")


if __name__ == "__main__":
    main()
