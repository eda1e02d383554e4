#!/usr/bin/env bash
# test/fuzz/run-fuzz.sh - build a libFuzzer target with clang + ASan + UBSan, replay its seeds,
# then fuzz.  Targets (env TARGET): `parse` (default; the .kir parser/printer, parse_fuzz.c, seeds
# test/fuzz/corpus) or `onnx` (the ONNX importer, onnx_fuzz.c, seeded with the model.onnx files of
# the ONNX node tests listed in ../shared/conformance/onnx-node-tests.txt).
#
# usage: test/fuzz/run-fuzz.sh [SECONDS] [libFuzzer flags...]
#   SECONDS   how long to fuzz (default 60; 0: only replay, unless flags like -runs=N are given)
#   flags     passed to the fuzzer, e.g. -runs=10000000 (10M executions), -jobs=2 -workers=2
# examples:
#   test/fuzz/run-fuzz.sh 60                  # what CI runs (and TARGET=onnx ... 60)
#   test/fuzz/run-fuzz.sh 0 -runs=10000000    # the >= 10M-execution campaign (one process)
#   test/fuzz/run-fuzz.sh 0 -runs=5000000 -jobs=2 -workers=2   # the same on both cores
# env: KORCH_FUZZ_BUILD (build dir, default <repo>/build-fuzz), CC (default clang-19), JOBS (2).
#
# The seed corpus (test/fuzz/corpus) is never modified: new inputs go to $KORCH_FUZZ_BUILD/corpus,
# crashes/leaks/timeouts to $KORCH_FUZZ_BUILD/artifacts/.  Prints the execution count at the end.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
secs=${1:-60}
if [[ $# -gt 0 ]]; then shift; fi
build=${KORCH_FUZZ_BUILD:-$root/build-fuzz}
cc=${CC:-clang-19}
jobs=${JOBS:-2}
target=${TARGET:-parse}
case $target in
  parse|onnx) ;;
  *) echo "run-fuzz.sh: TARGET must be parse or onnx" >&2; exit 2 ;;
esac

if ! command -v "$cc" >/dev/null; then
  echo "run-fuzz.sh: $cc not found (apt-get install clang-19, or set CC)" >&2
  exit 1
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
  -DKORCH_FUZZ=ON -DKORCH_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target ${target}_fuzz -j "$jobs"
fuzzer=$build/test/fuzz/${target}_fuzz
mkdir -p "$build/artifacts"
if [[ $target == parse ]]; then
  seeds=$root/test/fuzz/corpus
  corpus=$build/corpus
  common=(-dict="$root/test/fuzz/kir.dict" -max_len=4096)
else
  # The ONNX seeds come from the system's test data (never copied into the project).
  list=$root/../shared/conformance/onnx-node-tests.txt
  node=/usr/share/libonnx-testdata/data/node
  if [[ ! -f $list || ! -d $node ]]; then
    echo "run-fuzz.sh: $list or $node is absent: no ONNX seeds, skipped"
    exit 0
  fi
  seeds=$build/onnx-seeds
  corpus=$build/onnx-corpus
  mkdir -p "$seeds"
  while read -r t _; do
    [[ -z $t || $t == \#* ]] && continue
    cp -f "$node/$t/model.onnx" "$seeds/$t.onnx"
  done <"$list"
  common=(-max_len=65536)
fi
mkdir -p "$corpus"
common+=(-artifact_prefix="$build/artifacts/" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
         -print_final_stats=1)

echo "== replaying $(ls "$seeds" | wc -l) seed inputs"
"$fuzzer" "${common[@]}" -runs=0 "$seeds"

if [[ "$secs" == 0 && $# -eq 0 ]]; then
  exit 0
fi
limit=()
if [[ "$secs" != 0 ]]; then limit=(-max_total_time="$secs"); fi
log=$build/$target-fuzz.log
echo "== fuzzing (${secs}s${*:+, $*}); log: $log"
# In the build dir: with -jobs=N libFuzzer writes each job's output to ./fuzz-<i>.log.
cd "$build"
rm -f fuzz-*.log
set +e
"$fuzzer" "${common[@]}" "${limit[@]}" "$@" "$corpus" "$seeds" 2>&1 | tee "$log" |
  grep -E '^(#[0-9]+.*(pulse|DONE)|==|stat::|SUMMARY|Done)' | tail -n 40
rc=${PIPESTATUS[0]}
set -e
# Executions summed over the job logs (-jobs=N; the main log repeats them) or taken from the main
# log; exec/s summed over the jobs; peak RSS of the largest process.
logs=("$log")
if compgen -G 'fuzz-*.log' >/dev/null; then logs=(fuzz-*.log); fi
stats() { grep -hE "^stat::$1:" "${logs[@]}" 2>/dev/null | awk '{print $2}'; }
execs=$(stats number_of_executed_units | awk '{s += $1} END {print s + 0}')
rate=$(stats average_exec_per_sec | awk '{s += $1} END {print s + 0}')
rss=$(stats peak_rss_mb | sort -n | tail -n1)
echo "== executions: ${execs}  exec/s: ${rate}  peak RSS: ${rss:-?} MB  corpus: $(ls "$corpus" | wc -l) inputs  exit: $rc"
if [[ $rc -ne 0 ]]; then
  echo "run-fuzz.sh: the fuzzer found a problem; reproducer(s) in $build/artifacts/:" >&2
  ls -l "$build/artifacts" >&2
fi
exit "$rc"
