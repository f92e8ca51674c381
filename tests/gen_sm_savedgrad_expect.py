#!/usr/bin/env python3
"""gen_sm_savedgrad_expect.py — expected outputs of tests/savedmodel/sm_savedgrad_{save,load}.tfs, computed with torch.

The custom gradient (TF's advanced_autodiff guide) is clip_by_norm(dy, 0.5) in place of y's identity gradient; saved
with experimental_custom_gradients=True it is the loaded functions' gradient too, in the saving process and a fresh one.
usage: gen_sm_savedgrad_expect.py TESTS_DIR/savedmodel
"""
import os
import sys

import torch

from gen_sm_customgrad_expect import Clip   # the guide's clip_by_norm(dy, 0.5) gradient


def fmt(x):
    x = x.detach()
    if x.dim() == 0:
        return "tf.Tensor(%r, shape=(), dtype=float32)" % float(x)
    s = [str(e) for e in x.numpy()]      # numpy's shortest float32 repr, padded to one width as numpy prints
    w = max(len(e) for e in s)
    return "tf.Tensor([%s], shape=(%d,), dtype=float32)" % (" ".join(e.ljust(w) for e in s), len(s))


def grad(f, init):
    v = torch.tensor(init, requires_grad=True)
    out = f(v)
    (g,) = torch.autograd.grad(out, v, torch.ones_like(out))
    return fmt(g)


custom_sq = grad(lambda v: Clip.apply(v * v), 2.0)
custom_v = grad(lambda v: Clip.apply(v), 2.0)
square = grad(lambda v: v * v, 2.0)
scaled_sq = grad(lambda w: Clip.apply(w * w * 3.0), [1.0, 2.0, 3.0])
scaled = grad(lambda w: Clip.apply(w * 3.0), [1.0, 2.0, 3.0])
d = sys.argv[1]
with open(os.path.join(d, "sm_savedgrad_save.out"), "w") as f:
    f.write("\n".join([custom_sq, "saved", custom_sq, custom_v, square, scaled_sq]) + "\n")
with open(os.path.join(d, "sm_savedgrad_load.out"), "w") as f:
    f.write("\n".join([fmt(torch.tensor(4.0)), custom_sq, custom_v, square, scaled_sq, scaled]) + "\n")
