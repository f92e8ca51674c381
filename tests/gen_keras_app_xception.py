"""gen_keras_app_xception.py — writes tests/programs/keras_app_xception.out: Xception described in plain Python (tests/keras_app_arch.py, checked against Keras's documented totals), numpy for preprocess_input, Keras 2.15's error texts."""
import os
import sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_app_arch as arch

arch.check_documented()
out = []
base = arch.xception((71, 71, 3), include_top=False)
out += arch.describe(base, "xception", 7)
out.append("(1, " + ", ".join(str(d) for d in base.layers[-1][1]) + ") True")
out += arch.describe(arch.xception((100, 80, 3), include_top=False, pooling="max"), "xception", 7)
out += arch.describe(arch.xception((75, 75, 3), classes=5), "xception", 7)
full = arch.xception((299, 299, 3))
out.append(f"xception {len(full.layers)} {full.summary()[0]} (None, 1000)")
out.append("xception True")
out.append(str(np.array([[0.0, 255.0, 25.5]], dtype=np.float32) / np.float32(127.5) - np.float32(1.0)))
out += ["ValueError: The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training "
        "on ImageNet), or the path to the weights file to be loaded.",
        'ValueError: If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000',
        "ValueError: Input size must be at least 71x71; Received: input_shape=(70, 70, 3)"]
arch.write_golden("keras_app_xception", out)
