/* test/fuzz/parse_fuzz.c - libFuzzer target for the .kir parser and printer.
 *
 * Input: one flag byte, then .kir text.  Flag bits: 0 allow unregistered dialects, 1 print in
 * generic form, 2 print locations (debuginfo).  Properties checked (abort() = a finding):
 *   - parsing (with verification) never crashes, leaks or trips a sanitizer, whatever the input;
 *   - whatever parses and verifies prints to text that parses and verifies again (round trip);
 *   - printing that re-parsed IR gives the same text again (print∘parse is a fixed point).
 * Set KORCH_FUZZ_NO_FIXPOINT=1 to check only the first two.  Diagnostics are dropped, except
 * those of a failing re-parse, which are printed with the text before aborting. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "test_dialect.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_fixpoint = 1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *e = getenv("KORCH_FUZZ_NO_FIXPOINT");
  if (e && *e && strcmp(e, "0") != 0) check_fixpoint = 0;
  return 0;
}

static kr_context *new_context(int allow_unregistered) {
  kr_context *ctx = kr_context_create();
  kr_context_set_allow_unregistered(ctx, allow_unregistered);
  if (KR_FAILED(kr_register_core_dialects(ctx)) || KR_FAILED(kr_register_test_dialect(ctx))) {
    fprintf(stderr, "parse_fuzz: dialect registration failed\n");
    abort();
  }
  return ctx;
}

static char *print_op(kr_op *op, const kr_print_flags *flags, size_t *len) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_op_print(op, &os, flags);
  const char *s = kr_ostream_str(&os);
  *len = os.len;
  char *copy = malloc(os.len + 1);
  if (!copy) abort();
  memcpy(copy, s, os.len + 1);
  kr_ostream_close(&os);
  return copy;
}

static void die(const char *what, const uint8_t *in, size_t in_len, const char *text, size_t len,
                const char *text2, size_t len2) {
  fprintf(stderr, "parse_fuzz: %s\n--- input (%zu bytes) ---\n", what, in_len);
  fwrite(in, 1, in_len, stderr);
  fprintf(stderr, "\n--- printed ---\n");
  fwrite(text, 1, len, stderr);
  if (text2) {
    fprintf(stderr, "\n--- printed again ---\n");
    fwrite(text2, 1, len2, stderr);
  }
  fprintf(stderr, "\n---\n");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  unsigned flags_byte = data[0];
  const char *src = (const char *)data + 1;
  size_t len = size - 1;
  int allow = flags_byte & 1;
  kr_print_flags pflags = {.generic = (flags_byte & 2) != 0, .debuginfo = (flags_byte & 4) != 0, .hex_threshold = 0};

  kr_context *ctx = new_context(allow);
  kr_op *module = kr_parse_source(ctx, "fuzz.kir", src, len, true);
  if (!module) {
    kr_context_destroy(ctx);
    return 0;
  }
  size_t plen;
  char *printed = print_op(module, &pflags, &plen);
  kr_context_destroy(ctx);

  kr_context *ctx2 = new_context(allow);
  kr_context_add_source(ctx2, "reprint.kir", printed, plen);
  kr_context_set_diag_handler(ctx2, kr_diag_print_handler, stderr);
  kr_op *module2 = kr_parse_source(ctx2, "reprint.kir", printed, plen, true);
  if (!module2) die("the printed IR does not parse", data, size, printed, plen, NULL, 0);
  if (check_fixpoint) {
    size_t plen2;
    char *printed2 = print_op(module2, &pflags, &plen2);
    if (plen2 != plen || memcmp(printed, printed2, plen) != 0)
      die("print(parse(print(x))) != print(x)", data, size, printed, plen, printed2, plen2);
    free(printed2);
  }
  kr_context_destroy(ctx2);
  free(printed);
  return 0;
}
