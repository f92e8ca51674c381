#!/usr/bin/python3
"""gen_bigint.py — writes tests/programs/bigint.out by running bigint.tfs (plain Python) under
/usr/bin/python3: Python's own ints are the oracle.

    /usr/bin/python3 tests/gen_bigint.py
"""
import contextlib
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(HERE, "programs", "bigint.tfs")
buf = io.StringIO()
with open(src) as fh, contextlib.redirect_stdout(buf):
    exec(compile(fh.read(), src, "exec"), {"__name__": "__main__"})
with open(os.path.join(HERE, "programs", "bigint.out"), "w") as fh:
    fh.write(buf.getvalue())
