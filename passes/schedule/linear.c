/* passes/schedule/linear.c - the linear templates' dispatch (schedule.h ks_schedule_linear;
 * docs/Scheduling.md "Linear kernels"): finds the kernel's one prim.matmul / prim.conv L, reads
 * it as a batched GEMM (operands.c, conv.c), picks the tiled template (matmul.c, with a tile
 * from tiles.c) or the direct one (direct.c), and provides what both share: the epilogue stored
 * at each output element and the separate phase for written prologue members.
 *
 * Fusion (Hidet ASPLOS'23 §5, post-scheduling fusion; docs/Orchestration.md "The
 * schedulability contract"):
 *  - prologues are inlined into the loads of A and B: the template asks the element emitter for
 *    L's operand at the GEMM index, which computes the prologue chain back to the inputs;
 *  - epilogues are computed at the store of each output element: the emitter's value for L is
 *    overridden by the accumulator, and each written epilogue member is emitted at its own
 *    index (its shape is L's result's up to unit dims, so the index maps one to one);
 *  - a written member L does not reach (a prologue or a side input) is stored in a phase of its
 *    own over its own index space: a block only computes the prologue elements of its tiles,
 *    and those neither cover the tensor nor are they all needed by one block. */
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/prim.h"
#include "passes/schedule/linear_internal.h"

int64_t kl_elem_bytes(kr_type t) { return (int64_t)kr_type_storage_bytes(t); }

kr_value kl_cmp(ks_builder *kb, const char *pred, kr_value a, kr_value b) {
  /* arith.cmpi's predicate is MLIR's integer enum: eq ne slt sle sgt sge ult ule ugt uge. */
  static const char *const names[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  int64_t p = 0;
  for (int64_t i = 0; i < 10; i++)
    if (!strcmp(names[i], pred)) p = i;
  kr_value ops[2] = {a, b};
  kr_op *op = ks_create(kb, "arith.cmpi", ops, 2, kr_type_integer(kb->ctx, 1, KR_SIGNLESS), 0);
  kr_op_set_attr(op, "predicate", kr_attr_integer(kb->ctx, kr_type_integer(kb->ctx, 64, KR_SIGNLESS), p));
  return kr_op_result(op, 0);
}

kr_value kl_zero(ks_builder *kb, kr_type t) {
  return kr_type_is_float(t) ? ks_const_float(kb, t, 0.0) : ks_const_int(kb, t, 0);
}

kr_value kl_to_acc(kl_kernel *lk, kr_value v) {
  if (lk->g.acc == lk->g.elem) return v;
  return ks_create1(&lk->kb, "arith.extf", &v, 1, lk->g.acc);
}

kr_value kl_from_acc(kl_kernel *lk, kr_value v) {
  if (lk->g.acc == lk->g.elem) return v;
  return ks_create1(&lk->kb, "arith.truncf", &v, 1, lk->g.elem);
}

kr_value kl_mac(kl_kernel *lk, kr_value a, kr_value b, kr_value acc) {
  if (lk->g.is_float) {
    /* One rounding per step, as BLAS (the interpreter's reference) computes with FMA. */
    kr_value ops[3] = {a, b, acc};
    return ks_create1(&lk->kb, "arith.fma", ops, 3, lk->g.acc);
  }
  kr_value ops[2] = {a, b};
  kr_value p = ks_create1(&lk->kb, "arith.muli", ops, 2, lk->g.acc); /* wraps in the element type */
  kr_value s[2] = {acc, p};
  return ks_create1(&lk->kb, "arith.addi", s, 2, lk->g.acc);
}

/* The emitter's value of L at the epilogue point: the current accumulator (the epilogue only
 * ever asks for the element being stored, since its members are elementwise, unit-dim
 * broadcasts or reshapes of L's tile). */
static kr_value cur_element(ks_emitter *e, void *user, kr_value v, const kr_value *index) {
  (void)e;
  (void)v;
  (void)index;
  return ((kl_kernel *)user)->cur;
}

/* The index of output `u` (same shape as L's result up to unit dims) at L's index `li`. */
static kr_status map_index(kl_kernel *lk, kr_value u, const kr_value *li, kr_value *ui) {
  kr_type t = kr_value_type(u);
  unsigned ur = t->u.shaped.rank, j = 0;
  for (unsigned i = 0; i < ur; i++) {
    if (t->u.shaped.dims[i] == 1) {
      ui[i] = ks_index(&lk->kb, 0);
      continue;
    }
    while (j < lk->g.out_rank && lk->g.out_dims[j] == 1) j++;
    if (j >= lk->g.out_rank || lk->g.out_dims[j] != t->u.shaped.dims[i])
      return kr_op_emit_error(lk->k->func, "schedule: an epilogue output's shape is not the linear result's up to unit dims");
    ui[i] = li[j++];
  }
  while (j < lk->g.out_rank && lk->g.out_dims[j] == 1) j++;
  if (j != lk->g.out_rank)
    return kr_op_emit_error(lk->k->func, "schedule: an epilogue output's shape is not the linear result's up to unit dims");
  return KR_SUCCESS;
}

kr_status kl_epilogue_values(kl_kernel *lk, kr_value b, kr_value m, kr_value n, kr_value acc, kr_value *vals,
                             kr_value (*idx)[KR_KERNEL_MAX_RANK]) {
  ks_builder *kb = &lk->kb;
  kr_value li[KR_KERNEL_MAX_RANK];
  kl_out_index(&lk->g, kb, b, m, n, li);
  lk->cur = kl_from_acc(lk, acc);
  kr_value L = kr_op_result(lk->g.L, 0);
  for (unsigned i = 0; i < lk->k->num_outputs; i++) {
    kr_value o = lk->k->outputs[i];
    vals[i] = NULL;
    if (o == L) {
      memcpy(idx[i], li, lk->g.out_rank * sizeof *li);
      vals[i] = lk->cur;
    } else if (lk->epilogue[i]) {
      if (KR_FAILED(map_index(lk, o, li, idx[i]))) return KR_FAILURE;
      if (!(vals[i] = ks_emit_element(lk->e, o, idx[i]))) return KR_FAILURE;
    }
  }
  return KR_SUCCESS;
}

kr_status kl_store_epilogue(kl_kernel *lk, kr_value b, kr_value m, kr_value n, kr_value acc) {
  unsigned no = lk->k->num_outputs;
  kr_value *vals = calloc(no + 1, sizeof *vals);
  kr_value(*idx)[KR_KERNEL_MAX_RANK] = calloc(no + 1, sizeof *idx);
  kr_status st = vals && idx ? kl_epilogue_values(lk, b, m, n, acc, vals, idx)
                             : kr_op_emit_error(lk->k->func, "schedule: out of memory");
  for (unsigned i = 0; i < no && !KR_FAILED(st); i++)
    if (vals[i]) ks_store(&lk->kb, vals[i], lk->k->out_bufs[i], idx[i]);
  free(vals);
  free(idx);
  return st;
}

kr_status kl_store_prologues(kl_kernel *lk, const int64_t grid[3], int64_t threads) {
  ks_builder *kb = &lk->kb;
  kr_value L = kr_op_result(lk->g.L, 0);
  kr_value gtid = NULL;
  for (unsigned i = 0; i < lk->k->num_outputs; i++) {
    kr_value o = lk->k->outputs[i];
    if (o == L || lk->epilogue[i]) continue;
    kr_type t = kr_value_type(o);
    int64_t numel = kr_type_num_elements(t);
    if (numel <= 0) continue;
    if (!gtid) {
      kr_value blk = ks_block_id(kb, 2);
      blk = ks_add(kb, ks_mulc(kb, blk, grid[1]), ks_block_id(kb, 1));
      blk = ks_add(kb, ks_mulc(kb, blk, grid[0]), ks_block_id(kb, 0));
      gtid = ks_add(kb, ks_mulc(kb, blk, threads), ks_thread_id(kb));
    }
    /* A grid-stride loop: every element once, by consecutive threads (coalesced). */
    ks_scope s;
    kr_value e = ks_for(kb, gtid, ks_index(kb, numel), ks_index(kb, grid[0] * grid[1] * grid[2] * threads), &s);
    kr_value idx[KR_KERNEL_MAX_RANK];
    ks_delinearize(kb, e, t->u.shaped.dims, t->u.shaped.rank, idx);
    kr_value v = ks_emit_element(lk->e, o, idx);
    if (!v) return KR_FAILURE;
    ks_store(kb, v, lk->k->out_bufs[i], idx);
    ks_end(kb, &s);
  }
  return KR_SUCCESS;
}

/* Marks the outputs L reaches (epilogues) by a forward walk in block order. */
static void mark_epilogues(kl_kernel *lk) {
  kr_value L = kr_op_result(lk->g.L, 0);
  kr_vec reached = {0};
  KR_VEC_PUSH(&reached, kr_value, L);
  for (kr_op *op = lk->g.L->next; op; op = op->next) {
    bool hit = false;
    for (unsigned i = 0; i < op->num_operands && !hit; i++)
      for (size_t j = 0; j < reached.len && !hit; j++) hit = kr_op_operand(op, i) == KR_VEC_AT(&reached, kr_value, j);
    if (hit)
      for (unsigned r = 0; r < op->num_results; r++) KR_VEC_PUSH(&reached, kr_value, kr_op_result(op, r));
  }
  for (unsigned i = 0; i < lk->k->num_outputs; i++) {
    lk->epilogue[i] = false;
    for (size_t j = 1; j < reached.len; j++)
      if (lk->k->outputs[i] == KR_VEC_AT(&reached, kr_value, j)) lk->epilogue[i] = true;
  }
  kr_vec_free(&reached);
}

/* Erases pure ops whose results are unused (the constants that index folding left behind):
 * the interpreter executes every op, and the printed kernel reads better without them. */
static void drop_dead(kr_block *b) {
  for (kr_op *op = b ? b->last : NULL, *prev; op; op = prev) {
    prev = op->prev;
    for (unsigned r = 0; r < op->num_regions; r++)
      for (kr_block *nb = op->regions[r].first; nb; nb = nb->next) drop_dead(nb);
    if (!op->num_results || !kr_op_has_trait(op, KR_TRAIT_PURE)) continue;
    bool used = false;
    for (unsigned r = 0; r < op->num_results && !used; r++) used = kr_value_has_uses(kr_op_result(op, r));
    if (!used) kr_op_erase(op);
  }
}

kr_status ks_schedule_linear(ks_kernel *k) {
  kr_op *L = NULL;
  unsigned nlin = 0;
  for (kr_op *op = k->old_body->first; op; op = op->next)
    if (kr_prim_op_class(op) == KR_PRIM_LINEAR) {
      L = L ? L : op;
      nlin++;
    }
  if (nlin != 1 || (strcmp(L->name, "prim.matmul") && strcmp(L->name, "prim.conv")))
    return kr_op_emit_error(k->func, "schedule: a linear kernel needs exactly one prim.matmul or prim.conv (has %u "
                                     "linear primitives)", nlin);
  kl_kernel lk;
  memset(&lk, 0, sizeof lk);
  lk.k = k;
  if (KR_FAILED(kl_gemm_init(k, L, &lk.g))) return KR_FAILURE;
  lk.epilogue = calloc(k->num_outputs + 1, sizeof *lk.epilogue);
  if (!lk.epilogue) return kr_op_emit_error(k->func, "schedule: out of memory");
  mark_epilogues(&lk);
  ks_builder_init(&lk.kb, k->ctx, k->body, L->loc);
  lk.e = ks_emitter_create(k, &lk.kb);
  kr_status st = KR_SUCCESS;
  if (!lk.e) {
    st = kr_op_emit_error(k->func, "schedule: out of memory");
  } else {
    ks_emitter_override(lk.e, kr_op_result(L, 0), cur_element, &lk);
    kl_tile t;
    bool tiled = false;
    bool forced = k->tile_override && k->tile_override[0];
    if (lk.g.batch * lk.g.M * lk.g.N > 0 && (forced || !kl_prefer_direct(&lk.g)))
      tiled = kl_choose_tile(&lk, &t, &st);
    if (!KR_FAILED(st)) st = tiled ? kl_build_tiled(&lk, &t) : kl_build_direct(&lk);
    if (!KR_FAILED(st)) {
      ks_create(&lk.kb, KR_KERNEL_RETURN_OP, NULL, 0, NULL, 0);
      drop_dead(k->body);
    }
    ks_emitter_destroy(lk.e);
  }
  free(lk.epilogue);
  return st;
}
