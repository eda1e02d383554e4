/* tools/support/input_shape.h - the --input-shape NAME=DIMS option of korch-translate
 * --import-onnx and korch-compile (one syntax, one set of messages). */
#ifndef KORCH_TOOLS_SUPPORT_INPUT_SHAPE_H
#define KORCH_TOOLS_SUPPORT_INPUT_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "korch/onnx.h"

/* Parses `arg`, "NAME=DIMS" with DIMS "1x3x224x224" (decimal, non-negative, 1 to KR_OP_MAX_RANK
 * of them) or "scalar" (rank 0); NAME is everything before the last '='.  A NAME already among
 * have[0..n) is an error.  Returns true with *out filled (name and dims malloc'd, the caller
 * frees both), or false with the usage message (without the tool's name) in msg[0..size) and
 * nothing allocated. */
bool kr_tool_parse_input_shape(const char *arg, const kr_onnx_input_shape *have, size_t n, kr_onnx_input_shape *out,
                               char *msg, size_t size);

#endif
