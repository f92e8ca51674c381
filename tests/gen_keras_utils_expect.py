#!/usr/bin/python3
# gen_keras_utils_expect.py — writes the expected output of the Keras-utils goldens (keras_timeseries, keras_image_utils, keras_image_dataset) from numpy.
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


def index(directory, labels, formats, class_names=None, shuffle=True, seed=None):
    # Keras 2.15's dataset_utils.index_directory: sorted class subdirectories (also with a list of labels; labels=None
    # indexes the directory itself as the one class ""), each walked in sorted order; the message always counts classes
    if labels is None:
        subdirs = [""]
        classes = subdirs
    else:
        subdirs = [s for s in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, s))]
        classes = list(class_names) if class_names else subdirs
    idx = {c: i for i, c in enumerate(classes)}
    names, found = [], []
    for sub in subdirs:
        top = os.path.join(directory, sub)
        base = os.path.basename(top)
        for root, _, files in sorted(os.walk(top), key=lambda x: x[0]):
            for f in sorted(files):
                if f.lower().endswith(formats):
                    names.append(os.path.join(base, os.path.relpath(os.path.join(root, f), top)))
                    found.append(idx[base])
    labels = list(labels) if labels not in ("inferred", None) else found
    out = [f"Found {len(names)} files belonging to {len(classes)} classes."]
    if shuffle:
        np.random.RandomState(seed).shuffle(names)
        np.random.RandomState(seed).shuffle(labels)
    return out, names, labels, classes


def image_dataset():
    import tempfile
    import shutil
    root = tempfile.mkdtemp()
    d = os.path.join(root, "imgs")
    files = {"dog": ["b.png", "a.png", "c.PNG"], "cat": ["z.png", "y.jpg.png"], "bird": ["m.png", "notes.txt"]}
    level, levels = 10, {}
    for cls in ["dog", "cat", "bird"]:
        os.makedirs(os.path.join(d, cls))
        for name in files[cls]:
            open(os.path.join(d, cls, name), "w").close()
            if not name.endswith(".txt"):
                levels[cls + "/" + name] = level
                level += 10
    os.makedirs(os.path.join(d, "cat", "sub"))
    open(os.path.join(d, "cat", "sub", "w.png"), "w").close()
    levels["cat/sub/w.png"] = 200
    fmts = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
    lines = []

    def batches(seq, n):
        return [seq[i:i + n] for i in range(0, len(seq), n)]

    msg, names, labels, classes = index(d, "inferred", fmts, shuffle=False)
    lines += msg
    lines.append(f"{classes} {names}")
    lines.append("(TensorSpec(shape=(None, 2, 3, 3), dtype=tf.float32, name=None), "
                 "TensorSpec(shape=(None,), dtype=tf.int32, name=None))")
    for b in range(0, len(names), 4):
        nb = names[b:b + 4]
        lines.append(f"({len(nb)}, 2, 3, 3) {[float(levels[n]) for n in nb]} {labels[b:b + 4]}")
    lines += msg
    # nearest keeps the images' uint8 (TF's resize); categorical labels are float32 one-hot rows
    lines.append("(TensorSpec(shape=(4, 6, 1), dtype=tf.uint8, name=None), "
                 "TensorSpec(shape=(3,), dtype=tf.float32, name=None))")
    for n, lab in list(zip(names, labels))[:2]:
        lines.append(f"(4, 6, 1) {float(levels[n])} {np.eye(3)[lab].tolist()}")
    msg2, _, _, _ = index(d, None, fmts, shuffle=False)
    lines += msg2
    lines.append("TensorSpec(shape=(None, 4, 4, 3), dtype=tf.float32, name=None) ['']")
    msg, names, labels, classes = index(d, "inferred", fmts, seed=7)
    nval = int(0.34 * len(names))
    lines += msg
    lines.append(f"Using {len(names) - nval} files for training.")
    lines.append(str(names[:-nval]))
    lines.append(str(sorted((levels[n], l) for n, l in zip(names[:-nval], labels[:-nval]))))
    msg, names, labels, classes = index(d, "inferred", fmts, class_names=["dog", "cat", "bird"], seed=7)
    lines += msg
    lines.append(f"Using {len(names) - nval} files for training.")
    lines.append(f"Using {nval} files for validation.")
    lines.append(f"{names[:-nval]} {names[-nval:]} {classes}")
    lines.append(str(labels[-nval:]))
    two = os.path.join(root, "two")
    shutil.copytree(os.path.join(d, "cat"), os.path.join(two, "cat"))
    shutil.copytree(os.path.join(d, "dog"), os.path.join(two, "dog"))
    msg, names, labels, classes = index(two, "inferred", fmts, shuffle=False)
    lines += msg
    lines.append(str([[float(l)] for l in labels]))
    t = os.path.join(root, "texts")
    docs = {"pos": ["good film", "great"], "neg": ["bad", "awful plot", "boring"]}
    for cls in docs:
        os.makedirs(os.path.join(t, cls))
        for k, doc in enumerate(docs[cls]):
            with open(os.path.join(t, cls, "t" + str(k) + ".txt"), "w") as f:
                f.write(doc)
    msg, names, labels, classes = index(t, "inferred", (".txt",), shuffle=False)
    lines += msg
    lines.append(f"{classes} (TensorSpec(shape=(None,), dtype=tf.string, name=None), "
                 "TensorSpec(shape=(None,), dtype=tf.int32, name=None))")
    texts = [open(os.path.join(t, n)).read()[:4].encode() for n in names]
    for xb, yb in zip(batches(texts, 2), batches(labels, 2)):
        lines.append(f"{xb} {yb}")
    msg, names, labels, classes = index(t, [1, 0, 1, 0, 1], (".txt",), shuffle=False)
    lines += msg
    lines.append(f"{classes} {labels}")
    lines += [
        'ValueError: `label_mode` argument must be one of "int", "categorical", "binary", or None. Received: label_mode=sparse',
        'ValueError: `color_mode` must be one of {"rgb", "rgba", "grayscale"}. Received: color_mode=cmyk',
        "ValueError: `labels` argument should be a list/tuple of integer labels, of the same size as the number of "
        "image files in the target directory. If you wish to infer the labels from the subdirectory names in the "
        'target directory, pass `labels="inferred"`. If you wish to get a dataset that only contains images (no '
        "labels), pass `labels=None`. Received: labels=folders",
        "ValueError: If `subset` is set, `validation_split` must be set, and inversely.",
        "ValueError: `validation_split` must be between 0 and 1, received: 1.5",
        'ValueError: `subset` must be either "training", "validation" or "both", received: test',
        "ValueError: If using `validation_split` and shuffling the data, you must provide a `seed` argument, to make "
        "sure that there is no overlap between the training and validation subset.",
        "Found 7 files belonging to 3 classes.",
        "ValueError: When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. "
        "Received: class_names=['bird', 'cat', 'dog']",
        "ValueError: The `class_names` passed did not match the names of the subdirectories of the target directory. "
        "Expected: ['bird', 'cat', 'dog'], but received: ['cat', 'dog']",
        "ValueError: Expected the lengths of `labels` to match the number of files in the target directory. "
        "len(labels) is 2 while we found 7 files in directory ROOT/imgs.",
        "NotImplementedError: Value not recognized for `interpolation`: cubic. Supported values are: "
        "dict_keys(['bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', 'lanczos5', 'gaussian', 'mitchellcubic'])",
        "Found 0 files belonging to 0 classes.",
        "ValueError: No text files found in directory ROOT/imgs/dog. Allowed format: .txt",
    ]
    # crop_to_aspect_ratio (Keras's smart_resize): the centred box of the target's aspect ratio, then TF's
    # nearest resize (half-pixel centres: source index floor((i + 0.5) * in / out))
    img = (np.arange(24) * 10).reshape((4, 6))
    h, w = img.shape
    ch, cw = min(h, int(w * 2 / 2)), min(w, int(h * 2 / 2))
    top, left = int((h - ch) / 2), int((w - cw) / 2)
    box = img[top:top + ch, left:left + cw]
    rows = [int(np.floor((i + 0.5) * ch / 2)) for i in range(2)]
    cols = [int(np.floor((j + 0.5) * cw / 2)) for j in range(2)]
    lines.append("Found 1 files belonging to 1 classes.")
    lines.append(str(box[np.ix_(rows, cols)].tolist()))
    shutil.rmtree(root)
    return lines


def write(name, lines):
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write("keras_timeseries", timeseries())
    write("keras_image_utils", image_utils())
    write("keras_image_dataset", image_dataset())
