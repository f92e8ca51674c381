"""plain_oracle.py — the generators of goldens written in plain Python: run tests/programs/NAME.tfs under
/usr/bin/python3 (with Debian's numpy) and write what it prints to NAME.out (and its warnings to NAME.err)."""
import contextlib
import io
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def _program_line_warn(fname):
    # tfs shows a warning that numpy raises from inside its own files (nanmedian, nanstd, histogram's 'stone') at the
    # program's line that called numpy: such a warning is re-issued at the innermost frame of the program
    orig = warnings.warn

    def warn(message, category=None, stacklevel=1, source=None):
        f = sys._getframe(1)
        for _ in range(stacklevel - 1):
            f = f.f_back or f
        if f.f_code.co_filename == fname:
            return orig(message, category, stacklevel + 1, source)
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename != fname:
            f = f.f_back
        if f is None:
            return orig(message, category, stacklevel + 1, source)
        if isinstance(message, Warning):
            category = message.__class__
        warnings.warn_explicit(message, category or UserWarning, fname, f.f_lineno,
                               registry=f.f_globals.setdefault("__warningregistry__", {}), module_globals=f.f_globals)
    return orig, warn


def write(name, warnings=False):
    # warnings: run in tests/programs under the file's own name, as golden.py runs tfs, and keep stderr (Python's
    # warnings name the file and show its line) as NAME.err
    src = os.path.join(HERE, "programs", name + ".tfs")
    buf = io.StringIO()
    err = io.StringIO()
    cwd = os.getcwd()
    fname = name + ".tfs" if warnings else src
    orig, shim = _program_line_warn(fname)
    if warnings:
        os.chdir(os.path.join(HERE, "programs"))
        sys.modules["warnings"].warn = shim
    try:
        with open(src) as fh, contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            exec(compile(fh.read(), fname, "exec"), {"__name__": "__main__"})
    finally:
        os.chdir(cwd)
        sys.modules["warnings"].warn = orig
    with open(os.path.join(HERE, "programs", name + ".out"), "w") as fh:
        fh.write(buf.getvalue())
    if warnings:
        with open(os.path.join(HERE, "programs", name + ".err"), "w") as fh:
            fh.write(err.getvalue())
