/* korch/kernel.h - the `kernel` dialect (kernel level): the result of kernel orchestration
 * (Korch, ASPLOS'24, §4-5; docs/Dialects/kernel.md).
 *
 * A kernel-level module holds one `kernel.func` per selected kernel (a callable symbol whose body
 * is the kernel's primitives, ending in `kernel.return`) and host `func.func`s that run them in
 * order with `kernel.launch`:
 *
 *   kernel.func @main_k0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {korch.kind = "injective"} {
 *     %0 = "prim.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
 *     kernel.return %0 : tensor<4xf32>
 *   }
 *   func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
 *     %0 = kernel.launch @main_k0(%x) : (tensor<4xf32>) -> tensor<4xf32>
 *     return %0 : tensor<4xf32>
 *   }
 *
 * The CPU interpreter (korch/interp.h) runs kernel.launch by running the callee's body; a
 * scheduled callee (below) runs as SIMT code on the interpreter's GPU model (backend/interp/simt). */
#ifndef KORCH_KERNEL_H
#define KORCH_KERNEL_H

#include "korch/dialect.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the kernel dialect (kr_register_core_dialects calls it). */
kr_status kr_register_kernel_dialect(kr_context *ctx);

/* Op names. */
#define KR_KERNEL_FUNC_OP "kernel.func"     /* attributes as func.func's: sym_name, function_type, ... */
#define KR_KERNEL_RETURN_OP "kernel.return"
#define KR_KERNEL_LAUNCH_OP "kernel.launch" /* `callee`: flat symbol reference to a kernel.func */

/* Discardable attributes the orchestrate pass sets on each kernel.func (passes/orchestrate/orch.h,
 * emission).  All optional; when present the kernel.func verifier checks their form. */
#define KR_KERNEL_ATTR_KIND "korch.kind"             /* string: one of the KR_KERNEL_KIND_* names */
#define KR_KERNEL_ATTR_HASH "korch.hash"             /* string: the candidate's canonical hash, 16 hex digits */
#define KR_KERNEL_ATTR_COST_US "korch.cost_us"       /* float: modelled or measured cost in microseconds */
#define KR_KERNEL_ATTR_RECOMPUTED "korch.recomputed" /* array of non-negative integers: local indices (as
                                                      * orch.h numbers them) of the primitives another
                                                      * kernel also computes; absent when none */

/* The kernel kinds of the schedulability contract (passes/orchestrate/orch.h, kr_kernel_kind). */
#define KR_KERNEL_KIND_INJECTIVE "injective" /* elementwise and layout primitives only */
#define KR_KERNEL_KIND_REDUCTION "reduction" /* one reduction domain with elementwise/broadcast around it */
#define KR_KERNEL_KIND_LINEAR "linear"       /* one matmul or conv with its prologues and epilogues */

/* ---------------------------------------------------------------------------------------------
 * Scheduling level (passes/schedule/, docs/Dialects/kernel.md "Scheduled kernels")
 *
 * --schedule rewrites each kernel.func of primitives into SIMT code: its arguments become global
 * buffers (one per launch operand, then one per launch result), it returns nothing, and it
 * carries these attributes (kernel.launch keeps its tensor operands and results; the interpreter
 * and the runtime bind them to the buffers): */
#define KR_KERNEL_ATTR_TEMPLATE "korch.template" /* string: "injective", "window", "reduction", "matmul",
                                                  * "conv", "linear-direct", or "empty" when every
                                                  * output has zero elements (passes/schedule/) */
#define KR_KERNEL_ATTR_GRID "korch.grid"         /* array<i64: x, y, z>: blocks per grid (each >= 1) */
#define KR_KERNEL_ATTR_BLOCK "korch.block"       /* array<i64: x, y, z>: threads per block (each >= 1,
                                                  * product <= 1024) */
#define KR_KERNEL_ATTR_DYNAMIC_SMEM "korch.dynamic_shared_bytes" /* i64: present when the kernel's shared
                                                  * buffers exceed 48 KiB: they then live in dynamic shared
                                                  * memory of this many bytes, which the launch requests */
#define KR_KERNEL_ATTR_SCHEDULE "korch.schedule" /* string: the chosen configuration, human-readable
                                                  * (e.g. "block 64x64x16, warp 32x32, thread 4x4, 2 stages") */
#define KR_KERNEL_STATIC_SMEM_LIMIT (48 * 1024)  /* bytes of static shared memory per block (CUDA) */
#define KR_KERNEL_WARP_SIZE 32

/* Whether kernel.func `func` is scheduled (has korch.block). */
bool kr_kernel_is_scheduled(kr_op *func);

/* SIMT op names (dialects/kernel/ops.def documents each one's form and semantics). */
#define KR_KERNEL_THREAD_ID_OP "kernel.thread_id"
#define KR_KERNEL_BLOCK_ID_OP "kernel.block_id"
#define KR_KERNEL_BLOCK_DIM_OP "kernel.block_dim"
#define KR_KERNEL_GRID_DIM_OP "kernel.grid_dim"
#define KR_KERNEL_LANE_ID_OP "kernel.lane_id"
#define KR_KERNEL_WARP_ID_OP "kernel.warp_id"
#define KR_KERNEL_FOR_OP "kernel.for"         /* operands lb, ub, step (index); region: ^bb(%i: index) */
#define KR_KERNEL_IF_OP "kernel.if"           /* operand i1; regions then, else (else may be empty) */
#define KR_KERNEL_MAP_OP "kernel.map"         /* operand worker (index); attr `mapping`; region args: task */
#define KR_KERNEL_ALLOC_OP "kernel.alloc"
#define KR_KERNEL_LOAD_OP "kernel.load"       /* operands buffer, indices...; result scalar or vector */
#define KR_KERNEL_STORE_OP "kernel.store"     /* operands value, buffer, indices... */
#define KR_KERNEL_BARRIER_OP "kernel.barrier"
#define KR_KERNEL_SHUFFLE_OP "kernel.shuffle" /* operands value, offset (index); attr `mode` */
#define KR_KERNEL_VECTOR_EXTRACT_OP "kernel.vector_extract"             /* attr `position` (i64) */
#define KR_KERNEL_VECTOR_FROM_ELEMENTS_OP "kernel.vector_from_elements"

#define KR_KERNEL_ATTR_DIM "dim"              /* i64 0..2 on thread_id/block_id/block_dim/grid_dim */
#define KR_KERNEL_ATTR_UNROLL "unroll"        /* i64 >= 1 on kernel.for: unroll hint for code generation */
#define KR_KERNEL_ATTR_MAPPING "mapping"      /* #kernel.task on kernel.map */
#define KR_KERNEL_ATTR_MODE "mode"            /* string on kernel.shuffle: "xor" "down" "up" "idx" */
#define KR_KERNEL_ATTR_POSITION "position"    /* i64 on kernel.vector_extract */

/* ---- Buffers: !kernel.buffer<SPACE, D0x...xELEM[, strides = [s0, ...]]> ---------------------
 * A view of memory in one space: element (i0, ..., in-1) lives at element offset
 * sum(i_k * stride_k) from the buffer's base.  Strides default to row-major; a buffer with other
 * strides (e.g. a padded shared tile, !kernel.buffer<shared, 32x32xf32, strides = [33, 1]>, to
 * avoid bank conflicts) prints them.  Rank 0..KR_KERNEL_MAX_RANK; dims >= 0 (a dim of 0 makes an
 * empty buffer, span 0, as ONNX's zero-sized tensors); strides >= 0.
 * ELEM is an integer (i1 is stored as one byte) or float type.  Global buffers are always
 * row-major (they are the launch's dense tensors). */
#define KR_KERNEL_MAX_RANK 16
typedef enum kr_kernel_space {
  KR_KERNEL_SPACE_GLOBAL, /* device memory (PTX .global) */
  KR_KERNEL_SPACE_SHARED, /* per block (PTX .shared, address space 3) */
  KR_KERNEL_SPACE_LOCAL,  /* per thread, meant for registers (PTX .local when spilled) */
} kr_kernel_space;

typedef struct kr_kernel_buffer {
  kr_kernel_space space;
  unsigned rank;
  int64_t dims[KR_KERNEL_MAX_RANK];
  int64_t strides[KR_KERNEL_MAX_RANK]; /* in elements */
  kr_type elem;
  int64_t span;                        /* elements the storage needs: 1 + sum((d_k - 1) * stride_k),
                                        * 0 when a dim is 0 */
} kr_kernel_buffer;

/* The uniqued buffer type; `strides` NULL means row-major.  Returns NULL (no diagnostic) when an
 * argument is out of range (rank, dims < 0, strides < 0, a non-integer/float elem, span > 2^62). */
kr_type kr_kernel_buffer_type(kr_context *ctx, kr_kernel_space space, unsigned rank, const int64_t *dims,
                              const int64_t *strides, kr_type elem);
/* Fills *out and returns true when `t` is a !kernel.buffer type; false otherwise. */
bool kr_kernel_buffer_info(kr_type t, kr_kernel_buffer *out);
/* "global", "shared", "local". */
const char *kr_kernel_space_name(kr_kernel_space s);

/* ---- Task mappings: #kernel.task<ATOM * ATOM * ...> (Hidet, ASPLOS'23 §4.1; docs/TaskMappings.md)
 * ATOM is `spatial(d0, ..., dn-1)` or `repeat(d0, ..., dn-1)`, optionally with a rank order
 * `spatial(4, 8, ranks = [1, 0])`; all atoms of a mapping have the same number of dims.
 *   spatial(D): prod(D) workers, each owning one task: worker w's task is w unravelled over D in
 *               the rank order (ranks[k] = the significance of dim k: the dim with the largest rank
 *               varies fastest; default ranks = [0, 1, ..., n-1], row-major).
 *   repeat(D):  one worker owning every task of D, in the rank order (row-major by default).
 *   f * g:      workers W_f * W_g; task shape D_f * D_g (elementwise); worker w owns, for t_f in
 *               f(w / W_g) (outer) and t_g in g(w % W_g) (inner), the task t_f * D_g + t_g. */
#define KR_TASK_MAX_ATOMS 8
typedef enum kr_task_kind { KR_TASK_SPATIAL, KR_TASK_REPEAT } kr_task_kind;
typedef struct kr_task_atom {
  kr_task_kind kind;
  int64_t dims[KR_KERNEL_MAX_RANK];
  unsigned ranks[KR_KERNEL_MAX_RANK];
} kr_task_atom;
typedef struct kr_task_mapping {
  unsigned rank;      /* dims of the task shape, 1..KR_KERNEL_MAX_RANK */
  unsigned num_atoms; /* 1..KR_TASK_MAX_ATOMS */
  kr_task_atom atoms[KR_TASK_MAX_ATOMS];
} kr_task_mapping;

/* Atoms with row-major rank order; dims >= 1. */
kr_task_mapping kr_task_spatial(unsigned rank, const int64_t *dims);
kr_task_mapping kr_task_repeat(unsigned rank, const int64_t *dims);
/* f * g; false (and *out untouched) when ranks differ or the result would have more than
 * KR_TASK_MAX_ATOMS atoms or more than 2^40 tasks. */
bool kr_task_compose(const kr_task_mapping *f, const kr_task_mapping *g, kr_task_mapping *out);
/* The uniqued #kernel.task attribute of m; NULL when m is malformed (dims < 1, an atom's ranks not
 * a permutation of 0..rank-1, more than 2^40 tasks in all, atom/rank counts out of range). */
kr_attr kr_task_mapping_attr(kr_context *ctx, const kr_task_mapping *m);
/* Decodes a #kernel.task attribute; false when `a` is not one or is malformed (as above). */
bool kr_task_mapping_from_attr(kr_attr a, kr_task_mapping *out);
/* Number of workers; tasks each worker owns; the task shape (rank entries). */
int64_t kr_task_mapping_num_workers(const kr_task_mapping *m);
int64_t kr_task_mapping_tasks_per_worker(const kr_task_mapping *m);
void kr_task_mapping_shape(const kr_task_mapping *m, int64_t *shape);
/* The k-th task (0 <= k < tasks_per_worker) of worker w (0 <= w < num_workers), into task[rank]. */
void kr_task_mapping_task(const kr_task_mapping *m, int64_t worker, int64_t k, int64_t *task);

#ifdef __cplusplus
}
#endif
#endif
