#!/usr/bin/env bash
# bench/import_interp.sh - ONNX import and interpreter cost on the shared models.
#
# usage: bench/import_interp.sh [BUILD_DIR] [MODELS_DIR] [NAME ...]
#        (defaults: build, ../shared/models of the checkout, every NAME.onnx there)
# env:   RUNS (best of, default 3)
#
# For each model: file size; korch-translate --import-onnx wall time and peak RSS (GNU time's
# %M, else getrusage of the child), RSS / file size, and RSS above the tool's idle baseline
# (korch-translate --help); korch-interp on the model's inputs: the run time it reports (--time,
# interpretation only) and the whole process's wall time (parse + run + compare).  Ends with the
# issue-3 goal line for the largest model (import <= 1 s, peak RSS <= 3x the file size).
# Numbers only: not a pass/fail test (bench.import_interp.smoke only checks that it runs).
# Build with -DCMAKE_BUILD_TYPE=Release for meaningful numbers.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
models=${2:-$root/../shared/models}
shift $(( $# < 2 ? $# : 2 ))
runs=${RUNS:-3}
translate=$build/tools/korch-translate/korch-translate
interp=$build/tools/korch-interp/korch-interp
for t in "$translate" "$interp"; do
  [[ -x $t ]] || { echo "import_interp.sh: $t not found (build first)" >&2; exit 1; }
done
[[ -d $models ]] || { echo "import_interp.sh: no model folder $models" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$runs" "$translate" "$interp" "$models" "$tmp" "$@" <<'PY'
import glob, os, re, subprocess, sys, time

runs, translate, interp, models, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
names = sys.argv[6:] or sorted(os.path.basename(f)[:-5] for f in glob.glob(os.path.join(models, '*.onnx')))

# A forked child's ru_maxrss starts at its parent's resident size and survives exec, so the peak
# RSS of a child of this (large) Python process would be Python's.  GNU time is small: it forks,
# execs the tool, and reports the tool's own peak (%M, KiB).  Without it the numbers include
# Python's size, which the idle baseline below then shows.
gnu_time = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None

def run(cmd):
    """Wall seconds, peak RSS (bytes) and stdout of one run of cmd."""
    out = open(os.path.join(tmp, 'stdout'), 'w+b')
    rss_file = os.path.join(tmp, 'rss')
    full = [gnu_time, '-f', '%M', '-o', rss_file] + cmd if gnu_time else cmd
    t0 = time.perf_counter()
    p = subprocess.Popen(full, stdout=out, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    out.seek(0)
    text = out.read().decode(errors='replace')
    out.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit('import_interp.sh: failed: %s\n%s' % (' '.join(cmd), text))
    rss = ru.ru_maxrss * 1024
    if gnu_time:
        rss = int(open(rss_file).read().split()[-1]) * 1024
    return wall, rss, text

def best(cmd):
    rs = [run(cmd) for _ in range(runs)]
    return min(rs, key=lambda r: r[0])

_, idle_rss, _ = best([translate, '--help'])
print('korch-translate idle peak RSS: %.1f MB (%s); best of %d runs; MB = 10^6 bytes' % (
    idle_rss / 1e6, 'GNU time' if gnu_time else 'getrusage, includes the forking Python', runs))
hdr = ('model', 'file MB', 'import ms', 'peak RSS MB', 'RSS/file', 'net RSS/file', 'interp run ms', 'interp wall ms')
print('%-30s %8s %10s %12s %9s %13s %14s %15s' % hdr)
largest = None
for name in names:
    onnx = os.path.join(models, name + '.onnx')
    size = os.path.getsize(onnx)
    kir = os.path.join(tmp, name + '.kir')
    t_imp, rss, _ = best([translate, '--import-onnx', onnx, '-o', kir])
    base = name[:-7] if name.endswith('.folded') else name
    args = [interp, kir, '--time']
    k = 0
    while os.path.exists(os.path.join(models, '%s.input_%d.npy' % (base, k))):
        args += ['--input', '#%d=%s' % (k, os.path.join(models, '%s.input_%d.npy' % (base, k)))]
        k += 1
    run_ms = wall_ms = float('nan')
    if k:
        t_int, _, text = best(args)
        m = re.search(r'time: ([0-9.]+) ms', text)
        run_ms = float(m.group(1)) if m else float('nan')
        wall_ms = t_int * 1e3
    print('%-30s %8.2f %10.1f %12.1f %9.2f %13.2f %14.1f %15.1f' % (
        name, size / 1e6, t_imp * 1e3, rss / 1e6, rss / size, (rss - idle_rss) / size, run_ms, wall_ms))
    if largest is None or size > largest[1]:
        largest = (name, size, t_imp, rss)
if largest:
    name, size, t_imp, rss = largest
    print('largest model %s.onnx (%.2f MB): import %.0f ms (goal <= 1000 ms), peak RSS %.1f MB = %.2fx '
          'the file size (goal <= 3x; %.2fx above the idle baseline)' % (
              name, size / 1e6, t_imp * 1e3, rss / 1e6, rss / size, (rss - idle_rss) / size))
PY
