"""gen_keras_app_mobilenet.py — writes tests/programs/keras_app_mobilenet.out: MobileNet / MobileNetV2 described in plain Python (tests/keras_app_arch.py, checked against Keras's documented totals), numpy for preprocess_input, Keras 2.15's error texts."""
import os
import sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_app_arch as arch

arch.check_documented()
out = []
out += arch.describe(arch.mobilenet((32, 32, 3), 0.25, include_top=False), "mobilenet_0.25_32")
out += arch.describe(arch.mobilenet((40, 48, 3), 0.5, 2, include_top=False, pooling="avg"), "mobilenet_0.50_40")
out += arch.describe(arch.mobilenet((32, 32, 3), 0.25, classes=10), "mobilenet_0.25_32", tail=6)
out += arch.describe(arch.mobilenet_v2((32, 32, 3), 0.35, include_top=False, pooling="max"), "mobilenetv2_0.35_32")
out += arch.describe(arch.mobilenet_v2((33, 35, 3), 1.3, classes=7), "mobilenetv2_1.30_33")
full = arch.mobilenet_v2((224, 224, 3))
out.append(f"mobilenetv2_1.00_224 {len(full.layers)} {full.summary()[0]} (None, 1000)")
fed = arch.mobilenet_v2((64, 64, 3), 0.35, include_top=False, pooling="avg")
# one more layer than the model built alone: the Rescaling between the Input and the model's first convolution
out.append(f"mobilenetv2_0.35_None {len(fed.layers) + 1} {fed.summary()[0]} (None, {fed.layers[-1][1][0]}) 1")
features = arch.mobilenet_v2((32, 32, 3), 0.35, include_top=False, pooling="avg").layers[-1][1]
out.append(f"(2, {features[0]}) True")
out.append("mobilenet_0.25_128 True")
out.append("mobilenetv2_0.50_96 True")
out.append("mobilenet_0.25_224 True")   # Keras names the model after the weights' size
out.append("True")
out.append("OSError True")   # tfs's get_file: the cached file is missing (Keras would download it)
preds = np.zeros((2, 1000))
preds[0, 7] = 0.75
preds[0, 3] = 0.25
preds[1, 999] = 0.625
preds[1, 0] = 0.125
decoded = [[(f"n{i:08d}", f"class_{i}", p[i]) for i in p.argsort()[-2:][::-1]] for p in preds]
out.append(str(decoded))
a = np.array([[0.0, 63.75, 127.5, 255.0]], dtype=np.float32)
out.append(str(a / np.float32(127.5) - np.float32(1.0)))
out.append(str(np.array([[51.0, 204.0]], dtype=np.float32) / np.float32(127.5) - np.float32(1.0)))
W = ("The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training on "
     "ImageNet), or the path to the weights file to be loaded.  ")
out += ["ValueError: " + W + "Received weights=no_such_file.h5",
        'ValueError: If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000.  Received classes=10',
        "ValueError: If imagenet weights are being loaded, depth multiplier must be 1.  Received depth_multiplier=2",
        "ValueError: If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or `1.0` only.  Received alpha=0.3",
        "ValueError: Unknown argument(s): ({'foo': 1},)",
        "ValueError: " + W + "Received `weights=no_such_file.h5`",
        'ValueError: If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000. Received `classes=10`',
        "ValueError: If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received `alpha=0.3`",
        "ValueError: Unknown argument(s): {'bar': 2}",
        "ValueError: input_tensor.shape[2] must equal input_shape[1]; Received `input_tensor.shape=(None, 64, 64, 3)`, "
        "`input_shape=(64, 32, 3)`"]
arch.write_golden("keras_app_mobilenet", out)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "keras_app_mobilenet.err"), "w") as f:
    f.write("WARNING:tensorflow:`input_shape` is undefined or non-square, or `rows` is not in [128, 160, 192, 224]. "
            "Weights for input shape (224, 224) will be loaded as the default.\n")

# err_keras_app_mobilenet: the same alpha error uncaught, located at the call (column of the call expression)
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "err_keras_app_mobilenet.tfs")).read()
lines = src.splitlines()
row = next(i for i, l in enumerate(lines) if "MobileNetV2(" in l)
col = lines[row].index("tf.keras")
msg = ("If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; "
       "Received `alpha=0.3`")
base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "err_keras_app_mobilenet")
with open(base + ".err", "w") as f:
    f.write(f"err_keras_app_mobilenet.tfs:{row + 1}:{col + 1}: error: ValueError: {msg}\n{lines[row]}\n{' ' * col}^\n")
with open(base + ".out", "w") as f:
    pass
with open(base + ".status", "w") as f:
    f.write("1\n")
