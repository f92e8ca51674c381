#!/usr/bin/python3
# keras_archive_check.py — .keras archives both ways: the ones tfs writes checked member by member against Keras 2.15's saving_lib / serialization_lib rules and the weights the program dumped; archives written here in that layout, loaded by tfs.
"""Usage: keras_archive_check.py TFS

1. tests/keras_archive/write.tfs trains a Sequential and a functional model (a
   BatchNormalization and a TFOpLambda layer among its layers), saves each to
   .keras and dumps, as JSON, every layer's weights, the metrics' and the
   optimizer's variables (shapes, dtypes, values). The archive must hold what
   Keras 2.15's saving_lib.save_model writes:
   - exactly metadata.json, config.json and model.weights.h5;
   - metadata.json: {"keras_version": "2.15.0", "date_saved": "%Y-%m-%d@%H:%M:%S"};
   - config.json: serialization_lib's dict for every Keras object in it, anywhere
     in the tree (module, class_name, config, registered_name: no more, no less,
     besides a functional layer's name and inbound_nodes), the model's
     build_config and compile_config (compile's eight arguments);
   - model.weights.h5 (H5IOStore): every dataset a "<k>" in a "vars" group, the
     k of a group 0, 1, ... with no gap; the groups, their datasets' shapes,
     dtypes and values exactly those of _save_state's walk over the dumped model
     (its order and naming restated in tests/keras_layout.py), the values equal
     to the dump's.
2. Archives made here with zipfile, json and h5py in that layout (a Sequential
   and a functional Dense model with known weights): tests/keras_archive/read.tfs
   loads them with keras.models.load_model and prints the weights it restored and
   its predictions, compared with the written values and numpy's forward pass.
"""
import io
import json
import os
import re
import sys
import tempfile
import zipfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import filecheck  # noqa: E402
import keras_layout  # noqa: E402

_checks = filecheck.Checks(os.path.join(HERE, "keras_archive"), 300)
check, run, failures = _checks.check, _checks.run, _checks.failures

OBJECT_KEYS = {"module", "class_name", "config", "registered_name"}
COMPILE_KEYS = {"optimizer", "loss", "metrics", "loss_weights", "weighted_metrics", "run_eagerly",
                "steps_per_execution", "jit_compile"}


def check_objects(v, where, top=False, in_layers=False):
    # serialization_lib.serialize_keras_object's dicts, wherever they are in config.json
    if isinstance(v, list):
        for i, e in enumerate(v):
            check_objects(e, f"{where}[{i}]", in_layers=in_layers)
        return
    if not isinstance(v, dict):
        return
    if "class_name" in v:
        extra = set()
        if top:
            extra = {"build_config", "compile_config"}
        elif in_layers and "inbound_nodes" in v:
            extra = {"name", "inbound_nodes"}   # Functional.get_config's layer entries
        elif "build_config" in v:
            extra = {"build_config"}   # a built layer's
        check(set(v.keys()) == OBJECT_KEYS | extra, f"{where}: keys {sorted(v.keys())}")
        check(isinstance(v.get("module"), str) and isinstance(v.get("class_name"), str),
              f"{where}: module / class_name {v.get('module')!r} {v.get('class_name')!r}")
        rn = v.get("registered_name")
        check(rn is None or (isinstance(rn, str) and ">" in rn), f"{where}: registered_name {rn!r}")
        if in_layers and "inbound_nodes" in v:
            check(v["name"] == v["config"].get("name"), f"{where}: name {v['name']} vs config {v['config'].get('name')}")
        cfg = v.get("config")
        if isinstance(cfg, dict):
            for k in cfg:
                check_objects(cfg[k], f"{where}.config.{k}", in_layers=(k == "layers"))
        return
    for k in v:
        check_objects(v[k], f"{where}.{k}")


def expected_root(dump, model_cls):
    # the model as keras_layout describes it, built from the dump; a variable is (shape, dtype, flat values)
    def variables(vs):
        return [(tuple(x["shape"]), x["dtype"], x["values"]) for x in vs]
    layers = [keras_layout.Obj(l["class"], variables(l["vars"])) for l in dump["layers"]]
    metrics = [keras_layout.Obj(m["class"], variables(m["vars"])) for m in dump["metrics"]]
    opt = None
    if dump["optimizer"] is not None:
        opt = keras_layout.Obj(dump["optimizer"]["class"], variables(dump["optimizer"]["vars"]))
    return keras_layout.graph_model(model_cls, layers, metrics, opt)


def check_weights(h5, root, where):
    datasets, groups = {}, []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            datasets[name] = obj
        elif name.split("/")[-1] == "vars":
            groups.append(name)
    h5.visititems(visit)
    for name in datasets:
        parts = name.split("/")
        check(len(parts) >= 2 and parts[-2] == "vars" and re.fullmatch(r"0|[1-9][0-9]*", parts[-1]),
              f"{where}: dataset {name} is not vars/<k>")
    for g in groups:
        n = len(h5[g].keys())
        check(sorted(h5[g].keys(), key=int) == [str(k) for k in range(n)], f"{where}: {g} keys {list(h5[g].keys())}")
    want = keras_layout.tree(root)
    check(sorted(groups) == sorted(g for g, _ in want), f"{where}: vars groups {sorted(groups)} vs {sorted(g for g, _ in want)}")
    for group, variables in want:
        if group not in h5:
            continue
        check(len(h5[group].keys()) == len(variables), f"{where}: {group} holds {len(h5[group].keys())} of {len(variables)}")
        for k, (shape, dtype, values) in enumerate(variables):
            if str(k) not in h5[group]:
                continue
            ds = h5[group][str(k)]
            check(ds.shape == shape and ds.dtype == np.dtype(dtype), f"{where}: {group}/{k} {ds.shape} {ds.dtype} vs {shape} {dtype}")
            got = np.asarray(ds[()]).reshape(-1)
            check(got.shape == (len(values),) and np.array_equal(got, np.asarray(values, dtype=np.dtype(dtype))),
                  f"{where}: {group}/{k} values {got[:4]} vs {values[:4]}")


def check_archive(path, dump, model_cls, compiled=True):
    where = os.path.basename(path)
    with zipfile.ZipFile(path) as z:
        check(sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"], f"{where}: members {z.namelist()}")
        meta = json.loads(z.read("metadata.json"))
        check(set(meta) == {"keras_version", "date_saved"} and meta["keras_version"] == "2.15.0"
              and re.fullmatch(r"\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d", meta["date_saved"]), f"{where}: metadata {meta}")
        cfg = json.loads(z.read("config.json"))
        check(set(cfg) == OBJECT_KEYS | {"build_config", "compile_config"}, f"{where}: top keys {sorted(cfg)}")
        check(cfg.get("class_name") == model_cls, f"{where}: class_name {cfg.get('class_name')}")
        check_objects(cfg, where, top=True)
        bc = cfg.get("build_config")
        check(bc is None or (isinstance(bc, dict) and set(bc) == {"input_shape"}), f"{where}: build_config {bc}")
        cc = cfg.get("compile_config")
        check((cc is None) if not compiled else (isinstance(cc, dict) and set(cc) == COMPILE_KEYS), f"{where}: compile_config {cc}")
        names = [l["config"]["name"] for l in cfg["config"]["layers"]]
        dumped = [l["name"] for l in dump["layers"]]
        check(names[-len(dumped):] == dumped, f"{where}: config layers {names} vs model.layers {dumped}")
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as h5:
            check_weights(h5, expected_root(dump, model_cls), where)


def check_written(tfs, d):
    r = run(tfs, "write.tfs", d)
    check(r.returncode == 0, "write.tfs exit status: " + r.stderr[-2000:])
    check(r.stdout.split("\n")[:2] == ["fn reloaded equal: True",
                                       "fn layers: ['InputLayer', 'Dense', 'BatchNormalization', 'TFOpLambda', 'Dense']"],
          "write.tfs output: " + r.stdout[-1000:])
    for name, cls in (("seq", "Sequential"), ("fn", "Functional")):
        if not os.path.exists(os.path.join(d, name + ".json")):
            check(False, f"{name}.json not written")
            continue
        with open(os.path.join(d, name + ".json")) as f:
            dump = json.load(f)
        check_archive(os.path.join(d, name + ".keras"), dump, cls)


# ---- 2: archives written here, read by tfs ----

def obj(module, cls, config):
    return {"module": module, "class_name": cls, "config": config, "registered_name": None}


def dense_cfg(name, units, activation):
    init = lambda c: obj("keras.initializers", c, {})
    return obj("keras.layers", "Dense", {"name": name, "trainable": True, "dtype": "float32", "units": units,
                                         "activation": activation, "use_bias": True,
                                         "kernel_initializer": init("GlorotUniform"), "bias_initializer": init("Zeros"),
                                         "kernel_regularizer": None, "bias_regularizer": None,
                                         "activity_regularizer": None, "kernel_constraint": None,
                                         "bias_constraint": None})


def input_cfg(name):
    return obj("keras.layers", "InputLayer", {"batch_input_shape": [None, 4], "dtype": "float32", "sparse": False,
                                              "ragged": False, "name": name})


def write_archive(path, cfg, root, values):
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        keras_layout.write(f, root, values)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "2.15.0", "date_saved": "2023-11-14@10:00:00"}))
        z.writestr("config.json", json.dumps(cfg))
        z.writestr("model.weights.h5", buf.getvalue())


def weights_for(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


SHAPES = [(4, 3), (3,), (3, 2), (2,)]


def forward(ws, x):
    h = np.maximum(x @ ws[0] + ws[1], 0)
    return h @ ws[2] + ws[3]


def write_fixtures(d):
    seq_ws, fn_ws = weights_for(SHAPES, 1), weights_for(SHAPES, 2)
    seq = {"module": "keras", "class_name": "Sequential", "registered_name": None,
           "config": {"name": "sequential", "layers": [input_cfg("hidden_input"), dense_cfg("hidden", 3, "relu"),
                                                        dense_cfg("out", 2, "linear")]},
           "build_config": {"input_shape": [None, 4]}, "compile_config": None}
    root = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 3), keras_layout.dense(3, 2)])
    write_archive(os.path.join(d, "in_seq.keras"), seq, root, seq_ws)
    layers = [dict(input_cfg("features"), name="features", inbound_nodes=[]),
              dict(dense_cfg("hidden", 3, "relu"), name="hidden", inbound_nodes=[[["features", 0, 0, {}]]]),
              dict(dense_cfg("out", 2, "linear"), name="out", inbound_nodes=[[["hidden", 0, 0, {}]]])]
    fn = {"module": "keras.src.engine.functional", "class_name": "Functional", "registered_name": None,
          "config": {"name": "fn", "trainable": True, "layers": layers, "input_layers": [["features", 0, 0]],
                     "output_layers": [["out", 0, 0]]},
          "build_config": {"input_shape": [None, 4]}, "compile_config": None}
    root = keras_layout.graph_model("Functional", [keras_layout.plain("InputLayer"), keras_layout.dense(4, 3),
                                                   keras_layout.dense(3, 2)])
    write_archive(os.path.join(d, "in_fn.keras"), fn, root, fn_ws)
    return {"in_seq": seq_ws, "in_fn": fn_ws}


def check_read(tfs, d):
    written = write_fixtures(d)
    r = run(tfs, "read.tfs", d)
    check(r.returncode == 0, "read.tfs exit status: " + r.stderr[-2000:])
    x = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 4.0
    got = {}
    for line in r.stdout.strip().split("\n"):
        if ":" in line:
            k, v = line.split(":", 1)
            got[k] = json.loads(v)
    for name, ws in written.items():
        check(got.get(name + " weights") is not None and
              all(np.array_equal(np.asarray(a, np.float32), w) for a, w in zip(got[name + " weights"], ws))
              and len(got[name + " weights"]) == len(ws), f"{name}: restored weights {got.get(name + ' weights')}")
        check(got.get(name + " predict") is not None and
              np.allclose(np.asarray(got[name + " predict"]), forward(ws, x), rtol=1e-5, atol=1e-6),
              f"{name}: predictions {got.get(name + ' predict')} vs {forward(ws, x).tolist()}")


def main():
    tfs = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        check_written(tfs, d)
        check_read(tfs, d)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("keras archives: all checks passed")


if __name__ == "__main__":
    main()
