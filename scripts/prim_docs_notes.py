# scripts/prim_docs_notes.py - the hand-written parts of docs/Dialects/prim.md, read by
# scripts/gen-prim-docs.py: the design section, each primitive's element types, shape rule
# (as dialects/prim/shape_<class>.c implements it) and a syntax example.  The generated parts
# (operands, attributes, defaults, semantics, class) come from dialects/prim/ops.def.  Every
# example is run through korch-opt by test/Dialect/prim/docs-up-to-date.kir, so an example that
# stops verifying fails the tests; a row without an entry here fails the generator.
#
# Markdown.  d(x) is x's dims, r(x) its rank.

FLOAT = 'floats (`f16` `bf16` `f32` `f64`)'
NUMERIC = 'integers and floats (`i8`..`i64`, `ui8`..`ui64`, `f16` `bf16` `f32` `f64`; not `i1`)'
SIGNED = 'signed integers and floats (`i8`..`i64`, `f16` `bf16` `f32` `f64`)'
BOOL = '`i1`'
ANY = 'any (`i1`, integers, floats)'
INDEX = 'integers (`i8`..`i64`, `ui8`..`ui64`)'

# Element types of the operands, per primitive.
TYPES = {
    'neg': SIGNED, 'abs': NUMERIC, 'sign': NUMERIC, 'not': BOOL,
    'add': NUMERIC, 'sub': NUMERIC, 'mul': NUMERIC, 'div': NUMERIC, 'rem': NUMERIC, 'pow': NUMERIC,
    'max': NUMERIC, 'min': NUMERIC, 'and': BOOL, 'or': BOOL, 'xor': BOOL,
    'cmp': ANY, 'select': 'cond `i1`; on_true, on_false ' + ANY, 'cast': ANY + '; `to` likewise',
    'iota': '`elem`: ' + NUMERIC,
    'broadcast': ANY, 'transpose': ANY, 'reshape': ANY, 'slice': ANY, 'concat': ANY,
    'pad': ANY + '; value: x\'s', 'gather': 'data ' + ANY + '; indices ' + INDEX,
    'reduce_sum': NUMERIC, 'reduce_max': NUMERIC, 'reduce_min': NUMERIC, 'reduce_prod': NUMERIC,
    'arg_max': NUMERIC, 'arg_min': NUMERIC, 'cum_sum': NUMERIC, 'reduce_window': NUMERIC,
    'matmul': NUMERIC + ', one for both', 'conv': NUMERIC + ', one for both',
}
for _s in ('exp', 'log', 'sqrt', 'tanh', 'erf', 'sin', 'cos', 'floor', 'ceil', 'round'):
    TYPES[_s] = FLOAT

_UNARY = "y: x's type."
_BINARY = ("result: the operands' one type.  lhs and rhs must have the same shape and element type "
           "(no implicit broadcasting: `prim.broadcast` first; no mixed types: `prim.cast` first).")
_REDUCE = ("y: d(x) with each axis of `axes` set to 1 (`keepdims` = 1) or removed (`keepdims` = 0).  "
           "`axes` is not empty, strictly increasing and in [0, r(x)); `keepdims` is 0 or 1.")
_ARG = ("y: d(x) with `axis` set to 1 (`keepdims` = 1) or removed, element type `i64`.  `axis` in "
        "[0, r(x)) and not empty (an empty axis has no extreme); `keepdims`, `select_last_index` 0 or 1.")

SHAPE = {
    'cmp': ("result: the operands' shape, element type `i1`.  lhs and rhs have one type; "
            "`predicate` is one of `eq` `ne` `lt` `le` `gt` `ge`."),
    'select': ("result: on_true's type.  on_true and on_false have one type; cond is `i1` of their "
               "shape."),
    'cast': "y: d(x), element type `to` (an element type: not `index`, not a tensor type).",
    'iota': ("y: `tensor<shape x elem>`.  Every entry of `shape` >= 0, r <= 16, the element count "
             "fits in int64; `axis` in [0, r) (so `shape` is not empty)."),
    'broadcast': ("y: `shape`, x's element type.  r(x) <= len(shape); aligned at the right, each "
                  "dim of x equals the target dim or is 1; entries >= 0; the element count fits in "
                  "int64."),
    'transpose': ("y: d(x)[perm[0]], ..., d(x)[perm[r-1]].  `perm` has r(x) entries and is a "
                  "permutation of [0, r(x))."),
    'reshape': ("y: `shape`, x's element type.  Entries >= 0 (no -1 or 0-copying: fission resolves "
                "ONNX's), product equal to x's element count."),
    'slice': ("y: count_d = ceil((end_d - start_d) / step_d) (0 when negative) per axis.  "
              "`starts`, `ends`, `steps` have r(x) entries; step != 0; step > 0: 0 <= start <= end <= "
              "dim; step < 0: -1 <= end <= start < dim."),
    'concat': ("y: inputs[0]'s dims with `axis` the sum of the inputs' (fits in int64).  At least "
               "one input; all of one rank and element type, equal outside `axis`; `axis` in "
               "[0, r)."),
    'pad': ("y: d_i + low_i + high_i + max(d_i - 1, 0) * interior_i per axis, >= 0 and within "
            "int64.  `pads` has 2 r(x) entries; `interior` (absent: zeros) r(x) entries >= 0, "
            "non-zero only with `mode` constant; `mode` constant, edge or reflect; `value` only in "
            "constant mode, rank 0 of x's element type; reflect needs each positive pad < d_i, edge "
            "a non-empty axis under a positive pad."),
    'gather': ("y: d(data)[:axis] ++ d(indices) ++ d(data)[axis+1:], data's element type, rank <= 16.  "
               "`axis` in [0, r(data)); indices of an integer type (values checked at run time)."),
    'reduce_sum': _REDUCE, 'reduce_max': _REDUCE, 'reduce_min': _REDUCE, 'reduce_prod': _REDUCE,
    'arg_max': _ARG, 'arg_min': _ARG,
    'cum_sum': "y: x's type.  `axis` in [0, r(x)); `exclusive`, `reverse` 0 or 1.",
    'reduce_window': ("y: (d_i - dilation_i*(window_i - 1) - 1) / stride_i + 1 per axis (>= 1: the "
                      "dilated window fits).  `kind` sum, max or min; `window`, `strides`, "
                      "`dilations` have r(x) entries, all >= 1."),
    'matmul': ("result: broadcast(batch(lhs), batch(rhs)) ++ [M, N] for lhs [..., M, K] and rhs "
               "[..., K, N]; both rank >= 2 (fission reshapes ONNX's vectors), K equal, batch dims "
               "broadcast (numpy, aligned at the right), one element type."),
    'conv': ("y: [N, M, O_1..O_n] for x [N, C, D_1..D_n] (n >= 1) and w [M, C/group, k_1..k_n]: "
             "O_i = (D_i + b_i + e_i - d_i*(k_i - 1) - 1) / s_i + 1 >= 1.  w has x's rank; `group` >= "
             "1 divides M and C = d(w)[1] * group; kernel dims >= 1; `strides`, `dilations` n entries "
             ">= 1; `pads` 2n entries >= 0 (cropping is `prim.pad`'s); one element type."),
}
for _s in ('neg', 'abs', 'exp', 'log', 'sqrt', 'tanh', 'erf', 'sin', 'cos', 'floor', 'ceil', 'round',
           'sign', 'not'):
    SHAPE[_s] = _UNARY
for _s in ('add', 'sub', 'mul', 'div', 'rem', 'pow', 'max', 'min', 'and', 'or', 'xor'):
    SHAPE[_s] = _BINARY

# (function arguments, the op) per primitive.
EXAMPLE = {
    'not': ('%x: tensor<4xi1>', '%y = "prim.not"(%x) : (tensor<4xi1>) -> tensor<4xi1>'),
    'neg': ('%x: tensor<4xi32>', '%y = "prim.neg"(%x) : (tensor<4xi32>) -> tensor<4xi32>'),
    'abs': ('%x: tensor<4xi32>', '%y = "prim.abs"(%x) : (tensor<4xi32>) -> tensor<4xi32>'),
    'sign': ('%x: tensor<2x3xf32>', '%y = "prim.sign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>'),
    'and': ('%a: tensor<4xi1>, %b: tensor<4xi1>',
            '%r = "prim.and"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>'),
    'or': ('%a: tensor<4xi1>, %b: tensor<4xi1>',
           '%r = "prim.or"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>'),
    'xor': ('%a: tensor<4xi1>, %b: tensor<4xi1>',
            '%r = "prim.xor"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>'),
    'cmp': ('%a: tensor<2x3xf32>, %b: tensor<2x3xf32>',
            '%r = "prim.cmp"(%a, %b) {predicate = "lt"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>'),
    'select': ('%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>',
               '%r = "prim.select"(%c, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>'),
    'cast': ('%x: tensor<2x3xf32>', '%y = "prim.cast"(%x) {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>'),
    'iota': ('', '%y = "prim.iota"() {axis = 1 : i64, elem = i64, shape = array<i64: 2, 3>} : () -> tensor<2x3xi64>'),
    'broadcast': ('%x: tensor<3x1xf32>',
                  '%y = "prim.broadcast"(%x) {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>'),
    'transpose': ('%x: tensor<2x3x4xf32>',
                  '%y = "prim.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>'),
    'reshape': ('%x: tensor<2x3x4xf32>',
                '%y = "prim.reshape"(%x) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>'),
    'slice': ('%x: tensor<10x5xf32>',
              '%y = "prim.slice"(%x) {ends = array<i64: 8, -1>, starts = array<i64: 1, 4>, steps = array<i64: 3, -2>} : (tensor<10x5xf32>) -> tensor<3x3xf32>'),
    'concat': ('%a: tensor<2x3xf32>, %b: tensor<2x5xf32>',
               '%y = "prim.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>'),
    'pad': ('%x: tensor<1x2x3x3xf32>',
            '%y = "prim.pad"(%x) {interior = array<i64: 0, 0, 1, 1>, pads = array<i64: 0, 0, 2, 2, 0, 0, 2, 2>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x9x9xf32>'),
    'gather': ('%d: tensor<5x4xf32>, %i: tensor<2x3xi64>',
               '%y = "prim.gather"(%d, %i) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>'),
    'reduce_sum': ('%x: tensor<2x3x4xf32>',
                   '%y = "prim.reduce_sum"(%x) {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>'),
    'reduce_max': ('%x: tensor<2x3x4xf32>',
                   '%y = "prim.reduce_max"(%x) {axes = array<i64: 0, 2>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3xf32>'),
    'arg_max': ('%x: tensor<2x3xf32>',
                '%y = "prim.arg_max"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>'),
    'arg_min': ('%x: tensor<2x3xf32>',
                '%y = "prim.arg_min"(%x) {axis = 0 : i64, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xi64>'),
    'cum_sum': ('%x: tensor<2x3xf32>',
                '%y = "prim.cum_sum"(%x) {axis = 1 : i64, exclusive = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>'),
    'reduce_window': ('%x: tensor<1x3x8x8xf32>',
                      '%y = "prim.reduce_window"(%x) {dilations = array<i64: 1, 1, 1, 1>, kind = "max", strides = array<i64: 1, 1, 2, 2>, window = array<i64: 1, 1, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>'),
    'matmul': ('%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>',
               '%r = "prim.matmul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>'),
    'conv': ('%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>',
             '%y = "prim.conv"(%x, %w) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>'),
}
for _s in ('exp', 'log', 'sqrt', 'tanh', 'erf', 'sin', 'cos', 'floor', 'ceil', 'round'):
    EXAMPLE[_s] = ('%x: tensor<2x3xf32>', '%%y = "prim.%s"(%%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>' % _s)
for _s in ('add', 'sub', 'mul', 'div', 'rem', 'pow', 'max', 'min'):
    EXAMPLE[_s] = ('%a: tensor<2x3xf32>, %b: tensor<2x3xf32>',
                   '%%r = "prim.%s"(%%a, %%b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' % _s)
for _s in ('reduce_min', 'reduce_prod'):
    EXAMPLE[_s] = ('%x: tensor<2x3xi32>',
                   '%%y = "prim.%s"(%%x) {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>' % _s)

# The page's hand-written sections (between the conventions and the index).
DESIGN = r'''
## Design

### A closed set

Orchestration (the next level, DESIGN.md) partitions the primitive graph and regroups primitives
into kernels, possibly recomputing some in several kernels.  To do that it must know, for every
primitive, which class it is in (a kernel holds at most one linear primitive; elementwise ones fuse
anywhere and are free to recompute; reductions and layout moves have index maps it can follow),
what it costs and how it lowers to SIMT code.  An opaque or catch-all primitive ("run this
operator's kernel here") would be a node orchestration can neither split, fuse nor cost: it would
put back the operator boundary that fission removes, and every later level (scheduling, the
kernel dialect, the interpreter) would need the same escape hatch.  So the set is closed: every
`op` op has a fission rule into these rows only, and an operator that cannot be expressed is a
design question for this page, answered by a new row with its reason, never by a fallback.  For
the same reason each primitive's semantics are explicit and checkable: axes are already
normalised, slice bounds already clamped, broadcasting explicit and element types equal, so a
rewrite never re-derives an ONNX convention.

### Beyond Korch's algebra

Korch's primitives (ASPLOS'24, §3) are elementwise operations, reductions, layout
transformations (broadcast, transpose, reshape, slicing, concatenation) and linear
transformations (matrix multiplication, convolution).  The ONNX operator set korch imports needs
a few more; each is here for the operators below and keeps a class orchestration understands:

- **`prim.cmp` and `prim.select`** (elementwise): comparisons with an `i1` result and a
  three-operand choice.  Where is a select; PRelu is `select(x < 0, slope * x, x)`; IsNaN is
  `x != x`; Equal/Less/Greater and the masks of Trilu, OneHot and Hardmax are comparisons of
  indices.  Without them these operators would need arithmetic tricks that break on NaN and
  infinities (a mask multiply turns `0 * inf` into NaN).
- **`prim.cast`** (elementwise): ONNX mixes element types (Cast, integer index arithmetic feeding
  floats, `i1` masks); primitives never convert implicitly, so conversion is a primitive.
- **`prim.iota`** (elementwise: the value is the index itself): index generation for Trilu
  (`iota_col - iota_row` compared with k), OneHot (iota compared with the index), Range
  (`start + iota * delta`), Hardmax (iota compared with the arg-max), and the index arithmetic of
  GatherElements and GatherND.  It has no operands, so it costs nothing to recompute and folds or
  fuses like any elementwise op.
- **`prim.reduce_window`** (reduction): pooling.  The alternative, gather + reduce (an im2col
  that gathers every window into a new axis and reduces it), materialises k times the input for
  a k-element window and turns one reduction into a layout primitive feeding a reduction, so the
  pool no longer reads like a reduction to orchestration and the gathered tensor costs memory
  traffic a fused kernel cannot remove.  A windowed reduction keeps MaxPool/AveragePool one
  reduction primitive (sum, max or min over a strided, dilated window); padding is a separate
  `prim.pad` with `-inf` (max) or 0 (sum), and AveragePool's division by the window count is an
  elementwise op with a constant.  The window must fit (no implicit padding), so the primitive
  has one shape rule and no auto_pad or ceil_mode conventions.
- **`prim.arg_max` / `prim.arg_min`** (reduction): ArgMax and ArgMin, and through them Hardmax
  (`cast(iota == arg_max)`) and MaxPool's optional Indices result (each window gathered into a
  new axis by a constant index table, then `arg_max` picks the slot; built only when Indices is
  used, so the pooled values themselves stay one `reduce_window`).  An index of the extreme is
  not expressible with value reductions without a second pass that compares and reduces indices
  (and breaks ties and NaN rules differently), so it is its own reduction.
- **`prim.cum_sum`** (reduction): CumSum is a scan: each output combines a prefix of the inputs
  along an axis.  Expressed with the rest of the algebra it would be a matmul with a triangular
  ones matrix (quadratic work, and a linear primitive where there is no compute-bound work) or
  log-depth shifted adds; a scan primitive keeps it linear work in the reduction class.
- **`prim.pad` with XLA-style interior padding** (layout): ConvTranspose becomes a `prim.conv`
  over a zero-interleaved input: `interior = stride - 1` zeros between neighbours, then edge pads
  of `dilation*(k - 1) - pad` (negative entries crop), convolved at stride 1 with the weight's
  in/out channels swapped (regrouped for groups) and every spatial axis flipped (`prim.slice`
  with step -1).  Why not a transposed-convolution primitive: there stays one linear primitive
  per kind for orchestration to schedule, tile and fuse around, and the weight's regrouping and
  flip are layout primitives of a constant that fold at compile time (they are no larger than the
  weight, see the fold policy).  The price is the multiplications by the interleaved zeros
  (s^n times the work of the scatter form for stride s in n dims) and a materialised padded
  input; a later level may recognise the pattern.  The same primitive covers ONNX Pad (constant,
  edge, reflect) and the padding of pooling.
- **`prim.gather`** (layout): Gather directly; GatherND and GatherElements by linearising their
  indices (iota, mul, add) and gathering from the flattened data; Resize, which is separable, as
  per-axis gathers with constant index tables (nearest) or 2/4 gathers weighted by constant
  coefficients (linear/cubic).

### The constant class

`prim.constant` holds data, not computation: a `dense` or `dense_resource` `value` typed like its
result (weights keep their resource, nothing is copied).  It is the fifth class, `constant`, and
never part of a kernel: orchestration treats constants as kernel inputs that live in memory.
Folding a primitive materialises a `prim.constant` (the dialect's `materialize_constant` hook).

### Folding and its size policy

Every primitive folds by running its CPU reference kernel (`backend/interp/prim_<class>.c`) on
constant operands, so the interpreter is the single definition of each primitive's numerics
(`dialects/prim/fold.c`).  Folding is bounded by a size policy: a primitive folds when its results
hold at most 4096 elements (`KR_PRIM_FOLD_SMALL`), or no more elements than its largest constant
operand (a transpose, slice, reshape or flip of a weight: the regrouped ConvTranspose weight folds),
or when every operand is a splat and the primitive is elementwise or layout (not `prim.iota`,
which has no operands): such results are mostly splats again, stored as one element.  In every
case the kernel runs, so the op dialect's limit of 2^22 result elements
(`KR_OP_FOLD_MAX_ELEMENTS`) still applies.  Linear and reduction primitives never fold above the
size bounds.  What does not fold is, typically, `prim.broadcast` of a small constant (a per-channel bias) to
an activation shape: it stays a broadcast that orchestration fuses into its consumer instead of
becoming a constant as large as the activation.
'''

# What an absent attribute without a default means.
ABSENT = {
    'pad.interior': 'no interior padding (all zeros)',
}
