#!/usr/bin/python3
"""gen_conv_expect.py — golden programs coreapi_conv (tf.nn convolutions and pools) and keras_conv_layers (the Keras
convolution layers with set weights) against PyTorch.

    /usr/bin/python3 tests/gen_conv_expect.py        # writes tests/programs/{coreapi_conv,keras_conv_layers}.tfs and .out

The cases (conv2d with dilations, conv1d, conv2d_transpose / conv1d_transpose, depthwise and separable
convolutions, avg/max pools) are evaluated eagerly and in tf.function, and their gradients under
tf.GradientTape, by the program gen_coreapi_expect.write lays out.  The expected values come from torch in
float64: TF's SAME padding as an explicit pad (the extra cell at the bottom/right), a transposed convolution as
the gradient of the forward one with respect to its input (what it is), a depthwise convolution as a grouped
one, an average pool as a sum over windows divided by the count of unpadded cells, as TF's AvgPool.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

from gen_coreapi_expect import PROGS, f32, write

torch.set_default_dtype(torch.float64)


def t(a):
    return torch.tensor(np.asarray(a, np.float64))


def same_pads(n, k, s, d):
    ek = (k - 1) * d + 1
    out = (n + s - 1) // s
    total = max((out - 1) * s + ek - n, 0)
    return total // 2, total - total // 2


def conv2d(x, f, s, padding, d=(1, 1)):
    """x NHWC, f HWIO (torch tensors) -> NHWC, as tf.nn.conv2d."""
    xc = x.permute(0, 3, 1, 2)
    if padding == "SAME":
        top, bottom = same_pads(x.shape[1], f.shape[0], s[0], d[0])
        left, right = same_pads(x.shape[2], f.shape[1], s[1], d[1])
        xc = F.pad(xc, (left, right, top, bottom))
    return F.conv2d(xc, f.permute(3, 2, 0, 1), stride=tuple(s), dilation=tuple(d)).permute(0, 2, 3, 1)


def conv2d_transpose(dy, f, out_shape, s, padding, d=(1, 1)):
    z = torch.zeros(out_shape, requires_grad=True)
    (conv2d(z, f, s, padding, d) * dy).sum().backward()
    return z.grad


def depthwise(x, f, s, padding, d=(1, 1)):
    c, m = f.shape[2], f.shape[3]
    # grouped: output channel c*m + j reads input channel c with filter f[:, :, c, j]
    w = f.permute(2, 3, 0, 1).reshape(c * m, 1, f.shape[0], f.shape[1])
    xc = x.permute(0, 3, 1, 2)
    if padding == "SAME":
        top, bottom = same_pads(x.shape[1], f.shape[0], s[0], d[0])
        left, right = same_pads(x.shape[2], f.shape[1], s[1], d[1])
        xc = F.pad(xc, (left, right, top, bottom))
    return F.conv2d(xc, w, stride=tuple(s), dilation=tuple(d), groups=c).permute(0, 2, 3, 1)


def avg_pool(x, k, s, padding):
    xc = x.permute(0, 3, 1, 2)
    ones = torch.ones_like(xc[:, :1])
    if padding == "SAME":
        top, bottom = same_pads(x.shape[1], k[0], s[0], 1)
        left, right = same_pads(x.shape[2], k[1], s[1], 1)
        xc = F.pad(xc, (left, right, top, bottom))
        ones = F.pad(ones, (left, right, top, bottom))
    total = F.avg_pool2d(xc, tuple(k), tuple(s)) * (k[0] * k[1])
    count = F.avg_pool2d(ones, tuple(k), tuple(s)) * (k[0] * k[1])
    return (total / count).permute(0, 2, 3, 1)


def max_pool(x, k, s):
    return F.max_pool2d(x.permute(0, 3, 1, 2), tuple(k), tuple(s)).permute(0, 2, 3, 1)


def out(v):
    return f32(v.detach().numpy())


def grad(fn, x):
    x = x.clone().requires_grad_(True)
    fn(x).sum().backward()
    return f32(x.grad.numpy())


# Small integers: every sum of products is exact in float32, so the printed values cannot depend on the order
# of the additions (the average pools' one division is correctly rounded in both).
rng = np.random.RandomState(7)
X = f32(rng.randint(-3, 4, (2, 6, 5, 3)))      # NHWC images
K = f32(rng.randint(-3, 4, (3, 3, 3, 4)))      # HWIO
S = f32(rng.randint(-3, 4, (2, 7, 3)))         # NWC sequences
K1 = f32(rng.randint(-3, 4, (3, 3, 2)))        # conv1d filter [W, in, out]
DY = f32(rng.randint(-3, 4, (2, 3, 3, 4)))     # conv2d_transpose input (the out_backprop)
DW = f32(rng.randint(-3, 4, (2, 2, 3, 2)))     # depthwise [H, W, in, multiplier]
PW = f32(rng.randint(-3, 4, (1, 1, 6, 2)))     # pointwise


def seq2img(a):
    return a[:, None]


def main():
    x, k, s, k1, dy, dw, pw = t(X), t(K), t(S), t(K1), t(DY), t(DW), t(PW)

    def c1(a, f, st, pad, d=1):
        return conv2d(seq2img(a), f[None], (1, st), pad, (1, d))[:, 0]

    cases = [
        ("conv2d dilated valid", "tf.nn.conv2d(img, k, 1, 'VALID', dilations=2)", out(conv2d(x, k, (1, 1), "VALID", (2, 2)))),
        ("conv2d dilated same", "tf.nn.conv2d(img, k, 1, 'SAME', dilations=[2, 1])", out(conv2d(x, k, (1, 1), "SAME", (2, 1)))),
        ("conv2d strided dilated", "tf.nn.conv2d(img, k, 2, 'SAME', dilations=2)", out(conv2d(x, k, (2, 2), "SAME", (2, 2)))),
        ("conv1d same", "tf.nn.conv1d(s, k1, 1, 'SAME')", out(c1(s, k1, 1, "SAME"))),
        ("conv1d strided valid", "tf.nn.conv1d(s, k1, 2, 'VALID')", out(c1(s, k1, 2, "VALID"))),
        ("conv1d dilated", "tf.nn.conv1d(s, k1, 1, 'SAME', dilations=2)", out(c1(s, k1, 1, "SAME", 2))),
        ("conv2d_transpose same", "tf.nn.conv2d_transpose(dy, k, [2, 6, 5, 3], 2, 'SAME')",
         out(conv2d_transpose(dy, k, (2, 6, 5, 3), (2, 2), "SAME"))),
        ("conv2d_transpose valid", "tf.nn.conv2d_transpose(dy, k, [2, 7, 9, 3], [2, 3], 'VALID')",
         out(conv2d_transpose(dy, k, (2, 7, 9, 3), (2, 3), "VALID"))),
        ("conv1d_transpose", "tf.nn.conv1d_transpose(s[:, :4, :2], k1, [2, 8, 3], 2, 'SAME')",
         out(conv2d_transpose(seq2img(s[:, :4, :2]), k1[None], (2, 1, 8, 3), (1, 2), "SAME")[:, 0])),
        ("depthwise same", "tf.nn.depthwise_conv2d(img, dw, [1, 1, 1, 1], 'SAME')", out(depthwise(x, dw, (1, 1), "SAME"))),
        ("depthwise strided valid", "tf.nn.depthwise_conv2d(img, dw, [1, 2, 2, 1], 'VALID')", out(depthwise(x, dw, (2, 2), "VALID"))),
        ("depthwise dilated", "tf.nn.depthwise_conv2d(img, dw, [1, 1, 1, 1], 'VALID', dilations=[2, 2])",
         out(depthwise(x, dw, (1, 1), "VALID", (2, 2)))),
        ("separable", "tf.nn.separable_conv2d(img, dw, pw, [1, 1, 1, 1], 'SAME')",
         out(conv2d(depthwise(x, dw, (1, 1), "SAME"), pw, (1, 1), "VALID"))),
        ("avg_pool2d same", "tf.nn.avg_pool2d(img, 3, 2, 'SAME')", out(avg_pool(x, (3, 3), (2, 2), "SAME"))),
        ("avg_pool2d valid", "tf.nn.avg_pool2d(img, [2, 3], [1, 2], 'VALID')", out(avg_pool(x, (2, 3), (1, 2), "VALID"))),
        ("avg_pool1d", "tf.nn.avg_pool1d(s, 3, 2, 'SAME')", out(avg_pool(seq2img(s), (1, 3), (1, 2), "SAME")[:, 0])),
        ("avg_pool rank 3", "tf.nn.avg_pool(s, 2, 1, 'VALID')", out(avg_pool(seq2img(s), (1, 2), (1, 1), "VALID")[:, 0])),
        ("max_pool1d", "tf.nn.max_pool1d(s, 2, 2, 'VALID')", out(max_pool(seq2img(s), (1, 2), (1, 2))[:, 0])),
        ("max_pool rank 4", "tf.nn.max_pool(img, 2, 2, 'VALID')", out(max_pool(x, (2, 2), (2, 2)))),
    ]
    grads = [
        ("conv2d dilated input", "lambda img: tf.reduce_sum(tf.nn.conv2d(img, k, 1, 'SAME', dilations=2) ** 2)", "img",
         grad(lambda v: conv2d(v, k, (1, 1), "SAME", (2, 2)) ** 2, x)),
        ("conv2d dilated filter", "lambda k: tf.reduce_sum(tf.nn.conv2d(img, k, 2, 'SAME', dilations=2) ** 2)", "k",
         grad(lambda v: conv2d(x, v, (2, 2), "SAME", (2, 2)) ** 2, k)),
        ("conv2d_transpose input", "lambda dy: tf.reduce_sum(tf.nn.conv2d_transpose(dy, k, [2, 6, 5, 3], 2, 'SAME') ** 2)", "dy",
         grad(lambda v: conv2d_transpose_graph(v, k, (2, 6, 5, 3), (2, 2), "SAME") ** 2, dy)),
        ("conv2d_transpose filter", "lambda k: tf.reduce_sum(tf.nn.conv2d_transpose(dy, k, [2, 6, 5, 3], 2, 'SAME') ** 2)", "k",
         grad(lambda v: conv2d_transpose_graph(dy, v, (2, 6, 5, 3), (2, 2), "SAME") ** 2, k)),
        ("depthwise filter", "lambda dw: tf.reduce_sum(tf.nn.depthwise_conv2d(img, dw, [1, 1, 1, 1], 'SAME') ** 2)", "dw",
         grad(lambda v: depthwise(x, v, (1, 1), "SAME") ** 2, dw)),
        ("avg_pool2d", "lambda img: tf.reduce_sum(tf.nn.avg_pool2d(img, 3, 2, 'SAME') ** 2)", "img",
         grad(lambda v: avg_pool(v, (3, 3), (2, 2), "SAME") ** 2, x)),
    ]
    err_src = ["for bad in [lambda: tf.nn.conv2d_transpose(dy, k, [2, 9, 9, 3], 2, 'SAME'),",
               "            lambda: tf.nn.conv2d_transpose(dy, k, [2, 6, 5, 2], 2, 'SAME'),",
               "            lambda: tf.nn.depthwise_conv2d(img, dw, [1, 1, 2, 1], 'SAME'),",
               "            lambda: tf.nn.conv1d(s, k1, 1, 'SAME', data_format='NCW'),",
               "            lambda: tf.nn.avg_pool(tf.ones([1, 2, 2, 2, 1]), 2, 2, 'VALID')]:",
               "    try:", "        bad()",
               "    except (ValueError, NotImplementedError, tf.errors.InvalidArgumentError) as e:",
               "        print(type(e).__name__ + \": \" + str(e))"]
    err_out = ["InvalidArgumentError: Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 3, "
               "computed = 5 spatial_dim: 1 input: 9 filter: 3 output: 3 stride: 2 dilation: 1",
               "InvalidArgumentError: Conv2DCustomBackpropInput: input depth must be evenly divisible by filter depth",
               "InvalidArgumentError: Current implementation only supports equal length strides in the row and column dimensions.",
               "NotImplementedError: only the channels-last data_format (NWC) is supported on CPU, got NCW",
               "NotImplementedError: tf.nn.avg_pool: inputs of rank 3 or 4 (1-D or 2-D pooling) are supported, got rank 5"]
    write("coreapi_conv", "tf.nn conv1d, conv2d with dilations, conv2d_transpose/conv1d_transpose, depthwise/separable "
          "convolutions, avg/max pools (expected values from torch: tests/gen_conv_expect.py)",
          ["img = tf.constant(%s)" % X.tolist(), "k = tf.constant(%s)" % K.tolist(), "s = tf.constant(%s)" % S.tolist(),
           "k1 = tf.constant(%s)" % K1.tolist(), "dy = tf.constant(%s)" % DY.tolist(), "dw = tf.constant(%s)" % DW.tolist(),
           "pw = tf.constant(%s)" % PW.tolist()],
          cases, grads, (err_src, err_out), "tests/gen_conv_expect.py (expected values from torch in float64)")


def conv2d_transpose_graph(dy, f, out_shape, s, padding, d=(1, 1)):
    # differentiable in dy and f: the transposed convolution as torch's own conv_transpose2d would need TF's padding
    # rules restated, so take the input gradient with create_graph
    z = torch.zeros(out_shape, requires_grad=True)
    (g,) = torch.autograd.grad((conv2d(z, f, s, padding, d) * dy).sum(), z, create_graph=True)
    return g


KERAS_LAYERS = [
    # (label, layer constructor, input shape (no batch), weight names and shapes, torch function of (x, weights))
    ("Conv1D causal dilated", "tf.keras.layers.Conv1D(2, 3, padding='causal', dilation_rate=2, activation='relu')", (7, 3),
     [(3, 3, 2), (2,)], lambda x, w: torch.relu(
         conv2d(F.pad(x, (0, 0, 4, 0))[:, None], w[0][None], (1, 1), "VALID", (1, 2))[:, 0] + w[1])),
    ("Conv1D strided same", "tf.keras.layers.Conv1D(2, 2, strides=2, padding='same')", (7, 3),
     [(2, 3, 2), (2,)], lambda x, w: conv2d(x[:, None], w[0][None], (1, 2), "SAME")[:, 0] + w[1]),
    ("Conv2D dilated", "tf.keras.layers.Conv2D(3, 2, dilation_rate=(2, 1), padding='same')", (5, 4, 2),
     [(2, 2, 2, 3), (3,)], lambda x, w: conv2d(x, w[0], (1, 1), "SAME", (2, 1)) + w[1]),
    ("Conv2DTranspose same", "tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding='same')", (3, 2, 3),
     [(3, 3, 2, 3), (2,)], lambda x, w: conv2d_transpose_graph(x, w[0], (2, 6, 4, 2), (2, 2), "SAME") + w[1]),
    ("Conv2DTranspose valid", "tf.keras.layers.Conv2DTranspose(2, (3, 2), strides=(2, 1))", (3, 2, 3),
     [(3, 2, 2, 3), (2,)], lambda x, w: conv2d_transpose_graph(x, w[0], (2, 7, 3, 2), (2, 1), "VALID") + w[1]),
    ("Conv2DTranspose output_padding", "tf.keras.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)", (3, 2, 3),
     [(3, 3, 2, 3), (2,)], lambda x, w: conv2d_transpose_graph(x, w[0], (2, 8, 6, 2), (2, 2), "VALID") + w[1]),
    ("Conv1DTranspose", "tf.keras.layers.Conv1DTranspose(2, 3, strides=2, padding='same')", (4, 3),
     [(3, 2, 3), (2,)], lambda x, w: conv2d_transpose_graph(x[:, None], w[0][None], (2, 1, 8, 2), (1, 2), "SAME")[:, 0] + w[1]),
    ("DepthwiseConv2D", "tf.keras.layers.DepthwiseConv2D(2, depth_multiplier=2, strides=2, padding='same')", (5, 4, 3),
     [(2, 2, 3, 2), (6,)], lambda x, w: depthwise(x, w[0], (2, 2), "SAME") + w[1]),
    ("SeparableConv2D", "tf.keras.layers.SeparableConv2D(2, 2, activation='relu')", (5, 4, 3),
     [(2, 2, 3, 1), (1, 1, 3, 2), (2,)], lambda x, w: torch.relu(conv2d(depthwise(x, w[0], (1, 1), "VALID"), w[1], (1, 1), "VALID") + w[2])),
]

KERAS_SRC = """# keras_conv_layers.tfs — the Keras convolution layers with set weights: outputs, output shapes, parameter counts and input
# gradients (generated by tests/gen_conv_expect.py; expected values from torch in float64)
import tensorflow as tf

CASES = %s


def flat(t):
    return [round(float(v), 4) for v in tf.reshape(t, [-1]).numpy().tolist()]


for label, make, shape, weights, x in CASES:
    layer = make()
    y = layer(x)
    layer.set_weights([tf.constant(w, tf.float32) for w in weights])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * y)
    print(label, y.shape.as_list(), layer.count_params(), layer.compute_output_shape((None,) + shape))
    print("  out", flat(y))
    print("  grad", flat(tape.gradient(loss, x)))
    print("  function", flat(tf.function(lambda v: layer(v))(x)) == flat(y))
"""


def keras_program():
    rng = np.random.RandomState(11)
    cases, out = [], []
    for label, make, shape, wshapes, fn in KERAS_LAYERS:
        x = f32(rng.randint(-2, 3, (2,) + shape))
        ws = [f32(rng.randint(-2, 3, ws)) for ws in wshapes]
        cases.append("(%r, lambda: %s, %r, %r, tf.constant(%r))" % (label, make, shape, [w.tolist() for w in ws], x.tolist()))
        xt = t(x).requires_grad_(True)
        y = fn(xt, [t(w) for w in ws])
        (y * y).sum().backward()
        yv = f32(y.detach().numpy())
        params = sum(int(np.prod(w)) for w in wshapes)
        oshape = (None,) + yv.shape[1:]
        out.append("%s %s %d %s" % (label, list(yv.shape), params, repr(list(oshape))))
        out.append("  out " + str([round(float(v), 4) for v in yv.reshape(-1)]))
        out.append("  grad " + str([round(float(v), 4) for v in f32(xt.grad.numpy()).reshape(-1)]))
        out.append("  function True")
    src = KERAS_SRC % ("[\n    " + ",\n    ".join(cases) + ",\n]")
    with open(os.path.join(PROGS, "keras_conv_layers.tfs"), "w") as f:
        f.write(src)
    with open(os.path.join(PROGS, "keras_conv_layers.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
    keras_program()
