/* tools/korch-compile/report.c - report.txt (docs/Compile.md "report.txt"): what korch-compile
 * decided, for people.  The orchestration section is the orchestrate pass's own report
 * (passes/orchestrate/report.c, docs/Orchestration.md "Report and graph"), included as it is; the
 * kernel table joins the kernel level (primitives per kernel, korch.cost_us) with the artifact's
 * plan (template, launch shape, ptxas figures) read back with the runtime's own reader, so the
 * report shows what korch-run will see. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "korch/kernel.h"
#include "korch/target.h"
#include "runtime.h"

typedef struct orch_totals {
  bool found;
  unsigned prims;
  double unfused, greedy, optimal;
  bool have_optimal;
} orch_totals;

/* The sums over functions of the orchestration report's "function @f: N primitives" and "total"
 * rows (the last three columns: unfused-us, greedy-us, optimal-us or '-'). */
static orch_totals parse_orchestration(const char *text) {
  orch_totals t = {0};
  t.have_optimal = true;
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    char buf[512];
    if (len < sizeof buf) {
      memcpy(buf, line, len);
      buf[len] = 0;
      unsigned n;
      if (!strncmp(buf, "function @", 10)) {
        const char *c = strstr(buf, ": ");
        if (c && sscanf(c + 2, "%u primitives", &n) == 1) t.prims += n;
      } else if (!strncmp(buf, "total ", 6)) {
        char *tok[16];
        unsigned nt = 0;
        for (char *s = strtok(buf, " "); s && nt < 16; s = strtok(NULL, " ")) tok[nt++] = s;
        if (nt >= 4) {
          t.found = true;
          t.unfused += atof(tok[nt - 3]);
          t.greedy += atof(tok[nt - 2]);
          if (!strcmp(tok[nt - 1], "-"))
            t.have_optimal = false;
          else
            t.optimal += atof(tok[nt - 1]);
        }
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  if (!t.found) t.have_optimal = false;
  return t;
}

static kr_op *find_kernel(kr_op *module, const char *name) {
  kr_block *b = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = b ? b->first : NULL; op; op = op->next) {
    if (strcmp(op->name, KR_KERNEL_FUNC_OP)) continue;
    kr_ident s = kr_op_symbol_name(op);
    if (s && !strcmp(s, name)) return op;
  }
  return NULL;
}

static double kernel_cost(kr_op *k, bool *have) {
  kr_attr a = k ? kr_op_get_attr(k, KR_KERNEL_ATTR_COST_US) : NULL;
  *have = a && a->kind == KR_ATTR_FLOAT;
  return *have ? a->u.f : 0;
}

static void speedup(kr_ostream *os, const char *what, double num, double den) {
  if (den > 0)
    kr_ostream_printf(os, "%.3fx over %s", num / den, what);
  else
    kr_ostream_printf(os, "- over %s", what);
}

static void figure(char *buf, size_t cap, int64_t v) {
  if (v < 0)
    snprintf(buf, cap, "-");
  else
    snprintf(buf, cap, "%lld", (long long)v);
}

static void dims(char *buf, size_t cap, const kr_rt_tensor *t) {
  if (!t->rank) {
    snprintf(buf, cap, "scalar");
    return;
  }
  size_t w = 0;
  for (unsigned i = 0; i < t->rank && w < cap; i++)
    w += (size_t)snprintf(buf + w, cap - w, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
}

static void tensors(kr_ostream *os, const char *what, const kr_rt_tensor *t, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    char shape[160];
    dims(shape, sizeof shape, &t[i]);
    kr_ostream_printf(os, "%-7s %-24s %-5s %-20s %-7s %12llu %12llu\n", what, t[i].name, t[i].dtype, shape,
                      t[i].ref.region == KR_RT_ARENA ? "arena" : "weights", (unsigned long long)t[i].ref.offset,
                      (unsigned long long)t[i].ref.bytes);
  }
}

bool kc_report_write(kr_ostream *os, const kc_report_input *in, char *err, size_t cap) {
  kr_rt_plan plan;
  kr_rt_error rerr;
  if (kr_rt_plan_load(in->plan_path, &plan, &rerr) != KR_RT_OK) {
    snprintf(err, cap, "%s", rerr.msg);
    return false;
  }
  kr_target target;
  bool have_target = !KR_FAILED(kr_target_of_module(in->module, &target));

  /* Totals. */
  orch_totals ot = in->orchestration ? parse_orchestration(in->orchestration) : (orch_totals){0};
  unsigned kernel_prims = 0;
  double cost_sum = 0;
  bool all_costs = plan.num_kernels > 0;
  for (unsigned i = 0; i < plan.num_kernels; i++) {
    for (unsigned j = 0; j < in->num_prims; j++)
      if (!strcmp(in->prims[j].name, plan.kernels[i].name)) kernel_prims += in->prims[j].prims;
    bool have;
    double c = kernel_cost(find_kernel(in->module, plan.kernels[i].name), &have);
    cost_sum += c;
    all_costs &= have;
  }

  kr_ostream_printf(os, "korch-compile report\n");
  kr_ostream_printf(os, "input: %s (%s, %s level)\n", in->input, in->input_kind, in->level);
  kr_ostream_printf(os, "output: %s\n", in->outdir);
  if (have_target)
    kr_ostream_printf(os, "target: %s (%s), gpu-arch %s\n", target.name, target.gpu, plan.gpu_arch);
  else
    kr_ostream_printf(os, "target: %s, gpu-arch %s\n", plan.target, plan.gpu_arch);
  kr_ostream_printf(os, "pipeline: %s\n", in->pipeline);
  bool ptxas_ran = false;
  for (unsigned i = 0; i < plan.num_kernels; i++) ptxas_ran |= plan.kernels[i].registers >= 0;
  kr_ostream_printf(os, "ptxas: %s\n", ptxas_ran ? "ran (registers and spills below)" : "not run (no figures)");

  kr_ostream_printf(os, "\n== summary\n");
  kr_ostream_printf(os, "kernels: %u (%u launches)\n", plan.num_kernels, plan.num_launches);
  if (ot.found || in->num_prims)
    kr_ostream_printf(os, "primitives: %u\n", ot.found ? ot.prims : kernel_prims);
  else
    kr_ostream_printf(os, "primitives: - (the input was already scheduled)\n");
  if (ot.found && ot.have_optimal) {
    kr_ostream_printf(os, "modelled time (us): optimal %.3f, greedy %.3f, unfused %.3f\n", ot.optimal, ot.greedy,
                      ot.unfused);
    kr_ostream_printf(os, "speedup of optimal: ");
    speedup(os, "greedy", ot.greedy, ot.optimal);
    kr_ostream_printf(os, ", ");
    speedup(os, "unfused", ot.unfused, ot.optimal);
    kr_ostream_printf(os, "\n");
  } else if (ot.found) {
    /* orchestrate{mode=greedy|unfused}: no BLP. */
    kr_ostream_printf(os, "modelled time (us): optimal -, greedy %.3f, unfused %.3f (no BLP: orchestrate's mode)\n",
                      ot.greedy, ot.unfused);
    kr_ostream_printf(os, "speedup of greedy: ");
    speedup(os, "unfused", ot.unfused, ot.greedy);
    kr_ostream_printf(os, "\n");
  } else {
    kr_ostream_printf(os, "modelled time (us): %s%.3f (sum of the kernels' korch.cost_us; orchestrate did not run)\n",
                      all_costs ? "" : "at least ", cost_sum);
  }
  kr_ostream_printf(os, "arena: %llu bytes (no reuse: %llu bytes)\n", (unsigned long long)plan.arena_bytes,
                    (unsigned long long)plan.no_reuse_bytes);
  kr_ostream_printf(os, "weights: %llu bytes\n", (unsigned long long)plan.weights_bytes);
  if (in->emit_candidates) kr_ostream_printf(os, "candidates written: %u\n", in->num_candidates);
  if (in->svg_note) kr_ostream_printf(os, "%s\n", in->svg_note);
  kr_ostream_printf(os, "compile time: %.3f s (until the report); peak RSS: %.1f MiB\n", in->total_seconds,
                    in->peak_rss_kib / 1024.0);

  kr_ostream_printf(os, "\n== orchestration\n");
  if (in->orchestration)
    kr_ostream_puts(os, in->orchestration);
  else
    kr_ostream_printf(os, "(orchestrate did not run: the input was past the primitive level, or the pipeline has no "
                          "orchestrate)\n");

  kr_ostream_printf(os, "\n== kernels\n");
  kr_ostream_printf(os, "%-24s %5s %-16s %-14s %-12s %11s %9s %11s %12s %8s\n", "kernel", "prims", "template", "grid",
                    "block", "cost-us", "registers", "spill-bytes", "shared-bytes", "launches");
  for (unsigned i = 0; i < plan.num_kernels; i++) {
    const kr_rt_kernel *k = &plan.kernels[i];
    char prims[16] = "-", grid[48] = "-", block[48] = "-", cost[32] = "-", regs[24], spill[24], shared[24];
    for (unsigned j = 0; j < in->num_prims; j++)
      if (!strcmp(in->prims[j].name, k->name)) snprintf(prims, sizeof prims, "%u", in->prims[j].prims);
    unsigned launches = 0;
    for (unsigned l = 0; l < plan.num_launches; l++) {
      const kr_rt_launch *la = &plan.launches[l];
      if (la->kernel != i) continue;
      if (!launches++) {
        snprintf(grid, sizeof grid, "%u,%u,%u", la->grid[0], la->grid[1], la->grid[2]);
        snprintf(block, sizeof block, "%u,%u,%u", la->block[0], la->block[1], la->block[2]);
      }
    }
    bool have;
    double c = kernel_cost(find_kernel(in->module, k->name), &have);
    if (have) snprintf(cost, sizeof cost, "%.3f", c);
    figure(regs, sizeof regs, k->registers);
    figure(spill, sizeof spill, k->spill_bytes);
    figure(shared, sizeof shared, k->shared_bytes);
    kr_ostream_printf(os, "%-24s %5s %-16s %-14s %-12s %11s %9s %11s %12s %8u\n", k->name, prims,
                      k->template_name && *k->template_name ? k->template_name : "-", grid, block, cost, regs, spill,
                      shared, launches);
  }

  kr_ostream_printf(os, "\n== memory plan\n");
  kr_ostream_printf(os, "function @%s, alignment %llu bytes\n", plan.function, (unsigned long long)plan.alignment);
  kr_ostream_printf(os, "arena: %llu bytes (the plan's peak); without reuse: %llu bytes",
                    (unsigned long long)plan.arena_bytes, (unsigned long long)plan.no_reuse_bytes);
  if (plan.no_reuse_bytes)
    kr_ostream_printf(os, " (%.1f%% of it)", 100.0 * (double)plan.arena_bytes / (double)plan.no_reuse_bytes);
  kr_ostream_printf(os, "\nweights: %llu bytes\n", (unsigned long long)plan.weights_bytes);
  kr_ostream_printf(os, "%-7s %-24s %-5s %-20s %-7s %12s %12s\n", "io", "name", "dtype", "shape", "region", "offset",
                    "bytes");
  tensors(os, "input", plan.inputs, plan.num_inputs);
  tensors(os, "output", plan.outputs, plan.num_outputs);

  kr_ostream_printf(os, "\n== stage timings (wall seconds; ptxas: CPU seconds of its processes)\n");
  for (unsigned s = 0; s < KC_WRITE; s++) {
    if (s == KC_CANDIDATES && !in->emit_candidates) continue;
    kr_ostream_printf(os, "%-22s %9.3f\n", kc_stage_names[s], in->stage_seconds[s]);
  }
  kr_ostream_printf(os, "%-22s %9.3f (until the report)\n", "total", in->total_seconds);
  kr_ostream_printf(os, "%-22s %9.1f MiB\n", "peak RSS", in->peak_rss_kib / 1024.0);
  kr_rt_plan_free(&plan);
  return true;
}
