/* frontend/onnx/node.c - one ONNX node -> one op of the op dialect (createOrFold): operands
 * (an empty input name is an omitted optional input: trailing ones are dropped, one in the middle
 * becomes the shared `op.none`), attributes in the op dialect's encoding checked against the
 * opset-17 schema, shape inference, and folding as soon as every operand is a constant, so the
 * shape sub-graphs exporters emit (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ...) are
 * constants by the time a shape operand needs them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/dialect.h"
#include "onnx_impl.h"

struct kr_value_impl kr_onnx_poison;

/* ---------------------------------------------------------------------------------------------
 * Node accessors (for upgrade.c). */

const Onnx__AttributeProto *kr_onnx_node_attr(kr_onnx_node *n, const char *name) {
  for (unsigned i = 0; i < n->num_raw; i++)
    if (!n->dropped[i] && n->raw[i]->name && !strcmp(n->raw[i]->name, name)) return n->raw[i];
  return NULL;
}

void kr_onnx_node_drop(kr_onnx_node *n, const char *name) {
  for (unsigned i = 0; i < n->num_raw; i++)
    if (n->raw[i]->name && !strcmp(n->raw[i]->name, name)) n->dropped[i] = true;
}

void kr_onnx_node_set_attr(kr_onnx_node *n, const char *name, kr_attr value) {
  kr_onnx_node_drop(n, name);
  kr_named_attr na = {kr_ident_cstr(n->ctx, name), value};
  KR_VEC_PUSH(&n->attrs, kr_named_attr, na);
}

kr_value kr_onnx_node_operand(kr_onnx_node *n, unsigned i) {
  return i < n->operands.len ? KR_VEC_AT(&n->operands, kr_value, i) : NULL;
}

void kr_onnx_node_set_operand(kr_onnx_node *n, unsigned i, kr_value v) {
  while (n->operands.len <= i) KR_VEC_PUSH(&n->operands, kr_value, NULL);
  KR_VEC_AT(&n->operands, kr_value, i) = v;
}

/* ---------------------------------------------------------------------------------------------
 * Constants. */

static kr_value make_constant(kr_onnx_importer *I, kr_attr value, kr_attr loc) {
  kr_op_state st;
  kr_op_state_init(&st, I->ctx, KR_OP_CONSTANT, loc);
  kr_op_state_add_attr(&st, "value", value);
  kr_op_state_add_results(&st, &value->type, 1);
  kr_op *c = kr_builder_create(&I->b, &st);
  kr_op_state_free(&st);
  return kr_op_result(c, 0);
}

kr_value kr_onnx_const_attr(kr_onnx_importer *I, kr_attr value, kr_attr loc) { return make_constant(I, value, loc); }

kr_value kr_onnx_const_i64(kr_onnx_importer *I, const int64_t *vals, unsigned n, bool scalar, kr_attr loc) {
  int64_t dim = n;
  kr_type t = kr_type_tensor(I->ctx, &dim, scalar ? 0 : 1, kr_type_integer(I->ctx, 64, KR_SIGNLESS));
  static const int64_t zero = 0;
  return make_constant(I, kr_attr_dense(I->ctx, t, n ? (const void *)vals : &zero, n * sizeof(int64_t)), loc);
}

kr_value kr_onnx_const_f32(kr_onnx_importer *I, float v, kr_attr loc) {
  kr_type t = kr_type_tensor(I->ctx, NULL, 0, kr_type_float(I->ctx, KR_F32));
  return make_constant(I, kr_attr_dense(I->ctx, t, &v, sizeof v), loc);
}

static kr_value none_value(kr_onnx_importer *I) {
  if (I->none) return I->none;
  kr_op_state st;
  kr_op_state_init(&st, I->ctx, KR_OP_NONE, kr_loc_unknown(I->ctx));
  kr_type none = kr_type_none(I->ctx);
  kr_op_state_add_results(&st, &none, 1);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  /* At the top of the body, so it dominates every use. */
  kr_block_prepend_op(I->body, op);
  I->none = kr_op_result(op, 0);
  return I->none;
}

/* ---------------------------------------------------------------------------------------------
 * Diagnostics naming the graph inputs a value depends on. */

/* Collects (up to `cap`) the ONNX names of the function arguments `v` depends on. */
static unsigned feeding_inputs(kr_onnx_importer *I, kr_value v, const char **names, unsigned cap) {
  kr_vec stack = {0};
  kr_hmap seen = {0};
  unsigned n = 0;
  KR_VEC_PUSH(&stack, kr_value, v);
  while (stack.len && n < cap) {
    kr_value x = KR_VEC_AT(&stack, kr_value, --stack.len);
    bool ins;
    kr_hmap_insert(&seen, kr_hash_ptr(x), x, &ins);
    if (!ins) continue;
    if (x->is_block_arg) {
      if (x->owner.block == I->body && x->index < I->arg_names.len) {
        const char *nm = KR_VEC_AT(&I->arg_names, const char *, x->index);
        bool dup = false;
        for (unsigned k = 0; k < n; k++) dup |= names[k] == nm;
        if (!dup) names[n++] = nm;
      }
      continue;
    }
    kr_op *d = kr_value_defining_op(x);
    /* Shape/Size read only the (static) type of their operand, never its value. */
    if (!d || seen.len > 100000 || !strcmp(d->name, "op.shape") || !strcmp(d->name, "op.size")) continue;
    for (unsigned i = 0; i < d->num_operands; i++) KR_VEC_PUSH(&stack, kr_value, kr_op_operand(d, i));
  }
  kr_vec_free(&stack);
  kr_hmap_free(&seen);
  return n;
}

/* The name of the first output of n, for messages. */
static const char *first_output(const kr_onnx_node *n) {
  if (n && n->proto)
    for (size_t i = 0; i < n->proto->n_output; i++)
      if (n->proto->output[i] && *n->proto->output[i]) return n->proto->output[i];
  return n ? n->name : "?";
}

/* Shape operands (`#` in ops.def) must be constants for static shape inference. */
static kr_status check_shape_operands(kr_onnx_importer *I, kr_op *op, const kr_onnx_node *n, kr_attr loc) {
  const kr_op_schema *s = kr_op_get_schema(op);
  if (!s || !s->num_operands) return KR_SUCCESS;
  for (unsigned i = 0; i < op->num_operands; i++) {
    const kr_op_operand_spec *o = i < s->num_operands ? &s->operands[i] : &s->operands[s->num_operands - 1];
    if (!o->shape || !kr_op_operand_present(op, i) || kr_op_constant_operand(op, i)) continue;
    const char *names[8];
    unsigned k = feeding_inputs(I, kr_op_operand(op, i), names, 8);
    char buf[600];
    size_t len = 0;
    for (unsigned j = 0; j < k && len < sizeof buf - 100; j++)
      len += (size_t)snprintf(buf + len, sizeof buf - len, "%s'%s'", j ? ", " : "", names[j]);
    if (k)
      kr_onnx_error(I, loc,
                    "cannot infer a static shape for '%s' (node '%s'): operand '%s' is not a constant; bind the graph "
                    "input%s %s with --bind-input",
                    first_output(n), n ? n->name : "?", o->name, k > 1 ? "s" : "", buf);
    else {
      kr_op *d = kr_value_defining_op(kr_op_operand(op, i));
      kr_onnx_error(I, loc,
                    "cannot infer a static shape for '%s' (node '%s'): operand '%s' is not a constant (it is computed "
                    "by '%s', which could not be folded)",
                    first_output(n), n ? n->name : "?", o->name, d ? d->name : "?");
    }
    return KR_FAILURE;
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * createOrFold. */

/* Replaces a folded result's large dense value by a resource, so weights computed at import
 * (e.g. a transposed initializer) are stored once, as the file's other weights. */
static kr_attr maybe_resource(kr_onnx_importer *I, kr_attr a, const char *name) {
  if (a->kind != KR_ATTR_DENSE || a->u.dense.splat || a->u.dense.size <= I->threshold) return a;
  void *copy = malloc(a->u.dense.size);
  if (!copy) return a;
  memcpy(copy, a->u.dense.data, a->u.dense.size);
  kr_attr r = kr_onnx_buffer_attr(I->ctx, a->type, copy, a->u.dense.size, I->threshold, name);
  return r ? r : a;
}

/* Folds `op` through its fold hook (on constant operands, or on types alone for Shape/Size):
 * fills results[] with constants (or values the fold returned) and erases op.  Returns whether
 * it folded. */
static bool try_fold(kr_onnx_importer *I, kr_op *op, const kr_onnx_node *n, kr_value *results) {
  if (!op->def || !op->def->fold || kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE) || op->num_operands > 64 ||
      op->num_results > 64)
    return false;
  /* Non-constant operands are NULL, as the greedy driver passes them: folds that need only
   * types (Shape, Size) still fold. */
  kr_attr cst[64];
  for (unsigned i = 0; i < op->num_operands; i++) cst[i] = kr_op_constant_operand(op, i);
  kr_fold_result fr[64];
  memset(fr, 0, sizeof(kr_fold_result) * op->num_results);
  if (op->def->fold(op, cst, fr)) return false;
  for (unsigned i = 0; i < op->num_results; i++) {
    kr_type t = kr_value_type(kr_op_result(op, i));
    if (fr[i].value ? kr_value_type(fr[i].value) != t : (!fr[i].attr || fr[i].attr->type != t)) return false;
    if (fr[i].value == kr_op_result(op, i)) return false;   /* in-place update: keep the op */
  }
  for (unsigned i = 0; i < op->num_results; i++) {
    if (fr[i].value) {
      results[i] = fr[i].value;
      continue;
    }
    char key[300];
    const char *out = n && n->proto && i < n->proto->n_output && *n->proto->output[i] ? n->proto->output[i] : first_output(n);
    snprintf(key, sizeof key, "%s", out);
    results[i] = make_constant(I, maybe_resource(I, fr[i].attr, key), op->loc);
  }
  kr_op_erase(op);
  return true;
}

/* Shape inference reports at the op's location, which prints as the model file: the message is
 * re-reported with the node and operator it is about. */
typedef struct captured {
  char *msg;
  unsigned count;
} captured;

static void capture_handler(const kr_diagnostic *d, void *user) {
  captured *c = user;
  if (d->severity != KR_SEV_ERROR) return;
  if (!c->count++) c->msg = strdup(d->message);
}

static kr_status infer(kr_onnx_importer *I, kr_op *op, const kr_onnx_node *n) {
  kr_diag_handler h;
  void *ud;
  kr_context_get_diag_handler(I->ctx, &h, &ud);
  captured c = {NULL, 0};
  kr_context_set_diag_handler(I->ctx, capture_handler, &c);
  kr_status st = kr_op_infer_and_set_types(op);
  kr_context_set_diag_handler(I->ctx, h, ud);
  if (st) {
    if (n)
      kr_onnx_error(I, op->loc, "node '%s' (%s): %s", n->name, n->op_type, c.msg ? c.msg : "shape inference failed");
    else
      kr_onnx_error(I, op->loc, "%s", c.msg ? c.msg : "shape inference failed");
  }
  free(c.msg);
  /* The op level holds static shapes only: an inference hook that leaves a dim open is a bug to
   * report here rather than a module that fails later. */
  for (unsigned i = 0; !st && i < op->num_results; i++) {
    kr_type t = kr_value_type(kr_op_result(op, i));
    if (t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t)) continue;
    const char *out = n && n->proto && i < n->proto->n_output && *n->proto->output[i] ? n->proto->output[i] : "?";
    kr_onnx_error(I, op->loc, "cannot infer a static shape for '%s' (node '%s')", out, n ? n->name : "?");
    st = KR_FAILURE;
  }
  return st;
}

kr_status kr_onnx_emit(kr_onnx_importer *I, const char *op_name, const kr_value *operands, unsigned num_operands,
                       const kr_named_attr *attrs, unsigned num_attrs, unsigned num_results, const kr_onnx_node *n,
                       kr_value *results) {
  kr_attr loc = n ? n->loc : kr_loc_unknown(I->ctx);
  while (num_operands && !operands[num_operands - 1]) num_operands--;
  kr_op_state st;
  kr_op_state_init(&st, I->ctx, op_name, loc);
  for (unsigned i = 0; i < num_operands; i++) {
    kr_value v = operands[i] ? operands[i] : none_value(I);
    kr_op_state_add_operands(&st, &v, 1);
  }
  kr_type none = kr_type_none(I->ctx);
  for (unsigned i = 0; i < num_results; i++) kr_op_state_add_results(&st, &none, 1);
  for (unsigned i = 0; i < num_attrs; i++) kr_op_state_add_attr(&st, attrs[i].name, attrs[i].value);
  kr_op *op = kr_builder_create(&I->b, &st);
  kr_op_state_free(&st);
  if (!op) {
    kr_onnx_error(I, loc, "cannot create '%s'", op_name);
    return KR_FAILURE;
  }
  if (check_shape_operands(I, op, n, loc) || infer(I, op, n)) {
    I->errors++;
    for (unsigned i = 0; i < op->num_results; i++) kr_value_set_type(kr_op_result(op, i), none);
    kr_op_erase(op);
    return KR_FAILURE;
  }
  if (try_fold(I, op, n, results)) return KR_SUCCESS;
  for (unsigned i = 0; i < num_results; i++) results[i] = kr_op_result(op, i);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Constant nodes: one of value (tensor), value_float(s), value_int(s); sparse_value and the string
 * forms have no op-dialect equivalent. */
static kr_value import_constant(kr_onnx_importer *I, kr_onnx_node *n) {
  kr_context *ctx = I->ctx;
  const char *out = first_output(n);
  kr_value v = NULL;
  unsigned seen = 0;
  for (unsigned i = 0; i < n->num_raw; i++) {
    const Onnx__AttributeProto *a = n->raw[i];
    const char *nm = a->name ? a->name : "";
    seen++;
    kr_attr value = NULL;
    if (!strcmp(nm, "value") && a->t) {
      char what[400];
      snprintf(what, sizeof what, "tensor '%s' (Constant node '%s')", out, n->name);
      value = kr_onnx_tensor_attr(ctx, n->loc, a->t, I->model->dir, I->threshold, out, what);
      if (!value) {
        I->errors++;
        return NULL;
      }
    } else if (!strcmp(nm, "value_float") || !strcmp(nm, "value_floats")) {
      bool list = nm[11] == 's';
      float f = (float)kr_onnx_attr_f(a, 0);
      int64_t dim = list ? (int64_t)a->n_floats : 1;
      kr_type t = kr_type_tensor(ctx, &dim, list ? 1 : 0, kr_type_float(ctx, KR_F32));
      static const float zero;
      value = kr_attr_dense(ctx, t, list ? (a->n_floats ? (const void *)a->floats : &zero) : &f,
                            (size_t)dim * sizeof(float));
    } else if (!strcmp(nm, "value_int") || !strcmp(nm, "value_ints")) {
      bool list = nm[9] == 's';
      int64_t x = kr_onnx_attr_i(a, 0);
      int64_t dim = list ? (int64_t)a->n_ints : 1;
      kr_type t = kr_type_tensor(ctx, &dim, list ? 1 : 0, kr_type_integer(ctx, 64, KR_SIGNLESS));
      static const int64_t zero;
      value = kr_attr_dense(ctx, t, list ? (a->n_ints ? (const void *)a->ints : &zero) : &x,
                            (size_t)dim * sizeof(int64_t));
    } else {
      kr_onnx_error(I, n->loc, "node '%s' (Constant): unsupported attribute '%s'", n->name, nm);
      return NULL;
    }
    if (!value) {
      kr_onnx_error(I, n->loc, "node '%s' (Constant): cannot store attribute '%s'", n->name, nm);
      return NULL;
    }
    if (!v) v = make_constant(I, value, n->loc);
  }
  if (seen != 1) {
    kr_onnx_error(I, n->loc, "node '%s' (Constant): expects exactly one value attribute, got %u", n->name, seen);
    return NULL;
  }
  return v;
}

/* ---------------------------------------------------------------------------------------------
 * One node. */

static void poison_outputs(kr_onnx_importer *I, const Onnx__NodeProto *np) {
  for (size_t i = 0; i < np->n_output; i++)
    if (np->output[i] && *np->output[i]) kr_onnx_define(I, np->output[i], KR_ONNX_POISON);
}

/* Converts the attributes left after the upgrade, by the op's schema. */
static kr_status convert_attrs(kr_onnx_importer *I, kr_onnx_node *n, const kr_op_schema *s, kr_vec *out) {
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; i < n->num_raw; i++) {
    if (n->dropped[i]) continue;
    const Onnx__AttributeProto *a = n->raw[i];
    const char *nm = a->name ? a->name : "";
    if (a->ref_attr_name && *a->ref_attr_name) {
      kr_onnx_error(I, n->loc, "node '%s' (%s): attribute '%s' refers to a function attribute, which is unsupported",
                    n->name, n->op_type, nm);
      st = KR_FAILURE;
      continue;
    }
    const kr_op_attr_spec *spec = NULL;
    for (unsigned k = 0; k < s->num_attrs; k++)
      if (!strcmp(s->attrs[k].name, nm)) spec = &s->attrs[k];
    if (!spec) {
      kr_onnx_error(I, n->loc, "node '%s' (%s): unsupported attribute '%s' (not in the opset 17 schema of %s)", n->name,
                    n->op_type, nm, n->op_type);
      st = KR_FAILURE;
      continue;
    }
    kr_attr v = kr_onnx_convert_attr(I, a, spec->kind, n->loc, n);
    if (!v) {
      st = KR_FAILURE;
      continue;
    }
    kr_named_attr na = {kr_ident_cstr(I->ctx, nm), v};
    KR_VEC_PUSH(out, kr_named_attr, na);
  }
  /* The upgrade's attributes come last, so they replace converted ones of the same name. */
  for (size_t i = 0; i < n->attrs.len; i++) KR_VEC_PUSH(out, kr_named_attr, KR_VEC_AT(&n->attrs, kr_named_attr, i));
  return st;
}

static bool is_default_domain(const char *d) { return !d || !*d || !strcmp(d, "ai.onnx"); }

void kr_onnx_import_node(kr_onnx_importer *I, const Onnx__NodeProto *np, unsigned index) {
  kr_context *ctx = I->ctx;
  kr_onnx_node n;
  memset(&n, 0, sizeof n);
  n.ctx = ctx;
  n.proto = np;
  n.op_type = np->op_type ? np->op_type : "";
  if (np->name && *np->name) snprintf(n.name, sizeof n.name, "%s", np->name);
  else snprintf(n.name, sizeof n.name, "%s_%u", n.op_type, index);
  n.loc = kr_loc_name(ctx, n.name, strlen(n.name), kr_onnx_file_loc(ctx, I->path));

  if (!is_default_domain(np->domain)) {
    kr_onnx_error(I, n.loc, "unsupported operator '%s' of domain '%s' (node '%s'): only the default ONNX domain is supported",
                  n.op_type, np->domain, n.name);
    poison_outputs(I, np);
    return;
  }
  bool constant = !strcmp(n.op_type, "Constant");
  const char *op_name = constant ? KR_OP_CONSTANT : kr_op_name_for_onnx(ctx, n.op_type);
  if (!op_name) {
    kr_onnx_error(I, n.loc, "unsupported operator '%s' (node '%s')", n.op_type, n.name);
    poison_outputs(I, np);
    return;
  }
  for (size_t i = 0; i < np->n_input; i++) {
    const char *in = np->input[i];
    kr_value v = NULL;
    if (in && *in) {
      v = kr_onnx_lookup(I, in);
      if (!v) {
        kr_onnx_error(I, n.loc, "node '%s' (%s): input '%s' is not a graph input, an initializer or a node output", n.name,
                      n.op_type, in);
        poison_outputs(I, np);
        kr_vec_free(&n.operands);
        return;
      }
      if (v == KR_ONNX_POISON) {
        poison_outputs(I, np);
        kr_vec_free(&n.operands);
        return;
      }
    }
    KR_VEC_PUSH(&n.operands, kr_value, v);
  }
  n.num_raw = (unsigned)np->n_attribute;
  n.raw = (const Onnx__AttributeProto **)np->attribute;
  /* ONNX IR.md: attribute names are unique within a node (the checker rejects repeats). */
  for (unsigned i = 0; i < n.num_raw; i++)
    for (unsigned j = 0; j < i; j++)
      if (n.raw[i]->name && n.raw[j]->name && !strcmp(n.raw[i]->name, n.raw[j]->name)) {
        kr_onnx_error(I, n.loc, "node '%s' (%s): attribute '%s' is given twice", n.name, n.op_type, n.raw[i]->name);
        poison_outputs(I, np);
        kr_vec_free(&n.operands);
        return;
      }
  n.dropped = calloc(n.num_raw + 1, sizeof(bool));
  unsigned nres = 0;
  for (size_t i = 0; i < np->n_output; i++)
    if (np->output[i] && *np->output[i]) nres = (unsigned)i + 1;
  n.num_results = nres;

  kr_value small[8];
  kr_value *results = NULL;
  kr_status st = KR_FAILURE;
  if (constant) {
    kr_value v = import_constant(I, &n);
    if (v) {
      if (nres >= 1) kr_onnx_define(I, np->output[0], v);
      st = KR_SUCCESS;
    }
    goto done;
  }
  const kr_op_schema *s = kr_op_schema_by_onnx_name(ctx, n.op_type);
  if (n.num_results < s->min_results) n.num_results = s->min_results;
  if (n.num_results > s->max_results) {
    kr_onnx_error(I, n.loc, "node '%s' (%s): %u outputs, the operator has at most %u in inference form", n.name,
                  n.op_type, n.num_results, s->max_results);
    goto done;
  }
  results = n.num_results <= 8 ? small : calloc(n.num_results, sizeof *results);
  n.results = results;
  if (kr_onnx_upgrade_node(I, &n)) goto done;
  if (!n.done) {
    s = kr_op_schema_by_onnx_name(ctx, n.op_type);   /* the upgrade may have renamed it */
    op_name = kr_op_name_for_onnx(ctx, n.op_type);
    kr_vec attrs = {0};
    if (!convert_attrs(I, &n, s, &attrs))
      st = kr_onnx_emit(I, op_name, KR_VEC_DATA(&n.operands, kr_value), (unsigned)n.operands.len,
                        KR_VEC_DATA(&attrs, kr_named_attr), (unsigned)attrs.len, n.num_results, &n, results);
    kr_vec_free(&attrs);
  } else {
    st = KR_SUCCESS;
  }
  if (!st)
    for (size_t i = 0; i < np->n_output && i < n.num_results; i++)
      if (np->output[i] && *np->output[i]) kr_onnx_define(I, np->output[i], results[i]);
done:
  if (st) poison_outputs(I, np);
  if (results && results != small) free(results);
  free(n.dropped);
  kr_vec_free(&n.operands);
  kr_vec_free(&n.attrs);
}
