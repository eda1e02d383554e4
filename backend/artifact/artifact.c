/* backend/artifact/artifact.c - kr_artifact_write (korch/artifact.h, docs/PlanFormat.md): checks
 * that the module is at the planned level, reads its memory plan (korch/plan.h), generates the
 * PTX in memory (backend/nvptx), runs ptxas for the per-kernel resource figures when it is
 * available, builds model.plan.xml in memory and checks the weights, and only then writes the
 * three files, each to a temporary name renamed into place (korch/file.h); model.weights is
 * streamed from the constants' storage (weights.c) rather than built in memory first.  Any
 * failure before the renames leaves DIR exactly as it was. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/artifact/artifact_impl.h"
#include "korch/diag.h"
#include "korch/file.h"
#include "korch/kernel.h"
#include "korch/target.h"

kr_artifact_options kr_artifact_default_options(void) {
  return (kr_artifact_options){.nvptx = kr_nvptx_default_options(), .ptxas = NULL};
}

/* ---------------------------------------------------------------------------------------------
 * The module's shape: scheduled kernels and exactly one planned host function. */

static kr_block *module_body(kr_op *module) {
  if (!module || module->num_regions != 1) return NULL;
  return kr_op_region(module, 0)->first;
}

/* The kernel.funcs (in module order) into *kernels, and the one host func.func into *host. */
static kr_status check_module(kr_op *module, kr_arena *arena, kr_artifact_model *m, kr_op **host) {
  kr_block *body = module_body(module);
  if (!body) return kr_op_emit_error(module, "artifact: expected a module with a body");
  *host = NULL;
  unsigned nk = 0;
  for (kr_op *op = body->first; op; op = op->next) {
    if (!strcmp(op->name, KR_KERNEL_FUNC_OP)) {
      if (!kr_kernel_is_scheduled(op))
        return kr_op_emit_error(op, "artifact: kernel is not scheduled (run --schedule before --emit-artifact)");
      nk++;
    } else if (!strcmp(op->name, "func.func")) {
      if (*host) {
        kr_diagnostic *d = kr_op_diag_begin(op, KR_SEV_ERROR,
                                            "artifact: a second host function '@%s'; an artifact runs exactly one",
                                            kr_op_symbol_name(op));
        kr_diag_note(d, (*host)->loc, "the first host function '@%s' is here", kr_op_symbol_name(*host));
        kr_diag_report(d);
        return KR_FAILURE;
      }
      *host = op;
    }
  }
  if (!*host) return kr_op_emit_error(module, "artifact: the module has no host function (func.func)");
  if (!kr_plan_is_planned(*host))
    return kr_op_emit_error(*host,
                            "artifact: host function '@%s' has no memory plan (run --plan-buffers before --emit-artifact)",
                            kr_op_symbol_name(*host));
  m->num_kernels = nk;
  m->kernels = KR_NEW_ARRAY(arena, kr_artifact_kernel, nk ? nk : 1);
  unsigned i = 0;
  for (kr_op *op = body->first; op; op = op->next) {
    if (strcmp(op->name, KR_KERNEL_FUNC_OP)) continue;
    kr_artifact_kernel *k = &m->kernels[i++];
    k->func = op;
    k->name = kr_op_symbol_name(op);
    kr_attr fty = kr_op_get_attr(op, "function_type");
    kr_type t = fty && fty->kind == KR_ATTR_TYPE ? fty->type : NULL;
    if (!t || t->kind != KR_TYPE_FUNCTION || t->u.func.num_results)
      return kr_op_emit_error(op, "artifact: a scheduled kernel takes its inputs and outputs as arguments and "
                                  "returns nothing");
    k->params = t->u.func.num_inputs;
    kr_attr tmpl = kr_op_get_attr(op, KR_KERNEL_ATTR_TEMPLATE);
    k->template_name = tmpl && tmpl->kind == KR_ATTR_STRING ? tmpl->u.string.str : NULL;
    const char *dims_attr[2] = {KR_KERNEL_ATTR_GRID, KR_KERNEL_ATTR_BLOCK};
    int64_t *dims[2] = {k->grid, k->block};
    for (unsigned d = 0; d < 2; d++) {
      kr_attr a = kr_op_get_attr(op, dims_attr[d]);
      if (!a || a->kind != KR_ATTR_DENSE_ARRAY || !kr_type_is_integer(a->type, 64) || a->u.dense_array.num != 3)
        return kr_op_emit_error(op, "artifact: '%s' must be array<i64: x, y, z>", dims_attr[d]);
      memcpy(dims[d], a->u.dense_array.data, 3 * sizeof(int64_t));
    }
    kr_attr dyn = kr_op_get_attr(op, KR_KERNEL_ATTR_DYNAMIC_SMEM);
    k->dynamic_shared_bytes = dyn && dyn->kind == KR_ATTR_INTEGER ? dyn->u.i : 0;
  }
  return KR_SUCCESS;
}

/* What kr_plan_read does not know about the format: every tensor has an element type the format
 * names, and every launch passes one buffer per kernel parameter. */
static kr_status check_plan(const kr_artifact_model *m) {
  const kr_plan *p = &m->plan;
  for (unsigned i = 0; i < p->num_inputs + p->num_outputs; i++) {
    const kr_plan_io *io = i < p->num_inputs ? &p->inputs[i] : &p->outputs[i - p->num_inputs];
    kr_type t = io->ref.type;
    if (!t || !kr_type_is_shaped(t) || !kr_type_has_static_shape(t) || !kr_artifact_dtype_name(t->u.shaped.elem))
      return kr_op_emit_error(p->func, "artifact: %s '%s' has a type the plan format cannot describe "
                                       "(expected a static tensor of f16, bf16, f32, f64, i1, i8..i64 or ui8..ui64)",
                              i < p->num_inputs ? "input" : "output", io->name);
  }
  for (unsigned i = 0; i < p->num_launches; i++) {
    const kr_plan_launch *l = &p->launches[i];
    const kr_artifact_kernel *k = NULL;
    for (unsigned j = 0; j < m->num_kernels && !k; j++)
      if (m->kernels[j].func == l->kernel) k = &m->kernels[j];
    if (!k) return kr_op_emit_error(l->op, "artifact: the launch's callee is not a kernel.func of this module");
    if (k->params != l->num_args)
      return kr_op_emit_error(l->op, "artifact: the launch binds %u buffers but kernel '@%s' takes %u", l->num_args,
                              k->name, k->params);
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * ptxas: the resource figures of docs/PlanFormat.md's <kernel>, when ptxas is available. */

/* "warn once": an --emit-candidates run writes hundreds of artifacts; one warning says it all. */
static atomic_bool warned_no_ptxas;

static kr_status run_ptxas(kr_op *module, const kr_artifact_options *o, const char *ptx, kr_artifact_model *m) {
  const char *ptxas = o->ptxas;
  if (ptxas && !*ptxas) return KR_SUCCESS; /* "": do not run ptxas */
  if (!ptxas) ptxas = kr_nvptx_find_ptxas();
  if (!ptxas) {
    if (!atomic_exchange(&warned_no_ptxas, true))
      kr_emit_warning(kr_op_context(module), module->loc,
                      "artifact: ptxas not found ($KORCH_PTXAS, /usr/local/cuda/bin/ptxas, PATH); model.plan.xml "
                      "gets no register figures and korch-run --dry-run cannot check registers x threads");
    return KR_SUCCESS;
  }
  kr_ptxas_info *infos = NULL;
  unsigned n = 0;
  if (KR_FAILED(kr_nvptx_ptxas(kr_op_context(module), module->loc, ptxas, m->gpu_arch, ptx, &infos, &n)))
    return KR_FAILURE;
  kr_status st = KR_SUCCESS;
  for (unsigned i = 0; i < m->num_kernels && !st; i++) {
    kr_artifact_kernel *k = &m->kernels[i];
    for (unsigned j = 0; j < n && !k->has_ptxas; j++)
      if (!strcmp(infos[j].name, k->name)) {
        k->ptxas = infos[j];
        k->has_ptxas = true;
      }
    if (!k->has_ptxas) st = kr_op_emit_error(k->func, "artifact: ptxas reported no figures for kernel '%s'", k->name);
  }
  free(infos);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * Writing the directory. */

typedef struct artifact_file {
  const char *name;
  const void *data;
  size_t len;
  const kr_plan *weights; /* non-NULL: the contents are kr_artifact_weights_stream's, not data */
  kr_file_output out;
} artifact_file;

static char *join_path(const char *dir, const char *name) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  char *p = malloc(n + strlen(name) + 2);
  if (p) sprintf(p, "%.*s/%s", (int)n, dir, name);
  return p;
}

/* Creates DIR when missing (its parent must exist: like mkdir without -p, so a typo in the
 * parent is reported rather than silently created).  *created says whether this call made it. */
static kr_status make_dir(kr_op *module, const char *dir, bool *created) {
  *created = false;
  struct stat st;
  if (!stat(dir, &st)) {
    if (S_ISDIR(st.st_mode)) return KR_SUCCESS;
    return kr_emit_error(kr_op_context(module), module->loc, "artifact: '%s' exists and is not a directory", dir);
  }
  if (mkdir(dir, 0777) && errno != EEXIST)
    return kr_emit_error(kr_op_context(module), module->loc, "artifact: cannot create directory '%s': %s", dir,
                         strerror(errno));
  *created = true;
  return KR_SUCCESS;
}

/* All three temporaries are opened and filled before the first rename; the plan is renamed last,
 * so a reader that finds the new plan finds the new PTX and weights beside it. */
static kr_status write_files(kr_op *module, const char *dir, artifact_file *files, unsigned n) {
  kr_context *ctx = kr_op_context(module);
  bool created;
  if (KR_FAILED(make_dir(module, dir, &created))) return KR_FAILURE;
  kr_status st = KR_SUCCESS;
  unsigned opened = 0;
  for (; opened < n && !st; opened++) {
    artifact_file *f = &files[opened];
    char *path = join_path(dir, f->name);
    int err = path ? kr_file_output_open(&f->out, path) : ENOMEM;
    if (!err && f->weights)
      err = kr_artifact_weights_stream(f->weights, f->out.file);
    else if (!err && f->len && fwrite(f->data, 1, f->len, f->out.file) != f->len)
      err = errno ? errno : EIO;
    if (err) {
      const char *failed = kr_file_output_failed_path(&f->out);
      st = kr_emit_error(ctx, module->loc, "artifact: cannot write '%s': %s", failed ? failed : path ? path : f->name,
                         strerror(err));
    }
    free(path);
  }
  for (unsigned i = 0; i < opened && !st; i++) {
    int err = kr_file_output_commit(&files[i].out, false);
    if (err) {
      const char *failed = kr_file_output_failed_path(&files[i].out);
      st = kr_emit_error(ctx, module->loc, "artifact: cannot write '%s': %s", failed ? failed : files[i].name,
                         strerror(err));
    }
  }
  for (unsigned i = 0; i < opened; i++) kr_file_output_abort(&files[i].out);
  if (st && created) rmdir(dir); /* only when still empty: nothing was renamed into it */
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * The driver. */

kr_status kr_artifact_write_profiled(kr_op *module, const char *dir, const kr_artifact_options *options,
                                     const kr_artifact_profile *profile) {
  kr_artifact_options o = options ? *options : kr_artifact_default_options();
  kr_arena arena = {0};
  kr_artifact_model m;
  memset(&m, 0, sizeof m);
  m.profile = profile;
  kr_ostream ptx, xml;
  kr_ostream_init_mem(&ptx);
  kr_ostream_init_mem(&xml);
  kr_op *host = NULL;
  kr_target target;
  kr_status st = check_module(module, &arena, &m, &host);
  if (!st) st = kr_plan_read(host, &arena, &m.plan);
  if (!st) st = check_plan(&m);
  if (!st) st = kr_target_of_module(module, &target);
  if (!st) {
    m.target = target.name;
    st = kr_nvptx_resolve_arch(module, &o.nvptx, m.gpu_arch);
  }
  if (!st) {
    o.nvptx.gpu_arch = m.gpu_arch;
    st = kr_nvptx_emit_ptx(module, &o.nvptx, &ptx);
  }
  if (!st) st = run_ptxas(module, &o, kr_ostream_str(&ptx), &m);
  if (!st) st = kr_artifact_weights_check(&m.plan);
  if (!st) st = kr_artifact_plan_xml(&m, &xml);
  if (!st) {
    artifact_file files[3] = {
        {KR_ARTIFACT_WEIGHTS, NULL, 0, &m.plan, {0}},
        {KR_ARTIFACT_PTX, kr_ostream_str(&ptx), ptx.len, NULL, {0}},
        {KR_ARTIFACT_PLAN, kr_ostream_str(&xml), xml.len, NULL, {0}},
    };
    st = write_files(module, dir, files, 3);
  }
  kr_ostream_close(&ptx);
  kr_ostream_close(&xml);
  kr_arena_release(&arena);
  return st;
}

kr_status kr_artifact_write(kr_op *module, const char *dir, const kr_artifact_options *options) {
  return kr_artifact_write_profiled(module, dir, options, NULL);
}
