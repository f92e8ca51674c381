#!/usr/bin/env python3
"""cli.py — checks of the tfs/tfsc command lines: exit statuses, --to-code, --check, --emit-c, usage errors."""
import os
import pty
import re
import subprocess
import sys
import tempfile

failures = 0


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120, env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def expect(name, cond, detail=""):
    global failures
    if not cond:
        failures += 1
        print("FAIL %s %s" % (name, detail))


def main():
    tfs, tfsc, here = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    with open(os.path.join(here, "seed9.to_code")) as f:
        seed = f.read()
    # §9: the converted seed, byte-exact.
    rc, out, err = run([tfsc, "--to-code", "seed9.tfs", "--function", "my_function"], here)
    expect("to-code --function", rc == 0 and out == seed, "rc=%d\n%s%s" % (rc, out, err))
    # Whole program: decorator kept, function converted under its own name.
    rc, out, err = run([tfsc, "--to-code", "seed9.tfs"], here)
    expect("to-code module", rc == 0 and out.startswith("@tf.function\ndef my_function(x):\n    with ag__.FunctionScope('my_function', 'fscope', "
                                                "ag__.ConversionOptions(recursive=True, user_requested=True, "),
           out + err)
    # Idempotence: converting the converted program changes nothing.
    with tempfile.TemporaryDirectory() as tmp:
        conv = os.path.join(tmp, "conv.tfs")
        with open(conv, "w") as f:
            f.write(out)
        rc2, out2, err2 = run([tfsc, "--to-code", conv], here)
        expect("to-code idempotent", rc2 == 0 and out2 == out, out2 + err2)
        # --emit-c to a file, with #line directives that name the .tfs file.
        cfile = os.path.join(tmp, "p.c")
        rc, out, err = run([tfsc, "--emit-c", "seed9.tfs", "-o", cfile], here)
        with open(cfile) as f:
            c = f.read()
        expect("emit-c", rc == 0 and '#line 3 "seed9.tfs"' in c and "int main(" in c, err)
        bad = os.path.join(tmp, "bad.tfs")
        with open(bad, "w") as f:
            f.write("def f(:\n    pass\n")
        rc, out, err = run([tfsc, "--check", bad], here)
        expect("check bad", rc == 1 and "bad.tfs:1:6: error: " in err, "rc=%d %s" % (rc, err))
        # --check keeps no C but still runs code generation, which reports
        # what it cannot translate: the same diagnostics as `tfs run`.
        with open(bad, "w") as f:
            f.write("class C:\n    a.b = 1\nclass D:\n    if True:\n        pass\n")
        rc, out, err = run([tfsc, "--check", bad], here)
        rc2, out2, err2 = run([tfs, "run", bad], here)
        expect("check codegen errors", rc == 1 and out == "" and err == err2 and rc2 == 1 and
               "bad.tfs:2:5: error: only simple names can be assigned in a class body" in err and
               "bad.tfs:4:5: error: only methods and assignments are supported in a class body" in err, "rc=%d %s" % (rc, err))
        # A traced program converts only what its tf.function reaches
        # (no twin FIC... for `plain` in the C), yet --to-code shows every
        # function converted, as tf.autograph.to_code would.
        reach = os.path.join(tmp, "reach.tfs")
        with open(reach, "w") as f:
            f.write("def plain(n):\n    if n > 1:\n        return n\n    return 0\n"
                    "@tf.function\ndef g(x):\n    return x\nprint(plain(2))\n")
        rc, out, err = run([tfsc, "--to-code", reach], here)
        expect("to-code unreached", rc == 0 and "def plain(n):\n    with ag__.FunctionScope('plain'" in out, out + err)
        rc, out, err = run([tfsc, "--emit-c", reach], here)
        expect("emit-c unreached", rc == 0 and '{"g"' in out and not re.search(r'FuncInfo FIC\w+ = \{"plain"', out)
               and re.search(r'FuncInfo FIC\w+ = \{"g"', out), err)
    rc, out, err = run([tfsc, "--check", "seed9.tfs"], here)
    expect("check good", rc == 0 and out == "" and err == "", "rc=%d %s" % (rc, err))
    rc, out, err = run([tfsc, "--to-code", "seed9.tfs", "--function", "nope"], here)
    expect("to-code unknown function", rc == 1 and "no function named 'nope'" in err, err)
    # Usage errors exit 2; --help exits 0.
    for cmd in ([tfsc], [tfsc, "--bogus", "x.tfs"], [tfsc, "a.tfs", "b.tfs"], [tfsc, "x.tfs"],
                [tfs, "walk", "x.tfs"], [tfs, "run"], [tfs, "run", "--nope", "x.tfs"]):
        rc, out, err = run(cmd, here)
        expect("usage %s" % cmd[1:], rc == 2 and "usage" in err, "rc=%d %s" % (rc, err))
    for cmd in ([tfsc, "--help"], [tfs, "--help"]):
        rc, out, err = run(cmd, here)
        expect("help %s" % cmd[0], rc == 0 and "usage" in out)
    rc, out, err = run([tfs, "run", "missing.tfs"], here)
    expect("missing file", rc == 1 and err == "missing.tfs: error: cannot open 'missing.tfs': No such file or directory\n", err)
    # argv: the script name first, then the arguments.
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "a.tfs"), "w") as f:
            f.write("print(argv)\n")
        rc, out, err = run([tfs, "run", "a.tfs", "x", "--y"], tmp)
        expect("argv", rc == 0 and out == "['a.tfs', 'x', '--y']\n", out + err)
    # No file: the program comes from standard input (not a terminal), reported as <stdin>, argv [''].
    prog = b"@tf.function\ndef f(x):\n    return x * 2\nprint(f(tf.constant([1, 2])), argv)\ny = f(3)[0]\n"
    for args, argv0 in (([], "''"), (["-"], "'-'")):
        p = subprocess.run([tfs] + args, input=prog, capture_output=True, timeout=120)
        expect("stdin program " + str(args), p.returncode == 1
               and p.stdout.decode() == "tf.Tensor([2 4], shape=(2,), dtype=int32) [%s]\n" % argv0
               and p.stderr.decode().startswith("<stdin>:5:5: error: ") and p.stderr.decode().endswith("y = f(3)[0]\n    ^\n"),
               p.stdout.decode() + p.stderr.decode())
    p = subprocess.run([tfs], input=b"", capture_output=True, timeout=120)
    expect("stdin empty program", p.returncode == 0 and p.stdout == b"" and p.stderr == b"", str(p))
    # input(): prompts on stdout, lines without their newline, EOFError at the end; CPython runs the same program
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "inp.tfs")
        with open(prog, "w") as f:
            f.write('name = input("Name? ")\nn = int(input())\nprint(f"hello {name}, {n * 2}")\nprint(repr(input("")))\n'
                    'try:\n    input("> ")\nexcept EOFError as e:\n    print("EOFError", e)\n')
        feed = b"Ada\n21\n  spaced  "
        got = subprocess.run([tfs, "run", prog], input=feed, capture_output=True, timeout=120)
        want = subprocess.run(["/usr/bin/python3", prog], input=feed, capture_output=True, timeout=120)
        expect("input() as CPython", got.returncode == 0 and got.stdout == want.stdout, str(got) + " vs " + str(want.stdout))
    # --dump-graphs writes each concrete function as text and DOT.
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "graphs")
        rc, out, err = run([tfs, "run", "--dump-graphs", d, "seed9.tfs"], here)
        expect("dump-graphs (no call)", rc == 0 and os.path.isdir(d) and os.listdir(d) == [], str(os.listdir(d)) + err)
        prog = os.path.join(tmp, "g.tfs")
        with open(prog, "w") as f:
            f.write("@tf.function\ndef f(x):\n    return x * 2.0 + 1.0\nprint(f(tf.constant(1.0)))\n")
        rc, out, err = run([tfs, "run", "--dump-graphs", d, prog], tmp)
        files = sorted(os.listdir(d)) if os.path.isdir(d) else []
        expect("dump-graphs files", rc == 0 and files == ["f_1.dot", "f_1.pbtxt", "f_1.txt"], str(files) + err)
        if files == ["f_1.dot", "f_1.pbtxt", "f_1.txt"]:
            txt = open(os.path.join(d, "f_1.txt")).read()
            dot = open(os.path.join(d, "f_1.dot")).read()
            expect("dump-graphs text", "Mul(" in txt and "AddV2(" in txt and "Placeholder()" in txt, txt)
            expect("dump-graphs dot", dot.startswith("digraph") and "Mul" in dot, dot)
            pbtxt = open(os.path.join(d, "f_1.pbtxt")).read()
            expect("dump-graphs pbtxt", pbtxt.startswith('node {\n  name: "x"\n  op: "Placeholder"\n')
                   and 'op: "Mul"' in pbtxt and 'op: "AddV2"' in pbtxt and "float_val: 2.0" in pbtxt, pbtxt)
    # TFS_ISA forces a kernel path; an unknown name stops the program before it runs (status 2).
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "mm.tfs")
        with open(prog, "w") as f:
            f.write("a = tf.constant([[1, 2], [3, 4]])\nprint(tf.matmul(a, a))\n")
        want = "tf.Tensor(\n[[ 7 10]\n [15 22]], shape=(2, 2), dtype=int32)\n"
        for isa in ["baseline", ""]:
            rc, out, err = run([tfs, "run", prog], tmp, {"TFS_ISA": isa})
            expect("TFS_ISA=" + isa, rc == 0 and out == want, "rc=%d\n%s%s" % (rc, out, err))
        rc, out, err = run([tfs, "run", prog], tmp, {"TFS_ISA": "avx9"})
        expect("TFS_ISA unknown", rc == 2 and out == "" and
               err == "tfs: error: TFS_ISA=avx9: unknown path (expected baseline, avx2 or avx512)\n", "rc=%d\n%s%s" % (rc, out, err))
    # tfs doc NAME: the generated doc table, as help(NAME) prints it.
    rc, out, err = run([tfs, "doc", "tf.add"], here)
    expect("doc tf.add", rc == 0 and err == "" and out == "tf.add(x, y, name=None)\n"
           "    Element-wise x + y, with NumPy broadcasting; string tensors concatenate.\n"
           "    Inputs: x (tensor), y (tensor); dtypes: float32, float64, int32, int64,\n"
           "    float16, bfloat16, uint8, int8, int16, uint16, uint32, uint64, complex64,\n"
           "    complex128, string.\n"
           "    Also: tf.math.add\n", "rc=%d\n%s%s" % (rc, out, err))
    rc, out, err = run([tfs, "doc", "tf.reduce_summ", "len"], here)
    expect("doc unknown", rc == 1 and out.startswith("len(obj)\n") and err ==
           "tfs: error: no documentation for 'tf.reduce_summ'; did you mean tf.reduce_sum, tf.reduce_max or "
           "tf.reduce_min?\n", "rc=%d\n%s%s" % (rc, out, err))
    rc, out, err = run([tfs, "doc"], here)
    expect("doc usage", rc == 2 and "tfs doc NAME" in err, "rc=%d %s" % (rc, err))
    # tfs board: usage, a missing directory, an empty one (a page that says so); tests/board.py checks real ones.
    rc, out, err = run([tfs, "board"], here)
    expect("board usage", rc == 2 and "tfs board LOGDIR" in err, "rc=%d %s" % (rc, err))
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = run([tfs, "board", os.path.join(tmp, "nope")], here)
        expect("board missing dir", rc == 1 and "is not a directory" in err, "rc=%d %s" % (rc, err))
        rc, out, err = run([tfs, "board", tmp, "-o", os.path.join(tmp, "r.html")], here)
        page = open(os.path.join(tmp, "r.html")).read() if rc == 0 else ""
        expect("board empty dir", rc == 0 and "No event files or profiles" in page and "</html>" in page, err)
        os.makedirs(os.path.join(tmp, "run", "plugins", "profile", "p"))
        with open(os.path.join(tmp, "run", "events.out.tfevents.1.host"), "wb") as f:
            f.write(b"\x05\x00\x00\x00\x00\x00\x00\x00garbage")
        with open(os.path.join(tmp, "run", "plugins", "profile", "p", "host.xplane.pb"), "wb") as f:
            f.write(b"\xff\xff\xff")
        rc, out, err = run([tfs, "board", tmp, "-o", os.path.join(tmp, "r.html")], here)
        expect("board damaged files", rc == 0 and "events.out.tfevents.1.host: corrupted record at 0" in err
               and "host.xplane.pb is not an XSpace; skipped" in err, "rc=%d %s" % (rc, err))
        rc, out, err = run([tfs, "board", tmp, "-o", os.path.join(tmp, "no", "r.html")], here)
        expect("board unwritable", rc == 1 and "cannot write" in err, "rc=%d %s" % (rc, err))
    # Every name of the checked-in reference (headings and aliases) has an entry `tfs doc` prints.
    ref = open(os.path.join(here, "..", "..", "docs", "reference", "tf.md")).read()
    names = re.findall(r"^### (\S+)$", ref, re.M) + re.findall(r"`([\w.]+)`", " ".join(re.findall(r"^Also: .*$", ref, re.M)))
    rc, out, err = run([tfs, "doc"] + names, here)
    heads = set(l.split("(")[0] for l in out.split("\n") if l and not l.startswith(" "))
    expect("doc every reference name", rc == 0 and err == "" and len(names) > 250 and set(names) <= heads,
           "rc=%d %d names, missing %s %s" % (rc, len(names), sorted(set(names) - heads)[:5], err))
    keras_progress(tfs)
    big_sources(tfs, tfsc)
    print("cli: %d failure(s)" % failures)
    return 1 if failures else 0


def big_sources(tfs, tfsc):
    """Sources of 256 KiB or more take the big-input path: a re-execution with
    glibc's huge-page tunables (where the kernel offers THP; GLIBC_TUNABLES=
    opts out), tree-sitter's parse region and mapped arena blocks
    (docs/performance.md, "Bulk memory on huge pages")."""
    n = 20000   # 320,000 bytes of statements
    body = "".join("    x = x + 1.0\n" for _ in range(n))
    prog = ("@tf.function\ndef f(x):\n" + body + "    return x\n"
            "print(f(tf.constant(0.0)).numpy())\n"
            "tf.config.run_functions_eagerly(True)\n"
            "print(f(tf.constant(1.0)).numpy())\n")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.tfs")
        with open(big, "w") as f:
            f.write(prog)
        expect("big source size", os.path.getsize(big) >= 256 * 1024)
        for env in (None, {"GLIBC_TUNABLES": ""}):
            rc, out, err = run([tfs, "run", big], tmp, env)
            expect("big run %s" % env, rc == 0 and out == "%.1f\n%.1f\n" % (n, n + 1) and err == "",
                   "rc=%d\n%s%s" % (rc, out[:200], err[:500]))
            rc, out, err = run([tfsc, "--check", big], tmp, env)
            expect("big check %s" % env, rc == 0 and out == "" and err == "", "rc=%d %s" % (rc, err[:500]))
        # a syntax error at the end of a big file is located as in a small one
        with open(big, "a") as f:
            f.write("print(1 +)\n")
        rc, out, err = run([tfsc, "--check", big], tmp)
        line = prog.count("\n") + 1
        expect("big syntax error", rc == 1 and err.startswith("%s:%d:10: error: " % (big, line)), "rc=%d %s" % (rc, err[:500]))


FIT = """tf.keras.utils.set_random_seed(1)
model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
model.compile(optimizer="sgd", loss="mse", metrics=["mse"])
model.fit(tf.ones([40, 3]), tf.zeros([40, 2]), batch_size=10, epochs=2, verbose=1)
"""
BAR_END = re.compile(r"^4/4 \[={30}\] - \d+s \d+(s|ms|us)/step - loss: \d+\.\d{4}(e-\d+)? - mse: \d+\.\d{4}(e-\d+)?$")


def keras_progress(tfs):
    """fit(verbose=1): off a terminal, each epoch's final line only; on one, the bar redrawn in place (at most every
    0.05 s, as Keras' Progbar: at least the first step's line and the final one per epoch)."""
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "fit.tfs")
        with open(prog, "w") as f:
            f.write(FIT)
        rc, out, err = run([tfs, "run", prog], tmp)
        lines = out.split("\n")
        expect("keras progress (pipe)", rc == 0 and "\r" not in out and len(lines) == 5 and lines[0] == "Epoch 1/2" and
               lines[2] == "Epoch 2/2" and BAR_END.match(lines[1]) and BAR_END.match(lines[3]) and lines[4] == "",
               "rc=%d\n%r\n%s" % (rc, out, err))
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(tmp)
            os.execv(tfs, [tfs, "run", prog])
        chunks = []
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        _, status = os.waitpid(pid, 0)
        tty = b"".join(chunks).decode()
        frames = [l for l in tty.replace("\r\n", "\n").replace("\r", "\n").split("\n") if "[" in l]
        expect("keras progress (terminal)", os.WEXITSTATUS(status) == 0 and "1/4 [======>" in tty and "\r" in tty and
               len(frames) >= 4 and BAR_END.match(frames[-1]), repr(tty))


if __name__ == "__main__":
    sys.exit(main())
