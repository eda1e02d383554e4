/* backend/nvptx/lower.c - scheduled kernel.func -> LLVM IR for the NVPTX backend (the kernel
 * dialect's SIMT ops; arith ops are in lower_arith.c).  nvptx_impl.h states the contract.
 *
 * Rules followed (LLVM "User Guide for NVPTX Back-end", docs/NVPTXUsage.rst of LLVM 19):
 *   - a kernel is a function with the PTX_Kernel calling convention (LLVMPTXKernelCallConv);
 *     LLVM 19's NVPTX isKernelFunction accepts the calling convention without the
 *     "nvvm.annotations" `kernel` entry, so only .maxntid is annotated there;
 *   - global memory is address space 1, shared memory address space 3 (module-scope globals,
 *     internal, undef initialiser), local memory is an alloca (the NVPTX backend moves it to
 *     .local itself);
 *   - special registers are the llvm.nvvm.read.ptx.sreg.* intrinsics, bar.sync 0 is
 *     llvm.nvvm.barrier0, shfl.sync is llvm.nvvm.shfl.sync.{bfly,down,up,idx}.{i32,f32}.
 * Semantics follow dialects/kernel/ops.def and the interpreter (backend/interp/simt_*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>

#include "backend/nvptx/lower.h"
#include "backend/nvptx/nvptx_impl.h"
#include "korch/diag.h"
#include "korch/dialect.h"

/* A buffer: its base pointer (address space 1, 3 or 0 for local allocas), its layout and the
 * LLVM type its elements are stored as (i1 as i8: kernel.h "i1 is stored as one byte"). */
typedef struct nv_buffer {
  LLVMValueRef base;
  kr_kernel_buffer info;
  LLVMTypeRef store_ty;
  unsigned esize;
} nv_buffer;

void nv_set(nv_lower *L, kr_value v, LLVMValueRef llv) {
  bool ins;
  kr_hmap_insert(&L->vals, kr_hash_ptr(v), v, &ins)->value = llv;
}

LLVMValueRef nv_get(nv_lower *L, kr_value v) {
  kr_hmap_entry *e = kr_hmap_find(&L->vals, kr_hash_ptr(v), v);
  return e ? (LLVMValueRef)e->value : NULL;
}

LLVMTypeRef nv_type(nv_lower *L, kr_type t) {
  if (!t) return NULL;
  switch (t->kind) {
  case KR_TYPE_INDEX: return L->i64;
  case KR_TYPE_INTEGER:
    return LLVMIntTypeInContext(L->C, t->u.integer.width);
  case KR_TYPE_FLOAT:
    switch (t->u.fkind) {
    case KR_F16: return L->f16;
    case KR_BF16: return L->bf16;
    case KR_F32: return L->f32;
    case KR_F64: return L->f64;
    }
    return NULL;
  case KR_TYPE_VECTOR: {
    if (t->u.shaped.rank != 1 || t->u.shaped.dims[0] < 1) return NULL;
    LLVMTypeRef e = nv_type(L, t->u.shaped.elem);
    return e ? LLVMVectorType(e, (unsigned)t->u.shaped.dims[0]) : NULL;
  }
  default: return NULL;
  }
}

LLVMValueRef nv_intrinsic(nv_lower *L, const char *name, LLVMTypeRef *over, unsigned n_over, LLVMValueRef *args,
                          unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) return NULL;
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(L->M, id, over, n_over);
  LLVMTypeRef ft = LLVMIntrinsicGetType(L->C, id, over, n_over);
  return LLVMBuildCall2(L->B, ft, f, args, nargs, "");
}

LLVMValueRef nv_call_extern(nv_lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned nargs) {
  LLVMTypeRef params[4];
  for (unsigned i = 0; i < nargs && i < 4; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef ft = LLVMFunctionType(ret, params, nargs, 0);
  LLVMValueRef f = LLVMGetNamedFunction(L->M, name);
  if (!f) f = LLVMAddFunction(L->M, name, ft);
  return LLVMBuildCall2(L->B, ft, f, args, nargs, "");
}

/* An i64 constant. */
static LLVMValueRef c64(nv_lower *L, int64_t v) { return LLVMConstInt(L->i64, (unsigned long long)v, 1); }

/* Reads korch.grid / korch.block (array<i64: x, y, z>, each >= 1). */
static bool read_dims(kr_op *fn, const char *name, int64_t out[3]) {
  kr_attr a = kr_op_get_attr(fn, name);
  if (!a || a->kind != KR_ATTR_DENSE_ARRAY || a->u.dense_array.num != 3) return false;
  memcpy(out, a->u.dense_array.data, 3 * sizeof(int64_t));
  return out[0] >= 1 && out[1] >= 1 && out[2] >= 1;
}

/* Registers buffer value `v` with base pointer `base`. */
static kr_status add_buffer(nv_lower *L, kr_value v, LLVMValueRef base, const kr_kernel_buffer *info) {
  nv_buffer *b = calloc(1, sizeof *b);
  if (!b) return KR_FAILURE;
  b->base = base;
  b->info = *info;
  b->esize = (unsigned)kr_type_storage_bytes(info->elem);
  b->store_ty = kr_type_bitwidth(info->elem) == 1 ? L->i8 : nv_type(L, info->elem);
  bool ins;
  kr_hmap_insert(&L->bufs, kr_hash_ptr(v), v, &ins)->value = b;
  return KR_SUCCESS;
}

static nv_buffer *buffer_of(nv_lower *L, kr_value v) {
  kr_hmap_entry *e = kr_hmap_find(&L->bufs, kr_hash_ptr(v), v);
  return e ? (nv_buffer *)e->value : NULL;
}

/* kernel.alloc: shared buffers become internal addrspace(3) globals aligned to 16 bytes (the
 * interpreter's shared arena aligns each buffer to 16 too, so bank mappings agree), or, when
 * the kernel has korch.dynamic_shared_bytes, 16-byte-aligned offsets into the one extern
 * dynamic shared array (CUDA `extern __shared__`, PTX .extern .shared .align 16 .b8 x[]);
 * local buffers are entry-block allocas. */
static kr_status lower_alloc(nv_lower *L, kr_op *op) {
  kr_kernel_buffer info;
  if (op->num_results != 1 || !kr_kernel_buffer_info(kr_value_type(kr_op_result(op, 0)), &info))
    return kr_op_emit_error(op, "expects one !kernel.buffer result");
  LLVMTypeRef et = kr_type_bitwidth(info.elem) == 1 ? L->i8 : nv_type(L, info.elem);
  if (!et) return kr_op_emit_error(op, "element type is not supported by the NVPTX backend");
  int64_t span = info.span > 0 ? info.span : 1;
  LLVMTypeRef at = LLVMArrayType2(et, (uint64_t)span);
  LLVMValueRef base;
  /* An optional discardable `align` attribute (a power of two) raises the 16-byte default. */
  kr_attr aa = kr_op_get_attr(op, "align");
  unsigned align = aa && aa->kind == KR_ATTR_INTEGER && aa->u.i > 16 && aa->u.i <= 4096 && !(aa->u.i & (aa->u.i - 1))
                       ? (unsigned)aa->u.i
                       : 16;
  if (info.space == KR_KERNEL_SPACE_SHARED) {
    if (L->dyn_smem) {
      int64_t bytes = span * (int64_t)kr_type_storage_bytes(info.elem);
      /* The extern array must be as aligned as its most aligned buffer (the offsets are). */
      if (LLVMGetAlignment(L->dyn_smem) < align) LLVMSetAlignment(L->dyn_smem, align);
      L->dyn_offset = (L->dyn_offset + align - 1) & ~(int64_t)(align - 1);
      LLVMValueRef off = c64(L, L->dyn_offset);
      base = LLVMBuildInBoundsGEP2(L->B, L->i8, L->dyn_smem, &off, 1, "smem");
      L->dyn_offset = (L->dyn_offset + bytes + align - 1) & ~(int64_t)(align - 1);
    } else {
      char name[512];
      snprintf(name, sizeof name, "%s_smem%u", kr_op_symbol_name(L->func), L->num_smem++);
      base = LLVMAddGlobalInAddressSpace(L->M, at, name, 3);
      LLVMSetLinkage(base, LLVMInternalLinkage);
      LLVMSetInitializer(base, LLVMGetUndef(at));
      LLVMSetAlignment(base, align);
    }
  } else if (info.space == KR_KERNEL_SPACE_LOCAL) {
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(L->B);
    LLVMValueRef first = LLVMGetFirstInstruction(L->entry);
    if (first)
      LLVMPositionBuilderBefore(L->B, first);
    else
      LLVMPositionBuilderAtEnd(L->B, L->entry);
    base = LLVMBuildAlloca(L->B, at, "local");
    LLVMSetAlignment(base, align);
    LLVMPositionBuilderAtEnd(L->B, cur);
  } else {
    return kr_op_emit_error(op, "global buffers cannot be allocated in a kernel");
  }
  return add_buffer(L, kr_op_result(op, 0), base, &info);
}

/* kernel.load / kernel.store: address = base + sum(idx_k * stride_k) elements (ops.def); a
 * vector<N x T> access is N consecutive elements aligned to N * sizeof(T) (the verifier and the
 * interpreter require the element offset to be a multiple of N); i1 elements are bytes. */
static kr_status lower_access(nv_lower *L, kr_op *op, bool store) {
  unsigned first = store ? 1 : 0;
  nv_buffer *b = op->num_operands > first ? buffer_of(L, kr_op_operand(op, first)) : NULL;
  if (!b) return kr_op_emit_error(op, "buffer operand is not a kernel argument or kernel.alloc");
  unsigned nidx = op->num_operands - first - 1;
  if (nidx != b->info.rank) return kr_op_emit_error(op, "has %u indices for a buffer of rank %u", nidx, b->info.rank);
  LLVMValueRef off = NULL;
  for (unsigned k = 0; k < nidx; k++) {
    LLVMValueRef ix = nv_get(L, kr_op_operand(op, first + 1 + k));
    if (!ix) return kr_op_emit_error(op, "index #%u not defined before its use", k);
    if (b->info.strides[k] == 0) continue;
    LLVMValueRef t = b->info.strides[k] == 1 ? ix : LLVMBuildNSWMul(L->B, ix, c64(L, b->info.strides[k]), "");
    off = off ? LLVMBuildNSWAdd(L->B, off, t, "") : t;
  }
  if (!off) off = c64(L, 0);
  LLVMValueRef ptr = LLVMBuildInBoundsGEP2(L->B, b->store_ty, b->base, &off, 1, "");
  kr_type vt = store ? kr_value_type(kr_op_operand(op, 0)) : kr_value_type(kr_op_result(op, 0));
  LLVMTypeRef lt = nv_type(L, vt);
  if (!lt) return kr_op_emit_error(op, "value type is not supported by the NVPTX backend");
  unsigned n = vt->kind == KR_TYPE_VECTOR ? (unsigned)vt->u.shaped.dims[0] : 1;
  bool is_i1 = kr_type_bitwidth(b->info.elem) == 1;
  LLVMTypeRef mem_ty = is_i1 ? (n > 1 ? LLVMVectorType(L->i8, n) : L->i8) : lt;
  /* A vector access is aligned to its size (the verifier keeps the element offset a multiple of
   * N; shared/local buffers are 16-aligned, global ones by the plan's >= 16-byte alignment), but
   * no more than 16 is claimed: that is the base alignment korch guarantees, and PTX's widest
   * access (ld.v4.b32 / ld.v2.b64, PTX ISA "ld") is 16 bytes, so a 32-byte vector<4 x f64>
   * becomes two 16-byte accesses instead of a misaligned claim. */
  unsigned align = n * b->esize;
  if (align > 16) align = 16;
  if (store) {
    LLVMValueRef v = nv_get(L, kr_op_operand(op, 0));
    if (!v) return kr_op_emit_error(op, "stored value not defined before its use");
    if (is_i1) v = LLVMBuildZExt(L->B, v, mem_ty, "");
    LLVMValueRef st = LLVMBuildStore(L->B, v, ptr);
    LLVMSetAlignment(st, align);
  } else {
    LLVMValueRef ld = LLVMBuildLoad2(L->B, mem_ty, ptr, "");
    LLVMSetAlignment(ld, align);
    /* A stored bool byte is true when non-zero (the interpreter's and NumPy's reading). */
    if (is_i1) ld = LLVMBuildICmp(L->B, LLVMIntNE, ld, LLVMConstNull(mem_ty), "");
    nv_set(L, kr_op_result(op, 0), ld);
  }
  return KR_SUCCESS;
}

/* Reads a PTX special register (%tid, %ctaid) through llvm.nvvm.read.ptx.sreg.NAME.{x,y,z}
 * (NVPTXUsage "Reading PTX Special Registers"), zero-extended to index. */
static LLVMValueRef sreg(nv_lower *L, const char *name, int dim) {
  char buf[64];
  snprintf(buf, sizeof buf, "llvm.nvvm.read.ptx.sreg.%s.%c", name, "xyz"[dim]);
  return nv_intrinsic(L, buf, NULL, 0, NULL, 0);
}

/* The linear thread index t = x + y*bx + z*bx*by of the block (i32; ops.def lane_id/warp_id). */
static LLVMValueRef linear_tid(nv_lower *L) {
  LLVMValueRef t = sreg(L, "tid", 0);
  if (L->block[1] > 1)
    t = LLVMBuildNUWAdd(L->B, t,
                        LLVMBuildNUWMul(L->B, sreg(L, "tid", 1), LLVMConstInt(L->i32, (unsigned long long)L->block[0], 0), ""),
                        "");
  if (L->block[2] > 1)
    t = LLVMBuildNUWAdd(
        L->B, t,
        LLVMBuildNUWMul(L->B, sreg(L, "tid", 2), LLVMConstInt(L->i32, (unsigned long long)(L->block[0] * L->block[1]), 0),
                        ""),
        "");
  return t;
}

/* kernel.thread_id/block_id read %tid/%ctaid; block_dim/grid_dim are the kernel's own
 * korch.block/korch.grid (the launch uses exactly them), so they become constants the optimiser
 * can fold; lane_id/warp_id split the linear thread index t = x + y*bx + z*bx*by (ops.def). */
static kr_status lower_ids(nv_lower *L, kr_op *op) {
  const char *n = op->name;
  kr_attr da = kr_op_get_attr(op, KR_KERNEL_ATTR_DIM);
  int64_t dim = da && da->kind == KR_ATTR_INTEGER ? da->u.i : 0;
  if (dim < 0 || dim > 2) return kr_op_emit_error(op, "dim must be 0, 1 or 2");
  LLVMValueRef r;
  if (!strcmp(n, KR_KERNEL_THREAD_ID_OP)) {
    r = LLVMBuildZExt(L->B, sreg(L, "tid", (int)dim), L->i64, "tid");
  } else if (!strcmp(n, KR_KERNEL_BLOCK_ID_OP)) {
    r = LLVMBuildZExt(L->B, sreg(L, "ctaid", (int)dim), L->i64, "ctaid");
  } else if (!strcmp(n, KR_KERNEL_BLOCK_DIM_OP)) {
    r = c64(L, L->block[dim]);
  } else if (!strcmp(n, KR_KERNEL_GRID_DIM_OP)) {
    r = c64(L, L->grid[dim]);
  } else {
    LLVMValueRef t = linear_tid(L);
    bool lane = !strcmp(n, KR_KERNEL_LANE_ID_OP);
    t = lane ? LLVMBuildAnd(L->B, t, LLVMConstInt(L->i32, KR_KERNEL_WARP_SIZE - 1, 0), "lane")
             : LLVMBuildLShr(L->B, t, LLVMConstInt(L->i32, 5, 0), "warp");
    r = LLVMBuildZExt(L->B, t, L->i64, "");
  }
  nv_set(L, kr_op_result(op, 0), r);
  return KR_SUCCESS;
}

/* kernel.shuffle -> llvm.nvvm.shfl.sync.MODE.{i32,f32}.  PTX ISA "shfl.sync": every thread of
 * `membermask` must execute the same shfl.sync, and naming a thread that does not exist is
 * undefined, so the mask is the warp's existing lanes: 0xffffffff, except in the last warp of a
 * block whose thread count T is not a multiple of 32, where it is the low T % 32 bits.  The c
 * operand clamps the source lane: c = 0 for up (lane - delta < 0 keeps the own value), else the
 * warp's last existing lane (0x1f, or T % 32 - 1 in a partial warp), so a source lane outside
 * the warp or past the block's last thread yields the thread's own value, as ops.def and the
 * interpreter (simt_exec.c) define it.  64-bit values shuffle as two 32-bit halves (as CUDA's
 * __shfl_*_sync does for double/long long). */
static void shuffle_mask(nv_lower *L, int mode, LLVMValueRef *mask, LLVMValueRef *c) {
  int64_t threads = L->block[0] * L->block[1] * L->block[2];
  unsigned partial = (unsigned)(threads % KR_KERNEL_WARP_SIZE);
  *mask = LLVMConstInt(L->i32, 0xffffffffu, 0);
  *c = LLVMConstInt(L->i32, mode == 2 ? 0 : 0x1f, 0);
  if (partial == 0) return;
  LLVMValueRef pmask = LLVMConstInt(L->i32, (1u << partial) - 1u, 0);
  LLVMValueRef pc = LLVMConstInt(L->i32, mode == 2 ? 0 : partial - 1, 0);
  if (threads < KR_KERNEL_WARP_SIZE) {   /* one warp, partial */
    *mask = pmask;
    *c = pc;
    return;
  }
  LLVMValueRef warp = LLVMBuildLShr(L->B, linear_tid(L), LLVMConstInt(L->i32, 5, 0), "warp");
  LLVMValueRef last = LLVMBuildICmp(L->B, LLVMIntEQ, warp,
                                    LLVMConstInt(L->i32, (unsigned long long)(threads / KR_KERNEL_WARP_SIZE), 0), "");
  *mask = LLVMBuildSelect(L->B, last, pmask, *mask, "shfl.mask");
  *c = LLVMBuildSelect(L->B, last, pc, *c, "shfl.c");
}

static kr_status lower_shuffle(nv_lower *L, kr_op *op) {
  kr_attr m = kr_op_get_attr(op, KR_KERNEL_ATTR_MODE);
  static const char *const modes[] = {"xor", "down", "up", "idx"};
  static const char *const ptx[] = {"bfly", "down", "up", "idx"};
  int mode = -1;
  for (int i = 0; m && m->kind == KR_ATTR_STRING && i < 4; i++)
    if (!strcmp(m->u.string.str, modes[i])) mode = i;
  LLVMValueRef v = op->num_operands == 2 ? nv_get(L, kr_op_operand(op, 0)) : NULL;
  LLVMValueRef off = op->num_operands == 2 ? nv_get(L, kr_op_operand(op, 1)) : NULL;
  if (mode < 0 || !v || !off) return kr_op_emit_error(op, "expects a scalar value, an index offset and a mode xor/down/up/idx");
  LLVMTypeRef vt = LLVMTypeOf(v);
  unsigned bits = vt == L->i32 || vt == L->f32 ? 32 : vt == L->i64 || vt == L->f64 ? 64 : 0;
  if (bits != 32 && bits != 64) return kr_op_emit_error(op, "shuffles 32- or 64-bit scalars only");
  LLVMValueRef off32 = LLVMBuildTrunc(L->B, off, L->i32, "");
  LLVMValueRef mask, c;
  shuffle_mask(L, mode, &mask, &c);
  char name[64];
  bool f32 = vt == L->f32;
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", ptx[mode], f32 ? "f32" : "i32");
  LLVMValueRef r;
  if (bits == 32) {
    LLVMValueRef x = f32 || vt == L->i32 ? v : LLVMBuildBitCast(L->B, v, L->i32, "");
    LLVMValueRef args[4] = {mask, x, off32, c};
    r = nv_intrinsic(L, name, NULL, 0, args, 4);
    if (!f32 && vt != L->i32) r = LLVMBuildBitCast(L->B, r, vt, "");
  } else {
    LLVMValueRef x = vt == L->i64 ? v : LLVMBuildBitCast(L->B, v, L->i64, "");
    LLVMValueRef lo = LLVMBuildTrunc(L->B, x, L->i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(L->B, LLVMBuildLShr(L->B, x, c64(L, 32), ""), L->i32, "");
    LLVMValueRef a1[4] = {mask, lo, off32, c}, a2[4] = {mask, hi, off32, c};
    lo = nv_intrinsic(L, name, NULL, 0, a1, 4);
    hi = nv_intrinsic(L, name, NULL, 0, a2, 4);
    r = LLVMBuildOr(L->B, LLVMBuildZExt(L->B, lo, L->i64, ""),
                    LLVMBuildShl(L->B, LLVMBuildZExt(L->B, hi, L->i64, ""), c64(L, 32), ""), "");
    if (vt != L->i64) r = LLVMBuildBitCast(L->B, r, vt, "");
  }
  nv_set(L, kr_op_result(op, 0), r);
  return KR_SUCCESS;
}

static kr_status lower_block(nv_lower *L, kr_block *b);

static kr_block *single_block(kr_op *op, unsigned r) {
  if (r >= op->num_regions) return NULL;
  kr_region *reg = kr_op_region(op, r);
  return reg ? reg->first : NULL;
}

/* Attaches the kernel.for `unroll = N` hint to the loop's back edge as loop metadata
 * !{self, !{!"llvm.loop.unroll.count", i32 N}} (LLVM "Loop metadata" / TransformMetadata.rst:
 * the loop ID is a self-referential node, built here as a temporary node replaced by itself). */
static void unroll_hint(nv_lower *L, kr_op *op, LLVMValueRef br) {
  kr_attr u = kr_op_get_attr(op, KR_KERNEL_ATTR_UNROLL);
  if (!u || u->kind != KR_ATTR_INTEGER || u->u.i < 2) return;
  LLVMMetadataRef kv[2] = {LLVMMDStringInContext2(L->C, "llvm.loop.unroll.count", 22),
                           LLVMValueAsMetadata(LLVMConstInt(L->i32, (unsigned long long)u->u.i, 0))};
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->C, NULL, 0);
  LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(L->C, kv, 2)};
  LLVMMetadataRef loop = LLVMMDNodeInContext2(L->C, ops, 2);
  LLVMMetadataReplaceAllUsesWith(tmp, loop);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->C, "llvm.loop", 9), LLVMMetadataAsValue(L->C, loop));
}

/* kernel.for: a guarded bottom-tested loop (the body runs while iv < ub, signed index compare;
 * step > 0 per ops.def), the induction variable a phi of lb and iv + step. */
static kr_status lower_for(nv_lower *L, kr_op *op) {
  kr_block *body = single_block(op, 0);
  if (op->num_operands != 3 || !body || body->num_args != 1)
    return kr_op_emit_error(op, "expects lb, ub, step and a body with one index argument");
  LLVMValueRef lb = nv_get(L, kr_op_operand(op, 0)), ub = nv_get(L, kr_op_operand(op, 1)),
               st = nv_get(L, kr_op_operand(op, 2));
  if (!lb || !ub || !st) return kr_op_emit_error(op, "operand not defined before its use");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->B);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->C, L->fn, "for.body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(L->C, L->fn, "for.end");
  LLVMBuildCondBr(L->B, LLVMBuildICmp(L->B, LLVMIntSLT, lb, ub, ""), loop, exit);
  LLVMPositionBuilderAtEnd(L->B, loop);
  LLVMValueRef iv = LLVMBuildPhi(L->B, L->i64, "iv");
  nv_set(L, body->args[0], iv);
  kr_status s = lower_block(L, body);
  if (s) return s;
  LLVMValueRef next = LLVMBuildNSWAdd(L->B, iv, st, "iv.next");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->B);
  unroll_hint(L, op, LLVMBuildCondBr(L->B, LLVMBuildICmp(L->B, LLVMIntSLT, next, ub, ""), loop, exit));
  LLVMValueRef vals[2] = {lb, next};
  LLVMBasicBlockRef from[2] = {pre, latch};
  LLVMAddIncoming(iv, vals, from, 2);
  LLVMPositionBuilderAtEnd(L->B, exit);
  return KR_SUCCESS;
}

/* kernel.if: then / optional else blocks joining in one merge block. */
static kr_status lower_if(nv_lower *L, kr_op *op) {
  kr_block *then_b = single_block(op, 0), *else_b = single_block(op, 1);
  LLVMValueRef cond = op->num_operands == 1 ? nv_get(L, kr_op_operand(op, 0)) : NULL;
  if (!cond || !then_b) return kr_op_emit_error(op, "expects an i1 condition and a then region");
  bool has_else = else_b && else_b->first;
  LLVMBasicBlockRef tb = LLVMAppendBasicBlockInContext(L->C, L->fn, "if.then");
  LLVMBasicBlockRef eb = has_else ? LLVMAppendBasicBlockInContext(L->C, L->fn, "if.else") : NULL;
  LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(L->C, L->fn, "if.end");
  LLVMBuildCondBr(L->B, cond, tb, has_else ? eb : end);
  LLVMPositionBuilderAtEnd(L->B, tb);
  kr_status s = lower_block(L, then_b);
  if (s) return s;
  LLVMBuildBr(L->B, end);
  if (has_else) {
    LLVMPositionBuilderAtEnd(L->B, eb);
    if ((s = lower_block(L, else_b))) return s;
    LLVMBuildBr(L->B, end);
  }
  LLVMPositionBuilderAtEnd(L->B, end);
  return KR_SUCCESS;
}

/* One op of a kernel body. */
static kr_status lower_op(nv_lower *L, kr_op *op) {
  const char *n = op->name;
  if (!strcmp(n, KR_KERNEL_RETURN_OP)) {
    LLVMBuildRetVoid(L->B);
    return KR_SUCCESS;
  }
  if (!strncmp(n, "arith.", 6)) return nv_lower_arith(L, op);
  if (!strcmp(n, KR_KERNEL_FOR_OP)) return lower_for(L, op);
  if (!strcmp(n, KR_KERNEL_IF_OP)) return lower_if(L, op);
  if (!strcmp(n, KR_KERNEL_LOAD_OP)) return lower_access(L, op, false);
  if (!strcmp(n, KR_KERNEL_STORE_OP)) return lower_access(L, op, true);
  if (!strcmp(n, KR_KERNEL_ALLOC_OP)) return lower_alloc(L, op);
  if (!strcmp(n, KR_KERNEL_BARRIER_OP)) {
    nv_intrinsic(L, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
    return KR_SUCCESS;
  }
  if (!strcmp(n, KR_KERNEL_THREAD_ID_OP) || !strcmp(n, KR_KERNEL_BLOCK_ID_OP) || !strcmp(n, KR_KERNEL_BLOCK_DIM_OP) ||
      !strcmp(n, KR_KERNEL_GRID_DIM_OP) || !strcmp(n, KR_KERNEL_LANE_ID_OP) || !strcmp(n, KR_KERNEL_WARP_ID_OP))
    return lower_ids(L, op);
  if (!strcmp(n, KR_KERNEL_SHUFFLE_OP)) return lower_shuffle(L, op);
  if (!strcmp(n, KR_KERNEL_VECTOR_EXTRACT_OP)) {
    kr_attr p = kr_op_get_attr(op, KR_KERNEL_ATTR_POSITION);
    LLVMValueRef v = op->num_operands == 1 ? nv_get(L, kr_op_operand(op, 0)) : NULL;
    if (!v || !p || p->kind != KR_ATTR_INTEGER) return kr_op_emit_error(op, "expects a vector and a position in it");
    nv_set(L, kr_op_result(op, 0),
           LLVMBuildExtractElement(L->B, v, LLVMConstInt(L->i32, (unsigned long long)p->u.i, 0), ""));
    return KR_SUCCESS;
  }
  if (!strcmp(n, KR_KERNEL_VECTOR_FROM_ELEMENTS_OP)) {
    LLVMTypeRef vt = nv_type(L, kr_value_type(kr_op_result(op, 0)));
    if (!vt || LLVMGetVectorSize(vt) != op->num_operands)
      return kr_op_emit_error(op, "expects one operand per vector element");
    LLVMValueRef r = LLVMGetUndef(vt);
    for (unsigned i = 0; i < op->num_operands; i++) {
      LLVMValueRef e = nv_get(L, kr_op_operand(op, i));
      if (!e) return kr_op_emit_error(op, "operand not defined before its use");
      r = LLVMBuildInsertElement(L->B, r, e, LLVMConstInt(L->i32, i, 0), "");
    }
    nv_set(L, kr_op_result(op, 0), r);
    return KR_SUCCESS;
  }
  if (!strcmp(n, KR_KERNEL_MAP_OP))
    return kr_op_emit_error(op, "kernel.map must be lowered first (--lower-task-mappings)");
  return kr_op_emit_error(op, "is not supported by the NVPTX backend");
}

static kr_status lower_block(nv_lower *L, kr_block *b) {
  for (kr_op *op = b->first; op; op = op->next) {
    kr_status s = lower_op(L, op);
    if (s) return s;
  }
  return KR_SUCCESS;
}

/* Whether some kernel.store (anywhere in the body) writes buffer `v`: arguments nobody stores
 * to are the launch's inputs and get `readonly` (lets the backend use ld.global.nc). */
static bool stored_to(kr_value v) {
  for (kr_use *u = v->first_use; u; u = u->next)
    if (!strcmp(u->owner->name, KR_KERNEL_STORE_OP) && u->index == 1) return true;
  return false;
}

/* Adds enum attribute `name` to parameter `i` (1-based attribute index) of `fn`. */
static void param_attr(nv_lower *L, unsigned i, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(L->fn, i, LLVMCreateEnumAttribute(L->C, kind, 0));
}

/* Appends !{ptr @fn, !"key", i32 v} to the module's "nvvm.annotations" (NVPTXUsage "Kernel
 * metadata": maxntidx/y/z become PTX .maxntid, which bounds registers per thread). */
static void annotate(nv_lower *L, const char *key, int64_t v) {
  LLVMValueRef ops[3] = {L->fn, LLVMMDStringInContext(L->C, key, (unsigned)strlen(key)),
                         LLVMConstInt(L->i32, (unsigned long long)v, 0)};
  LLVMAddNamedMetadataOperand(L->M, "nvvm.annotations", LLVMMDNodeInContext(L->C, ops, 3));
}

/* One scheduled kernel.func -> one PTX kernel. */
static kr_status lower_func(nv_lower *L, kr_op *fn) {
  L->func = fn;
  L->num_smem = 0;
  L->dyn_offset = 0;
  L->dyn_smem = NULL;
  if (!read_dims(fn, KR_KERNEL_ATTR_GRID, L->grid) || !read_dims(fn, KR_KERNEL_ATTR_BLOCK, L->block))
    return kr_op_emit_error(fn, "scheduled kernel needs korch.grid and korch.block (array<i64: x, y, z>, each >= 1)");
  kr_block *body = single_block(fn, 0);
  if (!body) return kr_op_emit_error(fn, "has no body");
  if (kr_op_get_attr(fn, KR_KERNEL_ATTR_DYNAMIC_SMEM)) {
    L->dyn_smem = LLVMGetNamedGlobal(L->M, "korch_dynamic_smem");
    if (!L->dyn_smem) {
      L->dyn_smem = LLVMAddGlobalInAddressSpace(L->M, LLVMArrayType2(L->i8, 0), "korch_dynamic_smem", 3);
      LLVMSetLinkage(L->dyn_smem, LLVMExternalLinkage);
      LLVMSetAlignment(L->dyn_smem, 16);
    }
  }
  LLVMTypeRef *params = calloc(body->num_args ? body->num_args : 1, sizeof *params);
  if (!params) return KR_FAILURE;
  kr_kernel_buffer info;
  for (unsigned i = 0; i < body->num_args; i++) {
    if (!kr_kernel_buffer_info(kr_value_type(body->args[i]), &info) || info.space != KR_KERNEL_SPACE_GLOBAL) {
      free(params);
      return kr_op_emit_error(fn, "argument #%u is not a global !kernel.buffer", i);
    }
    params[i] = LLVMPointerTypeInContext(L->C, 1);
  }
  LLVMTypeRef ft = LLVMFunctionType(L->vd, params, body->num_args, 0);
  free(params);
  L->fn = LLVMAddFunction(L->M, kr_op_symbol_name(fn), ft);
  LLVMSetFunctionCallConv(L->fn, LLVMPTXKernelCallConv);
  annotate(L, "maxntidx", L->block[0]);
  annotate(L, "maxntidy", L->block[1]);
  annotate(L, "maxntidz", L->block[2]);
  L->entry = LLVMAppendBasicBlockInContext(L->C, L->fn, "entry");
  LLVMPositionBuilderAtEnd(L->B, L->entry);
  for (unsigned i = 0; i < body->num_args; i++) {
    kr_kernel_buffer_info(kr_value_type(body->args[i]), &info);
    LLVMValueRef p = LLVMGetParam(L->fn, i);
    char pname[32];
    snprintf(pname, sizeof pname, "arg%u", i);
    LLVMSetValueName2(p, pname, strlen(pname));
    param_attr(L, i + 1, "noalias");
    param_attr(L, i + 1, "nocapture");
    /* Every global buffer starts at a multiple of the plan's alignment (korch/plan.h, >= 16
     * bytes; cudaMalloc gives 256) - lets the LoadStoreVectorizer merge scalar accesses. */
    LLVMAddAttributeAtIndex(L->fn, i + 1,
                            LLVMCreateEnumAttribute(L->C, LLVMGetEnumAttributeKindForName("align", 5), 16));
    if (!stored_to(body->args[i])) param_attr(L, i + 1, "readonly");
    if (add_buffer(L, body->args[i], p, &info)) return KR_FAILURE;
  }
  kr_status s = lower_block(L, body);
  kr_attr dyn = kr_op_get_attr(fn, KR_KERNEL_ATTR_DYNAMIC_SMEM);
  if (!s && dyn && dyn->kind == KR_ATTR_INTEGER && L->dyn_offset > dyn->u.i)
    s = kr_op_emit_error(fn, "shared buffers need %lld bytes but korch.dynamic_shared_bytes is %lld",
                         (long long)L->dyn_offset, (long long)dyn->u.i);
  if (!s && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(L->B)))
    s = kr_op_emit_error(fn, "body does not end with %s", KR_KERNEL_RETURN_OP);
  return s;
}

/* Frees the buffer records and clears the maps between kernels. */
static void reset_maps(nv_lower *L) {
  for (size_t i = 0; i < L->bufs.cap; i++)
    if (L->bufs.slots[i].hash) free(L->bufs.slots[i].value);
  kr_hmap_clear(&L->bufs);
  kr_hmap_clear(&L->vals);
}

LLVMModuleRef kr_nvptx_lower_module(kr_op *module, LLVMContextRef llctx) {
  nv_lower L;
  memset(&L, 0, sizeof L);
  L.C = llctx;
  kr_ident mname = kr_op_symbol_name(module);
  L.M = LLVMModuleCreateWithNameInContext(mname ? mname : "korch", llctx);
  /* The NVPTX triple and data layout (NVPTXUsage "Triples", "Data Layout": 64-bit pointers). */
  LLVMSetTarget(L.M, "nvptx64-nvidia-cuda");
  LLVMSetDataLayout(L.M, "e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  L.B = LLVMCreateBuilderInContext(llctx);
  L.i1 = LLVMInt1TypeInContext(llctx);
  L.i8 = LLVMInt8TypeInContext(llctx);
  L.i16 = LLVMInt16TypeInContext(llctx);
  L.i32 = LLVMInt32TypeInContext(llctx);
  L.i64 = LLVMInt64TypeInContext(llctx);
  L.f16 = LLVMHalfTypeInContext(llctx);
  L.bf16 = LLVMBFloatTypeInContext(llctx);
  L.f32 = LLVMFloatTypeInContext(llctx);
  L.f64 = LLVMDoubleTypeInContext(llctx);
  L.vd = LLVMVoidTypeInContext(llctx);
  kr_status s = KR_SUCCESS;
  kr_block *top = single_block(module, 0);
  for (kr_op *op = top ? top->first : NULL; op && !s; op = op->next) {
    if (strcmp(op->name, KR_KERNEL_FUNC_OP)) continue;
    if (!kr_kernel_is_scheduled(op)) {
      s = kr_op_emit_error(op, "kernel is not scheduled (run --schedule first)");
      break;
    }
    s = lower_func(&L, op);
    reset_maps(&L);
  }
  char *msg = NULL;
  if (!s && LLVMVerifyModule(L.M, LLVMReturnStatusAction, &msg)) {
    s = kr_op_emit_error(module, "internal error: the LLVM module does not verify: %s", msg ? msg : "");
  }
  if (msg) LLVMDisposeMessage(msg);
  kr_hmap_free(&L.bufs);
  kr_hmap_free(&L.vals);
  LLVMDisposeBuilder(L.B);
  if (s) {
    LLVMDisposeModule(L.M);
    return NULL;
  }
  return L.M;
}
