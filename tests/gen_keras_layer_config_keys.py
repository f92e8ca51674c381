#!/usr/bin/python3
# gen_keras_layer_config_keys.py — writes tests/programs/keras_layer_config_keys.out: Keras 2.15's get_config keys and axes.
"""Independent reference for keras_layer_config_keys.tfs.

    /usr/bin/python3 tests/gen_keras_layer_config_keys.py

The keys are those Keras 2.15 (tf_keras/layers/...) writes: Layer.get_config's base ("name", "trainable",
"dtype", and "batch_input_shape" when the layer has one: Embedding sets input_shape (None,) itself), then
`dict(list(base_config.items()) + list(config.items()))` with each layer's own dict in its source order.
SimpleRNN/LSTM/GRU take RNN.get_config (its flags) as their base with "cell" deleted.  BatchNormalization's
build turns an int axis into a list and makes negative axes non-negative (in place); LayerNormalization keeps
a list of a list/tuple argument and its build sets axis = tf_utils.validate_axis(axis, input_shape) (a list).
Dropout with noise_shape (None, 1, 4): one draw per (batch, feature) shared along axis 1, kept values 1/(1-rate).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = ["name", "trainable", "dtype"]
RNN = ["return_sequences", "return_state", "go_backwards", "stateful", "unroll", "time_major"]
ACT = ["activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
       "activity_regularizer", "kernel_constraint", "bias_constraint"]
CELL_TAIL = ["kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
             "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout"]
keys = [
    ("Dense", BASE + ["units"] + ACT),
    ("Conv2D", BASE + ["filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "groups"] + ACT),
    ("SimpleRNN", BASE + RNN + ["units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                                "bias_initializer"] + CELL_TAIL),
    ("LSTM", BASE + RNN + ["units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                           "recurrent_initializer", "bias_initializer", "unit_forget_bias"] + CELL_TAIL + ["implementation"]),
    ("GRU", BASE + RNN + ["units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                          "recurrent_initializer", "bias_initializer"] + CELL_TAIL + ["implementation", "reset_after"]),
    ("Embedding", BASE + ["batch_input_shape", "input_dim", "output_dim", "embeddings_initializer",
                          "embeddings_regularizer", "activity_regularizer", "embeddings_constraint", "mask_zero",
                          "input_length"]),
    ("Dropout", BASE + ["rate", "noise_shape", "seed"]),
    ("LayerNormalization", BASE + ["axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer",
                                   "beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"]),
]
lines = [f"{name} {k}" for name, k in keys]


def resolved(axis, rank):
    axis = [axis] if isinstance(axis, int) else list(axis)
    return [a + rank if a < 0 else a for a in axis]


for cls, axis, shape in [("BatchNormalization", -1, (2, 3)), ("BatchNormalization", 1, (2, 3, 4)),
                         ("BatchNormalization", [-1, 1], (2, 3, 4)), ("LayerNormalization", -1, (2, 3)),
                         ("LayerNormalization", [-2, -1], (2, 3, 4))]:
    after = resolved(axis, len(shape))
    lines.append(f"{cls} {axis} {after} list")
    lines.append(f" rebuilt {shape} {after}")
lines += ["(None, 1, 4)", "True [0.0, 2.0]", "True"]
with open(os.path.join(HERE, "programs", "keras_layer_config_keys.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
