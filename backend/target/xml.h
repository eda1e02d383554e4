/* backend/target/xml.h - libxml2 parsing shared by the target loader (target.c) and the profile
 * database (profile_db.c).  Private to backend/target/.
 *
 * The context-free core is xml_core.h (also used by profile_db_file.c, which the runtime
 * compiles); these wrappers turn its error messages into one korch diagnostic each. */
#ifndef KORCH_BACKEND_TARGET_XML_H
#define KORCH_BACKEND_TARGET_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "backend/target/xml_core.h"
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

/* kr_xml_line, kr_xml_trim_dup, kr_xml_parse_i64/f64: xml_core.h (included above). */

#endif
