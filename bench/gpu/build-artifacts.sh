#!/bin/sh
# bench/gpu/build-artifacts.sh - prebuilds, on a machine with the korch build (LLVM, CBC), the one
# folder a GPU machine needs for bench/gpu/run.sh: that machine then needs neither LLVM nor CBC
# nor the korch sources (docs/Testing.md, "The GPU check").
#
#   sh bench/gpu/build-artifacts.sh OUT [--build DIR] [--gpu-arch sm_90] [--models DIR]
#                                       [--list FILE] [--no-conformance] [--dynamic-run]
#
# OUT (replaced) gets:
#   bin/korch-run                 the runtime (libc, libdl, libxml2).  When the build's korch-run
#                                 links libxml2 dynamically (a GPU machine may lack it, or have
#                                 another ICU), a second one is built with libxml2 static
#                                 (-DKORCH_RUNTIME_STATIC_XML=ON) in DIR/static-korch-run and
#                                 bundled instead; --dynamic-run keeps the build's.  The linkage
#                                 is printed and recorded in MANIFEST.txt
#   run.sh, torch_bench.py        the GPU-side scripts (copies of this folder's)
#   conformance/<test>/           every passing ONNX node test compiled (onnx-conformance
#                                 --level=artifact: planned module checked on the CPU, PTX
#                                 validated by ptxas) with input_<i>.npy / output_<i>.npy (the
#                                 ONNX references); conformance/check-list.txt names them, one
#                                 per line, relative to conformance/
#   models/<name>/                each shared model (../shared/models/*.onnx): the artifact
#                                 (scheduled pipeline + plan-buffers + --emit-artifact) and
#                                 input_K.npy / output_K.npy (the PyTorch references);
#                                 models/check-list.txt names those that compiled
#   torch/export_models.py        the PyTorch definitions (the weights come from its seeds)
#   torch/models.txt              `name base` per model, for torch_bench.py
#   MANIFEST.txt                  what was built, from which revision, for which architecture
# and fails when OUT exceeds 64 MiB (the GPU machine's transfer limit).
# --build DIR: the CMake build folder (default $KORCH_BUILD, else <source>/build); it must hold
# korch-opt, korch-translate, korch-run and onnx-conformance (ninja korch-opt korch-translate
# korch-run onnx-conformance).  --list FILE: the ONNX node tests to compile (one directory name a
# line; passed to onnx-conformance --list; default: its own, ../shared/conformance/...).  A model
# that fails to compile is reported and left out; the exit status is then 1, as it is when a
# conformance test fails unexpectedly.
# Exit status: 0 all built, 1 something failed (OUT still usable for what was built), 2 usage.
set -eu

usage() {
  sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

src=$(cd "$(dirname "$0")/../.." && pwd)
out=
build=${KORCH_BUILD:-$src/build}
arch=sm_90
models=${KORCH_SHARED_MODELS:-$src/../shared/models}
conformance=yes
conf_list=
static_run=yes
while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --build=*) build=${1#--build=}; shift ;;
    --gpu-arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
    --gpu-arch=*) arch=${1#--gpu-arch=}; shift ;;
    --models) [ $# -ge 2 ] || usage; models=$2; shift 2 ;;
    --models=*) models=${1#--models=}; shift ;;
    --list) [ $# -ge 2 ] || usage; conf_list=$2; shift 2 ;;
    --list=*) conf_list=${1#--list=}; shift ;;
    --no-conformance) conformance=no; shift ;;
    --dynamic-run) static_run=no; shift ;;
    -h|--help) usage ;;
    -*) echo "build-artifacts.sh: unknown option '$1'" >&2; usage ;;
    *) [ -z "$out" ] || usage; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage
if [ -n "$conf_list" ] && [ ! -f "$conf_list" ]; then
  echo "build-artifacts.sh: --list: no file '$conf_list'" >&2; exit 2
fi
case $arch in
  sm_80|sm_86|sm_89|sm_90) ;;
  *) echo "build-artifacts.sh: --gpu-arch must be sm_80, sm_86, sm_89 or sm_90, not '$arch'" >&2; exit 2 ;;
esac

# The tools, where CMake puts them (runtime/ or tools/ for korch-run).
opt=$build/tools/korch-opt
translate=$build/tools/korch-translate/korch-translate
conf=$build/test/onnx/onnx-conformance
run=
for c in "$build/runtime/korch-run" "$build/tools/korch-run/korch-run" "$build/tools/korch-run"; do
  if [ -f "$c" ] && [ -x "$c" ]; then run=$c; break; fi
done
missing=
for t in "$opt" "$translate" "$run"; do
  if [ -z "$t" ] || [ ! -x "$t" ]; then missing="$missing ${t:-korch-run}"; fi
done
if [ "$conformance" = yes ] && [ ! -x "$conf" ]; then missing="$missing $conf"; fi
if [ -n "$missing" ]; then
  echo "build-artifacts.sh: not built in $build:$missing" >&2
  echo "  build them: ninja -C $build korch-opt korch-translate korch-run onnx-conformance" >&2
  exit 1
fi
if [ ! -d "$models" ]; then
  echo "build-artifacts.sh: the shared models folder $models is absent (--models DIR)" >&2
  exit 1
fi

status=0
# One time stamp helper (POSIX sh has no $SECONDS guarantee).
now() { date +%s; }
t_all=$(now)

rm -rf "$out"
mkdir -p "$out/bin" "$out/models" "$out/torch"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/korch-gpu-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- korch-run ---------------------------------------------------------------------------
if [ "$static_run" = yes ] && ldd "$run" 2>/dev/null | grep -q 'libxml2'; then
  sdir=$build/static-korch-run
  echo "== korch-run with libxml2 linked statically ($sdir)"
  if cmake -S "$src" -B "$sdir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKORCH_RUNTIME_STATIC_XML=ON \
       > "$tmp/static-run.log" 2>&1 &&
     ninja -C "$sdir" korch-run >> "$tmp/static-run.log" 2>&1; then
    run=$sdir/tools/korch-run/korch-run
  else
    tail -n 5 "$tmp/static-run.log"
    echo "build-artifacts.sh: the static korch-run did not build: bundling the dynamic one"
  fi
fi
cp "$run" "$out/bin/korch-run"
if ldd "$run" 2>/dev/null | grep -q 'libxml2'; then
  xml="dynamic ($(ldd "$run" | grep libxml2 | awk '{print $1}'); the GPU machine needs libxml2 installed, or reconfigure with -DKORCH_RUNTIME_STATIC_XML=ON)"
else
  xml="static (no libxml2 shared library needed)"
fi
echo "korch-run: $(stat -c %s "$run") bytes, libxml2 $xml"
needed=$(ldd "$run" 2>/dev/null | awk '/=>/ {print $1}' | tr '\n' ' ')
echo "korch-run needs: $needed"
cp "$src/bench/gpu/run.sh" "$src/bench/gpu/torch_bench.py" "$out/"
chmod +x "$out/run.sh"

# ---- conformance -------------------------------------------------------------------------
if [ "$conformance" = yes ]; then
  echo "== ONNX node tests -> $out/conformance ($arch)"
  t0=$(now)
  rc=0
  # Race checks off: ctest onnx.conformance.scheduled runs them; here the plan is what is new.
  "$conf" --level=artifact --artifact-dir "$out/conformance" --gpu-arch "$arch" --no-simt-checks \
    ${conf_list:+--list "$conf_list"} > "$tmp/conformance.log" 2>&1 || rc=$?
  tail -n 3 "$tmp/conformance.log"
  grep '^UNEXPECTED\|^SKIP' "$tmp/conformance.log" || true
  if [ "$rc" != 0 ]; then
    echo "build-artifacts.sh: onnx-conformance exited with $rc (log above); the passing tests are kept"
    status=1
  fi
  list=$out/conformance/check-list.txt
  if [ -f "$list" ]; then
    # (names relative to conformance/, as korch-run --check-list reads them: OUT can move)
    echo "conformance: $(wc -l < "$list") artifacts in $(( $(now) - t0 )) s"
  else
    echo "build-artifacts.sh: no conformance check list was written"
    : > "$out/conformance/check-list.txt" 2>/dev/null || true
    status=1
  fi
fi

# ---- shared models -----------------------------------------------------------------------
pipeline="op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate,schedule,lower-task-mappings,plan-buffers"
: > "$out/models/check-list.txt"
: > "$out/torch/models.txt"
for onnx in "$models"/*.onnx; do
  [ -f "$onnx" ] || continue
  name=$(basename "$onnx" .onnx)
  base=${name%.folded}
  echo "== model $name"
  t0=$(now)
  dir=$out/models/$name
  if ! "$translate" --import-onnx "$onnx" -o "$tmp/$name.kir" > "$tmp/$name.log" 2>&1 ||
     ! "$opt" "$tmp/$name.kir" --pass-pipeline="builtin.module($pipeline)" -o "$tmp/$name.planned.kir" \
       >> "$tmp/$name.log" 2>&1 ||
     ! "$translate" "$tmp/$name.planned.kir" --emit-artifact -o "$dir" --gpu-arch="$arch" >> "$tmp/$name.log" 2>&1; then
    echo "FAIL model $name: compilation failed:"
    head -n 5 "$tmp/$name.log" | sed 's/^/  /'
    rm -rf "$dir"
    status=1
    continue
  fi
  k=0
  while [ -f "$models/$base.input_$k.npy" ]; do
    cp "$models/$base.input_$k.npy" "$dir/input_$k.npy"
    k=$((k + 1))
  done
  k=0
  while [ -f "$models/$base.output_$k.npy" ]; do
    cp "$models/$base.output_$k.npy" "$dir/output_$k.npy"
    k=$((k + 1))
  done
  arena=$(grep -o 'arena bytes="[0-9]*"' "$dir/model.plan.xml" | grep -o '[0-9][0-9]*' || echo '?')
  echo "$name: $(( $(now) - t0 )) s, $(grep -c '<launch ' "$dir/model.plan.xml") launches, arena $arena bytes, weights $(stat -c %s "$dir/model.weights") bytes, PTX $(stat -c %s "$dir/model.ptx") bytes"
  echo "$name" >> "$out/models/check-list.txt"
  echo "$name $base" >> "$out/torch/models.txt"
done
cp "$models/export_models.py" "$out/torch/" 2>/dev/null || echo "note: no export_models.py in $models: no PyTorch timings"

# ---- manifest and size -------------------------------------------------------------------
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$src" status --porcelain 2>/dev/null | head -n 1)
{
  echo "korch GPU check bundle (bench/gpu/build-artifacts.sh)"
  echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n), korch $rev${dirty:+ (with uncommitted changes)}"
  echo "gpu-arch: $arch"
  echo "korch-run: libxml2 $xml"
  echo "korch-run needs: $needed"
  if [ -f "$out/conformance/check-list.txt" ]; then
    echo "conformance artifacts: $(wc -l < "$out/conformance/check-list.txt")"
  else
    echo "conformance artifacts: none (--no-conformance)"
  fi
  echo "models: $(tr '\n' ' ' < "$out/models/check-list.txt")"
} > "$out/MANIFEST.txt"
bytes=$(du -sb "$out" | awk '{print $1}')
limit=67108864
echo "OUT $out: $bytes bytes ($(( bytes / 1048576 )) MiB; limit 64 MiB), built in $(( $(now) - t_all )) s"
echo "  conformance $( (du -sb "$out/conformance" 2>/dev/null || echo 0) | awk '{print $1}') bytes, models $(du -sb "$out/models" | awk '{print $1}') bytes, korch-run $(stat -c %s "$out/bin/korch-run") bytes"
if [ "$bytes" -gt "$limit" ]; then
  echo "build-artifacts.sh: $out is over 64 MiB: drop --no-conformance or some models" >&2
  exit 1
fi
echo "next: copy $out to the GPU machine and run: sh OUT/run.sh"
exit "$status"
