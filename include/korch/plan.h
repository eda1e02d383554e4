/* korch/plan.h - the memory plan (issue 7, docs/MemoryPlan.md): every tensor a host function
 * passes between kernels becomes a byte range of ONE device arena, chosen from the tensors'
 * lifetimes so that freed space is reused; constants become ranges of a separate read-only
 * weights region.  The plan is stored in the IR as attributes (the "planned level"), so that
 * korch-opt prints it, korch-interp runs it (every buffer an offset into one arena: an aliasing
 * mistake changes the numbers on the CPU) and the artifact writer (korch/artifact.h) serialises
 * it to model.plan.xml.
 *
 * The planned level.  A host function is a func.func whose body holds only constant-like ops
 * (prim.constant, arith.constant: the weights), kernel.launch ops and func.return (what
 * --orchestrate emits).  It need not hold a launch: a func.func of one block of constant-like ops
 * and the return, with tensor arguments and results, is the host function of an identity or
 * constant graph (its outputs are its arguments' arena ranges or weights); a launch-less
 * func.func holding anything else is not a host function (left alone).  --plan-buffers sets:
 *   on the func.func:
 *     korch.arena_bytes    : i64   the arena size (bytes; the peak of the plan, aligned)
 *     korch.no_reuse_bytes : i64   what the arena would need with no reuse (sum of the aligned
 *                                  sizes of every arena buffer)
 *     korch.weights_bytes  : i64   the weights region's size
 *     korch.plan_alignment : i64   the alignment of every offset (bytes, a power of two >= 16,
 *                                  default 256 = cudaMalloc's; vector accesses need 16)
 *   on each argument (arg_attrs): korch.offset : i64  (where the runtime puts the input)
 *   on each kernel.launch:        korch.offsets = array<i64: ...>  one per result
 *   on each constant-like op a launch or the return uses: korch.weight_offset : i64
 * A returned value is a launch result, an argument or a constant: the output is read from its
 * range (a value returned twice is read twice).
 *
 * Lifetimes (launches numbered in program order, the return after the last): an argument lives
 * from before launch 0, a launch result from its launch, each until its last use; a returned
 * value until the end.  Two arena buffers whose lifetimes share a launch must not overlap; a
 * launch's results therefore never alias its operands (the NVPTX backend marks every kernel
 * argument noalias, docs/Codegen.md).  Zero-sized tensors get offset 0 and size 0. */
#ifndef KORCH_PLAN_H
#define KORCH_PLAN_H

#include <stdint.h>

#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KR_PLAN_ARENA_BYTES "korch.arena_bytes"
#define KR_PLAN_NO_REUSE_BYTES "korch.no_reuse_bytes"
#define KR_PLAN_WEIGHTS_BYTES "korch.weights_bytes"
#define KR_PLAN_ALIGNMENT "korch.plan_alignment"
#define KR_PLAN_OFFSET "korch.offset"
#define KR_PLAN_OFFSETS "korch.offsets"
#define KR_PLAN_WEIGHT_OFFSET "korch.weight_offset"
#define KR_PLAN_DEFAULT_ALIGNMENT 256

typedef struct kr_plan_options {
  int64_t alignment; /* 0: KR_PLAN_DEFAULT_ALIGNMENT; else a power of two >= 16 */
  bool reuse;        /* false: every buffer its own range (the no-reuse baseline, for tests) */
} kr_plan_options;

kr_plan_options kr_plan_default_options(void);

/* Plans every host function of `module` (func.func ops containing kernel.launch, or made only of
 * constants and the return: see "The planned level" above), replacing any earlier plan.
 * Offsets: greedy by size (largest first) into the lowest gap that is free over the buffer's
 * whole lifetime (the "greedy by size" planner of TensorFlow Lite's
 * simple_memory_arena / Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net
 * Inference", 2020, section 4.2); ties by definition order, so the plan is deterministic.
 * Errors (diagnostics at the op): a host function with other ops than constants, launches and
 * the return, dynamic shapes, a constant that is not a dense/dense_resource attribute. */
kr_status kr_plan_buffers(kr_op *module, const kr_plan_options *options);

/* A byte range of the arena or the weights region. */
typedef enum kr_plan_region { KR_PLAN_REGION_ARENA, KR_PLAN_REGION_WEIGHTS } kr_plan_region;
typedef struct kr_plan_ref {
  kr_plan_region region;
  uint64_t offset, bytes;  /* bytes = numel * kr_type_storage_bytes(elem) (i1: 1 byte) */
  kr_type type;            /* the ranked tensor type of the value */
} kr_plan_ref;

typedef struct kr_plan_launch {
  kr_op *op;               /* the kernel.launch */
  kr_op *kernel;           /* the kernel.func it calls */
  unsigned num_args;       /* operands then results, the scheduled kernel.func's argument order */
  kr_plan_ref *args;
} kr_plan_launch;

typedef struct kr_plan_io {
  const char *name;        /* onnx.name arg/result attribute, else "input_<i>" / "output_<i>" */
  kr_plan_ref ref;
} kr_plan_io;

typedef struct kr_plan_weight {
  kr_op *constant;         /* the constant-like op */
  kr_attr value;           /* its dense / dense_resource value (kr_tensor_from_attr reads it) */
  kr_plan_ref ref;         /* region KR_PLAN_REGION_WEIGHTS */
} kr_plan_weight;

/* A planned host function, read back from its attributes.  All arrays live in `arena` (the
 * caller's kr_arena; nothing to free but the arena). */
typedef struct kr_plan {
  kr_op *func;
  uint64_t arena_bytes, no_reuse_bytes, weights_bytes, alignment;
  unsigned num_launches, num_inputs, num_outputs, num_weights;
  kr_plan_launch *launches;
  kr_plan_io *inputs, *outputs;
  kr_plan_weight *weights;
} kr_plan;

struct kr_arena;
/* Reads the plan of host function `func` and checks it: every attribute present and well
 * typed, every offset aligned, every range inside its region, and no two arena buffers whose
 * lifetimes share a launch overlap (the overlap check is what catches a wrong hand-written or
 * stale plan).  Errors are diagnostics at the offending op ("buffer of %3 [256, 512) overlaps
 * %1 [0, 384), live at launch @k1"). */
kr_status kr_plan_read(kr_op *func, struct kr_arena *arena, kr_plan *out);

/* Whether `func` carries a plan (korch.arena_bytes present). */
bool kr_plan_is_planned(kr_op *func);

#ifdef __cplusplus
}
#endif
#endif
