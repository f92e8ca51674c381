#!/usr/bin/python3
"""gen_np_random_legacy.py — writes tests/programs/np_random_legacy.out by running np_random_legacy.tfs (plain Python) under
/usr/bin/python3 with Debian's python3-numpy 1.24: numpy's own RandomState is the oracle.

    /usr/bin/python3 tests/gen_np_random_legacy.py
"""
import contextlib
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(HERE, "programs", "np_random_legacy.tfs")
buf = io.StringIO()
with open(src) as fh, contextlib.redirect_stdout(buf):
    exec(compile(fh.read(), src, "exec"), {"__name__": "__main__"})
with open(os.path.join(HERE, "programs", "np_random_legacy.out"), "w") as fh:
    fh.write(buf.getvalue())
