/* passes/schedule/emit_layout.c - element rules of the layout primitives (dialects/prim/ops.def)
 * as index maps: the element of the result at `index` is an element of an operand at a mapped
 * index (backend/interp/prim_layout.c computes the same maps on the CPU).
 *
 *   broadcast  size-1 and new leading axes read index 0
 *   transpose  x[perm[i]] = y[i]
 *   reshape    equal leading and trailing dims pass through; the rest is linearised over the
 *              result's dims and delinearised over the operand's (row-major)
 *   slice      start + j * step (negative steps walk backwards)
 *   concat     a chain of kernel.if on the axis index runs the element code of the one piece
 *              that holds the element (its value leaves through a register)
 *   pad        constant: the source index (p - low) / (interior + 1), a select between the
 *              element (loaded at a clamped index) and the padding value on the in-range test;
 *              edge: clamp; reflect: mirror at the borders (numpy "reflect", period 2 (dim - 1))
 *   gather     the index element is loaded, converted to index (unsigned types zero-extend),
 *              negative values normalised by + dim as ONNX Gather, and clamped into [0, dim):
 *              the CPU kernel reports an out-of-range index, which a GPU kernel cannot, so the
 *              load stays in bounds instead (docs/Scheduling.md). */
#include <string.h>

#include "passes/schedule/emit_impl.h"

static const int64_t *ints(kr_op *op, const char *name, unsigned want, bool *ok) {
  const int64_t *v = NULL;
  if (kr_op_attr_ints(op, name, &v) != want) *ok = false;
  return v;
}

/* The operand index of prim.broadcast: y rank R, x rank r aligned right. */
static void broadcast_map(ks_emitter *e, kr_op *op, const kr_value *index, kr_value *xi) {
  unsigned r, R;
  const int64_t *xd = es_dims(kr_op_operand(op, 0), &r);
  es_dims(kr_op_result(op, 0), &R);
  for (unsigned i = 0; i < r; i++) xi[i] = xd[i] == 1 ? ks_index(e->kb, 0) : index[R - r + i];
}

static bool transpose_map(kr_op *op, const kr_value *index, kr_value *xi) {
  unsigned r;
  es_dims(kr_op_operand(op, 0), &r);
  bool ok = true;
  const int64_t *perm = ints(op, "perm", r, &ok);
  if (!ok) return false;
  for (unsigned i = 0; i < r; i++) {
    if (perm[i] < 0 || perm[i] >= (int64_t)r) return false;
    xi[perm[i]] = index[i];
  }
  return true;
}

static void reshape_map(ks_emitter *e, kr_op *op, const kr_value *index, kr_value *xi) {
  unsigned r, R;
  const int64_t *xd = es_dims(kr_op_operand(op, 0), &r);
  const int64_t *yd = es_dims(kr_op_result(op, 0), &R);
  unsigned pre = 0, suf = 0;
  while (pre < r && pre < R && xd[pre] == yd[pre]) pre++;
  while (suf < r - pre && suf < R - pre && xd[r - 1 - suf] == yd[R - 1 - suf]) suf++;
  for (unsigned i = 0; i < pre; i++) xi[i] = index[i];
  for (unsigned i = 0; i < suf; i++) xi[r - 1 - i] = index[R - 1 - i];
  unsigned xm = r - pre - suf, ym = R - pre - suf;
  if (!xm) return; /* the middle of y holds only unit dims */
  kr_value lin = ks_linearize(e->kb, index + pre, yd + pre, ym);
  ks_delinearize(e->kb, lin, xd + pre, xm, xi + pre);
}

static kr_value slice_index(ks_emitter *e, kr_value j, int64_t start, int64_t step) {
  return ks_addc(e->kb, ks_mulc(e->kb, j, step), start);
}

/* The pieces of a concat: a constant index picks its piece at emission time; otherwise a chain
 * of kernel.if on the axis index runs exactly one piece's element code, so a thread loads only
 * the piece that holds its element (a warp across a boundary splits into two coalesced partial
 * accesses instead of every lane loading every piece), and the value flows out through a
 * register (a local 1-element buffer, since SIMT regions yield no values). */
static kr_value concat(ks_emitter *e, kr_op *op, const kr_value *index) {
  unsigned R;
  es_dims(kr_op_result(op, 0), &R);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)R) return es_error(e, op, "concat axis out of range");
  ks_builder *kb = e->kb;
  kr_value j = index[axis];
  int64_t off = 0, c;
  bool jc = ks_const_value(j, &c);
  kr_value xi[KR_KERNEL_MAX_RANK];
  for (unsigned d = 0; d < R; d++) xi[d] = index[d];
  unsigned last = op->num_operands;
  for (unsigned k = 0; k < op->num_operands; k++) {
    unsigned r_;
    if (es_dims(kr_op_operand(op, k), &r_)[axis] > 0) last = k;
  }
  if (last == op->num_operands) return es_error(e, op, "concat of empty pieces");
  kr_value acc = NULL;
  ks_scope scopes[64];
  unsigned open = 0;
  kr_value result = NULL;
  for (unsigned k = 0; k <= last; k++) {
    kr_value x = kr_op_operand(op, k);
    unsigned r_;
    int64_t dim = es_dims(x, &r_)[axis];
    if (dim == 0) continue;
    if (jc) { /* a constant index: the piece is known */
      if ((c >= off && c < off + dim) || k == last) {
        xi[axis] = ks_index(kb, c - off);
        return ks_emit_element(e, x, xi);
      }
      off += dim;
      continue;
    }
    bool nested = k < last && open < 64;
    if (nested) {
      if (!acc) acc = es_acc_alloc(e, es_scalar_type(e, es_elem_of(kr_op_result(op, 0))));
      kr_value in = es_index_cmp(e, "slt", j, off + dim);
      ks_if(kb, in, &scopes[open]);
    }
    xi[axis] = ks_addc(kb, j, -off);
    kr_value v = ks_emit_element(e, x, xi);
    if (!v) {
      while (open) ks_end(kb, &scopes[--open]);
      return NULL;
    }
    if (acc) es_acc_store(e, acc, v);
    else result = v;
    if (nested) ks_else(kb, &scopes[open++]);
    off += dim;
  }
  while (open) ks_end(kb, &scopes[--open]);
  return acc ? es_acc_load(e, acc) : result;
}

enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

/* The padding value: the `value` operand (rank 0) or zero of scalar type st. */
static kr_value pad_fill(ks_emitter *e, kr_op *op, kr_type st) {
  if (op->num_operands > 1) return ks_emit_element(e, kr_op_operand(op, 1), NULL);
  return st->kind == KR_TYPE_FLOAT ? es_const_float(e, st, 0.0) : es_const_int(e, st, 0);
}

static kr_value pad(ks_emitter *e, kr_op *op, const kr_value *index) {
  unsigned r;
  kr_value x = kr_op_operand(op, 0);
  const int64_t *xd = es_dims(x, &r);
  const int64_t *yd = es_dims(kr_op_result(op, 0), &r);
  bool ok = true;
  const int64_t *pads = ints(op, "pads", 2 * r, &ok), *interior = NULL;
  if (kr_op_attr_present(op, "interior")) interior = ints(op, "interior", r, &ok);
  if (!ok) return es_error(e, op, "malformed pads");
  const char *ms = kr_op_attr_string(op, "mode");
  enum pad_mode m = !ms || !strcmp(ms, "constant") ? PAD_CONSTANT : !strcmp(ms, "edge") ? PAD_EDGE : PAD_REFLECT;
  ks_builder *kb = e->kb;
  kr_value xi[KR_KERNEL_MAX_RANK], valid = NULL;
  bool empty = false;
  for (unsigned d = 0; d < r; d++) empty |= xd[d] == 0;
  if (empty && m != PAD_CONSTANT) return es_error(e, op, "%s padding of an empty axis", ms);
  if (empty) return pad_fill(e, op, es_scalar_type(e, es_elem_of(x))); /* nothing but padding */
  for (unsigned d = 0; d < r; d++) {
    int64_t low = pads[d], high = pads[r + d], in = interior ? interior[d] : 0, dim = xd[d];
    kr_value p = ks_addc(kb, index[d], -low);
    if (m == PAD_CONSTANT) {
      int64_t q = in + 1;
      kr_value src = ks_divc(kb, p, q);
      kr_value ok_d = NULL;
      if (low > 0) ok_d = es_index_cmp(e, "sge", p, 0);
      if (q > 1) {
        kr_value rem = ks_remc(kb, p, q);
        kr_value mult = es_cmpi(e, "eq", rem, ks_index(kb, 0));
        ok_d = ok_d ? ks_and(kb, ok_d, mult) : mult;
      }
      if (high > 0) {
        kr_value lt = es_index_cmp(e, "slt", src, dim);
        ok_d = ok_d ? ks_and(kb, ok_d, lt) : lt;
      }
      if (ok_d) valid = valid ? ks_and(kb, valid, ok_d) : ok_d;
      xi[d] = ok_d || low < 0 ? es_clamp_index(e, src, 0, dim - 1) : src;
      (void)yd;
    } else if (low <= 0 && high <= 0) {
      xi[d] = p;
    } else if (m == PAD_EDGE || dim == 1) {
      xi[d] = es_clamp_index(e, p, 0, dim - 1);
    } else {
      /* reflect: with pads < dim the source is -p below 0 and 2(dim-1) - p above dim-1; larger
       * pads wrap with the period 2(dim-1) first, as the CPU kernel. */
      int64_t period = 2 * (dim - 1);
      if (low >= dim || high >= dim) {
        kr_value rr = ks_remc(kb, p, period);
        kr_value neg = es_index_cmp(e, "slt", rr, 0);
        p = es_select(e, neg, ks_addc(kb, rr, period), rr);
      }
      kr_value below = es_index_cmp(e, "slt", p, 0);
      kr_value above = es_index_cmp(e, "sge", p, dim);
      kr_value s = es_select(e, below, ks_sub(kb, ks_index(kb, 0), p), p);
      xi[d] = es_select(e, above, ks_sub(kb, ks_index(kb, period), p), s);
    }
  }
  kr_value v = ks_emit_element(e, x, xi);
  if (!v || !valid) return v;
  kr_value fill = pad_fill(e, op, kr_value_type(v));
  return fill ? es_select(e, valid, v, fill) : NULL;
}

static kr_value gather(ks_emitter *e, kr_op *op, const kr_value *index) {
  kr_value data = kr_op_operand(op, 0), ind = kr_op_operand(op, 1);
  unsigned r, ri;
  const int64_t *dd = es_dims(data, &r);
  es_dims(ind, &ri);
  int64_t axis = kr_op_attr_int(op, "axis");
  if (axis < 0 || axis >= (int64_t)r) return es_error(e, op, "gather axis out of range");
  kr_value ii[KR_KERNEL_MAX_RANK], xi[KR_KERNEL_MAX_RANK];
  for (unsigned d = 0; d < ri; d++) ii[d] = index[axis + d];
  kr_value iv = ks_emit_element(e, ind, ii);
  if (!iv) return NULL;
  kr_type ie = es_elem_of(ind);
  kr_context *ctx = e->k->ctx;
  kr_type idx_t = ks_index_type(e->kb);
  kr_value i;
  if (ie->kind == KR_TYPE_INDEX) {
    i = iv;
  } else if (es_is_unsigned(ie) && ie->u.integer.width < 64) {
    i = es_op1(e, "arith.index_cast", es_op1(e, "arith.extui", iv, kr_type_integer(ctx, 64, KR_SIGNLESS)), idx_t);
  } else {
    i = es_op1(e, "arith.index_cast", iv, idx_t);
  }
  int64_t dim = dd[axis];
  if (!es_is_unsigned(ie)) {
    kr_value neg = es_index_cmp(e, "slt", i, 0);
    kr_value wrapped = ks_addc(e->kb, i, dim);
    i = es_select(e, neg, wrapped, i);
  }
  for (unsigned d = 0; d < (unsigned)axis; d++) xi[d] = index[d];
  xi[axis] = es_clamp_index(e, i, 0, dim - 1);
  for (unsigned d = (unsigned)axis + 1; d < r; d++) xi[d] = index[d - 1 + ri];
  return ks_emit_element(e, data, xi);
}

kr_value es_layout(ks_emitter *e, kr_op *op, const kr_value *index) {
  const char *n = op->name + 5;
  kr_value xi[KR_KERNEL_MAX_RANK];
  kr_value x = kr_op_operand(op, 0);
  if (!strcmp(n, "broadcast")) {
    broadcast_map(e, op, index, xi);
    return ks_emit_element(e, x, xi);
  }
  if (!strcmp(n, "transpose")) {
    if (!transpose_map(op, index, xi)) return es_error(e, op, "malformed perm");
    return ks_emit_element(e, x, xi);
  }
  if (!strcmp(n, "reshape")) {
    reshape_map(e, op, index, xi);
    return ks_emit_element(e, x, xi);
  }
  if (!strcmp(n, "slice")) {
    unsigned r;
    es_dims(x, &r);
    bool ok = true;
    const int64_t *st = ints(op, "starts", r, &ok), *sp = ints(op, "steps", r, &ok);
    if (!ok) return es_error(e, op, "malformed slice");
    for (unsigned d = 0; d < r; d++) xi[d] = slice_index(e, index[d], st[d], sp[d]);
    return ks_emit_element(e, x, xi);
  }
  if (!strcmp(n, "concat")) return concat(e, op, index);
  if (!strcmp(n, "pad")) return pad(e, op, index);
  if (!strcmp(n, "gather")) return gather(e, op, index);
  return es_error(e, op, "'%s' has no element rule", op->name);
}

bool es_layout_vector_map(ks_emitter *e, kr_op *op, const kr_value *index, unsigned width, kr_value *oi,
                          bool *scalar_bcast, bool build) {
  const char *n = op->name + 5;
  unsigned r, R;
  kr_value x = kr_op_operand(op, 0);
  const int64_t *xd = es_dims(x, &r);
  const int64_t *yd = es_dims(kr_op_result(op, 0), &R);
  *scalar_bcast = false;
  if (!strcmp(n, "broadcast")) {
    /* The last axis is new or of size 1: every lane reads one element. */
    *scalar_bcast = r == 0 || xd[r - 1] != yd[R - 1];
    if (build) broadcast_map(e, op, index, oi);
    return true;
  }
  if (!strcmp(n, "transpose")) {
    bool ok = true;
    const int64_t *perm = ints(op, "perm", r, &ok);
    if (!ok || r == 0 || perm[r - 1] != (int64_t)r - 1) return false;
    return !build || transpose_map(op, index, oi);
  }
  if (!strcmp(n, "reshape")) {
    /* Consecutive results from a multiple of width stay in one operand row when both last dims
     * are multiples of width. */
    if (r == 0 || xd[r - 1] % width || yd[R - 1] % width) return false;
    if (build) reshape_map(e, op, index, oi);
    return true;
  }
  if (!strcmp(n, "slice")) {
    bool ok = true;
    const int64_t *st = ints(op, "starts", r, &ok), *sp = ints(op, "steps", r, &ok);
    if (!ok || r == 0 || sp[r - 1] != 1 || st[r - 1] % width) return false;
    if (build)
      for (unsigned d = 0; d < r; d++) oi[d] = slice_index(e, index[d], st[d], sp[d]);
    return true;
  }
  return false;
}
