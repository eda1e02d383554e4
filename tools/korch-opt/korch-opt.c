/* tools/korch-opt/korch-opt.c - the modular optimizer driver (mlir-opt's counterpart).
 *
 *   korch-opt [options] [file|-] [-o out]
 *
 * Reads .kir, runs a pass pipeline, prints the result.  Every input chunk (the whole file, or each
 * `// -----` chunk with --split-input-file) gets a fresh context with the core dialects, the test
 * dialect, the core passes and the plugins, so chunks cannot affect one another.  The tool decides
 * the exit status; the library only reports diagnostics.
 *
 * --verify-numerics clones each chunk's module before the pipeline and, after a successful
 * pipeline, compares the two with the reference interpreter (support/numerics.h); a mismatch or
 * a module that cannot be interpreted fails the chunk like a failing pass: its IR is not printed
 * and -o is not written. */
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "options.h"
#include "support/file_io.h"
#include "support/numerics.h"
#include "support/split_input.h"
#include "support/verify_diagnostics.h"
#include "test_dialect.h"
#include "test_passes.h"

static const char *const TOOL = "korch-opt";

/* A context ready for parsing: dialects, passes, plugins, the stderr diagnostic printer.  The test
 * dialect and test passes are always there, as in mlir-opt (they exist for the lit tests). */
static kr_context *make_context(const kr_opt_options *o) {
  kr_context *ctx = kr_context_create();
  kr_context_set_diag_handler(ctx, kr_diag_print_handler, stderr);
  kr_context_set_allow_unregistered(ctx, o->allow_unregistered);
  if (KR_FAILED(kr_register_core_dialects(ctx)) || KR_FAILED(kr_register_test_dialect(ctx)) ||
      KR_FAILED(kr_register_core_passes(ctx)) || KR_FAILED(kr_register_test_passes(ctx))) {
    kr_context_destroy(ctx);
    return NULL;
  }
  const char *const *plugins = KR_VEC_DATA(&o->plugins, const char *);
  for (size_t i = 0; i < o->plugins.len; i++) {
    if (KR_FAILED(kr_context_load_plugin(ctx, plugins[i]))) {
      kr_context_destroy(ctx);
      return NULL;
    }
  }
  return ctx;
}

/* Builds the pipeline of `o` in `ctx`: --pass-pipeline, or the pass flags in order. */
static kr_pass_manager *make_pass_manager(kr_context *ctx, const kr_opt_options *o) {
  kr_pass_manager *pm = kr_pass_manager_create(ctx, KR_MODULE_OP);
  if (o->pass_pipeline) {
    if (KR_FAILED(kr_pass_manager_parse_pipeline(pm, o->pass_pipeline))) goto fail;
  } else {
    const kr_opt_pass_flag *f = KR_VEC_DATA(&o->pass_flags, kr_opt_pass_flag);
    for (size_t i = 0; i < o->pass_flags.len; i++)
      if (KR_FAILED(kr_pass_manager_add_pass(pm, f[i].name, f[i].options))) goto fail;
  }
  kr_pass_manager_set_verify_each(pm, o->verify_each);
  kr_pass_manager_set_print_flags(pm, o->print_op_generic, o->print_debuginfo);
  return pm;
fail:
  kr_pass_manager_destroy(pm);
  return NULL;
}

/* Checks the command line against the registry of a fully set-up context: every pass flag names
 * a registered pass, and the pipeline parses.  Reports and returns KR_FAILURE otherwise. */
static kr_status check_pipeline(kr_context *ctx, const kr_opt_options *o) {
  const kr_opt_pass_flag *f = KR_VEC_DATA(&o->pass_flags, kr_opt_pass_flag);
  for (size_t i = 0; i < o->pass_flags.len; i++) {
    if (!kr_context_lookup_pass(ctx, f[i].name, strlen(f[i].name))) {
      fprintf(stderr, "%s: unknown command line argument '%s'.  Try: '%s --help'\n", TOOL, f[i].spelling, TOOL);
      return KR_FAILURE;
    }
  }
  const char *const *after = KR_VEC_DATA(&o->print_ir_after, const char *);
  for (size_t i = 0; i < o->print_ir_after.len; i++) {
    if (!kr_context_lookup_pass(ctx, after[i], strlen(after[i]))) {
      fprintf(stderr, "%s: --print-ir-after: '%s' does not refer to a registered pass\n", TOOL, after[i]);
      return KR_FAILURE;
    }
  }
  if (o->pass_pipeline && o->pass_flags.len) {
    fprintf(stderr, "%s: '--pass-pipeline' cannot be combined with individual pass flags ('%s')\n", TOOL,
            f[0].spelling);
    return KR_FAILURE;
  }
  kr_pass_manager *pm = make_pass_manager(ctx, o);
  if (!pm) return KR_FAILURE;
  if (o->dump_pass_pipeline) {
    kr_ostream os;
    kr_ostream_init_file(&os, stderr);
    kr_pass_manager_print_pipeline(pm, &os);
    kr_ostream_putc(&os, '\n');
    kr_ostream_close(&os);
  }
  kr_pass_manager_destroy(pm);
  return KR_SUCCESS;
}

/* --verify-numerics: compares `before` (the clone taken before the pipeline) with `after`.  The
 * findings are diagnostics (reported by the helper); returns whether the numerics agree. */
static bool check_numerics(const kr_opt_options *o, kr_op *before, kr_op *after) {
  kr_numerics_options no;
  kr_numerics_options_init(&no);
  no.rtol = o->numerics_rtol;
  no.atol = o->numerics_atol;
  no.seed = o->numerics_seed;
  no.trials = o->numerics_trials;
  kr_numerics_result r;
  if (KR_FAILED(kr_numerics_compare_modules(before, after, &no, &r))) return false;
  if (!r.mismatch && !r.functions)
    kr_op_emit_warning(after, "--verify-numerics: no function with a body to compare");
  return !r.mismatch;
}

/* Parses, transforms and prints one chunk (`text` is NUL-terminated and already registered
 * nowhere).  Appends the printed IR to `result` on success.  Returns whether the chunk passed:
 * processing succeeded, or, with --verify-diagnostics, the diagnostics were exactly those
 * expected. */
static bool process_chunk(const kr_opt_options *o, const char *filename, const char *text, size_t len,
                          kr_ostream *result) {
  kr_context *ctx = make_context(o);
  if (!ctx) return false;
  kr_context_add_source(ctx, filename, text, len);
  kr_diag_verifier *verifier = NULL;
  if (o->verify_diagnostics) {
    verifier = kr_diag_verifier_create(ctx, filename, text, len, stderr);
    if (!verifier) {
      fprintf(stderr, "%s: out of memory\n", TOOL);
      kr_context_destroy(ctx);
      return false;
    }
  }

  kr_ostream err;
  kr_ostream_init_file(&err, stderr);
  bool ok = false;
  kr_pass_manager *pm = NULL;
  kr_op *module = kr_parse_source(ctx, filename, text, len, true);
  kr_op *before = module && o->verify_numerics ? kr_op_clone(module, NULL) : NULL;
  if (module) pm = make_pass_manager(ctx, o);
  if (pm) {
    if (o->print_ir_after_all) kr_pass_manager_set_ir_printing(pm, KR_PRINT_IR_AFTER_ALL, &err);
    else if (o->print_ir_after_change) kr_pass_manager_set_ir_printing(pm, KR_PRINT_IR_AFTER_CHANGE, &err);
    else if (o->print_ir_after.len) kr_pass_manager_set_ir_printing(pm, KR_PRINT_IR_NONE, &err);
    const char *const *names = KR_VEC_DATA(&o->print_ir_after, const char *);
    for (size_t i = 0; i < o->print_ir_after.len; i++) kr_pass_manager_add_print_ir_after(pm, names[i]);
    if (o->timing) kr_pass_manager_enable_timing(pm, &err);
    ok = kr_pass_manager_run(pm, module) == KR_SUCCESS;
    kr_pass_manager_destroy(pm);
    if (ok && before) ok = check_numerics(o, before, module);
  }
  if (before) kr_op_erase(before);
  kr_ostream_flush(&err);
  if (ok) {
    kr_print_flags flags = {.generic = o->print_op_generic, .debuginfo = o->print_debuginfo, .hex_threshold = 0};
    size_t before = result->len;
    kr_op_print(module, result, &flags);
    if (result->len == before || kr_ostream_str(result)[result->len - 1] != '\n') kr_ostream_putc(result, '\n');
    /* mlir-opt ends every printed chunk with an empty line; do the same, so outputs compare. */
    kr_ostream_putc(result, '\n');
  }
  bool passed = ok;
  if (verifier) {
    passed = kr_diag_verifier_finish(verifier) == KR_SUCCESS;
    kr_diag_verifier_destroy(verifier);
  }
  kr_ostream_close(&err);
  kr_context_destroy(ctx);
  return passed;
}

int main(int argc, char **argv) {
  kr_opt_options o;
  if (KR_FAILED(kr_opt_parse_args(&o, argc, argv))) {
    kr_opt_options_free(&o);
    return 1;
  }
  if (o.version) {
    printf("korch-opt version %s\n", KORCH_VERSION);
    kr_opt_options_free(&o);
    return 0;
  }
  /* One context that is never given IR: it answers --help and validates the pipeline once, before
   * any input is read, so a typo in a flag gives one error instead of one per chunk. */
  kr_context *probe = make_context(&o);
  if (!probe) {
    kr_opt_options_free(&o);
    return 1;
  }
  if (o.help) {
    kr_opt_print_help(stdout, probe);
    kr_context_destroy(probe);
    kr_opt_options_free(&o);
    return 0;
  }
  kr_status st = check_pipeline(probe, &o);
  kr_context_destroy(probe);
  if (KR_FAILED(st)) {
    kr_opt_options_free(&o);
    return 1;
  }

  size_t len;
  char *buf = kr_tool_read_file(TOOL, o.input, &len);
  if (!buf) {
    kr_opt_options_free(&o);
    return 1;
  }
  const char *filename = strcmp(o.input, "-") == 0 ? "<stdin>" : o.input;

  kr_ostream result;
  kr_ostream_init_mem(&result);
  bool ok = true;
  if (!o.split_input) {
    ok = process_chunk(&o, filename, buf, len, &result);
  } else {
    kr_vec chunks = {0};
    kr_tool_split_input(buf, len, o.split_marker, &chunks);
    const kr_tool_chunk *c = KR_VEC_DATA(&chunks, kr_tool_chunk);
    for (size_t i = 0; i < chunks.len; i++) {
      /* mlir-opt joins the chunks' outputs with the marker, so the output splits the same way. */
      if (i) {
        kr_ostream_puts(&result, o.split_marker);
        kr_ostream_puts(&result, "\n");
      }
      size_t tlen;
      char *text = kr_tool_chunk_text(buf, &c[i], &tlen);
      if (!text) {
        fprintf(stderr, "%s: out of memory\n", TOOL);
        ok = false;
        break;
      }
      if (!process_chunk(&o, filename, text, tlen, &result)) ok = false;
      free(text);
    }
    kr_vec_free(&chunks);
  }
  free(buf);

  /* The output file is only replaced when everything succeeded; on stdout the IR of the chunks that
   * worked is still printed (as mlir-opt does) since the tests FileCheck it. */
  int rc = ok ? 0 : 1;
  if (ok || !o.output || strcmp(o.output, "-") == 0) {
    kr_tool_output out;
    if (!kr_tool_output_open(&out, TOOL, o.output)) {
      rc = 1;
    } else {
      fwrite(kr_ostream_str(&result), 1, result.len, out.file);
      if (!kr_tool_output_commit(&out, TOOL)) rc = 1;
    }
  }
  kr_ostream_close(&result);
  kr_opt_options_free(&o);
  return rc;
}
