#!/usr/bin/python3
# gen_keras_wrapped_user_calls.py — writes tests/programs/keras_wrapped_user_calls.out: Keras 2.15's calls of a program's cell / layer under RNN and TimeDistributed, with numpy and torch.
"""Independent reference for keras_wrapped_user_calls.tfs.

    /usr/bin/python3 tests/gen_keras_wrapped_user_calls.py

Keras 2.15's rules (keras/backend.py rnn, keras/layers/rnn/base_rnn.py, time_distributed.py):
- backend.rnn with unroll=False calls the step once on the first step taken (result unused), then once per step
  (eagerly the while_loop runs its body T times; traced, and in a symbolic call's scratch graph, the body is traced
  once); unroll=True calls it once per step.  A masked step keeps the states and repeats the previous output
  (zeros before the first).
- TimeDistributed over a program's layer (not a built-in one: a subclass of Dense counts as Dense,
  layer_utils.is_builtin_layer): with a static batch size it runs backend.rnn over the
  steps (no states); without one it reshapes the steps into the batch and calls the layer once.
- tf.function traces twice when its first trace creates variables (here the wrapped layer's, built inside).
- A symbolic call (functional API) runs call on placeholders with batch None.
The cell is h_t = x_t W + h_{t-1} U; the layer x K + 1.  The fit lines: two SGD(0.1) steps of mse on the RNN's last
output, gradients by torch autograd in float64.  Values printed to 5 decimals.
"""
import os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
W = np.array([[0.5, -0.25, 0.1], [0.2, 0.3, -0.4]])
U = np.array([[0.9, 0.0, 0.1], [0.0, 0.8, -0.2], [0.1, 0.2, 0.7]])
K = np.array([[0.6, -0.3], [0.25, 0.4]])
X = (np.arange(16, dtype=np.float32).reshape(2, 4, 2) * np.float32(0.1) - np.float32(0.7)).astype(np.float64)
MASK = np.array([[True, True, False, True], [True, False, False, False]])
T = 4
# a tf.function whose first trace creates variables (the wrapped layer built there) traces its function a second time
# (TF's _no_variable_creation_fn after _initialize)
TRACES = 2

lines = []


def show(label, v):
    lines.append(label + " " + " ".join(f"{float(t):.5f}" for t in np.reshape(np.asarray(v), [-1])))


def cell_calls(n, batch="2"):
    lines.extend([f"LinCell.call ({batch}, 2) ({batch}, 3)"] * n)


def scale_calls(n, batch="2"):
    lines.extend([f"Scale.call ({batch}, 2)"] * n)


def rnn(x, mask=None, backwards=False, h0=None, w=W, u=U, lib=np):
    # Keras's backend.rnn over the linear cell: the outputs in the order taken, the last output, the final state
    h = lib.zeros((x.shape[0], 3)) if h0 is None else h0
    prev = lib.zeros((x.shape[0], 3))
    outs = []
    order = range(T - 1, -1, -1) if backwards else range(T)
    for t in order:
        new = x[:, t] @ w + h @ u
        if mask is not None:
            m = mask[:, t:t + 1]
            new_out = np.where(m, new, prev)
            h = np.where(m, new, h)
        else:
            new_out = new
            h = new
        prev = new_out
        outs.append(new_out)
    return outs, prev, h


def scale(x):
    return x @ K + 1.0


def expected(eager):
    # the program's text; eager: under `tfs run --eager` (tf.functions run as Python, every call eager)
    lines.clear()
    lines.append("-- RNN eager")
    cell_calls(T + 1)
    show("seq", np.stack(rnn(X)[0], 1))
    lines.append("-- RNN eager, mask, return_state")
    cell_calls(T + 1)
    outs, last, h = rnn(X, MASK)
    show("seq", np.stack(outs, 1))
    show("h", h)
    lines.append("-- RNN eager, go_backwards")
    cell_calls(T + 1)
    show("last", rnn(X, backwards=True)[1])
    lines.append("-- RNN eager, unroll")
    cell_calls(T)
    show("last", rnn(X)[1])
    lines.append("-- RNN eager, initial_state")
    cell_calls(T + 1)
    show("last", rnn(X, h0=np.ones((2, 3)))[1])

    lines.append("-- RNN functional")
    cell_calls(2, "None")   # the first-step call, the loop body traced once
    lines.append("output (None, 3)")
    lines.append("-- RNN functional, eager call")
    cell_calls(T + 1)
    show("last", rnn(X)[1])

    lines.append("-- TimeDistributed eager")
    scale_calls(T + 1)
    show("y", scale(X))
    lines.append("-- TimeDistributed eager, mask")
    scale_calls(T + 1)
    y = scale(X)
    prev = np.zeros((2, 2))
    for t in range(T):
        y[:, t] = np.where(MASK[:, t:t + 1], y[:, t], prev)
        prev = y[:, t]
    td_masked = y
    show("y", y)
    lines.append("-- TimeDistributed traced, batch None")
    for k in range(2):
        if eager:
            scale_calls(T + 1)   # run eagerly: batch 2 known, backend.rnn per call
        elif k == 0:
            scale_calls(TRACES, "None")   # the reshape path, one call a trace; the second call reuses the trace
        show("y", scale(X))
    lines.append("-- TimeDistributed functional")
    scale_calls(1, "None")
    lines.append("output (None, 4, 2)")
    lines.append("-- TimeDistributed functional, eager call")
    scale_calls(T + 1)
    show("y", scale(X))
    lines.append("-- TimeDistributed functional, batch 2")
    scale_calls(2)   # batch known: backend.rnn in the scratch graph
    lines.append("output (2, 4, 2)")

    lines.append("-- TimeDistributed over a subclass of Dense, eager")
    lines.append("PDense.call (8, 2)")   # built in (layer_utils.is_builtin_layer): the reshape path
    show("y", scale(X))
    lines.append("-- Sequential")
    scale_calls(1, "None")   # called once on the Input Sequential makes; Flatten and Dense after it
    lines.append("output (None, 3) (8, 3)")

    lines.append("-- RNN traced")
    for k in range(2):
        if eager:
            cell_calls(T + 1)
        elif k == 0:
            cell_calls(2 * TRACES)   # the first-step call and the while_loop's body (traced once) a trace
        show("seq", np.stack(rnn(X)[0], 1))
    lines.append("-- RNN traced, mask, go_backwards, return_state")
    cell_calls(T + 1 if eager else 2 * TRACES)
    outs, last, h = rnn(X, MASK, backwards=True)
    show("seq", np.stack(outs, 1))
    show("h", h)
    lines.append("-- TimeDistributed traced, batch 2, mask")
    scale_calls(T + 1 if eager else 2 * TRACES)
    show("y", td_masked)

    lines.append("-- fit")
    w = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    u = torch.tensor(U, dtype=torch.float64, requires_grad=True)
    xt = torch.tensor(X)
    target = torch.tensor([[0.5, -0.5, 0.25], [-0.25, 0.75, 0.0]], dtype=torch.float64)
    for epoch in range(2):
        h = torch.zeros(2, 3, dtype=torch.float64)
        for t in range(T):
            h = xt[:, t] @ w + h @ u
        loss = ((h - target) ** 2).mean()
        gw, gu = torch.autograd.grad(loss, [w, u])
        with torch.no_grad():
            w -= 0.1 * gw
            u -= 0.1 * gu
    show("w", w.detach().numpy())
    show("u", u.detach().numpy())



for eager, suffix in ((False, ".out"), (True, ".eager.out")):
    expected(eager)
    with open(os.path.join(HERE, "programs", "keras_wrapped_user_calls" + suffix), "w") as f:
        f.write("\n".join(lines) + "\n")
