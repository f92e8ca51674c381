# keras_layout.py — the oracle for model.weights.h5's tree: Keras 2.15's saving_lib walk, re-derived from its rules on a small description of Keras objects (used by keras_h5.py).
"""The rules (read in keras/src/saving/saving_lib.py and engine/functional.py of
Keras 2.12-2.15, restated here independently of tfs's stdlib/keras_saving.tfs):

* _save_state(obj, path): skip obj if already saved; else write its own
  variables as datasets "0", "1", ... of the group "<path>/vars" (the root's
  is "vars"), created even when empty; then visit the attributes dir(obj)
  lists, in sorted order: a Layer/Metric/Optimizer value is saved at
  "<path>/<attribute>"; a list/tuple/dict value names each trackable element
  by its class in snake case, "<name>" then "<name>_1", ... counting every
  element (also those already saved).
* A Sequential or functional model's _layer_checkpoint_dependencies maps, per
  layer of model.layers (a Sequential's without its InputLayer), first
  "layer_with_weights-<k>" (if it has weights), then "layer-<i>".
* Model attributes that hold state: that dict, user attributes (subclassed
  models), "layers", "metrics" (built ones only), "optimizer".
"""
import re


class Obj:
    """A Keras object: its class name, own variables [(shape, dtype)], and attributes {name: value}."""

    def __init__(self, cls, variables=(), attrs=None):
        self.cls = cls
        self.variables = list(variables)
        self.attrs = dict(attrs or {})


def snake(name):
    # generic_utils.to_snake_case
    s = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()
    return s if s[0] != "_" else "private" + s


F32 = "float32"


def dense(n_in, n_out):
    return Obj("Dense", [((n_in, n_out), F32), ((n_out,), F32)])


def batch_norm(n):
    # trainable gamma, beta, then non-trainable moving_mean, moving_variance
    return Obj("BatchNormalization", [((n,), F32)] * 4)


def plain(cls):
    return Obj(cls)


def mean(cls="Mean"):
    return Obj(cls, [((), F32), ((), F32)])   # total, count


def optimizer(cls, trainable_shapes, slots, built):
    # iterations, then per model variable its slots in order (Adam: m, v); no learning rate
    vs = [((), "int64")]
    if built:
        for s in trainable_shapes:
            vs += [(s, F32)] * len(slots)
    return Obj(cls, vs)


def graph_model(cls, model_layers, metrics=(), opt=None):
    deps = []
    for layer in model_layers:
        if layer.variables or _has_nested_vars(layer):
            deps.append(layer)
        deps.append(layer)
    attrs = {"_layer_checkpoint_dependencies": deps, "layers": list(model_layers), "metrics": list(metrics)}
    if opt is not None:
        attrs["optimizer"] = opt
    return Obj(cls, [], attrs)


def subclassed(cls, user_attrs, model_layers, metrics=(), opt=None):
    attrs = dict(user_attrs)
    attrs.update({"layers": list(model_layers), "metrics": list(metrics)})
    if opt is not None:
        attrs["optimizer"] = opt
    return Obj(cls, [], attrs)


def _has_nested_vars(o):
    return any(isinstance(v, Obj) and (v.variables or _has_nested_vars(v)) for v in o.attrs.values())


def tree(root):
    """[(group path, [(shape, dtype)])] in the order Keras writes them."""
    out, seen = [], set()

    def save(o, path):
        if id(o) in seen:
            return
        seen.add(id(o))
        out.append((path + "/vars" if path else "vars", o.variables))
        for name in sorted(o.attrs):
            v = o.attrs[name]
            sub = f"{path}/{name}" if path else name
            if isinstance(v, Obj):
                save(v, sub)
            elif isinstance(v, (list, tuple, dict)):
                used = {}
                for e in (list(v.values()) if isinstance(v, dict) else v):
                    if isinstance(e, Obj):
                        n = snake(e.cls)
                        if n in used:
                            used[n] += 1
                            n = f"{n}_{used[n]}"
                        else:
                            used[n] = 0
                        save(e, f"{sub}/{n}")

    save(root, "")
    return out


def write(h5, root, values):
    """Writes root's tree into an open h5py file as Keras does; values: one array per variable, in tree order."""
    k = 0
    for group, variables in tree(root):
        g = h5.create_group(group)
        for i in range(len(variables)):
            g.create_dataset(str(i), data=values[k])
            k += 1
    assert k == len(values)


def read(h5):
    """The tree of an open h5py file: [(group path, [(shape, dtype)])] for every "vars" group, sorted by path."""
    out = []

    def visit(name, obj):
        if name.split("/")[-1] == "vars" and hasattr(obj, "keys"):
            out.append((name, [(tuple(obj[str(i)].shape), str(obj[str(i)].dtype)) for i in range(len(obj))]))
    h5.visititems(visit)
    return sorted(out)


def expected(root):
    return sorted((g, [(tuple(s), d) for s, d in vs]) for g, vs in tree(root))


def names(h5):
    """Every group and dataset path in an open h5py file, sorted."""
    out = []
    h5.visit(out.append)
    return sorted(out)


def expected_names(root):
    out = set()
    for group, variables in tree(root):
        parts = group.split("/")
        for k in range(1, len(parts) + 1):
            out.add("/".join(parts[:k]))
        out.update(f"{group}/{i}" for i in range(len(variables)))
    return sorted(out)
