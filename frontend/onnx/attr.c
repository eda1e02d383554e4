/* frontend/onnx/attr.c - ONNX AttributeProto -> the op dialect's attribute encoding
 * (dialects/op/ops.def): int `1 : i64`, float `0.5 : f32`, string, ints `array<i64: ..>`, floats
 * `array<f32: ..>`, tensor dense / dense_resource, Cast's `to` a type attribute.  The schema of
 * the op decides the encoding; ONNX files sometimes store an integral float attribute as INT and
 * the like, which is converted when lossless. */
#include <stdio.h>
#include <string.h>

#include "onnx_impl.h"

const char *kr_onnx_attr_type_name(int type) {
  switch (type) {
  case 1: return "FLOAT";
  case 2: return "INT";
  case 3: return "STRING";
  case 4: return "TENSOR";
  case 5: return "GRAPH";
  case 6: return "FLOATS";
  case 7: return "INTS";
  case 8: return "STRINGS";
  case 9: return "TENSORS";
  case 10: return "GRAPHS";
  case 11: return "SPARSE_TENSOR";
  case 12: return "SPARSE_TENSORS";
  case 13: return "TYPE_PROTO";
  case 14: return "TYPE_PROTOS";
  default: return "UNDEFINED";
  }
}

/* The attribute's type: the `type` field, or (IR version 1 files, where it may be missing) the
 * field that is set. */
static int attr_type(const Onnx__AttributeProto *a) {
  if (a->has_type && a->type) return a->type;
  if (a->n_floats) return 6;
  if (a->n_ints) return 7;
  if (a->n_strings) return 8;
  if (a->t) return 4;
  if (a->g) return 5;
  if (a->has_f) return 1;
  if (a->has_i) return 2;
  if (a->has_s) return 3;
  return 0;
}

int64_t kr_onnx_attr_i(const Onnx__AttributeProto *a, int64_t dflt) {
  if (!a) return dflt;
  int t = attr_type(a);
  if (t == 2) return a->i;
  if (t == 1) return (int64_t)a->f;
  return dflt;
}

double kr_onnx_attr_f(const Onnx__AttributeProto *a, double dflt) {
  if (!a) return dflt;
  int t = attr_type(a);
  if (t == 1) return a->f;
  if (t == 2) return (double)a->i;
  return dflt;
}

const char *kr_onnx_attr_s(const Onnx__AttributeProto *a, const char *dflt, size_t *len) {
  if (!a || attr_type(a) != 3) {
    if (len) *len = dflt ? strlen(dflt) : 0;
    return dflt;
  }
  if (len) *len = a->s.len;
  return a->s.data ? (const char *)a->s.data : "";
}

size_t kr_onnx_attr_ints(const Onnx__AttributeProto *a, const int64_t **vals) {
  *vals = NULL;
  if (!a) return 0;
  int t = attr_type(a);
  if (t == 7) {
    *vals = a->ints;
    return a->n_ints;
  }
  if (t == 2) {
    *vals = &a->i;
    return 1;
  }
  return 0;
}

kr_attr kr_onnx_convert_attr(kr_onnx_importer *I, const Onnx__AttributeProto *a, kr_op_attr_kind kind, kr_attr loc,
                             const kr_onnx_node *n) {
  kr_context *ctx = I->ctx;
  int t = attr_type(a);
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS), f32 = kr_type_float(ctx, KR_F32);
  switch (kind) {
  case KR_OPATTR_INT:
    if (t == 2) return kr_attr_integer(ctx, i64, a->i);
    break;
  case KR_OPATTR_FLOAT:
    if (t == 1) return kr_attr_float(ctx, f32, a->f);
    if (t == 2) return kr_attr_float(ctx, f32, (double)a->i);
    break;
  case KR_OPATTR_STRING:
    if (t == 3) return kr_attr_string(ctx, a->s.data ? (const char *)a->s.data : "", a->s.len);
    break;
  case KR_OPATTR_INTS:
    if (t == 7) return kr_attr_dense_array(ctx, i64, a->ints, (unsigned)a->n_ints);
    if (t == 2) return kr_attr_dense_array(ctx, i64, &a->i, 1);
    break;
  case KR_OPATTR_FLOATS:
    if (t == 6) return kr_attr_dense_array(ctx, f32, a->floats, (unsigned)a->n_floats);
    if (t == 1) return kr_attr_dense_array(ctx, f32, &a->f, 1);
    break;
  case KR_OPATTR_TENSOR:
    if (t == 4 && a->t) {
      char what[400];
      snprintf(what, sizeof what, "attribute '%s' of node '%s'", a->name, n->name);
      char key[300];
      snprintf(key, sizeof key, "%s.%s", n->name, a->name);
      return kr_onnx_tensor_attr(ctx, loc, a->t, I->model->dir, I->threshold, key, what);
    }
    break;
  case KR_OPATTR_TYPE:
    if (t == 2) {
      kr_type e = kr_onnx_elem_type(ctx, (int32_t)a->i);
      if (e) return kr_attr_type(ctx, e);
      kr_onnx_error(I, loc, "node '%s' (%s): attribute '%s' names unsupported element type %s", n->name, n->op_type,
                    a->name, kr_onnx_dtype_name((int32_t)a->i));
      return NULL;
    }
    if (t == 3) {   /* Cast-1: the type's name */
      char name[64];
      size_t len = a->s.len < sizeof name - 1 ? a->s.len : sizeof name - 1;
      memcpy(name, a->s.data, len);
      name[len] = 0;
      int32_t code = kr_onnx_dtype_code(name);
      kr_type e = code >= 0 ? kr_onnx_elem_type(ctx, code) : NULL;
      if (e) return kr_attr_type(ctx, e);
      kr_onnx_error(I, loc, "node '%s' (%s): attribute '%s' names unsupported element type '%s'", n->name, n->op_type,
                    a->name, name);
      return NULL;
    }
    break;
  }
  kr_onnx_error(I, loc, "node '%s' (%s): attribute '%s' has unsupported type %s", n->name, n->op_type, a->name,
                kr_onnx_attr_type_name(t));
  return NULL;
}
