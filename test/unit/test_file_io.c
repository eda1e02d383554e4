/* Unit tests: korch/file.h (ir/file_io.c), the one way libkorch and the tools write a file:
 * regular files replaced atomically through a temporary file, symlinks followed (the link stays),
 * devices and FIFOs written in place (never replaced: /dev/null must stay a character device),
 * errors as errno values, and no temporary file ever left behind. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "korch/file.h"
#include "korch/target.h"
#include "test/unit/unit_fixture.h"

static char tmpdir[64];
static char pathbuf[4][256];

static void make_tmpdir(void) {
  strcpy(tmpdir, "/tmp/korch-fileio-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

/* tmpdir/name in one of four static buffers (slot 0..3). */
static const char *in_tmp(int slot, const char *name) {
  snprintf(pathbuf[slot], sizeof pathbuf[slot], "%s/%s", tmpdir, name);
  return pathbuf[slot];
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* The whole content of `path` (static buffer; "<missing>" when it cannot be opened). */
static const char *content(const char *path) {
  static char buf[256];
  FILE *f = fopen(path, "rb");
  if (!f) return "<missing>";
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* Entries of `dir` (without . and ..); with `tmp_only`, only names containing ".tmp". */
static unsigned count_entries(const char *dir, bool tmp_only) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  unsigned n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (!tmp_only || strstr(e->d_name, ".tmp")) n++;
  }
  closedir(d);
  return n;
}

static void assert_dev_null_intact(void) {
  struct stat st;
  ck_assert_int_eq(lstat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  ck_assert_uint_eq(major(st.st_rdev), 1);
  ck_assert_uint_eq(minor(st.st_rdev), 3);
}

START_TEST(regular_file_replaced_atomically) {
  make_tmpdir();
  const char *path = in_tmp(0, "out.txt");
  write_file(path, "old");
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, path), 0);
  ck_assert_ptr_nonnull(out.file);
  ck_assert_ptr_nonnull(out.tmp_path);
  ck_assert_str_eq(out.path, path);
  ck_assert(strncmp(out.tmp_path, path, strlen(path)) == 0);   /* <path>.tmpXXXXXX, same directory */
  ck_assert(strncmp(out.tmp_path + strlen(path), ".tmp", 4) == 0);
  ck_assert_uint_eq(strlen(out.tmp_path), strlen(path) + 10);
  fputs("partial", out.file);
  fflush(out.file);
  ck_assert_str_eq(content(path), "old");   /* readers see the old file while it is written */
  ck_assert_uint_eq(count_entries(tmpdir, true), 1);
  kr_file_output_abort(&out);
  ck_assert_ptr_null(out.file);
  ck_assert_str_eq(content(path), "old");   /* aborted: old content kept */
  ck_assert_uint_eq(count_entries(tmpdir, false), 1);
  kr_file_output_abort(&out);   /* twice: harmless */

  ck_assert_int_eq(kr_file_output_open(&out, path), 0);
  fputs("new", out.file);
  ck_assert_str_eq(content(path), "old");
  ck_assert_int_eq(kr_file_output_commit(&out, true), 0);
  ck_assert_ptr_null(out.file);
  ck_assert_ptr_null(out.path);
  ck_assert_ptr_null(out.tmp_path);
  ck_assert_str_eq(content(path), "new");
  ck_assert_uint_eq(count_entries(tmpdir, false), 1);
  kr_file_output_abort(&out);   /* after a successful commit: nothing to do */
  ck_assert_str_eq(content(path), "new");

  /* A new file (no old one), with a relative path. */
  char cwd[512];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(tmpdir), 0);
  ck_assert_int_eq(kr_file_output_open(&out, "fresh.txt"), 0);
  fputs("fresh", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, true), 0);
  ck_assert_int_eq(chdir(cwd), 0);
  ck_assert_str_eq(content(in_tmp(1, "fresh.txt")), "fresh");
  ck_assert_uint_eq(count_entries(tmpdir, false), 2);
  remove_tmpdir();
}
END_TEST

START_TEST(permissions_like_fopen_or_the_replaced_file) {
  make_tmpdir();
  const char *kept = in_tmp(0, "kept.txt");
  write_file(kept, "old");
  ck_assert_int_eq(chmod(kept, 0640), 0);
  mode_t old_mask = umask(022);
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, kept), 0);
  fputs("x", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  struct stat st;
  ck_assert_int_eq(stat(kept, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0640);   /* the replaced file's permissions */

  const char *fresh = in_tmp(1, "fresh.txt");
  ck_assert_int_eq(kr_file_output_open(&out, fresh), 0);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  ck_assert_int_eq(stat(fresh, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0644);   /* 0666 & ~022, as fopen gives (not mkstemp's 0600) */
  umask(077);
  const char *priv = in_tmp(2, "private.txt");
  ck_assert_int_eq(kr_file_output_open(&out, priv), 0);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  ck_assert_int_eq(stat(priv, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0600);
  umask(old_mask);

  /* As root: the replaced file's owner and group are kept too. */
  if (geteuid() == 0) {
    ck_assert_int_eq(chown(kept, 4321, 4322), 0);
    ck_assert_int_eq(kr_file_output_open(&out, kept), 0);
    ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
    ck_assert_int_eq(stat(kept, &st), 0);
    ck_assert_uint_eq(st.st_uid, 4321);
    ck_assert_uint_eq(st.st_gid, 4322);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
  }
  remove_tmpdir();
}
END_TEST

START_TEST(symlink_kept_target_replaced) {
  make_tmpdir();
  ck_assert_int_eq(mkdir(in_tmp(0, "sub"), 0777), 0);
  const char *target = in_tmp(0, "sub/target.txt");
  write_file(target, "old");
  const char *link = in_tmp(1, "link.txt");
  ck_assert_int_eq(symlink("sub/target.txt", link), 0);   /* relative to the link's directory */
  const char *link2 = in_tmp(2, "link2.txt");
  ck_assert_int_eq(symlink(link, link2), 0);               /* a chain: link2 -> link -> target */

  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, link2), 0);
  ck_assert_str_eq(out.path, target);
  ck_assert(strncmp(out.tmp_path, target, strlen(target)) == 0);   /* next to the target */
  fputs("via links", out.file);
  ck_assert_uint_eq(count_entries(in_tmp(3, "sub"), true), 1);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));   /* the links stay links */
  ck_assert_int_eq(lstat(link2, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  char buf[256];
  ssize_t n = readlink(link, buf, sizeof buf - 1);
  ck_assert_int_eq(n, (ssize_t)strlen("sub/target.txt"));
  buf[n] = 0;
  ck_assert_str_eq(buf, "sub/target.txt");
  ck_assert_str_eq(content(target), "via links");
  ck_assert_uint_eq(count_entries(tmpdir, false), 3);   /* sub, link, link2 */
  ck_assert_uint_eq(count_entries(in_tmp(3, "sub"), false), 1);

  /* A dangling link: its target is created, the link stays. */
  const char *dangling = in_tmp(1, "dangling.txt");
  ck_assert_int_eq(symlink("sub/new.txt", dangling), 0);
  ck_assert_int_eq(kr_file_output_open(&out, dangling), 0);
  fputs("created", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  ck_assert_int_eq(lstat(dangling, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_str_eq(content(in_tmp(2, "sub/new.txt")), "created");

  /* A loop of links: ELOOP, nothing created. */
  const char *a = in_tmp(1, "loop-a"), *b = in_tmp(2, "loop-b");
  ck_assert_int_eq(symlink("loop-b", a), 0);
  ck_assert_int_eq(symlink("loop-a", b), 0);
  ck_assert_int_eq(kr_file_output_open(&out, a), ELOOP);
  ck_assert_ptr_null(out.file);
  ck_assert_ptr_nonnull(kr_file_output_failed_path(&out));
  kr_file_output_abort(&out);
  ck_assert_uint_eq(count_entries(tmpdir, true), 0);
  remove_tmpdir();
}
END_TEST

START_TEST(dev_null_stays_a_character_device) {
  assert_dev_null_intact();
  unsigned dev_tmps = count_entries("/dev", true);   /* stray files from elsewhere are not ours */
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, "/dev/null"), 0);
  ck_assert_ptr_null(out.tmp_path);   /* in place: no temporary file in /dev */
  fputs("discarded", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, true), 0);
  assert_dev_null_intact();
  /* aborted, and through a symlink to it */
  ck_assert_int_eq(kr_file_output_open(&out, "/dev/null"), 0);
  fputs("discarded", out.file);
  kr_file_output_abort(&out);
  assert_dev_null_intact();
  make_tmpdir();
  const char *link = in_tmp(0, "null-link");
  ck_assert_int_eq(symlink("/dev/null", link), 0);
  ck_assert_int_eq(kr_file_output_open(&out, link), 0);
  ck_assert_ptr_null(out.tmp_path);
  fputs("discarded", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  assert_dev_null_intact();
  ck_assert_uint_eq(count_entries("/dev", true), dev_tmps);   /* no temporary file in /dev */
  remove_tmpdir();
}
END_TEST

START_TEST(device_write_error_reported) {
  /* /dev/full: written in place, and the write error (ENOSPC) comes out of the commit. */
  struct stat st;
  if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) return;
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, "/dev/full"), 0);
  ck_assert_ptr_null(out.tmp_path);
  fputs("no room", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, false), ENOSPC);
  ck_assert_str_eq(kr_file_output_failed_path(&out), "/dev/full");
  kr_file_output_abort(&out);
  ck_assert_int_eq(stat("/dev/full", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

START_TEST(fifo_written_in_place) {
  make_tmpdir();
  const char *fifo = in_tmp(0, "pipe");
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {   /* the reader: exit 0 when it got exactly the text */
    alarm(20);
    FILE *f = fopen(fifo, "rb");
    if (!f) _exit(2);
    char buf[64];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    _exit(strcmp(buf, "through the fifo") == 0 ? 0 : 1);
  }
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, fifo), 0);   /* blocks until the child opens it */
  ck_assert_ptr_null(out.tmp_path);
  fputs("through the fifo", out.file);
  ck_assert_int_eq(kr_file_output_commit(&out, false), 0);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  struct stat st;
  ck_assert_int_eq(lstat(fifo, &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));   /* still a FIFO */
  ck_assert_uint_eq(count_entries(tmpdir, false), 1);
  remove_tmpdir();
}
END_TEST

START_TEST(dev_stderr_as_a_pipe_written_in_place) {
  /* /dev/stderr -> /proc/self/fd/2 -> "pipe:[N]", which is no file name: written in place. */
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    close(p[0]);
    if (dup2(p[1], 2) < 0) _exit(2);
    close(p[1]);
    kr_file_output out;
    if (kr_file_output_open(&out, "/dev/stderr") != 0 || out.tmp_path) _exit(3);
    fputs("to stderr", out.file);
    _exit(kr_file_output_commit(&out, false) == 0 ? 0 : 4);
  }
  close(p[1]);
  char buf[64];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof buf - 1 && (r = read(p[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)r;
  buf[n] = 0;
  close(p[0]);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  ck_assert_str_eq(buf, "to stderr");
}
END_TEST

START_TEST(errors_leave_nothing_behind) {
  make_tmpdir();
  kr_file_output out;
  /* A missing directory: ENOENT, about the temporary file that could not be created. */
  const char *missing = in_tmp(0, "no/such/dir/out.txt");
  ck_assert_int_eq(kr_file_output_open(&out, missing), ENOENT);
  ck_assert_ptr_null(out.file);
  const char *failed = kr_file_output_failed_path(&out);
  ck_assert_ptr_nonnull(failed);
  ck_assert(strncmp(failed, missing, strlen(missing)) == 0);
  ck_assert(strstr(failed + strlen(missing), ".tmp") != NULL);
  kr_file_output_abort(&out);
  ck_assert_ptr_null(out.path);
  ck_assert_ptr_null(out.tmp_path);
  ck_assert_uint_eq(count_entries(tmpdir, false), 0);

  /* A directory: EISDIR, and the directory is untouched. */
  ck_assert_int_eq(kr_file_output_open(&out, tmpdir), EISDIR);
  ck_assert_str_eq(kr_file_output_failed_path(&out), tmpdir);
  kr_file_output_abort(&out);

  /* The rename fails (a directory appeared at the path): the temporary file is removed. */
  const char *path = in_tmp(0, "becomes-a-dir");
  ck_assert_int_eq(kr_file_output_open(&out, path), 0);
  fputs("lost", out.file);
  ck_assert_int_eq(mkdir(path, 0777), 0);
  write_file(in_tmp(1, "becomes-a-dir/inside"), "x");
  int err = kr_file_output_commit(&out, false);
  ck_assert(err == EISDIR || err == ENOTEMPTY || err == EEXIST);
  ck_assert_ptr_null(out.file);
  ck_assert_str_eq(kr_file_output_failed_path(&out), path);
  ck_assert_uint_eq(count_entries(tmpdir, false), 1);   /* just the directory */
  kr_file_output_abort(&out);
  ck_assert_str_eq(content(in_tmp(1, "becomes-a-dir/inside")), "x");

  /* Committing what was never opened. */
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(kr_file_output_commit(&out, false), EINVAL);
  kr_file_output_abort(&out);

  /* An unwritable directory (not for root, who may write anyway). */
  if (geteuid() != 0) {
    const char *ro = in_tmp(0, "ro");
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    ck_assert_int_eq(kr_file_output_open(&out, in_tmp(1, "ro/out.txt")), EACCES);
    kr_file_output_abort(&out);
    ck_assert_uint_eq(count_entries(ro, false), 0);
    chmod(ro, 0755);
  }
  remove_tmpdir();
}
END_TEST

START_TEST(dash_is_standard_output) {
  kr_file_output out;
  ck_assert_int_eq(kr_file_output_open(&out, "-"), 0);
  ck_assert_ptr_eq(out.file, stdout);
  ck_assert_ptr_null(out.path);
  ck_assert_ptr_null(out.tmp_path);
  ck_assert_int_eq(kr_file_output_commit(&out, true), 0);
  ck_assert_ptr_null(out.file);
  ck_assert_int_eq(fileno(stdout), 1);   /* not closed */
  ck_assert_int_ge(fcntl(1, F_GETFD), 0);
  ck_assert_int_eq(kr_file_output_open(&out, NULL), 0);
  ck_assert_ptr_eq(out.file, stdout);
  kr_file_output_abort(&out);
  ck_assert_int_ge(fcntl(1, F_GETFD), 0);
}
END_TEST

/* kr_profile_db_record (backend/target/profile_db.c) uses this layer: through a symlink, the
 * lock file and the temporary file sit next to the database the link points to, the link stays,
 * and a second record merges into the same file. */
START_TEST(profile_db_record_through_symlink) {
  unit_context_setup(false);
  make_tmpdir();
  ck_assert_int_eq(mkdir(in_tmp(0, "real"), 0777), 0);
  const char *link = in_tmp(1, "db.xml");
  ck_assert_int_eq(symlink("real/profile.xml", link), 0);   /* dangling until the first record */
  kr_profile_entry e = {.target = "toy", .hash = 0x0123456789abcdefull, .time_us = 2.5, .runs = 3, .name = "k0"};
  ck_assert_int_eq(kr_profile_db_record(ctx, link, &e, 1, NULL), KR_SUCCESS);
  e.hash = 42;
  e.time_us = 7.25;
  ck_assert_int_eq(kr_profile_db_record(ctx, link, &e, 1, NULL), KR_SUCCESS);
  ck_assert_uint_eq(num_errors, 0);
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(lstat(in_tmp(2, "real/profile.xml"), &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  ck_assert_int_eq(lstat(in_tmp(2, "real/profile.xml.lock"), &st), 0);   /* lock beside the target */
  ck_assert_uint_eq(count_entries(tmpdir, false), 2);                     /* real/, db.xml: no lock here */
  ck_assert_uint_eq(count_entries(in_tmp(3, "real"), false), 2);          /* no temporary left */
  kr_profile_db db = {0};
  ck_assert_int_eq(kr_profile_db_load(ctx, in_tmp(2, "real/profile.xml"), NULL, &db), KR_SUCCESS);
  ck_assert_uint_eq(db.num_entries, 2);
  ck_assert(kr_profile_db_lookup(&db, "toy", 0x0123456789abcdefull) == 2.5);
  ck_assert(kr_profile_db_lookup(&db, "toy", 42) == 7.25);
  kr_profile_db_free(&db);
  remove_tmpdir();
  unit_context_teardown();
}
END_TEST

int main(void) {
  struct stat st;
  if (lstat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode)) {
    fprintf(stderr, "/dev/null is not a character device before the tests: restore it first\n");
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("file_io");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, regular_file_replaced_atomically);
  tcase_add_test(tc, permissions_like_fopen_or_the_replaced_file);
  tcase_add_test(tc, symlink_kept_target_replaced);
  tcase_add_test(tc, dev_null_stays_a_character_device);
  tcase_add_test(tc, device_write_error_reported);
  tcase_add_test(tc, fifo_written_in_place);
  tcase_add_test(tc, dev_stderr_as_a_pipe_written_in_place);
  tcase_add_test(tc, errors_leave_nothing_behind);
  tcase_add_test(tc, dash_is_standard_output);
  tcase_add_test(tc, profile_db_record_through_symlink);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
