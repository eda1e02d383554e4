#!/usr/bin/env bash
# test/models/run-model.sh - one model of ../shared/models end to end (ctest `models.<name>`):
#   1. korch-translate --import-onnx NAME.onnx -o WORK/NAME.kir
#   2. korch_check_static WORK/NAME.kir   (static shapes, no shape sub-graph left)
#   3. korch-interp WORK/NAME.kir --input '#K=BASE.input_K.npy' ... --expect '#K=BASE.output_K.npy'
#      --scaled-tol 1e-4                  (rel = max|y-ref|/max|ref| <= 1e-4, MANIFEST.md)
# BASE is NAME without `.folded` (folded files share the original's .npy files).
# At the primitive level (ctest `models.<name>.prim`, issue 4), between 2 and 3:
#   2b. korch-opt WORK/NAME.kir --pass-pipeline=PIPELINE -o WORK/NAME.prim.kir
#       (PIPELINE defaults to op-to-prim,canonicalize; $KORCH_PRIM_PIPELINE overrides it)
#   2c. korch_check_static --level=prim WORK/NAME.prim.kir   (no op.* op left, static shapes)
# and step 3 interprets NAME.prim.kir against the same references and tolerance.
# At the kernel level (ctest `models.<name>.kernel`, issue 5) step 2b runs the standard pipeline
# through orchestration (docs/Orchestration.md; $KORCH_KERNEL_PIPELINE overrides it), writing the
# orchestration report to WORK/NAME.orchestration.txt, then 2c checks the result (no op.* op
# left, static shapes, at least one kernel.launch) and step 3 interprets NAME.kernel.kir (the
# interpreter runs each kernel.launch by running its kernel.func).
# At the scheduled level (ctest `models.<name>.scheduled`, issue 6) the pipeline continues with
# `schedule,lower-task-mappings` ($KORCH_SCHEDULED_PIPELINE overrides it), every kernel.func must
# be scheduled, and step 3 runs the SIMT interpreter without its race checks (--no-simt-checks,
# the fast mode; the conformance tests run with them; bench/simt_interp.sh prints the memory
# report and the checked-mode times).
# At the planned level (ctest `models.<name>.planned`, issue 7) the scheduled pipeline continues
# with `plan-buffers` ($KORCH_PLANNED_PIPELINE overrides it): the host function carries a memory
# plan (docs/MemoryPlan.md), and step 3 runs it through ONE arena laid out by the plan (every
# kernel reads and writes its ranges; a wrong plan gives wrong numbers), in the fast SIMT mode.
# At the artifact level (ctest `models.<name>.artifact`, issue 7) the scheduled pipeline
# continues with `plan-buffers` ($KORCH_ARTIFACT_PIPELINE overrides it), then
#   4. korch-translate NAME.artifact.kir --emit-artifact -o WORK/NAME.artifact.<arch>
#      --gpu-arch=<arch> for sm_90 and sm_80 (ptxas validates the PTX when installed)
#   5. korch-run --dry-run --check-list on both folders (launches against the PTX entries,
#      arena bounds, block/shared/register limits) instead of interpreting (the planned level's
#      test interprets the planned module).
# Usage: run-model.sh KORCH_TRANSLATE KORCH_INTERP CHECK_STATIC MODELS_DIR NAME WORK_DIR
#        [prim|kernel|scheduled|planned KORCH_OPT | artifact KORCH_OPT KORCH_RUN]
# Exit status: 0 pass, 1 fail, 77 skipped (no model folder, or a tool not built).
set -u
# shellcheck source=reference-args.sh
. "$(dirname "${BASH_SOURCE[0]}")/reference-args.sh"
translate=$1 interp=$2 check=$3 models=$4 name=$5 work=$6
level=${7:-op} opt=${8:-} run=${9:-}
pipeline=${KORCH_PRIM_PIPELINE:-op-to-prim,canonicalize}
tol=1e-4
case $level in
  op) ;;
  kernel)
    # (a variable: a '}' inside ${VAR:-...} would end the expansion, and a set
    # $KORCH_KERNEL_PIPELINE would get a stray '}' appended)
    default="op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=$work/$name.orchestration.txt}"
    pipeline=${KORCH_KERNEL_PIPELINE:-$default}
    if [ -z "$opt" ] || [ ! -x "$opt" ]; then
      echo "SKIP: tool not built: korch-opt '$opt'"
      exit 77
    fi ;;
  scheduled)
    # (a variable: a '}' inside ${VAR:-...} would end the expansion)
    default="op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=$work/$name.orchestration.txt},schedule,lower-task-mappings"
    pipeline=${KORCH_SCHEDULED_PIPELINE:-$default}
    if [ -z "$opt" ] || [ ! -x "$opt" ]; then
      echo "SKIP: tool not built: korch-opt '$opt'"
      exit 77
    fi ;;
  planned)
    default="op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=$work/$name.orchestration.txt},schedule,lower-task-mappings,plan-buffers"
    pipeline=${KORCH_PLANNED_PIPELINE:-$default}
    if [ -z "$opt" ] || [ ! -x "$opt" ]; then
      echo "SKIP: tool not built: korch-opt '$opt'"
      exit 77
    fi ;;
  artifact)
    default="op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=$work/$name.orchestration.txt},schedule,lower-task-mappings,plan-buffers"
    pipeline=${KORCH_ARTIFACT_PIPELINE:-$default}
    for tool in "$opt" "$run"; do
      if [ -z "$tool" ] || [ ! -x "$tool" ]; then
        echo "SKIP: tool not built: '$tool'"
        exit 77
      fi
    done ;;
  prim)
    if [ -z "$opt" ] || [ ! -x "$opt" ]; then
      echo "SKIP: tool not built: korch-opt '$opt'"
      exit 77
    fi ;;
  *) echo "run-model.sh: level must be 'op', 'prim', 'kernel', 'scheduled', 'planned' or 'artifact', not '$level'"; exit 2 ;;
esac

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
[ "$level" != op ] && kir=$work/$name.for-$level.kir   # not shared with the op-level test (ctest -j)
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

if [ "$level" != op ]; then
  pkir=$work/$name.$level.kir
  rm -f "$pkir"
  echo "== $level level: $pipeline"
  start=$(date +%s%N)
  if ! "$opt" "$kir" --pass-pipeline="$pipeline" -o "$pkir"; then
    echo "FAIL: the pipeline '$pipeline' failed on $name"
    exit 1
  fi
  echo "pipeline: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  # (scheduled kernels take buffers and index values, not tensors: checked below instead)
  if [ "$level" != scheduled ] && [ "$level" != planned ] && [ "$level" != artifact ]; then
    "$check" --level=prim "$pkir" || { echo "FAIL: $name.$level.kir is not a static primitive graph"; exit 1; }
  fi
  if [ "$level" = kernel ] || [ "$level" = scheduled ] || [ "$level" = planned ] || [ "$level" = artifact ]; then
    launches=$(grep -c 'kernel.launch' "$pkir")
    prims_left=$(awk '/^  func.func/{f=1} /^  kernel.func/{f=0} f && /"prim\.[a-z_]*"/ && !/prim.constant/' "$pkir" | wc -l)
    echo "kernel level: $launches kernel launches, $prims_left primitives left in host functions"
    [ "$launches" -gt 0 ] || { echo "FAIL: $name.kernel.kir launches no kernel"; exit 1; }
    [ "$prims_left" = 0 ] || { echo "FAIL: $name.kernel.kir keeps primitives outside kernels"; exit 1; }
    grep -E '^(total|speedup)' "$work/$name.orchestration.txt" 2>/dev/null
  fi
  if [ "$level" = scheduled ] || [ "$level" = planned ] || [ "$level" = artifact ]; then
    kernels=$(grep -c '^  kernel.func' "$pkir")
    unscheduled=$(grep '^  kernel.func' "$pkir" | grep -vc 'korch.block')
    echo "scheduled level: $kernels kernels, $unscheduled not scheduled"
    [ "$unscheduled" = 0 ] || { echo "FAIL: $name.scheduled.kir has kernels that are not scheduled"; exit 1; }
    ! grep -q 'kernel.map' "$pkir" || { echo "FAIL: $name.scheduled.kir keeps kernel.map after lower-task-mappings"; exit 1; }
  fi
  kir=$pkir
fi

# The plan's figures (docs/MemoryPlan.md): arena peak against the no-reuse total.
if [ "$level" = planned ] || [ "$level" = artifact ]; then
  arena=$(grep -o 'korch.arena_bytes = [0-9]*' "$kir" | head -1 | grep -o '[0-9]*$')
  noreuse=$(grep -o 'korch.no_reuse_bytes = [0-9]*' "$kir" | head -1 | grep -o '[0-9]*$')
  [ -n "$arena" ] || { echo "FAIL: $name.$level.kir carries no memory plan (korch.arena_bytes)"; exit 1; }
  echo "memory plan: arena $arena bytes, no-reuse total ${noreuse:-?} bytes"
fi

if [ "$level" = artifact ]; then
  list=$work/$name.artifact.check-list.txt
  rm -f "$list"
  for arch in sm_90 sm_80; do
    adir=$work/$name.artifact.$arch
    rm -rf "$adir"
    echo "== emit artifact for $arch"
    start=$(date +%s%N)
    if ! "$translate" "$kir" --emit-artifact -o "$adir" --gpu-arch="$arch"; then
      echo "FAIL: korch-translate --emit-artifact --gpu-arch=$arch failed on $name"
      exit 1
    fi
    echo "emit-artifact $arch: $(( ($(date +%s%N) - start) / 1000000 )) ms, PTX $(stat -c %s "$adir/model.ptx") bytes, weights $(stat -c %s "$adir/model.weights") bytes"
    echo "$adir" >> "$list"
  done
  echo "== korch-run --dry-run (sm_90 and sm_80)"
  if ! "$run" --dry-run --check-list "$list"; then
    echo "FAIL: korch-run --dry-run rejected the artifact of $name"
    exit 1
  fi
  echo "PASS: $name (artifact level)"
  exit 0
fi

reference_args "$models" "$base"

echo "== interpret (pass: max|y-ref|/max|ref| <= $tol per output)"
simt=()
[ "$level" = scheduled ] || [ "$level" = planned ] && simt=(--no-simt-checks)
if ! "$interp" "$kir" "${args[@]}" "${simt[@]}" --scaled-tol "$tol" --time; then
  echo "FAIL: $name ($level level) does not match its reference within $tol"
  exit 1
fi
echo "PASS: $name ($level level)"
