#!/usr/bin/python3
"""gen_keras_tfop_dynamic.py — writes tests/programs/keras_tfop_dynamic.out: tf ops on KerasTensors of unknown
rank or of shapes from shape tensors (keras_tfop_dynamic.tfs), the model's numbers recomputed with numpy in float64
(run with /usr/bin/python3, Debian python3-numpy).

    /usr/bin/python3 tests/gen_keras_tfop_dynamic.py

The text lines are Keras 2.15 / TF 2.15 behaviour written out from their sources: KerasTensor.__repr__ (shape
printed as a TensorShape, "<unknown>" for an unknown rank, " inferred_value=..." for an int32 output of rank <= 1
whose value tf.ones(shape=it).shape knows in part); TF's shape functions (Squeeze without axis: unknown rank when a
dim is unknown, known 1s dropped otherwise; Fill from tf.shape's partial value, and from a slice or concat of it
(ConstantPartialShape); Reshape; boolean_mask's set_shape;
Where; Unique; Diag: the input's shape twice); type_spec_from_value's TypeError on the Operation a graph-mode assert returns (its first line);
KerasTensor.__iter__'s TypeError; print_summary's "None" (int_shape of an unknown shape) for op layers of unknown
rank. The model: relu(squeeze(Dense(1)(x))) + zeros, kernel 0.5, bias 0; fit with SGD(0.1), MSE, batches of 2 in
order (shuffle=False), each epoch's loss the mean of its batch losses.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

data = np.arange(12, dtype=np.float64).reshape(4, 3) - 3
target = np.ones((4, 3))


def fwd(w, b, xs):
    return np.maximum(w * xs + b, 0)


def fmt(a):
    # numpy's float32 array printing as the .tfs program shows it
    return np.array2string(a.astype(np.float32), separator=" ")


w, b = 0.5, 0.0
pred = fwd(w, b, data)
pred1 = fwd(w, b, data[:1])[0]
hist = []
for epoch in range(2):
    losses = []
    for s in (0, 2):
        xs, ys = data[s:s + 2], target[s:s + 2]
        pre = w * xs + b
        out = np.maximum(pre, 0)
        losses.append(((out - ys) ** 2).mean())
        g = 2 * (out - ys) / out.size * (pre > 0)
        w, b = w - 0.1 * (g * xs).sum(), b - 0.1 * g.sum()
    hist.append(float(np.mean(losses)))
ev = ((fwd(w, b, data) - target) ** 2).mean()

summary = '''Model: "model"
__________________________________________________________________________________________________
 Layer (type)                Output Shape                 Param #   Connected to                  
==================================================================================================
 x (InputLayer)              [(None, 3, 1)]               0         []                            
                                                                                                  
 d (Dense)                   (None, 3, 1)                 2         ['x[0][0]']                   
                                                                                                  
 tf.compat.v1.squeeze_2 (TF  None                         0         ['d[0][0]']                   
 OpLambda)                                                                                        
                                                                                                  
 tf.nn.relu (TFOpLambda)     None                         0         ['tf.compat.v1.squeeze_2[0][0]
                                                                    ']                            
                                                                                                  
 tf.compat.v1.shape_8 (TFOp  (None,)                      0         ['tf.nn.relu[0][0]']          
 Lambda)                                                                                          
                                                                                                  
 tf.zeros_2 (TFOpLambda)     None                         0         ['tf.compat.v1.shape_8[0][0]']
                                                                                                  
 tf.__operators__.add (TFOp  None                         0         ['tf.nn.relu[0][0]',          
 Lambda)                                                             'tf.zeros_2[0][0]']          
                                                                                                  
==================================================================================================
Total params: 2 (8.00 Byte)
Trainable params: 2 (8.00 Byte)
Non-trainable params: 0 (0.00 Byte)
__________________________________________________________________________________________________'''

ut = "<KerasTensor: shape=(None,) dtype=int32 (created by layer 'tf.unique')>"
lines = [
    "<KerasTensor: shape=<unknown> dtype=float32 (created by layer 'tf.compat.v1.squeeze')>",
    "<unknown> None",
    "(2, 3)",
    "<KerasTensor: shape=(3,) dtype=int32 inferred_value=[None, 3, 1] (created by layer 'tf.compat.v1.shape')>",
    "(None, 3, 1) (None, 3, 1) (None, 3, 1)",
    "<KerasTensor: shape=(2,) dtype=int32 inferred_value=[3, 1] (created by layer 'tf.__operators__.getitem')>",
    "(3, 1) (None, 3)",
    "<KerasTensor: shape=(None, 3, 1) dtype=float32 (created by layer 'tf.random.shuffle')>",
    "(None, 3)",
    "<KerasTensor: shape=(None, 1) dtype=float32 (created by layer 'tf.boolean_mask')>",
    "<KerasTensor: shape=(None, 2) dtype=int64 (created by layer 'tf.where')>",
    "Unique(y=%s, idx=%s)" % (ut, ut),
    "(None, 4, None, 4)",
]
for scope in ("assert_non_negative/assert_non_negative/assert_less_equal", "assert_positive/assert_positive/assert_less",
              "assert_less/assert_less"):
    lines.append('TypeError: Could not build a TypeSpec for name: "tf.debugging.%s/Assert/AssertGuard/Identity"' % scope)
lines += [
    "TypeError: Cannot iterate over a Tensor with unknown shape.",
    summary,
    "None None",
    fmt(pred),
    fmt(pred1),
    str([round(v, 4) for v in hist]),
    str(round(float(ev), 4)),
    "%s %s" % (fmt(np.round(np.array([w]), 4)), fmt(np.round(np.array([b]), 4))),
    str(sorted(data[:, 0].tolist())),
]
for rows, diag in ((4, [1.0, 2.0, 3.0]), (2, [1.0, 2.0])):
    a = np.zeros((rows, 3))
    a[np.arange(len(diag)), np.arange(len(diag))] = diag
    lines.append(fmt(a))
with open(os.path.join(HERE, "programs", "keras_tfop_dynamic.out"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
