#!/usr/bin/python3
"""depthwise_torch.py — the PyTorch peer of bench/depthwise.tfs: the same 3x3 depthwise layer (conv2d with groups = 64,
padding 1) on 16 x 64 x 56 x 56 float32, forward and forward + both gradients for dy = 2 y, in ms (best of 5 runs).
Usage: depthwise_torch.py THREADS (torch.set_num_threads)."""
import torch
import torch.nn.functional as F

import torch_timing


def main():
    torch_timing.setup()
    x = torch.rand(16, 64, 56, 56)
    w = torch.rand(64, 1, 3, 3)

    def fwd():
        with torch.no_grad():
            F.conv2d(x, w, padding=1, groups=64)

    def fwd_bwd():
        a, k = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
        y = F.conv2d(a, k, padding=1, groups=64)
        y.backward(2.0 * y.detach())

    print("dw_fwd_ms", round(torch_timing.best_ms(fwd, 10), 2))
    print("dw_fwd_bwd_ms", round(torch_timing.best_ms(fwd_bwd, 5), 2))


if __name__ == "__main__":
    main()
