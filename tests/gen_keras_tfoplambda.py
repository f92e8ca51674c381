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
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TEXT = """\
<KerasTensor: shape=(None, 1) dtype=float32 (created by layer 'tf.math.reduce_sum')>
<KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'tf.nn.relu')>
<KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'tf.math.subtract')>
<KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'tf.__operators__.add')>
<KerasTensor: shape=(None, 6) dtype=float32 (created by layer 'tf.concat')>
<KerasTensor: shape=(None, 1, 6) dtype=float32 (created by layer 'tf.expand_dims')>
<KerasTensor: shape=(None, 2, 3) dtype=float32 (created by layer 'tf.reshape')>
<KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'tf.__operators__.getitem')>
<KerasTensor: shape=(None, 3) dtype=int32 (created by layer 'tf.cast')>
(2,) int32 tf.compat.v1.shape
Model: "model"
__________________________________________________________________________________________________
 Layer (type)                Output Shape                 Param #   Connected to                  
==================================================================================================
 x (InputLayer)              [(None, 4)]                  0         []                            
                                                                                                  
 d (Dense)                   (None, 3)                    15        ['x[0][0]']                   
                                                                                                  
 tf.math.reduce_sum (TFOpLam  (None, 1)                   0         ['d[0][0]']                   
 bda)                                                                                             
                                                                                                  
 tf.nn.relu (TFOpLambda)     (None, 3)                    0         ['d[0][0]']                   
                                                                                                  
 tf.math.multiply (TFOpLambd  (None, 3)                   0         ['d[0][0]',                   
 a)                                                                  'tf.math.reduce_sum[0][0]']  
                                                                                                  
 tf.math.subtract (TFOpLambd  (None, 3)                   0         ['tf.nn.relu[0][0]']          
 a)                                                                                               
                                                                                                  
 tf.__operators__.add (TFOpL  (None, 3)                   0         ['tf.math.multiply[0][0]']    
 ambda)                                                                                           
                                                                                                  
 tf.concat (TFOpLambda)      (None, 6)                    0         ['tf.math.subtract[0][0]',    
                                                                     'tf.__operators__.add[0][0]']
                                                                                                  
 tf.expand_dims (TFOpLambda)  (None, 1, 6)                0         ['tf.concat[0][0]']           
                                                                                                  
 tf.reshape (TFOpLambda)     (None, 2, 3)                 0         ['tf.expand_dims[0][0]']      
                                                                                                  
 tf.__operators__.getitem (S  (None, 3)                   0         ['tf.reshape[0][0]']          
 licingOpLambda)                                                                                  
                                                                                                  
 tf.math.greater (TFOpLambda  (None, 3)                   0         ['tf.__operators__.getitem[0][
 )                                                                  0]']                          
                                                                                                  
 tf.cast (TFOpLambda)        (None, 3)                    0         ['tf.math.greater[0][0]']     
                                                                                                  
==================================================================================================
Total params: 15 (60.00 Byte)
Trainable params: 15 (60.00 Byte)
Non-trainable params: 0 (0.00 Byte)
__________________________________________________________________________________________________
InputLayer {'batch_input_shape': (None, 4), 'dtype': 'float32', 'sparse': False, 'ragged': False, 'name': 'x'} []
Dense {'name': 'd', 'trainable': True, 'dtype': 'float32', 'units': 3, 'activation': 'linear', 'use_bias': True, 'kernel_initializer': {'module': 'keras.initializers', 'class_name': 'GlorotUniform', 'config': {'seed': None}, 'registered_name': None}, 'bias_initializer': {'module': 'keras.initializers', 'class_name': 'Zeros', 'config': {}, 'registered_name': None}, 'kernel_regularizer': None, 'bias_regularizer': None, 'activity_regularizer': None, 'kernel_constraint': None, 'bias_constraint': None} [[['x', 0, 0, {}]]]
TFOpLambda {'name': 'tf.math.reduce_sum', 'trainable': True, 'dtype': 'float32', 'function': 'math.reduce_sum'} [['d', 0, 0, {'axis': 1, 'keepdims': True}]]
TFOpLambda {'name': 'tf.nn.relu', 'trainable': True, 'dtype': 'float32', 'function': 'nn.relu'} [['d', 0, 0, {}]]
TFOpLambda {'name': 'tf.math.multiply', 'trainable': True, 'dtype': 'float32', 'function': 'math.multiply'} [['d', 0, 0, {'y': ['tf.math.reduce_sum', 0, 0], 'name': None}]]
TFOpLambda {'name': 'tf.math.subtract', 'trainable': True, 'dtype': 'float32', 'function': 'math.subtract'} [['_CONSTANT_VALUE', -1, 1.0, {'y': ['tf.nn.relu', 0, 0], 'name': None}]]
TFOpLambda {'name': 'tf.__operators__.add', 'trainable': True, 'dtype': 'float32', 'function': '__operators__.add'} [['tf.math.multiply', 0, 0, {'y': 0.5, 'name': None}]]
TFOpLambda {'name': 'tf.concat', 'trainable': True, 'dtype': 'float32', 'function': 'concat'} [[['tf.math.subtract', 0, 0, {'axis': -1}], ['tf.__operators__.add', 0, 0, {'axis': -1}]]]
TFOpLambda {'name': 'tf.expand_dims', 'trainable': True, 'dtype': 'float32', 'function': 'expand_dims'} [['tf.concat', 0, 0, {'axis': 1}]]
TFOpLambda {'name': 'tf.reshape', 'trainable': True, 'dtype': 'float32', 'function': 'reshape'} [['tf.expand_dims', 0, 0, {'shape': [-1, 2, 3]}]]
SlicingOpLambda {'name': 'tf.__operators__.getitem', 'trainable': True, 'dtype': 'float32', 'function': '__operators__.getitem'} [['tf.reshape', 0, 0, {'slice_spec': ({'start': None, 'stop': None, 'step': None}, 0)}]]
TFOpLambda {'name': 'tf.math.greater', 'trainable': True, 'dtype': 'float32', 'function': 'math.greater'} [['tf.__operators__.getitem', 0, 0, {'y': 0.0, 'name': None}]]
TFOpLambda {'name': 'tf.cast', 'trainable': True, 'dtype': 'float32', 'function': 'cast'} [['tf.math.greater', 0, 0, {'dtype': tf.int32}]]""".split("\n")

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
    return "%s %s %s" % (a.dtype.name, a.shape, " ".join("%.4f" % v for v in a.flatten().tolist()))


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
    "",
]
lines = TEXT + [line(g), line(s), line(k)] + TAIL[:-1] + SPECS
with open(os.path.join(HERE, "programs", "keras_tfoplambda.out"), "w") as fh:
    fh.write("\n".join(lines))
