#!/usr/bin/python3
# gen_keras_more_layers.py — writes tests/programs/keras_more_layers.out and keras_more_layers_noise.out from numpy models of Keras 2.15's layers.
"""Independent reference for keras_more_layers.tfs, keras_more_layers_noise.tfs and err_keras_more_layers.tfs (TensorFlow and Keras are not
installed here).

    /usr/bin/python3 tests/gen_keras_more_layers.py

The layers as Keras 2.15 defines them (keras/layers/reshaping, pooling, regularization, activation/thresholded_relu.py,
normalization/unit_normalization.py): UpSampling repeats each step (backend.repeat_elements), ZeroPadding pads with
zeros, Cropping slices, the global poolings reduce the spatial axes, ThresholdedReLU keeps x > theta (theta a float32),
UnitNormalization is tf.math.l2_normalize (x / sqrt(max(sum x^2, 1e-12))), ActivityRegularization adds
(l1 * sum|y| + l2 * sum y^2) / batch to the losses. Argument forms: conv_utils.normalize_tuple and the 3-D layers'
int / 3 ints / 3 pairs. Summaries as layer_utils.print_summary prints a Sequential model (65 columns).
"""
import os

import numpy as np

from keras_tfop_text import memory, print_row

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = []
SEQ = (29, 55, 65)   # a Sequential model's summary columns


def p(*a):
    OUT.append(" ".join(str(x) for x in a))


def show(a):
    p(" ".join(f"{float(v):.4f}" for v in np.reshape(np.asarray(a, np.float64), [-1])))


def f32(v):
    return float(np.float32(v))


# ---- argument normalization (conv_utils.normalize_tuple, the 3-D layers' forms) -------------------
def ntuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def pairs3(v):
    if isinstance(v, int):
        return ((v, v),) * 3
    return tuple(ntuple(e, 2) for e in v)


def spatial(rank, fmt):
    return list(range(2, rank)) if fmt == "channels_first" else list(range(1, rank - 1))


# ---- the layers as numpy functions: (output, output shape of a given input shape) ------------------
def upsample(x, sizes, axes):
    for k, ax in zip(sizes, axes):
        x = np.repeat(x, k, axis=ax)
    return x


def zeropad(x, pads, axes):
    w = [(0, 0)] * x.ndim
    for pr, ax in zip(pads, axes):
        w[ax] = pr
    return np.pad(x, w)


def crop(x, crops, axes):
    idx = [slice(None)] * x.ndim
    for (a, b), ax in zip(crops, axes):
        idx[ax] = slice(a, x.shape[ax] - b)
    return x[tuple(idx)]


def shape_after(shape, op, args, axes):
    out = list(shape)
    for a, ax in zip(args, axes):
        if out[ax] is None:
            continue
        out[ax] = out[ax] * a if op == "up" else out[ax] + (a[0] + a[1]) * (1 if op == "pad" else -1)
    return tuple(out)


def gpool(x, fn, axes, keepdims):
    return fn(x, axis=tuple(axes), keepdims=keepdims)


def gpool_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def trelu(x, theta):
    return x * (x > np.float32(theta))


def unitnorm(x, axes):
    x = x.astype(np.float64)
    return x / np.sqrt(np.maximum((x * x).sum(axis=tuple(axes), keepdims=True), 1e-12))


def activity(y, l1=0.0, l2=0.0):
    y = y.astype(np.float64)
    return (f32(l1) * np.abs(y).sum() + f32(l2) * (y * y).sum()) / y.shape[0]


# ---- model.summary() of a Sequential model (65 columns) --------------------------------------------
def summary(name, rows):
    # rows: (layer name, class, output shape[, parameter count]); every parameter trainable
    out = [f'Model: "{name}"', "_" * 65] + print_row(["Layer (type)", "Output Shape", "Param #"], SEQ) + ["=" * 65]
    for r in rows:
        out += print_row([f"{r[0]} ({r[1]})", str(r[2]), r[3] if len(r) > 3 else 0], SEQ) + [" " * 65]
    n = sum(r[3] for r in rows if len(r) > 3)
    out += ["=" * 65, f"Total params: {n} ({memory(n)})", f"Trainable params: {n} ({memory(n)})",
            f"Non-trainable params: 0 ({memory(0)})", "_" * 65]
    for line in out:
        p(line)


def base(name):
    return {"name": name, "trainable": True, "dtype": "float32"}


def call_error(layer, cls, msg, shape):
    p(f"ValueError: Exception encountered when calling layer '{layer}' (type {cls}).\n\n{msg}\n\n"
      f"Call arguments received by layer '{layer}' (type {cls}):\n  • inputs=tf.Tensor(shape={shape}, dtype=float32)")


def main_program():
    x1 = ((np.arange(2 * 4 * 3) % 7).reshape(2, 4, 3).astype(np.float32) / np.float32(3.0))
    # the Sequential model of 1-D layers
    summary("sequential", [("up_sampling1d", "UpSampling1D", (None, 8, 3)), ("zero_padding1d", "ZeroPadding1D", (None, 11, 3)),
                           ("cropping1d", "Cropping1D", (None, 9, 3)), ("thresholded_re_lu", "ThresholdedReLU", (None, 9, 3)),
                           ("unit_normalization", "UnitNormalization", (None, 9, 3)),
                           ("activity_regularization", "ActivityRegularization", (None, 9, 3)),
                           ("global_max_pooling1d", "GlobalMaxPooling1D", (None, 3))])
    y = upsample(x1, [2], [1])
    y = zeropad(y, [(1, 2)], [1])
    y = crop(y, [(1, 1)], [1])
    y = trelu(y, 0.5)
    y = unitnorm(y, [2])
    show(y.max(axis=1))
    p((None, 3))
    # the Sequential model of 3-D layers
    summary("sequential_1", [("up_sampling3d", "UpSampling3D", (None, 2, 6, 2, 2)),
                             ("zero_padding3d", "ZeroPadding3D", (None, 3, 8, 4, 2)),
                             ("cropping3d", "Cropping3D", (None, 1, 4, 4, 2)),
                             ("global_average_pooling3d", "GlobalAveragePooling3D", (None, 1, 1, 1, 2)),
                             ("global_max_pooling3d", "GlobalMaxPooling3D", (None, 2))])
    x3 = (np.arange(2 * 2 * 3 * 2 * 2) % 5).reshape(2, 2, 3, 2, 2).astype(np.float32)
    y = upsample(x3, (1, 2, 1), [1, 2, 3])
    y = zeropad(y, pairs3(((1, 0), (0, 2), 1)), [1, 2, 3])
    y = crop(y, pairs3((1, 2, 0)), [1, 2, 3])
    y = y.astype(np.float64).mean(axis=(1, 2, 3), keepdims=True).max(axis=(1, 2, 3))
    show(y)

    # 1-D layers: (class, op, argument)
    for cls, op, arg in [("UpSampling1D", "up", 2), ("UpSampling1D", "up", 3), ("ZeroPadding1D", "pad", (1, 1)),
                         ("ZeroPadding1D", "pad", (0, 2)), ("ZeroPadding1D", "pad", (2, 1)), ("Cropping1D", "crop", (1, 1)),
                         ("Cropping1D", "crop", (0, 2)), ("Cropping1D", "crop", (2, 0))]:
        fn = {"up": upsample, "pad": zeropad, "crop": crop}[op]
        y = fn(x1, [arg], [1])
        p(cls, tshape(y.shape), shape_after((None, 4, 3), op, [arg], [1]), shape_after((None, None, 3), op, [arg], [1]))
        show(y)

    x5 = (np.arange(2 * 3 * 4 * 5 * 2) % 9).reshape(2, 3, 4, 5, 2).astype(np.float32)
    cl, cf = spatial(5, "channels_last"), spatial(5, "channels_first")
    for cls, op, arg, axes in [("UpSampling3D", "up", (2, 2, 2), cl), ("UpSampling3D", "up", (1, 2, 3), cl),
                               ("UpSampling3D", "up", (2, 2, 2), cf),
                               ("ZeroPadding3D", "pad", pairs3(1), cl), ("ZeroPadding3D", "pad", pairs3((1, 0, 2)), cl),
                               ("ZeroPadding3D", "pad", pairs3(((1, 0), (0, 2), (2, 1))), cl),
                               ("ZeroPadding3D", "pad", pairs3(((0, 1), 2, (1, 0))), cf),
                               ("Cropping3D", "crop", pairs3(1), cl), ("Cropping3D", "crop", pairs3((1, 0, 2)), cl),
                               ("Cropping3D", "crop", pairs3(((1, 0), (0, 2), (2, 1))), cl),
                               ("Cropping3D", "crop", pairs3(((0, 1), 1, (1, 0))), cf)]:
        fn = {"up": upsample, "pad": zeropad, "crop": crop}[op]
        y = fn(x5, arg, axes)
        p(cls, tshape(y.shape), shape_after((None, 3, 4, 5, 2), op, arg, axes))
        show(y)
    for cls, fn, axes, keep in [("GlobalMaxPooling3D", np.max, cl, False), ("GlobalAveragePooling3D", np.mean, cl, False),
                                ("GlobalMaxPooling3D", np.max, cl, True), ("GlobalAveragePooling3D", np.mean, cf, False),
                                ("GlobalMaxPooling3D", np.max, cf, True), ("GlobalAveragePooling3D", np.mean, cl, True)]:
        y = gpool(x5.astype(np.float64), fn, axes, keep)
        p(cls, tshape(y.shape), gpool_shape((None, 3, 4, 5, 2), axes, keep))
        show(y)

    xv = np.linspace(-2.0, 2.0, 24).reshape(2, 3, 4).astype(np.float32)
    for cls, y in [("ThresholdedReLU", trelu(xv, 1.0)), ("ThresholdedReLU", trelu(xv, 0.1)), ("ThresholdedReLU", trelu(xv, 0.0)),
                   ("UnitNormalization", unitnorm(xv, [2])), ("UnitNormalization", unitnorm(xv, [1])),
                   ("UnitNormalization", unitnorm(xv, [1, 2])), ("UnitNormalization", unitnorm(xv, [0, 2]))]:
        p(cls, tshape(y.shape), "float32")
        show(y)
    show(unitnorm(np.array([[0.0, 0.0], [3.0, 4.0]]), [1]))

    # the gradient of sum(UpSampling3D((1, 2, 1))(t) * w): each input cell collects its two copies' weights
    w5 = np.linspace(-1.0, 1.0, 2 * 3 * 8 * 5 * 2).reshape(2, 3, 8, 5, 2).astype(np.float32)
    show(w5.astype(np.float64).reshape(2, 3, 4, 2, 5, 2).sum(axis=3))

    # ActivityRegularization
    p(True, 1, f"{activity(x1, 0.01, 0.1):.5f}")
    wk = np.array([[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]])
    bk = np.array([0.1, -0.2])
    xa = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [-1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    h = xa @ wk + bk
    reg = activity(h, l2=0.5)
    p(1, f"{reg:.5f}")
    total = (h * h).mean() + reg
    p(f"{total:.5f}", f"{total:.5f}")

    # the functional model and the traced function
    p((None, 2), (None, 2))
    y = zeropad(x5, pairs3(1), cl)
    y = crop(y, pairs3(((0, 1), (1, 1), (2, 0))), cl)
    y = upsample(y, (2, 1, 1), cl)
    show(y.astype(np.float64).mean(axis=(1, 2, 3)))
    show(upsample(crop(x1, [(1, 0)], [1]), [2], [1]))

    # get_config
    configs = [
        ("UpSampling1D", dict(base("a"), size=3)),
        ("UpSampling3D", dict(base("b"), size=(1, 2, 3), data_format="channels_last")),
        ("ZeroPadding1D", dict(base("c"), padding=(2, 2))),
        ("ZeroPadding3D", dict(base("d"), padding=((1, 1), (2, 2), (3, 3)), data_format="channels_first")),
        ("Cropping1D", dict(base("e"), cropping=(0, 1))),
        ("Cropping3D", dict(base("f"), cropping=((1, 1), (1, 1), (1, 1)), data_format="channels_last")),
        ("GlobalMaxPooling3D", dict(base("g"), data_format="channels_last", keepdims=False)),
        ("GlobalAveragePooling3D", dict(base("h"), data_format="channels_last", keepdims=True)),
        ("ThresholdedReLU", dict(base("i"), theta=f32(0.1))),
        ("UnitNormalization", dict(base("j"), axis=-1)),
        ("UnitNormalization", dict(base("k"), axis=[1, 2])),
        ("ActivityRegularization", dict(base("l"), l1=0.01, l2=0.0)),
    ]
    for cls, cfg in configs:
        p(cls, cfg)
        p(True)
    p(dict(base("built"), axis=[2]))
    p(((2, 2), (2, 2), (2, 2)))

    # Keras's messages
    def tup(name, n, v, req=None):
        m = f"The `{name}` argument must be a tuple of {n} integers. Received: {v}"
        return m if req is None else m + f" including {req[0]} that does not satisfy the requirement `{req[1]}`."

    def three(what, v):
        s = "pad" if what == "padding" else "crop"
        return (f"`{what}` should be either an int, a tuple of 3 ints (symmetric_dim1_{s}, symmetric_dim2_{s}, "
                f"symmetric_dim3_{s}), or a tuple of 3 tuples of 2 ints ((left_dim1_{s}, right_dim1_{s}), "
                f"(left_dim2_{s}, right_dim2_{s}), (left_dim3_{s}, right_dim2_{s})). Received: {v}.")

    def elem(name, n, v, e):
        return f"The `{name}` argument must be a tuple of {n} integers. Received: {v}including element {e} of type {type(e)}"

    for m in [tup("size", 3, (2, 2)), tup("size", 3, 0, ({0}, "> 0")), elem("size", 3, (2, "a", 2), "a"),
              elem("1st entry of padding", 2, (1, None), None), elem("cropping", 2, "ab", "a"), tup("padding", 2, (1, 2, 3)),
              tup("padding", 2, -1, ({-1}, ">= 0")), "`padding` should have 3 elements. Received: (1, 2).",
              three("padding", 1.5), tup("2nd entry of padding", 2, (1,)),
              tup("3rd entry of padding", 2, -1, ({-1}, ">= 0")),
              'The `data_format` argument must be one of "channels_first", "channels_last". Received: channels_middle',
              tup("cropping", 2, [1]), "`cropping` should have 3 elements. Received: (1, 2, 3, 4).", three("cropping", None)]:
        p("ValueError:", m)
    call_error("crop", "Cropping1D", "cropping parameter of Cropping layer must be greater than the input shape. "
               "Received: inputs.shape=(2, 4, 3), and cropping=(2, 2)", (2, 4, 3))
    p('ValueError: Input 0 of layer "gmp" is incompatible with the layer: expected ndim=5, found ndim=4. Full shape received: (2, 3, 4, 5)')
    p('ValueError: Input 0 of layer "up" is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (2, 3)')
    p("ValueError: Theta of a Thresholded ReLU layer cannot be None, expecting a float. Received: None")
    p("ValueError: The theta value of a Thresholded ReLU layer should be >=0. Received: -1")
    p("TypeError: Invalid value for `axis` argument: expected an int or a list/tuple of ints. Received: axis=x")
    p("ValueError: Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with inputs.rank=2). Received: axis=(2,)")
    p("ValueError: Duplicate axis: (1, 1)")


def tshape(shape):
    return str(tuple(shape))


def write(name):
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as f:
        f.write("\n".join(OUT) + "\n")
    OUT.clear()


def noise_program():
    # the model of noise layers: its summary, predict equal to a direct call, fit's two finite losses
    summary("sequential", [("gaussian_noise", "GaussianNoise", (None, 6, 4)),
                           ("spatial_dropout1d", "SpatialDropout1D", (None, 6, 4)),
                           ("gaussian_dropout", "GaussianDropout", (None, 6, 4)), ("alpha_dropout", "AlphaDropout", (None, 6, 4)),
                           ("flatten", "Flatten", (None, 24)), ("dense", "Dense", (None, 1), 25)])
    p(True)
    p(2, True)
    # inference: unchanged
    for cls, shape in [("SpatialDropout1D", (8, 20, 50)), ("SpatialDropout2D", (8, 5, 6, 40)),
                       ("SpatialDropout3D", (4, 3, 4, 5, 30)), ("GaussianNoise", (200, 500)),
                       ("GaussianDropout", (200, 500)), ("AlphaDropout", (200, 500))]:
        p(cls, True, True, shape)
    # SpatialDropout in training: the kept value 1 / (1 - rate), the mask shared along the spatial axes
    for cls, shape, rate in [("SpatialDropout1D", (8, 20, 50), 0.5), ("SpatialDropout1D", (8, 20, 50), 0.2),
                             ("SpatialDropout2D", (8, 5, 6, 40), 0.5), ("SpatialDropout2D", (8, 40, 5, 6), 0.75),
                             ("SpatialDropout3D", (4, 3, 4, 5, 30), 0.5), ("SpatialDropout3D", (8, 60, 3, 4, 5), 0.25)]:
        p(cls, tshape(shape), [0.0, round(f32(1.0) / f32(1.0 - rate), 4)], True, True)
    p(True)
    for stddev in [0.5, 2.0]:
        p("GaussianNoise", stddev, True, True)
    p("GaussianNoise shift", True, True)
    for rate in [0.1, 0.5]:
        p("GaussianDropout", rate, True, True)
    p(True, True)
    # AlphaDropout on ones: kept a * 1 + b, dropped a * alpha_p + b
    rate = 0.2
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    p("AlphaDropout", sorted([round(a * alpha_p + b, 4), round(a + b, 4)]), True)
    p("AlphaDropout", True, True)
    p("AlphaDropout rows", True)
    p(True)
    configs = [
        ("SpatialDropout1D", dict(base("a"), rate=0.3, noise_shape=None, seed=None)),
        ("SpatialDropout2D", dict(base("b"), rate=0.4, noise_shape=None, seed=None)),
        ("SpatialDropout3D", dict(base("c"), rate=0.5, noise_shape=None, seed=2)),
        ("GaussianNoise", dict(base("d"), stddev=0.25, seed=None)),
        ("GaussianNoise", dict(base("e"), stddev=1, seed=4)),
        ("GaussianDropout", dict(base("f"), rate=0.1, seed=None)),
        ("AlphaDropout", dict(base("g"), rate=0.2, seed=3)),
    ]
    for cls, cfg in configs:
        p(cls, cfg)
        p(True)
    # fit with the noise: the 20 inputs summed by a kernel of ones miss 20 by much; evaluate hits it
    for cls in ["GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout1D"]:
        p(cls, True, 0.0)
    p("ValueError: Invalid value 1.5 received for `rate`, expected a value between 0 and 1.")
    p('ValueError: `data_format` must be "channels_last" or "channels_first". Received: data_format=nhwc.')
    p('ValueError: `data_format` must be "channels_last" or "channels_first". Received: data_format=channels_middle.')
    for name, nd, shape in [("sd1", 3, (2, 3)), ("sd2", 4, (2, 3, 4)), ("sd3", 5, (2, 3, 4, 5))]:
        p(f'ValueError: Input 0 of layer "{name}" is incompatible with the layer: expected ndim={nd}, '
          f'found ndim={nd - 1}. Full shape received: {shape}')


if __name__ == "__main__":
    main_program()
    write("keras_more_layers")
    noise_program()
    write("keras_more_layers_noise")
    # err_keras_more_layers: one padded shape, then ZeroPadding3D's length message uncaught at line 4
    p(tshape(zeropad(np.ones([1, 2, 2, 2, 1]), pairs3(((1, 0), 2, (0, 1))), spatial(5, "channels_last")).shape))
    write("err_keras_more_layers")
    src = "L.ZeroPadding3D(padding=(1, 2))"
    with open(os.path.join(HERE, "programs", "err_keras_more_layers.err"), "w") as f:
        f.write(f"err_keras_more_layers.tfs:4:1: error: ValueError: `padding` should have 3 elements. Received: (1, 2).\n{src}\n^\n")
    with open(os.path.join(HERE, "programs", "err_keras_more_layers.status"), "w") as f:
        f.write("1\n")
