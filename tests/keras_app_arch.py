"""keras_app_arch.py — MobileNet, MobileNetV2, Xception and DenseNet described layer by layer in plain Python (names, output shapes, parameter counts) for the keras_app_* goldens' generators."""
import math
import os


def _snake(kind):
    # Keras's default layer names: "Conv2D" -> "conv2d", "ZeroPadding2D" -> "zero_padding2d"
    out = ""
    for i, c in enumerate(kind):
        if i and c.isupper() and (kind[i - 1].islower() or (i + 1 < len(kind) and kind[i + 1].islower())):
            out += "_"
        out += c
    return out.lower()


def _length(n, k, s, padding):
    if n is None:
        return None
    return math.ceil(n / s) if padding == "same" else math.ceil((n - k + 1) / s)


class Net:
    """A functional graph being built: every layer with its name, output shape and (trainable, non-trainable) counts."""

    def __init__(self):
        self.layers = []
        self.uid = {}

    def _add(self, kind, name, shape, trainable=0, frozen=0):
        if name is None:
            base = _snake(kind)
            k = self.uid.get(base, 0)
            self.uid[base] = k + 1
            name = base if k == 0 else f"{base}_{k}"
        self.layers.append((name, tuple(shape), trainable, frozen))
        return tuple(shape)

    def input(self, shape):
        self.layers.append(("input_1", tuple(shape), 0, 0))
        return tuple(shape)

    def conv(self, x, filters, k, s=1, padding="valid", bias=True, name=None):
        h, w, c = x
        return self._add("Conv2D", name, (_length(h, k, s, padding), _length(w, k, s, padding), filters),
                         k * k * c * filters + (filters if bias else 0))

    def depthwise(self, x, k, s=1, padding="valid", dm=1, name=None):
        h, w, c = x
        return self._add("DepthwiseConv2D", name, (_length(h, k, s, padding), _length(w, k, s, padding), c * dm),
                         k * k * c * dm)

    def separable(self, x, filters, k, name=None):
        h, w, c = x
        return self._add("SeparableConv2D", name, (h, w, filters), k * k * c + c * filters)

    def bn(self, x, name=None):
        return self._add("BatchNormalization", name, x, 2 * x[-1], 2 * x[-1])

    def act(self, x, name=None, kind="Activation"):
        return self._add(kind, name, x)

    def pad(self, x, p, name=None):
        (t, b), (l, r) = p
        h, w, c = x
        return self._add("ZeroPadding2D", name, (None if h is None else h + t + b, None if w is None else w + l + r, c))

    def pool(self, x, k, s, padding="valid", name=None, kind="MaxPooling2D"):
        h, w, c = x
        return self._add(kind, name, (_length(h, k, s, padding), _length(w, k, s, padding), c))

    def gpool(self, x, name=None, kind="GlobalAveragePooling2D", keepdims=False):
        return self._add(kind, name, (1, 1, x[-1]) if keepdims else (x[-1],))

    def dense(self, x, units, name=None):
        return self._add("Dense", name, (units,), x[-1] * units + units)

    def merge(self, xs, name=None, kind="Add"):
        if kind == "Concatenate":
            return self._add(kind, name, xs[0][:-1] + (sum(x[-1] for x in xs),))
        return self._add(kind, name, xs[0])

    def summary(self):
        trainable = sum(l[2] for l in self.layers)
        frozen = sum(l[3] for l in self.layers)
        return trainable + frozen, trainable, frozen


def _head(net, x, include_top, pooling, classes, top_pool=None, avg_name=None, max_name=None):
    if include_top:
        return net.dense(net.gpool(x, top_pool), classes, "predictions")
    if pooling == "avg":
        return net.gpool(x, avg_name)
    if pooling == "max":
        return net.gpool(x, max_name, "GlobalMaxPooling2D")
    return x


def mobilenet(shape, alpha=1.0, dm=1, include_top=True, pooling=None, classes=1000):
    net = Net()
    x = net.input(shape)
    x = net.conv(x, int(32 * alpha), 3, 2, "same", False, "conv1")
    x = net.act(net.bn(x, "conv1_bn"), "conv1_relu", "ReLU")
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for i, (filters, s) in enumerate(blocks, 1):
        if s == 2:
            x = net.pad(x, ((0, 1), (0, 1)), f"conv_pad_{i}")
        x = net.depthwise(x, 3, s, "same" if s == 1 else "valid", dm, f"conv_dw_{i}")
        x = net.act(net.bn(x, f"conv_dw_{i}_bn"), f"conv_dw_{i}_relu", "ReLU")
        x = net.conv(x, int(filters * alpha), 1, 1, "same", False, f"conv_pw_{i}")
        x = net.act(net.bn(x, f"conv_pw_{i}_bn"), f"conv_pw_{i}_relu", "ReLU")
    if include_top:
        x = net.gpool(x, keepdims=True)
        x = net._add("Dropout", "dropout", x)
        x = net.conv(x, classes, 1, 1, "same", True, "conv_preds")
        x = net._add("Reshape", "reshape_2", (classes,))
        x = net.act(x, "predictions")
    else:
        x = _head(net, x, False, pooling, classes)
    return net


def _divisible(v, d=8):
    n = max(d, int(v + d / 2) // d * d)
    return n + d if n < 0.9 * v else n


def mobilenet_v2(shape, alpha=1.0, include_top=True, pooling=None, classes=1000):
    net = Net()
    x = net.input(shape)
    x = net.conv(x, _divisible(32 * alpha), 3, 2, "same", False, "Conv1")
    x = net.act(net.bn(x, "bn_Conv1"), "Conv1_relu", "ReLU")
    blocks = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
              (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
              (320, 1, 6)]
    for i, (filters, s, e) in enumerate(blocks):
        inp = x
        out_c = _divisible(int(filters * alpha))
        p = f"block_{i}_" if i else "expanded_conv_"
        if i:
            x = net.conv(x, e * x[-1], 1, 1, "same", False, p + "expand")
            x = net.act(net.bn(x, p + "expand_BN"), p + "expand_relu", "ReLU")
        if s == 2:
            adj = [1 if n is None else 1 - n % 2 for n in x[:2]]
            x = net.pad(x, ((1 - adj[0], 1), (1 - adj[1], 1)), p + "pad")
        x = net.depthwise(x, 3, s, "same" if s == 1 else "valid", 1, p + "depthwise")
        x = net.act(net.bn(x, p + "depthwise_BN"), p + "depthwise_relu", "ReLU")
        x = net.bn(net.conv(x, out_c, 1, 1, "same", False, p + "project"), p + "project_BN")
        if inp[-1] == out_c and s == 1:
            x = net.merge([inp, x], p + "add")
    x = net.conv(x, _divisible(1280 * alpha) if alpha > 1.0 else 1280, 1, 1, "valid", False, "Conv_1")
    x = net.act(net.bn(x, "Conv_1_bn"), "out_relu", "ReLU")
    _head(net, x, include_top, pooling, classes)
    return net


# Xception's entry-flow blocks (number, filters of the two separable convolutions, ReLU first) and middle-flow blocks
XCEPTION_ENTRY = [(2, 128, 128, False), (3, 256, 256, True), (4, 728, 728, True)]
XCEPTION_MIDDLE = range(5, 13)


def xception(shape, include_top=True, pooling=None, classes=1000):
    net = Net()
    x = net.input(shape)
    x = net.act(net.bn(net.conv(x, 32, 3, 2, "valid", False, "block1_conv1"), "block1_conv1_bn"), "block1_conv1_act")
    x = net.act(net.bn(net.conv(x, 64, 3, 1, "valid", False, "block1_conv2"), "block1_conv2_bn"), "block1_conv2_act")

    def down(x, block, f1, f2, first_act=True):
        r = net.bn(net.conv(x, f2, 1, 2, "same", False))
        p = f"block{block}_"
        if first_act:
            x = net.act(x, p + "sepconv1_act")
        x = net.bn(net.separable(x, f1, 3, p + "sepconv1"), p + "sepconv1_bn")
        x = net.act(x, p + "sepconv2_act")
        x = net.bn(net.separable(x, f2, 3, p + "sepconv2"), p + "sepconv2_bn")
        x = net.pool(x, 3, 2, "same", p + "pool")
        return net.merge([x, r])

    for block in XCEPTION_ENTRY:
        x = down(x, *block)
    for i in XCEPTION_MIDDLE:
        r = x
        for k in (1, 2, 3):
            x = net.act(x, f"block{i}_sepconv{k}_act")
            x = net.bn(net.separable(x, 728, 3, f"block{i}_sepconv{k}"), f"block{i}_sepconv{k}_bn")
        x = net.merge([x, r])
    x = down(x, 13, 728, 1024)
    x = net.act(net.bn(net.separable(x, 1536, 3, "block14_sepconv1"), "block14_sepconv1_bn"), "block14_sepconv1_act")
    x = net.act(net.bn(net.separable(x, 2048, 3, "block14_sepconv2"), "block14_sepconv2_bn"), "block14_sepconv2_act")
    _head(net, x, include_top, pooling, classes, "avg_pool")
    return net


def densenet(blocks, shape, include_top=True, pooling=None, classes=1000):
    net = Net()
    x = net.input(shape)
    x = net.pad(x, ((3, 3), (3, 3)))
    x = net.act(net.bn(net.conv(x, 64, 7, 2, "valid", False, "conv1/conv"), "conv1/bn"), "conv1/relu")
    x = net.pool(net.pad(x, ((1, 1), (1, 1))), 3, 2, "valid", "pool1")
    for stage, n in enumerate(blocks):
        for i in range(1, n + 1):
            p = f"conv{stage + 2}_block{i}"
            y = net.act(net.bn(x, p + "_0_bn"), p + "_0_relu")
            y = net.act(net.bn(net.conv(y, 128, 1, 1, "valid", False, p + "_1_conv"), p + "_1_bn"), p + "_1_relu")
            y = net.conv(y, 32, 3, 1, "same", False, p + "_2_conv")
            x = net.merge([x, y], p + "_concat", "Concatenate")
        if stage < 3:
            p = f"pool{stage + 2}"
            x = net.act(net.bn(x, p + "_bn"), p + "_relu")
            x = net.conv(x, int(x[-1] * 0.5), 1, 1, "valid", False, p + "_conv")
            x = net.pool(x, 2, 2, "valid", p + "_pool", "AveragePooling2D")
    x = net.act(net.bn(x, "bn"), "relu")
    _head(net, x, include_top, pooling, classes, "avg_pool", "avg_pool", "max_pool")
    return net


# Keras's documented totals (keras.io/api/applications and the models' docstrings): the descriptions above must agree
DOCUMENTED = [(lambda: mobilenet((224, 224, 3)), 4253864), (lambda: mobilenet_v2((224, 224, 3)), 3538984),
              (lambda: xception((299, 299, 3)), 22910480), (lambda: densenet([6, 12, 24, 16], (224, 224, 3)), 8062504),
              (lambda: densenet([6, 12, 32, 32], (224, 224, 3)), 14307880),
              (lambda: densenet([6, 12, 48, 32], (224, 224, 3)), 20242984)]


def check_documented():
    for make, total in DOCUMENTED:
        got = make().summary()[0]
        assert got == total, (got, total)


def describe(net, name, head=6, tail=4):
    # the lines the goldens print for one model: name, layer count, parameter counts, output shape, some names
    total, trainable, frozen = net.summary()
    names = [l[0] for l in net.layers]
    shape = "(None, " + ", ".join(str(d) for d in net.layers[-1][1]) + ")"
    if len(net.layers[-1][1]) == 1:
        shape = f"(None, {net.layers[-1][1][0]})"
    return [f"{name} {len(net.layers)} {total} {trainable} {frozen} {shape}", str(names[:head]), str(names[-tail:])]


def write_golden(name, lines):
    # tests/programs/NAME.out, one printed line a row
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", name + ".out")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
