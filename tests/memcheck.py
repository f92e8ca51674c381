#!/usr/bin/env python3
"""memcheck.py — every example is valgrind-clean (no invalid access, no definite/indirect leak), and a long loop runs in bounded memory."""
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

LOOP = """# 2 million iterations creating tensors, strings, lists and closures: memory must stay flat
x = tf.constant([1.0, 2.0, 3.0])
acc = tf.constant(0.0)
for i in range(2000000):
    y = x * 2.0 + 1.0
    acc = acc + y[0]
    s = "s" + str(i)
    l = [i, s, (i, y)]
    f = lambda q: q + i
print(acc, f(1))
"""


# 384 MiB of address space is plenty for a flat loop (tfs reserves ~260 MiB unconstrained, ~250 of it mapped
# but untouched: libraries, thread stacks, malloc arenas; libtcc then needs room to compile); a leak of ~100 bytes
# per iteration over the 2,000,000 would need far more.  (util-linux's prlimit sets it: the runs below share
# threads, where subprocess's preexec_fn is unsafe.)
LOOP_LIMIT = ["prlimit", "--as=%d" % (384 << 20)]


def valgrind(tfs, examples, name):
    """A failure report for one example under valgrind, or None."""
    try:
        p = subprocess.run(["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                            "--error-exitcode=9", tfs, "run", name], cwd=examples, capture_output=True,
                           timeout=600, env=dict(os.environ, GLIBC_TUNABLES=""))   # no re-execution out of valgrind's sight
    except subprocess.TimeoutExpired:
        return "FAIL valgrind %s: no end within 600 s" % name
    if p.returncode != 0:
        return "FAIL valgrind %s: status %d\n%s" % (name, p.returncode, p.stderr.decode()[-3000:])
    return None


def main():
    tfs, examples = os.path.abspath(sys.argv[1]), sys.argv[2]
    failures = 0
    if os.environ.get("TFS_SANITIZED"):
        # ASan maps terabytes of shadow memory and quarantines frees: neither an
        # address-space limit nor valgrind applies; its own leak check runs instead.
        print("memcheck: sanitizer build, skipped")
        return 0
    if not shutil.which("valgrind"):
        print("FAIL valgrind is not installed")
        failures += 1
    names = sorted(n for n in os.listdir(examples) if n.endswith(".tfs")) if shutil.which("valgrind") else []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        # the examples under valgrind, one per CPU, beside the bounded loop
        reports = [pool.submit(valgrind, tfs, examples, n) for n in names]
        prog = os.path.join(tmp, "loop.tfs")
        with open(prog, "w") as f:
            f.write(LOOP)
        p = subprocess.run(LOOP_LIMIT + [tfs, "run", prog], capture_output=True, timeout=600)
        want = b"tf.Tensor(6000000.0, shape=(), dtype=float32) 2000000\n"
        if p.returncode != 0 or p.stdout != want:
            failures += 1
            print("FAIL bounded loop: status %d\n%s%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))
        for r in reports:
            if r.result():
                failures += 1
                print(r.result())
    print("memcheck: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
