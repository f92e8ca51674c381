#!/usr/bin/python3
"""gen_keras_textvec_ragged_ds.py — writes tests/programs/keras_textvec_ragged_ds.out (run with /usr/bin/python3,
Debian python3-numpy).

    /usr/bin/python3 tests/gen_keras_textvec_ragged_ds.py

TF 2.15's behaviour written out: TextVectorization splits a scalar string into one dense row (tf.strings.split of a
scalar), a batch of strings into a RaggedTensor (ragged=True ids, output_mode=None tokens; "int" without ragged pads
with to_tensor to the batch's longest row). Dataset.batch of RaggedTensor elements stacks them under one more ragged
dimension (RaggedTensorSpec._batch: shape [batch] + shape, ragged_rank + 1), ragged_batch makes dense rows of unknown
length ragged (ragged_batch_op.py: ragged up to the last unknown dimension). A RaggedTensor prints as
RaggedTensor.__repr__: "<tf.RaggedTensor " + np.array2string of its numpy() (rows of equal counts stacked into one
more array dimension, else an object array), with its _formatter, + ">". StringLookup / IntegerLookup map the values:
OOV 0, the vocabulary from 1. The vocabulary order is gen_keras_textvec_ragged_fn.py's.
"""
import numpy as np

import gen_keras_textvec_ragged_fn as fn
import keras_tfop_text as kt


def formatter(x):
    # RaggedTensor's _formatter (ragged_tensor.py)
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size != 0 else repr(x.tolist())
    return str(x)


def rt_numpy(rows, dtype):
    # RaggedTensor.numpy(): the rows' arrays, stacked when their lengths agree, else an object array
    if rows and isinstance(rows[0], list) and rows[0] and isinstance(rows[0][0], list):
        rows = [rt_numpy(r, dtype) for r in rows]
    else:
        rows = [np.array(r, dtype=dtype) for r in rows]
    ragged = any(len(r) != len(rows[0]) for r in rows)
    if ragged:
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = r
        return out
    return np.array(rows)


def rt(rows, dtype="int64"):
    with np.printoptions(formatter={"all": formatter}):
        return "<tf.RaggedTensor %s>" % formatter(rt_numpy(rows, dtype))


def spec(shape, dtype="int64", ragged_rank=1):
    return "RaggedTensorSpec(TensorShape([%s]), tf.%s, %d, tf.int64)" % (
        ", ".join("None" if d is None else str(d) for d in shape), dtype, ragged_rank)


def tensor(a):
    # tf.Tensor's str: numpy's str of the values, then shape and dtype
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (("\n" if a.ndim > 1 else "") + np.array2string(a), tuple(a.shape),
                                                  a.dtype.name)


def batches(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


v = fn.vocab(["a b c", "b c", "c d"])
ids = {t: i for i, t in enumerate(v)}
texts = ["A b", "c c d!", "", "e", "b b"]
rows = [[ids.get(t, 1) for t in fn.standardize(s).split()] for s in texts]
toks = [[t.encode() for t in fn.standardize(s).split()] for s in texts]

lines = ["TensorSpec(shape=(None,), dtype=tf.int64, name=None)"] + [tensor(np.array(r, "int64")) for r in rows]
lines.append("<_BatchDataset element_spec=%s>" % spec([None, None]))
for _ in range(2):   # ragged_batch(2) of the rows, then batch(2) of the strings mapped
    lines += [spec([None, None])] + [rt(b) for b in batches(rows, 2)]
lines += [spec([None, None, None], ragged_rank=2)] + [rt(b) for b in batches(batches(rows, 2), 2)]
lines.append("%d %s" % (len(batches(batches(rows, 2), 2)), spec([2, None, None], ragged_rank=2)))
lines += [spec([None, None])] + [rt([[i * 10 for i in r] for r in b]) for b in batches(rows, 2)]
lines += [spec([None, None], "string")] + [rt(b, object) for b in batches(toks, 3)]
lines.append("(%s, TensorSpec(shape=(None,), dtype=tf.int32, name=None))" % spec([None, None]))
for b, s in zip(batches(rows, 3), batches(texts, 3)):
    n = np.array([len(t.encode()) for t in s], "int32")
    lines.append("(%s, <tf.Tensor: shape=%s, dtype=int32, numpy=%r>)" % (rt(b), tuple(n.shape), n))
lines.append("TensorSpec(shape=(None, None), dtype=tf.int64, name=None)")
for b in batches(rows, 3):
    width = max(len(r) for r in b)
    lines.append(tensor(np.array([r + [0] * (width - len(r)) for r in b], "int64")))

lookup = {"a": 1, "b": 2, "c": 3}
strs = [["a", "b"], ["c"], [], ["a", "z", "b"]]
lines += [spec([None, None])] + [rt([[lookup.get(t, 0) for t in r] for r in b]) for b in batches(strs, 2)]
ints = {10: 1, 20: 2, 30: 3}
lines += [spec([None, None])] + [rt([[ints.get(t, 0) for t in r] for r in b]) for b in batches([[10, 30], [], [20, 20, 5]], 3)]
kt.write("keras_textvec_ragged_ds.out", lines)
