#!/usr/bin/python3
"""gen_keras_tfoplambda.py — writes tests/programs/keras_tfoplambda.out: the outputs of the op-layer model of
keras_tfoplambda.tfs recomputed with numpy in float32 (run with /usr/bin/python3, Debian python3-numpy).

    /usr/bin/python3 tests/gen_keras_tfoplambda.py

The lines that are not numbers are Keras 2.15's behaviour written out (keras/src/layers/core/tf_op_layer.py,
engine/node.py, engine/functional.py): each op layer is named "tf." + the function's canonical tf_export name
(tf.reduce_sum -> tf.math.reduce_sum, x + 1 -> tf.__operators__.add, x * y -> tf.math.multiply, 1.0 - x ->
tf.math.subtract on a constant first argument, x[:, 0] -> tf.__operators__.getitem, a SlicingOpLambda, x > 0.0 ->
tf.math.greater, tf.shape -> tf.compat.v1.shape since TF's shape_v2 calls the v1 function that dispatches);
its config is {name, trainable, dtype, function}; its node keeps the first argument's structure, each tensor as
[layer, node, tensor, kwargs] (a constant as ["_CONSTANT_VALUE", -1, value, kwargs]), the other positional arguments
as kwargs under their parameter names, an operator's name=None included, slices as {start, stop, step} dicts.
"""
import numpy as np

import keras_tfop_text as kt

TEXT = [kt.kt((None, 1), "tf.math.reduce_sum"), kt.kt((None, 3), "tf.nn.relu"), kt.kt((None, 3), "tf.math.subtract"),
        kt.kt((None, 3), "tf.__operators__.add"), kt.kt((None, 6), "tf.concat"), kt.kt((None, 1, 6), "tf.expand_dims"),
        kt.kt((None, 2, 3), "tf.reshape"), kt.kt((None, 3), "tf.__operators__.getitem"),
        kt.kt((None, 3), "tf.cast", "int32"), "(2,) int32 tf.compat.v1.shape"]
TEXT += kt.summary([
    ("x", "InputLayer", "[(None, 4)]", 0, []),
    ("d", "Dense", "(None, 3)", 15, ["x[0][0]"]),
    ("tf.math.reduce_sum", "TFOpLambda", "(None, 1)", 0, ["d[0][0]"]),
    ("tf.nn.relu", "TFOpLambda", "(None, 3)", 0, ["d[0][0]"]),
    ("tf.math.multiply", "TFOpLambda", "(None, 3)", 0, ["d[0][0]", "tf.math.reduce_sum[0][0]"]),
    ("tf.math.subtract", "TFOpLambda", "(None, 3)", 0, ["tf.nn.relu[0][0]"]),
    ("tf.__operators__.add", "TFOpLambda", "(None, 3)", 0, ["tf.math.multiply[0][0]"]),
    ("tf.concat", "TFOpLambda", "(None, 6)", 0, ["tf.math.subtract[0][0]", "tf.__operators__.add[0][0]"]),
    ("tf.expand_dims", "TFOpLambda", "(None, 1, 6)", 0, ["tf.concat[0][0]"]),
    ("tf.reshape", "TFOpLambda", "(None, 2, 3)", 0, ["tf.expand_dims[0][0]"]),
    ("tf.__operators__.getitem", "SlicingOpLambda", "(None, 3)", 0, ["tf.reshape[0][0]"]),
    ("tf.math.greater", "TFOpLambda", "(None, 3)", 0, ["tf.__operators__.getitem[0][0]"]),
    ("tf.cast", "TFOpLambda", "(None, 3)", 0, ["tf.math.greater[0][0]"])], trainable=15)
TEXT += [kt.input_config("x", (None, 4)),
         "Dense {'name': 'd', 'trainable': True, 'dtype': 'float32', 'units': 3, 'activation': 'linear', 'use_bias': True, "
         "'kernel_initializer': {'module': 'keras.initializers', 'class_name': 'GlorotUniform', 'config': {'seed': None}, "
         "'registered_name': None}, 'bias_initializer': {'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, "
         "'registered_name': None}, 'kernel_regularizer': None, 'bias_regularizer': None, 'activity_regularizer': None, "
         "'kernel_constraint': None, 'bias_constraint': None} [[['x', 0, 0, {}]]]",
         kt.op_config("tf.math.reduce_sum", "math.reduce_sum", "[['d', 0, 0, {'axis': 1, 'keepdims': True}]]"),
         kt.op_config("tf.nn.relu", "nn.relu", "[['d', 0, 0, {}]]"),
         kt.op_config("tf.math.multiply", "math.multiply", "[['d', 0, 0, {'y': ['tf.math.reduce_sum', 0, 0], 'name': None}]]"),
         kt.op_config("tf.math.subtract", "math.subtract",
                      "[['_CONSTANT_VALUE', -1, 1.0, {'y': ['tf.nn.relu', 0, 0], 'name': None}]]"),
         kt.op_config("tf.__operators__.add", "__operators__.add", "[['tf.math.multiply', 0, 0, {'y': 0.5, 'name': None}]]"),
         kt.op_config("tf.concat", "concat",
                      "[[['tf.math.subtract', 0, 0, {'axis': -1}], ['tf.__operators__.add', 0, 0, {'axis': -1}]]]"),
         kt.op_config("tf.expand_dims", "expand_dims", "[['tf.concat', 0, 0, {'axis': 1}]]"),
         kt.op_config("tf.reshape", "reshape", "[['tf.expand_dims', 0, 0, {'shape': [-1, 2, 3]}]]"),
         kt.op_config("tf.__operators__.getitem", "__operators__.getitem",
                      "[['tf.reshape', 0, 0, {'slice_spec': ({'start': None, 'stop': None, 'step': None}, 0)}]]",
                      "SlicingOpLambda"),
         kt.op_config("tf.math.greater", "math.greater", "[['tf.__operators__.getitem', 0, 0, {'y': 0.0, 'name': None}]]"),
         kt.op_config("tf.cast", "cast", "[['tf.math.greater', 0, 0, {'dtype': tf.int32}]]")]

W = np.array([[0.5, -0.25, 0.0], [0.1, 0.2, -0.3], [-0.4, 0.3, 0.25], [0.05, -0.15, 0.2]], "float32")
B = np.array([0.1, -0.1, 0.0], "float32")
x = np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.0, -2.0]], "float32")

d = x @ W + B
s = d.sum(axis=1, keepdims=True)
p = np.float32(1.0) - np.maximum(d, 0)
q = d * s + np.float32(0.5)
c = np.concatenate([p, q], -1)
f = c[:, None, :].reshape(-1, 2, 3)
g = f[:, 0]
k = (g > 0).astype("int32")


def line(a):
    return "%s %s %s" % (a.dtype.name, a.shape, kt.floats(a.flatten().tolist()))


TAIL = """\
['x', 'd', 'tf.math.reduce_sum', 'tf.nn.relu', 'tf.math.multiply', 'tf.math.subtract', 'tf.__operators__.add', 'tf.concat', 'tf.expand_dims', 'tf.reshape', 'tf.__operators__.getitem', 'tf.math.greater', 'tf.cast'] True
True
['InputLayer', 'Dense', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'TFOpLambda', 'SlicingOpLambda', 'TFOpLambda', 'TFOpLambda'] True
""".split("\n")

SPECS = [
    "<KerasTensor: type_spec=SparseTensorSpec(TensorShape([None, 4]), tf.float32) (created by layer 'sp')>",
    "<KerasTensor: type_spec=RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64) (created by layer 'rg')>",
    "<KerasTensor: type_spec=RaggedTensorSpec(TensorShape([None, None, 3]), tf.float32, 1, tf.int64) (created by layer 'rg3')>",
    "TypeError: Cannot iterate over a Tensor with unknown first dimension.",
    "[\"<KerasTensor: shape=(3,) dtype=float32 (created by layer 'tf.__operators__.getitem_1')>\", "
    "\"<KerasTensor: shape=(3,) dtype=float32 (created by layer 'tf.__operators__.getitem_2')>\"]",
]
kt.write("keras_tfoplambda.out", TEXT + [line(g), line(s), line(k)] + TAIL[:-1] + SPECS)
