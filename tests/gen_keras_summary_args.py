#!/usr/bin/python3
"""gen_keras_summary_args.py — writes tests/programs/keras_summary_args.out: Keras 2.15's Model.summary arguments.

    /usr/bin/python3 tests/gen_keras_summary_args.py

Keras's print_summary (keras/utils/layer_utils.py), re-implemented from its rules: a chain of layers is laid out in
65 columns at [0.45, 0.85, 1.0], a graph in 98 at [0.3, 0.6, 0.7, 1.0] with a "Connected to" column; positions <= 1
are fractions of line_length; show_trainable widens the line by 11 and adds a "Trainable" column of Y/N;
expand_nested prints a nested model's layers framed by "|" with "¯" rules, their connections empty (their nodes are
not the outer model's); layer_range keeps the layers from the first name matching its first pattern to the last
matching its second; print_fn receives each line. Parameter counts come from the layers' sizes (Dense: in*out+out,
4 bytes each).
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = []


def dense(name, n_in, n_out, shape, trainable=True, conns=None, inner=None):
    return dict(name=name, cls="Dense", shape=shape, params=n_in * n_out + n_out, trainable=trainable,
                conns=conns or [], inner=inner)


def readable(n):
    return "%.2f Byte" % (n * 4) if n * 4 < 1024 else "%.2f KB" % (n * 4 / 1024)


def print_row(fields, positions, out, level=0):
    left = [str(f) for f in fields]
    last = len(positions) - 1
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col else 0
            space = 2 if col != last else 0
            cutoff = positions[col] - start - space - (level if col == 0 else 0) - (1 if col != last else 0)
            fit = left[col][:cutoff]
            cands = [fit.find(b) + len(b) for b in ("),", "},", "],", "',") if fit.find(b) >= 0]
            if cands:
                cutoff = min(cands)
                fit = fit[:cutoff]
            if col == 0:
                line += "|" * level + " "
            line += fit + " " * space
            left[col] = left[col][cutoff:]
            pad = positions[col] - len(line) - (level if level and col == last else 0)
            line += " " * pad
        out(line + "|" * level)


def summary(name, layers, chain, trainable, non_trainable, line_length=None, positions=None, out=None,
            expand_nested=False, show_trainable=False, layer_range=None):
    out = out or (lambda s: OUT.append(s))
    if chain:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.7, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    positions = list(positions)
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        header.append("Trainable")
    lo, hi = 0, len(layers)
    if layer_range is not None:
        low = [i for i, l in enumerate(layers) if re.match(layer_range[0], l["name"])]
        up = [i for i, l in enumerate(layers) if re.match(layer_range[1], l["name"])]
        lo, hi = (min(up), max(low) + 1) if min(low) > max(up) else (min(low), max(up) + 1)
    out('Model: "%s"' % name)
    out("_" * line_length)
    print_row(header, positions, out)
    out("=" * line_length)

    def one(l, level, last):
        row = ["%s (%s)" % (l["name"], l["cls"]), l["shape"], l["params"]]
        if not chain:
            row.append(l["conns"] if level == 0 else [])
        if show_trainable:
            row.append("Y" if l["trainable"] else "N")
        print_row(row, positions, out, level)
        if expand_nested and l["inner"]:
            out("|" * (level + 1) + "¯" * (line_length - 2 * level - 2) + "|" * (level + 1))
            for i, k in enumerate(l["inner"]):
                one(k, level + 1, i == len(l["inner"]) - 1)
            out("|" * level + "¯" * (line_length - 2 * level) + "|" * level)
        if not last:
            out("|" * level + " " * (line_length - 2 * level) + "|" * level)

    for l in layers[lo:hi]:
        one(l, 0, False)
    out("=" * line_length)
    out("Total params: %d (%s)" % (trainable + non_trainable, readable(trainable + non_trainable)))
    out("Trainable params: %d (%s)" % (trainable, readable(trainable)))
    out("Non-trainable params: %d (%s)" % (non_trainable, readable(non_trainable)))
    out("_" * line_length)


d2 = dense("d2", 4, 2, "(None, 2)")
inner = dict(name="inner", cls="Sequential", shape="(None, 2)", trainable=True)
# s: Input(3) -> a (Dense 4, frozen) -> inner; inner's d1 takes 4 inputs there
d1s = dense("d1", 4, 4, "(None, 4)")
inner_s = dict(inner, conns=[], inner=[d1s, d2], params=d1s["params"] + d2["params"])
a = dense("a", 3, 4, "(None, 4)", trainable=False)
seq = [a, inner_s]
tr, non = inner_s["params"], a["params"]
summary("seq", seq, True, tr, non, expand_nested=True, show_trainable=True)
summary("seq", seq, True, tr, non, layer_range=["inner", "inner"], line_length=50)
lines = []
summary("seq", seq, True, tr, non, out=lines.append, positions=[20, 40, 55])
OUT.append(str(len(lines)))
OUT.extend(repr(line) for line in lines[:4])
# graph: x -> p, q (Dense 2) -> cat (4 wide) -> the inner Sequential above (built on 4 inputs)
x = dict(name="x", cls="InputLayer", shape="[(None, 3)]", params=0, trainable=True, conns=[], inner=None)
p = dense("p", 3, 2, "(None, 2)", conns=["x[0][0]"])
q = dense("q", 3, 2, "(None, 2)", conns=["x[0][0]"])
cat = dict(name="cat", cls="Concatenate", shape="(None, 4)", params=0, trainable=True, conns=["p[0][0]", "q[0][0]"],
           inner=None)
inner_g = dict(inner_s, conns=["cat[0][0]"])
graph = [x, p, q, cat, inner_g]
total = sum(l["params"] for l in graph)
summary("graph", graph, False, total, 0, expand_nested=True)
summary("graph", graph, False, total, 0, show_trainable=True, line_length=110, positions=[0.25, 0.5, 0.6, 1.0])
OUT.append("ValueError: layer_range must be a list or tuple of length 2. Received: layer_range = ['a'] of length 1")
OUT.append("ValueError: layer_range should contain string type only. Received: [1, 2]")
OUT.append("ValueError: Passed layer_names do not match the layer names in the model. Received: ['zz', 'a']")
with open(os.path.join(HERE, "programs", "keras_summary_args.out"), "w") as f:
    f.write("\n".join(OUT) + "\n")
