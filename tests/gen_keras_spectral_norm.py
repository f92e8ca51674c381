#!/usr/bin/python3
# gen_keras_spectral_norm.py — writes tests/programs/keras_spectral_norm.tfs/.out: SpectralNormalization, Wrapper and InputSpec, checked against numpy.
# SpectralNormalization's oracle is Keras 2.15's power iteration redone in numpy: v = l2n(u W^T), u = l2n(v W)
# per iteration, sigma = v W u^T, the kernel divided by sigma and u kept; W is the kernel reshaped to
# (-1, last dim). Values are printed to 4 decimals. The InputSpec texts follow keras/src/engine/input_spec.py.
import numpy as np
from keras_gen_common import emit_errors, write


def l2n(x):
    return x / np.sqrt(max(np.sum(x * x), 1e-12))


def normalize(kernel, u, iters):
    w = kernel.reshape(-1, kernel.shape[-1]).astype(np.float64)
    u = u.astype(np.float64)
    for _ in range(iters):
        v = l2n(u @ w.T)
        u = l2n(v @ w)
    sigma = (v @ w @ u.T)[0, 0]
    return kernel / sigma, u


def f4(a):
    return "[" + ", ".join(f"{v:.4f}" for v in np.asarray(a, np.float64).reshape(-1)) + "]"


def main():
    rng = np.random.RandomState(11)
    k = np.round(rng.normal(size=(4, 3)), 3).astype(np.float32)
    b = np.round(rng.normal(size=(3,)), 3).astype(np.float32)
    u = np.round(rng.normal(size=(1, 3)), 3).astype(np.float32)
    x = np.round(rng.normal(size=(2, 4)), 3).astype(np.float32)
    emb = np.round(rng.normal(size=(5, 2)), 3).astype(np.float32)
    ue = np.round(rng.normal(size=(1, 2)), 3).astype(np.float32)
    p, o = [], []
    P, O = p.append, o.append
    P("# keras_spectral_norm.tfs — SpectralNormalization (power iteration, training-only normalization), Wrapper and InputSpec (checks and Keras's error texts), from tests/gen_keras_spectral_norm.py.")
    P("import numpy as np")
    P("def f4(a):")
    P("    return \"[\" + \", \".join(f\"{v:.4f}\" for v in np.asarray(a, dtype=np.float64).reshape(-1).tolist()) + \"]\"")
    P(f"k = np.array({k.tolist()}, dtype=np.float32)")
    P(f"b = np.array({b.tolist()}, dtype=np.float32)")
    P(f"u = np.array({u.tolist()}, dtype=np.float32)")
    P(f"x = np.array({x.tolist()}, dtype=np.float32)")
    for iters in (1, 3):
        P(f"sn = tf.keras.layers.SpectralNormalization(tf.keras.layers.Dense(3), power_iterations={iters})")
        P("y0 = sn(x)")
        P("print([w.name for w in sn.weights], [w.name for w in sn.trainable_weights], [w.name for w in sn.non_trainable_weights])")
        sn = "spectral_normalization" + ("" if iters == 1 else "_1")
        # Wrapper.build builds the wrapped layer directly, inside the wrapper's name scope
        O(f"['{sn}/kernel:0', '{sn}/bias:0', '{sn}/vector_u:0'] ['{sn}/kernel:0', '{sn}/bias:0'] ['{sn}/vector_u:0']")
        P("sn.set_weights([k, b, u])")
        P("print(f4(sn(x)))")
        O(f4(x @ k + b))
        P("print(f4(sn(x, training=True)))")
        kn, un = normalize(k, u, iters)
        O(f4(x @ kn + b))
        P("print(f4(sn.layer.kernel.numpy()), f4(sn.vector_u.numpy()))")
        O(f4(kn) + " " + f4(un))
        P("print(f4(sn(x)))")
        O(f4(x @ kn + b))
    # Embedding: its embeddings normalized
    P(f"emb = np.array({emb.tolist()}, dtype=np.float32)")
    P(f"ue = np.array({ue.tolist()}, dtype=np.float32)")
    P("se = tf.keras.layers.SpectralNormalization(tf.keras.layers.Embedding(5, 2))")
    P("ids = tf.constant([[0, 3], [4, 1]])")
    P("se(ids)")
    P("se.set_weights([emb, ue])")
    P("print(f4(se(ids, training=True)))")
    en, _ = normalize(emb, ue, 1)
    O(f4(en[[[0, 3], [4, 1]]]))
    # in a model trained by fit: the step normalizes the kernel, then differentiates the call through it
    yt = np.round(rng.normal(size=(2, 3)), 3).astype(np.float32)
    P(f"yt = np.array({yt.tolist()}, dtype=np.float32)")
    P("fm = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.SpectralNormalization(tf.keras.layers.Dense(3), power_iterations=2)])")
    P("fm.set_weights([k, b, u])")
    P("fm.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss='mse')")
    P("fm.fit(x, yt, batch_size=2, epochs=1, verbose=0)")
    P("print(f4(fm.layers[0].layer.kernel.numpy()), f4(fm.layers[0].layer.bias.numpy()))")
    kn, _ = normalize(k, u, 2)
    err = x @ kn + b - yt
    g = 2.0 * err / err.size
    O(f4(kn - 0.1 * (x.T @ g)) + " " + f4(b - 0.1 * g.sum(axis=0)))
    P("sn.set_weights([k, b, u])")
    P("print(sn.input_spec)")
    O("InputSpec(shape=(None, 4), ndim=2)")
    P("cfg = sn.get_config()")
    P("print(sorted(cfg.keys()), cfg['power_iterations'], cfg['layer']['class_name'])")
    O("['dtype', 'layer', 'name', 'power_iterations', 'trainable'] 3 Dense")
    P("again = tf.keras.layers.SpectralNormalization.from_config(cfg)")
    P("print(type(again.layer).__name__, again.layer.units, again.power_iterations)")
    O("Dense 3 3")
    P("print(isinstance(sn, tf.keras.layers.Wrapper), isinstance(sn, tf.keras.layers.Layer))")
    O("True True")
    errs = [
        ("tf.keras.layers.SpectralNormalization(tf.keras.layers.Dense(2), power_iterations=0)",
         "ValueError: `power_iterations` should be greater than zero. Received: `power_iterations=0`"),
        ("tf.keras.layers.SpectralNormalization(tf.keras.layers.Flatten())(x)",
         "ValueError: Flatten object has no attribute 'kernel' nor 'embeddings'"),
        ("tf.keras.layers.SpectralNormalization(3)",
         "ValueError: Layer 3 supplied to wrapper is not a supported layer type. Please ensure wrapped layer is a valid Keras layer."),
        ("sn(np.ones((2, 5), dtype=np.float32))",
         'ValueError: Input 0 of layer "spectral_normalization_1" is incompatible with the layer: expected shape=(None, 4), found shape=(2, 5)'),
    ]
    # InputSpec set by a program's layer
    P("class Twice(tf.keras.layers.Layer):")
    P("    def __init__(self, spec, **kwargs):")
    P("        super().__init__(**kwargs)")
    P("        self.input_spec = spec")
    P("    def call(self, inputs):")
    P("        return inputs * 2")
    P("print(Twice(tf.keras.layers.InputSpec(ndim=2))(tf.ones([1, 2])).numpy().tolist())")
    O("[[2.0, 2.0]]")
    specs = [
        ("tf.keras.layers.InputSpec(ndim=2)", "tf.ones([2, 3, 4])",
         'Input 0 of layer "twice_1" is incompatible with the layer: expected ndim=2, found ndim=3. Full shape received: (2, 3, 4)'),
        ("tf.keras.layers.InputSpec(min_ndim=3)", "tf.ones([2, 3])",
         'Input 0 of layer "twice_2" is incompatible with the layer: expected min_ndim=3, found ndim=2. Full shape received: (2, 3)'),
        ("tf.keras.layers.InputSpec(max_ndim=2)", "tf.ones([1, 2, 3])",
         'Input 0 of layer "twice_3" is incompatible with the layer: expected max_ndim=2, found ndim=3'),
        ("tf.keras.layers.InputSpec(axes={-1: 4})", "tf.ones([2, 3])",
         'Input 0 of layer "twice_4" is incompatible with the layer: expected axis -1 of input shape to have value 4, but received input with shape (2, 3)'),
        ("tf.keras.layers.InputSpec(dtype='int32')", "tf.ones([2, 3])",
         'Input 0 of layer "twice_5" is incompatible with the layer: expected dtype=int32, found dtype=<dtype: \'float32\'>'),
        ("tf.keras.layers.InputSpec(shape=(None, 3))", "tf.ones([2, 4])",
         'Input 0 of layer "twice_6" is incompatible with the layer: expected shape=(None, 3), found shape=(2, 4)'),
    ]
    for spec, arg, msg in specs:
        P("try:")
        P(f"    Twice({spec})({arg})")
        P("except ValueError as e:")
        P("    print(e)")
        O(msg)
    P("print(Twice(tf.keras.layers.InputSpec(shape=(None, 3, 1), allow_last_axis_squeeze=True))(tf.ones([2, 3])).shape)")
    O("(2, 3)")
    P("inp = tf.keras.Input(shape=(3, 2))")
    P("try:")
    P("    Twice(tf.keras.layers.InputSpec(ndim=2), name='flat_only')(inp)")
    P("except ValueError as e:")
    P("    print(e)")
    O('Input 0 of layer "flat_only" is incompatible with the layer: expected ndim=2, found ndim=3. Full shape received: (None, 3, 2)')
    P("spec = tf.keras.layers.InputSpec(dtype='float32', shape=(None, 4), axes={1: 4})")
    P("print(spec, spec.ndim, spec.min_ndim)")
    O("InputSpec(dtype=float32, shape=(None, 4), ndim=2, axes={1: 4}) 2 None")
    P("print(spec.get_config())")
    O("{'dtype': 'float32', 'shape': (None, 4), 'ndim': 2, 'max_ndim': None, 'min_ndim': None, 'axes': {1: 4}}")
    P("print(tf.keras.layers.InputSpec(min_ndim=2, max_ndim=4))")
    O("InputSpec(max_ndim=4, min_ndim=2)")
    errs.append(("tf.keras.layers.InputSpec(ndim=2, axes={2: 5})",
                 "ValueError: Axis 2 is greater than the maximum allowed value: 1"))
    errs.append(("tf.keras.layers.InputSpec(axes={'a': 1})",
                 "TypeError: Argument `axes` must be a dict with integer keys. Received: axes={'a': 1}"))
    emit_errors(P, O, errs)
    write("keras_spectral_norm", p, o)


main()
