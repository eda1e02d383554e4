/* backend/interp/planned.c - the planned level (korch/plan.h, docs/MemoryPlan.md "Interpreter"):
 * a host func.func carrying a memory plan runs the way the runtime runs it on the GPU, every
 * tensor a range of ONE arena (or of the weights region), so that a wrong plan (two live tensors
 * sharing bytes) gives wrong numbers here, on the CPU.
 *
 * The arena and the weights region are filled with 0xFF bytes first (a NaN in every float type,
 * -1 in the integers), so that reading a range no kernel wrote shows in the outputs.  Scheduled
 * kernels read and write the arena in place (simt_launch with borrowed destinations); a
 * tensor-form kernel.func runs on views of its operands and its results are copied into their
 * ranges after the call. */
#include <stdlib.h>
#include <string.h>

#include "backend/interp/planned.h"
#include "korch/diag.h"
#include "korch/kernel.h"
#include "korch/plan.h"
#include "passes/plan/plan_impl.h"

/* A borrowed tensor of `ref`'s type over its range. */
static kr_tensor view(const kr_plan_ref *ref, unsigned char *arena, unsigned char *weights) {
  kr_tensor t;
  memset(&t, 0, sizeof t);
  t.type = ref->type;
  t.data = (ref->region == KR_PLAN_REGION_WEIGHTS ? weights : arena) + ref->offset;
  t.numel = kr_type_num_elements(ref->type);
  t.nbytes = (size_t)ref->bytes;
  t.owned = false;
  return t;
}

static bool same_dims(kr_type a, kr_type b) {
  if (!a || !b || a->kind != KR_TYPE_TENSOR || b->kind != KR_TYPE_TENSOR || a->u.shaped.rank != b->u.shaped.rank)
    return false;
  for (unsigned i = 0; i < a->u.shaped.rank; i++)
    if (a->u.shaped.dims[i] != b->u.shaped.dims[i]) return false;
  return kr_type_storage_bytes(a->u.shaped.elem) == kr_type_storage_bytes(b->u.shaped.elem);
}

static kr_status run_launch(const kr_plan_launch *l, unsigned char *arena, unsigned char *weights, simt_session *s) {
  kr_op *op = l->op;
  unsigned nin = op->num_operands, nres = op->num_results;
  kr_tensor *args = calloc(l->num_args ? l->num_args : 1, sizeof *args);
  kr_tensor **ins = calloc(nin ? nin : 1, sizeof *ins);
  kr_tensor *tmp = calloc(nres ? nres : 1, sizeof *tmp);
  kr_status st = args && ins && tmp ? KR_SUCCESS : kr_op_emit_error(op, "out of memory");
  for (unsigned a = 0; !st && a < l->num_args; a++) args[a] = view(&l->args[a], arena, weights);
  for (unsigned i = 0; !st && i < nin; i++) ins[i] = &args[i];
  if (!st && kr_kernel_is_scheduled(l->kernel)) {
    /* In place: the kernel's global buffers are the arena's ranges. */
    st = simt_launch(s, op, l->kernel, ins, nin, args + nin, nres);
  } else if (!st) {
    st = kr__interp_run_callee(l->kernel, args, nin, tmp, nres, s);
    for (unsigned j = 0; !st && j < nres; j++) {
      if (tmp[j].nbytes != args[nin + j].nbytes) {
        st = kr_op_emit_error(op, "result #%u has %zu bytes but its range of the plan %zu", j, tmp[j].nbytes,
                              args[nin + j].nbytes);
        break;
      }
      if (tmp[j].nbytes) memcpy(args[nin + j].data, tmp[j].data, tmp[j].nbytes);
    }
    for (unsigned j = 0; j < nres; j++) kr_tensor_free(&tmp[j]);
  }
  free(args);
  free(ins);
  free(tmp);
  return st;
}

kr_status kr__interp_run_planned(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                                 unsigned num_outputs, simt_session *s) {
  for (unsigned i = 0; i < num_outputs; i++) memset(&outputs[i], 0, sizeof outputs[i]);
  kr_arena pa = {0};
  kr_plan p;
  if (KR_FAILED(kr__plan_read(func, &pa, &p, !s->opts.plan_unchecked))) {
    kr_arena_release(&pa);
    return KR_FAILURE;
  }
  kr_status st = KR_SUCCESS;
  unsigned char *arena = NULL, *weights = NULL;
  if (num_inputs != p.num_inputs)
    st = kr_op_emit_error(func, "takes %u arguments but %u inputs were given", p.num_inputs, num_inputs);
  else if (num_outputs != p.num_outputs)
    st = kr_op_emit_error(func, "returns %u values but the caller expects %u", p.num_outputs, num_outputs);
  for (unsigned i = 0; !st && i < num_inputs; i++)
    if (!same_dims(inputs[i].type, p.inputs[i].ref.type) || inputs[i].nbytes != p.inputs[i].ref.bytes)
      st = kr_op_emit_error(func, "input #%u ('%s') does not match the argument's type (shape and element size)", i,
                            p.inputs[i].name);
  if (!st) {
    arena = malloc(p.arena_bytes ? p.arena_bytes : 1);
    weights = malloc(p.weights_bytes ? p.weights_bytes : 1);
    if (!arena || !weights) st = kr_op_emit_error(func, "out of memory allocating the arena of %llu bytes",
                                                  (unsigned long long)p.arena_bytes);
  }
  if (!st) {
    memset(arena, 0xFF, p.arena_bytes);
    memset(weights, 0xFF, p.weights_bytes);
  }
  for (unsigned w = 0; !st && w < p.num_weights; w++) {
    kr_tensor t;
    if (kr_tensor_from_attr(&t, p.weights[w].value) || t.nbytes != p.weights[w].ref.bytes) {
      kr_tensor_free(&t);
      st = kr_op_emit_error(p.weights[w].constant, "the interpreter cannot read this weight's value");
      break;
    }
    if (t.nbytes) memcpy(weights + p.weights[w].ref.offset, t.data, t.nbytes);
    kr_tensor_free(&t);
  }
  for (unsigned i = 0; !st && i < num_inputs; i++)
    if (inputs[i].nbytes) memcpy(arena + p.inputs[i].ref.offset, inputs[i].data, inputs[i].nbytes);
  for (unsigned k = 0; !st && k < p.num_launches; k++) st = run_launch(&p.launches[k], arena, weights, s);
  for (unsigned i = 0; !st && i < num_outputs; i++) {
    kr_tensor v = view(&p.outputs[i].ref, arena, weights);
    if (kr_tensor_alloc(&outputs[i], v.type)) {
      st = kr_op_emit_error(func, "out of memory copying output #%u", i);
      break;
    }
    if (v.nbytes) memcpy(outputs[i].data, v.data, v.nbytes);
  }
  if (st)
    for (unsigned i = 0; i < num_outputs; i++) kr_tensor_free(&outputs[i]);
  free(arena);
  free(weights);
  kr_arena_release(&pa);
  return st;
}
