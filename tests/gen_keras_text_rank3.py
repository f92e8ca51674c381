#!/usr/bin/python3
# gen_keras_text_rank3.py — writes tests/programs/keras_text_rank3.out: TextVectorization on rank-3 inputs, Keras 2.15's rules.
"""Independent reference for keras_text_rank3.tfs.

    /usr/bin/python3 tests/gen_keras_text_rank3.py

Keras 2.15 (layers/preprocessing/text_vectorization.py): _preprocess standardizes (lower case, strip
punctuation), and when splitting requires rank 1 or a last dimension of 1, which it squeezes, then splits on
whitespace (a RaggedTensor one level deeper).  output_mode=None returns that; "int" looks each token up
(0 padding, 1 OOV, vocabulary from 2) and, for a ragged result, to_tensor pads the last axis to the longest row
or to output_sequence_length (trimming longer rows); ragged=True returns the ragged ids.  Other modes go through
encode_categorical_inputs, which refuses an output of rank 3.  compute_output_shape for "int" is
(batch, output_sequence_length) whatever the input's rank.
"""
import os
import re
import string

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = ["the", "cat", "sat", "dog"]
X3 = [[["The cat"], ["dog!"]], [["a sat cat dog"], ["the"]]]


def std(s):
    return re.sub("[%s]" % re.escape(string.punctuation), "", s.lower())


def split3(x):   # squeeze the last axis of 1, split each string
    return [[std(cell[0]).split() for cell in row] for row in x]


def ids(tokens):
    return [VOCAB.index(t) + 2 if t in VOCAB else 1 for t in tokens]


def pad(r, n):
    r = r[:n]
    return r + [0] * (n - len(r))


def b(tokens):
    return [t.encode() for t in tokens]


t3 = split3(X3)
longest = max(len(r) for row in t3 for r in row)
dense = [[pad(ids(r), longest) for r in row] for row in t3]
seq3 = [[pad(ids(r), 3) for r in row] for row in t3]
lines = [
    str([b(std(s).split()) for s in ["The cat sat", "a Dog!"]]),
    str([[b(r) for r in row] for row in t3]),
    str([b([std(s) for s in ["The!", "Cat"]])]),
    f"(2, 2, {longest}) int64 {dense}",
    str(seq3),
    str([[ids(r) for r in [["the", "cat", "x"], ["dog", "sat", "the"]]]]),
    str([ids(s.split()) for s in ["the cat the", "cat mouse"]]),
    str([[ids(r) for r in row] for row in t3]),
    f"{seq3} (None, 3)",
    "ValueError: When output_mode is not `'int'`, maximum supported output rank is 2. Received output_mode multi_hot "
    "and input shape (2, 2, None), which would result in output rank 3.",
    "ValueError: When using `TextVectorization` to tokenize strings, the input rank must be 1 or the last shape "
    "dimension must be 1. Received: inputs.shape=(1, 1, 2) with rank=3",
    "ValueError: `ragged` must not be true if `output_mode` is `'int'`. Received: ragged=True and output_mode=multi_hot",
]
with open(os.path.join(HERE, "programs", "keras_text_rank3.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
