/* tools/korch-opt/options.c - korch-opt's command-line parser and --help text.
 *
 * Spellings follow LLVM's cl library as mlir-opt uses it: `-x` and `--x` are the same option, values
 * are given as `--x=v` (or `--x v` for options that take a value), booleans accept `=true/false/1/0`.
 * Anything else that starts with a dash is taken to be a pass flag (`-cse`, `--canonicalize=opts`);
 * main() checks it against the pass registry once plugins are loaded. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "support/split_input.h"

enum opt_id {
  OPT_ALLOW_UNREGISTERED,
  OPT_SPLIT_INPUT,
  OPT_VERIFY_DIAGNOSTICS,
  OPT_VERIFY_EACH,
  OPT_PASS_PIPELINE,
  OPT_PRINT_IR_AFTER_ALL,
  OPT_PRINT_IR_AFTER_CHANGE,
  OPT_PRINT_IR_AFTER,
  OPT_TIMING,
  OPT_PRINT_OP_GENERIC,
  OPT_PRINT_DEBUGINFO,
  OPT_LOAD_PLUGIN,
  OPT_DUMP_PASS_PIPELINE,
  OPT_OUTPUT,
  OPT_VERIFY_NUMERICS,
  OPT_NUMERICS_RTOL,
  OPT_NUMERICS_ATOL,
  OPT_NUMERICS_SEED,
  OPT_NUMERICS_TRIALS,
  OPT_HELP,
  OPT_VERSION,
};

enum opt_kind {
  KIND_BOOL,        /* --x, --x=true|false */
  KIND_VALUE,       /* --x=v or --x v */
  KIND_OPT_VALUE,   /* --x or --x=v */
};

typedef struct opt_desc {
  enum opt_id id;
  enum opt_kind kind;
  const char *name;
  const char *alias;     /* mlir-opt's spelling where it differs, or NULL */
  const char *meta;      /* value placeholder for help */
  const char *help;
  bool generic;          /* listed under "Generic Options" */
} opt_desc;

static const opt_desc options[] = {
    {OPT_ALLOW_UNREGISTERED, KIND_BOOL, "allow-unregistered-dialect", NULL, NULL,
     "Allow operations, types and attributes of unregistered dialects", false},
    {OPT_DUMP_PASS_PIPELINE, KIND_BOOL, "dump-pass-pipeline", NULL, NULL,
     "Print the pass pipeline that will be run to stderr", false},
    {OPT_LOAD_PLUGIN, KIND_VALUE, "load-dialect-plugin", NULL, "<path>",
     "Load a dialect plugin (a shared object exporting korch_plugin_init); repeatable", false},
    {OPT_NUMERICS_ATOL, KIND_VALUE, "numerics-atol", NULL, "<number>",
     "--verify-numerics: absolute tolerance (default 1e-5)", false},
    {OPT_NUMERICS_RTOL, KIND_VALUE, "numerics-rtol", NULL, "<number>",
     "--verify-numerics: relative tolerance, |after - before| <= atol + rtol * |before| (default 1e-4)", false},
    {OPT_NUMERICS_SEED, KIND_VALUE, "numerics-seed", NULL, "<ulong>",
     "--verify-numerics: seed of the random inputs (default 1)", false},
    {OPT_NUMERICS_TRIALS, KIND_VALUE, "numerics-trials", NULL, "<uint>",
     "--verify-numerics: random input sets per function (default 1)", false},
    {OPT_OUTPUT, KIND_VALUE, "o", NULL, "<filename>", "Output filename, written atomically ('-': stdout)", false},
    {OPT_PASS_PIPELINE, KIND_VALUE, "pass-pipeline", NULL, "<pipeline>",
     "A textual pass pipeline, e.g. 'builtin.module(func.func(cse,canonicalize{max-iterations=4}))'", false},
    {OPT_PRINT_DEBUGINFO, KIND_BOOL, "print-debuginfo", "mlir-print-debuginfo", NULL,
     "Print locations (loc(...)) on operations and block arguments", false},
    {OPT_PRINT_IR_AFTER, KIND_VALUE, "print-ir-after", "mlir-print-ir-after", "<pass>[,<pass>...]",
     "Print the IR to stderr after each run of the named passes; repeatable", false},
    {OPT_PRINT_IR_AFTER_ALL, KIND_BOOL, "print-ir-after-all", "mlir-print-ir-after-all", NULL,
     "Print the IR to stderr after every pass", false},
    {OPT_PRINT_IR_AFTER_CHANGE, KIND_BOOL, "print-ir-after-change", "mlir-print-ir-after-change", NULL,
     "Print the IR to stderr after every pass that changed it", false},
    {OPT_PRINT_OP_GENERIC, KIND_BOOL, "print-op-generic", "mlir-print-op-generic", NULL,
     "Print operations in the generic form (no custom assembly)", false},
    {OPT_SPLIT_INPUT, KIND_OPT_VALUE, "split-input-file", NULL, "<marker>",
     "Split the input at '// -----' lines (or =MARKER lines) and process each chunk in its own context", false},
    {OPT_TIMING, KIND_BOOL, "timing", "mlir-timing", NULL, "Print a per-pass wall-time table to stderr", false},
    {OPT_VERIFY_DIAGNOSTICS, KIND_BOOL, "verify-diagnostics", NULL, NULL,
     "Check the diagnostics against expected-error/warning/remark/note comments in the input", false},
    {OPT_VERIFY_EACH, KIND_BOOL, "verify-each", NULL, NULL, "Run the verifier after each pass (default: true)",
     false},
    {OPT_VERIFY_NUMERICS, KIND_BOOL, "verify-numerics", NULL, NULL,
     "Interpret every function before and after the pipeline on the same random inputs (floats in "
     "[-1, 1], integers in [0, 4)); fail when outputs differ",
     false},
    {OPT_HELP, KIND_BOOL, "help", "h", NULL, "Display available options", true},
    {OPT_VERSION, KIND_BOOL, "version", NULL, NULL, "Display the version of this program", true},
};
#define NUM_OPTIONS (sizeof options / sizeof options[0])

static char *dup_range(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) {
    fputs("korch-opt: out of memory\n", stderr);
    abort();
  }
  memcpy(r, s, n);
  r[n] = '\0';
  return r;
}

static const opt_desc *find_option(const char *name, size_t n) {
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    const opt_desc *d = &options[i];
    if (strlen(d->name) == n && memcmp(d->name, name, n) == 0) return d;
    if (d->alias && strlen(d->alias) == n && memcmp(d->alias, name, n) == 0) return d;
  }
  return NULL;
}

static kr_status parse_bool(const char *arg, const char *value, bool *out) {
  if (!value || !strcmp(value, "true") || !strcmp(value, "TRUE") || !strcmp(value, "True") || !strcmp(value, "1")) {
    *out = true;
    return KR_SUCCESS;
  }
  if (!strcmp(value, "false") || !strcmp(value, "FALSE") || !strcmp(value, "False") || !strcmp(value, "0")) {
    *out = false;
    return KR_SUCCESS;
  }
  fprintf(stderr, "korch-opt: '%s' is not a boolean value for option '%s' (use true or false)\n", value, arg);
  return KR_FAILURE;
}

/* Adds the comma-separated pass names of --print-ir-after=a,b. */
static void add_name_list(kr_vec *v, const char *list) {
  const char *p = list;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n) KR_VEC_PUSH(v, char *, dup_range(p, n));
    p += n + (comma ? 1 : 0);
  }
}

/* A pass flag's option string: `--canonicalize=max-iterations=4` or, as a pipeline would spell it,
 * `--canonicalize={max-iterations=4}`. */
static const char *pass_flag_options(const char *value) {
  if (!value) return NULL;
  size_t n = strlen(value);
  if (n >= 2 && value[0] == '{' && value[n - 1] == '}') return dup_range(value + 1, n - 2);
  return dup_range(value, n);
}

/* A finite non-negative number for --numerics-rtol/atol. */
static kr_status parse_tolerance(const char *arg, const char *value, double *out) {
  char *end;
  double v = strtod(value, &end);
  if (!*value || *end || !(v >= 0) || v == HUGE_VAL) {
    fprintf(stderr, "korch-opt: '%s' is not a non-negative number for option '%s'\n", value, arg);
    return KR_FAILURE;
  }
  *out = v;
  return KR_SUCCESS;
}

/* An unsigned decimal integer in [min, max]. */
static kr_status parse_unsigned(const char *arg, const char *value, uint64_t min, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(value, &end, 10);
  if (!*value || *end || value[0] == '-' || errno || v < min || v > max) {
    fprintf(stderr, "korch-opt: '%s' is not an integer in [%llu, %llu] for option '%s'\n", value,
            (unsigned long long)min, (unsigned long long)max, arg);
    return KR_FAILURE;
  }
  *out = v;
  return KR_SUCCESS;
}

static kr_status apply(kr_opt_options *o, const opt_desc *d, const char *arg, const char *value) {
  switch (d->id) {
  case OPT_ALLOW_UNREGISTERED: return parse_bool(arg, value, &o->allow_unregistered);
  case OPT_VERIFY_DIAGNOSTICS: return parse_bool(arg, value, &o->verify_diagnostics);
  case OPT_VERIFY_EACH: return parse_bool(arg, value, &o->verify_each);
  case OPT_PRINT_IR_AFTER_ALL: return parse_bool(arg, value, &o->print_ir_after_all);
  case OPT_PRINT_IR_AFTER_CHANGE: return parse_bool(arg, value, &o->print_ir_after_change);
  case OPT_TIMING: return parse_bool(arg, value, &o->timing);
  case OPT_PRINT_OP_GENERIC: return parse_bool(arg, value, &o->print_op_generic);
  case OPT_PRINT_DEBUGINFO: return parse_bool(arg, value, &o->print_debuginfo);
  case OPT_DUMP_PASS_PIPELINE: return parse_bool(arg, value, &o->dump_pass_pipeline);
  case OPT_HELP: return parse_bool(arg, value, &o->help);
  case OPT_VERSION: return parse_bool(arg, value, &o->version);
  case OPT_SPLIT_INPUT:
    o->split_input = true;
    if (value) {
      if (!*value) {
        fprintf(stderr, "korch-opt: empty split marker in '%s'\n", arg);
        return KR_FAILURE;
      }
      o->split_marker = value;
    }
    return KR_SUCCESS;
  case OPT_PASS_PIPELINE:
    if (o->pass_pipeline) {
      fprintf(stderr, "korch-opt: --pass-pipeline may only be given once\n");
      return KR_FAILURE;
    }
    o->pass_pipeline = value;
    return KR_SUCCESS;
  case OPT_PRINT_IR_AFTER: add_name_list(&o->print_ir_after, value); return KR_SUCCESS;
  case OPT_LOAD_PLUGIN: KR_VEC_PUSH(&o->plugins, const char *, value); return KR_SUCCESS;
  case OPT_OUTPUT: o->output = value; return KR_SUCCESS;
  case OPT_VERIFY_NUMERICS: return parse_bool(arg, value, &o->verify_numerics);
  case OPT_NUMERICS_RTOL: return parse_tolerance(arg, value, &o->numerics_rtol);
  case OPT_NUMERICS_ATOL: return parse_tolerance(arg, value, &o->numerics_atol);
  case OPT_NUMERICS_SEED: return parse_unsigned(arg, value, 0, UINT64_MAX, &o->numerics_seed);
  case OPT_NUMERICS_TRIALS: {
    uint64_t n;
    if (KR_FAILED(parse_unsigned(arg, value, 1, 1000000, &n))) return KR_FAILURE;
    o->numerics_trials = (unsigned)n;
    return KR_SUCCESS;
  }
  }
  return KR_FAILURE;
}

kr_status kr_opt_parse_args(kr_opt_options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->verify_each = true;
  o->split_marker = KR_TOOL_SPLIT_MARKER;
  o->output = "-";
  o->numerics_rtol = 1e-4;
  o->numerics_atol = 1e-5;
  o->numerics_seed = 1;
  o->numerics_trials = 1;
  bool only_positional = false;
  const char *numerics_arg = NULL;   /* the first --numerics-* option, which needs --verify-numerics */
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || arg[1] == '\0') {
      if (o->input) {
        fprintf(stderr, "korch-opt: too many input files: '%s' and '%s'\n", o->input, arg);
        return KR_FAILURE;
      }
      o->input = arg;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_positional = true;
      continue;
    }
    const char *body = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(body, '=');
    size_t name_len = eq ? (size_t)(eq - body) : strlen(body);
    const char *value = eq ? eq + 1 : NULL;
    const opt_desc *d = find_option(body, name_len);
    if (!d) {
      if (name_len == 0) {
        fprintf(stderr, "korch-opt: malformed argument '%s'\n", arg);
        return KR_FAILURE;
      }
      kr_opt_pass_flag f = {dup_range(body, name_len), pass_flag_options(value), arg};
      kr_vec_push(&o->pass_flags, &f, sizeof f);
      continue;
    }
    if (d->kind == KIND_VALUE && !value) {
      if (i + 1 >= argc) {
        fprintf(stderr, "korch-opt: option '%s' requires a value\n", arg);
        return KR_FAILURE;
      }
      value = argv[++i];
    }
    if (KR_FAILED(apply(o, d, arg, value))) return KR_FAILURE;
    if (!numerics_arg && (d->id == OPT_NUMERICS_RTOL || d->id == OPT_NUMERICS_ATOL || d->id == OPT_NUMERICS_SEED ||
                          d->id == OPT_NUMERICS_TRIALS))
      numerics_arg = arg;
  }
  /* A tolerance, seed or trial count without the check it configures would be silently ignored. */
  if (numerics_arg && !o->verify_numerics) {
    fprintf(stderr, "korch-opt: option '%s' has no effect without --verify-numerics\n", numerics_arg);
    return KR_FAILURE;
  }
  if (!o->input) o->input = "-";
  return KR_SUCCESS;
}

void kr_opt_options_free(kr_opt_options *o) {
  kr_opt_pass_flag *f = KR_VEC_DATA(&o->pass_flags, kr_opt_pass_flag);
  for (size_t i = 0; i < o->pass_flags.len; i++) {
    free((char *)f[i].name);
    free((char *)f[i].options);
  }
  kr_vec_free(&o->pass_flags);
  char **names = KR_VEC_DATA(&o->print_ir_after, char *);
  for (size_t i = 0; i < o->print_ir_after.len; i++) free(names[i]);
  kr_vec_free(&o->print_ir_after);
  kr_vec_free(&o->plugins);
}

/* ------------------------------------------------------------------------------------------------
 * --help */

enum { HELP_COLUMN = 44 };

/* `indent` spaces, `left`, padding to the description column, "- ", `right`. */
static void help_line(FILE *f, int indent, const char *left, const char *dash, const char *right) {
  int n = fprintf(f, "%*s%s", indent, "", left);
  fprintf(f, "%*s %s %s\n", n < HELP_COLUMN ? HELP_COLUMN - n : 0, "", dash, right ? right : "");
}

static const char *option_meta(kr_option_kind k) {
  switch (k) {
  case KR_OPT_BOOL: return "";
  case KR_OPT_INT: return "=<long>";
  case KR_OPT_UINT: return "=<ulong>";
  case KR_OPT_DOUBLE: return "=<number>";
  case KR_OPT_STRING: return "=<string>";
  }
  return "";
}

static void print_passes(FILE *f, kr_context *ctx) {
  fprintf(f, "  Compiler passes to run\n    Passes:\n");
  unsigned n = ctx ? kr_context_num_passes(ctx) : 0;
  if (n == 0) fprintf(f, "      (none registered)\n");
  for (unsigned i = 0; i < n; i++) {
    const kr_pass_def *p = kr_context_pass_at(ctx, i);
    char left[256];
    snprintf(left, sizeof left, "--%s", p->argument);
    help_line(f, 6, left, "-  ", p->summary);
    for (unsigned j = 0; j < p->num_options; j++) {
      const kr_pass_option *po = &p->options[j];
      char desc[512];
      snprintf(left, sizeof left, "--%s%s", po->name, option_meta(po->kind));
      if (po->default_value && *po->default_value)
        snprintf(desc, sizeof desc, "%s (default: %s)", po->description ? po->description : "", po->default_value);
      else
        snprintf(desc, sizeof desc, "%s", po->description ? po->description : "");
      help_line(f, 8, left, "-", desc);
    }
  }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void kr_opt_print_help(FILE *f, kr_context *ctx) {
  fprintf(f, "OVERVIEW: korch modular optimizer driver\n\n");
  if (ctx) {
    /* Sorted by name, as mlir-opt lists them. */
    unsigned nd = kr_context_num_dialects(ctx);
    const char **names = malloc((nd ? nd : 1) * sizeof *names);
    if (names) {
      for (unsigned i = 0; i < nd; i++) names[i] = kr_context_dialect_at(ctx, i)->name;
      qsort(names, nd, sizeof *names, cmp_str);
      fprintf(f, "Available Dialects: ");
      for (unsigned i = 0; i < nd; i++) fprintf(f, "%s%s", i ? ", " : "", names[i]);
      fprintf(f, "\n\n");
      free(names);
    }
  }
  fprintf(f, "USAGE: korch-opt [options] <input file>\n\n"
             "  Reads .kir from <input file> ('-' or none: stdin), runs the passes given as flags (in\n"
             "  command-line order, nested in builtin.module(...)) or by --pass-pipeline, and prints the\n"
             "  result.  Exit status: 0 on success, 1 on any error.\n\n");
  fprintf(f, "OPTIONS:\n\nGeneral options:\n\n");
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    const opt_desc *d = &options[i];
    if (d->generic) continue;
    char left[256];
    if (d->id == OPT_OUTPUT) snprintf(left, sizeof left, "-o %s", d->meta);
    else if (d->kind == KIND_VALUE) snprintf(left, sizeof left, "--%s=%s", d->name, d->meta);
    else if (d->kind == KIND_OPT_VALUE) snprintf(left, sizeof left, "--%s[=%s]", d->name, d->meta);
    else snprintf(left, sizeof left, "--%s", d->name);
    help_line(f, 2, left, "-", d->help);
    if (d->alias) {
      char alias[256];
      snprintf(alias, sizeof alias, "--%s", d->alias);
      char desc[128];
      snprintf(desc, sizeof desc, "Alias for --%s", d->name);
      help_line(f, 4, alias, "-", desc);
    }
  }
  print_passes(f, ctx);
  fprintf(f, "\nGeneric Options:\n\n");
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    const opt_desc *d = &options[i];
    if (!d->generic) continue;
    char left[256];
    snprintf(left, sizeof left, "--%s", d->name);
    help_line(f, 2, left, "-", d->help);
  }
}
