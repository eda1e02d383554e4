#!/bin/sh
# bench/gpu/smoke.sh - ctest bench.gpu.smoke: the GPU check scripts end to end on this machine,
# on a bundle of the smallest model (mlp) only:
#   1. build-artifacts.sh OUT --no-conformance --dynamic-run --models <mlp only>
#   2. run.sh with no CUDA driver: must run the dry run, stop at the first GPU call and exit 77
#      saying so
#   3. run.sh on the fake driver (test/lib/fake_cuda.c: kernels do nothing, so the check must
#      FAIL): must exit 1 and print the table row of mlp with its error and FAIL
# Usage: smoke.sh BUILD_DIR MODELS_DIR [LIBFAKE_CUDA]
# Exit status: 0 pass, 1 fail, 77 skipped (no mlp model, or tools not built).
set -eu
build=$1 models=$2 fake=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$models/mlp.onnx" ]; then
  echo "SKIP: $models/mlp.onnx is absent"
  exit 77
fi
for t in "$build/tools/korch-opt" "$build/tools/korch-translate/korch-translate" "$build/tools/korch-run/korch-run"; do
  [ -x "$t" ] || { echo "SKIP: not built: $t"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/korch-gpu-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/models"
for f in mlp.onnx mlp.input_0.npy mlp.output_0.npy export_models.py; do
  [ -f "$models/$f" ] && ln -s "$models/$f" "$tmp/models/$f"
done

echo "== 1. build-artifacts.sh (mlp only)"
sh "$here/build-artifacts.sh" "$tmp/out" --build "$build" --models "$tmp/models" --no-conformance --dynamic-run
[ -f "$tmp/out/models/mlp/model.plan.xml" ] || { echo "FAIL: no mlp artifact in the bundle"; exit 1; }

echo "== 2. run.sh without a CUDA driver (expect exit 77)"
rc=0
KORCH_CUDA_LIBRARY=$tmp/no-such-libcuda.so sh "$tmp/out/run.sh" --no-torch > "$tmp/nodriver.log" 2>&1 || rc=$?
cat "$tmp/nodriver.log"
[ "$rc" = 77 ] || { echo "FAIL: run.sh exited $rc without a driver, expected 77"; exit 1; }
grep -q 'korch-run: 1 passed, 0 failed of 1 (dry run)' "$tmp/nodriver.log" || { echo "FAIL: no dry run of mlp"; exit 1; }
grep -q 'stopped at the first GPU call' "$tmp/nodriver.log" || { echo "FAIL: run.sh did not say where it stopped"; exit 1; }

if [ -n "$fake" ] && [ -f "$fake" ]; then
  echo "== 3. run.sh on the fake driver (kernels do nothing: expect the check to FAIL, exit 1)"
  rc=0
  KORCH_CUDA_LIBRARY=$fake sh "$tmp/out/run.sh" --no-torch --iters 3 > "$tmp/fake.log" 2>&1 || rc=$?
  cat "$tmp/fake.log"
  [ "$rc" = 1 ] || { echo "FAIL: run.sh exited $rc on the fake driver, expected 1"; exit 1; }
  grep -Eq '^mlp +- +- +- +[0-9.e+-]+ +FAIL' "$tmp/fake.log" || { echo "FAIL: no table row for mlp"; exit 1; }
fi
echo "PASS: bench/gpu scripts"
