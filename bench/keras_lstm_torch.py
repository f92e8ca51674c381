#!/usr/bin/python3
"""keras_lstm_torch.py — the PyTorch peer of keras_lstm.tfs: Embedding 2000x64 -> LSTM 64 -> Linear 1, batch 64 of 80 tokens, Adam
(argument "gru": nn.GRU 64, the form of Keras' reset_after=True; lines named gru_*; "simple_rnn": nn.RNN 64, tanh)."""
import sys
import time

import torch

import torch_timing

torch_timing.env_threads()
KIND = sys.argv[1] if len(sys.argv) > 1 else "lstm"


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(2000, 64)
        self.lstm = {"gru": torch.nn.GRU, "simple_rnn": torch.nn.RNN}.get(KIND, torch.nn.LSTM)(64, 64, batch_first=True)
        self.out = torch.nn.Linear(64, 1)

    def forward(self, x):
        return self.out(self.lstm(self.emb(x))[0][:, -1])


def main():
    torch.manual_seed(3)
    x = torch.randint(0, 2000, (64, 80))
    y = torch.randint(0, 2, (64, 1)).float()
    model = Net()
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    print("threads", torch.get_num_threads())
    print(KIND + "_train_steps_per_s", round(torch_timing.best_rate(step, 10, repeats=3), 1))
    xi = torch.randint(0, 2000, (256, 80))
    with torch.no_grad():
        print(KIND + "_infer_b256_ms", round(torch_timing.best_ms(lambda: model(xi), 5, repeats=3), 1))
    c0 = time.process_time()
    for _ in range(10):
        step()
    print(KIND + "_train_cpu_ms_per_step", round((time.process_time() - c0) * 100.0, 1))
    c0 = time.process_time()
    with torch.no_grad():
        for _ in range(5):
            model(xi)
    print(KIND + "_infer_b256_cpu_ms", round((time.process_time() - c0) * 200.0, 1))


if __name__ == "__main__":
    main()
