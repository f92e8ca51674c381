#!/usr/bin/python3
"""gen_image_expect.py — golden programs for tf.image and the tf.io image codecs, with numpy/PyTorch/PIL expectations.

    /usr/bin/python3 tests/gen_image_expect.py     # writes tests/programs/image_*.tfs/.out and tests/programs/data/img_*

Resizing: bilinear and nearest against torch.nn.functional.interpolate (align_corners=False is TF 2.15's
half-pixel-centers bilinear; 'nearest-exact' its nearest); bicubic, area and the antialiased kernels against numpy
written from TF's kernels (TF's bicubic uses Keys' a = -0.5 from a 1024-step table and renormalises weights at the
border, torch's a = -0.75 clamps, so torch is no oracle there).  Colour and crops: numpy from image_ops_impl.py.
Codecs: files written and read by PIL (python3-pil, the same libpng/libjpeg-turbo); PNG round-trips bit-exactly.
"""
import math
import os
import struct
import zlib

import numpy as np
import torch
from PIL import Image

from gen_coreapi_expect import write, show, f32, PROGS

DATA = os.path.join(PROGS, "data")
GEN = "tests/gen_image_expect.py"

IMG = f32(np.sin(np.arange(2 * 4 * 6 * 3).reshape(2, 4, 6, 3) * 1.7) * 0.45 + 0.5)   # [2, 4, 6, 3] in [0.05, 0.95]
BIG = f32(np.cos(np.arange(2 * 13 * 12 * 2).reshape(2, 13, 12, 2) * 0.37) * 0.4 + 0.5)
SMALL = f32([[1, 2, 0], [4, 8, 3], [0, 5, 9]]).reshape(1, 3, 3, 1)


# ---- resampling references ------------------------------------------------------------------------

def torch_resize(x, size, mode):
    t = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    y = torch.nn.functional.interpolate(t, size=size, mode=mode, **({} if mode == "nearest-exact" else {"align_corners": False}))
    return y.numpy().transpose(0, 2, 3, 1).astype(np.float32)


def separable(x, wh, ww):
    # x [B, H, W, C]; wh [OH, H], ww [OW, W] weight matrices
    y = np.einsum("oh,bhwc->bowc", wh.astype(np.float64), x.astype(np.float64))
    return np.einsum("pw,bowc->bopc", ww.astype(np.float64), y).astype(np.float32)


def keys_table(a):
    t = np.zeros((1025, 2), np.float32)
    for i in range(1025):
        x = np.float32(i / 1024.0)
        t[i, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
        x = np.float32(x + 1.0)
        t[i, 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return t


def bicubic_weights(n_in, n_out):
    # TF's ResizeBicubic with half_pixel_centers: a = -0.5, table lookup, out-of-image taps dropped, renormalised
    t = keys_table(-0.5)
    scale = np.float32(n_in) / np.float32(n_out)
    w = np.zeros((n_out, n_in), np.float64)
    for o in range(n_out):
        s = (np.float32(o) + np.float32(0.5)) * scale - np.float32(0.5)
        il = int(math.floor(s))
        off = int(np.rint((s - np.float32(il)) * 1024))
        ws = [t[off, 1], t[off, 0], t[1024 - off, 0], t[1024 - off, 1]]
        idx = [il - 1 + j for j in range(4)]
        ws = [ws[j] if 0 <= idx[j] < n_in else 0.0 for j in range(4)]
        tot = sum(ws)
        for j in range(4):
            if 0 <= idx[j] < n_in:
                w[o, idx[j]] += ws[j] / tot
    return w


def area_weights(n_in, n_out):
    scale = n_in / n_out
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo, hi = o * scale, (o + 1) * scale
        for i in range(int(math.floor(lo)), int(math.ceil(hi))):
            w[o, min(i, n_in - 1)] += (min(i + 1, hi) - max(i, lo)) / scale
    return w


def kernel(name, x):
    x = abs(x)
    if name == "triangle":
        return max(0.0, 1 - x)
    if name == "keyscubic":
        return ((1.5 * x - 2.5) * x) * x + 1 if x < 1 else (((-0.5 * x + 2.5) * x - 4) * x + 2 if x < 2 else 0.0)
    if name == "mitchellcubic":
        return ((7 / 6 * x - 2) * x) * x + 8 / 9 if x < 1 else ((((-7 / 18) * x + 2) * x - 10 / 3) * x + 16 / 9 if x < 2 else 0.0)
    if name == "gaussian":   # TF's: radius 1.5, sigma 0.5
        return math.exp(-x * x / (2 * 0.5 * 0.5)) if x < 1.5 else 0.0
    r = {"lanczos3": 3, "lanczos5": 5}[name]
    if x > r:
        return 0.0
    if x < 1e-3:
        return 1.0
    return r * math.sin(math.pi * x) * math.sin(math.pi * x / r) / (math.pi * math.pi * x * x)


def scaled_weights(name, n_in, n_out, antialias):
    # TF's ScaleAndTranslate (translation 0): kernel widened by 1/scale when antialiasing a reduction, renormalised
    radius = {"triangle": 1, "keyscubic": 2, "mitchellcubic": 2, "lanczos3": 3, "lanczos5": 5, "gaussian": 1.5}[name]
    inv = n_in / n_out
    ks = max(inv, 1.0) if antialias else 1.0
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        at = (o + 0.5) * inv
        a = min(max(int(math.ceil(at - radius * ks - 0.5)), 0), n_in - 1)
        b = min(max(int(math.floor(at + radius * ks - 0.5)), 0), n_in - 1) + 1
        ws = [kernel(name, (i + 0.5 - at) / ks) for i in range(a, b)]
        tot = sum(ws)
        for k, i in enumerate(range(a, b)):
            w[o, i] = ws[k] / tot
    return w


def resize_cases():
    x = IMG
    cases = [
        ("bilinear up", "tf.image.resize(img, [6, 9])", torch_resize(x, (6, 9), "bilinear")),
        ("bilinear down", "tf.image.resize(img, [3, 4], method='bilinear')", torch_resize(x, (3, 4), "bilinear")),
        ("nearest", "tf.image.resize(img, [7, 4], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)",
         torch_resize(x, (7, 4), "nearest-exact")),
        ("nearest single", "tf.image.resize(img[0], [2, 9], method='nearest')", torch_resize(x[:1], (2, 9), "nearest-exact")[0]),
        ("bicubic", "tf.image.resize(img, [6, 5], method='bicubic')", separable(x, bicubic_weights(4, 6), bicubic_weights(6, 5))),
        ("area", "tf.image.resize(img, [2, 4], method='area')", separable(x, area_weights(4, 2), area_weights(6, 4))),
        ("area up", "tf.image.resize(img, [5, 7], method='area')", separable(x, area_weights(4, 5), area_weights(6, 7))),
        ("antialias bilinear", "tf.image.resize(img, [2, 3], antialias=True)",
         separable(x, scaled_weights("triangle", 4, 2, True), scaled_weights("triangle", 6, 3, True))),
        ("antialias bicubic", "tf.image.resize(img, [3, 2], method='bicubic', antialias=True)",
         separable(x, scaled_weights("keyscubic", 4, 3, True), scaled_weights("keyscubic", 6, 2, True))),
        ("lanczos3", "tf.image.resize(img, [5, 4], method='lanczos3')",
         separable(x, scaled_weights("lanczos3", 4, 5, False), scaled_weights("lanczos3", 6, 4, False))),
        ("mitchellcubic", "tf.image.resize(img, [3, 8], method='mitchellcubic')",
         separable(x, scaled_weights("mitchellcubic", 4, 3, False), scaled_weights("mitchellcubic", 6, 8, False))),
        ("gaussian", "tf.image.resize(img, [7, 3], method='gaussian')",
         separable(x, scaled_weights("gaussian", 4, 7, False), scaled_weights("gaussian", 6, 3, False))),
        ("gaussian antialias", "tf.image.resize(img, [2, 5], method=tf.image.ResizeMethod.GAUSSIAN, antialias=True)",
         separable(x, scaled_weights("gaussian", 4, 2, True), scaled_weights("gaussian", 6, 5, True))),
        ("uint8 bilinear", "tf.image.resize(tf.cast(img * 100.0, tf.uint8), [3, 3])",
         torch_resize((x * 100).astype(np.uint8).astype(np.float32), (3, 3), "bilinear")),
        ("uint8 nearest keeps dtype", "tf.image.resize(tf.cast(img * 100.0, tf.uint8), [2, 2], method='nearest')",
         torch_resize((x * 100).astype(np.uint8).astype(np.float32), (2, 2), "nearest-exact").astype(np.uint8)),
        ("preserve_aspect_ratio", "tf.shape(tf.image.resize(img, [8, 8], preserve_aspect_ratio=True))", np.int32([2, 5, 8, 3])),
        ("resize_with_pad", "tf.image.resize_with_pad(small, 4, 6)",
         np.pad(torch_resize(SMALL, (4, 4), "bilinear"), [[0, 0], [0, 0], [1, 1], [0, 0]])),
    ]
    # gradients: the transpose of the resampling, so sum(resize(x) * r) differentiates to W^T r
    r = f32(np.linspace(-1, 1.3, 6 * 5).reshape(1, 6, 5, 1))
    xt = torch.from_numpy(SMALL.transpose(0, 3, 1, 2).copy()).requires_grad_(True)
    y = torch.nn.functional.interpolate(xt, size=(6, 5), mode="bilinear", align_corners=False)
    (y * torch.from_numpy(r.transpose(0, 3, 1, 2).copy())).sum().backward()
    g_bil = xt.grad.numpy().transpose(0, 2, 3, 1)
    xt.grad = None
    y = torch.nn.functional.interpolate(xt, size=(6, 5), mode="nearest-exact")
    (y * torch.from_numpy(r.transpose(0, 3, 1, 2).copy())).sum().backward()
    g_near = xt.grad.numpy().transpose(0, 2, 3, 1)
    wh, ww = bicubic_weights(3, 6), bicubic_weights(3, 5)
    g_cub = np.einsum("oh,pw,bopc->bhwc", wh, ww, r.astype(np.float64)).astype(np.float32)
    wh, ww = scaled_weights("triangle", 3, 2, True), scaled_weights("triangle", 3, 2, True)
    r2 = f32([[1.0, -2.1], [0.55, 3.0]]).reshape(1, 2, 2, 1)
    g_aa = np.einsum("oh,pw,bopc->bhwc", wh, ww, r2.astype(np.float64)).astype(np.float32)
    grads = [
        ("resize bilinear", "lambda s: tf.reduce_sum(tf.image.resize(s, [6, 5]) * r)", "small", g_bil),
        ("resize nearest", "lambda s: tf.reduce_sum(tf.image.resize(s, [6, 5], method='nearest') * r)", "small", g_near),
        ("resize bicubic", "lambda s: tf.reduce_sum(tf.image.resize(s, [6, 5], method='bicubic') * r)", "small", g_cub),
        ("resize antialias", "lambda s: tf.reduce_sum(tf.image.resize(s, [2, 2], antialias=True) * r2)", "small", g_aa),
    ]
    # a signature function: tests/onnx_export.py exports it (ONNX Resize) and compares ONNX Runtime with tfs
    sig = ["@tf.function(input_signature=[tf.TensorSpec([None, 4, 6, 3], tf.float32)])",
           "def resize_sig(t):",
           "    return (tf.image.resize(t, [6, 9]), tf.image.resize(t, [7, 4], method='nearest'),",
           "            tf.image.resize(t, [8, 12], method='bicubic'))",
           "show('signature', resize_sig(img))"]
    sig_out = [show("signature", (torch_resize(x, (6, 9), "bilinear"), torch_resize(x, (7, 4), "nearest-exact"),
                                  separable(x, bicubic_weights(4, 8), bicubic_weights(6, 12))))]
    write("image_resize", "tf.image.resize (every method, antialias), resize_with_pad, and the resize gradients",
          ["img = tf.constant(%s)" % IMG.tolist(), "small = tf.constant(%s)" % SMALL.tolist(),
           "r = tf.constant(%s)" % r.tolist(), "r2 = tf.constant(%s)" % r2.tolist()],
          cases, grads, (sig, sig_out), by=GEN + " (expected values from numpy)")


# ---- colour, crops, flips, dtypes -----------------------------------------------------------------

def rgb_to_hsv(x):
    # in float32, as the ops compute
    x = x.astype(np.float32)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = x.max(-1)
    rng = v - x.min(-1)
    s = np.where(v > 0, rng / np.where(v > 0, v, 1), 0)
    norm = np.float32(1) / (np.float32(6) * np.where(rng > 0, rng, np.float32(1)))
    h = np.where(r == v, norm * (g - b), np.where(g == v, norm * (b - r) + np.float32(2 / 6), norm * (r - g) + np.float32(4 / 6)))
    h = np.where(rng > 0, h, np.float32(0))
    h = np.where(h < 0, h + np.float32(1), h)
    return np.stack([h, s, v], -1).astype(np.float32)


def hsv_to_rgb(x):
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    c = s * v
    m = v - c
    dh = h * np.float32(6)
    cat = np.floor(dh)
    xx = c * (np.float32(1) - np.abs(np.mod(dh, np.float32(2)) - np.float32(1)))
    z = np.zeros_like(c)
    table = [(c, xx, z), (xx, c, z), (z, c, xx), (z, xx, c), (xx, z, c), (c, z, xx)]
    out = [z, z, z]
    for i, t in enumerate(table):
        out = [np.where(cat == i, t[k], out[k]) for k in range(3)]
    return np.stack([o + m for o in out], -1)


def to_uint8(f):
    # convert_image_dtype(float -> uint8, saturate=True): x * 255.5, clamped, truncated
    return np.clip(f.astype(np.float32) * np.float32(255.5), 0, 255).astype(np.uint8)


def color_cases():
    x = IMG[0]
    u = (IMG[0] * 200).astype(np.uint8)
    uf = u.astype(np.float32) / np.float32(255)
    gray_w = f32([0.2989, 0.5870, 0.1140])
    mean = x.mean((0, 1), keepdims=True)
    pix = x.astype(np.float64)
    std = pix.std()
    hsv = rgb_to_hsv(x)
    sat = hsv.copy()
    sat[..., 1] = np.clip(sat[..., 1] * 0.4, 0, 1)
    hue = hsv.copy()
    hue[..., 0] = np.mod(hue[..., 0] + np.float32(0.3), np.float32(1))
    top = int((4 - 4 * 0.5) / 2)
    left = int((6 - 6 * 0.5) / 2)
    cases = [
        ("flip_left_right", "tf.image.flip_left_right(img)", IMG[:, :, ::-1]),
        ("flip_up_down", "tf.image.flip_up_down(img[0])", IMG[0, ::-1]),
        ("transpose", "tf.image.transpose(img)", IMG.transpose(0, 2, 1, 3)),
        ("rot90", "tf.image.rot90(img[0])", np.rot90(IMG[0], 1, (0, 1))),
        ("rot90 k=2", "tf.image.rot90(img, k=2)", np.rot90(IMG, 2, (1, 2))),
        ("rot90 k=3", "tf.image.rot90(img[0], 3)", np.rot90(IMG[0], 3, (0, 1))),
        ("crop_to_bounding_box", "tf.image.crop_to_bounding_box(img, 1, 2, 2, 3)", IMG[:, 1:3, 2:5]),
        ("pad_to_bounding_box", "tf.image.pad_to_bounding_box(img[0], 1, 0, 6, 7)", np.pad(IMG[0], [[1, 1], [0, 1], [0, 0]])),
        ("resize_with_crop_or_pad", "tf.image.resize_with_crop_or_pad(img[0], 2, 8)", np.pad(IMG[0, 1:3], [[0, 0], [1, 1], [0, 0]])),
        ("central_crop", "tf.image.central_crop(img, 0.5)", IMG[:, top:4 - top, left:6 - left]),
        ("rgb_to_grayscale", "tf.image.rgb_to_grayscale(img[0])", (x * gray_w).sum(-1, keepdims=True)),
        ("rgb_to_grayscale uint8", "tf.image.rgb_to_grayscale(u)", to_uint8((uf * gray_w).sum(-1, keepdims=True))),
        ("grayscale_to_rgb", "tf.image.grayscale_to_rgb(img[0, :, :, :1])", np.repeat(IMG[0, :, :, :1], 3, -1)),
        ("rgb_to_hsv", "tf.image.rgb_to_hsv(img[0])", hsv.astype(np.float32)),
        ("hsv_to_rgb", "tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(img[0]))", hsv_to_rgb(hsv).astype(np.float32)),
        ("adjust_brightness", "tf.image.adjust_brightness(img[0], 0.25)", x + np.float32(0.25)),
        ("adjust_brightness uint8", "tf.image.adjust_brightness(u, 0.5)", to_uint8(uf + np.float32(0.5))),
        ("adjust_contrast", "tf.image.adjust_contrast(img[0], 1.5)", ((x - mean) * 1.5 + mean).astype(np.float32)),
        ("adjust_gamma", "tf.image.adjust_gamma(img[0], 2.0, 0.5)", (0.5 * x.astype(np.float64) ** 2).astype(np.float32)),
        ("adjust_saturation", "tf.image.adjust_saturation(img[0], 0.4)", hsv_to_rgb(sat).astype(np.float32)),
        ("adjust_hue", "tf.image.adjust_hue(img[0], 0.3)", hsv_to_rgb(hue).astype(np.float32)),
        ("per_image_standardization", "tf.image.per_image_standardization(img[0])",
         ((pix - pix.mean()) / max(std, 1 / math.sqrt(pix.size))).astype(np.float32)),
        ("convert uint8 to float", "tf.image.convert_image_dtype(u, tf.float32)", uf * np.float32(1.0)),
        ("convert float to uint8", "tf.image.convert_image_dtype(img[0] * 0.5, tf.uint8)", to_uint8(x * np.float32(0.5))),
        ("convert saturate", "tf.image.convert_image_dtype(img[0] * 2.0 - 0.5, tf.uint8, saturate=True)",
         to_uint8(x * np.float32(2.0) - np.float32(0.5))),
        ("convert uint8 to int32", "tf.image.convert_image_dtype(u, tf.int32)", u.astype(np.int32) * (2 ** 23)),
        ("convert int32 to uint8", "tf.image.convert_image_dtype(tf.constant([[[2147483647, 65536, 16777216]]]), tf.uint8)",
         np.uint8([[[255, 0, 2]]])),
        ("extract_patches", "tf.image.extract_patches(img[:, :, :, :1], [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], 'VALID')",
         np.stack([np.concatenate([IMG[b, i:i + 2, j:j + 3, :1].reshape(-1) for j in [0, 2]]).reshape(2, 6)
                   for b in range(2) for i in [0, 2]]).reshape(2, 2, 2, 6)),
        ("extract_patches SAME", "tf.image.extract_patches(small, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], 'SAME')",
         np.pad(SMALL, [[0, 0], [0, 1], [0, 1], [0, 0]]).reshape(1, 2, 2, 2, 2).transpose(0, 1, 3, 2, 4).reshape(1, 2, 2, 4)),
        ("ssim", "tf.image.ssim(big, big * 0.8 + 0.1, 1.0)", np_ssim(BIG, BIG * np.float32(0.8) + np.float32(0.1))),
        ("ssim small window", "tf.image.ssim(big, tf.reverse(big, [2]), 1.0, filter_size=5, filter_sigma=1.0)",
         np_ssim(BIG, BIG[:, :, ::-1], size=5, sigma=1.0)),
        ("psnr", "tf.image.psnr(img, img * 0.9, max_val=1.0)",
         np.float32([20 * math.log10(1.0) - 10 * math.log10(((IMG[b].astype(np.float64) * 0.1) ** 2).mean()) for b in range(2)])),
    ]
    grads = [
        ("flip_left_right", "lambda s: tf.reduce_sum(tf.image.flip_left_right(s) * w)", "small",
         np.float32([1, 2, 3]).reshape(1, 1, 3, 1)[:, :, ::-1] * np.ones((1, 3, 1, 1), np.float32)),
    ]
    err_src = ["for bad in [lambda: tf.image.resize(tf.zeros([4]), [2, 2]), lambda: tf.image.resize(img, [2]),",
               "            lambda: tf.image.crop_to_bounding_box(img, 3, 0, 2, 2), lambda: tf.image.central_crop(img, 1.5),",
               "            lambda: tf.image.rgb_to_hsv(img[:, :, :, :2]), lambda: tf.image.resize(img, [2, 2], method='cubic'),",
               "            lambda: tf.raw_ops.ResizeBilinear(images=img[0], size=[2, 2])]:",
               "    try:", "        bad()", "    except (ValueError, TypeError, tf.errors.InvalidArgumentError) as e:",
               "        print(type(e).__name__ + ': ' + str(e).split(' [Op')[0])",
               "# TF registers no gradient for AdjustContrastv2, AdjustHue, AdjustSaturation: a tape through them raises",
               "for adj in [lambda s: tf.image.adjust_contrast(s, 2.0), lambda s: tf.image.adjust_hue(s, 0.1),",
               "            lambda s: tf.image.adjust_saturation(s, 0.5), lambda s: tf.function(tf.image.adjust_contrast)(s, 2.0)]:",
               "    with tf.GradientTape() as tape:",
               "        tape.watch(img)",
               "        y = tf.reduce_sum(adj(img) * img)",
               "    try:",
               "        print(tape.gradient(y, img))",
               "    except LookupError as e:",
               "        print(type(e).__name__ + ': ' + str(e))",
               "    with tf.GradientTape() as tape:   # nothing watched reaches it: no error",
               "        tape.watch(small)",
               "        y = tf.reduce_sum(adj(img)) + tf.reduce_sum(small)",
               "    print(tape.gradient(y, small).shape)"]
    err_out = ["ValueError: 'images' must have either 3 or 4 dimensions.",
               "ValueError: 'size' must be a 1-D Tensor of 2 elements: new_height, new_width",
               "ValueError: height must be >= target + offset.",
               "ValueError: central_fraction must be within (0, 1]",
               "InvalidArgumentError: input must have 3 channels but input only has 2 channels.",
               "ValueError: Resize method is not implemented: cubic",
               "InvalidArgumentError: input must be 4-dimensional[4,6,3]"]
    for op in ("AdjustContrastv2", "AdjustHue", "AdjustSaturation", "AdjustContrastv2"):
        err_out += ["LookupError: gradient registry has no entry for: " + op, str(tuple(SMALL.shape)).replace(",)", ")")]
    write("image_ops", "tf.image flips, rot90, crops and pads, colour conversions and adjustments, convert_image_dtype, "
          "extract_patches, psnr", ["img = tf.constant(%s)" % IMG.tolist(), "small = tf.constant(%s)" % SMALL.tolist(),
                                    "u = tf.cast(img[0] * 200.0, tf.uint8)", "w = tf.constant([[[[1.0], [2.0], [3.0]]]])",
                                    "big = tf.constant(%s)" % BIG.tolist()],
          cases, grads, (err_src, err_out), by=GEN + " (expected values from numpy)")


def np_ssim(a, b, max_val=1.0, size=11, sigma=1.5, k1=0.01, k2=0.03):
    # TF's _ssim_helper over a Gaussian window (VALID), per channel, then averaged
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = coords ** 2 * (-0.5 / sigma ** 2)
    g = g[None, :] + g[:, None]
    g = np.exp(g - g.max())
    g /= g.sum()

    def filt(x):   # x [N, H, W, C]
        n, h, w, c = x.shape
        out = np.zeros((n, h - size + 1, w - size + 1, c))
        for i in range(h - size + 1):
            for j in range(w - size + 1):
                out[:, i, j, :] = np.einsum("nhwc,hw->nc", x[:, i:i + size, j:j + size, :], g)
        return out
    x, y = a.astype(np.float64), b.astype(np.float64)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m0, m1 = filt(x), filt(y)
    num0, den0 = m0 * m1 * 2, m0 ** 2 + m1 ** 2
    lum = (num0 + c1) / (den0 + c1)
    cs = (filt(x * y) * 2 - num0 + c2) / (filt(x * x + y * y) - den0 + c2)
    return (lum * cs).mean((1, 2)).mean(-1).astype(np.float32)


# ---- codecs ----------------------------------------------------------------------------------------

def fuzz_files(sources, exts, seed, lo):
    """Hostile variants of files: bytes flipped past offset lo, or the file cut (every third); each must decode or
    raise InvalidArgumentError, never crash (the expected line is the same either way). Returns their names."""
    rng = np.random.RandomState(seed)
    names = []
    for k, src_bytes in enumerate(sources):
        b = bytearray(src_bytes)
        if k % 3 == 2:
            b = b[:rng.randint(lo + 1, len(b))]
        else:
            for _ in range(1 + k % 4):
                b[rng.randint(lo, len(b))] = rng.randint(256)
        names.append("img_fuzz_%02d.%s" % (k, exts[k % len(exts)]))
        open(os.path.join(DATA, names[-1]), "wb").write(bytes(b))
    return names


def rd(name):
    return "tf.io.read_file('data/%s')" % name


class CodecProgram:
    """A codec golden being written: its source lines, its expected output lines, and case() printing one image."""

    def __init__(self, header):
        self.src, self.out = header + ["import tensorflow as tf", ""], []

    def case(self, label, expr, want):
        self.src.append("x = %s" % expr)
        self.src.append("print('%s', x.dtype.name, x.shape.as_list(), tf.reshape(x, [-1]).numpy().tolist())" % label)
        self.out.append("%s %s %s %s" % (label, want.dtype.name, list(want.shape), want.reshape(-1).tolist()))

    def write(self, name):
        for ext, lines in ((".tfs", self.src), (".out", self.out)):
            with open(os.path.join(PROGS, name + ext), "w") as f:
                f.write("\n".join(lines) + "\n")

def codec_program():
    os.makedirs(DATA, exist_ok=True)
    rgb = (np.arange(5 * 7 * 3).reshape(5, 7, 3) * 37 % 251).astype(np.uint8)
    rgba = np.concatenate([rgb, (np.arange(35).reshape(5, 7, 1) * 7).astype(np.uint8)], -1)
    Image.fromarray(rgb).save(os.path.join(DATA, "img_rgb.png"))
    Image.fromarray(rgba).save(os.path.join(DATA, "img_rgba.png"))
    Image.fromarray(rgb[:, :, 1]).save(os.path.join(DATA, "img_gray.png"))
    Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=16).save(os.path.join(DATA, "img_palette.png"))
    Image.fromarray(rgb).save(os.path.join(DATA, "img_rgb.jpg"), quality=90)
    Image.fromarray(rgb[:, :, 0]).save(os.path.join(DATA, "img_gray.jpg"), quality=80)
    good = open(os.path.join(DATA, "img_rgb.png"), "rb").read()
    open(os.path.join(DATA, "img_truncated.png"), "wb").write(good[:len(good) // 2])
    bad = bytearray(good)
    bad[40] ^= 0xFF   # inside the IDAT data: a bad CRC
    open(os.path.join(DATA, "img_badcrc.png"), "wb").write(bytes(bad))
    jpg = open(os.path.join(DATA, "img_rgb.jpg"), "rb").read()
    open(os.path.join(DATA, "img_truncated.jpg"), "wb").write(jpg[:20])
    open(os.path.join(DATA, "img_garbage.bin"), "wb").write(b"not an image at all")
    # a PNG whose header claims 100000 x 100000 pixels: refused before any pixel memory is taken
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    idat = struct.pack(">I", 0) + b"IDAT" + struct.pack(">I", zlib.crc32(b"IDAT"))
    open(os.path.join(DATA, "img_huge.png"), "wb").write(b"\x89PNG\r\n\x1a\n" + chunk + idat)

    # a JPEG cut inside its scan: TF refuses it unless try_recover_truncated (then the rest is filled in)
    noise = (np.random.RandomState(1).rand(64, 64, 3) * 255).astype(np.uint8)
    Image.fromarray(noise).save(os.path.join(DATA, "img_noise.jpg"), quality=90)
    whole = open(os.path.join(DATA, "img_noise.jpg"), "rb").read()
    open(os.path.join(DATA, "img_cut.jpg"), "wb").write(whole[:len(whole) * 4 // 5])
    os.remove(os.path.join(DATA, "img_noise.jpg"))
    # hostile variants: bytes flipped and files cut at fixed places; each must decode or raise
    # InvalidArgumentError, never crash (the expected line is the same either way)
    fuzz = fuzz_files([good, jpg] * 6, ["png", "jpg"], 31, 8)

    def pil(name, mode=None):
        im = Image.open(os.path.join(DATA, name))
        return np.asarray(im.convert(mode) if mode else im)
    pal = pil("img_palette.png", "RGB")
    jrgb = pil("img_rgb.jpg")
    jgray = pil("img_gray.jpg")
    prog = CodecProgram(["# image_codecs.tfs — tf.io PNG/JPEG decoding against PIL, PNG round trips, corrupt files",
                         "# generated by %s (expected values from PIL on the same files)" % GEN])
    src, out, case = prog.src, prog.out, prog.case
    case("png rgb", "tf.io.decode_png(%s)" % rd("img_rgb.png"), rgb)
    case("png rgba", "tf.io.decode_png(%s)" % rd("img_rgba.png"), rgba)
    case("png rgba as rgb", "tf.io.decode_png(%s, channels=3)" % rd("img_rgba.png"), rgba[:, :, :3])
    case("png rgb as rgba", "tf.image.decode_png(%s, channels=4)" % rd("img_rgb.png"),
         np.concatenate([rgb, np.full((5, 7, 1), 255, np.uint8)], -1))
    case("png gray", "tf.io.decode_png(%s)" % rd("img_gray.png"), rgb[:, :, 1:2])
    case("png gray as rgb", "tf.io.decode_image(%s, channels=3)" % rd("img_gray.png"), np.repeat(rgb[:, :, 1:2], 3, -1))
    case("png palette", "tf.io.decode_png(%s)" % rd("img_palette.png"), pal)
    case("jpeg rgb", "tf.io.decode_jpeg(%s, dct_method='INTEGER_ACCURATE')" % rd("img_rgb.jpg"), jrgb)
    case("jpeg gray", "tf.io.decode_jpeg(%s, dct_method='INTEGER_ACCURATE')" % rd("img_gray.jpg"), jgray[:, :, None])
    case("decode_image float", "tf.io.decode_image(%s, dtype=tf.float32)[0]" % rd("img_gray.png"),
         (rgb[0, :, 1:2].astype(np.float32) * np.float32(1 / 255)).astype(np.float32))
    # PNG round trips are exact; our JPEG decodes as PIL decodes the same bytes
    src += ["for name in ['img_rgb.png', 'img_rgba.png', 'img_gray.png']:",
            "    x = tf.io.decode_png(tf.io.read_file('data/' + name))",
            "    for level in [-1, 0, 9]:",
            "        y = tf.io.decode_png(tf.io.encode_png(x, compression=level))",
            "        print('round trip', name, level, bool(tf.reduce_all(x == y)))",
            "x = tf.io.decode_png(tf.io.read_file('data/img_rgb.png'))",
            "j = tf.io.decode_jpeg(tf.io.encode_jpeg(x, quality=100, chroma_downsampling=False), dct_method='INTEGER_ACCURATE')",
            "print('jpeg q100 max error', int(tf.reduce_max(tf.abs(tf.cast(j, tf.int32) - tf.cast(x, tf.int32)))) <= 12)",
            "j2 = tf.io.decode_jpeg(tf.io.encode_jpeg(x[:, :, :1], quality=50))",
            "print('jpeg gray', j2.shape.as_list())",
            "@tf.function",
            "def dec(s):",
            "    return tf.io.decode_image(s, channels=3)",
            "print('function', dec(tf.io.read_file('data/img_gray.png')).shape.as_list(), dec(tf.io.read_file('data/img_rgb.jpg')).shape.as_list())",
            "for name in ['img_truncated.png', 'img_badcrc.png', 'img_truncated.jpg', 'img_garbage.bin', 'img_huge.png']:",
            "    try:",
            "        tf.io.decode_image(tf.io.read_file('data/' + name))",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print(name, 'InvalidArgumentError:', str(e).split(' [Op')[0])",
            "for name in %r:" % fuzz,
            "    try:",
            "        r = tf.io.decode_image(tf.io.read_file('data/' + name))",
            "        print(name, 'decoded or refused')",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print(name, 'decoded or refused')",
            "cut = tf.io.read_file('data/img_cut.jpg')",
            "try:",
            "    tf.io.decode_jpeg(cut)",
            "except tf.errors.InvalidArgumentError as e:",
            "    print('cut jpeg InvalidArgumentError:', str(e).split(' [Op')[0])",
            "print('cut jpeg recovered', tf.io.decode_jpeg(cut, try_recover_truncated=True).shape.as_list())",
            "for bad in [lambda: tf.io.decode_png(tf.io.read_file('data/img_rgb.png'), channels=2),",
            "            lambda: tf.io.decode_jpeg(tf.io.read_file('data/img_rgb.jpg'), channels=4),",
            "            lambda: tf.io.encode_png(tf.zeros([2, 2, 3])), lambda: tf.io.encode_png(tf.zeros([2, 2], tf.uint8)),",
            "            lambda: tf.io.encode_jpeg(tf.zeros([2, 2, 2], tf.uint8))]:",
            "    try:", "        bad()",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print('InvalidArgumentError:', str(e).split(' [Op')[0])"]
    for name in ["img_rgb.png", "img_rgba.png", "img_gray.png"]:
        for lv in ["-1", "0", "9"]:
            out.append("round trip %s %s True" % (name, lv))
    out += ["jpeg q100 max error True", "jpeg gray [5, 7, 1]", "function [5, 7, 3] [5, 7, 3]",
            "img_truncated.png InvalidArgumentError: Invalid PNG data, size %d" % (len(good) // 2),
            "img_badcrc.png InvalidArgumentError: Invalid PNG data, size %d" % len(good),
            "img_truncated.jpg InvalidArgumentError: jpeg::Uncompress failed. Invalid JPEG data or crop window.",
            "img_garbage.bin InvalidArgumentError: Unknown image file format. One of JPEG, PNG, GIF, BMP required.",
            "img_huge.png InvalidArgumentError: PNG size too large for int: 100000 by 100000"] + [
            "%s decoded or refused" % f for f in fuzz] + [
            "cut jpeg InvalidArgumentError: jpeg::Uncompress failed. Invalid JPEG data or crop window.",
            "cut jpeg recovered [64, 64, 3]",
            "InvalidArgumentError: `channels` must be 0, 1, 3 or 4 but got 2",
            "InvalidArgumentError: JPEG does not support 4 channels",
            "InvalidArgumentError: Value for attr 'T' of float is not in the list of allowed values: uint8, uint16 ; NodeDef: {{node EncodePng}}",
            "InvalidArgumentError: image must be 3-dimensional[2,2]",
            "InvalidArgumentError: image must have 1 or 3 channels, got [2,2,2]"]
    prog.write("image_codecs")


def random_program():
    # random augmentation: tfs's draws are not TF's (Philox), so only what TF guarantees is checked: stateless calls
    # repeat for a seed, each image is flipped or not, crops are windows of the input, and flips happen half the time
    src = ["# image_random.tfs — tf.image random and stateless augmentation: determinism, shapes and statistics",
           "# generated by %s (the checks are TF's guarantees; the numbers drawn are tfs's own)" % GEN,
           "import tensorflow as tf", "",
           "x = tf.reshape(tf.range(400 * 2 * 3, dtype=tf.float32), [400, 2, 3, 1])",
           "a = tf.image.stateless_random_flip_left_right(x, [1, 2])",
           "b = tf.image.stateless_random_flip_left_right(x, [1, 2])",
           "print('stateless repeats', bool(tf.reduce_all(a == b)))",
           "flipped = tf.reduce_all(tf.equal(a, tf.image.flip_left_right(x)), axis=[1, 2, 3])",
           "kept = tf.reduce_all(tf.equal(a, x), axis=[1, 2, 3])",
           "print('each flipped or kept', bool(tf.reduce_all(tf.logical_or(flipped, kept))))",
           "frac = float(tf.reduce_mean(tf.cast(flipped, tf.float32)))",
           "print('flip fraction near 1/2', 0.4 < frac < 0.6)",
           "u = tf.image.random_flip_up_down(x, seed=5)",
           "up = tf.reduce_all(tf.equal(u, tf.image.flip_up_down(x)), axis=[1, 2, 3])",
           "print('up_down flipped or kept', bool(tf.reduce_all(tf.logical_or(up, tf.reduce_all(tf.equal(u, x), axis=[1, 2, 3])))))",
           "img = tf.reshape(tf.range(6 * 8, dtype=tf.float32), [6, 8, 1])",
           "c = tf.image.random_crop(img, [3, 4, 1], seed=7)",
           "r0 = int(c[0, 0, 0]) // 8",
           "c0 = int(c[0, 0, 0]) % 8",
           "print('crop is a window', c.shape.as_list(), bool(tf.reduce_all(c == img[r0:r0 + 3, c0:c0 + 4])))",
           "s1 = tf.image.stateless_random_crop(img, [2, 2, 1], [3, 4])",
           "s2 = tf.image.stateless_random_crop(img, [2, 2, 1], [3, 4])",
           "print('stateless crop repeats', bool(tf.reduce_all(s1 == s2)))",
           "br = tf.image.stateless_random_brightness(tf.zeros([2, 2, 1]), 0.2, [1, 1])",
           "print('brightness within delta', bool(tf.reduce_all(tf.abs(br) <= 0.2)))",
           "@tf.function",
           "def aug(t):",
           "    return tf.image.stateless_random_flip_left_right(t, [1, 2])",
           "print('function matches eager', bool(tf.reduce_all(aug(x) == a)))"]
    out = ["stateless repeats True", "each flipped or kept True", "flip fraction near 1/2 True", "up_down flipped or kept True",
           "crop is a window [3, 4, 1] True", "stateless crop repeats True", "brightness within delta True",
           "function matches eager True"]
    with open(os.path.join(PROGS, "image_random.tfs"), "w") as f:
        f.write("\n".join(src) + "\n")
    with open(os.path.join(PROGS, "image_random.out"), "w") as f:
        f.write("\n".join(out) + "\n")


# ---- GIF and BMP -----------------------------------------------------------------------------------

def gif_bmp_program():
    """GIF (animated, partial and transparent frames as Pillow writes them) and BMP files; the expected pixels
    are the arrays the files were made from (both formats are lossless), composited as a GIF viewer does."""
    pal = np.array([[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255],
                    [128, 64, 32]], np.uint8)
    flat = pal.reshape(-1).tolist() + [0] * (768 - pal.size)
    idx = [(np.arange(30).reshape(5, 6) + 2 * k) % 7 for k in range(3)]   # index 7 never drawn: the transparent one
    idx[2][1:3, 2:5] = 7   # frame 2 leaves these pixels to frame 1
    frames = []
    for a in idx:
        im = Image.fromarray(a.astype(np.uint8), "P")
        im.putpalette(flat)
        frames.append(im)
    frames[0].save(os.path.join(DATA, "img_anim.gif"), save_all=True, append_images=frames[1:], duration=50, loop=0,
                   disposal=1, transparency=7, optimize=False)
    want = [pal[idx[0]]]
    for a in idx[1:]:
        nxt = pal[a].copy()
        nxt[a == 7] = want[-1][a == 7]
        want.append(nxt)
    anim = np.stack(want)
    # without a transparent index Pillow writes each later frame as the rectangle that changed (tile (2,1)-(4,3)
    # and (0,3)-(2,5) here): the rest of the canvas comes from the frame before
    d0 = np.zeros((5, 6), np.uint8)
    d1 = d0.copy()
    d1[1:3, 2:4] = 2
    d2 = d1.copy()
    d2[3:5, 0:2] = 3
    delta = []
    for a in (d0, d1, d2):
        im = Image.fromarray(a, "P")
        im.putpalette(flat)
        delta.append(im)
    delta[0].save(os.path.join(DATA, "img_delta.gif"), save_all=True, append_images=delta[1:], disposal=1)
    frames[1].save(os.path.join(DATA, "img_one.gif"))
    one = pal[idx[1]]
    gif = open(os.path.join(DATA, "img_anim.gif"), "rb").read()
    open(os.path.join(DATA, "img_cut.gif"), "wb").write(gif[:len(gif) // 2])
    open(os.path.join(DATA, "img_garbage.gif"), "wb").write(b"GIF89a" + bytes(range(40)))
    rgb = (np.arange(5 * 7 * 3).reshape(5, 7, 3) * 29 % 253).astype(np.uint8)   # 7 * 3 bytes a row: padded to 24
    rgba = np.concatenate([rgb, (np.arange(35).reshape(5, 7, 1) * 5).astype(np.uint8)], -1)
    gray = rgb[:, :, 0]
    Image.fromarray(rgb).save(os.path.join(DATA, "img_rgb.bmp"))
    Image.fromarray(rgba).save(os.path.join(DATA, "img_rgba.bmp"))
    Image.fromarray(gray).save(os.path.join(DATA, "img_gray.bmp"))
    b = bytearray(open(os.path.join(DATA, "img_rgb.bmp"), "rb").read())
    off, row = struct.unpack_from("<i", b, 10)[0], 24
    rows = [b[off + i * row: off + (i + 1) * row] for i in range(5)]
    b[off:] = b"".join(reversed(rows))                      # rows top-down, announced by a negative height
    struct.pack_into("<i", b, 22, -5)
    open(os.path.join(DATA, "img_topdown.bmp"), "wb").write(bytes(b))
    open(os.path.join(DATA, "img_short.bmp"), "wb").write(bytes(b[:-7]))
    open(os.path.join(DATA, "img_tiny.bmp"), "wb").write(b"BM" + bytes(20))
    # hostile variants, as for PNG/JPEG above
    fuzz = fuzz_files([gif, open(os.path.join(DATA, "img_rgba.bmp"), "rb").read()] * 5, ["gif", "bmp"], 37, 6)
    prog = CodecProgram(["# image_gif_bmp.tfs — tf.io.decode_gif / decode_bmp / decode_image on GIF and BMP files, and "
                         "TF's refusals",
                         "# generated by %s (expected pixels: the arrays the files were written from)" % GEN])
    src, out, case = prog.src, prog.out, prog.case
    case("gif animation", "tf.io.decode_gif(%s)" % rd("img_anim.gif"), anim)
    case("gif partial frames", "tf.io.decode_gif(%s)" % rd("img_delta.gif"), np.stack([pal[d0], pal[d1], pal[d2]]))
    case("gif via decode_image", "tf.io.decode_image(%s)" % rd("img_anim.gif"), anim)
    case("gif first frame", "tf.io.decode_image(%s, expand_animations=False)" % rd("img_anim.gif"), anim[0])
    case("gif float", "tf.image.decode_image(%s, dtype=tf.float32, expand_animations=False)[0]" % rd("img_one.gif"),
         (one[0].astype(np.float32) * np.float32(1 / 255)).astype(np.float32))
    case("one-frame gif via decode_png", "tf.io.decode_png(%s)" % rd("img_one.gif"), one)
    case("png via decode_gif", "tf.io.decode_gif(%s)" % rd("img_rgb.png"),
         (np.arange(5 * 7 * 3).reshape(1, 5, 7, 3) * 37 % 251).astype(np.uint8))
    case("bmp rgb", "tf.io.decode_bmp(%s)" % rd("img_rgb.bmp"), rgb)
    case("bmp rgb as rgba", "tf.image.decode_bmp(%s, channels=4)" % rd("img_rgb.bmp"),
         np.concatenate([rgb, np.full((5, 7, 1), 255, np.uint8)], -1))
    case("bmp rgba", "tf.io.decode_bmp(%s)" % rd("img_rgba.bmp"), rgba)
    case("bmp rgba as rgb", "tf.io.decode_bmp(%s, channels=3)" % rd("img_rgba.bmp"), rgb)
    case("bmp gray", "tf.io.decode_image(%s)" % rd("img_gray.bmp"), gray[:, :, None])
    case("bmp gray as rgb", "tf.io.decode_image(%s, channels=3)" % rd("img_gray.bmp"), np.repeat(gray[:, :, None], 3, -1))
    case("bmp top-down", "tf.io.decode_bmp(%s)" % rd("img_topdown.bmp"), rgb)
    src += ["@tf.function",
            "def dec(s):",
            "    return tf.io.decode_image(s), tf.io.decode_image(s, channels=3, expand_animations=False)",
            "a, b = dec.get_concrete_function(tf.TensorSpec([], tf.string)).outputs",
            "print('traced ranks', a.shape.rank, b.shape.as_list())",
            "a, b = dec(%s)" % rd("img_anim.gif"),
            "print('function', a.shape.as_list(), b.shape.as_list())",
            "a, b = dec(%s)" % rd("img_rgb.bmp"),
            "print('function', a.shape.as_list(), b.shape.as_list())",
            "bad = [lambda: tf.io.decode_jpeg(%s)," % rd("img_anim.gif"),
            "       lambda: tf.io.decode_image(%s, channels=1)," % rd("img_anim.gif"),
            "       lambda: tf.io.decode_png(%s)," % rd("img_rgb.bmp"),
            "       lambda: tf.io.decode_bmp(%s)," % rd("img_rgb.png"),
            "       lambda: tf.io.decode_bmp(%s)," % rd("img_anim.gif"),
            "       lambda: tf.io.decode_bmp(%s, channels=1)," % rd("img_rgb.bmp"),
            "       lambda: tf.io.decode_bmp(%s)," % rd("img_short.bmp"),
            "       lambda: tf.io.decode_bmp(%s)]" % rd("img_tiny.bmp"),
            "for f in bad:",
            "    try:", "        f()",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print('InvalidArgumentError:', str(e).split(' [Op')[0])",
            "for name in ['img_cut.gif', 'img_garbage.gif']:",
            "    try:",
            "        tf.io.decode_gif(tf.io.read_file('data/' + name))",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print(name, 'InvalidArgumentError:', str(e).split(',')[0])",
            "for name in %r:" % fuzz,
            "    try:",
            "        tf.io.decode_image(tf.io.read_file('data/' + name))",
            "        print(name, 'decoded or refused')",
            "    except tf.errors.InvalidArgumentError as e:",
            "        print(name, 'decoded or refused')"]
    out += ["traced ranks None [None, None, 3]", "function [3, 5, 6, 3] [5, 6, 3]", "function [5, 7, 3] [5, 7, 3]",
            "InvalidArgumentError: Got 3 frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image",
            "InvalidArgumentError: channels must be 0 or 3 for GIF, got 1",
            "InvalidArgumentError: Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. "
            "Op used: DecodePng",
            "InvalidArgumentError: Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.",
            "InvalidArgumentError: Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` instead.",
            "InvalidArgumentError: `channels` must be 0, 3 or 4 for BMP, but got 1",
            "InvalidArgumentError: Input size should match (header_size + row_size * abs_height) but they differ by -7",
            "InvalidArgumentError: Incomplete bmp content, requires at least 32 bytes to find the header size, width, "
            "height, and bpp, got 22 bytes",
            "img_cut.gif InvalidArgumentError: Invalid GIF data (size %d)" % (len(gif) // 2),
            "img_garbage.gif InvalidArgumentError: Invalid GIF data (size 46)"] + ["%s decoded or refused" % f for f in fuzz]
    prog.write("image_gif_bmp")


if __name__ == "__main__":
    random_program()
    resize_cases()
    color_cases()
    codec_program()
    gif_bmp_program()
