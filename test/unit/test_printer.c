/* test/unit/test_printer.c - the printer and the verifier through the C API.
 *
 * IR is built with kr_op_create, printed, and compared with text that mlir-opt 19 prints for
 * the same IR (`mlir-opt --allow-unregistered-dialect [--mlir-print-op-generic]`); the expected
 * strings below were produced that way, not by korch.  Verifier tests capture diagnostics. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "korch/korch.h"
#include "test_dialect.h"

static kr_context *ctx;
static kr_type i1, i8, i32, i64, f32, f64, idx;

static void setup(void) {
  ctx = kr_context_create();
  kr_context_set_allow_unregistered(ctx, true);
  i1 = kr_type_integer(ctx, 1, KR_SIGNLESS);
  i8 = kr_type_integer(ctx, 8, KR_SIGNLESS);
  i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
  i64 = kr_type_integer(ctx, 64, KR_SIGNLESS);
  f32 = kr_type_float(ctx, KR_F32);
  f64 = kr_type_float(ctx, KR_F64);
  idx = kr_type_index(ctx);
}

static void teardown(void) { kr_context_destroy(ctx); }

/* Creates `name` with operands, result types, `nregions` empty regions and successors, appended
 * to `b` when non-NULL. */
static kr_op *mk(kr_block *b, const char *name, const kr_value *operands, unsigned n, const kr_type *results,
                 unsigned nr, unsigned nregions, kr_block *const *succ, unsigned ns) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, kr_loc_unknown(ctx));
  kr_op_state_add_operands(&st, operands, n);
  kr_op_state_add_results(&st, results, nr);
  for (unsigned i = 0; i < nregions; i++) kr_op_state_add_region(&st);
  kr_op_state_add_successors(&st, succ, ns);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  if (b) kr_block_append_op(b, op);
  return op;
}

static kr_block *add_block(kr_op *op, unsigned region) {
  kr_block *b = kr_block_create(ctx);
  kr_region_append_block(kr_op_region(op, region), b);
  return b;
}

static char *print_with(kr_op *op, const kr_print_flags *flags) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_op_print(op, &os, flags);
  kr_ostream_str(&os);
  return os.buf;
}

static char *print_op(kr_op *op, bool generic) {
  kr_print_flags flags = {.generic = generic};
  return print_with(op, &flags);
}

static char *attr_str(kr_attr a) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_attr_print(&os, a);
  kr_ostream_str(&os);
  return os.buf;
}

static char *type_str(kr_type t) {
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_type_print(&os, t);
  kr_ostream_str(&os);
  return os.buf;
}

#define CHECK_ATTR(a, want)                 \
  do {                                      \
    char *got_ = attr_str(a);               \
    ck_assert_str_eq(got_, want);           \
    free(got_);                             \
  } while (0)

#define CHECK_TYPE(t, want)                 \
  do {                                      \
    char *got_ = type_str(t);               \
    ck_assert_str_eq(got_, want);           \
    free(got_);                             \
  } while (0)

/* ---------------------------------------------------------------------------------------------
 * Value names, regions, blocks. */

/* Builds this module (the expected strings are mlir-opt's output for it; test/IR/print-generic.kir
 * has the same IR as text):
 *   "x.func"() ({
 *   ^bb0(%a: i32, %b: i32):
 *     %0 = "x.add"(%a, %b) : (i32, i32) -> i32
 *     %1:2 = "x.two"(%0) : (i32) -> (i32, f32)
 *     "x.use"(%1#1, %1#0) : (f32, i32) -> ()
 *     "x.br"(%0)[^bb1] : (i32) -> ()
 *   ^bb1(%z: i32):
 *     %r = "x.region"() ({
 *       %q = "x.in"(%z) : (i32) -> i32
 *       "x.yield"(%q) : (i32) -> ()
 *     }, {
 *     ^bb0(%w: f32):
 *       "x.yield"(%w) : (f32) -> ()
 *     ^bb1:
 *       "x.foo"() : () -> ()
 *     }) : () -> i32
 *     "x.ret"(%r) : (i32) -> ()
 *   }) : () -> ()
 *   "x.func"() ({
 *     %c = "x.c"() : () -> i32
 *     "x.cbr"(%c)[^bb1, ^bb1] : (i32) -> ()
 *   ^bb1:
 *     "x.ret"(%c) : (i32) -> ()
 *   }) : () -> ()
 * The module is unregistered here (no dialects), so it prints generically in both forms. */
static kr_op *build_u1(void) {
  kr_op *module = mk(NULL, "builtin.module", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *mb = add_block(module, 0);

  kr_op *f = mk(mb, "x.func", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *entry = add_block(f, 0), *bb1 = add_block(f, 0);
  kr_value a = kr_block_add_arg(entry, i32, NULL), b = kr_block_add_arg(entry, i32, NULL);
  kr_value z = kr_block_add_arg(bb1, i32, NULL);
  kr_op *add = mk(entry, "x.add", (kr_value[]){a, b}, 2, &i32, 1, 0, NULL, 0);
  kr_op *two = mk(entry, "x.two", (kr_value[]){kr_op_result(add, 0)}, 1, (kr_type[]){i32, f32}, 2, 0, NULL, 0);
  mk(entry, "x.use", (kr_value[]){kr_op_result(two, 1), kr_op_result(two, 0)}, 2, NULL, 0, 0, NULL, 0);
  mk(entry, "x.br", (kr_value[]){kr_op_result(add, 0)}, 1, NULL, 0, 0, &bb1, 1);
  kr_op *reg = mk(bb1, "x.region", NULL, 0, &i32, 1, 2, NULL, 0);
  kr_block *r0 = add_block(reg, 0);
  kr_op *in = mk(r0, "x.in", &z, 1, &i32, 1, 0, NULL, 0);
  mk(r0, "x.yield", (kr_value[]){kr_op_result(in, 0)}, 1, NULL, 0, 0, NULL, 0);
  kr_block *r1a = add_block(reg, 1), *r1b = add_block(reg, 1);
  kr_value w = kr_block_add_arg(r1a, f32, NULL);
  mk(r1a, "x.yield", &w, 1, NULL, 0, 0, NULL, 0);
  mk(r1b, "x.foo", NULL, 0, NULL, 0, 0, NULL, 0);
  mk(bb1, "x.ret", (kr_value[]){kr_op_result(reg, 0)}, 1, NULL, 0, 0, NULL, 0);

  kr_op *g = mk(mb, "x.func", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *g0 = add_block(g, 0), *g1 = add_block(g, 0);
  kr_op *c2 = mk(g0, "x.c", NULL, 0, &i32, 1, 0, NULL, 0);
  mk(g0, "x.cbr", (kr_value[]){kr_op_result(c2, 0)}, 1, NULL, 0, 0, (kr_block *[]){g1, g1}, 2);
  mk(g1, "x.ret", (kr_value[]){kr_op_result(c2, 0)}, 1, NULL, 0, 0, NULL, 0);
  return module;
}

START_TEST(generic_names_match_mlir_opt) {
  kr_op *m = build_u1();
  char *got = print_op(m, true);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.func\"() ({\n"
                   "  ^bb0(%arg0: i32, %arg1: i32):\n"
                   "    %1 = \"x.add\"(%arg0, %arg1) : (i32, i32) -> i32\n"
                   "    %2:2 = \"x.two\"(%1) : (i32) -> (i32, f32)\n"
                   "    \"x.use\"(%2#1, %2#0) : (f32, i32) -> ()\n"
                   "    \"x.br\"(%1)[^bb1] : (i32) -> ()\n"
                   "  ^bb1(%3: i32):  // pred: ^bb0\n"
                   "    %4 = \"x.region\"() ({\n"
                   "      %5 = \"x.in\"(%3) : (i32) -> i32\n"
                   "      \"x.yield\"(%5) : (i32) -> ()\n"
                   "    }, {\n"
                   "    ^bb0(%arg2: f32):\n"
                   "      \"x.yield\"(%arg2) : (f32) -> ()\n"
                   "    ^bb1:  // no predecessors\n"
                   "      \"x.foo\"() : () -> ()\n"
                   "    }) : () -> i32\n"
                   "    \"x.ret\"(%4) : (i32) -> ()\n"
                   "  }) : () -> ()\n"
                   "  \"x.func\"() ({\n"
                   "    %0 = \"x.c\"() : () -> i32\n"
                   "    \"x.cbr\"(%0)[^bb1, ^bb1] : (i32) -> ()\n"
                   "  ^bb1:  // 2 preds: ^bb0, ^bb0\n"
                   "    \"x.ret\"(%0) : (i32) -> ()\n"
                   "  }) : () -> ()\n"
                   "}) : () -> ()\n");
  free(got);
}
END_TEST

START_TEST(custom_form_names_restart_per_region) {
  kr_op *m = build_u1();
  char *got = print_op(m, false);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.func\"() ({\n"
                   "  ^bb0(%arg0: i32, %arg1: i32):\n"
                   "    %0 = \"x.add\"(%arg0, %arg1) : (i32, i32) -> i32\n"
                   "    %1:2 = \"x.two\"(%0) : (i32) -> (i32, f32)\n"
                   "    \"x.use\"(%1#1, %1#0) : (f32, i32) -> ()\n"
                   "    \"x.br\"(%0)[^bb1] : (i32) -> ()\n"
                   "  ^bb1(%2: i32):  // pred: ^bb0\n"
                   "    %3 = \"x.region\"() ({\n"
                   "      %4 = \"x.in\"(%2) : (i32) -> i32\n"
                   "      \"x.yield\"(%4) : (i32) -> ()\n"
                   "    }, {\n"
                   "    ^bb0(%arg2: f32):\n"
                   "      \"x.yield\"(%arg2) : (f32) -> ()\n"
                   "    ^bb1:  // no predecessors\n"
                   "      \"x.foo\"() : () -> ()\n"
                   "    }) : () -> i32\n"
                   "    \"x.ret\"(%3) : (i32) -> ()\n"
                   "  }) : () -> ()\n"
                   "  \"x.func\"() ({\n"
                   "    %0 = \"x.c\"() : () -> i32\n"
                   "    \"x.cbr\"(%0)[^bb1, ^bb1] : (i32) -> ()\n"
                   "  ^bb1:  // 2 preds: ^bb0, ^bb0\n"
                   "    \"x.ret\"(%0) : (i32) -> ()\n"
                   "  }) : () -> ()\n"
                   "}) : () -> ()\n");
  free(got);
}
END_TEST

/* Three functions, the first with two sibling regions and a nested one (as "x.f" ops, the same
 * numbering as func.func in test/IR/print-names.kir): sibling regions reuse numbers in custom
 * form; the generic form numbers the last queued region first with one counter (mlir-opt). */
static kr_op *build_nested(void) {
  kr_op *module = mk(NULL, "builtin.module", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *mb = add_block(module, 0);
  for (int k = 0; k < 3; k++) {
    kr_op *f = mk(mb, "x.f", NULL, 0, NULL, 0, 1, NULL, 0);
    kr_block *fb = add_block(f, 0);
    mk(fb, "x.a", NULL, 0, &i32, 1, 0, NULL, 0);
    if (k == 0) {
      kr_op *r = mk(fb, "x.r", NULL, 0, NULL, 0, 2, NULL, 0);
      kr_block *r0 = add_block(r, 0), *r1 = add_block(r, 1);
      mk(r0, "x.b", NULL, 0, &i32, 1, 0, NULL, 0);
      kr_op *inner = mk(r0, "x.r", NULL, 0, NULL, 0, 1, NULL, 0);
      mk(add_block(inner, 0), "x.c", NULL, 0, &i32, 1, 0, NULL, 0);
      mk(r0, "x.b", NULL, 0, &i32, 1, 0, NULL, 0);
      mk(r1, "x.b", NULL, 0, &i32, 1, 0, NULL, 0);
      mk(fb, "x.a", NULL, 0, &i32, 1, 0, NULL, 0);
    }
  }
  return module;
}

START_TEST(nested_region_numbering) {
  kr_op *m = build_nested();
  char *got = print_op(m, false);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.f\"() ({\n"
                   "    %0 = \"x.a\"() : () -> i32\n"
                   "    \"x.r\"() ({\n"
                   "      %2 = \"x.b\"() : () -> i32\n"
                   "      \"x.r\"() ({\n"
                   "        %4 = \"x.c\"() : () -> i32\n"
                   "      }) : () -> ()\n"
                   "      %3 = \"x.b\"() : () -> i32\n"
                   "    }, {\n"
                   "      %2 = \"x.b\"() : () -> i32\n"
                   "    }) : () -> ()\n"
                   "    %1 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "  \"x.f\"() ({\n"
                   "    %0 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "  \"x.f\"() ({\n"
                   "    %0 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "}) : () -> ()\n");
  free(got);
  got = print_op(m, true);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.f\"() ({\n"
                   "    %2 = \"x.a\"() : () -> i32\n"
                   "    \"x.r\"() ({\n"
                   "      %5 = \"x.b\"() : () -> i32\n"
                   "      \"x.r\"() ({\n"
                   "        %7 = \"x.c\"() : () -> i32\n"
                   "      }) : () -> ()\n"
                   "      %6 = \"x.b\"() : () -> i32\n"
                   "    }, {\n"
                   "      %4 = \"x.b\"() : () -> i32\n"
                   "    }) : () -> ()\n"
                   "    %3 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "  \"x.f\"() ({\n"
                   "    %1 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "  \"x.f\"() ({\n"
                   "    %0 = \"x.a\"() : () -> i32\n"
                   "  }) : () -> ()\n"
                   "}) : () -> ()\n");
  free(got);
}
END_TEST

/* Empty regions and empty entry blocks (as mlir-opt prints `"x.top"() ({\n}) : () -> ()`). */
START_TEST(empty_regions_and_blocks) {
  kr_op *m = mk(NULL, "x.top", NULL, 0, NULL, 0, 1, NULL, 0);
  char *got = print_op(m, true);
  ck_assert_str_eq(got, "\"x.top\"() ({\n}) : () -> ()\n");
  free(got);
  kr_op *e = mk(NULL, "x.emptyblock", NULL, 0, NULL, 0, 2, NULL, 0);
  add_block(e, 0);
  mk(add_block(e, 1), "x.a", NULL, 0, NULL, 0, 0, NULL, 0);
  got = print_op(e, true);
  ck_assert_str_eq(got, "\"x.emptyblock\"() ({\n^bb0:\n}, {\n  \"x.a\"() : () -> ()\n}) : () -> ()\n");
  free(got);
}
END_TEST

/* As `mlir-opt --mlir-print-debuginfo --mlir-print-local-scope --mlir-print-op-generic` prints it. */
START_TEST(debuginfo_locations) {
  kr_op *m = mk(NULL, "builtin.module", NULL, 0, NULL, 0, 1, NULL, 0);
  m->loc = kr_loc_file(ctx, "u2.mlir", 0, 0);
  kr_op *f = mk(add_block(m, 0), "x.f", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *fb = add_block(f, 0);
  kr_value a = kr_block_add_arg(fb, i32, kr_loc_file(ctx, "f.kir", 3, 4));
  kr_op *x = mk(fb, "x.a", &a, 1, NULL, 0, 0, NULL, 0);
  x->loc = kr_loc_file(ctx, "f.kir", 1, 2);
  kr_print_flags flags = {.generic = true, .debuginfo = true};
  char *got = print_with(m, &flags);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.f\"() ({\n"
                   "  ^bb0(%arg0: i32 loc(\"f.kir\":3:4)):\n"
                   "    \"x.a\"(%arg0) : (i32) -> () loc(\"f.kir\":1:2)\n"
                   "  }) : () -> () loc(unknown)\n"
                   "}) : () -> () loc(\"u2.mlir\":0:0)\n");
  free(got);
}
END_TEST

/* A use of a value that is not below the printed op. */
START_TEST(unknown_values) {
  kr_op *outer = mk(NULL, "x.outer", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *ob = add_block(outer, 0);
  kr_op *def = mk(ob, "x.def", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_op *user = mk(ob, "x.user", (kr_value[]){kr_op_result(def, 0)}, 1, NULL, 0, 0, NULL, 0);
  char *got = print_op(user, true);
  ck_assert_str_eq(got, "\"x.user\"(<<UNKNOWN SSA VALUE>>) : (i32) -> ()\n");
  free(got);
  /* kr_op_print_in_context names values from the outermost (or isolated) ancestor. */
  kr_ostream os;
  kr_ostream_init_mem(&os);
  kr_op_print_in_context(user, &os, NULL);
  ck_assert_str_eq(kr_ostream_str(&os), "\"x.user\"(%0) : (i32) -> ()");
  kr_ostream_close(&os);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Types and attributes (expected text from mlir-opt, as in test/IR/print-attributes.kir). */

START_TEST(types) {
  int64_t d23[] = {KR_DYNAMIC, 3}, d1x3[] = {1, 3, 224, 224};
  CHECK_TYPE(i32, "i32");
  CHECK_TYPE(kr_type_integer(ctx, 8, KR_SIGNED), "si8");
  CHECK_TYPE(kr_type_integer(ctx, 16, KR_UNSIGNED), "ui16");
  CHECK_TYPE(idx, "index");
  CHECK_TYPE(kr_type_float(ctx, KR_F16), "f16");
  CHECK_TYPE(kr_type_float(ctx, KR_BF16), "bf16");
  CHECK_TYPE(f64, "f64");
  CHECK_TYPE(kr_type_none(ctx), "none");
  CHECK_TYPE(kr_type_tensor(ctx, d23, 2, f32), "tensor<?x3xf32>");
  CHECK_TYPE(kr_type_tensor(ctx, d1x3, 4, f32), "tensor<1x3x224x224xf32>");
  CHECK_TYPE(kr_type_tensor(ctx, NULL, 0, i32), "tensor<i32>");
  CHECK_TYPE(kr_type_unranked_tensor(ctx, f32), "tensor<*xf32>");
  CHECK_TYPE(kr_type_vector(ctx, NULL, 0, f32), "vector<f32>");
  CHECK_TYPE(kr_type_vector(ctx, (int64_t[]){4}, 1, f32), "vector<4xf32>");
  CHECK_TYPE(kr_type_function(ctx, (kr_type[]){i32, f32}, 2, &i1, 1), "(i32, f32) -> i1");
  CHECK_TYPE(kr_type_function(ctx, NULL, 0, NULL, 0), "() -> ()");
  kr_type i2 = kr_type_integer(ctx, 2, KR_SIGNLESS);
  kr_type inner = kr_type_function(ctx, &i1, 1, &i2, 1);
  CHECK_TYPE(kr_type_function(ctx, &i32, 1, &inner, 1), "(i32) -> ((i1) -> i2)");
  CHECK_TYPE(kr_type_function(ctx, &i32, 1, (kr_type[]){i32, i1}, 2), "(i32) -> (i32, i1)");
  CHECK_TYPE(kr_type_tuple(ctx, (kr_type[]){i32, f32}, 2), "tuple<i32, f32>");
  CHECK_TYPE(kr_type_opaque(ctx, "foo", "bar<x>", 6), "!foo.bar<x>");
  CHECK_TYPE(kr_type_opaque(ctx, "foo", "<\"a b\">", 7), "!foo<\"a b\">");
}
END_TEST

START_TEST(scalar_attrs) {
  CHECK_ATTR(kr_attr_integer(ctx, i32, 2), "2 : i32");
  CHECK_ATTR(kr_attr_integer(ctx, i64, 1), "1 : i64");
  CHECK_ATTR(kr_attr_integer(ctx, i64, -7), "-7 : i64");
  CHECK_ATTR(kr_attr_integer(ctx, kr_type_integer(ctx, 8, KR_UNSIGNED), 200), "200 : ui8");
  CHECK_ATTR(kr_attr_integer(ctx, kr_type_integer(ctx, 8, KR_UNSIGNED), 255), "255 : ui8");
  CHECK_ATTR(kr_attr_integer(ctx, kr_type_integer(ctx, 8, KR_SIGNED), -5), "-5 : si8");
  CHECK_ATTR(kr_attr_integer(ctx, idx, 7), "7 : index");
  CHECK_ATTR(kr_attr_integer(ctx, i1, 1), "true");
  CHECK_ATTR(kr_attr_integer(ctx, i1, 0), "false");
  CHECK_ATTR(kr_attr_bool(ctx, true), "true");
  CHECK_ATTR(kr_attr_bool(ctx, false), "false");
  CHECK_ATTR(kr_attr_unit(ctx), "unit");
  CHECK_ATTR(kr_attr_float(ctx, f64, 1.5), "1.500000e+00 : f64");
  CHECK_ATTR(kr_attr_float(ctx, f64, -0.0), "-0.000000e+00 : f64");
  CHECK_ATTR(kr_attr_float(ctx, f64, 1e100), "1.000000e+100 : f64");
  CHECK_ATTR(kr_attr_float(ctx, f64, 0.1), "1.000000e-01 : f64");
  CHECK_ATTR(kr_attr_float(ctx, f32, 0.1), "1.000000e-01 : f32");
  CHECK_ATTR(kr_attr_float(ctx, f64, 16777217.0), "0x4170000010000000 : f64");
  CHECK_ATTR(kr_attr_float(ctx, f32, 123456789.0), "0x4CEB79A3 : f32");
  CHECK_ATTR(kr_attr_float(ctx, f32, 1.0e-5), "9.99999974E-6 : f32");
  CHECK_ATTR(kr_attr_float(ctx, f32, 3.14159265), "3.14159274 : f32");
  CHECK_ATTR(kr_attr_float(ctx, kr_type_float(ctx, KR_F16), 1.5), "1.500000e+00 : f16");
  CHECK_ATTR(kr_attr_float(ctx, kr_type_float(ctx, KR_BF16), 1.5), "1.500000e+00 : bf16");
  CHECK_ATTR(kr_attr_float(ctx, f32, NAN), "0x7FC00000 : f32");
  CHECK_ATTR(kr_attr_float(ctx, f32, INFINITY), "0x7F800000 : f32");
  CHECK_ATTR(kr_attr_float(ctx, f32, -INFINITY), "0xFF800000 : f32");
  CHECK_ATTR(kr_attr_string(ctx, "s\n\"q\\", 5), "\"s\\0A\\22q\\\\\"");
  CHECK_ATTR(kr_attr_string(ctx, "\xc3\xa9", 2), "\"\\C3\\A9\"");
  CHECK_ATTR(kr_attr_string_typed(ctx, "t", 1, i32), "\"t\" : i32");
  CHECK_ATTR(kr_attr_type(ctx, i32), "i32");
  CHECK_ATTR(kr_attr_symbol_ref(ctx, "s", NULL, 0), "@s");
  kr_ident nested[] = {kr_ident_cstr(ctx, "b"), kr_ident_cstr(ctx, "c")};
  CHECK_ATTR(kr_attr_symbol_ref(ctx, "a", nested, 2), "@a::@b::@c");
  CHECK_ATTR(kr_attr_symbol_ref(ctx, "foo bar", NULL, 0), "@\"foo bar\"");
  CHECK_ATTR(kr_attr_opaque(ctx, "foo", "baz<\"q\">", 8), "#foo.baz<\"q\">");
  CHECK_ATTR(kr_loc_file(ctx, "f.mlir", 1, 2), "loc(\"f.mlir\":1:2)");
}
END_TEST

START_TEST(aggregate_attrs) {
  kr_attr elems[] = {kr_attr_integer(ctx, i64, 1), kr_attr_float(ctx, f64, 2.0), kr_attr_string(ctx, "x", 1),
                     kr_attr_symbol_ref(ctx, "s", NULL, 0), kr_attr_type(ctx, i32), kr_attr_unit(ctx),
                     kr_attr_integer(ctx, i32, 3), kr_attr_float(ctx, f32, 2.0)};
  CHECK_ATTR(kr_attr_array(ctx, elems, 8), "[1, 2.000000e+00, \"x\", @s, i32, unit, 3 : i32, 2.000000e+00 : f32]");
  CHECK_ATTR(kr_attr_array(ctx, NULL, 0), "[]");
  kr_named_attr entries[] = {{kr_ident_cstr(ctx, "z"), kr_attr_integer(ctx, i64, 1)},
                             {kr_ident_cstr(ctx, "a"), kr_attr_unit(ctx)},
                             {kr_ident_cstr(ctx, "weird key"), kr_attr_integer(ctx, i32, 1)}};
  CHECK_ATTR(kr_attr_dict(ctx, entries, 3), "{a, \"weird key\" = 1 : i32, z = 1 : i64}");
  CHECK_ATTR(kr_attr_dict_empty(ctx), "{}");
  int64_t a64[] = {1, 2};
  CHECK_ATTR(kr_attr_dense_array(ctx, i64, a64, 2), "array<i64: 1, 2>");
  CHECK_ATTR(kr_attr_dense_array(ctx, i64, NULL, 0), "array<i64>");
  float af[] = {1.0f, 2.5f};
  CHECK_ATTR(kr_attr_dense_array(ctx, f32, af, 2), "array<f32: 1.000000e+00, 2.500000e+00>");
  uint8_t ab[] = {1};
  CHECK_ATTR(kr_attr_dense_array(ctx, i1, ab, 1), "array<i1: true>");
  int8_t a8[] = {-1, 2};
  CHECK_ATTR(kr_attr_dense_array(ctx, i8, a8, 2), "array<i8: -1, 2>");
}
END_TEST

START_TEST(dense_attrs) {
  float m22[] = {1, 2, 3, 4.5f};
  kr_type t22 = kr_type_tensor(ctx, (int64_t[]){2, 2}, 2, f32);
  CHECK_ATTR(kr_attr_dense(ctx, t22, m22, sizeof m22),
             "dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.500000e+00]]> : tensor<2x2xf32>");
  int32_t one = 1;
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){4}, 1, i32), &one, 4), "dense<1> : tensor<4xi32>");
  uint8_t bools[] = {1, 0};
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, i1), bools, 2),
             "dense<[true, false]> : tensor<2xi1>");
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){0}, 1, f32), NULL, 0), "dense<> : tensor<0xf32>");
  int8_t v3[] = {1, 2, 3};
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_vector(ctx, (int64_t[]){3}, 1, i8), v3, 3), "dense<[1, 2, 3]> : vector<3xi8>");
  uint16_t u22[] = {1, 2, 3, 65535};
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2, 2}, 2, kr_type_integer(ctx, 16, KR_UNSIGNED)), u22, 8),
             "dense<[[1, 2], [3, 65535]]> : tensor<2x2xui16>");
  float five = 5;
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, NULL, 0, f32), &five, 4), "dense<5.000000e+00> : tensor<f32>");
  int64_t ix[] = {1, -2};
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, idx), ix, 16), "dense<[1, -2]> : tensor<2xindex>");
  int8_t s8[] = {-1, 2};
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, kr_type_integer(ctx, 8, KR_SIGNED)), s8, 2),
             "dense<[-1, 2]> : tensor<2xsi8>");
  uint16_t h[] = {0x3E00, 0x4000};   /* f16 1.5, 2.0 */
  CHECK_ATTR(kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, kr_type_float(ctx, KR_F16)), h, 4),
             "dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf16>");
}
END_TEST

/* Above the threshold, raw little-endian bytes in hex (as mlir-opt
 * -mlir-print-elementsattrs-with-hex-if-larger=1 prints them); i1 bit-packed as in MLIR. */
START_TEST(dense_hex) {
  kr_op *op = mk(NULL, "x.c", NULL, 0, NULL, 0, 0, NULL, 0);
  uint8_t bits[] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  int8_t b10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  int64_t ix[] = {1, -2};
  float two[] = {1.0f, 2.0f};
  float splat[] = {1, 1, 1, 1};
  kr_op_set_attr(op, "a", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){10}, 1, i1), bits, 10));
  kr_op_set_attr(op, "b", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){10}, 1, i8), b10, 10));
  kr_op_set_attr(op, "c", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, idx), ix, 16));
  kr_op_set_attr(op, "d", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){2}, 1, f32), two, 8));
  kr_op_set_attr(op, "e", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){4}, 1, f32), splat, 16));
  kr_print_flags flags = {.generic = true, .hex_threshold = 1};
  char *got = print_with(op, &flags);
  ck_assert_str_eq(got, "\"x.c\"() {a = dense<\"0x0D03\"> : tensor<10xi1>, "
                        "b = dense<\"0x0102030405060708090A\"> : tensor<10xi8>, "
                        "c = dense<\"0x0100000000000000FEFFFFFFFFFFFFFF\"> : tensor<2xindex>, "
                        "d = dense<\"0x0000803F00000040\"> : tensor<2xf32>, "
                        "e = dense<1.000000e+00> : tensor<4xf32>} : () -> ()\n");
  free(got);
  /* The default threshold is 4096 bytes: 1024 f32 print as a list, 1025 as hex. */
  float *big = calloc(1025, sizeof(float));
  big[1] = 1;
  kr_op_set_attr(op, "a", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){1024}, 1, f32), big, 4096));
  kr_op_set_attr(op, "b", kr_attr_dense(ctx, kr_type_tensor(ctx, (int64_t[]){1025}, 1, f32), big, 4100));
  got = print_op(op, true);
  ck_assert_ptr_nonnull(strstr(got, "a = dense<[0.000000e+00, 1.000000e+00, 0.000000e+00,"));
  ck_assert_ptr_nonnull(strstr(got, "b = dense<\"0x000000000000803F0000"));
  free(got);
  free(big);
}
END_TEST

/* dense_resource and the trailing section (as mlir-opt prints them). */
START_TEST(resources_section) {
  float data[] = {1, 2, 3};
  const kr_resource *r = kr_resource_create(ctx, "blob1", data, sizeof data, 4);
  uint8_t one = 1;
  const kr_resource *r2 = kr_resource_create(ctx, "blob_2.x", &one, 1, 1);
  ck_assert_ptr_nonnull(r);
  kr_op *m = mk(NULL, "builtin.module", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_op *op = mk(add_block(m, 0), "x.c", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op_set_attr(op, "a", kr_attr_resource(ctx, kr_type_tensor(ctx, (int64_t[]){3}, 1, f32), r));
  kr_op_set_attr(op, "b", kr_attr_resource(ctx, kr_type_tensor(ctx, (int64_t[]){1}, 1, i8), r2));
  kr_op_set_attr(op, "c", kr_attr_resource(ctx, kr_type_tensor(ctx, (int64_t[]){3}, 1, f32), r));
  char *got = print_op(m, true);
  ck_assert_str_eq(got,
                   "\"builtin.module\"() ({\n"
                   "  \"x.c\"() {a = dense_resource<blob1> : tensor<3xf32>, b = dense_resource<blob_2.x> : "
                   "tensor<1xi8>, c = dense_resource<blob1> : tensor<3xf32>} : () -> ()\n"
                   "}) : () -> ()\n"
                   "\n"
                   "{-#\n"
                   "  dialect_resources: {\n"
                   "    builtin: {\n"
                   "      blob1: \"0x040000000000803F0000004000004040\",\n"
                   "      blob_2.x: \"0x0100000001\"\n"
                   "    }\n"
                   "  }\n"
                   "#-}\n");
  free(got);
  /* A lone attribute prints the reference only. */
  CHECK_ATTR(kr_attr_resource(ctx, kr_type_tensor(ctx, (int64_t[]){3}, 1, f32), r), "dense_resource<blob1> : tensor<3xf32>");
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * The registered func/builtin custom forms. */

START_TEST(custom_forms) {
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  /* Ops of `func` drop their prefix directly inside func.func only (as mlir-opt prints them). */
  const char *src = "module {\n"
                    "  func.func private @callee(i32) -> i32\n"
                    "  func.func @f(%a: i32, %c: i1) -> i32 {\n"
                    "    %0 = func.call @callee(%a) : (i32) -> i32\n"
                    "    \"x.r\"() ({\n"
                    "      %1 = func.call @callee(%0) : (i32) -> i32\n"
                    "      \"x.t\"() : () -> ()\n"
                    "    }) : () -> ()\n"
                    "    func.return %0 : i32\n"
                    "  }\n"
                    "}\n";
  kr_op *m = kr_parse_source(ctx, "t.kir", src, strlen(src), false);
  ck_assert_ptr_nonnull(m);
  char *got = print_op(m, false);
  ck_assert_str_eq(got,
                   "module {\n"
                   "  func.func private @callee(i32) -> i32\n"
                   "  func.func @f(%arg0: i32, %arg1: i1) -> i32 {\n"
                   "    %0 = call @callee(%arg0) : (i32) -> i32\n"
                   "    \"x.r\"() ({\n"
                   "      %1 = func.call @callee(%0) : (i32) -> i32\n"
                   "      \"x.t\"() : () -> ()\n"
                   "    }) : () -> ()\n"
                   "    return %0 : i32\n"
                   "  }\n"
                   "}\n");
  free(got);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * The verifier. */

typedef struct diag_log {
  kr_ostream os;
} diag_log;

static void log_handler(const kr_diagnostic *d, void *user) {
  diag_log *log = user;
  static const char *const sev[] = {"error", "warning", "remark", "note"};
  kr_ostream_printf(&log->os, "%s: %s\n", sev[d->severity], d->message);
  for (const kr_diagnostic *n = d->notes; n; n = n->next) kr_ostream_printf(&log->os, "  note: %s\n", n->message);
}

static diag_log logv;

static void vsetup(void) {
  setup();
  ck_assert_int_eq(kr_register_core_dialects(ctx), KR_SUCCESS);
  ck_assert_int_eq(kr_register_test_dialect(ctx), KR_SUCCESS);
  kr_ostream_init_mem(&logv.os);
  kr_context_set_diag_handler(ctx, log_handler, &logv);
}

static void vteardown(void) {
  kr_ostream_close(&logv.os);
  teardown();
}

START_TEST(verify_dominance_same_block) {
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b = add_block(r, 0);
  kr_op *use = mk(b, "x.use", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op *def = mk(b, "x.def", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_value v = kr_op_result(def, 0);
  kr_op_set_operands(use, &v, 1);
  mk(b, "test.yield", NULL, 0, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(r), KR_FAILURE);
  ck_assert_str_eq(kr_ostream_str(&logv.os), "error: operand #0 does not dominate this use\n"
                                             "  note: operand defined here (op in the same block)\n");
}
END_TEST

START_TEST(verify_dominance_across_blocks) {
  /* ^bb0 -> ^bb2, ^bb1 (unreachable) defines %0 and branches to ^bb2, which uses it; uses in
   * the unreachable block itself are not checked. */
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b0 = add_block(r, 0), *b1 = add_block(r, 0), *b2 = add_block(r, 0);
  mk(b0, "test.br", NULL, 0, NULL, 0, 0, &b2, 1);
  kr_op *late = mk(b1, "x.late", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op *def = mk(b1, "x.def", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_value v = kr_op_result(def, 0);
  kr_op_set_operands(late, &v, 1);
  mk(b1, "test.br", NULL, 0, NULL, 0, 0, &b2, 1);
  mk(b2, "test.yield", &v, 1, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(r), KR_FAILURE);
  ck_assert_str_eq(kr_ostream_str(&logv.os), "error: operand #0 does not dominate this use\n"
                                             "  note: operand defined here (op in the same region)\n");
}
END_TEST

START_TEST(verify_loop_dominance_ok) {
  /* ^bb0 -> ^bb1; ^bb1 defines %0 and loops to itself or exits to ^bb2 which uses %0, and a
   * nested region in ^bb2 uses it too: all dominated. */
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b0 = add_block(r, 0), *b1 = add_block(r, 0), *b2 = add_block(r, 0);
  mk(b0, "test.br", NULL, 0, NULL, 0, 0, &b1, 1);
  kr_op *def = mk(b1, "x.def", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_value v = kr_op_result(def, 0);
  mk(b1, "x.cond_br", &v, 1, NULL, 0, 0, (kr_block *[]){b1, b2}, 2);
  kr_op *inner = mk(b2, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  mk(add_block(inner, 0), "test.yield", &v, 1, NULL, 0, 0, NULL, 0);
  mk(b2, "test.yield", &v, 1, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(r), KR_SUCCESS);
  ck_assert_str_eq(kr_ostream_str(&logv.os), "");
}
END_TEST

START_TEST(verify_isolation_and_structure) {
  kr_op *m = mk(NULL, "builtin.module", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *mb = add_block(m, 0);
  kr_op *c = mk(mb, "test.side_effect", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_op *iso = mk(mb, "test.isolated", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *ib = add_block(iso, 0);
  kr_value v = kr_op_result(c, 0);
  mk(ib, "test.yield", &v, 1, NULL, 0, 0, NULL, 0);
  mk(mb, "test.two_operands", &v, 1, &i32, 1, 0, NULL, 0);
  kr_op *s1 = mk(mb, "test.symbol", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op_set_attr(s1, "sym_name", kr_attr_string(ctx, "foo", 3));
  kr_op *s2 = mk(mb, "test.symbol", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op_set_attr(s2, "sym_name", kr_attr_string(ctx, "foo", 3));
  mk(mb, "test.symbol", NULL, 0, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(m), KR_FAILURE);
  ck_assert_str_eq(kr_ostream_str(&logv.os),
                   "error: redefinition of symbol named 'foo'\n"
                   "  note: see existing symbol definition here\n"
                   "error: 'test.yield' op using value defined outside the region\n"
                   "  note: required by region isolation constraints\n"
                   "error: 'test.two_operands' op expected 2 operands, but found 1\n"
                   "error: 'test.symbol' op requires string attribute 'sym_name'\n");
}
END_TEST

START_TEST(verify_terminators) {
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b = add_block(r, 0);
  mk(b, "test.yield", NULL, 0, NULL, 0, 0, NULL, 0);
  kr_op *c = mk(b, "test.side_effect", NULL, 0, &i32, 1, 0, NULL, 0);
  (void)c;
  ck_assert_int_eq(kr_op_verify(r), KR_FAILURE);
  ck_assert_str_eq(kr_ostream_str(&logv.os),
                   "error: block with no terminator, has %0 = \"test.side_effect\"() : () -> i32\n"
                   "error: 'test.yield' op must be the last operation in the parent block\n");
}
END_TEST

START_TEST(verify_unregistered) {
  kr_context_set_allow_unregistered(ctx, false);
  kr_op *a = mk(NULL, "x.y", NULL, 0, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(a), KR_FAILURE);
  kr_op *b = mk(NULL, "test.nope", NULL, 0, NULL, 0, 0, NULL, 0);
  ck_assert_int_eq(kr_op_verify(b), KR_FAILURE);
  kr_context_set_allow_unregistered(ctx, true);
  ck_assert_int_eq(kr_op_verify(a), KR_SUCCESS);
  ck_assert_str_eq(kr_ostream_str(&logv.os),
                   "error: 'x.y' op created with unregistered dialect. If this is intended, please call "
                   "kr_context_set_allow_unregistered() on the context, or use --allow-unregistered-dialect "
                   "with the korch-opt tool used\n"
                   "error: unregistered operation 'test.nope' found in dialect ('test') that does not allow "
                   "unknown operations\n");
}
END_TEST

/* What the parser cannot express: successors in another region, successors of non-terminators. */
START_TEST(verify_successors) {
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b0 = add_block(r, 0), *b1 = add_block(r, 0);
  kr_op *inner = mk(b0, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  mk(add_block(inner, 0), "test.br", NULL, 0, NULL, 0, 0, &b1, 1);
  mk(b0, "test.pure", NULL, 0, NULL, 0, 0, &b1, 1);
  mk(b1, "x.br", NULL, 0, NULL, 0, 0, &b0, 1);
  kr_op *other = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *ob = add_block(other, 0);
  mk(ob, "x.jump", NULL, 0, NULL, 0, 0, &b1, 1);
  ck_assert_int_eq(kr_op_verify(r), KR_FAILURE);
  ck_assert_int_eq(kr_op_verify(other), KR_FAILURE);
  ck_assert_str_eq(kr_ostream_str(&logv.os),
                   "error: entry block of region may not have predecessors\n"
                   "error: block with no terminator, has \"test.pure\"()[^bb1] : () -> ()\n"
                   "error: reference to block defined in another region\n"
                   "error: 'test.pure' op requires 0 successors but found 1\n"
                   "error: 'x.jump' op branching to block of a different region\n");
}
END_TEST

/* Verification leaves the IR printable with the same names, and printing leaves it verifiable
 * (the printer reuses kr_op::order, the verifier recomputes it). */
START_TEST(verify_after_print) {
  kr_op *r = mk(NULL, "test.region", NULL, 0, NULL, 0, 1, NULL, 0);
  kr_block *b = add_block(r, 0);
  kr_op *a = mk(b, "test.pure", NULL, 0, &i32, 1, 0, NULL, 0);
  kr_op *c = mk(b, "test.pure", (kr_value[]){kr_op_result(a, 0)}, 1, &i32, 1, 0, NULL, 0);
  mk(b, "test.yield", (kr_value[]){kr_op_result(c, 0)}, 1, NULL, 0, 0, NULL, 0);
  char *first = print_op(r, false);
  ck_assert_int_eq(kr_op_verify(r), KR_SUCCESS);
  char *second = print_op(r, false);
  ck_assert_str_eq(first, second);
  ck_assert_int_eq(kr_op_verify(r), KR_SUCCESS);
  /* Moving the use before its definition is caught even though the orders were scratched. */
  kr_op_move_before(c, a);
  ck_assert_int_eq(kr_op_verify(r), KR_FAILURE);
  free(first);
  free(second);
}
END_TEST

int main(void) {
  Suite *s = suite_create("printer");
  TCase *tc = tcase_create("printer");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, generic_names_match_mlir_opt);
  tcase_add_test(tc, custom_form_names_restart_per_region);
  tcase_add_test(tc, nested_region_numbering);
  tcase_add_test(tc, empty_regions_and_blocks);
  tcase_add_test(tc, debuginfo_locations);
  tcase_add_test(tc, unknown_values);
  tcase_add_test(tc, types);
  tcase_add_test(tc, scalar_attrs);
  tcase_add_test(tc, aggregate_attrs);
  tcase_add_test(tc, dense_attrs);
  tcase_add_test(tc, dense_hex);
  tcase_add_test(tc, resources_section);
  tcase_add_test(tc, custom_forms);
  suite_add_tcase(s, tc);
  TCase *tv = tcase_create("verifier");
  tcase_add_checked_fixture(tv, vsetup, vteardown);
  tcase_add_test(tv, verify_dominance_same_block);
  tcase_add_test(tv, verify_dominance_across_blocks);
  tcase_add_test(tv, verify_loop_dominance_ok);
  tcase_add_test(tv, verify_isolation_and_structure);
  tcase_add_test(tv, verify_terminators);
  tcase_add_test(tv, verify_unregistered);
  tcase_add_test(tv, verify_successors);
  tcase_add_test(tv, verify_after_print);
  suite_add_tcase(s, tv);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
