#!/usr/bin/env python3
"""examples/gen_examples.py - writes korch's bundled example networks and their inputs.

    python3 examples/gen_examples.py [OUTDIR]      (default: the directory of this script)

writes, for NAME in transformer_layer and small_convnet, OUTDIR/NAME.kir (the network at the op
level: ONNX opset 17 semantics, the ops of dialects/op/ops.def, weights as dense constants),
OUTDIR/NAME.input.npy (its input) and OUTDIR/NAME.output.npy (its expected output, computed by an
independent float64 reference in this script, written from the ONNX operator definitions).

Pure python3 standard library (no numpy), and deterministic: the weights and inputs come from a
fixed-seed splitmix64 stream (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), every weight is printed from an integer count of 1/1000s, and the
reference sums with math.fsum (exactly rounded, so independent of summation order), so running
the script again reproduces the shipped files byte for byte (test/Examples/regenerate.kir).

Weights are uniform(-1, 1) / sqrt(fan_in) (PyTorch's default Linear/Conv initialisation bound),
rounded to 3 decimals so that the files stay small (about 0.4 MB for the transformer layer);
inputs are uniform(-1, 1) f32, written as NumPy .npy version 1.0 files (the format of
numpy/lib/format.py: magic, little-endian u16 header length, a Python-literal header padded with
spaces to a multiple of 64 bytes and ended by a newline, then the raw little-endian data).
"""
import math
import os
import struct
import sys

MASK64 = (1 << 64) - 1


class SplitMix64:
    """splitmix64: one 64-bit state, advanced by the golden-ratio increment and mixed."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        """A float in [-1, 1): the top 53 bits of one draw."""
        return (self.next_u64() >> 11) / float(1 << 52) - 1.0


# ----- numbers as text ----------------------------------------------------------------------------

def milli(rng, bound):
    """uniform(-bound, bound) rounded to a multiple of 1/1000, as an integer count of 1/1000s."""
    return int(round(rng.uniform() * bound * 1000.0))


def fmt_milli(k):
    """k/1000 as a .kir float literal (always with a '.'; no negative zero)."""
    if k == 0:
        return "0.0"
    sign = "-" if k < 0 else ""
    k = abs(k)
    return "%s%d.%03d" % (sign, k // 1000, k % 1000)


def dense_text(values, shape, indent):
    """A nested dense<...> literal of `values` (strings, row-major) with one row per line (the
    innermost dimension, or the innermost two when the innermost is a short one such as a 3x3
    kernel's), so that the file stays readable and diffable."""
    one_line = len(shape) <= 1 or (len(shape) == 2 and shape[1] < 8)
    step = len(values) // shape[0] if shape and shape[0] else 0
    if len(shape) == 1:
        return "[" + ", ".join(values) + "]"
    inner = [dense_text(values[i * step:(i + 1) * step], shape[1:], indent + 1)
             for i in range(shape[0])]
    sep = ", " if one_line else ",\n" + " " * (indent + 1)
    return "[" + sep.join(inner) + "]"


def tensor_type(shape, elem="f32"):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


# ----- a small module writer ----------------------------------------------------------------------

class Func:
    """Accumulates the body of one func.func; every op line is `%name = "op.x"(...) ...`."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.types = {}
        self.values = {}   # constant name -> its f32 values (row-major), for the reference

    def const(self, name, shape, texts):
        t = tensor_type(shape)
        if len(shape) <= 1:
            lit = dense_text(texts, shape, 0) if shape else texts[0]
            self.lines.append('  %%%s = "op.constant"() {value = dense<%s> : %s} : () -> %s'
                              % (name, lit, t, t))
        else:
            lit = dense_text(texts, shape, 4)
            self.lines.append('  %%%s = "op.constant"() {value = dense<\n    %s> : %s} : () -> %s'
                              % (name, lit, t, t))
        self.types[name] = t
        self.values[name] = [f32(float(v)) for v in texts]
        return name

    def weight(self, name, shape, fan_in):
        n = 1
        for d in shape:
            n *= d
        bound = 1.0 / math.sqrt(fan_in)
        return self.const(name, shape, [fmt_milli(milli(self.rng, bound)) for _ in range(n)])

    def around(self, name, shape, center, spread):
        """center + uniform(-spread, spread): batch-norm and layer-norm parameters."""
        n = 1
        for d in shape:
            n *= d
        c = int(round(center * 1000))
        return self.const(name, shape, [fmt_milli(c + milli(self.rng, spread)) for _ in range(n)])

    def scalar(self, name, text):
        return self.const(name, [], [text])

    def i64(self, name, values):
        t = tensor_type([len(values)], "i64")
        self.lines.append('  %%%s = "op.constant"() {value = dense<[%s]> : %s} : () -> %s'
                          % (name, ", ".join(str(v) for v in values), t, t))
        self.types[name] = t
        return name

    def op(self, name, opname, operands, shape, attrs=""):
        t = tensor_type(shape)
        attr = " {" + attrs + "}" if attrs else ""
        self.lines.append('  %%%s = "op.%s"(%s)%s : (%s) -> %s'
                          % (name, opname, ", ".join("%" + o for o in operands), attr,
                             ", ".join(self.types[o] for o in operands), t))
        self.types[name] = t
        return name

    def comment(self, text):
        self.lines.append("  // " + text)


def module_text(header, arg, arg_shape, result, f):
    out = [header.rstrip("\n"),
           'func.func @main(%%%s: %s {onnx.name = "%s"}) -> (%s {onnx.name = "%s"}) {'
           % (arg, tensor_type(arg_shape), arg, f.types[result], result)]
    out.extend(f.lines)
    out.append("  return %%%s : %s" % (result, f.types[result]))
    out.append("}")
    return "\n".join(out) + "\n"


def f32(v):
    """v rounded to the nearest f32 (what the .kir parser and the .npy reader see)."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def uniform_f32(n, rng):
    return [f32(rng.uniform()) for _ in range(n)]


def npy_bytes(shape, values):
    """An .npy v1.0 file of the f32 `values` (row-major) of `shape`."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join("%d" % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    data = b"".join(struct.pack("<f", v) for v in values)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


# ----- the transformer encoder layer --------------------------------------------------------------

S, D, H, F = 16, 64, 4, 256   # sequence, hidden, heads, FFN width (batch 1)
DH = D // H

TRANSFORMER_HEADER = """\
// examples/transformer_layer.kir - a transformer encoder layer (post-norm, as BERT's) at the op
// level (ONNX opset 17 semantics), written by examples/gen_examples.py (do not edit by hand:
// change the script and run it again).  Batch 1, sequence %(S)d, hidden %(D)d, %(H)d heads of %(DH)d, FFN %(F)d:
//   q, k, v = x Wq + bq, x Wk + bk, x Wv + bv            MatMul + Add       [1,%(S)d,%(D)d]
//   heads: Reshape [1,%(S)d,%(H)d,%(DH)d], Transpose to [1,%(H)d,%(S)d,%(DH)d] (k: [1,%(H)d,%(DH)d,%(S)d], transposed)
//   p = Softmax(q k^T * 1/sqrt(%(DH)d)), ctx = p v         MatMul, Mul, Softmax, MatMul
//   merge heads (Transpose, Reshape), attn = ctx Wo + bo
//   h1 = LayerNormalization(x + attn)
//   f = GELU(h1 W1 + b1) W2 + b2, GELU(t) = 0.5 t (1 + erf(t / sqrt 2))  (opset 17 has no Gelu)
//   y = LayerNormalization(h1 + f)
// Weights are fixed pseudo-random numbers, uniform(-1, 1)/sqrt(fan_in) rounded to 3 decimals.
//
//   korch-interp examples/transformer_layer.kir --input x=examples/transformer_layer.input.npy --print-outputs
//     (--expect y=examples/transformer_layer.output.npy --scaled-tol 1e-4: against the script's reference)
//   korch-opt examples/transformer_layer.kir --pass-pipeline='builtin.module(op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=report.txt},schedule,lower-task-mappings,plan-buffers)' -o planned.kir
//   korch-translate --emit-artifact planned.kir -o out/ && korch-run --dry-run out/
// (korch-compile examples/transformer_layer.kir -o out/ runs the same pipeline in one command.)
""" % {"S": S, "D": D, "H": H, "DH": DH, "F": F}


def transformer(rng):
    f = Func(rng)
    f.types["x"] = tensor_type([1, S, D])
    f.comment("multi-head self-attention")
    for p in ("q", "k", "v"):
        f.weight("w" + p, [D, D], D)
        f.weight("b" + p, [D], D)
        f.op(p + "_mm", "mat_mul", ["x", "w" + p], [1, S, D])
        f.op(p, "add", [p + "_mm", "b" + p], [1, S, D])
    f.i64("heads_shape", [1, S, H, DH])
    for p in ("q", "k", "v"):
        f.op(p + "_4d", "reshape", [p, "heads_shape"], [1, S, H, DH])
    f.op("qh", "transpose", ["q_4d"], [1, H, S, DH], "perm = array<i64: 0, 2, 1, 3>")
    f.op("kt", "transpose", ["k_4d"], [1, H, DH, S], "perm = array<i64: 0, 2, 3, 1>")
    f.op("vh", "transpose", ["v_4d"], [1, H, S, DH], "perm = array<i64: 0, 2, 1, 3>")
    f.op("qk", "mat_mul", ["qh", "kt"], [1, H, S, S])
    f.scalar("inv_sqrt_dh", fmt_milli(int(round(1000.0 / math.sqrt(DH)))))
    f.op("scores", "mul", ["qk", "inv_sqrt_dh"], [1, H, S, S])
    f.op("probs", "softmax", ["scores"], [1, H, S, S], "axis = -1 : i64")
    f.op("ctx_h", "mat_mul", ["probs", "vh"], [1, H, S, DH])
    f.op("ctx_t", "transpose", ["ctx_h"], [1, S, H, DH], "perm = array<i64: 0, 2, 1, 3>")
    f.i64("merged_shape", [1, S, D])
    f.op("ctx", "reshape", ["ctx_t", "merged_shape"], [1, S, D])
    f.weight("wo", [D, D], D)
    f.weight("bo", [D], D)
    f.op("attn_mm", "mat_mul", ["ctx", "wo"], [1, S, D])
    f.op("attn", "add", ["attn_mm", "bo"], [1, S, D])
    f.comment("residual + LayerNormalization")
    f.op("res1", "add", ["x", "attn"], [1, S, D])
    f.around("ln1_scale", [D], 1.0, 0.1)
    f.around("ln1_bias", [D], 0.0, 0.1)
    f.op("h1", "layer_normalization", ["res1", "ln1_scale", "ln1_bias"], [1, S, D],
         "axis = -1 : i64, epsilon = 1.0e-05 : f32")
    f.comment("GELU MLP: 0.5 t (1 + erf(t / sqrt 2))")
    f.weight("w1", [D, F], D)
    f.weight("b1", [F], D)
    f.op("t_mm", "mat_mul", ["h1", "w1"], [1, S, F])
    f.op("t", "add", ["t_mm", "b1"], [1, S, F])
    f.scalar("inv_sqrt2", "0.7071067811865476")
    f.scalar("one", "1.0")
    f.scalar("half", "0.5")
    f.op("t_scaled", "mul", ["t", "inv_sqrt2"], [1, S, F])
    f.op("t_erf", "erf", ["t_scaled"], [1, S, F])
    f.op("t_erf1", "add", ["t_erf", "one"], [1, S, F])
    f.op("t_half", "mul", ["t", "half"], [1, S, F])
    f.op("gelu", "mul", ["t_half", "t_erf1"], [1, S, F])
    f.weight("w2", [F, D], F)
    f.weight("b2", [D], F)
    f.op("ffn_mm", "mat_mul", ["gelu", "w2"], [1, S, D])
    f.op("ffn", "add", ["ffn_mm", "b2"], [1, S, D])
    f.comment("residual + LayerNormalization")
    f.op("res2", "add", ["h1", "ffn"], [1, S, D])
    f.around("ln2_scale", [D], 1.0, 0.1)
    f.around("ln2_bias", [D], 0.0, 0.1)
    f.op("y", "layer_normalization", ["res2", "ln2_scale", "ln2_bias"], [1, S, D],
         "axis = -1 : i64, epsilon = 1.0e-05 : f32")
    return module_text(TRANSFORMER_HEADER, "x", [1, S, D], "y", f), f.values


# ----- the small conv net -------------------------------------------------------------------------

C0, C1, C2, HW, CLASSES = 3, 16, 32, 32, 10

CONVNET_HEADER = """\
// examples/small_convnet.kir - a small residual image classifier at the op level (ONNX opset 17
// semantics), written by examples/gen_examples.py (do not edit by hand: change the script and
// run it again).  Input 1x%(C0)dx%(HW)dx%(HW)d, %(CLASSES)d classes:
//   stem:   Conv 3x3 %(C0)d->%(C1)d (pad 1) + BatchNormalization + Relu, MaxPool 2x2    -> 1x%(C1)dx%(H2)dx%(H2)d
//   block:  Conv 3x3 + BatchNormalization + Relu + Conv 3x3 + BatchNormalization,
//           Add (the residual) + Relu                                      -> 1x%(C1)dx%(H2)dx%(H2)d
//   down:   Conv 3x3 %(C1)d->%(C2)d stride 2 + BatchNormalization + Relu              -> 1x%(C2)dx%(H4)dx%(H4)d
//   head:   GlobalAveragePool, Flatten, Gemm %(C2)d->%(CLASSES)d                            -> 1x%(CLASSES)d logits
// BatchNormalization is the inference form (scale, bias, running mean and variance constants).
// Weights are fixed pseudo-random numbers, uniform(-1, 1)/sqrt(fan_in) rounded to 3 decimals.
//
//   korch-interp examples/small_convnet.kir --input x=examples/small_convnet.input.npy --print-outputs
//     (--expect logits=examples/small_convnet.output.npy --scaled-tol 1e-4: against the script's reference)
//   korch-opt examples/small_convnet.kir --pass-pipeline='builtin.module(op-to-prim,canonicalize,prim-normalize-after-matmul,prim-reduce-as-matvec,canonicalize,cse,orchestrate{report=report.txt},schedule,lower-task-mappings,plan-buffers)' -o planned.kir
//   korch-translate --emit-artifact planned.kir -o out/ && korch-run --dry-run out/
// (korch-compile examples/small_convnet.kir -o out/ runs the same pipeline in one command.)
""" % {"C0": C0, "C1": C1, "C2": C2, "HW": HW, "H2": HW // 2, "H4": HW // 4, "CLASSES": CLASSES}


def conv_bn(f, name, inp, cin, cout, hw_out, stride):
    """Conv 3x3 (pad 1, no bias: the batch norm's bias takes its place) + BatchNormalization."""
    f.weight(name + "_w", [cout, cin, 3, 3], cin * 9)
    attrs = "kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>"
    if stride != 1:
        attrs += ", strides = array<i64: %d, %d>" % (stride, stride)
    f.op(name + "_conv", "conv", [inp, name + "_w"], [1, cout, hw_out, hw_out], attrs)
    f.around(name + "_bn_scale", [cout], 1.0, 0.2)
    f.around(name + "_bn_bias", [cout], 0.0, 0.1)
    f.around(name + "_bn_mean", [cout], 0.0, 0.1)
    f.around(name + "_bn_var", [cout], 1.0, 0.5)
    return f.op(name + "_bn", "batch_normalization",
                [name + "_conv", name + "_bn_scale", name + "_bn_bias", name + "_bn_mean",
                 name + "_bn_var"], [1, cout, hw_out, hw_out], "epsilon = 1.0e-05 : f32")


def convnet(rng):
    f = Func(rng)
    f.types["x"] = tensor_type([1, C0, HW, HW])
    h2, h4 = HW // 2, HW // 4
    f.comment("stem")
    conv_bn(f, "stem", "x", C0, C1, HW, 1)
    f.op("stem_relu", "relu", ["stem_bn"], [1, C1, HW, HW])
    f.op("pool", "max_pool", ["stem_relu"], [1, C1, h2, h2],
         "kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>")
    f.comment("residual block")
    conv_bn(f, "block1", "pool", C1, C1, h2, 1)
    f.op("block1_relu", "relu", ["block1_bn"], [1, C1, h2, h2])
    conv_bn(f, "block2", "block1_relu", C1, C1, h2, 1)
    f.op("block_sum", "add", ["block2_bn", "pool"], [1, C1, h2, h2])
    f.op("block_relu", "relu", ["block_sum"], [1, C1, h2, h2])
    f.comment("downsampling")
    conv_bn(f, "down", "block_relu", C1, C2, h4, 2)
    f.op("down_relu", "relu", ["down_bn"], [1, C2, h4, h4])
    f.comment("head")
    f.op("gap", "global_average_pool", ["down_relu"], [1, C2, 1, 1])
    f.op("flat", "flatten", ["gap"], [1, C2])
    f.weight("fc_w", [CLASSES, C2], C2)
    f.weight("fc_b", [CLASSES], C2)
    f.op("logits", "gemm", ["flat", "fc_w", "fc_b"], [1, CLASSES], "transB = 1 : i64")
    return module_text(CONVNET_HEADER, "x", [1, C0, HW, HW], "logits", f), f.values


# ----- the independent reference: ONNX semantics in float64, in plain Python --------------------
# What the test compares korch's op-level interpreter with (test/Examples/*.kir): written from the
# ONNX operator definitions, not from korch's kernels, computed in float64 from the f32 weights
# and inputs and rounded to f32 once at the end.

def matmul(a, w, k, n):
    """a: rows of k floats; w: k x n row-major -> rows of n floats."""
    cols = [w[j::n] for j in range(n)]
    return [[math.fsum(p * q for p, q in zip(row, col)) for col in cols] for row in a]


def add_bias(rows, b):
    return [[v + bb for v, bb in zip(row, b)] for row in rows]


def layer_norm(rows, scale, bias, eps):
    """LayerNormalization over the last axis: (x - mean) / sqrt(var + eps) * scale + bias."""
    out = []
    for row in rows:
        mean = math.fsum(row) / len(row)
        var = math.fsum((v - mean) ** 2 for v in row) / len(row)
        inv = 1.0 / math.sqrt(var + eps)
        out.append([(v - mean) * inv * g + b for v, g, b in zip(row, scale, bias)])
    return out


def softmax(row):
    m = max(row)
    e = [math.exp(v - m) for v in row]
    s = math.fsum(e)
    return [v / s for v in e]


def transformer_reference(w, x):
    rows = [x[i * D:(i + 1) * D] for i in range(S)]
    q, k, v = (add_bias(matmul(rows, w["w" + p], D, D), w["b" + p]) for p in "qkv")
    scale = w["inv_sqrt_dh"][0]
    ctx = [[0.0] * D for _ in range(S)]
    for h in range(H):
        lo, hi = h * DH, (h + 1) * DH
        for i in range(S):
            p = softmax([math.fsum(a * b for a, b in zip(q[i][lo:hi], k[j][lo:hi])) * scale
                         for j in range(S)])
            for d in range(lo, hi):
                ctx[i][d] = math.fsum(p[j] * v[j][d] for j in range(S))
    attn = add_bias(matmul(ctx, w["wo"], D, D), w["bo"])
    eps = f32(1.0e-05)
    h1 = layer_norm([[a + b for a, b in zip(r, s)] for r, s in zip(rows, attn)],
                    w["ln1_scale"], w["ln1_bias"], eps)
    t = add_bias(matmul(h1, w["w1"], D, F), w["b1"])
    c = w["inv_sqrt2"][0]
    g = [[0.5 * v * (1.0 + math.erf(v * c)) for v in row] for row in t]
    ffn = add_bias(matmul(g, w["w2"], F, D), w["b2"])
    y = layer_norm([[a + b for a, b in zip(r, s)] for r, s in zip(h1, ffn)],
                   w["ln2_scale"], w["ln2_bias"], eps)
    return [f32(v) for row in y for v in row]


def conv3x3(x, cin, hw, wt, cout, stride):
    """Conv 3x3, pads 1, no bias; x: cin planes of hw x hw (lists of rows)."""
    ho = (hw + 2 - 3) // stride + 1
    padded = [[[0.0] * (hw + 2)] + [[0.0] + r + [0.0] for r in plane] + [[0.0] * (hw + 2)]
              for plane in x]
    out = []
    for co in range(cout):
        taps = [(ci, ky, kx, wt[((co * cin + ci) * 3 + ky) * 3 + kx])
                for ci in range(cin) for ky in range(3) for kx in range(3)]
        out.append([[math.fsum(wv * padded[ci][oy * stride + ky][ox * stride + kx]
                               for ci, ky, kx, wv in taps)
                     for ox in range(ho)] for oy in range(ho)])
    return out


def batch_norm_relu(x, w, name, relu):
    eps = f32(1.0e-05)
    out = []
    for c, plane in enumerate(x):
        inv = 1.0 / math.sqrt(w[name + "_bn_var"][c] + eps)
        sc, b, m = w[name + "_bn_scale"][c], w[name + "_bn_bias"][c], w[name + "_bn_mean"][c]
        out.append([[(v - m) * inv * sc + b for v in r] for r in plane])
    return [[[max(v, 0.0) for v in r] for r in p] for p in out] if relu else out


def convnet_reference(w, x):
    planes = [[x[(c * HW + i) * HW:(c * HW + i + 1) * HW] for i in range(HW)] for c in range(C0)]
    a = batch_norm_relu(conv3x3(planes, C0, HW, w["stem_w"], C1, 1), w, "stem", True)
    h2, h4 = HW // 2, HW // 4
    pool = [[[max(p[y][x] for y in (2 * i, 2 * i + 1) for x in (2 * j, 2 * j + 1))
              for j in range(h2)] for i in range(h2)] for p in a]
    b = batch_norm_relu(conv3x3(pool, C1, h2, w["block1_w"], C1, 1), w, "block1", True)
    b = batch_norm_relu(conv3x3(b, C1, h2, w["block2_w"], C1, 1), w, "block2", False)
    r = [[[max(u + v, 0.0) for u, v in zip(ru, rv)] for ru, rv in zip(pu, pv)]
         for pu, pv in zip(b, pool)]
    d = batch_norm_relu(conv3x3(r, C1, h2, w["down_w"], C2, 2), w, "down", True)
    gap = [math.fsum(v for row in p for v in row) / (h4 * h4) for p in d]
    logits = [math.fsum(g * wv for g, wv in zip(gap, w["fc_w"][c * C2:(c + 1) * C2])) + w["fc_b"][c]
              for c in range(CLASSES)]
    return [f32(v) for v in logits]


# ----- main ---------------------------------------------------------------------------------------

MAX_BYTES = 1 << 20   # the examples ship in the repository: each file must stay well under this


def write(path, data):
    """Write through a temporary file and rename, so that a reader never sees half a file.
    A file over MAX_BYTES is an error (exit 1): shrink the network instead of shipping it."""
    if len(data) > MAX_BYTES:
        sys.stderr.write("gen_examples.py: error: %s would be %d bytes, over the %d-byte limit\n"
                         % (path, len(data), MAX_BYTES))
        sys.exit(1)
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        sys.stderr.write("usage: gen_examples.py [OUTDIR]\n")
        return 2
    outdir = argv[1] if len(argv) == 2 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(outdir, exist_ok=True)
    # One stream per network and input, so that changing one leaves the others' numbers alone.
    seed = 0x6b6f7263   # "korc"
    nets = [("transformer_layer", transformer, transformer_reference, [1, S, D], [1, S, D]),
            ("small_convnet", convnet, convnet_reference, [1, C0, HW, HW], [1, CLASSES])]
    for i, (name, build, reference, in_shape, out_shape) in enumerate(nets):
        text, weights = build(SplitMix64(seed + 2 * i + 1))
        n = 1
        for d in in_shape:
            n *= d
        x = uniform_f32(n, SplitMix64(seed + 2 * i + 2))
        write(os.path.join(outdir, name + ".kir"), text.encode("ascii"))
        write(os.path.join(outdir, name + ".input.npy"), npy_bytes(in_shape, x))
        y = reference(weights, x)
        write(os.path.join(outdir, name + ".output.npy"), npy_bytes(out_shape, y))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
