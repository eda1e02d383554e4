/* frontend/onnx/read.c - reading .onnx and .pb files: the whole file is read, unpacked by
 * protobuf-c through an allocator with a budget (so a hostile length field cannot make the
 * importer allocate without bound), and the file buffer is released right away.
 *
 * The allocator hands out plain malloc blocks, so a `bytes` field (TensorProto.raw_data) can be
 * taken over by the context as a resource (kr_resource_adopt) instead of being copied. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx_impl.h"

kr_attr kr_onnx_file_loc(kr_context *ctx, const char *path) { return kr_loc_file(ctx, path, 0, 0); }

/* The budget is charged on every allocation and never refunded: protobuf-c frees only when the
 * message is freed (or on a failed parse), so the total is what one unpack may use. */
static void *bounded_alloc(void *data, size_t size) {
  kr_onnx_model *m = data;
  if (size > m->budget - m->used) return NULL;
  void *p = malloc(size ? size : 1);
  if (p) m->used += size;
  return p;
}

static void bounded_free(void *data, void *p) {
  (void)data;
  free(p);
}

/* protobuf-c unpacks nested messages recursively with no depth limit, so a file of a few MB of
 * nested GraphProto attributes overflows the stack.  This pass walks the wire format with the
 * message descriptors and rejects nesting deeper than KR_ONNX_MAX_NESTING (real models nest a few
 * levels per If/Loop body); its own recursion stops at that depth.  Malformed input is left for
 * the unpacker to reject.  Returns whether the nesting is acceptable. */
#define KR_ONNX_MAX_NESTING 64

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
    uint8_t b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

static bool nesting_ok(const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end, unsigned depth) {
  if (depth > KR_ONNX_MAX_NESTING) return false;
  while (p < end) {
    uint64_t tag, v;
    if (!read_varint(&p, end, &tag)) return true;
    switch (tag & 7) {
    case 0:
      if (!read_varint(&p, end, &v)) return true;
      break;
    case 1:
      if (end - p < 8) return true;
      p += 8;
      break;
    case 5:
      if (end - p < 4) return true;
      p += 4;
      break;
    case 2: {
      if (!read_varint(&p, end, &v) || v > (uint64_t)(end - p)) return true;
      const ProtobufCFieldDescriptor *f =
          tag >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3)) : NULL;
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && !nesting_ok(f->descriptor, p, p + v, depth + 1)) return false;
      p += v;
      break;
    }
    default:
      return true;
    }
  }
  return true;
}

static char *read_all(kr_context *ctx, const char *path, size_t *len) {
  kr_attr loc = kr_onnx_file_loc(ctx, path);
  FILE *f = fopen(path, "rb");
  if (!f) {
    kr_emit_error(ctx, loc, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
    kr_emit_error(ctx, loc, "cannot read '%s': not a regular file", path);
    fclose(f);
    return NULL;
  }
  size_t n = (size_t)st.st_size;
  char *buf = malloc(n ? n : 1);
  if (!buf) {
    kr_emit_error(ctx, loc, "cannot read '%s': out of memory (%zu bytes)", path, n);
    fclose(f);
    return NULL;
  }
  if (fread(buf, 1, n, f) != n) {
    kr_emit_error(ctx, loc, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "short read");
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  size_t n = (size_t)(slash - path);
  if (n == 0) n = 1;   /* "/model.onnx" */
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, path, n);
  d[n] = 0;
  return d;
}

static void init_alloc(kr_onnx_model *m, size_t file_size) {
  m->alloc.alloc = bounded_alloc;
  m->alloc.free = bounded_free;
  m->alloc.allocator_data = m;
  /* Unpacked data is at most a few times the encoding (repeated varints grow to 8 bytes each),
   * plus fixed per-message overhead. */
  size_t cap = file_size > (SIZE_MAX - ((size_t)64 << 20)) / 8 ? SIZE_MAX / 2 : file_size * 8;
  m->budget = cap + ((size_t)64 << 20);
  m->used = 0;
}

kr_status kr_onnx_model_load(kr_context *ctx, const char *path, kr_onnx_model *m) {
  memset(m, 0, sizeof *m);
  size_t len;
  char *buf = read_all(ctx, path, &len);
  if (!buf) return KR_FAILURE;
  kr_attr loc = kr_onnx_file_loc(ctx, path);
  if (!nesting_ok(&onnx__model_proto__descriptor, (const uint8_t *)buf, (const uint8_t *)buf + len, 0)) {
    free(buf);
    return kr_emit_error(ctx, loc, "not a valid ONNX model (messages nested deeper than %d levels)", KR_ONNX_MAX_NESTING);
  }
  init_alloc(m, len);
  m->proto = onnx__model_proto__unpack(&m->alloc, len, (const uint8_t *)buf);
  free(buf);
  if (!m->proto) {
    if (m->used >= m->budget / 2 && m->budget - m->used < len)
      return kr_emit_error(ctx, loc, "not a valid ONNX model (protobuf parse exceeded the memory budget of %zu bytes)",
                           m->budget);
    return kr_emit_error(ctx, loc, "not a valid ONNX model (protobuf parse failed)");
  }
  if (!m->proto->graph) {
    kr_onnx_model_free(m);
    return kr_emit_error(ctx, loc, "not a valid ONNX model (no graph)");
  }
  m->dir = dir_of(path);
  return KR_SUCCESS;
}

void kr_onnx_model_free(kr_onnx_model *m) {
  if (m->proto) onnx__model_proto__free_unpacked(m->proto, &m->alloc);
  free(m->dir);
  memset(m, 0, sizeof *m);
}

kr_status kr_onnx_read_tensor_file(kr_context *ctx, const char *path, kr_tensor *out) {
  memset(out, 0, sizeof *out);
  size_t len;
  char *buf = read_all(ctx, path, &len);
  if (!buf) return KR_FAILURE;
  kr_onnx_model m;
  memset(&m, 0, sizeof m);
  init_alloc(&m, len);
  Onnx__TensorProto *t = nesting_ok(&onnx__tensor_proto__descriptor, (const uint8_t *)buf, (const uint8_t *)buf + len, 0)
                             ? onnx__tensor_proto__unpack(&m.alloc, len, (const uint8_t *)buf)
                             : NULL;
  free(buf);
  kr_attr loc = kr_onnx_file_loc(ctx, path);
  if (!t) return kr_emit_error(ctx, loc, "not a valid ONNX TensorProto (protobuf parse failed)");
  char *dir = dir_of(path);
  char what[300];
  snprintf(what, sizeof what, "tensor '%s'", t->name && *t->name ? t->name : path);
  kr_type type;
  void *data;
  size_t size;
  kr_status st = kr_onnx_tensor_data(ctx, loc, t, dir, true, what, &type, &data, &size);
  onnx__tensor_proto__free_unpacked(t, &m.alloc);
  free(dir);
  if (st) return KR_FAILURE;
  out->type = type;
  out->numel = kr_type_num_elements(type);
  out->nbytes = size;
  out->data = data ? data : calloc(1, 1);
  out->owned = true;
  return KR_SUCCESS;
}
