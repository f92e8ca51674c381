#!/usr/bin/python3
"""gen_keras_layer_fixtures.py — the golden program keras_layers_torch.tfs: Keras layers' outputs and gradients against PyTorch (run with /usr/bin/python3, Debian python3-torch).

Each case gives a tf.keras layer fixed weights through set_weights, runs it on a
fixed input under a GradientTape (eagerly and in a tf.function), and compares the
output, the gradient of sum(y * w) with respect to the input and to each trainable
weight (and the moving statistics of BatchNormalization) with PyTorch's, computed
here with Keras 2's formulas (gate orders, weight layouts, masks) written in torch
and checked against torch's own nn.LSTM / nn.GRU / nn.RNN / batch_norm / layer_norm
where torch has the same layer. The program prints, per case, the output shape and
whether every difference is within 2e-5 (float32 transcendental functions differ
in their last bits between libraries).
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
TOL = 2e-5
torch.set_default_dtype(torch.float64)   # the reference in float64; tfs computes in float32


def lit(a):
    return repr(np.round(np.asarray(a, dtype=np.float64), 9).tolist())


def grid(shape, mul, mod, off, scale):
    n = int(np.prod(shape))
    return (((np.arange(n) * mul) % mod - off) * scale).astype(np.float32).reshape(shape).astype(np.float64)


def T(a, grad=True):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# ---- Keras 2's recurrent steps, written in torch ---------------------------------------------------------
def run_rnn(step, x, states, mask=None, go_backwards=False, return_sequences=True, return_state=False):
    B, Tn, _ = x.shape
    order = range(Tn - 1, -1, -1) if go_backwards else range(Tn)
    outs, prev = [], torch.zeros(B, states[0].shape[1])
    for t in order:
        out, new = step(x[:, t, :], states)
        if mask is not None:
            m = torch.tensor(mask[:, t:t + 1])
            out = torch.where(m, out, prev)
            new = [torch.where(m, n, s) for n, s in zip(new, states)]
        prev, states = out, new
        outs.append(out)
    y = torch.stack(outs, 1) if return_sequences else prev
    return torch.cat([y] + list(states), -1) if return_state else y


def lstm_step(K, R, b):
    u = R.shape[0]

    def step(x, s):
        h, c = s
        z = x @ K + h @ R + b
        i, f, g, o = torch.sigmoid(z[:, :u]), torch.sigmoid(z[:, u:2 * u]), torch.tanh(z[:, 2 * u:3 * u]), torch.sigmoid(z[:, 3 * u:])
        c2 = f * c + i * g
        h2 = o * torch.tanh(c2)
        return h2, [h2, c2]
    return step


def gru_step(K, R, b, reset_after):
    u = R.shape[0]

    def step(x, s):
        h = s[0]
        xp = x @ K + (b[0] if reset_after else b)
        if reset_after:
            rec = h @ R + b[1]
            z = torch.sigmoid(xp[:, :u] + rec[:, :u])
            r = torch.sigmoid(xp[:, u:2 * u] + rec[:, u:2 * u])
            hh = torch.tanh(xp[:, 2 * u:] + r * rec[:, 2 * u:])
        else:
            rec = h @ R[:, :2 * u]
            z = torch.sigmoid(xp[:, :u] + rec[:, :u])
            r = torch.sigmoid(xp[:, u:2 * u] + rec[:, u:])
            hh = torch.tanh(xp[:, 2 * u:] + (r * h) @ R[:, 2 * u:])
        h2 = z * h + (1 - z) * hh
        return h2, [h2]
    return step


def rnn_step(K, R, b):
    def step(x, s):
        h = torch.tanh(x @ K + b + s[0] @ R)
        return h, [h]
    return step


def check_against_torch_layers(x, weights):
    """The Keras-formula LSTM/GRU/RNN above agree with torch's nn layers (gate orders re-arranged)."""
    K, R, b = weights["lstm"]
    u = R.shape[0]
    lstm = torch.nn.LSTM(x.shape[2], u, batch_first=True)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(K.T))
        lstm.weight_hh_l0.copy_(torch.tensor(R.T))
        lstm.bias_ih_l0.copy_(torch.tensor(b))
        lstm.bias_hh_l0.zero_()
    ref = lstm(torch.tensor(x))[0].detach().numpy()
    mine = run_rnn(lstm_step(T(K), T(R), T(b)), torch.tensor(x), [torch.zeros(x.shape[0], u)] * 2).detach().numpy()
    assert np.abs(ref - mine).max() < 1e-12
    K, R, b = weights["gru"]
    u = R.shape[0]

    def zrh_to_rzn(m):   # Keras' gate order z, r, h; torch's r, z, n
        return np.concatenate([m[..., u:2 * u], m[..., :u], m[..., 2 * u:]], -1)
    gru = torch.nn.GRU(x.shape[2], u, batch_first=True)
    with torch.no_grad():
        gru.weight_ih_l0.copy_(torch.tensor(zrh_to_rzn(K).T))
        gru.weight_hh_l0.copy_(torch.tensor(zrh_to_rzn(R).T))
        gru.bias_ih_l0.copy_(torch.tensor(zrh_to_rzn(b[0])))
        gru.bias_hh_l0.copy_(torch.tensor(zrh_to_rzn(b[1])))
    ref = gru(torch.tensor(x))[0].detach().numpy()
    mine = run_rnn(gru_step(T(K), T(R), T(b), True), torch.tensor(x), [torch.zeros(x.shape[0], u)]).detach().numpy()
    assert np.abs(ref - mine).max() < 1e-12


# ---- the cases ---------------------------------------------------------------------------------------------
class Case:
    def __init__(self, tag, make, weights, x, y, grads, extra="", call="layer(x)", watch_x=True, after=None):
        self.tag, self.make, self.weights, self.x, self.y, self.grads = tag, make, weights, x, y, grads
        self.extra, self.call, self.watch_x, self.after = extra, call, watch_x, after


def grads_of(y, w, params):
    loss = (y * torch.tensor(w)).sum()
    gs = torch.autograd.grad(loss, params, allow_unused=True)
    return [np.zeros(p.shape) if g is None else g.detach().numpy() for p, g in zip(params, gs)]


def recurrent_cases(x, mask):
    cases = []
    u = 5
    K, R, b = grid((3, 4 * u), 7, 11, 5, 0.1), grid((u, 4 * u), 5, 9, 4, 0.1), grid((4 * u,), 3, 7, 3, 0.1)
    for tag, kw, msk, back, seq in [("lstm seq", "return_sequences=True", None, False, True),
                                    ("lstm last masked", "", mask, False, False),
                                    ("lstm backwards seq masked", "return_sequences=True, go_backwards=True", mask, True, True)]:
        tK, tR, tb, tx = T(K), T(R), T(b), T(x)
        y = run_rnn(lstm_step(tK, tR, tb), tx, [torch.zeros(2, u)] * 2, msk, back, seq)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        cases.append(Case(tag, "tf.keras.layers.LSTM(%d%s)" % (u, ", " + kw if kw else ""), [K, R, b], x, y.detach().numpy(),
                          grads_of(y, w, [tx, tK, tR, tb]), call="layer(x%s)" % (", mask=mask" if msk is not None else "")))
        cases[-1].w = w
    # the fused LSTM op's configurations (eager training, no mask): the final states (concatenated after the
    # output), backwards without a mask, and no bias; dropout is 0, so training=True changes no value
    for tag, kw, back, seq, state, bias in [("lstm state", "return_state=True", False, False, True, True),
                                            ("lstm backwards last", "go_backwards=True", True, False, False, True),
                                            ("lstm seq backwards", "return_sequences=True, go_backwards=True", True, True, False, True),
                                            ("lstm seq no bias", "return_sequences=True, use_bias=False", False, True, False, False)]:
        tK, tR, tb, tx = T(K), T(R), T(b if bias else np.zeros(4 * u)), T(x)
        y = run_rnn(lstm_step(tK, tR, tb), tx, [torch.zeros(2, u)] * 2, None, back, seq, state)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        params = [tx, tK, tR] + ([tb] if bias else [])
        cases.append(Case(tag, "tf.keras.layers.LSTM(%d, %s)" % (u, kw), [K, R] + ([b] if bias else []), x, y.detach().numpy(),
                          grads_of(y, w, params),
                          call="tf.concat(layer(x, training=True), -1)" if state else "layer(x, training=True)"))
        cases[-1].w = w
    u = 4
    for tag, reset_after, kw in [("gru seq", True, "return_sequences=True"), ("gru reset_before last", False, "reset_after=False")]:
        K, R = grid((3, 3 * u), 5, 13, 6, 0.08), grid((u, 3 * u), 7, 9, 4, 0.1)
        b = grid((2, 3 * u), 3, 7, 3, 0.1) if reset_after else grid((3 * u,), 3, 7, 3, 0.1)
        tK, tR, tb, tx = T(K), T(R), T(b), T(x)
        y = run_rnn(gru_step(tK, tR, tb, reset_after), tx, [torch.zeros(2, u)], None, False, reset_after)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        cases.append(Case(tag, "tf.keras.layers.GRU(%d, %s)" % (u, kw), [K, R, b], x, y.detach().numpy(),
                          grads_of(y, w, [tx, tK, tR, tb])))
        cases[-1].w = w
    # the fused GRU op's configurations under training=True (it keeps its activations): the final state, backwards,
    # no bias, and reset_after=False with the sequence and backwards with the state
    for tag, kw, reset_after, back, seq, state, bias in [
            ("gru state", "return_state=True", True, False, False, True, True),
            ("gru seq backwards", "return_sequences=True, go_backwards=True", True, True, True, False, True),
            ("gru no bias", "use_bias=False", True, False, False, False, False),
            ("gru reset_before seq", "reset_after=False, return_sequences=True", False, False, True, False, True),
            ("gru reset_before backwards state", "reset_after=False, go_backwards=True, return_state=True", False, True, False, True,
             True)]:
        K, R = grid((3, 3 * u), 5, 13, 6, 0.08), grid((u, 3 * u), 7, 9, 4, 0.1)
        b = grid((2, 3 * u), 3, 7, 3, 0.1) if reset_after else grid((3 * u,), 3, 7, 3, 0.1)
        tK, tR, tb, tx = T(K), T(R), T(b if bias else np.zeros(b.shape)), T(x)
        y = run_rnn(gru_step(tK, tR, tb, reset_after), tx, [torch.zeros(2, u)], None, back, seq, state)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        params = [tx, tK, tR] + ([tb] if bias else [])
        cases.append(Case(tag, "tf.keras.layers.GRU(%d, %s)" % (u, kw), [K, R] + ([b] if bias else []), x, y.detach().numpy(),
                          grads_of(y, w, params),
                          call="tf.concat(layer(x, training=True), -1)" if state else "layer(x, training=True)"))
        cases[-1].w = w
    u = 3
    K, R, b = grid((3, u), 5, 7, 3, 0.2), grid((u, u), 3, 7, 3, 0.2), grid((u,), 1, 3, 1, 0.1)
    tK, tR, tb, tx = T(K), T(R), T(b), T(x)
    y = run_rnn(rnn_step(tK, tR, tb), tx, [torch.zeros(2, u)], mask, False, True)
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    cases.append(Case("simple_rnn seq masked", "tf.keras.layers.SimpleRNN(%d, return_sequences=True)" % u, [K, R, b], x,
                      y.detach().numpy(), grads_of(y, w, [tx, tK, tR, tb]), call="layer(x, mask=mask)"))
    cases[-1].w = w
    return cases


def norm_cases():
    cases = []
    # BatchNormalization over a [4, 3] batch (population variance for the moving variance) and [2, 3, 3, 2]
    # (Keras' fused path: Bessel-corrected); momentum 0.9, epsilon 1e-3
    for tag, shape in [("batch_norm 2d training", (4, 3)), ("batch_norm 4d training", (2, 3, 3, 2))]:
        x = grid(shape, 7, 11, 5, 0.3)
        C = shape[-1]
        gamma, beta = grid((C,), 3, 5, -3, 0.25), grid((C,), 2, 5, 2, 0.1)
        mm, mv = grid((C,), 1, 3, 1, 0.1), 1.0 + grid((C,), 1, 3, 0, 0.5)
        tx, tg, tb = T(x), T(gamma), T(beta)
        y = F.batch_norm(tx, None, None, tg, tb, training=True, eps=1e-3) if len(shape) == 2 else \
            F.batch_norm(tx.permute(0, 3, 1, 2), None, None, tg, tb, training=True, eps=1e-3).permute(0, 2, 3, 1)
        axes = tuple(range(len(shape) - 1))
        n = int(np.prod([shape[a] for a in axes]))
        mean, var = x.mean(axes), x.var(axes)
        if len(shape) == 4:
            var = var * n / (n - 1)
        new_mm, new_mv = mm * 0.9 + mean * 0.1, mv * 0.9 + var * 0.1
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        c = Case(tag, "tf.keras.layers.BatchNormalization(momentum=0.9)", [gamma, beta, mm, mv], x, y.detach().numpy(),
                 grads_of(y, w, [tx, tg, tb]), call="layer(x, training=True)",
                 after=[("layer.moving_mean", new_mm), ("layer.moving_variance", new_mv)])
        c.w = w
        cases.append(c)
    x = grid((4, 3), 7, 11, 5, 0.3)
    gamma, beta, mm, mv = grid((3,), 3, 5, -3, 0.25), grid((3,), 2, 5, 2, 0.1), grid((3,), 1, 3, 1, 0.1), 1.0 + grid((3,), 1, 3, 0, 0.5)
    tx, tg, tb = T(x), T(gamma), T(beta)
    y = F.batch_norm(tx, torch.tensor(mm), torch.tensor(mv), tg, tb, training=False, eps=1e-3)
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    c = Case("batch_norm inference", "tf.keras.layers.BatchNormalization()", [gamma, beta, mm, mv], x, y.detach().numpy(),
             grads_of(y, w, [tx, tg, tb]), call="layer(x, training=False)", after=[("layer.moving_mean", mm)])
    c.w = w
    cases.append(c)
    x = grid((2, 3, 4), 5, 13, 6, 0.2)
    gamma, beta = grid((4,), 3, 5, -3, 0.25), grid((4,), 2, 5, 2, 0.1)
    tx, tg, tb = T(x), T(gamma), T(beta)
    y = F.layer_norm(tx, (4,), tg, tb, eps=1e-3)
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    c = Case("layer_norm", "tf.keras.layers.LayerNormalization()", [gamma, beta], x, y.detach().numpy(), grads_of(y, w, [tx, tg, tb]))
    c.w = w
    cases.append(c)
    return cases


def attention_cases():
    cases = []
    H, kd, D = 2, 3, 4
    q, v = grid((2, 3, D), 5, 13, 6, 0.2), grid((2, 5, D), 7, 11, 5, 0.2)
    Wq, bq = grid((D, H, kd), 3, 7, 3, 0.2), grid((H, kd), 1, 5, 2, 0.1)
    Wk, bk = grid((D, H, kd), 5, 7, 3, 0.2), grid((H, kd), 2, 5, 2, 0.1)
    Wv, bv = grid((D, H, kd), 2, 7, 3, 0.2), grid((H, kd), 3, 5, 2, 0.1)
    Wo, bo = grid((H, kd, D), 3, 11, 5, 0.1), grid((D,), 1, 3, 1, 0.1)
    amask = np.ones((2, 3, 5), dtype=bool)
    amask[0, :, 3:] = False
    amask[1, 2, 0] = False
    ps = [T(a) for a in (q, v, Wq, bq, Wk, bk, Wv, bv, Wo, bo)]
    tq, tv, tWq, tbq, tWk, tbk, tWv, tbv, tWo, tbo = ps
    Q = torch.einsum("abc,cde->abde", tq, tWq) + tbq
    Kt = torch.einsum("abc,cde->abde", tv, tWk) + tbk
    V = torch.einsum("abc,cde->abde", tv, tWv) + tbv
    Q = Q / np.sqrt(kd)
    s = torch.einsum("aecd,abcd->acbe", Kt, Q)
    s = s + (1.0 - torch.tensor(amask[:, None].astype(np.float64))) * -1e9
    p = torch.softmax(s, -1)
    o = torch.einsum("acbe,aecd->abcd", p, V)
    y = torch.einsum("abcd,cde->abe", o, tWo) + tbo
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    g = grads_of(y, w, [tq, tv, tWq, tbq, tWk, tbk, tWv, tbv, tWo, tbo])
    c = Case("multi_head_attention masked", "tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)",
             [Wq, bq, Wk, bk, Wv, bv, Wo, bo], q, y.detach().numpy(), [g[0]] + g[2:],
             call="layer(x, v, attention_mask=amask)", extra="v = tf.constant(%s)\namask = tf.constant(%s)" % (lit(v), repr(amask.tolist())))
    c.w = w
    c.build = "layer(x, v)"
    cases.append(c)
    # Attention (dot scores) with a value mask
    vmask = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    tq, tv = T(q), T(v)
    s = tq @ tv.transpose(1, 2) - 1e9 * torch.tensor((~vmask[:, None, :]).astype(np.float64))
    y = torch.softmax(s, -1) @ tv
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    g = grads_of(y, w, [tq])
    c = Case("attention value-masked", "tf.keras.layers.Attention()", [], q, y.detach().numpy(), g,
             call="layer([x, v], mask=[None, vmask])", extra="v = tf.constant(%s)\nvmask = tf.constant(%s)" % (lit(v), repr(vmask.tolist())))
    c.w = w
    cases.append(c)
    return cases


def misc_cases():
    cases = []
    ids = np.array([[1, 4, 0], [2, 2, 3]])
    E = grid((5, 3), 7, 11, 5, 0.1)
    tE = T(E)
    y = tE[torch.tensor(ids)]
    w = grid(tuple(y.shape), 3, 5, 2, 1.0)
    c = Case("embedding", "tf.keras.layers.Embedding(5, 3)", [E], ids, y.detach().numpy(), grads_of(y, w, [tE]), watch_x=False)
    c.w = w
    c.xint = True
    cases.append(c)
    xp = grid((2, 5, 5, 2), 37, 101, 50, 0.125)
    for tag, make, fn in [
            ("average_pooling2d same", "tf.keras.layers.AveragePooling2D(2, strides=2, padding='same')", None),
            ("average_pooling2d valid s1", "tf.keras.layers.AveragePooling2D(3, strides=1)",
             lambda t: F.avg_pool2d(t.permute(0, 3, 1, 2), 3, 1).permute(0, 2, 3, 1)),
            ("global_average_pooling2d", "tf.keras.layers.GlobalAveragePooling2D()", lambda t: t.mean((1, 2))),
            ("global_max_pooling2d", "tf.keras.layers.GlobalMaxPooling2D()", lambda t: t.amax((1, 2)))]:
        tx = T(xp)
        y = fn(tx) if fn is not None else None
        if "same" in tag:
            # TF divides each window by its cells inside the input (the padded row and column do not count)
            sums = F.avg_pool2d(F.pad(tx.permute(0, 3, 1, 2), (0, 1, 0, 1)), 2, 2, divisor_override=1)
            cnt = F.avg_pool2d(F.pad(torch.ones(1, 1, 5, 5), (0, 1, 0, 1)), 2, 2, divisor_override=1)
            y = (sums / cnt).permute(0, 2, 3, 1)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        c = Case(tag, make, [], xp, y.detach().numpy(), grads_of(y, w, [tx]))
        c.w = w
        cases.append(c)
    x1 = grid((2, 7, 3), 37, 101, 50, 0.125)
    for tag, make, fn in [
            ("max_pooling1d", "tf.keras.layers.MaxPooling1D(3, strides=2)", lambda t: F.max_pool1d(t.transpose(1, 2), 3, 2).transpose(1, 2)),
            ("average_pooling1d", "tf.keras.layers.AveragePooling1D(2)", lambda t: F.avg_pool1d(t.transpose(1, 2), 2).transpose(1, 2)),
            ("global_max_pooling1d", "tf.keras.layers.GlobalMaxPooling1D()", lambda t: t.amax(1))]:
        tx = T(x1)
        y = fn(tx)
        w = grid(tuple(y.shape), 3, 5, 2, 1.0)
        c = Case(tag, make, [], x1, y.detach().numpy(), grads_of(y, w, [tx]))
        c.w = w
        cases.append(c)
    return cases


def emit(cases, x, mask, prog="keras_layers_torch", gen="gen_keras_layer_fixtures.py"):
    # x and mask (the shared sequence input) may be None when every case brings its own input
    lines = ["# %s.tfs — generated by tests/%s: Keras layers' outputs and gradients" % (prog, gen),
             "# against PyTorch on fixed weights (set_weights), eagerly and in a tf.function; every difference within %g" % TOL, "",
             "def close(a, b):",
             "    return bool(tf.reduce_max(tf.abs(tf.cast(a, tf.float64) - tf.constant(b, dtype=tf.float64))).numpy() <= %r)" % TOL, ""]
    if x is not None:
        lines += ["x_seq = tf.constant(%s)" % lit(x), "mask = tf.constant(%s)" % repr(mask.tolist()), ""]
    out = []
    for c in cases:
        lines.append("# " + c.tag)
        if c.extra:
            lines.append(c.extra)
        xname = "x_seq" if c.x is x else "xin"
        if xname == "xin":
            if getattr(c, "xint", False):
                lines.append("xin = tf.constant(%s)" % repr(np.asarray(c.x).tolist()))
            else:
                lines.append("xin = tf.constant(%s, dtype=tf.float32)" % lit(c.x))
        for i, wv in enumerate(c.weights):
            lines.append("np_w%d = tf.constant(%s)" % (i, lit(wv)))
        setw = "layer.set_weights([%s])" % ", ".join("np_w%d" % i for i in range(len(c.weights)))
        # the first call builds the layer's variables; the weights are set after it
        lines += ["layer = %s" % c.make,
                  "x = %s" % xname,
                  getattr(c, "build", None) or c.call,
                  "w = tf.constant(%s)" % lit(c.w),
                  "def run_case(x):",
                  "    with tf.GradientTape() as tape:",
                  "        tape.watch(x)" if c.watch_x else "        pass",
                  "        y = %s" % c.call,
                  "        loss = tf.reduce_sum(y * w)",
                  "    gs = tape.gradient(loss, (%slayer.trainable_weights))" % ("[x] + " if c.watch_x else ""),
                  "    return y, gs"]
        checks = ["close(y, %s)" % lit(c.y)] + ["close(gs[%d], %s)" % (i, lit(g)) for i, g in enumerate(c.grads)]
        after = []
        if c.after:
            after = ["close(%s, %s)" % (name, lit(v)) for name, v in c.after]
        lines += ["for mode, run in [('eager', run_case), ('graph', tf.function(run_case))]:",
                  "    " + (setw if c.weights else "pass"),
                  "    y, gs = run(x)",
                  "    print(%r, mode, tuple(y.shape), 'output', %s, 'grads', all([%s])%s)" % (
                      c.tag, checks[0], ", ".join(checks[1:]), (", 'state', all([%s])" % ", ".join(after)) if after else ""), ""]
        shape = "(" + ", ".join(str(d) for d in c.y.shape) + ("," if len(c.y.shape) == 1 else "") + ")"
        for mode in ("eager", "graph"):
            out.append("%s %s %s output True grads True%s" % (c.tag, mode, shape, " state True" if c.after else ""))
    return lines, out


def main():
    x = grid((2, 4, 3), 7, 11, 5, 0.3)
    mask = np.array([[True, True, True, False], [True, False, True, True]])
    K = grid((3, 20), 7, 11, 5, 0.1), grid((5, 20), 5, 9, 4, 0.1), grid((20,), 3, 7, 3, 0.1)
    G = grid((3, 12), 5, 13, 6, 0.08), grid((4, 12), 7, 9, 4, 0.1), grid((2, 12), 3, 7, 3, 0.1)
    check_against_torch_layers(x, {"lstm": K, "gru": G})
    cases = recurrent_cases(x, mask) + norm_cases() + attention_cases() + misc_cases()
    lines, out = emit(cases, x, mask)
    with open(os.path.join(PROGS, "keras_layers_torch.tfs"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(PROGS, "keras_layers_torch.out"), "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
