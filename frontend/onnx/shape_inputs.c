/* frontend/onnx/shape_inputs.c - kr_onnx_graph_inputs (the graph's inputs by name) and
 * kr_onnx_shape_inputs: the graph inputs whose *values* decide a shape.  Starting at every shape operand (`#` in ops.def: Reshape's shape, Slice's starts/ends/
 * axes/steps, Resize's roi/scales/sizes, Expand's shape, ...), the walk goes backwards through
 * the producing nodes to the graph inputs, except through Shape and Size, which read only their
 * operand's (static) type.  Older node forms whose shape operands sit elsewhere are covered:
 * Tile-1's tiles and axis inputs. */
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

typedef struct walk {
  kr_context *ctx;
  const Onnx__GraphProto *g;
  kr_hmap producer;   /* ident -> node index + 1 */
  kr_hmap seen;       /* ident */
  kr_hmap hit;        /* ident of graph inputs reached */
  kr_vec stack;       /* const char * */
} walk;

static kr_ident id_of(walk *w, const char *s) { return kr_ident_cstr(w->ctx, s); }

static void push(walk *w, const char *name) {
  if (!name || !*name) return;
  kr_ident id = id_of(w, name);
  bool ins;
  kr_hmap_insert(&w->seen, kr_hash_ptr(id), id, &ins);
  if (ins) KR_VEC_PUSH(&w->stack, const char *, name);
}

static bool is_shape_operand(const Onnx__NodeProto *np, int64_t opset, const kr_op_schema *s, size_t i) {
  if (!strcmp(np->op_type, "Tile") && opset < 6) return i >= 1;
  if (!s || !s->num_operands) return false;
  const kr_op_operand_spec *o = i < s->num_operands ? &s->operands[i] : &s->operands[s->num_operands - 1];
  if (i >= s->num_operands && !o->variadic) return false;
  return o->shape || o->static_value;
}

/* The graph inputs that are not initializers (IR < 4 lists initializers among the inputs; they
 * are constants), in graph order, restricted to the names in `only` when it is not NULL.  A
 * malloc'd array of malloc'd strings, NULL when out of memory. */
static char **collect_inputs(kr_context *ctx, const Onnx__GraphProto *g, kr_hmap *only, unsigned *count) {
  kr_hmap inits = {0};
  for (size_t i = 0; i < g->n_initializer; i++) {
    kr_ident id = kr_ident_cstr(ctx, g->initializer[i]->name ? g->initializer[i]->name : "");
    bool ins;
    kr_hmap_insert(&inits, kr_hash_ptr(id), id, &ins);
  }
  char **out = calloc(g->n_input + 1, sizeof *out);
  unsigned n = 0;
  for (size_t i = 0; out && i < g->n_input; i++) {
    const char *nm = g->input[i]->name ? g->input[i]->name : "";
    kr_ident id = kr_ident_cstr(ctx, nm);
    if ((!only || kr_hmap_find(only, kr_hash_ptr(id), id)) && !kr_hmap_find(&inits, kr_hash_ptr(id), id))
      out[n++] = strdup(nm);
  }
  kr_hmap_free(&inits);
  *count = n;
  return out;
}

kr_status kr_onnx_graph_inputs(kr_context *ctx, const char *path, char ***names, unsigned *count) {
  *names = NULL;
  *count = 0;
  kr_onnx_model m;
  if (kr_onnx_model_load(ctx, path, &m)) return KR_FAILURE;
  unsigned n = 0;
  char **out = collect_inputs(ctx, m.proto->graph, NULL, &n);
  kr_onnx_model_free(&m);
  if (!out) return kr_emit_error(ctx, kr_onnx_file_loc(ctx, path), "out of memory");
  *names = out;
  *count = n;
  return KR_SUCCESS;
}

kr_status kr_onnx_shape_inputs(kr_context *ctx, const char *path, char ***names, unsigned *count) {
  unsigned n = 0;
  *names = NULL;
  *count = 0;
  kr_onnx_model m;
  if (kr_onnx_model_load(ctx, path, &m)) return KR_FAILURE;
  const Onnx__GraphProto *g = m.proto->graph;
  int64_t opset = 1;
  for (size_t i = 0; i < m.proto->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m.proto->opset_import[i];
    if ((!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) && o->has_version) opset = o->version;
  }
  walk w;
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.g = g;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t k = 0; k < g->node[i]->n_output; k++) {
      const char *o = g->node[i]->output[k];
      if (!o || !*o) continue;
      kr_ident id = id_of(&w, o);
      bool ins;
      kr_hmap_insert(&w.producer, kr_hash_ptr(id), id, &ins)->value = (void *)(uintptr_t)(i + 1);
    }
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *np = g->node[i];
    if (!np->op_type) continue;
    const kr_op_schema *s = kr_op_schema_by_onnx_name(ctx, np->op_type);
    for (size_t k = 0; k < np->n_input; k++)
      if (is_shape_operand(np, opset, s, k)) push(&w, np->input[k]);
  }
  while (w.stack.len) {
    const char *nm = KR_VEC_AT(&w.stack, const char *, --w.stack.len);
    kr_ident id = id_of(&w, nm);
    kr_hmap_entry *e = kr_hmap_find(&w.producer, kr_hash_ptr(id), id);
    if (!e) {
      bool ins;
      kr_hmap_insert(&w.hit, kr_hash_ptr(id), id, &ins);
      continue;
    }
    const Onnx__NodeProto *np = g->node[(size_t)(uintptr_t)e->value - 1];
    if (np->op_type && (!strcmp(np->op_type, "Shape") || !strcmp(np->op_type, "Size"))) continue;
    for (size_t k = 0; k < np->n_input; k++) push(&w, np->input[k]);
  }
  char **out = collect_inputs(ctx, g, &w.hit, &n);
  kr_hmap_free(&w.producer);
  kr_hmap_free(&w.seen);
  kr_hmap_free(&w.hit);
  kr_vec_free(&w.stack);
  kr_onnx_model_free(&m);
  if (!out) return kr_emit_error(ctx, kr_onnx_file_loc(ctx, path), "out of memory");
  *names = out;
  *count = n;
  return KR_SUCCESS;
}
