#!/usr/bin/python3
# gen_keras_app_efficientnet.py — writes tests/programs/keras_app_efficientnet.out: EfficientNetB0..B7's layers, parameter counts and shapes, derived from the architecture.
"""Independent reference for keras_app_efficientnet.tfs.

    /usr/bin/python3 tests/gen_keras_app_efficientnet.py

The architecture as the EfficientNet paper and Keras 2.15's keras/applications/efficientnet.py describe it,
walked layer by layer here in plain Python: the stem (Rescaling, Normalization with mean/variance/count, a second
Rescaling when weights="imagenet", ZeroPadding2D + stride-2 3x3 Conv2D, BN, swish), the seven stages of MBConv
blocks (widths scaled by round_filters, depths by ceil(depth * repeats)), the 1x1 top convolution and the
classifier.  Each layer's parameters: Conv2D k*k*cin*cout (+cout bias), DepthwiseConv2D k*k*c, BatchNormalization
4c (gamma, beta trainable; moving mean/variance not), Dense cin*cout+cout.  Keras's documented totals (keras.io
applications table) are asserted as a cross-check.  Error texts are Keras 2.15's messages (the get_file one is
tfs's, which never downloads: stdlib/modules/kdatasets.c).
"""
import math
import os
from keras_app_expect import HERE, CLASSES, WEIGHTS, missing_file, names, not_default, shape, too_small, write

STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
          (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1)]
VARIANTS = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3), "b3": (1.2, 1.4, 300, 0.3),
            "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4), "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}
# keras.io/api/applications: total parameters with the ImageNet classifier
DOCUMENTED = {"b0": 5330571, "b1": 7856239, "b2": 9177569, "b3": 12320535, "b4": 19466823, "b5": 30562527,
              "b6": 43265143, "b7": 66658687}


class Net:
    def __init__(self):
        self.layers = []   # (name, type, trainable params, non-trainable params, output shape)

    def add(self, name, kind, shape, trainable=0, fixed=0, **extra):
        self.layers.append(dict(name=name, kind=kind, trainable=trainable, fixed=fixed, shape=shape, **extra))
        return shape


def pad_out(n, k):
    # correct_pad then a 'valid' stride-2 convolution of kernel k
    if n is None:
        return None
    pad = 2 * (k // 2) - (1 - n % 2)
    return (n + pad - k) // 2 + 1


def build(variant, include_top=True, weights=None, size=None, pooling=None, classes=1000, activation="softmax"):
    width, depth, default, dropout = VARIANTS[variant]

    def rf(f):
        f = f * width
        new = max(8, int(f + 4) // 8 * 8)
        return int(new + 8 if new < 0.9 * f else new)

    def rr(r):
        return int(math.ceil(depth * r))

    if size is None:
        size = (default, default, 3) if include_top else (None, None, 3)
    net = Net()
    h, w, c = size
    net.add("input_1", "InputLayer", (None, h, w, c))
    net.add("rescaling", "Rescaling", (None, h, w, c))
    net.add("normalization", "Normalization", (None, h, w, c), fixed=2 * c + 1)
    if weights == "imagenet":
        net.add("rescaling_1", "Rescaling", (None, h, w, c))
    h, w = pad_out(h, 3), pad_out(w, 3)
    net.add("stem_conv_pad", "ZeroPadding2D", None)
    f = rf(32)
    net.add("stem_conv", "Conv2D", (None, h, w, f), trainable=27 * f)
    net.add("stem_bn", "BatchNormalization", (None, h, w, f), trainable=2 * f, fixed=2 * f)
    net.add("stem_activation", "Activation", (None, h, w, f))
    total = float(sum(rr(s[1]) for s in STAGES))
    b = 0
    for i, (k, reps, fin, fout, expand, stride) in enumerate(STAGES):
        fin, fout = rf(fin), rf(fout)
        for j in range(rr(reps)):
            if j > 0:
                stride, fin = 1, fout
            name = f"block{i + 1}{chr(j + 97)}_"
            filters = fin * expand
            if expand != 1:
                net.add(name + "expand_conv", "Conv2D", None, trainable=fin * filters)
                net.add(name + "expand_bn", "BatchNormalization", None, trainable=2 * filters, fixed=2 * filters)
                net.add(name + "expand_activation", "Activation", None)
            if stride == 2:
                net.add(name + "dwconv_pad", "ZeroPadding2D", None, padding=((k // 2 - (1 - h % 2), k // 2), (k // 2 - (1 - w % 2), k // 2)) if h is not None else ((k // 2 - 1, k // 2),) * 2)
                h, w = pad_out(h, k), pad_out(w, k)
            net.add(name + "dwconv", "DepthwiseConv2D", None, trainable=k * k * filters)
            net.add(name + "bn", "BatchNormalization", None, trainable=2 * filters, fixed=2 * filters)
            net.add(name + "activation", "Activation", None)
            se = max(1, int(fin * 0.25))
            net.add(name + "se_squeeze", "GlobalAveragePooling2D", None)
            net.add(name + "se_reshape", "Reshape", None)
            net.add(name + "se_reduce", "Conv2D", None, trainable=filters * se + se)
            net.add(name + "se_expand", "Conv2D", None, trainable=se * filters + filters)
            net.add(name + "se_excite", "Multiply", None)
            net.add(name + "project_conv", "Conv2D", None, trainable=filters * fout)
            net.add(name + "project_bn", "BatchNormalization", None, trainable=2 * fout, fixed=2 * fout)
            if stride == 1 and fin == fout:
                rate = 0.2 * b / total
                if rate > 0:
                    net.add(name + "drop", "Dropout", None, rate=rate)
                net.add(name + "add", "Add", None)
            b += 1
    ftop = rf(1280)
    net.add("top_conv", "Conv2D", None, trainable=fout * ftop)
    net.add("top_bn", "BatchNormalization", None, trainable=2 * ftop, fixed=2 * ftop)
    out = net.add("top_activation", "Activation", (None, h, w, ftop))
    if include_top:
        net.add("avg_pool", "GlobalAveragePooling2D", (None, ftop))
        if dropout > 0:
            net.add("top_dropout", "Dropout", None, rate=dropout)
        out = net.add("predictions", "Dense", (None, classes), trainable=ftop * classes + classes, activation=activation)
    elif pooling == "avg":
        out = net.add("avg_pool", "GlobalAveragePooling2D", (None, ftop))
    elif pooling == "max":
        out = net.add("max_pool", "GlobalMaxPooling2D", (None, ftop))
    net.name = "efficientnet" + variant
    net.output = out
    return net


def counts(net):
    t = sum(l["trainable"] for l in net.layers)
    n = sum(l["fixed"] for l in net.layers)
    return t, n


def describe(net):
    t, n = counts(net)
    return f"{net.name} {len(net.layers)} {t + n} {t} {n} {shape(net.output)}"


def main():
    for v in VARIANTS:   # the cross-check: this walk reproduces Keras's documented totals
        t, n = counts(build(v))
        assert t + n == DOCUMENTED[v], (v, t + n, DOCUMENTED[v])
    out = []
    b0 = build("b0")
    out.append(describe(b0))
    out.append(names([l["name"] for l in b0.layers[:12]]))
    out.append(names([l["name"] for l in b0.layers[-8:]]))
    out.append(names([l["kind"] for l in b0.layers[1:6]]))
    drops = [l for l in b0.layers if l["name"].endswith("_drop")]
    out.append(f"{len(drops)} {drops[0]['name']} (None, 1, 1, 1) {round(drops[0]['rate'], 6)} {drops[-1]['name']} {round(drops[-1]['rate'], 6)}")
    pad = [l for l in build("b0", include_top=False, size=(224, 224, 3)).layers if l["name"] == "block2a_dwconv_pad"][0]
    out.append(f"{pad['padding']} swish")
    out.append("0.2 softmax")
    for v in VARIANTS:
        out.append(describe(build(v, include_top=False, size=(32, 32, 3))))
    for size, pooling in [((64, 64, 3), None), ((65, 47, 3), None), ((96, 96, 3), "avg"), ((33, 33, 3), "max"), (None, None)]:
        net = build("b0", include_top=False, size=size, pooling=pooling)
        out.append(f"{'None' if size is None else shape(size)} {pooling} {shape(net.output)} {net.layers[-1]['name']}")
    small = build("b2", include_top=True, size=(40, 40, 3), classes=7)
    out.append(describe(small))
    out.append("(2, 7) True")                      # a forward pass of 2 images: shape, all finite
    out.append(f"True {shape(build('b0', include_top=False, size=(48, 48, 3), pooling='avg').output)}")
    out.append("True")                             # preprocess_input returns its argument
    out.append(missing_file("efficientnetb0_notop.h5", "https://storage.googleapis.com/keras-applications/efficientnetb0_notop.h5"))
    plain = build("b0", include_top=False, size=(32, 32, 3))
    pre = build("b0", include_top=False, size=(32, 32, 3), weights="imagenet")
    out.append(f"{len(plain.layers)} {len(pre.layers)} {names([l['kind'] for l in pre.layers[1:5]])}")
    out.append("True")
    out.append(f"{len(plain.layers)} True")        # weights=<path>: no extra Rescaling
    out += [WEIGHTS + ".", CLASSES, too_small(32, (31, 31, 3)), not_default((224, 224, 3), (64, 64, 3)),
            "ValueError: `input_shape` must be a tuple of three integers.",
            "ValueError: If `include_top` is True, you should specify a static `input_shape`. Received: input_shape=(None, None, 3)"]
    write("keras_app_efficientnet", out)
    # err_keras_app_efficientnet: preprocess_input passes a number through; then the classes check, uncaught,
    # located at the user's call
    write("err_keras_app_efficientnet", ["3.5"])
    call = 'model = tf.keras.applications.EfficientNetB3(weights="imagenet", classes=10)'
    with open(os.path.join(HERE, "programs", "err_keras_app_efficientnet.err"), "w") as f:
        f.write(f"err_keras_app_efficientnet.tfs:4:9: {CLASSES.replace('ValueError', 'error: ValueError', 1)}\n{call}\n{' ' * 8}^\n")
    with open(os.path.join(HERE, "programs", "err_keras_app_efficientnet.status"), "w") as f:
        f.write("1\n")


if __name__ == "__main__":
    main()
