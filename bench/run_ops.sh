#!/bin/sh
# run_ops.sh — eager per-op benchmark: tfs (bench/eager_ops.c against the runtime library) vs PyTorch, side by side.
# Usage: bench/run_ops.sh [iterations]   (BUILD=<meson build dir>, default ./build; configured and built if needed)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
N=${1:-1000000}
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" libtfsrt.a >/dev/null
OUT=$(mktemp -d /tmp/tfs-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
gcc -std=gnu11 -O2 -I"$ROOT/runtime" -I"$ROOT/stdlib" -o "$OUT/eager_ops" "$ROOT/bench/eager_ops.c" \
  "$BUILD/libtfsrt.a" $(pkg-config --cflags libxsmm openblas) $("$ROOT/bench/rtlibs.sh")
"$OUT/eager_ops" "$N" > "$OUT/tfs.txt"
/usr/bin/python3 "$ROOT/bench/eager_ops_torch.py" $((N / 5)) > "$OUT/torch.txt"
echo "eager per-op time (best of 5; lower is better)"
awk 'NR == FNR { torch[$1] = $2; next }
     FNR == 1 { printf "%-36s %12s %12s %10s\n", "measure", "tfs", "pytorch", "torch/tfs" }
     { t = ($1 in torch) ? torch[$1] : "-";
       r = (t != "-" && $2 > 0) ? sprintf("%.1fx", t / $2) : "-";
       printf "%-36s %12s %12s %10s\n", $1, $2, t, r }' "$OUT/torch.txt" "$OUT/tfs.txt"
