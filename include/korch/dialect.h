/* korch/dialect.h - dialect and op registration (after MLIR's ODS, libfirm's op vtables and
 * QBE's op tables).  A dialect is a table of kr_op_def rows, normally generated from an `ops.def`
 * X-macro file (see docs/WritingADialect.md), plus optional type/attribute hooks. */
#ifndef KORCH_DIALECT_H
#define KORCH_DIALECT_H

#include "korch/asm.h"
#include "korch/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Traits: a bitmask in kr_op_def::traits.  The generic verifier checks the structural ones. */
enum {
  KR_TRAIT_PURE                  = 1u << 0,  /* no side effects: dead if unused, CSE-able, hoistable */
  KR_TRAIT_COMMUTATIVE           = 1u << 1,  /* folding moves constant operands to the end; CSE matches either order */
  KR_TRAIT_TERMINATOR            = 1u << 2,  /* must be last in its block */
  KR_TRAIT_ISOLATED_FROM_ABOVE   = 1u << 3,  /* regions use no value defined outside */
  KR_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE = 1u << 4,
  KR_TRAIT_SYMBOL                = 1u << 5,  /* has a sym_name string attribute */
  KR_TRAIT_SYMBOL_TABLE          = 1u << 6,  /* its single-block region holds symbols with unique names */
  KR_TRAIT_NO_TERMINATOR         = 1u << 7,  /* its blocks need no terminator */
  KR_TRAIT_SINGLE_BLOCK          = 1u << 8,  /* each region has at most one block */
  KR_TRAIT_CONSTANT_LIKE         = 1u << 9,  /* folds to its `value` attribute */
  KR_TRAIT_RETURN_LIKE           = 1u << 10, /* returns control to the parent op */
  KR_TRAIT_IDEMPOTENT            = 1u << 11, /* f(f(x)) = f(x) (unary), f(x, x) = x (binary): folded by the driver */
  KR_TRAIT_INVOLUTION            = 1u << 12, /* f(f(x)) = x (unary): folded by the driver */
  KR_TRAIT_SAME_OPERANDS_TYPE    = 1u << 13,
  KR_TRAIT_NO_SIDE_EFFECT_REGIONS = 1u << 14, /* region ops count as pure when their bodies are */
  KR_TRAIT_CALLABLE              = 1u << 15, /* a function-like op whose first region is the body */
  KR_TRAIT_CALL                  = 1u << 16, /* calls `callee` (a symbol reference attribute) */
  KR_TRAIT_SCHEMA                = 1u << 17, /* shape_inference points at a kr_op_schema (korch/op.h): operands,
                                              * attributes (with defaults) and result types come from a table row */
};

#define KR_VARIADIC (-1)

/* A fold result: either a constant attribute or an existing value. */
typedef struct kr_fold_result {
  kr_attr attr;
  kr_value value;
} kr_fold_result;

typedef struct kr_rewriter kr_rewriter;   /* korch/rewrite.h */

/* A rewrite pattern rooted at ops named `root` (NULL: any op).  match_and_rewrite returns
 * KR_SUCCESS iff it changed the IR, and then only through the rewriter. */
typedef struct kr_pattern {
  const char *name;
  const char *root;
  int benefit;
  kr_status (*match_and_rewrite)(kr_rewriter *rw, kr_op *op);
} kr_pattern;

/* One op definition: a row of a dialect's ops.def. */
struct kr_op_def {
  const char *name;            /* full name "dialect.op" */
  uint32_t traits;             /* KR_TRAIT_* */
  int num_operands;            /* exact count or KR_VARIADIC; checked by the verifier */
  int num_results;
  int num_regions;
  const char *summary;         /* one line, for docs and --help */
  /* Op-specific verification after the generic checks; reports through kr_op_emit_error. */
  kr_status (*verify)(kr_op *op);
  /* Folding: `operands[i]` is the constant attribute of operand i or NULL.  On success fills
   * results[0..num_results) and returns KR_SUCCESS; KR_FAILURE means "did not fold" (no error). */
  kr_status (*fold)(kr_op *op, const kr_attr *operands, kr_fold_result *results);
  /* Canonicalization patterns rooted at this op. */
  const kr_pattern *patterns;
  unsigned num_patterns;
  /* Custom assembly; NULL: generic form only. */
  kr_status (*parse)(kr_asm_parser *p, kr_op_state *st);
  void (*print)(kr_asm_printer *p, kr_op *op);
  /* Interface slots for later levels, typed by the interfaces that use them. */
  const void *shape_inference;
  const void *interpreter;
  const void *cost;
  const void *lowering;
  /* Filled at registration. */
  kr_ident ident;
  const kr_dialect *dialect;
};

/* A dialect: name, op table and hooks. */
typedef struct kr_dialect_def {
  const char *name;                         /* "arith" */
  const char *summary;
  const kr_op_def *ops;                     /* table, copied at registration */
  unsigned num_ops;
  /* `!name.mnemonic...` types: called with the parser after `!name.`; NULL: not supported. */
  kr_type (*parse_type)(kr_asm_parser *p, kr_context *ctx);
  void (*print_type)(kr_asm_printer *p, kr_type t);       /* prints the part after `!name.` */
  kr_attr (*parse_attr)(kr_asm_parser *p, kr_context *ctx);
  void (*print_attr)(kr_asm_printer *p, kr_attr a);       /* prints the part after `#name.` */
  /* Builds a constant op producing `value` of `type` (folding needs this); NULL if unsupported. */
  kr_op *(*materialize_constant)(kr_builder *b, kr_attr value, kr_type type, kr_attr loc);
  /* Extra canonicalization patterns not rooted at one op of the dialect. */
  const kr_pattern *patterns;
  unsigned num_patterns;
} kr_dialect_def;

struct kr_dialect {
  const kr_dialect_def *def;
  kr_ident name;
  kr_op_def *ops;        /* registered copies, ident/dialect filled */
  unsigned num_ops;
};

/* Registers `def` (the struct must outlive the context; the op table is copied).  Fails with a
 * diagnostic if the dialect name or an op name is already registered or an op name does not start
 * with "<dialect>.". Registering the same def twice is a no-op success. */
kr_status kr_context_register_dialect(kr_context *ctx, const kr_dialect_def *def);
const kr_dialect *kr_context_lookup_dialect(kr_context *ctx, const char *name, size_t len);
const kr_op_def *kr_context_lookup_op(kr_context *ctx, kr_ident name);
/* All registered dialects, in registration order. */
unsigned kr_context_num_dialects(kr_context *ctx);
const kr_dialect *kr_context_dialect_at(kr_context *ctx, unsigned i);

/* Plugins: a shared object exporting
 *     kr_status korch_plugin_init(kr_context *ctx);
 * which registers its dialects (and passes, korch/pass.h).  Reports dlopen/dlsym errors. */
#define KR_PLUGIN_INIT_SYMBOL "korch_plugin_init"
typedef kr_status (*kr_plugin_init_fn)(kr_context *ctx);
kr_status kr_context_load_plugin(kr_context *ctx, const char *path);

/* The dialects korch ships in its library: builtin (module), func, arith, op (korch/op.h), prim
 * (korch/prim.h) and kernel (korch/kernel.h). */
kr_status kr_register_core_dialects(kr_context *ctx);

/* Well-known op names. */
#define KR_MODULE_OP "builtin.module"

#ifdef __cplusplus
}
#endif
#endif
