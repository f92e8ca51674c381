#!/usr/bin/env python3
"""docdetails.py — checks that the API reference's per-entry shapes and errors come from the sources (scripts/gendoc.py), and that no file of the project points outside it."""
import os
import re
import shutil
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "scripts"))
import gendoc  # noqa: E402

fails = []


def entries_of(r):
    errs = []
    es = gendoc.read_ops(r, errs) + gendoc.read_blocks(r, errs)
    common = gendoc.add_details(r, es)
    return {e.name: e for e in es}, common


es, common = entries_of(root)
# messages raised inside an op's meta function and kernel (and their callees) land in that op's entry
for name, want in [("tf.matmul", "Matrix size-incompatible: In[0]: …, In[1]: …"),
                   ("tf.gather", "params must be at least 1 dimensional"),
                   ("tf.reshape", "Only one input size may be -1, not both … and …"),
                   ("tf.add", "Incompatible shapes: … vs. …")]:
    got = [t for t, _c in es[name].errors]
    if want not in got:
        fails.append("%s: expected error %r among %r" % (name, want, got))
    if any(want == t for t, _c in common):
        fails.append("%s: %r counted as common to all calls" % (name, want))
# every op entry has the shape line of its meta function
for n, e in es.items():
    if e.where.startswith("runtime/kernels/ops.def") and e.funcs and not e.shape:
        fails.append("%s has no shape" % n)
if "broadcast" not in es["tf.add"].shape:
    fails.append("tf.add's shape does not mention broadcasting: %r" % es["tf.add"].shape)

# a meta function without its shape line is an error the build reports
tmp = tempfile.mkdtemp()
try:
    for d in ("runtime", "stdlib", "compiler", "capi", "scripts", "docs"):
        if not os.path.isdir(os.path.join(root, d)):
            continue
        shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
    p = os.path.join(tmp, "runtime", "kernels", "k_matmul.c")
    src = open(p).read()
    src2 = re.sub(r"^/\* shape: .*\*/\n(?=void meta_matmul\()", "", src, flags=re.M)
    assert src2 != src
    open(p, "w").write(src2)
    es2, _ = entries_of(tmp)
    if es2["tf.matmul"].shape:
        fails.append("removing meta_matmul's shape line went unnoticed")
finally:
    shutil.rmtree(tmp)

# the project stands alone: no file points at references kept outside the repository
OUTSIDE = re.compile(r"\.\./shared|LANGUAGE\.md|TOOLCHAIN\.md|STYLE\.md|/work/")
for d, _dirs, files in os.walk(root):
    if any(part.startswith(".") or part.startswith("build") for part in os.path.relpath(d, root).split(os.sep)
           if part != "."):
        continue
    for fn in files:
        path = os.path.join(d, fn)
        if fn.startswith(".") or os.path.abspath(path) == os.path.abspath(__file__):   # .git of a worktree names its main
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(text.split("\n"), 1):
            if OUTSIDE.search(line):
                fails.append("%s:%d refers to a file outside the project: %s" % (os.path.relpath(path, root), i,
                                                                                 line.strip()[:100]))

for f in fails:
    print("FAIL:", f)
print("%d entries checked, %d failures" % (len(es), len(fails)))
sys.exit(1 if fails else 0)
