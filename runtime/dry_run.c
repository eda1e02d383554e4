/* runtime/dry_run.c - korch-run --dry-run: every check of a plan that needs no GPU.
 *
 * Limits (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"):
 * threads per block 1024 (x, y <= 1024, z <= 64), grid x <= 2^31-1, y, z <= 65535, 64K 32-bit
 * registers per block, shared memory per block (opt-in maximum) by architecture below.  The
 * kernel parameter lists come from the PTX itself (runtime/ptx.c), the register and static
 * shared memory figures from the plan (ptxas -v at compile time, docs/PlanFormat.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* Maximum shared memory per block (static + dynamic, opt-in) in bytes; 0 when unknown. */
static uint64_t shared_limit(const char *arch) {
  static const struct {
    const char *arch;
    uint64_t kib;
  } table[] = {{"sm_70", 96}, {"sm_72", 96}, {"sm_75", 64}, {"sm_80", 163}, {"sm_86", 99}, {"sm_87", 163},
               {"sm_89", 99}, {"sm_90", 227}, {"sm_90a", 227}, {"sm_100", 227}, {"sm_120", 99}};
  for (size_t i = 0; arch && i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(arch, table[i].arch)) return table[i].kib * 1024;
  return 0;
}

typedef struct checker {
  const kr_rt_plan *plan;
  kr_rt_error *err;
  unsigned checks, failures;
} checker;

static void check(checker *c, bool ok, int line, const char *fmt, ...) KR_RT_PRINTF(4, 5);
static void check(checker *c, bool ok, int line, const char *fmt, ...) {
  c->checks++;
  if (ok) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->failures++ == 0 && c->err) c->err->msg[0] = '\0';
  if (line > 0)
    kr_rt_append(c->err, "%s:%d: %s", c->plan->path, line, msg);
  else
    kr_rt_append(c->err, "%s: %s", c->plan->path, msg);
}

static void check_ref(checker *c, const kr_rt_ref *r, int line, const char *what) {
  check(c, r->offset % c->plan->alignment == 0, line, "%s: offset %llu is not a multiple of the alignment %llu", what,
        (unsigned long long)r->offset, (unsigned long long)c->plan->alignment);
  uint64_t size = r->region == KR_RT_ARENA ? c->plan->arena_bytes : c->plan->weights_bytes;
  check(c, r->offset <= size && r->bytes <= size - r->offset, line, "%s: range outside its region", what);
}

/* a * b into *out; false on uint64 overflow. */
static bool mul_u64(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }

/* model.ptx is PTX text: no NUL byte, and the three module directives every PTX module starts
 * with (PTX ISA 8.x, "PTX Module Directives": .version, .target, .address_size), each as the
 * first token of a line. */
static void check_ptx_header(checker *c, const char *ptx, size_t size) {
  const char *file = c->plan->ptx_file;
  bool text = memchr(ptx, '\0', size) == NULL;
  check(c, text, 0, "%s is not text (it holds a NUL byte)", file);
  if (!text) return;
  static const char *const directives[] = {".version", ".target", ".address_size"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(directives[i]);
    bool found = false;
    for (const char *line = ptx; line && *line && !found; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      const char *p = line;
      while (*p == ' ' || *p == '\t' || *p == '\r') p++;
      found = !strncmp(p, directives[i], n) && (p[n] == ' ' || p[n] == '\t');
    }
    check(c, found, 0, "%s has no %s directive: not a PTX module", file, directives[i]);
  }
}

static bool overlap(const kr_rt_ref *a, const kr_rt_ref *b) {
  return a->region == KR_RT_ARENA && b->region == KR_RT_ARENA && a->bytes && b->bytes &&
         a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
}
static bool same_range(const kr_rt_ref *a, const kr_rt_ref *b) {
  return a->region == b->region && a->offset == b->offset && a->bytes == b->bytes;
}

/* Two arena ranges among `refs` that overlap without being the same range (one buffer: one
 * value used twice, or an output that is an input) are both live at `when`. */
static void check_distinct(checker *c, const kr_rt_ref *refs, unsigned n, size_t stride, int line, const char *when) {
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = i + 1; j < n; j++) {
      const kr_rt_ref *x = (const kr_rt_ref *)(const void *)((const char *)refs + i * stride);
      const kr_rt_ref *y = (const kr_rt_ref *)(const void *)((const char *)refs + j * stride);
      check(c, same_range(x, y) || !overlap(x, y), line, "%s: arena ranges [%llu, %llu) and [%llu, %llu) overlap", when,
            (unsigned long long)x->offset, (unsigned long long)(x->offset + x->bytes), (unsigned long long)y->offset,
            (unsigned long long)(y->offset + y->bytes));
    }
}

/* docs/MemoryPlan.md "Lifetimes": two arena buffers live at the same time point must not
 * overlap; a buffer is identified by its exact range (one value used by several launches, or an
 * output that is an input, shares it).  What the plan says for certain about liveness:
 *   - at the upload, every input is live: distinct input ranges must not overlap;
 *   - at launch i, every arg is live (operands and results): distinct arg ranges must not
 *     overlap, and the last arg, always a result (destination-passing style: operands, then
 *     results), shares its range with no other arg (a result never aliases an operand);
 *   - at the return, every output is live: distinct output ranges must not overlap.
 * Between launches the plan does not say which args (other than the last) are results, so a
 * range's uses cannot be split into values soundly; the compiler's kr_plan_read checks the
 * full lifetimes when the plan is written. */
static void check_lifetimes(checker *c) {
  const kr_rt_plan *p = c->plan;
  if (p->num_inputs) check_distinct(c, &p->inputs[0].ref, p->num_inputs, sizeof p->inputs[0], 0, "inputs (live at the upload)");
  for (unsigned i = 0; i < p->num_launches; i++) {
    const kr_rt_launch *l = &p->launches[i];
    char when[320];
    snprintf(when, sizeof when, "launch %u of '%s' (args live at that launch)", i, p->kernels[l->kernel].name);
    check_distinct(c, l->args, l->num_args, sizeof l->args[0], l->line, when);
    if (l->num_args < 2) continue;
    const kr_rt_ref *res = &l->args[l->num_args - 1];
    if (res->region != KR_RT_ARENA || res->bytes == 0) continue;
    for (unsigned a = 0; a + 1 < l->num_args; a++)
      check(c, !same_range(&l->args[a], res), l->line,
            "launch %u of '%s': arg %u (a result) has the range [%llu, %llu) of arg %u: a result never aliases "
            "another arg of its launch",
            i, p->kernels[l->kernel].name, l->num_args - 1, (unsigned long long)res->offset,
            (unsigned long long)(res->offset + res->bytes), a);
  }
  if (p->num_outputs) check_distinct(c, &p->outputs[0].ref, p->num_outputs, sizeof p->outputs[0], 0, "outputs (live at the return)");
}

kr_rt_status kr_rt_dry_run(const kr_rt_plan *plan, kr_rt_error *err, unsigned *checks_run) {
  checker c = {plan, err, 0, 0};
  if (err) err->msg[0] = '\0';
  /* The weights file holds exactly the plan's bytes. */
  struct stat sb;
  if (stat(plan->weights_file, &sb) != 0)
    check(&c, false, 0, "cannot open the weights file %s", plan->weights_file);
  else if (!S_ISREG(sb.st_mode))
    check(&c, false, 0, "the weights file %s is not a regular file", plan->weights_file);
  else
    check(&c, (uint64_t)sb.st_size == plan->weights_bytes, 0, "the weights file %s holds %llu bytes, the plan says %llu",
          plan->weights_file, (unsigned long long)sb.st_size, (unsigned long long)plan->weights_bytes);

  /* The PTX's entries against <kernels>. */
  char *ptx = NULL;
  size_t ptx_size;
  kr_rt_ptx_entry *entries = NULL;
  unsigned num_entries = 0;
  kr_rt_error perr = {{0}};
  bool have_ptx = kr_rt_read_file(plan->ptx_file, &ptx, &ptx_size, &perr) == KR_RT_OK &&
                  kr_rt_ptx_entries(ptx, plan->ptx_file, &entries, &num_entries, &perr) == KR_RT_OK;
  check(&c, have_ptx, 0, "%s", perr.msg);
  /* The header is checked even when the plan has no kernels (a run then loads no module, but a
   * garbage or truncated model.ptx means a broken artifact all the same). */
  if (ptx) check_ptx_header(&c, ptx, ptx_size);
  free(ptx);
  const kr_rt_ptx_entry **entry_of = calloc(plan->num_kernels ? plan->num_kernels : 1, sizeof *entry_of);
  for (unsigned k = 0; have_ptx && entry_of && k < plan->num_kernels; k++) {
    const kr_rt_kernel *kn = &plan->kernels[k];
    for (unsigned e = 0; e < num_entries; e++)
      if (!strcmp(entries[e].name, kn->name)) entry_of[k] = &entries[e];
    const kr_rt_ptx_entry *e = entry_of[k];
    check(&c, e != NULL, kn->line, "kernel '%s' has no .entry in %s", kn->name, plan->ptx_file);
    if (!e) continue;
    check(&c, e->params == kn->params, kn->line, "kernel '%s': the plan says params=%u, its .entry (%s:%d) has %u",
          kn->name, kn->params, plan->ptx_file, e->line, e->params);
    check(&c, e->all_u64, kn->line, "kernel '%s': a .entry parameter is not .u64 (korch passes device pointers)",
          kn->name);
  }

  uint64_t smem_limit = shared_limit(plan->gpu_arch);
  check(&c, smem_limit != 0, 0, "unknown gpu-arch '%s': no shared-memory limit to check against", plan->gpu_arch);
  for (unsigned i = 0; i < plan->num_inputs; i++) check_ref(&c, &plan->inputs[i].ref, 0, plan->inputs[i].name);
  for (unsigned i = 0; i < plan->num_outputs; i++) check_ref(&c, &plan->outputs[i].ref, 0, plan->outputs[i].name);
  for (unsigned i = 0; i < plan->num_launches; i++) {
    const kr_rt_launch *l = &plan->launches[i];
    const kr_rt_kernel *kn = &plan->kernels[l->kernel];
    const unsigned *b = l->block, *g = l->grid;
    /* Each factor is below 2^32, so the product of three needs overflow checks (the limits
     * checks below report the oversize block; the product saturates). */
    uint64_t threads2 = 0, threads = 0;
    if (!mul_u64(b[0], b[1], &threads2) || !mul_u64(threads2, b[2], &threads)) threads = UINT64_MAX;
    char what[320];
    snprintf(what, sizeof what, "launch %u of '%s'", i, kn->name);
    check(&c, kn->params == l->num_args, l->line, "%s: %u args for params=%u", what, l->num_args, kn->params);
    for (unsigned a = 0; a < l->num_args; a++) {
      char argw[360];
      snprintf(argw, sizeof argw, "%s, arg %u", what, a);
      check_ref(&c, &l->args[a], l->line, argw);
    }
    check(&c, b[0] >= 1 && b[1] >= 1 && b[2] >= 1 && g[0] >= 1 && g[1] >= 1 && g[2] >= 1, l->line,
          "%s: a zero grid or block dimension (grid %u,%u,%u block %u,%u,%u)", what, g[0], g[1], g[2], b[0], b[1], b[2]);
    check(&c, b[0] <= 1024 && b[1] <= 1024 && b[2] <= 64, l->line,
          "%s: block %u,%u,%u exceeds 1024,1024,64", what, b[0], b[1], b[2]);
    check(&c, threads <= 1024, l->line, "%s: block %u,%u,%u has %llu threads, more than 1024", what, b[0], b[1], b[2],
          (unsigned long long)threads);
    check(&c, g[0] <= 0x7fffffffu && g[1] <= 65535 && g[2] <= 65535, l->line,
          "%s: grid %u,%u,%u exceeds 2147483647,65535,65535", what, g[0], g[1], g[2]);
    const kr_rt_ptx_entry *e = entry_of ? entry_of[l->kernel] : NULL;
    if (e && e->max_threads)
      check(&c, threads <= e->max_threads, l->line, "%s: block has %llu threads, the .entry's .maxntid allows %llu",
            what, (unsigned long long)threads, e->max_threads);
    uint64_t smem;
    if (__builtin_add_overflow(l->dynamic_shared_bytes, kn->shared_bytes > 0 ? (uint64_t)kn->shared_bytes : 0, &smem))
      smem = UINT64_MAX;
    if (smem_limit)
      check(&c, smem <= smem_limit, l->line,
            "%s: %llu bytes of shared memory per block (%lld static + %llu dynamic) exceed %s's %llu", what,
            (unsigned long long)smem, (long long)(kn->shared_bytes > 0 ? kn->shared_bytes : 0),
            (unsigned long long)l->dynamic_shared_bytes, plan->gpu_arch, (unsigned long long)smem_limit);
    if (kn->registers >= 0) {
      uint64_t regs = 0;
      bool fits = mul_u64((uint64_t)kn->registers, threads, &regs);
      if (fits)
        check(&c, regs <= 65536, l->line, "%s: %lld registers x %llu threads = %llu, more than the 65536 registers of a block",
              what, (long long)kn->registers, (unsigned long long)threads, (unsigned long long)regs);
      else
        check(&c, false, l->line, "%s: %lld registers x %llu threads overflows, more than the 65536 registers of a block",
              what, (long long)kn->registers, (unsigned long long)threads);
    }
  }
  /* Registers per thread: at most 255 (PTX ISA / CUDA C++ Programming Guide, "Technical
   * Specifications per Compute Capability": maximum number of 32-bit registers per thread). */
  for (unsigned k = 0; k < plan->num_kernels; k++)
    if (plan->kernels[k].registers >= 0)
      check(&c, plan->kernels[k].registers <= 255, plan->kernels[k].line,
            "kernel '%s': registers=%lld, more than the 255 registers a thread can have", plan->kernels[k].name,
            (long long)plan->kernels[k].registers);
  check_lifetimes(&c);
  free(entry_of);
  free(entries);
  if (checks_run) *checks_run = c.checks;
  return c.failures ? KR_RT_ERROR : KR_RT_OK;
}
