#!/bin/sh
# run_conv_onednn.sh — oneDNN's convolutions against tfs's own kernels (bench/conv_onednn.c) at 1 and all threads, best of REPS interleaved runs, and whether each one's bits change with the thread count or oneDNN's ISA.
# Usage: bench/run_conv_onednn.sh   (BUILD=<meson build dir>, default ./build; REPS: runs per thread count, default 2,
#        each itself best of 3 rounds; needs Debian's libdnnl-dev, which ships no pkg-config file)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPS=${REPS:-2}
if [ ! -f /usr/include/oneapi/dnnl/dnnl.h ]; then echo "oneDNN not installed (apt-get install libdnnl-dev)"; exit 0; fi
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" >/dev/null; fi
ninja -C "$BUILD" libtfsrt.a >/dev/null
OUT=$(mktemp -d /tmp/tfs-onednn-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
gcc -std=gnu11 -O2 -fopenmp -I"$ROOT/runtime" -I"$ROOT/stdlib" -o "$OUT/conv_onednn" "$ROOT/bench/conv_onednn.c" \
  "$BUILD/libtfsrt.a" $(pkg-config --cflags libxsmm openblas) $("$ROOT/bench/rtlibs.sh") -ldnnl
ncpu=$(nproc)
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $ncpu cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$REPS" ]; do
  for t in 1 "$ncpu"; do
    "$OUT/conv_onednn" "$t" 3 | sed "s/^/t$t /" >> "$OUT/all.txt"
  done
  i=$((i + 1))
done
# the bits under oneDNN's AVX2 kernels (one round: only the bits count)
for t in 1 "$ncpu"; do
  ONEDNN_MAX_CPU_ISA=AVX2 "$OUT/conv_onednn" "$t" 1 | sed "s/^/avx2_t$t /" >> "$OUT/all.txt"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ms per call, best of $REPS runs x 3 rounds (t1/t$ncpu: threads); dnnl_nhwc: oneDNN on tfs's NHWC/HWIO buffers;"
echo "dnnl_wany: NHWC activations, filter reordered to oneDNN's layout; dnnl_any: every tensor reordered (reorders timed)"
awk -v nc="$ncpu" '
  $2 == "time" && $1 !~ /^avx2/ { k = $3 SUBSEP $4 SUBSEP $1; if (!(k in best) || $5 < best[k]) best[k] = $5
    if (!(($3) in seen)) { seen[$3] = 1; order[++n] = $3 } }
  $2 == "bits" { h[$3 SUBSEP $4 SUBSEP $1] = $5; kern[$3 SUBSEP $4 SUBSEP $1] = $7; diff[$3 SUBSEP $4 SUBSEP $1] = $6 }
  END {
    split("tfs dnnl_nhwc dnnl_wany dnnl_any", impls, " ")
    printf "%-34s", "case"; for (j = 1; j <= 4; j++) printf " %9s_1 %9s_%s", impls[j], impls[j], nc; printf "\n"
    for (i = 1; i <= n; i++) { c = order[i]; printf "%-34s", c
      for (j = 1; j <= 4; j++) printf " %11.2f %11.2f", best[c SUBSEP impls[j] SUBSEP "t1"], best[c SUBSEP impls[j] SUBSEP "t" nc]
      printf "\n" }
    print "bits: same = one result across t1, t" nc ", and oneDNN capped at AVX2 (t1, t" nc "); vs tfs = max |difference| from tfs at t1"
    for (i = 1; i <= n; i++) { c = order[i]
      for (j = 1; j <= 4; j++) { m = impls[j]; b = h[c SUBSEP m SUBSEP "t1"]
        split("t" nc " avx2_t1 avx2_t" nc, cf, " "); s = "same"
        for (q = 1; q <= 3; q++) if (h[c SUBSEP m SUBSEP cf[q]] != b) s = s == "same" ? "differs(" cf[q] : s "," cf[q]
        if (s != "same") s = s ")"
        printf "  %-34s %-10s %-28s %-44s kernels %s / avx2 %s\n", c, m, s,
          (b == h[c SUBSEP "tfs" SUBSEP "t1"] ? "bit-equal to tfs" : "vs tfs max|d| " diff[c SUBSEP m SUBSEP "t1"]),
          kern[c SUBSEP m SUBSEP "t1"], kern[c SUBSEP m SUBSEP "avx2_t1"] } } }' "$OUT/all.txt"
