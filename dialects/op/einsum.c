/* dialects/op/einsum.c - parsing of ONNX Einsum-12 equations (numpy.einsum's grammar). */
#include <string.h>

#include "dialects/op/einsum.h"

static int letter_label(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

/* One term ("ab...c"): its letters in order with the ellipsis position (-1: none). */
typedef struct term {
  int labels[KR_OP_MAX_RANK + 1];
  unsigned n;
  int ellipsis_at;
} term;

static kr_status parse_term(kr_op *op, const char *s, size_t len, term *t) {
  t->n = 0;
  t->ellipsis_at = -1;
  for (size_t i = 0; i < len;) {
    if (s[i] == '.') {
      if (i + 3 > len || strncmp(s + i, "...", 3) || t->ellipsis_at >= 0)
        return kr_op_emit_error(op, "attribute 'equation': malformed ellipsis in term '%.*s'", (int)len, s);
      t->ellipsis_at = (int)t->n;
      i += 3;
      continue;
    }
    int l = letter_label(s[i]);
    if (l < 0) return kr_op_emit_error(op, "attribute 'equation': unexpected character '%c'", s[i]);
    if (t->n >= KR_OP_MAX_RANK) return kr_op_emit_error(op, "attribute 'equation': term '%.*s' is too long", (int)len, s);
    t->labels[t->n++] = l;
    i++;
  }
  return KR_SUCCESS;
}

kr_status kr_einsum_plan(kr_op *op, const kr_type *types, unsigned n, kr_einsum *plan) {
  const char *eq_raw = kr_op_attr_string(op, "equation");
  if (!eq_raw) return kr_op_emit_error(op, "requires attribute 'equation'");
  char eq[512];
  size_t len = 0;
  for (const char *p = eq_raw; *p; p++) {
    if (*p == ' ') continue;
    if (len + 1 >= sizeof eq) return kr_op_emit_error(op, "attribute 'equation' is too long");
    eq[len++] = *p;
  }
  eq[len] = 0;
  memset(plan, 0, sizeof *plan);
  plan->num_operands = n;
  char *arrow = strstr(eq, "->");
  size_t lhs_len = arrow ? (size_t)(arrow - eq) : len;

  /* Input terms. */
  term terms[KR_EINSUM_MAX_OPERANDS];
  unsigned nt = 0, ell_rank = 0;
  unsigned ell_of[KR_EINSUM_MAX_OPERANDS];
  for (size_t start = 0;;) {
    size_t end = start;
    while (end < lhs_len && eq[end] != ',') end++;
    if (nt >= n || nt >= KR_EINSUM_MAX_OPERANDS)
      return kr_op_emit_error(op, "attribute 'equation' \"%s\" has more terms than the %u operands", eq_raw, n);
    if (parse_term(op, eq + start, end - start, &terms[nt])) return KR_FAILURE;
    unsigned rank = types[nt]->u.shaped.rank;
    term *t = &terms[nt];
    if (t->ellipsis_at < 0 ? t->n != rank : t->n > rank)
      return kr_op_emit_error(op, "attribute 'equation': term %u '%.*s' does not match operand rank %u", nt,
                              (int)(end - start), eq + start, rank);
    ell_of[nt] = rank - t->n;
    if (ell_of[nt] > ell_rank) ell_rank = ell_of[nt];
    nt++;
    if (end >= lhs_len) break;
    start = end + 1;
  }
  if (nt != n) return kr_op_emit_error(op, "attribute 'equation' \"%s\" has %u terms but the op has %u operands", eq_raw, nt, n);

  /* Axis labels and label sizes. */
  unsigned count[KR_EINSUM_MAX_LABELS] = {0};
  for (unsigned i = 0; i < n; i++) {
    const term *t = &terms[i];
    unsigned ax = 0;
    for (unsigned k = 0; k <= t->n; k++) {
      if ((int)k == t->ellipsis_at)
        for (unsigned e = 0; e < ell_of[i]; e++) plan->label[i][ax++] = 52 + (ell_rank - ell_of[i]) + e;
      if (k < t->n) plan->label[i][ax++] = (unsigned)t->labels[k];
    }
    plan->rank[i] = ax;
    for (unsigned a = 0; a < ax; a++) {
      unsigned l = plan->label[i][a];
      int64_t d = types[i]->u.shaped.dims[a];
      count[l]++;
      if (!plan->used[l] || plan->dim[l] == 1) {
        plan->dim[l] = d;
      } else if (d != plan->dim[l] && d != 1) {
        if (l >= 52)
          return kr_op_emit_error(op, "attribute 'equation': ellipsis axes of the operands do not broadcast (%lld vs %lld)",
                                  (long long)plan->dim[l], (long long)d);
        return kr_op_emit_error(op, "attribute 'equation': label '%c' has sizes %lld and %lld",
                                l < 26 ? 'a' + l : 'A' + (l - 26), (long long)plan->dim[l], (long long)d);
      }
      plan->used[l] = true;
    }
  }

  /* Output labels. */
  if (arrow) {
    term out;
    if (parse_term(op, arrow + 2, len - lhs_len - 2, &out)) return KR_FAILURE;
    for (unsigned k = 0; k <= out.n; k++) {
      if ((int)k == out.ellipsis_at)
        for (unsigned e = 0; e < ell_rank; e++) plan->out_label[plan->out_rank++] = 52 + e;
      if (k == out.n) break;
      unsigned l = (unsigned)out.labels[k];
      if (!plan->used[l])
        return kr_op_emit_error(op, "attribute 'equation': output label '%c' does not occur in the inputs",
                                l < 26 ? 'a' + l : 'A' + (l - 26));
      for (unsigned q = 0; q < plan->out_rank; q++)
        if (plan->out_label[q] == l)
          return kr_op_emit_error(op, "attribute 'equation': output label '%c' is repeated", l < 26 ? 'a' + l : 'A' + (l - 26));
      if (plan->out_rank >= KR_OP_MAX_RANK) return kr_op_emit_error(op, "attribute 'equation': output rank too large");
      plan->out_label[plan->out_rank++] = l;
    }
  } else {
    for (unsigned e = 0; e < ell_rank; e++) plan->out_label[plan->out_rank++] = 52 + e;
    /* ASCII order: 'A'..'Z' (labels 26..51) before 'a'..'z' (0..25). */
    for (unsigned k = 0; k < 52; k++) {
      unsigned l = k < 26 ? 26 + k : k - 26;
      if (count[l] != 1) continue;
      if (plan->out_rank >= KR_OP_MAX_RANK) return kr_op_emit_error(op, "attribute 'equation': output rank too large");
      plan->out_label[plan->out_rank++] = l;
    }
  }
  for (unsigned q = 0; q < plan->out_rank; q++) plan->out_dims[q] = plan->used[plan->out_label[q]] ? plan->dim[plan->out_label[q]] : 1;
  return KR_SUCCESS;
}
