#!/usr/bin/python3
# gen_strings_expect.py — writes tests/programs/strings_basic.out, strings_hash.out, strings_graph_ops.out and tests/savedmodel/sm_strings_*.out from a pure-Python model of TF 2.15's tf.strings kernels.
"""Independent reference for tests/programs/strings_basic.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_strings_expect.py

The model follows TF's kernels (tensorflow/core/kernels/string_*_op.cc, as_string_op.cc, regex_*_op.cc):
strings are bytes; upper/lower map ASCII letters only unless encoding="utf-8"; strip removes ASCII
whitespace; length counts bytes or UTF-8 characters; as_string formats with printf ("%f" by default,
"%e" scientific, width/fill as the printf flags); regex_replace's rewrite \\0 is the whole match (RE2).
"""
import os
import re

from hash_oracle import fp64

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
    L.append("InvalidArgumentError: StringToNumberOp could not correctly convert string: x1")
    L.append("InvalidArgumentError: pos 5 out of range for string b'abc' at index 0")
    L.append('InvalidArgumentError: Value for attr \'unit\' of "CHAR" is not in the list of allowed values: "BYTE", '
             '"UTF8_CHAR"')
    L.append("TypeError: Value passed to parameter 'input' has DataType int32 not in list of allowed values: string")
    with open(os.path.join(HERE, "programs", "strings_basic.out"), "w") as f:
        f.write("\n".join(L) + "\n")




def hash_expect():
    # TF's docstring: to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) is [0, 2, 2]
    assert [fp64(s) % 3 for s in [b"Hello", b"TensorFlow", b"2.x"]] == [0, 2, 2]
    words = ["", "a", "ab", "abc", "abcd", "hello wo", "TensorFlow 2.15!", "x" * 17, "y" * 33, "z" * 64,
             "The quick brown fox jumps over the lazy dog, " * 3, "é" * 70, "0123456789" * 20]
    big = (1 << 63) - 1
    L = [repr([fp64(s) % 3 for s in [b"Hello", b"TensorFlow", b"2.x"]]),
         repr([fp64(w.encode()) % big for w in words]),
         repr([fp64(w.encode()) % 1000 for w in words])]
    with open(os.path.join(HERE, "programs", "strings_hash.out"), "w") as f:
        f.write("\n".join(L) + "\n")


def saved_expect():
    # tests/savedmodel/sm_strings_save.tfs's function (TF's string graph ops), printed as TF prints tensors
    import numpy as np

    def show(a, dt):
        a = np.array(a, dtype=object if dt == "string" else {"int32": np.int32, "float64": np.float64,
                                                              "bool": np.bool_}[dt])
        if dt == "string":
            a = a.astype(bytes)
        return "tf.Tensor(%s, shape=(%d,), dtype=%s)" % (np.array2string(a, separator=" "), len(a), dt)

    def run(xs):
        b = [x.encode() for x in xs]
        digits = [re.sub(rb"[^0-9.]", b"", e) for e in b]
        return {"upper": show([asc(e, True) for e in b], "string"), "lower": show([asc(e, False) for e in b], "string"),
                "bytes": show([len(e) for e in b], "int32"), "chars": show([len(x) for x in xs], "int32"),
                "strip": show([e.strip(WS) for e in b], "string"),
                "vowels": show([re.sub("([aeiouö])", r"<\1>", x).encode() for x in xs], "string"),
                "first": show([re.sub(rb"[a-z]", b"_", e, count=1) for e in b], "string"),
                "word": show([re.fullmatch(rb"[A-Za-z]+ [0-9.]+", e.strip(WS)) is not None for e in b], "bool"),
                "number": show([float(d) for d in digits], "float64"), "int": show([int(re.sub(rb"[.].*", b"", d)) for d in digits], "int32"),
                "joined": show([b"-".join([e, b"!", d]) for e, d in zip(b, digits)], "string"),
                "sub": show([x[1:4].encode() for x in xs], "string"), "tail": show([e[-3:][:2] for e in b], "string"),
                "text": show([("%07.2f" % float(d)).encode() for d in digits], "string")}

    out = run([" Hello 1 ", "wörld 42", "ABC 7.5"])
    lines = ["%s %s" % (k, out[k]) for k in sorted(out)]
    with open(os.path.join(HERE, "savedmodel", "sm_strings_save.out"), "w") as f:
        f.write("\n".join(lines + ["saved"]) + "\n")
    again = run(["x 3", "  Ünï 10", "qq9"])
    with open(os.path.join(HERE, "programs", "strings_graph_ops.out"), "w") as f:
        raw = [b"\xffab", b"c\xe9"]
        f.write("\n".join(lines + ["%s %s" % (k, again[k]) for k in sorted(again)] + [" ".join([
            show([asc(e, True) for e in raw], "string"), show([sum((c & 0xC0) != 0x80 for c in e) for e in raw], "int32"),
            show([e[1:2] for e in raw], "string")])]) + "\n")
    with open(os.path.join(HERE, "savedmodel", "sm_strings_load.out"), "w") as f:
        f.write("\n".join(lines + [" ".join([again["upper"], again["chars"], again["vowels"]])]) + "\n")


if __name__ == "__main__":
    main()
    hash_expect()
    saved_expect()
