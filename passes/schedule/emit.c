/* passes/schedule/emit.c - STUB: the element emitter, owned by the emitter helper. */
#include <stdlib.h>

#include "korch/diag.h"
#include "passes/schedule/schedule.h"

struct ks_emitter {
  ks_kernel *k;
  ks_builder *kb;
};

ks_emitter *ks_emitter_create(ks_kernel *k, ks_builder *kb) {
  ks_emitter *e = calloc(1, sizeof *e);
  if (e) {
    e->k = k;
    e->kb = kb;
  }
  return e;
}
void ks_emitter_destroy(ks_emitter *e) { free(e); }
void ks_emitter_override(ks_emitter *e, kr_value v, ks_element_fn fn, void *user) { (void)e; (void)v; (void)fn; (void)user; }
kr_value ks_emit_element(ks_emitter *e, kr_value v, const kr_value *index) { (void)e; (void)v; (void)index; return NULL; }
kr_status ks_emit_elements(ks_emitter *e, kr_value v, const kr_value *index, unsigned width, kr_value *out) {
  (void)e; (void)v; (void)index; (void)width; (void)out;
  return KR_FAILURE;
}
bool ks_emit_vectorizable(ks_emitter *e, kr_value v, unsigned width) { (void)e; (void)v; (void)width; return false; }
bool ks_emit_supported(ks_emitter *e, kr_value v) { (void)e; (void)v; return false; }
ks_builder *ks_emitter_builder(ks_emitter *e) { return e->kb; }
