#!/usr/bin/python3
# gen_keras_app_resnet.py — writes tests/programs/keras_app_resnet.out and keras_app_resnet_v2.out: Keras 2.15's ResNet and ResNetV2 layer lists, parameter counts and output shapes, from the architecture (tests/app_arch.py).
"""Independent reference for keras_app_resnet.tfs.

    /usr/bin/python3 tests/gen_keras_app_resnet.py

The counts come from keras/applications/resnet.py's structure modelled in app_arch.py, whose full-size totals
are first checked against Keras's documented ones (keras.io/api/applications). Error lines are Keras 2.15's
messages (resnet.py, imagenet_utils.obtain_input_shape) for the arguments the program passes.
"""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import app_arch as A  # noqa: E402  (checks its totals against Keras's documented ones)

out = ["True True True"]
counters = {}


def model(depths=(3, 4, 6, 3), name="resnet50", v2=False, **kw):
    # one model's summary line appended to out; the program's Input / pooling names count on in counters
    g, o = A.resnet(name, depths, v2, counters=counters, **kw)
    line, names = A.summary(g, o)
    out.append(line)
    return g, names


g, names = model()
out.append(str(names[:8]))
out.append(str(names[7:19]))
out.append(str(names[-14:]))
out.append(f"{A.shape_str(g.layers[names[0]]['shape'])} {A.shape_str(g.layers['conv3_block1_0_conv']['shape'])} "
           f"{A.shape_str(g.layers['conv4_block6_out']['shape'])}")
for shape, pooling in [((32, 32, 3), None), ((75, 99, 3), "avg"), ((None, None, 3), "max"), ((200, 33, 1), None)]:
    g, names = model(include_top=False, input_shape=shape, pooling=pooling)
    out.append(f"{A.shape_str(shape)} {names[-1]}")
model(input_shape=(64, 64, 3), classes=10)
out.append("(2, 10) float32 True")
model(A.DEPTHS["resnet101"], "resnet101", include_top=False, input_shape=(32, 32, 3))
model(A.DEPTHS["resnet152"], "resnet152", include_top=False, input_shape=(32, 32, 3))
out += [
    "ValueError: The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training on ImageNet), or the path to the weights file to be loaded.",
    'ValueError: If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000',
    "ValueError: When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be (224, 224, 3).  Received: input_shape=(64, 64, 3)",
    "ValueError: Input size must be at least 32x32; Received: input_shape=(16, 40, 3)",
    "ValueError: `input_shape` must be a tuple of three integers.",
    "ValueError: The input must have 3 channels; Received `input_shape=(32, 32, 1)`",
    "ValueError: If `include_top` is True, you should specify a static `input_shape`. Received: input_shape=(None, None, 3)",
    "ValueError: Unknown argument(s): {'foo': 1}",
    "OSError True True",
]
# the weights round trip: every array of the 50-layer notop model (conv kernel+bias, BN gamma/beta/mean/var)
g, o = A.resnet("resnet50", (3, 4, 6, 3), False, include_top=False, input_shape=(32, 32, 3))
arrays = sum(2 if k.endswith("_conv") else 4 if k.endswith("_bn") else 0 for k in g.layers)
out.append(f"True {arrays}")
out.append("(2, 2048) (2, 2048) True")
with open(os.path.join(HERE, "programs", "keras_app_resnet.out"), "w") as f:
    f.write("\n".join(out) + "\n")

# keras_app_resnet_v2.out: the pre-activation models, and preprocess_input's "tf" mode in numpy
out = ["True True"]
counters = {}


def model_v2(depths=(3, 4, 6, 3), name="resnet50v2", **kw):
    return model(depths, name, True, **kw)


g, names = model_v2()
out.append(str(names[:20]))
out.append(str([n for n in names if n.startswith("max_pooling2d")]))
out.append(" ".join(A.shape_str(g.layers[n]["shape"]) for n in ("conv2_block3_out", "conv4_block6_out", "post_relu")))
for shape, pooling in [((32, 32, 3), None), ((97, 50, 3), "max")]:
    model_v2(include_top=False, input_shape=shape, pooling=pooling)
model_v2((3, 4, 23, 3), "resnet101v2", include_top=False, input_shape=(32, 32, 3), pooling="avg")
model_v2((3, 8, 36, 3), "resnet152v2", include_top=False, input_shape=(64, 48, 3))
model_v2(input_shape=(40, 40, 3), classes=7)
out.append("(2, 7) True True")


def tf_mode(x):
    # imagenet_utils "tf": non-floats to float32, then x / 127.5 - 1 in place
    x = x if x.dtype.kind == "f" else x.astype(np.float32)
    x /= 127.5
    x -= 1.0
    return x


a = np.array([[[0.0, 127.5, 255.0], [51.0, 204.0, 1.0]]], np.float32)
b = tf_mode(a)
out.append(f"{b} {b is a} {a[0, 1]}")
c = tf_mode(np.array([[[0, 255, 100]]], np.uint8))
out.append(f"{c} {c.dtype}")
t = tf_mode(np.array([[[0.0, 127.5, 255.0], [51.0, 204.0, 1.0]]], np.float32))
out.append(f"{t} float32")
with open(os.path.join(HERE, "programs", "keras_app_resnet_v2.out"), "w") as f:
    f.write("\n".join(out) + "\n")
