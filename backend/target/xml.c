/* backend/target/xml.c - libxml2 parsing with errors as korch diagnostics (xml.h): thin
 * wrappers over the context-free core (xml_core.c). */
#include "backend/target/xml.h"

xmlDocPtr kr_xml_parse(kr_context *ctx, kr_attr loc, const char *url, const char *buf, size_t len, int fd) {
  char msg[1536];
  xmlDocPtr doc = kr_xml_read(url, buf, len, fd, msg, sizeof msg);
  if (doc == NULL) kr_emit_error(ctx, loc, "%s", msg);
  return doc;
}

xmlNodePtr kr_xml_next_element(kr_context *ctx, kr_attr loc, const char *url, xmlNodePtr n, bool *ok) {
  char msg[1536];
  xmlNodePtr e = kr_xml_next_element_msg(url, n, ok, msg, sizeof msg);
  if (!*ok) kr_emit_error(ctx, loc, "%s", msg);
  return e;
}
