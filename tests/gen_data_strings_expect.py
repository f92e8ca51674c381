#!/usr/bin/python3
# gen_data_strings_expect.py — writes tests/programs/data_padded_strings.out with numpy (np.pad of bytes arrays) as TF 2.15's padded_batch and PadV2 on strings give it.
"""Reference for tests/programs/data_padded_strings.tfs:

    /usr/bin/python3 tests/gen_data_strings_expect.py

TF 2.15's padded_batch_op.py: each component is padded to the batch's longest (or to padded_shapes) with its
padding value, b"" for strings by default (_padding_values_or_default); a padding value is converted, not
cast, and must be a scalar of the component's dtype (_padding_value_to_tensor); a component whose spec is not
a TensorSpec is refused (check_types).  PadV2's string kernel pads as numpy's np.pad does on object arrays.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "data_padded_strings.out")


def padded_batch(rows, n, shape=None, value=b"", drop=False):
    out = []
    for i in range(0, len(rows), n):
        part = rows[i:i + n]
        if drop and len(part) < n:
            break
        width = shape if shape is not None else max(len(r) for r in part)
        out.append(np.array([np.pad(np.array(r, dtype=object), (0, width - len(r)), constant_values=value)
                             for r in part], dtype=object))
    return out


def tl(a):
    return repr(a.tolist())


def main():
    L = []
    p = L.append
    words = [s.encode().split() for s in ["a b c", "d", "e f", "g h i j", "k"]]
    p("spec TensorSpec(shape=(None, None), dtype=tf.string, name=None)")
    for b in padded_batch(words, 2):
        p("(%d, %d) %s" % (b.shape + (tl(b),)))
    for b in padded_batch(words, 3, 5, b"<pad>", True):
        p("(%d, %d) %s" % (b.shape + (tl(b),)))
    lens = [[len(w) for w in r] for r in words]
    for w, n in list(zip(padded_batch(words, 2, value=b"?"), padded_batch(lens, 2, value=-1)))[:2]:
        p("%s %s" % (tl(w), tl(n)))
    p("fn " + tl(padded_batch(words, 4, value=b"-")[0]))
    p("TypeError: Invalid `padding_values`. `padding_values` values type <dtype: 'int32'> does not match type "
      "<dtype: 'string'> of the corresponding input component.")
    p("ValueError: Invalid `padding_values`. `padding_values` values should be scalars, but got (2,).")
    p("TypeError: `padded_batch` is only supported for datasets that produce tensor elements but type spec of "
      "elements in the input dataset is not a subclass of TensorSpec: "
      "`RaggedTensorSpec(TensorShape([2, None]), tf.string, 1, tf.int64)`.")
    s = np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object)
    p(tl(np.pad(s, [[1, 0], [0, 2]], constant_values=b"")))
    p(tl(np.pad(s, [[0, 1], [1, 1]], constant_values=b"z")))
    p(tl(np.pad(s, [[1, 1], [0, 1]], mode="symmetric")))
    p(tl(np.pad(s, [[0, 1], [2, 0]], constant_values=b"#")))
    with open(OUT, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
