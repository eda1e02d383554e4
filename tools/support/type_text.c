/* tools/support/type_text.c - a type's text for the tools' messages. */
#include "support/type_text.h"

#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/ostream.h"

char *kr_tool_type_text(kr_type t) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  if (t)
    kr_type_print(&os, t);
  else
    kr_ostream_puts(&os, "?");
  char *s = strdup(kr_ostream_str(&os));
  kr_ostream_close(&os);
  return s;
}
