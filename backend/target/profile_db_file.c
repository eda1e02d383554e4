/* backend/target/profile_db_file.c - the profile database's format core (profile_db_file.h):
 * strict reading with libxml2 and the lock + merge + atomic-rename writer, with errors as
 * strings.  No korch context, so that the runtime (korch-run --profile) compiles this file too;
 * kr_profile_db_load/record (profile_db.c) are wrappers that report diagnostics. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "backend/target/profile_db_file.h"
#include "backend/target/xml_core.h"
#include "korch/file.h"

/* A measured kernel time above this (1000 s) is not a measurement: the entry is corrupt.  It also
 * keeps costs far below what the MILP accepts (solver/milp_impl.h, 1e20). */
#define KR_PROFILE_MAX_TIME_US 1e9

typedef kr_pdb_entry kr_profile_entry;

static bool fail(kr_pdb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(kr_pdb_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return false;
}

static int entry_cmp(const kr_profile_entry *a, const kr_profile_entry *b) {
  int c = strcmp(a->target, b->target);
  if (c) return c;
  return a->hash < b->hash ? -1 : a->hash > b->hash ? 1 : 0;
}

/* Sort key plus the position in the input, so that equal keys keep their input order (qsort is
 * not stable) and duplicates are found next to each other. */
typedef struct keyed {
  kr_profile_entry e;
  unsigned pos;
  long line;
} keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = entry_cmp(&a->e, &b->e);
  if (c) return c;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* A target or name string: printable ASCII, no control characters (they would not survive the
 * attribute round trip), NUL-terminated inside `size` bytes. */
static bool valid_text(const char *s, size_t size, bool nonempty) {
  const char *end = memchr(s, 0, size);
  if (end == NULL || (nonempty && end == s)) return false;
  for (; s < end; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
  return true;
}

bool kr_pdb_parse_hash(const char *s, uint64_t *out) {
  if (s == NULL || strlen(s) != 16) return false;
  uint64_t h = 0;
  for (int i = 0; i < 16; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (unsigned)(c - 'a' + 10);
    else
      return false;
    h = h << 4 | d;
  }
  *out = h;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Reading, through the libxml2 helpers shared with the target loader (xml_core.h): libxml2 never
 * prints; the first error becomes the message "url:line: <libxml2's message>". */

/* Reads one <kernel> element into *e. */
static bool read_entry(const char *path, xmlNodePtr n, kr_profile_entry *e, kr_pdb_error *err) {
  long line = kr_xml_line(n);
  memset(e, 0, sizeof *e);
  e->runs = 1;
  if (strcmp((const char *)n->name, "kernel") != 0)
    return fail(err, "%s:%ld: unexpected element <%s> (expected <kernel>)", path, line, (const char *)n->name);
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE || ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content &&
                                        c->content[strspn((const char *)c->content, " \t\r\n")]))
      return fail(err, "%s:%ld: <kernel> must be empty", path, line);
  bool has_target = false, has_hash = false, has_time = false;
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    const char *an = (const char *)a->name;
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    const char *vs = v ? (const char *)v : "";
    bool ok = true;
    int64_t iv;
    if (strcmp(an, "target") == 0) {
      has_target = true;
      if (!valid_text(vs, sizeof e->target, true) || strlen(vs) >= sizeof e->target)
        ok = fail(err, "%s:%ld: bad target '%s' (1 to %zu printable characters)", path, line, vs, sizeof e->target - 1);
      else
        snprintf(e->target, sizeof e->target, "%s", vs);
    } else if (strcmp(an, "hash") == 0) {
      has_hash = true;
      if (!kr_pdb_parse_hash(vs, &e->hash))
        ok = fail(err, "%s:%ld: bad hash '%s' (expected 16 lower-case hex digits)", path, line, vs);
    } else if (strcmp(an, "time_us") == 0) {
      has_time = true;
      if (!kr_xml_parse_f64(vs, &e->time_us) || !(e->time_us > 0))
        ok = fail(err, "%s:%ld: bad time_us '%s' (expected a positive finite number)", path, line, vs);
      else if (e->time_us > KR_PROFILE_MAX_TIME_US)
        ok = fail(err, "%s:%ld: bad time_us '%s' (more than %g us, 1000 s, for one kernel: corrupt)", path, line, vs,
                  KR_PROFILE_MAX_TIME_US);
    } else if (strcmp(an, "runs") == 0) {
      if (!kr_xml_parse_i64(vs, &iv) || iv < 1)
        ok = fail(err, "%s:%ld: bad runs '%s' (expected a positive integer)", path, line, vs);
      else
        e->runs = iv;
    } else if (strcmp(an, "name") == 0) {
      if (!valid_text(vs, sizeof e->name, false) || strlen(vs) >= sizeof e->name)
        ok = fail(err, "%s:%ld: bad name '%s' (at most %zu printable characters)", path, line, vs, sizeof e->name - 1);
      else
        snprintf(e->name, sizeof e->name, "%s", vs);
    } else {
      ok = fail(err, "%s:%ld: unknown attribute '%s' on <kernel>", path, line, an);
    }
    xmlFree(v);
    if (!ok) return false;
  }
  const char *missing = !has_target ? "target" : !has_hash ? "hash" : !has_time ? "time_us" : NULL;
  if (missing) return fail(err, "%s:%ld: <kernel> lacks the attribute '%s'", path, line, missing);
  return true;
}

/* Sorts `n` keyed entries and moves them into db; equal (target, hash) pairs are an error
 * (when `dup_is_error`) or resolved in favour of the later one. */
static bool finish(const char *path, keyed *k, unsigned n, bool dup_is_error, kr_pdb *db, kr_pdb_error *err) {
  if (n) qsort(k, n, sizeof *k, keyed_cmp);
  kr_profile_entry *out = n ? malloc(n * sizeof *out) : NULL;
  if (n && !out) return fail(err, "%s: out of memory", path);
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++) {
    if (m > 0 && entry_cmp(&out[m - 1], &k[i].e) == 0) {
      if (dup_is_error) {
        free(out);
        return fail(err, "%s:%ld: duplicate entry for target '%s' hash %016" PRIx64 " (first at line %ld)", path,
                    k[i].line, k[i].e.target, k[i].e.hash, k[i - 1].line);
      }
      out[m - 1] = k[i].e; /* the later one wins */
      continue;
    }
    out[m++] = k[i].e;
  }
  db->entries = out;
  db->num_entries = m;
  return true;
}

static bool load_fd(const char *path, int fd, kr_pdb *db, kr_pdb_error *err) {
  xmlDocPtr doc = kr_xml_read(path, NULL, 0, fd, err->msg, sizeof err->msg);
  if (doc == NULL) return false;
  xmlNodePtr root = xmlDocGetRootElement(doc);
  long root_line = kr_xml_line(root);
  bool ok = true;
  keyed *k = NULL;
  unsigned n = 0, cap = 0;
  if (strcmp((const char *)root->name, "korch-profile") != 0) {
    ok = fail(err, "%s:%ld: root element is <%s>, expected <korch-profile>", path, root_line, (const char *)root->name);
    goto done;
  }
  for (xmlAttrPtr a = root->properties; a; a = a->next)
    if (strcmp((const char *)a->name, "version") != 0) {
      ok = fail(err, "%s:%ld: unknown attribute '%s' on <korch-profile>", path, root_line, (const char *)a->name);
      goto done;
    }
  xmlChar *version = xmlGetProp(root, (const xmlChar *)"version");
  if (!(version && strcmp((const char *)version, "1") == 0))
    ok = fail(err, "%s:%ld: unsupported profile database version '%s' (expected version=\"1\")", path, root_line,
              version ? (const char *)version : "(none)");
  xmlFree(version);
  if (!ok) goto done;
  bool more;
  for (xmlNodePtr c = kr_xml_next_element_msg(path, root->children, &more, err->msg, sizeof err->msg); c;
       c = kr_xml_next_element_msg(path, c->next, &more, err->msg, sizeof err->msg)) {
    if (n == cap) {
      unsigned nc = cap ? 2 * cap : 64;
      keyed *nk = realloc(k, nc * sizeof *nk);
      if (!nk) {
        ok = fail(err, "%s: out of memory", path);
        goto done;
      }
      k = nk;
      cap = nc;
    }
    if (!(ok = read_entry(path, c, &k[n].e, err))) goto done;
    k[n].pos = n;
    k[n].line = kr_xml_line(c);
    n++;
  }
  if (!more) {
    ok = false;
    goto done;
  }
  ok = finish(path, k, n, true, db, err);
done:
  free(k);
  xmlFreeDoc(doc);
  return ok;
}

bool kr_pdb_load(const char *path, kr_pdb *db, kr_pdb_error *err) {
  db->entries = NULL;
  db->num_entries = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return true; /* no measurements yet */
    return fail(err, "%s: cannot read the profile database: %s", path, strerror(errno));
  }
  bool ok = load_fd(path, fd, db, err);
  close(fd);
  return ok;
}

void kr_pdb_free(kr_pdb *db) {
  if (!db) return;
  free(db->entries);
  db->entries = NULL;
  db->num_entries = 0;
}

double kr_pdb_lookup(const kr_pdb *db, const char *target, uint64_t hash) {
  if (db == NULL || target == NULL) return -1;
  kr_profile_entry key;
  memset(&key, 0, sizeof key);
  if (strlen(target) >= sizeof key.target) return -1;
  snprintf(key.target, sizeof key.target, "%s", target);
  key.hash = hash;
  unsigned lo = 0, hi = db->num_entries;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    int c = entry_cmp(&db->entries[mid], &key);
    if (c == 0) return db->entries[mid].time_us;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Writing. */

/* Writes s as XML attribute text (the characters valid_text admits, with & < > " escaped). */
static void put_attr_text(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
  }
}

/* The shortest of %.15g..%.17g that reads back as the same double. */
static void put_double(FILE *f, double v) {
  char buf[64];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  fputs(buf, f);
}

/* Writes the database `db` as XML to `f` (errors surface when the output is committed). */
static void write_db(FILE *f, const kr_pdb *db) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<korch-profile version=\"1\">\n", f);
  for (unsigned i = 0; i < db->num_entries; i++) {
    const kr_profile_entry *e = &db->entries[i];
    fputs("  <kernel target=\"", f);
    put_attr_text(f, e->target);
    fprintf(f, "\" hash=\"%016" PRIx64 "\" time_us=\"", e->hash);
    put_double(f, e->time_us);
    fprintf(f, "\" runs=\"%" PRId64 "\"", e->runs);
    if (e->name[0]) {
      fputs(" name=\"", f);
      put_attr_text(f, e->name);
      fputc('"', f);
    }
    fputs("/>\n", f);
  }
  fputs("</korch-profile>\n", f);
}

bool kr_pdb_record(const char *path, const kr_pdb_entry *entries, unsigned n, kr_pdb_error *err) {
  /* Validate the new entries first (the same rules as reading). */
  for (unsigned i = 0; i < n; i++) {
    const kr_profile_entry *e = &entries[i];
    if (!valid_text(e->target, sizeof e->target, true))
      return fail(err, "%s: entry %u: bad target (1 to %zu printable characters)", path, i, sizeof e->target - 1);
    if (!valid_text(e->name, sizeof e->name, false))
      return fail(err, "%s: entry %u: bad name (at most %zu printable characters)", path, i, sizeof e->name - 1);
    if (!(e->time_us > 0) || !isfinite(e->time_us))
      return fail(err, "%s: entry %u: time_us must be positive and finite, got %g", path, i, e->time_us);
    if (e->time_us > KR_PROFILE_MAX_TIME_US)
      return fail(err, "%s: entry %u: time_us %g is more than %g us (1000 s) for one kernel", path, i, e->time_us,
                  KR_PROFILE_MAX_TIME_US);
    if (e->runs < 1) return fail(err, "%s: entry %u: runs must be positive, got %" PRId64, path, i, e->runs);
  }
  /* korch/file.h: a temporary file beside the database (through a symlink: beside the file it
   * points to), renamed over it once fsync'd; a device or FIFO is written in place.  "-" is a file
   * named "-" here, not standard output. */
  kr_file_output out;
  int e = kr_file_output_open(&out, strcmp(path, "-") == 0 ? "./-" : path);
  if (e) {
    const char *failed = kr_file_output_failed_path(&out);
    if (out.tmp_path)
      fail(err, "%s: cannot create a temporary file '%s': %s", path, failed, strerror(e));
    else
      fail(err, "%s: cannot write the profile database: %s", path, strerror(e));
    kr_file_output_abort(&out);
    return false;
  }
  /* The lock sits next to the file that is replaced (the same for every link to it) and is never
   * removed: unlinking it would let two writers lock different inodes.  Nothing to lock for a
   * device or FIFO (no read-merge-rename; and no stray "/dev/null.lock"). */
  int lfd = -1;
  if (out.tmp_path) {
    size_t plen = strlen(out.path);
    char *lock_path = malloc(plen + 6);
    if (!lock_path) {
      kr_file_output_abort(&out);
      return fail(err, "%s: out of memory", path);
    }
    snprintf(lock_path, plen + 6, "%s.lock", out.path);
    lfd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lfd < 0) {
      fail(err, "%s: cannot open the lock file: %s", lock_path, strerror(errno));
      free(lock_path);
      kr_file_output_abort(&out);
      return false;
    }
    int r;
    while ((r = flock(lfd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (r != 0) {
      fail(err, "%s: cannot lock: %s", lock_path, strerror(errno));
      close(lfd);
      free(lock_path);
      kr_file_output_abort(&out);
      return false;
    }
    free(lock_path);
  }

  kr_pdb old = {0}, merged = {0};
  bool ok = kr_pdb_load(path, &old, err);
  keyed *k = NULL;
  if (ok) {
    unsigned total = old.num_entries + n;
    k = total ? malloc(total * sizeof *k) : NULL;
    if (total && !k) ok = fail(err, "%s: out of memory", path);
    for (unsigned i = 0; ok && i < total; i++) {
      k[i].e = i < old.num_entries ? old.entries[i] : entries[i - old.num_entries];
      k[i].pos = i; /* new entries come later: they replace old ones, and a later new one an earlier */
      k[i].line = 0;
    }
    if (ok) ok = finish(path, k, total, false, &merged, err);
    if (ok) {
      write_db(out.file, &merged);
      e = kr_file_output_commit(&out, true); /* fsync before the rename: old or new, never torn */
      if (e) ok = fail(err, "%s: cannot write the profile database: %s", path, strerror(e));
    }
  }
  kr_file_output_abort(&out); /* after a failed step: removes the temporary file */
  free(k);
  kr_pdb_free(&old);
  kr_pdb_free(&merged);
  if (lfd >= 0) {
    flock(lfd, LOCK_UN);
    close(lfd);
  }
  return ok;
}
