/* korch/adt.h - the small containers korch uses everywhere: a growable vector and an
 * open-addressing hash map.  Both own malloc'd storage (scratch, short-lived) and must be freed
 * with their *_free function; long-lived IR data goes in arenas instead (korch/arena.h). */
#ifndef KORCH_ADT_H
#define KORCH_ADT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A vector of fixed-size elements.  Zero-initialise to create.  `data` moves on growth. */
typedef struct kr_vec {
  void *data;
  size_t len, cap;  /* in elements */
} kr_vec;

/* Appends `elem_size` bytes at `elem`; returns a pointer to the stored copy. */
void *kr_vec_push(kr_vec *v, const void *elem, size_t elem_size);
/* Ensures room for `n` elements in total. */
void kr_vec_reserve(kr_vec *v, size_t n, size_t elem_size);
void kr_vec_free(kr_vec *v);

#define KR_VEC_PUSH(v, T, x) do { T kr__tmp = (x); kr_vec_push((v), &kr__tmp, sizeof(T)); } while (0)
#define KR_VEC_AT(v, T, i) (((T *)(v)->data)[i])
#define KR_VEC_DATA(v, T) ((T *)(v)->data)

/* A hash map from opaque keys to void* values.  The caller supplies the hash of each key and an
 * equality callback (NULL: keys compare by pointer identity).  Zero-initialise to create. */
typedef struct kr_hmap_entry {
  uint64_t hash;      /* 0 marks an empty slot (stored hashes are forced non-zero) */
  const void *key;
  void *value;
} kr_hmap_entry;

typedef struct kr_hmap {
  kr_hmap_entry *slots;
  size_t cap, len;    /* cap is a power of two or 0 */
  bool (*eq)(const void *a, const void *b);
} kr_hmap;

/* Returns the entry for `key` or NULL. */
kr_hmap_entry *kr_hmap_find(const kr_hmap *m, uint64_t hash, const void *key);
/* Returns the entry for `key`, inserting {key, NULL} when absent; *inserted tells which. */
kr_hmap_entry *kr_hmap_insert(kr_hmap *m, uint64_t hash, const void *key, bool *inserted);
/* Removes `key` if present (backward-shift deletion); returns whether it was there. */
bool kr_hmap_remove(kr_hmap *m, uint64_t hash, const void *key);
/* Grows the table so that `n` entries fit without rehashing (a parser that knows its input size
 * avoids the repeated doubling of a million-entry table). */
void kr_hmap_reserve(kr_hmap *m, size_t n);
void kr_hmap_clear(kr_hmap *m);
void kr_hmap_free(kr_hmap *m);

/* 64-bit hashing helpers (FNV-1a based mixing; stable across runs). */
uint64_t kr_hash_bytes(const void *data, size_t len);
uint64_t kr_hash_combine(uint64_t seed, uint64_t v);
static inline uint64_t kr_hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
  return x;
}

#ifdef __cplusplus
}
#endif
#endif
