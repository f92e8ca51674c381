#!/usr/bin/env python3
"""gen_keras_text.py — expected output of tests/programs/keras_preprocessing_text.tfs.

A reimplementation, under plain CPython and numpy, of Keras 2.15's keras/preprocessing/text.py as its source reads
(text_to_word_sequence's filter translation, fit_on_texts's stable count sort with the oov token first, the matrix
modes, get_config/to_json and tokenizer_from_json), run on the program's inputs.
usage: gen_keras_text.py > tests/programs/keras_preprocessing_text.out
"""
import collections
import hashlib
import json

import numpy as np

FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(s, filters=FILTERS, lower=True, split=" "):
    if lower:
        s = s.lower()
    s = s.translate(str.maketrans({c: split for c in filters}))
    return [w for w in s.split(split) if w]


def hashing_trick(s, n, hash_function=None):
    if hash_function == "md5":
        hash_function = lambda w: int(hashlib.md5(w.encode()).hexdigest(), 16)  # noqa: E731
    return [hash_function(w) % (n - 1) + 1 for w in text_to_word_sequence(s)]


class Tokenizer:
    def __init__(self, num_words=None, filters=FILTERS, lower=True, split=" ", char_level=False, oov_token=None,
                 **kwargs):
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.document_count = num_words, document_count
        self.char_level, self.oov_token = char_level, oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index, self.index_word = {}, {}

    def _seq(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [e.lower() for e in text] if isinstance(text, list) else text.lower()
            return text
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        for text in texts:
            self.document_count += 1
            seq = self._seq(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        wc = list(self.word_counts.items())
        wc.sort(key=lambda x: x[1], reverse=True)
        voc = [] if self.oov_token is None else [self.oov_token]
        voc.extend(w for w, _ in wc)
        self.word_index = dict(zip(voc, range(1, len(voc) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in self.word_docs.items():
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, seqs):
        self.document_count += len(seqs)
        for s in seqs:
            for i in set(s):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts):
        oov = self.word_index.get(self.oov_token)
        out = []
        for text in texts:
            v = []
            for w in self._seq(text):
                i = self.word_index.get(w)
                if i is not None:
                    if self.num_words and i >= self.num_words:
                        if oov is not None:
                            v.append(oov)
                    else:
                        v.append(i)
                elif self.oov_token is not None:
                    v.append(oov)
            out.append(v)
        return out

    def sequences_to_texts(self, seqs):
        oov = self.word_index.get(self.oov_token)
        out = []
        for s in seqs:
            v = []
            for n in s:
                w = self.index_word.get(n)
                if w is not None:
                    if self.num_words and n >= self.num_words:
                        if oov is not None:
                            v.append(self.index_word[oov])
                    else:
                        v.append(w)
                elif self.oov_token is not None:
                    v.append(self.index_word[oov])
            out.append(" ".join(v))
        return out

    def sequences_to_matrix(self, seqs, mode="binary"):
        if not self.num_words:
            if self.word_index:
                nw = len(self.word_index) + 1
            else:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some text data first.")
        else:
            nw = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(seqs), nw))
        for i, s in enumerate(seqs):
            if not s:
                continue
            counts = collections.defaultdict(int)
            for j in s:
                if j >= nw:
                    continue
                counts[j] += 1
            for j, c in counts.items():
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(s)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    x[i][j] = (1 + np.log(c)) * np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode)

    def get_config(self):
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower, "split": self.split,
                "char_level": self.char_level, "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts), "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs), "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self):
        return json.dumps({"class_name": "Tokenizer", "config": self.get_config()})


def tokenizer_from_json(s):
    config = json.loads(s).get("config")
    wc = json.loads(config.pop("word_counts"))
    wd = json.loads(config.pop("word_docs"))
    idocs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    iw = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    wi = json.loads(config.pop("word_index"))
    t = Tokenizer(**config)
    t.word_counts, t.word_docs, t.index_docs, t.word_index, t.index_word = wc, wd, idocs, wi, iw
    return t


def rows(m):
    return [[round(v, 5) for v in r] for r in m.tolist()]


texts = ["The cat sat on the mat.", "The dog ate my homework!", "Cats and dogs: the END", "the cat, the dog"]
t = Tokenizer()
t.fit_on_texts(texts)
print(t.document_count, len(t.word_index))
print(t.word_index)
print(dict(t.word_counts))
print(sorted(dict(t.word_docs).items()))
print(sorted(dict(t.index_docs).items()))
seqs = t.texts_to_sequences(["the cat ate the unknown dog"])
print(seqs, t.sequences_to_texts(seqs + [[1, 99, 2]]))
for mode in ["binary", "count", "freq", "tfidf"]:
    m = t.texts_to_matrix(["the cat the dog", "mat homework end"], mode=mode)
    print(mode, m.shape, m.dtype, rows(m))
o = Tokenizer(num_words=5, oov_token="<OOV>", lower=False)
o.fit_on_texts(texts)
print(list(o.word_index.items())[:6])
print(o.texts_to_sequences(["The cat sat on a dog", "mat"]))
print(o.sequences_to_texts([[1, 2, 3, 4, 5, 6, 50]]))
print(o.texts_to_matrix(["The cat sat"], mode="count").tolist())
c = Tokenizer(char_level=True)
c.fit_on_texts(["abca", "bcd"])
print(c.word_index, c.texts_to_sequences(["dab", "zz"]))
lists = Tokenizer()
lists.fit_on_texts([["Alpha", "beta"], ["beta", "Gamma!"]])
print(lists.word_index)
s = Tokenizer(num_words=3)
s.fit_on_sequences([[1, 2, 2], [2, 0]])
print(s.document_count, sorted(dict(s.index_docs).items()), s.sequences_to_matrix([[1, 2, 2, 7]], mode="tfidf").round(5).tolist())
back = tokenizer_from_json(o.to_json())
print(type(back).__name__, back.num_words, back.oov_token, back.lower, back.document_count)
print(back.texts_to_sequences(["The cat sat on a dog", "mat"]), back.index_word[1])
cfg = json.loads(o.to_json())
print(cfg["class_name"], sorted(cfg["config"].keys()))
print(text_to_word_sequence("Hello, World!  It's  a test\tline"))
print(text_to_word_sequence("a-b-c d", filters="", split="-"))
print(hashing_trick("The cat sat on the mat", 20, hash_function="md5"))
print(hashing_trick("x y", 10, hash_function=len))
print(4, True)
for f in [lambda: Tokenizer().sequences_to_matrix([[1]]), lambda: t.texts_to_matrix(["cat"], mode="bogus"),
          lambda: Tokenizer(num_words=4).sequences_to_matrix([[1]], mode="tfidf"), lambda: Tokenizer(foo=1)]:
    try:
        f()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
