/* korch/ir.h - the IR core: context, interned strings, types, attributes, locations, values,
 * operations, blocks, regions, the builder, walkers and symbol tables.
 *
 * The data model is MLIR's (mlir/docs/LangRef.md): an operation has operands (SSA values), results,
 * an attribute dictionary, a location, successor blocks and nested regions; a region is a list of
 * blocks; a block has arguments and a list of operations.
 *
 * Ownership: types, attributes and identifiers are uniqued by, and live as long as, the kr_context
 * (compare them with ==).  Operations, blocks, regions and values are allocated from the context's
 * IR arena; erasing an op unlinks it and drops its uses, and its memory is reclaimed when the context
 * is destroyed.  Structs are exposed (QBE-style) so that the parser, printer and passes can walk
 * them directly; mutate them only through the functions below, which keep use lists consistent. */
#ifndef KORCH_IR_H
#define KORCH_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "korch/adt.h"
#include "korch/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Status: the logical result of every fallible function.  Errors are reported as diagnostics
 * (korch/diag.h) before KR_FAILURE is returned. */
typedef enum kr_status { KR_SUCCESS = 0, KR_FAILURE = 1 } kr_status;
#define KR_FAILED(s) ((s) != KR_SUCCESS)

typedef struct kr_context kr_context;
typedef struct kr_op kr_op;
typedef struct kr_block kr_block;
typedef struct kr_region kr_region;
typedef struct kr_value_impl *kr_value;
typedef struct kr_use kr_use;
typedef const struct kr_type_storage *kr_type;
typedef const struct kr_attr_storage *kr_attr;
typedef struct kr_dialect kr_dialect;       /* a registered dialect (korch/dialect.h) */
typedef struct kr_op_def kr_op_def;         /* a registered op definition (korch/dialect.h) */
typedef struct kr_resource kr_resource;     /* a named blob (dense_resource) */

/* ---------------------------------------------------------------------------------------------
 * Context. */

/* Creates an empty context: no dialects registered, unregistered dialects rejected, no
 * diagnostic handler (diagnostics are counted and dropped).  Never returns NULL. */
kr_context *kr_context_create(void);
/* Frees the context and everything allocated from it (all IR, types, attributes, resources). */
void kr_context_destroy(kr_context *ctx);
/* Whether ops, types and attributes of unregistered dialects are accepted by the parser and
 * the verifier (`--allow-unregistered-dialect`). */
void kr_context_set_allow_unregistered(kr_context *ctx, bool allow);
bool kr_context_allow_unregistered(const kr_context *ctx);
/* The arena IR objects of this context live in (for dialects that attach data to ops). */
kr_arena *kr_context_arena(kr_context *ctx);

/* ---------------------------------------------------------------------------------------------
 * Interned strings (identifiers).  A kr_ident is a NUL-terminated string unique per content, so
 * identifiers compare with ==.  The length (which may include embedded NULs) precedes the bytes. */
typedef const char *kr_ident;
kr_ident kr_ident_get(kr_context *ctx, const char *s, size_t len);
kr_ident kr_ident_cstr(kr_context *ctx, const char *s);
size_t kr_ident_len(kr_ident id);

/* ---------------------------------------------------------------------------------------------
 * Types (LangRef "Builtin Types").  Uniqued: equal types are the same pointer. */
typedef enum kr_type_kind {
  KR_TYPE_INTEGER,   /* i1..i64 signless, si*, ui* */
  KR_TYPE_INDEX,
  KR_TYPE_FLOAT,     /* f16 bf16 f32 f64 */
  KR_TYPE_NONE,
  KR_TYPE_TENSOR,    /* tensor<2x?x3xf32>, tensor<*xf32> */
  KR_TYPE_VECTOR,    /* vector<4xf32> */
  KR_TYPE_FUNCTION,  /* (i32, f32) -> i1 */
  KR_TYPE_TUPLE,     /* tuple<i32, f32> */
  KR_TYPE_DIALECT,   /* !dialect.mnemonic<params> of a registered dialect */
  KR_TYPE_OPAQUE,    /* !dialect.body of an unregistered dialect, kept as text */
} kr_type_kind;

typedef enum kr_signedness { KR_SIGNLESS, KR_SIGNED, KR_UNSIGNED } kr_signedness;
typedef enum kr_float_kind { KR_F16, KR_BF16, KR_F32, KR_F64 } kr_float_kind;

#define KR_DYNAMIC INT64_MIN   /* a `?` dimension */

struct kr_type_storage {
  kr_type_kind kind;
  uint32_t hash;
  union {
    struct { unsigned width; kr_signedness sign; } integer;   /* width 1..64 */
    kr_float_kind fkind;
    struct { kr_type elem; const int64_t *dims; unsigned rank; bool unranked; } shaped;
    struct { const kr_type *inputs; const kr_type *results; unsigned num_inputs, num_results; } func;
    struct { const kr_type *elems; unsigned num; } tuple;
    /* KR_TYPE_DIALECT: parameters are attributes, so dialect types unique like any other. */
    struct { const kr_dialect *dialect; kr_ident mnemonic; const kr_attr *params; unsigned num_params; } dialect;
    /* KR_TYPE_OPAQUE: `!foo.bar<x>` -> dialect "foo", body "bar<x>". */
    struct { kr_ident dialect; kr_ident body; } opaque;
  } u;
};

kr_type kr_type_integer(kr_context *ctx, unsigned width, kr_signedness sign);
kr_type kr_type_index(kr_context *ctx);
kr_type kr_type_float(kr_context *ctx, kr_float_kind kind);
kr_type kr_type_none(kr_context *ctx);
/* `dims` has `rank` entries (>= 0 or KR_DYNAMIC); copied. */
kr_type kr_type_tensor(kr_context *ctx, const int64_t *dims, unsigned rank, kr_type elem);
kr_type kr_type_unranked_tensor(kr_context *ctx, kr_type elem);
kr_type kr_type_vector(kr_context *ctx, const int64_t *dims, unsigned rank, kr_type elem);
kr_type kr_type_function(kr_context *ctx, const kr_type *inputs, unsigned ni, const kr_type *results, unsigned nr);
kr_type kr_type_tuple(kr_context *ctx, const kr_type *elems, unsigned n);
kr_type kr_type_dialect(kr_context *ctx, const kr_dialect *d, const char *mnemonic, const kr_attr *params, unsigned n);
kr_type kr_type_opaque(kr_context *ctx, const char *dialect, const char *body, size_t body_len);

bool kr_type_is_integer(kr_type t, unsigned width);   /* signless iN; width 0: any integer */
bool kr_type_is_float(kr_type t);
bool kr_type_is_shaped(kr_type t);                     /* tensor or vector */
bool kr_type_has_static_shape(kr_type t);            /* ranked, no `?`; false if not shaped */
/* Element type of a shaped type, else the type itself. */
kr_type kr_type_element(kr_type t);
/* Product of the dims of a statically shaped type (1 for rank 0); -1 if dynamic, unranked or
 * too large for int64;
 * 1 for a non-shaped (scalar) type. */
int64_t kr_type_num_elements(kr_type t);
/* Bit width of an integer or float type; 64 for index; 0 otherwise. */
unsigned kr_type_bitwidth(kr_type t);
/* Bytes one element of `t` occupies in dense storage: ceil(bits/8) (i1 takes a byte), index 8. */
size_t kr_type_storage_bytes(kr_type t);

/* ---------------------------------------------------------------------------------------------
 * Attributes (LangRef "Builtin Attributes").  Uniqued: equal attributes are the same pointer. */
typedef enum kr_attr_kind {
  KR_ATTR_UNIT,         /* unit */
  KR_ATTR_BOOL,         /* true / false */
  KR_ATTR_INTEGER,      /* 42 : i32  (value sign-extended to int64 for signless/signed) */
  KR_ATTR_FLOAT,        /* 1.5 : f32 (stored as double; f16/bf16/f32 values are exactly representable) */
  KR_ATTR_STRING,       /* "text" (may carry a type: "x" : i32) */
  KR_ATTR_TYPE,         /* a type used as an attribute: i32 */
  KR_ATTR_ARRAY,        /* [a, b] */
  KR_ATTR_DICT,         /* {a = 1, b} sorted by name, names unique */
  KR_ATTR_SYMBOL_REF,   /* @root::@nested */
  KR_ATTR_DENSE,        /* dense<...> : tensor<..> / vector<..> */
  KR_ATTR_DENSE_ARRAY,  /* array<i64: 1, 2> */
  KR_ATTR_RESOURCE,     /* dense_resource<key> : tensor<..> */
  KR_ATTR_DIALECT,      /* #dialect.mnemonic<params> of a registered dialect */
  KR_ATTR_OPAQUE,       /* #dialect.body of an unregistered dialect, kept as text */
  KR_ATTR_LOCATION,     /* loc(...) */
} kr_attr_kind;

typedef enum kr_loc_kind {
  KR_LOC_UNKNOWN,       /* loc(unknown) */
  KR_LOC_FILE,          /* loc("file":line:col) */
  KR_LOC_NAME,          /* loc("name") or loc("name"(child)) */
  KR_LOC_FUSED,         /* loc(fused[a, b]) or loc(fused<#meta>[a, b]) */
  KR_LOC_CALLSITE,      /* loc(callsite(callee at caller)) */
} kr_loc_kind;

typedef struct kr_named_attr {
  kr_ident name;
  kr_attr value;
} kr_named_attr;

struct kr_attr_storage {
  kr_attr_kind kind;
  uint32_t hash;
  kr_type type;   /* INTEGER, FLOAT, STRING (optional), TYPE (the value), DENSE*, RESOURCE; else NULL */
  union {
    bool b;
    int64_t i;
    double f;
    struct { kr_ident str; } string;                        /* length: kr_ident_len */
    struct { const kr_attr *elems; unsigned num; } array;
    struct { const kr_named_attr *entries; unsigned num; } dict;
    struct { kr_ident root; const kr_ident *nested; unsigned num_nested; } symref;
    /* DENSE: element storage in kr_type_storage_bytes(elem) per element, little-endian;
     * f16/bf16 as raw 16-bit patterns, i1 one byte (0/1).  A splat stores one element. */
    struct { const void *data; size_t size; bool splat; } dense;
    struct { const void *data; size_t size; unsigned num; } dense_array;  /* type = element type */
    const kr_resource *resource;
    struct { const kr_dialect *dialect; kr_ident mnemonic; const kr_attr *params; unsigned num_params; } dialect;
    struct { kr_ident dialect; kr_ident body; } opaque;
    struct {
      kr_loc_kind kind;
      kr_ident name;                     /* FILE: filename; NAME: the name */
      unsigned line, col;                /* FILE */
      kr_attr child;                     /* NAME: child loc or NULL; CALLSITE: callee */
      kr_attr caller;                    /* CALLSITE */
      const kr_attr *locs; unsigned num; /* FUSED */
      kr_attr metadata;                  /* FUSED: optional */
    } loc;
  } u;
};

kr_attr kr_attr_unit(kr_context *ctx);
kr_attr kr_attr_bool(kr_context *ctx, bool v);
/* `type` is an integer or index type (else NULL); `v` is truncated to its width (and sign- or
 * zero-extended back according to its signedness; signless is stored sign-extended).  Width 1
 * stores 0 or 1 whatever the signedness (i1 values print as true/false, never -1). */
kr_attr kr_attr_integer(kr_context *ctx, kr_type type, int64_t v);
/* `type` is a float type (else NULL); `v` is rounded to it (f16/bf16/f32, ties to even).
 * Uniqued by the bit pattern of the rounded value: -0.0 and 0.0 differ, NaN payloads are kept. */
kr_attr kr_attr_float(kr_context *ctx, kr_type type, double v);
kr_attr kr_attr_string(kr_context *ctx, const char *s, size_t len);
kr_attr kr_attr_string_typed(kr_context *ctx, const char *s, size_t len, kr_type type);
kr_attr kr_attr_type(kr_context *ctx, kr_type t);
kr_attr kr_attr_array(kr_context *ctx, const kr_attr *elems, unsigned n);
/* Sorts a copy of `entries` by name; fails (returns NULL) on a duplicate name. */
kr_attr kr_attr_dict(kr_context *ctx, const kr_named_attr *entries, unsigned n);
kr_attr kr_attr_dict_empty(kr_context *ctx);
kr_attr kr_attr_symbol_ref(kr_context *ctx, const char *root, const kr_ident *nested, unsigned n);
/* Copies `size` bytes; `size` must be the storage of one element (splat) or of all of them;
 * returns NULL otherwise.  A full buffer whose elements are all equal is stored as a splat. */
kr_attr kr_attr_dense(kr_context *ctx, kr_type shaped, const void *data, size_t size);
kr_attr kr_attr_dense_array(kr_context *ctx, kr_type elem, const void *data, unsigned n);
kr_attr kr_attr_resource(kr_context *ctx, kr_type shaped, const kr_resource *r);
kr_attr kr_attr_dialect(kr_context *ctx, const kr_dialect *d, const char *mnemonic, const kr_attr *params, unsigned n);
kr_attr kr_attr_opaque(kr_context *ctx, const char *dialect, const char *body, size_t body_len);

/* Dictionary lookup by name; NULL if absent. */
kr_attr kr_dict_get(kr_attr dict, kr_ident name);
kr_attr kr_dict_get_cstr(kr_attr dict, const char *name);
/* Element `i` of a dense attribute converted to int64 / double (splat-aware). */
int64_t kr_dense_get_i64(kr_attr dense, size_t i);
double kr_dense_get_f64(kr_attr dense, size_t i);

/* f16 / bf16 bit conversions (round to nearest even). */
uint16_t kr_f32_to_f16(float f);
float kr_f16_to_f32(uint16_t h);
uint16_t kr_f32_to_bf16(float f);
float kr_bf16_to_f32(uint16_t h);
/* Rounds a double directly to f16 / bf16 (one rounding, ties to even; overflow gives infinity).
 * Use these rather than going through float, which rounds twice.  A NaN (here and in the
 * f32 <-> f16/bf16 conversions above) keeps its sign and the top bits of its payload and is not
 * quietened; the quiet bit is set only when the kept payload bits would all be zero. */
uint16_t kr_f64_to_f16(double d);
uint16_t kr_f64_to_bf16(double d);
/* The IEEE bit pattern of float kind `kind` (f16/bf16 in the low 16 bits, f32 in the low 32) for
 * `v` rounded to it, and back: the double a KR_ATTR_FLOAT stores (kr_attr_float applies
 * kr_float_from_bits(kind, kr_float_to_bits(kind, v))).  Both are exact on every pattern of the
 * kind, NaNs included: a narrower NaN's mantissa sits at the top of the double's (f32 << 29,
 * bf16 << 45, f16 << 42) with the same sign, and is never quietened, so a signalling NaN such as
 * `0x7C01 : f16` survives parse -> attribute -> print as in MLIR.  Hardware float <-> double
 * conversions would set the quiet bit; do not use them on NaNs. */
uint64_t kr_float_to_bits(kr_float_kind kind, double v);
double kr_float_from_bits(kr_float_kind kind, uint64_t bits);

/* Locations are attributes of kind KR_ATTR_LOCATION. */
kr_attr kr_loc_unknown(kr_context *ctx);
kr_attr kr_loc_file(kr_context *ctx, const char *filename, unsigned line, unsigned col);
kr_attr kr_loc_name(kr_context *ctx, const char *name, size_t len, kr_attr child);
kr_attr kr_loc_fused(kr_context *ctx, const kr_attr *locs, unsigned n, kr_attr metadata);
kr_attr kr_loc_callsite(kr_context *ctx, kr_attr callee, kr_attr caller);
/* The first file location found in `loc` (depth-first), or NULL. */
kr_attr kr_loc_find_file(kr_attr loc);

/* ---------------------------------------------------------------------------------------------
 * Resources: named blobs referenced by dense_resource<key> attributes (weights).  The text
 * format stores them once, at the end of the file, in a `{-# dialect_resources: ... #-}` section
 * (see docs/LangRef.md). */
struct kr_resource {
  kr_ident key;
  const void *data;     /* owned by the context */
  size_t size;          /* bytes */
  uint32_t alignment;   /* bytes, power of two */
};
/* Registers a blob under `key` (a unique suffix is appended if taken: read r->key).  The bytes
 * are copied.  Returns NULL on allocation failure. */
const kr_resource *kr_resource_create(kr_context *ctx, const char *key, const void *data, size_t size, uint32_t alignment);
/* Takes ownership of a malloc'd `data` instead of copying it. */
const kr_resource *kr_resource_adopt(kr_context *ctx, const char *key, void *data, size_t size, uint32_t alignment);
const kr_resource *kr_resource_lookup(kr_context *ctx, const char *key);

/* ---------------------------------------------------------------------------------------------
 * Values and uses. */
struct kr_value_impl {
  kr_type type;
  kr_use *first_use;
  union { kr_op *op; kr_block *block; } owner;
  uint32_t index;          /* result number or argument number */
  bool is_block_arg;
  kr_attr loc;             /* block arguments only (may be NULL) */
};

/* One operand of an op: a use of a value, threaded on the value's use list. */
struct kr_use {
  kr_value value;
  kr_op *owner;
  kr_use *next;            /* next use of the same value */
  kr_use **prev_next;      /* the pointer that points at this use */
  uint32_t index;          /* operand number in owner */
};

static inline kr_type kr_value_type(kr_value v) { return v->type; }
static inline bool kr_value_has_uses(kr_value v) { return v->first_use != NULL; }
/* The op defining `v`, NULL for a block argument. */
kr_op *kr_value_defining_op(kr_value v);
/* The block `v` is defined in (argument's block or defining op's block). */
kr_block *kr_value_parent_block(kr_value v);
bool kr_value_has_one_use(kr_value v);
/* Redirects every use of `from` to `to` (types must match; not checked here). */
void kr_value_replace_all_uses(kr_value from, kr_value to);
void kr_value_set_type(kr_value v, kr_type t);

/* ---------------------------------------------------------------------------------------------
 * Operations. */
struct kr_op {
  kr_ident name;               /* "dialect.op" */
  const kr_op_def *def;        /* NULL for an unregistered op */
  kr_block *block;             /* parent block, NULL when detached */
  kr_op *prev, *next;          /* siblings in the block */
  kr_attr loc;                 /* never NULL */
  kr_attr attrs;               /* a KR_ATTR_DICT, never NULL */
  kr_use *operands;            /* num_operands entries */
  struct kr_value_impl *results;  /* num_results entries */
  kr_region *regions;          /* num_regions entries */
  kr_block **successors;       /* num_successors entries */
  uint32_t num_operands, num_results, num_regions, num_successors;
  uint32_t order;              /* position in block when the block's order is valid */
};

/* The recipe for creating an op, like MLIR's OperationState.  Arrays are malloc'd scratch:
 * kr_op_state_free releases them (kr_op_create does not). */
typedef struct kr_op_state {
  kr_context *ctx;
  kr_ident name;
  kr_attr loc;
  kr_vec operands;       /* kr_value */
  kr_vec result_types;   /* kr_type */
  kr_vec attrs;          /* kr_named_attr, any order; a later duplicate replaces an earlier one */
  kr_vec regions;        /* kr_region *, detached regions whose blocks move into the op */
  kr_vec successors;     /* kr_block * */
} kr_op_state;

void kr_op_state_init(kr_op_state *st, kr_context *ctx, const char *name, kr_attr loc);
void kr_op_state_add_operands(kr_op_state *st, const kr_value *vals, unsigned n);
void kr_op_state_add_results(kr_op_state *st, const kr_type *types, unsigned n);
void kr_op_state_add_attr(kr_op_state *st, const char *name, kr_attr value);
/* Returns a new detached region owned by the state until kr_op_create moves it. */
kr_region *kr_op_state_add_region(kr_op_state *st);
void kr_op_state_add_successors(kr_op_state *st, kr_block *const *blocks, unsigned n);
void kr_op_state_free(kr_op_state *st);

/* Creates a detached op.  Looks the name up among registered ops (def may stay NULL).  The
 * blocks of st->regions move into the op.  Attributes: a later entry with the same name
 * replaces an earlier one and a NULL value removes the name (not an error).  st->loc NULL:
 * loc(unknown).  Never returns NULL for a well-formed state. */
kr_op *kr_op_create(const kr_op_state *st);
/* Erases `op`: erases nested regions, drops its operand uses, unlinks it from its block.  Its
 * results must have no uses left. */
void kr_op_erase(kr_op *op);
/* Unlinks `op` from its block without destroying it. */
void kr_op_remove(kr_op *op);
/* Drops every operand use of `op` and of all ops nested in its regions (before erasing cycles). */
void kr_op_drop_all_references(kr_op *op);
/* Deep copy of `op` (regions included); operands defined outside are kept, values defined inside
 * are remapped.  `map` (may be NULL) maps old values to new values and is extended. */
kr_op *kr_op_clone(kr_op *op, kr_hmap *map);

static inline kr_value kr_op_result(kr_op *op, unsigned i) { return &op->results[i]; }
static inline kr_value kr_op_operand(kr_op *op, unsigned i) { return op->operands[i].value; }
kr_region *kr_op_region(kr_op *op, unsigned i);
kr_op *kr_op_parent_op(kr_op *op);            /* the op whose region holds `op`'s block */
bool kr_op_is_ancestor(kr_op *ancestor, kr_op *op);   /* properly or equal */
bool kr_op_is_before_in_block(kr_op *a, kr_op *b);   /* same block required */
bool kr_op_is_registered(const kr_op *op);
bool kr_op_has_trait(const kr_op *op, uint32_t trait);   /* KR_TRAIT_* of korch/dialect.h */
bool kr_op_use_empty(const kr_op *op);                    /* no result has a use */

void kr_op_set_operand(kr_op *op, unsigned i, kr_value v);
/* Replaces all operands (the count may change). */
void kr_op_set_operands(kr_op *op, const kr_value *vals, unsigned n);
void kr_op_set_successor(kr_op *op, unsigned i, kr_block *b);

kr_attr kr_op_get_attr(const kr_op *op, const char *name);
/* Sets (value != NULL) or removes (value == NULL) an attribute. */
void kr_op_set_attr(kr_op *op, const char *name, kr_attr value);
void kr_op_set_attrs(kr_op *op, kr_attr dict);

/* Replaces all uses of op's results with `vals` (num_results entries) and erases op. */
void kr_op_replace(kr_op *op, const kr_value *vals);

/* Moves: insert a detached op. */
void kr_op_insert_before(kr_op *op, kr_op *before);
void kr_op_insert_after(kr_op *op, kr_op *after);
void kr_block_append_op(kr_block *b, kr_op *op);
void kr_block_prepend_op(kr_block *b, kr_op *op);
/* Moves an attached op. */
void kr_op_move_before(kr_op *op, kr_op *before);

/* The context an op belongs to. */
kr_context *kr_op_context(const kr_op *op);

/* ---------------------------------------------------------------------------------------------
 * Blocks and regions. */
struct kr_block {
  kr_region *region;               /* parent, NULL when detached */
  kr_block *prev, *next;
  kr_op *first, *last;
  kr_value *args;                  /* num_args pointers */
  uint32_t num_args, cap_args;
  bool order_valid;                /* kr_op::order is current */
  kr_context *ctx;
};

struct kr_region {
  kr_op *parent;                   /* NULL for a detached region */
  kr_block *first, *last;
  kr_context *ctx;
};

kr_block *kr_block_create(kr_context *ctx);
kr_value kr_block_add_arg(kr_block *b, kr_type type, kr_attr loc);
/* Erases argument `i`; it must have no uses.  Later arguments are renumbered. */
void kr_block_erase_arg(kr_block *b, unsigned i);
/* The terminator (last op) if it has KR_TRAIT_TERMINATOR, else NULL. */
kr_op *kr_block_terminator(kr_block *b);
kr_op *kr_block_parent_op(kr_block *b);
/* Erases every op in the block (back to front, dropping references first) and unlinks it. */
void kr_block_erase(kr_block *b);
/* Splits `b` before `op`: `op` and everything after it move to a new block (no arguments)
 * inserted after `b`.  `op` NULL: the new block is empty. */
kr_block *kr_block_split(kr_block *b, kr_op *op);
/* Recomputes kr_op::order for the ops of `b`. */
void kr_block_recompute_order(kr_block *b);
/* Number of ops in the block (walks the list). */
size_t kr_block_num_ops(const kr_block *b);
bool kr_block_is_entry(const kr_block *b);

kr_region *kr_region_create(kr_context *ctx);   /* detached */
void kr_region_append_block(kr_region *r, kr_block *b);
void kr_region_insert_block_after(kr_region *r, kr_block *after, kr_block *b);  /* after NULL: at the front */
void kr_region_remove_block(kr_region *r, kr_block *b);
/* Moves every block of `src` to the end of `dst`. */
void kr_region_take_body(kr_region *dst, kr_region *src);
bool kr_region_empty(const kr_region *r);
size_t kr_region_num_blocks(const kr_region *r);

/* ---------------------------------------------------------------------------------------------
 * Builder: creates ops at an insertion point. */
typedef struct kr_builder {
  kr_context *ctx;
  kr_block *block;    /* NULL: ops stay detached */
  kr_op *before;      /* insert before this op; NULL: at the end of block */
} kr_builder;

void kr_builder_init(kr_builder *b, kr_context *ctx);
void kr_builder_set_insertion_point_before(kr_builder *b, kr_op *op);
void kr_builder_set_insertion_point_after(kr_builder *b, kr_op *op);
void kr_builder_set_insertion_point_to_end(kr_builder *b, kr_block *block);
void kr_builder_set_insertion_point_to_start(kr_builder *b, kr_block *block);
/* kr_op_create + insertion.  NULL on failure (see kr_op_create). */
kr_op *kr_builder_create(kr_builder *b, const kr_op_state *st);
void kr_builder_insert(kr_builder *b, kr_op *op);

/* ---------------------------------------------------------------------------------------------
 * Walking. */
typedef enum kr_walk_result { KR_WALK_ADVANCE, KR_WALK_SKIP, KR_WALK_INTERRUPT } kr_walk_result;
typedef enum kr_walk_order { KR_WALK_PRE_ORDER, KR_WALK_POST_ORDER } kr_walk_order;
typedef kr_walk_result (*kr_walk_fn)(kr_op *op, void *user);
/* Visits `op` and every op nested in its regions.  In post-order the callback may erase the op it
 * is given.  SKIP (pre-order) skips the op's regions.  Returns INTERRUPT if a callback did. */
kr_walk_result kr_op_walk(kr_op *op, kr_walk_order order, kr_walk_fn fn, void *user);

/* ---------------------------------------------------------------------------------------------
 * Symbols (LangRef "Symbols and Symbol Tables"): an op with a `sym_name` string attribute, in the
 * single-block region of an op with KR_TRAIT_SYMBOL_TABLE.  `sym_visibility` = "private" /
 * "nested"; absent means public. */
kr_ident kr_op_symbol_name(const kr_op *op);             /* NULL if not a symbol */
bool kr_op_symbol_is_private(const kr_op *op);
/* Finds the symbol named `name` directly inside symbol-table op `table` (linear scan). */
kr_op *kr_symbol_lookup_in(kr_op *table, kr_ident name);
/* Resolves a symbol reference from `from` in the nearest symbol table (`from` itself if it is
 * one), following nested references (@a::@b); NULL if not found.  Enclosing tables are not
 * searched (MLIR's SymbolTable::lookupNearestSymbolFrom). */
kr_op *kr_symbol_lookup(kr_op *from, kr_attr symref);
/* The nearest ancestor (or self) with KR_TRAIT_SYMBOL_TABLE. */
kr_op *kr_symbol_table_of(kr_op *op);

/* A hashed symbol table for repeated lookups in one table op. */
typedef struct kr_symbol_table {
  kr_op *op;
  kr_hmap map;   /* kr_ident -> kr_op* */
} kr_symbol_table;
void kr_symbol_table_init(kr_symbol_table *t, kr_op *table_op);
kr_op *kr_symbol_table_lookup(const kr_symbol_table *t, kr_ident name);
void kr_symbol_table_free(kr_symbol_table *t);

/* Calls `fn` for every symbol reference attribute nested anywhere in op's attributes (and in
 * those of ops nested inside it when `recursive`). */
typedef void (*kr_symbol_use_fn)(kr_op *user, kr_attr symref, void *ud);
void kr_op_walk_symbol_uses(kr_op *op, bool recursive, kr_symbol_use_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif
