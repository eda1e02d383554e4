/* test/fuzz/replay_main.c - runs the fuzz target over files without libFuzzer, so every build
 * (gcc, ASan+UBSan) replays the checked-in corpus from ctest.  Usage: parse_fuzz_replay FILE|DIR... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int failed = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= run_file(argv[i]);
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      perror(argv[i]);
      return 1;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      names = realloc(names, (nn + 1) * sizeof *names);
      size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[nn] = malloc(l);
      snprintf(names[nn++], l, "%s/%s", argv[i], e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);   /* deterministic order */
    for (size_t k = 0; k < nn; k++) {
      failed |= run_file(names[k]);
      count++;
      free(names[k]);
    }
    free(names);
  }
  printf("parse_fuzz_replay: %d inputs replayed\n", count);
  return failed;
}
