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
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_impl.h"

kr_attr kr_onnx_file_loc(kr_context *ctx, const char *path) { return kr_loc_file(ctx, path, 0, 0); }

/* The budget is charged on every allocation and never refunded: protobuf-c frees only when the
 * message is freed (or on a failed parse), so the total is what one unpack may use. */
static void *bounded_alloc(void *data, size_t size) {
  kr_onnx_model *m = data;
  if (size > m->budget - m->used) {
    m->exceeded = true;
    return NULL;
  }
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

/* ---------------------------------------------------------------------------------------------
 * Loading a model with a peak of about one file size: the file is mapped, and the initializers
 * (where the weights are) are unpacked one at a time from the mapping, each range of the mapping
 * released (MADV_DONTNEED) once copied; the rest of the model, without them, is unpacked from a
 * small copy.  The ONNX exporters put the weights in initializers' raw_data, which the importer
 * then adopts as resources, so the weights are in memory once. */

typedef struct span {
  const uint8_t *p;
  size_t n;
} span;

/* The next field of a message at *p: its number, wire type, the whole encoded field and (wire
 * type 2) its payload.  False at the end or on malformed input. */
static bool next_field(const uint8_t **p, const uint8_t *end, uint64_t *number, unsigned *wt, span *whole,
                       span *payload) {
  const uint8_t *start = *p;
  uint64_t tag, v;
  if (*p >= end || !read_varint(p, end, &tag)) return false;
  *number = tag >> 3;
  *wt = (unsigned)(tag & 7);
  payload->p = NULL;
  payload->n = 0;
  switch (*wt) {
  case 0:
    if (!read_varint(p, end, &v)) return false;
    break;
  case 1:
    if (end - *p < 8) return false;
    *p += 8;
    break;
  case 5:
    if (end - *p < 4) return false;
    *p += 4;
    break;
  case 2:
    if (!read_varint(p, end, &v) || v > (uint64_t)(end - *p)) return false;
    payload->p = *p;
    payload->n = (size_t)v;
    *p += v;
    break;
  default:
    return false;
  }
  whole->p = start;
  whole->n = (size_t)(*p - start);
  return true;
}

static size_t put_varint(uint8_t *out, uint64_t v) {
  size_t n = 0;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out[n++] = (uint8_t)(b | (v ? 0x80 : 0));
  } while (v);
  return n;
}

/* Returns pages [p, p + n) of the mapping to the kernel (they are re-read from the file if ever
 * touched again). */
static void release_range(const uint8_t *p, size_t n) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return;
  uintptr_t a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  uintptr_t b = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
  if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Unpacks the model in `buf` with its initializers one by one (see above); NULL when the split
 * does not apply (one `graph` field holding initializers) or the parse fails (*failed). */
static Onnx__ModelProto *unpack_split(kr_onnx_model *m, const uint8_t *buf, size_t len, bool *failed) {
  *failed = false;
  const uint8_t *p = buf, *end = buf + len;
  uint64_t num;
  unsigned wt;
  span whole, payload, graph = {NULL, 0}, graph_whole = {NULL, 0};
  unsigned ngraph = 0;
  while (p < end) {
    if (!next_field(&p, end, &num, &wt, &whole, &payload)) return NULL;
    if (num == 7 && wt == 2) graph = payload, graph_whole = whole, ngraph++;
  }
  if (ngraph != 1) return NULL;
  size_t ninit = 0, init_bytes = 0;
  for (p = graph.p; p < graph.p + graph.n;) {
    if (!next_field(&p, graph.p + graph.n, &num, &wt, &whole, &payload)) return NULL;
    if (num == 5 && wt == 2) ninit++, init_bytes += whole.n;
  }
  if (!ninit) return NULL;

  /* The model without initializers: other top-level fields, then the graph without them. */
  size_t graph_len = graph.n - init_bytes;
  uint8_t *small = malloc(len - graph_whole.n + graph_len + 16);
  if (!small) return NULL;
  size_t k = 0;
  for (p = buf; p < end;) {
    next_field(&p, end, &num, &wt, &whole, &payload);
    if (whole.p == graph_whole.p) continue;
    memcpy(small + k, whole.p, whole.n);
    k += whole.n;
  }
  k += put_varint(small + k, (7 << 3) | 2);
  k += put_varint(small + k, graph_len);
  for (p = graph.p; p < graph.p + graph.n;) {
    next_field(&p, graph.p + graph.n, &num, &wt, &whole, &payload);
    if (num == 5 && wt == 2) continue;
    memcpy(small + k, whole.p, whole.n);
    k += whole.n;
  }
  Onnx__ModelProto *model = onnx__model_proto__unpack(&m->alloc, k, small);
  free(small);
  if (!model || !model->graph) {
    if (model) onnx__model_proto__free_unpacked(model, &m->alloc);
    *failed = true;
    return NULL;
  }
  Onnx__TensorProto **inits = m->alloc.alloc(m, ninit * sizeof *inits);
  if (!inits) {
    onnx__model_proto__free_unpacked(model, &m->alloc);
    *failed = true;
    return NULL;
  }
  Onnx__GraphProto *g = model->graph;
  g->initializer = inits;
  g->n_initializer = 0;
  for (p = graph.p; p < graph.p + graph.n;) {
    next_field(&p, graph.p + graph.n, &num, &wt, &whole, &payload);
    if (num != 5 || wt != 2) continue;
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(&m->alloc, payload.n, payload.p);
    if (!t) {
      onnx__model_proto__free_unpacked(model, &m->alloc);
      *failed = true;
      return NULL;
    }
    g->initializer[g->n_initializer++] = t;
    release_range(payload.p, payload.n);
  }
  return model;
}

static kr_status load_buffer(kr_context *ctx, kr_attr loc, const char *path, kr_onnx_model *m, const uint8_t *buf,
                             size_t len) {
  if (!nesting_ok(&onnx__model_proto__descriptor, buf, buf + len, 0))
    return kr_emit_error(ctx, loc, "not a valid ONNX model (messages nested deeper than %d levels)", KR_ONNX_MAX_NESTING);
  init_alloc(m, len);
  bool failed;
  m->proto = unpack_split(m, buf, len, &failed);
  if (!m->proto && !failed) m->proto = onnx__model_proto__unpack(&m->alloc, len, buf);
  if (!m->proto) {
    if (m->exceeded)
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

kr_status kr_onnx_model_load(kr_context *ctx, const char *path, kr_onnx_model *m) {
  memset(m, 0, sizeof *m);
  kr_attr loc = kr_onnx_file_loc(ctx, path);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return kr_emit_error(ctx, loc, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    return kr_emit_error(ctx, loc, "cannot read '%s': not a regular file", path);
  }
  size_t len = (size_t)st.st_size;
  void *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
  close(fd);
  if (len && map == MAP_FAILED) return kr_emit_error(ctx, loc, "cannot read '%s': %s", path, strerror(errno));
  static const uint8_t empty[1];
  kr_status s = load_buffer(ctx, loc, path, m, len ? (const uint8_t *)map : empty, len);
  if (len) munmap(map, len);
  return s;
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
