/* tools/support/flag_value.h - `--flag VALUE` / `--flag=VALUE` for the command-line programs that
 * parse their arguments by hand (korch-translate, the conformance driver, the benchmarks). */
#ifndef KORCH_TOOLS_SUPPORT_FLAG_VALUE_H
#define KORCH_TOOLS_SUPPORT_FLAG_VALUE_H

#include <stdbool.h>

/* Whether argv[*i] is `flag`, alone or as `flag=VALUE`.  Then *value is VALUE: the text after
 * '=', else argv[*i + 1] (and *i moves past it), or NULL when `flag` is the last argument.
 * `--flagX` is not `--flag`.  The value points into argv. */
bool kr_tool_flag_value(int argc, char **argv, int *i, const char *flag, const char **value);

#endif
