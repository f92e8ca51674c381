#!/usr/bin/python3
"""resnet_block_torch.py — the PyTorch peer of bench/resnet_block.tfs: the same ResNet block (NCHW, BatchNorm2d with Keras'
epsilon and momentum), Adam, batch 64 training steps/s in an eager loop, and inference of the 64 images under no_grad (eval
mode) in ms.  Usage: resnet_block_torch.py THREADS (torch.set_num_threads)."""
import torch

import torch_timing


class Block(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = torch.nn.Conv2d(c, c, 3, padding=1)
        self.b1 = torch.nn.BatchNorm2d(c, eps=1e-3, momentum=0.01)
        self.c2 = torch.nn.Conv2d(c, c, 3, padding=1)
        self.b2 = torch.nn.BatchNorm2d(c, eps=1e-3, momentum=0.01)

    def forward(self, x):
        h = torch.relu(self.b1(self.c1(x)))
        return torch.relu(self.b2(self.c2(h)) + x)


def main():
    torch_timing.setup()
    model = Block(16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.MSELoss()
    x, y = torch.rand(64, 16, 32, 32) * 2 - 1, torch.rand(64, 16, 32, 32)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    def infer():
        with torch.no_grad():
            model(x)

    model.train()
    print("resnet_train_steps_per_s", round(torch_timing.best_rate(step, 10), 1))
    model.eval()
    print("resnet_infer64_ms", round(torch_timing.best_ms(infer, 10), 2))


if __name__ == "__main__":
    main()
