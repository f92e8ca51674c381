"""keras_tfop_text.py — expected-text building blocks shared by the op-layer generators (gen_keras_tfop*.py).

Keras 2.15's behaviour written out as functions, so that each generator lists its layers once and the text follows:
a KerasTensor's repr (keras/src/engine/keras_tensor.py), a Functional model's summary (keras/src/utils/layer_utils.py
print_summary / print_row: 98 columns at positions 29, 58, 68, a cell cut one short of its width or after the first "),", "},",
"],", "'," that fits, the rest on the next lines; each row followed by a line of spaces; the parameter memory in 4-byte
floats as readable_memory_size prints it), a TFOpLambda's config line, a float row as the programs print it.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTH = 98
POSITIONS = (29, 58, 68, 98)
BREAKS = ("),", "},", "],", "',")


def kt(shape, layer, dtype="float32"):
    # KerasTensor.__repr__ of a dense KerasTensor: shape as a tuple ("(None,)" for one dimension)
    return "<KerasTensor: shape=%s dtype=%s (created by layer '%s')>" % (shape_text(shape), dtype, layer)


def shape_text(shape):
    return str(tuple(shape))


def print_row(fields, positions=POSITIONS):
    # Keras 2.15's print_row: each cell cut one short of the next column's start (2 spaces apart), preferring a
    # break after "),", "},", ... (a Sequential model's summary: positions (29, 55, 65))
    left = [str(f) for f in fields]
    lines = []
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col > 0 else 0
            space = 2 if col != len(positions) - 1 else 0
            cutoff = positions[col] - start - space - (1 if col != len(positions) - 1 else 0)
            fit = left[col][:cutoff]
            cands = [fit.find(b) + len(b) for b in BREAKS if fit.find(b) >= 0]
            if cands:
                cutoff = min(cands)
                fit = fit[:cutoff]
            line += (" " if col == 0 else "") + fit + " " * space
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        lines.append(line)
    return lines


def memory(n):
    # readable_memory_size of n float32 parameters
    size = float(n * 4)
    for unit in ("Byte", "KB", "MB", "GB"):
        if size / 1024 < 1:
            return "%.2f %s" % (size, unit)
        size /= 1024
    return "%.2f TB" % size


def summary(rows, trainable=0, non_trainable=0, name="model"):
    # rows: (layer name, class name, output shape text, param count, inbound names "x[0][0]")
    out = ['Model: "%s"' % name, "_" * WIDTH]
    out += print_row(["Layer (type)", "Output Shape", "Param #", "Connected to"])
    out.append("=" * WIDTH)
    for lname, cls, shape, params, inbound in rows:
        out += print_row(["%s (%s)" % (lname, cls), shape, params, str(inbound)])
        out.append(" " * WIDTH)
    out.append("=" * WIDTH)
    total = trainable + non_trainable
    out += ["Total params: %d (%s)" % (total, memory(total)), "Trainable params: %d (%s)" % (trainable, memory(trainable)),
            "Non-trainable params: %d (%s)" % (non_trainable, memory(non_trainable)), "_" * WIDTH]
    return out


def op_config(layer, function, node, cls="TFOpLambda"):
    # a TFOpLambda's get_config with its inbound nodes, as the programs print them
    return "%s {'name': '%s', 'trainable': True, 'dtype': 'float32', 'function': '%s'} %s" % (cls, layer, function, node)


def input_config(name, shape):
    return "InputLayer {'batch_input_shape': %s, 'dtype': 'float32', 'sparse': False, 'ragged': False, 'name': '%s'} []" % (
        shape_text(shape), name)


def floats(values, fmt="%.4f"):
    return " ".join(fmt % v for v in values)


def write(name, lines):
    with open(os.path.join(HERE, "programs", name), "w") as fh:
        fh.write("\n".join(lines) + "\n")
