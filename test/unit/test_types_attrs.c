/* Unit tests: identifiers, types, attributes, locations and resources (korch/ir.h).
 * Expectations come from LangRef semantics: uniquing (equal => same pointer), integer
 * truncation to the type's width, float rounding to the type, sorted dictionaries. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/ir.h"

static kr_context *ctx;
static void setup(void) { ctx = kr_context_create(); }
static void teardown(void) { kr_context_destroy(ctx); }

START_TEST(idents) {
  kr_ident a = kr_ident_cstr(ctx, "arith.addi");
  char buf[] = "arith.addi";
  ck_assert_ptr_eq(kr_ident_get(ctx, buf, 10), a);
  ck_assert_ptr_ne(kr_ident_get(ctx, buf, 5), a);
  ck_assert_str_eq(kr_ident_get(ctx, buf, 5), "arith");
  ck_assert_uint_eq(kr_ident_len(a), 10);
  kr_ident z = kr_ident_get(ctx, "a\0b", 3);
  ck_assert_uint_eq(kr_ident_len(z), 3);
  ck_assert_ptr_ne(z, kr_ident_get(ctx, "a\0c", 3));
  ck_assert_ptr_eq(z, kr_ident_get(ctx, "a\0b", 3));
  ck_assert_uint_eq(kr_ident_len(kr_ident_get(ctx, "", 0)), 0);
  /* Many identifiers: all distinct, all found again. */
  kr_ident ids[2000];
  char name[32];
  for (int i = 0; i < 2000; i++) {
    snprintf(name, sizeof name, "v%d", i);
    ids[i] = kr_ident_cstr(ctx, name);
  }
  for (int i = 0; i < 2000; i++) {
    snprintf(name, sizeof name, "v%d", i);
    ck_assert_ptr_eq(kr_ident_cstr(ctx, name), ids[i]);
    ck_assert_str_eq(ids[i], name);
  }
}
END_TEST

START_TEST(scalar_types) {
  kr_type i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  ck_assert_ptr_eq(i32, kr_type_integer(ctx, 32, KR_SIGNLESS));
  ck_assert_ptr_ne(i32, kr_type_integer(ctx, 32, KR_SIGNED));
  ck_assert_ptr_ne(i32, kr_type_integer(ctx, 32, KR_UNSIGNED));
  ck_assert_ptr_ne(i32, kr_type_integer(ctx, 64, KR_SIGNLESS));
  ck_assert_int_eq(i32->kind, KR_TYPE_INTEGER);
  ck_assert_uint_eq(i32->u.integer.width, 32);
  ck_assert(kr_type_is_integer(i32, 32));
  ck_assert(!kr_type_is_integer(i32, 64));
  ck_assert(kr_type_is_integer(i32, 0));
  ck_assert(!kr_type_is_integer(kr_type_integer(ctx, 32, KR_UNSIGNED), 32));
  ck_assert(kr_type_is_integer(kr_type_integer(ctx, 8, KR_UNSIGNED), 0));
  kr_type f16 = kr_type_float(ctx, KR_F16), bf16 = kr_type_float(ctx, KR_BF16);
  ck_assert_ptr_ne(f16, bf16);
  ck_assert_ptr_eq(f16, kr_type_float(ctx, KR_F16));
  ck_assert(kr_type_is_float(bf16) && !kr_type_is_float(i32));
  ck_assert_ptr_eq(kr_type_index(ctx), kr_type_index(ctx));
  ck_assert_ptr_eq(kr_type_none(ctx), kr_type_none(ctx));
  ck_assert_ptr_ne((const void *)kr_type_none(ctx), (const void *)kr_type_index(ctx));
  ck_assert_uint_eq(kr_type_bitwidth(i32), 32);
  ck_assert_uint_eq(kr_type_bitwidth(kr_type_index(ctx)), 64);
  ck_assert_uint_eq(kr_type_bitwidth(bf16), 16);
  ck_assert_uint_eq(kr_type_bitwidth(kr_type_float(ctx, KR_F64)), 64);
  ck_assert_uint_eq(kr_type_bitwidth(kr_type_none(ctx)), 0);
  ck_assert_uint_eq(kr_type_storage_bytes(kr_type_integer(ctx, 1, KR_SIGNLESS)), 1);
  ck_assert_uint_eq(kr_type_storage_bytes(kr_type_integer(ctx, 17, KR_SIGNLESS)), 3);
  ck_assert_uint_eq(kr_type_storage_bytes(kr_type_index(ctx)), 8);
  ck_assert_uint_eq(kr_type_storage_bytes(f16), 2);
}
END_TEST

START_TEST(shaped_types) {
  kr_type f32 = kr_type_float(ctx, KR_F32);
  int64_t d1[] = {1, 3, 224, 224};
  int64_t d2[] = {1, 3, 224, 224};
  kr_type t = kr_type_tensor(ctx, d1, 4, f32);
  ck_assert_ptr_eq(t, kr_type_tensor(ctx, d2, 4, f32));
  ck_assert_ptr_ne(t->u.shaped.dims, d1); /* copied */
  d2[3] = 225;
  ck_assert_ptr_ne(t, kr_type_tensor(ctx, d2, 4, f32));
  ck_assert_ptr_ne(t, kr_type_vector(ctx, d1, 4, f32));
  ck_assert_int_eq(kr_type_num_elements(t), 3 * 224 * 224);
  ck_assert(kr_type_has_static_shape(t));
  ck_assert(kr_type_is_shaped(t));
  ck_assert_ptr_eq(kr_type_element(t), f32);
  ck_assert_ptr_eq(kr_type_element(f32), f32);
  kr_type scalar_tensor = kr_type_tensor(ctx, NULL, 0, f32);
  ck_assert_int_eq(kr_type_num_elements(scalar_tensor), 1);
  ck_assert(kr_type_has_static_shape(scalar_tensor));
  int64_t dyn[] = {2, KR_DYNAMIC};
  kr_type td = kr_type_tensor(ctx, dyn, 2, f32);
  ck_assert(!kr_type_has_static_shape(td));
  ck_assert_int_eq(kr_type_num_elements(td), -1);
  kr_type ur = kr_type_unranked_tensor(ctx, f32);
  ck_assert_ptr_ne(ur, scalar_tensor);
  ck_assert(ur->u.shaped.unranked);
  ck_assert_int_eq(kr_type_num_elements(ur), -1);
  ck_assert(!kr_type_has_static_shape(ur));
  int64_t zero[] = {0, 4};
  ck_assert_int_eq(kr_type_num_elements(kr_type_tensor(ctx, zero, 2, f32)), 0);
}
END_TEST

START_TEST(function_tuple_opaque_types) {
  kr_type i32 = kr_type_integer(ctx, 32, KR_SIGNLESS), f32 = kr_type_float(ctx, KR_F32);
  kr_type ins[] = {i32, f32}, outs[] = {kr_type_integer(ctx, 1, KR_SIGNLESS)};
  kr_type fn = kr_type_function(ctx, ins, 2, outs, 1);
  kr_type ins2[] = {i32, f32};
  ck_assert_ptr_eq(fn, kr_type_function(ctx, ins2, 2, outs, 1));
  ck_assert_ptr_ne(fn, kr_type_function(ctx, ins2, 2, NULL, 0));
  /* (i32) -> (f32) vs (i32, f32) -> (): same concatenation, different split. */
  ck_assert_ptr_ne(kr_type_function(ctx, ins, 1, ins + 1, 1), kr_type_function(ctx, ins, 2, NULL, 0));
  ck_assert_uint_eq(fn->u.func.num_inputs, 2);
  ck_assert_ptr_eq(fn->u.func.results[0], outs[0]);
  ck_assert_ptr_eq(kr_type_tuple(ctx, ins, 2), kr_type_tuple(ctx, ins2, 2));
  ck_assert_ptr_ne(kr_type_tuple(ctx, ins, 2), kr_type_tuple(ctx, ins, 1));
  kr_type o = kr_type_opaque(ctx, "foo", "bar<x>", 6);
  ck_assert_ptr_eq(o, kr_type_opaque(ctx, "foo", "bar<x>zzz", 6));
  ck_assert_str_eq(o->u.opaque.dialect, "foo");
  ck_assert_str_eq(o->u.opaque.body, "bar<x>");
  ck_assert_ptr_ne(o, kr_type_opaque(ctx, "fo", "bar<x>", 6));
}
END_TEST

START_TEST(integer_attrs) {
  kr_type i8 = kr_type_integer(ctx, 8, KR_SIGNLESS), ui8 = kr_type_integer(ctx, 8, KR_UNSIGNED);
  kr_type si16 = kr_type_integer(ctx, 16, KR_SIGNED), i1 = kr_type_integer(ctx, 1, KR_SIGNLESS);
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  kr_attr a = kr_attr_integer(ctx, i8, 255);
  ck_assert_int_eq(a->u.i, -1); /* 0xFF as 8-bit two's complement */
  ck_assert_ptr_eq(a, kr_attr_integer(ctx, i8, -1));
  ck_assert_ptr_eq(a->type, i8);
  ck_assert_int_eq(kr_attr_integer(ctx, ui8, -1)->u.i, 255);
  ck_assert_int_eq(kr_attr_integer(ctx, ui8, 256 + 7)->u.i, 7);
  ck_assert_int_eq(kr_attr_integer(ctx, si16, 0x18000)->u.i, -32768);
  ck_assert_int_eq(kr_attr_integer(ctx, si16, 0x7fff)->u.i, 32767);
  ck_assert_int_eq(kr_attr_integer(ctx, i1, 3)->u.i, 1);
  ck_assert_int_eq(kr_attr_integer(ctx, i1, 2)->u.i, 0);
  ck_assert_int_eq(kr_attr_integer(ctx, i1, -1)->u.i, 1);
  ck_assert_int_eq(kr_attr_integer(ctx, i64, INT64_MIN)->u.i, INT64_MIN);
  ck_assert_int_eq(kr_attr_integer(ctx, kr_type_index(ctx), -5)->u.i, -5);
  /* Same value, different type: different attributes. */
  ck_assert_ptr_ne(kr_attr_integer(ctx, i8, 1), kr_attr_integer(ctx, i64, 1));
  ck_assert_ptr_null(kr_attr_integer(ctx, kr_type_float(ctx, KR_F32), 1));
  /* bool is its own kind, distinct from i1 integers. */
  ck_assert_ptr_eq(kr_attr_bool(ctx, true), kr_attr_bool(ctx, true));
  ck_assert_ptr_ne(kr_attr_bool(ctx, true), kr_attr_bool(ctx, false));
  ck_assert_int_eq(kr_attr_bool(ctx, true)->kind, KR_ATTR_BOOL);
  ck_assert(kr_attr_bool(ctx, true)->u.b);
  ck_assert_ptr_ne(kr_attr_bool(ctx, true), kr_attr_integer(ctx, i1, 1));
  ck_assert_ptr_eq(kr_attr_unit(ctx), kr_attr_unit(ctx));
  ck_assert_int_eq(kr_attr_unit(ctx)->kind, KR_ATTR_UNIT);
}
END_TEST

START_TEST(float_attrs) {
  kr_type f16 = kr_type_float(ctx, KR_F16), f32 = kr_type_float(ctx, KR_F32), f64 = kr_type_float(ctx, KR_F64);
  kr_type bf16 = kr_type_float(ctx, KR_BF16);
  ck_assert(kr_attr_float(ctx, f16, 0.1)->u.f == 0.0999755859375); /* 0x2E66 */
  ck_assert(kr_attr_float(ctx, f32, 0.1)->u.f == (double)0.1f);
  ck_assert(kr_attr_float(ctx, f64, 0.1)->u.f == 0.1);
  ck_assert(kr_attr_float(ctx, bf16, 1.0 + 1.0 / 256)->u.f == 1.0); /* tie -> even */
  ck_assert(isinf(kr_attr_float(ctx, f16, 70000.0)->u.f));
  /* Values that round to the same number of the type are the same attribute. */
  ck_assert_ptr_eq(kr_attr_float(ctx, f16, 0.1), kr_attr_float(ctx, f16, 0.09997));
  ck_assert_ptr_ne(kr_attr_float(ctx, f32, 0.1), kr_attr_float(ctx, f64, 0.1));
  ck_assert_ptr_ne(kr_attr_float(ctx, f32, 0.0), kr_attr_float(ctx, f32, -0.0));
  ck_assert(signbit(kr_attr_float(ctx, f32, -0.0)->u.f));
  kr_attr n1 = kr_attr_float(ctx, f64, NAN);
  ck_assert_ptr_eq(n1, kr_attr_float(ctx, f64, NAN));
  ck_assert(isnan(n1->u.f));
  uint64_t pb = 0x7ff8000000000123ULL;
  double payload;
  memcpy(&payload, &pb, 8);
  kr_attr n2 = kr_attr_float(ctx, f64, payload);
  ck_assert_ptr_ne(n1, n2);
  uint64_t got;
  memcpy(&got, &n2->u.f, 8);
  ck_assert_uint_eq(got, pb);
  ck_assert_ptr_null(kr_attr_float(ctx, kr_type_integer(ctx, 32, KR_SIGNLESS), 1.0));
}
END_TEST

START_TEST(string_type_array_attrs) {
  kr_attr s = kr_attr_string(ctx, "hello", 5);
  ck_assert_ptr_eq(s, kr_attr_string(ctx, "hello!", 5));
  ck_assert_str_eq(s->u.string.str, "hello");
  ck_assert_ptr_null(s->type);
  kr_type i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  kr_attr st = kr_attr_string_typed(ctx, "hello", 5, i32);
  ck_assert_ptr_ne(s, st);
  ck_assert_ptr_eq(st->type, i32);
  kr_attr es = kr_attr_string(ctx, "a\0b", 3);
  ck_assert_uint_eq(kr_ident_len(es->u.string.str), 3);
  kr_attr ta = kr_attr_type(ctx, i32);
  ck_assert_ptr_eq(ta, kr_attr_type(ctx, i32));
  ck_assert_ptr_eq(ta->type, i32);
  ck_assert_ptr_ne(ta, kr_attr_type(ctx, kr_type_index(ctx)));
  kr_attr el[] = {s, ta, kr_attr_unit(ctx)};
  kr_attr arr = kr_attr_array(ctx, el, 3);
  kr_attr el2[] = {s, ta, kr_attr_unit(ctx)};
  ck_assert_ptr_eq(arr, kr_attr_array(ctx, el2, 3));
  ck_assert_ptr_ne(arr, kr_attr_array(ctx, el2, 2));
  kr_attr rev[] = {ta, s, kr_attr_unit(ctx)};
  ck_assert_ptr_ne(arr, kr_attr_array(ctx, rev, 3));
  ck_assert_ptr_eq(kr_attr_array(ctx, NULL, 0), kr_attr_array(ctx, el, 0));
  ck_assert_uint_eq(kr_attr_array(ctx, NULL, 0)->u.array.num, 0);
  kr_ident nested[] = {kr_ident_cstr(ctx, "b"), kr_ident_cstr(ctx, "c")};
  kr_attr sr = kr_attr_symbol_ref(ctx, "a", nested, 2);
  ck_assert_ptr_eq(sr, kr_attr_symbol_ref(ctx, "a", nested, 2));
  ck_assert_ptr_ne(sr, kr_attr_symbol_ref(ctx, "a", nested, 1));
  ck_assert_ptr_ne(kr_attr_symbol_ref(ctx, "a", NULL, 0), s);
  ck_assert_str_eq(sr->u.symref.root, "a");
  ck_assert_ptr_eq(sr->u.symref.nested[1], nested[1]);
  kr_attr op1 = kr_attr_opaque(ctx, "foo", "bar<1>", 6);
  ck_assert_ptr_eq(op1, kr_attr_opaque(ctx, "foo", "bar<1>", 6));
  ck_assert_ptr_ne(op1, kr_attr_opaque(ctx, "foo", "bar<2>", 6));
}
END_TEST

START_TEST(dict_attrs) {
  kr_type i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  kr_named_attr e[] = {
      {kr_ident_cstr(ctx, "zeta"), kr_attr_integer(ctx, i32, 1)},
      {kr_ident_cstr(ctx, "alpha"), kr_attr_integer(ctx, i32, 2)},
      {kr_ident_cstr(ctx, "al"), kr_attr_unit(ctx)},
      {kr_ident_cstr(ctx, "beta"), kr_attr_integer(ctx, i32, 3)},
  };
  kr_attr d = kr_attr_dict(ctx, e, 4);
  ck_assert_int_eq(d->kind, KR_ATTR_DICT);
  ck_assert_uint_eq(d->u.dict.num, 4);
  /* Sorted by name bytes, a prefix before its extensions. */
  ck_assert_str_eq(d->u.dict.entries[0].name, "al");
  ck_assert_str_eq(d->u.dict.entries[1].name, "alpha");
  ck_assert_str_eq(d->u.dict.entries[2].name, "beta");
  ck_assert_str_eq(d->u.dict.entries[3].name, "zeta");
  kr_named_attr e2[] = {e[3], e[2], e[1], e[0]};
  ck_assert_ptr_eq(d, kr_attr_dict(ctx, e2, 4));
  ck_assert_ptr_eq(kr_dict_get(d, kr_ident_cstr(ctx, "alpha")), e[1].value);
  ck_assert_ptr_eq(kr_dict_get_cstr(d, "zeta"), e[0].value);
  ck_assert_ptr_null(kr_dict_get_cstr(d, "alp"));
  ck_assert_ptr_null(kr_dict_get(d, kr_ident_cstr(ctx, "gamma")));
  kr_named_attr dup[] = {e[0], e[1], {e[0].name, kr_attr_unit(ctx)}};
  ck_assert_ptr_null(kr_attr_dict(ctx, dup, 3));
  ck_assert_ptr_eq(kr_attr_dict(ctx, NULL, 0), kr_attr_dict_empty(ctx));
  ck_assert_uint_eq(kr_attr_dict_empty(ctx)->u.dict.num, 0);
  /* A large dictionary (binary search path). */
  kr_named_attr many[40];
  char name[16];
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "k%02d", 39 - i);
    many[i].name = kr_ident_cstr(ctx, name);
    many[i].value = kr_attr_integer(ctx, i32, 39 - i);
  }
  kr_attr big = kr_attr_dict(ctx, many, 40);
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "k%02d", i);
    ck_assert_int_eq(kr_dict_get(big, kr_ident_cstr(ctx, name))->u.i, i);
    ck_assert_int_eq(kr_dict_get_cstr(big, name)->u.i, i);
    ck_assert_str_eq(big->u.dict.entries[i].name, name);
  }
  ck_assert_ptr_null(kr_dict_get_cstr(big, "k40"));
}
END_TEST

START_TEST(dense_attrs) {
  kr_type f32 = kr_type_float(ctx, KR_F32);
  int64_t dims[] = {2, 2};
  kr_type t = kr_type_tensor(ctx, dims, 2, f32);
  float v[] = {1.0f, 2.0f, 3.0f, -4.5f};
  kr_attr d = kr_attr_dense(ctx, t, v, sizeof v);
  ck_assert_ptr_nonnull(d);
  ck_assert(!d->u.dense.splat);
  ck_assert_uint_eq(d->u.dense.size, 16);
  ck_assert(kr_dense_get_f64(d, 3) == -4.5);
  ck_assert_int_eq(kr_dense_get_i64(d, 3), -4); /* truncation toward zero */
  float v2[] = {1.0f, 2.0f, 3.0f, -4.5f};
  ck_assert_ptr_eq(d, kr_attr_dense(ctx, t, v2, sizeof v2));
  ck_assert_ptr_null(kr_attr_dense(ctx, t, v, 12)); /* neither one element nor all */
  /* All-equal full buffers become splats, equal to the one-element form. */
  float s4[] = {7, 7, 7, 7}, s1[] = {7};
  kr_attr sp = kr_attr_dense(ctx, t, s4, sizeof s4);
  ck_assert(sp->u.dense.splat);
  ck_assert_uint_eq(sp->u.dense.size, 4);
  ck_assert_ptr_eq(sp, kr_attr_dense(ctx, t, s1, sizeof s1));
  for (size_t i = 0; i < 4; i++) ck_assert(kr_dense_get_f64(sp, i) == 7.0);
  /* Element kinds. */
  int64_t d3[] = {3};
  kr_type ui8 = kr_type_integer(ctx, 8, KR_UNSIGNED), si8 = kr_type_integer(ctx, 8, KR_SIGNED);
  kr_type i1 = kr_type_integer(ctx, 1, KR_SIGNLESS), f16 = kr_type_float(ctx, KR_F16);
  kr_type bf16 = kr_type_float(ctx, KR_BF16), i16 = kr_type_integer(ctx, 16, KR_SIGNLESS);
  unsigned char b[] = {0xFF, 0x80, 0x01};
  kr_attr du = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, ui8), b, 3);
  ck_assert_int_eq(kr_dense_get_i64(du, 0), 255);
  ck_assert_int_eq(kr_dense_get_i64(du, 1), 128);
  ck_assert(kr_dense_get_f64(du, 0) == 255.0);
  kr_attr ds = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, si8), b, 3);
  ck_assert_int_eq(kr_dense_get_i64(ds, 0), -1);
  ck_assert_int_eq(kr_dense_get_i64(ds, 1), -128);
  ck_assert_int_eq(kr_dense_get_i64(ds, 2), 1);
  unsigned char bits[] = {0, 5, 1}; /* any non-zero byte is true */
  unsigned char bits2[] = {0, 1, 1};
  kr_attr db = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, i1), bits, 3);
  ck_assert_ptr_eq(db, kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, i1), bits2, 3));
  ck_assert_int_eq(kr_dense_get_i64(db, 0), 0);
  ck_assert_int_eq(kr_dense_get_i64(db, 1), 1);
  uint16_t h[] = {0x3C00, 0xC000, 0x7BFF}; /* 1, -2, 65504 */
  kr_attr dh = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, f16), h, sizeof h);
  ck_assert(kr_dense_get_f64(dh, 0) == 1.0);
  ck_assert(kr_dense_get_f64(dh, 1) == -2.0);
  ck_assert_int_eq(kr_dense_get_i64(dh, 2), 65504);
  uint16_t bh[] = {0x3F80, 0x4049, 0xBF80}; /* 1, 3.140625, -1 */
  kr_attr dbh = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, bf16), bh, sizeof bh);
  ck_assert(kr_dense_get_f64(dbh, 1) == 3.140625);
  ck_assert_int_eq(kr_dense_get_i64(dbh, 2), -1);
  int16_t w[] = {-300, 300, 0};
  kr_attr dw = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, i16), w, sizeof w);
  ck_assert_int_eq(kr_dense_get_i64(dw, 0), -300);
  ck_assert(kr_dense_get_f64(dw, 1) == 300.0);
  double nanv[] = {NAN};
  kr_attr dn = kr_attr_dense(ctx, kr_type_tensor(ctx, d3, 1, kr_type_float(ctx, KR_F64)), nanv, 8);
  ck_assert_int_eq(kr_dense_get_i64(dn, 2), 0); /* NaN does not convert */
  ck_assert(isnan(kr_dense_get_f64(dn, 2)));
  /* Dynamic shapes and non-shaped types have no dense form. */
  int64_t dyn[] = {KR_DYNAMIC};
  ck_assert_ptr_null(kr_attr_dense(ctx, kr_type_tensor(ctx, dyn, 1, f32), v, 4));
  ck_assert_ptr_null(kr_attr_dense(ctx, f32, v, 4));
  /* Vector-typed dense attributes differ from tensor ones. */
  ck_assert_ptr_ne(kr_attr_dense(ctx, kr_type_vector(ctx, dims, 2, f32), v, 16), d);
}
END_TEST

START_TEST(dense_array_attrs) {
  kr_type i64 = kr_type_integer(ctx, 64, KR_SIGNLESS), i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  int64_t a[] = {1, 2, 3};
  kr_attr x = kr_attr_dense_array(ctx, i64, a, 3);
  ck_assert_uint_eq(x->u.dense_array.num, 3);
  ck_assert_uint_eq(x->u.dense_array.size, 24);
  ck_assert_ptr_eq(x->type, i64);
  ck_assert_int_eq(((const int64_t *)x->u.dense_array.data)[2], 3);
  int64_t a2[] = {1, 2, 3};
  ck_assert_ptr_eq(x, kr_attr_dense_array(ctx, i64, a2, 3));
  int32_t b[] = {1, 2, 3, 0, 0, 0};
  ck_assert_ptr_ne(x, kr_attr_dense_array(ctx, i32, b, 6));
  kr_attr empty = kr_attr_dense_array(ctx, i64, NULL, 0);
  ck_assert_uint_eq(empty->u.dense_array.num, 0);
  ck_assert_ptr_ne(empty, kr_attr_dense_array(ctx, i32, NULL, 0));
}
END_TEST

START_TEST(locations) {
  kr_attr u = kr_loc_unknown(ctx);
  ck_assert_int_eq(u->kind, KR_ATTR_LOCATION);
  ck_assert_int_eq(u->u.loc.kind, KR_LOC_UNKNOWN);
  kr_attr f = kr_loc_file(ctx, "a.kir", 3, 4);
  ck_assert_ptr_eq(f, kr_loc_file(ctx, "a.kir", 3, 4));
  ck_assert_ptr_ne(f, kr_loc_file(ctx, "a.kir", 4, 3));
  ck_assert_str_eq(f->u.loc.name, "a.kir");
  kr_attr n = kr_loc_name(ctx, "foo", 3, NULL);
  ck_assert_ptr_eq(n, kr_loc_name(ctx, "foo", 3, u)); /* unknown child == no child */
  kr_attr nc = kr_loc_name(ctx, "foo", 3, f);
  ck_assert_ptr_ne(n, nc);
  ck_assert_ptr_eq(kr_loc_find_file(nc), f);
  ck_assert_ptr_null(kr_loc_find_file(n));
  ck_assert_ptr_null(kr_loc_find_file(u));
  kr_attr g = kr_loc_file(ctx, "b.kir", 1, 1);
  kr_attr cs = kr_loc_callsite(ctx, n, g);
  ck_assert_ptr_eq(kr_loc_find_file(cs), g);
  ck_assert_ptr_eq(kr_loc_find_file(kr_loc_callsite(ctx, nc, g)), f);
  /* FusedLoc::get canonicalisation. */
  kr_attr l1[] = {f, g};
  kr_attr fu = kr_loc_fused(ctx, l1, 2, NULL);
  ck_assert_int_eq(fu->u.loc.kind, KR_LOC_FUSED);
  ck_assert_uint_eq(fu->u.loc.num, 2);
  ck_assert_ptr_eq(kr_loc_find_file(fu), f);
  kr_attr l2[] = {u, f, u, f};
  ck_assert_ptr_eq(kr_loc_fused(ctx, l2, 4, NULL), f); /* unknowns and duplicates dropped */
  ck_assert_ptr_eq(kr_loc_fused(ctx, l2, 1, NULL), u); /* nothing known left */
  ck_assert_ptr_eq(kr_loc_fused(ctx, NULL, 0, NULL), u);
  kr_attr l3[] = {fu, n};
  kr_attr flat = kr_loc_fused(ctx, l3, 2, NULL); /* nested fused flattened */
  ck_assert_uint_eq(flat->u.loc.num, 3);
  ck_assert_ptr_eq(flat->u.loc.locs[0], f);
  ck_assert_ptr_eq(flat->u.loc.locs[1], g);
  ck_assert_ptr_eq(flat->u.loc.locs[2], n);
  kr_attr meta = kr_attr_string(ctx, "m", 1);
  kr_attr fm = kr_loc_fused(ctx, l1, 1, meta); /* metadata keeps a single loc fused */
  ck_assert_int_eq(fm->u.loc.kind, KR_LOC_FUSED);
  ck_assert_ptr_eq(fm->u.loc.metadata, meta);
  ck_assert_uint_eq(fm->u.loc.num, 1);
  kr_attr l4[] = {fm, g};
  ck_assert_uint_eq(kr_loc_fused(ctx, l4, 2, NULL)->u.loc.num, 2); /* other metadata: kept nested */
  kr_attr em = kr_loc_fused(ctx, NULL, 0, meta);
  ck_assert_uint_eq(em->u.loc.num, 1);
  ck_assert_ptr_eq(em->u.loc.locs[0], u);
}
END_TEST

START_TEST(resources) {
  unsigned char data[100];
  for (int i = 0; i < 100; i++) data[i] = (unsigned char)i;
  const kr_resource *r = kr_resource_create(ctx, "weights", data, sizeof data, 64);
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->key, "weights");
  ck_assert_ptr_ne(r->data, data);
  ck_assert_mem_eq(r->data, data, sizeof data);
  ck_assert_uint_eq((uintptr_t)r->data % 64, 0);
  ck_assert_uint_eq(r->size, 100);
  ck_assert_uint_eq(r->alignment, 64);
  const kr_resource *r2 = kr_resource_create(ctx, "weights", data, 10, 8);
  ck_assert_str_eq(r2->key, "weights_1");
  const kr_resource *r3 = kr_resource_create(ctx, "weights", data, 10, 8);
  ck_assert_str_eq(r3->key, "weights_2");
  ck_assert_ptr_eq(kr_resource_lookup(ctx, "weights"), r);
  ck_assert_ptr_eq(kr_resource_lookup(ctx, "weights_1"), r2);
  ck_assert_ptr_null(kr_resource_lookup(ctx, "nope"));
  void *buf = malloc(32);
  memset(buf, 0x5A, 32);
  const kr_resource *ra = kr_resource_adopt(ctx, "blob", buf, 32, 16);
  ck_assert_ptr_eq(ra->data, buf); /* freed by kr_context_destroy (ASan checks the leak) */
  int64_t dims[] = {25};
  kr_type t = kr_type_tensor(ctx, dims, 1, kr_type_float(ctx, KR_F32));
  kr_attr ra1 = kr_attr_resource(ctx, t, r);
  ck_assert_ptr_eq(ra1, kr_attr_resource(ctx, t, r));
  ck_assert_ptr_ne(ra1, kr_attr_resource(ctx, t, r2));
  ck_assert_ptr_eq(ra1->u.resource, r);
  float fv;
  memcpy(&fv, data + 4, 4);
  ck_assert(kr_dense_get_f64(ra1, 1) == (double)fv);
}
END_TEST

int main(void) {
  Suite *s = suite_create("types_attrs");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, idents);
  tcase_add_test(tc, scalar_types);
  tcase_add_test(tc, shaped_types);
  tcase_add_test(tc, function_tuple_opaque_types);
  tcase_add_test(tc, integer_attrs);
  tcase_add_test(tc, float_attrs);
  tcase_add_test(tc, string_type_array_attrs);
  tcase_add_test(tc, dict_attrs);
  tcase_add_test(tc, dense_attrs);
  tcase_add_test(tc, dense_array_attrs);
  tcase_add_test(tc, locations);
  tcase_add_test(tc, resources);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
