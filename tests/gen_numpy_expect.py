#!/usr/bin/python3
# gen_numpy_expect.py — writes the expectations of the numpy golden programs (np_*.tfs) by running each under Python 3 + numpy.
"""Independent reference for `import numpy as np` programs.

    /usr/bin/python3 tests/gen_numpy_expect.py [NAME ...]     # default: every np_*.tfs

Each tests/programs/np_*.tfs program is valid Python 3 that imports numpy and
uses no tensors: its stdout under Debian's python3-numpy (1.24) is the expected
output.  Errors are caught and printed inside the programs, so every program
exits 0; a program that fails under Python is a bug in the program -- except
np_err_*.tfs, which end with an uncaught numpy error: their .err/.status are
built from Python's traceback by gen_py_expect.py.  np_tf_*.tfs programs also
`import tensorflow as tf` for .numpy() of tensors: tests/npshim/tensorflow.py
stands in for it (numpy's value of the tensor, as EagerTensor.numpy()).  NAME.args
gives the arguments, as for tests/golden.py (@TMPDIR@: a private directory).
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")


def expect(name):
    args = []
    argf = os.path.join(PROGS, name + ".args")
    with tempfile.TemporaryDirectory() as tmp:
        if os.path.exists(argf):   # as tests/golden.py: @TMPDIR@ is a private directory for the files it writes
            with open(argf) as f:
                args = [l.rstrip("\n").replace("@TMPDIR@", tmp) for l in f]
        p = subprocess.run(["/usr/bin/python3", name + ".tfs"] + args, cwd=PROGS, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.path.join(HERE, "npshim")))
    if p.returncode != 0:
        sys.exit("%s failed under python3:\n%s" % (name, p.stderr))
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write(p.stdout)


def main():
    names = sys.argv[1:] or sorted(f[:-4] for f in os.listdir(PROGS) if f.startswith("np_") and f.endswith(".tfs"))
    for n in names:
        if n.startswith("np_err_"):   # error programs: .out/.err/.status as gen_py_expect.py writes them
            sys.path.insert(0, HERE)
            import gen_py_expect
            gen_py_expect.expect(n)
        else:
            expect(n)


if __name__ == "__main__":
    main()
