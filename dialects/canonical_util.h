/* dialects/canonical_util.h - private to the canonicalization patterns of the op and prim
 * dialects (dialects/op/canonicalize.c, dialects/prim/canonicalize.c): the type tests, the
 * rewrite step and the exactness rules that both dialects' patterns apply alike.  Patterns are
 * speculative, so nothing here reports a diagnostic; a helper that cannot apply returns false
 * or KR_FAILURE and leaves the IR as it was. */
#ifndef KORCH_DIALECTS_CANONICAL_UTIL_H
#define KORCH_DIALECTS_CANONICAL_UTIL_H

#include "korch/op.h"
#include "korch/rewrite.h"

/* Whether t is a tensor type with a static shape of rank <= KR_OP_MAX_RANK (false for NULL). */
bool kr_canon_is_static_tensor(kr_type t);

/* Whether `op`'s single result has exactly operand 0's type, a static tensor: for the no-op ops
 * forwarded on this condition (reshape, broadcast, cast, slice, pad, ...), equal static shapes
 * mean the op moves no element. */
bool kr_canon_result_is_operand_type(kr_op *op);

/* Creates `name`(operands[0..n)) {attrs[0..na)} with `at`'s single result type, before `at` and
 * at its location, and replaces `at`'s result with the new op's.  KR_FAILURE (nothing changed)
 * when the op cannot be created. */
kr_status kr_canon_replace_with_new(kr_rewriter *rw, kr_op *at, const char *name, const kr_value *operands,
                                    unsigned n, const kr_named_attr *attrs, unsigned na);

/* The permutation of the transpose `op` (one operand, a static tensor; one result) into perm
 * (KR_OP_MAX_RANK entries): its `perm` attribute, checked to be a permutation of [0, rank), or,
 * when the attribute is absent and `reverse_by_default` (ONNX Transpose-13), the reversed axes.
 * Returns the rank, or -1 when op does not have that form or perm is malformed. */
int kr_canon_transpose_perm(kr_op *op, bool reverse_by_default, int64_t *perm);

/* Whether the transpose `op` (as kr_canon_transpose_perm reads it) permutes nothing: a no-op. */
bool kr_canon_transpose_is_identity(kr_op *op, bool reverse_by_default);

/* Whether the transpose `op` (as kr_canon_transpose_perm reads it, y.dims[i] = x.dims[perm[i]])
 * moves some axis but keeps the order of the axes longer than 1, so it moves no element and is
 * a reshape.  False for the identity permutation (a no-op, not a reshape) and a malformed op. */
bool kr_canon_transpose_is_reshape(kr_op *op, bool reverse_by_default);

/* Whether every value of element type `from` is exactly a value of element type `to`
 * (widening), so a cast through `to` loses nothing and a following cast sees the same value:
 * floats to f64, f16/bf16 to f32; i1 to any integer or float; other integers to a float whose
 * significand holds their magnitude, to an unsigned integer at least as wide (unsigned only),
 * or to a signed one at least as wide (strictly wider for an unsigned `from`). */
bool kr_canon_cast_is_exact(kr_type from, kr_type to);

#endif
