#!/usr/bin/python3
# gen_keras_losses_metrics.py — writes tests/programs/keras_losses_metrics.out: Keras 2.15's losses and metrics recomputed with numpy.
"""Independent reference for keras_losses_metrics.tfs.

    /usr/bin/python3 tests/gen_keras_losses_metrics.py

Each formula follows keras/losses.py, keras/metrics/*.py and
keras/utils/metrics_utils.py of Keras 2.15 (epsilon 1e-7 clipping, labels
{0,1} mapped to {-1,1} by the hinge losses, reductions: sum over batch size
= weighted sum / number of per-sample values, AUC thresholds
[-eps, 1/(n-1), ..., 1+eps] with strict `score > threshold`).  Computed in
float64, printed to 4 decimals.  Names, flags and messages are Keras's
behaviour written out.
"""
import math
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-7
A = np.array
yt = A([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]])
yp = A([[0.2, 0.7, 0.9], [0.6, 0.3, 0.4]])
yl = A([[-1.0, 2.0, 0.5], [1.5, -0.5, 0.0]])
yt2 = A([[1.0, 2.0, 3.0], [0.5, 1.5, 2.5]])
yp2 = A([[1.5, 1.0, 3.5], [0.4, 2.0, 2.0]])
ytc = A([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
ypc = A([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]])
ytp = A([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
ytb = A([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
sparse = A([1, 0])
sw = A([0.5, 2.0])
out = []


def show(name, v):
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 0:
        out.append("%s %.4f" % (name, v))
    else:
        out.append(name + " " + " ".join("%.4f" % e for e in v.reshape(-1)))


def mse(t, p): return np.mean((p - t) ** 2, -1)
def mae(t, p): return np.mean(np.abs(p - t), -1)
def mape(t, p): return 100 * np.mean(np.abs((t - p) / np.maximum(np.abs(t), EPS)), -1)
def msle(t, p): return np.mean((np.log(np.maximum(p, EPS) + 1) - np.log(np.maximum(t, EPS) + 1)) ** 2, -1)
def sigmoid(x): return 1 / (1 + np.exp(-x))


def bce(t, p, logits=False, ls=0.0):
    t = t * (1 - ls) + 0.5 * ls
    if logits:
        per = np.maximum(p, 0) - p * t + np.log(1 + np.exp(-np.abs(p)))
    else:
        q = np.clip(p, EPS, 1 - EPS)
        per = -(t * np.log(q + EPS) + (1 - t) * np.log(1 - q + EPS))
    return np.mean(per, -1)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cce(t, p, logits=False, ls=0.0):
    t = t * (1 - ls) + ls / t.shape[-1]
    if logits:
        return -np.sum(t * np.log(softmax(p)), -1)
    q = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -np.sum(t * np.log(q), -1)


def scce(labels, p, logits=False):
    q = softmax(p) if logits else np.clip(p, EPS, 1 - EPS)
    if not logits:
        q = softmax(np.log(q))
    return -np.log(q[np.arange(len(labels)), labels])


def signed(t): return 2 * t - 1 if np.all((t == 0) | (t == 1)) else t
def hinge(t, p): return np.mean(np.maximum(1 - signed(t) * p, 0), -1)
def sq_hinge(t, p): return np.mean(np.maximum(1 - signed(t) * p, 0) ** 2, -1)
def cat_hinge(t, p): return np.maximum(np.max((1 - t) * p, -1) - np.sum(t * p, -1) + 1, 0)


def kld(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return np.sum(t * np.log(t / p), -1)


def poisson(t, p): return np.mean(p - t * np.log(p + EPS), -1)
def log_cosh(t, p): x = p - t; return np.mean(x + np.log1p(np.exp(-2 * x)) - math.log(2), -1)


def cosine(t, p):
    n = lambda v: v / np.sqrt(np.maximum(np.sum(v * v, -1, keepdims=True), 1e-12))
    return -np.sum(n(t) * n(p), -1)


def huber(t, p, d=1.0):
    e = p - t
    a = np.abs(e)
    return np.mean(np.where(a <= d, 0.5 * e * e, d * a - 0.5 * d * d), -1)


def reduce(per, w=None, how="sum_over_batch_size"):
    if w is not None:
        per = per * w
    if how == "none":
        return per
    return per.sum() if how == "sum" else per.sum() / per.size


show("mse", mse(yt, yp))
show("mae", mae(yt, yp))
show("mape", mape(yt2, yp2))
show("msle", msle(yt2, yp2))
show("bce", bce(yt, yp))
show("bce logits smoothing", bce(yt, yl, True, 0.1))
show("cce", cce(ytc, ypc))
show("cce logits smoothing", cce(ytc, yl, True, 0.2))
show("scce", scce(sparse, ypc))
show("scce logits", scce(sparse, yl, True))
show("hinge", hinge(ytb, yl))
show("squared_hinge", sq_hinge(ytb, yl))
show("categorical_hinge", cat_hinge(ytc, yl))
show("kld", kld(ytp, ypc))
show("poisson", poisson(yt2, yp2))
show("log_cosh", log_cosh(yt, yl))
show("cosine_similarity", cosine(yt2, yp2))
show("huber", huber(yt, yl))
show("huber delta", huber(yt, yl, 0.5))
show("MSE auto", reduce(mse(yt, yp)))
show("MSE weighted", reduce(mse(yt, yp), sw))
show("MSE weighted (N,1)", reduce(mse(yt, yp), sw))
show("MSE sum", reduce(mse(yt, yp), sw, "sum"))
show("MSE none", reduce(mse(yt, yp), sw, "none"))
show("MAE sum_over_batch_size", reduce(mae(yt, yp)))
show("BinaryCrossentropy", reduce(bce(yt, yl, True)))
show("CategoricalCrossentropy", reduce(cce(ytc, ypc), sw))
show("SparseCategoricalCrossentropy", reduce(scce(sparse, yl, True)))
show("Hinge", reduce(hinge(ytb, yl)))
show("SquaredHinge", reduce(sq_hinge(ytb, yl)))
show("CategoricalHinge", reduce(cat_hinge(ytc, yl)))
show("KLDivergence", reduce(kld(ytp, ypc)))
show("Poisson", reduce(poisson(yt2, yp2)))
show("LogCosh", reduce(log_cosh(yt, yl)))
show("CosineSimilarity", reduce(cosine(yt2, yp2)))
show("Huber", reduce(huber(yt, yl, 0.5)))
show("MeanAbsolutePercentageError", reduce(mape(yt2, yp2)))
show("MeanSquaredLogarithmicError", reduce(msle(yt2, yp2)))
out.append("['mean_squared_error', 'binary_crossentropy', 'kl_divergence', 'log_cosh', 'huber_loss', 'cosine_similarity']")
out.append("my_mse auto True")
out.append('ValueError: Invalid Reduction Key: mean. Expected keys are "(\'auto\', \'none\', \'sum\', \'sum_over_batch_size\')"')
cub = lambda t, p: 2.0 * np.mean(np.abs(t - p) ** 3, -1)
show("Loss subclass", reduce(cub(yt, yp)))
show("Loss subclass weighted", reduce(cub(yt, yp), sw))
out.append("cubed_error auto")


def mean_of(vals, weights=None):
    v = np.concatenate([np.asarray(x, float).reshape(-1) for x in vals])
    w = np.ones_like(v) if weights is None else np.concatenate([np.asarray(x, float).reshape(-1) for x in weights])
    return (v * w).sum() / w.sum()


labels = A([[1.0], [0.0], [1.0], [1.0]])
scores = A([[0.8], [0.6], [0.4], [0.9]])
w4 = A([1.0, 2.0, 0.5, 1.0])
show("Accuracy", mean_of([[1, 1, 0], [1]]))
show("BinaryAccuracy", mean_of([(labels == (scores > 0.5)).astype(float)]))
show("BinaryAccuracy weighted", mean_of([(labels == (scores > 0.7)).astype(float)], [w4]))
cat = lambda t, p: (np.argmax(t, -1) == np.argmax(p, -1)).astype(float)
show("CategoricalAccuracy", mean_of([cat(ytc, ypc), cat(ytc, yl)], [np.ones(2), sw]))
show("SparseCategoricalAccuracy", mean_of([(sparse == np.argmax(ypc, -1)), (A([2, 1]) == np.argmax(yl, -1))]))


def in_top_k(ids, p, k):
    return np.array([(p[i] > p[i, t]).sum() < k for i, t in enumerate(ids)], float)


show("TopKCategoricalAccuracy", mean_of([in_top_k(np.argmax(ytc, -1), ypc, 2), in_top_k([2, 2], ypc, 2)]))
show("SparseTopKCategoricalAccuracy", mean_of([in_top_k([1, 2], ypc, 1)]))
show("MeanAbsoluteError", mean_of([mae(yt, yp), mae(yt2, yp2)], [np.ones(2), sw]))
show("MeanSquaredError", mean_of([mse(yt, yp)], [sw]))
show("RootMeanSquaredError", math.sqrt(mean_of([(yp - yt) ** 2, (yp2 - yt2) ** 2])))
show("Mean", mean_of([[1.0, 2.0, 3.0], [10.0]], [[1, 1, 1], [2.0]]))
show("Mean weighted", mean_of([[1.0, 2.0, 3.0]], [[0.0, 1.0, 3.0]]))
show("Sum", 1.0 * 1 + 2.0 * 0.5 + 3.0 * 2)
show("MeanMetricWrapper", mean_of([mse(yt, yp)]))


def counts(t, p, th, w=None):
    t, p = t.reshape(-1) > 0.5, p.reshape(-1)
    w = np.ones_like(p) if w is None else w
    r = []
    for x in th:
        above = p > x
        r.append(((above & t) @ w, (above & ~t) @ w, (~above & ~t) @ w, (~above & t) @ w))
    return np.array(r).T  # tp, fp, tn, fn


def auc(t, p, n=200, curve="ROC", method="interpolation", w=None, thresholds=None):
    if thresholds is None:
        th = [-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS]
    else:
        th = [-EPS] + sorted(thresholds) + [1 + EPS]
    n = len(th)
    tp, fp, tn, fn = counts(t, p, th, w)
    div = lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b))
    if curve == "PR" and method == "interpolation":
        dtp = tp[:-1] - tp[1:]
        pos = tp + fp
        dp = pos[:-1] - pos[1:]
        slope = div(dtp, np.maximum(dp, 0))
        inter = tp[1:] - slope * pos[1:]
        ratio = np.where((pos[:-1] > 0) & (pos[1:] > 0), div(pos[:-1], np.maximum(pos[1:], 0)), 1.0)
        return np.sum(div(slope * (dtp + inter * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0)))
    rec = div(tp, tp + fn)
    x, y = (div(fp, fp + tn), rec) if curve == "ROC" else (rec, div(tp, tp + fp))
    h = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]), "majoring": np.maximum(y[:-1], y[1:])}[method]
    return np.sum((x[:-1] - x[1:]) * h)


show("AUC", auc(labels, scores))
show("AUC weighted", auc(labels, scores, 50, w=w4))
show("AUC PR", auc(labels, scores, curve="PR"))
show("AUC minoring", auc(labels, scores, 10, method="minoring"))
show("AUC majoring", auc(labels, scores, method="majoring", thresholds=[0.5, 0.7]))
tp, fp, tn, fn = counts(labels, scores, [0.5])
show("Precision", tp[0] / (tp[0] + fp[0]))
tp, fp, tn, fn = counts(labels, scores, [0.5, 0.85], w4)
show("Precision thresholds", tp / (tp + fp))
tp, fp, tn, fn = counts(labels, scores, [0.5])
show("Recall", tp[0] / (tp[0] + fn[0]))
tp, fp, tn, fn = counts(ytc[:, 1:2], ypc[:, 1:2], [0.5])
show("Recall class_id", tp[0] / (tp[0] + fn[0]))
# AUC() and Precision() without a name get unique names: five AUCs and two Precisions were made above
out.append("0.5 accuracy ['total:0', 'count:0'] auc_5 auc_6 precision_2")
out.append("True AUC")
out.append("categorical_true_positives 2.0 1")
out.append("['accuracy', 'categorical_true_positives', 'loss'] True")
with open(os.path.join(HERE, "programs", "keras_losses_metrics.out"), "w") as f:
    f.write("\n".join(out) + "\n")
