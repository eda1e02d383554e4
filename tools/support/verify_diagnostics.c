/* tools/support/verify_diagnostics.c - the `--verify-diagnostics` engine.
 *
 * Expectations are scanned once from the source text; the handler matches each reported
 * diagnostic (and each attached note) against the first unmatched expectation with the same
 * severity, file and line, and reports the leftovers at the end, as MLIR's verifier does.
 * Differences from MLIR, on purpose: a line that names an expectation (`expected-error`) but does
 * not follow the syntax is an error instead of being ignored (a typo would otherwise silently
 * disable a test), and unmatched `@unknown` expectations are reported like the others. */
#include "verify_diagnostics.h"

#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "korch/adt.h"

typedef struct expectation {
  kr_severity sev;
  bool unknown_loc;          /* @unknown */
  long line;                 /* the line the diagnostic is expected on */
  unsigned where_line, where_col;   /* where the expectation is written */
  char *text;                /* malloc'd message (or regex source, for -re) */
  bool is_regex;
  regex_t re;
  bool matched;
} expectation;

struct kr_diag_verifier {
  kr_context *ctx;
  const char *filename;
  kr_vec expected;           /* expectation */
  FILE *err;
  bool failed;
  kr_diag_handler prev_handler;
  void *prev_user;
};

static const char *sev_name(kr_severity s) {
  switch (s) {
  case KR_SEV_ERROR: return "error";
  case KR_SEV_WARNING: return "warning";
  case KR_SEV_REMARK: return "remark";
  case KR_SEV_NOTE: return "note";
  }
  return "error";
}

/* Writes `file:line:col: error: <message>` with the source line and caret, through the library's
 * formatter so that it looks like every other diagnostic. */
static void report(kr_diag_verifier *v, kr_attr loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(kr_diag_verifier *v, kr_attr loc, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = malloc(n > 0 ? (size_t)n + 1 : 1);
  if (!msg) {
    va_end(ap2);
    v->failed = true;
    return;
  }
  vsnprintf(msg, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  kr_diagnostic d;
  memset(&d, 0, sizeof d);
  d.ctx = v->ctx;
  d.severity = KR_SEV_ERROR;
  d.loc = loc ? loc : kr_loc_unknown(v->ctx);
  d.message = msg;
  kr_ostream os;
  kr_ostream_init_file(&os, v->err);
  kr_diag_print(&os, &d);
  kr_ostream_close(&os);
  free(msg);
  v->failed = true;
}

static kr_attr loc_at(kr_diag_verifier *v, unsigned line, unsigned col) {
  return kr_loc_file(v->ctx, v->filename, line, col);
}

/* Appends `s[0..n)` to `re` escaping every ERE metacharacter. */
static void append_literal(kr_vec *re, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (strchr(".[]()*+?{}|^$\\", s[i]) && s[i] != '\0') KR_VEC_PUSH(re, char, '\\');
    KR_VEC_PUSH(re, char, s[i]);
  }
}

/* Builds the POSIX ERE of an `-re` message: literal text with `{{regex}}` parts. */
static char *build_regex(const char *s, size_t n) {
  kr_vec re = {0};
  size_t i = 0;
  while (i < n) {
    const char *open = NULL;
    for (size_t j = i; j + 1 < n; j++)
      if (s[j] == '{' && s[j + 1] == '{') { open = s + j; break; }
    if (!open) {
      append_literal(&re, s + i, n - i);
      break;
    }
    append_literal(&re, s + i, (size_t)(open - (s + i)));
    size_t k = (size_t)(open - s) + 2;
    const char *close = NULL;
    for (size_t j = k; j + 1 < n; j++)
      if (s[j] == '}' && s[j + 1] == '}') { close = s + j; break; }
    if (!close) {   /* unbalanced: take the rest literally */
      append_literal(&re, open, n - (size_t)(open - s));
      break;
    }
    KR_VEC_PUSH(&re, char, '(');
    for (size_t j = k; j < (size_t)(close - s); j++) KR_VEC_PUSH(&re, char, s[j]);
    KR_VEC_PUSH(&re, char, ')');
    i = (size_t)(close - s) + 2;
  }
  KR_VEC_PUSH(&re, char, '\0');
  return re.data;
}

static bool starts_with(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* Parses the expectation starting at `p` (pointing at "expected-") on the line [.., eol).
 * Returns false (after reporting) when it is malformed; *found is false when the text after
 * "expected-" is not a severity (ordinary prose, ignored). */
static bool parse_expectation(kr_diag_verifier *v, const char *p, const char *eol, unsigned line, unsigned col,
                              bool *found) {
  static const struct { const char *name; kr_severity sev; } sevs[] = {
      {"error", KR_SEV_ERROR}, {"warning", KR_SEV_WARNING}, {"remark", KR_SEV_REMARK}, {"note", KR_SEV_NOTE}};
  *found = false;
  p += strlen("expected-");
  expectation e;
  memset(&e, 0, sizeof e);
  size_t i;
  for (i = 0; i < sizeof sevs / sizeof sevs[0]; i++)
    if (starts_with(p, eol, sevs[i].name)) break;
  if (i == sizeof sevs / sizeof sevs[0]) return true;
  p += strlen(sevs[i].name);
  e.sev = sevs[i].sev;
  if (starts_with(p, eol, "-re")) {
    e.is_regex = true;
    p += 3;
  }
  /* The severity must end the word: `expected-errors` is prose. */
  if (p < eol && *p != ' ' && *p != '\t' && *p != '@' && *p != '{') return true;
  *found = true;
  e.where_line = line;
  e.where_col = col;
  e.line = line;
  while (p < eol && (*p == ' ' || *p == '\t')) p++;
  if (p < eol && *p == '@') {
    p++;
    if (starts_with(p, eol, "above")) {
      e.line = (long)line - 1;
      p += 5;
    } else if (starts_with(p, eol, "below")) {
      e.line = (long)line + 1;
      p += 5;
    } else if (starts_with(p, eol, "unknown")) {
      e.unknown_loc = true;
      p += 7;
    } else if (p < eol && (*p == '+' || *p == '-')) {
      int sign = *p == '-' ? -1 : 1;
      p++;
      if (p >= eol || *p < '0' || *p > '9') {
        report(v, loc_at(v, line, col), "expected a line offset after '@%c' in expected-%s", sign < 0 ? '-' : '+',
               sev_name(e.sev));
        return false;
      }
      long n = 0;
      while (p < eol && *p >= '0' && *p <= '9' && n < 1000000) n = n * 10 + (*p++ - '0');
      e.line = (long)line + sign * n;
    } else {
      report(v, loc_at(v, line, col),
             "invalid designator in expected-%s: expected '@+N', '@-N', '@above', '@below' or '@unknown'",
             sev_name(e.sev));
      return false;
    }
    if (!e.unknown_loc && e.line < 1) {
      report(v, loc_at(v, line, col), "expected-%s refers to line %ld, before the start of the file",
             sev_name(e.sev), e.line);
      return false;
    }
  }
  while (p < eol && (*p == ' ' || *p == '\t')) p++;
  if (!starts_with(p, eol, "{{")) {
    report(v, loc_at(v, line, col), "expected '{{' with the message in expected-%s", sev_name(e.sev));
    return false;
  }
  const char *msg = p + 2;
  const char *close = NULL;
  for (const char *q = eol - 2; q >= msg; q--)
    if (q[0] == '}' && q[1] == '}') { close = q; break; }
  if (!close) {
    report(v, loc_at(v, line, col), "expected '}}' at the end of the message in expected-%s", sev_name(e.sev));
    return false;
  }
  size_t n = (size_t)(close - msg);
  if (e.is_regex) {
    e.text = build_regex(msg, n);
    int rc = e.text ? regcomp(&e.re, e.text, REG_EXTENDED | REG_NOSUB) : REG_ESPACE;
    if (rc != 0) {
      char buf[256];
      if (e.text) regerror(rc, &e.re, buf, sizeof buf);
      else snprintf(buf, sizeof buf, "out of memory");
      report(v, loc_at(v, line, col), "invalid regex in expected-%s-re: %s", sev_name(e.sev), buf);
      free(e.text);
      return false;
    }
  } else {
    e.text = malloc(n + 1);
    if (!e.text) return false;
    memcpy(e.text, msg, n);
    e.text[n] = '\0';
  }
  kr_vec_push(&v->expected, &e, sizeof e);
  return true;
}

static void scan(kr_diag_verifier *v, const char *buf, size_t len) {
  static const char key[] = "expected-";
  const size_t klen = sizeof key - 1;
  unsigned line = 1;
  size_t pos = 0;
  while (pos < len) {
    const char *bol = buf + pos;
    const char *nl = memchr(bol, '\n', len - pos);
    const char *eol = nl ? nl : buf + len;
    for (const char *p = bol; p + klen <= eol; p++) {
      if (*p != 'e' || memcmp(p, key, klen) != 0) continue;
      bool found;
      parse_expectation(v, p, eol, line, (unsigned)(p - bol) + 1, &found);
      if (found) break;   /* one expectation per line, as in MLIR */
    }
    pos = (size_t)(eol - buf) + 1;
    line++;
  }
}

static bool message_matches(const expectation *e, const char *msg) {
  if (e->is_regex) return regexec(&e->re, msg, 0, NULL, 0) == 0;
  return strstr(msg, e->text) != NULL;
}

/* Matches one diagnostic (not its notes); reports it when nothing expected it. */
static void process_one(kr_diag_verifier *v, const kr_diagnostic *d) {
  kr_attr floc = d->loc ? kr_loc_find_file(d->loc) : NULL;
  bool in_file = floc && strcmp(floc->u.loc.name, v->filename) == 0;
  const char *msg = d->message ? d->message : "";
  expectation *es = KR_VEC_DATA(&v->expected, expectation);
  for (size_t i = 0; i < v->expected.len; i++) {
    expectation *e = &es[i];
    if (e->matched || e->sev != d->severity) continue;
    if (floc ? (!in_file || e->unknown_loc || e->line != (long)floc->u.loc.line) : !e->unknown_loc) continue;
    if (!message_matches(e, msg)) continue;
    e->matched = true;
    return;
  }
  report(v, floc ? floc : d->loc, "unexpected %s: %s", sev_name(d->severity), msg);
}

static void handler(const kr_diagnostic *d, void *user) {
  kr_diag_verifier *v = user;
  process_one(v, d);
  for (const kr_diagnostic *n = d->notes; n; n = n->next) process_one(v, n);
}

kr_diag_verifier *kr_diag_verifier_create(kr_context *ctx, const char *filename, const char *buf, size_t len,
                                          FILE *err) {
  kr_diag_verifier *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->ctx = ctx;
  v->filename = filename;
  v->err = err ? err : stderr;
  kr_context_get_diag_handler(ctx, &v->prev_handler, &v->prev_user);
  scan(v, buf, len);
  kr_context_set_diag_handler(ctx, handler, v);
  return v;
}

kr_status kr_diag_verifier_finish(kr_diag_verifier *v) {
  expectation *es = KR_VEC_DATA(&v->expected, expectation);
  for (size_t i = 0; i < v->expected.len; i++) {
    expectation *e = &es[i];
    if (e->matched) continue;
    /* Point at the expectation itself: that is the line the test author has to look at. */
    if (e->is_regex)
      report(v, loc_at(v, e->where_line, e->where_col), "expected %s matching regex \"%s\" was not produced",
             sev_name(e->sev), e->text);
    else
      report(v, loc_at(v, e->where_line, e->where_col), "expected %s \"%s\" was not produced", sev_name(e->sev),
             e->text);
  }
  return v->failed ? KR_FAILURE : KR_SUCCESS;
}

void kr_diag_verifier_destroy(kr_diag_verifier *v) {
  if (!v) return;
  kr_context_set_diag_handler(v->ctx, v->prev_handler, v->prev_user);
  expectation *es = KR_VEC_DATA(&v->expected, expectation);
  for (size_t i = 0; i < v->expected.len; i++) {
    if (es[i].is_regex) regfree(&es[i].re);
    free(es[i].text);
  }
  kr_vec_free(&v->expected);
  free(v);
}
