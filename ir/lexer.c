/* ir/lexer.c - the .kir lexer.  The token grammar is MLIR's (LangRef "Lexical structure" and
 * mlir/lib/AsmParser/Lexer.cpp), including its error messages; see ir/lexer.h. */
#include "ir/lexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CC_OF(c)                                                                                 \
  ((((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') ? KR_CC_ALPHA | KR_CC_BARE : 0) |   \
   ((c) >= '0' && (c) <= '9' ? KR_CC_DIGIT | KR_CC_HEX | KR_CC_BARE : 0) |                        \
   (((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F') ? KR_CC_HEX : 0) |                   \
   ((c) == '$' || (c) == '.' || (c) == '_' || (c) == '-' ? KR_CC_IDP : 0) |                       \
   ((c) == '_' || (c) == '$' || (c) == '.' ? KR_CC_BARE : 0))
#define CC4(b) CC_OF(b), CC_OF(b + 1), CC_OF(b + 2), CC_OF(b + 3)
#define CC16(b) CC4(b), CC4(b + 4), CC4(b + 8), CC4(b + 12)
#define CC64(b) CC16(b), CC16(b + 16), CC16(b + 32), CC16(b + 48)
const uint8_t kr_char_class[256] = {CC64(0), CC64(64), CC64(128), CC64(192)};

#define IS(c, cls) ((kr_char_class[(unsigned char)(c)] & (cls)) != 0)

void kr_lexer_init(kr_lexer *lx, const char *buf, size_t len) {
  memset(lx, 0, sizeof *lx);
  lx->buf = buf;
  lx->end = buf + len;
  lx->cur = buf;
  lx->line_start = buf;
  lx->line = 1;
}

static kr_token form(kr_lexer *lx, kr_tok_kind kind, const char *start, const char *end) {
  kr_token t;
  t.ptr = start;
  t.len = (size_t)(end - start);
  t.kind = kind;
  t.line = lx->line;
  t.col = (uint32_t)(start - lx->line_start) + 1;
  lx->cur = end;
  return t;
}

/* Errors point at `at`; lexing resumes after it so that a caller that keeps going terminates. */
static kr_token error(kr_lexer *lx, const char *at, const char *msg) {
  lx->err_msg = msg;
  lx->err_ptr = at;
  kr_token t = form(lx, KR_TOK_ERROR, at, at < lx->end ? at + 1 : at);
  return t;
}

/* The rest of a string literal after its opening quote at `start`; `p` is after the quote. */
static kr_token lex_string(kr_lexer *lx, const char *start, const char *p, kr_tok_kind kind) {
  const char *end = lx->end;
  for (;;) {
    if (p >= end) return error(lx, end, "expected '\"' in string literal");
    char c = *p++;
    switch (c) {
    case '"':
      return form(lx, kind, start, p);
    case '\n':
    case '\v':
    case '\f':
      return error(lx, p - 1, "expected '\"' in string literal");
    case '\\':
      if (p < end && (*p == '"' || *p == '\\' || *p == 'n' || *p == 't')) {
        p++;
      } else if (p + 1 < end && IS(p[0], KR_CC_HEX) && IS(p[1], KR_CC_HEX)) {
        p += 2;
      } else {
        return error(lx, p - 1, "unknown escape in string literal");
      }
      continue;
    default:
      continue;
    }
  }
}

static kr_token lex_number(kr_lexer *lx, const char *start) {
  const char *p = start + 1, *end = lx->end;
  if (start[0] == '0' && p < end && *p == 'x') {
    /* `0xi32` is `0` followed by `xi32` (dimension lists). */
    if (p + 1 >= end || !IS(p[1], KR_CC_HEX)) return form(lx, KR_TOK_INTEGER, start, p);
    p += 2;
    while (p < end && IS(*p, KR_CC_HEX)) p++;
    return form(lx, KR_TOK_INTEGER, start, p);
  }
  while (p < end && IS(*p, KR_CC_DIGIT)) p++;
  if (p >= end || *p != '.') return form(lx, KR_TOK_INTEGER, start, p);
  p++;
  while (p < end && IS(*p, KR_CC_DIGIT)) p++;
  if (p < end && (*p == 'e' || *p == 'E')) {
    if (p + 1 < end && IS(p[1], KR_CC_DIGIT)) {
      p += 2;
      while (p < end && IS(*p, KR_CC_DIGIT)) p++;
    } else if (p + 2 < end && (p[1] == '-' || p[1] == '+') && IS(p[2], KR_CC_DIGIT)) {
      p += 3;
      while (p < end && IS(*p, KR_CC_DIGIT)) p++;
    }
  }
  return form(lx, KR_TOK_FLOAT, start, p);
}

static bool all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!IS(s[i], KR_CC_DIGIT)) return false;
  return true;
}

static kr_tok_kind keyword_kind(const char *s, size_t n) {
#define KW(str, kind)                                                                            \
  if (n == sizeof(str) - 1 && memcmp(s, str, n) == 0) return kind
  switch (s[0]) {
  case 'a': KW("array", KR_TOK_KW_ARRAY); break;
  case 'b': KW("bf16", KR_TOK_KW_BF16); break;
  case 'd':
    KW("dense", KR_TOK_KW_DENSE);
    KW("dense_resource", KR_TOK_KW_DENSE_RESOURCE);
    break;
  case 'f':
    KW("f16", KR_TOK_KW_F16);
    KW("f32", KR_TOK_KW_F32);
    KW("f64", KR_TOK_KW_F64);
    KW("false", KR_TOK_KW_FALSE);
    break;
  case 'i': KW("index", KR_TOK_KW_INDEX); break;
  case 'l': KW("loc", KR_TOK_KW_LOC); break;
  case 'n': KW("none", KR_TOK_KW_NONE); break;
  case 't':
    KW("tensor", KR_TOK_KW_TENSOR);
    KW("true", KR_TOK_KW_TRUE);
    KW("tuple", KR_TOK_KW_TUPLE);
    break;
  case 'u': KW("unit", KR_TOK_KW_UNIT); break;
  case 'v': KW("vector", KR_TOK_KW_VECTOR); break;
  default: break;
  }
#undef KW
  return KR_TOK_BARE_ID;
}

static kr_token lex_bare(kr_lexer *lx, const char *start) {
  const char *p = start + 1, *end = lx->end;
  while (p < end && IS(*p, KR_CC_BARE)) p++;
  size_t n = (size_t)(p - start);
  if ((n > 1 && start[0] == 'i' && all_digits(start + 1, n - 1)) ||
      (n > 2 && start[1] == 'i' && (start[0] == 's' || start[0] == 'u') && all_digits(start + 2, n - 2)))
    return form(lx, KR_TOK_INTTYPE, start, p);
  return form(lx, keyword_kind(start, n), start, p);
}

/* `#foo`, `%foo`, `^foo`, `!foo`: suffix-id ::= digit+ | (letter|id-punct) (letter|id-punct|digit)* */
static kr_token lex_prefixed(kr_lexer *lx, const char *start, kr_tok_kind kind, const char *what) {
  const char *p = start + 1, *end = lx->end;
  if (p < end && IS(*p, KR_CC_DIGIT)) {
    while (p < end && IS(*p, KR_CC_DIGIT)) p++;
  } else if (p < end && IS(*p, KR_CC_ALPHA | KR_CC_IDP)) {
    do p++;
    while (p < end && IS(*p, KR_CC_ALPHA | KR_CC_IDP | KR_CC_DIGIT));
  } else {
    return error(lx, start, what);
  }
  return form(lx, kind, start, p);
}

static kr_token lex_at(kr_lexer *lx, const char *start) {
  const char *p = start + 1, *end = lx->end;
  if (p < end && *p == '"') {
    kr_token t = lex_string(lx, start, p + 1, KR_TOK_AT_ID);
    return t;
  }
  if (p >= end || !(IS(*p, KR_CC_ALPHA) || *p == '_'))
    return error(lx, p, "@ identifier expected to start with letter or '_'");
  p++;
  while (p < end && IS(*p, KR_CC_BARE)) p++;
  return form(lx, KR_TOK_AT_ID, start, p);
}

kr_token kr_lex(kr_lexer *lx) {
  const char *p = lx->cur, *end = lx->end;
  for (;;) {
    if (p >= end) return form(lx, KR_TOK_EOF, end, end);
    const char *s = p;
    char c = *p++;
    switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\0':
      continue;
    case '\n':
      lx->line++;
      lx->line_start = p;
      continue;
    case '/':
      if (p < end && *p == '/') {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl : end;
        continue;
      }
      return error(lx, s, "unexpected character");
    case ':': return form(lx, KR_TOK_COLON, s, p);
    case ',': return form(lx, KR_TOK_COMMA, s, p);
    case '(': return form(lx, KR_TOK_LPAREN, s, p);
    case ')': return form(lx, KR_TOK_RPAREN, s, p);
    case '}': return form(lx, KR_TOK_RBRACE, s, p);
    case '[': return form(lx, KR_TOK_LSQUARE, s, p);
    case ']': return form(lx, KR_TOK_RSQUARE, s, p);
    case '<': return form(lx, KR_TOK_LESS, s, p);
    case '>': return form(lx, KR_TOK_GREATER, s, p);
    case '=': return form(lx, KR_TOK_EQUAL, s, p);
    case '+': return form(lx, KR_TOK_PLUS, s, p);
    case '*': return form(lx, KR_TOK_STAR, s, p);
    case '?': return form(lx, KR_TOK_QUESTION, s, p);
    case '|': return form(lx, KR_TOK_VBAR, s, p);
    case '{':
      if (p + 1 < end && p[0] == '-' && p[1] == '#') return form(lx, KR_TOK_FILE_META_BEGIN, s, p + 2);
      return form(lx, KR_TOK_LBRACE, s, p);
    case '-':
      if (p < end && *p == '>') return form(lx, KR_TOK_ARROW, s, p + 1);
      return form(lx, KR_TOK_MINUS, s, p);
    case '.':
      if (p + 1 < end && p[0] == '.' && p[1] == '.') return form(lx, KR_TOK_ELLIPSIS, s, p + 2);
      return error(lx, p < end ? p : end, "expected three consecutive dots for an ellipsis");
    case '@': return lex_at(lx, s);
    case '#':
      if (p + 1 < end && p[0] == '-' && p[1] == '}') return form(lx, KR_TOK_FILE_META_END, s, p + 2);
      return lex_prefixed(lx, s, KR_TOK_HASH_ID, "invalid attribute name");
    case '%': return lex_prefixed(lx, s, KR_TOK_PERCENT_ID, "invalid SSA name");
    case '^': return lex_prefixed(lx, s, KR_TOK_CARET_ID, "invalid block name");
    case '!': return lex_prefixed(lx, s, KR_TOK_BANG_ID, "invalid type identifier");
    case '"': return lex_string(lx, s, p, KR_TOK_STRING);
    case '_': return lex_bare(lx, s);
    default:
      if (IS(c, KR_CC_DIGIT)) return lex_number(lx, s);
      if (IS(c, KR_CC_ALPHA)) return lex_bare(lx, s);
      return error(lx, s, "unexpected character");
    }
  }
}

void kr_lexer_reset(kr_lexer *lx, const char *ptr) { lx->cur = ptr; }

const char *kr_lexer_skip_dialect_body(kr_lexer *lx, const char *ptr, char **scratch, size_t *scratch_cap) {
  const char *p = ptr, *end = lx->end;
  size_t depth = 0;
  do {
    if (p >= end || *p == '\0') {
      lx->err_ptr = ptr;  /* MLIR reports unbalanced bodies at their '<' */
      if (depth) {
        snprintf(lx->err_buf, sizeof lx->err_buf, "unbalanced '%c' character in pretty dialect name", (*scratch)[depth - 1]);
        lx->err_msg = lx->err_buf;
      } else {
        lx->err_msg = "unexpected nul or EOF in pretty dialect name";
      }
      return NULL;
    }
    char c = *p++;
    char open = 0;
    switch (c) {
    case '<':
    case '[':
    case '(':
    case '{':
      if (depth == *scratch_cap) {
        size_t ncap = *scratch_cap ? *scratch_cap * 2 : 16;
        char *n = realloc(*scratch, ncap);
        if (!n) abort();  /* as the arena: allocation failure is not reportable */
        *scratch = n;
        *scratch_cap = ncap;
      }
      (*scratch)[depth++] = c;
      continue;
    case '\n':
      lx->line++;
      lx->line_start = p;
      continue;
    case '-':
      if (p < end && *p == '>') p++;
      continue;
    case '>': open = '<'; break;
    case ']': open = '['; break;
    case ')': open = '('; break;
    case '}': open = '{'; break;
    case '"': {
      kr_token t = lex_string(lx, p - 1, p, KR_TOK_STRING);
      if (t.kind == KR_TOK_ERROR) return NULL;
      p = t.ptr + t.len;
      continue;
    }
    default:
      continue;
    }
    if ((*scratch)[depth - 1] != open) {
      lx->err_ptr = ptr;
      snprintf(lx->err_buf, sizeof lx->err_buf, "unbalanced '%c' character in pretty dialect name", (*scratch)[depth - 1]);
      lx->err_msg = lx->err_buf;
      return NULL;
    }
    depth--;
  } while (depth);
  lx->cur = p;
  return p;
}

void kr_lexer_line_col(const kr_lexer *lx, const char *ptr, uint32_t *line, uint32_t *col) {
  if (ptr >= lx->line_start && ptr <= lx->end && ptr >= lx->buf &&
      !memchr(lx->line_start, '\n', (size_t)(ptr - lx->line_start))) {
    *line = lx->line;
    *col = (uint32_t)(ptr - lx->line_start) + 1;
    return;
  }
  uint32_t l = 1;
  const char *ls = lx->buf, *q = lx->buf;
  while (q < ptr) {
    const char *nl = memchr(q, '\n', (size_t)(ptr - q));
    if (!nl) break;
    l++;
    q = nl + 1;
    ls = q;
  }
  *line = l;
  *col = (uint32_t)(ptr - ls) + 1;
}
