#!/usr/bin/python3
"""gen_keras_image_layers.py — golden keras_image_layers: Keras 2.15's image preprocessing and augmentation layers.

    /usr/bin/python3 tests/gen_keras_image_layers.py     # writes tests/programs/keras_image_layers.tfs/.out

Deterministic parts checked exactly: Resizing (bilinear/nearest against torch.nn.functional.interpolate, bicubic
against gen_image_expect's numpy kernel), crop_to_aspect_ratio and CenterCrop as Keras' smart_resize does it
(numpy crop of the centre at the target aspect ratio, then the resize), and the augmentation layers at inference
(the input itself, or RandomCrop's smart_resize).  Random layers: the guarantees TF gives, checked by the program
(every output image is a flip / a window of its input, contrast keeps each channel's mean and scales deviations by
one factor in range, brightness adds one delta in range and clips, tf.random.set_seed repeats a draw), plus Keras'
messages for bad arguments (Keras 2.15, keras/src/layers/preprocessing/image_preprocessing.py) and get_config.
"""
import numpy as np

from gen_coreapi_expect import write, f32
from gen_image_expect import IMG, torch_resize, separable, bicubic_weights

GEN = "tests/gen_keras_image_layers.py (expected values from numpy and PyTorch)"


def smart_resize(x, size, mode="bilinear"):
    # keras.preprocessing.image.smart_resize on a batch: centre crop at the target aspect ratio (float32, truncated)
    h, w = x.shape[1], x.shape[2]
    th, tw = size
    ch = min(h, int(np.float32(w * th) / np.float32(tw)))
    cw = min(w, int(np.float32(h * tw) / np.float32(th)))
    top = int(np.float32(h - ch) / 2)
    left = int(np.float32(w - cw) / 2)
    return torch_resize(np.ascontiguousarray(x[:, top:top + ch, left:left + cw, :]), size, mode)


def cases():
    x = IMG
    return [
        ("Resizing bilinear", "L.Resizing(6, 9)(img)", torch_resize(x, (6, 9), "bilinear")),
        ("Resizing nearest", "L.Resizing(7, 4, interpolation='nearest')(img)", torch_resize(x, (7, 4), "nearest-exact")),
        ("Resizing bicubic", "L.Resizing(6, 5, interpolation='bicubic')(img)",
         separable(x, bicubic_weights(4, 6), bicubic_weights(6, 5))),
        ("Resizing crop_to_aspect_ratio", "L.Resizing(3, 3, crop_to_aspect_ratio=True)(img)", smart_resize(x, (3, 3))),
        ("Resizing uint8 gives float32", "L.Resizing(3, 3)(tf.cast(img * 100.0, tf.uint8))",
         torch_resize((x * 100).astype(np.uint8).astype(np.float32), (3, 3), "bilinear")),
        ("Resizing single image", "L.Resizing(2, 9, interpolation='nearest')(img[0])",
         torch_resize(x[:1], (2, 9), "nearest-exact")[0]),
        ("CenterCrop", "L.CenterCrop(2, 3)(img)", x[:, 1:3, 1:4, :]),
        ("CenterCrop single image", "L.CenterCrop(2, 2)(img[1])", x[1, 1:3, 2:4, :]),
        ("CenterCrop larger than the image", "L.CenterCrop(5, 4)(img)", smart_resize(x, (5, 4))),
        ("CenterCrop uint8", "L.CenterCrop(1, 1)(tf.cast(img * 100.0, tf.uint8))",
         (x * 100).astype(np.uint8).astype(np.float32)[:, 1:2, 2:3, :]),
        ("RandomCrop inference", "L.RandomCrop(2, 3, seed=1)(img, training=False)", smart_resize(x, (2, 3))),
        ("RandomCrop inference, other aspect", "L.RandomCrop(3, 2)(img, training=False)", smart_resize(x, (3, 2))),
        ("RandomFlip inference", "L.RandomFlip(seed=1)(img, training=False)", x),
        ("RandomContrast inference", "L.RandomContrast(0.5)(img, training=False)", x),
        ("RandomBrightness inference", "L.RandomBrightness(0.3)(img, training=False)", x),
    ]


# the random layers' guarantees, checked in the program; each line prints True when the guarantee holds
CHECKS = '''
def flips(x, mode):
    outs = [x]
    if mode != "vertical":
        outs.append(x[:, ::-1, :])
    if mode != "horizontal":
        outs = outs + [o[::-1, :, :] for o in outs]
    return outs


def same(a, b):
    return a.shape == b.shape and bool(tf.reduce_all(tf.abs(a - b) < 1e-6))


for mode in ["horizontal", "vertical", "horizontal_and_vertical"]:
    layer = L.RandomFlip(mode, seed=5)
    seen = set()
    ok = True
    for _ in range(12):
        y = layer(img)
        ok = ok and y.shape == img.shape
        for i in range(2):
            k = [j for j, f in enumerate(flips(img[i], mode)) if same(y[i], f)]
            ok = ok and len(k) == 1
            if k:
                seen.add(k[0])
    print("RandomFlip", mode, "gives flips of each image:", ok, "| every flip drawn:", len(seen) == len(flips(img[0], mode)))

crop = L.RandomCrop(2, 3, seed=2)
ok = True
for _ in range(6):
    y = crop(img)
    ok = ok and y.shape == [2, 2, 3, 3]
    for i in range(2):
        ok = ok and any(same(y[i], img[i, t:t + 2, l:l + 3, :]) for t in range(3) for l in range(4))
print("RandomCrop gives a window of each image:", ok)
print("RandomCrop of a smaller image resizes:", crop(img[:, :1, :, :]).shape == [2, 2, 3, 3])

big = img * 100.0 + 50.0
ok = True
for _ in range(4):
    y = L.RandomContrast((0.5, 0.25), seed=3)(big)
    m_in = tf.reduce_mean(big, axis=[1, 2], keepdims=True)
    m_out = tf.reduce_mean(y, axis=[1, 2], keepdims=True)
    f = (y - m_out) / (big - m_in)
    fmin = tf.reduce_min(f, axis=[1, 2, 3])
    fmax = tf.reduce_max(f, axis=[1, 2, 3])
    ok = ok and bool(tf.reduce_all(tf.abs(m_in - m_out) < 1e-3)) and bool(tf.reduce_all(fmax - fmin < 1e-3))
    ok = ok and bool(tf.reduce_all(fmin >= 0.5 - 1e-4)) and bool(tf.reduce_all(fmax <= 1.25 + 1e-4))
print("RandomContrast keeps channel means and scales by one factor in [1 - lower, 1 + upper]:", ok)
y = L.RandomContrast(1.0, seed=4)(big * 2.0)
print("RandomContrast clips to [0, 255]:", bool(tf.reduce_min(y) >= 0.0) and bool(tf.reduce_max(y) <= 255.0))

ok = True
for _ in range(4):
    d = L.RandomBrightness(0.2, seed=6)(big) - big
    dmin = tf.reduce_min(d, axis=[1, 2, 3])
    dmax = tf.reduce_max(d, axis=[1, 2, 3])
    ok = ok and bool(tf.reduce_all(dmax - dmin < 1e-3)) and bool(tf.reduce_all(tf.abs(dmin) <= 51.0 + 1e-3))
print("RandomBrightness adds one delta per image in [-0.2, 0.2] * 255:", ok)
y = L.RandomBrightness((0.9, 1.0), value_range=(0, 1))(img)
print("RandomBrightness clips to value_range:", bool(tf.reduce_min(y) >= 0.95 - 1e-6) and bool(tf.reduce_max(y) <= 1.0))

tf.random.set_seed(11)
a = [L.RandomFlip(seed=7)(img), L.RandomCrop(2, 2, seed=7)(img), L.RandomBrightness(0.5, seed=7)(img)]
tf.random.set_seed(11)
b = [L.RandomFlip(seed=7)(img), L.RandomCrop(2, 2, seed=7)(img), L.RandomBrightness(0.5, seed=7)(img)]
print("tf.random.set_seed repeats the draws:", all(same(a[i], b[i]) for i in range(3)))

model = tf.keras.Sequential([L.Resizing(8, 6, input_shape=(4, 6, 3)), L.RandomFlip(), L.RandomContrast(0.3),
                             L.RandomBrightness(0.1), L.CenterCrop(4, 6)])
print("a model's predict leaves the augmentation out:", same(tf.constant(model.predict(img, verbose=0)), L.CenterCrop(4, 6)(L.Resizing(8, 6)(img))))
print("in training (fit's training=True) it augments:", model(img, training=True).shape == [2, 4, 6, 3])
print([layer.output_shape for layer in model.layers])

for make in [lambda: L.Resizing(2, 2, interpolation="cubic"), lambda: L.RandomFlip("diagonal", name="flip"),
             lambda: L.RandomContrast(1.5), lambda: L.RandomContrast((-0.1, 0.2)), lambda: L.RandomBrightness(2.0),
             lambda: L.RandomBrightness((0.1, 0.2, 0.3)), lambda: L.RandomBrightness("x"),
             lambda: L.RandomBrightness(0.1, value_range=5)]:
    try:
        make()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)

for layer in [L.Resizing(4, 5, interpolation="nearest", name="rs"), L.CenterCrop(2, 3, name="cc"),
              L.RandomFlip("horizontal", seed=1, name="rf"), L.RandomCrop(2, 2, name="rc"),
              L.RandomContrast((0.1, 0.3), seed=2, name="rcon"), L.RandomBrightness(0.2, name="rb")]:
    cfg = layer.get_config()
    print(cfg)
    print(type(layer).from_config(cfg).get_config() == cfg)
'''

FLIP_NAMES = ["horizontal", "vertical", "horizontal_and_vertical"]
SHAPES = "[(None, 8, 6, 3), (None, 8, 6, 3), (None, 8, 6, 3), (None, 8, 6, 3), (None, 4, 6, 3)]"

METHODS = "dict_keys(['bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', 'lanczos5', 'gaussian', 'mitchellcubic'])"
FACTOR = "The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
ERRORS = [
    "NotImplementedError: Value not recognized for interpolation: cubic. Supported values are: " + METHODS,
    "ValueError: RandomFlip layer flip received an unknown mode argument diagonal",
    "ValueError: `factor` argument cannot have negative values or values greater than 1. Received: factor=1.5",
    "ValueError: `factor` argument cannot have negative values or values greater than 1. Received: factor=(-0.1, 0.2)",
    "ValueError: " + FACTOR + "Received: input_number=2.0",
    "ValueError: " + FACTOR + "Received: factor=(0.1, 0.2, 0.3)",
    "ValueError: " + FACTOR + "Received: factor=x",
    "ValueError: The `value_range` argument should be a list of two numbers. Received: value_range=5",
]

CONFIGS = [
    "{'name': 'rs', 'trainable': True, 'dtype': 'float32', 'height': 4, 'width': 5, 'interpolation': 'nearest', 'crop_to_aspect_ratio': False}",
    "{'name': 'cc', 'trainable': True, 'dtype': 'float32', 'height': 2, 'width': 3}",
    "{'name': 'rf', 'trainable': True, 'dtype': 'float32', 'mode': 'horizontal', 'seed': 1}",
    "{'name': 'rc', 'trainable': True, 'dtype': 'float32', 'height': 2, 'width': 2, 'seed': None}",
    "{'name': 'rcon', 'trainable': True, 'dtype': 'float32', 'factor': (0.1, 0.3), 'seed': 2}",
    "{'name': 'rb', 'trainable': True, 'dtype': 'float32', 'factor': [-0.2, 0.2], 'value_range': [0, 255], 'seed': None}",
]


def expected_checks():
    out = ["RandomFlip %s gives flips of each image: True | every flip drawn: True" % m for m in FLIP_NAMES]
    out += ["RandomCrop gives a window of each image: True", "RandomCrop of a smaller image resizes: True",
            "RandomContrast keeps channel means and scales by one factor in [1 - lower, 1 + upper]: True",
            "RandomContrast clips to [0, 255]: True",
            "RandomBrightness adds one delta per image in [-0.2, 0.2] * 255: True",
            "RandomBrightness clips to value_range: True", "tf.random.set_seed repeats the draws: True",
            "a model's predict leaves the augmentation out: True", "in training (fit's training=True) it augments: True"]
    out += [SHAPES] + ERRORS
    for c in CONFIGS:
        out += [c, "True"]
    return out


if __name__ == "__main__":
    inputs = ["L = tf.keras.layers",
              "img = tf.constant(%s, shape=[2, 4, 6, 3])" % [float(v) for v in f32(IMG).reshape(-1)]]
    write("keras_image_layers", "Keras 2.15 image preprocessing and augmentation layers: exact outputs, random "
          "layers' guarantees, messages, get_config", inputs, cases(), [], (CHECKS.split("\n"), expected_checks()), by=GEN)
