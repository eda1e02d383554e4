/* runtime/session.c - one plan on one device: the PTX module, the arena and weights
 * allocations, inputs, the launch list, outputs and event timing (CUDA Driver API: "Module
 * Management", "Memory Management", "Execution Control", "Event Management").
 *
 * Every launch runs on the legacy default stream (NULL), so launches are ordered and one
 * cuCtxSynchronize at the end waits for all of them; an asynchronous fault surfaces there.
 * With $KORCH_RUN_SYNC=1 the session synchronises after every launch, so such a fault is
 * reported with the kernel that caused it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Dynamic shared memory a kernel may use without opting in (CUDA C++ Programming Guide,
 * "Shared Memory": allocations above 48 KB per block are architecture-specific and need
 * cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)). */
#define KR_RT_DEFAULT_DYNAMIC_SHARED (48u * 1024u)

struct kr_rt_session {
  kr_rt_device *dev;
  const kr_rt_plan *plan;
  kr_cu_module mod;
  kr_cu_function *funcs;        /* per plan kernel */
  kr_cu_deviceptr arena, weights;
  kr_cu_deviceptr *argvals;     /* all launches' argument values, back to back */
  void **params;                /* &argvals[...] per argument, the kernelParams arrays */
  unsigned *first_arg;          /* per launch, index into argvals/params */
  kr_cu_event start, stop;
  bool sync_each;
  /* The inputs as last set (host copies, per plan input; NULL when never set): timed runs
   * restore them before every run, because the plan may reuse an input's range for a later
   * intermediate once the input is dead (docs/MemoryPlan.md), so run 2 would otherwise compute
   * on what run 1 left there. */
  void **pristine;
};

#define CU(call, what, expr)                                                                                   \
  do {                                                                                                         \
    kr_cu_result r_ = (expr);                                                                                  \
    if (r_ != KR_CUDA_SUCCESS) return kr_rt_cuda_fail(s->dev, err, call, what, r_);                            \
  } while (0)

static kr_cu_deviceptr base_of(const kr_rt_session *s, kr_rt_region r) {
  return r == KR_RT_ARENA ? s->arena : s->weights;
}

static const char *file_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void kr_rt_session_destroy(kr_rt_session *s) {
  if (!s) return;
  kr_rt_device *d = s->dev;
  if (s->start) d->EventDestroy(s->start);
  if (s->stop) d->EventDestroy(s->stop);
  if (s->arena) d->MemFree(s->arena);
  if (s->weights) d->MemFree(s->weights);
  if (s->mod) d->ModuleUnload(s->mod);
  free(s->funcs);
  free(s->argvals);
  free(s->params);
  free(s->first_arg);
  for (unsigned i = 0; s->pristine && i < s->plan->num_inputs; i++) free(s->pristine[i]);
  free(s->pristine);
  free(s);
}

/* cuModuleLoadDataEx with the JIT's error and info logs (CU_JIT_ERROR_LOG_BUFFER...), the
 * error log quoted in the message on failure. */
static kr_rt_status load_module(kr_rt_session *s, kr_rt_error *err) {
  const kr_rt_plan *p = s->plan;
  char *ptx;
  size_t size;
  if (kr_rt_read_file(p->ptx_file, &ptx, &size, err) != KR_RT_OK) return KR_RT_ERROR;
  char error_log[8192] = "", info_log[4096] = "";
  unsigned options[] = {KR_CU_JIT_ERROR_LOG_BUFFER, KR_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, KR_CU_JIT_INFO_LOG_BUFFER,
                        KR_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log, info_log, (void *)(uintptr_t)sizeof info_log};
  kr_cu_result r = s->dev->ModuleLoadDataEx(&s->mod, ptx, 4, options, values);
  free(ptx);
  if (r != KR_CUDA_SUCCESS) {
    s->mod = NULL;
    kr_rt_cuda_fail(s->dev, err, "cuModuleLoadDataEx", file_name(p->ptx_file), r);
    error_log[sizeof error_log - 1] = '\0';
    if (error_log[0]) kr_rt_append(err, "JIT error log:\n%s", error_log);
    return KR_RT_ERROR;
  }
  return KR_RT_OK;
}

static kr_rt_status upload_weights(kr_rt_session *s, kr_rt_error *err) {
  const kr_rt_plan *p = s->plan;
  char *data;
  size_t size;
  if (kr_rt_read_file(p->weights_file, &data, &size, err) != KR_RT_OK) return KR_RT_ERROR;
  kr_rt_status st = KR_RT_OK;
  if (size != p->weights_bytes)
    st = kr_rt_fail(err, KR_RT_ERROR, "%s: holds %zu bytes, the plan says %llu", p->weights_file, size,
                    (unsigned long long)p->weights_bytes);
  else if (size) {
    kr_cu_result r = s->dev->MemcpyHtoD(s->weights, data, size);
    if (r != KR_CUDA_SUCCESS) st = kr_rt_cuda_fail(s->dev, err, "cuMemcpyHtoD", "weights", r);
  }
  free(data);
  return st;
}

static kr_rt_status create(kr_rt_session *s, kr_rt_error *err) {
  const kr_rt_plan *p = s->plan;
  kr_rt_device *d = s->dev;
  /* Host-side checks first: a bad weights file needs no module load to be reported.  A plan
   * without kernels (an identity or constant graph: its outputs are ranges of its inputs or of
   * the weights, docs/PlanFormat.md) loads no module: there is nothing to look up in it, and
   * skipping the load spares a PTX JIT (docs/Runtime.md "Plans without kernels"). */
  if (p->num_kernels && load_module(s, err) != KR_RT_OK) return KR_RT_ERROR;
  s->funcs = calloc(p->num_kernels ? p->num_kernels : 1, sizeof *s->funcs);
  unsigned total_args = 0;
  for (unsigned i = 0; i < p->num_launches; i++) total_args += p->launches[i].num_args;
  s->argvals = calloc(total_args ? total_args : 1, sizeof *s->argvals);
  s->params = calloc(total_args ? total_args : 1, sizeof *s->params);
  s->first_arg = calloc(p->num_launches ? p->num_launches : 1, sizeof *s->first_arg);
  s->pristine = calloc(p->num_inputs ? p->num_inputs : 1, sizeof *s->pristine);
  if (!s->funcs || !s->argvals || !s->params || !s->first_arg || !s->pristine) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  for (unsigned k = 0; k < p->num_kernels; k++) {
    CU("cuModuleGetFunction", p->kernels[k].name, d->ModuleGetFunction(&s->funcs[k], s->mod, p->kernels[k].name));
    uint64_t dyn = 0;
    for (unsigned i = 0; i < p->num_launches; i++)
      if (p->launches[i].kernel == k && p->launches[i].dynamic_shared_bytes > dyn) dyn = p->launches[i].dynamic_shared_bytes;
    if (dyn > KR_RT_DEFAULT_DYNAMIC_SHARED) {
      if (dyn > 0x7fffffff) return kr_rt_fail(err, KR_RT_ERROR, "%s: dynamic shared memory too large", p->kernels[k].name);
      CU("cuFuncSetAttribute", p->kernels[k].name,
         d->FuncSetAttribute(s->funcs[k], KR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dyn));
    }
  }
  /* cuMemAlloc rejects 0 bytes: an empty region still gets one alignment unit. */
  size_t arena = p->arena_bytes ? p->arena_bytes : p->alignment;
  size_t weights = p->weights_bytes ? p->weights_bytes : p->alignment;
  CU("cuMemAlloc", "arena", d->MemAlloc(&s->arena, arena));
  /* A zeroed arena makes a run deterministic even if a kernel read what nobody wrote. */
  CU("cuMemsetD8", "arena", d->MemsetD8(s->arena, 0, arena));
  CU("cuMemAlloc", "weights", d->MemAlloc(&s->weights, weights));
  if (upload_weights(s, err) != KR_RT_OK) return KR_RT_ERROR;
  unsigned n = 0;
  for (unsigned i = 0; i < p->num_launches; i++) {
    s->first_arg[i] = n;
    for (unsigned a = 0; a < p->launches[i].num_args; a++, n++) {
      s->argvals[n] = base_of(s, p->launches[i].args[a].region) + p->launches[i].args[a].offset;
      s->params[n] = &s->argvals[n];
    }
  }
  CU("cuEventCreate", "timing", d->EventCreate(&s->start, KR_CU_EVENT_DEFAULT));
  CU("cuEventCreate", "timing", d->EventCreate(&s->stop, KR_CU_EVENT_DEFAULT));
  const char *sync = getenv("KORCH_RUN_SYNC");
  s->sync_each = sync && *sync && strcmp(sync, "0") != 0;
  return KR_RT_OK;
}

kr_rt_status kr_rt_session_create(kr_rt_device *dev, const kr_rt_plan *plan, kr_rt_session **out, kr_rt_error *err) {
  *out = NULL;
  kr_rt_session *s = calloc(1, sizeof *s);
  if (!s) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  s->dev = dev;
  s->plan = plan;
  if (create(s, err) != KR_RT_OK) {
    kr_rt_session_destroy(s);
    return KR_RT_ERROR;
  }
  *out = s;
  return KR_RT_OK;
}

kr_rt_status kr_rt_session_set_input(kr_rt_session *s, unsigned i, const void *data, size_t bytes, kr_rt_error *err) {
  const kr_rt_tensor *t = &s->plan->inputs[i];
  if (bytes != t->ref.bytes)
    return kr_rt_fail(err, KR_RT_ERROR, "input '%s': %zu bytes given, the plan's tensor has %llu", t->name, bytes,
                      (unsigned long long)t->ref.bytes);
  if (!bytes) return KR_RT_OK;
  CU("cuMemcpyHtoD", t->name, s->dev->MemcpyHtoD(base_of(s, t->ref.region) + t->ref.offset, data, bytes));
  if (!s->pristine[i] && !(s->pristine[i] = malloc(bytes))) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
  memcpy(s->pristine[i], data, bytes);
  return KR_RT_OK;
}

/* Copies every input that was set back into its range (host to device; synchronous for
 * pageable memory, CUDA Driver API "API synchronization behavior", so it is complete before the
 * next launch and before the next event is recorded). */
static kr_rt_status restore_inputs(kr_rt_session *s, kr_rt_error *err) {
  for (unsigned i = 0; i < s->plan->num_inputs; i++) {
    const kr_rt_tensor *t = &s->plan->inputs[i];
    if (s->pristine[i])
      CU("cuMemcpyHtoD", t->name,
         s->dev->MemcpyHtoD(base_of(s, t->ref.region) + t->ref.offset, s->pristine[i], t->ref.bytes));
  }
  return KR_RT_OK;
}

kr_rt_status kr_rt_session_get_output(kr_rt_session *s, unsigned i, void *data, size_t bytes, kr_rt_error *err) {
  const kr_rt_tensor *t = &s->plan->outputs[i];
  if (bytes != t->ref.bytes)
    return kr_rt_fail(err, KR_RT_ERROR, "output '%s': %zu bytes requested, the plan's tensor has %llu", t->name, bytes,
                      (unsigned long long)t->ref.bytes);
  if (bytes) CU("cuMemcpyDtoH", t->name, s->dev->MemcpyDtoH(data, base_of(s, t->ref.region) + t->ref.offset, bytes));
  return KR_RT_OK;
}

/* IEEE binary16 bits of a float in [-1, 1) (round to nearest even; no overflow possible). */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  float a = f < 0 ? -f : f; /* no libm: korch-run links libc, libdl and libxml2 only */
  if (a < 6.103515625e-05f) /* subnormal half: units of 2^-24, rounded half up */
    return (uint16_t)(sign | (uint32_t)(a * 16777216.0f + 0.5f));
  uint32_t e = ((x >> 23) & 0xffu) - 127 + 15, m = x & 0x7fffffu;
  uint32_t h = e << 10 | m >> 13, rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

kr_rt_status kr_rt_session_fill_inputs(kr_rt_session *s, kr_rt_error *err) {
  uint64_t state = UINT64_C(0x9e3779b97f4a7c15);
  for (unsigned i = 0; i < s->plan->num_inputs; i++) {
    const kr_rt_tensor *t = &s->plan->inputs[i];
    unsigned es = kr_rt_dtype_size(t->dtype);
    size_t n = t->ref.bytes / es;
    unsigned char *buf = calloc(t->ref.bytes ? t->ref.bytes : 1, 1);
    if (!buf) return kr_rt_fail(err, KR_RT_ERROR, "out of memory");
    bool f32 = !strcmp(t->dtype, "f32"), f64 = !strcmp(t->dtype, "f64"), f16 = !strcmp(t->dtype, "f16"),
         bf16 = !strcmp(t->dtype, "bf16");
    for (size_t k = 0; (f32 || f64 || f16 || bf16) && k < n; k++) {
      state = state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407); /* Knuth's MMIX LCG */
      float v = (float)((double)(state >> 40) / (double)(UINT64_C(1) << 24) * 2.0 - 1.0);
      if (f32) memcpy(buf + 4 * k, &v, 4);
      if (f64) {
        double dv = v;
        memcpy(buf + 8 * k, &dv, 8);
      }
      if (f16) {
        uint16_t h = to_half(v);
        memcpy(buf + 2 * k, &h, 2);
      }
      if (bf16) {
        uint32_t x;
        memcpy(&x, &v, 4);
        uint16_t h = (uint16_t)(x >> 16);
        memcpy(buf + 2 * k, &h, 2);
      }
    }
    kr_rt_status st = kr_rt_session_set_input(s, i, buf, t->ref.bytes, err);
    free(buf);
    if (st != KR_RT_OK) return st;
  }
  return KR_RT_OK;
}

static kr_rt_status launch(kr_rt_session *s, unsigned i, kr_rt_error *err) {
  const kr_rt_launch *l = &s->plan->launches[i];
  const char *name = s->plan->kernels[l->kernel].name;
  CU("cuLaunchKernel", name,
     s->dev->LaunchKernel(s->funcs[l->kernel], l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                          l->block[2], (unsigned)l->dynamic_shared_bytes, NULL, &s->params[s->first_arg[i]], NULL));
  if (s->sync_each) CU("cuCtxSynchronize", name, s->dev->CtxSynchronize());
  return KR_RT_OK;
}

/* Launches `only` (>= 0) or every launch, without synchronising. */
static kr_rt_status enqueue(kr_rt_session *s, int only, kr_rt_error *err) {
  if (only >= 0) return launch(s, (unsigned)only, err);
  for (unsigned i = 0; i < s->plan->num_launches; i++)
    if (launch(s, i, err) != KR_RT_OK) return KR_RT_ERROR;
  return KR_RT_OK;
}

kr_rt_status kr_rt_session_run(kr_rt_session *s, kr_rt_error *err) {
  if (enqueue(s, -1, err) != KR_RT_OK) return KR_RT_ERROR;
  CU("cuCtxSynchronize", "after the last launch", s->dev->CtxSynchronize());
  return KR_RT_OK;
}

kr_rt_status kr_rt_session_time(kr_rt_session *s, int only, unsigned warmup, unsigned iters, double *ms,
                                kr_rt_error *err) {
  if (only >= (int)s->plan->num_launches)
    return kr_rt_fail(err, KR_RT_ERROR, "launch %d: the plan has %u launches", only, s->plan->num_launches);
  /* Every run, warm-up included, starts from the inputs as set (restore_inputs), outside the
   * timed interval: the copy comes before the start event is recorded. */
  for (unsigned w = 0; w < warmup; w++)
    if (restore_inputs(s, err) != KR_RT_OK || enqueue(s, only, err) != KR_RT_OK) return KR_RT_ERROR;
  CU("cuCtxSynchronize", "after warm-up", s->dev->CtxSynchronize());
  for (unsigned it = 0; it < iters; it++) {
    if (restore_inputs(s, err) != KR_RT_OK) return KR_RT_ERROR;
    CU("cuEventRecord", "start", s->dev->EventRecord(s->start, NULL));
    if (enqueue(s, only, err) != KR_RT_OK) return KR_RT_ERROR;
    CU("cuEventRecord", "stop", s->dev->EventRecord(s->stop, NULL));
    CU("cuEventSynchronize", "stop", s->dev->EventSynchronize(s->stop));
    float t = 0;
    CU("cuEventElapsedTime", "timing", s->dev->EventElapsedTime(&t, s->start, s->stop));
    ms[it] = t;
  }
  return KR_RT_OK;
}
