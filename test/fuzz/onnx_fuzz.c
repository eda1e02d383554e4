/* test/fuzz/onnx_fuzz.c - libFuzzer target for the ONNX importer (frontend/onnx).
 *
 * Input: the bytes of a .onnx file.  Property: importing never crashes, hangs, leaks or trips a
 * sanitizer; it returns a verified module or NULL after reporting diagnostics (the "a
 * truncated or corrupt file gives an error, never a crash").  The bytes are handed to the
 * importer as a file (an anonymous memfd, /proc/self/fd/N), exactly as korch-translate reads one. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "korch/korch.h"
#include "korch/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("onnx_fuzz", 0);
  if (fd < 0) abort();
  for (size_t off = 0; off < size;) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) abort();
    off += (size_t)w;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  kr_context *ctx = kr_context_create();
  if (KR_FAILED(kr_register_core_dialects(ctx))) abort();
  kr_op *module = kr_onnx_import_file(ctx, path, NULL);
  /* What imports must print (the printer walks every attribute and resource). */
  if (module) {
    kr_ostream os;
    kr_ostream_init_mem(&os);
    kr_op_print(module, &os, NULL);
    kr_ostream_close(&os);
  }
  char **names = NULL;
  unsigned n = 0;
  if (!kr_onnx_shape_inputs(ctx, path, &names, &n)) {
    for (unsigned i = 0; i < n; i++) free(names[i]);
    free(names);
  }
  kr_context_destroy(ctx);
  close(fd);
  return 0;
}
