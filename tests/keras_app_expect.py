# keras_app_expect.py — what the keras.applications generators (tests/gen_keras_app_*.py) share: Python's printing of shapes and name lists, Keras 2.15's argument-error texts, writing the .out file.
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = ("ValueError: The `weights` argument should be either `None` (random initialization), `imagenet` "
           "(pre-training on ImageNet), or the path to the weights file to be loaded")
CLASSES = "ValueError: If using `weights` as `\"imagenet\"` with `include_top` as true, `classes` should be 1000"


def shape(s):
    # a tuple as Python prints it (None for an unknown dimension)
    return "(" + ", ".join("None" if d is None else str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def names(items):
    return "[" + ", ".join(f"'{x}'" for x in items) + "]"


def too_small(min_size, size):
    # imagenet_utils.obtain_input_shape's minimum-size check
    return f"ValueError: Input size must be at least {min_size}x{min_size}; Received: input_shape={shape(size)}"


def not_default(default, size):
    # obtain_input_shape: the ImageNet classifier takes only the default size
    return (f"ValueError: When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be "
            f"{shape(default)}.  Received: input_shape={shape(size)}")


def missing_file(fname, url):
    # tfs's get_file never downloads: the cached path it looked for (stdlib/modules/kdatasets.c)
    return f"OSError: get_file: $KERAS_HOME/models/{fname} not found (tfs never downloads {url}; put the file there)"


def write(program, lines):
    with open(os.path.join(HERE, "programs", program + ".out"), "w") as f:
        f.write("\n".join(lines) + "\n")


class Net:
    # a functional model's layers as Keras lists them, with their parameters, from a walk of the architecture
    def __init__(self, h, w):
        self.layers = []   # (name, kind, trainable params, non-trainable params) in creation order
        self.inbound = {}  # layer name -> the names of the layers it was called on
        self.count = {}
        self.input = (h, w)

    def auto(self, base):
        n = self.count.get(base, 0)
        self.count[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def add(self, kind, base, inputs, name=None, trainable=0, fixed=0):
        name = name if name is not None else self.auto(base)
        self.layers.append((name, kind, trainable, fixed))
        self.inbound[name] = [t[3] for t in inputs]
        return name

    def unit(self, t, filters, kh, kw, stride=1, padding="same"):
        # t: (h, w, c, producing layer); a conv + BN + ReLU unit
        h, w, c, _ = t
        a = self.add("Conv2D", "conv2d", [t], trainable=kh * kw * c * filters)
        a = self.add("BatchNormalization", "batch_normalization", [(0, 0, 0, a)], trainable=filters, fixed=2 * filters)
        a = self.add("Activation", "activation", [(0, 0, 0, a)])
        if padding == "valid":
            h = None if h is None else (h - kh) // stride + 1
            w = None if w is None else (w - kw) // stride + 1
        return (h, w, filters, a)

    def maxpool(self, t):
        h, w, c, _ = t
        a = self.add("MaxPooling2D", "max_pooling2d", [t])
        return (None if h is None else (h - 3) // 2 + 1, None if w is None else (w - 3) // 2 + 1, c, a)

    def avgpool(self, t):
        return t[:3] + (self.add("AveragePooling2D", "average_pooling2d", [t]),)

    def concat(self, parts, name=None):
        a = self.add("Concatenate", "concatenate", parts, name=name)
        return (parts[0][0], parts[0][1], sum(p[2] for p in parts), a)

    def keras_order(self, output):
        # Keras's functional model lists its layers by depth from the output (deepest first), ties in the order a
        # depth-first walk from the output (inputs in call order) first reaches them
        index, done, post = {}, set(), []

        def visit(n):
            if n in done:
                return
            index.setdefault(n, len(index))
            for m in self.inbound[n]:
                visit(m)
            done.add(n)
            post.append(n)

        visit(output)
        depth = {}
        for n in reversed(post):
            d = depth.setdefault(n, 0)
            for m in self.inbound[n]:
                depth[m] = max(depth.get(m, 0), d + 1)
        by = {l[0]: l for l in self.layers}
        order = sorted(post, key=lambda n: (-depth[n], index[n]))
        self.layers = [by[n] for n in order]

    def finish(self, x, include_top, pooling, classes):
        # the classifier (avg_pool + predictions) or the optional global pooling, then Keras's layer order
        c, last = x[2], x[3]
        if include_top:
            a = self.add("GlobalAveragePooling2D", None, [x], name="avg_pool")
            last = self.add("Dense", None, [(0, 0, 0, a)], name="predictions", trainable=c * classes + classes)
            self.output = (None, classes)
        elif pooling in ("avg", "max"):
            kind, base = (("GlobalAveragePooling2D", "global_average_pooling2d") if pooling == "avg"
                          else ("GlobalMaxPooling2D", "global_max_pooling2d"))
            last = self.add(kind, base, [x])
            self.output = (None, c)
        else:
            self.output = (None,) + x[:3]
        self.keras_order(last)
        return self

    def totals(self):
        t = sum(l[2] for l in self.layers)
        n = sum(l[3] for l in self.layers)
        return t + n, t, n

    def describe(self, name):
        # as the programs' describe(m): name, layer count, total, trainable and non-trainable parameters, output shape
        total, t, n = self.totals()
        return f"{name} {len(self.layers)} {total} {t} {n} {shape(self.output)}"
