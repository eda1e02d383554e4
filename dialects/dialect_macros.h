/* dialects/dialect_macros.h - the X-macro machinery behind every dialect's ops.def (private to
 * korch's own dialects and the test dialect; out-of-tree dialects write kr_op_def rows directly,
 * see examples/dialect-plugin/).
 *
 * A dialect's ops.def is a list of rows
 *
 *   KR_OP("dialect.name", TRAITS, NUM_OPERANDS, NUM_RESULTS, NUM_REGIONS,
 *         VERIFY, FOLD, CANONICALIZE, PARSE, PRINT, "summary")
 *
 * where TRAITS is an or-ed set of KR_TRAIT_* (0: none), the counts are exact or KR_VARIADIC,
 * and the five hook columns name functions or say NONE.  The hooks have these signatures (korch/dialect.h):
 *
 *   VERIFY        kr_status f(kr_op *op)
 *   FOLD          kr_status f(kr_op *op, const kr_attr *operands, kr_fold_result *results)
 *   CANONICALIZE  kr_status f(kr_rewriter *rw, kr_op *op)   (one pattern rooted at the op, like
 *                 MLIR's `hasCanonicalizeMethod`; it may try several rewrites in turn)
 *   PARSE         kr_status f(kr_asm_parser *p, kr_op_state *st)
 *   PRINT         void f(kr_asm_printer *p, kr_op *op)
 *
 * The dialect's <d>.c includes ops.def twice:
 *
 *   #define KR_OP KR_OP_DECLARE_HOOKS        // prototypes of every named hook (repeats are fine)
 *   #include "ops.def"
 *   #undef KR_OP
 *   static const kr_op_def ops[] = {
 *   #define KR_OP KR_OP_TABLE_ROW            // one kr_op_def initializer per row
 *   #include "ops.def"
 *   #undef KR_OP
 *   };
 *
 * so adding an op is one row plus the functions it names.  Hooks have external linkage (other
 * files of the dialect, e.g. fold.c or canonicalize.c, define them after including ops.def with
 * KR_OP_DECLARE_HOOKS themselves); name them with the dialect's kr_<d>_ prefix.
 *
 * NONE is recognised by token pasting (KR_PROBE_NONE), the usual preprocessor "probe" idiom:
 * pasting KR_PROBE_ onto a hook name yields an identifier that is not a macro, onto NONE it yields
 * `~, 1`, and KR_SECOND picks the 1.  NONE itself is never expanded, so it must stay undefined. */
#ifndef KORCH_DIALECTS_DIALECT_MACROS_H
#define KORCH_DIALECTS_DIALECT_MACROS_H

#include "korch/dialect.h"
#include "korch/rewrite.h"

#define KR_PP_CAT_(a, b) a##b
#define KR_PP_CAT(a, b) KR_PP_CAT_(a, b)
#define KR_PP_SECOND_(a, b, ...) b
#define KR_PP_SECOND(...) KR_PP_SECOND_(__VA_ARGS__, )
#define KR_PROBE_NONE ~, 1
/* 1 if `x` is the token NONE, else 0. */
#define KR_PP_IS_NONE(x) KR_PP_SECOND(KR_PP_CAT(KR_PROBE_, x), 0)

/* Hook pointer for a table row: NULL for NONE. */
#define KR_HOOK(x) KR_PP_CAT(KR_HOOK_, KR_PP_IS_NONE(x))(x)
#define KR_HOOK_0(x) x
#define KR_HOOK_1(x) NULL

/* Prototypes, one macro per hook kind (nothing for NONE). */
#define KR_DECLARE_VERIFY(x) KR_PP_CAT(KR_DECLARE_VERIFY_, KR_PP_IS_NONE(x))(x)
#define KR_DECLARE_VERIFY_0(x) kr_status x(kr_op *op);
#define KR_DECLARE_VERIFY_1(x)
#define KR_DECLARE_FOLD(x) KR_PP_CAT(KR_DECLARE_FOLD_, KR_PP_IS_NONE(x))(x)
#define KR_DECLARE_FOLD_0(x) kr_status x(kr_op *op, const kr_attr *operands, kr_fold_result *results);
#define KR_DECLARE_FOLD_1(x)
#define KR_DECLARE_CANONICALIZE(x) KR_PP_CAT(KR_DECLARE_CANONICALIZE_, KR_PP_IS_NONE(x))(x)
#define KR_DECLARE_CANONICALIZE_0(x) kr_status x(kr_rewriter *rw, kr_op *op);
#define KR_DECLARE_CANONICALIZE_1(x)
#define KR_DECLARE_PARSE(x) KR_PP_CAT(KR_DECLARE_PARSE_, KR_PP_IS_NONE(x))(x)
#define KR_DECLARE_PARSE_0(x) kr_status x(kr_asm_parser *p, kr_op_state *st);
#define KR_DECLARE_PARSE_1(x)
#define KR_DECLARE_PRINT(x) KR_PP_CAT(KR_DECLARE_PRINT_, KR_PP_IS_NONE(x))(x)
#define KR_DECLARE_PRINT_0(x) void x(kr_asm_printer *p, kr_op *op);
#define KR_DECLARE_PRINT_1(x)

/* The canonicalize column becomes a one-element pattern array (a file-scope compound literal,
 * so it has static storage) rooted at the op, benefit 1, named after the function. */
#define KR_CANON_PATTERNS(x, name) KR_PP_CAT(KR_CANON_PATTERNS_, KR_PP_IS_NONE(x))(x, name)
#define KR_CANON_PATTERNS_0(x, name) (&(const kr_pattern){#x, name, 1, x})
#define KR_CANON_PATTERNS_1(x, name) NULL
#define KR_CANON_COUNT(x) KR_PP_CAT(KR_CANON_COUNT_, KR_PP_IS_NONE(x))
#define KR_CANON_COUNT_0 1u
#define KR_CANON_COUNT_1 0u

/* First inclusion of ops.def: hook prototypes. */
#define KR_OP_DECLARE_HOOKS(NAME, TRAITS, NOPS, NRES, NREG, VERIFY, FOLD, CANON, PARSE, PRINT, SUMMARY) \
  KR_DECLARE_VERIFY(VERIFY) KR_DECLARE_FOLD(FOLD) KR_DECLARE_CANONICALIZE(CANON)                        \
  KR_DECLARE_PARSE(PARSE) KR_DECLARE_PRINT(PRINT)

/* Second inclusion: one kr_op_def initializer per row. */
#define KR_OP_TABLE_ROW(NAME, TRAITS, NOPS, NRES, NREG, VERIFY, FOLD, CANON, PARSE, PRINT, SUMMARY) \
  {                                                                                                 \
    .name = NAME,                                                                                   \
    .traits = (TRAITS),                                                                             \
    .num_operands = (NOPS),                                                                         \
    .num_results = (NRES),                                                                          \
    .num_regions = (NREG),                                                                          \
    .summary = SUMMARY,                                                                             \
    .verify = KR_HOOK(VERIFY),                                                                      \
    .fold = KR_HOOK(FOLD),                                                                          \
    .patterns = KR_CANON_PATTERNS(CANON, NAME),                                                     \
    .num_patterns = KR_CANON_COUNT(CANON),                                                          \
    .parse = KR_HOOK(PARSE),                                                                        \
    .print = KR_HOOK(PRINT),                                                                        \
  },

/* Number of elements of a true array. */
#define KR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
