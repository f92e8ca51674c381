#!/usr/bin/python3
# gen_keras_ragged_kt_ops.py — writes tests/programs/keras_ragged_kt_ops.out: KerasTensor text as tfs prints it (Keras 2.15's repr form) and numpy's ragged arithmetic on the program's rows.
"""Independent reference for tests/programs/keras_ragged_kt_ops.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_ragged_kt_ops.py

keras/src/engine/keras_tensor.py's __repr__: "<KerasTensor: shape=S dtype=D (created by layer 'L')>", a composite
value "type_spec=SPEC". (Keras's print() uses its __str__, "KerasTensor(type_spec=..., name=..., description=...)";
tfs prints the repr form, see docs/keras.md.) RaggedKerasTensor takes __add__/__radd__/__mul__/
__rmul__ from tf.RaggedTensor (ragged_operators.py: math_ops.add / multiply, so "tf.math.add"), the others from
tf.Tensor ("tf.math.subtract", "tf.math.greater"). InstanceMethod is registered among keras.layers (layers/core/
__init__.py), so .keras and .h5 models holding it load back.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0]]
RSPEC = "RaggedTensorSpec(TensorShape([None, None]), tf.{}, 1, tf.int64)"


def kt_repr(shape, dtype, layer):
    return f"<KerasTensor: shape={shape} dtype={dtype} (created by layer '{layer}')>"


def kt_spec(spec, layer):
    return f"<KerasTensor: type_spec={spec} (created by layer '{layer}')>"


def ragged_text(rows):
    def one(v):
        if isinstance(v, (bool, np.bool_)):
            return "True" if v else "False"
        return repr(float(v))
    return "<tf.RaggedTensor [" + ", ".join("[" + ", ".join(one(v) for v in row) + "]" for row in rows) + "]>"


def main():
    out = []
    out.append(kt_repr("(None, 3)", "float32", "feat"))
    out.append(kt_repr("(None, 4)", "float32", "hidden"))
    out.append(kt_repr("(None, 2)", "float32", "head"))
    out.append(kt_repr("(None, 2)", "float32", "head"))
    out.append(kt_repr("(None, 4)", "float32", "hidden"))
    out.append(kt_repr("(None, 2)", "float32", "input_1"))
    out.append(kt_spec("SparseTensorSpec(TensorShape([None, 4]), tf.float32)", "sp"))
    out.append(kt_spec(RSPEC.format("float32"), "r"))
    ops = [("tf.math.add", lambda v: v + 1.0, "float32"), ("tf.math.multiply", lambda v: 2.0 * v, "float32"),
           ("tf.math.subtract", lambda v: v - 0.5, "float32"), ("tf.math.multiply_1", lambda v: v * 3.0, "float32"),
           ("tf.math.add_1", lambda v: 10.0 + v, "float32"), ("tf.math.greater", lambda v: v > 2.0, "bool")]
    for name, fn, dt in ops:
        out.append(kt_spec(RSPEC.format(dt), name))
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
