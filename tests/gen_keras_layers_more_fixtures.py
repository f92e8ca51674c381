#!/usr/bin/python3
"""gen_keras_layers_more_fixtures.py — the golden program keras_layers_more_torch.tfs: GroupNormalization, DepthwiseConv1D, SeparableConv1D, Conv3DTranspose and EinsumDense against PyTorch (run with /usr/bin/python3).

Same scheme as gen_keras_layer_fixtures.py (whose Case and emit it uses): fixed
weights through set_weights, the output and the gradients of sum(y * w) with
respect to the input and every trainable weight, eagerly and in a tf.function.
The references are torch.nn.functional.group_norm, conv1d with groups (the
depthwise step; a 1x1 conv1d the pointwise one), conv_transpose3d and
torch.einsum, with Keras's weight layouts mapped onto torch's and TF's "same"
padding written out.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

from gen_keras_layer_fixtures import PROGS, Case, T, emit, grads_of, grid


def case(tag, make, weights, x, y, params, call="layer(x)"):
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    c = Case(tag, make, weights, x, y.detach().numpy(), grads_of(y, w, params), call=call)
    c.w = w
    return c


def group_norm_cases():
    cases = []
    for tag, shape, groups, make in [("group_norm 3d", (2, 5, 6), 3, "tf.keras.layers.GroupNormalization(3)"),
                                     ("group_norm 4d", (2, 3, 3, 4), 2, "tf.keras.layers.GroupNormalization(groups=2, epsilon=0.01)"),
                                     ("group_norm per channel", (2, 4, 3), 3, "tf.keras.layers.GroupNormalization(-1)")]:
        x = grid(shape, 7, 11, 5, 0.3)
        C = shape[-1]
        gamma, beta = grid((C,), 3, 5, -3, 0.25), grid((C,), 2, 5, 2, 0.1)
        eps = 0.01 if "epsilon" in make else 1e-3
        tx, tg, tb = T(x), T(gamma), T(beta)
        perm = (0, len(shape) - 1) + tuple(range(1, len(shape) - 1))
        back = (0,) + tuple(range(2, len(shape))) + (1,)
        y = F.group_norm(tx.permute(*perm), groups, tg, tb, eps).permute(*back)
        cases.append(case(tag, make, [gamma, beta], x, y, [tx, tg, tb]))
    # axis=1 of a [batch, channels, steps] input, with center=False
    x = grid((2, 4, 5), 5, 13, 6, 0.2)
    gamma = grid((4,), 3, 5, -3, 0.25)
    tx, tg = T(x), T(gamma)
    y = F.group_norm(tx, 2, tg, None, 1e-3)
    cases.append(case("group_norm axis 1", "tf.keras.layers.GroupNormalization(2, axis=1, center=False)", [gamma], x, y, [tx, tg]))
    return cases


def same_pad(n, k, s, d):
    # TF's "same": out = ceil(n / s), the padding split with the extra cell after
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def depthwise_ncl(tx, K, s, d, padding):
    # Keras's depthwise kernel [k, C, m] as torch's grouped weight [C * m, 1, k]: output channel c * m + j
    k, C, m = K.shape
    xt = tx.transpose(1, 2)
    if padding == "same":
        xt = F.pad(xt, same_pad(xt.shape[2], k, s, d))
    elif padding == "causal":
        xt = F.pad(xt, ((k - 1) * d, 0))
    return F.conv1d(xt, K.permute(1, 2, 0).reshape(C * m, 1, k), stride=s, dilation=d, groups=C)


def conv1d_cases():
    cases = []
    x = grid((2, 9, 3), 7, 11, 5, 0.3)
    for tag, k, s, d, m, pad, bias, act in [("depthwise_conv1d valid", 3, 1, 1, 2, "valid", True, None),
                                            ("depthwise_conv1d same strided", 3, 2, 1, 1, "same", True, "tanh"),
                                            ("depthwise_conv1d dilated no bias", 2, 1, 2, 2, "same", False, None)]:
        K, b = grid((k, 3, m), 5, 9, 4, 0.1), grid((3 * m,), 3, 7, 3, 0.1)
        tx, tK, tb = T(x), T(K), T(b)
        y = depthwise_ncl(tx, tK, s, d, pad)
        if bias:
            y = y + tb[None, :, None]
        y = y.transpose(1, 2)
        if act == "tanh":
            y = torch.tanh(y)
        make = "tf.keras.layers.DepthwiseConv1D(%d, strides=%d, padding=%r, depth_multiplier=%d, dilation_rate=%d, use_bias=%r%s)" % (
            k, s, pad, m, d, bias, ", activation='tanh'" if act else "")
        cases.append(case(tag, make, [K, b] if bias else [K], x, y, [tx, tK, tb] if bias else [tx, tK]))
    for tag, f, k, s, d, m, pad, act in [("separable_conv1d valid", 4, 3, 1, 1, 1, "valid", None),
                                         ("separable_conv1d causal dilated", 5, 3, 1, 2, 2, "causal", "relu"),
                                         ("separable_conv1d same strided", 2, 4, 2, 1, 2, "same", None)]:
        K, P, b = grid((k, 3, m), 5, 9, 4, 0.1), grid((1, 3 * m, f), 7, 11, 5, 0.1), grid((f,), 3, 7, 3, 0.1)
        tx, tK, tP, tb = T(x), T(K), T(P), T(b)
        z = depthwise_ncl(tx, tK, s, d, pad)
        y = F.conv1d(z, tP[0].t()[:, :, None]) + tb[None, :, None]
        y = y.transpose(1, 2)
        if act == "relu":
            y = torch.relu(y)
        make = "tf.keras.layers.SeparableConv1D(%d, %d, strides=%d, padding=%r, dilation_rate=%d, depth_multiplier=%d%s)" % (
            f, k, s, pad, d, m, ", activation='relu'" if act else "")
        cases.append(case(tag, make, [K, P, b], x, y, [tx, tK, tP, tb]))
    return cases


def conv3d_transpose_cases():
    cases = []
    x = grid((2, 2, 3, 2, 3), 7, 11, 5, 0.3)
    for tag, k, s, pad, make in [("conv3d_transpose same", (3, 3, 3), (2, 2, 2), "same",
                                  "tf.keras.layers.Conv3DTranspose(2, 3, strides=2, padding='same')"),
                                 ("conv3d_transpose valid", (2, 3, 2), (1, 2, 1), "valid",
                                  "tf.keras.layers.Conv3DTranspose(2, (2, 3, 2), strides=(1, 2, 1), activation='tanh')"),
                                 ("conv3d_transpose output_padding", (2, 2, 2), (3, 2, 2), "valid",
                                  "tf.keras.layers.Conv3DTranspose(2, 2, strides=(3, 2, 2), output_padding=(1, 0, 1))")]:
        K, b = grid(k + (2, 3), 5, 9, 4, 0.1), grid((2,), 3, 7, 3, 0.1)
        tx, tK, tb = T(x), T(K), T(b)
        # the full transposed convolution, then TF's window: size n * s ("same"), (n - 1) * s + k ("valid")
        # or (n - 1) * s + k + output_padding, starting at the "same" forward padding's first half
        full = F.conv_transpose3d(tx.permute(0, 4, 1, 2, 3), tK.permute(4, 3, 0, 1, 2), stride=s)
        opad = (1, 0, 1) if "output_padding" in tag else (0, 0, 0)
        for i in range(3):
            n = x.shape[1 + i]
            if pad == "same":
                size, start = n * s[i], max(k[i] - s[i], 0) // 2
            else:
                size, start = (n - 1) * s[i] + k[i] + opad[i], 0
            extra = start + size - full.shape[2 + i]
            if extra > 0:
                widths = [0, 0] * (2 - i) + [0, extra] + [0, 0] * i
                full = F.pad(full, widths)
            full = full.narrow(2 + i, start, size)
        y = (full + tb[None, :, None, None, None]).permute(0, 2, 3, 4, 1)
        if "tanh" in make:
            y = torch.tanh(y)
        cases.append(case(tag, make, [K, b], x, y, [tx, tK, tb]))
    return cases


def einsum_cases():
    cases = []
    for tag, eq, xs, ks, bs, out, bias_axes, act in [
            ("einsum_dense abc,cd->abd", "abc,cd->abd", (2, 3, 4), (4, 5), (5,), "(3, 5)", "d", None),
            ("einsum_dense ...b,bc->...c", "...b,bc->...c", (2, 3, 4), (4, 6), None, "6", None, "relu"),
            ("einsum_dense abc,cde->abde", "abc,cde->abde", (2, 3, 4), (4, 2, 3), (2, 3), "(3, 2, 3)", "de", None),
            ("einsum_dense ab...,bc->ac...", "ab...,bc->ac...", (2, 4, 3), (4, 5), (5, 1), "5", "c", None),
            ("einsum_dense ab,bcd->acd", "ab,bcd->acd", (3, 4), (4, 2, 3), (3,), "(2, 3)", "d", "tanh")]:
        x = grid(xs, 7, 11, 5, 0.3)
        K = grid(ks, 5, 9, 4, 0.1)
        tx, tK = T(x), T(K)
        y = torch.einsum(eq, tx, tK)
        ws, params = [K], [tx, tK]
        if bs is not None:
            b = grid(bs, 3, 7, 3, 0.1)
            tb = T(b)
            y = y + tb
            ws, params = [K, b], [tx, tK, tb]
        if act == "relu":
            y = torch.relu(y)
        elif act == "tanh":
            y = torch.tanh(y)
        make = "tf.keras.layers.EinsumDense(%r, output_shape=%s%s%s)" % (
            eq, out, ", bias_axes=%r" % bias_axes if bias_axes else "", ", activation=%r" % act if act else "")
        cases.append(case(tag, make, ws, x, y, params))
    return cases


def main():
    cases = group_norm_cases() + conv1d_cases() + conv3d_transpose_cases() + einsum_cases()
    lines, out = emit(cases, None, None, prog="keras_layers_more_torch", gen="gen_keras_layers_more_fixtures.py")
    with open(os.path.join(PROGS, "keras_layers_more_torch.tfs"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(PROGS, "keras_layers_more_torch.out"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
