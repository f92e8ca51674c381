#!/usr/bin/python3
"""gen_depthwise_fixtures.py — the golden program depthwise_torch.tfs: DepthwiseConv2dNative and both its gradients
against PyTorch (run with /usr/bin/python3, Debian python3-torch).

    /usr/bin/python3 tests/gen_depthwise_fixtures.py   # writes tests/programs/depthwise_torch.{tfs,out}

torch computes a depthwise convolution as a grouped one (groups = in_channels, weight [C * M, 1, KH, KW]); TF's
SAME padding is an explicit pad (the extra cell at the bottom/right).  Each case runs tf.nn.depthwise_conv2d
under a GradientTape (loss sum(y * w)) eagerly and in a tf.function, and the two gradient ops directly through
tf.raw_ops; inputs are small multiples of 1/4 and 1/8, so every product and partial sum is exact in float32 and
every printed difference is 0.0 whatever the summation order.  Odd shapes, strides 1-3, SAME / VALID / explicit
padding, dilations (with stride 1, as tf.nn.depthwise_conv2d requires) and channel multipliers 1-3; then
separable_conv2d, float64, the Keras DepthwiseConv2D and SeparableConv2D layers (output and weight gradients), functions with an input_signature (tests/onnx_export.py exports them to ONNX), and the
shape errors with TF's messages (tensorflow/core/kernels/depthwise_conv_op.cc, depthwise_conv_grad_op.cc).
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")


def lit(a):
    return repr(np.asarray(a, dtype=np.float64).tolist())


def grid(shape, mul, mod, off, scale):
    n = int(np.prod(shape))
    return (((np.arange(n) * mul) % mod - off) * scale).astype(np.float32).reshape(shape)


def pads_for(n, k, s, d, padding):
    """(before, after) of one spatial dimension: TF's SAME, VALID, or an explicit pair."""
    if padding == "VALID":
        return 0, 0
    if padding == "SAME":
        ek = (k - 1) * d + 1
        out = (n + s - 1) // s
        total = max((out - 1) * s + ek - n, 0)
        return total // 2, total - total // 2
    return padding


def torch_depthwise(xt, ft, s, padding, d, shape):
    """NCHW torch input, [KH, KW, C, M] torch filter -> NCHW output, as tf.nn.depthwise_conv2d (shape: the NHWC input's)."""
    c, m = ft.shape[2], ft.shape[3]
    wt = ft.permute(2, 3, 0, 1).reshape(c * m, 1, ft.shape[0], ft.shape[1])   # output channel c * m + j
    ph = pads_for(shape[1], ft.shape[0], s, d[0], padding if isinstance(padding, str) else padding[1])
    pw = pads_for(shape[2], ft.shape[1], s, d[1], padding if isinstance(padding, str) else padding[2])
    return F.conv2d(F.pad(xt, (pw[0], pw[1], ph[0], ph[1])), wt, stride=s, dilation=tuple(d), groups=c)


def depthwise(x, f, s, padding, d):
    """tf.nn.depthwise_conv2d through torch: output, w, d input, d filter for loss sum(y * w)."""
    xt = torch.tensor(x).permute(0, 3, 1, 2).requires_grad_(True)
    ft = torch.tensor(f).requires_grad_(True)
    y = torch_depthwise(xt, ft, s, padding, d, x.shape)
    w = torch.tensor(grid(tuple(y.shape), 3, 5, 2, 1.0))
    (y * w).sum().backward()
    return (y.detach().permute(0, 2, 3, 1).numpy(), w.permute(0, 2, 3, 1).numpy(), xt.grad.permute(0, 2, 3, 1).numpy(),
            ft.grad.numpy())


def keras_layers(x):
    """The Keras DepthwiseConv2D and SeparableConv2D cases: (name, constructor, weights, w, [y, d weights...])."""
    out = []
    dk, db = grid((3, 3, 3, 2), 5, 7, 3, 0.25), grid((6,), 3, 5, 2, 0.5)
    sk, sp, sb = grid((2, 2, 3, 2), 5, 7, 3, 0.25), grid((1, 1, 6, 4), 3, 5, 2, 0.5), grid((4,), 3, 5, 2, 0.5)
    for name, ctor, weights in [
            ("DepthwiseConv2D", "tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding='same', dilation_rate=2)",
             [dk, db]),
            ("SeparableConv2D", "tf.keras.layers.SeparableConv2D(4, 2, strides=2, depth_multiplier=2)", [sk, sp, sb])]:
        xt = torch.tensor(x).permute(0, 3, 1, 2)
        ts = [torch.tensor(a).requires_grad_(True) for a in weights]
        if name == "DepthwiseConv2D":
            y = torch_depthwise(xt, ts[0], 1, "SAME", (2, 2), x.shape) + ts[1][:, None, None]
        else:
            z = torch_depthwise(xt, ts[0], 2, "VALID", (1, 1), x.shape)
            y = torch.einsum("nchw,co->nohw", z, ts[1][0, 0]) + ts[2][:, None, None]
        w = torch.tensor(grid(tuple(y.shape), 3, 5, 2, 1.0))
        (y * w).sum().backward()
        out.append((name, ctor, weights, w.permute(0, 2, 3, 1).numpy(),
                    [y.detach().permute(0, 2, 3, 1).numpy()] + [t.grad.numpy() for t in ts]))
    return out


# (input shape, filter shape, stride, padding, dilations)
CASES = [
    ((2, 5, 6, 3), (3, 3, 3, 1), 1, "SAME", (1, 1)),
    ((2, 7, 5, 3), (3, 2, 3, 2), 2, "SAME", (1, 1)),
    ((1, 9, 8, 5), (3, 3, 5, 3), 3, "VALID", (1, 1)),
    ((2, 6, 7, 4), (2, 3, 4, 2), 1, "VALID", (2, 1)),
    ((1, 8, 9, 3), (3, 3, 3, 1), 1, "SAME", (2, 2)),
    ((2, 5, 5, 2), (3, 3, 2, 2), 1, [[0, 0], [1, 2], [0, 1], [0, 0]], (1, 1)),
    ((1, 4, 6, 9), (1, 1, 9, 1), 1, "VALID", (1, 1)),
    ((1, 3, 3, 2), (5, 5, 2, 1), 1, "SAME", (1, 1)),
]

# (call, TF's error) — each a located error TF raises for these shapes and attributes
ERRORS = [
    ("tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], 'SAME')",
     "InvalidArgumentError: input and filter must have the same depth: 3 vs 2"),
    ("tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 3, 1]), [1, 1, 2, 1], 'SAME')",
     "InvalidArgumentError: Current implementation only supports equal length strides in the row and column dimensions."),
    ("tf.nn.depthwise_conv2d(tf.ones([1, 2, 2, 1]), tf.ones([4, 4, 1, 1]), [1, 1, 1, 1], 'VALID')",
     "InvalidArgumentError: Computed output size would be negative: -1 [input_size: 2, effective_filter_size: 4, stride: 1]"),
    ("tf.raw_ops.DepthwiseConv2dNative(input=tf.ones([1, 4, 4, 1]), filter=tf.ones([2, 2, 1, 1]), strides=[2, 1, 1, 1], padding='SAME')",
     "InvalidArgumentError: Current implementation does not yet support strides in the batch and depth dimensions."),
    ("tf.raw_ops.DepthwiseConv2dNative(input=tf.ones([1, 4, 4, 1]), filter=tf.ones([2, 2, 1, 1]), strides=[1, 1, 1, 1], padding='EXPLICIT', explicit_paddings=[0, 0, 1, 1])",
     "InvalidArgumentError: explicit_paddings attribute must contain 8 values, but got: 4"),
    ("tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], [[0, 0], [1, -1], [0, 0], [0, 0]])",
     "InvalidArgumentError: All elements of explicit_paddings must be nonnegative, but element 3 was -1"),
    ("tf.raw_ops.DepthwiseConv2dNative(input=tf.ones([1, 4, 4, 1]), filter=tf.ones([2, 2, 1]), strides=[1, 1, 1, 1], padding='SAME')",
     "InvalidArgumentError: filter must be 4-dimensional: [2,2,1]"),
    ("tf.raw_ops.DepthwiseConv2dNativeBackpropInput(input=tf.ones([1, 4, 4, 2]), filter=tf.ones([2, 2, 2, 1]), out_backprop=tf.ones([1, 4, 4, 3]), strides=[1, 1, 1, 1], padding='SAME')",
     "InvalidArgumentError: DepthwiseConv2DBackpropInput: depth_multiplier * in_depth not equal to out_depth"),
    ("tf.raw_ops.DepthwiseConv2dNativeBackpropFilter(input=tf.ones([1, 4, 4, 2]), filter=tf.ones([2, 2, 2, 1]), out_backprop=tf.ones([1, 3, 4, 2]), strides=[1, 1, 1, 1], padding='SAME')",
     "InvalidArgumentError: DepthwiseConv2DBackpropFilter: Number of rows of out_backprop doesn't match computed: actual = 3, computed = 4"),
]


def main():
    lines = ["# depthwise_torch.tfs — generated by tests/gen_depthwise_fixtures.py: tf.nn.depthwise_conv2d, the",
             "# DepthwiseConv2dNative gradient ops and the Keras DepthwiseConv2D / SeparableConv2D layers against PyTorch's",
             "# grouped conv2d, eagerly and in a tf.function (exact inputs: every difference is 0.0), then TF's shape errors",
             "import numpy as np", "",
             "def maxdiff(a, b):", "    return tf.reduce_max(tf.abs(a - tf.constant(b, a.dtype))).numpy()", ""]
    out = []
    for i, (xs, fs, s, padding, d) in enumerate(CASES):
        x = grid(xs, 7, 9, 4, 0.5)
        f = grid(fs, 5, 7, 3, 0.25)
        y, w, dx, df = depthwise(x, f, s, padding, d)
        explicit = [v for pair in padding for v in pair] if not isinstance(padding, str) else []
        raw_pad = "EXPLICIT" if explicit else padding
        tag = "depthwise %s s%d %s d%s m%d" % ("x".join(map(str, xs)), s, raw_pad, "x".join(map(str, d)), fs[3])
        lines += ["x = tf.constant(%s)" % lit(x), "f = tf.constant(%s)" % lit(f), "w = tf.constant(%s)" % lit(w),
                  "def case%d(x, f, w):" % i,
                  "    with tf.GradientTape() as tape:",
                  "        tape.watch([x, f])",
                  "        y = tf.nn.depthwise_conv2d(x, f, [1, %d, %d, 1], %r, dilations=%r)" % (s, s, padding, list(d)),
                  "        loss = tf.reduce_sum(y * w)",
                  "    dx, df = tape.gradient(loss, [x, f])",
                  "    return y, dx, df",
                  "for run in [case%d, tf.function(case%d)]:" % (i, i),
                  "    y, dx, df = run(x, f, w)",
                  "    print(%r, y.shape, maxdiff(y, %s), maxdiff(dx, %s), maxdiff(df, %s))" % (tag, lit(y), lit(dx), lit(df)),
                  "attrs = dict(strides=[1, %d, %d, 1], padding=%r, explicit_paddings=%r, dilations=[1, %d, %d, 1])"
                  % (s, s, raw_pad, explicit, d[0], d[1]),
                  "print(%r, maxdiff(tf.raw_ops.DepthwiseConv2dNativeBackpropInput(input=x, filter=f, out_backprop=w, **attrs), %s),"
                  % ("raw " + tag, lit(dx)),
                  "      maxdiff(tf.raw_ops.DepthwiseConv2dNativeBackpropFilter(input=x, filter=f, out_backprop=w, **attrs), %s))"
                  % lit(df), ""]
        out += ["%s (%d, %d, %d, %d) 0.0 0.0 0.0" % ((tag,) + y.shape)] * 2 + ["raw %s 0.0 0.0" % tag]

    # separable: the depthwise output through a 1x1 pointwise convolution; and a float64 depthwise case
    x = grid((2, 6, 5, 3), 7, 9, 4, 0.5)
    f = grid((3, 3, 3, 2), 5, 7, 3, 0.25)
    p = grid((1, 1, 6, 4), 3, 5, 2, 0.5)
    y, _, _, _ = depthwise(x, f, 1, "SAME", (1, 1))
    sep = np.einsum("nhwc,co->nhwo", y.astype(np.float64), p[0, 0].astype(np.float64))
    y64, w64, dx64, df64 = depthwise(x.astype(np.float64), f.astype(np.float64), 2, "VALID", (1, 1))
    lines += ["x = tf.constant(%s)" % lit(x), "f = tf.constant(%s)" % lit(f), "p = tf.constant(%s)" % lit(p),
              "print('separable', maxdiff(tf.nn.separable_conv2d(x, f, p, [1, 1, 1, 1], 'SAME'), %s))" % lit(sep),
              "x64, f64 = tf.cast(x, tf.float64), tf.cast(f, tf.float64)",
              "y64 = tf.nn.depthwise_conv2d(x64, f64, [1, 2, 2, 1], 'VALID')",
              "print('float64', y64.dtype.name, maxdiff(y64, %s))" % lit(y64), ""]
    out += ["separable 0.0", "float64 float64 0.0"]
    # the Keras layers with set weights: output and the weights' gradients, eagerly and in a tf.function
    for name, ctor, weights, w, want in keras_layers(x):
        lines += ["layer = %s" % ctor, "layer.build((None, 6, 5, 3))",
                  "layer.set_weights([%s])" % ", ".join("np.array(%s, dtype=np.float32)" % lit(a) for a in weights),
                  "w = tf.constant(%s)" % lit(w),
                  "def layer_case(x):",
                  "    with tf.GradientTape() as tape:",
                  "        y = layer(x)",
                  "        loss = tf.reduce_sum(y * w)",
                  "    return [y] + tape.gradient(loss, layer.trainable_variables)",
                  "for run in [layer_case, tf.function(layer_case)]:",
                  "    got = run(x)",
                  "    print(%r, got[0].shape, [maxdiff(g, e) for g, e in zip(got, [%s])])"
                  % (name, ", ".join(lit(a) for a in want))]
        out += ["%s (%d, %d, %d, %d) %s" % ((name,) + want[0].shape + (str([0.0] * len(want)),))] * 2
    # the forms tests/onnx_export.py exports: strided SAME with a multiplier, explicit padding with dilations
    onnx_cases = [("same s2 m2", (2, 2), 2, "SAME", (1, 1)), ("explicit d2", (2, 1), 1, [[0, 0], [2, 1], [1, 0], [0, 0]], (2, 2))]
    for i, (tag, fsh, st, padding, d) in enumerate(onnx_cases):
        fo = grid((fsh[0], fsh[1], 3, fsh[1]), 5, 7, 3, 0.25)
        yo, _, _, _ = depthwise(x, fo, st, padding, d)
        lines += ["fo%d = tf.constant(%s)" % (i, lit(fo)),
                  "@tf.function(input_signature=[tf.TensorSpec([2, 6, 5, 3], tf.float32)])",
                  "def onnx_dw%d(a):" % i,
                  "    return tf.nn.depthwise_conv2d(a, fo%d, [1, %d, %d, 1], %r, dilations=%r)" % (i, st, st, padding, list(d)),
                  "print(%r, maxdiff(onnx_dw%d(x), %s))" % ("signature " + tag, i, lit(yo))]
        out.append("signature %s 0.0" % tag)
    lines += ["",
              "for bad in [%s]:" % ",\n            ".join("lambda: " + call for call, _ in ERRORS),
              "    try:", "        bad()", "        print('no error')",
              "    except tf.errors.InvalidArgumentError as e:",
              "        print(type(e).__name__ + ': ' + e.message)", ""]
    out += [msg for _, msg in ERRORS]
    with open(os.path.join(PROGS, "depthwise_torch.tfs"), "w") as fh:
        fh.write("\n".join(lines))
    with open(os.path.join(PROGS, "depthwise_torch.out"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
