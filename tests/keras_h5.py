#!/usr/bin/python3
# keras_h5.py — Keras .h5 and .keras files both ways: what tfs writes, read with h5py (Debian's python3-h5py) against Keras 2.15's layout; files h5py writes in that layout, loaded by tfs.
"""Usage: keras_h5.py TFS

1. tests/keras_h5/write.tfs saves Sequential, functional and custom-layer
   models (save_weights and model.save to .h5), loads them back and prints
   facts (predictions equal, training continues with the same losses); this
   script checks those lines and opens every file with h5py: root attributes
   (keras_version, backend, model_config, training_config), model_weights'
   layer_names / weight_names, the <layer>/<weight name> datasets with their
   shapes and values, and optimizer_weights; the .keras archives with zipfile:
   the members, config.json's keys (build_config, compile_config); every
   model.weights.h5 / x.weights.h5 must hold exactly the groups and datasets
   tests/keras_layout.py derives from Keras 2.15's saving_lib rules for a
   description of the same model (Sequential, functional, subclassed, nested
   layers, RNN cells, MultiHeadAttention, metrics, Adam/SGD, LossScaleOptimizer).
2. It writes fixture_w.h5 (weights), fixture_m.h5 (a whole compiled model) and
   .keras archives (zipfile + h5py, the weights tree by keras_layout.write) as
   Keras 2.15 lays them out, plus one in tfs's older layout;
   tests/keras_h5/read_fixture.tfs loads them and its predictions must match
   numpy's forward pass.
3. tests/keras_h5/errors.tfs: each failing load ends in Keras's (or h5py's)
   message as a located error, never a crash (among them .keras files with a
   missing group, an extra dataset, a wrong shape, misnamed datasets); so do
   truncated and byte-flipped copies of the saved .h5 and .keras files.
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import filecheck  # noqa: E402
import keras_layout  # noqa: E402

_checks = filecheck.Checks(os.path.join(HERE, "keras_h5"), 300)
check, run, failures = _checks.check, _checks.run, _checks.failures


def fixed(shapes):
    # the weights write.tfs sets: ((i + k) % 7) * 0.1 + 0.05 for weight k
    return [((((np.arange(int(np.prod(s))) + k) % 7) * 0.1 + 0.05).astype(np.float32)).reshape(s)
            for k, s in enumerate(shapes)]


def strs(v):
    return [x.decode() if isinstance(x, bytes) else str(x) for x in v]


def check_weights_group(g, layers, where):
    # layers: [(layer name, [(weight name, value)])] in the model's order
    check(strs(g.attrs["layer_names"]) == [n for n, _ in layers], f"{where}: layer_names {strs(g.attrs['layer_names'])}")
    check(g.attrs["layer_names"].dtype.kind == "S", f"{where}: layer_names are fixed-length bytes as Keras writes them")
    check(g.attrs["backend"] == b"tensorflow" and g.attrs["keras_version"] == b"2.15.0", f"{where}: backend/keras_version")
    for name, weights in layers:
        lg = g[name]
        check(strs(lg.attrs["weight_names"]) == [w for w, _ in weights], f"{where}/{name}: weight_names {strs(lg.attrs['weight_names'])}")
        for wname, val in weights:
            ds = lg[wname]
            check(ds.shape == val.shape and ds.dtype == np.float32, f"{where}/{name}/{wname}: shape {ds.shape} dtype {ds.dtype}")
            if val is not None:
                check(np.allclose(ds[()], val), f"{where}/{name}/{wname}: values")


def check_written(tfs, d):
    r = run(tfs, "write.tfs", d)
    check(r.returncode == 0, "write.tfs exit status: " + r.stderr[-2000:])
    want = ["load_weights equal: True", "sequential predict equal: True", "optimizer: Adam iterations: 2",
            "metrics after load: ['loss', 'mae']", "continued training equal: True", "weights after training equal: True",
            "functional: Model ['features', 'a', 'bn', 'b']", "functional predict equal: True",
            "uncompiled model loads uncompiled: True", "custom layers: ['Dense', 'Scale', 'Shift'] 3.0 0.5",
            "custom predict equal: True", "keras sequential predict equal: True", "keras continued training equal: True",
            "keras functional predict equal: True", "keras custom predict equal: True", "keras subclassed: Net 4 SGD",
            "keras subclassed predict equal: True", "weights.h5 equal: True", "built optimizer restored: True True",
            "nested weights.h5 equal: True", "mixed: LossScaleOptimizer 1"]
    check(r.stdout.splitlines() == want, "write.tfs output:\n" + r.stdout)

    seq = fixed([(4, 3), (3,), (3, 2), (2,)])
    with h5py.File(os.path.join(d, "seq_w.h5"), "r") as f:
        check_weights_group(f, [("hidden", [("hidden/kernel:0", seq[0]), ("hidden/bias:0", seq[1])]),
                                ("out", [("out/kernel:0", seq[2]), ("out/bias:0", seq[3])])], "seq_w.h5")
        check(sorted(f.keys()) == ["hidden", "out"], f"seq_w.h5: groups {sorted(f.keys())}")
        check(isinstance(f["hidden/hidden/kernel:0"], h5py.Dataset), "seq_w.h5: hidden/hidden/kernel:0 is a dataset")

    with h5py.File(os.path.join(d, "seq.h5"), "r") as f:
        check(f.attrs["keras_version"] == "2.15.0" and f.attrs["backend"] == "tensorflow", "seq.h5: root keras_version/backend (str)")
        cfg = json.loads(f.attrs["model_config"])
        check(cfg["class_name"] == "Sequential", "seq.h5: model_config class_name")
        check([l["class_name"] for l in cfg["config"]["layers"]] == ["InputLayer", "Dense", "Dense"], "seq.h5: config layers")
        check(cfg["config"]["layers"][0]["config"]["batch_input_shape"] == [None, 4], "seq.h5: the input's batch_input_shape")
        check(cfg["config"]["layers"][1]["config"]["units"] == 3 and cfg["config"]["layers"][1]["config"]["activation"] == "relu",
              "seq.h5: Dense config")
        tc = json.loads(f.attrs["training_config"])
        check(tc["loss"] == "mse" and tc["metrics"] == ["mae"], f"seq.h5: training_config loss/metrics {tc}")
        check(tc["optimizer_config"]["class_name"] == "Adam" and abs(tc["optimizer_config"]["config"]["learning_rate"] - 0.001) < 1e-9,
              "seq.h5: optimizer_config")
        check(sorted(f.keys()) == ["model_weights", "optimizer_weights"], f"seq.h5: groups {sorted(f.keys())}")
        check(strs(f["model_weights"].attrs["layer_names"]) == ["hidden", "out"], "seq.h5: model_weights layer_names")
        ow = strs(f["optimizer_weights"].attrs["weight_names"])
        check(ow[0] == "iteration:0" and len(ow) == 9, f"seq.h5: optimizer weight_names {ow}")
        check(f["optimizer_weights/iteration:0"][()] == 2 and f["optimizer_weights/iteration:0"].dtype == np.int64,
              "seq.h5: iterations saved")
        for n in ow[1:]:
            check(f["optimizer_weights/" + n].dtype == np.float32, f"seq.h5: optimizer slot {n}")

    # fn.get_weights() in Keras's order: the trainable weights (a, bn's gamma/beta, b), then bn's moving statistics
    fw = fixed([(4, 5), (5,), (5,), (5,), (5, 1), (1,), (5,), (5,)])
    fn = [fw[0], fw[1], fw[2], fw[3], fw[6], fw[7], fw[4], fw[5]]   # by layer: a, bn (gamma beta mean var), b
    with h5py.File(os.path.join(d, "fn.h5"), "r") as f:
        cfg = json.loads(f.attrs["model_config"])
        c = cfg["config"]
        check(cfg["class_name"] == "Functional" and c["name"] == "fn", "fn.h5: model_config class_name/name")
        check(c["input_layers"] == [["features", 0, 0]] and c["output_layers"] == [["b", 0, 0]], "fn.h5: input/output layers")
        check([l["name"] for l in c["layers"]] == ["features", "a", "bn", "b"], "fn.h5: layer names")
        check(c["layers"][2]["inbound_nodes"] == [[["a", 0, 0, {}]]], f"fn.h5: inbound nodes {c['layers'][2]['inbound_nodes']}")
        check("training_config" not in f.attrs and "optimizer_weights" not in f, "fn.h5: an uncompiled model has no training_config")
        # Keras's h5 order: trainable weights, then non-trainable; get_weights order set the values
        check_weights_group(f["model_weights"], [
            ("features", []),
            ("a", [("a/kernel:0", fn[0]), ("a/bias:0", fn[1])]),
            ("bn", [("bn/gamma:0", fn[2]), ("bn/beta:0", fn[3]), ("bn/moving_mean:0", fn[4]), ("bn/moving_variance:0", fn[5])]),
            ("b", [("b/kernel:0", fn[6]), ("b/bias:0", fn[7])])], "fn.h5/model_weights")

    with h5py.File(os.path.join(d, "custom.h5"), "r") as f:
        layers = json.loads(f.attrs["model_config"])["config"]["layers"]
        check(layers[2]["class_name"] == "Scale" and layers[2]["registered_name"] == "Demo>Scale" and layers[2]["config"]["factor"] == 3.0,
              f"custom.h5: registered custom layer {layers[2]}")
        check(layers[3]["class_name"] == "Shift" and layers[3]["config"]["by"] == 0.5, "custom.h5: custom layer config")


def check_keras_archives(d):
    with zipfile.ZipFile(os.path.join(d, "seq.keras")) as z:
        check(sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"], f"seq.keras: members {z.namelist()}")
        meta = json.loads(z.read("metadata.json"))
        check(meta["keras_version"] == "2.15.0" and len(meta["date_saved"]) == 19, f"seq.keras: metadata {meta}")
        cfg = json.loads(z.read("config.json"))
        check(cfg["class_name"] == "Sequential" and cfg["module"] == "keras" and cfg["build_config"] == {"input_shape": [None, 4]},
              f"seq.keras: config {list(cfg.keys())}")
        cc = cfg["compile_config"]
        check(cc["optimizer"]["class_name"] == "Adam" and cc["loss"] == "mse" and cc["metrics"] == ["mae"], f"seq.keras: compile_config {cc}")
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
            check_tree(f, SEQ_TRAINED, "seq.keras")
            check(f["optimizer/vars/0"][()] == 4, "seq.keras weights: optimizer iterations")
    for name, root in (("fn.keras", FN), ("custom.keras", CUSTOM)):
        with zipfile.ZipFile(os.path.join(d, name)) as z:
            with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
                check_tree(f, root, name)
    with zipfile.ZipFile(os.path.join(d, "fn.keras")) as z:
        fw = fixed([(4, 5), (5,), (5,), (5,), (5, 1), (1,), (5,), (5,)])   # get_weights order, as in check_h5
        fn = [fw[0], fw[1], fw[2], fw[3], fw[6], fw[7], fw[4], fw[5]]
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
            got = [f[f"_layer_checkpoint_dependencies/{p}/vars/{i}"][()] for p, i in
                   [("dense", 0), ("dense", 1), ("batch_normalization", 0), ("batch_normalization", 1), ("batch_normalization", 2),
                    ("batch_normalization", 3), ("dense_2", 0), ("dense_2", 1)]]
            check(all(np.allclose(a, b) for a, b in zip(got, fn)), "fn.keras weights: values in Keras's order")
    with h5py.File(os.path.join(d, "seq.weights.h5"), "r") as f:
        check_tree(f, SEQ_TRAINED, "seq.weights.h5")
    with h5py.File(os.path.join(d, "rnn.weights.h5"), "r") as f:
        check_tree(f, NESTED, "rnn.weights.h5")
    with zipfile.ZipFile(os.path.join(d, "mp.keras")) as z:
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
            check_tree(f, MIXED, "mp.keras")
    with zipfile.ZipFile(os.path.join(d, "net.keras")) as z:
        cfg = json.loads(z.read("config.json"))
        check(cfg["class_name"] == "Net" and cfg["registered_name"] == "Demo>Net" and cfg["config"] == {"units": 4, "name": "net"},
              f"net.keras: config {cfg}")
        net = fixed([(4, 4), (4,), (4, 2), (2,)])
        with h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
            check_tree(f, NET, "net.keras")
            for i, (layer, k) in enumerate([("d1", 0), ("d1", 1), ("d2", 0), ("d2", 1)]):
                check(np.allclose(f[f"{layer}/vars/{k}"][()], net[i]), f"net.keras weights: {layer}/vars/{k}")


def check_tree(f, root, where):
    # the whole file: every group and dataset Keras 2.15 would write for this model, and nothing else
    got, want = keras_layout.names(f), keras_layout.expected_names(root)
    check(got == want, f"{where}: tree {got} != {want}")
    check(keras_layout.read(f) == keras_layout.expected(root), f"{where}: shapes/dtypes {keras_layout.read(f)} != {keras_layout.expected(root)}")


# the models write.tfs saves, described as Keras objects (keras_layout.py derives their trees)
_SEQ_LAYERS = [keras_layout.dense(4, 3), keras_layout.dense(3, 2)]
SEQ_TRAINED = keras_layout.graph_model(
    "Sequential", _SEQ_LAYERS, [keras_layout.mean(), keras_layout.mean("MeanMetricWrapper")],
    keras_layout.optimizer("Adam", [(4, 3), (3,), (3, 2), (2,)], ["m", "v"], built=True))
FN = keras_layout.graph_model("Functional", [keras_layout.plain("InputLayer"), keras_layout.dense(4, 5), keras_layout.batch_norm(5),
                                             keras_layout.dense(5, 1)])
CUSTOM = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 2), keras_layout.Obj("Scale", [((2,), "float32")]),
                                                 keras_layout.plain("Shift")])


def _rnn(cls, cell_cls, n_in, units, gates, bias_rows=1):
    # Keras's RNN layers keep their weights in .cell: kernel, recurrent_kernel, bias
    bias = (gates * units,) if bias_rows == 1 else (bias_rows, gates * units)
    cell = keras_layout.Obj(cell_cls, [((n_in, gates * units), "float32"), ((units, gates * units), "float32"), (bias, "float32")])
    return keras_layout.Obj(cls, [], {"cell": cell})


def _mha(n, heads, key_dim):
    # Keras's MultiHeadAttention: four EinsumDense layers, a Softmax and a Dropout, no variables of its own
    proj = lambda: keras_layout.Obj("EinsumDense", [((n, heads, key_dim), "float32"), ((heads, key_dim), "float32")])
    out = keras_layout.Obj("EinsumDense", [((heads, key_dim, n), "float32"), ((n,), "float32")])
    return keras_layout.Obj("MultiHeadAttention", [], {"_query_dense": proj(), "_key_dense": proj(), "_value_dense": proj(),
                                                       "_output_dense": out, "_softmax": keras_layout.plain("Softmax"),
                                                       "_dropout_layer": keras_layout.plain("Dropout")})


# Bidirectional also holds the layer it was given, never built: its cell has no variables
_BI = keras_layout.Obj("Bidirectional", [], {"forward_layer": _rnn("GRU", "GRUCell", 3, 2, 3, 2),
                                             "backward_layer": _rnn("GRU", "GRUCell", 3, 2, 3, 2),
                                             "layer": keras_layout.Obj("GRU", [], {"cell": keras_layout.plain("GRUCell")})})
_BLOCK = keras_layout.Obj("Block", [], {"inner": [keras_layout.dense(4, 3), keras_layout.dense(3, 3)], "proj": keras_layout.dense(3, 2)})
NESTED = keras_layout.graph_model("Functional", [
    keras_layout.plain("InputLayer"), _rnn("LSTM", "LSTMCell", 4, 3, 4), _BI,
    keras_layout.Obj("TimeDistributed", [], {"layer": keras_layout.dense(4, 4)}), _mha(4, 2, 3), _BLOCK, keras_layout.plain("Flatten")])
# LossScaleOptimizerV3: its variables are the inner optimizer's; the inner one is its attribute _optimizer
_ADAM = keras_layout.optimizer("Adam", [(4, 2), (2,)], ["m", "v"], built=True)
MIXED = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 2)], [keras_layout.mean()],
                                 keras_layout.Obj("LossScaleOptimizerV3", _ADAM.variables, {"_optimizer": _ADAM}))
_NET_LAYERS = [keras_layout.dense(4, 4), keras_layout.dense(4, 2)]
NET = keras_layout.subclassed("Net", {"d1": _NET_LAYERS[0], "d2": _NET_LAYERS[1]}, _NET_LAYERS, [],
                              keras_layout.optimizer("SGD", [], ["m"], built=False))


def dense_cfg(name, units, activation, shape=None):
    c = {"name": name, "trainable": True, "dtype": "float32", "units": units, "activation": activation, "use_bias": True,
         "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
         "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": None, "bias_regularizer": None,
         "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None}
    if shape is not None:
        c["batch_input_shape"] = shape
    return {"module": "keras.layers", "class_name": "Dense", "config": c, "registered_name": None}


def write_weights(g, values):
    # save_weights_to_hdf5_group as Keras 2.15 writes it through h5py
    g.attrs["layer_names"] = [b"hidden", b"out"]
    g.attrs["backend"] = b"tensorflow"
    g.attrs["keras_version"] = b"2.15.0"
    for layer, ws in (("hidden", values[:2]), ("out", values[2:])):
        lg = g.create_group(layer)
        names = [f"{layer}/kernel:0".encode(), f"{layer}/bias:0".encode()]
        lg.attrs["weight_names"] = names
        for n, v in zip(names, ws):
            lg.create_dataset(n, data=v)


def check_fixture(tfs, d):
    rng = np.random.default_rng(7)
    vals = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (3,), (3, 2), (2,)]]
    with h5py.File(os.path.join(d, "fixture_w.h5"), "w") as f:
        write_weights(f, vals)
    with h5py.File(os.path.join(d, "fixture_m.h5"), "w") as f:
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["backend"] = "tensorflow"
        cfg = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_input_shape": [None, 4], "dtype": "float32",
                                                                              "sparse": False, "ragged": False, "name": "hidden_input"},
             "registered_name": None},
            dense_cfg("hidden", 3, "relu", [None, 4]), dense_cfg("out", 2, "linear")]}}
        f.attrs["model_config"] = json.dumps(cfg).encode("utf8")
        tc = {"loss": "mse", "metrics": [[{"class_name": "MeanMetricWrapper", "config": {"name": "mae", "dtype": "float32",
                                                                                            "fn": "mean_absolute_error"}}]],
              "weighted_metrics": None, "loss_weights": None,
              "optimizer_config": {"class_name": "Custom>Adam", "config": {"name": "Adam", "learning_rate": 0.0125, "beta_1": 0.9,
                                                                           "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False,
                                                                           "is_legacy_optimizer": False},
                                   "is_legacy_optimizer": False}}
        f.attrs["training_config"] = json.dumps(tc).encode("utf8")
        write_weights(f.create_group("model_weights"), vals)
    write_keras_fixture(os.path.join(d, "fixture.keras"), vals)
    write_keras_fixture_v0(os.path.join(d, "fixture_v0.keras"), vals)
    bn = [rng.standard_normal(s).astype(np.float32) for s in BN_SHAPES]
    bn[5] = np.abs(bn[5]) + 0.5   # a moving variance
    write_bn_fixture(os.path.join(d, "fixture_bn.keras"), bn)
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0 - 0.5
    want = np.maximum(x @ vals[0] + vals[1], 0) @ vals[2] + vals[3]
    h = np.maximum(x @ bn[0] + bn[1], 0)
    want_bn = ((h - bn[4]) / np.sqrt(bn[5] + 0.001) * bn[2] + bn[3]) @ bn[6] + bn[7]
    r = run(tfs, "read_fixture.tfs", d)
    check(r.returncode == 0, "read_fixture.tfs exit status: " + r.stderr[-2000:])
    got = {"weights": [], "model": [], "kpred": [], "kold": [], "kbn": []}
    for line in r.stdout.splitlines():
        parts = line.split(" ")
        if parts[0] in got:
            got[parts[0]].append([float(v) for v in parts[1:]])
    for tag in got:
        w = want_bn if tag == "kbn" else want
        check(np.array(got[tag]).shape == w.shape and np.allclose(np.array(got[tag]), w, atol=2e-5), f"read_fixture.tfs {tag} predictions {got[tag]} vs {w.tolist()}")
    check("bn optimizer Adam 11" in r.stdout, "read_fixture.tfs:\n" + r.stdout)
    check("layers ['hidden', 'out']" in r.stdout and "optimizer Adam 0.0125" in r.stdout, "read_fixture.tfs:\n" + r.stdout)
    check("keras layers ['hidden', 'out']" in r.stdout and "keras optimizer SGD 0.25 7" in r.stdout, "read_fixture.tfs:\n" + r.stdout)


def sgd_cfg(lr):
    return {"module": "keras.optimizers", "class_name": "SGD", "registered_name": None,
            "config": {"name": "SGD", "learning_rate": lr, "momentum": 0.0, "nesterov": False, "is_legacy_optimizer": False}}


def keras_archive(path, layer_cfgs, compile_cfg, weights):
    # a .keras archive as Keras 2.15's saving_lib writes it: metadata.json, config.json, then model.weights.h5 made by h5py
    cfg = {"module": "keras", "class_name": "Sequential", "registered_name": None,
           "config": {"name": "sequential", "layers": [
               {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
                "config": {"batch_input_shape": [None, 4], "dtype": "float32", "sparse": False, "ragged": False,
                           "name": layer_cfgs[0]["config"]["name"] + "_input"}}] + layer_cfgs},
           "build_config": {"input_shape": [None, 4]},
           "compile_config": dict({"loss": "mse", "metrics": None, "loss_weights": None, "weighted_metrics": None,
                                   "run_eagerly": None, "steps_per_execution": None, "jit_compile": None}, **compile_cfg)}
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        weights(f)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "2.15.0", "date_saved": "2023-11-14@10:00:00"}))
        z.writestr("config.json", json.dumps(cfg))
        z.writestr("model.weights.h5", buf.getvalue())


def write_keras_fixture(path, vals):
    # Sequential(hidden, out) compiled with SGD, never trained: the optimizer holds only iterations
    root = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 3), keras_layout.dense(3, 2)], [],
                                    keras_layout.optimizer("SGD", [], ["m"], built=False))
    keras_archive(path, [dense_cfg("hidden", 3, "relu", [None, 4]), dense_cfg("out", 2, "linear")],
                  {"optimizer": sgd_cfg(0.25)}, lambda f: keras_layout.write(f, root, list(vals) + [np.int64(7)]))


def write_keras_fixture_v0(path, vals):
    # the layout tfs wrote before it followed Keras: layers/<layer name>/vars
    def weights(f):
        f.create_group("vars")
        for layer, ws in (("hidden", vals[:2]), ("out", vals[2:])):
            g = f.create_group(f"layers/{layer}/vars")
            for i, v in enumerate(ws):
                g.create_dataset(str(i), data=v)
        f.create_group("optimizer/vars").create_dataset("0", data=np.int64(7))
    keras_archive(path, [dense_cfg("hidden", 3, "relu", [None, 4]), dense_cfg("out", 2, "linear")], {"optimizer": sgd_cfg(0.25)}, weights)


def bn_cfg(name):
    init = lambda c: {"module": "keras.initializers", "class_name": c, "config": {}, "registered_name": None}
    return {"module": "keras.layers", "class_name": "BatchNormalization", "registered_name": None,
            "config": {"name": name, "trainable": True, "dtype": "float32", "axis": [1], "momentum": 0.99, "epsilon": 0.001,
                       "center": True, "scale": True, "beta_initializer": init("Zeros"), "gamma_initializer": init("Ones"),
                       "moving_mean_initializer": init("Zeros"), "moving_variance_initializer": init("Ones"),
                       "beta_regularizer": None, "gamma_regularizer": None, "beta_constraint": None, "gamma_constraint": None}}


BN_SHAPES = [(4, 3), (3,), (3,), (3,), (3,), (3,), (3, 2), (2,)]


def write_bn_fixture(path, vals):
    # Sequential(a, bn, b) trained by Keras (Adam built: m and v per variable; the loss and "mae" metrics built):
    # names skip a number per weighted layer, BatchNormalization's moving statistics follow gamma and beta
    trainable = [BN_SHAPES[k] for k in (0, 1, 2, 3, 6, 7)]
    root = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 3), keras_layout.batch_norm(3), keras_layout.dense(3, 2)],
                                    [keras_layout.mean(), keras_layout.mean("MeanMetricWrapper")],
                                    keras_layout.optimizer("Adam", trainable, ["m", "v"], built=True))
    rng = np.random.default_rng(3)
    values = list(vals) + [np.float32(5.0), np.float32(2.0), np.float32(1.5), np.float32(2.0), np.int64(11)]
    values += [rng.standard_normal(s).astype(np.float32) for s in trainable for _ in ("m", "v")]
    adam = {"module": "keras.optimizers", "class_name": "Adam", "registered_name": None,
            "config": {"name": "Adam", "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False,
                       "is_legacy_optimizer": False}}
    keras_archive(path, [dense_cfg("a", 3, "relu", [None, 4]), bn_cfg("bn"), dense_cfg("b", 2, "linear")],
                  {"optimizer": adam, "metrics": ["mae"]}, lambda f: keras_layout.write(f, root, values))


ERRORS = {
    "missing_weights": "FileNotFoundError: [Errno 2] Unable to synchronously open file (unable to open file: name = '{d}/missing.h5', errno = 2, error message = 'No such file or directory', flags = 0, o_flags = 0)",
    "missing_model": "OSError: No file or directory found at {d}/missing.h5",
    "not_hdf5": "OSError: Unable to synchronously open file (file signature not found)",
    "layer_count": "ValueError: Layer count mismatch when loading weights from file. Model expected 3 layers, found 2 saved layers.",
    "shape": "ValueError: Cannot assign value to variable ' dense/kernel:0': Shape mismatch.The variable shape (4, 5), and the assigned value shape (4, 3) are incompatible.",
    "unknown_layer": "ValueError: Unknown layer: 'Scale'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details.",
    "no_config": "ValueError: No model found in config file.",
    "unknown_class_keras": "TypeError: Could not locate class 'Scale'. Make sure custom classes are decorated with `@keras.saving.register_keras_serializable()`. Full object config: {'module': None, 'class_name': 'Scale', 'config': {'name': 'scale', 'trainable': True, 'dtype': 'float32', 'factor': 3.0}, 'registered_name': 'Demo>Scale'}",
    "keras_missing": "ValueError: Layer 'hidden' expected 2 variables, but received 0 variables during loading. Expected: ['hidden/kernel:0', 'hidden/bias:0']",
    "keras_extra": "ValueError: Layer 'out' expected 2 variables, but received 3 variables during loading. Expected: ['out/kernel:0', 'out/bias:0']",
    "keras_shape": "ValueError: Cannot assign value to variable ' out/kernel:0': Shape mismatch.The variable shape (3, 2), and the assigned value shape (2, 3) are incompatible.",
    "keras_names": "KeyError: \"Unable to synchronously open object (object '1' doesn't exist)\"",
    "subclassed_h5": "NotImplementedError: Saving the model to HDF5 format requires the model to be a Functional model or a Sequential model. It does not work for subclassed models, because such models are defined via the body of a Python method, which isn't safely serializable. Consider saving to the Tensorflow SavedModel format (by setting save_format=\"tf\") or using `save_weights`.",
}


def write_broken(d):
    # Keras 2.15's tree for Sequential(hidden, out) with one flaw each: a layer's group missing, a dataset too many,
    # a value of the wrong shape
    vals = fixed([(4, 3), (3,), (3, 2), (2,)])
    root = keras_layout.graph_model("Sequential", [keras_layout.dense(4, 3), keras_layout.dense(3, 2)])
    layer_cfgs = [dense_cfg("hidden", 3, "relu", [None, 4]), dense_cfg("out", 2, "linear")]

    def missing(f):
        keras_layout.write(f, root, vals)
        del f["_layer_checkpoint_dependencies/dense"]

    def extra(f):
        keras_layout.write(f, root, vals)
        f["_layer_checkpoint_dependencies/dense_2/vars"].create_dataset("2", data=vals[3])

    def shape(f):
        keras_layout.write(f, root, vals[:2] + [vals[2].T.copy(), vals[3]])

    def names(f):
        keras_layout.write(f, root, vals)
        g = f["_layer_checkpoint_dependencies/dense/vars"]
        g.move("1", "bias")
    cases = (("keras_missing", missing), ("keras_extra", extra), ("keras_shape", shape), ("keras_names", names))
    for name, weights in cases:
        keras_archive(os.path.join(d, name + ".keras"), layer_cfgs, {"optimizer": sgd_cfg(0.1)}, weights)


def check_errors(tfs, d):
    with open(os.path.join(d, "junk.h5"), "w") as f:
        f.write("not an HDF5 file\n")
    write_broken(d)
    for case, msg in ERRORS.items():
        r = run(tfs, "errors.tfs", case, d)
        line = r.stderr.strip().splitlines()[0] if r.stderr.strip() else ""
        check(r.returncode == 1 and "errors.tfs:" in line and line.endswith("error: " + msg.replace("{d}", d)),
              f"errors.tfs {case}: status {r.returncode}, stderr {r.stderr!r}")


def check_damaged(tfs, d):
    import random
    rnd = random.Random(1)
    for name in ("seq.h5", "seq.keras"):
        data = open(os.path.join(d, name), "rb").read()
        copies = [data[:n] for n in (0, 100, len(data) // 2, len(data) - 1)]
        for _ in range(6):
            b = bytearray(data)
            for _ in range(8):
                b[rnd.randrange(len(b))] ^= 0xFF
            copies.append(bytes(b))
        for i, c in enumerate(copies):
            bad = os.path.join(d, f"damaged{i}-{name}")
            with open(bad, "wb") as f:
                f.write(c)
            r = subprocess.run([tfs, "run", os.path.join(HERE, "keras_h5", "errors.tfs"), "load", bad], capture_output=True, timeout=300)
            err = r.stderr.decode("utf-8", "replace")
            # a flip may land in unused bytes (the file still loads); anything else is a located error
            check(r.returncode == 0 or (r.returncode == 1 and "errors.tfs:" in err and "error:" in err),
                  f"damaged {name} copy {i}: status {r.returncode}, stderr {err[-500:]!r}")


def main():
    tfs = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        check_written(tfs, d)
        check_keras_archives(d)
        check_fixture(tfs, d)
        check_errors(tfs, d)
        check_damaged(tfs, d)
        check(not [n for n in os.listdir(d) if ".tmp" in n or n.startswith(".")], f"temporary files left: {os.listdir(d)}")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("keras_h5: all checks passed")


if __name__ == "__main__":
    main()
