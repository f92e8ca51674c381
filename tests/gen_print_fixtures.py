#!/usr/bin/python3
# gen_print_fixtures.py — writes tests/fixtures/print/numpy_str.txt: numpy 1.24 str() of many arrays, for test_print.c.
#
# Run with the system python3 and its numpy (1.24):  /usr/bin/python3 tests/gen_print_fixtures.py
# Each case is
#   case NAME
#   dtype float32|float64|int32|int64|bool|string
#   shape D0 D1 ...          (nothing after "shape" for 0-d)
#   view T                   (optional: build the tensor as the axis-reversed view of these values)
#   values V V ...           (C order; float32/float64 as hex bit patterns, ints decimal,
#                             bools 0/1, strings 'x' + hex of the bytes)
#   expect N                 then exactly N lines of numpy's str()
import os
import sys

import numpy as np

assert np.__version__.startswith('1.24'), np.__version__

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'print', 'numpy_str.txt')


def enc(a):
    a = np.ascontiguousarray(a)
    if a.dtype == np.float32:
        return ['%08x' % v for v in a.view(np.uint32).ravel()]
    if a.dtype == np.float64:
        return ['%016x' % v for v in a.view(np.uint64).ravel()]
    if a.dtype in (np.int32, np.int64):
        return [str(v) for v in a.ravel()]
    if a.dtype == np.bool_:
        return ['1' if v else '0' for v in a.ravel()]
    if a.dtype == object:
        return ['x' + v.hex() for v in a.ravel()]
    raise TypeError(a.dtype)


DTNAME = {np.dtype(np.float32): 'float32', np.dtype(np.float64): 'float64', np.dtype(np.int32): 'int32',
          np.dtype(np.int64): 'int64', np.dtype(np.bool_): 'bool', np.dtype(object): 'string'}

cases = []


def add(name, a, transpose=False):
    a = np.asarray(a)
    shown = a.T if transpose else a
    text = str(shown)
    cases.append((name, a, transpose, text))


def strings(lst, shape=None):
    a = np.empty(len(lst), dtype=object)
    for i, s in enumerate(lst):
        a[i] = s if isinstance(s, bytes) else s.encode()
    return a.reshape(shape) if shape is not None else a


f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64
rng = np.random.RandomState(1234)
nan, inf = np.nan, np.inf

# ---- 0-d: numpy prints the scalar's str()
for dt in (f32, f64):
    for v in [12.0, 0.1, 1.5, -2.25, 0.0, -0.0, 1e-5, 1e-4, 0.99999e-4, 1e15, 9999999999999998.0, 1e16, 1e17,
              1.0 / 3, 2.0 / 3, 123456789.0, 1e100 if dt == f64 else 1e30, 5e-324 if dt == f64 else 1e-45,
              nan, inf, -inf, 3.4028234663852886e38, 1e23, 0.3, 100.0, 1234.5678, -1e-7]:
        add('scalar_%s_%r' % (dt.__name__, v), np.array(v, dtype=dt))
for v in [0, 5, -7, 2**31 - 1, -2**31]:
    add('scalar_int32_%d' % v, np.array(v, dtype=i32))
for v in [0, 2**63 - 1, -2**63, 1234567890123]:
    add('scalar_int64_%d' % v, np.array(v, dtype=i64))
add('scalar_float32_big_integer', np.array(64796832.0, dtype=f32))
add('scalar_true', np.array(True))
add('scalar_false', np.array(False))
for s in [b'a', b'', b"it's", b'say "hi"', b'both \' and "', b'tab\tnl\nret\r', b'\x00\x01\x7f\x80\xff',
          b'back\\slash', 'héllo'.encode()]:
    add('scalar_string_%s' % s.hex(), np.array(s, dtype=object))

# ---- ints
add('int_small', np.array([1, 2, 3], dtype=i32))
add('int_neg', np.array([-1, 10, -100, 5], dtype=i32))
add('int_2d', np.array([[1, 2], [3, 4]], dtype=i32))
add('int_widths', np.array([[1, -22, 333], [4444, 5, -66666]], dtype=i64))
add('int32_extremes', np.array([2**31 - 1, -2**31, 0], dtype=i32))
add('int64_extremes', np.array([2**63 - 1, -2**63, 0, 1], dtype=i64))
add('int_single', np.array([7], dtype=i32))
add('int_1x1', np.array([[7]], dtype=i64))
add('int_1x1x1', np.array([[[7]]], dtype=i32))
add('int_3x1', np.array([[1], [2], [3]], dtype=i32))
add('int_3d', np.arange(24, dtype=i32).reshape(2, 3, 4))
add('int_4d', np.arange(36, dtype=i64).reshape(2, 3, 2, 3) - 10)
add('int_5d', np.arange(32, dtype=i32).reshape(2, 2, 2, 2, 2))
add('int_long_row', np.arange(100, dtype=i32))
add('int_long_row_big', np.arange(60, dtype=i64) * 123456789)
add('int_wrap_negative', np.arange(-40, 40, 3, dtype=i64) * 99)
add('int_wrap_exact', np.arange(37, dtype=i32))   # fills a line to the edge
for n in range(20, 30):
    add('int_wrap_%d' % n, np.arange(n, dtype=i64) * 1000)
add('int_2d_long_rows', np.arange(120, dtype=i32).reshape(3, 40))
add('int_3d_long_rows', np.arange(160, dtype=i64).reshape(2, 2, 40) * 7)
add('int_summary_1001', np.arange(1001, dtype=i32))
add('int_summary_1000_nosum', np.arange(1000, dtype=i32))
add('int_summary_2d', np.arange(2500, dtype=i64).reshape(50, 50))
add('int_summary_3d', np.arange(1320, dtype=i32).reshape(11, 10, 12))
add('int_summary_4d', np.arange(2401, dtype=i32).reshape(7, 7, 7, 7))
add('int_summary_rows_only', np.arange(1200, dtype=i32).reshape(400, 3))
add('int_summary_cols_only', np.arange(1200, dtype=i32).reshape(3, 400))
add('int_summary_1x1001', np.arange(1001, dtype=i32).reshape(1, 1001))
add('int_summary_1001x1', np.arange(1001, dtype=i32).reshape(1001, 1))
add('int_summary_hidden_wide', np.concatenate([np.arange(3), [10**12], np.arange(1000)]).astype(i64))
add('int_summary_big_values', (np.arange(2000, dtype=i64) - 1000) * 10**15)
add('int_transposed', np.arange(12, dtype=i32).reshape(3, 4), transpose=True)
add('int_transposed_3d', np.arange(24, dtype=i64).reshape(2, 3, 4), transpose=True)
add('int_transposed_summary', np.arange(3000, dtype=i32).reshape(30, 100), transpose=True)

# ---- floats: positional
for dt in (f32, f64):
    n = dt.__name__
    add(n + '_1x1', np.array([[12.0]], dtype=dt))
    add(n + '_integral', np.array([4.0, 4.0], dtype=dt))
    add(n + '_mixed', np.array([1.5, -2.25, 3.0], dtype=dt))
    add(n + '_tenth', np.array([0.1, 0.2, 0.3], dtype=dt))
    add(n + '_thirds', np.array([1 / 3, 2 / 3, 1.0], dtype=dt))
    add(n + '_arange_1_1', np.arange(30, dtype=dt) * dt(1.1))
    add(n + '_zeros', np.zeros(5, dtype=dt))
    add(n + '_negzero', np.array([-0.0, 0.0, 1.0], dtype=dt))
    add(n + '_negzero_only', np.array([-0.0], dtype=dt))
    add(n + '_2d', np.array([[1.0, 2.5], [-3.0, 4.125]], dtype=dt))
    add(n + '_3d', (np.arange(24, dtype=dt) / dt(4)).reshape(2, 3, 4))
    add(n + '_4d', (np.arange(16, dtype=dt) - dt(7.5)).reshape(2, 2, 2, 2))
    add(n + '_round8', np.array([0.123456789, 1.000000005, 0.999999999, 123456.78901234], dtype=dt))
    add(n + '_ties', np.array([2.0**-9, 3 * 2.0**-9, 0.1, 5 * 2.0**-10], dtype=dt))
    add(n + '_min_1e-4', np.array([1e-4, 0.05], dtype=dt))
    add(n + '_below_1e-4', np.array([np.nextafter(dt(1e-4), dt(0)), 0.05], dtype=dt))
    add(n + '_max_below_1e8', np.array([99999999.0, 1e5], dtype=dt))
    add(n + '_max_1e8', np.array([1e8, 1e5], dtype=dt))
    add(n + '_ratio_1000', np.array([1.0, 1000.0], dtype=dt))
    add(n + '_ratio_above', np.array([1.0, np.nextafter(dt(1000.0), dt(2000))], dtype=dt))
    add(n + '_ratio_small', np.array([0.001, 1.0], dtype=dt))
    add(n + '_ratio_small_above', np.array([np.nextafter(dt(0.001), dt(0)), 1.0], dtype=dt))
    add(n + '_ratio_zero_ignored', np.array([0.0, 1.0, 1000.0], dtype=dt))
    add(n + '_random_normal', rng.standard_normal(40).astype(dt))
    add(n + '_random_2d', (rng.standard_normal((6, 7)) * 10).astype(dt))
    add(n + '_random_uniform', rng.uniform(0, 1, 25).astype(dt))
    add(n + '_random_big', (rng.uniform(0, 1, 12) * 1e5).astype(dt))
    add(n + '_long_row', np.linspace(0, 1, 50).astype(dt))
    add(n + '_wrap_2d', np.linspace(-5, 5, 60).astype(dt).reshape(3, 20))
    add(n + '_transposed', np.linspace(-5, 5, 12).astype(dt).reshape(3, 4), transpose=True)
    # ---- scientific
    add(n + '_sci_small', np.array([1e-5, 1.0], dtype=dt))
    add(n + '_sci_1e-5_only', np.array([1e-5], dtype=dt))
    add(n + '_sci_mixed', np.array([1.5e10, 1e-5, -3.25], dtype=dt))
    add(n + '_sci_zero', np.array([0.0, 1e-5], dtype=dt))
    add(n + '_sci_big', np.array([1e8, 1.0], dtype=dt))
    add(n + '_sci_random', (rng.standard_normal(20) * 10.0 ** rng.randint(-8, 9, 20)).astype(dt))
    add(n + '_sci_round9', np.array([1.23456789012e-7, 9.999999999e10, 1.0], dtype=dt))
    add(n + '_sci_ratio', np.array([1.0, 1001.0], dtype=dt))
    add(n + '_sci_negzero', np.array([-0.0, 1e9], dtype=dt))
    add(n + '_sci_2d', np.array([[1e-6, 2e-6], [3e9, -4.5e12]], dtype=dt))
    # ---- non-finite
    add(n + '_nan', np.array([nan], dtype=dt))
    add(n + '_inf', np.array([inf, 1.0], dtype=dt))
    add(n + '_nan_inf', np.array([nan, inf], dtype=dt))
    add(n + '_nan_neginf', np.array([nan, -inf], dtype=dt))
    add(n + '_nan_mixed', np.array([nan, 1.5, -inf], dtype=dt))
    add(n + '_nan_wide', np.array([nan, 1.25, 100.5], dtype=dt))
    add(n + '_nan_sci', np.array([1e-5, nan], dtype=dt))
    add(n + '_neginf_sci', np.array([1e-5, -inf, 3e20], dtype=dt))
    add(n + '_nan_zero', np.array([nan, 0.0], dtype=dt))
    add(n + '_nonfinite_2d', np.array([[nan, inf], [-inf, 2.0]], dtype=dt))
    # ---- summaries
    add(n + '_summary_1001', (np.arange(1001) * 0.5).astype(dt))
    add(n + '_summary_2d', rng.standard_normal((40, 40)).astype(dt))
    add(n + '_summary_3d', rng.uniform(-1, 1, (12, 10, 11)).astype(dt))
    add(n + '_summary_hidden_big', np.concatenate([[1.0, 2.0, 3.0, 1e20], np.arange(1000.0)]).astype(dt))
    add(n + '_summary_sci', (rng.standard_normal(1500) * 1e-6).astype(dt))
    add(n + '_summary_wide_rows', rng.standard_normal((3, 500)).astype(dt))

add('float64_huge', np.array([1e300, -1e-300, 1.0]))
add('float64_exp3', np.array([1e100, 1e-5]))
add('float64_tiny_denorm', np.array([5e-324, 1.0]))
add('float32_denorm', np.array([1e-45, 1.0], dtype=f32))
add('float32_max', np.array([3.4028234663852886e38, -1.0], dtype=f32))
add('float64_1e23', np.array([1e23, 1e22]))
add('float32_vs_64_digits', np.array([0.1, 0.7, 16777217.0], dtype=f32))
add('float64_long_digits', np.array([0.1 + 0.2, 1.0 / 7]))
add('float64_cut_to_1', np.array([0.999999999, 1.5]))
add('float32_big_integers', np.array([64796832.0, 16777217.0, 99999992.0, 15000001.0, 0.5], dtype=f32))
add('float32_big_integers_2', np.array([64796832.0, 33554436.0], dtype=f32))
add('float_all_nan', np.array([nan, nan]))
add('float_infs', np.array([inf, -inf], dtype=f32))
add('float_summary_hidden_nan', np.concatenate([[1.0, 2.0, 3.0, nan, -inf], np.arange(1000.0)]))
add('float_summary_2d_sci', np.outer(10.0 ** np.arange(-10, 10), np.arange(1, 61)).astype(f32))
add('float32_wrap_sci', (np.arange(1, 40) * 1.1e-5).astype(f32))

# ---- bools
add('bool_pair', np.array([True, False]))
add('bool_all_true', np.array([True, True]))
add('bool_all_false', np.array([False, False, False]))
add('bool_2d', np.array([[True, False], [False, True]]))
add('bool_long', rng.uniform(size=40) > 0.5)
add('bool_3d', (np.arange(12).reshape(2, 3, 2) % 3) == 0)
add('bool_summary', (np.arange(2000) % 3) == 0)
add('bool_summary_2d', (np.arange(1200).reshape(4, 300) % 7) == 0)
add('bool_transposed', (np.arange(6).reshape(2, 3) % 2) == 0, transpose=True)

# ---- strings (TF's .numpy() of a string tensor is an object array of bytes)
add('string_pair', strings(['a', 'bc']))
add('string_2d', strings(['a', 'bb', 'ccc', ''], (2, 2)))
add('string_quotes', strings([b"it's", b'say "hi"', b'both \' "', b'\t\n\x00\xff\\']))
add('string_long', strings(['word%d' % i for i in range(30)]))
add('string_overlong', strings(['x' * 80, 'y', 'z' * 100, 'w']))
add('string_utf8', strings(['héllo', 'мир']))
add('string_summary', strings(['s%d' % i for i in range(1500)]))
add('string_3d', strings(['%c' % (97 + i) for i in range(8)], (2, 2, 2)))

# ---- empty
for dt in (f32, f64, i32, i64, np.bool_):
    for shape in [(0,), (2, 0), (0, 3), (2, 0, 3)]:
        add('empty_%s_%s' % (np.dtype(dt).name, 'x'.join(map(str, shape))), np.zeros(shape, dtype=dt))
add('empty_string', strings([]))

seen = set()
with open(OUT, 'w') as out:
    out.write('# numpy %s str() fixtures, generated by tests/gen_print_fixtures.py; do not edit.\n' % np.__version__)
    for name, a, transpose, text in cases:
        assert name not in seen, name
        seen.add(name)
        lines = text.split('\n')
        out.write('case %s\n' % name)
        out.write('dtype %s\n' % DTNAME[a.dtype])
        out.write('shape%s\n' % ''.join(' %d' % d for d in a.shape))
        if transpose:
            out.write('view T\n')
        out.write('values%s\n' % ''.join(' ' + v for v in enc(a)))
        out.write('expect %d\n' % len(lines))
        for line in lines:
            out.write(line + '\n')
print('%d cases -> %s' % (len(cases), OUT), file=sys.stderr)
