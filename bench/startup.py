#!/usr/bin/env python3
"""startup.py — what `tfs run` spends before the program's first line (issue 32), with and without the object cache
(compiler/objcache.c): instructions (callgrind; this KVM guest has no hardware counters) and wall time (best of N).

usage: BUILD=build python3 bench/startup.py [--reps N] [--no-callgrind] [--only print|tf|keras]
Modes: nocache (TFS_NO_CACHE=1: compiled in memory, as before the cache), cold (empty cache: compiled, written,
loaded), warm (the entries are there: loaded), edit (the cache warmed by the program, then a copy of it with one
line added is run: what an edit-run cycle costs)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = ["print", "tf", "keras"]


def run(tfs, prog, env, wrap=()):
    p = subprocess.run([*wrap, tfs, "run", prog], capture_output=True, env=env, timeout=1200)
    if p.returncode:
        sys.exit("%s failed: %s" % (prog, p.stderr.decode()))
    return p.stderr.decode()


def main():
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    grind = "--no-callgrind" not in sys.argv and shutil.which("valgrind")
    tfs = os.path.join(os.environ.get("BUILD", "build"), "compiler", "tfs")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print("CPU: %s, %d cores; load average %s" % (cpu, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
    print("%-6s %-8s %16s %10s" % ("prog", "mode", "instructions", "wall s"))
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        for name in [p for p in PROGS if not only or p == only]:
            prog = os.path.join(HERE, "startup_%s.tfs" % name)
            edited = os.path.join(tmp, "edited_%s.tfs" % name)
            with open(prog) as f, open(edited, "w") as g:
                g.write(f.read() + "_edited = 1\n")
            for mode in ("nocache", "cold", "warm", "edit"):
                env = dict(os.environ, XDG_CACHE_HOME=cache)
                env.pop("TFS_NO_CACHE", None)
                if mode == "nocache":
                    env["TFS_NO_CACHE"] = "1"
                if mode in ("warm", "edit"):
                    shutil.rmtree(cache, ignore_errors=True)
                    run(tfs, prog, env)
                target = edited if mode == "edit" else prog
                best = None
                for _ in range(reps):
                    if mode == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    if mode == "edit":   # each run sees the program's entries, never the edited copy's
                        shutil.rmtree(cache, ignore_errors=True)
                        run(tfs, prog, env)
                    t = time.perf_counter()
                    run(tfs, target, env)
                    t = time.perf_counter() - t
                    best = t if best is None else min(best, t)
                ins = "-"
                if grind:
                    if mode in ("cold", "edit"):
                        shutil.rmtree(cache, ignore_errors=True)
                    if mode == "edit":
                        run(tfs, prog, env)
                    err = run(tfs, target, env, ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"))
                    m = re.search(r"Collected : (\d+)", err)
                    ins = "{:,}".format(int(m.group(1))) if m else "?"
                print("%-6s %-8s %16s %10.3f" % (name, mode, ins, best), flush=True)


if __name__ == "__main__":
    main()
