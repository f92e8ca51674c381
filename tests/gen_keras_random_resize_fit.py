#!/usr/bin/python3
# gen_keras_random_resize_fit.py — writes tests/programs/keras_random_resize_fit.out: RandomHeight/RandomWidth in a model, with numpy.
"""Independent reference for keras_random_resize_fit.tfs.

    /usr/bin/python3 tests/gen_keras_random_resize_fit.py

Keras 2.15 (layers/preprocessing/image_preprocessing.py): RandomHeight/RandomWidth.compute_output_shape set
the resized axis to None (the summary's Output Shape column, in Keras's 65-column layout, names wrapped at 25
characters); at inference (predict, evaluate) the layers return their input, so the model is Dense(1) on the
global average of each image: 0.5 * mean + 0.25.  In training the size is tf.cast(factor * axis, int32) with the
factor uniform in [1 + lower, 1 + upper): heights 8 * [1.25, 2) -> 10..15, widths 8 * [0.5, 0.75) -> 4..5.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = """Model: "model"
_________________________________________________________________
 Layer (type)                Output Shape              Param #   
=================================================================
 input_1 (InputLayer)        [(None, 8, 6, 1)]         0         
                                                                 
 random_height (RandomHeight  (None, None, 6, 1)       0         
 )                                                               
                                                                 
 random_width (RandomWidth)  (None, None, None, 1)     0         
                                                                 
 global_average_pooling2d (G  (None, 1)                0         
 lobalAveragePooling2D)                                          
                                                                 
 dense (Dense)               (None, 1)                 2         
                                                                 
=================================================================
Total params: 2
Trainable params: 2
Non-trainable params: 0
_________________________________________________________________"""


def fmt(v):
    assert abs(abs(v) * 1e5 % 1 - 0.5) > 1e-3, v   # far from a rounding tie, so float32 does not show
    return "%.5f" % v


xs = (np.arange(8 * 8 * 6).reshape(8, 8, 6, 1) % 7).astype(np.float64) / 7.0
ys = np.linspace(0.0, 1.0, 8).reshape(8, 1)
pred = 0.5 * xs.mean(axis=(1, 2)) + 0.25
lines = SUMMARY.split("\n") + [
    str([fmt(v) for v in pred.reshape(-1)]),
    fmt(float(np.mean((pred - ys) ** 2))),
    "3 True",
    "True True True True True True",
    "1",
]
with open(os.path.join(HERE, "programs", "keras_random_resize_fit.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
# under `tfs run --eager` the tf.function is never traced
with open(os.path.join(HERE, "programs", "keras_random_resize_fit.eager.out"), "w") as f:
    f.write("\n".join(lines[:-1] + ["0"]) + "\n")
