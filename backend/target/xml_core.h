/* backend/target/xml_core.h - the context-free core of the libxml2 helpers: strict parsing with
 * errors as strings, element walking, exact line numbers and strict number syntax.  Needs only
 * libc and libxml2 (no korch context, no korch header), so that the runtime compiles it too
 * (korch-run --profile reads the profile database through backend/target/profile_db_file.c,
 * runtime/CMakeLists.txt).  backend/target/xml.h wraps it for libkorch (errors as diagnostics).
 *
 * libxml2 never prints: while a document is parsed, a structured error handler (thread-local in
 * libxml2) records the first error, which becomes the message "file:line: message". */
#ifndef KORCH_BACKEND_TARGET_XML_CORE_H
#define KORCH_BACKEND_TARGET_XML_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

/* Parses `len` bytes at `buf` named `url` (used in messages), or, when buf is NULL, the open
 * file descriptor `fd` (not closed) read as `url`.  Options: XML_PARSE_NONET (no network; no
 * external entity or DTD is loaded either, and entities are not substituted) and
 * XML_PARSE_BIG_LINES (exact line numbers past 65535).  Returns the document (free with
 * xmlFreeDoc), or NULL with "url:line: <libxml2's message>" written to msg[0..size) (truncated
 * to fit). */
xmlDocPtr kr_xml_read(const char *url, const char *buf, size_t len, int fd, char *msg, size_t size);

/* The next element sibling from `n` on (n itself if it is one), skipping comments, processing
 * instructions and whitespace-only text.  Other text is an error: "url:line: unexpected text
 * '...'" written to msg[0..size), *ok set to false and NULL returned. */
xmlNodePtr kr_xml_next_element_msg(const char *url, xmlNodePtr n, bool *ok, char *msg, size_t size);

/* The line of node `n` (exact past 65535, unlike xmlGetLineNo on elements in libxml2 2.9). */
long kr_xml_line(const xmlNode *n);

/* Trimmed copies of text, malloc'd (NULL when out of memory). */
char *kr_xml_trim_dup(const char *s);

/* Strict number syntax: the whole of `s` (surrounding blanks allowed) is one decimal integer /
 * one finite decimal floating-point number (no "inf", "nan" or hexadecimal).  Return false
 * otherwise, on overflow, or when s is NULL. */
bool kr_xml_parse_i64(const char *s, int64_t *out);
bool kr_xml_parse_f64(const char *s, double *out);

#endif
