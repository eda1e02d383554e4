/* backend/interp/elementwise.h - private to kernels_unary.c / kernels_binary.c: how a kernel
 * reads an element type.  f32 and f64 get typed loops; f16/bf16 and the integers go through
 * kr_tensor_get_* / kr_tensor_set_* (computed in double, int64 or uint64 and converted on the
 * store, which rounds to nearest even or wraps modulo 2^width). */
#ifndef KORCH_BACKEND_INTERP_ELEMENTWISE_H
#define KORCH_BACKEND_INTERP_ELEMENTWISE_H

#include "korch/interp.h"

typedef enum kr_elem_kind {
  KR_EK_F32,
  KR_EK_F64,
  KR_EK_HALF, /* f16, bf16 */
  KR_EK_SINT, /* i8..i64 (and any other signed or signless integer but i1) */
  KR_EK_UINT, /* ui8..ui64 */
  KR_EK_BOOL, /* i1 */
} kr_elem_kind;

static inline kr_elem_kind kr_elem_kind_of(kr_type e) {
  if (e->kind == KR_TYPE_FLOAT) return e->u.fkind == KR_F32 ? KR_EK_F32 : e->u.fkind == KR_F64 ? KR_EK_F64 : KR_EK_HALF;
  if (e->kind == KR_TYPE_INTEGER && e->u.integer.width == 1) return KR_EK_BOOL;
  return kr_type_is_unsigned_int(e) ? KR_EK_UINT : KR_EK_SINT;
}

static inline bool kr_elem_kind_is_float(kr_elem_kind k) { return k <= KR_EK_HALF; }

#endif
