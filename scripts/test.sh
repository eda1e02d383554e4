#!/usr/bin/env bash
# scripts/test.sh - configure, build and run every test (ctest: Check unit tests, the lit/FileCheck
# suite, the install-package test, the fuzz-corpus replay, benchmark smoke runs).
#
# usage: scripts/test.sh [--sanitize] [--debug]
#   default      Release build in build/ with warnings as errors
#   --sanitize   ASan + UBSan build in build-asan/ (Debug), the whole suite under the sanitizers
#   --debug      Debug build in build-debug/
# env: BUILD_DIR overrides the build directory, JOBS the parallelism (default: nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
type=Release
extra=()
for arg in "$@"; do
  case $arg in
    --sanitize) build=$root/build-asan; type=Debug; extra+=(-DKORCH_SANITIZE=ON) ;;
    --debug) build=$root/build-debug; type=Debug ;;
    *) echo "usage: scripts/test.sh [--sanitize] [--debug]" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-$build}
jobs=${JOBS:-$(nproc)}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=$type -DKORCH_WERROR=ON "${extra[@]}"
cmake --build "$build" -j "$jobs"
# Sanitizer reports fail the run: they abort (a signal, so that `not korch-opt ...` in a lit test
# cannot mistake a sanitizer report for the expected failure), and the leak checker is on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
cd "$build"
ctest --output-on-failure -j "$jobs"
