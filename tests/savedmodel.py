#!/usr/bin/env python3
"""savedmodel.py — save a module with one program, delete that program, load and run the SavedModel with another.

For each tests/savedmodel/NAME_save.tfs (with NAME_load.tfs): a copy of the
saving program runs with a fresh export directory as argv[1] (stdout must equal
NAME_save.out), the copy is deleted, and the loading program runs from another
directory (stdout must equal NAME_load.out).  saved_model.pb must decode with
`protoc --decode tensorflow.SavedModel` against proto/saved_model.proto, and
every line of NAME.pbcheck must occur in the decoded text (a line `!TEXT`: TEXT must not); variables/variables
must be a TF checkpoint (read by tests/tfckpt.py, written from the format's
documentation) holding one value per SavedVariable node and an object graph
with as many nodes as the SavedObjectGraph.  Then damaged copies of
the directory (no directory, a truncated or garbage saved_model.pb, a missing
or damaged variables.index, a saved_model.pb naming an op tfs lacks or holding a bad slicing key) must each
give the located error in NAME_ERRCASE.err (DIR stands for the directory).
usage: savedmodel.py TFS PROTO_DIR TEST_DIR
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfckpt  # noqa: E402

tfs, proto_dir, test_dir = (os.path.abspath(a) for a in sys.argv[1:4])
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(prog, arg, cwd):
    # the program by its name in cwd, so located errors name it as the .err files do
    return subprocess.run([tfs, "run", os.path.basename(prog), arg], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def expect(name, got, path):
    want = open(path).read()
    if got != want:
        fail("%s: output differs from %s\n--- got ---\n%s--- want ---\n%s" % (name, path, got, want))


def decode(pb):
    r = subprocess.run(["protoc", "--proto_path=" + proto_dir, "--decode", "tensorflow.SavedModel", "saved_model.proto"],
                       input=open(pb, "rb").read(), capture_output=True)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


# damaged copies: (case, how to damage DIR)
def no_dir(d):
    shutil.rmtree(d)


def truncate_pb(d):
    p = os.path.join(d, "saved_model.pb")
    data = open(p, "rb").read()
    open(p, "wb").write(data[: len(data) // 2])


def garbage_pb(d):
    open(os.path.join(d, "saved_model.pb"), "wb").write(b"\xff\xff\xff\xff not a protocol buffer")


def no_variables(d):
    os.remove(os.path.join(d, "variables", "variables.index"))


def garbage_variables(d):
    open(os.path.join(d, "variables", "variables.index"), "wb").write(b"not a table" * 8)


def unknown_op(d):
    p = os.path.join(d, "saved_model.pb")
    data = open(p, "rb").read()
    # same length, so the message stays well-formed: an op name tfs does not have
    open(p, "wb").write(data.replace(b"\x12\x06MatMul", b"\x12\x06MadMul", 1))


_PB = {}


def saved_model_pb2():
    """tfs's proto/saved_model.proto compiled for python3-protobuf (once)."""
    if not _PB:
        out = tempfile.mkdtemp(prefix="tfs-pb-")
        atexit.register(shutil.rmtree, out, True)
        subprocess.run(["protoc", "--proto_path=" + proto_dir, "--python_out=" + out, "saved_model.proto",
                        "tensorflow.proto"], check=True)
        sys.path.insert(0, out)
        import saved_model_pb2 as m  # noqa: E402
        _PB["m"] = m
    return _PB["m"]


# dtype enum -> (numpy dtype of tensor_content, typed field): what a writer may use instead of tensor_content
TYPED = {19: ("<u2", "half_val"), 14: ("<u2", "half_val"), 22: ("<u4", "uint32_val"), 23: ("<u8", "uint64_val"),
         6: ("<i1", "int_val"), 4: ("<u1", "int_val"), 5: ("<i2", "int_val"), 17: ("<u2", "int_val"),
         1: ("<f4", "float_val"), 2: ("<f8", "double_val"), 3: ("<i4", "int_val"), 9: ("<i8", "int64_val")}


def typed_fields(d):
    """Rewrites every Const of saved_model.pb whose value is in tensor_content into TensorProto's typed repeated
    field (half_val holding float16/bfloat16 bit patterns, uint32_val, uint64_val, int_val...), as other writers
    store constants; returns how many were rewritten."""
    import numpy as np
    pb = saved_model_pb2()
    path = os.path.join(d, "saved_model.pb")
    sm = pb.SavedModel()
    sm.ParseFromString(open(path, "rb").read())
    count = 0
    for mg in sm.meta_graphs:
        nodes = list(mg.graph_def.node) + [n for f in mg.graph_def.library.function for n in f.node_def]
        for n in nodes:
            if "value" not in n.attr or not n.attr["value"].HasField("tensor"):
                continue
            t = n.attr["value"].tensor
            if not t.tensor_content or t.dtype not in TYPED:
                continue
            npdt, field = TYPED[t.dtype]
            values = np.frombuffer(t.tensor_content, dtype=npdt).tolist()
            t.tensor_content = b""
            getattr(t, field).extend(values)
            count += 1
    open(path, "wb").write(sm.SerializeToString())
    return count


def bad_key(d):
    p = os.path.join(d, "saved_model.pb")
    data = open(p, "rb").read()
    # same length: a slicing key (tfs's text after \x01tfs-key:) whose tuple is not closed
    open(p, "wb").write(data.replace(b"\x01tfs-key:T(0,1)", b"\x01tfs-key:T(0,1(", 1))


DAMAGE = [("missing", no_dir), ("truncated", truncate_pb), ("garbage", garbage_pb),
          ("novars", no_variables), ("badvars", garbage_variables), ("unknownop", unknown_op), ("badkey", bad_key)]

names = sorted(f[: -len("_save.tfs")] for f in os.listdir(test_dir) if f.endswith("_save.tfs"))
for name in names:
    with tempfile.TemporaryDirectory() as tmp:
        src, out, run_dir = os.path.join(tmp, "src"), os.path.join(tmp, "model"), os.path.join(tmp, "run")
        os.mkdir(src)
        os.mkdir(run_dir)
        prog = os.path.join(src, name + "_save.tfs")
        shutil.copy(os.path.join(test_dir, name + "_save.tfs"), prog)
        r = run(prog, out, src)
        if r.returncode != 0:
            fail("%s_save: exit %d\n%s" % (name, r.returncode, r.stderr))
            continue
        expect(name + "_save", r.stdout, os.path.join(test_dir, name + "_save.out"))
        shutil.rmtree(src)   # the source is gone: the loader has only the directory
        loader = os.path.join(run_dir, name + "_load.tfs")
        shutil.copy(os.path.join(test_dir, name + "_load.tfs"), loader)
        r = run(loader, out, run_dir)
        if r.returncode != 0:
            fail("%s_load: exit %d\n%s" % (name, r.returncode, r.stderr))
        else:
            expect(name + "_load", r.stdout, os.path.join(test_dir, name + "_load.out"))
        rc, text, err = decode(os.path.join(out, "saved_model.pb"))
        if rc != 0:
            fail("%s: protoc --decode tensorflow.SavedModel failed: %s" % (name, err))
        for line in open(os.path.join(test_dir, name + ".pbcheck")).read().splitlines():
            want = line.strip()
            if want.startswith("!") and want[1:].strip() in text:   # `!LINE`: a line that must not occur
                fail("%s: decoded saved_model.pb has %r" % (name, want[1:].strip()))
            elif want and not want.startswith("!") and want not in text:
                fail("%s: decoded saved_model.pb lacks %r" % (name, want))
        nvars = text.count("variable {")
        values, _, graph, _, _ = tfckpt.read_bundle(os.path.join(out, "variables", "variables"))
        keys = [k for k in values if k.endswith("/.ATTRIBUTES/VARIABLE_VALUE")]
        if len(keys) != nvars or graph is None or len(graph) != text.count("nodes {"):
            fail("%s: variables/variables holds %d values for %d variables" % (name, len(keys), nvars))
        typed = os.path.join(tmp, "typed")
        shutil.copytree(out, typed)
        rewritten = typed_fields(typed)
        r = run(loader, typed, run_dir)
        if r.returncode != 0:
            fail("%s_load of typed fields: exit %d\n%s" % (name, r.returncode, r.stderr))
        else:
            expect(name + "_load of typed fields", r.stdout, os.path.join(test_dir, name + "_load.out"))
        print("%s: saved, source deleted, reloaded; %d decoded lines, %d variables; %d constants retyped, reloaded" %
              (name, text.count("\n"), nvars, rewritten))
        for case, damage in DAMAGE:
            errfile = os.path.join(test_dir, "%s_%s.err" % (name, case))
            if not os.path.exists(errfile):
                continue
            bad = os.path.join(tmp, "bad_" + case)
            shutil.copytree(out, bad)
            damage(bad)
            r = run(loader, bad, run_dir)
            got = r.stderr.replace(bad, "DIR")
            if r.returncode != 1:
                fail("%s_%s: exit %d, expected 1 (a located error)" % (name, case, r.returncode))
            expect("%s_%s" % (name, case), got, errfile)

if failures:
    sys.exit(1)
print("ok: %d saved models" % len(names))
