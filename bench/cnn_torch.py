#!/usr/bin/python3
"""cnn_torch.py — the PyTorch peer of bench/cnn.tfs: the same MNIST CNN (NCHW), Adam, batch 64 training steps/s in an
eager loop, and inference of 256 images under no_grad in ms.  Usage: cnn_torch.py THREADS (torch.set_num_threads)."""
import torch

import torch_timing


def main():
    torch_timing.setup()
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Flatten(), torch.nn.Linear(1600, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,))
    xi = torch.rand(256, 1, 28, 28)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    def infer():
        with torch.no_grad():
            model(xi)

    print("cnn_train_steps_per_s", round(torch_timing.best_rate(step, 10), 1))
    print("cnn_infer256_ms", round(torch_timing.best_ms(infer, 5), 2))


if __name__ == "__main__":
    main()
