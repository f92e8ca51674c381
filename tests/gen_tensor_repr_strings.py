#!/usr/bin/python3
"""gen_tensor_repr_strings.py — writes tests/programs/tensor_repr_strings.out: TF's repr of string tensors, from numpy.

TF's EagerTensor repr is "<tf.Tensor: shape=S, dtype=string, numpy=" + repr(t.numpy()) + ">", with a newline before
the numpy text when it spans lines; t.numpy() of a string tensor is an object array of bytes.

    /usr/bin/python3 tests/gen_tensor_repr_strings.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def tensor_repr(a):
    text = repr(a)
    shape = "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    sep = "\n" if "\n" in text else ""
    return "<tf.Tensor: shape=%s, dtype=string, numpy=%s%s>" % (shape, sep, text)


def obj(x):
    """tf.constant of nested lists of str/bytes: an object array of bytes (TF encodes str as UTF-8)."""
    enc = lambda v: [enc(e) for e in v] if isinstance(v, list) else (v.encode() if isinstance(v, str) else v)
    return np.array(enc(x), dtype=object)


lines = [
    tensor_repr(obj([[b"apple"], [b"kiwi"]])),
    tensor_repr(obj([["a", "bbbb"], ["cc", "d"]])),
    repr(obj([["a", "bbbb"], ["cc", "d"]])),
    tensor_repr(obj(["x", "yyy", ""])),
    tensor_repr(obj([[[b"p", b"qq"]], [[b"rrr", b""]]])),
]
with open(os.path.join(HERE, "programs", "tensor_repr_strings.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
