/* tools/support/type_text.h - a type's text for the tools' messages. */
#ifndef KORCH_TOOLS_SUPPORT_TYPE_TEXT_H
#define KORCH_TOOLS_SUPPORT_TYPE_TEXT_H

#include "korch/ir.h"

/* The type as the printer writes it ("?" for NULL); malloc'd, the caller frees it; NULL only when
 * out of memory. */
char *kr_tool_type_text(kr_type t);

#endif
