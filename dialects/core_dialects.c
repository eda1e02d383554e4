/* dialects/core_dialects.c - registration of the dialects korch ships in its library. */
#include "dialects/core_dialects.h"
#include "korch/kernel.h"
#include "korch/op.h"
#include "korch/prim.h"

kr_status kr_register_core_dialects(kr_context *ctx) {
  static const kr_dialect_def *const defs[] = {&kr_builtin_dialect, &kr_func_dialect, &kr_arith_dialect};
  for (unsigned i = 0; i < sizeof defs / sizeof defs[0]; i++)
    if (kr_context_register_dialect(ctx, defs[i])) return KR_FAILURE;
  if (kr_register_op_dialect(ctx)) return KR_FAILURE;
  if (kr_register_prim_dialect(ctx)) return KR_FAILURE;
  return kr_register_kernel_dialect(ctx);
}
