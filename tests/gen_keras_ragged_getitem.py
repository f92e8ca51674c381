#!/usr/bin/python3
# gen_keras_ragged_getitem.py — writes tests/programs/keras_ragged_getitem.out: Keras 2.15's KerasTensor text for the slices and Python's own slicing of the program's rows.
"""Independent reference for tests/programs/keras_ragged_getitem.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_ragged_getitem.py

keras/src/engine/keras_tensor.py: x[...] on a RaggedKerasTensor is tf.Tensor's __getitem__ (tf.__operators__.getitem,
a SlicingOpLambda layer named "tf.__operators__.getitem", "_1", ... per call); traced on the ragged placeholder it
gives a RaggedTensor, so the KerasTensor holds a RaggedTensorSpec and no name (str: type_spec and description
only). A ragged slice keeps each row's Python slice (ragged_getitem.py).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0], [], [7.0, 8.0, 9.0, 10.0]]
SPEC = "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)"
SLICES = [lambda x: [row[1:] for row in x], lambda x: x[1:], lambda x: [row[:-1] for row in x],
          lambda x: [row[1:3] for row in x[-2:]], lambda x: [row[-2:] for row in x], lambda x: x[5:]]


def main():
    names = ["tf.__operators__.getitem"] + [f"tf.__operators__.getitem_{i}" for i in range(1, len(SLICES))]
    out = [f"KerasTensor(type_spec={SPEC}, description=\"created by layer '{names[0]}'\")"]
    out += [f"<KerasTensor: type_spec={SPEC} (created by layer '{n}')>" for n in names]
    out += [f"RaggedTensor {f(ROWS)}" for f in SLICES]
    out += [str(f(ROWS)) for f in SLICES]
    with open(os.path.join(HERE, "programs", "keras_ragged_getitem.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
