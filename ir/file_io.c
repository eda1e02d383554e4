/* ir/file_io.c - safe, atomic output files (korch/file.h): symlinks followed, devices and FIFOs
 * written in place, regular files replaced through a temporary file + rename().
 *
 * The temporary file is created with open(O_CREAT | O_EXCL) under a random name rather than
 * mkstemp(): mkstemp always creates mode 0600, and giving a new file fopen()'s 0666 & ~umask
 * afterwards needs the umask, which can only be read by setting it (not thread-safe).  With
 * open(..., 0666) the kernel applies the umask (and the directory's default ACL) itself. */
#include "korch/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  MAX_LINK_HOPS = 40,     /* Linux's own limit on a chain of symlinks (ELOOP beyond) */
  MAX_TEMP_TRIES = 100,   /* names tried before giving up with EEXIST */
};

static const char TMP_SUFFIX[] = ".tmpXXXXXX";

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Follows the symlinks of the last component of `path` (a chain of at most MAX_LINK_HOPS) and
 * stores the first name that is not a link (a file, or nothing yet for a dangling link) in
 * *resolved (malloc'd).  A relative link target is relative to the link's directory.  Returns 0
 * or an errno (ELOOP, ENOMEM, a readlink error). */
static int resolve_links(const char *path, char **resolved) {
  *resolved = NULL;
  char *p = dup_str(path);
  if (!p) return ENOMEM;
  for (int hops = 0;; hops++) {
    struct stat st;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) break;
    if (hops == MAX_LINK_HOPS) {
      free(p);
      return ELOOP;
    }
    /* st_size is the target's length, except for /proc's links (0): grow until it fits. */
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 256;
    char *target = NULL;
    ssize_t n;
    for (;;) {
      char *t = realloc(target, cap);
      if (!t) {
        free(target);
        free(p);
        return ENOMEM;
      }
      target = t;
      n = readlink(p, target, cap);
      if (n < 0) {
        int err = errno;
        free(target);
        free(p);
        return err;
      }
      if ((size_t)n < cap) break;
      cap *= 2;
    }
    target[n] = '\0';
    if (target[0] == '/') {
      free(p);
      p = target;
      continue;
    }
    const char *slash = strrchr(p, '/');
    size_t dir_len = slash ? (size_t)(slash - p) + 1 : 0;
    char *next = malloc(dir_len + (size_t)n + 1);
    if (!next) {
      free(target);
      free(p);
      return ENOMEM;
    }
    memcpy(next, p, dir_len);
    memcpy(next + dir_len, target, (size_t)n + 1);
    free(target);
    free(p);
    p = next;
  }
  *resolved = p;
  return 0;
}

/* Opens out->path to be written in place (a device, a FIFO, a /proc fd link).  Never creates. */
static int open_in_place(kr_file_output *out) {
  int fd = open(out->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno;
  out->file = fdopen(fd, "wb");
  if (!out->file) {
    int err = errno;
    close(fd);
    return err;
  }
  return 0;
}

/* splitmix64: mixes the seed of a temporary name. */
static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Creates the temporary file `<out->path>.tmpXXXXXX` (out->tmp_path) next to the final path.
 * `old` is the file it will replace (NULL: none): the temporary starts private (0600) and then
 * takes that file's owner, group and permissions; a new file gets 0666 & ~umask. */
static int create_temp(kr_file_output *out, const struct stat *old) {
  static atomic_uint_fast64_t counter;
  static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  size_t n = strlen(out->path);
  out->tmp_path = malloc(n + sizeof TMP_SUFFIX);
  if (!out->tmp_path) return ENOMEM;
  memcpy(out->tmp_path, out->path, n);
  memcpy(out->tmp_path + n, TMP_SUFFIX, sizeof TMP_SUFFIX);
  char *x = out->tmp_path + n + sizeof TMP_SUFFIX - 7; /* the six X's */
  int fd = -1, err = EEXIST;
  for (int attempt = 0; attempt < MAX_TEMP_TRIES && fd < 0; attempt++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                    (atomic_fetch_add(&counter, 1) * 0x2545F4914F6CDD1Dull) ^ (uint64_t)(uintptr_t)out;
    uint64_t r = mix64(seed);
    for (int i = 0; i < 6; i++, r /= 62) x[i] = alnum[r % 62];
    fd = open(out->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, old ? 0600 : 0666);
    if (fd < 0 && errno != EEXIST) return errno; /* ENOENT (no directory), EACCES, EROFS, ... */
  }
  if (fd < 0) return err;
  if (old) {
    /* Best effort: only root may give a file away, and a group only to one the process is in. */
    struct stat now;
    if (fstat(fd, &now) == 0 && (now.st_uid != old->st_uid || now.st_gid != old->st_gid))
      (void)!fchown(fd, old->st_uid, old->st_gid);
    (void)fchmod(fd, old->st_mode & 07777); /* after fchown, which may clear set-id bits */
  }
  out->file = fdopen(fd, "wb");
  if (!out->file) {
    err = errno;
    close(fd);
    unlink(out->tmp_path);
    return err;
  }
  return 0;
}

int kr_file_output_open(kr_file_output *out, const char *path) {
  memset(out, 0, sizeof *out);
  if (!path || strcmp(path, "-") == 0) {
    out->file = stdout;
    return 0;
  }
  /* First what `path` is, following links the kernel's way (/dev/stderr is a link to
   * /proc/self/fd/2, whose target may be "pipe:[1234]", which is no name at all). */
  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (!exists && errno != ENOENT) {
    int err = errno;
    out->path = dup_str(path);
    return err;
  }
  if (exists && S_ISDIR(st.st_mode)) {
    out->path = dup_str(path);
    return EISDIR;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    out->path = dup_str(path);
    return out->path ? open_in_place(out) : ENOMEM;
  }
  /* A regular file or nothing: replace (or create) the file the links lead to. */
  int err = resolve_links(path, &out->path);
  if (err) {
    if (err != ENOMEM) out->path = dup_str(path);
    return err;
  }
  struct stat fst;
  bool final_exists = lstat(out->path, &fst) == 0;
  if (exists && (!final_exists || !S_ISREG(fst.st_mode))) {
    /* The links lead to no name (a /proc fd link to a deleted file), or the file changed under
     * us: write in place through `path` itself. */
    free(out->path);
    out->path = dup_str(path);
    return out->path ? open_in_place(out) : ENOMEM;
  }
  return create_temp(out, final_exists ? &fst : NULL);
}

/* fsync()s the directory holding `path` so that a rename in it is durable; errors ignored. */
static void sync_parent_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir;
  if (!slash) {
    dir = dup_str(".");
  } else {
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    dir = malloc(n + 1);
    if (dir) {
      memcpy(dir, path, n);
      dir[n] = '\0';
    }
  }
  if (!dir) return;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(dir);
}

int kr_file_output_commit(kr_file_output *out, bool sync) {
  if (!out->file) return EINVAL;
  FILE *f = out->file;
  out->file = NULL;
  int err = 0;
  errno = 0;
  if (fflush(f) != 0) err = errno ? errno : EIO;
  if (!err && ferror(f)) err = EIO;
  if (!out->tmp_path) { /* in place */
    if (f != stdout && fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (!err) kr_file_output_abort(out);
    return err;
  }
  if (!err && sync && fsync(fileno(f)) != 0) err = errno;
  if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (!err && rename(out->tmp_path, out->path) != 0) err = errno;
  if (err) {
    unlink(out->tmp_path);
    free(out->tmp_path);
    out->tmp_path = NULL; /* out->path stays for kr_file_output_failed_path */
    return err;
  }
  if (sync) sync_parent_dir(out->path);
  kr_file_output_abort(out);
  return 0;
}

void kr_file_output_abort(kr_file_output *out) {
  if (out->file) {
    if (out->file == stdout) {
      fflush(stdout);
    } else {
      fclose(out->file);
      if (out->tmp_path) unlink(out->tmp_path);
    }
  }
  free(out->path);
  free(out->tmp_path);
  out->file = NULL;
  out->path = out->tmp_path = NULL;
}

const char *kr_file_output_failed_path(const kr_file_output *out) {
  return out->tmp_path ? out->tmp_path : out->path;
}
