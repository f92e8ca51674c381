#!/usr/bin/python3
# gen_strings_expect.py — writes tests/programs/strings_basic.out from a pure-Python model of TF 2.15's tf.strings kernels.
"""Independent reference for tests/programs/strings_basic.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_strings_expect.py

The model follows TF's kernels (tensorflow/core/kernels/string_*_op.cc, as_string_op.cc, regex_*_op.cc):
strings are bytes; upper/lower map ASCII letters only unless encoding="utf-8"; strip removes ASCII
whitespace; length counts bytes or UTF-8 characters; as_string formats with printf ("%f" by default,
"%e" scientific, width/fill as the printf flags); regex_replace's rewrite \\0 is the whole match (RE2).
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
WS = b" \t\n\x0b\x0c\r"


def asc(b, up):
    return bytes(c - 32 if up and 97 <= c <= 122 else c + 32 if not up and 65 <= c <= 90 else c for c in b)


def m2(x, f):
    return [[f(e) for e in row] for row in x]


def main():
    x = [["héllo".encode(), b" ab \t"], [b"Xy", b""]]
    L = []
    p = lambda *a: L.append(" ".join(repr(v) for v in a))
    p(m2(x, len), m2(x, lambda b: len(b.decode())))
    p(m2(x, lambda b: asc(b, True)), m2(x, lambda b: asc(b, False)))
    p("héllo".upper().encode())
    p(m2(x, lambda b: b.strip(WS)))
    p(m2(x, lambda b: b + b"-!"), b"abc")
    p([b",".join(r) for r in x], b"".join(b for r in x for b in r))
    p([[x[0][0] + x[1][0], x[0][1] + x[1][1]]], [b"".join(r) for r in x])
    p([b"a", b"b", b"c"], b"a,b,,c".split(b","), b"a,b,c".split(b",", 1))
    p([b"a", b"b", b"c"], [c.encode() for c in "hé!"], [ord(c) for c in "hé!"])
    p([s[1:4] for s in [b"Hello", b"World"]], b"Hello"[-3:][:2], "héllo"[1:3].encode())
    rx = re.compile(rb"a(.)")
    p([rx.sub(rb"<\1\g<0>>", s) for s in [b"foo bar", b"baz"]], re.sub(rb"a", b"b", b"aaa", count=1))
    p([re.fullmatch(rb"ab[c]?", s) is not None for s in [b"abc", b"abd", b"ab"]])
    p([1.5, -2.0, 1000.0], [7, -12])
    p([("%f" % v).encode() for v in [1.5, 2.0]], [("%4d" % v).encode() for v in [3, 14]], ("%.2f" % 3.14159).encode())
    p([b"true", b"false"], ("%e" % 0.5).encode(), [("%03d" % 7).encode()])
    p(b"x=[1 2] y=3.5")
    p([len(b" ab"), len(b"cde ")], b"|".join([b" ab".strip(WS), b"cde ".strip(WS)]))
    L.append("NotImplementedError: tf.strings.split of a tensor of rank 1 or more returns a tf.RaggedTensor, which "
             "tfs does not have; apply it to scalars (one string at a time)")
    L.append("InvalidArgumentError: StringToNumberOp could not correctly convert string: x1")
    L.append("InvalidArgumentError: pos 5 out of range for string b'abc' at index 0")
    L.append('InvalidArgumentError: Value for attr \'unit\' of "CHAR" is not in the list of allowed values: "BYTE", '
             '"UTF8_CHAR"')
    L.append("TypeError: Value passed to parameter 'input' has DataType int32 not in list of allowed values: string")
    with open(os.path.join(HERE, "programs", "strings_basic.out"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
