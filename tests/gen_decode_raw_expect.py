#!/usr/bin/python3
# gen_decode_raw_expect.py — writes tests/programs/io_decode_raw.tfs and .out: tf.io.decode_raw cases decoded by numpy.
"""Independent reference for tf.io.decode_raw (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_decode_raw_expect.py

numpy.frombuffer with an explicit byte order is the model of TF's DecodeRaw kernel (decode_raw_op.cc: every string
the same length, a multiple of the element size; big-endian data swapped per number, a complex number per part)
and DecodePaddedRaw (decode_padded_raw_op.cc: fixed_length bytes per string, short ones padded with zeros, long
ones cut). The error texts are those TF's own tests assert (python/kernel_tests/image_ops/decode_raw_op_test.py)
and the kernels' OP_REQUIRES messages.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# (TF dtype name, numpy type code)
TYPES = {"uint8": "u1", "int8": "i1", "int16": "i2", "uint16": "u2", "int32": "i4", "int64": "i8",
         "float16": "f2", "float32": "f4", "float64": "f8", "complex64": "c8", "complex128": "c16", "bool": "b1"}
SHORT = {"float32": "float", "float64": "double", "float16": "half"}   # TF's DataTypeString


def blob(values, code):
    return np.array(values, dtype="<" + code).tobytes()


CASES = [  # (list of bytes, dtype, little_endian, fixed_length)
    ([b"A", b"a"], "uint8", True, None),
    ([b"wer", b"XYZ"], "uint8", True, None),
    ([b"AaBC"], "int16", True, None),
    ([b"\xff\xee\xdd\xcc"], "uint16", True, None),
    ([b"\x01\x02\x03\x04"], "int32", True, None),
    ([b"\x01\x02\x03\x04"], "int32", False, None),
    ([blob([1.5, -2.25, 1e30], "f4")], "float32", True, None),
    ([blob([1.5, -2.25], "f4")[::-1]], "float32", False, None),
    ([blob([1, -2, -3, 4], "f2")], "float16", True, None),
    ([blob([1 + 1j, 2 - 2j], "c8")], "complex64", True, None),
    ([b"\x00\x00\x80?\x00\x00\x00@"], "complex64", True, None),
    ([b"?\x80\x00\x00@\x00\x00\x00"], "complex64", False, None),
    ([blob([1 + 1j, -3.5 + 4j], "c16")], "complex128", True, None),
    ([blob([True, False, False, True], "b1")], "bool", True, None),
    ([blob([2 ** 40 + 7, -5], "i8"), blob([3, 4], "i8")], "int64", True, None),
    ([blob([1e300, -0.5], "f8")], "float64", True, None),
    ([b"", b""], "float16", True, None),
    ([b"ab", b"abcd", b"abcdefgh"], "int16", True, 4),
    ([b"\x01\x02\x03", b""], "int16", False, 4),
    ([b"xyz"], "uint8", True, 1),
]
ERRORS = [  # (python expression, expected message)
    ('tf.io.decode_raw(["short", "longer"], tf.uint8)',
     "DecodeRaw requires input strings to all be the same size, but element 1 has size 5 != 6"),
    ('tf.io.decode_raw(["123", "456"], tf.int16)',
     "Input to DecodeRaw has length 3 that is not a multiple of 2, the size of int16"),
    ('tf.io.decode_raw(["123", "456"], tf.uint16)',
     "Input to DecodeRaw has length 3 that is not a multiple of 2, the size of uint16"),
    ('tf.io.decode_raw(["12", "345"], tf.int16)',   # the sizes are compared before the later ones' multiples
     "DecodeRaw requires input strings to all be the same size, but element 1 has size 2 != 3"),
    ('tf.io.decode_raw(["abc"], tf.float32, fixed_length=6)',
     "fixed_length (6) must be a multiple of the size of out_type (4)"),
]


def literal(bs):
    return "[" + ", ".join(repr(b) for b in bs) + "]"


def decode(bs, name, little, fixed):
    code = TYPES[name]
    size = np.dtype(code).itemsize
    if fixed is not None:
        bs = [(b + b"\0" * fixed)[:fixed] for b in bs]
    order = "<" if little else ">"
    if name.startswith("complex"):   # each part swapped on its own
        part = np.dtype(code).itemsize // 2
        rows = [np.frombuffer(b, dtype=order + "f%d" % part).astype("f%d" % part) for b in bs]
        rows = [r[0::2] + 1j * r[1::2] for r in rows]
    else:
        rows = [np.frombuffer(b, dtype=order + code) for b in bs]
    width = (fixed if fixed is not None else (len(bs[0]) if bs else 0)) // size
    return [[py(x, name) for x in r] for r in rows], width


def py(x, name):
    if name == "bool":
        return bool(x)
    if name.startswith("complex"):
        return complex(x)
    if name.startswith("float"):
        return float(x)
    return int(x)


def main():
    prog = ["# tf.io.decode_raw against numpy's frombuffer (tests/gen_decode_raw_expect.py writes this file and its .out)."]
    out = []
    for bs, name, little, fixed in CASES:
        args = "%s, tf.%s" % (literal(bs), name)
        if not little:
            args += ", little_endian=False"
        if fixed is not None:
            args += ", fixed_length=%d" % fixed
        prog.append("r = tf.io.decode_raw(%s)" % args)
        prog.append("print(r.dtype.name, r.shape, r.numpy().tolist())")
        rows, width = decode(bs, name, little, fixed)
        out.append("%s (%d, %d) %r" % (name, len(bs), width, rows))
    prog.append("@tf.function")
    prog.append("def traced(s):")
    prog.append("    r = tf.io.decode_raw(s, tf.int16, fixed_length=4)")
    prog.append("    print(r.shape, tf.io.decode_raw(s, tf.uint8).shape[:1])   # (the second's last dimension is unknown while tracing)")
    prog.append("    return r")
    prog.append('print(traced(tf.constant([b"ab", b"cd"])).numpy().tolist())')
    out.append("(2, 2) (2,)")
    rows, _ = decode([b"ab", b"cd"], "int16", True, 4)
    out.append(repr(rows))
    for expr, msg in ERRORS:
        prog += ["try:", "    %s" % expr, "except tf.errors.InvalidArgumentError as e:", "    print(e)"]
        out.append(msg)
    with open(os.path.join(HERE, "programs", "io_decode_raw.tfs"), "w") as f:
        f.write("\n".join(prog) + "\n")
    with open(os.path.join(HERE, "programs", "io_decode_raw.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
