#!/usr/bin/env python3
"""difftest.py — differential testing: random well-formed .tfs programs run as tf.function graphs, with --eager, as `tfsc -o` executables and (host-only ones) under python3.

Two kinds of generated program, a seeded mix:
  * tensor programs: @tf.function functions over tensors of several dtypes
    (float32, float64, int32, int64) and shapes ((), (3,), (2, 2)), with
    nested tensor `if` / `while` / `for` (over tf.range) and host `for` (over
    range), `break` / `continue` / `return` in them, host ints mixed in;
  * host-only programs: the functions of agdiff.py (ints, lists, dicts,
    nested loops, early returns) called with plain ints.
Every call prints one line, or `error CLASS: first line` when it raises.
Each file of programs runs three ways: `tfs run` (graphs), `tfs run --eager`
and the executable `tfsc -o` builds.  The graph run and the executable must
print the same bytes.  The eager run must print the same, except that where
the graph run stops with an error TF raises when staging (a name or dtype
that differs between branches, a return in one branch of a tensor `if`:
STAGING_ERRORS) the eager run may give a value: that is the stated error
class, counted apart.  Host-only programs must also print what python3
prints.

usage: difftest.py TFS TFSC [--count N] [--seed S] [--keep DIR]
  (tests/meson.build runs 300; the nightly-size run is --count 10000)
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agdiff  # noqa: E402  (the host-only generator)
import errtext  # noqa: E402  (.tfs shared with opdiff/tffuzz)

# Errors tracing raises where eager execution runs on (TF's messages; docs/autograph.md).
STAGING_ERRORS = (
    "branch must also have a return statement",
    "must also be initialized in the",
    "in the main branch, but",
    "before the loop, but",
    "must be defined before the loop",
    "loop must iterate at least once to initialize",
    "which depend on a TF condition are not supported in Python for loops",
    "must have the same nested structure in the main and else",   # a tuple returned inside a tensor loop, as in TF
)
PER_FILE = 20    # programs per generated file: one tfs process per way runs them all

DTYPES = {
    "float32": ["0.5", "1.5", "2.0", "3.25"],
    "float64": ["0.25", "1.0", "2.5", "4.0"],
    "int32": ["1", "2", "3", "5"],
    "int64": ["1", "2", "3", "7"],
}
SHAPES = [(), (3,), (2, 2)]

# What a call prints, the same way in every mode: tensors and host numbers alike as NumPy values.
SHOW = '''
def show(r):
    return ' '.join([str(tf.reshape(tf.convert_to_tensor(v), [-1]).numpy()) for v in r])


def attempt(name, f, *args):
    try:
        print(name, show(f(*args)))
    except Exception as e:
        print(name, 'error', _emsg(e))
'''
SHOW += errtext.EMSG



class TensorGen(agdiff.Gen):
    """Random statements over tensors x, y, acc (dtype self.dt) and the host int c (blocks as agdiff's)."""

    def k(self):
        return self.rng.choice(DTYPES[self.dt])

    def value(self):
        r = self.rng
        a, b = r.choice(["x", "y", "acc"]), r.choice(["x", "y", "acc"])
        k = r.randrange(6)
        if k == 0:
            e = "%s + %s" % (a, b)
        elif k == 1:
            e = "%s * %s" % (a, self.k())
        elif k == 2:
            e = "%s - %s" % (a, b)
        elif k == 3:
            e = "tf.abs(%s) + %s" % (a, self.k())
        elif k == 4:
            e = "tf.maximum(%s, %s)" % (a, b)
        else:
            e = "tf.minimum(%s, %s) - %s" % (a, b, self.k())
        # bounded, so no int overflow and no float rounding that depends on the path
        return "tf.clip_by_value(%s, -50, 50)" % e

    def cond(self, loops):
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return "tf.reduce_sum(%s) > %s" % (r.choice(["x", "y", "acc"]), self.k())
        if k == 1:
            return "tf.reduce_max(%s) < %s" % (r.choice(["x", "y", "acc"]), self.k())
        if k == 2 and loops:
            return "%s %% 2 == %d" % (r.choice(loops), r.randrange(2))
        if k == 3:
            return "c > %d" % r.randrange(4)    # a host condition, or a tensor one once c is a loop variable
        return "tf.reduce_min(x) >= tf.reduce_min(y)"

    def assign(self):
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return ["c = c + %d" % r.randrange(1, 3)]
        return ["%s = %s" % (r.choice(["x", "y", "acc", "acc"]), self.value())]

    def stmt(self, depth, loops):
        r = self.rng
        k = r.randrange(10) if depth < 3 else 0
        if k <= 3:
            return self.assign()
        if k <= 5:
            lines = ["if %s:" % self.cond(loops)] + ind(self.block(depth + 1, loops, r.randrange(1, 3)))
            if r.random() < 0.5:
                lines += ["else:"] + ind(self.block(depth + 1, loops, r.randrange(1, 3)))
            return lines
        if k == 6 and loops:
            return ["if %s:" % self.cond(loops)] + ind(self.assign() + [r.choice(["break", "continue"])])
        if k == 7 and not loops:
            # a return in both branches stages; in one branch of a tensor if it is a staging error
            # (inside a tensor loop, a returned tuple is one as well: TF's placeholder is no tuple)
            lines = ["if %s:" % self.cond(loops), "    return (acc, x, y, c)"]
            if r.random() < 0.6:
                lines += ["else:", "    return (y, acc, x, c)"]
            return lines
        return self.loop(depth, loops)

    def loop(self, depth, loops):
        r = self.rng
        self.nloop += 1
        v = "i%d" % self.nloop
        body = self.block(depth + 1, loops + [v], r.randrange(1, 4))
        k = r.randrange(3)
        if k == 0:
            return ["for %s in tf.range(n):" % v] + ind(body)
        if k == 1:
            return ["for %s in range(%d):" % (v, r.randrange(0, 4))] + ind(body)
        # a tensor while; the counter steps first, so continue cannot skip it
        return ["%s = tf.constant(0)" % v, "while %s < n:" % v] + ind(["%s += 1" % v] + body)

    def function(self, name):
        self.nloop = 0
        self.dt = self.rng.choice(sorted(DTYPES))
        body = ["acc = tf.zeros_like(x)", "c = 0"] + self.block(0, [], self.rng.randrange(2, 6))
        body.append("return (acc, x, y, c)")
        return ["@tf.function", "def %s(x, y, n):" % name] + ind(body)

    def args(self):
        """The call's arguments, as tfs source."""
        r = self.rng
        shape = r.choice(SHAPES)
        size = 1
        for d in shape:
            size *= d

        def tensor():
            vals = [r.choice(["-", ""]) + r.choice(DTYPES[self.dt]) for _ in range(size)]
            lit = vals[0] if not shape else "[%s]" % ", ".join(vals) if len(shape) == 1 else \
                "[[%s], [%s]]" % (", ".join(vals[:2]), ", ".join(vals[2:]))
            return "tf.constant(%s, dtype=tf.%s)" % (lit, self.dt)
        return "%s, %s, tf.constant(%d)" % (tensor(), tensor(), r.randrange(0, 5))


ind = agdiff.ind


def generate(rng, first, count):
    """A file of `count` programs (names p<first>...): its tfs source, and the python3 source of its host-only part."""
    tg, hg = TensorGen(rng), agdiff.Gen(rng)
    defs, calls, host = [], [], []
    for k in range(first, first + count):
        name = "p%d" % k
        if rng.random() < 0.6:
            defs.append("\n".join(tg.function(name)))
            calls += ["attempt('%s', %s, %s)" % (name, name, tg.args()) for _ in range(2)]
        else:
            fn = "\n".join(hg.function(name))
            defs.append(fn)
            host.append(fn)
            for _ in range(2):
                a = [rng.randrange(-3, 6), rng.randrange(-3, 6), rng.randrange(0, 4)]
                call = "print('%s', %s(%d, %d, %d))" % (name, name, *a)
                calls.append(call)
                host.append(call)
    return SHOW + "\n\n" + "\n\n\n".join(defs) + "\n\n\n" + "\n".join(calls) + "\n", "\n".join(host) + "\n"


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=600)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def by_name(out):
    """Output lines keyed by program name, in order (each program prints two lines)."""
    lines = {}
    for line in out.splitlines():
        lines.setdefault(line.split(" ")[0], []).append(line)
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("tfsc")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--no-exe", action="store_true", help="skip the tfsc -o way (sanitizer builds)")
    ap.add_argument("--keep", help="write the generated programs here")
    a = ap.parse_args()
    tfs, tfsc = os.path.abspath(a.tfs), os.path.abspath(a.tfsc)
    rng = random.Random(a.seed)
    tmp = a.keep or tempfile.mkdtemp(prefix="difftest")
    os.makedirs(tmp, exist_ok=True)
    counts = {"tensor": 0, "host": 0, "calls": 0, "agree": 0, "staging": 0, "errors": 0}
    bad = []
    for first in range(0, a.count, PER_FILE):
        n = min(PER_FILE, a.count - first)
        src, host_src = generate(rng, first, n)
        name = "diff%d" % first
        with open(os.path.join(tmp, name + ".tfs"), "w") as f:
            f.write(src)
        ways = {"graph": run([tfs, "run", name + ".tfs"], tmp), "eager": run([tfs, "run", "--eager", name + ".tfs"], tmp)}
        if not a.no_exe:
            rc, out, err = run([tfsc, name + ".tfs", "-o", name], tmp)
            ways["exe"] = run(["./" + name], tmp) if rc == 0 else (rc, "", "tfsc -o failed: " + err)
        if "print('p" in host_src:
            ways["python3"] = run(["/usr/bin/python3", "-c", host_src], tmp)
        for way, (rc, out, err) in ways.items():
            if rc != 0:
                bad.append("%s.tfs %s: exit status %s\n%s" % (name, way, rc, err[-3000:]))
        graph = by_name(ways["graph"][1])
        eager = by_name(ways["eager"][1])
        exe = by_name(ways["exe"][1]) if "exe" in ways else graph
        py = by_name(ways["python3"][1]) if "python3" in ways else {}
        for k in range(first, first + n):
            p = "p%d" % k
            g = graph.get(p, [])
            if p in py:
                counts["host"] += 1
                others = {"eager": eager.get(p, []), "exe": exe.get(p, []), "python3": py[p]}
            else:
                counts["tensor"] += 1
                others = {"eager": eager.get(p, []), "exe": exe.get(p, [])}
            if len(g) != 2:
                bad.append("%s.tfs %s: the graph run printed %d lines, not 2" % (name, p, len(g)))
                continue
            for i, line in enumerate(g):
                counts["calls"] += 1
                verdict = "agree"
                for way, lines in others.items():
                    other = lines[i] if i < len(lines) else "<nothing>"
                    if other == line:
                        continue
                    if way == "eager" and " error " in line and any(s in line for s in STAGING_ERRORS) \
                            and " error " not in other:
                        verdict = verdict if verdict == "bad" else "staging"
                        continue
                    verdict = "bad"
                    bad.append("%s.tfs %s call %d: graph printed\n    %s\n  %s printed\n    %s" % (name, p, i + 1, line, way, other))
                if verdict != "bad":
                    counts[verdict] += 1
                    if verdict == "agree" and " error " in line:
                        counts["errors"] += 1
    print("difftest: %d programs (%d tensor, %d host-only), %d calls: %d agree in every way (%d of them the same error), "
          "%d eager values where the graph stops with a staging error; ways: graph, --eager%s, python3 for host-only"
          % (a.count, counts["tensor"], counts["host"], counts["calls"], counts["agree"], counts["errors"],
             counts["staging"], "" if a.no_exe else ", tfsc -o"))
    # a generator that only produced errors would test nothing
    if counts["agree"] - counts["errors"] < counts["calls"] // 2:
        bad.append("only %d of %d calls gave values" % (counts["agree"] - counts["errors"], counts["calls"]))
    for b in bad[:50]:
        print("FAIL " + b)
    if len(bad) > 50:
        print("... %d more" % (len(bad) - 50))
    if bad:
        print("programs kept in %s" % tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
