/* backend/interp/simt_compile.c - compiles a scheduled kernel.func into the SIMT bytecode
 * (backend/interp/simt.h).
 *
 * One pass over the body: every SSA scalar gets a register slot (vectors N consecutive slots),
 * constants are written into the initial register file (so loops never re-materialise them),
 * buffers get table entries with their strides and arena offsets, and the region ops become flat
 * jumps:
 *   kernel.for   FOR_INIT iv=lb (jump past the loop when lb >= ub); body; FOR_NEXT (iv += step,
 *                jump back while iv < ub)
 *   kernel.if    JZ cond -> else; then; JMP end; else; end
 *   kernel.map   MAP_INIT (task 0 of the worker, or jump past when it owns none); body; MAP_NEXT
 * Errors (an op or type the interpreter does not run) are reported at the op. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/simt.h"
#include "korch/diag.h"
#include "korch/dialect.h"

typedef struct cc {
  simt_program *p;
  kr_vec code, ops, idx, bufs, acc, maps, init; /* simt_ins, kr_op*, int32_t, simt_buf, ... */
  kr_hmap regs;                                 /* kr_value -> register + 1 */
  kr_hmap bufs_of;                              /* kr_value -> buffer + 1 */
  unsigned nregs;
  kr_vec is_const; /* bool per register: holds a constant from the initial register file */
  int64_t shared, local, shadow;
  bool inner; /* the innermost enclosing kernel.for has no kernel.for inside it */
} cc;

static size_t emit(cc *c, kr_op *op, simt_ins in) {
  kr_vec_push(&c->code, &in, sizeof in);
  kr_vec_push(&c->ops, &op, sizeof op);
  return c->code.len - 1;
}

static simt_ins *at(cc *c, size_t i) { return &KR_VEC_AT(&c->code, simt_ins, i); }

static simt_ins mk(simt_opcode op, int32_t d, int32_t a, int32_t b) {
  simt_ins in;
  memset(&in, 0, sizeof in);
  in.op = (uint16_t)op;
  in.d = d;
  in.a = a;
  in.b = b;
  return in;
}

/* Registers a value occupying `n` slots; returns the first. */
static int32_t new_reg(cc *c, kr_value v, unsigned n) {
  int32_t r = (int32_t)c->nregs;
  c->nregs += n;
  simt_reg z = {.u = 0};
  bool f = false;
  for (unsigned i = 0; i < n; i++) {
    kr_vec_push(&c->init, &z, sizeof z);
    kr_vec_push(&c->is_const, &f, sizeof f);
  }
  if (v) {
    bool ins;
    kr_hmap_insert(&c->regs, kr_hash_ptr(v), v, &ins)->value = (void *)(uintptr_t)(r + 1);
  }
  return r;
}

static int32_t reg_of(cc *c, kr_op *op, unsigned i) {
  kr_value v = kr_op_operand(op, i);
  kr_hmap_entry *e = kr_hmap_find(&c->regs, kr_hash_ptr(v), v);
  return e ? (int32_t)((uintptr_t)e->value - 1) : -1;
}

/* Register class of a scalar type. */
typedef enum rclass { RC_INT, RC_F32, RC_F16, RC_BF16, RC_F64, RC_BAD } rclass;

static rclass class_of(kr_type t) {
  if (!t) return RC_BAD;
  if (t->kind == KR_TYPE_INDEX) return RC_INT;
  if (t->kind == KR_TYPE_INTEGER) return RC_INT;
  if (t->kind == KR_TYPE_FLOAT) {
    switch (t->u.fkind) {
    case KR_F32: return RC_F32;
    case KR_F16: return RC_F16;
    case KR_BF16: return RC_BF16;
    case KR_F64: return RC_F64;
    }
  }
  return RC_BAD;
}

static unsigned width_of(kr_type t) { return t->kind == KR_TYPE_INDEX ? 64 : kr_type_bitwidth(t); }

/* Slots a value of type t needs: 1 for a scalar, N for vector<N x T>; 0 when unsupported. */
static unsigned slots_of(kr_type t) {
  if (t && t->kind == KR_TYPE_VECTOR) {
    if (t->u.shaped.rank != 1 || t->u.shaped.dims[0] < 1 || t->u.shaped.dims[0] > 4) return 0;
    return class_of(t->u.shaped.elem) == RC_BAD ? 0 : (unsigned)t->u.shaped.dims[0];
  }
  return class_of(t) == RC_BAD ? 0 : 1;
}

static simt_reg scalar_of(kr_type t, double f, int64_t i, bool is_float) {
  simt_reg r = {.u = 0};
  rclass k = class_of(t);
  if (k == RC_INT) {
    unsigned w = width_of(t);
    int64_t v = is_float ? (int64_t)f : i;
    if (w == 1)
      v &= 1;
    else if (w < 64)
      v = (int64_t)((uint64_t)v << (64 - w)) >> (64 - w);
    r.i = v;
  } else if (k == RC_F64) {
    r.d = is_float ? f : (double)i;
  } else {
    r.f = (float)(is_float ? f : (double)i);
  }
  return r;
}

static kr_status compile_constant(cc *c, kr_op *op) {
  kr_attr v = kr_op_get_attr(op, "value");
  kr_value res = kr_op_result(op, 0);
  kr_type t = kr_value_type(res);
  unsigned n = slots_of(t);
  if (!v || !n) return kr_op_emit_error(op, "constant of this type is not supported by the SIMT interpreter");
  int32_t r = new_reg(c, res, n);
  for (unsigned k = 0; k < n; k++) KR_VEC_AT(&c->is_const, bool, r + k) = true;
  kr_type et = kr_type_element(t);
  simt_reg *init = KR_VEC_DATA(&c->init, simt_reg);
  for (unsigned k = 0; k < n; k++) {
    if (v->kind == KR_ATTR_DENSE) {
      init[r + k] = kr_type_is_float(et) ? scalar_of(et, kr_dense_get_f64(v, k), 0, true)
                                         : scalar_of(et, 0, kr_dense_get_i64(v, k), false);
    } else if (v->kind == KR_ATTR_FLOAT) {
      init[r + k] = scalar_of(et, v->u.f, 0, true);
    } else if (v->kind == KR_ATTR_INTEGER) {
      init[r + k] = scalar_of(et, 0, v->u.i, false);
    } else if (v->kind == KR_ATTR_BOOL) {
      init[r + k] = scalar_of(et, 0, v->u.b, false);
    } else {
      return kr_op_emit_error(op, "constant value is not supported by the SIMT interpreter");
    }
  }
  return KR_SUCCESS;
}

static simt_elem elem_kind(kr_type e, unsigned *width) {
  *width = kr_type_bitwidth(e);
  if (e->kind == KR_TYPE_FLOAT) {
    switch (e->u.fkind) {
    case KR_F32: return SE_F32;
    case KR_F64: return SE_F64;
    case KR_F16: return SE_F16;
    case KR_BF16: return SE_BF16;
    }
  }
  bool u = e->kind == KR_TYPE_INTEGER && e->u.integer.sign == KR_UNSIGNED;
  switch (*width) {
  case 1: return SE_I1;
  case 8: return u ? SE_U8 : SE_I8;
  case 16: return u ? SE_U16 : SE_I16;
  case 32: return u ? SE_U32 : SE_I32;
  case 64: return SE_I64;
  default: return SE_IOTHER;
  }
}

static kr_status add_buffer(cc *c, kr_value v, kr_op *alloc, int arg, kr_op *err_at) {
  kr_kernel_buffer info;
  if (!kr_kernel_buffer_info(kr_value_type(v), &info))
    return kr_op_emit_error(err_at, "%s is not a !kernel.buffer", alloc ? "allocation" : "argument");
  simt_buf b;
  memset(&b, 0, sizeof b);
  b.space = info.space;
  b.kind = elem_kind(info.elem, &b.width);
  b.esize = (unsigned)kr_type_storage_bytes(info.elem);
  b.rank = info.rank;
  memcpy(b.dims, info.dims, sizeof b.dims);
  memcpy(b.strides, info.strides, sizeof b.strides);
  b.span = info.span;
  b.arg = arg;
  b.alloc = alloc;
  b.shadow_base = -1;
  int64_t bytes = b.span * (int64_t)b.esize;
  /* Arenas align every buffer to 16 bytes, as the CUDA compiler aligns shared arrays for
   * 16-byte vector accesses; the memory report's bank mapping depends on it. */
  if (info.space == KR_KERNEL_SPACE_SHARED) {
    b.offset = c->shared;
    c->shared += (bytes + 15) & ~(int64_t)15;
    b.shadow_base = c->shadow;
    c->shadow += b.span;
  } else if (info.space == KR_KERNEL_SPACE_LOCAL) {
    b.offset = c->local;
    c->local += (bytes + 15) & ~(int64_t)15;
  } else if (alloc) {
    return kr_op_emit_error(alloc, "global buffers cannot be allocated in a kernel");
  }
  kr_vec_push(&c->bufs, &b, sizeof b);
  bool ins;
  kr_hmap_insert(&c->bufs_of, kr_hash_ptr(v), v, &ins)->value = (void *)(uintptr_t)c->bufs.len;
  return KR_SUCCESS;
}

static int buf_of(cc *c, kr_value v) {
  kr_hmap_entry *e = kr_hmap_find(&c->bufs_of, kr_hash_ptr(v), v);
  return e ? (int)((uintptr_t)e->value - 1) : -1;
}

static int64_t int_attr(kr_op *op, const char *name, int64_t dflt) {
  kr_attr a = kr_op_get_attr(op, name);
  return a && a->kind == KR_ATTR_INTEGER ? a->u.i : dflt;
}

static kr_status compile_block(cc *c, kr_block *b);

static bool has_nested_for(kr_op *op) {
  for (unsigned r = 0; r < op->num_regions; r++) {
    kr_region *reg = kr_op_region(op, r);
    for (kr_block *b = reg->first; b; b = b->next)
      for (kr_op *o = b->first; o; o = o->next)
        if (!strcmp(o->name, KR_KERNEL_FOR_OP) || has_nested_for(o)) return true;
  }
  return false;
}

static kr_block *single_block(kr_op *op, unsigned r) {
  if (r >= op->num_regions) return NULL;
  kr_region *reg = kr_op_region(op, r);
  return reg ? reg->first : NULL;
}

static kr_status compile_for(cc *c, kr_op *op) {
  kr_block *body = single_block(op, 0);
  if (op->num_operands != 3 || !body || body->num_args != 1)
    return kr_op_emit_error(op, "expects lb, ub, step and a body with one index argument");
  int32_t lb = reg_of(c, op, 0), ub = reg_of(c, op, 1), st = reg_of(c, op, 2);
  if (lb < 0 || ub < 0 || st < 0) return kr_op_emit_error(op, "operand not defined before its use");
  int32_t iv = new_reg(c, body->args[0], 1);
  simt_ins in = mk(SO_FOR_INIT, iv, lb, ub);
  in.c = st;
  size_t init = emit(c, op, in);
  bool saved = c->inner;
  c->inner = !has_nested_for(op);
  kr_status s = compile_block(c, body);
  c->inner = saved;
  if (s) return s;
  in = mk(SO_FOR_NEXT, iv, lb, ub);
  in.c = st;
  in.imm = (int64_t)init + 1;
  size_t next = emit(c, op, in);
  at(c, init)->imm = (int64_t)next + 1;
  return KR_SUCCESS;
}

static kr_status compile_if(cc *c, kr_op *op) {
  kr_block *then_b = single_block(op, 0), *else_b = single_block(op, 1);
  int32_t cond = op->num_operands == 1 ? reg_of(c, op, 0) : -1;
  if (cond < 0 || !then_b) return kr_op_emit_error(op, "expects an i1 condition and a then region");
  size_t jz = emit(c, op, mk(SO_JZ, 0, cond, 0));
  kr_status s = compile_block(c, then_b);
  if (s) return s;
  if (else_b && else_b->first) {
    size_t j = emit(c, op, mk(SO_JMP, 0, 0, 0));
    at(c, jz)->imm = (int64_t)c->code.len;
    if ((s = compile_block(c, else_b))) return s;
    at(c, j)->imm = (int64_t)c->code.len;
  } else {
    at(c, jz)->imm = (int64_t)c->code.len;
  }
  return KR_SUCCESS;
}

static kr_status compile_map(cc *c, kr_op *op) {
  kr_block *body = single_block(op, 0);
  kr_task_mapping m;
  if (op->num_operands != 1 || !body || !kr_task_mapping_from_attr(kr_op_get_attr(op, KR_KERNEL_ATTR_MAPPING), &m))
    return kr_op_emit_error(op, "expects a worker operand, a #kernel.task mapping and a body");
  if (body->num_args != m.rank)
    return kr_op_emit_error(op, "body has %u arguments but the mapping has %u dims", body->num_args, m.rank);
  int32_t w = reg_of(c, op, 0);
  if (w < 0) return kr_op_emit_error(op, "operand not defined before its use");
  int32_t first = (int32_t)c->nregs;
  for (unsigned i = 0; i < m.rank; i++) new_reg(c, body->args[i], 1);
  int32_t counter = new_reg(c, NULL, 1);
  kr_vec_push(&c->maps, &m, sizeof m);
  simt_ins in = mk(SO_MAP_INIT, first, w, counter);
  in.c = (int32_t)(c->maps.len - 1);
  size_t init = emit(c, op, in);
  kr_status s = compile_block(c, body);
  if (s) return s;
  in.op = SO_MAP_NEXT;
  in.imm = (int64_t)init + 1;
  size_t next = emit(c, op, in);
  at(c, init)->imm = (int64_t)next + 1;
  return KR_SUCCESS;
}

static kr_status compile_access(cc *c, kr_op *op, bool store) {
  unsigned first = store ? 1 : 0; /* operand index of the buffer */
  if (op->num_operands < first + 1) return kr_op_emit_error(op, "expects a buffer operand");
  int bi = buf_of(c, kr_op_operand(op, first));
  if (bi < 0) return kr_op_emit_error(op, "buffer operand is not a kernel argument or kernel.alloc");
  simt_buf *b = &KR_VEC_AT(&c->bufs, simt_buf, bi);
  unsigned nidx = op->num_operands - first - 1;
  if (nidx != b->rank) return kr_op_emit_error(op, "has %u indices for a buffer of rank %u", nidx, b->rank);
  kr_type vt = store ? kr_value_type(kr_op_operand(op, 0)) : kr_value_type(kr_op_result(op, 0));
  unsigned n = slots_of(vt);
  if (!n || (vt->kind == KR_TYPE_VECTOR && n != 2 && n != 4))
    return kr_op_emit_error(op, "value type is not a scalar or vector<2|4 x T> the SIMT interpreter runs");
  if (n > 1 && (b->rank == 0 || b->strides[b->rank - 1] != 1))
    return kr_op_emit_error(op, "vector access needs a buffer whose last dimension has stride 1");
  simt_ins in = mk(store ? SO_STORE : SO_LOAD, 0, bi, (int32_t)c->idx.len);
  in.aux = (uint8_t)n;
  for (unsigned k = 0; k < nidx; k++) {
    int32_t r = reg_of(c, op, first + 1 + k);
    if (r < 0) return kr_op_emit_error(op, "operand not defined before its use");
    kr_vec_push(&c->idx, &r, sizeof r);
  }
  if (store) {
    in.d = reg_of(c, op, 0);
    if (in.d < 0) return kr_op_emit_error(op, "operand not defined before its use");
  } else {
    in.d = new_reg(c, kr_op_result(op, 0), n);
  }
  if (n == 1 && b->kind == SE_F32) in.op = store ? SO_STOREF32 : SO_LOADF32;
  simt_access a = {.op = op, .buf = (unsigned)bi, .store = store, .inner = c->inner};
  kr_vec_push(&c->acc, &a, sizeof a);
  in.c = (int32_t)(c->acc.len - 1);
  emit(c, op, in);
  return KR_SUCCESS;
}

/* Name tables of the arith ops the interpreter runs. */
typedef struct int_binop {
  const char *name;
  simt_opcode op;
} int_binop;
static const int_binop int_binops[] = {
    {"arith.addi", SO_ADDI},   {"arith.subi", SO_SUBI},   {"arith.muli", SO_MULI},   {"arith.divsi", SO_DIVSI},
    {"arith.divui", SO_DIVUI}, {"arith.remsi", SO_REMSI}, {"arith.remui", SO_REMUI}, {"arith.andi", SO_ANDI},
    {"arith.ori", SO_ORI},     {"arith.xori", SO_XORI},   {"arith.shli", SO_SHLI},   {"arith.shrsi", SO_SHRSI},
    {"arith.shrui", SO_SHRUI}, {"arith.maxsi", SO_MAXSI}, {"arith.minsi", SO_MINSI}, {"arith.maxui", SO_MAXUI},
    {"arith.minui", SO_MINUI},
};
typedef struct float_op {
  const char *name;
  simt_opcode f32, f64;
} float_op;
static const float_op float_binops[] = {
    {"arith.addf", SO_ADDF32, SO_ADDF64},
    {"arith.subf", SO_SUBF32, SO_SUBF64},
    {"arith.mulf", SO_MULF32, SO_MULF64},
    {"arith.divf", SO_DIVF32, SO_DIVF64},
};
typedef struct math_op {
  const char *name;
  simt_math m;
} math_op;
static const math_op math_ops[] = {
    {"arith.exp", SM_EXP},
    {"arith.log", SM_LOG},
    {"arith.sqrt", SM_SQRT},
    {"arith.rsqrt", SM_RSQRT},
    {"arith.tanh", SM_TANH},
    {"arith.erf", SM_ERF},
    {"arith.sin", SM_SIN},
    {"arith.cos", SM_COS},
    {"arith.floor", SM_FLOOR},
    {"arith.ceil", SM_CEIL},
    {"arith.roundeven", SM_ROUNDEVEN},
    {"arith.absf", SM_ABSF},
    {"arith.powf", SM_POW},
    {"arith.remf", SM_REM},
};

/* f16/bf16 results round after the float computation (exact for + - * / and sqrt: float has more
 * than twice their precision plus two bits, so the double rounding is innocuous). */
static void round_result(cc *c, kr_op *op, int32_t d, rclass k) {
  if (k == RC_F16 || k == RC_BF16) {
    simt_ins r = mk(SO_ROUND16, d, d, 0);
    r.aux = k == RC_BF16;
    emit(c, op, r);
  }
}

static kr_status compile_arith(cc *c, kr_op *op) {
  const char *name = op->name;
  if (op->num_results != 1) return kr_op_emit_error(op, "is not supported by the SIMT interpreter");
  kr_type rt = kr_value_type(kr_op_result(op, 0));
  rclass rk = class_of(rt);
  if (rk == RC_BAD)
    return kr_op_emit_error(op, "result type is not a scalar the SIMT interpreter runs (arith on vectors is not "
                                "supported; use kernel.vector_extract)");
  int32_t a[3] = {-1, -1, -1};
  for (unsigned i = 0; i < op->num_operands && i < 3; i++) {
    a[i] = reg_of(c, op, i);
    if (a[i] < 0) return kr_op_emit_error(op, "operand #%u not defined before its use", i);
    if (class_of(kr_value_type(kr_op_operand(op, i))) == RC_BAD)
      return kr_op_emit_error(op, "operand #%u is not a scalar the SIMT interpreter runs", i);
  }
  kr_type in0 = op->num_operands ? kr_value_type(kr_op_operand(op, 0)) : NULL;
  rclass k0 = class_of(in0);
  int32_t d = new_reg(c, kr_op_result(op, 0), 1);
  simt_ins in = mk(SO_MOV, d, a[0], a[1]);
  in.c = a[2];
  in.w = (uint8_t)(rk == RC_INT ? width_of(rt) : (unsigned)rt->u.fkind);

  for (size_t i = 0; i < sizeof int_binops / sizeof *int_binops; i++)
    if (!strcmp(name, int_binops[i].name)) {
      in.op = (uint16_t)int_binops[i].op;
      if (in.w == 64) {
        const simt_reg *init = KR_VEC_DATA(&c->init, simt_reg);
        bool cb = KR_VEC_AT(&c->is_const, bool, a[1]);
        if (in.op == SO_ADDI)
          in.op = SO_ADDI64;
        else if (in.op == SO_SUBI)
          in.op = SO_SUBI64;
        else if (in.op == SO_MULI)
          in.op = SO_MULI64;
        else if ((in.op == SO_DIVSI || in.op == SO_REMSI) && cb && init[a[1]].i > 0) {
          in.op = in.op == SO_DIVSI ? SO_DIVSI_C : SO_REMSI_C;
          in.imm = init[a[1]].i;
        }
      }
      emit(c, op, in);
      return KR_SUCCESS;
    }
  for (size_t i = 0; i < sizeof float_binops / sizeof *float_binops; i++)
    if (!strcmp(name, float_binops[i].name)) {
      in.op = (uint16_t)(rk == RC_F64 ? float_binops[i].f64 : float_binops[i].f32);
      emit(c, op, in);
      round_result(c, op, d, rk);
      return KR_SUCCESS;
    }
  for (size_t i = 0; i < sizeof math_ops / sizeof *math_ops; i++)
    if (!strcmp(name, math_ops[i].name)) {
      in.op = math_ops[i].m >= SM_POW ? SO_MATH2 : SO_MATH1;
      in.aux = (uint8_t)math_ops[i].m;
      emit(c, op, in);
      return KR_SUCCESS;
    }
  if (!strcmp(name, "arith.negf")) {
    in.op = rk == RC_F64 ? SO_NEGF64 : SO_NEGF32;
  } else if (!strcmp(name, "arith.fma")) {
    in.op = rk == RC_F64 ? SO_FMA64 : SO_FMA32;
    emit(c, op, in);
    round_result(c, op, d, rk);
    return KR_SUCCESS;
  } else if (!strcmp(name, "arith.maximumf") || !strcmp(name, "arith.minimumf")) {
    in.op = name[7] == 'a' ? SO_MAXF : SO_MINF;
    in.aux = rk == RC_F64;
  } else if (!strcmp(name, "arith.cmpi")) {
    in.op = SO_CMPI;
    in.w = (uint8_t)width_of(in0);
    in.aux = (uint8_t)int_attr(op, "predicate", 0);
    if (in.w == 64 && in.aux < 10) in.op = (uint16_t)(SO_CMPI64_EQ + in.aux);
  } else if (!strcmp(name, "arith.cmpf")) {
    in.op = k0 == RC_F64 ? SO_CMPF64 : SO_CMPF32;
    in.aux = (uint8_t)int_attr(op, "predicate", 0);
  } else if (!strcmp(name, "arith.select")) {
    in.op = SO_SELECT;
  } else if (!strcmp(name, "arith.absi")) {
    in.op = SO_ABSI;
  } else if (!strcmp(name, "arith.extsi") || !strcmp(name, "arith.index_cast") || !strcmp(name, "arith.trunci")) {
    in.op = SO_SEXT;
    in.aux = (uint8_t)width_of(in0);
  } else if (!strcmp(name, "arith.extui") || !strcmp(name, "arith.index_castui")) {
    in.op = SO_ZEXT;
    in.aux = (uint8_t)width_of(in0);
  } else if (!strcmp(name, "arith.sitofp") || !strcmp(name, "arith.uitofp") || !strcmp(name, "arith.fptosi") ||
             !strcmp(name, "arith.fptoui") || !strcmp(name, "arith.extf") || !strcmp(name, "arith.truncf")) {
    in.op = SO_CAST;
    /* b: the source's width (integers) or float kind. */
    in.b = (int32_t)(k0 == RC_INT ? width_of(in0) : (unsigned)in0->u.fkind);
    if (!strcmp(name, "arith.sitofp"))
      in.aux = SC_SITOFP;
    else if (!strcmp(name, "arith.uitofp"))
      in.aux = SC_UITOFP;
    else if (!strcmp(name, "arith.fptosi"))
      in.aux = SC_FPTOSI;
    else if (!strcmp(name, "arith.fptoui"))
      in.aux = SC_FPTOUI;
    else if (!strcmp(name, "arith.extf"))
      in.aux = SC_EXTF;
    else {
      kr_attr m = kr_op_get_attr(op, "roundingmode");
      in.aux = m && m->kind == KR_ATTR_STRING && !strcmp(m->u.string.str, "toward_zero") ? SC_TRUNCF_RZ : SC_TRUNCF;
    }
  } else {
    return kr_op_emit_error(op, "is not supported by the SIMT interpreter");
  }
  emit(c, op, in);
  return KR_SUCCESS;
}

static kr_status compile_op(cc *c, kr_op *op) {
  const char *n = op->name;
  if (!strcmp(n, KR_KERNEL_RETURN_OP)) {
    emit(c, op, mk(SO_END, 0, 0, 0));
    return KR_SUCCESS;
  }
  if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE)) return compile_constant(c, op);
  /* A scalar op whose result nobody uses has no effect: skip it (templates leave some). */
  if ((!strncmp(n, "arith.", 6) || !strcmp(n, KR_KERNEL_THREAD_ID_OP) || !strcmp(n, KR_KERNEL_BLOCK_ID_OP)) &&
      op->num_results == 1 && !kr_value_has_uses(kr_op_result(op, 0)))
    return KR_SUCCESS;
  if (!strncmp(n, "arith.", 6)) return compile_arith(c, op);
  if (!strcmp(n, KR_KERNEL_FOR_OP)) return compile_for(c, op);
  if (!strcmp(n, KR_KERNEL_IF_OP)) return compile_if(c, op);
  if (!strcmp(n, KR_KERNEL_MAP_OP)) return compile_map(c, op);
  if (!strcmp(n, KR_KERNEL_LOAD_OP)) return compile_access(c, op, false);
  if (!strcmp(n, KR_KERNEL_STORE_OP)) return compile_access(c, op, true);
  if (!strcmp(n, KR_KERNEL_ALLOC_OP)) {
    if (op->num_results != 1) return kr_op_emit_error(op, "expects one result");
    return add_buffer(c, kr_op_result(op, 0), op, -1, op);
  }
  if (!strcmp(n, KR_KERNEL_BARRIER_OP)) {
    emit(c, op, mk(SO_BARRIER, 0, 0, 0));
    return KR_SUCCESS;
  }
  static const struct {
    const char *name;
    simt_opcode op;
  } ids[] = {
      {KR_KERNEL_THREAD_ID_OP, SO_TID}, {KR_KERNEL_BLOCK_ID_OP, SO_BID}, {KR_KERNEL_BLOCK_DIM_OP, SO_BDIM},
      {KR_KERNEL_GRID_DIM_OP, SO_GDIM}, {KR_KERNEL_LANE_ID_OP, SO_LANE}, {KR_KERNEL_WARP_ID_OP, SO_WARP},
  };
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    if (!strcmp(n, ids[i].name)) {
      simt_ins in = mk(ids[i].op, new_reg(c, kr_op_result(op, 0), 1), 0, 0);
      int64_t dim = int_attr(op, KR_KERNEL_ATTR_DIM, 0);
      if (dim < 0 || dim > 2) return kr_op_emit_error(op, "dim must be 0, 1 or 2");
      in.aux = (uint8_t)dim;
      emit(c, op, in);
      return KR_SUCCESS;
    }
  if (!strcmp(n, KR_KERNEL_SHUFFLE_OP)) {
    kr_attr m = kr_op_get_attr(op, KR_KERNEL_ATTR_MODE);
    static const char *const modes[] = {"xor", "down", "up", "idx"};
    int mode = -1;
    for (int i = 0; m && m->kind == KR_ATTR_STRING && i < 4; i++)
      if (!strcmp(m->u.string.str, modes[i])) mode = i;
    int32_t v = op->num_operands == 2 ? reg_of(c, op, 0) : -1, off = op->num_operands == 2 ? reg_of(c, op, 1) : -1;
    if (mode < 0 || v < 0 || off < 0 || slots_of(kr_value_type(kr_op_operand(op, 0))) != 1)
      return kr_op_emit_error(op, "expects a scalar value, an index offset and a mode xor/down/up/idx");
    simt_ins in = mk(SO_SHUFFLE, new_reg(c, kr_op_result(op, 0), 1), v, off);
    in.aux = (uint8_t)mode;
    emit(c, op, in);
    return KR_SUCCESS;
  }
  if (!strcmp(n, KR_KERNEL_VECTOR_EXTRACT_OP)) {
    int32_t v = op->num_operands == 1 ? reg_of(c, op, 0) : -1;
    int64_t pos = int_attr(op, KR_KERNEL_ATTR_POSITION, -1);
    unsigned nv = v >= 0 ? slots_of(kr_value_type(kr_op_operand(op, 0))) : 0;
    if (v < 0 || pos < 0 || pos >= (int64_t)nv) return kr_op_emit_error(op, "expects a vector and a position in it");
    /* The element is the vector's slot: alias it instead of copying. */
    bool ins;
    kr_value r = kr_op_result(op, 0);
    kr_hmap_insert(&c->regs, kr_hash_ptr(r), r, &ins)->value = (void *)(uintptr_t)(v + pos + 1);
    return KR_SUCCESS;
  }
  if (!strcmp(n, KR_KERNEL_VECTOR_FROM_ELEMENTS_OP)) {
    unsigned nv = slots_of(kr_value_type(kr_op_result(op, 0)));
    if (nv != op->num_operands) return kr_op_emit_error(op, "expects one operand per vector element");
    int32_t d = new_reg(c, kr_op_result(op, 0), nv);
    for (unsigned i = 0; i < nv; i++) {
      int32_t s = reg_of(c, op, i);
      if (s < 0) return kr_op_emit_error(op, "operand not defined before its use");
      emit(c, op, mk(SO_MOV, d + (int32_t)i, s, 0));
    }
    return KR_SUCCESS;
  }
  return kr_op_emit_error(op, "is not supported by the SIMT interpreter");
}

static kr_status compile_block(cc *c, kr_block *b) {
  for (kr_op *op = b->first; op; op = op->next) {
    kr_status s = compile_op(c, op);
    if (s) return s;
  }
  return KR_SUCCESS;
}

static bool read_dims(kr_op *fn, const char *name, int64_t out[3]) {
  kr_attr a = kr_op_get_attr(fn, name);
  if (!a || a->kind != KR_ATTR_DENSE_ARRAY || a->u.dense_array.num != 3) return false;
  memcpy(out, a->u.dense_array.data, 3 * sizeof(int64_t));
  return out[0] >= 1 && out[1] >= 1 && out[2] >= 1;
}

kr_status simt_compile(kr_op *fn, simt_program *p) {
  memset(p, 0, sizeof *p);
  p->func = fn;
  if (!read_dims(fn, KR_KERNEL_ATTR_GRID, p->grid) || !read_dims(fn, KR_KERNEL_ATTR_BLOCK, p->block))
    return kr_op_emit_error(fn, "scheduled kernel needs korch.grid and korch.block (array<i64: x, y, z>, each >= 1)");
  if (p->block[0] * p->block[1] * p->block[2] > 1024)
    return kr_op_emit_error(fn, "korch.block has more than 1024 threads");
  kr_block *body = single_block(fn, 0);
  if (!body) return kr_op_emit_error(fn, "has no body");
  cc c;
  memset(&c, 0, sizeof c);
  c.p = p;
  kr_status s = KR_SUCCESS;
  for (unsigned i = 0; !s && i < body->num_args; i++) s = add_buffer(&c, body->args[i], NULL, (int)i, fn);
  p->num_args = body->num_args;
  if (!s) s = compile_block(&c, body);
  if (!s && (!c.code.len || KR_VEC_AT(&c.code, simt_ins, c.code.len - 1).op != SO_END))
    s = kr_op_emit_error(fn, "body does not end with %s", KR_KERNEL_RETURN_OP);
  p->code = KR_VEC_DATA(&c.code, simt_ins);
  p->ncode = c.code.len;
  p->ops = KR_VEC_DATA(&c.ops, kr_op *);
  p->idx = KR_VEC_DATA(&c.idx, int32_t);
  p->nidx = c.idx.len;
  p->bufs = KR_VEC_DATA(&c.bufs, simt_buf);
  p->nbufs = (unsigned)c.bufs.len;
  p->acc = KR_VEC_DATA(&c.acc, simt_access);
  p->nacc = (unsigned)c.acc.len;
  p->maps = KR_VEC_DATA(&c.maps, kr_task_mapping);
  p->nmaps = (unsigned)c.maps.len;
  p->init = KR_VEC_DATA(&c.init, simt_reg);
  p->nregs = c.nregs;
  p->shared_bytes = c.shared;
  p->local_bytes = c.local;
  p->shadow_elems = c.shadow;
  kr_vec_free(&c.is_const);
  kr_hmap_free(&c.regs);
  kr_hmap_free(&c.bufs_of);
  return s;
}

void simt_program_free(simt_program *p) {
  free(p->code);
  free(p->ops);
  free(p->idx);
  free(p->bufs);
  free(p->acc);
  free(p->maps);
  free(p->init);
  memset(p, 0, sizeof *p);
}
