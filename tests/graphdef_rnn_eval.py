#!/usr/bin/env python3
"""graphdef_rnn_eval.py — the GraphDef form of traced training with the fused recurrent ops computes what tfs computes.

Runs tests/graphdef/rnn_grad_graphs.tfs (traced training steps of TfsLSTMSequence / TfsGRUSequence /
TfsSimpleRNNSequence and their gradient ops, every direction, bias, reset form and SimpleRNN activation, with and
without a Keras mask and a recurrent dropout mask), which writes each step's GraphDef text, its inputs and tfs's results; evaluates the GraphDef's TensorFlow ops with numpy float32 (an interpreter of the ops these graphs use,
TF's semantics) from the same inputs, and compares the function's outputs (its Identity nodes in return order)
with tfs's within 1e-5 relative to each tensor's largest value (float32 rounding over the unrolled steps).
usage: graphdef_rnn_eval.py TFS PROGRAM
"""
import codecs
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graphdef_tfops import nodes, parse  # noqa: E402

DTYPES = {"DT_FLOAT": np.float32, "DT_INT32": np.int32, "DT_INT64": np.int64, "DT_BOOL": np.bool_}


def fields(nd):
    return dict((k, v) for k, v in nd if not isinstance(v, list))


def attrs(nd):
    """attribute key -> its value subtree (a list of (key, value))"""
    out = {}
    for k, v in nd:
        if k == "attr":
            key = fields(v)["key"].strip('"')
            out[key] = dict(v)["value"]
    return out


def scalar(v, key):
    return dict((a, b) for a, b in v if not isinstance(b, list)).get(key)


def ints(v):
    """a list(int) attribute"""
    lst = dict(v).get("list", [])
    return [int(b) for a, b in lst if a == "i"]


def const_value(v):
    t = dict(v)["tensor"]
    dt = DTYPES[scalar(t, "dtype")]
    shape = []
    for k, sh in t:
        if k == "tensor_shape":
            shape = [int(fields(d)["size"]) for kk, d in sh if kk == "dim"]
    vals = [b for a, b in t if a in ("float_val", "int_val", "int64_val", "bool_val")]
    content = scalar(t, "tensor_content")
    if content is not None:
        raw = codecs.escape_decode(content[1:-1].encode("latin-1"))[0]
        return np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    arr = np.array([{"true": 1, "false": 0}.get(x, x) for x in vals], dtype=np.float64).astype(dt)
    n = int(np.prod(shape)) if shape else 1
    if arr.size == n:
        return arr.reshape(shape)
    return np.full(shape, arr[-1] if arr.size else 0, dtype=dt)   # TF's splat: the last value fills the rest


def strided_slice(x, begin, end, strides, a):
    bm, em, sm = int(scalar(a["begin_mask"], "i")), int(scalar(a["end_mask"], "i")), int(scalar(a["shrink_axis_mask"], "i"))
    if int(scalar(a["ellipsis_mask"], "i")) or int(scalar(a["new_axis_mask"], "i")):
        raise ValueError("StridedSlice masks this evaluator does not take")
    key, shrink = [], []
    for d in range(len(begin)):
        if sm >> d & 1:
            key.append(slice(begin[d], begin[d] + 1))
            shrink.append(d)
        else:
            key.append(slice(None if bm >> d & 1 else begin[d], None if em >> d & 1 else end[d], strides[d]))
    return np.squeeze(x[tuple(key)], axis=tuple(shrink))


# TF's Selu scale and alpha; the elementwise ops of the activations, in float64 rounded once
SELU = (1.0507009873554805, 1.6732632423543772)
UNARY = {"Elu": lambda v: np.where(v > 0, v, np.expm1(v)), "Selu": lambda v: SELU[0] * np.where(v > 0, v, SELU[1] * np.expm1(v)),
         "Softsign": lambda v: v / (1 + np.abs(v)), "Softplus": lambda v: np.logaddexp(0, v),
         "Erf": np.vectorize(math.erf, otypes=[np.float64]), "Exp": np.exp, "Expm1": np.expm1, "Square": np.square,
         "Neg": np.negative, "Abs": np.abs}


def run(tree, feeds):
    byname = {}
    for nd in nodes(tree):
        byname[fields(nd)["name"].strip('"')] = nd
    memo = {}

    def value(ref):
        name, _, k = ref.partition(":")
        return out(name)[int(k) if k else 0]

    def out(name):
        if name in memo:
            return memo[name]
        nd = byname[name]
        op = fields(nd)["op"].strip('"')
        a = attrs(nd)
        ins = [value(b.strip('"')) for k, b in nd if k == "input" and not b.strip('"').startswith("^")]
        f32 = np.float32
        if op == "Placeholder":
            r = [feeds[name]]
        elif op == "Const":
            r = [const_value(a["value"])]
        elif op in ("Identity", "ReadVariableOp"):
            r = [ins[0]]
        elif op == "IdentityN":
            r = list(ins)
        elif op in ("AddV2", "Sub", "Mul"):
            fn = {"AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply}[op]
            r = [fn(ins[0], ins[1]).astype(ins[0].dtype)]
        elif op in ("Minimum", "Maximum"):
            r = [(np.minimum if op == "Minimum" else np.maximum)(ins[0], ins[1]).astype(ins[0].dtype)]
        elif op in ("Greater", "Less", "LogicalAnd"):
            r = [{"Greater": np.greater, "Less": np.less, "LogicalAnd": np.logical_and}[op](ins[0], ins[1])]
        elif op == "Relu":
            r = [np.maximum(ins[0], f32(0))]
        elif op == "ReluGrad":
            r = [np.where(ins[1] > 0, ins[0], f32(0)).astype(f32)]
        elif op == "SelectV2":
            r = [np.where(ins[0], ins[1], ins[2]).astype(ins[1].dtype)]
        elif op == "Cast":
            r = [ins[0].astype(DTYPES[scalar(a["DstT"], "type")])]
        elif op == "Sigmoid":
            r = [(1.0 / (1.0 + np.exp(-ins[0].astype(np.float64)))).astype(f32)]
        elif op == "Tanh":
            r = [np.tanh(ins[0].astype(np.float64)).astype(f32)]
        elif op in UNARY:
            r = [UNARY[op](ins[0].astype(np.float64)).astype(f32)]
        elif op == "RealDiv":
            r = [(ins[0] / ins[1]).astype(ins[0].dtype)]
        elif op == "EluGrad":
            r = [np.where(ins[1] > 0, ins[0], ins[0] * (ins[1] + f32(1))).astype(f32)]
        elif op == "SeluGrad":
            r = [np.where(ins[1] > 0, ins[0] * f32(SELU[0]), ins[0] * (ins[1] + f32(SELU[0] * SELU[1]))).astype(f32)]
        elif op == "MatMul":
            x, y = ins
            if scalar(a["transpose_a"], "b") == "true":
                x = x.T
            if scalar(a["transpose_b"], "b") == "true":
                y = y.T
            r = [(x.astype(np.float64) @ y.astype(np.float64)).astype(f32)]
        elif op == "Split":
            r = np.split(ins[1], int(scalar(a["num_split"], "i")), axis=int(ins[0]))
        elif op == "ConcatV2":
            r = [np.concatenate(ins[:-1], axis=int(ins[-1]))]
        elif op == "Pack":
            r = [np.stack(ins, axis=int(scalar(a["axis"], "i")))]
        elif op == "Unpack":
            r = [np.squeeze(p, axis=int(scalar(a["axis"], "i")))
                 for p in np.split(ins[0], int(scalar(a["num"], "i")), axis=int(scalar(a["axis"], "i")))]
        elif op == "Sum":
            keep = scalar(a["keep_dims"], "b") == "true"
            r = [np.sum(ins[0].astype(np.float64), axis=tuple(np.atleast_1d(ins[1]).tolist()), keepdims=keep).astype(ins[0].dtype)]
        elif op == "ZerosLike":
            r = [np.zeros_like(ins[0])]
        elif op == "OnesLike":
            r = [np.ones_like(ins[0])]
        elif op == "BroadcastTo":
            r = [np.broadcast_to(ins[0], tuple(ins[1].tolist())).copy()]
        elif op == "ExpandDims":
            r = [np.expand_dims(ins[0], int(ins[1]))]
        elif op == "Reshape":
            r = [ins[0].reshape(tuple(ins[1].tolist()))]
        elif op == "Transpose":
            r = [np.transpose(ins[0], tuple(ins[1].tolist()))]
        elif op == "Slice":
            key = tuple(slice(b, None if s < 0 else b + s) for b, s in zip(ins[1].tolist(), ins[2].tolist()))
            r = [ins[0][key]]
        elif op == "Tile":
            r = [np.tile(ins[0], tuple(ins[1].tolist()))]
        elif op in ("Shape", "Size"):
            dt = DTYPES[scalar(a["out_type"], "type")]
            r = [np.array(ins[0].shape if op == "Shape" else ins[0].size, dt)]
        elif op == "Prod":
            keep = scalar(a["keep_dims"], "b") == "true"
            r = [np.prod(ins[0], axis=tuple(np.atleast_1d(ins[1]).tolist()), keepdims=keep).astype(ins[0].dtype)]
        elif op == "Range":
            r = [np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)]
        elif op == "Fill":
            r = [np.full(tuple(ins[0].tolist()), ins[1], ins[1].dtype)]
        elif op == "GatherNd":
            p, ix = ins
            k = ix.shape[-1]
            rows = [p[tuple(row)] for row in ix.reshape(-1, k).tolist()]
            r = [np.array(rows, p.dtype).reshape(ix.shape[:-1] + p.shape[k:])]
        elif op == "StridedSlice":
            r = [strided_slice(ins[0], ins[1].tolist(), ins[2].tolist(), ins[3].tolist(), a)]
        else:
            raise ValueError("node %s: op %s is not in this evaluator" % (name, op))
        memo[name] = r
        return r

    rets = sorted((n for n in byname if n == "Identity" or n.startswith("Identity_")),
                  key=lambda n: 0 if n == "Identity" else int(n.split("_")[1]))
    return [out(n)[0] for n in rets]


def main():
    tfs, prog = sys.argv[1:3]
    bad, ncases, worst = [], 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([os.path.abspath(tfs), "run", prog, tmp], capture_output=True, text=True, timeout=600)
        if p.returncode:
            print("FAIL %s exited %d:\n%s" % (prog, p.returncode, p.stderr[-2000:]))
            return 1
        for line in p.stdout.splitlines():
            name = line.split()[0]
            tree = parse(open(os.path.join(tmp, name + ".pbtxt")).read())
            feeds = {}
            for i, ph in enumerate(["xp", "h0", "c0", "u", "b", "mask", "rk"]):
                feeds[ph] = np.load(os.path.join(tmp, "%s_in%d.npy" % (name, i)))
            got = run(tree, feeds)
            want = [np.load(os.path.join(tmp, "%s_out%d.npy" % (name, i))) for i in range(int(line.split()[-1]))]
            ncases += 1
            if len(got) != len(want):
                bad.append("%s: the GraphDef returns %d values, tfs %d" % (line, len(got), len(want)))
                continue
            for i, (g, w) in enumerate(zip(got, want)):
                if g.shape != w.shape:
                    bad.append("%s: output %d has shape %s in the GraphDef, %s in tfs" % (line, i, g.shape, w.shape))
                    continue
                d = float(np.max(np.abs(g - w))) / (1.0 + float(np.max(np.abs(w))))
                worst = max(worst, d)
                if d > 1e-5:
                    bad.append("%s: output %d differs by %.3g" % (line, i, d))
    print("%d traced training steps evaluated from their GraphDefs; largest relative difference %.2g" % (ncases, worst))
    for b in bad:
        print("FAIL " + b)
    return 1 if bad or ncases < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
