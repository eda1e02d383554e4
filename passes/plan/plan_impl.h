/* passes/plan/plan_impl.h - what the planner (plan.c) and the plan reader (read.c) share: a host
 * function analysed into its buffers and their lifetimes (korch/plan.h, docs/MemoryPlan.md).
 * Only the passes/plan sources include this. */
#ifndef KORCH_PASSES_PLAN_IMPL_H
#define KORCH_PASSES_PLAN_IMPL_H

#include "korch/adt.h"
#include "korch/plan.h"

/* What a buffer holds. */
typedef enum kr__plan_kind {
  KR__PLAN_ARG,     /* a func argument (arena) */
  KR__PLAN_RESULT,  /* a kernel.launch result (arena) */
  KR__PLAN_CONST,   /* a constant-like op a launch or the return uses (weights) */
} kr__plan_kind;

/* One tensor of the host function.  Times are positions of the ops in the body (0..num_ops-1),
 * -1 the upload of the inputs before the first op: two arena buffers may share bytes only when
 * their [start, end] intervals are disjoint (korch/plan.h "Lifetimes"). */
typedef struct kr__plan_buf {
  kr_value value;
  kr__plan_kind kind;
  kr_op *def;          /* the launch or constant; NULL for an argument */
  unsigned index;      /* argument or result number */
  int64_t start, end;  /* lifetime (arena buffers) */
  uint64_t bytes;      /* numel * storage bytes of the element */
  kr_type type;
} kr__plan_buf;

/* A host function, analysed.  Arrays are malloc'd (kr__plan_host_free). */
typedef struct kr__plan_host {
  kr_op *func;
  kr_block *body;
  kr_op *ret;                 /* the func.return */
  unsigned num_ops;
  kr_op **ops;                /* by position */
  kr__plan_buf *bufs;         /* arguments, then per op in order: launch results / used constants */
  unsigned num_bufs;
  unsigned num_launches;
  kr_hmap first_buf;          /* kr_op* -> (index of its first buffer) + 1 */
  kr_hmap pos;                /* kr_op* -> position + 1 */
} kr__plan_host;

/* Whether `op` is a host function: a func.func whose body holds a kernel.launch, or one without
 * launches whose single block holds only constant-like ops and the return, with tensor arguments
 * and returned values (an identity or constant graph; docs/MemoryPlan.md). */
bool kr__plan_is_host(kr_op *op);
/* Analyses host function `func`: checks that the body has only constant-like ops, launches and
 * the return, that every tensor it passes has a static ranked tensor type and that every used
 * constant is a dense/dense_resource attribute; errors are diagnostics at the op. */
kr_status kr__plan_host_init(kr__plan_host *h, kr_op *func);
void kr__plan_host_free(kr__plan_host *h);
/* The buffer of value `v` of the host body (an argument, a launch result or a constant), or NULL. */
kr__plan_buf *kr__plan_buf_of(kr__plan_host *h, kr_value v);
/* "argument 2", "result 0 of kernel.launch @main_k3", "constant" into buf (for diagnostics). */
void kr__plan_describe(const kr__plan_buf *b, char *buf, size_t size);
/* The name of the time point `t` ("the upload of the inputs", "launch @k", "the return"). */
void kr__plan_describe_time(const kr__plan_host *h, int64_t t, char *buf, size_t size);

/* kr_plan_read; `overlap_checks` false skips the check that live buffers do not overlap (only
 * korch-interp --unchecked-plan does, to show what an aliasing plan computes). */
kr_status kr__plan_read(kr_op *func, struct kr_arena *arena, kr_plan *out, bool overlap_checks);

static inline uint64_t kr__plan_align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

#endif
