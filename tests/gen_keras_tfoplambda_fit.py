#!/usr/bin/python3
"""gen_keras_tfoplambda_fit.py — writes tests/programs/keras_tfoplambda_fit.out: the guide's Functional
model.add_loss(tf.reduce_sum(x1) * 0.1) / model.add_metric(keras.backend.std(x1), ...) model of
keras_tfoplambda_fit.tfs, recomputed with numpy in float64 (run with /usr/bin/python3, Debian python3-numpy).

    /usr/bin/python3 tests/gen_keras_tfoplambda_fit.py

Keras 2.15's rules, written out here: the loss fit and evaluate report is the compiled loss (sparse categorical
cross-entropy from logits, SUM_OVER_BATCH_SIZE) plus the model's losses (the AddLoss layer's input: 0.1 * the sum of
the first Dense's activations over the batch); the added metric is a Mean of backend.std(x1) (the population
standard deviation of all the batch's activations); fit's one step (one batch of 4, SGD lr 0.1) reports the values
of the weights before its update. The lines that are not numbers are Keras's behaviour written out: model.layers
gains the op layers and the AddLoss / AddMetric layers in the order they were added (functional.py's
_insert_layers), their configs, and the two errors (base_layer.add_metric without a name, TFOpLambda.from_config
of an unknown symbol).
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

W1 = np.array([[0.5, -0.25, 0.3], [0.1, 0.2, -0.3], [-0.4, 0.3, 0.25], [0.05, -0.15, 0.2]])
B1 = np.array([0.1, 0.05, 0.0])
W2 = np.array([[0.2, -0.1], [-0.3, 0.4], [0.5, 0.1]])
B2 = np.array([0.0, 0.1])
x = np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.0, -2.0], [0.5, -1.0, 1.5, 2.5], [2.0, 1.0, -0.5, 0.0]])
y = np.array([0, 1, 1, 0])
onehot = np.eye(2)[y]


def forward(w1, b1, w2, b2):
    pre = x @ w1 + b1
    x1 = np.maximum(pre, 0)
    z = x1 @ w2 + b2
    ls = z - z.max(1, keepdims=True)
    logp = ls - np.log(np.exp(ls).sum(1, keepdims=True))
    loss = -(onehot * logp).sum(1).mean() + 0.1 * x1.sum()
    return pre, x1, z, loss, x1.std()


def show(loss, std):
    return "loss=%.4f std_of_activation=%.4f" % (loss, std)


pre, x1, z, loss0, std0 = forward(W1, B1, W2, B2)
# one SGD step (lr 0.1) on the total loss
p = np.exp(z - z.max(1, keepdims=True))
p /= p.sum(1, keepdims=True)
dz = (p - onehot) / len(x)
dW2 = x1.T @ dz
dB2 = dz.sum(0)
dx1 = dz @ W2.T + 0.1
dpre = dx1 * (pre > 0)
dW1 = x.T @ dpre
dB1 = dpre.sum(0)
lr = 0.1
_, _, _, loss1, std1 = forward(W1 - lr * dW1, B1 - lr * dB1, W2 - lr * dW2, B2 - lr * dB2)

names = "['digits', 'dense_1', 'predictions', 'tf.math.reduce_sum', 'tf.math.multiply', 'add_loss', 'tf.math.reduce_std', 'add_metric']"
lines = [
    names,
    "['InputLayer', 'Dense', 'Dense', 'TFOpLambda', 'TFOpLambda', 'AddLoss', 'TFOpLambda', 'AddMetric']",
    "{'name': 'add_metric', 'trainable': True, 'dtype': 'float32', 'aggregation': 'mean', 'metric_name': 'std_of_activation'}",
    "{'name': 'add_loss', 'trainable': True, 'dtype': 'float32', 'unconditional': False}",
    show(loss0, std0),
    show(loss0, std0),
    show(loss1, std1),
    "['loss', 'std_of_activation']",
    names,
    show(loss1, std1),
    "ValueError: Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), name='mean_activation')`",
    "ValueError: TF symbol `math.no_such_op` could not be found.",
]
with open(os.path.join(HERE, "programs", "keras_tfoplambda_fit.out"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
