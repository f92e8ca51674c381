#!/usr/bin/python3
# gen_strings_split_expect.py — writes tests/programs/strings_graph_split.out (and .eager.out) and tests/savedmodel/sm_strsplit_*.out from a pure-Python model of TF 2.15's string kernels (StringSplitV2, StringSplit, UnicodeDecode/Encode, ReduceJoin, UnsortedSegmentJoin, StringFormat, StringToHashBucketFast, RegexReplace).
"""Independent reference for tests/programs/strings_graph_split.tfs (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_strings_split_expect.py

The model follows TF's kernels (tensorflow/core/kernels/string_split_op.cc, unicode_ops.cc, reduce_join_op.cc,
unsorted_segment_join_op.cc (the separator only after a non-empty part),
string_format_op.cc with Tensor::SummarizeValue(summarize, print_v2=true), string_to_hash_bucket_op.cc):
StringSplitV2 is Python's str.split but for maxsplit (0 keeps the string whole; after k splits the rest follows,
even empty); StringSplit with an empty delimiter gives the bytes; UTF-8 decoding replaces each maximal ill-formed
subpart (Python's own 'replace' decoding, checked against it below); encoding replaces what ICU's U_IS_UNICODE_CHAR
refuses (surrogates, noncharacters, out of range), or with 'ignore' appends it as ICU's UnicodeString does.
"""
import os
import re

from hash_oracle import fp64

HERE = os.path.dirname(os.path.abspath(__file__))
WS = b" \t\n\x0b\x0c\r"


def split_v2(s, sep, maxsplit):
    if maxsplit == 0:
        return [s]
    if sep:
        return s.split(sep, maxsplit) if maxsplit > 0 else s.split(sep)
    out, rest = [], s.lstrip(WS)
    while rest:
        k = 0
        while k < len(rest) and rest[k] not in WS:
            k += 1
        out.append(rest[:k])
        rest = rest[k:].lstrip(WS)
        if maxsplit > 0 and len(out) == maxsplit:
            out.append(rest)
            break
    return out


def utf8_chars(b):
    """[(code point or None for an ill-formed subpart, byte offset)] of b, by Unicode's maximal-subpart rule."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append((c, i))
            i += 1
            continue
        need, lo, hi = ((1, 0x80, 0xBF) if 0xC2 <= c <= 0xDF else (2, 0xA0 if c == 0xE0 else 0x80, 0x9F if c == 0xED else 0xBF)
                        if 0xE0 <= c <= 0xEF else (3, 0x90 if c == 0xF0 else 0x80, 0x8F if c == 0xF4 else 0xBF)
                        if 0xF0 <= c <= 0xF4 else (0, 0, 0))
        k = 1
        while k <= need and i + k < len(b) and (lo if k == 1 else 0x80) <= b[i + k] <= (hi if k == 1 else 0xBF):
            k += 1
        if need and k == need + 1:
            out.append((ord(b[i:i + k].decode()), i))
        else:
            out.append((None, i))
        i += k
    # the same characters Python's own decoder gives
    assert "".join(chr(0xFFFD) if v is None else chr(v) for v, _ in out) == b.decode("utf-8", "replace")
    return out


def decode(b, errors="replace", repl=0xFFFD, ctrl=False):
    cps, offs = [], []
    for v, o in utf8_chars(b):
        if v is None or (ctrl and v < 0x20):   # a control character to replace: replaced or dropped, never an error
            if errors == "ignore":
                continue
            v = repl
        cps.append(v)
        offs.append(o)
    return cps, offs


def unicode_char(v):
    if v < 0 or v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
        return False
    return not (v >= 0xFDD0 and (v <= 0xFDEF or (v & 0xFFFE) == 0xFFFE))


def encode(cps, errors="replace", repl=0xFFFD, codec="utf-8"):
    """TF's UnicodeEncode: a value that is no Unicode character becomes repl, or with 'ignore' is appended as it is
    (icu::UnicodeString's append: a noncharacter stays, a surrogate is one UTF-16 unit, a value outside 0..U+10FFFF is
    dropped); the UTF-16 string is then written as UTF-8 (an unpaired surrogate as U+FFFD), UTF-16-BE or UTF-32-BE."""
    units = b""
    for v in cps:
        if not unicode_char(v):
            if errors != "ignore":
                v = repl
            elif v < 0 or v > 0x10FFFF:
                continue
        units += v.to_bytes(2, "big") if v <= 0xFFFF else chr(v).encode("utf-16-be")
    if codec == "utf-16-be":
        return units
    text = units.decode("utf-16-be", "surrogatepass")
    if codec == "utf-32-be":
        return b"".join(ord(c).to_bytes(4, "big") for c in text)   # a lone surrogate as its own value
    return units.decode("utf-16-be", "replace").encode()


def segment_join(parts, sep):
    """UnsortedSegmentJoin of one segment: TF appends sep only once the output is non-empty."""
    out = b""
    for p in parts:
        out += (sep if out else b"") + p
    return out


def tf_value(v):
    if isinstance(v, bytes):
        return '"' + "".join({"\n": "\\n", '"': '\\"', "'": "\\'", "\\": "\\\\"}.get(c, c) for c in v.decode()) + '"'
    if isinstance(v, float):
        return "%g" % v
    return str(v)


def summarize(v, n):
    """TF's SummarizeValue(n, print_v2=true) of a nested list v: n items at each end of a longer dimension."""
    if not isinstance(v, list):
        return tf_value(v)
    items = [summarize(e, n) for e in v]
    if 0 <= n < len(v) and len(v) > 2 * n:
        items = items[:n] + ["..."] + items[-n:]
    sep = "\n " if v and isinstance(v[0], list) else " "
    return "[" + sep.join(items) + "]"


def main():
    x = [" hello  wörld ".encode(), b"a b c", b"", "😊 ok".encode()]
    m = [[b"a-b", b"c"], [b"--d", b"e-"]]
    rw, raw = b"[\\0]", [b"a\xffb\x01", b"\xe2\x82x\xf0\x9f\x98\x8a"]
    rg = [[b"a", b"", b"b"], [], [b"", b"c"], [b"d"]]
    lines = [
        [split_v2(s, b"", -1) for s in x], [split_v2(s, b" ", 1) for s in x], [split_v2(s, b"", 1) for s in x],
        [split_v2(s, b"", 0) for s in x], split_v2(x[0], b"", -1), [[split_v2(s, b"-", -1) for s in r] for r in m],
        [[s[i:i + 1] for i in range(len(s))] for s in x], [x[1][i:i + 1] for i in range(len(x[1]))],
        [[[s[i:i + 1] for i in range(len(s))] for s in r] for r in m],
        [[c.encode() for c in s.decode()] for s in x], [c.encode() for c in x[3].decode()],
        [decode(s)[0] for s in x], [[decode(s)[0] for s in r] for r in m],
        [decode(s)[0] for s in raw], [decode(s, "ignore")[0] for s in raw], [decode(s, repl=63, ctrl=True)[0] for s in raw],
        [decode(s, "ignore", ctrl=True)[0] for s in raw],
        [decode(s)[0] for s in raw], [decode(s)[1] for s in raw],
        [encode(decode(s)[0]) for s in x], [encode([104, 105]), encode([-5, 1114112])],
        encode([65, 0xFFFE, 0xD800], "ignore"),
        b"".join(b"".join(r) for r in m), [b"+".join(c) for c in zip(*m)], [[b",".join(r)] for r in m],
        [segment_join(r, b",") for r in rg], [[segment_join(r, b"")] for r in rg],
        ("m=%s rw=%s n=%s" % (summarize(m, 3), summarize(rw, 3), summarize([[1, -2], [3, 4]], 3))).encode(),
        ("%s: %s" % (summarize(list(range(10)), 2), summarize(2.5, 2))).encode(),
        [fp64(s) % 1000 for s in x], [[fp64(s) % 7 for s in r] for r in m],
        [re.sub(rb"[lo]+", b"#", s) for s in x], [re.sub(rb"[lo]+", lambda g: b"[" + g.group(0) + b"]", s, count=1) for s in x],
    ]
    out = [repr(v) for v in lines]
    out += [
        "InvalidArgumentError: Invalid formatting on input string",
        'InvalidArgumentError: Value for attr \'errors\' of "loud" is not in the list of allowed values: "strict", '
        '"replace", "ignore"',
        "InvalidArgumentError: Code point is out of range for Unicode, or a noncharacter.",
        "InvalidArgumentError: replacement_char out of unicode codepoint range",
        "InvalidArgumentError: Value for attr 'num_buckets' of 0 must be at least minimum 1",
        "InvalidArgumentError: Invalid reduction dimension 2 for input with 2 dimensions.",
        "InvalidArgumentError: Duplicate reduction dimension 1",
        "ValueError: num placeholders in template and num inputs must match: 2 vs 1",
        "InvalidArgumentError: Pattern must be scalar, but received [2]",
        # raised in a graph: tfs names the node and function as TF's [[{{node ...}}]] suffix does
        "InvalidArgumentError: Invalid formatting on input string (node UnicodeDecode in tf.function '<lambda>')",
    ]
    with open(os.path.join(HERE, "programs", "strings_graph_split.out"), "w") as f:
        f.write("\n".join(out) + "\n")
    # tfs run --eager runs the tf.function's body eagerly: the error has no node
    with open(os.path.join(HERE, "programs", "strings_graph_split.eager.out"), "w") as f:
        f.write("\n".join(out[:-1] + ["InvalidArgumentError: Invalid formatting on input string"]) + "\n")


def saved_expect():
    """tests/savedmodel/sm_strsplit_{save,load}.out: the saved function's outputs for each input."""

    def run(xs, pat):
        x = [e.encode() for e in xs]
        words = [split_v2(s, b"", -1) for s in x]
        dec = [decode(s) for s in x]
        splits = lambda rows: [sum(len(r) for r in rows[:i]) for i in range(len(rows) + 1)]
        out = {"buckets": [fp64(s) % 100 for s in x], "byte_splits": splits(x),
               "chars": [c.encode() for e in xs for c in e], "codes": [c for d in dec for c in d[0]],
               "offsets": [o for d in dec for o in d[1]], "encoded": [encode(d[0]) for d in dec],
               "format": ("%s / %s" % (summarize(x, 3), summarize([len(x)], 3))).encode(),
               "joined": b"_".join(w for ws in words for w in ws), "replaced": [re.sub(pat, b"*", s) for s in x],
               "word_splits": splits(words), "words": [w for ws in words for w in ws]}
        return ["%s %r" % (k, out[k]) for k in sorted(out)]

    first = run(["ab cd", "é f"], rb"[a-d]")
    with open(os.path.join(HERE, "savedmodel", "sm_strsplit_save.out"), "w") as f:
        f.write("\n".join(first + ["saved"]) + "\n")
    with open(os.path.join(HERE, "savedmodel", "sm_strsplit_load.out"), "w") as f:
        f.write("\n".join(first + run(["  x  ", "", "ü v w"], rb"\s")) + "\n")


if __name__ == "__main__":
    main()
    saved_expect()
