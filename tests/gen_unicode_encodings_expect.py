#!/usr/bin/python3
# gen_unicode_encodings_expect.py — writes tests/programs/strings_unicode_encodings.tfs and .out: tf.strings' Unicode ops in UTF-8, UTF-16-BE, UTF-32-BE and other encodings ICU names, expected values from Python's codecs.
"""Independent reference for tf.strings.unicode_decode(_with_offsets), unicode_encode, unicode_transcode and
unicode_split(_with_offsets) (TensorFlow is not installed here).

    /usr/bin/python3 tests/gen_unicode_encodings_expect.py

Decoding: Python's codecs with 'replace' delimit ill-formed sequences as ICU's converters (which TF's kernels read
with) do for these encodings, so each error span Python reports is one replacement_char (or nothing with 'ignore')
at the span's start offset. Encoding: gen_strings_split_expect.encode, TF's UnicodeEncode (icu::UnicodeString's
append, then UTF-8 / UTF-16-BE / UTF-32-BE code units).
"""
import codecs
import os
import random

from gen_strings_split_expect import encode

HERE = os.path.dirname(os.path.abspath(__file__))
PY = {"UTF-8": "utf-8", "utf-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be", "ISO-8859-1": "latin-1",
      "UTF-16LE": "utf-16-le"}
MARK = "\U0010FFFD"   # stands for an error span while decoding (no input holds it)
SPANS = []


def _mark(e):
    SPANS.append(e.end - e.start)
    return MARK, e.end


codecs.register_error("tfgap_mark", _mark)


def decode(b, enc, errors="replace", repl=0xFFFD, ctrl=False):
    """(code points, byte offsets) TF's UnicodeDecodeWithOffsets gives"""
    SPANS.clear()
    text = b.decode(PY[enc], "tfgap_mark")
    spans = iter(list(SPANS))
    cps, offs, at = [], [], 0
    for ch in text:
        n = next(spans) if ch == MARK else len(ch.encode(PY[enc]))
        v = None if ch == MARK else ord(ch)
        if v is None or (ctrl and v <= 0x1F):
            if errors == "ignore":
                at += n
                continue
            v = repl
        cps.append(v)
        offs.append(at)
        at += n
    assert "".join(chr(0xFFFD) if c == MARK else c for c in text) == b.decode(PY[enc], "replace")
    return cps, offs


def well_formed(b, enc):
    try:
        b.decode(PY[enc])
        return True
    except UnicodeDecodeError:
        return False


OUT = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}

PIECES = {
    "UTF-8": [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"a", b"\x01", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
              b"\xed\xa0\x80", b"\xc0\xaf", b"\xf5\x80", b"\xff", b"\xe0\x80\x80", b"\xf4\x90\x80\x80"],
    "UTF-16-BE": [b"\x00a", b"\x00\xe9", b"\xd8\x3d\xde\x00", b"\xd8\x3d", b"\xde\x00", b"\x00", b"\xff\xfe",
                  b"\xdb\xff\xdf\xff", b"\x00\x01"],
    "UTF-32-BE": [b"\x00\x00\x00a", b"\x00\x01\xf6\x00", b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00", b"\x00\x00", b"\x00",
                  b"\xff\xff\xff\xff", b"\x00\x10\xff\xff", b"\x00\x00\x00\x01"],
    "UTF-16LE": [b"a\x00", b"\xe9\x00", b"\x3d\xd8\x00\xde", b"\x3d\xd8", b"\x00"],
    "ISO-8859-1": [b"a", b"\xe9", b"\xff", b"\x01"],
}


def main():
    r = random.Random(31)
    src = ["import tensorflow as tf", "", "",
           "def show(x):",
           "    print(x.to_list() if isinstance(x, tf.RaggedTensor) else x.numpy().tolist())", "", ""]
    out = []
    # decode, with offsets, in each encoding and error mode: one rank-1 tensor of strings a line
    for enc, ps in PIECES.items():
        strs = [b"".join(r.choice(ps) for _ in range(r.randint(0, 5))) for _ in range(6)]
        src.append("s = tf.constant(%r)" % strs)
        for errors in ("replace", "ignore"):
            for ctrl, repl in ((False, 0xFFFD), (True, 63)):
                src.append("cps, offs = tf.strings.unicode_decode_with_offsets(s, %r, errors=%r, replacement_char=%d, "
                           "replace_control_characters=%r)" % (enc, errors, repl, ctrl))
                src.append("show(cps)")
                src.append("show(offs)")
                res = [decode(b, enc, errors, repl, ctrl) for b in strs]
                out += [repr([c for c, _ in res]), repr([o for _, o in res])]
        src.append("show(tf.strings.unicode_decode(s[0], %r))" % enc)
        out.append(repr(decode(strs[0], enc)[0]))
        good = [b for b in strs if well_formed(b, enc)]
        if good:   # strict on well-formed strings; on a control character too (replaced, no error)
            src.append("show(tf.strings.unicode_decode(%r, %r, errors='strict', replace_control_characters=True))" % (good, enc))
            out.append(repr([decode(b, enc, ctrl=True)[0] for b in good]))
    # encode into each output encoding: ragged rows of code points, some no Unicode character
    rows = [[104, 233, 0x1F600], [], [0xFDD0, 65, 0xD800, 0xDC00], [-1, 0x110000, 0x10FFFF], [0xD83D, 0xDE00, 0xFFFE]]
    src.append("rows = tf.ragged.constant(%r, dtype=tf.int32)" % rows)
    for enc in OUT:
        for errors in ("replace", "ignore"):
            src.append("show(tf.strings.unicode_encode(rows, %r, errors=%r, replacement_char=%d))" % (enc, errors, 0xD800 if errors == "ignore" else 63))
            out.append(repr([encode(row, errors, 0xD800 if errors == "ignore" else 63, OUT[enc]) for row in rows]))
        src.append("show(tf.strings.unicode_encode(tf.constant([[72, 105], [0x1F600, 33]]), %r))" % enc)
        out.append(repr([encode([72, 105], codec=OUT[enc]), encode([0x1F600, 33], codec=OUT[enc])]))
    # transcode: decode as above, then encode; shape kept
    words = ["héllo", "😀 ok", "a\x01b", ""]
    for ienc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        data = [w.encode(PY[ienc]) for w in words]
        bad = data[:2] + [data[2] + data[1][:1]]   # a truncated character at the end
        for oenc in OUT:
            src.append("show(tf.strings.unicode_transcode(tf.constant(%r), %r, %r))" % ([data[:2], data[2:]], ienc, oenc))
            out.append(repr([[encode(decode(b, ienc)[0], codec=OUT[oenc]) for b in row] for row in (data[:2], data[2:])]))
            src.append("show(tf.strings.unicode_transcode(tf.constant(%r), %r, %r, errors='ignore', "
                       "replace_control_characters=True))" % (bad, ienc, oenc))
            out.append(repr([encode(decode(b, ienc, "ignore", ctrl=True)[0], codec=OUT[oenc]) for b in bad]))
            src.append("show(tf.strings.unicode_transcode(tf.constant(%r), %r, %r, replacement_char=42))" % (bad, ienc, oenc))
            out.append(repr([encode(decode(b, ienc, repl=42)[0], codec=OUT[oenc]) for b in bad]))
    src.append("show(tf.function(lambda x: tf.strings.unicode_transcode(x, 'UTF-8', 'UTF-16-BE'))(tf.constant(%r)))"
               % [w.encode() for w in words])
    out.append(repr([encode(decode(w.encode(), "UTF-8")[0], codec="utf-16-be") for w in words]))
    # unicode_split(_with_offsets): one string per character, in input_encoding
    for enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        data = [w.encode(PY[enc]) for w in words] + [b"\x00"]
        src.append("chars, offs = tf.strings.unicode_split_with_offsets(tf.constant(%r), %r)" % (data, enc))
        src.append("show(chars)")
        src.append("show(offs)")
        res = [decode(b, enc) for b in data]
        out.append(repr([[encode([c], codec=OUT[enc]) for c in cps] for cps, _ in res]))
        out.append(repr([offs for _, offs in res]))
        src.append("show(tf.strings.unicode_split(%r, %r))" % (data[1], enc))
        out.append(repr([encode([c], codec=OUT[enc]) for c in decode(data[1], enc)[0]]))
    # errors, with TF's texts
    src += ["", "",
            "def fails(f):",
            "    try:",
            "        f()",
            "        print('no error')",
            "    except Exception as e:",
            "        print(f\"{type(e).__name__}: {str(e).split(' [Op:')[0]}\")",
            "", ""]
    errs = [
        ("tf.strings.unicode_decode('x', 'no-such-encoding')", "InvalidArgumentError: Could not create converter for input encoding: no-such-encoding"),
        ("tf.strings.unicode_decode(b'\\x00a\\x00', 'UTF-16-BE', errors='strict')", "InvalidArgumentError: Invalid formatting on input string"),
        ("tf.strings.unicode_decode(b'\\x00\\x00\\xd8\\x00', 'UTF-32-BE', errors='strict')", "InvalidArgumentError: Invalid formatting on input string"),
        ("tf.strings.unicode_transcode(['a', 'b\\x01'], 'UTF-8', 'UTF-32-BE', errors='strict', replace_control_characters=True)",
         "InvalidArgumentError: Invalid formatting on input string"),
        ("tf.strings.unicode_encode([65], 'UTF-16-LE')",
         "InvalidArgumentError: Value for attr 'output_encoding' of \"UTF-16-LE\" is not in the list of allowed values: "
         "\"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\""),
        ("tf.strings.unicode_split(b'\\xe9', 'ISO-8859-1')",
         "InvalidArgumentError: Value for attr 'output_encoding' of \"ISO-8859-1\" is not in the list of allowed values: "
         "\"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\""),
        ("tf.strings.unicode_encode([0xDFFF], 'UTF-16-BE', errors='strict')",
         "InvalidArgumentError: Code point is out of range for Unicode, or a noncharacter."),
        ("tf.strings.unicode_transcode('a', 'UTF-8', 'UTF-8', replacement_char=0x110000)",
         "InvalidArgumentError: replacement_char out of unicode codepoint range"),
        ("tf.strings.unicode_transcode('a', 'UTF-8', 'UTF-8', errors='loud')",
         "InvalidArgumentError: Value for attr 'errors' of \"loud\" is not in the list of allowed values: \"strict\", "
         "\"replace\", \"ignore\""),
    ]
    for code, msg in errs:
        src.append("fails(lambda: %s)" % code)
        out.append(msg)
    with open(os.path.join(HERE, "programs", "strings_unicode_encodings.tfs"), "w") as f:
        f.write("# strings_unicode_encodings.tfs — tf.strings' Unicode ops in UTF-8, UTF-16-BE, UTF-32-BE, UTF-16LE and "
                "ISO-8859-1 (generated by tests/gen_unicode_encodings_expect.py)\n" + "\n".join(src) + "\n")
    with open(os.path.join(HERE, "programs", "strings_unicode_encodings.out"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
