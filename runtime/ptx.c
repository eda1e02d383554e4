/* runtime/ptx.c - the `.entry` directives of a PTX module, for korch-run --dry-run (and the
 * fake driver's idea of which kernels a module holds).
 *
 * PTX ISA 8.x, section "Kernel and Function Directives": `[.visible|.extern|.weak] .entry NAME
 * [( .param TYPE [.ptr ...] [.align N] PNAME[, ...] )] [performance directives] { body }`.
 * Performance-tuning directives `.maxntid x[,y[,z]]` and `.reqntid x[,y[,z]]` between the
 * parameter list and the body bound the threads per block of any launch.  Only the parts
 * needed are read; the body is skipped. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%'; }

/* A copy of the text with comments blanked (newlines kept, so line numbers stay right). */
static char *strip_comments(const char *text) {
  size_t n = strlen(text);
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, text, n + 1);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') { /* strings (file names in .file) */
      for (i++; i < n && s[i] != '"' && s[i] != '\n'; i++) {}
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      for (; i < n && s[i] != '\n'; i++) s[i] = ' ';
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      for (; i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'); i++)
        if (s[i] != '\n') s[i] = ' ';
      if (i < n) s[i] = s[i + 1] = ' ', i++;
    }
  }
  return s;
}

static int line_at(const char *start, const char *p) {
  int line = 1;
  for (; start < p; start++) line += *start == '\n';
  return line;
}

static const char *ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* Product of `x[,y[,z]]` after a .maxntid/.reqntid directive. */
static unsigned long long thread_bound(const char *p) {
  unsigned long long prod = 1;
  for (int i = 0; i < 3; i++) {
    p = ws(p);
    if (!isdigit((unsigned char)*p)) break;
    prod *= strtoull(p, (char **)&p, 10);
    p = ws(p);
    if (*p != ',') break;
    p++;
  }
  return prod;
}

kr_rt_status kr_rt_ptx_entries(const char *text, const char *path, kr_rt_ptx_entry **entries, unsigned *count,
                               kr_rt_error *err) {
  *entries = NULL;
  *count = 0;
  char *s = strip_comments(text);
  if (!s) return kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", path);
  unsigned cap = 0;
  kr_rt_status st = KR_RT_OK;
  for (const char *p = s; (p = strstr(p, ".entry")) != NULL;) {
    bool word = (p == s || !ident_char(p[-1]) ) && !ident_char(p[6]) && (p == s || p[-1] != '.');
    if (!word) {
      p += 6;
      continue;
    }
    int line = line_at(s, p);
    const char *q = ws(p + 6);
    const char *name = q;
    while (ident_char(*q)) q++;
    if (q == name || (size_t)(q - name) >= sizeof((kr_rt_ptx_entry *)0)->name) {
      st = kr_rt_fail(err, KR_RT_ERROR, "%s:%d: .entry without a valid name", path, line);
      break;
    }
    if (*count == cap) {
      cap = cap ? cap * 2 : 16;
      kr_rt_ptx_entry *grown = realloc(*entries, cap * sizeof **entries);
      if (!grown) {
        st = kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", path);
        break;
      }
      *entries = grown;
    }
    kr_rt_ptx_entry *e = &(*entries)[(*count)++];
    memset(e, 0, sizeof *e);
    memcpy(e->name, name, (size_t)(q - name));
    e->line = line;
    e->all_u64 = true;
    q = ws(q);
    if (*q == '(') {
      q = ws(q + 1);
      while (*q && *q != ')') {
        /* One parameter: `.param .TYPE [qualifiers] NAME[array]`, up to ',' or ')'. */
        const char *end = q;
        while (*end && *end != ',' && *end != ')') end++;
        if (strncmp(q, ".param", 6) != 0 || !isspace((unsigned char)q[6])) {
          st = kr_rt_fail(err, KR_RT_ERROR, "%s:%d: .entry %s: a parameter does not start with .param", path,
                          line_at(s, q), e->name);
          break;
        }
        const char *type = ws(q + 6);
        if (strncmp(type, ".u64", 4) != 0 || ident_char(type[4])) e->all_u64 = false;
        e->params++;
        q = *end == ',' ? ws(end + 1) : end;
      }
      if (st != KR_RT_OK) break;
      if (*q != ')') {
        st = kr_rt_fail(err, KR_RT_ERROR, "%s:%d: .entry %s: unterminated parameter list", path, line, e->name);
        break;
      }
      q++;
    }
    /* Performance directives up to the body. */
    const char *body = strchr(q, '{');
    for (const char *d = q; body && d < body; d++) {
      if (!strncmp(d, ".maxntid", 8) || !strncmp(d, ".reqntid", 8)) {
        unsigned long long b = thread_bound(d + 8);
        if (b && (!e->max_threads || b < e->max_threads)) e->max_threads = b;
      }
    }
    p = q;
  }
  free(s);
  if (st != KR_RT_OK) {
    free(*entries);
    *entries = NULL;
    *count = 0;
  }
  return st;
}
