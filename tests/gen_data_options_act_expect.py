#!/usr/bin/python3
# gen_data_options_act_expect.py — writes tests/programs/data_options_act.out from a Python model of how TF 2.15's tf.data.Options reach a pipeline's parallel map and interleave.
"""The rules (tensorflow/core/data/dataset_utils.cc GetAutotuneDefaultParallelism and the default/enabled
optimization sets, core/grappler/optimizers/data/map_parallelization.cc, kernels/data/experimental/
threadpool_dataset_op.cc): the iterated dataset's options apply to the whole pipeline; a parallel map's calls run
on the pipeline's pool, which is private_threadpool_size threads when set; AUTOTUNE starts at min(16, pool), the
autotuner keeps it within cpu_budget (tfs takes the pool within cpu_budget at once, without tuning; with
autotune off it stays min(16, pool)); map_parallelization rewrites a MapDataset of a stateless function into
ParallelMapDatasetV2(AUTOTUNE, deterministic=true) unless it or apply_default_optimizations is False, and not
when autotune is off; a map's own deterministic overrides the options'.  tfs's parallel map fills its buffer with
up to 32 elements per lane (fewer past autotune.ram_budget bytes of inputs, but at least one per lane), lane l
running elements l, l + L, ... with lane 0 the calling thread, so a fill of r elements on L lanes makes
r - ceil(r / L) worker runs; a map left on one lane makes none.  With deterministic=False the lanes take the
elements as they free up and the results come out as they finish: only the multiset is fixed.
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


def worker_runs(n_elems, n_lanes, per_fill=None):
    if n_lanes < 2:
        return 0
    per_fill = per_fill or 32 * n_lanes
    runs = 0
    while n_elems > 0:
        r = min(n_elems, per_fill)
        runs += r - -(-r // n_lanes)
        n_elems -= r
    return runs


def main():
    f = lambda x: x * 3 + 1
    vals = [f(x) for x in range(20)]
    lines = []

    def run(name, n_lanes, values=vals, per_fill=None):
        lines.append("%s %s %d" % (name, values, worker_runs(len(values), n_lanes, per_fill)))

    def run_sloppy(name, values=vals):
        lines.append("%s %s" % (name, sorted(values)))

    run("AUTOTUNE, pool 2:", lanes(AUTOTUNE, 2))
    run("AUTOTUNE, pool 1:", lanes(AUTOTUNE, 1))
    run("8 calls, pool 1:", lanes(8, 1))
    run("8 calls, pool 4:", lanes(8, 4))
    run("options below the map:", lanes(8, 1))   # with_options below: merged into the iterated dataset's
    run("options above a later map:", lanes(8, 1), [f(v) for v in vals])
    run("AUTOTUNE, autotune off, pool 2:", lanes(AUTOTUNE, 2, autotune=False))
    run("AUTOTUNE, cpu_budget 1, pool 4:", lanes(AUTOTUNE, 4, budget=1))
    run("AUTOTUNE, cpu_budget 2, pool 4:", lanes(AUTOTUNE, 4, budget=2))
    run("sequential map, pool 2:", lanes(AUTOTUNE, 2))   # TF 2.15's default map_parallelization
    run("map_parallelization, pool 2:", lanes(AUTOTUNE, 2))
    run("map_parallelization, autotune off:", 1)   # the rewrite is skipped
    run("map_parallelization=False:", 1)
    run("map_parallelization, py_function:", 1)    # a stateful function is not rewritten
    run("apply_default_optimizations=False:", 1)
    run("apply_default_optimizations=False, map_parallelization:", lanes(AUTOTUNE, 2))   # set explicitly
    run("ram_budget 1 byte, 2 calls:", lanes(2, 2), per_fill=2)   # each fill: one input per lane
    run_sloppy("deterministic=False, 4 calls:")
    run_sloppy("options deterministic=False, 4 calls:")
    run("deterministic=True over options' False:", lanes(4, 4))
    run("map_parallelization under deterministic=False:", lanes(AUTOTUNE, 2))   # the rewrite's map is deterministic
    lines.append("max_intra_op_parallelism 1: the same bits: True True 6")
    inter = [i * 10 + k for k in range(5) for i in range(4)]   # cycle_length 4, block_length 1
    lines.append("interleave, pool 1: %s 0" % inter)
    lines.append("interleave, pool 2: same order: True worker reads: True")
    with open(OUT, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
