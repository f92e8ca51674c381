#!/usr/bin/python3
# gen_norm_complex_expect.py — writes tests/programs/norm_complex.out from numpy: tf.norm of complex tensors.
"""Independent reference for tests/programs/norm_complex.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_norm_complex_expect.py

TF's linalg_ops.norm: 'euclidean' / 'fro' (and a vector ord 2) is sqrt(sum(x * conj(x))), a complex result with a
zero imaginary part; every other order takes abs(x) first and gives a real result.
"""
import os
import numpy as np

from gen_sparse_expect import T

HERE = os.path.dirname(os.path.abspath(__file__))


def C(a):
    """a complex tensor as TF prints it"""
    a = np.asarray(a)
    if a.ndim == 0:
        return "tf.Tensor(%s, shape=(), dtype=%s)" % (str(a[()]), a.dtype)
    text = str(a)
    shape = "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % ("\n" + text if "\n" in text else text, shape, a.dtype)


def sq(z, axis=None, keepdims=False):
    s = (z * np.conj(z)).real.sum(axis=axis, keepdims=keepdims)
    return (np.sqrt(s) + 0j).astype(z.dtype)


def main():
    z = np.array([[3 + 4j, 1 - 1j], [2j, -2 + 0j]], np.complex64)
    a = np.abs(z)
    f32 = np.float32
    L = [C(sq(z)),
         T(a.sum()),
         T(a.sum(1)),
         T(np.power(np.power(a, f32(3)).sum(0), f32(1) / f32(3))),
         T(a.max()),
         C(sq(z)),
         T(a.sum(0).max()),
         T(a.sum(1, keepdims=True).max(0, keepdims=True)),
         C(sq(z.astype(np.complex128), axis=-1))]
    L += [C(sq(z)), T(a.sum(0).max()), T(np.power(np.power(a, f32(2.5)).sum(1), f32(1) / f32(2.5)))]
    L.append(str(['op: "ComplexAbs"', 'op: "Conj"', 'op: "Const"', 'op: "Identity"', 'op: "Max"', 'op: "Mul"',
                  'op: "Placeholder"', 'op: "Pow"', 'op: "Sqrt"', 'op: "Squeeze"', 'op: "Sum"']))
    with open(os.path.join(HERE, "programs", "norm_complex.out"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
