/* passes/orchestrate/emit.c - the kernel level (Korch, ASPLOS'24, §5: the selected kernels are
 * what runs): one `kernel.func` per chosen candidate and a host function of `kernel.launch` ops.
 *
 * For a chosen candidate of function @f, the n-th launched (n counts over all regions of @f; N
 * the n-th number whose name is free, kr_orch_kernel_name):
 *   kernel.func @f_kN(%args) -> (written tensors) attributes {korch.kind, korch.hash,
 *       korch.cost_us, korch.recomputed?} { clones of its primitives in block order;
 *       kernel.return <written tensors in node order> }
 * Its arguments are its external inputs, in order of first use by its primitives (in block
 * order, operands in order): function arguments, constants that are not small, and tensors that
 * earlier kernels wrote.  Small constants (a splat, or at most KR_ORCH_SMALL_CONSTANT elements,
 * dense only) are cloned into the body instead.  The kernel.func is inserted in the module just
 * before the host function, and its kernel.launch just before the host function's terminator,
 * in launch order; a tensor several launched kernels write is taken from the first one.  The
 * host function's primitives are then erased, and the constants nothing uses any more.  Cloned
 * primitives keep their locations; a kernel.func and its launch take the location of the
 * candidate's last primitive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "passes/orchestrate/orch.h"
#include "passes/orchestrate/report.h"

#define KR_ORCH_SMALL_CONSTANT 16

/* Whether constant op `c` is small enough to clone into every kernel that reads it. */
static bool small_constant(kr_op *c) {
  kr_attr v = kr_op_get_attr(c, "value");
  if (!v || v->kind != KR_ATTR_DENSE) return false;
  return v->u.dense.splat || kr_type_num_elements(v->type) <= KR_ORCH_SMALL_CONSTANT;
}

static bool is_prim_constant(kr_op *op) { return op && !strcmp(op->name, KR_PRIM_CONSTANT_OP); }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Kernel names: "<f>_k<N>" with N the n-th number (from 0) whose name no other symbol of the
 * module holds, so an existing @f_k0 (a user's function, say) makes the kernels @f_k1, @f_k2, ...
 * The taken numbers are those of the module's symbols spelt "<f>_k<decimal digits, no leading
 * zero>", so the names depend on the module's text only.  The report and the picture (report.c)
 * name kernels through this function before emission, and kr_orch_emit computes all names
 * before it inserts any kernel, so all three agree. */
void kr_orch_kernel_name(const kr_orch_graph *g, unsigned n, char *buf, size_t cap) {
  kr_ident f = kr_op_symbol_name(g->func);
  if (!f) f = "f";
  size_t fl = strlen(f);
  kr_vec taken = {0};
  kr_op *module = kr_op_parent_op(g->func);
  kr_block *mb = module && module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next) {
    kr_ident s = op == g->func ? NULL : kr_op_symbol_name(op);
    if (!s || strncmp(s, f, fl) != 0 || s[fl] != '_' || s[fl + 1] != 'k') continue;
    const char *d = s + fl + 2;
    size_t nd = strspn(d, "0123456789");
    if (nd == 0 || d[nd] || nd > 18 || (nd > 1 && d[0] == '0')) continue;
    KR_VEC_PUSH(&taken, uint64_t, strtoull(d, NULL, 10));
  }
  uint64_t num = n;
  if (taken.len) {
    qsort(taken.data, taken.len, sizeof(uint64_t), cmp_u64);
    for (size_t i = 0; i < taken.len; i++) {
      uint64_t t = KR_VEC_AT(&taken, uint64_t, i);
      if (i && t == KR_VEC_AT(&taken, uint64_t, i - 1)) continue;
      if (t <= num) num++;
    }
  }
  kr_vec_free(&taken);
  snprintf(buf, cap, "%s_k%llu", f, (unsigned long long)num);
}

static void map_put(kr_hmap *m, const void *key, void *value) {
  kr_hmap_insert(m, kr_hash_ptr(key), key, NULL)->value = value;
}

static void *map_get(const kr_hmap *m, const void *key) {
  kr_hmap_entry *e = kr_hmap_find(m, kr_hash_ptr(key), key);
  return e ? e->value : NULL;
}

/* The global node index + 1 of the node whose tensor is `v` (0: not a node). */
static unsigned node_of(const kr_hmap *node_index, kr_value v) {
  return (unsigned)(uintptr_t)map_get(node_index, v);
}

typedef struct emit_state {
  kr_context *ctx;
  kr_orch_graph *g;
  kr_op *module, *term;
  kr_hmap node_index;          /* node tensor (kr_value) -> global index + 1 */
  kr_value *host;              /* per global node: its value in the host function, or NULL */
  char (*names)[256];          /* per kernel in launch order: its name (kr_orch_kernel_name) */
  unsigned next_kernel;
} emit_state;

/* Whether the node of region r whose op defines `v` is in candidate c (a linear scan of c's
 * nodes: candidates are small). */
static bool in_candidate(const kr_orch_graph *g, const kr_candidate *c, kr_value v) {
  kr_op *d = kr_value_defining_op(v);
  if (!d) return false;
  unsigned first = g->regions[c->region].first, size = g->regions[c->region].n;
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->nodes, u) && g->nodes[first + u].op == d) return true;
  return false;
}

kr_op *kr_orch_kernel_func(const kr_orch_graph *g, const kr_candidate *c, const char *name,
                           const unsigned *times_computed, kr_vec *inputs) {
  unsigned r = c->region, first = g->regions[r].first, size = g->regions[r].n;
  kr_context *ctx = kr_op_context(g->func);
  kr_vec small = {0};      /* kr_op *: small constants to clone */
  kr_vec rtypes = {0}, atypes = {0}, rets = {0}, recomputed = {0};
  kr_hmap map = {0};
  kr_op_state st_f, st_r;
  kr_op *last = NULL;
  unsigned count = 0;
  inputs->len = 0;
  for (unsigned u = 0; u < size; u++) {
    if (!kr_bits_test(&c->nodes, u)) continue;
    kr_op *op = g->nodes[first + u].op;
    last = op;
    for (unsigned i = 0; i < op->num_operands; i++) {
      kr_value v = kr_op_operand(op, i);
      if (in_candidate(g, c, v)) continue;
      kr_op *d = kr_value_defining_op(v);
      if (is_prim_constant(d) && small_constant(d)) {
        bool seen = false;
        for (size_t q = 0; q < small.len && !seen; q++) seen = KR_VEC_AT(&small, kr_op *, q) == d;
        if (!seen) KR_VEC_PUSH(&small, kr_op *, d);
        continue;
      }
      bool seen = false;
      for (size_t q = 0; q < inputs->len && !seen; q++) seen = KR_VEC_AT(inputs, kr_value, q) == v;
      if (seen) continue;
      KR_VEC_PUSH(inputs, kr_value, v);
      KR_VEC_PUSH(&atypes, kr_type, kr_value_type(v));
    }
    if (times_computed && times_computed[u] > 1) KR_VEC_PUSH(&recomputed, int64_t, (int64_t)count);
    count++;
  }
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->writes, u)) KR_VEC_PUSH(&rtypes, kr_type, kr_value_type(kr_op_result(g->nodes[first + u].op, 0)));

  kr_attr loc = last->loc;
  kr_type fty = kr_type_function(ctx, KR_VEC_DATA(&atypes, kr_type), (unsigned)atypes.len, KR_VEC_DATA(&rtypes, kr_type),
                                 (unsigned)rtypes.len);
  kr_op_state_init(&st_f, ctx, "kernel.func", loc);
  kr_op_state_add_attr(&st_f, "sym_name", kr_attr_string(ctx, name, strlen(name)));
  kr_op_state_add_attr(&st_f, "function_type", kr_attr_type(ctx, fty));
  const char *kind = kr_kernel_kind_name(c->kind);
  kr_op_state_add_attr(&st_f, "korch.kind", kr_attr_string(ctx, kind, strlen(kind)));
  char hash[32];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)c->hash);
  kr_op_state_add_attr(&st_f, "korch.hash", kr_attr_string(ctx, hash, strlen(hash)));
  kr_op_state_add_attr(&st_f, "korch.cost_us", kr_attr_float(ctx, kr_type_float(ctx, KR_F64), c->cost_us));
  if (recomputed.len)
    kr_op_state_add_attr(&st_f, "korch.recomputed",
                         kr_attr_dense_array(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), recomputed.data,
                                             (unsigned)recomputed.len));
  kr_region *body = kr_op_state_add_region(&st_f);
  kr_block *b = kr_block_create(ctx);
  kr_region_append_block(body, b);
  for (size_t q = 0; q < inputs->len; q++) {
    kr_value v = KR_VEC_AT(inputs, kr_value, q);
    kr_value a = kr_block_add_arg(b, kr_value_type(v), loc);
    map_put(&map, v, a);
  }
  for (size_t q = 0; q < small.len; q++) kr_block_append_op(b, kr_op_clone(KR_VEC_AT(&small, kr_op *, q), &map));
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->nodes, u)) kr_block_append_op(b, kr_op_clone(g->nodes[first + u].op, &map));
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->writes, u)) {
      kr_value v = map_get(&map, kr_op_result(g->nodes[first + u].op, 0));
      KR_VEC_PUSH(&rets, kr_value, v);
    }
  kr_op_state_init(&st_r, ctx, "kernel.return", loc);
  kr_op_state_add_operands(&st_r, KR_VEC_DATA(&rets, kr_value), (unsigned)rets.len);
  kr_block_append_op(b, kr_op_create(&st_r));
  kr_op *kf = kr_op_create(&st_f);
  kr_op_state_free(&st_f);
  kr_op_state_free(&st_r);
  kr_vec_free(&small);
  kr_vec_free(&rtypes);
  kr_vec_free(&atypes);
  kr_vec_free(&rets);
  kr_vec_free(&recomputed);
  kr_hmap_free(&map);
  return kf;
}

static kr_status emit_kernel(emit_state *s, unsigned r, const kr_candidate *c, const unsigned *times_computed) {
  kr_orch_graph *g = s->g;
  kr_context *ctx = s->ctx;
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  kr_status st = KR_FAILURE;
  kr_vec inputs = {0};     /* kr_value: what the body reads (the original values) */
  kr_vec ext = {0};        /* kr_value: the same inputs on the host side */
  kr_vec rtypes = {0};
  kr_op_state st_l;
  bool l_init = false;

  /* The host values first: an input no earlier kernel wrote is an internal error, reported
   * before anything is built. */
  for (unsigned u = 0; u < size; u++) {
    if (!kr_bits_test(&c->nodes, u)) continue;
    kr_op *op = g->nodes[first + u].op;
    for (unsigned i = 0; i < op->num_operands; i++) {
      unsigned p = node_of(&s->node_index, kr_op_operand(op, i));
      if (p && !(p - 1 >= first && p - 1 < first + size && kr_bits_test(&c->nodes, p - 1 - first)) && !s->host[p - 1]) {
        kr_op_emit_error(op, "orchestration: internal error: an operand of this primitive is not written by an "
                             "earlier kernel");
        goto done;
      }
    }
  }
  const char *name = s->names[s->next_kernel++];
  kr_ident sym = kr_ident_cstr(ctx, name);
  if (kr_symbol_lookup_in(s->module, sym)) {
    kr_op_emit_error(g->func, "orchestration: the kernel name '@%s' is already a symbol of the module", name);
    goto done;
  }
  kr_op *kf = kr_orch_kernel_func(g, c, name, times_computed, &inputs);
  kr_op_insert_before(kf, g->func);
  for (size_t q = 0; q < inputs.len; q++) {
    kr_value v = KR_VEC_AT(&inputs, kr_value, q);
    unsigned p = node_of(&s->node_index, v);
    KR_VEC_PUSH(&ext, kr_value, p ? s->host[p - 1] : v);
  }
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->writes, u)) KR_VEC_PUSH(&rtypes, kr_type, kr_value_type(kr_op_result(g->nodes[first + u].op, 0)));

  kr_op_state_init(&st_l, ctx, "kernel.launch", kf->loc);
  l_init = true;
  kr_op_state_add_attr(&st_l, "callee", kr_attr_symbol_ref(ctx, name, NULL, 0));
  kr_op_state_add_operands(&st_l, KR_VEC_DATA(&ext, kr_value), (unsigned)ext.len);
  kr_op_state_add_results(&st_l, KR_VEC_DATA(&rtypes, kr_type), (unsigned)rtypes.len);
  kr_op *launch = kr_op_create(&st_l);
  kr_op_insert_before(launch, s->term);
  unsigned ri = 0;
  for (unsigned u = 0; u < size; u++)
    if (kr_bits_test(&c->writes, u)) {
      if (!s->host[first + u]) s->host[first + u] = kr_op_result(launch, ri);
      ri++;
    }
  st = KR_SUCCESS;
done:
  if (l_init) kr_op_state_free(&st_l);
  kr_vec_free(&inputs);
  kr_vec_free(&ext);
  kr_vec_free(&rtypes);
  return st;
}

kr_status kr_orch_emit(kr_orch_graph *g, kr_vec *cands_per_region, const kr_orch_plan *plans) {
  kr_op *func = g->func;
  kr_context *ctx = kr_op_context(func);
  kr_block *body = func->regions[0].first;
  emit_state s = {.ctx = ctx, .g = g, .module = kr_op_parent_op(func), .term = body ? kr_block_terminator(body) : NULL};
  if (!s.module || !s.term) return kr_op_emit_error(func, "orchestration: expected a function with a body in a module");
  s.host = calloc(g->num_nodes + 1, sizeof *s.host);
  unsigned maxn = 0;
  for (unsigned r = 0; r < g->num_regions; r++)
    if (g->regions[r].n > maxn) maxn = g->regions[r].n;
  unsigned *times = calloc(maxn + 1, sizeof *times);
  unsigned nk = 0;
  for (unsigned r = 0; r < g->num_regions; r++) nk += plans[r].num_chosen;
  s.names = malloc((nk + 1) * sizeof *s.names);
  kr_status st = KR_FAILURE;
  if (!s.host || !times || !s.names) {
    kr_op_emit_error(func, "orchestration: out of memory");
    goto done;
  }
  /* All names before the first kernel is inserted (kr_orch_kernel_name sees the module as the
   * report did). */
  for (unsigned k = 0; k < nk; k++) kr_orch_kernel_name(g, k, s.names[k], sizeof s.names[k]);
  for (unsigned i = 0; i < g->num_nodes; i++)
    map_put(&s.node_index, kr_op_result(g->nodes[i].op, 0), (void *)(uintptr_t)(i + 1));
  for (unsigned r = 0; r < g->num_regions; r++) {
    const kr_candidate *cands = KR_VEC_DATA(&cands_per_region[r], kr_candidate);
    const kr_orch_plan *p = &plans[r];
    memset(times, 0, (maxn + 1) * sizeof *times);
    for (unsigned i = 0; i < p->num_chosen; i++)
      for (unsigned u = 0; u < g->regions[r].n; u++)
        if (kr_bits_test(&cands[p->chosen[i]].nodes, u)) times[u]++;
    for (unsigned i = 0; i < p->num_chosen; i++)
      if (KR_FAILED(emit_kernel(&s, r, &cands[p->chosen[i]], times))) goto done;
  }
  /* The host function: results from the launches, primitives erased. */
  for (unsigned i = 0; i < g->num_nodes; i++) kr_op_drop_all_references(g->nodes[i].op);
  for (unsigned i = 0; i < g->num_nodes; i++) {
    kr_value v = kr_op_result(g->nodes[i].op, 0);
    if (!kr_value_has_uses(v)) continue;
    if (!s.host[i]) {
      kr_op_emit_error(g->nodes[i].op, "orchestration: internal error: this primitive's result is used but no "
                                       "kernel writes it");
      goto done;
    }
    kr_value_replace_all_uses(v, s.host[i]);
  }
  for (unsigned i = g->num_nodes; i-- > 0;) kr_op_erase(g->nodes[i].op);
  for (kr_op *op = body->first, *next; op; op = next) {
    next = op->next;
    if (is_prim_constant(op) && kr_op_use_empty(op)) kr_op_erase(op);
  }
  st = KR_SUCCESS;
done:
  kr_hmap_free(&s.node_index);
  free(s.host);
  free(s.names);
  free(times);
  return st;
}
