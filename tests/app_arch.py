# app_arch.py — a plain-python model of Keras 2.15's ResNet / ResNetV2 / VGG graphs for the keras_app_* generators: layer order, parameter counts, output shapes.
"""Each layer is a record (name, inputs, params, non-trainable params, output shape); the functional model's layer
order is Keras's (keras/engine/functional.py _map_graph_network): layers sorted by depth from the output
(descending), ties by the order a depth-first walk from the output (inputs in call order) first meets them.
Importing it checks the full-size totals against Keras's documented ones."""
import sys

sys.setrecursionlimit(10000)   # the depth-first walks of ResNet152's ~500 layers


class Graph:
    def __init__(self, name):
        self.name, self.layers, self.auto = name, {}, {}

    def add(self, name, inputs, shape, params=0, frozen=0):
        self.layers[name] = {"inputs": inputs, "shape": shape, "params": params, "frozen": frozen}
        return name

    def autoname(self, base, counters):
        # Keras's unique default names: base, base_1, base_2 ... counted over the whole program
        k = counters.get(base, 0)
        counters[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def _topo(self, out):
        # consumers before producers
        seen, post = set(), []

        def visit(n):
            if n in seen:
                return
            seen.add(n)
            for i in self.layers[n]["inputs"]:
                visit(i)
            post.append(n)

        visit(out)
        return post[::-1]

    def order(self, out):
        depth, index = {}, {}

        def walk(n):
            # pre-order from the output, each layer once
            if n in index:
                return
            index[n] = len(index)
            for i in self.layers[n]["inputs"]:
                walk(i)

        walk(out)
        # longest path to the output
        depth[out] = 0
        for n in self._topo(out):
            for i in self.layers[n]["inputs"]:
                depth[i] = max(depth.get(i, 0), depth[n] + 1)
        return sorted(index, key=lambda n: (-depth[n], index[n]))


def conv_out(size, k, s, pad):
    # one spatial dimension through a convolution or pooling; None stays None
    if size is None:
        return None
    if pad == "same":
        return -(-size // s)
    return (size - k) // s + 1


def conv(g, name, x, filters, k, s=1, pad="valid", bias=True):
    h, w, c = g.layers[x]["shape"]
    return g.add(name, [x], (conv_out(h, k, s, pad), conv_out(w, k, s, pad), filters), k * k * c * filters + (filters if bias else 0))


def bn(g, name, x):
    c = g.layers[x]["shape"][-1]
    return g.add(name, [x], g.layers[x]["shape"], 4 * c, 2 * c)


def same(g, name, x):
    return g.add(name, [x], g.layers[x]["shape"])


def zpad(g, name, x, p):
    h, w, c = g.layers[x]["shape"]
    return g.add(name, [x], (None if h is None else h + 2 * p, None if w is None else w + 2 * p, c))


def pool(g, name, x, k, s):
    h, w, c = g.layers[x]["shape"]
    return g.add(name, [x], (conv_out(h, k, s, "valid"), conv_out(w, k, s, "valid"), c))


def gpool(g, name, x):
    return g.add(name, [x], (g.layers[x]["shape"][-1],))


def dense(g, name, x, units):
    n = g.layers[x]["shape"][-1]
    return g.add(name, [x], (units,), n * units + units)


def resnet(name, depths, v2, include_top=True, input_shape=(224, 224, 3), pooling=None, classes=1000, counters=None):
    counters = {} if counters is None else counters
    g = Graph(name)
    x = g.add(f"input_{counters.setdefault('input_n', 1)}", [], tuple(input_shape))
    counters["input_n"] += 1
    x = zpad(g, "conv1_pad", x, 3)
    x = conv(g, "conv1_conv", x, 64, 7, 2)
    if not v2:
        x = bn(g, "conv1_bn", x)
        x = same(g, "conv1_relu", x)
    x = zpad(g, "pool1_pad", x, 1)
    x = pool(g, "pool1_pool", x, 3, 2)
    for si, (f, n) in enumerate(zip((64, 128, 256, 512), depths)):
        st = f"conv{si + 2}"
        for b in range(1, n + 1):
            p = f"{st}_block{b}"
            if not v2:
                stride = (1 if si == 0 else 2) if b == 1 else 1
                if b == 1:
                    sc = bn(g, p + "_0_bn", conv(g, p + "_0_conv", x, 4 * f, 1, stride))
                else:
                    sc = x
                y = same(g, p + "_1_relu", bn(g, p + "_1_bn", conv(g, p + "_1_conv", x, f, 1, stride)))
                y = same(g, p + "_2_relu", bn(g, p + "_2_bn", conv(g, p + "_2_conv", y, f, 3, 1, "same")))
                y = bn(g, p + "_3_bn", conv(g, p + "_3_conv", y, 4 * f, 1))
                x = same(g, p + "_out", g.add(p + "_add", [sc, y], g.layers[y]["shape"]))
            else:
                stride = 2 if (b == n and si < 3) else 1
                pre = same(g, p + "_preact_relu", bn(g, p + "_preact_bn", x))
                if b == 1:
                    sc = conv(g, p + "_0_conv", pre, 4 * f, 1, stride)
                elif stride > 1:
                    sc = pool(g, g.autoname("max_pooling2d", counters), x, 1, stride)
                else:
                    sc = x
                y = same(g, p + "_1_relu", bn(g, p + "_1_bn", conv(g, p + "_1_conv", pre, f, 1, 1, bias=False)))
                y = zpad(g, p + "_2_pad", y, 1)
                y = same(g, p + "_2_relu", bn(g, p + "_2_bn", conv(g, p + "_2_conv", y, f, 3, stride, bias=False)))
                y = conv(g, p + "_3_conv", y, 4 * f, 1)
                x = g.add(p + "_out", [sc, y], g.layers[y]["shape"])
    if v2:
        x = same(g, "post_relu", bn(g, "post_bn", x))
    if include_top:
        x = dense(g, "predictions", gpool(g, "avg_pool", x), classes)
    elif pooling == "avg":
        x = gpool(g, "avg_pool", x)
    elif pooling == "max":
        x = gpool(g, "max_pool", x)
    return g, x


def vgg(name, convs, include_top=True, input_shape=(224, 224, 3), pooling=None, classes=1000, counters=None):
    counters = {} if counters is None else counters
    g = Graph(name)
    x = g.add(f"input_{counters.setdefault('input_n', 1)}", [], tuple(input_shape))
    counters["input_n"] += 1
    for b, (f, n) in enumerate(zip((64, 128, 256, 512, 512), convs)):
        for i in range(n):
            x = conv(g, f"block{b + 1}_conv{i + 1}", x, f, 3, 1, "same")
        x = pool(g, f"block{b + 1}_pool", x, 2, 2)
    if include_top:
        h, w, c = g.layers[x]["shape"]
        x = g.add("flatten", [x], (h * w * c,))
        x = dense(g, "predictions", dense(g, "fc2", dense(g, "fc1", x, 4096), 4096), classes)
    elif pooling == "avg":
        x = gpool(g, g.autoname("global_average_pooling2d", counters), x)
    elif pooling == "max":
        x = gpool(g, g.autoname("global_max_pooling2d", counters), x)
    return g, x


def summary(g, out):
    # what the keras_app_* programs print: name, layer count, total / trainable / non-trainable params, output shape
    names = g.order(out)
    total = sum(g.layers[n]["params"] for n in names)
    frozen = sum(g.layers[n]["frozen"] for n in names)
    shape = "(None, " + ", ".join("None" if d is None else str(d) for d in g.layers[out]["shape"]) + ")"
    return f"{g.name} {len(names)} {total} {total - frozen} {frozen} {shape}", names


def shape_str(shape):
    return "(None, " + ", ".join("None" if d is None else str(d) for d in shape) + ")"


# Keras's documented totals (keras.io/api/applications, with the top at 224x224x3): the cross-check
DOCUMENTED = {"resnet50": 25636712, "resnet101": 44707176, "resnet152": 60419944, "resnet50v2": 25613800,
              "resnet101v2": 44675560, "resnet152v2": 60380648, "vgg16": 138357544, "vgg19": 143667240}
DEPTHS = {"resnet50": (3, 4, 6, 3), "resnet101": (3, 4, 23, 3), "resnet152": (3, 8, 36, 3)}


def check_documented():
    for n, d in DEPTHS.items():
        for v2 in (False, True):
            g, o = resnet(n + ("v2" if v2 else ""), d, v2)
            got = sum(g.layers[k]["params"] for k in g.order(o))
            assert got == DOCUMENTED[g.name], (g.name, got)
    for n, c in (("vgg16", (2, 2, 3, 3, 3)), ("vgg19", (2, 2, 4, 4, 4))):
        g, o = vgg(n, c)
        got = sum(g.layers[k]["params"] for k in g.order(o))
        assert got == DOCUMENTED[n], (n, got)


check_documented()
