#!/usr/bin/python3
# gen_keras_port.py — more digits for keras_port_* goldens where Keras 2.15's own tests compute their expected
# values with numpy (CosineSimilarityTest's l2_norm) or assert to 1e-3 only (assertArrayNear): the same formulas here.
import numpy as np


def l2_norm(x, axis):
    # keras/losses_test.py CosineSimilarityTest.l2_norm
    square_sum = np.sum(np.square(x), axis=axis, keepdims=True)
    return np.multiply(x, 1 / np.sqrt(np.maximum(square_sum, 1e-12)))


def show(name, v, places=3):
    print(name, " ".join(format(float(t), "." + str(places) + "f") for t in np.reshape(v, [-1])))


def cosine():
    # CosineSimilarityTest: expected_loss = -mean(sum(l2(y_true) * l2(y_pred), axis) * weight)
    yt = np.asarray([[1, 9, 2], [-5, -2, 6]], dtype=np.float32)
    yp = np.asarray([[4, 8, 12], [8, 1, 3]], dtype=np.float32)
    e = np.sum(np.multiply(l2_norm(yt, 1), l2_norm(yp, 1)), axis=(1,))
    show("cosine unweighted", -np.mean(e))
    show("cosine scalar_weighted", -np.mean(e * 2.3))
    show("cosine sample_weighted", -np.mean(e * np.asarray([1.2, 3.4])))
    e3 = np.sum(np.multiply(l2_norm(yt.reshape((2, 3, 1)), 2), l2_norm(yp.reshape((2, 3, 1)), 2)), axis=(2,))
    show("cosine timestep_weighted", -np.mean(e3 * np.asarray([3, 6, 5, 0, 4, 2]).reshape((2, 3))))
    show("cosine zero_weighted", -np.mean(e * 0))
    show("cosine axis", -np.mean(e))


def crossentropy_fns():
    # KerasLossesTest.test_(sparse_)categorical_crossentropy_loss_with_unknown_rank_tensor: [0.105, 0.116, 0.062]
    # and [0.002, 0, 0.17] to 1e-3; Keras's crossentropy of these rows to 3 places
    p = np.asarray([[0.9, 0.05, 0.05], [0.05, 0.89, 0.06], [0.05, 0.01, 0.94]], dtype=np.float64)
    lg = np.asarray([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]])
    ce = -np.log(np.diag(p / p.sum(-1, keepdims=True)))
    lsm = lg - lg.max(-1, keepdims=True)
    lsm = lsm - np.log(np.exp(lsm).sum(-1, keepdims=True))
    cel = -np.diag(lsm)
    show("cce fn", ce)
    show("cce fn logits", cel)
    show("scce fn", ce)
    show("scce fn logits", cel)


def iou():
    # keras/metrics/iou_metrics_test.py: each test's expected_result expression, as written there
    e = {
        "iou unweighted": (1 / (2 + 2 - 1) + 1 / (2 + 2 - 1)) / 2,
        "iou weighted": (0.1 / (0.4 + 0.5 - 0.1) + 0.2 / (0.6 + 0.5 - 0.2)) / 2,
        "iou multi_dim": (0.2 / (0.6 + 0.5 - 0.2) + 0.1 / (0.4 + 0.5 - 0.1)) / 2,
        "iou zero_valid": 0,
        "iou zero_and_non_zero": (1 / (1 + 1 - 1)) / 1,
        "binary_iou weighted t0.3": (0.2 / (0.6 + 0.5 - 0.2) + 0.1 / (0.4 + 0.5 - 0.1)) / 2,
        "binary_iou weighted t0.5": (0.5 / (0.5 + 0.7 - 0.5) + 0.3 / (0.5 + 0.3 - 0.3)) / 2,
        "binary_iou unweighted t0.3": (1 / (2 + 2 - 1) + 1 / (2 + 2 - 1)) / 2,
        "binary_iou unweighted t0.5": (2 / (2 + 3 - 2) + 1 / (2 + 1 - 1)) / 2,
        "binary_iou multi_dim": (0.2 / (0.6 + 0.3 - 0.2) + 0.3 / (0.4 + 0.7 - 0.3)) / 2,
        "binary_iou zero_valid": 0,
        "binary_iou zero_and_non_zero": 1 / (1 + 1 - 1),
        "mean_iou unweighted": (1 / (2 + 2 - 1) + 1 / (2 + 2 - 1)) / 2,
        "mean_iou ignore_class 255": (1 / (1 + 1 - 1) + 1 / (2 + 1 - 1) + 0 / (0 + 1 - 0)) / 3,
        "mean_iou ignore_class -1": (1 / (1 + 1 - 1) + 1 / (2 + 1 - 1) + 0 / (0 + 1 - 0)) / 3,
        "mean_iou weighted": (0.2 / (0.6 + 0.5 - 0.2) + 0.1 / (0.4 + 0.5 - 0.1)) / 2,
        "mean_iou weighted ignore_class -1": (0.2 / (0.6 + 0.5 - 0.2) + 0.0 / (0.3 + 0.4 - 0.0)) / 2,
        "mean_iou multi_dim": (0.2 / (0.6 + 0.5 - 0.2) + 0.1 / (0.4 + 0.5 - 0.1)) / 2,
        "mean_iou zero_valid": 0,
        "mean_iou zero_and_non_zero": (0 + 1 / (1 + 1 - 1)) / 1,
    }
    for k in e:
        show(k, e[k], 4)


def regression_metrics():
    # keras/metrics/regression_metrics_test.py: CosineSimilarityTest (metric: +mean, weighted mean), LogCoshErrorTest
    yt = np.asarray([[1, 9, 2], [-5, -2, 6]], dtype=np.float32)
    yp = np.asarray([[4, 8, 12], [8, 1, 3]], dtype=np.float32)
    e = np.sum(np.multiply(l2_norm(yt, 1), l2_norm(yp, 1)), axis=(1,))
    w = np.asarray([1.2, 3.4])
    show("cosine unweighted", np.mean(e))
    show("cosine weighted", np.sum(e * w) / np.sum(w))
    show("cosine axis", np.mean(e))
    p = np.asarray([1, 9, 2, -5, -2, 6]).reshape((2, 3))
    t = np.asarray([4, 8, 12, 8, 1, 3]).reshape((2, 3))
    err = p - t
    res = np.log((np.exp(err) + np.exp(-err)) / 2)
    show("logcosh unweighted", np.sum(res) / 6)
    sw = np.asarray([1.2, 1.2, 1.2, 3.4, 3.4, 3.4]).reshape((2, 3))
    show("logcosh weighted", np.sum(np.multiply(res, sw)) / np.sum(sw))
    # MeanRelativeErrorTest's expected_error expressions
    np_p = np.asarray([2, 4, 6, 8], dtype=np.float32)
    np_t = np.asarray([1, 3, 2, 3], dtype=np.float32)
    show("mre unweighted", np.mean(np.divide(np.absolute(np_p - np_t), np_t)))
    show("mre weighted", np.sum(np.divide(np.absolute(np_p - np_t), np_t) * np.asarray([0.2, 0.3, 0.5, 0], dtype=np.float32)))
    # R2ScoreTest's reference results (test_r2_sklearn_comparison, test_r2_tfa_comparison), to 4 places
    for agg, nr, ref in [(None, 0, [0.37, -1.295, 0.565]), ("uniform_average", 0, -0.12),
                         ("variance_weighted_average", 0, -0.12),
                         (None, 0, [0.17305559, -8.836666, -0.521]), (None, 1, [0.054920673, -10.241904, -0.7382858]),
                         (None, 2, [-0.10259259, -12.115555, -1.0280001]), ("uniform_average", 0, -3.0615367889404297),
                         ("uniform_average", 1, -3.641756534576416), ("uniform_average", 2, -4.415382385253906),
                         ("variance_weighted_average", 0, -1.3710224628448486),
                         ("variance_weighted_average", 1, -1.7097399234771729),
                         ("variance_weighted_average", 2, -2.161363363265991)]:
        show(f"r2 {agg} {nr}", ref, 4)


def confusion():
    # keras/metrics/confusion_metrics_test.py: PrecisionTest / RecallTest's expected_* expressions, as written there
    show("Precision weighted", (3.0 + 4.0) / ((1.0 + 3.0) + (4.0 + 2.0)), 4)
    show("Precision weighted threshold", [(0 + 3.0) / ((0 + 3.0) + (4.0 + 0.0)), 0], 4)
    show("Precision multiple_updates", [((0 + 3.0) + (0 + 3.0)) / (((0 + 3.0) + (4.0 + 0.0)) + ((0 + 3.0) + (4.0 + 0.0))), 0], 4)
    show("Precision weighted top_k", ((2 + 5) + (3 + 3)) / ((1 + 2 + 5) + (3 + 3 + 3)), 4)
    show("Recall weighted", (3.0 + 1.0) / ((2.0 + 3.0) + (4.0 + 1.0)), 4)
    show("Recall weighted threshold", [(0 + 3.0) / ((0 + 3.0) + (4.0 + 0.0)), 0], 4)
    show("Recall multiple_updates", [((0 + 3.0) + (0 + 3.0)) / (((0 + 3.0) + (4.0 + 0.0)) + ((0 + 3.0) + (4.0 + 0.0))), 0], 4)
    show("Recall weighted top_k", ((2 + 5) + (3 + 3)) / ((4 + 2 + 5) + (3 + 3 + 3 + 3)), 4)


if __name__ == "__main__":
    import sys
    {"cosine": cosine, "crossentropy": crossentropy_fns, "iou": iou,
     "regression_metrics": regression_metrics, "confusion": confusion}[sys.argv[1]]() if len(sys.argv) > 1 else (
        cosine(), crossentropy_fns(), iou(), regression_metrics(), confusion())
