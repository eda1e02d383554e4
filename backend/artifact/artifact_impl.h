/* backend/artifact/artifact_impl.h - the parts of the artifact writer (docs/PlanFormat.md) shared
 * by its files: artifact.c (checks, PTX, ptxas, writing the directory), plan_xml.c
 * (model.plan.xml), weights.c (model.weights), and candidates.c (--emit-candidates, which writes
 * one artifact per candidate kernel with a <profile> element). */
#ifndef KORCH_BACKEND_ARTIFACT_IMPL_H
#define KORCH_BACKEND_ARTIFACT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "korch/arena.h"
#include "korch/artifact.h"
#include "korch/nvptx.h"
#include "korch/ostream.h"
#include "korch/plan.h"

/* The file names inside an artifact directory (docs/PlanFormat.md). */
#define KR_ARTIFACT_PTX "model.ptx"
#define KR_ARTIFACT_PLAN "model.plan.xml"
#define KR_ARTIFACT_WEIGHTS "model.weights"
#define KR_ARTIFACT_VERSION 1

/* The optional <profile target hash name> element of a per-candidate artifact. */
typedef struct kr_artifact_profile {
  const char *target; /* the target description's name, "h200" */
  const char *hash;   /* the candidate's canonical hash, 16 hex digits */
  const char *name;   /* a readable name, "main_r0_c12" */
} kr_artifact_profile;

/* One kernel.func of the module as model.plan.xml describes it. */
typedef struct kr_artifact_kernel {
  kr_op *func;            /* the kernel.func */
  const char *name;       /* its symbol = the PTX .entry name */
  unsigned params;        /* global buffer arguments = .param .u64 pointers */
  const char *template_name; /* korch.template, NULL when absent */
  int64_t grid[3], block[3], dynamic_shared_bytes;
  bool has_ptxas;         /* `ptxas` figures valid */
  kr_ptxas_info ptxas;
} kr_artifact_kernel;

/* Everything model.plan.xml says, gathered before anything is written. */
typedef struct kr_artifact_model {
  kr_plan plan;
  const char *target;     /* the target description's name */
  char gpu_arch[16];
  unsigned num_kernels;
  kr_artifact_kernel *kernels;
  const kr_artifact_profile *profile; /* NULL: no <profile> element */
} kr_artifact_model;

/* kr_artifact_write with an optional <profile> element (NULL: none, exactly kr_artifact_write). */
kr_status kr_artifact_write_profiled(kr_op *module, const char *dir, const kr_artifact_options *options,
                                     const kr_artifact_profile *profile);

/* Serialises `m` as model.plan.xml (UTF-8, attributes in the documented order, two-space
 * indentation) into the memory stream `os`.  Errors (a libxml2 writer failure, a name that is
 * not valid UTF-8) are diagnostics at the host function. */
kr_status kr_artifact_plan_xml(const kr_artifact_model *m, kr_ostream *os);

/* model.weights (docs/PlanFormat.md), streamed without a blob in memory (speed on large models):
 * kr_artifact_weights_check reads every weight before any file is written (errors: a value that
 * kr_tensor_from_attr cannot read, a size or range that disagrees with the plan, as diagnostics
 * at the constant); kr_artifact_weights_stream then writes plan.weights_bytes bytes to `f`: each
 * weight's little-endian element storage at its offset, zero bytes elsewhere.  Returns 0 or an
 * errno value. */
kr_status kr_artifact_weights_check(const kr_plan *plan);
int kr_artifact_weights_stream(const kr_plan *plan, FILE *f);

/* The element type's name in model.plan.xml ("f32", "ui8", "i1", ...), NULL for a type the
 * format has no name for. */
const char *kr_artifact_dtype_name(kr_type elem);

#endif
