/* dialects/prim/prim.c - the `prim` dialect: op table and schemas from ops.def, prim.constant,
 * registration, orchestration classes and kr_prim_build.  The generic verifier and attribute
 * accessors are the op dialect's (korch/op.h), shared through KR_TRAIT_SCHEMA. */
#include <stdio.h>
#include <string.h>

#include "dialects/dialect_macros.h"
#include "dialects/dialect_util.h"
#include "dialects/op/op_impl.h"
#include "dialects/prim/prim_impl.h"
#include "dialects/schema.h"

typedef struct prim_row {
  const char *stem;
  kr_prim_class cls;
  const char *cls_name, *operands, *results, *attrs, *summary;
  kr_infer_fn infer;
  kr_eval_fn eval;
} prim_row;

#define CLASS_elementwise KR_PRIM_ELEMENTWISE
#define CLASS_reduction KR_PRIM_REDUCTION
#define CLASS_layout KR_PRIM_LAYOUT
#define CLASS_linear KR_PRIM_LINEAR

static const prim_row rows[] = {
#define KR_PRIM_OP(stem, cls, operands, results, attrs, summary) \
  {#stem, CLASS_##cls, #cls, operands, results, attrs, summary, kr_prim_infer_##stem, kr_prim_eval_##stem},
#include "dialects/prim/ops.def"
#undef KR_PRIM_OP
};
#define NUM_ROWS KR_ARRAY_SIZE(rows)

static kr_op_schema schemas[NUM_ROWS];
static kr_interp_hooks hooks[NUM_ROWS];
static char names[NUM_ROWS][40];
static kr_op_def op_defs[NUM_ROWS + 1];
static bool tables_built;

static void build_tables(void) {
  if (tables_built) return;
  for (unsigned i = 0; i < NUM_ROWS; i++) {
    const prim_row *r = &rows[i];
    kr_op_schema *s = &schemas[i];
    kr_schema_from_row(s, r->operands, r->results, r->attrs);
    s->onnx_name = NULL;
    s->family = r->cls_name;
    s->infer = r->infer;
    hooks[i].eval = r->eval;
    snprintf(names[i], sizeof names[i], "prim.%s", r->stem);
    op_defs[i] = (kr_op_def){
        .name = names[i],
        .traits = KR_TRAIT_PURE | KR_TRAIT_SCHEMA,
        .num_operands = KR_VARIADIC,
        .num_results = KR_VARIADIC,
        .summary = r->summary,
        .verify = kr_op_verify_generic,
        .fold = kr_prim_fold,
        .shape_inference = s,
        .interpreter = &hooks[i],
    };
  }
  /* Same rules as op.constant: a dense or dense_resource `value` typed like the result. */
  op_defs[NUM_ROWS] = (kr_op_def){
      .name = KR_PRIM_CONSTANT_OP,
      .traits = KR_TRAIT_PURE | KR_TRAIT_CONSTANT_LIKE,
      .num_operands = 0, .num_results = 1,
      .summary = "a tensor constant: `value` is dense or dense_resource (weights keep their resource)",
      .verify = kr_op_constant_verify,
      .fold = kr_op_constant_fold,
      .interpreter = &kr_op_constant_hooks,
  };
  tables_built = true;
}

kr_prim_class kr_prim_op_class(const kr_op *op) {
  if (!op->def || !op->def->dialect || strcmp(op->def->dialect->def->name, "prim")) return KR_PRIM_NOT_PRIM;
  if (op->def->traits & KR_TRAIT_CONSTANT_LIKE) return KR_PRIM_CONSTANT;
  build_tables();
  const kr_op_schema *s = op->def->shape_inference;
  return rows[s - schemas].cls;
}

const char *kr_prim_class_name(kr_prim_class c) {
  static const char *const n[] = {"elementwise", "reduction", "layout", "linear", "constant"};
  return c >= 0 && c < KR_PRIM_NUM_CLASSES ? n[c] : "?";
}

kr_op *kr_prim_materialize_constant(kr_builder *b, kr_attr value, kr_type type, kr_attr loc) {
  return kr_constant_materialize(b, KR_PRIM_CONSTANT_OP, value, type, loc);
}

kr_op *kr_prim_build(kr_builder *b, const char *name, const kr_value *operands, unsigned num_operands,
                     kr_attr attrs, kr_attr loc) {
  kr_context *ctx = b->ctx;
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, loc);
  kr_op_state_add_operands(&st, operands, num_operands);
  if (attrs && attrs->kind == KR_ATTR_DICT)
    for (unsigned i = 0; i < attrs->u.dict.num; i++)
      kr_op_state_add_attr(&st, attrs->u.dict.entries[i].name, attrs->u.dict.entries[i].value);
  kr_type none = kr_type_none(ctx);
  const kr_op_def *def = kr_context_lookup_op(ctx, kr_ident_get(ctx, name, strlen(name)));
  if (!def || !(def->traits & KR_TRAIT_SCHEMA) || strncmp(name, "prim.", 5)) {
    kr_op_state_free(&st);
    kr_emit_error(ctx, loc, "'%s' is not a registered primitive", name);
    return NULL;
  }
  kr_op_state_add_results(&st, &none, 1);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  if (kr_op_infer_and_set_types(op)) {
    kr_op_erase(op);
    return NULL;
  }
  kr_builder_insert(b, op);
  return op;
}

extern const kr_pattern kr_prim_canonical_patterns[];
extern const unsigned kr_prim_num_canonical_patterns;

static kr_dialect_def prim_dialect = {
    .name = "prim",
    .summary = "primitive level: Korch's primitive algebra (elementwise, reduction, layout, linear)",
    .materialize_constant = kr_prim_materialize_constant,
};

kr_status kr_register_prim_dialect(kr_context *ctx) {
  build_tables();
  prim_dialect.ops = op_defs;
  prim_dialect.num_ops = NUM_ROWS + 1;
  prim_dialect.patterns = kr_prim_canonical_patterns;
  prim_dialect.num_patterns = kr_prim_num_canonical_patterns;
  return kr_context_register_dialect(ctx, &prim_dialect);
}
