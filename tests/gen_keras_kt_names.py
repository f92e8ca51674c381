#!/usr/bin/python3
# gen_keras_kt_names.py — writes tests/programs/keras_kt_names.out: the names Keras 2.15 gives symbolic tensors (str(KerasTensor), .name), derived from Keras's and TF's source.
"""Independent reference for tests/programs/keras_kt_names.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_kt_names.py

Derivations (Keras 2.15 keras/src, TF 2.15 tensorflow/python):
- KerasTensor.name is the name keras_tensor_from_tensor took from the traced tensor ("dense_1/Relu:0"); an
  Input's is its layer's name (backend.placeholder(name=...)). str() is formatted as in gen_keras_kt_str.py.
- Embedding.call is tf.nn.embedding_lookup(self.embeddings, inputs) (a float input is first cast to int32):
  _embedding_lookup_and_transform opens name_scope "embedding_lookup"; array_ops.gather of a ResourceVariable is
  its sparse_read, a ResourceGather named by the scope itself followed by an Identity; the result is returned
  through one more array_ops.identity: "<layer>/embedding_lookup/Identity_1:0".
- Masking.call computes the mask with the output: outputs._keras_mask = tf.squeeze(boolean_mask, axis=-1), so
  _set_mask_metadata does not call compute_mask: the mask is "masking/Squeeze:0", with no _keras_history.
- RaggedKerasTensor._to_placeholder makes the flat values placeholder first ("Placeholder"), then the row splits
  ("Placeholder_1"), outside the layer's name scope; InstanceProperty layers (input.values, input.row_splits)
  return them as they are. RaggedTensor.to_tensor opens name_scope "RaggedToTensor" and returns the
  RaggedTensorToTensor op's output: "input.to_tensor/RaggedToTensor/RaggedTensorToTensor:0".
- SparseKerasTensor._to_placeholder is tf.compat.v1.sparse_placeholder(dtype, shape): the dense shape a
  PlaceholderWithDefault of the static shape, then SparseTensor(values=placeholder(...), indices=placeholder(...)),
  so values "Placeholder", indices "Placeholder_1", dense_shape "PlaceholderWithDefault" (int64: no inferred
  value). InstanceProperty names are unique per session ("input.values" was taken by the ragged one: "input.values_1").
- A model called on a KerasTensor traces its layers under its own name scope: "sequential/dense/BiasAdd:0",
  created by layer 'sequential'.
- Sequential.add of a first layer with a batch input shape (input_shape=, or Embedding's default (None,)) calls it
  on Input(batch_shape, dtype=layer.dtype, name=layer.name + "_input") and initializes the graph network, so
  model.input/.inputs/.output/.outputs and the first layer's .input exist at once.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def spec(shape, dtype="float32", name=None):
    return f"TensorSpec(shape={shape}, dtype=tf.{dtype}, name={'None' if name is None else repr(name)})"


def kt(shape, name, layer, dtype="float32", named_spec=False):
    made = "" if layer is None else f", description=\"created by layer '{layer}'\""
    return f"KerasTensor(type_spec={spec(shape, dtype, name if named_spec else None)}, name='{name}'{made})"


def short(shape, layer, dtype="float32"):
    return f"<KerasTensor: shape={shape} dtype={dtype} (created by layer '{layer}')>"


def main():
    out = [
        kt("(None, None, 4)", "embedding/embedding_lookup/Identity_1:0", "embedding"),
        "embedding/embedding_lookup/Identity_1:0",
        kt("(None, 5, 3)", "masking/mul:0", "masking"),
        kt("(None, 5)", "masking/Squeeze:0", None, "bool"),
        "masking/Squeeze:0",
        kt("(None, None)", "input.to_tensor/RaggedToTensor/RaggedTensorToTensor:0", "input.to_tensor"),
        kt("(None,)", "Placeholder:0", "input.values"),
        kt("(None,)", "Placeholder_1:0", "input.row_splits", "int64"),
        kt("(None, 2)", "Placeholder_1:0", "input.indices", "int64"),
        kt("(None,)", "Placeholder:0", "input.values_1"),
        kt("(2,)", "PlaceholderWithDefault:0", "input.dense_shape", "int64"),
        kt("(None, 2)", "sequential/dense/BiasAdd:0", "sequential"),
        "sequential/dense/BiasAdd:0",
        "a",
        "dense_1/Relu:0",
        kt("(None, 3)", "dense_2_input", "dense_2_input", named_spec=True),
        "[" + short("(None, 3)", "dense_2_input") + "]",
        kt("(None, 2)", "dense_3/BiasAdd:0", "dense_3"),
        "[" + short("(None, 2)", "dense_3") + "]",
        kt("(None, 3)", "dense_2_input", "dense_2_input", named_spec=True),
        "dense_3/BiasAdd:0",
        kt("(None, None)", "embedding_1_input", "embedding_1_input", named_spec=True),
        kt("(None, None, 4)", "embedding_1/embedding_lookup/Identity_1:0", "embedding_1"),
    ]
    with open(os.path.join(HERE, "programs", "keras_kt_names.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
