#!/usr/bin/env python3
"""agdiff.py — differential AutoGraph test: generated control-flow functions run through tf.function and as Python.

A seeded generator writes small functions over ints, lists and dicts (items
assigned in branches and loops, early returns, break, continue, nested
if/for/while).  Each runs twice:
  * in one `tfs run` program, through tf.function with tensor arguments
    (every condition and loop then stages as a graph cond / while);
  * under /usr/bin/python3 as plain host code, the reference.
The values must be equal, or the tfs run must stop with one of the errors
docs/autograph.md gives for constructs TF cannot stage (a return in one branch
of a tensor if, a name bound in one branch only).  A program that stops is
resumed after the failing function (argv[1] = index to start from).  Prints
how many functions ran and how each ended.

Then the tracing keys (§8 Signature and reduce_retracing, issue 28 item 5):
random calls of tf.functions (some with reduce_retracing) with tensors of
random dtype and shape, host numbers, Variables (aliased or not), dicts in
random key order and keyword arguments in random order.  Each function
returns the number of the trace that made its graph, so every call shows
which trace it ran; that and each function's tracing count must equal a
small model of §8's rules (TraceModel below).

usage: agdiff.py TFS [--count N] [--seed S] [--keep DIR] [--trace-calls M]
       (tests/meson.build runs 200 functions)
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

# Errors a tensor-staged construct may raise by §9 (TF raises the same).
ALLOWED_ERRORS = (
    "branch must also have a return statement",
    "must also be initialized in the",
    "before the loop, but",          # dtype / shape changes of a loop variable
    "must be defined before the loop",
    "loop must iterate at least once to initialize",
)

CONSTS = ["1", "2", "3", "5"]
CHUNK = 10       # functions per generated program


class Gen:
    """Random statements; `loops` holds the names of the enclosing loop counters."""

    def __init__(self, rng):
        self.rng = rng
        self.nloop = 0

    def atom(self, loops):
        r = self.rng
        pool = ["a", "b", "s", "t", "x[0]", "x[1]", "x[2]", "d['k']"] + list(loops) + CONSTS
        return r.choice(pool)

    def expr(self, loops):
        r = self.rng
        k = r.randrange(4)
        if k == 0:
            return self.atom(loops)
        if k == 1:
            return "%s + %s" % (self.atom(loops), self.atom(loops))
        if k == 2:
            return "%s * %s" % (self.atom(loops), r.choice(CONSTS))
        return "%s - %s" % (self.atom(loops), self.atom(loops))

    def cond(self, loops):
        r = self.rng
        k = r.randrange(3)
        if k == 0:
            return "%s > %s" % (self.atom(loops), self.atom(loops))
        if k == 1:
            return "%s %% 3 == %d" % (self.atom(loops), r.randrange(3))
        return "%s < %s" % (self.expr(loops), r.choice(CONSTS + ["a", "b"]))

    def assign(self, loops):
        r = self.rng
        e = self.expr(loops)
        k = r.randrange(6)
        if k == 0:
            return ["s = (s + %s) %% 1000" % e]
        if k == 1:
            return ["t = (t * 3 + %s) %% 101" % e]
        if k == 2:
            i = r.randrange(3)
            return ["x[%d] = (x[%d] + %s) %% 50" % (i, i, e)]
        if k == 3:
            return ["x[%d] += 1" % r.randrange(3)]
        if k == 4:
            return ["d['k'] = (d['k'] + %s) %% 77" % e]
        if k == 5 and r.random() < 0.3:
            # a key that may exist on one path only: TF cannot stage that
            return ["d['z'] = %s" % e]
        return ["d['m'] -= 1"]

    def block(self, depth, loops, n):
        out = []
        for _ in range(n):
            out += self.stmt(depth, loops)
        return out

    def stmt(self, depth, loops):
        r = self.rng
        k = r.randrange(10) if depth < 2 else 0
        if k <= 4:
            return self.assign(loops)
        if k <= 6:
            lines = ["if %s:" % self.cond(loops)] + ind(self.block(depth + 1, loops, r.randrange(1, 3)))
            if r.random() < 0.5:
                lines += ["else:"] + ind(self.block(depth + 1, loops, r.randrange(1, 3)))
            return lines
        if k == 7 and loops:
            return self.jump(loops)
        if k == 8 and depth == 0 and not loops:
            return self.early_return(loops)
        return self.loop(depth, loops)

    def jump(self, loops):
        r = self.rng
        what = r.choice(["break", "continue"])
        return ["if %s:" % self.cond(loops)] + ind(self.assign(loops) + [what])

    def early_return(self, loops):
        # both branches return: TF stages it; one branch only: §9 error under a tensor if
        lines = ["if %s:" % self.cond(loops), "    return (s, t, x, d)"]
        if self.rng.random() < 0.6:
            lines += ["else:", "    return (t, s, x, d)"]
        return lines

    def loop(self, depth, loops):
        r = self.rng
        self.nloop += 1
        v = "i%d" % self.nloop
        body = self.block(depth + 1, loops + [v], r.randrange(1, 4))
        if r.random() < 0.5:
            return ["for %s in range(n):" % v] + ind(body)
        # the counter steps first, so continue cannot skip it
        return ["%s = 0" % v, "while %s < n:" % v] + ind(["%s += 1" % v] + body)

    def function(self, name):
        self.nloop = 0
        body = ["s = 0", "t = 1", "x = [a, 0, b]", "d = {'k': 0, 'm': a}"]
        body += self.block(0, [], self.rng.randrange(2, 5))
        body.append("return (s, t, x, d)")
        return ["def %s(a, b, n):" % name] + ind(body)


def ind(lines):
    return ["    " + l for l in lines]


SHOW = '''
def show(v):
    parts = []
    for e in [v[0], v[1], v[2][0], v[2][1], v[2][2], v[3]['k'], v[3]['m']]:
        parts.append(str(int(e)))
    if 'z' in v[3]:
        parts.append('z=' + str(int(v[3]['z'])))
    return ' '.join(parts)
'''


def python_reference(src, calls):
    ns = {}
    exec(src + SHOW, ns)
    return ["%s %s" % (name, ns["show"](ns[name](*args))) for name, args in calls]


def tfs_program(src, calls):
    lines = [src, SHOW, "start = int(argv[1])", "CALLS = ["]
    for name, args in calls:
        lines.append("    (%s, '%s', %s)," % (name, name, ", ".join(str(a) for a in args)))
    lines += ["]", "k = 0", "for c in CALLS:",
              "    if k >= start:",
              "        print(c[1], show(tf.function(c[0])(tf.constant(c[2]), tf.constant(c[3]), tf.constant(c[4]))))",
              "    k += 1", ""]
    return "\n".join(lines)


# ---- tracing keys ---------------------------------------------------------------------------------

# Variables the generated program makes (name, dtype, shape).
TK_VARS = [("V0", "float32", (2,)), ("V1", "float32", (2,)), ("V2", "float32", (3,)), ("V3", "int32", ())]


class TraceModel:
    """§8's cache rules: keys (tensor dtype+shape, host value, Variable dtype+shape+alias, dicts by sorted key),
    dispatch to the exact trace, else the most specific relaxed trace that accepts the call (earliest among
    equals), and on a miss under reduce_retracing the key generalized against every trace in turn."""

    def __init__(self):
        self.ntraces = 0          # global trace number (the program's NT)
        self.traces = {}          # function -> [(key, trace number)]

    @staticmethod
    def accepts(c, k):
        if c[0] != k[0]:
            return False
        if c[0] == "T":
            if c[1] != k[1]:
                return False
            if c[2] is None:
                return True
            if k[2] is None or len(c[2]) != len(k[2]):
                return False
            return all(a is None or a == b for a, b in zip(c[2], k[2]))
        if c[0] in ("L", "D"):
            return len(c[1]) == len(k[1]) and all(TraceModel.accepts(a, b) for a, b in zip(c[1], k[1]))
        return c == k

    @staticmethod
    def relax(c, k):
        if c[0] != k[0]:
            return None
        if c[0] == "T":
            if c[1] != k[1]:
                return None
            if c[2] is None or k[2] is None or len(c[2]) != len(k[2]):
                return ("T", c[1], None)
            return ("T", c[1], tuple(a if a == b else None for a, b in zip(c[2], k[2])))
        if c[0] in ("L", "D"):
            if len(c[1]) != len(k[1]):
                return None
            items = [TraceModel.relax(a, b) for a, b in zip(c[1], k[1])]
            return None if any(i is None for i in items) else (c[0], tuple(items))
        return c if c == k else None

    @staticmethod
    def relaxed(k):
        if k[0] == "T":
            return k[2] is None or None in k[2]
        if k[0] in ("L", "D"):
            return any(TraceModel.relaxed(i) for i in k[1])
        return False

    def find(self, fn, k):
        ts = self.traces.setdefault(fn, [])
        for c, n in reversed(ts):
            if c == k:
                return n
        best = None
        for c, n in ts:
            if self.relaxed(c) and self.accepts(c, k) and (best is None or self.accepts(best[0], c)):
                best = (c, n)
        return best[1] if best else None

    def call(self, fn, k, reduce):
        n = self.find(fn, k)
        if n is not None:
            return n
        if reduce:
            r = k
            for c, _ in self.traces[fn]:
                x = self.relax(c, r)
                if x is not None:
                    r = x
            if r != k:
                n = self.find(fn, r)
                if n is not None:
                    return n
                k = r
        self.ntraces += 1
        self.traces[fn].append((k, self.ntraces))
        return self.ntraces


def tk_arg(rng, nested=True):
    """A random argument: (tfs source, model key given the call's alias list); not nested: a leaf."""
    kind = rng.choice([0, 0, 0, 0, 0, 1, 2, 2, 3, 4] if nested else [0, 0, 0, 1, 2])
    if kind == 0:
        dt = "float32" if rng.random() < 0.85 else "int32"
        shape = tuple(rng.randrange(1, 3) for _ in range(rng.choice([0, 1, 1, 1, 2])))
        return "tf.zeros(%s, tf.%s)" % (list(shape), dt), lambda al: ("T", dt, shape)
    if kind == 1:
        v = rng.randrange(2)
        return str(v), lambda al: ("H", v)
    if kind == 2:
        name, dt, shape = rng.choice(TK_VARS)

        def key(al, name=name, dt=dt, shape=shape):
            if name not in al:
                al.append(name)
            return ("V", dt, shape, al.index(name))
        return name, key
    if kind == 3:
        items = [("p", tk_arg_leaf(rng)), ("q", tk_arg_leaf(rng))]
        rng.shuffle(items)
        src = "{%s}" % ", ".join("'%s': %s" % (k, v[0]) for k, v in items)
        return src, lambda al: ("D", tuple(("K", k, v[1](al)) for k, v in sorted(items)))
    n = rng.randrange(1, 3)
    items = [tk_arg_leaf(rng) for _ in range(n)]
    return "[%s]" % ", ".join(i[0] for i in items), lambda al: ("L", tuple(i[1](al) for i in items))


def tk_arg_leaf(rng):
    return tk_arg(rng, False)


def tracing_keys(tfs, rng, ncalls, tmp):
    """Random calls of NF functions: the trace each call ran and the tracing counts, against TraceModel."""
    nf = 4
    lines = ["NT = 0"] + ["%s = tf.Variable(tf.zeros(%s, tf.%s))" % (n, list(s), d) for n, d, s in TK_VARS]
    reduce = {}
    for f in range(nf):
        reduce[f] = f % 2 == 1
        lines += ["@tf.function(reduce_retracing=%s)" % reduce[f], "def g%d(a, b, **kw):" % f,
                  "    global NT", "    NT += 1", "    return NT", ""]
    model = TraceModel()
    want = []
    seen = []   # earlier calls' arguments: repeating them (fresh tensors of the same specs) exercises cache hits
    for _ in range(ncalls):
        if seen and rng.random() < 0.6:
            f, a, b, kws = rng.choice(seen)
            kws = list(kws)
            rng.shuffle(kws)   # keyword order does not key the cache
        else:
            f = rng.randrange(nf)
            a, b = tk_arg(rng), tk_arg(rng)
            kws = [(k, tk_arg(rng)) for k in ("u", "w") if rng.random() < 0.12]
            rng.shuffle(kws)
            seen.append((f, a, b, kws))
        al = []
        key = ("L", (a[1](al), b[1](al), ("D", tuple(("K", k, v[1](al)) for k, v in sorted(kws)))))
        n = model.call(f, key, reduce[f])
        call = "g%d(%s)" % (f, ", ".join([a[0], b[0]] + ["%s=%s" % (k, v[0]) for k, v in kws]))
        lines.append("print(%d, int(%s))" % (f, call))
        want.append("%d %d" % (f, n))
    lines.append("print(%s)" % ", ".join("g%d.experimental_get_tracing_count()" % f for f in range(nf)))
    want.append(" ".join(str(len(model.traces.get(f, []))) for f in range(nf)))
    path = os.path.join(tmp, "tracekeys.tfs")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    p = subprocess.run([os.path.abspath(tfs), "run", os.path.basename(path)], cwd=tmp, capture_output=True, text=True,
                       timeout=300)
    got = p.stdout.splitlines()
    bad = []
    if p.returncode != 0:
        bad.append("%s: exit %d: %s" % (path, p.returncode, p.stderr.strip()[:500]))
    for i, w in enumerate(want):
        g = got[i] if i < len(got) else "<missing>"
        if g != w:
            bad.append("%s line %d: tfs %r, model %r" % (path, i + 1, g, w))
            break
    ntr = sum(len(v) for v in model.traces.values())
    print("agdiff: tracing keys: %d calls of %d tf.functions, %d traces, %d cache hits; %s" %
          (ncalls, nf, ntr, ncalls - ntr, "trace choices and counts equal to the model" if not bad else "MISMATCH"))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--keep", help="write the generated program here")
    ap.add_argument("--trace-calls", type=int, default=300, help="calls in the tracing-key part (0: skip it)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    g = Gen(rng)
    funcs, calls = [], []
    for k in range(a.count):
        name = "f%d" % k
        funcs.append("\n".join(g.function(name)))
        # each function with two argument sets: zero-trip loops included
        for _ in range(2):
            calls.append((name, [rng.randrange(-3, 6), rng.randrange(-3, 6), rng.randrange(0, 4)]))
    want = python_reference("\n\n".join(funcs) + "\n", calls)
    tmp = a.keep or tempfile.mkdtemp()
    equal, errors, bad = 0, {}, []
    # programs of CHUNK functions: a failing call restarts only its own program
    for c0 in range(0, a.count, CHUNK):
        src = "\n\n".join(funcs[c0:c0 + CHUNK]) + "\n"
        part = [c for c in calls if int(c[0][1:]) in range(c0, c0 + CHUNK)]
        first = calls.index(part[0])
        path = os.path.join(tmp, "agdiff%d.tfs" % c0)
        with open(path, "w") as f:
            f.write(tfs_program(src, part))
        start = 0
        while start < len(part):
            p = subprocess.run([os.path.abspath(a.tfs), "run", os.path.basename(path), str(start)], cwd=tmp,
                               capture_output=True, text=True, timeout=300)
            got = p.stdout.splitlines()
            for i, line in enumerate(got):
                if line == want[first + start + i]:
                    equal += 1
                else:
                    bad.append("%s: tf.function gave %r, Python %r" % (part[start + i][0], line, want[first + start + i]))
            start += len(got)
            if p.returncode == 0:
                if start != len(part):
                    bad.append("%s stopped after %d of %d calls without an error" % (path, start, len(part)))
                break
            msg = p.stderr.split("\n")[0]
            name = part[start][0] if start < len(part) else "?"
            key = next((e for e in ALLOWED_ERRORS if e in msg), None)
            if start >= len(part) or key is None or "error: " not in msg:
                bad.append("%s: unexpected failure: %s" % (name, p.stderr.strip()))
            else:
                errors[key] = errors.get(key, 0) + 1
            start += 1
    nerr = sum(errors.values())
    print("agdiff: %d generated functions, %d calls: %d equal to Python, %d stopped with a §9 error%s" %
          (a.count, len(calls), equal, nerr,
           "".join("\n  %4d x '%s'" % (n, e) for e, n in sorted(errors.items()))))
    # most calls must run to a value, or a broken staging path could hide behind errors
    if equal < len(calls) * 6 // 10:
        bad.append("only %d of %d calls gave values" % (equal, len(calls)))
    if a.trace_calls:
        bad += tracing_keys(a.tfs, random.Random(a.seed * 7919 + 1), a.trace_calls, tmp)
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
