/* ir/printer_impl.h - private layout of kr_asm_printer and helpers shared by the printer files
 * (ir/printer.c: ops, regions, value names; ir/print_attrs.c: types and attributes;
 * ir/print_float.c: MLIR's float spelling).  Only libkorch sources include this. */
#ifndef KORCH_IR_PRINTER_IMPL_H
#define KORCH_IR_PRINTER_IMPL_H

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/ir.h"

/* Where a numbered block's names come from: its ^bb label (index in its region) and the number
 * of its first argument (%argN for entry blocks, %N for the others). */
typedef struct kr_print_block_info {
  uint32_t label;
  uint32_t first_arg;
  bool entry;     /* arguments print as %argN */
} kr_print_block_info;

struct kr_asm_printer {
  kr_ostream *os;
  kr_print_flags flags;       /* hex_threshold resolved (never 0) */
  /* Value names are computed for the ops below `root` (see number_values in printer.c): an op's
   * number lives in its kr_op::order while printing, `root` itself is number 0. */
  kr_op *root;
  unsigned indent;            /* columns of the op being printed */
  const char *default_dialect;/* ops of this dialect print unprefixed: "builtin" at the top level and
                               * in modules (`module`), "func" in func.func (`return`) */
  kr_hmap blocks;             /* kr_block * -> index + 1 into block_info */
  kr_vec block_info;          /* kr_print_block_info */
  kr_vec preds;               /* scratch: (successor label, predecessor label) pairs, a stack */
  bool collect_resources;     /* remember dense_resource blobs for the trailing section */
  kr_vec resources;           /* const kr_resource *, in first-reference order */
  kr_hmap resource_set;       /* const kr_resource * -> (void *)1 */
};

/* A printer over `os` with no value names (for lone types and attributes). */
void kr_asm_printer_init(kr_asm_printer *p, kr_ostream *os, const kr_print_flags *flags);
void kr_asm_printer_free(kr_asm_printer *p);

/* Attributes print their type after ` : ` unless it is implied; MLIR's AttrTypeElision::May
 * (array elements) drops it for i64 integers and f64 floats. */
void kr_printer_print_attr_elide(kr_asm_printer *p, kr_attr a, bool may_elide_type);
/* `name = value`, or just `name` for a unit attribute (MLIR's printNamedAttribute). */
void kr_printer_print_named_attr(kr_asm_printer *p, kr_ident name, kr_attr value);

/* Writes bytes with MLIR's escaping (llvm::printEscapedString): `\\` for a backslash, printable
 * ASCII other than `"` as is, everything else as `\XX` (two uppercase hex digits).  No quotes. */
void kr_print_escaped(kr_ostream *os, const char *s, size_t n);
/* `s` bare when it is an identifier ([a-zA-Z_][a-zA-Z0-9_$.]*), else as a quoted string
 * (MLIR's printKeywordOrString: attribute names, symbol names, resource keys). */
void kr_print_keyword_or_string(kr_ostream *os, const char *s, size_t n);
bool kr_is_bare_identifier(const char *s, size_t n);
/* An unsigned decimal number without printf. */
void kr_print_u64(kr_ostream *os, uint64_t v);

/* Prints a float of kind `kind` given by its IEEE bit pattern (f16/bf16 in the low 16 bits, f32
 * in the low 32) exactly as MLIR's printFloatValue does: `%.6e`-like scientific notation
 * (APFloat::toString with precision 6) when that parses back to the same bits, otherwise
 * APFloat's shortest default form when it contains a '.', otherwise (and for inf/NaN) the bit
 * pattern in hex (`0x7FC00000`).  Sets *printed_hex (may be NULL) when hex was used. */
void kr_print_float_bits(kr_ostream *os, kr_float_kind kind, uint64_t bits, bool *printed_hex);

#endif
