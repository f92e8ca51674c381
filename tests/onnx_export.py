#!/usr/bin/python3
"""onnx_export.py — export every top-level tf.function with an input_signature in tests/programs/ and examples/ with
`tfsc --onnx`, check each model with onnx.checker and run it in ONNX Runtime on the program's own first call,
requiring the outputs tfs gave (integers and bools exactly, floats within 1e-5 relative).

usage: onnx_export.py TFSC SRCDIR WORKDIR [--every N]   (N: every N-th function only, the sanitizer builds)
ONNX Runtime comes from `npm install --ignore-scripts onnxruntime-node` into $TFS_ORT_DIR
(default ~/.cache/tfs-ort); the test is skipped (exit 77) with the reason when node or npm is missing.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx

MIN_VERIFIED = 40


def signature_functions(path):
    """Names of top-level functions decorated with @tf.function(... input_signature ...)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    names, i = [], 0
    while i < len(lines):
        if lines[i].startswith("@tf.function("):
            text, depth = "", 0
            while i < len(lines):
                text += lines[i] + "\n"
                depth += lines[i].count("(") + lines[i].count("[") - lines[i].count(")") - lines[i].count("]")
                i += 1
                if depth <= 0:
                    break
            while i < len(lines) and lines[i].startswith("@"):
                i += 1
            m = re.match(r"def (\w+)\(", lines[i]) if i < len(lines) else None
            if m and "input_signature" in text:
                names.append(m.group(1))
        i += 1
    return names


def ort_dir():
    d = os.environ.get("TFS_ORT_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tfs-ort")
    if os.path.isdir(os.path.join(d, "node_modules", "onnxruntime-node")):
        return d
    if not shutil.which("npm"):
        return None
    os.makedirs(d, exist_ok=True)
    r = subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "onnxruntime-node"], cwd=d,
                       capture_output=True, text=True)
    return d if r.returncode == 0 else None


def ort_or_skip():
    """ONNX Runtime's npm directory, or None after printing the reason the test is skipped."""
    if not shutil.which("node") or not shutil.which("npm"):
        print("SKIP: node or npm is missing: ONNX Runtime (onnxruntime-node) cannot run")
        return None
    d = ort_dir()
    if not d:
        print("SKIP: npm install --ignore-scripts onnxruntime-node failed")
    return d


def as_array(t):
    data = [float(v) if isinstance(v, str) else v for v in t["data"]]
    dt = {"bool": np.int64, "uint8": np.int64, "int32": np.int64, "int64": np.int64}.get(t["dtype"], np.float64)
    return np.array(data, dtype=dt).reshape(t["shape"])


def same(want, got):
    if want["dtype"] != got["dtype"] or list(want["shape"]) != list(got["shape"]):
        return "dtype/shape %s %s vs %s %s" % (want["dtype"], want["shape"], got["dtype"], got["shape"])
    a, b = as_array(want), as_array(got)
    if want["dtype"] in ("float32", "float64"):
        ok = np.allclose(b, a, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    return None if ok else "values %s vs %s" % (a.ravel()[:8], b.ravel()[:8])


def cli_checks(tfsc, work):
    """Refusals and bad choices: located or named errors, exit status 1, and no file touched (atomic writes)."""
    fails = []
    prog = os.path.join(work, "cli.tfs")
    with open(prog, "w") as f:
        f.write("@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])\n"
                "def noisy(x):\n"
                "    tf.print(x)\n"
                "    return x + 1.0\n"
                "\n"
                "@tf.function\n"
                "def plain(x):\n"
                "    return x\n"
                "print(noisy(tf.constant([1.0])))\n"
                "@tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])\n"
                "def inverse(x):\n"
                "    return tf.linalg.inv(x)\n"
                "@tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])\n"
                "def spectral(x):\n"
                "    return tf.norm(x, ord=2, axis=[0, 1])\n"
                "@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])\n"
                "def cplx(x):\n"
                "    return tf.abs(tf.exp(tf.complex(x, x)))\n"
                "@tf.function(input_signature=[tf.TensorSpec([2], tf.complex128)])\n"
                "def cplx_in(z):\n"
                "    return tf.math.real(z) * 2.0\n"
                "@tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])\n"
                "def bits(x):\n"
                "    return tf.bitwise.bitwise_xor(x, 3)\n"
                "@tf.function(input_signature=[tf.TensorSpec([None, 2, 12], tf.float32), tf.TensorSpec([None, 2], tf.float32)])\n"
                "def masked(xp, m):\n"
                "    return tf.raw_ops.TfsLSTMSequence(xp=xp, h0=tf.zeros([2, 3]), c0=tf.zeros([2, 3]), "
                "recurrent_kernel=tf.zeros([3, 12]), mask=m, save=False)[0]\n")
    out = os.path.join(work, "cli.onnx")
    with open(out, "wb") as f:
        f.write(b"previous")
    cases = [
        (["noisy"], "cli.tfs:3:5: error: UnimplementedError: tf.function 'noisy': op PrintV2 has no ONNX form (it has side effects)"),
        (["plain"], "cli.tfs: error: 'plain' is not a tf.function with an input_signature"),
        (["nope"], "cli.tfs: error: the program defines no global 'nope'"),
        (["inverse"], "cli.tfs:12:12: error: UnimplementedError: tf.function 'inverse': op MatrixInverse has no ONNX form"),
        (["spectral"], "cli.tfs:15:12: error: UnimplementedError: Norm: the matrix 2-norm (largest singular value) has no ONNX form"),
        # ONNX's operators take no complex types: a complex tensor anywhere (an input too) is refused
        (["cplx"], "cli.tfs:18:26: error: UnimplementedError: tf.function 'cplx': complex64 tensors have no ONNX form "
                   "(ONNX operators take no complex types)"),
        (["cplx_in"], "cli.tfs:21:12: error: UnimplementedError: tf.function 'cplx_in': complex128 tensors have no ONNX form "
                      "(ONNX operators take no complex types)"),
        (["bits"], "cli.tfs:24:12: error: UnimplementedError: tf.function 'bits': op BitwiseXor has no ONNX form at opset 17 "
                   "(ONNX's bitwise operators are opset 18)"),
        # a masked recurrent op is written per step: its steps must be known
        (["masked"], "cli.tfs:27:12: error: UnimplementedError: TfsLSTMSequence: a mask, recurrent dropout or activation needs a "
                     "static number of steps in tfs's ONNX export"),
    ]
    for args, want in cases:
        r = subprocess.run([tfsc, "--onnx", "cli.tfs", "--function", args[0], "-o", "cli.onnx"], cwd=work,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 1 or not r.stderr.startswith(want) or r.stdout:
            fails.append("tfsc --onnx --function %s: rc %d, stderr %r (want %r)" % (args[0], r.returncode, r.stderr, want))
        if open(out, "rb").read() != b"previous":
            fails.append("tfsc --onnx --function %s changed the output file" % args[0])
    r = subprocess.run([tfsc, "--onnx", "cli.tfs", "--function", "noisy"], cwd=work, capture_output=True, text=True)
    if r.returncode != 2:
        fails.append("tfsc --onnx without -o: rc %d (want 2, usage)" % r.returncode)
    return fails


def main():
    tfsc, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
    # --every N: every N-th function only (the sanitizer builds)
    every = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--every" else 1
    os.makedirs(work, exist_ok=True)
    cli_fails = cli_checks(tfsc, work)
    for f in cli_fails:
        print("FAIL " + f)
    ortd = ort_or_skip()
    if not ortd:
        return 1 if cli_fails else 77
    os.makedirs(work, exist_ok=True)
    progs = sorted(glob.glob(os.path.join(src, "tests", "programs", "*.tfs")) + glob.glob(os.path.join(src, "examples", "*.tfs")))
    # The sample strides over the functions, not the programs: a stride over programs drifts onto
    # programs without signatures as programs are added, and the verified floor then fails by chance.
    funcs = [(prog, fn) for prog in progs for fn in signature_functions(prog)][::every]
    jobs, results, fails = [], {}, list(cli_fails)
    counts = {"functions": 0, "exported": 0, "refused": 0, "program_error": 0, "not_called": 0, "checked": 0}
    for prog, fn in funcs:
        counts["functions"] += 1
        key = "%s:%s" % (os.path.relpath(prog, src), fn)
        base = os.path.join(work, os.path.basename(prog)[:-4] + "." + fn)
        for f in (base + ".onnx", base + ".io.json"):
            if os.path.exists(f):
                os.remove(f)
        r = subprocess.run([tfsc, "--onnx", prog, "--function", fn, "-o", base + ".onnx", "--save-io", base + ".io.json"],
                           capture_output=True, text=True, timeout=120, cwd=os.path.dirname(prog))
        if r.returncode != 0:
            err = r.stderr.strip().split("\n")[0]
            if r.returncode != 1 or not re.match(r"\S+:\d+:\d+: error: ", err):
                fails.append("%s: tfsc --onnx exited %d without a located error: %s" % (key, r.returncode, r.stderr.strip()[:300]))
            elif "ONNX form" in err:
                counts["refused"] += 1
                print("refused  %s: %s" % (key, err))
            else:
                counts["program_error"] += 1
                print("error    %s: %s" % (key, err))
            continue
        counts["exported"] += 1
        try:
            onnx.checker.check_model(onnx.load(base + ".onnx"), full_check=True)
            counts["checked"] += 1
        except Exception as e:  # noqa: BLE001 — any checker complaint fails the test
            fails.append("%s: onnx.checker: %s" % (key, str(e).split("\n")[0]))
            continue
        io = json.load(open(base + ".io.json"))
        if io["inputs"] is None:
            counts["not_called"] += 1
            print("exported %s (the program never calls it: checker only)" % key)
            continue
        jobs.append({"model": base + ".onnx", "inputs": io["inputs"], "out": base + ".ort.json"})
        results[base + ".ort.json"] = (key, io["outputs"])
    with open(os.path.join(work, "jobs.json"), "w") as f:
        json.dump(jobs, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ortd, "node_modules"))
    r = subprocess.run(["node", os.path.join(src, "tests", "onnx_run.js")], stdin=open(os.path.join(work, "jobs.json")),
                       env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        fails.append("node onnx_run.js failed: " + r.stderr[:500])
    verified = 0
    for out, (key, want) in results.items():
        if not os.path.exists(out):
            continue
        got = json.load(open(out))
        if "error" in got:
            fails.append("%s: ONNX Runtime: %s" % (key, got["error"][:300]))
            continue
        if len(got["outputs"]) != len(want):
            fails.append("%s: %d outputs in ONNX Runtime, %d in tfs" % (key, len(got["outputs"]), len(want)))
            continue
        bad = [same(w, g) for w, g in zip(want, got["outputs"])]
        bad = [b for b in bad if b]
        if bad:
            fails.append("%s: output differs: %s" % (key, bad[0]))
        else:
            verified += 1
            print("ok       %s" % key)
    counts["verified"] = verified
    print("counts: " + ", ".join("%s %d" % kv for kv in counts.items()))
    for f in fails:
        print("FAIL " + f)
    if verified < MIN_VERIFIED // every:
        print("FAIL only %d functions verified in ONNX Runtime (at least %d required)" % (verified, MIN_VERIFIED // every))
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
