#!/bin/sh
# run_depthwise.sh — a MobileNet depthwise layer (bench/depthwise.tfs) against PyTorch (bench/depthwise_torch.py) at 1 and all threads and ONNX Runtime (the forward pass tfsc --onnx exports), each best of REPS interleaved runs.
# Usage: bench/run_depthwise.sh   (BUILD=<meson build dir>, default ./build; ORT_DIR: where onnxruntime-node is, default ~/.cache/tfs-ort;
#        REPS: runs of each side, default 3: the best run of each counts, as the machine may be shared)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ORT_DIR=${ORT_DIR:-$HOME/.cache/tfs-ort}
REPS=${REPS:-3}
OUT=$(mktemp -d /tmp/tfs-dw-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
ncpu=$(nproc)
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $ncpu cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
have_ort=
if command -v node >/dev/null && [ -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then
  "$BUILD/compiler/tfsc" --onnx "$ROOT/bench/depthwise.tfs" --function fwd -o "$OUT/dw.onnx" --save-io "$OUT/io.json" >/dev/null && have_ort=1
fi
have_torch=
/usr/bin/python3 -c 'import torch' 2>/dev/null && have_torch=1
i=0
while [ $i -lt "$REPS" ]; do
  for t in 1 "$ncpu"; do
    TFS_NUM_THREADS=$t "$BUILD/compiler/tfs" run "$ROOT/bench/depthwise.tfs" | sed "s/^/tfs_$t /" >> "$OUT/all.txt"
    [ -z "$have_torch" ] || /usr/bin/python3 "$ROOT/bench/depthwise_torch.py" "$t" | sed "s/^/torch_$t /" >> "$OUT/all.txt"
    # onnx_time.js prints "mlp onnxruntime <microseconds per call> (...)"
    [ -z "$have_ort" ] || NODE_PATH="$ORT_DIR/node_modules" node "$ROOT/bench/onnx_time.js" "$OUT/dw.onnx" "$OUT/io.json" 10 "$t" |
      awk -v t="$t" 'NR == 1 { printf "ort_%s dw_fwd_ms %.2f\n", t, $3 / 1000 }' >> "$OUT/all.txt"
  done
  i=$((i + 1))
done
[ -n "$have_torch" ] || echo "PyTorch: python3-torch not installed: its rows are empty"
[ -n "$have_ort" ] || echo "ONNX Runtime: not found in $ORT_DIR (see bench/run.sh): its rows are empty"
echo "3x3 depthwise, SAME, stride 1, on 16x56x56x64 float32: ms per call, best of $REPS interleaved runs (each itself best of 5)"
awk '{ k = $1 " " $2; v = $3 + 0; if (!(k in best) || v < best[k]) best[k] = v
       if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
     END { printf "%-10s %12s %16s %16s\n", "", "forward", "fwd + 2 grads", "tape step"
           for (i = 1; i <= n; i++) { s = order[i]
             f = (s " dw_fwd_ms") in best ? sprintf("%.2f", best[s " dw_fwd_ms"]) : "-"
             b = (s " dw_fwd_bwd_ms") in best ? sprintf("%.2f", best[s " dw_fwd_bwd_ms"]) : "-"
             g = (s " dw_tape_step_ms") in best ? sprintf("%.2f", best[s " dw_tape_step_ms"]) : "-"
             printf "%-10s %12s %16s %16s\n", s, f, b, g } }' "$OUT/all.txt"
echo "(tfs_N / torch_N / ort_N: N threads; PyTorch NCHW conv2d with groups = 64; ONNX Runtime: the exported grouped Conv;"
echo " tape step: tfs's tf.GradientTape step of sum(y * y) for both gradients, tfs only)"
