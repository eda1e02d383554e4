/* backend/target/profile_db.c - the measured profile database (korch/target.h): thin wrappers
 * over the context-free format core (profile_db_file.c, shared with the runtime's
 * korch-run --profile) that turn its error strings into diagnostics at the caller's location.
 * The format and the concurrency rule are documented in docs/Targets.md. */
#include <stdlib.h>
#include <string.h>

#include "backend/target/profile_db_file.h"
#include "korch/diag.h"
#include "korch/target.h"

_Static_assert(sizeof(((kr_profile_entry *)0)->target) == sizeof(((kr_pdb_entry *)0)->target), "target size");
_Static_assert(sizeof(((kr_profile_entry *)0)->name) == sizeof(((kr_pdb_entry *)0)->name), "name size");

static void to_pdb(kr_pdb_entry *d, const kr_profile_entry *s) {
  memcpy(d->target, s->target, sizeof d->target);
  d->hash = s->hash;
  d->time_us = s->time_us;
  d->runs = s->runs;
  memcpy(d->name, s->name, sizeof d->name);
}

static void from_pdb(kr_profile_entry *d, const kr_pdb_entry *s) {
  memcpy(d->target, s->target, sizeof d->target);
  d->hash = s->hash;
  d->time_us = s->time_us;
  d->runs = s->runs;
  memcpy(d->name, s->name, sizeof d->name);
}

kr_status kr_profile_db_load(kr_context *ctx, const char *path, kr_attr loc, kr_profile_db *db) {
  if (loc == NULL) loc = kr_loc_unknown(ctx);
  db->entries = NULL;
  db->num_entries = 0;
  kr_pdb p = {0};
  kr_pdb_error err;
  if (!kr_pdb_load(path, &p, &err)) return kr_emit_error(ctx, loc, "%s", err.msg);
  if (p.num_entries) {
    db->entries = malloc(p.num_entries * sizeof *db->entries);
    if (!db->entries) {
      kr_pdb_free(&p);
      return kr_emit_error(ctx, loc, "%s: out of memory", path);
    }
    for (unsigned i = 0; i < p.num_entries; i++) from_pdb(&db->entries[i], &p.entries[i]);
    db->num_entries = p.num_entries;
  }
  kr_pdb_free(&p);
  return KR_SUCCESS;
}

void kr_profile_db_free(kr_profile_db *db) {
  if (!db) return;
  free(db->entries);
  db->entries = NULL;
  db->num_entries = 0;
}

double kr_profile_db_lookup(const kr_profile_db *db, const char *target, uint64_t hash) {
  if (db == NULL || target == NULL) return -1;
  size_t tl = strlen(target);
  if (tl >= sizeof db->entries[0].target) return -1;
  unsigned lo = 0, hi = db->num_entries;
  while (lo < hi) { /* entries sorted by (target, hash), as kr_pdb_load leaves them */
    unsigned mid = lo + (hi - lo) / 2;
    const kr_profile_entry *e = &db->entries[mid];
    int c = strcmp(e->target, target);
    if (c == 0) c = e->hash < hash ? -1 : e->hash > hash;
    if (c == 0) return e->time_us;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

kr_status kr_profile_db_record(kr_context *ctx, const char *path, const kr_profile_entry *entries, unsigned n,
                               kr_attr loc) {
  if (loc == NULL) loc = kr_loc_unknown(ctx);
  kr_pdb_entry *copy = n ? malloc(n * sizeof *copy) : NULL;
  if (n && !copy) return kr_emit_error(ctx, loc, "%s: out of memory", path);
  for (unsigned i = 0; i < n; i++) to_pdb(&copy[i], &entries[i]);
  kr_pdb_error err;
  bool ok = kr_pdb_record(path, copy, n, &err);
  free(copy);
  return ok ? KR_SUCCESS : kr_emit_error(ctx, loc, "%s", err.msg);
}
