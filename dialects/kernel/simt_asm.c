/* dialects/kernel/simt_asm.c - STUB: custom assembly of the SIMT ops and !kernel.buffer, owned
 * by the dialect helper. */
#include "korch/asm.h"
#include "korch/kernel.h"

kr_type kr_kernel_parse_type(kr_asm_parser *p, kr_context *ctx) { (void)p; (void)ctx; return NULL; }
void kr_kernel_print_type(kr_asm_printer *p, kr_type t) { (void)p; (void)t; }
