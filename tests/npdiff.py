#!/usr/bin/env python3
"""npdiff.py — differential test of `import numpy as np` (issue 29): random numpy expressions run in tfs and in
/usr/bin/python3 + numpy must print the same thing.

From a seed, builds programs of random expressions over arrays of random shapes (rank 0-3, broadcasting
and non-broadcasting pairs) and dtypes (float64 float32 int64 int32 bool), covering operators and
comparisons with numpy's type promotion, Python scalars, elementwise functions, reductions with
axis/keepdims, shape functions, and indexing (slices with steps, integer arrays, boolean masks, None,
...) and assignment; then (--text, a sixth of --count by default) expressions on numpy's text ('<U n') arrays:
creation, comparisons, sort/argsort, concatenate/stack, where, astype, indexing.  Each expression is printed with repr(), or its exception as "Class: message", so
numpy's errors are compared too.  Every line of the two outputs must be equal.

usage: npdiff.py TFS [--count N] [--seed S] [--keep DIR]
Prints how many expressions ran and were compared.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

DTYPES = ["float64", "float32", "int64", "int32", "bool"]   # uint8: numpy's results need uint64/int16/float16 (docs/numpy.md)


def shape_of(rng, rank):
    return tuple(rng.randint(1, 4) for _ in range(rank))


def array_src(rng, shape, dtype, positive=False):
    n = 1
    for s in shape:
        n *= s
    start = rng.randint(1, 3) if positive else rng.randint(-4, 2)
    if dtype == "bool":
        return "(np.arange(%d).reshape(%r) %% %d == 0)" % (n, shape, rng.randint(2, 3))
    scale = rng.choice(["", " * 0.5", " * 1.25", " * 3"]) if dtype.startswith("float") else ""
    return "((np.arange(%d) + %d)%s).reshape(%r).astype(np.%s)" % (n, start, scale, shape, dtype)


def broadcast_partner(rng, shape):
    # a shape that broadcasts with `shape` (or, rarely, one that does not)
    if rng.random() < 0.08 and shape:
        return tuple(s + 1 for s in shape)
    out = list(shape[rng.randint(0, len(shape)):]) if shape else []
    out = [1 if rng.random() < 0.3 else s for s in out]
    if rng.random() < 0.2 or not out:
        out = [1] + out
    return tuple(out)


def scalar_src(rng):
    # Python numbers, numpy scalars and 0-d arrays: numpy 1.24's value-based casting decides the result's dtype
    return rng.choice(["2", "-1", "3", "0.5", "2.5", "True", "np.float32(1.5)", "np.float64(-0.5)", "np.int32(3)",
                       "np.int64(-2)", "np.bool_(True)", "np.array(2)", "np.array(1.5, np.float32)"])


def index_src(rng, shape):
    parts = []
    for s in shape:
        c = rng.random()
        if c < 0.25:
            parts.append(str(rng.randint(-s, s - 1)))
        elif c < 0.5:
            parts.append(rng.choice([":", "::-1", "::2", "1:", ":-1", "1::2"]))
        elif c < 0.6:
            parts.append("None, :")
        else:
            parts.append(":")
    if not parts:
        return "..."
    if rng.random() < 0.15:
        parts = ["..."] + parts[1:]
    return ", ".join(parts)


def expression(rng, k):
    """One statement block printing a result; returns the source lines."""
    rank = rng.randint(0, 3) if rng.random() < 0.1 else rng.randint(1, 3)   # 0-d arrays now and then
    shape = shape_of(rng, rank)
    dt = rng.choice(DTYPES)
    a = array_src(rng, shape, dt)
    kind = rng.random()
    lines = ["a = " + a]
    if kind < 0.3:
        other = rng.random()
        op = rng.choice(["+", "-", "*", "/", "<", ">=", "==", "//", "%", "**"])
        if op in ("//", "%", "/", "**"):
            bdt = rng.choice(["float64", "int64", "int32", "float32"])
            b = array_src(rng, broadcast_partner(rng, shape), bdt, positive=True) if other < 0.6 else rng.choice(["2", "3", "0.5", "1.5"])
            if op == "**":
                b = rng.choice(["2", "0.5"]) if other < 0.5 else array_src(rng, broadcast_partner(rng, shape), "int64", positive=True)
                if dt == "bool":
                    lines[0] = "a = " + array_src(rng, shape, "int64", positive=True)
        else:
            b = array_src(rng, broadcast_partner(rng, shape), rng.choice(DTYPES)) if other < 0.6 else scalar_src(rng)
        if dt == "bool" and op in ("-", "//", "%", "/") and other < 0.6:
            lines[0] = "a = " + array_src(rng, shape, "int32")
        lines.append("r = a %s %s" % (op, b) if rng.random() < 0.8 else "r = %s %s a" % (b, op) if op not in ("//", "%", "/", "**") else "r = a %s %s" % (op, b))
    elif kind < 0.45:
        f = rng.choice(["np.abs", "np.sign", "np.floor", "np.ceil", "np.round", "np.isnan", "np.isinf", "np.square"])
        if dt == "bool" and f in ("np.abs", "np.sign", "np.floor", "np.ceil", "np.round", "np.square"):
            lines[0] = "a = " + array_src(rng, shape, "int64")
        if rng.random() < 0.5:
            f = rng.choice(["np.exp", "np.log", "np.sqrt", "np.sin", "np.cos", "np.tanh", "np.log1p"])
            shape = shape or (1,)   # 0-d: numpy's scalar loops round sin/cos differently from its array loops
            lines[0] = "a = " + array_src(rng, shape, rng.choice(["float64", "int64"]), positive=True)
        lines.append("r = %s(a)" % f)
    elif kind < 0.65:
        red = rng.choice(["sum", "mean", "max", "min", "prod", "argmax", "argmin", "all", "any", "cumsum", "std", "var"])
        if red in ("prod", "cumsum") and dt == "bool":
            lines[0] = "a = " + array_src(rng, shape, "int64")
        args = []
        if rank and rng.random() < 0.6:
            ax = rng.randint(-rank, rank - 1)
            args.append("axis=%d" % ax)
            if red not in ("argmax", "argmin", "cumsum") and rng.random() < 0.4:
                args.append("keepdims=True")
        form = rng.random()
        if form < 0.5:
            lines.append("r = a.%s(%s)" % (red, ", ".join(args)))
        else:
            lines.append("r = np.%s(a%s)" % (red, "".join(", " + x for x in args)))
    elif kind < 0.8:
        lines.append("r = a[%s]" % index_src(rng, shape))
        if rank and rng.random() < 0.5:
            c = rng.random()
            if c < 0.4:
                lines[-1] = "r = a[a > %s]" % rng.choice(["0", "1", "2.5"])
            elif c < 0.55:
                idx = [rng.randint(-shape[0], shape[0] - 1) for _ in range(rng.randint(1, 4))]
                lines[-1] = "r = a[%r]" % (idx,)
            elif c < 0.7:
                ax = rng.randint(0, rank - 1)
                idx = [rng.randint(-shape[ax], shape[ax] - 1) for _ in range(rng.randint(1, 3))]
                key = [rng.choice([":", "::-1", "1:"]) for _ in range(ax)] + [repr(idx)]
                lines[-1] = "r = a[%s]" % ", ".join(key)
            else:
                lines.append("a[%s] = %s" % (index_src(rng, shape), rng.choice(["7", "0", "-1"])))
                lines.append("r = a")
    else:
        f = rng.choice(["ravel", "T", "flip", "reshape", "transpose", "concatenate", "stack", "squeeze", "expand_dims", "tile", "repeat", "sort", "argsort"])
        if f == "ravel":
            lines.append("r = a.ravel()")
        elif f == "T":
            lines.append("r = a.T")
        elif f == "flip":
            lines.append("r = np.flip(a%s)" % ((", %d" % rng.randint(0, rank - 1)) if rank and rng.random() < 0.5 else ""))
        elif f == "reshape":
            lines.append("r = a.reshape(%s)" % rng.choice(["-1", "(1, -1)", "(-1, 1)", "(2, -1)", "(3, 2)"]))
        elif f == "transpose":
            lines.append("r = np.transpose(a)")
        elif f in ("concatenate", "stack"):
            lines.append("b = " + array_src(rng, shape, rng.choice(DTYPES)))
            lines.append("r = np.%s([a, b]%s)" % (f, (", axis=%d" % rng.randint(0, rank - 1)) if rank and rng.random() < 0.5 else ""))
        elif f == "squeeze":
            lines.append("r = np.squeeze(a)")
        elif f == "expand_dims":
            lines.append("r = np.expand_dims(a, %d)" % rng.randint(0, rank))
        elif f == "tile":
            lines.append("r = np.tile(a, %d)" % rng.randint(1, 3))
        elif f == "repeat":
            lines.append("r = np.repeat(a, %d)" % rng.randint(1, 3))
        else:
            if dt == "bool":
                lines[0] = "a = " + array_src(rng, shape, "int64")
            lines.append("r = np.%s(a)" % f if rank else "r = 0")
    body = ["try:"] + ["    " + l for l in lines] + ["    print(%d, type(r).__name__, repr(r))" % k,
            "except Exception as e:", "    print(%d, type(e).__name__ + ':', e)" % k]
    return body


WORDS = ["", "a", "ab", "abc", "b", "Ab", "zz", "h\u00e9llo", "x\u20ac", "a b", "10", "7"]


def text_src(rng, shape, words=WORDS):
    """A numpy text ('<U n') array of the shape, from a list (numpy finds the width) or with a dtype."""
    n = 1
    for d in shape:
        n *= d
    vals = [rng.choice(words) for _ in range(n)]
    dt = rng.choice(["", "", ", dtype=str", ", dtype='U2'", ", dtype='<U6'"])
    return "np.array(%r%s).reshape(%r)" % (vals, dt, shape)


def text_expression(rng, k):
    """A statement block over text arrays: creation, comparisons, sort, concatenate, where, astype."""
    rank = rng.randint(0, 2) if rng.random() < 0.1 else rng.randint(1, 2)
    shape = shape_of(rng, rank)
    lines = ["a = " + text_src(rng, shape)]
    kind = rng.random()
    w = repr(rng.choice(WORDS))
    if kind < 0.15:
        lines.append("r = " + rng.choice(["np.full(%d, %s)" % (rng.randint(0, 3), w), "np.zeros(%d, dtype=str)" % rng.randint(1, 3),
                                          "np.array([%s, 'q'])" % w, "np.array([1, %s])" % w, "np.array([1.5, %s])" % w,
                                          "np.array([True, %s])" % w, "np.arange(%d).astype(str)" % rng.randint(1, 4),
                                          "(np.arange(3) * 0.5).astype('U4')", "np.array(%s)" % w, "np.array(%s, dtype='U1')" % w,
                                          "np.array([[%s], ['c']])" % w]))
    elif kind < 0.4:
        op = rng.choice(["==", "!=", "<", "<=", ">", ">="])
        b = text_src(rng, broadcast_partner(rng, shape)) if rng.random() < 0.6 else w
        lines.append("r = a %s %s" % (op, b) if rng.random() < 0.8 else "r = %s %s a" % (b, op))
    elif kind < 0.55:
        if rank:
            ax = rng.choice(["", ", axis=0", ", axis=-1", ", axis=None"])
            lines.append("r = np.sort(a%s)" % ax if rng.random() < 0.6 else "r = np.argsort(a%s, kind='stable')" % ax)
        else:
            lines.append("r = a")
    elif kind < 0.7:
        b = text_src(rng, shape)
        f = rng.choice(["concatenate", "stack"])
        lines.append("r = np.%s([a, %s]%s)" % (f, b, (", axis=%d" % rng.randint(0, rank - 1)) if rank and rng.random() < 0.5 else ""))
    elif kind < 0.8:
        lines.append("r = np.where(a == %s, a, %s)" % (w, rng.choice(["'zzzzzzz'", "a", "'-'", text_src(rng, shape)])))
    elif kind < 0.92:
        tgt = rng.choice(["'U1'", "'U3'", "str", "'<U8'", "int", "float"])
        if tgt in ("int", "float"):
            lines[0] = "a = " + text_src(rng, shape, ["1", "22", "-3", "7"])
        lines.append("r = a.astype(%s)" % tgt)
    else:
        lines.append("r = " + rng.choice(["a[a > %s]" % w, "a[::-1]", "np.unique(a)", "a.T", "a.tolist()", "a.ravel()"]))
    body = ["try:"] + ["    " + l for l in lines] + ["    print(%d, type(r).__name__, repr(r))" % k,
            "except Exception as e:", "    print(%d, type(e).__name__ + ':', e)" % k]
    return body


def run(cmd, path):
    p = subprocess.run(cmd + [path], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tfs")
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--text", type=int, default=None, help="text-array expressions (default: a sixth of --count)")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--keep")
    args = ap.parse_args()
    if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode != 0:
        print("skipped: /usr/bin/python3 has no numpy")
        sys.exit(77)
    rng = random.Random(args.seed)
    src = ["import numpy as np", ""]
    for k in range(args.count):
        src += expression(rng, k)
    ntext = args.count // 6 if args.text is None else args.text
    trng = random.Random(args.seed + 1)   # its own stream: the numeric expressions stay as they were
    for k in range(args.count, args.count + ntext):
        src += text_expression(trng, k)
    total = args.count + ntext
    text = "\n".join(src) + "\n"
    d = args.keep or tempfile.mkdtemp(prefix="npdiff")
    path = os.path.join(d, "npdiff.tfs")
    with open(path, "w") as f:
        f.write(text)
    prc, pout, perr = run(["/usr/bin/python3", "-W", "ignore"], path)
    if prc != 0:
        sys.exit("python3 failed:\n" + perr[-2000:])
    trc, tout, terr = run([args.tfs, "run"], path)
    if trc != 0:
        sys.exit("tfs failed (status %d):\n%s" % (trc, terr[-2000:]))
    pl, tl = pout.splitlines(), tout.splitlines()
    # a printed value may span lines: compare the blocks of each numbered expression
    def blocks(lines):
        out, cur = {}, None
        for l in lines:
            head = l.split(" ", 1)[0]
            if head.isdigit() and int(head) not in out:
                cur = int(head)
                out[cur] = [l]
            elif cur is not None:
                out[cur].append(l)
        return out
    pb, tb = blocks(pl), blocks(tl)
    bad = [k for k in range(total) if pb.get(k) != tb.get(k)]
    if bad:
        exprs = text.split("try:\n")[1:]
        for k in bad[:10]:
            print("--- expression %d:\n%s" % (k, exprs[k].split("    print(")[0]))
            print("numpy: %s\ntfs:   %s" % ("\n".join(pb.get(k, ["(nothing)"])), "\n".join(tb.get(k, ["(nothing)"]))))
        sys.exit("%d of %d expressions differ (seed %d; program kept in %s)" % (len(bad), total, args.seed, path))
    print("%d numpy expressions (%d of them on text arrays): tfs printed what numpy prints for every one" % (total, ntext))
    if not args.keep:
        os.remove(path)
        os.rmdir(d)


if __name__ == "__main__":
    main()
