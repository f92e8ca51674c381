#!/bin/sh
# run_parinter.sh — Dataset.interleave at num_parallel_calls 1 vs AUTOTUNE (bench/parallel_interleave.tfs), best over rounds, and the ratios.
# Usage: bench/run_parinter.sh [rounds]   (BUILD=<meson build dir>, default ./build).  The machine may be shared:
# rounds interleave both settings so that load hits them alike; compare the ratios, not the times.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${1:-3}
ninja -C "$BUILD" compiler/tfs >/dev/null
DIR=$(mktemp -d /tmp/tfs-parinter.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
i=0
while [ $i -lt "$ROUNDS" ]; do
  "$BUILD/compiler/tfs" run "$ROOT/bench/parallel_interleave.tfs" "$DIR" >> "$DIR/out"
  i=$((i + 1))
done
echo "Dataset.interleave, best of $ROUNDS rounds (ms per pass; lower is better), $(nproc) cores"
echo "(wall: elapsed time; cpu: the process's CPU time over all threads, so cpu AUTOTUNE / cpu 1 is the overhead)"
awk '{ k = $1 " " $2; if (!(k in best) || $3 < best[k]) best[k] = $3; if (!(k in cpu) || $4 < cpu[k]) cpu[k] = $4 }
     END { printf "%-8s %10s %10s %8s %10s %10s %8s\n", "workload", "wall 1", "wall AUTO", "speedup", "cpu 1", "cpu AUTO", "cpu x";
           split("files map lines", w, " ");
           for (i = 1; i <= 3; i++) { a = best[w[i] " 1"]; b = best[w[i] " AUTOTUNE"]; c = cpu[w[i] " 1"]; d = cpu[w[i] " AUTOTUNE"];
             printf "%-8s %10.1f %10.1f %7.2fx %10.1f %10.1f %7.2fx\n", w[i], a, b, a / b, c, d, d / c } }' "$DIR/out"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
