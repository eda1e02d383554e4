/* tools/korch-interp/korch-interp.c - runs a .kir function on the CPU reference interpreter.
 *
 *   korch-interp model.kir --input x=x.npy --output y=y.npy --expect y=ref.npy
 *
 * Inputs and outputs are addressed by their ONNX names (the `onnx.name` argument/result
 * attribute the importer sets) or by position (`#0`).  Inputs are NumPy .npy files or ONNX
 * TensorProto .pb files.  Every problem is one error line on stderr and a non-zero exit; output
 * files are written (atomically) only when the whole run succeeded. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "korch/korch.h"
#include "korch/interp.h"
#include "korch/op.h"
#include "support/file_io.h"
#include "support/npy.h"
#include "korch/asm.h"
#ifdef KORCH_INTERP_HAVE_ONNX
#include "korch/onnx.h"
#endif

static const char *const TOOL = "korch-interp";

/* Every problem the tool itself finds: `korch-interp: error: ...` on stderr. */
__attribute__((format(printf, 1, 2))) static void tool_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", TOOL);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void print_help(FILE *f) {
  fprintf(f, "OVERVIEW: korch CPU reference interpreter\n"
             "\n"
             "USAGE: korch-interp <model.kir> [options]\n"
             "\n"
             "Runs one func.func of the module op by op with ONNX semantics.  NAME is the ONNX name of\n"
             "an argument or result (its `onnx.name` attribute) or its position, `#0`, `#1`, ... (quote\n"
             "it in a shell: '#0=x.npy').\n"
             "\n"
             "OPTIONS:\n"
             "  --function NAME         the function to run (default: @main, else the only function)\n"
             "  --input NAME=FILE       an argument's value: a NumPy .npy file (any dtype korch has but\n"
             "                          bf16, which NumPy lacks),\n"
             "                          or an ONNX TensorProto .pb file; element type and shape must\n"
             "                          match the argument's type exactly.  Every argument needs one.\n"
             "  --output NAME=FILE      writes a result as .npy (atomically: temporary file + rename).\n"
             "                          Outputs are written only when the run and every --expect file\n"
             "                          read succeeded (a numeric mismatch still writes them).\n"
             "  --expect NAME=FILE      compares a result with a reference (.npy or .pb; same element\n"
             "                          type and shape required) and prints, per result: the max\n"
             "                          absolute error max|y-r|, the max relative error max|y-r|/|r|\n"
             "                          over r != 0, and the scaled error max|y-r|/max|r|.  Default\n"
             "                          criterion: numpy.allclose, |y-r| <= atol + rtol*|r| for every\n"
             "                          element (NaN fails, equal infinities pass).\n"
             "  --rtol R                relative tolerance of the default criterion (default 1e-4)\n"
             "  --atol A                absolute tolerance of the default criterion (default 1e-5)\n"
             "  --scaled-tol T          pass criterion: scaled error <= T instead (NaN fails)\n"
             "  --print-outputs         prints every result's type and elements to stdout\n"
             "  --time                  prints the wall-clock time of the run in ms\n"
             "  --simt-checks           scheduled kernels (kernel.launch of a kernel.func with\n"
             "                          korch.block) run with race checks: the threads of a block\n"
             "                          in a seeded shuffled order between barriers, and shared-\n"
             "                          memory read-after-write, write-after-read and write-after-\n"
             "                          write races between threads are errors, and so are output\n"
             "                          elements never written or written with different values by\n"
             "                          two threads (the default)\n"
             "  --no-simt-checks        the fast mode: threads in order 0..n-1, no race shadow state\n"
             "                          (out-of-bounds, misaligned vector accesses, stores into\n"
             "                          inputs and barriers not reached by all threads are still\n"
             "                          errors)\n"
             "  --simt-seed N           seed of the shuffled thread order (default 1)\n"
             "  --simt-max-steps N      per launch, the thread starts plus loop iterations the SIMT\n"
             "                          interpreter runs before it stops with an error (default 2^30;\n"
             "                          0: no limit)\n"
             "  --memory-report         prints per scheduled kernel: launches, global-access\n"
             "                          efficiency (minimum 32-byte sectors / sectors touched per\n"
             "                          warp-level access), shared-memory wavefronts against the\n"
             "                          minimum (bank conflicts), and the conflicts of the accesses\n"
             "                          in innermost kernel.for loops (docs/Interpreter.md \"SIMT\")\n"
             "  --unchecked-plan        a planned host function (docs/MemoryPlan.md) runs even when\n"
             "                          its plan lets buffers live at the same launch overlap (for\n"
             "                          tests: the numbers then show the aliasing)\n"
             "  --help                  displays this text\n"
             "  --version               displays the version\n"
             "\n"
             "EXIT STATUS: 0 on success, 1 on any error or failed comparison.\n");
}

/* ---------------------------------------------------------------------------------------------
 * Command line. */

typedef struct named_file {
  const char *name, *path; /* name: malloc'd copy of the part before '=' */
  const char *arg;         /* as written */
  unsigned index;          /* resolved position */
} named_file;

typedef struct options {
  const char *model;
  const char *function;
  kr_vec inputs, outputs, expects; /* named_file */
  double rtol, atol, scaled_tol;
  bool use_scaled, print_outputs, time, help, version;
  bool simt_checks, memory_report, unchecked_plan;
  uint64_t simt_seed, simt_max_steps;
} options;

static void options_free(options *o) {
  kr_vec *vs[] = {&o->inputs, &o->outputs, &o->expects};
  for (unsigned k = 0; k < 3; k++) {
    for (size_t i = 0; i < vs[k]->len; i++) free((char *)KR_VEC_AT(vs[k], named_file, i).name);
    kr_vec_free(vs[k]);
  }
}

static bool parse_double(const char *flag, const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno || !(v >= 0) || isinf(v)) {
    tool_error("%s expects a non-negative number, got '%s'", flag, s);
    return false;
  }
  *out = v;
  return true;
}

static bool add_named(const char *flag, const char *value, kr_vec *v) {
  const char *eq = strchr(value, '=');
  if (!eq || eq == value || !eq[1]) {
    tool_error("%s expects NAME=FILE, got '%s'", flag, value);
    return false;
  }
  named_file nf = {0};
  char *name = malloc((size_t)(eq - value) + 1);
  if (!name) return false;
  memcpy(name, value, (size_t)(eq - value));
  name[eq - value] = 0;
  nf.name = name;
  nf.path = eq + 1;
  nf.arg = value;
  KR_VEC_PUSH(v, named_file, nf);
  return true;
}

static bool parse_args(options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->rtol = 1e-4;
  o->simt_checks = true;
  o->simt_seed = 1;
  o->simt_max_steps = (uint64_t)1 << 30;
  o->atol = 1e-5;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) {
      if (o->model) {
        tool_error("more than one model given ('%s' and '%s')", o->model, a);
        return false;
      }
      o->model = a;
      continue;
    }
    const char *f = a[1] == '-' ? a + 2 : a + 1; /* -flag and --flag */
    const char *eq = strchr(f, '=');
    size_t flen = eq ? (size_t)(eq - f) : strlen(f);
    char flag[32];
    if (flen >= sizeof flag) flen = sizeof flag - 1;
    memcpy(flag, f, flen);
    flag[flen] = 0;
    bool takes_value = !strcmp(flag, "function") || !strcmp(flag, "input") || !strcmp(flag, "output") ||
                       !strcmp(flag, "expect") || !strcmp(flag, "rtol") || !strcmp(flag, "atol") ||
                       !strcmp(flag, "scaled-tol") || !strcmp(flag, "simt-seed") || !strcmp(flag, "simt-max-steps");
    const char *value = NULL;
    if (takes_value) {
      if (eq)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else {
        tool_error("option '--%s' needs a value", flag);
        return false;
      }
    } else if (eq) {
      tool_error("option '--%s' takes no value", flag);
      return false;
    }
    if (!strcmp(flag, "help") || !strcmp(flag, "h"))
      o->help = true;
    else if (!strcmp(flag, "version"))
      o->version = true;
    else if (!strcmp(flag, "print-outputs"))
      o->print_outputs = true;
    else if (!strcmp(flag, "time"))
      o->time = true;
    else if (!strcmp(flag, "simt-checks"))
      o->simt_checks = true;
    else if (!strcmp(flag, "no-simt-checks"))
      o->simt_checks = false;
    else if (!strcmp(flag, "memory-report"))
      o->memory_report = true;
    else if (!strcmp(flag, "unchecked-plan"))
      o->unchecked_plan = true;
    else if (!strcmp(flag, "simt-seed") || !strcmp(flag, "simt-max-steps")) {
      char *end;
      errno = 0;
      unsigned long long v = strtoull(value, &end, 0);
      if (!*value || *end || errno || value[0] == '-') {
        tool_error("--%s expects a non-negative integer, got '%s'", flag, value);
        return false;
      }
      if (!strcmp(flag, "simt-seed"))
        o->simt_seed = v;
      else
        o->simt_max_steps = v;
    }
    else if (!strcmp(flag, "function"))
      o->function = value;
    else if (!strcmp(flag, "input")) {
      if (!add_named("--input", value, &o->inputs)) return false;
    } else if (!strcmp(flag, "output")) {
      if (!add_named("--output", value, &o->outputs)) return false;
    } else if (!strcmp(flag, "expect")) {
      if (!add_named("--expect", value, &o->expects)) return false;
    } else if (!strcmp(flag, "rtol")) {
      if (!parse_double("--rtol", value, &o->rtol)) return false;
    } else if (!strcmp(flag, "atol")) {
      if (!parse_double("--atol", value, &o->atol)) return false;
    } else if (!strcmp(flag, "scaled-tol")) {
      if (!parse_double("--scaled-tol", value, &o->scaled_tol)) return false;
      o->use_scaled = true;
    } else {
      tool_error("unknown command line argument '%s'.  Try: '%s --help'", a, TOOL);
      return false;
    }
  }
  if (!o->help && !o->version && !o->model) {
    tool_error("no model given.  Try: '%s --help'", TOOL);
    return false;
  }
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Diagnostics: file locations print as everywhere in korch; a file's own name location
 * (loc("in.npy"), as the .npy/.pb readers report) prints as `in.npy: error: ...`. */
static void diag_handler(const kr_diagnostic *d, void *user) {
  (void)user;
  if (!kr_loc_find_file(d->loc) && d->loc->kind == KR_ATTR_LOCATION && d->loc->u.loc.kind == KR_LOC_NAME &&
      !d->loc->u.loc.child) {
    const char *name = d->loc->u.loc.name, *sev = d->severity == KR_SEV_ERROR ? "error" : "note";
    /* The readers name the file in their messages; say it once. */
    if (strstr(d->message, name))
      fprintf(stderr, "%s: %s: %s\n", TOOL, sev, d->message);
    else
      fprintf(stderr, "%s: %s: %s: %s\n", TOOL, sev, name, d->message);
    for (const kr_diagnostic *n = d->notes; n; n = n->next) fprintf(stderr, "%s: note: %s\n", TOOL, n->message);
    return;
  }
  kr_diag_print_handler(d, stderr);
}

/* ---------------------------------------------------------------------------------------------
 * Names of arguments and results. */

static const char *onnx_name(kr_op *func, const char *which, unsigned i) {
  kr_attr arr = kr_op_get_attr(func, which);
  if (!arr || arr->kind != KR_ATTR_ARRAY || i >= arr->u.array.num) return NULL;
  kr_attr d = arr->u.array.elems[i];
  kr_attr n = d && d->kind == KR_ATTR_DICT ? kr_dict_get_cstr(d, "onnx.name") : NULL;
  return n && n->kind == KR_ATTR_STRING ? n->u.string.str : NULL;
}

/* "#0 ('x')" or "#0" into buf. */
static const char *describe(kr_op *func, const char *which, unsigned i, char *buf, size_t cap) {
  const char *n = onnx_name(func, which, i);
  if (n)
    snprintf(buf, cap, "#%u ('%s')", i, n);
  else
    snprintf(buf, cap, "#%u", i);
  return buf;
}


/* Resolves each entry's name among `count` arguments/results; reports unknown and repeated ones. */
static bool resolve(kr_op *func, const char *which, const char *kind, const char *flag, unsigned count, kr_vec *v) {
  bool ok = true;
  unsigned char *seen = calloc(count ? count : 1, 1);
  for (size_t k = 0; k < v->len; k++) {
    named_file *nf = &KR_VEC_AT(v, named_file, k);
    unsigned idx = UINT32_MAX;
    if (nf->name[0] == '#') {
      char *end;
      errno = 0;
      unsigned long p = strtoul(nf->name + 1, &end, 10);
      if (nf->name[1] && !*end && !errno && p < count) idx = (unsigned)p;
    } else {
      for (unsigned i = 0; i < count; i++) {
        const char *n = onnx_name(func, which, i);
        if (n && !strcmp(n, nf->name)) {
          idx = i;
          break;
        }
      }
    }
    if (idx == UINT32_MAX) {
      kr_ostream os;
      kr_ostream_init_mem(&os);
      for (unsigned i = 0; i < count; i++) {
        const char *n = onnx_name(func, which, i);
        if (n)
          kr_ostream_printf(&os, "%s'%s'", i ? ", " : "", n);
        else
          kr_ostream_printf(&os, "%s#%u", i ? ", " : "", i);
      }
      tool_error("%s: unknown %s '%s' (the %ss of @%s are: %s)", flag, kind, nf->name, kind, kr_op_symbol_name(func),
                 count ? kr_ostream_str(&os) : "none");
      kr_ostream_close(&os);
      ok = false;
      continue;
    }
    if (seen[idx]) {
      char d[160];
      tool_error("%s: %s %s is given twice", flag, kind, describe(func, which, idx, d, sizeof d));
      ok = false;
    }
    seen[idx] = 1;
    nf->index = idx;
  }
  free(seen);
  return ok;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static kr_status read_tensor(kr_context *ctx, const char *path, kr_tensor *t) {
  if (ends_with(path, ".pb")) {
#ifdef KORCH_INTERP_HAVE_ONNX
    return kr_onnx_read_tensor_file(ctx, path, t);
#else
    tool_error("cannot read '%s': this korch-interp was built without ONNX support (.pb inputs)", path);
    return KR_FAILURE;
#endif
  }
  return kr_npy_read(ctx, path, t);
}

static bool same_type(kr_type a, kr_type b) {
  if (a == b) return true;
  if (!a || !b || a->kind != KR_TYPE_TENSOR || b->kind != KR_TYPE_TENSOR) return false;
  if (a->u.shaped.elem != b->u.shaped.elem || a->u.shaped.rank != b->u.shaped.rank) return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++)
    if (a->u.shaped.dims[i] != b->u.shaped.dims[i]) return false;
  return true;
}

/* "element type" when the element types differ, else "shape". */
static const char *mismatch_kind(kr_type want, kr_type got) {
  return want && got && want->kind == KR_TYPE_TENSOR && got->kind == KR_TYPE_TENSOR &&
                 want->u.shaped.elem == got->u.shaped.elem
             ? "shape"
             : "element type";
}

/* ---------------------------------------------------------------------------------------------
 * Printing and comparing results. */

/* One line per scheduled kernel (--memory-report). */
static void print_memory_report(const kr_simt_kernel_stats *s) {
  double eff = s->global_sectors ? 100.0 * (double)s->global_min_sectors / (double)s->global_sectors : 100.0;
  printf("memory: @%s template=%s launches=%lld global: %.1f%% efficiency (%lld sectors, min %lld, %lld accesses) "
         "shared: %lld wavefronts (min %lld, %lld accesses) inner-loop conflicts: %lld (%lld accesses)\n",
         s->kernel, s->template_name[0] ? s->template_name : "-", (long long)s->launches, eff,
         (long long)s->global_sectors, (long long)s->global_min_sectors, (long long)s->global_accesses,
         (long long)s->shared_wavefronts, (long long)s->shared_min_wavefronts, (long long)s->shared_accesses,
         (long long)s->inner_shared_conflicts, (long long)s->inner_shared_accesses);
}

static void print_tensor(FILE *f, const char *label, const kr_tensor *t) {
  char *ts = kr_type_to_cstr(t->type);
  fprintf(f, "%s: %s = [", label, ts);
  free(ts);
  kr_type e = kr_tensor_elem(t);
  const int64_t limit = 1024;
  for (int64_t i = 0; i < t->numel && i < limit; i++) {
    if (i) fputs(", ", f);
    if (kr_type_is_float(e))
      fprintf(f, "%.9g", kr_tensor_get_f64(t, i));
    else if (kr_type_is_unsigned_int(e))
      fprintf(f, "%llu", (unsigned long long)kr_tensor_get_u64(t, i));
    else
      fprintf(f, "%lld", (long long)kr_tensor_get_i64(t, i));
  }
  if (t->numel > limit) fprintf(f, ", ... (%lld more)", (long long)(t->numel - limit));
  fputs("]\n", f);
}

typedef struct cmp_result {
  double max_abs, max_rel, scaled;
  bool pass;
} cmp_result;

/* Element-wise comparison of y with reference r (same type).  Integers compare through double,
 * which is exact up to 2^53 and more than good enough for an error figure. */
static cmp_result compare(const kr_tensor *y, const kr_tensor *r, const options *o) {
  cmp_result c = {0, 0, 0, true};
  double max_ref = 0;
  bool nan = false;
  for (int64_t i = 0; i < y->numel; i++) {
    double a = kr_tensor_get_f64(y, i), b = kr_tensor_get_f64(r, i);
    if (isnan(a) || isnan(b)) {
      nan = true;
      c.pass = false;
      continue;
    }
    if (isinf(b) || isinf(a)) {
      if (a != b) {
        c.max_abs = INFINITY;
        c.pass = false;
      }
      continue;
    }
    double d = fabs(a - b), m = fabs(b);
    if (d > c.max_abs) c.max_abs = d;
    if (m > max_ref) max_ref = m;
    if (m > 0 && d / m > c.max_rel) c.max_rel = d / m;
    if (!(d <= o->atol + o->rtol * m)) c.pass = false;
  }
  c.scaled = max_ref > 0 ? c.max_abs / max_ref : c.max_abs > 0 ? INFINITY : 0;
  if (nan) c.max_abs = c.max_rel = c.scaled = NAN;
  if (o->use_scaled) c.pass = !nan && c.scaled <= o->scaled_tol;
  return c;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------------------------------------
 * The run. */

static kr_op *find_function(kr_op *module, const char *name) {
  kr_region *r = module->num_regions ? kr_op_region(module, 0) : NULL;
  kr_block *b = r ? r->first : NULL;
  if (name) {
    kr_op *fn = kr_symbol_lookup_in(module, kr_ident_cstr(kr_op_context(module), name));
    if (!fn || strcmp(fn->name, "func.func") != 0) {
      tool_error("--function: the module has no function @%s", name);
      return NULL;
    }
    return fn;
  }
  kr_op *only = NULL;
  unsigned n = 0;
  for (kr_op *op = b ? b->first : NULL; op; op = op->next) {
    if (strcmp(op->name, "func.func") != 0) continue;
    kr_ident s = kr_op_symbol_name(op);
    if (s && !strcmp(s, "main")) return op;
    only = op;
    n++;
  }
  if (n == 1) return only;
  if (n == 0)
    tool_error("the module has no function to run");
  else
    tool_error("the module has %u functions and none is @main: choose one with --function", n);
  return NULL;
}

static int run(const options *o, kr_context *ctx, kr_op *module) {
  kr_op *func = find_function(module, o->function);
  if (!func) return 1;
  kr_attr fta = kr_op_get_attr(func, "function_type");
  kr_type fty = fta && fta->kind == KR_ATTR_TYPE ? fta->type : NULL;
  if (!fty || fty->kind != KR_TYPE_FUNCTION) {
    tool_error("@%s has no function type", kr_op_symbol_name(func));
    return 1;
  }
  unsigned nin = fty->u.func.num_inputs, nout = fty->u.func.num_results;
  kr_vec *inputs = (kr_vec *)&o->inputs, *outputs = (kr_vec *)&o->outputs, *expects = (kr_vec *)&o->expects;
  bool ok = resolve(func, "arg_attrs", "input", "--input", nin, inputs);
  ok = resolve(func, "res_attrs", "output", "--output", nout, outputs) && ok;
  ok = resolve(func, "res_attrs", "output", "--expect", nout, expects) && ok;
  if (!ok) return 1;

  int rc = 1;
  kr_tensor *in = calloc(nin ? nin : 1, sizeof *in), *out = calloc(nout ? nout : 1, sizeof *out);
  kr_tensor *ref = calloc(expects->len ? expects->len : 1, sizeof *ref);
  bool *have = calloc(nin ? nin : 1, sizeof *have);
  if (!in || !out || !ref || !have) {
    tool_error("out of memory");
    goto done;
  }
  char d[160];
  /* Missing inputs first (cheap), then read the files. */
  for (size_t k = 0; k < inputs->len; k++) have[KR_VEC_AT(inputs, named_file, k).index] = true;
  for (unsigned i = 0; i < nin; i++) {
    if (have[i]) continue;
    char *ts = kr_type_to_cstr(fty->u.func.inputs[i]);
    const char *n = onnx_name(func, "arg_attrs", i);
    char spell[160];
    if (n)
      snprintf(spell, sizeof spell, "%s", n);
    else
      snprintf(spell, sizeof spell, "'#%u'", i);
    tool_error("missing input %s of @%s, of type %s: pass --input %s=FILE", describe(func, "arg_attrs", i, d, sizeof d),
               kr_op_symbol_name(func), ts, spell);
    free(ts);
    ok = false;
  }
  if (!ok) goto done;
  for (size_t k = 0; k < inputs->len; k++) {
    const named_file *nf = &KR_VEC_AT(inputs, named_file, k);
    kr_tensor *t = &in[nf->index];
    if (read_tensor(ctx, nf->path, t)) {
      ok = false;
      continue;
    }
    kr_type want = fty->u.func.inputs[nf->index];
    if (!same_type(want, t->type)) {
      char *w = kr_type_to_cstr(want), *g = kr_type_to_cstr(t->type);
      tool_error("input %s from '%s': %s mismatch: expected %s, got %s",
                 describe(func, "arg_attrs", nf->index, d, sizeof d), nf->path, mismatch_kind(want, t->type), w, g);
      free(w);
      free(g);
      ok = false;
    }
  }
  for (size_t k = 0; k < expects->len; k++) {
    const named_file *nf = &KR_VEC_AT(expects, named_file, k);
    if (read_tensor(ctx, nf->path, &ref[k])) {
      ok = false;
      continue;
    }
    kr_type want = fty->u.func.results[nf->index];
    if (!same_type(want, ref[k].type)) {
      char *w = kr_type_to_cstr(want), *g = kr_type_to_cstr(ref[k].type);
      tool_error("--expect for output %s from '%s': %s mismatch: the result has type %s, the reference %s",
                 describe(func, "res_attrs", nf->index, d, sizeof d), nf->path, mismatch_kind(want, ref[k].type), w, g);
      free(w);
      free(g);
      ok = false;
    }
  }
  if (!ok) goto done;

  double t0 = now_ms();
  kr_interp_options io = kr_interp_default_options();
  io.simt_checks = o->simt_checks;
  io.simt_seed = o->simt_seed;
  io.simt_max_steps = o->simt_max_steps;
  io.memory_report = o->memory_report;
  io.plan_unchecked = o->unchecked_plan;
  kr_simt_kernel_stats *stats = NULL;
  unsigned num_stats = 0;
  io.stats = &stats;
  io.num_stats = &num_stats;
  kr_status st = kr_interp_run_with(func, in, nin, out, nout, &io);
  double t1 = now_ms();
  if (st) {
    free(stats);
    goto done;
  }
  if (o->time) printf("time: %.3f ms\n", t1 - t0);
  for (unsigned k = 0; k < num_stats; k++) print_memory_report(&stats[k]);
  free(stats);

  if (o->print_outputs)
    for (unsigned i = 0; i < nout; i++) {
      const char *n = onnx_name(func, "res_attrs", i);
      char label[160];
      if (n)
        snprintf(label, sizeof label, "%s", n);
      else
        snprintf(label, sizeof label, "#%u", i);
      print_tensor(stdout, label, &out[i]);
    }

  bool all_pass = true;
  for (size_t k = 0; k < expects->len; k++) {
    const named_file *nf = &KR_VEC_AT(expects, named_file, k);
    cmp_result c = compare(&out[nf->index], &ref[k], o);
    const char *n = onnx_name(func, "res_attrs", nf->index);
    char label[160];
    if (n)
      snprintf(label, sizeof label, "%s", n);
    else
      snprintf(label, sizeof label, "#%u", nf->index);
    printf("%s: max_abs_err=%.6g max_rel_err=%.6g scaled_err=%.6g ", label, c.max_abs, c.max_rel, c.scaled);
    if (o->use_scaled)
      printf("(scaled_tol=%g) %s\n", o->scaled_tol, c.pass ? "PASS" : "FAIL");
    else
      printf("(rtol=%g atol=%g) %s\n", o->rtol, o->atol, c.pass ? "PASS" : "FAIL");
    all_pass = all_pass && c.pass;
  }
  fflush(stdout);

  bool written = true;
  for (size_t k = 0; k < outputs->len; k++) {
    const named_file *nf = &KR_VEC_AT(outputs, named_file, k);
    if (kr_npy_write(ctx, nf->path, &out[nf->index])) written = false;
  }
  rc = all_pass && written ? 0 : 1;

done:
  for (unsigned i = 0; in && i < nin; i++) kr_tensor_free(&in[i]);
  for (unsigned i = 0; out && i < nout; i++) kr_tensor_free(&out[i]);
  for (size_t k = 0; ref && k < expects->len; k++) kr_tensor_free(&ref[k]);
  free(in);
  free(out);
  free(ref);
  free(have);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  if (!parse_args(&o, argc, argv)) {
    options_free(&o);
    return 1;
  }
  if (o.help || o.version) {
    if (o.help)
      print_help(stdout);
    else
      printf("korch-interp version %s\n", KORCH_VERSION);
    options_free(&o);
    return 0;
  }
  size_t len;
  char *buf = kr_tool_read_file(TOOL, o.model, &len);
  if (!buf) {
    options_free(&o);
    return 1;
  }
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, diag_handler, NULL);
  int rc = 1;
  if (!KR_FAILED(kr_register_core_dialects(ctx))) {
    const char *filename = strcmp(o.model, "-") == 0 ? "<stdin>" : o.model;
    kr_op *module = kr_parse_source(ctx, filename, buf, len, true);
    if (module) rc = run(&o, ctx, module);
  }
  kr_context_destroy(ctx);
  free(buf);
  options_free(&o);
  return rc;
}
