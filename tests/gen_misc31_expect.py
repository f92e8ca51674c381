#!/usr/bin/python3
"""Expected outputs of issue 31's tests.

tests/programs/image_decode_uint16.tfs: the GIF and BMP fixtures' pixels read with PIL, widened to uint16 the way TF's
DecodeImageV2Op widens JPEG/GIF/BMP samples (times (65535 + 1) / (255 + 1)); the JPEG lines check the same rule
against decode_jpeg, and the refusal is TF's DecodeBmp-format message.

tests/savedmodel/sm_gradcapture_{save,load}.out: the custom gradients in float32 numpy (log1pexp's
dy * (1 - 1 / (1 + exp(x))); mul(2a, b) + a with grad_fn (dy * b * 10, dy * a); 3p + q of two(x, y) = [x y, x + y]
with grad_fn (dp * 10 + dq * y, dq * x + dp))."""
import os

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "programs", "data")
SCALE = (65535 + 1) // (255 + 1)


def pixels(name, channels=None):
    im = Image.open(os.path.join(DATA, name))
    a = np.array(im.convert("RGB") if im.mode == "P" or channels == 3 else im)
    if a.ndim == 2:
        a = a[:, :, None]
    return a.astype(np.uint16) * SCALE


def line(label, a, n=12):
    return "%s uint16 %s %s" % (label, list(a.shape), a.ravel()[:n].tolist())


out = ["jpeg decode_png uint16 [2, 3, 3] True", "jpeg decode_image uint16 [2, 3, 3] True"]
g = pixels("img_one.gif")
out.append(line("gif decode_png", g))
out.append(line("gif decode_image", g[None]))   # expand_animations: a GIF is 4-D
for f in ["img_rgb.bmp", "img_gray.bmp"]:
    out.append(line(f, pixels(f)))
out.append(line("function", pixels("img_gray.bmp", channels=3), 6))
out.append("InvalidArgumentError: Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` "
           "instead. Op used: DecodePng")
with open(os.path.join(HERE, "programs", "image_decode_uint16.out"), "w") as fh:
    fh.write("\n".join(out) + "\n")


# ---- sm_gradcapture: custom gradients that use the forward tensors, before and after a SavedModel round trip ----
f32 = np.float32
with np.errstate(over="ignore"):
    x = np.array([0.0, 2.0, 100.0], f32)
    e = np.exp(x)
    y = np.log(f32(1) + e)
    gx = f32(1) * (f32(1) - f32(1) / (f32(1) + e))
a = np.array([1.0, 2.0], f32)
b = np.array([3.0, 4.0], f32)
r = (a * f32(2)) * b + a
da = b * f32(10) * f32(2) + f32(1)      # the custom gradient of mul's first argument (2a), then 2a's and a's own
db = a * f32(2)


def r4(v):
    return [round(float(t), 4) for t in v]


soft = "softplus %s %s" % (r4(y), r4(gx))
px = np.array([1.0, 2.0], f32)
py = np.array([3.0, 5.0], f32)
dp, dq = f32(3), f32(1)                 # r = 3 p + q
pair = "pair %s %s %s" % ([float(t) for t in px * py * f32(3) + (px + py)], [float(t) for t in dp * f32(10) + dq * py],
                          [float(t) for t in dq * px + dp])
prod = "prod %s %s %s" % ([float(t) for t in r], [float(t) for t in da], [float(t) for t in db])
SM = os.path.join(HERE, "savedmodel")
with open(os.path.join(SM, "sm_gradcapture_save.out"), "w") as fh:
    fh.write("\n".join([soft, prod, pair, "saved", soft, prod, pair]) + "\n")
with open(os.path.join(SM, "sm_gradcapture_load.out"), "w") as fh:
    fh.write("\n".join([soft, prod, pair]) + "\n")
