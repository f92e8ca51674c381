#!/usr/bin/python3
# gen_keras_utils_expect.py — writes the expected output of the Keras-utils goldens (keras_timeseries, keras_image_utils) from numpy.
"""Independent reference for tf.keras.utils' timeseries and image helpers.

    /usr/bin/python3 tests/gen_keras_utils_expect.py

Windows follow Keras 2.15's timeseries_dataset_from_array algorithm (start
positions np.arange(0, num_seqs, stride) over data[start_index:end_index],
window i = start + k * sampling_rate, target = targets[start_index:][start]),
computed here with numpy; messages are Keras 2.15's texts.  Images follow
Keras's array_to_img / img_to_array (min-max scaling to 0..255, uint8
truncation) and PIL's L conversion, computed with numpy.
"""
import os

import numpy as np

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")


def windows(data, targets, sequence_length, sequence_stride=1, sampling_rate=1, batch_size=128,
            start_index=None, end_index=None):
    start = start_index or 0
    end = end_index if end_index is not None else len(data)
    num = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num = min(num, len(targets))
    starts = np.arange(0, num, sequence_stride)
    steps = data[start:end]
    xs = [steps[s + np.arange(sequence_length) * sampling_rate] for s in starts]
    ys = [targets[start:end][s] for s in starts] if targets is not None else None
    out = []
    step = batch_size if batch_size is not None else 1
    for b in range(0, len(xs), step):
        if batch_size is None:
            x = xs[b].tolist()
            out.append((x, None if ys is None else ys[b].item()))
        else:
            x = np.stack(xs[b:b + step]).tolist()
            out.append((x, None if ys is None else np.array(ys[b:b + step]).tolist()))
    return out


def timeseries():
    lines = []
    data = np.arange(20)
    targets = np.arange(20) * 10
    cases = [
        dict(sequence_length=5, batch_size=4),
        dict(sequence_length=4, sequence_stride=3, sampling_rate=2, batch_size=3),
        dict(sequence_length=3, start_index=4, end_index=15, batch_size=2),
        dict(sequence_length=6, sampling_rate=3, batch_size=None),
    ]
    for kw in cases:
        lines.append("case " + str(sorted(kw.items())))
        for x, y in windows(data, targets, **kw):
            lines.append(f"{x} {y}")
    feats = np.arange(24, dtype="float32").reshape((12, 2))
    # Keras's window length comes from tf.range over tensors: unknown in the element spec
    lines.append("TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None)")
    for x, _ in windows(feats, None, 3, sequence_stride=4, batch_size=2):
        lines.append(str(x))
    for x, y in windows(data, targets[:4], 2, batch_size=8):
        lines.append(f"{x} {y}")
    lines.append("True")
    n = 20
    msgs = [
        "`start_index` must be 0 or greater. Received: start_index=-1",
        f"`start_index` must be lower than the length of the data. Received: start_index=20, for data of length {n}",
        "`end_index` must be higher than `start_index`. Received: start_index=5, and end_index=5 ",
        f"`end_index` must be lower than the length of the data. Received: end_index=20, for data of length {n}",
        "`end_index` must be higher than 0. Received: end_index=-3",
        "`sampling_rate` must be higher than 0. Received: sampling_rate=0",
        f"`sampling_rate` must be lower than the length of the data. Received: sampling_rate=20, for data of length {n}",
        "`sequence_stride` must be higher than 0. Received: sequence_stride=0",
        f"`sequence_stride` must be lower than the length of the data. Received: sequence_stride=25, for data of length {n}",
    ]
    lines += ["ValueError: " + m for m in msgs]
    return lines


def to_img(x):
    # Keras's array_to_img(scale=True): shift to 0, divide by the max, times 255, uint8 truncation
    x = x - np.min(x)
    if np.max(x) != 0:
        x = x / np.max(x)
    return (x * 255).astype("uint8")


def image_utils():
    x = (np.arange(24, dtype="float32").reshape((2, 4, 3)) - 5.0) * 0.5
    px = to_img(x)
    f = px.astype("float32")
    lines = ["RGB (4, 2)", str(f.tolist())]
    g = (np.arange(6, dtype="float32").reshape((2, 3, 1)) * 40.0).astype("uint8").astype("float32")
    lines.append("L (3, 2) (2, 3, 1)")
    lines.append(str(g.transpose(2, 0, 1).tolist()))
    lines.append("RGB (4, 2) True")
    # PIL's RGB -> L: ITU-R 601-2 luma in 16-bit fixed point, rounded
    q = px.astype("int64")
    luma = (q[:, :, 0] * 19595 + q[:, :, 1] * 38470 + q[:, :, 2] * 7471 + 0x8000) >> 16
    lines.append("L " + str(luma.astype("float32").tolist()))
    lines.append("RGBA " + str(f[0, 0].tolist() + [255.0]))
    lines.append("(2, 1) (1, 2, 3)")
    lines.append("True")
    lines.append("(2, 3)")
    lines += ["ValueError: Expected image array to have rank 3 (single image). Got array with shape: (2, 2)",
              "ValueError: Unsupported channel number: 2",
              "ValueError: Invalid data_format: channels_middle",
              "ValueError: Unsupported image shape: (2,)",
              'ValueError: color_mode must be "grayscale", "rgb", or "rgba"']
    return lines


def write(name, lines):
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write("keras_timeseries", timeseries())
    write("keras_image_utils", image_utils())
