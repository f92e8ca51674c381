#!/bin/sh
# run_parmap.sh — Dataset.map at num_parallel_calls 1 vs AUTOTUNE (bench/parallel_map.tfs), best over rounds, and the ratio.
# Usage: bench/run_parmap.sh [rounds]   (BUILD=<meson build dir>, default ./build).  The machine may be shared:
# rounds interleave both settings so that load hits them alike; compare the ratio, not the times.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${1:-3}
ninja -C "$BUILD" compiler/tfs >/dev/null
OUT=$(mktemp /tmp/tfs-parmap.XXXXXX)
trap 'rm -f "$OUT"' EXIT
i=0
while [ $i -lt "$ROUNDS" ]; do
  "$BUILD/compiler/tfs" run "$ROOT/bench/parallel_map.tfs" >> "$OUT"
  i=$((i + 1))
done
echo "Dataset.map, best of $ROUNDS rounds (ms per element; lower is better), $(nproc) cores"
echo "(wall: elapsed time; cpu: the process's CPU time over all threads, so cpu AUTOTUNE / cpu 1 is the overhead)"
awk '{ k = $1 " " $2; if (!(k in best) || $3 < best[k]) best[k] = $3; if (!(k in cpu) || $4 < cpu[k]) cpu[k] = $4 }
     END { printf "%-8s %10s %10s %8s %10s %10s\n", "workload", "wall 1", "wall AUTO", "speedup", "cpu 1", "cpu AUTO";
           split("small large", w, " ");
           for (i = 1; i <= 2; i++) { a = best[w[i] " 1"]; b = best[w[i] " AUTOTUNE"];
             printf "%-8s %10.3f %10.3f %7.2fx %10.3f %10.3f\n", w[i], a, b, a / b, cpu[w[i] " 1"], cpu[w[i] " AUTOTUNE"] } }' "$OUT"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
