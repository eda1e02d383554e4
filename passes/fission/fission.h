/* passes/fission/fission.h - operator fission (Korch, ASPLOS'24, §3): the rule table of
 * `--op-to-prim` and the small builder vocabulary the rules are written in.  Private to the pass.
 *
 * A rule `kr_fission_<stem>` exists for every row of dialects/op/ops.def (passes/fission/
 * rules_<family>.c).  It builds primitives before the op being split and returns, in results[i],
 * the prim value that replaces op result i.  Rules read the op through korch/op.h (attributes with
 * ONNX defaults, kr_op_operand_present, kr_op_constant_ints/floats for shape operands).
 *
 * Error discipline: every fx_* helper returns NULL once the fission context has failed (f->failed)
 * and accepts NULL operands (then it returns NULL without a second message), so a rule can chain
 * calls and check once at the end.  A helper that rejects its input reports the error at the op
 * being split.  The driver checks every returned value's type against the op's result type. */
#ifndef KORCH_PASSES_FISSION_FISSION_H
#define KORCH_PASSES_FISSION_FISSION_H

#include <stdarg.h>

#include "korch/diag.h"
#include "korch/interp.h"
#include "korch/op.h"
#include "korch/prim.h"

typedef struct kr_fission {
  kr_builder b;        /* insertion point: just before `op` */
  kr_context *ctx;
  kr_op *op;           /* the op-level op being split */
  kr_attr loc;         /* op's location: every primitive built gets it */
  bool failed;
} kr_fission;

/* One rule per op.def row (prototypes generated from the table). */
#define KR_ONNX_OP(stem, family, onnx, ins_, outs_, attrs_, summary_) \
  kr_status kr_fission_##stem(kr_fission *f, kr_op *op, kr_value *results);
#include "dialects/op/ops.def"
#undef KR_ONNX_OP

/* ---------------------------------------------------------------------------------------------
 * Reporting. */
/* Reports "fission of op.X: <message>" at the op, marks f failed; returns NULL. */
kr_value fx_fail(kr_fission *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* KR_FAILURE if f failed (a rule's last line: `return fx_status(f);`). */
kr_status fx_status(kr_fission *f);

/* ---------------------------------------------------------------------------------------------
 * Types. */
static inline kr_type fx_type(kr_value v) { return kr_value_type(v); }
static inline unsigned fx_rank(kr_value v) { return kr_value_type(v)->u.shaped.rank; }
static inline const int64_t *fx_dims(kr_value v) { return kr_value_type(v)->u.shaped.dims; }
static inline kr_type fx_elem(kr_value v) { return kr_type_element(kr_value_type(v)); }
int64_t fx_numel(kr_value v);
bool fx_is_float(kr_type elem);
bool fx_is_bool(kr_type elem);            /* i1 */
kr_type fx_i64(kr_fission *f);
kr_type fx_i1(kr_fission *f);
/* Operand i of the op being split, NULL when absent (beyond the list or an `op.none`). */
kr_value fx_operand(kr_fission *f, unsigned i);

/* ---------------------------------------------------------------------------------------------
 * Attributes (uniqued in the context). */
kr_attr fx_attr_i(kr_fission *f, int64_t v);                         /* `v : i64` */
kr_attr fx_attr_ints(kr_fission *f, const int64_t *v, unsigned n);   /* array<i64: ...> */
kr_attr fx_attr_str(kr_fission *f, const char *s);
kr_attr fx_attr_type(kr_fission *f, kr_type t);
/* A dictionary from (name, kr_attr) pairs: fx_dict(f, 2, "axis", a, "keepdims", b). */
kr_attr fx_dict(kr_fission *f, unsigned n, ...);

/* ---------------------------------------------------------------------------------------------
 * Generic construction: builds `name` with operands and an attribute dictionary (NULL: none) and
 * returns its result #0 (kr_prim_build: infers the type; a rule violation is reported at the op
 * with the prim's message, which is a bug in the rule). */
kr_value fx_prim(kr_fission *f, const char *name, const kr_value *operands, unsigned n, kr_attr attrs);
/* The same for all results (arg count `nres` must match). */
kr_op *fx_prim_op(kr_fission *f, const char *name, const kr_value *operands, unsigned n, kr_attr attrs);

/* ---------------------------------------------------------------------------------------------
 * Constants (prim.constant).  Values convert to `elem` as prim.cast does. */
kr_value fx_constant(kr_fission *f, kr_attr value);                  /* dense / dense_resource */
kr_value fx_scalar(kr_fission *f, kr_type elem, double v);           /* rank 0 */
kr_value fx_splat(kr_fission *f, kr_type elem, double v, const int64_t *dims, unsigned rank);
kr_value fx_splat_like(kr_fission *f, kr_value like, double v);      /* like's type */
/* A constant of shape dims/rank from `n` doubles / int64s (n == product of dims). */
kr_value fx_const_f64(kr_fission *f, kr_type elem, const double *vals, const int64_t *dims, unsigned rank);
kr_value fx_const_i64(kr_fission *f, kr_type elem, const int64_t *vals, const int64_t *dims, unsigned rank);

/* ---------------------------------------------------------------------------------------------
 * Elementwise.  fx_binary/fx_cmp/fx_select broadcast their operands to the common numpy shape
 * with explicit prim.broadcast (none when shapes already agree); operand element types must
 * already agree (cast first). */
kr_value fx_unary(kr_fission *f, const char *name, kr_value x);               /* "prim.exp" */
kr_value fx_binary(kr_fission *f, const char *name, kr_value a, kr_value b);  /* "prim.add" */
kr_value fx_cmp(kr_fission *f, const char *predicate, kr_value a, kr_value b); /* "lt" -> i1 */
kr_value fx_select(kr_fission *f, kr_value cond, kr_value on_true, kr_value on_false);
kr_value fx_cast(kr_fission *f, kr_value x, kr_type elem);                   /* x when equal */
/* a (op) scalar constant of a's element type: fx_binary_scalar(f, "prim.mul", x, 0.5). */
kr_value fx_binary_scalar(kr_fission *f, const char *name, kr_value a, double c);
kr_value fx_iota(kr_fission *f, const int64_t *dims, unsigned rank, int64_t axis, kr_type elem);

/* ---------------------------------------------------------------------------------------------
 * Layout.  Each returns x itself when the op would be the identity. */
kr_value fx_broadcast(kr_fission *f, kr_value x, const int64_t *dims, unsigned rank);
kr_value fx_reshape(kr_fission *f, kr_value x, const int64_t *dims, unsigned rank);
kr_value fx_transpose(kr_fission *f, kr_value x, const int64_t *perm);
/* starts/ends/steps: one per axis, in prim.slice's clamped form (ops.def). */
kr_value fx_slice(kr_fission *f, kr_value x, const int64_t *starts, const int64_t *ends, const int64_t *steps);
/* The sub-range [start, end) of one axis (step 1). */
kr_value fx_slice_axis(kr_fission *f, kr_value x, unsigned axis, int64_t start, int64_t end);
kr_value fx_concat(kr_fission *f, const kr_value *xs, unsigned n, int64_t axis);
/* pads: 2*rank entries [low..., high...]; interior NULL: none; mode "constant"/"edge"/"reflect";
 * value NULL: 0 (constant mode). */
kr_value fx_pad(kr_fission *f, kr_value x, const int64_t *pads, const int64_t *interior, const char *mode,
                kr_value value);
kr_value fx_gather(kr_fission *f, kr_value data, kr_value indices, int64_t axis);

/* ---------------------------------------------------------------------------------------------
 * Reductions and linear.  fx_reduce with n == 0 returns x. */
kr_value fx_reduce(kr_fission *f, const char *name, kr_value x, const int64_t *axes, unsigned n, bool keepdims);
kr_value fx_matmul(kr_fission *f, kr_value a, kr_value b);

#endif
