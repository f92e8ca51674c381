"""gen_keras_app_torch.py — writes tests/programs/keras_app_torch.npy and .out: MobileNet (alpha 0.25, 10 logits), MobileNetV2 (alpha 0.35, 10 logits) DenseNet121 (average-pooled features) on 32x32 images and Xception (average-pooled) on 71x71 ones, run in PyTorch on the fixed weights and inputs that keras_app_torch.tfs sets, for that golden to compare with."""
import io
import os
import sys
import zipfile
import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_app_arch as arch


def values(layer, i, shape):
    # the weight formula the .tfs program uses: cosines seeded by the layer's name and the weight's index
    n = int(np.prod(shape))
    return np.cos(np.arange(n) * 0.7 + sum(ord(c) for c in layer) + 3 * i).reshape(shape)


def kernel(layer, shape, depthwise=False):
    # He-like scale (the cosines' variance is 1/2) so the input's signal survives the depth
    fan = np.prod(shape[:-1]) // (shape[2] if depthwise else 1)
    return (2 * values(layer, 0, shape) / np.sqrt(fan)).astype(np.float32)


def bn(x, layer, eps=1e-3):
    c = x.shape[1]
    g = (1 + 0.1 * values(layer, 0, (c,))).astype(np.float32)
    b = (0.1 * values(layer, 1, (c,))).astype(np.float32)
    mean = (0.01 * values(layer, 2, (c,))).astype(np.float32)
    var = (0.2 + 0.2 * np.abs(values(layer, 3, (c,)))).astype(np.float32)
    t = lambda a: torch.tensor(a).view(1, c, 1, 1)
    return (x - t(mean)) / torch.sqrt(t(var) + eps) * t(g) + t(b)


def conv(x, layer, filters, k, stride=1, same=True, bias=False):
    w = kernel(layer, (k, k, x.shape[1], filters))
    if same and k > 1:
        # TF's "same": the extra padding of an even total goes after (bottom / right)
        total = max((-(-x.shape[2] // stride) - 1) * stride + k - x.shape[2], 0)
        x = F.pad(x, (total // 2, total - total // 2, total // 2, total - total // 2))
    y = F.conv2d(x, torch.tensor(w.transpose(3, 2, 0, 1)), stride=stride)
    if bias:
        y = y + torch.tensor((0.1 * values(layer, 1, (filters,))).astype(np.float32)).view(1, -1, 1, 1)
    return y


def depthwise(x, layer, stride, same):
    c = x.shape[1]
    w = kernel(layer, (3, 3, c, 1), True)
    if same:
        x = F.pad(x, (1, 1, 1, 1))
    return F.conv2d(x, torch.tensor(w.transpose(2, 3, 0, 1)), stride=stride, groups=c)


relu6 = lambda x: torch.clamp(x, 0, 6)


def mobilenet(x, alpha=0.25, classes=10):
    x = relu6(bn(conv(x, "conv1", int(32 * alpha), 3, 2), "conv1_bn", 1e-3))
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for i, (f, s) in enumerate(blocks, 1):
        if s == 2:
            x = F.pad(x, (0, 1, 0, 1))
        x = relu6(bn(depthwise(x, f"conv_dw_{i}", s, s == 1), f"conv_dw_{i}_bn", 1e-3))
        x = relu6(bn(conv(x, f"conv_pw_{i}", int(f * alpha), 1), f"conv_pw_{i}_bn", 1e-3))
    x = x.mean(dim=(2, 3), keepdim=True)
    return conv(x, "conv_preds", classes, 1, bias=True).reshape(x.shape[0], classes)


def divisible(v, d=8):
    n = max(d, int(v + d / 2) // d * d)
    return n + d if n < 0.9 * v else n


def mobilenet_v2(x, alpha=0.35, classes=10):
    x = relu6(bn(conv(x, "Conv1", divisible(32 * alpha), 3, 2), "bn_Conv1", 1e-3))
    blocks = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
              (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
              (320, 1, 6)]
    for i, (f, s, e) in enumerate(blocks):
        inp = x
        p = f"block_{i}_" if i else "expanded_conv_"
        out_c = divisible(int(f * alpha))
        if i:
            x = relu6(bn(conv(x, p + "expand", e * x.shape[1], 1), p + "expand_BN", 1e-3))
        if s == 2:
            adj = [1 - x.shape[2] % 2, 1 - x.shape[3] % 2]
            x = F.pad(x, (1 - adj[1], 1, 1 - adj[0], 1))
        x = relu6(bn(depthwise(x, p + "depthwise", s, s == 1), p + "depthwise_BN", 1e-3))
        x = bn(conv(x, p + "project", out_c, 1), p + "project_BN", 1e-3)
        if inp.shape[1] == out_c and s == 1:
            x = inp + x
    x = relu6(bn(conv(x, "Conv_1", 1280, 1), "Conv_1_bn", 1e-3))
    x = x.mean(dim=(2, 3))
    w = kernel("predictions", (1280, classes))
    b = (0.1 * values("predictions", 1, (classes,))).astype(np.float32)
    return x @ torch.tensor(w) + torch.tensor(b)


def densenet121(x):
    x = F.pad(x, (3, 3, 3, 3))
    x = F.relu(bn(conv(x, "conv1/conv", 64, 7, 2, same=False), "conv1/bn", 1.001e-5))
    x = F.max_pool2d(F.pad(x, (1, 1, 1, 1)), 3, 2)
    for stage, blocks in enumerate([6, 12, 24, 16]):
        for i in range(1, blocks + 1):
            p = f"conv{stage + 2}_block{i}"
            y = F.relu(bn(x, p + "_0_bn", 1.001e-5))
            y = F.relu(bn(conv(y, p + "_1_conv", 128, 1), p + "_1_bn", 1.001e-5))
            x = torch.cat([x, conv(y, p + "_2_conv", 32, 3)], dim=1)
        if stage < 3:
            p = f"pool{stage + 2}"
            x = F.relu(bn(x, p + "_bn", 1.001e-5))
            x = F.avg_pool2d(conv(x, p + "_conv", x.shape[1] // 2, 1), 2, 2)
    return F.relu(bn(x, "bn", 1.001e-5)).mean(dim=(2, 3))


def separable(x, layer, filters):
    c = x.shape[1]
    dw = (2 * values(layer, 0, (3, 3, c, 1)) / 3).astype(np.float32)
    pw = (values(layer, 1, (1, 1, c, filters)) / np.sqrt(c)).astype(np.float32)
    x = F.conv2d(F.pad(x, (1, 1, 1, 1)), torch.tensor(dw.transpose(2, 3, 0, 1)), groups=c)
    return F.conv2d(x, torch.tensor(pw.transpose(3, 2, 0, 1)))


def maxpool_same(x):
    # TF's 3x3 stride-2 "same" max pooling: -inf padding, the odd one after
    total = max((-(-x.shape[2] // 2) - 1) * 2 + 3 - x.shape[2], 0)
    x = F.pad(x, (total // 2, total - total // 2, total // 2, total - total // 2), value=float("-inf"))
    return F.max_pool2d(x, 3, 2)


def xception(x):
    x = F.relu(bn(conv(x, "block1_conv1", 32, 3, 2, same=False), "block1_conv1_bn"))
    x = F.relu(bn(conv(x, "block1_conv2", 64, 3, 1, same=False), "block1_conv2_bn"))
    shortcuts = iter(range(4))

    def down(x, block, f1, f2, first_act=True):
        k = next(shortcuts)
        r = bn(conv(x, "conv2d" + (f"_{k}" if k else ""), f2, 1, 2), "batch_normalization" + (f"_{k}" if k else ""))
        p = f"block{block}_"
        if first_act:
            x = F.relu(x)
        x = F.relu(bn(separable(x, p + "sepconv1", f1), p + "sepconv1_bn"))
        x = bn(separable(x, p + "sepconv2", f2), p + "sepconv2_bn")
        return maxpool_same(x) + r

    for block in arch.XCEPTION_ENTRY:
        x = down(x, *block)
    for i in arch.XCEPTION_MIDDLE:
        r = x
        for k in (1, 2, 3):
            x = bn(separable(F.relu(x), f"block{i}_sepconv{k}", 728), f"block{i}_sepconv{k}_bn")
        x = x + r
    x = down(x, 13, 728, 1024)
    x = F.relu(bn(separable(x, "block14_sepconv1", 1536), "block14_sepconv1_bn"))
    x = F.relu(bn(separable(x, "block14_sepconv2", 2048), "block14_sepconv2_bn"))
    return x.mean(dim=(2, 3))


n = 2 * 32 * 32 * 3
image = (np.cos(np.arange(n) * 0.05) * 0.5 + 0.5).reshape(2, 32, 32, 3).astype(np.float32)
x = torch.tensor(image).permute(0, 3, 1, 2)
with torch.no_grad():
    outs = [mobilenet(x).numpy(), mobilenet_v2(x).numpy(), densenet121(x).numpy()]
    # Xception on 71x71 images (its smallest)
    big = (np.cos(np.arange(2 * 71 * 71 * 3) * 0.05) * 0.5 + 0.5).reshape(2, 71, 71, 3).astype(np.float32)
    outs.append(xception(torch.tensor(big).permute(0, 3, 1, 2)).numpy())
here = os.path.dirname(os.path.abspath(__file__))
# np.savez's layout (arr_0.npy ...) with a fixed timestamp, so the file regenerates byte for byte
with zipfile.ZipFile(os.path.join(here, "programs", "keras_app_torch.npz"), "w", zipfile.ZIP_STORED) as z:
    for i, a in enumerate(outs):
        buf = io.BytesIO()
        np.save(buf, a)
        z.writestr(zipfile.ZipInfo("arr_%d.npy" % i, date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())
with open(os.path.join(here, "programs", "keras_app_torch.out"), "w") as f:
    for out, name in zip(outs, ["mobilenet_0.25_32", "mobilenetv2_0.35_32", "densenet121", "xception"]):
        # the two images' outputs differ well beyond the tolerance: the comparison sees the input, not only the biases
        assert np.abs(out[0] - out[1]).max() > 3 * 1e-4 * np.abs(out).max()
        f.write(f"{name} {out.shape} True\n")
