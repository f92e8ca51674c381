#!/usr/bin/env python3
"""capi.py — libtfs from C: save tests/savedmodel/sm_module_save.tfs's module, run the Check suite test_capi on it, serve it.

test_capi gets the directory in TFS_CAPI_MODEL and a copy with a damaged
saved_model.pb in TFS_CAPI_BAD.  tfs-serve (examples/serve.c) then answers
tests/capi/serve.in line by line; its stdout must equal tests/capi/serve.out.
usage: capi.py TFS TEST_CAPI TFS_SERVE SRC_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

tfs, test_capi, serve, root = (os.path.abspath(a) for a in sys.argv[1:5])
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model")
    r = subprocess.run([tfs, "run", os.path.join(root, "tests", "savedmodel", "sm_module_save.tfs"), model],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        sys.exit("saving the model failed:\n" + r.stderr)
    bad = os.path.join(tmp, "bad")
    shutil.copytree(model, bad)
    open(os.path.join(bad, "saved_model.pb"), "wb").write(b"\x08\x01\x12\x05garbage")
    env = dict(os.environ, TFS_CAPI_MODEL=model, TFS_CAPI_BAD=bad, CK_FORK="no")
    r = subprocess.run([test_capi], env=env, capture_output=True, text=True, timeout=300)
    sys.stdout.write(r.stdout + r.stderr)
    if r.returncode:
        sys.exit("test_capi failed")
    req = open(os.path.join(root, "tests", "capi", "serve.in")).read()
    r = subprocess.run([serve, model], input=req, capture_output=True, text=True, timeout=120)
    want = open(os.path.join(root, "tests", "capi", "serve.out")).read()
    if r.returncode or r.stdout != want:
        sys.exit("tfs-serve: exit %d\n--- got ---\n%s%s--- want ---\n%s" % (r.returncode, r.stdout, r.stderr, want))
    r = subprocess.run([serve, os.path.join(tmp, "missing")], input="", capture_output=True, text=True, timeout=60)
    if r.returncode != 1 or "SavedModel file does not exist" not in r.stderr:
        sys.exit("tfs-serve on a missing model: exit %d, %s" % (r.returncode, r.stderr))
    print("ok: C API suite, %d requests served" % req.count("\n"))
