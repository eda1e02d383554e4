/* passes/orchestrate/cost.c - the cost of a candidate kernel (Korch, ASPLOS'24, §5.1: each
 * candidate's latency, measured by profiling; here the profile database when it has the
 * candidate, else an analytic roofline model; docs/Orchestration.md "Cost model").
 *
 *   t = launch_overhead_us + max(bytes / DRAM bandwidth, flops / peak)
 *
 * bytes: every distinct tensor the kernel reads (node tensors written by other kernels,
 * function arguments, constants; a splat constant is 0: emission clones it into the kernel as
 * an immediate) once, plus every tensor it writes once.  flops: the sum of its primitives'
 * kr_orch_node::flops (graph.c's rule).  peak: FP32 for injective and reduction kernels; for a
 * linear kernel the tensor-core rate of its linear primitive's element type (TF32 for f32, FP16
 * for f16 and bf16; FP32 for anything else). */
#include <stdlib.h>

#include "korch/dialect.h"
#include "passes/orchestrate/orch.h"

static int64_t value_bytes(kr_value v) {
  kr_op *def = kr_value_defining_op(v);
  if (def && kr_op_has_trait(def, KR_TRAIT_CONSTANT_LIKE)) {
    kr_attr a = kr_op_get_attr(def, "value");
    if (a && a->kind == KR_ATTR_DENSE && a->u.dense.splat) return 0;
  }
  int64_t n = kr_type_num_elements(kr_value_type(v));
  return n < 0 ? 0 : n * (int64_t)kr_type_storage_bytes(kr_type_element(kr_value_type(v)));
}

void kr_orch_cost(const kr_orch_graph *g, kr_candidate *c, const kr_cost_model *m) {
  const kr_target *t = m->target;
  c->profiled = false;
  if (m->db && t) {
    double us = kr_profile_db_lookup(m->db, t->name, c->hash);
    if (us >= 0) {
      c->cost_us = us;
      c->profiled = true;
      return;
    }
  }
  const kr_orch_region *reg = &g->regions[c->region];
  double bytes = 0, flops = 0;
  const kr_orch_node *lin = NULL;
  /* Inputs from other kernels: kr_orch_inputs (distinct node tensors). */
  unsigned stack[64], *in = stack;
  unsigned nin = kr_orch_inputs(g, c, stack, 64);
  if (nin > 64) {
    in = malloc(nin * sizeof *in);
    if (in) kr_orch_inputs(g, c, in, nin);
    else in = stack, nin = 64;
  }
  for (unsigned i = 0; i < nin; i++) bytes += (double)g->nodes[in[i]].bytes;
  if (in != stack) free(in);
  /* External inputs (arguments, constants), distinct by value; writes; flops. */
  kr_vec seen = {0};
  for (unsigned u = 0; u < reg->n; u++) {
    if (!kr_bits_test(&c->nodes, u)) continue;
    const kr_orch_node *nd = &g->nodes[reg->first + u];
    if (nd->cls == KR_PRIM_LINEAR) lin = nd;
    flops += nd->flops;
    if (kr_bits_test(&c->writes, u)) bytes += (double)nd->bytes;
    for (unsigned k = 0; k < nd->op->num_operands; k++) {
      kr_value v = kr_op_operand(nd->op, k);
      kr_op *def = kr_value_defining_op(v);
      if (def && !kr_op_has_trait(def, KR_TRAIT_CONSTANT_LIKE)) continue;   /* a node tensor */
      bool dup = false;
      for (size_t j = 0; j < seen.len && !dup; j++) dup = KR_VEC_AT(&seen, kr_value, j) == v;
      if (dup) continue;
      KR_VEC_PUSH(&seen, kr_value, v);
      bytes += (double)value_bytes(v);
    }
  }
  kr_vec_free(&seen);
  double peak = t ? t->peak_fp32_tflops : 0;
  if (lin && t) {
    kr_type e = kr_type_element(kr_value_type(kr_op_result(lin->op, 0)));
    if (e->kind == KR_TYPE_FLOAT && e->u.fkind == KR_F32) peak = t->peak_tf32_tflops;
    else if (e->kind == KR_TYPE_FLOAT && (e->u.fkind == KR_F16 || e->u.fkind == KR_BF16)) peak = t->peak_fp16_tflops;
  }
  /* bytes / (GB/s * 1e9) s = bytes / (GB/s * 1e3) us; flops / (TFLOP/s * 1e12) s = flops / (TFLOP/s * 1e6) us. */
  double mem_us = t && t->dram_bandwidth_gbs > 0 ? bytes / (t->dram_bandwidth_gbs * 1e3) : 0;
  double cmp_us = peak > 0 ? flops / (peak * 1e6) : 0;
  c->cost_us = (t ? t->launch_overhead_us : 0) + (mem_us > cmp_us ? mem_us : cmp_us);
}
