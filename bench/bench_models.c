/* bench/bench_models.c - the model list and one model's import and pipeline, shared by the
 * whole-network benchmarks (bench_models.h). */
#include "bench/bench_models.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "korch/onnx.h"
#include "support/flag_value.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.onnx files of `dir`, sorted (malloc'd paths); NULL when the folder cannot be read. */
static char **list_models(const char *dir, unsigned *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d) return NULL;
  unsigned cap = 16;
  char **v = malloc(cap * sizeof *v);
  for (struct dirent *e; v && (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l <= 5 || strcmp(e->d_name + l - 5, ".onnx")) continue;
    if (*n == cap) {
      char **nv = realloc(v, (cap *= 2) * sizeof *v);
      if (!nv) break;
      v = nv;
    }
    size_t pl = strlen(dir) + l + 2;
    if (!(v[*n] = malloc(pl))) break;
    snprintf(v[*n], pl, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (v) qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

char **bench_models(char **given, unsigned *n, const char *dir) {
  if (*n) return given;
  free(given);
  char **files = list_models(dir, n);
  if (!files) printf("SKIP: no model folder %s\n", dir);
  return files;
}

void bench_free_models(char **files, unsigned n) {
  for (unsigned i = 0; i < n; i++) free(files[i]);
  free(files);
}

void bench_model_name(const char *path, char *name, size_t cap) {
  const char *s = strrchr(path, '/');
  snprintf(name, cap, "%s", s ? s + 1 : path);
  size_t nl = strlen(name);
  if (nl > 5 && !strcmp(name + nl - 5, ".onnx")) name[nl - 5] = 0;
}

double bench_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void capture_handler(const kr_diagnostic *d, void *user) {
  bench_model *b = user;
  kr_diag_print(&b->diags, d);
  if (b->verbose) kr_diag_print_handler(d, stderr);
}

bool bench_model_open(bench_model *b, const char *path, bool verbose) {
  *b = (bench_model){.verbose = verbose};
  kr_ostream_init_mem(&b->diags);
  b->ctx = kr_context_create();
  kr_context_set_diag_handler(b->ctx, capture_handler, b);
  if (KR_FAILED(kr_register_core_dialects(b->ctx)) || KR_FAILED(kr_register_core_passes(b->ctx))) return false;
  b->import_start_s = bench_now_s();
  b->module = kr_onnx_import_file(b->ctx, path, NULL);
  return b->module != NULL;
}

bool bench_model_run(bench_model *b, const char *pipeline) {
  if (b->pm) kr_pass_manager_destroy(b->pm);
  b->pm = kr_pass_manager_create(b->ctx, KR_MODULE_OP);
  if (!b->pm || KR_FAILED(kr_pass_manager_parse_pipeline(b->pm, pipeline))) return false;
  double t0 = bench_now_s();
  kr_status st = kr_pass_manager_run(b->pm, b->module);
  b->pipeline_s = bench_now_s() - t0;
  return !KR_FAILED(st);
}

void bench_model_close(bench_model *b) {
  if (b->pm) kr_pass_manager_destroy(b->pm);
  kr_context_destroy(b->ctx);
  kr_ostream_close(&b->diags);
  b->pm = NULL;
  b->ctx = NULL;
  b->module = NULL;
}

const char *bench_model_diags(bench_model *b) {
  return b->diags.len ? kr_ostream_str(&b->diags) : "failed without a diagnostic";
}

void bench_first_line(const char *s, char *out, size_t cap) {
  size_t n = strcspn(s, "\n");
  if (n >= cap) n = cap - 1;
  memcpy(out, s, n);
  out[n] = 0;
}

void bench_model_failure(bench_model *b, char *why, size_t cap) {
  const char *s = bench_model_diags(b);
  if (!strncmp(s, "<unknown>:0: ", 13)) s += 13;
  bench_first_line(s, why, cap);
}

char **bench_table_args(int argc, char **argv, const char *prog, const char *pipeline_help, const char **pipeline,
                        const char **dir, bool *verbose, unsigned *n, int *status) {
  const char *default_pipeline = *pipeline, *default_dir = *dir;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  *n = 0;
  *status = 1; /* out of memory */
  for (int i = 1; files && i < argc; i++) {
    const char *a = argv[i], *v;
    if (kr_tool_flag_value(argc, argv, &i, "--pipeline", &v) && v)
      *pipeline = v;
    else if (kr_tool_flag_value(argc, argv, &i, "--models", &v) && v)
      *dir = v;
    else if (!strcmp(a, "-v"))
      *verbose = true;
    else if (a[0] == '-') {
      fprintf(stderr,
              "usage: %s [--pipeline STR] [--models DIR] [-v] [FILE.onnx ...]\n"
              "  --pipeline STR  %s (default %s)\n"
              "  --models DIR    the models to report when no file is given (default %s)\n"
              "  -v              print every diagnostic to stderr\n",
              prog, pipeline_help, default_pipeline, default_dir);
      bench_free_models(files, *n);
      *status = !strcmp(a, "-h") || !strcmp(a, "--help") ? 0 : 2;
      return NULL;
    } else
      files[(*n)++] = strdup(a);
  }
  return files;
}
