#!/usr/bin/env bash
# test/models/compile-model.sh - one model of ../shared/models through korch-compile (ctest
# `models.<name>.compile`, issue 8, docs/Compile.md):
#   1. korch-compile NAME.onnx -o WORK/NAME.compiled --timing   (import, the default pipeline, the
#      artifact with ptxas, model.kir, report.txt, graph.dot)
#   2. ptxas ran: every <kernel> of model.plan.xml has its register figure (when ptxas is
#      installed: $KORCH_PTXAS, /usr/local/cuda/bin/ptxas or PATH, as korch-compile looks it up)
#   3. korch-interp WORK/NAME.compiled/model.kir (the planned IR: one arena laid out by the memory
#      plan, the SIMT interpreter in its fast mode) on BASE.input_K.npy against PyTorch's
#      BASE.output_K.npy: max|y-ref|/max|ref| <= 1e-4 per output (MANIFEST.md)
#   4. korch-run --dry-run WORK/NAME.compiled   (the artifact against its PTX and the limits)
# and prints the report's summary (kernels, primitives, modelled speedups, compile time, peak RSS).
# BASE is NAME without `.folded`.
# Usage: compile-model.sh KORCH_COMPILE KORCH_INTERP KORCH_RUN MODELS_DIR NAME WORK_DIR
# Exit status: 0 pass, 1 fail, 77 skipped (no model folder, or a tool not built).
set -u
# shellcheck source=reference-args.sh
. "$(dirname "${BASH_SOURCE[0]}")/reference-args.sh"
compile=$1 interp=$2 run=$3 models=$4 name=$5 work=$6
tol=1e-4
for tool in "$compile" "$interp" "$run"; do
  if [ -z "$tool" ] || [ ! -x "$tool" ]; then
    echo "SKIP: tool not built: '$tool'"
    exit 77
  fi
done
if [ ! -f "$models/$name.onnx" ]; then
  echo "SKIP: $models/$name.onnx is absent (the shared model set lives beside the checkout)"
  exit 77
fi
mkdir -p "$work" || exit 1
base=${name%.folded}
out=$work/$name.compiled

echo "== korch-compile $name.onnx -o $out"
if ! "$compile" "$models/$name.onnx" -o "$out" --timing; then
  echo "FAIL: korch-compile failed on $name"
  exit 1
fi

ptxas=${KORCH_PTXAS:-}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
[ -z "$ptxas" ] && ptxas=$(command -v ptxas || true)
kernels=$(grep -c '<kernel ' "$out/model.plan.xml")
with_regs=$(grep '<kernel ' "$out/model.plan.xml" | grep -c 'registers="')
echo "plan: $kernels kernels, $with_regs with ptxas figures"
if [ -n "$ptxas" ] && [ "$with_regs" != "$kernels" ]; then
  echo "FAIL: ptxas ($ptxas) is installed but model.plan.xml lacks register figures"
  exit 1
fi
[ "$kernels" -gt 0 ] || { echo "FAIL: the artifact of $name has no kernel"; exit 1; }

reference_args "$models" "$base"
echo "== interpret model.kir (pass: max|y-ref|/max|ref| <= $tol per output)"
if ! "$interp" "$out/model.kir" "${args[@]}" --no-simt-checks --scaled-tol "$tol" --time; then
  echo "FAIL: $name (korch-compile's model.kir) does not match its reference within $tol"
  exit 1
fi

echo "== korch-run --dry-run"
if ! "$run" --dry-run "$out"; then
  echo "FAIL: korch-run --dry-run rejected the artifact of $name"
  exit 1
fi
sed -n '/^== summary/,/^compile time/p' "$out/report.txt"
echo "PASS: $name (korch-compile)"
