/* Unit tests: the CPU reference kernels of the prim dialect (backend/interp/prim_*.c; semantics
 * in dialects/prim/ops.def).
 *
 * Each primitive is built as a single op with an explicit result type (kr_op_state +
 * kr_op_create: no shape inference needed) and evaluated with kr_interp_eval_op.  Expectations
 * come from naive loops written here (double accumulation, index arithmetic), from hand
 * computations (comments), or from the op-level kernel of the op the primitive mirrors, run on
 * an op.* op through the same entry point (prim.conv vs op.conv, prim.reduce_window(max) vs
 * op.max_pool, prim.cast vs op.cast over every dtype pair, ...).  The last test builds and
 * verifies prim ops through kr_prim_build and the parser (needs the shape inference hooks). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/interp.h"
#include "korch/korch.h"
#include "korch/op.h"
#include "korch/prim.h"
#include "test/unit/unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

/* `name` on fresh block arguments of types `in` (n of them), result type `out`, attributes
 * from the dictionary text `attrs` (NULL: none).  No inference, no verification. */
static kr_op *mk(const char *name, const char *const *in, unsigned n, const char *out, const char *attrs) {
  kr_block *b = kr_block_create(ctx);
  kr_value vals[8];
  for (unsigned i = 0; i < n; i++) vals[i] = kr_block_add_arg(b, unit_type(in[i]), NULL);
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_op_state_add_operands(&st, vals, n);
  kr_type rt = unit_type(out);
  kr_op_state_add_results(&st, &rt, 1);
  if (attrs) {
    kr_attr d = kr_parse_attr_str(ctx, attrs);
    ck_assert_msg(d && d->kind == KR_ATTR_DICT, "cannot parse attributes %s", attrs);
    for (unsigned i = 0; i < d->u.dict.num; i++) kr_op_state_add_attr(&st, d->u.dict.entries[i].name, d->u.dict.entries[i].value);
  }
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  return op;
}

/* Single-operand / two-operand shorthands. */
static kr_op *mk1(const char *name, const char *in, const char *out, const char *attrs) {
  return mk(name, (const char *const[]){in}, 1, out, attrs);
}
static kr_op *mk2(const char *name, const char *a, const char *b, const char *out, const char *attrs) {
  return mk(name, (const char *const[]){a, b}, 2, out, attrs);
}

static kr_tensor eval(kr_op *op, kr_tensor *const *ins) {
  kr_tensor y;
  ck_assert_msg(kr_interp_eval_op(op, ins, &y) == KR_SUCCESS, "%s", last_error);
  return y;
}

/* Evaluation must fail with a message containing `msg`. */
static void eval_fails(kr_op *op, kr_tensor *const *ins, const char *msg) {
  kr_tensor y;
  ck_assert_int_eq(kr_interp_eval_op(op, ins, &y), KR_FAILURE);
  ck_assert_msg(strstr(last_error, msg) != NULL, "expected \"%s\", got \"%s\"", msg, last_error);
}

static kr_tensor tnew(const char *type) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type(type)), KR_SUCCESS);
  return t;
}
static kr_tensor tf(const char *type, const double *v) {
  kr_tensor t = tnew(type);
  for (int64_t i = 0; i < t.numel; i++) kr_tensor_set_f64(&t, i, v[i]);
  return t;
}
static kr_tensor ti(const char *type, const int64_t *v) {
  kr_tensor t = tnew(type);
  for (int64_t i = 0; i < t.numel; i++) kr_tensor_set_i64(&t, i, v[i]);
  return t;
}

static bool is_float_elem(kr_type e) { return e->kind == KR_TYPE_FLOAT; }

/* Deterministic test data for any element type: floats are multiples of 1/4 in [-4, 4] (exact
 * in f16 and bf16) with NaN, +inf, -inf and -0 at positions 3, 5, 6, 9 when `specials`;
 * integers spread over [-125, 125] (wrapping for unsigned types and i1 as x != 0). */
static kr_tensor pattern(const char *type, unsigned seed, bool specials) {
  kr_tensor t = tnew(type);
  kr_type e = kr_tensor_elem(&t);
  for (int64_t i = 0; i < t.numel; i++) {
    int64_t k = (i * 37 + seed * 11 + 5) % 33 - 16;
    if (is_float_elem(e)) {
      double v = k * 0.25;
      if (specials) v = i == 3 ? NAN : i == 5 ? INFINITY : i == 6 ? -INFINITY : i == 9 ? -0.0 : v;
      kr_tensor_set_f64(&t, i, v);
    } else if (e->u.integer.width == 1) {
      kr_tensor_set_i64(&t, i, (i * 7 + seed) % 3 == 0);
    } else {
      kr_tensor_set_i64(&t, i, ((i * 37 + seed * 11) % 251) - 125);
    }
  }
  return t;
}

static void same_bytes(const kr_tensor *a, const kr_tensor *b, const char *what) {
  ck_assert_msg(a->type == b->type, "%s: result types differ", what);
  ck_assert_msg(a->nbytes == b->nbytes && (a->nbytes == 0 || !memcmp(a->data, b->data, a->nbytes)),
                "%s: results differ", what);
}

static double F(const kr_tensor *t, int64_t i) { return kr_tensor_get_f64(t, i); }
static int64_t I(const kr_tensor *t, int64_t i) { return kr_tensor_get_i64(t, i); }

static void free_all(kr_tensor *ts, unsigned n) {
  for (unsigned i = 0; i < n; i++) kr_tensor_free(&ts[i]);
}

static const char *const all_elems[] = {"f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64",
                                        "ui8", "ui16", "ui32", "ui64", "i1"};
#define NUM_ELEMS (sizeof all_elems / sizeof all_elems[0])
static const char *const float_elems[] = {"f32", "f64", "f16", "bf16"};
static const char *const numeric_elems[] = {"f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64",
                                            "ui8", "ui16", "ui32", "ui64"};

/* =============================================================================================
 * Elementwise. */

/* prim.<stem> vs op.<op_stem> on every element type in `elems`, NaN/inf included for floats. */
static void unary_vs_op(const char *stem, const char *op_stem, const char *const *elems, unsigned ne) {
  for (unsigned k = 0; k < ne; k++) {
    char ty[64], pn[64], on[64];
    snprintf(ty, sizeof ty, "tensor<3x5x%s>", elems[k]);
    snprintf(pn, sizeof pn, "prim.%s", stem);
    snprintf(on, sizeof on, "op.%s", op_stem);
    kr_tensor x = pattern(ty, k, true);
    kr_tensor *ins[] = {&x};
    kr_tensor a = eval(mk1(pn, ty, ty, NULL), ins), b = eval(mk1(on, ty, ty, NULL), ins);
    char what[96];
    snprintf(what, sizeof what, "%s on %s", pn, elems[k]);
    same_bytes(&a, &b, what);
    kr_tensor_free(&a), kr_tensor_free(&b), kr_tensor_free(&x);
  }
}

START_TEST(unary_mirror_op_level) {
  static const char *const float_ops[] = {"exp", "log", "sqrt", "tanh", "erf", "sin", "cos", "floor", "ceil", "round"};
  for (unsigned i = 0; i < sizeof float_ops / sizeof *float_ops; i++) unary_vs_op(float_ops[i], float_ops[i], float_elems, 4);
  unary_vs_op("neg", "neg", numeric_elems, 12);
  unary_vs_op("abs", "abs", numeric_elems, 12);
  unary_vs_op("sign", "sign", numeric_elems, 12);
  unary_vs_op("not", "not", (const char *const[]){"i1"}, 1);
}
END_TEST

START_TEST(unary_values) {
  /* Round half to even; floor/ceil of negatives; sign keeps NaN and -0. */
  static const double xv[] = {0.5, 1.5, 2.5, -0.5, -2.5, -1.25, NAN, -0.0};
  kr_tensor x = tf("tensor<8xf32>", xv);
  kr_tensor *ins[] = {&x};
  kr_tensor r = eval(mk1("prim.round", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  static const double want_r[] = {0, 2, 2, -0.0, -2, -1};
  for (int i = 0; i < 6; i++) ck_assert(F(&r, i) == want_r[i]);
  ck_assert(signbit(F(&r, 3)));
  ck_assert(isnan(F(&r, 6)));
  kr_tensor s = eval(mk1("prim.sign", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  static const double want_s[] = {1, 1, 1, -1, -1, -1};
  for (int i = 0; i < 6; i++) ck_assert(F(&s, i) == want_s[i]);
  ck_assert(isnan(F(&s, 6)));
  ck_assert(F(&s, 7) == 0 && signbit(F(&s, 7)));
  kr_tensor fl = eval(mk1("prim.floor", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  kr_tensor ce = eval(mk1("prim.ceil", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  ck_assert(F(&fl, 5) == -2 && F(&ce, 5) == -1 && F(&fl, 2) == 2 && F(&ce, 2) == 3);
  /* f32 transcendental results: the double formula rounded once to f32. */
  kr_tensor e = eval(mk1("prim.exp", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  kr_tensor th = eval(mk1("prim.tanh", "tensor<8xf32>", "tensor<8xf32>", NULL), ins);
  for (int i = 0; i < 6; i++) {
    ck_assert(((const float *)e.data)[i] == (float)exp((double)(float)xv[i]));
    ck_assert(((const float *)th.data)[i] == (float)tanh((double)(float)xv[i]));
  }
  kr_tensor outs1[] = {x, r, s, fl, ce, e, th};
  free_all(outs1, 7);

  /* Integers: |INT8_MIN| and -INT8_MIN wrap to -128; neg of ui8 1 is 255; sign of ui8 200 is 1. */
  static const int64_t iv[] = {-128, -5, 0, 7};
  kr_tensor xi = ti("tensor<4xi8>", iv);
  kr_tensor *ii[] = {&xi};
  kr_tensor a = eval(mk1("prim.abs", "tensor<4xi8>", "tensor<4xi8>", NULL), ii);
  kr_tensor n = eval(mk1("prim.neg", "tensor<4xi8>", "tensor<4xi8>", NULL), ii);
  kr_tensor sg = eval(mk1("prim.sign", "tensor<4xi8>", "tensor<4xi8>", NULL), ii);
  ck_assert_int_eq(I(&a, 0), -128); ck_assert_int_eq(I(&a, 1), 5); ck_assert_int_eq(I(&a, 3), 7);
  ck_assert_int_eq(I(&n, 0), -128); ck_assert_int_eq(I(&n, 1), 5); ck_assert_int_eq(I(&n, 3), -7);
  ck_assert_int_eq(I(&sg, 0), -1); ck_assert_int_eq(I(&sg, 2), 0); ck_assert_int_eq(I(&sg, 3), 1);
  static const int64_t uv[] = {1, 200, 0, 255};
  kr_tensor xu = ti("tensor<4xui8>", uv);
  kr_tensor *iu[] = {&xu};
  kr_tensor nu = eval(mk1("prim.neg", "tensor<4xui8>", "tensor<4xui8>", NULL), iu);
  kr_tensor su = eval(mk1("prim.sign", "tensor<4xui8>", "tensor<4xui8>", NULL), iu);
  ck_assert_int_eq(I(&nu, 0), 255); ck_assert_int_eq(I(&nu, 1), 56);
  ck_assert_int_eq(I(&su, 1), 1); ck_assert_int_eq(I(&su, 2), 0);
  /* not on i1. */
  static const int64_t bv[] = {1, 0, 0, 1};
  kr_tensor xb = ti("tensor<4xi1>", bv);
  kr_tensor *ib[] = {&xb};
  kr_tensor nb = eval(mk1("prim.not", "tensor<4xi1>", "tensor<4xi1>", NULL), ib);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(((const uint8_t *)nb.data)[i], !bv[i]);
  kr_tensor outs2[] = {xi, a, n, sg, xu, nu, su, xb, nb};
  free_all(outs2, 9);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* prim.<stem> vs op.<op_stem> (attributes op_attrs) on two patterned operands. */
static void binary_vs_op(const char *stem, const char *op_stem, const char *op_attrs, const char *const *elems,
                         unsigned ne) {
  for (unsigned k = 0; k < ne; k++) {
    char ty[64], pn[64], on[64], what[96];
    snprintf(ty, sizeof ty, "tensor<4x6x%s>", elems[k]);
    snprintf(pn, sizeof pn, "prim.%s", stem);
    snprintf(on, sizeof on, "op.%s", op_stem);
    kr_tensor a = pattern(ty, k, true), b = pattern(ty, k + 3, true);
    kr_tensor *ins[] = {&a, &b};
    kr_tensor p = eval(mk2(pn, ty, ty, ty, NULL), ins), o = eval(mk2(on, ty, ty, ty, op_attrs), ins);
    snprintf(what, sizeof what, "%s on %s", pn, elems[k]);
    same_bytes(&p, &o, what);
    kr_tensor ts[] = {a, b, p, o};
    free_all(ts, 4);
  }
}

START_TEST(binary_mirror_op_level) {
  static const char *const ar[] = {"add", "sub", "mul", "div", "pow", "max", "min"};
  for (unsigned i = 0; i < sizeof ar / sizeof *ar; i++) binary_vs_op(ar[i], ar[i], NULL, numeric_elems, 12);
  binary_vs_op("rem", "mod", "{fmod = 1 : i64}", numeric_elems, 12);
  static const char *const lg[] = {"and", "or", "xor"};
  for (unsigned i = 0; i < 3; i++) binary_vs_op(lg[i], lg[i], NULL, (const char *const[]){"i1"}, 1);
}
END_TEST

START_TEST(binary_values) {
  /* i8 wrap-around: 100 + 100 = 200 - 256 = -56; -100 - 100 = 56; 16 * 16 = 256 = 0. */
  static const int64_t a8[] = {100, -100, 16, 7, -7, 7, -128, 5};
  static const int64_t b8[] = {100, 100, 16, 2, 2, -2, -1, 0};
  kr_tensor a = ti("tensor<8xi8>", a8), b = ti("tensor<8xi8>", b8);
  kr_tensor *ins[] = {&a, &b};
  const char *t8 = "tensor<8xi8>";
  kr_tensor add = eval(mk2("prim.add", t8, t8, t8, NULL), ins);
  kr_tensor sub = eval(mk2("prim.sub", t8, t8, t8, NULL), ins);
  kr_tensor mul = eval(mk2("prim.mul", t8, t8, t8, NULL), ins);
  kr_tensor div = eval(mk2("prim.div", t8, t8, t8, NULL), ins);
  kr_tensor rem = eval(mk2("prim.rem", t8, t8, t8, NULL), ins);
  ck_assert_int_eq(I(&add, 0), -56);
  ck_assert_int_eq(I(&sub, 1), 56);
  ck_assert_int_eq(I(&mul, 2), 0);
  /* Truncating division: 7/2 = 3, -7/2 = -3, 7/-2 = -3; -128 / -1 wraps to -128; x/0 = 0. */
  ck_assert_int_eq(I(&div, 3), 3); ck_assert_int_eq(I(&div, 4), -3); ck_assert_int_eq(I(&div, 5), -3);
  ck_assert_int_eq(I(&div, 6), -128); ck_assert_int_eq(I(&div, 7), 0);
  /* Remainder with the dividend's sign: 7%2 = 1, -7%2 = -1, 7%-2 = 1; x%0 = 0. */
  ck_assert_int_eq(I(&rem, 3), 1); ck_assert_int_eq(I(&rem, 4), -1); ck_assert_int_eq(I(&rem, 5), 1);
  ck_assert_int_eq(I(&rem, 6), 0); ck_assert_int_eq(I(&rem, 7), 0);
  kr_tensor o1[] = {a, b, add, sub, mul, div, rem};
  free_all(o1, 7);

  /* f32: fmod(-7.5, 2) = -1.5; max/min with a NaN on either side are NaN; x/0 = inf. */
  static const double fa[] = {-7.5, NAN, 1, 3, 1};
  static const double fb[] = {2, 1, NAN, -2, 0};
  kr_tensor x = tf("tensor<5xf32>", fa), y = tf("tensor<5xf32>", fb);
  kr_tensor *fi[] = {&x, &y};
  const char *t5 = "tensor<5xf32>";
  kr_tensor fr = eval(mk2("prim.rem", t5, t5, t5, NULL), fi);
  kr_tensor mx = eval(mk2("prim.max", t5, t5, t5, NULL), fi);
  kr_tensor mn = eval(mk2("prim.min", t5, t5, t5, NULL), fi);
  kr_tensor fd = eval(mk2("prim.div", t5, t5, t5, NULL), fi);
  ck_assert(F(&fr, 0) == -1.5 && F(&fr, 3) == 1);
  ck_assert(isnan(F(&mx, 1)) && isnan(F(&mx, 2)) && isnan(F(&mn, 1)) && isnan(F(&mn, 2)));
  ck_assert(F(&mx, 3) == 3 && F(&mn, 3) == -2);
  ck_assert(isinf(F(&fd, 4)) && F(&fd, 4) > 0);
  kr_tensor o2[] = {x, y, fr, mx, mn, fd};
  free_all(o2, 6);

  /* pow on integers: 2^10 = 1024, 3^-1 = 0, (-1)^-3 = -1, 1^-5 = 1; ui8 2^9 = 512 mod 256 = 0. */
  static const int64_t pa[] = {2, 3, -1, 1}, pb[] = {10, -1, -3, -5};
  kr_tensor p = ti("tensor<4xi32>", pa), q = ti("tensor<4xi32>", pb);
  kr_tensor *pi[] = {&p, &q};
  kr_tensor pw = eval(mk2("prim.pow", "tensor<4xi32>", "tensor<4xi32>", "tensor<4xi32>", NULL), pi);
  ck_assert_int_eq(I(&pw, 0), 1024); ck_assert_int_eq(I(&pw, 1), 0);
  ck_assert_int_eq(I(&pw, 2), -1); ck_assert_int_eq(I(&pw, 3), 1);
  static const int64_t ua[] = {2, 3}, ub[] = {9, 4};
  kr_tensor u = ti("tensor<2xui8>", ua), v = ti("tensor<2xui8>", ub);
  kr_tensor *ui[] = {&u, &v};
  kr_tensor upw = eval(mk2("prim.pow", "tensor<2xui8>", "tensor<2xui8>", "tensor<2xui8>", NULL), ui);
  ck_assert_int_eq(I(&upw, 0), 0); ck_assert_int_eq(I(&upw, 1), 81);
  /* i32 overflow: 65536 * 65536 = 2^32 = 0 mod 2^32; INT32_MAX + 1 = INT32_MIN. */
  static const int64_t ma[] = {65536, 2147483647}, mb[] = {65536, 1};
  kr_tensor m1 = ti("tensor<2xi32>", ma), m2 = ti("tensor<2xi32>", mb);
  kr_tensor *mi[] = {&m1, &m2};
  kr_tensor mm = eval(mk2("prim.mul", "tensor<2xi32>", "tensor<2xi32>", "tensor<2xi32>", NULL), mi);
  kr_tensor ma2 = eval(mk2("prim.add", "tensor<2xi32>", "tensor<2xi32>", "tensor<2xi32>", NULL), mi);
  ck_assert_int_eq(I(&mm, 0), 0); ck_assert_int_eq(I(&ma2, 1), INT32_MIN);
  kr_tensor o3[] = {p, q, pw, u, v, upw, m1, m2, mm, ma2};
  free_all(o3, 10);

  /* Zero-size operands. */
  kr_tensor z1 = tnew("tensor<0x3xf32>"), z2 = tnew("tensor<0x3xf32>");
  kr_tensor *zi[] = {&z1, &z2};
  kr_tensor zr = eval(mk2("prim.add", "tensor<0x3xf32>", "tensor<0x3xf32>", "tensor<0x3xf32>", NULL), zi);
  ck_assert_int_eq(zr.numel, 0);
  kr_tensor o4[] = {z1, z2, zr};
  free_all(o4, 3);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* prim.cmp for every predicate and element type against a comparison written here: floats as
 * double (exact for these types; every predicate but ne false on NaN), ui* as uint64, the others
 * as int64. */
START_TEST(cmp_all_predicates) {
  static const char *const preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (unsigned k = 0; k < NUM_ELEMS; k++) {
    char ty[64], rt[64];
    snprintf(ty, sizeof ty, "tensor<5x7x%s>", all_elems[k]);
    snprintf(rt, sizeof rt, "tensor<5x7xi1>");
    kr_tensor a = pattern(ty, k, true), b = pattern(ty, k + 1, true);
    /* Some equal elements. */
    size_t eb = a.nbytes / (size_t)a.numel;
    for (int64_t i = 0; i < a.numel; i += 4) memcpy((char *)b.data + i * eb, (char *)a.data + i * eb, eb);
    kr_type e = kr_tensor_elem(&a);
    kr_tensor *ins[] = {&a, &b};
    for (unsigned p = 0; p < 6; p++) {
      char attrs[64];
      snprintf(attrs, sizeof attrs, "{predicate = \"%s\"}", preds[p]);
      kr_tensor y = eval(mk2("prim.cmp", ty, ty, rt, attrs), ins);
      for (int64_t i = 0; i < a.numel; i++) {
        int c;   /* -1, 0, 1 or 2 (unordered) */
        if (is_float_elem(e)) {
          double x = F(&a, i), z = F(&b, i);
          c = isnan(x) || isnan(z) ? 2 : x < z ? -1 : x > z;
        } else if (kr_type_is_unsigned_int(e)) {
          uint64_t x = kr_tensor_get_u64(&a, i), z = kr_tensor_get_u64(&b, i);
          c = x < z ? -1 : x > z;
        } else {
          int64_t x = I(&a, i), z = I(&b, i);
          c = x < z ? -1 : x > z;
        }
        bool want = p == 0 ? c == 0 : p == 1 ? c != 0 : p == 2 ? c == -1 : p == 3 ? (c == -1 || c == 0)
                    : p == 4 ? c == 1 : (c == 1 || c == 0);
        ck_assert_msg(((const uint8_t *)y.data)[i] == want, "cmp %s on %s element %lld", preds[p], all_elems[k],
                      (long long)i);
      }
      kr_tensor_free(&y);
    }
    kr_tensor_free(&a), kr_tensor_free(&b);
  }
  /* ui8 200 > 100 (unsigned), i8 -56 < 100. */
  static const int64_t av[] = {200}, bv[] = {100};
  kr_tensor a = ti("tensor<1xui8>", av), b = ti("tensor<1xui8>", bv);
  kr_tensor *ins[] = {&a, &b};
  kr_tensor y = eval(mk2("prim.cmp", "tensor<1xui8>", "tensor<1xui8>", "tensor<1xi1>", "{predicate = \"gt\"}"), ins);
  ck_assert_int_eq(((const uint8_t *)y.data)[0], 1);
  eval_fails(mk2("prim.cmp", "tensor<1xui8>", "tensor<1xui8>", "tensor<1xi1>", "{predicate = \"lg\"}"), ins,
             "attribute 'predicate' must be one of eq, ne, lt, le, gt, ge");
  kr_tensor o[] = {a, b, y};
  free_all(o, 3);
}
END_TEST

START_TEST(select_bytes) {
  for (unsigned k = 0; k < NUM_ELEMS; k++) {
    char ty[64];
    snprintf(ty, sizeof ty, "tensor<3x4x%s>", all_elems[k]);
    kr_tensor c = pattern("tensor<3x4xi1>", k, false), a = pattern(ty, k, true), b = pattern(ty, k + 7, true);
    kr_tensor *ins[] = {&c, &a, &b};
    kr_tensor y = eval(mk("prim.select", (const char *const[]){"tensor<3x4xi1>", ty, ty}, 3, ty, NULL), ins);
    size_t eb = a.nbytes / (size_t)a.numel;
    for (int64_t i = 0; i < a.numel; i++)
      ck_assert(!memcmp((char *)y.data + i * eb, (char *)(((uint8_t *)c.data)[i] ? a.data : b.data) + i * eb, eb));
    kr_tensor o[] = {c, a, b, y};
    free_all(o, 4);
  }
}
END_TEST

/* prim.cast vs op.cast over every (from, to) pair of element types, specials included; to bf16
 * with rounding = "toward_zero", op.cast's truncation (the default rounds: see below). */
START_TEST(cast_all_pairs) {
  for (unsigned f = 0; f < NUM_ELEMS; f++)
    for (unsigned t = 0; t < NUM_ELEMS; t++) {
      char ft[64], tt[64], attrs[96], what[64];
      snprintf(ft, sizeof ft, "tensor<2x7x%s>", all_elems[f]);
      snprintf(tt, sizeof tt, "tensor<2x7x%s>", all_elems[t]);
      snprintf(attrs, sizeof attrs, "{to = %s}", all_elems[t]);
      char pattrs[96];
      snprintf(pattrs, sizeof pattrs, strcmp(all_elems[t], "bf16") ? "{to = %s}" : "{rounding = \"toward_zero\", to = %s}",
               all_elems[t]);
      kr_tensor x = pattern(ft, f + t, true);
      /* Large magnitudes too: out of range of the narrow types. */
      if (is_float_elem(kr_tensor_elem(&x))) kr_tensor_set_f64(&x, 11, -300.75), kr_tensor_set_f64(&x, 12, 70000.5);
      else if (strcmp(all_elems[f], "i1")) kr_tensor_set_i64(&x, 11, -300), kr_tensor_set_i64(&x, 12, 70001);
      kr_tensor *ins[] = {&x};
      kr_tensor p = eval(mk1("prim.cast", ft, tt, pattrs), ins), o = eval(mk1("op.cast", ft, tt, attrs), ins);
      snprintf(what, sizeof what, "cast %s -> %s", all_elems[f], all_elems[t]);
      same_bytes(&p, &o, what);
      kr_tensor ts[] = {x, p, o};
      free_all(ts, 3);
    }
  /* To bf16 by default: nearest, ties to even, as kr_tensor_set_f64 stores (kr_f64_to_bf16), for
   * every float source (70000.5 and -300.75 are not bf16 values). */
  for (unsigned f = 0; f < 4; f++) {
    char ft[64], what[64];
    snprintf(ft, sizeof ft, "tensor<2x7x%s>", float_elems[f]);
    kr_tensor x = pattern(ft, f, true);
    kr_tensor_set_f64(&x, 11, -300.75), kr_tensor_set_f64(&x, 12, 70000.5);
    kr_tensor *ins[] = {&x};
    kr_tensor p = eval(mk1("prim.cast", ft, "tensor<2x7xbf16>", "{to = bf16}"), ins), want = tnew("tensor<2x7xbf16>");
    for (int64_t i = 0; i < x.numel; i++) kr_tensor_set_f64(&want, i, kr_tensor_get_f64(&x, i));
    snprintf(what, sizeof what, "cast %s -> bf16 (nearest even)", float_elems[f]);
    same_bytes(&p, &want, what);
    kr_tensor ts[] = {x, p, want};
    free_all(ts, 3);
  }
  /* Spot checks: f32 -> i32 truncates toward zero; i32 300 -> i8 44 (wrap); f32 -> i1 is x != 0
   * (NaN true); i1 -> f32 is 0/1. */
  static const double xv[] = {2.75, -2.75, 0.5, 0, NAN};
  kr_tensor x = tf("tensor<5xf32>", xv);
  kr_tensor *ins[] = {&x};
  kr_tensor a = eval(mk1("prim.cast", "tensor<5xf32>", "tensor<5xi32>", "{to = i32}"), ins);
  kr_tensor b = eval(mk1("prim.cast", "tensor<5xf32>", "tensor<5xi1>", "{to = i1}"), ins);
  ck_assert_int_eq(I(&a, 0), 2); ck_assert_int_eq(I(&a, 1), -2);
  static const uint8_t wb[] = {1, 1, 1, 0, 1};
  ck_assert(!memcmp(b.data, wb, 5));
  kr_tensor *bi[] = {&b};
  kr_tensor c = eval(mk1("prim.cast", "tensor<5xi1>", "tensor<5xf32>", "{to = f32}"), bi);
  ck_assert(F(&c, 0) == 1 && F(&c, 3) == 0);
  static const int64_t iv[] = {300};
  kr_tensor i3 = ti("tensor<1xi32>", iv);
  kr_tensor *ii[] = {&i3};
  kr_tensor i8 = eval(mk1("prim.cast", "tensor<1xi32>", "tensor<1xi8>", "{to = i8}"), ii);
  ck_assert_int_eq(I(&i8, 0), 44);
  kr_tensor o[] = {x, a, b, c, i3, i8};
  free_all(o, 6);
}
END_TEST

START_TEST(iota_values) {
  static const char *const elems[] = {"f32", "f64", "f16", "bf16", "i8", "i32", "i64", "ui8", "ui64"};
  for (unsigned k = 0; k < sizeof elems / sizeof *elems; k++)
    for (int axis = 0; axis < 3; axis++) {
      char ty[64], attrs[128];
      snprintf(ty, sizeof ty, "tensor<2x3x4x%s>", elems[k]);
      snprintf(attrs, sizeof attrs, "{shape = array<i64: 2, 3, 4>, axis = %d : i64, elem = %s}", axis, elems[k]);
      kr_tensor y = eval(mk("prim.iota", NULL, 0, ty, attrs), NULL);
      for (int64_t i = 0; i < 24; i++) {
        int64_t want = axis == 0 ? i / 12 : axis == 1 ? (i / 4) % 3 : i % 4;
        ck_assert_msg(F(&y, i) == (double)want, "iota %s axis %d element %lld", elems[k], axis, (long long)i);
      }
      kr_tensor_free(&y);
    }
  /* i1: index != 0. */
  kr_tensor b = eval(mk("prim.iota", NULL, 0, "tensor<3xi1>", "{shape = array<i64: 3>, axis = 0 : i64, elem = i1}"), NULL);
  static const uint8_t wb[] = {0, 1, 1};
  ck_assert(!memcmp(b.data, wb, 3));
  kr_tensor_free(&b);
  /* Zero-size. */
  kr_tensor z = eval(mk("prim.iota", NULL, 0, "tensor<0x3xf32>", "{shape = array<i64: 0, 3>, axis = 1 : i64, elem = f32}"), NULL);
  ck_assert_int_eq(z.numel, 0);
  kr_tensor_free(&z);
}
END_TEST

/* =============================================================================================
 * Layout. */

START_TEST(broadcast_transpose_reshape_concat) {
  /* broadcast [3, 1] -> [2, 3, 4]: y[a, b, c] = x[b]. */
  kr_tensor x = pattern("tensor<3x1xi16>", 1, false);
  kr_tensor *ins[] = {&x};
  kr_tensor y = eval(mk1("prim.broadcast", "tensor<3x1xi16>", "tensor<2x3x4xi16>", "{shape = array<i64: 2, 3, 4>}"), ins);
  for (int64_t i = 0; i < 24; i++) ck_assert_int_eq(I(&y, i), I(&x, (i / 4) % 3));
  kr_tensor_free(&y);
  kr_tensor_free(&x);

  /* transpose [2, 3, 4] by perm (2, 0, 1): y[c, a, b] = x[a, b, c]; every dtype. */
  for (unsigned k = 0; k < NUM_ELEMS; k++) {
    char ti_[64], to_[64];
    snprintf(ti_, sizeof ti_, "tensor<2x3x4x%s>", all_elems[k]);
    snprintf(to_, sizeof to_, "tensor<4x2x3x%s>", all_elems[k]);
    kr_tensor a = pattern(ti_, k, true);
    kr_tensor *ai[] = {&a};
    kr_tensor t = eval(mk1("prim.transpose", ti_, to_, "{perm = array<i64: 2, 0, 1>}"), ai);
    size_t eb = a.nbytes / 24;
    for (int64_t c = 0; c < 4; c++)
      for (int64_t p = 0; p < 2; p++)
        for (int64_t b = 0; b < 3; b++)
          ck_assert(!memcmp((char *)t.data + ((c * 2 + p) * 3 + b) * eb, (char *)a.data + ((p * 3 + b) * 4 + c) * eb, eb));
    kr_tensor_free(&t);
    kr_tensor_free(&a);
  }
  /* reshape copies the bytes. */
  kr_tensor a = pattern("tensor<2x6xf32>", 3, true);
  kr_tensor *ai[] = {&a};
  kr_tensor r = eval(mk1("prim.reshape", "tensor<2x6xf32>", "tensor<3x1x4xf32>", "{shape = array<i64: 3, 1, 4>}"), ai);
  ck_assert(!memcmp(r.data, a.data, a.nbytes));
  kr_tensor_free(&r);

  /* concat along axis 1 of [2, 1], [2, 0], [2, 3] -> [2, 4]. */
  kr_tensor c0 = pattern("tensor<2x1xi32>", 1, false), c1 = tnew("tensor<2x0xi32>"), c2 = pattern("tensor<2x3xi32>", 2, false);
  kr_tensor *ci[] = {&c0, &c1, &c2};
  kr_tensor cy = eval(mk("prim.concat", (const char *const[]){"tensor<2x1xi32>", "tensor<2x0xi32>", "tensor<2x3xi32>"}, 3,
                         "tensor<2x4xi32>", "{axis = 1 : i64}"),
                      ci);
  for (int64_t i = 0; i < 2; i++) {
    ck_assert_int_eq(I(&cy, i * 4), I(&c0, i));
    for (int64_t j = 0; j < 3; j++) ck_assert_int_eq(I(&cy, i * 4 + 1 + j), I(&c2, i * 3 + j));
  }
  kr_tensor o[] = {a, c0, c1, c2, cy};
  free_all(o, 5);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* Naive slice: each output index decoded, the input index start + j*step per axis. */
static void check_slice(const char *in_type, const char *out_type, const int64_t *st, const int64_t *en,
                        const int64_t *sp, unsigned rank) {
  char attrs[256];
  int n = snprintf(attrs, sizeof attrs, "{starts = array<i64:");
  for (unsigned d = 0; d < rank; d++) n += snprintf(attrs + n, sizeof attrs - n, "%s %lld", d ? "," : "", (long long)st[d]);
  n += snprintf(attrs + n, sizeof attrs - n, ">, ends = array<i64:");
  for (unsigned d = 0; d < rank; d++) n += snprintf(attrs + n, sizeof attrs - n, "%s %lld", d ? "," : "", (long long)en[d]);
  n += snprintf(attrs + n, sizeof attrs - n, ">, steps = array<i64:");
  for (unsigned d = 0; d < rank; d++) n += snprintf(attrs + n, sizeof attrs - n, "%s %lld", d ? "," : "", (long long)sp[d]);
  snprintf(attrs + n, sizeof attrs - n, ">}");
  kr_tensor x = pattern(in_type, 2, false);
  kr_tensor *ins[] = {&x};
  kr_tensor y = eval(mk1("prim.slice", in_type, out_type, attrs), ins);
  const int64_t *xd = kr_tensor_dims(&x), *yd = kr_tensor_dims(&y);
  for (int64_t i = 0; i < y.numel; i++) {
    int64_t r = i, src = 0, mul = 1;
    for (unsigned d = rank; d-- > 0;) {
      int64_t j = r % yd[d];
      r /= yd[d];
      src += (st[d] + j * sp[d]) * mul;
      mul *= xd[d];
    }
    ck_assert_int_eq(I(&y, i), I(&x, src));
  }
  kr_tensor_free(&x), kr_tensor_free(&y);
}

START_TEST(slice_steps) {
  /* [5, 6]: rows 1, 3 (start 1, end 5, step 2: ceil(4/2) = 2); columns 5, 3, 1 (step -2 from 5
   * to -1: ceil(6/2) = 3). */
  check_slice("tensor<5x6xi32>", "tensor<2x3xi32>", (const int64_t[]){1, 5}, (const int64_t[]){5, -1},
              (const int64_t[]){2, -2}, 2);
  /* Full reversal of every axis, 3-D. */
  check_slice("tensor<2x3x4xi64>", "tensor<2x3x4xi64>", (const int64_t[]){1, 2, 3}, (const int64_t[]){-1, -1, -1},
              (const int64_t[]){-1, -1, -1}, 3);
  /* Step 3 with a partial last stride: 0, 3, 6 of 7 (ceil(7/3) = 3). */
  check_slice("tensor<7xi8>", "tensor<3xi8>", (const int64_t[]){0}, (const int64_t[]){7}, (const int64_t[]){3}, 1);
  /* Empty results: start == end, and a negative step on an empty range. */
  check_slice("tensor<4x3xi32>", "tensor<0x3xi32>", (const int64_t[]){2, 0}, (const int64_t[]){2, 3},
              (const int64_t[]){1, 1}, 2);
  check_slice("tensor<4x3xi32>", "tensor<4x0xi32>", (const int64_t[]){0, 1}, (const int64_t[]){4, 1},
              (const int64_t[]){1, -1}, 2);
  /* A declared result that does not match is an error, not an overrun. */
  kr_tensor x = tnew("tensor<4xf32>");
  kr_tensor *ins[] = {&x};
  eval_fails(mk1("prim.slice", "tensor<4xf32>", "tensor<3xf32>",
                 "{starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>}"),
             ins, "slice gives 4 elements on axis 0 but the result has 3");
  kr_tensor_free(&x);
}
END_TEST

/* Constant-mode pad with interior: every output starts as the value, then input element i of
 * each axis lands at low + i * (interior + 1) when inside the output (crop). */
static void check_pad_constant(const char *elem, const int64_t *xd, unsigned rank, const int64_t *pads,
                               const int64_t *interior, double value) {
  char xt[96], yt[96], vt[64], attrs[256];
  int64_t yd[4], ynum = 1, xnum = 1;
  int n1 = snprintf(xt, sizeof xt, "tensor<"), n2 = snprintf(yt, sizeof yt, "tensor<");
  int na = snprintf(attrs, sizeof attrs, "{pads = array<i64:");
  for (unsigned d = 0; d < 2 * rank; d++) na += snprintf(attrs + na, sizeof attrs - na, "%s %lld", d ? "," : "", (long long)pads[d]);
  na += snprintf(attrs + na, sizeof attrs - na, ">, interior = array<i64:");
  for (unsigned d = 0; d < rank; d++) {
    yd[d] = pads[d] + pads[rank + d] + xd[d] + (xd[d] ? (xd[d] - 1) * interior[d] : 0);
    n1 += snprintf(xt + n1, sizeof xt - n1, "%lldx", (long long)xd[d]);
    n2 += snprintf(yt + n2, sizeof yt - n2, "%lldx", (long long)yd[d]);
    na += snprintf(attrs + na, sizeof attrs - na, "%s %lld", d ? "," : "", (long long)interior[d]);
    ynum *= yd[d], xnum *= xd[d];
  }
  snprintf(xt + n1, sizeof xt - n1, "%s>", elem);
  snprintf(yt + n2, sizeof yt - n2, "%s>", elem);
  snprintf(vt, sizeof vt, "tensor<%s>", elem);
  snprintf(attrs + na, sizeof attrs - na, ">}");
  kr_tensor x = pattern(xt, 4, false), v = tf(vt, (const double[]){value});
  kr_tensor *ins[] = {&x, &v};
  kr_tensor y = eval(mk2("prim.pad", xt, vt, yt, attrs), ins);
  double *want = malloc((size_t)(ynum ? ynum : 1) * sizeof *want);
  for (int64_t i = 0; i < ynum; i++) want[i] = F(&v, 0);
  for (int64_t i = 0; i < xnum; i++) {
    int64_t r = i, o = 0, mul = 1;
    bool inside = true;
    for (unsigned d = rank; d-- > 0;) {
      int64_t j = r % xd[d];
      r /= xd[d];
      int64_t p = pads[d] + j * (interior[d] + 1);
      if (p < 0 || p >= yd[d]) inside = false;
      o += p * mul;
      mul *= yd[d];
    }
    if (inside) want[o] = F(&x, i);
  }
  for (int64_t i = 0; i < ynum; i++) ck_assert_msg(F(&y, i) == want[i], "pad %s element %lld", xt, (long long)i);
  free(want);
  kr_tensor o[] = {x, v, y};
  free_all(o, 3);
}

/* prim.pad (no interior) vs op.pad with the same pads as an operand and `mode`. */
static void pad_vs_op(const char *xt, const char *yt, const int64_t *pads, unsigned rank, const char *mode) {
  char attrs[256], pt[32], mattr[64];
  int na = snprintf(attrs, sizeof attrs, "{mode = \"%s\", pads = array<i64:", mode);
  for (unsigned d = 0; d < 2 * rank; d++) na += snprintf(attrs + na, sizeof attrs - na, "%s %lld", d ? "," : "", (long long)pads[d]);
  snprintf(attrs + na, sizeof attrs - na, ">}");
  snprintf(pt, sizeof pt, "tensor<%uxi64>", 2 * rank);
  snprintf(mattr, sizeof mattr, "{mode = \"%s\"}", mode);
  kr_tensor x = pattern(xt, 6, true), p = ti(pt, pads);
  kr_tensor *pi[] = {&x}, *oi[] = {&x, &p};
  kr_tensor a = eval(mk1("prim.pad", xt, yt, attrs), pi), b = eval(mk2("op.pad", xt, pt, yt, mattr), oi);
  same_bytes(&a, &b, mode);
  kr_tensor o[] = {x, p, a, b};
  free_all(o, 4);
}

START_TEST(pad_modes) {
  /* Interior 1 on both axes, low 1/high 2 and low 0/high 1. */
  check_pad_constant("f32", (const int64_t[]){3, 4}, 2, (const int64_t[]){1, 0, 2, 1}, (const int64_t[]){1, 1}, -1.5);
  /* Crops (negative pads) mixed with interior 2 and growth. */
  check_pad_constant("i32", (const int64_t[]){4, 5}, 2, (const int64_t[]){-1, 2, -3, -1}, (const int64_t[]){2, 0}, 9);
  /* 3-D, f16, crop on the low side of the last axis only. */
  check_pad_constant("f16", (const int64_t[]){2, 3, 4}, 3, (const int64_t[]){0, 1, -2, 1, 0, 3}, (const int64_t[]){0, 1, 0},
                     0.5);
  /* Zero-size input padded to a non-empty output: all value. */
  check_pad_constant("i8", (const int64_t[]){0, 2}, 2, (const int64_t[]){1, 0, 1, 0}, (const int64_t[]){3, 0}, 7);
  /* Absent value: zero.  [1, 2, 3] low 1 high 1 -> [0, 1, 2, 3, 0]. */
  static const int64_t v3[] = {1, 2, 3};
  kr_tensor x = ti("tensor<3xi32>", v3);
  kr_tensor *ins[] = {&x};
  kr_tensor y = eval(mk1("prim.pad", "tensor<3xi32>", "tensor<5xi32>", "{pads = array<i64: 1, 1>}"), ins);
  static const int64_t w0[] = {0, 1, 2, 3, 0};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(I(&y, i), w0[i]);
  kr_tensor_free(&y);
  /* numpy: reflect [1, 2, 3] by 2 -> [3, 2, 1, 2, 3, 2, 1]; edge -> [1, 1, 1, 2, 3, 3, 3]. */
  y = eval(mk1("prim.pad", "tensor<3xi32>", "tensor<7xi32>", "{pads = array<i64: 2, 2>, mode = \"reflect\"}"), ins);
  static const int64_t wr[] = {3, 2, 1, 2, 3, 2, 1};
  for (int i = 0; i < 7; i++) ck_assert_int_eq(I(&y, i), wr[i]);
  kr_tensor_free(&y);
  y = eval(mk1("prim.pad", "tensor<3xi32>", "tensor<7xi32>", "{pads = array<i64: 2, 2>, mode = \"edge\"}"), ins);
  static const int64_t we[] = {1, 1, 1, 2, 3, 3, 3};
  for (int i = 0; i < 7; i++) ck_assert_int_eq(I(&y, i), we[i]);
  kr_tensor_free(&y);
  kr_tensor_free(&x);
  /* Edge and reflect vs op.pad (ONNX Pad-13), with crops. */
  pad_vs_op("tensor<3x4xf32>", "tensor<6x5xf32>", (const int64_t[]){1, 2, 2, -1}, 2, "edge");
  pad_vs_op("tensor<3x4xf32>", "tensor<6x7xf32>", (const int64_t[]){1, 2, 2, 1}, 2, "reflect");
  pad_vs_op("tensor<2x3x4xbf16>", "tensor<4x3x6xbf16>", (const int64_t[]){1, 0, 2, 1, 0, 0}, 3, "reflect");
  pad_vs_op("tensor<3x4xi64>", "tensor<5x4xi64>", (const int64_t[]){2, -1, 0, 1}, 2, "constant");
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(gather_values) {
  /* data [2, 4, 3], indices [2, 2] on axis 1 -> [2, 2, 2, 3]. */
  static const char *const idx_types[] = {"i64", "i32", "ui8", "i8"};
  for (unsigned k = 0; k < 4; k++) {
    char it[64];
    snprintf(it, sizeof it, "tensor<2x2x%s>", idx_types[k]);
    static const int64_t iv[] = {3, 0, 1, 3};
    kr_tensor d = pattern("tensor<2x4x3xf32>", k, true), ind = ti(it, iv);
    kr_tensor *ins[] = {&d, &ind};
    kr_tensor y = eval(mk2("prim.gather", "tensor<2x4x3xf32>", it, "tensor<2x2x2x3xf32>", "{axis = 1 : i64}"), ins);
    for (int64_t o = 0; o < 2; o++)
      for (int64_t j = 0; j < 4; j++)
        for (int64_t i = 0; i < 3; i++)
          ck_assert(!memcmp((float *)y.data + (o * 4 + j) * 3 + i, (float *)d.data + (o * 4 + iv[j]) * 3 + i, 4));
    kr_tensor o[] = {d, ind, y};
    free_all(o, 3);
  }
  /* Axis 0, scalar index: one row. */
  kr_tensor d = pattern("tensor<3x2xi16>", 1, false), s = ti("tensor<i64>", (const int64_t[]){2});
  kr_tensor *ins[] = {&d, &s};
  kr_tensor y = eval(mk2("prim.gather", "tensor<3x2xi16>", "tensor<i64>", "tensor<2xi16>", "{axis = 0 : i64}"), ins);
  ck_assert_int_eq(I(&y, 0), I(&d, 4)); ck_assert_int_eq(I(&y, 1), I(&d, 5));
  kr_tensor_free(&y);
  /* Out of range: an error naming the index, the range and the axis. */
  kr_tensor bad = ti("tensor<2xi64>", (const int64_t[]){1, 3}), neg = ti("tensor<1xi32>", (const int64_t[]){-1});
  kr_tensor *bi[] = {&d, &bad}, *ni[] = {&d, &neg};
  eval_fails(mk2("prim.gather", "tensor<3x2xi16>", "tensor<2xi64>", "tensor<2x2xi16>", "{axis = 0 : i64}"), bi,
             "index 3 is out of range [0, 3) on axis 0");
  eval_fails(mk2("prim.gather", "tensor<3x2xi16>", "tensor<1xi32>", "tensor<3x1xi16>", "{axis = 1 : i64}"), ni,
             "index -1 is out of range [0, 2) on axis 1");
  kr_tensor o[] = {d, s, bad, neg};
  free_all(o, 4);
}
END_TEST

/* =============================================================================================
 * Reductions. */

/* Naive reduction of x over the axes in mask (double for floats, exact int64 wrapping else). */
static void check_reduce(const char *stem, const char *xt, const char *yt, const char *attrs, const bool *mask) {
  char name[64];
  snprintf(name, sizeof name, "prim.reduce_%s", stem);
  kr_tensor x = pattern(xt, 3, false);
  kr_tensor *ins[] = {&x};
  kr_tensor y = eval(mk1(name, xt, yt, attrs), ins);
  unsigned rank = kr_tensor_rank(&x);
  const int64_t *xd = kr_tensor_dims(&x);
  kr_type e = kr_tensor_elem(&x);
  bool fl = is_float_elem(e);
  int kind = !strcmp(stem, "sum") ? 0 : !strcmp(stem, "max") ? 1 : !strcmp(stem, "min") ? 2 : 3;
  double *acc = malloc((size_t)(y.numel ? y.numel : 1) * sizeof *acc);
  int64_t *iacc = malloc((size_t)(y.numel ? y.numel : 1) * sizeof *iacc);
  for (int64_t o = 0; o < y.numel; o++) {
    acc[o] = kind == 0 ? 0 : kind == 1 ? -INFINITY : kind == 2 ? INFINITY : 1;
    iacc[o] = kind == 0 ? 0 : kind == 1 ? INT64_MIN : kind == 2 ? INT64_MAX : 1;
  }
  for (int64_t i = 0; i < x.numel; i++) {
    int64_t r = i, o = 0, mul = 1;
    for (unsigned d = rank; d-- > 0;) {
      int64_t j = r % xd[d];
      r /= xd[d];
      if (!mask[d]) o += j * mul, mul *= xd[d];
    }
    double v = F(&x, i);
    int64_t iv = I(&x, i);
    switch (kind) {
    case 0: acc[o] += v, iacc[o] = (int64_t)((uint64_t)iacc[o] + (uint64_t)iv); break;
    case 1: acc[o] = v > acc[o] ? v : acc[o], iacc[o] = iv > iacc[o] ? iv : iacc[o]; break;
    case 2: acc[o] = v < acc[o] ? v : acc[o], iacc[o] = iv < iacc[o] ? iv : iacc[o]; break;
    default: acc[o] *= v, iacc[o] = (int64_t)((uint64_t)iacc[o] * (uint64_t)iv); break;
    }
  }
  kr_tensor want = tnew(yt);
  for (int64_t o = 0; o < y.numel; o++) {
    if (fl) kr_tensor_set_f64(&want, o, acc[o]);
    else kr_tensor_set_i64(&want, o, iacc[o]);
  }
  char what[128];
  snprintf(what, sizeof what, "%s %s", name, xt);
  same_bytes(&y, &want, what);
  free(acc), free(iacc);
  kr_tensor o[] = {x, y, want};
  free_all(o, 3);
}

START_TEST(reduce_values) {
  static const char *const stems[] = {"sum", "max", "min", "prod"};
  static const char *const elems[] = {"f32", "f64", "f16", "i8", "i32", "i64", "ui16"};
  for (unsigned s = 0; s < 4; s++)
    for (unsigned k = 0; k < sizeof elems / sizeof *elems; k++) {
      char xt[64], yt[64], yt0[64], yt1[64];
      snprintf(xt, sizeof xt, "tensor<3x4x5x%s>", elems[k]);
      snprintf(yt, sizeof yt, "tensor<1x4x1x%s>", elems[k]);
      snprintf(yt0, sizeof yt0, "tensor<3x5x%s>", elems[k]);
      snprintf(yt1, sizeof yt1, "tensor<1x1x1x%s>", elems[k]);
      check_reduce(stems[s], xt, yt, "{axes = array<i64: 0, 2>}", (const bool[]){1, 0, 1});
      check_reduce(stems[s], xt, yt0, "{axes = array<i64: 1>, keepdims = 0 : i64}", (const bool[]){0, 1, 0});
      check_reduce(stems[s], xt, yt1, "{axes = array<i64: 0, 1, 2>}", (const bool[]){1, 1, 1});
    }
  /* Empty reductions give the identity: sum 0, prod 1, max -inf / the type's lowest, min +inf /
   * the type's highest. */
  kr_tensor z = tnew("tensor<2x0xf32>"), zi = tnew("tensor<2x0xi32>");
  kr_tensor *ins[] = {&z}, *iins[] = {&zi};
  const char *ax = "{axes = array<i64: 1>, keepdims = 0 : i64}";
  kr_tensor s = eval(mk1("prim.reduce_sum", "tensor<2x0xf32>", "tensor<2xf32>", ax), ins);
  kr_tensor p = eval(mk1("prim.reduce_prod", "tensor<2x0xf32>", "tensor<2xf32>", ax), ins);
  kr_tensor mx = eval(mk1("prim.reduce_max", "tensor<2x0xf32>", "tensor<2xf32>", ax), ins);
  kr_tensor mn = eval(mk1("prim.reduce_min", "tensor<2x0xf32>", "tensor<2xf32>", ax), ins);
  kr_tensor imx = eval(mk1("prim.reduce_max", "tensor<2x0xi32>", "tensor<2xi32>", ax), iins);
  kr_tensor imn = eval(mk1("prim.reduce_min", "tensor<2x0xi32>", "tensor<2xi32>", ax), iins);
  for (int i = 0; i < 2; i++) {
    ck_assert(F(&s, i) == 0 && F(&p, i) == 1 && F(&mx, i) == -INFINITY && F(&mn, i) == INFINITY);
    ck_assert_int_eq(I(&imx, i), INT32_MIN); ck_assert_int_eq(I(&imn, i), INT32_MAX);
  }
  /* Reducing the non-empty axis of a zero-size tensor: an empty result. */
  kr_tensor e0 = eval(mk1("prim.reduce_sum", "tensor<2x0xf32>", "tensor<1x0xf32>", "{axes = array<i64: 0>}"), ins);
  ck_assert_int_eq(e0.numel, 0);
  /* NaN propagates through max/min; i8 sums wrap: 100 + 100 + 100 = 300 - 256 = 44. */
  kr_tensor n = tf("tensor<4xf32>", (const double[]){1, NAN, 3, -2});
  kr_tensor *ni[] = {&n};
  kr_tensor nm = eval(mk1("prim.reduce_max", "tensor<4xf32>", "tensor<1xf32>", "{axes = array<i64: 0>}"), ni);
  kr_tensor nn = eval(mk1("prim.reduce_min", "tensor<4xf32>", "tensor<1xf32>", "{axes = array<i64: 0>}"), ni);
  ck_assert(isnan(F(&nm, 0)) && isnan(F(&nn, 0)));
  kr_tensor w = ti("tensor<3xi8>", (const int64_t[]){100, 100, 100});
  kr_tensor *wi[] = {&w};
  kr_tensor ws = eval(mk1("prim.reduce_sum", "tensor<3xi8>", "tensor<1xi8>", "{axes = array<i64: 0>}"), wi);
  ck_assert_int_eq(I(&ws, 0), 44);
  kr_tensor o[] = {z, zi, s, p, mx, mn, imx, imn, e0, n, nm, nn, w, ws};
  free_all(o, 14);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(arg_extrema) {
  /* vs op.arg_max/op.arg_min (same attributes) on data with ties and NaN, every numeric type,
   * each axis, both select_last_index values; and a naive check without NaN. */
  for (unsigned k = 0; k < 12; k++)
    for (int axis = 0; axis < 3; axis++)
      for (int last = 0; last < 2; last++)
        for (int mx = 0; mx < 2; mx++) {
          char xt[64], yt[64], attrs[128], pn[32], on[32];
          snprintf(xt, sizeof xt, "tensor<3x4x5x%s>", numeric_elems[k]);
          int64_t yd[3] = {3, 4, 5};
          yd[axis] = 1;
          snprintf(yt, sizeof yt, "tensor<%lldx%lldx%lldxi64>", (long long)yd[0], (long long)yd[1], (long long)yd[2]);
          snprintf(attrs, sizeof attrs, "{axis = %d : i64, select_last_index = %d : i64}", axis, last);
          snprintf(pn, sizeof pn, "prim.arg_%s", mx ? "max" : "min");
          snprintf(on, sizeof on, "op.arg_%s", mx ? "max" : "min");
          kr_tensor x = pattern(xt, k, true);
          kr_tensor *ins[] = {&x};
          kr_tensor a = eval(mk1(pn, xt, yt, attrs), ins), b = eval(mk1(on, xt, yt, attrs), ins);
          same_bytes(&a, &b, pn);
          kr_tensor ts[] = {x, a, b};
          free_all(ts, 3);
        }
  /* [[1, 3, 3, 0], [2, 2, -1, -1]]: argmax first [1, 0], last [2, 1]; argmin first [3, 2],
   * last [3, 3]. */
  kr_tensor x = tf("tensor<2x4xf32>", (const double[]){1, 3, 3, 0, 2, 2, -1, -1});
  kr_tensor *ins[] = {&x};
  static const char *const names[] = {"prim.arg_max", "prim.arg_min"};
  static const int64_t want[2][2][2] = {{{1, 0}, {2, 1}}, {{3, 2}, {3, 3}}};
  for (int m = 0; m < 2; m++)
    for (int l = 0; l < 2; l++) {
      char attrs[96];
      snprintf(attrs, sizeof attrs, "{axis = 1 : i64, keepdims = 0 : i64, select_last_index = %d : i64}", l);
      kr_tensor y = eval(mk1(names[m], "tensor<2x4xf32>", "tensor<2xi64>", attrs), ins);
      ck_assert_int_eq(I(&y, 0), want[m][l][0]); ck_assert_int_eq(I(&y, 1), want[m][l][1]);
      kr_tensor_free(&y);
    }
  kr_tensor_free(&x);
}
END_TEST

START_TEST(cum_sum_modes) {
  static const char *const elems[] = {"f32", "f64", "f16", "i32", "i8", "ui8"};
  for (unsigned k = 0; k < sizeof elems / sizeof *elems; k++)
    for (int axis = 0; axis < 2; axis++)
      for (int ex = 0; ex < 2; ex++)
        for (int rev = 0; rev < 2; rev++) {
          char xt[64], attrs[128];
          snprintf(xt, sizeof xt, "tensor<3x5x%s>", elems[k]);
          snprintf(attrs, sizeof attrs, "{axis = %d : i64, exclusive = %d : i64, reverse = %d : i64}", axis, ex, rev);
          kr_tensor x = pattern(xt, k, false), want = tnew(xt);
          kr_tensor *ins[] = {&x};
          kr_tensor y = eval(mk1("prim.cum_sum", xt, xt, attrs), ins);
          /* Naive: y[i, j] = sum over the positions before (after, reversed) along `axis`,
           * excluding the element itself when exclusive; doubles for floats, wrapping ints. */
          bool fl = is_float_elem(kr_tensor_elem(&x));
          for (int64_t i = 0; i < 3; i++)
            for (int64_t j = 0; j < 5; j++) {
              int64_t pos = axis ? j : i, n = axis ? 5 : 3;
              double s = 0;
              uint64_t is = 0;
              for (int64_t q = 0; q < n; q++) {
                bool take = rev ? (ex ? q > pos : q >= pos) : (ex ? q < pos : q <= pos);
                if (!take) continue;
                int64_t src = axis ? i * 5 + q : q * 5 + j;
                s += F(&x, src), is += (uint64_t)I(&x, src);
              }
              if (fl) kr_tensor_set_f64(&want, i * 5 + j, s);
              else kr_tensor_set_i64(&want, i * 5 + j, (int64_t)is);
            }
          same_bytes(&y, &want, attrs);
          /* And the op-level CumSum with the axis as an operand. */
          kr_tensor at = ti("tensor<i64>", (const int64_t[]){axis});
          kr_tensor *oi[] = {&x, &at};
          char oattrs[96];
          snprintf(oattrs, sizeof oattrs, "{exclusive = %d : i64, reverse = %d : i64}", ex, rev);
          kr_tensor o = eval(mk2("op.cum_sum", xt, "tensor<i64>", xt, oattrs), oi);
          same_bytes(&y, &o, "cum_sum vs op.cum_sum");
          kr_tensor ts[] = {x, want, y, at, o};
          free_all(ts, 5);
        }
}
END_TEST

/* Naive reduce_window over a 4-D x (all four axes have window entries). */
static void check_window(const char *kind, const char *elem, const int64_t *xd, const int64_t *w, const int64_t *s,
                         const int64_t *dl) {
  char xt[96], yt[96], attrs[256];
  int64_t yd[4];
  for (int d = 0; d < 4; d++) yd[d] = (xd[d] - dl[d] * (w[d] - 1) - 1) / s[d] + 1;
  snprintf(xt, sizeof xt, "tensor<%lldx%lldx%lldx%lldx%s>", (long long)xd[0], (long long)xd[1], (long long)xd[2],
           (long long)xd[3], elem);
  snprintf(yt, sizeof yt, "tensor<%lldx%lldx%lldx%lldx%s>", (long long)yd[0], (long long)yd[1], (long long)yd[2],
           (long long)yd[3], elem);
  snprintf(attrs, sizeof attrs,
           "{kind = \"%s\", window = array<i64: %lld, %lld, %lld, %lld>, strides = array<i64: %lld, %lld, %lld, %lld>, "
           "dilations = array<i64: %lld, %lld, %lld, %lld>}",
           kind, (long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3], (long long)s[0], (long long)s[1],
           (long long)s[2], (long long)s[3], (long long)dl[0], (long long)dl[1], (long long)dl[2], (long long)dl[3]);
  kr_tensor x = pattern(xt, 5, false), want = tnew(yt);
  kr_tensor *ins[] = {&x};
  kr_tensor y = eval(mk1("prim.reduce_window", xt, yt, attrs), ins);
  bool fl = is_float_elem(kr_tensor_elem(&x)), uns = kr_type_is_unsigned_int(kr_tensor_elem(&x));
  int k = !strcmp(kind, "sum") ? 0 : !strcmp(kind, "max") ? 1 : 2;
  for (int64_t a = 0; a < yd[0]; a++)
    for (int64_t b = 0; b < yd[1]; b++)
      for (int64_t c = 0; c < yd[2]; c++)
        for (int64_t e = 0; e < yd[3]; e++) {
          double acc = k == 0 ? 0 : k == 1 ? -INFINITY : INFINITY;
          uint64_t iacc = 0;
          bool first = true;
          for (int64_t p = 0; p < w[0]; p++)
            for (int64_t q = 0; q < w[1]; q++)
              for (int64_t r = 0; r < w[2]; r++)
                for (int64_t t = 0; t < w[3]; t++) {
                  int64_t i0 = a * s[0] + p * dl[0], i1 = b * s[1] + q * dl[1], i2 = c * s[2] + r * dl[2],
                          i3 = e * s[3] + t * dl[3];
                  int64_t src = ((i0 * xd[1] + i1) * xd[2] + i2) * xd[3] + i3;
                  double v = F(&x, src);
                  uint64_t u = kr_tensor_get_u64(&x, src);
                  int64_t sv = I(&x, src);
                  if (k == 0) acc += v, iacc += u;
                  else if (k == 1) acc = v > acc ? v : acc, iacc = first || (uns ? u > iacc : sv > (int64_t)iacc) ? u : iacc;
                  else acc = v < acc ? v : acc, iacc = first || (uns ? u < iacc : sv < (int64_t)iacc) ? u : iacc;
                  first = false;
                }
          int64_t o = ((a * yd[1] + b) * yd[2] + c) * yd[3] + e;
          if (fl) kr_tensor_set_f64(&want, o, acc);
          else kr_tensor_set_u64(&want, o, iacc);
        }
  char what[300];
  snprintf(what, sizeof what, "reduce_window %s", attrs);
  same_bytes(&y, &want, what);
  kr_tensor ts[] = {x, want, y};
  free_all(ts, 3);
}

START_TEST(reduce_window_values) {
  static const char *const kinds[] = {"sum", "max", "min"};
  static const char *const elems[] = {"f32", "f64", "f16", "bf16", "i32", "i8", "ui8", "i64"};
  for (unsigned kk = 0; kk < 3; kk++)
    for (unsigned e = 0; e < sizeof elems / sizeof *elems; e++) {
      check_window(kinds[kk], elems[e], (const int64_t[]){2, 3, 7, 8}, (const int64_t[]){1, 1, 3, 2},
                   (const int64_t[]){1, 1, 2, 1}, (const int64_t[]){1, 1, 1, 2});
      /* Windows along the channel axis too, strided over the batch. */
      check_window(kinds[kk], elems[e], (const int64_t[]){3, 4, 5, 2}, (const int64_t[]){2, 2, 2, 1},
                   (const int64_t[]){2, 1, 3, 1}, (const int64_t[]){1, 2, 1, 1});
    }
  /* ui64 above 2^63 orders as unsigned: max(2^64 - 1, 1) = 2^64 - 1, min = 1. */
  kr_tensor u = tnew("tensor<2xui64>");
  kr_tensor_set_u64(&u, 0, UINT64_MAX), kr_tensor_set_u64(&u, 1, 1);
  kr_tensor *ui[] = {&u};
  const char *wa = "{kind = \"%s\", window = array<i64: 2>, strides = array<i64: 1>, dilations = array<i64: 1>}";
  char attrs[160];
  snprintf(attrs, sizeof attrs, wa, "max");
  kr_tensor umx = eval(mk1("prim.reduce_window", "tensor<2xui64>", "tensor<1xui64>", attrs), ui);
  snprintf(attrs, sizeof attrs, wa, "min");
  kr_tensor umn = eval(mk1("prim.reduce_window", "tensor<2xui64>", "tensor<1xui64>", attrs), ui);
  ck_assert(kr_tensor_get_u64(&umx, 0) == UINT64_MAX && kr_tensor_get_u64(&umn, 0) == 1);
  /* NaN propagates through max. */
  kr_tensor n = tf("tensor<3xf32>", (const double[]){1, NAN, 2});
  kr_tensor *ni[] = {&n};
  snprintf(attrs, sizeof attrs, wa, "max");
  kr_tensor nm = eval(mk1("prim.reduce_window", "tensor<3xf32>", "tensor<2xf32>", attrs), ni);
  ck_assert(isnan(F(&nm, 0)) && isnan(F(&nm, 1)));
  kr_tensor o[] = {u, umx, umn, n, nm};
  free_all(o, 5);

  /* max vs op.max_pool (2-D window 3x2, strides 2x1, dilations 1x2, no pads). */
  kr_tensor x = pattern("tensor<2x3x9x8xf32>", 2, false);
  kr_tensor *xi[] = {&x};
  kr_tensor a = eval(mk1("prim.reduce_window", "tensor<2x3x9x8xf32>", "tensor<2x3x4x6xf32>",
                         "{kind = \"max\", window = array<i64: 1, 1, 3, 2>, strides = array<i64: 1, 1, 2, 1>, "
                         "dilations = array<i64: 1, 1, 1, 2>}"),
                     xi);
  kr_tensor b = eval(mk1("op.max_pool", "tensor<2x3x9x8xf32>", "tensor<2x3x4x6xf32>",
                         "{kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>}"),
                     xi);
  same_bytes(&a, &b, "reduce_window(max) vs op.max_pool");
  kr_tensor o2[] = {x, a, b};
  free_all(o2, 3);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* =============================================================================================
 * Linear. */

START_TEST(matmul_values) {
  /* [2, 1, 3, 4] x [3, 4, 5] -> [2, 3, 3, 5] (batch broadcast); f32 vs a double naive product
   * (tolerance: one f32 rounding of sums of 4 products), and vs op.mat_mul bit for bit. */
  static const char *const elems[] = {"f32", "f64", "f16", "bf16", "i32", "i8", "ui16", "i64"};
  for (unsigned k = 0; k < sizeof elems / sizeof *elems; k++) {
    char at[64], bt[64], yt[64];
    snprintf(at, sizeof at, "tensor<2x1x3x4x%s>", elems[k]);
    snprintf(bt, sizeof bt, "tensor<3x4x5x%s>", elems[k]);
    snprintf(yt, sizeof yt, "tensor<2x3x3x5x%s>", elems[k]);
    kr_tensor a = pattern(at, k, false), b = pattern(bt, k + 1, false), want = tnew(yt);
    kr_tensor *ins[] = {&a, &b};
    kr_tensor y = eval(mk2("prim.matmul", at, bt, yt, NULL), ins);
    kr_tensor o = eval(mk2("op.mat_mul", at, bt, yt, NULL), ins);
    same_bytes(&y, &o, elems[k]);
    bool fl = is_float_elem(kr_tensor_elem(&a));
    for (int64_t p = 0; p < 2; p++)
      for (int64_t q = 0; q < 3; q++)
        for (int64_t i = 0; i < 3; i++)
          for (int64_t j = 0; j < 5; j++) {
            double s = 0;
            uint64_t is = 0;
            for (int64_t r = 0; r < 4; r++) {
              int64_t ai = (p * 3 + i) * 4 + r, bi = (q * 4 + r) * 5 + j;
              s += F(&a, ai) * F(&b, bi);
              is += (uint64_t)I(&a, ai) * (uint64_t)I(&b, bi);
            }
            int64_t yi = ((p * 3 + q) * 3 + i) * 5 + j;
            if (fl) ck_assert_msg(fabs(F(&y, yi) - s) <= 1e-2 * (1 + fabs(s)), "%s", elems[k]);
            else kr_tensor_set_i64(&want, yi, (int64_t)is);
          }
    if (!fl) same_bytes(&y, &want, "integer matmul wraps");
    kr_tensor ts[] = {a, b, want, y, o};
    free_all(ts, 5);
  }
  /* K = 0: zeros. */
  kr_tensor a = tnew("tensor<2x0xf32>"), b = tnew("tensor<0x3xf32>");
  kr_tensor *ins[] = {&a, &b};
  kr_tensor y = eval(mk2("prim.matmul", "tensor<2x0xf32>", "tensor<0x3xf32>", "tensor<2x3xf32>", NULL), ins);
  for (int i = 0; i < 6; i++) ck_assert(F(&y, i) == 0);
  kr_tensor ts[] = {a, b, y};
  free_all(ts, 3);
}
END_TEST

/* Naive N-d grouped convolution in double (no bias): x [N, C, D...], w [M, C/g, K...]. */
static void naive_conv(const kr_tensor *x, const kr_tensor *w, unsigned nsp, const int64_t *st, const int64_t *dl,
                       const int64_t *pads, int64_t g, const int64_t *yd, double *out) {
  const int64_t *xd = kr_tensor_dims(x), *wd = kr_tensor_dims(w);
  int64_t ny = 1, osp = 1, ksp = 1, isp = 1;
  for (unsigned d = 0; d < nsp + 2; d++) ny *= yd[d];
  for (unsigned d = 0; d < nsp; d++) osp *= yd[2 + d], ksp *= wd[2 + d], isp *= xd[2 + d];
  int64_t cg = xd[1] / g, mg = wd[0] / g;
  for (int64_t yi = 0; yi < ny; yi++) {
    int64_t n = yi / (yd[1] * osp), m = (yi / osp) % yd[1], o = yi % osp, gi = m / mg;
    int64_t od[8];
    for (unsigned d = nsp, r = 0; d-- > 0;) {
      (void)r;
      od[d] = o % yd[2 + d];
      o /= yd[2 + d];
    }
    double s = 0;
    for (int64_t c = 0; c < cg; c++)
      for (int64_t k = 0; k < ksp; k++) {
        int64_t kr = k, xoff = 0, mul = 1;
        bool inside = true;
        int64_t kd[8];
        for (unsigned d = nsp; d-- > 0;) kd[d] = kr % wd[2 + d], kr /= wd[2 + d];
        for (unsigned d = nsp; d-- > 0;) {
          int64_t pos = od[d] * st[d] - pads[d] + kd[d] * dl[d];
          if (pos < 0 || pos >= xd[2 + d]) inside = false;
          xoff += pos * mul;
          mul *= xd[2 + d];
        }
        if (!inside) continue;
        s += F(x, (n * xd[1] + gi * cg + c) * isp + xoff) * F(w, (m * cg + c) * ksp + k);
      }
    out[yi] = s;
  }
}

static void check_conv(const char *elem, const int64_t *xd, const int64_t *wd, unsigned nsp, const int64_t *st,
                       const int64_t *dl, const int64_t *pads, int64_t g, double tol) {
  int64_t yd[8] = {xd[0], wd[0]};
  for (unsigned d = 0; d < nsp; d++)
    yd[2 + d] = (xd[2 + d] + pads[d] + pads[nsp + d] - dl[d] * (wd[2 + d] - 1) - 1) / st[d] + 1;
  char xt[128], wt[128], yt[128], attrs[512], oattrs[512], ks[64];
  int nx = snprintf(xt, sizeof xt, "tensor<"), nw = snprintf(wt, sizeof wt, "tensor<"), ny = snprintf(yt, sizeof yt, "tensor<");
  for (unsigned d = 0; d < nsp + 2; d++) {
    nx += snprintf(xt + nx, sizeof xt - nx, "%lldx", (long long)xd[d]);
    nw += snprintf(wt + nw, sizeof wt - nw, "%lldx", (long long)wd[d]);
    ny += snprintf(yt + ny, sizeof yt - ny, "%lldx", (long long)yd[d]);
  }
  snprintf(xt + nx, sizeof xt - nx, "%s>", elem);
  snprintf(wt + nw, sizeof wt - nw, "%s>", elem);
  snprintf(yt + ny, sizeof yt - ny, "%s>", elem);
  char sl[64] = "", dls[64] = "", pl[64] = "";
  int a = 0, b = 0, c = 0, e = 0;
  for (unsigned d = 0; d < nsp; d++) {
    a += snprintf(sl + a, sizeof sl - a, "%s %lld", d ? "," : "", (long long)st[d]);
    b += snprintf(dls + b, sizeof dls - b, "%s %lld", d ? "," : "", (long long)dl[d]);
    e += snprintf(ks + e, sizeof ks - e, "%s %lld", d ? "," : "", (long long)wd[2 + d]);
  }
  for (unsigned d = 0; d < 2 * nsp; d++) c += snprintf(pl + c, sizeof pl - c, "%s %lld", d ? "," : "", (long long)pads[d]);
  snprintf(attrs, sizeof attrs,
           "{strides = array<i64:%s>, dilations = array<i64:%s>, pads = array<i64:%s>, group = %lld : i64}", sl, dls, pl,
           (long long)g);
  snprintf(oattrs, sizeof oattrs,
           "{strides = array<i64:%s>, dilations = array<i64:%s>, pads = array<i64:%s>, group = %lld : i64, "
           "kernel_shape = array<i64:%s>}",
           sl, dls, pl, (long long)g, ks);
  kr_tensor x = pattern(xt, 1, false), w = pattern(wt, 2, false);
  kr_tensor *ins[] = {&x, &w};
  kr_tensor y = eval(mk2("prim.conv", xt, wt, yt, attrs), ins);
  kr_tensor o = eval(mk2("op.conv", xt, wt, yt, oattrs), ins);
  same_bytes(&y, &o, "prim.conv vs op.conv");
  double *want = malloc((size_t)y.numel * sizeof *want);
  naive_conv(&x, &w, nsp, st, dl, pads, g, yd, want);
  for (int64_t i = 0; i < y.numel; i++)
    ck_assert_msg(fabs(F(&y, i) - want[i]) <= tol * (1 + fabs(want[i])), "conv %s element %lld: %g vs %g", xt,
                  (long long)i, F(&y, i), want[i]);
  free(want);
  kr_tensor ts[] = {x, w, y, o};
  free_all(ts, 4);
}

START_TEST(conv_values) {
  /* 2-D, group 2, strides 2x1, dilations 1x2, asymmetric pads. */
  check_conv("f32", (const int64_t[]){2, 4, 7, 8}, (const int64_t[]){6, 2, 3, 2}, 2, (const int64_t[]){2, 1},
             (const int64_t[]){1, 2}, (const int64_t[]){1, 0, 2, 1}, 2, 1e-5);
  check_conv("f64", (const int64_t[]){2, 4, 7, 8}, (const int64_t[]){6, 2, 3, 2}, 2, (const int64_t[]){2, 1},
             (const int64_t[]){1, 2}, (const int64_t[]){1, 0, 2, 1}, 2, 1e-12);
  /* Depthwise 2-D (the direct f32 path). */
  check_conv("f32", (const int64_t[]){1, 3, 6, 5}, (const int64_t[]){3, 1, 3, 3}, 2, (const int64_t[]){1, 2},
             (const int64_t[]){2, 1}, (const int64_t[]){2, 1, 1, 1}, 3, 1e-5);
  /* Pointwise (X read directly as the column matrix). */
  check_conv("f32", (const int64_t[]){2, 5, 3, 4}, (const int64_t[]){4, 5, 1, 1}, 2, (const int64_t[]){1, 1},
             (const int64_t[]){1, 1}, (const int64_t[]){0, 0, 0, 0}, 1, 1e-5);
  /* 3-D, dilated, strided, padded. */
  check_conv("f32", (const int64_t[]){1, 2, 5, 6, 4}, (const int64_t[]){3, 2, 2, 3, 2}, 3, (const int64_t[]){2, 1, 1},
             (const int64_t[]){2, 1, 2}, (const int64_t[]){1, 0, 1, 0, 2, 1}, 1, 1e-5);
  /* 1-D f16 with groups (double accumulation, one rounding to f16). */
  check_conv("f16", (const int64_t[]){2, 6, 9}, (const int64_t[]){3, 2, 4}, 1, (const int64_t[]){2},
             (const int64_t[]){1}, (const int64_t[]){1, 2}, 3, 1e-3);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

/* =============================================================================================
 * Through kr_prim_build and the parser (the shape inference hooks and the verifier agree with
 * the kernels' result types). */

START_TEST(build_and_run) {
  static const char program[] =
      "func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>) {\n"
      "  %0 = \"prim.matmul\"(%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>\n"
      "  %1 = \"prim.neg\"(%0) : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  %2 = \"prim.max\"(%0, %1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  %3 = \"prim.reduce_sum\"(%2) {axes = array<i64: 0>} : (tensor<2x2xf32>) -> tensor<1x2xf32>\n"
      "  %4 = \"prim.transpose\"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  return %2, %3, %4 : tensor<2x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>\n"
      "}\n";
  kr_op *m = kr_parse_source(ctx, "prim.kir", program, sizeof program - 1, true);
  ck_assert_msg(m != NULL, "parse/verify failed: %s", last_error);
  kr_op *f = kr_symbol_lookup_in(m, kr_ident_cstr(ctx, "f"));
  ck_assert_ptr_nonnull(f);
  /* x = [[1, -2, 3], [0, 1, -1]], w = [[1, 0], [0, 1], [1, 1]]: x w = [[4, 1], [-1, 0]];
   * |.| = [[4, 1], [1, 0]]; column sums [5, 1]. */
  kr_tensor in[2], out[3];
  in[0] = tf("tensor<2x3xf32>", (const double[]){1, -2, 3, 0, 1, -1});
  in[1] = tf("tensor<3x2xf32>", (const double[]){1, 0, 0, 1, 1, 1});
  ck_assert_msg(kr_interp_run(f, in, 2, out, 3) == KR_SUCCESS, "%s", last_error);
  static const double w2[] = {4, 1, 1, 0}, w3[] = {5, 1}, w4[] = {1, 0, -2, 1, 3, -1};
  for (int i = 0; i < 4; i++) ck_assert(F(&out[0], i) == w2[i]);
  for (int i = 0; i < 2; i++) ck_assert(F(&out[1], i) == w3[i]);
  for (int i = 0; i < 6; i++) ck_assert(F(&out[2], i) == w4[i]);
  free_all(in, 2);
  free_all(out, 3);
  kr_op_erase(m);
  kr_context_remove_source(ctx, "prim.kir");

  /* kr_prim_build infers the result type; the kernel runs on it. */
  kr_block *b = kr_block_create(ctx);
  kr_value args[2] = {kr_block_add_arg(b, unit_type("tensor<4x1xi32>"), NULL),
                      kr_block_add_arg(b, unit_type("tensor<4x3xi32>"), NULL)};
  kr_builder bld;
  kr_builder_init(&bld, ctx);
  kr_builder_set_insertion_point_to_end(&bld, b);
  kr_op *bc = kr_prim_build(&bld, "prim.broadcast", args, 1, kr_parse_attr_str(ctx, "{shape = array<i64: 4, 3>}"), NULL);
  ck_assert_msg(bc != NULL, "%s", last_error);
  ck_assert_ptr_eq(kr_value_type(kr_op_result(bc, 0)), unit_type("tensor<4x3xi32>"));
  kr_value ab[2] = {kr_op_result(bc, 0), args[1]};
  kr_op *cmp = kr_prim_build(&bld, "prim.cmp", ab, 2, kr_parse_attr_str(ctx, "{predicate = \"lt\"}"), NULL);
  ck_assert_msg(cmp != NULL, "%s", last_error);
  ck_assert_ptr_eq(kr_value_type(kr_op_result(cmp, 0)), unit_type("tensor<4x3xi1>"));
  kr_tensor xa = ti("tensor<4x1xi32>", (const int64_t[]){0, 1, 2, 3});
  kr_tensor *bi[] = {&xa};
  kr_tensor y = eval(bc, bi);
  kr_tensor ya = ti("tensor<4x3xi32>", (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  kr_tensor *ci[] = {&y, &ya};
  kr_tensor c = eval(cmp, ci);
  static const uint8_t wc[] = {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  ck_assert(!memcmp(c.data, wc, 12));
  kr_tensor ts[] = {xa, y, ya, c};
  free_all(ts, 4);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("prim_kernels");
  TCase *tc = tcase_create("kernels");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, unary_mirror_op_level);
  tcase_add_test(tc, unary_values);
  tcase_add_test(tc, binary_mirror_op_level);
  tcase_add_test(tc, binary_values);
  tcase_add_test(tc, cmp_all_predicates);
  tcase_add_test(tc, select_bytes);
  tcase_add_test(tc, cast_all_pairs);
  tcase_add_test(tc, iota_values);
  tcase_add_test(tc, broadcast_transpose_reshape_concat);
  tcase_add_test(tc, slice_steps);
  tcase_add_test(tc, pad_modes);
  tcase_add_test(tc, gather_values);
  tcase_add_test(tc, reduce_values);
  tcase_add_test(tc, arg_extrema);
  tcase_add_test(tc, cum_sum_modes);
  tcase_add_test(tc, reduce_window_values);
  tcase_add_test(tc, matmul_values);
  tcase_add_test(tc, conv_values);
  tcase_add_test(tc, build_and_run);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return unit_run_suite(suite());
}
