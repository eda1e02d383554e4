/* passes/plan/read.c - kr_plan_read / kr_plan_is_planned (korch/plan.h): the planned level read
 * back from its attributes and checked, so that a stale or hand-written plan that would make two
 * live tensors share bytes is a diagnostic here rather than wrong numbers on the GPU.  The first
 * problem found is reported (at the op whose attribute is wrong) and the read stops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/kernel.h"
#include "korch/rewrite.h"
#include "passes/plan/plan_impl.h"

bool kr_plan_is_planned(kr_op *func) { return func && kr_op_get_attr(func, KR_PLAN_ARENA_BYTES) != NULL; }

static bool is_i64(kr_attr a) { return a && a->kind == KR_ATTR_INTEGER && kr_type_is_integer(a->type, 64); }

/* A required i64 attribute of `op` (>= 0). */
static kr_status get_u64(kr_op *op, const char *name, uint64_t *out) {
  kr_attr a = kr_op_get_attr(op, name);
  if (!a) return kr_op_emit_error(op, "requires attribute '%s' (i64) of the memory plan", name);
  if (!is_i64(a) || a->u.i < 0)
    return kr_op_emit_error(op, "attribute '%s' of the memory plan must be a non-negative i64", name);
  *out = (uint64_t)a->u.i;
  return KR_SUCCESS;
}

/* The arg_attrs dictionary of argument i (NULL when absent). */
static kr_attr arg_dict(kr_op *func, const char *which, unsigned i) {
  kr_attr a = kr_op_get_attr(func, which);
  if (!a || a->kind != KR_ATTR_ARRAY || i >= a->u.array.num) return NULL;
  kr_attr d = a->u.array.elems[i];
  return d->kind == KR_ATTR_DICT ? d : NULL;
}

/* Checks that buffer `b` placed at `offset` is aligned and inside its region. */
static kr_status check_range(const kr_plan *p, kr_op *at, const kr__plan_buf *b, uint64_t offset, const char *attr) {
  char who[128];
  kr__plan_describe(b, who, sizeof who);
  bool weights = b->kind == KR__PLAN_CONST;
  uint64_t size = weights ? p->weights_bytes : p->arena_bytes;
  if (offset % p->alignment)
    return kr_op_emit_error(at, "%s of %s is %llu, not a multiple of the plan alignment %llu", attr, who,
                            (unsigned long long)offset, (unsigned long long)p->alignment);
  if (offset > size || b->bytes > size - offset)
    return kr_op_emit_error(at, "%s of %s: [%llu, %llu) is outside the %s of %llu bytes", attr, who,
                            (unsigned long long)offset, (unsigned long long)(offset + b->bytes),
                            weights ? "weights region" : "arena", (unsigned long long)size);
  return KR_SUCCESS;
}

static const char *io_name(kr_op *func, const char *which, unsigned i, const char *prefix, struct kr_arena *arena) {
  kr_attr d = arg_dict(func, which, i);
  kr_attr n = d ? kr_dict_get_cstr(d, "onnx.name") : NULL;
  if (n && n->kind == KR_ATTR_STRING) return n->u.string.str;
  char buf[32];
  int len = snprintf(buf, sizeof buf, "%s_%u", prefix, i);
  return kr_arena_strndup(arena, buf, (size_t)len);
}

static kr_plan_ref ref_of(const kr__plan_buf *b, const uint64_t *offsets, unsigned idx) {
  kr_plan_ref r = {b->kind == KR__PLAN_CONST ? KR_PLAN_REGION_WEIGHTS : KR_PLAN_REGION_ARENA, offsets[idx], b->bytes,
                   b->type};
  return r;
}

kr_status kr_plan_read(kr_op *func, struct kr_arena *arena, kr_plan *out) {
  return kr__plan_read(func, arena, out, true);
}

kr_status kr__plan_read(kr_op *func, struct kr_arena *arena, kr_plan *out, bool overlap_checks) {
  memset(out, 0, sizeof *out);
  if (!func || strcmp(func->name, "func.func") || func->num_regions == 0 || kr_region_empty(kr_op_region(func, 0)))
    return func ? kr_op_emit_error(func, "a memory plan belongs to a func.func with a body") : KR_FAILURE;
  kr_plan *p = out;
  p->func = func;
  if (KR_FAILED(get_u64(func, KR_PLAN_ARENA_BYTES, &p->arena_bytes)) ||
      KR_FAILED(get_u64(func, KR_PLAN_NO_REUSE_BYTES, &p->no_reuse_bytes)) ||
      KR_FAILED(get_u64(func, KR_PLAN_WEIGHTS_BYTES, &p->weights_bytes)) ||
      KR_FAILED(get_u64(func, KR_PLAN_ALIGNMENT, &p->alignment)))
    return KR_FAILURE;
  if (p->alignment < 16 || (p->alignment & (p->alignment - 1)))
    return kr_op_emit_error(func, "attribute '%s' must be a power of two >= 16, got %llu", KR_PLAN_ALIGNMENT,
                            (unsigned long long)p->alignment);

  kr__plan_host h;
  if (KR_FAILED(kr__plan_host_init(&h, func))) return KR_FAILURE;
  kr_status st = KR_FAILURE;
  uint64_t *offsets = calloc(h.num_bufs ? h.num_bufs : 1, sizeof(uint64_t));
  if (!offsets) {
    kr_op_emit_error(func, "out of memory while reading the memory plan");
    goto done;
  }

  /* Offsets: read, typed, aligned, inside their regions. */
  for (unsigned i = 0; i < h.num_bufs; i++) {
    kr__plan_buf *b = &h.bufs[i];
    if (b->kind == KR__PLAN_ARG) {
      kr_attr d = arg_dict(func, "arg_attrs", b->index);
      kr_attr a = d ? kr_dict_get_cstr(d, KR_PLAN_OFFSET) : NULL;
      if (!a) {
        kr_op_emit_error(func, "argument %u requires argument attribute '%s' (i64) of the memory plan", b->index,
                         KR_PLAN_OFFSET);
        goto done;
      }
      if (!is_i64(a) || a->u.i < 0) {
        kr_op_emit_error(func, "argument attribute '%s' of argument %u must be a non-negative i64", KR_PLAN_OFFSET,
                         b->index);
        goto done;
      }
      offsets[i] = (uint64_t)a->u.i;
      if (KR_FAILED(check_range(p, func, b, offsets[i], KR_PLAN_OFFSET))) goto done;
    } else if (b->kind == KR__PLAN_RESULT) {
      kr_op *l = b->def;
      if (b->index == 0) {
        kr_attr a = kr_op_get_attr(l, KR_PLAN_OFFSETS);
        if (!a) {
          kr_op_emit_error(l, "requires attribute '%s' (array<i64>, one per result) of the memory plan",
                           KR_PLAN_OFFSETS);
          goto done;
        }
        if (a->kind != KR_ATTR_DENSE_ARRAY || !kr_type_is_integer(a->type, 64) || a->u.dense_array.num != l->num_results) {
          kr_op_emit_error(l, "attribute '%s' of the memory plan must be an array<i64> of %u offsets (one per result)",
                           KR_PLAN_OFFSETS, l->num_results);
          goto done;
        }
      }
      kr_attr a = kr_op_get_attr(l, KR_PLAN_OFFSETS);
      int64_t v;
      memcpy(&v, (const char *)a->u.dense_array.data + sizeof(int64_t) * b->index, sizeof v);
      if (v < 0) {
        kr_op_emit_error(l, "attribute '%s' of the memory plan: offset %lld of result %u is negative", KR_PLAN_OFFSETS,
                         (long long)v, b->index);
        goto done;
      }
      offsets[i] = (uint64_t)v;
      if (KR_FAILED(check_range(p, l, b, offsets[i], KR_PLAN_OFFSETS))) goto done;
    } else {
      kr_attr a = kr_op_get_attr(b->def, KR_PLAN_WEIGHT_OFFSET);
      if (!a) {
        kr_op_emit_error(b->def, "requires attribute '%s' (i64) of the memory plan: a launch or the return uses it",
                         KR_PLAN_WEIGHT_OFFSET);
        goto done;
      }
      if (!is_i64(a) || a->u.i < 0) {
        kr_op_emit_error(b->def, "attribute '%s' of the memory plan must be a non-negative i64", KR_PLAN_WEIGHT_OFFSET);
        goto done;
      }
      offsets[i] = (uint64_t)a->u.i;
      if (KR_FAILED(check_range(p, b->def, b, offsets[i], KR_PLAN_WEIGHT_OFFSET))) goto done;
    }
  }

  /* No two buffers whose lifetimes share a time point may share a byte (weights: none at all).
   * Reported at the later buffer's defining op (the function for two arguments). */
  for (unsigned j = 0; overlap_checks && j < h.num_bufs; j++) {
    kr__plan_buf *bj = &h.bufs[j];
    if (!bj->bytes) continue;
    for (unsigned i = 0; i < j; i++) {
      kr__plan_buf *bi = &h.bufs[i];
      if (!bi->bytes || (bi->kind == KR__PLAN_CONST) != (bj->kind == KR__PLAN_CONST)) continue;
      bool weights = bj->kind == KR__PLAN_CONST;
      if (!weights && (bi->end < bj->start || bj->end < bi->start)) continue;
      if (offsets[i] + bi->bytes <= offsets[j] || offsets[j] + bj->bytes <= offsets[i]) continue;
      char wi[128], wj[128], when[128];
      kr__plan_describe(bi, wi, sizeof wi);
      kr__plan_describe(bj, wj, sizeof wj);
      if (weights) snprintf(when, sizeof when, "in the weights region");
      else {
        char t[96];
        kr__plan_describe_time(&h, bi->start > bj->start ? bi->start : bj->start, t, sizeof t);
        snprintf(when, sizeof when, "both live at %s", t);
      }
      kr_op_emit_error(bj->def ? bj->def : func, "buffer of %s [%llu, %llu) overlaps %s [%llu, %llu), %s", wj,
                       (unsigned long long)offsets[j], (unsigned long long)(offsets[j] + bj->bytes), wi,
                       (unsigned long long)offsets[i], (unsigned long long)(offsets[i] + bi->bytes), when);
      goto done;
    }
  }

  /* The plan, in the caller's arena. */
  p->num_inputs = h.body->num_args;
  p->inputs = KR_NEW_ARRAY(arena, kr_plan_io, p->num_inputs ? p->num_inputs : 1);
  for (unsigned i = 0; i < p->num_inputs; i++) {
    p->inputs[i].name = io_name(func, "arg_attrs", i, "input", arena);
    p->inputs[i].ref = ref_of(&h.bufs[i], offsets, i);
  }
  p->num_outputs = h.ret->num_operands;
  p->outputs = KR_NEW_ARRAY(arena, kr_plan_io, p->num_outputs ? p->num_outputs : 1);
  for (unsigned i = 0; i < p->num_outputs; i++) {
    kr__plan_buf *b = kr__plan_buf_of(&h, kr_op_operand(h.ret, i));
    if (!b) {
      kr_op_emit_error(h.ret, "operand %u is not a tensor of the memory plan", i);
      goto done;
    }
    p->outputs[i].name = io_name(func, "res_attrs", i, "output", arena);
    p->outputs[i].ref = ref_of(b, offsets, (unsigned)(b - h.bufs));
  }
  p->num_launches = h.num_launches;
  p->launches = KR_NEW_ARRAY(arena, kr_plan_launch, p->num_launches ? p->num_launches : 1);
  unsigned nl = 0, nw = 0;
  for (unsigned i = 0; i < h.num_bufs; i++) nw += h.bufs[i].kind == KR__PLAN_CONST;
  p->num_weights = nw;
  p->weights = KR_NEW_ARRAY(arena, kr_plan_weight, nw ? nw : 1);
  nw = 0;
  for (unsigned i = 0; i < h.num_bufs; i++)
    if (h.bufs[i].kind == KR__PLAN_CONST) {
      p->weights[nw].constant = h.bufs[i].def;
      p->weights[nw].value = kr_op_constant_value(h.bufs[i].def);
      p->weights[nw].ref = ref_of(&h.bufs[i], offsets, i);
      nw++;
    }
  for (unsigned k = 0; k < h.num_ops; k++) {
    kr_op *l = h.ops[k];
    if (strcmp(l->name, KR_KERNEL_LAUNCH_OP)) continue;
    kr_plan_launch *pl = &p->launches[nl++];
    pl->op = l;
    kr_attr callee = kr_op_get_attr(l, "callee");
    pl->kernel = callee && callee->kind == KR_ATTR_SYMBOL_REF ? kr_symbol_lookup(l, callee) : NULL;
    if (!pl->kernel || strcmp(pl->kernel->name, KR_KERNEL_FUNC_OP)) {
      kr_op_emit_error(l, "the memory plan needs the callee to be a kernel.func");
      goto done;
    }
    pl->num_args = l->num_operands + l->num_results;
    pl->args = KR_NEW_ARRAY(arena, kr_plan_ref, pl->num_args ? pl->num_args : 1);
    for (unsigned a = 0; a < pl->num_args; a++) {
      kr_value v = a < l->num_operands ? kr_op_operand(l, a) : kr_op_result(l, a - l->num_operands);
      kr__plan_buf *b = kr__plan_buf_of(&h, v);
      if (!b) {
        kr_op_emit_error(l, "operand %u is not a tensor of the memory plan", a);
        goto done;
      }
      pl->args[a] = ref_of(b, offsets, (unsigned)(b - h.bufs));
    }
  }
  st = KR_SUCCESS;
done:
  free(offsets);
  kr__plan_host_free(&h);
  return st;
}
