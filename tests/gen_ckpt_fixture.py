#!/usr/bin/python3
# gen_ckpt_fixture.py — writes tests/fixtures/ckpt/model-5.*, a checkpoint laid out by TF's rules with tests/tfckpt.py (not tfs).
"""The fixed checkpoint tests/ckpt_format.py restores in tfs.

    /usr/bin/python3 tests/gen_ckpt_fixture.py [OUTDIR]     # default tests/fixtures/ckpt

It is what TF 2.15 writes for tf.train.Checkpoint(model=Sequential([Dense(3,
input_shape=(2,)), Dense(1)]), step=tf.Variable(5, tf.int64)) after five
save() calls: the object graph of TF's naming rules (root children in sorted
keyword order then save_counter; a Sequential's layers as layer_with_weights-N
and layer-N; a Dense layer's kernel and bias) and the values below.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfckpt  # noqa: E402

A = "/.ATTRIBUTES/VARIABLE_VALUE"
VALUES = {
    "model/layer_with_weights-0/kernel" + A: (np.arange(6, dtype=np.float32).reshape(2, 3) * 0.25 - 0.5),
    "model/layer_with_weights-0/bias" + A: np.array([0.125, 0.25, -0.5], dtype=np.float32),
    "model/layer_with_weights-1/kernel" + A: np.array([[1.0], [-1.0], [0.5]], dtype=np.float32),
    "model/layer_with_weights-1/bias" + A: np.array([0.25], dtype=np.float32),
    "step" + A: np.array(5, dtype=np.int64),
    "save_counter" + A: np.array(5, dtype=np.int64),
}


def var(full, key):
    return {"children": [], "attributes": [("VARIABLE_VALUE", full, key)], "has_values": True}


def graph():
    k = lambda p: p + A  # noqa: E731
    return [
        {"children": [(1, "model"), (2, "step"), (3, "save_counter")], "attributes": [], "has_values": True},
        {"children": [(4, "layer_with_weights-0"), (4, "layer-0"), (5, "layer_with_weights-1"), (5, "layer-1")],
         "attributes": [], "has_values": True},
        var("Variable", k("step")),
        var("save_counter", k("save_counter")),
        {"children": [(6, "kernel"), (7, "bias")], "attributes": [], "has_values": True},
        {"children": [(8, "kernel"), (9, "bias")], "attributes": [], "has_values": True},
        var("dense/kernel", k("model/layer_with_weights-0/kernel")),
        var("dense/bias", k("model/layer_with_weights-0/bias")),
        var("dense_1/kernel", k("model/layer_with_weights-1/kernel")),
        var("dense_1/bias", k("model/layer_with_weights-1/bias")),
    ]


def expected_output():
    """What restore_fixture.tfs prints, from numpy."""
    k0, b0 = VALUES["model/layer_with_weights-0/kernel" + A], VALUES["model/layer_with_weights-0/bias" + A]
    k1, b1 = VALUES["model/layer_with_weights-1/kernel" + A], VALUES["model/layer_with_weights-1/bias" + A]
    y = (np.array([[1.0, 2.0]], dtype=np.float32) @ k0 + b0) @ k1 + b1
    lines = [k0.tolist(), b0.tolist(), k1.tolist(), b1.tolist()]
    out = "".join("%s\n" % (l,) for l in lines)
    out += "%d %d\n" % (VALUES["step" + A], VALUES["save_counter" + A])
    return out + "%s\n" % (y.tolist(),)


def main(shards=1):
    """The fixture in one data file; with shards > 1 (ckpt_format.py, not committed) dealt over several, as TF
    writes a model whose variables lie on several devices."""
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ckpt")
    os.makedirs(out, exist_ok=True)
    tensors = dict(VALUES)
    tensors[tfckpt.GRAPH_KEY.decode()] = np.array(tfckpt.encode_graph(graph()), dtype=object)
    tfckpt.write_bundle(os.path.join(out, "model-5"), tensors, shards)


if __name__ == "__main__":
    main()
