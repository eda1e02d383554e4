/* dialects/kernel/simt.c - verifiers of the kernel dialect's SIMT ops (dialects/kernel/ops.def).
 * STUB: owned by the dialect helper, who replaces this file. */
#include "dialects/dialect_macros.h"
#include "korch/kernel.h"

kr_status kr_kernel_dim_op_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_index_op_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_for_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_if_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_map_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_alloc_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_load_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_store_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_shuffle_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_vector_extract_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
kr_status kr_kernel_vector_from_elements_verify(kr_op *op) { (void)op; return KR_SUCCESS; }
