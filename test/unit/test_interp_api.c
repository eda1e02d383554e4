/* Unit tests: the C API of the CPU reference interpreter (korch/interp.h): tensor storage,
 * element conversions for every element type (the rules documented in interp.h: float stores
 * round to nearest even, float -> integer stores truncate toward zero and saturate, integer
 * stores wrap modulo 2^width, i1 stores x != 0), views of dense / splat / dense_resource
 * attributes, kr_interp_run on parsed .kir functions and kr_interp_eval_op on single ops.
 * Expected numbers are IEEE 754 / two's-complement facts or hand computations (comments). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/interp.h"
#include "korch/korch.h"
#include "korch/op.h"
#include "test/unit/unit_fixture.h"

static void setup(void) { unit_context_setup(true); }
static void teardown(void) { unit_context_teardown(); }

static uint16_t bits16(const kr_tensor *t, int64_t i) { return ((const uint16_t *)t->data)[i]; }
static uint8_t byte_at(const kr_tensor *t, int64_t i) { return ((const uint8_t *)t->data)[i]; }

/* ------------------------------------------------------------------------------------------- */

START_TEST(alloc_and_free) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<2x3x4xf32>")), KR_SUCCESS);
  ck_assert(t.owned);
  ck_assert_int_eq(t.numel, 24);
  ck_assert_uint_eq(t.nbytes, 96);
  ck_assert_uint_eq(kr_tensor_rank(&t), 3);
  ck_assert_int_eq(kr_tensor_dims(&t)[2], 4);
  ck_assert_ptr_eq(kr_tensor_elem(&t), kr_type_float(ctx, KR_F32));
  for (int64_t i = 0; i < 24; i++) ck_assert(kr_tensor_get_f64(&t, i) == 0.0);   /* zeroed */
  kr_tensor_free(&t);
  ck_assert_ptr_null(t.data);
  ck_assert_ptr_null(t.type);
  ck_assert(!t.owned);
  kr_tensor_free(&t);   /* freeing a cleared tensor is harmless */

  /* Rank 0: one element; a 0-sized dim: no elements. */
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<i64>")), KR_SUCCESS);
  ck_assert_int_eq(t.numel, 1);
  ck_assert_uint_eq(t.nbytes, 8);
  kr_tensor_free(&t);
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<0x3xf16>")), KR_SUCCESS);
  ck_assert_int_eq(t.numel, 0);
  ck_assert_uint_eq(t.nbytes, 0);
  kr_tensor_free(&t);
  /* i1 takes a byte, f16/bf16 two. */
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<5xi1>")), KR_SUCCESS);
  ck_assert_uint_eq(t.nbytes, 5);
  kr_tensor_free(&t);
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<3xbf16>")), KR_SUCCESS);
  ck_assert_uint_eq(t.nbytes, 6);
  kr_tensor_free(&t);

  /* Dynamic, unranked and non-tensor types fail without a diagnostic. */
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<?x3xf32>")), KR_FAILURE);
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<*xf32>")), KR_FAILURE);
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("f32")), KR_FAILURE);
  ck_assert_int_eq(kr_tensor_alloc(&t, NULL), KR_FAILURE);
  ck_assert_ptr_null(t.data);
  ck_assert_uint_eq(num_errors, 0);

  int64_t strides[3];
  kr_dims_strides((const int64_t[]){2, 3, 4}, 3, strides);
  ck_assert_int_eq(strides[0], 12);
  ck_assert_int_eq(strides[1], 4);
  ck_assert_int_eq(strides[2], 1);
  ck_assert(kr_type_is_unsigned_int(kr_type_integer(ctx, 8, KR_UNSIGNED)));
  ck_assert(!kr_type_is_unsigned_int(kr_type_integer(ctx, 8, KR_SIGNLESS)));
  ck_assert(!kr_type_is_unsigned_int(kr_type_float(ctx, KR_F32)));
}
END_TEST

START_TEST(f16_bf16_rounding) {
  kr_tensor h, b;
  ck_assert_int_eq(kr_tensor_alloc(&h, unit_type("tensor<8xf16>")), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_alloc(&b, unit_type("tensor<6xbf16>")), KR_SUCCESS);
  /* f16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
  kr_tensor_set_f64(&h, 0, 1.0);          /* 0x3C00 */
  kr_tensor_set_f64(&h, 1, -2.0);         /* 0xC000 */
  kr_tensor_set_f64(&h, 2, 1.0 / 3.0);    /* 1.0101010101|0101..b * 2^-2: rounds down -> 0x3555 */
  kr_tensor_set_f64(&h, 3, 2049.0);       /* halfway 2048 / 2050: ties to even -> 2048 = 0x6800 */
  kr_tensor_set_f64(&h, 4, 2051.0);       /* halfway 2050 / 2052: ties to even -> 2052 = 0x6802 */
  kr_tensor_set_f64(&h, 5, 65519.0);      /* below the halfway point to 65536 -> max 65504 = 0x7BFF */
  kr_tensor_set_f64(&h, 6, 65520.0);      /* halfway, ties to even (65536): overflow -> +inf = 0x7C00 */
  kr_tensor_set_f64(&h, 7, 0x1p-24);      /* smallest subnormal = 0x0001 */
  ck_assert_uint_eq(bits16(&h, 0), 0x3C00);
  ck_assert_uint_eq(bits16(&h, 1), 0xC000);
  ck_assert_uint_eq(bits16(&h, 2), 0x3555);
  ck_assert_uint_eq(bits16(&h, 3), 0x6800);
  ck_assert_uint_eq(bits16(&h, 4), 0x6802);
  ck_assert_uint_eq(bits16(&h, 5), 0x7BFF);
  ck_assert_uint_eq(bits16(&h, 6), 0x7C00);
  ck_assert_uint_eq(bits16(&h, 7), 0x0001);
  /* Reads: 0x3555 = (1 + 0x155/1024) / 4 = 0.333251953125 exactly. */
  ck_assert(kr_tensor_get_f64(&h, 2) == 0.333251953125);
  ck_assert(kr_tensor_get_f64(&h, 4) == 2052.0);
  ck_assert(isinf(kr_tensor_get_f64(&h, 6)) && kr_tensor_get_f64(&h, 6) > 0);
  ck_assert(kr_tensor_get_f64(&h, 7) == 0x1p-24);
  ck_assert_int_eq(kr_tensor_get_i64(&h, 1), -2);
  /* Integer stores into a float tensor go through the float rounding. */
  kr_tensor_set_i64(&h, 0, 2049);
  ck_assert_uint_eq(bits16(&h, 0), 0x6800);
  kr_tensor_set_u64(&h, 0, 3);
  ck_assert_uint_eq(bits16(&h, 0), 0x4200);

  /* bf16: the top half of an f32 (8 exponent, 7 mantissa bits). */
  kr_tensor_set_f64(&b, 0, 1.0);                /* 0x3F80 */
  kr_tensor_set_f64(&b, 1, 1.0 / 3.0);          /* f32 0x3EAAAAAB: low half 0xAAAB > 0x8000, up -> 0x3EAB */
  kr_tensor_set_f64(&b, 2, 1.0 + 0x1p-8);       /* halfway 1 / 1+2^-7: ties to even -> 1.0 = 0x3F80 */
  kr_tensor_set_f64(&b, 3, 1.0 + 3 * 0x1p-8);   /* halfway 1+2^-7 / 1+2^-6: even -> 1+2^-6 = 0x3F82 */
  kr_tensor_set_f64(&b, 4, -1e39);              /* beyond bf16's max (~3.39e38): -inf = 0xFF80 */
  kr_tensor_set_f64(&b, 5, 1.0 + 0x1p-8 + 0x1p-30);   /* just above halfway: up -> 0x3F81 (one rounding) */
  ck_assert_uint_eq(bits16(&b, 0), 0x3F80);
  ck_assert_uint_eq(bits16(&b, 1), 0x3EAB);
  ck_assert_uint_eq(bits16(&b, 2), 0x3F80);
  ck_assert_uint_eq(bits16(&b, 3), 0x3F82);
  ck_assert_uint_eq(bits16(&b, 4), 0xFF80);
  ck_assert_uint_eq(bits16(&b, 5), 0x3F81);
  /* 0x3EAB = (1 + 43/128) / 4 = 0.333984375. */
  ck_assert(kr_tensor_get_f64(&b, 1) == 0.333984375);
  ck_assert(kr_tensor_get_f64(&b, 3) == 1.015625);
  kr_tensor_free(&h);
  kr_tensor_free(&b);
}
END_TEST

START_TEST(f32_f64) {
  kr_tensor f, d;
  ck_assert_int_eq(kr_tensor_alloc(&f, unit_type("tensor<4xf32>")), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_alloc(&d, unit_type("tensor<2xf64>")), KR_SUCCESS);
  kr_tensor_set_f64(&f, 0, 0.1);
  ck_assert(((const float *)f.data)[0] == 0.1f);
  ck_assert(kr_tensor_get_f64(&f, 0) == (double)0.1f);
  kr_tensor_set_f64(&f, 1, -2.7);
  ck_assert_int_eq(kr_tensor_get_i64(&f, 1), -2);   /* truncation toward zero */
  kr_tensor_set_f64(&f, 2, 2.7);
  ck_assert_int_eq(kr_tensor_get_i64(&f, 2), 2);
  kr_tensor_set_i64(&f, 3, 16777217);              /* 2^24 + 1: ties to even -> 2^24 */
  ck_assert(((const float *)f.data)[3] == 16777216.0f);
  kr_tensor_set_f64(&d, 0, 0.1);
  ck_assert(((const double *)d.data)[0] == 0.1);
  kr_tensor_set_i64(&d, 1, INT64_C(-9007199254740993));   /* -(2^53 + 1): nearest even -(2^53) */
  ck_assert(kr_tensor_get_f64(&d, 1) == -9007199254740992.0);
  kr_tensor_free(&f);
  kr_tensor_free(&d);
}
END_TEST

START_TEST(signed_integers) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<8xi8>")), KR_SUCCESS);
  /* Integer stores wrap modulo 2^8. */
  kr_tensor_set_i64(&t, 0, 300);    /* 300 - 256 = 44 */
  kr_tensor_set_i64(&t, 1, -129);   /* -129 + 256 = 127 */
  kr_tensor_set_i64(&t, 2, 128);    /* 128 - 256 = -128 */
  kr_tensor_set_u64(&t, 3, 0x1FF);  /* low byte 0xFF = -1 */
  /* Float stores truncate toward zero and saturate. */
  kr_tensor_set_f64(&t, 4, -2.9);     /* -2 */
  kr_tensor_set_f64(&t, 5, 300.0);    /* 127 */
  kr_tensor_set_f64(&t, 6, -300.7);   /* -128 */
  kr_tensor_set_f64(&t, 7, 127.9);    /* 127 */
  static const int64_t want[] = {44, 127, -128, -1, -2, 127, -128, 127};
  for (int i = 0; i < 8; i++) {
    ck_assert_int_eq(kr_tensor_get_i64(&t, i), want[i]);
    ck_assert(kr_tensor_get_f64(&t, i) == (double)want[i]);
    ck_assert_int_eq((int8_t)byte_at(&t, i), want[i]);
  }
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<3xi16>")), KR_SUCCESS);
  kr_tensor_set_i64(&t, 0, 40000);      /* 40000 - 65536 = -25536 */
  kr_tensor_set_f64(&t, 1, 40000.0);    /* saturates to 32767 */
  kr_tensor_set_f64(&t, 2, -40000.0);   /* -32768 */
  ck_assert_int_eq(kr_tensor_get_i64(&t, 0), -25536);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), 32767);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 2), -32768);
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<3xi32>")), KR_SUCCESS);
  kr_tensor_set_i64(&t, 0, INT64_C(0x100000005));   /* low 32 bits: 5 */
  kr_tensor_set_i64(&t, 1, INT64_C(0x80000000));    /* 2^31 wraps to -2^31 */
  kr_tensor_set_f64(&t, 2, 5e9);                   /* saturates to 2^31 - 1 */
  ck_assert_int_eq(kr_tensor_get_i64(&t, 0), 5);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), INT32_MIN);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 2), INT32_MAX);
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<4xi64>")), KR_SUCCESS);
  kr_tensor_set_i64(&t, 0, INT64_MIN);
  kr_tensor_set_f64(&t, 1, 1e300);     /* saturates */
  kr_tensor_set_f64(&t, 2, -1e300);
  kr_tensor_set_f64(&t, 3, -123.99);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 0), INT64_MIN);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), INT64_MAX);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 2), INT64_MIN);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 3), -123);
  kr_tensor_free(&t);
}
END_TEST

START_TEST(unsigned_integers) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<8xui8>")), KR_SUCCESS);
  /* Integer stores wrap. */
  kr_tensor_set_i64(&t, 0, -1);     /* 255 */
  kr_tensor_set_i64(&t, 1, 256);    /* 0 */
  kr_tensor_set_u64(&t, 2, 513);    /* 513 - 512 = 1 */
  /* Float stores truncate and saturate to [0, 255]. */
  kr_tensor_set_f64(&t, 3, 300.0);  /* 255 */
  kr_tensor_set_f64(&t, 4, -5.0);   /* 0 */
  kr_tensor_set_f64(&t, 5, 3.99);   /* 3 */
  kr_tensor_set_f64(&t, 6, 255.5);  /* 255 */
  kr_tensor_set_f64(&t, 7, 128.0);  /* 128: above i8's range, zero-extended on reads */
  static const uint64_t want[] = {255, 0, 1, 255, 0, 3, 255, 128};
  for (int i = 0; i < 8; i++) {
    ck_assert_uint_eq(byte_at(&t, i), want[i]);
    ck_assert_uint_eq(kr_tensor_get_u64(&t, i), want[i]);
    ck_assert_int_eq(kr_tensor_get_i64(&t, i), (int64_t)want[i]);
    ck_assert(kr_tensor_get_f64(&t, i) == (double)want[i]);
  }
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<2xui16>")), KR_SUCCESS);
  kr_tensor_set_i64(&t, 0, -2);        /* 65534 */
  kr_tensor_set_f64(&t, 1, 70000.0);   /* 65535 */
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 0), 65534);
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 1), 65535);
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<2xui32>")), KR_SUCCESS);
  kr_tensor_set_f64(&t, 0, 5e9);   /* 4294967295 */
  kr_tensor_set_i64(&t, 1, -1);    /* 4294967295 */
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 0), UINT32_MAX);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), (int64_t)UINT32_MAX);
  kr_tensor_free(&t);

  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<3xui64>")), KR_SUCCESS);
  kr_tensor_set_u64(&t, 0, UINT64_MAX);
  kr_tensor_set_f64(&t, 1, 1e30);   /* saturates */
  kr_tensor_set_f64(&t, 2, -1.0);   /* 0 */
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 0), UINT64_MAX);
  ck_assert(kr_tensor_get_f64(&t, 0) == 18446744073709551615.0);   /* 2^64 after rounding to double */
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 1), UINT64_MAX);
  ck_assert_uint_eq(kr_tensor_get_u64(&t, 2), 0);
  kr_tensor_free(&t);
}
END_TEST

START_TEST(booleans) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<7xi1>")), KR_SUCCESS);
  kr_tensor_set_i64(&t, 0, 2);       /* x != 0 -> 1 (not 2 & 1 = 0) */
  kr_tensor_set_i64(&t, 1, 0);
  kr_tensor_set_f64(&t, 2, 0.5);     /* x != 0 -> 1 (not truncated to 0) */
  kr_tensor_set_f64(&t, 3, -0.0);    /* 0 */
  kr_tensor_set_u64(&t, 4, 256);     /* 1 (not the low byte 0) */
  kr_tensor_set_i64(&t, 5, -1);      /* 1 */
  kr_tensor_set_f64(&t, 6, NAN);     /* NaN != 0 -> 1 */
  static const int want[] = {1, 0, 1, 0, 1, 1, 1};
  for (int i = 0; i < 7; i++) {
    ck_assert_uint_eq(byte_at(&t, i), want[i]);
    ck_assert_int_eq(kr_tensor_get_i64(&t, i), want[i]);
    ck_assert_uint_eq(kr_tensor_get_u64(&t, i), (uint64_t)want[i]);
    ck_assert(kr_tensor_get_f64(&t, i) == want[i]);
  }
  kr_tensor_free(&t);
}
END_TEST

START_TEST(from_attr_dense_splat_resource) {
  /* Non-splat dense: a borrowed view of the attribute's bytes. */
  static const float v[] = {1, 2, 3, 4, 5, 6};
  kr_attr a = kr_attr_dense(ctx, unit_type("tensor<2x3xf32>"), v, sizeof v);
  ck_assert_ptr_nonnull(a);
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_from_attr(&t, a), KR_SUCCESS);
  ck_assert(!t.owned);
  ck_assert_ptr_eq(t.data, a->u.dense.data);
  ck_assert_ptr_eq(t.type, a->type);
  ck_assert_int_eq(t.numel, 6);
  ck_assert_uint_eq(t.nbytes, 24);
  for (int i = 0; i < 6; i++) ck_assert(kr_tensor_get_f64(&t, i) == v[i]);
  kr_tensor_free(&t);   /* borrowed: nothing freed, the attribute stays valid */
  ck_assert(((const float *)a->u.dense.data)[5] == 6.0f);

  /* Splat: expanded into fresh owned storage. */
  kr_attr s = kr_attr_dense(ctx, unit_type("tensor<2x2xi16>"), (const int16_t[]){-7}, 2);
  ck_assert(s->u.dense.splat);
  ck_assert_int_eq(kr_tensor_from_attr(&t, s), KR_SUCCESS);
  ck_assert(t.owned);
  ck_assert_int_eq(t.numel, 4);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(kr_tensor_get_i64(&t, i), -7);
  kr_tensor_free(&t);
  /* A full buffer of equal elements is stored as a splat too. */
  kr_attr s2 = kr_attr_dense(ctx, unit_type("tensor<3xi1>"), (const uint8_t[]){1, 1, 1}, 3);
  ck_assert_int_eq(kr_tensor_from_attr(&t, s2), KR_SUCCESS);
  ck_assert_int_eq(t.numel, 3);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 2), 1);
  kr_tensor_free(&t);

  /* dense_resource: a borrowed view of the blob. */
  static const int32_t blob[] = {10, -20, 30};
  const kr_resource *r = kr_resource_create(ctx, "w", blob, sizeof blob, 4);
  ck_assert_ptr_nonnull(r);
  kr_attr ra = kr_attr_resource(ctx, unit_type("tensor<3xi32>"), r);
  ck_assert_int_eq(kr_tensor_from_attr(&t, ra), KR_SUCCESS);
  ck_assert(!t.owned);
  ck_assert_ptr_eq(t.data, r->data);
  ck_assert_int_eq(kr_tensor_get_i64(&t, 1), -20);
  kr_tensor_free(&t);
  /* A resource whose size does not match the type fails. */
  kr_attr bad = kr_attr_resource(ctx, unit_type("tensor<4xi32>"), r);
  ck_assert_int_eq(kr_tensor_from_attr(&t, bad), KR_FAILURE);
  ck_assert_ptr_null(t.data);
  /* Other attributes fail without a diagnostic. */
  ck_assert_int_eq(kr_tensor_from_attr(&t, kr_attr_integer(ctx, kr_type_integer(ctx, 32, KR_SIGNLESS), 3)),
                   KR_FAILURE);
  ck_assert_int_eq(kr_tensor_from_attr(&t, NULL), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 0);
}
END_TEST

START_TEST(to_attr_round_trip) {
  kr_tensor t;
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<2x2xi32>")), KR_SUCCESS);
  for (int i = 0; i < 4; i++) kr_tensor_set_i64(&t, i, (i + 1) * -3);   /* -3 -6 -9 -12 */
  kr_attr a = kr_tensor_to_attr(ctx, &t);
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->kind, KR_ATTR_DENSE);
  ck_assert_ptr_eq(a->type, t.type);
  ck_assert(!a->u.dense.splat);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(kr_dense_get_i64(a, (size_t)i), (i + 1) * -3);
  /* A copy: changing the tensor leaves the attribute alone; equal contents unique. */
  ck_assert_ptr_ne(a->u.dense.data, t.data);
  ck_assert_ptr_eq(kr_tensor_to_attr(ctx, &t), a);
  kr_tensor back;
  ck_assert_int_eq(kr_tensor_from_attr(&back, a), KR_SUCCESS);
  ck_assert_int_eq(memcmp(back.data, t.data, t.nbytes), 0);
  kr_tensor_free(&back);
  kr_tensor_set_i64(&t, 0, 100);
  ck_assert_int_eq(kr_dense_get_i64(a, 0), -3);
  kr_tensor_free(&t);

  /* f16 bits survive; all-equal contents come back as a splat that expands again. */
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<3xf16>")), KR_SUCCESS);
  for (int i = 0; i < 3; i++) kr_tensor_set_f64(&t, i, 1.0 / 3.0);
  kr_attr h = kr_tensor_to_attr(ctx, &t);
  ck_assert(h->u.dense.splat);
  ck_assert_int_eq(kr_tensor_from_attr(&back, h), KR_SUCCESS);
  for (int i = 0; i < 3; i++) ck_assert_uint_eq(bits16(&back, i), 0x3555);
  kr_tensor_free(&back);
  kr_tensor_free(&t);

  /* Empty tensors convert too. */
  ck_assert_int_eq(kr_tensor_alloc(&t, unit_type("tensor<0xf32>")), KR_SUCCESS);
  kr_attr e = kr_tensor_to_attr(ctx, &t);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(kr_tensor_from_attr(&back, e), KR_SUCCESS);
  ck_assert_int_eq(back.numel, 0);
  kr_tensor_free(&back);
  kr_tensor_free(&t);
}
END_TEST

/* ------------------------------------------------------------------------------------------- */

/* @main(x, w) = relu(x + B) @ w, B constant; @clip(x) = Clip(x, <none>, 2.5). */
static const char program[] =
    "func.func @main(%x: tensor<2x2xf32> {onnx.name = \"x\"}, %w: tensor<2x3xf32> {onnx.name = \"w\"})\n"
    "    -> (tensor<2x3xf32>, tensor<2x2xf32>) {\n"
    "  %b = \"op.constant\"() {value = dense<[[-1.0, 1.0], [0.5, -4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>\n"
    "  %0 = \"op.add\"(%x, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "  %1 = \"op.relu\"(%0) : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "  %2 = \"op.mat_mul\"(%1, %w) : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
    "  return %2, %1 : tensor<2x3xf32>, tensor<2x2xf32>\n"
    "}\n"
    "func.func @clip(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
    "  %n = \"op.none\"() : () -> none\n"
    "  %m = \"op.constant\"() {value = dense<2.5> : tensor<f32>} : () -> tensor<f32>\n"
    "  %0 = \"op.clip\"(%x, %n, %m) : (tensor<2x2xf32>, none, tensor<f32>) -> tensor<2x2xf32>\n"
    "  return %0 : tensor<2x2xf32>\n"
    "}\n"
    "func.func @passthrough(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
    "  return %x : tensor<2x2xf32>\n"
    "}\n";

static kr_op *parse_program(void) {
  kr_op *m = kr_parse_source(ctx, "prog.kir", program, sizeof program - 1, true);
  ck_assert_msg(m != NULL, "parse failed: %s", last_error);
  return m;
}

static void make_f32(kr_tensor *t, const char *type, const float *v) {
  ck_assert_int_eq(kr_tensor_alloc(t, unit_type(type)), KR_SUCCESS);
  memcpy(t->data, v, t->nbytes);
}

START_TEST(run_function) {
  kr_op *m = parse_program();
  /* x = [[2, -2], [3, 5]]; x + B = [[1, -1], [3.5, 1]]; relu -> [[1, 0], [3.5, 1]].
   * w = [[1, 2, 3], [4, 5, 6]]: row 0 = 1*[1, 2, 3] + 0 = [1, 2, 3];
   * row 1 = 3.5*[1, 2, 3] + 1*[4, 5, 6] = [7.5, 12, 16.5]. */
  kr_tensor in[2], out[2];
  make_f32(&in[0], "tensor<2x2xf32>", (const float[]){2, -2, 3, 5});
  make_f32(&in[1], "tensor<2x3xf32>", (const float[]){1, 2, 3, 4, 5, 6});
  ck_assert_msg(kr_interp_run(unit_func_named(m, "main"), in, 2, out, 2) == KR_SUCCESS, "%s", last_error);
  ck_assert_ptr_eq(out[0].type, unit_type("tensor<2x3xf32>"));
  ck_assert_ptr_eq(out[1].type, unit_type("tensor<2x2xf32>"));
  ck_assert(out[0].owned && out[1].owned);
  static const float want0[] = {1, 2, 3, 7.5f, 12, 16.5f}, want1[] = {1, 0, 3.5f, 1};
  for (int i = 0; i < 6; i++) ck_assert_float_eq(((const float *)out[0].data)[i], want0[i]);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(((const float *)out[1].data)[i], want1[i]);
  /* Inputs are not modified. */
  ck_assert_float_eq(((const float *)in[0].data)[1], -2.0f);
  kr_tensor_free(&out[0]);
  kr_tensor_free(&out[1]);

  /* Clip with an absent min (op.none) and max 2.5: [[2, -2], [2.5, 2.5]]. */
  kr_tensor c;
  ck_assert_msg(kr_interp_run(unit_func_named(m, "clip"), in, 1, &c, 1) == KR_SUCCESS, "%s", last_error);
  static const float wantc[] = {2, -2, 2.5f, 2.5f};
  for (int i = 0; i < 4; i++) ck_assert_float_eq(((const float *)c.data)[i], wantc[i]);
  kr_tensor_free(&c);

  /* Returning an argument gives an owned copy, not the caller's buffer. */
  kr_tensor p;
  ck_assert_int_eq(kr_interp_run(unit_func_named(m, "passthrough"), in, 1, &p, 1), KR_SUCCESS);
  ck_assert(p.owned);
  ck_assert_ptr_ne(p.data, in[0].data);
  ck_assert_int_eq(memcmp(p.data, in[0].data, 16), 0);
  kr_tensor_free(&p);
  ck_assert_uint_eq(num_errors, 0);
  kr_tensor_free(&in[0]);
  kr_tensor_free(&in[1]);
  kr_context_remove_source(ctx, "prog.kir");
}
END_TEST

START_TEST(run_errors) {
  kr_op *m = parse_program();
  kr_op *f = unit_func_named(m, "main");
  kr_tensor in[2], out[2];
  make_f32(&in[1], "tensor<2x3xf32>", (const float[]){1, 2, 3, 4, 5, 6});

  /* Wrong shape of input 0. */
  make_f32(&in[0], "tensor<3x2xf32>", (const float[]){0, 0, 0, 0, 0, 0});
  memset(out, 0x5a, sizeof out);
  ck_assert_int_eq(kr_interp_run(f, in, 2, out, 2), KR_FAILURE);
  ck_assert_uint_eq(num_errors, 1);
  ck_assert_str_eq(last_error, "argument #0 ('x') of @main: shape mismatch: expected tensor<2x2xf32>, got "
                               "tensor<3x2xf32>");
  ck_assert_ptr_null(out[0].data);   /* outputs are cleared on failure */
  ck_assert_ptr_null(out[1].data);
  kr_tensor_free(&in[0]);

  /* Wrong element type of input 1 (f64 for f32). */
  make_f32(&in[0], "tensor<2x2xf32>", (const float[]){0, 0, 0, 0});
  kr_tensor d;
  ck_assert_int_eq(kr_tensor_alloc(&d, unit_type("tensor<2x3xf64>")), KR_SUCCESS);
  kr_tensor in2[2] = {in[0], d};
  ck_assert_int_eq(kr_interp_run(f, in2, 2, out, 2), KR_FAILURE);
  ck_assert_str_eq(last_error, "argument #1 ('w') of @main: element type mismatch: expected tensor<2x3xf32>, got "
                               "tensor<2x3xf64>");
  kr_tensor_free(&d);
  /* Signedness matters for the element type: ui8 is not i8. */
  kr_tensor u, s;
  ck_assert_int_eq(kr_tensor_alloc(&u, unit_type("tensor<2xui8>")), KR_SUCCESS);
  static const char sig[] = "func.func @s(%a: tensor<2xi8>) -> tensor<2xi8> {\n  return %a : tensor<2xi8>\n}\n";
  kr_op *sm = kr_parse_source(ctx, "sig.kir", sig, sizeof sig - 1, true);
  ck_assert_ptr_nonnull(sm);
  ck_assert_int_eq(kr_interp_run(unit_func_named(sm, "s"), &u, 1, &s, 1), KR_FAILURE);
  ck_assert(strstr(last_error, "element type mismatch: expected tensor<2xi8>, got tensor<2xui8>") != NULL);
  kr_tensor_free(&u);

  /* Wrong number of inputs. */
  ck_assert_int_eq(kr_interp_run(f, in, 1, out, 2), KR_FAILURE);
  ck_assert_str_eq(last_error, "'func.func' op takes 2 arguments but 1 inputs were given");
  /* Wrong number of outputs. */
  ck_assert_int_eq(kr_interp_run(f, in, 2, out, 1), KR_FAILURE);
  ck_assert_str_eq(last_error, "'func.return' op returns 2 values but the caller expects 1");
  ck_assert_ptr_null(out[0].data);
  /* Not a function. */
  ck_assert_int_eq(kr_interp_run(m, in, 2, out, 2), KR_FAILURE);
  ck_assert(strstr(last_error, "is not a func.func") != NULL);
  kr_tensor_free(&in[0]);
  kr_tensor_free(&in[1]);
  kr_context_remove_source(ctx, "prog.kir");
  kr_context_remove_source(ctx, "sig.kir");
}
END_TEST

/* An op `name` on block arguments of the given types, result type inferred. */
static kr_op *mk_op(const char *name, const char *const *types, unsigned n, const char *const *attr_names,
                    const kr_attr *attrs, unsigned na) {
  kr_block *b = kr_block_create(ctx);
  kr_value vals[8];
  for (unsigned i = 0; i < n; i++) vals[i] = kr_block_add_arg(b, unit_type(types[i]), NULL);
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_op_state_add_operands(&st, vals, n);
  kr_type none = kr_type_none(ctx);
  kr_op_state_add_results(&st, &none, 1);
  for (unsigned i = 0; i < na; i++) kr_op_state_add_attr(&st, attr_names[i], attrs[i]);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_msg(kr_op_infer_and_set_types(op) == KR_SUCCESS, "%s", last_error);
  return op;
}

START_TEST(eval_single_op) {
  /* Gemm with alpha 0.5, transB: A [[1, 2, 3], [4, 5, 6]], B [[1, 0, 1], [0, 1, 0]].
   * A * B^T = [[1 + 3, 2], [4 + 6, 5]] = [[4, 2], [10, 5]]; * 0.5 = [[2, 1], [5, 2.5]]. */
  static const char *const names[] = {"alpha", "transB", "beta"};
  kr_attr attrs[] = {kr_attr_float(ctx, kr_type_float(ctx, KR_F32), 0.5),
                     kr_attr_integer(ctx, kr_type_integer(ctx, 64, KR_SIGNLESS), 1),
                     kr_attr_float(ctx, kr_type_float(ctx, KR_F32), 2.0)};
  static const char *const ab[] = {"tensor<2x3xf32>", "tensor<2x3xf32>", "tensor<2xf32>"};
  kr_op *g = mk_op("op.gemm", ab, 2, names, attrs, 2);
  ck_assert_ptr_eq(kr_value_type(kr_op_result(g, 0)), unit_type("tensor<2x2xf32>"));
  kr_tensor a, b, c, y;
  make_f32(&a, "tensor<2x3xf32>", (const float[]){1, 2, 3, 4, 5, 6});
  make_f32(&b, "tensor<2x3xf32>", (const float[]){1, 0, 1, 0, 1, 0});
  make_f32(&c, "tensor<2xf32>", (const float[]){1, -1});
  kr_tensor *ins[] = {&a, &b};
  ck_assert_msg(kr_interp_eval_op(g, ins, &y) == KR_SUCCESS, "%s", last_error);   /* C omitted: NULL */
  ck_assert_ptr_eq(y.type, unit_type("tensor<2x2xf32>"));
  static const float want[] = {2, 1, 5, 2.5f};
  for (int i = 0; i < 4; i++) ck_assert_float_eq(((const float *)y.data)[i], want[i]);
  kr_tensor_free(&y);

  /* With C = [1, -1] (broadcast over rows) and beta 2: + [2, -2] -> [[4, -1], [7, 0.5]]. */
  kr_op *g3 = mk_op("op.gemm", ab, 3, names, attrs, 3);
  kr_tensor *ins3[] = {&a, &b, &c};
  ck_assert_msg(kr_interp_eval_op(g3, ins3, &y) == KR_SUCCESS, "%s", last_error);
  static const float want3[] = {4, -1, 7, 0.5f};
  for (int i = 0; i < 4; i++) ck_assert_float_eq(((const float *)y.data)[i], want3[i]);
  kr_tensor_free(&y);

  /* Integer op: Add of i32 [3] and i32 [] (broadcast) = [1+10, -2+10, 3+10]. */
  static const char *const it[] = {"tensor<3xi32>", "tensor<i32>"};
  kr_op *add = mk_op("op.add", it, 2, NULL, NULL, 0);
  kr_tensor p, q;
  ck_assert_int_eq(kr_tensor_alloc(&p, unit_type("tensor<3xi32>")), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_alloc(&q, unit_type("tensor<i32>")), KR_SUCCESS);
  kr_tensor_set_i64(&p, 0, 1), kr_tensor_set_i64(&p, 1, -2), kr_tensor_set_i64(&p, 2, 3);
  kr_tensor_set_i64(&q, 0, 10);
  kr_tensor *ins_add[] = {&p, &q};
  ck_assert_int_eq(kr_interp_eval_op(add, ins_add, &y), KR_SUCCESS);
  ck_assert_int_eq(kr_tensor_get_i64(&y, 0), 11);
  ck_assert_int_eq(kr_tensor_get_i64(&y, 1), 8);
  ck_assert_int_eq(kr_tensor_get_i64(&y, 2), 13);
  kr_tensor_free(&y);

  /* op.constant evaluates to its value. */
  kr_attr cv = kr_attr_dense(ctx, unit_type("tensor<2xf32>"), (const float[]){7, 8}, 8);
  kr_op_state st;
  kr_op_state_init(&st, ctx, KR_OP_CONSTANT, NULL);
  kr_op_state_add_attr(&st, "value", cv);
  kr_op_state_add_results(&st, &cv->type, 1);
  kr_op *cop = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_int_eq(kr_interp_eval_op(cop, NULL, &y), KR_SUCCESS);
  ck_assert_float_eq(((const float *)y.data)[1], 8.0f);
  kr_tensor_free(&y);

  /* An op without a kernel. */
  kr_op_state_init(&st, ctx, "func.return", NULL);
  kr_op *ret = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_int_eq(kr_interp_eval_op(ret, NULL, NULL), KR_FAILURE);
  ck_assert_str_eq(last_error, "'func.return' op has no CPU reference kernel");
  /* A result type that cannot be allocated. */
  kr_block *b2 = kr_block_create(ctx);
  kr_value xv = kr_block_add_arg(b2, unit_type("tensor<?xf32>"), NULL);
  kr_op_state_init(&st, ctx, "op.relu", NULL);
  kr_op_state_add_operands(&st, &xv, 1);
  kr_type dyn = unit_type("tensor<?xf32>");
  kr_op_state_add_results(&st, &dyn, 1);
  kr_op *relu = kr_op_create(&st);
  kr_op_state_free(&st);
  kr_tensor *ins_r[] = {&a};
  memset(&y, 0x5a, sizeof y);
  ck_assert_int_eq(kr_interp_eval_op(relu, ins_r, &y), KR_FAILURE);
  ck_assert(strstr(last_error, "cannot allocate result #0") != NULL);
  kr_tensor_free(&a);
  kr_tensor_free(&b);
  kr_tensor_free(&c);
  kr_tensor_free(&p);
  kr_tensor_free(&q);
}
END_TEST

int main(void) {
  Suite *s = suite_create("interp_api");
  TCase *tc = tcase_create("interp_api");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, alloc_and_free);
  tcase_add_test(tc, f16_bf16_rounding);
  tcase_add_test(tc, f32_f64);
  tcase_add_test(tc, signed_integers);
  tcase_add_test(tc, unsigned_integers);
  tcase_add_test(tc, booleans);
  tcase_add_test(tc, from_attr_dense_splat_resource);
  tcase_add_test(tc, to_attr_round_trip);
  tcase_add_test(tc, run_function);
  tcase_add_test(tc, run_errors);
  tcase_add_test(tc, eval_single_op);
  suite_add_tcase(s, tc);
  return unit_run_suite(s);
}
