#!/usr/bin/python3
"""gen_keras_text_layers.py — golden keras_text_layers: Keras 2.15's StringLookup, IntegerLookup and TextVectorization.

    /usr/bin/python3 tests/gen_keras_text_layers.py     # writes tests/programs/keras_text_layers.tfs/.out

The expected values come from a small reference model of the layers written here from Keras' documented behaviour
(keras/src/layers/preprocessing/index_lookup.py, string_lookup.py, integer_lookup.py, text_vectorization.py):
adapt counts every token (a rank-1 batch is one document, each row of a rank-2 batch one; lists are fed in batches
of 32), drops the mask and OOV tokens, orders the vocabulary by count high to low with ties broken by the token
high to low (np.lexsort reversed), keeps max_tokens minus the special tokens; indices start after the mask (int
mode only) and the OOV indices; multi_hot/count/one_hot are bincounts of depth vocabulary_size (max_tokens with
pad_to_max_tokens) with the mask dropped; tf_idf multiplies counts by log(1 + documents / (1 + document count)),
the special tokens weighted by the mean; TextVectorization lowercases, strips Keras' punctuation regex, splits on
whitespace or characters, appends the n-grams width by width, and pads/truncates int rows to
output_sequence_length (to the longest row without it).  Every case runs eagerly and inside tf.function (the
layers then run as a tf.py_function).
"""
import re

import numpy as np

from gen_coreapi_expect import write, show

GEN = "tests/gen_keras_text_layers.py (expected values from a numpy model of Keras' lookup layers)"
STRIP = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


class Lookup:
    """The reference IndexLookup: vocabulary (special tokens excluded) and the maps of a call."""

    def __init__(self, mask=None, oov="[UNK]", num_oov=1, mode="int", max_tokens=None, pad=False, vocab=None,
                 idf=None):
        self.mask, self.oov, self.num_oov, self.mode = mask, oov, num_oov, mode
        self.max_tokens, self.pad = max_tokens, pad
        self.oov_start = 1 if mask is not None and mode == "int" else 0
        self.start = self.oov_start + num_oov
        self.tokens, self.idf = [], None
        if vocab is not None:
            special = [mask] * self.oov_start + [oov] * num_oov
            found = list(vocab[:self.start]) == special
            self.tokens = list(vocab[self.start:]) if found else list(vocab)
            if idf is not None:
                w = [float(x) for x in idf]
                self.idf = self.padded(([] if found else [np.mean(w)] * self.start) + w)

    def padded(self, w):
        if self.pad:
            w = w + [0.0] * (self.max_tokens - len(w))
        return np.asarray(w, np.float32)

    def adapt(self, batches):
        counts, dcounts, ndocs = {}, {}, 0
        for b in batches:
            docs = [b] if not isinstance(b[0], list) else b
            for d in docs:
                for t in d:
                    counts[t] = counts.get(t, 0) + 1
                for t in set(d):
                    dcounts[t] = dcounts.get(t, 0) + 1
            ndocs += len(docs)
        counts.pop(self.mask, None)
        counts.pop(self.oov, None)
        toks = list(counts)
        order = np.lexsort((np.array(toks), np.array([counts[t] for t in toks])))[::-1]
        if self.max_tokens:
            order = order[:self.max_tokens - self.start]
        self.tokens = [toks[i] for i in order]
        if self.mode == "tf_idf":
            w = np.log(1 + ndocs / (1 + np.array([dcounts[t] for t in self.tokens], np.float64))).astype(np.float32)
            self.idf = self.padded([float(np.mean(w))] * self.start + [float(x) for x in w])
        return self

    def vocabulary(self):
        v = [self.oov] * self.start + self.tokens
        if self.mask is not None and self.mode == "int":
            v[0] = self.mask
        return v

    def index(self, t):
        if self.mask is not None and t == self.mask:
            return 0 if self.mode == "int" else -1
        if t in self.tokens:
            return self.start + self.tokens.index(t)
        return self.oov_start + (t % self.num_oov if self.num_oov > 1 else 0)

    def depth(self):
        return self.max_tokens if self.pad else self.start + len(self.tokens)

    def encode(self, rows):
        out = np.zeros((len(rows), self.depth()), np.float32)
        for r, row in enumerate(rows):
            for i in [self.index(t) for t in row]:
                if 0 <= i < self.depth():
                    out[r, i] = 1.0 if self.mode in ("multi_hot", "one_hot") else out[r, i] + 1.0
        if self.mode == "tf_idf":
            out = out * self.idf
        return out

    def call(self, x):
        x = np.asarray(x, object)
        if self.mode == "int":
            return np.array([self.index(t) for t in x.reshape(-1)], np.int64).reshape(x.shape)
        if self.mode == "one_hot" and x.shape[-1] != 1:
            x = x.reshape(x.shape + (1,))
        out = self.encode(x.reshape(-1, x.shape[-1]).tolist())
        return out if x.ndim == 2 else out[0]

    def invert(self, x):
        v = self.vocabulary()
        x = np.asarray(x)
        return np.array([v[i] if self.start <= i < len(v) else (self.mask if i == 0 and self.mask is not None
                                                                 else self.oov) for i in x.reshape(-1)],
                        object).reshape(x.shape)


class Text:
    """The reference TextVectorization: standardize, split, n-grams, then the lookup."""

    def __init__(self, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None, mode="int",
                 length=None, **kw):
        self.standardize, self.split, self.length, self.mode = standardize, split, length, mode
        self.ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self.lookup = Lookup(mask="", mode=mode, **kw)

    def rows(self, texts):
        out = []
        for s in texts:
            if self.standardize in ("lower", "lower_and_strip_punctuation"):
                s = s.lower()
            if self.standardize == "lower_and_strip_punctuation":
                s = re.sub(STRIP, "", s)
            if self.standardize == "digits":
                s = re.sub("[0-9]", "#", s)
            toks = s.split() if self.split == "whitespace" else (list(s) if self.split == "character"
                                                                  else s.split(","))
            if self.ngrams:
                toks = [" ".join(toks[i:i + n]) for n in self.ngrams for i in range(len(toks) - n + 1)]
            out.append(toks)
        return out

    def adapt(self, texts, batch=32):
        self.lookup.adapt([self.rows(texts[i:i + batch]) for i in range(0, len(texts), batch)])
        return self

    def call(self, texts):
        rows = self.rows(texts)
        if self.mode != "int":
            return self.lookup.encode(rows)
        idx = [[self.lookup.index(t) for t in r] for r in rows]
        width = self.length if self.length is not None else max(len(r) for r in idx)
        return np.array([(r + [0] * width)[:width] for r in idx], np.int64)


def strings(label, a):
    a = np.asarray(a, object)
    return "%s: string%s %s" % (label, list(a.shape), [s.encode() for s in a.reshape(-1)])


COLORS = ["red", "green", "red", "blue", "green", "red", "amber", "blue", "cyan", "amber"]
Q = [["red", "blue", "mauve"], ["cyan", "green", "red"]]
ROWS = [["a", "b", "a"], ["b", "c", "d"], ["a", "e", "c"]]
NUMS = [7, 3, 7, 12, 3, 7, 100, 12, 5]
QN = [[7, 3, 42], [5, 100, 0]]
DOCS = ["The quick brown fox.", "The lazy dog!", "A quick, quick dog?", "the END"]
QT = ["the quick dog jumps", "A brown, lazy fox -- the end"]


def lookups():
    s = Lookup().adapt([COLORS])
    s3 = Lookup(max_tokens=3).adapt([COLORS])
    sm = Lookup(mask="", vocab=["", "[UNK]", "x", "y", "z"])
    mh = Lookup(mode="multi_hot").adapt([ROWS])
    ct = Lookup(mode="count", max_tokens=8, pad=True).adapt([ROWS])
    oh = Lookup(mode="one_hot", vocab=["a", "b", "c"])
    ti = Lookup(mode="tf_idf").adapt([ROWS])
    tv = Lookup(mode="tf_idf", vocab=["a", "b", "c"], idf=[0.5, 1.0, 2.0])
    i = Lookup(oov=-1).adapt([NUMS])
    i2 = Lookup(oov=-1, num_oov=2, mask=0, vocab=[7, 3, 12])
    imh = Lookup(oov=-1, mode="multi_hot", vocab=[3, 5, 7])
    return s, s3, sm, mh, ct, oh, ti, tv, i, i2, imh


def texts():
    a = Text(length=6).adapt(DOCS)
    b = Text().adapt(DOCS)
    c = Text(split="character", standardize="lower", mode="count").adapt(["Abba", "cab!"])
    d = Text(ngrams=2, mode="multi_hot", max_tokens=9, pad=True).adapt(DOCS)
    e = Text(mode="tf_idf").adapt(DOCS)
    f = Text(standardize="digits", split="comma", vocab=["a#", "b"], length=3)
    g = Text(standardize=None, length=4).adapt(DOCS, batch=2)
    return a, b, c, d, e, f, g


SETUP = '''L = tf.keras.layers
COLORS = %r
ROWS = %r
NUMS = %r
DOCS = %r
s = L.StringLookup()
s.adapt(COLORS)
s3 = L.StringLookup(max_tokens=3)
s3.adapt(tf.constant(COLORS))
sm = L.StringLookup(mask_token="", vocabulary=["", "[UNK]", "x", "y", "z"])
sinv = L.StringLookup(vocabulary=s.get_vocabulary(), invert=True)
mh = L.StringLookup(output_mode="multi_hot")
mh.adapt(ROWS)
ct = L.StringLookup(output_mode="count", max_tokens=8, pad_to_max_tokens=True)
ct.adapt(tf.data.Dataset.from_tensor_slices(ROWS).batch(3))
oh = L.StringLookup(output_mode="one_hot", vocabulary=["a", "b", "c"])
ti = L.StringLookup(output_mode="tf_idf")
ti.adapt(tf.constant(ROWS))
tv = L.StringLookup(output_mode="tf_idf", vocabulary=["a", "b", "c"], idf_weights=[0.5, 1.0, 2.0])
il = L.IntegerLookup()
il.adapt(NUMS)
il2 = L.IntegerLookup(num_oov_indices=2, mask_token=0, vocabulary=[7, 3, 12])
iinv = L.IntegerLookup(vocabulary=il.get_vocabulary(), invert=True)
imh = L.IntegerLookup(output_mode="multi_hot", vocabulary=tf.constant([3, 5, 7]))
ta = L.TextVectorization(output_sequence_length=6)
ta.adapt(DOCS)
tb = L.TextVectorization()
tb.adapt(tf.data.Dataset.from_tensor_slices(DOCS).batch(3))
tc = L.TextVectorization(standardize="lower", split="character", output_mode="count")
tc.adapt(["Abba", "cab!"])
td = L.TextVectorization(ngrams=2, output_mode="multi_hot", max_tokens=9, pad_to_max_tokens=True)
td.adapt(DOCS)
te = L.TextVectorization(output_mode="tf_idf")
te.adapt(tf.constant(DOCS))


def digits(x):
    return tf.strings.regex_replace(x, "[0-9]", "#")


def commas(x):
    return tf.strings.split(x, sep=",")


tf_ = L.TextVectorization(standardize=digits, split=commas, vocabulary=["a#", "b"], output_sequence_length=3)
tg = L.TextVectorization(standardize=None, output_sequence_length=4)
tg.adapt(DOCS, batch_size=2)
''' % (COLORS, ROWS, NUMS, DOCS)


def cases():
    s, s3, sm, mh, ct, oh, ti, tv, i, i2, imh = lookups()
    a, b, c, d, e, f, g = texts()
    qs = ["the quick dog jumps", "A brown, lazy fox -- the end"]
    return [
        ("StringLookup adapted", "s(tf.constant(%r))" % Q, s.call(Q)),
        ("StringLookup scalar", "s('green')", s.call(np.array("green", object))),
        ("StringLookup max_tokens", "s3(tf.constant(%r))" % Q, s3.call(Q)),
        ("StringLookup mask and special tokens", "sm(tf.constant(['x', '', 'q', 'z']))", sm.call(["x", "", "q", "z"])),
        ("StringLookup multi_hot", "mh(tf.constant([['a', 'e'], ['d', 'd']]))", mh.call([["a", "e"], ["d", "d"]])),
        ("StringLookup count padded", "ct(tf.constant([['a', 'a', 'q'], ['c', 'b', 'a']]))",
         ct.call([["a", "a", "q"], ["c", "b", "a"]])),
        ("StringLookup one_hot", "oh(tf.constant(['c', 'q', 'a']))", oh.call(["c", "q", "a"])),
        ("StringLookup one_hot last axis 1", "oh(tf.constant([['b'], ['a']]))", oh.call([["b"], ["a"]])),
        ("StringLookup tf_idf adapted", "ti(tf.constant([['a', 'a', 'd'], ['e', 'q', 'b']]))",
         ti.call([["a", "a", "d"], ["e", "q", "b"]])),
        ("StringLookup tf_idf weights", "tv(tf.constant([['a', 'c', 'c', 'z']]))", tv.call([["a", "c", "c", "z"]])),
        ("IntegerLookup adapted", "il(tf.constant(%r))" % QN, i.call(QN)),
        ("IntegerLookup int32 input", "il(tf.constant([12, 100], tf.int32))", i.call([12, 100])),
        ("IntegerLookup two OOV indices and mask", "il2(tf.constant([7, 0, 9, 10, 12], tf.int64))",
         i2.call([7, 0, 9, 10, 12])),
        ("IntegerLookup multi_hot", "imh(tf.constant([[5, 5, 9], [3, 7, 0]]))", imh.call([[5, 5, 9], [3, 7, 0]])),
        ("TextVectorization int, output_sequence_length", "ta(tf.constant(%r))" % qs, a.call(qs)),
        ("TextVectorization int, padded to the longest", "tb(tf.constant(%r))" % qs, b.call(qs)),
        ("TextVectorization rows of one string", "tb(tf.constant([['The dog'], ['quick  fox, the fox']]))",
         b.call(["The dog", "quick  fox, the fox"])),
        ("TextVectorization character count", "tc(tf.constant(['Cab', 'bAd?']))", c.call(["Cab", "bAd?"])),
        ("TextVectorization ngrams multi_hot padded", "td(tf.constant(%r))" % qs, d.call(qs)),
        ("TextVectorization tf_idf", "te(tf.constant(%r))" % qs, e.call(qs)),
        ("TextVectorization callables, vocabulary", "tf_(tf.constant(['a1,b,c', 'b', 'c,a2,b,b']))",
         f.call(["a1,b,c", "b", "c,a2,b,b"])),
        ("TextVectorization standardize None", "tg(tf.constant(['The dog!', 'the quick fox.']))",
         g.call(["The dog!", "the quick fox."])),
    ]


CHECKS = '''
print("StringLookup vocabulary:", s.get_vocabulary(), s.vocabulary_size())
print("without special tokens:", s.get_vocabulary(include_special_tokens=False))
print("max_tokens vocabulary:", s3.get_vocabulary())
print("mask vocabulary:", sm.get_vocabulary())
print("multi_hot vocabulary:", mh.get_vocabulary(), "count vocabulary:", ct.get_vocabulary())
print("IntegerLookup vocabulary:", il.get_vocabulary(), il2.get_vocabulary(), imh.get_vocabulary())
print("TextVectorization vocabularies:", ta.get_vocabulary(), tc.get_vocabulary(), td.get_vocabulary())
print("standardize None vocabulary:", tg.get_vocabulary())
show("StringLookup invert", sinv(tf.constant([[1, 2, 0], [5, 9, 4]])))
show("IntegerLookup invert", iinv(tf.constant([1, 0, 3])))
show("invert in tf.function", tf.function(lambda x: sinv(x))(tf.constant([2, 3])))
with open("keras_text_layers.vocab.txt", "w") as f:
    f.write("red\\ngreen\\r\\nblue\\n")
fl = L.StringLookup(vocabulary="keras_text_layers.vocab.txt", mask_token="")
print("vocabulary file:", fl.get_vocabulary())
show("vocabulary file lookup", fl(tf.constant(["blue", "", "green", "pink"])))
fi = L.StringLookup(vocabulary="keras_text_layers.vocab.txt", invert=True)
show("vocabulary file invert", fi(tf.constant([2, 0, 7])))
import os
os.remove("keras_text_layers.vocab.txt")
ds = tf.data.Dataset.from_tensor_slices(["The dog", "a lazy fox jumps", "end"]).batch(2).map(lambda x: ta(x))
for batch in ds:
    show("in a tf.data map", batch)
ds = tf.data.Dataset.from_tensor_slices(([["red"], ["cyan"]], [0, 1])).map(lambda x, y: (s(x), y))
for x, y in ds:
    show("lookup in a tf.data map", x)
emb = tf.constant([[float(i), float(10 * i)] for i in range(10)])
model = tf.keras.Sequential([tf.keras.Input(shape=(1,), dtype=tf.string), ta,
                             L.Embedding(10, 2, embeddings_initializer=tf.keras.initializers.Constant(emb)),
                             L.GlobalAveragePooling1D()])
show("Sequential call", model(tf.constant([["the quick fox"], ["lazy dog"]])))
show("Sequential predict", tf.constant(model.predict(tf.constant([["the quick fox"], ["lazy dog"]]), verbose=0)))
print([l.output_shape for l in model.layers])
texts = ["good movie", "bad movie", "great film", "awful film", "good fun", "bad plot"]
bag = L.TextVectorization(max_tokens=20, output_mode="multi_hot")
bag.adapt(texts)
clf = tf.keras.Sequential([tf.keras.Input(shape=(1,), dtype=tf.string), bag,
                           L.Dense(1, activation="sigmoid", kernel_initializer="zeros")])
clf.compile(optimizer=tf.keras.optimizers.SGD(1.0), loss="binary_crossentropy")
hist = clf.fit(tf.constant([[t] for t in texts]), tf.constant([1.0, 0.0, 1.0, 0.0, 1.0, 0.0]), epochs=10, verbose=0,
               batch_size=3, shuffle=False)
p = clf.predict(tf.constant([["good film"], ["bad film"]]), verbose=0)
print("fit on strings learns:", hist.history["loss"][-1] < hist.history["loss"][0], p[0][0] > 0.5, p[1][0] < 0.5)
cfg = s3.get_config()
print([(k, cfg[k]) for k in ["invert", "max_tokens", "num_oov_indices", "oov_token", "mask_token", "output_mode",
                             "pad_to_max_tokens", "vocabulary", "encoding"]])
cfg = il2.get_config()
print([(k, cfg[k]) for k in ["max_tokens", "num_oov_indices", "oov_token", "mask_token", "vocabulary"]])
cfg = td.get_config()
print([(k, cfg[k]) for k in ["max_tokens", "standardize", "split", "ngrams", "output_mode", "output_sequence_length",
                             "pad_to_max_tokens", "vocabulary"]])
r = L.StringLookup.from_config(sm.get_config())
print("from_config:", r.get_vocabulary(), r(tf.constant(["y"])).numpy().tolist())

for make in [lambda: L.StringLookup(max_tokens=1), lambda: L.StringLookup(num_oov_indices=-1),
             lambda: L.StringLookup(output_mode="multi_hot", invert=True),
             lambda: L.StringLookup(vocabulary=["a", "b", "a"]),
             lambda: L.StringLookup(vocabulary=["a", "b", "c"], max_tokens=3),
             lambda: L.StringLookup(mask_token="", vocabulary=["a", ""]),
             lambda: L.StringLookup(idf_weights=[1.0]),
             lambda: L.StringLookup(output_mode="tf_idf", vocabulary=["a"]),
             lambda: L.StringLookup(vocabulary="no_such_vocabulary.txt"),
             lambda: L.StringLookup(pad_to_max_tokens=True),
             lambda: L.TextVectorization(output_mode="multi_hot", output_sequence_length=3),
             lambda: L.TextVectorization(ngrams=[1, 2]),
             lambda: L.TextVectorization(dtype=tf.int32),
             lambda: L.StringLookup(vocabulary=["a"], name="fixed").adapt(["a"]),
             lambda: L.StringLookup(output_mode="count")(tf.constant(["a"])),
             lambda: L.TextVectorization()(tf.constant([["a", "b"]]))]:
    try:
        make()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__ + ":", e)
'''


def expected_checks():
    s, s3, sm, mh, ct, oh, ti, tv, i, i2, imh = lookups()
    a, b, c, d, e, f, g = texts()
    sinv = Lookup(vocab=s.vocabulary())
    iinv = Lookup(oov=-1, vocab=i.vocabulary())
    out = ["StringLookup vocabulary: %s %d" % (s.vocabulary(), len(s.vocabulary())),
           "without special tokens: %s" % s.tokens,
           "max_tokens vocabulary: %s" % s3.vocabulary(),
           "mask vocabulary: %s" % sm.vocabulary(),
           "multi_hot vocabulary: %s count vocabulary: %s" % (mh.vocabulary(), ct.vocabulary()),
           "IntegerLookup vocabulary: %s %s %s" % (i.vocabulary(), i2.vocabulary(), imh.vocabulary()),
           "TextVectorization vocabularies: %s %s %s" % (a.lookup.vocabulary(), c.lookup.vocabulary(),
                                                         d.lookup.vocabulary()),
           "standardize None vocabulary: %s" % g.lookup.vocabulary(),
           strings("StringLookup invert", sinv.invert([[1, 2, 0], [5, 9, 4]])),
           show("IntegerLookup invert", np.array(iinv.invert([1, 0, 3]).tolist(), np.int64)),
           strings("invert in tf.function", sinv.invert([2, 3]))]
    fl = Lookup(mask="", vocab=["red", "green", "blue"])
    out += ["vocabulary file: %s" % fl.vocabulary(),
            show("vocabulary file lookup", fl.call(["blue", "", "green", "pink"])),
            strings("vocabulary file invert", Lookup(vocab=["red", "green", "blue"]).invert([2, 0, 7]))]
    out += [show("in a tf.data map", a.call(["The dog", "a lazy fox jumps"])), show("in a tf.data map", a.call(["end"]))]
    out += [show("lookup in a tf.data map", s.call(["red"])), show("lookup in a tf.data map", s.call(["cyan"]))]
    emb = np.array([[i, 10 * i] for i in range(10)], np.float32)
    pooled = emb[a.call(["the quick fox", "lazy dog"])].mean(axis=1)
    out += [show("Sequential call", pooled), show("Sequential predict", pooled),
            "[(None, 6), (None, 6, 2), (None, 2)]"]
    out += ["fit on strings learns: True True True"]
    out += ["[('invert', False), ('max_tokens', 3), ('num_oov_indices', 1), ('oov_token', '[UNK]'), ('mask_token', "
            "None), ('output_mode', 'int'), ('pad_to_max_tokens', False), ('vocabulary', None), ('encoding', 'utf-8')]",
            "[('max_tokens', None), ('num_oov_indices', 2), ('oov_token', -1), ('mask_token', 0), ('vocabulary', "
            "[7, 3, 12])]",
            "[('max_tokens', 9), ('standardize', 'lower_and_strip_punctuation'), ('split', 'whitespace'), ('ngrams', 2), "
            "('output_mode', 'multi_hot'), ('output_sequence_length', None), ('pad_to_max_tokens', True), "
            "('vocabulary', None)]",
            "from_config: %s [%d]" % (sm.vocabulary(), sm.index("y"))]
    out += [
        "ValueError: If set, `max_tokens` must be greater than 1. Received: max_tokens=1",
        "ValueError: `num_oov_indices` must be greater than or equal to 0. Received: num_oov_indices=-1",
        "ValueError: `output_mode` must be `'int'` when `invert` is true. Received: output_mode=multi_hot",
        "ValueError: The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated "
        "terms are ['a']",
        "ValueError: Attempted to set a vocabulary larger than the maximum vocab size. Passed vocab size is 4, max "
        "vocab size is 3.",
        "ValueError: Found reserved mask token at unexpected location in `vocabulary`. Note that passed `vocabulary` "
        "does not need to include the OOV and mask tokens. Either remove all mask and OOV tokens, or include them only "
        "at the start of the vocabulary in precisely this order: ['', '[UNK]']. Received: mask_token= at vocabulary "
        "index [1]",
        "ValueError: `idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: idf_weights=[1.0] and "
        "output_mode=int",
        "ValueError: When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` argument must "
        "also be provided.",
        "ValueError: Vocabulary file no_such_vocabulary.txt does not exist.",
        "ValueError: If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None",
        "ValueError: `output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
        "output_sequence_length=3.",
        "ValueError: `ngrams` must be None, an integer, or a tuple of integers. Received: ngrams=[1, 2]",
        "ValueError: `TextVectorization` may only have a dtype of string. Received dtype: <dtype: 'int32'>.",
        "ValueError: Cannot adapt fixed layer after setting a static vocabulary via init argument or "
        "`set_vocabulary`.",
        "RuntimeError: When using `output_mode=count` and `pad_to_max_tokens=False`, you must set the layer's "
        "vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or call `adapt` with some "
        "sample data.",
        "ValueError: When using `TextVectorization` to tokenize strings, the input rank must be 1 or the last shape "
        "dimension must be 1. Received: inputs.shape=(1, 2) with rank=2",
    ]
    return out


if __name__ == "__main__":
    write("keras_text_layers", "Keras 2.15 StringLookup, IntegerLookup and TextVectorization: vocabularies, every "
          "output mode, tf.function, tf.data, Sequential, get_config, messages", SETUP.split("\n"), cases(), [],
          (CHECKS.split("\n"), expected_checks()), by=GEN)
