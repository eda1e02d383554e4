/* ir/adt.c - kr_vec, kr_hmap and hashing (korch/adt.h).
 *
 * kr_hmap is open addressing with linear probing, load factor <= 3/4, and backward-shift deletion
 * (no tombstones), so lookups stay short after many removals. */
#include "korch/adt.h"

#include <stdlib.h>
#include <string.h>

#include "ir/context_impl.h"

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort(); /* as the arena: allocation failure cannot be reported meaningfully */
  return q;
}

void kr_vec_reserve(kr_vec *v, size_t n, size_t elem_size) {
  if (n <= v->cap) return;
  size_t cap = v->cap ? v->cap : 8;
  while (cap < n) cap *= 2;
  v->data = xrealloc(v->data, cap * elem_size);
  v->cap = cap;
}

void *kr_vec_push(kr_vec *v, const void *elem, size_t elem_size) {
  if (v->len == v->cap) kr_vec_reserve(v, v->len + 1, elem_size);
  char *dst = (char *)v->data + v->len * elem_size;
  if (elem)
    memcpy(dst, elem, elem_size);
  else
    memset(dst, 0, elem_size);
  v->len++;
  return dst;
}

void kr_vec_free(kr_vec *v) {
  free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}

/* ------------------------------------------------------------------------------------------- */

static inline uint64_t fix_hash(uint64_t h) { return h ? h : 0x9e3779b97f4a7c15ULL; }

static inline bool keys_eq(const kr_hmap *m, const void *a, const void *b) { return a == b || (m->eq && m->eq(a, b)); }

kr_hmap_entry *kr_hmap_find(const kr_hmap *m, uint64_t hash, const void *key) {
  if (!m->cap) return NULL;
  hash = fix_hash(hash);
  size_t mask = m->cap - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    kr_hmap_entry *e = &m->slots[i];
    if (!e->hash) return NULL;
    if (e->hash == hash && keys_eq(m, e->key, key)) return e;
  }
}

kr_hmap_entry *kr_hmap_find_by(const kr_hmap *m, uint64_t hash, bool (*match)(const void *key, const void *arg),
                               const void *arg) {
  if (!m->cap) return NULL;
  hash = fix_hash(hash);
  size_t mask = m->cap - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    kr_hmap_entry *e = &m->slots[i];
    if (!e->hash) return NULL;
    if (e->hash == hash && match(e->key, arg)) return e;
  }
}

static void hmap_rehash(kr_hmap *m, size_t ncap) {
  kr_hmap_entry *old = m->slots;
  size_t ocap = m->cap;
  m->slots = calloc(ncap, sizeof(kr_hmap_entry));
  if (!m->slots) abort();
  m->cap = ncap;
  size_t mask = ncap - 1;
  for (size_t j = 0; j < ocap; j++) {
    if (!old[j].hash) continue;
    size_t i = old[j].hash & mask;
    while (m->slots[i].hash) i = (i + 1) & mask;
    m->slots[i] = old[j];
  }
  free(old);
}

static void hmap_grow(kr_hmap *m) { hmap_rehash(m, m->cap ? m->cap * 2 : 16); }

void kr_hmap_reserve(kr_hmap *m, size_t n) {
  size_t cap = m->cap ? m->cap : 16;
  while (n * 4 > cap * 3) cap *= 2;
  if (cap != m->cap) hmap_rehash(m, cap);
}

kr_hmap_entry *kr_hmap_insert(kr_hmap *m, uint64_t hash, const void *key, bool *inserted) {
  kr_hmap_entry *e = kr_hmap_find(m, hash, key);
  if (e) {
    if (inserted) *inserted = false;
    return e;
  }
  if ((m->len + 1) * 4 > m->cap * 3) hmap_grow(m);
  hash = fix_hash(hash);
  size_t mask = m->cap - 1;
  size_t i = hash & mask;
  while (m->slots[i].hash) i = (i + 1) & mask;
  e = &m->slots[i];
  e->hash = hash;
  e->key = key;
  e->value = NULL;
  m->len++;
  if (inserted) *inserted = true;
  return e;
}

bool kr_hmap_remove(kr_hmap *m, uint64_t hash, const void *key) {
  kr_hmap_entry *e = kr_hmap_find(m, hash, key);
  if (!e) return false;
  size_t mask = m->cap - 1;
  size_t i = (size_t)(e - m->slots);
  /* Backward shift: move later entries of the probe run into the hole when their home slot does
   * not lie cyclically in (hole, j]. */
  size_t j = i;
  for (;;) {
    m->slots[i].hash = 0;
    for (;;) {
      j = (j + 1) & mask;
      if (!m->slots[j].hash) {
        m->len--;
        return true;
      }
      size_t home = m->slots[j].hash & mask;
      bool in_range = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
      if (!in_range) break;
    }
    m->slots[i] = m->slots[j];
    i = j;
  }
}

void kr_hmap_clear(kr_hmap *m) {
  if (m->slots) memset(m->slots, 0, m->cap * sizeof(kr_hmap_entry));
  m->len = 0;
}

void kr_hmap_free(kr_hmap *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->len = 0;
}

/* ------------------------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t x) {
  /* murmur3's fmix64: spreads FNV's weak low bits over the whole word. */
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

uint64_t kr_hash_bytes(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a offset basis */
  size_t i = 0;
  /* 8 bytes at a time (FNV-1a on words), then the tail byte by byte: stable across runs and
   * platforms of the same endianness. */
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h ^= w;
    h *= 0x100000001b3ULL;
    h ^= h >> 29;
  }
  for (; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return mix64(h ^ len);
}

uint64_t kr_hash_combine(uint64_t seed, uint64_t v) {
  return mix64(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}
