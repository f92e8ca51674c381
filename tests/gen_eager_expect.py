#!/usr/bin/python3
# gen_eager_expect.py — writes the expected stdout of tests/programs/eager_*.tfs by running each program as Python 3 with a numpy model of the `tf` module.
"""Independent reference for the eager golden programs (run with /usr/bin/python3 and its numpy 1.24).

    /usr/bin/python3 tests/gen_eager_expect.py [NAME ...]     # default: every eager_*.tfs

A .tfs program that only uses host code is valid Python; the tf module is
modelled here on numpy following docs/reference/tf-notes.md and TensorFlow 2
(TF is not installed): tensors print as `tf.Tensor(<numpy str>, shape=..., dtype=...)`,
host values convert by the contract's rules (int -> int32, float -> float32,
a host value meeting a tensor takes its dtype), integer `/` gives float64,
`//` and `%` floor, integer mean truncates, tf.print formats as TF's
SummarizeValue (docs/printing.md).  Float32 transcendental functions (but Tanh and Sigmoid: TF's Eigen
formulas, tests/eigen_float.py) are
computed in float64 and rounded once; reductions and softmax follow TF's
float32 order of operations where it matters.

Programs with a NAME.status file are error programs: their stdout up to the
error is written to NAME.out; NAME.err is written by hand (the message text is
TF's / the contract's, checked by reading it, not generated here).
Random ops are modelled only as far as their properties (shape, dtype, range,
reproducibility under a seed) are concerned: programs print only those.
"""
import builtins
import contextlib
import io
import math
import os
import sys
import time as _time
import types
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eigen_float  # noqa: E402

assert np.__version__.startswith('1.24'), np.__version__
warnings.filterwarnings('ignore')
np.seterr(all='ignore')

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, 'programs')


# ---- errors ---------------------------------------------------------------------------

class InvalidArgumentError(Exception):
    pass


# ---- dtypes ------------------------------------------------------------------------------

class DType:
    def __init__(self, name, np_type, short):
        self.name, self.np, self.short = name, np_type, short

    def __str__(self):
        return "<dtype: '%s'>" % self.name

    def __repr__(self):
        return 'tf.' + self.name

    @property
    def is_floating(self):
        return self.name in ('float32', 'float64')

    @property
    def is_integer(self):
        return self.name in ('int32', 'int64')

    @property
    def is_bool(self):
        return self.name == 'bool'

    @property
    def as_numpy_dtype(self):
        return self.np

    @property
    def min(self):
        return np.finfo(self.np).min if self.is_floating else np.iinfo(self.np).min

    @property
    def max(self):
        return np.finfo(self.np).max if self.is_floating else np.iinfo(self.np).max


float32 = DType('float32', np.float32, 'float')
float64 = DType('float64', np.float64, 'double')
int32 = DType('int32', np.int32, 'int32')
int64 = DType('int64', np.int64, 'int64')
bool_ = DType('bool', np.bool_, 'bool')
string = DType('string', object, 'string')
ALL_DTYPES = [float32, float64, int32, int64, bool_, string]


def dtype_of_np(d):
    d = np.dtype(d)
    for t in ALL_DTYPES:
        if np.dtype(t.np) == d:
            return t
    if d.kind in 'SU':
        return string
    raise TypeError('unsupported numpy dtype %s' % d)


def as_dtype(d):
    if isinstance(d, DType):
        return d
    if d is float:
        return float32
    if d is int:
        return int32
    if d is bool:
        return bool_
    if isinstance(d, str):
        for t in ALL_DTYPES:
            if t.name == d:
                return t
    raise TypeError('Cannot convert the argument `type_value`: %r to a TensorFlow DType.' % (d,))


# ---- TensorShape -----------------------------------------------------------------------------

class TensorShape:
    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
        if dims is None:
            self.dims = None
        elif isinstance(dims, (int, np.integer)):
            self.dims = [int(dims)]
        else:
            self.dims = [None if d is None else int(d) for d in dims]

    def __str__(self):
        if self.dims is None:
            return '<unknown>'
        if len(self.dims) == 1:
            return '(%s,)' % self.dims[0]
        return '(%s)' % ', '.join(str(d) for d in self.dims)

    def __repr__(self):
        if self.dims is None:
            return 'TensorShape(None)'
        return 'TensorShape(%s)' % self.dims

    def __len__(self):
        return len(self.dims)

    def __iter__(self):
        return iter(self.dims)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return TensorShape(self.dims[k])
        return self.dims[k]

    def __eq__(self, other):
        try:
            other = TensorShape(other)
        except TypeError:
            return NotImplemented
        return self.dims == other.dims

    def as_list(self):
        return list(self.dims)

    @property
    def rank(self):
        return None if self.dims is None else len(self.dims)

    ndims = rank

    def num_elements(self):
        if self.dims is None or None in self.dims:
            return None
        return int(np.prod(self.dims, dtype=np.int64))

    def is_fully_defined(self):
        return self.dims is not None and None not in self.dims


# ---- conversion of host values -------------------------------------------------------------

def _shape_leaves(v):
    if isinstance(v, range):
        v = list(v)
    if isinstance(v, (list, tuple)):
        if not v:
            return (0,), []
        subs = [_shape_leaves(x) for x in v]
        shape = subs[0][0]
        if any(s != shape for s, _ in subs):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        leaves = []
        for _, l in subs:
            leaves.extend(l)
        return (len(v),) + shape, leaves
    if isinstance(v, (Tensor, Variable)):
        t = _tensor(v)
        return t.a.shape, [x for x in t.a.reshape(-1)]
    return (), [v]


def _leaf_dtype(x):
    if isinstance(x, (bool, np.bool_)):
        return bool_
    if isinstance(x, (int, np.integer)):
        return int64 if isinstance(x, np.int64) else int32
    if isinstance(x, (float, np.floating)):
        return float64 if isinstance(x, np.float64) else float32
    if isinstance(x, (str, bytes)):
        return string
    raise TypeError('Failed to convert elements of %r to Tensor.' % (x,))


def _cannot(v, dt):
    return TypeError('Cannot convert %r to EagerTensor of dtype %s' % (v, dt.name))


def convert(v, dtype=None):
    """convert_to_tensor: a Tensor (dtype checked) or a host value by the default / requested dtype."""
    if isinstance(v, Variable):
        v = v.value()
    if isinstance(v, Tensor):
        if dtype is not None and v.dtype is not dtype:
            raise InvalidArgumentError('cannot convert a %s tensor to %s' % (v.dtype.name, dtype.name))
        return v
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        a = np.asarray(v)
        dt = dtype_of_np(a.dtype)
        if dtype is not None and dtype is not dt:
            a = a.astype(dtype.np)
            dt = dtype
        return Tensor(a.copy(), dt)
    shape, leaves = _shape_leaves(v)
    if dtype is None:
        kinds = [_leaf_dtype(x) for x in leaves]
        if not kinds:
            dtype = float32
        elif all(k is bool_ for k in kinds):
            dtype = bool_
        elif all(k is string for k in kinds):
            dtype = string
        elif any(k is string for k in kinds):
            raise TypeError('Failed to convert elements of %r to Tensor.' % (v,))
        elif any(k.is_floating for k in kinds):
            dtype = float64 if any(k is float64 for k in kinds) else float32
        else:
            big = any(not (-2**31 <= int(x) < 2**31) for x in leaves)
            dtype = int64 if big or any(k is int64 for k in kinds) else int32
    out = []
    for x in leaves:
        if dtype is string:
            if not isinstance(x, (str, bytes)):
                raise _cannot(v, dtype)
            out.append(x.encode() if isinstance(x, str) else bytes(x))
        elif dtype is bool_:
            if not isinstance(x, (bool, np.bool_)):
                raise _cannot(v, dtype)
            out.append(bool(x))
        elif dtype.is_integer:
            if isinstance(x, (float, np.floating, str, bytes)):
                raise _cannot(v, dtype)
            out.append(int(x))
        else:
            if isinstance(x, (str, bytes)):
                raise _cannot(v, dtype)
            out.append(float(x))
    if dtype is string:
        a = np.empty(len(out), dtype=object)
        for i, x in enumerate(out):
            a[i] = x
        a = a.reshape(shape)
    else:
        a = np.array(out, dtype=dtype.np).reshape(shape)
    return Tensor(a, dtype)


def _tensor(v):
    if isinstance(v, Variable):
        return v.value()
    return v


def _is_tensor(v):
    return isinstance(v, (Tensor, Variable))


def _group(opname, *vals):
    """Inputs of one dtype group: tensors fix the dtype, host values convert to it
    (the first host value by the default rules when there is no tensor)."""
    dt = None
    for v in vals:
        if _is_tensor(v):
            dt = _tensor(v).dtype
            break
    out = []
    for v in vals:
        if _is_tensor(v):
            out.append(_tensor(v))
        else:
            t = convert(v, dt)
            dt = dt or t.dtype
            out.append(t)
    for i, t in enumerate(out):
        if t.dtype is not dt:
            raise InvalidArgumentError(
                'cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor'
                % (opname, i, dt.short, t.dtype.short))
    return out


def _shape_text(s):
    return '[%s]' % ','.join(str(d) for d in s)


def _bcast(opname, *ts):
    shapes = [t.a.shape for t in ts]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise InvalidArgumentError('Incompatible shapes: %s vs. %s' % (_shape_text(shapes[0]), _shape_text(shapes[1])))


# ---- numpy printing as TF wraps it ---------------------------------------------------------------

def _np_value(t):
    """What Tensor.numpy() returns: an ndarray, or a numpy scalar (bytes for strings) for 0-d."""
    if t.a.ndim == 0:
        return t.a[()]
    return t.a.copy()


def _np_text(t, is_repr=False):
    v = _np_value(t)
    text = repr(v) if is_repr else str(v)
    if '\n' in text:
        text = '\n' + text
    return text


def _elem_array(a, key):
    """a[key] as an array (numpy gives a bare element for a full index into an object array)."""
    r = a[key]
    return r.copy() if isinstance(r, np.ndarray) else np.array(r, dtype=a.dtype)


class Tensor:
    __array_priority__ = 100

    def __init__(self, a, dtype=None):
        a = np.asarray(a)
        if dtype is None:
            dtype = dtype_of_np(a.dtype)
        if dtype is string and a.dtype != object:
            b = np.empty(a.shape, dtype=object)
            for i, x in np.ndenumerate(a):
                b[i] = x
            a = b
        elif dtype is not string:
            a = a.astype(dtype.np, copy=False)
        self.a = a
        self.dtype = dtype

    # attributes
    @property
    def shape(self):
        return TensorShape(self.a.shape)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.a.ndim

    def numpy(self):
        return _np_value(self)

    def __str__(self):
        return 'tf.Tensor(%s, shape=%s, dtype=%s)' % (_np_text(self), self.shape, self.dtype.name)

    def __repr__(self):
        return '<tf.Tensor: shape=%s, dtype=%s, numpy=%s>' % (self.shape, self.dtype.name, _np_text(self, True))

    def __format__(self, spec):
        if self.a.ndim == 0 and spec:
            return format(self.a[()], spec)
        return format(str(self), spec)

    # Python protocols
    def __bool__(self):
        if self.a.size != 1:
            raise ValueError('The truth value of an array with more than one element is ambiguous. '
                             'Use a.any() or a.all()')
        return bool(self.a.reshape(-1)[0])

    def __len__(self):
        if self.a.ndim == 0:
            raise TypeError('len() of unsized object')
        return self.a.shape[0]

    def __iter__(self):
        if self.a.ndim == 0:
            raise TypeError('Cannot iterate over a scalar tensor.')
        return iter([Tensor(_elem_array(self.a, i), self.dtype) for i in range(self.a.shape[0])])

    def __int__(self):
        return int(self.a.reshape(-1)[0])

    def __index__(self):
        if not self.dtype.is_integer or self.a.ndim != 0:
            raise TypeError('only integer scalar tensors can be converted to a scalar index')
        return int(self.a[()])

    def __float__(self):
        return float(self.a.reshape(-1)[0])

    def __getitem__(self, key):
        return _strided_slice(self, key)

    __hash__ = None

    # operators
    def __add__(self, o): return add(self, o)
    def __radd__(self, o): return add(o, self)
    def __sub__(self, o): return subtract(self, o)
    def __rsub__(self, o): return subtract(o, self)
    def __mul__(self, o): return multiply(self, o)
    def __rmul__(self, o): return multiply(o, self)
    def __truediv__(self, o): return divide(self, o)
    def __rtruediv__(self, o): return divide(o, self)
    def __floordiv__(self, o): return floordiv(self, o)
    def __rfloordiv__(self, o): return floordiv(o, self)
    def __mod__(self, o): return mod(self, o)
    def __rmod__(self, o): return mod(o, self)
    def __pow__(self, o): return pow_(self, o)
    def __rpow__(self, o): return pow_(o, self)
    def __matmul__(self, o): return matmul(self, o)
    def __rmatmul__(self, o): return matmul(o, self)
    def __neg__(self): return negative(self)
    def __pos__(self): return self
    def __abs__(self): return abs_(self)
    def __invert__(self): return logical_not(self)
    def __and__(self, o): return logical_and(self, o)
    def __rand__(self, o): return logical_and(o, self)
    def __or__(self, o): return logical_or(self, o)
    def __ror__(self, o): return logical_or(o, self)
    def __xor__(self, o): return _binary('LogicalXor', self, o, lambda x, y, dt: x != y, out=bool_)
    def __lt__(self, o): return less(self, o)
    def __le__(self, o): return less_equal(self, o)
    def __gt__(self, o): return greater(self, o)
    def __ge__(self, o): return greater_equal(self, o)

    def __eq__(self, o):
        if o is None:
            return False
        return equal(self, o)

    def __ne__(self, o):
        if o is None:
            return True
        return not_equal(self, o)


# ---- Variable ----------------------------------------------------------------------------------

class Variable:
    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None,
                 aggregation=None, shape=None):
        if initial_value is None:
            raise ValueError('initial_value must be specified.')
        if callable(initial_value):
            initial_value = initial_value()
        t = convert(initial_value, as_dtype(dtype) if dtype is not None else None) if not _is_tensor(initial_value) \
            else _tensor(initial_value)
        if dtype is not None and t.dtype is not as_dtype(dtype):
            t = cast(t, dtype)
        self._t = Tensor(t.a.copy(), t.dtype)
        self.name = (name or 'Variable') + ':0'
        self.trainable = True if trainable is None else trainable

    @property
    def dtype(self):
        return self._t.dtype

    @property
    def shape(self):
        return self._t.shape

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self._t.ndim

    def value(self):
        return Tensor(self._t.a.copy(), self._t.dtype)

    def read_value(self):
        return self.value()

    def numpy(self):
        return self.value().numpy()

    def _set(self, t, what):
        t = convert(t, self.dtype) if not _is_tensor(t) else _tensor(t)
        if t.dtype is not self.dtype:
            raise InvalidArgumentError('dtype mismatch')
        if t.a.shape != self._t.a.shape:
            raise ValueError("Cannot assign value to variable ' %s': Shape mismatch.The variable shape %s, and the "
                             "assigned value shape %s are incompatible." % (self.name, self.shape, t.shape))
        self._t = Tensor(t.a.copy(), t.dtype)
        return _Unread(self)

    def assign(self, value, use_locking=False, name=None, read_value=True):
        r = self._set(value, 'assign')
        return r if read_value else None

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        r = self._set(add(self.value(), delta), 'assign_add')
        return r if read_value else None

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        r = self._set(subtract(self.value(), delta), 'assign_sub')
        return r if read_value else None

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (self.name, self.shape, self.dtype.name,
                                                                   _np_text(self._t, True))

    __str__ = __repr__

    def __getattr__(self, name):
        # operators and the rest of the Tensor API read the value
        return getattr(self.value(), name)

    def __bool__(self): return bool(self.value())
    def __len__(self): return len(self.value())
    def __iter__(self): return iter(self.value())
    def __int__(self): return int(self.value())
    def __float__(self): return float(self.value())
    def __index__(self): return self.value().__index__()
    def __getitem__(self, k): return self.value()[k]
    def __format__(self, spec): return format(self.value(), spec) if spec else str(self)
    __hash__ = object.__hash__


def _fwd(name):
    def f(self, *a):
        return getattr(self.value(), name)(*a)
    return f


for _op in ['__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__', '__truediv__', '__rtruediv__',
            '__floordiv__', '__rfloordiv__', '__mod__', '__rmod__', '__pow__', '__rpow__', '__matmul__',
            '__rmatmul__', '__neg__', '__abs__', '__invert__', '__and__', '__or__', '__lt__', '__le__', '__gt__',
            '__ge__', '__eq__', '__ne__']:
    setattr(Variable, _op, _fwd(_op))


class _Unread(Variable):
    """What assign* return in TF 2: a variable view that prints as 'UnreadVariable'."""

    def __init__(self, var):
        self._var = var

    @property
    def _t(self):
        return self._var._t

    @property
    def name(self):
        return 'UnreadVariable'

    def __repr__(self):
        return "<tf.Variable 'UnreadVariable' shape=%s dtype=%s, numpy=%s>" % (self.shape, self.dtype.name,
                                                                               _np_text(self._t, True))

    __str__ = __repr__


# ---- elementwise ------------------------------------------------------------------------------

NUM = ('float32', 'float64', 'int32', 'int64')
FLOAT = ('float32', 'float64')


def _check_attr(opname, t, allowed):
    if t.dtype.name not in allowed:
        names = {'float32': 'float', 'float64': 'double', 'int32': 'int32', 'int64': 'int64', 'bool': 'bool',
                 'string': 'string'}
        raise InvalidArgumentError("Value for attr 'T' of %s is not in the list of allowed values: %s ; NodeDef: "
                                   "{{node %s}}" % (t.dtype.short, ', '.join(names[a] for a in allowed), opname))


def _binary(opname, x, y, f, out=None, allowed=NUM + ('bool', 'string')):
    x, y = _group(opname, x, y)
    _check_attr(opname, x, allowed)
    _bcast(opname, x, y)
    dt = out or x.dtype
    r = f(x.a, y.a, x.dtype)
    return Tensor(np.asarray(r).astype(dt.np) if dt is not string else r, dt)


def _f64(fn):
    """A float op computed in float64 and rounded once to the input dtype."""
    def g(a, dt):
        return fn(a.astype(np.float64)).astype(dt.np)
    return g


def _unary(opname, x, f, allowed=NUM, out=None):
    x = _tensor(x) if _is_tensor(x) else convert(x)
    _check_attr(opname, x, allowed)
    r = np.asarray(f(x.a, x.dtype))
    dt = out or x.dtype
    return Tensor(r.astype(dt.np), dt)


def add(x, y, name=None):
    return _binary('AddV2', x, y, lambda a, b, dt: a + b, allowed=NUM)


def subtract(x, y, name=None):
    return _binary('Sub', x, y, lambda a, b, dt: a - b, allowed=NUM)


def multiply(x, y, name=None):
    return _binary('Mul', x, y, lambda a, b, dt: a * b, allowed=NUM)


def _truediv(a, b, dt):
    if dt.is_integer:
        return a.astype(np.float64) / b.astype(np.float64)
    return a / b


def divide(x, y, name=None):
    x, y = _group('RealDiv', x, y)
    _bcast('RealDiv', x, y)
    r = _truediv(x.a, y.a, x.dtype)
    return Tensor(r, float64 if x.dtype.is_integer else x.dtype)


def _zero_check(b, dt):
    if dt.is_integer and np.any(b == 0):
        raise InvalidArgumentError('Integer division by zero')


def floordiv(x, y, name=None):
    def f(a, b, dt):
        _zero_check(b, dt)
        if dt.is_integer:
            return np.floor_divide(a, b)
        return np.floor(a / b)   # TF: floor(x / y) in the dtype
    return _binary('FloorDiv', x, y, f, allowed=NUM)


def mod(x, y, name=None):
    def f(a, b, dt):
        _zero_check(b, dt)
        if dt.is_integer:
            return np.remainder(a, b)
        r = np.fmod(a, b)   # TF: trunc mod, then + y when the signs differ
        fix = (r != 0) & ((b < 0) != (r < 0))
        return np.where(fix, r + b, r)
    return _binary('FloorMod', x, y, f, allowed=NUM)


def pow_(x, y, name=None):
    def f(a, b, dt):
        if dt.is_integer:
            if np.any(b < 0):
                raise InvalidArgumentError('Integers to negative integer powers are not allowed')
            return np.power(a, b)
        return np.power(a.astype(np.float64), b.astype(np.float64))
    return _binary('Pow', x, y, f, allowed=NUM)


def maximum(x, y, name=None):
    return _binary('Maximum', x, y, lambda a, b, dt: np.maximum(a, b), allowed=NUM)


def minimum(x, y, name=None):
    return _binary('Minimum', x, y, lambda a, b, dt: np.minimum(a, b), allowed=NUM)


def squared_difference(x, y, name=None):
    return _binary('SquaredDifference', x, y, lambda a, b, dt: (a - b) * (a - b), allowed=NUM)


def negative(x, name=None):
    return _unary('Neg', x, lambda a, dt: -a)


def abs_(x, name=None):
    return _unary('Abs', x, lambda a, dt: np.abs(a))


def sign(x, name=None):
    return _unary('Sign', x, lambda a, dt: np.sign(a))


def square(x, name=None):
    return _unary('Square', x, lambda a, dt: a * a)


def sqrt(x, name=None):
    return _unary('Sqrt', x, lambda a, dt: np.sqrt(a), FLOAT)


def rsqrt(x, name=None):
    return _unary('Rsqrt', x, lambda a, dt: dt.np(1) / np.sqrt(a), FLOAT)   # 1 / sqrt(x), as Eigen


def exp(x, name=None):
    return _unary('Exp', x, _f64(np.exp), FLOAT)


def log(x, name=None):
    return _unary('Log', x, _f64(np.log), FLOAT)


def log1p(x, name=None):
    return _unary('Log1p', x, _f64(np.log1p), FLOAT)


def sin(x, name=None):
    return _unary('Sin', x, _f64(np.sin), FLOAT)


def cos(x, name=None):
    return _unary('Cos', x, _f64(np.cos), FLOAT)


def _eigen_f32(model, fn):
    """float32 through TF's own Eigen formulas (tests/eigen_float.py), other dtypes in float64 rounded once"""
    def g(a, dt):
        return model(a) if dt.np == np.float32 else _f64(fn)(a, dt)
    return g


def tanh(x, name=None):
    return _unary('Tanh', x, _eigen_f32(eigen_float.tanh, np.tanh), FLOAT)


def sigmoid(x, name=None):
    return _unary('Sigmoid', x, _eigen_f32(eigen_float.sigmoid, lambda a: 1.0 / (1.0 + np.exp(-a))), FLOAT)


def floor(x, name=None):
    return _unary('Floor', x, lambda a, dt: np.floor(a), FLOAT)


def ceil(x, name=None):
    return _unary('Ceil', x, lambda a, dt: np.ceil(a), FLOAT)


def round_(x, name=None):
    return _unary('Round', x, lambda a, dt: np.round(a) if dt.is_floating else a)   # half to even


def reciprocal(x, name=None):
    return _unary('Reciprocal', x, lambda a, dt: dt.np(1) / a, FLOAT)


def softplus(features, name=None):
    # TF's kernel: x when x > -(log(eps) + 2), exp(x) when x < log(eps) + 2, else log1p(exp(x)) (each rounded)
    def f(a, dt):
        th = math.log(np.finfo(dt.np).eps) + 2
        e = _exp_dt(a)
        mid = np.log1p(e.astype(np.float64)).astype(dt.np)
        return np.where(a > -th, a, np.where(a < th, e, mid))
    return _unary('Softplus', features, f, FLOAT)


def relu(features, name=None):
    return _unary('Relu', features, lambda a, dt: np.where(a > 0, a, np.zeros_like(a)))


def relu6(features, name=None):
    return _unary('Relu6', features, lambda a, dt: np.minimum(np.maximum(a, 0), 6))


def elu(features, name=None):
    return _unary('Elu', features, _f64(lambda a: np.where(a > 0, a, np.expm1(a))), FLOAT)


def leaky_relu(features, alpha=0.2, name=None):
    return _unary('LeakyRelu', features, lambda a, dt: np.where(a > 0, a, a * dt.np(alpha)), FLOAT)


def gelu(features, approximate=False, name=None):
    # TF composes gelu from ops in the dtype: 0.5 * x * (1 + erf(x / sqrt(2))), or the tanh form
    def exact(a, dt):
        t = a / dt.np(1.4142135623730951)
        e = np.vectorize(math.erf)(t.astype(np.float64)).astype(dt.np)
        return dt.np(0.5) * a * (dt.np(1) + e)

    def approx(a, dt):
        inner = dt.np(0.7978845608028654) * (a + dt.np(0.044715) * np.power(a.astype(np.float64), 3).astype(dt.np))
        return dt.np(0.5) * a * (dt.np(1) + np.tanh(inner.astype(np.float64)).astype(dt.np))
    return _unary('Gelu', features, approx if approximate else exact, FLOAT)


def is_nan(x, name=None):
    return _unary('IsNan', x, lambda a, dt: np.isnan(a), FLOAT, out=bool_)


def is_inf(x, name=None):
    return _unary('IsInf', x, lambda a, dt: np.isinf(a), FLOAT, out=bool_)


def is_finite(x, name=None):
    return _unary('IsFinite', x, lambda a, dt: np.isfinite(a), FLOAT, out=bool_)


def cast(x, dtype, name=None):
    x = _tensor(x) if _is_tensor(x) else convert(x)
    dt = as_dtype(dtype)
    if dt is string or x.dtype is string:
        if dt is not x.dtype:
            raise NotImplementedError('Cast to string is not supported')
        return x
    return Tensor(x.a.astype(dt.np), dt)


def where(condition, x=None, y=None, name=None):
    c = _tensor(condition) if _is_tensor(condition) else convert(condition)
    if c.dtype is not bool_:
        raise InvalidArgumentError('condition must be bool')
    if x is None and y is None:
        return Tensor(np.argwhere(c.a).astype(np.int64), int64)
    x, y = _group('SelectV2', x, y)
    _bcast('SelectV2', x, y)
    return Tensor(np.where(c.a, x.a, y.a), x.dtype)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    t, lo, hi = _group('ClipByValue', t, clip_value_min, clip_value_max)
    return Tensor(np.minimum(np.maximum(t.a, lo.a), hi.a), t.dtype)


def add_n(inputs, name=None):
    ts = _group('AddN', *inputs)
    r = ts[0].a.copy()
    for t in ts[1:]:
        r = r + t.a
    return Tensor(r, ts[0].dtype)


# ---- comparison and logic ----------------------------------------------------------------------

def equal(x, y, name=None):
    return _binary('Equal', x, y, lambda a, b, dt: a == b, out=bool_)


def not_equal(x, y, name=None):
    return _binary('NotEqual', x, y, lambda a, b, dt: a != b, out=bool_)


def less(x, y, name=None):
    return _binary('Less', x, y, lambda a, b, dt: a < b, out=bool_, allowed=NUM)


def less_equal(x, y, name=None):
    return _binary('LessEqual', x, y, lambda a, b, dt: a <= b, out=bool_, allowed=NUM)


def greater(x, y, name=None):
    return _binary('Greater', x, y, lambda a, b, dt: a > b, out=bool_, allowed=NUM)


def greater_equal(x, y, name=None):
    return _binary('GreaterEqual', x, y, lambda a, b, dt: a >= b, out=bool_, allowed=NUM)


def _bools(opname, *vals):
    out = []
    for i, v in enumerate(vals):
        t = _tensor(v) if _is_tensor(v) else convert(v, bool_)
        if t.dtype is not bool_:
            raise InvalidArgumentError('cannot compute %s as input #%d(zero-based) was expected to be a bool tensor '
                                       'but is a %s tensor' % (opname, i, t.dtype.short))
        out.append(t)
    return out


def logical_and(x, y, name=None):
    x, y = _bools('LogicalAnd', x, y)
    _bcast('LogicalAnd', x, y)
    return Tensor(x.a & y.a, bool_)


def logical_or(x, y, name=None):
    x, y = _bools('LogicalOr', x, y)
    _bcast('LogicalOr', x, y)
    return Tensor(x.a | y.a, bool_)


def logical_xor(x, y, name=None):
    x, y = _bools('LogicalXor', x, y)
    _bcast('LogicalXor', x, y)
    return Tensor(x.a ^ y.a, bool_)


def logical_not(x, name=None):
    (x,) = _bools('LogicalNot', x)
    return Tensor(~x.a, bool_)


# ---- reductions --------------------------------------------------------------------------------

def _axes(axis, rank):
    if axis is None:
        return tuple(range(rank))
    if _is_tensor(axis):
        axis = _tensor(axis).a.tolist()
    if isinstance(axis, (list, tuple)):
        ax = list(axis)
    else:
        ax = [axis]
    r = max(rank, 1)
    out = []
    for a in ax:
        a = int(a)
        if not -r <= a < r:
            raise InvalidArgumentError('Invalid reduction dimension %d for input with %d dimensions.' % (a, rank))
        a = a % r
        if a not in out:
            out.append(a)
    return tuple(sorted(out)) if rank else ()


def _reduce(opname, x, axis, keepdims, f, allowed=NUM):
    x = _tensor(x) if _is_tensor(x) else convert(x)
    _check_attr(opname, x, allowed)
    ax = _axes(axis, x.a.ndim)
    r = f(x.a, ax, x.dtype)
    r = np.asarray(r)
    if keepdims:
        shape = [1 if i in ax else d for i, d in enumerate(x.a.shape)]
        r = r.reshape(shape)
    return Tensor(r.astype(x.dtype.np), x.dtype)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Sum', input_tensor, axis, keepdims, lambda a, ax, dt: np.sum(a, axis=ax, dtype=dt.np))


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Prod', input_tensor, axis, keepdims, lambda a, ax, dt: np.prod(a, axis=ax, dtype=dt.np))


def _mean(a, ax, dt):
    n = 1
    for i in ax:
        n *= a.shape[i]
    s = np.sum(a, axis=ax, dtype=dt.np)
    if dt.is_integer:
        return np.trunc(s.astype(np.float64) / n).astype(dt.np) if n else s   # C division truncates
    return s / dt.np(n)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Mean', input_tensor, axis, keepdims, _mean)


def _ident_max(dt):
    return -np.inf if dt.is_floating else np.iinfo(dt.np).min


def _ident_min(dt):
    return np.inf if dt.is_floating else np.iinfo(dt.np).max


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Max', input_tensor, axis, keepdims,
                   lambda a, ax, dt: np.max(a, axis=ax, initial=_ident_max(dt)))


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Min', input_tensor, axis, keepdims,
                   lambda a, ax, dt: np.min(a, axis=ax, initial=_ident_min(dt)))


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('Any', input_tensor, axis, keepdims, lambda a, ax, dt: np.any(a, axis=ax), ('bool',))


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce('All', input_tensor, axis, keepdims, lambda a, ax, dt: np.all(a, axis=ax), ('bool',))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    def f(a, ax, dt):
        a64 = a.astype(np.float64)
        m = np.max(a64, axis=ax, keepdims=True)
        return (np.log(np.sum(np.exp(a64 - m), axis=ax, keepdims=True)) + m).reshape(
            np.sum(a64, axis=ax).shape)
    return _reduce('ReduceLogSumExp', input_tensor, axis, keepdims, f, FLOAT)


def _arg(opname, x, axis, output_type, f):
    x = _tensor(x) if _is_tensor(x) else convert(x)
    if axis is None:
        axis = 0
    ax = _axes(axis, x.a.ndim)[0]
    odt = as_dtype(output_type) if output_type is not None else int64
    return Tensor(f(x.a, axis=ax).astype(odt.np), odt)


def argmax(input, axis=None, output_type=None, name=None):
    return _arg('ArgMax', input, axis, output_type, np.argmax)


def argmin(input, axis=None, output_type=None, name=None):
    return _arg('ArgMin', input, axis, output_type, np.argmin)


# ---- softmax family (float32 order of operations as TF's kernels) ------------------------------------

def _exp_dt(a):
    return np.exp(a.astype(np.float64)).astype(a.dtype)


def softmax(logits, axis=None, name=None):
    x = _tensor(logits) if _is_tensor(logits) else convert(logits)
    _check_attr('Softmax', x, FLOAT)
    ax = -1 if axis is None else axis
    e = _exp_dt(x.a - np.max(x.a, axis=ax, keepdims=True))
    return Tensor(e * (x.dtype.np(1) / np.sum(e, axis=ax, keepdims=True)), x.dtype)   # TF: times the sum's inverse


def log_softmax(logits, axis=None, name=None):
    x = _tensor(logits) if _is_tensor(logits) else convert(logits)
    _check_attr('LogSoftmax', x, FLOAT)
    ax = -1 if axis is None else axis
    sh = x.a - np.max(x.a, axis=ax, keepdims=True)
    s = np.sum(_exp_dt(sh), axis=ax, keepdims=True)
    return Tensor(sh - np.log(s.astype(np.float64)).astype(x.a.dtype), x.dtype)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    lg = _tensor(logits) if _is_tensor(logits) else convert(logits)
    lb = _tensor(labels) if _is_tensor(labels) else convert(labels)
    ls = log_softmax(lg).a
    n = ls.shape[-1]
    idx = lb.a.reshape(-1)
    flat = ls.reshape(-1, n)
    if np.any((idx < 0) | (idx >= n)):
        raise InvalidArgumentError('Received a label value of %d which is outside the valid range of [0, %d).'
                                   % (idx[(idx < 0) | (idx >= n)][0], n))
    r = -flat[np.arange(len(idx)), idx]
    return Tensor(r.reshape(lb.a.shape), lg.dtype)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    lg = _tensor(logits) if _is_tensor(logits) else convert(logits)
    lb = _tensor(labels) if _is_tensor(labels) else convert(labels, lg.dtype)
    ls = log_softmax(lg, axis=axis).a
    return Tensor(-np.sum(lb.a * ls, axis=axis), lg.dtype)


# ---- linear algebra -----------------------------------------------------------------------------

def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, name=None):
    a, b = _group('MatMul', a, b)
    _check_attr('MatMul', a, NUM)
    x, y = a.a, b.a
    if transpose_a or adjoint_a:
        x = np.swapaxes(x, -1, -2)
    if transpose_b or adjoint_b:
        y = np.swapaxes(y, -1, -2)
    if x.shape[-1] != y.shape[-2]:
        raise InvalidArgumentError('Matrix size-incompatible: In[0]: %s, In[1]: %s'
                                   % (_shape_text(x.shape), _shape_text(y.shape)))
    if a.dtype.is_integer:
        r = np.matmul(x.astype(np.int64), y.astype(np.int64))
    else:
        r = np.matmul(x.astype(np.float64), y.astype(np.float64))   # exact for the small values tested
    return Tensor(r.astype(a.dtype.np), a.dtype)


def transpose(a, perm=None, conjugate=False, name=None):
    a = _tensor(a) if _is_tensor(a) else convert(a)
    if perm is not None and _is_tensor(perm):
        perm = _tensor(perm).a.tolist()
    return Tensor(np.transpose(a.a, perm).copy(), a.dtype)


def norm(tensor, ord='euclidean', axis=None, keepdims=None, name=None):
    t = _tensor(tensor) if _is_tensor(tensor) else convert(tensor)
    a = t.a.astype(np.float64)
    if ord in ('euclidean', 'fro', 2):
        r = np.sqrt(np.sum(a * a, axis=axis, keepdims=bool(keepdims)))
    elif ord == 1:
        r = np.sum(np.abs(a), axis=axis, keepdims=bool(keepdims))
    elif ord == np.inf:
        r = np.max(np.abs(a), axis=axis, keepdims=bool(keepdims))
    else:
        raise ValueError('unsupported ord')
    return Tensor(np.asarray(r).astype(t.dtype.np), t.dtype)


def bias_add(value, bias, data_format=None, name=None):
    v, b = _group('BiasAdd', value, bias)
    return Tensor(v.a + b.a, v.dtype)


# ---- shapes -----------------------------------------------------------------------------------

def _dims(shape):
    if _is_tensor(shape):
        shape = _tensor(shape).a.tolist()
    if isinstance(shape, TensorShape):
        shape = shape.dims
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


def _t(x):
    return _tensor(x) if _is_tensor(x) else convert(x)


def reshape(tensor, shape, name=None):
    t = _t(tensor)
    dims = _dims(shape)
    known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
    if -1 not in dims and known != t.a.size:
        raise InvalidArgumentError('Input to reshape is a tensor with %d values, but the requested shape has %d'
                                   % (t.a.size, known))
    return Tensor(t.a.reshape(dims).copy(), t.dtype)


def expand_dims(input, axis, name=None):
    t = _t(input)
    return Tensor(np.expand_dims(t.a, int(axis)), t.dtype)


def squeeze(input, axis=None, name=None):
    t = _t(input)
    if isinstance(axis, list):
        axis = tuple(axis)
    return Tensor(np.squeeze(t.a, axis=axis).copy(), t.dtype)


def identity(input, name=None):
    t = _t(input)
    return Tensor(t.a.copy(), t.dtype)


def concat(values, axis, name=None):
    ts = _group('ConcatV2', *values)
    return Tensor(np.concatenate([t.a for t in ts], axis=axis), ts[0].dtype)


def stack(values, axis=0, name=None):
    ts = _group('Pack', *values)
    return Tensor(np.stack([t.a for t in ts], axis=axis), ts[0].dtype)


def unstack(value, num=None, axis=0, name=None):
    t = _t(value)
    return [Tensor(x.copy(), t.dtype) for x in np.moveaxis(t.a, axis, 0)]


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    p = _t(params)
    i = _t(indices)
    ax = 0 if axis is None else int(axis)
    ax %= p.a.ndim
    lim = p.a.shape[ax]
    flat = i.a.reshape(-1)
    bad = np.nonzero((flat < 0) | (flat >= lim))[0]
    if len(bad):
        k = bad[0]
        where_ = '' if i.a.ndim == 0 else '[%s]' % ','.join(str(x) for x in np.unravel_index(k, i.a.shape))
        raise InvalidArgumentError('indices%s = %d is not in [0, %d)' % (where_, flat[k], lim))
    return Tensor(np.take(p.a, i.a, axis=ax), p.dtype)


def slice_(input_, begin, size, name=None):
    t = _t(input_)
    b = _dims(begin)
    s = _dims(size)
    idx = tuple(slice(bb, t.a.shape[k] if ss == -1 else bb + ss) for k, (bb, ss) in enumerate(zip(b, s)))
    return Tensor(t.a[idx].copy(), t.dtype)


def tile(input, multiples, name=None):
    t = _t(input)
    return Tensor(np.tile(t.a, _dims(multiples)), t.dtype)


def broadcast_to(input, shape, name=None):
    t = _t(input)
    return Tensor(np.broadcast_to(t.a, _dims(shape)).copy(), t.dtype)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    i = _t(indices)
    dt = as_dtype(dtype) if dtype is not None else (
        _t(on_value).dtype if on_value is not None else _t(off_value).dtype if off_value is not None else float32)
    on = 1 if on_value is None else _t(on_value).a[()]
    off = 0 if off_value is None else _t(off_value).a[()]
    ax = -1 if axis is None else axis
    hot = i.a[..., None] == np.arange(depth)
    r = np.where(hot, on, off).astype(dt.np)
    if ax != -1:
        r = np.moveaxis(r, -1, ax)
    return Tensor(r, dt)


def shape(input, out_type=None, name=None):
    t = _t(input)
    dt = as_dtype(out_type) if out_type is not None else int32
    return Tensor(np.array(t.a.shape, dtype=dt.np), dt)


def size(input, out_type=None, name=None):
    t = _t(input)
    dt = as_dtype(out_type) if out_type is not None else int32
    return Tensor(np.array(t.a.size, dtype=dt.np), dt)


def rank(input, name=None):
    t = _t(input)
    return Tensor(np.array(t.a.ndim, dtype=np.int32), int32)


def _strided_slice(t, key):
    t = _tensor(t)
    if not isinstance(key, tuple):
        key = (key,)
    k2 = []
    dim = 0
    for k in key:
        if _is_tensor(k):
            k = int(_tensor(k).a[()])
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            n = t.a.shape[dim]
            if not -n <= k < n:
                raise InvalidArgumentError('slice index %d of dimension %d out of bounds.' % (k, dim))
            dim += 1
        elif isinstance(k, builtins.slice):
            if k.step == 0:
                raise ValueError('slice step cannot be zero')
            dim += 1
        elif k is Ellipsis:
            dim = t.a.ndim - sum(1 for x in key if x is not None and x is not Ellipsis) + dim
        k2.append(k)
    return Tensor(_elem_array(t.a, tuple(k2)), t.dtype)


# ---- creation ----------------------------------------------------------------------------------

def constant(value, dtype=None, shape=None, name=None):
    dt = as_dtype(dtype) if dtype is not None else None
    if _is_tensor(value):
        t = _tensor(value)
        if dt is not None and dt is not t.dtype:
            t = cast(t, dt)
    elif isinstance(value, (np.ndarray, np.generic)):
        t = convert(value, dt)
    else:
        t = convert(value, dt)
    if shape is not None:
        dims = _dims(shape)
        n = int(np.prod(dims, dtype=np.int64))
        if t.a.size == 1 and n != 1:
            t = Tensor(np.broadcast_to(t.a.reshape(()), dims).copy(), t.dtype)
        elif t.a.size == n:
            t = Tensor(t.a.reshape(dims), t.dtype)
        else:
            raise TypeError('Eager execution of tf.constant with unsupported shape. Tried to convert tensor of '
                            'shape %s to tensor of shape %s.' % (t.shape, TensorShape(dims)))
    return t


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    return convert(value, as_dtype(dtype) if dtype is not None else None)


def zeros(shape, dtype=float32, name=None):
    dt = as_dtype(dtype)
    return Tensor(np.zeros(_dims(shape), dtype=dt.np) if dt is not string else np.full(_dims(shape), b'', object), dt)


def ones(shape, dtype=float32, name=None):
    dt = as_dtype(dtype)
    return Tensor(np.ones(_dims(shape), dtype=dt.np), dt)


def zeros_like(input, dtype=None, name=None):
    t = _t(input)
    dt = as_dtype(dtype) if dtype is not None else t.dtype
    return Tensor(np.zeros(t.a.shape, dtype=dt.np), dt)


def ones_like(input, dtype=None, name=None):
    t = _t(input)
    dt = as_dtype(dtype) if dtype is not None else t.dtype
    return Tensor(np.ones(t.a.shape, dtype=dt.np), dt)


def fill(dims, value, name=None):
    v = _t(value)
    return Tensor(np.full(_dims(dims), v.a[()], dtype=v.a.dtype), v.dtype)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None):
    dt = as_dtype(dtype)
    m = num_rows if num_columns is None else num_columns
    r = np.eye(num_rows, m, dtype=dt.np)
    if batch_shape is not None:
        r = np.broadcast_to(r, tuple(_dims(batch_shape)) + r.shape).copy()
    return Tensor(r, dt)


_RANGE_ORDER = [int32, int64, float32, float64]


def range_(start, limit=None, delta=1, dtype=None, name=None):
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is not None:
        dt = as_dtype(dtype)
    else:
        dt = max((_t(a).dtype for a in args), key=_RANGE_ORDER.index)
    vals = [_t(a).a[()] for a in args]
    s, l, d = (dt.np(v) for v in vals)
    if d == 0:
        raise InvalidArgumentError('Requires delta != 0: 0')
    if (d > 0 and s > l) or (d < 0 and s < l):
        raise InvalidArgumentError('Requires start %s limit when delta %s 0: %s/%s'
                                   % ('<=' if d > 0 else '>=', '>' if d > 0 else '<', s, l))
    if dt.is_integer:
        n = max(0, -(-(int(l) - int(s)) // int(d))) if d > 0 else max(0, -(-(int(s) - int(l)) // -int(d)))
        r = np.array([int(s) + i * int(d) for i in range(n)], dtype=dt.np)
    else:
        n = int(math.ceil(abs((float(l) - float(s)) / float(d))))
        if (d > 0 and l <= s) or (d < 0 and l >= s):
            n = 0
        r = np.array([s + dt.np(i) * d for i in range(n)], dtype=dt.np)   # start + i * delta in the dtype
    return Tensor(r, dt)


def linspace(start, stop, num, name=None, axis=0):
    s = _t(start)
    dt = s.dtype if s.dtype.is_floating else float64
    s = Tensor(s.a.astype(dt.np), dt)
    e = convert(stop, dt) if not _is_tensor(stop) else _tensor(stop)
    n = int(_t(num).a[()])
    if n == 1:
        return Tensor(np.array([s.a[()]], dtype=dt.np), dt)
    delta = (e.a - s.a) / dt.np(n - 1)
    mid = [s.a + delta * dt.np(i) for i in range(1, n - 1)]
    return Tensor(np.array([s.a] + mid + [e.a], dtype=dt.np), dt)


# ---- tf.print ---------------------------------------------------------------------------------

def _tfp_elem(x, dt):
    if dt is bool_:
        return '1' if x else '0'
    if dt.is_integer:
        return str(int(x))
    if dt is string:
        out = '"'
        for ch in bytes(x):
            c = chr(ch)
            if c == '\n': out += '\\n'
            elif c == '\t': out += '\\t'
            elif c == '\r': out += '\\r'
            elif c == '"': out += '\\"'
            elif c == "'": out += "\\'"
            elif c == '\\': out += '\\\\'
            elif ch < 32 or ch == 127: out += '\\%03o' % ch
            else: out += c
        return out + '"'
    f = float(x)
    if math.isnan(f):
        return '-nan' if math.copysign(1, f) < 0 else 'nan'
    if math.isinf(f):
        return 'inf' if f > 0 else '-inf'
    if dt is float32:
        s = '%.6g' % f
        if np.float32(float(s)) != np.float32(f):
            s = '%.9g' % f
        return s
    s = '%.15g' % f
    if float(s) != f:
        s = '%.17g' % f
    return s


def _tfprint_text(t, summarize=3):
    a = t.a
    dt = t.dtype
    n = a.size
    if summarize is None:
        summarize = 3
    limit = min(n if summarize < 0 else summarize, n)   # TF's SummarizeValue(summarize, print_v2=true)
    if a.ndim == 0:
        return _tfp_elem(a[()], dt) if limit > 0 else ''
    if n == 0 and dt is bool_:
        return ''
    out = []
    _tfp_rec(a, (), limit, dt, out)
    return ''.join(out)


def _tfp_rec(a, fixed, ends, dt, out):
    dim = len(fixed)
    nd = a.ndim
    if dim == nd:
        out.append(_tfp_elem(a[fixed], dt))
        return

    def spacing():
        if dim == nd - 1:
            out.append(' ')
        else:
            out.append('\n' * (nd - dim - 1) + ' ' * (dim + 1))
    out.append('[')
    n = a.shape[dim]
    start_end = max(ends, n - ends)
    for i in range(min(ends, n)):
        if i > 0:
            spacing()
        _tfp_rec(a, fixed + (i,), ends, dt, out)
    if n > 2 * ends:
        spacing()
        out.append('...')
    for i in range(start_end, n):
        spacing()
        _tfp_rec(a, fixed + (i,), ends, dt, out)
    out.append(']')


def _tfp_arg(x, summarize=3):
    import pprint
    if _is_tensor(x):
        return _tfprint_text(_tensor(x), summarize)
    if isinstance(x, str):
        return x
    if isinstance(x, (list, tuple)):
        # tensors inside host structures print in place; the rest as pprint would
        parts = [_tfp_arg(e, summarize) if _is_tensor(e) or isinstance(e, (list, tuple)) else pprint.pformat(e)
                 for e in x]
        if isinstance(x, tuple):
            return '(' + ', '.join(parts) + (',)' if len(parts) == 1 else ')')
        return '[' + ', '.join(parts) + ']'
    return pprint.pformat(x)


def tf_print(*inputs, output_stream='stdout', summarize=3, sep=' ', end='\n', name=None):
    text = sep.join(_tfp_arg(x, summarize) for x in inputs) + end
    stream = sys.stderr if output_stream == 'stderr' else sys.stdout
    stream.write(text)


# ---- random (properties only: shape, dtype, range, determinism under a seed) -------------------------

class _Random:
    def __init__(self):
        self.rs = np.random.RandomState(0)
        self.seeded = False
        self.seed_val = None
        self.calls = 0

    def set_seed(self, seed):
        self.seed_val = seed
        self.calls = 0

    def _state(self, seed):
        self.calls += 1
        return np.random.RandomState(abs(hash((self.seed_val, seed, self.calls))) % (2**32))

    def uniform(self, shape, minval=0, maxval=None, dtype=float32, seed=None, name=None):
        dt = as_dtype(dtype)
        rs = self._state(seed)
        dims = _dims(shape)
        if dt.is_integer:
            if maxval is None:
                raise ValueError('Must specify maxval for integer dtype %r' % dt)
            return Tensor(rs.randint(minval, maxval, size=dims).astype(dt.np), dt)
        hi = 1.0 if maxval is None else maxval
        return Tensor((rs.random_sample(dims) * (hi - minval) + minval).astype(dt.np), dt)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
        dt = as_dtype(dtype)
        rs = self._state(seed)
        return Tensor((rs.standard_normal(_dims(shape)) * stddev + mean).astype(dt.np), dt)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
        dt = as_dtype(dtype)
        rs = self._state(seed)
        z = rs.standard_normal(_dims(shape))
        z = np.clip(z, -1.9, 1.9)
        return Tensor((z * stddev + mean).astype(dt.np), dt)


_rng = _Random()


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    t = _t(x)
    if not 0 <= rate < 1:
        raise ValueError('rate must be a scalar tensor or a float in the range [0, 1), got %g' % rate)
    keep = _rng._state(seed).random_sample(t.a.shape) >= rate
    return Tensor(np.where(keep, t.a / t.dtype.np(1 - rate), t.dtype.np(0)), t.dtype)


# ---- debugging ---------------------------------------------------------------------------------

def _assert(cond, message, default):
    if not cond:
        raise InvalidArgumentError((message + '\n' if message else '') + default)


def assert_equal(x, y, message=None, summarize=None, name=None):
    x, y = _group('AssertEqual', x, y)
    _assert(np.all(x.a == y.a), message, 'Condition x == y did not hold.')


def assert_greater(x, y, message=None, summarize=None, name=None):
    x, y = _group('AssertGreater', x, y)
    _assert(np.all(x.a > y.a), message, 'Condition x > y did not hold.')


def assert_less(x, y, message=None, summarize=None, name=None):
    x, y = _group('AssertLess', x, y)
    _assert(np.all(x.a < y.a), message, 'Condition x < y did not hold.')


def assert_non_negative(x, message=None, summarize=None, name=None):
    x = _t(x)
    _assert(np.all(x.a >= 0), message, 'Condition x >= 0 did not hold.')


def assert_all_finite(x, message, name=None):
    x = _t(x)
    _assert(np.all(np.isfinite(x.a)), message, 'Tensor had NaN or Inf values')
    return x


def check_numerics(tensor, message, name=None):
    t = _t(tensor)
    _assert(np.all(np.isfinite(t.a)), message, 'Tensor had NaN or Inf values')
    return t


def cond(pred, true_fn=None, false_fn=None, name=None):
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    lv = list(loop_vars) if isinstance(loop_vars, (list, tuple)) else [loop_vars]
    i = 0
    while (maximum_iterations is None or i < maximum_iterations) and bool(cond(*lv)):
        r = body(*lv)
        lv = list(r) if isinstance(r, (list, tuple)) else [r]
        i += 1
    if isinstance(loop_vars, tuple):
        return tuple(lv)
    return lv if isinstance(loop_vars, list) else lv[0]


def timestamp(name=None):
    return Tensor(np.array(_time.time(), dtype=np.float64), float64)


# ---- the module ----------------------------------------------------------------------------------

def _module(name, **attrs):
    m = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(m, k, v)
    return m


_ELEMENTWISE = dict(add=add, subtract=subtract, multiply=multiply, divide=divide, truediv=divide,
                    floordiv=floordiv, floormod=mod, mod=mod, pow=pow_, negative=negative, abs=abs_, sign=sign,
                    square=square, sqrt=sqrt, rsqrt=rsqrt, exp=exp, log=log, log1p=log1p, sin=sin, cos=cos,
                    tanh=tanh, sigmoid=sigmoid, floor=floor, ceil=ceil, round=round_, maximum=maximum,
                    minimum=minimum, equal=equal, not_equal=not_equal, less=less, less_equal=less_equal,
                    greater=greater, greater_equal=greater_equal, logical_and=logical_and, logical_or=logical_or,
                    logical_not=logical_not, reduce_sum=reduce_sum, reduce_mean=reduce_mean,
                    reduce_max=reduce_max, reduce_min=reduce_min, reduce_prod=reduce_prod, reduce_any=reduce_any,
                    reduce_all=reduce_all, argmax=argmax, argmin=argmin, add_n=add_n)

math_mod = _module('tf.math', logical_xor=logical_xor, squared_difference=squared_difference,
                   reciprocal=reciprocal, softplus=softplus, is_nan=is_nan, is_inf=is_inf, is_finite=is_finite,
                   reduce_logsumexp=reduce_logsumexp, softmax=softmax, log_softmax=log_softmax, **_ELEMENTWISE)
nn_mod = _module('tf.nn', relu=relu, relu6=relu6, sigmoid=sigmoid, tanh=tanh, softmax=softmax,
                 log_softmax=log_softmax, gelu=gelu, elu=elu, leaky_relu=leaky_relu, softplus=softplus,
                 sparse_softmax_cross_entropy_with_logits=sparse_softmax_cross_entropy_with_logits,
                 softmax_cross_entropy_with_logits=softmax_cross_entropy_with_logits, dropout=dropout,
                 bias_add=bias_add)
random_mod = _module('tf.random', uniform=_rng.uniform, normal=_rng.normal, truncated_normal=_rng.truncated_normal,
                     set_seed=_rng.set_seed)
dtypes_mod = _module('tf.dtypes', float32=float32, float64=float64, int32=int32, int64=int64, bool=bool_,
                     string=string, double=float64, DType=DType, cast=cast, as_dtype=as_dtype)
linalg_mod = _module('tf.linalg', norm=norm, matmul=matmul, eye=eye)
debugging_mod = _module('tf.debugging', assert_equal=assert_equal, assert_greater=assert_greater,
                        assert_less=assert_less, assert_non_negative=assert_non_negative,
                        assert_all_finite=assert_all_finite, check_numerics=check_numerics)


class _Config:
    def __init__(self):
        self.eager = False

    def run_functions_eagerly(self, run_eagerly):
        self.eager = bool(run_eagerly)

    def functions_run_eagerly(self):
        return self.eager


def make_tf():
    _rng.__init__()
    tf = _module('tf', **_ELEMENTWISE)
    for k, v in dict(math=math_mod, nn=nn_mod, random=random_mod, dtypes=dtypes_mod, linalg=linalg_mod,
                     debugging=debugging_mod, float32=float32, float64=float64, int32=int32, int64=int64,
                     bool=bool_, string=string, double=float64, DType=DType, Tensor=Tensor, TensorShape=TensorShape,
                     Variable=Variable, constant=constant, convert_to_tensor=convert_to_tensor, zeros=zeros,
                     ones=ones, zeros_like=zeros_like, ones_like=ones_like, fill=fill, eye=eye, range=range_,
                     linspace=linspace, cast=cast, where=where, clip_by_value=clip_by_value, matmul=matmul,
                     transpose=transpose, norm=norm, reshape=reshape, expand_dims=expand_dims, squeeze=squeeze,
                     concat=concat, stack=stack, unstack=unstack, gather=gather, slice=slice_, tile=tile,
                     broadcast_to=broadcast_to, one_hot=one_hot, shape=shape, size=size, rank=rank,
                     identity=identity, print=tf_print, cond=cond, while_loop=while_loop, timestamp=timestamp,
                     newaxis=None, is_tensor=_is_tensor, as_dtype=as_dtype, config=_Config(),
                     autograph=_module('tf.autograph', experimental=_module(
                         'tf.autograph.experimental', set_loop_options=lambda **kw: None))).items():
        setattr(tf, k, v)
    return tf


# ---- the host modules of the stdlib --------------------------------------------------------------

def _stdlib_modules():
    import timeit as _timeit
    mods = {'time': _time, 'timeit': _timeit}
    return mods


# ---- driver --------------------------------------------------------------------------------------

def run_program(path):
    name = os.path.basename(path)[:-4]
    src = open(path).read()
    out = io.StringIO()
    err = io.StringIO()
    args = []
    if os.path.exists(path[:-4] + '.args'):
        args = [l for l in open(path[:-4] + '.args').read().splitlines() if l]
    g = {'__name__': '__main__', 'tf': make_tf(), 'argv': [name + '.tfs'] + args}
    saved = dict(sys.modules)
    sys.modules.update(_stdlib_modules())
    exc = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(compile(src, name + '.tfs', 'exec'), g)
    except Exception as e:   # error programs end in exactly one error
        exc = e
    finally:
        sys.modules.clear()
        sys.modules.update(saved)
    return out.getvalue(), err.getvalue(), exc


def main():
    names = sys.argv[1:]
    if not names:
        names = sorted(f[:-4] for f in os.listdir(PROGRAMS) if f.startswith('eager_') and f.endswith('.tfs'))
    bad = 0
    for name in names:
        base = os.path.join(PROGRAMS, name)
        out, err, exc = run_program(base + '.tfs')
        is_err = os.path.exists(base + '.status')
        if exc is not None and not is_err:
            print('%s: unexpected %s: %s' % (name, type(exc).__name__, exc), file=sys.stderr)
            bad += 1
            continue
        if is_err:
            if exc is None:
                print('%s: expected an error, the program ran to the end' % name, file=sys.stderr)
                bad += 1
                continue
            print('%s: %s: %s' % (name, type(exc).__name__, exc))
        with open(base + '.out', 'w') as f:
            f.write(out)
        if err and not is_err:
            with open(base + '.err', 'w') as f:
                f.write(err)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
