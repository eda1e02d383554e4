#!/usr/bin/env bash
# bench/simt_interp.sh - the SIMT interpreter on the shared models at the scheduled level (issue 6).
#
# usage: bench/simt_interp.sh [BUILD_DIR] [MODELS_DIR] [NAME ...]
#        (defaults: build, ../shared/models of the checkout, every NAME.onnx there)
# env:   RUNS (best of, default 1)
#
# For each model: the pipeline through `schedule,lower-task-mappings` (korch-opt), then
# korch-interp on the model's inputs twice, without the race checks (--no-simt-checks: threads in
# order, no shadow memory) and with them (--simt-checks: seeded shuffled thread order between
# barriers, shared-memory race detection), then a third time collecting the memory report
# (--memory-report, fast mode), printing the interpreter's own run time (--time) of each and the
# relative error against the PyTorch reference; then the memory report summed per template: global-access efficiency (minimum 32-byte sectors over sectors touched) and
# shared-memory bank-conflict wavefronts (all accesses, and the innermost loops). Numbers only:
# the pass/fail checks are ctest's models.<name>.scheduled.  Build with -DCMAKE_BUILD_TYPE=Release.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
models=${2:-$root/../shared/models}
shift $(( $# < 2 ? $# : 2 ))
runs=${RUNS:-1}
translate=$build/tools/korch-translate/korch-translate
opt=$build/tools/korch-opt
interp=$build/tools/korch-interp/korch-interp
for t in "$translate" "$opt" "$interp"; do
  [[ -x $t ]] || { echo "simt_interp.sh: $t not found (build first)" >&2; exit 1; }
done
[[ -d $models ]] || { echo "simt_interp.sh: no model folder $models" >&2; exit 1; }
pipeline=${KORCH_SCHEDULED_PIPELINE:-op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate,schedule,lower-task-mappings}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for f in "$models"/*.onnx; do n=$(basename "$f"); names+=("${n%.onnx}"); done
fi

# best-of-$runs interpreter time (ms) of one configuration; the last run's output in $tmp/out
best_ms() {
  local best=""
  for ((r = 0; r < runs; r++)); do
    "$interp" "$@" --time > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "FAILED"; return; }
    local t
    t=$(awk '/^time:/{print $2}' "$tmp/out")
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

printf '%-30s %8s %8s %12s %12s %12s %10s\n' model kernels "sched ms" "fast ms" "checked ms" "report ms" "max rel"
report=$tmp/report
: > "$report"
for name in "${names[@]}"; do
  base=${name%.folded}
  "$translate" --import-onnx "$models/$name.onnx" -o "$tmp/$name.kir"
  start=$(date +%s%N)
  "$opt" "$tmp/$name.kir" --pass-pipeline="builtin.module($pipeline)" -o "$tmp/$name.sched.kir"
  sched_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  kernels=$(grep -c '^  kernel.func' "$tmp/$name.sched.kir")
  args=()
  k=0
  while [[ -f $models/$base.input_$k.npy ]]; do args+=(--input "#$k=$models/$base.input_$k.npy"); k=$((k + 1)); done
  k=0
  while [[ -f $models/$base.output_$k.npy ]]; do args+=(--expect "#$k=$models/$base.output_$k.npy"); k=$((k + 1)); done
  fast=$(best_ms "$tmp/$name.sched.kir" "${args[@]}" --scaled-tol 1e-4 --no-simt-checks)
  rel=$(grep -o 'scaled_err=[^ ]*' "$tmp/out" | awk -F= '{ if ($2 > m) m = $2 } END { printf "%.1e", m }')
  checked=$(best_ms "$tmp/$name.sched.kir" "${args[@]}" --scaled-tol 1e-4 --simt-checks)
  reported=$(best_ms "$tmp/$name.sched.kir" "${args[@]}" --scaled-tol 1e-4 --no-simt-checks --memory-report)
  grep -E '^memory:' "$tmp/out" | sed "s/^/$name /" >> "$report" || true
  printf '%-30s %8s %8s %12s %12s %12s %10s\n' "$name" "$kernels" "$sched_ms" "$fast" "$checked" "$reported" "$rel"
done

echo
echo "memory report, summed per template (korch-interp --memory-report):"
python3 - "$report" <<'PY'
import re, sys
# korch-interp prints: memory: @K template=T launches=N global: E% efficiency (S sectors, min M,
# A accesses) shared: W wavefronts (min MW, SA accesses) inner-loop conflicts: C (IA accesses)
pat = re.compile(r'template=(\S+) .*?\((\d+) sectors, min (\d+), (\d+) accesses\) shared: (\d+) wavefronts '
                 r'\(min (\d+), (\d+) accesses\) inner-loop conflicts: (\d+) \((\d+) accesses\)')
tot = {}
for line in open(sys.argv[1]):
    m = pat.search(line)
    if not m: continue
    d = tot.setdefault(m.group(1), [0] * 9)
    d[0] += 1
    for i in range(8): d[i + 1] += int(m.group(i + 2))
print('%-14s %8s %14s %14s %7s %14s %14s %12s' % ('template', 'kernels', 'global sectors', 'minimum', 'eff %',
                                                'shared wavefr.', 'minimum', 'inner confl.'))
for t, d in sorted(tot.items()):
    print('%-14s %8d %14d %14d %7.1f %14d %14d %12d' % (t, d[0], d[1], d[2], 100.0 * d[2] / d[1] if d[1] else 100.0,
                                                      d[4], d[5], d[7]))
PY
