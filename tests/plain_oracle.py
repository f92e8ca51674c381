"""plain_oracle.py — the generators of goldens written in plain Python: run tests/programs/NAME.tfs under
/usr/bin/python3 (with Debian's numpy) and write what it prints to NAME.out."""
import contextlib
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name):
    src = os.path.join(HERE, "programs", name + ".tfs")
    buf = io.StringIO()
    with open(src) as fh, contextlib.redirect_stdout(buf):
        exec(compile(fh.read(), src, "exec"), {"__name__": "__main__"})
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as fh:
        fh.write(buf.getvalue())
