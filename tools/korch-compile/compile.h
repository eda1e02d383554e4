/* tools/korch-compile/compile.h - the parts of korch-compile (docs/Compile.md): the driver and the
 * output directory written all at once (korch-compile.c), the pipeline split into timed stages
 * (pipeline.c) and report.txt (report.c).  Private to tools/korch-compile/. */
#ifndef KORCH_COMPILE_H
#define KORCH_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "korch/korch.h"
#include "korch/ostream.h"

/* The stages korch-compile times (--timing, report.txt), in order. */
typedef enum kc_stage {
  KC_IMPORT,      /* ONNX import, or parsing and verifying the .kir */
  KC_PRIM,        /* op-to-prim and the primitive rewrites */
  KC_ORCHESTRATE, /* orchestrate */
  KC_SCHEDULE,    /* schedule, lower-task-mappings */
  KC_PLAN,        /* plan-buffers */
  KC_CANDIDATES,  /* --emit-candidates (0 when not asked for) */
  KC_CODEGEN,     /* PTX, weights and plan of the artifact (kr_artifact_write less ptxas) */
  KC_PTXAS,       /* ptxas, CPU time of the child processes */
  KC_DOT,         /* graph.svg: waiting for Graphviz dot (started after orchestrate, at most 10 s) */
  KC_WRITE,       /* model.kir, report.txt, moving the files into OUTDIR */
  KC_NUM_STAGES
} kc_stage;

extern const char *const kc_stage_names[KC_NUM_STAGES];

/* ---- pipeline.c ----------------------------------------------------------------------------- */

/* The default pipeline (the standard one of every level test), as the comma list
 * --print-pipeline prints. */
extern const char kc_default_pipeline[];

/* One top-level element of a pipeline ("orchestrate{time-limit=5}", "func.func(cse)") and the
 * stage it is timed under. */
typedef struct kc_pass {
  char *text; /* malloc'd */
  kc_stage stage;
} kc_pass;

typedef struct kc_pipeline {
  kc_pass *passes; /* malloc'd */
  unsigned num;
} kc_pipeline;

/* Splits `text` (a comma list, or `builtin.module(list)`) into its top-level elements, each given
 * the stage of its pass name: op-to-prim and prim-* -> KC_PRIM, orchestrate -> KC_ORCHESTRATE,
 * schedule and lower-task-mappings -> KC_SCHEDULE, plan-* -> KC_PLAN, any other pass (cse,
 * canonicalize, a nested manager) the stage of the element before it (KC_PRIM first).  Only the
 * nesting of (), {} and quotes is checked here; the pass manager checks the rest.  Returns false
 * with *err set to a static message on unbalanced text or an empty element. */
bool kc_pipeline_split(const char *text, kc_pipeline *out, const char **err);
void kc_pipeline_free(kc_pipeline *p);
/* Appends `opts` ("report=\"x\" time-limit=5") to the options of every element named `pass`:
 * inside its braces after the ones written there (later options win), or as new braces. */
void kc_pipeline_add_options(kc_pipeline *p, const char *pass, const char *opts);
/* Drops the elements named `pass`. */
void kc_pipeline_remove(kc_pipeline *p, const char *pass);
/* Drops the elements before the first one of `stage`. */
void kc_pipeline_start_at(kc_pipeline *p, kc_stage stage);
/* Elements [first, end) as one comma list (malloc'd). */
char *kc_pipeline_join(const kc_pipeline *p, unsigned first, unsigned end);
/* The pass name of an element (its leading name characters), and its length. */
size_t kc_pass_name_len(const char *text);
/* `value` quoted for a pass option ("...", or '...' when it holds a double quote); NULL when it
 * holds both kinds of quote (malloc'd). */
char *kc_quote_option(const char *value);

/* ---- report.c -------------------------------------------------------------------------------- */

/* Primitives per kernel, counted on the kernel level (before scheduling replaces them). */
typedef struct kc_kernel_prims {
  char *name;
  unsigned prims;
} kc_kernel_prims;

typedef struct kc_report_input {
  const char *input, *input_kind, *level, *outdir, *pipeline;
  const char *gpu_arch;      /* the arch of model.ptx */
  kr_op *module;             /* the planned module */
  const char *plan_path;     /* the staged model.plan.xml */
  const char *orchestration; /* the orchestrate pass's report text, or NULL */
  const kc_kernel_prims *prims;
  unsigned num_prims;
  const double *stage_seconds; /* KC_NUM_STAGES */
  double total_seconds;
  long peak_rss_kib;
  unsigned num_candidates; /* --emit-candidates count */
  bool emit_candidates;
  const char *svg_note; /* why there is no graph.svg ("graph.svg skipped: N nodes; ..."), or NULL */
} kc_report_input;

/* Writes report.txt's text (docs/Compile.md "report.txt") into `os`.  Reads the staged plan back
 * with the runtime's reader (runtime/runtime.h) for the per-kernel ptxas figures and launch
 * shapes.  Returns false with a message in err (cap bytes) when the plan cannot be read. */
bool kc_report_write(kr_ostream *os, const kc_report_input *in, char *err, size_t cap);

#endif
