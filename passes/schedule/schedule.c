/* passes/schedule/schedule.c - the `schedule` pass (Hidet, ASPLOS'23 §4-5, on Korch's kernels):
 * every kernel.func of primitives that orchestration emitted becomes an explicit SIMT program
 * built from one template per kernel class, with the kernel's other primitives fused in.
 * docs/Scheduling.md; the internal contract is schedule.h.
 *
 * Per kernel.func: the new body gets one global !kernel.buffer argument per old argument (the
 * launch operands) and then one per returned tensor (the launch results); the template picked
 * from korch.kind (and, for a reduction kernel holding cum_sum or reduce_window, the window
 * form of the injective template) builds the SIMT code reading the old body's primitives; the
 * old body is then erased and the function type becomes (buffers) -> ().  kernel.launch ops are
 * unchanged: a launch of a scheduled kernel binds its tensors to the buffers (korch/kernel.h).
 *
 * Options: target (default: the module's korch.target), tile (force a tile configuration of the
 * linear templates, tiles.c syntax), profile-db (measured schedule times, preferred over the
 * analytic choice). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "korch/diag.h"
#include "korch/prim.h"
#include "passes/pass_impl.h"
#include "passes/schedule/schedule.h"

typedef struct schedule_options {
  const char *target;
  const char *tile;
  const char *profile_db;
} schedule_options;

static const kr_pass_option schedule_options_table[] = {
  {"target", KR_OPT_STRING, offsetof(schedule_options, target), NULL,
   "GPU target whose limits filter the tile space: a built-in name or an XML file; default: the module's "
   "korch.target, else h200"},
  {"tile", KR_OPT_STRING, offsetof(schedule_options, tile), NULL,
   "Force one tile configuration on every matmul/conv kernel (docs/Scheduling.md gives the syntax); it must fit "
   "the target"},
  {"profile-db", KR_OPT_STRING, offsetof(schedule_options, profile_db), NULL,
   "Profile database of measured schedule times, preferred over the cost model's choice"},
};

static bool set(const char *s) { return s && s[0]; }

int64_t ks_block_threads(const ks_kernel *k, int64_t want) {
  int64_t cap = k->target->max_threads_per_block / KR_KERNEL_WARP_SIZE * KR_KERNEL_WARP_SIZE;
  if (cap < KR_KERNEL_WARP_SIZE) cap = KR_KERNEL_WARP_SIZE; /* ks_set_launch reports such a target */
  return want < cap ? want : cap;
}

int ks_output_index(const ks_kernel *k, kr_value v) {
  for (unsigned i = 0; i < k->num_outputs; i++)
    if (k->outputs[i] == v) return (int)i;
  return -1;
}

unsigned ks_members(const ks_kernel *k, kr_op ***out) {
  size_t n = kr_block_num_ops(k->old_body);
  kr_op **ops = malloc((n + 1) * sizeof *ops);
  unsigned m = 0;
  for (kr_op *op = k->old_body->first; op && ops; op = op->next)
    if (kr_prim_op_class(op) != KR_PRIM_NOT_PRIM) ops[m++] = op;
  *out = ops;
  return ops ? m : 0;
}

kr_status ks_set_launch(ks_kernel *k, const char *template_name, const int64_t grid[3], int64_t threads,
                        int64_t shared_bytes, const char *schedule) {
  kr_context *ctx = k->ctx;
  if (threads < 1 || threads > k->target->max_threads_per_block)
    return kr_op_emit_error(k->func, "schedule: %lld threads per block is outside [1, %d] on %s", (long long)threads,
                            k->target->max_threads_per_block, k->target->name);
  if (shared_bytes > k->target->smem_per_block_optin_bytes)
    return kr_op_emit_error(k->func, "schedule: %lld bytes of shared memory exceed the %lld a block may have on %s",
                            (long long)shared_bytes, (long long)k->target->smem_per_block_optin_bytes,
                            k->target->name);
  for (int i = 0; i < 3; i++)
    if (grid[i] < 1 || grid[i] > (i == 0 ? 2147483647LL : 65535))
      return kr_op_emit_error(k->func, "schedule: grid dimension %d is %lld, outside the CUDA limit", i,
                              (long long)grid[i]);
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  int64_t block[3] = {threads, 1, 1};
  kr_op_set_attr(k->func, KR_KERNEL_ATTR_TEMPLATE, kr_attr_string(ctx, template_name, strlen(template_name)));
  kr_op_set_attr(k->func, KR_KERNEL_ATTR_GRID, kr_attr_dense_array(ctx, i64, grid, 3));
  kr_op_set_attr(k->func, KR_KERNEL_ATTR_BLOCK, kr_attr_dense_array(ctx, i64, block, 3));
  kr_op_set_attr(k->func, KR_KERNEL_ATTR_SCHEDULE, kr_attr_string(ctx, schedule, strlen(schedule)));
  kr_op_set_attr(k->func, KR_KERNEL_ATTR_DYNAMIC_SMEM,
                 shared_bytes > KR_KERNEL_STATIC_SMEM_LIMIT ? kr_attr_integer(ctx, i64, shared_bytes) : NULL);
  return KR_SUCCESS;
}

/* The kernel's kind: korch.kind when present, else from its primitives' classes.  *per_element:
 * a reduction kernel the injective template computes element by element (window form or loop):
 * cum_sum and reduce_window, and reductions of a zero-sized tensor (no row to give a block:
 * every output element is the reduction's identity). */
static const char *kernel_kind(kr_op *func, kr_block *body, bool *per_element) {
  *per_element = false;
  bool linear = false, reduction = false;
  for (kr_op *op = body->first; op; op = op->next) {
    kr_prim_class c = kr_prim_op_class(op);
    if (c == KR_PRIM_LINEAR) linear = true;
    if (c == KR_PRIM_REDUCTION) {
      reduction = true;
      if (!strcmp(op->name, "prim.cum_sum") || !strcmp(op->name, "prim.reduce_window") ||
          kr_type_num_elements(kr_value_type(kr_op_operand(op, 0))) == 0)
        *per_element = true;
    }
  }
  kr_attr kind = kr_op_get_attr(func, KR_KERNEL_ATTR_KIND);
  if (kind && kind->kind == KR_ATTR_STRING) return kind->u.string.str;
  return linear ? KR_KERNEL_KIND_LINEAR : reduction ? KR_KERNEL_KIND_REDUCTION : KR_KERNEL_KIND_INJECTIVE;
}

static kr_type buffer_of(kr_context *ctx, kr_type tensor) {
  return kr_kernel_buffer_type(ctx, KR_KERNEL_SPACE_GLOBAL, tensor->u.shaped.rank, tensor->u.shaped.dims, NULL,
                               tensor->u.shaped.elem);
}

static kr_status schedule_kernel(kr_op *func, const kr_target *target, const schedule_options *opt,
                                 const kr_profile_db *db) {
  kr_context *ctx = kr_op_context(func);
  kr_block *old = func->regions[0].first;
  kr_op *ret = old ? kr_block_terminator(old) : NULL;
  if (!ret || strcmp(ret->name, KR_KERNEL_RETURN_OP))
    return kr_op_emit_error(func, "schedule: the kernel has no body ending in '" KR_KERNEL_RETURN_OP "'");
  for (kr_op *op = old->first; op != ret; op = op->next)
    if (kr_prim_op_class(op) == KR_PRIM_NOT_PRIM && !kr_op_has_trait(op, KR_TRAIT_CONSTANT_LIKE))
      return kr_op_emit_error(op, "schedule: a kernel to schedule may hold only primitives and constants");
  ks_kernel k;
  memset(&k, 0, sizeof k);
  k.ctx = ctx;
  k.func = func;
  k.old_body = old;
  k.target = target;
  k.tile_override = opt->tile;
  k.profile_db = db;
  kr_attr hash = kr_op_get_attr(func, KR_KERNEL_ATTR_HASH);
  if (hash && hash->kind == KR_ATTR_STRING) k.hash = strtoull(hash->u.string.str, NULL, 16);
  bool per_element;
  k.kind = kernel_kind(func, old, &per_element);
  k.num_inputs = old->num_args;
  k.num_outputs = ret->num_operands;
  unsigned n = k.num_inputs + k.num_outputs;
  kr_value *vals = calloc(2 * (size_t)n + 1, sizeof *vals);
  kr_type *types = calloc((size_t)n + 1, sizeof *types);
  if (!vals || !types) {
    free(vals);
    free(types);
    return kr_op_emit_error(func, "schedule: out of memory");
  }
  k.inputs = vals;
  k.outputs = vals + k.num_inputs;
  kr_block *body = kr_block_create(ctx);
  k.body = body;
  for (unsigned i = 0; i < k.num_inputs; i++) k.inputs[i] = old->args[i];
  for (unsigned i = 0; i < k.num_outputs; i++) k.outputs[i] = kr_op_operand(ret, i);
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; i < n && !KR_FAILED(st); i++) {
    kr_type t = kr_value_type(i < k.num_inputs ? k.inputs[i] : k.outputs[i - k.num_inputs]);
    types[i] = t && t->kind == KR_TYPE_TENSOR && kr_type_has_static_shape(t) ? buffer_of(ctx, t) : NULL;
    if (!types[i]) st = kr_op_emit_error(func, "schedule: kernel operand #%u needs a static tensor type", i);
    else kr_block_add_arg(body, types[i], func->loc);
  }
  k.in_bufs = body->args;
  k.out_bufs = body->args + k.num_inputs;
  bool all_empty = true; /* ONNX allows zero-sized tensors: then there is nothing to compute */
  for (unsigned i = 0; i < k.num_outputs; i++) all_empty &= kr_type_num_elements(kr_value_type(k.outputs[i])) == 0;
  if (!KR_FAILED(st) && all_empty) {
    kr_builder b;
    kr_builder_init(&b, ctx);
    kr_builder_set_insertion_point_to_end(&b, body);
    kr_op_state rs;
    kr_op_state_init(&rs, ctx, KR_KERNEL_RETURN_OP, ret->loc);
    kr_builder_create(&b, &rs);
    kr_op_state_free(&rs);
    static const int64_t one[3] = {1, 1, 1};
    st = ks_set_launch(&k, "empty", one, 1, 0, "no output element: nothing to compute");
  } else if (!KR_FAILED(st)) {
    if (!strcmp(k.kind, KR_KERNEL_KIND_LINEAR))
      st = ks_schedule_linear(&k);
    else if (!strcmp(k.kind, KR_KERNEL_KIND_REDUCTION) && !per_element)
      st = ks_schedule_reduction(&k);
    else
      st = ks_schedule_injective(&k);
  }
  if (KR_FAILED(st)) {
    kr_block_erase(body);
  } else {
    kr_region *r = &func->regions[0];
    kr_region_remove_block(r, old);
    kr_block_erase(old);
    kr_region_append_block(r, body);
    kr_op_set_attr(func, "function_type", kr_attr_type(ctx, kr_type_function(ctx, types, n, NULL, 0)));
    kr_op_set_attr(func, "res_attrs", NULL);
  }
  free(vals);
  free(types);
  return st;
}

static kr_status schedule_run(kr_op *module, const void *options, kr_pass_run *run) {
  const schedule_options *opt = options;
  kr_context *ctx = kr_pass_run_context(run);
  kr_target target;
  if (set(opt->target)) {
    if (KR_FAILED(kr_target_load(ctx, opt->target, module->loc, &target))) return KR_FAILURE;
  } else if (KR_FAILED(kr_target_of_module(module, &target))) {
    return KR_FAILURE;
  }
  kr_profile_db db = {0};
  bool have_db = set(opt->profile_db);
  if (have_db && KR_FAILED(kr_profile_db_load(ctx, opt->profile_db, module->loc, &db))) return KR_FAILURE;
  kr_vec kernels = {0};
  kr_block *mb = module->num_regions ? module->regions[0].first : NULL;
  for (kr_op *op = mb ? mb->first : NULL; op; op = op->next)
    if (!strcmp(op->name, KR_KERNEL_FUNC_OP) && !kr_kernel_is_scheduled(op)) KR_VEC_PUSH(&kernels, kr_op *, op);
  kr_status st = KR_SUCCESS;
  for (size_t i = 0; i < kernels.len && !KR_FAILED(st); i++)
    st = schedule_kernel(KR_VEC_AT(&kernels, kr_op *, i), &target, opt, have_db ? &db : NULL);
  if (!kernels.len) kr_pass_run_mark_unchanged(run);
  kr_vec_free(&kernels);
  if (have_db) kr_profile_db_free(&db);
  return st;
}

const kr_pass_def kr_schedule_pass = {
  .argument = "schedule",
  .summary = "Rewrite every kernel.func of primitives into task-mapped SIMT code (Hidet templates: injective, "
             "reduction, matmul/conv) with its other primitives fused as prologues and epilogues",
  .anchor = KR_MODULE_OP,
  .options_size = sizeof(schedule_options),
  .options = schedule_options_table,
  .num_options = sizeof schedule_options_table / sizeof *schedule_options_table,
  .run = schedule_run,
  .display_name = "Schedule",
};
