#!/usr/bin/python3
# gen_keras_app_inception_resnet_v2.py — writes tests/programs/keras_app_inception_resnet_v2.out: InceptionResNetV2's layers, parameter counts and shapes, derived from the architecture.
"""Independent reference for keras_app_inception_resnet_v2.tfs.

    /usr/bin/python3 tests/gen_keras_app_inception_resnet_v2.py

Inception-ResNet-v2 (Szegedy et al. 2017) as Keras 2.15's keras/applications/inception_resnet_v2.py lays it out,
walked here in plain Python: units of Conv2D (no bias) + BatchNormalization(scale=False) + ReLU, auto-named unless
named (name, name_bn, name_ac); the Inception-ResNet blocks A (block35, x10, scale 0.17), B (block17, x20, 0.1) and
C (block8, x10, 0.2; the last 1.0 without activation): branches concatenated (`<block>_mixed`), a biased 1x1
convolution back to the input's width (`<block>_conv`), and the scaled residual join (CustomScaleLayer, `<block>`).
Layers listed in Keras's functional order (tests/keras_app_expect.py).  Keras's documented totals (55,873,736 with
the classifier; 54,336,736 without) are asserted as a cross-check.
"""
import numpy as np
from keras_app_expect import Net, CLASSES, WEIGHTS, missing_file, names, shape, too_small, write


def unit(net, t, filters, k, stride=1, padding="same", activation=True, use_bias=False, name=None):
    h, w, c, src = t
    kh, kw = (k, k) if isinstance(k, int) else k
    a = net.add("Conv2D", "conv2d", [t], name=name, trainable=kh * kw * c * filters + (filters if use_bias else 0))
    if not use_bias:
        a = net.add("BatchNormalization", "batch_normalization", [(0, 0, 0, a)], name=None if name is None else name + "_bn",
                    trainable=filters, fixed=2 * filters)
    if activation:
        a = net.add("Activation", "activation", [(0, 0, 0, a)], name=None if name is None else name + "_ac")
    if padding == "valid":
        h = None if h is None else (h - kh) // stride + 1
        w = None if w is None else (w - kw) // stride + 1
    return (h, w, filters, a)


def block(net, x, scale, kind, idx, activation=True):
    u = lambda t, f, k: unit(net, t, f, k)
    if kind == "block35":
        branches = [u(x, 32, 1), u(u(x, 32, 1), 32, 3), u(u(u(x, 32, 1), 48, 3), 64, 3)]
    elif kind == "block17":
        branches = [u(x, 192, 1), u(u(u(x, 128, 1), 160, (1, 7)), 192, (7, 1))]
    else:
        branches = [u(x, 192, 1), u(u(u(x, 192, 1), 224, (1, 3)), 256, (3, 1))]
    name = f"{kind}_{idx}"
    mixed = net.concat(branches, name + "_mixed")
    up = unit(net, mixed, x[2], 1, activation=False, use_bias=True, name=name + "_conv")
    a = net.add("CustomScaleLayer", None, [x, up], name=name)
    net.scales.append((name, scale))
    if activation:
        a = net.add("Activation", None, [(0, 0, 0, a)], name=name + "_ac")
    return x[:3] + (a,)


def build(h=299, w=299, include_top=True, pooling=None, classes=1000):
    net = Net(h, w)
    net.scales = []
    x = (h, w, 3, net.add("InputLayer", None, [], name="input_1"))
    x = unit(net, x, 32, 3, 2, "valid")
    x = unit(net, x, 32, 3, 1, "valid")
    x = unit(net, x, 64, 3)
    x = net.maxpool(x)
    x = unit(net, x, 80, 1, 1, "valid")
    x = unit(net, x, 192, 3, 1, "valid")
    x = net.maxpool(x)
    b0 = unit(net, x, 96, 1)
    b1 = unit(net, unit(net, x, 48, 1), 64, 5)
    b2 = unit(net, unit(net, unit(net, x, 64, 1), 96, 3), 96, 3)
    bp = unit(net, net.avgpool(x), 64, 1)
    x = net.concat([b0, b1, b2, bp], "mixed_5b")
    for i in range(1, 11):
        x = block(net, x, 0.17, "block35", i)
    b0 = unit(net, x, 384, 3, 2, "valid")
    b1 = unit(net, unit(net, unit(net, x, 256, 1), 256, 3), 384, 3, 2, "valid")
    x = net.concat([b0, b1, net.maxpool(x)], "mixed_6a")
    for i in range(1, 21):
        x = block(net, x, 0.1, "block17", i)
    b0 = unit(net, unit(net, x, 256, 1), 384, 3, 2, "valid")
    b1 = unit(net, unit(net, x, 256, 1), 288, 3, 2, "valid")
    b2 = unit(net, unit(net, unit(net, x, 256, 1), 288, 3), 320, 3, 2, "valid")
    x = net.concat([b0, b1, b2, net.maxpool(x)], "mixed_7a")
    for i in range(1, 10):
        x = block(net, x, 0.2, "block8", i)
    x = block(net, x, 1.0, "block8", 10, activation=False)
    x = unit(net, x, 1536, 1, name="conv_7b")
    return net.finish(x, include_top, pooling, classes)


def describe(net):
    return net.describe("inception_resnet_v2")


def main():
    assert build().totals()[0] == 55873736
    assert build(include_top=False).totals()[0] == 54336736
    out = []
    full = build()
    out.append(describe(full))
    out.append(names([l[0] for l in full.layers[:8]]))
    out.append(names([l[0] for l in full.layers[-12:]]))
    order = [l[0] for l in full.layers if l[1] == "CustomScaleLayer"]
    scale = dict(full.scales)
    out.append(f"{len(order)} [" + ", ".join(f"('{n}', {scale[n]})" for n in order[::9]) + f"] {scale['block17_3']}")
    out.append(f"{names([l[0] for l in full.layers if l[1] == 'Concatenate'][:3])} True")
    out.append(names([l[0] for l in full.layers if l[0].startswith("block8_10")]))
    for size, pooling in [((75, 75, 3), None), ((139, 139, 3), "avg"), ((160, 100, 3), "max"), (None, None)]:
        net = build(*(size[:2] if size else (None, None)), include_top=False, pooling=pooling)
        out.append(f"{'None' if size is None else shape(size)} {pooling} {len(net.layers)} {net.totals()[0]} {shape(net.output)} {net.layers[-1][0]}")
    out.append(describe(build(75, 75, classes=3)))
    out.append("(2, 3) True True")   # a forward pass: shape, all finite, sigmoid outputs in [0, 1]
    x = np.array([[0.0, 63.75, 255.0]], dtype=np.float32)
    out.append(str(x / np.float32(127.5) - np.float32(1.0)))
    fname = "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5"
    out.append(missing_file(fname, "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/" + fname))
    out.append(f"{len(build(75, 75, include_top=False).layers)} True")
    out += [WEIGHTS + ".", CLASSES, "ValueError: Unknown argument(s): {'foo': 1}", too_small(75, (74, 74, 3))]
    write("keras_app_inception_resnet_v2", out)


if __name__ == "__main__":
    main()
