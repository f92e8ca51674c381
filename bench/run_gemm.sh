#!/bin/sh
# run_gemm.sh — small-GEMM kernels side by side: tfs's own per ISA path, OpenBLAS and libxsmm.
# Usage: bench/run_gemm.sh   (BUILD=<meson build dir>, default ./build; configured and built if needed)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" libtfsrt.a >/dev/null
OUT=$(mktemp -d /tmp/tfs-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
gcc -std=gnu11 -O2 -I"$ROOT/runtime" -I"$ROOT/stdlib" -o "$OUT/gemm" "$ROOT/bench/gemm.c" \
  "$BUILD/libtfsrt.a" $(pkg-config --cflags libxsmm openblas) $("$ROOT/bench/rtlibs.sh")
OPENBLAS_NUM_THREADS=1 "$OUT/gemm"
