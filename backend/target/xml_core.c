/* backend/target/xml_core.c - the context-free libxml2 helpers (xml_core.h), shared by the
 * target loader (xml.c wraps them into diagnostics) and the profile database's format core
 * (profile_db_file.c, compiled into the runtime too): libc and libxml2 only. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include "backend/target/xml_core.h"

/* The first error libxml2 reports while one document is parsed. */
typedef struct xml_err {
  bool set;
  int line;
  char file[512];
  char message[512];
} xml_err;

/* libxml2 2.12 made the handler's error pointer const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *kr_xml_error_ptr;
#else
typedef xmlErrorPtr kr_xml_error_ptr;
#endif

static void on_structured_error(void *user, kr_xml_error_ptr e) {
  xml_err *err = user;
  if (err->set || e == NULL || e->level < XML_ERR_ERROR) return;
  err->set = true;
  err->line = e->line;
  snprintf(err->file, sizeof err->file, "%s", e->file ? e->file : "");
  snprintf(err->message, sizeof err->message, "%s", e->message ? e->message : "malformed XML");
  size_t n = strlen(err->message);
  while (n > 0 && isspace((unsigned char)err->message[n - 1])) err->message[--n] = 0;
}

/* Generic (unstructured) messages are dropped: with a structured handler installed libxml2 does
 * not use them, this is belt and braces so that nothing reaches stderr. */
static void on_generic_error(void *user, const char *msg, ...) {
  (void)user;
  (void)msg;
}

xmlDocPtr kr_xml_read(const char *url, const char *buf, size_t len, int fd, char *msg, size_t size) {
  xmlInitParser();
  xml_err err = {0};
  /* Save and restore the (thread-local) handlers so that a host application's are kept. */
  xmlStructuredErrorFunc old_serror = xmlStructuredError;
  void *old_sctx = xmlStructuredErrorContext;
  xmlGenericErrorFunc old_generic = xmlGenericError;
  void *old_gctx = xmlGenericErrorContext;
  xmlSetStructuredErrorFunc(&err, on_structured_error);
  xmlSetGenericErrorFunc(NULL, on_generic_error);
  /* BIG_LINES: line numbers past 65535 (a large profile database) are reported exactly. */
  const int options = XML_PARSE_NONET | XML_PARSE_BIG_LINES;
  xmlDocPtr doc;
  if (buf) {
    doc = len > (size_t)INT32_MAX ? NULL : xmlReadMemory(buf, (int)len, url, NULL, options);
  } else {
    doc = xmlReadFd(fd, url, NULL, options);
  }
  xmlSetStructuredErrorFunc(old_sctx, old_serror);
  xmlSetGenericErrorFunc(old_gctx, old_generic);
  if (doc && err.set) { /* recovered from an error: still an error here */
    xmlFreeDoc(doc);
    doc = NULL;
  }
  if (doc == NULL) {
    if (err.set)
      snprintf(msg, size, "%s:%d: %s", err.file[0] ? err.file : url, err.line, err.message);
    else
      snprintf(msg, size, "%s: cannot parse the XML document", url);
    return NULL;
  }
  if (xmlDocGetRootElement(doc) == NULL) {
    snprintf(msg, size, "%s:1: the document has no root element", url);
    xmlFreeDoc(doc);
    return NULL;
  }
  return doc;
}

long kr_xml_line(const xmlNode *n) {
  /* libxml2 stores a node's line in a 16-bit field.  With XML_PARSE_BIG_LINES a line past 65535
   * is kept in `psvi`: for text nodes in 2.9 (their line is where the text ends, i.e. just
   * before the next tag), for elements too in later versions; xmlGetLineNo of such an element
   * answers the line of a *following* node.  So: the element's own psvi, else the preceding
   * text node's. */
  if (n->type == XML_ELEMENT_NODE && n->line == 65535) {
    if (n->psvi != NULL) return (long)(ptrdiff_t)n->psvi;
    const xmlNode *p = n->prev;
    if (p && p->type == XML_TEXT_NODE && p->line == 65535 && p->psvi != NULL) return (long)(ptrdiff_t)p->psvi;
  }
  return xmlGetLineNo(n);
}

static bool all_blank(const xmlChar *s) {
  for (; s && *s; s++)
    if (!isspace(*s)) return false;
  return true;
}

xmlNodePtr kr_xml_next_element_msg(const char *url, xmlNodePtr n, bool *ok, char *msg, size_t size) {
  *ok = true;
  for (; n; n = n->next) {
    if (n->type == XML_ELEMENT_NODE) return n;
    if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && !all_blank(n->content)) {
      snprintf(msg, size, "%s:%ld: unexpected text '%.40s'", url, kr_xml_line(n), (const char *)n->content);
      *ok = false;
      return NULL;
    }
  }
  return NULL;
}

char *kr_xml_trim_dup(const char *s) {
  if (s == NULL) s = "";
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = 0;
  }
  return r;
}

static bool rest_blank(const char *end) {
  while (isspace((unsigned char)*end)) end++;
  return *end == 0;
}

bool kr_xml_parse_i64(const char *s, int64_t *out) {
  if (s == NULL) return false;
  while (isspace((unsigned char)*s)) s++;
  if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))) return false;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno == ERANGE || !rest_blank(end)) return false;
  *out = (int64_t)v;
  return true;
}

bool kr_xml_parse_f64(const char *s, double *out) {
  if (s == NULL) return false;
  while (isspace((unsigned char)*s)) s++;
  /* Decimal numbers only: no "inf", "nan" or hexadecimal floats. */
  const char *p = s;
  if (*p == '-' || *p == '+') p++;
  if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))) return false;
  for (const char *q = p; *q && !isspace((unsigned char)*q); q++)
    if (*q == 'x' || *q == 'X') return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno == ERANGE || !rest_blank(end) || !isfinite(v)) return false;
  *out = v;
  return true;
}
