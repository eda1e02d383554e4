#!/usr/bin/env bash
# scripts/test.sh - configure, build and run every test (ctest: Check unit tests, the lit/FileCheck
# suite, the install-package test, the fuzz-corpus replay, benchmark smoke runs).
#
# usage: scripts/test.sh [--sanitize] [--debug]
#   default      Release build in build/ with warnings as errors
#   --sanitize   ASan + UBSan build in build-asan/ (Debug), the suite under the sanitizers, except
#                the code-generation levels over the whole conformance list and every shared model
#                (ctest labels `artifact`, `compile`, `planned`: about 25 minutes of LLVM, ptxas and
#                interpreter time under ASan on 2 cores, too long for CI's budget); of those, the
#                smallest model (mlp) runs at every level.  The unit, lit (incl. the artifact,
#                korch-run and korch-compile tests and the examples), op/prim/kernel/scheduled
#                conformance and model tests all run.  KORCH_SANITIZE_ALL=1 runs everything.
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
if [[ $type == Debug && " ${extra[*]} " == *" -DKORCH_SANITIZE=ON "* && ${KORCH_SANITIZE_ALL:-0} != 1 ]]; then
  ctest --output-on-failure -j "$jobs" -LE '^(artifact|compile|planned)$'
  ctest --output-on-failure -j "$jobs" -R '^models[.]mlp[.](artifact|compile|planned)$'
else
  ctest --output-on-failure -j "$jobs"
fi
