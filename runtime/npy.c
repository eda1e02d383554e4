/* runtime/npy.c - NumPy .npy files for korch-run (numpy/lib/format.py: versions 1.0, 2.0, 3.0;
 * a magic string, a little-endian header length, a Python dict literal {'descr', 'fortran_order',
 * 'shape'} padded with spaces and a newline to a multiple of 64 bytes, then the raw data).
 *
 * Only what the plan can hold: little-endian (or byte-order-free '|') numbers and bools, C order.
 * Reading is strict (the data must be exactly the shape's size); writing is atomic (a temporary
 * file in the same directory, renamed over the target). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const struct {
  const char *descr, *dtype;
} DESCRS[] = {{"<f4", "f32"}, {"<f8", "f64"}, {"<f2", "f16"}, {"|i1", "i8"},  {"|u1", "ui8"},  {"<i2", "i16"},
              {"<u2", "ui16"}, {"<i4", "i32"}, {"<u4", "ui32"}, {"<i8", "i64"}, {"<u8", "ui64"}, {"|b1", "i1"}};

/* bf16 has no NumPy dtype: its raw bits are stored as <u2 (as the ONNX test data does). */
static const char *descr_of(const char *dtype) {
  if (!strcmp(dtype, "bf16")) return "<u2";
  for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
    if (!strcmp(DESCRS[i].dtype, dtype)) return DESCRS[i].descr;
  return NULL;
}

static const char *dtype_of(const char *descr) {
  char d[4] = {0};
  if (strlen(descr) != 3) return NULL;
  memcpy(d, descr, 3);
  /* NumPy writes '|' for one-byte types; accept '<' for them too. */
  if (d[0] == '<' && d[2] == '1') d[0] = '|';
  for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
    if (!strcmp(DESCRS[i].descr, d)) return DESCRS[i].dtype;
  return NULL;
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* Parses the header dict; NULL on success, else a reason. */
static const char *parse_header(const char *p, const char *end, kr_rt_array *a) {
  bool have_descr = false, have_order = false, have_shape = false;
  p = skip_ws(p, end);
  if (p == end || *p++ != '{') return "header is not a dict";
  for (;;) {
    p = skip_ws(p, end);
    if (p < end && *p == '}') break;
    if (p == end || (*p != '\'' && *p != '"')) return "header dict key is not a string";
    char q = *p++;
    const char *k = p;
    while (p < end && *p != q) p++;
    if (p == end) return "unterminated string in header";
    size_t klen = (size_t)(p - k);
    p = skip_ws(p + 1, end);
    if (p == end || *p++ != ':') return "expected ':' in header";
    p = skip_ws(p, end);
    if (klen == 5 && !memcmp(k, "descr", 5)) {
      if (p == end || (*p != '\'' && *p != '"')) return "descr is not a string";
      char q2 = *p++;
      const char *v = p;
      while (p < end && *p != q2) p++;
      if (p == end) return "unterminated descr";
      char descr[16] = {0};
      if ((size_t)(p - v) >= sizeof descr) return "unsupported descr";
      memcpy(descr, v, (size_t)(p - v));
      p++;
      const char *dt = dtype_of(descr);
      if (!dt) {
        static char why[64];
        snprintf(why, sizeof why, "unsupported dtype '%s'%s", descr, descr[0] == '>' ? " (big-endian)" : "");
        return why;
      }
      snprintf(a->dtype, sizeof a->dtype, "%s", dt);
      have_descr = true;
    } else if (klen == 13 && !memcmp(k, "fortran_order", 13)) {
      if ((size_t)(end - p) >= 5 && !memcmp(p, "False", 5))
        p += 5;
      else if ((size_t)(end - p) >= 4 && !memcmp(p, "True", 4))
        return "Fortran-order arrays are not supported";
      else
        return "fortran_order is not False/True";
      have_order = true;
    } else if (klen == 5 && !memcmp(k, "shape", 5)) {
      if (p == end || *p++ != '(') return "shape is not a tuple";
      a->rank = 0;
      for (;;) {
        p = skip_ws(p, end);
        if (p < end && *p == ')') {
          p++;
          break;
        }
        if (p == end || *p < '0' || *p > '9') return "shape holds a non-number";
        if (a->rank == 8) return "rank over 8";
        int64_t d = 0;
        while (p < end && *p >= '0' && *p <= '9') {
          if (d > (INT64_MAX - 9) / 10) return "dimension too large";
          d = d * 10 + (*p++ - '0');
        }
        /* Python 2 era writers appended 'L' to longs. */
        if (p < end && *p == 'L') p++;
        a->dims[a->rank++] = d;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p++;
      }
      have_shape = true;
    } else {
      return "unknown key in header";
    }
    p = skip_ws(p, end);
    if (p < end && *p == ',') p++;
  }
  if (!have_descr || !have_order || !have_shape) return "header lacks descr, fortran_order or shape";
  return NULL;
}

kr_rt_status kr_rt_npy_read(const char *path, kr_rt_array *a, kr_rt_error *err) {
  memset(a, 0, sizeof *a);
  char *buf;
  size_t size;
  if (kr_rt_read_file(path, &buf, &size, err) != KR_RT_OK) return KR_RT_ERROR;
  const unsigned char *u = (const unsigned char *)buf;
  const char *why = NULL;
  size_t hlen = 0, hstart = 0;
  if (size < 10 || memcmp(buf, "\x93NUMPY", 6))
    why = "not a .npy file (bad magic)";
  else if (u[6] == 1) {
    hlen = (size_t)u[8] | (size_t)u[9] << 8;
    hstart = 10;
  } else if ((u[6] == 2 || u[6] == 3) && size >= 12) {
    hlen = (size_t)u[8] | (size_t)u[9] << 8 | (size_t)u[10] << 16 | (size_t)u[11] << 24;
    hstart = 12;
  } else
    why = "unsupported .npy format version";
  if (!why && hlen > size - hstart) why = "truncated header";
  if (!why) why = parse_header(buf + hstart, buf + hstart + hlen, a);
  if (!why) {
    uint64_t elems = 1;
    unsigned es = kr_rt_dtype_size(a->dtype);
    for (unsigned i = 0; i < a->rank; i++) {
      if (a->dims[i] && elems > UINT64_MAX / 16 / (uint64_t)a->dims[i]) {
        why = "shape too large";
        break;
      }
      elems *= (uint64_t)a->dims[i];
    }
    size_t data = size - hstart - hlen;
    if (!why && elems * es != data) {
      kr_rt_fail(err, KR_RT_ERROR, "%s: holds %zu data bytes but shape and dtype %s need %llu", path, data, a->dtype,
                 (unsigned long long)(elems * es));
      free(buf);
      memset(a, 0, sizeof *a);
      return KR_RT_ERROR;
    }
    if (!why) {
      a->bytes = data;
      a->data = malloc(data ? data : 1);
      if (!a->data)
        why = "out of memory";
      else
        memcpy(a->data, buf + hstart + hlen, data);
    }
  }
  free(buf);
  if (why) {
    kr_rt_array_free(a);
    return kr_rt_fail(err, KR_RT_ERROR, "%s: %s", path, why);
  }
  return KR_RT_OK;
}

void kr_rt_array_free(kr_rt_array *a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

kr_rt_status kr_rt_npy_write(const char *path, const char *dtype, unsigned rank, const int64_t *dims, const void *data,
                             size_t bytes, kr_rt_error *err) {
  const char *descr = descr_of(dtype);
  if (!descr) return kr_rt_fail(err, KR_RT_ERROR, "%s: dtype %s has no .npy equivalent", path, dtype);
  char dict[512];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (unsigned i = 0; i < rank; i++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)dims[i], i + 1 < rank ? " " : "");
  /* (5,) for rank 1, (2, 3) otherwise: drop the trailing comma when rank > 1. */
  if (rank > 1) n--;
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  /* Version 1.0 header: magic(6) + version(2) + length(2) + dict, padded to 64 with spaces + '\n'. */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  char header[640];
  memcpy(header, "\x93NUMPY\x01\x00", 8);
  size_t hlen = padded - 10;
  header[8] = (char)(hlen & 0xff);
  header[9] = (char)(hlen >> 8);
  memcpy(header + 10, dict, (size_t)n);
  memset(header + 10 + n, ' ', padded - total);
  header[padded - 1] = '\n';

  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return kr_rt_fail(err, KR_RT_ERROR, "%s: out of memory", path);
  snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    kr_rt_fail(err, KR_RT_ERROR, "%s: cannot create a temporary file: %s", path, strerror(errno));
    free(tmp);
    return KR_RT_ERROR;
  }
  /* mkstemp makes 0600; give the file the usual 0666 & ~umask. */
  mode_t mask = umask(0);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask);
  FILE *f = fdopen(fd, "wb");
  bool ok = f && fwrite(header, 1, padded, f) == padded && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
  int e = errno;
  if (f) {
    if (fclose(f) != 0 && ok) {
      ok = false;
      e = errno;
    }
  } else
    close(fd);
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    unlink(tmp);
    kr_rt_fail(err, KR_RT_ERROR, "%s: cannot write: %s", path, strerror(e));
  }
  free(tmp);
  return ok ? KR_RT_OK : KR_RT_ERROR;
}
