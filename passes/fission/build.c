/* passes/fission/build.c - the builder vocabulary of fission rules (fission.h): thin wrappers
 * over kr_prim_build that make broadcasting explicit, skip identity layout ops and carry the
 * error state, so a rule reads like the formula it implements. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/fission/fission.h"

/* ---------------------------------------------------------------------------------------------
 * Reporting. */

kr_value fx_fail(kr_fission *f, const char *fmt, ...) {
  if (f->failed) return NULL;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  kr_op_emit_error(f->op, "fission: %s", msg);
  f->failed = true;
  return NULL;
}

kr_status fx_status(kr_fission *f) { return f->failed ? KR_FAILURE : KR_SUCCESS; }

/* ---------------------------------------------------------------------------------------------
 * Types. */

int64_t fx_numel(kr_value v) { return kr_type_num_elements(kr_value_type(v)); }
bool fx_is_float(kr_type elem) { return elem && elem->kind == KR_TYPE_FLOAT; }
bool fx_is_bool(kr_type elem) { return elem && elem->kind == KR_TYPE_INTEGER && elem->u.integer.width == 1; }
kr_type fx_i64(kr_fission *f) { return kr_type_integer(f->ctx, 64, KR_SIGNLESS); }
kr_type fx_i1(kr_fission *f) { return kr_type_integer(f->ctx, 1, KR_SIGNLESS); }

kr_value fx_operand(kr_fission *f, unsigned i) {
  return kr_op_operand_present(f->op, i) ? kr_op_operand(f->op, i) : NULL;
}

static bool same_dims(kr_value v, const int64_t *dims, unsigned rank) {
  return fx_rank(v) == rank && (!rank || !memcmp(fx_dims(v), dims, rank * sizeof *dims));
}

/* ---------------------------------------------------------------------------------------------
 * Attributes. */

kr_attr fx_attr_i(kr_fission *f, int64_t v) { return kr_attr_integer(f->ctx, fx_i64(f), v); }
kr_attr fx_attr_ints(kr_fission *f, const int64_t *v, unsigned n) {
  static const int64_t none = 0;
  return kr_attr_dense_array(f->ctx, fx_i64(f), n ? v : &none, n);
}
kr_attr fx_attr_str(kr_fission *f, const char *s) { return kr_attr_string(f->ctx, s, strlen(s)); }
kr_attr fx_attr_type(kr_fission *f, kr_type t) { return kr_attr_type(f->ctx, t); }

kr_attr fx_dict(kr_fission *f, unsigned n, ...) {
  kr_named_attr e[16];
  if (n > 16) return NULL;
  va_list ap;
  va_start(ap, n);
  for (unsigned i = 0; i < n; i++) {
    const char *name = va_arg(ap, const char *);
    e[i].name = kr_ident_cstr(f->ctx, name);
    e[i].value = va_arg(ap, kr_attr);
  }
  va_end(ap);
  return kr_attr_dict(f->ctx, e, n);
}

/* ---------------------------------------------------------------------------------------------
 * Generic construction. */

kr_op *fx_prim_op(kr_fission *f, const char *name, const kr_value *operands, unsigned n, kr_attr attrs) {
  if (f->failed) return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!operands[i]) return fx_fail(f, "internal: missing operand #%u of %s", i, name), NULL;
  kr_op *p = kr_prim_build(&f->b, name, operands, n, attrs, f->loc);
  if (!p) {
    f->failed = true;   /* kr_prim_build reported the primitive's rule at the op's location */
    kr_op_emit_error(f->op, "fission: could not build '%s' (a bug in the fission rule)", name);
  }
  return p;
}

kr_value fx_prim(kr_fission *f, const char *name, const kr_value *operands, unsigned n, kr_attr attrs) {
  kr_op *p = fx_prim_op(f, name, operands, n, attrs);
  return p ? kr_op_result(p, 0) : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Constants. */

kr_value fx_constant(kr_fission *f, kr_attr value) {
  if (f->failed) return NULL;
  if (!value) return fx_fail(f, "internal: missing constant value");
  kr_op *c = kr_prim_materialize_constant(&f->b, value, value->type, f->loc);
  if (!c) return fx_fail(f, "internal: cannot build a prim.constant");
  return kr_op_result(c, 0);
}

static kr_value const_from(kr_fission *f, kr_type elem, const double *dv, const int64_t *iv, double splat,
                           const int64_t *dims, unsigned rank) {
  if (f->failed) return NULL;
  kr_type t = kr_type_tensor(f->ctx, dims, rank, elem);
  kr_tensor tt;
  if (kr_tensor_alloc(&tt, t)) return fx_fail(f, "cannot allocate a constant of %lld elements",
                                              (long long)kr_type_num_elements(t));
  for (int64_t i = 0; i < tt.numel; i++) {
    if (iv) kr_tensor_set_i64(&tt, i, iv[i]);
    else kr_tensor_set_f64(&tt, i, dv ? dv[i] : splat);
  }
  kr_attr a = kr_tensor_to_attr(f->ctx, &tt);
  kr_tensor_free(&tt);
  return fx_constant(f, a);
}

kr_value fx_scalar(kr_fission *f, kr_type elem, double v) { return const_from(f, elem, NULL, NULL, v, NULL, 0); }

kr_value fx_splat(kr_fission *f, kr_type elem, double v, const int64_t *dims, unsigned rank) {
  if (f->failed) return NULL;
  /* One element, stored as a splat: never materialise the full buffer. */
  kr_type one = kr_type_tensor(f->ctx, NULL, 0, elem);
  kr_tensor tt;
  if (kr_tensor_alloc(&tt, one)) return fx_fail(f, "cannot allocate a constant");
  kr_tensor_set_f64(&tt, 0, v);
  kr_type full = kr_type_tensor(f->ctx, dims, rank, elem);
  /* A zero-element tensor stores no bytes (kr_attr_dense takes one element or all of them). */
  kr_attr a = kr_attr_dense(f->ctx, full, tt.data, kr_type_num_elements(full) ? tt.nbytes : 0);
  kr_tensor_free(&tt);
  return fx_constant(f, a);
}

kr_value fx_splat_like(kr_fission *f, kr_value like, double v) {
  if (f->failed || !like) return NULL;
  return fx_splat(f, fx_elem(like), v, fx_dims(like), fx_rank(like));
}

kr_value fx_const_f64(kr_fission *f, kr_type elem, const double *vals, const int64_t *dims, unsigned rank) {
  return const_from(f, elem, vals, NULL, 0, dims, rank);
}

kr_value fx_const_i64(kr_fission *f, kr_type elem, const int64_t *vals, const int64_t *dims, unsigned rank) {
  return const_from(f, elem, NULL, vals, 0, dims, rank);
}

/* ---------------------------------------------------------------------------------------------
 * Elementwise. */

kr_value fx_unary(kr_fission *f, const char *name, kr_value x) {
  if (f->failed || !x) return NULL;
  return fx_prim(f, name, &x, 1, NULL);
}

/* Broadcasts vals[0..n) to their common numpy shape in place. */
static bool broadcast_all(kr_fission *f, kr_value *vals, unsigned n) {
  if (f->failed) return false;
  kr_type types[3];
  for (unsigned i = 0; i < n; i++) {
    if (!vals[i]) return false;
    types[i] = fx_type(vals[i]);
  }
  int64_t dims[KR_OP_MAX_RANK];
  unsigned rank;
  if (kr_op_broadcast_shapes(f->op, types, n, dims, &rank)) {
    f->failed = true;
    return false;
  }
  for (unsigned i = 0; i < n; i++) vals[i] = fx_broadcast(f, vals[i], dims, rank);
  return !f->failed;
}

kr_value fx_binary(kr_fission *f, const char *name, kr_value a, kr_value b) {
  kr_value v[2] = {a, b};
  if (!broadcast_all(f, v, 2)) return NULL;
  return fx_prim(f, name, v, 2, NULL);
}

kr_value fx_cmp(kr_fission *f, const char *predicate, kr_value a, kr_value b) {
  kr_value v[2] = {a, b};
  if (!broadcast_all(f, v, 2)) return NULL;
  return fx_prim(f, "prim.cmp", v, 2, fx_dict(f, 1, "predicate", fx_attr_str(f, predicate)));
}

kr_value fx_select(kr_fission *f, kr_value cond, kr_value on_true, kr_value on_false) {
  kr_value v[3] = {cond, on_true, on_false};
  if (!broadcast_all(f, v, 3)) return NULL;
  return fx_prim(f, "prim.select", v, 3, NULL);
}

kr_value fx_cast(kr_fission *f, kr_value x, kr_type elem) {
  if (f->failed || !x) return NULL;
  if (fx_elem(x) == elem) return x;
  return fx_prim(f, "prim.cast", &x, 1, fx_dict(f, 1, "to", fx_attr_type(f, elem)));
}

kr_value fx_binary_scalar(kr_fission *f, const char *name, kr_value a, double c) {
  if (f->failed || !a) return NULL;
  return fx_binary(f, name, a, fx_splat_like(f, a, c));
}

kr_value fx_iota(kr_fission *f, const int64_t *dims, unsigned rank, int64_t axis, kr_type elem) {
  if (f->failed) return NULL;
  return fx_prim(f, "prim.iota", NULL, 0,
                 fx_dict(f, 3, "shape", fx_attr_ints(f, dims, rank), "axis", fx_attr_i(f, axis), "elem",
                         fx_attr_type(f, elem)));
}

/* ---------------------------------------------------------------------------------------------
 * Layout. */

kr_value fx_broadcast(kr_fission *f, kr_value x, const int64_t *dims, unsigned rank) {
  if (f->failed || !x) return NULL;
  if (same_dims(x, dims, rank)) return x;
  return fx_prim(f, "prim.broadcast", &x, 1, fx_dict(f, 1, "shape", fx_attr_ints(f, dims, rank)));
}

kr_value fx_reshape(kr_fission *f, kr_value x, const int64_t *dims, unsigned rank) {
  if (f->failed || !x) return NULL;
  if (same_dims(x, dims, rank)) return x;
  return fx_prim(f, "prim.reshape", &x, 1, fx_dict(f, 1, "shape", fx_attr_ints(f, dims, rank)));
}

kr_value fx_transpose(kr_fission *f, kr_value x, const int64_t *perm) {
  if (f->failed || !x) return NULL;
  unsigned r = fx_rank(x);
  bool identity = true;
  for (unsigned i = 0; i < r; i++)
    if (perm[i] != (int64_t)i) identity = false;
  if (identity) return x;
  return fx_prim(f, "prim.transpose", &x, 1, fx_dict(f, 1, "perm", fx_attr_ints(f, perm, r)));
}

kr_value fx_slice(kr_fission *f, kr_value x, const int64_t *starts, const int64_t *ends, const int64_t *steps) {
  if (f->failed || !x) return NULL;
  unsigned r = fx_rank(x);
  bool all = true;
  for (unsigned i = 0; i < r; i++)
    if (starts[i] != 0 || ends[i] != fx_dims(x)[i] || steps[i] != 1) all = false;
  if (all) return x;
  return fx_prim(f, "prim.slice", &x, 1,
                 fx_dict(f, 3, "starts", fx_attr_ints(f, starts, r), "ends", fx_attr_ints(f, ends, r), "steps",
                         fx_attr_ints(f, steps, r)));
}

kr_value fx_slice_axis(kr_fission *f, kr_value x, unsigned axis, int64_t start, int64_t end) {
  if (f->failed || !x) return NULL;
  unsigned r = fx_rank(x);
  int64_t s[KR_OP_MAX_RANK], e[KR_OP_MAX_RANK], st[KR_OP_MAX_RANK];
  for (unsigned i = 0; i < r; i++) s[i] = 0, e[i] = fx_dims(x)[i], st[i] = 1;
  s[axis] = start;
  e[axis] = end;
  return fx_slice(f, x, s, e, st);
}

kr_value fx_concat(kr_fission *f, const kr_value *xs, unsigned n, int64_t axis) {
  if (f->failed) return NULL;
  if (n == 1) return xs[0];
  return fx_prim(f, "prim.concat", xs, n, fx_dict(f, 1, "axis", fx_attr_i(f, axis)));
}

kr_value fx_pad(kr_fission *f, kr_value x, const int64_t *pads, const int64_t *interior, const char *mode,
                kr_value value) {
  if (f->failed || !x) return NULL;
  unsigned r = fx_rank(x);
  bool nothing = true;
  for (unsigned i = 0; i < 2 * r; i++)
    if (pads[i]) nothing = false;
  for (unsigned i = 0; interior && i < r; i++)
    if (interior[i]) nothing = false;
  if (nothing) return x;
  kr_value ops[2] = {x, value};
  kr_attr attrs = interior ? fx_dict(f, 3, "pads", fx_attr_ints(f, pads, 2 * r), "interior", fx_attr_ints(f, interior, r),
                                     "mode", fx_attr_str(f, mode ? mode : "constant"))
                           : fx_dict(f, 2, "pads", fx_attr_ints(f, pads, 2 * r), "mode",
                                     fx_attr_str(f, mode ? mode : "constant"));
  return fx_prim(f, "prim.pad", ops, value ? 2 : 1, attrs);
}

kr_value fx_gather(kr_fission *f, kr_value data, kr_value indices, int64_t axis) {
  if (f->failed || !data || !indices) return NULL;
  kr_value v[2] = {data, indices};
  return fx_prim(f, "prim.gather", v, 2, fx_dict(f, 1, "axis", fx_attr_i(f, axis)));
}

/* ---------------------------------------------------------------------------------------------
 * Reductions and linear. */

kr_value fx_reduce(kr_fission *f, const char *name, kr_value x, const int64_t *axes, unsigned n, bool keepdims) {
  if (f->failed || !x) return NULL;
  if (!n) return x;
  return fx_prim(f, name, &x, 1,
                 fx_dict(f, 2, "axes", fx_attr_ints(f, axes, n), "keepdims", fx_attr_i(f, keepdims ? 1 : 0)));
}

kr_value fx_matmul(kr_fission *f, kr_value a, kr_value b) {
  if (f->failed || !a || !b) return NULL;
  kr_value v[2] = {a, b};
  return fx_prim(f, "prim.matmul", v, 2, NULL);
}
