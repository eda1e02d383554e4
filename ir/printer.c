/* ir/printer.c - printing operations, regions and blocks as .kir text (MLIR's AsmPrinter), the
 * value-naming scheme, the custom-assembly printer API (kr_printer_*), and the trailing
 * `{-# dialect_resources ... #-}` section.  Types and attributes are in print_attrs.c.
 *
 * Value names follow mlir-opt 19 exactly (SSANameState in AsmPrinter.cpp):
 * - Regions are numbered from a worklist: a region's blocks and ops are numbered first (block
 *   labels ^bb0.. by position, one %N per op with results, %argN for entry-block arguments, %N for
 *   other blocks' arguments), then the regions of its ops are queued.
 * - Custom form: every queued region starts from the counters its parent region ended with, so
 *   sibling regions reuse numbers and each function starts again at %0 / %arg0.
 * - Generic form (--print-op-generic): one counter for the whole printout (MLIR's "unique SSA
 *   IDs"), regions taken last-queued-first, which is why mlir-opt numbers the last function first.
 * While printing, an op's number is kept in its kr_op::order (the blocks' orders are marked
 * invalid, as after any mutation), which keeps the naming table at zero bytes per op; blocks are
 * few and live in a hash map.  Printing is linear in the IR size and never calls printf on the
 * hot path. */
#include <stdlib.h>
#include <string.h>

#include "ir/printer_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Printer state. */

void kr_asm_printer_init(kr_asm_printer *p, kr_ostream *os, const kr_print_flags *flags) {
  memset(p, 0, sizeof *p);
  p->os = os;
  if (flags) p->flags = *flags;
  if (!p->flags.hex_threshold) p->flags.hex_threshold = 4096;
}

void kr_asm_printer_free(kr_asm_printer *p) {
  kr_hmap_free(&p->blocks);
  kr_vec_free(&p->block_info);
  kr_vec_free(&p->preds);
  kr_vec_free(&p->resources);
  kr_hmap_free(&p->resource_set);
}

/* ---------------------------------------------------------------------------------------------
 * Numbering. */

typedef struct name_frame {
  kr_region *region;
  uint32_t next_value, next_arg;
} name_frame;

static void add_block(kr_asm_printer *p, kr_block *b, kr_print_block_info info) {
  bool inserted;
  kr_hmap_entry *e = kr_hmap_insert(&p->blocks, kr_hash_ptr(b), b, &inserted);
  KR_VEC_PUSH(&p->block_info, kr_print_block_info, info);
  e->value = (void *)(uintptr_t)p->block_info.len;
}

static const kr_print_block_info *find_block(const kr_asm_printer *p, const kr_block *b) {
  kr_hmap_entry *e = kr_hmap_find(&p->blocks, kr_hash_ptr(b), b);
  return e ? &KR_VEC_AT(&p->block_info, kr_print_block_info, (uintptr_t)e->value - 1) : NULL;
}

/* Names every value and block below `root` (see the file comment). */
static void number_values(kr_asm_printer *p, kr_op *root) {
  uint32_t next_value = 0, next_arg = 0;
  bool unique = p->flags.generic;
  kr_vec stack = {0};
  p->root = root;
  for (unsigned i = 0; i < root->num_regions; i++)
    KR_VEC_PUSH(&stack, name_frame, ((name_frame){&root->regions[i], 0, 0}));
  if (root->num_results) next_value = 1;   /* the root's results are %0 */
  while (stack.len) {
    name_frame f = KR_VEC_AT(&stack, name_frame, --stack.len);
    if (!unique) {
      next_value = f.next_value;
      next_arg = f.next_arg;
    }
    size_t children = stack.len;
    uint32_t label = 0;
    for (kr_block *b = f.region->first; b; b = b->next, label++) {
      kr_print_block_info info = {label, 0, b == f.region->first};
      if (info.entry) {
        info.first_arg = next_arg;
        next_arg += b->num_args;
      } else {
        info.first_arg = next_value;
        next_value += b->num_args;
      }
      add_block(p, b, info);
      b->order_valid = false;   /* kr_op::order holds value numbers from here on */
      for (kr_op *op = b->first; op; op = op->next) {
        if (op->num_results) op->order = next_value++;
        for (unsigned r = 0; r < op->num_regions; r++)
          KR_VEC_PUSH(&stack, name_frame, ((name_frame){&op->regions[r], 0, 0}));
      }
    }
    /* Nested regions start where this region's numbering ended. */
    for (size_t i = children; i < stack.len; i++) {
      KR_VEC_AT(&stack, name_frame, i).next_value = next_value;
      KR_VEC_AT(&stack, name_frame, i).next_arg = next_arg;
    }
  }
  kr_vec_free(&stack);
}

/* Whether `op` is `p->root` or nested in it, i.e. was numbered. */
static bool op_is_numbered(const kr_asm_printer *p, const kr_op *op) {
  if (!p->root) return false;
  for (const kr_op *o = op; o; ) {
    if (o == p->root) return true;
    if (!o->block || !o->block->region) return false;
    o = o->block->region->parent;
  }
  return false;
}

static uint32_t op_number(const kr_asm_printer *p, const kr_op *op) { return op == p->root ? 0 : op->order; }

/* ---------------------------------------------------------------------------------------------
 * Small pieces. */

static void put_num(kr_ostream *os, char prefix, uint64_t n) {
  char tmp[24];
  char *q = tmp + sizeof tmp;
  do {
    *--q = (char)('0' + n % 10);
    n /= 10;
  } while (n);
  *--q = prefix;
  kr_ostream_write(os, q, (size_t)(tmp + sizeof tmp - q));
}

static void print_indent(kr_ostream *os, unsigned n) {
  static const char spaces[] = "                                                                ";
  while (n) {
    unsigned k = n < sizeof spaces - 1 ? n : (unsigned)(sizeof spaces - 1);
    kr_ostream_write(os, spaces, k);
    n -= k;
  }
}

static void print_value(kr_asm_printer *p, kr_value v) {
  kr_ostream *os = p->os;
  if (!v) {
    kr_ostream_puts(os, "<<NULL VALUE>>");
    return;
  }
  if (v->is_block_arg) {
    const kr_print_block_info *info = find_block(p, v->owner.block);
    if (!info) {
      kr_ostream_puts(os, "<<UNKNOWN SSA VALUE>>");
      return;
    }
    if (info->entry) kr_ostream_write(os, "%arg", 4);
    else kr_ostream_putc(os, '%');
    kr_print_u64(os, (uint64_t)info->first_arg + v->index);
    return;
  }
  kr_op *def = v->owner.op;
  if (!op_is_numbered(p, def)) {
    kr_ostream_puts(os, "<<UNKNOWN SSA VALUE>>");
    return;
  }
  put_num(os, '%', op_number(p, def));
  if (def->num_results > 1) put_num(os, '#', v->index);
}

static void print_block_label(kr_asm_printer *p, kr_block *b) {
  const kr_print_block_info *info = b ? find_block(p, b) : NULL;
  if (!info) {
    kr_ostream_puts(p->os, "<<UNKNOWN BLOCK>>");
    return;
  }
  kr_ostream_write(p->os, "^bb", 3);
  kr_print_u64(p->os, info->label);
}

static void print_loc(kr_asm_printer *p, kr_attr loc) {
  kr_ostream_write(p->os, " loc(", 5);
  kr_loc_print(p->os, loc);
  kr_ostream_putc(p->os, ')');
}

static void print_attr_dict(kr_asm_printer *p, kr_attr dict, const char *const *elided, unsigned n_elided,
                            bool with_keyword) {
  if (!dict || dict->kind != KR_ATTR_DICT) return;
  bool any = false;
  for (unsigned i = 0; i < dict->u.dict.num; i++) {
    const kr_named_attr *na = &dict->u.dict.entries[i];
    bool skip = false;
    for (unsigned k = 0; k < n_elided && !skip; k++) skip = elided[k] && !strcmp(elided[k], na->name);
    if (skip) continue;
    if (!any) kr_ostream_puts(p->os, with_keyword ? " attributes {" : " {");
    else kr_ostream_write(p->os, ", ", 2);
    any = true;
    kr_printer_print_named_attr(p, na->name, na->value);
  }
  if (any) kr_ostream_putc(p->os, '}');
}

/* ---------------------------------------------------------------------------------------------
 * Ops, regions, blocks. */

static void print_op(kr_asm_printer *p, kr_op *op);

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The `  // pred: ^bb0` comment MLIR puts after a block label.  `preds` are this region's
 * (successor label << 32 | predecessor label) edges, sorted; *cursor walks them in label order. */
static void print_pred_comment(kr_asm_printer *p, uint32_t label, bool entry, const uint64_t *preds, size_t n,
                               size_t *cursor) {
  size_t i = *cursor;
  while (i < n && (preds[i] >> 32) < label) i++;
  size_t first = i;
  while (i < n && (preds[i] >> 32) == label) i++;
  *cursor = i;
  size_t count = i - first;
  kr_ostream *os = p->os;
  if (!count) {
    if (!entry) kr_ostream_puts(os, "  // no predecessors");
    return;
  }
  if (count == 1) {
    kr_ostream_puts(os, "  // pred: ^bb");
  } else {
    kr_ostream_puts(os, "  // ");
    kr_print_u64(os, count);
    kr_ostream_puts(os, " preds: ^bb");
  }
  for (size_t k = first; k < i; k++) {
    if (k != first) kr_ostream_puts(os, ", ^bb");
    kr_print_u64(os, (uint32_t)preds[k]);
  }
}

static void print_block(kr_asm_printer *p, kr_block *b, bool header, const uint64_t *preds, size_t npreds,
                        size_t *cursor) {
  kr_ostream *os = p->os;
  if (header) {
    const kr_print_block_info *info = find_block(p, b);
    print_indent(os, p->indent);
    print_block_label(p, b);
    if (b->num_args) {
      kr_ostream_putc(os, '(');
      for (unsigned i = 0; i < b->num_args; i++) {
        if (i) kr_ostream_write(os, ", ", 2);
        kr_printer_print_block_arg(p, b->args[i]);
      }
      kr_ostream_putc(os, ')');
    }
    kr_ostream_putc(os, ':');
    if (info) print_pred_comment(p, info->label, info->entry, preds, npreds, cursor);
    kr_ostream_putc(os, '\n');
  }
  p->indent += 2;
  for (kr_op *op = b->first; op; op = op->next) {
    print_indent(os, p->indent);
    print_op(p, op);
    kr_ostream_putc(os, '\n');
  }
  p->indent -= 2;
}

/* Collects the region's CFG edges (from every op's successors into this region) on p->preds. */
static void collect_preds(kr_asm_printer *p, kr_region *r) {
  uint32_t label = 0;
  for (kr_block *b = r->first; b; b = b->next, label++) {
    for (kr_op *op = b->first; op; op = op->next) {
      for (unsigned s = 0; s < op->num_successors; s++) {
        kr_block *succ = op->successors[s];
        if (!succ || succ->region != r) continue;
        const kr_print_block_info *info = find_block(p, succ);
        if (info) KR_VEC_PUSH(&p->preds, uint64_t, ((uint64_t)info->label << 32) | label);
      }
    }
  }
}

/* The dialect whose ops print without their prefix inside `parent`'s regions (MLIR's
 * OpAsmOpInterface::getDefaultDialect): `func` in func.func, `builtin` in builtin.module (and at
 * the top level), none elsewhere. */
static const char *region_default_dialect(const kr_op *parent) {
  if (!parent) return NULL;
  if (!strcmp(parent->name, "func.func")) return "func";
  if (!strcmp(parent->name, KR_MODULE_OP)) return "builtin";
  return NULL;
}

/* MLIR's printRegion: `{`, the blocks (the entry block's header only when asked for and it has
 * arguments, or when it is empty and `print_empty_block`), `}` at the op's indentation. */
static void print_region(kr_asm_printer *p, kr_region *r, bool print_entry_args, bool print_empty_block) {
  kr_ostream *os = p->os;
  const char *saved_dialect = p->default_dialect;
  p->default_dialect = region_default_dialect(r->parent);
  kr_ostream_write(os, "{\n", 2);
  kr_block *entry = r->first;
  if (entry) {
    bool header = (print_empty_block && !entry->first) || (print_entry_args && entry->num_args);
    size_t base = p->preds.len;
    if (entry->next || header) {
      collect_preds(p, r);
      if (p->preds.len > base)
        qsort((uint64_t *)p->preds.data + base, p->preds.len - base, sizeof(uint64_t), cmp_u64);
    }
    size_t cursor = 0;
    for (kr_block *b = entry; b; b = b->next) {
      /* p->preds may move while nested regions print: re-read its data each time. */
      const uint64_t *preds = p->preds.len > base ? (const uint64_t *)p->preds.data + base : NULL;
      print_block(p, b, b == entry ? header : true, preds, p->preds.len - base, &cursor);
    }
    p->preds.len = base;
  }
  print_indent(os, p->indent);
  kr_ostream_putc(os, '}');
  p->default_dialect = saved_dialect;
}

/* MLIR's printGenericOp. */
static void print_generic(kr_asm_printer *p, kr_op *op) {
  kr_ostream *os = p->os;
  kr_ostream_putc(os, '"');
  kr_print_escaped(os, op->name, kr_ident_len(op->name));
  kr_ostream_write(os, "\"(", 2);
  kr_printer_print_operands(p, op, 0, op->num_operands);
  kr_ostream_putc(os, ')');
  if (op->num_successors) {
    kr_ostream_putc(os, '[');
    for (unsigned i = 0; i < op->num_successors; i++) {
      if (i) kr_ostream_write(os, ", ", 2);
      print_block_label(p, op->successors[i]);
    }
    kr_ostream_putc(os, ']');
  }
  if (op->num_regions) {
    kr_ostream_write(os, " (", 2);
    for (unsigned i = 0; i < op->num_regions; i++) {
      if (i) kr_ostream_write(os, ", ", 2);
      print_region(p, &op->regions[i], true, true);
    }
    kr_ostream_putc(os, ')');
  }
  print_attr_dict(p, op->attrs, NULL, 0, false);
  kr_ostream_write(os, " : (", 4);
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (i) kr_ostream_write(os, ", ", 2);
    kr_printer_print_type(p, kr_value_type(op->operands[i].value));
  }
  kr_ostream_write(os, ") -> ", 5);
  bool wrap = op->num_results != 1 || op->results[0].type->kind == KR_TYPE_FUNCTION;
  if (wrap) kr_ostream_putc(os, '(');
  for (unsigned i = 0; i < op->num_results; i++) {
    if (i) kr_ostream_write(os, ", ", 2);
    kr_printer_print_type(p, op->results[i].type);
  }
  if (wrap) kr_ostream_putc(os, ')');
}

/* MLIR's OpState::printOpName: the default dialect's prefix is dropped from names with one dot. */
static void print_op_name(kr_asm_printer *p, kr_op *op) {
  const char *name = op->name;
  size_t len = kr_ident_len(name);
  const char *d = p->default_dialect;
  if (d) {
    size_t dl = strlen(d);
    if (len > dl + 1 && !memcmp(name, d, dl) && name[dl] == '.' && !memchr(name + dl + 1, '.', len - dl - 1)) {
      name += dl + 1;
      len -= dl + 1;
    }
  }
  kr_ostream_write(p->os, name, len);
}

/* One op without indentation or newline: `%0:2 = ` then the custom or generic form, then the
 * location with --print-debuginfo. */
static void print_op(kr_asm_printer *p, kr_op *op) {
  kr_ostream *os = p->os;
  if (op->num_results) {
    put_num(os, '%', op_number(p, op));
    if (op->num_results > 1) put_num(os, ':', op->num_results);
    kr_ostream_write(os, " = ", 3);
  }
  if (!p->flags.generic && op->def && op->def->print) {
    print_op_name(p, op);
    op->def->print(p, op);
  } else {
    print_generic(p, op);
  }
  if (p->flags.debuginfo) print_loc(p, op->loc);
}

/* ---------------------------------------------------------------------------------------------
 * The resource section (MLIR's printFileMetadataDictionary for the builtin dialect's blobs). */

static void print_resources(kr_asm_printer *p) {
  if (!p->resources.len) return;
  kr_ostream *os = p->os;
  kr_ostream_puts(os, "\n{-#\n  dialect_resources: {\n    builtin: {\n");
  for (size_t i = 0; i < p->resources.len; i++) {
    const kr_resource *r = KR_VEC_AT(&p->resources, const kr_resource *, i);
    if (i) kr_ostream_write(os, ",\n", 2);
    print_indent(os, 6);
    kr_print_keyword_or_string(os, r->key, kr_ident_len(r->key));
    /* The blob: its alignment as a little-endian u32, then the bytes. */
    static const char hex[] = "0123456789ABCDEF";
    char head[14] = {':', ' ', '"', '0', 'x'};
    for (int b = 0; b < 4; b++) {
      unsigned byte = (r->alignment >> (8 * b)) & 0xFF;
      head[5 + 2 * b] = hex[byte >> 4];
      head[6 + 2 * b] = hex[byte & 15];
    }
    kr_ostream_write(os, head, 13);
    const unsigned char *data = r->data;
    char buf[4096];
    size_t k = 0;
    for (size_t j = 0; j < r->size; j++) {
      if (k + 2 > sizeof buf) {
        kr_ostream_write(os, buf, k);
        k = 0;
      }
      buf[k++] = hex[data[j] >> 4];
      buf[k++] = hex[data[j] & 15];
    }
    kr_ostream_write(os, buf, k);
    kr_ostream_putc(os, '"');
  }
  kr_ostream_puts(os, "\n    }\n  }\n#-}\n");
}

/* ---------------------------------------------------------------------------------------------
 * Entry points. */

void kr_op_print(kr_op *op, kr_ostream *os, const kr_print_flags *flags) {
  kr_asm_printer p;
  kr_asm_printer_init(&p, os, flags);
  p.collect_resources = true;
  p.default_dialect = "builtin";
  number_values(&p, op);
  print_op(&p, op);
  kr_ostream_putc(os, '\n');
  print_resources(&p);
  kr_asm_printer_free(&p);
}

void kr_op_print_in_context(kr_op *op, kr_ostream *os, const kr_print_flags *flags) {
  kr_op *scope = op;
  for (kr_op *o = kr_op_parent_op(op); o; o = kr_op_parent_op(o)) {
    scope = o;
    if (kr_op_has_trait(o, KR_TRAIT_ISOLATED_FROM_ABOVE)) break;
  }
  kr_asm_printer p;
  kr_asm_printer_init(&p, os, flags);
  p.default_dialect = "builtin";
  number_values(&p, scope);
  print_op(&p, op);
  kr_asm_printer_free(&p);
}

/* ---------------------------------------------------------------------------------------------
 * The custom-assembly printer API. */

kr_ostream *kr_printer_stream(kr_asm_printer *p) { return p->os; }

const kr_print_flags *kr_printer_flags(kr_asm_printer *p) { return &p->flags; }

void kr_printer_puts(kr_asm_printer *p, const char *s) { kr_ostream_puts(p->os, s); }

void kr_printer_printf(kr_asm_printer *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_ostream_vprintf(p->os, fmt, ap);
  va_end(ap);
}

void kr_printer_print_operand(kr_asm_printer *p, kr_value v) { print_value(p, v); }

void kr_printer_print_operands(kr_asm_printer *p, kr_op *op, unsigned start, unsigned n) {
  for (unsigned i = 0; i < n && start + i < op->num_operands; i++) {
    if (i) kr_ostream_write(p->os, ", ", 2);
    print_value(p, op->operands[start + i].value);
  }
}

void kr_printer_print_optional_attr_dict(kr_asm_printer *p, kr_op *op, const char *const *elided, unsigned n,
                                         bool with_keyword) {
  print_attr_dict(p, op->attrs, elided, n, with_keyword);
}

void kr_printer_print_region(kr_asm_printer *p, kr_region *r, bool print_entry_block_args) {
  print_region(p, r, print_entry_block_args, false);
}

void kr_printer_print_block_arg(kr_asm_printer *p, kr_value arg) {
  print_value(p, arg);
  kr_ostream_write(p->os, ": ", 2);
  kr_printer_print_type(p, kr_value_type(arg));
  if (p->flags.debuginfo) print_loc(p, arg->loc);
}

void kr_printer_print_successor(kr_asm_printer *p, kr_block *b) { print_block_label(p, b); }

void kr_printer_print_optional_loc(kr_asm_printer *p, kr_attr loc) {
  if (p->flags.debuginfo) print_loc(p, loc);
}
