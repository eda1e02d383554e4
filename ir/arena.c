/* ir/arena.c - bump-pointer arenas (korch/arena.h).
 *
 * Chunks grow geometrically (64 KiB up to 4 MiB) so that a million-op module costs few mallocs and
 * the unused tail of each chunk stays small relative to the total.  Requests larger than a quarter
 * of the default chunk get a chunk of their own, linked behind the current one so the free space
 * of the current chunk is not thrown away. */
#include "korch/arena.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct kr_arena_chunk {
  kr_arena_chunk *next;
  size_t size;     /* usable bytes after the header */
  size_t map_size; /* bytes mmap'd for the chunk; 0: malloc'd */
  _Alignas(16) char data[];
};

enum {
  KR_ARENA_MIN_CHUNK = 64 * 1024,
  KR_ARENA_MAX_CHUNK = 4 * 1024 * 1024,
  KR_ARENA_HUGE = 2 * 1024 * 1024, /* x86-64 / arm64 (4K granule) transparent huge page */
};

/* Chunks of 2 MiB and more are mapped directly and marked for transparent huge pages: a
 * million-op module touches ~250 MB, and with 4 KiB pages the page faults alone cost more than
 * building the IR (measured: 58k faults, 0.5 s of system time on the development VM). */
static kr_arena_chunk *chunk_new(size_t size) {
  size_t total = sizeof(kr_arena_chunk) + size;
  kr_arena_chunk *c = NULL;
  size_t map_size = 0;
#if defined(MAP_ANONYMOUS)
  if (total >= KR_ARENA_HUGE) {
    map_size = (total + KR_ARENA_HUGE - 1) / KR_ARENA_HUGE * KR_ARENA_HUGE;
    void *p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      map_size = 0;
    } else {
#if defined(MADV_HUGEPAGE)
      madvise(p, map_size, MADV_HUGEPAGE);
#endif
      c = p;
      size = map_size - sizeof(kr_arena_chunk);
    }
  }
#endif
  if (!c) {
    c = malloc(total);
    if (!c) abort(); /* the out-of-memory hook of korch/arena.h */
  }
  c->size = size;
  c->map_size = map_size;
  c->next = NULL;
  return c;
}

static void chunk_free(kr_arena_chunk *c) {
#if defined(MAP_ANONYMOUS)
  if (c->map_size) {
    munmap(c, c->map_size);
    return;
  }
#endif
  free(c);
}

static void *align_up(char *p, size_t align) {
  uintptr_t u = (uintptr_t)p;
  u = (u + (align - 1)) & ~(uintptr_t)(align - 1);
  return (void *)u;
}

void *kr_arena_alloc(kr_arena *a, size_t size, size_t align) {
  if (align == 0) align = 1;
  if (a->cur) {
    char *p = align_up(a->cur, align);
    if (p <= a->end && (size_t)(a->end - p) >= size) {
      a->cur = p + size;
      return p;
    }
  }
  /* Grow: the next chunk is as large as everything so far (bounded), so chunk count is logarithmic
   * up to the cap and linear after it. */
  size_t want = a->total < KR_ARENA_MIN_CHUNK ? KR_ARENA_MIN_CHUNK : a->total;
  if (want > KR_ARENA_MAX_CHUNK) want = KR_ARENA_MAX_CHUNK;
  /* Mapped chunks are whole huge pages: ask for that size minus the header. */
  if (want >= KR_ARENA_HUGE) want = want / KR_ARENA_HUGE * KR_ARENA_HUGE - sizeof(kr_arena_chunk);
  size_t need = size + align;
  if (need > want / 4) {
    /* A dedicated chunk; keep the current chunk as the bump target. */
    kr_arena_chunk *c = chunk_new(need);
    a->total += c->size;
    if (a->head) {
      c->next = a->head->next;
      a->head->next = c;
    } else {
      a->head = c;
      a->cur = c->data + c->size;
      a->end = c->data + c->size;
    }
    return align_up(c->data, align);
  }
  kr_arena_chunk *c = chunk_new(want);
  a->total += c->size;
  c->next = a->head;
  a->head = c;
  char *p = align_up(c->data, align);
  a->cur = p + size;
  a->end = c->data + c->size;
  return p;
}

void *kr_arena_zalloc(kr_arena *a, size_t size, size_t align) {
  void *p = kr_arena_alloc(a, size, align);
  if (size) memset(p, 0, size);
  return p;
}

void *kr_arena_dup(kr_arena *a, const void *src, size_t size, size_t align) {
  void *p = kr_arena_alloc(a, size, align);
  if (size) memcpy(p, src, size);
  return p;
}

char *kr_arena_strndup(kr_arena *a, const char *s, size_t len) {
  char *p = kr_arena_alloc(a, len + 1, 1);
  if (len) memcpy(p, s, len);
  p[len] = 0;
  return p;
}

void kr_arena_release(kr_arena *a) {
  kr_arena_chunk *c = a->head;
  while (c) {
    kr_arena_chunk *n = c->next;
    chunk_free(c);
    c = n;
  }
  a->head = NULL;
  a->cur = a->end = NULL;
  a->total = 0;
}
