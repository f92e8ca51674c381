#!/usr/bin/python3
"""gen_keras_lookup_ragged.py — writes tests/programs/keras_lookup_ragged.out: Keras 2.15's lookup of ragged inputs
recomputed from its rules (keras/src/layers/preprocessing/index_lookup.py, preprocessing_utils.py): with one OOV
index, the OOV tokens map to 0 (after the mask token's 0 when there is one, shifting the vocabulary by one) and the
vocabulary follows in order; "int" keeps the rows, multi_hot / count / tf_idf count each row's indices into
`depth` = vocabulary size + OOV (+ mask) slots, tf_idf scaled by the idf weights (OOV's weight their mean, as Keras
pads them); one_hot refuses rank 3 with the input's shape in the message.

    /usr/bin/python3 tests/gen_keras_lookup_ragged.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
out = []


def lookup(vocab, mask=None):
    table = {v: i + 1 + (mask is not None) for i, v in enumerate(vocab)}
    if mask is not None:
        table[mask] = 0
    oov = 1 if mask is not None else 0
    return lambda t: table.get(t, oov)


def rows_map(f, rows):
    return [rows_map(f, r) if isinstance(r, list) else f(r) for r in rows]


def encode(f, rows, depth, mode, idf=None):
    m = np.zeros((len(rows), depth), dtype=np.float32)
    for i, r in enumerate(rows):
        for t in r:
            m[i, f(t)] = 1.0 if mode == "multi_hot" else m[i, f(t)] + 1.0
    if idf is not None:
        m = (m * np.array(idf, dtype=np.float32)).astype(np.float32)
    return m


s3 = lookup(["a", "b", "c"])
rt = [["a", "b", "c"], ["d"], []]
out.append(str(rows_map(s3, rt)))
out.append(str(encode(s3, rt, 4, "multi_hot")))
out.append(str(encode(s3, [["a", "a", "c"], ["d"]], 4, "count")))
# tf_idf: the OOV slot's weight is the mean of the given ones (Keras's _set_idf_weights pads with it)
out.append(str(encode(lookup(["a", "b"]), [["a", "a", "b"], ["z", "b"]], 3, "count", [1.25, 0.5, 2.0])))
i3 = lookup([12, 36, 1138])
out.append(str(rows_map(i3, [[12, 1138], [42, 36, 12]])))
out.append(str(rows_map(i3, [[[12], [1138, 7]], [[36]]])))
inv = {0: b"[UNK]", 1: b"a", 2: b"b", 3: b"c"}
out.append(str(rows_map(lambda i: inv[i], [[1, 2], [3, 0]])))
out.append(str(rows_map(lookup([5, 6], mask=0), [[5, 0], [6, 9, 0]])))
msg = ("ValueError: When output_mode is not `'int'`, maximum supported output rank is 2. Received output_mode one_hot "
       "and input shape %s, which would result in output rank 3.")
out.append(msg % "(3, None)")
out.append(msg % "(1, 2)")
with open(os.path.join(HERE, "programs", "keras_lookup_ragged.out"), "w") as f:
    f.write("\n".join(out) + "\n")
