#!/usr/bin/env python3
"""memcheck.py — every example is valgrind-clean (no invalid access, no definite/indirect leak), and a long loop runs in bounded memory."""
import os
import resource
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


def limit_memory():
    # 256 MiB of address space is plenty for a flat loop; a leak of ~100 bytes
    # per iteration would need far more.
    resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))


def main():
    tfs, examples = os.path.abspath(sys.argv[1]), sys.argv[2]
    failures = 0
    if os.environ.get("TFS_SANITIZED"):
        # ASan maps terabytes of shadow memory and quarantines frees: neither an
        # address-space limit nor valgrind applies; its own leak check runs instead.
        print("memcheck: sanitizer build, skipped")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "loop.tfs")
        with open(prog, "w") as f:
            f.write(LOOP)
        p = subprocess.run([tfs, "run", prog], capture_output=True, preexec_fn=limit_memory, timeout=600)
        want = b"tf.Tensor(6000000.0, shape=(), dtype=float32) 2000000\n"
        if p.returncode != 0 or p.stdout != want:
            failures += 1
            print("FAIL bounded loop: status %d\n%s%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))
    if not shutil.which("valgrind"):
        print("FAIL valgrind is not installed")
        failures += 1
    else:
        for name in sorted(os.listdir(examples)):
            if not name.endswith(".tfs"):
                continue
            p = subprocess.run(["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                                "--error-exitcode=9", tfs, "run", name], cwd=examples, capture_output=True,
                               timeout=600)
            if p.returncode != 0:
                failures += 1
                print("FAIL valgrind %s: status %d\n%s" % (name, p.returncode, p.stderr.decode()[-3000:]))
    print("memcheck: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
