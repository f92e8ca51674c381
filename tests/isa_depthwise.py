#!/usr/bin/env python3
"""isa_depthwise.py — the depthwise convolution's bits do not depend on the kernel path or the thread count:
tests/isa/depthwise_bits.tfs (forward and both gradients on inexact inputs, every value printed) must print the
same bytes under TFS_ISA=baseline|avx2|avx512 and TFS_NUM_THREADS=1|2|3.  A path the CPU lacks is skipped.

Usage: isa_depthwise.py TFS
"""
import os
import subprocess
import sys

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "isa", "depthwise_bits.tfs")


def main():
    tfs = os.path.abspath(sys.argv[1])
    first, failed, ran = None, 0, 0
    for isa in ("baseline", "avx2", "avx512"):
        for threads in ("1", "2", "3"):
            env = dict(os.environ, TFS_ISA=isa, TFS_NUM_THREADS=threads)
            p = subprocess.run([tfs, "run", PROGRAM], env=env, capture_output=True, text=True, timeout=600)
            if p.returncode == 2 and "cannot run" in p.stderr:
                print("SKIP %s: %s" % (isa, p.stderr.strip()))
                break
            label = "%s threads=%s" % (isa, threads)
            if p.returncode != 0 or p.stdout.count("\n") != 20:
                print("FAIL %s: status %d, %d lines\n%s" % (label, p.returncode, p.stdout.count("\n"), p.stderr))
                failed += 1
                continue
            ran += 1
            if first is None:
                first = (label, p.stdout)
            elif p.stdout != first[1]:
                a, b = first[1].splitlines(), p.stdout.splitlines()
                line = next(i for i in range(len(a)) if a[i] != b[i])
                print("FAIL %s: line %d differs from %s's" % (label, line + 1, first[0]))
                failed += 1
                continue
            print("PASS %s" % label)
    if ran < 2:
        print("FAIL: fewer than two runs to compare")
        failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
