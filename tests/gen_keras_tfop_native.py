#!/usr/bin/python3
"""gen_keras_tfop_native.py — writes tests/programs/keras_tfop_native.out: tf.tensordot, tf.linalg.trace,
tf.linalg.adjoint, tf.linalg.matrix_transpose and tf.convert_to_tensor on KerasTensors (keras_tfop_native.tfs), the
model's outputs recomputed with numpy in float32 (run with /usr/bin/python3, Debian python3-numpy).

    /usr/bin/python3 tests/gen_keras_tfop_native.py

TF 2.15 decorates these functions with @dispatch.add_dispatch_support (math_ops.tensordot / trace, linalg_impl.adjoint,
array_ops.matrix_transpose, tensor_conversion.convert_to_tensor_v2_with_dispatch), so Keras's KerasOpDispatcher makes
each a TFOpLambda named "tf." + its first v2 export name (tf.linalg.tensordot -> tf.tensordot); the node zips the
positional arguments after the first with the function's parameters (tensordot(a, b, axes, name=None): a numpy b is
saved as its list); tensordot over free dimensions of unknown size sets the static shape it knows ((None, 3, None,
3)). Layers are ordered as Functional orders them: by depth from the outputs, then by first visit.
"""
import numpy as np

import keras_tfop_text as kt

W = np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]], "float32")
lines = [kt.kt((None, 3, 3), "tf.convert_to_tensor"), kt.kt((None,), "tf.linalg.trace"),
         kt.kt((None, 3, 3), "tf.linalg.adjoint"), kt.kt((None, 3, 3), "tf.linalg.matrix_transpose"),
         kt.kt((None, 3, 2), "tf.tensordot"), kt.kt((None, 3, None, 3), "tf.tensordot_1")]
LAYERS = [("x", "InputLayer", "[(None, 3, 3)]", 0, []),
          ("tf.linalg.adjoint", "TFOpLambda", "(None, 3, 3)", 0, ["x[0][0]"]),
          ("tf.linalg.matrix_transpose", "TFOpLambda", "(None, 3, 3)", 0, ["tf.linalg.adjoint[0][0]"]),
          ("tf.convert_to_tensor", "TFOpLambda", "(None, 3, 3)", 0, ["x[0][0]"]),
          ("tf.tensordot", "TFOpLambda", "(None, 3, 2)", 0, ["tf.linalg.matrix_transpose[0][0]"]),
          ("tf.linalg.trace", "TFOpLambda", "(None,)", 0, ["tf.convert_to_tensor[0][0]"]),
          ("flat", "Flatten", "(None, 6)", 0, ["tf.tensordot[0][0]"]),
          ("tf.tensordot_1", "TFOpLambda", "(None, 3, None, 3)", 0, ["x[0][0]", "tf.linalg.adjoint[0][0]"])]
lines += kt.summary(LAYERS)
lines += [kt.input_config("x", (None, 3, 3)),
          kt.op_config("tf.linalg.adjoint", "linalg.adjoint", "[['x', 0, 0, {}]]"),
          kt.op_config("tf.linalg.matrix_transpose", "linalg.matrix_transpose",
                       "[['tf.linalg.adjoint', 0, 0, {'conjugate': True}]]"),
          kt.op_config("tf.convert_to_tensor", "convert_to_tensor", "[['x', 0, 0, {}]]"),
          kt.op_config("tf.tensordot", "tensordot",
                       "[['tf.linalg.matrix_transpose', 0, 0, {'b': %s, 'axes': 1}]]" % W.tolist()),
          kt.op_config("tf.linalg.trace", "linalg.trace", "[['tf.convert_to_tensor', 0, 0, {}]]"),
          "Flatten {'name': 'flat', 'trainable': True, 'dtype': 'float32', 'data_format': 'channels_last'} [[['tf.tensordot', 0, 0, {}]]]",
          kt.op_config("tf.tensordot_1", "tensordot",
                       "[['x', 0, 0, {'b': ['tf.linalg.adjoint', 0, 0], 'axes': [[2], [1]]}]]")]

x = np.arange(18, dtype="float32").reshape((2, 3, 3)) / np.float32(4) - np.float32(1)
adj = np.swapaxes(x, 1, 2)
t = np.trace(x, axis1=1, axis2=2).astype("float32")
d = np.matmul(np.swapaxes(adj, 1, 2), W).reshape((2, 6))
e = np.einsum("bij,cjk->bick", x, adj).astype("float32")
for o in (t, d, e):
    lines.append("%s %s %s" % (o.dtype.name, o.shape, kt.floats(o.flatten().tolist())))
lines.append("%s %s" % ([l[1] for l in LAYERS], [l[0] for l in LAYERS]))
lines.append("True")
kt.write("keras_tfop_native.out", lines)
