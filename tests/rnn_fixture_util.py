"""rnn_fixture_util.py — what the recurrent layers' golden generators share (gen_rnn_act_fixtures.py,
gen_simple_rnn_fixtures.py, gen_lstm_infer_fixtures.py): torch weights from Keras', the printed programs' helpers,
each case's fused layer and unroll=True twin, and writing tests/programs/<name>.{tfs,out}."""
import os

import torch

from gen_keras_layer_fixtures import PROGS, lit

# the programs' comparisons: within a tolerance of a float64 reference, and bit for bit between two results
CLOSE = '''def close(a, b):
    return bool(tf.reduce_max(tf.abs(tf.cast(a, tf.float64) - tf.constant(b, dtype=tf.float64))).numpy() <= %r)
'''
SAME = '''def same(a, b):
    return all(bool(tf.reduce_all(tf.equal(p, q))) for p, q in zip(tf.nest.flatten(a), tf.nest.flatten(b)))
'''


def load_torch(m, wi, wh, bi, bh=None):
    """a one-layer torch recurrent module m given Keras' kernels (transposed to torch's [gates, in]) and biases;
    no recurrent bias (bh None): zeros"""
    with torch.no_grad():
        m.weight_ih_l0.copy_(torch.tensor(wi.T))
        m.weight_hh_l0.copy_(torch.tensor(wh.T))
        m.bias_ih_l0.copy_(torch.tensor(bi))
        if bh is None:
            m.bias_hh_l0.zero_()
        else:
            m.bias_hh_l0.copy_(torch.tensor(bh))
    return m


def layer_pair(tag, kind, args, w):
    """the lines of one case: the fused layer and its unroll=True twin (the reference of its bits), built on x and
    given the weights w"""
    return ["# " + tag,
            "layer = tf.keras.layers.%s(%s)" % (kind, args),
            "steps = tf.keras.layers.%s(%s, unroll=True)" % (kind, args),
            "layer(x)", "steps(x)",
            "w = [%s]" % ", ".join("tf.constant(%s, dtype=tf.float32)" % lit(a) for a in w),
            "layer.set_weights(w)", "steps.set_weights(w)"]


def write_program(name, lines, out):
    """tests/programs/<name>.tfs from the program's lines and <name>.out from the expected output's"""
    with open(os.path.join(PROGS, name + ".tfs"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(PROGS, name + ".out"), "w") as fh:
        fh.write("\n".join(out) + "\n")
