/* test/install/consumer_codegen.c - a program built against the installed korch::codegen
 * (find_package(korch COMPONENTS codegen)) or korch-codegen.pc (test/install/test-install.cmake):
 * parses a scheduled kernel and prints its PTX (LLVM's NVPTX backend, linked through the
 * installed package's LLVM dependency). */
#include <korch/korch.h>
#include <korch/nvptx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  static const char src[] =
      "kernel.func @copy(%arg0: !kernel.buffer<global, 64xf32>, %arg1: !kernel.buffer<global, 64xf32>) attributes "
      "{korch.block = array<i64: 64, 1, 1>, korch.grid = array<i64: 1, 1, 1>, korch.template = \"test\"} {\n"
      "  %t = kernel.thread_id x\n"
      "  %v = kernel.load %arg0[%t] : !kernel.buffer<global, 64xf32> -> f32\n"
      "  kernel.store %v, %arg1[%t] : f32, !kernel.buffer<global, 64xf32>\n"
      "  kernel.return\n"
      "}\n";
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, NULL);
  if (KR_FAILED(kr_register_core_dialects(ctx))) return 1;
  kr_op *module = kr_parse_source(ctx, "consumer.kir", src, strlen(src), true);
  if (!module) return 1;
  kr_ostream os;
  kr_ostream_init_file(&os, stdout);
  kr_nvptx_options o = kr_nvptx_default_options();
  o.gpu_arch = "sm_80";
  kr_status st = kr_nvptx_emit_ptx(module, &o, &os);
  bool ok = kr_ostream_close(&os);
  kr_context_destroy(ctx);
  return !KR_FAILED(st) && ok ? 0 : 1;
}
