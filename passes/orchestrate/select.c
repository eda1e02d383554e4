/* passes/orchestrate/select.c - choosing the kernels of one region (Korch, ASPLOS'24, §5): the
 * binary linear program solved with CBC (through korch/milp.h), and the two baselines every
 * report compares it with, unfused (one kernel per primitive) and Hidet-style greedy fusion.
 *
 * The BLP of region r, over its candidates k that no other candidate dominates (see
 * reduce_dominated; the others cannot improve a plan) and its nodes t (region-local indices):
 *
 *   x_k in {0, 1}      candidate k is launched                       (cost: cost_us of k)
 *   w_t in {0, 1}      tensor t is in memory (lb 1 when t is live_out)
 *   d_t:   sum_{j writes t} x_j - w_t >= 0         for every t some candidate reads or live_out
 *   i_k_t: w_t - x_k >= 0                          for every candidate k and input t of k in r
 *   c_v, e_u_v: valid inequalities (add_usage_rows)
 *   minimise sum_k cost_k x_k
 *
 * Eliminating w gives exactly Korch's rows (every live_out tensor is written by a chosen kernel;
 * every input of a chosen kernel is written by a chosen kernel): w_t only shares the sum of
 * writers between the readers of t, so the rows hold (|writers| + 2 |readers|) coefficients
 * instead of |writers| x |readers|, with the same LP relaxation.  w_t is integer although any
 * x fixes it: CBC then branches on "is t in memory", which splits the search far better than
 * single candidates do.
 *
 * Covering rows do not order the chosen kernels once a kernel writes several tensors (issue 5:
 * a = relu(i1), b = relu(i2), x = a.b, y = b.a, kernels {a, x} and {b, y}).  A solution is
 * scheduled greedily (launch the lowest-index kernel whose region inputs are all written);
 * when that gets stuck, a set C of stuck kernels is found in which the chosen writers of one
 * unwritten input t_k of every k in C all lie in C: such a C cannot be ordered (its first
 * launch would need an earlier one) unless some other writer of a t_k runs too, so the cut
 *
 *   sum_{k in C} x_k - sum_{j not in C, j writes some t_k} x_j <= |C| - 1
 *
 * removes the solution and no orderable plan (it is the paper's cycle cut |C| - 1, weakened by
 * the other writers, without which it could cut off valid plans); the problem is re-solved
 * until a solution orders.  Everything is indexed by candidate and node indices, so the plan
 * is deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "passes/orchestrate/orch.h"

/* Cuts per region before giving up on the BLP (then the greedy plan, with a warning). */
#define MAX_CUTS 1000

void kr_orch_plan_free(kr_orch_plan *p) {
  if (!p) return;
  free(p->chosen);
  memset(p, 0, sizeof *p);
}

static bool bits_eq(const kr_bits *a, const kr_bits *b) { return !memcmp(a, b, sizeof *a); }

/* The lowest candidate index with exactly these node and write sets, or -1. */
static int find_cand(const kr_candidate *cands, unsigned n, const kr_bits *nodes, const kr_bits *writes) {
  for (unsigned k = 0; k < n; k++)
    if (bits_eq(&cands[k].nodes, nodes) && bits_eq(&cands[k].writes, writes)) return (int)k;
  return -1;
}

static int find_single(const kr_candidate *cands, unsigned n, unsigned local) {
  kr_bits b;
  memset(&b, 0, sizeof b);
  kr_bits_set(&b, local);
  return find_cand(cands, n, &b, &b);
}

/* ---------------------------------------------------------------------------------------------
 * Per-region tables: the region-local inputs of every candidate and the writers of every node
 * (compressed rows, candidate indices ascending). */
typedef struct region_tables {
  unsigned first, size;        /* the region's nodes */
  unsigned *in_off, *in;       /* inputs of candidate k: in[in_off[k] .. in_off[k+1]) (local) */
  unsigned *wr_off, *wr;       /* writers of node t: wr[wr_off[t] .. wr_off[t+1]) */
} region_tables;

static void tables_free(region_tables *t) {
  free(t->in_off);
  free(t->in);
  free(t->wr_off);
  free(t->wr);
  memset(t, 0, sizeof *t);
}

static kr_status tables_build(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                              region_tables *t) {
  memset(t, 0, sizeof *t);
  t->first = g->regions[r].first;
  t->size = g->regions[r].n;
  unsigned cap = 256;
  unsigned *buf = malloc(cap * sizeof *buf);
  kr_vec in = {0};
  t->in_off = malloc((n + 1) * sizeof *t->in_off);
  t->wr_off = calloc(t->size + 2, sizeof *t->wr_off);
  if (!buf || !t->in_off || !t->wr_off) goto oom;
  for (unsigned k = 0; k < n; k++) {
    t->in_off[k] = (unsigned)in.len;
    unsigned c = kr_orch_inputs(g, &cands[k], buf, cap);
    if (c > cap) {
      unsigned *nb = realloc(buf, c * sizeof *buf);
      if (!nb) goto oom;
      buf = nb;
      cap = c;
      c = kr_orch_inputs(g, &cands[k], buf, cap);
    }
    for (unsigned i = 0; i < c; i++)
      if (buf[i] >= t->first && buf[i] < t->first + t->size) KR_VEC_PUSH(&in, unsigned, buf[i] - t->first);
    for (unsigned v = 0; v < t->size; v++)
      if (kr_bits_test(&cands[k].writes, v)) t->wr_off[v + 1]++;
  }
  t->in_off[n] = (unsigned)in.len;
  t->in = in.data ? in.data : malloc(sizeof(unsigned));
  in.data = NULL;
  for (unsigned v = 0; v < t->size; v++) t->wr_off[v + 1] += t->wr_off[v];
  t->wr = malloc((t->wr_off[t->size] + 1) * sizeof *t->wr);
  unsigned *fill = calloc(t->size + 1, sizeof *fill);
  if (!t->in || !t->wr || !fill) {
    free(fill);
    goto oom;
  }
  for (unsigned k = 0; k < n; k++)
    for (unsigned v = 0; v < t->size; v++)
      if (kr_bits_test(&cands[k].writes, v)) t->wr[t->wr_off[v] + fill[v]++] = k;
  free(fill);
  free(buf);
  return KR_SUCCESS;
oom:
  free(buf);
  kr_vec_free(&in);
  tables_free(t);
  return kr_op_emit_error(g->func, "orchestration: out of memory");
}

/* ---------------------------------------------------------------------------------------------
 * Launch order. */

typedef struct order_result {
  bool ok;                     /* every kernel was ordered (order filled) */
  bool broken;                 /* an input has no chosen writer at all: not a plan */
  kr_vec cut_in;               /* unsigned: C, candidate indices ascending */
  kr_vec cut_out;              /* unsigned: the other writers of the t_k, ascending */
} order_result;

static void order_result_free(order_result *o) {
  kr_vec_free(&o->cut_in);
  kr_vec_free(&o->cut_out);
}

static int cmp_unsigned(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

/* Orders the m chosen candidates `set` (ascending, distinct) into `order`: repeatedly launches
 * the lowest-index candidate whose region inputs are all written.  When stuck, fills the
 * smallest closed stuck set C and its outside writers (see the file comment). */
static kr_status launch_order(const kr_orch_graph *g, const kr_candidate *cands, unsigned n, const region_tables *t,
                              const unsigned *set, unsigned m, unsigned *order, order_result *res) {
  memset(res, 0, sizeof *res);
  bool *written = calloc(t->size + 1, 1), *launched = calloc(m + 1, 1);
  unsigned *need = malloc((m + 1) * sizeof *need);      /* t_k per stuck set member */
  int *pos = malloc((n + 1) * sizeof *pos);             /* candidate -> index in set, or -1 */
  unsigned char *mark = calloc(n + 1, 1);
  unsigned *queue = malloc((m + 1) * sizeof *queue), *best = malloc((m + 1) * sizeof *best);
  if (!written || !launched || !need || !pos || !mark || !queue || !best) {
    free(written), free(launched), free(need), free(pos), free(mark), free(queue), free(best);
    return kr_op_emit_error(g->func, "orchestration: out of memory");
  }
  for (unsigned k = 0; k < n; k++) pos[k] = -1;
  for (unsigned i = 0; i < m; i++) pos[set[i]] = (int)i;
  unsigned count = 0;
  while (count < m) {
    bool progress = false;
    for (unsigned i = 0; i < m && !progress; i++) {
      if (launched[i]) continue;
      unsigned k = set[i];
      bool ready = true;
      for (unsigned e = t->in_off[k]; e < t->in_off[k + 1] && ready; e++) ready = written[t->in[e]];
      if (!ready) continue;
      launched[i] = true;
      order[count++] = k;
      for (unsigned v = 0; v < t->size; v++)
        if (kr_bits_test(&cands[k].writes, v)) written[v] = true;
      progress = true;
    }
    if (!progress) break;
  }
  if (count == m) {
    res->ok = true;
    goto done;
  }
  /* Stuck: t_k = the lowest unwritten input of every unlaunched k; its chosen writers are all
   * unlaunched (a launched one would have written it). */
  for (unsigned i = 0; i < m; i++) {
    if (launched[i]) continue;
    unsigned k = set[i];
    need[i] = ~0u;
    for (unsigned e = t->in_off[k]; e < t->in_off[k + 1]; e++)
      if (!written[t->in[e]]) {
        need[i] = t->in[e];
        break;
      }
    bool has_writer = false;
    for (unsigned e = t->wr_off[need[i]]; e < t->wr_off[need[i] + 1] && !has_writer; e++)
      has_writer = pos[t->wr[e]] >= 0;
    if (!has_writer) {
      res->broken = true;
      goto done;
    }
  }
  /* The smallest closure {s} + chosen writers of t_k for every k added, over the starts s. */
  unsigned best_n = ~0u;
  for (unsigned s = 0; s < m; s++) {
    if (launched[s]) continue;
    memset(mark, 0, n);
    unsigned qn = 0;
    queue[qn++] = set[s];
    mark[set[s]] = 1;
    for (unsigned q = 0; q < qn && qn < best_n; q++) {
      unsigned i = (unsigned)pos[queue[q]], tk = need[i];
      for (unsigned e = t->wr_off[tk]; e < t->wr_off[tk + 1]; e++) {
        unsigned j = t->wr[e];
        if (pos[j] >= 0 && !mark[j]) {
          mark[j] = 1;
          queue[qn++] = j;
        }
      }
    }
    if (qn < best_n) {
      best_n = qn;
      memcpy(best, queue, qn * sizeof *best);
    }
  }
  qsort(best, best_n, sizeof *best, cmp_unsigned);
  memset(mark, 0, n);
  for (unsigned q = 0; q < best_n; q++) {
    KR_VEC_PUSH(&res->cut_in, unsigned, best[q]);
    mark[best[q]] = 1;
  }
  for (unsigned q = 0; q < best_n; q++) {
    unsigned tk = need[pos[best[q]]];
    for (unsigned e = t->wr_off[tk]; e < t->wr_off[tk + 1]; e++)
      if (!mark[t->wr[e]]) mark[t->wr[e]] = 2;
  }
  for (unsigned k = 0; k < n; k++)
    if (mark[k] == 2) KR_VEC_PUSH(&res->cut_out, unsigned, k);
done:
  free(written), free(launched), free(need), free(pos), free(mark), free(queue), free(best);
  return KR_SUCCESS;
}

static double plan_cost(const kr_candidate *cands, const unsigned *chosen, unsigned m) {
  double c = 0;
  for (unsigned i = 0; i < m; i++) c += cands[chosen[i]].cost_us;
  return c;
}

/* The needed nodes of region r: those from which a live_out node of r is reachable inside r
 * (reverse block order is a reverse topological order).  The others are dead code: no plan
 * computes them (the BLP's c rows cover exactly these nodes, and the baselines skip the rest, so
 * the three plans are compared on the same work).  needed[] has g->regions[r].n entries. */
static void region_needed(const kr_orch_graph *g, unsigned r, bool *needed) {
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  for (unsigned v = size; v-- > 0;) {
    const kr_orch_node *nd = &g->nodes[first + v];
    bool need = nd->live_out;
    for (unsigned s = 0; s < nd->num_succs && !need; s++) {
      unsigned u = nd->succs[s];
      need = u >= first && u < first + size && needed[u - first];
    }
    needed[v] = need;
  }
}

/* Whether global node index u is a needed node of the region [first, first + size). */
static bool is_needed(const bool *needed, unsigned first, unsigned size, unsigned u) {
  return u >= first && u < first + size && needed[u - first];
}

/* ---------------------------------------------------------------------------------------------
 * Unfused. */

kr_status kr_orch_select_unfused(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                 kr_orch_plan *out) {
  memset(out, 0, sizeof *out);
  unsigned size = g->regions[r].n;
  out->chosen = malloc((size + 1) * sizeof *out->chosen);
  bool *needed = calloc(size + 1, 1);
  if (!out->chosen || !needed) {
    free(needed);
    kr_orch_plan_free(out);
    return kr_op_emit_error(g->func, "orchestration: out of memory");
  }
  region_needed(g, r, needed);
  for (unsigned v = 0; v < size; v++) {
    if (!needed[v]) continue;
    int k = find_single(cands, n, v);
    if (k < 0) {
      free(needed);
      kr_orch_plan_free(out);
      return kr_op_emit_error(g->nodes[g->regions[r].first + v].op,
                              "orchestration: no single-primitive candidate for this primitive");
    }
    out->chosen[out->num_chosen++] = (unsigned)k;   /* node order is a topological order */
  }
  free(needed);
  out->cost_us = plan_cost(cands, out->chosen, out->num_chosen);
  out->status = KR_MILP_OPTIMAL;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Greedy fusion (Hidet, ASPLOS'23, §5: anchor operators absorb prologues and epilogues). */

static bool fusible(kr_prim_class c) { return c == KR_PRIM_ELEMENTWISE || c == KR_PRIM_LAYOUT; }

/* Tries to add local node v to `group`; keeps it when the group stays schedulable. */
static bool try_add(const kr_orch_graph *g, unsigned r, kr_bits *group, unsigned v, unsigned max_size) {
  kr_bits trial = *group;
  kr_bits_set(&trial, v);
  kr_kernel_kind kind;
  if (!kr_orch_schedulable(g, r, &trial, max_size, &kind)) return false;
  *group = trial;
  return true;
}

/* Grows `group` with prologues (fusible producers all of whose needed users are in the group and
 * that no other region needs) and epilogues (fusible consumers of a member whose only needed user
 * they are), to a fixed point, in node order.  Dead users (not needed) do not count. */
static void grow(const kr_orch_graph *g, unsigned r, kr_bits *group, const int *assigned, const bool *needed,
                 unsigned max_size) {
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned u = 0; u < size; u++) {
      if (!kr_bits_test(group, u)) continue;
      const kr_orch_node *nu = &g->nodes[first + u];
      for (unsigned e = 0; e < nu->num_preds; e++) {
        unsigned p = nu->preds[e];
        if (p < first || p >= first + size) continue;
        unsigned pl = p - first;
        const kr_orch_node *np = &g->nodes[p];
        if (kr_bits_test(group, pl) || assigned[pl] >= 0 || !needed[pl] || !fusible(np->cls) || np->live_out)
          continue;
        bool all_in = true;
        for (unsigned s = 0; s < np->num_succs && all_in; s++)
          all_in = !is_needed(needed, first, size, np->succs[s]) || kr_bits_test(group, np->succs[s] - first);
        if (all_in && try_add(g, r, group, pl, max_size)) changed = true;
      }
      /* Not live_out: all users are in the region. */
      unsigned nlive = 0, s = 0;
      for (unsigned e = 0; e < nu->num_succs; e++)
        if (is_needed(needed, first, size, nu->succs[e])) nlive++, s = nu->succs[e];
      if (nlive == 1 && !nu->live_out) {
        unsigned sl = s - first;
        if (!kr_bits_test(group, sl) && assigned[sl] < 0 && fusible(g->nodes[s].cls) &&
            try_add(g, r, group, sl, max_size))
          changed = true;
      }
    }
  }
}

/* The write set a group needs: its sinks and every member used outside it (by a needed node) or
 * live_out. */
static kr_bits needed_writes(const kr_orch_graph *g, unsigned r, const kr_bits *group, const bool *needed) {
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  kr_bits w;
  memset(&w, 0, sizeof w);
  for (unsigned u = 0; u < size; u++) {
    if (!kr_bits_test(group, u)) continue;
    const kr_orch_node *nu = &g->nodes[first + u];
    bool inside = false, outside = nu->live_out;
    for (unsigned s = 0; s < nu->num_succs; s++) {
      unsigned v = nu->succs[s];
      if (v >= first && v < first + size && kr_bits_test(group, v - first))
        inside = true;
      else if (v < first || v >= first + size || needed[v - first])
        outside = true;
    }
    if (outside || !inside) kr_bits_set(&w, u);
  }
  return w;
}

kr_status kr_orch_select_greedy(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                const kr_orch_options *o, kr_orch_plan *out) {
  memset(out, 0, sizeof *out);
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  int *assigned = malloc((size + 1) * sizeof *assigned);
  kr_bits *groups = malloc((size + 1) * sizeof *groups);
  int *group_cand = malloc((size + 1) * sizeof *group_cand);
  unsigned *set = malloc((size + 1) * sizeof *set), *order = malloc((size + 1) * sizeof *order);
  bool *needed = calloc(size + 1, 1);
  region_tables t;
  bool have_tables = false;
  kr_status st = KR_FAILURE;
  if (!assigned || !groups || !group_cand || !set || !order || !needed) {
    kr_op_emit_error(g->func, "orchestration: out of memory");
    goto done;
  }
  region_needed(g, r, needed);
  for (unsigned v = 0; v < size; v++) assigned[v] = -1;
  unsigned ngroups = 0;
  /* Anchors: linear primitives, then reductions, then what is left (injective groups). */
  for (int pass = 0; pass < 3; pass++) {
    for (unsigned v = 0; v < size; v++) {
      kr_prim_class c = g->nodes[first + v].cls;
      if (assigned[v] >= 0 || !needed[v]) continue;
      if ((pass == 0 && c != KR_PRIM_LINEAR) || (pass == 1 && c != KR_PRIM_REDUCTION)) continue;
      kr_bits grp;
      memset(&grp, 0, sizeof grp);
      kr_bits_set(&grp, v);
      grow(g, r, &grp, assigned, needed, o->max_size);
      for (unsigned u = 0; u < size; u++)
        if (kr_bits_test(&grp, u)) assigned[u] = (int)ngroups;
      groups[ngroups++] = grp;
    }
  }
  /* Each group is the candidate (group, needed writes); a group the enumeration does not hold
   * (its cap was hit) falls apart into single primitives. */
  for (unsigned i = 0; i < ngroups; i++) {
    kr_bits w = needed_writes(g, r, &groups[i], needed);
    group_cand[i] = find_cand(cands, n, &groups[i], &w);
  }
  if (KR_FAILED(tables_build(g, r, cands, n, &t))) goto done;
  have_tables = true;
  for (;;) {
    unsigned m = 0;
    for (unsigned i = 0; i < ngroups; i++) {
      if (group_cand[i] >= 0) {
        set[m++] = (unsigned)group_cand[i];
        continue;
      }
      for (unsigned u = 0; u < size; u++) {
        if (!kr_bits_test(&groups[i], u)) continue;
        int k = find_single(cands, n, u);
        if (k < 0) {
          kr_op_emit_error(g->nodes[first + u].op, "orchestration: no single-primitive candidate for this primitive");
          goto done;
        }
        set[m++] = (unsigned)k;
      }
    }
    qsort(set, m, sizeof *set, cmp_unsigned);
    order_result res;
    if (KR_FAILED(launch_order(g, cands, n, &t, set, m, order, &res))) goto done;
    if (res.ok) {
      order_result_free(&res);
      out->chosen = malloc((m + 1) * sizeof *out->chosen);
      if (!out->chosen) {
        kr_op_emit_error(g->func, "orchestration: out of memory");
        goto done;
      }
      memcpy(out->chosen, order, m * sizeof *order);
      out->num_chosen = m;
      break;
    }
    /* Groups that wait on each other: split those of the cycle into single primitives. */
    bool split = false;
    for (size_t q = 0; q < res.cut_in.len && !res.broken; q++) {
      unsigned k = KR_VEC_AT(&res.cut_in, unsigned, q);
      for (unsigned i = 0; i < ngroups; i++)
        if (group_cand[i] == (int)k && cands[k].size > 1) {
          group_cand[i] = -1;
          split = true;
        }
    }
    order_result_free(&res);
    if (!split) {
      kr_op_emit_error(g->func, "orchestration: the greedy plan of region %u has no launch order", r);
      goto done;
    }
  }
  out->cost_us = plan_cost(cands, out->chosen, out->num_chosen);
  out->status = KR_MILP_OPTIMAL;
  st = KR_SUCCESS;
done:
  if (have_tables) tables_free(&t);
  free(assigned);
  free(needed);
  free(groups);
  free(group_cand);
  free(set);
  free(order);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * The BLP. */

static kr_status copy_plan(const kr_orch_plan *from, kr_orch_plan *to, kr_context *ctx, kr_attr loc) {
  to->chosen = malloc((from->num_chosen + 1) * sizeof *to->chosen);
  if (!to->chosen) return kr_emit_error(ctx, loc, "orchestration: out of memory");
  if (from->num_chosen) memcpy(to->chosen, from->chosen, from->num_chosen * sizeof *to->chosen);
  to->num_chosen = from->num_chosen;
  to->cost_us = from->cost_us;
  return KR_SUCCESS;
}

/* The columns of the BLP: the candidates left after the dominance reduction. */
typedef struct blp_cols {
  int *col;                    /* per candidate: its x column, or -1 when it is dominated */
  unsigned *cand;              /* per x column: its candidate (ascending) */
  unsigned *repl;              /* per candidate: a kept candidate that dominates it (itself if kept) */
  unsigned num;
} blp_cols;

static void blp_cols_free(blp_cols *b) {
  free(b->col);
  free(b->cand);
  free(b->repl);
  memset(b, 0, sizeof *b);
}

static bool bits_subset(const kr_bits *a, const kr_bits *b) {
  for (unsigned i = 0; i < KR_ORCH_WORDS; i++)
    if (a->w[i] & ~b->w[i]) return false;
  return true;
}

/* Whether candidate j comes before k in the (cost, index) order. */
static bool cheaper(const kr_candidate *cands, unsigned j, unsigned k) {
  return cands[j].cost_us < cands[k].cost_us || (cands[j].cost_us == cands[k].cost_us && j < k);
}

/* The dominance reduction.  Candidate j dominates k when it writes every tensor k writes, reads
 * no region tensor k does not read, and comes before k in the (cost, index) order (so costs no
 * more).  Replacing k by j in any plan keeps a plan: the tensors others read from k are written
 * by j, j's region inputs were written before k ran, so j can run where k ran, and the cost does
 * not grow.  So some optimal plan uses no dominated candidate, and leaving them out of the BLP
 * keeps its optimum exactly.  Dominance is transitive and follows a strict order, so every
 * dominated candidate has a kept dominator (repl).  A dominator writes all of k's tensors, so
 * only the writers of one of them (the one with the fewest) are examined. */
static kr_status reduce_dominated(const kr_orch_graph *g, const kr_candidate *cands, unsigned n,
                                  const region_tables *t, blp_cols *b) {
  memset(b, 0, sizeof *b);
  kr_bits *in = malloc((n + 1) * sizeof *in);
  b->col = malloc((n + 1) * sizeof *b->col);
  b->cand = malloc((n + 1) * sizeof *b->cand);
  b->repl = malloc((n + 1) * sizeof *b->repl);
  if (!in || !b->col || !b->cand || !b->repl) {
    free(in);
    blp_cols_free(b);
    return kr_op_emit_error(g->func, "orchestration: out of memory");
  }
  for (unsigned k = 0; k < n; k++) {
    memset(&in[k], 0, sizeof in[k]);
    for (unsigned e = t->in_off[k]; e < t->in_off[k + 1]; e++) kr_bits_set(&in[k], t->in[e]);
  }
  for (unsigned k = 0; k < n; k++) {
    b->repl[k] = k;
    unsigned w0 = ~0u, few = ~0u;
    for (unsigned v = 0; v < t->size; v++)
      if (kr_bits_test(&cands[k].writes, v) && t->wr_off[v + 1] - t->wr_off[v] < few) {
        few = t->wr_off[v + 1] - t->wr_off[v];
        w0 = v;
      }
    if (w0 == ~0u) continue;
    for (unsigned e = t->wr_off[w0]; e < t->wr_off[w0 + 1]; e++) {
      unsigned j = t->wr[e];
      if (j == k || !cheaper(cands, j, b->repl[k])) continue;   /* keeps the cheapest dominator */
      if (bits_subset(&cands[k].writes, &cands[j].writes) && bits_subset(&in[j], &in[k])) b->repl[k] = j;
    }
  }
  /* repl[k] precedes k in the (cost, index) order: following it ends at a kept candidate. */
  for (unsigned k = 0; k < n; k++)
    while (b->repl[b->repl[k]] != b->repl[k]) b->repl[k] = b->repl[b->repl[k]];
  for (unsigned k = 0; k < n; k++) {
    b->col[k] = -1;
    if (b->repl[k] == k) {
      b->col[k] = (int)b->num;
      b->cand[b->num++] = k;
    }
  }
  free(in);
  return KR_SUCCESS;
}

/* The node-usage rows, valid inequalities that tighten the LP relaxation (they remove no plan).
 * Let v be a node of region r from which a live_out node of r is reachable inside r ("needed").
 *   c<v>:     sum_{k computes v} x_k >= 1
 *   e<u>_<v>: sum_{k computes u and v} x_k + w_v >= 1     for needed u and each operand v in r
 * c: by induction along the path to the live_out node o: o is written by a chosen kernel, and
 * the kernel computing a node either computes its operand too or reads it, and then a chosen
 * kernel wrote it.  e: the chosen kernel computing u either computes v or reads it, and then v
 * is in memory (w_v = 1; without w_v no kept candidate reads v, so it must compute v).
 * cols/coefs hold at least b->num + 1 entries.  Returns the number of rows kr_milp_add_row
 * rejected (after its diagnostics). */
static unsigned add_usage_rows(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, const blp_cols *b,
                           const bool *needed, const int *wcol, kr_milp *m, int *cols, double *coefs) {
  unsigned first = g->regions[r].first, size = g->regions[r].n, bad = 0;
  char name[32];
  for (unsigned v = 0; v < size; v++) {
    if (!needed[v]) continue;
    unsigned nc = 0;
    for (unsigned c = 0; c < b->num; c++)
      if (kr_bits_test(&cands[b->cand[c]].nodes, v)) {
        cols[nc] = (int)c;
        coefs[nc++] = 1;
      }
    snprintf(name, sizeof name, "c%u", v);
    bad += kr_milp_add_row(m, name, cols, coefs, nc, 1, INFINITY) < 0;
  }
  for (unsigned u = 0; u < size; u++) {
    if (!needed[u]) continue;
    const kr_orch_node *nd = &g->nodes[first + u];
    for (unsigned e = 0; e < nd->num_preds; e++) {
      unsigned p = nd->preds[e];
      if (p < first || p >= first + size) continue;
      unsigned v = p - first, nc = 0;
      for (unsigned c = 0; c < b->num; c++) {
        const kr_bits *nodes = &cands[b->cand[c]].nodes;
        if (kr_bits_test(nodes, u) && kr_bits_test(nodes, v)) {
          cols[nc] = (int)c;
          coefs[nc++] = 1;
        }
      }
      if (wcol[v] >= 0) {
        cols[nc] = wcol[v];
        coefs[nc++] = 1;
      }
      snprintf(name, sizeof name, "e%u_%u", u, v);
      bad += kr_milp_add_row(m, name, cols, coefs, nc, 1, INFINITY) < 0;
    }
  }
  return bad;
}

static const char *func_name(const kr_orch_graph *g) {
  kr_ident s = kr_op_symbol_name(g->func);
  return s ? s : "?";
}

kr_status kr_orch_select_optimal(const kr_orch_graph *g, unsigned r, const kr_candidate *cands, unsigned n,
                                 const kr_orch_plan *greedy, const kr_orch_options *o, kr_orch_plan *out) {
  memset(out, 0, sizeof *out);
  kr_context *ctx = kr_op_context(g->func);
  kr_attr loc = g->func->loc;
  unsigned first = g->regions[r].first, size = g->regions[r].n;
  region_tables t;
  blp_cols b;
  if (KR_FAILED(tables_build(g, r, cands, n, &t))) return KR_FAILURE;
  if (KR_FAILED(reduce_dominated(g, cands, n, &t, &b))) {
    tables_free(&t);
    return KR_FAILURE;
  }
  kr_status st = KR_FAILURE;
  kr_milp *m = kr_milp_create(ctx, loc);
  int *wcol = malloc((size + 1) * sizeof *wcol);
  unsigned *set = malloc((n + 1) * sizeof *set), *order = malloc((n + 1) * sizeof *order);
  bool *read = calloc(size + 1, 1), *needed = calloc(size + 1, 1);
  unsigned maxrow = n + size + 2;
  int *cols = malloc(maxrow * sizeof *cols);
  double *coefs = malloc(maxrow * sizeof *coefs), *start = NULL;
  if (!m || !wcol || !set || !order || !read || !needed || !cols || !coefs) {
    kr_emit_error(ctx, loc, "orchestration: out of memory");
    goto done;
  }
  char name[64];
  unsigned bad = 0;   /* rejected columns and rows */
  for (unsigned c = 0; c < b.num; c++) {
    snprintf(name, sizeof name, "x%u", b.cand[c]);
    bad += kr_milp_add_col(m, name, KR_MILP_BINARY, 0, 1, cands[b.cand[c]].cost_us) < 0;
  }
  /* w_t for the tensors some kept candidate reads, and the live_out ones (integer: see the file
   * comment). */
  for (unsigned c = 0; c < b.num; c++) {
    unsigned k = b.cand[c];
    for (unsigned e = t.in_off[k]; e < t.in_off[k + 1]; e++) read[t.in[e]] = true;
  }
  for (unsigned v = 0; v < size; v++) {
    wcol[v] = -1;
    bool live = g->nodes[first + v].live_out;
    if (!read[v] && !live) continue;
    snprintf(name, sizeof name, "w%u", v);
    wcol[v] = kr_milp_add_col(m, name, KR_MILP_INTEGER, live ? 1 : 0, 1, 0);
    bad += wcol[v] < 0;
    unsigned nc = 0;
    for (unsigned e = t.wr_off[v]; e < t.wr_off[v + 1]; e++)
      if (b.col[t.wr[e]] >= 0) {
        cols[nc] = b.col[t.wr[e]];
        coefs[nc++] = 1;
      }
    cols[nc] = wcol[v];
    coefs[nc++] = -1;
    snprintf(name, sizeof name, "d%u", v);
    bad += kr_milp_add_row(m, name, cols, coefs, nc, 0, INFINITY) < 0;
  }
  for (unsigned c = 0; c < b.num; c++) {
    unsigned k = b.cand[c];
    for (unsigned e = t.in_off[k]; e < t.in_off[k + 1]; e++) {
      int c2[2] = {wcol[t.in[e]], (int)c};
      double a2[2] = {1, -1};
      snprintf(name, sizeof name, "i%u_%u", k, t.in[e]);
      bad += kr_milp_add_row(m, name, c2, a2, 2, 0, INFINITY) < 0;
    }
  }
  region_needed(g, r, needed);
  bad += add_usage_rows(g, r, cands, &b, needed, wcol, m, cols, coefs);
  /* A rejected column or row (kr_milp_add_col/add_row reported why: e.g. a cost out of range)
   * is an error in the model, not a solver failure: no fallback. */
  if (bad) goto done;
  /* The greedy plan as MIP start, each candidate replaced by its kept dominator (still a plan,
   * no dearer: see reduce_dominated). */
  unsigned ncols = kr_milp_num_cols(m);
  start = calloc(ncols + 1, sizeof *start);
  if (!start) {
    kr_emit_error(ctx, loc, "orchestration: out of memory");
    goto done;
  }
  for (unsigned i = 0; i < greedy->num_chosen; i++) {
    unsigned k = b.repl[greedy->chosen[i]];
    start[b.col[k]] = 1;
    for (unsigned v = 0; v < size; v++)
      if (kr_bits_test(&cands[k].writes, v) && wcol[v] >= 0) start[wcol[v]] = 1;
  }

  char path[4096];
  const char *dump = NULL;
  if (o->dump_milp_dir && o->dump_milp_dir[0]) {
    snprintf(path, sizeof path, "%s/%s.region%u.lp", o->dump_milp_dir, func_name(g), r);
    dump = path;
  }
  double spent = 0;
  for (;;) {
    kr_milp_set_start(m, start);
    /* The LP dump is written here, not through kr_milp_options.dump_lp, so that a failed dump
     * (reported by kr_milp_write_lp) fails the pass instead of reading as a solver error. */
    if (dump && KR_FAILED(kr_milp_write_lp(m, dump))) goto done;
    kr_milp_options mo = {.time_limit_s = o->time_limit_s > 0 ? fmax(o->time_limit_s - spent, 0.01) : 0,
                          .rel_gap = o->rel_gap,
                          .verbose = false,
                          .dump_lp = NULL};
    kr_milp_result res;
    memset(&res, 0, sizeof res);
    kr_status sst = kr_milp_solve(m, &mo, &res);
    spent += res.seconds;
    out->solve_seconds = spent;
    out->num_vars = kr_milp_num_cols(m);
    out->num_rows = kr_milp_num_rows(m);
    out->status = KR_FAILED(sst) ? KR_MILP_ERROR : res.status;
    if (out->status != KR_MILP_OPTIMAL && out->status != KR_MILP_FEASIBLE) {
      kr_emit_warning(ctx, loc, "orchestration: region %u of @%s: the BLP solve ended '%s'; using the greedy plan", r,
                      func_name(g), kr_milp_status_name(out->status));
      if (KR_FAILED(copy_plan(greedy, out, ctx, loc))) goto done;
      out->gap = 0;
      break;
    }
    /* The solver's gap: 0 when proven optimal with rel_gap 0; with rel_gap > 0 an "optimal"
     * plan is only proven within rel_gap, and the gap says how far it may be from the optimum. */
    out->gap = res.gap > 0 ? res.gap : 0;
    unsigned mm = 0;
    for (unsigned c = 0; c < b.num; c++)
      if (res.values[c] > 0.5) set[mm++] = b.cand[c];
    order_result ord;
    if (KR_FAILED(launch_order(g, cands, n, &t, set, mm, order, &ord))) goto done;
    if (ord.ok) {
      order_result_free(&ord);
      out->chosen = malloc((mm + 1) * sizeof *out->chosen);
      if (!out->chosen) {
        kr_emit_error(ctx, loc, "orchestration: out of memory");
        goto done;
      }
      memcpy(out->chosen, order, mm * sizeof *order);
      out->num_chosen = mm;
      out->cost_us = plan_cost(cands, out->chosen, mm);
      if (out->status == KR_MILP_FEASIBLE)
        kr_emit_warning(ctx, loc,
                        "orchestration: region %u of @%s: the BLP stopped at the time limit (%g s) with a relative "
                        "gap of %.4g; keeping the best plan found",
                        r, func_name(g), o->time_limit_s, out->gap);
      break;
    }
    bool give_up = ord.broken || out->num_cuts >= MAX_CUTS || (o->time_limit_s > 0 && spent >= o->time_limit_s);
    if (!give_up) {
      /* Dominated writers have no column (they are 0 in every solution). */
      unsigned nc = 0;
      for (size_t q = 0; q < ord.cut_in.len; q++) {
        cols[nc] = b.col[KR_VEC_AT(&ord.cut_in, unsigned, q)];
        coefs[nc++] = 1;
      }
      for (size_t q = 0; q < ord.cut_out.len && nc < maxrow; q++) {
        int c = b.col[KR_VEC_AT(&ord.cut_out, unsigned, q)];
        if (c < 0) continue;
        cols[nc] = c;
        coefs[nc++] = -1;
      }
      snprintf(name, sizeof name, "cut%u", out->num_cuts);
      if (kr_milp_add_row(m, name, cols, coefs, nc, -INFINITY, (double)ord.cut_in.len - 1) < 0) {
        order_result_free(&ord);
        goto done;
      }
      out->num_cuts++;
    }
    order_result_free(&ord);
    if (give_up) {
      kr_emit_warning(ctx, loc,
                      "orchestration: region %u of @%s: no orderable BLP solution after %u cycle cuts; using the "
                      "greedy plan",
                      r, func_name(g), out->num_cuts);
      out->status = KR_MILP_NO_SOLUTION;
      if (KR_FAILED(copy_plan(greedy, out, ctx, loc))) goto done;
      break;
    }
  }
  st = KR_SUCCESS;
done:
  if (KR_FAILED(st)) {
    free(out->chosen);
    out->chosen = NULL;
    out->num_chosen = 0;
  }
  tables_free(&t);
  blp_cols_free(&b);
  if (m) kr_milp_destroy(m);
  free(wcol);
  free(set);
  free(order);
  free(read);
  free(needed);
  free(cols);
  free(coefs);
  free(start);
  return st;
}
