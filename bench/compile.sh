#!/usr/bin/env bash
# bench/compile.sh - the compile-time benchmark of issue 8: korch-compile on every shared model, the
# time of each stage and the peak RSS (issue 8's goals: the shared bert_encoder_2l end to end in
# <= 5 s, a BERT-base-sized encoder in <= 15 s).
#
# usage: bench/compile.sh [BUILD_DIR] [MODEL ...]
#        BUILD_DIR: default build.  MODEL: an .onnx or .kir file, a name of ../shared/models
#        (`mlp` for ../shared/models/mlp.onnx), or the word `base`: the BERT-base-sized encoder
#        (hidden 768, 12 heads, FFN 3072, sequence 128, 2 layers) that
#        bench/models/make_bert_base.py writes into BUILD_DIR/bench/models (the same file
#        bench/compile_bert_base.sh uses; made again only when missing or older than the
#        generator).  Default: every ../shared/models/*.onnx, then base.
# env:   RUNS (median of, default 3); GEN_ARGS (extra make_bert_base.py arguments for `base`, e.g.
#        '--hidden 64 --heads 2 --ffn 128 --seq 32' for a quick run; the model is then bert_gen);
#        COMPILE_ARGS (extra korch-compile arguments, e.g. '--no-ptxas' or '--gpu-arch sm_80').
#
# Per model and run: `korch-compile MODEL -o TMP/NAME --timing $COMPILE_ARGS` into a fresh folder.
# Columns (each the median over the runs): kernels and primitives (report.txt's summary), the
# seconds of each stage of korch-compile's --timing table (import, prim = op-to-prim and the
# primitive rewrites, orch, sched = schedule + lower-task-mappings, plan, codegen = LLVM and the
# artifact files less ptxas, ptxas = CPU seconds of ptxas, dot = Graphviz making graph.svg (when
# `dot` is on PATH), write = model.kir, report.txt, moving the files; a stage korch-compile adds
# gets its own column, named by the first model), `total` (korch-compile's own
# figure), `wall` (the whole process as this script measures it: start-up, exit and the files
# included), `cpu` (user + system seconds of korch-compile and its children: ptxas, dot; a figure
# the load of a shared machine inflates less than wall time), `RSS` (korch-compile's own peak, its
# --timing figure) and `max RSS` (GNU time's %M: the largest of korch-compile and the children it
# waited for; without /usr/bin/time, getrusage of the children, the same).  MB = 10^6 bytes.
# After the runs of a model the last run's folder is checked: model.ptx, model.plan.xml,
# model.weights, model.kir, report.txt and graph.dot exist and are not empty, and model.ptx has one
# .entry per kernel of report.txt.  Exit status 1 when a compile fails or a check does not pass;
# the timings are numbers, not pass/fail.  Build with -DCMAKE_BUILD_TYPE=Release.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
shift $(( $# < 1 ? $# : 1 ))
runs=${RUNS:-3}
compile=$build/tools/korch-compile/korch-compile
[[ -x $compile ]] || { echo "compile.sh: $compile not found (build korch-compile first)" >&2; exit 1; }
shared=$root/../shared/models

models=("$@")
if (( ${#models[@]} == 0 )); then
  for f in "$shared"/*.onnx; do [[ -f $f ]] && models+=("$f"); done
  models+=(base)
fi

# shellcheck source=models/bert_base.sh
. "$root/bench/models/bert_base.sh"
for i in "${!models[@]}"; do
  m=${models[$i]}
  if [[ $m == base ]]; then
    make_bert_base "$root" "$build"
    models[$i]=$bert_base_onnx
  elif [[ ! -f $m && -f $shared/$m.onnx ]]; then
    models[$i]=$shared/$m.onnx
  elif [[ ! -f $m ]]; then
    echo "compile.sh: no model '$m' (a file, a name of $shared, or base)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$runs" "$compile" "$tmp" "${COMPILE_ARGS:-}" "${models[@]}" <<'PY'
import os, re, resource, shlex, shutil, statistics, subprocess, sys, time

runs, compile, tmp, extra = int(sys.argv[1]), sys.argv[2], sys.argv[3], shlex.split(sys.argv[4])
models = sys.argv[5:]
gnu_time = '/usr/bin/time' if os.access('/usr/bin/time', os.X_OK) else None
SHORT = {'import': 'import', 'op-to-prim+rewrites': 'prim', 'orchestrate': 'orch', 'schedule': 'sched',
         'plan': 'plan', 'candidates': 'cands', 'codegen (PTX)': 'codegen', 'ptxas': 'ptxas', 'graph.svg (dot)': 'dot',
         'write': 'write'}
FILES = ('model.ptx', 'model.plan.xml', 'model.weights', 'model.kir', 'report.txt', 'graph.dot')

def run(cmd):
    """(exit status, wall seconds, max RSS bytes, CPU seconds, stdout+stderr text) of one run."""
    rss_file = os.path.join(tmp, 'rss')
    full = [gnu_time, '-f', '%M %U %S', '-o', rss_file] + cmd if gnu_time else cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.communicate()[0].decode(errors='replace')
    wall = time.perf_counter() - t0
    if gnu_time:
        try:
            m, u, s = open(rss_file).read().split()[-3:]
            return p.returncode, wall, int(m) * 1024, float(u) + float(s), text
        except (OSError, ValueError):
            return p.returncode or 1, wall, 0, 0.0, text
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return p.returncode, wall, after.ru_maxrss * 1024, cpu, text

def timing(text):
    """{stage: seconds} (in table order), korch-compile's total seconds and own peak RSS bytes."""
    stages, total, rss = {}, None, None
    table = text[text.find('korch-compile timing report'):] if 'korch-compile timing report' in text else ''
    for line in table.splitlines():
        m = re.match(r'^\s+(\S.*?)\s+([0-9.]+)(\s+MiB)?\s*$', line)
        if not m:
            continue
        name, value = m.group(1), float(m.group(2))
        if name == 'total':
            total = value
        elif name == 'peak RSS':
            rss = value * 1024 * 1024
        else:
            stages[name] = value
    return stages, total, rss

def check(outdir):
    """Problems with the output folder (an empty list when fine); kernels and primitives."""
    bad = ['no %s' % f for f in FILES if not os.path.isfile(os.path.join(outdir, f)) or
           not os.path.getsize(os.path.join(outdir, f))]
    kernels = prims = '?'
    if not bad:
        rep = open(os.path.join(outdir, 'report.txt')).read()
        k = re.search(r'^kernels: (\d+)', rep, re.M)
        p = re.search(r'^primitives: (\d+)', rep, re.M)
        kernels, prims = (k.group(1) if k else '?'), (p.group(1) if p else '?')
        ptx = open(os.path.join(outdir, 'model.ptx')).read()
        entries = len(re.findall(r'^\.visible \.entry ', ptx, re.M))
        if kernels == '?' or entries != int(kernels):
            bad.append('model.ptx has %d .entry, report.txt says %s kernels' % (entries, kernels))
    return bad, kernels, prims

print('korch-compile end to end: median of %d run(s); seconds; RSS in MB (10^6 bytes; max RSS: %s)%s' % (
    runs, 'GNU time %M' if gnu_time else 'getrusage of the children',
    ('; korch-compile ' + ' '.join(extra)) if extra else ''), flush=True)
failed = False
results = []
header_cols = None
for model in models:
    name = os.path.basename(model).rsplit('.', 1)[0]
    outdir = os.path.join(tmp, name)
    rows, err = [], None
    for _ in range(runs):
        shutil.rmtree(outdir, ignore_errors=True)
        rc, wall, maxrss, cpu, text = run([compile, model, '-o', outdir, '--timing'] + extra)
        if rc != 0:
            err = 'korch-compile failed (exit %d):\n%s' % (rc, '\n'.join(text.strip().splitlines()[-8:]))
            break
        stages, total, rss = timing(text)
        if total is None:
            err = 'no --timing table in the output of korch-compile'
            break
        rows.append((stages, total, wall, cpu, rss or 0, maxrss))
    extra_stages = sorted({k for r in rows for k in r[0]} - set(stage_keys)) if header_cols and rows else []
    if header_cols is None:
        header_cols = [SHORT.get(s, s[:8]) for s in rows[0][0]] if rows else [SHORT[s] for s in SHORT]
        stage_keys = list(rows[0][0]) if rows else list(SHORT)
        hdr = ['model', 'kernels', 'prims'] + header_cols + ['total', 'wall', 'cpu', 'RSS', 'max RSS']
        fmt = '%-28s %7s %6s' + ' %7s' * (len(header_cols) + 5)
        print(fmt % tuple(hdr), flush=True)
    if err:
        print('%-28s FAILED: %s' % (name, err), flush=True)
        failed = True
        continue
    bad, kernels, prims = check(outdir)
    med = lambda f: statistics.median(f(r) for r in rows)
    stage_med = ['%.3f' % med(lambda r, k=k: r[0].get(k, 0.0)) for k in stage_keys]
    wall, cpu = med(lambda r: r[2]), med(lambda r: r[3])
    print(fmt % tuple([name, kernels, prims] + stage_med +
                      ['%.3f' % med(lambda r: r[1]), '%.3f' % wall, '%.3f' % cpu,
                       '%.1f' % (med(lambda r: r[4]) / 1e6), '%.1f' % (med(lambda r: r[5]) / 1e6)]), flush=True)
    for k in extra_stages:
        print('  %s: stage %s: %.3f s (no column)' % (name, k, med(lambda r, k=k: r[0].get(k, 0.0))), flush=True)
    if bad:
        print('  %s: output check failed: %s' % (name, '; '.join(bad)), flush=True)
        failed = True
    results.append((name, wall, cpu, med(lambda r: r[0].get('graph.svg (dot)', 0.0))))

goals = {'bert_encoder_2l': 5.0, 'bert_base_2l': 15.0}
for name, wall, cpu, dot in results:
    if name in goals:
        print('goal %s: end to end %.2f s wall (%.2f s CPU%s), goal <= %.0f s' % (
            name, wall, cpu, '; %.2f s of it Graphviz for graph.svg' % dot if dot else '', goals[name]))
sys.exit(1 if failed else 0)
PY
