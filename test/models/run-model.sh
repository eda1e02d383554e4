#!/usr/bin/env bash
# test/models/run-model.sh - one model of ../shared/models end to end (ctest `models.<name>`):
#   1. korch-translate --import-onnx NAME.onnx -o WORK/NAME.kir
#   2. korch_check_static WORK/NAME.kir   (static shapes, no shape sub-graph left)
#   3. korch-interp WORK/NAME.kir --input '#K=BASE.input_K.npy' ... --expect '#K=BASE.output_K.npy'
#      --scaled-tol 1e-4                  (rel = max|y-ref|/max|ref| <= 1e-4, MANIFEST.md)
# BASE is NAME without `.folded` (folded files share the original's .npy files).
# Usage: run-model.sh KORCH_TRANSLATE KORCH_INTERP CHECK_STATIC MODELS_DIR NAME WORK_DIR
# Exit status: 0 pass, 1 fail, 77 skipped (no model folder, or a tool not built).
set -u
translate=$1 interp=$2 check=$3 models=$4 name=$5 work=$6
tol=1e-4

if [ ! -d "$models" ]; then
  echo "SKIP: $models is absent (the shared model set lives beside the checkout)"
  exit 77
fi
if [ ! -f "$models/$name.onnx" ]; then
  echo "SKIP: $models/$name.onnx is absent"
  exit 77
fi
for tool in "$translate" "$interp" "$check"; do
  if [ -z "$tool" ] || [ ! -x "$tool" ]; then
    echo "SKIP: tool not built: '$tool'"
    exit 77
  fi
done
mkdir -p "$work" || exit 1
base=${name%.folded}
kir=$work/$name.kir
rm -f "$kir"

echo "== import $name.onnx"
start=$(date +%s%N)
if ! "$translate" --import-onnx "$models/$name.onnx" -o "$kir"; then
  echo "FAIL: import of $name.onnx failed"
  exit 1
fi
echo "import: $(( ($(date +%s%N) - start) / 1000000 )) ms, $(stat -c %s "$models/$name.onnx") -> $(stat -c %s "$kir") bytes"

echo "== static graph check"
"$check" "$kir" || { echo "FAIL: $name.kir is not a static op-level graph"; exit 1; }

args=()
k=0
while [ -f "$models/$base.input_$k.npy" ]; do
  args+=(--input "#$k=$models/$base.input_$k.npy")
  k=$((k + 1))
done
k=0
while [ -f "$models/$base.output_$k.npy" ]; do
  args+=(--expect "#$k=$models/$base.output_$k.npy")
  k=$((k + 1))
done
if [ "$k" = 0 ]; then
  echo "FAIL: no reference output $models/$base.output_0.npy"
  exit 1
fi

echo "== interpret (pass: max|y-ref|/max|ref| <= $tol per output)"
if ! "$interp" "$kir" "${args[@]}" --scaled-tol "$tol" --time; then
  echo "FAIL: $name does not match its reference within $tol"
  exit 1
fi
echo "PASS: $name"
