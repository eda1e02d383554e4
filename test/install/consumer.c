/* test/install/consumer.c - a program built against the installed korch with pkg-config only
 * (test/install/test-install.cmake): parses, verifies and prints a function. */
#include <korch/korch.h>
#include <string.h>

int main(void) {
  static const char src[] = "func.func @main(%arg0: i32) -> i32 {\n  return %arg0 : i32\n}\n";
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, NULL);
  if (KR_FAILED(kr_register_core_dialects(ctx))) return 1;
  kr_op *module = kr_parse_source(ctx, "consumer.kir", src, strlen(src), true);
  if (!module) return 1;
  kr_ostream os;
  kr_ostream_init_file(&os, stdout);
  kr_print_flags flags = {0};
  kr_op_print(module, &os, &flags);
  bool ok = kr_ostream_close(&os);
  kr_context_destroy(ctx);
  return ok ? 0 : 1;
}
