/* korch/asm.h - the .kir text format: parsing, printing and verification entry points, and the
 * API that dialects' custom assembly hooks use (after MLIR's OpAsmParser / OpAsmPrinter).
 * The grammar is in docs/LangRef.md. */
#ifndef KORCH_ASM_H
#define KORCH_ASM_H

#include "korch/ir.h"
#include "korch/ostream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Entry points. */

/* Parses a whole .kir buffer.  `filename` is used in locations.  Top-level ops are wrapped in an
 * implicit `builtin.module` unless the buffer holds exactly one `builtin.module`.  The result is
 * verified (kr_op_verify) unless `verify` is false.  Returns NULL after reporting diagnostics
 * (file:line:col) on any lexical, syntactic, name-resolution, type or verifier error.  `buf` need
 * not be NUL-terminated and may hold any bytes.  The buffer is registered with
 * kr_context_add_source(ctx, filename, ...) so that diagnostics show the offending line: keep it
 * alive while the context may still report diagnostics at locations of this file, or call
 * kr_context_remove_source(ctx, filename) before freeing it.  The IR keeps no pointer into it. */
kr_op *kr_parse_source(kr_context *ctx, const char *filename, const char *buf, size_t len, bool verify);

/* Parses a single type or attribute from text (for tools and tests); NULL with a diagnostic. */
kr_type kr_parse_type_str(kr_context *ctx, const char *text);
kr_attr kr_parse_attr_str(kr_context *ctx, const char *text);

typedef struct kr_print_flags {
  bool generic;          /* --print-op-generic: no custom assembly */
  bool debuginfo;        /* --print-debuginfo: print loc(...) on ops and block arguments */
  size_t hex_threshold;  /* dense attributes with more bytes than this print as "0x..." hex; 0: default (4096) */
} kr_print_flags;

/* Prints `op` (normally a module) with deterministic value names (%0.., %arg0.., ^bb0..), and a
 * trailing `{-# dialect_resources ... #-}` section for every referenced resource.  The text ends
 * with a newline, as MLIR's Operation::print does (mlir-opt then adds one more).  The names are
 * mlir-opt 19's: per region in custom form, one counter for the whole printout in generic form
 * (see ir/printer.c).  kr_op::order of the printed ops is used as scratch (their blocks' orders
 * are marked invalid, like after any mutation). */
void kr_op_print(kr_op *op, kr_ostream *os, const kr_print_flags *flags);
/* Prints `op` alone, without a trailing newline or resource section, naming values as they are
 * named when its nearest isolated-from-above ancestor (or its outermost ancestor) is printed, so
 * the text matches the enclosing function's printout (MLIR's Operation::print without local
 * scope).  For diagnostics, e.g. the verifier's "block with no terminator, has ...". */
void kr_op_print_in_context(kr_op *op, kr_ostream *os, const kr_print_flags *flags);
void kr_type_print(kr_ostream *os, kr_type t);
void kr_attr_print(kr_ostream *os, kr_attr a);
/* The text of a type or attribute, as kr_type_print / kr_attr_print write it, for messages: a
 * malloc'd string the caller frees; never NULL (a NULL type or attribute gives "<<NULL TYPE>>" /
 * "<<NULL ATTRIBUTE>>"; out of memory aborts, the arenas' policy). */
char *kr_type_to_cstr(kr_type t);
char *kr_attr_to_cstr(kr_attr a);

/* Verifies `op` and everything nested: operand/result/region counts and traits of registered
 * ops, each op's verify hook, terminators, successors, dominance of SSA values across blocks and
 * nested regions (isolated-from-above ops may not use values from outside), symbol uniqueness in
 * symbol tables, and unregistered ops only when allowed.  Reports every error found. */
kr_status kr_op_verify(kr_op *op);

/* ---------------------------------------------------------------------------------------------
 * Custom assembly: parser side.  A dialect's parse hook receives the parser positioned after the
 * op name and fills a kr_op_state.  Every function reports its own diagnostic on failure. */
typedef struct kr_asm_parser kr_asm_parser;

/* An operand reference not yet resolved to a value: %name or %name#N. */
typedef struct kr_unresolved_operand {
  const char *name; size_t len;   /* including '%'; points into the parsed buffer */
  unsigned number;                /* result number (#N), 0 by default */
  kr_attr loc;                    /* NULL from the parser (a location per operand would cost a
                                     uniqued attribute each): use kr_parser_operand_loc */
} kr_unresolved_operand;

/* A region argument declaration: %name : type (loc(...))? */
typedef struct kr_asm_argument {
  kr_unresolved_operand ssa;
  kr_type type;
  kr_attr loc;                    /* NULL if none was given */
} kr_asm_argument;

kr_context *kr_parser_context(kr_asm_parser *p);
kr_attr kr_parser_loc(kr_asm_parser *p);            /* location of the next token */
/* Location of an operand reference read by this parser (u->loc when set). */
kr_attr kr_parser_operand_loc(kr_asm_parser *p, const kr_unresolved_operand *u);
kr_status kr_parser_error(kr_asm_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Punctuation and keywords: `tok` is the exact spelling ("(", "->", "=", ":", "{", "attributes");
 * a lone sigil "@", "%", "^", "#" or "!" matches any identifier starting with it.  The error
 * of kr_parser_error gets MLIR's "custom op 'name' " prefix while an op's parse hook runs. */
bool kr_parser_consume(kr_asm_parser *p, const char *tok);      /* optional: true if consumed */
kr_status kr_parser_expect(kr_asm_parser *p, const char *tok);   /* error if absent */
/* A bare identifier/keyword; *kw points into the buffer (not NUL-terminated) with *len bytes. */
kr_status kr_parser_parse_keyword(kr_asm_parser *p, const char **kw, size_t *len);
bool kr_parser_peek_keyword(kr_asm_parser *p, const char *kw);
kr_status kr_parser_parse_integer(kr_asm_parser *p, int64_t *out);
kr_status kr_parser_parse_string(kr_asm_parser *p, kr_ident *out);     /* "..." with escapes */
kr_status kr_parser_parse_symbol_name(kr_asm_parser *p, kr_ident *out); /* @name or @"name" */
kr_status kr_parser_parse_type(kr_asm_parser *p, kr_type *out);
/* `type_hint` types bare integer/float literals (NULL: i64 / f64). */
kr_status kr_parser_parse_attr(kr_asm_parser *p, kr_type type_hint, kr_attr *out);
/* `attributes`? {dict}? when `with_keyword`, else {dict}?; adds entries to st. */
kr_status kr_parser_parse_optional_attr_dict(kr_asm_parser *p, kr_op_state *st, bool with_keyword);
/* Operands. */
bool kr_parser_peek_operand(kr_asm_parser *p);
kr_status kr_parser_parse_operand(kr_asm_parser *p, kr_unresolved_operand *out);
/* Comma-separated operands (possibly none), appended to `out` (kr_unresolved_operand). */
kr_status kr_parser_parse_operand_list(kr_asm_parser *p, kr_vec *out);
/* Resolves to a value of `type` (a forward reference creates a placeholder of that type).  `u`
 * must have been read by this parser (its name points into the parsed buffer). */
kr_status kr_parser_resolve_operand(kr_asm_parser *p, const kr_unresolved_operand *u, kr_type type, kr_value *out);
/* Resolves n operands with n types and adds them to st. */
kr_status kr_parser_resolve_operands(kr_asm_parser *p, const kr_unresolved_operand *u, unsigned n,
                                     const kr_type *types, unsigned ntypes, kr_op_state *st);
/* Type lists: `: t1, t2`, `-> t` or `-> (t1, t2)`; appended to `out` (kr_type). */
kr_status kr_parser_parse_colon_type_list(kr_asm_parser *p, kr_vec *out);
kr_status kr_parser_parse_type_list(kr_asm_parser *p, kr_vec *out);   /* t1, t2 (at least one) */
kr_status kr_parser_parse_arrow_type_list(kr_asm_parser *p, kr_vec *out);
/* `(%a: t loc?, ...)` argument list, possibly empty; appended to `out` (kr_asm_argument).  With
 * allow_attrs_and_locs a `loc(...)` may follow each type (argument attribute dictionaries have no
 * field in kr_asm_argument: hooks that take them parse the list themselves, as func.func does). */
kr_status kr_parser_parse_argument_list(kr_asm_parser *p, kr_vec *out, bool allow_attrs_and_locs);
/* `{ ... }` region.  `args` (may be NULL/0) become the entry block's arguments; a region whose
 * first block has no label then gets them (their names read by this parser; unnamed arguments,
 * len 0, are not added, as in MLIR).  Names defined inside are scoped to the region. */
kr_status kr_parser_parse_region(kr_asm_parser *p, kr_region *r, const kr_asm_argument *args, unsigned nargs);
bool kr_parser_peek(kr_asm_parser *p, const char *tok);
/* A successor block reference ^bb (forward references allowed). */
kr_status kr_parser_parse_successor(kr_asm_parser *p, kr_block **out);
/* trailing `loc(...)` if present (sets st->loc). */
kr_status kr_parser_parse_optional_trailing_loc(kr_asm_parser *p, kr_op_state *st);
/* A shape prefix `4x?x8x` (each dimension followed by `x`, as in `tensor<4x?x8xf32>`), possibly
 * empty, appended to `dims` (int64_t, KR_DYNAMIC for `?`, rejected unless allow_dynamic).  The
 * `x` glued to the next token is split off as MLIR's parseDimensionList does. */
kr_status kr_parser_parse_dimension_list(kr_asm_parser *p, kr_vec *dims, bool allow_dynamic);

/* ---------------------------------------------------------------------------------------------
 * Custom assembly: printer side.  The printer writes an op's results (`%0 = `, `%0:2 = `) and its
 * name, without the dialect prefix where MLIR drops it (`module` for builtin.module at the top
 * level and in modules, `return`/`call` directly inside func.func), then calls the op's print
 * hook, which writes the rest, starting with a space when it writes anything.  The location
 * (--print-debuginfo) is appended by the printer. */
typedef struct kr_asm_printer kr_asm_printer;

kr_ostream *kr_printer_stream(kr_asm_printer *p);
const kr_print_flags *kr_printer_flags(kr_asm_printer *p);
void kr_printer_puts(kr_asm_printer *p, const char *s);
void kr_printer_printf(kr_asm_printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kr_printer_print_operand(kr_asm_printer *p, kr_value v);
/* Comma-separated operands [start, start+n). */
void kr_printer_print_operands(kr_asm_printer *p, kr_op *op, unsigned start, unsigned n);
void kr_printer_print_type(kr_asm_printer *p, kr_type t);
void kr_printer_print_attr(kr_asm_printer *p, kr_attr a);
/* Prints ` {a = 1, ...}` (or ` attributes {...}`) of op's attributes except the `elided` names;
 * nothing when none are left. */
void kr_printer_print_optional_attr_dict(kr_asm_printer *p, kr_op *op, const char *const *elided,
                                         unsigned n, bool with_keyword);
void kr_printer_print_symbol_name(kr_asm_printer *p, kr_ident name);   /* @name, quoted if needed */
/* Prints `{ ... }` (MLIR's printRegion).  The entry block's header `^bb0(%arg0: t):` is printed
 * only when print_entry_block_args and the block has arguments. */
void kr_printer_print_region(kr_asm_printer *p, kr_region *r, bool print_entry_block_args);
/* `%arg0: type` (and loc with debuginfo). */
void kr_printer_print_block_arg(kr_asm_printer *p, kr_value arg);
void kr_printer_print_successor(kr_asm_printer *p, kr_block *b);
/* Trailing ` loc(...)` of op when debuginfo is on. */
void kr_printer_print_optional_loc(kr_asm_printer *p, kr_attr loc);
/* Prints a list of types as `t` or `(t1, t2)` (parenthesised unless exactly one non-function). */
void kr_printer_print_type_list(kr_asm_printer *p, const kr_type *types, unsigned n, bool paren_if_not_one);

#ifdef __cplusplus
}
#endif
#endif
