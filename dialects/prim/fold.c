/* dialects/prim/fold.c - constant folding of primitives through their CPU kernels.
 *
 * Folding is the op dialect's (kernel on constant operands, dialects/op/fold.c) under a size
 * policy: a primitive folds when its results hold at most KR_PRIM_FOLD_SMALL elements, or no more
 * than its largest constant operand (a transpose or slice of a weight), or when every result is
 * a splat (broadcast of a scalar: stored as one element).  So prim.broadcast of a per-channel
 * vector to an activation shape stays a broadcast that orchestration fuses, instead of a
 * materialised constant as large as the activation. */
#include <string.h>

#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"

#define KR_PRIM_FOLD_SMALL 4096

static bool is_splat(kr_attr a) { return a && a->kind == KR_ATTR_DENSE && a->u.dense.splat; }

kr_status kr_prim_fold(kr_op *op, const kr_attr *operands, kr_fold_result *results) {
  int64_t largest = 0, out = 0;
  bool all_splat_in = true;
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (!operands[i]) return KR_FAILURE;
    int64_t n = kr_type_num_elements(operands[i]->type);
    if (n > largest) largest = n;
    if (!is_splat(operands[i])) all_splat_in = false;
  }
  for (unsigned i = 0; i < op->num_results; i++) {
    int64_t n = kr_type_num_elements(kr_value_type(kr_op_result(op, i)));
    if (n < 0) return KR_FAILURE;
    out += n;
  }
  /* Elementwise and layout primitives of splats give splats: fold them at any size (the kernel
   * runs once per element, so cap the work at the op dialect's limit). */
  bool small = out <= KR_PRIM_FOLD_SMALL || out <= largest;
  bool splat = all_splat_in && op->num_operands > 0 && kr_prim_op_class(op) != KR_PRIM_LINEAR &&
               kr_prim_op_class(op) != KR_PRIM_REDUCTION && strcmp(op->name, "prim.iota") != 0;
  if (!small && !splat) return KR_FAILURE;
  if (kr_op_fold_generic(op, operands, results)) return KR_FAILURE;
  return KR_SUCCESS;
}
