/* frontend/onnx/tensor.c - ONNX TensorProto -> korch tensors and attributes (onnx/docs/IR.md
 * "Tensor definition", onnx.proto TensorProto).
 *
 * Where the elements are: raw_data (little-endian, the element size of data_type), or the typed
 * field of data_type: float_data (FLOAT), int32_data (INT32 and every narrower type: INT8, INT16,
 * UINT8, UINT16, BOOL, and FLOAT16 / BFLOAT16 as their bit patterns), int64_data (INT64),
 * double_data (DOUBLE), uint64_data (UINT32, UINT64); or an external file (data_location
 * EXTERNAL, external_data keys location / offset / length, the location relative to the model's
 * folder). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx_impl.h"

enum {
  DT_UNDEFINED = 0, DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5, DT_INT32 = 6,
  DT_INT64 = 7, DT_STRING = 8, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11, DT_UINT32 = 12, DT_UINT64 = 13,
  DT_COMPLEX64 = 14, DT_COMPLEX128 = 15, DT_BFLOAT16 = 16,
};

static const char *const dtype_names[] = {
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
    "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
};

const char *kr_onnx_dtype_name(int32_t code) {
  if (code >= 0 && code < (int32_t)(sizeof dtype_names / sizeof dtype_names[0])) return dtype_names[code];
  switch (code) {
  case 17: return "FLOAT8E4M3FN";
  case 18: return "FLOAT8E4M3FNUZ";
  case 19: return "FLOAT8E5M2";
  case 20: return "FLOAT8E5M2FNUZ";
  case 21: return "UINT4";
  case 22: return "INT4";
  default: return "unknown";
  }
}

int32_t kr_onnx_dtype_code(const char *name) {
  for (int32_t i = 0; i < (int32_t)(sizeof dtype_names / sizeof dtype_names[0]); i++)
    if (!strcmp(dtype_names[i], name)) return i;
  /* Cast-1's `to` was the lower-case TensorProto type name in some exporters. */
  char up[32];
  size_t n = strlen(name);
  if (n >= sizeof up) return -1;
  for (size_t i = 0; i <= n; i++) up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
  for (int32_t i = 0; i < (int32_t)(sizeof dtype_names / sizeof dtype_names[0]); i++)
    if (!strcmp(dtype_names[i], up)) return i;
  return -1;
}

kr_type kr_onnx_elem_type(kr_context *ctx, int32_t code) {
  switch (code) {
  case DT_FLOAT: return kr_type_float(ctx, KR_F32);
  case DT_DOUBLE: return kr_type_float(ctx, KR_F64);
  case DT_FLOAT16: return kr_type_float(ctx, KR_F16);
  case DT_BFLOAT16: return kr_type_float(ctx, KR_BF16);
  case DT_INT8: return kr_type_integer(ctx, 8, KR_SIGNLESS);
  case DT_INT16: return kr_type_integer(ctx, 16, KR_SIGNLESS);
  case DT_INT32: return kr_type_integer(ctx, 32, KR_SIGNLESS);
  case DT_INT64: return kr_type_integer(ctx, 64, KR_SIGNLESS);
  case DT_UINT8: return kr_type_integer(ctx, 8, KR_UNSIGNED);
  case DT_UINT16: return kr_type_integer(ctx, 16, KR_UNSIGNED);
  case DT_UINT32: return kr_type_integer(ctx, 32, KR_UNSIGNED);
  case DT_UINT64: return kr_type_integer(ctx, 64, KR_UNSIGNED);
  case DT_BOOL: return kr_type_integer(ctx, 1, KR_SIGNLESS);
  default: return NULL;
  }
}

/* A safe path below `dir` for an external_data location: relative, no `..` component. */
static char *external_path(const char *dir, const char *loc) {
  if (!*loc || loc[0] == '/' || loc[0] == '\\') return NULL;
  for (const char *p = loc; *p;) {
    const char *e = p;
    while (*e && *e != '/' && *e != '\\') e++;
    if (e - p == 2 && p[0] == '.' && p[1] == '.') return NULL;
    p = *e ? e + 1 : e;
  }
  size_t n = strlen(dir) + strlen(loc) + 2;
  char *r = malloc(n);
  if (r) snprintf(r, n, "%s/%s", dir, loc);
  return r;
}

/* Reads `size` bytes of t's external data into a new malloc'd *out. */
static kr_status read_external(kr_context *ctx, kr_attr loc, Onnx__TensorProto *t, const char *dir, const char *what,
                               void **out, size_t size) {
  const char *location = NULL;
  long long offset = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const Onnx__StringStringEntryProto *e = t->external_data[i];
    if (!e->key || !e->value) continue;
    char *end;
    if (!strcmp(e->key, "location")) location = e->value;
    else if (!strcmp(e->key, "offset")) {
      errno = 0;
      offset = strtoll(e->value, &end, 10);
      if (errno || *end || offset < 0) return kr_emit_error(ctx, loc, "%s: bad external data offset '%s'", what, e->value);
    } else if (!strcmp(e->key, "length")) {
      errno = 0;
      length = strtoll(e->value, &end, 10);
      if (errno || *end || length < 0) return kr_emit_error(ctx, loc, "%s: bad external data length '%s'", what, e->value);
    }
  }
  if (!location) return kr_emit_error(ctx, loc, "%s: external data without a 'location'", what);
  if (length >= 0 && (size_t)length != size)
    return kr_emit_error(ctx, loc, "%s: external data length %lld does not match the %zu bytes of its type", what, length,
                         size);
  char *path = external_path(dir ? dir : ".", location);
  if (!path)
    return kr_emit_error(ctx, loc, "%s: external data location '%s' must be a relative path inside the model's folder", what,
                         location);
  FILE *f = fopen(path, "rb");
  if (!f) {
    kr_emit_error(ctx, loc, "%s: cannot open external data '%s': %s", what, path, strerror(errno));
    free(path);
    return KR_FAILURE;
  }
  kr_status st = KR_SUCCESS;
  struct stat sb;
  /* The size is checked before allocating, so a tensor claiming more than the file holds is an
   * error, not an allocation of its claimed size. */
  if (fstat(fileno(f), &sb) || (uint64_t)sb.st_size < (uint64_t)offset || (uint64_t)sb.st_size - (uint64_t)offset < size) {
    st = kr_emit_error(ctx, loc, "%s: external data '%s' is shorter than offset %lld + %zu bytes", what, path, offset, size);
  } else {
    void *buf = malloc(size ? size : 1);
    if (!buf) st = kr_emit_error(ctx, loc, "%s: out of memory (%zu bytes)", what, size);
    else if (fseeko(f, (off_t)offset, SEEK_SET) || fread(buf, 1, size, f) != size) {
      st = kr_emit_error(ctx, loc, "%s: cannot read external data '%s'", what, path);
      free(buf);
    } else {
      *out = buf;
    }
  }
  fclose(f);
  free(path);
  return st;
}

kr_status kr_onnx_tensor_data(kr_context *ctx, kr_attr loc, Onnx__TensorProto *t, const char *dir, bool steal,
                              const char *what, kr_type *type, void **data, size_t *size) {
  *data = NULL;
  *size = 0;
  int32_t code = t->has_data_type ? t->data_type : DT_UNDEFINED;
  kr_type elem = kr_onnx_elem_type(ctx, code);
  if (!elem) return kr_emit_error(ctx, loc, "%s has unsupported element type %s", what, kr_onnx_dtype_name(code));
  if (t->segment) return kr_emit_error(ctx, loc, "%s: segmented tensors are not supported", what);
  if (t->n_dims > KR_OP_MAX_RANK)
    return kr_emit_error(ctx, loc, "%s has rank %zu, at most %d supported", what, t->n_dims, KR_OP_MAX_RANK);
  int64_t numel = 1;
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0) return kr_emit_error(ctx, loc, "%s has a negative dimension %lld", what, (long long)t->dims[i]);
    if (t->dims[i] && numel > INT64_MAX / 16 / t->dims[i]) return kr_emit_error(ctx, loc, "%s is too large", what);
    numel *= t->dims[i];
  }
  *type = kr_type_tensor(ctx, t->dims, (unsigned)t->n_dims, elem);
  size_t eb = kr_type_storage_bytes(elem);
  size_t bytes = (size_t)numel * eb;

  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
    void *buf = NULL;
    if (read_external(ctx, loc, t, dir, what, &buf, bytes)) return KR_FAILURE;
    if (code == DT_BOOL)
      for (size_t i = 0; i < bytes; i++) ((uint8_t *)buf)[i] = ((uint8_t *)buf)[i] != 0;
    *data = buf;
    *size = bytes;
    return KR_SUCCESS;
  }

  if (t->has_raw_data) {
    if (t->raw_data.len != bytes)
      return kr_emit_error(ctx, loc, "%s: raw_data has %zu bytes, its type needs %zu", what, t->raw_data.len, bytes);
    void *buf;
    if (steal && t->raw_data.data) {
      buf = t->raw_data.data;
      t->raw_data.data = NULL;
      t->raw_data.len = 0;
      t->has_raw_data = 0;
    } else {
      buf = malloc(bytes ? bytes : 1);
      if (!buf) return kr_emit_error(ctx, loc, "%s: out of memory (%zu bytes)", what, bytes);
      if (bytes) memcpy(buf, t->raw_data.data, bytes);
    }
    if (code == DT_BOOL)
      for (size_t i = 0; i < bytes; i++) ((uint8_t *)buf)[i] = ((uint8_t *)buf)[i] != 0;
    *data = buf;
    *size = bytes;
    return KR_SUCCESS;
  }

  /* Typed fields: the one of data_type; an empty tensor may have none. */
  size_t have;
  switch (code) {
  case DT_FLOAT: have = t->n_float_data; break;
  case DT_INT64: have = t->n_int64_data; break;
  case DT_DOUBLE: have = t->n_double_data; break;
  case DT_UINT32: case DT_UINT64: have = t->n_uint64_data; break;
  default: have = t->n_int32_data; break;
  }
  if (have != (size_t)numel)
    return kr_emit_error(ctx, loc, "%s holds %zu elements, its shape needs %lld", what, have, (long long)numel);
  void *buf = malloc(bytes ? bytes : 1);
  if (!buf) return kr_emit_error(ctx, loc, "%s: out of memory (%zu bytes)", what, bytes);
  for (int64_t i = 0; i < numel; i++) {
    switch (code) {
    case DT_FLOAT: ((float *)buf)[i] = t->float_data[i]; break;
    case DT_DOUBLE: ((double *)buf)[i] = t->double_data[i]; break;
    case DT_INT64: ((int64_t *)buf)[i] = t->int64_data[i]; break;
    case DT_UINT64: ((uint64_t *)buf)[i] = t->uint64_data[i]; break;
    case DT_UINT32: ((uint32_t *)buf)[i] = (uint32_t)t->uint64_data[i]; break;
    case DT_INT32: ((int32_t *)buf)[i] = t->int32_data[i]; break;
    case DT_INT16: ((int16_t *)buf)[i] = (int16_t)t->int32_data[i]; break;
    case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: ((uint16_t *)buf)[i] = (uint16_t)t->int32_data[i]; break;
    case DT_INT8: ((int8_t *)buf)[i] = (int8_t)t->int32_data[i]; break;
    case DT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)t->int32_data[i]; break;
    case DT_BOOL: ((uint8_t *)buf)[i] = t->int32_data[i] != 0; break;
    default: break;
    }
  }
  *data = buf;
  *size = bytes;
  return KR_SUCCESS;
}

/* Resource keys are bare identifiers: letters, digits, `_` and `.`; anything else becomes `_`. */
static void sanitize_key(const char *name, char *out, size_t cap) {
  size_t k = 0;
  if (!name || !*name) name = "onnx_tensor";
  if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_')) out[k++] = '_';
  for (const char *p = name; *p && k + 1 < cap; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    out[k++] = ok ? c : '_';
  }
  out[k] = 0;
}

kr_attr kr_onnx_buffer_attr(kr_context *ctx, kr_type type, void *data, size_t size, size_t threshold, const char *name) {
  if (size > threshold) {
    char key[256];
    sanitize_key(name, key, sizeof key);
    size_t eb = kr_type_storage_bytes(kr_type_element(type));
    const kr_resource *r = kr_resource_adopt(ctx, key, data, size, (uint32_t)(eb ? eb : 1));
    if (!r) {
      free(data);
      return NULL;
    }
    return kr_attr_resource(ctx, type, r);
  }
  static const char zero[16];
  kr_attr a = kr_attr_dense(ctx, type, size ? data : zero, size);
  free(data);
  return a;
}

kr_attr kr_onnx_tensor_attr(kr_context *ctx, kr_attr loc, Onnx__TensorProto *t, const char *dir, size_t threshold,
                            const char *name, const char *what) {
  kr_type type;
  void *data;
  size_t size;
  if (kr_onnx_tensor_data(ctx, loc, t, dir, true, what, &type, &data, &size)) return NULL;
  kr_attr a = kr_onnx_buffer_attr(ctx, type, data, size, threshold, name);
  if (!a) kr_emit_error(ctx, loc, "%s: cannot store the tensor", what);
  return a;
}
