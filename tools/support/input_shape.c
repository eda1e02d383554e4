/* tools/support/input_shape.c - --input-shape NAME=DIMS (input_shape.h). */
#include "support/input_shape.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/op.h"

/* "1x3x224x224" / "scalar" into out->dims (malloc'd) and out->rank. */
static bool parse_dims(const char *s, kr_onnx_input_shape *out) {
  int64_t *d = calloc(KR_OP_MAX_RANK, sizeof *d);
  unsigned rank = 0;
  if (!d) return false;
  if (!strcmp(s, "scalar")) {
    out->dims = d;
    out->rank = 0;
    return true;
  }
  while (*s) {
    if (rank == KR_OP_MAX_RANK || *s < '0' || *s > '9') goto fail;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || v < 0) goto fail;
    d[rank++] = v;
    s = end;
    if (*s == 'x') {
      if (!*++s) goto fail;
    } else if (*s) {
      goto fail;
    }
  }
  if (!rank) goto fail;
  out->dims = d;
  out->rank = rank;
  return true;
fail:
  free(d);
  return false;
}

bool kr_tool_parse_input_shape(const char *arg, const kr_onnx_input_shape *have, size_t n, kr_onnx_input_shape *out,
                               char *msg, size_t size) {
  const char *eq = strrchr(arg, '=');
  kr_onnx_input_shape s = {0};
  if (!eq || eq == arg || !parse_dims(eq + 1, &s)) {
    snprintf(msg, size, "--input-shape expects NAME=DIMS such as x=1x3x224x224, got '%s'", arg);
    return false;
  }
  size_t len = (size_t)(eq - arg);
  for (size_t k = 0; k < n; k++)
    if (strlen(have[k].name) == len && !strncmp(have[k].name, arg, len)) {
      snprintf(msg, size, "--input-shape %.*s: given twice", (int)len, arg);
      free((void *)s.dims);
      return false;
    }
  s.name = strndup(arg, len);
  if (!s.name) {
    snprintf(msg, size, "out of memory");
    free((void *)s.dims);
    return false;
  }
  *out = s;
  return true;
}
