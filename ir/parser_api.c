/* ir/parser_api.c - the custom-assembly parser API of korch/asm.h (MLIR's OpAsmParser /
 * DialectAsmParser), over the parser of ir/parser*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parser_impl.h"

kr_context *kr_parser_context(kr_asm_parser *p) { return p->ctx; }

kr_attr kr_parser_loc(kr_asm_parser *p) { return kp_tok_loc(p); }

kr_attr kr_parser_operand_loc(kr_asm_parser *p, const kr_unresolved_operand *u) {
  if (u->loc) return u->loc;
  if (u->name && u->name >= p->lex.buf && u->name <= p->lex.end) return kp_loc_at(p, u->name);
  return kp_tok_loc(p);
}

/* Errors a hook reports carry MLIR's "custom op 'name' " prefix while an op's hook runs. */
kr_status kr_parser_error(kr_asm_parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s;
  const char *at = p->tok.ptr;
  if (p->tok.kind == KR_TOK_EOF && at > p->lex.buf) at--;
  if (p->custom_op) {
    /* The op name goes into the format, so its '%' (if any) are doubled. */
    size_t n = 2 * strlen(p->custom_op) + strlen(fmt) + 16, k = 0;
    char *f = malloc(n);
    if (!f) abort();
    k += (size_t)snprintf(f, n, "custom op '");
    for (const char *c = p->custom_op; *c; c++) {
      if (*c == '%') f[k++] = '%';
      f[k++] = *c;
    }
    snprintf(f + k, n - k, "' %s", fmt);
    s = kp_verror_at(p, at, NULL, NULL, f, ap);
    free(f);
  } else {
    s = kp_verror_at(p, at, NULL, NULL, fmt, ap);
  }
  va_end(ap);
  return s;
}

/* A spelling matches a token of that exact text; a lone sigil ("@", "%", "^", "#", "!")
 * matches any identifier it starts. */
static bool tok_matches(const kr_asm_parser *p, const char *tok) {
  if (tok[0] && !tok[1]) {
    switch (tok[0]) {
    case '@': return p->tok.kind == KR_TOK_AT_ID;
    case '%': return p->tok.kind == KR_TOK_PERCENT_ID;
    case '^': return p->tok.kind == KR_TOK_CARET_ID;
    case '#': return p->tok.kind == KR_TOK_HASH_ID;
    case '!': return p->tok.kind == KR_TOK_BANG_ID;
    default: break;
    }
  }
  return p->tok.kind != KR_TOK_EOF && p->tok.kind != KR_TOK_ERROR && kp_tok_is(p, tok);
}

bool kr_parser_peek(kr_asm_parser *p, const char *tok) { return !p->failed && tok_matches(p, tok); }

bool kr_parser_consume(kr_asm_parser *p, const char *tok) {
  if (p->failed || !tok_matches(p, tok)) return false;
  kp_next(p);
  return true;
}

kr_status kr_parser_expect(kr_asm_parser *p, const char *tok) {
  if (kr_parser_consume(p, tok)) return KR_SUCCESS;
  return kp_error_wrong(p, "expected '%s'", tok);
}

kr_status kr_parser_parse_keyword(kr_asm_parser *p, const char **kw, size_t *len) {
  if (p->failed) return KR_FAILURE;
  if (!kr_tok_is_keyword(p->tok.kind)) return kp_error_wrong(p, "expected valid keyword");
  *kw = p->tok.ptr;
  *len = p->tok.len;
  kp_next(p);
  return KR_SUCCESS;
}

bool kr_parser_peek_keyword(kr_asm_parser *p, const char *kw) {
  return !p->failed && kr_tok_is_keyword(p->tok.kind) && kp_tok_is(p, kw);
}

kr_status kr_parser_parse_integer(kr_asm_parser *p, int64_t *out) {
  if (p->failed) return KR_FAILURE;
  if (kp_is(p, KR_TOK_KW_TRUE) || kp_is(p, KR_TOK_KW_FALSE)) {
    *out = kp_is(p, KR_TOK_KW_TRUE);
    kp_next(p);
    return KR_SUCCESS;
  }
  bool neg = kp_consume(p, KR_TOK_MINUS);
  if (!kp_is(p, KR_TOK_INTEGER)) return kp_error_wrong(p, "expected integer value");
  uint64_t mag;
  if (!kp_int_value(&p->tok, &mag) || mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
    return kp_error(p, "integer value too large");
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  kp_next(p);
  return KR_SUCCESS;
}

kr_status kr_parser_parse_string(kr_asm_parser *p, kr_ident *out) {
  if (p->failed) return KR_FAILURE;
  if (!kp_is(p, KR_TOK_STRING)) return kp_error_wrong(p, "expected string");
  const char *s;
  size_t n;
  kp_decode_string(p, &p->tok, &s, &n);
  *out = kr_ident_get(p->ctx, s, n);
  kp_next(p);
  return KR_SUCCESS;
}

kr_status kr_parser_parse_symbol_name(kr_asm_parser *p, kr_ident *out) {
  if (p->failed) return KR_FAILURE;
  if (!kp_is(p, KR_TOK_AT_ID)) return kp_error_wrong(p, "expected valid '@'-identifier for symbol name");
  if (p->tok.len > 1 && p->tok.ptr[1] == '"') {
    const char *s;
    size_t n;
    kp_decode_string(p, &p->tok, &s, &n);
    *out = kr_ident_get(p->ctx, s, n);
  } else {
    *out = kr_ident_get(p->ctx, p->tok.ptr + 1, p->tok.len - 1);
  }
  kp_next(p);
  return KR_SUCCESS;
}

kr_status kr_parser_parse_type(kr_asm_parser *p, kr_type *out) {
  if (p->failed) return KR_FAILURE;
  return kp_parse_type(p, out);
}

kr_status kr_parser_parse_attr(kr_asm_parser *p, kr_type type_hint, kr_attr *out) {
  if (p->failed) return KR_FAILURE;
  return kp_parse_attr(p, type_hint, out);
}

kr_status kr_parser_parse_optional_attr_dict(kr_asm_parser *p, kr_op_state *st, bool with_keyword) {
  if (p->failed) return KR_FAILURE;
  if (with_keyword) {
    if (!kr_parser_peek_keyword(p, "attributes")) return KR_SUCCESS;
    kp_next(p);
  } else if (!kp_is(p, KR_TOK_LBRACE)) {
    return KR_SUCCESS;
  }
  /* Duplicates within the dictionary are errors here; against attributes the hook set itself,
   * after the hook ("attribute 'x' occurs more than once in the attribute list"). */
  return kp_parse_attr_dict_into(p, &st->attrs, st->attrs.len);
}

bool kr_parser_peek_operand(kr_asm_parser *p) { return !p->failed && kp_is(p, KR_TOK_PERCENT_ID); }

kr_status kr_parser_parse_operand(kr_asm_parser *p, kr_unresolved_operand *out) {
  if (p->failed) return KR_FAILURE;
  return kp_parse_operand(p, out, true);
}

kr_status kr_parser_parse_operand_list(kr_asm_parser *p, kr_vec *out) {
  if (p->failed) return KR_FAILURE;
  if (!kp_is(p, KR_TOK_PERCENT_ID)) return KR_SUCCESS;
  do {
    kr_unresolved_operand u;
    if (kp_parse_operand(p, &u, true)) return KR_FAILURE;
    kr_vec_push(out, &u, sizeof u);
  } while (kp_consume(p, KR_TOK_COMMA));
  return KR_SUCCESS;
}

/* Operands from a hook must name an SSA value the way the lexer reads one, in the parsed buffer
 * (the name tables keep pointers to it and compare names backwards up to the '%'). */
static bool valid_operand(const kr_asm_parser *p, const kr_unresolved_operand *u) {
  if (!u->name || u->name < p->lex.buf || u->name + u->len > p->lex.end || u->len < 2 || u->name[0] != '%')
    return false;
  for (size_t i = 1; i < u->len; i++)
    if (!kr_is_suffix_char(u->name[i])) return false;
  return true;
}

kr_status kr_parser_resolve_operand(kr_asm_parser *p, const kr_unresolved_operand *u, kr_type type, kr_value *out) {
  if (p->failed) return KR_FAILURE;
  if (!valid_operand(p, u)) return kp_error(p, "invalid SSA operand name");
  if (!type) return kp_error_at(p, u->name, "operand has no type");
  return kp_resolve(p, u, type, out);
}

kr_status kr_parser_resolve_operands(kr_asm_parser *p, const kr_unresolved_operand *u, unsigned n,
                                     const kr_type *types, unsigned ntypes, kr_op_state *st) {
  if (p->failed) return KR_FAILURE;
  if (ntypes != n && !(ntypes == 1 && n > 0)) {
    const char *at = n ? u[0].name : p->tok.ptr;
    return kp_error_at(p, at, "%u operands present, but expected %u", n, ntypes);
  }
  for (unsigned i = 0; i < n; i++) {
    kr_value v;
    if (kr_parser_resolve_operand(p, &u[i], types[ntypes == 1 ? 0 : i], &v)) return KR_FAILURE;
    kr_op_state_add_operands(st, &v, 1);
  }
  return KR_SUCCESS;
}

static kr_status move_types(kr_asm_parser *p, size_t start, kr_vec *out) {
  for (size_t i = start; i < p->types.len; i++) KR_VEC_PUSH(out, kr_type, KR_VEC_AT(&p->types, kr_type, i));
  p->types.len = start;
  return KR_SUCCESS;
}

kr_status kr_parser_parse_type_list(kr_asm_parser *p, kr_vec *out) {
  if (p->failed) return KR_FAILURE;
  size_t start = p->types.len;
  if (kp_parse_type_list(p)) return KR_FAILURE;
  return move_types(p, start, out);
}

kr_status kr_parser_parse_colon_type_list(kr_asm_parser *p, kr_vec *out) {
  if (p->failed || kp_expect(p, KR_TOK_COLON, "expected ':'")) return KR_FAILURE;
  return kr_parser_parse_type_list(p, out);
}

kr_status kr_parser_parse_arrow_type_list(kr_asm_parser *p, kr_vec *out) {
  if (p->failed || kp_expect(p, KR_TOK_ARROW, "expected '->'")) return KR_FAILURE;
  size_t start = p->types.len;
  if (kp_parse_function_results(p)) return KR_FAILURE;
  return move_types(p, start, out);
}

kr_status kr_parser_parse_argument_list(kr_asm_parser *p, kr_vec *out, bool allow_attrs_and_locs) {
  if (p->failed || kp_expect(p, KR_TOK_LPAREN, "expected '(' in argument list")) return KR_FAILURE;
  if (kp_consume(p, KR_TOK_RPAREN)) return KR_SUCCESS;
  do {
    kr_asm_argument a;
    memset(&a, 0, sizeof a);
    if (kp_parse_operand(p, &a.ssa, false) || kp_expect(p, KR_TOK_COLON, "expected ':'") || kp_parse_type(p, &a.type))
      return KR_FAILURE;
    if (allow_attrs_and_locs && kp_parse_optional_trailing_loc(p, &a.loc, false)) return KR_FAILURE;
    kr_vec_push(out, &a, sizeof a);
  } while (kp_consume(p, KR_TOK_COMMA));
  return kp_expect(p, KR_TOK_RPAREN, "expected ')' in argument list");
}

kr_status kr_parser_parse_region(kr_asm_parser *p, kr_region *r, const kr_asm_argument *args, unsigned nargs) {
  if (p->failed) return KR_FAILURE;
  return kp_parse_region(p, r, args, nargs);
}

kr_status kr_parser_parse_successor(kr_asm_parser *p, kr_block **out) {
  if (p->failed) return KR_FAILURE;
  if (!p->num_block_scopes) return kp_error(p, "successors are only allowed inside a region");
  return kp_parse_successor(p, out);
}

kr_status kr_parser_parse_optional_trailing_loc(kr_asm_parser *p, kr_op_state *st) {
  if (p->failed) return KR_FAILURE;
  return kp_parse_optional_trailing_loc(p, &st->loc, false);
}

kr_status kr_parser_parse_dimension_list(kr_asm_parser *p, kr_vec *dims, bool allow_dynamic) {
  if (p->failed) return KR_FAILURE;
  size_t start = p->dims.len;
  if (kp_parse_dims_trailing_x(p, allow_dynamic)) return KR_FAILURE;
  for (size_t i = start; i < p->dims.len; i++) KR_VEC_PUSH(dims, int64_t, KR_VEC_AT(&p->dims, int64_t, i));
  p->dims.len = start;
  return KR_SUCCESS;
}
