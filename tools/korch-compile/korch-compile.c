/* tools/korch-compile/korch-compile.c - the user's one command (issue 8, docs/Compile.md):
 *
 *   korch-compile model.onnx|model.kir -o OUTDIR [options]
 *
 * imports the model (ONNX) or parses it (.kir at the op, prim, kernel, scheduled or planned
 * level), runs the default pipeline from where the input is (or --pipeline), and writes the
 * compiled artifact (model.ptx, model.plan.xml, model.weights: docs/PlanFormat.md), the final
 * planned IR (model.kir, which korch-interp runs), report.txt, graph.dot and graph.svg.
 *
 * Everything is produced in a staging folder beside OUTDIR (`.korch-compile-XXXXXX` in its
 * parent) and moved into OUTDIR (rename, same file system) only after every step succeeded, all
 * or nothing (staging_publish), so a failed compile leaves OUTDIR as it was.  Exit status: 0 success, 1 compile error (diagnostics
 * "file:line:col: error: ..." on standard error), 2 bad command line. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "korch/artifact.h"
#include "korch/kernel.h"
#include "korch/onnx.h"
#include "korch/op.h"
#include "korch/plan.h"
#include "korch/prim.h"
#include "korch/target.h"
#include "support/file_io.h"
#include "support/flag_value.h"
#include "support/input_shape.h"

extern char **environ;

static const char *const TOOL = "korch-compile";

typedef struct options {
  const char *input, *outdir;
  const char *target, *gpu_arch, *pipeline, *profile_db, *emit_candidates;
  double time_limit;           /* < 0: orchestrate's default */
  kr_onnx_input_shape *shapes; /* --input-shape (name and dims malloc'd) */
  unsigned num_shapes;
  bool print_pipeline, timing, verbose, save_ir, no_ptxas, help;
} options;

/* ---- The command line ----------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "OVERVIEW: korch-compile - compile an ONNX model or a .kir module to a GPU artifact\n\n"
          "USAGE: %s model.onnx|model.kir -o OUTDIR [options]\n\n"
          "Writes OUTDIR/model.ptx, model.plan.xml, model.weights (the artifact korch-run executes),\n"
          "model.kir (the final planned IR: korch-interp runs it), report.txt and graph.dot (+ graph.svg\n"
          "when Graphviz 'dot' is on PATH).  OUTDIR is created when missing (its parent must exist); on\n"
          "any error nothing in it changes.\n\n"
          "Options:\n"
          "  -o OUTDIR                 the output directory (required, once; also -oOUTDIR or -o=OUTDIR)\n"
          "  --target NAME|FILE        GPU target of the cost model and the artifact: a100, h100, h200, v100\n"
          "                            or a target XML file (default: the module's korch.target, else h200)\n"
          "  --gpu-arch sm_XX          PTX target: sm_80, sm_86, sm_89 or sm_90 (default: the target's)\n"
          "  --input-shape NAME=DIMS   fix the shape of ONNX graph input NAME, e.g. x=1x3x224x224 ('scalar'\n"
          "                            for rank 0); ONNX input only (repeatable)\n"
          "  --pipeline STR            run this pass pipeline instead of the default (before the artifact)\n"
          "  --print-pipeline          print the default pipeline and exit (not with --pipeline)\n"
          "  --time-limit S            seconds per region for orchestrate's BLP (orchestrate's time-limit;\n"
          "                            0: no limit, the BLP is solved to optimality)\n"
          "  --profile-db FILE         measured kernel times (korch-run --profile) for orchestrate and schedule\n"
          "  --emit-candidates DIR     also write one artifact per candidate kernel of the primitive-level\n"
          "                            module into DIR, for korch-run --profile on a GPU (without ptxas)\n"
          "  --save-ir                 also write model.op.kir, model.prim.kir and model.kernel.kir (the\n"
          "                            levels the compile passed through)\n"
          "  --no-ptxas                do not run ptxas (no register/spill figures in the plan)\n"
          "  --timing                  print the time of each stage and the peak RSS to standard error\n"
          "  -v                        print a line per stage to standard error as it starts and ends\n"
          "  -h, --help                show this help\n\n"
          "Exit status: 0 success; 1 compile error (diagnostics 'file:line:col: error: ...' on standard\n"
          "error; OUTDIR unchanged); 2 bad command line.  docs/Compile.md has the details.\n",
          TOOL);
}

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", TOOL);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry: '%s --help'\n", TOOL);
  return 2;
}

static void free_options(options *o) {
  for (unsigned i = 0; i < o->num_shapes; i++) free((void *)o->shapes[i].name), free((void *)o->shapes[i].dims);
  free(o->shapes);
}

static const char *flag_value(int argc, char **argv, int *i, const char *flag) {
  const char *v;
  return kr_tool_flag_value(argc, argv, i, flag, &v) ? (v ? v : "") : NULL;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int parse_args(int argc, char **argv, options *o) {
  o->time_limit = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
      o->help = true;
      return 0;
    } else if (!strcmp(a, "-o")) {
      if (i + 1 >= argc || !*argv[i + 1]) return bad_usage("'%s' needs a directory name", a);
      if (o->outdir) return bad_usage("-o given twice (first '%s')", o->outdir);
      o->outdir = argv[++i];
    } else if (!strncmp(a, "-o", 2) && a[2] && a[2] != '-') {
      /* -oDIR, and -o=DIR as korch-opt (LLVM's command line) and korch-translate read it: DIR,
       * not a directory named "=DIR". */
      if (o->outdir) return bad_usage("-o given twice (first '%s')", o->outdir);
      o->outdir = a + 2 + (a[2] == '=');
      if (!*o->outdir) return bad_usage("'%s' needs a directory name", a);
    } else if ((v = flag_value(argc, argv, &i, "--target"))) {
      if (!*v) return bad_usage("--target expects a target name or file%s", "");
      /* A built-in name is checked here (a bad one is a bad command line); a file when loaded. */
      bool known = strchr(v, '/') || ends_with(v, ".xml") || !access(v, F_OK); /* any existing file */
      for (const char *const *n = kr_target_builtin_names(); !known && *n; n++) known = !strcmp(*n, v);
      if (!known)
        return bad_usage("--target expects a built-in target (a100, h100, h200, v100) or an XML file, got '%s'", v);
      o->target = v;
    } else if ((v = flag_value(argc, argv, &i, "--gpu-arch"))) {
      if (!*v) return bad_usage("--gpu-arch needs a value: sm_80, sm_86, sm_89 or sm_90%s", "");
      if (strcmp(v, "sm_80") && strcmp(v, "sm_86") && strcmp(v, "sm_89") && strcmp(v, "sm_90"))
        return bad_usage("--gpu-arch expects sm_80, sm_86, sm_89 or sm_90, got '%s'", v);
      o->gpu_arch = v;
    } else if ((v = flag_value(argc, argv, &i, "--input-shape"))) {
      kr_onnx_input_shape s;
      char msg[512];
      if (!kr_tool_parse_input_shape(v, o->shapes, o->num_shapes, &s, msg, sizeof msg)) return bad_usage("%s", msg);
      kr_onnx_input_shape *ns = realloc(o->shapes, (o->num_shapes + 1) * sizeof *ns);
      if (!ns) {
        free((void *)s.name), free((void *)s.dims);
        return bad_usage("out of memory%s", "");
      }
      o->shapes = ns;
      o->shapes[o->num_shapes++] = s;
    } else if ((v = flag_value(argc, argv, &i, "--pipeline"))) {
      if (!*v) return bad_usage("--pipeline expects a pass pipeline such as '%s'", kc_default_pipeline);
      o->pipeline = v;
    } else if ((v = flag_value(argc, argv, &i, "--time-limit"))) {
      char *end;
      errno = 0;
      double t = strtod(v, &end);
      if (!*v || *end || errno || !(t >= 0) || t > 1e9)
        return bad_usage("--time-limit expects a non-negative number of seconds, got '%s'", v);
      o->time_limit = t;
    } else if ((v = flag_value(argc, argv, &i, "--profile-db"))) {
      if (!*v) return bad_usage("--profile-db expects a file name%s", "");
      o->profile_db = v;
    } else if ((v = flag_value(argc, argv, &i, "--emit-candidates"))) {
      if (!*v) return bad_usage("--emit-candidates expects a directory name%s", "");
      struct stat st;
      if (!stat(v, &st) && !S_ISDIR(st.st_mode))
        return bad_usage("--emit-candidates expects a directory: '%s' exists and is not one", v);
      o->emit_candidates = v;
    } else if (!strcmp(a, "--print-pipeline")) {
      o->print_pipeline = true;
    } else if (!strcmp(a, "--timing")) {
      o->timing = true;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      o->verbose = true;
    } else if (!strcmp(a, "--save-ir")) {
      o->save_ir = true;
    } else if (!strcmp(a, "--no-ptxas")) {
      o->no_ptxas = true;
    } else if (a[0] == '-' && a[1]) {
      return bad_usage("unknown command line argument '%s'", a);
    } else {
      if (o->input) return bad_usage("more than one input file ('%s')", a);
      o->input = a;
    }
  }
  /* --print-pipeline prints the default pipeline only: with --pipeline it would print something
   * other than what runs (docs/Compile.md). */
  if (o->print_pipeline && o->pipeline)
    return bad_usage("--print-pipeline prints the default pipeline; it does not combine with --pipeline%s", "");
  if (o->print_pipeline) return 0;
  if (!o->input) return bad_usage("no input file given (%s)", "korch-compile model.onnx -o OUTDIR");
  if (!o->outdir) return bad_usage("no output directory given (%s)", "-o OUTDIR");
  if (o->num_shapes && !ends_with(o->input, ".onnx"))
    return bad_usage("--input-shape applies to an ONNX input (.onnx) only, not '%s'", o->input);
  if (o->pipeline) {
    kc_pipeline p;
    const char *err;
    if (!kc_pipeline_split(o->pipeline, &p, &err)) return bad_usage("--pipeline: %s", err);
    kc_pipeline_free(&p);
  }
  return 0;
}

/* ---- Small helpers ----------------------------------------------------------------------------- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double children_cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

static long peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss; /* Linux: kilobytes */
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

/* The whole of `path` (NUL-terminated), or NULL when it cannot be read. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += n;
    if (cap - len < 2) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (buf) buf[len] = 0;
  return buf;
}

/* ---- The output directory ------------------------------------------------------------------- */

/* The files korch-compile may put into OUTDIR, in the order they are moved there: the artifact's
 * plan after its PTX and weights (docs/PlanFormat.md), the report last. */
enum { F_WEIGHTS, F_PTX, F_PLAN, F_KIR, F_OP_KIR, F_PRIM_KIR, F_KERNEL_KIR, F_DOT, F_SVG, F_REPORT, F_NUM };
static const char *const out_files[F_NUM] = {"model.weights", "model.ptx",      "model.plan.xml",   "model.kir",
                                             "model.op.kir",  "model.prim.kir", "model.kernel.kir", "graph.dot",
                                             "graph.svg",     "report.txt"};
/* Staged but not moved: the orchestrate pass's report (included in report.txt). */
static const char ORCH_REPORT[] = "orchestration.txt";
/* Staged and removed: Graphviz's messages. */
static const char DOT_LOG[] = "dot.log";
/* How long Graphviz may take for graph.svg (seconds). */
enum { DOT_TIME_LIMIT_S = 10 };

typedef struct staging {
  char *outdir; /* OUTDIR without trailing slashes */
  char *dir;    /* the staging folder */
  bool produced[F_NUM];
  bool keep; /* a backup could not be restored: the staging folder stays, holding it */
} staging;

static bool staging_create(staging *s, const char *outdir) {
  memset(s, 0, sizeof *s);
  s->outdir = strdup(outdir);
  if (!s->outdir) return false;
  size_t n = strlen(s->outdir);
  while (n > 1 && s->outdir[n - 1] == '/') s->outdir[--n] = 0;
  struct stat st;
  if (!stat(s->outdir, &st) && !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: error: cannot write '%s': it exists and is not a directory\n", TOOL, s->outdir);
    return false;
  }
  if (!lstat(s->outdir, &st) && S_ISLNK(st.st_mode) && stat(s->outdir, &st)) {
    fprintf(stderr, "%s: error: cannot write '%s': it is a symbolic link to nothing (a dangling link)\n", TOOL,
            s->outdir);
    return false;
  }
  const char *slash = strrchr(s->outdir, '/');
  const char *base = slash ? slash + 1 : s->outdir;
  char parent[4096];
  if (!slash)
    snprintf(parent, sizeof parent, ".");
  else if (slash == s->outdir)
    snprintf(parent, sizeof parent, "/");
  else
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - s->outdir), s->outdir);
  /* Checked before anything is compiled: OUTDIR (or its parent, when OUTDIR is to be created) must
   * be writable, or the whole compile would be lost at the end. */
  const char *need = stat(s->outdir, &st) ? parent : s->outdir;
  if (access(need, W_OK)) {
    fprintf(stderr, "%s: error: cannot write into '%s': %s\n", TOOL, need, strerror(errno));
    return false;
  }
  (void)base;
  /* A short name: OUTDIR's own name can be NAME_MAX (255) bytes long already. */
  size_t cap = strlen(parent) + 40;
  s->dir = malloc(cap);
  if (!s->dir) return false;
  snprintf(s->dir, cap, "%s/.korch-compile-XXXXXX", parent);
  if (!mkdtemp(s->dir)) {
    fprintf(stderr, "%s: error: cannot create a staging folder for '%s' in '%s': %s\n", TOOL, s->outdir, parent,
            strerror(errno));
    free(s->dir);
    s->dir = NULL;
    return false;
  }
  return true;
}

/* Removes the staging folder and what korch-compile put there. */
static void staging_remove(staging *s) {
  if (s->dir) {
    for (unsigned i = 0; i <= F_NUM; i++) {
      char *p = join(s->dir, i < F_NUM ? out_files[i] : ORCH_REPORT);
      if (p) unlink(p);
      free(p);
    }
    char *log = join(s->dir, DOT_LOG); /* a graph.svg render that was stopped */
    if (log) unlink(log);
    free(log);
    if (s->keep)
      fprintf(stderr, "%s: warning: the staging folder '%s' is kept: it holds old files\n", TOOL, s->dir);
    else if (rmdir(s->dir))
      fprintf(stderr, "%s: warning: could not remove the staging folder '%s': %s\n", TOOL, s->dir, strerror(errno));
  }
  free(s->dir);
  free(s->outdir);
  memset(s, 0, sizeof *s);
}

/* The staged backup of OUTDIR's file i while it is being replaced ("old.<name>"; malloc'd). */
static char *backup_path(const staging *s, unsigned i) {
  size_t n = strlen(s->dir) + strlen(out_files[i]) + 8;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/old.%s", s->dir, out_files[i]);
  return p;
}

/* Moves the staged files into OUTDIR (created when missing) and removes korch-compile's files
 * there that this compile did not produce (a graph.svg of an earlier compile would not match the
 * new graph.dot).  All or nothing: every destination is checked first (one that exists and is
 * not a regular file, a directory named report.txt say, fails before anything moves); then each
 * old file is renamed into the staging folder as a backup before the new one takes its place,
 * and when a rename still fails the moves done so far are undone and the backups restored.
 * Renames within one file system (the staging folder is in OUTDIR's parent). */
static bool staging_publish(staging *s) {
  bool created = false;
  if (mkdir(s->outdir, 0777)) {
    if (errno != EEXIST) {
      fprintf(stderr, "%s: error: cannot create '%s': %s\n", TOOL, s->outdir, strerror(errno));
      return false;
    }
  } else {
    created = true;
  }
  char *to[F_NUM] = {0}, *from[F_NUM] = {0}, *old[F_NUM] = {0};
  bool had[F_NUM] = {0}, moved[F_NUM] = {0}, backup[F_NUM] = {0}, ok = true;
  for (unsigned i = 0; i < F_NUM && ok; i++) {
    to[i] = join(s->outdir, out_files[i]), from[i] = join(s->dir, out_files[i]), old[i] = backup_path(s, i);
    struct stat st;
    if (!to[i] || !from[i] || !old[i]) {
      fprintf(stderr, "%s: error: out of memory\n", TOOL);
      ok = false;
    } else if (!lstat(to[i], &st)) {
      had[i] = true;
      if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: error: cannot replace '%s': it exists and is not a regular file (nothing was moved)\n",
                TOOL, to[i]);
        ok = false;
      }
    } else if (errno != ENOENT) {
      fprintf(stderr, "%s: error: cannot write '%s': %s\n", TOOL, to[i], strerror(errno));
      ok = false;
    }
  }
  /* Old files to backups, new files in. */
  for (unsigned i = 0; i < F_NUM && ok; i++) {
    if (had[i]) {
      if (rename(to[i], old[i])) {
        fprintf(stderr, "%s: error: cannot move '%s' aside: %s\n", TOOL, to[i], strerror(errno));
        ok = false;
        break;
      }
      backup[i] = true;
    }
    if (s->produced[i]) {
      if (rename(from[i], to[i])) {
        fprintf(stderr, "%s: error: cannot move '%s' to '%s': %s\n", TOOL, from[i], to[i], strerror(errno));
        ok = false;
        break;
      }
      moved[i] = true;
    }
  }
  if (!ok) { /* Undo in reverse: each new file back to the staging folder, each old one back. */
    for (unsigned k = F_NUM; k-- > 0;) {
      if (moved[k] && rename(to[k], from[k]))
        fprintf(stderr, "%s: warning: cannot move '%s' back: %s\n", TOOL, to[k], strerror(errno));
      if (backup[k] && rename(old[k], to[k])) {
        fprintf(stderr, "%s: warning: cannot restore '%s' (the old file is '%s', kept): %s\n", TOOL, to[k],
                old[k], strerror(errno));
        s->keep = true;
      }
    }
    if (created) rmdir(s->outdir);
  } else {
    for (unsigned k = 0; k < F_NUM; k++)
      if (backup[k] && unlink(old[k]))
        fprintf(stderr, "%s: warning: cannot remove '%s': %s\n", TOOL, old[k], strerror(errno));
  }
  for (unsigned i = 0; i < F_NUM; i++) free(to[i]), free(from[i]), free(old[i]);
  return ok;
}

/* Writes the staged file `f` atomically (korch/file.h): `module` printed when it is not NULL,
 * else text[0..len).  An error is reported on stderr (false). */
static bool stage_file(staging *s, unsigned f, kr_op *module, const char *text, size_t len) {
  char *path = join(s->dir, out_files[f]);
  kr_file_output out = {0};
  int err = path ? kr_file_output_open(&out, path) : ENOMEM;
  if (!err && module) {
    kr_ostream os;
    kr_ostream_init_file(&os, out.file);
    kr_print_flags flags = {.generic = false, .debuginfo = false, .hex_threshold = 0};
    kr_op_print(module, &os, &flags);
    if (!kr_ostream_close(&os)) err = EIO;
  } else if (!err && len && fwrite(text, 1, len, out.file) != len) {
    err = errno ? errno : EIO;
  }
  if (!err) err = kr_file_output_commit(&out, false);
  if (err) fprintf(stderr, "%s: error: cannot write '%s': %s\n", TOOL, path ? path : out_files[f], strerror(err));
  kr_file_output_abort(&out);
  free(path);
  if (!err) s->produced[f] = true;
  return !err;
}

static bool stage_module(staging *s, unsigned f, kr_op *module) { return stage_file(s, f, module, NULL, 0); }
static bool stage_text(staging *s, unsigned f, const char *text, size_t len) { return stage_file(s, f, NULL, text, len); }

/* graph.svg from graph.dot with Graphviz, when `dot` is on PATH.  Started in the background as
 * soon as orchestrate wrote graph.dot (svg_start), so that its layout overlaps scheduling, code
 * generation and ptxas; svg_finish waits for it (at most DOT_TIME_LIMIT_S from its start).  A
 * graph of more than DOT_MAX_NODES nodes is not rendered at all: dot's clustered layout grows
 * much faster than linearly (measured here, Graphviz 2.43: bert_encoder_2l 214 nodes 2.0 s,
 * mobilenet_v2 364 nodes 1.1 s, efficientvit_like 411 nodes 2.0 s; style_transfer_candy 461 nodes
 * > 20 s, segformer_like 675 > 30 s, yolo_like 781 > 60 s), so report.txt and -v say how to
 * render it by hand instead.  Any failure is a
 * warning that quotes dot's first line of complaint (its standard error goes to a staged file: on
 * large graphs dot can print thousands of lines). */
enum { DOT_MAX_NODES = 450 };

typedef struct svg_job {
  pid_t pid; /* > 0 while dot runs */
  double start;
  char note[160]; /* why there is no graph.svg, for report.txt ("" when there is one) */
} svg_job;

/* Whether text[0..len) holds `needle` (memmem is a GNU extension). */
static bool span_has(const char *text, size_t len, const char *needle) {
  size_t m = strlen(needle);
  for (size_t i = 0; i + m <= len; i++)
    if (!memcmp(text + i, needle, m)) return true;
  return false;
}

/* The nodes of graph.dot: its lines "name [label=...]" (edges hold "->"). */
static unsigned dot_nodes(const char *text) {
  unsigned n = 0;
  for (const char *l = text; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (span_has(l, len, " [label=") && !span_has(l, len, "->")) n++;
    l = e ? e + 1 : NULL;
  }
  return n;
}

static void svg_start(staging *s, svg_job *j, bool verbose) {
  memset(j, 0, sizeof *j);
  char *dot = join(s->dir, out_files[F_DOT]), *svg = join(s->dir, out_files[F_SVG]);
  char *log = join(s->dir, DOT_LOG);
  char *text = dot ? slurp(dot) : NULL;
  posix_spawn_file_actions_t fa;
  bool fa_ok = false;
  if (!text || !svg || !log) goto done;
  unsigned nodes = dot_nodes(text);
  if (nodes > DOT_MAX_NODES) {
    snprintf(j->note, sizeof j->note, "graph.svg skipped: %u nodes; render with: dot -Tsvg -Gnewrank=true graph.dot",
             nodes);
    if (verbose) fprintf(stderr, "%s: %s\n", TOOL, j->note);
    goto done;
  }
  /* newrank: Graphviz 2.43 fails on some clustered graphs ("trouble in init_rank") without it. */
  char *argv[] = {"dot", "-Tsvg", "-Gnewrank=true", "-o", svg, dot, NULL};
  fa_ok = !posix_spawn_file_actions_init(&fa);
  int err = fa_ok ? 0 : ENOMEM;
  if (!err) err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!err) err = posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (!err) err = posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  if (!err) err = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  if (err == ENOENT) {
    snprintf(j->note, sizeof j->note, "no graph.svg: Graphviz 'dot' is not on PATH");
    if (verbose) fprintf(stderr, "%s: Graphviz 'dot' is not on PATH: no graph.svg\n", TOOL);
  } else if (err) {
    snprintf(j->note, sizeof j->note, "no graph.svg: dot could not be started");
    fprintf(stderr, "%s: warning: 'dot -Tsvg -Gnewrank=true' could not be started (%s): no graph.svg\n", TOOL,
            strerror(err));
  } else {
    j->pid = pid;
    j->start = now();
  }
done:
  if (fa_ok) posix_spawn_file_actions_destroy(&fa);
  free(text), free(dot), free(svg), free(log);
}

/* Stops a dot still running (a failed compile). */
static void svg_abort(svg_job *j) {
  if (j->pid > 0) {
    int status;
    kill(j->pid, SIGKILL);
    waitpid(j->pid, &status, 0);
    j->pid = 0;
  }
}

static void svg_finish(staging *s, svg_job *j) {
  if (j->pid <= 0) return;
  char *svg = join(s->dir, out_files[F_SVG]), *log = join(s->dir, DOT_LOG);
  int status = 0, err = 0;
  pid_t r;
  /* Graphviz's layout can take minutes on a large network: give up DOT_TIME_LIMIT_S after it
   * started. */
  while ((r = waitpid(j->pid, &status, WNOHANG)) == 0 && now() - j->start < DOT_TIME_LIMIT_S) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (r == 0) {
    svg_abort(j);
    snprintf(j->note, sizeof j->note, "graph.svg stopped after %d s; render with: dot -Tsvg -Gnewrank=true graph.dot",
             DOT_TIME_LIMIT_S);
    fprintf(stderr,
            "%s: warning: 'dot -Tsvg -Gnewrank=true' took longer than %d s and was stopped: no graph.svg (graph.dot "
            "is there to render)\n",
            TOOL, DOT_TIME_LIMIT_S);
    if (svg) unlink(svg);
    goto done;
  }
  if (r < 0) err = errno;
  j->pid = 0;
  if (err || !WIFEXITED(status) || WEXITSTATUS(status)) {
    char *text = err || !log ? NULL : slurp(log);
    char *nl = text ? strchr(text, '\n') : NULL;
    if (nl) *nl = 0;
    snprintf(j->note, sizeof j->note, "no graph.svg: dot failed");
    fprintf(stderr, "%s: warning: 'dot -Tsvg -Gnewrank=true' failed (%s): no graph.svg\n", TOOL,
            err             ? strerror(err)
            : text && *text ? text
                            : "non-zero exit status");
    free(text);
    if (svg) unlink(svg);
    goto done;
  }
  s->produced[F_SVG] = true;
done:
  if (log) unlink(log);
  free(svg), free(log);
}


/* ---- The compile ---------------------------------------------------------------------------- */

typedef enum level { L_OP, L_PRIM, L_KERNEL, L_SCHEDULED, L_PLANNED } level;
static const char *const level_names[] = {"op", "prim", "kernel", "scheduled", "planned"};

/* How far `module` is lowered: op (an op.* op anywhere), prim (a primitive in a function body),
 * kernel (an unscheduled kernel.func), scheduled, planned (a host function with a memory plan). */
static level module_level(kr_op *module) {
  bool prims = false, kernels = false, unscheduled = false, planned = false, ops = false;
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *top = mb ? mb->first : NULL; top; top = top->next) {
    if (!strncmp(top->name, "op.", 3)) ops = true;
    if (!strcmp(top->name, KR_KERNEL_FUNC_OP)) {
      kernels = true;
      if (!kr_kernel_is_scheduled(top)) unscheduled = true;
      continue;
    }
    if (strcmp(top->name, "func.func") || !top->num_regions) continue;
    if (kr_plan_is_planned(top)) planned = true;
    kr_block *body = top->regions[0].first;
    for (kr_op *op = body ? body->first : NULL; op; op = op->next) {
      if (!strncmp(op->name, "op.", 3)) ops = true;
      kr_prim_class c = kr_prim_op_class(op);
      if (c != KR_PRIM_NOT_PRIM && c != KR_PRIM_CONSTANT) prims = true;
    }
  }
  if (ops) return L_OP;
  if (prims || !kernels) return L_PRIM;
  if (unscheduled) return L_KERNEL;
  return planned ? L_PLANNED : L_SCHEDULED;
}

typedef struct compile {
  const options *o;
  kr_context *ctx;
  kr_op *module;
  char *source; /* the .kir text (the context's diagnostics point into it) */
  level input_level;
  staging st;
  double seconds[KC_NUM_STAGES];
  double start;
  kc_kernel_prims *prims;
  unsigned num_prims;
  unsigned num_candidates;
  char *user_pipeline; /* the pipeline as run, without korch-compile's file options */
  svg_job svg;         /* graph.svg, rendered in the background */
  bool svg_started;
} compile;

static void progress(compile *c, kc_stage s, const char *what, bool done, double secs) {
  if (!c->o->verbose) return;
  if (done)
    fprintf(stderr, "%s: [%s] done in %.3f s\n", TOOL, kc_stage_names[s], secs);
  else
    fprintf(stderr, "%s: [%s] %s\n", TOOL, kc_stage_names[s], what);
}

static bool import(compile *c) {
  const options *o = c->o;
  double t0 = now();
  progress(c, KC_IMPORT, o->input, false, 0);
  if (ends_with(o->input, ".onnx")) {
    kr_onnx_import_options io = {.shapes = o->shapes, .num_shapes = o->num_shapes};
    c->module = kr_onnx_import_file(c->ctx, o->input, &io);
  } else {
    size_t len;
    c->source = kr_tool_read_file(TOOL, o->input, &len);
    if (c->source)
      c->module = kr_parse_source(c->ctx, strcmp(o->input, "-") ? o->input : "<stdin>", c->source, len, true);
  }
  c->seconds[KC_IMPORT] += now() - t0;
  progress(c, KC_IMPORT, NULL, true, now() - t0);
  return c->module != NULL;
}

/* The pipeline to run: the default one from the input's level on, or --pipeline; `user` gets the
 * text as run before the options korch-compile adds for its own files. */
static bool build_pipeline(compile *c, kc_pipeline *p) {
  const char *err;
  if (!kc_pipeline_split(c->o->pipeline ? c->o->pipeline : kc_default_pipeline, p, &err)) {
    fprintf(stderr, "%s: error: --pipeline: %s\n", TOOL, err);
    return false;
  }
  if (!c->o->pipeline) {
    if (c->input_level == L_PRIM) kc_pipeline_remove(p, "op-to-prim");
    if (c->input_level == L_KERNEL || c->input_level == L_SCHEDULED) kc_pipeline_start_at(p, KC_SCHEDULE);
    if (c->input_level == L_PLANNED) kc_pipeline_start_at(p, KC_NUM_STAGES);
  }
  c->user_pipeline = kc_pipeline_join(p, 0, p->num);
  /* orchestrate writes its report and picture into the staging folder. */
  char *report = join(c->st.dir, ORCH_REPORT), *dot = join(c->st.dir, out_files[F_DOT]);
  char *qr = report ? kc_quote_option(report) : NULL, *qd = dot ? kc_quote_option(dot) : NULL;
  char *qp = c->o->profile_db ? kc_quote_option(c->o->profile_db) : NULL;
  bool ok = qr && qd && (!c->o->profile_db || qp);
  if (!ok) fprintf(stderr, "%s: error: a path holds both kinds of quote: '%s'\n", TOOL, c->st.dir);
  if (ok) {
    char opts[16384];
    int n = snprintf(opts, sizeof opts, "report=%s view-graph=%s", qr, qd);
    if (c->o->time_limit >= 0) n += snprintf(opts + n, sizeof opts - (size_t)n, " time-limit=%.17g", c->o->time_limit);
    if (qp) n += snprintf(opts + n, sizeof opts - (size_t)n, " profile-db=%s", qp);
    ok = n < (int)sizeof opts;
    if (ok) kc_pipeline_add_options(p, "orchestrate", opts);
    if (ok && qp) {
      snprintf(opts, sizeof opts, "profile-db=%s", qp);
      kc_pipeline_add_options(p, "schedule", opts);
    }
    if (!ok) fprintf(stderr, "%s: error: paths too long\n", TOOL);
  }
  free(report), free(dot), free(qr), free(qd), free(qp);
  return ok;
}

/* The primitive level, before orchestrate: --save-ir's model.prim.kir, --emit-candidates. */
static bool at_prim_level(compile *c) {
  if (c->input_level > L_PRIM) return true;
  if (c->o->save_ir && !stage_module(&c->st, F_PRIM_KIR, c->module)) return false;
  if (!c->o->emit_candidates) return true;
  double t0 = now();
  progress(c, KC_CANDIDATES, c->o->emit_candidates, false, 0);
  kr_artifact_options ao = kr_artifact_default_options();
  ao.nvptx.gpu_arch = c->o->gpu_arch;
  /* No ptxas for the candidates: korch-run --profile loads each PTX through the driver, which
   * compiles it anyway, and ptxas per candidate was most of the time (docs/Compile.md). */
  ao.ptxas = "";
  bool ok = !KR_FAILED(kr_artifact_emit_candidates(c->module, c->o->emit_candidates, &ao, 0, 0, &c->num_candidates));
  c->seconds[KC_CANDIDATES] += now() - t0;
  progress(c, KC_CANDIDATES, NULL, true, now() - t0);
  return ok;
}

/* The kernel level, before schedule: primitives per kernel (for the report), model.kernel.kir. */
static bool at_kernel_level(compile *c) {
  if (c->input_level > L_KERNEL) return true;
  kr_block *mb = c->module->num_regions ? c->module->regions[0].first : NULL;
  for (kr_op *k = mb ? mb->first : NULL; k; k = k->next) {
    if (strcmp(k->name, KR_KERNEL_FUNC_OP) || kr_kernel_is_scheduled(k) || !k->num_regions) continue;
    unsigned n = 0;
    kr_block *body = k->regions[0].first;
    for (kr_op *op = body ? body->first : NULL; op; op = op->next) {
      kr_prim_class pc = kr_prim_op_class(op);
      n += pc != KR_PRIM_NOT_PRIM && pc != KR_PRIM_CONSTANT;
    }
    kr_ident name = kr_op_symbol_name(k);
    kc_kernel_prims *np = realloc(c->prims, (c->num_prims + 1) * sizeof *np);
    if (!np || !name) return false;
    c->prims = np;
    c->prims[c->num_prims++] = (kc_kernel_prims){strdup(name), n};
  }
  return !c->o->save_ir || stage_module(&c->st, F_KERNEL_KIR, c->module);
}

static bool run_pipeline(compile *c) {
  kc_pipeline p;
  if (!build_pipeline(c, &p)) return false;
  bool ok = true, prim_done = false, kernel_done = false;
  for (unsigned i = 0; i < p.num && ok;) {
    unsigned j = i;
    kc_stage s = p.passes[i].stage;
    while (j < p.num && p.passes[j].stage == s) j++;
    if (!prim_done && s >= KC_ORCHESTRATE) ok = at_prim_level(c), prim_done = true;
    if (ok && !kernel_done && s >= KC_SCHEDULE) ok = at_kernel_level(c), kernel_done = true;
    if (!ok) break;
    char *text = kc_pipeline_join(&p, i, j);
    if (c->o->verbose) {
      fprintf(stderr, "%s: [%s] ", TOOL, kc_stage_names[s]);
      for (unsigned k = i; k < j; k++)
        fprintf(stderr, "%s%.*s", k > i ? "," : "", (int)kc_pass_name_len(p.passes[k].text), p.passes[k].text);
      fprintf(stderr, "\n");
    }
    double t0 = now();
    kr_pass_manager *pm = kr_pass_manager_create(c->ctx, KR_MODULE_OP);
    ok = text && pm && !KR_FAILED(kr_pass_manager_parse_pipeline(pm, text)) &&
         !KR_FAILED(kr_pass_manager_run(pm, c->module));
    if (pm) kr_pass_manager_destroy(pm);
    free(text);
    c->seconds[s] += now() - t0;
    progress(c, s, NULL, true, now() - t0);
    i = j;
    struct stat sb;
    char *dot_path = join(c->st.dir, out_files[F_DOT]);
    if (ok && !c->svg_started && dot_path && !stat(dot_path, &sb)) { /* orchestrate wrote graph.dot */
      c->st.produced[F_DOT] = c->svg_started = true;
      svg_start(&c->st, &c->svg, c->o->verbose);
    }
    free(dot_path);
  }
  if (ok && !prim_done) ok = at_prim_level(c);
  if (ok && !kernel_done) ok = at_kernel_level(c);
  kc_pipeline_free(&p);
  return ok;
}

static bool write_artifact(compile *c) {
  kr_artifact_options ao = kr_artifact_default_options();
  ao.nvptx.gpu_arch = c->o->gpu_arch;
  ao.ptxas = c->o->no_ptxas ? "" : NULL;
  double t0 = now(), cpu0 = children_cpu();
  progress(c, KC_CODEGEN, "PTX, ptxas, weights, plan", false, 0);
  bool ok = !KR_FAILED(kr_artifact_write(c->module, c->st.dir, &ao));
  double wall = now() - t0, ptxas = children_cpu() - cpu0;
  if (ptxas > wall) ptxas = wall;
  c->seconds[KC_PTXAS] += ptxas;
  c->seconds[KC_CODEGEN] += wall - ptxas;
  progress(c, KC_CODEGEN, NULL, true, wall);
  if (ok) c->st.produced[F_WEIGHTS] = c->st.produced[F_PTX] = c->st.produced[F_PLAN] = true;
  return ok;
}

static bool write_outputs(compile *c) {
  char *orch_path = join(c->st.dir, ORCH_REPORT), *dot_path = join(c->st.dir, out_files[F_DOT]);
  char *orch = orch_path ? slurp(orch_path) : NULL;
  if (c->svg_started && c->svg.pid > 0) { /* the time spent waiting for dot after everything else */
    double t1 = now();
    progress(c, KC_DOT, "waiting for dot -Tsvg", false, 0);
    svg_finish(&c->st, &c->svg);
    c->seconds[KC_DOT] += now() - t1;
    progress(c, KC_DOT, NULL, true, now() - t1);
  }
  double t0 = now();
  progress(c, KC_WRITE, c->st.outdir, false, 0);
  bool ok = stage_module(&c->st, F_KIR, c->module);
  if (ok) {
    char *plan = join(c->st.dir, out_files[F_PLAN]);
    const char *kind = ends_with(c->o->input, ".onnx") ? "onnx" : "kir";
    kc_report_input in = {.input = c->o->input,
                          .input_kind = kind,
                          .level = level_names[c->input_level],
                          .outdir = c->st.outdir,
                          .pipeline = c->user_pipeline && *c->user_pipeline ? c->user_pipeline : "(none)",
                          .module = c->module,
                          .plan_path = plan,
                          .orchestration = orch,
                          .prims = c->prims,
                          .num_prims = c->num_prims,
                          .stage_seconds = c->seconds,
                          .total_seconds = now() - c->start,
                          .peak_rss_kib = peak_rss_kib(),
                          .num_candidates = c->num_candidates,
                          .emit_candidates = c->o->emit_candidates != NULL,
                          .svg_note = c->svg.note[0] ? c->svg.note : NULL};
    kr_ostream os;
    kr_ostream_init_mem(&os);
    char err[2048];
    ok = plan && kc_report_write(&os, &in, err, sizeof err);
    if (!ok) fprintf(stderr, "%s: error: cannot read back the plan: %s\n", TOOL, err);
    if (ok) ok = stage_text(&c->st, F_REPORT, os.len ? kr_ostream_str(&os) : "", os.len);
    kr_ostream_close(&os);
    free(plan);
  }
  free(orch_path), free(dot_path), free(orch);
  if (ok) ok = staging_publish(&c->st);
  c->seconds[KC_WRITE] += now() - t0;
  progress(c, KC_WRITE, NULL, true, now() - t0);
  return ok;
}

static void print_timing(const compile *c) {
  fprintf(stderr, "===-------------------------------------------------------------------------===\n"
                  "                          korch-compile timing report\n"
                  "===-------------------------------------------------------------------------===\n");
  fprintf(stderr, "  %-22s %10s\n", "stage", "seconds");
  for (unsigned s = 0; s < KC_NUM_STAGES; s++) {
    if (s == KC_CANDIDATES && !c->o->emit_candidates) continue;
    fprintf(stderr, "  %-22s %10.3f\n", kc_stage_names[s], c->seconds[s]);
  }
  fprintf(stderr, "  %-22s %10.3f\n", "total", now() - c->start);
  fprintf(stderr, "  %-22s %10.1f MiB\n", "peak RSS", peak_rss_kib() / 1024.0);
}

/* Diagnostics: those about the model print as usual ("file:line:col: error: ..." with the source
 * line); those the libraries report at loc(unknown) or at the module itself are about the command
 * line, the target, the profile database, ptxas or the output directory, not about the model's
 * first line, and print as "korch-compile: error: ...". */
typedef struct diag_router {
  kr_op *module;
} diag_router;

static void route_diag(const kr_diagnostic *d, void *user) {
  diag_router *r = user;
  bool tool_level = (d->loc->kind == KR_ATTR_LOCATION && d->loc->u.loc.kind == KR_LOC_UNKNOWN) ||
                    (r->module && d->loc == r->module->loc);
  if (!tool_level) {
    kr_diag_print_handler(d, stderr);
    return;
  }
  static const char *const sev[] = {"error", "warning", "remark", "note"};
  fprintf(stderr, "%s: %s: %s\n", TOOL, sev[d->severity], d->message ? d->message : "");
  for (const kr_diagnostic *n = d->notes; n; n = n->next) fprintf(stderr, "%s: note: %s\n", TOOL, n->message);
}

/* The PTX architecture the artifact will be for, checked before anything is compiled: --gpu-arch
 * (checked when parsed), else the target's (--target, else the module's korch.target, else h200),
 * by the rule of kr_nvptx_resolve_arch (korch/nvptx.h): sm_80, sm_86, sm_89, sm_90.  A target
 * such as v100 (sm_70) is a cost model only. */
static bool check_arch(kr_context *ctx, kr_op *module, const char *target_name, const char *gpu_arch, bool *usage) {
  *usage = false;
  if (gpu_arch) return true;
  kr_target t;
  if (KR_FAILED(target_name ? kr_target_load(ctx, target_name, kr_loc_unknown(ctx), &t) : kr_target_of_module(module, &t)))
    return false;
  static const char *const ok[] = {"sm_80", "sm_86", "sm_89", "sm_90"};
  for (unsigned i = 0; i < 4; i++)
    if (!strcmp(t.arch, ok[i])) return true;
  fprintf(stderr,
          "%s: error: the target '%s' has GPU architecture '%s', for which no code is generated (a cost model only): "
          "give --gpu-arch sm_80, sm_86, sm_89 or sm_90\n",
          TOOL, target_name ? target_name : t.name, t.arch);
  *usage = target_name != NULL;
  return false;
}

static int run_compile(const options *o) {
  compile c;
  memset(&c, 0, sizeof c);
  c.o = o;
  c.start = now();
  if (!staging_create(&c.st, o->outdir)) {
    staging_remove(&c.st);
    return 1;
  }
  c.ctx = kr_context_create();
  diag_router router = {0};
  kr_context_set_diag_handler(c.ctx, route_diag, &router);
  bool ok = !KR_FAILED(kr_register_core_dialects(c.ctx)) && !KR_FAILED(kr_register_core_passes(c.ctx));
  if (ok && o->target) {
    /* The command line's target before the model is read: a bad file or a cost-model-only arch
     * is a command-line problem (exit 2). */
    bool usage = false;
    if (!check_arch(c.ctx, NULL, o->target, o->gpu_arch, &usage)) {
      kr_context_destroy(c.ctx);
      staging_remove(&c.st);
      if (usage) fprintf(stderr, "Try: '%s --help'\n", TOOL);
      return usage ? 2 : 1;
    }
  }
  if (ok && o->pipeline) {
    /* A pipeline the pass manager rejects is a bad command line (exit 2); diagnostics point into
     * the text as given. */
    kr_pass_manager *pm = kr_pass_manager_create(c.ctx, KR_MODULE_OP);
    bool parsed = pm && !KR_FAILED(kr_pass_manager_parse_pipeline(pm, o->pipeline));
    if (pm) kr_pass_manager_destroy(pm);
    if (!parsed) {
      kr_context_destroy(c.ctx);
      staging_remove(&c.st);
      fprintf(stderr, "Try: '%s --help'\n", TOOL);
      return 2;
    }
  }
  if (ok) ok = import(&c);
  if (ok) router.module = c.module;
  if (ok && !o->target) {
    bool usage;
    ok = check_arch(c.ctx, c.module, NULL, o->gpu_arch, &usage); /* the module's korch.target */
  }
  if (ok) {
    c.input_level = module_level(c.module);
    if (o->verbose) fprintf(stderr, "%s: the input is at the %s level\n", TOOL, level_names[c.input_level]);
    if (o->emit_candidates && c.input_level > L_PRIM) {
      fprintf(stderr, "%s: error: --emit-candidates needs a module at the op or prim level; '%s' is at the %s level\n",
              TOOL, o->input, level_names[c.input_level]);
      ok = false;
    }
  }
  if (ok && o->target) {
    kr_target t;
    ok = !KR_FAILED(kr_target_load(c.ctx, o->target, c.module->loc, &t));
    if (ok) kr_target_set_module(c.module, o->target);
  }
  if (ok && o->save_ir && c.input_level == L_OP) ok = stage_module(&c.st, F_OP_KIR, c.module);
  if (ok) ok = run_pipeline(&c);
  if (ok) {
    level l = module_level(c.module);
    if (l != L_PLANNED) {
      fprintf(stderr,
              "%s: error: the pipeline stops at the %s level: the artifact needs the planned level, so a --pipeline "
              "must end with plan-buffers (see --print-pipeline for the default one)\n",
              TOOL, level_names[l]);
      ok = false;
    }
  }
  if (ok) ok = write_artifact(&c);
  if (ok) ok = write_outputs(&c);
  svg_abort(&c.svg); /* a failed compile: dot may still run */
  if (o->timing) print_timing(&c);
  staging_remove(&c.st);
  kr_context_destroy(c.ctx);
  free(c.source);
  for (unsigned i = 0; i < c.num_prims; i++) free(c.prims[i].name);
  free(c.prims);
  free(c.user_pipeline);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  int rc = parse_args(argc, argv, &o);
  if (!rc && o.help) {
    usage(stdout);
  } else if (!rc && o.print_pipeline) {
    printf("%s\n", kc_default_pipeline);
  } else if (!rc) {
    /* orchestrate and schedule read a missing database as an empty one (docs/Compile.md). */
    if (o.profile_db && access(o.profile_db, F_OK))
      fprintf(stderr, "%s: warning: --profile-db '%s' does not exist: it is treated as an empty database\n", TOOL,
              o.profile_db);
    rc = run_compile(&o);
  }
  free_options(&o);
  return rc;
}
