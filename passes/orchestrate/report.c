/* passes/orchestrate/report.c - what orchestration decided, for people: the orchestration
 * report (plain text tables, `orchestrate{report=FILE}`) and a Graphviz picture of kernels over
 * primitives (`orchestrate{view-graph=FILE.dot}`), docs/Orchestration.md "Report and graph".
 * Both are deterministic text (node and candidate order only), except the report's solve-time
 * column, which is wall-clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/file.h"
#include "passes/orchestrate/report.h"

void kr_orch_report_header(kr_ostream *os, const kr_target *t, const char *mode, const kr_orch_options *o) {
  kr_ostream_printf(os, "korch orchestration report\n");
  kr_ostream_printf(os, "target: %s (%s)\n", t->name, t->gpu);
  kr_ostream_printf(os, "mode: %s; max-size %u, max-region %u, max-candidates %u, time-limit %g s, rel-gap %g\n",
                    mode, o->max_size, o->max_region, o->max_candidates, o->time_limit_s, o->rel_gap);
  kr_ostream_printf(os, "costs are modelled (or profiled) kernel times in microseconds\n");
}

static double sum_cost(const kr_orch_plan *p, unsigned n) {
  double c = 0;
  for (unsigned r = 0; r < n; r++) c += p[r].cost_us;
  return c;
}

static unsigned sum_kernels(const kr_orch_plan *p, unsigned n) {
  unsigned c = 0;
  for (unsigned r = 0; r < n; r++) c += p[r].num_chosen;
  return c;
}

/* One kernel of a function's emitted plan (f->chosen), visited in emission order by
 * next_plan_kernel, starting from a zeroed struct:
 *   for (plan_kernel k = {0}; next_plan_kernel(f, &k);) ... */
typedef struct plan_kernel {
  unsigned r;                  /* its region */
  unsigned kn;                 /* its number in the function (kr_orch_kernel_name's n) */
  const kr_orch_plan *p;       /* the region's plan */
  const kr_candidate *cands;   /* the region's candidates (p->chosen indexes them) */
  const kr_candidate *c;       /* the kernel */
  unsigned next, count;        /* iteration state: next index into p->chosen, kernels visited */
} plan_kernel;

/* Moves k to the next kernel of f's plan; false after the last one. */
static bool next_plan_kernel(const kr_orch_func_result *f, plan_kernel *k) {
  while (k->r < f->g->num_regions && k->next >= f->chosen[k->r].num_chosen) k->r++, k->next = 0;
  if (k->r >= f->g->num_regions) return false;
  k->p = &f->chosen[k->r];
  k->cands = KR_VEC_DATA(&f->cands[k->r], kr_candidate);
  k->c = &k->cands[k->p->chosen[k->next++]];
  k->kn = k->count++;
  return true;
}

/* How many kernels of k's region plan compute node u of the region (> 1: u is recomputed). */
static unsigned times_chosen(const plan_kernel *k, unsigned u) {
  unsigned times = 0;
  for (unsigned j = 0; j < k->p->num_chosen; j++) times += kr_bits_test(&k->cands[k->p->chosen[j]].nodes, u);
  return times;
}

/* The report's status of a region plan, from best to worst (docs/Orchestration.md, "Report and
 * graph"): optimal (proven), within-gap (optimal within rel-gap, the gap not 0), time-limit,
 * no-solution, infeasible, error; the total row shows the worst. */
typedef enum report_status { RS_OPTIMAL, RS_WITHIN_GAP, RS_TIME_LIMIT, RS_NO_SOLUTION, RS_INFEASIBLE, RS_ERROR } report_status;

static report_status plan_status(const kr_orch_plan *p) {
  switch (p->status) {
  case KR_MILP_OPTIMAL: return p->gap > 0 ? RS_WITHIN_GAP : RS_OPTIMAL;
  case KR_MILP_FEASIBLE: return RS_TIME_LIMIT;
  case KR_MILP_NO_SOLUTION: return RS_NO_SOLUTION;
  case KR_MILP_INFEASIBLE: return RS_INFEASIBLE;
  case KR_MILP_ERROR: return RS_ERROR;
  }
  return RS_ERROR;
}

static const char *short_status(report_status s) {
  static const char *const names[] = {"optimal", "within-gap", "time-limit", "no-solution", "infeasible", "error"};
  return names[s];
}

/* "1.230x", or "-" when the divisor is 0 (nothing to run: every primitive is dead code). */
static void speedup(char *buf, size_t cap, double num, double den) {
  if (den > 0)
    snprintf(buf, cap, "%.3fx", num / den);
  else
    snprintf(buf, cap, "-");
}

void kr_orch_report_function(kr_ostream *os, const kr_orch_func_result *f) {
  const kr_orch_graph *g = f->g;
  unsigned nr = g->num_regions;
  kr_ident fname = kr_op_symbol_name(g->func);
  kr_ostream_printf(os, "\nfunction @%s: %u primitives in %u region%s\n", fname ? fname : "?", g->num_nodes, nr,
                    nr == 1 ? "" : "s");
  kr_ostream_printf(os, "%-7s %6s %11s %6s %6s %5s %9s %-11s %8s %11s %11s %11s\n", "region", "prims", "candidates",
                    "vars", "rows", "cuts", "solve-ms", "status", "gap", "unfused-us", "greedy-us", "optimal-us");
  unsigned tc = 0, tv = 0, tr = 0, tcuts = 0;
  double tsolve = 0, maxsolve = 0, maxgap = 0;
  bool any_trunc = false;
  report_status worst = RS_OPTIMAL;
  for (unsigned r = 0; r < nr; r++) {
    unsigned nc = (unsigned)f->cands[r].len;
    char cbuf[32];
    snprintf(cbuf, sizeof cbuf, "%u%s", nc, f->truncated[r] ? "*" : "");
    any_trunc |= f->truncated[r];
    tc += nc;
    kr_ostream_printf(os, "%-7u %6u %11s ", r, g->regions[r].n, cbuf);
    if (f->optimal) {
      const kr_orch_plan *p = &f->optimal[r];
      kr_ostream_printf(os, "%6u %6u %5u %9.1f %-11s %8.2g %11.3f %11.3f %11.3f\n", p->num_vars, p->num_rows, p->num_cuts,
                        p->solve_seconds * 1e3, short_status(plan_status(p)), p->gap, f->unfused[r].cost_us,
                        f->greedy[r].cost_us, p->cost_us);
      tv += p->num_vars;
      tr += p->num_rows;
      tcuts += p->num_cuts;
      tsolve += p->solve_seconds;
      if (p->solve_seconds > maxsolve) maxsolve = p->solve_seconds;
      if (p->gap > maxgap) maxgap = p->gap;
      if (plan_status(p) > worst) worst = plan_status(p);
    } else {
      kr_ostream_printf(os, "%6s %6s %5s %9s %-11s %8s %11.3f %11.3f %11s\n", "-", "-", "-", "-", "-", "-",
                        f->unfused[r].cost_us, f->greedy[r].cost_us, "-");
    }
  }
  double cu = sum_cost(f->unfused, nr), cg = sum_cost(f->greedy, nr);
  kr_ostream_printf(os, "%-7s %6u %11u ", "total", g->num_nodes, tc);
  if (f->optimal) {
    double co = sum_cost(f->optimal, nr);
    kr_ostream_printf(os, "%6u %6u %5u %9.1f %-11s %8.2g %11.3f %11.3f %11.3f\n", tv, tr, tcuts, tsolve * 1e3,
                      short_status(worst), maxgap, cu, cg, co);
  } else {
    kr_ostream_printf(os, "%6s %6s %5s %9s %-11s %8s %11.3f %11.3f %11s\n", "-", "-", "-", "-", "-", "-", cu, cg, "-");
  }
  if (any_trunc) kr_ostream_printf(os, "* the enumeration stopped at max-candidates in this region\n");
  kr_ostream_printf(os, "kernels: unfused %u, greedy %u", sum_kernels(f->unfused, nr), sum_kernels(f->greedy, nr));
  if (f->optimal) kr_ostream_printf(os, ", optimal %u", sum_kernels(f->optimal, nr));
  kr_ostream_printf(os, "\n");
  char s1[32], s2[32];
  if (f->optimal) {
    double co = sum_cost(f->optimal, nr);
    speedup(s1, sizeof s1, cu, co);
    speedup(s2, sizeof s2, cg, co);
    kr_ostream_printf(os, "speedup of optimal: %s over unfused, %s over greedy (slowest region solve %.1f ms)\n", s1, s2,
                      maxsolve * 1e3);
  } else {
    speedup(s1, sizeof s1, cu, cg);
    kr_ostream_printf(os, "speedup of greedy: %s over unfused\n", s1);
  }

  /* The kernels of the emitted plan. */
  kr_ostream_printf(os, "%-20s %-10s %11s  %s\n", "kernel", "kind", "cost-us", "primitives (recomputed marked *)");
  for (plan_kernel k = {0}; next_plan_kernel(f, &k);) {
    const kr_candidate *c = k.c;
    unsigned first = g->regions[k.r].first, size = g->regions[k.r].n;
    char name[256];
    kr_orch_kernel_name(g, k.kn, name, sizeof name);
    kr_ostream_printf(os, "%-20s %-10s %11.3f %s", name, kr_kernel_kind_name(c->kind), c->cost_us,
                      c->profiled ? "(profiled) " : "");
    unsigned recomputed = 0;
    bool firstp = true;
    for (unsigned u = 0; u < size; u++) {
      if (!kr_bits_test(&c->nodes, u)) continue;
      unsigned times = times_chosen(&k, u);
      kr_ostream_printf(os, "%s%s%s", firstp ? " " : ", ", g->nodes[first + u].op->name, times > 1 ? "*" : "");
      firstp = false;
      recomputed += times > 1;
    }
    if (recomputed) kr_ostream_printf(os, "  [recomputed: %u]", recomputed);
    kr_ostream_printf(os, "\n");
  }
}

/* ---------------------------------------------------------------------------------------------
 * DOT. */

static void dot_type(kr_ostream *os, kr_type t) {
  kr_ostream tmp;
  kr_ostream_init_mem(&tmp);
  kr_type_print(&tmp, t);
  const char *s = kr_ostream_str(&tmp);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') kr_ostream_putc(os, '\\');
    kr_ostream_putc(os, *s);
  }
  kr_ostream_close(&tmp);
}

void kr_orch_dot_begin(kr_ostream *os) {
  kr_ostream_puts(os, "digraph korch {\n  rankdir=TB;\n  compound=true;\n"
                      "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
                      "  edge [fontname=\"Helvetica\", fontsize=9];\n");
}

void kr_orch_dot_end(kr_ostream *os) { kr_ostream_puts(os, "}\n"); }

typedef struct dot_state {
  const kr_orch_graph *g;
  unsigned index;
  int *writer;                 /* per global node: the kernel number of its first writer, or -1 */
  unsigned *kbase;             /* per region: the number of its first kernel */
  kr_hmap node_index;          /* value -> global node + 1 */
  kr_hmap const_index;         /* constant op -> index + 1 in the function body */
} dot_state;

static void *hget(const kr_hmap *m, const void *k) {
  kr_hmap_entry *e = kr_hmap_find(m, kr_hash_ptr(k), k);
  return e ? e->value : NULL;
}

static void hput(kr_hmap *m, const void *k, void *v) { kr_hmap_insert(m, kr_hash_ptr(k), k, NULL)->value = v; }

/* The DOT node id of the source of `v` as seen from kernel `kn` (-1: the host). */
static void dot_source(kr_ostream *os, dot_state *s, kr_value v, int kn, const kr_bits *in_kernel, unsigned r) {
  unsigned p = (unsigned)(uintptr_t)hget(&s->node_index, v);
  if (p) {
    unsigned gi = p - 1;
    bool inside = in_kernel && s->g->nodes[gi].region == r && kr_bits_test(in_kernel, s->g->nodes[gi].local);
    kr_ostream_printf(os, "f%u_k%d_n%u", s->index, inside ? kn : s->writer[gi], gi);
    return;
  }
  if (v->is_block_arg) {
    kr_ostream_printf(os, "f%u_a%u", s->index, v->index);
    return;
  }
  unsigned c = (unsigned)(uintptr_t)hget(&s->const_index, kr_value_defining_op(v));
  kr_ostream_printf(os, "f%u_c%u", s->index, c ? c - 1 : 0);
}

void kr_orch_dot_function(kr_ostream *os, unsigned index, const kr_orch_func_result *f) {
  const kr_orch_graph *g = f->g;
  dot_state s = {.g = g, .index = index};
  s.writer = malloc((g->num_nodes + 1) * sizeof *s.writer);
  s.kbase = malloc((g->num_regions + 1) * sizeof *s.kbase);
  if (!s.writer || !s.kbase) goto done;
  for (unsigned i = 0; i < g->num_nodes; i++) {
    s.writer[i] = -1;
    hput(&s.node_index, kr_op_result(g->nodes[i].op, 0), (void *)(uintptr_t)(i + 1));
  }
  unsigned kn = 0;
  for (unsigned r = 0; r < g->num_regions; r++) {
    const kr_candidate *cands = KR_VEC_DATA(&f->cands[r], kr_candidate);
    s.kbase[r] = kn;
    for (unsigned i = 0; i < f->chosen[r].num_chosen; i++, kn++) {
      const kr_candidate *c = &cands[f->chosen[r].chosen[i]];
      for (unsigned u = 0; u < g->regions[r].n; u++)
        if (kr_bits_test(&c->writes, u) && s.writer[g->regions[r].first + u] < 0)
          s.writer[g->regions[r].first + u] = (int)kn;
    }
  }
  kr_ident fname = kr_op_symbol_name(g->func);
  kr_block *body = g->func->regions[0].first;
  kr_ostream_printf(os, "  subgraph cluster_f%u {\n    label=\"@%s\";\n    style=dashed;\n", index, fname ? fname : "?");
  /* Arguments, constants that are not inside a kernel (all of them: plain nodes) and results. */
  for (unsigned a = 0; body && a < body->num_args; a++) {
    kr_ostream_printf(os, "    f%u_a%u [label=\"%%arg%u : ", index, a, a);
    dot_type(os, kr_value_type(body->args[a]));
    kr_ostream_puts(os, "\", shape=ellipse, style=solid];\n");
  }
  unsigned nconst = 0;
  for (kr_op *op = body ? body->first : NULL; op; op = op->next) {
    if (!kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE) && strcmp(op->name, KR_PRIM_CONSTANT_OP)) continue;
    if (op->num_results != 1) continue;
    hput(&s.const_index, op, (void *)(uintptr_t)(nconst + 1));
    kr_ostream_printf(os, "    f%u_c%u [label=\"%s : ", index, nconst, op->name);
    dot_type(os, kr_value_type(kr_op_result(op, 0)));
    kr_ostream_puts(os, "\", shape=note, style=solid];\n");
    nconst++;
  }
  kr_ostream_printf(os, "    f%u_ret [label=\"return\", shape=ellipse, style=solid];\n", index);
  /* Kernels. */
  for (plan_kernel k = {0}; next_plan_kernel(f, &k);) {
    unsigned first = g->regions[k.r].first, size = g->regions[k.r].n;
    char name[256];
    kr_orch_kernel_name(g, k.kn, name, sizeof name);
    kr_ostream_printf(os, "    subgraph cluster_f%u_k%u {\n      label=\"%s (%s, %.3f us)\";\n      style=rounded;\n",
                      index, k.kn, name, kr_kernel_kind_name(k.c->kind), k.c->cost_us);
    for (unsigned u = 0; u < size; u++) {
      if (!kr_bits_test(&k.c->nodes, u)) continue;
      kr_ostream_printf(os, "      f%u_k%u_n%u [label=\"%s\"%s];\n", index, k.kn, first + u,
                        g->nodes[first + u].op->name,
                        times_chosen(&k, u) > 1 ? ", style=\"rounded,dashed\", color=red, fontcolor=red" : "");
    }
    kr_ostream_puts(os, "    }\n");
  }
  /* Edges: the operands of every primitive copy, then the results. */
  for (plan_kernel k = {0}; next_plan_kernel(f, &k);) {
    unsigned first = g->regions[k.r].first, size = g->regions[k.r].n;
    for (unsigned u = 0; u < size; u++) {
      if (!kr_bits_test(&k.c->nodes, u)) continue;
      kr_op *op = g->nodes[first + u].op;
      for (unsigned o = 0; o < op->num_operands; o++) {
        kr_value v = kr_op_operand(op, o);
        kr_ostream_puts(os, "    ");
        dot_source(os, &s, v, (int)k.kn, &k.c->nodes, k.r);
        kr_ostream_printf(os, " -> f%u_k%u_n%u [label=\"", index, k.kn, first + u);
        dot_type(os, kr_value_type(v));
        kr_ostream_puts(os, "\"];\n");
      }
    }
  }
  kr_op *term = body ? kr_block_terminator(body) : NULL;
  for (unsigned o = 0; term && o < term->num_operands; o++) {
    kr_value v = kr_op_operand(term, o);
    kr_ostream_puts(os, "    ");
    dot_source(os, &s, v, -1, NULL, 0);
    kr_ostream_printf(os, " -> f%u_ret [label=\"#%u\"];\n", index, o);
  }
  kr_ostream_puts(os, "  }\n");
done:
  kr_hmap_free(&s.node_index);
  kr_hmap_free(&s.const_index);
  free(s.writer);
  free(s.kbase);
}

/* ---------------------------------------------------------------------------------------------
 * Files. */

kr_status kr_orch_write_file(kr_context *ctx, kr_attr loc, const char *path, kr_ostream *os) {
  /* korch/file.h: atomic for a regular file, in place for /dev/null or a FIFO, through links. */
  kr_file_output out;
  int err = kr_file_output_open(&out, path);
  if (err) {
    const char *failed = kr_file_output_failed_path(&out);
    kr_status st = kr_emit_error(ctx, loc, "orchestration: cannot %s '%s': %s", out.tmp_path ? "create" : "write",
                                 failed ? failed : path, strerror(err));
    kr_file_output_abort(&out);
    return st;
  }
  const char *text = os->len ? kr_ostream_str(os) : "";
  fwrite(text, 1, strlen(text), out.file); /* a short write sets the stream's error: commit reports it */
  err = kr_file_output_commit(&out, false);
  if (err) {
    kr_file_output_abort(&out);
    return kr_emit_error(ctx, loc, "orchestration: cannot write '%s': %s", path, strerror(err));
  }
  return KR_SUCCESS;
}
