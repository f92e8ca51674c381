#!/usr/bin/env python3
"""hostile_io.py — hostile files and streams around tfs/tfsc: full disks, closed pipes, non-files as input, unwritable outputs.

Usage: hostile_io.py TFS TFSC.  Each case states what Python or a Unix tool
does; the expected statuses and messages are tfs's contract (docs/testing.md).
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

failures = 0


def run(cmd, cwd, stdout=subprocess.PIPE, stdin=None, input=None, preexec=None, ignore_sigpipe=False):
    def pre():
        if ignore_sigpipe:
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if preexec:
            preexec()
    p = subprocess.run(cmd, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, stdin=stdin, input=input,
                       timeout=120, preexec_fn=pre)
    return p.returncode, (p.stdout or b"").decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def expect(name, cond, detail=""):
    global failures
    if not cond:
        failures += 1
        print("FAIL %s %s" % (name, detail))


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)


def interrupts(tfs, tmp):
    """Ctrl-C: KeyboardInterrupt at the next safe point, located, status 130 (Python: 130 too, by SIGINT)."""
    write(os.path.join(tmp, "spin.tfs"), "n = 0\nprint('started', flush=True)\nwhile True:\n    n += 1\n")
    write(os.path.join(tmp, "spin2.tfs"), "print('started', flush=True)\nfor i in range(10**12):\n    pass\n")
    # graph loops: a scalar while (the executor's compiled scalar loop) and a tensor one (its per-iteration plans)
    write(os.path.join(tmp, "gspin.tfs"), "@tf.function\ndef spin(x):\n    while x > -1.0:\n        x = x + 1.0\n"
          "    return x\n\nprint('started', flush=True)\nprint(spin(tf.constant(0.0)))\n")
    write(os.path.join(tmp, "gspin2.tfs"), "@tf.function\ndef spin(v):\n    while tf.reduce_sum(v) > -1.0:\n"
          "        v = v * 1.0\n    return v\n\nprint('started', flush=True)\nprint(spin(tf.constant([1.0, 2.0])))\n")
    for name, where in (("spin.tfs", "spin.tfs:3:7: error: KeyboardInterrupt\nwhile True:\n      ^\n"),
                        ("spin2.tfs", "spin2.tfs:2:10: error: KeyboardInterrupt\nfor i in range(10**12):\n         ^\n"),
                        ("gspin.tfs", "gspin.tfs:8:7: error: KeyboardInterrupt\nprint(spin(tf.constant(0.0)))\n      ^\n"),
                        ("gspin2.tfs", "gspin2.tfs:8:7: error: KeyboardInterrupt\n"
                                       "print(spin(tf.constant([1.0, 2.0])))\n      ^\n")):
        p = subprocess.Popen([tfs, "run", name], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = p.stdout.readline()
        time.sleep(0.5)   # into the loop: tracing's own safe points would locate it elsewhere
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        expect("SIGINT %s" % name, first == b"started\n" and p.returncode == 130 and err.decode() == where,
               "rc=%s %r" % (p.returncode, err))


def file_limit(nbytes):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


def outputs(tfs, tfsc, tmp):
    """Issue 12, no data loss: every output is written whole or not at all, and never over an input."""
    src = os.path.join(tmp, "prog.tfs")
    write(src, "import helper\nprint(helper.twice(21))\n")
    write(os.path.join(tmp, "helper.tfs"), "def twice(x):\n    return 2 * x\n")
    original = open(src).read()
    # Output == input (gcc refuses too); an imported module is an input as well.
    for victim in ("prog.tfs", "helper.tfs", "./prog.tfs"):
        for mode in ([], ["--emit-c"]):
            rc, out, err = run([tfsc] + mode + ["prog.tfs", "-o", victim], tmp)
            want = "tfsc: error: output file '%s' is the same as input file '%s'\n" % (
                victim, "prog.tfs" if "prog" in victim else "./helper.tfs")
            expect("output is input %s %s" % (mode, victim), rc == 1 and err == want, "rc=%d %r" % (rc, err))
    expect("source intact", open(src).read() == original)
    # A missing directory: one line, no linker chatter, no 'internal error'.
    for mode in ([], ["--emit-c"]):
        rc, out, err = run([tfsc] + mode + ["prog.tfs", "-o", "/nonexistent/dir/x"], tmp)
        expect("missing dir %s" % mode,
               rc == 1 and err == "tfsc: error: cannot write '/nonexistent/dir/x': No such file or directory\n",
               "rc=%d %r" % (rc, err))
    write(os.path.join(tmp, "plain"), "")
    rc, out, err = run([tfsc, "prog.tfs", "-o", "plain/x"], tmp)
    expect("parent is a file", rc == 1 and err == "tfsc: error: cannot write 'plain/x': Not a directory\n", err)
    # An unwritable directory (root may write anywhere chmod allows: use sysfs, which refuses new files).
    if os.geteuid() != 0:
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        os.chmod(ro, 0o555)
        target, reason = "ro/x", "Permission denied"
    else:
        target, reason = "/sys/tfs-hostile-io", None
    rc, out, err = run([tfsc, "prog.tfs", "-o", target], tmp)
    expect("unwritable dir", rc == 1 and err.startswith("tfsc: error: cannot write '%s': " % target)
           and err.count("\n") == 1 and (reason is None or reason in err), "rc=%d %r" % (rc, err))
    emit_c_cases(tfsc, tmp)
    expect("no temporary files left", not [f for f in os.listdir(tmp) if ".tmp-" in f], str(os.listdir(tmp)))
    if os.environ.get("TFS_SANITIZED"):
        return   # sanitizer builds cannot link executables (tests/golden.py --no-exe)
    # A good build, then builds that fail on a small file size limit (a full disk): the old file survives.
    rc, out, err = run([tfsc, "prog.tfs", "-o", "prog"], tmp)
    expect("build", rc == 0 and err == "", err)
    before = open(os.path.join(tmp, "prog"), "rb").read()
    # (The limit lets the small object file through: the linked executable is what must not fit.)
    rc, out, err = run([tfsc, "prog.tfs", "-o", "prog"], tmp, preexec=file_limit(256 << 10))
    expect("exe over the file size limit", rc == 1 and err == "tfsc: error: cannot write 'prog': File too large\n",
           "rc=%d %r" % (rc, err))
    expect("old exe intact", open(os.path.join(tmp, "prog"), "rb").read() == before)
    rc, out, err = run([os.path.join(tmp, "prog")], tmp)
    expect("old exe runs", rc == 0 and out == "42\n", "rc=%d %r %r" % (rc, out, err))
    # --dump-graphs: an impossible directory is refused before the run.
    write(os.path.join(tmp, "g.tfs"), "@tf.function\ndef f(x):\n    return x + 1\nprint(f(tf.constant(1)).numpy())\n")
    rc, out, err = run([tfs, "run", "--dump-graphs", "plain/d", "g.tfs"], tmp)
    expect("dump-graphs unwritable", rc == 1 and out == "" and err == "tfs: error: cannot create 'plain/d': Not a directory\n",
           "rc=%d %r %r" % (rc, out, err))
    rc, out, err = run([tfs, "run", "--dump-graphs", "dumps", "g.tfs"], tmp)
    dumps = sorted(os.listdir(os.path.join(tmp, "dumps"))) if os.path.isdir(os.path.join(tmp, "dumps")) else []
    expect("dump-graphs", rc == 0 and dumps and not [f for f in dumps if ".tmp-" in f], "%r %r" % (dumps, err))


def emit_c_cases(tfsc, tmp):
    write(os.path.join(tmp, "prog.c"), "previous\n")
    rc, out, err = run([tfsc, "--emit-c", "prog.tfs", "-o", "prog.c"], tmp, preexec=file_limit(1024))
    expect("emit-c over the limit", rc == 1 and err == "tfsc: error: cannot write 'prog.c': File too large\n",
           "rc=%d %r" % (rc, err))
    expect("old C intact", open(os.path.join(tmp, "prog.c")).read() == "previous\n")
    rc, out, err = run([tfsc, "--emit-c", "prog.tfs"], tmp, stdout=open("/dev/full", "wb"))
    expect("emit-c > /dev/full", rc == 1 and err == "tfsc: error: cannot write '<stdout>': No space left on device\n",
           "rc=%d %r" % (rc, err))


def main():
    tfs, tfsc = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, "small.tfs"), "print('hello')\n")
        write(os.path.join(tmp, "many.tfs"), "for i in range(200000):\n    print(i)\n")
        # A full disk: Python raises OSError [Errno 28] and exits non-zero; output is never lost silently.
        with open("/dev/full", "wb") as full:
            rc, _, err = run([tfs, "run", "small.tfs"], tmp, stdout=full)
            expect("small > /dev/full", rc == 1 and err == "error: OSError: [Errno 28] No space left on device\n",
                   "rc=%d %r" % (rc, err))
            rc, _, err = run([tfs, "run", "many.tfs"], tmp, stdout=full)
            expect("many > /dev/full", rc == 1 and err.startswith(
                "many.tfs:2:5: error: OSError: [Errno 28] No space left on device\n    print(i)\n    ^\n"),
                "rc=%d %r" % (rc, err))
        # A closed pipe ends the program quietly, as cat does (killed by SIGPIPE), even with SIGPIPE ignored.
        for ign in (False, True):
            p = subprocess.Popen([tfs, "run", "many.tfs"], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=(lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ign else None)
            first = p.stdout.read(2)
            p.stdout.close()
            err = p.stderr.read().decode()
            rc = p.wait(timeout=120)
            expect("closed pipe (SIGPIPE %s)" % ("ignored" if ign else "default"),
                   first == b"0\n" and rc == -signal.SIGPIPE and err == "", "rc=%s %r" % (rc, err))
        # Inputs: regular files or readable streams; otherwise the true reason.
        rc, _, err = run([tfs, "run", tmp], tmp)
        expect("directory", rc == 1 and "cannot open '%s': Is a directory" % tmp in err, err)
        rc, _, err = run([tfs, "run", "/dev/zero"], tmp)
        expect("/dev/zero", rc == 1 and err == "/dev/zero:1:1: error: SyntaxError: source code cannot contain null bytes\n",
               "rc=%d %r" % (rc, err))
        write(os.path.join(tmp, "nul.tfs"), "print(1)\nx = 1\0\n")
        rc, out, err = run([tfs, "run", "nul.tfs"], tmp)
        expect("NUL byte", rc == 1 and out == "" and err.startswith(
            "nul.tfs:2:6: error: SyntaxError: source code cannot contain null bytes\nx = 1\n     ^\n"), "rc=%d %r" % (rc, err))
        rc, out, err = run([tfs, "run", "/dev/stdin"], tmp, stdout=subprocess.PIPE, input=b"print(6 * 7)\n")
        expect("stdin stream", rc == 0 and out == "42\n" and err == "", "rc=%d %r %r" % (rc, out, err))
        fifo = os.path.join(tmp, "fifo.tfs")
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", "echo 'print(\"fifo\")' > fifo.tfs"], cwd=tmp)
        rc, out, err = run([tfs, "run", "fifo.tfs"], tmp)
        writer.wait(timeout=60)
        expect("fifo", rc == 0 and out == "fifo\n", "rc=%d %r %r" % (rc, out, err))
        rc, _, err = run([tfs, "run", "missing.tfs"], tmp)
        expect("missing", rc == 1 and "cannot open 'missing.tfs': No such file or directory" in err, err)
        interrupts(tfs, tmp)
        outputs(tfs, tfsc, tmp)
    print("hostile_io: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
