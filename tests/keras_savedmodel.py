#!/usr/bin/python3
# keras_savedmodel.py — the files of Keras's SavedModel form as tfs writes them, checked with protoc and numpy.
"""Usage: keras_savedmodel.py TFS PROTO_DIR

Runs tests/programs/keras_savedmodel.tfs with a fresh directory, then:
- fm/saved_model.pb decodes as tensorflow.SavedModel; its serving_default takes `x` (its input layer's name; float, [-1, 3]) and
  names its output by the output layer ("o"), as Keras's saved signatures do;
- fm/keras_metadata.pb decodes as Keras's SavedMetadata: node 0 "root", identifier _tf_keras_network, version
  producer 2 / min_consumer 1, metadata JSON with class_name "Functional", model_config (Functional, the layers
  x, h, o), training_config (SGD, mse), keras_version 2.15.0; seq/ is _tf_keras_sequential; plain/ (written by
  tf.saved_model.save) has no keras_metadata.pb;
- the predictions the program prints equal numpy's forward pass with the fixed weights.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
tfs, proto = sys.argv[1], os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def decode(path, msg, proto_file):
    r = subprocess.run(["protoc", "--proto_path=" + proto, "--decode", msg, proto_file], input=open(path, "rb").read(),
                       capture_output=True)
    check(r.returncode == 0, "%s decodes as %s: %s" % (path, msg, r.stderr.decode()))
    return r.stdout.decode()


def fixed(shapes):
    return [((((np.arange(int(np.prod(s))) + k) % 7) * 0.1 + 0.05).astype(np.float32)).reshape(s)
            for k, s in enumerate(shapes)]


with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([tfs, "run", os.path.join(HERE, "programs", "keras_savedmodel.tfs"), d], capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, "program ran: " + r.stderr)
    sm = decode(os.path.join(d, "fm", "saved_model.pb"), "tensorflow.SavedModel", "saved_model.proto")
    check('key: "serving_default"' in sm and 'key: "x"' in sm and 'name: "serving_default_x:0"' in sm and 'key: "o"' in sm,
          "serving_default names")
    meta = decode(os.path.join(d, "fm", "keras_metadata.pb"), "third_party.py.keras.protobuf.SavedMetadata",
                  "keras_metadata.proto")
    check('node_path: "root"' in meta and 'identifier: "_tf_keras_network"' in meta, "root node of the metadata")
    check("producer: 2" in meta and "min_consumer: 1" in meta, "metadata version")
    # the metadata JSON, read back through protoc's text escaping
    line = [l for l in meta.splitlines() if l.strip().startswith("metadata:")][0].strip()[len("metadata: "):]
    js = json.loads(line[1:-1].encode().decode("unicode_escape"))
    check(js["class_name"] == "Functional" and js["keras_version"] == "2.15.0" and js["is_graph_network"], "metadata")
    check(js["model_config"]["class_name"] == "Functional", "model_config class")
    check([l["name"] for l in js["model_config"]["config"]["layers"]] == ["x", "h", "o"], "model_config layers")
    check(js["training_config"]["optimizer_config"]["class_name"] == "SGD" and js["training_config"]["loss"] == "mse",
          "training_config")
    seq = decode(os.path.join(d, "seq", "keras_metadata.pb"), "third_party.py.keras.protobuf.SavedMetadata",
                 "keras_metadata.proto")
    check('identifier: "_tf_keras_sequential"' in seq, "Sequential identifier")
    check(not os.path.exists(os.path.join(d, "plain", "keras_metadata.pb")), "tf.saved_model.save writes no metadata")
    # numpy's forward pass against the printed predictions
    k1, b1, k2, b2 = fixed([(3, 4), (4,), (4, 2), (2,)])
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype=np.float32)
    want = np.round(np.maximum(x @ k1 + b1, 0) @ k2 + b2, 5)
    lines = r.stdout.splitlines()
    got = np.array([[float(v) for v in l.replace("[", " ").replace("]", " ").split()] for l in lines[1:3]])
    check(np.allclose(got, want, atol=1e-5), "predictions %s vs numpy %s" % (got, want))

print("keras_savedmodel: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
