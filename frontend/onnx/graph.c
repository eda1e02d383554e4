/* frontend/onnx/graph.c - the import driver (kr_onnx_import_file): an ONNX GraphProto becomes
 *
 *   module attributes {onnx.opset = 13 : i64, onnx.producer = "pytorch 1.13.1"} {
 *     func.func @main(%x: tensor<..> {onnx.name = "x"}) -> (tensor<..> {onnx.name = "y"}) {...}
 *   }
 *
 * Graph inputs that are neither initializers nor bound (--bind-input) are the arguments, in
 * graph order; initializers (also those IR version < 4 lists among the inputs), bound inputs
 * and Constant nodes are op.constant; nodes are imported in topological order (graph order when
 * it already is one) and folded as they are created; unused ops are removed at the end.  Every
 * problem is reported (one diagnostic each) before the import fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "dialects/dialect_util.h"
#include "korch/dialect.h"
#include "onnx_impl.h"

#define KR_ONNX_MAX_OPSET 17

/* ---------------------------------------------------------------------------------------------
 * Names -> values. */

kr_value kr_onnx_lookup(kr_onnx_importer *I, const char *name) {
  kr_ident id = kr_ident_cstr(I->ctx, name);
  kr_hmap_entry *e = kr_hmap_find(&I->values, kr_hash_ptr(id), id);
  return e ? e->value : NULL;
}

void kr_onnx_define(kr_onnx_importer *I, const char *name, kr_value v) {
  kr_ident id = kr_ident_cstr(I->ctx, name);
  bool ins;
  kr_hmap_insert(&I->values, kr_hash_ptr(id), id, &ins)->value = v;
}

void kr_onnx_error(kr_onnx_importer *I, kr_attr loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_diag_report(kr_diag_vbegin(I->ctx, KR_SEV_ERROR, loc, fmt, ap));
  va_end(ap);
  I->errors++;
}

/* ---------------------------------------------------------------------------------------------
 * Graph inputs. */

static const kr_onnx_input_shape *given_shape(kr_onnx_importer *I, const char *name) {
  if (!I->opts) return NULL;
  for (unsigned i = 0; i < I->opts->num_shapes; i++)
    if (!strcmp(I->opts->shapes[i].name, name)) return &I->opts->shapes[i];
  return NULL;
}

static const kr_onnx_binding *given_binding(kr_onnx_importer *I, const char *name) {
  if (!I->opts) return NULL;
  for (unsigned i = 0; i < I->opts->num_bindings; i++)
    if (!strcmp(I->opts->bindings[i].name, name)) return &I->opts->bindings[i];
  return NULL;
}

/* The declared tensor type of a graph input/output: element type, and the dims (KR_DYNAMIC for
 * dim_param / unset ones, with the first symbolic name in *param / its axis in *axis).  Returns
 * false when there is no tensor type (non-tensor values). *has_shape: a shape is declared. */
typedef struct declared {
  int32_t elem_code;
  kr_type elem;
  bool has_shape;
  unsigned rank;
  int64_t dims[KR_OP_MAX_RANK];
  const char *param;    /* first dynamic dim's dim_param ("" when unnamed) */
  int dyn_axis;         /* -1: fully static */
} declared;

static bool read_declared(kr_onnx_importer *I, const Onnx__ValueInfoProto *vi, declared *d) {
  memset(d, 0, sizeof *d);
  d->dyn_axis = -1;
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) return false;
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  d->elem_code = tt->has_elem_type ? tt->elem_type : 0;
  d->elem = kr_onnx_elem_type(I->ctx, d->elem_code);
  if (!tt->shape) return true;
  d->has_shape = true;
  d->rank = (unsigned)(tt->shape->n_dim < KR_OP_MAX_RANK ? tt->shape->n_dim : KR_OP_MAX_RANK + 1);
  for (unsigned i = 0; i < d->rank && i < KR_OP_MAX_RANK; i++) {
    const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[i];
    if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0) {
      d->dims[i] = dim->dim_value;
      continue;
    }
    d->dims[i] = KR_DYNAMIC;
    if (d->dyn_axis < 0) {
      d->dyn_axis = (int)i;
      d->param = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param ? dim->dim_param
                                                                                                         : "";
    }
  }
  return true;
}

/* "x=1x3x224x224" with 1 for the dynamic dims, for the --input-shape hint. */
static void shape_hint(const char *name, const declared *d, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "%s=", name);
  for (unsigned i = 0; i < d->rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? "x" : "", d->dims[i] == KR_DYNAMIC ? 1LL : (long long)d->dims[i]);
  if (d->rank == 0 && len < cap) snprintf(buf + len, cap - len, "scalar");
}

/* The argument type of graph input `vi`, or NULL after reporting. */
static kr_type input_type(kr_onnx_importer *I, const Onnx__ValueInfoProto *vi, kr_attr loc) {
  const char *name = vi->name;
  declared d;
  if (!read_declared(I, vi, &d)) {
    kr_onnx_error(I, loc, "input '%s' is not a tensor (sequence, map and optional values are unsupported)", name);
    return NULL;
  }
  if (!d.elem) {
    kr_onnx_error(I, loc, "input '%s' has unsupported element type %s", name, kr_onnx_dtype_name(d.elem_code));
    return NULL;
  }
  if (d.rank > KR_OP_MAX_RANK) {
    kr_onnx_error(I, loc, "input '%s' has rank %u, at most %d supported", name, d.rank, KR_OP_MAX_RANK);
    return NULL;
  }
  const kr_onnx_input_shape *g = given_shape(I, name);
  if (g) {
    if (d.has_shape && g->rank != d.rank) {
      kr_onnx_error(I, loc, "--input-shape %s: gives rank %u, but input '%s' has rank %u", name, g->rank, name, d.rank);
      return NULL;
    }
    for (unsigned i = 0; d.has_shape && i < d.rank; i++) {
      if (d.dims[i] != KR_DYNAMIC && d.dims[i] != g->dims[i]) {
        kr_onnx_error(I, loc, "--input-shape %s: gives %lld at axis %u, but input '%s' has the static dimension %lld there",
                      name, (long long)g->dims[i], i, name, (long long)d.dims[i]);
        return NULL;
      }
    }
    kr_type t = kr_type_tensor(I->ctx, g->dims, g->rank, d.elem);
    if (kr_type_num_elements(t) < 0) {
      kr_onnx_error(I, loc, "--input-shape %s: more elements than int64 can count", name);
      return NULL;
    }
    return t;
  }
  if (!d.has_shape) {
    kr_onnx_error(I, loc, "input '%s' has no declared shape; fix it with --input-shape %s=<d0>x<d1>...", name, name);
    return NULL;
  }
  if (d.dyn_axis >= 0) {
    char hint[300];
    shape_hint(name, &d, hint, sizeof hint);
    if (*d.param)
      kr_onnx_error(I, loc, "input '%s' has a dynamic dimension '%s' at axis %d; fix it with --input-shape %s", name,
                    d.param, d.dyn_axis, hint);
    else
      kr_onnx_error(I, loc, "input '%s' has a dynamic dimension at axis %d; fix it with --input-shape %s", name,
                    d.dyn_axis, hint);
    return NULL;
  }
  kr_type t = kr_type_tensor(I->ctx, d.dims, d.rank, d.elem);
  if (kr_type_num_elements(t) < 0) {
    kr_onnx_error(I, loc, "input '%s' has more elements than int64 can count", name);
    return NULL;
  }
  return t;
}

/* A bound input: its value, checked against the declared type. */
static kr_value bind_input(kr_onnx_importer *I, const Onnx__ValueInfoProto *vi, const kr_onnx_binding *b, kr_attr loc) {
  declared d;
  const kr_tensor *t = b->value;
  if (read_declared(I, vi, &d)) {
    if (d.elem && d.elem != kr_tensor_elem(t)) {
      char *a = kr_type_to_cstr(kr_tensor_elem(t)), *e = kr_type_to_cstr(d.elem);
      kr_onnx_error(I, loc, "--bind-input %s: the value has element type %s, the input is declared %s", vi->name, a, e);
      free(a), free(e);
      return NULL;
    }
    bool match = !d.has_shape || d.rank == kr_tensor_rank(t);
    for (unsigned i = 0; match && d.has_shape && i < d.rank; i++)
      match = d.dims[i] == KR_DYNAMIC || d.dims[i] == kr_tensor_dims(t)[i];
    if (!match) {
      char *a = kr_type_to_cstr(t->type);
      kr_onnx_error(I, loc, "--bind-input %s: the value's type %s does not match the input's declared shape", vi->name, a);
      free(a);
      return NULL;
    }
  }
  kr_attr value;
  if (t->nbytes > I->threshold) {
    void *copy = malloc(t->nbytes);
    if (!copy) {
      kr_onnx_error(I, loc, "--bind-input %s: out of memory", vi->name);
      return NULL;
    }
    memcpy(copy, t->data, t->nbytes);
    value = kr_onnx_buffer_attr(I->ctx, t->type, copy, t->nbytes, I->threshold, vi->name);
  } else {
    value = kr_tensor_to_attr(I->ctx, t);
  }
  if (!value) {
    kr_onnx_error(I, loc, "--bind-input %s: cannot store the value", vi->name);
    return NULL;
  }
  return kr_onnx_const_attr(I, value, loc);
}

/* ---------------------------------------------------------------------------------------------
 * Node order. */

/* Kahn's algorithm over tensor names; graph order among ready nodes.  Fills order[] and returns
 * how many nodes it placed (fewer than n_node: a cycle, or inputs nobody defines). */
static size_t topo_order(kr_onnx_importer *I, const Onnx__GraphProto *g, size_t *order) {
  size_t n = g->n_node;
  kr_hmap producer = {0};   /* ident -> node index + 1 */
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < g->node[i]->n_output; k++) {
      const char *o = g->node[i]->output[k];
      if (!o || !*o) continue;
      kr_ident id = kr_ident_cstr(I->ctx, o);
      bool ins;
      kr_hmap_insert(&producer, kr_hash_ptr(id), id, &ins)->value = (void *)(uintptr_t)(i + 1);
    }
  size_t *pending = calloc(n + 1, sizeof *pending);
  kr_vec *users = calloc(n + 1, sizeof *users);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < g->node[i]->n_input; k++) {
      const char *in = g->node[i]->input[k];
      if (!in || !*in) continue;
      kr_ident id = kr_ident_cstr(I->ctx, in);
      if (kr_onnx_lookup(I, in)) continue;   /* graph input / initializer: defined already */
      kr_hmap_entry *e = kr_hmap_find(&producer, kr_hash_ptr(id), id);
      if (!e) continue;   /* undefined: reported when the node is imported */
      size_t p = (size_t)(uintptr_t)e->value - 1;
      pending[i]++;
      KR_VEC_PUSH(&users[p], size_t, i);
    }
  /* A min-heap would keep graph order exactly; a sorted graph (the normal case) comes out in
   * graph order with this simple scan, and an unsorted one in a valid order. */
  size_t placed = 0, *queue = malloc((n + 1) * sizeof *queue), qh = 0, qt = 0;
  for (size_t i = 0; i < n; i++)
    if (!pending[i]) queue[qt++] = i;
  while (qh < qt) {
    size_t i = queue[qh++];
    order[placed++] = i;
    for (size_t u = 0; u < users[i].len; u++) {
      size_t j = KR_VEC_AT(&users[i], size_t, u);
      if (--pending[j] == 0) queue[qt++] = j;
    }
  }
  for (size_t i = 0; i < n; i++) kr_vec_free(&users[i]);
  free(users);
  free(queue);
  free(pending);
  kr_hmap_free(&producer);
  return placed;
}

static bool graph_is_sorted(kr_onnx_importer *I, const Onnx__GraphProto *g) {
  kr_hmap defined = {0};
  bool sorted = true;
  kr_hmap later = {0};
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t k = 0; k < g->node[i]->n_output; k++) {
      kr_ident id = kr_ident_cstr(I->ctx, g->node[i]->output[k] ? g->node[i]->output[k] : "");
      bool ins;
      kr_hmap_insert(&later, kr_hash_ptr(id), id, &ins);
    }
  for (size_t i = 0; i < g->n_node && sorted; i++) {
    const Onnx__NodeProto *np = g->node[i];
    for (size_t k = 0; k < np->n_input && sorted; k++) {
      const char *in = np->input[k];
      if (!in || !*in || kr_onnx_lookup(I, in)) continue;
      kr_ident id = kr_ident_cstr(I->ctx, in);
      if (!kr_hmap_find(&defined, kr_hash_ptr(id), id) && kr_hmap_find(&later, kr_hash_ptr(id), id)) sorted = false;
    }
    for (size_t k = 0; k < np->n_output; k++) {
      kr_ident id = kr_ident_cstr(I->ctx, np->output[k] ? np->output[k] : "");
      bool ins;
      kr_hmap_insert(&defined, kr_hash_ptr(id), id, &ins);
    }
  }
  kr_hmap_free(&defined);
  kr_hmap_free(&later);
  return sorted;
}

/* ---------------------------------------------------------------------------------------------
 * Finishing. */

/* Erases ops whose results are unused (back to front, so a chain goes in one sweep). */
static void remove_dead_ops(kr_block *body) {
  for (kr_op *op = body->last; op;) {
    kr_op *prev = op->prev;
    if (!kr_op_has_trait(op, KR_TRAIT_TERMINATOR) && kr_op_use_empty(op)) kr_op_erase(op);
    op = prev;
  }
}

/* Import locations carry the model file (diagnostics print it); the module keeps loc("name"). */
static kr_walk_result strip_loc(kr_op *op, void *user) {
  (void)user;
  kr_attr l = op->loc;
  if (l->u.loc.kind == KR_LOC_NAME && l->u.loc.child)
    op->loc = kr_loc_name(kr_op_context(op), l->u.loc.name, kr_ident_len(l->u.loc.name), NULL);
  return KR_WALK_ADVANCE;
}

/* ONNX IR.md "Names Within a Graph": every value name is assigned once: graph inputs,
 * initializers and node outputs are all distinct (an initializer may share its name with a graph
 * input: IR < 4 lists initializers among the inputs).  A second assignment would otherwise
 * silently win. */
static void check_single_assignment(kr_onnx_importer *I, const Onnx__GraphProto *g, kr_attr file_loc) {
  kr_hmap seen = {0};   /* ident -> kind + 1: 1 input, 2 initializer, 3 node output */
  static const char *const kinds[] = {"", "a graph input", "an initializer", "a node output"};
  for (int kind = 1; kind <= 3; kind++) {
    size_t n = kind == 1 ? g->n_input : kind == 2 ? g->n_initializer : g->n_node;
    for (size_t i = 0; i < n; i++) {
      size_t nout = kind == 3 ? g->node[i]->n_output : 1;
      for (size_t k = 0; k < nout; k++) {
        const char *nm = kind == 1 ? g->input[i]->name : kind == 2 ? g->initializer[i]->name : g->node[i]->output[k];
        if (kind == 3 && (!nm || !*nm)) continue;   /* an omitted optional output */
        if (!nm || !*nm) {
          kr_onnx_error(I, file_loc, "%s has an empty name", kinds[kind]);
          continue;
        }
        kr_ident id = kr_ident_cstr(I->ctx, nm);
        bool ins;
        kr_hmap_entry *e = kr_hmap_insert(&seen, kr_hash_ptr(id), id, &ins);
        if (ins) {
          e->value = (void *)(uintptr_t)kind;
          continue;
        }
        int prev = (int)(uintptr_t)e->value;
        if (prev == 1 && kind == 2) continue;
        kr_onnx_error(I, kr_loc_name(I->ctx, nm, strlen(nm), file_loc), "'%s' is defined twice: as %s and as %s", nm,
                      kinds[prev], kinds[kind]);
      }
    }
  }
  kr_hmap_free(&seen);
}

static int64_t default_opset(const Onnx__ModelProto *m, bool *found) {
  *found = false;
  int64_t v = 1;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) {
      v = o->has_version ? o->version : 1;
      *found = true;
    }
  }
  return v;
}

static kr_attr name_dict(kr_context *ctx, const char *name) {
  kr_named_attr na = {kr_ident_cstr(ctx, "onnx.name"), kr_attr_string(ctx, name, strlen(name))};
  return kr_attr_dict(ctx, &na, 1);
}

static void check_output_type(kr_onnx_importer *I, const Onnx__ValueInfoProto *vi, kr_value v, kr_attr loc) {
  declared d;
  if (!read_declared(I, vi, &d) || !d.elem) return;
  kr_type t = kr_value_type(v);
  if (t->kind != KR_TYPE_TENSOR) return;
  bool ok = t->u.shaped.elem == d.elem;
  if (ok && d.has_shape) {
    ok = d.rank == t->u.shaped.rank;
    for (unsigned i = 0; ok && i < d.rank; i++) ok = d.dims[i] == KR_DYNAMIC || d.dims[i] == t->u.shaped.dims[i];
  }
  if (!ok) {
    char *a = kr_type_to_cstr(t);
    char decl[400];
    size_t len = (size_t)snprintf(decl, sizeof decl, "%s [", kr_onnx_dtype_name(d.elem_code));
    for (unsigned i = 0; d.has_shape && i < d.rank && len < sizeof decl - 24; i++)
      len += (size_t)(d.dims[i] == KR_DYNAMIC ? snprintf(decl + len, sizeof decl - len, "%s?", i ? "," : "")
                                              : snprintf(decl + len, sizeof decl - len, "%s%lld", i ? "," : "",
                                                         (long long)d.dims[i]));
    snprintf(decl + len, sizeof decl - len, "]");
    kr_onnx_error(I, loc, "graph output '%s' is declared as %s but the imported graph computes '%s'", vi->name, decl, a);
    free(a);
  }
}

/* ---------------------------------------------------------------------------------------------
 * The driver. */

static kr_op *import_graph(kr_onnx_importer *I) {
  kr_context *ctx = I->ctx;
  const Onnx__ModelProto *mp = I->model->proto;
  const Onnx__GraphProto *g = mp->graph;
  kr_attr file_loc = kr_onnx_file_loc(ctx, I->path);

  bool found;
  I->opset = default_opset(mp, &found);
  if (I->opset > KR_ONNX_MAX_OPSET)
    kr_onnx_error(I, file_loc, "default-domain opset %lld is newer than %d, the newest korch imports",
                  (long long)I->opset, KR_ONNX_MAX_OPSET);
  if (found && I->opset < 1)
    kr_onnx_error(I, file_loc, "default-domain opset %lld is invalid (opsets start at 1)", (long long)I->opset);
  if (I->opset < 1) I->opset = 1;

  kr_region *body_region = kr_region_create(ctx);
  I->body = kr_block_create(ctx);
  kr_region_append_block(body_region, I->body);
  kr_builder_init(&I->b, ctx);
  kr_builder_set_insertion_point_to_end(&I->b, I->body);

  /* Options naming nothing. */
  for (unsigned i = 0; I->opts && i < I->opts->num_shapes + I->opts->num_bindings; i++) {
    bool shape = i < I->opts->num_shapes;
    const char *nm = shape ? I->opts->shapes[i].name : I->opts->bindings[i - I->opts->num_shapes].name;
    bool is_input = false;
    for (size_t k = 0; k < g->n_input && !is_input; k++) is_input = g->input[k]->name && !strcmp(g->input[k]->name, nm);
    if (!is_input)
      kr_onnx_error(I, file_loc, "%s %s: the model has no graph input named '%s'", shape ? "--input-shape" : "--bind-input",
                    nm, nm);
  }

  kr_hmap inits = {0};
  for (size_t i = 0; i < g->n_initializer; i++) {
    const char *nm = g->initializer[i]->name ? g->initializer[i]->name : "";
    kr_ident id = kr_ident_cstr(ctx, nm);
    bool ins;
    kr_hmap_insert(&inits, kr_hash_ptr(id), id, &ins)->value = g->initializer[i];
  }
  if (g->n_sparse_initializer)
    kr_onnx_error(I, file_loc, "sparse initializers are unsupported ('%s')",
                  g->sparse_initializer[0]->values && g->sparse_initializer[0]->values->name
                      ? g->sparse_initializer[0]->values->name
                      : "?");

  check_single_assignment(I, g, file_loc);

  /* Arguments and bound inputs. */
  kr_vec arg_attrs = {0}, arg_types = {0};
  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    const char *nm = vi->name ? vi->name : "";
    kr_attr loc = kr_loc_name(ctx, nm, strlen(nm), file_loc);
    const kr_onnx_binding *b = given_binding(I, nm);
    if (b) {
      kr_value v = bind_input(I, vi, b, loc);
      kr_onnx_define(I, nm, v ? v : KR_ONNX_POISON);
      continue;
    }
    kr_ident id = kr_ident_cstr(ctx, nm);
    if (kr_hmap_find(&inits, kr_hash_ptr(id), id)) continue;   /* a constant (IR < 4 lists them) */
    kr_type t = input_type(I, vi, loc);
    if (!t) {
      kr_onnx_define(I, nm, KR_ONNX_POISON);
      continue;
    }
    kr_value a = kr_block_add_arg(I->body, t, kr_loc_name(ctx, nm, strlen(nm), NULL));
    KR_VEC_PUSH(&I->arg_names, const char *, nm);
    KR_VEC_PUSH(&arg_types, kr_type, t);
    KR_VEC_PUSH(&arg_attrs, kr_attr, name_dict(ctx, nm));
    kr_onnx_define(I, nm, a);
  }

  /* Initializers. */
  for (size_t i = 0; i < g->n_initializer; i++) {
    Onnx__TensorProto *t = g->initializer[i];
    const char *nm = t->name ? t->name : "";
    if (given_binding(I, nm)) continue;
    kr_attr loc = kr_loc_name(ctx, nm, strlen(nm), file_loc);
    char what[300];
    snprintf(what, sizeof what, "initializer '%s'", nm);
    kr_attr value = kr_onnx_tensor_attr(ctx, loc, t, I->model->dir, I->threshold, nm, what);
    if (!value) {
      I->errors++;
      kr_onnx_define(I, nm, KR_ONNX_POISON);
      continue;
    }
    kr_onnx_define(I, nm, kr_onnx_const_attr(I, value, loc));
  }
  kr_hmap_free(&inits);

  /* Nodes. */
  size_t *order = malloc((g->n_node + 1) * sizeof *order);
  size_t placed = g->n_node;
  if (graph_is_sorted(I, g)) {
    for (size_t i = 0; i < g->n_node; i++) order[i] = i;
  } else {
    placed = topo_order(I, g, order);
  }
  for (size_t i = 0; i < placed; i++) kr_onnx_import_node(I, g->node[order[i]], (unsigned)order[i]);
  if (placed < g->n_node) {
    /* The nodes left wait on each other: a cycle. */
    bool *done = calloc(g->n_node + 1, sizeof *done);
    for (size_t i = 0; i < placed; i++) done[order[i]] = true;
    bool reported = false;
    for (size_t i = 0; i < g->n_node; i++) {
      if (done[i]) continue;
      const Onnx__NodeProto *np = g->node[i];
      /* What the cycle computes is undefined: its users are skipped quietly. */
      for (size_t k = 0; k < np->n_output; k++)
        if (np->output[k] && *np->output[k]) kr_onnx_define(I, np->output[k], KR_ONNX_POISON);
      if (reported) continue;
      reported = true;
      char nm[160];
      if (np->name && *np->name) snprintf(nm, sizeof nm, "%s", np->name);
      else snprintf(nm, sizeof nm, "%s_%zu", np->op_type ? np->op_type : "", i);
      kr_onnx_error(I, kr_loc_name(ctx, nm, strlen(nm), file_loc), "the graph has a cycle through node '%s' (%s)", nm,
                    np->op_type ? np->op_type : "");
    }
    free(done);
  }
  free(order);

  /* Outputs. */
  kr_vec outs = {0}, out_types = {0}, res_attrs = {0};
  for (size_t i = 0; i < g->n_output; i++) {
    const Onnx__ValueInfoProto *vi = g->output[i];
    const char *nm = vi->name ? vi->name : "";
    kr_attr loc = kr_loc_name(ctx, nm, strlen(nm), file_loc);
    kr_value v = kr_onnx_lookup(I, nm);
    if (!v) {
      kr_onnx_error(I, loc, "graph output '%s' is not produced by any node, initializer or graph input", nm);
      continue;
    }
    if (v == KR_ONNX_POISON) continue;
    check_output_type(I, vi, v, loc);
    KR_VEC_PUSH(&outs, kr_value, v);
    KR_VEC_PUSH(&out_types, kr_type, kr_value_type(v));
    KR_VEC_PUSH(&res_attrs, kr_attr, name_dict(ctx, nm));
  }

  kr_op *module = NULL;
  if (!I->errors) {
    kr_op_state st;
    kr_op_state_init(&st, ctx, "func.return", kr_loc_unknown(ctx));
    kr_op_state_add_operands(&st, KR_VEC_DATA(&outs, kr_value), (unsigned)outs.len);
    kr_builder_create(&I->b, &st);
    kr_op_state_free(&st);
    remove_dead_ops(I->body);

    kr_type fty = kr_type_function(ctx, KR_VEC_DATA(&arg_types, kr_type), (unsigned)arg_types.len,
                                   KR_VEC_DATA(&out_types, kr_type), (unsigned)out_types.len);
    kr_op_state_init(&st, ctx, "func.func", kr_loc_name(ctx, g->name ? g->name : "main", strlen(g->name ? g->name : "main"), NULL));
    kr_op_state_add_attr(&st, "sym_name", kr_attr_string(ctx, "main", 4));
    kr_op_state_add_attr(&st, "function_type", kr_attr_type(ctx, fty));
    if (arg_attrs.len)
      kr_op_state_add_attr(&st, "arg_attrs", kr_attr_array(ctx, KR_VEC_DATA(&arg_attrs, kr_attr), (unsigned)arg_attrs.len));
    if (res_attrs.len)
      kr_op_state_add_attr(&st, "res_attrs", kr_attr_array(ctx, KR_VEC_DATA(&res_attrs, kr_attr), (unsigned)res_attrs.len));
    KR_VEC_PUSH(&st.regions, kr_region *, body_region);
    kr_op *func = kr_op_create(&st);
    kr_op_state_free(&st);

    kr_op_state_init(&st, ctx, KR_MODULE_OP, kr_loc_name(ctx, I->path, strlen(I->path), NULL));
    kr_op_state_add_attr(&st, "onnx.opset", kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), I->opset));
    char producer[256];
    snprintf(producer, sizeof producer, "%s%s%s", mp->producer_name ? mp->producer_name : "",
             mp->producer_version && *mp->producer_version ? " " : "", mp->producer_version ? mp->producer_version : "");
    if (*producer) kr_op_state_add_attr(&st, "onnx.producer", kr_attr_string(ctx, producer, strlen(producer)));
    kr_region *mr = kr_op_state_add_region(&st);
    kr_block *mb = kr_block_create(ctx);
    kr_region_append_block(mr, mb);
    module = kr_op_create(&st);
    kr_op_state_free(&st);
    kr_block_append_op(kr_op_region(module, 0)->first, func);
    kr_op_walk(module, KR_WALK_PRE_ORDER, strip_loc, NULL);
    if (kr_op_verify(module)) {
      kr_op_erase(module);
      module = NULL;
    }
  } else {
    /* The body was never attached: drop it (its values may be used across ops, so references go
     * first). */
    for (kr_op *op = I->body->first; op; op = op->next) kr_op_drop_all_references(op);
    while (I->body->last) kr_op_erase(I->body->last);
  }
  kr_vec_free(&outs);
  kr_vec_free(&out_types);
  kr_vec_free(&res_attrs);
  kr_vec_free(&arg_attrs);
  kr_vec_free(&arg_types);
  return module;
}

kr_op *kr_onnx_import_file(kr_context *ctx, const char *path, const kr_onnx_import_options *opts) {
  kr_onnx_model model;
  if (kr_onnx_model_load(ctx, path, &model)) return NULL;
  kr_onnx_importer I;
  memset(&I, 0, sizeof I);
  I.ctx = ctx;
  I.path = path;
  I.model = &model;
  I.opts = opts;
  I.threshold = opts && opts->resource_threshold ? opts->resource_threshold : 1024;
  kr_op *module = import_graph(&I);
  kr_hmap_free(&I.values);
  kr_vec_free(&I.arg_names);
  kr_onnx_model_free(&model);
  return module;
}
