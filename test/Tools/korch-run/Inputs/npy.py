#!/usr/bin/env python3
"""Writes and prints .npy files for korch-run's tests without NumPy (numpy/lib/format.py,
version 1.0), independently of the runtime's own reader and writer (runtime/npy.c).

  npy.py write FILE DESCR SHAPE V0 V1 ...   SHAPE like 2x3 ('scalar' for rank 0)
  npy.py dump FILE                          prints "DESCR SHAPE: v0 v1 ..." (%g)
  npy.py version FILE VER                   rewrites FILE's header as format version VER (2 or 3)
"""
import ast
import struct
import sys

CODES = {"<f4": "f", "<f8": "d", "<f2": "e", "|i1": "b", "|u1": "B", "<i2": "h", "<u2": "H",
         "<i4": "i", "<u4": "I", "<i8": "q", "<u8": "Q", "|b1": "?"}


def write(path, descr, shape, values, version=1):
    dims = [] if shape == "scalar" else [int(d) for d in shape.split("x")]
    tup = "(%s)" % (", ".join(map(str, dims)) + ("," if len(dims) == 1 else ""))
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tup)
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(d) + 1) % 64) % 64
    hdr = (d + " " * pad + "\n").encode()
    code = CODES[descr]
    vals = [float(v) if code in "fde" else (v in ("1", "True", "true")) if code == "?" else int(v) for v in values]
    data = struct.pack("<%d%s" % (len(vals), code), *vals)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H" if version == 1 else "<I", len(hdr)))
        f.write(hdr + data)


def read(path):
    b = open(path, "rb").read()
    assert b[:6] == b"\x93NUMPY", "bad magic"
    if b[6] == 1:
        n, = struct.unpack("<H", b[8:10])
        start = 10
    else:
        n, = struct.unpack("<I", b[8:12])
        start = 12
    h = ast.literal_eval(b[start:start + n].decode())
    data = b[start + n:]
    code = CODES[h["descr"]]
    count = len(data) // struct.calcsize(code)
    return h, struct.unpack("<%d%s" % (count, code), data)


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif cmd == "dump":
        h, vals = read(sys.argv[2])
        shape = "x".join(map(str, h["shape"])) or "scalar"
        print("%s %s: %s" % (h["descr"], shape, " ".join("%g" % v for v in vals)))
    elif cmd == "version":
        h, vals = read(sys.argv[2])
        shape = "x".join(map(str, h["shape"])) or "scalar"
        write(sys.argv[2], h["descr"], shape, [repr(v) for v in vals], int(sys.argv[3]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
