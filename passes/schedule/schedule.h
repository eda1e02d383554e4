/* passes/schedule/schedule.h - the scheduling stage's internal contract (--schedule,
 * --lower-task-mappings; docs/Scheduling.md, docs/TaskMappings.md).
 *
 * --schedule turns each kernel.func of primitives (the orchestration output, Korch ASPLOS'24 §5)
 * into an explicit SIMT program written with task mappings (Hidet ASPLOS'23 §4), one template
 * per kernel class, with the kernel's other primitives fused in (Hidet §5, post-scheduling
 * fusion: prologues inlined into loads, epilogues into stores).
 *
 *   schedule.c       the pass: per kernel.func builds a ks_kernel, picks the template
 *                    (ks_pick_template), lets it build the new body, then replaces the old one
 *   build.c          IR builder helpers for SIMT code (index arithmetic, loops, loads, ...)
 *   emit_*.c         the element emitter: the value of any primitive's element at an index, as
 *                    scalar arith code (compute-inline), with loads of the kernel's inputs
 *   injective.c      template "injective" (elementwise + layout) and "window" (cum_sum,
 *                    reduce_window with elementwise around them)
 *   reduction.c      template "reduction": a thread block per row, warp shuffles, shared memory
 *   linear.c         templates "matmul", "conv" (implicit GEMM) and "linear-direct"
 *   tiles.c          the hardware-centric tile space, filtered by the target, chosen by cost
 *   lower_task_mappings.c  --lower-task-mappings
 *
 * Conventions for every template: 1-D blocks (korch.block = [T, 1, 1]); grids up to 3-D; the
 * template sets korch.template, korch.grid, korch.block, korch.schedule (and
 * korch.dynamic_shared_bytes when its shared buffers exceed 48 KiB) through ks_set_launch; every
 * output element is written exactly once by exactly one thread (identical duplicate writes of a
 * recomputed prologue tile are allowed, docs/Orchestration.md); out-of-range tasks are guarded
 * with kernel.if; shared memory is reused only after a kernel.barrier. */
#ifndef KORCH_PASSES_SCHEDULE_H
#define KORCH_PASSES_SCHEDULE_H

#include "korch/ir.h"
#include "korch/kernel.h"
#include "korch/target.h"

/* ---------------------------------------------------------------------------------------------
 * The kernel being scheduled */

typedef struct ks_kernel {
  kr_context *ctx;
  kr_op *func;             /* the kernel.func; its old body (primitives) stays readable until
                            * the template returns: `old_body` */
  kr_block *old_body;      /* the primitives, ending in kernel.return */
  kr_block *body;          /* the new body being built (block args = in_bufs then out_bufs) */
  const kr_target *target; /* limits for the tile space and the cost model */
  const char *kind;        /* korch.kind of the kernel: "injective", "reduction", "linear" */
  unsigned num_inputs;     /* old block arguments (tensors) = launch operands */
  kr_value *inputs;        /* the old block arguments */
  kr_value *in_bufs;       /* matching global buffers (new block arguments) */
  unsigned num_outputs;    /* returned tensors = launch results */
  kr_value *outputs;       /* the old kernel.return operands (values of the old body) */
  kr_value *out_bufs;      /* matching global buffers */
  const char *tile_override; /* the pass option `tile` ("" or NULL: choose), see tiles.c */
  const struct kr_profile_db *profile_db; /* may be NULL */
  uint64_t hash;           /* korch.hash of the kernel (0 when absent) */
} ks_kernel;

/* Records the launch configuration on the kernel.func: korch.template, korch.grid, korch.block
 * (threads, 1, 1), korch.schedule (a short description) and, when `shared_bytes` > 48 KiB,
 * korch.dynamic_shared_bytes.  Reports (at the kernel) a block over the target's
 * max_threads_per_block or shared memory over its opt-in limit. */
kr_status ks_set_launch(ks_kernel *k, const char *template_name, const int64_t grid[3], int64_t threads,
                        int64_t shared_bytes, const char *schedule);

/* Threads per block a template may use when it wants `want` (a multiple of 32): `want` capped
 * by the target's max_threads_per_block, rounded down to a whole warp (at least one warp). */
int64_t ks_block_threads(const ks_kernel *k, int64_t want);

/* The output buffer index of old-body value v (0..num_outputs-1) or -1 when v is not written. */
int ks_output_index(const ks_kernel *k, kr_value v);

/* The primitives of the old body in order (constants included), into a malloc'd array. */
unsigned ks_members(const ks_kernel *k, kr_op ***out);

/* Templates.  Each builds k->body completely (ending with kernel.return) and calls
 * ks_set_launch, or reports why it cannot (an error at the kernel: a bug of the template, since
 * every candidate inside the schedulability contract must be schedulable). */
kr_status ks_schedule_injective(ks_kernel *k); /* also "window" kernels (cum_sum, reduce_window) */
kr_status ks_schedule_reduction(ks_kernel *k);
kr_status ks_schedule_linear(ks_kernel *k);    /* matmul, conv, linear-direct */

/* ---------------------------------------------------------------------------------------------
 * Builder helpers (build.c).  All insert at b's insertion point and take the location `loc`
 * of the primitive (or kernel) they implement. */

typedef struct ks_builder {
  kr_builder b;
  kr_context *ctx;
  kr_attr loc;
} ks_builder;

void ks_builder_init(ks_builder *kb, kr_context *ctx, kr_block *at_end, kr_attr loc);
kr_type ks_index_type(ks_builder *kb);
kr_value ks_index(ks_builder *kb, int64_t c);                      /* arith.constant : index */
kr_value ks_const_int(ks_builder *kb, kr_type t, int64_t c);        /* integer constant of type t */
kr_value ks_const_float(ks_builder *kb, kr_type t, double c);       /* float constant of type t */
/* Index arithmetic with constant folding when both sides are arith.constant (and the usual
 * identities: x+0, x*1, x*0, x/1, x%1). */
kr_value ks_add(ks_builder *kb, kr_value a, kr_value b);
kr_value ks_sub(ks_builder *kb, kr_value a, kr_value b);
kr_value ks_mul(ks_builder *kb, kr_value a, kr_value b);
kr_value ks_div(ks_builder *kb, kr_value a, kr_value b);            /* divsi (non-negative operands) */
kr_value ks_rem(ks_builder *kb, kr_value a, kr_value b);            /* remsi */
kr_value ks_min(ks_builder *kb, kr_value a, kr_value b);            /* minsi */
kr_value ks_addc(ks_builder *kb, kr_value a, int64_t c);
kr_value ks_mulc(ks_builder *kb, kr_value a, int64_t c);
kr_value ks_divc(ks_builder *kb, kr_value a, int64_t c);
kr_value ks_remc(ks_builder *kb, kr_value a, int64_t c);
kr_value ks_cmp_lt(ks_builder *kb, kr_value a, kr_value b);         /* cmpi slt -> i1 */
kr_value ks_and(ks_builder *kb, kr_value a, kr_value b);            /* andi on i1 */
/* Whether v is an arith.constant integer/index; its value in *c. */
bool ks_const_value(kr_value v, int64_t *c);
/* Generic op creation: name, operands, result types (0 or 1 result), attributes as name/value
 * pairs (n_attrs pairs), regions. */
kr_op *ks_create(ks_builder *kb, const char *name, const kr_value *operands, unsigned n, kr_type result,
                 unsigned num_regions);
kr_value ks_create1(ks_builder *kb, const char *name, const kr_value *operands, unsigned n, kr_type result);

kr_value ks_thread_id(ks_builder *kb);  /* kernel.thread_id x */
kr_value ks_block_id(ks_builder *kb, unsigned dim);
kr_value ks_lane_id(ks_builder *kb);
kr_value ks_warp_id(ks_builder *kb);

/* kernel.for %i = lb to ub step s: returns the induction variable and moves kb's insertion
 * point into the body; ks_end restores the point after the loop op. */
typedef struct ks_scope {
  kr_op *op; /* the region op */
} ks_scope;
kr_value ks_for(ks_builder *kb, kr_value lb, kr_value ub, kr_value step, ks_scope *s);
kr_value ks_for_c(ks_builder *kb, int64_t lb, int64_t ub, int64_t step, ks_scope *s);
/* kernel.if cond { ... }: moves into the then region. ks_else moves into the else region. */
void ks_if(ks_builder *kb, kr_value cond, ks_scope *s);
void ks_else(ks_builder *kb, ks_scope *s);
/* kernel.map worker by mapping (task...): returns the task coordinates in task[rank]. */
void ks_map(ks_builder *kb, kr_value worker, const kr_task_mapping *m, kr_value *task, ks_scope *s);
void ks_end(ks_builder *kb, ks_scope *s);

kr_value ks_alloc(ks_builder *kb, kr_kernel_space space, unsigned rank, const int64_t *dims,
                  const int64_t *strides, kr_type elem);
/* The arith type an element of type `elem` computes as: the signless integer of the same width
 * for siN/uiN (arith has signless integers only; the op, not the type, is signed or unsigned),
 * else elem itself. */
kr_type ks_scalar_type(kr_context *ctx, kr_type elem);
/* kernel.load / kernel.store; `width` 1 (scalar) or 2/4 (vector along the last dim).  Loads give
 * ks_scalar_type of the buffer's element (a vector of it for width > 1). */
kr_value ks_load(ks_builder *kb, kr_value buf, const kr_value *index, unsigned width);
void ks_store(ks_builder *kb, kr_value value, kr_value buf, const kr_value *index);
void ks_barrier(ks_builder *kb);
kr_value ks_shuffle(ks_builder *kb, const char *mode, kr_value v, kr_value offset);
kr_value ks_vector_extract(ks_builder *kb, kr_value vec, unsigned pos);
kr_value ks_vector_from_elements(ks_builder *kb, const kr_value *elems, unsigned n);

/* The row-major linear index of `index` over dims[rank], and its inverse. */
kr_value ks_linearize(ks_builder *kb, const kr_value *index, const int64_t *dims, unsigned rank);
void ks_delinearize(ks_builder *kb, kr_value linear, const int64_t *dims, unsigned rank, kr_value *index);

/* ---------------------------------------------------------------------------------------------
 * The element emitter (emit_*.c): compute-inline of the kernel's primitives.
 *
 * ks_emit_element(e, v, index) emits, at the builder's insertion point, the scalar value of
 * element `index` (rank(v) index values) of tensor v, where v is a value of the old body: a
 * kernel argument (-> kernel.load from its global buffer), a splat or small constant (->
 * arith.constant / select chain), or the result of a primitive (-> its element rule applied to
 * the elements of its operands at mapped indices: elementwise ops become arith ops with the
 * primitive's exact semantics for its element type; layout ops become index maps; cum_sum and
 * reduce_window become a loop with a local accumulator; other reductions and linear ops are
 * reported unless overridden).  The scalar's type is v's element type (i1 for booleans).
 * Results are memoised per (value, index values) while the insertion block is the one they were
 * emitted in or nested in it, so shared sub-expressions are emitted once. */

typedef struct ks_emitter ks_emitter;
/* Supplies element `index` of `v` for a value a template computes itself (an accumulator, a
 * row-local reduction result, a staged tile). */
typedef kr_value (*ks_element_fn)(ks_emitter *e, void *user, kr_value v, const kr_value *index);

ks_emitter *ks_emitter_create(ks_kernel *k, ks_builder *kb);
void ks_emitter_destroy(ks_emitter *e);
void ks_emitter_override(ks_emitter *e, kr_value v, ks_element_fn fn, void *user);
kr_value ks_emit_element(ks_emitter *e, kr_value v, const kr_value *index);
/* `width` (2 or 4) consecutive elements along the last dim starting at `index` (whose last
 * component the caller guarantees is a multiple of width and in range): uses vector loads where
 * the index map keeps the last dim contiguous and aligned, scalar loads elsewhere.  Fills
 * out[width]; returns KR_FAILURE on an emitter error (reported). */
kr_status ks_emit_elements(ks_emitter *e, kr_value v, const kr_value *index, unsigned width, kr_value *out);
/* Whether every load that computing v needs keeps the last dim contiguous (so a vector of
 * `width` consecutive outputs reads vectors): the injective template vectorises only then. */
bool ks_emit_vectorizable(ks_emitter *e, kr_value v, unsigned width);
/* Whether the emitter can compute v by compute-inline (every primitive on the way back to the
 * kernel's inputs or overridden values has an element rule). */
bool ks_emit_supported(ks_emitter *e, kr_value v);
/* The emitter's builder (its insertion point is the caller's to move). */
ks_builder *ks_emitter_builder(ks_emitter *e);

#endif
