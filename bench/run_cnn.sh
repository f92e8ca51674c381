#!/bin/sh
# run_cnn.sh — the Keras MNIST CNN (bench/cnn.tfs), or the ResNet block (bench/resnet_block.tfs), against PyTorch (bench/NAME_torch.py,
# 1 and 2 threads) and ONNX Runtime (2 intra-op threads), in one run, each best of REPS.
# Usage: bench/run_cnn.sh [resnet]   (BUILD=<meson build dir>, default ./build; ORT_DIR: where onnxruntime-node is, default ~/.cache/tfs-ort;
#        REPS: runs of each side, interleaved, default 3: the best run of each counts, as the machine may be shared)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ORT_DIR=${ORT_DIR:-$HOME/.cache/tfs-ort}
REPS=${REPS:-3}
W=cnn TFS=cnn TORCH=cnn_torch
if [ "${1:-}" = resnet ]; then W=resnet TFS=resnet_block TORCH=resnet_block_torch; fi
OUT=$(mktemp -d /tmp/tfs-cnn-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
ncpu=$(nproc)
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $ncpu cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
have_ort=
if command -v node >/dev/null && [ -d "$ORT_DIR/node_modules/onnxruntime-node" ] && /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  mkdir -p "$OUT/onnx" && /usr/bin/python3 "$ROOT/bench/ort_models.py" "$OUT/onnx" && have_ort=1
fi
have_torch=
/usr/bin/python3 -c 'import torch' 2>/dev/null && have_torch=1
i=0
while [ $i -lt "$REPS" ]; do
  TFS_NUM_THREADS=1 "$BUILD/compiler/tfs" run "$ROOT/bench/$TFS.tfs" | sed 's/^/tfs_1 /' >> "$OUT/all.txt"
  TFS_NUM_THREADS=$ncpu "$BUILD/compiler/tfs" run "$ROOT/bench/$TFS.tfs" | sed "s/^/tfs_$ncpu /" >> "$OUT/all.txt"
  if [ -n "$have_torch" ]; then
    /usr/bin/python3 "$ROOT/bench/$TORCH.py" 1 | sed 's/^/torch_1 /' >> "$OUT/all.txt"
    /usr/bin/python3 "$ROOT/bench/$TORCH.py" "$ncpu" | sed "s/^/torch_$ncpu /" >> "$OUT/all.txt"
  fi
  if [ -n "$have_ort" ]; then
    NODE_PATH="$ORT_DIR/node_modules" node "$ROOT/bench/ort_seed.js" "$OUT/onnx" $W |
      awk -v w=$W '{ printf "ort_2 %s_infer_ms %.2f\n", w, $3 / 1000 }' >> "$OUT/all.txt"
  fi
  i=$((i + 1))
done
[ -n "$have_torch" ] || echo "PyTorch: python3-torch not installed: its rows are empty"
[ -n "$have_ort" ] || echo "ONNX Runtime: not found in $ORT_DIR (see bench/run.sh): its row is empty"
if [ $W = cnn ]; then
  echo "Keras MNIST CNN (Conv 32 3x3 relu, pool, Conv 64 3x3 relu, pool, Dense 10): training steps/s at batch 64 (Adam), inference of"
  echo "256 images in ms; best of $REPS interleaved runs (each itself best of 5); tfs runs tf.function steps, PyTorch an eager loop"
else
  echo "ResNet block on 32x32x16 (Conv 3x3 -> BN -> relu -> Conv 3x3 -> BN -> add -> relu): training steps/s at batch 64 (Adam, MSE),"
  echo "inference of the 64 images in ms; best of $REPS interleaved runs (each itself best of 5); tfs tf.function, PyTorch eager"
fi
awk '{ sub(/_infer[0-9]*_ms$/, "_infer_ms", $2); k = $1 " " $2; v = $3 + 0
       if ($2 ~ /steps/) { if (!(k in best) || v > best[k]) best[k] = v } else { if (!(k in best) || v < best[k]) best[k] = v }
       if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
     END { printf "%-10s %16s %16s\n", "", "train steps/s", "infer ms"
           for (i = 1; i <= n; i++) { s = order[i]
             tr = (s " " w "_train_steps_per_s") in best ? sprintf("%.1f", best[s " " w "_train_steps_per_s"]) : "-"
             inf = (s " " w "_infer_ms") in best ? sprintf("%.1f", best[s " " w "_infer_ms"]) : "-"
             printf "%-10s %16s %16s\n", s, tr, inf } }' w=$W "$OUT/all.txt"
echo "(tfs_N / torch_N: N threads; ort_2: ONNX Runtime with 2 intra-op threads)"
