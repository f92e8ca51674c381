#!/usr/bin/env python3
"""distribute.py — the programs of tests/distribute/ run as MPI jobs (mpirun -np N), rank by rank.

For each NAME.tfs: NAME.np holds N (default 2).  The job runs under `mpirun --output-filename`
so each rank's stdout and stderr are kept apart; the test compares
    === rank R stdout / === rank R stderr
blocks, rank after rank, with NAME.out.  NAME.status holds the expected exit status of mpirun
class: 0, or 1 for "failed" (any non-zero).  For a failing job NAME.err is compared: each of
its lines must appear in some rank's stderr (which rank prints first is a race Open MPI decides);
and when NAME.out exists too, the rank blocks exactly (a job whose output does not race: a
compile error, reported by rank 0 alone).
NAME.env, when present, lists environments, one a line (space-separated KEY=VALUE; an empty line: none added): the
job runs once in each, every run compared with NAME.out (one program, several runtime paths).
NAME.hosts, when present, is an Open MPI hostfile of loopback addresses (127.0.0.2, 127.0.0.3): the job also runs
once with it, launched through fake_ssh.sh (ssh's stand-in, which starts each "remote" daemon here, in a session directory of its
own under TFS_FAKE_HOSTS_DIR) and with all
traffic over TCP on the loopback interface, as ranks on different hosts, compared with NAME.out.
NAME.single.out, when present, is the program's output as a plain `tfs run` (one process).
NAME.oracle, when present, lists line prefixes (one a line): the oracle is the same program run as
one process on the global batches, and every rank's lines with those prefixes must equal its lines
numerically (relative 1e-5, absolute 1e-6; the summation order differs), the rest of them exactly.
Keras' timings (`- 0s`, `12ms/step`) are compared as <T>.
A failing job first prints the head of each rank's unexpected stderr and of mpirun's (a sanitizer's report, the
signal a rank died of), then the long expected/got dump: CI logs cut in the middle keep the cause.
With --exe the programs also run as `tfsc -o` executables under mpirun (in NAME.env's first environment).
With --quick (the sanitizer builds) each runs in NAME.env's first environment only, and not on the simulated hosts.
Skipped (exit 77) when mpirun is missing or tfs was built without MPI.

usage: distribute.py TFS TFSC DIR [--only SUBSTR] [--exe] [--quick] [--update]
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


TIMEOUT = 300   # seconds per job: 4 ranks under ASan on a loaded 2-core machine take minutes


def mpirun_cmd(n):
    cmd = ["mpirun", "-np", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def rank_text(outdir, n):
    parts = []
    for r in range(n):
        for stream in ("stdout", "stderr"):
            path = os.path.join(outdir, "1", "rank.%d" % r, stream)
            text = open(path, errors="replace").read() if os.path.exists(path) else ""
            parts.append("=== rank %d %s\n%s" % (r, stream, text))
    return "".join(parts)


LSAN_FATAL = "LeakSanitizer has encountered a fatal error"


def hosts_args(base):
    """mpirun's arguments for the simulated hosts of NAME.hosts: its hostfile, ssh's stand-in, TCP on loopback only."""
    here = os.path.dirname(os.path.abspath(__file__))
    return ["--hostfile", base + ".hosts", "--mca", "plm_rsh_agent", os.path.join(here, "distribute", "fake_ssh.sh"),
            "--mca", "oob_tcp_if_include", "lo", "--mca", "btl_tcp_if_include", "lo", "--mca", "btl", "self,tcp"]


def run_job(cmd, n, cwd, tmp, retried=False, extra=None, launch=()):
    outdir = tempfile.mkdtemp(dir=tmp)
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distribute", "lsan.supp")
    # Open MPI's plugins stay loaded to the end (disable_dlclose) and LeakSanitizer unwinds their frames fully
    # (fast_unwind_on_malloc=0: they have no frame pointers), so the suppressions of lsan.supp, by library, match
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none", TFS_DIST_CHECK="1",
               OMPI_MCA_mca_base_component_disable_dlclose="1",
               LSAN_OPTIONS="suppressions=%s:print_suppressions=0:fast_unwind_on_malloc=0" % supp)
    env.update(extra or {})
    p = subprocess.Popen(mpirun_cmd(n) + list(launch) + ["--output-filename", outdir] + cmd, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        # SIGTERM first: mpirun then stops its ranks (a SIGKILL would leave them running); the failure is reported
        # with what the ranks wrote so far
        p.terminate()
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        err = "distribute.py: the job ran longer than %d s and was stopped\n%s" % (TIMEOUT, err)
        return -1, rank_text(outdir, n), err
    text = rank_text(outdir, n)
    if p.returncode != 0 and LSAN_FATAL in text and not retried:
        # LeakSanitizer could not stop the world at exit (its tracer lost a race with an exiting Open MPI thread under
        # load): no leak was checked, let alone found, so the job runs again rather than fail on the tool's accident
        print("distribute: LeakSanitizer's at-exit check failed to run (not a leak report); running the job again")
        shutil.rmtree(outdir, ignore_errors=True)
        return run_job(cmd, n, cwd, tmp, retried=True, extra=extra, launch=launch)
    return p.returncode, text, err


def rank_blocks(text):
    """{(rank, stream): text} of rank_text's output."""
    parts = re.split(r"^=== rank (\d+) (stdout|stderr)\n", text, flags=re.M)
    return {(int(parts[i]), parts[i + 1]): parts[i + 2] for i in range(1, len(parts) - 2, 3)}


def stderr_heads(text, want, err, lines=40):
    """For a failing job, first: the head of each rank's stderr that differs from the expected (a sanitizer's or a
    crash's report) and of mpirun's own, so a log truncated in the middle still shows why."""
    got, exp = rank_blocks(text), rank_blocks(want or "")
    out = []
    for (r, stream), t in sorted(got.items()):
        if stream == "stderr" and t and t != exp.get((r, stream)):
            out.append("--- rank %d stderr (first %d lines)\n%s" % (r, lines, "".join(t.splitlines(True)[:lines])))
    if err.strip():
        out.append("--- mpirun stderr (first %d lines)\n%s" % (lines, "".join(err.splitlines(True)[:lines])))
    return "".join(x if x.endswith("\n") else x + "\n" for x in out)


def untimed(text):
    return re.sub(r"\b\d+(?:s|ms|us)(?:/step|/epoch)?\b", "<T>", text)


NUM = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+(?:e[-+]?\d+)?|nan|inf")


def close_lines(got, want):
    """Lines equal but for their numbers, which agree to float tolerance."""
    if NUM.sub("#", got) != NUM.sub("#", want):
        return False
    for a, b in zip(NUM.findall(got), NUM.findall(want)):
        x, y = float(a), float(b)
        if abs(x - y) > 1e-6 + 1e-5 * abs(y):
            return False
    return True


def oracle_check(name, base, tfs, d, text, n):
    """Every rank's oracle lines against one process's (see the module's docstring); a message or None."""
    prefixes = [l for l in open(base + ".oracle").read().splitlines() if l]
    p = subprocess.run([tfs, "run", name + ".tfs"], cwd=d, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return "one-process oracle failed: %s" % p.stderr[-2000:]
    want = [l for l in p.stdout.splitlines() if any(l.startswith(x) for x in prefixes)]
    if not want:
        return "the oracle printed no line starting with %s" % prefixes
    for r in range(n):
        block = text.split("=== rank %d stdout\n" % r)[1].split("=== rank %d stderr" % r)[0]
        got = [l for l in block.splitlines() if any(l.startswith(x) for x in prefixes)]
        if len(got) != len(want):
            return "rank %d printed %d oracle lines, one process %d" % (r, len(got), len(want))
        for g, w in zip(got, want):
            if not close_lines(g, w):
                return "rank %d differs from one process:\n  got  %s\n  want %s" % (r, g, w)
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args.remove(only)
    tfs, tfsc, d = (os.path.abspath(a) for a in args[:3])
    if not shutil.which("mpirun"):
        print("distribute: mpirun not found: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="tfs-dist-")
    probe = os.path.join(tmp, "probe.tfs")
    open(probe, "w").write("import _dist\nprint(_dist.size())\n")
    rc, text, err = run_job([tfs, "run", probe], 2, tmp, tmp)
    if rc != 0:
        print("distribute: tfs cannot run under mpirun (built without MPI?): skipped\n" + err[-2000:])
        return 77
    bad = ran = 0
    quick = "--quick" in sys.argv   # the sanitizer builds: NAME.env's first environment, no simulated hosts
    for prog in sorted(glob.glob(os.path.join(d, "*.tfs"))):
        name = os.path.basename(prog)[:-4]
        if only and only not in name:
            continue
        base = os.path.join(d, name)
        n = int(open(base + ".np").read()) if os.path.exists(base + ".np") else 2
        want_fail = os.path.exists(base + ".status") and open(base + ".status").read().strip() != "0"
        runs = [("tfs run", [tfs, "run", name + ".tfs"], {}, ())]
        if os.path.exists(base + ".env"):   # the same job in each environment listed
            runs = [("tfs run %s" % line.strip(), runs[0][1], dict(kv.split("=", 1) for kv in line.split()), ())
                    for line in open(base + ".env").read().split("\n")[:-1]][:1 if quick else None]
        if os.path.exists(base + ".hosts") and not quick:   # and on two simulated hosts
            runs.append(("tfs run on the hosts of %s.hosts" % name, [tfs, "run", name + ".tfs"],
                         {"TFS_FAKE_HOSTS_DIR": tmp}, hosts_args(base)))   # the hosts' session dirs, under tmp
        if "--exe" in sys.argv and not want_fail:
            exe = os.path.join(tmp, name)
            c = subprocess.run([tfsc, prog, "-o", exe], capture_output=True, text=True)
            if c.returncode != 0:
                print("FAIL %s: tfsc -o: %s" % (name, c.stderr))
                bad += 1
                continue
            runs.append(("tfsc -o", [exe], runs[0][2], ()))   # in NAME.env's first environment
        for how, cmd, extra, launch in runs:
            ran += 1
            rc, text, err = run_job(cmd, n, d, tmp, extra=extra, launch=launch)
            if want_fail:
                missing = [l for l in open(base + ".err").read().splitlines() if l and l not in text]
                if rc == 0 or missing:
                    print("FAIL %s (%s): status %d, lines missing from the ranks' stderr:\n  %s\n%s" %
                          (name, how, rc, "\n  ".join(missing), stderr_heads(text, None, err) + text[-3000:]))
                    bad += 1
                elif os.path.exists(base + ".out") and text != open(base + ".out").read():
                    want = open(base + ".out").read()
                    print("FAIL %s (%s)\n%s--- expected\n%s--- got\n%s" % (name, how, stderr_heads(text, want, err), want, text))
                    bad += 1
                continue
            if "--update" in sys.argv and how.startswith("tfs run") and rc == 0:   # writes what it got: review the diff
                open(base + ".out", "w").write(text)
            want = open(base + ".out").read() if os.path.exists(base + ".out") else None
            if rc != 0 or want is None or untimed(text) != untimed(want):
                print("FAIL %s (%s): status %d\n%s--- expected\n%s--- got\n%s%s" %
                      (name, how, rc, stderr_heads(text, want, err), want, text, err[-2000:]))
                bad += 1
        if os.path.exists(base + ".oracle") and not want_fail:
            ran += 1
            msg = oracle_check(name, base, tfs, d, text, n)
            if msg:
                print("FAIL %s (oracle): %s" % (name, msg))
                bad += 1
        if os.path.exists(base + ".single.out"):
            ran += 1
            p = subprocess.run([tfs, "run", name + ".tfs"], cwd=d, capture_output=True, text=True, timeout=120)
            if p.returncode != 0 or p.stdout != open(base + ".single.out").read():
                print("FAIL %s (one process): status %d\n%s%s" % (name, p.returncode, p.stdout, p.stderr))
                bad += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("distribute: %d runs, %d failed" % (ran, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
