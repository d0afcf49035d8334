#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   ./devplace.sh setup   install the Debian packages devplace needs (idempotent)
#   ./devplace.sh build   setup + configure + build (Ninja, ccache when present)
#   ./devplace.sh test    build + run every test suite with CTest
#   ./devplace.sh demo    build + run the main job on the bundled default model and cluster
#   ./devplace.sh bench   build + run the Google Benchmark programs
#   ./devplace.sh asan    build with ASan+UBSan in build-asan/ and run the suite (not the slow tests)
#   ./devplace.sh asan-core  the same for the torch-free core only (build-asan-core/; CI runs it)
#   ./devplace.sh python-install [DIR]  build + install the Python package into DIR (default: the
#                          active virtual environment's site-packages, else the user's)
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}

PACKAGES=(cmake ninja-build g++ ccache pkg-config
  libtorch-dev libopenblas0-pthread libdnnl-dev ocl-icd-opencl-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libpugixml-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libmetis-dev libgtest-dev libbenchmark-dev
  libgloo-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch python3-onnx
  libonnx-testdata)

setup() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "devplace: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

build() {
  setup
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  fi
  # Two jobs at most: LibTorch units take about 1 GB each to compile.
  cmake --build "$BUILD_DIR" -j "${JOBS:-2}"
}

cmd=${1:-help}
shift || true
case "$cmd" in
  setup) setup ;;
  build) build ;;
  test)
    build
    # Tests of trained policies assert figures that training reached, and OpenBLAS picks its
    # kernels by CPU (other kernels round differently): pin the ones the figures and the shipped
    # policies were made with, where the CPU has them.
    if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then export OPENBLAS_CORETYPE=Haswell; fi
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-2}" "$@"
    ;;
  demo)
    build
    "$BUILD_DIR/devplace" demo "$@"
    ;;
  asan | asan-core)
    setup
    # LibTorch is not instrumented: leaks it keeps on purpose (thread pools, registries) are not
    # ours to report, so leak checking is on for the torch-free core only.
    if [ "$cmd" = asan ]; then dir=${ASAN_DIR:-build-asan}; torch=ON; leaks=0; else dir=${ASAN_DIR:-build-asan-core}; torch=OFF; leaks=1; fi
    if [ ! -f "$dir/build.ninja" ]; then
      cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDEVPLACE_SANITIZE=ON \
        -DDEVPLACE_BUILD_BENCH=OFF -DDEVPLACE_WITH_TORCH=$torch
    fi
    cmake --build "$dir" -j "${JOBS:-2}"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=$leaks:abort_on_error=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-2}" -LE slow "$@"
    ;;
  python-install)
    build
    dir=${1:-$(/usr/bin/python3 -c 'import site, sys, sysconfig
print(sysconfig.get_paths()["platlib"] if sys.prefix != sys.base_prefix else site.getusersitepackages())')}
    cmake --install "$BUILD_DIR" --component python --prefix "$dir"
    echo "devplace: installed the Python package into $dir"
    ;;
  bench)
    build
    for b in "$BUILD_DIR"/*_bench; do "$b" "$@"; done
    ;;
  *)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    [ "$cmd" = help ] || exit 2
    ;;
esac
