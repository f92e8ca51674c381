#!/usr/bin/env python3
"""layers.py — the include rule: no C file includes a header from a layer above its own.

Layers, lowest first (docs/architecture.md): runtime/object, runtime/tensor,
runtime/dist, runtime/kernels, runtime/graph, runtime/formats, stdlib/ (function/ and
modules/, one layer), then capi/ and compiler/ (which may include anything
below them).  An include is resolved as the compiler resolves it: next to the
including file first, then on the include path (the repository root,
runtime/, stdlib/, the build directory for generated headers).  An include
that resolves to no file of the repository (a system or generated header) is
not checked.  With --self-test the script also checks that it catches a
planted upward include.

With --archive LIBTFSRT.A it checks calls as well as includes: no object of
the runtime archive refers to a symbol defined by an object of a higher layer
(nm; meson names members after their source path, runtime_object_value.c.o).
A lower layer reaches an upper one only through the slots the upper one fills
at start-up (rt_layers_init), which nm cannot see as references.

usage: layers.py ROOT [--self-test] [--archive LIBTFSRT.A]
"""
import os
import re
import sys

LAYERS = ["runtime/object", "runtime/tensor", "runtime/dist", "runtime/kernels", "runtime/graph", "runtime/formats", "stdlib",
          "capi", "compiler"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    for i, prefix in enumerate(LAYERS):
        if rel == prefix or rel.startswith(prefix + "/"):
            return i
    return None


def resolve(root, including, name):
    for base in (os.path.dirname(including), root, os.path.join(root, "runtime"), os.path.join(root, "stdlib")):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return os.path.relpath(p, root)
    return None


def check(root):
    """Every violation as 'file:line: includes "name" (layer) from layer'."""
    bad, files = [], 0
    for top in ("runtime", "stdlib", "capi", "compiler"):
        for d, _dirs, names in os.walk(os.path.join(root, top)):
            for fn in sorted(names):
                if not fn.endswith((".c", ".h", ".def")):
                    continue
                path = os.path.join(d, fn)
                rel = os.path.relpath(path, root)
                mine = layer_of(rel)
                if mine is None:
                    continue
                files += 1
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    target = resolve(root, path, m.group(1))
                    if target is None:
                        continue
                    theirs = layer_of(target)
                    if theirs is not None and theirs > mine:
                        line = text.count("\n", 0, m.start()) + 1
                        bad.append('%s:%d: includes "%s" (%s) from the lower layer %s'
                                   % (rel, line, m.group(1), LAYERS[theirs], LAYERS[mine]))
    return bad, files


def member_layer(member):
    """The layer of an archive member named after its source path; None for generated protobuf code."""
    if member.startswith("meson-generated_.._stdlib_"):
        return LAYERS.index("stdlib")
    for i, prefix in enumerate(LAYERS):
        if member.startswith(prefix.replace("/", "_") + "_"):
            return i
    return None


def check_archive(path):
    """Every reference from an archive member to a symbol defined by a member of a higher layer."""
    import subprocess
    out = subprocess.run(["nm", "-A", path], capture_output=True, text=True, check=True).stdout
    defs, refs = {}, []
    for line in out.splitlines():
        head, _, rest = line.rpartition(": ")
        member = head.rsplit(":", 1)[-1]
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRCV":
            defs[parts[2]] = member
        elif len(parts) == 2 and parts[0] == "U":
            refs.append((member, parts[1]))
    bad = {}
    for member, sym in refs:
        owner = defs.get(sym)
        if owner is None:
            continue
        mine, theirs = member_layer(member), member_layer(owner)
        if mine is not None and theirs is not None and theirs > mine:
            bad.setdefault((member, owner), []).append(sym)
    return ["%s calls up into %s (%s): %s" % (m, o, LAYERS[member_layer(o)], " ".join(sorted(ss)))
            for (m, o), ss in sorted(bad.items())]


def self_test(root):
    """A planted upward include in a copy of one file must be caught."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        for top in ("runtime", "stdlib"):
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top))
        victim = os.path.join(tmp, "runtime", "object", "value.c")
        with open(victim, "a") as f:
            f.write('\n#include "graph/trace.h"\n')
        bad, _ = check(tmp)
        return any("runtime/object/value.c" in b and "runtime/graph" in b for b in bad)
    finally:
        shutil.rmtree(tmp)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    bad, files = check(root)
    for b in bad:
        print("error: " + b)
    ok = not bad
    if "--self-test" in sys.argv[2:]:
        caught = self_test(root)
        print("self-test: a planted upward include is %s" % ("caught" if caught else "NOT caught"))
        ok = ok and caught
    print("%d files checked, %d upward includes" % (files, len(bad)))
    if "--archive" in sys.argv[2:]:
        calls = check_archive(sys.argv[sys.argv.index("--archive") + 1])
        for c in calls:
            print("error: " + c)
        print("%d upward references between the runtime archive's objects" % len(calls))
        ok = ok and not calls
    print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
