/* Unit tests: task mappings (korch/kernel.h; Hidet, ASPLOS'23 §4.1; docs/TaskMappings.md).
 *
 *   algebra      kr_task_mapping_task against a brute-force reading of the definition in
 *                kernel.h (atoms unravelled with Hidet's strides_from_ranks formula, f * g by its
 *                composition law, split at every position: the law must be associative), for
 *                random compositions with random rank orders; (worker, k) -> task is a bijection
 *                onto the task shape; spatial-only mappings give each task to exactly one worker
 *   attribute    kr_task_mapping_attr / from_attr / print / parse round trips; malformed
 *                mappings rejected by the attribute builder, the decoder and the parser
 *   lowering     --lower-task-mappings on random maps: a small evaluator of the lowered IR (arith
 *                on index, kernel.for, kernel.if) records the tasks each worker's body runs for,
 *                in order, and they must be the algebra's, for workers in and out of range;
 *                nested maps; the guard is dropped only where the launch bounds prove it */
#include <string.h>

#include "korch/asm.h"
#include "korch/kernel.h"
#include "korch/pass.h"
#include "unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

/* ---- random mappings ------------------------------------------------------------------------ */

static uint64_t rng_state;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng_state >> 33) % n);
}

static int64_t total_tasks(const kr_task_mapping *m) {
  return kr_task_mapping_num_workers(m) * kr_task_mapping_tasks_per_worker(m);
}

/* rank 1..3, 1..4 atoms (spatial-only when `spatial_only`), dims 1..4, random rank orders, at most
 * `max_tasks` tasks in all. */
static kr_task_mapping random_mapping(bool spatial_only, int64_t max_tasks) {
  for (;;) {
    kr_task_mapping m;
    memset(&m, 0, sizeof m);
    m.rank = 1 + rnd(3);
    m.num_atoms = 1 + rnd(4);
    for (unsigned a = 0; a < m.num_atoms; a++) {
      kr_task_atom *at = &m.atoms[a];
      at->kind = spatial_only || rnd(2) ? KR_TASK_SPATIAL : KR_TASK_REPEAT;
      for (unsigned i = 0; i < m.rank; i++) {
        at->dims[i] = 1 + rnd(4);
        at->ranks[i] = i;
      }
      for (unsigned i = m.rank; i-- > 1;) { /* Fisher-Yates */
        unsigned j = rnd(i + 1), t = at->ranks[i];
        at->ranks[i] = at->ranks[j];
        at->ranks[j] = t;
      }
    }
    if (total_tasks(&m) <= max_tasks) return m;
  }
}

/* ---- the brute-force reference -------------------------------------------------------------- */

/* The definition, read independently of task_mapping.c: one atom's k-th coordinate tuple uses
 * Hidet's strides_from_ranks (stride_i = prod of d_j with ranks[j] > ranks[i]). */
static void ref_atom_coord(const kr_task_atom *at, unsigned rank, int64_t x, int64_t *coord) {
  for (unsigned i = 0; i < rank; i++) {
    int64_t stride = 1;
    for (unsigned j = 0; j < rank; j++)
      if (at->ranks[j] > at->ranks[i]) stride *= at->dims[j];
    coord[i] = (x / stride) % at->dims[i];
  }
}

/* The tasks worker w owns under atoms [lo, hi) of m, in order, into out (rank values each);
 * returns their count.  One atom: spatial owns coord(w), repeat owns coord(0..size-1).  More:
 * f = [lo, split), g = [split, hi), and f * g by the composition law of kernel.h. */
static int64_t ref_tasks(const kr_task_mapping *m, unsigned lo, unsigned hi, unsigned split_choice, int64_t w,
                         int64_t *out) {
  unsigned r = m->rank;
  if (hi - lo == 1) {
    const kr_task_atom *at = &m->atoms[lo];
    int64_t size = 1;
    for (unsigned i = 0; i < r; i++) size *= at->dims[i];
    if (at->kind == KR_TASK_SPATIAL) {
      if (w < 0 || w >= size) return 0;
      ref_atom_coord(at, r, w, out);
      return 1;
    }
    if (w != 0) return 0;
    for (int64_t k = 0; k < size; k++) ref_atom_coord(at, r, k, out + k * r);
    return size;
  }
  /* split_choice 0: f is the first atom; 1: g is the last atom; 2: the middle. */
  unsigned split = split_choice == 0 ? lo + 1 : split_choice == 1 ? hi - 1 : lo + (hi - lo) / 2;
  int64_t wg = 1, dg[KR_KERNEL_MAX_RANK];
  for (unsigned i = 0; i < r; i++) dg[i] = 1;
  for (unsigned a = split; a < hi; a++) {
    int64_t size = 1;
    for (unsigned i = 0; i < r; i++) {
      size *= m->atoms[a].dims[i];
      dg[i] *= m->atoms[a].dims[i];
    }
    if (m->atoms[a].kind == KR_TASK_SPATIAL) wg *= size;
  }
  int64_t wf_count = 1;
  for (unsigned a = lo; a < split; a++)
    if (m->atoms[a].kind == KR_TASK_SPATIAL)
      for (unsigned i = 0; i < r; i++) wf_count *= m->atoms[a].dims[i];
  if (w < 0 || w >= wf_count * wg) return 0;
  int64_t tf = 1, tg = 1; /* tasks per worker of f and g */
  for (unsigned a = lo; a < hi; a++)
    if (m->atoms[a].kind == KR_TASK_REPEAT)
      for (unsigned i = 0; i < r; i++) *(a < split ? &tf : &tg) *= m->atoms[a].dims[i];
  int64_t *f_tasks = malloc(sizeof(int64_t) * (size_t)(tf * r));
  int64_t *g_tasks = malloc(sizeof(int64_t) * (size_t)(tg * r));
  int64_t nf = ref_tasks(m, lo, split, split_choice, w / wg, f_tasks);
  int64_t ng = ref_tasks(m, split, hi, split_choice, w % wg, g_tasks);
  int64_t n = 0;
  for (int64_t a = 0; a < nf; a++)
    for (int64_t b = 0; b < ng; b++, n++)
      for (unsigned i = 0; i < r; i++) out[n * r + i] = f_tasks[a * r + i] * dg[i] + g_tasks[b * r + i];
  free(f_tasks);
  free(g_tasks);
  return n;
}

START_TEST(algebra_matches_definition) {
  rng_state = 12345;
  int64_t *ref = malloc(sizeof(int64_t) * 4096 * KR_KERNEL_MAX_RANK);
  for (int iter = 0; iter < 400; iter++) {
    kr_task_mapping m = random_mapping(false, 2048);
    int64_t W = kr_task_mapping_num_workers(&m), T = kr_task_mapping_tasks_per_worker(&m);
    int64_t shape[KR_KERNEL_MAX_RANK], numel = 1;
    kr_task_mapping_shape(&m, shape);
    for (unsigned i = 0; i < m.rank; i++) {
      int64_t d = 1;
      for (unsigned a = 0; a < m.num_atoms; a++) d *= m.atoms[a].dims[i];
      ck_assert_int_eq(shape[i], d);
      numel *= d;
    }
    ck_assert_int_eq(W * T, numel);
    unsigned char *owned = calloc((size_t)numel, 1);
    for (int64_t w = 0; w < W; w++) {
      for (unsigned split = 0; split < 3; split++) {
        int64_t n = ref_tasks(&m, 0, m.num_atoms, split, w, ref);
        ck_assert_int_eq(n, T);
        for (int64_t k = 0; k < T; k++) {
          int64_t task[KR_KERNEL_MAX_RANK];
          kr_task_mapping_task(&m, w, k, task);
          for (unsigned i = 0; i < m.rank; i++) ck_assert_int_eq(task[i], ref[k * m.rank + i]);
          if (split) continue;
          int64_t lin = 0;
          for (unsigned i = 0; i < m.rank; i++) {
            ck_assert(task[i] >= 0 && task[i] < shape[i]);
            lin = lin * shape[i] + task[i];
          }
          owned[lin]++;
        }
      }
    }
    /* (worker, k) -> task is a bijection: every task owned exactly once. */
    for (int64_t t = 0; t < numel; t++) ck_assert_int_eq(owned[t], 1);
    free(owned);
  }
  free(ref);
}
END_TEST

START_TEST(spatial_only_one_worker_per_task) {
  rng_state = 777;
  for (int iter = 0; iter < 200; iter++) {
    kr_task_mapping m = random_mapping(true, 4096);
    ck_assert_int_eq(kr_task_mapping_tasks_per_worker(&m), 1);
    int64_t W = kr_task_mapping_num_workers(&m), shape[KR_KERNEL_MAX_RANK];
    kr_task_mapping_shape(&m, shape);
    int64_t *owner = malloc(sizeof(int64_t) * (size_t)W);
    for (int64_t t = 0; t < W; t++) owner[t] = -1;
    for (int64_t w = 0; w < W; w++) {
      int64_t task[KR_KERNEL_MAX_RANK], lin = 0;
      kr_task_mapping_task(&m, w, 0, task);
      for (unsigned i = 0; i < m.rank; i++) lin = lin * shape[i] + task[i];
      ck_assert_int_eq(owner[lin], -1);
      owner[lin] = w;
    }
    free(owner);
  }
}
END_TEST

/* Worked examples of docs/TaskMappings.md, by hand. */
START_TEST(worked_examples) {
  int64_t d48[2] = {4, 8}, d22[2] = {2, 2}, task[2];
  kr_task_mapping s = kr_task_spatial(2, d48), r = kr_task_repeat(2, d22), sr, rs;
  ck_assert(kr_task_compose(&s, &r, &sr));
  ck_assert(kr_task_compose(&r, &s, &rs));
  /* spatial(4, 8): worker 13 -> (1, 5). */
  kr_task_mapping_task(&s, 13, 0, task);
  ck_assert(task[0] == 1 && task[1] == 5);
  /* spatial(4, 8) * repeat(2, 2): worker 13 owns (2..3, 10..11), row-major. */
  ck_assert_int_eq(kr_task_mapping_num_workers(&sr), 32);
  ck_assert_int_eq(kr_task_mapping_tasks_per_worker(&sr), 4);
  const int64_t want_sr[4][2] = {{2, 10}, {2, 11}, {3, 10}, {3, 11}};
  for (int k = 0; k < 4; k++) {
    kr_task_mapping_task(&sr, 13, k, task);
    ck_assert(task[0] == want_sr[k][0] && task[1] == want_sr[k][1]);
  }
  /* repeat(2, 2) * spatial(4, 8): worker 13 owns (1 + 4a, 5 + 8b). */
  const int64_t want_rs[4][2] = {{1, 5}, {1, 13}, {5, 5}, {5, 13}};
  for (int k = 0; k < 4; k++) {
    kr_task_mapping_task(&rs, 13, k, task);
    ck_assert(task[0] == want_rs[k][0] && task[1] == want_rs[k][1]);
  }
  /* spatial(4, 8, ranks = [1, 0]): column-major, worker 13 -> (13 % 4, 13 / 4) = (1, 3). */
  s.atoms[0].ranks[0] = 1;
  s.atoms[0].ranks[1] = 0;
  kr_task_mapping_task(&s, 13, 0, task);
  ck_assert(task[0] == 1 && task[1] == 3);
}
END_TEST

START_TEST(compose_limits) {
  int64_t d1[1] = {2}, d2[2] = {2, 2};
  kr_task_mapping a = kr_task_spatial(1, d1), b = kr_task_repeat(2, d2), out, big = a;
  memset(&out, 0x5a, sizeof out);
  kr_task_mapping before = out;
  ck_assert(!kr_task_compose(&a, &b, &out)); /* ranks differ */
  ck_assert(memcmp(&out, &before, sizeof out) == 0);
  for (int i = 1; i < KR_TASK_MAX_ATOMS; i++) ck_assert(kr_task_compose(&big, &a, &big));
  ck_assert_uint_eq(big.num_atoms, KR_TASK_MAX_ATOMS);
  ck_assert(!kr_task_compose(&big, &a, &out)); /* too many atoms */
  int64_t huge[1] = {(int64_t)1 << 30};
  kr_task_mapping h = kr_task_spatial(1, huge);
  ck_assert(!kr_task_compose(&h, &h, &out)); /* 2^60 tasks */
}
END_TEST

/* ---- the attribute -------------------------------------------------------------------------- */

static char *attr_text(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  char *s = strdup(kr_ostream_str(&os));
  kr_ostream_close(&os);
  return s;
}

START_TEST(attr_round_trip) {
  rng_state = 99;
  for (int iter = 0; iter < 300; iter++) {
    kr_task_mapping m = random_mapping(false, (int64_t)1 << 20), back;
    kr_attr a = kr_task_mapping_attr(ctx, &m);
    ck_assert_ptr_nonnull(a);
    ck_assert(kr_task_mapping_from_attr(a, &back));
    ck_assert_uint_eq(back.rank, m.rank);
    ck_assert_uint_eq(back.num_atoms, m.num_atoms);
    for (unsigned k = 0; k < m.num_atoms; k++) {
      ck_assert_int_eq(back.atoms[k].kind, m.atoms[k].kind);
      for (unsigned i = 0; i < m.rank; i++) {
        ck_assert_int_eq(back.atoms[k].dims[i], m.atoms[k].dims[i]);
        ck_assert_uint_eq(back.atoms[k].ranks[i], m.atoms[k].ranks[i]);
      }
    }
    char *text = attr_text(a);
    ck_assert_ptr_eq(kr_parse_attr_str(ctx, text), a);
    /* Default rank orders are not printed. */
    bool all_default = true;
    for (unsigned k = 0; k < m.num_atoms; k++)
      for (unsigned i = 0; i < m.rank; i++) all_default &= m.atoms[k].ranks[i] == i;
    ck_assert(all_default == (strstr(text, "ranks") == NULL));
    free(text);
  }
  ck_assert_uint_eq(num_errors, 0);
  kr_attr a = kr_parse_attr_str(ctx, "#kernel.task<spatial(4, 8) * repeat(2, 2)>");
  ck_assert_ptr_nonnull(a);
  char *t = attr_text(a);
  ck_assert_str_eq(t, "#kernel.task<spatial(4, 8) * repeat(2, 2)>");
  free(t);
  a = kr_parse_attr_str(ctx, "#kernel.task<spatial(4,8,ranks=[1,0])*repeat(3, 1, ranks = [0, 1])>");
  ck_assert_ptr_nonnull(a);
  t = attr_text(a);
  ck_assert_str_eq(t, "#kernel.task<spatial(4, 8, ranks = [1, 0]) * repeat(3, 1)>");
  free(t);
}
END_TEST

START_TEST(malformed_rejected) {
  int64_t d[2] = {2, 3};
  kr_task_mapping m = kr_task_spatial(2, d);
  m.atoms[0].ranks[1] = 0; /* ranks [0, 0] */
  ck_assert_ptr_null(kr_task_mapping_attr(ctx, &m));
  m.atoms[0].ranks[1] = 1;
  m.atoms[0].dims[0] = 0;
  ck_assert_ptr_null(kr_task_mapping_attr(ctx, &m));
  /* Storage built by hand (as a foreign producer could): the decoder checks the permutation. */
  const kr_dialect *kd = kr_context_lookup_dialect(ctx, "kernel", 6);
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  int64_t rows[][5] = {{0, 2, 3, 0, 0}, {0, 2, 3, 1, 1}, {0, 2, 3, 0, 2}, {2, 2, 3, 0, 1}, {0, 0, 3, 0, 1}};
  kr_task_mapping out;
  for (unsigned i = 0; i < 5; i++) {
    kr_attr p = kr_attr_dense_array(ctx, i64, rows[i], 5);
    ck_assert(!kr_task_mapping_from_attr(kr_attr_dialect(ctx, kd, "task", &p, 1), &out));
  }
  kr_attr ok = kr_attr_dense_array(ctx, i64, (int64_t[]){0, 2, 3, 1, 0}, 5);
  ck_assert(kr_task_mapping_from_attr(kr_attr_dialect(ctx, kd, "task", &ok, 1), &out));
  ck_assert(out.atoms[0].ranks[0] == 1 && out.atoms[0].ranks[1] == 0);
  /* The parser, with its messages. */
  static const struct { const char *text, *msg; } bad[] = {
    {"#kernel.task<tiled(4)>", "expected a task mapping atom"},
    {"#kernel.task<spatial(4, 0)>", "dims must be >= 1"},
    {"#kernel.task<spatial(4, -2)>", "dims must be >= 1"},
    {"#kernel.task<spatial(4, 8) * repeat(2)>", "atom has 1 dims but the previous atoms have 2"},
    {"#kernel.task<spatial(4, 8, ranks = [0, 0])>", "permutation"},
    {"#kernel.task<spatial(4, 8, ranks = [0, 2])>", "permutation"},
    {"#kernel.task<spatial(4, 8, ranks = [0])>", "'ranks' has 1 entries but the atom has 2 dims"},
    {"#kernel.task<spatial(2)*spatial(2)*spatial(2)*spatial(2)*spatial(2)*spatial(2)*spatial(2)*spatial(2)*"
     "spatial(2)>", "too many task mapping atoms"},
    {"#kernel.task<spatial(1048576, 1048576, 2)>", "more than 2^40 tasks"},
    {"#kernel.task<spatial()>", "expected integer"},
    {"#kernel.task<spatial(ranks = [0])>", "dims before 'ranks'"},
    {"#kernel.task<spatial(4 8)>", "expected ')'"},
    {"#kernel.tusk<spatial(4)>", "unknown kernel attribute"},
  };
  for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
    unit_reset_errors();
    ck_assert_msg(kr_parse_attr_str(ctx, bad[i].text) == NULL, "%s parsed", bad[i].text);
    ck_assert_msg(num_errors >= 1 && strstr(last_error, bad[i].msg), "%s: got '%s'", bad[i].text, last_error);
  }
}
END_TEST

/* ---- the lowering, evaluated ---------------------------------------------------------------- */

#define MAX_VALS 4096
typedef struct evaluator {
  kr_value keys[MAX_VALS];
  int64_t vals[MAX_VALS];
  unsigned n;
  int64_t records[8192][4]; /* the operands of each probe.record, in execution order */
  unsigned num_records, record_width;
} evaluator;

static void ev_set(evaluator *e, kr_value v, int64_t x) {
  for (unsigned i = 0; i < e->n; i++)
    if (e->keys[i] == v) {
      e->vals[i] = x;
      return;
    }
  ck_assert_uint_lt(e->n, MAX_VALS);
  e->keys[e->n] = v;
  e->vals[e->n++] = x;
}

static int64_t ev_get(evaluator *e, kr_value v) {
  for (unsigned i = 0; i < e->n; i++)
    if (e->keys[i] == v) return e->vals[i];
  ck_abort_msg("value used before it was computed");
  return 0;
}

/* Runs the ops of `b`: the subset --lower-task-mappings produces, plus probe.record. */
static void ev_block(evaluator *e, kr_block *b) {
  for (kr_op *op = b->first; op; op = op->next) {
    const char *n = op->name;
    int64_t x = op->num_operands > 0 ? ev_get(e, kr_op_operand(op, 0)) : 0;
    int64_t y = op->num_operands > 1 ? ev_get(e, kr_op_operand(op, 1)) : 0;
    if (!strcmp(n, "arith.constant")) {
      ev_set(e, kr_op_result(op, 0), kr_op_get_attr(op, "value")->u.i);
    } else if (!strcmp(n, "arith.addi")) {
      ev_set(e, kr_op_result(op, 0), x + y);
    } else if (!strcmp(n, "arith.subi")) {
      ev_set(e, kr_op_result(op, 0), x - y);
    } else if (!strcmp(n, "arith.muli")) {
      ev_set(e, kr_op_result(op, 0), x * y);
    } else if (!strcmp(n, "arith.divsi")) {
      ck_assert(y > 0 && x >= 0);
      ev_set(e, kr_op_result(op, 0), x / y);
    } else if (!strcmp(n, "arith.remsi")) {
      ck_assert(y > 0 && x >= 0);
      ev_set(e, kr_op_result(op, 0), x % y);
    } else if (!strcmp(n, "arith.cmpi")) {
      ck_assert_int_eq(kr_op_get_attr(op, "predicate")->u.i, 6); /* ult (MLIR's arith::CmpIPredicate) */
      ev_set(e, kr_op_result(op, 0), (uint64_t)x < (uint64_t)y);
    } else if (!strcmp(n, KR_KERNEL_FOR_OP)) {
      int64_t step = ev_get(e, kr_op_operand(op, 2));
      ck_assert(step > 0);
      kr_block *body = kr_op_region(op, 0)->first;
      for (int64_t i = x; i < y; i += step) {
        ev_set(e, body->args[0], i);
        ev_block(e, body);
      }
    } else if (!strcmp(n, KR_KERNEL_IF_OP)) {
      kr_block *then = kr_op_region(op, 0)->first, *els = kr_op_region(op, 1)->first;
      if (x && then) ev_block(e, then);
      if (!x && els) ev_block(e, els);
    } else if (!strcmp(n, "probe.record")) {
      ck_assert_uint_lt(e->num_records, 8192);
      for (unsigned i = 0; i < op->num_operands; i++) e->records[e->num_records][i] = ev_get(e, kr_op_operand(op, i));
      e->record_width = op->num_operands;
      e->num_records++;
    } else if (!strcmp(n, KR_KERNEL_RETURN_OP) || !strcmp(n, KR_KERNEL_THREAD_ID_OP)) {
      /* thread_id is bound by the caller before the run (see run_kernel) */
    } else {
      ck_abort_msg("unexpected op %s in lowered IR", n);
    }
  }
}

static kr_op *parse_module(const char *text) {
  kr_op *m = kr_parse_source(ctx, "test.kir", text, strlen(text), true);
  ck_assert_msg(m != NULL, "parse failed: %s", last_error);
  return m;
}

static void lower(kr_op *module) {
  ck_assert_int_eq(kr_register_core_passes(ctx), KR_SUCCESS);
  kr_pass_manager *pm = kr_pass_manager_create(ctx, "builtin.module");
  ck_assert_int_eq(kr_pass_manager_parse_pipeline(pm, "lower-task-mappings"), KR_SUCCESS);
  ck_assert_msg(kr_pass_manager_run(pm, module) == KR_SUCCESS, "pass failed: %s", last_error);
  kr_pass_manager_destroy(pm);
}

static kr_walk_result count_fn(kr_op *op, void *user) {
  unsigned *c = user;
  if (!strcmp(op->name, KR_KERNEL_MAP_OP)) c[0]++;
  if (!strcmp(op->name, KR_KERNEL_IF_OP)) c[1]++;
  if (!strcmp(op->name, KR_KERNEL_FOR_OP)) c[2]++;
  return KR_WALK_ADVANCE;
}

/* The kernel.func of the module (its first op). */
static kr_op *first_kernel(kr_op *module) { return kr_op_region(module, 0)->first->first; }

/* Runs the kernel body with its index argument (if any) = w and every kernel.thread_id = w. */
static void run_kernel(evaluator *e, kr_op *func, int64_t w) {
  kr_block *body = kr_op_region(func, 0)->first;
  e->n = 0;
  e->num_records = 0;
  if (body->num_args) ev_set(e, body->args[0], w);
  for (kr_op *op = body->first; op; op = op->next)
    if (!strcmp(op->name, KR_KERNEL_THREAD_ID_OP)) ev_set(e, kr_op_result(op, 0), w);
  ev_block(e, body);
}

START_TEST(lowering_matches_algebra) {
  kr_context_set_allow_unregistered(ctx, true);
  rng_state = 4242;
  evaluator *e = malloc(sizeof *e);
  for (int iter = 0; iter < 150; iter++) {
    kr_task_mapping m = random_mapping(false, 512);
    char *mapping = attr_text(kr_task_mapping_attr(ctx, &m));
    char args[128] = "", types[128] = "";
    for (unsigned i = 0; i < m.rank; i++) {
      size_t la = strlen(args), lt = strlen(types);
      snprintf(args + la, sizeof args - la, "%s%%t%u: index", i ? ", " : "", i);
      snprintf(types + lt, sizeof types - lt, "%sindex", i ? ", " : "");
    }
    char uses[64] = "";
    for (unsigned i = 0; i < m.rank; i++) {
      size_t l = strlen(uses);
      snprintf(uses + l, sizeof uses - l, "%s%%t%u", i ? ", " : "", i);
    }
    char text[2048];
    snprintf(text, sizeof text,
             "kernel.func @k(%%w: index) {\n"
             "  \"kernel.map\"(%%w) ({\n"
             "  ^bb0(%s):\n"
             "    \"probe.record\"(%s) : (%s) -> ()\n"
             "  }) {mapping = %s} : (index) -> ()\n"
             "  kernel.return\n"
             "}\n",
             args, uses, types, mapping);
    kr_op *module = parse_module(text);
    lower(module);
    unsigned counts[3] = {0, 0, 0};
    kr_op_walk(module, KR_WALK_PRE_ORDER, count_fn, counts);
    ck_assert_uint_eq(counts[0], 0);
    ck_assert_uint_eq(counts[1], 1); /* an unknown worker is always guarded */
    int64_t W = kr_task_mapping_num_workers(&m), T = kr_task_mapping_tasks_per_worker(&m);
    for (int64_t w = -2; w < W + 2; w++) {
      run_kernel(e, first_kernel(module), w);
      if (w < 0 || w >= W) {
        ck_assert_uint_eq(e->num_records, 0);
        continue;
      }
      ck_assert_int_eq(e->num_records, T);
      for (int64_t k = 0; k < T; k++) {
        int64_t task[KR_KERNEL_MAX_RANK];
        kr_task_mapping_task(&m, w, k, task);
        for (unsigned i = 0; i < m.rank; i++)
          ck_assert_msg(e->records[k][i] == task[i], "%s worker %lld task %lld dim %u: %lld != %lld", mapping,
                        (long long)w, (long long)k, i, (long long)e->records[k][i], (long long)task[i]);
      }
    }
    kr_op_erase(module);
    free(mapping);
  }
  free(e);
}
END_TEST

START_TEST(lowering_nested_and_guards) {
  kr_context_set_allow_unregistered(ctx, true);
  evaluator *e = malloc(sizeof *e);
  /* Outer spatial(2) * repeat(3) (6 tasks), inner map over worker %i by spatial(3) * repeat(2): the
   * inner worker %i < 6 may exceed 3 workers, so the inner map keeps its guard. */
  const char *nested =
      "kernel.func @k(%w: index) {\n"
      "  \"kernel.map\"(%w) ({\n"
      "  ^bb0(%i: index):\n"
      "    \"kernel.map\"(%i) ({\n"
      "    ^bb0(%j: index):\n"
      "      \"probe.record\"(%i, %j) : (index, index) -> ()\n"
      "    }) {mapping = #kernel.task<spatial(3) * repeat(2)>} : (index) -> ()\n"
      "  }) {mapping = #kernel.task<spatial(2) * repeat(3)>} : (index) -> ()\n"
      "  kernel.return\n"
      "}\n";
  kr_op *module = parse_module(nested);
  lower(module);
  unsigned counts[3] = {0, 0, 0};
  kr_op_walk(module, KR_WALK_PRE_ORDER, count_fn, counts);
  ck_assert_uint_eq(counts[0], 0);
  ck_assert_uint_eq(counts[1], 2);
  for (int64_t w = 0; w < 3; w++) {
    run_kernel(e, first_kernel(module), w);
    unsigned n = 0;
    for (int64_t a = 0; a < 3; a++) {
      int64_t i = w * 3 + a; /* outer: worker w owns 3w .. 3w+2 (w < 2) */
      if (w >= 2) break;
      if (i >= 3) continue; /* inner workers >= 3 own nothing */
      for (int64_t b = 0; b < 2; b++, n++) {
        ck_assert_int_eq(e->records[n][0], i);
        ck_assert_int_eq(e->records[n][1], i * 2 + b);
      }
    }
    ck_assert_uint_eq(e->num_records, n);
  }
  kr_op_erase(module);

  /* The inner worker is the outer task coordinate with bound 6 = the inner worker count: no guard. */
  const char *bounded =
      "kernel.func @k(%w: index) {\n"
      "  \"kernel.map\"(%w) ({\n"
      "  ^bb0(%i: index):\n"
      "    \"kernel.map\"(%i) ({\n"
      "    ^bb0(%j: index):\n"
      "      \"probe.record\"(%i, %j) : (index, index) -> ()\n"
      "    }) {mapping = #kernel.task<spatial(6)>} : (index) -> ()\n"
      "  }) {mapping = #kernel.task<spatial(2) * repeat(3)>} : (index) -> ()\n"
      "  kernel.return\n"
      "}\n";
  module = parse_module(bounded);
  lower(module);
  memset(counts, 0, sizeof counts);
  kr_op_walk(module, KR_WALK_PRE_ORDER, count_fn, counts);
  ck_assert_uint_eq(counts[1], 1);
  run_kernel(e, first_kernel(module), 1);
  ck_assert_uint_eq(e->num_records, 3);
  for (unsigned k = 0; k < 3; k++) ck_assert(e->records[k][0] == 3 + k && e->records[k][1] == 3 + k);
  kr_op_erase(module);

  /* thread_id x with korch.block = [32, 1, 1] and 32 workers: no guard; with 64 threads: guard. */
  for (int threads = 32; threads <= 64; threads += 32) {
    char text[1024];
    snprintf(text, sizeof text,
             "kernel.func @k() attributes {korch.block = array<i64: %d, 1, 1>, korch.grid = array<i64: 1, 1, 1>, "
             "korch.template = \"injective\", korch.schedule = \"test\"} {\n"
             "  %%t = \"kernel.thread_id\"() {dim = 0 : i64} : () -> index\n"
             "  \"kernel.map\"(%%t) ({\n"
             "  ^bb0(%%i: index, %%j: index):\n"
             "    \"probe.record\"(%%i, %%j) : (index, index) -> ()\n"
             "  }) {mapping = #kernel.task<spatial(4, 8, ranks = [1, 0]) * repeat(1, 2)>} : (index) -> ()\n"
             "  kernel.return\n"
             "}\n",
             threads);
    module = parse_module(text);
    lower(module);
    memset(counts, 0, sizeof counts);
    kr_op_walk(module, KR_WALK_PRE_ORDER, count_fn, counts);
    ck_assert_uint_eq(counts[1], threads == 32 ? 0 : 1);
    ck_assert_uint_eq(counts[2], 1); /* repeat(1, 2): the size-1 dim makes no loop */
    run_kernel(e, first_kernel(module), 13);
    /* column-major spatial: worker 13 -> (1, 3); times (1, 2) plus repeat: (1, 6), (1, 7). */
    ck_assert_uint_eq(e->num_records, 2);
    ck_assert(e->records[0][0] == 1 && e->records[0][1] == 6 && e->records[1][0] == 1 && e->records[1][1] == 7);
    kr_op_erase(module);
  }

  /* A constant worker out of range: the map disappears. */
  module = parse_module("kernel.func @k() {\n"
                        "  %c = arith.constant 5 : index\n"
                        "  \"kernel.map\"(%c) ({\n"
                        "  ^bb0(%i: index):\n"
                        "    \"probe.record\"(%i) : (index) -> ()\n"
                        "  }) {mapping = #kernel.task<spatial(4)>} : (index) -> ()\n"
                        "  kernel.return\n"
                        "}\n");
  lower(module);
  run_kernel(e, first_kernel(module), 0);
  ck_assert_uint_eq(e->num_records, 0);
  kr_op_erase(module);
  free(e);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("task_mapping");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, algebra_matches_definition);
  tcase_add_test(tc, spatial_only_one_worker_per_task);
  tcase_add_test(tc, worked_examples);
  tcase_add_test(tc, compose_limits);
  tcase_add_test(tc, attr_round_trip);
  tcase_add_test(tc, malformed_rejected);
  tcase_add_test(tc, lowering_matches_algebra);
  tcase_add_test(tc, lowering_nested_and_guards);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return unit_run_suite(suite()); }
