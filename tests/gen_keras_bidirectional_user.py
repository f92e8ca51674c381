#!/usr/bin/python3
# gen_keras_bidirectional_user.py — writes tests/programs/keras_bidirectional_user.out: Keras 2.15's Bidirectional over a program's cell / RNN subclass and serialize_keras_object of a program's classes, with numpy.
"""Independent reference for keras_bidirectional_user.tfs.

    /usr/bin/python3 tests/gen_keras_bidirectional_user.py

Keras 2.15's rules (tf_keras/layers/rnn/bidirectional.py, base_rnn.py, backend.rnn, saving/serialization_lib.py):
- Bidirectional makes its forward and backward layers with layer.__class__.from_config(layer.get_config()) (the
  cell's class passed as a custom object; go_backwards flipped for the backward one), renamed "forward_" / "backward_"
  + the layer's name; the cell copies keep the config's name.  zero_output_for_mask is forced to return_sequences on
  both.  call runs the forward layer, then the backward one; with return_sequences the backward output is reversed in
  time; concat / sum / ave / mul / None (a list); return_state appends the forward then the backward states.
- Weights are built under the wrapper's scope, then the copy's, then the cell's name: bidirectional/forward_rnn/lin_cell/w:0.
- backend.rnn (unroll=False) calls the step once on the first step taken (result unused), then once per step eagerly;
  a symbolic (functional) call traces it on placeholders (batch None) where the while_loop body is traced once: two
  calls per copy.  A masked step keeps the states and outputs zeros (zero_output_for_mask) or the previous output.
- serialize_keras_object: a public Keras class gives its public module and registered_name None; a registered class
  its __module__ and registered name; any other class its __module__ and its class name as registered_name (via
  get_registered_name); record_object_after_serialization turns module "__main__" into None.  build_config is added
  only when get_build_config() is not None: the layer's _build_input_shape, recorded by Layer.build (a layer built
  through __call__, or Wrapper.build calling a layer whose build is Layer's); a build of its own records none.
- Layer.get_config: name, trainable, dtype ("float32"); RNN.get_config adds return_sequences, return_state,
  go_backwards, stateful, unroll, time_major, zero_output_for_mask only when True, then cell; Wrapper adds "layer"
  (the layer given, serialized), Bidirectional then merge_mode.
The cell is h_t = x_t W + h_{t-1} U.  Values printed to 5 decimals.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
W = np.array([[0.5, -0.25, 0.1], [0.2, 0.3, -0.4]])
U = np.array([[0.9, 0.0, 0.1], [0.0, 0.8, -0.2], [0.1, 0.2, 0.7]])
X = (np.arange(16, dtype=np.float32).reshape(2, 4, 2) * np.float32(0.1) - np.float32(0.7)).astype(np.float64)
MASK = np.array([[True, True, False, True], [True, False, False, False]])
T = 4

lines = []


def out(*parts):
    lines.append(" ".join(str(p) for p in parts))


def show(label, v):
    lines.append(label + " " + " ".join(f"{float(t):.5f}" for t in np.reshape(np.asarray(v), [-1])))


def rnn(x, go_backwards=False, mask=None, h0=None, zero_output=False):
    # backend.rnn over the cell: (outputs in processing order [B, T, 3], last output, final state)
    h = np.zeros((x.shape[0], 3)) if h0 is None else h0
    order = range(T - 1, -1, -1) if go_backwards else range(T)
    prev = np.zeros((x.shape[0], 3))
    outs = []
    for t in order:
        new = x[:, t] @ W + h @ U
        o = new
        if mask is not None:
            m = mask[:, t][:, None]
            o = np.where(m, new, 0.0 if zero_output else prev)
            new = np.where(m, new, h)
        h = new
        prev = o
        outs.append(o)
    return np.stack(outs, 1), prev, h


def cell_calls(name, shape_x, shape_h, symbolic):
    # backend.rnn's calls: the first-step call, then the while body traced once (symbolic) or T times (eager)
    n = 2 if symbolic else 1 + T
    for _ in range(n):
        out("LinCell.call", name, shape_x, shape_h)


def layer_cfg(name):
    return {"name": name, "trainable": True, "dtype": "float32"}


def custom(cls, name, registered=None, build=None):
    # serialize_keras_object of a program's class (module __main__ -> None)
    e = {"module": None, "class_name": cls, "config": layer_cfg(name),
         "registered_name": registered if registered is not None else cls}
    if build is not None:
        e["build_config"] = {"input_shape": build}
    return e


def rnn_cfg(name, cell, zero_output=False):
    c = layer_cfg(name)
    c.update({"return_sequences": False, "return_state": False, "go_backwards": False, "stateful": False,
              "unroll": False, "time_major": False})
    if zero_output:
        c["zero_output_for_mask"] = True
    c["cell"] = cell
    return c


EAGER = "(2, 2)", "(2, 3)"
SYMB = "(None, 2)", "(None, 3)"

out("-- functional, concat, return_sequences")
cell_calls("lin_cell", *SYMB, True)
cell_calls("lin_cell", *SYMB, True)
out("output", "(None, 4, 6)")
out("copies", "forward_rnn", "backward_rnn", False, True)
out("cells", "LinCell", "lin_cell", False)
out("weights", ["bidirectional/forward_rnn/lin_cell/w:0", "bidirectional/forward_rnn/lin_cell/u:0",
                "bidirectional/backward_rnn/lin_cell/w:0", "bidirectional/backward_rnn/lin_cell/u:0"])
out("-- eager call")
cell_calls("lin_cell", *EAGER, False)
cell_calls("lin_cell", *EAGER, False)
yf = rnn(X)[0]
yb = rnn(X, go_backwards=True)[0][:, ::-1]
show("y", np.concatenate([yf, yb], -1))

out("-- functional, merge_mode None, return_state")
cell_calls("lin_cell_1", *SYMB, True)
cell_calls("lin_cell_1", *SYMB, True)
out("outputs", 4)
for _ in range(4):
    out("output", "(None, 3)")

out("-- eager, ave, mask")
cell_calls("lin_cell_2", *EAGER, False)
cell_calls("lin_cell_2", *EAGER, False)
yf = rnn(X, mask=MASK, zero_output=True)[0]
yb = rnn(X, go_backwards=True, mask=MASK, zero_output=True)[0][:, ::-1]
show("y", (yf + yb) / 2)
out("zero_output_for_mask", True, True)

out("-- eager, sum, return_state, initial_state")
cell_calls("lin_cell_3", *EAGER, False)
cell_calls("lin_cell_3", *EAGER, False)
_, lf, hf = rnn(X, h0=np.ones((2, 3)))
_, lb, hb = rnn(X, go_backwards=True, h0=np.zeros((2, 3)))
out("results", 3)
show("y", lf + lb)
show("h_forward", hf)
show("h_backward", hb)

out("-- a program's RNN subclass, functional")
out("MyRNN.call", "forward_my_rnn", "(None, 4, 2)", False)
cell_calls("lin_cell_4", *SYMB, True)
out("MyRNN.call", "backward_my_rnn", "(None, 4, 2)", True)
cell_calls("lin_cell_4", *SYMB, True)
out("output", "(None, 4, 3)", "MyRNN", "MyRNN")
out("-- eager call")
out("MyRNN.call", "forward_my_rnn", "(2, 4, 2)", False)
cell_calls("lin_cell_4", *EAGER, False)
out("MyRNN.call", "backward_my_rnn", "(2, 4, 2)", True)
cell_calls("lin_cell_4", *EAGER, False)
yf = rnn(X)[0]
yb = rnn(X, go_backwards=True)[0][:, ::-1]
show("y", yf * yb)

out("-- a program's sequence layer, functional")
out("Cumsum.call", "forward_cumsum", "(None, 4, 2)", False)
out("Cumsum.call", "backward_cumsum", "(None, 4, 2)", True)
out("output", "(None, 4, 4)")
out("-- eager")
out("Cumsum.call", "forward_cumsum", "(2, 4, 2)", False)
out("Cumsum.call", "backward_cumsum", "(2, 4, 2)", True)
yf = np.cumsum(X, axis=1)
yb = np.cumsum(X[:, ::-1], axis=1)[:, ::-1]   # the backward output in processing order, reversed by Bidirectional
show("y", np.concatenate([yf, yb], -1))
cs = layer_cfg("cumsum")
cs.update({"go_backwards": False, "return_sequences": True, "return_state": False, "stateful": False})
bi = layer_cfg("bidirectional_5")
bi["layer"] = {"module": None, "class_name": "Cumsum", "config": cs, "registered_name": "Cumsum"}
bi["merge_mode"] = "concat"
out(repr(bi))

out("-- get_config")
bi = layer_cfg("bi_a")
bi["layer"] = {"module": "keras.layers", "class_name": "RNN", "config": rnn_cfg("rnn_a", custom("LinCell", "cell_a")),
               "registered_name": None}
bi["merge_mode"] = "concat"
out(repr(bi))
cell_calls("cell_a", *EAGER, False)
cell_calls("cell_a", *EAGER, False)
out(True)
out(repr(rnn_cfg("rnn_b", custom("LinCell", "cell_b"), zero_output=True)))
td = layer_cfg("td_a")
td["layer"] = custom("Twice", "twice_a")
out(repr(td))
td["layer"] = custom("Twice", "twice_a", build=(2, 2))   # Wrapper.build -> Layer.build((2, 2))
out(repr(td))
td = layer_cfg("td_b")
td["layer"] = custom("Scale", "scale_a")   # its own build records no shape
out(repr(td))
out(repr(custom("LinCell", "c")))
out(repr(custom("RegCell", "r", registered="Pkg>RegCell")))
out(repr({"module": "keras.layers", "class_name": "RNN",
          "config": rnn_cfg("rnn_r", custom("RegCell", "r2", registered="Pkg>RegCell")), "registered_name": None}))
out("keras.layers", "InputLayer", None)
out(None, "Twice", "Twice")

with open(os.path.join(HERE, "programs", "keras_bidirectional_user.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
