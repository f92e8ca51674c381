#!/usr/bin/python3
# gen_keras_app_inception.py — writes tests/programs/keras_app_inception.out: InceptionV3's layers, parameter counts and shapes, derived from the architecture.
"""Independent reference for keras_app_inception.tfs.

    /usr/bin/python3 tests/gen_keras_app_inception.py

Inception v3 (Szegedy et al. 2016) as Keras 2.15's keras/applications/inception_v3.py lays it out, walked here in
plain Python: each unit is Conv2D (no bias, k1*k2*cin*cout) + BatchNormalization(scale=False: beta trainable,
moving mean/variance not) + ReLU, the layers auto-named conv2d_N / batch_normalization_N / activation_N in creation
order, and listed as a Keras functional model lists them (by depth from the output, ties by a depth-first walk); the stem, three 35x35 modules, a reduction, four 17x17 modules, a reduction, two 8x8 modules, then the
classifier or the optional pooling.  Keras's documented totals (23,851,784 with the classifier; 21,802,784
without) are asserted as a cross-check.  preprocess_input ("tf" mode) is x / 127.5 - 1, computed with numpy.
Error texts are Keras 2.15's messages (the get_file one is tfs's: stdlib/modules/kdatasets.c).
"""
import numpy as np
from keras_app_expect import Net, CLASSES, WEIGHTS, missing_file, names, not_default, shape, too_small, write


def module_a(net, x, pool, name):
    b1 = net.unit(x, 64, 1, 1)
    b5 = net.unit(net.unit(x, 48, 1, 1), 64, 5, 5)
    b3 = net.unit(net.unit(net.unit(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    bp = net.unit(net.avgpool(x), pool, 1, 1)
    return net.concat([b1, b5, b3, bp], name)


def module_c(net, x, width, name):
    b1 = net.unit(x, 192, 1, 1)
    b7 = net.unit(net.unit(net.unit(x, width, 1, 1), width, 1, 7), 192, 7, 1)
    bd = net.unit(x, width, 1, 1)
    for kh, kw, f in [(7, 1, width), (1, 7, width), (7, 1, width), (1, 7, 192)]:
        bd = net.unit(bd, f, kh, kw)
    bp = net.unit(net.avgpool(x), 192, 1, 1)
    return net.concat([b1, b7, bd, bp], name)


def build(h=299, w=299, include_top=True, pooling=None, classes=1000):
    net = Net(h, w)
    x = (h, w, 3, net.add("InputLayer", None, [], name="input_1"))
    x = net.unit(x, 32, 3, 3, 2, "valid")
    x = net.unit(x, 32, 3, 3, 1, "valid")
    x = net.unit(x, 64, 3, 3)
    x = net.maxpool(x)
    x = net.unit(x, 80, 1, 1, 1, "valid")
    x = net.unit(x, 192, 3, 3, 1, "valid")
    x = net.maxpool(x)
    x = module_a(net, x, 32, "mixed0")
    x = module_a(net, x, 64, "mixed1")
    x = module_a(net, x, 64, "mixed2")
    b3 = net.unit(x, 384, 3, 3, 2, "valid")
    bd = net.unit(net.unit(net.unit(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, "valid")
    x = net.concat([b3, bd, net.maxpool(x)], "mixed3")
    for width, name in [(128, "mixed4"), (160, "mixed5"), (160, "mixed6"), (192, "mixed7")]:
        x = module_c(net, x, width, name)
    b3 = net.unit(net.unit(x, 192, 1, 1), 320, 3, 3, 2, "valid")
    b7 = net.unit(net.unit(net.unit(net.unit(x, 192, 1, 1), 192, 1, 7), 192, 7, 1), 192, 3, 3, 2, "valid")
    x = net.concat([b3, b7, net.maxpool(x)], "mixed8")
    for i in range(2):
        b1 = net.unit(x, 320, 1, 1)
        b3 = net.unit(x, 384, 1, 1)
        b3 = net.concat([net.unit(b3, 384, 1, 3), net.unit(b3, 384, 3, 1)], f"mixed9_{i}")
        bd = net.unit(net.unit(x, 448, 1, 1), 384, 3, 3)
        bd = net.concat([net.unit(bd, 384, 1, 3), net.unit(bd, 384, 3, 1)])
        bp = net.unit(net.avgpool(x), 192, 1, 1)
        x = net.concat([b1, b3, bd, bp], f"mixed{9 + i}")
    return net.finish(x, include_top, pooling, classes)


def describe(net):
    return net.describe("inception_v3")


def main():
    assert build().totals()[0] == 23851784
    assert build(include_top=False).totals()[0] == 21802784
    out = []
    full = build()
    out.append(describe(full))
    out.append(names([l[0] for l in full.layers[:10]]))
    out.append(names([l[0] for l in full.layers[-6:]]))
    out.append(names([l[0] for l in full.layers if l[1] == "Concatenate"]))
    out.append(names([l[0] for l in full.layers if l[1] == "MaxPooling2D"]))
    out.append("False True 3 False (3, 3)")   # BN without scale: beta, moving mean, moving variance
    for size, pooling in [((75, 75, 3), None), ((139, 139, 3), "avg"), ((150, 200, 3), "max"), ((299, 299, 3), None), (None, None)]:
        net = build(*(size[:2] if size else (None, None)), include_top=False, pooling=pooling)
        last = net.layers[-1][0]
        out.append(f"{'None' if size is None else shape(size)} {pooling} {len(net.layers)} {net.totals()[0]} {shape(net.output)} {last}")
    out.append(describe(build(80, 96, classes=5)))
    out.append("(2, 5) True")   # a forward pass: shape, all finite
    x = np.array([[0.0, 127.5, 255.0, 51.0]], dtype=np.float32)
    out.append(str(x / np.float32(127.5) - np.float32(1.0)))
    t = np.array([[255.0, 0.0, 25.5]], dtype=np.float32) / np.float32(127.5) - np.float32(1.0)
    out.append(f"tf.Tensor({t}, shape=(1, 3), dtype=float32)")
    fname = "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5"
    out.append(missing_file(fname, "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/" + fname))
    out.append(f"{len(build(75, 75, include_top=False).layers)} True")
    out += [WEIGHTS + "; Received: weights=no_such_file.h5", CLASSES + "; Received classes=10",
            too_small(75, (74, 74, 3)), not_default((299, 299, 3), (224, 224, 3))]
    write("keras_app_inception", out)


if __name__ == "__main__":
    main()
