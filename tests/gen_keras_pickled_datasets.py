#!/usr/bin/python3
# gen_keras_pickled_datasets.py — writes small cifar10/cifar100/imdb/reuters files in Keras's formats (tests/programs/data/kpickled) and keras_datasets_pickled.out from Keras 2.15's loaders modelled in numpy.
"""Fixtures and reference output for tests/programs/keras_datasets_pickled.tfs (Keras is not installed here).

    /usr/bin/python3 tests/gen_keras_pickled_datasets.py

The files are small stand-ins for what Keras keeps in ~/.keras/datasets, in the same formats:
  cifar-10-batches-py/data_batch_1..5, test_batch   Python 2 pickles (protocol 2, str written as
      SHORT_BINSTRING/BINSTRING as cPickle did) of {b'batch_label', b'labels', b'data', b'filenames'},
      data a uint8 ndarray (n, 3072) pickled by numpy (_reconstruct + __setstate__), labels a list;
      2 images per training batch, 3 test images (the real files hold 10,000 each)
  cifar-100-python/train, test                     the same with b'fine_labels' and b'coarse_labels'
  imdb.npz                                         np.savez of object arrays of lists (pickled by numpy,
      protocol 3) x_train/x_test and int64 y_train/y_test; imdb_word_index.json
  reuters.npz                                      x (an object array pickled Python 2 style) and y;
      reuters_word_index.json
  notdata.pkl                                      a pickle naming a global tfs refuses (datetime.date)
The program copies them into a temporary KERAS_HOME. The expected output applies Keras 2.15's loaders as
written in tf_keras/datasets/{cifar,cifar10,cifar100,imdb,reuters}.py (load_batch's pickle.load with
encoding='bytes', reshape to (n, 3, 32, 32) and transpose to channels-last; imdb/reuters's
np.random.RandomState(seed) shuffles, start_char/index_from, _remove_long_seq's len(x) < maxlen,
num_words/skip_top/oov_char), re-implemented here with numpy.
"""
import io
import json
import os
import pickle
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FX = os.path.join(HERE, "programs", "data", "kpickled")


class Py2Pickler(pickle._Pickler):
    """Protocol 2 as Python 2's cPickle wrote it: str (here bytes) as SHORT_BINSTRING/BINSTRING, and numpy's
    dtype arguments as such str and ints."""
    dispatch = pickle._Pickler.dispatch.copy()

    def save_py2str(self, obj):
        n = len(obj)
        if n < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([n]) + obj)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", n) + obj)
        self.memoize(obj)

    dispatch[bytes] = save_py2str

    def reducer_override(self, obj):
        if isinstance(obj, np.dtype):
            st = obj.__reduce__()[2]
            return (np.dtype, (obj.str[1:].encode(), 0, 1), (st[0], st[1].encode()) + tuple(st[2:]))
        return NotImplemented


def py2_dumps(obj):
    f = io.BytesIO()
    Py2Pickler(f, protocol=2).dump(obj)
    return f.getvalue()


def images(n, salt):
    return ((np.arange(n * 3072, dtype=np.int64) * (7 + salt) + salt * 31) % 256).astype(np.uint8).reshape(n, 3072)


CIFAR10 = [(images(2, i), [(3 * i + k) % 10 for k in range(2)]) for i in range(1, 6)]
CIFAR10_TEST = (images(3, 9), [9, 0, 4])
CIFAR100 = {"train": (images(4, 11), [5, 99, 42, 0], [1, 19, 7, 0]), "test": (images(3, 12), [17, 3, 88], [2, 3, 18])}

IMDB_TRAIN = [[1, 14, 22, 16, 43], [5, 2], [9, 8, 7, 6, 5, 4, 3], [30, 1, 1], [12], [4, 4, 4, 4], [25, 26, 27, 28, 29, 31]]
IMDB_YTRAIN = [1, 0, 0, 1, 1, 0, 1]
IMDB_TEST = [[3, 2, 1], [7, 7], [40, 41, 42, 43, 44], [6], [11, 12, 13, 14]]
IMDB_YTEST = [0, 1, 1, 0, 0]
REUTERS_X = [[(i * 7 + k * 3) % 23 + 1 for k in range(2 + i % 5)] for i in range(12)]
REUTERS_Y = [(i * 5) % 46 for i in range(12)]
WORDS = {"the": 1, "and": 2, "a": 3, "of": 4, "fine": 10}


def object_array(lists):
    a = np.empty(len(lists), dtype=object)
    for i, l in enumerate(lists):
        a[i] = list(l)
    return a


def npy(a):
    f = io.BytesIO()
    np.save(f, a, allow_pickle=True)
    return f.getvalue()


def write_npz(name, members):
    # np.savez's layout (stored NAME.npy members) with a fixed timestamp, so the files regenerate byte for byte
    with zipfile.ZipFile(os.path.join(FX, name), "w", zipfile.ZIP_STORED) as z:
        for k, data in members.items():
            z.writestr(zipfile.ZipInfo(k + ".npy", date_time=(1980, 1, 1, 0, 0, 0)), data)


def write_fixtures():
    os.makedirs(os.path.join(FX, "cifar-10-batches-py"), exist_ok=True)
    os.makedirs(os.path.join(FX, "cifar-100-python"), exist_ok=True)
    for i, (x, y) in enumerate(CIFAR10, 1):
        d = {b"batch_label": b"training batch %d of 5" % i, b"labels": y, b"data": x,
             b"filenames": [b"img_%d_%d.png" % (i, k) for k in range(len(y))]}
        with open(os.path.join(FX, "cifar-10-batches-py", "data_batch_%d" % i), "wb") as f:
            f.write(py2_dumps(d))
    x, y = CIFAR10_TEST
    with open(os.path.join(FX, "cifar-10-batches-py", "test_batch"), "wb") as f:
        f.write(py2_dumps({b"batch_label": b"testing batch 1 of 1", b"labels": y, b"data": x,
                           b"filenames": [b"t%d.png" % k for k in range(len(y))]}))
    for name, (x, fine, coarse) in CIFAR100.items():
        with open(os.path.join(FX, "cifar-100-python", name), "wb") as f:
            f.write(py2_dumps({b"filenames": [b"f%d.png" % k for k in range(len(fine))], b"batch_label": name.encode(),
                               b"fine_labels": fine, b"coarse_labels": coarse, b"data": x}))
    # imdb.npz as np.savez writes it (object members pickled by numpy, protocol 3)
    write_npz("imdb.npz", {"x_train": npy(object_array(IMDB_TRAIN)), "y_train": npy(np.array(IMDB_YTRAIN, np.int64)),
                           "x_test": npy(object_array(IMDB_TEST)), "y_test": npy(np.array(IMDB_YTEST, np.int64))})
    # reuters.npz: x's .npy holds a Python 2 style pickle (protocol 2), y an int64 array
    xb = io.BytesIO()
    np.lib.format.write_array_header_1_0(xb, {"descr": "|O", "fortran_order": False, "shape": (len(REUTERS_X),)})
    xb.write(py2_dumps(object_array(REUTERS_X)))
    write_npz("reuters.npz", {"x": xb.getvalue(), "y": npy(np.array(REUTERS_Y, np.int64))})
    for name in ["imdb_word_index.json", "reuters_word_index.json"]:
        with open(os.path.join(FX, name), "w") as f:
            json.dump(WORDS, f)
    import datetime
    with open(os.path.join(FX, "notdata.pkl"), "wb") as f:
        pickle.dump({"when": datetime.date(2020, 1, 2)}, f, protocol=2)


# ---- Keras 2.15's loaders over the files just written ----

def load_batch(path, label_key="labels"):
    with open(path, "rb") as f:
        d = pickle.load(f, encoding="bytes")
    d = {k.decode("utf8"): v for k, v in d.items()}
    data = d["data"]
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def cifar10():
    # Keras fills a (50000, 3, 32, 32) array 10,000 rows per batch; these batches are smaller, so they are
    # concatenated in order, which is what Keras's slices give for full-size files
    base = os.path.join(FX, "cifar-10-batches-py")
    xs, ys = zip(*[load_batch(os.path.join(base, "data_batch_%d" % i)) for i in range(1, 6)])
    x_train = np.concatenate(xs).astype("uint8")
    y_train = np.concatenate([np.array(y, dtype="uint8") for y in ys])
    x_test, y_test = load_batch(os.path.join(base, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    x_train = x_train.transpose(0, 2, 3, 1)
    x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


def cifar100(label_mode="fine"):
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. ' f"Received: label_mode={label_mode}.")
    base = os.path.join(FX, "cifar-100-python")
    x_train, y_train = load_batch(os.path.join(base, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(base, "test"), label_key=label_mode + "_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    return (x_train.transpose(0, 2, 3, 1), y_train), (x_test.transpose(0, 2, 3, 1), y_test)


def remove_long_seq(maxlen, seq, label):
    new_seq, new_label = [], []
    for x, y in zip(seq, label):
        if len(x) < maxlen:
            new_seq.append(x)
            new_label.append(y)
    return new_seq, new_label


def imdb(num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2, index_from=3):
    with np.load(os.path.join(FX, "imdb.npz"), allow_pickle=True) as f:
        x_train, labels_train = f["x_train"], f["y_train"]
        x_test, labels_test = f["x_test"], f["y_test"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]
    if start_char is not None:
        x_train = [[start_char] + [w + index_from for w in x] for x in x_train]
        x_test = [[start_char] + [w + index_from for w in x] for x in x_test]
    elif index_from:
        x_train = [[w + index_from for w in x] for x in x_train]
        x_test = [[w + index_from for w in x] for x in x_test]
    if maxlen:
        x_train, labels_train = remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError("After filtering for sequences shorter than maxlen=" f"{str(maxlen)}, no sequence was kept. Increase maxlen.")
    xs = x_train + x_test
    labels = np.concatenate([labels_train, labels_test])
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if (skip_top <= w < num_words) else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    idx = len(x_train)
    return (np.array(xs[:idx], dtype="object"), labels[:idx]), (np.array(xs[idx:], dtype="object"), labels[idx:])


def reuters(num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3):
    with np.load(os.path.join(FX, "reuters.npz"), allow_pickle=True) as f:
        xs, labels = f["x"], f["y"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(xs))
    rng.shuffle(indices)
    xs, labels = xs[indices], labels[indices]
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]
    if maxlen:
        xs, labels = remove_long_seq(maxlen, xs, labels)
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    idx = int(len(xs) * (1 - test_split))
    return (np.array(xs[:idx], dtype="object"), np.array(labels[:idx])), (np.array(xs[idx:], dtype="object"), np.array(labels[idx:]))


def seqs(x):
    return [list(s) for s in x]


def main():
    write_fixtures()
    out = []
    (a, b), (c, d) = cifar10()
    out.append("cifar10 %s %s %s %s %s %s" % (a.shape, a.dtype, b.shape, b.dtype, c.shape, d.dtype))
    out.append("%s %s %d %d" % (b[:, 0].tolist(), d[:, 0].tolist(), int(a.sum()), int(c.sum())))
    out.append("%s %s" % (a[1, 0, :4, 2].tolist(), c[2, 31, 28:].tolist()))
    for mode in ["fine", "coarse"]:
        (a, b), (c, d) = cifar100(mode)
        out.append("cifar100 %s %s %s %s %s %s" % (mode, a.shape, b.shape, b.dtype, c.shape, d.dtype))
        out.append("%s %s %d %s" % (b[:, 0].tolist(), d[:, 0].tolist(), int(a.sum()), c[0, 5, 7].tolist()))
    try:
        cifar100("medium")
    except ValueError as e:
        out.append("ValueError: %s" % e)
    for kw in [{}, {"num_words": 20, "skip_top": 2}, {"maxlen": 6, "seed": 7}, {"start_char": None, "oov_char": None, "num_words": 15, "index_from": 2},
               {"start_char": 3, "index_from": 0, "oov_char": 9, "num_words": 12}]:
        (a, b), (c, d) = imdb(**kw)
        out.append("imdb %s %d %d %s %s %s %s %s %s" % (sorted(kw.items()), len(a), len(c), b.dtype, d.shape, a.shape, a.dtype, c.shape, c.dtype))
        out.append("%s %s" % (seqs(a), b.tolist()))
        out.append("%s %s" % (seqs(c), d.tolist()))
    out.append("%s %s" % (type(a).__name__, isinstance(a, np.ndarray)))
    out.append("%r" % a[:2])
    # keras.utils.pad_sequences (maxlen=4, 'pre' padding and truncation), tf.ragged.constant's shape, tf.constant's refusal
    out.append("%s" % [[0] * (4 - len(s)) + list(s)[-4:] for s in a])
    out.append("(%d, None)" % len(a))
    out.append("ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type list).")
    try:
        imdb(maxlen=2)
    except ValueError as e:
        out.append("ValueError: %s" % e)
    with open(os.path.join(FX, "imdb_word_index.json")) as f:
        out.append("%s" % sorted(json.load(f).items()))
    for kw in [{}, {"test_split": 0.3, "seed": 1}, {"maxlen": 5, "num_words": 10, "skip_top": 5}, {"start_char": None, "oov_char": None, "num_words": 20}]:
        (a, b), (c, d) = reuters(**kw)
        out.append("reuters %s %d %d %s %s %s %s" % (sorted(kw.items()), len(a), len(c), b.dtype, a.shape, a.dtype, c.shape))
        out.append("%s %s" % (seqs(a), b.tolist()))
        out.append("%s %s" % (seqs(c), d.tolist()))
    labels = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee", "sugar",
              "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp",
              "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi", "iron-steel",
              "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead")
    out.append("%d %s %s %s" % (len(labels), labels[:3], labels[-1], type(labels).__name__))
    with open(os.path.join(FX, "reuters_word_index.json")) as f:
        out.append("%s" % (json.load(f) == WORDS))
    # np.load(allow_pickle=True) of numpy's object files (tests/programs/data/npytext) and of these
    npt = os.path.join(HERE, "programs", "data", "npytext")
    out.append("%r" % np.load(os.path.join(npt, "obj.npy"), allow_pickle=True))
    out.append("%r" % np.load(os.path.join(npt, "pickle.bin"), allow_pickle=True))
    out.append("%r" % np.load(os.path.join(npt, "objmember.npz"), allow_pickle=True)["bad"])
    with np.load(os.path.join(FX, "imdb.npz"), allow_pickle=True) as z:
        out.append("%r %r" % (z["x_train"][:2], z["y_test"].tolist()))
    raw = np.load(os.path.join(FX, "cifar-100-python", "test"), allow_pickle=True, encoding="bytes")
    out.append("%r %r" % (sorted(raw.keys()), raw[b"data"].shape))
    # bad input: numpy's refusal, Keras's **kwargs checks (imdb's message ends in '.', reuters's does not), nb_words
    # taken as num_words, then tfs's own errors: a missing cache, a damaged batch, a refused global
    out.append("ValueError: Object arrays cannot be loaded when allow_pickle=False")
    out.append("TypeError: Unrecognized keyword arguments: {'nb_word': 5}.")
    out.append("TypeError: Unrecognized keyword arguments: {'foo': 1}")
    out.append("%d" % len(imdb(num_words=5)[0][0]))
    out += ["OSError True", "OSError True", "ValueError True", "NotImplementedError True"]
    with open(os.path.join(HERE, "programs", "keras_datasets_pickled.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
