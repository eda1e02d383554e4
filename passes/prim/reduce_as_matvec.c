/* passes/prim/reduce_as_matvec.c - `prim-reduce-as-matvec`: a float prim.reduce_sum over a
 * contiguous run of trailing (or leading) axes becomes a matrix-vector product with a ones
 * vector (Korch, ASPLOS'24, §3.2: algebraic transformations of the primitive graph).
 *
 *   trailing: x [d0..da-1, da..dr-1], axes {a..r-1}, rows = d0*..*da-1, K = da*..*dr-1
 *             y = reshape(matmul(reshape(x, [rows, K]), ones[K, 1]), type(y))
 *   leading:  axes {0..a-1} (a < r), K = d0*..*da-1, cols = da*..*dr-1
 *             y = reshape(matmul(ones[1, K], reshape(x, [K, cols])), type(y))
 *
 * keepdims only changes the final reshape.  The ones constant is a splat (one stored element).
 * Only when K >= min-size (default 32): a short reduction gains nothing from the GEMM path.  The
 * sum is the same up to summation order and the accumulator (matmul accumulates floats in at
 * least f32, the reduce kernel in double).  Why: orchestration can then place the reduction on
 * the tensor-core / GEMM path and fuse what follows it as the epilogue of a linear primitive
 * instead of giving it a reduction kernel of its own (docs/Passes.md). */
#include <stddef.h>

#include "passes/pass_impl.h"
#include "passes/prim/prim_passes.h"

typedef struct reduce_as_matvec_options {
  int64_t min_size;
} reduce_as_matvec_options;

static const kr_pass_option reduce_as_matvec_options_table[] = {
  {"min-size", KR_OPT_INT, offsetof(reduce_as_matvec_options, min_size), "32",
   "Rewrite only when the reduced extent K (product of the reduced dims) is at least this"},
};

/* Rewrites one reduce_sum when it qualifies; returns whether it did. */
static bool rewrite_reduce(kr_rewriter *rw, kr_op *op, const void *options) {
  int64_t min_size = ((const reduce_as_matvec_options *)options)->min_size;
  if (op->num_operands != 1 || op->num_results != 1) return false;
  kr_value x = kr_op_operand(op, 0);
  kr_type xt = kr_value_type(x), yt = kr_value_type(kr_op_result(op, 0));
  if (!kr__pp_static_tensor(xt) || !kr__pp_static_tensor(yt) || kr_type_element(xt)->kind != KR_TYPE_FLOAT ||
      kr_type_element(yt) != kr_type_element(xt))
    return false;
  unsigned rank = xt->u.shaped.rank;
  const int64_t *dims = xt->u.shaped.dims, *axes;
  unsigned n = kr_op_attr_ints(op, "axes", &axes);
  if (n == 0 || n > rank) return false;
  for (unsigned i = 1; i < n; i++)
    if (axes[i] != axes[i - 1] + 1) return false;   /* not contiguous */
  bool trailing = axes[n - 1] == (int64_t)rank - 1, leading = axes[0] == 0;
  if (!trailing && !leading) return false;
  int64_t k = 1, other = 1;
  for (unsigned d = 0; d < rank; d++) {
    bool reduced = (int64_t)d >= axes[0] && (int64_t)d <= axes[n - 1];
    if (reduced) k *= dims[d];
    else other *= dims[d];
  }
  if (k < 1 || k < min_size) return false;

  kr_context *ctx = kr_op_context(op);
  kr_type elem = kr_type_element(xt);
  kr_attr loc = op->loc;
  kr_rewriter_set_insertion_point_before(rw, op);
  kr_value lhs, rhs;
  int64_t prod_dims[2];
  if (trailing) {   /* [rows, K] x [K, 1] */
    int64_t m_dims[2] = {other, k}, o_dims[2] = {k, 1};
    lhs = kr__pp_reshape(rw, x, kr_type_tensor(ctx, m_dims, 2, elem), loc);
    rhs = kr__pp_splat(rw, kr_type_tensor(ctx, o_dims, 2, elem), 1.0, loc);
    prod_dims[0] = other, prod_dims[1] = 1;
  } else {          /* [1, K] x [K, cols] */
    int64_t o_dims[2] = {1, k}, m_dims[2] = {k, other};
    lhs = kr__pp_splat(rw, kr_type_tensor(ctx, o_dims, 2, elem), 1.0, loc);
    rhs = kr__pp_reshape(rw, x, kr_type_tensor(ctx, m_dims, 2, elem), loc);
    prod_dims[0] = 1, prod_dims[1] = other;
  }
  if (!lhs || !rhs) return false;
  kr_value operands[2] = {lhs, rhs};
  kr_value prod = kr__pp_create(rw, "prim.matmul", operands, 2, NULL, 0, kr_type_tensor(ctx, prod_dims, 2, elem), loc);
  kr_value y = prod ? kr__pp_reshape(rw, prod, yt, loc) : NULL;
  if (!y) return false;
  kr_rewriter_replace_op(rw, op, &y);
  return true;
}

static kr_status reduce_as_matvec_run(kr_op *op, const void *options, kr_pass_run *run) {
  return kr__pp_rewrite_each(op, run, "prim.reduce_sum", rewrite_reduce, options);
}

const kr_pass_def kr_prim_reduce_as_matvec_pass = {
  .argument = "prim-reduce-as-matvec",
  .summary = "Rewrite float reduce_sum over trailing or leading axes as a matmul with a ones vector (Korch §3.2)",
  .options_size = sizeof(reduce_as_matvec_options),
  .options = reduce_as_matvec_options_table,
  .num_options = sizeof(reduce_as_matvec_options_table) / sizeof(reduce_as_matvec_options_table[0]),
  .run = reduce_as_matvec_run,
  .display_name = "PrimReduceAsMatvec",
};
