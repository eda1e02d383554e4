/* dialects/kernel/task_mapping_asm.c - STUB: #kernel.task custom assembly, owned by the
 * task-mapping helper. */
#include "korch/asm.h"
#include "korch/kernel.h"

kr_attr kr_kernel_parse_attr(kr_asm_parser *p, kr_context *ctx) { (void)p; (void)ctx; return NULL; }
void kr_kernel_print_attr(kr_asm_printer *p, kr_attr a) { (void)p; (void)a; }
