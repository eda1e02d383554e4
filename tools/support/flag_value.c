/* tools/support/flag_value.c - `--flag VALUE` / `--flag=VALUE` (flag_value.h). */
#include "support/flag_value.h"

#include <string.h>

bool kr_tool_flag_value(int argc, char **argv, int *i, const char *flag, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(flag);
  if (strncmp(a, flag, n) || (a[n] && a[n] != '=')) return false;
  if (a[n] == '=')
    *value = a + n + 1;
  else
    *value = *i + 1 < argc ? argv[++*i] : NULL;
  return true;
}
