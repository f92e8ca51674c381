#!/usr/bin/python3
"""Expected output of tests/programs/image_decode_uint16.tfs (issue 31): the GIF and BMP fixtures' pixels read with
PIL, widened to uint16 the way TF's DecodeImageV2Op widens JPEG/GIF/BMP samples (times (65535 + 1) / (255 + 1));
the JPEG lines check the same rule against decode_jpeg, and the refusal is TF's DecodeBmp-format message."""
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
