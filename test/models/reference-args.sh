# test/models/reference-args.sh - sourced by run-model.sh and compile-model.sh: the korch-interp
# arguments that feed a model its PyTorch inputs and compare against its PyTorch outputs
# (../shared/models/MANIFEST.md: BASE.input_K.npy, BASE.output_K.npy, K = 0, 1, ...).
# reference_args MODELS_DIR BASE sets the array `args` to --input '#K=...' ... --expect '#K=...',
# or prints FAIL and exits 1 when there is no BASE.output_0.npy.
reference_args() {
  local models=$1 base=$2 k
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
}
