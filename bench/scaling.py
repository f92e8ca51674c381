#!/usr/bin/env python3
"""scaling.py — cost per op and per line at 3 sizes, so a regression to superlinear shows as a growing number (issue 12).

Usage: bench/scaling.py [BUILD_DIR] [--sizes 3000,10000,30000] [--only trace,retrace,check,run,agcheck,agrun,longcheck,longrun]
  trace    a tf.function unrolling `x = x + 1.0` n times: CPU time of its first call (trace, plan
           and one run), measured inside the program with time.process_time, per op; compiling the
           program (libtcc, AutoGraph) is not counted: agrun covers it
  check    `tfsc --check` of an n-line program of small functions, per line
  run      `tfs run` of the same program (JIT included), per line
  agcheck  `tfsc --check` of that program plus one tf.function calling f0 (AutoGraph converts what it reaches)
  agrun    `tfs run` of it
  retrace  the same function's second trace, for a new input shape (a [2] vector: its
           elementwise ops are planned and fused, which the scalar first call's are not), per op
  longcheck  `tfsc --check` of the trace program (one tf.function of n statements), per line
  longrun    `tfs run` of it (JIT, trace and one graph run), per line
Each figure is the best of 3 runs' user+system CPU time (the machine is shared),
with the largest peak resident size (max RSS) of those runs.
"""
import os
import resource
import subprocess
import sys
import tempfile


def measure(cmd):
    """(best CPU seconds, max RSS in MB) over 3 runs; wait4 gives each run's own figures."""
    best, rss = None, 0
    for _ in range(3):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit("%s exited with %d" % (" ".join(cmd), proc.returncode))
        t = ru.ru_utime + ru.ru_stime
        best = t if best is None else min(best, t)
        rss = max(rss, ru.ru_maxrss / 1024)
    return best, rss


def unrolled(n):
    lines = ["import time", "@tf.function", "def f(x):"] + ["    x = x + 1.0"] * n + ["    return x"]
    lines += ["x0 = tf.constant(0.0)", "t0 = time.process_time()", "r = f(x0)", "t1 = time.process_time()",
              "print(t1 - t0)", "print(r.numpy())"]
    return "\n".join(lines) + "\n"


def retraced(n):
    lines = ["import time", "@tf.function", "def f(x):"] + ["    x = x + 1.0"] * n + ["    return x"]
    lines += ["a = f(tf.constant(0.0))", "t0 = time.process_time()", "r = f(tf.constant([0.0, 1.0]))",
              "t1 = time.process_time()", "print(t1 - t0)", "print(r.numpy()[0])"]
    return "\n".join(lines) + "\n"


def first_call(tfs, path, n):
    """Best of 3 in-program CPU times of the first call; checks the result too."""
    best = None
    for _ in range(3):
        out = subprocess.run([tfs, "run", path], check=True, capture_output=True, text=True).stdout.split()
        if float(out[1]) != float(n):
            raise SystemExit("trace of %d ops printed %s" % (n, out[1]))
        best = float(out[0]) if best is None else min(best, float(out[0]))
    return best


def functions(nlines, traced=False):
    out = []
    for i in range(nlines // 5):
        out += ["def f%d(x):" % i, "    if x > %d:" % i, "        return x - 1", "    return x + 1", ""]
    if traced:
        out += ["@tf.function", "def g(x):", "    return f0(x)", "print(g(tf.constant(1)).numpy())"]
    out.append("print(f0(1))")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    build = "build"
    sizes = [3000, 10000, 30000]
    only = ["trace", "retrace", "check", "run", "agcheck", "agrun", "longcheck", "longrun"]
    while args:
        a = args.pop(0)
        if a == "--sizes":
            sizes = [int(s) for s in args.pop(0).split(",")]
        elif a == "--only":
            only = args.pop(0).split(",")
        else:
            build = a
    tfs = os.path.join(build, "compiler", "tfs")
    tfsc = os.path.join(build, "compiler", "tfsc")
    print("%-9s %8s %10s %16s %10s %14s" % ("what", "n", "cpu s", "us per op/line", "max MB", "KB per line"))

    def row(what, n, t, rss=None):
        extra = "%10.0f %14.2f" % (rss, rss * 1024 / n) if rss is not None else ""
        print("%-9s %8d %10.3f %16.2f %s" % (what, n, t, t / n * 1e6, extra), flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes if "trace" in only else []:
            g = os.path.join(tmp, "g.tfs")
            open(g, "w").write(unrolled(n))
            row("trace", n, first_call(tfs, g, n))
        for n in sizes if "retrace" in only else []:
            g = os.path.join(tmp, "g.tfs")
            open(g, "w").write(retraced(n))
            row("retrace", n, first_call(tfs, g, n))
        for n in sizes if "longcheck" in only or "longrun" in only else []:
            g = os.path.join(tmp, "g.tfs")
            open(g, "w").write(unrolled(n))
            if "longcheck" in only:
                row("longcheck", n, *measure([tfsc, "--check", g]))
            if "longrun" in only:
                row("longrun", n, *measure([tfs, "run", g]))
        for prefix, traced in (("", False), ("ag", True)):
            for n in sizes if prefix + "check" in only or prefix + "run" in only else []:
                p = os.path.join(tmp, "p.tfs")
                open(p, "w").write(functions(n, traced))
                if prefix + "check" in only:
                    row(prefix + "check", n, *measure([tfsc, "--check", p]))
                if prefix + "run" in only:
                    row(prefix + "run", n, *measure([tfs, "run", p]))


if __name__ == "__main__":
    main()
