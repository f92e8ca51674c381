#!/usr/bin/python3
"""gen_rnn_masked_fixtures.py — the golden program keras_rnn_masked.tfs: the fused recurrent ops with a Keras mask and a
recurrent dropout mask (tf.raw_ops.TfsLSTMSequence / TfsGRUSequence, their outputs and gradients, eagerly and traced,
with and without saved activations) and the Keras layers that run them (mask with skipped first steps and an initial
state, zero_output_for_mask, go_backwards, return_state), against Keras 2's formulas in float64 torch autograd on fixed
inputs (backend.rnn: a skipped step keeps the states and repeats the previous output, zeros before the first).
Run with /usr/bin/python3 (Debian python3-torch); writes tests/programs/keras_rnn_masked.{tfs,out}."""
import os

import numpy as np
import torch

from gen_keras_layer_fixtures import PROGS, TOL, grid, lit

torch.set_default_dtype(torch.float64)


def T(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def lstm_cell(R, b):
    def cell(xt, hin, s):
        u = R.shape[0]
        z = xt + hin @ R + (b if b is not None else 0.0)
        i, f, g, o = torch.sigmoid(z[:, :u]), torch.sigmoid(z[:, u:2 * u]), torch.tanh(z[:, 2 * u:3 * u]), torch.sigmoid(z[:, 3 * u:])
        c2 = f * s[1] + i * g
        h2 = o * torch.tanh(c2)
        return h2, [h2, c2]
    return cell


def gru_cell(R, b, after):
    def cell(xt, hin, s):
        u = R.shape[0]
        if after:
            xp = xt + (b[0] if b is not None else 0.0)
            rec = hin @ R + (b[1] if b is not None else 0.0)
            z = torch.sigmoid(xp[:, :u] + rec[:, :u])
            r = torch.sigmoid(xp[:, u:2 * u] + rec[:, u:2 * u])
            hh = torch.tanh(xp[:, 2 * u:] + r * rec[:, 2 * u:])
        else:
            xp = xt + (b if b is not None else 0.0)
            rec = hin @ R[:, :2 * u]
            z = torch.sigmoid(xp[:, :u] + rec[:, :u])
            r = torch.sigmoid(xp[:, u:2 * u] + rec[:, u:])
            hh = torch.tanh(xp[:, 2 * u:] + (r * hin) @ R[:, 2 * u:])
        h2 = z * hin + (1 - z) * hh
        return h2, [h2]
    return cell


def run_seq(cell, xp, states, mask, rk, back, zero):
    """xp [T, B, k*H] time-major; mask [T, B] bool or None; rk [B, H] or None (h * rk enters the step, as the
    layer's op-by-op steps give the cell the dropped state). Outputs in step order [B, T, H] and the states."""
    n = xp.shape[0]
    outs, prev = [], torch.zeros(states[0].shape)
    for s in range(n):
        t = n - 1 - s if back else s
        hin = states[0] * rk if rk is not None else states[0]
        out, new = cell(xp[t], hin, states)
        if mask is not None:
            m = torch.tensor(mask[t][:, None])
            out = torch.where(m, out, torch.zeros(out.shape) if zero else prev)
            new = [torch.where(m, a, c) for a, c in zip(new, states)]
        prev, states = out, new
        outs.append(out)
    return torch.stack(outs, 1), states


def grads(loss, params):
    gs = torch.autograd.grad(loss, params, allow_unused=True)
    return [np.zeros(p.shape) if g is None else g.detach().numpy() for p, g in zip(params, gs)]


HEAD = ["def close(a, b):",
        "    return bool(tf.reduce_max(tf.abs(tf.cast(a, tf.float64) - tf.constant(b, dtype=tf.float64))).numpy() <= %r)" % TOL, ""]


def raw_cases(lines, out):
    """the raw ops: loss sum(hs * w0) + sum(h * w1) (+ sum(c * w2)); gradients of xp, h0 (c0), U, bias"""
    Tn, B, u = 6, 3, 5
    mask = np.array([[False, True, True], [True, True, False], [True, False, True], [True, True, True],
                     [False, True, True], [True, True, False]])
    # recurrent dropout's kept units at rate 0.2: 1 / 0.8 or 0 (larger factors would let the GRU's z * h grow
    # step by step beyond the absolute tolerance)
    rk = np.where(grid((B, u), 7, 5, 1, 1.0) == 0, 0.0, 1.25)
    for kind, k in [("LSTM", 4), ("GRU", 3), ("GRU reset_before", 3)]:
        xp = grid((Tn, B, k * u), 7, 11, 5, 0.15)
        R = grid((u, k * u), 5, 9, 4, 0.1)
        after = kind == "GRU"
        b = grid((2, k * u) if after else (k * u,), 3, 7, 3, 0.1)
        h0, c0 = grid((B, u), 3, 7, 3, 0.2), grid((B, u), 5, 7, 2, 0.2)
        for tag, m, r, back, zero in [("mask", mask, None, False, False), ("mask backwards zero", mask, None, True, True),
                                      ("recurrent", None, rk, False, False), ("mask recurrent backwards", mask, rk, True, False)]:
            tx, th, tc, tR, tb = T(xp), T(h0), T(c0), T(R), T(b)
            lstm = kind == "LSTM"
            cell = lstm_cell(tR, tb) if lstm else gru_cell(tR, tb, after)
            hs, st = run_seq(cell, tx, [th, tc] if lstm else [th], m, None if r is None else torch.tensor(r), back, zero)
            ws = [grid(tuple(hs.shape), 3, 7, 3, 0.5), grid((B, u), 5, 11, 5, 0.3), grid((B, u), 3, 11, 4, 0.3)]
            res = [hs] + st
            loss = sum((a * torch.tensor(w)).sum() for a, w in zip(res, ws))
            params = [tx, th, tc, tR, tb] if lstm else [tx, th, tR, tb]
            gs = grads(loss, params)
            name = "%s %s" % (kind, tag)
            args = "xp=v[0], h0=v[1], %srecurrent_kernel=v[%d], bias=v[%d], mask=%s, recurrent_mask=%s, go_backwards=%s" % (
                "c0=v[2], " if lstm else "", len(params) - 2, len(params) - 1,
                "None" if m is None else "tf.constant(%s, dtype=tf.float32)" % lit(m.astype(np.float64)),
                "None" if r is None else "tf.constant(%s, dtype=tf.float32)" % lit(r), back)
            args += ", zero_output_for_mask=%s" % zero if lstm or zero else ""
            if not lstm:
                args += ", reset_after=%s" % after
            op = "TfsLSTMSequence" if lstm else "TfsGRUSequence"
            nres = 3 if lstm else 2
            lines += ["# " + name,
                      "v = [%s]" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(p.detach().numpy()) for p in params),
                      "ws = [%s]" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(w) for w in ws[:nres]),
                      "def run_raw(v, save):",
                      "    with tf.GradientTape() as tape:",
                      "        tape.watch(v)",
                      "        r = tf.raw_ops.%s(%s, save=save)" % (op, args),
                      "        loss = tf.add_n([tf.reduce_sum(r[i] * ws[i]) for i in range(%d)])" % nres,
                      "    return [r[i] for i in range(%d)], tape.gradient(loss, v)" % nres,
                      "for mode, fn in [('eager', run_raw), ('graph', tf.function(run_raw))]:",
                      "    for save in [True, False]:",
                      "        r, g = fn(v, save)",
                      "        print(%r, mode, save, 'outputs', all([%s]), 'grads', all([%s]))" % (
                          name, ", ".join("close(r[%d], %s)" % (i, lit(a.detach().numpy())) for i, a in enumerate(res)),
                          ", ".join("close(g[%d], %s)" % (i, lit(a)) for i, a in enumerate(gs))), ""]
            for mode in ("eager", "graph"):
                for save in ("True", "False"):
                    out.append("%s %s %s outputs True grads True" % (name, mode, save))


def layer_cases(lines, out):
    """Keras layers on a masked input [B, T, F] with an initial state, training=True (no dropout: the fused op's
    saved activations) and inference; loss sum(y * w) over the layer's outputs"""
    B, Tn, F, u = 3, 6, 4, 5
    x = grid((B, Tn, F), 7, 11, 5, 0.3)
    mask = np.array([[False, False, True, True, True, False], [True, True, True, True, True, True],
                     [True, False, True, False, True, True]])
    lines += ["x = tf.constant(%s, dtype=tf.float32)" % lit(x), "mask = tf.constant(%s)" % repr(mask.tolist()), ""]
    for kind, kw, back, seq, state, zero in [
            ("LSTM", "", False, False, False, False),
            ("LSTM", "return_sequences=True, return_state=True", False, True, True, False),
            ("LSTM", "go_backwards=True, return_state=True, zero_output_for_mask=True", True, False, True, True),
            ("LSTM", "return_sequences=True, go_backwards=True, zero_output_for_mask=True", True, True, False, True),
            ("GRU", "return_sequences=True, return_state=True", False, True, True, False),
            ("GRU", "reset_after=False, go_backwards=True, return_state=True, zero_output_for_mask=True", True, False, True, True)]:
        lstm = kind == "LSTM"
        after = "reset_after=False" not in kw
        k = 4 if lstm else 3
        K, R = grid((F, k * u), 7, 11, 5, 0.1), grid((u, k * u), 5, 9, 4, 0.1)
        b = grid((k * u,) if lstm or not after else (2, k * u), 3, 7, 3, 0.1)
        h0, c0 = grid((B, u), 3, 7, 3, 0.2), grid((B, u), 5, 7, 2, 0.2)
        tx, tK, tR, tb, th, tc = T(x), T(K), T(R), T(b), T(h0), T(c0)
        xp = torch.einsum("btf,fg->tbg", tx, tK)
        cell = lstm_cell(tR, tb) if lstm else gru_cell(tR, tb, after)
        hs, st = run_seq(cell, xp, [th, tc] if lstm else [th], mask.T, None, back, zero)
        y = hs if seq else hs[:, -1]
        res = [y] + (st if state else [])
        ws = [grid(tuple(a.shape), 3 + 2 * i, 11, 5, 0.3) for i, a in enumerate(res)]
        loss = sum((a * torch.tensor(w)).sum() for a, w in zip(res, ws))
        gs = grads(loss, [tx, tK, tR, tb])
        name = "%s(%s)" % (kind, kw)
        init = "[tf.constant(%s, dtype=tf.float32)%s]" % (lit(h0), ", tf.constant(%s, dtype=tf.float32)" % lit(c0) if lstm else "")
        lines += ["# " + name,
                  "layer = tf.keras.layers.%s(%d%s)" % (kind, u, ", " + kw if kw else ""),
                  "layer(x)",
                  "layer.set_weights([%s])" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(a) for a in (K, R, b)),
                  "ws = [%s]" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(w) for w in ws),
                  "init = " + init,
                  "def run_layer(x, training):",
                  "    with tf.GradientTape() as tape:",
                  "        tape.watch(x)",
                  "        r = layer(x, mask=mask, initial_state=init, training=training)",
                  "        r = r if isinstance(r, list) else [r]",
                  "        loss = tf.add_n([tf.reduce_sum(a * w) for a, w in zip(r, ws)])",
                  "    return r, tape.gradient(loss, [x] + layer.trainable_weights)",
                  "for mode, fn in [('eager', run_layer), ('graph', tf.function(run_layer))]:",
                  "    for training in [True, False]:",
                  "        r, g = fn(x, training)",
                  "        print(%r, mode, training, 'outputs', all([%s]), 'grads', all([%s]))" % (
                      name, ", ".join("close(r[%d], %s)" % (i, lit(a.detach().numpy())) for i, a in enumerate(res)),
                      ", ".join("close(g[%d], %s)" % (i, lit(a)) for i, a in enumerate(gs))), ""]
        for mode in ("eager", "graph"):
            for training in ("True", "False"):
                out.append("%s %s %s outputs True grads True" % (name, mode, training))


def dropout_cases(lines, out):
    """recurrent_dropout in training: the fused layer and its unroll=True twin (op-by-op steps, checked against
    torch above through the raw ops' formula) draw the same kept units after the same seed, so give the same
    outputs and gradients within float rounding; masked and not."""
    lines += ["def near(a, b):",
              "    return bool(tf.reduce_max(tf.abs(a - b)) <= 1e-5 * (1.0 + float(tf.reduce_max(tf.abs(b)))))", "",
              "def dropout_run(layer, x, m):",
              "    tf.keras.utils.set_random_seed(7)",
              "    with tf.GradientTape() as tape:",
              "        tape.watch(x)",
              "        y = layer(x, mask=m, training=True)",
              "        loss = tf.reduce_sum(y * tf.reshape(tf.range(tf.size(y), dtype=tf.float32) % 7.0 - 3.0, y.shape))",
              "    return [y] + tape.gradient(loss, [x] + layer.trainable_weights)", ""]
    for kind, kw in [("LSTM", "recurrent_dropout=0.4, return_sequences=True"), ("GRU", "recurrent_dropout=0.4"),
                     ("GRU", "recurrent_dropout=0.3, dropout=0.2, reset_after=False, go_backwards=True")]:
        for masked in (False, True):
            name = "%s(%s)%s" % (kind, kw, " masked" if masked else "")
            lines += ["# " + name,
                      "pair = [tf.keras.layers.%s(5, %s, unroll=u) for u in [False, True]]" % (kind, kw),
                      "for l in pair:",
                      "    l(x)",
                      "    l.set_weights([tf.reshape(tf.range(tf.size(w), dtype=tf.float32) % 9.0 * 0.05 - 0.2, w.shape) for w in pair[0].weights])",
                      "for mode, fn in [('eager', dropout_run), ('graph', tf.function(dropout_run))]:",
                      "    a, b = fn(pair[0], x, %s), fn(pair[1], x, %s)" % (("mask",) * 2 if masked else ("None",) * 2),
                      "    print(%r, mode, 'fused ~ steps', all(near(p, q) for p, q in zip(a, b)),"
                      % name,
                      "          'dropout acts', not near(a[0], pair[0](x, mask=%s)))" % ("mask" if masked else "None"), ""]
            for mode in ("eager", "graph"):
                out.append("%s %s fused ~ steps True dropout acts True" % (name, mode))


def main():
    lines = ["# keras_rnn_masked.tfs — generated by tests/gen_rnn_masked_fixtures.py: the fused LSTM/GRU ops with a Keras mask",
             "# and a recurrent dropout mask, raw and in Keras layers, outputs and gradients against torch within %g" % TOL, ""] + HEAD
    out = []
    raw_cases(lines, out)
    layer_cases(lines, out)
    dropout_cases(lines, out)
    with open(os.path.join(PROGS, "keras_rnn_masked.tfs"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(PROGS, "keras_rnn_masked.out"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
