/* backend/interp/broadcast.h - iteration over the output of a multidirectionally broadcast
 * elementwise op (ONNX docs/Broadcasting.md: numpy rules, shapes aligned on the right, a dim of
 * size 1 stretches) with the offset of the matching element of every input.
 *
 * Private to the interpreter's kernels.  The output is dense row-major; it is visited row by row,
 * a row being the innermost (coalesced) dimension, so kernels run a tight inner loop:
 *
 *   kr_bcast b;
 *   if (kr_bcast_init(&b, out_dims, out_rank, in_dims, in_ranks, 2)) ...incompatible...
 *   for (int64_t r = 0; r < b.rows; r++, kr_bcast_next_row(&b))
 *     for (int64_t j = 0; j < b.inner; j++)
 *       o[r * b.inner + j] = A[b.off[0] + j * b.inner_stride[0]] + B[b.off[1] + j * b.inner_stride[1]];
 *
 * Offsets and strides are in elements (not bytes), so one iterator serves every element type. */
#ifndef KORCH_BACKEND_INTERP_BROADCAST_H
#define KORCH_BACKEND_INTERP_BROADCAST_H

#include "korch/interp.h"
#include "korch/op.h"

/* The most inputs one iterator follows (Where has 3; variadic ops fold pairwise). */
#define KR_BCAST_MAX_INPUTS 8

typedef struct kr_bcast {
  unsigned rank;                                        /* after coalescing, >= 1 */
  unsigned n;                                           /* inputs */
  int64_t dims[KR_OP_MAX_RANK];                         /* coalesced output dims */
  int64_t strides[KR_BCAST_MAX_INPUTS][KR_OP_MAX_RANK]; /* 0 along broadcast dims */
  int64_t inner;                                        /* dims[rank-1]: elements per row */
  int64_t inner_stride[KR_BCAST_MAX_INPUTS];            /* strides[k][rank-1] (0 or 1 in practice) */
  int64_t rows;                                         /* output elements / inner (0 if empty) */
  int64_t idx[KR_OP_MAX_RANK];                          /* current row's index (dims 0..rank-2) */
  int64_t off[KR_BCAST_MAX_INPUTS];                     /* offset of the current row's first element */
} kr_bcast;

/* Prepares iteration over an output of `out_rank` dims `out_dims` (rank <= KR_OP_MAX_RANK) fed
 * by `n` (<= KR_BCAST_MAX_INPUTS) inputs of shapes (in_dims[k], in_ranks[k]); the row cursor
 * starts at row 0.  Each input must broadcast to the output unidirectionally (rank <= out_rank,
 * every dim equal to the output's or 1): KR_FAILURE otherwise (no diagnostic: callers know the op). */
kr_status kr_bcast_init(kr_bcast *b, const int64_t *out_dims, unsigned out_rank, const int64_t *const *in_dims,
                        const unsigned *in_ranks, unsigned n);
/* The same with tensors: out's shape, ins' shapes. */
kr_status kr_bcast_init_tensors(kr_bcast *b, const kr_tensor *out, const kr_tensor *const *ins, unsigned n);
/* Advances the row cursor (off[], idx[]) to the next row. */
void kr_bcast_next_row(kr_bcast *b);
/* Random access: the offset in input k of the element feeding output element `out_index`
 * (row-major linear index).  Does not move the cursor. */
int64_t kr_bcast_offset(const kr_bcast *b, unsigned k, int64_t out_index);

/* Copies `in` broadcast to out's shape (ONNX Expand; element types must be equal: bytes are
 * copied).  KR_FAILURE (no diagnostic) when in does not broadcast to out. */
kr_status kr_bcast_copy(kr_tensor *out, const kr_tensor *in);

#endif
