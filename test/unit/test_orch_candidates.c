/* Unit tests: the first half of orchestration (passes/orchestrate/orch.h; Korch, ASPLOS'24, §4):
 * the prim graph and its regions (graph.c), the schedulability contract and the candidate
 * enumeration with output sets and canonical hashes (candidates.c), and the cost model
 * (cost.c).  Every expected count is worked out by hand in the comments (the connected sub-graphs
 * of a small graph, listed), and enumeration is also checked against a brute force over every
 * subset of a region (kr_orch_schedulable on each of the 2^n sets), which shares no code with
 * the ESU enumeration but the contract check itself. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/korch.h"
#include "passes/orchestrate/orch.h"
#include "test/unit/unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

static kr_op *parse_in(kr_context *c, const char *text) {
  kr_op *m = kr_parse_source(c, "t.kir", text, strlen(text), true);
  ck_assert_msg(m != NULL, "parse failed: %s", last_error);
  return m->regions[0].first->first;   /* the first func.func */
}
static kr_op *parse(const char *text) { return parse_in(ctx, text); }

static kr_orch_options opts(unsigned max_size, unsigned max_candidates) {
  return (kr_orch_options){.max_size = max_size, .max_region = 128, .max_candidates = max_candidates};
}

/* Enumerates region r into *v (freed by the caller). */
static void enumerate(const kr_orch_graph *g, unsigned r, unsigned max_size, unsigned cap, kr_vec *v, bool *trunc) {
  kr_orch_options o = opts(max_size, cap);
  v->len = 0;
  ck_assert_int_eq(kr_orch_enumerate(g, r, &o, v, trunc), KR_SUCCESS);
}

static kr_bits set_of(unsigned n, const unsigned *idx) {
  kr_bits b = {{0}};
  for (unsigned i = 0; i < n; i++) kr_bits_set(&b, idx[i]);
  return b;
}
#define SET(...) set_of(sizeof((unsigned[]){__VA_ARGS__}) / sizeof(unsigned), (unsigned[]){__VA_ARGS__})

static bool sched(const kr_orch_graph *g, kr_bits s, kr_kernel_kind *k) {
  kr_kernel_kind dummy;
  return kr_orch_schedulable(g, 0, &s, 16, k ? k : &dummy);
}

/* Number of candidates with node set `s`. */
static unsigned count_with_nodes(const kr_vec *v, kr_bits s) {
  unsigned n = 0;
  for (size_t i = 0; i < v->len; i++) n += !memcmp(&KR_VEC_AT(v, kr_candidate, i).nodes, &s, sizeof s);
  return n;
}

/* No two candidates share (nodes, writes); every one is schedulable, writes its sinks and only
 * nodes of its set; hashes differ between write sets of one node set. */
static void check_well_formed(const kr_orch_graph *g, unsigned r, const kr_vec *v, unsigned max_size) {
  const kr_candidate *c = v->data;
  const kr_orch_region *reg = &g->regions[r];
  for (size_t i = 0; i < v->len; i++) {
    kr_kernel_kind k;
    ck_assert_msg(kr_orch_schedulable(g, r, &c[i].nodes, max_size, &k), "candidate %zu not schedulable", i);
    ck_assert_int_eq(k, c[i].kind);
    ck_assert_uint_eq(c[i].size, kr_bits_count(&c[i].nodes));
    ck_assert_uint_eq(c[i].region, r);
    for (unsigned u = 0; u < reg->n; u++) {
      if (kr_bits_test(&c[i].writes, u)) ck_assert(kr_bits_test(&c[i].nodes, u));
      if (!kr_bits_test(&c[i].nodes, u)) continue;
      const kr_orch_node *nd = &g->nodes[reg->first + u];
      bool sink = true;
      for (unsigned s = 0; s < nd->num_succs; s++) {
        unsigned t = nd->succs[s];
        if (t >= reg->first && t < reg->first + reg->n && kr_bits_test(&c[i].nodes, t - reg->first)) sink = false;
      }
      if (sink) ck_assert_msg(kr_bits_test(&c[i].writes, u), "candidate %zu does not write sink %u", i, u);
    }
    for (size_t j = 0; j < i; j++) {
      bool same_nodes = !memcmp(&c[i].nodes, &c[j].nodes, sizeof c[i].nodes);
      bool same_writes = !memcmp(&c[i].writes, &c[j].writes, sizeof c[i].writes);
      ck_assert_msg(!(same_nodes && same_writes), "candidates %zu and %zu are duplicates", j, i);
      if (same_nodes) ck_assert(c[i].hash != c[j].hash);
    }
  }
}

/* Brute force: the number of distinct node sets among the candidates equals the number of
 * subsets of the region that kr_orch_schedulable accepts (regions of at most 16 nodes). */
static void check_complete(const kr_orch_graph *g, unsigned r, const kr_vec *v, unsigned max_size) {
  unsigned n = g->regions[r].n;
  ck_assert_uint_le(n, 16);
  unsigned expected = 0;
  for (uint32_t m = 1; m < (1u << n); m++) {
    kr_bits s = {{0}};
    for (unsigned u = 0; u < n; u++)
      if ((m >> u) & 1) kr_bits_set(&s, u);
    kr_kernel_kind k;
    if (!kr_orch_schedulable(g, r, &s, max_size, &k)) continue;
    expected++;
    ck_assert_msg(count_with_nodes(v, s) > 0, "schedulable set %#x was not enumerated", m);
  }
  unsigned distinct = 0;
  const kr_candidate *c = v->data;
  for (size_t i = 0; i < v->len; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++) first = memcmp(&c[i].nodes, &c[j].nodes, sizeof c[i].nodes) != 0;
    distinct += first;
  }
  ck_assert_uint_eq(distinct, expected);
}

/* ---------------------------------------------------------------------------------------------
 * The graph. */
static const char *mm_text =
    "func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<16x4xf32> {\n"
    "  %c = \"prim.constant\"() {value = dense<1.0> : tensor<4x16xf32>} : () -> tensor<4x16xf32>\n"
    "  %0 = \"prim.matmul\"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>\n"
    "  %1 = \"prim.add\"(%0, %c) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>\n"
    "  %2 = \"prim.exp\"(%1) : (tensor<4x16xf32>) -> tensor<4x16xf32>\n"
    "  %3 = \"prim.mul\"(%2, %1) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>\n"
    "  %4 = \"prim.transpose\"(%3) {perm = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>\n"
    "  return %4 : tensor<16x4xf32>\n"
    "}\n";

START_TEST(graph_nodes_edges_bytes_flops) {
  kr_op *f = parse(mm_text);
  kr_orch_graph g;
  ck_assert_int_eq(kr_orch_graph_build(f, 128, &g), KR_SUCCESS);
  ck_assert_uint_eq(g.num_nodes, 5);   /* the constant is an external input */
  ck_assert_str_eq(g.nodes[0].op->name, "prim.matmul");
  ck_assert_int_eq(g.nodes[0].cls, KR_PRIM_LINEAR);
  ck_assert_int_eq(g.nodes[4].cls, KR_PRIM_LAYOUT);
  ck_assert_uint_eq(g.nodes[0].num_preds, 0);
  ck_assert_uint_eq(g.nodes[3].num_preds, 2);   /* mul(%2, %1): {1, 2} sorted */
  ck_assert_uint_eq(g.nodes[3].preds[0], 1);
  ck_assert_uint_eq(g.nodes[3].preds[1], 2);
  ck_assert_uint_eq(g.nodes[1].num_succs, 2);   /* exp and mul */
  ck_assert_uint_eq(g.nodes[1].succs[0], 2);
  ck_assert_uint_eq(g.nodes[1].succs[1], 3);
  for (unsigned i = 0; i < 4; i++) ck_assert(!g.nodes[i].live_out);
  ck_assert(g.nodes[4].live_out);
  ck_assert_int_eq(g.nodes[1].bytes, 4 * 16 * 4);
  ck_assert_double_eq(g.nodes[0].flops, 2.0 * 4 * 16 * 8);   /* 2*M*N*K */
  ck_assert_double_eq(g.nodes[1].flops, 64);                 /* one per element */
  ck_assert_double_eq(g.nodes[2].flops, 4 * 64);             /* transcendental: 4 per element */
  ck_assert_double_eq(g.nodes[4].flops, 0);                  /* layout */
  ck_assert_uint_eq(g.num_regions, 1);
  ck_assert_uint_eq(g.regions[0].n, 5);
  kr_orch_graph_free(&g);
}
END_TEST

START_TEST(graph_conv_and_reduction_flops) {
  kr_op *f = parse(
      "func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> (tensor<1x6x6x6xf32>, tensor<1x6x1x1xf32>, "
      "tensor<1x6x3x3xf32>) {\n"
      "  %0 = \"prim.conv\"(%x, %w) {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, "
      "group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>\n"
      "  %1 = \"prim.reduce_sum\"(%0) {axes = array<i64: 2, 3>} : (tensor<1x6x6x6xf32>) -> tensor<1x6x1x1xf32>\n"
      "  %2 = \"prim.reduce_window\"(%0) {kind = \"max\", window = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, "
      "dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x6xf32>) -> tensor<1x6x3x3xf32>\n"
      "  return %0, %1, %2 : tensor<1x6x6x6xf32>, tensor<1x6x1x1xf32>, tensor<1x6x3x3xf32>\n"
      "}\n");
  kr_orch_graph g;
  ck_assert_int_eq(kr_orch_graph_build(f, 128, &g), KR_SUCCESS);
  ck_assert_uint_eq(g.num_nodes, 3);
  /* conv: 2 * N*M*prod(out) * (C/group) * prod(k) = 2 * 1*6*36 * 2 * 9 */
  ck_assert_double_eq(g.nodes[0].flops, 2.0 * 6 * 36 * 2 * 9);
  ck_assert_double_eq(g.nodes[1].flops, 6 * 36);    /* input elements */
  ck_assert_double_eq(g.nodes[2].flops, 6 * 9 * 4); /* output elements * window */
  for (unsigned i = 0; i < 3; i++) ck_assert(g.nodes[i].live_out);
  kr_orch_graph_free(&g);
}
END_TEST

START_TEST(graph_rejects_op_level) {
  kr_op *f = parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %0 = \"op.relu\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                   "  return %0 : tensor<4xf32>\n"
                   "}\n");
  kr_orch_graph g;
  ck_assert_int_eq(kr_orch_graph_build(f, 128, &g), KR_FAILURE);
  ck_assert_msg(strstr(last_error, "orchestrate needs the prim level: run op-to-prim first") != NULL, "got: %s",
                last_error);
  ck_assert_uint_eq(g.num_nodes, 0);
}
END_TEST

/* A chain of five: every position is a cut point. */
static const char *chain5 =
    "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %1 = \"prim.neg\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %2 = \"prim.abs\"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %3 = \"prim.exp\"(%2) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %4 = \"prim.neg\"(%3) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %4 : tensor<4xf32>\n"
    "}\n";

/* n0 -> n1 -> n2 -> n3 = add(n0, n2) (a residual block), then n4, n5.  Crossing tensors after
 * each position: p0 {n0} (a cut point), p1 {n0, n1}, p2 {n0, n2}, p3 {n3} (a cut point),
 * p4 {n4}, p5 none. */
static const char *residual =
    "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %1 = \"prim.neg\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %2 = \"prim.abs\"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %3 = \"prim.add\"(%0, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  %4 = \"prim.exp\"(%3) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %5 = \"prim.neg\"(%4) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %5 : tensor<4xf32>\n"
    "}\n";

static void check_regions(kr_orch_graph *g, unsigned n, const unsigned *sizes) {
  ck_assert_uint_eq(g->num_regions, n);
  unsigned first = 0;
  for (unsigned r = 0; r < n; r++) {
    ck_assert_uint_eq(g->regions[r].first, first);
    ck_assert_uint_eq(g->regions[r].n, sizes[r]);
    for (unsigned u = 0; u < sizes[r]; u++) {
      ck_assert_uint_eq(g->nodes[first + u].region, r);
      ck_assert_uint_eq(g->nodes[first + u].local, u);
    }
    first += sizes[r];
  }
}

START_TEST(regions_at_cut_points) {
  kr_orch_graph g;
  /* Fits: one region. */
  ck_assert_int_eq(kr_orch_graph_build(parse(chain5), 128, &g), KR_SUCCESS);
  check_regions(&g, 1, (unsigned[]){5});
  kr_orch_graph_free(&g);
  /* A chain splits at every node when max_region is 1, by two with 2 (ties: the latest). */
  ck_assert_int_eq(kr_orch_graph_build(parse(chain5), 1, &g), KR_SUCCESS);
  check_regions(&g, 5, (unsigned[]){1, 1, 1, 1, 1});
  for (unsigned i = 0; i < 5; i++) ck_assert(g.nodes[i].live_out);   /* all read by the next region */
  kr_orch_graph_free(&g);
  ck_assert_int_eq(kr_orch_graph_build(parse(chain5), 2, &g), KR_SUCCESS);
  check_regions(&g, 3, (unsigned[]){2, 2, 1});
  ck_assert(!g.nodes[0].live_out && g.nodes[1].live_out && !g.nodes[2].live_out && g.nodes[3].live_out);
  kr_orch_graph_free(&g);
  /* The residual block is never split inside: max_region 4 -> [n0..n3] [n4 n5] (cut after p3);
   * 3 -> [n0] [n1..n3] [n4 n5] (window p0..p2 crossings 1, 2, 2; then p1..p3: 2, 2, 1). */
  ck_assert_int_eq(kr_orch_graph_build(parse(residual), 4, &g), KR_SUCCESS);
  check_regions(&g, 2, (unsigned[]){4, 2});
  ck_assert(!g.nodes[0].live_out && g.nodes[3].live_out && g.nodes[5].live_out);
  kr_orch_graph_free(&g);
  ck_assert_int_eq(kr_orch_graph_build(parse(residual), 3, &g), KR_SUCCESS);
  check_regions(&g, 3, (unsigned[]){1, 3, 2});
  ck_assert(g.nodes[0].live_out && !g.nodes[1].live_out && g.nodes[3].live_out);
  kr_orch_graph_free(&g);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Candidates. */
START_TEST(chain_counts) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  /* a -> b -> c: connected sets {a} {b} {c} {a,b} {b,c} {a,b,c} (not {a,c}); one output set
   * each (only c is live out, and it is a sink wherever it is). */
  ck_assert_int_eq(kr_orch_graph_build(parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                             "  %0 = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  %1 = \"prim.neg\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  %2 = \"prim.abs\"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  return %2 : tensor<4xf32>\n"
                                             "}\n"),
                                       128, &g),
                   KR_SUCCESS);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert(!trunc);
  ck_assert_uint_eq(v.len, 6);
  for (unsigned i = 0; i < 3; i++) {   /* singles first, in node order */
    ck_assert_uint_eq(KR_VEC_AT(&v, kr_candidate, i).size, 1);
    ck_assert(kr_bits_test(&KR_VEC_AT(&v, kr_candidate, i).nodes, i));
  }
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 2)), 0);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2)), 1);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  kr_orch_graph_free(&g);

  /* a also returned: {a,b} and {a,b,c} may or may not write a -> 6 + 2 = 8. */
  ck_assert_int_eq(kr_orch_graph_build(parse("func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
                                             "  %0 = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  %1 = \"prim.neg\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  %2 = \"prim.abs\"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                             "  return %0, %2 : tensor<4xf32>, tensor<4xf32>\n"
                                             "}\n"),
                                       128, &g),
                   KR_SUCCESS);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert_uint_eq(v.len, 8);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1)), 2);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2)), 2);
  ck_assert_uint_eq(count_with_nodes(&v, SET(1, 2)), 1);
  check_well_formed(&g, 0, &v, 16);
  kr_orch_graph_free(&g);

  /* Five in a chain, max_size 2: 5 singles + 4 pairs. */
  ck_assert_int_eq(kr_orch_graph_build(parse(chain5), 128, &g), KR_SUCCESS);
  enumerate(&g, 0, 2, 20000, &v, &trunc);
  ck_assert_uint_eq(v.len, 9);
  check_complete(&g, 0, &v, 2);
  /* All sub-chains: 5 + 4 + 3 + 2 + 1 = 15. */
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert_uint_eq(v.len, 15);
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* a -> b, a -> c, b -> d, c -> d (d returned). */
static const char *diamond =
    "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %a = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %b = \"prim.neg\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %c = \"prim.abs\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %d = \"prim.add\"(%b, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %d : tensor<4xf32>\n"
    "}\n";

START_TEST(diamond_convexity) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  ck_assert_int_eq(kr_orch_graph_build(parse(diamond), 128, &g), KR_SUCCESS);
  /* {a,d}: neither connected nor convex; {a,b,d}: connected, but a -> c -> d leaves and comes back. */
  ck_assert(!sched(&g, SET(0, 3), NULL));
  ck_assert(!sched(&g, SET(0, 1, 3), NULL));
  ck_assert(!sched(&g, SET(0, 2, 3), NULL));
  ck_assert(sched(&g, SET(0, 1, 2), NULL));
  ck_assert(sched(&g, SET(1, 2, 3), NULL));
  ck_assert(sched(&g, SET(0, 1, 2, 3), NULL));
  ck_assert(!sched(&g, SET(1, 2), NULL));   /* not connected */
  /* Convex connected sets: 4 singles, {a,b} {a,c} {b,d} {c,d}, {a,b,c} {b,c,d}, all four = 11.
   * Output sets: {a,b} and {a,c} may write a (read by c, resp. b, outside): 2 each; the rest 1:
   * 4 + 2 + 2 + 1 + 1 + 1 + 1 + 1 = 13. */
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert_uint_eq(v.len, 13);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1)), 2);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2)), 1);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 3)), 0);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  /* The cap: singles always, then stop. */
  enumerate(&g, 0, 16, 5, &v, &trunc);
  ck_assert(trunc);
  ck_assert_uint_eq(v.len, 5);
  enumerate(&g, 0, 16, 2, &v, &trunc);
  ck_assert(trunc);
  ck_assert_uint_eq(v.len, 4);   /* every single primitive even past the cap */
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

START_TEST(output_sets) {
  /* Five in a chain, all returned.  {0..3}: sink 3; 0, 1, 2 optional -> 8 output sets.  {0..4}:
   * sink 4; four optional -> only none and all. */
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  ck_assert_int_eq(
      kr_orch_graph_build(parse("func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, "
                                "tensor<4xf32>, tensor<4xf32>) {\n"
                                "  %0 = \"prim.exp\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                "  %1 = \"prim.neg\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                "  %2 = \"prim.abs\"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                "  %3 = \"prim.exp\"(%2) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                "  %4 = \"prim.neg\"(%3) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                "  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, "
                                "tensor<4xf32>\n"
                                "}\n"),
                          128, &g),
      KR_SUCCESS);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2, 3)), 8);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2, 3, 4)), 2);
  kr_bits all = SET(0, 1, 2, 3, 4), sink = SET(4);
  bool saw_all = false, saw_sink = false;
  for (size_t i = 0; i < v.len; i++) {
    const kr_candidate *c = &KR_VEC_AT(&v, kr_candidate, i);
    if (memcmp(&c->nodes, &all, sizeof all)) continue;
    saw_all |= !memcmp(&c->writes, &all, sizeof all);
    saw_sink |= !memcmp(&c->writes, &sink, sizeof sink);
  }
  ck_assert(saw_all && saw_sink);
  check_well_formed(&g, 0, &v, 16);
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* Softmax over the rows of x [4,8] (as op-to-prim writes it): 7 nodes, one reduction domain. */
static const char *softmax =
    "func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
    "  %0 = \"prim.reduce_max\"(%x) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
    "  %1 = \"prim.broadcast\"(%0) {shape = array<i64: 4, 8>} : (tensor<4x1xf32>) -> tensor<4x8xf32>\n"
    "  %2 = \"prim.sub\"(%x, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %3 = \"prim.exp\"(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %4 = \"prim.reduce_sum\"(%3) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
    "  %5 = \"prim.broadcast\"(%4) {shape = array<i64: 4, 8>} : (tensor<4x1xf32>) -> tensor<4x8xf32>\n"
    "  %6 = \"prim.div\"(%3, %5) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  return %6 : tensor<4x8xf32>\n"
    "}\n";

START_TEST(reduction_domain) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  kr_kernel_kind k;
  ck_assert_int_eq(kr_orch_graph_build(parse(softmax), 128, &g), KR_SUCCESS);
  ck_assert(sched(&g, SET(0, 1, 2, 3, 4, 5, 6), &k));
  ck_assert_int_eq(k, KR_KERNEL_REDUCTION);
  ck_assert(sched(&g, SET(2, 3), &k));
  ck_assert_int_eq(k, KR_KERNEL_INJECTIVE);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert_uint_eq(count_with_nodes(&v, SET(0, 1, 2, 3, 4, 5, 6)), 1);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  kr_orch_graph_free(&g);

  /* Reductions over different axes of one tensor are not one kernel; each alone with y is. */
  ck_assert_int_eq(
      kr_orch_graph_build(
          parse("func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>) {\n"
                "  %y = \"prim.exp\"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
                "  %r = \"prim.reduce_sum\"(%y) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
                "  %c = \"prim.reduce_sum\"(%y) {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>\n"
                "  %t = \"prim.transpose\"(%y) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
                "  %s = \"prim.reduce_sum\"(%t) {axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x1xf32>\n"
                "  %b = \"prim.reshape\"(%s) {shape = array<i64: 1, 8>} : (tensor<8x1xf32>) -> tensor<1x8xf32>\n"
                "  %z = \"prim.add\"(%b, %c) : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>\n"
                "  return %r, %z : tensor<4x1xf32>, tensor<1x8xf32>\n"
                "}\n"),
          128, &g),
      KR_SUCCESS);
  ck_assert(!sched(&g, SET(0, 1, 2), NULL));
  ck_assert(sched(&g, SET(0, 1), &k));
  ck_assert_int_eq(k, KR_KERNEL_REDUCTION);
  ck_assert(sched(&g, SET(0, 2), NULL));
  /* A transpose (layout other than broadcast/reshape) cannot join a reduction kernel. */
  ck_assert(!sched(&g, SET(3, 4), NULL));
  ck_assert(sched(&g, SET(0, 3), &k));
  ck_assert_int_eq(k, KR_KERNEL_INJECTIVE);
  /* reshape [8,1] -> [1,8] after a row reduction of [8,4]: [1,8] is none of X [8,4], K [8,1], D [8]. */
  ck_assert(!sched(&g, SET(4, 5), NULL));
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* x -> relu (max with a zero argument) -> matmul -> + broadcast(bias) -> exp; a second matmul. */
static const char *linear_text =
    "func.func @f(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>, %w: tensor<8x16xf32>, %bias: tensor<16xf32>, "
    "%w2: tensor<16x4xf32>) -> (tensor<4x4xf32>, tensor<4x16xf32>) {\n"
    "  %r = \"prim.max\"(%x, %z) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n"                      /* 0 */
    "  %m = \"prim.matmul\"(%r, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>\n"                /* 1 */
    "  %b = \"prim.broadcast\"(%bias) {shape = array<i64: 4, 16>} : (tensor<16xf32>) -> tensor<4x16xf32>\n"     /* 2 */
    "  %a = \"prim.add\"(%m, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>\n"                  /* 3 */
    "  %e = \"prim.exp\"(%a) : (tensor<4x16xf32>) -> tensor<4x16xf32>\n"                                        /* 4 */
    "  %m2 = \"prim.matmul\"(%e, %w2) : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>\n"              /* 5 */
    "  %s = \"prim.reduce_sum\"(%m) {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>\n"           /* 6 */
    "  %q = \"prim.mul\"(%b, %b) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>\n"                  /* 7 */
    "  return %m2, %q : tensor<4x4xf32>, tensor<4x16xf32>\n"
    "}\n";

START_TEST(linear_contract) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  kr_kernel_kind k;
  ck_assert_int_eq(kr_orch_graph_build(parse(linear_text), 128, &g), KR_SUCCESS);
  ck_assert(sched(&g, SET(0, 1, 2, 3, 4), &k));   /* prologue, matmul, side input, epilogues */
  ck_assert_int_eq(k, KR_KERNEL_LINEAR);
  ck_assert(sched(&g, SET(1, 2, 3), NULL));
  ck_assert(!sched(&g, SET(1, 2), NULL));          /* not connected */
  ck_assert(!sched(&g, SET(1, 3, 4, 5), NULL));    /* two linear primitives */
  ck_assert(sched(&g, SET(4, 5), &k));             /* exp as the second matmul's prologue */
  ck_assert_int_eq(k, KR_KERNEL_LINEAR);
  ck_assert(!sched(&g, SET(1, 6), NULL));          /* no reduction with a linear primitive */
  ck_assert(!sched(&g, SET(1, 2, 3, 7), NULL));    /* mul(b, b) is a side node whose user is outside */
  ck_assert(sched(&g, SET(2, 7), &k));
  ck_assert_int_eq(k, KR_KERNEL_INJECTIVE);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  for (size_t i = 0; i < v.len; i++) {   /* at most one linear primitive in any candidate */
    const kr_candidate *c = &KR_VEC_AT(&v, kr_candidate, i);
    ck_assert(!(kr_bits_test(&c->nodes, 1) && kr_bits_test(&c->nodes, 5)));
  }
  kr_orch_graph_free(&g);

  /* A prologue that also feeds the epilogue is not a prologue. */
  ck_assert_int_eq(
      kr_orch_graph_build(
          parse("func.func @f(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                "  %p = \"prim.exp\"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
                "  %m = \"prim.matmul\"(%p, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"
                "  %e = \"prim.add\"(%m, %p) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"
                "  return %e : tensor<4x4xf32>\n"
                "}\n"),
          128, &g),
      KR_SUCCESS);
  ck_assert(!sched(&g, SET(0, 1, 2), NULL));
  ck_assert(sched(&g, SET(0, 1), NULL));
  ck_assert(sched(&g, SET(1, 2), NULL));
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  check_complete(&g, 0, &v, 16);
  kr_orch_graph_free(&g);

  /* A row mean as prim-reduce-as-matvec writes it: the reshape [64,1] -> [1,64,1] and the div
   * keep the matmul's elements in order (epilogue); the broadcast to [1,64,256] repeats them
   * (not an epilogue), and neither is the slice. */
  ck_assert_int_eq(
      kr_orch_graph_build(
          parse("func.func @f(%x: tensor<64x256xf32>, %o: tensor<256x1xf32>, %n: tensor<1x64x1xf32>) -> "
                "(tensor<1x64x256xf32>, tensor<32x1xf32>) {\n"
                "  %m = \"prim.matmul\"(%x, %o) : (tensor<64x256xf32>, tensor<256x1xf32>) -> tensor<64x1xf32>\n"
                "  %r = \"prim.reshape\"(%m) {shape = array<i64: 1, 64, 1>} : (tensor<64x1xf32>) -> tensor<1x64x1xf32>\n"
                "  %d = \"prim.div\"(%r, %n) : (tensor<1x64x1xf32>, tensor<1x64x1xf32>) -> tensor<1x64x1xf32>\n"
                "  %b = \"prim.broadcast\"(%d) {shape = array<i64: 1, 64, 256>} : (tensor<1x64x1xf32>) -> tensor<1x64x256xf32>\n"
                "  %s = \"prim.slice\"(%m) {starts = array<i64: 0, 0>, ends = array<i64: 32, 1>, steps = array<i64: 1, 1>} : "
                "(tensor<64x1xf32>) -> tensor<32x1xf32>\n"
                "  return %b, %s : tensor<1x64x256xf32>, tensor<32x1xf32>\n"
                "}\n"),
          128, &g),
      KR_SUCCESS);
  ck_assert(sched(&g, SET(0, 1, 2), &k));
  ck_assert_int_eq(k, KR_KERNEL_LINEAR);
  ck_assert(!sched(&g, SET(0, 1, 2, 3), NULL));
  ck_assert(!sched(&g, SET(0, 4), NULL));
  ck_assert(sched(&g, SET(1, 2, 3), &k));
  ck_assert_int_eq(k, KR_KERNEL_INJECTIVE);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  check_well_formed(&g, 0, &v, 16);
  check_complete(&g, 0, &v, 16);
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* Two identical branches (exp then cmp lt) on two arguments of one type, a third branch with
 * another predicate, and a fourth on another type. */
static const char *twins =
    "func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %t: tensor<8x4xf32>) -> (tensor<4x8xi1>, tensor<4x8xi1>, "
    "tensor<4x8xi1>, tensor<8x4xi1>) {\n"
    "  %a1 = \"prim.exp\"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %b1 = \"prim.cmp\"(%a1, %x) {predicate = \"lt\"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>\n"
    "  %a2 = \"prim.exp\"(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %b2 = \"prim.cmp\"(%a2, %y) {predicate = \"lt\"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>\n"
    "  %a3 = \"prim.exp\"(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %b3 = \"prim.cmp\"(%a3, %y) {predicate = \"gt\"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>\n"
    "  %a4 = \"prim.exp\"(%t) : (tensor<8x4xf32>) -> tensor<8x4xf32>\n"
    "  %b4 = \"prim.cmp\"(%a4, %t) {predicate = \"lt\"} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>\n"
    "  %a5 = \"prim.exp\"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %b5 = \"prim.cmp\"(%a5, %y) {predicate = \"lt\"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>\n"
    "  return %b1, %b2, %b3, %b4 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<8x4xi1>\n"
    "}\n";

static uint64_t hash_of(const kr_vec *v, kr_bits s) {
  for (size_t i = 0; i < v->len; i++)
    if (!memcmp(&KR_VEC_AT(v, kr_candidate, i).nodes, &s, sizeof s)) return KR_VEC_AT(v, kr_candidate, i).hash;
  ck_abort_msg("no candidate with that node set");
  return 0;
}

START_TEST(canonical_hash) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  ck_assert_int_eq(kr_orch_graph_build(parse(twins), 128, &g), KR_SUCCESS);
  ck_assert_uint_eq(g.num_regions, 1);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  uint64_t h1 = hash_of(&v, SET(0, 1)), h2 = hash_of(&v, SET(2, 3)), h3 = hash_of(&v, SET(4, 5)),
           h4 = hash_of(&v, SET(6, 7)), h5 = hash_of(&v, SET(8, 9));
  ck_assert(h1 == h2);                 /* same structure, elsewhere */
  ck_assert(h1 != h3);                 /* predicate attribute differs */
  ck_assert(h1 != h4);                 /* types differ */
  ck_assert(h1 != h5);                 /* wiring differs: cmp(exp(x), y) reads two inputs */
  ck_assert(hash_of(&v, SET(0)) == hash_of(&v, SET(2)));
  ck_assert(hash_of(&v, SET(1)) == hash_of(&v, SET(3)));
  ck_assert(hash_of(&v, SET(0)) != hash_of(&v, SET(1)));
  /* The same text in another context gives the same hashes (nothing hashes a pointer). */
  kr_context *ctx2 = kr_context_create();
  ck_assert_int_eq(kr_register_core_dialects(ctx2), KR_SUCCESS);
  kr_type pad[3] = {kr_parse_type_str(ctx2, "tensor<7x7xf64>"), kr_parse_type_str(ctx2, "tensor<3xi1>"),
                    kr_parse_type_str(ctx2, "tensor<4x8xi1>")};   /* other uniquing history */
  (void)pad;
  kr_orch_graph g2;
  ck_assert_int_eq(kr_orch_graph_build(parse_in(ctx2, twins), 128, &g2), KR_SUCCESS);
  kr_vec v2 = {0};
  enumerate(&g2, 0, 16, 20000, &v2, &trunc);
  ck_assert_uint_eq(v2.len, v.len);
  for (size_t i = 0; i < v.len; i++)
    ck_assert(KR_VEC_AT(&v, kr_candidate, i).hash == KR_VEC_AT(&v2, kr_candidate, i).hash);
  kr_orch_graph_free(&g2);
  kr_vec_free(&v2);
  kr_context_destroy(ctx2);
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* Attributes hash by their effective value: keepdims = 1 written out (in either integer type)
 * is the schema default of prim.reduce_sum (dialects/prim/ops.def, keepdims:i=1), so it hashes
 * like an absent keepdims; keepdims = 0 does not.  Nodes 0/1, 2/3, 4/5 and 6/7 are four copies
 * of reduce_sum -> exp differing only in how keepdims is written. */
static const char *defaults_text =
    "func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4xf32>) {\n"
    "  %a1 = \"prim.reduce_sum\"(%x) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
    "  %b1 = \"prim.exp\"(%a1) : (tensor<4x1xf32>) -> tensor<4x1xf32>\n"
    "  %a2 = \"prim.reduce_sum\"(%x) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
    "  %b2 = \"prim.exp\"(%a2) : (tensor<4x1xf32>) -> tensor<4x1xf32>\n"
    "  %a3 = \"prim.reduce_sum\"(%x) {keepdims = 1 : i32, axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>\n"
    "  %b3 = \"prim.exp\"(%a3) : (tensor<4x1xf32>) -> tensor<4x1xf32>\n"
    "  %a4 = \"prim.reduce_sum\"(%x) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>\n"
    "  %b4 = \"prim.exp\"(%a4) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %b1, %b2, %b3, %b4 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4xf32>\n"
    "}\n";

START_TEST(canonical_hash_attribute_defaults) {
  kr_orch_graph g;
  kr_vec v = {0};
  bool trunc;
  ck_assert_int_eq(kr_orch_graph_build(parse(defaults_text), 128, &g), KR_SUCCESS);
  ck_assert_uint_eq(g.num_regions, 1);
  enumerate(&g, 0, 16, 20000, &v, &trunc);
  ck_assert(hash_of(&v, SET(0)) == hash_of(&v, SET(2)));
  ck_assert(hash_of(&v, SET(0)) == hash_of(&v, SET(4)));
  ck_assert(hash_of(&v, SET(0, 1)) == hash_of(&v, SET(2, 3)));
  ck_assert(hash_of(&v, SET(0, 1)) == hash_of(&v, SET(4, 5)));
  ck_assert(hash_of(&v, SET(1)) == hash_of(&v, SET(3)));
  /* keepdims = 0: another attribute value (and another result type). */
  ck_assert(hash_of(&v, SET(0)) != hash_of(&v, SET(6)));
  ck_assert(hash_of(&v, SET(0, 1)) != hash_of(&v, SET(6, 7)));
  kr_orch_graph_free(&g);
  kr_vec_free(&v);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Inputs and cost. */
static const char *cost_text =
    "func.func @f(%x: tensor<64x256xf32>, %w: tensor<256x512xf32>, %bias: tensor<64x512xf32>) -> tensor<64x512xf32> {\n"
    "  %h = \"prim.constant\"() {value = dense<0.5> : tensor<64x512xf32>} : () -> tensor<64x512xf32>\n"
    "  %0 = \"prim.matmul\"(%x, %w) : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>\n"
    "  %1 = \"prim.add\"(%0, %bias) : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>\n"
    "  %2 = \"prim.exp\"(%1) : (tensor<64x512xf32>) -> tensor<64x512xf32>\n"
    "  %3 = \"prim.mul\"(%2, %h) : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>\n"
    "  %4 = \"prim.add\"(%3, %1) : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>\n"
    "  return %4 : tensor<64x512xf32>\n"
    "}\n";

static kr_candidate cand(const kr_orch_graph *g, kr_bits nodes, kr_bits writes) {
  kr_candidate c = {.region = 0, .nodes = nodes, .writes = writes, .size = kr_bits_count(&nodes)};
  ck_assert(kr_orch_schedulable(g, 0, &nodes, 16, &c.kind));
  return c;
}

START_TEST(inputs_and_cost) {
  kr_orch_graph g;
  ck_assert_int_eq(kr_orch_graph_build(parse(cost_text), 128, &g), KR_SUCCESS);
  kr_target t = {.name = "test", .dram_bandwidth_gbs = 10000, .peak_fp32_tflops = 1, .peak_tf32_tflops = 100,
                 .peak_fp16_tflops = 200, .launch_overhead_us = 2};
  kr_cost_model m = {.target = &t, .db = NULL};
  const double T = 64 * 512 * 4;   /* bytes of one [64,512] f32 tensor: 131072 */

  /* {exp, mul}: reads node 1 (from another kernel) and the splat 0.5 (cloned: 0 bytes), writes 3. */
  kr_candidate c = cand(&g, SET(2, 3), SET(3));
  unsigned in[4];
  ck_assert_uint_eq(kr_orch_inputs(&g, &c, in, 4), 1);
  ck_assert_uint_eq(in[0], 1);
  kr_orch_cost(&g, &c, &m);
  ck_assert(!c.profiled);
  /* bytes 2T = 262144 -> 262144 / (10000 * 1e3) = 0.0262144 us; flops 4*32768 + 32768 = 163840 at
   * FP32 1 TFLOP/s -> 0.16384 us (compute bound). */
  ck_assert_double_eq_tol(c.cost_us, 2 + 0.16384, 1e-12);

  /* {matmul, add}: reads x (65536 B), w (524288 B), bias (T), writes node 1 (T): 851968 B ->
   * 0.0851968 us; flops 2*64*512*256 + 32768 = 16809984 at TF32 100 -> 0.16809984 us. */
  c = cand(&g, SET(0, 1), SET(1));
  ck_assert_int_eq(c.kind, KR_KERNEL_LINEAR);
  ck_assert_uint_eq(kr_orch_inputs(&g, &c, in, 4), 0);
  kr_orch_cost(&g, &c, &m);
  ck_assert_double_eq_tol(c.cost_us, 2 + 0.16809984, 1e-12);
  /* Memory bound at 1000 GB/s: 851968 / 1e6 = 0.851968 us. */
  t.dram_bandwidth_gbs = 1000;
  kr_orch_cost(&g, &c, &m);
  ck_assert_double_eq_tol(c.cost_us, 2 + 0.851968, 1e-12);

  /* {mul, add2} reads 2 and 1 (two node tensors), writes 4 (node 3 only feeds add2): 3T at
   * 1000 GB/s = 0.393216 us; flops 2 * 32768 at 1 TFLOP/s = 0.065536 us. */
  c = cand(&g, SET(3, 4), SET(4));
  ck_assert_uint_eq(kr_orch_inputs(&g, &c, in, 4), 2);
  ck_assert_uint_eq(in[0], 1);
  ck_assert_uint_eq(in[1], 2);
  ck_assert_uint_eq(kr_orch_inputs(&g, &c, in, 1), 2);   /* the count even past cap */
  kr_orch_cost(&g, &c, &m);
  ck_assert_double_eq_tol(c.cost_us, 2 + 3 * T / 1e6, 1e-12);
  /* Writing an extra tensor costs its bytes. */
  c = cand(&g, SET(2, 3, 4), SET(3, 4));
  kr_orch_cost(&g, &c, &m);
  ck_assert_double_eq_tol(c.cost_us, 2 + 3 * T / 1e6, 1e-12);   /* reads 1, writes 3 and 4 */

  /* The profile database wins when it has (target, hash). */
  c.hash = 0x0123456789abcdefull;
  kr_profile_entry e = {.target = "test", .hash = c.hash, .time_us = 7.5, .runs = 10};
  kr_profile_db db = {.entries = &e, .num_entries = 1};
  m.db = &db;
  kr_orch_cost(&g, &c, &m);
  ck_assert(c.profiled);
  ck_assert_double_eq(c.cost_us, 7.5);
  c.hash ^= 1;
  kr_orch_cost(&g, &c, &m);
  ck_assert(!c.profiled);
  kr_orch_graph_free(&g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("orch_candidates");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, graph_nodes_edges_bytes_flops);
  tcase_add_test(tc, graph_conv_and_reduction_flops);
  tcase_add_test(tc, graph_rejects_op_level);
  tcase_add_test(tc, regions_at_cut_points);
  tcase_add_test(tc, chain_counts);
  tcase_add_test(tc, diamond_convexity);
  tcase_add_test(tc, output_sets);
  tcase_add_test(tc, reduction_domain);
  tcase_add_test(tc, linear_contract);
  tcase_add_test(tc, canonical_hash);
  tcase_add_test(tc, canonical_hash_attribute_defaults);
  tcase_add_test(tc, inputs_and_cost);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
