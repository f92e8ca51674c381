#!/usr/bin/python3
"""gen_np_same_file.py — writes tests/programs/NAME.out for each NAME given by running NAME.tfs (plain Python) under
/usr/bin/python3 with Debian's python3-numpy 1.24: numpy itself is the oracle.

    /usr/bin/python3 tests/gen_np_same_file.py np_object
"""
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for name in sys.argv[1:]:
    src = os.path.join(HERE, "programs", name + ".tfs")
    out = io.StringIO()
    with open(src) as fh, contextlib.redirect_stdout(out):
        exec(compile(fh.read(), src, "exec"), {"__name__": "__main__"})
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as fh:
        fh.write(out.getvalue())
