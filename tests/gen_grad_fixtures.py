#!/usr/bin/python3
"""gen_grad_fixtures.py — golden gradient programs whose expected values come from PyTorch autograd (run with /usr/bin/python3, Debian python3-torch).

Writes tests/programs/grad_torch_<name>.tfs and .out.  Each program holds its
inputs and torch's gradients as constants, computes the same gradients with a
GradientTape eagerly, inside tf.function, and eagerly around a call of the loss
as a tf.function (twice: the second call reuses its forward and backward
graphs), and prints per gradient whether
the largest difference is within a float32 tolerance; the .out file is those
"ok" lines.  The comparison is a tolerance, so no expected output depends on the
CPU's BLAS kernel.
"""
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "programs")
RNG = np.random.RandomState(909)


def lit(a):
    """A nested list literal of exactly representable float32 values."""
    return repr(np.asarray(a, dtype=np.float32).astype(np.float64).tolist())


def data(*shape, scale=1.0):
    # float32-exact values so tfs and torch start from identical inputs
    return (RNG.uniform(-1, 1, size=shape) * scale).astype(np.float32)


def mlp_params():
    """The MLP cases' input and weights, drawn in this order."""
    return dict(x=data(4, 5), w1=data(5, 6, scale=0.5), b1=data(6, scale=0.1), w2=data(6, 3, scale=0.5),
                b2=data(3, scale=0.1))


def mlp_preamble(p, labels, tv, names):
    """The MLP program's constants, Variables and torch's gradients (tv[n].grad for n in names)."""
    return f"""x = tf.constant({lit(p["x"])})
labels = tf.constant({labels.tolist()})
w1 = tf.Variable({lit(p["w1"])})
b1 = tf.Variable({lit(p["b1"])})
w2 = tf.Variable({lit(p["w2"])})
b2 = tf.Variable({lit(p["b2"])})
expected = [{", ".join("tf.constant(" + repr(tv[n].grad.numpy().tolist()) + ")" for n in names)}]
"""


def mlp_case():
    p = mlp_params()
    labels = np.array([0, 2, 1, 2])
    tv = {k: torch.tensor(p[k], dtype=torch.float64, requires_grad=True) for k in ("w1", "b1", "w2", "b2")}
    tx = torch.tensor(p["x"], dtype=torch.float64)
    h = torch.tanh(tx @ tv["w1"] + tv["b1"])
    logits = h @ tv["w2"] + tv["b2"]
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(labels)) + 0.01 * (tv["w1"] ** 2).sum()
    loss.backward()
    names = ["w1", "b1", "w2", "b2"]
    body = mlp_preamble(p, labels, tv, names) + """
def loss_fn():
    h = tf.tanh(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    return tf.reduce_mean(xent) + 0.01 * tf.reduce_sum(w1 ** 2)
"""
    return "mlp", body, names


def call_case():
    """A tf.function called eagerly under the tape (recorded as one call, its
    gradient the backward graph fed with the values the call kept): a tensor
    argument, Variables the graph reads, a cond taking each branch once."""
    p = mlp_params()
    labels = np.array([1, 0, 2, 2])
    tv = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in p.items()}

    # the cond's threshold: halfway between the two calls' sums, so each takes one branch
    sums = [float(torch.tanh(s * tv["x"] @ tv["w1"] + tv["b1"]).sum()) for s in (1.0, -1.0)]
    thr = round((sums[0] + sums[1]) / 2, 2)
    assert min(sums) < thr < max(sums), "the data should take both branches"

    def net(inp):
        h = torch.tanh(inp @ tv["w1"] + tv["b1"])
        h = h * h if float(h.sum()) > thr else h * 0.5
        logits = h @ tv["w2"] + tv["b2"]
        return torch.nn.functional.cross_entropy(logits, torch.tensor(labels))

    loss = net(tv["x"]) + 0.5 * net(-tv["x"])
    loss.backward()
    names = ["x", "w1", "b1", "w2", "b2"]
    body = mlp_preamble(p, labels, tv, names) + f"""
@tf.function
def net(inp):
    h = tf.tanh(tf.matmul(inp, w1) + b1)
    if tf.reduce_sum(h) > {thr}:
        h = h * h
    else:
        h = h * 0.5
    logits = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))

def loss_fn(inp=x):   # (an argument: a tf.function's call gradient reaches its tensor arguments, not its captures)
    return net(inp) + 0.5 * net(-inp)
"""
    return "call", body, names


def activations_case():
    x = data(3, 4, scale=2.0)
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = (torch.sigmoid(tx) * torch.relu(tx) + torch.exp(tx * 0.5) - torch.log_softmax(tx, dim=1)
         + torch.nn.functional.softplus(tx) * torch.sqrt(tx * tx + 1.0)).max(dim=0).values.sum()
    y.backward()
    body = f"""x = tf.Variable({lit(x)})
expected = [tf.constant({repr(tx.grad.numpy().tolist())})]

def loss_fn():
    y = (tf.sigmoid(x) * tf.nn.relu(x) + tf.exp(x * 0.5) - tf.nn.log_softmax(x, axis=1)
         + tf.math.softplus(x) * tf.sqrt(x * x + 1.0))
    return tf.reduce_sum(tf.reduce_max(y, axis=0))
"""
    return "activations", body, ["x"]


def rnn_bodies(gated):
    """An RNN unrolled by a loop over a tensor length (a graph while loop inside tf.function);
    gated: a cond inside the loop picks the activation from the step's pre-activation."""
    T, B, D, H = 5, 3, 4, 6
    xs, w, u, b = data(T, B, D), data(H, H, scale=0.5), data(D, H, scale=0.5), data(H, scale=0.1)
    tv = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in dict(w=w, u=u, b=b).items()}
    txs = torch.tensor(xs, dtype=torch.float64)
    h = torch.zeros(B, H, dtype=torch.float64)
    s = torch.zeros((), dtype=torch.float64)
    for i in range(T):
        z = h @ tv["w"] + txs[i] @ tv["u"] + tv["b"]
        if gated:
            assert abs(float(z.sum())) > 1e-3  # the branch taken must not hinge on rounding
            h = torch.tanh(z) if float(z.sum()) > 0 else torch.sigmoid(z) - 0.5
        else:
            h = torch.tanh(z)
        s = s + (h * h).sum()
    s.backward()
    names = ["w", "u", "b"]
    step = ("""        if tf.reduce_sum(z) > 0.0:
            h = tf.tanh(z)
        else:
            h = tf.sigmoid(z) - 0.5
""" if gated else """        h = tf.tanh(z)
""")
    body = f"""xs = tf.constant({lit(xs)})
w = tf.Variable({lit(w)})
u = tf.Variable({lit(u)})
b = tf.Variable({lit(b)})
expected = [{", ".join("tf.constant(" + repr(tv[n].grad.numpy().tolist()) + ")" for n in names)}]

def loss_fn():
    h = tf.zeros([{B}, {H}])
    s = tf.constant(0.0)
    for i in tf.range(tf.shape(xs)[0]):
        z = tf.matmul(h, w) + tf.matmul(xs[i], u) + b
{step}        s = s + tf.reduce_sum(h * h)
    return s
"""
    return ("rnn_gated" if gated else "rnn"), body, names


def rnn_case():
    return rnn_bodies(False)


def rnn_tensorarray_case():
    """The rnn case with each step's state written to a tf.TensorArray (a TensorList carried by the loop) and the
    loss taken from its stack: gradients flow through TensorListSetItem/Stack inside the differentiated while loop."""
    name, body, names = rnn_bodies(False)
    body = body.replace("""    s = tf.constant(0.0)
    for i in tf.range(tf.shape(xs)[0]):""", """    hs = tf.TensorArray(tf.float32, size=tf.shape(xs)[0])
    for i in tf.range(tf.shape(xs)[0]):""").replace("""        s = s + tf.reduce_sum(h * h)
    return s""", """        hs = hs.write(i, h)
    return tf.reduce_sum(hs.stack() ** 2)""")
    assert "hs.write" in body and "hs = tf.TensorArray" in body
    return "rnn_tensorarray", body, names


def rnn_gated_case():
    return rnn_bodies(True)


TAIL = """
def check(label, grads):
    for i in range(len(grads)):
        d = float(tf.reduce_max(tf.abs(grads[i] - tf.cast(expected[i], tf.float32))))
        print(label, NAMES[i], "ok" if d < 1e-4 else "MISMATCH " + str(d))

def taped(loss_of):
    tape = tf.GradientTape()
    tape.__enter__()
    tape.watch(VARS)
    loss = loss_of()
    tape.__exit__(None, None, None)
    return tape.gradient(loss, VARS)

def eager_grads():
    return taped(loss_fn)

@tf.function
def graph_grads():
    return taped(loss_fn)

# the loss as a tf.function whose call the eager tape records
loss_call = tf.function(loss_fn)

def call_grads():
    return taped(loss_call)

check("eager", eager_grads())
check("graph", graph_grads())
check("call", call_grads())
check("call", call_grads())
"""


def main():
    for name, body, names in (mlp_case(), activations_case(), rnn_case(), rnn_gated_case(), rnn_tensorarray_case(),
                              call_case()):
        head = (f"# Generated by tests/gen_grad_fixtures.py: {name} gradients against PyTorch autograd, eagerly, as a "
                "graph and through an eager tape's record of a tf.function call.\n")
        tail = TAIL.replace("NAMES", repr(names)).replace("VARS", "[" + ", ".join(names) + "]")
        src = head + body + tail
        base = os.path.join(PROGS, "grad_torch_" + name)
        with open(base + ".tfs", "w") as f:
            f.write(src)
        with open(base + ".out", "w") as f:
            for label in ("eager", "graph", "call", "call"):
                for n in names:
                    f.write(f"{label} {n} ok\n")


if __name__ == "__main__":
    main()
