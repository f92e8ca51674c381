#!/bin/sh
# run_prof.sh — the profiler's cost: bench/prof.tfs with the profiler off (this build vs a baseline built without the per-op branch) and on.
# Usage: bench/run_prof.sh [rounds]   (BUILD=<meson build dir>, default ./build; the baseline is $BUILD-noprof,
# configured with -DTFS_PROF_COMPILED_OUT and built if needed). Rounds alternate the two binaries so that load
# on the machine hits both alike; each figure is the best over rounds (microseconds per call).
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BASE=${BASE:-$BUILD-noprof}
ROUNDS=${1:-5}
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
if [ ! -f "$BASE/build.ninja" ]; then meson setup "$BASE" "$ROOT" -Dc_args=-DTFS_PROF_COMPILED_OUT >/dev/null; fi
ninja -C "$BUILD" compiler/tfs >/dev/null
ninja -C "$BASE" compiler/tfs >/dev/null
OUT=$(mktemp -d /tmp/tfs-prof.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
i=0
while [ $i -lt "$ROUNDS" ]; do
  "$BASE/compiler/tfs" run "$ROOT/bench/prof.tfs" | sed 's/^/base /' >> "$OUT/all.txt"
  "$BUILD/compiler/tfs" run "$ROOT/bench/prof.tfs" | sed 's/^/off /' >> "$OUT/all.txt"
  "$BUILD/compiler/tfs" run "$ROOT/bench/prof.tfs" on "$OUT/log" | sed 's/^/on /' >> "$OUT/all.txt"
  i=$((i + 1))
done
echo "profiler cost, best of $ROUNDS rounds (us per call; lower is better)"
awk '{ k = $2; m = $1; if (!((m, k) in best) || $3 < best[m, k]) best[m, k] = $3; keys[k] = 1 }
     END { printf "%-14s %12s %12s %9s %12s %9s\n", "workload", "no branch", "off", "off cost", "on", "on cost";
           split("seq_eager mlp_eager mlp_function", order, " ");
           for (i = 1; i <= 3; i++) { k = order[i]; b = best["base", k]; f = best["off", k]; o = best["on", k];
             printf "%-14s %12.3f %12.3f %8.2f%% %12.3f %8.1f%%\n", k, b, f, 100 * (f - b) / b, o, 100 * (o - b) / b } }' \
  "$OUT/all.txt"
