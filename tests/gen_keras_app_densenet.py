"""gen_keras_app_densenet.py — writes tests/programs/keras_app_densenet.out: DenseNet121/169/201 described in plain Python (tests/keras_app_arch.py, checked against Keras's documented totals), numpy for preprocess_input, Keras 2.15's error texts."""
import os
import sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_app_arch as arch

arch.check_documented()
out = []
base = arch.densenet([6, 12, 24, 16], (32, 32, 3), include_top=False)
out += arch.describe(base, "densenet121", 12)
out.append("(1, " + ", ".join(str(d) for d in base.layers[-1][1]) + ") True")
out += arch.describe(arch.densenet([6, 12, 32, 32], (40, 36, 3), include_top=False, pooling="max"), "densenet169", 12)
out += arch.describe(arch.densenet([6, 12, 48, 32], (32, 32, 3), classes=3), "densenet201", 12)
full = arch.densenet([6, 12, 24, 16], (224, 224, 3))
out.append(f"densenet121 {len(full.layers)} {full.summary()[0]} (None, 1000)")
out.append("densenet121 True")
x = np.array([[[0.0, 127.5, 255.0]]], dtype=np.float32) / np.float32(255.0)
mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
std = np.array([0.229, 0.224, 0.225], dtype=np.float32)
out.append(str((x - mean) / std))
out += ["ValueError: The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training "
        "on ImageNet), or the path to the weights file to be loaded.",
        'ValueError: If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000',
        "ValueError: When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be "
        "(224, 224, 3).  Received: input_shape=(64, 64, 3)"]
arch.write_golden("keras_app_densenet", out)
