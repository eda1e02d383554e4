/* ir/context_impl.h - private layout of kr_context (libfirm's *_t.h split: public API in
 * include/korch, representation here).  Only libkorch sources include this. */
#ifndef KORCH_IR_CONTEXT_IMPL_H
#define KORCH_IR_CONTEXT_IMPL_H

#include "korch/adt.h"
#include "korch/arena.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/ir.h"

typedef struct kr_source {
  kr_ident filename;
  const char *buf;
  size_t len;
} kr_source;

struct kr_context {
  kr_arena arena;            /* types, attributes, identifiers, ops, blocks, regions, values */
  kr_hmap idents;            /* interned strings */
  kr_hmap types;             /* uniqued types */
  kr_hmap attrs;             /* uniqued attributes */
  kr_hmap op_defs;           /* kr_ident -> const kr_op_def* */
  kr_vec dialects;           /* kr_dialect * in registration order */
  kr_vec passes;             /* const kr_pass_def * (passes/registry.c keeps it sorted by name) */
  kr_hmap resources;         /* kr_ident key -> kr_resource* */
  kr_vec resource_list;      /* kr_resource * in creation order */
  kr_vec sources;            /* kr_source */
  kr_vec plugins;            /* void * dlopen handles, closed at destroy */
  kr_diag_handler diag_handler;
  void *diag_user;
  unsigned num_errors;
  bool allow_unregistered;
  /* frequently used, created at context creation */
  kr_attr empty_dict, unknown_loc, unit;
};

#endif
