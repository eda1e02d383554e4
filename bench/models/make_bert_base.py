#!/usr/bin/env python3
"""Writes a BERT-base-sized encoder as ONNX, without PyTorch, onnx or NumPy (standard library only).

Usage: make_bert_base.py [--hidden H] [--heads N] [--ffn F] [--seq S] [--layers L] [--seed K]
                         [--name NAME] OUT_DIR

Writes into OUT_DIR (created if needed; never the source tree or ../shared):
    NAME.onnx          the encoder (default NAME: bert_base_2l)
    NAME.input_0.npy   hidden_states f32[1,S,H] ~ N(0,1)
    NAME.input_1.npy   attention_mask f32[1,1,1,S]: 0, and -10000 for the last 16 positions

The graph is node for node the one PyTorch 1.13 exports (opset 13, IR version 7,
do_constant_folding=True) for `BertEncoder` of ../shared/models/export_models.py, whose dev-set
instance is ../shared/models/bert_encoder_2l.onnx (hidden 256, 4 heads, FFN 1024, sequence 64):
per layer, in the exporter's order,
    q/k/v: MatMul(x, W[H,H]) + Add(bias, .), Reshape to [1,S,N,H/N] (int64 Constant nodes),
           Transpose q,v perm [0,2,1,3], k perm [0,2,3,1]
    scores: MatMul(q, k), Div by the Constant sqrt(H/N), Add attention_mask, Softmax(axis=-1)
    ctx: MatMul(probs, v), Transpose [0,2,1,3], Reshape to [1,S,H], o: MatMul + Add(bias, .)
    residual Add(x, o), LayerNorm decomposed: ReduceMean(axes=[-1]), Sub, Pow 2, ReduceMean,
           Add 1e-12, Sqrt, Div, Mul gamma, Add beta
    FFN: MatMul + Add(bias, .), exact GELU (Div sqrt 2, Erf, Add 1, Mul, Mul 0.5),
           MatMul + Add(bias, .), residual Add, LayerNorm as above
The defaults are BERT-base's widths (hidden 768, 12 heads of 64, FFN 3072) at sequence 128 and
2 layers, as issue #5's orchestration benchmark asks.  With --hidden 256 --heads 4 --ffn 1024
--seq 64 the graph has the shared model's structure (124 nodes, the same op sequence); only the
weights differ.

Weights are random and seeded (Python's `random`, --seed, default 0), drawn as PyTorch
initialises them: Linear weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)); LayerNorm re-drawn as
export_models.py's randomize_norms does, gamma ~ U(0.5, 1.5), beta ~ N(0, 0.1^2).  All
initializers are float32 `raw_data`.  The same arguments give byte-identical files.

The protobuf encoding comes from test/Frontend/onnx/Inputs/onnx_gen.py (the importer tests'
hand-written ONNX writer), imported, not copied.
"""
import argparse
import array
import math
import os
import random
import struct
import sys

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "test", "Frontend", "onnx", "Inputs"))
import onnx_gen as og  # noqa: E402

OPSET = 13
IR_VERSION = 7      # what PyTorch 1.13 writes for opset 13


def f32_raw(vals):
    """Little-endian float32 bytes of vals (an iterable of floats)."""
    a = array.array("f", vals)
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def uniform(rng, n, lo, hi):
    r = rng.random
    w = hi - lo
    return f32_raw(lo + w * r() for _ in range(n))


def normal(rng, n, mean, std):
    g = rng.gauss
    return f32_raw(g(mean, std) for _ in range(n))


def write_npy(path, shape, raw):
    """NumPy format 1.0, '<f4', C order (the layout the .npy files of ../shared/models use)."""
    dims = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join("%d" % d for d in shape)
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    hdr += " " * (-(10 + len(hdr) + 1) % 64) + "\n"       # magic..header end on a 64-byte boundary
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin1") + raw)


class Builder:
    """Collects nodes and initializers in the exporter's order."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.params = []        # per-layer biases and norm parameters (exporter lists these first)
        self.weights = []       # MatMul weights, [in, out] (the transposed nn.Linear weight)
        self.nweights = 0

    def node(self, op, name, inputs, outputs=None, attrs=()):
        out = outputs or [name + "_output_0"]
        self.nodes.append(og.node(op, inputs, out, name, attrs))
        return out[0]

    def const(self, name, dtype, dims, raw):
        t = og.tensor("", dtype, dims, raw=raw)
        return self.node("Constant", name, [], attrs=[og.attr_t("value", t)])

    def linear(self, prefix, pname, x, fin, fout):
        bound = 1.0 / math.sqrt(fin)
        w = "onnx::MatMul_%d" % (1000 + self.nweights)
        self.nweights += 1
        self.weights.append(og.tensor(w, og.FLOAT, [fin, fout], raw=uniform(self.rng, fin * fout, -bound, bound)))
        self.params.append(og.tensor(pname + ".bias", og.FLOAT, [fout], raw=uniform(self.rng, fout, -bound, bound)))
        y = self.node("MatMul", prefix + "/MatMul", [x, w])
        return self.node("Add", prefix + "/Add", [pname + ".bias", y])

    def layer_norm(self, prefix, pname, x, hidden, out=None):
        self.params.append(og.tensor(pname + ".weight", og.FLOAT, [hidden], raw=uniform(self.rng, hidden, 0.5, 1.5)))
        self.params.append(og.tensor(pname + ".bias", og.FLOAT, [hidden], raw=normal(self.rng, hidden, 0.0, 0.1)))
        axes = [og.attr_ints("axes", [-1])]
        mean = self.node("ReduceMean", prefix + "/ReduceMean", [x], attrs=axes)
        d = self.node("Sub", prefix + "/Sub", [x, mean])
        two = self.const(prefix + "/Constant", og.FLOAT, [], og.f32(2.0))
        sq = self.node("Pow", prefix + "/Pow", [d, two])
        var = self.node("ReduceMean", prefix + "/ReduceMean_1", [sq], attrs=axes)
        eps = self.const(prefix + "/Constant_1", og.FLOAT, [], og.f32(1e-12))
        ve = self.node("Add", prefix + "/Add", [var, eps])
        sd = self.node("Sqrt", prefix + "/Sqrt", [ve])
        n = self.node("Div", prefix + "/Div", [d, sd])
        m = self.node("Mul", prefix + "/Mul", [n, pname + ".weight"])
        return self.node("Add", prefix + "/Add_1", [m, pname + ".bias"], [out] if out else None)

    def bert_layer(self, i, x, mask, seq, hidden, heads, ffn, out=None):
        p, pn = "/layers.%d" % i, "layers.%d" % i
        hd = hidden // heads
        split = og.i64(1, seq, heads, hd)
        q = self.linear(p + "/q", pn + ".q", x, hidden, hidden)
        c0 = self.const(p + "/Constant", og.INT64, [4], split)
        c1 = self.const(p + "/Constant_1", og.INT64, [4], split)
        c2 = self.const(p + "/Constant_2", og.INT64, [4], split)
        q = self.node("Reshape", p + "/Reshape", [q, c0])
        q = self.node("Transpose", p + "/Transpose", [q], attrs=[og.attr_ints("perm", [0, 2, 1, 3])])
        k = self.linear(p + "/k", pn + ".k", x, hidden, hidden)
        k = self.node("Reshape", p + "/Reshape_1", [k, c1])
        v = self.linear(p + "/v", pn + ".v", x, hidden, hidden)
        v = self.node("Reshape", p + "/Reshape_2", [v, c2])
        v = self.node("Transpose", p + "/Transpose_1", [v], attrs=[og.attr_ints("perm", [0, 2, 1, 3])])
        k = self.node("Transpose", p + "/Transpose_2", [k], attrs=[og.attr_ints("perm", [0, 2, 3, 1])])
        s = self.node("MatMul", p + "/MatMul", [q, k])
        scale = self.const(p + "/Constant_3", og.FLOAT, [], og.f32(math.sqrt(hd)))
        s = self.node("Div", p + "/Div", [s, scale])
        s = self.node("Add", p + "/Add", [s, mask])
        s = self.node("Softmax", p + "/Softmax", [s], attrs=[og.attr_i("axis", -1)])
        c = self.node("MatMul", p + "/MatMul_1", [s, v])
        c = self.node("Transpose", p + "/Transpose_3", [c], attrs=[og.attr_ints("perm", [0, 2, 1, 3])])
        c4 = self.const(p + "/Constant_4", og.INT64, [3], og.i64(1, seq, hidden))
        c = self.node("Reshape", p + "/Reshape_3", [c, c4])
        o = self.linear(p + "/o", pn + ".o", c, hidden, hidden)
        r = self.node("Add", p + "/Add_1", [x, o])
        x1 = self.layer_norm(p + "/ln1", pn + ".ln1", r, hidden)
        h = self.linear(p + "/fc1", pn + ".fc1", x1, hidden, ffn)
        sqrt2 = self.const(p + "/Constant_5", og.FLOAT, [], og.f32(math.sqrt(2.0)))
        g = self.node("Div", p + "/Div_1", [h, sqrt2])
        g = self.node("Erf", p + "/Erf", [g])
        one = self.const(p + "/Constant_6", og.FLOAT, [], og.f32(1.0))
        g = self.node("Add", p + "/Add_2", [g, one])
        g = self.node("Mul", p + "/Mul", [h, g])
        half = self.const(p + "/Constant_7", og.FLOAT, [], og.f32(0.5))
        g = self.node("Mul", p + "/Mul_1", [g, half])
        y = self.linear(p + "/fc2", pn + ".fc2", g, ffn, hidden)
        r = self.node("Add", p + "/Add_3", [x1, y])
        return self.layer_norm(p + "/ln2", pn + ".ln2", r, hidden, out)


def build(hidden, heads, ffn, seq, layers, seed):
    """Returns (model bytes, [(input shape, raw f32 bytes)])."""
    if hidden % heads:
        sys.exit("make_bert_base.py: hidden (%d) is not a multiple of heads (%d)" % (hidden, heads))
    rng = random.Random(seed)
    b = Builder(rng)
    x = "hidden_states"
    for i in range(layers):
        x = b.bert_layer(i, x, "attention_mask", seq, hidden, heads, ffn,
                         "last_hidden_state" if i == layers - 1 else None)
    g = og.graph(b.nodes,
                 [og.value_info("hidden_states", og.FLOAT, [1, seq, hidden]),
                  og.value_info("attention_mask", og.FLOAT, [1, 1, 1, seq])],
                 [og.value_info("last_hidden_state", og.FLOAT, [1, seq, hidden])],
                 b.params + b.weights, name="torch_jit")
    model = og.model(g, opset=OPSET, ir_version=IR_VERSION)
    irng = random.Random(seed + 1000)
    inputs = [([1, seq, hidden], normal(irng, seq * hidden, 0.0, 1.0)),
              ([1, 1, 1, seq], f32_raw([0.0] * max(seq - 16, 0) + [-10000.0] * min(16, seq)))]
    return model, inputs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ffn", type=int, default=3072)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="bert_base_2l")
    a = ap.parse_args()
    model, inputs = build(a.hidden, a.heads, a.ffn, a.seq, a.layers, a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    path = os.path.join(a.out_dir, a.name + ".onnx")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model)
    os.replace(tmp, path)
    for k, (shape, raw) in enumerate(inputs):
        write_npy(os.path.join(a.out_dir, "%s.input_%d.npy" % (a.name, k)), shape, raw)


if __name__ == "__main__":
    main()
