#!/bin/sh
# run_onnx.sh — the seeds' 784->128->10 model (bench/onnx_mlp.tfs): one call in `tfs run` vs the model `tfsc --onnx` exports, run in ONNX Runtime (onnxruntime-node, 2 intra-op threads).
# Usage: bench/run_onnx.sh   (BUILD=<meson build dir>, default ./build; TFS_ORT_DIR: where onnxruntime-node is installed, default ~/.cache/tfs-ort)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ORT=${TFS_ORT_DIR:-$HOME/.cache/tfs-ort}
if [ ! -d "$ORT/node_modules/onnxruntime-node" ]; then
  command -v npm >/dev/null || { echo "run_onnx.sh: npm is missing: cannot install onnxruntime-node" >&2; exit 1; }
  mkdir -p "$ORT" && (cd "$ORT" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >/dev/null)
fi
OUT=$(mktemp -d /tmp/tfs-onnx-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
"$BUILD/compiler/tfsc" --onnx "$ROOT/bench/onnx_mlp.tfs" --function mlp -o "$OUT/mlp.onnx" --save-io "$OUT/io.json"
echo "784->128->10 on 60 rows, microseconds per call (best of 5)"
"$BUILD/compiler/tfs" run "$ROOT/bench/onnx_mlp.tfs"
NODE_PATH="$ORT/node_modules" node "$ROOT/bench/onnx_time.js" "$OUT/mlp.onnx" "$OUT/io.json" 500 2
