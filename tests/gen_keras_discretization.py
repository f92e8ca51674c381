#!/usr/bin/python3
# gen_keras_discretization.py — writes tests/programs/keras_discretization.tfs/.out: Discretization's bins, adapt's quantile boundaries and encodings, from numpy.
# The oracle redoes Keras 2.15's adapt independently in numpy: each batch (32 rows unless batch_size says otherwise) is
# reduced to a summary (sorted float32 values taken from `int(n*epsilon)` on, every max(that, 1)-th, weighted by
# the stride), merged with the running summary by sorting on the values and compressed by interpolating the
# cumulative weights at epsilon steps (np.interp, as Keras); the boundaries are the final summary compressed to
# 1/num_bins steps, all but the last.
import numpy as np
from keras_gen_common import emit_errors, write


def compress(summary, eps):
    if summary.shape[1] * eps < 1:
        return summary
    pct = eps + np.arange(0.0, 1.0, eps)
    cw = np.cumsum(summary[1])                       # float32, as Keras's float32 summary
    cwp = cw / cw[-1]
    bins = np.interp(pct, cwp, summary[0])
    newcw = np.interp(pct, cwp, cw)
    w = newcw - np.concatenate(([0.0], newcw[:-1]))
    return np.stack((bins, w)).astype(np.float32)


def summarize(batch, eps):
    v = np.sort(np.asarray(batch, np.float32).reshape(-1))
    inc = int(np.float32(v.size) / np.float32(1.0 / eps))
    step = max(inc, 1)
    b = v[inc::step]
    return np.stack((b, np.full(b.shape, np.float32(step), np.float32)))


def adapt(data, num_bins, eps, batch_size=32):
    data = np.asarray(data, np.float32)
    summ = np.zeros((2, 0), np.float32)
    for i in range(0, data.shape[0], batch_size):
        s = summarize(data[i:i + batch_size], eps)
        m = np.concatenate((s, summ), axis=1)
        m = m[:, np.argsort(m[0], kind="stable")]
        summ = compress(m, eps)
    return [float(x) for x in compress(summ, 1.0 / num_bins)[0, :-1]]


def bucketize(x, bounds):
    # Bucketize: the number of boundaries <= x
    return np.searchsorted(np.asarray(bounds, np.float32), np.asarray(x, np.float32), side="right")


def encode(idx, depth, mode):
    idx = np.asarray(idx)
    if mode == "int":
        return idx
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if mode == "one_hot" and idx.shape[-1] != 1:
        idx = idx[..., None]
    hot = np.eye(depth, dtype=np.float32)[idx]
    tot = hot.sum(axis=-2)
    return tot if mode == "count" else np.minimum(tot, 1.0)


def fmt(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return repr([[float(v) for v in r] for r in a]) if a.ndim == 2 else repr([float(v) for v in a])
    return repr(a.tolist())


def main():
    rng = np.random.RandomState(7)
    doc = [[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 0.0]]
    big = np.round(rng.normal(size=(100, 3)) * 10, 3).astype(np.float32)     # 4 batches of 32 rows (the last 4)
    wide = np.round(rng.uniform(-5, 5, size=(130, 2)), 4).astype(np.float32)  # compresses inside each batch
    p, o = [], []
    P, O = p.append, o.append
    P("# keras_discretization.tfs — Discretization (tf.keras.layers): given boundaries, adapt's approximate quantiles, output modes, config and errors (from tests/gen_keras_discretization.py).")
    P("import numpy as np")
    P(f"doc = np.array({doc})")
    P(f"big = np.array({big.tolist()}, dtype=np.float32)")
    P(f"wide = np.array({wide.tolist()}, dtype=np.float32)")
    P("layer = tf.keras.layers.Discretization(bin_boundaries=[0., 1., 2.])")
    P("out = layer(doc)")
    P("print(out.dtype.name, out.numpy().tolist())")
    O("int64 " + fmt(bucketize(doc, [0., 1., 2.])))
    P("layer = tf.keras.layers.Discretization(num_bins=4, epsilon=0.01)")
    P("layer.adapt(doc)")
    P("print(layer.bin_boundaries)")
    P("print(layer(doc).numpy().tolist())")
    b = adapt(doc, 4, 0.01)
    O(repr(b))
    O(fmt(bucketize(doc, b)))
    cases = [("big", big, 5, 0.01, None), ("big", big, 3, 0.1, 16), ("wide", wide, 6, 0.05, 64), ("wide", wide, 4, 0.01, None)]
    for name, data, nb, eps, bs in cases:
        P(f"layer = tf.keras.layers.Discretization(num_bins={nb}, epsilon={eps})")
        P(f"layer.adapt({name})" if bs is None else f"layer.adapt({name}, batch_size={bs})")
        P("print(layer.bin_boundaries)")
        P(f"print(layer({name}[:4]).numpy().tolist())")
        b = adapt(data, nb, eps, 32 if bs is None else bs)
        O(repr(b))
        O(fmt(bucketize(data[:4], b)))
    # a Dataset's own batches
    P("layer = tf.keras.layers.Discretization(num_bins=4, epsilon=0.02)")
    P("layer.adapt(tf.data.Dataset.from_tensor_slices(wide).batch(50))")
    P("print(layer.bin_boundaries)")
    O(repr(adapt(wide, 4, 0.02, 50)))
    # output modes
    bounds = [-1.0, 0.5, 2.0]
    x1 = [[-2.0, 0.5, 3.0, 0.7], [1.0, 1.0, 1.0, -1.0]]
    for mode in ("multi_hot", "count"):
        P(f"layer = tf.keras.layers.Discretization(bin_boundaries={bounds}, output_mode=\"{mode}\")")
        P(f"out = layer(tf.constant({x1}))")
        P("print(out.dtype.name, out.shape, out.numpy().tolist())")
        idx = bucketize(x1, bounds)
        e = encode(idx, len(bounds) + 1, mode)
        O(f"float32 {tuple(e.shape)} {e.tolist()}")
    # one_hot: a rank-1 input gains an axis, a (n, 1) one is encoded along its last axis; rank 3 is too many
    P(f"out = tf.keras.layers.Discretization(bin_boundaries={bounds}, output_mode=\"one_hot\")(tf.constant([[0.0], [5.0], [-3.0]]))")
    P("print(out.shape, out.numpy().tolist())")
    O("(3, 4) " + repr(encode(bucketize([[0.0], [5.0], [-3.0]], bounds), 4, "one_hot").tolist()))
    P(f"out = tf.keras.layers.Discretization(bin_boundaries={bounds}, output_mode=\"one_hot\")(tf.constant([0.0, 5.0, -3.0]))")
    P("print(out.numpy().tolist())")
    O(repr(encode(bucketize([0.0, 5.0, -3.0], bounds), 4, "one_hot").tolist()))
    P(f"out = tf.keras.layers.Discretization(bin_boundaries={bounds}, output_mode=\"count\", sparse=True)(tf.constant({x1}))")
    P("print(type(out).__name__, tf.sparse.to_dense(out).numpy().tolist())")
    O("SparseTensor " + repr(encode(bucketize(x1, bounds), 4, "count").tolist()))
    # ragged and sparse inputs keep their structure; a tf.function traces the bucketing
    P(f"layer = tf.keras.layers.Discretization(bin_boundaries={bounds})")
    P("r = layer(tf.ragged.constant([[-2.0, 0.5, 3.0], [1.0]]))")
    P("print(type(r).__name__, r.to_list())")
    O("RaggedTensor " + repr([bucketize([-2.0, 0.5, 3.0], bounds).tolist(), bucketize([1.0], bounds).tolist()]))
    P("s = layer(tf.sparse.SparseTensor(indices=[[0, 1], [1, 0]], values=[0.7, 2.5], dense_shape=[2, 2]))")
    P("print(type(s).__name__, s.values.numpy().tolist())")
    O("SparseTensor " + repr(bucketize([0.7, 2.5], bounds).tolist()))
    P("print(tf.function(lambda t: layer(t))(tf.constant([[5.0, -5.0]])).numpy().tolist())")
    O(repr(bucketize([[5.0, -5.0]], bounds).tolist()))
    # inside a functional model and tf.function
    P(f"inp = tf.keras.Input(shape=(4,))")
    P(f"m = tf.keras.Model(inp, tf.keras.layers.Discretization(bin_boundaries={bounds})(inp))")
    P(f"print(m.output_shape, m.predict(np.array({x1}), verbose=0).tolist())")
    O(f"(None, 4) {bucketize(x1, bounds).tolist()}")
    # config
    P("layer = tf.keras.layers.Discretization(num_bins=3)")
    P("cfg = layer.get_config()")
    P("print(sorted(cfg.keys()))")
    P("print(cfg['bin_boundaries'], cfg['num_bins'], cfg['epsilon'], cfg['output_mode'], cfg['sparse'], cfg['dtype'])")
    O(repr(sorted(["name", "trainable", "dtype", "bin_boundaries", "num_bins", "epsilon", "output_mode", "sparse"])))
    O("None 3 0.01 int False int64")
    P("cfg = tf.keras.layers.Discretization(bin_boundaries=[1.0, 2.0], output_mode=\"multi_hot\").get_config()")
    P("print(cfg['bin_boundaries'], cfg['num_bins'], cfg['dtype'])")
    O("[1.0, 2.0] None float32")
    P("again = tf.keras.layers.Discretization.from_config(cfg)")
    P("print(again(tf.constant([[0.0, 1.5, 9.0]])).numpy().tolist())")
    O(repr(encode(bucketize([[0.0, 1.5, 9.0]], [1.0, 2.0]), 3, "multi_hot").tolist()))
    # Keras's errors
    errs = [
        ("tf.keras.layers.Discretization(num_bins=-1)",
         "ValueError: `num_bins` must be greater than or equal to 0. You passed `num_bins=-1`"),
        ("tf.keras.layers.Discretization(num_bins=2, bin_boundaries=[1.0])",
         "ValueError: Both `num_bins` and `bin_boundaries` should not be set. You passed `num_bins=2` and `bin_boundaries=[1.0]`"),
        ("tf.keras.layers.Discretization(num_bins=2, sparse=True)",
         "ValueError: `sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, or `'count'`. Received: sparse=True and output_mode=int"),
        ("tf.keras.layers.Discretization(num_bins=2, output_mode=\"tf_idf\")",
         "ValueError: Unkown value for `output_mode` argument of layer Discretization. Allowed values are: or one of "
         "the following values: ('int', 'one_hot', 'multi_hot', 'count'). Received: tf_idf"),
        (f"tf.keras.layers.Discretization(bin_boundaries={bounds}, output_mode=\"one_hot\", name=\"hot\")(tf.constant({x1}))",
         "ValueError: Exception encountered when calling layer 'hot' (type Discretization).\n\n"
         "When output_mode is not `'int'`, maximum supported output rank is 2. Received output_mode one_hot and "
         "input shape (2, 4), which would result in output rank 3.\n\n"
         "Call arguments received by layer 'hot' (type Discretization):\n"
         "  \u2022 inputs=tf.Tensor(shape=(2, 4), dtype=float32)"),
        ("tf.keras.layers.Discretization(bin_boundaries=[0.0, 1.0]).adapt(doc)",
         "ValueError: Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, use `num_bins` instead. You passed `bin_boundaries=[0.0, 1.0]`."),
    ]
    emit_errors(P, O, errs)
    write("keras_discretization", p, o)


main()
