#!/bin/sh
# tape_count.sh — instructions per eager op with and without a recording GradientTape, counted by valgrind (deterministic, unlike timings).
# Usage: bench/tape_count.sh [EXPR ...]   (default: "a * b"; a and b are 4-float tensors, a watched; BUILD=<meson build dir>, default ./build)
# Runs 100 tapes x 1,000 ops and the same program with no op (so start-up cancels), taped and untaped (a tape outside its block).
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
command -v valgrind >/dev/null || { echo "bench/tape_count.sh: needs valgrind" >&2; exit 2; }
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" >/dev/null
OUT=$(mktemp -d /tmp/tfs-tapecount.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
[ $# -gt 0 ] || set -- "a * b"
for expr in "$@"; do
  for n in 0 1000; do
    for mode in taped untaped; do
      if [ $mode = taped ]; then body="    tape.watch(a)
    for i in range($n):
        c = $expr
    tape.__exit__(None, None, None)"
      else body="    tape.watch(b)
    tape.__exit__(None, None, None)
    for i in range($n):
        c = $expr"
      fi
      printf 'a = tf.constant([1.0, 2.0, 3.0, 4.0])\nb = tf.constant([0.5, 0.25, 2.0, 1.0])\ndef run():\n    tape = tf.GradientTape()\n    tape.__enter__()\n%s\nfor j in range(100):\n    run()\n' "$body" > "$OUT/$mode$n.tfs"
      valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$BUILD/compiler/tfs" run "$OUT/$mode$n.tfs" 2>&1 |
        sed -n 's/.*Collected : //p' > "$OUT/n.$mode$n"
    done
  done
  awk -v e="$expr" -v u0="$(cat "$OUT/n.untaped0")" -v u1="$(cat "$OUT/n.untaped1000")" \
      -v t0="$(cat "$OUT/n.taped0")" -v t1="$(cat "$OUT/n.taped1000")" 'BEGIN {
    u = (u1 - u0) / 1e5; t = (t1 - t0) / 1e5
    printf "%-26s untaped op %7.1f   taped op %7.1f   extra %6.1f   taped/untaped %.3f\n", e, u, t, t - u, t / u }'
done
