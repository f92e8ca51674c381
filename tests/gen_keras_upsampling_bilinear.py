#!/usr/bin/python3
# gen_keras_upsampling_bilinear.py — writes tests/programs/keras_upsampling_bilinear.out: UpSampling2D bilinear, with PyTorch.
"""Independent reference for keras_upsampling_bilinear.tfs.

    /usr/bin/python3 tests/gen_keras_upsampling_bilinear.py

Keras 2.15's UpSampling2D calls backend.resize_images, which runs tf.image.resize(x, (h * sh, w * sw), method)
(bilinear with half-pixel centers, as torch.nn.functional.interpolate(mode="bilinear", align_corners=False) when
enlarging).  The gradient is that of sum(up(x) * w) with respect to x.  Keras's message for an unknown method
lists its interpolations dict in order.  Printed to 4 decimals (float64 here, float32 in tfs: no value lies
near a rounding tie, which the script checks).
"""
import os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(a):
    out = []
    for v in np.reshape(a, [-1]):
        assert abs(abs(v) * 1e4 % 1 - 0.5) > 1e-3 or abs(v * 1e4 - round(v * 1e4)) < 1e-6, v
        out.append("%.4f" % v)
    return " ".join(out)


x = (np.arange(2 * 3 * 4 * 2) % 11).reshape(2, 3, 4, 2).astype(np.float64) / 4.0
w = np.linspace(-1.0, 1.0, 2 * 6 * 12 * 2).reshape(2, 6, 12, 2)
xt = torch.tensor(x.transpose(0, 3, 1, 2), requires_grad=True)   # NCHW
yt = torch.nn.functional.interpolate(xt, size=(6, 12), mode="bilinear", align_corners=False)
(yt * torch.tensor(w.transpose(0, 3, 1, 2))).sum().backward()
y = yt.detach().numpy().transpose(0, 2, 3, 1)
g = xt.grad.numpy().transpose(0, 2, 3, 1)
lines = [
    "(2, 6, 12, 2) float32 (None, 6, 12, 2)",
    fmt(y),
    fmt(g),
    "(None, 6, 8, 2) (2, 6, 8, 2)",
    "True",
    "bilinear (2, 3)",
    'ValueError: `interpolation` argument should be one of: "area", "bicubic", "bilinear", "gaussian", "lanczos3", '
    '"lanczos5", "mitchellcubic", "nearest". Received: "linear".',
]
with open(os.path.join(HERE, "programs", "keras_upsampling_bilinear.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
