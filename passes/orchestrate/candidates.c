/* passes/orchestrate/candidates.c - candidate kernels (Korch, ASPLOS'24, §4.2): the convex
 * connected sub-graphs of a region inside the schedulability contract, with their output sets
 * and canonical hashes.  docs/Orchestration.md ("Candidate kernels", "The schedulability
 * contract") states the rules implemented here.
 *
 * Enumeration is ESU (Wernicke, "Efficient detection of network motifs", IEEE/ACM TCBB 2006):
 * for each root v in index order, connected sets whose smallest node is v grow by the lowest
 * node of an extension set that only admits exclusive neighbours above v, which yields every
 * connected set exactly once, in an order that depends on node indices only.  A branch is cut
 * when the convex hull of the growing set (the set plus every node on a path between two of its
 * nodes, which any convex superset contains) is too large or breaks a rule of the contract that
 * no superset can repair (monotone rules: see check_kind). */
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/dialect.h"
#include "korch/op.h"
#include "passes/orchestrate/orch.h"

const char *kr_kernel_kind_name(kr_kernel_kind k) {
  switch (k) {
  case KR_KERNEL_INJECTIVE: return "injective";
  case KR_KERNEL_REDUCTION: return "reduction";
  case KR_KERNEL_LINEAR: return "linear";
  }
  return "?";
}

/* ---------------------------------------------------------------------------------------------
 * Bitsets. */
static inline void bits_clear(kr_bits *b, unsigned i) { b->w[i >> 6] &= ~(1ull << (i & 63)); }
static inline void bits_or(kr_bits *d, const kr_bits *a) {
  for (unsigned i = 0; i < KR_ORCH_WORDS; i++) d->w[i] |= a->w[i];
}
static inline bool bits_any_and(const kr_bits *a, const kr_bits *b) {
  for (unsigned i = 0; i < KR_ORCH_WORDS; i++)
    if (a->w[i] & b->w[i]) return true;
  return false;
}
static inline bool bits_eq(const kr_bits *a, const kr_bits *b) { return !memcmp(a, b, sizeof *a); }
/* The first set bit >= from, or -1. */
static int bits_next(const kr_bits *b, unsigned from) {
  for (unsigned i = from >> 6; i < KR_ORCH_WORDS; i++) {
    uint64_t w = b->w[i];
    if (i == from >> 6) w &= ~0ull << (from & 63);
    if (w) return (int)(i * 64 + (unsigned)__builtin_ctzll(w));
  }
  return -1;
}
#define BITS_FOR(i, b) for (int i = bits_next((b), 0); i >= 0; i = bits_next((b), (unsigned)i + 1))

/* ---------------------------------------------------------------------------------------------
 * A region's facts, computed once per enumeration (or per kr_orch_schedulable call). */
typedef enum node_role { ROLE_OTHER, ROLE_AXIS_REDUCTION, ROLE_SCAN, ROLE_BROADCAST, ROLE_RESHAPE } node_role;

typedef struct node_info {
  const kr_orch_node *nd;
  kr_type type;        /* result */
  kr_type in0;         /* operand 0's type, NULL without operands */
  node_role role;
  uint32_t axes;       /* ROLE_AXIS_REDUCTION: the reduced axes (bit d) */
  int *src;            /* per operand: local index of the region node defining it, or -1 */
} node_info;

typedef struct rctx {
  const kr_orch_graph *g;
  unsigned r, first, n;
  node_info *info;
  kr_bits *succ, *nbr;       /* successors / neighbours (either direction) inside the region */
  kr_bits *desc, *anc;       /* strict descendants / ancestors inside the region */
  int *src_pool;
} rctx;

static void rctx_free(rctx *c) {
  free(c->info);
  free(c->succ);
  free(c->src_pool);
  memset(c, 0, sizeof *c);
}

static kr_status rctx_init(rctx *c, const kr_orch_graph *g, unsigned r) {
  memset(c, 0, sizeof *c);
  c->g = g, c->r = r;
  c->first = g->regions[r].first, c->n = g->regions[r].n;
  unsigned n = c->n, nops = 0;
  for (unsigned u = 0; u < n; u++) nops += g->nodes[c->first + u].op->num_operands;
  c->info = calloc(n ? n : 1, sizeof *c->info);
  c->succ = calloc(4 * (size_t)(n ? n : 1), sizeof *c->succ);
  c->src_pool = malloc((nops ? nops : 1) * sizeof *c->src_pool);
  if (!c->info || !c->succ || !c->src_pool) {
    rctx_free(c);
    return KR_FAILURE;
  }
  c->nbr = c->succ + n, c->desc = c->succ + 2 * n, c->anc = c->succ + 3 * n;
  int *pool = c->src_pool;
  for (unsigned u = 0; u < n; u++) {
    const kr_orch_node *nd = &g->nodes[c->first + u];
    node_info *in = &c->info[u];
    in->nd = nd;
    in->type = kr_value_type(kr_op_result(nd->op, 0));
    in->in0 = nd->op->num_operands ? kr_value_type(kr_op_operand(nd->op, 0)) : NULL;
    const char *name = nd->op->name;
    if (nd->cls == KR_PRIM_REDUCTION) {
      if (!strcmp(name, "prim.cum_sum") || !strcmp(name, "prim.reduce_window")) {
        in->role = ROLE_SCAN;
      } else {
        in->role = ROLE_AXIS_REDUCTION;
        if (!strcmp(name, "prim.arg_max") || !strcmp(name, "prim.arg_min")) {
          int64_t a = kr_op_attr_int(nd->op, "axis");
          if (a >= 0 && a < 32) in->axes = 1u << a;
        } else {
          const int64_t *ax;
          unsigned na = kr_op_attr_ints(nd->op, "axes", &ax);
          for (unsigned k = 0; k < na; k++)
            if (ax[k] >= 0 && ax[k] < 32) in->axes |= 1u << ax[k];
        }
      }
    } else if (!strcmp(name, "prim.broadcast")) {
      in->role = ROLE_BROADCAST;
    } else if (!strcmp(name, "prim.reshape")) {
      in->role = ROLE_RESHAPE;
    }
    in->src = pool;
    pool += nd->op->num_operands;
    for (unsigned k = 0; k < nd->op->num_operands; k++) in->src[k] = -1;
    for (unsigned k = 0; k < nd->num_succs; k++) {
      unsigned s = nd->succs[k];
      if (g->nodes[s].region != r) continue;
      kr_bits_set(&c->succ[u], s - c->first);
      kr_bits_set(&c->nbr[u], s - c->first);
      kr_bits_set(&c->nbr[s - c->first], u);
    }
  }
  /* Operand sources: a region node's users are region nodes or outside it, so walk the uses. */
  for (unsigned u = 0; u < n; u++) {
    kr_op *op = g->nodes[c->first + u].op;
    for (kr_use *use = kr_op_result(op, 0)->first_use; use; use = use->next) {
      for (unsigned k = 0; k < g->nodes[c->first + u].num_succs; k++) {
        unsigned s = g->nodes[c->first + u].succs[k];
        if (g->nodes[s].region == r && g->nodes[s].op == use->owner) {
          c->info[s - c->first].src[use->index] = (int)u;
          break;
        }
      }
    }
  }
  for (unsigned u = n; u-- > 0;)
    BITS_FOR(s, &c->succ[u]) {
      kr_bits_set(&c->desc[u], (unsigned)s);
      bits_or(&c->desc[u], &c->desc[s]);
    }
  for (unsigned u = 0; u < n; u++) BITS_FOR(d, &c->desc[u]) kr_bits_set(&c->anc[d], u);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * The schedulability contract (docs/Orchestration.md). */
static bool dims_eq(kr_type t, const int64_t *dims, unsigned rank) {
  /* Rank 0 has no dims array (NULL): memcmp may not see it, even for 0 bytes. */
  return t && t->u.shaped.rank == rank && (!rank || !memcmp(t->u.shaped.dims, dims, rank * sizeof *dims));
}
static bool same_shape(kr_type a, kr_type b) { return dims_eq(a, b->u.shaped.dims, b->u.shaped.rank); }
/* Equal shapes once the dims of size 1 are dropped ([64,1] ~ [1,64,1]): the same elements in the
 * same row-major order. */
static bool same_squeezed(kr_type a, kr_type b) {
  unsigned i = 0, j = 0, ra = a->u.shaped.rank, rb = b->u.shaped.rank;
  const int64_t *da = a->u.shaped.dims, *db = b->u.shaped.dims;
  for (;;) {
    while (i < ra && da[i] == 1) i++;
    while (j < rb && db[j] == 1) j++;
    if (i == ra || j == rb) return i == ra && j == rb;
    if (da[i++] != db[j++]) return false;
  }
}

/* The kind rules on S (no connectivity, convexity or size).  With final = false, only the rules
 * that no superset can repair (the ones used to prune growth): every rule but "a side node of a
 * linear kernel has a user inside".  Each such rule is a property of a node of S, or of a node and
 * its users or operands inside S, against the domain fixed by S's linear or reductions; adding
 * nodes never removes a violation. */
static bool check_kind(const rctx *c, const kr_bits *S, bool final, kr_kernel_kind *kind) {
  int lin = -1, red = -1, scan = -1;
  unsigned nlin = 0, nred = 0, nscan = 0;
  BITS_FOR(u, S) {
    const node_info *in = &c->info[u];
    if (in->nd->cls == KR_PRIM_LINEAR) nlin++, lin = u;
    else if (in->role == ROLE_AXIS_REDUCTION) nred++, red = red < 0 ? u : red;
    else if (in->role == ROLE_SCAN) nscan++, scan = u;
  }
  if (nlin > 1 || (nlin && (nred || nscan)) || (nscan && (nscan > 1 || nred))) return false;
  if (nlin) {
    const kr_bits *dl = &c->desc[lin];
    BITS_FOR(u, S) {
      if (u == lin) continue;
      const node_info *in = &c->info[u];
      if (kr_bits_test(dl, (unsigned)u)) {        /* epilogue, in the linear result's index space */
        if (in->nd->cls != KR_PRIM_ELEMENTWISE && in->role != ROLE_BROADCAST && in->role != ROLE_RESHAPE) return false;
        if (!same_squeezed(in->type, c->info[lin].type)) return false;
      } else if (kr_bits_test(&c->desc[u], (unsigned)lin)) {   /* prologue: feeds only operands */
        if (in->nd->cls != KR_PRIM_ELEMENTWISE && in->nd->cls != KR_PRIM_LAYOUT) return false;
        BITS_FOR(s, &c->succ[u])
          if (kr_bits_test(S, (unsigned)s) && s != lin && !kr_bits_test(&c->desc[s], (unsigned)lin)) return false;
      } else {                                     /* side input of the epilogue */
        if (in->nd->cls != KR_PRIM_ELEMENTWISE && in->nd->cls != KR_PRIM_LAYOUT) return false;
        if (final && !bits_any_and(&c->succ[u], S)) return false;
      }
    }
    *kind = KR_KERNEL_LINEAR;
    return true;
  }
  if (nscan) {
    const node_info *w = &c->info[scan];
    BITS_FOR(u, S) {
      if (u == scan) continue;
      const node_info *in = &c->info[u];
      if (in->nd->cls != KR_PRIM_ELEMENTWISE) return false;
      if (kr_bits_test(&c->desc[u], (unsigned)scan)) {
        if (!w->in0 || !same_shape(in->type, w->in0)) return false;
      } else if (kr_bits_test(&c->desc[scan], (unsigned)u)) {
        if (!same_shape(in->type, w->type)) return false;
      } else {
        return false;
      }
    }
    *kind = KR_KERNEL_REDUCTION;
    return true;
  }
  if (nred) {
    /* The row domain: X = the reductions' input shape, A = their axes; K = X with A set to 1,
     * D = X without A. */
    const node_info *r0 = &c->info[red];
    if (!r0->in0) return false;
    unsigned rank = r0->in0->u.shaped.rank, rd = 0;
    if (rank > KR_OP_MAX_RANK) return false;
    const int64_t *X = r0->in0->u.shaped.dims;
    int64_t K[KR_OP_MAX_RANK], D[KR_OP_MAX_RANK];
    uint32_t A = r0->axes;
    bool prefix = true;   /* A = {0, ..., |A|-1} */
    for (unsigned d = 0; d < rank; d++) {
      bool reduced = (A >> d) & 1;
      K[d] = reduced ? 1 : X[d];
      if (!reduced) D[rd++] = X[d];
      if (reduced && d > 0 && !((A >> (d - 1)) & 1)) prefix = false;
    }
    BITS_FOR(u, S) {
      const node_info *in = &c->info[u];
      if (in->role == ROLE_AXIS_REDUCTION) {
        if (in->axes != A || !in->in0 || !dims_eq(in->in0, X, rank)) return false;
        continue;
      }
      if (in->nd->cls != KR_PRIM_ELEMENTWISE && in->role != ROLE_BROADCAST && in->role != ROLE_RESHAPE) return false;
      bool isX = dims_eq(in->type, X, rank), isK = dims_eq(in->type, K, rank), isD = dims_eq(in->type, D, rd);
      if (!isX && !isK && !isD) return false;
      if (in->role == ROLE_BROADCAST && in->src[0] >= 0 && kr_bits_test(S, (unsigned)in->src[0])) {
        kr_type o = c->info[in->src[0]].type;
        bool ok = same_shape(o, in->type) || (dims_eq(o, K, rank) && isX) ||
                  (prefix && dims_eq(o, D, rd) && (isX || isK));
        if (!ok) return false;
      }
    }
    *kind = KR_KERNEL_REDUCTION;
    return true;
  }
  *kind = KR_KERNEL_INJECTIVE;   /* elementwise and layout only */
  return true;
}

static void hull_of(const rctx *c, const kr_bits *S, kr_bits *h) {
  kr_bits D = {{0}}, A = {{0}};
  BITS_FOR(u, S) {
    bits_or(&D, &c->desc[u]);
    bits_or(&A, &c->anc[u]);
  }
  for (unsigned i = 0; i < KR_ORCH_WORDS; i++) h->w[i] = S->w[i] | (D.w[i] & A.w[i]);
}

static bool connected(const rctx *c, const kr_bits *S) {
  int s = bits_next(S, 0);
  if (s < 0) return false;
  kr_bits seen = {{0}}, frontier = {{0}};
  kr_bits_set(&seen, (unsigned)s);
  kr_bits_set(&frontier, (unsigned)s);
  for (;;) {
    kr_bits next = {{0}};
    BITS_FOR(u, &frontier) bits_or(&next, &c->nbr[u]);
    bool grew = false;
    for (unsigned i = 0; i < KR_ORCH_WORDS; i++) {
      uint64_t add = next.w[i] & S->w[i] & ~seen.w[i];
      frontier.w[i] = add;
      seen.w[i] |= add;
      grew |= add != 0;
    }
    if (!grew) break;
  }
  return bits_eq(&seen, S);
}

static bool schedulable(const rctx *c, const kr_bits *S, unsigned max_size, kr_kernel_kind *kind) {
  unsigned size = kr_bits_count(S);
  if (size == 0 || size > max_size) return false;
  BITS_FOR(u, S)
    if ((unsigned)u >= c->n) return false;   /* outside the region */
  if (!connected(c, S)) return false;
  kr_bits h;
  hull_of(c, S, &h);
  if (!bits_eq(&h, S)) return false;
  return check_kind(c, S, true, kind);
}

bool kr_orch_schedulable(const kr_orch_graph *g, unsigned r, const kr_bits *nodes, unsigned max_size,
                         kr_kernel_kind *kind) {
  if (r >= g->num_regions) return false;
  rctx c;
  if (KR_FAILED(rctx_init(&c, g, r))) return false;
  kr_kernel_kind k = KR_KERNEL_INJECTIVE;
  bool ok = schedulable(&c, nodes, max_size, &k);
  rctx_free(&c);
  if (ok && kind) *kind = k;
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * Canonical hashing: attributes are uniqued per context, so their text is hashed, never a
 * pointer; tensor types are hashed from their element type and dims. */
static uint64_t hash_str(uint64_t h, const char *s) { return kr_hash_combine(h, kr_hash_bytes(s, strlen(s))); }

static uint64_t hash_type(uint64_t h, kr_type t) {
  h = kr_hash_combine(h, 0x7479706500000000ull + (uint64_t)t->kind);
  switch (t->kind) {
  case KR_TYPE_INTEGER:
    return kr_hash_combine(h, t->u.integer.width * 4u + (unsigned)t->u.integer.sign);
  case KR_TYPE_FLOAT:
    return kr_hash_combine(h, (uint64_t)t->u.fkind);
  case KR_TYPE_INDEX:
  case KR_TYPE_NONE:
    return h;
  case KR_TYPE_TENSOR:
  case KR_TYPE_VECTOR:
    h = hash_type(h, t->u.shaped.elem);
    h = kr_hash_combine(h, t->u.shaped.unranked);
    h = kr_hash_combine(h, t->u.shaped.rank);
    return kr_hash_combine(h, kr_hash_bytes(t->u.shaped.dims, t->u.shaped.rank * sizeof(int64_t)));
  default: {
    kr_ostream os;
    kr_ostream_init_mem(&os);
    kr_type_print(&os, t);
    h = hash_str(h, kr_ostream_str(&os));
    kr_ostream_close(&os);
    return h;
  }
  }
}

static uint64_t hash_attr_text(uint64_t h, kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  h = hash_str(h, kr_ostream_str(&os));
  kr_ostream_close(&os);
  return h;
}

/* Whether `name` is an attribute of the schema `sc`. */
static bool in_schema(const kr_op_schema *sc, const char *name) {
  for (unsigned i = 0; sc && i < sc->num_attrs; i++)
    if (!strcmp(sc->attrs[i].name, name)) return true;
  return false;
}

/* Op name, attributes and result type of one node.  The attributes of the op's schema
 * (dialects/prim/ops.def) are hashed by their effective value, in schema order: the value
 * written, else the schema default, so that `keepdims = 1` and an absent keepdims (default 1)
 * hash equal; a present value is read through the same accessors that apply the defaults
 * (kr_op_attr_int, ...).  Other attributes (not in the schema) are hashed by name and text. */
static uint64_t node_hash(const kr_orch_node *nd) {
  const kr_op *op = nd->op;
  uint64_t h = hash_str(0x6b6f726368ull, op->name);
  const kr_op_schema *sc = kr_op_get_schema(op);
  for (unsigned i = 0; sc && i < sc->num_attrs; i++) {
    const kr_op_attr_spec *a = &sc->attrs[i];
    h = hash_str(h, a->name);
    if (!kr_op_attr_present(op, a->name) && !a->has_default) {
      h = kr_hash_combine(h, 0xab5e47ull);   /* absent, no default */
      continue;
    }
    h = kr_hash_combine(h, (uint64_t)a->kind);
    switch (a->kind) {
    case KR_OPATTR_INT:
      h = kr_hash_combine(h, (uint64_t)kr_op_attr_int(op, a->name));
      break;
    case KR_OPATTR_FLOAT: {
      double d = kr_op_attr_float(op, a->name);
      h = kr_hash_combine(h, kr_hash_bytes(&d, sizeof d));
      break;
    }
    case KR_OPATTR_STRING: {
      const char *v = kr_op_attr_string(op, a->name);
      h = hash_str(h, v ? v : "");
      break;
    }
    case KR_OPATTR_INTS: {
      const int64_t *v = NULL;
      unsigned n = kr_op_attr_ints(op, a->name, &v);
      h = kr_hash_combine(h, n);
      if (n) h = kr_hash_combine(h, kr_hash_bytes(v, n * sizeof *v));
      break;
    }
    case KR_OPATTR_FLOATS: {
      const float *v = NULL;
      unsigned n = kr_op_attr_floats(op, a->name, &v);
      h = kr_hash_combine(h, n);
      if (n) h = kr_hash_combine(h, kr_hash_bytes(v, n * sizeof *v));
      break;
    }
    case KR_OPATTR_TYPE: {
      kr_type t = kr_op_attr_type(op, a->name);
      h = t ? hash_type(h, t) : kr_hash_combine(h, 0);
      break;
    }
    case KR_OPATTR_TENSOR:
      h = hash_attr_text(h, kr_op_get_attr(op, a->name));
      break;
    }
  }
  kr_attr dict = op->attrs;
  for (unsigned i = 0; dict && dict->kind == KR_ATTR_DICT && i < dict->u.dict.num; i++) {
    const kr_named_attr *e = &dict->u.dict.entries[i];
    if (in_schema(sc, e->name)) continue;
    h = hash_str(h, e->name);
    h = hash_attr_text(h, e->value);
  }
  h = kr_hash_combine(h, op->num_operands);
  return hash_type(h, kr_value_type(kr_op_result(nd->op, 0)));
}

static bool is_splat_constant(kr_value v) {
  kr_op *def = kr_value_defining_op(v);
  if (!def || !kr_op_has_trait(def, KR_TRAIT_CONSTANT_LIKE)) return false;
  kr_attr a = kr_op_get_attr(def, "value");
  return a && a->kind == KR_ATTR_DENSE && a->u.dense.splat;
}

/* The structure hash of S (without the write set): per node in index order its node hash and,
 * per operand, "node #j of the candidate" or "external input #k" (numbered by first use) with
 * its type and whether it is a splat constant (which emission clones into the kernel). */
static uint64_t structure_hash(const rctx *c, const uint64_t *nhash, const kr_bits *S) {
  int pos[KR_ORCH_MAX_REGION];
  unsigned np = 0;
  BITS_FOR(u, S) pos[u] = (int)np++;
  kr_value ext[64];
  unsigned next = 0;
  uint64_t h = kr_hash_combine(0x63616e64ull, np);
  BITS_FOR(u, S) {
    const node_info *in = &c->info[u];
    kr_op *op = in->nd->op;
    h = kr_hash_combine(h, nhash[u]);
    for (unsigned k = 0; k < op->num_operands; k++) {
      int s = in->src[k];
      if (s >= 0 && kr_bits_test(S, (unsigned)s)) {
        h = kr_hash_combine(h, 0x100000000ull + (uint64_t)pos[s]);
        continue;
      }
      kr_value v = kr_op_operand(op, k);
      unsigned e = 0;
      while (e < next && ext[e] != v) e++;
      if (e == next && next < sizeof ext / sizeof *ext) ext[next++] = v;
      h = kr_hash_combine(h, (is_splat_constant(v) ? 0x300000000ull : 0x200000000ull) + e);
      h = hash_type(h, kr_value_type(v));
    }
  }
  return h;
}

static uint64_t writes_hash(uint64_t h, const kr_bits *S, const kr_bits *W) {
  unsigned p = 0;
  BITS_FOR(u, S) {
    if (kr_bits_test(W, (unsigned)u)) h = kr_hash_combine(h, 0x400000000ull + p);
    p++;
  }
  return h;
}

/* ---------------------------------------------------------------------------------------------
 * Enumeration. */
typedef struct enum_state {
  const rctx *c;
  const uint64_t *nhash;
  unsigned max_size, max_candidates;
  kr_vec *out;
  size_t start;
  bool stop, *truncated;
} enum_state;

/* Appends the candidates of schedulable S (one per output set); false when the cap stops it. */
static bool emit(enum_state *es, const kr_bits *S, kr_kernel_kind kind, bool force) {
  const rctx *c = es->c;
  kr_bits sinks = {{0}};
  unsigned opt[KR_ORCH_MAX_REGION], nopt = 0, size = 0;
  BITS_FOR(u, S) {
    size++;
    const node_info *in = &c->info[u];
    unsigned inside = 0;
    BITS_FOR(s, &c->succ[u]) inside += kr_bits_test(S, (unsigned)s);
    if (inside == 0) kr_bits_set(&sinks, (unsigned)u);
    else if (in->nd->live_out || inside < in->nd->num_succs) opt[nopt++] = (unsigned)u;
  }
  uint64_t h = structure_hash(c, es->nhash, S);
  unsigned nsets = nopt <= 3 ? 1u << nopt : 2;
  for (unsigned m = 0; m < nsets; m++) {
    if (!force && es->out->len - es->start >= es->max_candidates) {
      *es->truncated = true;
      es->stop = true;
      return false;
    }
    kr_candidate cand = {.region = c->r, .nodes = *S, .writes = sinks, .size = size, .kind = kind};
    /* Subset m of the optional writes (bit j: opt[j]); with more than 3, m = 0 (none) or 1 (all). */
    for (unsigned j = 0; j < nopt; j++)
      if (nopt <= 3 ? (m >> j) & 1 : m) kr_bits_set(&cand.writes, opt[j]);
    cand.hash = writes_hash(h, S, &cand.writes);
    kr_vec_push(es->out, &cand, sizeof cand);
  }
  return true;
}

/* ESU step: S is connected with smallest node v; ext its extension set; closed = S and its
 * neighbours; D, A the unions of the descendants / ancestors of S. */
static void extend(enum_state *es, const kr_bits *S, const kr_bits *ext, const kr_bits *closed, const kr_bits *D,
                   const kr_bits *A, const kr_bits *above, unsigned size) {
  if (size >= es->max_size) return;
  const rctx *c = es->c;
  kr_bits rest = *ext;
  for (int w = bits_next(&rest, 0); w >= 0; w = bits_next(&rest, (unsigned)w + 1)) {
    bits_clear(&rest, (unsigned)w);
    kr_bits S2 = *S, D2 = *D, A2 = *A, H;
    kr_bits_set(&S2, (unsigned)w);
    bits_or(&D2, &c->desc[w]);
    bits_or(&A2, &c->anc[w]);
    for (unsigned i = 0; i < KR_ORCH_WORDS; i++) H.w[i] = S2.w[i] | (D2.w[i] & A2.w[i]);
    kr_kernel_kind kind;
    if (kr_bits_count(&H) > es->max_size || !check_kind(c, &H, false, &kind)) continue;   /* no convex superset fits */
    if (bits_eq(&H, &S2) && check_kind(c, &S2, true, &kind) && !emit(es, &S2, kind, false)) return;
    /* ext' = the rest of ext plus the exclusive neighbours of w above v. */
    kr_bits ext2 = rest, closed2 = *closed;
    for (unsigned i = 0; i < KR_ORCH_WORDS; i++) {
      ext2.w[i] |= c->nbr[w].w[i] & ~closed->w[i] & above->w[i];
      closed2.w[i] |= c->nbr[w].w[i];
    }
    extend(es, &S2, &ext2, &closed2, &D2, &A2, above, size + 1);
    if (es->stop) return;
  }
}

kr_status kr_orch_enumerate(const kr_orch_graph *g, unsigned r, const kr_orch_options *o, kr_vec *out,
                            bool *truncated) {
  *truncated = false;
  if (r >= g->num_regions) return KR_FAILURE;
  rctx c;
  if (KR_FAILED(rctx_init(&c, g, r))) return kr_op_emit_error(g->func, "out of memory");
  uint64_t *nhash = malloc((c.n ? c.n : 1) * sizeof *nhash);
  if (!nhash) {
    rctx_free(&c);
    return kr_op_emit_error(g->func, "out of memory");
  }
  for (unsigned u = 0; u < c.n; u++) nhash[u] = node_hash(c.info[u].nd);
  enum_state es = {.c = &c, .nhash = nhash, .max_size = o->max_size ? o->max_size : 16,
                   .max_candidates = o->max_candidates ? o->max_candidates : 20000, .out = out,
                   .start = out->len, .truncated = truncated};
  /* Every single primitive first (always schedulable alone), so a plan always exists. */
  for (unsigned u = 0; u < c.n; u++) {
    kr_bits S = {{0}};
    kr_bits_set(&S, u);
    kr_kernel_kind kind = KR_KERNEL_INJECTIVE;
    check_kind(&c, &S, true, &kind);
    emit(&es, &S, kind, true);
  }
  for (unsigned v = 0; v < c.n && !es.stop; v++) {
    kr_bits S = {{0}}, ext = {{0}}, closed = c.nbr[v], above = {{0}};
    for (unsigned u = v + 1; u < c.n; u++) kr_bits_set(&above, u);
    kr_bits_set(&S, v);
    kr_bits_set(&closed, v);
    for (unsigned i = 0; i < KR_ORCH_WORDS; i++) ext.w[i] = c.nbr[v].w[i] & above.w[i];
    extend(&es, &S, &ext, &closed, &c.desc[v], &c.anc[v], &above, 1);
  }
  free(nhash);
  rctx_free(&c);
  return KR_SUCCESS;
}

static int cmp_unsigned(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

unsigned kr_orch_inputs(const kr_orch_graph *g, const kr_candidate *c, unsigned *out, unsigned cap) {
  const kr_orch_region *reg = &g->regions[c->region];
  unsigned total = 0, n = 0;
  BITS_FOR(u, &c->nodes) total += g->nodes[reg->first + (unsigned)u].num_preds;
  if (total == 0) return 0;
  unsigned *v = malloc(total * sizeof *v);
  if (!v) return 0;
  BITS_FOR(u, &c->nodes) {
    const kr_orch_node *nd = &g->nodes[reg->first + (unsigned)u];
    for (unsigned k = 0; k < nd->num_preds; k++) {
      unsigned p = nd->preds[k];
      if (p >= reg->first && p - reg->first < reg->n && kr_bits_test(&c->nodes, p - reg->first)) continue;
      v[n++] = p;
    }
  }
  qsort(v, n, sizeof *v, cmp_unsigned);
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++)
    if (i == 0 || v[i] != v[i - 1]) {
      if (m < cap) out[m] = v[i];
      m++;
    }
  free(v);
  return m;
}
