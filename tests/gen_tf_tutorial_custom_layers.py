#!/usr/bin/python3
"""gen_tf_tutorial_custom_layers.py — writes examples/tf_tutorials/custom_layers.out.re from TF 2.15's printing rules.

Run from the source root.  The fixed lines are TF's reprs (EagerTensor: "<tf.Tensor: shape=..., dtype=...,
numpy=" then numpy's repr, after a newline when that repr has one; ResourceVariable: "<tf.Variable 'NAME:0'
shape=... dtype=..., numpy=...>"), numpy 1.24's repr of the arrays, Python's repr of a list / tuple, and the two
Model.summary() tables laid out here by the column rule of Keras 2.13-2.15's print_summary (a column's text is cut
one short of the next column's start, two spaces between columns; line_length 65, positions .45/.85/1.0).  The
kernel's random values are matched by their printed form, object addresses by any hex number."""
import re

import numpy as np

E = re.escape


def table_rows(fields, positions):
    """One summary row as Keras 2.15 wraps it: each column's text in chunks of its width, lines padded to positions."""
    left = [str(f) for f in fields]
    out = []
    while any(left):
        line = ""
        for col, text in enumerate(left):
            start = positions[col - 1] if col else 0
            last = col == len(positions) - 1
            width = positions[col] - start - (0 if last else 3)
            chunk = text[:width]
            if col == 0:
                line += " "
            line += chunk + ("" if last else "  ")
            left[col] = text[width:]
            line += " " * (positions[col] - len(line))
        out.append(line)
    return out


def summary(name, rows, trainable, non_trainable):
    pos = [int(65 * p) for p in (0.45, 0.85, 1.0)]
    lines = ['Model: "%s"' % name, "_" * 65] + table_rows(["Layer (type)", "Output Shape", "Param #"], pos) + ["=" * 65]
    for r in rows:
        lines += table_rows(r, pos) + [" " * 65]
    mem = lambda n: "%.2f Byte" % (4 * n)   # float32 weights, under 1 KB
    lines += ["=" * 65, "Total params: %d (%s)" % (trainable + non_trainable, mem(trainable + non_trainable)),
              "Trainable params: %d (%s)" % (trainable, mem(trainable)),
              "Non-trainable params: %d (%s)" % (non_trainable, mem(non_trainable)), "_" * 65]
    return [E(l) for l in lines]


def main():
    lines = [E("False")]
    zeros = repr(np.zeros((10, 10), np.float32)).split("\n")
    lines += [E("<tf.Tensor: shape=(10, 10), dtype=float32, numpy=")] + [E(l) for l in zeros[:-1]] + [E(zeros[-1] + ">")]

    # the (5, 10) glorot-uniform kernel: numpy prints each row of 10 values as two lines of 5
    EL = r" *-?\d\.\d* *"
    five = EL + "(, " + EL + "){4}"
    kernel_lines = []
    for i in range(5):
        kernel_lines.append((r"array\(\[\[" if i == 0 else r"       \[") + five + ",")
        kernel_lines.append("        " + five + (r"\]\]," if i == 4 else r"\],"))
    bias = repr(np.zeros(10, np.float32))
    kvar = E("<tf.Variable 'dense_1/kernel:0' shape=(5, 10) dtype=float32, numpy=")
    tail = E("      dtype=float32)>, <tf.Variable 'dense_1/bias:0' shape=(10,) dtype=float32, numpy=" + bias + ">")
    lines += [E("[") + kvar] + kernel_lines + [tail + E("]")]
    lines += [E("(") + kvar] + kernel_lines + [tail + E(")")]
    lines.append(E("['my_dense_layer/kernel:0']"))
    conv = r"<keras\.src\.layers\.convolutional\.conv2d\.Conv2D object at 0x[0-9a-f]+>"
    bn = r"<keras\.src\.layers\.normalization\.batch_normalization\.BatchNormalization object at 0x[0-9a-f]+>"
    lines.append(r"\[" + ", ".join([conv, bn] * 3) + r"\]")
    lines.append(E("18"))
    # conv 1x1 3->1: 4, bn on 1 channel: 4 (2 trainable); conv 1x1 1->2: 4, bn 8; conv 1x1 2->3: 9, bn 12
    block = [["conv2d (Conv2D)", "multiple", 4], ["batch_normalization (BatchNormalization)", "multiple", 4],
             ["conv2d_1 (Conv2D)", "multiple", 4], ["batch_normalization_1 (BatchNormalization)", "multiple", 8],
             ["conv2d_2 (Conv2D)", "multiple", 9], ["batch_normalization_2 (BatchNormalization)", "multiple", 12]]
    lines += summary("", block, 29, 12)
    out = repr(np.zeros((1, 2, 3, 3), np.float32)).split("\n")
    lines += [E("<tf.Tensor: shape=(1, 2, 3, 3), dtype=float32, numpy=")] + [E(l) for l in out[:-1]] + [E(out[-1] + ">")]
    seq = [["conv2d_3 (Conv2D)", "(None, None, None, 1)", 4], ["batch_normalization_3 (BatchNormalization)", "(None, None, None, 1)", 4],
           ["conv2d_4 (Conv2D)", "(None, None, None, 2)", 4], ["batch_normalization_4 (BatchNormalization)", "(None, None, None, 2)", 8],
           ["conv2d_5 (Conv2D)", "(None, None, None, 3)", 9], ["batch_normalization_5 (BatchNormalization)", "(None, None, None, 3)", 12]]
    lines += summary("sequential", seq, 29, 12)
    with open("examples/tf_tutorials/custom_layers.out.re", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
