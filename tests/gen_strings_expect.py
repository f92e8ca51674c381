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




# ---- to_hash_bucket_fast: FarmHash's farmhashna Hash64 (TF's Fingerprint64) in Python, on 64-bit wrapping ints ----

M = (1 << 64) - 1
K0, K1, K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def u64(b, i):
    return int.from_bytes(b[i:i + 8], "little")


def u32(b, i):
    return int.from_bytes(b[i:i + 4], "little")


def rot(v, s):
    return v if s == 0 else ((v >> s) | (v << (64 - s))) & M


def smix(v):
    return v ^ (v >> 47)


def h16(u, v, mul):
    a = ((u ^ v) * mul) & M
    a ^= a >> 47
    b = ((v ^ a) * mul) & M
    b ^= b >> 47
    return (b * mul) & M


def fp64(s):
    n = len(s)
    if n <= 16:
        if n >= 8:
            mul = K2 + n * 2
            a = (u64(s, 0) + K2) & M
            b = u64(s, n - 8)
            return h16((rot(b, 37) * mul + a) & M, ((rot(a, 25) + b) * mul) & M, mul)
        if n >= 4:
            return h16(n + (u32(s, 0) << 3), u32(s, n - 4), K2 + n * 2)
        if n > 0:
            y = (s[0] + (s[n >> 1] << 8)) & 0xffffffff
            z = (n + (s[n - 1] << 2)) & 0xffffffff
            return (smix(((y * K2) ^ (z * K0)) & M) * K2) & M
        return K2
    mul = K2 + n * 2
    if n <= 32:
        a, b = (u64(s, 0) * K1) & M, u64(s, 8)
        c, d = (u64(s, n - 8) * mul) & M, (u64(s, n - 16) * K2) & M
        return h16((rot((a + b) & M, 43) + rot(c, 30) + d) & M, (a + rot((b + K2) & M, 18) + c) & M, mul)
    if n <= 64:
        a, b = (u64(s, 0) * K2) & M, u64(s, 8)
        c, d = (u64(s, n - 8) * mul) & M, (u64(s, n - 16) * K2) & M
        y = (rot((a + b) & M, 43) + rot(c, 30) + d) & M
        z = h16(y, (a + rot((b + K2) & M, 18) + c) & M, mul)
        e, f = (u64(s, 16) * mul) & M, u64(s, 24)
        g, h = ((y + u64(s, n - 32)) * mul) & M, ((z + u64(s, n - 24)) * mul) & M
        return h16((rot((e + f) & M, 43) + rot(g, 30) + h) & M, (e + rot((f + a) & M, 18) + g) & M, mul)

    def weak(i, a, b):
        w, x, y, z = u64(s, i), u64(s, i + 8), u64(s, i + 16), u64(s, i + 24)
        a = (a + w) & M
        b = rot((b + a + z) & M, 21)
        c = a
        a = (a + x + y) & M
        b = (b + rot(a, 44)) & M
        return (a + z) & M, (b + c) & M

    seed = 81
    x, y = seed, (seed * K1 + 113) & M
    z = (smix((y * K2 + 113) & M) * K2) & M
    v, w = (0, 0), (0, 0)
    x = (x * K2 + u64(s, 0)) & M
    end = ((n - 1) // 64) * 64
    last = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (rot((x + y + v[0] + u64(s, i + 8)) & M, 37) * K1) & M
        y = (rot((y + v[1] + u64(s, i + 48)) & M, 42) * K1) & M
        x ^= w[1]
        y = (y + v[0] + u64(s, i + 40)) & M
        z = (rot((z + w[0]) & M, 33) * K1) & M
        v = weak(i, (v[1] * K1) & M, (x + w[0]) & M)
        w = weak(i + 32, (z + w[1]) & M, (y + u64(s, i + 16)) & M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xff) << 1)
    i = last
    w = ((w[0] + ((n - 1) & 63)) & M, w[1])
    v = ((v[0] + w[0]) & M, v[1])
    w = ((w[0] + v[0]) & M, w[1])
    x = (rot((x + y + v[0] + u64(s, i + 8)) & M, 37) * mul) & M
    y = (rot((y + v[1] + u64(s, i + 48)) & M, 42) * mul) & M
    x ^= (w[1] * 9) & M
    y = (y + v[0] * 9 + u64(s, i + 40)) & M
    z = (rot((z + w[0]) & M, 33) * mul) & M
    v = weak(i, (v[1] * mul) & M, (x + w[0]) & M)
    w = weak(i + 32, (z + w[1]) & M, (y + u64(s, i + 16)) & M)
    z, x = x, z
    return h16((h16(v[0], w[0], mul) + smix(y) * K0 + z) & M, (h16(v[1], w[1], mul) + x) & M, mul)


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
