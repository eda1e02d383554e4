/* test/onnx/conformance.c - the ONNX node-test conformance driver (issue 3, item 5).
 *
 * For every test directory named in the list (../shared/conformance/onnx-node-tests.txt), over
 * Debian's libonnx-testdata (ONNX's own backend node tests):
 *   1. the graph inputs that decide shapes (kr_onnx_shape_inputs) are bound as constants from
 *      their test_data_set_0/input_K.pb (--bind-input),
 *   2. model.onnx is imported (kr_onnx_import_file),
 *   3. the remaining input_K.pb are the arguments of @main, in graph order,
 *   4. kr_interp_run runs it and every result is compared with output_K.pb: same element type and
 *      shape; floats |y-r| <= atol + rtol*|r| (ONNX's backend-test defaults rtol 1e-3,
 *      atol 1e-7: onnx/backend/test/runner/__init__.py assert_similar_outputs), NaN matches NaN;
 *      integers and booleans exactly.
 * input_K.pb is the K-th graph input that is not an initializer (ONNX's test generator writes
 * them so); kr_onnx_graph_inputs names them.
 *
 * With --level=prim (issue 4), step 3 is preceded by the pass pipeline `op-to-prim,canonicalize`
 * (--pipeline=STR overrides it) run on the module through the pass manager, with the verifier
 * after each pass; a test fails if the pipeline fails or any `op.*` op is left in the module,
 * and is then interpreted and compared exactly as at op level.  Both levels share one
 * known-failures list: a test that passes at op level and fails at prim level is a bug of the
 * fission, never a known failure.
 *
 * With --level=kernel (issue 5), the pipeline is the standard one through orchestration
 * (DEFAULT_KERNEL_PIPELINE, docs/Orchestration.md; --pipeline overrides it): the module reaches
 * the kernel level (kernel.func + kernel.launch), no op.* op may be left and no primitive may
 * stay in @main outside a kernel, and @main is interpreted (each kernel.launch runs its
 * kernel.func) and compared as at the other levels, against the same known-failures list.
 *
 * With --level=scheduled (issue 6), the pipeline continues with `schedule,lower-task-mappings`
 * (DEFAULT_SCHEDULED_PIPELINE): every kernel.func must then be scheduled SIMT code with no
 * kernel.map left, and each launch runs on the interpreter's SIMT model of the GPU (korch/interp.h)
 * with its race checks on (--no-simt-checks turns them off; --simt-seed picks the thread order).
 *
 * With --level=artifact (issue 7), the scheduled pipeline continues with `plan-buffers`
 * (DEFAULT_ARTIFACT_PIPELINE, docs/MemoryPlan.md); the planned module is interpreted (every
 * buffer an offset into one arena, so an aliasing mistake in the plan changes the numbers) and
 * compared as above, then kr_artifact_write writes the compiled artifact (docs/PlanFormat.md)
 * into ARTIFACT_DIR/<test>/ for --gpu-arch, with ptxas validating the PTX and recording each
 * kernel's resources (--no-ptxas: neither), and the test's inputs and ONNX reference outputs
 * beside it as input_<i>.npy / output_<i>.npy (i: @main's argument / result index, the plan's
 * input / output order; bf16 as <u2 bit patterns, as ONNX's test data stores them).  Every
 * passing test is listed in ARTIFACT_DIR/check-list.txt (one `<test>` line each: korch-run reads
 * a listed folder relative to the list's directory, so the folder can be moved; rewritten at the
 * end of the run), the list `korch-run --dry-run --check-list` checks without a GPU and
 * bench/gpu/run.sh runs on one.  A test whose @main launches no kernel (identity, constant,
 * inference-mode dropout: the pipeline leaves arguments and constants) is planned too
 * (korch/plan.h: its outputs are ranges of its inputs or of the weights) and gives an artifact
 * with no kernels, which korch-run runs as copies; it passes or fails like any other test.
 * --no-interp skips the CPU check
 * (the compile-only sm_80 run).
 *
 * Each test runs in a forked child with a fresh kr_context, so a crash or a hang in one kernel
 * is one FAIL line, not the end of the run.  Output: `PASS name` / `FAIL name: reason` per test,
 * then `N passed, N failed`.  The known-failures list (`test_name  # reason` lines) makes the
 * exit status strict: 1 if a test fails that is not listed, or a listed test passes; 77 (skip)
 * when the list or the test data is absent. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "korch/artifact.h"
#include "korch/korch.h"
#include "korch/interp.h"
#include "korch/kernel.h"
#include "korch/onnx.h"
#include "korch/op.h"
#include "korch/pass.h"
#include "korch/plan.h"
#include "korch/prim.h"
#include "support/flag_value.h"
#include "support/npy.h"

#ifndef KORCH_CONFORMANCE_LIST
#define KORCH_CONFORMANCE_LIST "../shared/conformance/onnx-node-tests.txt"
#endif
#ifndef KORCH_CONFORMANCE_KNOWN_FAILURES
#define KORCH_CONFORMANCE_KNOWN_FAILURES "test/onnx/known-failures.txt"
#endif
#define DEFAULT_DATA "/usr/share/libonnx-testdata/data/node"
#define SKIP 77
/* The standard prim-level pipeline (docs/Passes.md). */
#define DEFAULT_PRIM_PIPELINE "op-to-prim,canonicalize"
/* The standard pipeline through orchestration (docs/Orchestration.md). */
#define DEFAULT_KERNEL_PIPELINE \
  "op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate"
/* ... then scheduling (docs/Scheduling.md). */
#define DEFAULT_SCHEDULED_PIPELINE DEFAULT_KERNEL_PIPELINE ",schedule,lower-task-mappings"
/* ... then the memory plan (docs/MemoryPlan.md). */
#define DEFAULT_ARTIFACT_PIPELINE DEFAULT_SCHEDULED_PIPELINE ",plan-buffers"

typedef struct options {
  const char *list, *data, *known, *only;
  bool prim;               /* --level=prim or kernel: run `pipeline` first */
  bool kernel;             /* --level=kernel or scheduled */
  bool scheduled;          /* --level=scheduled or artifact */
  bool artifact;           /* --level=artifact */
  const char *artifact_dir;/* --artifact-dir: where the artifacts go (required at that level) */
  const char *gpu_arch;    /* --gpu-arch (NULL: the module's target's) */
  const char *ptxas;       /* the ptxas the artifact writer runs; "" with --no-ptxas */
  bool no_interp;          /* --no-interp: artifact level without the CPU check */
  bool simt_checks;        /* race checks of the SIMT interpreter (--no-simt-checks: off) */
  uint64_t simt_seed;      /* --simt-seed */
  const char *pipeline;    /* run at prim / kernel level (NULL: the level's default) */
  bool verbose, no_fork;
  double rtol, atol;
  unsigned timeout_s;
} options;

/* ---------------------------------------------------------------------------------------------
 * Small helpers. */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (!got) break;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

/* Splits a list file into names: the first word of each line; `#` starts a comment. */
static char **read_names(const char *path, unsigned *count) {
  size_t len;
  char *text = read_file(path, &len);
  *count = 0;
  if (!text) return NULL;
  char **names = calloc(len / 2 + 2, sizeof *names);
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\r') e++;
    if (e > s) {
      *e = 0;
      names[(*count)++] = strdup(s);
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return names;
}

static void free_names(char **names, unsigned n) {
  for (unsigned i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* ---------------------------------------------------------------------------------------------
 * Protobuf wire format, just enough to list ModelProto.graph(7).input(11).name(1) minus
 * GraphProto.initializer(5).name(8) (onnx.proto). */

/* ---------------------------------------------------------------------------------------------
 * One test (in the child). */

typedef struct capture {
  kr_ostream os;
  bool verbose;
} capture;

static void capture_handler(const kr_diagnostic *d, void *user) {
  capture *c = user;
  kr_diag_print(&c->os, d);
  if (c->verbose) kr_diag_print_handler(d, stderr);
}

/* The first line of the captured diagnostics, without the `<unknown>:0: ` prefix and with the
 * test's folder dropped from paths (`model.onnx:0:0: error: ...`). */
static void first_line(capture *c, const char *dir, char *out, size_t cap) {
  const char *s = c->os.len ? kr_ostream_str(&c->os) : "";
  if (!strncmp(s, "<unknown>:0: ", 13)) s += 13;
  size_t n = strcspn(s, "\n"), dl = strlen(dir), k = 0;
  for (size_t i = 0; i < n && k + 1 < cap;) {
    if (i + dl < n && !strncmp(s + i, dir, dl) && s[i + dl] == '/') {
      i += dl + 1;
      continue;
    }
    out[k++] = s[i++];
  }
  out[k] = 0;
  if (!k) snprintf(out, cap, "failed without a diagnostic");
}

static bool same_type(kr_type a, kr_type b) {
  if (a == b) return true;
  if (!a || !b || a->kind != KR_TYPE_TENSOR || b->kind != KR_TYPE_TENSOR) return false;
  if (a->u.shaped.elem != b->u.shaped.elem || a->u.shaped.rank != b->u.shaped.rank) return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++)
    if (a->u.shaped.dims[i] != b->u.shaped.dims[i]) return false;
  return true;
}

/* Compares result y with reference r; fills `why` on a mismatch. */
static bool compare(const options *o, unsigned k, const kr_tensor *y, const kr_tensor *r, char *why, size_t cap) {
  if (!same_type(y->type, r->type)) {
    char *a = kr_type_to_cstr(y->type), *b = kr_type_to_cstr(r->type);
    snprintf(why, cap, "output #%u has type %s, expected %s", k, a, b);
    free(a);
    free(b);
    return false;
  }
  kr_type e = kr_tensor_elem(y);
  int64_t bad = -1, nbad = 0;
  double worst = 0;
  for (int64_t i = 0; i < y->numel; i++) {
    bool ok;
    if (kr_type_is_float(e)) {
      double a = kr_tensor_get_f64(y, i), b = kr_tensor_get_f64(r, i);
      if (isnan(a) || isnan(b))
        ok = isnan(a) && isnan(b);
      else if (isinf(a) || isinf(b))
        ok = a == b;
      else {
        double d = fabs(a - b);
        ok = d <= o->atol + o->rtol * fabs(b);
        if (d > worst) worst = d;
      }
    } else {
      ok = kr_tensor_get_u64(y, i) == kr_tensor_get_u64(r, i);
    }
    if (!ok) {
      if (bad < 0) bad = i;
      nbad++;
    }
  }
  if (bad < 0) return true;
  if (kr_type_is_float(e))
    snprintf(why, cap,
             "output #%u: %lld of %lld elements differ; first at %lld: got %.9g, expected %.9g (max abs err %.3g)", k,
             (long long)nbad, (long long)y->numel, (long long)bad, kr_tensor_get_f64(y, bad), kr_tensor_get_f64(r, bad),
             worst);
  else
    snprintf(why, cap, "output #%u: %lld of %lld elements differ; first at %lld: got %lld, expected %lld", k,
             (long long)nbad, (long long)y->numel, (long long)bad, (long long)kr_tensor_get_i64(y, bad),
             (long long)kr_tensor_get_i64(r, bad));
  return false;
}

/* ONNX's test data stores bfloat16 tensors as UINT16 bit patterns (NumPy has no bfloat16:
 * onnx/backend/test/case/node/cast.py writes them with dtype uint16).  A ui16 tensor standing
 * for a bf16 one of the same shape is retyped in place: the bits are the same. */
static void adopt_bf16(kr_tensor *t, kr_type want) {
  if (!want || want->kind != KR_TYPE_TENSOR || !t->type) return;
  kr_type we = want->u.shaped.elem, ge = kr_tensor_elem(t);
  if (we->kind != KR_TYPE_FLOAT || we->u.fkind != KR_BF16 || !kr_type_is_unsigned_int(ge) || ge->u.integer.width != 16)
    return;
  if (kr_type_num_elements(want) != t->numel || want->u.shaped.rank != kr_tensor_rank(t)) return;
  for (unsigned i = 0; i < want->u.shaped.rank; i++)
    if (want->u.shaped.dims[i] != kr_tensor_dims(t)[i]) return;
  t->type = want;
}

/* The first op of `module` whose name starts with `op.`, counting them all in *count. */
typedef struct op_left {
  kr_op *first;
  unsigned count;
} op_left;

static kr_walk_result find_op_level(kr_op *op, void *user) {
  op_left *l = user;
  if (!strncmp(op->name, "op.", 3)) {
    if (!l->first) l->first = op;
    l->count++;
  }
  return KR_WALK_ADVANCE;
}

/* A kernel.func that is not scheduled, or a kernel.map (not lowered). */
static kr_walk_result find_unscheduled(kr_op *op, void *user) {
  op_left *l = user;
  if ((!strcmp(op->name, KR_KERNEL_FUNC_OP) && !kr_kernel_is_scheduled(op)) || !strcmp(op->name, KR_KERNEL_MAP_OP)) {
    if (!l->first) l->first = op;
    l->count++;
  }
  return KR_WALK_ADVANCE;
}

/* --level=prim: runs o->pipeline on `module` and checks that no op-level op is left.  Returns
 * KR_FAILURE with diagnostics captured (pipeline errors) or with `why` set (ops left). */
static kr_status lower_to_prim(const options *o, kr_context *ctx, kr_op *module, char *why, size_t cap) {
  if (KR_FAILED(kr_register_core_passes(ctx))) return KR_FAILURE;
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  kr_status st = pm ? kr_pass_manager_parse_pipeline(pm, o->pipeline) : KR_FAILURE;
  if (!KR_FAILED(st)) {
    kr_pass_manager_set_verify_each(pm, true);
    st = kr_pass_manager_run(pm, module);
  }
  if (pm) kr_pass_manager_destroy(pm);
  if (KR_FAILED(st)) return st;
  op_left left = {NULL, 0};
  kr_op_walk(module, KR_WALK_PRE_ORDER, find_op_level, &left);
  if (left.first) {
    snprintf(why, cap, "%u op-level op%s left after '%s' (first: '%s')", left.count, left.count == 1 ? "" : "s",
             o->pipeline, left.first->name);
    return KR_FAILURE;
  }
  if (o->kernel) {
    /* Every primitive but constants now lives in a kernel.func. */
    kr_op *func = kr_symbol_lookup_in(module, kr_ident_cstr(ctx, "main"));
    kr_block *body = func && func->num_regions ? func->regions[0].first : NULL;
    for (kr_op *op = body ? body->first : NULL; op; op = op->next) {
      kr_prim_class c = kr_prim_op_class(op);
      if (c != KR_PRIM_NOT_PRIM && c != KR_PRIM_CONSTANT) {
        snprintf(why, cap, "'%s' left in @main outside a kernel after '%s'", op->name, o->pipeline);
        return KR_FAILURE;
      }
    }
  }
  if (o->scheduled) {
    left = (op_left){NULL, 0};
    kr_op_walk(module, KR_WALK_PRE_ORDER, find_unscheduled, &left);
    if (left.first) {
      snprintf(why, cap, "%u kernel%s not scheduled or with kernel.map left after '%s' (first: '%s')", left.count,
               left.count == 1 ? "" : "s", o->pipeline, left.first->name);
      return KR_FAILURE;
    }
  }
  return KR_SUCCESS;
}

static const char *arg_onnx_name(kr_op *func, unsigned i) {
  kr_attr arr = kr_op_get_attr(func, "arg_attrs");
  if (!arr || arr->kind != KR_ATTR_ARRAY || i >= arr->u.array.num) return NULL;
  kr_attr d = arr->u.array.elems[i];
  kr_attr n = d && d->kind == KR_ATTR_DICT ? kr_dict_get_cstr(d, "onnx.name") : NULL;
  return n && n->kind == KR_ATTR_STRING ? n->u.string.str : NULL;
}

/* Writes `t` as .npy; a bf16 tensor as its <u2 bit patterns (NumPy has no bfloat16; ONNX's
 * test data stores them the same way, see adopt_bf16). */
static kr_status write_npy(kr_context *ctx, const char *path, const kr_tensor *t) {
  kr_tensor view = *t;
  kr_type e = kr_tensor_elem(t);
  if (e && e->kind == KR_TYPE_FLOAT && e->u.fkind == KR_BF16)
    view.type = kr_type_tensor(ctx, kr_tensor_dims(t), kr_tensor_rank(t), kr_type_integer(ctx, 16, KR_UNSIGNED));
  view.owned = false;
  return kr_npy_write(ctx, path, &view);
}

/* A test's outcome. */
typedef enum result { RESULT_FAIL, RESULT_PASS } result;

/* Runs test `name`; returns its outcome, the reason in `why`. */
static result run_test(const options *o, const char *name, char *why, size_t cap) {
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/%s", o->data, name);
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  struct stat sb;
  if (stat(path, &sb) != 0) {
    snprintf(why, cap, "no test data: %.1000s is missing", path);
    return false;
  }
  unsigned ngraph = 0;
  char **ginputs = NULL;
  kr_context *ctx = kr_context_create();
  capture cap_ = {.verbose = o->verbose};
  kr_ostream_init_mem(&cap_.os);
  kr_context_set_diag_handler(ctx, capture_handler, &cap_);
  result pass = RESULT_FAIL;
  char **shape_names = NULL;
  unsigned nshape = 0;
  kr_tensor *bound = NULL, *args = NULL, *outs = NULL, *refs = NULL;
  kr_onnx_binding *bindings = NULL;
  unsigned nargs = 0, nouts = 0, nbound = 0, nrefs = 0;
  why[0] = 0;

  if (KR_FAILED(kr_register_core_dialects(ctx))) goto diag;
  if (KR_FAILED(kr_onnx_graph_inputs(ctx, path, &ginputs, &ngraph))) goto diag;
  if (KR_FAILED(kr_onnx_shape_inputs(ctx, path, &shape_names, &nshape))) goto diag;
  bound = calloc(nshape + 1, sizeof *bound);
  bindings = calloc(nshape + 1, sizeof *bindings);
  for (unsigned i = 0; i < nshape; i++) {
    unsigned k = 0;
    while (k < ngraph && strcmp(ginputs[k], shape_names[i])) k++;
    if (k == ngraph) {
      snprintf(why, cap, "shape input '%s' is not a graph input of model.onnx", shape_names[i]);
      goto done;
    }
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%u.pb", dir, k);
    if (KR_FAILED(kr_onnx_read_tensor_file(ctx, path, &bound[nbound]))) goto diag;
    bindings[nbound].name = shape_names[i];
    bindings[nbound].value = &bound[nbound];
    nbound++;
  }
  kr_onnx_import_options opts = {.bindings = bindings, .num_bindings = nbound};
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  kr_op *module = kr_onnx_import_file(ctx, path, &opts);
  if (!module) goto diag;
  if (o->prim && KR_FAILED(lower_to_prim(o, ctx, module, why, cap))) {
    if (why[0]) goto done;
    goto diag;
  }
  kr_op *func = kr_symbol_lookup_in(module, kr_ident_cstr(ctx, "main"));
  if (!func) {
    snprintf(why, cap, "the imported module has no @main");
    goto done;
  }
  kr_attr fta = kr_op_get_attr(func, "function_type");
  kr_type fty = fta && fta->kind == KR_ATTR_TYPE ? fta->type : NULL;
  if (!fty || fty->kind != KR_TYPE_FUNCTION) {
    snprintf(why, cap, "@main has no function type");
    goto done;
  }
  if (o->artifact && !kr_plan_is_planned(func)) {
    snprintf(why, cap, "@main carries no memory plan after '%s'", o->pipeline);
    goto done;
  }
  nargs = fty->u.func.num_inputs;
  nouts = fty->u.func.num_results;
  args = calloc(nargs + 1, sizeof *args);
  outs = calloc(nouts + 1, sizeof *outs);
  refs = calloc(nouts + 1, sizeof *refs);
  /* Unbound graph inputs in graph order, matched by name when the importer kept it. */
  unsigned next_free = 0;
  for (unsigned i = 0; i < nargs; i++) {
    const char *n = arg_onnx_name(func, i);
    unsigned k = 0;
    if (n) {
      while (k < ngraph && strcmp(ginputs[k], n)) k++;
    } else {
      for (k = next_free; k < ngraph; k++) {
        bool is_bound = false;
        for (unsigned j = 0; j < nshape && !is_bound; j++) is_bound = !strcmp(shape_names[j], ginputs[k]);
        if (!is_bound) break;
      }
    }
    if (k >= ngraph) {
      snprintf(why, cap, "argument #%u of @main (%s) matches no graph input", i, n ? n : "unnamed");
      goto done;
    }
    next_free = k + 1;
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%u.pb", dir, k);
    if (KR_FAILED(kr_onnx_read_tensor_file(ctx, path, &args[i]))) goto diag;
    adopt_bf16(&args[i], fty->u.func.inputs[i]);
  }
  kr_interp_options io = kr_interp_default_options();
  io.simt_checks = o->simt_checks;
  io.simt_seed = o->simt_seed;
  bool interpret = !(o->artifact && o->no_interp);
  if (interpret && KR_FAILED(kr_interp_run_with(func, args, nargs, outs, nouts, &io))) goto diag;
  /* Without the interpreter, its argument check: an input_<i>.npy that contradicts the plan's
   * input would only fail on the GPU (the test data of test_castlike_*BFLOAT16* does). */
  for (unsigned i = 0; !interpret && i < nargs; i++)
    if (!same_type(args[i].type, fty->u.func.inputs[i])) {
      char *a = kr_type_to_cstr(args[i].type), *b = kr_type_to_cstr(fty->u.func.inputs[i]);
      snprintf(why, cap, "argument #%u of @main: the test data has type %s, @main takes %s", i, a, b);
      free(a);
      free(b);
      goto done;
    }
  for (unsigned k = 0;; k++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", dir, k);
    if (stat(path, &sb) != 0) {
      if (k != nouts) {
        snprintf(why, cap, "@main has %u results but the test has %u outputs", nouts, k);
        goto done;
      }
      break;
    }
    if (k >= nouts) {
      snprintf(why, cap, "@main has %u results but the test has more outputs", nouts);
      goto done;
    }
    kr_tensor *ref = &refs[k];
    if (KR_FAILED(kr_onnx_read_tensor_file(ctx, path, ref))) goto diag;
    nrefs = k + 1;
    adopt_bf16(ref, fty->u.func.results[k]);
    if (interpret && !compare(o, k, &outs[k], ref, why, cap)) goto done;
  }
  if (o->artifact) {
    char tdir[4200], npath[4300];
    snprintf(tdir, sizeof tdir, "%s/%s", o->artifact_dir, name);
    kr_artifact_options ao = kr_artifact_default_options();
    ao.nvptx.gpu_arch = o->gpu_arch;
    ao.ptxas = o->ptxas;
    if (KR_FAILED(kr_artifact_write(module, tdir, &ao))) goto diag;
    for (unsigned i = 0; i < nargs; i++) {
      snprintf(npath, sizeof npath, "%s/input_%u.npy", tdir, i);
      if (KR_FAILED(write_npy(ctx, npath, &args[i]))) goto diag;
    }
    for (unsigned k = 0; k < nrefs; k++) {
      snprintf(npath, sizeof npath, "%s/output_%u.npy", tdir, k);
      if (KR_FAILED(write_npy(ctx, npath, &refs[k]))) goto diag;
    }
  }
  pass = RESULT_PASS;
  goto done;
diag:
  first_line(&cap_, dir, why, cap);
done:
  for (unsigned i = 0; i < nbound; i++) kr_tensor_free(&bound[i]);
  for (unsigned i = 0; args && i < nargs; i++) kr_tensor_free(&args[i]);
  for (unsigned i = 0; outs && i < nouts; i++) kr_tensor_free(&outs[i]);
  for (unsigned i = 0; i < nrefs; i++) kr_tensor_free(&refs[i]);
  free(refs);
  free(bound);
  free(bindings);
  free(args);
  free(outs);
  free_names(shape_names, nshape);
  free_names(ginputs, ngraph);
  kr_context_destroy(ctx);
  kr_ostream_close(&cap_.os);
  return pass;
}

/* Runs the test in a child process; a crash or a time-out is a failure with that reason. */
static result run_isolated(const options *o, const char *name, char *why, size_t cap) {
  if (o->no_fork) return run_test(o, name, why, cap);
  int fds[2];
  if (pipe(fds) != 0) return run_test(o, name, why, cap);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return run_test(o, name, why, cap);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(o->timeout_s);
    result pass = run_test(o, name, why, cap);
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "%c%s", pass == RESULT_PASS ? 'P' : 'F', why);
    if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
    ssize_t w = write(fds[1], msg, (size_t)n);
    (void)w;
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  char msg[2048];
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fds[0], msg + n, sizeof msg - 1 - n);
    if (r > 0)
      n += (size_t)r;
    else if (r < 0 && errno == EINTR)
      continue;
    else
      break;
    if (n == sizeof msg - 1) break;
  }
  close(fds[0]);
  msg[n] = 0;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGALRM)
      snprintf(why, cap, "timed out after %u s", o->timeout_s);
    else
      snprintf(why, cap, "crashed with signal %d (%s)", sig, strsignal(sig));
    return RESULT_FAIL;
  }
  if (!n) {
    snprintf(why, cap, "the test process exited with status %d without a result", WEXITSTATUS(status));
    return RESULT_FAIL;
  }
  snprintf(why, cap, "%s", msg + 1);
  return msg[0] == 'P' ? RESULT_PASS : RESULT_FAIL;
}

/* Writes ARTIFACT_DIR/check-list.txt: one `<test>` line per passing test (a folder relative to
 * the list's directory, as korch-run --check-list reads it: docs/Runtime.md), in list order
 * (atomically: temporary + rename, so a reader never sees half a list). */
static bool write_check_list(const options *o, char **tests, unsigned ntests, const char *passed) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/check-list.txt", o->artifact_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  bool ok = f != NULL;
  unsigned n = 0;
  for (unsigned t = 0; ok && t < ntests; t++)
    if (passed[t]) {
      ok = fprintf(f, "%s\n", tests[t]) > 0;
      n++;
    }
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "onnx-conformance: cannot write %s: %s\n", path, strerror(errno));
    remove(tmp);
    return false;
  }
  printf("%u artifact%s listed in %s\n", n, n == 1 ? "" : "s", path);
  return true;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: onnx-conformance [options]\n"
          "  --list FILE             test names, one per line (default %s)\n"
          "  --data DIR              the ONNX node test folders (default %s)\n"
          "  --known-failures FILE   expected failures, `test_name  # reason` lines (default %s)\n"
          "  --only SUBSTRING        run only the tests whose name contains SUBSTRING (also --filter)\n"
          "  --level L               op: interpret the imported module (default); prim: first run the\n"
          "                          pipeline below and require that no op.* op is left; kernel: the\n"
          "                          same through orchestration (default pipeline %s),\n"
          "                          and no primitive may stay in @main outside a kernel; scheduled:\n"
          "                          the kernel pipeline then schedule,lower-task-mappings, every\n"
          "                          kernel scheduled, run on the SIMT interpreter; artifact: the\n"
          "                          scheduled pipeline then plan-buffers, the planned module\n"
          "                          interpreted, and the compiled artifact written (below)\n"
          "  --pipeline STR          the pipeline of the level (default at prim level %s)\n"
          "  --no-simt-checks        scheduled level: no shuffled thread order, no race detection\n"
          "  --simt-seed N           scheduled level: seed of the shuffled thread order (default 1)\n"
          "  --artifact-dir DIR      artifact level: write DIR/<test>/ (model.ptx, model.plan.xml,\n"
          "                          model.weights, input_<i>.npy, output_<i>.npy) and\n"
          "                          DIR/check-list.txt (the passing tests' folders)\n"
          "  --gpu-arch ARCH         artifact level: sm_80, sm_86, sm_89 or sm_90 (default: the\n"
          "                          module's target's)\n"
          "  --no-ptxas              artifact level: do not run ptxas (no validation, no resource\n"
          "                          figures in the plan); without it a missing ptxas skips (77)\n"
          "  --no-interp             artifact level: no CPU check of the planned module\n"
          "  --rtol R --atol A       float tolerances (default 1e-3 and 1e-7, ONNX's backend tests)\n"
          "  --timeout S             seconds per test before it counts as hung (default 120)\n"
          "  --no-fork               run tests in this process (for a debugger)\n"
          "  -v                      print every test's full diagnostics to stderr\n"
          "Every option taking a value is also accepted as --option=VALUE.\n"
          "Exit status: 0 when the failures are exactly the known ones (of the tests run), 1 otherwise,\n"
          "77 when the list or the test data is absent.\n",
          KORCH_CONFORMANCE_LIST, DEFAULT_DATA, KORCH_CONFORMANCE_KNOWN_FAILURES, DEFAULT_KERNEL_PIPELINE,
          DEFAULT_PRIM_PIPELINE);
}

/* Matches argv[*i] against `flag` as `flag VALUE` (consuming the next argument) or `flag=VALUE`;
 * sets *v.  A missing value exits with status 2. */
static bool value_arg(int argc, char **argv, int *i, const char *flag, const char **v) {
  if (!kr_tool_flag_value(argc, argv, i, flag, v)) return false;
  if (!*v) {
    fprintf(stderr, "onnx-conformance: %s needs a value\n", flag);
    exit(2);
  }
  return true;
}

int main(int argc, char **argv) {
  options o = {.simt_checks = true,
               .simt_seed = 1,
               .list = KORCH_CONFORMANCE_LIST,
               .data = DEFAULT_DATA,
               .known = KORCH_CONFORMANCE_KNOWN_FAILURES,
               .pipeline = NULL,
               .rtol = 1e-3,
               .atol = 1e-7,
               .timeout_s = 120};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = NULL;
    /* VALUE(flag): `flag VALUE` or `flag=VALUE`; sets v. */
#define VALUE(flag) value_arg(argc, argv, &i, flag, &v)
    if (VALUE("--list"))
      o.list = v;
    else if (VALUE("--data"))
      o.data = v;
    else if (VALUE("--known-failures"))
      o.known = v;
    else if (VALUE("--only") || VALUE("--filter"))
      o.only = v;
    else if (VALUE("--level")) {
      o.prim = strcmp(v, "op") != 0;
      o.artifact = !strcmp(v, "artifact");
      o.scheduled = !strcmp(v, "scheduled") || o.artifact;
      o.kernel = !strcmp(v, "kernel") || o.scheduled;
      if (strcmp(v, "op") && strcmp(v, "prim") && !o.kernel) {
        fprintf(stderr,
                "onnx-conformance: --level must be 'op', 'prim', 'kernel', 'scheduled' or 'artifact', not '%s'\n", v);
        return 2;
      }
    } else if (VALUE("--pipeline"))
      o.pipeline = v;
    else if (VALUE("--artifact-dir"))
      o.artifact_dir = v;
    else if (VALUE("--gpu-arch"))
      o.gpu_arch = v;
    else if (!strcmp(a, "--no-ptxas"))
      o.ptxas = "";
    else if (!strcmp(a, "--no-interp"))
      o.no_interp = true;
    else if (VALUE("--rtol"))
      o.rtol = strtod(v, NULL);
    else if (VALUE("--atol"))
      o.atol = strtod(v, NULL);
    else if (VALUE("--timeout"))
      o.timeout_s = (unsigned)strtoul(v, NULL, 10);
    else if (VALUE("--simt-seed"))
      o.simt_seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--no-simt-checks"))
      o.simt_checks = false;
    else if (!strcmp(a, "--no-fork"))
      o.no_fork = true;
    else if (!strcmp(a, "-v"))
      o.verbose = true;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "onnx-conformance: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
#undef VALUE
  }
  if (o.artifact && !o.artifact_dir) {
    fprintf(stderr, "onnx-conformance: --level=artifact needs --artifact-dir DIR\n");
    return 2;
  }
  if (!o.artifact && (o.artifact_dir || o.gpu_arch || o.ptxas || o.no_interp)) {
    fprintf(stderr, "onnx-conformance: --artifact-dir, --gpu-arch, --no-ptxas and --no-interp need --level=artifact\n");
    return 2;
  }
  struct stat sb;
  unsigned ntests = 0;
  char **tests = read_names(o.list, &ntests);
  if (!tests) {
    printf("SKIP: the test list %s is absent\n", o.list);
    return SKIP;
  }
  if (stat(o.data, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    printf("SKIP: the ONNX node test data %s is absent (Debian package libonnx-testdata)\n", o.data);
    free_names(tests, ntests);
    return SKIP;
  }
  if (o.artifact) {
    if (!o.ptxas) {
      /* Validation is the point of this level: without ptxas, skip unless told not to run it. */
      const char *found = kr_nvptx_find_ptxas();
      if (!found) {
        printf("SKIP: no ptxas ($KORCH_PTXAS, /usr/local/cuda/bin/ptxas, PATH); --no-ptxas compiles without it\n");
        free_names(tests, ntests);
        return SKIP;
      }
      o.ptxas = found; /* a static buffer (korch/nvptx.h) */
    }
    if (mkdir(o.artifact_dir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "onnx-conformance: cannot create %s: %s\n", o.artifact_dir, strerror(errno));
      free_names(tests, ntests);
      return 1;
    }
  }
  unsigned nknown = 0;
  char **known = read_names(o.known, &nknown);
  if (!known) fprintf(stderr, "onnx-conformance: note: no known-failures list at %s\n", o.known);

  if (!o.pipeline)
    o.pipeline = o.artifact    ? DEFAULT_ARTIFACT_PIPELINE
                 : o.scheduled ? DEFAULT_SCHEDULED_PIPELINE
                 : o.kernel    ? DEFAULT_KERNEL_PIPELINE
                               : DEFAULT_PRIM_PIPELINE;
  if (o.artifact)
    printf("level artifact: pipeline '%s', the planned module %s, artifacts for %s in %s/, ptxas %s\n",
           o.pipeline,
           o.no_interp     ? "not interpreted (--no-interp)"
           : o.simt_checks ? "interpreted (SIMT race checks on)"
                           : "interpreted (SIMT race checks off)",
           o.gpu_arch ? o.gpu_arch : "the target's architecture", o.artifact_dir, o.ptxas[0] ? o.ptxas : "not run");
  else if (o.scheduled)
    printf("level scheduled: pipeline '%s', then every kernel scheduled; SIMT race checks %s (seed %llu)\n",
           o.pipeline, o.simt_checks ? "on" : "off", (unsigned long long)o.simt_seed);
  else if (o.kernel)
    printf("level kernel: pipeline '%s', then no op.* op and no primitive outside a kernel may be left\n",
           o.pipeline);
  else if (o.prim)
    printf("level prim: pipeline '%s', then no op.* op may be left\n", o.pipeline);
  unsigned passed = 0, failed = 0;
  char *unexpected_fail = calloc(ntests + 1, 1), *unexpected_pass = calloc(ntests + 1, 1);
  char *passed_test = calloc(ntests + 1, 1);
  for (unsigned t = 0; t < ntests; t++) {
    if (o.only && !strstr(tests[t], o.only)) continue;
    char why[2048];
    result pass = run_isolated(&o, tests[t], why, sizeof why);
    bool listed = false;
    for (unsigned k = 0; k < nknown && !listed; k++) listed = !strcmp(known[k], tests[t]);
    if (pass == RESULT_PASS) {
      passed++;
      passed_test[t] = 1;
      printf("PASS %s\n", tests[t]);
      if (listed) unexpected_pass[t] = 1;
    } else {
      failed++;
      printf("FAIL %s: %s\n", tests[t], why);
      if (!listed) unexpected_fail[t] = 1;
    }
    fflush(stdout);
  }
  printf("%u passed, %u failed\n", passed, failed);
  int rc = 0;
  if (o.artifact && !write_check_list(&o, tests, ntests, passed_test)) rc = 1;
  free(passed_test);
  for (unsigned t = 0; t < ntests; t++) {
    if (unexpected_fail[t]) {
      printf("UNEXPECTED FAIL %s (not in %s)\n", tests[t], o.known);
      rc = 1;
    }
    if (unexpected_pass[t]) {
      printf("UNEXPECTED PASS %s (listed in %s: remove it)\n", tests[t], o.known);
      rc = 1;
    }
  }
  free(unexpected_fail);
  free(unexpected_pass);
  free_names(tests, ntests);
  free_names(known, nknown);
  return rc;
}
