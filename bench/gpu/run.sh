#!/bin/sh
# bench/gpu/run.sh - the GPU check (issue 7), run on a machine with an NVIDIA GPU from the folder
# bench/gpu/build-artifacts.sh prebuilt (this script is copied into it as OUT/run.sh):
#
#   sh OUT/run.sh [--iters N] [--no-torch]
#
#   1. korch-run --dry-run over every conformance test and every model (no GPU needed)
#   2. korch-run --check-list over the conformance artifacts: ONE process runs every plan on the
#      GPU and compares each output with the ONNX reference (docs/Runtime.md)
#   3. each model run on the GPU against its PyTorch reference (max|y-ref|/max|ref| <= 1e-4,
#      MANIFEST.md of the shared models), then timed with korch-run --bench N (default 50)
#   4. where `python3 -c 'import torch'` works: the same models in PyTorch eager and
#      torch.compile, TF32 off (torch_bench.py)
#   5. one table: model, korch ms, eager ms, compile ms, max rel error (korch vs reference)
# Meant to finish in under 8 minutes on an H100/H200-class GPU (the PyTorch part stops compiling
# after a 300 s budget).  Needs only POSIX sh, awk and the files in OUT (no LLVM, no CBC).
# Exit status: 0 every check passed; 1 a check failed; 2 usage; 77 no CUDA driver (everything
# before the first GPU call was checked).
set -eu

iters=50
torch=yes
while [ $# -gt 0 ]; do
  case $1 in
    --iters) [ $# -ge 2 ] || { echo "run.sh: --iters needs a value" >&2; exit 2; }; iters=$2; shift 2 ;;
    --iters=*) iters=${1#--iters=}; shift ;;
    --no-torch) torch=no; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (usage: sh run.sh [--iters N] [--no-torch])" >&2; exit 2 ;;
  esac
done
case $iters in
  ''|*[!0-9]*|0*) echo "run.sh: --iters must be a positive integer, not '$iters'" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
krun=$here/bin/korch-run
tol=1e-4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/korch-gpu-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
now() { date +%s; }
t_all=$(now)
fail=0

if [ ! -f "$here/MANIFEST.txt" ] || [ ! -x "$krun" ]; then
  echo "run.sh: $here is not a bundle from bench/gpu/build-artifacts.sh (no MANIFEST.txt or bin/korch-run)" >&2
  exit 2
fi
sed 's/^/  /' "$here/MANIFEST.txt"
# Can korch-run start at all here (a missing libxml2 is the likely problem: the loader exits 127)?
rc=0
"$krun" --help > "$tmp/help.txt" 2>&1 || rc=$?
if [ "$rc" = 126 ] || [ "$rc" = 127 ]; then
  echo "run.sh: bin/korch-run cannot start on this machine (exit $rc):" >&2
  sed 's/^/  /' "$tmp/help.txt" >&2
  echo "  (libxml2 missing? rebuild the bundle with -DKORCH_RUNTIME_STATIC_XML=ON)" >&2
  exit 1
fi

# korch-run exits 77 when there is no usable CUDA driver: stop there, after saying what ran.
no_driver() {
  sed 's/^/  /' "$1" | tail -n 5
  echo "run.sh: no CUDA driver on this machine: stopped at the first GPU call (korch-run exit 77)."
  if [ "$fail" = 0 ]; then
    echo "run.sh: every check before it (the dry runs) ran and passed."
    exit 77
  fi
  echo "run.sh: FAIL: the dry run rejected artifacts (above)."
  exit 1
}

# The check lists name folders relative to their own directory (korch-run --check-list).
clist=$here/conformance/check-list.txt
mlist=$here/models/check-list.txt
[ -f "$clist" ] || : > "$tmp/empty.txt"
[ -f "$clist" ] || clist=$tmp/empty.txt
[ -f "$mlist" ] || mlist=$tmp/empty.txt
nconf=$(grep -c . "$clist" || true)
nmodels=$(grep -c . "$mlist" || true)

# ---- 1. dry run (no GPU) -----------------------------------------------------------------
echo "== 1. korch-run --dry-run: $nconf conformance artifacts, $nmodels models"
for list in "$clist" "$mlist"; do
  [ -s "$list" ] || continue
  if "$krun" --dry-run --check-list "$list" > "$tmp/dry.txt" 2>&1; then
    tail -n 1 "$tmp/dry.txt"
  else
    grep -v '^PASS' "$tmp/dry.txt" | sed 's/^/  /' | head -n 40
    echo "run.sh: FAIL: the dry run rejected artifacts of $list (above)"
    fail=1
  fi
done

# ---- 2. conformance on the GPU (one process) ---------------------------------------------
echo "== 2. korch-run --check-list: $nconf conformance artifacts on the GPU (rtol 1e-3, atol 1e-7)"
rc=0
t0=$(now)
if [ -s "$clist" ]; then
  "$krun" --check-list "$clist" > "$tmp/conformance.log" 2>&1 || rc=$?
else
  echo "(no conformance artifacts in this bundle)"
  : > "$tmp/conformance.log"
fi
[ "$rc" = 77 ] && no_driver "$tmp/conformance.log"
if [ -s "$clist" ]; then
  grep -v '^PASS' "$tmp/conformance.log" | head -n 40 || true
  echo "conformance: $(grep -c '^PASS' "$tmp/conformance.log" || true) of $nconf passed on the GPU in $(( $(now) - t0 )) s"
  [ "$rc" = 0 ] || { echo "run.sh: FAIL: conformance artifacts failed on the GPU (exit $rc)"; fail=1; }
fi

# ---- 3. models: check against the reference, then time (one process) ---------------------
echo "== 3. models on the GPU: max|y-ref|/max|ref| <= $tol, then --bench $iters"
: > "$tmp/korch.txt"
rc=0
if [ -s "$mlist" ]; then
  "$krun" --check-list "$mlist" --scaled-tol "$tol" --bench "$iters" > "$tmp/models.log" 2>&1 || rc=$?
  [ "$rc" = 77 ] && no_driver "$tmp/models.log"
  cat "$tmp/models.log"
  [ "$rc" = 0 ] || { echo "run.sh: FAIL: a model failed on the GPU (exit $rc)"; fail=1; }
fi
# `PASS|FAIL DIR (max abs error A, max scaled error S)...` and
# `korch-run: bench DIR: N runs after W warm-up: median X ms, ...` (tools/korch-run).
while IFS= read -r m; do
  [ -n "$m" ] || continue
  d=$here/models/$m
  verdict=$(awk -v d="$d" '($1 == "PASS" || $1 == "FAIL") && ($2 == d || $2 == d ":") {print $1; exit}' "$tmp/models.log")
  rel=$(awk -v d="$d" '($1 == "PASS" || $1 == "FAIL") && $2 == d {
          for (i = 1; i < NF; i++) if ($i == "scaled" && $(i + 1) == "error") { v = $(i + 2); sub(/[),;].*/, "", v); print v; exit } }'         "$tmp/models.log")
  ms=$(awk -v d="$d:" '$1 == "korch-run:" && $2 == "bench" && $3 == d {
         for (i = 1; i < NF; i++) if ($i == "median") { print $(i + 1); exit } }' "$tmp/models.log")
  echo "$m ${ms:--} ${rel:--} ${verdict:-not-run}" >> "$tmp/korch.txt"
done < "$mlist"

# ---- 4. PyTorch ----------------------------------------------------------------------------
: > "$tmp/torch.txt"
torch_note="PyTorch: not run (--no-torch)"
if [ "$torch" = yes ]; then
  if python3 -c 'import torch' > /dev/null 2>&1; then
    echo "== 4. PyTorch eager and torch.compile (TF32 off)"
    rc=0
    python3 "$here/torch_bench.py" "$here" "$here/torch/models.txt" "$tmp/torch.txt" --iters "$iters" --budget 300 \
      2>&1 | tee "$tmp/torch.log" || rc=$?
    torch_note=$(head -n 1 "$tmp/torch.log")
    [ "$rc" = 0 ] || torch_note="$torch_note (torch_bench.py exited $rc)"
  else
    torch_note="PyTorch: not installed here (python3 -c 'import torch' fails): eager/compile columns empty"
  fi
fi

# ---- 5. the table --------------------------------------------------------------------------
echo
echo "$torch_note"
echo "korch: median of $iters runs after warm-up (CUDA events), whole plan; max rel error = max|y-ref|/max|ref| against the PyTorch reference output"
# (the PyTorch results are read in BEGIN: with `NR == FNR` an empty first file would swallow the second)
awk -v tf="$tmp/torch.txt" '
     BEGIN { while ((getline line < tf) > 0) { split(line, f, " "); eager[f[1]] = f[2]; comp[f[1]] = f[3]; rb[f[1]] = f[4] }
             printf "%-28s %10s %10s %11s %14s %8s %12s\n", "model", "korch ms", "eager ms", "compile ms", "max rel error", "check", "torch rebuild" }
     { printf "%-28s %10s %10s %11s %14s %8s %12s\n", $1, $2, ($1 in eager) ? eager[$1] : "-",
              ($1 in comp) ? comp[$1] : "-", $3, $4, ($1 in rb) ? rb[$1] : "-" }' \
  "$tmp/korch.txt"
if [ -s "$tmp/torch.txt" ] && grep -q ' [a-zA-Z]' "$tmp/torch.txt"; then
  echo "PyTorch notes:"
  awk '{ n = ""; for (i = 5; i <= NF; i++) n = n " " $i; if (n != " -") print "  " $1 ":" n }' "$tmp/torch.txt"
fi
echo "torch rebuild = max rel error of the PyTorch model rebuilt from export_models.py's seeds, on the CPU, against the same reference (~1e-6: the same weights)"
echo "total: $(( $(now) - t_all )) s"
if [ "$fail" != 0 ]; then
  echo "run.sh: FAIL (see above)"
  exit 1
fi
echo "run.sh: all checks passed"
