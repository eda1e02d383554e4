#!/usr/bin/env bash
# bench/compile_bert_base.sh - ONNX import through orchestration on BERT encoders (issue 5's goals:
# <= 3 s for the shared bert_encoder_2l, <= 10 s for a BERT-base-sized encoder).
#
# usage: bench/compile_bert_base.sh [BUILD_DIR] [MODEL ...]
#        BUILD_DIR: default build.  MODEL: an .onnx file (its inputs NAME.input_K.npy beside it) or
#        the word `base`: the BERT-base-sized encoder (hidden 768, 12 heads, FFN 3072, sequence 128,
#        2 layers) that bench/models/make_bert_base.py writes into BUILD_DIR/bench/models (made
#        again only when missing or older than the generator).  Default: ../shared/models/
#        bert_encoder_2l.onnx (when present) and base.
# env:   RUNS (median of, default 3); GEN_ARGS (extra make_bert_base.py arguments for `base`, e.g.
#        '--hidden 64 --heads 2 --ffn 128 --seq 32' for a quick run; the model is then bert_gen);
#        ORCH_OPTIONS (extra orchestrate options, e.g. 'mode=greedy').
#
# Per model and run: korch-translate --import-onnx (wall time, peak RSS), then one korch-opt with
#   --pass-pipeline='builtin.module(op-to-prim,canonicalize,prim-normalize-after-matmul,
#   prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=...})' --timing
# whose timing table splits the passes into the prim pipeline (every pass before orchestrate) and
# orchestrate; `opt I/O` is the rest of korch-opt's wall time (start-up, parsing, verifying and
# printing the .kir, whose dense weights dominate).  `total` = import wall + korch-opt wall (the
# command-line tools, text IR in between); `in-proc` = import + prim + orchestrate (what one process
# that keeps the IR in memory spends, as bench_orchestrate measures); `cpu` = user + system CPU
# seconds of both tools (a figure the load of a shared machine inflates less than wall time).  Each
# column is the median over the runs; peak RSS is GNU time's %M (else getrusage of the children).
# Then a correctness check on the last run's files: korch-interp runs the op-level module on the
# model's inputs and the kernel-level module must match it (--scaled-tol 1e-4, the MANIFEST's
# criterion), and the reference output NAME.output_0.npy too when it exists.  Exit status 1 when a
# tool fails or a check does not pass; the timings are numbers, not pass/fail.
# Build with -DCMAKE_BUILD_TYPE=Release for meaningful numbers.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
shift $(( $# < 1 ? $# : 1 ))
runs=${RUNS:-3}
translate=$build/tools/korch-translate/korch-translate
opt=$build/tools/korch-opt
interp=$build/tools/korch-interp/korch-interp
for t in "$translate" "$opt" "$interp"; do
  [[ -x $t ]] || { echo "compile_bert_base.sh: $t not found (build first)" >&2; exit 1; }
done

models=("$@")
if (( ${#models[@]} == 0 )); then
  shared=$root/../shared/models/bert_encoder_2l.onnx
  [[ -f $shared ]] && models+=("$shared")
  models+=(base)
fi

# shellcheck source=models/bert_base.sh
. "$root/bench/models/bert_base.sh"
for i in "${!models[@]}"; do
  [[ ${models[$i]} == base ]] || continue
  make_bert_base "$root" "$build"
  models[$i]=$bert_base_onnx
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$runs" "$translate" "$opt" "$interp" "$tmp" "${ORCH_OPTIONS:-}" "${models[@]}" <<'PY'
import os, re, resource, statistics, subprocess, sys, time

runs, translate, opt, interp, tmp, orch_options = (int(sys.argv[1]), sys.argv[2], sys.argv[3],
                                                   sys.argv[4], sys.argv[5], sys.argv[6])
models = sys.argv[7:]
PRIM = 'op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse'
gnu_time = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None

def run(cmd, what):
    """Wall seconds, peak RSS (bytes), CPU seconds (user + system) and stdout+stderr text of one run
    of cmd; exits on failure."""
    rss_file = os.path.join(tmp, 'rss')
    full = [gnu_time, '-f', '%M %U %S', '-o', rss_file] + cmd if gnu_time else cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.communicate()[0].decode(errors='replace')
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit('compile_bert_base.sh: %s failed (exit %d): %s\n%s' % (what, p.returncode, ' '.join(cmd), text))
    if gnu_time:   # the tool's own peak; a forked child's ru_maxrss would include this Python
        m, u, s = open(rss_file).read().split()[-3:]
        return wall, int(m) * 1024, float(u) + float(s), text
    # Without GNU time: the largest child so far (Python's size included) and the CPU time delta.
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, after.ru_maxrss * 1024, cpu, text

def timing(text):
    """(prim-pipeline seconds, orchestrate seconds, total pass-manager seconds) of --timing."""
    total = float(re.search(r'Total Execution Time: ([0-9.]+) seconds', text).group(1))
    rows = re.findall(r'^\s+([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*?)\s*$', text, re.M)
    orch = sum(float(t) for t, n in rows if n == 'Orchestrate')
    prim = sum(float(t) for t, n in rows if n not in ('Orchestrate', 'Rest', 'Total'))
    return prim, orch, total

print('import through orchestration: median of %d run(s); seconds; peak RSS in MB (10^6 bytes, %s)' % (
    runs, 'GNU time' if gnu_time else 'getrusage'))
hdr = ('model', 'file MB', 'import', 'prim', 'orch', 'opt I/O', 'total', 'in-proc', 'cpu', 'imp RSS',
       'opt RSS', 'cands', 'solve', 'status', 'kernels')
fmt = '%-18s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %6s %6s %-8s %s'
print(fmt % hdr)
failed = False
results = []
for onnx in models:
    name = os.path.basename(onnx)[:-5]
    base = os.path.join(os.path.dirname(onnx), name)
    kir, kern, report = (os.path.join(tmp, name + s) for s in ('.kir', '.kernel.kir', '.report.txt'))
    orch = 'orchestrate{report=%s%s}' % (report, (' ' + orch_options) if orch_options else '')
    pipeline = 'builtin.module(%s,%s)' % (PRIM, orch)
    rows = []
    for _ in range(runs):
        t_imp, rss_imp, c_imp, _ = run([translate, '--import-onnx', onnx, '-o', kir], 'import')
        t_opt, rss_opt, c_opt, text = run([opt, kir, '--pass-pipeline=' + pipeline, '--timing', '-o', kern],
                                          'korch-opt')
        prim, orc, pm = timing(text)
        rep = open(report).read()
        tot = re.search(r'^total\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+([0-9.]+)\s+(\S+)', rep, re.M)
        if not tot:
            sys.exit('compile_bert_base.sh: no `total` row in the orchestration report:\n' + rep)
        rows.append((t_imp, prim, orc, t_opt - pm, t_imp + t_opt, t_imp + prim + orc, c_imp + c_opt,
                     rss_imp, rss_opt, float(tot.group(3)) / 1e3))
    med = [statistics.median(r[i] for r in rows) for i in range(10)]
    kern_n = re.search(r'kernels: unfused (\d+), greedy (\d+), optimal (\d+)', rep)
    print(fmt % (name, '%.2f' % (os.path.getsize(onnx) / 1e6), *('%.3f' % v for v in med[:7]),
                 '%.1f' % (med[7] / 1e6), '%.1f' % (med[8] / 1e6), tot.group(2),
                 '%.2f' % med[9], tot.group(4),
                 '%s/%s/%s' % kern_n.groups() if kern_n else '?'), flush=True)
    results.append((name, med[4], med[5]))

    # Correctness: kernel level vs op level (the reference interpreter), and vs the model's own
    # reference output when it has one.
    args, k = [], 0
    while os.path.exists('%s.input_%d.npy' % (base, k)):
        args += ['--input', '#%d=%s.input_%d.npy' % (k, base, k)]
        k += 1
    if not k:
        print('  %s: no %s.input_0.npy, numerics not checked' % (name, base))
        continue
    ref = os.path.join(tmp, name + '.op-level.npy')
    run([interp, kir] + args + ['--output', '#0=' + ref], 'op-level korch-interp')   # the reference
    checks = [('op level', ref)]
    if os.path.exists(base + '.output_0.npy'):
        checks.append(('reference', base + '.output_0.npy'))
    for what, r in checks:
        p = subprocess.run([interp, kern] + args + ['--expect', '#0=' + r, '--scaled-tol', '1e-4'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        line = p.stdout.decode(errors='replace').strip().splitlines()
        print('  %s kernel level vs %s: %s' % (name, what, line[-1] if line else '(no output)'))
        failed |= p.returncode != 0

goals = {'bert_encoder_2l': 3.0, 'bert_base_2l': 10.0}
for name, total, inproc in results:
    if name in goals:
        print('goal %s: import through orchestration %.2f s with the tools (%.2f s in process), goal <= %.0f s' % (
            name, total, inproc, goals[name]))
sys.exit(1 if failed else 0)
PY
