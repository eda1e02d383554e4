/* tools/support/numerics.c - the numerics guard (see numerics.h). */
#include "support/numerics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/ostream.h"

void kr_numerics_options_init(kr_numerics_options *o) {
  o->rtol = 1e-4;
  o->atol = 1e-5;
  o->seed = 1;
  o->trials = 1;
}

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014). */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double next_unit(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }   /* [0, 1) */

static kr_type func_type(kr_op *func) {
  kr_attr a = kr_op_get_attr(func, "function_type");
  kr_type t = a && a->kind == KR_ATTR_TYPE ? a->type : NULL;
  return t && t->kind == KR_TYPE_FUNCTION ? t : NULL;
}

static bool has_body(kr_op *op) { return op->num_regions > 0 && kr_op_region(op, 0)->first; }


/* Fills args[0..n) with random tensors of the argument types of `fty`; on an argument that is not
 * a static tensor of a supported element type reports at `func` and fails (args already made are
 * left for the caller to free). */
static kr_status make_inputs(kr_op *func, const char *name, kr_type fty, uint64_t seed, unsigned trial,
                             kr_tensor *args) {
  uint64_t s = seed ^ ((uint64_t)trial + 1) * 0xD1B54A32D192ED03ull;
  for (unsigned i = 0; i < fty->u.func.num_inputs; i++) {
    kr_type t = fty->u.func.inputs[i];
    kr_type e = t->kind == KR_TYPE_TENSOR ? t->u.shaped.elem : NULL;
    bool fl = e && kr_type_is_float(e);
    bool in = e && (e->kind == KR_TYPE_INTEGER || e->kind == KR_TYPE_INDEX);
    if (!e || !kr_type_has_static_shape(t) || (!fl && !in) || KR_FAILED(kr_tensor_alloc(&args[i], t))) {
      char *ts = kr_type_to_cstr(t);
      kr_op_emit_error(func, "cannot check numerics of %s: argument #%u has type %s (random inputs need a "
                       "statically shaped tensor of floats or integers)", name, i, ts);
      free(ts);
      return KR_FAILURE;
    }
    bool i1 = e->kind == KR_TYPE_INTEGER && e->u.integer.width == 1;
    for (int64_t k = 0; k < args[i].numel; k++) {
      if (fl)
        kr_tensor_set_f64(&args[i], k, 2.0 * next_unit(&s) - 1.0);
      else
        kr_tensor_set_i64(&args[i], k, (int64_t)(next_u64(&s) % (i1 ? 2 : 4)));
    }
  }
  return KR_SUCCESS;
}

/* How far element k of y is beyond the tolerance around r: 0 within it, else |y - r| minus the
 * tolerance (> 0; INFINITY for a NaN or an infinity that does not match). */
static double element_excess(const kr_numerics_options *o, bool fl, const kr_tensor *r, const kr_tensor *y,
                            int64_t k) {
  if (!fl) {
    int64_t a = kr_tensor_get_i64(r, k), b = kr_tensor_get_i64(y, k);
    return a == b ? 0 : fabs((double)a - (double)b);
  }
  double a = kr_tensor_get_f64(r, k), b = kr_tensor_get_f64(y, k);
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : INFINITY;
  if (isinf(a) || isinf(b)) return a == b ? 0 : INFINITY;
  double d = fabs(b - a), tol = o->atol + o->rtol * fabs(a);
  return d <= tol ? 0 : d - tol;
}

/* Compares output `k` of one run; updates r's worst element.  Returns false on a type mismatch
 * (reported here). */
static bool compare_output(const kr_numerics_options *o, kr_op *func, const char *name, unsigned trial, unsigned k,
                           const kr_tensor *before, const kr_tensor *after, kr_numerics_result *r) {
  if (before->type != after->type) {
    char *a = kr_type_to_cstr(before->type), *b = kr_type_to_cstr(after->type);
    kr_op_emit_error(func, "numerics differ after the pipeline: output #%u of %s has type %s, %s before", k, name, b,
                     a);
    free(a);
    free(b);
    r->mismatch = true;
    r->func = kr_op_symbol_name(func);
    r->trial = trial;
    r->output = k;
    r->element = -1;
    r->excess = INFINITY;
    return false;
  }
  bool fl = kr_type_is_float(kr_tensor_elem(before));
  int64_t bad = 0, worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < before->numel; i++) {
    double q = element_excess(o, fl, before, after, i);
    if (q > 0) {
      bad++;
      if (worst < 0 || q > worst_excess) worst = i, worst_excess = q;
    }
  }
  if (worst < 0 || (r->mismatch && worst_excess <= r->excess)) return true;
  r->mismatch = true;
  r->func = kr_op_symbol_name(func);
  r->trial = trial;
  r->output = k;
  r->element = worst;
  r->num_bad = bad;
  r->numel = before->numel;
  r->before = kr_tensor_get_f64(before, worst);
  r->after = kr_tensor_get_f64(after, worst);
  r->excess = worst_excess;
  return true;
}

/* "[i, j, k]" of flat index `e` in `t` (rank 0: "[]"). */
static void multi_index(const kr_tensor *t, int64_t e, char *buf, size_t cap) {
  unsigned rank = kr_tensor_rank(t);
  const int64_t *dims = kr_tensor_dims(t);
  int64_t idx[64];
  for (unsigned i = rank; i-- > 0 && i < 64;) {
    idx[i] = dims[i] ? e % dims[i] : 0;
    e = dims[i] ? e / dims[i] : 0;
  }
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (unsigned i = 0; i < rank && i < 64 && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)idx[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Runs `func` on args; on failure reports "cannot check numerics" at it. */
static kr_status run(kr_op *func, const char *name, const char *when, unsigned trial, const kr_tensor *args,
                     unsigned nargs, kr_tensor *outs, unsigned nouts) {
  if (!KR_FAILED(kr_interp_run(func, args, nargs, outs, nouts))) return KR_SUCCESS;
  return kr_op_emit_error(func, "cannot check numerics of %s: the interpreter failed on it %s the pipeline (trial %u)",
                          name, when, trial + 1);
}

/* One function, all trials; `name` is its symbol path for messages ("@f", "@m::@f"). */
static kr_status compare_func(const kr_numerics_options *o, kr_op *fb, kr_op *fa, const char *name,
                              kr_numerics_result *r) {
  kr_type tb = func_type(fb), ta = func_type(fa);
  if (!tb || !ta) return kr_op_emit_error(tb ? fa : fb, "cannot check numerics of %s: no function type", name);
  if (tb != ta) {
    char *a = kr_type_to_cstr(tb), *b = kr_type_to_cstr(ta);
    kr_op_emit_error(fa, "cannot check numerics of %s: the pipeline changed its type from %s to %s", name, a, b);
    free(a);
    free(b);
    return KR_FAILURE;
  }
  unsigned nargs = tb->u.func.num_inputs, nouts = tb->u.func.num_results;
  kr_tensor *args = calloc(nargs + 1, sizeof *args);
  kr_tensor *ob = calloc(nouts + 1, sizeof *ob), *oa = calloc(nouts + 1, sizeof *oa);
  kr_status st = args && ob && oa ? KR_SUCCESS : kr_op_emit_error(fb, "cannot check numerics: out of memory");
  r->functions++;
  for (unsigned t = 0; !KR_FAILED(st) && t < o->trials; t++) {
    st = make_inputs(fb, name, tb, o->seed, t, args);
    if (!KR_FAILED(st)) st = run(fb, name, "before", t, args, nargs, ob, nouts);
    if (!KR_FAILED(st)) st = run(fa, name, "after", t, args, nargs, oa, nouts);
    if (!KR_FAILED(st)) {
      r->runs++;
      bool reported = false;   /* a type mismatch, reported by compare_output */
      for (unsigned k = 0; k < nouts && !reported; k++) reported = !compare_output(o, fa, name, t, k, &ob[k], &oa[k], r);
      /* The first run (function, trial) that differs is reported with its worst element. */
      if (r->mismatch && !reported) {
        char where[512];
        multi_index(&ob[r->output], r->element, where, sizeof where);
        kr_op_emit_error(fa,
                         "numerics differ after the pipeline: %s output #%u element %lld %s: %.9g before, %.9g "
                         "after (%lld of %lld elements outside atol %g + rtol %g * |before|; seed %llu, trial %u)",
                         name, r->output, (long long)r->element, where, r->before, r->after, (long long)r->num_bad,
                         (long long)r->numel, o->atol, o->rtol, (unsigned long long)o->seed, t + 1);
      }
    }
    for (unsigned i = 0; i < nargs; i++) kr_tensor_free(&args[i]);
    for (unsigned k = 0; k < nouts; k++) {
      kr_tensor_free(&ob[k]);
      kr_tensor_free(&oa[k]);
    }
    if (r->mismatch) break;
  }
  free(args);
  free(ob);
  free(oa);
  return st;
}

/* The `index`-th (0-based) builtin.module without a symbol name directly in `block`, or NULL. */
static kr_op *unnamed_module(kr_block *block, unsigned index) {
  for (kr_op *op = block ? block->first : NULL; op; op = op->next)
    if (!strcmp(op->name, "builtin.module") && !kr_op_symbol_name(op) && index-- == 0) return op;
  return NULL;
}

/* Compares the functions of module `before` with those of `after` (its counterpart), recursing
 * into nested builtin.modules: a named one is matched by its symbol name, an unnamed one by its
 * position among the unnamed modules of its block.  `prefix` is the symbol path so far ("" at
 * the top, "@m::" inside module @m, "(module #1)::" inside the second unnamed one). */
static kr_status compare_module(kr_op *before, kr_op *after, const char *prefix, const kr_numerics_options *o,
                                kr_numerics_result *r) {
  if (!before->num_regions || !after->num_regions) return KR_SUCCESS;
  kr_block *bb = kr_op_region(before, 0)->first, *ab = kr_op_region(after, 0)->first;
  unsigned unnamed = 0;
  for (kr_op *fb = bb ? bb->first : NULL; fb && !r->mismatch; fb = fb->next) {
    bool is_func = !strcmp(fb->name, "func.func"), is_module = !strcmp(fb->name, "builtin.module");
    if (!is_func && !is_module) continue;
    kr_ident name = kr_op_symbol_name(fb);
    char path[1024];
    kr_op *fa;
    if (is_module && !name) {
      fa = unnamed_module(ab, unnamed);
      snprintf(path, sizeof path, "%s(module #%u)", prefix, unnamed++);
    } else {
      fa = name ? kr_symbol_lookup_in(after, name) : NULL;
      snprintf(path, sizeof path, "%s@%s", prefix, name ? name : "");
    }
    if (!fa || strcmp(fa->name, fb->name)) continue;
    kr_status st;
    if (is_module) {
      char inner[1030];
      snprintf(inner, sizeof inner, "%s::", path);
      st = compare_module(fb, fa, inner, o, r);
    } else {
      if (!has_body(fb) || !has_body(fa)) continue;
      st = compare_func(o, fb, fa, path, r);
    }
    if (KR_FAILED(st)) return KR_FAILURE;
  }
  return KR_SUCCESS;
}

kr_status kr_numerics_compare_modules(kr_op *before, kr_op *after, const kr_numerics_options *o,
                                      kr_numerics_result *r) {
  memset(r, 0, sizeof *r);
  return compare_module(before, after, "", o, r);   /* one report is enough: stops at a mismatch */
}
