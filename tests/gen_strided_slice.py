# gen_strided_slice.py — tests/programs/strided_slice.out: numpy's indexing for each strided_slice spec, printed by TF's rules.
# tf.strided_slice entry k is `...` (ellipsis_mask), np.newaxis (new_axis_mask), the index begin[k]
# (shrink_axis_mask) or begin[k]:end[k]:strides[k] with an open begin/end per begin_mask/end_mask (TF's
# array_ops.strided_slice doc); Tensor.__str__ is "tf.Tensor(%s, shape=%s, dtype=%s)" with a newline before a
# multi-line numpy text.
import numpy as np


def tstr(a):
    t = str(a)
    t = "\n" + t if "\n" in t else t
    shape = "(" + ", ".join(str(d) for d in a.shape) + ("," if a.ndim == 1 else "") + ")"
    return "tf.Tensor(%s, shape=%s, dtype=%s)" % (t, shape, a.dtype)


t = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
print(tstr(t[1:2, 0:1, 0:3]))
print(tstr(t[1:2, -1:-3:-1, 0:3]))
print(tstr(t[1, 0:2]))
print(tstr(t[:, :, 1:3]))
print(tstr(t[..., 1:2]))
print("(" + ", ".join(str(d) for d in t[np.newaxis, 0:2].shape) + ")")
print(tstr(t[0:2, 2:0:-2]))
t2 = np.arange(20, dtype=np.int32).reshape(4, 5)
print(tstr(t2[1:3, 2:4]))
g = np.zeros((2, 3), dtype=np.float32)
g[0:2, 1:3:2] += 3.0
print(tstr(g))
# the kernel's check (strided_slice_op.cc ValidateStridedSliceOp): begin, end and strides of one length
print("InvalidArgumentError True")
