/* backend/interp/f64_buffer.h - private to the reduce and norm kernels: whole tensors as double
 * (or int64) scratch buffers.  The kernels compute in double so f32 results match references
 * accumulated in higher precision; converting once per tensor keeps the element-type switch out
 * of the inner loops (f32 and f64 convert with plain loops). */
#ifndef KORCH_BACKEND_INTERP_F64_BUFFER_H
#define KORCH_BACKEND_INTERP_F64_BUFFER_H

#include <stdlib.h>

#include "korch/interp.h"

static inline bool kr_elem_is_fkind(kr_type e, kr_float_kind k) { return e->kind == KR_TYPE_FLOAT && e->u.fkind == k; }

/* A malloc'd copy (at least one element) of t's elements as doubles; the caller frees it.  NULL
 * when memory is exhausted. */
static inline double *kr_load_f64(const kr_tensor *t) {
  double *v = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *v);
  if (!v) return NULL;
  kr_type e = kr_tensor_elem(t);
  if (kr_elem_is_fkind(e, KR_F32)) {
    const float *x = t->data;
    for (int64_t i = 0; i < t->numel; i++) v[i] = x[i];
  } else if (kr_elem_is_fkind(e, KR_F64)) {
    const double *x = t->data;
    for (int64_t i = 0; i < t->numel; i++) v[i] = x[i];
  } else {
    for (int64_t i = 0; i < t->numel; i++) v[i] = kr_tensor_get_f64(t, i);
  }
  return v;
}

/* The same as int64 (integer tensors: exact). */
static inline int64_t *kr_load_i64(const kr_tensor *t) {
  int64_t *v = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *v);
  if (!v) return NULL;
  for (int64_t i = 0; i < t->numel; i++) v[i] = kr_tensor_get_i64(t, i);
  return v;
}

/* Stores t->numel doubles into t, converting to its element type (kr_tensor_set_f64 rules). */
static inline void kr_store_f64(kr_tensor *t, const double *v) {
  kr_type e = kr_tensor_elem(t);
  if (kr_elem_is_fkind(e, KR_F32)) {
    float *y = t->data;
    for (int64_t i = 0; i < t->numel; i++) y[i] = (float)v[i];
  } else if (kr_elem_is_fkind(e, KR_F64)) {
    double *y = t->data;
    for (int64_t i = 0; i < t->numel; i++) y[i] = v[i];
  } else {
    for (int64_t i = 0; i < t->numel; i++) kr_tensor_set_f64(t, i, v[i]);
  }
}

static inline void kr_store_i64(kr_tensor *t, const int64_t *v) {
  for (int64_t i = 0; i < t->numel; i++) kr_tensor_set_i64(t, i, v[i]);
}

#endif
