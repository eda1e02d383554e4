/* passes/fission/op_to_prim.c - `op-to-prim`: operator fission (Korch, ASPLOS'24, §3).
 *
 * Every op of the `op` dialect is replaced by the primitives its rule (rules_<family>.c, one per
 * ops.def row) builds just before it; op.constant becomes prim.constant (the same attribute, so
 * weights stay dense_resource blobs) and op.none disappears with its last user.  Ops are visited in
 * block order, so a rule sees its operands already at the prim level (or block arguments).  The
 * pass checks each replacement's type against the op's result and fails, with the op's location,
 * on the first op it cannot split; afterwards no `op.*` op remains. */
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_util.h"

#include "passes/fission/fission.h"
#include "passes/pass_impl.h"

typedef kr_status (*rule_fn)(kr_fission *f, kr_op *op, kr_value *results);

typedef struct rule_row {
  const char *name;
  rule_fn rule;
} rule_row;

static const rule_row rules[] = {
#define KR_ONNX_OP(stem, family, onnx, operands, results, attrs, summary) {"op." #stem, kr_fission_##stem},
#include "dialects/op/ops.def"
#undef KR_ONNX_OP
};

static rule_fn find_rule(const char *name) {
  for (unsigned i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (!strcmp(rules[i].name, name)) return rules[i].rule;
  return NULL;
}

static bool is_op_dialect(kr_op *op) { return !strncmp(op->name, "op.", 3); }

/* Splits one op; on success the op is erased. */
static kr_status split(kr_op *op) {
  kr_context *ctx = kr_op_context(op);
  kr_fission f = {.ctx = ctx, .op = op, .loc = op->loc};
  kr_builder_init(&f.b, ctx);
  kr_builder_set_insertion_point_before(&f.b, op);
  if (!strcmp(op->name, KR_OP_CONSTANT)) {
    kr_attr v = kr_op_get_attr(op, "value");
    kr_op *c = kr_prim_materialize_constant(&f.b, v, kr_value_type(kr_op_result(op, 0)), op->loc);
    if (!c) return kr_op_emit_error(op, "fission: the constant's value is not dense or dense_resource");
    kr_value r = kr_op_result(c, 0);
    kr_op_replace(op, &r);
    return KR_SUCCESS;
  }
  if (!strcmp(op->name, KR_OP_NONE)) return KR_SUCCESS;   /* erased once its users are gone */
  rule_fn rule = find_rule(op->name);
  if (!rule) return kr_op_emit_error(op, "fission: no rule for '%s'", op->name);
  kr_value small[8];
  kr_value *res = op->num_results <= 8 ? small : calloc(op->num_results, sizeof *res);
  if (!res) return kr_op_emit_error(op, "out of memory");
  for (unsigned i = 0; i < op->num_results; i++) res[i] = NULL;
  kr_status st = rule(&f, op, res);
  if (!st && f.failed) st = KR_FAILURE;
  for (unsigned i = 0; !st && i < op->num_results; i++) {
    kr_value r = kr_op_result(op, i);
    if (!res[i]) {
      if (!kr_value_has_uses(r)) {
        res[i] = r;   /* unused optional result (e.g. Dropout's mask): nothing to compute */
        continue;
      }
      st = kr_op_emit_error(op, "fission: the rule left used result #%u without a value", i);
    } else if (kr_value_type(res[i]) != kr_value_type(r)) {
      char *a = kr_type_to_cstr(kr_value_type(res[i])), *b = kr_type_to_cstr(kr_value_type(r));
      st = kr_op_emit_error(op, "fission: the rule produced '%s' for result #%u, which has type '%s'", a, i, b);
      free(a), free(b);
    }
  }
  if (!st) {
    for (unsigned i = 0; i < op->num_results; i++)
      if (res[i] != kr_op_result(op, i)) kr_value_replace_all_uses(kr_op_result(op, i), res[i]);
    kr_op_erase(op);
  }
  if (res != small) free(res);
  return st;
}

static kr_status split_region(kr_region *r, bool *changed);

static kr_status split_block(kr_block *b, bool *changed) {
  kr_op *next;
  for (kr_op *op = b->first; op; op = next) {
    next = op->next;
    for (uint32_t i = 0; i < op->num_regions; i++)
      if (split_region(&op->regions[i], changed)) return KR_FAILURE;
    if (!is_op_dialect(op) || !strcmp(op->name, KR_OP_NONE)) continue;
    if (split(op)) return KR_FAILURE;
    *changed = true;
  }
  /* op.none values die with the ops that used them. */
  for (kr_op *op = b->first; op; op = next) {
    next = op->next;
    if (!strcmp(op->name, KR_OP_NONE) && kr_op_use_empty(op)) kr_op_erase(op);
  }
  return KR_SUCCESS;
}

static kr_status split_region(kr_region *r, bool *changed) {
  for (kr_block *b = r->first; b; b = b->next)
    if (split_block(b, changed)) return KR_FAILURE;
  return KR_SUCCESS;
}

static kr_status op_to_prim_run(kr_op *root, const void *options, kr_pass_run *run) {
  (void)options;
  bool changed = false;
  for (uint32_t i = 0; i < root->num_regions; i++)
    if (split_region(&root->regions[i], &changed)) return KR_FAILURE;
  if (!changed) kr_pass_run_mark_unchanged(run);
  return KR_SUCCESS;
}

const kr_pass_def kr_op_to_prim_pass = {
    .argument = "op-to-prim",
    .summary = "Operator fission: split every op-level op into primitives of the prim dialect (Korch §3)",
    .run = op_to_prim_run,
    .display_name = "OpToPrim",
};
