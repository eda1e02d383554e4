/* test/fuzz/onnx_mutate_main.c - a deterministic stand-in for fuzzing the ONNX importer, run by
 * ctest in every build (and so under ASan + UBSan in CI): every model.onnx of the ONNX node tests
 * listed in the conformance list is imported whole, truncated at 8 points and with 8 pseudo-random
 * single-byte corruptions (a fixed LCG, so a failure reproduces).  A crash, sanitizer report or
 * leak is the finding; import errors are expected and ignored.
 *
 * usage: onnx_mutate LIST NODE_DIR   (exit 77 when either is absent: nothing to test) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: onnx_mutate LIST NODE_DIR\n");
    return 2;
  }
  FILE *list = fopen(argv[1], "r");
  if (!list) {
    printf("onnx_mutate: %s is absent (../shared not beside the project): skipped\n", argv[1]);
    return 77;
  }
  char line[512], path[1024];
  unsigned long models = 0, runs = 0;
  uint64_t lcg = 0x9E3779B97F4A7C15u;
  while (fgets(line, sizeof line, list)) {
    line[strcspn(line, " \t\r\n#")] = 0;
    if (!line[0]) continue;
    snprintf(path, sizeof path, "%s/%s/model.onnx", argv[2], line);
    size_t len;
    uint8_t *buf = read_file(path, &len);
    if (!buf) {
      printf("onnx_mutate: %s is absent (libonnx-testdata not installed?): skipped\n", path);
      fclose(list);
      return 77;
    }
    models++;
    LLVMFuzzerTestOneInput(buf, len), runs++;
    for (unsigned k = 1; k <= 8 && len; k++) LLVMFuzzerTestOneInput(buf, len * k / 9), runs++;
    uint8_t *copy = malloc(len ? len : 1);
    for (unsigned k = 0; k < 8 && len; k++) {
      memcpy(copy, buf, len);
      lcg = lcg * 6364136223846793005u + 1442695040888963407u;
      size_t at = (size_t)(lcg >> 33) % len;
      copy[at] ^= (uint8_t)(1u + (lcg >> 13) % 255u);
      LLVMFuzzerTestOneInput(copy, len), runs++;
    }
    free(copy);
    free(buf);
  }
  fclose(list);
  printf("onnx_mutate: %lu models, %lu imports, no crash\n", models, runs);
  return 0;
}
