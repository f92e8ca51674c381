#!/usr/bin/python3
# gen_ckpt_expect.py — writes the expectations of the tests/programs/ckpt_*.tfs goldens: values from numpy, names and messages by TF's rules.
"""Expected outputs of the checkpoint goldens.

    /usr/bin/python3 tests/gen_ckpt_expect.py

The values are computed here with numpy on the programs' inputs; the key names
follow TF's object-graph naming (tensorflow/python/checkpoint: breadth-first
paths, `/.ATTRIBUTES/VARIABLE_VALUE`, save_counter only once save() made it);
the messages are TF 2.15's (checkpoint.py, checkpoint_management.py,
tensor_bundle.cc, py_checkpoint_reader).
"""
import os

import numpy as np

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
A = "/.ATTRIBUTES/VARIABLE_VALUE"
NOT_FOUND_HINT = ("Please double-check that the path is correct. You may be missing the checkpoint suffix "
                  "(e.g. the '-1' in 'path/to/ckpt-1').")


def not_found(path):
    return ("Error when restoring from checkpoint or SavedModel at %s: Unsuccessful TensorSliceReader constructor: "
            "Failed to find any matching files for %s" % (path, path))


def tensor(a):
    shape = "(%s)" % ", ".join(str(d) for d in a.shape) if a.ndim != 1 else "(%d,)" % a.shape[0]
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (a, shape, a.dtype)


def write(name, out, err=None, status=None):
    with open(os.path.join(PROGS, name + ".out"), "w") as f:
        f.write(out)
    for ext, data in ((".err", err), (".status", status)):
        p = os.path.join(PROGS, name + ext)
        if data is None:
            if os.path.exists(p):
                os.remove(p)
        else:
            with open(p, "w") as f:
                f.write(data)


def module_guide():
    f32 = np.float32

    def dense(i, o, scale):
        return (np.arange(i * o, dtype=f32).reshape(i, o) * f32(scale), np.zeros(o, f32) + f32(scale))

    def run(params, x):
        for w, b in params:
            x = np.maximum(x @ w + b, f32(0))
        return x

    saved = [dense(3, 3, 0.125), dense(3, 2, 0.125)]
    fresh = [dense(3, 3, -1.0), dense(3, 2, -1.0)]
    x = np.array([[2.0, 2.0, 2.0]], f32)
    lines = ["True"]
    keys = {"model/dense_1/w" + A: [3, 3], "model/dense_1/b" + A: [3], "model/dense_2/w" + A: [3, 2],
            "model/dense_2/b" + A: [2], "_CHECKPOINTABLE_OBJECT_GRAPH": []}
    lines += ["%s %s" % (k, keys[k]) for k in sorted(keys)]
    lines.append(tensor(run(fresh, x)))
    lines.append(tensor(run(saved, x)))
    lines.append(str(saved[1][0]))
    lines.append("0")   # write() makes no save_counter: the restored Checkpoint's is new
    write("ckpt_module_guide", "\n".join(lines) + "\n")


def manager():
    lines = ["None [] None"]
    kept, v = [], 0.0
    for i in range(1, 5):
        v += 1.5
        kept = (kept + ["DIR/ckpt-%d" % i])[-2:]
        lines.append("DIR/ckpt-%d %s" % (i, kept))
    lines.append("DIR/ckpt-4 DIR/ckpt-4")
    lines += ['model_checkpoint_path: "ckpt-4"', 'all_model_checkpoint_paths: "ckpt-3"',
              'all_model_checkpoint_paths: "ckpt-4"', "all_model_checkpoint_timestamps",
              "all_model_checkpoint_timestamps", "last_preserved_timestamp"]
    # restoring ckpt-3 brings back v after three saves and the counter saved with it
    lines.append("%s %d" % (np.float32(1.5 * 3), 3))
    lines.append("NotFoundError: " + not_found("DIR/ckpt-1"))
    lines.append("['DIR/ckpt-3', 'DIR/ckpt-4'] DIR/ckpt-4")
    lines.append("DIR/ckpt-100 ['DIR/ckpt-4', 'DIR/ckpt-100']")
    # ckpt-100 was written after the restore of ckpt-3 (v 4.5) and one more count (save_counter 4)
    lines.append("%s %d" % (np.float32(4.5), 4))
    lines.append("True False %s" % sorted(["_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter" + A, "v" + A]))
    write("ckpt_manager", "\n".join(lines) + "\n")


def restore_errors():
    lines = ["ValueError: Received incompatible tensor with shape (2,) when attempting to restore variable with shape (3,) "
             "and name v:0."]
    lines.append("%s True True" % np.array([1.0, 2.0], np.float32))
    lines.append('AssertionError: Unresolved object in checkpoint (root).w: attributes {\n  name: "VARIABLE_VALUE"\n'
                 '  full_name: "w"\n  checkpoint_key: "w/.ATTRIBUTES/VARIABLE_VALUE"\n}\nhas_checkpoint_values {\n'
                 '  value: true\n}\n')
    lines.append("AssertionError: Found 1 Python objects that were not bound to checkpointed values, likely due to changes "
                 "in the Python program. Showing 1 of 1 unmatched objects: "
                 "[<tf.Variable 'z:0' shape=() dtype=float32, numpy=1.0>]")
    lines.append("NotFoundError: " + not_found("DIR/nothing-1") + "\n" + NOT_FOUND_HINT)
    lines.append("ValueError: `Checkpoint` was expecting x to be a trackable object (an object derived from `Trackable`), "
                 "got 3. If you believe this object should be trackable (i.e. it is part of the TensorFlow Python API and "
                 "manages state), please open an issue.")
    lines += ["True", "None", "ValueError: Couldn't find 'checkpoint' file or checkpoints in given directory DIR"]
    # attributes set on a Checkpoint are dependencies too (b replaced in place); methods cannot be overwritten
    keys = sorted(["_CHECKPOINTABLE_OBJECT_GRAPH", "b" + A, "c" + A])
    lines.append("%s %s" % ([(k, []) for k in keys], np.float32(4.0)))
    lines.append("AttributeError: attribute 'save' of 'Checkpoint' objects is not writable")
    write("ckpt_restore_errors", "\n".join(lines) + "\n")


def keras():
    # Sequential([Dense(3), Dropout, Dense(1)]): layers with weights numbered apart (layer_with_weights-0/-1), each Dense's
    # kernel and bias; the Keras 2.15 optimizer's _iterations, _learning_rate and its _variables list (iterations first,
    # then m and v of each trainable weight in order)
    shapes = {"kernel0": [2, 3], "bias0": [3], "kernel1": [3, 1], "bias1": [1]}
    model = {"layer_with_weights-0/kernel": [2, 3], "layer_with_weights-0/bias": [3],
             "layer_with_weights-1/kernel": [3, 1], "layer_with_weights-1/bias": [1]}
    opt = {"optimizer/_iterations": [], "optimizer/_learning_rate": []}   # Keras' learning rate is a float32 Variable
    k = 1
    for w in ("kernel0", "bias0", "kernel1", "bias1"):
        for _ in ("m", "v"):
            opt["optimizer/_variables/%d" % k] = shapes[w]
            k += 1

    def listing(entries):
        keys = dict((n + A, s) for n, s in entries.items())
        keys["_CHECKPOINTABLE_OBJECT_GRAPH"] = []
        return ["%s %s" % (n, keys[n]) for n in sorted(keys)]

    ckpt = dict(("model/" + n, s) for n, s in model.items())
    ckpt.update(opt)
    ckpt["save_counter"] = []
    lines = listing(ckpt)
    lines.append("True 3")   # 3 epochs of one batch: 3 optimizer steps
    weights = dict(model)
    weights.update(opt)      # save_weights of a compiled model: the model is the root, its optimizer a child
    lines += listing(weights)
    lines += ["True", "True"]
    lines.append("ValueError: Received incompatible tensor with shape (2, 3) when attempting to restore variable with "
                 "shape (2, 4) and name dense_6/kernel:0.")   # the seventh Dense layer the program made
    lines.append("True")     # load_weights into an unbuilt model: deferred until the layers build
    write("ckpt_keras", "\n".join(lines) + "\n")


def deferred():
    # TF restores a value whose Variable does not exist yet when it is made (layer build, optimizer slots): two more
    # epochs from the restored model and optimizer state give the weights two more epochs gave the original, and the
    # iteration count goes on from the restored 2
    write("ckpt_deferred", "True 4\n")


def err_missing():
    path = "no_such_checkpoint_dir/ckpt"
    err = ("ckpt_err_missing.tfs:6:1: error: NotFoundError: %s\n%s\nckpt.restore(\"%s\")\n^\n"
           % (not_found(path), NOT_FOUND_HINT, path))
    write("ckpt_err_missing", "", err, "1\n")


if __name__ == "__main__":
    module_guide()
    manager()
    restore_errors()
    keras()
    deferred()
    err_missing()
