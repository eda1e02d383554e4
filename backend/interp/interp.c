/* backend/interp/interp.c - the executor: runs a func.func's single block op by op.
 *
 * Calls run their callee's block the same way: func.call a func.func, and kernel.launch (the
 * kernel level, korch/kernel.h) a kernel.func, whose body ends in kernel.return.
 *
 * Every SSA value of the block gets a slot (a numbering through a pointer-keyed hash map); a slot
 * holds an owned tensor (kernel results), a borrowed one (block arguments, constants read in
 * place from their attribute or resource) or nothing (op.none).  Uses are counted up front, so
 * each intermediate is freed right after its last use: peak memory is the live set, not the sum
 * of all activations.  Errors are diagnostics at the offending op (or at the function for a bad
 * input); nothing is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/dialect_util.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/interp.h"
#include "korch/kernel.h"
#include "korch/op.h"
#include "backend/interp/planned.h"
#include "backend/interp/simt.h"
#include "korch/plan.h"

/* func.call nesting deeper than this is taken for unbounded recursion (the C stack would go
 * first). */
#define KR_INTERP_MAX_CALL_DEPTH 64

typedef struct slot {
  kr_tensor t;
  bool is_none;  /* the value of op.none: an absent optional operand */
  bool defined;  /* set once its defining op ran */
  uint32_t uses; /* uses left */
} slot;

typedef struct frame {
  kr_hmap index; /* kr_value -> slot number + 1 */
  slot *slots;
  size_t num_slots;
} frame;

static size_t slot_of(const frame *f, kr_value v) {
  kr_hmap_entry *e = kr_hmap_find(&f->index, kr_hash_ptr(v), v);
  return e ? (size_t)(uintptr_t)e->value - 1 : SIZE_MAX;
}

static void add_value(frame *f, kr_value v, size_t *next) {
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&f->index, kr_hash_ptr(v), v, &inserted);
  e->value = (void *)(uintptr_t)(++*next);
}

static void frame_free(frame *f) {
  for (size_t i = 0; i < f->num_slots; i++) kr_tensor_free(&f->slots[i].t);
  free(f->slots);
  kr_hmap_free(&f->index);
}

static bool same_elem(kr_type a, kr_type b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  if (a->kind == KR_TYPE_FLOAT) return a->u.fkind == b->u.fkind;
  if (a->kind == KR_TYPE_INTEGER)
    return a->u.integer.width == b->u.integer.width &&
           (a->u.integer.sign == KR_UNSIGNED) == (b->u.integer.sign == KR_UNSIGNED);
  return a->kind == KR_TYPE_INDEX;
}

static bool same_shape(kr_type a, kr_type b) {
  if (a->u.shaped.rank != b->u.shaped.rank) return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++)
    if (a->u.shaped.dims[i] != b->u.shaped.dims[i]) return false;
  return true;
}

/* " ('name')" from the onnx.name entry of arg_attrs/res_attrs[i], or "". */
static void onnx_name_suffix(kr_op *func, const char *which, unsigned i, char *buf, size_t cap) {
  buf[0] = 0;
  kr_attr arr = kr_op_get_attr(func, which);
  if (!arr || arr->kind != KR_ATTR_ARRAY || i >= arr->u.array.num) return;
  kr_attr d = arr->u.array.elems[i];
  kr_attr n = d && d->kind == KR_ATTR_DICT ? kr_dict_get_cstr(d, "onnx.name") : NULL;
  if (n && n->kind == KR_ATTR_STRING) snprintf(buf, cap, " ('%s')", n->u.string.str);
}

static kr_status type_error(kr_op *func, unsigned i, const char *what, kr_type expected, kr_type got) {
  char name[160];
  onnx_name_suffix(func, "arg_attrs", i, name, sizeof name);
  kr_ident fname = kr_op_symbol_name(func);
  char *e = kr_type_to_cstr(expected), *g = kr_type_to_cstr(got);
  kr_status st =
      kr_emit_error(kr_op_context(func), func->loc, "argument #%u%s of @%s: %s mismatch: expected %s, got %s", i, name,
                    fname ? fname : "?", what, e ? e : "?", g ? g : "?");
  free(e);
  free(g);
  return st;
}

/* Copies `src` into a fresh owned tensor (outputs must outlive the module's attributes and the
 * caller's inputs). */
static kr_status copy_tensor(kr_tensor *dst, const kr_tensor *src) {
  if (kr_tensor_alloc(dst, src->type)) return KR_FAILURE;
  if (src->nbytes) memcpy(dst->data, src->data, src->nbytes);
  return KR_SUCCESS;
}

static kr_status run(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                     unsigned num_outputs, unsigned depth, simt_session *s);

/* Drops one use of each operand of `op`; frees tensors whose last use this was. */
static void release_operands(frame *f, kr_op *op) {
  for (unsigned i = 0; i < op->num_operands; i++) {
    size_t s = slot_of(f, kr_op_operand(op, i));
    if (s == SIZE_MAX) continue;
    if (f->slots[s].uses && --f->slots[s].uses == 0) kr_tensor_free(&f->slots[s].t);
  }
}

/* Gathers op's operand tensors into `ins` (NULL for op.none); fails at the op on a value that was
 * never computed (cannot happen in verified IR, but a hand-written module may not be verified). */
static kr_status gather(frame *f, kr_op *op, kr_tensor **ins) {
  for (unsigned i = 0; i < op->num_operands; i++) {
    size_t s = slot_of(f, kr_op_operand(op, i));
    if (s == SIZE_MAX || !f->slots[s].defined)
      return kr_op_emit_error(op, "operand #%u is not defined before its use in the function's block", i);
    ins[i] = f->slots[s].is_none ? NULL : &f->slots[s].t;
  }
  return KR_SUCCESS;
}

static kr_status exec_return(frame *f, kr_op *op, kr_tensor *outputs, unsigned num_outputs) {
  if (op->num_operands != num_outputs)
    return kr_op_emit_error(op, "returns %u values but the caller expects %u", op->num_operands, num_outputs);
  for (unsigned i = 0; i < num_outputs; i++) {
    size_t s = slot_of(f, kr_op_operand(op, i));
    if (s == SIZE_MAX || !f->slots[s].defined)
      return kr_op_emit_error(op, "operand #%u is not defined before its use in the function's block", i);
    slot *sl = &f->slots[s];
    if (sl->is_none) return kr_op_emit_error(op, "cannot return the absent value of 'op.none' (result #%u)", i);
    if (sl->t.owned && sl->uses == 1) {
      /* The last use of an owned tensor: move it out instead of copying. */
      outputs[i] = sl->t;
      memset(&sl->t, 0, sizeof sl->t);
      sl->uses = 0;
      continue;
    }
    if (copy_tensor(&outputs[i], &sl->t)) return kr_op_emit_error(op, "out of memory copying result #%u", i);
    if (sl->uses && --sl->uses == 0) kr_tensor_free(&sl->t);
  }
  return KR_SUCCESS;
}

/* Whether `op` is a function the interpreter runs (func.func, kernel.func). */
static bool is_function(const kr_op *op) {
  return !strcmp(op->name, "func.func") || !strcmp(op->name, KR_KERNEL_FUNC_OP);
}

/* The function op a call op runs: func.call -> func.func, kernel.launch -> kernel.func; NULL for
 * other ops. */
static const char *callee_kind(const kr_op *op) {
  if (!strcmp(op->name, "func.call")) return "func.func";
  if (!strcmp(op->name, KR_KERNEL_LAUNCH_OP)) return KR_KERNEL_FUNC_OP;
  return NULL;
}

/* func.call and kernel.launch: runs the callee on views of the operands. */
static kr_status exec_call(frame *f, kr_op *op, kr_tensor *results, unsigned depth, simt_session *s) {
  const char *want = callee_kind(op);
  kr_attr callee = kr_op_get_attr(op, "callee");
  kr_op *fn = callee && callee->kind == KR_ATTR_SYMBOL_REF ? kr_symbol_lookup(op, callee) : NULL;
  if (!fn || strcmp(fn->name, want) != 0)
    return kr_op_emit_error(op, "callee does not name a %s of the enclosing module", want);
  if (depth + 1 >= KR_INTERP_MAX_CALL_DEPTH)
    return kr_op_emit_error(op, "calls nest deeper than %d: unbounded recursion?", KR_INTERP_MAX_CALL_DEPTH);
  kr_tensor *args = calloc(op->num_operands ? op->num_operands : 1, sizeof *args);
  kr_tensor **ins = calloc(op->num_operands ? op->num_operands : 1, sizeof *ins);
  kr_status st = args && ins ? KR_SUCCESS : kr_op_emit_error(op, "out of memory");
  if (!st) st = gather(f, op, ins);
  for (unsigned i = 0; !st && i < op->num_operands; i++) {
    if (!ins[i]) {
      st = kr_op_emit_error(op, "operand #%u is the absent value of 'op.none'", i);
      break;
    }
    args[i] = *ins[i];
    args[i].owned = false; /* a view: the callee must not free the caller's tensor */
  }
  if (!st) {
    /* A scheduled kernel runs as SIMT code on the GPU model (backend/interp/simt*.c). */
    if (!strcmp(fn->name, KR_KERNEL_FUNC_OP) && kr_kernel_is_scheduled(fn))
      st = simt_launch(s, op, fn, ins, op->num_operands, results, op->num_results);
    else
      st = run(fn, args, op->num_operands, results, op->num_results, depth + 1, s);
  }
  free(args);
  free(ins);
  return st;
}

/* The value of a constant-like op, read in place (borrowed) when the attribute allows. */
static kr_status exec_constant(kr_op *op, kr_tensor *out) {
  kr_attr v = kr_op_get_attr(op, "value");
  if (op->num_results != 1 || !v) return kr_op_emit_error(op, "constant-like op without a 'value' attribute");
  if (kr_tensor_from_attr(out, v))
    return kr_op_emit_error(op, "the interpreter needs a dense or dense_resource tensor value with a static shape"
                                " (scalar constants are not supported)");
  return KR_SUCCESS;
}

static kr_status exec_kernel(frame *f, kr_op *op, kr_tensor *results) {
  const kr_interp_hooks *h = op->def ? op->def->interpreter : NULL;
  if (!op->def) return kr_op_emit_error(op, "is not registered: the interpreter cannot run it");
  if (!h || !h->eval) return kr_op_emit_error(op, "is not supported by the interpreter (no CPU reference kernel)");
  if (op->num_regions) return kr_op_emit_error(op, "has regions: the interpreter runs region-free ops only");
  const kr_op_schema *schema = kr_op_get_schema(op);
  /* The op level has static shapes: a shape operand computed at run time could contradict the
   * declared result type the kernel writes into, so it must be a constant here (import folds
   * shape sub-graphs; `korch-opt --canonicalize` folds hand-written ones). */
  for (unsigned i = 0; schema && i < op->num_operands; i++) {
    const kr_op_operand_spec *o = i < schema->num_operands ? &schema->operands[i] : &schema->operands[schema->num_operands - 1];
    if (o->shape && kr_op_operand_present(op, i) && !kr_op_constant_operand(op, i))
      return kr_op_emit_error(op,
                              "operand #%u ('%s') decides the result shape and must be a constant to run: fold it "
                              "(korch-opt --canonicalize) or bind the graph input feeding it "
                              "(korch-translate --bind-input)",
                              i, o->name);
  }
  /* kr_interp_eval_op passes NULL for trailing omitted optional operands. */
  unsigned n = op->num_operands;
  kr_tensor *small[8];
  kr_tensor **ins = n <= 8 ? small : calloc(n, sizeof *ins);
  if (!ins) return kr_op_emit_error(op, "out of memory");
  kr_status st = gather(f, op, ins);
  if (!st) st = kr_interp_eval_op(op, ins, results);
  if (ins != small) free(ins);
  return st;
}

static kr_status run(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                     unsigned num_outputs, unsigned depth, simt_session *s) {
  for (unsigned i = 0; i < num_outputs; i++) memset(&outputs[i], 0, sizeof outputs[i]);
  if (!func || !is_function(func))
    return func ? kr_op_emit_error(func, "is not a func.func or kernel.func: the interpreter runs functions")
                : KR_FAILURE;
  kr_region *body = func->num_regions ? kr_op_region(func, 0) : NULL;
  if (!body || kr_region_empty(body))
    return kr_op_emit_error(func, "has no body (an external declaration cannot be interpreted)");
  if (kr_region_num_blocks(body) != 1)
    return kr_op_emit_error(func, "has %zu blocks: the interpreter runs single-block functions",
                            kr_region_num_blocks(body));
  kr_block *b = body->first;
  if (num_inputs != b->num_args)
    return kr_op_emit_error(func, "takes %u arguments but %u inputs were given", b->num_args, num_inputs);
  for (unsigned i = 0; i < num_inputs; i++) {
    kr_type want = kr_value_type(b->args[i]), got = inputs[i].type;
    if (!want || want->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(want)) {
      char *w = kr_type_to_cstr(want);
      kr_status st =
          kr_op_emit_error(func, "argument #%u has type %s: the interpreter needs static tensor types", i, w ? w : "?");
      free(w);
      return st;
    }
    if (!got || got->kind != KR_TYPE_TENSOR || !same_elem(want->u.shaped.elem, got->u.shaped.elem))
      return type_error(func, i, "element type", want, got);
    if (!same_shape(want, got)) return type_error(func, i, "shape", want, got);
  }

  /* Number the values, count their uses. */
  frame f = {0};
  size_t n = b->num_args;
  for (kr_op *op = b->first; op; op = op->next) n += op->num_results;
  f.num_slots = n;
  f.slots = calloc(n ? n : 1, sizeof *f.slots);
  if (!f.slots) return kr_op_emit_error(func, "out of memory");
  kr_hmap_reserve(&f.index, n);
  size_t next = 0;
  for (unsigned i = 0; i < b->num_args; i++) add_value(&f, b->args[i], &next);
  for (kr_op *op = b->first; op; op = op->next)
    for (unsigned r = 0; r < op->num_results; r++) add_value(&f, kr_op_result(op, r), &next);
  for (kr_op *op = b->first; op; op = op->next)
    for (unsigned i = 0; i < op->num_operands; i++) {
      size_t s = slot_of(&f, kr_op_operand(op, i));
      if (s != SIZE_MAX) f.slots[s].uses++;
    }
  for (unsigned i = 0; i < b->num_args; i++) {
    f.slots[i].t = inputs[i];
    f.slots[i].t.owned = false;
    f.slots[i].defined = true;
  }

  kr_status st = KR_SUCCESS;
  bool returned = false;
  kr_tensor small[4];
  for (kr_op *op = b->first; op && !st; op = op->next) {
    if (strcmp(op->name, "func.return") == 0 || strcmp(op->name, KR_KERNEL_RETURN_OP) == 0) {
      st = exec_return(&f, op, outputs, num_outputs);
      returned = true;
      break;
    }
    kr_tensor *res = op->num_results <= 4 ? small : calloc(op->num_results, sizeof *res);
    if (!res) {
      st = kr_op_emit_error(op, "out of memory");
      break;
    }
    memset(res, 0, op->num_results * sizeof *res);
    bool none = false;
    if (strcmp(op->name, KR_OP_NONE) == 0)
      none = true;
    else if (kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE))
      st = exec_constant(op, &res[0]);
    else if (callee_kind(op))
      st = exec_call(&f, op, res, depth, s);
    else
      st = exec_kernel(&f, op, res);
    if (!st) {
      for (unsigned r = 0; r < op->num_results; r++) {
        slot *sl = &f.slots[slot_of(&f, kr_op_result(op, r))];
        sl->t = res[r];
        sl->is_none = none;
        sl->defined = true;
        if (!sl->uses) kr_tensor_free(&sl->t); /* dead result */
      }
      release_operands(&f, op);
    }
    if (res != small) free(res);
  }
  if (!st && !returned)
    st = kr_op_emit_error(func, "body does not end with %s",
                          strcmp(func->name, "func.func") ? KR_KERNEL_RETURN_OP : "func.return");
  if (st)
    for (unsigned i = 0; i < num_outputs; i++) kr_tensor_free(&outputs[i]);
  frame_free(&f);
  return st;
}

kr_status kr__interp_run_callee(kr_op *fn, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                                unsigned num_outputs, simt_session *s) {
  return run(fn, inputs, num_inputs, outputs, num_outputs, 1, s);
}

kr_interp_options kr_interp_default_options(void) {
  kr_interp_options o;
  memset(&o, 0, sizeof o);
  o.simt_checks = true;
  o.simt_seed = 1;
  o.simt_max_steps = (uint64_t)1 << 30;
  return o;
}

kr_status kr_interp_run_with(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                             unsigned num_outputs, const kr_interp_options *options) {
  simt_session s;
  memset(&s, 0, sizeof s);
  kr_interp_options def;
  if (!options) {
    def = kr_interp_default_options();
    options = &def;
  }
  s.opts = *options;
  /* The planned level: every tensor a range of one arena (backend/interp/planned.c). */
  kr_status st = func && !strcmp(func->name, "func.func") && kr_plan_is_planned(func)
                     ? kr__interp_run_planned(func, inputs, num_inputs, outputs, num_outputs, &s)
                     : run(func, inputs, num_inputs, outputs, num_outputs, 0, &s);
  if (options->memory_report && options->stats && options->num_stats) {
    *options->stats = s.stats;
    *options->num_stats = s.num_stats;
  } else {
    free(s.stats);
  }
  return st;
}

kr_status kr_interp_run(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                        unsigned num_outputs) {
  kr_interp_options o = kr_interp_default_options();
  return kr_interp_run_with(func, inputs, num_inputs, outputs, num_outputs, &o);
}
