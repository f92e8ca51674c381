"""plain_oracle.py — the generators of goldens written in plain Python: run tests/programs/NAME.tfs under
/usr/bin/python3 (with Debian's numpy) and write what it prints to NAME.out (and its warnings to NAME.err)."""
import contextlib
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, warnings=False):
    # warnings: run in tests/programs under the file's own name, as golden.py runs tfs, and keep stderr (Python's
    # warnings name the file and show its line) as NAME.err
    src = os.path.join(HERE, "programs", name + ".tfs")
    buf = io.StringIO()
    err = io.StringIO()
    cwd = os.getcwd()
    if warnings:
        os.chdir(os.path.join(HERE, "programs"))
    try:
        with open(src) as fh, contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            exec(compile(fh.read(), name + ".tfs" if warnings else src, "exec"), {"__name__": "__main__"})
    finally:
        os.chdir(cwd)
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as fh:
        fh.write(buf.getvalue())
    if warnings:
        with open(os.path.join(HERE, "programs", name + ".err"), "w") as fh:
            fh.write(err.getvalue())
