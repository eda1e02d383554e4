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

/* Reads up to `cap` integer elements of t (NULL or 0 elements: returns 0) into out; -1 after
 * an error at op when t holds more. */
int64_t kr_layout_read_ints(kr_op *op, const kr_tensor *t, int64_t *out, int64_t cap, const char *what);

#endif
