#!/usr/bin/python3
"""gen_keras_functional_multi.py — writes tests/programs/keras_functional_multi.out: the two-input, two-output model
of keras_functional_multi.tfs recomputed with PyTorch in float64 (run with /usr/bin/python3, Debian python3-torch).

    /usr/bin/python3 tests/gen_keras_functional_multi.py

Keras 2.15's rules, written out here: the total loss is sum(loss_weight * output_loss) (losses reduced by
SUM_OVER_BATCH_SIZE, from logits: sigmoid and softmax cross-entropies), each output's unweighted loss is tracked as
NAME_loss, metrics are named NAME_metric and averaged over samples; fit(shuffle=False, batch_size=3) takes the
batches in order, one SGD step each, the metrics from each step's predictions before its update. The lines that are
not numbers (layer and metric names, the error) are Keras's behaviour written out.
"""
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def grid(rows, cols, mod, off, scale):
    return torch.tensor([[((i * cols + j) % mod - off) * scale for j in range(cols)] for i in range(rows)])


W = {
    "hidden": [grid(5, 4, 7, 3, 0.1), torch.tensor([0.1, -0.1, 0.2, 0.0])],
    "p": [grid(4, 1, 5, 2, 0.3), torch.tensor([0.05])],
    "d": [grid(4, 3, 4, 1, 0.25), torch.tensor([0.0, 0.1, -0.1])],
}
xa = grid(6, 3, 5, 2, 0.5)
xb = grid(6, 2, 3, 1, 0.7)
yp = torch.tensor([[float(i % 2)] for i in range(6)])
yd = torch.nn.functional.one_hot(torch.tensor([i % 3 for i in range(6)]), 3).double()


def forward(w, a, b):
    h = torch.tanh(torch.cat([a, b], 1) @ w["hidden"][0] + w["hidden"][1])
    return h @ w["p"][0] + w["p"][1], h @ w["d"][0] + w["d"][1]


def bce_logits(y, z):
    return torch.mean(torch.mean(torch.clamp(z, min=0) - z * y + torch.log1p(torch.exp(-torch.abs(z))), -1))


def cce_logits(y, z):
    return torch.mean(-torch.sum(y * torch.log_softmax(z, -1), -1))


def mse(y, z):
    return torch.mean(torch.mean((y - z) ** 2, -1))


def fmt(d):
    return " ".join("%s=%.4f" % (k, v) for k, v in d.items())


def evaluate(w, losses, weights, lo, hi):
    p, d = forward(w, xa[lo:hi], xb[lo:hi])
    lp = losses[0](yp[lo:hi], p)
    ld = losses[1](yd[lo:hi], d)
    return p, d, lp, ld, weights[0] * lp + weights[1] * ld


def metrics(p, d, lo, hi):
    mae = torch.mean(torch.abs(yp[lo:hi] - p), -1)
    acc = (torch.argmax(d, -1) == torch.argmax(yd[lo:hi], -1)).double()
    return mae, acc


lines = ["['a', 'b', 'concatenate', 'hidden', 'p', 'd']", "['a', 'b'] ['p', 'd']"]
LOSSES = (bce_logits, cce_logits)
WEIGHTS = (1.0, 0.2)
p, d, lp, ld, tot = evaluate(W, LOSSES, WEIGHTS, 0, 6)
mae, acc = metrics(p, d, 0, 6)
lines.append(fmt({"loss": tot, "p_loss": lp, "d_loss": ld, "p_mae": mae.mean(), "d_acc": acc.mean()}))
lines.append("['loss', 'p_loss', 'd_loss', 'p_mae', 'd_acc']")
w = {k: [t.clone().requires_grad_(True) for t in v] for k, v in W.items()}
hist = {"loss": [], "p_loss": [], "d_loss": [], "p_mae": [], "d_acc": []}
for epoch in range(2):
    tots, lps, lds, maes, accs = [], [], [], [], []
    for lo in (0, 3):
        p, d, lp, ld, tot = evaluate(w, LOSSES, WEIGHTS, lo, lo + 3)
        mae, acc = metrics(p.detach(), d.detach(), lo, lo + 3)
        params = [t for v in w.values() for t in v]
        grads = torch.autograd.grad(tot, params)
        with torch.no_grad():
            for t, g in zip(params, grads):
                t -= 0.1 * g
        tots.append(tot.item()); lps.append(lp.item()); lds.append(ld.item())
        maes += mae.tolist(); accs += acc.tolist()
    for k, v in (("loss", tots), ("p_loss", lps), ("d_loss", lds), ("p_mae", maes), ("d_acc", accs)):
        hist[k].append(sum(v) / len(v))
for k, v in hist.items():
    lines.append(k + " " + " ".join("%.4f" % x for x in v))
w = {k: [t.detach() for t in v] for k, v in w.items()}
p, d, lp, ld, tot = evaluate(w, LOSSES, WEIGHTS, 0, 6)
mae, acc = metrics(p, d, 0, 6)
lines.append(fmt({"loss": tot, "p_loss": lp, "d_loss": ld, "p_mae": mae.mean(), "d_acc": acc.mean()}))
lines.append("list [(6, 1), (6, 3)]")
p, d, lp, ld, tot = evaluate(w, (mse, mse), (0.5, 2.0), 0, 6)
mae, acc = metrics(p, d, 0, 6)
dmae = torch.mean(torch.abs(yd - d), -1)
lines.append(fmt({"loss": tot, "p_loss": lp, "d_loss": ld, "p_mae": mae.mean(), "d_mae": dmae.mean()}))
p, d, lp, ld, tot = evaluate(w, (mse, mse), (1.0, 1.0), 0, 6)
lines.append(fmt({"loss": tot, "first_loss": lp, "second_loss": ld}))
lines.append("['first', 'second']")
lines.append("['first_loss', 'loss', 'second_loss']")
lines.append("['loss', 'p_loss', 'd_loss', 'p_mae', 'd_mae'] [(6, 1), (6, 3)]")
with open(os.path.join(HERE, "programs", "keras_functional_multi.out"), "w") as f:
    f.write("\n".join(lines) + "\n")
