/* bench/ir_throughput.c - IR throughput: parse, verify and print a generated module of N ops.
 *
 *   bench_ir_throughput [-n OPS] [--func-size OPS] [--seed S] [--write FILE]
 *
 * Generates in memory a module of about OPS operations (default 1,000,000): func.func bodies of
 * arith ops (custom syntax) mixed with generic ops of an unregistered `bench` dialect carrying
 * attributes, with 1-3 operands, and ops with nested regions.  The text is MLIR-compatible, so
 * `--write FILE` (used by bench/compare-mlir-opt.sh) lets mlir-opt read the same module.
 * Then it measures separately: parse (no verification), verify, print (to /dev/null), and the peak
 * memory the parsed module needs (ru_maxrss after parse+verify minus the baseline before parsing).
 * Prints numbers only: this is a measurement, never a pass/fail test (issue #2's goal is
 * >= 1M ops/s parse+verify and <= 400 bytes/op). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "korch/korch.h"

/* ------------------------------------------------------------------------------------------------
 * Text generation.  Runs twice with the same seed: once to count bytes, once to fill an exactly
 * sized buffer, so that no realloc growth inflates the memory high-water mark before parsing. */

typedef struct gen {
  char *buf;          /* NULL: only count */
  size_t len;
  uint64_t rng;
  size_t ops;         /* operations emitted */
  unsigned next;      /* next value number in the current function */
  /* recent values by type, for operands */
  unsigned ints[16], floats[16];
  unsigned nints, nfloats;
} gen;

static void emit(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(gen *g, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (g->buf) memcpy(g->buf + g->len, tmp, (size_t)n);
  g->len += (size_t)n;
}

static uint32_t rnd(gen *g) {   /* xorshift64* */
  g->rng ^= g->rng >> 12;
  g->rng ^= g->rng << 25;
  g->rng ^= g->rng >> 27;
  return (uint32_t)((g->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned pick_int(gen *g) { return g->ints[rnd(g) % g->nints]; }
static unsigned pick_float(gen *g) { return g->floats[rnd(g) % g->nfloats]; }
static void push_int(gen *g, unsigned v) { g->ints[g->nints < 16 ? g->nints++ : rnd(g) % 16] = v; }
static void push_float(gen *g, unsigned v) { g->floats[g->nfloats < 16 ? g->nfloats++ : rnd(g) % 16] = v; }

/* One op in a function body (or region) at indentation `ind`; returns the number of ops emitted. */
static void gen_op(gen *g, int ind, int allow_region) {
  unsigned r = rnd(g) % 100;
  unsigned v = g->next;
  if (r < 12) {
    if (rnd(g) & 1) {
      emit(g, "%*s%%%u = arith.constant %d : i32\n", ind, "", v, (int)(rnd(g) % 2000) - 1000);
      push_int(g, v);
    } else {
      emit(g, "%*s%%%u = arith.constant %d.%02d0000e+00 : f32\n", ind, "", v, (int)(rnd(g) % 9) + 1,
           (int)(rnd(g) % 100));
      push_float(g, v);
    }
  } else if (r < 40) {
    static const char *const iops[] = {"addi", "muli", "subi", "andi", "ori", "xori", "maxsi", "minsi"};
    emit(g, "%*s%%%u = arith.%s %%%u, %%%u : i32\n", ind, "", v, iops[rnd(g) % 8], pick_int(g), pick_int(g));
    push_int(g, v);
  } else if (r < 58) {
    static const char *const fops[] = {"addf", "mulf", "subf", "maximumf"};
    emit(g, "%*s%%%u = arith.%s %%%u, %%%u : f32\n", ind, "", v, fops[rnd(g) % 4], pick_float(g), pick_float(g));
    push_float(g, v);
  } else if (r < 64) {
    /* compare + select: 2 ops, the select with 3 operands */
    emit(g, "%*s%%%u = arith.cmpi slt, %%%u, %%%u : i32\n", ind, "", v, pick_int(g), pick_int(g));
    emit(g, "%*s%%%u = arith.select %%%u, %%%u, %%%u : i32\n", ind, "", v + 1, v, pick_int(g), pick_int(g));
    g->next += 2;
    g->ops += 2;
    push_int(g, v + 1);
    return;
  } else if (r < 76) {
    emit(g, "%*s%%%u = \"bench.neg\"(%%%u) : (f32) -> f32\n", ind, "", v, pick_float(g));
    push_float(g, v);
  } else if (r < 90) {
    emit(g, "%*s%%%u = \"bench.compute\"(%%%u, %%%u, %%%u) {axes = [0, 1], kind = \"fma\", scale = 2.500000e+00 : f32}"
            " : (f32, f32, i32) -> f32\n",
         ind, "", v, pick_float(g), pick_float(g), pick_int(g));
    push_float(g, v);
  } else if (r < 97 || !allow_region) {
    emit(g, "%*s%%%u = \"bench.cast\"(%%%u) {mode = \"round\"} : (f32) -> i32\n", ind, "", v, pick_float(g));
    push_int(g, v);
  } else {
    /* a region op: `bench.loop` with a body of a few ops ending in a terminator */
    unsigned outer_int = pick_int(g);
    emit(g, "%*s%%%u = \"bench.loop\"(%%%u) ({\n", ind, "", v, outer_int);
    emit(g, "%*s^bb0(%%a%u: i32):\n", ind, "", v);
    g->next++;
    g->ops++;
    /* The body may use outer values (not isolated from above). */
    unsigned saved_nints = g->nints, saved_nfloats = g->nfloats;
    unsigned saved_ints[16], saved_floats[16];
    memcpy(saved_ints, g->ints, sizeof saved_ints);
    memcpy(saved_floats, g->floats, sizeof saved_floats);
    unsigned body = 2 + rnd(g) % 5;
    for (unsigned i = 0; i < body; i++) gen_op(g, ind + 2, 0);
    unsigned y = g->next++;
    emit(g, "%*s%%%u = arith.addi %%a%u, %%%u : i32\n", ind + 2, "", y, v, pick_int(g));
    emit(g, "%*s\"bench.yield\"(%%%u) : (i32) -> ()\n", ind + 2, "", y);
    g->ops += 2;
    emit(g, "%*s}) {trip = %u : i64} : (i32) -> i32\n", ind, "", rnd(g) % 64);
    /* values defined inside the region are not visible after it */
    memcpy(g->ints, saved_ints, sizeof saved_ints);
    memcpy(g->floats, saved_floats, sizeof saved_floats);
    g->nints = saved_nints;
    g->nfloats = saved_nfloats;
    push_int(g, v);
    return;
  }
  g->next++;
  g->ops++;
}

static void generate(gen *g, size_t target_ops, size_t func_size) {
  emit(g, "module {\n");
  g->ops = 1;
  unsigned fn = 0;
  while (g->ops < target_ops) {
    g->next = 0;
    g->nints = g->nfloats = 0;
    emit(g, "  func.func @f%u(%%arg0: i32, %%arg1: f32, %%arg2: i32) -> (i32, f32) {\n", fn++);
    /* block arguments are named %arg*, value numbers start at 0 */
    g->ops += 2;   /* func.func and its return */
    emit(g, "    %%0 = arith.constant 7 : i32\n");
    emit(g, "    %%1 = arith.constant 1.500000e+00 : f32\n");
    g->ops += 2;
    g->next = 2;
    g->ints[0] = 0;
    g->floats[0] = 1;
    g->nints = g->nfloats = 1;
    size_t end = g->ops + func_size;
    if (end > target_ops) end = target_ops;
    while (g->ops < end) gen_op(g, 4, 1);
    emit(g, "    return %%%u, %%%u : i32, f32\n  }\n", pick_int(g), pick_float(g));
  }
  emit(g, "}\n");
}

/* ------------------------------------------------------------------------------------------------
 * Measurement. */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User and system CPU seconds of this process so far: on a VM the kernel's zeroing of fresh
 * pages is a large, machine-dependent share of parse time, so it is reported apart. */
static void cpu_times(double *user, double *sys) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
  *sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static long max_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Resets the kernel's RSS high-water mark (Linux >= 4.0), so that ru_maxrss measures from here. */
static void reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

static kr_walk_result count_op(kr_op *op, void *user) {
  (void)op;
  ++*(size_t *)user;
  return KR_WALK_ADVANCE;
}

static void usage(void) {
  fprintf(stderr, "usage: bench_ir_throughput [-n OPS] [--func-size OPS] [--seed S] [--write FILE]\n");
}

int main(int argc, char **argv) {
  size_t target = 1000000, func_size = 10000;
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  const char *write_path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "-n") || !strcmp(a, "--ops")) && i + 1 < argc) target = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--func-size") && i + 1 < argc) func_size = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0) | 1;
    else if (!strcmp(a, "--write") && i + 1 < argc) write_path = argv[++i];
    else {
      usage();
      return 2;
    }
  }
  if (target < 10) target = 10;
  if (func_size < 10) func_size = 10;

  gen g;
  memset(&g, 0, sizeof g);
  g.rng = seed;
  generate(&g, target, func_size);
  size_t text_len = g.len;
  char *text = malloc(text_len + 1);
  if (!text) {
    fprintf(stderr, "bench_ir_throughput: out of memory\n");
    return 1;
  }
  memset(&g, 0, sizeof g);
  g.buf = text;
  g.rng = seed;
  generate(&g, target, func_size);
  text[text_len] = '\0';

  if (write_path) {
    FILE *f = fopen(write_path, "wb");
    if (!f || fwrite(text, 1, text_len, f) != text_len || fclose(f) != 0) {
      fprintf(stderr, "bench_ir_throughput: cannot write %s\n", write_path);
      return 1;
    }
    printf("wrote %zu ops, %zu bytes to %s\n", g.ops, text_len, write_path);
    free(text);
    return 0;
  }

  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, stderr);
  kr_context_set_allow_unregistered(ctx, true);
  if (KR_FAILED(kr_register_core_dialects(ctx))) return 1;

  reset_peak_rss();
  long rss0 = max_rss_kb();
  double u0, s0, u1, s1;
  cpu_times(&u0, &s0);
  double t0 = now();
  kr_op *module = kr_parse_source(ctx, "bench.kir", text, text_len, false);
  double t1 = now();
  if (!module) {
    fprintf(stderr, "bench_ir_throughput: the generated module does not parse\n");
    return 1;
  }
  kr_status vs = kr_op_verify(module);
  double t2 = now();
  cpu_times(&u1, &s1);
  long rss1 = max_rss_kb();
  if (KR_FAILED(vs)) {
    fprintf(stderr, "bench_ir_throughput: the generated module does not verify\n");
    return 1;
  }
  size_t nops = 0;
  kr_op_walk(module, KR_WALK_PRE_ORDER, count_op, &nops);

  FILE *devnull = fopen("/dev/null", "w");
  kr_ostream os;
  kr_ostream_init_file(&os, devnull ? devnull : stdout);
  kr_print_flags flags = {0};
  double t3 = now();
  kr_op_print(module, &os, &flags);
  kr_ostream_flush(&os);
  double t4 = now();
  kr_ostream_close(&os);
  if (devnull) fclose(devnull);

  double t5 = now();
  kr_context_destroy(ctx);
  double t6 = now();
  free(text);

  double parse = t1 - t0, verify = t2 - t1, print = t4 - t3;
  double mem = (double)(rss1 - rss0) * 1024.0;
  printf("ops                      %zu\n", nops);
  printf("text bytes               %zu\n", text_len);
  printf("parse seconds            %.3f\n", parse);
  printf("verify seconds           %.3f\n", verify);
  printf("print seconds            %.3f\n", print);
  printf("destroy seconds          %.3f\n", t6 - t5);
  printf("parse+verify user CPU s  %.3f\n", u1 - u0);
  printf("parse+verify sys CPU s   %.3f   (kernel: page faults of fresh memory)\n", s1 - s0);
  printf("parse ops/s              %.0f\n", (double)nops / parse);
  printf("parse+verify ops/s       %.0f\n", (double)nops / (parse + verify));
  printf("parse+verify ops/s, user CPU only  %.0f\n", (double)nops / (u1 - u0));
  printf("print ops/s              %.0f\n", (double)nops / print);
  printf("parse MB/s               %.1f\n", (double)text_len / parse / 1e6);
  printf("peak memory bytes        %.0f\n", mem);
  printf("peak memory bytes/op     %.1f   (IR only; the input text adds %.1f)\n", mem / (double)nops,
         (double)text_len / (double)nops);
  printf("peak memory bytes/op, IR + input text  %.1f\n", (mem + (double)text_len) / (double)nops);
  return 0;
}
