#!/usr/bin/env python3
"""roundtrip.py — `tfsc --to-code` over every golden program: the output runs with the same results (not with --convert-only), and converting it again changes nothing.

usage: roundtrip.py TFS TFSC DIR [--convert-only] [--every N]"""
import os
import shutil
import subprocess
import sys
import tempfile

import golden


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def one(tfs, tfsc, src, tmp, name, convert_only=False):
    """Converts, reconverts and (unless convert_only) runs one program; returns (checked, failure report or None)."""
    status_file = os.path.join(src, name + ".status")
    want_status = int(open(status_file).read().strip()) if os.path.exists(status_file) else 0
    rc, conv, err = run([tfsc, "--to-code", name + ".tfs"], tmp)
    if rc != 0:
        if want_status != 0:
            return False, None  # a program rejected at compile time has nothing to convert
        return False, "FAIL %s: --to-code exited %s\n%s" % (name, rc, err.decode())
    conv_path = os.path.join(tmp, "conv_" + name + ".tfs")
    with open(conv_path, "wb") as f:
        f.write(conv)
    rc2, conv2, err2 = run([tfsc, "--to-code", conv_path], tmp)
    if rc2 != 0 or conv2 != conv:
        return True, "FAIL %s: converting the converted program changed it (status %s)\n%s" % (name, rc2, err2.decode())
    if convert_only:
        return True, None
    want = golden.expected_out(os.path.join(src, name))
    args_file = os.path.join(src, name + ".args")
    args = [l for l in open(args_file).read().split("\n") if l] if os.path.exists(args_file) else []
    # @TMPDIR@ is a private directory for the files the program writes, as in golden.py
    if any("@TMPDIR@" in l for l in args):
        pdir = tempfile.mkdtemp(prefix=name + ".", dir=tmp)
        args = [l.replace("@TMPDIR@", pdir) for l in args]
    rc3, out3, err3 = run([tfs, "run", conv_path] + args, tmp)
    # Error locations refer to the converted file's lines, so errors compare by status only.
    if isinstance(want, bytes) and b"in user code:" in want and rc3 == want_status and b"in user code:" in out3:
        # AutoGraph's framing names the converted file, quotes its lines and lists its own functions (its generated
        # helpers among them), also inside reprs: such output compares by status
        return True, None
    if rc3 != want_status or not golden.out_matches(want, out3):
        return True, ("FAIL %s: the converted program ran differently (status %s, expected %s)\n%s%s"
                      % (name, rc3, want_status, out3.decode()[-2000:], err3.decode()[-2000:]))
    return True, None


def main():
    tfs, tfsc, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    flags = sys.argv[4:]
    convert_only = "--convert-only" in flags   # the sanitizer builds: conversions, no runs
    # --every N: every N-th program by name only (the sanitizer builds: each conversion there costs about a second)
    every = int(flags[flags.index("--every") + 1]) if "--every" in flags else 1
    failures = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        # Converted programs run beside copies of the originals, so imports and data files resolve.
        for f in os.listdir(src):
            p = os.path.join(src, f)
            if os.path.isfile(p):
                shutil.copy(p, tmp)
            elif os.path.isdir(p):
                shutil.copytree(p, os.path.join(tmp, f))
        names = sorted(f[:-4] for f in os.listdir(src) if f.endswith(".tfs"))[::every]
        # golden.run_all: one program per CPU, NAME.alone ones after by themselves; reports print in name order
        results = golden.run_all(names, src, golden.default_jobs(), lambda name: one(tfs, tfsc, src, tmp, name, convert_only))
    for did_check, failure in (results[n] for n in names):
        checked += did_check
        if failure:
            failures += 1
            print(failure)
    print("roundtrip: %d programs checked, %d failure(s)" % (checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
