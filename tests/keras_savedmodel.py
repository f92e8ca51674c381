#!/usr/bin/python3
# keras_savedmodel.py — the files of Keras's SavedModel form as tfs writes them, checked with protoc and numpy.
"""Usage: keras_savedmodel.py TFS PROTO_DIR

Runs tests/programs/keras_savedmodel.tfs with a fresh directory, then:
- fm/saved_model.pb decodes as tensorflow.SavedModel; its serving_default takes `x` (its input layer's name; float, [-1, 3]) and
  names its output by the output layer ("o"), as Keras's saved signatures do;
- fm/keras_metadata.pb decodes as Keras's SavedMetadata: node 0 "root", identifier _tf_keras_network, and one node
  per layer ("root.layer-<i>", _tf_keras_input_layer / _tf_keras_layer) whose node_id is the object graph node its
  path reaches (layer_with_weights-<k> is the same node, holding kernel and bias); version
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


def object_children(text):
    # the SavedObjectGraph of protoc's text: for each node (in order), {local_name: node_id} of its children
    lines = text[text.index("object_graph_def {"):].splitlines()[1:]
    nodes, depth, cur, child = [], 0, None, {}
    for l in lines:
        t = l.strip()
        if depth == 0 and t == "nodes {":
            cur = {}
            nodes.append(cur)
        elif depth == 0 and t.endswith("{"):
            break   # concrete_functions: the nodes are done
        if depth == 1 and t == "children {":
            child = {}
        if depth == 2 and t.startswith("node_id:"):
            child["id"] = int(t.split(":")[1])
        if depth == 2 and t.startswith("local_name:"):
            child["name"] = json.loads(t.split(":", 1)[1].strip())
        if depth == 2 and t == "}":
            cur[child["name"]] = child.get("id", 0)
        depth += t.count("{") - t.count("}")
    return nodes


def reaches(children, path):
    # the node a metadata path ("root.layer-1") leads to through the object graph's children, -1 if none
    at = 0
    for part in path.split(".")[1:]:
        at = children[at].get(part, -1) if at >= 0 else -1
    return at


def metadata_nodes(text):
    # (node_id, node_path, identifier) of each SavedObject of protoc's text
    out = []
    for block in text.split("nodes {")[1:]:
        nid = [int(l.split(":")[1]) for l in block.splitlines() if l.strip().startswith("node_id:")]
        path = [json.loads(l.split(":", 1)[1].strip()) for l in block.splitlines() if l.strip().startswith("node_path:")]
        ident = [json.loads(l.split(":", 1)[1].strip()) for l in block.splitlines() if l.strip().startswith("identifier:")]
        out.append((nid[0] if nid else 0, path[0], ident[0]))
    return out


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
    check('name: "x"' in sm, "the saved function's input signature names its TensorSpec x")
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
    # every metadata node names the object graph node its path reaches from the root
    children = object_children(sm)
    nodes = metadata_nodes(meta)
    check([(p, i) for _, p, i in nodes] == [("root", "_tf_keras_network"), ("root.layer-0", "_tf_keras_input_layer"),
                                            ("root.layer-1", "_tf_keras_layer"), ("root.layer-2", "_tf_keras_layer")],
          "metadata nodes %s" % nodes)
    for nid, path, _ in nodes:
        check(reaches(children, path) == nid, "metadata node %s: id %d, not where its path leads" % (path, nid))
    check(children[0].get("layer_with_weights-0") == children[0].get("layer-1"), "layer_with_weights-0 is layer-1")
    check(sorted(children[children[0]["layer-1"]].keys()) == ["bias", "kernel"], "a Dense holder's weights")
    seq = decode(os.path.join(d, "seq", "keras_metadata.pb"), "third_party.py.keras.protobuf.SavedMetadata",
                 "keras_metadata.proto")
    check('identifier: "_tf_keras_sequential"' in seq, "Sequential identifier")
    seq_children = object_children(decode(os.path.join(d, "seq", "saved_model.pb"), "tensorflow.SavedModel",
                                          "saved_model.proto"))
    seq_nodes = metadata_nodes(seq)
    check(len(seq_nodes) == 4, "Sequential metadata: the root and its three layers")
    for nid, path, _ in seq_nodes:
        check(reaches(seq_children, path) == nid, "Sequential metadata node %s: id %d, not where its path leads" % (path, nid))
    check(not os.path.exists(os.path.join(d, "plain", "keras_metadata.pb")), "tf.saved_model.save writes no metadata")
    # a subclassed model: _tf_keras_model, its saved call functions under keras_api (sorted first, shifting the
    # layers' node ids), each layer's config and build_input_shape
    net = decode(os.path.join(d, "net", "keras_metadata.pb"), "third_party.py.keras.protobuf.SavedMetadata",
                 "keras_metadata.proto")
    net_children = object_children(decode(os.path.join(d, "net", "saved_model.pb"), "tensorflow.SavedModel",
                                          "saved_model.proto"))
    net_nodes = metadata_nodes(net)
    check([(p, i) for _, p, i in net_nodes] == [("root", "_tf_keras_model"), ("root.layer-0", "_tf_keras_layer")],
          "subclassed metadata nodes %s" % net_nodes)
    for nid, path, _ in net_nodes:
        check(reaches(net_children, path) == nid, "subclassed metadata node %s: id %d, not where its path leads" % (path, nid))
    api = net_children[0].get("keras_api", -1)
    check(api > 0 and sorted(net_children[api].keys()) == ["call_inference", "call_training"], "keras_api functions")
    metas = [json.loads(l.strip()[len("metadata: "):][1:-1].encode().decode("unicode_escape"))
             for l in net.splitlines() if l.strip().startswith("metadata:")]
    check(metas[0]["class_name"] == "Net" and metas[0]["build_input_shape"] == [None, 3] and metas[0]["config"] == {},
          "subclassed root metadata %s" % metas[0])
    check(metas[1]["config"]["units"] == 2 and metas[1]["build_input_shape"] == [2, 3], "layer metadata %s" % metas[1])
    # numpy's forward pass against the printed predictions
    k1, b1, k2, b2 = fixed([(3, 4), (4,), (4, 2), (2,)])
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype=np.float32)
    want = np.round(np.maximum(x @ k1 + b1, 0) @ k2 + b2, 5)
    lines = r.stdout.splitlines()
    got = np.array([[float(v) for v in l.replace("[", " ").replace("]", " ").split()] for l in lines[1:3]])
    check(np.allclose(got, want, atol=1e-5), "predictions %s vs numpy %s" % (got, want))

print("keras_savedmodel: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
