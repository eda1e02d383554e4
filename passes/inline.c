/* passes/inline.c - `inline`: inline calls to callables with a body (MLIR's Inliner pass).
 *
 * The nodes are the callable ops (KR_TRAIT_CALLABLE, e.g. func.func) directly in the regions of
 * the op the pass runs on that have a body; calls (KR_TRAIT_CALL ops with a `callee` symbol
 * reference, e.g. func.call) are the edges.  Strongly connected components are visited callees
 * first (Tarjan).  For each one, as in MLIR:
 *   1. nodes that are discardable (not public) and unreferenced are erased;
 *   2. up to max-iterations times: run default-pipeline (canonicalize by default) on each node,
 *      then inline every call in the component's nodes that may be inlined, including calls that
 *      inlining exposed; stop when nothing was inlined.  A callee left unreferenced and
 *      discardable after its last call was inlined is erased.
 * A call is inlined when the callee's body is a single block ending in a return-like terminator
 * and the types agree: the body is cloned before the call with the entry block arguments mapped
 * to the call operands, each cloned op's location becomes callsite(its location at the call's),
 * and the call's results are replaced with the returned values.
 *
 * Differences from MLIR, by design: callees with several blocks are not inlined (korch has no
 * branch ops to stitch them in); a callee that is part of a call cycle (recursive, directly or
 * not) is never inlined, where MLIR would unroll mutually recursive calls a few times; every op
 * may be inlined (MLIR asks each dialect's inliner interface); only callables directly in the
 * op's regions are nodes. */
#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"
#include "passes/pass_impl.h"

typedef struct inline_options {
  const char *default_pipeline;
  uint64_t max_iterations;
} inline_options;

static const kr_pass_option inline_options_table[] = {
  {"default-pipeline", KR_OPT_STRING, offsetof(inline_options, default_pipeline), "canonicalize",
   "The optimizer pipeline run on each callable before and after inlining into it"},
  {"max-iterations", KR_OPT_UINT, offsetof(inline_options, max_iterations), "4",
   "Maximum number of simplify-and-inline rounds per strongly connected component"},
};

typedef struct node {
  kr_op *op;
  kr_vec edges;     /* size_t: callee node indices */
  size_t uses;      /* symbol references to this node anywhere in the root */
  int scc;
  bool in_cycle, erased;
  int index, low;   /* Tarjan */
  bool on_stack;
} node;

typedef struct inliner {
  kr_context *ctx;
  kr_op *root;
  const inline_options *o;
  node *nodes;
  size_t n;
  kr_hmap node_of;     /* kr_op* -> index + 1 */
  kr_symbol_table syms;   /* the root's symbols, hashed (erased nodes stay in it, flagged) */
  kr_vec scc_order;    /* size_t node indices, grouped by SCC, callees first */
  kr_vec scc_start;    /* size_t: start of each SCC in scc_order */
  kr_vec tstack;       /* Tarjan stack */
  int next_index;
  kr_vec pms;          /* kr_pass_manager *: default pipelines, one per callable op name */
  bool changed;
} inliner;

static size_t node_index(inliner *in, kr_op *op) {
  kr_hmap_entry *e = kr_hmap_find(&in->node_of, kr_hash_ptr(op), op);
  return e ? (size_t)(uintptr_t)e->value - 1 : (size_t)-1;
}

static bool is_call(kr_op *op) {
  if (!kr_op_has_trait(op, KR_TRAIT_CALL)) return false;
  kr_attr c = kr_op_get_attr(op, "callee");
  return c && c->kind == KR_ATTR_SYMBOL_REF;
}

/* The node a call refers to, or -1.  Nodes are direct children of the root, so only a flat
 * reference resolved in the root's table can name one. */
static size_t call_target(inliner *in, kr_op *call) {
  kr_attr ref = kr_op_get_attr(call, "callee");
  if (ref->u.symref.num_nested) return (size_t)-1;
  kr_op *t = kr_symbol_table_of(call) == in->root ? kr_symbol_table_lookup(&in->syms, ref->u.symref.root)
                                                  : kr_symbol_lookup(call, ref);
  return t ? node_index(in, t) : (size_t)-1;
}

/* Adds `delta` to the use count of every node `op` (and the ops nested in it, not entering other
 * symbol tables) refers to. */
static void count_refs(inliner *in, kr_op *op, int delta) {
  kr_vec refs = {0};
  kr__collect_symbol_refs(op->attrs, &refs);
  for (size_t i = 0; i < refs.len; i++) {
    kr_attr r = KR_VEC_AT(&refs, kr_attr, i);
    kr_op *t = kr_symbol_table_lookup(&in->syms, r->u.symref.root);
    size_t k = t ? node_index(in, t) : (size_t)-1;
    if (k != (size_t)-1) in->nodes[k].uses += (size_t)(ptrdiff_t)delta;
  }
  kr_vec_free(&refs);
  if (op != in->root && kr_op_has_trait(op, KR_TRAIT_SYMBOL_TABLE)) return;
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next) count_refs(in, o, delta);
}

static void collect_calls(kr_op *op, kr_vec *out) {
  if (is_call(op)) KR_VEC_PUSH(out, kr_op *, op);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next) collect_calls(o, out);
}

static bool is_discardable(kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "sym_visibility");
  return v && v->kind == KR_ATTR_STRING &&
         (strcmp(v->u.string.str, "private") == 0 || strcmp(v->u.string.str, "nested") == 0);
}

static void erase_node(inliner *in, size_t k) {
  node *nd = &in->nodes[k];
  count_refs(in, nd->op, -1);
  kr_op_drop_all_references(nd->op);
  kr_op_erase(nd->op);
  nd->erased = true;
  in->changed = true;
}

/* --- graph ----------------------------------------------------------------------------------- */

static void tarjan(inliner *in, size_t v) {
  node *nv = &in->nodes[v];
  nv->index = nv->low = in->next_index++;
  KR_VEC_PUSH(&in->tstack, size_t, v);
  nv->on_stack = true;
  for (size_t i = 0; i < nv->edges.len; i++) {
    size_t w = KR_VEC_AT(&nv->edges, size_t, i);
    node *nw = &in->nodes[w];
    if (w == v) nv->in_cycle = true;
    if (nw->index < 0) {
      tarjan(in, w);
      if (nw->low < nv->low) nv->low = nw->low;
    } else if (nw->on_stack && nw->index < nv->low) {
      nv->low = nw->index;
    }
  }
  if (nv->low != nv->index) return;
  int id = (int)in->scc_start.len;
  KR_VEC_PUSH(&in->scc_start, size_t, in->scc_order.len);
  size_t first = in->scc_order.len;
  for (;;) {
    size_t w = KR_VEC_AT(&in->tstack, size_t, --in->tstack.len);
    in->nodes[w].on_stack = false;
    in->nodes[w].scc = id;
    KR_VEC_PUSH(&in->scc_order, size_t, w);
    if (w == v) break;
  }
  /* Keep the members in module order. */
  size_t *m = &KR_VEC_AT(&in->scc_order, size_t, first);
  size_t cnt = in->scc_order.len - first;
  for (size_t i = 1; i < cnt; i++)
    for (size_t j = i; j > 0 && m[j - 1] > m[j]; j--) {
      size_t t = m[j];
      m[j] = m[j - 1];
      m[j - 1] = t;
    }
  if (cnt > 1)
    for (size_t i = 0; i < cnt; i++) in->nodes[m[i]].in_cycle = true;
}

static kr_status build_graph(inliner *in) {
  kr_vec ops = {0};
  for (uint32_t r = 0; r < in->root->num_regions; r++)
    for (kr_block *b = in->root->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next)
        if (kr_op_has_trait(o, KR_TRAIT_CALLABLE) && o->num_regions > 0 && o->regions[0].first)
          KR_VEC_PUSH(&ops, kr_op *, o);
  in->n = ops.len;
  in->nodes = calloc(in->n ? in->n : 1, sizeof(node));
  if (!in->nodes) {
    kr_vec_free(&ops);
    return kr_emit_error(in->ctx, in->root->loc, "out of memory");
  }
  bool ins;
  for (size_t i = 0; i < in->n; i++) {
    in->nodes[i].op = KR_VEC_AT(&ops, kr_op *, i);
    in->nodes[i].index = -1;
    kr_hmap_insert(&in->node_of, kr_hash_ptr(in->nodes[i].op), in->nodes[i].op, &ins)->value =
        (void *)(uintptr_t)(i + 1);
  }
  kr_vec_free(&ops);
  kr_symbol_table_init(&in->syms, in->root);
  count_refs(in, in->root, +1);
  for (size_t i = 0; i < in->n; i++) {
    kr_vec calls = {0};
    collect_calls(in->nodes[i].op, &calls);
    for (size_t c = 0; c < calls.len; c++) {
      size_t t = call_target(in, KR_VEC_AT(&calls, kr_op *, c));
      if (t != (size_t)-1) KR_VEC_PUSH(&in->nodes[i].edges, size_t, t);
    }
    kr_vec_free(&calls);
  }
  for (size_t i = 0; i < in->n; i++)
    if (in->nodes[i].index < 0) tarjan(in, i);
  return KR_SUCCESS;
}

/* --- inlining one call ----------------------------------------------------------------------- */

static bool can_inline(inliner *in, kr_op *call, size_t src, size_t t) {
  if (t == (size_t)-1 || in->nodes[t].erased || t == src) return false;
  node *nt = &in->nodes[t];
  if (nt->in_cycle || nt->scc == in->nodes[src].scc) return false;
  /* A kernel launch is orchestration's decision (one kernel.func = one GPU kernel): inlining it
   * would undo the kernel boundary, so only func.call sites are candidates. */
  if (strcmp(call->name, "func.call") != 0) return false;
  kr_region *body = &nt->op->regions[0];
  if (!body->first || body->first->next) return false;   /* several blocks: see the file comment */
  kr_block *b = body->first;
  kr_op *term = b->last;
  if (!term || !kr_op_has_trait(term, KR_TRAIT_RETURN_LIKE)) return false;
  if (b->num_args != call->num_operands || term->num_operands != call->num_results) return false;
  for (uint32_t i = 0; i < b->num_args; i++)
    if (kr_value_type(b->args[i]) != kr_value_type(kr_op_operand(call, i))) return false;
  for (uint32_t i = 0; i < call->num_results; i++)
    if (kr_value_type(kr_op_operand(term, i)) != kr_value_type(kr_op_result(call, i))) return false;
  return true;
}

static void remap_locs(kr_context *ctx, kr_op *op, kr_attr call_loc) {
  op->loc = kr_loc_callsite(ctx, op->loc, call_loc);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kr_block *b = op->regions[r].first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next) remap_locs(ctx, o, call_loc);
}

/* Inlines `call` (in node `src`) into its place; new calls go to `calls`/`srcs`. */
static void inline_call(inliner *in, kr_op *call, size_t src, size_t t, kr_vec *calls, kr_vec *srcs) {
  kr_block *b = in->nodes[t].op->regions[0].first;
  kr_hmap map = {0};
  bool ins;
  for (uint32_t i = 0; i < b->num_args; i++)
    kr_hmap_insert(&map, kr_hash_ptr(b->args[i]), b->args[i], &ins)->value = kr_op_operand(call, i);
  for (kr_op *o = b->first; o && o != b->last; o = o->next) {
    kr_op *c = kr_op_clone(o, &map);
    remap_locs(in->ctx, c, call->loc);
    kr_op_insert_before(c, call);
    count_refs(in, c, +1);
    size_t before = calls->len;
    collect_calls(c, calls);
    for (size_t k = before; k < calls->len; k++) KR_VEC_PUSH(srcs, size_t, src);
  }
  kr_op *term = b->last;
  for (uint32_t i = 0; i < call->num_results; i++) {
    kr_value v = kr_op_operand(term, i);
    kr_hmap_entry *e = kr_hmap_find(&map, kr_hash_ptr(v), v);
    kr_value_replace_all_uses(kr_op_result(call, i), e ? (kr_value)e->value : v);
  }
  kr_hmap_free(&map);
  count_refs(in, call, -1);
  kr_op_erase(call);
  in->changed = true;
  if (in->nodes[t].uses == 0 && is_discardable(in->nodes[t].op)) erase_node(in, t);
}

static bool inline_scc(inliner *in, const size_t *members, size_t cnt) {
  kr_vec calls = {0}, srcs = {0};
  for (size_t i = 0; i < cnt; i++) {
    size_t k = members[i];
    if (in->nodes[k].erased) continue;
    size_t before = calls.len;
    collect_calls(in->nodes[k].op, &calls);
    for (size_t c = before; c < calls.len; c++) KR_VEC_PUSH(&srcs, size_t, k);
  }
  bool any = false;
  for (size_t i = 0; i < calls.len; i++) {
    kr_op *call = KR_VEC_AT(&calls, kr_op *, i);
    size_t src = KR_VEC_AT(&srcs, size_t, i);
    size_t t = call_target(in, call);
    if (!can_inline(in, call, src, t)) continue;
    inline_call(in, call, src, t, &calls, &srcs);
    any = true;
  }
  kr_vec_free(&calls);
  kr_vec_free(&srcs);
  return any;
}

/* --- the default pipeline -------------------------------------------------------------------- */

static kr_status optimize(inliner *in, kr_op *op) {
  const char *text = in->o->default_pipeline;
  if (!text || !*text) return KR_SUCCESS;
  kr_pass_manager *pm = NULL;
  for (size_t i = 0; i < in->pms.len; i++)
    if (KR_VEC_AT(&in->pms, kr_pass_manager *, i)->anchor == op->name) pm = KR_VEC_AT(&in->pms, kr_pass_manager *, i);
  if (!pm) {
    pm = kr_pass_manager_create(in->ctx, op->name);
    if (!pm) return kr_emit_error(in->ctx, op->loc, "out of memory");
    KR_VEC_PUSH(&in->pms, kr_pass_manager *, pm);
    /* The inliner's own verification covers the result. */
    kr_pass_manager_set_verify_each(pm, false);
    if (KR_FAILED(kr_pass_manager_parse_pipeline(pm, text)))
      return kr_emit_error(in->ctx, op->loc, "invalid default-pipeline '%s' for the inliner", text);
  }
  in->changed = true;   /* the pipeline may change anything: let fingerprinting decide */
  return kr_pass_manager_run(pm, op);
}

/* Checks default-pipeline up front, so a bad one fails the pass even when nothing gets inlined
 * (the managers optimize() uses are built lazily, per callable op name). */
static kr_status check_default_pipeline(kr_op *root, const char *text) {
  if (!text || !*text) return KR_SUCCESS;
  kr_context *ctx = kr_op_context(root);
  kr_pass_manager *pm = kr_pass_manager_create(ctx, "func.func");
  if (!pm) return kr_emit_error(ctx, root->loc, "out of memory");
  kr_status st = kr_pass_manager_parse_pipeline(pm, text);
  kr_pass_manager_destroy(pm);
  if (KR_FAILED(st)) return kr_emit_error(ctx, root->loc, "invalid default-pipeline '%s' for the inliner", text);
  return KR_SUCCESS;
}

static kr_status inline_run(kr_op *op, const void *options, kr_pass_run *run) {
  const inline_options *o = options;
  if (KR_FAILED(check_default_pipeline(op, o->default_pipeline))) return KR_FAILURE;
  inliner in;
  memset(&in, 0, sizeof in);
  in.ctx = kr_op_context(op);
  in.root = op;
  in.o = options;
  kr_status st = build_graph(&in);
  for (size_t s = 0; s < in.scc_start.len && !KR_FAILED(st); s++) {
    size_t start = KR_VEC_AT(&in.scc_start, size_t, s);
    size_t end = s + 1 < in.scc_start.len ? KR_VEC_AT(&in.scc_start, size_t, s + 1) : in.scc_order.len;
    const size_t *members = &KR_VEC_AT(&in.scc_order, size_t, start);
    size_t cnt = end - start;
    for (size_t i = 0; i < cnt; i++) {
      node *nd = &in.nodes[members[i]];
      if (!nd->erased && nd->uses == 0 && is_discardable(nd->op)) erase_node(&in, members[i]);
    }
    for (uint64_t it = 0; it < in.o->max_iterations && !KR_FAILED(st); it++) {
      for (size_t i = 0; i < cnt && !KR_FAILED(st); i++)
        if (!in.nodes[members[i]].erased) st = optimize(&in, in.nodes[members[i]].op);
      if (KR_FAILED(st) || !inline_scc(&in, members, cnt)) break;
    }
  }
  for (size_t i = 0; i < in.n; i++) kr_vec_free(&in.nodes[i].edges);
  free(in.nodes);
  kr_hmap_free(&in.node_of);
  kr_symbol_table_free(&in.syms);
  kr_vec_free(&in.scc_order);
  kr_vec_free(&in.scc_start);
  kr_vec_free(&in.tstack);
  for (size_t i = 0; i < in.pms.len; i++) kr_pass_manager_destroy(KR_VEC_AT(&in.pms, kr_pass_manager *, i));
  kr_vec_free(&in.pms);
  if (!in.changed) kr_pass_run_mark_unchanged(run);
  return st;
}

const kr_pass_def kr_inline_pass = {
  .argument = "inline",
  .summary = "Inline function calls",
  .options_size = sizeof(inline_options),
  .options = inline_options_table,
  .num_options = sizeof(inline_options_table) / sizeof(inline_options_table[0]),
  .run = inline_run,
  .display_name = "Inliner",
};
