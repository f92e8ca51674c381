# tensorflow.py — a stand-in for `import tensorflow as tf` in the numpy golden programs: only what np_tf_*.tfs use.
"""tests/gen_numpy_expect.py puts this directory first on PYTHONPATH for np_tf_*.tfs programs.

TF's EagerTensor.numpy() is numpy's value of the tensor: an ndarray, or for a 0-d
tensor the numpy scalar of its dtype (EagerTensor._numpy() then `[()]`); tf.constant
converts Python floats to float32 and ints to int32; broadcast_to and transpose are numpy's.
Nothing else of TF is modelled.
"""
import numpy as _np

float32, float64, int32, int64, bool = _np.float32, _np.float64, _np.int32, _np.int64, _np.bool_
float16, int8, int16, uint16, uint32, uint64 = _np.float16, _np.int8, _np.int16, _np.uint16, _np.uint32, _np.uint64
complex64, complex128 = _np.complex64, _np.complex128


class _Tensor:
    def __init__(self, a):
        self._a = a

    def numpy(self):
        return self._a[()] if self._a.ndim == 0 else self._a.copy()


def constant(value, dtype=None):
    a = _np.asarray(value)
    if dtype is None:
        dtype = {"f": float32, "i": int32, "b": bool, "S": object}.get(a.dtype.kind, a.dtype)   # tf.string: bytes objects
        if a.dtype.kind in "fc" and isinstance(value, _np.ndarray):
            dtype = a.dtype   # numpy values keep their dtype
    return _Tensor(_np.array(a, dtype=dtype))   # a copy: TF's tensor does not see later writes to the array


def broadcast_to(input, shape):
    return _Tensor(_np.broadcast_to(input._a, shape).copy())


def transpose(a, perm=None):
    return _Tensor(_np.transpose(a._a, perm).copy())


class _Symbolic:
    """A tf.function's argument while it is traced: a graph tensor, whose values numpy cannot have (TF's
    Tensor.__array__ raises this NotImplementedError)."""

    def __init__(self, name):
        self.name = name

    def __array__(self, dtype=None):
        raise NotImplementedError(f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may "
                                  "indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.")


def function(func=None, **kwargs):
    """tf.function: the body runs as Python once, when traced, on graph tensors named after the parameters
    (numpy's arrays inside it are computed then); the call returns what the body returned."""
    if func is None:
        return lambda f: function(f, **kwargs)
    import inspect
    names = list(inspect.signature(func).parameters)

    def call(*args):
        return func(*[_Symbolic(n + ":0") if isinstance(a, _Tensor) else a for n, a in zip(names, args)])
    call.get_concrete_function = lambda *specs: func(*[_Symbolic(n + ":0") for n in names[:len(specs)]])
    return call


def TensorSpec(shape, dtype=None):
    return (shape, dtype)


class _KerasUtils:
    @staticmethod
    def set_random_seed(seed):
        """Keras 2.15's keras.utils.set_random_seed: Python's random, numpy's global generator (and TF's, not modelled)."""
        import random
        random.seed(seed)
        _np.random.seed(seed)


class _Keras:
    utils = _KerasUtils()


keras = _Keras()
