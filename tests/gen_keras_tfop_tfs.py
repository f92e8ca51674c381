#!/usr/bin/python3
"""gen_keras_tfop_tfs.py — writes tests/programs/keras_tfop_tfs.out: tf functions written in .tfs called on KerasTensors
(keras_tfop_tfs.tfs), their model's outputs recomputed with numpy in float32 (run with /usr/bin/python3, Debian
python3-numpy).

    /usr/bin/python3 tests/gen_keras_tfop_tfs.py

The lines that are not numbers are Keras 2.15's behaviour written out (keras/src/layers/core/tf_op_layer.py,
engine/node.py, engine/functional.py): TF's dispatch (tensorflow/python/util/dispatch.py, add_dispatch_support) hands
a KerasTensor argument of tf.split / tf.math.reduce_std / tf.repeat / tf.image.* / tf.strings.* ... to Keras's
KerasOpDispatcher, which makes a TFOpLambda named "tf." + the function's canonical tf_export name (the first of its
export names: tf.nn.l2_normalize -> tf.math.l2_normalize, tf.nn.swish -> tf.nn.silu, tf.nn.top_k -> tf.math.top_k);
a layer of several outputs (tf.split, top_k's TopKV2) lists their shapes in the summary; the node config zips the
positional arguments after the first with the function's named parameters (tf.einsum's *inputs are not saved);
tf.map_fn has no dispatch, so KerasTensor.__array__'s TypeError is raised (keras/src/engine/keras_tensor.py).
"""
import numpy as np

import keras_tfop_text as kt

SPLIT = "[(None, 2), (None, 2)]"
HEAD = [kt.kt((None, 2), "tf.split"), kt.kt((None, 2), "tf.split"), kt.kt((None, 1), "tf.math.reduce_std"),
        kt.kt((None, 2), "tf.math.l2_normalize"), kt.kt((None, 2), "tf.nn.silu"), kt.kt((None, 2), "tf.repeat"),
        "TopKV2 " + kt.kt((None, 2), "tf.math.top_k", "int32")]
HEAD += kt.summary([
    ("x", "InputLayer", "[(None, 4)]", 0, []),
    ("tf.split", "TFOpLambda", SPLIT, 0, ["x[0][0]"]),
    ("tf.math.reduce_std", "TFOpLambda", "(None, 1)", 0, ["x[0][0]"]),
    ("tf.math.l2_normalize", "TFOpLambda", "(None, 2)", 0, ["tf.split[0][0]"]),
    ("tf.nn.silu", "TFOpLambda", "(None, 2)", 0, ["tf.split[0][1]"]),
    ("tf.repeat", "TFOpLambda", "(None, 2)", 0, ["tf.math.reduce_std[0][0]"]),
    ("tf.math.top_k", "TFOpLambda", SPLIT, 0, ["x[0][0]"]),
    ("cat", "Concatenate", "(None, 8)", 0, ["tf.math.l2_normalize[0][0]", "tf.nn.silu[0][0]", "tf.repeat[0][0]",
                                            "tf.math.top_k[0][0]"])])
HEAD += [kt.input_config("x", (None, 4)),
         kt.op_config("tf.split", "split", "[['x', 0, 0, {'num_or_size_splits': 2, 'axis': -1}]]"),
         kt.op_config("tf.math.reduce_std", "math.reduce_std", "[['x', 0, 0, {'axis': 1, 'keepdims': True}]]"),
         kt.op_config("tf.math.l2_normalize", "math.l2_normalize", "[['tf.split', 0, 0, {'axis': -1}]]"),
         kt.op_config("tf.nn.silu", "nn.silu", "[['tf.split', 0, 1, {}]]"),
         kt.op_config("tf.repeat", "repeat", "[['tf.math.reduce_std', 0, 0, {'repeats': 2, 'axis': 1}]]"),
         kt.op_config("tf.math.top_k", "math.top_k", "[['x', 0, 0, {'k': 2}]]"),
         "Concatenate {'name': 'cat', 'trainable': True, 'dtype': 'float32', 'axis': -1} [[['tf.math.l2_normalize', 0, 0, "
         "{}], ['tf.nn.silu', 0, 0, {}], ['tf.repeat', 0, 0, {}], ['tf.math.top_k', 0, 0, {}]]]"]

MID = """\
['x', 'tf.split', 'tf.math.reduce_std', 'tf.math.l2_normalize', 'tf.nn.silu', 'tf.repeat', 'tf.math.top_k', 'cat'] True
.keras ['InputLayer', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'Concatenate'] True
.h5 ['InputLayer', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'Concatenate'] True
SavedModel True
<KerasTensor: shape=(None, 2, 3, 1) dtype=float32 (created by layer 'tf.image.flip_left_right')> <KerasTensor: shape=(None,) dtype=string (created by layer 'tf.strings.lower')> <KerasTensor: shape=(None,) dtype=float32 (created by layer 'tf.einsum')>"""

TAIL = """\
[['_CONSTANT_VALUE', -1, 'ij,ij->i', {}]]
TypeError: You are passing KerasTensor(type_spec=TensorSpec(shape=(None, 4), dtype=tf.float32, name='x'), name='x', description="created by layer 'x'"), an intermediate Keras symbolic input/output, to a TF API that does not allow registering custom dispatchers, such as `tf.cond`, `tf.function`, gradient tapes, or `tf.map_fn`. Keras Functional model construction only supports TF API calls that *do* support dispatching, such as `tf.math.add` or `tf.reshape`. Other APIs cannot be called directly on symbolic Kerasinputs/outputs. You can work around this limitation by putting the operation in a custom Keras layer `call` and calling that layer on this symbolic input/output."""

x = np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.0, -2.0], [0.25, -3.0, 1.5, 0.75]], "float32")
a, b = np.split(x, 2, axis=-1)
s = x.std(axis=1, keepdims=True, dtype="float64").astype("float32")
n = a / np.sqrt(np.maximum((a * a).sum(axis=-1, keepdims=True), np.float32(1e-12)))
w = b / (np.float32(1) + np.exp(-b))
r = np.repeat(s, 2, axis=1)
top = -np.sort(-x, axis=1)[:, :2]
y = np.concatenate([n, w, r, top], axis=-1)
rows = [kt.floats(row) for row in y.tolist()]

img = np.arange(6, dtype="float32").reshape((2, 3))
flip = str(img[:, ::-1].tolist())
words = str([t.lower().encode() for t in ["AbC", "dEF g"]])
dots = str((x * x).sum(axis=1).tolist())

kt.write("keras_tfop_tfs.out", HEAD + rows + MID.split("\n") + [flip, words, dots] + TAIL.split("\n"))
