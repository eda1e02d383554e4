#!/usr/bin/env python3
"""Numerics check of a prim-level rewrite: run every function of a .kir file on the CPU
reference interpreter before and after a korch-opt pipeline, with the same generated inputs,
and compare the results.

    prim_numerics.py --interp korch-interp --opt korch-opt --work DIR [--exact | --rtol R --atol A]
                     [--kind FUNC:ARG=KIND ...] [--default-kind KIND] [--skip F1,F2] FILE -- OPT-ARGS...

Inputs are .npy files written with the standard library only (struct; NumPy is not needed),
from a fixed-seed generator per function and argument, so a run is reproducible.  Kinds:
  special  floats: -0.0, +0.0, NaN, +-inf, +-1, the largest finite, the smallest subnormal, then
           uniform [-8, 8); integers: 0, +-1, the extremes, then uniform; i1: random bits
  uniform  uniform [-2, 2) (integers: [-3, 3])
  logits   softmax logits, by row (last axis), cycling over: near +1e3, near -1e3, uniform with
           every third element -inf (never the whole row), near +1e3 with every other element -inf
  masked   as logits, plus every fifth row entirely -inf (softmax of it is NaN)
--exact compares the result bytes (bit-identical, signed zeros and NaN payloads included);
otherwise numpy.allclose's rule |after - before| <= atol + rtol * |before| per element, with NaN
equal to NaN and infinities equal only to themselves.  Prints one line per function and a
summary; exits 1 on any difference, on a tool failure, or if no function was checked.
"""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys

# element type -> (npy descr, struct code, size)
TYPES = {
    "f16": ("<f2", "e", 2), "f32": ("<f4", "f", 4), "f64": ("<f8", "d", 8),
    "i1": ("|b1", "?", 1), "i8": ("|i1", "b", 1), "i16": ("<i2", "h", 2), "i32": ("<i4", "i", 4),
    "i64": ("<i8", "q", 8), "ui8": ("|u1", "B", 1), "ui16": ("<u2", "H", 2), "ui32": ("<u4", "I", 4),
    "ui64": ("<u8", "Q", 8),
}
DESCR_TO_TYPE = {v[0]: k for k, v in TYPES.items()}
FLOAT_LIMITS = {"f16": (65504.0, 2.0 ** -24), "f32": (3.4028234663852886e38, 2.0 ** -149),
                "f64": (sys.float_info.max, 5e-324)}


def parse_tensor(t):
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", t.strip())
    if not m:
        raise SystemExit("unsupported argument type %r" % t)
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def split_top(s):
    """Splits a comma list at nesting depth 0 (types contain no commas, but be safe)."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def functions(text):
    """[(name, [(dims, elem)], num_results)] of every func.func with a body."""
    out = []
    for m in re.finditer(r"func\.func\s+@([\w.$-]+)\s*\(([^)]*)\)\s*(->\s*(\([^)]*\)|[^{]+))?\{", text):
        args = []
        for a in split_top(m.group(2)):
            args.append(parse_tensor(a.split(":", 1)[1]))
        res = m.group(4)
        if res is None:
            nres = 0
        elif res.strip().startswith("("):
            nres = len(split_top(res.strip()[1:-1]))
        else:
            nres = 1
        out.append((m.group(1), args, nres))
    return out


def gen_values(rng, dims, elem, kind):
    n = 1
    for d in dims:
        n *= d
    last = dims[-1] if dims else 1
    if elem == "i1":
        return [rng.random() < 0.5 for _ in range(n)]
    if elem.startswith("i") or elem.startswith("ui"):
        bits = int(elem.lstrip("ui"))
        lo, hi = (0, 2 ** bits - 1) if elem.startswith("ui") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if kind == "special":
            special = [v for v in (0, 1, -1, lo, hi, lo + 1, hi - 1) if lo <= v <= hi]
            return [special[i] if i < len(special) else rng.randint(max(lo, -1000), min(hi, 1000)) for i in range(n)]
        return [max(lo, min(hi, rng.randint(-3, 3))) for _ in range(n)]
    big, tiny = FLOAT_LIMITS[elem]
    if kind == "special":
        special = [-0.0, 0.0, float("nan"), float("inf"), -float("inf"), 1.0, -1.0, big, tiny, -tiny]
        return [special[i] if i < len(special) else rng.uniform(-8, 8) for i in range(n)]
    if kind == "uniform":
        return [rng.uniform(-2, 2) for _ in range(n)]
    if kind in ("logits", "masked"):
        vals = []
        for i in range(n):
            row, col = divmod(i, last)
            if kind == "masked" and row % 5 == 4:
                vals.append(-float("inf"))
                continue
            r = row % 4
            if r == 0:
                vals.append(1000.0 + rng.uniform(-5, 5))
            elif r == 1:
                vals.append(-1000.0 + rng.uniform(-5, 5))
            elif r == 2:
                vals.append(-float("inf") if col % 3 == 2 else rng.uniform(-3, 3))
            else:
                vals.append(-float("inf") if col % 2 == 1 else 1000.0 + rng.uniform(-5, 5))
        return vals
    raise SystemExit("unknown kind %r" % kind)


def write_npy(path, dims, elem, vals):
    descr, code, _ = TYPES[elem]
    shape = "(" + "".join("%d, " % d for d in dims)
    shape = shape[:-2] + ",)" if len(dims) == 1 else shape.rstrip(", ") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(vals), code), *vals))


def read_npy(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode("latin1")
    descr = re.search(r"'descr': '([^']+)'", header).group(1)
    elem = DESCR_TO_TYPE[descr]
    body = data[10 + hlen:]
    _, code, size = TYPES[elem]
    return elem, header, body, list(struct.unpack("<%d%s" % (len(body) // size, code), body))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.stdout.write("FAILED: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interp", required=True)
    ap.add_argument("--opt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--kind", action="append", default=[])
    ap.add_argument("--default-kind", default="special")
    ap.add_argument("--skip", default="")
    ap.add_argument("file")
    ap.add_argument("opt_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    opt_args = a.opt_args[1:] if a.opt_args[:1] == ["--"] else a.opt_args
    kinds = {}
    for k in a.kind:
        fa, kind = k.split("=")
        f, arg = fa.split(":")
        kinds[(f, int(arg))] = kind
    skip = set(s for s in a.skip.split(",") if s)
    os.makedirs(a.work, exist_ok=True)
    after = os.path.join(a.work, "after.kir")
    run([a.opt] + [a.file] + opt_args + ["-o", after])
    checked, bad = 0, 0
    for name, args, nres in functions(open(a.file).read()):
        if name in skip or nres == 0:
            continue
        inputs = []
        for i, (dims, elem) in enumerate(args):
            rng = random.Random("%s/%d" % (name, i))
            path = os.path.join(a.work, "%s.in%d.npy" % (name, i))
            write_npy(path, dims, elem, gen_values(rng, dims, elem, kinds.get((name, i), a.default_kind)))
            inputs += ["--input", "#%d=%s" % (i, path)]
        outs = {}
        for which, module in (("before", a.file), ("after", after)):
            files = [os.path.join(a.work, "%s.%s%d.npy" % (name, which, r)) for r in range(nres)]
            cmd = [a.interp, module, "--function", name] + inputs
            for r, f in enumerate(files):
                cmd += ["--output", "#%d=%s" % (r, f)]
            run(cmd)
            outs[which] = [read_npy(f) for f in files]
        for r in range(nres):
            eb, hb, bb, vb = outs["before"][r]
            ea, ha, ba, va = outs["after"][r]
            nan = sum(1 for v in va if isinstance(v, float) and math.isnan(v))
            if hb != ha:
                ok, what = False, "type/shape differ: %s vs %s" % (hb.strip(), ha.strip())
            elif a.exact:
                ok, what = bb == ba, "bit-identical" if bb == ba else "bits differ"
            else:
                err, ok = 0.0, True
                for x, y in zip(vb, va):
                    if isinstance(x, bool) or not isinstance(x, float):
                        good = x == y
                    elif math.isnan(x) or math.isnan(y):
                        good = math.isnan(x) and math.isnan(y)
                    elif math.isinf(x) or math.isinf(y):
                        good = x == y
                    else:
                        err = max(err, abs(x - y))
                        good = abs(x - y) <= a.atol + a.rtol * abs(x)
                    ok = ok and good
                what = "max_abs_err=%.3g" % err
            checked += 1
            bad += not ok
            print("@%s#%d: %d elements, %d NaN, %s %s" % (name, r, len(va), nan, what, "OK" if ok else "MISMATCH"))
    print("numerics: %d results checked, %d mismatched" % (checked, bad))
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
