/* ir/parser_ops.c - operations (generic and custom form), regions, blocks and SSA names
 * (MLIR LangRef "Operations", "Blocks", "Regions"; mlir/lib/AsmParser/Parser.cpp).
 *
 * Names are scoped per region: a region sees the values of the regions around it, and the names
 * it defines are dropped when it ends (MLIR does the same for non-isolated regions; whether an
 * isolated-from-above region really uses an outer value is the verifier's business).  A use
 * before the definition gets a placeholder value that the definition replaces; placeholders left
 * at the end of the file are "use of undeclared SSA value name" errors at their first use. */
#include <stdlib.h>
#include <string.h>

#include "ir/parser_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Scopes. */

static void push_name_scope(kr_asm_parser *p) { kr_vec_push(&p->name_scopes, &p->defs.len, sizeof(size_t)); }

/* `%N` (what the printer writes: decimal, no leading zero) below KP_DENSE_NAMES is a slot of
 * p->dense_names instead of a hash map entry: no hashing, and sequential numbers touch
 * sequential memory.  Any other name goes through p->values. */
#define KP_DENSE_NAMES (1u << 22)

static bool dense_number(const char *name, size_t len, uint32_t *n) {
  if (len < 2 || len > 8 || (name[1] == '0' && len > 2)) return false;
  uint32_t v = 0;
  for (size_t i = 1; i < len; i++) {
    unsigned d = (unsigned)(name[i] - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  if (v >= KP_DENSE_NAMES) return false;
  *n = v;
  return true;
}

/* The value group defined as `name`, or NULL. */
static kr_value lookup_def(kr_asm_parser *p, const char *name, size_t len) {
  uint32_t n;
  if (dense_number(name, len, &n)) return n < p->dense_names.len ? KR_VEC_AT(&p->dense_names, kr_value, n) : NULL;
  kr_hmap_entry *e = kr_hmap_find(&p->values, kp_name_hash(name, len), name + len);
  return e ? e->value : NULL;
}

static void pop_name_scope(kr_asm_parser *p) {
  size_t start = KR_VEC_AT(&p->name_scopes, size_t, p->name_scopes.len - 1);
  const char **defs = KR_VEC_DATA(&p->defs, const char *);
  for (size_t i = start; i < p->defs.len; i++) {
    size_t len = kp_name_len(defs[i]);
    uint32_t n;
    if (dense_number(defs[i] - len, len, &n)) KR_VEC_AT(&p->dense_names, kr_value, n) = NULL;
    else kr_hmap_remove(&p->values, kp_name_hash(defs[i] - len, len), defs[i]);
  }
  p->defs.len = start;
  p->name_scopes.len--;
}

void kp_push_block_scope(kr_asm_parser *p) {
  if (p->num_block_scopes == p->block_scopes.len) kr_vec_push(&p->block_scopes, NULL, sizeof(kp_block_scope));
  kp_block_scope *s = &KR_VEC_AT(&p->block_scopes, kp_block_scope, p->num_block_scopes++);
  s->map.eq = kp_name_eq;
  s->undefined = 0;
}

static int cmp_ptr(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  return x < y ? -1 : x > y;
}

/* Reports every pointer of `ptrs` (sorted, as MLIR does) with `msg`. */
static kr_status report_all(kr_asm_parser *p, const char **ptrs, size_t n, const char *msg) {
  qsort(ptrs, n, sizeof *ptrs, cmp_ptr);
  if (!p->failed)
    for (size_t i = 0; i < n; i++) kr_emit_error(p->ctx, kp_loc_at(p, ptrs[i]), "%s", msg);
  p->failed = true;
  return KR_FAILURE;
}

kr_status kp_pop_block_scope(kr_asm_parser *p) {
  kp_block_scope *s = &KR_VEC_AT(&p->block_scopes, kp_block_scope, p->num_block_scopes - 1);
  kr_status status = KR_SUCCESS;
  if (s->undefined) {
    const char **ptrs = malloc(s->undefined * sizeof *ptrs);
    if (!ptrs) abort();
    size_t n = 0;
    for (size_t i = 0; i < s->map.cap; i++) {
      kr_hmap_entry *e = &s->map.slots[i];
      const kp_block_info *b = e->value;
      if (e->hash && !b->defined && n < s->undefined) ptrs[n++] = b->use_ptr;
    }
    status = report_all(p, ptrs, n, "reference to an undefined block");
    free(ptrs);
  }
  /* Keep small tables for the next region at this depth; big ones would make clearing costly. */
  if (s->map.cap > 64) kr_hmap_free(&s->map);
  else kr_hmap_clear(&s->map);
  p->num_block_scopes--;
  return status;
}

kr_status kp_report_undeclared(kr_asm_parser *p) {
  if (!p->fwd.len) return KR_SUCCESS;
  const char **ptrs = malloc(p->fwd.len * sizeof *ptrs);
  if (!ptrs) abort();
  size_t n = 0;
  for (size_t i = 0; i < p->fwd.cap; i++)
    if (p->fwd.slots[i].hash) ptrs[n++] = ((const kp_fwd_ref *)p->fwd.slots[i].value)->use_ptr;
  kr_status s = report_all(p, ptrs, n, "use of undeclared SSA value name");
  free(ptrs);
  return s;
}

/* ---------------------------------------------------------------------------------------------
 * SSA values. */

static bool fwd_eq(const void *a, const void *b) {
  const kp_fwd_ref *x = a, *y = b;
  return x->number == y->number && kp_name_eq(x->name_end, y->name_end);
}

static inline kr_value value_at(kr_value first, unsigned i) {
  return i == 0 ? first : &first->owner.op->results[first->index + i];
}

static uint64_t group_size(kr_asm_parser *p, kr_value v) {
  if (v->is_block_arg) return 1;
  if (p->groups.len) {
    kr_hmap_entry *e = kr_hmap_find(&p->groups, kr_hash_ptr(v), v);
    if (e) return (uint64_t)(uintptr_t)e->value;
  }
  return v->owner.op->num_results - v->index;
}

static kr_attr value_loc(kr_asm_parser *p, kr_value v) {
  kr_attr l = v->is_block_arg ? v->loc : v->owner.op->loc;
  return l ? l : kr_loc_unknown(p->ctx);
}

static kr_status type_mismatch(kr_asm_parser *p, const char *at, const char *name, size_t len, kr_type used,
                               kr_type prior, kr_attr note_loc, const char *note_ptr, const char *note) {
  char *a = kp_type_str(used), *b = kp_type_str(prior);
  kr_status s = kp_error_note(p, at, note_loc, note_ptr, note,
                              "use of value '%.*s' expects different type than prior uses: '%s' vs '%s'", (int)len, name,
                              a, b);
  free(a);
  free(b);
  return s;
}

/* Replaces the placeholder of `name#i`, if there is one, by its definition `v`. */
static kr_status resolve_forward(kr_asm_parser *p, const char *name, size_t len, uint64_t h, unsigned i, kr_value v) {
  kp_fwd_ref probe = {name + len, i, NULL, NULL};
  uint64_t fh = kr_hash_combine(h, i);
  kr_hmap_entry *e = kr_hmap_find(&p->fwd, fh, &probe);
  if (!e) return KR_SUCCESS;
  kp_fwd_ref *f = e->value;
  if (f->placeholder->type != v->type) {
    char *a = kp_type_str(v->type), *b = kp_type_str(f->placeholder->type);
    size_t nlen = strlen(b) + 40;
    char *note = malloc(nlen);
    if (!note) abort();
    snprintf(note, nlen, "previously used here with type '%s'", b);
    kr_status s = kp_error_note(p, name, NULL, f->use_ptr, note, "definition of SSA value '%.*s#%u' has type '%s'",
                                (int)len, name, i, a);
    free(a);
    free(b);
    free(note);
    return s;
  }
  kr_value_replace_all_uses(f->placeholder, v);
  kr_hmap_remove(&p->fwd, fh, &probe);
  return KR_SUCCESS;
}

/* Binds `name` to the `count` values starting at `first` (a result group or one argument). */
static kr_status define(kr_asm_parser *p, const char *name, size_t len, kr_value first, unsigned count) {
  const char *key = name + len;
  kr_value *slot;
  uint32_t n;
  if (dense_number(name, len, &n)) {
    if (n >= p->dense_names.len) {
      size_t want = p->dense_names.len ? p->dense_names.len : 1024;
      while (want <= n) want *= 2;
      kr_vec_reserve(&p->dense_names, want, sizeof(kr_value));
      memset(KR_VEC_DATA(&p->dense_names, kr_value) + p->dense_names.len, 0,
             (want - p->dense_names.len) * sizeof(kr_value));
      p->dense_names.len = want;
    }
    slot = &KR_VEC_AT(&p->dense_names, kr_value, n);
  } else {
    bool inserted;
    kr_hmap_entry *e = kr_hmap_insert(&p->values, kp_name_hash(name, len), key, &inserted);
    slot = (kr_value *)&e->value;
  }
  if (*slot)
    return kp_error_note(p, name, value_loc(p, *slot), NULL, "previously defined here",
                         "redefinition of SSA value '%.*s'", (int)len, name);
  *slot = first;
  if (p->name_scopes.len > 1) KR_VEC_PUSH(&p->defs, const char *, key);
  if (p->fwd.len) {
    uint64_t h = kp_name_hash(name, len);
    for (unsigned i = 0; i < count; i++)
      if (resolve_forward(p, name, len, h, i, value_at(first, i))) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

kr_status kp_resolve(kr_asm_parser *p, const kr_unresolved_operand *u, kr_type type, kr_value *out) {
  const char *key = u->name + u->len;
  kr_value first = lookup_def(p, u->name, u->len);
  if (first) {
    if (u->number >= group_size(p, first)) return kp_error_at(p, u->name, "reference to invalid result number");
    kr_value v = value_at(first, u->number);
    if (v->type != type)
      return type_mismatch(p, u->name, u->name, u->len, type, v->type, value_loc(p, v), NULL, "prior use here");
    *out = v;
    return KR_SUCCESS;
  }
  kp_fwd_ref probe = {key, u->number, NULL, NULL};
  uint64_t fh = kr_hash_combine(kp_name_hash(u->name, u->len), u->number);
  kr_hmap_entry *e = kr_hmap_find(&p->fwd, fh, &probe);
  if (e) {
    kp_fwd_ref *f = e->value;
    if (f->placeholder->type != type)
      return type_mismatch(p, u->name, u->name, u->len, type, f->placeholder->type, NULL, f->use_ptr, "prior use here");
    *out = f->placeholder;
    return KR_SUCCESS;
  }
  struct kr_value_impl *ph = KR_NEW(kr_context_arena(p->ctx), struct kr_value_impl);
  ph->type = type;
  kp_fwd_ref *f = KR_NEW(&p->scratch, kp_fwd_ref);
  f->name_end = key;
  f->number = u->number;
  f->placeholder = ph;
  f->use_ptr = u->name;
  p->fwd.eq = fwd_eq;
  kr_hmap_insert(&p->fwd, fh, f, NULL)->value = f;
  *out = ph;
  return KR_SUCCESS;
}

kr_status kp_parse_operand(kr_asm_parser *p, kr_unresolved_operand *u, bool allow_number) {
  if (!kp_is(p, KR_TOK_PERCENT_ID)) return kp_error_wrong(p, "expected SSA operand");
  u->name = p->tok.ptr;
  u->len = p->tok.len;
  u->number = 0;
  u->loc = NULL;
  kp_next(p);
  if (kp_is(p, KR_TOK_HASH_ID)) {
    if (!allow_number) return kp_error(p, "result number not allowed in argument list");
    uint64_t n = 0;
    bool ok = p->tok.len > 1 && p->tok.len < 12;
    for (size_t i = 1; ok && i < p->tok.len; i++) {
      char c = p->tok.ptr[i];
      if (c < '0' || c > '9') ok = false;
      else n = n * 10 + (uint64_t)(c - '0');
    }
    if (!ok || n > UINT32_MAX) return kp_error(p, "invalid SSA value result number");
    u->number = (unsigned)n;
    kp_next(p);
  }
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Blocks. */

kr_status kp_parse_successor(kr_asm_parser *p, kr_block **out) {
  if (!kp_is(p, KR_TOK_CARET_ID)) return kp_error_wrong(p, "expected block name");
  kp_block_scope *s = &KR_VEC_AT(&p->block_scopes, kp_block_scope, p->num_block_scopes - 1);
  const char *key = p->tok.ptr + p->tok.len;
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&s->map, kp_name_hash(p->tok.ptr, p->tok.len), key, &inserted);
  if (inserted) {
    kp_block_info *b = KR_NEW(&p->scratch, kp_block_info);
    b->block = kr_block_create(p->ctx);
    b->use_ptr = p->tok.ptr;
    e->value = b;
    s->undefined++;
  }
  *out = ((kp_block_info *)e->value)->block;
  kp_next(p);
  return KR_SUCCESS;
}

static kr_status parse_block_body(kr_asm_parser *p, kr_block *b) {
  while (p->tok.kind != KR_TOK_CARET_ID && p->tok.kind != KR_TOK_RBRACE)
    if (kp_parse_op(p, b)) return KR_FAILURE;
  return KR_SUCCESS;
}

/* `(` (%name `:` type loc?)* `)` after a block label. */
static kr_status parse_block_args(kr_asm_parser *p, kr_block *b) {
  kp_next(p);
  if (kp_consume(p, KR_TOK_RPAREN)) return KR_SUCCESS;
  do {
    kr_token nt = p->tok;
    kr_unresolved_operand u;
    if (kp_parse_operand(p, &u, false) || kp_expect(p, KR_TOK_COLON, "expected ':' and type for SSA operand"))
      return KR_FAILURE;
    kr_type t;
    if (kp_parse_type(p, &t)) return KR_FAILURE;
    kr_value arg = kr_block_add_arg(b, t, kr_loc_file(p->ctx, p->filename, nt.line, nt.col));
    if (kp_parse_optional_trailing_loc(p, &arg->loc, true) || define(p, u.name, u.len, arg, 1)) return KR_FAILURE;
  } while (kp_consume(p, KR_TOK_COMMA));
  return kp_expect(p, KR_TOK_RPAREN, "expected ')'");
}

/* block ::= block-label? operation*; *io is the entry block (which needs no label) or NULL. */
static kr_status parse_block(kr_asm_parser *p, kr_region *r, kr_block **io) {
  kr_block *given = *io;
  if (given && !kp_is(p, KR_TOK_CARET_ID)) return parse_block_body(p, given);
  if (!kp_is(p, KR_TOK_CARET_ID)) return kp_error_wrong(p, "expected block name");
  kp_block_scope *s = &KR_VEC_AT(&p->block_scopes, kp_block_scope, p->num_block_scopes - 1);
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&s->map, kp_name_hash(p->tok.ptr, p->tok.len), p->tok.ptr + p->tok.len, &inserted);
  kr_block *b;
  if (inserted) {
    kp_block_info *info = KR_NEW(&p->scratch, kp_block_info);
    info->block = b = given ? given : kr_block_create(p->ctx);
    info->defined = true;
    e->value = info;
  } else {
    kp_block_info *info = e->value;
    if (info->defined) return kp_error(p, "redefinition of block '%.*s'", (int)p->tok.len, p->tok.ptr);
    info->defined = true;
    s->undefined--;
    b = info->block;
  }
  if (!given) kr_region_append_block(r, b);
  *io = b;
  kp_next(p);
  if (kp_is(p, KR_TOK_LPAREN) && parse_block_args(p, b)) return KR_FAILURE;
  if (kp_expect(p, KR_TOK_COLON, "expected ':' after block name")) return KR_FAILURE;
  return parse_block_body(p, b);
}

/* ---------------------------------------------------------------------------------------------
 * Regions. */

/* Names from a hook must be the parser's own (in the buffer: the name tables keep pointers). */
static bool valid_ssa_name(const kr_asm_parser *p, const char *s, size_t n) {
  if (!s || s < p->lex.buf || s + n > p->lex.end || n < 2 || s[0] != '%') return false;
  for (size_t i = 1; i < n; i++)
    if (!kr_is_suffix_char(s[i])) return false;
  return true;
}

static kr_status define_entry_args(kr_asm_parser *p, kr_block *b, const kr_asm_argument *args, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    const kr_unresolved_operand *u = &args[i].ssa;
    if (!valid_ssa_name(p, u->name, u->len)) return kp_error(p, "invalid SSA name for region argument %u", i);
    kr_value e = lookup_def(p, u->name, u->len);
    kp_fwd_ref probe = {u->name + u->len, u->number, NULL, NULL};
    kr_hmap_entry *f = e ? NULL : kr_hmap_find(&p->fwd, kr_hash_combine(kp_name_hash(u->name, u->len), u->number), &probe);
    if (e || f)
      return kp_error_note(p, u->name, e ? value_loc(p, e) : NULL, f ? ((kp_fwd_ref *)f->value)->use_ptr : NULL,
                           "previously referenced here", "region entry argument '%.*s' is already in use", (int)u->len,
                           u->name);
    kr_attr loc = args[i].loc ? args[i].loc : kp_loc_at(p, u->name);
    if (define(p, u->name, u->len, kr_block_add_arg(b, args[i].type, loc), 1)) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

static kr_status parse_region_body(kr_asm_parser *p, kr_region *r, const kr_asm_argument *args, unsigned nargs) {
  push_name_scope(p);
  kp_push_block_scope(p);
  kr_block *entry = kr_block_create(p->ctx);
  kr_region_append_block(r, entry);
  if (nargs && args[0].ssa.len) {
    if (kp_is(p, KR_TOK_CARET_ID)) return kp_error(p, "invalid block name in region with named arguments");
    if (define_entry_args(p, entry, args, nargs)) return KR_FAILURE;
  }
  if (parse_block(p, r, &entry)) return KR_FAILURE;
  if (nargs && entry->num_args > nargs) return kp_error(p, "entry block arguments were already defined");
  while (!kp_is(p, KR_TOK_RBRACE)) {
    kr_block *b = NULL;
    if (parse_block(p, r, &b)) return KR_FAILURE;
  }
  if (kp_pop_block_scope(p)) return KR_FAILURE;
  pop_name_scope(p);
  return KR_SUCCESS;
}

kr_status kp_parse_region(kr_asm_parser *p, kr_region *r, const kr_asm_argument *args, unsigned nargs) {
  if (kp_expect(p, KR_TOK_LBRACE, "expected '{' to begin a region") || kp_enter(p)) return KR_FAILURE;
  if ((nargs || !kp_is(p, KR_TOK_RBRACE)) && parse_region_body(p, r, args, nargs)) return KR_FAILURE;
  if (kp_expect(p, KR_TOK_RBRACE, "expected '}' to end a region")) return KR_FAILURE;
  kp_leave(p);
  return KR_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Operations. */

/* Op states are reused, one per nesting level, so parsing an op allocates nothing but the op. */
static kr_op_state *acquire_state(kr_asm_parser *p, kr_ident name, kr_attr loc) {
  if (p->op_depth == p->states.len) {
    kr_op_state *st = calloc(1, sizeof *st);
    if (!st) abort();
    KR_VEC_PUSH(&p->states, kr_op_state *, st);
  }
  kr_op_state *st = KR_VEC_AT(&p->states, kr_op_state *, p->op_depth++);
  st->ctx = p->ctx;
  st->name = name;
  st->loc = loc;
  st->operands.len = st->result_types.len = st->attrs.len = st->regions.len = st->successors.len = 0;
  return st;
}

static void release_state(kr_asm_parser *p) { p->op_depth--; }

kr_status kp_check_duplicate_attrs(kr_asm_parser *p, const kr_op_state *st, const char *at) {
  const kr_named_attr *a = KR_VEC_DATA(&st->attrs, kr_named_attr);
  size_t n = st->attrs.len;
  if (n < 2) return KR_SUCCESS;
  if (n <= 32) {
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (a[i].name == a[j].name)
          return kp_error_at(p, at, "attribute '%s' occurs more than once in the attribute list", a[i].name);
    return KR_SUCCESS;
  }
  kr_hmap seen = {0};
  kr_status s = KR_SUCCESS;
  for (size_t i = 0; i < n && !s; i++) {
    bool inserted;
    kr_hmap_insert(&seen, kr_hash_ptr(a[i].name), a[i].name, &inserted);
    if (!inserted) s = kp_error_at(p, at, "attribute '%s' occurs more than once in the attribute list", a[i].name);
  }
  kr_hmap_free(&seen);
  return s;
}

/* The operand, result, region, successor and attribute parts of the generic form after the op
 * name (MLIR's parseGenericOperationAfterOpName). */
static kr_op *parse_generic(kr_asm_parser *p) {
  kr_context *ctx = p->ctx;
  kr_token nt = p->tok;
  const char *s;
  size_t n;
  kp_decode_string(p, &nt, &s, &n);
  if (n == 0) return kp_error(p, "empty operation name is invalid"), NULL;
  if (memchr(s, 0, n)) return kp_error(p, "null character not allowed in operation name"), NULL;
  kr_ident name = kr_ident_get(ctx, s, n);
  const kr_op_def *def = kr_context_lookup_op(ctx, name);
  if (!def && !kr_context_allow_unregistered(ctx)) {
    const char *dot = memchr(name, '.', n);
    int dl = (int)(dot ? (size_t)(dot - name) : n);
    kp_error(p,
             "unregistered operation '%s' found in dialect ('%.*s') that does not allow unknown operations; use "
             "--allow-unregistered-dialect",
             name, dl, name);
    return NULL;
  }
  kr_attr loc = kr_loc_file(ctx, p->filename, nt.line, nt.col);
  kp_next(p);

  kr_op_state *st = acquire_state(p, name, loc);
  kr_op *op = NULL;
  size_t ostart = p->operands.len, tstart = p->types.len;
  if (kp_expect(p, KR_TOK_LPAREN, "expected '(' to start operand list")) goto out;
  if (kp_is(p, KR_TOK_PERCENT_ID)) {
    do {
      kr_unresolved_operand *u = kr_vec_push(&p->operands, NULL, sizeof *u);
      if (kp_parse_operand(p, u, true)) goto out;
    } while (kp_consume(p, KR_TOK_COMMA));
  }
  if (kp_expect(p, KR_TOK_RPAREN, "expected ')' to end operand list")) goto out;

  if (kp_is(p, KR_TOK_LSQUARE)) {
    if (def && !(def->traits & KR_TRAIT_TERMINATOR)) {
      kp_error(p, "successors in non-terminator");
      goto out;
    }
    kp_next(p);
    do {
      kr_block *b;
      if (kp_parse_successor(p, &b)) goto out;
      KR_VEC_PUSH(&st->successors, kr_block *, b);
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_RSQUARE, "expected ',' or ']'")) goto out;
  }

  /* MLIR 19 prints inherent attributes as properties `<{...}>`; korch keeps them as attributes. */
  if (kp_is(p, KR_TOK_LESS)) {
    kp_next(p);
    if (!kp_is(p, KR_TOK_LBRACE)) {
      kp_error_wrong(p, "expected '{' in properties");
      goto out;
    }
    if (kp_parse_attr_dict_into(p, &st->attrs, st->attrs.len) ||
        kp_expect(p, KR_TOK_GREATER, "expected '>' to close properties"))
      goto out;
  }

  if (kp_consume(p, KR_TOK_LPAREN)) {
    do {
      if (kp_parse_region(p, kr_op_state_add_region(st), NULL, 0)) goto out;
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_RPAREN, "expected ')' to end region list")) goto out;
  }

  if (kp_is(p, KR_TOK_LBRACE) && kp_parse_attr_dict_into(p, &st->attrs, st->attrs.len)) goto out;
  if (kp_check_duplicate_attrs(p, st, nt.ptr)) goto out;

  if (kp_expect(p, KR_TOK_COLON, "expected ':' followed by operation type")) goto out;
  const char *type_ptr = p->tok.ptr;
  size_t nin, rstart;
  if (kp_is(p, KR_TOK_LPAREN)) {
    /* The usual `(T, T) -> T`: read straight into the lists, no function type is built. */
    if (kp_parse_type_list_parens(p)) goto out;
    nin = p->types.len - tstart;
    if (kp_expect(p, KR_TOK_ARROW, "expected '->' in function type")) goto out;
    rstart = p->types.len;
    if (kp_parse_function_results(p)) goto out;
  } else {
    kr_type t;
    if (kp_parse_type(p, &t)) goto out;
    if (t->kind != KR_TYPE_FUNCTION) {
      kp_error_at(p, type_ptr, "expected function type");
      goto out;
    }
    nin = t->u.func.num_inputs;
    for (unsigned i = 0; i < nin; i++) KR_VEC_PUSH(&p->types, kr_type, t->u.func.inputs[i]);
    rstart = p->types.len;
    for (unsigned i = 0; i < t->u.func.num_results; i++) KR_VEC_PUSH(&p->types, kr_type, t->u.func.results[i]);
  }
  kr_type *types = KR_VEC_DATA(&p->types, kr_type);
  kr_op_state_add_results(st, types + rstart, (unsigned)(p->types.len - rstart));
  size_t nops = p->operands.len - ostart;
  if (nin != nops) {
    kp_error_at(p, type_ptr, "expected %zu operand type%s but had %zu", nops, nops == 1 ? "" : "s", nin);
    goto out;
  }
  kr_vec_reserve(&st->operands, nops, sizeof(kr_value));
  for (size_t i = 0; i < nops; i++) {
    kr_value v;
    if (kp_resolve(p, &KR_VEC_AT(&p->operands, kr_unresolved_operand, ostart + i), types[tstart + i], &v)) goto out;
    KR_VEC_PUSH(&st->operands, kr_value, v);
  }
  op = kr_op_create(st);
  if (!op) p->failed = true;
out:
  p->operands.len = ostart;
  p->types.len = tstart;
  release_state(p);
  return op;
}

/* `name` or, without a dialect prefix, `<default dialect>.name` (MLIR's parseCustomOperationName:
 * `return` inside func.func is func.return, `module` at the top is builtin.module). */
static const kr_op_def *lookup_custom(kr_asm_parser *p, const char *s, size_t n, const char *dd) {
  const kr_op_def *def = kr_context_lookup_op(p->ctx, kr_ident_get(p->ctx, s, n));
  if (def || memchr(s, '.', n) || !*dd) return def;
  size_t dl = strlen(dd);
  p->strbuf.len = 0;
  kr_vec_reserve(&p->strbuf, dl + 1 + n, 1);
  char *b = p->strbuf.data;
  memcpy(b, dd, dl);
  b[dl] = '.';
  memcpy(b + dl + 1, s, n);
  return kr_context_lookup_op(p->ctx, kr_ident_get(p->ctx, b, dl + 1 + n));
}

static kr_op *parse_custom(kr_asm_parser *p) {
  kr_context *ctx = p->ctx;
  kr_token nt = p->tok;
  const char *s = nt.ptr;
  size_t n = nt.len;
  const char *dd = KR_VEC_AT(&p->dialects, const char *, p->dialects.len - 1);
  const kr_op_def *def = lookup_custom(p, s, n, dd);
  const char *dot = memchr(s, '.', n);
  if (!def) {
    if (!dot && *dd) kp_error(p, "custom op '%.*s' is unknown (tried '%s.%.*s' as well)", (int)n, s, dd, (int)n, s);
    else if (!dot || kr_context_lookup_dialect(ctx, s, (size_t)(dot - s))) kp_error(p, "custom op '%.*s' is unknown", (int)n, s);
    else kp_error(p, "dialect '%.*s' not found for custom op '%.*s'", (int)(dot - s), s, (int)n, s);
    return NULL;
  }
  if (!def->parse) {
    kp_error(p, "custom op '%s' has no custom assembly form; use the generic form", def->name);
    return NULL;
  }
  kr_attr loc = kr_loc_file(ctx, p->filename, nt.line, nt.col);
  kp_next(p);
  if (p->failed) return NULL;

  kr_op_state *st = acquire_state(p, def->ident, loc);
  kr_op *op = NULL;
  /* MLIR's OpAsmOpInterface::getDefaultDialect, as func.func and builtin.module declare it: the
   * regions of an isolated-from-above op default to its own dialect. */
  const char *inner = (def->traits & KR_TRAIT_ISOLATED_FROM_ABOVE) && def->dialect ? def->dialect->name : "";
  kr_vec_push(&p->dialects, &inner, sizeof inner);
  const char *saved_op = p->custom_op;
  unsigned saved_depth = p->depth, errors = kr_context_num_errors(ctx);
  p->custom_op = def->name;
  kr_status status = def->parse(p, st);
  p->custom_op = saved_op;
  p->depth = saved_depth;
  p->dialects.len--;
  if (status || p->failed || kr_context_num_errors(ctx) != errors) {
    if (!p->failed && kr_context_num_errors(ctx) == errors) kp_error_at(p, nt.ptr, "custom op '%s' failed to parse", def->name);
    p->failed = true;
    goto out;
  }
  if (kp_check_duplicate_attrs(p, st, nt.ptr)) goto out;
  op = kr_op_create(st);
  if (!op) p->failed = true;
out:
  release_state(p);
  return op;
}

kr_status kp_parse_op(kr_asm_parser *p, kr_block *block) {
  size_t rstart = p->results.len;
  uint64_t expected = 0;
  const char *first = p->tok.ptr;
  if (kp_is(p, KR_TOK_PERCENT_ID)) {
    do {
      if (!kp_is(p, KR_TOK_PERCENT_ID)) return kp_error_wrong(p, "expected valid ssa identifier");
      kp_result_rec rec = {p->tok.ptr, p->tok.len, 1};
      kp_next(p);
      if (kp_consume(p, KR_TOK_COLON)) {
        if (!kp_is(p, KR_TOK_INTEGER)) return kp_error_wrong(p, "expected integer number of results");
        uint64_t v;
        if (!kp_int_value(&p->tok, &v) || v < 1) return kp_error(p, "expected named operation to have at least 1 result");
        rec.count = v;
        kp_next(p);
      }
      expected = expected + rec.count < expected ? UINT64_MAX : expected + rec.count;
      kr_vec_push(&p->results, &rec, sizeof rec);
    } while (kp_consume(p, KR_TOK_COMMA));
    if (kp_expect(p, KR_TOK_EQUAL, "expected '=' after SSA name")) return KR_FAILURE;
  }

  kr_op *op;
  if (kp_is(p, KR_TOK_STRING)) op = parse_generic(p);
  else if (p->tok.kind == KR_TOK_BARE_ID || (p->tok.kind >= KR_TOK_KW_FIRST && p->tok.kind <= KR_TOK_KW_LAST))
    op = parse_custom(p);
  else return kp_error_wrong(p, "expected operation name in quotes");
  if (!op) return KR_FAILURE;
  kr_block_append_op(block, op);
  if (kp_parse_optional_trailing_loc(p, &op->loc, true)) return KR_FAILURE;

  size_t ngroups = p->results.len - rstart;
  if (ngroups) {
    if (op->num_results == 0) return kp_error_at(p, first, "cannot name an operation with no results");
    if (expected != op->num_results)
      return kp_error_at(p, first, "operation defines %u results but was provided %llu to bind", op->num_results,
                         (unsigned long long)expected);
    unsigned idx = 0;
    for (size_t g = 0; g < ngroups; g++) {
      kp_result_rec rec = KR_VEC_AT(&p->results, kp_result_rec, rstart + g);
      kr_value v = &op->results[idx];
      if (ngroups > 1) kr_hmap_insert(&p->groups, kr_hash_ptr(v), v, NULL)->value = (void *)(uintptr_t)rec.count;
      if (define(p, rec.name, rec.len, v, (unsigned)rec.count)) return KR_FAILURE;
      idx += (unsigned)rec.count;
    }
    p->results.len = rstart;
  }
  return KR_SUCCESS;
}
