#!/usr/bin/env python3
"""gen_keras_backend.py — expected output of tests/programs/keras_backend_functions.tfs, with numpy.

Each tf.keras.backend function as Keras 2.15's keras/backend.py and backend_config.py define it, computed with numpy in
float32 (sqrt clips negatives to 0; clip raises a max below the min to the min; hard_sigmoid is clip(0.2 x + 0.5);
binary_crossentropy clips to [eps, 1 - eps] and adds eps in the logs; zeros/ones/eye of a known shape are variables;
get_uid counts from 1). usage: gen_keras_backend.py > tests/programs/keras_backend_functions.out
"""
import numpy as np

F = np.float32
x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], F)


def r(a):
    return np.round(np.array(a, dtype="float64"), 5).tolist()


def p(*a):
    print(*a)


def softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sig(a):
    return F(1) / (F(1) + np.exp(-a))


p("float32", 1e-07, "channels_last", "tensorflow")
p(1e-05, "channels_first")
p("ValueError: Unknown `floatx` value: int8")
p("ValueError: Unknown `data_format`: nhwc")
p((2, 3), (4, 2), 2, "float32", 6)
p((None, 3, 5), True, False)
p("ValueError: Unexpectedly found an instance of type `<class 'int'>`. Expected a symbolic tensor instance.")
p(True, "float32", r(np.zeros((2, 3))), True, r(np.eye(2)))
p(r(np.zeros_like(x)), r(np.ones((2, 3))), r([1.0, 2.0]))
p(r(x.sum()), r(x.sum(0)), r(x.mean(1, keepdims=True)), r(x.max(1)), r(x.min()), r(x.prod(0)))
p(r(x.var()), r(x.std(1)), r((x > 4).any()), r((x > -7).all(0)), r(x.argmax(-1)), r(x.argmin(0)))
p(r(np.abs(x)), r(np.square(x)), r(np.sqrt(np.maximum(x, 0))), r(np.exp(x / F(10))), r(np.log(np.abs(x))))
p(r(np.clip(x, -1, 2)), r(np.clip(x, 2, 2)), r(x ** 2), r(np.sign(x)), r(np.round(x / F(4))))
p(r(np.maximum(x, 0)), r(np.minimum(x, 0)), r(x == 3), r(x > 0), r(x <= -4))
p(r(np.maximum(x, 0)), r(np.where(x > 0, x, F(0.5) * (np.exp(x) - 1))), r(sig(x)), r(np.clip(F(0.2) * x + F(0.5), 0, 1)),
  r(np.log1p(np.exp(x))), r(x / (1 + np.abs(x))))
p(r(np.tanh(x)), r(softmax(x)), r(x / np.sqrt((x * x).sum(1, keepdims=True))))
p(r(x @ x.T), r(x.reshape(3, 2)), r(x.T))
p(r(np.concatenate([x, x], -1)), r(np.concatenate([x, x], 0)), r(np.stack([x[0], x[1]], 1)))
p(r(x[..., None]), r(x), r(x.reshape(-1)), r(x.reshape(2, 3)))
p(r(np.repeat(x, 2, axis=1)), r(np.tile(x[:, None, :], (1, 2, 1))), r(np.tile(x, (1, 2))), r(x[:, ::-1]))
p(r(np.eye(3)[[0, 2]]), r(x[[1]]), r(np.arange(5)), r(np.arange(1, 7, 2)), r(np.cumsum(x, 1)))
p(r(x), r(np.where(x > 0, x, 0)))
t, o = np.array([[1.0, 0.0]], F), np.array([[0.8, 0.3]], F)
eps = F(1e-7)
oc = np.clip(o, eps, 1 - eps)
p(r(-(t * np.log(oc + eps) + (1 - t) * np.log(1 - oc + eps))))
p(r([-np.log(F(0.8))]))
p(r([-np.log(F(0.8))]))
p(r([1.5, 3.0]), [1.5, 3.0], [[1.5, 3.0]])
p(r([3.5, 4.0]), r([1.0, 2.0]), "int32")
p(1, 2, 1)
p(1, 0, r(x), r(-x))
p(r(np.pad(np.ones((1, 2, 1)), [(0, 0), (1, 1), (0, 0)])), (1, 4, 4, 3))
p("float64", "float64", "float64", "float64", "float64")
p("float32")
p(r(x + np.array([1.0, 0.0, -1.0], F)), r(np.ones((1, 2, 2), F) + np.array([1.0, 2.0], F)[None, :, None]))
t2, o2 = np.array([[1.0, 0.0]], F), np.array([[0.8, 0.3]], F)
o2c = np.clip(o2, eps, 1 - eps)
bce2 = -(t2 * np.log(o2c + eps) + (1 - t2) * np.log(1 - o2c + eps))
pt = t2 * o2 + (1 - t2) * (1 - o2)
lg = np.array([[0.5, -1.0]], F)
sg = sig(lg)
bcel = np.maximum(lg, 0) - lg * t2 + np.log1p(np.exp(-np.abs(lg)))
ptl = t2 * sg + (1 - t2) * (1 - sg)
p(r((1 - pt) ** 2 * bce2), r((t2 * F(0.25) + (1 - t2) * F(0.75)) * (1 - ptl) ** 2 * bcel))
p((1, 4, 4, 4, 3), r(x))
mu, va, be, ga = [np.array(v, F) for v in ([1.0, 0.0, 1.0], [4.0, 1.0, 0.25], [0.0, 1.0, 0.0], [1.0, 1.0, 2.0])]
p(r((x - mu) / np.sqrt(va + F(0.001)) * ga + be))
