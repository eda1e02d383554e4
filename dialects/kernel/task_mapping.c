/* dialects/kernel/task_mapping.c - task mappings (Hidet, ASPLOS'23 §4.1; korch/kernel.h,
 * docs/TaskMappings.md): the algebra and the #kernel.task attribute's storage.
 *
 * A #kernel.task attribute is a dialect attribute with mnemonic "task" whose parameters are one
 * array<i64> per atom: [kind, d0..dn-1, r0..rn-1] (kind 0 spatial, 1 repeat; r = rank order).
 * Its custom assembly is in dialects/kernel/task_mapping_asm.c. */
#include <string.h>

#include "korch/dialect.h"
#include "korch/kernel.h"

static kr_task_mapping atom_mapping(kr_task_kind kind, unsigned rank, const int64_t *dims) {
  kr_task_mapping m;
  memset(&m, 0, sizeof m);
  m.rank = rank;
  m.num_atoms = 1;
  m.atoms[0].kind = kind;
  for (unsigned i = 0; i < rank; i++) {
    m.atoms[0].dims[i] = dims[i];
    m.atoms[0].ranks[i] = i;
  }
  return m;
}

kr_task_mapping kr_task_spatial(unsigned rank, const int64_t *dims) { return atom_mapping(KR_TASK_SPATIAL, rank, dims); }
kr_task_mapping kr_task_repeat(unsigned rank, const int64_t *dims) { return atom_mapping(KR_TASK_REPEAT, rank, dims); }

/* Whether m is well formed: 1..KR_TASK_MAX_ATOMS atoms of rank 1..KR_KERNEL_MAX_RANK, dims >= 1,
 * each atom's ranks a permutation of 0..rank-1 (unravel() relies on it: a repeated rank would
 * leave a coordinate unset), and at most 2^40 tasks in all, so that no index the lowering
 * computes (task coordinates, worker splits, products of dims) can overflow int64. */
static bool mapping_valid(const kr_task_mapping *m) {
  if (m->num_atoms < 1 || m->num_atoms > KR_TASK_MAX_ATOMS || m->rank < 1 || m->rank > KR_KERNEL_MAX_RANK)
    return false;
  const int64_t limit = (int64_t)1 << 40;
  int64_t total = 1;
  for (unsigned a = 0; a < m->num_atoms; a++) {
    const kr_task_atom *at = &m->atoms[a];
    if (at->kind != KR_TASK_SPATIAL && at->kind != KR_TASK_REPEAT) return false;
    bool seen[KR_KERNEL_MAX_RANK] = {false};
    for (unsigned i = 0; i < m->rank; i++) {
      if (at->dims[i] < 1 || at->dims[i] > limit / total || at->ranks[i] >= m->rank || seen[at->ranks[i]])
        return false;
      seen[at->ranks[i]] = true;
      total *= at->dims[i];
    }
  }
  return true;
}

bool kr_task_compose(const kr_task_mapping *f, const kr_task_mapping *g, kr_task_mapping *out) {
  if (f->rank != g->rank || f->num_atoms + g->num_atoms > KR_TASK_MAX_ATOMS) return false;
  kr_task_mapping m = *f;
  for (unsigned i = 0; i < g->num_atoms; i++) m.atoms[m.num_atoms++] = g->atoms[i];
  if (!mapping_valid(&m)) return false;
  *out = m;
  return true;
}

static int64_t atom_size(const kr_task_atom *a, unsigned rank) {
  int64_t n = 1;
  for (unsigned i = 0; i < rank; i++) n *= a->dims[i];
  return n;
}

int64_t kr_task_mapping_num_workers(const kr_task_mapping *m) {
  int64_t n = 1;
  for (unsigned a = 0; a < m->num_atoms; a++)
    if (m->atoms[a].kind == KR_TASK_SPATIAL) n *= atom_size(&m->atoms[a], m->rank);
  return n;
}

int64_t kr_task_mapping_tasks_per_worker(const kr_task_mapping *m) {
  int64_t n = 1;
  for (unsigned a = 0; a < m->num_atoms; a++)
    if (m->atoms[a].kind == KR_TASK_REPEAT) n *= atom_size(&m->atoms[a], m->rank);
  return n;
}

void kr_task_mapping_shape(const kr_task_mapping *m, int64_t *shape) {
  for (unsigned i = 0; i < m->rank; i++) {
    shape[i] = 1;
    for (unsigned a = 0; a < m->num_atoms; a++) shape[i] *= m->atoms[a].dims[i];
  }
}

/* Unravels `x` (< size of the atom) over the atom's dims in its rank order: the dim with the
 * largest rank varies fastest. */
static void unravel(const kr_task_atom *a, unsigned rank, int64_t x, int64_t *coord) {
  for (unsigned r = rank; r-- > 0;) {
    unsigned dim = 0;
    for (unsigned i = 0; i < rank; i++)
      if (a->ranks[i] == r) dim = i;
    coord[dim] = x % a->dims[dim];
    x /= a->dims[dim];
  }
}

void kr_task_mapping_task(const kr_task_mapping *m, int64_t worker, int64_t k, int64_t *task) {
  /* Split the worker over the spatial atoms and k over the repeat atoms, the last atom being the
   * fastest-varying part of each (f * g: worker = w_f * W_g + w_g). */
  for (unsigned i = 0; i < m->rank; i++) task[i] = 0;
  int64_t w = worker, kk = k;
  int64_t coord[KR_KERNEL_MAX_RANK], scale[KR_KERNEL_MAX_RANK];
  for (unsigned i = 0; i < m->rank; i++) scale[i] = 1;
  for (unsigned a = m->num_atoms; a-- > 0;) {
    const kr_task_atom *at = &m->atoms[a];
    int64_t size = atom_size(at, m->rank);
    int64_t x;
    if (at->kind == KR_TASK_SPATIAL) {
      x = w % size;
      w /= size;
    } else {
      x = kk % size;
      kk /= size;
    }
    unravel(at, m->rank, x, coord);
    for (unsigned i = 0; i < m->rank; i++) {
      task[i] += coord[i] * scale[i];
      scale[i] *= at->dims[i];
    }
  }
}

kr_attr kr_task_mapping_attr(kr_context *ctx, const kr_task_mapping *m) {
  const kr_dialect *d = kr_context_lookup_dialect(ctx, "kernel", 6);
  if (!d || !mapping_valid(m)) return NULL;
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  kr_attr params[KR_TASK_MAX_ATOMS];
  for (unsigned a = 0; a < m->num_atoms; a++) {
    int64_t row[1 + 2 * KR_KERNEL_MAX_RANK];
    row[0] = m->atoms[a].kind;
    for (unsigned i = 0; i < m->rank; i++) {
      row[1 + i] = m->atoms[a].dims[i];
      row[1 + m->rank + i] = m->atoms[a].ranks[i];
    }
    params[a] = kr_attr_dense_array(ctx, i64, row, 1 + 2 * m->rank);
  }
  return kr_attr_dialect(ctx, d, "task", params, m->num_atoms);
}

bool kr_task_mapping_from_attr(kr_attr a, kr_task_mapping *out) {
  if (!a || a->kind != KR_ATTR_DIALECT || strcmp(a->u.dialect.dialect->def->name, "kernel") ||
      strcmp(a->u.dialect.mnemonic, "task") || a->u.dialect.num_params < 1 ||
      a->u.dialect.num_params > KR_TASK_MAX_ATOMS)
    return false;
  kr_task_mapping m;
  memset(&m, 0, sizeof m);
  m.num_atoms = a->u.dialect.num_params;
  for (unsigned i = 0; i < m.num_atoms; i++) {
    kr_attr p = a->u.dialect.params[i];
    if (p->kind != KR_ATTR_DENSE_ARRAY || p->u.dense_array.size != p->u.dense_array.num * sizeof(int64_t) ||
        p->u.dense_array.num < 3 || p->u.dense_array.num % 2 == 0)
      return false;
    unsigned rank = (p->u.dense_array.num - 1) / 2;
    if (rank > KR_KERNEL_MAX_RANK || (i && rank != m.rank)) return false;
    m.rank = rank;
    int64_t row[1 + 2 * KR_KERNEL_MAX_RANK];
    memcpy(row, p->u.dense_array.data, p->u.dense_array.num * sizeof(int64_t));
    if (row[0] != KR_TASK_SPATIAL && row[0] != KR_TASK_REPEAT) return false;
    m.atoms[i].kind = (kr_task_kind)row[0];
    for (unsigned d = 0; d < rank; d++) {
      if (row[1 + d] < 1 || row[1 + rank + d] < 0 || row[1 + rank + d] >= rank) return false;
      m.atoms[i].dims[d] = row[1 + d];
      m.atoms[i].ranks[d] = (unsigned)row[1 + rank + d];
    }
  }
  if (!mapping_valid(&m)) return false;
  *out = m;
  return true;
}
