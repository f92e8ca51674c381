#!/usr/bin/env python3
"""isa_golden.py — the product and convolution goldens again on each kernel path (TFS_ISA=baseline|avx2|avx512),
with OpenBLAS left to the runtime: the outputs must match, and the runtime must have moved OpenBLAS to the
path's core type (OPENBLAS_VERBOSE=2 prints each core it selects).  A path the CPU lacks is skipped.

Usage: isa_golden.py TFS TFSC PROGRAMS_DIR [--no-exe]
"""
import os
import subprocess
import sys

GOLDENS = ["isa_products", "conv_torch", "keras_conv"]
# the OpenBLAS core each path selects (blas.c); an AVX-512 CPU OpenBLAS already calls Cooperlake keeps it
CORES = {"baseline": ["Prescott"], "avx2": ["Haswell"], "avx512": ["SkylakeX", "Cooperlake"]}


def main():
    tfs, tfsc, progs = (os.path.abspath(a) for a in sys.argv[1:4])
    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.py")
    failed = ran = 0
    for isa, cores in CORES.items():
        env = dict(os.environ, TFS_ISA=isa, OPENBLAS_VERBOSE="2")
        env.pop("OPENBLAS_CORETYPE", None)
        # one thread: with more, the pool cuts large products into parts libxsmm takes, and OpenBLAS (whose
        # core is checked here) may not be called at all
        p = subprocess.run([tfs, "run", "isa_products.tfs"], cwd=progs, env=dict(env, TFS_NUM_THREADS="1"),
                           capture_output=True, text=True, timeout=300)
        if p.returncode == 2 and "cannot run" in p.stderr:
            print("SKIP %s: %s" % (isa, p.stderr.strip()))
            continue
        ran += 1
        picked = [l.split(":", 1)[1].strip() for l in p.stderr.splitlines() if l.startswith("Core:")]
        if p.returncode != 0 or not picked or picked[-1] not in cores:
            print("FAIL %s: OpenBLAS core %s, expected one of %s (status %d)\n%s" % (isa, picked, cores, p.returncode,
                                                                                  p.stderr))
            failed += 1
        env.pop("OPENBLAS_VERBOSE")
        for name in GOLDENS:
            extra = ["--no-exe"] if "--no-exe" in sys.argv else []   # sanitized builds link no executables
            r = subprocess.run([sys.executable, golden, "--eager-too", "--tfs", tfs, "--tfsc", tfsc, "--only", name]
                               + extra + [progs], env=env, capture_output=True, text=True, timeout=1500)
            print("%s %s: %s" % ("PASS" if r.returncode == 0 else "FAIL", isa, name))
            if r.returncode != 0:
                print(r.stdout + r.stderr)
                failed += 1
    if not ran:
        print("no kernel path ran")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
