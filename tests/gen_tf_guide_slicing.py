# gen_tf_guide_slicing.py — examples/tf_guides/tensor_slicing.out from numpy: each value computed with numpy, printed by TF 2.15's rules.
# TF's Tensor.__str__ is "tf.Tensor(%s, shape=%s, dtype=%s)" % (numpy_text(t), t.shape, t.dtype.name) and __repr__
# "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" with repr() of the array; numpy_text puts a newline before a text that
# has one (tensorflow/python/framework/tensor.py). SparseTensor.__str__ is
# "SparseTensor(indices=%s, values=%s, dense_shape=%s)" (sparse_tensor.py).
import numpy as np


def text(a, is_repr=False):
    t = repr(a) if is_repr else str(a)
    return "\n" + t if "\n" in t else t


def shape(a):
    return "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"


def name(a):
    return "string" if a.dtype.kind == "S" else str(a.dtype)


def tstr(a):
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (text(a), shape(a), name(a))


def trepr(a):
    return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (shape(a), name(a), text(a, True))


i32 = np.int32
t1 = np.arange(8, dtype=i32)
print(tstr(t1[1:1 + 3]))
print(tstr(t1[1:4]))
print(tstr(t1[-3:]))
t2 = np.arange(20, dtype=i32).reshape(4, 5)
print(tstr(t2[:-1, 1:3]))
t3 = np.arange(1, 32, 2, dtype=i32).reshape(2, 2, 4)
print(tstr(t3[1:2, 1:2, 0:2]))
print(tstr(t1[[0, 3, 6]]))
print(trepr(t1[::3]))
alphabet = np.array(list(b"abcdefghijklmnopqrstuvwxyz"), dtype=np.uint8).view("S1")
print(tstr(alphabet[[2, 0, 19, 18]]))
t4 = np.array([[0, 5], [1, 6], [2, 7], [3, 8], [4, 9]], dtype=i32)
print(tstr(t4[[2, 3, 0]]))
t5 = np.reshape(np.arange(18), [2, 3, 3])  # numpy's default int: int64
print(tstr(np.array([t5[0, 0, 0], t5[1, 2, 1]])))
print(tstr(np.array([[t5[0, 0], t5[0, 2]], [t5[1, 0], t5[1, 2]]])))
print(tstr(np.array([t5[0, 0], t5[0, 2], t5[1, 0], t5[1, 2]])))
t6 = np.zeros(10, dtype=i32)
t6[[1, 3, 5, 7, 9]] = [2, 4, 6, 8, 10]
print(tstr(t6))
new_indices = [(0, 2), (2, 1), (3, 3)]
t7 = np.array([t2[i] for i in new_indices], dtype=i32)
t8 = np.zeros((4, 5), dtype=i32)
for i, v in zip(new_indices, t7):
    t8[i] += v
print(tstr(t8))
print("SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
    tstr(np.array(new_indices, dtype=np.int64)), tstr(np.array([2, 11, 18], dtype=i32)),
    tstr(np.array([4, 5], dtype=np.int64))))
t10 = np.zeros((4, 5), dtype=i32)
for i, v in zip(new_indices, [2, 11, 18]):
    t10[i] = v
print(tstr(t10))
t11 = np.array([[2, 7, 0], [9, 0, 1], [0, 3, 8]], dtype=i32)


def scatter(t, idx, upd, op):
    t = t.copy()
    for i, u in zip(idx, upd):
        t[tuple(i)] = op(t[tuple(i)], u)
    return t


print(tstr(scatter(t11, [[0, 2], [1, 1], [2, 0]], [6, 5, 4], lambda a, b: a + b)))
print(tstr(scatter(t11, [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]], [1, 7, 9, -1, 1, 3, 7],
                   lambda a, b: a - b)))
t14 = np.array([[-2, -7, 0], [-9, 0, 1], [0, -3, -8]], dtype=i32)
print(tstr(scatter(t14, [[0, 2], [1, 1], [2, 0]], [-6, -5, -4], min)))
print(tstr(scatter(t14, [[0, 2], [1, 1], [2, 0]], [6, 5, 4], max)))
