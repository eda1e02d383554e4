/* dialects/op/einsum.h - the parsed equation of ONNX Einsum-12, shared by its shape inference
 * (shape_linear.c) and its CPU kernel (backend/interp/kernels_linear.c).  Private. */
#ifndef KORCH_DIALECTS_OP_EINSUM_H
#define KORCH_DIALECTS_OP_EINSUM_H

#include "dialects/op/op_impl.h"

#define KR_EINSUM_MAX_OPERANDS 16
/* 52 letters (a-z, A-Z) plus one label per broadcast ellipsis axis. */
#define KR_EINSUM_MAX_LABELS (52 + KR_OP_MAX_RANK)

/* Labels are numbered: 0..25 'a'..'z', 26..51 'A'..'Z', 52 + e the e-th axis (from the left)
 * of the broadcast ellipsis, whose rank is the largest ellipsis rank of the operands (the
 * ellipsis axes right-align and broadcast as numpy does). */
typedef struct kr_einsum {
  unsigned num_operands;
  unsigned rank[KR_EINSUM_MAX_OPERANDS];
  unsigned label[KR_EINSUM_MAX_OPERANDS][KR_OP_MAX_RANK];   /* label of each operand axis */
  bool used[KR_EINSUM_MAX_LABELS];                         /* label occurs in some operand */
  int64_t dim[KR_EINSUM_MAX_LABELS];                       /* size of each used label */
  unsigned out_rank;
  unsigned out_label[KR_OP_MAX_RANK];
  int64_t out_dims[KR_OP_MAX_RANK];
} kr_einsum;

/* Parses op's `equation` against the operand types (`n` static tensors) as numpy.einsum does:
 * spaces ignored; terms separated by ',' (one per operand), an optional "->" output; "..."
 * stands for the operand's unlabelled leading axes.  Without "->" the output is the broadcast
 * ellipsis axes followed by the labels occurring exactly once, in ASCII order (upper case
 * first).  A repeated label within one term takes the diagonal.  Label sizes must agree
 * (a size of 1 broadcasts).  Reports malformed equations and size conflicts at the op. */
kr_status kr_einsum_plan(kr_op *op, const kr_type *types, unsigned n, kr_einsum *plan);

#endif
