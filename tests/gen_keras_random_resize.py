#!/usr/bin/python3
"""gen_keras_random_resize.py — golden keras_random_resize: Keras 2.15's RandomHeight and RandomWidth.

    /usr/bin/python3 tests/gen_keras_random_resize.py     # writes tests/programs/keras_random_resize.tfs/.out

A factor range of one value makes the draw deterministic: the axis scaled by 1 + factor (truncated toward zero, as
Keras's int32 cast) and the image resized to it, checked against PyTorch's interpolate (bilinear, nearest-exact);
at inference the layers return their input. Random factors: the guarantees (the axis lies in
[trunc((1 + lower) * n), trunc((1 + upper) * n)], the other axes stay, the output is the image resized to its own
size). Keras's messages for bad factors and interpolations, get_config and compute_output_shape
(keras/src/layers/preprocessing/image_preprocessing.py).
"""
from gen_coreapi_expect import write, f32
from gen_image_expect import IMG, torch_resize

GEN = "tests/gen_keras_random_resize.py (expected values from PyTorch)"


def cases():
    x = IMG
    return [
        ("RandomHeight 1.5", "L.RandomHeight((0.5, 0.5))(img)", torch_resize(x, (6, 6), "bilinear")),
        ("RandomHeight 0.5 nearest", "L.RandomHeight((-0.5, -0.5), interpolation='nearest')(img)",
         torch_resize(x, (2, 6), "nearest-exact")),
        ("RandomWidth 1.5", "L.RandomWidth((0.5, 0.5))(img)", torch_resize(x, (4, 9), "bilinear")),
        ("RandomWidth 0.5 single image", "L.RandomWidth((-0.5, -0.5))(img[0])", torch_resize(x[:1], (4, 3), "bilinear")[0]),
        ("RandomHeight inference", "L.RandomHeight(0.4, seed=3)(img, training=False)", x),
        ("RandomWidth inference", "L.RandomWidth(0.4)(img, training=False)", x),
    ]


CHECKS = '''
def same(a, b):
    return a.shape == b.shape and bool(tf.reduce_all(tf.abs(a - b) < 1e-5))


ok = True
for _ in range(8):
    y = L.RandomHeight((-0.25, 0.5), seed=2)(img)
    ok = ok and 3 <= y.shape[1] <= 6 and y.shape[0] == 2 and y.shape[2:] == [6, 3]
    ok = ok and same(y, tf.image.resize(img, [y.shape[1], 6]))
    z = L.RandomWidth(0.5)(img)
    ok = ok and 3 <= z.shape[2] <= 9 and z.shape[:2] == [2, 4] and same(z, tf.image.resize(img, [4, z.shape[2]]))
print("random factors scale one axis within the range and resize to it:", ok)

model = tf.keras.Sequential([L.RandomHeight(0.3, input_shape=(4, 6, 3)), L.RandomWidth(0.3)])
print([layer.output_shape for layer in model.layers], same(tf.constant(model.predict(img, verbose=0)), img))
print(L.RandomHeight(0.2).compute_output_shape((None, 4, 6, 3)), L.RandomWidth(0.2).compute_output_shape((4, 6, 3)))

for make in [lambda: L.RandomHeight((0.3, 0.1)), lambda: L.RandomWidth(-0.2), lambda: L.RandomHeight((-1.5, 0.5)),
             lambda: L.RandomWidth((-2.0, 0.5)), lambda: L.RandomHeight(0.1, interpolation="cubic")]:
    try:
        make()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)

for layer in [L.RandomHeight(0.5, seed=1, name="rh"), L.RandomWidth((0.1, 0.2), interpolation="nearest", name="rw")]:
    cfg = layer.get_config()
    print(cfg)
    print(type(layer).from_config(cfg).get_config() == cfg)
'''

METHODS = "dict_keys(['bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', 'lanczos5', 'gaussian', 'mitchellcubic'])"
EXPECTED = [
    "random factors scale one axis within the range and resize to it: True",
    "[(None, None, 6, 3), (None, None, None, 3)] True",
    "(None, None, 6, 3) (4, None, 3)",
    "ValueError: `factor` argument cannot have an upper bound lesser than the lower bound. Received: factor=(0.3, 0.1)",
    "ValueError: `factor` argument cannot have an upper bound less than the lower bound. Received: factor=-0.2",
    "ValueError: `factor` argument must have values larger than -1. Received: factor=(-1.5, 0.5)",
    "ValueError: `factor` argument must have values larger than -1. Received: factor=(-2.0, 0.5)",
    "NotImplementedError: Value not recognized for interpolation: cubic. Supported values are: " + METHODS,
    "{'name': 'rh', 'trainable': True, 'dtype': 'float32', 'factor': 0.5, 'interpolation': 'bilinear', 'seed': 1}",
    "True",
    "{'name': 'rw', 'trainable': True, 'dtype': 'float32', 'factor': (0.1, 0.2), 'interpolation': 'nearest', 'seed': None}",
    "True",
]

if __name__ == "__main__":
    inputs = ["L = tf.keras.layers",
              "img = tf.constant(%s, shape=[2, 4, 6, 3])" % [float(v) for v in f32(IMG).reshape(-1)]]
    write("keras_random_resize", "Keras 2.15 RandomHeight and RandomWidth: exact outputs of one-value factor ranges, "
          "random factors' guarantees, messages, get_config", inputs, cases(), [], (CHECKS.split("\n"), EXPECTED), by=GEN)
