#!/usr/bin/python3
# gen_tffn_random_expect.py — writes tests/programs/tffn_random.tfs and .out: random ops and initializers inside a tf.function.
"""Statistics and determinism of TF's random ops when they run inside a @tf.function (issue 31, audit GAPS B/C).

    /usr/bin/python3 tests/gen_tffn_random_expect.py

No random value is predicted.  The .tfs draws n = 40000 numbers inside a tf.function and compares their sample
mean and standard deviation with bounds this script derives from each distribution (numpy, float64):
- mean within 5 standard errors: 5 * sigma / sqrt(n);
- standard deviation within 5 standard errors of the sample std, by the delta method:
  5 * sqrt((mu4 - sigma^4) / n) / (2 * sigma), where mu4 is the distribution's fourth central moment;
  a false "False" therefore has probability below 1e-6 per check.
Moments used: normal(mu, s): mu4 = 3 s^4; uniform[a, b): var (b-a)^2/12, mu4 (b-a)^4/80; normal truncated at
+-2 sigma (TF's truncated_normal): variance and mu4 integrated numerically on a fine grid; integer uniform [0, 10):
exact sums; gamma(alpha, beta): mean alpha/beta, var alpha/beta^2, mu4 3 alpha (alpha + 2)/beta^4; poisson(lam):
mean = var = lam, mu4 = lam (1 + 3 lam); categorical class frequencies within 5 sqrt(p (1-p) / n).
Keras 2.15 initializers (keras/initializers/initializers.py): Glorot* are VarianceScaling(1, fan_avg), He* (2,
fan_in), Lecun* (1, fan_in); the *Normal ones draw a truncated normal of stddev sqrt(scale / fan) / .87962566103423978
(cut at 2 of those stddevs), the *Uniform ones a uniform of limit sqrt(3 scale / fan).
Determinism: a Generator's draws depend only on its state (two from_seed(7) generators agree, whether the draw is
eager or traced); stateless ops give the same values eagerly and in a tf.function for the same seed; a generator
split outside the function gives children whose streams differ.
"""
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = 40000
TRUNC_K = 0.87962566103423978  # Keras' stddev of a unit normal truncated at +-2


def trunc_moments():
    x = np.linspace(-2.0, 2.0, 400001)
    w = np.exp(-x * x / 2)
    w /= np.trapz(w, x)
    var = np.trapz(w * x * x, x)
    mu4 = np.trapz(w * x ** 4, x)
    return var, mu4


TV, TM4 = trunc_moments()


def bounds(mean, var, mu4):
    sd = math.sqrt(var)
    return mean, sd, 5 * sd / math.sqrt(N), 5 * math.sqrt((mu4 - var * var) / N) / (2 * sd)


def normal(mu, s):
    return bounds(mu, s * s, 3 * s ** 4)


def uniform(a, b):
    return bounds((a + b) / 2, (b - a) ** 2 / 12, (b - a) ** 4 / 80)


def truncated(mu, s):
    return bounds(mu, s * s * TV, s ** 4 * TM4)


def int_uniform(lo, hi):
    v = np.arange(lo, hi, dtype=np.float64)
    m = v.mean()
    return bounds(m, ((v - m) ** 2).mean(), ((v - m) ** 4).mean())


def gamma(alpha, beta):
    return bounds(alpha / beta, alpha / beta ** 2, 3 * alpha * (alpha + 2) / beta ** 4)


def poisson(lam):
    return bounds(lam, lam, lam * (1 + 3 * lam))


CASES = []  # (label, expression in the .tfs, dtype, shape, (mean, sd, mtol, stol), (lo, hi) or None)


def case(label, expr, dtype, shape, b, rng=None):
    CASES.append((label, expr, dtype, shape, b, rng))


case("generator normal", "s1.normal([N])", "float32", [N], normal(0.0, 1.0))
case("generator normal mean stddev", "s1.normal([N], mean=2.0, stddev=3.0, dtype=tf.float64)", "float64", [N], normal(2.0, 3.0))
case("generator uniform", "s2.uniform([N], -1.0, 3.0)", "float32", [N], uniform(-1.0, 3.0), (-1.0, 3.0))
case("generator truncated_normal", "s2.truncated_normal([N], stddev=0.5)", "float32", [N], truncated(0.0, 0.5), (-1.0, 1.0))
case("generator uniform int", "s2.uniform([N], 0, 10, dtype=tf.int32)", "int32", [N], int_uniform(0, 10), (0, 9))
case("nondeterministic uniform", "gn.uniform([N], -1.0, 3.0)", "float32", [N], uniform(-1.0, 3.0), (-1.0, 3.0))
case("nondeterministic normal", "gn.normal([N])", "float32", [N], normal(0.0, 1.0))
case("stateless_uniform", "tf.random.stateless_uniform([N], seed)", "float32", [N], uniform(0.0, 1.0), (0.0, 1.0))
case("stateless_normal", "tf.random.stateless_normal([N], seed, mean=1.0, stddev=2.0)", "float32", [N], normal(1.0, 2.0))
case("stateless_truncated_normal", "tf.random.stateless_truncated_normal([N], seed)", "float32", [N], truncated(0.0, 1.0), (-2.0, 2.0))
case("gamma", "tf.random.gamma([N], 2.5, beta=2.0)", "float32", [N], gamma(2.5, 2.0), (0.0, None))
case("poisson", "tf.random.poisson([N], 3.5)", "float32", [N], poisson(3.5), (0.0, None))
case("random_normal_initializer", "rn([N])", "float32", [N], normal(1.0, 0.5))
case("random_uniform_initializer", "ru([N])", "float32", [N], uniform(-2.0, 2.0), (-2.0, 2.0))
for name, scale, fan, kind in [("GlorotUniform", 1.0, 250.0, "u"), ("GlorotNormal", 1.0, 250.0, "n"),
                               ("HeNormal", 2.0, 200.0, "n"), ("HeUniform", 2.0, 200.0, "u"),
                               ("LecunNormal", 1.0, 200.0, "n"), ("LecunUniform", 1.0, 200.0, "u")]:
    if kind == "u":
        lim = math.sqrt(3 * scale / fan)
        b, r = uniform(-lim, lim), (-lim, lim)
    else:
        s = math.sqrt(scale / fan) / TRUNC_K
        b, r = truncated(0.0, s), (-2 * s, 2 * s)
    n = 200 * 300
    # 200 x 300 weights: the standard errors use n = 60000 draws
    b = (b[0], b[1], b[2] * math.sqrt(N / n), b[3] * math.sqrt(N / n))
    case("keras " + name, "tf.keras.initializers.%s(seed=%d)([200, 300])" % (name, len(CASES)), "float32", [200, 300], b, r)
case("keras TruncatedNormal", "tf.keras.initializers.TruncatedNormal(0.0, 0.5, seed=3)([N])", "float32", [N], truncated(0.0, 0.5), (-1.0, 1.0))
case("keras RandomNormal", "tf.keras.initializers.RandomNormal(1.0, 2.0, seed=4)([N])", "float32", [N], normal(1.0, 2.0))
case("keras RandomUniform", "tf.keras.initializers.RandomUniform(-1.0, 1.0, seed=5)([N])", "float32", [N], uniform(-1.0, 1.0), (-1.0, 1.0))

CAT_P = [0.2, 0.3, 0.5]


def fmt(v):
    return repr(float(v))


def write():
    t = []
    w = t.append
    w("# tffn_random.tfs — tf.random.Generator, stateless/stateful random ops and initializers run inside a tf.function")
    w("# generated by tests/gen_tffn_random_expect.py: statistics (bounds derived there) and determinism only")
    w("import tensorflow as tf")
    w("")
    w("N = %d" % N)
    w("")
    w("")
    w("def same(a, b):")
    w("    return bool(tf.reduce_all(tf.equal(a, b)))")
    w("")
    w("")
    w("def stats(label, t, mean, sd, mtol, stol, lo, hi):")
    w("    x = tf.cast(t, tf.float64)")
    w("    m = float(tf.reduce_mean(x))")
    w("    s = float(tf.math.reduce_std(x))")
    w("    inside = (lo is None or float(tf.reduce_min(x)) >= lo) and (hi is None or float(tf.reduce_max(x)) <= hi)")
    w("    print(label, t.dtype.name, t.shape.as_list(), abs(m - mean) < mtol, abs(s - sd) < stol, inside)")
    w("")
    w("")
    w("# determinism: a Generator's stream depends only on its state, traced or eager")
    w("ga = tf.random.Generator.from_seed(7)")
    w("gb = tf.random.Generator.from_seed(7)")
    w("fa = tf.function(lambda: ga.normal([5]))")
    w("x1 = fa()")
    w("x2 = fa()")
    w('print("traced draw = eager draw", same(x1, gb.normal([5])), same(x2, gb.normal([5])), "advances", not same(x1, x2))')
    w("s1, s2 = ga.split(2)")
    w("t1, t2 = gb.split(2)  # gb drew as often as ga: same state, same children")
    w("pair = tf.function(lambda: (s1.normal([6]), s2.normal([6])))")
    w("p1, p2 = pair()")
    w('print("split children differ", not same(p1, p2), "and repeat", same(p1, t1.normal([6])), same(p2, t2.normal([6])))')
    w("gn = tf.random.Generator.from_non_deterministic_state()")
    w("fn = tf.function(lambda: gn.uniform([4]))")
    w('print("nondeterministic advances", not same(fn(), fn()))')
    w("")
    w("")
    w("@tf.function")
    w("def stateless(seed):")
    w("    return (tf.random.stateless_uniform([7], seed), tf.random.stateless_normal([7], seed, mean=1.0, stddev=2.0),")
    w("            tf.random.stateless_truncated_normal([7], seed), tf.random.stateless_categorical(tf.math.log([%s]), 7, seed))" % CAT_P)
    w("")
    w("")
    w("sd = stateless(tf.constant([3, 4]))")
    w("se = (tf.random.stateless_uniform([7], [3, 4]), tf.random.stateless_normal([7], [3, 4], mean=1.0, stddev=2.0),")
    w("      tf.random.stateless_truncated_normal([7], [3, 4]), tf.random.stateless_categorical(tf.math.log([%s]), 7, [3, 4]))" % CAT_P)
    w('print("stateless traced = eager", [same(a, b) for a, b in zip(sd, se)], "seed matters", not same(sd[0], stateless(tf.constant([4, 3]))[0]))')
    w("rn = tf.random_normal_initializer(1.0, 0.5, seed=3)")
    w("ru = tf.random_uniform_initializer(-2.0, 2.0)")
    w("")
    w("")
    w("@tf.function")
    w("def draws(seed):")
    w("    return (" + ",\n            ".join(c[1] for c in CASES) + ")")
    w("")
    w("")
    w("out = draws(tf.constant([1, 2]))")
    for i, (label, expr, dtype, shape, b, rng) in enumerate(CASES):
        lo, hi = rng if rng else (None, None)
        w("stats(%r, out[%d], %s, %s, %s, %s, %r, %r)" % (label, i, fmt(b[0]), fmt(b[1]), fmt(b[2]), fmt(b[3]), lo, hi))
    w("")
    w("")
    w("@tf.function")
    w("def others():")
    w("    return (tf.random.categorical(tf.math.log([%s]), N), tf.random.shuffle(tf.range(100)), tf.zeros_initializer()([2])," % CAT_P)
    w("            tf.ones_initializer()([2], tf.int32), tf.constant_initializer([1, 2, 3, 4])([2, 2]), tf.keras.initializers.Zeros()([2]),")
    w("            tf.keras.initializers.Ones()([2]), tf.keras.initializers.Constant(3.0)([2]))")
    w("")
    w("")
    w("o = others()")
    w("freq = [float(tf.reduce_mean(tf.cast(o[0] == k, tf.float64))) for k in range(3)]")
    tols = [5 * math.sqrt(p * (1 - p) / N) for p in CAT_P]
    w('print("categorical", o[0].dtype.name, o[0].shape.as_list(), [abs(f - p) < t for f, p, t in zip(freq, %s, %s)])' % (CAT_P, [round(x, 6) for x in tols]))
    w('print("shuffle is a permutation", same(tf.sort(o[1]), tf.range(100)), "moved", not same(o[1], tf.range(100)))')
    w("print([x.numpy().tolist() for x in o[2:]])")
    (open(os.path.join(HERE, "programs", "tffn_random.tfs"), "w")).write("\n".join(t) + "\n")

    o = []
    o.append("traced draw = eager draw True True advances True")
    o.append("split children differ True and repeat True True")
    o.append("nondeterministic advances True")
    o.append("stateless traced = eager [True, True, True, True] seed matters True")
    for label, expr, dtype, shape, b, rng in CASES:
        o.append("%s %s %s True True True" % (label, dtype, shape))
    o.append("categorical int64 [1, %d] [True, True, True]" % N)
    o.append("shuffle is a permutation True moved True")
    vals = [np.zeros(2, np.float32).tolist(), np.ones(2, np.int32).tolist(), np.array([[1, 2], [3, 4]], np.float32).tolist(),
            np.zeros(2, np.float32).tolist(), np.ones(2, np.float32).tolist(), np.full(2, 3.0, np.float32).tolist()]
    o.append(str(vals))
    open(os.path.join(HERE, "programs", "tffn_random.out"), "w").write("\n".join(o) + "\n")


write()
