#!/usr/bin/python3
"""keras_dispatch_audit.py — calls each documented tf function (docs/reference/tf.md's "### tf.NAME" entries) on a
KerasTensor in tfs and lists the ones that refuse it: TF 2.15 dispatches a KerasTensor argument of every function
decorated with @dispatch.add_dispatch_support (the generated ops, most of tf.math / tf.nn / tf.linalg / array_ops /
tf.strings / tf.image) to Keras's TFOpLambda, so a refusal there is a gap.

    python3 scripts/keras_dispatch_audit.py build/compiler/tfs [docs/reference/tf.md]

Each function is tried as f(x), then f(x, x), then f(x, 1) with x = keras.Input(shape=(4,)) (float32), and for the
string and image namespaces on inputs of their kind. Printed: the functions that made an op layer (ok, with the
number of arguments that worked and the output shapes, to check against TF's shape functions), those whose
error is tfs's "unsupported type (<class 'KerasTensor'>)" conversion (missing dispatch), and those that failed some
other way (arguments this probe cannot guess: check by hand).
"""
import os
import re
import subprocess
import sys
import tempfile

SKIP = ("tf.io.", "tf.data.", "tf.summary.", "tf.train.", "tf.saved_model.", "tf.config.", "tf.keras", "tf.distribute",
        "tf.profiler", "tf.errors.", "tf.random.set_seed", "tf.print", "tf.function", "tf.py_function", "tf.numpy_function",
        "tf.dtypes.", "tf.experimental.", "tf.version", "tf.compat", "tf.autograph", "tf.nest.", "tf.raw_ops",
        "tf.debugging.enable", "tf.debugging.disable", "tf.executing_eagerly", "tf.name_scope", "tf.device",
        "tf.get_static_value", "tf.is_tensor", "tf.is_symbolic_tensor", "tf.constant", "tf.Variable", "tf.make_ndarray",
        "tf.TensorShape", "tf.as_dtype", "tf.map_fn", "tf.scan", "tf.foldl", "tf.foldr", "tf.vectorized_map", "tf.case",
        "tf.switch_case", "tf.cond", "tf.while_loop", "tf.init_scope", "tf.control_dependencies", "tf.no_op",
        "tf.group", "tf.gradients", "tf.stop_gradient", "tf.custom_gradient", "tf.recompute_grad", "tf.timestamp",
        "tf.newaxis", "tf.lookup", "tf.queue", "tf.tpu", "tf.sysconfig", "tf.test")

PROBE = '''import tensorflow as tf
from tensorflow import keras
x = keras.Input(shape=(4,), name="x")
s = keras.Input(shape=(), dtype="string", name="s")
im = keras.Input(shape=(4, 4, 3), name="im")
i = keras.Input(shape=(4,), dtype="int32", name="i")


def probe(name, f):
    first = s if name.startswith("tf.strings.") else im if name.startswith("tf.image.") else x
    if name.startswith("tf.bitwise."):
        first = i
    err = None
    for args in ([first], [first, first], [first, 1]):
        try:
            r = f(*args)
        except Exception as e:
            if err is None or "KerasTensor" in str(e):
                err = e
            continue
        rs = list(r) if isinstance(r, (list, tuple)) else [r]
        if any([type(t).__name__ == "KerasTensor" for t in rs]):
            # the output shapes, to compare with TF's shape functions by hand
            print("OK", name, len(args), [str(t.shape) if type(t).__name__ == "KerasTensor" else "-" for t in rs])
            return
    msg = str(err).split("\\n")[0][:150]
    kind = "MISSING" if "unsupported type (<class 'KerasTensor'>)" in msg else "OTHER"
    print(kind, name, type(err).__name__, msg)

'''


def names(md):
    out = []
    for line in open(md):
        m = re.match(r"### (tf\.[A-Za-z0-9_.]+)\s*$", line)
        if not m:
            continue
        n = m.group(1)
        last = n.split(".")[-1]
        if n.startswith(SKIP) or last[:1].isupper() or last.startswith("_") or n in out:
            continue
        out.append(n)
    return out


def main():
    tfs = sys.argv[1]
    md = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "docs/reference/tf.md")
    lines = [PROBE]
    for n in names(md):
        lines.append("try:\n    probe(%r, %s)\nexcept Exception as e:\n    print('OTHER', %r, 'lookup', e)\n" % (n, n, n))
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, "audit.tfs")
        with open(prog, "w") as fh:
            fh.write("\n".join(lines))
        r = subprocess.run([tfs, "run", prog], capture_output=True, text=True, timeout=600)
    rows = r.stdout.splitlines()
    for kind in ("MISSING", "OTHER", "OK"):
        got = [l for l in rows if l.startswith(kind + " ")]
        print("== %s (%d)" % (kind, len(got)))
        for l in got:
            print(l[len(kind) + 1:] if kind != "OK" else l[3:])
    if r.returncode:
        print("== the probe program failed:", r.stderr[-2000:])


if __name__ == "__main__":
    main()
