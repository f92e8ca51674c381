#!/bin/sh
# run_capi.sh — one call of the seeds' 784->128->10 model: tf.function in `tfs run`, the loaded SavedModel in `tfs run`, and libtfs's C API.
# Usage: bench/run_capi.sh   (BUILD=<meson build dir>, default ./build)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" >/dev/null
OUT=$(mktemp -d /tmp/tfs-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "microseconds per call, best of 5 x 2000 calls (rows = batch size)"
"$BUILD/compiler/tfs" run "$ROOT/bench/saved_mlp.tfs" "$OUT/mlp"
"$BUILD/capi/bench-capi-mlp" "$OUT/mlp"
