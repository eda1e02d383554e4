/* ir/parser_types.c - types (MLIR LangRef "Type System", "Builtin Types";
 * mlir/lib/AsmParser/TypeParser.cpp) and the extended `!dialect.x` / `#dialect.x` symbols
 * (DialectSymbolParser.cpp). */
#include <stdlib.h>
#include <string.h>

#include "ir/parser_impl.h"

bool kp_at_type(const kr_asm_parser *p) {
  switch (p->tok.kind) {
  case KR_TOK_LPAREN:
  case KR_TOK_KW_TENSOR:
  case KR_TOK_KW_VECTOR:
  case KR_TOK_KW_TUPLE:
  case KR_TOK_INTTYPE:
  case KR_TOK_KW_BF16:
  case KR_TOK_KW_F16:
  case KR_TOK_KW_F32:
  case KR_TOK_KW_F64:
  case KR_TOK_KW_INDEX:
  case KR_TOK_KW_NONE:
  case KR_TOK_BANG_ID:
    return true;
  default:
    return false;
  }
}

kr_status kp_parse_type_list(kr_asm_parser *p) {
  do {
    kr_type t;
    if (kp_parse_type(p, &t)) return KR_FAILURE;
    KR_VEC_PUSH(&p->types, kr_type, t);
  } while (kp_consume(p, KR_TOK_COMMA));
  return KR_SUCCESS;
}

kr_status kp_parse_type_list_parens(kr_asm_parser *p) {
  if (kp_expect(p, KR_TOK_LPAREN, "expected '('")) return KR_FAILURE;
  if (kp_consume(p, KR_TOK_RPAREN)) return KR_SUCCESS;
  if (kp_parse_type_list(p)) return KR_FAILURE;
  return kp_expect(p, KR_TOK_RPAREN, "expected ')'");
}

kr_status kp_parse_function_results(kr_asm_parser *p) {
  if (kp_is(p, KR_TOK_LPAREN)) return kp_parse_type_list_parens(p);
  kr_type t;
  if (kp_parse_nonfunction_type(p, &t)) return KR_FAILURE;
  KR_VEC_PUSH(&p->types, kr_type, t);
  return KR_SUCCESS;
}

static kr_status parse_function_type(kr_asm_parser *p, kr_type *out) {
  if (kp_enter(p)) return KR_FAILURE;
  size_t start = p->types.len;
  if (kp_parse_type_list_parens(p)) return KR_FAILURE;
  size_t nin = p->types.len - start;
  if (kp_expect(p, KR_TOK_ARROW, "expected '->' in function type") || kp_parse_function_results(p)) return KR_FAILURE;
  kr_type *t = KR_VEC_DATA(&p->types, kr_type) + start;
  *out = kr_type_function(p->ctx, t, (unsigned)nin, t + nin, (unsigned)(p->types.len - start - nin));
  p->types.len = start;
  kp_leave(p);
  return KR_SUCCESS;
}

kr_status kp_parse_type(kr_asm_parser *p, kr_type *out) {
  if (kp_is(p, KR_TOK_LPAREN)) return parse_function_type(p, out);
  return kp_parse_nonfunction_type(p, out);
}

/* ---------------------------------------------------------------------------------------------
 * Shapes: `2x?x3xf32`.  The lexer reads `x3xf32` as one identifier; the parser takes its `x` and
 * lexes again after it, as MLIR does. */

static kr_status parse_x(kr_asm_parser *p) {
  if (!kp_is(p, KR_TOK_BARE_ID) || p->tok.ptr[0] != 'x') return kp_error_wrong(p, "expected 'x' in dimension list");
  if (p->tok.len > 1) kp_relex(p, p->tok.ptr + 1);
  else kp_next(p);
  return KR_SUCCESS;
}

static kr_status parse_dim(kr_asm_parser *p, bool allow_dynamic) {
  if (kp_is(p, KR_TOK_QUESTION)) {
    if (!allow_dynamic) return kp_error(p, "expected static shape");
    KR_VEC_PUSH(&p->dims, int64_t, KR_DYNAMIC);
    kp_next(p);
    return KR_SUCCESS;
  }
  /* `0xf32` is `0` then `xf32`: hexadecimal is not a dimension. */
  if (p->tok.len > 1 && p->tok.ptr[1] == 'x') {
    KR_VEC_PUSH(&p->dims, int64_t, 0);
    kp_relex(p, p->tok.ptr + 1);
    return KR_SUCCESS;
  }
  uint64_t v;
  if (!kp_int_value(&p->tok, &v) || v > (uint64_t)INT64_MAX) return kp_error(p, "invalid dimension");
  KR_VEC_PUSH(&p->dims, int64_t, (int64_t)v);
  kp_next(p);
  return KR_SUCCESS;
}

kr_status kp_parse_dims_trailing_x(kr_asm_parser *p, bool allow_dynamic) {
  while (kp_is(p, KR_TOK_INTEGER) || kp_is(p, KR_TOK_QUESTION))
    if (parse_dim(p, allow_dynamic) || parse_x(p)) return KR_FAILURE;
  return KR_SUCCESS;
}

static bool valid_tensor_elem(kr_type t) {
  switch (t->kind) {
  case KR_TYPE_INTEGER:
  case KR_TYPE_INDEX:
  case KR_TYPE_FLOAT:
  case KR_TYPE_VECTOR:
  case KR_TYPE_DIALECT:
  case KR_TYPE_OPAQUE:
    return true;
  default:
    return false;
  }
}

/* tensor-type ::= `tensor` `<` (`*` `x` | (dim `x`)*) type `>`;
 * vector-type ::= `vector` `<` (decimal `x`)* (int|index|float) `>` */
static kr_status parse_shaped(kr_asm_parser *p, bool vector, kr_type *out) {
  const char *what = vector ? "vector" : "tensor";
  kp_next(p);
  if (!kp_is(p, KR_TOK_LESS)) return kp_error_wrong(p, "expected '<' in %s type", what);
  kp_next(p);
  if (kp_enter(p)) return KR_FAILURE;
  size_t dstart = p->dims.len;
  bool unranked = false;
  if (!vector && kp_consume(p, KR_TOK_STAR)) {
    unranked = true;
    if (parse_x(p)) return KR_FAILURE;
  } else if (vector) {
    while (kp_is(p, KR_TOK_INTEGER))
      if (parse_dim(p, false) || parse_x(p)) return KR_FAILURE;
    if (kp_is(p, KR_TOK_LSQUARE)) return kp_error(p, "scalable vector dimensions are not supported");
    for (size_t i = dstart; i < p->dims.len; i++)
      if (KR_VEC_AT(&p->dims, int64_t, i) <= 0) return kp_error(p, "vector types must have positive constant sizes");
  } else if (kp_parse_dims_trailing_x(p, true)) {
    return KR_FAILURE;
  }
  const char *elem_ptr = p->tok.ptr;
  kr_type elem;
  if (kp_parse_type(p, &elem)) return KR_FAILURE;
  if (!vector && kp_is(p, KR_TOK_COMMA)) return kp_error(p, "tensor encodings are not supported");
  if (!kp_is(p, KR_TOK_GREATER)) return kp_error_wrong(p, "expected '>' in %s type", what);
  kp_next(p);
  if (vector && elem->kind != KR_TYPE_INTEGER && elem->kind != KR_TYPE_INDEX && elem->kind != KR_TYPE_FLOAT)
    return kp_error_at(p, elem_ptr, "vector elements must be int/index/float type");
  if (!vector && !valid_tensor_elem(elem)) return kp_error_at(p, elem_ptr, "invalid tensor element type");
  const int64_t *dims = KR_VEC_DATA(&p->dims, int64_t) + dstart;
  unsigned rank = (unsigned)(p->dims.len - dstart);
  if (vector) *out = kr_type_vector(p->ctx, dims, rank, elem);
  else if (unranked) *out = kr_type_unranked_tensor(p->ctx, elem);
  else *out = kr_type_tensor(p->ctx, dims, rank, elem);
  p->dims.len = dstart;
  kp_leave(p);
  return KR_SUCCESS;
}

static kr_status parse_tuple(kr_asm_parser *p, kr_type *out) {
  kp_next(p);
  if (kp_expect(p, KR_TOK_LESS, "expected '<' in tuple type") || kp_enter(p)) return KR_FAILURE;
  size_t start = p->types.len;
  if (!kp_consume(p, KR_TOK_GREATER)) {
    if (kp_parse_type_list(p) || kp_expect(p, KR_TOK_GREATER, "expected '>' in tuple type")) return KR_FAILURE;
  }
  *out = kr_type_tuple(p->ctx, KR_VEC_DATA(&p->types, kr_type) + start, (unsigned)(p->types.len - start));
  p->types.len = start;
  kp_leave(p);
  return KR_SUCCESS;
}

/* integer-type ::= [su]?i[1-9][0-9]* (korch: 1 to 64 bits). */
static kr_status parse_int_type(kr_asm_parser *p, kr_type *out) {
  const char *s = p->tok.ptr;
  size_t n = p->tok.len, i = s[0] == 'i' ? 1 : 2;
  kr_signedness sign = s[0] == 's' ? KR_SIGNED : s[0] == 'u' ? KR_UNSIGNED : KR_SIGNLESS;
  uint64_t w = 0;
  for (; i < n; i++) {
    w = w * 10 + (uint64_t)(s[i] - '0');
    if (w > 1000000) break;
  }
  if (w == 0) return kp_error(p, "invalid integer width");
  if (w > 64) return kp_error(p, "integer bitwidth is limited to 64 bits");
  kr_type *slot = &p->int_types[sign][w];
  if (!*slot) *slot = kr_type_integer(p->ctx, (unsigned)w, sign);
  *out = *slot;
  kp_next(p);
  return KR_SUCCESS;
}

static kr_type float_type(kr_asm_parser *p, kr_float_kind k) {
  if (!p->float_types[k]) p->float_types[k] = kr_type_float(p->ctx, k);
  return p->float_types[k];
}

kr_status kp_parse_nonfunction_type(kr_asm_parser *p, kr_type *out) {
  switch (p->tok.kind) {
  case KR_TOK_INTTYPE: return parse_int_type(p, out);
  case KR_TOK_KW_BF16: *out = float_type(p, KR_BF16); break;
  case KR_TOK_KW_F16: *out = float_type(p, KR_F16); break;
  case KR_TOK_KW_F32: *out = float_type(p, KR_F32); break;
  case KR_TOK_KW_F64: *out = float_type(p, KR_F64); break;
  case KR_TOK_KW_INDEX: *out = kr_type_index(p->ctx); break;
  case KR_TOK_KW_NONE: *out = kr_type_none(p->ctx); break;
  case KR_TOK_KW_TENSOR: return parse_shaped(p, false, out);
  case KR_TOK_KW_VECTOR: return parse_shaped(p, true, out);
  case KR_TOK_KW_TUPLE: return parse_tuple(p, out);
  case KR_TOK_BANG_ID: return kp_parse_extended(p, true, (const void **)out);
  default: return kp_error_wrong(p, "expected non-function type");
  }
  kp_next(p);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Extended symbols:
 *   `!name` / `#name`            an alias defined at the top of the file
 *   `!dialect.mnemonic<body>?`   a registered dialect's parse_type / parse_attr hook reads it,
 *                                positioned after `!dialect.`; it must consume exactly the
 *                                mnemonic and its `<...>` body
 *   otherwise                    an opaque type/attribute of an unregistered dialect, kept as
 *                                text (only with --allow-unregistered-dialect).
 * The body extends to the `>` balancing a `<` written right after the name. */
kr_status kp_parse_extended(kr_asm_parser *p, bool is_type, const void **out) {
  kr_context *ctx = p->ctx;
  kr_token t = p->tok;
  const char sigil = t.ptr[0];
  const char *id = t.ptr + 1, *tok_end = t.ptr + t.len;
  size_t n = t.len - 1;
  const char *dot = memchr(id, '.', n);
  bool trailing = tok_end < p->lex.end && *tok_end == '<';
  const char *what = is_type ? "type" : "attribute";

  if (!dot && !trailing) {
    kr_hmap *aliases = is_type ? &p->type_aliases : &p->attr_aliases;
    kr_hmap_entry *e = kr_hmap_find(aliases, kp_name_hash(id, n), tok_end);
    if (!e) return kp_error(p, "undefined symbol alias id '%.*s'", (int)n, id);
    *out = e->value;
    kp_next(p);
    return KR_SUCCESS;
  }
  if (!dot)
    return kp_error(p, "dialect %s '%c%.*s<...>' needs a mnemonic: write '%c%.*s.name<...>'", what, sigil, (int)n, id,
                    sigil, (int)n, id);

  size_t dlen = (size_t)(dot - id);
  const char *body = dot + 1;
  /* `!foo.` and `!foo.<...>` name nothing (and could not be printed back distinctly from the
   * alias `!foo` or the form `!foo<...>`). */
  if (body == tok_end) return kp_error(p, "expected a mnemonic after '%.*s'", (int)t.len, t.ptr);
  const kr_dialect *d = kr_context_lookup_dialect(ctx, id, dlen);
  if (!d && !kr_context_allow_unregistered(ctx))
    return kp_error(p, "%s '%.*s' of unregistered dialect '%.*s'; use --allow-unregistered-dialect", what, (int)t.len,
                    t.ptr, (int)dlen, id);
  kr_lexer saved = p->lex;
  const char *body_end = tok_end;
  if (trailing) {
    body_end = kr_lexer_skip_dialect_body(&p->lex, tok_end, &p->punct, &p->punct_cap);
    if (!body_end) return kp_error_at(p, p->lex.err_ptr, "%s", p->lex.err_msg);
  }

  if (!d) {
    kr_ident dname = kr_ident_get(ctx, id, dlen);
    *out = is_type ? (const void *)kr_type_opaque(ctx, dname, body, (size_t)(body_end - body))
                   : (const void *)kr_attr_opaque(ctx, dname, body, (size_t)(body_end - body));
    kp_advance(p, body_end);
    return KR_SUCCESS;
  }

  if (is_type ? !d->def->parse_type : !d->def->parse_attr)
    return kp_error(p, "dialect '%s' provides no %s parsing hook", d->name, what);
  /* Rewind to just after `!dialect.` (on the name's line) and let the dialect read. */
  p->lex = saved;
  kp_relex(p, body);
  if (p->failed || kp_enter(p)) return KR_FAILURE;
  const char *saved_op = p->custom_op;
  unsigned errors = kr_context_num_errors(ctx);
  p->custom_op = NULL;
  const void *r = is_type ? (const void *)d->def->parse_type(p, ctx) : (const void *)d->def->parse_attr(p, ctx);
  p->custom_op = saved_op;
  kp_leave(p);
  if (!r || p->failed || kr_context_num_errors(ctx) != errors) {
    if (!p->failed && kr_context_num_errors(ctx) == errors)
      kp_error_at(p, t.ptr, "failed to parse dialect %s '%.*s'", what, (int)t.len, t.ptr);
    p->failed = true;
    return KR_FAILURE;
  }
  if (p->prev_end != body_end)
    return kp_error(p, "expected the end of dialect %s '%.*s'", what, (int)(body_end - t.ptr > 80 ? 80 : body_end - t.ptr),
                    t.ptr);
  *out = r;
  return KR_SUCCESS;
}
