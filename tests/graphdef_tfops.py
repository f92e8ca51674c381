#!/usr/bin/env python3
"""graphdef_tfops.py — every GraphDef tfs exports must use TensorFlow's registered ops with TF's attributes.

Runs every tests/programs/NAME.tfs that defines a tf.function with
`tfs run --dump-graphs DIR` (failing programs still dump what they traced),
checks that `protoc --encode tensorflow.GraphDef` accepts each .pbtxt, and
checks every node (top level and inside library functions): its op must be
listed in tests/graphdef/tf_raw_ops.txt (TF's REGISTER_OP names) and carry the
attributes listed there (and, for an op whose line is closed with `|`, no
attribute TF does not register); a tfs-internal op (`_`-prefixed) anywhere fails it.
It also checks how the nodes connect: every input names a node (or argument)
of its own graph or function, and While/If carry as many values as their
functions take and return.
DATA_DIR/known_gaps.txt lists `program op` pairs: a tfs-internal op that program's GraphDefs still carry for want of
a TF form (each line says why); such nodes pass, and a listed pair that no longer occurs fails (the list cannot go stale).
usage: graphdef_tfops.py TFS PROTO_DIR PROGRAMS_DIR DATA_DIR [--every N]
--every N checks every N-th of those programs only (the sanitizer builds: each program runs in full there).
"""
import os
import subprocess
import sys
import tempfile


def read_list(path):
    """op -> (required attributes, allowed attributes or None): words after the op are required; a line
    with `|` is closed, its words after the `|` the only other attributes TF registers for the op."""
    out = {}
    for line in open(path):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if "|" in words:
            k = words.index("|")
            out[words[0]] = (words[1:k], set(words[1:k] + words[k + 1:]))
        else:
            out[words[0]] = (words[1:], None)
    return out


def parse(text):
    """protobuf text format (one field or brace a line, as tfs prints it) -> nested [(key, value)] lists."""
    root, stack = [], []
    cur = root
    for raw in text.splitlines():
        s = raw.strip()
        if not s:
            continue
        if s == "}":
            cur = stack.pop()
        elif s.endswith("{"):
            child = []
            cur.append((s[:-1].strip(), child))
            stack.append(cur)
            cur = child
        else:
            k, _, v = s.partition(":")
            cur.append((k.strip(), v.strip()))
    if stack:
        raise ValueError("unbalanced braces")
    return root


def nodes(tree):
    """Every NodeDef (GraphDef.node and FunctionDef.node_def, at any depth)."""
    for k, v in tree:
        if isinstance(v, list):
            if k in ("node", "node_def"):
                yield v
            yield from nodes(v)


def attr_of(nd, key):
    """The value subtree of attribute `key` of a parsed NodeDef (None when absent)."""
    for k, v in nd:
        if k == "attr" and dict((a, b) for a, b in v if not isinstance(b, list)).get("key", "").strip('"') == key:
            return dict(v).get("value")
    return None


def type_list(nd, key):
    """The list(type) attribute `key` as a list of type names ([] when absent or empty)."""
    v = attr_of(nd, key)
    lst = dict(v).get("list") if v else None
    return [t for k, t in lst if k == "type"] if lst else []


def field(tree, key):
    return dict((k, v) for k, v in tree if not isinstance(v, list)).get(key, "").strip('"')


def structure(tree):
    """Errors in how the nodes connect: every input must name a node (or a function's argument) of its own
    scope, and While/If must agree with their functions' signatures on how many values go in and come out."""
    errs = []
    lib = [v for k, v in tree if k == "library"]
    fns = {}
    for fl in lib:
        for k, f in fl:
            if k == "function":
                sig = dict(f).get("signature", [])
                fns[field(sig, "name")] = ([a for a, _ in sig if a == "input_arg"], [a for a, _ in sig if a == "output_arg"],
                                           f, sig)
    scopes = [("graph", [v for k, v in tree if k == "node"], set(), False)]
    for name, (_, _, f, sig) in fns.items():
        args = set(field(v, "name") for k, v in sig if k == "input_arg")
        scopes.append(("function " + name, [v for k, v in f if k == "node_def"], args, True))
    for where, nds, args, fn in scopes:
        outs = {}
        for nd in nds:
            op = field(nd, "op")
            n = None
            if op in ("While", "StatelessWhile"):
                n = len(type_list(nd, "T"))
            elif op in ("If", "StatelessIf"):
                n = len(type_list(nd, "Tout"))
            outs[field(nd, "name")] = n
        for nd in nds:
            name, op = field(nd, "name"), field(nd, "op")
            ins = [v.strip('"') for k, v in nd if k == "input"]
            data = [i for i in ins if not i.startswith("^")]
            for i in ins:
                parts = i.lstrip("^").split(":")
                if parts[0] in args and len(parts) == 1 and fn:
                    continue
                if parts[0] not in outs:
                    errs.append("%s: node '%s' reads '%s', which is no node there" % (where, name, i))
                    continue
                k = int(parts[-1]) if len(parts) > 1 else 0
                if not i.startswith("^") and outs[parts[0]] is not None and k >= outs[parts[0]]:
                    errs.append("%s: node '%s' reads output %d of '%s', which has %d" % (where, name, k, parts[0], outs[parts[0]]))
            if op in ("While", "StatelessWhile"):
                t = len(type_list(nd, "T"))
                if len(data) != t:
                    errs.append("%s: %s '%s' has %d inputs for %d types in T" % (where, op, name, len(data), t))
                for fa, need_out in (("cond", False), ("body", True)):
                    fname = field(dict(attr_of(nd, fa) or []).get("func", []), "name")
                    if fname not in fns:
                        errs.append("%s: %s '%s' names function '%s', which the library lacks" % (where, op, name, fname))
                    elif len(fns[fname][0]) != t or (need_out and len(fns[fname][1]) != t):
                        errs.append("%s: %s '%s' carries %d values but %s '%s' takes %d and returns %d" %
                                    (where, op, name, t, fa, fname, len(fns[fname][0]), len(fns[fname][1])))
            if op in ("If", "StatelessIf"):
                tin, tout = len(type_list(nd, "Tin")), len(type_list(nd, "Tout"))
                if len(data) != 1 + tin:
                    errs.append("%s: %s '%s' has %d inputs for a condition and %d types in Tin" % (where, op, name, len(data), tin))
                for fa in ("then_branch", "else_branch"):
                    fname = field(dict(attr_of(nd, fa) or []).get("func", []), "name")
                    if fname in fns and (len(fns[fname][0]) != tin or len(fns[fname][1]) != tout):
                        errs.append("%s: %s '%s' passes %d values and takes %d but %s '%s' takes %d and returns %d" %
                                    (where, op, name, tin, tout, fa, fname, len(fns[fname][0]), len(fns[fname][1])))
    return errs


def main():
    tfs, proto_dir, progs, data = sys.argv[1:5]
    every = int(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[5] == "--every" else 1
    tfs = os.path.abspath(tfs)
    known = read_list(os.path.join(data, "tf_raw_ops.txt"))
    gaps = set()
    for line in open(os.path.join(data, "known_gaps.txt")):
        words = line.split("#", 1)[0].split()
        if words:
            gaps.add((words[0], words[1]))
    seen_gaps = set()
    bad, nfiles, nnodes, ops = [], 0, 0, set()
    bad += ["tf_raw_ops.txt lists %s, a tfs-internal name" % op for op in known if op.startswith("_")]
    with tempfile.TemporaryDirectory() as tmp:
        chosen = [f for f in sorted(os.listdir(progs))
                  if f.endswith(".tfs") and "tf.function" in open(os.path.join(progs, f)).read()]
        for f in chosen[::every]:
            out = os.path.join(tmp, f[:-4])
            os.mkdir(out)
            p = subprocess.run([tfs, "run", "--dump-graphs", out, f], cwd=progs, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
            # programs may fail on purpose (status 1), but exporting must never crash or trip a sanitizer
            if p.returncode < 0 or b"Sanitizer" in p.stderr or b"runtime error:" in p.stderr:
                bad.append("%s: tfs run --dump-graphs crashed (status %d):\n%s" % (f, p.returncode, p.stderr.decode()[-2000:]))
            for g in sorted(os.listdir(out)):
                if not g.endswith(".pbtxt"):
                    continue
                nfiles += 1
                path = os.path.join(out, g)
                text = open(path).read()
                where = "%s: %s" % (f, g)
                enc = subprocess.run(["protoc", "-I", proto_dir, "--encode", "tensorflow.GraphDef", "tensorflow.proto"],
                                     input=text.encode(), capture_output=True)
                if enc.returncode:
                    bad.append("%s: protoc cannot encode it: %s" % (where, enc.stderr.decode().strip()))
                    continue
                tree = parse(text)
                for e in structure(tree):
                    bad.append("%s: %s" % (where, e))
                for nd in nodes(tree):
                    nnodes += 1
                    fields = dict((k, v) for k, v in nd if not isinstance(v, list))
                    op = fields.get("op", "").strip('"')
                    name = fields.get("name", "").strip('"')
                    ops.add(op)
                    attrs = [dict(v).get("key", "").strip('"') for k, v in nd if k == "attr"]
                    if (f, op) in gaps:
                        seen_gaps.add((f, op))
                        continue
                    if op.startswith("_"):
                        bad.append("%s: node '%s' has op '%s', one of tfs's own" % (where, name, op))
                        continue
                    if op not in known:
                        bad.append("%s: node '%s' has op '%s', which is no TensorFlow op" % (where, name, op))
                        continue
                    need, allowed = known[op]
                    for a in need:
                        if a not in attrs:
                            bad.append("%s: node '%s' (%s) lacks attribute '%s'" % (where, name, op, a))
                    for a in attrs:
                        if allowed is not None and a not in allowed:
                            bad.append("%s: node '%s' (%s) has attribute '%s', which TF does not register" % (where, name, op, a))
    if every == 1:
        bad += ["known_gaps.txt lists %s %s, which no longer occurs" % g for g in sorted(gaps - seen_gaps)]
    print("%d GraphDefs, %d nodes, %d distinct ops" % (nfiles, nnodes, len(ops)))
    if nfiles < 100:
        bad.append("only %d GraphDefs were dumped" % nfiles)
    for b in bad[:60]:
        print("FAIL " + b)
    if len(bad) > 60:
        print("... %d more" % (len(bad) - 60))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
