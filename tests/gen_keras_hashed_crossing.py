#!/usr/bin/python3
# gen_keras_hashed_crossing.py — writes tests/programs/keras_hashed_crossing.tfs/.out: tf.sparse.cross/cross_hashed and HashedCrossing, from a Python reimplementation of TF's SparseCross.
# The oracle hashes independently of tfs: FarmHash's Fingerprint64 from tests/hash_oracle.py (pure Python, checked
# against the published test vectors), an integer feature standing for itself as uint64, the features of a cross
# folded with FingerprintCat64 from the hash key 0xDECAFCAFFE, and the result taken modulo num_buckets (int64's
# max when 0). Keras's own docstring example (bins [1, 4, 1, 1, 3]) is among the cases.
import numpy as np
from keras_gen_common import emit_errors, write
from hash_oracle import fp64, smix

M = (1 << 64) - 1
KMUL = 0xc6a4a7935bd1e995


def cat(fp1, fp2):
    r = fp1 ^ KMUL
    r ^= (smix((fp2 * KMUL) & M) * KMUL) & M
    r = (r * KMUL) & M
    r = (smix(r) * KMUL) & M
    return smix(r)


def feature(v):
    return fp64(v.encode()) if isinstance(v, str) else v & M


def crossed(rows_per_col, num_buckets=0, key=0xDECAFCAFFE):
    # rows_per_col: per column, per row, its features; the dense result (0-padded), the last column fastest
    batch = len(rows_per_col[0])
    out = []
    for r in range(batch):
        combos = [[]]
        for col in rows_per_col:
            combos = [c + [f] for c in combos for f in col[r]]
        vals = []
        for c in combos:
            h = key
            for f in c:
                h = cat(h, feature(f))
            vals.append(h % num_buckets if num_buckets > 0 else h % ((1 << 63) - 1))
        out.append(vals)
    width = max(len(v) for v in out)
    return [v + [0] * (width - len(v)) for v in out]


def main():
    p, o = [], []
    P, O = p.append, o.append
    P("# keras_hashed_crossing.tfs — tf.sparse.cross, tf.sparse.cross_hashed and HashedCrossing (tf.keras.layers) against an independent FarmHash/FingerprintCat64 reimplementation (tests/gen_keras_hashed_crossing.py).")
    f1 = ['A', 'B', 'A', 'B', 'A']
    f2 = [101, 101, 101, 102, 102]
    P(f"f1 = tf.constant({f1})")
    P(f"f2 = tf.constant({f2})")
    P("out = tf.keras.layers.HashedCrossing(num_bins=5)((f1, f2))")
    P("print(out.dtype.name, out.shape, out.numpy().tolist())")
    bins = [r[0] for r in crossed([[[a] for a in f1], [[b] for b in f2]], 5)]
    O(f"int64 (5,) {bins}")
    P("out = tf.keras.layers.HashedCrossing(num_bins=5, output_mode='one_hot')((f1, f2))")
    P("print(out.dtype.name, out.shape, out.numpy().tolist())")
    O(f"float32 (5, 5) {np.eye(5, dtype=np.float32)[bins].tolist()}")
    # three features of shape (batch, 1), negative and large integers, longer strings
    g1 = ["apple", "kiwi", "passionfruit and mango salad", "", "fig"]
    g2 = [-7, 0, 123456789012, 3, -1]
    g3 = ["red", "green", "yellowish", "sky blue over a field of sunflowers at noon, 2023", "x"]
    P(f"g1 = tf.constant({[[v] for v in g1]})")
    P(f"g2 = tf.constant({[[v] for v in g2]}, dtype=tf.int64)")
    P(f"g3 = tf.constant({[[v] for v in g3]})")
    P("out = tf.keras.layers.HashedCrossing(num_bins=1000)([g1, g2, g3])")
    P("print(out.shape, out.numpy().tolist())")
    cols = [[[v] for v in g1], [[v] for v in g2], [[v] for v in g3]]
    O(f"(5, 1) {crossed(cols, 1000)}")
    P("print(tf.keras.layers.HashedCrossing(num_bins=7)([tf.constant('fig'), tf.constant(4)]).numpy())")
    O(str(crossed([[["fig"]], [[4]]], 7)[0][0]))
    # tf.sparse.cross_hashed: no buckets (int64's max), a hash key, several features per row
    P("print(tf.sparse.to_dense(tf.sparse.cross_hashed([g1, g2])).numpy().tolist())")
    O(repr(crossed(cols[:2], 0)))
    P("print(tf.sparse.to_dense(tf.sparse.cross_hashed([g1, g3], num_buckets=50, hash_key=12345)).numpy().tolist())")
    O(repr(crossed([cols[0], cols[2]], 50, 12345)))
    P("sp = tf.sparse.SparseTensor(indices=[[0, 0], [0, 1], [2, 0]], values=['a', 'bb', 'ccc'], dense_shape=[3, 2])")
    P("dn = tf.constant([[1, 2], [3, 4], [5, 6]], dtype=tf.int64)")
    P("h = tf.sparse.cross_hashed([dn, sp], num_buckets=97)")
    P("print(h.indices.numpy().tolist(), h.values.numpy().tolist(), h.dense_shape.numpy().tolist())")
    # the sparse input is the first column whatever the order given
    res = crossed([[["a", "bb"], [], ["ccc"]], [[1, 2], [3, 4], [5, 6]]], 97)
    idx = [[0, 0], [0, 1], [0, 2], [0, 3], [2, 0], [2, 1]]
    vals = res[0] + res[2][:2]
    O(f"{idx} {vals} [3, 4]")
    P("c = tf.sparse.cross([dn, sp])")
    P("print(c.values.numpy().tolist())")
    O(repr([f"{s}_X_{d}".encode() for s, row in (("a", [1, 2]), ("bb", [1, 2])) for d in row]
           + [f"ccc_X_{d}".encode() for d in (5, 6)]))
    P("cfg = tf.keras.layers.HashedCrossing(num_bins=4, output_mode='one_hot').get_config()")
    P("print(sorted(cfg.keys()), cfg['num_bins'], cfg['output_mode'], cfg['sparse'], cfg['dtype'])")
    O("['dtype', 'name', 'num_bins', 'output_mode', 'sparse', 'trainable'] 4 one_hot False float32")
    P("print(tf.keras.layers.HashedCrossing(num_bins=4, output_mode='one_hot').compute_output_shape([(None, 1), (None, 1)]))")
    O("[None, 4]")
    errs = [
        ("tf.keras.layers.HashedCrossing(num_bins=3, output_mode='count')",
         "ValueError: Unkown value for `output_mode` argument of layer HashedCrossing. Allowed values are: or one of "
         "the following values: ('int', 'one_hot'). Received: count"),
        ("tf.keras.layers.HashedCrossing(num_bins=3, dtype='float32')",
         "ValueError: When `output_mode='int'`, `dtype` should be an integer type. Received: dtype=float32"),
    ]
    emit_errors(P, O, errs)
    # errors raised in call: Keras's wrapped text, its middle line shown
    calls = [
        ("[f1]", "`HashedCrossing` should be called on at least two inputs. Received: inputs=[<tf.Tensor: shape=(5,), dtype=string, numpy=array([b'A', b'B', b'A', b'B', b'A'], dtype=object)>]"),
        ("[tf.constant([[1], [2]]), tf.constant([1, 2])]", "All `HashedCrossing` inputs should have equal shape. Received: inputs=[<tf.Tensor: shape=(2, 1), dtype=int32, numpy=\narray([[1],\n       [2]], dtype=int32)>, <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>]"),
        ("[tf.constant([1.5]), tf.constant([2.5])]", "All `HashedCrossing` inputs should have an integer or string dtype. Received: inputs=[<tf.Tensor: shape=(1,), dtype=float32, numpy=array([1.5], dtype=float32)>, <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.5], dtype=float32)>]"),
        ("[tf.ones([2, 2], tf.int32), tf.ones([2, 2], tf.int32)]", "All `HashedCrossing` inputs should have shape `[]`, `[batch_size]` or `[batch_size, 1]`. Received: inputs=[<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 1],\n       [1, 1]], dtype=int32)>, <tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 1],\n       [1, 1]], dtype=int32)>]"),
    ]
    P("def middle(e):")
    P("    text = str(e)")
    P("    return text[text.index('\\n\\n') + 2:text.index('\\n\\nCall arguments')]")
    for arg, msg in calls:
        P(f"try:\n    tf.keras.layers.HashedCrossing(num_bins=3)({arg})\nexcept ValueError as e:\n    print(middle(e))")
        O(msg)
    write("keras_hashed_crossing", p, o)


main()
