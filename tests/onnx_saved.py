#!/usr/bin/python3
"""onnx_saved.py — `tfsc --onnx SAVED_DIR --signature NAME`: save a tf.Module (tensor `if`, tensor `while`, Variables)
with one program, delete it, export the SavedModel's signatures with tfsc, check them with onnx.checker, run them in
ONNX Runtime and require the results the loaded SavedModel gives in tfs; then the located errors (missing or corrupt
directory, unknown signature, an op with no ONNX form, the wrong flag for the input), each leaving the output file as it was.

usage: onnx_saved.py TFS TFSC SRCDIR WORKDIR
ONNX Runtime as in onnx_export.py (skipped, exit 77, with the reason where node or npm is missing).
"""
import ast
import json
import os
import shutil
import subprocess
import sys

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_export import ort_or_skip, same  # noqa: E402 — the same ONNX Runtime harness and comparison

SAVE = """class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, -2.0], [0.5, 1.5]], name='w')
        self.limit = tf.Variable(4.0, name='limit')

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        y = tf.matmul(x, self.w)
        if tf.reduce_sum(y) > 0.0:
            y = tf.nn.relu(y)
        else:
            y = -y
        n = tf.constant(0)
        while tf.reduce_max(y) > self.limit:
            y = y / 2.0
            n += 1
        return y, n

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def steps(self, n):
        k = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            k += 1
        return k

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def noisy(self, v):
        tf.print(v)
        return v + 1.0


m = Net()
tf.saved_model.save(m, argv[1], signatures={'serving_default': m.__call__, 'steps': m.steps, 'noisy': m.noisy})
print('saved')
"""

# (signature, keyword, input tensors as JSON); the loading program prints what the SavedModel returns for each
CALLS = [
    ("serving_default", "x", {"dtype": "float32", "shape": [2, 2], "data": [1.0, 2.0, 3.0, -1.0]}),
    ("serving_default", "x", {"dtype": "float32", "shape": [1, 2], "data": [1.0, 1.0]}),
    ("serving_default", "x", {"dtype": "float32", "shape": [3, 2], "data": [10.0, 10.0, 0.0, 1.0, -1.0, 0.5]}),
    ("steps", "n", {"dtype": "int32", "shape": [], "data": [27]}),
    ("steps", "n", {"dtype": "int32", "shape": [], "data": [1]}),
]

LOAD_CALL = """r = m.signatures['{sig}']({kw}=tf.reshape(tf.constant({data}, dtype=tf.{dtype}), {shape}))
print([[k, r[k].dtype.name, r[k].shape.as_list(), tf.reshape(r[k], [-1]).numpy().tolist()] for k in sorted(r.keys())])
"""


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def error_checks(tfsc, work, fails):
    """Each bad invocation: exit 1, exactly the message, nothing on stdout, the output file untouched."""
    out = os.path.join(work, "prev.onnx")
    with open(out, "wb") as f:
        f.write(b"previous")
    os.makedirs(os.path.join(work, "garbage"), exist_ok=True)
    with open(os.path.join(work, "garbage", "saved_model.pb"), "wb") as f:
        f.write(b"\xff\xff\xff\xffnot a protocol buffer")
    with open(os.path.join(work, "prog.tfs"), "w") as f:
        f.write("print(1)\n")
    cases = [
        (["saved", "--signature", "nope"],
         "saved: error: the SavedModel has no signature 'nope' (its signatures: 'noisy', 'serving_default', 'steps')"),
        (["saved", "--signature", "noisy"],
         "saved: error: tf.function 'noisy': op PrintV2 has no ONNX form (it has side effects)"),
        (["missing", "--signature", "serving_default"],
         "missing: error: SavedModel file does not exist at: 'missing/saved_model.pb' (No such file or directory)"),
        (["garbage", "--signature", "serving_default"],
         "garbage: error: 'garbage' is corrupt: saved_model.pb is not a SavedModel protocol buffer"),
        (["saved", "--function", "f"],
         "tfsc: error: --function is for a .tfs program; 'saved' is a SavedModel directory: use --signature NAME"),
        (["saved"], "tfsc: error: 'saved' is a SavedModel directory: name the signature to export with --signature NAME"),
        (["saved", "--signature", "steps", "--save-io", "io.json"],
         "tfsc: error: --save-io is for a .tfs program; 'saved' is a SavedModel directory"),
        (["prog.tfs", "--signature", "serving_default"],
         "tfsc: error: --signature is for a SavedModel directory; 'prog.tfs' is a program: use --function NAME"),
        (["prog.tfs"], "tfsc: error: name the tf.function of 'prog.tfs' to export with --function NAME"),
    ]
    pb = os.path.join(work, "saved", "saved_model.pb")
    before = open(pb, "rb").read()
    r = run([tfsc, "--onnx", "saved", "--signature", "steps", "-o", "saved/saved_model.pb"], work)
    want = "tfsc: error: output file 'saved/saved_model.pb' is the same as input file 'saved/saved_model.pb'\n"
    if r.returncode != 1 or r.stderr != want or open(pb, "rb").read() != before:
        fails.append("tfsc --onnx saved -o saved/saved_model.pb: rc %d, stderr %r (want %r)" % (r.returncode, r.stderr, want))
    for args, want in cases:
        r = run([tfsc, "--onnx"] + args + ["-o", "prev.onnx"], work)
        if r.returncode != 1 or r.stderr != want + "\n" or r.stdout:
            fails.append("tfsc --onnx %s: rc %d, stderr %r (want %r)" % (" ".join(args), r.returncode, r.stderr, want))
        elif open(out, "rb").read() != b"previous":
            fails.append("tfsc --onnx %s changed the output file" % " ".join(args))
        else:
            print("ok       error: " + want)


def main():
    tfs, tfsc, src, work = (os.path.abspath(a) for a in sys.argv[1:5])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    fails = []
    # save, then delete the source: everything below reads only the directory
    with open(os.path.join(work, "save.tfs"), "w") as f:
        f.write(SAVE)
    r = run([tfs, "run", "save.tfs", "saved"], work)
    if r.returncode != 0 or r.stdout != "saved\n":
        print("FAIL saving the module: rc %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        return 1
    os.remove(os.path.join(work, "save.tfs"))
    error_checks(tfsc, work, fails)
    # what the loaded SavedModel gives in tfs
    load = "m = tf.saved_model.load('saved')\n" + "".join(
        LOAD_CALL.format(sig=s, kw=kw, data=t["data"], dtype=t["dtype"], shape=t["shape"]) for s, kw, t in CALLS)
    with open(os.path.join(work, "load.tfs"), "w") as f:
        f.write(load)
    r = run([tfs, "run", "load.tfs"], work)
    lines = r.stdout.strip().split("\n")
    if r.returncode != 0 or len(lines) != len(CALLS):
        print("FAIL loading the module: rc %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        return 1
    wants = [ast.literal_eval(line) for line in lines]
    # export each signature once
    exported = 0
    for sig in sorted({c[0] for c in CALLS}):
        r = run([tfsc, "--onnx", "saved", "--signature", sig, "-o", sig + ".onnx"], work)
        if r.returncode != 0 or r.stderr or r.stdout:
            fails.append("tfsc --onnx saved --signature %s: rc %d %s" % (sig, r.returncode, r.stderr.strip()))
            continue
        model = onnx.load(os.path.join(work, sig + ".onnx"))
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # noqa: BLE001 — any checker complaint fails the test
            fails.append("%s: onnx.checker: %s" % (sig, str(e).split("\n")[0]))
            continue
        ops = {n.op_type for n in model.graph.node}
        names = ([i.name for i in model.graph.input], [o.name for o in model.graph.output],
                 sorted(i.name.split("__")[0] for i in model.graph.initializer))  # Variable 'w:0' is initializer 'w_0__N'
        print("exported %s: inputs %s, outputs %s, initializers %s, ops %s" % (sig, names[0], names[1], names[2],
                                                                             " ".join(sorted(ops))))
        if "Loop" not in ops or (sig == "serving_default" and ("If" not in ops or names[2] != ["limit_0", "w_0"])):
            fails.append("%s: the model lacks its Loop/If or Variable initializers: %s %s" % (sig, ops, names))
        exported += 1
    ortd = ort_or_skip()
    if not ortd:
        for f in fails:
            print("FAIL " + f)
        return 1 if fails else 77
    jobs = [{"model": os.path.join(work, s + ".onnx"), "inputs": [t], "out": os.path.join(work, "call%d.ort.json" % i)}
            for i, (s, kw, t) in enumerate(CALLS)]
    env = dict(os.environ, NODE_PATH=os.path.join(ortd, "node_modules"))
    r = subprocess.run(["node", os.path.join(src, "tests", "onnx_run.js")], input=json.dumps(jobs), env=env,
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fails.append("node onnx_run.js failed: " + r.stderr[:500])
    verified = 0
    for job, (s, kw, t), want in zip(jobs, CALLS, wants):
        if not os.path.exists(job["out"]):
            fails.append("%s(%s): no ONNX Runtime result" % (s, t["data"]))
            continue
        got = json.load(open(job["out"]))
        if "error" in got:
            fails.append("%s: ONNX Runtime: %s" % (s, got["error"][:300]))
            continue
        model = onnx.load(job["model"])
        ort_names = [o.name for o in model.graph.output]
        if ort_names != [w[0] for w in want]:
            fails.append("%s: ONNX outputs %s, the signature's %s" % (s, ort_names, [w[0] for w in want]))
            continue
        bad = [same({"dtype": w[1], "shape": w[2], "data": w[3]}, g) for w, g in zip(want, got["outputs"])]
        bad = [b for b in bad if b]
        if bad:
            fails.append("%s(%s): output differs: %s" % (s, t["data"], bad[0]))
        else:
            verified += 1
            print("ok       %s(%s) = %s" % (s, t["data"], [w[3] for w in want]))
    print("counts: signatures exported %d, calls equal in ONNX Runtime %d of %d" % (exported, verified, len(CALLS)))
    for f in fails:
        print("FAIL " + f)
    return 1 if fails or verified != len(CALLS) else 0


if __name__ == "__main__":
    sys.exit(main())
