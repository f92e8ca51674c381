#!/usr/bin/python3
"""gen_keras_conv_lstm.py — the golden programs keras_conv_lstm_torch.tfs (ConvLSTM1D/2D/3D outputs and gradients against PyTorch) and keras_conv_lstm.out (config keys, shapes, summary, errors) (run with /usr/bin/python3).

The numeric cases follow gen_keras_layer_fixtures.py (its Case and emit): fixed
weights through set_weights, the output and the gradients of sum(y * w) with
respect to the input and every trainable weight, eagerly and in a tf.function.
The reference is Keras 2.15's ConvLSTMCell written with torch.nn.functional.conv1d/
2d/3d in float64: the input convolution with the layer's strides, padding and
dilation plus the bias, the recurrent one with stride 1 and "same" padding, gates
i, f, c, o, hard_sigmoid 0.2 * x + 0.5 clipped to [0, 1]. keras_conv_lstm.out
holds what Keras 2.15 prints for keras_conv_lstm.tfs: get_config's keys, output
shapes from conv_output_length, the summary with the weights' parameter counts,
and the texts of the errors Keras raises for bad arguments and inputs.
"""
import os
import re

import numpy as np
import torch
import torch.nn.functional as F

from gen_keras_layer_fixtures import PROGS, T, emit, grid, lit
from gen_keras_layers_more_fixtures import case, same_pad

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def keras_conv(x, k, strides, padding, dilation):
    # a channels-last batch [B, *dims, C] with a Keras kernel [*ks, C, F], as TF's conv (its "same" split)
    rank = x.dim() - 2
    ks = k.shape[:rank]
    xt = x.permute(0, rank + 1, *range(1, rank + 1))
    if padding == "same":
        widths = []
        for i in reversed(range(rank)):
            widths += list(same_pad(xt.shape[2 + i], ks[i], strides[i], dilation[i]))
        xt = F.pad(xt, widths)
    w = k.permute(rank + 1, rank, *range(rank))
    y = CONV[rank](xt, w, stride=tuple(strides), dilation=tuple(dilation))
    return y.permute(0, *range(2, rank + 2), 1)


def hard_sigmoid(z):
    return torch.clamp(0.2 * z + 0.5, 0.0, 1.0)


def conv_lstm(x, K, R, b, strides, padding, dilation, act=torch.tanh, ract=hard_sigmoid, go_backwards=False,
              return_sequences=False, return_state=False, mask=None, init=None):
    B, Tn = x.shape[0], x.shape[1]
    rank = x.dim() - 3
    f = R.shape[-1] // 4
    one = (1,) * rank
    xs = [keras_conv(x[:, t], K, strides, padding, dilation) + (0 if b is None else b) for t in range(Tn)]
    h = torch.zeros(xs[0].shape[:-1] + (f,))
    c = h
    if init is not None:
        h, c = torch.tensor(init[0]), torch.tensor(init[1])
    outs = []
    prev = torch.zeros(h.shape)
    for t in (range(Tn - 1, -1, -1) if go_backwards else range(Tn)):
        z = xs[t] + keras_conv(h, R, one, "same", one)
        zi, zf, zc, zo = z[..., :f], z[..., f:2 * f], z[..., 2 * f:3 * f], z[..., 3 * f:]
        c2 = ract(zf) * c + ract(zi) * act(zc)
        h2 = ract(zo) * act(c2)
        out = h2
        if mask is not None:
            # backend.rnn: a masked step keeps the previous output and states
            m = torch.tensor(mask[:, t]).reshape((-1,) + (1,) * (h.dim() - 1))
            out = torch.where(m, h2, prev)
            h2, c2 = torch.where(m, h2, h), torch.where(m, c2, c)
        h, c, prev = h2, c2, out
        outs.append(out)
    y = torch.stack(outs, 1) if return_sequences else prev
    return torch.cat([y, h, c], -1) if return_state else y


def numeric_cases():
    cases = []
    specs = [
        # tag, make, x shape, filters, kernel, strides, padding, dilation, options, call
        ("conv_lstm1d same seq", "tf.keras.layers.ConvLSTM1D(3, 3, padding='same', return_sequences=True)",
         (2, 4, 6, 2), 3, (3,), (1,), "same", (1,), {"return_sequences": True}, "layer(x)"),
        ("conv_lstm1d strided valid dropout inference",
         "tf.keras.layers.ConvLSTM1D(2, 2, strides=2, dropout=0.3, recurrent_dropout=0.4)",
         (2, 3, 7, 2), 2, (2,), (2,), "valid", (1,), {}, "layer(x, training=False)"),
        ("conv_lstm2d same strided state", "tf.keras.layers.ConvLSTM2D(2, 3, strides=2, padding='same', return_state=True)",
         (2, 3, 5, 5, 2), 2, (3, 3), (2, 2), "same", (1, 1), {"return_state": True}, "tf.concat(layer(x), -1)"),
        ("conv_lstm2d dilated backwards relu seq",
         "tf.keras.layers.ConvLSTM2D(3, (2, 2), dilation_rate=2, go_backwards=True, return_sequences=True, "
         "activation='relu', recurrent_activation='sigmoid')",
         (1, 3, 5, 4, 2), 3, (2, 2), (1, 1), "valid", (2, 2),
         {"go_backwards": True, "return_sequences": True, "act": torch.relu, "ract": torch.sigmoid}, "layer(x)"),
        ("conv_lstm2d valid rect kernel", "tf.keras.layers.ConvLSTM2D(2, (2, 3))",
         (2, 2, 4, 5, 3), 2, (2, 3), (1, 1), "valid", (1, 1), {}, "layer(x)"),
        ("conv_lstm3d no bias seq", "tf.keras.layers.ConvLSTM3D(2, 2, use_bias=False, return_sequences=True)",
         (1, 3, 3, 4, 3, 2), 2, (2, 2, 2), (1, 1, 1), "valid", (1, 1, 1), {"return_sequences": True, "no_bias": True},
         "layer(x)"),
        ("conv_lstm3d same state", "tf.keras.layers.ConvLSTM3D(2, (2, 1, 2), padding='same', return_state=True)",
         (2, 2, 2, 3, 2, 1), 2, (2, 1, 2), (1, 1, 1), "same", (1, 1, 1), {"return_state": True}, "tf.concat(layer(x), -1)"),
        ("conv_lstm2d masked seq", "tf.keras.layers.ConvLSTM2D(2, 2, padding='same', return_sequences=True)",
         (2, 4, 3, 3, 2), 2, (2, 2), (1, 1), "same", (1, 1),
         {"return_sequences": True, "mask": np.array([[True, False, True, True], [True, True, True, False]])},
         "layer(x, mask=mask)"),
        ("conv_lstm1d initial_state backwards", "tf.keras.layers.ConvLSTM1D(2, 3, go_backwards=True)",
         (2, 3, 6, 2), 2, (3,), (1,), "valid", (1,),
         {"go_backwards": True, "init": (grid((2, 4, 2), 5, 7, 3, 0.2), grid((2, 4, 2), 3, 7, 3, 0.3))},
         "layer(x, initial_state=[h0, c0])"),
        ("conv_lstm2d channels_first seq",
         "tf.keras.layers.ConvLSTM2D(2, 2, padding='same', data_format='channels_first', return_sequences=True)",
         (2, 3, 2, 4, 3), 2, (2, 2), (1, 1), "same", (1, 1), {"return_sequences": True, "first": True}, "layer(x)"),
    ]
    for tag, make, xs, f, ks, st, pad, dil, opt, call in specs:
        first = opt.get("first", False)
        cin = xs[2] if first else xs[-1]
        x = grid(xs, 7, 11, 5, 0.3)
        K = grid(ks + (cin, 4 * f), 5, 9, 4, 0.1)
        R = grid(ks + (f, 4 * f), 7, 13, 6, 0.08)
        b = grid((4 * f,), 3, 7, 3, 0.1)
        no_bias = opt.get("no_bias", False)
        tx, tK, tR, tb = T(x), T(K), T(R), T(b)
        # channels first: Keras's CPU convolutions transpose to channels last and back
        y = conv_lstm(tx.permute(0, 1, 3, 4, 2) if first else tx, tK, tR, None if no_bias else tb, st, pad, dil, act=opt.get("act", torch.tanh),
                      ract=opt.get("ract", hard_sigmoid), go_backwards=opt.get("go_backwards", False),
                      return_sequences=opt.get("return_sequences", False), return_state=opt.get("return_state", False),
                      mask=opt.get("mask"), init=opt.get("init"))
        if first:
            y = y.permute(0, 1, 4, 2, 3)
        weights = [K, R] if no_bias else [K, R, b]
        params = [tx, tK, tR] if no_bias else [tx, tK, tR, tb]
        cases.append(case(tag, make, weights, x, y, params, call=call))
        if "mask" in opt:
            cases[-1].extra = "mask = tf.constant(%s)" % repr(opt["mask"].tolist())
        if "init" in opt:
            cases[-1].extra = "h0 = tf.constant(%s)\nc0 = tf.constant(%s)" % (lit(opt["init"][0]), lit(opt["init"][1]))
    return cases


# ---- keras_conv_lstm.out: what Keras 2.15 prints for keras_conv_lstm.tfs ----------------------------------
KEYS = ["name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards", "stateful", "unroll",
        "time_major", "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
        "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
        "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout"]


def out_len(n, k, padding, s, d):
    dk = (k - 1) * d + 1
    n = n if padding == "same" else n - dk + 1
    return (n + s - 1) // s


def shape_text(s):
    return "(" + ", ".join("None" if d is None else str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


# the shape cases of keras_conv_lstm.tfs: rank, input shape (no batch), filters, kernel, strides, padding, dilation,
# return_sequences, return_state
SHAPES = [(1, (4, 9, 2), 3, 3, 2, "valid", 1, False, False),
          (1, (4, 9, 2), 3, 3, 1, "same", 2, True, False),
          (2, (3, 8, 7, 1), 4, (3, 2), (2, 1), "valid", 1, True, True),
          (2, (3, 8, 7, 1), 2, 3, 2, "same", 1, False, True),
          (3, (2, 5, 6, 4, 2), 2, 2, 1, "valid", (1, 2, 1), True, False)]


def tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def shapes_of(spec, batch):
    rank, ins, f, k, s, pad, d, seq, state = spec
    k, s, d = tup(k, rank), tup(s, rank), tup(d, rank)
    dims = [out_len(ins[1 + i], k[i], pad, s[i], d[i]) for i in range(rank)]
    st = (batch,) + tuple(dims) + (f,)
    out = (batch, ins[0]) + tuple(dims) + (f,) if seq else st
    return [out, st, st] if state else [out]


def summary_lines(rows):
    # Keras's print_summary of a Sequential model: columns at 29, 55, 65; its row lines then a blank line each
    total = sum(r[2] for r in rows)
    out = ['Model: "sequential"', "_" * 65, " Layer (type)                Output Shape              Param #   ", "=" * 65]
    for name, shape, n in rows:
        line = " " + name
        line = line.ljust(29) + shape
        line = line.ljust(55) + str(n)
        out.append(line.ljust(65))
        out.append(" " * 65)
    out += ["=" * 65, "Total params: %d (%s)" % (total, size_text(total * 4)),
            "Trainable params: %d (%s)" % (total, size_text(total * 4)), "Non-trainable params: 0 (0.00 Byte)", "_" * 65]
    return out


def size_text(b):
    # Keras's readable_memory_size
    units = ["Byte", "KB", "MB", "GB"]
    i = 0
    v = float(b)
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    return "%.2f %s" % (v, units[i])


def params(rank, cin, f, k):
    n = int(np.prod(tup(k, rank)))
    return n * cin * 4 * f + n * f * 4 * f + 4 * f


# the errors keras_conv_lstm.tfs catches, as Keras 2.15 words them
ERRORS = [
    ("ValueError", "The `kernel_size` argument must be a tuple of 2 integers. Received: (3, 3, 3)"),
    ("ValueError", "The `kernel_size` argument must be a tuple of 2 integers. Received: 0 including {0} that does not satisfy the requirement `> 0`."),
    ("ValueError", "The `strides` argument must be a tuple of 3 integers. Received: (1, -1, 1) including {-1} that does not satisfy the requirement `>= 0`."),
    ("ValueError", "The `dilation_rate` argument must be a tuple of 1 integers. Received: 0 including {0} that does not satisfy the requirement `> 0`."),
    ("ValueError", 'The `padding` argument must be a list/tuple or one of "valid", "same" (or "causal", only for `Conv1D). Received: full'),
    ("ValueError", 'The `data_format` argument must be one of "channels_first", "channels_last". Received: nhwc'),
    ("TypeError", "Unrolling is not possible with convolutional RNNs. Received: unroll=True"),
    ("ValueError", 'Input 0 of layer "cl" is incompatible with the layer: expected ndim=5, found ndim=4. Full shape received: (2, 3, 4, 4)'),
    ("ValueError", 'Input 0 of layer "cl1" is incompatible with the layer: expected ndim=4, found ndim=5. Full shape received: (2, 3, 4, 4, 1)'),
]


def snake(name):
    # Keras's to_snake_case: ConvLSTM2D -> conv_lst_m2d
    name = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def config_out():
    rows = [("%s (ConvLSTM2D)" % snake("ConvLSTM2D"), shape_text(shapes_of(SHAPES[2], None)[0]), params(2, 1, 4, (3, 2))),
            ("reshape (Reshape)", shape_text((None, 3, 18, 4)), 0),
            ("%s (ConvLSTM1D)" % snake("ConvLSTM1D"), shape_text((None, 3, 17, 5)), params(1, 4, 5, 2)),
            ("reshape_1 (Reshape)", shape_text((None, 3, 17, 1, 1, 5)), 0),
            ("%s (ConvLSTM3D)" % snake("ConvLSTM3D"), shape_text((None, 17, 1, 1, 2)), params(3, 5, 2, (1, 1, 1))),
            ("flatten (Flatten)", shape_text((None, 34)), 0)]
    out = summary_lines(rows)
    out.append(str(KEYS))
    out.append(str([(3, 3), (1, 1), "valid", "channels_last", (1, 1), "tanh", "hard_sigmoid", True, 0.0, 0.0, 4]))
    # recurrent_dropout=1.5 clipped to 1.0 as the cell does
    out.append(str([(3,), (3,), "same", (2,), "relu", "sigmoid", False, False, 0.25, 1.0]))
    out.append(str([(1, 2, 3), (1, 1, 1), True, True, True]))
    out.append(str([1, (1, 2, 3), "valid"]))
    out.append(str(["kernel", "recurrent_kernel", "bias"]))
    out.append(str([[3, 3, 2, 16], [3, 3, 4, 16], [16]]))
    out.append(str([0.0] * 4 + [1.0] * 4 + [0.0] * 8))
    for spec in SHAPES:
        out.append(" ".join(shape_text(s) for s in shapes_of(spec, 2)) + " | " +
                   " ".join(shape_text(s) for s in shapes_of(spec, None)))
    # channels first: (batch, time, channels, rows, cols) -> (batch, filters, rows', cols') for the output and states
    dims = (out_len(6, 2, "valid", 1, 1), out_len(5, 2, "valid", 1, 1))
    st = (2, 3) + dims
    out.append(" ".join([shape_text(st)] * 3) + " | " + " ".join([shape_text((None,) + st[1:])] * 3))
    out += ["%s %s" % e for e in ERRORS]
    # dropout: inference the same as without it, training different; gradients the weights' shapes
    out.append("True True")
    out.append(str([[2, 2, 1, 8], [2, 2, 2, 8], [8]]))
    # fit lowers the loss
    out.append("True")
    # .keras and .h5 round trips, from_config
    out.append("[True, True] True")
    return out


def main():
    cases = numeric_cases()
    lines, out = emit(cases, None, None, prog="keras_conv_lstm_torch", gen="gen_keras_conv_lstm.py")
    with open(os.path.join(PROGS, "keras_conv_lstm_torch.tfs"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(PROGS, "keras_conv_lstm_torch.out"), "w") as fh:
        fh.write("\n".join(out) + "\n")
    with open(os.path.join(PROGS, "keras_conv_lstm.out"), "w") as fh:
        fh.write("\n".join(config_out()) + "\n")
    # err_keras_conv_lstm.tfs: the padding ValueError, uncaught, located at its line
    src = open(os.path.join(PROGS, "err_keras_conv_lstm.tfs")).read().splitlines()
    line = next(i for i, l in enumerate(src) if l.startswith("tf.keras"))
    msg = [e for e in ERRORS if "padding" in e[1]][0]
    expect = {"err": "err_keras_conv_lstm.tfs:%d:1: error: %s: %s\n%s\n^\n" % (line + 1, msg[0], msg[1], src[line]),
              "out": "", "status": "1\n"}
    for ext in expect:
        with open(os.path.join(PROGS, "err_keras_conv_lstm." + ext), "w") as fh:
            fh.write(expect[ext])


if __name__ == "__main__":
    main()
