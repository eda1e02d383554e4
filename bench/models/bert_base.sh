# bench/models/bert_base.sh - sourced by bench/compile.sh and bench/compile_bert_base.sh: the
# BERT-base-sized encoder (hidden 768, 12 heads, FFN 3072, sequence 128, 2 layers) that
# make_bert_base.py writes, made again only when missing, older than its generators, or made with
# other GEN_ARGS (extra make_bert_base.py arguments; the model is then named bert_gen).
#
# make_bert_base ROOT BUILD: sets $bert_base_onnx to BUILD/bench/models/<name>.onnx.
make_bert_base() {
  local root=$1 gen=$1/bench/models/make_bert_base.py gen_dir=$2/bench/models name=bert_base_2l
  [[ -n ${GEN_ARGS:-} ]] && name=bert_gen
  local onnx=$gen_dir/$name.onnx stamp=$gen_dir/$name.args
  # shellcheck disable=SC2086  # GEN_ARGS is a list of arguments
  if [[ ! -f $onnx || $gen -nt $onnx || $root/test/Frontend/onnx/Inputs/onnx_gen.py -nt $onnx ||
        "$(cat "$stamp" 2>/dev/null)" != "${GEN_ARGS:-}" ]]; then
    echo "generating $onnx ..."
    python3 "$gen" ${GEN_ARGS:-} --name "$name" "$gen_dir"
    printf '%s' "${GEN_ARGS:-}" > "$stamp"
  fi
  bert_base_onnx=$onnx
}
