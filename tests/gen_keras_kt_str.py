#!/usr/bin/python3
# gen_keras_kt_str.py — writes tests/programs/keras_kt_str.out: str()/repr() of KerasTensors as Keras 2.15's keras_tensor.py formats them, with the tensor names TF gives the traced ops.
"""Independent reference for tests/programs/keras_kt_str.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_kt_str.py

keras/src/engine/keras_tensor.py: __str__ is "KerasTensor(type_spec=SPEC[, inferred_value=V][, name='N'][,
description=\"created by layer 'L'\"])", __repr__ "<KerasTensor: shape=S dtype=D[ (created by layer 'L')]>".
An Input's TensorSpec and KerasTensor carry its layer's name (backend.placeholder); a layer output's name is the
tensor its call returned in the scratch graph under tf.name_scope(layer.name), its TensorSpec unnamed
(type_spec_from_value): Dense's last op (MatMul without bias, then the activation: Sigmoid), Conv2D's Relu,
tf.compat.v1.nn.max_pool's "MaxPool", Flatten's Reshape, backend.concatenate's "concat", the Add layer's += ("add"),
tf.__operators__.add's AddV2 (no "add" scope: the operator's name is dropped by TFOpLambda), tf.math.subtract's
Sub, tf.math.multiply's Mul, _slice_helper's "strided_slice", v1 tf.shape's "Shape" scope. A mask KerasTensor is
made from the traced mask (Embedding.compute_mask: tf.not_equal, "NotEqual") outside the layer's Node, so it has
no _keras_history: no description, no "created by layer".
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def spec(shape, dtype="float32", name=None):
    return f"TensorSpec(shape={shape}, dtype=tf.{dtype}, name={'None' if name is None else repr(name)})"


def kt(shape, name, layer, dtype="float32", inferred=None, named_spec=False):
    inf = "" if inferred is None else f", inferred_value={inferred}"
    made = "" if layer is None else f", description=\"created by layer '{layer}'\""
    return f"KerasTensor(type_spec={spec(shape, dtype, name if named_spec else None)}{inf}, name='{name}'{made})"


def main():
    out = [
        kt("(None, 3)", "input_1", "input_1", named_spec=True),
        kt("(None, 2)", "dense/Sigmoid:0", "dense"),
        kt("(None, 8, 8, 1)", "img", "img", named_spec=True),
        kt("(None, 6, 6, 2)", "conv2d/Relu:0", "conv2d"),
        kt("(None, 3, 3, 2)", "max_pooling2d/MaxPool:0", "max_pooling2d"),
        kt("(None, 18)", "flatten/Reshape:0", "flatten"),
        kt("(None, 4)", "dense_1/MatMul:0", "dense_1"),
        kt("(None, 8)", "concatenate/concat:0", "concatenate"),
        kt("(None, 4)", "add/add:0", "add"),
        kt("(None, 4)", "tf.__operators__.add/AddV2:0", "tf.__operators__.add"),
        kt("(None, 4)", "tf.math.subtract/Sub:0", "tf.math.subtract"),
        kt("(None, 4)", "tf.math.multiply/Mul:0", "tf.math.multiply"),
        kt("(None, 3)", "tf.__operators__.getitem/strided_slice:0", "tf.__operators__.getitem"),
        kt("(2,)", "tf.compat.v1.shape/Shape:0", "tf.compat.v1.shape", "int32", [None, 4]),
        kt("(None, None)", "embedding/NotEqual:0", None, "bool"),
        "<KerasTensor: shape=(None, None) dtype=bool>",
        kt("(None, 4)", "dense_1/MatMul:0", "dense_1"),
        kt("(None, 6, 6, 2)", "conv2d/Relu:0", "conv2d"),
        "<KerasTensor: shape=(None, 4) dtype=float32 (created by layer 'dense_1')>",
    ]
    with open(os.path.join(HERE, "programs", "keras_kt_str.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
