/* frontend/onnx/upgrade.c - placeholder: filled in below. */
#include "onnx_impl.h"

kr_status kr_onnx_upgrade_node(kr_onnx_importer *I, kr_onnx_node *n) {
  (void)I;
  (void)n;
  return KR_SUCCESS;
}
