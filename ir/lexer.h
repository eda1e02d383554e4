/* ir/lexer.h - the .kir lexer (private to the parser; after MLIR's mlir/lib/AsmParser/Lexer.cpp).
 *
 * The lexer reads a buffer that need not be NUL-terminated: every read is bounds-checked, and a
 * NUL byte inside the buffer is skipped like whitespace (inside strings and comments it is kept),
 * as MLIR does.  Tokens point into the buffer; nothing is copied or allocated.  Lines and columns
 * (1-based, columns in bytes, only '\n' ends a line) are tracked while skipping whitespace, so
 * every token knows its position for free: the parser gives every op a file location. */
#ifndef KORCH_IR_LEXER_H
#define KORCH_IR_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum kr_tok_kind {
  KR_TOK_EOF,
  KR_TOK_ERROR,          /* the lexer's message is in kr_lexer::err_msg, at kr_lexer::err_ptr */
  KR_TOK_BARE_ID,        /* foo, foo.bar, x3xf32 (keywords below are bare identifiers too) */
  KR_TOK_INTTYPE,        /* i32, si8, ui64: [su]?i[0-9]+ */
  KR_TOK_AT_ID,          /* @foo, @"quoted" */
  KR_TOK_HASH_ID,        /* #foo, #foo.bar, #1 */
  KR_TOK_PERCENT_ID,     /* %foo, %0 */
  KR_TOK_CARET_ID,       /* ^bb0 */
  KR_TOK_BANG_ID,        /* !foo, !foo.bar */
  KR_TOK_INTEGER,        /* 42, 0x2A */
  KR_TOK_FLOAT,          /* 1.5, 1.e-3, 2.0E+4 */
  KR_TOK_STRING,         /* "..." with the quotes */
  /* punctuation */
  KR_TOK_ARROW, KR_TOK_COLON, KR_TOK_COMMA, KR_TOK_ELLIPSIS, KR_TOK_EQUAL, KR_TOK_GREATER,
  KR_TOK_LBRACE, KR_TOK_LPAREN, KR_TOK_LSQUARE, KR_TOK_LESS, KR_TOK_MINUS, KR_TOK_PLUS,
  KR_TOK_QUESTION, KR_TOK_RBRACE, KR_TOK_RPAREN, KR_TOK_RSQUARE, KR_TOK_STAR, KR_TOK_VBAR,
  KR_TOK_FILE_META_BEGIN,  /* {-# */
  KR_TOK_FILE_META_END,    /* #-} */
  /* keywords the type and attribute grammar dispatches on (all spelled as bare identifiers) */
  KR_TOK_KW_FIRST,
  KR_TOK_KW_BF16 = KR_TOK_KW_FIRST, KR_TOK_KW_F16, KR_TOK_KW_F32, KR_TOK_KW_F64, KR_TOK_KW_INDEX,
  KR_TOK_KW_NONE, KR_TOK_KW_TENSOR, KR_TOK_KW_VECTOR, KR_TOK_KW_TUPLE, KR_TOK_KW_DENSE,
  KR_TOK_KW_DENSE_RESOURCE, KR_TOK_KW_ARRAY, KR_TOK_KW_TRUE, KR_TOK_KW_FALSE, KR_TOK_KW_UNIT,
  KR_TOK_KW_LOC,
  KR_TOK_KW_LAST = KR_TOK_KW_LOC,
} kr_tok_kind;

typedef struct kr_token {
  const char *ptr;       /* first byte, in the buffer */
  size_t len;            /* bytes */
  kr_tok_kind kind;
  uint32_t line, col;    /* of `ptr`, 1-based */
} kr_token;

typedef struct kr_lexer {
  const char *buf, *end, *cur;
  const char *line_start;   /* first byte of the line `cur` is on */
  uint32_t line;
  const char *err_msg;      /* set with a KR_TOK_ERROR token (static string or err_buf) */
  const char *err_ptr;      /* where the error is */
  char err_buf[64];         /* formatted messages */
} kr_lexer;

/* A token that may be used as a keyword or a bare name: bare identifiers, integer types and the
 * keywords above (MLIR's isCurrentTokenAKeyword). */
static inline bool kr_tok_is_keyword(kr_tok_kind k) {
  return k == KR_TOK_BARE_ID || k == KR_TOK_INTTYPE || (k >= KR_TOK_KW_FIRST && k <= KR_TOK_KW_LAST);
}

void kr_lexer_init(kr_lexer *lx, const char *buf, size_t len);
/* Lexes the next token (whitespace and `//` comments are skipped). */
kr_token kr_lex(kr_lexer *lx);
/* Moves the lexer back to `ptr`, which must lie on the current line at or after its start (used
 * to split `x3xf32` after the `x` in dimension lists). */
void kr_lexer_reset(kr_lexer *lx, const char *ptr);
/* Scans a dialect symbol body `<...>` starting at `ptr` (which points at the '<'): nested
 * <> () [] {} must balance, `->` is skipped as a unit and strings are lexed as strings.  On
 * success returns the pointer after the closing '>' and moves the lexer there (line tracking
 * included); on failure returns NULL with err_msg/err_ptr set, err_ptr at the '<' for unbalanced
 * punctuation as in MLIR (MLIR's parseDialectSymbolBody).
 * `scratch` (may be reallocated) holds the open brackets; *scratch_cap is its capacity. */
const char *kr_lexer_skip_dialect_body(kr_lexer *lx, const char *ptr, char **scratch, size_t *scratch_cap);
/* Line and column (1-based) of any pointer in [buf, end] (scans from the buffer start: for
 * diagnostics only). */
void kr_lexer_line_col(const kr_lexer *lx, const char *ptr, uint32_t *line, uint32_t *col);

/* Character classes of the identifier grammar (MLIR LangRef "Identifiers and keywords"). */
enum {
  KR_CC_ALPHA = 1,   /* [a-zA-Z] */
  KR_CC_DIGIT = 2,   /* [0-9] */
  KR_CC_HEX = 4,     /* [0-9a-fA-F] */
  KR_CC_IDP = 8,     /* id-punct: [$._-] */
  KR_CC_BARE = 16,   /* continues a bare identifier: [a-zA-Z0-9_$.] */
};
extern const uint8_t kr_char_class[256];
static inline bool kr_is_suffix_char(char c) {
  return (kr_char_class[(unsigned char)c] & (KR_CC_ALPHA | KR_CC_DIGIT | KR_CC_IDP)) != 0;
}

#endif
