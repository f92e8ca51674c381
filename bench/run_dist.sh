#!/bin/sh
# run_dist.sh — §18.11's three goals in one run: weak scaling of bench/dist_scaling.tfs at 2 ranks (blocking and overlapped all-reduce) against 1 rank and against the ceiling (two independent 1-rank runs at once, one per core), the collectives' time per step against MPI_Allreduce of the same 358 KB buffer (bench/allreduce_mpi.c), and the 1-process fallback against the same training without a strategy; the configurations alternate, ROUNDS rounds, medians; wall and CPU time, load averages.
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
  for ov in 0 1; do
    mpirun $ROOTFLAG -np 2 --bind-to core -x TFS_DIST_OVERLAP=$ov -x TFS_DIST_STATS=1 "$TFS" run "$B" steps="$STEPS" \
      2>"$OUT/err" | sed "s/^/ov$ov /" >>"$L"
    sed -n "s/^tfs: rank [0-9]*: waited \([0-9.]*\) s.*/ov$ov wait \1/p" "$OUT/err" >>"$L"
  done
  mpirun $ROOTFLAG -np 2 --bind-to core "$OUT/allreduce" 89610 20 21 | sed -n 's/^MPI_Allreduce /mpi /p' >>"$L"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$L" "$STEPS" <<'PY'
import re, statistics, sys
steps = int(sys.argv[2])
one, plain, ceil, mpi, loads = [], [], [], [], []
rank2 = {"0": [], "1": []}
wait = {"0": [], "1": []}
cur = None
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "round":
        loads.append(float(w[3]))
        cur = {"ceil": [], "wait0": 0.0, "wait1": 0.0}
        continue
    m = re.search(r": (\d+) samples/s \(([\d.]+) ms/step, cpu ([\d.]+) ms/step\)", line)
    if w[0] == "one" and m: one.append((float(m[1]), float(m[2]), float(m[3])))
    elif w[0] == "plain" and m: plain.append((float(m[1]), float(m[2]), float(m[3])))
    elif w[0] == "ceil" and m:
        cur["ceil"].append((float(m[1]), float(m[2]), float(m[3])))
        if len(cur["ceil"]) == 2:   # both processes: samples/s add, the step is the slower one's
            c = cur["ceil"]
            ceil.append((c[0][0] + c[1][0], max(c[0][1], c[1][1]), (c[0][2] + c[1][2]) / 2))
    elif w[0] in ("ov0", "ov1") and w[1] == "wait": cur["wait" + w[0][2]] += float(w[2])
    elif w[0] in ("ov0", "ov1") and m:
        rank2[w[0][2]].append((float(m[1]), float(m[2]), float(m[3])))
        wait[w[0][2]].append(cur)   # the round's waits follow this line
    elif w[0] == "mpi": mpi.append(float(w[1]) / 1e3)   # fastest round, ms
med = lambda v, i: statistics.median(x[i] for x in v)
m1 = med(one, 0)
print("load average at the rounds' starts: %s" % " ".join("%.1f" % x for x in loads))
print("1 rank: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step)" % (m1, med(one, 1), med(one, 2)))
print("ceiling, 2 independent 1-rank processes at once: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step): "
      "%.0f%% of 2 x 1 rank" % (med(ceil, 0), med(ceil, 1), med(ceil, 2), 100 * med(ceil, 0) / (2 * m1)))
ma = statistics.median(mpi)
print("MPI_Allreduce of the 358 KB buffer: %.3f ms (fastest of 21 rounds of 20 calls, median over the rounds)" % ma)
for k, name in (("0", "blocking"), ("1", "overlapped")):
    v = rank2[k]
    s2 = med(v, 0)
    wt = statistics.median(c["wait" + k] / 2 / steps * 1e3 for c in wait[k])
    extra = med(v, 1) - med(ceil, 1)
    print("2 ranks %s: %.0f samples/s (%.3f ms/step, cpu %.3f ms/step): weak-scaling efficiency %.0f%% (%.0f%% of the "
          "ceiling); waiting in collectives %.3f ms/step, cpu not waiting %.3f ms/step" % (
              name, s2, med(v, 1), med(v, 2), 100 * s2 / (2 * m1), 100 * s2 / med(ceil, 0), wt, med(v, 2) - wt))
    print("  collectives' time: 2-rank step - ceiling step = %.3f ms = %.2f x MPI_Allreduce" % (extra, extra / ma))
mp = med(plain, 0)
print("fallback: 1 process with the strategy %.0f samples/s (cpu %.3f ms/step), without %.0f (cpu %.3f ms/step): "
      "%.1f%% slower (cpu %+.1f%%)" % (m1, med(one, 2), mp, med(plain, 2), 100 * (1 - m1 / mp),
                                       100 * (med(one, 2) / med(plain, 2) - 1)))
PY
