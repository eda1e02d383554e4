/* tools/support/numerics.h - the numerics guard (issue 4, item 4): run every function of a module
 * before and after a pass pipeline on the same seeded random inputs with the reference
 * interpreter (korch/interp.h) and compare the outputs elementwise.  korch-opt --verify-numerics
 * is its user; it is in tools/support (not libkorch) because it is a testing aid, and it prints
 * nothing: problems are diagnostics through the modules' context.
 *
 * Inputs, per function and trial (a splitmix64 stream seeded from (seed, trial), so the inputs
 * do not depend on which other functions the module holds):
 *   floats (f16, bf16, f32, f64)   uniform in [-1, 1]
 *   i1                             0 or 1
 *   other integers                 uniform in [0, 4) (valid indices along most axes)
 * Comparison, per output element (r: before, y: after): same element type and shape; floats pass
 * when |y - r| <= atol + rtol * |r|, NaN matches NaN, an infinity only itself; integers and
 * booleans exactly. */
#ifndef KORCH_TOOLS_SUPPORT_NUMERICS_H
#define KORCH_TOOLS_SUPPORT_NUMERICS_H

#include <stdint.h>

#include "korch/interp.h"

typedef struct kr_numerics_options {
  double rtol;        /* default 1e-4 */
  double atol;        /* default 1e-5 */
  uint64_t seed;      /* default 1 */
  unsigned trials;    /* default 1; each trial draws fresh inputs */
} kr_numerics_options;

/* The outcome, with the worst element of the first run (function, trial) that differs: the one
 * farthest outside the tolerance, by |y - r| - (atol + rtol*|r|); a NaN, or an infinity that does
 * not match, is worse than any finite difference. */
typedef struct kr_numerics_result {
  unsigned functions;        /* functions compared */
  unsigned runs;             /* functions x trials */
  bool mismatch;             /* some element was outside the tolerance */
  /* Where the worst element is (valid when mismatch): */
  kr_ident func;             /* symbol name (of the function, without the modules around it) */
  unsigned trial;            /* 0-based */
  unsigned output;           /* result index */
  int64_t element;           /* row-major flat index */
  int64_t num_bad, numel;    /* elements outside the tolerance in that output, of numel */
  double before, after;      /* the two values (integers converted to double) */
  double excess;             /* |after - before| - (atol + rtol*|before|) > 0; INFINITY for NaN/inf */
} kr_numerics_result;

/* Sets the defaults above. */
void kr_numerics_options_init(kr_numerics_options *o);

/* Compares `before` (the module as it was before the pipeline; typically a kr_op_clone of it)
 * with `after` (the same module after the pipeline).  Every func.func with a body in `before`,
 * at the top or in nested builtin.modules at any depth, that also exists, with a body, in `after`
 * under the same symbol path (named modules match by name, unnamed ones by their position among
 * the unnamed modules of their block) is run o->trials times on the same random inputs in both;
 * functions that exist in only one of them are skipped.  Messages name a function by its path:
 * "@f", "@m::@f", "(module #0)::@f".
 * Outcomes:
 *   KR_SUCCESS, !r->mismatch   every compared output agrees within the tolerance;
 *   KR_SUCCESS, r->mismatch    an output differs: an error "numerics differ after the pipeline:
 *                              ..." naming the worst element has been reported at the function
 *                              of `after`;
 *   KR_FAILURE                 no comparison was possible: "cannot check numerics of @f: ..." was
 *                              reported (a signature that changed, an argument that is not a
 *                              static tensor, an interpreter failure on either side, whose own
 *                              diagnostic precedes it).
 * Both modules must live in one context and are not modified. */
kr_status kr_numerics_compare_modules(kr_op *before, kr_op *after, const kr_numerics_options *o,
                                      kr_numerics_result *r);

#endif
