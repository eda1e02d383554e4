/* tools/korch-translate/korch-translate.c - translations into and out of .kir (mlir-translate's
 * counterpart).
 *
 *   korch-translate --import-onnx model.onnx -o model.kir [--input-shape NAME=DIMS]...
 *                   [--bind-input NAME=FILE]... [--resource-threshold BYTES] [--print-op-generic]
 *                   [--print-debuginfo]
 *   korch-translate --list-shape-inputs model.onnx
 *   korch-translate --emit-llvm|--emit-ptx scheduled.kir [-o out.ll|out.ptx] [--gpu-arch=sm_XX]
 *   korch-translate --emit-artifact planned.kir -o DIR [--gpu-arch=sm_XX] [--ptxas PATH | --no-ptxas]
 *   korch-translate --emit-candidates prim.kir -o DIR [--max-size N] [--max-candidates N] [--gpu-arch=sm_XX]
 *
 * One mode flag selects the translation; each mode is a function of the parsed options (add a
 * row to `modes` for a new one).  The output is written atomically (an artifact directory: each
 * of its files, after all of them were produced, docs/PlanFormat.md): on any error nothing is
 * written and an existing file is left as it was.  Exit status 0 on success, 1 on an error,
 * 2 on a bad command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/artifact.h"
#include "korch/kernel.h" /* KR_KERNEL_FUNC_OP */
#include "korch/korch.h"
#include "korch/nvptx.h"
#include "korch/onnx.h"
#include "korch/op.h"
#include "support/file_io.h"
#include "support/flag_value.h"
#include "support/input_shape.h"
#include "support/npy.h"

static const char *const TOOL = "korch-translate";

typedef struct options {
  const char *mode;             /* "import-onnx", ... */
  const char *input;            /* positional input file */
  const char *output;           /* -o; NULL: stdout */
  kr_vec shapes;                /* kr_onnx_input_shape (dims malloc'd) */
  kr_vec bind_specs;            /* char *: "NAME=FILE" as given */
  size_t resource_threshold;    /* 0: the importer's default */
  bool print_op_generic;
  bool print_debuginfo;
  const char *gpu_arch;         /* --gpu-arch; NULL: the module's korch.target */
  const char *ptxas;            /* --ptxas PATH; "" with --no-ptxas; NULL: look it up */
  bool no_ptxas;
  int64_t max_size;             /* --emit-candidates --max-size; 0: orchestrate's default (16) */
  int64_t max_candidates;       /* --emit-candidates --max-candidates; 0: all */
} options;

typedef int (*mode_fn)(const options *o);

static int import_onnx(const options *o);
static int list_shape_inputs(const options *o);
static int emit_llvm(const options *o);
static int emit_ptx(const options *o);
static int emit_artifact(const options *o);
static int emit_candidates(const options *o);

static const struct mode {
  const char *flag;   /* without the leading dashes */
  mode_fn run;
  const char *help;
} modes[] = {
    {"import-onnx", import_onnx, "import an ONNX model (.onnx) as op-level .kir with static shapes"},
    {"list-shape-inputs", list_shape_inputs,
     "print the graph inputs of an ONNX model whose values decide shapes (bind them with --bind-input), one per line"},
    {"emit-llvm", emit_llvm, "print the LLVM IR (NVPTX, libdevice linked, optimised) of a scheduled module (.kir)"},
    {"emit-ptx", emit_ptx, "write the PTX of a scheduled module (.kir) through LLVM's NVPTX backend"},
    {"emit-artifact", emit_artifact,
     "write the compiled artifact of a planned module (.kir) into the directory -o DIR: model.ptx,\n"
     "                           model.plan.xml, model.weights (docs/PlanFormat.md)"},
    {"emit-candidates", emit_candidates,
     "write one artifact per candidate kernel of a prim-level module (.kir) into -o DIR/<hash>/, for\n"
     "                           korch-run --profile (docs/Targets.md)"},
};
#define NUM_MODES (sizeof modes / sizeof modes[0])

static void usage(FILE *f) {
  fprintf(f,
          "OVERVIEW: korch translation driver\n\n"
          "USAGE: %s <mode> [options] <input file> [-o <output file>]\n\n"
          "Translation modes (exactly one):\n",
          TOOL);
  for (size_t i = 0; i < NUM_MODES; i++) fprintf(f, "  --%-22s %s\n", modes[i].flag, modes[i].help);
  fprintf(f,
          "\nOptions:\n"
          "  -o <file>                 output file ('-' or absent: standard output); written atomically, and\n"
          "                            not at all when the translation fails\n"
          "  --print-op-generic        print every op in the generic form\n"
          "  --print-debuginfo         print locations (loc(\"<ONNX node name>\") for imported ops)\n"
          "  -h, --help                show this help\n"
          "\n--import-onnx options:\n"
          "  --input-shape NAME=DIMS   fix the shape of graph input NAME, e.g. x=1x3x224x224 ('scalar' for\n"
          "                            rank 0); needed for inputs with symbolic (dim_param) or unknown dims;\n"
          "                            the rank and the static dims must match the model's (repeatable)\n"
          "  --bind-input NAME=FILE    freeze graph input NAME to the tensor in FILE (.npy, or .pb: an ONNX\n"
          "                            TensorProto); it becomes a constant, e.g. an input that decides a shape\n"
          "                            (repeatable)\n"
          "  --resource-threshold N    initializers and constants larger than N bytes become dense_resource\n"
          "                            blobs (default 1024)\n"
          "\n--emit-llvm / --emit-ptx options (input: a module at the scheduled kernel level, made by\n"
          "korch-opt --schedule; kernel.map is lowered first):\n"
          "  --gpu-arch=ARCH           sm_80, sm_86, sm_89 or sm_90 (default: the arch of the module's\n"
          "                            korch.target; h200 by default, i.e. sm_90)\n"
          "\n--emit-artifact options (input: a module at the planned level, made by korch-opt\n"
          "--schedule and --plan-buffers; -o DIR is required, DIR is created when missing and its parent\n"
          "must exist; on an error no file in DIR changes):\n"
          "  --gpu-arch=ARCH           as above\n"
          "  --ptxas PATH              the ptxas that validates the PTX and gives each kernel's register,\n"
          "                            shared, local and spill figures (default: $KORCH_PTXAS, then\n"
          "                            /usr/local/cuda/bin/ptxas, then PATH; a warning when none is found)\n"
          "  --no-ptxas                do not run ptxas: the plan has no resource figures\n"
          "\n--emit-candidates options (input: a prim-level module, as --orchestrate takes; every candidate\n"
          "kernel --orchestrate enumerates, once per hash, is scheduled, planned and written as an artifact\n"
          "DIR/<hash>/ with a <profile> element; DIR/candidates.txt lists '<hash> <name> <prims>'):\n"
          "  --max-size N              primitives per candidate (default 16, as orchestrate's max-size)\n"
          "  --max-candidates N        stop after N candidates (default: all)\n"
          "  --gpu-arch, --ptxas, --no-ptxas  as for --emit-artifact\n"
          "\nThe model's default-domain opset may be 1..17 (older opsets are upgraded to the opset-17 form of\n"
          "the op dialect); external data files are read relative to the model's folder.  Diagnostics go\n"
          "to standard error; the exit status is 0 on success, 1 on an error, 2 on a bad command line.\n");
}

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", TOOL);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry: '%s --help'\n", TOOL);
  return 2;
}

/* Option values: `--flag value` or `--flag=value`; "" when the value is missing (each use then
 * reports its expected form). */
static const char *flag_value(int argc, char **argv, int *i, const char *flag) {
  const char *v;
  return kr_tool_flag_value(argc, argv, i, flag, &v) ? (v ? v : "") : NULL;
}

static void free_options(options *o) {
  kr_onnx_input_shape *s = KR_VEC_DATA(&o->shapes, kr_onnx_input_shape);
  for (size_t i = 0; i < o->shapes.len; i++) free((void *)s[i].dims), free((void *)s[i].name);
  kr_vec_free(&o->shapes);
  kr_vec_free(&o->bind_specs);
}

static int parse_args(int argc, char **argv, options *o, bool *help) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
      *help = true;
      return 0;
    }
    bool is_mode = false;
    for (size_t m = 0; m < NUM_MODES; m++) {
      if (a[0] == '-' && a[1] == '-' && !strcmp(a + 2, modes[m].flag)) {
        if (o->mode && strcmp(o->mode, modes[m].flag))
          return bad_usage("only one translation mode may be given ('%s')", a);
        o->mode = modes[m].flag;
        is_mode = true;
      }
    }
    if (is_mode) continue;
    if (!strcmp(a, "-o")) {
      if (i + 1 >= argc) return bad_usage("'%s' needs a file name", a);
      o->output = argv[++i];
    } else if (!strncmp(a, "-o", 2) && a[2] && a[2] != '-') {
      o->output = a + 2 + (a[2] == '='); /* -oFILE, and -o=FILE as korch-opt reads it */
      if (!*o->output) return bad_usage("'%s' needs a file name", a);
    } else if ((v = flag_value(argc, argv, &i, "--input-shape"))) {
      kr_onnx_input_shape s;
      char msg[512];
      if (!kr_tool_parse_input_shape(v, KR_VEC_DATA(&o->shapes, kr_onnx_input_shape), o->shapes.len, &s, msg, sizeof msg))
        return bad_usage("%s", msg);
      KR_VEC_PUSH(&o->shapes, kr_onnx_input_shape, s);
    } else if ((v = flag_value(argc, argv, &i, "--bind-input"))) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || !eq[1]) return bad_usage("--bind-input expects NAME=FILE, got '%s'", v);
      KR_VEC_PUSH(&o->bind_specs, const char *, v);
    } else if ((v = flag_value(argc, argv, &i, "--resource-threshold"))) {
      char *end;
      errno = 0;
      long long n = strtoll(v, &end, 10);
      if (!*v || *end || errno || n < 0) return bad_usage("--resource-threshold expects a byte count, got '%s'", v);
      o->resource_threshold = n ? (size_t)n : 1;   /* 0 would mean "default": everything non-empty is a resource */
    } else if ((v = flag_value(argc, argv, &i, "--gpu-arch"))) {
      if (strcmp(v, "sm_80") && strcmp(v, "sm_86") && strcmp(v, "sm_89") && strcmp(v, "sm_90"))
        return bad_usage("--gpu-arch expects sm_80, sm_86, sm_89 or sm_90, got '%s'", v);
      o->gpu_arch = v;
    } else if ((v = flag_value(argc, argv, &i, "--ptxas"))) {
      if (!*v) return bad_usage("--ptxas expects the path of a ptxas program%s", "");
      o->ptxas = v;
    } else if ((v = flag_value(argc, argv, &i, "--max-size")) || (v = flag_value(argc, argv, &i, "--max-candidates"))) {
      bool size = !strcmp(a, "--max-size") || !strncmp(a, "--max-size=", 11);
      char *end;
      errno = 0;
      long long n = strtoll(v, &end, 10);
      if (!*v || *end || errno || n < 1 || (size && n > 256))
        return bad_usage(size ? "--max-size expects a number in [1, 256], got '%s'"
                              : "--max-candidates expects a positive number, got '%s'", v);
      if (size)
        o->max_size = n;
      else
        o->max_candidates = n;
    } else if (!strcmp(a, "--no-ptxas")) {
      o->no_ptxas = true;
    } else if (!strcmp(a, "--print-op-generic") || !strcmp(a, "-print-op-generic")) {
      o->print_op_generic = true;
    } else if (!strcmp(a, "--print-debuginfo") || !strcmp(a, "-print-debuginfo")) {
      o->print_debuginfo = true;
    } else if (a[0] == '-' && a[1]) {
      return bad_usage("unknown command line argument '%s'", a);
    } else {
      if (o->input) return bad_usage("more than one input file ('%s')", a);
      o->input = a;
    }
  }
  return 0;
}

/* Reads --bind-input FILE: .npy, or an ONNX TensorProto .pb. */
static kr_status read_binding(kr_context *ctx, const char *file, kr_tensor *t) {
  size_t n = strlen(file);
  if (n > 3 && !strcmp(file + n - 3, ".pb")) return kr_onnx_read_tensor_file(ctx, file, t);
  return kr_npy_read(ctx, file, t);
}

static bool write_module(const options *o, kr_op *module) {
  kr_tool_output out;
  if (!kr_tool_output_open(&out, TOOL, o->output)) return false;
  kr_ostream os;
  kr_ostream_init_file(&os, out.file);
  kr_print_flags flags = {.generic = o->print_op_generic, .debuginfo = o->print_debuginfo, .hex_threshold = 0};
  kr_op_print(module, &os, &flags);
  bool ok = kr_ostream_close(&os);
  if (!ok) {
    fprintf(stderr, "%s: cannot write '%s'\n", TOOL, o->output ? o->output : "-");
    kr_tool_output_abort(&out);
    return false;
  }
  return kr_tool_output_commit(&out, TOOL);
}

static int import_onnx(const options *o) {
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, stderr);
  int rc = 1;
  unsigned nb = (unsigned)o->bind_specs.len;
  kr_onnx_binding *binds = calloc(nb + 1, sizeof *binds);
  kr_tensor *values = calloc(nb + 1, sizeof *values);
  char **names = calloc(nb + 1, sizeof *names);
  bool ok = !kr_register_core_dialects(ctx);
  for (unsigned i = 0; ok && i < nb; i++) {
    const char *spec = KR_VEC_AT(&o->bind_specs, const char *, i);
    const char *eq = strchr(spec, '=');
    names[i] = strndup(spec, (size_t)(eq - spec));
    if (read_binding(ctx, eq + 1, &values[i])) ok = false;
    binds[i] = (kr_onnx_binding){names[i], &values[i]};
  }
  if (ok) {
    kr_onnx_import_options io = {
        .shapes = KR_VEC_DATA(&o->shapes, kr_onnx_input_shape),
        .num_shapes = (unsigned)o->shapes.len,
        .bindings = binds,
        .num_bindings = nb,
        .resource_threshold = o->resource_threshold,
    };
    kr_op *module = kr_onnx_import_file(ctx, o->input, &io);
    if (module && write_module(o, module)) rc = 0;
  }
  for (unsigned i = 0; i < nb; i++) {
    kr_tensor_free(&values[i]);
    free(names[i]);
  }
  free(binds);
  free(values);
  free(names);
  kr_context_destroy(ctx);
  return rc;
}

static int list_shape_inputs(const options *o) {
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, stderr);
  int rc = 1;
  char **names = NULL;
  unsigned n = 0;
  if (!kr_register_core_dialects(ctx) && !kr_onnx_shape_inputs(ctx, o->input, &names, &n)) {
    kr_tool_output out;
    if (kr_tool_output_open(&out, TOOL, o->output)) {
      for (unsigned i = 0; i < n; i++) fprintf(out.file, "%s\n", names[i]);
      if (kr_tool_output_commit(&out, TOOL)) rc = 0;
    }
  }
  for (unsigned i = 0; i < n; i++) free(names[i]);
  free(names);
  kr_context_destroy(ctx);
  return rc;
}

/* The input .kir of the --emit-* modes, parsed and verified in a fresh context whose diagnostics
 * go to standard error; NULL after an error (reported).  Release *ctx and *buf with close_input
 * (also after NULL). */
static kr_op *open_input(const options *o, kr_context **ctx, char **buf) {
  size_t len;
  *ctx = NULL;
  *buf = kr_tool_read_file(TOOL, o->input, &len);
  if (!*buf) return NULL;
  *ctx = kr_context_create();
  kr_context_set_diag_handler(*ctx, kr_diag_print_handler, stderr);
  if (KR_FAILED(kr_register_core_dialects(*ctx))) return NULL;
  const char *filename = strcmp(o->input, "-") == 0 ? "<stdin>" : o->input;
  return kr_parse_source(*ctx, filename, *buf, len, true);
}

static void close_input(kr_context *ctx, char *buf) {
  if (ctx) kr_context_destroy(ctx);
  free(buf);
}

/* Whether `module` holds a kernel.func to generate code for.  An op- or prim-level module has
 * none and would give a PTX module without entries, exit 0 (an unscheduled kernel.func is
 * reported by the lowering).  A launch-less host function at the kernel level is fine for
 * --emit-artifact, which does not come here. */
static bool has_scheduled_kernels(kr_op *module) {
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  unsigned n = 0;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next) n += !strcmp(op->name, KR_KERNEL_FUNC_OP);
  if (!n)
    kr_op_emit_error(module, "no scheduled kernels: run the pipeline to the scheduled level (op-to-prim ... "
                             "orchestrate, schedule, lower-task-mappings), see docs/Codegen.md");
  return n > 0;
}

/* --emit-llvm / --emit-ptx: generate into memory, then write it atomically (nothing is written
 * when code generation fails). */
static int emit_nvptx(const options *o, bool ptx) {
  kr_context *ctx;
  char *buf;
  kr_op *module = open_input(o, &ctx, &buf);
  int rc = 1;
  if (module && has_scheduled_kernels(module)) {
    kr_nvptx_options no = kr_nvptx_default_options();
    no.gpu_arch = o->gpu_arch;
    kr_ostream mem;
    kr_ostream_init_mem(&mem);
    if (!KR_FAILED(ptx ? kr_nvptx_emit_ptx(module, &no, &mem) : kr_nvptx_emit_llvm(module, &no, &mem))) {
      kr_tool_output out;
      if (kr_tool_output_open(&out, TOOL, o->output)) {
        if (fwrite(kr_ostream_str(&mem), 1, mem.len, out.file) != mem.len) {
          fprintf(stderr, "%s: cannot write '%s'\n", TOOL, o->output ? o->output : "-");
          kr_tool_output_abort(&out);
        } else if (kr_tool_output_commit(&out, TOOL)) {
          rc = 0;
        }
      }
    }
    kr_ostream_close(&mem);
  }
  close_input(ctx, buf);
  return rc;
}

/* The artifact options of --emit-artifact and --emit-candidates. */
static kr_artifact_options artifact_options(const options *o) {
  kr_artifact_options ao = kr_artifact_default_options();
  ao.nvptx.gpu_arch = o->gpu_arch;
  ao.ptxas = o->no_ptxas ? "" : o->ptxas;
  return ao;
}

/* --emit-artifact: the planned .kir through kr_artifact_write, which produces every file in
 * memory before writing any. */
static int emit_artifact(const options *o) {
  kr_context *ctx;
  char *buf;
  kr_op *module = open_input(o, &ctx, &buf);
  kr_artifact_options ao = artifact_options(o);
  int rc = module && !KR_FAILED(kr_artifact_write(module, o->output, &ao)) ? 0 : 1;
  close_input(ctx, buf);
  return rc;
}

/* --emit-candidates: the prim-level .kir through kr_artifact_emit_candidates (one artifact per
 * candidate kernel, for korch-run --profile). */
static int emit_candidates(const options *o) {
  kr_context *ctx;
  char *buf;
  kr_op *module = open_input(o, &ctx, &buf);
  kr_artifact_options ao = artifact_options(o);
  unsigned n = 0;
  int rc = module && !KR_FAILED(kr_artifact_emit_candidates(module, o->output, &ao, o->max_size, o->max_candidates, &n))
               ? 0
               : 1;
  close_input(ctx, buf);
  return rc;
}

static int emit_llvm(const options *o) { return emit_nvptx(o, false); }
static int emit_ptx(const options *o) { return emit_nvptx(o, true); }

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  bool help = false;
  int rc = parse_args(argc, argv, &o, &help);
  if (rc || help) {
    if (help) usage(stdout);
    free_options(&o);
    return rc;
  }
  if (!o.mode) {
    free_options(&o);
    return bad_usage("no translation mode given (%s)", "--import-onnx");
  }
  if (!o.input) {
    free_options(&o);
    return bad_usage("no input file given (%s)", "korch-translate --import-onnx model.onnx -o model.kir");
  }
  /* The modes that write artifact directories. */
  bool artifact = !strcmp(o.mode, "emit-artifact") || !strcmp(o.mode, "emit-candidates");
  if (artifact && (!o.output || !strcmp(o.output, "-"))) {
    free_options(&o);
    return bad_usage("--%s writes a directory: give it with -o DIR", o.mode);
  }
  if (o.no_ptxas && o.ptxas) {
    free_options(&o);
    return bad_usage("--ptxas and --no-ptxas exclude each other%s", "");
  }
  if (strcmp(o.mode, "emit-candidates") && (o.max_size || o.max_candidates)) {
    free_options(&o);
    return bad_usage("--max-size / --max-candidates apply to --emit-candidates only%s", "");
  }
  if (!artifact && (o.no_ptxas || o.ptxas)) {
    free_options(&o);
    return bad_usage("--ptxas / --no-ptxas do not apply to --%s", o.mode);
  }
  for (size_t m = 0; m < NUM_MODES; m++)
    if (!strcmp(o.mode, modes[m].flag)) rc = modes[m].run(&o);
  free_options(&o);
  return rc;
}
