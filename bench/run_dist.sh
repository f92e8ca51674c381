#!/bin/sh
# run_dist.sh — §18.11 weak scaling: bench/dist_scaling.tfs on 1 rank and on 2 ranks (mpirun --bind-to core, one BLAS thread per rank), alternately, ROUNDS rounds; medians and the efficiency.
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
one=""; two=""
for r in $(seq "$ROUNDS"); do
  a=$(mpirun $ROOTFLAG -np 1 --bind-to core "$TFS" run "$ROOT/bench/dist_scaling.tfs" | sed -n 's/^ranks 1: \([0-9]*\) samples.*/\1/p')
  b=$(mpirun $ROOTFLAG -np 2 --bind-to core "$TFS" run "$ROOT/bench/dist_scaling.tfs" | sed -n 's/^ranks 2: \([0-9]*\) samples.*/\1/p')
  echo "round $r: 1 rank $a samples/s, 2 ranks $b samples/s"
  one="$one $a"; two="$two $b"
done
python3 - "$one" "$two" <<'PY'
import statistics, sys
one = [float(v) for v in sys.argv[1].split()]
two = [float(v) for v in sys.argv[2].split()]
m1, m2 = statistics.median(one), statistics.median(two)
print("median: 1 rank %.0f samples/s, 2 ranks %.0f samples/s; weak-scaling efficiency %.0f%%" % (m1, m2, 100 * m2 / (2 * m1)))
PY
