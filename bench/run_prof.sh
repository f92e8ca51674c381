#!/bin/sh
# run_prof.sh — the profiler's cost: bench/prof.tfs with the profiler off (this build vs a baseline built without the per-op branch) and on.
# Two measures: instructions per call counted by valgrind's cachegrind (deterministic, whatever the load),
# and wall time per call.
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

# instructions per call: (count with N calls - count with 0 calls) / N, for each binary
ir() {   # binary workload n [on]
  valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
    "$1" run "$ROOT/bench/prof.tfs" count "$2" "$3" $4 2>&1 | sed -n 's/.*I *refs: *//p' | tail -1 | tr -d ,
}
if command -v valgrind >/dev/null; then
  echo
  echo "instructions per call (valgrind cachegrind)"
  printf "%-14s %12s %12s %9s %12s %9s\n" workload "no branch" off "off cost" on "on cost"
  for w in seq_eager:400 mlp_eager:4 mlp_function:4; do
    k=${w%:*}; n=${w#*:}
    b0=$(ir "$BASE/compiler/tfs" "$k" 0); b1=$(ir "$BASE/compiler/tfs" "$k" "$n")
    f0=$(ir "$BUILD/compiler/tfs" "$k" 0); f1=$(ir "$BUILD/compiler/tfs" "$k" "$n")
    o0=$(ir "$BUILD/compiler/tfs" "$k" 0 on); o1=$(ir "$BUILD/compiler/tfs" "$k" "$n" on)
    awk -v k="$k" -v n="$n" -v b0="$b0" -v b1="$b1" -v f0="$f0" -v f1="$f1" -v o0="$o0" -v o1="$o1" 'BEGIN {
      b = (b1 - b0) / n; f = (f1 - f0) / n; o = (o1 - o0) / n;
      printf "%-14s %12.0f %12.0f %8.2f%% %12.0f %8.1f%%\n", k, b, f, 100 * (f - b) / b, o, 100 * (o - b) / b }'
  done
fi
