/* dialects/op/shape_layout_resize.c - shape inference of Resize (ONNX Resize-13, the version
 * opset 17 uses): the output size comes from `sizes`, or from floor(in * scale) for `scales`;
 * an absent operand is op.none or a tensor of 0 elements (exporters write empty constants). */
#include <math.h>
#include <string.h>

#include "dialects/op/shape_layout.h"

kr_status kr_resize_dims(kr_op *op, const int64_t *in_dims, unsigned rank, const double *scales, int64_t ns,
                         const int64_t *sizes, int64_t nz, int64_t *out_dims, double *out_scales) {
  if (ns && nz) return kr_op_emit_error(op, "takes 'scales' or 'sizes', not both");
  if (!ns && !nz) return kr_op_emit_error(op, "needs 'scales' or 'sizes' (a non-empty constant)");
  if ((ns ? ns : nz) != (int64_t)rank)
    return kr_op_emit_error(op, "'%s' has %lld values for an input of rank %u", ns ? "scales" : "sizes",
                            (long long)(ns ? ns : nz), rank);
  for (unsigned d = 0; d < rank; d++) {
    if (ns) {
      if (!(scales[d] > 0) || isinf(scales[d]))
        return kr_op_emit_error(op, "'scales' value %g for axis %u must be positive", scales[d], d);
      /* onnx/reference: (scales * X.shape).astype(int), i.e. floor of the double product. */
      double o = floor(scales[d] * (double)in_dims[d]);
      if (o > 4e18) return kr_op_emit_error(op, "'scales' value %g makes axis %u too large", scales[d], d);
      out_dims[d] = (int64_t)o;
      out_scales[d] = scales[d];
    } else {
      if (sizes[d] < 0) return kr_op_emit_error(op, "'sizes' value %lld for axis %u is negative", (long long)sizes[d], d);
      out_dims[d] = sizes[d];
      if (in_dims[d] == 0 && sizes[d] > 0)
        return kr_op_emit_error(op, "cannot resize axis %u of size 0 to %lld", d, (long long)sizes[d]);
      out_scales[d] = in_dims[d] ? (double)sizes[d] / (double)in_dims[d] : 1.0;
    }
  }
  return KR_SUCCESS;
}

static bool one_of(const char *s, const char *const *set) {
  for (; *set; set++)
    if (!strcmp(s, *set)) return true;
  return false;
}

/* Operand i exists and holds at least one element. */
static bool given(kr_op *op, unsigned i) {
  return kr_op_operand_present(op, i) && kr_type_num_elements(kr_value_type(kr_op_operand(op, i))) != 0;
}

kr_status kr_infer_resize(kr_op *op, kr_type *results) {
  static const char *const modes[] = {"nearest", "linear", "cubic", NULL};
  static const char *const ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                     "tf_half_pixel_for_nn", "tf_crop_and_resize", NULL};
  static const char *const nearest_modes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
  kr_type t;
  if (kr_op_operand_tensor(op, 0, &t)) return KR_FAILURE;
  unsigned rank = t->u.shaped.rank;
  const int64_t *in_dims = t->u.shaped.dims;
  const char *mode = kr_op_attr_string(op, "mode");
  const char *ctm = kr_op_attr_string(op, "coordinate_transformation_mode");
  const char *nm = kr_op_attr_string(op, "nearest_mode");
  if (!one_of(mode, modes)) return kr_op_emit_error(op, "unsupported mode \"%s\" (nearest, linear or cubic)", mode);
  if (!one_of(ctm, ctms)) return kr_op_emit_error(op, "unsupported coordinate_transformation_mode \"%s\"", ctm);
  if (!one_of(nm, nearest_modes)) return kr_op_emit_error(op, "unsupported nearest_mode \"%s\"", nm);
  if (!strcmp(ctm, "tf_crop_and_resize")) {
    double roi[2 * KR_OP_MAX_RANK];
    int64_t n = given(op, 1) ? kr_op_constant_floats(op, 1, roi, 2 * KR_OP_MAX_RANK) : 0;
    if (n < 0) return KR_FAILURE;
    if (n != 2 * (int64_t)rank)
      return kr_op_emit_error(op, "tf_crop_and_resize needs 'roi' with 2 * rank = %u values, got %lld", 2 * rank, (long long)n);
  }
  double scales[KR_OP_MAX_RANK], out_scales[KR_OP_MAX_RANK];
  int64_t sizes[KR_OP_MAX_RANK], out[KR_OP_MAX_RANK];
  int64_t ns = 0, nz = 0;
  if (given(op, 2) && (ns = kr_op_constant_floats(op, 2, scales, KR_OP_MAX_RANK)) < 0) return KR_FAILURE;
  if (given(op, 3) && (nz = kr_op_constant_ints(op, 3, sizes, KR_OP_MAX_RANK)) < 0) return KR_FAILURE;
  if (kr_resize_dims(op, in_dims, rank, scales, ns, sizes, nz, out, out_scales)) return KR_FAILURE;
  results[0] = kr_type_tensor(kr_op_context(op), out, rank, kr_type_element(t));
  return KR_SUCCESS;
}
