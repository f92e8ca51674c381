#!/usr/bin/python3
"""gen_rnn_act_fixtures.py — the golden program keras_rnn_act_fused.tfs: Keras LSTM and GRU layers with activations
other than tanh / sigmoid (relu, linear, hard_sigmoid, elu, selu, softsign, softplus, swish, gelu) run by the fused TfsLSTMSequence / TfsGRUSequence ops
(eagerly and in a tf.function): outputs and gradients against Keras 2.15's cell formulas written in float64 torch
(checked here against nn.LSTM / nn.GRU for the default activations), outputs bit for bit and gradients to float
rounding against the layers' own op-by-op steps (unroll=True); masks, go_backwards, initial states, both GRU forms.
Run with /usr/bin/python3 (Debian python3-torch); writes tests/programs/keras_rnn_act_fused.{tfs,out}."""
import numpy as np
import torch

from gen_keras_layer_fixtures import TOL, grid, lit
from rnn_fixture_util import CLOSE, SAME, layer_pair, load_torch, write_program

ACTS = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda v: v, "sigmoid": torch.sigmoid,
        # Keras 2.15's hard_sigmoid (keras/src/backend.py): clip(0.2 * x + 0.5, 0, 1)
        "hard_sigmoid": lambda v: torch.clamp(0.2 * v + 0.5, 0.0, 1.0),
        "elu": torch.nn.functional.elu, "selu": torch.selu, "softplus": torch.nn.functional.softplus,
        "softsign": lambda v: v / (1 + v.abs()), "swish": lambda v: v * torch.sigmoid(v),
        # Keras 2.15's gelu: approximate=False, 0.5 x (1 + erf(x / sqrt 2))
        "gelu": lambda v: torch.nn.functional.gelu(v)}


def lstm_step(xt, st, w, act, ract):
    """LSTMCell: z = x K + h R + b in the gate order i, f, g (cell input), o"""
    h, c = st
    z = xt @ w[0] + h @ w[1] + (w[2] if len(w) > 2 else 0.0)
    i, f, g, o = torch.chunk(z, 4, dim=1)
    c = ACTS[ract](f) * c + ACTS[ract](i) * ACTS[act](g)
    return ACTS[ract](o) * ACTS[act](c), [c]


def gru_step(xt, st, w, act, ract, after):
    """GRUCell (gates z, r, h): reset_after applies r to h R_h + b1_h, else h is multiplied by r before R_h"""
    h, u = st[0], w[1].shape[0]
    b = w[2] if len(w) > 2 else torch.zeros(2, 3 * u) if after else torch.zeros(3 * u)
    xp = xt @ w[0] + (b[0] if after else b)
    rec = h @ w[1] + (b[1] if after else 0.0)
    z = ACTS[ract](xp[:, :u] + rec[:, :u])
    r = ACTS[ract](xp[:, u:2 * u] + rec[:, u:2 * u])
    hh = ACTS[act](xp[:, 2 * u:] + (r * rec[:, 2 * u:] if after else (r * h) @ w[1][:, 2 * u:]))
    return z * h + (1 - z) * hh, []


def run(step, x, w, states, mask=None, back=False, zero=False):
    """backend.rnn with Keras' masking: the outputs in step order and the last states"""
    B, Tn, _ = x.shape
    prev, outs = torch.zeros_like(states[0]), []
    for s in range(Tn):
        t = Tn - 1 - s if back else s
        out, rest = step(x[:, t], states, w)
        new = [out] + rest
        if mask is not None:
            m = torch.tensor(mask[:, t:t + 1])
            out = torch.where(m, out, torch.zeros_like(out) if zero else prev)
            new = [torch.where(m, a, b) for a, b in zip(new, states)]
        states, prev = new, out
        outs.append(out)
    return torch.stack(outs, 1), states


def check_torch(x, w3, w4):
    """the formulas above are nn.LSTM's and nn.GRU's (reset_after) for tanh and sigmoid"""
    tx, F = torch.tensor(x), x.shape[2]
    for kind, w in (("lstm", w4), ("gru", w3)):
        u = w[1].shape[0]
        m = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(F, u, batch_first=True).double()
        perm = np.r_[0:2 * u, 2 * u:3 * u, 3 * u:4 * u] if kind == "lstm" else np.r_[u:2 * u, 0:u, 2 * u:3 * u]
        # torch orders GRU gates r, z, n; LSTM gates i, f, g, o as Keras
        load_torch(m, w[0][:, perm], w[1][:, perm], (w[2] if kind == "lstm" else w[2][0])[perm],
                   None if kind == "lstm" else w[2][1][perm])
        with torch.no_grad():
            ref = m(tx)[0].numpy()
        z = torch.zeros(x.shape[0], u)
        tw = [torch.tensor(a) for a in w]
        if kind == "lstm":
            mine = run(lambda a, s, ww: lstm_step(a, s, ww, "tanh", "sigmoid"), tx, tw, [z, z])[0]
        else:
            mine = run(lambda a, s, ww: gru_step(a, s, ww, "tanh", "sigmoid", True), tx, tw, [z])[0]
        assert np.abs(ref - mine.numpy()).max() < 1e-12, kind


HEAD = CLOSE + '''
def near(a, b):
    return all(bool(tf.reduce_max(tf.abs(p - q)).numpy() <= %r) for p, q in zip(a, b))

''' + SAME + '''
def fused(layer, x):
    # whether the traced layer runs as one fused op
    ops = tf.function(lambda v: layer(v)).get_concrete_function(x).graph.get_operations()
    return any(op.type in ('TfsLSTMSequence', 'TfsGRUSequence') for op in ops)

def loss_grads(layer, x, init, mask, ws, wh):
    # the layer's outputs and the gradients of sum(seq * ws) + sum(h * wh) for x, its weights and the states
    with tf.GradientTape() as tape:
        tape.watch([x] + init)
        r = layer(x, initial_state=init, mask=mask, training=True)
        loss = tf.reduce_sum(r[0] * ws) + tf.reduce_sum(r[1] * wh)
    return r, tape.gradient(loss, [x] + layer.trainable_weights + init)
'''


def main():
    B, Tn, F, u = 3, 6, 4, 5   # B*H = 15: a row of a [B,H] gate crosses the sigmoid's packet tail
    x = grid((B, Tn, F), 7, 11, 5, 0.3)
    K4, R4, b4 = grid((F, 4 * u), 7, 11, 5, 0.1), grid((u, 4 * u), 5, 9, 4, 0.1), grid((4 * u,), 3, 7, 3, 0.1)
    K3, R3, b3 = grid((F, 3 * u), 7, 13, 6, 0.1), grid((u, 3 * u), 5, 11, 5, 0.1), grid((2, 3 * u), 3, 7, 3, 0.1)
    check_torch(x, [K3, R3, b3], [K4, R4, b4])
    ws, wh = grid((B, Tn, u), 5, 7, 3, 0.25), grid((B, u), 3, 5, 2, 0.25)
    zero_h, h0, c0 = np.zeros((B, u)), grid((B, u), 3, 7, 3, 0.2), grid((B, u), 5, 7, 2, 0.2)
    mask = np.array([[True] * 6, [True, True, True, True, False, False], [False, True, True, False, True, True]])
    lines = ["# keras_rnn_act_fused.tfs — generated by tests/gen_rnn_act_fixtures.py: Keras LSTM and GRU with other",
             "# activations through the fused ops, eagerly and traced: outputs and gradients within %g of Keras' formulas" % TOL,
             "# in float64 torch, outputs bit for bit equal to unroll=True's op-by-op steps, gradients within 1e-05", "",
             HEAD % (TOL, 1e-5),
             "x = tf.constant(%s, dtype=tf.float32)" % lit(x),
             "ws = tf.constant(%s, dtype=tf.float32)" % lit(ws),
             "wh = tf.constant(%s, dtype=tf.float32)" % lit(wh),
             "mask = tf.constant(%r)" % mask.tolist(), ""]
    out = []
    # tag, layer, activation, recurrent_activation, other arguments, kernel scale, bias, initial state, mask, backwards
    cases = [("lstm relu hard_sigmoid", "LSTM", "relu", "hard_sigmoid", "", 4, True, False, False, False),
             ("lstm linear sigmoid backwards h0", "LSTM", "linear", "sigmoid", ", go_backwards=True", 1, True, True, False, True),
             ("lstm hard_sigmoid relu masked", "LSTM", "hard_sigmoid", "relu", "", 1, True, True, True, False),
             ("lstm tanh linear no bias", "LSTM", "tanh", "linear", ", use_bias=False", 1, False, False, False, False),
             ("gru relu hard_sigmoid", "GRU", "relu", "hard_sigmoid", "", 4, True, False, False, False),
             ("gru linear sigmoid reset_before masked h0", "GRU", "linear", "sigmoid", ", reset_after=False", 1, True, True, True, False),
             ("gru tanh hard_sigmoid backwards", "GRU", "tanh", "hard_sigmoid", ", go_backwards=True", 1, True, False, False, True),
             ("gru sigmoid relu reset_before no bias", "GRU", "sigmoid", "relu", ", reset_after=False, use_bias=False", 1, False, True, False, False),
             # activations whose derivative needs the pre-activation (swish, gelu) or is TF's from the output
             ("lstm elu softsign", "LSTM", "elu", "softsign", "", 4, True, False, False, False),
             ("lstm swish gelu masked h0", "LSTM", "swish", "gelu", "", 1, True, True, True, False),
             ("lstm gelu swish backwards", "LSTM", "gelu", "swish", ", go_backwards=True", 4, True, False, False, True),
             ("lstm selu softplus no bias", "LSTM", "selu", "softplus", ", use_bias=False", 1, False, True, False, False),
             ("gru swish gelu", "GRU", "swish", "gelu", "", 1, True, True, False, False),
             ("gru gelu swish reset_before masked", "GRU", "gelu", "swish", ", reset_after=False", 1, True, False, True, False),
             ("gru softplus elu backwards h0", "GRU", "softplus", "elu", ", go_backwards=True", 1, True, True, False, True),
             ("gru softsign selu reset_before", "GRU", "softsign", "selu", ", reset_after=False", 1, True, False, False, False)]
    for tag, kind, act, ract, kw, scale, bias, init, masked, back in cases:
        lstm, after = kind == "LSTM", "reset_after=False" not in kw
        w = [K4 * scale, R4 * scale] if lstm else [K3 * scale, R3 * scale]
        if bias:
            w.append(b4 if lstm else b3 if after else b3[0])
        st = [h0 if init else zero_h] + ([c0 if init else zero_h] if lstm else [])
        tx, tw, ts = (torch.tensor(x, requires_grad=True), [torch.tensor(a, requires_grad=True) for a in w],
                      [torch.tensor(a, requires_grad=True) for a in st])
        if lstm:
            step = lambda a, s, ww: lstm_step(a, s, ww, act, ract)   # noqa: E731
        else:
            step = lambda a, s, ww: gru_step(a, s, ww, act, ract, after)   # noqa: E731
        seq, last = run(step, tx, tw, ts, mask if masked else None, back)
        loss = (seq * torch.tensor(ws)).sum() + (last[0] * torch.tensor(wh)).sum()
        loss.backward()
        refs = [seq.detach().numpy(), last[0].detach().numpy()]
        grads = [tx.grad.numpy()] + [a.grad.numpy() for a in tw] + [a.grad.numpy() for a in ts]
        args = "%d, activation=%r, recurrent_activation=%r, return_sequences=True, return_state=True%s" % (u, act, ract, kw)
        lines += layer_pair(tag, kind, args, w) + [
                  "init = [%s]" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(a) for a in st),
                  "m = %s" % ("mask" if masked else "None"),
                  "print(%r, 'fused', fused(layer, x), fused(steps, x))" % tag,
                  "graph = tf.function(lambda v, s: loss_grads(layer, v, s, m, ws, wh))",
                  "ref = loss_grads(steps, x, init, m, ws, wh)",
                  "for mode, (r, g) in [('eager', loss_grads(layer, x, init, m, ws, wh)), ('graph', graph(x, init))]:",
                  "    print(%r, mode, %s, same(r, ref[0]))" % (
                      tag, ", ".join("close(r[%d], %s)" % (i, lit(a)) for i, a in enumerate(refs))),
                  "    print(%r, mode, 'gradients', %s, near(g, ref[1]))" % (
                      tag, ", ".join("close(g[%d], %s)" % (i, lit(a)) for i, a in enumerate(grads))),
                  ""]
        out += ["%s fused True False" % tag]
        for mode in ("eager", "graph"):
            out += ["%s %s True True True" % (tag, mode),
                    "%s %s gradients %s" % (tag, mode, " ".join(["True"] * (len(grads) + 1)))]
    write_program("keras_rnn_act_fused", lines, out)


if __name__ == "__main__":
    main()
