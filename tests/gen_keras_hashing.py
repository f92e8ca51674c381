#!/usr/bin/python3
# gen_keras_hashing.py — writes tests/programs/keras_hashing.out and keras_hashing_errors.out from a pure-Python model of Keras 2.15's Hashing layer on tests/hash_oracle.py's FarmHash / SipHash-2-4.
"""Independent reference for tests/programs/keras_hashing.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_hashing.py

The model follows keras/src/layers/preprocessing/hashing.py (2.15): integers are hashed as their decimal text
(tf.strings.as_string), FarmHash's Fingerprint64 modulo num_bins without a salt, SipHash-2-4 keyed by [salt, salt] or
the salt pair with one; a mask_value takes bin 0 and the others move up by one (num_bins - 1 hashed bins); and
preprocessing_utils.encode_categorical_inputs: one_hot marks each element, multi_hot/count each row's bins (float32).
"""
import os

from hash_oracle import fp64, siphash24

HERE = os.path.dirname(os.path.abspath(__file__))


def bins(values, num_bins, salt=None, mask=None):
    n = num_bins
    if mask is not None and n > 1:
        n -= 1
    out = []
    for v in values:
        b = (str(v) if isinstance(v, int) else v).encode()
        h = (siphash24(*(salt if isinstance(salt, (list, tuple)) else (salt, salt)), b) if salt is not None
             else fp64(b)) % n
        out.append(h if mask is None or n == num_bins else (0 if v == mask else h + 1))
    return out


def rows(values, num_bins, width, **kw):
    flat = bins([v for r in values for v in r], num_bins, **kw)
    return [flat[i * width:(i + 1) * width] for i in range(len(values))]


def encode(row_bins, depth, count):
    v = [0.0] * depth
    for b in row_bins:
        v[b] = v[b] + 1.0 if count else 1.0
    return v


def main():
    words = ["", "a", "hello", "TensorFlow", "x" * 40, "The quick brown fox jumps over the lazy dog", "é" * 70]
    inp = ["A", "B", "C", "D", "E"]
    ints = [[1, 2, 3], [-7, 0, 123456789]]
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    p([siphash24(1, 2, w.encode()) % 1000 for w in words])
    p([siphash24(-1, 123456789012345, w.encode()) % 9223372036854775807 for w in words])
    p([[b] for b in bins(inp, 3)])
    p([[b] for b in bins(["A", "B", "", "C", "D"], 3, mask="")])
    p([[b] for b in bins(inp, 3, salt=[133, 137])])
    p([[b] for b in bins(inp, 3, salt=133)])
    p(rows(ints, 10, 3))
    p("int64", rows(ints, 10, 3, mask=0, salt=(7, 9)))
    p(bins(words, 1000))
    p("float32", (7, 7), [encode([b], 7, False) for b in bins(words, 7)])
    two = [words[:3], words[3:6]]
    p([encode(r, 7, False) for r in rows(two, 7, 3)])
    counts = [encode(r, 3, True) for r in rows(two, 3, 3)]
    p(counts)
    p("SparseTensor", counts)
    p(encode(bins(["hello"], 7), 7, False))
    ragged = [["a", "hello"], ["TensorFlow"], []]
    p([bins(r, 5) for r in ragged])
    p([encode(bins(r, 5, salt=3), 5, True) for r in ragged])
    p("SparseTensor", [[0, 0], [1, 2], [1, 3]], bins(["a", "hello", "a"], 5))
    sp_rows = [["a"], ["hello", "a"], []]
    p([encode(bins(r, 5), 5, False) for r in sp_rows])
    p({"name": "hash", "trainable": True, "dtype": "int64", "num_bins": 11, "salt": [5, 6], "mask_value": None,
       "output_mode": "int", "sparse": False})
    p(True, bins(words, 11, salt=[5, 6]))
    p((None, 1))
    p(bins(words, 11, salt=[5, 6]))
    p((None, 6))
    p([encode(bins([w], 6), 6, False) for w in ["A", "hello", "é"]])
    hashed = bins(words, 100, salt=42)
    p([hashed[:4], hashed[4:]])
    with open(os.path.join(HERE, "programs", "keras_hashing.out"), "w") as f:
        f.write("\n".join(L) + "\n")


def errors():
    # Keras 2.15's messages (hashing.py, layer_utils.validate_string_arg, preprocessing_utils's rank check) and TF's
    # (string_to_hash_bucket_op.h, the generated op wrapper's attribute checks, the num_buckets >= 1 attr minimum)
    modes = ("int", "one_hot", "multi_hot", "count")
    num = "The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: num_bins={}."
    salt = "The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a single integer. Received: salt={}."
    rank = ("When output_mode is not `'int'`, maximum supported output rank is 2. Received output_mode {} and input "
            "shape {}, which would result in output rank 3.")
    L = ["ValueError: " + num.format(None), "ValueError: " + num.format(0), "ValueError: " + num.format(-3),
         "ValueError: " + salt.format("pepper"), "ValueError: " + salt.format([1, 2, 3]),
         f"ValueError: Unkown value for `output_mode` argument of layer Hashing. Allowed values are: or one of the "
         f"following values: {modes}. Received: binary",
         'ValueError: `sparse` may only be true if `output_mode` is `"one_hot"`, `"multi_hot"`, or `"count"`. '
         'Received: sparse=True and output_mode=int',
         "TypeError: Keyword argument not understood: 'bins'",
         "ValueError: " + rank.format("one_hot", "(1, 2)"), "ValueError: " + rank.format("multi_hot", "(1, 1, 1)"),
         "InvalidArgumentError: Key must have 2 elements",
         "TypeError: Expected list for 'key' argument to 'string_to_hash_bucket_strong' Op, not 5.",
         "TypeError: Expected int for argument 'key' not '2'.",
         "InvalidArgumentError: Value for attr 'num_buckets' of 0 must be at least minimum 1"]
    with open(os.path.join(HERE, "programs", "keras_hashing_errors.out"), "w") as f:
        f.write("\n".join(L) + "\n")


main()
errors()
