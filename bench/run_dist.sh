#!/bin/sh
# run_dist.sh — §18.11 weak scaling: bench/dist_scaling.tfs on 1 rank, on 2 ranks with the blocking fused all-reduce (TFS_DIST_OVERLAP=0) and on 2 ranks with the all-reduce overlapped with the backward pass (the default), alternately, ROUNDS rounds (mpirun --bind-to core, one BLAS thread per rank); medians and the efficiencies.
# Usage: bench/run_dist.sh [ROUNDS]   (BUILD=<meson build dir>, default ./build)
set -e
ROUNDS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ninja -C "$BUILD" >/dev/null
TFS=$BUILD/compiler/tfs
ROOTFLAG=
[ "$(id -u)" = 0 ] && ROOTFLAG=--allow-run-as-root
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
one=""; blk=""; ovl=""
for r in $(seq "$ROUNDS"); do
  a=$(mpirun $ROOTFLAG -np 1 --bind-to core "$TFS" run "$ROOT/bench/dist_scaling.tfs" | sed -n 's/^ranks 1: \([0-9]*\) samples.*/\1/p')
  b=$(mpirun $ROOTFLAG -np 2 --bind-to core -x TFS_DIST_OVERLAP=0 "$TFS" run "$ROOT/bench/dist_scaling.tfs" | sed -n 's/^ranks 2: \([0-9]*\) samples.*/\1/p')
  c=$(mpirun $ROOTFLAG -np 2 --bind-to core -x TFS_DIST_OVERLAP=1 "$TFS" run "$ROOT/bench/dist_scaling.tfs" | sed -n 's/^ranks 2: \([0-9]*\) samples.*/\1/p')
  echo "round $r: 1 rank $a samples/s, 2 ranks blocking $b samples/s, 2 ranks overlapped $c samples/s"
  one="$one $a"; blk="$blk $b"; ovl="$ovl $c"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$one" "$blk" "$ovl" <<'PY'
import statistics, sys
one, blk, ovl = ([float(v) for v in a.split()] for a in sys.argv[1:4])
m1, mb, mo = statistics.median(one), statistics.median(blk), statistics.median(ovl)
print("median: 1 rank %.0f samples/s; 2 ranks blocking %.0f samples/s (weak-scaling efficiency %.0f%%), overlapped %.0f "
      "samples/s (%.0f%%)" % (m1, mb, 100 * mb / (2 * m1), mo, 100 * mo / (2 * m1)))
PY
