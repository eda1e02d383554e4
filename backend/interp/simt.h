/* backend/interp/simt.h - the SIMT interpreter's private interface (docs/Interpreter.md "SIMT").
 *
 * A scheduled kernel.func (korch/kernel.h) is compiled once per launch into a compact register
 * bytecode (simt_compile.c): every SSA scalar gets a fixed register slot (a vector<N x T> gets N
 * consecutive slots), kernel.for / kernel.if / kernel.map become flat jumps, buffers become
 * entries of a table with precomputed strides.  simt_exec.c runs the bytecode per thread with an
 * explicit pc, so a thread can stop at a barrier or a warp shuffle and resume later (the CPU
 * model of the GPU: blocks one by one, threads one by one between synchronisation points).
 * simt_report.c turns the recorded accesses into the memory report (sectors, wavefronts).
 *
 * Register representation (simt_reg): integers (i1..i64, index) as int64 in canonical form -
 * i1 is 0/1, widths 2..63 sign-extended from their width, 64 bits as is (two's complement wrap);
 * f16, bf16 and f32 as a float (f16/bf16 values are exactly representable in float); f64 as a
 * double. */
#ifndef KORCH_BACKEND_INTERP_SIMT_H
#define KORCH_BACKEND_INTERP_SIMT_H

#include <stdint.h>

#include "korch/interp.h"
#include "korch/kernel.h"

typedef union simt_reg {
  int64_t i;
  uint64_t u;
  double d;
  float f;
} simt_reg;

/* Opcodes.  Integer ops compute on 64 bits and renormalise to the width `w` of the instruction
 * (a no-op for 64); float ops come per representation (F32 covers f16/bf16, which then round
 * with ROUND16). */
/* clang-format off: grouped by kind, several per line */
typedef enum simt_opcode {
  SO_END,
  SO_JMP,
  SO_JZ,
  SO_FOR_INIT,
  SO_FOR_NEXT,
  SO_MAP_INIT,
  SO_MAP_NEXT,
  SO_BARRIER,
  SO_SHUFFLE,
  SO_TID,
  SO_BID,
  SO_BDIM,
  SO_GDIM,
  SO_LANE,
  SO_WARP,
  SO_LOAD,
  SO_STORE,
  SO_MOV,
  SO_ADDI,
  SO_SUBI,
  SO_MULI,
  SO_DIVSI,
  SO_DIVUI,
  SO_REMSI,
  SO_REMUI,
  SO_ANDI,
  SO_ORI,
  SO_XORI,
  SO_SHLI,
  SO_SHRSI,
  SO_SHRUI,
  SO_MAXSI,
  SO_MINSI,
  SO_MAXUI,
  SO_MINUI,
  SO_CMPI,
  SO_SELECT,
  SO_ABSI,
  SO_SEXT, /* sign-extend from width aux (extsi, index_cast widening) then normalise to w */
  SO_ZEXT, /* zero-extend from width aux (extui, index_castui) */
  SO_ADDF32,
  SO_SUBF32,
  SO_MULF32,
  SO_DIVF32,
  SO_NEGF32,
  SO_FMA32,
  SO_CMPF32,
  SO_ADDF64,
  SO_SUBF64,
  SO_MULF64,
  SO_DIVF64,
  SO_NEGF64,
  SO_FMA64,
  SO_CMPF64,
  SO_MAXF,
  SO_MINF,    /* maximumf / minimumf; aux: 1 when f64 */
  SO_ROUND16, /* rounds register d (a float) to f16 (aux 0) or bf16 (aux 1) in place */
  SO_MATH1,   /* unary math: aux = simt_math, w = kr_float_kind */
  SO_MATH2,   /* powf/remf: aux = simt_math */
  SO_CAST,    /* sitofp/uitofp/fptosi/fptoui/extf/truncf: aux = simt_cast */
  /* Specialisations the compiler picks for the hot cases (same semantics as the generic ones):
   * 64-bit (index, i64) integer ops without renormalisation, cmpi per predicate, division and
   * remainder by a positive constant `imm`, and scalar f32 loads/stores (which fall back to
   * SO_LOAD/SO_STORE's path when checks or the memory report are on). */
  SO_ADDI64,
  SO_SUBI64,
  SO_MULI64,
  SO_DIVSI_C,
  SO_REMSI_C,
  SO_CMPI64_EQ,
  SO_CMPI64_NE,
  SO_CMPI64_SLT,
  SO_CMPI64_SLE,
  SO_CMPI64_SGT,
  SO_CMPI64_SGE,
  SO_CMPI64_ULT,
  SO_CMPI64_ULE,
  SO_CMPI64_UGT,
  SO_CMPI64_UGE,
  SO_LOADF32,
  SO_STOREF32,
  SO_COUNT
} simt_opcode;
/* clang-format on */

typedef enum simt_math {
  SM_EXP,
  SM_LOG,
  SM_SQRT,
  SM_RSQRT,
  SM_TANH,
  SM_ERF,
  SM_SIN,
  SM_COS,
  SM_FLOOR,
  SM_CEIL,
  SM_ROUNDEVEN,
  SM_ABSF,
  SM_POW,
  SM_REM,
} simt_math;

typedef enum simt_cast { SC_SITOFP, SC_UITOFP, SC_FPTOSI, SC_FPTOUI, SC_EXTF, SC_TRUNCF, SC_TRUNCF_RZ } simt_cast;

/* Element kinds of buffers (how a load reads / a store writes one element). */
typedef enum simt_elem {
  SE_F32,
  SE_F64,
  SE_F16,
  SE_BF16,
  SE_I1,
  SE_I8,
  SE_U8,
  SE_I16,
  SE_U16,
  SE_I32,
  SE_U32,
  SE_I64,
  SE_IOTHER,
} simt_elem;

/* One instruction (32 bytes).  d: destination register; a, b, c: operand registers (or table
 * indices as the opcode says); imm: jump target or an immediate. */
typedef struct simt_ins {
  uint16_t op;
  uint8_t w;   /* integer width (1..64) or kr_float_kind */
  uint8_t aux; /* predicate, mode, vector width, input width, simt_math, simt_cast, dim */
  int32_t d, a, b, c;
  int64_t imm;
} simt_ins;

/* A buffer of the kernel: an argument (global) or a kernel.alloc (shared/local). */
typedef struct simt_buf {
  kr_kernel_space space;
  simt_elem kind;
  unsigned width; /* integer bit width for SE_IOTHER and the narrow kinds */
  unsigned esize; /* bytes per element */
  unsigned rank;
  int64_t dims[KR_KERNEL_MAX_RANK];
  int64_t strides[KR_KERNEL_MAX_RANK];
  int64_t span;        /* elements */
  int64_t offset;      /* shared/local: byte offset in the block's / thread's arena */
  int64_t shadow_base; /* shared: first shadow entry (race checks) */
  int arg;             /* global: argument index; -1 otherwise */
  kr_op *alloc;        /* the kernel.alloc, NULL for arguments */
} simt_buf;

/* A static memory access op (load/store) for the memory report and race messages. */
typedef struct simt_access {
  kr_op *op;
  unsigned buf;
  bool store, inner; /* inner: in a kernel.for with no kernel.for nested inside it */
} simt_access;

typedef struct simt_program {
  kr_op *func;
  simt_ins *code;
  kr_op **ops; /* the op of each instruction (for diagnostics) */
  size_t ncode;
  int32_t *idx; /* index-register lists of loads/stores */
  size_t nidx;
  simt_buf *bufs;
  unsigned nbufs;
  simt_access *acc;
  unsigned nacc;
  kr_task_mapping *maps;
  unsigned nmaps;
  simt_reg *init; /* initial register file: constants in place */
  unsigned nregs;
  int64_t shared_bytes, local_bytes, shadow_elems;
  unsigned num_args;
  int64_t grid[3], block[3];
} simt_program;

/* Compiles scheduled kernel.func `fn` (errors reported at the offending op). */
kr_status simt_compile(kr_op *fn, simt_program *p);
void simt_program_free(simt_program *p);

/* State shared by the launches of one kr_interp_run_with. */
typedef struct simt_session {
  kr_interp_options opts;
  kr_simt_kernel_stats *stats;
  unsigned num_stats, cap_stats;
} simt_session;

/* Runs kernel.launch `launch` of scheduled kernel.func `fn` on ins[nin] (the launch operands),
 * filling results[nres] with fresh owned tensors of the launch's result types; a results[j] that
 * arrives borrowed with data (owned false, data set: the planned level's arena range) is written
 * in place instead. */
kr_status simt_launch(simt_session *s, kr_op *launch, kr_op *fn, kr_tensor *const *ins, unsigned nin,
                      kr_tensor *results, unsigned nres);

/* ---- Scalar helpers (simt_scalar.c): the slow, rarely hot ops ------------------------------- */

/* Canonical form of an integer at width w (see above). */
static inline int64_t simt_norm(uint64_t x, unsigned w) {
  if (w >= 64) return (int64_t)x;
  if (w == 1) return (int64_t)(x & 1);
  return (int64_t)(x << (64 - w)) >> (64 - w);
}
/* Sign- / zero-extension of a canonical value of width w to 64 bits. */
static inline int64_t simt_sext(int64_t x, unsigned w) { return w == 1 ? -(x & 1) : x; }
static inline uint64_t simt_zext(int64_t x, unsigned w) {
  return w >= 64 ? (uint64_t)x : (uint64_t)x & ((((uint64_t)1) << w) - 1);
}
/* arith.cmpi / arith.cmpf predicates (MLIR numbering, dialects/arith/arith_impl.h). */
bool simt_cmpi(unsigned pred, int64_t a, int64_t b, unsigned w);
bool simt_cmpf(unsigned pred, double a, double b);
/* SO_MATH1, SO_MATH2 and SO_CAST on register file R. */
void simt_do_math(const simt_ins *in, simt_reg *R);
void simt_do_cast(const simt_ins *in, simt_reg *R);
/* f16 (bf16 when `bf16`) rounding of a float, ties to even. */
float simt_round16(float f, bool bf16);

/* ---- Memory report (simt_report.c) ---------------------------------------------------------- */

/* One lane's access as recorded while a block runs. */
typedef struct simt_rec {
  uint32_t acc; /* simt_access index */
  uint32_t occ; /* the lane's dynamic occurrence count of that access */
  uint32_t lane;
  uint32_t bytes;
  uint64_t addr; /* global: virtual address; shared: byte offset in the block's arena */
} simt_rec;

/* Adds the warp-level instructions formed by recs[n] (one warp's records; sorted here) to *st. */
void simt_report_warp(const simt_program *p, simt_rec *recs, size_t n, kr_simt_kernel_stats *st);

#endif
