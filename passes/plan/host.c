/* passes/plan/host.c - a host function analysed into buffers and lifetimes (plan_impl.h): what
 * both the planner and the plan reader need, so that the two agree on every lifetime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/kernel.h"
#include "korch/rewrite.h"
#include "passes/plan/plan_impl.h"

static bool is_launch(const kr_op *op) { return !strcmp(op->name, KR_KERNEL_LAUNCH_OP); }
static bool is_return(const kr_op *op) { return !strcmp(op->name, "func.return"); }
static bool is_constant(kr_op *op) { return kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE) && op->num_results == 1; }
static bool is_tensor(kr_type t) { return t && t->kind == KR_TYPE_TENSOR; }

/* A func.func with a launch is a host function whatever else it holds (kr__plan_host_init then
 * reports the other ops).  One without a launch is a host function only when it could be
 * nothing else: one block of constant-like ops and the return, passing tensors only (what the
 * pipeline leaves for an ONNX graph of identities and constants, docs/MemoryPlan.md "Host
 * functions without launches"); any other launch-less func.func is not the plan's business and
 * is left alone, silently. */
bool kr__plan_is_host(kr_op *op) {
  if (strcmp(op->name, "func.func") || op->num_regions == 0) return false;
  kr_region *r = kr_op_region(op, 0);
  if (kr_region_empty(r)) return false;
  bool other = r->first != r->last;
  for (kr_block *b = r->first; b; b = b->next)
    for (kr_op *o = b->first; o; o = o->next) {
      if (is_launch(o)) return true;
      if (is_return(o)) {
        for (unsigned i = 0; i < o->num_operands; i++) other |= !is_tensor(kr_value_type(kr_op_operand(o, i)));
      } else if (!is_constant(o)) {
        other = true;
      }
    }
  if (other) return false;
  for (unsigned i = 0; i < r->first->num_args; i++)
    if (!is_tensor(kr_value_type(r->first->args[i]))) return false;
  return true;
}

/* The bytes of a static ranked tensor type, or an error at `op` naming `what`. */
static kr_status tensor_bytes(kr_op *op, kr_type t, const char *what, uint64_t *bytes) {
  if (!t || t->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(t)) {
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "%s has type '%s': the memory plan needs a ranked tensor with a static shape", what, s);
    free(s);
    return KR_FAILURE;
  }
  int64_t n = kr_type_num_elements(t);
  size_t eb = kr_type_storage_bytes(t->u.shaped.elem);
  if (n < 0 || eb == 0 || (uint64_t)n > (UINT64_C(1) << 62) / eb) {
    char *s = kr_type_to_cstr(t);
    kr_op_emit_error(op, "%s has type '%s', too large for the memory plan", what, s);
    free(s);
    return KR_FAILURE;
  }
  *bytes = (uint64_t)n * eb;
  return KR_SUCCESS;
}

/* Position of `op` in the body (it must be there). */
static int64_t position(kr__plan_host *h, kr_op *op) {
  kr_hmap_entry *e = kr_hmap_find(&h->pos, kr_hash_ptr(op), op);
  return e ? (int64_t)(uintptr_t)e->value - 1 : -1;
}

kr_status kr__plan_host_init(kr__plan_host *h, kr_op *func) {
  memset(h, 0, sizeof *h);
  h->func = func;
  kr_region *r = kr_op_region(func, 0);
  if (!r->first || r->first != r->last)
    return kr_op_emit_error(func, "a planned host function has exactly one block");
  h->body = r->first;
  h->num_ops = (unsigned)kr_block_num_ops(h->body);
  h->ops = malloc(sizeof(kr_op *) * (h->num_ops ? h->num_ops : 1));
  /* At most: every argument, every launch result, every constant. */
  unsigned cap = h->body->num_args;
  unsigned k = 0;
  for (kr_op *o = h->body->first; o; o = o->next) {
    bool ins = false;
    kr_hmap_insert(&h->pos, kr_hash_ptr(o), o, &ins)->value = (void *)(uintptr_t)(k + 1);
    h->ops[k++] = o;
    cap += o->num_results;
  }
  h->bufs = calloc(cap ? cap : 1, sizeof(kr__plan_buf));
  if (!h->ops || !h->bufs) {
    kr__plan_host_free(h);
    return kr_op_emit_error(func, "out of memory while planning");
  }
  kr_status st = KR_SUCCESS;
  char what[96];
  for (unsigned i = 0; i < h->body->num_args; i++) {
    kr__plan_buf *b = &h->bufs[h->num_bufs++];
    b->value = h->body->args[i];
    b->kind = KR__PLAN_ARG;
    b->index = i;
    b->type = kr_value_type(b->value);
    b->start = b->end = -1;
    snprintf(what, sizeof what, "argument %u", i);
    if (KR_FAILED(tensor_bytes(func, b->type, what, &b->bytes))) st = KR_FAILURE;
  }
  for (unsigned p = 0; p < h->num_ops; p++) {
    kr_op *o = h->ops[p];
    if (is_return(o)) {
      if (o->next) st = kr_op_emit_error(o, "must be the last op of the host function");
      h->ret = o;
      continue;
    }
    if (is_launch(o)) {
      bool ins = false;
      kr_hmap_insert(&h->first_buf, kr_hash_ptr(o), o, &ins)->value = (void *)(uintptr_t)(h->num_bufs + 1);
      h->num_launches++;
      for (unsigned i = 0; i < o->num_results; i++) {
        kr__plan_buf *b = &h->bufs[h->num_bufs++];
        b->value = kr_op_result(o, i);
        b->kind = KR__PLAN_RESULT;
        b->def = o;
        b->index = i;
        b->type = kr_value_type(b->value);
        b->start = b->end = p;
        snprintf(what, sizeof what, "result %u", i);
        if (KR_FAILED(tensor_bytes(o, b->type, what, &b->bytes))) st = KR_FAILURE;
      }
      /* (operands are arguments, results or constants: checked where they are defined) */
      continue;
    }
    if (is_constant(o)) {
      bool used = false;
      for (kr_use *u = kr_op_result(o, 0)->first_use; u; u = u->next)
        if (is_launch(u->owner) || is_return(u->owner)) used = true;
      if (!used) continue;
      kr_attr v = kr_op_constant_value(o);
      if (!v || (v->kind != KR_ATTR_DENSE && v->kind != KR_ATTR_RESOURCE)) {
        st = kr_op_emit_error(o, "a weight of the memory plan must hold a dense or dense_resource attribute");
        continue;
      }
      bool ins = false;
      kr_hmap_insert(&h->first_buf, kr_hash_ptr(o), o, &ins)->value = (void *)(uintptr_t)(h->num_bufs + 1);
      kr__plan_buf *b = &h->bufs[h->num_bufs++];
      b->value = kr_op_result(o, 0);
      b->kind = KR__PLAN_CONST;
      b->def = o;
      b->type = kr_value_type(b->value);
      b->start = b->end = p;
      if (KR_FAILED(tensor_bytes(o, b->type, "the constant", &b->bytes))) st = KR_FAILURE;
      continue;
    }
    st = kr_op_emit_error(o,
                          "is not supported in a host function to plan: only constants, kernel.launch and "
                          "func.return");
  }
  if (!h->ret && !KR_FAILED(st)) st = kr_op_emit_error(func, "a host function to plan ends with func.return");
  if (KR_FAILED(st)) {
    kr__plan_host_free(h);
    return KR_FAILURE;
  }
  /* Lifetimes: until the last use, the return counting as the last time point. */
  for (unsigned i = 0; i < h->num_bufs; i++) {
    kr__plan_buf *b = &h->bufs[i];
    if (b->kind == KR__PLAN_CONST) continue;
    for (kr_use *u = b->value->first_use; u; u = u->next) {
      int64_t t = position(h, u->owner);
      if (t > b->end) b->end = t;
    }
  }
  return KR_SUCCESS;
}

void kr__plan_host_free(kr__plan_host *h) {
  free(h->ops);
  free(h->bufs);
  kr_hmap_free(&h->first_buf);
  kr_hmap_free(&h->pos);
  h->ops = NULL;
  h->bufs = NULL;
}

kr__plan_buf *kr__plan_buf_of(kr__plan_host *h, kr_value v) {
  if (v->is_block_arg) return v->owner.block == h->body && v->index < h->body->num_args ? &h->bufs[v->index] : NULL;
  kr_hmap_entry *e = kr_hmap_find(&h->first_buf, kr_hash_ptr(v->owner.op), v->owner.op);
  if (!e) return NULL;
  return &h->bufs[(uintptr_t)e->value - 1 + v->index];
}

static const char *callee_name(kr_op *launch) {
  kr_attr c = kr_op_get_attr(launch, "callee");
  return c && c->kind == KR_ATTR_SYMBOL_REF ? c->u.symref.root : "?";
}

void kr__plan_describe(const kr__plan_buf *b, char *buf, size_t size) {
  switch (b->kind) {
  case KR__PLAN_ARG: snprintf(buf, size, "argument %u", b->index); break;
  case KR__PLAN_RESULT: snprintf(buf, size, "result %u of kernel.launch @%s", b->index, callee_name(b->def)); break;
  case KR__PLAN_CONST: snprintf(buf, size, "constant '%s'", b->def->name); break;
  }
}

void kr__plan_describe_time(const kr__plan_host *h, int64_t t, char *buf, size_t size) {
  if (t < 0) snprintf(buf, size, "the upload of the inputs");
  else if (is_return(h->ops[t])) snprintf(buf, size, "the return");
  else if (is_launch(h->ops[t])) snprintf(buf, size, "launch @%s", callee_name(h->ops[t]));
  else snprintf(buf, size, "op %lld", (long long)t);
}
