/* test/models/check_static.c - checks that an imported model (.kir) is a clean static graph at
 * the op level, as issue 3 requires of every model of ../shared/models:
 *   - it parses and verifies;
 *   - every value (argument, result) is a tensor with a static shape (or `none`);
 *   - no shape sub-graph op is left: op.shape, op.size, op.constant_of_shape, op.range;
 *   - every shape operand (`#` in dialects/op/ops.def) is a constant;
 *   - no constant sub-graph is left unfolded: no op (other than op.constant / op.none) whose
 *     operands are all constants.
 * With --level=prim (a model after `op-to-prim,canonicalize`, issue 4) it checks instead that
 * the module parses and verifies, every value has a static shape, and no op of the op dialect
 * is left; the summary counts the primitives by class (kr_prim_op_class).
 * Usage: korch_check_static [--level=op|prim] FILE.kir.  Prints one line per problem (at most
 * 20) and a summary; exit status 0 when clean, 1 otherwise, 2 on a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/korch.h"
#include "korch/op.h"
#include "korch/prim.h"
#include "support/file_io.h"

typedef struct state {
  unsigned ops, constants, problems;
  unsigned prims[KR_PRIM_NUM_CLASSES];   /* --level=prim: primitives by class */
} state;

static void problem(state *s, kr_op *op, const char *what) {
  if (++s->problems > 20) return;
  kr_attr loc = op->loc, file = kr_loc_find_file(loc);
  if (loc && loc->kind == KR_ATTR_LOCATION && loc->u.loc.kind == KR_LOC_NAME)
    printf("not static: '%s' (node '%s'): %s\n", op->name, loc->u.loc.name, what);
  else if (file)
    printf("not static: '%s' (line %u): %s\n", op->name, file->u.loc.line, what);
  else
    printf("not static: '%s': %s\n", op->name, what);
}

static bool is_static_value(kr_value v) {
  kr_type t = kr_value_type(v);
  if (t->kind == KR_TYPE_NONE || t->kind == KR_TYPE_FUNCTION) return true;
  return t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t);
}

static bool is_constant_value(kr_value v) {
  kr_op *d = kr_value_defining_op(v);
  return d && (kr_op_has_trait(d, KR_TRAIT_CONSTANT_LIKE) || !strcmp(d->name, KR_OP_NONE));
}

static kr_walk_result check_op(kr_op *op, void *user) {
  state *s = user;
  if (strncmp(op->name, "op.", 3)) return KR_WALK_ADVANCE;   /* module, func, return */
  s->ops++;
  if (!strcmp(op->name, KR_OP_CONSTANT) || !strcmp(op->name, KR_OP_NONE)) {
    s->constants++;
    return KR_WALK_ADVANCE;
  }
  static const char *const shape_ops[] = {"op.shape", "op.size", "op.constant_of_shape", "op.range"};
  for (unsigned i = 0; i < sizeof shape_ops / sizeof *shape_ops; i++)
    if (!strcmp(op->name, shape_ops[i])) problem(s, op, "shape sub-graph op left");
  for (unsigned i = 0; i < op->num_results; i++)
    if (!is_static_value(kr_op_result(op, i))) problem(s, op, "result without a static shape");
  const kr_op_schema *schema = kr_op_get_schema(op);
  bool all_constant = op->num_operands > 0;
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (!is_constant_value(kr_op_operand(op, i))) all_constant = false;
    if (!schema || !schema->num_operands) continue;
    const kr_op_operand_spec *o = &schema->operands[i < schema->num_operands ? i : schema->num_operands - 1];
    if (o->shape && kr_op_operand_present(op, i) && !kr_op_constant_operand(op, i)) {
      char msg[128];
      snprintf(msg, sizeof msg, "shape operand '%s' is not a constant", o->name);
      problem(s, op, msg);
    }
  }
  if (all_constant) problem(s, op, "all operands are constants but the op was not folded");
  return KR_WALK_ADVANCE;
}

/* --level=prim: no op-level op left, static results; primitives counted by class. */
static kr_walk_result check_prim_op(kr_op *op, void *user) {
  state *s = user;
  if (!strncmp(op->name, "op.", 3)) {
    problem(s, op, "op-level op left after fission");
    return KR_WALK_ADVANCE;
  }
  kr_prim_class c = kr_prim_op_class(op);
  if (c == KR_PRIM_NOT_PRIM) return KR_WALK_ADVANCE;   /* module, func, return */
  s->prims[c]++;
  for (unsigned i = 0; i < op->num_results; i++)
    if (!is_static_value(kr_op_result(op, i))) problem(s, op, "result without a static shape");
  return KR_WALK_ADVANCE;
}

static kr_walk_result check_args(kr_op *op, void *user) {
  state *s = user;
  for (unsigned r = 0; r < op->num_regions; r++)
    for (kr_block *b = kr_op_region(op, r)->first; b; b = b->next)
      for (unsigned i = 0; i < b->num_args; i++)
        if (!is_static_value(b->args[i])) problem(s, op, "argument without a static shape");
  return KR_WALK_ADVANCE;
}

int main(int argc, char **argv) {
  bool prim = false, bad = false;
  const char *file = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--level=prim"))
      prim = true;
    else if (!strcmp(argv[i], "--level=op"))
      prim = false;
    else if (!file && argv[i][0] != '-')
      file = argv[i];
    else
      bad = true;
  }
  if (!file || bad) {
    fprintf(stderr, "usage: %s [--level=op|prim] FILE.kir\n", argv[0]);
    return 2;
  }
  size_t len;
  char *buf = kr_tool_read_file("korch_check_static", file, &len);
  if (!buf) return 1;
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, NULL);
  int rc = 1;
  kr_op *module = NULL;
  if (!kr_register_core_dialects(ctx)) module = kr_parse_source(ctx, file, buf, len, true);
  if (module) {
    state s = {0};
    kr_op_walk(module, KR_WALK_PRE_ORDER, check_args, &s);
    kr_op_walk(module, KR_WALK_PRE_ORDER, prim ? check_prim_op : check_op, &s);
    if (s.problems > 20) printf("... %u problems in all\n", s.problems);
    if (prim) {
      unsigned total = 0;
      for (int c = 0; c < KR_PRIM_NUM_CLASSES; c++)
        if (c != KR_PRIM_CONSTANT) total += s.prims[c];
      printf("%s: %u primitives (", file, total);
      for (int c = 0; c < KR_PRIM_NUM_CLASSES; c++)
        if (c != KR_PRIM_CONSTANT) printf("%s%u %s", c ? ", " : "", s.prims[c], kr_prim_class_name((kr_prim_class)c));
      printf(") and %u constants, %s\n", s.prims[KR_PRIM_CONSTANT],
             s.problems ? "NOT a static primitive graph" : "static primitive graph");
    } else {
      printf("%s: %u op-level ops (%u constants), %s\n", file, s.ops, s.constants,
             s.problems ? "NOT a static graph" : "static graph");
    }
    rc = s.problems ? 1 : 0;
  }
  kr_context_destroy(ctx);
  free(buf);
  return rc;
}
