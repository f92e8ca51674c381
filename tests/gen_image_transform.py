#!/usr/bin/python3
"""gen_image_transform.py — golden image_transform: tf.raw_ops.ImageProjectiveTransformV3 and Keras 2.15's
RandomRotation, RandomZoom, RandomTranslation.

    /usr/bin/python3 tests/gen_image_transform.py     # writes tests/programs/image_transform.tfs/.out

The expected values come from a numpy implementation of the op as TF documents it (tf.raw_ops
ImageProjectiveTransformV3; tensorflow/core/kernels/image/image_ops.h): output pixel (x, y) of image b samples the
input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k) with k = c0 x + c1 y + 1 (k == 0 gives fill_value), all in
float32; a coordinate outside the image is first mapped by the fill mode (reflect: mirrored about the edge, the edge
pixel repeated — d c b a | a b c d | d c b a; wrap: periodic; nearest: clamped; constant: left outside), then read
by nearest (round half away from zero) or bilinear interpolation, where a read outside the image (the index the
coordinate truncates to) is fill_value cast to the image dtype; the result is cast to the image dtype by truncation.
Keras' layers build their matrices as keras/src/layers/preprocessing/image_preprocessing.py does (rotation about the
centre, zoom about the centre, translation by a fraction of the size); a range of width 0 makes the draw exact, so
those outputs are checked exactly; random ranges are checked for shape and for identity at inference.
"""
import numpy as np

from gen_coreapi_expect import write, f32

GEN = "tests/gen_image_transform.py (expected values from a numpy model of ImageProjectiveTransformV3)"
F = np.float32


def map_coord(c, n, mode):
    c = c.astype(np.float32)
    ln = F(n)
    if mode == "CONSTANT":
        return c
    if mode == "NEAREST":
        return np.clip(c, F(0), ln - F(1))
    out = c.copy()
    lo, hi = c < 0, c > ln - F(1)
    if n <= 1:
        out[lo | hi] = 0
        return np.clip(out, F(0), ln - F(1))
    if mode == "REFLECT":
        sz2 = F(2) * ln
        v = c[lo]
        v = np.where(v < sz2, sz2 * np.trunc(-v / sz2) + v, v).astype(np.float32)
        out[lo] = np.where(v < -ln, v + sz2, -v - F(1))
        v = c[hi]
        v = (v - sz2 * np.trunc(v / sz2)).astype(np.float32)
        out[hi] = np.where(v >= ln, sz2 - v - F(1), v)
    else:   # WRAP
        sz = ln - F(1)
        v = c[lo]
        out[lo] = v + ln * (np.trunc(-v / sz) + F(1))
        v = c[hi]
        out[hi] = v - ln * np.trunc(v / sz)
    return np.clip(out, F(0), ln - F(1))


def projective(img, transforms, out_hw, fill, interp, mode):
    img = np.asarray(img)
    B, H, W, C = img.shape
    OH, OW = out_hw
    acc = np.float64 if img.dtype == np.float64 else np.float32
    fillv = acc(np.array(fill).astype(img.dtype))
    tr = np.asarray(transforms, np.float32)
    out = np.zeros((B, OH, OW, C), acc)

    def read(b, y, x):
        if -1 < y < H and -1 < x < W:
            return acc(img[b, int(y), int(x)].astype(acc))
        return np.full(C, fillv, acc)

    for b in range(B):
        t = tr[0] if tr.shape[0] == 1 else tr[b]
        for oy in range(OH):
            for ox in range(OW):
                fx, fy = F(ox), F(oy)
                k = t[6] * fx + t[7] * fy + F(1)
                if k == 0:
                    out[b, oy, ox] = fillv
                    continue
                ix = (t[0] * fx + t[1] * fy + t[2]) / k
                iy = (t[3] * fx + t[4] * fy + t[5]) / k
                x = map_coord(np.array([ix], np.float32), W, mode)[0]
                y = map_coord(np.array([iy], np.float32), H, mode)[0]
                if interp == "NEAREST":
                    rx = np.sign(float(x)) * np.floor(abs(float(x)) + 0.5)
                    ry = np.sign(float(y)) * np.floor(abs(float(y)) + 0.5)
                    out[b, oy, ox] = read(b, ry, rx)
                else:
                    y0, x0 = np.floor(y), np.floor(x)
                    y1, x1 = y0 + F(1), x0 + F(1)
                    top = acc(x1 - x) * read(b, y0, x0) + acc(x - x0) * read(b, y0, x1)
                    bot = acc(x1 - x) * read(b, y1, x0) + acc(x - x0) * read(b, y1, x1)
                    out[b, oy, ox] = acc(y1 - y) * top + acc(y - y0) * bot
    return out.astype(img.dtype) if img.dtype.kind != "f" else out.astype(img.dtype)


IMG = f32(np.sin(np.arange(2 * 5 * 6 * 2, dtype=np.float64) * 0.7) * 10 + 3).reshape(2, 5, 6, 2)
T_FAR = [1.3, 0.2, -7.5, -0.1, 0.9, 3.7, 0.0, 0.0]
T_PROJ = [[0.9, 0.1, 0.5, -0.2, 1.1, -0.3, 0.05, -0.04], [1.1, -0.3, 2.0, 0.4, 0.8, -1.0, -0.03, 0.02]]
T_ZERO = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.5, 0.0]   # the projection is 0 at x = 2


def rot(angle, h, w):
    a = F(angle)
    c, s = np.cos(a), np.sin(a)
    h, w = F(h), F(w)
    xo = ((w - F(1)) - (c * (w - F(1)) - s * (h - F(1)))) / F(2)
    yo = ((h - F(1)) - (s * (w - F(1)) + c * (h - F(1)))) / F(2)
    return [c, -s, xo, s, c, yo, F(0), F(0)]


def zoom(zw, zh, h, w):
    zw, zh = F(zw), F(zh)
    return [zw, F(0), (F(w) - F(1)) / F(2) * (F(1) - zw), F(0), zh, (F(h) - F(1)) / F(2) * (F(1) - zh), F(0), F(0)]


def op(t, hw, fill, interp, mode, image="img"):
    return ("tf.raw_ops.ImageProjectiveTransformV3(images=%s, transforms=tf.constant(%r, tf.float32), "
            "output_shape=%r, fill_value=%r, interpolation=%r, fill_mode=%r)"
            % (image, [[float(v) for v in r] for r in np.atleast_2d(np.asarray(t, np.float32))], list(hw), fill, interp,
               mode))


def cases():
    out = []
    for mode in ["REFLECT", "WRAP", "CONSTANT", "NEAREST"]:
        for interp in ["NEAREST", "BILINEAR"]:
            out.append(("%s %s far outside" % (mode.lower(), interp.lower()), op(T_FAR, (6, 7), -2.5, interp, mode),
                        projective(IMG, [T_FAR], (6, 7), -2.5, interp, mode)))
    out += [
        ("projective, a transform per image", op(T_PROJ, (5, 6), 0.0, "BILINEAR", "REFLECT"),
         projective(IMG, T_PROJ, (5, 6), 0.0, "BILINEAR", "REFLECT")),
        ("projection zero gives fill_value", op(T_ZERO, (3, 4), 9.0, "BILINEAR", "CONSTANT"),
         projective(IMG, [T_ZERO], (3, 4), 9.0, "BILINEAR", "CONSTANT")),
        ("rotation matrix, wrap", op(rot(0.3, 5, 6), (5, 6), 0.0, "BILINEAR", "WRAP"),
         projective(IMG, [rot(0.3, 5, 6)], (5, 6), 0.0, "BILINEAR", "WRAP")),
        ("uint8 nearest constant", op(T_PROJ, (4, 5), 7.0, "NEAREST", "CONSTANT", "tf.cast(tf.abs(img), tf.uint8)"),
         projective(np.abs(IMG).astype(np.uint8), T_PROJ, (4, 5), 7.0, "NEAREST", "CONSTANT")),
        ("int32 bilinear truncates", op(T_FAR, (4, 4), -1.0, "BILINEAR", "REFLECT", "tf.cast(img, tf.int32)"),
         projective(IMG.astype(np.int32), [T_FAR], (4, 4), -1.0, "BILINEAR", "REFLECT")),
        ("float64 bilinear", op(T_PROJ, (5, 6), 0.5, "BILINEAR", "NEAREST", "tf.cast(img, tf.float64)"),
         projective(IMG.astype(np.float64), T_PROJ, (5, 6), 0.5, "BILINEAR", "NEAREST")),
        ("one-pixel image reflect", op(T_FAR, (2, 3), 0.0, "BILINEAR", "REFLECT", "img[:, :1, :1, :]"),
         projective(IMG[:, :1, :1, :], [T_FAR], (2, 3), 0.0, "BILINEAR", "REFLECT")),
        ("RandomRotation fixed quarter turn", "L.RandomRotation((0.25, 0.25))(img)",
         projective(IMG, [rot(np.float32(0.25 * 2.0 * np.pi), 5, 6)], (5, 6), 0.0, "BILINEAR", "REFLECT")),
        ("RandomRotation nearest constant", "L.RandomRotation((-0.1, -0.1), fill_mode='constant', "
         "interpolation='nearest', fill_value=1.5)(img)",
         projective(IMG, [rot(np.float32(-0.1 * 2.0 * np.pi), 5, 6)], (5, 6), 1.5, "NEAREST", "CONSTANT")),
        ("RandomZoom fixed, width_factor", "L.RandomZoom((-0.5, -0.5), width_factor=(0.2, 0.2), fill_mode='wrap')(img)",
         projective(IMG, [zoom(1.2, 0.5, 5, 6)], (5, 6), 0.0, "BILINEAR", "WRAP")),
        ("RandomTranslation fixed, single image", "L.RandomTranslation((0.2, 0.2), (-0.5, -0.5), "
         "fill_mode='nearest')(img[1])",
         projective(IMG[1:], [[1, 0, 3.0, 0, 1, -1.0, 0, 0]], (5, 6), 0.0, "BILINEAR", "NEAREST")[0]),
        ("RandomRotation inference", "L.RandomRotation(0.3)(img, training=False)", IMG),
        ("RandomZoom uint8 inference gives float32", "L.RandomZoom(0.3)(tf.cast(img * 0.0 + 3.0, tf.uint8), "
         "training=False)", np.full(IMG.shape, 3.0, np.float32)),
    ]
    return out


CHECKS = '''
model = tf.keras.Sequential([L.RandomRotation(0.2, seed=1, input_shape=(5, 6, 2)), L.RandomZoom(0.2, seed=2),
                             L.RandomTranslation(0.1, (-0.2, 0.3), seed=3)])
print("predict is the identity:", bool(tf.reduce_all(tf.constant(model.predict(img, verbose=0)) == img)))
y = model(img, training=True)
print("training transforms:", y.shape, y.dtype.name, bool(tf.reduce_any(y != img)))
print([l.output_shape for l in model.layers])
for make in [lambda: L.RandomRotation(0.1, fill_mode="mirror"), lambda: L.RandomZoom(0.1, interpolation="bicubic"),
             lambda: L.RandomRotation((0.3, 0.1)), lambda: L.RandomZoom(1.5), lambda: L.RandomZoom(0.2, (0.1, 2.0)),
             lambda: L.RandomTranslation((0.3, 0.1), 0.1), lambda: L.RandomTranslation(0.1, 1.2)]:
    try:
        make()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)
for bad in [lambda: tf.raw_ops.ImageProjectiveTransformV3(images=img, transforms=tf.zeros([2, 7]), output_shape=[2, 2],
                                                          fill_value=0.0, interpolation="NEAREST"),
            lambda: tf.raw_ops.ImageProjectiveTransformV3(images=img, transforms=tf.zeros([1, 8]), output_shape=[2, 2],
                                                          fill_value=0.0, interpolation="CUBIC")]:
    try:
        bad()
    except tf.errors.InvalidArgumentError as e:
        print("InvalidArgumentError:", e.message)
'''

EXPECTED = [
    "predict is the identity: True",
    "training transforms: (2, 5, 6, 2) float32 True",
    "[(None, 5, 6, 2), (None, 5, 6, 2), (None, 5, 6, 2)]",
    "NotImplementedError: Unknown `fill_mode` mirror. Only `reflect`, `wrap`, `constant` and `nearest` are supported.",
    "NotImplementedError: Unknown `interpolation` bicubic. Only `nearest` and `bilinear` are supported.",
    "ValueError: `factor` argument cannot have a negative value. Received: factor=(0.3, 0.1)",
    "ValueError: `height_factor` argument must have values between [-1, 1]. Received: height_factor=1.5",
    "ValueError: `width_factor` argument must have values between [-1, 1]. Received: width_factor=(0.1, 2.0)",
    "ValueError: `height_factor` cannot have upper bound less than lower bound, got (0.3, 0.1)",
    "ValueError: `width_factor` argument must have values between [-1, 1]. Received: width_factor=1.2",
    "InvalidArgumentError: Input transform should be num_images x 8",
    "InvalidArgumentError: ImageProjectiveTransformV3: interpolation must be one of NEAREST, BILINEAR, got 'CUBIC'",
]


def grads():
    # TF's gradient: the incoming gradient through the inverse transform, fill 0 (transforms with exact inverses)
    wt = np.arange(120, dtype=np.float32).reshape(2, 5, 6, 2)
    out = []
    for label, t, inv, interp, mode in [("translate", [1, 0, 1, 0, 1, -1, 0, 0], [1, 0, -1, 0, 1, 1, 0, 0], "BILINEAR", "REFLECT"),
                                        ("zoom out", [2, 0, 0, 0, 2, 0, 0, 0], [0.5, 0, 0, 0, 0.5, 0, 0, 0], "NEAREST", "CONSTANT")]:
        out.append(("transform " + label, "lambda a: tf.reduce_sum(%s * wt)" % op(t, (5, 6), 0.0, interp, mode, "a"), "img",
                    projective(wt, [inv], (5, 6), 0.0, interp, mode)))
    return out


if __name__ == "__main__":
    inputs = ["L = tf.keras.layers",
              "img = tf.constant(%s, shape=[2, 5, 6, 2])" % [float(v) for v in IMG.reshape(-1)],
              "wt = tf.reshape(tf.range(120.0), [2, 5, 6, 2])"]
    write("image_transform", "tf.raw_ops.ImageProjectiveTransformV3 (every fill mode and interpolation, dtypes) and "
          "Keras' RandomRotation, RandomZoom, RandomTranslation", inputs, cases(), grads(),
          (CHECKS.split("\n"), EXPECTED), by=GEN)
