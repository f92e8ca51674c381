#!/usr/bin/python3
"""eager_ops_torch.py — the PyTorch peer of eager_ops.c: per-op time of scalar add and 10x10 int32 matmul (same keys)."""
import sys
import time

import torch

torch.set_num_threads(1)


def best_ns(fn, n, reps=5):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(n)
        dt = (time.perf_counter() - t0) / n * 1e9
        best = min(best, dt)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    a, b = torch.tensor(1.5), torch.tensor(2.25)

    def op_add(k):
        for _ in range(k):
            a + b

    def call_add(k):
        add = torch.add
        for _ in range(k):
            add(a, b)

    def attr_call_add(k):
        for _ in range(k):
            torch.add(a, b)

    m = (torch.arange(100, dtype=torch.int32).reshape(10, 10) * 7) % 5 - 2

    def mm(k):
        for _ in range(k):
            torch.matmul(m, m)

    def power(k):
        for _ in range(k):
            acc = m
            for _ in range(100):
                acc = torch.matmul(acc, m)

    f = (torch.arange(64 * 64, dtype=torch.float32).reshape(64, 64) % 13) * 0.25

    def mm64(k):
        for _ in range(k):
            torch.matmul(f, f)

    nm = max(n // 10, 1)
    print("scalar_add_operator_ns %.1f" % best_ns(op_add, n))
    print("scalar_add_tf_add_call_ns %.1f" % best_ns(call_add, n))
    print("scalar_add_getattr_call_ns %.1f" % best_ns(attr_call_add, n))
    print("matmul_10x10_int32_ns %.1f" % best_ns(mm, nm))
    print("power_100_matmuls_10x10_int32_us %.2f" % (best_ns(power, max(nm // 100, 1)) / 1000))
    print("matmul_64x64_float32_ns %.1f" % best_ns(mm64, max(nm // 10, 1)))


if __name__ == "__main__":
    main()
