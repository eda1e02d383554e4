/* korch/interp.h - the CPU reference interpreter (backend/interp): tensors and the executor.
 *
 * Every level of korch is checked against this interpreter.  It runs a func.func of the builtin,
 * func, arith and op dialects op by op with ONNX semantics; MatMul/Gemm/Conv go through CBLAS
 * (OpenBLAS).  Kernels are the `kr_eval_<stem>` hooks of each dialect's ops.def. */
#ifndef KORCH_INTERP_H
#define KORCH_INTERP_H

#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dense tensor: `type` is a ranked, statically shaped tensor type; `data` holds
 * kr_type_num_elements(type) elements of kr_type_storage_bytes(elem) bytes each, row-major,
 * little-endian (f16/bf16 as raw bits, i1 one byte 0/1, ui* zero-extended, i* two's complement).
 * `owned`: data was malloc'd for this tensor and kr_tensor_free releases it; otherwise it is
 * borrowed (from an attribute or resource, which the context owns) and must not be written. */
typedef struct kr_tensor {
  kr_type type;
  void *data;
  int64_t numel;
  size_t nbytes;
  bool owned;
} kr_tensor;

/* Allocates zeroed storage for `type` (static ranked tensor).  Returns KR_FAILURE (no
 * diagnostic: there is no location) on a dynamic type or when memory is exhausted. */
kr_status kr_tensor_alloc(kr_tensor *t, kr_type type);
/* Releases owned storage and clears *t. */
void kr_tensor_free(kr_tensor *t);
/* A borrowed view of a dense (splat expanded into fresh owned storage) or dense_resource
 * attribute.  Fails (no diagnostic) on other attributes or a resource of the wrong size. */
kr_status kr_tensor_from_attr(kr_tensor *t, kr_attr value);
/* A dense attribute holding a copy of t's elements (uniqued by the context). */
kr_attr kr_tensor_to_attr(kr_context *ctx, const kr_tensor *t);

static inline unsigned kr_tensor_rank(const kr_tensor *t) { return t->type->u.shaped.rank; }
static inline const int64_t *kr_tensor_dims(const kr_tensor *t) { return t->type->u.shaped.dims; }
static inline kr_type kr_tensor_elem(const kr_tensor *t) { return t->type->u.shaped.elem; }

/* Element i as double / int64 / uint64, and stores that convert from them to the element type.
 * Float -> integer stores truncate toward zero (ONNX Cast; out of range is undefined in ONNX and
 * saturates here; NaN stores 0); integer stores wrap modulo 2^width; i1 stores x != 0.  Float
 * stores round to nearest even (f16/bf16 through kr_f64_to_f16/bf16).  kr_tensor_get_u64 of a
 * float element is the bit pattern of kr_tensor_get_i64's result (a negative value wraps). */
double kr_tensor_get_f64(const kr_tensor *t, int64_t i);
int64_t kr_tensor_get_i64(const kr_tensor *t, int64_t i);
uint64_t kr_tensor_get_u64(const kr_tensor *t, int64_t i);
void kr_tensor_set_f64(kr_tensor *t, int64_t i, double v);
void kr_tensor_set_i64(kr_tensor *t, int64_t i, int64_t v);
void kr_tensor_set_u64(kr_tensor *t, int64_t i, uint64_t v);
/* Whether the element type is a float / unsigned integer type. */
bool kr_type_is_unsigned_int(kr_type elem);
/* Row-major strides (in elements) of `rank` dims into `strides`. */
void kr_dims_strides(const int64_t *dims, unsigned rank, int64_t *strides);

/* A kernel: computes op's results from its operands.  ins[i] is NULL for an absent optional
 * operand; outs[i] are allocated (zeroed) with the op's result types before the call.  Reports
 * errors at the op (kr_op_emit_error) and returns KR_FAILURE. */
typedef kr_status (*kr_eval_fn)(kr_op *op, kr_tensor *const *ins, kr_tensor *const *outs);
/* What kr_op_def::interpreter points at. */
typedef struct kr_interp_hooks {
  kr_eval_fn eval;
} kr_interp_hooks;

/* Evaluates one op of a dialect with interpreter hooks (op.*, or a constant-like op): ins has
 * op->num_operands entries (NULL for op.none); the kernel sees NULL for trailing omitted
 * optional operands too.  outs as for kr_eval_fn (allocated here from the result types; free
 * them with kr_tensor_free). */
kr_status kr_interp_eval_op(kr_op *op, kr_tensor *const *ins, kr_tensor *outs);

/* Runs `func` (a func.func of a module, or a kernel.func: korch/kernel.h) on `inputs` (func's
 * argument count, types must match the argument types: element type and shape); func.call and
 * kernel.launch run their callee's body the same way.  Fills outputs[0..num results) with owned tensors the
 * caller frees with kr_tensor_free.  Intermediate tensors are freed after their last use.
 * Errors (unsupported op, type mismatch, kernel error) are reported as diagnostics at the
 * offending op. */
kr_status kr_interp_run(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                        unsigned num_outputs);

/* ---------------------------------------------------------------------------------------------
 * Scheduled kernels (korch/kernel.h kr_kernel_is_scheduled) run on a CPU model of the GPU
 * (backend/interp/simt*.c, docs/Interpreter.md "SIMT"): blocks one by one; within a block each
 * thread runs until a barrier, a warp shuffle or its end, then the next thread.  With `checks`,
 * the threads of a block run in a seeded shuffled order between two barriers, and shared-memory
 * races (read-after-write, write-after-read, write-after-write by different threads between two
 * barriers) are errors.  Always checked: out-of-bounds buffer indices, misaligned vector
 * accesses, stores into input buffers, a barrier or shuffle not reached by every thread that
 * must reach it.  Errors are reported at the offending op with the block and thread. */
typedef struct kr_simt_kernel_stats {
  const char *kernel;        /* kernel.func name (owned by the context) */
  const char *template_name; /* korch.template or "" */
  int64_t launches;
  int64_t global_accesses;   /* warp-level global load/store instructions */
  int64_t global_sectors;    /* 32-byte sectors those touched */
  int64_t global_min_sectors;/* the minimum for the bytes the active lanes asked for */
  int64_t shared_accesses;   /* warp-level shared load/store instructions */
  int64_t shared_wavefronts; /* wavefronts (bank-conflict replays included) */
  int64_t shared_min_wavefronts;
  int64_t inner_shared_accesses, inner_shared_conflicts; /* in the innermost loops only (matmul) */
} kr_simt_kernel_stats;

typedef struct kr_interp_options {
  bool simt_checks;          /* shuffled thread order + race detection (default true) */
  uint64_t simt_seed;        /* seed of the shuffled order (default 1) */
  uint64_t simt_max_steps;   /* per launch: thread starts plus loop iterations (kernel.for, kernel.map
                              * tasks, backward jumps) before the run stops with an error, so a huge
                              * grid or loop cannot hang the interpreter; 0: no limit (default 2^30) */
  bool memory_report;        /* collect kr_simt_kernel_stats (slower) */
  /* Filled when memory_report: one entry per distinct kernel.func launched, malloc'd; the
   * caller frees *stats. */
  kr_simt_kernel_stats **stats;
  unsigned *num_stats;
  /* A planned host function (korch/plan.h) runs through one arena laid out by its plan, after
   * kr_plan_read's checks; `plan_unchecked` skips the check that buffers live at the same launch
   * do not overlap, so that a test can show an aliasing plan giving wrong numbers (default
   * false). */
  bool plan_unchecked;
} kr_interp_options;

/* The defaults above. */
kr_interp_options kr_interp_default_options(void);
/* kr_interp_run with options (kr_interp_run uses the defaults). */
kr_status kr_interp_run_with(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                             unsigned num_outputs, const kr_interp_options *options);

#ifdef __cplusplus
}
#endif
#endif
