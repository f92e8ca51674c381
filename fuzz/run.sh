#!/bin/sh
# fuzz/run.sh — build the libFuzzer harnesses in build-fuzz/ (clang, ASan + UBSan) and run each for SECONDS: `fuzz/run.sh 20` (./build.sh test), `./build.sh fuzz 3600`.
#
# Seeds: every .tfs of tests/programs/, tests/hostile/ and examples/.  The
# growing corpus stays in build-fuzz/corpus/HARNESS between runs; a crash,
# leak, UB report, timeout or out-of-memory is saved as
# build-fuzz/crashes/HARNESS-* and fails the run.  Minimize one with
#   build-fuzz/fuzz/fuzz_HARNESS -minimize_crash=1 -runs=10000 FILE
# and add it to fuzz/regress/HARNESS/ (replayed by the `fuzz-regress` test).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-20}
only=${2:-}
dir=build-fuzz
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false >&2
fi
ninja -C "$dir" fuzz/fuzz_parse fuzz/fuzz_autograph fuzz/fuzz_pipeline >&2
rm -rf "$dir/seeds"
mkdir -p "$dir/crashes" "$dir/work" "$dir/seeds"
# libFuzzer runs every seed before it looks at the clock: sources past 16 KiB
# (the hostile giants) would eat the short budget, and -max_len cuts them anyway.
# A short run (under 300 s: the CI's) takes an even spread of at most 120 of them (FUZZ_MAX_SEEDS), and
# none that uses Keras (compiling the Keras library takes a pipeline run seconds under ASan, past the
# 20 s timeout on a loaded machine); running all 650 would take minutes per harness.  A long run takes all.
short=$([ "$secs" -lt 300 ] && echo 1 || echo 0)
max_seeds=${FUZZ_MAX_SEEDS:-$([ "$short" = 1 ] && echo 120 || echo 0)}
find tests/programs tests/hostile examples -maxdepth 1 -name '*.tfs' -size -16k | LC_ALL=C sort |
  if [ "$short" = 1 ]; then xargs grep -L -i keras; else cat; fi >"$dir/seeds.list"
total=$(wc -l <"$dir/seeds.list")
if [ "$max_seeds" -gt 0 ] && [ "$total" -gt "$max_seeds" ]; then
  awk -v n="$total" -v k="$max_seeds" 'int((NR - 1) * k / n) != int(NR * k / n)' "$dir/seeds.list" >"$dir/seeds.pick"
else
  cp "$dir/seeds.list" "$dir/seeds.pick"
fi
xargs -a "$dir/seeds.pick" cp -t "$dir/seeds/"
# A fixed seed (FUZZ_SEED, 1 by default) makes the short CI run repeat the same mutations; set FUZZ_SEED=0 for a random one.
status=0
for h in parse autograph pipeline; do
  [ -n "$only" ] && [ "$only" != "$h" ] && continue
  corpus="$dir/corpus/$h"
  mkdir -p "$corpus"
  # -rss_limit_mb: the memory cap; -timeout: a hang; -max_len: sources past
  # 64 KiB add nothing the small ones do not.  The pipeline harness runs in an
  # empty directory so `import` finds nothing but the stdlib.
  log="$dir/crashes/$h.log"
  # A small quarantine keeps freed blocks hot (a fresh page per allocation
  # cost a fifth of the time) and the 0xbe fill of every malloc is skipped:
  # together about 1.8x the executions per CPU second, still catching
  # use-after-free within the last 8 MB freed.
  if ! (cd "$dir/work" && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=8:max_malloc_fill_size=0:malloc_context_size=5 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "../fuzz/fuzz_$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
          -seed="${FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix="../crashes/$h-" \
          "../corpus/$h" ../seeds "../../fuzz/regress/$h") >"$log" 2>&1; then
    status=1
    echo "fuzz $h: FAILED, see $log" >&2
    grep -E "^(==|SUMMARY|fuzz_)" "$log" | head -20 >&2 || true
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz $h: ${execs:-?} executions in ${secs}s, corpus $(ls "$corpus" | wc -l) inputs"
done
exit $status
