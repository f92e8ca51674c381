#!/usr/bin/python3
# pygaps.py — lists the public attributes of Python 3.11's builtin types that tfs lacks.
"""For each builtin type, the names dir(T) shows without a leading '_' that a
generated .tfs program cannot find with hasattr(T, name) or hasattr(value, name).

    /usr/bin/python3 scripts/pygaps.py [path/to/tfs]     # default: build/compiler/tfs
"""
import os
import subprocess
import sys
import tempfile

TYPES = ["str", "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset", "int", "float",
         "complex", "bool", "range", "slice", "memoryview", "object", "type"]
SAMPLE = {"str": "'a'", "bytes": "b'a'", "bytearray": "bytearray(b'a')", "list": "[1]", "tuple": "(1,)",
          "dict": "{1: 2}", "set": "{1}", "frozenset": "frozenset({1})", "int": "7", "float": "1.5",
          "complex": "1j", "bool": "True", "range": "range(3)", "slice": "slice(1)", "memoryview": "memoryview(b'a')",
          "object": "object()",
          "type": "int"}
EXTRA = {"type": ["__mro__", "__bases__", "__base__", "__name__"]}   # dunders the issue names


def run(tfs, text):
    with tempfile.NamedTemporaryFile("w", suffix=".tfs", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([tfs, "run", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def main():
    tfs = sys.argv[1] if len(sys.argv) > 1 else "build/compiler/tfs"
    lines, want = [], {}
    known = [t for t in TYPES if run(tfs, "print(%s)\n" % t).returncode == 0]   # an unknown name fails to compile
    for t in TYPES:
        if t not in known:
            want[t] = ["(the type itself)"]
            continue
        names = [n for n in dir(eval(t)) if not n.startswith("_")] + EXTRA.get(t, [])
        want[t] = names
        for n in names:
            lines.append("print(%r, %r, hasattr(%s, %r), hasattr(%s, %r))" % (t, n, t, n, SAMPLE[t], n))
    p = run(tfs, "\n".join(lines) + "\n")
    if p.returncode:
        sys.exit("tfs failed:\n" + p.stderr)
    have = {}
    for line in p.stdout.splitlines():
        t, n, on_type, on_value = line.split(" ")
        have[(t, n)] = (on_type == "True", on_value == "True")
    total = 0
    for t in TYPES:   # 'name' missing everywhere; 'name(type)' found on values but not on the type object
        miss = [n if not have.get((t, n), (0, 0))[1] else n + "(type)" for n in want[t] if not all(have.get((t, n), (0, 0)))]
        total += len(miss)
        print("%-10s %2d/%2d missing: %s" % (t, len(miss), len(want[t]), " ".join(miss) or "-"))
    print("total missing:", total, "  (NAME(type): the value has it, the type object does not)")


if __name__ == "__main__":
    main()
