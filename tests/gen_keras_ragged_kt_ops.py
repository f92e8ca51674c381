#!/usr/bin/python3
# gen_keras_ragged_kt_ops.py — writes tests/programs/keras_ragged_kt_ops.out: KerasTensor text as Keras 2.15 prints it and numpy's ragged arithmetic on the program's rows.
"""Independent reference for tests/programs/keras_ragged_kt_ops.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_ragged_kt_ops.py

keras/src/engine/keras_tensor.py: __str__ is "KerasTensor(type_spec=SPEC[, inferred_value=V][, name='N'],
description=\"created by layer 'L'\")" and __repr__ "<KerasTensor: shape=S dtype=D (created by layer 'L')>" (a
composite value: "type_spec=SPEC"). An Input's name is its layer's (backend.placeholder names the TensorSpec too);
a layer output's is its scratch-graph tensor's ("hidden/BiasAdd:0", the Dense's bias_add under the layer's name
scope; "head/Relu:0" with a relu); a RaggedTensor has no name. RaggedKerasTensor takes __add__/__radd__/__mul__/
__rmul__ from tf.RaggedTensor (ragged_operators.py: math_ops.add / multiply, so "tf.math.add"), the others from
tf.Tensor ("tf.math.subtract", "tf.math.greater"). InstanceMethod is registered among keras.layers (layers/core/
__init__.py), so .keras and .h5 models holding it load back.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0]]
RSPEC = "RaggedTensorSpec(TensorShape([None, None]), tf.{}, 1, tf.int64)"


def kt_str(spec, name, layer):
    named = "" if name is None else f", name='{name}'"
    return f"KerasTensor(type_spec={spec}{named}, description=\"created by layer '{layer}'\")"


def tspec(shape, name=None):
    return f"TensorSpec(shape={shape}, dtype=tf.float32, name={'None' if name is None else repr(name)})"


def ragged_text(rows):
    def one(v):
        if isinstance(v, (bool, np.bool_)):
            return "True" if v else "False"
        return repr(float(v))
    return "<tf.RaggedTensor [" + ", ".join("[" + ", ".join(one(v) for v in row) + "]" for row in rows) + "]>"


def main():
    out = []
    out.append(kt_str(tspec("(None, 3)", "feat"), "feat", "feat"))
    out.append("<KerasTensor: shape=(None, 3) dtype=float32 (created by layer 'feat')>")
    out.append(kt_str(tspec("(None, 4)"), "hidden/BiasAdd:0", "hidden"))
    out.append(kt_str(tspec("(None, 2)"), "head/Relu:0", "head"))
    out.append(kt_str(tspec("(None, 2)"), "head/Relu:0", "head"))
    out.append(kt_str(tspec("(None, 4)"), "hidden/BiasAdd:0", "hidden"))
    out.append(kt_str(tspec("(None, 2)", "input_1"), "input_1", "input_1"))
    out.append(kt_str("SparseTensorSpec(TensorShape([None, 4]), tf.float32)", "sp", "sp"))
    out.append(kt_str(RSPEC.format("float32"), "r", "r"))
    out.append(f"<KerasTensor: type_spec={RSPEC.format('float32')} (created by layer 'r')>")
    ops = [("tf.math.add", lambda v: v + 1.0, "float32"), ("tf.math.multiply", lambda v: 2.0 * v, "float32"),
           ("tf.math.subtract", lambda v: v - 0.5, "float32"), ("tf.math.multiply_1", lambda v: v * 3.0, "float32"),
           ("tf.math.add_1", lambda v: 10.0 + v, "float32"), ("tf.math.greater", lambda v: v > 2.0, "bool")]
    for name, fn, dt in ops:
        out.append(kt_str(RSPEC.format(dt), None, name))
        out.append(f"<KerasTensor: type_spec={RSPEC.format(dt)} (created by layer '{name}')>")
    out.append("<KerasTensor: shape=(None, None) dtype=float32 (created by layer 'input.to_tensor')>")
    out.append("<KerasTensor: shape=(None,) dtype=int64 (created by layer 'input.row_lengths')>")
    names = ["r"] + [o[0] for o in ops] + ["input.to_tensor", "input.row_lengths"]
    out.append(repr(names))
    out.append(repr(["InputLayer"] + ["TFOpLambda"] * len(ops) + ["InstanceMethod", "InstanceMethod"]))
    for name, fn, dt in ops:
        out.append(ragged_text([[fn(np.float32(v)) for v in row] for row in ROWS]))
    width = max(len(r) for r in ROWS)
    dense = np.array([row + [0.0] * (width - len(row)) for row in ROWS], np.float32)
    out.append(str(dense))
    out.append(str(np.array([len(r) for r in ROWS], np.int64)))
    for ext in (".keras", ".h5"):
        out.append(f"{ext} ['InstanceMethod', 'InstanceMethod'] True")
    with open(os.path.join(HERE, "programs", "keras_ragged_kt_ops.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
