/* backend/target/xml.h - libxml2 parsing shared by the target loader (target.c) and the profile
 * database (profile_db.c).  Private to backend/target/.
 *
 * libxml2 never prints: while a document is parsed, a structured error handler (thread-local in
 * libxml2) records the first error, which becomes one korch diagnostic "file:line: message". */
#ifndef KORCH_BACKEND_TARGET_XML_H
#define KORCH_BACKEND_TARGET_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "korch/diag.h"

/* Parses `len` bytes at `buf` named `url` (used in messages), or, when buf is NULL, the open
 * file descriptor `fd` (not closed) read as `url`.  Options: XML_PARSE_NONET (no network; no
 * external entity or DTD is loaded either, and entities are not substituted) and
 * XML_PARSE_BIG_LINES (exact line numbers past 65535).  Returns the document (free with
 * xmlFreeDoc) or NULL after an error "url:line: <libxml2's message>" at `loc`. */
xmlDocPtr kr_xml_parse(kr_context *ctx, kr_attr loc, const char *url, const char *buf, size_t len, int fd);

/* The next element sibling from `n` on (n itself if it is one), skipping comments, processing
 * instructions and whitespace-only text.  Other text is an error "url:line: unexpected text"
 * at `loc`: *ok is set to false and NULL returned. */
xmlNodePtr kr_xml_next_element(kr_context *ctx, kr_attr loc, const char *url, xmlNodePtr n, bool *ok);

/* The line of node `n` (exact past 65535, unlike xmlGetLineNo on elements in libxml2 2.9). */
long kr_xml_line(const xmlNode *n);

/* Trimmed copies of text, malloc'd (NULL when out of memory). */
char *kr_xml_trim_dup(const char *s);

/* Strict number syntax: the whole of `s` (surrounding blanks allowed) is one decimal integer /
 * one finite floating-point number.  Return false otherwise (or on overflow). */
bool kr_xml_parse_i64(const char *s, int64_t *out);
bool kr_xml_parse_f64(const char *s, double *out);

#endif
