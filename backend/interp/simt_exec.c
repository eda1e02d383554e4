/* backend/interp/simt_exec.c - runs the SIMT bytecode of a scheduled kernel on a CPU model of
 * the GPU (backend/interp/simt.h, docs/Interpreter.md "SIMT").
 *
 * Blocks run one by one.  Within a block each thread runs from its pc until it reaches a
 * kernel.barrier, a kernel.shuffle or the end of the kernel; then the next thread runs.  When no
 * thread can run: a warp whose lanes all wait at the same shuffle exchanges and continues; when
 * every thread of the block waits at the same barrier the barrier releases (a new barrier
 * interval); anything else is a barrier/shuffle not reached by all threads - an error, as it is
 * undefined behaviour on the GPU (CUDA __syncthreads in divergent code, shfl.sync with a full
 * mask missing lanes).
 *
 * Checked mode (kr_interp_options.simt_checks) runs the threads of each barrier interval in a
 * seeded shuffled order, since real GPUs schedule warps independently and lock-step execution
 * hides races, and keeps shadow state per shared element per barrier interval to report
 * read-after-write, write-after-read and write-after-write races between different threads.
 * Out-of-bounds indices, misaligned vector accesses and stores into input buffers are checked in
 * both modes.  Output tensors and shared/local memory start filled with 0xFF bytes (NaN for
 * floats) so elements a schedule never writes, or reads before writing, show. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/interp/simt.h"
#include "korch/diag.h"
#include "korch/op.h"

enum { T_READY, T_BARRIER, T_SHUFFLE, T_DONE };

typedef struct thread {
  int64_t pc;
  int state;
  int32_t tid[3];
  int32_t linear;
  simt_reg *R;
  unsigned char *local;
} thread;

/* Shadow state of one shared element in the current barrier interval (epoch). */
typedef struct shadow {
  uint32_t epoch;
  int16_t writer, reader, reader2; /* -1: none; reader2: a second distinct reader */
  int32_t wpc, rpc;
} shadow;

typedef struct map_rt {
  int64_t workers, tasks;
  int64_t *table; /* [worker][task][rank] when small enough, else NULL */
} map_rt;

typedef struct exec {
  const simt_program *p;
  simt_session *s;
  unsigned nin;
  unsigned char **gbase; /* per buffer: global data (NULL for shared/local) */
  unsigned char **base;  /* per buffer: global data or the shared arena's (NULL for local) */
  uint64_t *gvaddr;      /* per buffer: virtual address for the memory report */
  unsigned char *shared;
  int64_t bid[3];
  thread *th;
  unsigned nth;
  bool checks, report;
  shadow *sh;
  uint32_t epoch;
  map_rt *maps;
  int64_t **gwriter; /* checks: per output buffer, per element: the first writer (block * nth +
                      * thread) or -1 */
  kr_op *launch;
  uint32_t *occ; /* report: [thread][access] occurrence counts */
  kr_vec *recs;  /* report: per warp, simt_rec */
  kr_simt_kernel_stats *st;
  uint64_t steps, max_steps; /* thread starts + loop back-edges run so far, and the budget (0: none) */
} exec;

/* ---------------------------------------------------------------------------------------------
 * Diagnostics */

static void buf_name(const exec *X, unsigned bi, char *out, size_t cap) {
  const simt_buf *b = &X->p->bufs[bi];
  if (b->arg >= 0) {
    bool in = (unsigned)b->arg < X->nin;
    snprintf(out, cap, "global buffer #%d (%s #%u)", b->arg, in ? "input" : "output",
             in ? (unsigned)b->arg : (unsigned)b->arg - X->nin);
  } else {
    unsigned k = 0;
    for (unsigned i = 0; i < bi; i++) k += X->p->bufs[i].space == b->space;
    snprintf(out, cap, "%s buffer #%u", kr_kernel_space_name(b->space), k);
  }
}

static int where(const exec *X, const thread *T, char *out, size_t cap) {
  return snprintf(out, cap, "block (%lld, %lld, %lld), thread (%d, %d, %d)", (long long)X->bid[0], (long long)X->bid[1],
                  (long long)X->bid[2], T->tid[0], T->tid[1], T->tid[2]);
}

__attribute__((format(printf, 4, 5))) static kr_status thread_error(const exec *X, const thread *T, int64_t pc,
                                                                    const char *fmt, ...) {
  char msg[768], w[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  where(X, T, w, sizeof w);
  return kr_op_emit_error(X->p->ops[pc], "%s (%s)", msg, w);
}

/* "[i, j, k]" of an access's indices, with `extra` added to the last one. */
static void index_text(const exec *X, const thread *T, const simt_ins *I, int64_t extra, char *out, size_t cap) {
  const simt_buf *b = &X->p->bufs[I->a];
  size_t n = 0;
  n += (size_t)snprintf(out + n, cap - n, "[");
  for (unsigned k = 0; k < b->rank && n < cap; k++)
    n += (size_t)snprintf(out + n, cap - n, "%s%lld", k ? ", " : "",
                          (long long)(T->R[X->p->idx[I->b + k]].i + (k + 1 == b->rank ? extra : 0)));
  if (n < cap) snprintf(out + n, cap - n, "]");
}

/* ---------------------------------------------------------------------------------------------
 * Memory access slow paths: race shadow state and the memory report. */

static kr_status race_error(exec *X, thread *T, int64_t pc, const simt_ins *I, unsigned e, const char *kind,
                            const char *verb, int other, int32_t other_pc, const char *other_verb) {
  char bn[96], ix[160], w[128];
  buf_name(X, (unsigned)I->a, bn, sizeof bn);
  index_text(X, T, I, e, ix, sizeof ix);
  where(X, T, w, sizeof w);
  const thread *O = &X->th[other];
  kr_diagnostic *d = kr_op_diag_begin(X->p->ops[pc], KR_SEV_ERROR,
                                      "shared-memory race (%s) on %s element %s: thread (%d, %d, %d) %s it after "
                                      "thread (%d, %d, %d) %s it with no barrier in between (%s)",
                                      kind, bn, ix, T->tid[0], T->tid[1], T->tid[2], verb, O->tid[0], O->tid[1],
                                      O->tid[2], other_verb, w);
  if (d) {
    kr_diag_note(d, X->p->ops[other_pc]->loc, "thread (%d, %d, %d) %s it here", O->tid[0], O->tid[1], O->tid[2],
                 other_verb);
    kr_diag_report(d);
  }
  return KR_FAILURE;
}

/* Shadow update of a shared access of n elements at element offset `off`. */
static kr_status check_race(exec *X, thread *T, int64_t pc, const simt_ins *I, int64_t off, unsigned n, bool store) {
  const simt_buf *b = &X->p->bufs[I->a];
  int16_t t = (int16_t)T->linear;
  for (unsigned e = 0; e < n; e++) {
    shadow *s = &X->sh[b->shadow_base + off + e];
    if (s->epoch != X->epoch) {
      s->epoch = X->epoch;
      s->writer = s->reader = s->reader2 = -1;
    }
    if (!store) {
      if (s->writer >= 0 && s->writer != t)
        return race_error(X, T, pc, I, e, "read-after-write", "reads", s->writer, s->wpc, "wrote");
      if (s->reader < 0) {
        s->reader = t;
        s->rpc = (int32_t)pc;
      } else if (s->reader != t && s->reader2 < 0) {
        s->reader2 = t;
      }
    } else {
      if (s->writer >= 0 && s->writer != t)
        return race_error(X, T, pc, I, e, "write-after-write", "writes", s->writer, s->wpc, "wrote");
      if (s->reader >= 0 && (s->reader != t || s->reader2 >= 0)) {
        int other = s->reader != t ? s->reader : s->reader2;
        return race_error(X, T, pc, I, e, "write-after-read", "writes", other, s->rpc, "read");
      }
      s->writer = t;
      s->wpc = (int32_t)pc;
    }
  }
  return KR_SUCCESS;
}

static inline void store_elem(const simt_buf *b, unsigned char *m, const simt_reg *r);

/* "(x, y, z)" of block-linear*nth+thread id `w`. */
static void writer_text(const exec *X, int64_t w, char *out, size_t cap) {
  const simt_program *P = X->p;
  int64_t b = w / X->nth, t = w % X->nth;
  snprintf(out, cap, "block (%lld, %lld, %lld), thread (%lld, %lld, %lld)", (long long)(b % P->grid[0]),
           (long long)(b / P->grid[0] % P->grid[1]), (long long)(b / (P->grid[0] * P->grid[1])),
           (long long)(t % P->block[0]), (long long)(t / P->block[0] % P->block[1]),
           (long long)(t / (P->block[0] * P->block[1])));
}

/* Checked mode, a store of n elements at element offset `off` of output buffer I->a (memory at
 * m): every output element must be written by one thread (the schedulability contract,
 * passes/schedule/schedule.h); another thread writing a different value is a race. */
static kr_status check_output_write(exec *X, thread *T, int64_t pc, const simt_ins *I, const unsigned char *m,
                                    int64_t off, unsigned n) {
  const simt_buf *b = &X->p->bufs[I->a];
  int64_t me = ((X->bid[2] * X->p->grid[1] + X->bid[1]) * X->p->grid[0] + X->bid[0]) * X->nth + T->linear;
  for (unsigned e = 0; e < n; e++) {
    int64_t *w = &X->gwriter[I->a][off + e];
    if (*w < 0 || *w == me) {
      *w = me;
      continue;
    }
    unsigned char now[8];
    store_elem(b, now, &T->R[I->d + (int32_t)e]);
    if (!memcmp(now, m + (off + e) * (int64_t)b->esize, b->esize)) continue; /* an identical duplicate */
    char bn[96], ix[160], other[160];
    buf_name(X, (unsigned)I->a, bn, sizeof bn);
    index_text(X, T, I, e, ix, sizeof ix);
    writer_text(X, *w, other, sizeof other);
    return thread_error(X, T, pc,
                        "global write-after-write race on %s element %s: this thread writes a different value "
                        "than %s wrote (each output element must be written by one thread)",
                        bn, ix, other);
  }
  return KR_SUCCESS;
}

/* Checked mode, after the grid: every output element must have been written. */
static kr_status check_outputs_written(exec *X) {
  for (unsigned i = 0; i < X->p->nbufs; i++) {
    const int64_t *w = X->gwriter[i];
    if (!w) continue;
    const simt_buf *b = &X->p->bufs[i];
    int64_t first = -1, count = 0;
    for (int64_t k = 0; k < b->span; k++)
      if (w[k] < 0 && count++ == 0) first = k;
    if (!count) continue;
    char bn[96], ix[160];
    buf_name(X, i, bn, sizeof bn);
    size_t n = (size_t)snprintf(ix, sizeof ix, "[");
    for (unsigned d = 0; d < b->rank && n < sizeof ix; d++)
      n += (size_t)snprintf(ix + n, sizeof ix - n, "%s%lld", d ? ", " : "",
                            (long long)(first / b->strides[d] % b->dims[d]));
    if (n < sizeof ix) snprintf(ix + n, sizeof ix - n, "]");
    return kr_op_emit_error(X->launch, "the kernel never wrote %lld of the %lld elements of %s (the first: %s)",
                            (long long)count, (long long)b->span, bn, ix);
  }
  return KR_SUCCESS;
}

static void record(exec *X, thread *T, const simt_ins *I, int64_t off, unsigned n) {
  const simt_buf *b = &X->p->bufs[I->a];
  simt_rec r;
  r.acc = (uint32_t)I->c;
  r.occ = X->occ[(size_t)T->linear * X->p->nacc + (size_t)I->c]++;
  r.lane = (uint32_t)(T->linear % KR_KERNEL_WARP_SIZE);
  r.bytes = n * b->esize;
  r.addr = (b->space == KR_KERNEL_SPACE_GLOBAL ? X->gvaddr[I->a] : (uint64_t)b->offset) + (uint64_t)off * b->esize;
  kr_vec_push(&X->recs[T->linear / KR_KERNEL_WARP_SIZE], &r, sizeof r);
}

/* ---------------------------------------------------------------------------------------------
 * Element loads and stores */

static inline void load_elem(const simt_buf *b, const unsigned char *m, simt_reg *r) {
  switch (b->kind) {
  case SE_F32: memcpy(&r->f, m, 4); break;
  case SE_F64: memcpy(&r->d, m, 8); break;
  case SE_F16:
  case SE_BF16: {
    uint16_t h;
    memcpy(&h, m, 2);
    r->f = b->kind == SE_F16 ? kr_f16_to_f32(h) : kr_bf16_to_f32(h);
    break;
  }
  case SE_I1: r->i = m[0] != 0; break;
  case SE_I8:
  case SE_U8: r->i = (int8_t)m[0]; break;
  case SE_I16:
  case SE_U16: {
    int16_t v;
    memcpy(&v, m, 2);
    r->i = v;
    break;
  }
  case SE_I32:
  case SE_U32: {
    int32_t v;
    memcpy(&v, m, 4);
    r->i = v;
    break;
  }
  case SE_I64: memcpy(&r->i, m, 8); break;
  case SE_IOTHER: {
    uint64_t v = 0;
    for (unsigned k = 0; k < b->esize && k < 8; k++) v |= (uint64_t)m[k] << (8 * k);
    r->i = simt_norm(v, b->width);
    break;
  }
  }
}

static inline void store_elem(const simt_buf *b, unsigned char *m, const simt_reg *r) {
  switch (b->kind) {
  case SE_F32: memcpy(m, &r->f, 4); break;
  case SE_F64: memcpy(m, &r->d, 8); break;
  case SE_F16:
  case SE_BF16: {
    uint16_t h = b->kind == SE_F16 ? kr_f32_to_f16(r->f) : kr_f32_to_bf16(r->f);
    memcpy(m, &h, 2);
    break;
  }
  case SE_I1: m[0] = (unsigned char)(r->i & 1); break;
  default:
    for (unsigned k = 0; k < b->esize; k++) m[k] = (unsigned char)(k < 8 ? (uint64_t)r->i >> (8 * k) : 0);
    break;
  }
}

/* ---------------------------------------------------------------------------------------------
 * The per-thread interpreter loop */

static void map_task(const exec *X, const simt_ins *I, simt_reg *R, int64_t w, int64_t k) {
  const kr_task_mapping *m = &X->p->maps[I->c];
  const map_rt *rt = &X->maps[I->c];
  if (rt->table) {
    const int64_t *t = rt->table + (size_t)(w * rt->tasks + k) * m->rank;
    for (unsigned i = 0; i < m->rank; i++) R[I->d + (int32_t)i].i = t[i];
    return;
  }
  int64_t task[KR_KERNEL_MAX_RANK];
  kr_task_mapping_task(m, w, k, task);
  for (unsigned i = 0; i < m->rank; i++) R[I->d + (int32_t)i].i = task[i];
}

static float maxf(float a, float b, bool max) {
  if (a != a || b != b) return a != a ? a : b;
  if (a == b) return (signbit(a) != 0) == max ? b : a;
  return (a > b) == max ? a : b;
}
static double maxd(double a, double b, bool max) {
  if (a != a || b != b) return a != a ? a : b;
  if (a == b) return (signbit(a) != 0) == max ? b : a;
  return (a > b) == max ? a : b;
}

/* The step budget (kr_interp_options.simt_max_steps): counted at thread starts and loop
 * back-edges, so a kernel that would run for hours on the CPU (a 2^40-trip loop, a grid of 2^60
 * threads) stops with an error instead of hanging. */
static inline bool over_budget(exec *X) { return ++X->steps > X->max_steps && X->max_steps; }

static kr_status budget_error(exec *X, thread *T, int64_t pc) {
  return thread_error(X, T, pc,
                      "the launch exceeds the interpreter's budget of %llu steps (thread starts and loop "
                      "iterations; raise it with --simt-max-steps, 0 for no limit)",
                      (unsigned long long)X->max_steps);
}

/* Runs T until it waits or ends; KR_FAILURE after reporting an error. */
static kr_status run_thread(exec *X, thread *T) {
  const simt_program *P = X->p;
  const simt_ins *code = P->code;
  const simt_buf *bufs = P->bufs;
  const int32_t *idx = P->idx;
  simt_reg *R = T->R;
  int64_t pc = T->pc;
  const bool slow = X->checks || X->report;
  for (;;) {
    const simt_ins *I = &code[pc];
    switch ((simt_opcode)I->op) {
    case SO_END:
      T->state = T_DONE;
      T->pc = pc;
      return KR_SUCCESS;
    case SO_JMP:
      if (I->imm <= pc && over_budget(X)) return budget_error(X, T, pc);
      pc = I->imm;
      continue;
    case SO_JZ: pc = (R[I->a].i & 1) ? pc + 1 : I->imm; continue;
    case SO_FOR_INIT: {
      if (R[I->c].i <= 0) return thread_error(X, T, pc, "loop step %lld is not positive", (long long)R[I->c].i);
      R[I->d].i = R[I->a].i;
      pc = R[I->a].i < R[I->b].i ? pc + 1 : I->imm;
      continue;
    }
    case SO_FOR_NEXT: {
      int64_t v = R[I->d].i + R[I->c].i;
      R[I->d].i = v;
      if (v < R[I->b].i) {
        if (over_budget(X)) return budget_error(X, T, pc);
        pc = I->imm;
      } else {
        pc++;
      }
      continue;
    }
    case SO_MAP_INIT: {
      int64_t w = R[I->a].i;
      const map_rt *rt = &X->maps[I->c];
      if (w < 0 || w >= rt->workers || rt->tasks == 0) {
        pc = I->imm;
        continue;
      }
      R[I->b].i = 0;
      map_task(X, I, R, w, 0);
      pc++;
      continue;
    }
    case SO_MAP_NEXT: {
      int64_t k = ++R[I->b].i;
      if (k < X->maps[I->c].tasks) {
        if (over_budget(X)) return budget_error(X, T, pc);
        map_task(X, I, R, R[I->a].i, k);
        pc = I->imm;
      } else {
        pc++;
      }
      continue;
    }
    case SO_BARRIER:
      T->state = T_BARRIER;
      T->pc = pc;
      return KR_SUCCESS;
    case SO_SHUFFLE:
      T->state = T_SHUFFLE;
      T->pc = pc;
      return KR_SUCCESS;
    case SO_TID: R[I->d].i = T->tid[I->aux]; break;
    case SO_BID: R[I->d].i = X->bid[I->aux]; break;
    case SO_BDIM: R[I->d].i = P->block[I->aux]; break;
    case SO_GDIM: R[I->d].i = P->grid[I->aux]; break;
    case SO_LANE: R[I->d].i = T->linear % KR_KERNEL_WARP_SIZE; break;
    case SO_WARP: R[I->d].i = T->linear / KR_KERNEL_WARP_SIZE; break;
    case SO_LOADF32:
    case SO_STOREF32:
      if (!slow) {
        /* The fast path: scalar f32, no race checks, no report.  Anything unusual (an index out
         * of range, a store into an input) takes the generic path below, which reports it. */
        const simt_buf *b = &bufs[I->a];
        const int32_t *ix = idx + I->b;
        int64_t off = 0;
        unsigned k = 0;
        for (; k < b->rank; k++) {
          uint64_t v = R[ix[k]].u;
          if (v >= (uint64_t)b->dims[k]) break;
          off += (int64_t)v * b->strides[k];
        }
        if (k == b->rank) {
          float *m = (float *)(b->space == KR_KERNEL_SPACE_LOCAL ? T->local + b->offset : X->base[I->a]) + off;
          if (I->op == SO_LOADF32) {
            R[I->d].f = *m;
            break;
          }
          if (!(b->arg >= 0 && (unsigned)b->arg < X->nin)) {
            *m = R[I->d].f;
            break;
          }
        }
      }
      /* fall through */
    case SO_LOAD:
    case SO_STORE: {
      const bool is_store = I->op == SO_STORE || I->op == SO_STOREF32;
      const simt_buf *b = &bufs[I->a];
      const int32_t *ix = idx + I->b;
      unsigned n = I->aux;
      int64_t off = 0;
      for (unsigned k = 0; k < b->rank; k++) {
        int64_t v = R[ix[k]].i;
        int64_t lim = b->dims[k] - (k + 1 == b->rank ? (int64_t)n - 1 : 0);
        if (v < 0 || v >= lim) {
          char bn[96], it[160], dm[160];
          buf_name(X, (unsigned)I->a, bn, sizeof bn);
          index_text(X, T, I, 0, it, sizeof it);
          size_t nd = (size_t)snprintf(dm, sizeof dm, "[");
          for (unsigned j = 0; j < b->rank && nd < sizeof dm; j++)
            nd += (size_t)snprintf(dm + nd, sizeof dm - nd, "%s%lld", j ? ", " : "", (long long)b->dims[j]);
          if (nd < sizeof dm) snprintf(dm + nd, sizeof dm - nd, "]");
          return thread_error(X, T, pc, "out-of-bounds %s: index %s%s is outside the dims %s of %s",
                              is_store ? "store" : "load", it,
                              n > 1 ? (n == 2 ? " (vector of 2)" : " (vector of 4)") : "", dm, bn);
        }
        off += v * b->strides[k];
      }
      if (n > 1 && off % n) {
        char bn[96], it[160];
        buf_name(X, (unsigned)I->a, bn, sizeof bn);
        index_text(X, T, I, 0, it, sizeof it);
        return thread_error(X, T, pc,
                            "misaligned vector %s of %u elements at index %s of %s: element offset %lld is not a "
                            "multiple of %u",
                            is_store ? "store" : "load", n, it, bn, (long long)off, n);
      }
      unsigned char *m;
      if (b->space == KR_KERNEL_SPACE_GLOBAL) {
        if (is_store && (unsigned)b->arg < X->nin) {
          char bn[96], it[160];
          buf_name(X, (unsigned)I->a, bn, sizeof bn);
          index_text(X, T, I, 0, it, sizeof it);
          return thread_error(X, T, pc, "store into input %s at index %s: launch operands are read-only", bn, it);
        }
        m = X->gbase[I->a];
      } else if (b->space == KR_KERNEL_SPACE_SHARED) {
        m = X->shared + b->offset;
      } else {
        m = T->local + b->offset;
      }
      if (slow && b->space != KR_KERNEL_SPACE_LOCAL) {
        if (X->checks && b->space == KR_KERNEL_SPACE_SHARED && check_race(X, T, pc, I, off, n, is_store))
          return KR_FAILURE;
        if (X->checks && is_store && X->gwriter[I->a] && check_output_write(X, T, pc, I, m, off, n)) return KR_FAILURE;
        if (X->report) record(X, T, I, off, n);
      }
      m += off * (int64_t)b->esize;
      if (!is_store) {
        if (b->kind == SE_F32 && n == 1)
          memcpy(&R[I->d].f, m, 4);
        else
          for (unsigned e = 0; e < n; e++) load_elem(b, m + e * b->esize, &R[I->d + (int32_t)e]);
      } else {
        if (b->kind == SE_F32 && n == 1)
          memcpy(m, &R[I->d].f, 4);
        else
          for (unsigned e = 0; e < n; e++) store_elem(b, m + e * b->esize, &R[I->d + (int32_t)e]);
      }
      break;
    }
    case SO_MOV: R[I->d] = R[I->a]; break;
    case SO_ADDI: R[I->d].i = simt_norm(R[I->a].u + R[I->b].u, I->w); break;
    case SO_SUBI: R[I->d].i = simt_norm(R[I->a].u - R[I->b].u, I->w); break;
    case SO_MULI: R[I->d].i = simt_norm(R[I->a].u * R[I->b].u, I->w); break;
    case SO_DIVSI: {
      int64_t a = simt_sext(R[I->a].i, I->w), b = simt_sext(R[I->b].i, I->w);
      /* x / 0 = 0 (undefined in arith; no crash); INT64_MIN / -1 wraps to INT64_MIN. */
      R[I->d].i = b == 0 ? 0 : b == -1 ? simt_norm(0 - (uint64_t)a, I->w) : simt_norm((uint64_t)(a / b), I->w);
      break;
    }
    case SO_DIVUI: {
      uint64_t a = simt_zext(R[I->a].i, I->w), b = simt_zext(R[I->b].i, I->w);
      R[I->d].i = b == 0 ? 0 : simt_norm(a / b, I->w);
      break;
    }
    case SO_REMSI: {
      int64_t a = simt_sext(R[I->a].i, I->w), b = simt_sext(R[I->b].i, I->w);
      R[I->d].i = b == 0 || b == -1 ? 0 : simt_norm((uint64_t)(a % b), I->w);
      break;
    }
    case SO_REMUI: {
      uint64_t a = simt_zext(R[I->a].i, I->w), b = simt_zext(R[I->b].i, I->w);
      R[I->d].i = b == 0 ? 0 : simt_norm(a % b, I->w);
      break;
    }
    case SO_ANDI: R[I->d].i = R[I->a].i & R[I->b].i; break;
    case SO_ORI: R[I->d].i = R[I->a].i | R[I->b].i; break;
    case SO_XORI: R[I->d].i = simt_norm(R[I->a].u ^ R[I->b].u, I->w); break;
    /* Shifts by >= the width clamp as PTX shl/shr do: 0, or the sign for shrsi. */
    case SO_SHLI: {
      uint64_t s = simt_zext(R[I->b].i, I->w);
      R[I->d].i = s >= I->w ? 0 : simt_norm(R[I->a].u << s, I->w);
      break;
    }
    case SO_SHRUI: {
      uint64_t s = simt_zext(R[I->b].i, I->w);
      R[I->d].i = s >= I->w ? 0 : simt_norm(simt_zext(R[I->a].i, I->w) >> s, I->w);
      break;
    }
    case SO_SHRSI: {
      uint64_t s = simt_zext(R[I->b].i, I->w);
      int64_t a = simt_sext(R[I->a].i, I->w);
      R[I->d].i = simt_norm((uint64_t)(a >> (s >= I->w ? (uint64_t)I->w - 1 : s)), I->w);
      break;
    }
    case SO_MAXSI: R[I->d].i = simt_sext(R[I->a].i, I->w) >= simt_sext(R[I->b].i, I->w) ? R[I->a].i : R[I->b].i; break;
    case SO_MINSI: R[I->d].i = simt_sext(R[I->a].i, I->w) <= simt_sext(R[I->b].i, I->w) ? R[I->a].i : R[I->b].i; break;
    case SO_MAXUI: R[I->d].i = simt_zext(R[I->a].i, I->w) >= simt_zext(R[I->b].i, I->w) ? R[I->a].i : R[I->b].i; break;
    case SO_MINUI: R[I->d].i = simt_zext(R[I->a].i, I->w) <= simt_zext(R[I->b].i, I->w) ? R[I->a].i : R[I->b].i; break;
    case SO_CMPI: R[I->d].i = simt_cmpi(I->aux, R[I->a].i, R[I->b].i, I->w); break;
    case SO_SELECT: R[I->d] = (R[I->a].i & 1) ? R[I->b] : R[I->c]; break;
    case SO_ABSI: {
      int64_t a = simt_sext(R[I->a].i, I->w);
      R[I->d].i = simt_norm(a < 0 ? 0 - (uint64_t)a : (uint64_t)a, I->w);
      break;
    }
    case SO_SEXT: R[I->d].i = simt_norm((uint64_t)simt_sext(R[I->a].i, I->aux), I->w); break;
    case SO_ZEXT: R[I->d].i = simt_norm(simt_zext(R[I->a].i, I->aux), I->w); break;
    case SO_ADDF32: R[I->d].f = R[I->a].f + R[I->b].f; break;
    case SO_SUBF32: R[I->d].f = R[I->a].f - R[I->b].f; break;
    case SO_MULF32: R[I->d].f = R[I->a].f * R[I->b].f; break;
    case SO_DIVF32: R[I->d].f = R[I->a].f / R[I->b].f; break;
    case SO_NEGF32: R[I->d].f = -R[I->a].f; break;
    case SO_FMA32: R[I->d].f = fmaf(R[I->a].f, R[I->b].f, R[I->c].f); break;
    case SO_CMPF32: R[I->d].i = simt_cmpf(I->aux, R[I->a].f, R[I->b].f); break;
    case SO_ADDF64: R[I->d].d = R[I->a].d + R[I->b].d; break;
    case SO_SUBF64: R[I->d].d = R[I->a].d - R[I->b].d; break;
    case SO_MULF64: R[I->d].d = R[I->a].d * R[I->b].d; break;
    case SO_DIVF64: R[I->d].d = R[I->a].d / R[I->b].d; break;
    case SO_NEGF64: R[I->d].d = -R[I->a].d; break;
    case SO_FMA64: R[I->d].d = fma(R[I->a].d, R[I->b].d, R[I->c].d); break;
    case SO_CMPF64: R[I->d].i = simt_cmpf(I->aux, R[I->a].d, R[I->b].d); break;
    case SO_MAXF:
    case SO_MINF:
      if (I->aux)
        R[I->d].d = maxd(R[I->a].d, R[I->b].d, I->op == SO_MAXF);
      else
        R[I->d].f = maxf(R[I->a].f, R[I->b].f, I->op == SO_MAXF);
      break;
    case SO_ROUND16: R[I->d].f = simt_round16(R[I->a].f, I->aux); break;
    case SO_MATH1:
    case SO_MATH2: simt_do_math(I, R); break;
    case SO_CAST: simt_do_cast(I, R); break;
    case SO_ADDI64: R[I->d].u = R[I->a].u + R[I->b].u; break;
    case SO_SUBI64: R[I->d].u = R[I->a].u - R[I->b].u; break;
    case SO_MULI64: R[I->d].u = R[I->a].u * R[I->b].u; break;
    /* Division by a positive constant: the common non-negative operand below 2^32 divides in
     * 32 bits (several times faster than a 64-bit idiv). */
    case SO_DIVSI_C: {
      int64_t a = R[I->a].i;
      R[I->d].i =
          (uint64_t)a <= UINT32_MAX && I->imm <= UINT32_MAX ? (int64_t)((uint32_t)a / (uint32_t)I->imm) : a / I->imm;
      break;
    }
    case SO_REMSI_C: {
      int64_t a = R[I->a].i;
      R[I->d].i =
          (uint64_t)a <= UINT32_MAX && I->imm <= UINT32_MAX ? (int64_t)((uint32_t)a % (uint32_t)I->imm) : a % I->imm;
      break;
    }
    case SO_CMPI64_EQ: R[I->d].i = R[I->a].i == R[I->b].i; break;
    case SO_CMPI64_NE: R[I->d].i = R[I->a].i != R[I->b].i; break;
    case SO_CMPI64_SLT: R[I->d].i = R[I->a].i < R[I->b].i; break;
    case SO_CMPI64_SLE: R[I->d].i = R[I->a].i <= R[I->b].i; break;
    case SO_CMPI64_SGT: R[I->d].i = R[I->a].i > R[I->b].i; break;
    case SO_CMPI64_SGE: R[I->d].i = R[I->a].i >= R[I->b].i; break;
    case SO_CMPI64_ULT: R[I->d].i = R[I->a].u < R[I->b].u; break;
    case SO_CMPI64_ULE: R[I->d].i = R[I->a].u <= R[I->b].u; break;
    case SO_CMPI64_UGT: R[I->d].i = R[I->a].u > R[I->b].u; break;
    case SO_CMPI64_UGE: R[I->d].i = R[I->a].u >= R[I->b].u; break;
    case SO_COUNT:
    default: return thread_error(X, T, pc, "internal error: bad opcode");
    }
    pc++;
  }
}

/* ---------------------------------------------------------------------------------------------
 * The block scheduler */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void shuffle_order(unsigned *order, unsigned n, uint64_t *rng) {
  for (unsigned i = n; i > 1; i--) {
    unsigned j = (unsigned)(splitmix(rng) % i);
    unsigned t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
}

static const char *state_text(const exec *X, const thread *T, char *buf, size_t cap) {
  if (T->state == T_DONE) return "has finished the kernel";
  kr_attr loc = X->p->ops[T->pc]->loc;
  kr_attr f = kr_loc_find_file(loc);
  if (f && f->kind == KR_ATTR_LOCATION)
    snprintf(buf, cap, "waits at the %s at line %u", T->state == T_BARRIER ? "barrier" : "shuffle", f->u.loc.line);
  else
    snprintf(buf, cap, "waits at another %s", T->state == T_BARRIER ? "barrier" : "shuffle");
  return buf;
}

/* A warp: all its lanes wait at the same shuffle -> exchange.  Returns 1 when released, 0 when
 * not (yet), -1 on error. */
static int try_shuffle(exec *X, unsigned w) {
  unsigned lo = w * KR_KERNEL_WARP_SIZE, hi = lo + KR_KERNEL_WARP_SIZE;
  if (hi > X->nth) hi = X->nth;
  thread *first = NULL;
  for (unsigned t = lo; t < hi; t++)
    if (X->th[t].state == T_SHUFFLE) {
      first = &X->th[t];
      break;
    }
  if (!first) return 0;
  for (unsigned t = lo; t < hi; t++) {
    thread *T = &X->th[t];
    if (T->state == T_READY) return 0;
    if (T->state != T_SHUFFLE || T->pc != first->pc) {
      char s[160], w1[128], w2[128];
      where(X, first, w1, sizeof w1);
      where(X, T, w2, sizeof w2);
      kr_op_emit_error(X->p->ops[first->pc],
                       "shuffle not reached by all lanes of warp %u: %s waits here but lane %u (%s) %s", w, w1, t - lo,
                       w2, state_text(X, T, s, sizeof s));
      return -1;
    }
  }
  const simt_ins *I = &X->p->code[first->pc];
  simt_reg vals[KR_KERNEL_WARP_SIZE];
  unsigned n = hi - lo;
  for (unsigned l = 0; l < n; l++) {
    thread *T = &X->th[lo + l];
    int64_t off = T->R[I->b].i, src;
    switch (I->aux) {
    case 0: src = (int64_t)l ^ off; break;
    case 1: src = (int64_t)l + off; break;
    case 2: src = (int64_t)l - off; break;
    default: src = off; break;
    }
    /* A source lane outside the warp (or past the block's last thread) gives the own value. */
    vals[l] = src >= 0 && src < (int64_t)n ? X->th[lo + src].R[I->a] : T->R[I->a];
  }
  for (unsigned l = 0; l < n; l++) {
    thread *T = &X->th[lo + l];
    T->R[I->d] = vals[l];
    T->pc++;
    T->state = T_READY;
  }
  return 1;
}

static void flush_report(exec *X) {
  unsigned nw = (X->nth + KR_KERNEL_WARP_SIZE - 1) / KR_KERNEL_WARP_SIZE;
  for (unsigned w = 0; w < nw; w++) {
    simt_report_warp(X->p, KR_VEC_DATA(&X->recs[w], simt_rec), X->recs[w].len, X->st);
    X->recs[w].len = 0;
  }
  memset(X->occ, 0, (size_t)X->nth * X->p->nacc * sizeof *X->occ);
}

static kr_status run_block(exec *X, unsigned *order, uint64_t *rng) {
  const simt_program *P = X->p;
  if (P->shared_bytes) memset(X->shared, 0xFF, (size_t)P->shared_bytes);
  for (unsigned t = 0; t < X->nth; t++) {
    thread *T = &X->th[t];
    T->pc = 0;
    T->state = T_READY;
    if (P->local_bytes) memset(T->local, 0xFF, (size_t)P->local_bytes);
  }
  X->steps += X->nth;
  if (X->max_steps && X->steps > X->max_steps) return budget_error(X, &X->th[0], 0);
  if (++X->epoch == 0) { /* wrapped: stale entries could look current */
    if (X->sh) memset(X->sh, 0, (size_t)P->shadow_elems * sizeof *X->sh);
    X->epoch = 1;
  }
  unsigned nw = (X->nth + KR_KERNEL_WARP_SIZE - 1) / KR_KERNEL_WARP_SIZE;
  for (;;) {
    if (X->checks) shuffle_order(order, X->nth, rng);
    bool progress = true;
    while (progress) {
      for (unsigned i = 0; i < X->nth; i++) {
        thread *T = &X->th[order[i]];
        if (T->state == T_READY && run_thread(X, T)) return KR_FAILURE;
      }
      progress = false;
      for (unsigned w = 0; w < nw; w++) {
        int r = try_shuffle(X, w);
        if (r < 0) return KR_FAILURE;
        if (r) progress = true;
      }
    }
    /* Nobody can run: everyone done, everyone at one barrier, or a deadlock. */
    thread *first = &X->th[0];
    bool all_done = true;
    thread *at_barrier = NULL;
    for (unsigned t = 0; t < X->nth; t++) {
      if (X->th[t].state != T_DONE) all_done = false;
      if (X->th[t].state == T_BARRIER && !at_barrier) at_barrier = &X->th[t];
    }
    if (all_done) return KR_SUCCESS;
    if (!at_barrier) return thread_error(X, first, first->pc, "internal error: no thread can run");
    for (unsigned t = 0; t < X->nth; t++) {
      thread *T = &X->th[t];
      if (T->state != T_BARRIER || T->pc != at_barrier->pc) {
        char s[160], w1[128], w2[128];
        where(X, at_barrier, w1, sizeof w1);
        where(X, T, w2, sizeof w2);
        return kr_op_emit_error(P->ops[at_barrier->pc], "barrier not reached by all threads: %s waits here but %s %s",
                                w1, w2, state_text(X, T, s, sizeof s));
      }
    }
    for (unsigned t = 0; t < X->nth; t++) {
      X->th[t].pc++;
      X->th[t].state = T_READY;
    }
    if (++X->epoch == 0) { /* a new barrier interval (on wrap-around: clear the stale entries) */
      if (X->sh) memset(X->sh, 0, (size_t)P->shadow_elems * sizeof *X->sh);
      X->epoch = 1;
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * Launch */

static kr_simt_kernel_stats *stats_for(simt_session *s, kr_op *fn) {
  kr_ident name = kr_op_symbol_name(fn);
  for (unsigned i = 0; i < s->num_stats; i++)
    if (s->stats[i].kernel == name) return &s->stats[i];
  if (s->num_stats == s->cap_stats) {
    unsigned cap = s->cap_stats ? 2 * s->cap_stats : 8;
    kr_simt_kernel_stats *n = realloc(s->stats, cap * sizeof *n);
    if (!n) return NULL;
    s->stats = n;
    s->cap_stats = cap;
  }
  kr_simt_kernel_stats *st = &s->stats[s->num_stats++];
  memset(st, 0, sizeof *st);
  st->kernel = name ? name : "";
  kr_attr t = kr_op_get_attr(fn, KR_KERNEL_ATTR_TEMPLATE);
  st->template_name = t && t->kind == KR_ATTR_STRING ? t->u.string.str : "";
  return st;
}

static kr_status check_binding(kr_op *launch, const simt_program *p, unsigned i, kr_type tensor) {
  const simt_buf *b = &p->bufs[i];
  kr_kernel_buffer info;
  kr_kernel_buffer_info(kr_value_type(kr_op_region(p->func, 0)->first->args[i]), &info);
  bool ok = b->space == KR_KERNEL_SPACE_GLOBAL && tensor && tensor->kind == KR_TYPE_TENSOR &&
            kr_type_has_static_shape(tensor) && tensor->u.shaped.elem == info.elem &&
            tensor->u.shaped.rank == b->rank && b->span == kr_type_num_elements(tensor);
  for (unsigned k = 0; ok && k < b->rank; k++) ok = tensor->u.shaped.dims[k] == b->dims[k];
  if (ok) return KR_SUCCESS;
  char *ts = kr_type_to_cstr(tensor), *bs = kr_type_to_cstr(kr_value_type(kr_op_region(p->func, 0)->first->args[i]));
  kr_status st =
      kr_op_emit_error(launch, "launch %s #%u of type %s does not match the kernel's global buffer %s",
                       i < launch->num_operands ? "operand" : "result",
                       i < launch->num_operands ? i : i - launch->num_operands, ts ? ts : "?", bs ? bs : "?");
  free(ts);
  free(bs);
  return st;
}

kr_status simt_launch(simt_session *s, kr_op *launch, kr_op *fn, kr_tensor *const *ins, unsigned nin,
                      kr_tensor *results, unsigned nres) {
  simt_program p;
  kr_status st = simt_compile(fn, &p);
  if (!st && p.num_args != nin + nres)
    st = kr_op_emit_error(launch, "launches a kernel with %u buffer arguments with %u operands and %u results",
                          p.num_args, nin, nres);
  for (unsigned i = 0; !st && i < nin; i++) st = check_binding(launch, &p, i, ins[i]->type);
  for (unsigned j = 0; !st && j < nres; j++)
    st = check_binding(launch, &p, nin + j, kr_value_type(kr_op_result(launch, j)));
  for (unsigned j = 0; !st && j < nres; j++) {
    /* A borrowed destination given by the caller (the planned level, backend/interp/planned.c:
     * a range of the arena) is written in place. */
    if (results[j].data && !results[j].owned) continue;
    if (kr_tensor_alloc(&results[j], kr_value_type(kr_op_result(launch, j))))
      st = kr_op_emit_error(launch, "out of memory allocating result #%u", j);
    else if (results[j].nbytes)
      memset(results[j].data, 0xFF, results[j].nbytes);
  }
  if (st) {
    simt_program_free(&p);
    return st;
  }

  exec X;
  memset(&X, 0, sizeof X);
  X.p = &p;
  X.s = s;
  X.nin = nin;
  X.checks = s->opts.simt_checks;
  X.max_steps = s->opts.simt_max_steps;
  X.report = s->opts.memory_report;
  X.nth = (unsigned)(p.block[0] * p.block[1] * p.block[2]);
  unsigned nw = (X.nth + KR_KERNEL_WARP_SIZE - 1) / KR_KERNEL_WARP_SIZE;
  X.gbase = calloc(p.nbufs + 1, sizeof *X.gbase);
  X.gvaddr = calloc(p.nbufs + 1, sizeof *X.gvaddr);
  X.base = calloc(p.nbufs + 1, sizeof *X.base);
  X.th = calloc(X.nth, sizeof *X.th);
  simt_reg *regs = malloc((size_t)X.nth * (p.nregs ? p.nregs : 1) * sizeof *regs);
  unsigned char *local = malloc((size_t)X.nth * (size_t)(p.local_bytes ? p.local_bytes : 1));
  X.shared = malloc((size_t)(p.shared_bytes ? p.shared_bytes : 1));
  X.maps = calloc(p.nmaps + 1, sizeof *X.maps);
  X.launch = launch;
  X.gwriter = calloc(p.nbufs + 1, sizeof *X.gwriter);
  for (unsigned i = 0; X.checks && X.gwriter && i < p.nbufs; i++)
    if (p.bufs[i].space == KR_KERNEL_SPACE_GLOBAL && (unsigned)p.bufs[i].arg >= nin) {
      X.gwriter[i] = malloc((size_t)p.bufs[i].span * sizeof(int64_t));
      if (!X.gwriter[i])
        st = kr_op_emit_error(launch, "out of memory running the kernel");
      else
        memset(X.gwriter[i], 0xFF, (size_t)p.bufs[i].span * sizeof(int64_t)); /* -1: not written */
    }
  unsigned *order = malloc(X.nth * sizeof *order);
  if (X.checks) X.sh = calloc((size_t)(p.shadow_elems ? p.shadow_elems : 1), sizeof *X.sh);
  if (X.report) {
    X.occ = calloc((size_t)X.nth * (p.nacc ? p.nacc : 1), sizeof *X.occ);
    X.recs = calloc(nw, sizeof *X.recs);
    X.st = stats_for(s, fn);
  }
  if (!X.gbase || !X.gvaddr || !X.base || !X.gwriter || !X.th || !regs || !local || !X.shared || !X.maps || !order ||
      (X.checks && !X.sh) || (X.report && (!X.occ || !X.recs || !X.st)))
    st = st ? st : kr_op_emit_error(launch, "out of memory running the kernel");

  /* Global buffers at 256-byte aligned virtual addresses (cudaMalloc's alignment). */
  uint64_t va = 0;
  for (unsigned i = 0; !st && i < p.nbufs; i++) {
    const simt_buf *b = &p.bufs[i];
    if (b->space != KR_KERNEL_SPACE_GLOBAL) continue;
    unsigned a = (unsigned)b->arg;
    X.gbase[i] = a < nin ? (unsigned char *)ins[a]->data : (unsigned char *)results[a - nin].data;
    X.gvaddr[i] = va;
    va += ((uint64_t)b->span * b->esize + 255) & ~(uint64_t)255;
  }
  for (unsigned i = 0; !st && i < p.nbufs; i++)
    X.base[i] = p.bufs[i].space == KR_KERNEL_SPACE_GLOBAL   ? X.gbase[i]
                : p.bufs[i].space == KR_KERNEL_SPACE_SHARED ? X.shared + p.bufs[i].offset
                                                            : NULL;
  for (unsigned m = 0; !st && m < p.nmaps; m++) {
    map_rt *rt = &X.maps[m];
    rt->workers = kr_task_mapping_num_workers(&p.maps[m]);
    rt->tasks = kr_task_mapping_tasks_per_worker(&p.maps[m]);
    int64_t entries = rt->workers * rt->tasks * (int64_t)p.maps[m].rank;
    if (entries > 0 && entries <= ((int64_t)1 << 18) && (rt->table = malloc((size_t)entries * sizeof(int64_t))))
      for (int64_t w = 0; w < rt->workers; w++)
        for (int64_t k = 0; k < rt->tasks; k++)
          kr_task_mapping_task(&p.maps[m], w, k, rt->table + (size_t)(w * rt->tasks + k) * p.maps[m].rank);
  }
  for (unsigned t = 0; !st && t < X.nth; t++) {
    thread *T = &X.th[t];
    T->linear = (int32_t)t;
    T->tid[0] = (int32_t)(t % p.block[0]);
    T->tid[1] = (int32_t)(t / p.block[0] % p.block[1]);
    T->tid[2] = (int32_t)(t / (p.block[0] * p.block[1]));
    T->R = regs + (size_t)t * p.nregs;
    /* Constants live in the initial register file; nothing overwrites them, so one copy per
     * launch serves every block. */
    if (p.nregs) memcpy(T->R, p.init, p.nregs * sizeof *regs);
    T->local = local + (size_t)t * (size_t)p.local_bytes;
    order[t] = t;
  }

  /* Every thread start is a step: a grid over the budget is refused before it runs. */
  uint64_t threads = X.nth;
  bool huge = false;
  for (int d = 0; d < 3; d++) huge |= __builtin_mul_overflow(threads, (uint64_t)p.grid[d], &threads);
  if (huge) threads = UINT64_MAX;
  if (!st && X.max_steps && threads > X.max_steps)
    st = kr_op_emit_error(launch,
                          "the launch of @%s runs %s%llu threads, over the interpreter's budget of %llu steps "
                          "(thread starts and loop iterations; raise it with --simt-max-steps, 0 for no limit)",
                          kr_op_symbol_name(fn), huge ? "more than " : "", (unsigned long long)threads,
                          (unsigned long long)X.max_steps);
  uint64_t rng = s->opts.simt_seed;
  if (!st && X.st) X.st->launches++;
  for (int64_t z = 0; !st && z < p.grid[2]; z++)
    for (int64_t y = 0; !st && y < p.grid[1]; y++)
      for (int64_t x = 0; !st && x < p.grid[0]; x++) {
        X.bid[0] = x;
        X.bid[1] = y;
        X.bid[2] = z;
        st = run_block(&X, order, &rng);
        if (!st && X.report) flush_report(&X);
      }
  if (!st && X.checks) st = check_outputs_written(&X);

  for (unsigned m = 0; m < p.nmaps && X.maps; m++) free(X.maps[m].table);
  for (unsigned i = 0; i < p.nbufs && X.gwriter; i++) free(X.gwriter[i]);
  free(X.gwriter);
  for (unsigned w = 0; X.recs && w < nw; w++) kr_vec_free(&X.recs[w]);
  free(X.recs);
  free(X.occ);
  free(X.sh);
  free(order);
  free(X.maps);
  free(X.shared);
  free(local);
  free(regs);
  free(X.th);
  free(X.gvaddr);
  free(X.base);
  free(X.gbase);
  simt_program_free(&p);
  if (st)
    for (unsigned j = 0; j < nres; j++) kr_tensor_free(&results[j]);
  return st;
}
