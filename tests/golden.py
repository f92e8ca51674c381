#!/usr/bin/env python3
"""golden.py — run every NAME.tfs in a directory and compare stdout/stderr/exit status with NAME.out/.err/.status.

Each program runs as `tfs run NAME.tfs [args]` from its own directory (so
diagnostics say `NAME.tfs:line:col`), and again as a standalone executable
built by `tfsc NAME.tfs -o ...` unless NAME.noexe exists.  Optional files:
NAME.args (one argument per line; @TMPDIR@ becomes a private temporary
directory made for the program's files), NAME.err (expected stderr; default empty),
NAME.status (expected exit status; default 0), NAME.out.re in place of NAME.out (one
regular expression per stdout line, for output that varies by CPU path), NAME.alone (run after the
others with nothing beside it: programs run in parallel otherwise, one per CPU, --jobs).  With --mem-limit every run
gets a memory cap (tests/hostile/ runs this way).

With --eager-too, every program also runs as `tfs run --eager` (functions run
eagerly, as tf.config.run_functions_eagerly(True)) and must give the same
results, except where tracing differs by contract: then NAME.eager.out /
NAME.eager.err / NAME.eager.status (and NAME.eager.out.re) hold the eager expectations.
"""
import argparse
import concurrent.futures
import difflib
import os
import re
import resource
import subprocess
import sys
import tempfile


def read(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, "rb") as f:
        return f.read()


MEM_LIMIT_MB = 0  # --mem-limit: address space cap for every run (0: none)


def limit_memory():
    if MEM_LIMIT_MB:
        n = MEM_LIMIT_MB << 20
        resource.setrlimit(resource.RLIMIT_AS, (n, n))


def run(cmd, cwd, timeout):
    env = None
    if MEM_LIMIT_MB and os.environ.get("TFS_SANITIZED"):
        # ASan reserves terabytes of address space: cap resident memory and
        # single allocations instead (a refused allocation returns NULL, as malloc does).
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":hard_rss_limit_mb=%d:max_allocation_size_mb=%d"
                               ":allocator_may_return_null=1" % (MEM_LIMIT_MB, MEM_LIMIT_MB)).lstrip(":")
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout, env=env,
                           preexec_fn=limit_memory if MEM_LIMIT_MB and not env else None)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b"timed out after %d s\n" % timeout


def sanitizer_noise(err):
    """Under --mem-limit in a sanitized build, ASan warns when it refuses an allocation
    (allocator_may_return_null): the program then raises MemoryError as it should."""
    if not (MEM_LIMIT_MB and os.environ.get("TFS_SANITIZED")):
        return err
    return b"".join(l for l in err.splitlines(True) if not (l.startswith(b"==") and b"WARNING: AddressSanitizer failed to allocate" in l))


def diff(what, want, got):
    lines = difflib.unified_diff(want.decode("utf-8", "replace").splitlines(True),
                                 got.decode("utf-8", "replace").splitlines(True),
                                 "expected " + what, "actual " + what)
    return "".join(lines)


def expected_out(base):
    """NAME.out, or NAME.out.re: one regular expression per stdout line, for output that varies by CPU path
    (a training run's printed losses); None when neither exists."""
    want = read(base + ".out")
    if want is None and os.path.exists(base + ".out.re"):
        want = [re.compile(l) for l in read(base + ".out.re").splitlines()]
    return want


def out_matches(want, got):
    if isinstance(want, bytes):
        return got == want
    lines = got.splitlines()
    return len(lines) == len(want) and all(w.fullmatch(l) for w, l in zip(want, lines))


def check(name, label, result, want_out, want_err, want_status, log):
    """Compares one run with its expectations; a failure's report goes to `log` (a list of strings)."""
    status, out, err = result
    err = sanitizer_noise(err)
    problems = []
    if status != want_status:
        problems.append("exit status %s, expected %s" % (status, want_status))
    if not out_matches(want_out, out):
        problems.append(diff("stdout", want_out if isinstance(want_out, bytes) else
                             b"\n".join(w.pattern for w in want_out) + b"\n", out))
    if err != want_err:
        problems.append(diff("stderr", want_err, err))
    if problems:
        log.append("FAIL %s (%s)\n%s" % (name, label, "\n".join(problems)))
        return False
    return True


def default_jobs():
    """Programs run at once: GOLDEN_JOBS, else the number of CPUs."""
    return int(os.environ.get("GOLDEN_JOBS", "0")) or os.cpu_count() or 1


def run_all(names, src, jobs, fn):
    """{name: fn(name)}: on `jobs` threads (each waits on its child process), then each NAME.alone of src by itself."""
    alone = [n for n in names if os.path.exists(os.path.join(src, n + ".alone"))]
    rest = [n for n in names if n not in alone]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = dict(zip(rest, pool.map(fn, rest)))
    results.update((n, fn(n)) for n in alone)
    return results


def run_program(a, tfs, tfsc, tmp, name):
    """Runs one program every way asked; returns (ran, ok, report lines)."""
    log = []
    base = os.path.join(a.dir, name)
    want_out = expected_out(base)
    if want_out is None:
        return False, False, ["FAIL %s: no %s.out beside it" % (name, name)]
    want_err = read(base + ".err", b"")
    want_status = int(read(base + ".status", b"0").decode().strip() or "0")
    args = [l for l in read(base + ".args", b"").decode().splitlines() if l]
    if any("@TMPDIR@" in l for l in args):
        # a private directory per program for the files it writes (never fixed /tmp names)
        pdir = tempfile.mkdtemp(prefix=name + ".", dir=tmp)
        args = [l.replace("@TMPDIR@", pdir) for l in args]
    ok = check(name, "tfs run", run([tfs, "run", name + ".tfs"] + args, a.dir, a.timeout),
               want_out, want_err, want_status, log)
    if ok and not a.no_exe and not os.path.exists(base + ".noexe"):
        exe = os.path.join(tmp, name)
        st, out, err = run([tfsc, name + ".tfs", "-o", exe], a.dir, a.timeout)
        if want_status != 0 and st != 0:
            # A compile-time error: tfsc must report exactly what tfs run reported.
            ok = check(name, "tfsc -o", (st, out, err), b"", want_err, want_status, log)
        elif st != 0 or err:
            # A successful build is silent: no compiler or linker chatter.
            log.append("FAIL %s (tfsc -o): status %s\n%s" % (name, st, err.decode("utf-8", "replace")))
            ok = False
        else:
            ok = check(name, "standalone executable", run([exe] + args, a.dir, a.timeout),
                       want_out, want_err, want_status, log)
    if ok and a.eager_too and name in a.eager_names:
        own = os.path.exists(base + ".eager.out") or os.path.exists(base + ".eager.out.re")  # eager expectations stand alone
        e_out = expected_out(base + ".eager") if own else want_out
        e_err = read(base + ".eager.err", b"" if own else want_err)
        e_status = int(read(base + ".eager.status", b"0" if own else str(want_status).encode()).decode().strip() or "0")
        ok = check(name, "tfs run --eager", run([tfs, "run", "--eager", name + ".tfs"] + args, a.dir, a.timeout),
                   e_out, e_err, e_status, log)
    return True, ok, log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfs", required=True)
    ap.add_argument("--tfsc", required=True)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--jobs", "-j", type=int, default=default_jobs(),
                    help="programs run at once (default: GOLDEN_JOBS, else the number of CPUs)")
    ap.add_argument("--only", help="run only programs whose name contains this")
    ap.add_argument("--names", help="run only these programs (comma-separated names)")
    ap.add_argument("--shard", metavar="K/N", help="run only the K-th of N equal shares of the programs (1-based, by sorted name)")
    ap.add_argument("--eager-too", action="store_true", help="differential pass with tfs run --eager")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="run every N-th program only, by sorted name, before --shard (the sanitizer builds)")
    ap.add_argument("--eager-every", type=int, default=1, metavar="N",
                    help="with --eager-too, the eager pass for every N-th program only (by sorted name, before --shard)")
    ap.add_argument("--no-exe", action="store_true",
                    help="skip the standalone-executable pass (sanitizer builds: tcc cannot link them)")
    ap.add_argument("--mem-limit", type=int, default=0, metavar="MB",
                    help="cap each run's memory (address space; resident size under sanitizers)")
    ap.add_argument("dir")
    a = ap.parse_args()
    global MEM_LIMIT_MB
    MEM_LIMIT_MB = a.mem_limit
    if MEM_LIMIT_MB:
        a.jobs = 1   # the cap is set in the child by preexec_fn, which is not safe beside other threads
    tfs, tfsc = os.path.abspath(a.tfs), os.path.abspath(a.tfsc)
    names = sorted(f[:-4] for f in os.listdir(a.dir) if f.endswith(".tfs"))
    if a.only:
        names = [n for n in names if a.only in n]
    if a.names:
        want = a.names.split(",")
        missing = sorted(set(want) - set(names))
        if missing:
            print("FAIL: no such programs in %s: %s" % (a.dir, ", ".join(missing)))
            return 1
        names = [n for n in names if n in want]
    names = names[::max(a.every, 1)]
    # the eager pass's sample is fixed before sharding, so shards together cover exactly every N-th program
    # (programs with their own eager expectations always run it)
    a.eager_names = set(names[::max(a.eager_every, 1)]) | {
        n for n in names if any(os.path.exists(os.path.join(a.dir, n + ".eager" + x)) for x in (".out", ".out.re", ".err", ".status"))}
    if a.shard:
        k, n = (int(x) for x in a.shard.split("/"))
        if not 1 <= k <= n:
            print("FAIL: --shard %s: K must be 1..N" % a.shard)
            return 1
        names = names[k - 1::n]
    with tempfile.TemporaryDirectory() as tmp:
        # Programs run on a.jobs threads (each waits on its child process); reports print in name order.
        # One with NAME.alone (its expected output depends on having the CPUs to itself, as a race between
        # two threads it starts) runs afterwards with nothing beside it.
        results = run_all(names, a.dir, a.jobs, lambda name: run_program(a, tfs, tfsc, tmp, name))
    ran = failed = 0
    for name, (did_run, ok, log) in ((n, results[n]) for n in names):
        for line in log:
            print(line)
        ran += did_run
        failed += not ok
    print("%d of %d programs passed in %s" % (ran - failed, ran, a.dir))
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
