#!/usr/bin/python3
"""gen_tf_tutorial_iris.py — data and oracle for examples/tf_tutorials/custom_training_walkthrough: writes its two CSV files and its .out.re.

Run with /usr/bin/python3 (numpy 1.24, PyTorch) from the source root.  The files: Fisher's iris (stdlib/data/iris.csv)
split as row i (0-based) is a test row when i % 5 == 4, which gives the tutorial's 120 training and 30 test rows, in
the tutorial's format (header "N,4,setosa,versicolor,virginica").  The figures: the tutorial's recipe in PyTorch
(Dense 4-10-10-3 with Keras's glorot_uniform kernels and zero biases, sparse softmax cross-entropy from logits,
SGD(0.01), batches of 32 reshuffled each epoch, 201 epochs; the epoch loss is the mean of the batch losses and the
epoch accuracy counts each batch after its step, as the tutorial's Mean and SparseCategoricalAccuracy do) over
100 seeds; the .out.re accepts the band most seeds span (expect() says how).  Values that only depend on the random
start (the first batch, the untrained predictions) are matched by their printed shape."""
import os
import re

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "examples", "tf_tutorials")

rows = open(os.path.join(ROOT, "stdlib", "data", "iris.csv")).read().splitlines()[1:]
train_rows = [r for i, r in enumerate(rows) if i % 5 != 4]
test_rows = [r for i, r in enumerate(rows) if i % 5 == 4]
for name, part in (("iris_training.csv", train_rows), ("iris_test.csv", test_rows)):
    with open(os.path.join(OUT, "data", name), "w") as f:
        f.write("%d,4,setosa,versicolor,virginica\n" % len(part))
        f.write("".join(r + "\n" for r in part))

parse = lambda part: (np.array([[float(v) for v in r.split(",")[:4]] for r in part], np.float32),
                      np.array([int(r.split(",")[4]) for r in part], np.int64))
xtr, ytr = parse(train_rows)
xte, yte = parse(test_rows)
predict = np.array([[5.1, 3.3, 1.7, 0.5], [5.9, 3.0, 4.2, 1.5], [6.9, 3.1, 5.4, 2.1]], np.float32)


def glorot(lin):
    fan_in, fan_out = lin.in_features, lin.out_features
    lim = np.sqrt(6.0 / (fan_in + fan_out))
    torch.nn.init.uniform_(lin.weight, -lim, lim)
    torch.nn.init.zeros_(lin.bias)


def run(seed):
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10), torch.nn.ReLU(),
                              torch.nn.Linear(10, 3))
    for m in net:
        if isinstance(m, torch.nn.Linear):
            glorot(m)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    lossf = torch.nn.CrossEntropyLoss()
    X, Y = torch.tensor(xtr), torch.tensor(ytr)
    # the tutorial's single step on a first batch before the loop
    order = rng.permutation(len(X))
    b = order[:32]
    opt.zero_grad()
    first = lossf(net(X[b]), Y[b])
    first.backward()
    opt.step()
    with torch.no_grad():
        after = lossf(net(X[b]), Y[b]).item()
    report = {}
    for epoch in range(201):
        order = rng.permutation(len(X))
        losses, correct = [], 0
        for k in range(0, len(X), 32):
            b = order[k:k + 32]
            opt.zero_grad()
            l = lossf(net(X[b]), Y[b])
            l.backward()
            opt.step()
            losses.append(l.item())
            with torch.no_grad():
                correct += int((net(X[b]).argmax(1) == Y[b]).sum())
        if epoch % 50 == 0:
            report[epoch] = (float(np.mean(losses)), correct / len(X))
    with torch.no_grad():
        test_acc = float((net(torch.tensor(xte)).argmax(1).numpy() == yte).mean())
        p = torch.softmax(net(torch.tensor(predict)), 1).numpy()
    return first.item(), after, report, test_acc, p



def fmt_row(r):
    # numpy's str of a float32 row of one-decimal values beside others: "5.1", and "5. " for 5.0
    return " ".join(("%.1f" % v).replace(".0", ". ") if ("%.1f" % v).endswith(".0") else "%.1f" % v for v in r)


def choice(strings):
    return "(" + "|".join(E(x) for x in sorted(set(strings))) + ")"


def num_range(lo, hi, fmt, step):
    """A regex matching fmt % v for v from lo to hi by step (the printed values in the range)."""
    k0, k1 = int(np.floor(lo / step)), int(np.ceil(hi / step))
    return choice([fmt % (k * step) for k in range(max(k0, 0), k1 + 1)])


E = re.escape
EL = r" *-?\d\.\d*(e[-+]\d+)? *"   # one float of a numpy repr, padded


def pct(xs, q):
    return float(np.percentile(xs, q))


def expect(results):
    """The .out.re: a training figure may fall in the band the middle 90% of the seeds span (losses widened by a
    quarter, accuracies by 10 points down); a few seeds in 100 stall on two classes for 200 epochs, as the
    tutorial's model can (unnormalized features, SGD 0.01), and are not what the example checks."""
    lines = [E("TensorFlow version: 2.15.0"), E("Eager execution: True"),
             E("Local copy of the dataset file: data/iris_training.csv")]
    lines += [E(l) for l in open(os.path.join(OUT, "data", "iris_training.csv")).read().splitlines()[:5]]
    lines += [E("Features: ['sepal_length', 'sepal_width', 'petal_length', 'petal_width']"), E("Label: species")]
    # features[:5]: five training rows, the columns in the CSV's order (an iris row each)
    row = choice(fmt_row(r) for r in xtr)
    lines += [E("tf.Tensor("), r"\[\[" + row + r"\]"] + [r" \[" + row + r"\]"] * 3
    lines.append(r" \[" + row + E("]], shape=(5, 4), dtype=float32)"))
    for _ in range(2):   # predictions[:5] and their softmax: (5, 3) float32 of the untrained model
        lines.append(E("<tf.Tensor: shape=(5, 3), dtype=float32, numpy="))
        three = EL + ", " + EL + ", " + EL
        lines += [r"array\(\[\[" + three + r"\],"] + [r"       \[" + three + r"\],"] * 3
        lines.append(r"       \[" + three + E("]], dtype=float32)>"))
    ints = r"\[[012]( [012]){31}\]"
    lines += ["Prediction: " + ints, "    Labels: " + ints]
    loss0 = r"\d+\.\d+"   # the untrained model's loss on the first batch (str of a float32)
    lines += ["Loss test: " + loss0, "Step: 0, Initial Loss: " + loss0, "Step: 1,         Loss: " + loss0]
    for e in (0, 50, 100, 150, 200):
        ls = [r[2][e][0] for r in results]
        acc = [r[2][e][1] for r in results]
        lo_acc = 0.0 if e == 0 else max(0.0, pct(acc, 5) - 0.1)
        lines.append(E("Epoch %03d: Loss: " % e) + num_range(0.75 * pct(ls, 5), 1.25 * pct(ls, 95), "%.3f", 0.001)
                     + E(", Accuracy: ") + choice("%.3f%%" % (100 * k / 120) for k in range(121) if k / 120 >= lo_acc))
    tests = [r[3] for r in results]
    lines.append(E("Test set accuracy: ") + choice("%.3f%%" % (100 * k / 30) for k in range(31) if k / 30 >= pct(tests, 5) - 0.1))
    lines.append(E("<tf.Tensor: shape=(30, 2), dtype=int32, numpy="))
    for i, y in enumerate(yte):
        start = "array([[" if i == 0 else "       ["
        end = "]], dtype=int32)>" if i == len(yte) - 1 else "],"
        lines.append(E(start + "%d, " % y) + "[012]" + E(end))
    names = ["Iris setosa", "Iris versicolor", "Iris virginica"]
    for i in range(3):
        ps = [100 * r[4][i].max() if r[4][i].argmax() == i else 0.0 for r in results]
        lines.append(E("Example %d prediction: %s (" % (i, names[i])) + num_range(pct(ps, 5) - 10, 100, "%4.1f", 0.1) + E("%)"))
    return lines


if __name__ == "__main__":
    results = [run(s) for s in range(100)]
    for e in (0, 50, 100, 150, 200):
        ls = [r[2][e][0] for r in results]
        acc = [r[2][e][1] for r in results]
        print("epoch %d loss %.3f..%.3f (5-95%%: %.3f..%.3f) acc %.3f..%.3f (5%%: %.3f)" % (
            e, min(ls), max(ls), pct(ls, 5), pct(ls, 95), min(acc), max(acc), pct(acc, 5)))
    print("test %.3f..%.3f" % (min(r[3] for r in results), max(r[3] for r in results)))
    with open(os.path.join(OUT, "custom_training_walkthrough.out.re"), "w") as f:
        f.write("\n".join(expect(results)) + "\n")
