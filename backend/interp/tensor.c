/* backend/interp/tensor.c - dense tensors of the reference interpreter: allocation, views of
 * attributes, and element access converting between element types. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/interp.h"

static const int64_t kr_tensor_empty_storage = 0;

kr_status kr_tensor_alloc(kr_tensor *t, kr_type type) {
  memset(t, 0, sizeof *t);
  if (!type || type->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(type)) return KR_FAILURE;
  int64_t n = kr_type_num_elements(type);
  size_t eb = kr_type_storage_bytes(type->u.shaped.elem);
  if (n < 0 || eb == 0 || (uint64_t)n > SIZE_MAX / eb) return KR_FAILURE;
  t->type = type;
  t->numel = n;
  t->nbytes = (size_t)n * eb;
  t->data = calloc(t->nbytes ? t->nbytes : 1, 1);
  if (!t->data) return KR_FAILURE;
  t->owned = true;
  return KR_SUCCESS;
}

void kr_tensor_free(kr_tensor *t) {
  if (t->owned) free(t->data);
  memset(t, 0, sizeof *t);
}

kr_status kr_tensor_from_attr(kr_tensor *t, kr_attr value) {
  memset(t, 0, sizeof *t);
  if (!value || !value->type || value->type->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(value->type))
    return KR_FAILURE;
  int64_t n = kr_type_num_elements(value->type);
  size_t eb = kr_type_storage_bytes(value->type->u.shaped.elem);
  if (value->kind == KR_ATTR_DENSE) {
    if (value->u.dense.splat && n != 1) {
      if (kr_tensor_alloc(t, value->type)) return KR_FAILURE;
      for (int64_t i = 0; i < n; i++) memcpy((char *)t->data + (size_t)i * eb, value->u.dense.data, eb);
      return KR_SUCCESS;
    }
    if (value->u.dense.size != (size_t)n * eb) return KR_FAILURE;
    t->data = (void *)value->u.dense.data;
    /* A zero-size tensor still gets a valid pointer: kernels may memcpy 0 bytes from it. */
    if (!t->data) t->data = (void *)&kr_tensor_empty_storage;
  } else if (value->kind == KR_ATTR_RESOURCE) {
    if (!value->u.resource || value->u.resource->size != (size_t)n * eb) return KR_FAILURE;
    t->data = (void *)value->u.resource->data;
  } else {
    return KR_FAILURE;
  }
  t->type = value->type;
  t->numel = n;
  t->nbytes = (size_t)n * eb;
  t->owned = false;
  return KR_SUCCESS;
}

kr_attr kr_tensor_to_attr(kr_context *ctx, const kr_tensor *t) {
  static const char zero = 0;
  return kr_attr_dense(ctx, t->type, t->nbytes ? t->data : &zero, t->nbytes);
}

bool kr_type_is_unsigned_int(kr_type e) { return e->kind == KR_TYPE_INTEGER && e->u.integer.sign == KR_UNSIGNED; }

void kr_dims_strides(const int64_t *dims, unsigned rank, int64_t *strides) {
  int64_t s = 1;
  for (unsigned i = rank; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
}

/* Raw little-endian load of an integer element, sign- or zero-extended. */
static int64_t load_int(const void *p, unsigned width, bool is_unsigned) {
  switch (width) {
  case 1: return *(const uint8_t *)p != 0;
  case 8: return is_unsigned ? (int64_t)*(const uint8_t *)p : (int64_t)*(const int8_t *)p;
  case 16: return is_unsigned ? (int64_t)*(const uint16_t *)p : (int64_t)*(const int16_t *)p;
  case 32: return is_unsigned ? (int64_t)*(const uint32_t *)p : (int64_t)*(const int32_t *)p;
  default: return *(const int64_t *)p;
  }
}

static void store_int(void *p, unsigned width, uint64_t v) {
  switch (width) {
  case 1: *(uint8_t *)p = v != 0; break;
  case 8: *(uint8_t *)p = (uint8_t)v; break;
  case 16: *(uint16_t *)p = (uint16_t)v; break;
  case 32: *(uint32_t *)p = (uint32_t)v; break;
  default: *(uint64_t *)p = v; break;
  }
}

static unsigned int_width(kr_type e) { return e->kind == KR_TYPE_INDEX ? 64 : e->u.integer.width; }

double kr_tensor_get_f64(const kr_tensor *t, int64_t i) {
  kr_type e = kr_tensor_elem(t);
  size_t eb = kr_type_storage_bytes(e);
  const char *p = (const char *)t->data + (size_t)i * eb;
  if (e->kind == KR_TYPE_FLOAT) {
    switch (e->u.fkind) {
    case KR_F16: return kr_f16_to_f32(*(const uint16_t *)p);
    case KR_BF16: return kr_bf16_to_f32(*(const uint16_t *)p);
    case KR_F32: return *(const float *)p;
    case KR_F64: return *(const double *)p;
    }
  }
  if (kr_type_is_unsigned_int(e)) return (double)(uint64_t)load_int(p, int_width(e), true);
  return (double)load_int(p, int_width(e), false);
}

int64_t kr_tensor_get_i64(const kr_tensor *t, int64_t i) {
  kr_type e = kr_tensor_elem(t);
  if (e->kind == KR_TYPE_FLOAT) {
    double d = kr_tensor_get_f64(t, i);
    if (isnan(d)) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
  }
  const char *p = (const char *)t->data + (size_t)i * kr_type_storage_bytes(e);
  return load_int(p, int_width(e), kr_type_is_unsigned_int(e));
}

uint64_t kr_tensor_get_u64(const kr_tensor *t, int64_t i) { return (uint64_t)kr_tensor_get_i64(t, i); }

void kr_tensor_set_f64(kr_tensor *t, int64_t i, double v) {
  kr_type e = kr_tensor_elem(t);
  size_t eb = kr_type_storage_bytes(e);
  char *p = (char *)t->data + (size_t)i * eb;
  if (e->kind == KR_TYPE_FLOAT) {
    switch (e->u.fkind) {
    case KR_F16: *(uint16_t *)p = kr_f64_to_f16(v); return;
    case KR_BF16: *(uint16_t *)p = kr_f64_to_bf16(v); return;
    case KR_F32: *(float *)p = (float)v; return;
    case KR_F64: *(double *)p = v; return;
    }
  }
  unsigned w = int_width(e);
  if (w == 1) {
    *(uint8_t *)p = v != 0;
    return;
  }
  if (isnan(v)) v = 0;
  if (kr_type_is_unsigned_int(e)) {
    double max = w == 64 ? 18446744073709551615.0 : (double)((UINT64_C(1) << w) - 1);
    uint64_t u = v <= 0 ? 0 : v >= max ? (w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1) : (uint64_t)v;
    store_int(p, w, u);
  } else {
    /* [-2^(w-1), 2^(w-1) - 1]; the minimum is -max - 1 so that w = 64 never negates INT64_MIN. */
    double lim = ldexp(1.0, (int)w - 1);
    int64_t max = (int64_t)((UINT64_C(1) << (w - 1)) - 1);
    int64_t s = v >= lim ? max : v < -lim ? -max - 1 : (int64_t)v;
    store_int(p, w, (uint64_t)s);
  }
}

void kr_tensor_set_i64(kr_tensor *t, int64_t i, int64_t v) {
  kr_type e = kr_tensor_elem(t);
  if (e->kind == KR_TYPE_FLOAT) {
    kr_tensor_set_f64(t, i, (double)v);
    return;
  }
  store_int((char *)t->data + (size_t)i * kr_type_storage_bytes(e), int_width(e), (uint64_t)v);
}

void kr_tensor_set_u64(kr_tensor *t, int64_t i, uint64_t v) {
  kr_type e = kr_tensor_elem(t);
  if (e->kind == KR_TYPE_FLOAT) {
    kr_tensor_set_f64(t, i, (double)v);
    return;
  }
  store_int((char *)t->data + (size_t)i * kr_type_storage_bytes(e), int_width(e), v);
}
