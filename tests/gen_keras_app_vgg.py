#!/usr/bin/python3
# gen_keras_app_vgg.py — writes tests/programs/keras_app_vgg.out: Keras 2.15's VGG16/VGG19 layers, counts and shapes (tests/app_arch.py), imagenet_utils.preprocess_input in numpy, decode_predictions over the program's class index.
"""Independent reference for keras_app_vgg.tfs.

    /usr/bin/python3 tests/gen_keras_app_vgg.py

Counts and shapes come from keras/applications/vgg16.py / vgg19.py's structure modelled in app_arch.py (checked
against Keras's documented totals). preprocess_input follows imagenet_utils.py's numpy path: non-float input
becomes float32; caffe reverses the channel axis (a view, then updated in place) and subtracts
[103.939, 116.779, 123.68]; tf computes x / 127.5 - 1; torch x / 255, minus [0.485, 0.456, 0.406], over
[0.229, 0.224, 0.225]. Tensors give the same float32 values. decode_predictions: argsort's last `top` indices,
reversed, as (wnid, name, score) from the class-index JSON the program writes. Error lines are Keras 2.15's texts.
"""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import app_arch as A  # noqa: E402  (checks its totals against Keras's documented ones)

out = ["True True"]
counters = {}
V16, V19 = (2, 2, 3, 3, 3), (2, 2, 4, 4, 4)


def model(name, convs, **kw):
    g, o = A.vgg(name, convs, counters=counters, **kw)
    line, names = A.summary(g, o)
    out.append(line)
    return names


out.append(str(model("vgg16", V16, input_shape=(32, 32, 3), classes=10)))
out.append(str(model("vgg19", V19, include_top=False, input_shape=(None, None, 3))))
for shape, pooling in [((48, 80, 3), "avg"), ((33, 64, 3), "max"), ((40, 40, 3), None)]:
    out.append(model("vgg16", V16, include_top=False, input_shape=shape, pooling=pooling)[-1])
model("vgg19", V19, input_shape=(64, 32, 3), classes=3)
W = "The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training on ImageNet), or the path to the weights file to be loaded."
C = 'If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000.'
out += [
    f"ValueError: {W}  Received: weights=no_such_file.h5",
    f"ValueError: {W}  Received: `weights=no_such_file.h5.`",
    f"ValueError: {C}  Received `classes=10`",
    f"ValueError: {C}  Received: `classes=10.`",
    "ValueError: Input size must be at least 32x32; Received: input_shape=(31, 64, 3)",
    "no error",
    "Only `None` and `softmax` activations are allowed for the `classifier_activation` argument when using pretrained weights, with `include_top=True`;  True",
    f"{2 * sum(V16)} True",   # kernel and bias of each notop convolution
    "True True",
    "OSError True",
]


def preprocess(x, data_format="channels_last", mode="caffe"):
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    first = data_format == "channels_first"
    if mode == "torch":
        x /= 255.0
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        x = (x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]) if first else x[..., ::-1]
        mean, std = [103.939, 116.779, 123.68], None
    for c in range(3):
        sl = ((c,) if x.ndim == 3 else (slice(None), c)) if first else (Ellipsis, c)
        x[sl] -= mean[c]
        if std is not None:
            x[sl] /= std[c]
    return x


img = (np.arange(2 * 2 * 2 * 3, dtype=np.float32) * 10.5).reshape(2, 2, 2, 3)
out.append(str(preprocess(img.copy())))
out.append(str(preprocess(img.copy().reshape(2, 3, 2, 2), "channels_first")))
out.append(str(preprocess(img[0].copy().reshape(3, 2, 2), "channels_first")))
out.append(str(preprocess(img.copy(), mode="torch")))
out.append(str(preprocess(np.arange(12, dtype=np.int32).reshape(3, 2, 2) * 20, "channels_first", "torch")))
out.append(str(preprocess(img.copy(), mode="tf")[1, 1]))
out.append(str(preprocess(img.copy())))
out.append(str(preprocess(img.copy().reshape(2, 3, 2, 2), "channels_first", "torch")))
out.append(str(preprocess(img[0].copy().reshape(3, 2, 2), "channels_first")))
inplace = img.copy()
res = preprocess(inplace)
out.append(f"{res is inplace} {np.array_equal(res[..., ::-1], inplace)}")
out.append("ValueError: Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode=caffe2")
out.append("ValueError: Expected data_format to be one of `channels_first` or `channels_last`. Received: data_format=channels_middle")

index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}


def decode(preds, top=5):
    rows = []
    for pred in preds:
        top_i = pred.argsort()[-top:][::-1]
        r = [tuple(index[str(i)]) + (pred[i],) for i in top_i]
        r.sort(key=lambda t: t[2], reverse=True)
        rows.append(r)
    return rows


preds = ((np.arange(2000) * 7919) % 2000 / 2000.0).astype(np.float32).reshape(2, 1000)
for row in decode(preds, top=3):
    out.append(str(row))
out.append(f"{decode(preds[:1])[0][-1]} {len(decode(preds, top=1)[1])}")
for shape in ((2, 10), (1000,)):
    out.append("ValueError: `decode_predictions` expects a batch of predictions (i.e. a 2D array of shape (samples, 1000)). "
               f"Received array with shape: {shape}")
with open(os.path.join(HERE, "programs", "keras_app_vgg.out"), "w") as f:
    f.write("\n".join(out) + "\n")
