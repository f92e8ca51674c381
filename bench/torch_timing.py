"""torch_timing.py — the PyTorch benches' shared preamble: the thread count from argv (run_cnn.sh and run_depthwise.sh
call each script at 1 and at all threads) or from KERAS_TORCH_THREADS, a fixed seed, and best-of-repeats timing of a
warmed-up function."""
import os
import sys
import time

import torch


def setup(argv=None):
    """torch.set_num_threads(THREADS), THREADS the first argument, and the benches' manual seed 3."""
    argv = sys.argv if argv is None else argv
    torch.set_num_threads(int(argv[1]))
    torch.manual_seed(3)


def env_threads():
    """The Keras peers' policy: one thread, as tfs runs their step (single-threaded libxsmm kernels);
    KERAS_TORCH_THREADS=N sets N, KERAS_TORCH_THREADS=default keeps PyTorch's own choice (one per core)."""
    if os.environ.get("KERAS_TORCH_THREADS", "1") != "default":
        torch.set_num_threads(int(os.environ.get("KERAS_TORCH_THREADS", "1")))


def best_rate(fn, number, repeats=5):
    """Calls of fn per second, the best of `repeats` timed loops of `number` calls after one warm-up call."""
    fn()
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = max(best, number / (time.perf_counter() - t0))
    return best


def best_ms(fn, number, repeats=5):
    """Milliseconds per call of fn, the best of `repeats` timed loops of `number` calls after one warm-up call."""
    return 1000.0 / best_rate(fn, number, repeats)
