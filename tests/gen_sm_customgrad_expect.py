#!/usr/bin/env python3
"""gen_sm_customgrad_expect.py — expected outputs of tests/savedmodel/sm_customgrad_{save,load}.tfs, computed with torch.

The custom gradient (TF's advanced_autodiff guide) is clip_by_norm(dy, 0.5) in place of y's identity gradient; the
LookupError text is TF 2.15's gradients_util.py message for an IdentityN whose _gradient_op_type has no registered
gradient (a SavedModel written with experimental_custom_gradients=False, loaded in a fresh process).
usage: gen_sm_customgrad_expect.py TESTS_DIR/savedmodel
"""
import os
import sys

import torch


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y):
        return y.clone()

    @staticmethod
    def backward(ctx, dy):
        n = torch.linalg.vector_norm(dy)
        return dy * 0.5 / n if n > 0.5 else dy   # tf.clip_by_norm(dy, 0.5)


def tensor(x):
    return "tf.Tensor(%r, shape=(), dtype=float32)" % float(x)


def main():
    v = torch.tensor(2.0, requires_grad=True)
    out = Clip.apply(v * v)
    (g_custom,) = torch.autograd.grad(out, v)
    v2 = torch.tensor(2.0, requires_grad=True)
    (g_square,) = torch.autograd.grad((v2 * 3.0) * (v2 * 3.0), v2)
    msg = ("No gradient defined for operation'IdentityN' (op type: IdentityN). In general every operation must have an "
           "associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If you want to pretend this "
           "operation is a constant in your program, you may insert `tf.stop_gradient`. This can be useful to silence the "
           "error in cases where you know gradients are not needed, e.g. the forward pass of tf.custom_gradient. Please see "
           "more details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient.")
    d = sys.argv[1]
    with open(os.path.join(d, "sm_customgrad_save.out"), "w") as f:
        f.write(tensor(g_custom) + "\nsaved\n")
    with open(os.path.join(d, "sm_customgrad_load.out"), "w") as f:
        f.write(tensor(2.0 * 2.0) + "\n" + tensor(g_square) + "\nLookupError: " + msg + "\n")


if __name__ == "__main__":
    main()
