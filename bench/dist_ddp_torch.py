#!/usr/bin/env python3
"""dist_ddp_torch.py — PyTorch's side of bench/run_dist.sh: the same MLP step as bench/dist_scaling.tfs (784-100-100-10,
relu, SGD 0.1, sparse softmax cross-entropy summed over the global batch, 100 samples per rank) under
DistributedDataParallel over Gloo, and Gloo's all-reduce of the gradients' 358 KB (89,610 floats).

usage: dist_ddp_torch.py STEPS       (one thread per process, each process on its own core)
prints, in run_dist.sh's format:
  one: N samples/s (W ms/step, cpu C ms/step, fastest 20 steps F ms/step)      one process, no DDP
  two: N samples/s (...)                                                        2 ranks with DDP (samples/s of both)
  allreduce: F                                                                  fastest block of 20 all-reduces, ms
"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

B = 100


def model():
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(784, 100), torch.nn.ReLU(), torch.nn.Linear(100, 100), torch.nn.ReLU(),
                               torch.nn.Linear(100, 10))


def train(net, steps, world):
    """Runs `steps` SGD steps; returns (wall ms/step, cpu ms/step, fastest 20-step block ms/step)."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(B, 784, generator=g)
    y = torch.randint(0, 10, (B,), generator=g)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    loss_fn = torch.nn.CrossEntropyLoss(reduction="sum")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y) / float(B * world)
        loss.backward()
        opt.step()

    for _ in range(20):   # warm-up (DDP builds its buckets on the first steps)
        step()
    best = 1e9
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps // 20):
        tb = time.perf_counter()
        for _ in range(20):
            step()
        best = min(best, (time.perf_counter() - tb) / 20)
    n = steps // 20 * 20
    return (time.perf_counter() - t0) / n * 1e3, (time.process_time() - c0) / n * 1e3, best * 1e3


def rank_main(rank, port, steps, out):
    torch.set_num_threads(1)
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=2)
    net = torch.nn.parallel.DistributedDataParallel(model())
    wall, cpu, fast = train(net, steps, 2)
    buf = torch.ones(89610)
    for _ in range(20):
        dist.all_reduce(buf)
    best = 1e9
    for _ in range(21):
        tb = time.perf_counter()
        for _ in range(20):
            dist.all_reduce(buf)
        best = min(best, (time.perf_counter() - tb) / 20)
    out.put((rank, wall, cpu, fast, best * 1e3))
    dist.destroy_process_group()


def line(name, samples, wall, cpu, fast):
    print("%s: %d samples/s (%.3f ms/step, cpu %.3f ms/step, fastest 20 steps %.3f ms/step)" % (
        name, samples, wall, cpu, fast))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    torch.set_num_threads(1)
    os.sched_setaffinity(0, {0})
    wall, cpu, fast = train(model(), steps, 1)
    line("one", B / wall * 1e3, wall, cpu, fast)
    with socket.socket() as s:   # a free port on loopback for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, port, steps, q)) for r in range(2)]
    for p in procs:
        p.start()
    res = sorted(q.get() for _ in procs)
    for p in procs:
        p.join()
    wall = max(r[1] for r in res)
    line("two", 2 * B / wall * 1e3, wall, sum(r[2] for r in res) / 2, max(r[3] for r in res))
    print("allreduce: %.4f" % max(r[4] for r in res))


if __name__ == "__main__":
    main()
