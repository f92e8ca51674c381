#!/usr/bin/python3
# gen_keras_metrics_more.py — writes tests/programs/keras_metrics_more.out: Keras 2.15's F-scores, IoU metrics, AUC(multi_label), top_k precision/recall and crossentropy ignore_class/axis, with numpy.
"""Independent reference for keras_metrics_more.tfs.

    /usr/bin/python3 tests/gen_keras_metrics_more.py

Formulas of Keras 2.15 (keras/metrics/f_score_metrics.py, iou_metrics.py, confusion_metrics.py,
keras/utils/metrics_utils.py, keras/backend.py's crossentropies, losses_utils.apply_valid_mask):
- FBetaScore: predictions are y_pred > threshold, or (threshold None) y_pred >= the row's max and |y_pred| > 1e-9;
  tp/fp/fn and the support sum(y_true) weighted by sample_weight, per class (summed over everything for "micro");
  precision, recall and f = (1 + b^2) p r / (b^2 p + r) with 0 for 0/0; "weighted" averages f by the support,
  "micro"/"macro" take the mean.
- IoU: a confusion matrix (rows labels, columns predictions, weighted), iou = tp / (row + col - tp) over
  target_class_ids, averaged over the classes whose denominator is not 0; ignore_class entries dropped; dense
  inputs argmax'ed; BinaryIoU predicts 1 for y_pred >= threshold.
- AUC: thresholds [-eps, 1/(n-1), ..., 1+eps], counts of float32 y_pred > threshold (no prediction sits on a
  threshold, so Keras's bucketed counts are the same), per label with multi_label and the labels' AUCs averaged
  (weighted by label_weights), else flattened with label_weights weighting each entry; ROC/PR Riemann sums and the
  interpolated PR area of Davis & Goadrich.
- Precision/Recall(top_k): all but the k largest of a row (ties: the lower index first) become -1e10, the
  default threshold is -1e10; class_id selects a column after that.
- sparse_categorical_crossentropy(ignore_class): the ignored entries give 0 and are masked; a Loss's mean is over
  the valid entries (sum_over_batch_size), the metric's weighted mean counts only valid entries.  axis moves the
  class axis last (sparse), or is the reduction axis (categorical, binary).
- fit/evaluate with SGD(0.0): the weights never change; the loss is the mean of the batch means, metrics accumulate
  over an epoch; the model saved (.keras, .h5) and loaded back evaluates the same with the same metric classes.
Printed to 4 decimals; messages are Keras's texts (the tf.stack error without TF's op suffix, as tfs prints op
errors).
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-7
NEG_INF = -1e10
out = []


def fmt(v):
    vals = np.reshape(np.asarray(v, dtype=np.float64), [-1])
    for x in vals:
        assert abs(abs(x) * 1e4 % 1 - 0.5) > 2e-3, x
    return " ".join("%.4f" % x for x in vals)


def show(label, v):
    out.append(label + ": " + fmt(v))


def line(s):
    out.append(s)


def dnn(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def f32(a):
    return np.asarray(a, np.float32)


# ---- F-scores ----
class FBeta:
    def __init__(self, average=None, beta=1.0, threshold=None):
        self.average, self.beta, self.threshold = average, beta, threshold
        self.s = None

    def update(self, yt, yp, sw=None):
        yt = np.asarray(yt, np.float64)
        ypf = f32(yp)
        if self.threshold is None:
            pred = (ypf >= ypf.max(axis=-1, keepdims=True)) & (np.abs(ypf) > 1e-9)
        else:
            assert np.all(np.abs(ypf - self.threshold) > 1e-6)
            pred = ypf > np.float32(self.threshold)
        pred = pred.astype(np.float64)
        w = np.ones((len(yt), 1)) if sw is None else np.asarray(sw, np.float64)[:, None]
        ax = None if self.average == "micro" else 0
        parts = [pred * yt, pred * (1 - yt), (1 - pred) * yt, yt]
        vals = [np.sum(p * w, axis=ax) for p in parts]
        self.s = vals if self.s is None else [a + b for a, b in zip(self.s, vals)]

    def reset(self):
        self.s = [v * 0 for v in self.s]

    def result(self):
        tp, fp, fn, support = self.s
        p = dnn(tp, tp + fp)
        r = dnn(tp, tp + fn)
        b2 = self.beta ** 2
        f = dnn(p * r, b2 * p + r) * (1 + b2)
        if self.average == "weighted":
            return np.sum(f * dnn(support, np.sum(support)))
        if self.average is not None:
            return np.mean(f)
        return f


yt = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0]], np.float64)
yp = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0], [0.1, 0.3, 0.9], [0.0, 0.0, 0.0]])
sw = np.array([1.0, 0.5, 2.0, 0.25, 1.5])
yt2 = np.array([[0, 1, 0], [1, 0, 1]], np.float64)
yp2 = np.array([[0.7, 0.75, 0.1], [0.9, 0.2, 0.66]])


def fscore(label, average=None, beta=1.0, threshold=None, w=None):
    m = FBeta(average, beta, threshold)
    m.update(yt, yp, w)
    show(label, m.result())


fscore("f1 none argmax")
fscore("f1 micro", "micro", threshold=0.5)
fscore("f1 macro weighted", "macro", threshold=0.5, w=sw)
fscore("f1 weighted", "weighted", w=sw)
fscore("fbeta2", beta=2.0, threshold=0.5)
m = FBeta("weighted", 0.5, 0.65)
m.update(yt, yp)
m.update(yt2, yp2)
show("fbeta0.5 two updates", m.result())
m.reset()
show("fbeta after reset", m.result())
m.update(yt2, yp2)
show("fbeta again", m.result())
line("{'name': 'f1_score', 'dtype': 'float32', 'average': 'macro', 'threshold': 0.5}")
line("{'name': 'fb', 'dtype': 'float32', 'average': None, 'beta': 0.5, 'threshold': None}")
line("[(), (), (), ()] fbeta_score f1_score")
line("average: ValueError: Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', 'weighted'}. Received: average=bad")
line("beta int: ValueError: Invalid `beta` argument value. It should be a Python float. Received: beta=2 of type '<class 'int'>'")
line("beta negative: ValueError: Invalid `beta` argument value. It should be > 0. Received: beta=-1.0")
line("threshold range: ValueError: Invalid `threshold` argument value. It should verify 0 < threshold <= 1. Received: threshold=1.5")
line("threshold int: ValueError: Invalid `threshold` argument value. It should be a Python float. Received: threshold=1 of type '<class 'int'>'")
line("rank: ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: y_pred.shape=(3,) and y_true.shape=(3,).")


# ---- IoU ----
class IoU:
    def __init__(self, n, targets=None, ignore=None, sparse_true=True, sparse_pred=True, threshold=None):
        self.n, self.ignore, self.st, self.sp, self.th = n, ignore, sparse_true, sparse_pred, threshold
        self.targets = list(range(n)) if targets is None else targets
        self.cm = np.zeros((n, n))

    def update(self, t, p, w=None):
        t = np.asarray(t, np.float64)
        p = np.asarray(p, np.float64)
        if self.th is not None:
            p = (f32(p) >= np.float32(self.th)).astype(np.float64)
        if not self.st:
            t = np.argmax(t, axis=-1)
        if not self.sp:
            p = np.argmax(p, axis=-1)
        t = t.reshape(-1)
        p = p.reshape(-1)
        w = np.ones(len(t)) if w is None else np.asarray(w, np.float64).reshape(-1)
        for a, b, c in zip(t, p, w):
            if self.ignore is not None and a == self.ignore:
                continue
            self.cm[int(a), int(b)] += c

    def result(self):
        tp = np.diag(self.cm)
        den = self.cm.sum(0) + self.cm.sum(1) - tp
        tp, den = tp[self.targets], den[self.targets]
        return dnn(np.sum(dnn(tp, den)), np.sum(den != 0))


def iou(label, m, *updates):
    for u in updates:
        m.update(*u)
    show(label, m.result())
    return m


iou("iou 0,2 weighted", IoU(3, [0, 2]), ([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1], [1.0, 0.5, 2.0, 1.0, 0.25, 1.0]))
iou("iou ignore", IoU(3, [1], ignore=-1), ([0, -1, 2, 1, -1, 1], [0, 2, 2, 1, 0, 0]))
m = iou("meaniou", IoU(3), ([[0, 1], [2, 2]], [[0, 2], [2, 1]]))
iou("meaniou two", m, ([1, 1, 0], [1, 0, 0]))
m.cm[:] = 0
show("meaniou reset", m.result())
iou("meaniou dense pred", IoU(4, sparse_pred=False),
    ([0, 1, 2, 1], [[0.6, 0.2, 0.1, 0.1], [0.1, 0.5, 0.3, 0.1], [0.2, 0.2, 0.5, 0.1], [0.1, 0.2, 0.6, 0.1]]))
iou("binary iou", IoU(2, threshold=0.5), ([0, 1, 0, 1, 1], [0.1, 0.5, 0.49, 0.7, 0.2]))
iou("binary iou 1", IoU(2, [1], threshold=0.3), ([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7], [0.2, 0.3, 0.4, 0.1]))
oh = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]], np.float64)
ohp = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5], [0.3, 0.3, 0.4]])
iou("onehot iou", IoU(3, [0, 2], sparse_true=False, sparse_pred=False), (oh, ohp, [0.1, 0.2, 0.3, 0.4, 0.5]))
iou("onehot meaniou", IoU(3, sparse_true=False, sparse_pred=False), (oh, ohp))
iou("onehot meaniou ignore", IoU(3, ignore=1, sparse_true=False, sparse_pred=False), (oh, ohp))
line("{'name': 'iou', 'dtype': 'float32', 'num_classes': 3, 'target_class_ids': [1, 2], 'ignore_class': None, 'sparse_y_true': True, 'sparse_y_pred': True, 'axis': -1}")
line("{'num_classes': 3, 'name': 'miou', 'dtype': 'float32', 'ignore_class': None, 'sparse_y_true': True, 'sparse_y_pred': True, 'axis': -1}")
line("{'target_class_ids': [0, 1], 'threshold': 0.5, 'name': 'biou', 'dtype': 'float32'}")
line("{'num_classes': 3, 'target_class_ids': [0], 'name': 'ohiou', 'dtype': 'float32', 'ignore_class': None, 'sparse_y_pred': False, 'axis': -1}")
line("{'num_classes': 3, 'name': 'ohmiou', 'dtype': 'float32', 'ignore_class': None, 'sparse_y_pred': False, 'axis': -1}")
line("(5, 5) ['total_confusion_matrix']")
line("target id: ValueError: Target class id 3 is out of range, which is [0, 3).")
line("shape mismatch: InvalidArgumentError: Shapes of all inputs must match: values[0].shape = [4] != values[1].shape = [3]")
line("weights mismatch: ValueError: Shapes (3,) and (2,) are incompatible")
line("out of bound: InvalidArgumentError: `labels` out of bound\nCondition x < y did not hold.\nFirst 2 elements of x:\n[0 3]\nFirst 1 elements of y:\n[3]")


# ---- AUC ----
def auc_thresholds(n):
    return [-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS]


def counts(t, p, th, w=None, multi=False, lw=None):
    t = np.asarray(t, np.float64)
    p = f32(p)
    inner = np.array(th[1:-1], np.float32)
    assert np.all(np.abs(p.reshape(-1, 1) - inner.reshape(1, -1)) > 1e-6)
    w = np.ones_like(t) if w is None else np.broadcast_to(np.asarray(w, np.float64).reshape(-1, 1), t.shape)
    if lw is not None and not multi:
        w = w * np.asarray(lw, np.float64)[None, :]
    pos = (t != 0).astype(np.float64)
    res = []
    for x in np.array(th, np.float32):
        above = (p > x).astype(np.float64)
        parts = [above * pos, above * (1 - pos), (1 - above) * (1 - pos), (1 - above) * pos]
        res.append([np.sum(q * w, axis=0) if multi else np.sum(q * w) for q in parts])
    return [np.array([r[i] for r in res]) for i in range(4)]   # tp, fp, tn, fn; rows: thresholds


def pr_step(tp_a, tp_b, p_a, p_b, pos_b):
    # one interval of Davis & Goadrich's interpolation: precision's slope dTP/dP between thresholds a and b,
    # integrated over dP and divided by the positives
    slope = (tp_a - tp_b) / (p_a - p_b) if p_a - p_b > 0 else 0.0
    ratio = p_a / p_b if p_a > 0 and p_b > 0 else 1.0
    area = slope * ((tp_a - tp_b) + (tp_b - slope * p_b) * np.log(ratio))
    return area / pos_b if pos_b > 0 else 0.0


def auc(t, p, n=200, curve="ROC", summation="interpolation", w=None, multi=False, lw=None):
    tp, fp, tn, fn = counts(t, p, auc_thresholds(n), w, multi, lw)
    if curve == "PR" and summation == "interpolation":
        terms = np.vectorize(pr_step)(tp[:-1], tp[1:], tp[:-1] + fp[:-1], tp[1:] + fp[1:], tp[1:] + fn[1:])
    else:
        rec = dnn(tp, tp + fn)
        if curve == "ROC":
            x, y = dnn(fp, fp + tn), rec
        else:
            x, y = rec, dnn(tp, tp + fp)
        if summation == "interpolation":
            h = (y[:-1] + y[1:]) / 2
        elif summation == "minoring":
            h = np.minimum(y[:-1], y[1:])
        else:
            h = np.maximum(y[:-1], y[1:])
        terms = (x[:-1] - x[1:]) * h
    if not multi:
        return np.sum(terms)
    by_label = np.sum(terms, axis=0)
    if lw is None:
        return np.mean(by_label)
    return dnn(np.sum(by_label * np.asarray(lw)), np.sum(lw))


show("auc multi", auc(yt, yp, 5, multi=True))
show("auc multi weighted", auc(yt, yp, 13, w=sw, multi=True))
line("(7, 3) ['true_positives', 'true_negatives', 'false_positives', 'false_negatives']")
show("auc multi label_weights", auc(yt, yp, 7, multi=True, lw=[1.0, 2.0, 0.5]))
show("auc multi pr", auc(yt, yp, 9, curve="PR", multi=True))
show("auc multi pr minoring", auc(yt, yp, 9, curve="PR", summation="minoring", multi=True))
show("auc flat label_weights", auc(yt, yp, 8, lw=[1.0, 0.0, 2.0]))
show("auc reset", 0.0)
line("{'name': 'a', 'dtype': 'float32', 'num_thresholds': 5, 'curve': 'ROC', 'summation_method': 'interpolation', 'multi_label': True, 'num_labels': 3, 'label_weights': None, 'from_logits': False}")
line("{'name': 'b', 'dtype': 'float32', 'num_thresholds': 4, 'curve': 'ROC', 'summation_method': 'interpolation', 'multi_label': False, 'num_labels': None, 'label_weights': None, 'from_logits': False, 'thresholds': [0.25, 0.5]}")
line("num_labels: ValueError: `num_labels` is needed only when `multi_label` is True.")
line('curve: ValueError: Invalid AUC curve value: "bad". Expected values are ["PR", "ROC"]')
line("PR minoring")
line("auc rank: ValueError: `y_pred` must have rank 2 when `multi_label=True`. Found rank 1. Full shape received for `y_pred`: (2,)")


# ---- Precision / Recall with top_k ----
def top_k_filter(p, k):
    p = f32(p).astype(np.float64)
    outp = np.full_like(p, NEG_INF)
    for i, row in enumerate(p):
        idx = np.argsort(-row, kind="stable")[:k]
        outp[i, idx] = row[idx]
    return outp


def pr(which, t, p, k=None, class_id=None, thresholds=None, w=None):
    t = np.asarray(t, np.float64)
    p = f32(p).astype(np.float64)
    w = np.ones_like(t) if w is None else np.broadcast_to(np.asarray(w, np.float64).reshape(-1, 1), t.shape)
    if k is not None:
        p = top_k_filter(p, k)
    if class_id is not None:
        t, p, w = t[:, [class_id]], p[:, [class_id]], w[:, [class_id]]
    ths = [NEG_INF if k is not None else 0.5] if thresholds is None else thresholds
    pos = t != 0
    res = []
    for th in ths:
        above = f32(p) > np.float32(th)
        tp = np.sum(w * (above & pos))
        other = np.sum(w * (above & ~pos)) if which == "p" else np.sum(w * (~above & pos))
        res.append((tp, other))
    return res


def pr_result(res):
    r = [dnn(a, a + b) for a, b in res]
    return r[0] if len(r) == 1 else np.array(r)


ytk = np.array([[0, 0, 1, 1], [1, 0, 0, 1], [1, 1, 1, 0]], np.float64)
ypk = np.array([[0.9, 0.5, 0.5, 0.2], [0.45, 0.1, 0.4, 0.35], [0.2, 0.2, 0.6, 0.1]])
swk = np.array([1.0, 0.5, 2.0])
show("precision top2", pr_result(pr("p", ytk, ypk, k=2)))
show("precision top1 class2", pr_result(pr("p", ytk, ypk, k=1, class_id=2, w=swk)))
show("precision top2 thresholds", pr_result(pr("p", ytk, ypk, k=2, thresholds=[0.3, 0.45])))
show("recall top2 weighted", pr_result(pr("r", ytk, ypk, k=2, w=swk)))
a1 = pr("r", ytk, ypk, k=1, class_id=0)
a2 = pr("r", ytk[:2], ypk[:2], k=1, class_id=0)
show("recall top1 class0", pr_result([(a1[0][0] + a2[0][0], a1[0][1] + a2[0][1])]))
line("{'name': 'p', 'dtype': 'float32', 'thresholds': None, 'top_k': 2, 'class_id': None}")
line("{'name': 'r', 'dtype': 'float32', 'thresholds': [0.3, 0.6], 'top_k': None, 'class_id': 1}")


# ---- crossentropies ----
def log_softmax(z, axis=-1):
    z = np.asarray(z, np.float64)
    m = z.max(axis=axis, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))


def scce(labels, logits, ignore=None):
    # per entry (labels of the logits' shape but the last axis), 0 where ignored; and the valid mask
    labels = np.asarray(labels)
    ls = log_softmax(logits)
    flat_l = labels.reshape(-1)
    flat_s = ls.reshape(-1, ls.shape[-1])
    valid = flat_l != ignore if ignore is not None else np.ones(len(flat_l), bool)
    v = np.array([-flat_s[i, l] if ok else 0.0 for i, (l, ok) in enumerate(zip(flat_l, valid))])
    return v.reshape(ls.shape[:-1]), valid.reshape(ls.shape[:-1])


lab = np.array([[0, 2, 1], [1, -1, 2]])
logits = np.arange(18, dtype=np.float64).reshape(2, 3, 3) * 0.3 - 2.0 + np.array([0.5, -0.25, 0.0])
per, valid = scce(lab, logits, -1)
show("scce ignore", per)
probs = np.exp(log_softmax(logits))
per_p, _ = scce(lab, np.log(np.clip(probs, EPS, 1 - EPS)), -1)
show("scce ignore probs", per_p)
show("scce class auto", per.sum() / valid.sum())
show("scce class sum", per.sum())
show("scce class none", per)
wv = np.array([1.0, 3.0])[:, None] * valid
show("scce class weighted", np.sum(per * wv) / valid.size * valid.size / valid.sum())
lab1 = np.array([[2], [0], [1], [0]])
p1 = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])
per1, valid1 = scce(lab1.reshape(-1), np.log(np.clip(p1, EPS, 1 - EPS)), 0)
show("scce ignore 0 column", per1.sum() / valid1.sum())
line("{'reduction': 'auto', 'name': 'sparse_categorical_crossentropy', 'from_logits': False, 'ignore_class': 255}")
show("scce metric", per.sum() / valid.sum())
per1l, valid1l = scce(lab1.reshape(-1), p1, -1)
w1 = np.array([1.0, 2.0, 0.5, 1.0])
show("scce metric two", (per.sum() + np.sum(per1l * w1)) / (valid.sum() + w1.sum()))
line("{'name': 'sparse_categorical_crossentropy', 'dtype': 'float32', 'from_logits': True, 'ignore_class': -1, 'axis': -1}")
line("{'name': 'categorical_crossentropy', 'dtype': 'float32', 'from_logits': False, 'label_smoothing': 0.1, 'axis': 0}")
line("{'name': 'binary_crossentropy', 'dtype': 'float32', 'from_logits': False, 'label_smoothing': 0.2}")


def bce(t, p, axis=-1):
    t = np.asarray(t, np.float64)
    c = np.clip(np.asarray(p, np.float64), EPS, 1 - EPS)
    return np.mean(-(t * np.log(c + EPS) + (1 - t) * np.log(1 - c + EPS)), axis=axis)


bt = np.array([[0.0, 1.0], [1.0, 1.0]]) * 0.8 + 0.1
show("bce metric smoothing", np.mean(bce(bt, [[0.3, 0.8], [0.6, 0.9]])))
yc = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
pc = np.array([[0.7, 0.2], [0.1, 0.6], [0.2, 0.2]])
cce0 = -np.sum(yc * np.log(np.clip(pc / pc.sum(0, keepdims=True), EPS, 1 - EPS)), axis=0)
show("cce axis0", cce0)
show("cce axis0 logits", -np.sum(yc * log_softmax(pc, axis=0), axis=0))
show("cce class axis0", cce0)
show("bce axis0", bce(yc, pc, axis=0))
show("bce class axis0", np.mean(bce(yc, pc, axis=0)))
show("scce axis0", scce([0, 1], np.log(np.clip(pc.T, EPS, 1 - EPS)))[0])
show("scce axis1 rank3", scce(np.array([[0, 1], [2, 0]]), np.transpose(logits[:, :, :2], (0, 2, 1)))[0])

# ---- compile / fit / evaluate (SGD(0.0): fixed weights) ----
W = np.array([[0.5, -0.25, 0.1], [0.3, 0.2, -0.4]])
B = np.array([0.1, 0.0, -0.1])
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7], [2.0, 1.0], [-0.5, -1.5], [0.2, 0.4]])
t = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]], np.float64)
z = x @ W + B
P = np.exp(log_softmax(z))
batches = [slice(0, 3), slice(3, 6)]
loss = np.mean([np.mean(-np.sum(t[b] * log_softmax(z[b]), -1)) for b in batches])
f1 = FBeta()
f1.update(t, P)
f1w = FBeta("weighted")
f1w.update(t, P)
fb = FBeta("micro", 2.0, 0.4)
fb.update(t, P)
ohm = IoU(3, sparse_true=False, sparse_pred=False)
ohm.update(t, P)
ohi = IoU(3, [0, 2], sparse_true=False, sparse_pred=False)
ohi.update(t, P)
hist = {"auc_ml": auc(t, P, 7, multi=True), "f1_score": f1.result(), "f1w": f1w.result(), "fbeta_score": fb.result(),
        "loss": loss, "ohiou": ohi.result(), "ohmiou": ohm.result(), "p_top2": pr_result(pr("p", t, P, k=2)),
        "r_top1": pr_result(pr("r", t, P, k=1))}
for k in sorted(hist):
    v = np.reshape(hist[k], [-1])
    show("fit " + k, np.concatenate([v, v]))
s = np.array([0, 1, -1, 1, 2, -1])
per_s, valid_s = scce(s, z, -1)
ev_loss = np.mean([per_s[b].sum() / valid_s[b].sum() for b in batches])
mi = IoU(3, ignore=-1, sparse_pred=False)
mi.update(s, P)
ev = {"loss": ev_loss, "miou": mi.result(), "sce": per_s.sum() / valid_s.sum()}
for k in sorted(ev):
    show("evaluate " + k, ev[k])

for ext in ("keras", "h5"):
    line(ext + " ['F1Score', 'F1Score', 'FBetaScore', 'OneHotMeanIoU', 'OneHotIoU', 'AUC', 'Precision', 'Recall'] True")
    show(ext + " f1_score", hist["f1_score"])
    show(ext + " auc_ml p_top2", [hist["auc_ml"], hist["p_top2"]])

with open(os.path.join(HERE, "programs", "keras_metrics_more.out"), "w") as f:
    f.write("\n".join(out) + "\n")
