/* dialects/kernel/task_mapping_asm.c - custom assembly of the #kernel.task attribute (korch/kernel.h,
 * docs/TaskMappings.md; Hidet, ASPLOS'23 §4.1):
 *
 *   #kernel.task<spatial(4, 8) * repeat(2, 2)>
 *   #kernel.task<spatial(4, 8, ranks = [1, 0])>
 *
 * grammar (after `#kernel.`):
 *   task-attr ::= `task` `<` atom (`*` atom)* `>`
 *   atom      ::= (`spatial` | `repeat`) `(` int (`,` int)* (`,` `ranks` `=` `[` int (`,` int)* `]`)? `)`
 *
 * The rank order is printed only when it is not the default row-major [0, 1, ..., n-1], so the
 * printed form round-trips to the same uniqued attribute.  The parser reports, at the offending
 * token or atom: an unknown atom, dims < 1, a rank list that is not a permutation of 0..n-1 or
 * whose length differs from the atom's, atoms of different ranks, more than KR_TASK_MAX_ATOMS
 * atoms, more than KR_KERNEL_MAX_RANK dims, and mappings with more than 2^40 tasks (index
 * arithmetic on them could overflow). */
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/kernel.h"

#define TASK_LIMIT ((int64_t)1 << 40)

/* `[r0, r1, ...]` into ranks; *n gets the count.  Reports a list longer than KR_KERNEL_MAX_RANK. */
static kr_status parse_ranks(kr_asm_parser *p, unsigned *ranks, unsigned *n) {
  *n = 0;
  if (kr_parser_expect(p, "[")) return KR_FAILURE;
  do {
    int64_t r;
    if (*n == KR_KERNEL_MAX_RANK) return kr_parser_error(p, "too many ranks (at most %d)", KR_KERNEL_MAX_RANK);
    if (kr_parser_parse_integer(p, &r)) return KR_FAILURE;
    if (r < 0 || r >= KR_KERNEL_MAX_RANK) return kr_parser_error(p, "rank %lld out of range", (long long)r);
    ranks[(*n)++] = (unsigned)r;
  } while (kr_parser_consume(p, ","));
  return kr_parser_expect(p, "]");
}

/* One atom into *atom; *rank is the rank of the atoms before it (0 for the first), then this one's.
 * Errors about the whole atom are reported where it starts. */
static kr_status parse_atom(kr_asm_parser *p, kr_context *ctx, kr_task_atom *atom, unsigned *rank) {
  kr_attr loc = kr_parser_loc(p);
  const char *kw;
  size_t len;
  if (kr_parser_peek_keyword(p, "spatial"))
    atom->kind = KR_TASK_SPATIAL;
  else if (kr_parser_peek_keyword(p, "repeat"))
    atom->kind = KR_TASK_REPEAT;
  else
    return kr_parser_error(p, "expected a task mapping atom: 'spatial(...)' or 'repeat(...)'");
  if (kr_parser_parse_keyword(p, &kw, &len) || kr_parser_expect(p, "(")) return KR_FAILURE;
  unsigned n = 0, nranks = 0;
  bool have_ranks = false;
  do {
    if (kr_parser_peek_keyword(p, "ranks")) {
      if (!n) return kr_parser_error(p, "expected the atom's dims before 'ranks'");
      kr_attr rloc = kr_parser_loc(p);
      kr_parser_consume(p, "ranks");
      if (kr_parser_expect(p, "=") || parse_ranks(p, atom->ranks, &nranks)) return KR_FAILURE;
      have_ranks = true;
      if (nranks != n)
        return kr_emit_error(ctx, rloc, "'ranks' has %u entries but the atom has %u dims", nranks, n);
      bool seen[KR_KERNEL_MAX_RANK] = {false};
      for (unsigned i = 0; i < n; i++) {
        if (atom->ranks[i] >= n || seen[atom->ranks[i]])
          return kr_emit_error(ctx, rloc, "'ranks' must be a permutation of 0..%u", n - 1);
        seen[atom->ranks[i]] = true;
      }
      break;
    }
    if (n == KR_KERNEL_MAX_RANK) return kr_parser_error(p, "too many dims (at most %d)", KR_KERNEL_MAX_RANK);
    kr_attr dloc = kr_parser_loc(p);
    int64_t d;
    if (kr_parser_parse_integer(p, &d)) return KR_FAILURE;
    if (d < 1) return kr_emit_error(ctx, dloc, "task mapping dims must be >= 1, got %lld", (long long)d);
    if (d > TASK_LIMIT) return kr_emit_error(ctx, dloc, "task mapping dim %lld is too large", (long long)d);
    atom->dims[n++] = d;
  } while (kr_parser_consume(p, ","));
  if (kr_parser_expect(p, ")")) return KR_FAILURE;
  if (!have_ranks)
    for (unsigned i = 0; i < n; i++) atom->ranks[i] = i;
  if (*rank && n != *rank)
    return kr_emit_error(ctx, loc, "task mapping atom has %u dims but the previous atoms have %u", n, *rank);
  *rank = n;
  return KR_SUCCESS;
}

kr_attr kr_kernel_parse_attr(kr_asm_parser *p, kr_context *ctx) {
  kr_attr loc = kr_parser_loc(p);
  const char *kw;
  size_t len;
  if (kr_parser_parse_keyword(p, &kw, &len)) return NULL;
  if (len != 4 || memcmp(kw, "task", 4)) {
    kr_emit_error(ctx, loc, "unknown kernel attribute '#kernel.%.*s'", (int)len, kw);
    return NULL;
  }
  if (kr_parser_expect(p, "<")) return NULL;
  kr_task_mapping m;
  memset(&m, 0, sizeof m);
  do {
    if (m.num_atoms == KR_TASK_MAX_ATOMS) {
      kr_parser_error(p, "too many task mapping atoms (at most %d)", KR_TASK_MAX_ATOMS);
      return NULL;
    }
    if (parse_atom(p, ctx, &m.atoms[m.num_atoms], &m.rank)) return NULL;
    m.num_atoms++;
  } while (kr_parser_consume(p, "*"));
  if (kr_parser_expect(p, ">")) return NULL;
  /* The number of tasks (workers times tasks per worker) bounds every index the lowering builds. */
  int64_t total = 1;
  for (unsigned a = 0; a < m.num_atoms; a++)
    for (unsigned i = 0; i < m.rank; i++) {
      if (m.atoms[a].dims[i] > TASK_LIMIT / total) {
        kr_emit_error(ctx, loc, "task mapping has more than 2^40 tasks");
        return NULL;
      }
      total *= m.atoms[a].dims[i];
    }
  kr_attr a = kr_task_mapping_attr(ctx, &m);
  if (!a) kr_emit_error(ctx, loc, "invalid task mapping");
  return a;
}

void kr_kernel_print_attr(kr_asm_printer *p, kr_attr a) {
  kr_task_mapping m;
  if (!kr_task_mapping_from_attr(a, &m)) {
    /* Only a hand-built attribute can get here; print something that fails to parse back. */
    kr_printer_puts(p, "task<invalid>");
    return;
  }
  kr_printer_puts(p, "task<");
  for (unsigned k = 0; k < m.num_atoms; k++) {
    const kr_task_atom *at = &m.atoms[k];
    kr_printer_puts(p, k ? " * " : "");
    kr_printer_puts(p, at->kind == KR_TASK_SPATIAL ? "spatial(" : "repeat(");
    bool row_major = true;
    for (unsigned i = 0; i < m.rank; i++) {
      kr_printer_printf(p, "%s%lld", i ? ", " : "", (long long)at->dims[i]);
      if (at->ranks[i] != i) row_major = false;
    }
    if (!row_major) {
      kr_printer_puts(p, ", ranks = [");
      for (unsigned i = 0; i < m.rank; i++) kr_printer_printf(p, "%s%u", i ? ", " : "", at->ranks[i]);
      kr_printer_puts(p, "]");
    }
    kr_printer_puts(p, ")");
  }
  kr_printer_puts(p, ">");
}
