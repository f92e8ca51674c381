#!/bin/sh
# build.sh — one entry point that installs what is missing, builds, and runs: `./build.sh run prog.tfs`, `./build.sh test` or `./build.sh fuzz SECONDS`.
set -eu
cd "$(dirname "$0")"

PKGS="gcc binutils libc6-dev pkg-config python3 meson ninja-build libtree-sitter-dev tcc libtcc-dev libopenblas-dev liblapacke-dev libxsmm-dev zlib1g-dev libpcre2-dev libicu-dev check valgrind libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libedit-dev libpng-dev libjpeg62-turbo-dev libgif-dev libonnx-dev python3-onnx python3-numpy python3-pil python3-crcmod python3-protobuf libgraphviz-dev graphviz chromium clang libclang-rt-14-dev openmpi-bin libopenmpi-dev libhdf5-dev libzip-dev python3-h5py libssl-dev libsnappy-dev python3-snappy libjansson-dev libgmp-dev libkissfft-dev"

install_missing() {
  missing=""
  for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "build.sh: installing$missing" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
}

# stage NAME: print how long the previous stage of `test` took (CI's whole run has a time limit), then NAME's start.
stage_t0=$(date +%s)
stage() {
  now=$(date +%s)
  echo "build.sh: $(date -u +%H:%M:%S) ${stage_name:-start} took $((now - stage_t0)) s; now: $1" >&2
  stage_t0=$now stage_name=$1
}

# build DIR [meson options...]: configure once, then rebuild incrementally.
build() {
  dir=$1; shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >&2
  ninja -C "$dir" >&2
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    install_missing
    build build
    exec build/compiler/tfs run "$@"
    ;;
  test)
    stage install
    install_missing
    stage build
    build build
    stage "test (normal build)"
    meson test -C build --print-errorlogs
    # The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
    stage build-asan
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false
    stage "test (ASan+UBSan build)"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C build-asan --print-errorlogs
    # The thread pool and the pooled kernels under ThreadSanitizer (only what the suite 'tsan' needs is built).
    stage build-tsan
    [ -f build-tsan/build.ninja ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >&2
    ninja -C build-tsan compiler/tfs compiler/tfsc tests/test_threads >&2
    stage "test (TSan build)"
    meson test -C build-tsan --no-rebuild --suite tsan --print-errorlogs
    # libFuzzer: each harness for a short fixed budget (fuzz/run.sh builds build-fuzz/ with clang).
    stage fuzz
    fuzz/run.sh 20
    stage done
    ;;
  fuzz)
    install_missing
    exec fuzz/run.sh "${1:-600}" ${2:-}
    ;;
  *)
    echo "usage: ./build.sh run prog.tfs [args...] | ./build.sh test | ./build.sh fuzz [SECONDS [HARNESS]]" >&2
    exit 2
    ;;
esac
