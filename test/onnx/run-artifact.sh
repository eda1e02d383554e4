#!/bin/sh
# test/onnx/run-artifact.sh - ctest onnx.conformance.artifact.<arch> (issue 7): every ONNX node
# test compiled to a GPU artifact and checked without a GPU.
#   1. onnx-conformance --level=artifact --artifact-dir WORK/<arch> --gpu-arch ARCH [EXTRA...]
#      (scheduled pipeline + plan-buffers; the planned module interpreted against the ONNX
#      reference unless EXTRA has --no-interp; model.ptx validated by ptxas -arch=ARCH; the
#      passing tests' folders listed in WORK/<arch>/check-list.txt)
#   2. korch-run --dry-run --check-list WORK/<arch>/check-list.txt (one process: every launch
#      against the PTX .entry parameters, the arena bounds, the block, shared-memory and
#      register limits; docs/Runtime.md)
#   3. with $KORCH_FAKE_CUDA (test/lib/fake_cuda.c's library, whose kernels do nothing): the
#      artifacts without kernels (identity, constant, inference-mode dropout... : their outputs
#      are ranges of the inputs or of the weights) really run through korch-run's session path
#      on that fake driver and are compared with the ONNX reference outputs (korch-run
#      --check-list): the copies in and out of the arena and the weights region, checked on a CPU.
# Without ptxas ($KORCH_PTXAS, /usr/local/cuda/bin/ptxas, PATH) step 1 runs with --no-ptxas and
# says so: the artifacts are then neither validated nor carry the register figures.
# Usage: run-artifact.sh ONNX_CONFORMANCE KORCH_RUN WORK ARCH [EXTRA...]
# Exit status: 0 pass, 1 fail, 2 usage, 77 skipped (a tool not built, or no test data).
set -eu
if [ $# -lt 4 ]; then
  echo "usage: run-artifact.sh ONNX_CONFORMANCE KORCH_RUN WORK ARCH [EXTRA...]" >&2
  exit 2
fi
conformance=$1 run=$2 work=$3 arch=$4
shift 4
for tool in "$conformance" "$run"; do
  if [ -z "$tool" ] || [ ! -x "$tool" ]; then
    echo "SKIP: tool not built: '$tool'"
    exit 77
  fi
done
ptxas_flag=
if [ -n "${KORCH_PTXAS:-}" ] && [ -x "${KORCH_PTXAS:-}" ]; then :
elif [ -x /usr/local/cuda/bin/ptxas ]; then :
elif command -v ptxas >/dev/null 2>&1; then :
else
  echo "NOTE: no ptxas found: compiling with --no-ptxas (PTX not validated, no register figures)"
  ptxas_flag=--no-ptxas
fi
dir=$work/$arch
rm -rf "$dir"
mkdir -p "$work"
echo "== onnx-conformance --level=artifact --gpu-arch $arch $ptxas_flag $*"
start=$(date +%s)
rc=0
# shellcheck disable=SC2086 # ptxas_flag is one word or none
"$conformance" --level=artifact --artifact-dir "$dir" --gpu-arch "$arch" $ptxas_flag "$@" || rc=$?
echo "compile: $(( $(date +%s) - start )) s"
if [ "$rc" != 0 ]; then
  [ "$rc" = 77 ] && exit 77
  echo "FAIL: onnx-conformance --level=artifact exited with $rc"
  exit 1
fi
list=$dir/check-list.txt
if [ ! -s "$list" ]; then
  echo "FAIL: $list is empty or missing: no test was compiled"
  exit 1
fi
echo "== korch-run --dry-run --check-list $list ($(wc -l < "$list") artifacts)"
start=$(date +%s)
if ! "$run" --dry-run --check-list "$list"; then
  echo "FAIL: korch-run --dry-run rejected at least one artifact (above)"
  exit 1
fi
echo "dry-run: $(( $(date +%s) - start )) s"
if [ -n "${KORCH_FAKE_CUDA:-}" ] && [ -f "$KORCH_FAKE_CUDA" ]; then
  nokernels=$dir/no-kernels-list.txt
  : > "$nokernels"
  while IFS= read -r t; do
    if grep -q '<kernels/>' "$dir/$t/model.plan.xml"; then echo "$t" >> "$nokernels"; fi
  done < "$list"
  echo "== korch-run --check-list $nokernels on the fake driver ($(wc -l < "$nokernels") artifacts without kernels)"
  if [ -s "$nokernels" ] && ! KORCH_CUDA_LIBRARY=$KORCH_FAKE_CUDA "$run" --check-list "$nokernels" > "$dir/no-kernels-run.txt" 2>&1; then
    cat "$dir/no-kernels-run.txt"
    echo "FAIL: an artifact without kernels did not reproduce the ONNX outputs through korch-run (above)"
    exit 1
  fi
  tail -n 1 "$dir/no-kernels-run.txt" 2>/dev/null || true
fi
echo "PASS: onnx.conformance.artifact.$arch"
