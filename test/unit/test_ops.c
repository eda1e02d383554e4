/* Unit tests: operations, values and use lists, blocks, regions, the builder and walkers
 * (korch/ir.h).  The expected behaviour is MLIR's (Operation, Block, Region, OpBuilder). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "korch/dialect.h"
#include "korch/ir.h"

static kr_context *ctx;
static kr_type i32;

static const kr_op_def t_ops[] = {
    {.name = "t.term", .traits = KR_TRAIT_TERMINATOR, .num_operands = KR_VARIADIC},
    {.name = "t.pure", .traits = KR_TRAIT_PURE | KR_TRAIT_COMMUTATIVE, .num_operands = 2, .num_results = 1},
};
static const kr_dialect_def t_dialect = {.name = "t", .ops = t_ops, .num_ops = 2};

static void setup(void) {
  ctx = kr_context_create();
  ck_assert_int_eq(kr_context_register_dialect(ctx, &t_dialect), KR_SUCCESS);
  i32 = kr_type_integer(ctx, 32, KR_SIGNLESS);
}
static void teardown(void) { kr_context_destroy(ctx); }

/* Creates a detached op `name` with `n` operands and `nres` i32 results. */
static kr_op *mk(const char *name, const kr_value *ops, unsigned n, unsigned nres) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_op_state_add_operands(&st, ops, n);
  for (unsigned i = 0; i < nres; i++) kr_op_state_add_results(&st, &i32, 1);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  return op;
}

/* Op with one region holding one empty block; returns the block through *body. */
static kr_op *mk_region_op(const char *name, kr_block **body) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, name, NULL);
  kr_region *r = kr_op_state_add_region(&st);
  kr_block *b = kr_block_create(ctx);
  kr_region_append_block(r, b);
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  *body = op->regions[0].first;
  ck_assert_ptr_eq(*body, b);
  return op;
}

/* Counts uses of `v`, checking the back-pointers on the way. */
static unsigned count_uses(kr_value v) {
  unsigned n = 0;
  kr_use **link = &v->first_use;
  for (kr_use *u = v->first_use; u; u = u->next) {
    ck_assert_ptr_eq(u->prev_next, link);
    ck_assert_ptr_eq(u->value, v);
    ck_assert_ptr_eq(&u->owner->operands[u->index], u);
    link = &u->next;
    n++;
  }
  return n;
}

START_TEST(create_basic) {
  kr_op *c = mk("t.const", NULL, 0, 2);
  ck_assert_ptr_nonnull(c);
  ck_assert_str_eq(c->name, "t.const");
  ck_assert_ptr_null(c->def);
  ck_assert(!kr_op_is_registered(c));
  ck_assert_ptr_eq(c->loc, kr_loc_unknown(ctx));
  ck_assert_ptr_eq(c->attrs, kr_attr_dict_empty(ctx));
  ck_assert_ptr_eq(kr_op_context(c), ctx);
  ck_assert_uint_eq(c->num_results, 2);
  kr_value r0 = kr_op_result(c, 0), r1 = kr_op_result(c, 1);
  ck_assert_ptr_eq(kr_value_defining_op(r1), c);
  ck_assert_uint_eq(r1->index, 1);
  ck_assert(!r0->is_block_arg);
  ck_assert_ptr_eq(kr_value_type(r0), i32);
  kr_value ops[] = {r0, r1};
  kr_op *add = mk("t.pure", ops, 2, 1);
  ck_assert(kr_op_is_registered(add));
  ck_assert(kr_op_has_trait(add, KR_TRAIT_PURE));
  ck_assert(kr_op_has_trait(add, KR_TRAIT_PURE | KR_TRAIT_COMMUTATIVE));
  ck_assert(!kr_op_has_trait(add, KR_TRAIT_TERMINATOR));
  ck_assert(!kr_op_has_trait(c, KR_TRAIT_PURE));
  ck_assert_ptr_eq(add->def->dialect, kr_context_lookup_dialect(ctx, "t", 1));
  ck_assert_ptr_eq(kr_op_operand(add, 1), r1);
  ck_assert(kr_value_has_one_use(r0));
  ck_assert_ptr_eq(r0->first_use->owner, add);
  ck_assert_uint_eq(r0->first_use->index, 0);
  ck_assert(!kr_op_use_empty(c));
  ck_assert(kr_op_use_empty(add));
  ck_assert_ptr_eq(kr_op_context(add), ctx);
}
END_TEST

START_TEST(use_lists_and_rauw) {
  kr_op *a = mk("t.a", NULL, 0, 1), *b = mk("t.b", NULL, 0, 1);
  kr_value va = kr_op_result(a, 0), vb = kr_op_result(b, 0);
  kr_op *users[5];
  for (int i = 0; i < 5; i++) {
    kr_value ops[] = {va, va, vb};
    users[i] = mk("t.user", ops, 3, 0);
  }
  ck_assert_uint_eq(count_uses(va), 10);
  ck_assert_uint_eq(count_uses(vb), 5);
  ck_assert(!kr_value_has_one_use(va));
  /* Unlink a use in the middle of the list. */
  kr_op_set_operand(users[2], 0, vb);
  ck_assert_uint_eq(count_uses(va), 9);
  ck_assert_uint_eq(count_uses(vb), 6);
  kr_value_replace_all_uses(va, vb);
  ck_assert_uint_eq(count_uses(va), 0);
  ck_assert(!kr_value_has_uses(va));
  ck_assert_uint_eq(count_uses(vb), 15);
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 3; k++) ck_assert_ptr_eq(kr_op_operand(users[i], k), vb);
  kr_value_replace_all_uses(vb, vb);
  ck_assert_uint_eq(count_uses(vb), 15);
  kr_value_replace_all_uses(va, vb); /* no uses: no-op */
  ck_assert_uint_eq(count_uses(vb), 15);
  kr_value_set_type(va, kr_type_index(ctx));
  ck_assert_ptr_eq(kr_value_type(va), kr_type_index(ctx));
}
END_TEST

START_TEST(set_operands) {
  kr_op *a = mk("t.a", NULL, 0, 3);
  kr_value v0 = kr_op_result(a, 0), v1 = kr_op_result(a, 1), v2 = kr_op_result(a, 2);
  kr_value ops[] = {v0, v1};
  kr_op *u = mk("t.user", ops, 2, 0);
  kr_op *other = mk("t.user", ops, 2, 0);
  kr_value grow[] = {v2, v2, v1, v0, v0};
  kr_op_set_operands(u, grow, 5);
  ck_assert_uint_eq(u->num_operands, 5);
  for (unsigned i = 0; i < 5; i++) {
    ck_assert_ptr_eq(kr_op_operand(u, i), grow[i]);
    ck_assert_uint_eq(u->operands[i].index, i);
    ck_assert_ptr_eq(u->operands[i].owner, u);
  }
  ck_assert_uint_eq(count_uses(v0), 3);
  ck_assert_uint_eq(count_uses(v1), 2);
  ck_assert_uint_eq(count_uses(v2), 2);
  kr_value shrink[] = {v1};
  kr_op_set_operands(u, shrink, 1);
  ck_assert_uint_eq(u->num_operands, 1);
  ck_assert_uint_eq(count_uses(v0), 1);
  ck_assert_uint_eq(count_uses(v1), 2);
  ck_assert_uint_eq(count_uses(v2), 0);
  kr_op_set_operands(u, NULL, 0);
  ck_assert_uint_eq(u->num_operands, 0);
  ck_assert_uint_eq(count_uses(v1), 1);
  ck_assert_ptr_eq(v1->first_use->owner, other);
}
END_TEST

START_TEST(insertion_and_order) {
  kr_block *b = kr_block_create(ctx);
  enum { N = 200 };
  kr_op *ops[N];
  /* Build a block by mixing appends, prepends and inserts in the middle, tracking the intended
   * order in an array, then compare kr_op_is_before_in_block with array positions. */
  kr_op *seq[N];
  int len = 0;
  for (int i = 0; i < N; i++) {
    ops[i] = mk("t.x", NULL, 0, 0);
    int pos;
    if (len == 0 || i % 3 == 0) {
      kr_block_append_op(b, ops[i]);
      pos = len;
    } else if (i % 3 == 1) {
      kr_block_prepend_op(b, ops[i]);
      pos = 0;
    } else {
      pos = len / 2;
      kr_op_insert_before(ops[i], seq[pos]);
    }
    memmove(&seq[pos + 1], &seq[pos], (size_t)(len - pos) * sizeof(kr_op *));
    seq[pos] = ops[i];
    len++;
    ck_assert_ptr_eq(ops[i]->block, b);
  }
  int k = 0;
  for (kr_op *o = b->first; o; o = o->next, k++) ck_assert_ptr_eq(o, seq[k]);
  ck_assert_int_eq(k, N);
  ck_assert_uint_eq(kr_block_num_ops(b), N);
  ck_assert_ptr_eq(b->last, seq[N - 1]);
  for (int i = 0; i < N; i += 7)
    for (int j = 0; j < N; j += 5) ck_assert_int_eq(kr_op_is_before_in_block(seq[i], seq[j]), i < j);
  /* insert_after, move_before, remove. */
  kr_op *x = mk("t.y", NULL, 0, 0);
  kr_op_insert_after(x, seq[10]);
  ck_assert_ptr_eq(seq[10]->next, x);
  ck_assert(kr_op_is_before_in_block(seq[10], x) && kr_op_is_before_in_block(x, seq[11]));
  kr_op_move_before(x, seq[0]);
  ck_assert_ptr_eq(b->first, x);
  ck_assert(kr_op_is_before_in_block(x, seq[0]));
  kr_op_move_before(seq[N - 1], seq[5]);
  ck_assert(kr_op_is_before_in_block(seq[N - 1], seq[5]));
  ck_assert(kr_op_is_before_in_block(seq[4], seq[N - 1]));
  ck_assert_ptr_eq(b->last, seq[N - 2]);
  kr_op_remove(x);
  ck_assert_ptr_null(x->block);
  ck_assert_ptr_eq(b->first, seq[0]);
  ck_assert_ptr_null(seq[0]->prev);
  ck_assert_uint_eq(kr_block_num_ops(b), N);
  /* Many inserts at the same place exhaust the numbering gaps; order must stay right. */
  kr_op *anchor = seq[100], *prev = seq[99];
  for (int i = 0; i < 40; i++) {
    kr_op *y = mk("t.z", NULL, 0, 0);
    kr_op_insert_before(y, anchor);
    ck_assert(kr_op_is_before_in_block(prev, y));
    ck_assert(kr_op_is_before_in_block(y, anchor));
    prev = y;
  }
}
END_TEST

START_TEST(block_args_and_terminator) {
  kr_block *b = kr_block_create(ctx);
  ck_assert(!kr_block_is_entry(b));
  kr_value args[10];
  for (int i = 0; i < 10; i++) args[i] = kr_block_add_arg(b, i % 2 ? i32 : kr_type_index(ctx), NULL);
  ck_assert_uint_eq(b->num_args, 10);
  for (unsigned i = 0; i < 10; i++) {
    ck_assert_ptr_eq(b->args[i], args[i]);
    ck_assert(args[i]->is_block_arg);
    ck_assert_uint_eq(args[i]->index, i);
    ck_assert_ptr_eq(kr_value_parent_block(args[i]), b);
    ck_assert_ptr_null(kr_value_defining_op(args[i]));
  }
  kr_block_erase_arg(b, 3);
  ck_assert_uint_eq(b->num_args, 9);
  ck_assert_ptr_eq(b->args[3], args[4]);
  ck_assert_uint_eq(args[4]->index, 3);
  ck_assert_uint_eq(args[9]->index, 8);
  kr_op *x = mk("t.x", &args[0], 1, 1);
  kr_block_append_op(b, x);
  ck_assert_ptr_eq(kr_value_parent_block(kr_op_result(x, 0)), b);
  ck_assert_ptr_null(kr_block_terminator(b));
  kr_op *t = mk("t.term", &args[1], 1, 0);
  kr_block_append_op(b, t);
  ck_assert_ptr_eq(kr_block_terminator(b), t);
  kr_region *r = kr_region_create(ctx);
  ck_assert(kr_region_empty(r));
  kr_region_append_block(r, b);
  ck_assert(kr_block_is_entry(b));
  ck_assert_ptr_null(kr_block_parent_op(b));
}
END_TEST

START_TEST(regions_and_parents) {
  kr_block *body;
  kr_op *outer = mk_region_op("t.outer", &body);
  ck_assert_uint_eq(outer->num_regions, 1);
  ck_assert_ptr_eq(kr_op_region(outer, 0), &outer->regions[0]);
  ck_assert_ptr_null(kr_op_region(outer, 1));
  ck_assert_ptr_eq(outer->regions[0].parent, outer);
  ck_assert_ptr_eq(body->region, &outer->regions[0]);
  kr_block *inner_body;
  kr_op *inner = mk_region_op("t.inner", &inner_body);
  kr_block_append_op(body, inner);
  kr_op *leaf = mk("t.leaf", NULL, 0, 0);
  kr_block_append_op(inner_body, leaf);
  ck_assert_ptr_eq(kr_op_parent_op(leaf), inner);
  ck_assert_ptr_eq(kr_op_parent_op(inner), outer);
  ck_assert_ptr_null(kr_op_parent_op(outer));
  ck_assert_ptr_eq(kr_block_parent_op(inner_body), inner);
  ck_assert(kr_op_is_ancestor(outer, leaf));
  ck_assert(kr_op_is_ancestor(leaf, leaf));
  ck_assert(!kr_op_is_ancestor(leaf, outer));
  /* Region block list operations. */
  kr_region *r = &outer->regions[0];
  kr_block *b2 = kr_block_create(ctx), *b3 = kr_block_create(ctx), *b0 = kr_block_create(ctx);
  kr_region_append_block(r, b3);
  kr_region_insert_block_after(r, body, b2);
  kr_region_insert_block_after(r, NULL, b0);
  ck_assert_uint_eq(kr_region_num_blocks(r), 4);
  ck_assert_ptr_eq(r->first, b0);
  ck_assert_ptr_eq(b0->next, body);
  ck_assert_ptr_eq(body->next, b2);
  ck_assert_ptr_eq(b2->next, b3);
  ck_assert_ptr_eq(r->last, b3);
  ck_assert_ptr_eq(b3->prev, b2);
  kr_region_remove_block(r, b0);
  ck_assert_ptr_null(b0->region);
  ck_assert_ptr_eq(r->first, body);
  ck_assert_ptr_null(body->prev);
  kr_region *other = kr_region_create(ctx);
  kr_region_append_block(other, b0);
  kr_region_take_body(other, r);
  ck_assert(kr_region_empty(r));
  ck_assert_uint_eq(kr_region_num_blocks(other), 4);
  ck_assert_ptr_eq(other->first, b0);
  ck_assert_ptr_eq(b0->next, body);
  ck_assert_ptr_eq(body->region, other);
  ck_assert_ptr_eq(other->last, b3);
}
END_TEST

START_TEST(create_moves_regions_and_attrs) {
  kr_op_state st;
  kr_op_state_init(&st, ctx, "t.r", kr_loc_file(ctx, "f.kir", 1, 2));
  kr_region *r0 = kr_op_state_add_region(&st);
  kr_region *r1 = kr_op_state_add_region(&st);
  kr_block *a = kr_block_create(ctx), *b = kr_block_create(ctx), *c = kr_block_create(ctx);
  kr_region_append_block(r0, a);
  kr_region_append_block(r0, b);
  kr_region_append_block(r1, c);
  kr_op_state_add_successors(&st, (kr_block *const[]){c, a}, 2);
  kr_op_state_add_attr(&st, "x", kr_attr_integer(ctx, i32, 1));
  kr_op_state_add_attr(&st, "y", kr_attr_unit(ctx));
  kr_op_state_add_attr(&st, "x", kr_attr_integer(ctx, i32, 2)); /* later duplicate replaces */
  kr_op_state_add_attr(&st, "y", NULL);                         /* NULL removes */
  kr_op *op = kr_op_create(&st);
  kr_op_state_free(&st);
  ck_assert_ptr_nonnull(op);
  ck_assert_ptr_eq(op->loc, kr_loc_file(ctx, "f.kir", 1, 2));
  ck_assert_uint_eq(op->attrs->u.dict.num, 1);
  ck_assert_int_eq(kr_op_get_attr(op, "x")->u.i, 2);
  ck_assert_ptr_null(kr_op_get_attr(op, "y"));
  ck_assert(kr_region_empty(r0) && kr_region_empty(r1));
  ck_assert_ptr_eq(op->regions[0].first, a);
  ck_assert_ptr_eq(op->regions[0].last, b);
  ck_assert_ptr_eq(a->region, &op->regions[0]);
  ck_assert_ptr_eq(c->region, &op->regions[1]);
  ck_assert_uint_eq(op->num_successors, 2);
  ck_assert_ptr_eq(op->successors[0], c);
  kr_op_set_successor(op, 1, b);
  ck_assert_ptr_eq(op->successors[1], b);
  /* Attribute editing. */
  kr_op_set_attr(op, "z", kr_attr_bool(ctx, true));
  kr_op_set_attr(op, "a", kr_attr_unit(ctx));
  ck_assert_uint_eq(op->attrs->u.dict.num, 3);
  ck_assert_str_eq(op->attrs->u.dict.entries[0].name, "a");
  kr_op_set_attr(op, "x", kr_attr_integer(ctx, i32, 9));
  ck_assert_int_eq(kr_op_get_attr(op, "x")->u.i, 9);
  kr_op_set_attr(op, "x", NULL);
  ck_assert_ptr_null(kr_op_get_attr(op, "x"));
  kr_op_set_attr(op, "nonexistent", NULL);
  ck_assert_uint_eq(op->attrs->u.dict.num, 2);
  kr_op_set_attrs(op, NULL);
  ck_assert_ptr_eq(op->attrs, kr_attr_dict_empty(ctx));
}
END_TEST

START_TEST(erase_and_replace) {
  kr_block *body;
  kr_op *parent = mk_region_op("t.parent", &body);
  ck_assert_ptr_eq(kr_block_parent_op(body), parent);
  kr_op *a = mk("t.a", NULL, 0, 1);
  kr_block_append_op(body, a);
  kr_value va = kr_op_result(a, 0);
  kr_block *inner;
  kr_op *nest = mk_region_op("t.nest", &inner);
  kr_block_append_op(body, nest);
  kr_value ib = kr_block_add_arg(inner, i32, NULL);
  kr_value ops[] = {va, ib};
  kr_op *u1 = mk("t.use", ops, 2, 1);
  kr_block_append_op(inner, u1);
  kr_op *u2 = mk("t.use", (kr_value[]){kr_op_result(u1, 0), va}, 2, 0);
  kr_block_append_op(inner, u2);
  ck_assert_uint_eq(count_uses(va), 2);
  /* Erasing the nested op drops the uses its body made of the outer value. */
  kr_op_erase(nest);
  ck_assert_uint_eq(count_uses(va), 0);
  ck_assert_ptr_eq(body->first, a);
  ck_assert_ptr_eq(body->last, a);
  ck_assert_ptr_null(nest->block);
  /* kr_op_replace: uses move to the replacement. */
  kr_op *b = mk("t.b", NULL, 0, 1);
  kr_block_append_op(body, b);
  kr_op *user = mk("t.use", &va, 1, 0);
  kr_block_append_op(body, user);
  kr_value vb = kr_op_result(b, 0);
  kr_op_replace(a, &vb);
  ck_assert_ptr_eq(kr_op_operand(user, 0), vb);
  ck_assert_ptr_eq(body->first, b);
  ck_assert_uint_eq(kr_block_num_ops(body), 2);
}
END_TEST

START_TEST(erase_graph_cycle) {
  /* A graph region where two ops use each other's results (legal without SSA dominance). */
  kr_block *body;
  kr_op *g = mk_region_op("t.graph", &body);
  kr_op *x = mk("t.x", NULL, 0, 1), *y = mk("t.y", NULL, 0, 1);
  kr_block_append_op(body, x);
  kr_block_append_op(body, y);
  kr_op_set_operands(x, (kr_value[]){kr_op_result(y, 0)}, 1);
  kr_op_set_operands(y, (kr_value[]){kr_op_result(x, 0), kr_op_result(y, 0)}, 2);
  ck_assert_uint_eq(count_uses(kr_op_result(y, 0)), 2);
  kr_op_erase(g);
  ck_assert_uint_eq(count_uses(kr_op_result(x, 0)), 0);
  ck_assert_uint_eq(count_uses(kr_op_result(y, 0)), 0);
  /* The same cycle at block level: drop references, then erase one by one. */
  kr_block *b = kr_block_create(ctx);
  kr_op *p = mk("t.p", NULL, 0, 1), *q = mk("t.q", NULL, 0, 1);
  kr_block_append_op(b, p);
  kr_block_append_op(b, q);
  kr_op_set_operands(p, (kr_value[]){kr_op_result(q, 0)}, 1);
  kr_op_set_operands(q, (kr_value[]){kr_op_result(p, 0)}, 1);
  kr_op_drop_all_references(p);
  kr_op_drop_all_references(q);
  kr_op_erase(p);
  kr_op_erase(q);
  ck_assert_ptr_null(b->first);
  ck_assert_ptr_null(b->last);
  /* kr_block_erase handles the cycle by itself. */
  kr_region *r = kr_region_create(ctx);
  kr_block *c = kr_block_create(ctx);
  kr_region_append_block(r, c);
  kr_op *m = mk("t.m", NULL, 0, 1), *n = mk("t.n", NULL, 0, 1);
  kr_block_append_op(c, m);
  kr_block_append_op(c, n);
  kr_op_set_operands(m, (kr_value[]){kr_op_result(n, 0)}, 1);
  kr_op_set_operands(n, (kr_value[]){kr_op_result(m, 0)}, 1);
  kr_block_erase(c);
  ck_assert(kr_region_empty(r));
  ck_assert_ptr_null(c->region);
}
END_TEST

START_TEST(split_block) {
  kr_block *body;
  kr_op *parent = mk_region_op("t.parent", &body);
  kr_op *ops[5];
  for (int i = 0; i < 5; i++) {
    ops[i] = mk("t.x", NULL, 0, 0);
    kr_block_append_op(body, ops[i]);
  }
  kr_block *tail = kr_block_split(body, ops[2]);
  ck_assert_ptr_eq(tail->region, &parent->regions[0]);
  ck_assert_ptr_eq(body->next, tail);
  ck_assert_ptr_eq(parent->regions[0].last, tail);
  ck_assert_uint_eq(kr_block_num_ops(body), 2);
  ck_assert_uint_eq(kr_block_num_ops(tail), 3);
  ck_assert_ptr_eq(body->last, ops[1]);
  ck_assert_ptr_null(ops[1]->next);
  ck_assert_ptr_eq(tail->first, ops[2]);
  ck_assert_ptr_null(ops[2]->prev);
  for (int i = 2; i < 5; i++) ck_assert_ptr_eq(ops[i]->block, tail);
  ck_assert_uint_eq(tail->num_args, 0);
  ck_assert(kr_op_is_before_in_block(ops[2], ops[4]));
  kr_op *y = mk("t.y", NULL, 0, 0);
  kr_block_prepend_op(tail, y);
  ck_assert(kr_op_is_before_in_block(y, ops[2]));
  /* Split before the first op: everything moves, the old block is empty. */
  kr_block *all = kr_block_split(body, ops[0]);
  ck_assert_ptr_null(body->first);
  ck_assert_uint_eq(kr_block_num_ops(all), 2);
  ck_assert_ptr_eq(all->next, tail);
  /* Split at the end (NULL): a new empty block. */
  kr_block *empty = kr_block_split(tail, NULL);
  ck_assert_ptr_null(empty->first);
  ck_assert_uint_eq(kr_block_num_ops(tail), 4);
  ck_assert_uint_eq(kr_region_num_blocks(&parent->regions[0]), 4);
}
END_TEST

START_TEST(clone_deep) {
  /* outer(%ext) { ^bb0(%a): %u = use(%a, %late, %ext); br ^bb1  ^bb1(%b): %late = late(%b) } */
  kr_op *ext_def = mk("t.ext", NULL, 0, 1);
  kr_value ext = kr_op_result(ext_def, 0);
  kr_op_state st;
  kr_op_state_init(&st, ctx, "t.outer", kr_loc_name(ctx, "o", 1, NULL));
  kr_op_state_add_operands(&st, &ext, 1);
  kr_op_state_add_results(&st, &i32, 1);
  kr_op_state_add_attr(&st, "k", kr_attr_unit(ctx));
  kr_region *r = kr_op_state_add_region(&st);
  kr_block *bb0 = kr_block_create(ctx), *bb1 = kr_block_create(ctx);
  kr_region_append_block(r, bb0);
  kr_region_append_block(r, bb1);
  kr_value a = kr_block_add_arg(bb0, i32, kr_loc_file(ctx, "x", 1, 1));
  kr_value bv = kr_block_add_arg(bb1, i32, NULL);
  kr_op *late = mk("t.late", &bv, 1, 1);
  kr_op *use = mk("t.use", (kr_value[]){a, kr_op_result(late, 0), ext}, 3, 1);
  kr_block_append_op(bb0, use);
  kr_op_state br;
  kr_op_state_init(&br, ctx, "t.br", NULL);
  kr_op_state_add_successors(&br, &bb1, 1);
  kr_op *brop = kr_op_create(&br);
  kr_op_state_free(&br);
  kr_block_append_op(bb0, brop);
  kr_block_append_op(bb1, late);
  kr_op *outer = kr_op_create(&st);
  kr_op_state_free(&st);

  kr_hmap map = {0};
  kr_op *c = kr_op_clone(outer, &map);
  ck_assert_ptr_ne(c, outer);
  ck_assert_ptr_eq(c->name, outer->name);
  ck_assert_ptr_eq(c->loc, outer->loc);
  ck_assert_ptr_eq(c->attrs, outer->attrs);
  ck_assert_ptr_null(c->block);
  ck_assert_ptr_eq(kr_op_operand(c, 0), ext); /* defined outside: kept */
  ck_assert_uint_eq(count_uses(ext), 4);      /* outer, use, and their two clones */
  kr_block *c0 = c->regions[0].first, *c1 = c0->next;
  ck_assert_ptr_nonnull(c1);
  ck_assert_ptr_ne(c0, bb0);
  ck_assert_ptr_ne(c1, bb1);
  ck_assert_ptr_eq(c0->region, &c->regions[0]);
  ck_assert_uint_eq(c0->num_args, 1);
  ck_assert_ptr_eq(c0->args[0]->loc, a->loc);
  kr_op *cuse = c0->first, *cbr = cuse->next, *clate = c1->first;
  ck_assert_str_eq(cuse->name, "t.use");
  ck_assert_ptr_ne(cuse, use);
  ck_assert_ptr_eq(kr_op_operand(cuse, 0), c0->args[0]);
  ck_assert_ptr_eq(kr_op_operand(cuse, 1), kr_op_result(clate, 0)); /* defined later: remapped */
  ck_assert_ptr_eq(kr_op_operand(cuse, 2), ext);
  ck_assert_ptr_eq(kr_op_operand(clate, 0), c1->args[0]);
  ck_assert_ptr_eq(cbr->successors[0], c1);
  ck_assert_ptr_eq(brop->successors[0], bb1);
  /* The original is untouched. */
  ck_assert_ptr_eq(kr_op_operand(use, 1), kr_op_result(late, 0));
  ck_assert_uint_eq(count_uses(kr_op_result(late, 0)), 1);
  ck_assert_uint_eq(count_uses(kr_op_result(clate, 0)), 1);
  ck_assert_uint_eq(count_uses(a), 1);
  /* The map records old -> new for results, block arguments and blocks. */
  ck_assert_ptr_eq(kr_hmap_find(&map, kr_hash_ptr(kr_op_result(outer, 0)), kr_op_result(outer, 0))->value,
                   kr_op_result(c, 0));
  ck_assert_ptr_eq(kr_hmap_find(&map, kr_hash_ptr(a), a)->value, c0->args[0]);
  ck_assert_ptr_eq(kr_hmap_find(&map, kr_hash_ptr(bb1), bb1)->value, c1);
  kr_hmap_free(&map);
  /* A pre-seeded map substitutes values defined outside. */
  kr_op *ext2 = mk("t.ext", NULL, 0, 1);
  kr_hmap seed = {0};
  kr_hmap_insert(&seed, kr_hash_ptr(ext), ext, NULL)->value = kr_op_result(ext2, 0);
  kr_op *c2 = kr_op_clone(outer, &seed);
  ck_assert_ptr_eq(kr_op_operand(c2, 0), kr_op_result(ext2, 0));
  ck_assert_ptr_eq(kr_op_operand(c2->regions[0].first->first, 2), kr_op_result(ext2, 0));
  kr_hmap_free(&seed);
  kr_op *c3 = kr_op_clone(use, NULL);
  ck_assert_ptr_eq(kr_op_operand(c3, 0), a);
}
END_TEST

typedef struct trace {
  char buf[512];
  const char *skip;  /* name to SKIP in pre-order */
  const char *stop;  /* name to INTERRUPT at */
  const char *erase; /* name to erase (post-order) */
} trace;

static kr_walk_result record(kr_op *op, void *user) {
  trace *t = user;
  strcat(t->buf, op->name + 2); /* strip "t." */
  strcat(t->buf, " ");
  if (t->stop && strcmp(op->name, t->stop) == 0) return KR_WALK_INTERRUPT;
  if (t->skip && strcmp(op->name, t->skip) == 0) return KR_WALK_SKIP;
  if (t->erase && strcmp(op->name, t->erase) == 0) kr_op_erase(op);
  return KR_WALK_ADVANCE;
}

START_TEST(walk_orders) {
  /* r { a { b c } d { e } f } */
  kr_block *rb, *ab, *db;
  kr_op *r = mk_region_op("t.r", &rb);
  kr_op *a = mk_region_op("t.a", &ab);
  kr_op *d = mk_region_op("t.d", &db);
  kr_block_append_op(rb, a);
  kr_block_append_op(ab, mk("t.b", NULL, 0, 0));
  kr_block_append_op(ab, mk("t.c", NULL, 0, 0));
  kr_block_append_op(rb, d);
  kr_block_append_op(db, mk("t.e", NULL, 0, 0));
  kr_block_append_op(rb, mk("t.f", NULL, 0, 0));
  trace t = {0};
  ck_assert_int_eq(kr_op_walk(r, KR_WALK_PRE_ORDER, record, &t), KR_WALK_ADVANCE);
  ck_assert_str_eq(t.buf, "r a b c d e f ");
  memset(&t, 0, sizeof t);
  kr_op_walk(r, KR_WALK_POST_ORDER, record, &t);
  ck_assert_str_eq(t.buf, "b c a e d f r ");
  memset(&t, 0, sizeof t);
  t.skip = "t.a";
  kr_op_walk(r, KR_WALK_PRE_ORDER, record, &t);
  ck_assert_str_eq(t.buf, "r a d e f ");
  memset(&t, 0, sizeof t);
  t.stop = "t.e";
  ck_assert_int_eq(kr_op_walk(r, KR_WALK_PRE_ORDER, record, &t), KR_WALK_INTERRUPT);
  ck_assert_str_eq(t.buf, "r a b c d e ");
  memset(&t, 0, sizeof t);
  t.stop = "t.a";
  ck_assert_int_eq(kr_op_walk(r, KR_WALK_POST_ORDER, record, &t), KR_WALK_INTERRUPT);
  ck_assert_str_eq(t.buf, "b c a ");
  /* Post-order erasure of the visited op, including ones with regions. */
  memset(&t, 0, sizeof t);
  t.erase = "t.c";
  kr_op_walk(r, KR_WALK_POST_ORDER, record, &t);
  ck_assert_str_eq(t.buf, "b c a e d f r ");
  ck_assert_uint_eq(kr_block_num_ops(ab), 1);
  memset(&t, 0, sizeof t);
  t.erase = "t.d";
  kr_op_walk(r, KR_WALK_POST_ORDER, record, &t);
  ck_assert_str_eq(t.buf, "b a e d f r ");
  memset(&t, 0, sizeof t);
  kr_op_walk(r, KR_WALK_PRE_ORDER, record, &t);
  ck_assert_str_eq(t.buf, "r a b f ");
}
END_TEST

START_TEST(builder) {
  kr_block *blk = kr_block_create(ctx);
  kr_builder b;
  kr_builder_init(&b, ctx);
  kr_op_state st;
  kr_op_state_init(&st, ctx, "t.one", NULL);
  kr_op *detached = kr_builder_create(&b, &st);
  ck_assert_ptr_null(detached->block);
  kr_builder_set_insertion_point_to_end(&b, blk);
  kr_op *o1 = kr_builder_create(&b, &st);
  kr_op *o2 = kr_builder_create(&b, &st);
  ck_assert_ptr_eq(blk->first, o1);
  ck_assert_ptr_eq(blk->last, o2);
  kr_builder_set_insertion_point_to_start(&b, blk);
  kr_op *o0 = kr_builder_create(&b, &st);
  ck_assert_ptr_eq(blk->first, o0);
  ck_assert_ptr_eq(o0->next, o1);
  kr_builder_set_insertion_point_after(&b, o1);
  kr_op *o15 = kr_builder_create(&b, &st);
  ck_assert_ptr_eq(o1->next, o15);
  ck_assert_ptr_eq(o15->next, o2);
  kr_op *o16 = kr_builder_create(&b, &st); /* still before o2: ops come out in order */
  ck_assert_ptr_eq(o15->next, o16);
  ck_assert_ptr_eq(o16->next, o2);
  kr_builder_set_insertion_point_before(&b, o0);
  kr_builder_insert(&b, detached);
  ck_assert_ptr_eq(blk->first, detached);
  ck_assert_uint_eq(kr_block_num_ops(blk), 6);
  kr_op_state_free(&st);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, create_basic);
  tcase_add_test(tc, use_lists_and_rauw);
  tcase_add_test(tc, set_operands);
  tcase_add_test(tc, insertion_and_order);
  tcase_add_test(tc, block_args_and_terminator);
  tcase_add_test(tc, regions_and_parents);
  tcase_add_test(tc, create_moves_regions_and_attrs);
  tcase_add_test(tc, erase_and_replace);
  tcase_add_test(tc, erase_graph_cycle);
  tcase_add_test(tc, split_block);
  tcase_add_test(tc, clone_deep);
  tcase_add_test(tc, walk_orders);
  tcase_add_test(tc, builder);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
