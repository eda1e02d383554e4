/* dialects/schema.h - table-driven op schemas shared by the dialects whose ops.def rows spell
 * operands, results and attributes as text (op, prim): see dialects/op/ops.def for the syntax.
 * Private to the library. */
#ifndef KORCH_DIALECTS_SCHEMA_H
#define KORCH_DIALECTS_SCHEMA_H

#include "korch/op.h"

/* Fills s->operands/results/attrs and their counts from a row's three strings ("X W B?",
 * "inputs...", "#shape"; "axis:i=1 pads:ints perm:ints! to:type!").  Allocates with malloc once
 * per process (static tables live until exit); aborts on out-of-memory at start-up. */
void kr_schema_from_row(kr_op_schema *s, const char *operands, const char *results, const char *attrs);

/* The schema's name of operand i of `op` for a diagnostic: operands past the last schema entry
 * belong to the last one (variadic); "?" for an op without a schema or without operands. */
const char *kr_schema_operand_name(kr_op *op, unsigned i);

#endif
