#!/usr/bin/python3
# gen_data_options_act_expect.py — writes tests/programs/data_options_act.out from a Python model of how TF 2.15's tf.data.Options reach a pipeline's parallel map and interleave.
"""The rules (tensorflow/core/data/dataset_utils.cc GetAutotuneDefaultParallelism and the default/enabled
optimization sets, core/grappler/optimizers/data/map_parallelization.cc, kernels/data/experimental/
threadpool_dataset_op.cc): the iterated dataset's options apply to the whole pipeline; a parallel map's calls run
on the pipeline's pool, which is private_threadpool_size threads when set; AUTOTUNE starts at min(16, pool), the
autotuner keeps it within cpu_budget (tfs takes the pool within cpu_budget at once, without tuning; with
autotune off it stays min(16, pool)); map_parallelization rewrites a MapDataset of a stateless function into
ParallelMapDatasetV2(AUTOTUNE, deterministic=true), and not when autotune is off.  tfs's parallel map fills its
buffer `lanes` elements at a time, one on the calling thread and the others on workers, so N elements on L lanes
make sum(batch - 1) worker runs; a map left on one lane makes none.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "programs", "data_options_act.out")
AUTOTUNE = -1


def lanes(npc, pool, autotune=True, budget=None):
    if npc == AUTOTUNE:
        n = pool if autotune else min(16, pool)
        if autotune and budget:
            n = min(n, budget)
    else:
        n = min(npc, pool)
    return n


def worker_runs(n_elems, n_lanes):
    if n_lanes < 2:
        return 0
    full, rest = divmod(n_elems, n_lanes)
    return full * (n_lanes - 1) + max(rest - 1, 0)


def main():
    f = lambda x: x * 3 + 1
    vals = [f(x) for x in range(20)]
    lines = []

    def run(name, n_lanes, values=vals):
        lines.append("%s %s %d" % (name, values, worker_runs(len(values), n_lanes)))

    run("AUTOTUNE, pool 2:", lanes(AUTOTUNE, 2))
    run("AUTOTUNE, pool 1:", lanes(AUTOTUNE, 1))
    run("8 calls, pool 1:", lanes(8, 1))
    run("8 calls, pool 4:", lanes(8, 4))
    run("options below the map:", lanes(8, 1))   # with_options below: merged into the iterated dataset's
    run("options above a later map:", lanes(8, 1), [f(v) for v in vals])
    run("AUTOTUNE, autotune off, pool 2:", lanes(AUTOTUNE, 2, autotune=False))
    run("AUTOTUNE, cpu_budget 1, pool 4:", lanes(AUTOTUNE, 4, budget=1))
    run("AUTOTUNE, cpu_budget 2, pool 4:", lanes(AUTOTUNE, 4, budget=2))
    run("sequential map, pool 2:", 1)
    run("map_parallelization, pool 2:", lanes(AUTOTUNE, 2))
    run("map_parallelization, autotune off:", 1)   # the rewrite is skipped
    run("map_parallelization=False:", 1)
    run("map_parallelization, py_function:", 1)    # a stateful function is not rewritten
    run("deterministic=False, 4 calls:", lanes(4, 4))   # tfs keeps the input order, one of TF's orders
    lines.append("max_intra_op_parallelism 1: the same bits: True True 6")
    inter = [i * 10 + k for k in range(5) for i in range(4)]   # cycle_length 4, block_length 1
    lines.append("interleave, pool 1: %s 0" % inter)
    lines.append("interleave, pool 2: same order: True worker reads: True")
    with open(OUT, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
