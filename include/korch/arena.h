/* korch/arena.h - bump-pointer arenas, the one allocation discipline of korch.
 *
 * IR objects (types, attributes, interned strings, operations, blocks, regions) are allocated from
 * arenas owned by a kr_context and released all at once by kr_context_destroy.  Nothing in a hot
 * path is freed one by one.  Running out of memory in an arena calls abort(): the one place the
 * library stops, since an IR half-built for want of memory cannot be reported meaningfully; there
 * is no exit() anywhere. */
#ifndef KORCH_ARENA_H
#define KORCH_ARENA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_arena_chunk kr_arena_chunk;

/* A growing list of chunks.  Zero-initialise (`kr_arena a = {0};`) to create. */
typedef struct kr_arena {
  kr_arena_chunk *head;   /* current chunk (newest); older chunks follow ->next */
  char *cur, *end;        /* free space of the current chunk */
  size_t total;           /* bytes obtained from malloc, for statistics */
} kr_arena;

/* Returns `size` bytes aligned to `align` (a power of two, <= 4096), uninitialised.  Large
 * requests get a chunk of their own.  The memory lives until kr_arena_release. */
void *kr_arena_alloc(kr_arena *a, size_t size, size_t align);
/* As kr_arena_alloc, zero-filled. */
void *kr_arena_zalloc(kr_arena *a, size_t size, size_t align);
/* Copies `size` bytes of `src` into the arena; returns the copy. */
void *kr_arena_dup(kr_arena *a, const void *src, size_t size, size_t align);
/* Copies `len` bytes of `s` and a terminating NUL into the arena. */
char *kr_arena_strndup(kr_arena *a, const char *s, size_t len);
/* Frees every chunk; the arena is empty and reusable afterwards. */
void kr_arena_release(kr_arena *a);

#define KR_NEW(arena, T) ((T *)kr_arena_zalloc((arena), sizeof(T), _Alignof(T)))
#define KR_NEW_ARRAY(arena, T, n) ((T *)kr_arena_zalloc((arena), sizeof(T) * (size_t)(n), _Alignof(T)))

#ifdef __cplusplus
}
#endif
#endif
