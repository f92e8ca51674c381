#!/usr/bin/env python3
"""tffuzz.py — random tf.function calls (issue 28): functions, methods and concrete functions called with
random mixes of host values (ints, floats, bools, strings, None, lists, tuples, dicts), tf.Variables and tensors of
random dtypes and shapes (empty ones included), traced with and without reduce_retracing and with
input_signatures of unknown dimensions, each call compared with the same Python function run eagerly.

Every generated function is generic over its arguments: it folds each argument into a float (a tensor's
cast sum, a string's length, ...) with tensor `if`/`while`/`for tf.range` loops that AutoGraph stages when
an argument is a tensor and Python runs when it is not, and returns a structure mixing tensors and host
values.  A call must give what the eager call gives (values, or the same error class; errors TF raises
only while staging are counted apart), and a run must end normally: a crash, a sanitizer report or a lost
call is a failure.  Concrete functions (get_concrete_function with the call's own arguments or with
TensorSpecs of unknown dimensions) are called with the arguments they were made for; their values must
match eager, their errors are counted (the calling rules are §8's).

usage: tffuzz.py TFS [--count N] [--seed S] [--budget SECONDS] [--keep DIR]
Prints how many calls ran.
"""
import argparse

import errtext
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

PRELUDE = r'''
def _num(x):
    if isinstance(x, tf.Tensor) or isinstance(x, tf.Variable):
        if x.dtype == tf.string:
            return tf.cast(tf.size(x), tf.float32)
        return tf.reduce_sum(tf.cast(x, tf.float32))
    if isinstance(x, bool):
        return 1.5 if x else 0.5
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str):
        return float(len(x)) + 0.25
    if x is None:
        return -1.0
    if isinstance(x, (list, tuple)):
        s = 0.125
        for e in x:
            s = s + _num(e)
        return s
    if isinstance(x, dict):
        s = 0.375
        for k in sorted(x.keys()):
            s = s + _num(x[k])
        return s
    return 0.0

def _flat(v, out):
    if isinstance(v, (list, tuple)):
        out.append('(' if isinstance(v, tuple) else '[')
        for e in v:
            _flat(e, out)
        out.append(')' if isinstance(v, tuple) else ']')
    elif isinstance(v, dict):
        out.append('{')
        for k in sorted(v.keys()):
            out.append(str(k) + ':')
            _flat(v[k], out)
        out.append('}')
    elif isinstance(v, tf.Tensor) or isinstance(v, tf.Variable):
        t = tf.convert_to_tensor(v)
        if t.dtype == tf.string and len(t.shape) == 0:
            out.append('S' + str(t.numpy()))
        elif len(t.shape) == 0:   # a host number returned by a tf.function is a 0-d tensor, as in TF
            out.append('N' + str(round(float(t.numpy()) * 1000.0)))
        else:
            if t.dtype == tf.float32 or t.dtype == tf.float64:
                t = tf.round(t * 1000.0)
            out.append('T' + t.dtype.name + str(t.shape) + str(t.numpy()).replace('\n', ' '))
    elif isinstance(v, (bool, int, float)):
        out.append('N' + str(round(float(v) * 1000.0)))
    elif isinstance(v, str):
        out.append('S' + str(tf.constant(v).numpy()))
    else:
        out.append(repr(v))
    return out

def _show(v):
    return ' '.join(_flat(v, []))

# Errors TF raises while staging where eager execution runs on (docs/autograph.md; tests/difftest.py).
_STAGING = ['branch must also have a return statement', 'must also be initialized in the', 'in the main branch, but',
            'before the loop, but', 'must be defined before the loop', 'loop must iterate at least once',
            'which depend on a TF condition are not supported in Python for loops',
            'must have the same nested structure', 'is not allowed', 'Tensor as a Python `bool`',
            'symbolic tensor as a Python bool']

def _staging(msg):
    for s in _STAGING:
        if s in msg:
            return True
    return False

def _run(f, args, kw):
    try:
        return _show(f(*args, **kw)), None
    except Exception as e:
        return None, _emsg(e)[:240]

def _check(name, f, g, args, kw):
    e, ee = _run(f, args, kw)
    r, re = _run(g, args, kw)
    if ee is None and re is None:
        if e == r:
            print('ok', name)
        else:
            print('MISMATCH', name, 'eager:', e, '| graph:', r)
    elif ee is not None and re is not None:
        if ee.split(':')[0] == re.split(':')[0]:
            print('ok-error', name)
        else:
            print('MISMATCH', name, 'eager:', ee, '| graph:', re)
    elif re is not None and _staging(re):
        print('ok-staging', name)
    else:
        print('MISMATCH', name, 'eager:', ee if ee is not None else e, '| graph:', re if re is not None else r)

def _check_cf(name, f, make, args, kw):
    e, ee = _run(f, args, kw)
    try:
        cf = make()
    except Exception as ex:
        print('cf-error', name, 'making:', _emsg(ex)[:240])
        return
    r, re = _run(cf, args, kw)
    if re is not None:
        print('cf-error', name, 'calling:', re)
    elif ee is not None:
        print('cf-error', name, 'eager:', ee)
    elif e == r:
        print('ok', name)
    else:
        print('MISMATCH', name, 'eager:', e, '| concrete:', r)
'''
PRELUDE += errtext.EMSG


HOST = ["0", "1", "-2", "7", "1.5", "-0.25", "True", "False", "'hi'", "''", "'abc'", "None", "(1, 2)", "[1.0, 2.0]",
        "[]", "()", "{'k': 1, 'j': 2.5}", "{}", "[(1, 'a'), None]", "(tf.constant(1.0), 3)"]
DTYPES = ["float32", "float32", "int32", "float64", "int64", "bool", "string"]


class Gen:
    def __init__(self, r):
        self.r = r

    def shape(self):
        r = self.r
        rank = r.choice([0, 0, 1, 1, 2, 3])
        return [r.choice([0, 1, 2, 3]) if r.random() < 0.85 else 0 for _ in range(rank)]

    def tensor(self, dtype=None, shape=None):
        r = self.r
        dt = dtype or r.choice(DTYPES)
        sh = self.shape() if shape is None else shape
        n = 1
        for d in sh:
            n *= d
        if dt == "bool":
            vals = [r.choice(["True", "False"]) for _ in range(n)]
        elif dt == "string":
            vals = [r.choice(["'a'", "'bc'", "''"]) for _ in range(n)]
        elif dt.startswith("int"):
            vals = [str(r.randint(-3, 4)) for _ in range(n)]
        else:
            vals = [repr(round(r.uniform(-3, 3), 2)) for _ in range(n)]
        if not sh:
            return "tf.constant(%s, dtype=tf.%s)" % (vals[0], dt)
        return "tf.reshape(tf.constant([%s], dtype=tf.%s), %s)" % (", ".join(vals), dt, sh)

    def arg(self):
        r = self.r
        c = r.random()
        if c < 0.45:
            return r.choice(HOST)
        if c < 0.5:
            return "[%s, %s]" % (self.tensor("float32", []), r.choice(["1", "2.5", "True"]))
        if c < 0.55:   # a Variable argument (a resource input of the graph)
            return "tf.Variable(%s)" % self.tensor(r.choice(["float32", "int32", "float64"]))
        return self.tensor()

    def body(self, params, depth=0):
        r = self.r
        lines = ["acc = 0.0"]
        for i, p in enumerate(params):
            w = r.choice(["1.0", "2.0", "0.5"])
            lines.append("acc = acc + _num(%s) * %s" % (p, w))
        n = r.randint(1, 3)
        for _ in range(n):
            p = r.choice(params)
            k = r.random()
            if k < 0.25:
                lines += ["if _num(%s) > %s:" % (p, r.choice(["0.0", "1.0", "2.5"])),
                          "    acc = acc + 1.0",
                          "else:",
                          "    acc = acc - %s" % r.choice(["1.0", "_num(%s)" % r.choice(params)])]
            elif k < 0.45:
                lines += ["for i in tf.range(tf.size(%s)):" % p,
                          "    acc = acc + tf.cast(i, tf.float32) * 0.5"]
            elif k < 0.6:
                lines += ["j = 0",
                          "while j < tf.minimum(tf.size(%s), 3):" % p,
                          "    acc = acc * 1.5",
                          "    j = j + 1"]
            elif k < 0.7:
                lines += ["if isinstance(%s, str):" % p, "    acc = acc + 10.0"]
            elif k < 0.8:
                lines += ["for e in [%s, 1.0]:" % p, "    acc = acc + _num(e)"]
            elif k < 0.9:
                lines += ["if isinstance(%s, tf.Tensor):" % p,
                          "    acc = acc + tf.cast(tf.reduce_prod(tf.shape(%s)), tf.float32)" % p]
            else:
                lines += ["if %s is None:" % p, "    acc = acc - 3.0"]
        ret = r.random()
        if ret < 0.4:
            lines.append("return acc")
        elif ret < 0.6:
            lines.append("return acc, %s" % r.choice(params))
        elif ret < 0.8:
            lines.append("return {'acc': acc, 'n': tf.size(%s), 'h': %s}" % (r.choice(params), r.choice(["'x'", "3", "None"])))
        else:
            lines.append("return [acc, tf.shape(%s)]" % r.choice(params))
        return lines


def gen_program(r, nfuncs, calls_per):
    g = Gen(r)
    src = [PRELUDE]
    cases = 0
    for fi in range(nfuncs):
        npar = r.randint(1, 3)
        params = ["p%d" % i for i in range(npar)]
        body = g.body(params)
        kind = r.choice(["fn", "fn", "method", "sig", "cf"])
        rr = r.choice(["True", "False"])
        ind = lambda ls, k: ["    " * k + l for l in ls]
        name = "f%d" % fi
        if kind == "method":
            src.append("class C%d:" % fi)
            src.append("    def __init__(self, k):")
            src.append("        self.k = k")
            src.append("    def m(self, %s):" % ", ".join(params))
            src += ind(["acc0 = _num(self.k)"] + body, 2)
            src.append("    @tf.function(reduce_retracing=%s)" % rr)
            src.append("    def mg(self, %s):" % ", ".join(params))
            src += ind(["acc0 = _num(self.k)"] + body, 2)
            src.append("_objs%d = [C%d(1), C%d('two'), C%d(tf.constant(3.0))]" % (fi, fi, fi, fi))
        else:
            src.append("def %s(%s):" % (name, ", ".join(params)))
            src += ind(body, 1)
            if kind == "sig":
                dts = [r.choice(["float32", "int32", "float64", "bool"]) for _ in params]
                ranks = [r.choice([0, 1, 2]) for _ in params]
                src.append("%s_g = tf.function(%s, input_signature=[%s], reduce_retracing=%s)"
                           % (name, name, ", ".join("tf.TensorSpec(%s, tf.%s)" % ([None] * k, d) for k, d in zip(ranks, dts)), rr))
            else:
                src.append("%s_g = tf.function(%s, reduce_retracing=%s)" % (name, name, rr))
        for ci in range(calls_per):
            if kind == "sig":
                args = [g.tensor(d, [r.choice([0, 1, 2, 3]) for _ in range(k)]) for k, d in zip(ranks, dts)]
            else:
                args = [g.arg() for _ in params]
            kw = {}
            if kind != "method" and r.random() < 0.25 and params:
                kw[params[-1]] = args.pop()
            a = "(%s%s)" % (", ".join(args), "," if len(args) == 1 else "")
            k = "{%s}" % ", ".join("%r: %s" % (kk, v) for kk, v in kw.items())
            label = "%d.%d:%s:%s" % (fi, ci, kind, rr)
            if kind == "method":
                o = "_objs%d[%d]" % (fi, r.randint(0, 2))
                src.append("_check(%r, %s.m, %s.mg, %s, %s)" % (label, o, o, a, k))
            elif kind == "cf":
                src.append("_a = %s" % a)
                if r.random() < 0.5:
                    make = "lambda: %s_g.get_concrete_function(*_a, **%s)" % (name, k)
                else:
                    make = ("lambda: %s_g.get_concrete_function(*[tf.TensorSpec([None] * len(x.shape), x.dtype) "
                            "if isinstance(x, tf.Tensor) else x for x in _a], **%s)" % (name, k))
                src.append("_check_cf(%r, %s, %s, _a, %s)" % (label, name, make, k))
            else:
                src.append("_check(%r, %s, %s_g, %s, %s)" % (label, name, name, a, k))
            cases += 1
    return "\n".join(src) + "\n", cases


SANITIZER = re.compile(rb"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("--count", type=int, default=400, help="calls compared (each runs eagerly and as a graph)")
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--budget", type=float, default=0, help="stop starting new programs after this many seconds")
    ap.add_argument("--keep", help="write the generated programs here")
    args = ap.parse_args()
    tfs = os.path.abspath(args.tfs)
    r = random.Random(args.seed)
    t0 = time.time()
    cases = calls = files = nerr = nstage = 0
    cferr = {}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        keep = args.keep or tmp
        os.makedirs(keep, exist_ok=True)
        while cases < args.count:
            if args.budget and time.time() - t0 > args.budget:
                break
            src, made = gen_program(r, 8, 6)
            path = os.path.join(keep, "tffuzz_%d.tfs" % files)
            with open(path, "w") as f:
                f.write(src)
            files += 1
            try:
                p = subprocess.run([tfs, "run", path], cwd=tmp, capture_output=True, timeout=600)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = "timeout", b"", b""
            lines = out.decode("utf-8", "replace").splitlines()
            done = [l for l in lines if l.startswith(("ok", "MISMATCH", "cf-error"))]
            cases += made
            for l in done:
                calls += 2
                if l.startswith("ok-error"):
                    nerr += 1
                elif l.startswith("ok-staging"):
                    nstage += 1
                elif l.startswith("cf-error"):
                    key = re.sub(r"'[^']*'|\d+", "_", " ".join(l.split()[2:]))[:150]
                    cferr[key] = cferr.get(key, 0) + 1
                elif l.startswith("MISMATCH"):
                    failures.append("%s: %s" % (path, l))
            if rc != 0 or SANITIZER.search(err) or len(done) != made:
                tail = err.decode("utf-8", "replace").strip().splitlines()[-12:]
                failures.append("%s: exit %s after %d of %d calls\n    %s" % (path, rc, len(done), made, "\n    ".join(tail)))
                if not args.keep:
                    shutil.copy(path, os.path.join(os.getcwd(), os.path.basename(path)))
    print("tffuzz: %d programs, %d compared calls (%d tfs calls, eager + graph), %.0f s" % (files, cases, calls, time.time() - t0))
    print("tffuzz: %d raised the same error class both ways, %d a staging error TF raises (eager ran on)" % (nerr, nstage))
    for k, v in sorted(cferr.items(), key=lambda kv: -kv[1]):
        print("  concrete-function error x%d: %s" % (v, k))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
