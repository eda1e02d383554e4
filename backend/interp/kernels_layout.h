/* backend/interp/kernels_layout.h - private to the layout kernels (kernels_layout*.c): strided
 * copies of any element type (elements are moved as kr_type_storage_bytes-sized byte blocks, so
 * one kernel serves every dtype) and operand readers. */
#ifndef KORCH_BACKEND_INTERP_KERNELS_LAYOUT_H
#define KORCH_BACKEND_INTERP_KERNELS_LAYOUT_H

#include "dialects/op/shape_layout.h"

/* Bytes of one element of t. */
static inline size_t kr_layout_elem_bytes(const kr_tensor *t) { return kr_type_storage_bytes(kr_tensor_elem(t)); }

/* Writes the `rank`-D block of dims `odims` to `dst` (row-major, dense) reading element
 * (i_0, ..., i_{r-1}) from src + eb * sum(i_k * sstride[k]) (strides in elements, may be
 * negative or 0).  Axes of size 1 are dropped and axes contiguous in both source and
 * destination are merged, so inner runs with stride 1 become single memcpys. */
void kr_layout_strided_copy(const void *src, void *dst, unsigned rank, const int64_t *odims, const int64_t *sstride,
                            size_t eb);

/* Permutes a dense tensor of dims `dims`: output axis k is input axis perm[k]. */
void kr_layout_permute(const void *src, void *dst, const int64_t *dims, unsigned rank, const int64_t *perm, size_t eb);

/* The row loop of Pad-13 (kr_eval_pad) and prim.pad: fills y (x's rank >= 1, y->numel > 0)
 * row by row, output index j of axis d reading x's index map[d][j] on that axis, or the padding
 * element `fill` (x's element size) where it is -1.  On the last axis, output indices [lo, hi)
 * read one contiguous run of x starting at lo - low (low: that axis' low padding; lo == hi
 * when there is no such run).  Rows whose outer source is -1 are all `fill` (left untouched
 * when fill is all zero bytes: y is zero-initialised). */
void kr_layout_pad_rows(const kr_tensor *x, kr_tensor *y, int64_t *const *map, int64_t low, int64_t lo, int64_t hi,
                        const char *fill);

/* Gather-13's copy (kr_eval_gather, prim.gather): src viewed as [outer, dim] blocks of `chunk`
 * bytes; dst[o, j] = src[o, idx[j]] for o < outer, j < n (indices already in [0, dim)). */
void kr_layout_gather_blocks(void *dst, const void *src, int64_t outer, int64_t dim, const int64_t *idx, int64_t n,
                             size_t chunk);

/* Reads up to `cap` integer elements of t (NULL or 0 elements: returns 0) into out; -1 after
 * an error at op when t holds more. */
int64_t kr_layout_read_ints(kr_op *op, const kr_tensor *t, int64_t *out, int64_t cap, const char *what);

#endif
