#!/usr/bin/python3
"""keras_train_torch.py — the PyTorch peer of keras_train.tfs: the same MLP, Adam and batch trained in an eager loop."""
import torch

import torch_timing

torch_timing.env_threads()


def main():
    torch.manual_seed(3)
    x = torch.rand(100, 784)
    y = torch.randint(0, 10, (100,))
    model = torch.nn.Sequential(torch.nn.Linear(784, 100), torch.nn.ReLU(), torch.nn.Linear(100, 100), torch.nn.ReLU(),
                                torch.nn.Linear(100, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    print("mlp_train_steps_per_s", round(torch_timing.best_rate(step, 200), 1))
    print("threads", torch.get_num_threads())


if __name__ == "__main__":
    main()
