#!/usr/bin/env python3
"""fuzzregress.py — replay every saved crasher of a fuzz harness (fuzz/regress/HARNESS/) through REPLAY: each must run to the end, without a crash or sanitizer report.

usage: fuzzregress.py REPLAY DIR
"""
import os
import subprocess
import sys


def main():
    replay, d = os.path.abspath(sys.argv[1]), sys.argv[2]
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if not f.startswith("."))
    failures = 0
    # one process per input: a crash names its input, and each starts with a clean heap
    for f in files:
        p = subprocess.run([replay, f], capture_output=True, timeout=120, cwd=os.path.dirname(os.path.abspath(f)))
        if p.returncode != 0:
            failures += 1
            print("FAIL %s: status %d\n%s" % (f, p.returncode, p.stderr.decode(errors="replace")[-4000:]))
    print("fuzzregress: %d input(s) replayed, %d failure(s)" % (len(files), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
