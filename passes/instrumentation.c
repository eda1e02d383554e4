/* passes/instrumentation.c - what the pass manager does around each pass besides running it:
 * --print-ir-after-all / --print-ir-after-change / --print-ir-after=NAME (MLIR's IRPrinter
 * instrumentation, same headers) and --timing (MLIR's execution time report, tree display). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/context_impl.h"
#include "korch/asm.h"
#include "passes/pass_impl.h"

const char *kr__pass_display_name(const kr_pass_def *def) {
  return def->display_name ? def->display_name : def->argument;
}

double kr__now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------------------------------------
 * Fingerprints (MLIR's OperationFingerPrint): everything a pass can change is an identity in the
 * context (names, uniqued attributes, types, locations) or a pointer to an IR object, so hashing
 * those identities in walk order detects any change short of a hash collision. */

static uint64_t fp_op(kr_op *op, uint64_t h);

static uint64_t fp_region(kr_region *r, uint64_t h) {
  for (kr_block *b = r->first; b; b = b->next) {
    h = kr_hash_combine(h, kr_hash_ptr(b));
    h = kr_hash_combine(h, b->num_args);
    for (uint32_t i = 0; i < b->num_args; i++) {
      h = kr_hash_combine(h, kr_hash_ptr(b->args[i]));
      h = kr_hash_combine(h, kr_hash_ptr(b->args[i]->type));
      h = kr_hash_combine(h, kr_hash_ptr(b->args[i]->loc));
    }
    for (kr_op *o = b->first; o; o = o->next) h = fp_op(o, h);
  }
  return kr_hash_combine(h, 0x5eed);   /* end of region */
}

static uint64_t fp_op(kr_op *op, uint64_t h) {
  h = kr_hash_combine(h, kr_hash_ptr(op));
  h = kr_hash_combine(h, kr_hash_ptr(op->name));
  h = kr_hash_combine(h, kr_hash_ptr(op->attrs));
  h = kr_hash_combine(h, kr_hash_ptr(op->loc));
  h = kr_hash_combine(h, op->num_operands);
  for (uint32_t i = 0; i < op->num_operands; i++) h = kr_hash_combine(h, kr_hash_ptr(op->operands[i].value));
  h = kr_hash_combine(h, op->num_results);
  for (uint32_t i = 0; i < op->num_results; i++) h = kr_hash_combine(h, kr_hash_ptr(op->results[i].type));
  h = kr_hash_combine(h, op->num_successors);
  for (uint32_t i = 0; i < op->num_successors; i++) h = kr_hash_combine(h, kr_hash_ptr(op->successors[i]));
  h = kr_hash_combine(h, op->num_regions);
  for (uint32_t i = 0; i < op->num_regions; i++) h = fp_region(&op->regions[i], h);
  return h;
}

uint64_t kr__op_fingerprint(kr_op *op) { return fp_op(op, 0x6b6f726368ULL); }

/* ---------------------------------------------------------------------------------------------
 * IR printing. */

bool kr__should_print_after(const kr_pm_config *cfg, const kr_pass_def *def, bool *need_fingerprint) {
  *need_fingerprint = false;
  bool selected;
  if (cfg->print_after.len) {
    selected = false;
    for (size_t i = 0; i < cfg->print_after.len; i++)
      if (strcmp(KR_VEC_AT(&cfg->print_after, kr_ident, i), def->argument) == 0) selected = true;
  } else {
    selected = cfg->print_mode != KR_PRINT_IR_NONE;
  }
  if (selected && cfg->print_mode == KR_PRINT_IR_AFTER_CHANGE) *need_fingerprint = true;
  return selected;
}

static kr_ostream *print_stream(kr_pm_config *cfg) {
  if (cfg->print_os) return cfg->print_os;
  if (!cfg->default_os_init) {
    kr_ostream_init_file(&cfg->default_os, stderr);
    cfg->default_os_init = true;
  }
  return &cfg->default_os;
}

void kr__print_ir_after(kr_pm_config *cfg, const kr_pass_def *def, kr_op *op, bool failed) {
  kr_ostream *os = print_stream(cfg);
  kr_ostream mem;
  kr_ostream_init_mem(&mem);
  kr_op_print(op, &mem, &cfg->print_flags);
  const char *text = kr_ostream_str(&mem);
  size_t n = strlen(text);
  /* MLIR prints the op, then "\n\n"; a top-level op's printed form ends in a newline of its
   * own, so a module dump is followed by two blank lines and a nested op's by one. */
  while (n && text[n - 1] == '\n') n--;
  kr_ostream_printf(os, "// -----// IR Dump After %s%s (%s) //----- //\n", kr__pass_display_name(def),
                    failed ? " Failed" : "", def->argument);
  kr_ostream_write(os, text, n);
  kr_ostream_puts(os, op->block ? "\n\n" : "\n\n\n");
  kr_ostream_close(&mem);
  kr_ostream_flush(os);
}

/* ---------------------------------------------------------------------------------------------
 * Timing: MLIR's tree display, one row per pipeline entry, nested managers as
 * "'anchor' Pipeline" with their passes indented below, then Rest (time outside passes) and
 * Total. */

/* `name` is quoted and followed by " Pipeline" for a nested manager. */
static void timing_row(kr_ostream *os, double secs, double total, unsigned indent, const char *name, bool pipeline) {
  double pct = total > 0 ? 100.0 * secs / total : 0.0;
  kr_ostream_printf(os, "  %8.4f (%5.1f%%)  %*s", secs, pct, (int)indent, "");
  if (pipeline) kr_ostream_printf(os, "'%s' Pipeline\n", name);
  else kr_ostream_printf(os, "%s\n", name);
}

static void timing_rows(kr_pass_manager *pm, double total, unsigned indent, kr_ostream *os) {
  for (size_t i = 0; i < pm->entries.len; i++) {
    kr_pm_entry *e = &KR_VEC_AT(&pm->entries, kr_pm_entry, i);
    if (e->nested) {
      timing_row(os, e->seconds, total, indent, e->nested->anchor, true);
      timing_rows(e->nested, total, indent + 2, os);
    } else {
      timing_row(os, e->seconds, total, indent, kr__pass_display_name(e->pass.def), false);
    }
  }
}

void kr__print_timing(kr_pass_manager *pm, double total, kr_ostream *os) {
  static const char rule[] = "===-------------------------------------------------------------------------===\n";
  kr_ostream_puts(os, rule);
  kr_ostream_puts(os, "                         ... Execution time report ...\n");
  kr_ostream_puts(os, rule);
  kr_ostream_printf(os, "  Total Execution Time: %.4f seconds\n\n", total);
  kr_ostream_puts(os, "  ----Wall Time----  ----Name----\n");
  timing_rows(pm, total, 0, os);
  double top = 0;
  for (size_t i = 0; i < pm->entries.len; i++) top += KR_VEC_AT(&pm->entries, kr_pm_entry, i).seconds;
  double rest = total - top;
  if (rest < 0) rest = 0;
  timing_row(os, rest, total, 0, "Rest", false);
  timing_row(os, total, total, 0, "Total", false);
  kr_ostream_flush(os);
}
