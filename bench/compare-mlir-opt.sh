#!/usr/bin/env bash
# bench/compare-mlir-opt.sh - korch-opt vs mlir-opt on the same generated module.
#
# usage: bench/compare-mlir-opt.sh [BUILD_DIR] [OPS]      (defaults: build, 1000000)
# env:   MLIR_OPT (default /usr/lib/llvm-19/bin/mlir-opt), RUNS (best of, default 3)
#
# bench_ir_throughput --write produces the module (func.func + arith + unregistered `bench` ops,
# text MLIR also accepts); both tools then parse, verify and print it (custom form, to /dev/null)
# with --allow-unregistered-dialect.  Prints wall seconds and peak RSS of each and the ratios.
# Numbers only: not a pass/fail test.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
ops=${2:-1000000}
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-19/bin/mlir-opt}
runs=${RUNS:-3}
korch_opt=$build/tools/korch-opt
gen=$build/bench/bench_ir_throughput
for t in "$korch_opt" "$gen" "$mlir_opt"; do
  [[ -x $t ]] || { echo "compare-mlir-opt.sh: $t not found (build first)" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" -n "$ops" --write "$tmp/bench.kir"

# Best-of-N wall time and peak RSS (Python's resource module: no dependency on GNU time or bc).
python3 - "$runs" "$tmp/bench.kir" "$korch_opt" "$mlir_opt" <<'PY'
import os, resource, subprocess, sys, time
runs, path, korch, mlir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

def measure(tool):
    best, rss = None, 0
    for _ in range(runs):
        t = time.perf_counter()
        # fork a fresh measuring child so ru_maxrss is this tool's alone
        r = subprocess.run([sys.executable, "-c",
            "import resource,subprocess,sys;"
            "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);sys.exit(r.returncode)",
            tool, "--allow-unregistered-dialect", path], capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit("%s failed (%d): %s" % (tool, r.returncode, r.stderr[-2000:]))
        best = dt if best is None else min(best, dt)
        rss = max(rss, int(r.stdout.strip()))
    return best, rss

ks, kkb = measure(korch)
ms, mkb = measure(mlir)
print("module                     %s bytes" % os.path.getsize(path))
print("korch-opt seconds          %.3f" % ks)
print("mlir-opt seconds           %.3f" % ms)
print("korch-opt peak RSS MiB     %.1f" % (kkb / 1024))
print("mlir-opt peak RSS MiB      %.1f" % (mkb / 1024))
print("time ratio korch/mlir      %.3f" % (ks / ms))
print("memory ratio korch/mlir    %.3f" % (kkb / mkb))
PY
