#!/usr/bin/python3
"""gen_keras_textvec_ragged_fn.py — writes tests/programs/keras_textvec_ragged_fn.out (run with /usr/bin/python3).

    /usr/bin/python3 tests/gen_keras_textvec_ragged_fn.py

Keras 2.15's TextVectorization: adapt counts the tokens of lower_and_strip_punctuation + whitespace split, the
vocabulary is ["", "[UNK]"] then the tokens by count high to low, ties by the token high to low; a token outside it is
1.  ragged=True gives the ids per row as a tf.RaggedTensor, output_mode=None the tokens; inside a tf.function the
result is the same RaggedTensor.
"""
import collections
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def standardize(s):
    return re.sub(r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]", "", s.lower())


def vocab(texts):
    counts = collections.Counter(t for s in texts for t in standardize(s).split())
    return ["", "[UNK]"] + [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], [-ord(c) for c in kv[0]]))]


def ragged(rows):
    return "<tf.RaggedTensor [" + ", ".join("[" + ", ".join(str(v) for v in r) + "]" for r in rows) + "]>"


if __name__ == "__main__":   # (gen_keras_textvec_ragged_ds.py imports the functions above)
    v = vocab(["a b c", "b c", "c d"])
    ids = {t: i for i, t in enumerate(v)}
    x = ["A b", "c c d!", "", "e"]
    rows = [[ids.get(t, 1) for t in standardize(s).split()] for s in x]
    toks = [[repr(t.encode()) for t in standardize(s).split()] for s in x]
    lines = [str(v), ragged(rows), "RaggedTensor " + ragged(rows) + " " + str([len(r) for r in rows]),
             "<tf.RaggedTensor [" + ", ".join("[" + ", ".join(r) + "]" for r in toks) + "]>",
             ragged([[ids.get(t, 1) for t in standardize(s).split()] for s in ["a b", "d"]]),
             ragged([[ids["d"]] * 4])]
    with open(os.path.join(HERE, "programs", "keras_textvec_ragged_fn.out"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
