/* dialects/op/conv_pool_geom.c - sliding-window geometry of Conv, ConvTranspose and the pools
 * (ONNX opset 17; the rules are quoted in conv_pool_geom.h). */
#include <stdlib.h>
#include <string.h>

#define KR_WINDOW_MAX ((int64_t)1 << 31)

#include "dialects/op/conv_pool_geom.h"

/* Python's // (ONNX's reference implementation splits negative ConvTranspose pads with it). */
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Reads an ints attribute of `want` elements into `out`, or `dflt` everywhere when absent. */
static kr_status read_ints(kr_op *op, const char *name, unsigned want, int64_t dflt, int64_t *out) {
  const int64_t *v;
  unsigned n = kr_op_attr_ints(op, name, &v);
  if (!v || !kr_op_attr_present(op, name)) {
    for (unsigned i = 0; i < want; i++) out[i] = dflt;
    return KR_SUCCESS;
  }
  if (n != want)
    return kr_op_emit_error(op, "attribute '%s' has %u values, expected %u (one per spatial axis%s)", name, n, want,
                            want % 2 == 0 && !strcmp(name, "pads") ? ", begins then ends" : "");
  memcpy(out, v, want * sizeof *out);
  return KR_SUCCESS;
}

typedef enum auto_pad_mode { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } auto_pad_mode;

static kr_status read_auto_pad(kr_op *op, auto_pad_mode *m) {
  const char *s = kr_op_attr_string(op, "auto_pad");
  if (!s || !strcmp(s, "NOTSET")) *m = PAD_NOTSET;
  else if (!strcmp(s, "SAME_UPPER")) *m = PAD_SAME_UPPER;
  else if (!strcmp(s, "SAME_LOWER")) *m = PAD_SAME_LOWER;
  else if (!strcmp(s, "VALID")) *m = PAD_VALID;
  else return kr_op_emit_error(op, "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"%s\"", s);
  return KR_SUCCESS;
}

/* Strides, dilations and kernel sizes common to both directions. */
static kr_status read_common(kr_op *op, const int64_t *in, const int64_t *kernel, unsigned nsp, kr_window_geom *g,
                             int64_t *pads) {
  memset(g, 0, sizeof *g);
  g->nsp = nsp;
  if (read_ints(op, "strides", nsp, 1, g->stride) || read_ints(op, "dilations", nsp, 1, g->dilation) ||
      read_ints(op, "pads", 2 * nsp, 0, pads))
    return KR_FAILURE;
  for (unsigned i = 0; i < nsp; i++) {
    g->in[i] = in[i];
    g->kernel[i] = kernel[i];
    if (kernel[i] < 1) return kr_op_emit_error(op, "kernel size %lld on spatial axis %u must be positive", (long long)kernel[i], i);
    if (g->stride[i] < 1) return kr_op_emit_error(op, "attribute 'strides' value %lld must be positive", (long long)g->stride[i]);
    if (g->dilation[i] < 1)
      return kr_op_emit_error(op, "attribute 'dilations' value %lld must be positive", (long long)g->dilation[i]);
    /* Window arithmetic ((k-1)*d+1, n+pads, out*stride) must stay far from int64 overflow; no
     * real window is anywhere near 2^31. */
    if (kernel[i] > KR_WINDOW_MAX || g->stride[i] > KR_WINDOW_MAX || g->dilation[i] > KR_WINDOW_MAX ||
        pads[i] > KR_WINDOW_MAX || pads[i] < -KR_WINDOW_MAX || pads[nsp + i] > KR_WINDOW_MAX ||
        pads[nsp + i] < -KR_WINDOW_MAX || in[i] > KR_WINDOW_MAX)
      return kr_op_emit_error(op, "window geometry on spatial axis %u exceeds %lld (kernel, strides, dilations, pads "
                              "and input size are limited to 2^31)", i, (long long)KR_WINDOW_MAX);
  }
  return KR_SUCCESS;
}

kr_status kr_window_geom_forward(kr_op *op, kr_window_kind kind, const int64_t *in, const int64_t *kernel,
                                 unsigned nsp, kr_window_geom *g) {
  int64_t pads[2 * KR_OP_MAX_RANK];
  auto_pad_mode mode;
  if (read_common(op, in, kernel, nsp, g, pads) || read_auto_pad(op, &mode)) return KR_FAILURE;
  bool ceil_mode = kind == KR_WINDOW_POOL && kr_op_attr_int(op, "ceil_mode") != 0;
  for (unsigned i = 0; i < nsp; i++) {
    int64_t s = g->stride[i], eff = (kernel[i] - 1) * g->dilation[i] + 1, n = in[i];
    switch (mode) {
    case PAD_NOTSET: {
      int64_t pb = pads[i], pe = pads[nsp + i];
      if (pb < 0 || pe < 0) return kr_op_emit_error(op, "attribute 'pads' must not be negative");
      int64_t span = n + pb + pe - eff;
      if (span < 0) {
        g->out[i] = 0;
      } else if (ceil_mode) {
        int64_t o = (span + s - 1) / s + 1;
        if ((o - 1) * s >= n + pb) o--;   /* the last window would start in the end padding */
        g->out[i] = o;
      } else {
        g->out[i] = span / s + 1;
      }
      g->pad_begin[i] = pb;
      g->pad_end[i] = pe;
      break;
    }
    case PAD_VALID:
      g->out[i] = n >= eff ? (n - eff) / s + 1 : 0;
      break;
    case PAD_SAME_UPPER:
    case PAD_SAME_LOWER: {
      int64_t o = (n + s - 1) / s, total = (o - 1) * s + eff - n;
      if (total < 0) total = 0;
      g->out[i] = o;
      g->pad_begin[i] = mode == PAD_SAME_UPPER ? total / 2 : total - total / 2;
      g->pad_end[i] = total - g->pad_begin[i];
      break;
    }
    }
    if (g->out[i] < 1)
      return kr_op_emit_error(op,
                              "spatial axis %u: the window (kernel %lld, dilation %lld) does not fit the input of size "
                              "%lld with pads %lld+%lld: the output would be empty",
                              i, (long long)kernel[i], (long long)g->dilation[i], (long long)n,
                              (long long)g->pad_begin[i], (long long)g->pad_end[i]);
  }
  return KR_SUCCESS;
}

kr_status kr_window_geom_transpose(kr_op *op, const int64_t *in, const int64_t *kernel, unsigned nsp,
                                   kr_window_geom *g) {
  int64_t pads[2 * KR_OP_MAX_RANK];
  auto_pad_mode mode;
  if (read_common(op, in, kernel, nsp, g, pads) || read_auto_pad(op, &mode) ||
      read_ints(op, "output_padding", nsp, 0, g->out_padding))
    return KR_FAILURE;
  const int64_t *oshape;
  unsigned noshape = kr_op_attr_ints(op, "output_shape", &oshape);
  bool has_oshape = kr_op_attr_present(op, "output_shape") && oshape;
  if (has_oshape && noshape != nsp && noshape != nsp + 2)
    return kr_op_emit_error(op, "attribute 'output_shape' has %u values, expected %u (spatial sizes) or %u", noshape,
                            nsp, nsp + 2);
  for (unsigned i = 0; i < nsp; i++) {
    int64_t s = g->stride[i], eff = (kernel[i] - 1) * g->dilation[i] + 1, n = in[i], op_ = g->out_padding[i];
    if (op_ < 0) return kr_op_emit_error(op, "attribute 'output_padding' must not be negative");
    int64_t full = s * (n - 1) + op_ + eff;
    if (has_oshape || mode == PAD_SAME_UPPER || mode == PAD_SAME_LOWER) {
      int64_t o = has_oshape ? oshape[noshape - nsp + i] : n * s;
      int64_t total = full - o;
      if (mode == PAD_SAME_UPPER) {
        g->pad_begin[i] = floor_div(total, 2);
        g->pad_end[i] = total - g->pad_begin[i];
      } else {
        g->pad_end[i] = floor_div(total, 2);
        g->pad_begin[i] = total - g->pad_end[i];
      }
    } else if (mode == PAD_NOTSET) {
      g->pad_begin[i] = pads[i];
      g->pad_end[i] = pads[nsp + i];
      if (pads[i] < 0 || pads[nsp + i] < 0) return kr_op_emit_error(op, "attribute 'pads' must not be negative");
    }
    g->out[i] = full - g->pad_begin[i] - g->pad_end[i];
    if (g->out[i] < 1)
      return kr_op_emit_error(op, "spatial axis %u: the output size %lld is not positive (input %lld, kernel %lld, pads %lld+%lld)",
                              i, (long long)g->out[i], (long long)n, (long long)kernel[i], (long long)g->pad_begin[i],
                              (long long)g->pad_end[i]);
  }
  return KR_SUCCESS;
}
