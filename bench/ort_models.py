#!/usr/bin/env python3
"""ort_models.py — the seed workloads of bench/seed.tfs as ONNX models (weights as initializers), for bench/ort_seed.js."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

OPSET = [helper.make_opsetid("", 13)]


def model(name, nodes, inputs, output, inits=()):
    g = helper.make_graph(nodes, name, inputs, [output], initializer=list(inits))
    return helper.make_model(g, opset_imports=OPSET, producer_name="tfs-bench")


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def power():
    # r = x; 99 times r = r @ x  (10x10 int32)
    nodes, r = [], "x"
    for i in range(99):
        nodes.append(helper.make_node("MatMul", [r, "x"], ["r%d" % i]))
        r = "r%d" % i
    nodes[-1].output[0] = "y"
    return model("power", nodes, [vi("x", TensorProto.INT32, [10, 10])], vi("y", TensorProto.INT32, [10, 10]))


def dense(rng):
    # 100 layers relu(x @ W + b), width 64, input 20x784
    nodes, inits, x = [], [], "x"
    for i in range(100):
        k = 784 if i == 0 else 64
        inits.append(numpy_helper.from_array((rng.standard_normal((k, 64)) * 0.1).astype(np.float32), "w%d" % i))
        inits.append(numpy_helper.from_array(np.zeros(64, np.float32), "b%d" % i))
        nodes += [helper.make_node("MatMul", [x, "w%d" % i], ["m%d" % i]),
                  helper.make_node("Add", ["m%d" % i, "b%d" % i], ["a%d" % i]),
                  helper.make_node("Relu", ["a%d" % i], ["h%d" % i])]
        x = "h%d" % i
    nodes[-1].output[0] = "y"
    return model("dense", nodes, [vi("x", TensorProto.FLOAT, [20, 784])], vi("y", TensorProto.FLOAT, [20, 64]), inits)


def mlp(rng):
    inits = [numpy_helper.from_array((rng.standard_normal((784, 128)) * 0.05).astype(np.float32), "w1"),
             numpy_helper.from_array(np.zeros(128, np.float32), "b1"),
             numpy_helper.from_array((rng.standard_normal((128, 10)) * 0.1).astype(np.float32), "w2"),
             numpy_helper.from_array(np.zeros(10, np.float32), "b2")]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"]), helper.make_node("Add", ["m1", "b1"], ["a1"]),
             helper.make_node("Relu", ["a1"], ["h1"]), helper.make_node("MatMul", ["h1", "w2"], ["m2"]),
             helper.make_node("Add", ["m2", "b2"], ["y"])]
    return model("mlp", nodes, [vi("x", TensorProto.FLOAT, [60, 784])], vi("y", TensorProto.FLOAT, [60, 10]), inits)


def mse():
    # reduce_mean(pow(a - b, 2)) on 5-element int32 tensors
    inits = [numpy_helper.from_array(np.array(2, np.int32), "two")]
    nodes = [helper.make_node("Sub", ["a", "b"], ["d"]), helper.make_node("Pow", ["d", "two"], ["p"]),
             helper.make_node("ReduceMean", ["p"], ["y"], keepdims=0)]
    return model("mse", nodes, [vi("a", TensorProto.INT32, [5]), vi("b", TensorProto.INT32, [5])],
                 vi("y", TensorProto.INT32, []), inits)


def scalar_add():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"])]
    return model("scalar_add", nodes, [vi("a", TensorProto.INT32, []), vi("b", TensorProto.INT32, [])],
                 vi("y", TensorProto.INT32, []))


def cnn(rng):
    # the Keras MNIST CNN of bench/cnn.tfs, NCHW as ONNX's Conv and MaxPool take it: 256 images
    def w(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    inits = [numpy_helper.from_array(w((32, 1, 3, 3), 0.3), "k1"), numpy_helper.from_array(np.zeros(32, np.float32), "c1"),
             numpy_helper.from_array(w((64, 32, 3, 3), 0.06), "k2"), numpy_helper.from_array(np.zeros(64, np.float32), "c2"),
             numpy_helper.from_array(w((1600, 10), 0.03), "wd"), numpy_helper.from_array(np.zeros(10, np.float32), "bd")]
    nodes = [helper.make_node("Conv", ["x", "k1", "c1"], ["v1"]), helper.make_node("Relu", ["v1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "k2", "c2"], ["v2"]), helper.make_node("Relu", ["v2"], ["r2"]),
             helper.make_node("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Flatten", ["p2"], ["f"]), helper.make_node("Gemm", ["f", "wd", "bd"], ["y"])]
    return model("cnn", nodes, [vi("x", TensorProto.FLOAT, [256, 1, 28, 28])], vi("y", TensorProto.FLOAT, [256, 10]), inits)


def rnn(rng, op):
    # the text classifier of bench/keras_lstm.tfs (Embedding 2000x64 -> LSTM 64 -> Dense 1) as ONNX's LSTM op (gates i, o,
    # f, c; time-major), or with op "GRU" ONNX's GRU op (gates z, r, h; linear_before_reset=1, Keras' reset_after=True):
    # 256 sequences of 80 tokens; op "RNN": ONNX's RNN op (tanh), the SimpleRNN classifier
    h, g = 64, {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    def w(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    inits = [numpy_helper.from_array(w((2000, 64), 0.05), "emb"), numpy_helper.from_array(w((1, g * h, 64), 0.15), "W"),
             numpy_helper.from_array(w((1, g * h, h), 0.15), "R"), numpy_helper.from_array(np.zeros((1, 2 * g * h), np.float32), "B"),
             numpy_helper.from_array(w((h, 1), 0.2), "wd"), numpy_helper.from_array(np.zeros(1, np.float32), "bd"),
             numpy_helper.from_array(np.array([0], np.int64), "ax0")]
    extra = {"linear_before_reset": 1} if op == "GRU" else {}
    nodes = [helper.make_node("Gather", ["emb", "x"], ["e"]), helper.make_node("Transpose", ["e"], ["et"], perm=[1, 0, 2]),
             helper.make_node(op, ["et", "W", "R", "B"], ["", "hl"], hidden_size=h, **extra),
             helper.make_node("Squeeze", ["hl", "ax0"], ["h"]), helper.make_node("Gemm", ["h", "wd", "bd"], ["y"])]
    return model({"RNN": "simple_rnn"}.get(op, op.lower()), nodes, [vi("x", TensorProto.INT32, [256, 80])], vi("y", TensorProto.FLOAT, [256, 1]), inits)


def resnet(rng):
    # the ResNet block of bench/resnet_block.tfs, NCHW: Conv 3x3 -> BN -> relu -> Conv 3x3 -> BN -> add input -> relu,
    # 16 channels on 32x32, 64 images (ONNX Runtime folds each BatchNormalization into its Conv)
    c = 16
    inits = []
    for i in (1, 2):
        inits += [numpy_helper.from_array((rng.standard_normal((c, c, 3, 3)) * 0.1).astype(np.float32), "k%d" % i),
                  numpy_helper.from_array(np.zeros(c, np.float32), "cb%d" % i),
                  numpy_helper.from_array((1 + 0.1 * rng.standard_normal(c)).astype(np.float32), "g%d" % i),
                  numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), "b%d" % i),
                  numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), "m%d" % i),
                  numpy_helper.from_array((1 + 0.1 * rng.random(c)).astype(np.float32), "v%d" % i)]
    nodes = [helper.make_node("Conv", ["x", "k1", "cb1"], ["v1"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["v1", "g1", "b1", "m1", "v1_"], ["n1"], epsilon=1e-3),
             helper.make_node("Relu", ["n1"], ["r1"]),
             helper.make_node("Conv", ["r1", "k2", "cb2"], ["v2"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["v2", "g2", "b2", "m2", "v2_"], ["n2"], epsilon=1e-3),
             helper.make_node("Add", ["n2", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    for i in (1, 2):   # the variances' initializer names differ from the conv outputs'
        inits[6 * (i - 1) + 5].name = "v%d_" % i
    return model("resnet", nodes, [vi("x", TensorProto.FLOAT, [64, c, 32, 32])], vi("y", TensorProto.FLOAT, [64, c, 32, 32]), inits)


out = sys.argv[1]
rng = np.random.default_rng(1)
for name, m in [("power", power()), ("dense", dense(rng)), ("mlp", mlp(rng)), ("mse", mse()),
                ("scalar_add", scalar_add()), ("cnn", cnn(rng)),
                ("lstm", rnn(rng, "LSTM")), ("resnet", resnet(rng)), ("gru", rnn(rng, "GRU")),
                ("simple_rnn", rnn(rng, "RNN"))]:
    tmp = os.path.join(out, name + ".onnx.tmp")
    save(m, tmp)
    os.replace(tmp, os.path.join(out, name + ".onnx"))   # atomic, as the project's writers are
