#!/usr/bin/python3
# gen_sparse_kernel_expect.py — writes tests/programs/sparse_kernels*.out/.err from a numpy model of TF 2.15's sparse kernels.
"""Independent reference for tests/programs/sparse_kernels*.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_sparse_kernel_expect.py

SparseTensorDenseMatMul is op(A) op(B) accumulated in float32 over A's nonzeros in their order (TF's CPU
kernel); SparseSegmentSum/Mean/SqrtN sum data[indices[j]] in order and, below ten rows, multiply by
float32(1) / float32(n or sqrt(n)) (TF's SparseSegmentReductionOpBase); their gradients scatter grad rows back,
each times float32(1.0 / scale) (SparseSegmentGradOpBase).  embedding_lookup_sparse follows TF's
embedding_ops.py: unweighted, the SparseSegment op over the ids; weighted, segment sums and div_no_nan.
Error messages are TF's kernels' (sparse_tensor_dense_matmul_op.cc, segment_reduction_ops_impl.h).
"""
import os
import numpy as np

from gen_sparse_expect import T, err

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
f32 = np.float32


def spmm(ind, vals, shape, b, adj_a=False, adj_b=False):
    ob = b.T if adj_b else b
    rows = shape[1] if adj_a else shape[0]
    out = np.zeros((rows, ob.shape[1]), b.dtype)
    for (r, c), v in zip(ind, vals):
        m, k = (c, r) if adj_a else (r, c)
        out[m] += v * ob[k]
    return out


def scale(n, mode):
    if mode == "sum" or n == 0:
        return None
    return n if mode == "mean" else np.sqrt(n)


def segment(data, idx, seg, mode, num=None):
    rows = num if num is not None else (seg[-1] + 1 if len(seg) else 0)
    out = np.zeros((rows,) + data.shape[1:], data.dtype)
    j = 0
    while j < len(seg):
        e = j
        while e < len(seg) and seg[e] == seg[j]:
            e += 1
        acc = np.zeros(data.shape[1:], data.dtype)
        for i in range(j, e):
            acc = acc + data[idx[i]]
        s = scale(e - j, mode)
        if s is not None:
            acc = acc * (f32(1) / f32(s)) if e - j < 10 else acc / f32(s)
        out[seg[j]] = acc
        j = e
    return out


def segment_grad(g, idx, seg, mode, dim0):
    out = np.zeros((dim0,) + g.shape[1:], g.dtype)
    counts = np.bincount(seg, minlength=g.shape[0])
    for i, s in zip(idx, seg):
        sc = 1.0 if mode == "sum" else 1.0 / (max(counts[s], 1) if mode == "mean" else np.sqrt(max(counts[s], 1)))
        out[i] += g[s] * f32(sc)
    return out


def div_no_nan(a, b):
    return np.where(b == 0, f32(0), a / np.where(b == 0, f32(1), b)).astype(f32)


def lookup(params, ids_ind, ids, wts, comb):
    seg = ids_ind[:, 0]
    if wts is None:
        return segment(params, ids, seg, {"sum": "sum", "mean": "mean", "sqrtn": "sqrtn"}[comb])
    emb = params[ids] * wts[:, None]
    tot = segment(emb, np.arange(len(seg)), seg, "sum")
    if comb == "sum":
        return tot
    if comb == "mean":
        return div_no_nan(tot, segment(wts[:, None], np.arange(len(seg)), seg, "sum"))
    return div_no_nan(tot, np.sqrt(segment((wts * wts)[:, None], np.arange(len(seg)), seg, "sum")))


def safe_lookup(params, ind, ids, wts, comb, default_id, rows):
    keep = ids >= 0
    if comb != "sum" and wts is not None:
        keep &= wts > 0
    ind, ids = ind[keep], ids[keep]
    wts = wts[keep] if wts is not None else None
    empty = np.array([r not in set(ind[:, 0].tolist()) for r in range(rows)])
    new = np.array([[r, 0] for r in range(rows) if empty[r]], np.int64).reshape(-1, 2)
    ind2 = np.concatenate([ind, new])
    ids2 = np.concatenate([ids, np.full(len(new), default_id or 0, ids.dtype)])
    w2 = np.concatenate([wts, np.ones(len(new), f32)]) if wts is not None else None
    perm = sorted(range(len(ind2)), key=lambda k: tuple(ind2[k]))
    res = lookup(params, ind2[perm], ids2[perm], w2[perm] if w2 is not None else None, comb)
    if default_id is None:
        res = np.where(empty[:, None], f32(0), res).astype(f32)
    return res


def kernels():
    L = []
    ind = np.array([[0, 1], [1, 0], [1, 3], [2, 2]])
    vals = np.array([1.5, 2.0, -1.0, 3.0], f32)
    shape = (3, 4)
    b = np.array([[1, 2], [3, 4], [5, 6], [7, -8]], f32)
    bt = np.array([[1, 0.5], [-2, 0.25], [1, 2]], f32)
    L.append(T(spmm(ind, vals, shape, b)))
    L.append(T(spmm(ind, vals, shape, b.T.copy(), adj_b=True)))
    L.append(T(spmm(ind, vals, shape, bt, adj_a=True)))
    L.append(T(spmm(ind, vals, shape, bt.T.copy(), adj_a=True, adj_b=True)))
    # dense x sparse: the transpose of op(A)^T op(D)^T
    L.append(T(spmm(ind, vals, shape, bt, adj_a=True).T.copy()))
    L.append(T(spmm(np.array([[0, 0], [1, 1]]), np.array([2, 3], np.int32), (2, 2), np.array([[1, 2], [3, 4]], np.int32))))

    data = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [-1, 0.5, 2]], f32)
    idx = [0, 2, 3, 1, 1]
    seg = [0, 0, 0, 2, 3]
    L.append(T(segment(data, idx, seg, "sum")))
    L.append(T(segment(data, idx, seg, "mean")))
    L.append(T(segment(data, idx, seg, "sqrtn")))
    L.append(T(segment(data, idx, seg, "sum", 5)))
    L.append(T(segment(data, [3, 0], [1, 1], "mean", 3)))
    L.append(T(segment(np.array([[1, 2], [3, 4]], np.int32), [1, 0, 1], [0, 1, 1], "sum")))

    g1 = np.array([[1, -2], [0.5, 1], [2, 3]], f32)
    g2 = np.array([[1, 2], [0, -1], [0.5, 0.5], [3, 1]], f32)
    m = np.array([[1, 2, 3], [4, 5, 6], [-1, 1, 0.5], [2, 2, 2]], f32)
    # d/dvals of sum(op(A) op(B) * G): G[m_i] . op(B)[k_i]; d/dB: op(A)^T G (transposed back for adjoint_b)
    L.append(T(np.array([np.dot(g1[r], b[c]) for r, c in ind], f32)))
    L.append(T(spmm(ind, vals, shape, g1, adj_a=True)))
    L.append(T(np.array([np.dot(g2[c], bt[r]) for r, c in ind], f32)))
    L.append(T(spmm(ind, vals, shape, g2)))   # d/d(bt) where op(B) = bt: A g2
    for mode in ("sum", "mean", "sqrtn"):
        L.append(T(segment_grad(m[:4], idx, seg, mode, 4)))

    L.append(T(spmm(ind, vals, shape, bt, adj_a=True)))
    L.append(T(segment(data, [0, 1, 1], [0, 0, 1], "mean", 3)))
    L.append(str(['op: "SparseSegmentMeanWithNumSegments"', 'op: "SparseTensorDenseMatMul"']))
    L.append(T(spmm(ind, vals, shape, g1, adj_a=True)))
    L.append(T(segment_grad(m, idx, seg, "sqrtn", 4)))

    eind = np.array([[0, 0], [0, 1], [2, 0], [2, 1], [3, 0]])
    eids = np.array([1, 3, 0, 0, 2], np.int64)
    ew = np.array([2.0, 0.5, 1.0, 3.0, -1.0], f32)
    for comb in ("sum", "mean", "sqrtn"):
        L.append(comb + " " + T(lookup(data, eind, eids, None, comb)))
        L.append(comb + " " + T(lookup(data, eind, eids, ew, comb)))
    L.append(T(safe_lookup(data, eind, eids, ew, "mean", None, 4)))
    L.append(T(safe_lookup(data, eind, eids, None, "sum", 3, 4)))
    # d/dparams of sum(mean-lookup * G): SparseSegmentMeanGrad of G over the ids
    G = np.array([[1, 2, 3], [0, 0, 0], [1, 1, 1], [-1, 0.5, 2]], f32)
    L.append(T(segment_grad(G, eids, eind[:, 0], "mean", 4)))
    return "\n".join(L) + "\n"


def S(ind, vals, shape):
    return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (T(np.array(ind, np.int64).reshape(-1, len(shape))),
                                                                   T(vals), T(np.array(shape, np.int64)))


def to_dense(ind, vals, shape, default=0):
    d = np.full(tuple(shape), default, vals.dtype)
    for i, v in zip(ind, vals):
        d[tuple(i)] = v
    return d


def sreduce(ind, vals, shape, axes, keep, how, sparse):
    """TF's SparseReduce*: entries grouped by their kept coordinates in row-major order (ties: reduced
    coordinates, then input order), each group summed / maxed in that order"""
    r = len(shape)
    axes = sorted(set(a % r for a in axes))
    kept = [d for d in range(r) if d not in axes]
    order = sorted(range(len(ind)), key=lambda i: ([ind[i][d] for d in kept + axes], i))
    groups = []
    for i in order:
        k = tuple(ind[i][d] for d in kept)
        if groups and groups[-1][0] == k:
            groups[-1][1].append(vals[i])
        else:
            groups.append((k, [vals[i]]))
    oshape = [1 if d in axes else shape[d] for d in range(r)] if keep else [shape[d] for d in kept]
    red = []
    for k, vs in groups:
        acc = vs[0]
        for v in vs[1:]:
            acc = max(acc, v) if how == "max" else acc + v
        red.append(acc)
    if sparse:
        oind = []
        for k, _ in groups:
            row, it = [], iter(k)
            for d in range(r):
                if d in axes:
                    if keep:
                        row.append(0)
                else:
                    row.append(next(it))
            oind.append(row)
        return S(oind, np.array(red, vals.dtype), oshape)
    out = np.zeros(oshape, vals.dtype)
    for (k, _), v in zip(groups, red):
        pos = []
        it = iter(k)
        for d in range(r):
            if d in axes:
                if keep:
                    pos.append(0)
            else:
                pos.append(next(it))
        out[tuple(pos)] = v
    return T(out)


def reduce_prog():
    L = []
    ind = [[0, 3, 1], [1, 0, 0], [0, 1, 1], [1, 2, 1], [0, 1, 0]]
    vals = np.array([1.5, -2.0, 4.0, 0.5, -1.0], f32)
    shape = [2, 4, 2]
    L.append(T(to_dense(ind, vals, shape)))
    L.append(T(to_dense(ind, vals, shape, f32(9))))
    order = sorted(range(len(ind)), key=lambda i: (ind[i], i))
    L.append(T(np.array([ind[i] for i in order], np.int64)))
    L.append(T(vals[order]))
    L.append(sreduce(ind, vals, shape, [0, 1, 2], False, "sum", False))
    L.append(sreduce(ind, vals, shape, [1], False, "sum", False))
    L.append(sreduce(ind, vals, shape, [0, 2], True, "sum", False))
    L.append(sreduce(ind, vals, shape, [-1], False, "sum", True))
    L.append(sreduce(ind, vals, shape, [1], False, "max", False))
    L.append(sreduce(ind, vals, shape, [2], True, "max", True))
    L.append(sreduce([[0, 0], [1, 1], [0, 0]], np.array([3, 4, 5], np.int32), [2, 3], [0], False, "sum", False))
    L.append("tf.Tensor(\n%s, shape=(2, 2), dtype=string)" % str(to_dense([[0, 1], [1, 0]], np.array([b"a", b"b"], object), [2, 2], b"")))
    g = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], f32)
    # d/dv: the upstream gradient at each entry's coordinates with the reduced ones dropped
    L.append(T(np.array([g[i[1], i[2]] for i in ind], f32)))
    gg = np.stack([g, -g])
    L.append(T(np.array([gg[tuple(i)] for i in ind], f32)))
    L.append(T(np.array([[1, 2, 3, 4][i[1]] for i in ind], f32)))
    L.append(sreduce(ind, vals, shape, [1], False, "sum", False))
    L.append(T(to_dense(ind, vals, shape)))
    mx = sreduce(ind, vals, shape, [0], False, "max", True)
    L.append(mx[mx.index("values=") + 7:mx.index(", dense_shape=")])
    L.append(str(['op: "SparseReduceMaxSparse"', 'op: "SparseReduceSum"', 'op: "SparseReorder"', 'op: "SparseToDense"']))
    return "\n".join(L) + "\n"


# ---- SparseAdd, SparseSparseMaximum/Minimum, SparseReshape, SparseSlice, SparseConcat, SparseSoftmax,
# SparseFillEmptyRows (TF's sparse_add_op.cc, sparse_sparse_binary_op_shared.cc, reshape_util.cc,
# sparse_slice_op.cc, sparse_concat_op.cc, sparse_softmax_op.cc, sparse_fill_empty_rows_op.cc) ----

def merge(ia, va, ib, vb, mode, thresh=0):
    """Two row-major operands merged: the smaller index first; equal ones combined (add: kept when thresh <=
    |sum|; max/min: an absent side counts as 0). Returns indices, values and, per entry, its (a row, b row)."""
    i = j = 0
    ind, vals, src = [], [], []
    zero = va.dtype.type(0)
    while i < len(ia) or j < len(ib):
        c = 1 if i == len(ia) else -1 if j == len(ib) else int(ia[i].tolist() > ib[j].tolist()) - int(ia[i].tolist() < ib[j].tolist())
        x = va[i] if c <= 0 else None
        y = vb[j] if c >= 0 else None
        if mode == "add":
            v = x + y if x is not None and y is not None else (x if x is not None else y)
            keep = x is None or y is None or thresh <= abs(v)
        else:
            x0 = zero if x is None else x
            y0 = zero if y is None else y
            v = (y0 if x0 < y0 else x0) if mode == "max" else (y0 if y0 < x0 else x0)
            keep = True
        if keep:
            ind.append(list(ia[i]) if c <= 0 else list(ib[j]))
            vals.append(v)
            src.append((i if c <= 0 else None, j if c >= 0 else None))
        i += c <= 0
        j += c >= 0
    return np.array(ind, np.int64).reshape(-1, ia.shape[1]), np.array(vals, va.dtype), src


def add_grad(g, src, na, nb):
    ga, gb = np.zeros(na, g.dtype), np.zeros(nb, g.dtype)
    for k, (i, j) in enumerate(src):
        if i is not None:
            ga[i] = g[k]
        if j is not None:
            gb[j] = g[k]
    return ga, gb


def sp_reshape(ind, shape, new):
    new = list(new)
    if -1 in new:
        new[new.index(-1)] = int(np.prod(shape)) // int(np.prod([d for d in new if d != -1]))
    lin = np.ravel_multi_index(ind.T, shape) if len(ind) else np.zeros(0, np.int64)
    return np.stack(np.unravel_index(lin, new), 1).astype(np.int64), np.array(new, np.int64)


def sp_slice(ind, vals, shape, start, size):
    keep = [all(start[d] <= row[d] < start[d] + size[d] for d in range(len(shape))) for row in ind]
    oshape = [max(min(start[d] + size[d], shape[d]) - start[d], 0) for d in range(len(shape))]
    oind = np.array([row - np.array(start) for row, k in zip(ind, keep) if k], np.int64).reshape(-1, len(shape))
    return oind, vals[np.array(keep, bool)], np.array(oshape, np.int64), keep


def sp_concat(parts, axis):
    r = len(parts[0][2])
    ax = axis % r
    off, ind, vals = 0, [], []
    for pi, pv, ps in parts:
        for row, v in zip(pi, pv):
            row = list(row)
            row[ax] += off
            ind.append(row)
            vals.append(v)
        off += ps[ax]
    order = sorted(range(len(ind)), key=lambda k: (ind[k], k))
    shape = list(parts[0][2])
    shape[ax] = off
    return (np.array([ind[k] for k in order], np.int64), np.array([vals[k] for k in order], parts[0][1].dtype),
            np.array(shape, np.int64))


def sp_softmax(ind, vals):
    """row-major order; each group of all but the last coordinate: exp(v - max) * (1 / sum), float32 in order"""
    order = sorted(range(len(ind)), key=lambda k: (list(ind[k]), k))
    out = np.zeros(len(ind), vals.dtype)
    s = 0
    while s < len(order):
        e = s + 1
        while e < len(order) and list(ind[order[e]][:-1]) == list(ind[order[s]][:-1]):
            e += 1
        v = vals[[order[k] for k in range(s, e)]]
        ex = np.exp(v - v.max())
        tot = vals.dtype.type(0)
        for x in ex:
            tot = tot + x
        out[s:e] = ex * (vals.dtype.type(1) / tot)
        s = e
    return out


def softmax_grad(ind, y, dy):
    """(dy - the row's sum of dy * y) * y, the row sums in order"""
    prod = y * dy
    sums = {}
    for row, p in zip(ind, prod):
        key = tuple(row[:-1])
        sums[key] = sums[key] + p if key in sums else p
    return np.array([(d - sums[tuple(row[:-1])]) * v for row, d, v in zip(ind, dy, y)], y.dtype)


def fill_rows(ind, vals, shape, default):
    rows = shape[0]
    by_row = [[] for _ in range(rows)]
    for i, row in enumerate(ind):
        by_row[row[0]].append(i)
    oind, ovals, rev = [], [], [0] * len(ind)
    for r in range(rows):
        if not by_row[r]:
            oind.append([r] + [0] * (len(shape) - 1))
            ovals.append(default)
        for i in by_row[r]:
            rev[i] = len(oind)
            oind.append(list(ind[i]))
            ovals.append(vals[i])
    return (np.array(oind, np.int64), np.array(ovals, vals.dtype), np.array([not b for b in by_row]),
            np.array(rev, np.int64))


def fill_grad(g, rev):
    seen = set(int(x) for x in rev)
    acc = g.dtype.type(0)
    for j in range(len(g)):
        if j not in seen:
            acc = acc + g[j]
    return g[rev], acc


def rounded(v):
    return np.round(v * f32(1e6)).astype(f32)


def ops_prog():
    L = []
    ia = np.array([[0, 1], [1, 0], [1, 2], [2, 3]], np.int64)
    va = np.array([1.0, -2.0, 3.0, 0.25], f32)
    ib = np.array([[0, 0], [1, 0], [1, 2], [2, 1]], np.int64)
    vb = np.array([5.0, 2.0, -2.5, 4.0], f32)
    shape = np.array([3, 4], np.int64)
    si, sv, _ = merge(ia, va, ib, vb, "add")
    L.append(T(si))
    L.append("%s %s (3, 4)" % (T(sv), T(shape)))
    ti, tv, tsrc = merge(ia, va, ib, vb, "add", f32(0.6))
    L.append(T(ti))
    L.append(T(tv))
    _, iv, _ = merge(np.array([[0, 0], [0, 2], [1, 1]]), np.array([3, -1, 7], np.int32), np.array([[0, 2], [1, 1]]),
                     np.array([2, -3], np.int32), "add", 2)
    L.append(T(iv))
    mi, mv, _ = merge(ia, va, ib, vb, "max")
    _, nv, _ = merge(ia, va, ib, vb, "min")
    L.append(T(mi))
    L.append("%s %s" % (T(mv), T(nv)))
    ri, rs = sp_reshape(ia, [3, 4], [2, -1])
    L.append(T(ri))
    L.append("%s (2, 6)" % T(rs))
    L.append(T(sp_reshape(ia, [3, 4], [-1, 2, 2])[0]))
    li, lv, ls, lkeep = sp_slice(ia, va, [3, 4], [1, 0], [5, 3])
    L.append(T(li))
    L.append("%s %s" % (T(lv), T(ls)))
    ci, cv, cs = sp_concat([(ia, va, [3, 4]), (ib, vb, [3, 4])], 1)
    L.append(T(ci))
    L.append("%s %s" % (T(cv), T(cs)))
    ci, cv, cs = sp_concat([(ia, va, [3, 4]), (np.array([[0, 3]]), np.array([9.0], f32), [1, 4])], 0)
    L.append(T(ci))
    L.append("%s %s" % (T(cv), T(cs)))
    ci, cv, cs = sp_concat([(ia, va, [4, 4]), (np.array([[3, 0]]), np.array([9.0], f32), [4, 2])], -1)
    L.append(T(ci))
    L.append(T(cs))
    smi = np.array([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1], [2, 3]], np.int64)
    smv = np.array([1.0, 2.0, 5.0, -1.0, 0.5, 3.0], f32)
    L.append(T(rounded(sp_softmax(smi, smv))))
    s3i = np.array([[0, 0, 1], [0, 0, 2], [1, 1, 0], [1, 1, 2]], np.int64)
    L.append(T(rounded(sp_softmax(s3i, np.array([0.5, -0.5, 2.0, 2.0], f32)))))
    fei = np.array([[3, 1], [1, 2], [1, 0]], np.int64)
    fev = np.array([4.0, 5.0, 6.0], f32)
    fi, fv, fempty, frev = fill_rows(fei, fev, [5, 3], f32(-1))
    L.append(T(fi))
    L.append("%s %s" % (T(fv), T(fempty)))
    words = np.array([b"a", b"b", b"c"], object)
    wi = np.array([[0, 1], [1, 0], [2, 2]], np.int64)
    L.append(S_(sp_slice(wi, words, [3, 3], [1, 0], [2, 3])[1]))
    L.append(S_(sp_concat([(wi, words, [3, 3]), (wi, words, [3, 3])], 0)[1]))
    L.append(S_(fill_rows(np.array([[2, 0]]), np.array([b"x"], object), [3, 2], b"?")[1]))
    # gradients: y = sum(result values * weights)
    ga, gb = add_grad(np.array([1.0, 2.0, 3.0, 4.0], f32), tsrc, 4, 4)
    L.append(T(ga))
    L.append(T(gb))
    gs = np.zeros(4, f32)
    gs[np.array(lkeep, bool)] = np.array([10.0, 20.0], f32)
    L.append(T(gs))
    y = sp_softmax(smi, smv)
    L.append(T(rounded(softmax_grad(smi, y, np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], f32)))))
    gv, gdef = fill_grad(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], f32), frev)
    L.append(T(gv))
    L.append(T(gdef))
    L.append("None")   # TF: SparseConcat is not differentiable
    L.append("NotImplementedError: Gradient for SparseSparseMaximum is not implemented.")
    # the tf.function
    L.append(T(tv))
    L.append(T(sp_reshape(ia, [3, 4], [-1])[0]))
    L.append(T(sp_concat([(ia, va, [3, 4]), (ib, vb, [3, 4])], 0)[0]))
    ya = sp_softmax(ia, va)
    L.append(T(rounded(ya)))
    si2, sv2, ss2, _ = sp_slice(ia, va, [3, 4], [0, 0], [3, 1])
    _, fv2, fe2, _ = fill_rows(si2, sv2, list(ss2), f32(7))
    L.append(T(fv2))
    L.append(T(fe2))
    L.append(T(mv))
    g_add, _ = add_grad(np.arange(1, len(tv) + 1).astype(f32), tsrc, 4, 4)
    L.append(T(rounded(g_add + softmax_grad(ia, ya, np.array([1.0, 2.0, 3.0, 4.0], f32)))))
    L.append(str(['op: "SparseAdd"', 'op: "SparseAddGrad"', 'op: "SparseConcat"', 'op: "SparseFillEmptyRows"',
                  'op: "SparseReduceSum"', 'op: "SparseReshape"', 'op: "SparseSlice"', 'op: "SparseSoftmax"',
                  'op: "SparseSparseMaximum"']))
    return "\n".join(L) + "\n"


def S_(strs):
    """a 1-D string tensor as TF prints it"""
    return "tf.Tensor([%s], shape=(%d,), dtype=string)" % (" ".join(repr(x) for x in strs), len(strs))


ERRS = [
    ("sparse_kernels_err_k", 4, 7, "k (4) from index[1,1] out of bounds (>=4)"),
    ("sparse_kernels_err_inner", 4, 7, "Cannot multiply A and B because inner dimension does not match: 4 vs. 3.  Did "
     "you forget a transpose?  Dimensions of A: [3, 4).  Dimensions of B: [3,2]"),
    ("sparse_kernels_err_order", 3, 7, "segment ids are not increasing"),
    ("sparse_kernels_err_index", 3, 7, "Bad: indices[1] == 5 out of range [0, 2)"),
    ("sparse_kernels_err_nseg", 3, 7, "segment ids must be < num_segments"),
    ("sparse_ops_err_reshape", 3, 7, "Input to reshape is a tensor with 6 dense values, but the requested shape has 8. "
     "input_shape=[2,3] output_shape=[4,2]"),
    ("sparse_ops_err_add", 3, 7, "Operands' shapes do not match: got 3 and 4 for dimension 1"),
    ("sparse_ops_err_concat", 3, 7, "Input shapes must match: expected 3 for dimension 1 but got 4 at position 1"),
    ("sparse_ops_err_fill", 3, 7, "indices(0, 0) is invalid: 4 >= 3"),
    ("sparse_ops_err_softmax", 3, 7, "Input should have rank >= 2, but received shape: 3"),
]


def main():
    with open(os.path.join(PROGS, "sparse_kernels.out"), "w") as f:
        f.write(kernels())
    with open(os.path.join(PROGS, "sparse_kernels_reduce.out"), "w") as f:
        f.write(reduce_prog())
    with open(os.path.join(PROGS, "sparse_kernels_ops.out"), "w") as f:
        f.write(ops_prog())
    for name, line, col, msg in ERRS:
        with open(os.path.join(PROGS, name + ".tfs")) as f:
            src = f.read().splitlines()[line - 1]
        err(name, line, col, src, msg)


if __name__ == "__main__":
    main()
