/* dialects/kernel/buffer_type.c - the !kernel.buffer type (korch/kernel.h): construction and
 * decoding.  A buffer type is a dialect type with mnemonic "buffer" and four parameters:
 * the space (a string), the dims and the strides (array<i64>) and the element type (a type
 * attribute), so buffer types unique like every other type.  Its custom assembly is in
 * dialects/kernel/simt_asm.c. */
#include <string.h>

#include "korch/dialect.h"
#include "korch/kernel.h"

static const char *const space_names[] = {"global", "shared", "local"};

const char *kr_kernel_space_name(kr_kernel_space s) {
  return (unsigned)s < sizeof space_names / sizeof *space_names ? space_names[s] : "?";
}

static bool elem_ok(kr_type elem) {
  return elem && (elem->kind == KR_TYPE_INTEGER || elem->kind == KR_TYPE_FLOAT);
}

kr_type kr_kernel_buffer_type(kr_context *ctx, kr_kernel_space space, unsigned rank, const int64_t *dims,
                              const int64_t *strides, kr_type elem) {
  const kr_dialect *d = kr_context_lookup_dialect(ctx, "kernel", 6);
  if (!d || (unsigned)space > KR_KERNEL_SPACE_LOCAL || rank > KR_KERNEL_MAX_RANK || !elem_ok(elem)) return NULL;
  int64_t st[KR_KERNEL_MAX_RANK], span = 1;
  bool empty = false;
  for (unsigned i = rank; i-- > 0;) {
    if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40)) return NULL;
    empty |= dims[i] == 0;
    /* Row-major strides as if every dim were >= 1, so an empty buffer still has a valid layout. */
    st[i] = strides ? strides[i] : (i + 1 < rank ? st[i + 1] * (dims[i + 1] ? dims[i + 1] : 1) : 1);
    if (st[i] < 0 || st[i] > ((int64_t)1 << 40)) return NULL;
    if (dims[i] && st[i] && (dims[i] - 1) > (((int64_t)1 << 62) - span) / st[i]) return NULL;
    if (dims[i]) span += (dims[i] - 1) * st[i];
  }
  if (empty) span = 0;
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  const char *name = space_names[space];
  kr_attr params[4] = {
    kr_attr_string(ctx, name, strlen(name)),
    kr_attr_dense_array(ctx, i64, dims, rank),
    kr_attr_dense_array(ctx, i64, st, rank),
    kr_attr_type(ctx, elem),
  };
  return kr_type_dialect(ctx, d, "buffer", params, 4);
}

bool kr_kernel_buffer_info(kr_type t, kr_kernel_buffer *out) {
  if (!t || t->kind != KR_TYPE_DIALECT || t->u.dialect.num_params != 4 ||
      strcmp(t->u.dialect.dialect->def->name, "kernel") || strcmp(t->u.dialect.mnemonic, "buffer"))
    return false;
  const kr_attr *p = t->u.dialect.params;
  if (p[0]->kind != KR_ATTR_STRING || p[1]->kind != KR_ATTR_DENSE_ARRAY || p[2]->kind != KR_ATTR_DENSE_ARRAY ||
      p[3]->kind != KR_ATTR_TYPE || p[1]->u.dense_array.num != p[2]->u.dense_array.num ||
      p[1]->u.dense_array.num > KR_KERNEL_MAX_RANK)
    return false;
  memset(out, 0, sizeof *out);
  out->space = KR_KERNEL_SPACE_GLOBAL;
  for (unsigned s = 0; s < 3; s++)
    if (!strcmp(p[0]->u.string.str, space_names[s])) out->space = (kr_kernel_space)s;
  out->rank = p[1]->u.dense_array.num;
  if (out->rank) { /* a rank-0 array may have no data pointer */
    memcpy(out->dims, p[1]->u.dense_array.data, out->rank * sizeof(int64_t));
    memcpy(out->strides, p[2]->u.dense_array.data, out->rank * sizeof(int64_t));
  }
  out->elem = p[3]->type;
  out->span = 1;
  for (unsigned i = 0; i < out->rank; i++) {
    if (!out->dims[i]) {
      out->span = 0; /* an empty buffer: no element is addressable */
      break;
    }
    out->span += (out->dims[i] - 1) * out->strides[i];
  }
  return true;
}
