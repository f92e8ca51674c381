#!/usr/bin/python3
# gen_keras_app_efficientnet_forward.py — writes tests/programs/keras_app_efficientnet_forward.out: EfficientNetB0's features on fixed weights, computed with PyTorch.
"""Independent reference for keras_app_efficientnet_forward.tfs.

    /usr/bin/python3 tests/gen_keras_app_efficientnet_forward.py

EfficientNetB0 without its classifier on one 32x32 image, every convolution kernel set to a fixed pattern
((i * 7919 + j * 104729) mod 1009 / 1009 - 0.5) * sqrt(60 / fan_in) (j: the convolution's rank in the model, i: the
flat index in Keras's kernel layout), biases 0, BatchNormalization and Normalization at their initial statistics.
The network (paper / keras/applications/efficientnet.py) in PyTorch float64, NCHW: Rescaling 1/255, the stem's
asymmetric zero padding before each stride-2 'valid' convolution, swish, squeeze-excitation, inference BN
x / sqrt(1 + 1e-3), identity skips (dropout is off at inference).  Printed: the output's shape; after block3b and
block4a, four features to 2 decimals and the sum of magnitudes to the unit (deeper, these weights make the network
chaotic, float32 and float64 parting).
"""
import math
import numpy as np
import torch
import torch.nn.functional as F
from keras_app_expect import write

STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
          (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1)]


class Kernels:
    # the j-th convolution's kernel in Keras's layout (kh, kw, cin, cout), as float32 values
    def __init__(self):
        self.j = 0

    def next(self, shape, fan):
        n = int(np.prod(shape))
        k = ((np.arange(n) * 7919 + self.j * 104729) % 1009 / 1009.0 - 0.5) * np.sqrt(60.0 / fan)
        self.j += 1
        return torch.from_numpy(k.reshape(shape).astype(np.float32).astype(np.float64))


def conv(x, ker, cin, cout, k, stride=1, pad_same=True):
    w = ker.next((k, k, cin, cout), k * k * cin).permute(3, 2, 0, 1)
    return F.conv2d(x, w, stride=stride, padding=k // 2 if pad_same else 0)


def dwconv(x, ker, c, k, stride):
    w = ker.next((k, k, c, 1), k * k).permute(2, 3, 0, 1)
    return F.conv2d(x, w, stride=stride, padding=k // 2 if stride == 1 else 0, groups=c)


def correct_pad(x, k):
    # Keras's correct_pad for an even size: one less row/column before than after
    h = x.shape[2]
    lo = k // 2 - (1 - h % 2)
    return F.pad(x, (lo, k // 2, lo, k // 2))


def bn(x):
    return x / math.sqrt(1.0 + 1e-3)


def swish(x):
    return x * torch.sigmoid(x)


def main():
    ker = Kernels()
    img = (np.arange(32 * 32 * 3) * 37 % 256).reshape(1, 32, 32, 3).astype(np.float32)
    x = torch.from_numpy(img.astype(np.float64)).permute(0, 3, 1, 2)
    x = x * np.float64(np.float32(1.0 / 255.0))
    x = swish(bn(conv(correct_pad(x, 3), ker, 3, 32, 3, 2, pad_same=False)))
    taps = {}
    for si, (k, reps, fin, fout, expand, stride) in enumerate(STAGES):
        for r in range(reps):
            if r > 0:
                stride, fin = 1, fout
            inputs = x
            filters = fin * expand
            if expand != 1:
                x = swish(bn(conv(x, ker, fin, filters, 1)))
            if stride == 2:
                x = correct_pad(x, k)
            x = swish(bn(dwconv(x, ker, filters, k, stride)))
            se = x.mean(dim=(2, 3), keepdim=True)
            se = swish(conv(se, ker, filters, max(1, int(fin * 0.25)), 1))
            se = torch.sigmoid(conv(se, ker, max(1, int(fin * 0.25)), filters, 1))
            x = bn(conv(x * se, ker, filters, fout, 1))
            if stride == 1 and fin == fout:
                x = x + inputs
            taps[f"block{si + 1}{chr(97 + r)}"] = x.permute(0, 2, 3, 1).numpy()
    y = swish(bn(conv(x, ker, 320, 1280, 1)))
    assert ker.j == 81
    out = [f"81 (1, {y.shape[2]}, {y.shape[3]}, {y.shape[1]})"]
    for name, tap in [("block3b_add", taps["block3b"]), ("block4a_project_bn", taps["block4a"])]:
        vals = ", ".join(str(round(float(v), 2)) for v in tap[0, 1, 1, :4])
        out.append(f"{name} {tap.shape} [{vals}] {round(float(np.abs(tap).sum()))}")
    write("keras_app_efficientnet_forward", out)

if __name__ == "__main__":
    main()
