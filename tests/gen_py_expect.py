#!/usr/bin/python3
# gen_py_expect.py — writes the expectations of host-only golden programs (py_*.tfs) by running each as Python 3.11.
"""Independent reference for the host-language golden programs.

    /usr/bin/python3 tests/gen_py_expect.py [NAME ...]     # default: every py_*.tfs

Each tests/programs/py_*.tfs program is valid Python 3 that uses no tensors:
its stdout is Python's.  When Python stops with an exception, the program is an
error program: NAME.status is 1 and NAME.err is the docs/errors.md
diagnostic built from Python's traceback -- the exception's "Type: message"
line, the line of the innermost frame in the program, and the column where
Python 3.11's caret marks start (the first non-blank when it marks the whole line).
A SyntaxError (no traceback: Python refused the program before running it) is
tfs's compile-time diagnostic: "NAME.tfs:LINE:COL: error: message", no class.
When the error passed through two frames or more, the diagnostic follows
tfs's traceback ("Traceback (most recent call last):" and one
"  NAME.tfs:LINE in FUNCTION" line per frame of the program, outermost
first), built from Python's last traceback (the one of the exception that
ended the program, after any "direct cause" chain).  A program ended by an
uncaught SystemExit (no traceback) keeps Python's status and stderr as they are.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")


def write(path, data):
    if data is None:
        if os.path.exists(path):
            os.remove(path)
        return
    with open(path, "w") as f:
        f.write(data)


def expect(name):
    src = os.path.join(PROGS, name + ".tfs")
    p = subprocess.run(["/usr/bin/python3", name + ".tfs"], cwd=PROGS, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONHASHSEED="0"))
    write(os.path.join(PROGS, name + ".out"), p.stdout)
    if p.returncode == 0:
        write(os.path.join(PROGS, name + ".err"), None)
        write(os.path.join(PROGS, name + ".status"), None)
        return
    lines = p.stderr.splitlines()
    if "Traceback (most recent call last):" not in p.stderr and lines and lines[-1].startswith("SyntaxError: "):
        # refused before running: tfs reports it as a compile-time error, with no class, where Python's caret starts
        line = int(re.search(r"line (\d+)", lines[0]).group(1))
        with open(src) as f:
            text = f.read().splitlines()[line - 1]
        indent = len(text) - len(text.lstrip())
        col = lines[2].index("^") - 4 + indent + 1
        msg = lines[-1][len("SyntaxError: "):]
        write(os.path.join(PROGS, name + ".err"), "%s.tfs:%d:%d: error: %s\n%s\n%s^\n" % (name, line, col, msg, text, " " * (col - 1)))
        write(os.path.join(PROGS, name + ".status"), "1\n")
        return
    if "Traceback (most recent call last):" not in p.stderr:
        # an uncaught SystemExit: its status, and its message (if any) as Python printed it
        write(os.path.join(PROGS, name + ".err"), p.stderr or None)
        write(os.path.join(PROGS, name + ".status"), "%d\n" % p.returncode)
        return
    lines = p.stderr.splitlines()
    exc = lines[-1]
    last_tb = max(i for i, l in enumerate(lines) if l.startswith("Traceback (most recent call last):")) \
        if any(l.startswith("Traceback (most recent call last):") for l in lines) else 0
    frames = [i for i, l in enumerate(lines) if i >= last_tb and re.match(r'  File ".*%s\.tfs", line \d+' % re.escape(name), l)]
    if not frames:
        sys.exit("%s: no frame in the program:\n%s" % (name, p.stderr))
    i = frames[-1]
    line = int(re.search(r"line (\d+)", lines[i]).group(1))
    with open(src) as f:
        text = f.read().splitlines()[line - 1]
    col = len(text) - len(text.lstrip()) + 1
    if i + 2 < len(lines) and re.match(r"^ +[~^]+$", lines[i + 2]):
        # Python strips the line's indentation and indents it by 4
        shown = lines[i + 1]
        col = lines[i + 2].index(next(c for c in lines[i + 2] if c in "~^")) - 4 + (len(text) - len(text.lstrip())) + 1
        assert shown.strip() == text.strip()
    caret = " " * (col - 1) + "^"
    tb = ""
    if len(frames) >= 2:
        tb = "Traceback (most recent call last):\n"
        for k in frames:
            m = re.search(r'line (\d+), in (.*)$', lines[k])
            tb += "  %s.tfs:%s in %s\n" % (name, m.group(1), m.group(2))
    write(os.path.join(PROGS, name + ".err"), "%s%s.tfs:%d:%d: error: %s\n%s\n%s\n" % (tb, name, line, col, exc, text, caret))
    write(os.path.join(PROGS, name + ".status"), "1\n")


def main():
    names = sys.argv[1:] or sorted(f[:-4] for f in os.listdir(PROGS) if f.startswith("py_") and f.endswith(".tfs"))
    for n in names:
        expect(n)


if __name__ == "__main__":
    main()
