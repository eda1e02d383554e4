/* ir/parser_impl.h - the .kir parser's private state, shared by ir/parser*.c.
 *
 * One kr_asm_parser (the struct dialect hooks receive as an opaque pointer) parses one buffer:
 * ir/parser.c (entry points, top level, aliases, resources, finalisation), ir/parser_ops.c
 * (operations, regions, blocks, SSA names), ir/parser_types.c, ir/parser_attrs.c (attributes,
 * dense literals, locations) and ir/parser_api.c (the kr_parser_* API of korch/asm.h).
 *
 * Lean by design (the benchmark target is >= 1M ops/s and <= 400 bytes/op overall): no token is
 * copied or allocated; SSA and block names are kr_hmap keys that point at the END of the name's
 * bytes in the source buffer (names are compared backwards up to their sigil, which cannot occur
 * inside a name, so no length or terminator is needed); scratch arrays are stacks reused across
 * ops; op states are reused per nesting level; IR comes from the context arena. */
#ifndef KORCH_IR_PARSER_IMPL_H
#define KORCH_IR_PARSER_IMPL_H

#include <stdarg.h>

#include "ir/context_impl.h"
#include "ir/lexer.h"
#include "korch/asm.h"
#include "korch/diag.h"

/* Text with regions, attributes, types and locations nested deeper than this is rejected with an
 * error instead of exhausting the C stack (each level costs a few recursive frames). */
#define KR_PARSE_MAX_DEPTH 1000
/* Parsed IR nested deeper than this is refused too (kp_ir_depth, ir/parser_depth.c): printing
 * may add a few levels to the text, and what was accepted must print to text that parses.  The
 * IR depth is computed only when the text went deeper than KP_FAST_DEPTH (the IR is at most a
 * few levels deeper than the text it was read from). */
#define KP_MAX_IR_DEPTH 960
#define KP_FAST_DEPTH 950

/* A result group of `%a:2, %b = ...`. */
typedef struct kp_result_rec {
  const char *name;     /* at the '%' */
  size_t len;
  uint64_t count;
} kp_result_rec;

/* A block name of the current region: defined, or referenced by a successor before its label. */
typedef struct kp_block_info {
  kr_block *block;
  const char *use_ptr;  /* first reference (for "reference to an undefined block") */
  bool defined;
} kp_block_info;

typedef struct kp_block_scope {
  kr_hmap map;          /* name end -> kp_block_info * */
  size_t undefined;     /* referenced but not (yet) defined */
} kp_block_scope;

/* A use of a value before its definition: a placeholder value stands in until then. */
typedef struct kp_fwd_ref {
  const char *name_end;
  uint32_t number;      /* #N */
  kr_value placeholder;
  const char *use_ptr;
} kp_fwd_ref;

/* `loc(#alias)` before `#alias = loc(...)`: patched at the end of the file. */
typedef struct kp_deferred_loc {
  kr_attr *target;
  const char *alias;    /* the '#' token */
  size_t len;
} kp_deferred_loc;

/* A `{-# ... #-}` section parsed ahead of the ops (resources may be used before the section):
 * where it starts and the parser state right after it. */
typedef struct kp_section {
  const char *begin;
  kr_lexer lex;
  kr_token tok;
  const char *prev_end;
} kp_section;

struct kr_asm_parser {
  kr_context *ctx;
  kr_lexer lex;
  kr_token tok;            /* current token */
  const char *prev_end;    /* end of the last consumed token */
  const char *filename;
  bool failed;             /* an error was reported: everything unwinds */
  unsigned depth;          /* nesting, see KR_PARSE_MAX_DEPTH */
  unsigned max_depth;      /* deepest nesting seen, and where (the implicit module adds one) */
  const char *max_depth_ptr;
  const char *custom_op;   /* op whose custom parse hook runs (error prefix), else NULL */

  /* SSA names: values visible here (name end -> first kr_value of the result group), the sizes
   * of result groups of ops that have several groups, forward references. */
  kr_hmap values, groups, fwd;
  kr_vec dense_names;      /* kr_value by N for `%N` names (see ir/parser_ops.c) */
  kr_vec defs;             /* const char *: name ends defined in open regions (to pop them) */
  kr_vec name_scopes;      /* size_t: defs.len when each open region began */
  kr_vec block_scopes;     /* kp_block_scope, one per open region (reused) */
  size_t num_block_scopes;

  /* Scratch stacks: each user pushes above the current top and truncates back. */
  kr_vec operands;         /* kr_unresolved_operand */
  kr_vec types;            /* kr_type */
  kr_vec results;          /* kp_result_rec */
  kr_vec ptrs;             /* void *: kr_attr / kr_ident elements */
  kr_vec named;            /* kr_named_attr */
  kr_vec dims;             /* int64_t */
  kr_vec dense;            /* kp_dense_elem */
  kr_vec bytes;            /* unsigned char */
  kr_vec strbuf;           /* char: the last decoded string */
  kr_vec states;           /* kr_op_state *, one per op nesting level (reused) */
  unsigned op_depth;
  kr_vec dialects;         /* const char *: default dialect per custom op nesting ("" none) */
  char *punct;             /* dialect body scanning */
  size_t punct_cap;

  kr_hmap type_aliases;    /* name end ('!') -> kr_type */
  kr_hmap attr_aliases;    /* name end ('#') -> kr_attr */
  kr_hmap resources;       /* kr_ident key -> const kr_resource * (this file's section) */
  kr_vec sections;         /* kp_section */
  bool prescanned;
  kr_vec deferred_locs;    /* kp_deferred_loc */
  kr_arena scratch;        /* kp_fwd_ref, kp_block_info */

  kr_type int_types[3][65];
  kr_type float_types[4];
};

/* ir/parser.c: a parser over buf[0..len) (positioned before its first token), and its release
 * (scratch only: the IR built stays in the context). */
void kp_init(kr_asm_parser *p, kr_context *ctx, const char *filename, const char *buf, size_t len);
void kp_free(kr_asm_parser *p);
kr_status kp_parse_file_metadata(kr_asm_parser *p);
/* Parses the `{-# ... #-}` sections after the current position ahead of time (once). */
kr_status kp_prescan_sections(kr_asm_parser *p);

/* Tokens and diagnostics (ir/parser.c). */
void kp_next(kr_asm_parser *p);
/* Lexes again from `ptr` on the current line (splits `x3xf32` after the `x`). */
void kp_relex(kr_asm_parser *p, const char *ptr);
/* Lexes the next token from wherever the lexer stands; `prev_end` ends what was consumed. */
void kp_advance(kr_asm_parser *p, const char *prev_end);
/* `!foo.bar<...>` / `#foo.bar<...>` / aliases: dialect hooks, opaque symbols (ir/parser_types.c). */
kr_status kp_parse_extended(kr_asm_parser *p, bool is_type, const void **out);
static inline bool kp_is(const kr_asm_parser *p, kr_tok_kind k) { return p->tok.kind == k; }
static inline bool kp_consume(kr_asm_parser *p, kr_tok_kind k) {
  if (p->tok.kind != k) return false;
  kp_next(p);
  return true;
}
/* Consumes a token of kind `k` or reports `msg` MLIR's "wrong token" way. */
kr_status kp_expect(kr_asm_parser *p, kr_tok_kind k, const char *msg);
bool kp_tok_is(const kr_asm_parser *p, const char *spelling);
kr_attr kp_tok_loc(kr_asm_parser *p);
kr_attr kp_loc_at(kr_asm_parser *p, const char *ptr);
/* Report at the current token (at EOF: one character back), at `ptr`, or MLIR's
 * emitWrongTokenError (at the end of the previous line when the token starts a line).  Only the
 * first error of a parse is reported; later calls just return KR_FAILURE. */
kr_status kp_error(kr_asm_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
kr_status kp_error_at(kr_asm_parser *p, const char *ptr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
kr_status kp_error_wrong(kr_asm_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
kr_status kp_verror_at(kr_asm_parser *p, const char *ptr, const char *note_ptr, const char *note,
                       const char *fmt, va_list ap);
/* An error with a note (note_ptr: a buffer pointer; or note_loc when note_ptr is NULL). */
kr_status kp_error_note(kr_asm_parser *p, const char *ptr, kr_attr note_loc, const char *note_ptr,
                        const char *note, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
kr_status kp_enter(kr_asm_parser *p);
static inline void kp_leave(kr_asm_parser *p) { p->depth--; }
/* The printed form of `t` / `a`, malloc'd (for messages; the caller frees it). */
char *kp_type_str(kr_type t);
char *kp_attr_str(kr_attr a);
/* Name compare/hash for the byte-keyed maps (see the file comment). */
bool kp_name_eq(const void *a, const void *b);
size_t kp_name_len(const char *end);
static inline uint64_t kp_name_hash(const char *name, size_t len) { return kr_hash_bytes(name, len); }
/* Decodes a string token (quotes, escapes) into p->strbuf (or points into the
 * buffer when there is no escape); sets *s and *len. */
void kp_decode_string(kr_asm_parser *p, const kr_token *t, const char **s, size_t *len);
/* Parses the magnitude of an integer token (decimal or 0x hex); false on overflow. */
bool kp_int_value(const kr_token *t, uint64_t *out);

/* The nesting depth of IR (ir/parser_depth.c). */
unsigned kp_ir_depth(kr_op *op);

/* Types (ir/parser_types.c). */
kr_status kp_parse_type(kr_asm_parser *p, kr_type *out);
kr_status kp_parse_nonfunction_type(kr_asm_parser *p, kr_type *out);
bool kp_at_type(const kr_asm_parser *p);
/* `(` (type (`,` type)*)? `)` and a function result (that or one non-function type), pushed on
 * p->types. */
kr_status kp_parse_type_list_parens(kr_asm_parser *p);
kr_status kp_parse_function_results(kr_asm_parser *p);
/* type (`,` type)*, pushed on p->types. */
kr_status kp_parse_type_list(kr_asm_parser *p);
/* (dim `x`)* with `?` when allow_dynamic, pushed on p->dims. */
kr_status kp_parse_dims_trailing_x(kr_asm_parser *p, bool allow_dynamic);

/* Attributes (ir/parser_attrs.c). */
kr_status kp_parse_attr(kr_asm_parser *p, kr_type hint, kr_attr *out);
/* `{` entries `}` appended to `out` (kr_named_attr); duplicate keys, also against the entries
 * out[check_from..], are errors at the key. */
kr_status kp_parse_attr_dict_into(kr_asm_parser *p, kr_vec *out, size_t check_from);
kr_status kp_parse_location_instance(kr_asm_parser *p, kr_attr *out);
/* `loc(...)` if present (instance or #alias); *out unchanged when absent.  With `may_defer`, an
 * alias not defined yet is resolved at the end of the file (mlir-opt --mlir-print-debuginfo
 * prints `loc(#loc3)` on ops and defines `#loc3 = loc(...)` after the module): `out` must then
 * stay valid until kp_resolve_deferred_locs (an op's or a block argument's loc field). */
kr_status kp_parse_optional_trailing_loc(kr_asm_parser *p, kr_attr *out, bool may_defer);
kr_status kp_resolve_deferred_locs(kr_asm_parser *p);

/* Operations, regions, names (ir/parser_ops.c). */
kr_status kp_parse_op(kr_asm_parser *p, kr_block *block);
kr_status kp_parse_region(kr_asm_parser *p, kr_region *r, const kr_asm_argument *args, unsigned nargs);
kr_status kp_parse_operand(kr_asm_parser *p, kr_unresolved_operand *u, bool allow_number);
kr_status kp_resolve(kr_asm_parser *p, const kr_unresolved_operand *u, kr_type type, kr_value *out);
kr_status kp_parse_successor(kr_asm_parser *p, kr_block **out);
void kp_push_block_scope(kr_asm_parser *p);
kr_status kp_pop_block_scope(kr_asm_parser *p);
kr_status kp_report_undeclared(kr_asm_parser *p);
/* Checks st->attrs for a name given twice (MLIR: "attribute 'x' occurs more than once"). */
kr_status kp_check_duplicate_attrs(kr_asm_parser *p, const kr_op_state *st, const char *at);

#endif
