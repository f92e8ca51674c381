#!/bin/sh
# run.sh — seed workloads side by side in one run: tfs (eager, tf.function) vs PyTorch eager, TorchScript (frozen) and ONNX Runtime; tf.keras training.
# Usage: bench/run.sh [--isa baseline|avx2|avx512] [--seed-only]   (BUILD=<meson build dir>, default ./build; configured and built if needed)
#   --isa forces tfs's kernel path (TFS_ISA), OpenBLAS's core type and PyTorch's CPU capability to that level,
#   so an AVX-512 machine also measures the x86-64-v3 (AVX2) figures; --seed-only stops after the seed table.
set -e
SEED_ONLY=
while [ $# -gt 0 ]; do
  case $1 in
    --isa) [ $# -ge 2 ] || { echo "bench/run.sh: --isa needs a path name" >&2; exit 2; }
           export TFS_ISA=$2; shift 2 ;;
    --seed-only) SEED_ONLY=1; shift ;;
    *) echo "bench/run.sh: unknown argument $1 (expected --isa NAME or --seed-only)" >&2; exit 2 ;;
  esac
done
# the same level for the peers (set even when the environment names others): OpenBLAS's kernels (also
# PyTorch's BLAS here), PyTorch's own kernels, oneDNN
case ${TFS_ISA:-} in
  baseline) OPENBLAS_CORETYPE=Prescott ATEN_CPU_CAPABILITY=default DNNL_MAX_CPU_ISA=SSE41 ;;
  avx2) OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 DNNL_MAX_CPU_ISA=AVX2 ;;
  avx512) OPENBLAS_CORETYPE=SkylakeX ATEN_CPU_CAPABILITY=avx512 DNNL_MAX_CPU_ISA=AVX512_CORE ;;
  '') ;;
  *) echo "bench/run.sh: unknown ISA path $TFS_ISA (expected baseline, avx2 or avx512)" >&2; exit 2 ;;
esac
if [ -n "${TFS_ISA:-}" ]; then export OPENBLAS_CORETYPE ATEN_CPU_CAPABILITY DNNL_MAX_CPU_ISA; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" >/dev/null
OUT=$(mktemp -d /tmp/tfs-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
MODES=${MODES:-"eager graph"}
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# the path runtime/kernels/isa.c takes: TFS_ISA, else the highest level whose features the CPU lists
flags=$(sed -n 's/^flags[^:]*: //p' /proc/cpuinfo | head -1)
has() { for f in "$@"; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
isa=baseline
if has avx2 fma bmi2 movbe; then isa=avx2; fi
if [ $isa = avx2 ] && has avx512f avx512bw avx512cd avx512dq avx512vl; then isa=avx512; fi
echo "kernel ISA path: ${TFS_ISA:-$isa} (--isa or TFS_ISA=baseline|avx2|avx512 forces one); OpenBLAS core: ${OPENBLAS_CORETYPE:-autodetected}; PyTorch capability: ${ATEN_CPU_CAPABILITY:-autodetected}"
echo
"$BUILD/compiler/tfs" run "$ROOT/bench/seed.tfs" $MODES > "$OUT/tfs.txt"
/usr/bin/python3 "$ROOT/bench/seed_torch.py" $MODES > "$OUT/torch.txt"
# ONNX Runtime (onnxruntime-node, 2 intra-op threads) on the same workloads as ONNX models built with
# Debian's python3-onnx; install once with: (mkdir -p $ORT_DIR && cd $ORT_DIR && npm install --ignore-scripts onnxruntime-node)
ORT_DIR=${ORT_DIR:-$HOME/.cache/tfs-ort}
: > "$OUT/ort.txt"
if command -v node >/dev/null && [ -d "$ORT_DIR/node_modules/onnxruntime-node" ] && /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  mkdir -p "$OUT/onnx"
  /usr/bin/python3 "$ROOT/bench/ort_models.py" "$OUT/onnx"
  ort_version=$(sed -n 's/^ *"version": "\(.*\)",/\1/p' "$ORT_DIR/node_modules/onnxruntime-node/package.json" | head -1)
  NODE_PATH="$ORT_DIR/node_modules" node "$ROOT/bench/ort_seed.js" "$OUT/onnx" > "$OUT/ort.txt"
  echo "ONNX Runtime: onnxruntime-node $ort_version, 2 intra-op threads (ort column)"
else
  echo "ONNX Runtime: not found in $ORT_DIR (see bench/run.sh): ort column empty"
fi
echo "seed workloads, microseconds per call (best of 5; lower is better)"
echo "graph = tf.function for tfs, TorchScript for PyTorch; frozen = torch.jit.freeze'd TorchScript; ratios: peer time / tfs time"
awk 'FILENAME == ARGV[1] { torch[$1 " " $2] = $3; fz[$1 " " $2] = (NF > 3) ? $4 : "-"; next }
     FILENAME == ARGV[2] { ort[$1 " " $2] = $3; next }
     !hdr { hdr = 1; printf "%-13s %-6s %10s %10s %9s %10s %10s %10s %8s\n", "workload", "mode", "tfs", "pytorch", "torch/tfs", "frozen", "frozen/tfs", "ort", "ort/tfs" }
     { k = $1 " " $2; t = (k in torch) ? torch[k] : "-"; f = (k in fz) ? fz[k] : "-"; o = (k in ort) ? ort[k] : "-";
       r = (t != "-" && $3 > 0) ? sprintf("%.1fx", t / $3) : "-";
       rf = (f != "-" && $3 > 0) ? sprintf("%.1fx", f / $3) : "-";
       ro = (o != "-" && $3 > 0) ? sprintf("%.1fx", o / $3) : "-";
       printf "%-13s %-6s %10s %10s %9s %10s %10s %10s %8s\n", $1, $2, $3, t, r, f, rf, o, ro }' "$OUT/torch.txt" "$OUT/ort.txt" "$OUT/tfs.txt"
# issue 32's thread goal: the seq model and the 100-layer model at 1 and 2 threads (tf.function graphs),
# beside ONNX Runtime's 2-thread figure from the table above
TFS_NUM_THREADS=1 "$BUILD/compiler/tfs" run "$ROOT/bench/seed.tfs" threads > "$OUT/t1.txt"
TFS_NUM_THREADS=2 "$BUILD/compiler/tfs" run "$ROOT/bench/seed.tfs" threads > "$OUT/t2.txt"
echo
echo "threads (TFS_NUM_THREADS), tf.function graphs, microseconds per call (best of 5); goal: 2 threads >= 1.6x one, ahead of ONNX Runtime"
awk 'FILENAME == ARGV[1] { ort[$1] = $3; next }
     FILENAME == ARGV[2] { t1[$1] = $3; next }
     !hdr { hdr = 1; printf "%-28s %10s %10s %9s %10s %8s\n", "workload", "1 thread", "2 threads", "speedup", "ort (2)", "ort/tfs" }
     { o = ($1 in ort) ? ort[$1] : "-"; name = ($1 == "mlp") ? "mlp (seq 784-128-10, b 60)" : ($1 == "dense") ? "dense (100 layers)" : $1;
       printf "%-28s %10s %10s %9s %10s %8s\n", name, t1[$1], $3, ($3 > 0) ? sprintf("%.2fx", t1[$1] / $3) : "-", o,
              (o != "-" && $3 > 0) ? sprintf("%.2fx", o / $3) : "-" }' "$OUT/ort.txt" "$OUT/t1.txt" "$OUT/t2.txt"
if [ -n "$SEED_ONLY" ]; then exit 0; fi
echo
echo "eager per-op overhead from C (bench/eager_ops.c):"
"$ROOT/bench/run_ops.sh"
echo
echo "small-matrix product kernels (bench/gemm.c):"
"$ROOT/bench/run_gemm.sh"
echo
"$BUILD/compiler/tfs" run "$ROOT/bench/backward.tfs" > "$OUT/tfs_grad.txt"
/usr/bin/python3 "$ROOT/bench/backward_torch.py" > "$OUT/torch_grad.txt"
echo "gradients (bench/backward.tfs), microseconds, best of 7: MLP 784-100-100-10, batch 100, tfs as a tf.function graph"
awk 'NR == FNR { torch[$1] = $2; next }
     FNR == 1 { printf "%-26s %12s %12s %10s\n", "workload", "tfs", "pytorch", "torch/tfs" }
     function num(v) { return sprintf(v < 1 ? "%.4f" : "%.2f", v) }   # per-op times are fractions of a microsecond
     { t = ($1 in torch) ? num(torch[$1]) : "-"; r = (t != "-" && $2 > 0) ? sprintf("%.2fx", torch[$1] / $2) : "-";
       printf "%-26s %12s %12s %10s\n", $1, ($1 ~ /ratio/) ? sprintf("%.2f", $2) : num($2), t, r }' "$OUT/torch_grad.txt" "$OUT/tfs_grad.txt"
echo
"$BUILD/compiler/tfs" run "$ROOT/bench/keras_train.tfs" > "$OUT/tfs_keras.txt"
/usr/bin/python3 "$ROOT/bench/keras_train_torch.py" > "$OUT/torch_keras.txt"
echo "tf.keras (bench/keras_train.tfs): MLP 784-100-100-10, batch 100, Adam; training steps per second, best of 5 (higher is better)"
echo "threads: tfs ${TFS_NUM_THREADS:-every core} (its thread pool: TFS_NUM_THREADS; OpenBLAS itself at TFS_BLAS_THREADS=${TFS_BLAS_THREADS:-1}), pytorch $(awk '$1 == "threads" { print $2 }' "$OUT/torch_keras.txt") (torch.set_num_threads; KERAS_TORCH_THREADS=default for its own choice)"
awk 'NR == FNR { torch[$1] = $2; next }
     $1 == "mlp_train_steps_per_s" { printf "tfs tf.function step %9.1f   pytorch eager loop %9.1f   tfs/torch %.2fx\n", $2, torch[$1], $2 / torch[$1] }' \
  "$OUT/torch_keras.txt" "$OUT/tfs_keras.txt"
awk '$1 ~ /^sequential_model/ { v[$1] = $2 }
     END { printf "the guide\047s SequentialModel on [20, 28, 28], calls/s: eager %9.1f   tf.function %9.1f   graph/eager %.2fx\n",
           v["sequential_model_eager_calls_per_s"], v["sequential_model_graph_calls_per_s"],
           v["sequential_model_graph_calls_per_s"] / v["sequential_model_eager_calls_per_s"] }' "$OUT/tfs_keras.txt"
for rnn in lstm gru simple_rnn; do
  "$BUILD/compiler/tfs" run "$ROOT/bench/keras_lstm.tfs" $rnn > "$OUT/tfs_$rnn.txt"
  /usr/bin/python3 "$ROOT/bench/keras_lstm_torch.py" $rnn > "$OUT/torch_$rnn.txt"
  : > "$OUT/ort_$rnn.txt"
  if [ -s "$OUT/ort.txt" ]; then
    NODE_PATH="$ORT_DIR/node_modules" node "$ROOT/bench/ort_seed.js" "$OUT/onnx" $rnn | awk -v r=$rnn '{ printf "%s_infer_b256_ms %.1f\n", r, $3 / 1000 }' > "$OUT/ort_$rnn.txt"
  fi
  R=$(echo $rnn | tr a-z A-Z | sed 's/SIMPLE_RNN/SimpleRNN/')
  echo "$R text classifier (bench/keras_lstm.tfs $rnn): Embedding 2000x64 -> $R 64 -> Dense 1, sequences of 80, batch 64, Adam; tfs ${TFS_NUM_THREADS:-every core},"
  echo "pytorch one thread, ort: ONNX Runtime's $R op (bench/ort_models.py), 2 intra-op threads"
  awk -v r=$rnn 'FILENAME == ARGV[1] { ort[$1] = $2; next }
       FILENAME == ARGV[2] { torch[$1] = $2; next }
       $1 == r "_train_steps_per_s" { printf "training steps/s: tfs tf.function %9.1f   pytorch eager %9.1f   tfs/torch %.2fx\n", $2, torch[$1], $2 / torch[$1] }
       $1 == r "_train_cpu_ms_per_step" { printf "training CPU ms/step: tfs %9.1f   pytorch %9.1f\n", $2, torch[$1] }
       $1 == r "_infer_b256_ms" { printf "inference, batch 256, ms: tfs %9.1f   pytorch %9.1f   ort %9s   ort/tfs %s\n", $2, torch[$1],
                                  ($1 in ort) ? ort[$1] : "-", ($1 in ort) ? sprintf("%.2fx", ort[$1] / $2) : "-" }
       $1 == r "_infer_b256_cpu_ms" { printf "inference CPU ms: tfs %9.1f   pytorch %9.1f\n", $2, torch[$1] }' \
    "$OUT/ort_$rnn.txt" "$OUT/torch_$rnn.txt" "$OUT/tfs_$rnn.txt"
done
echo
"$ROOT/bench/run_cnn.sh"
echo
"$ROOT/bench/run_cnn.sh" resnet
echo
"$ROOT/bench/run_depthwise.sh"
