# scripts/op_docs_notes.py - the hand-written parts of docs/Dialects/op.md, read by
# scripts/gen-op-docs.py: the shape rule of every op and what the importer does with the older
# versions of its ONNX operator.  Source: ONNX Operators.md and Changelog.md (opsets 1-17);
# the generated parts (operands, attributes, defaults, versions, types) come from
# dialects/op/ops.def and scripts/op_docs_data.py.
#
# Markdown, one string per ONNX operator.  `X`, `A`... are operand names; d(X) its dims, r(X) its
# rank; "broadcast(A, B)" is ONNX multidirectional broadcasting (docs/Broadcasting.md).

_UNARY = "Y: X's shape and element type."
_BINARY = "C: broadcast(A, B) dims, A's element type (A and B have the same element type)."
_COMPARE = "C: broadcast(A, B) dims, element type i1."
_VARIADIC = "broadcast of every input's dims, the inputs' element type."
_REDUCE = ("reduced: data's dims with each axis in `axes` (all axes when none; negative counts "
           "from the end) set to 1 (`keepdims` = 1) or removed (`keepdims` = 0).")
_ARG = ("reduced: data's dims with `axis` set to 1 (`keepdims` = 1) or removed; element type "
        "i64.")
_SOFTMAX = "output: input's shape and type; normalised along the single axis `axis`."
_POOL_SPATIAL = (
    "Y: [N, C, o_1, ...] with, per spatial axis i (kernel k, stride s, dilation d, pads b/e): "
    "`auto_pad` NOTSET: o = floor((x + b + e - ((k-1)*d + 1)) / s) + 1 (ceil instead of floor "
    "with `ceil_mode` = 1); VALID: "
    "o = ceil((x - ((k-1)*d + 1) + 1) / s); SAME_UPPER / SAME_LOWER: o = ceil(x / s), the extra "
    "padding at the end / start.")

SHAPE = {
    # unary
    'Abs': _UNARY, 'Neg': _UNARY, 'Exp': _UNARY, 'Log': _UNARY, 'Sqrt': _UNARY,
    'Reciprocal': _UNARY, 'Relu': _UNARY, 'Sigmoid': _UNARY, 'Tanh': _UNARY, 'Erf': _UNARY,
    'Floor': _UNARY, 'Ceil': _UNARY, 'Round': _UNARY, 'Sign': _UNARY, 'Sin': _UNARY, 'Cos': _UNARY,
    'Softplus': _UNARY, 'Softsign': _UNARY, 'HardSigmoid': _UNARY, 'HardSwish': _UNARY,
    'LeakyRelu': _UNARY, 'Elu': _UNARY, 'Selu': _UNARY, 'Celu': _UNARY, 'ThresholdedRelu': _UNARY,
    'Mish': _UNARY, 'Not': _UNARY,
    'Clip': "output: input's shape and type; `min` and `max`, when present, are scalars (rank 0, "
            "or one element) of input's element type.",
    'Identity': "output: input's type.",
    'IsNaN': "Y: X's shape, element type i1.",
    'IsInf': "Y: X's shape, element type i1.",
    'Cast': "output: input's shape, element type `to`.",
    'CastLike': "output: input's shape, target_type's element type.",
    'Dropout': "output: data's type; mask: data's shape, element type i1.  `ratio` is a float "
               "scalar, `training_mode` an i1 scalar.",
    # binary / n-ary
    'Add': _BINARY, 'Sub': _BINARY, 'Mul': _BINARY, 'Div': _BINARY, 'Mod': _BINARY,
    'Pow': "Z: broadcast(X, Y) dims, X's element type (Y may have another numeric type).",
    'PRelu': "Y: X's type; slope must broadcast unidirectionally to X.",
    'Max': "max: " + _VARIADIC, 'Min': "min: " + _VARIADIC, 'Sum': "sum: " + _VARIADIC,
    'Mean': "mean: " + _VARIADIC,
    'Equal': _COMPARE, 'Less': _COMPARE, 'Greater': _COMPARE, 'LessOrEqual': _COMPARE,
    'GreaterOrEqual': _COMPARE,
    'And': "C: broadcast(A, B) dims, i1 (A and B are i1).",
    'Or': "C: broadcast(A, B) dims, i1 (A and B are i1).",
    'Xor': "C: broadcast(A, B) dims, i1 (A and B are i1).",
    'Where': "output: broadcast(condition, X, Y) dims, X's element type; condition is i1.",
    'Expand': "output: broadcast(d(input), shape) (bidirectional: a 1 in `shape` keeps input's "
              "dim), input's element type.",
    # reductions
    'ReduceSum': _REDUCE + "  `axes` is an operand here (ReduceSum-13); empty or absent with "
                 "`noop_with_empty_axes` = 1: the identity.",
    'ReduceMean': _REDUCE, 'ReduceMax': _REDUCE, 'ReduceMin': _REDUCE, 'ReduceProd': _REDUCE,
    'ReduceSumSquare': _REDUCE, 'ReduceL1': _REDUCE, 'ReduceL2': _REDUCE, 'ReduceLogSum': _REDUCE,
    'ReduceLogSumExp': _REDUCE,
    'ArgMax': _ARG, 'ArgMin': _ARG,
    'CumSum': "y: x's type; `axis` is a scalar (i32 or i64) in [-r, r).",
    # normalisation
    'Softmax': _SOFTMAX, 'LogSoftmax': _SOFTMAX, 'Hardmax': _SOFTMAX,
    'LayerNormalization': "Y: X's type; Scale and B broadcast unidirectionally to d(X)[axis:]; "
                          "Mean and InvStdDev: d(X)[:axis] followed by r - axis ones, element "
                          "type f32 (`stash_type` = 1).",
    'BatchNormalization': "Y: X's type ([N, C, D1, ...]); scale, B, input_mean, input_var are "
                          "[C].  running_mean / running_var ([C]) only in training mode, which "
                          "the op level does not support.",
    'InstanceNormalization': "output: input's type ([N, C, D1, ...]); scale and B are [C].",
    'LpNormalization': "output: input's type; `p` is 1 or 2.",
    'MeanVarianceNormalization': "Y: X's type.",
    # linear
    'MatMul': "Y: numpy matmul: rank-1 A is [1, K] and rank-1 B is [K, 1] (that dim removed "
              "again); the batch dims d[:-2] broadcast; [.., M, K] x [.., K, N] -> [.., M, N].",
    'Gemm': "Y: [M, N] from A [M, K] (or [K, M] with `transA`) and B [K, N] (or [N, K] with "
            "`transB`); C broadcasts unidirectionally to [M, N].",
    'Conv': "Y: [N, M, o_1, ...] for X [N, C, x_1, ...] and W [M, C/group, k_1, ...] (B is [M]); "
            "o_i = floor((x_i + b_i + e_i - ((k_i-1)*d_i + 1)) / s_i) + 1 with `auto_pad` NOTSET, "
            "ceil(x_i / s_i) with SAME_UPPER/SAME_LOWER, ceil((x_i - (k_i-1)*d_i) / s_i) with "
            "VALID.  `kernel_shape` defaults to W's spatial dims; strides/dilations to 1; pads to 0.",
    'ConvTranspose': "Y: [N, M*group, o_1, ...] for X [N, C, x_1, ...] and W [C, M, k_1, ...]; "
                     "o_i = s_i*(x_i-1) + op_i + ((k_i-1)*d_i + 1) - b_i - e_i, or `output_shape` "
                     "when given (the pads then follow from it, split as `auto_pad` says).",
    'Einsum': "Output: the dims the `equation` names in its output part (or, without `->`, the "
              "letters used once, alphabetically); `...` broadcasts.",
    # pooling
    'MaxPool': _POOL_SPATIAL + "  Indices: Y's shape, element type i64 (flattened NCHW index, "
               "or column-major spatial part with `storage_order` = 1).",
    'AveragePool': _POOL_SPATIAL,
    'GlobalAveragePool': "Y: [N, C, 1, ..., 1] for X [N, C, D1, ...].",
    'GlobalMaxPool': "Y: [N, C, 1, ..., 1] for X [N, C, D1, ...].",
    # layout
    'Reshape': "reshaped: the dims of `shape`, where 0 copies data's dim at that position (unless "
               "`allowzero` = 1: then 0 is a size) and one -1 takes the remaining element count; "
               "the element count is data's.",
    'Flatten': "output: [prod(d[:axis]), prod(d[axis:])] (axis in [-r, r]; 0 gives [1, n]).",
    'Transpose': "transposed: d[perm[0]], d[perm[1]], ... (`perm` defaults to the reversed axes).",
    'Squeeze': "squeezed: data's dims without the listed `axes` (each must be 1), or without every "
               "dim of size 1 when `axes` is absent.",
    'Unsqueeze': "expanded: rank r + len(axes), a 1 at each listed axis (axes normalised against "
                 "the output rank, unique), data's dims in order elsewhere.",
    'Concat': "concat_result: the inputs' dims (equal except on `axis`), with their sizes on "
              "`axis` added.",
    'Split': "outputs: input's dims, `axis` cut into the sizes of `split`, or into as many equal "
             "parts as there are outputs (the last smaller when it does not divide).",
    'Slice': "output: per sliced axis, the count of start, start+step, ... before end after "
             "clamping (negative starts/ends count from the end; INT64_MAX/MIN mean the ends); "
             "axes default to 0..len(starts)-1, steps to 1 (never 0).",
    'Pad': "output: d_i + pads[i] + pads[i + r] (`pads` = [begin_1, ..., begin_r, end_1, ..., "
           "end_r]; negative values crop); constant_value is a scalar of data's type.",
    'Tile': "output: d_i * repeats[i] (`repeats` has r elements).",
    'Gather': "output: d[:axis] ++ d(indices) ++ d[axis+1:] (data's element type; indices i32/i64, "
              "negative ones count from the end).",
    'GatherElements': "output: indices' shape, data's element type (indices has data's rank).",
    'GatherND': "output: d(indices)[:-1] ++ d(data)[batch_dims + d(indices)[-1]:].",
    'DepthToSpace': "output: [N, C/b^2, H*b, W*b] (b = `blocksize`; `mode` DCR or CRD orders the "
                    "channel blocks).",
    'SpaceToDepth': "output: [N, C*b^2, H/b, W/b] (b = `blocksize`, dividing H and W).",
    'Resize': "Y: `sizes` when given, else floor(d_i * scales[i]); exactly one of `scales` / "
              "`sizes` is present (an empty tensor counts as absent); `roi` only matters with "
              "`coordinate_transformation_mode` tf_crop_and_resize.",
    'Shape': "shape: 1-D i64 of length end - start after clamping `start` / `end` (negative: "
             "+ r) to [0, r].",
    'Size': "size: i64 scalar (rank 0).",
    'ConstantOfShape': "output: the dims held by `input` (1-D i64), element type and value of the "
                       "one-element tensor `value` (default 0.0 : f32).",
    'Range': "output: 1-D of max(ceil((limit - start) / delta), 0) elements, start's type (start, "
             "limit and delta are scalars of one type).",
    'Trilu': "output: input's type (rank >= 2; `k` is an i64 scalar).",
    'OneHot': "output: indices' dims with `depth` inserted at `axis` (in [-r-1, r]); values' "
              "element type ([off, on]).",
}

# What the importer does with each operator's versions before its opset-17 form.  Versions that
# only widen the allowed types need nothing and are not mentioned.
_CONSUMED = "opset 1's legacy `consumed_inputs` attribute is ignored"
_LEGACY_BCAST = ("before 7, `broadcast` = 1 with `axis` (B's dims aligned with A's starting at "
                 "`axis`) becomes numpy broadcasting by reshaping B with trailing 1s; without "
                 "`broadcast` the shapes must be equal; " + _CONSUMED)
_REDUCE_UP = "opset 1 (no negative axes) needs nothing"
_SOFTMAX_UP = ("before 13 the input is coerced to 2-D [prod(d[:axis]), prod(d[axis:])] (axis "
               "default 1) and normalised over the whole second part: the importer emits Reshape -> "
               "op(axis = -1) -> Reshape when that differs from the single-axis opset-13 form")

UPGRADE = {
    'Abs': _CONSUMED, 'Neg': _CONSUMED, 'Exp': _CONSUMED, 'Log': _CONSUMED, 'Sqrt': _CONSUMED,
    'Reciprocal': _CONSUMED, 'Relu': _CONSUMED, 'Sigmoid': _CONSUMED, 'Tanh': _CONSUMED,
    'Floor': _CONSUMED, 'Ceil': _CONSUMED, 'HardSigmoid': _CONSUMED, 'LeakyRelu': _CONSUMED,
    'Elu': _CONSUMED, 'Selu': _CONSUMED, 'InstanceNormalization': _CONSUMED,
    'Mish': "Mish is ONNX opset 18; the op level accepts it as defined there",
    'Clip': "before 11 the `min` / `max` attributes (defaults -/+ FLT_MAX) become scalar constant "
            "operands of input's element type; " + _CONSUMED,
    'Cast': "`to` (a TensorProto code from Cast-6 on) becomes an element type; Cast-1's type name "
            "string (\"FLOAT\", ...) is not read",
    'Dropout': "before 12 the `ratio` attribute becomes the `ratio` operand and `is_test` (1, 6) is "
               "dropped (the op level is inference); the mask of opsets < 10 has data's type in "
               "ONNX and i1 here; " + _CONSUMED,
    'Add': _LEGACY_BCAST, 'Sub': _LEGACY_BCAST, 'Mul': _LEGACY_BCAST, 'Div': _LEGACY_BCAST,
    'Pow': "before 7, `broadcast` / `axis` as for Add",
    'PRelu': "opsets 1 and 6 are read with opset 7's rule (slope broadcasts unidirectionally to "
             "X), which covers one-element slopes; " + _CONSUMED,
    'Max': "before 8 the inputs must have equal shapes; " + _CONSUMED,
    'Min': "before 8 the inputs must have equal shapes; " + _CONSUMED,
    'Sum': "before 8 the inputs must have equal shapes; " + _CONSUMED,
    'Mean': "before 8 the inputs must have equal shapes; " + _CONSUMED,
    'Equal': "before 7, `broadcast` / `axis` as for Add",
    'Less': "before 7, `broadcast` / `axis` as for Add",
    'Greater': "before 7, `broadcast` / `axis` as for Add",
    'And': "before 7, `broadcast` / `axis` as for Add",
    'Or': "before 7, `broadcast` / `axis` as for Add",
    'Xor': "before 7, `broadcast` / `axis` as for Add",
    'ReduceSum': "before 13 the `axes` attribute becomes the `axes` operand; " + _REDUCE_UP,
    'ReduceMean': _REDUCE_UP, 'ReduceMax': _REDUCE_UP, 'ReduceMin': _REDUCE_UP,
    'ReduceProd': _REDUCE_UP, 'ReduceSumSquare': _REDUCE_UP, 'ReduceL1': _REDUCE_UP,
    'ReduceL2': _REDUCE_UP, 'ReduceLogSum': _REDUCE_UP, 'ReduceLogSumExp': _REDUCE_UP,
    'ArgMax': "`select_last_index` (12) defaults to 0", 'ArgMin': "`select_last_index` (12) defaults to 0",
    'Softmax': _SOFTMAX_UP, 'LogSoftmax': _SOFTMAX_UP, 'Hardmax': _SOFTMAX_UP,
    'BatchNormalization': "`spatial` (before 9) must be 1 (per-activation statistics are not "
                          "supported); `is_test` and `consumed_inputs` are dropped; the training "
                          "outputs of older versions (saved_mean, saved_var) must be unused",
    'Gemm': "before 7 the `broadcast` attribute is dropped (C broadcasts unidirectionally, as from "
            "7 on); before 11, C is required",
    'MaxPool': "attributes added later (`storage_order` 8, `ceil_mode` and `dilations` 10) take "
               "their defaults",
    'AveragePool': "attributes added later (`count_include_pad` 7, `ceil_mode` 10) take their "
                   "defaults",
    'Reshape': "Reshape-1's `shape` attribute becomes the `shape` operand; " + _CONSUMED,
    'Concat': "Concat-1 without `axis` concatenates along axis 1",
    'Squeeze': "before 13 the `axes` attribute becomes the `axes` operand",
    'Unsqueeze': "before 13 the `axes` attribute becomes the `axes` operand",
    'Split': "before 13 the `split` attribute becomes the `split` operand (Split-1's optional "
             "second input is the same operand)",
    'Slice': "Slice-1's `starts` / `ends` / `axes` attributes become operands (steps 1)",
    'Pad': "before 11 the `pads` (Pad-1: `paddings`) and `value` attributes become the `pads` and "
           "`constant_value` operands",
    'Tile': "Tile-1's `tiles` / `axis` inputs become `repeats` (1 on every other axis)",
    'GatherND': "`batch_dims` (12) defaults to 0",
    'DepthToSpace': "before 11 the mode is DCR (the default)",
    'Resize': "Resize-10 (X, scales) is Upsample: coordinate_transformation_mode asymmetric and, "
              "for nearest, nearest_mode floor; opset 11's required roi/scales may be empty "
              "tensors, read as absent",
    'Shape': "`start` / `end` (15) default to the whole shape",
    'OneHot': "OneHot-9 has no negative indices (the opset-11 rule is a superset)",
}

# Attributes without an ONNX default value: what their absence means (others: the shape rule).
_ALL_AXES = "every axis"
ABSENT = {
    'Shape.end': "the rank",
    'Dropout.seed': "random (irrelevant at the op level, which is inference)",
    'ConstantOfShape.value': "`dense<0.0> : tensor<1xf32>`",
    'Transpose.perm': "the reversed axes",
    'ReduceMean.axes': _ALL_AXES, 'ReduceMax.axes': _ALL_AXES, 'ReduceMin.axes': _ALL_AXES,
    'ReduceProd.axes': _ALL_AXES, 'ReduceSumSquare.axes': _ALL_AXES, 'ReduceL1.axes': _ALL_AXES,
    'ReduceL2.axes': _ALL_AXES, 'ReduceLogSum.axes': _ALL_AXES, 'ReduceLogSumExp.axes': _ALL_AXES,
}
