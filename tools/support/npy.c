/* tools/support/npy.c - NumPy .npy read/write (numpy/lib/format.py, format versions 1.0-3.0).
 *
 * Reading is strict: the header must be exactly the dict format.py writes (keys descr,
 * fortran_order, shape; any order; trailing comma allowed), the data must be exactly
 * numel * itemsize bytes, and every problem is one diagnostic at loc("path"). */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/op.h"

static const char NPY_MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static kr_attr path_loc(kr_context *ctx, const char *path) { return kr_loc_name(ctx, path, strlen(path), NULL); }

/* ---------------------------------------------------------------------------------------------
 * dtype codes. */

typedef struct npy_dtype {
  char kind;     /* f i u b */
  unsigned size; /* bytes */
} npy_dtype;

static kr_type dtype_to_type(kr_context *ctx, npy_dtype d) {
  switch (d.kind) {
  case 'f':
    return d.size == 2   ? kr_type_float(ctx, KR_F16)
           : d.size == 4 ? kr_type_float(ctx, KR_F32)
           : d.size == 8 ? kr_type_float(ctx, KR_F64)
                         : NULL;
  case 'b': return d.size == 1 ? kr_type_integer(ctx, 1, KR_SIGNLESS) : NULL;
  case 'i':
  case 'u':
    if (d.size != 1 && d.size != 2 && d.size != 4 && d.size != 8) return NULL;
    return kr_type_integer(ctx, d.size * 8, d.kind == 'u' ? KR_UNSIGNED : KR_SIGNLESS);
  default: return NULL;
  }
}

/* The descr of an element type ("<f4"), NULL for types .npy cannot hold (bf16, index, i3...). */
static const char *type_to_descr(kr_type e) {
  if (e->kind == KR_TYPE_FLOAT) {
    switch (e->u.fkind) {
    case KR_F16: return "<f2";
    case KR_F32: return "<f4";
    case KR_F64: return "<f8";
    case KR_BF16: return NULL;
    }
  }
  if (e->kind != KR_TYPE_INTEGER) return NULL;
  bool u = e->u.integer.sign == KR_UNSIGNED;
  switch (e->u.integer.width) {
  case 1: return "|b1";
  case 8: return u ? "|u1" : "|i1";
  case 16: return u ? "<u2" : "<i2";
  case 32: return u ? "<u4" : "<i4";
  case 64: return u ? "<u8" : "<i8";
  default: return NULL;
  }
}

/* ---------------------------------------------------------------------------------------------
 * Header parsing: a tiny reader of the Python literal subset format.py produces. */

typedef struct hdr {
  const char *p, *end;
} hdr;

static void skip_ws(hdr *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r')) h->p++;
}

static bool eat(hdr *h, char c) {
  skip_ws(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* A '...' or "..." string without escapes (none appear in valid headers). */
static bool read_str(hdr *h, char *buf, size_t cap) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return false;
  char q = *h->p++;
  size_t n = 0;
  while (h->p < h->end && *h->p != q) {
    if (*h->p == '\\' || n + 1 >= cap) return false;
    buf[n++] = *h->p++;
  }
  if (h->p >= h->end) return false;
  h->p++;
  buf[n] = 0;
  return true;
}

static bool read_word(hdr *h, const char *w) {
  skip_ws(h);
  size_t n = strlen(w);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0) return false;
  h->p += n;
  return true;
}

static bool read_int(hdr *h, int64_t *out) {
  skip_ws(h);
  const char *s = h->p;
  int64_t v = 0;
  while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (*h->p++ - '0');
  }
  if (h->p < h->end && *h->p == 'L') h->p++; /* Python 2 longs, as old numpy wrote them */
  *out = v;
  return h->p != s;
}

/* Parses the dict; on failure writes the reason into `why`. */
static bool parse_header(hdr *h, char *descr, size_t dcap, bool *fortran, int64_t *dims, unsigned *rank, char *why,
                         size_t wcap) {
  bool have_descr = false, have_fortran = false, have_shape = false;
  if (!eat(h, '{')) {
    snprintf(why, wcap, "the header is not a Python dict literal");
    return false;
  }
  for (;;) {
    if (eat(h, '}')) break;
    char key[32];
    if (!read_str(h, key, sizeof key) || !eat(h, ':')) {
      snprintf(why, wcap, "the header is not a Python dict literal");
      return false;
    }
    if (!strcmp(key, "descr")) {
      if (have_descr || !read_str(h, descr, dcap)) {
        snprintf(why, wcap, "the header's 'descr' is not a simple dtype string");
        return false;
      }
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      if (have_fortran) goto dup;
      if (read_word(h, "True"))
        *fortran = true;
      else if (read_word(h, "False"))
        *fortran = false;
      else {
        snprintf(why, wcap, "the header's 'fortran_order' is not True or False");
        return false;
      }
      have_fortran = true;
    } else if (!strcmp(key, "shape")) {
      if (have_shape) goto dup;
      if (!eat(h, '(')) {
        snprintf(why, wcap, "the header's 'shape' is not a tuple");
        return false;
      }
      *rank = 0;
      while (!eat(h, ')')) {
        int64_t d;
        if (*rank >= KR_OP_MAX_RANK) {
          snprintf(why, wcap, "the shape has more than %d dimensions", KR_OP_MAX_RANK);
          return false;
        }
        if (!read_int(h, &d)) {
          snprintf(why, wcap, "the header's 'shape' is not a tuple of non-negative integers");
          return false;
        }
        dims[(*rank)++] = d;
        if (!eat(h, ',')) {
          if (!eat(h, ')')) {
            snprintf(why, wcap, "the header's 'shape' is not a tuple of non-negative integers");
            return false;
          }
          break;
        }
      }
      have_shape = true;
    } else {
      snprintf(why, wcap, "the header has an unexpected key '%s'", key);
      return false;
    }
    if (!eat(h, ',')) {
      if (!eat(h, '}')) {
        snprintf(why, wcap, "the header is not a Python dict literal");
        return false;
      }
      break;
    }
  }
  skip_ws(h);
  if (h->p != h->end) {
    snprintf(why, wcap, "the header has text after the dict");
    return false;
  }
  if (!have_descr || !have_fortran || !have_shape) {
    snprintf(why, wcap, "the header lacks the key '%s'",
             !have_descr     ? "descr"
             : !have_fortran ? "fortran_order"
                             : "shape");
    return false;
  }
  return true;
dup:
  snprintf(why, wcap, "the header repeats a key");
  return false;
}

static const char BAD_ORDER[] = "no byte order";

/* "<f4" -> kind/size/byte order; NULL on success, else BAD_ORDER or another reason. */
static const char *parse_descr(const char *s, npy_dtype *d, bool *swap) {
  *swap = false;
  char order = '=';
  if (*s == '<' || *s == '>' || *s == '|' || *s == '=') order = *s++;
  if (!strcmp(s, "?")) {
    d->kind = 'b';
    d->size = 1;
  } else {
    if (!*s || !strchr("fiub", *s)) return "unsupported dtype";
    d->kind = *s++;
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno || n <= 0 || n > 8) return "unsupported dtype";
    d->size = (unsigned)n;
  }
  if (d->size > 1) {
    if (order == '|') return BAD_ORDER;
    /* '=' is native: korch is little-endian only (x86-64, aarch64). */
    *swap = order == '>';
  }
  return NULL;
}

static void byteswap(void *data, size_t n, unsigned size) {
  unsigned char *p = data;
  for (size_t i = 0; i < n; i++, p += size)
    for (unsigned a = 0, b = size - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

static char *read_all(const char *path, size_t *len, int *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = errno;
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    *err = EISDIR;
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (!buf || ferror(f)) {
    *err = buf ? (errno ? errno : EIO) : ENOMEM;
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

kr_status kr_npy_read(kr_context *ctx, const char *path, kr_tensor *out) {
  memset(out, 0, sizeof *out);
  kr_attr loc = path_loc(ctx, path);
  size_t len = 0;
  int err = 0;
  char *buf = read_all(path, &len, &err);
  if (!buf) return kr_emit_error(ctx, loc, "cannot read '%s': %s", path, strerror(err));
  kr_status st = KR_FAILURE;
  if (len < 10 || memcmp(buf, NPY_MAGIC, 6) != 0) {
    kr_emit_error(ctx, loc, "'%s' is not a NumPy .npy file (bad magic)", path);
    goto done;
  }
  unsigned major = (unsigned char)buf[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) {
      kr_emit_error(ctx, loc, "'%s' is truncated in its .npy header", path);
      goto done;
    }
    hlen = (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8 | (size_t)(unsigned char)buf[10] << 16 |
           (size_t)(unsigned char)buf[11] << 24;
    hstart = 12;
  } else {
    kr_emit_error(ctx, loc, "'%s' has unsupported .npy format version %u.%u", path, major, (unsigned char)buf[7]);
    goto done;
  }
  if (hlen > len - hstart) {
    kr_emit_error(ctx, loc, "'%s' is truncated in its .npy header", path);
    goto done;
  }
  char descr[32] = {0}, why[128];
  bool fortran = false;
  int64_t dims[KR_OP_MAX_RANK];
  unsigned rank = 0;
  hdr h = {buf + hstart, buf + hstart + hlen};
  if (!parse_header(&h, descr, sizeof descr, &fortran, dims, &rank, why, sizeof why)) {
    kr_emit_error(ctx, loc, "'%s' has a malformed .npy header: %s", path, why);
    goto done;
  }
  if (fortran) {
    kr_emit_error(ctx, loc, "'%s' is in Fortran order (fortran_order: True); only C order is supported", path);
    goto done;
  }
  npy_dtype dt;
  bool swap;
  const char *bad = parse_descr(descr, &dt, &swap);
  kr_type elem = bad ? NULL : dtype_to_type(ctx, dt);
  if (!elem) {
    if (bad == BAD_ORDER)
      kr_emit_error(ctx, loc, "'%s' has dtype '%s' with no byte order ('|' is for one-byte types only)", path, descr);
    else
      kr_emit_error(ctx, loc, "'%s' has unsupported dtype '%s' (korch reads f2 f4 f8 b1 i1 i2 i4 i8 u1 u2 u4 u8)", path,
                    descr);
    goto done;
  }
  int64_t numel = 1;
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] && numel > INT64_MAX / dims[i]) {
      kr_emit_error(ctx, loc, "'%s' has a shape too large to hold", path);
      goto done;
    }
    numel *= dims[i];
  }
  size_t have = len - hstart - hlen;
  if ((uint64_t)numel > SIZE_MAX / dt.size || have != (size_t)numel * dt.size) {
    kr_emit_error(ctx, loc, "'%s' has %zu data bytes but its shape and dtype '%s' need %lld", path, have, descr,
                  (long long)numel * (long long)dt.size);
    goto done;
  }
  if (kr_tensor_alloc(out, kr_type_tensor(ctx, dims, rank, elem))) {
    kr_emit_error(ctx, loc, "out of memory reading '%s'", path);
    goto done;
  }
  if (out->nbytes) memcpy(out->data, buf + hstart + hlen, out->nbytes);
  if (swap) byteswap(out->data, (size_t)numel, dt.size);
  if (dt.kind == 'b')
    for (int64_t i = 0; i < numel; i++) ((unsigned char *)out->data)[i] = ((unsigned char *)out->data)[i] != 0;
  st = KR_SUCCESS;
done:
  free(buf);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * Writing. */

kr_status kr_npy_write(kr_context *ctx, const char *path, const kr_tensor *t) {
  kr_attr loc = path_loc(ctx, path);
  if (!t->type || t->type->kind != KR_TYPE_TENSOR || !kr_type_has_static_shape(t->type))
    return kr_emit_error(ctx, loc, "cannot write '%s': not a statically shaped tensor", path);
  kr_type e = kr_tensor_elem(t);
  const char *descr = type_to_descr(e);
  if (!descr) {
    kr_ostream os;
    kr_ostream_init_mem(&os);
    kr_type_print(&os, e);
    kr_status st =
        kr_emit_error(ctx, loc, "cannot write '%s': element type %s has no NumPy dtype", path, kr_ostream_str(&os));
    kr_ostream_close(&os);
    return st;
  }
  /* Header: the dict, padded with spaces and ended by '\n' so that magic + version + length +
   * header is a multiple of 64 bytes (format.py's alignment). */
  char dict[64 + 24 * KR_OP_MAX_RANK];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  unsigned rank = kr_tensor_rank(t);
  for (unsigned i = 0; i < rank; i++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)kr_tensor_dims(t)[i],
                  i + 1 < rank ? " " : "");
  if (rank > 1) n--; /* (2, 3) not (2, 3,); a 1-tuple keeps its comma */
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  size_t prefix = 10, total = prefix + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  char header[sizeof dict + 80];
  memcpy(header, NPY_MAGIC, 6);
  header[6] = 1;
  header[7] = 0;
  size_t hl = padded - prefix;
  header[8] = (char)(hl & 0xff);
  header[9] = (char)(hl >> 8);
  memcpy(header + prefix, dict, (size_t)n);
  memset(header + prefix + n, ' ', padded - total);
  header[padded - 1] = '\n';

  /* Atomic: a temporary beside the target, renamed over it.  Through a symlink the file it points
   * to is replaced; a device or FIFO (/dev/null, /dev/stdout) is written in place. */
  char *resolved = NULL;
  struct stat sb;
  if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) resolved = realpath(path, NULL);
  const char *target = resolved ? resolved : path;
  FILE *f = NULL;
  char *tmp = NULL;
  if (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    f = fopen(target, "wb");
    if (!f) {
      kr_status st = kr_emit_error(ctx, loc, "cannot open '%s': %s", path, strerror(errno));
      free(resolved);
      return st;
    }
  } else {
    size_t tl = strlen(target);
    tmp = malloc(tl + sizeof ".tmpXXXXXX");
    if (!tmp) {
      free(resolved);
      return kr_emit_error(ctx, loc, "out of memory writing '%s'", path);
    }
    memcpy(tmp, target, tl);
    memcpy(tmp + tl, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
      kr_status st = kr_emit_error(ctx, loc, "cannot create '%s': %s", tmp, strerror(errno));
      free(tmp);
      free(resolved);
      return st;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, stat(target, &sb) == 0 ? (sb.st_mode & 07777) : (0666 & ~mask));
    f = fdopen(fd, "wb");
    if (!f) {
      close(fd);
      unlink(tmp);
      kr_status st = kr_emit_error(ctx, loc, "cannot open '%s': %s", tmp, strerror(errno));
      free(tmp);
      free(resolved);
      return st;
    }
  }
  bool ok = fwrite(header, 1, padded, f) == padded && (t->nbytes == 0 || fwrite(t->data, 1, t->nbytes, f) == t->nbytes);
  ok = fflush(f) == 0 && ok;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && tmp && rename(tmp, target) != 0) ok = false, err = errno;
  if (!ok && tmp) unlink(tmp);
  free(tmp);
  free(resolved);
  if (!ok) return kr_emit_error(ctx, loc, "cannot write '%s': %s", path, strerror(err ? err : EIO));
  return KR_SUCCESS;
}
