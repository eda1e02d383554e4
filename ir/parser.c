/* ir/parser.c - .kir parsing entry points: the top level of a file (ops, `#alias = attr`,
 * `!alias = type`, `{-# dialect_resources ... #-}`), token handling and diagnostics shared by
 * the other parser files (see ir/parser_impl.h).  The grammar and the error messages are MLIR's
 * (mlir/docs/LangRef.md, mlir/lib/AsmParser/Parser.cpp). */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/parser_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Parser state. */

void kp_init(kr_asm_parser *p, kr_context *ctx, const char *filename, const char *buf, size_t len) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->filename = filename;
  kr_lexer_init(&p->lex, buf, len);
  p->values.eq = kp_name_eq;
  p->type_aliases.eq = kp_name_eq;
  p->attr_aliases.eq = kp_name_eq;
  p->prev_end = buf;
  /* MLIR's defaultDialectStack starts with "builtin": `module` is builtin.module. */
  static const char *const builtin = "builtin";
  kr_vec_push(&p->dialects, &builtin, sizeof builtin);
}

void kp_free(kr_asm_parser *p) {
  kr_hmap_free(&p->values);
  kr_hmap_free(&p->groups);
  kr_hmap_free(&p->fwd);
  kr_vec_free(&p->dense_names);
  kr_vec_free(&p->defs);
  kr_vec_free(&p->name_scopes);
  for (size_t i = 0; i < p->block_scopes.len; i++) kr_hmap_free(&KR_VEC_AT(&p->block_scopes, kp_block_scope, i).map);
  kr_vec_free(&p->block_scopes);
  kr_vec_free(&p->operands);
  kr_vec_free(&p->types);
  kr_vec_free(&p->results);
  kr_vec_free(&p->ptrs);
  kr_vec_free(&p->named);
  kr_vec_free(&p->dims);
  kr_vec_free(&p->dense);
  kr_vec_free(&p->bytes);
  kr_vec_free(&p->strbuf);
  for (size_t i = 0; i < p->states.len; i++) {
    kr_op_state *st = KR_VEC_AT(&p->states, kr_op_state *, i);
    kr_op_state_free(st);
    free(st);
  }
  kr_vec_free(&p->states);
  kr_vec_free(&p->dialects);
  free(p->punct);
  kr_hmap_free(&p->type_aliases);
  kr_hmap_free(&p->attr_aliases);
  kr_hmap_free(&p->resources);
  kr_vec_free(&p->sections);
  kr_vec_free(&p->deferred_locs);
  kr_arena_release(&p->scratch);
}

/* ---------------------------------------------------------------------------------------------
 * Tokens and diagnostics. */

static void lex_error(kr_asm_parser *p) {
  kp_error_at(p, p->lex.err_ptr, "%s", p->lex.err_msg);
}

void kp_next(kr_asm_parser *p) {
  p->prev_end = p->tok.ptr + p->tok.len;
  p->tok = kr_lex(&p->lex);
  if (p->tok.kind == KR_TOK_ERROR) lex_error(p);
}

void kp_relex(kr_asm_parser *p, const char *ptr) {
  kr_lexer_reset(&p->lex, ptr);
  kp_advance(p, ptr);
}

void kp_advance(kr_asm_parser *p, const char *prev_end) {
  p->prev_end = prev_end;
  p->tok = kr_lex(&p->lex);
  if (p->tok.kind == KR_TOK_ERROR) lex_error(p);
}

bool kp_tok_is(const kr_asm_parser *p, const char *s) {
  size_t n = strlen(s);
  return p->tok.len == n && memcmp(p->tok.ptr, s, n) == 0 && p->tok.kind != KR_TOK_STRING;
}

kr_attr kp_tok_loc(kr_asm_parser *p) { return kr_loc_file(p->ctx, p->filename, p->tok.line, p->tok.col); }

/* Line and column of a pointer at or before the lexer position, scanning only the distance back
 * from the current line (names are resolved close to where they were read). */
static void ptr_line_col(const kr_asm_parser *p, const char *ptr, uint32_t *line, uint32_t *col) {
  const kr_lexer *lx = &p->lex;
  if (ptr < lx->buf) ptr = lx->buf;
  if (ptr > lx->end) ptr = lx->end;
  if (ptr >= lx->line_start) {
    kr_lexer_line_col(lx, ptr, line, col);
    return;
  }
  const char *ls = ptr;
  while (ls > lx->buf && ls[-1] != '\n') ls--;
  uint32_t nl = 0;
  for (const char *s = ptr; s < lx->line_start; s++) nl += *s == '\n';
  *line = lx->line - nl;
  *col = (uint32_t)(ptr - ls) + 1;
}

kr_attr kp_loc_at(kr_asm_parser *p, const char *ptr) {
  uint32_t line, col;
  ptr_line_col(p, ptr, &line, &col);
  return kr_loc_file(p->ctx, p->filename, line, col);
}

kr_status kp_verror_at(kr_asm_parser *p, const char *ptr, const char *note_ptr, const char *note,
                       const char *fmt, va_list ap) {
  if (p->failed) return KR_FAILURE;
  p->failed = true;
  kr_diagnostic *d = kr_diag_vbegin(p->ctx, KR_SEV_ERROR, kp_loc_at(p, ptr), fmt, ap);
  if (note) kr_diag_note(d, kp_loc_at(p, note_ptr), "%s", note);
  kr_diag_report(d);
  return KR_FAILURE;
}

/* MLIR reports errors at EOF one character back, on the last line of text. */
static const char *error_ptr(const kr_asm_parser *p) {
  const char *at = p->tok.ptr;
  if (p->tok.kind == KR_TOK_EOF && at > p->lex.buf) at--;
  return at;
}

kr_status kp_error(kr_asm_parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = kp_verror_at(p, error_ptr(p), NULL, NULL, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kp_error_at(kr_asm_parser *p, const char *ptr, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_status s = kp_verror_at(p, ptr, NULL, NULL, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kp_error_note(kr_asm_parser *p, const char *ptr, kr_attr note_loc, const char *note_ptr,
                        const char *note, const char *fmt, ...) {
  if (p->failed) return KR_FAILURE;
  p->failed = true;
  va_list ap;
  va_start(ap, fmt);
  kr_diagnostic *d = kr_diag_vbegin(p->ctx, KR_SEV_ERROR, kp_loc_at(p, ptr), fmt, ap);
  va_end(ap);
  kr_diag_note(d, note_ptr ? kp_loc_at(p, note_ptr) : (note_loc ? note_loc : kr_loc_unknown(p->ctx)), "%s", note);
  kr_diag_report(d);
  return KR_FAILURE;
}

/* MLIR's emitWrongTokenError: a missing token is reported where it belongs, after the last
 * token of the previous line (before its `//` comment), when the current token starts a line. */
kr_status kp_error_wrong(kr_asm_parser *p, const char *fmt, ...) {
  const char *buf = p->lex.buf, *orig = error_ptr(p), *q = orig;
  for (;;) {
    while (q > buf && (q[-1] == ' ' || q[-1] == '\t')) q--;
    if (q == buf) {
      q = orig;
      break;
    }
    if (q[-1] != '\n' && q[-1] != '\r') break;
    q--;
    const char *ls = q;
    while (ls > buf && ls[-1] != '\n' && ls[-1] != '\r') ls--;
    for (const char *c = ls; c + 1 < q; c++) {
      if (c[0] == '/' && c[1] == '/') {
        q = c;
        break;
      }
    }
  }
  va_list ap;
  va_start(ap, fmt);
  kr_status s = kp_verror_at(p, q, NULL, NULL, fmt, ap);
  va_end(ap);
  return s;
}

kr_status kp_expect(kr_asm_parser *p, kr_tok_kind k, const char *msg) {
  if (kp_consume(p, k)) return KR_SUCCESS;
  return kp_error_wrong(p, "%s", msg);
}

kr_status kp_enter(kr_asm_parser *p) {
  if (++p->depth > KR_PARSE_MAX_DEPTH) return kp_error(p, "nesting is too deep (more than %d levels)", KR_PARSE_MAX_DEPTH);
  if (p->depth > p->max_depth) {
    p->max_depth = p->depth;
    p->max_depth_ptr = p->tok.ptr;
  }
  return KR_SUCCESS;
}

static char *stream_take(kr_ostream *os) {
  const char *s = kr_ostream_str(os);
  size_t n = strlen(s);
  char *r = malloc(n + 1);
  if (!r) abort();
  memcpy(r, s, n + 1);
  kr_ostream_close(os);
  return r;
}

char *kp_type_str(kr_type t) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_type_print(&os, t);
  return stream_take(&os);
}

char *kp_attr_str(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  return stream_take(&os);
}

/* Names end where the bytes before them stop being suffix-id characters: the sigil. */
bool kp_name_eq(const void *a, const void *b) {
  const char *x = a, *y = b;
  for (;;) {
    char cx = *--x, cy = *--y;
    if (cx != cy) return false;
    if (!kr_is_suffix_char(cx)) return true;
  }
}

size_t kp_name_len(const char *end) {
  const char *s = end - 1;
  while (kr_is_suffix_char(*s)) s--;
  return (size_t)(end - s);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void kp_decode_string(kr_asm_parser *p, const kr_token *t, const char **s, size_t *len) {
  const char *q = t->ptr, *e = t->ptr + t->len - 1;
  while (*q != '"') q++;  /* skip a leading '@' */
  q++;
  /* Fast path: no escapes, point into the buffer. */
  const char *bs = memchr(q, '\\', (size_t)(e - q));
  if (!bs) {
    *s = q;
    *len = (size_t)(e - q);
    return;
  }
  p->strbuf.len = 0;
  kr_vec_reserve(&p->strbuf, (size_t)(e - q) + 1, 1);
  char *out = p->strbuf.data;
  size_t n = 0;
  while (q < e) {
    char c = *q++;
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    char d = *q++;
    switch (d) {
    case 'n': out[n++] = '\n'; break;
    case 't': out[n++] = '\t'; break;
    case '"': out[n++] = '"'; break;
    case '\\': out[n++] = '\\'; break;
    default:  /* two hex digits: the lexer checked them */
      out[n++] = (char)(hexval(d) * 16 + hexval(*q));
      q++;
      break;
    }
  }
  p->strbuf.len = n;
  *s = out;
  *len = n;
}

bool kp_int_value(const kr_token *t, uint64_t *out) {
  const char *s = t->ptr;
  size_t n = t->len;
  uint64_t v = 0;
  if (n > 2 && s[1] == 'x') {
    for (size_t i = 2; i < n; i++) {
      if (v >> 60) return false;
      v = v * 16 + (uint64_t)hexval(s[i]);
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      uint64_t d = (uint64_t)(s[i] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  *out = v;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Aliases: `#name = attr` and `!name = type` at the top level (LangRef "Attribute Value
 * Aliases", "Type Aliases"). */

static kr_status parse_alias_def(kr_asm_parser *p, bool is_type) {
  kr_token name = p->tok;
  const char *id = name.ptr + 1;
  size_t idlen = name.len - 1;
  kr_hmap *map = is_type ? &p->type_aliases : &p->attr_aliases;
  const char *what = is_type ? "type" : "attribute";
  uint64_t h = kp_name_hash(id, idlen);
  const char *key = name.ptr + name.len;
  if (kr_hmap_find(map, h, key)) return kp_error(p, "redefinition of %s alias id '%.*s'", what, (int)idlen, id);
  if (memchr(id, '.', idlen))
    return kp_error(p, "%s names with a '.' are reserved for dialect-defined names", what);
  kp_next(p);
  if (kp_expect(p, KR_TOK_EQUAL, is_type ? "expected '=' in type alias definition" : "expected '=' in attribute alias definition"))
    return KR_FAILURE;
  void *value;
  if (is_type) {
    kr_type t;
    if (kp_parse_type(p, &t)) return KR_FAILURE;
    value = (void *)t;
  } else {
    kr_attr a;
    if (kp_parse_attr(p, NULL, &a)) return KR_FAILURE;
    value = (void *)a;
  }
  kr_hmap_insert(map, h, key, NULL)->value = value;
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * File metadata: `{-# dialect_resources: { builtin: { key: "0x<align u32 LE><bytes>" } } #-}`
 * (MLIR's format: the blob is hex, its first 4 bytes the alignment, little-endian). */

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

#define KP_MAX_BLOB_ALIGN 4096u

static kr_status parse_blob_entry(kr_asm_parser *p) {
  const char *key_ptr = p->tok.ptr;
  const char *ks;
  size_t kl;
  if (kp_is(p, KR_TOK_STRING)) {
    kp_decode_string(p, &p->tok, &ks, &kl);
  } else if (kr_tok_is_keyword(p->tok.kind)) {
    ks = p->tok.ptr;
    kl = p->tok.len;
  } else {
    return kp_error(p, "expected identifier key for 'resource' entry");
  }
  kr_ident key = kr_ident_get(p->ctx, ks, kl);
  kp_next(p);
  if (kp_expect(p, KR_TOK_COLON, "expected ':'")) return KR_FAILURE;
  kr_token v = p->tok;
  const char *h = v.ptr + 1, *he = v.ptr + v.len - 1;
  if (v.kind != KR_TOK_STRING || he - h < 2 || h[0] != '0' || h[1] != 'x' || ((he - h - 2) & 1))
    return kp_error(p, "expected hex string blob for key '%s'", key);
  h += 2;
  size_t nbytes = (size_t)(he - h) / 2;
  for (const char *c = h; c < he; c++)
    if (hexval(*c) < 0) return kp_error(p, "expected hex string blob for key '%s'", key);
  if (nbytes < 4) return kp_error(p, "expected hex string blob for key '%s' to encode alignment in first 4 bytes", key);
  uint32_t align = 0;
  for (int i = 0; i < 4; i++) align |= (uint32_t)(hexval(h[2 * i]) * 16 + hexval(h[2 * i + 1])) << (8 * i);
  if (align && !is_pow2(align))
    return kp_error(p,
                    "expected hex string blob for key '%s' to encode alignment in first 4 bytes, but got "
                    "non-power-of-2 value: %u",
                    key, align);
  if (align == 0) align = 1;
  /* Blobs are allocated at their alignment; beyond a page it only wastes memory. */
  if (align > KP_MAX_BLOB_ALIGN)
    return kp_error(p, "resource '%s' asks for an alignment of %u bytes; at most %u are supported", key, align,
                    KP_MAX_BLOB_ALIGN);
  if (kr_hmap_find(&p->resources, kr_hash_ptr(key), key)) return kp_error_at(p, key_ptr, "redefinition of resource '%s'", key);
  h += 8;
  size_t size = nbytes - 4;
  /* The blob is decoded straight into the buffer the context adopts: a 100 MB weight set costs
   * its own size once, not a copy. */
  unsigned char *data = NULL;
  if (size) {
    size_t a = align < 16 ? 16 : align;
    data = aligned_alloc(a, (size + a - 1) / a * a);
    if (!data) return kp_error_at(p, key_ptr, "out of memory for resource '%s' (%zu bytes)", key, size);
    for (size_t i = 0; i < size; i++) data[i] = (unsigned char)(hexval(h[2 * i]) * 16 + hexval(h[2 * i + 1]));
  }
  const kr_resource *r = kr_resource_adopt(p->ctx, key, data, size, align);
  kr_hmap_insert(&p->resources, kr_hash_ptr(key), key, NULL)->value = (void *)r;
  kp_next(p);
  return KR_SUCCESS;
}

/* `{` (name `:` `{` entries `}`)* `}` with `entry` parsing each entry of a named group. */
static kr_status parse_resource_groups(kr_asm_parser *p, bool external) {
  if (kp_expect(p, KR_TOK_LBRACE, "expected '{'")) return KR_FAILURE;
  if (kp_consume(p, KR_TOK_RBRACE)) return KR_SUCCESS;
  do {
    const char *name_ptr = p->tok.ptr;
    size_t name_len = p->tok.len;
    if (!kr_tok_is_keyword(p->tok.kind)) return kp_error(p, "expected identifier key for 'resource' entry");
    kp_next(p);
    if (kp_expect(p, KR_TOK_COLON, "expected ':'") || kp_expect(p, KR_TOK_LBRACE, "expected '{'")) return KR_FAILURE;
    bool builtin = name_len == 7 && memcmp(name_ptr, "builtin", 7) == 0;
    if (external) {
      kr_emit_warning(p->ctx, kp_loc_at(p, name_ptr), "ignoring unknown external resources for '%.*s'", (int)name_len,
                      name_ptr);
    } else if (!builtin) {
      if (kr_context_lookup_dialect(p->ctx, name_ptr, name_len))
        return kp_error(p, "unexpected 'resource' section for dialect '%.*s'", (int)name_len, name_ptr);
      return kp_error_at(p, name_ptr, "dialect '%.*s' is unknown", (int)name_len, name_ptr);
    }
    if (!kp_consume(p, KR_TOK_RBRACE)) {
      do {
        if (external) {
          if (!kp_is(p, KR_TOK_STRING) && !kr_tok_is_keyword(p->tok.kind))
            return kp_error(p, "expected identifier key for 'external_resources' entry");
          kp_next(p);
          if (kp_expect(p, KR_TOK_COLON, "expected ':'")) return KR_FAILURE;
          if (kp_is(p, KR_TOK_EOF) || kp_is(p, KR_TOK_ERROR)) return kp_error(p, "expected resource value");
          kp_next(p);
        } else if (parse_blob_entry(p)) {
          return KR_FAILURE;
        }
      } while (kp_consume(p, KR_TOK_COMMA));
      if (kp_expect(p, KR_TOK_RBRACE, "expected ',' or '}'")) return KR_FAILURE;
    }
  } while (kp_consume(p, KR_TOK_COMMA));
  return kp_expect(p, KR_TOK_RBRACE, "expected ',' or '}'");
}

kr_status kp_parse_file_metadata(kr_asm_parser *p) {
  kp_next(p);  /* {-# */
  if (kp_consume(p, KR_TOK_FILE_META_END)) return KR_SUCCESS;
  do {
    const char *key = p->tok.ptr;
    size_t klen = p->tok.len;
    if (!kr_tok_is_keyword(p->tok.kind)) return kp_error(p, "expected identifier key in file metadata dictionary");
    kp_next(p);
    if (kp_expect(p, KR_TOK_COLON, "expected ':'")) return KR_FAILURE;
    if (klen == 17 && memcmp(key, "dialect_resources", 17) == 0) {
      if (parse_resource_groups(p, false)) return KR_FAILURE;
    } else if (klen == 18 && memcmp(key, "external_resources", 18) == 0) {
      if (parse_resource_groups(p, true)) return KR_FAILURE;
    } else {
      return kp_error_at(p, key, "unknown key '%.*s' in file metadata dictionary", (int)klen, key);
    }
  } while (kp_consume(p, KR_TOK_COMMA));
  return kp_expect(p, KR_TOK_FILE_META_END, "expected ',' or '#-}'");
}

/* dense_resource<key> may come before the section that defines `key` (MLIR prints the section
 * last).  The first time a key is not known yet, a token scan from the current position finds
 * the sections that follow at brace depth <= 0 (top level: every brace open here closes first)
 * and parses them right away; the main parse skips them when it gets there.  Files without
 * resources never pay for the scan. */
kr_status kp_prescan_sections(kr_asm_parser *p) {
  if (p->prescanned) return KR_SUCCESS;
  p->prescanned = true;
  const char *from = p->lex.cur;
  size_t rest = (size_t)(p->lex.end - from);
  if (rest < 3 || !memmem(from, rest, "{-#", 3)) return KR_SUCCESS;
  kr_lexer main_lex = p->lex;
  kr_token main_tok = p->tok;
  const char *main_prev = p->prev_end;
  kr_lexer lx = p->lex;
  long depth = 0;
  kr_token t = kr_lex(&lx);
  kr_status status = KR_SUCCESS;
  while (t.kind != KR_TOK_EOF) {
    if (t.kind == KR_TOK_LBRACE) {
      depth++;
    } else if (t.kind == KR_TOK_RBRACE) {
      depth--;
    } else if (t.kind == KR_TOK_FILE_META_BEGIN && depth <= 0) {
      p->lex = lx;
      p->tok = t;
      if (kp_parse_file_metadata(p)) {
        status = KR_FAILURE;
        break;
      }
      kp_section sec = {t.ptr, p->lex, p->tok, p->prev_end};
      kr_vec_push(&p->sections, &sec, sizeof sec);
      lx = p->lex;
      t = p->tok;
      if (t.kind == KR_TOK_ERROR) {
        status = KR_FAILURE;
        break;
      }
      continue;
    }
    /* Lexer errors are the main parse's to report, when it gets there. */
    t = kr_lex(&lx);
  }
  p->lex = main_lex;
  p->tok = main_tok;
  p->prev_end = main_prev;
  return status;
}

static kr_status skip_or_parse_section(kr_asm_parser *p) {
  for (size_t i = 0; i < p->sections.len; i++) {
    kp_section *s = &KR_VEC_AT(&p->sections, kp_section, i);
    if (s->begin == p->tok.ptr) {
      p->lex = s->lex;
      p->tok = s->tok;
      p->prev_end = s->prev_end;
      return KR_SUCCESS;
    }
  }
  return kp_parse_file_metadata(p);
}

/* ---------------------------------------------------------------------------------------------
 * Entry points. */

/* Builds the result: the single top-level builtin.module, or a module wrapping the top-level
 * ops at loc("file":0:0) as MLIR does. */
static kr_op *take_module(kr_asm_parser *p, kr_region *top) {
  kr_block *b = top->first;
  if (b->first && b->first == b->last && strcmp(b->first->name, KR_MODULE_OP) == 0) {
    kr_op *m = b->first;
    kr_op_remove(m);
    return m;
  }
  kr_op_state st;
  kr_op_state_init(&st, p->ctx, KR_MODULE_OP, kr_loc_file(p->ctx, p->filename, 0, 0));
  KR_VEC_PUSH(&st.regions, kr_region *, top);
  kr_op *m = kr_op_create(&st);
  kr_op_state_free(&st);
  return m;
}

static kr_op *parse_buffer(kr_asm_parser *p, bool verify) {
  kr_context *ctx = p->ctx;
  p->tok = kr_lex(&p->lex);
  if (p->tok.kind == KR_TOK_ERROR) lex_error(p);

  kr_region *top = kr_region_create(ctx);
  kr_block *block = kr_block_create(ctx);
  kr_region_append_block(top, block);
  kr_vec_push(&p->name_scopes, &p->defs.len, sizeof(size_t));
  kp_push_block_scope(p);
  while (!p->failed) {
    switch (p->tok.kind) {
    case KR_TOK_EOF: goto done;
    case KR_TOK_ERROR: return NULL;
    case KR_TOK_HASH_ID:
      if (parse_alias_def(p, false)) return NULL;
      break;
    case KR_TOK_BANG_ID:
      if (parse_alias_def(p, true)) return NULL;
      break;
    case KR_TOK_FILE_META_BEGIN:
      if (skip_or_parse_section(p)) return NULL;
      break;
    default:
      if (kp_parse_op(p, block)) return NULL;
      break;
    }
  }
  return NULL;
done:
  if (kp_report_undeclared(p) || kp_pop_block_scope(p) || kp_resolve_deferred_locs(p)) return NULL;
  kr_op *module = take_module(p, top);
  if (!module) return NULL;
  /* Acceptance is decided on the IR's depth, which printing cannot exceed (ir/parser_depth.c). */
  if (p->max_depth > KP_FAST_DEPTH && kp_ir_depth(module) > KP_MAX_IR_DEPTH) {
    kp_error_at(p, p->max_depth_ptr, "nesting is too deep (more than %d levels)", KP_MAX_IR_DEPTH);
    return NULL;
  }
  if (verify && KR_FAILED(kr_op_verify(module))) return NULL;
  return module;
}

kr_op *kr_parse_source(kr_context *ctx, const char *filename, const char *buf, size_t len, bool verify) {
  if (!filename) filename = "<stdin>";
  if (!buf) buf = "";
  kr_context_add_source(ctx, filename, buf, len);
  kr_asm_parser p;
  kp_init(&p, ctx, filename, buf, len);
  kr_op *m = parse_buffer(&p, verify);
  kp_free(&p);
  return m;
}

/* Parses one type or attribute spanning all of `text` ("<string>" in diagnostics). */
static void *parse_standalone(kr_context *ctx, const char *text, bool is_type) {
  static const char *const name = "<string>";
  size_t len = text ? strlen(text) : 0;
  if (!text) text = "";
  kr_context_add_source(ctx, name, text, len);
  kr_asm_parser p;
  kp_init(&p, ctx, name, text, len);
  p.tok = kr_lex(&p.lex);
  if (p.tok.kind == KR_TOK_ERROR) lex_error(&p);
  void *result = NULL;
  if (!p.failed) {
    if (is_type) {
      kr_type t;
      if (!kp_parse_type(&p, &t)) result = (void *)t;
    } else {
      kr_attr a;
      if (!kp_parse_attr(&p, NULL, &a)) result = (void *)a;
    }
  }
  if (result && !kp_is(&p, KR_TOK_EOF)) {
    kp_error(&p, "found trailing characters: '%s'", p.tok.ptr);
    result = NULL;
  }
  kp_free(&p);
  kr_context_remove_source(ctx, name);
  return result;
}

kr_type kr_parse_type_str(kr_context *ctx, const char *text) { return parse_standalone(ctx, text, true); }
kr_attr kr_parse_attr_str(kr_context *ctx, const char *text) { return parse_standalone(ctx, text, false); }
