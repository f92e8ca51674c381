#!/bin/sh
# run_dist.sh — §18.11's three goals in one run: weak scaling of bench/dist_scaling.tfs at 2 ranks (blocking through the shared window, overlapped, blocking over point-to-point MPI) against 1 rank and against the ceiling (two independent 1-rank runs at once, one per core), tfs's fused all-reduce of the 358 KB gradients and the collectives' time per step against MPI_Allreduce of the same buffer (bench/allreduce_mpi.c), and the 1-process fallback against the same training without a strategy; PyTorch DDP over Gloo on the same MLP step (bench/dist_ddp_torch.py) beside them; the configurations alternate, ROUNDS rounds, medians; wall and CPU time, load averages.
# Usage: bench/run_dist.sh [ROUNDS [STEPS]]   (BUILD=<meson build dir>, default ./build)
set -e
ROUNDS=${1:-5}
STEPS=${2:-2000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ninja -C "$BUILD" >/dev/null
TFS=$BUILD/compiler/tfs
B=$ROOT/bench/dist_scaling.tfs
ROOTFLAG=
[ "$(id -u)" = 0 ] && ROOTFLAG=--allow-run-as-root
OUT=$(mktemp -d /tmp/tfs-dist.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mpicc -O2 -o "$OUT/allreduce" "$ROOT/bench/allreduce_mpi.c"
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
L=$OUT/log
for r in $(seq "$ROUNDS"); do
  echo "round $r load $(cut -d' ' -f1 /proc/loadavg)" >>"$L"
  taskset -c 0 "$TFS" run "$B" steps="$STEPS" | sed 's/^/one /' >>"$L"
  taskset -c 0 "$TFS" run "$B" plain steps="$STEPS" | sed 's/^/plain /' >>"$L"
  # the ceiling: two independent processes at once, nothing exchanged (shared L3, memory bandwidth, clocks)
  taskset -c 0 "$TFS" run "$B" steps="$STEPS" >"$OUT/c0" & p=$!
  taskset -c 1 "$TFS" run "$B" steps="$STEPS" >"$OUT/c1"
  wait $p
  sed 's/^/ceil /' "$OUT/c0" "$OUT/c1" >>"$L"
  # ov0: blocking through the shared window (the default at 2 ranks on one host); ov1: overlapped; swap: blocking,
  # the buffers swapped over point-to-point MPI (TFS_DIST_SHM=0, the path before the window)
  for ov in 0 1 swap; do
    o=$ov; s=1
    [ "$ov" = swap ] && o=0 s=0
    mpirun $ROOTFLAG -np 2 --bind-to core -x TFS_DIST_OVERLAP=$o -x TFS_DIST_SHM=$s -x TFS_DIST_STATS=1 "$TFS" run "$B" \
      steps="$STEPS" 2>"$OUT/err" | sed "s/^/ov$ov /" >>"$L"
    sed -n "s/^tfs: rank [0-9]*: waited \([0-9.]*\) s.*/ov$ov wait \1/p" "$OUT/err" >>"$L"
  done
  mpirun $ROOTFLAG -np 2 --bind-to core "$OUT/allreduce" 89610 20 21 | sed -n 's/^MPI_Allreduce /mpi /p' >>"$L"
  # PyTorch DDP over Gloo on the same MLP step, 1 process and 2 ranks, and Gloo's all-reduce of the 358 KB
  /usr/bin/python3 "$ROOT/bench/dist_ddp_torch.py" "$STEPS" | sed 's/^/ddp /' >>"$L"
  mpirun $ROOTFLAG -np 2 --bind-to core "$TFS" run "$B" allreduce steps=420 | sed -n 's/^allreduce 2: fastest 20 calls \([0-9.]*\) .*/tfsar \1/p' >>"$L"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$L" "$STEPS" <<'PY'
import re, statistics, sys
steps = int(sys.argv[2])
# per configuration, per round: (samples/s, wall ms/step, cpu ms/step, fastest 20-step block ms/step)
runs = {k: [] for k in ("one", "plain", "ceil", "ov0", "ov1", "ovswap", "ddpone", "ddptwo")}
waits = {"ov0": [], "ov1": [], "ovswap": []}
mpi, tfsar, loads, ceil, ddpar = [], [], [], [], []
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "round":
        loads.append(float(w[3]))
        continue
    m = re.search(r": (\d+) samples/s \(([\d.]+) ms/step, cpu ([\d.]+) ms/step, fastest 20 steps ([\d.]+) ms/step\)", line)
    if m:
        v = tuple(float(x) for x in m.groups())
        if w[0] == "ddp":
            runs["ddp" + w[1].rstrip(":")].append(v)
        elif w[0] == "ceil":
            ceil.append(v)
            if len(ceil) == 2:   # both processes: samples/s add, a step is the slower one's
                runs["ceil"].append((ceil[0][0] + ceil[1][0], max(ceil[0][1], ceil[1][1]), (ceil[0][2] + ceil[1][2]) / 2,
                                     max(ceil[0][3], ceil[1][3])))
                ceil = []
        else:
            runs[w[0]].append(v)
            if w[0] in waits: waits[w[0]].append(0.0)
    elif w[0] in waits and w[1] == "wait": waits[w[0]][-1] += float(w[2]) / 2 / steps * 1e3   # per rank and step, ms
    elif w[0] == "mpi": mpi.append(float(w[1]) / 1e3)   # fastest round, ms
    elif w[0] == "tfsar": tfsar.append(float(w[1]))   # fastest 20 calls, ms
    elif w[0] == "ddp" and w[1] == "allreduce:": ddpar.append(float(w[2]))   # Gloo, fastest 20 calls, ms
med = lambda k, i: statistics.median(x[i] for x in runs[k])
print("load average at the rounds' starts: %s" % " ".join("%.1f" % x for x in loads))
print("medians of %d rounds; 'fastest' = each run's fastest block of 20 steps (the least disturbed by other jobs)" % len(loads))
m1, f1 = med("one", 0), med("one", 3)
print("1 rank: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step); fastest %.3f ms/step" % (m1, med("one", 1), med("one", 2), f1))
fc = med("ceil", 3)
print("ceiling, 2 independent 1-rank processes at once: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step): %.0f%% of 2 x 1 "
      "rank; fastest %.3f ms/step: %.0f%%" % (med("ceil", 0), med("ceil", 1), med("ceil", 2), 100 * med("ceil", 0) / (2 * m1),
                                             fc, 100 * f1 / fc))
ma = statistics.median(mpi)
ta = statistics.median(tfsar)
print("all-reduce of the 358 KB gradients, fastest of 21 blocks of 20 calls: MPI_Allreduce %.3f ms; tfs (strategy.run's "
      "fused all-reduce in a tf.function, header exchange included) %.3f ms = %.2f x MPI_Allreduce" % (ma, ta, ta / ma))
for k, name in (("ov0", "blocking (shared window)"), ("ov1", "overlapped"), ("ovswap", "blocking (swap)")):
    s2, f2 = med(k, 0), med(k, 3)
    print("2 ranks %s: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step, waiting in collectives %.3f ms/step): weak-scaling "
          "efficiency %.0f%%; fastest %.3f ms/step: %.0f%% (%.0f%% of the ceiling)" % (
              name, s2, med(k, 1), med(k, 2), statistics.median(waits[k]), 100 * s2 / (2 * m1), f2, 100 * f1 / f2,
              100 * fc / f2))
    print("  collectives' time, fastest 2-rank step - fastest ceiling step: %.3f ms = %.2f x MPI_Allreduce" % (
        f2 - fc, (f2 - fc) / ma))
d1, d2 = med("ddpone", 0), med("ddptwo", 0)
print("PyTorch DDP (Gloo), one thread per process: 1 process %.0f samples/s (fastest %.3f ms/step), 2 ranks %.0f samples/s "
      "(fastest %.3f ms/step): weak-scaling efficiency %.0f%% (fastest %.0f%%); Gloo's all-reduce of the 358 KB %.3f ms = "
      "%.2f x MPI_Allreduce" % (d1, med("ddpone", 3), d2, med("ddptwo", 3), 100 * d2 / (2 * d1),
                                 100 * med("ddpone", 3) / med("ddptwo", 3), statistics.median(ddpar),
                                 statistics.median(ddpar) / ma))
mp = med("plain", 0)
print("fallback: 1 process with the strategy %.0f samples/s (cpu %.3f ms/step, fastest %.3f), without %.0f (cpu %.3f, "
      "fastest %.3f): %+.1f%% time (cpu %+.1f%%, fastest %+.1f%%)" % (
          m1, med("one", 2), f1, mp, med("plain", 2), med("plain", 3), 100 * (mp / m1 - 1),
          100 * (med("one", 2) / med("plain", 2) - 1), 100 * (f1 / med("plain", 3) - 1)))
PY
