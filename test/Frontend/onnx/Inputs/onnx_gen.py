#!/usr/bin/env python3
"""Writes the small ONNX models the importer tests use, without the onnx package.

Usage: onnx_gen.py OUT_DIR

The models are encoded by hand with the field numbers of onnx.proto (ModelProto.graph = 7,
GraphProto.node = 1, TensorProto.raw_data = 9, ...), so each test controls exactly which
protobuf fields a tensor or attribute uses (typed fields vs raw_data, external data, old opsets).
Every model is named after the test case it serves: OUT_DIR/<case>.onnx.
"""
import os
import struct
import sys

# ----------------------------------------------------------------------------------------------
# protobuf wire format


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def f_float(field, v):
    return key(field, 5) + struct.pack("<f", v)


def packed_varints(field, vals):
    return f_bytes(field, b"".join(varint(v) for v in vals))


def packed_floats(field, vals):
    return f_bytes(field, b"".join(struct.pack("<f", v) for v in vals))


def packed_doubles(field, vals):
    return f_bytes(field, b"".join(struct.pack("<d", v) for v in vals))


# ----------------------------------------------------------------------------------------------
# ONNX messages

FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL, FLOAT16, DOUBLE, UINT32, UINT64 = (
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
BFLOAT16 = 16


def tensor(name, dtype, dims, raw=None, floats=None, int32s=None, int64s=None, doubles=None, uint64s=None,
           external=None, strings=None):
    m = b"".join(f_int(1, d) for d in dims) + f_int(2, dtype) + f_bytes(8, name)
    if raw is not None:
        m += f_bytes(9, raw)
    if floats is not None:
        m += packed_floats(4, floats)
    if int32s is not None:
        m += packed_varints(5, int32s)
    if int64s is not None:
        m += packed_varints(7, int64s)
    if doubles is not None:
        m += packed_doubles(10, doubles)
    if uint64s is not None:
        m += packed_varints(11, uint64s)
    if strings is not None:
        m += b"".join(f_bytes(6, s) for s in strings)
    if external is not None:
        for k, v in external:
            m += f_bytes(13, f_bytes(1, k) + f_bytes(2, v))
        m += f_int(14, 1)
    return m


def attr_i(name, v):
    return f_bytes(1, name) + f_int(20, 2) + f_int(3, v)


def attr_f(name, v):
    return f_bytes(1, name) + f_int(20, 1) + f_float(2, v)


def attr_s(name, v):
    return f_bytes(1, name) + f_int(20, 3) + f_bytes(4, v)


def attr_ints(name, vals):
    return f_bytes(1, name) + f_int(20, 7) + b"".join(f_int(8, v) for v in vals)


def attr_floats(name, vals):
    return f_bytes(1, name) + f_int(20, 6) + b"".join(f_float(7, v) for v in vals)


def attr_t(name, t):
    return f_bytes(1, name) + f_int(20, 4) + f_bytes(5, t)


def node(op, inputs, outputs, name="", attrs=(), domain=None):
    m = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    if name:
        m += f_bytes(3, name)
    m += f_bytes(4, op)
    if domain is not None:
        m += f_bytes(7, domain)
    m += b"".join(f_bytes(5, a) for a in attrs)
    return m


def value_info(name, dtype, dims):
    """dims: ints, strings (dim_param) or None (unknown); dims=None: no shape at all."""
    tt = f_int(1, dtype)
    if dims is not None:
        shape = b""
        for d in dims:
            if isinstance(d, int):
                dim = f_int(1, d)
            elif isinstance(d, str):
                dim = f_bytes(2, d)
            else:
                dim = b""
            shape += f_bytes(1, dim)
        tt += f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tt))


def graph(nodes, inputs, outputs, initializers=(), name="g"):
    m = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name)
    m += b"".join(f_bytes(5, t) for t in initializers)
    m += b"".join(f_bytes(11, i) for i in inputs) + b"".join(f_bytes(12, o) for o in outputs)
    return m


def model(g, opset=13, ir_version=8, extra_opsets=()):
    m = f_int(1, ir_version) + f_bytes(2, "onnx_gen") + f_bytes(3, "1")
    m += f_bytes(8, f_bytes(1, "") + f_int(2, opset))
    for dom, ver in extra_opsets:
        m += f_bytes(8, f_bytes(1, dom) + f_int(2, ver))
    return m + f_bytes(7, g)


def f32(*vals):
    return struct.pack("<%df" % len(vals), *vals)


def i64(*vals):
    return struct.pack("<%dq" % len(vals), *vals)


# ----------------------------------------------------------------------------------------------
# The cases


def cases():
    c = {}
    x23 = value_info("x", FLOAT, [2, 3])
    y23 = value_info("y", FLOAT, [2, 3])

    # Typed fields: every element type in the field ONNX stores it in (IR.md).
    inits = [
        tensor("f16", FLOAT16, [2], int32s=[0x3C00, 0xC000]),           # 1.0, -2.0
        tensor("bf16", BFLOAT16, [2], int32s=[0x3F80, 0x4040]),         # 1.0, 3.0
        tensor("b", BOOL, [3], int32s=[1, 0, 1]),
        tensor("i8", INT8, [2], int32s=[-5, 7]),
        tensor("u8", UINT8, [2], int32s=[200, 3]),
        tensor("i16", INT16, [2], int32s=[-300, 300]),
        tensor("u16", UINT16, [1], int32s=[65535]),
        tensor("i32", INT32, [2], int32s=[-70000, 70000]),
        tensor("i64", INT64, [2], int64s=[-(1 << 40), 5]),
        tensor("u32", UINT32, [1], uint64s=[4000000000]),
        tensor("u64", UINT64, [1], uint64s=[(1 << 63) + 1]),
        tensor("f64", DOUBLE, [2], doubles=[0.5, -1.25]),
        tensor("f32", FLOAT, [2], floats=[1.5, -2.5]),
        tensor("f32raw", FLOAT, [2], raw=f32(3.0, 4.0)),
        tensor("i64raw", INT64, [2], raw=i64(7, -8)),
        tensor("braw", BOOL, [2], raw=b"\x00\x02"),
    ]
    outs = [value_info(t, 0, None) for t in
            ["f16", "bf16", "b", "i8", "u8", "i16", "u16", "i32", "i64", "u32", "u64", "f64", "f32", "f32raw",
             "i64raw", "braw"]]
    c["typed_fields"] = model(graph([], [], outs, inits))

    # External data: weights in a file beside the model.
    ext = [("location", "weights.bin"), ("offset", "8"), ("length", "8")]
    c["external"] = model(graph([node("Add", ["x", "w"], ["y"], "add")], [value_info("x", FLOAT, [2])],
                                [value_info("y", FLOAT, [2])],
                                [tensor("w", FLOAT, [2], external=ext)]))
    c["external_abs"] = model(graph([node("Add", ["x", "w"], ["y"], "add")], [value_info("x", FLOAT, [2])],
                                    [value_info("y", FLOAT, [2])],
                                    [tensor("w", FLOAT, [2], external=[("location", "/etc/passwd")])]))
    c["external_dotdot"] = model(graph([node("Add", ["x", "w"], ["y"], "add")], [value_info("x", FLOAT, [2])],
                                       [value_info("y", FLOAT, [2])],
                                       [tensor("w", FLOAT, [2], external=[("location", "../weights.bin")])]))
    c["external_short"] = model(graph([node("Add", ["x", "w"], ["y"], "add")], [value_info("x", FLOAT, [2])],
                                      [value_info("y", FLOAT, [2])],
                                      [tensor("w", FLOAT, [2], external=[("location", "weights.bin"),
                                                                         ("offset", "12")])]))
    c["string_init"] = model(graph([node("Identity", ["s"], ["y"], "id")], [], [value_info("y", STRING, [1])],
                                   [tensor("s", STRING, [1], strings=[b"hi"])]))
    c["raw_size_mismatch"] = model(graph([], [], [value_info("w", FLOAT, [3])],
                                         [tensor("w", FLOAT, [3], raw=f32(1.0, 2.0))]))

    # Graph structure.
    c["unknown_ops"] = model(graph([node("Foo", ["x"], ["a"], "n1"), node("Relu", ["a"], ["b"], "n2"),
                                    node("Bar", ["x"], ["c"], ""), node("Add", ["b", "c"], ["y"], "n4")],
                                   [x23], [y23]))
    c["custom_domain"] = model(graph([node("Gelu", ["x"], ["y"], "g1", domain="com.microsoft")], [x23], [y23]),
                               extra_opsets=[("com.microsoft", 1)])
    c["bad_attr"] = model(graph([node("Relu", ["x"], ["y"], "r", attrs=[attr_i("alpha", 2)]),
                                 node("Gemm", ["x", "x"], ["z"], "gm", attrs=[attr_s("bogus", "1")])],
                                [x23], [y23, value_info("z", FLOAT, None)]))
    c["unsorted"] = model(graph([node("Relu", ["a"], ["y"], "second"), node("Neg", ["x"], ["a"], "first")],
                                [x23], [y23]))
    c["cycle"] = model(graph([node("Add", ["x", "b"], ["a"], "p"), node("Relu", ["a"], ["b"], "q")],
                             [x23], [value_info("a", FLOAT, [2, 3])]))
    c["undefined_input"] = model(graph([node("Relu", ["nope"], ["y"], "r")], [x23], [y23]))
    c["missing_output"] = model(graph([node("Relu", ["x"], ["y"], "r")], [x23], [y23, value_info("w", FLOAT, [1])]))
    c["dynamic"] = model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x", FLOAT, ["N", 3, 4])],
                               [value_info("y", FLOAT, ["N", 3, 4])]))
    c["unknown_dim"] = model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x", FLOAT, [2, None])],
                                   [value_info("y", FLOAT, [2, None])]))
    c["no_shape"] = model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x", FLOAT, None)],
                                [value_info("y", FLOAT, None)]))
    c["output_mismatch"] = model(graph([node("Relu", ["x"], ["y"], "r")], [x23], [value_info("y", FLOAT, [3, 2])]))
    # IR version 3: initializers are also listed among the graph inputs.
    c["ir3_init_inputs"] = model(graph([node("Add", ["x", "w"], ["y"], "add")],
                                       [x23, value_info("w", FLOAT, [3])], [y23],
                                       [tensor("w", FLOAT, [3], floats=[1.0, 2.0, 3.0])]), opset=8, ir_version=3)
    # Names: node without a name; an omitted optional input in the middle (Clip without min).
    c["names_and_none"] = model(graph([node("Relu", ["x"], ["a"], ""),
                                       node("Clip", ["a", "", "mx"], ["y"], "clip")],
                                      [x23], [y23], [tensor("mx", FLOAT, [], floats=[6.0])]))
    # A shape sub-graph: Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds to a constant.
    c["shape_subgraph"] = model(graph([
        node("Shape", ["x"], ["s"], "shape"),
        node("Gather", ["s", "zero"], ["d0"], "gather", attrs=[attr_i("axis", 0)]),
        node("Unsqueeze", ["d0", "ax0"], ["d0u"], "unsq"),
        node("Concat", ["d0u", "minus1"], ["shp"], "concat", attrs=[attr_i("axis", 0)]),
        node("Reshape", ["x", "shp"], ["y"], "reshape")],
        [value_info("x", FLOAT, [2, 3, 4])], [value_info("y", FLOAT, [2, 12])],
        [tensor("zero", INT64, [], int64s=[0]), tensor("ax0", INT64, [1], int64s=[0]),
         tensor("minus1", INT64, [1], int64s=[-1])]))
    # A shape operand fed by a graph input: needs --bind-input.
    c["shape_input"] = model(graph([node("Reshape", ["x", "shape"], ["y"], "Reshape_3")],
                                   [value_info("x", FLOAT, [2, 3]), value_info("shape", INT64, [2])],
                                   [value_info("y", FLOAT, None)]))
    # Constant nodes in all their forms.
    c["constants"] = model(graph([
        node("Constant", [], ["c1"], "c1", attrs=[attr_t("value", tensor("", FLOAT, [2], floats=[1.0, 2.0]))]),
        node("Constant", [], ["c2"], "c2", attrs=[attr_f("value_float", 0.5)]),
        node("Constant", [], ["c3"], "c3", attrs=[attr_floats("value_floats", [1.0, 2.0, 3.0])]),
        node("Constant", [], ["c4"], "c4", attrs=[attr_i("value_int", 7)]),
        node("Constant", [], ["c5"], "c5", attrs=[attr_ints("value_ints", [1, 2])])],
        [], [value_info(n, 0, None) for n in ["c1", "c2", "c3", "c4", "c5"]]))
    c["constant_string"] = model(graph([node("Constant", [], ["c"], "cs", attrs=[attr_s("value_string", "x")])],
                                       [], [value_info("c", STRING, None)]))
    # Large initializers become resources.
    c["resource"] = model(graph([node("Add", ["x", "layer.0/w:0"], ["y"], "add")], [value_info("x", FLOAT, [64])],
                                [value_info("y", FLOAT, [64])],
                                [tensor("layer.0/w:0", FLOAT, [64], raw=f32(*[float(i) for i in range(64)]))]))

    # Old opsets, one operator each.
    x234 = value_info("x", FLOAT, [2, 3, 4])
    anyout = value_info("y", FLOAT, None)
    c["softmax_11"] = model(graph([node("Softmax", ["x"], ["y"], "sm")], [x234], [anyout]), opset=11)
    c["softmax_11_last"] = model(graph([node("LogSoftmax", ["x"], ["y"], "lsm", attrs=[attr_i("axis", 2)])],
                                       [x234], [anyout]), opset=11)
    c["add_6_axis"] = model(graph([node("Add", ["x", "b"], ["y"], "add", attrs=[attr_i("broadcast", 1),
                                                                                  attr_i("axis", 1)])],
                                  [x234, value_info("b", FLOAT, [3])], [anyout]), opset=6)
    c["mul_1_consumed"] = model(graph([node("Mul", ["x", "b"], ["y"], "mul",
                                            attrs=[attr_i("broadcast", 1), attr_ints("consumed_inputs", [0, 0])])],
                                      [x234, value_info("b", FLOAT, [4])], [anyout]), opset=1)
    c["clip_6"] = model(graph([node("Clip", ["x"], ["y"], "clip", attrs=[attr_f("min", 0.0), attr_f("max", 6.0)])],
                              [x234], [anyout]), opset=6)
    c["clip_6_max_only"] = model(graph([node("Clip", ["x"], ["y"], "clip", attrs=[attr_f("max", 6.0)])],
                                       [x234], [anyout]), opset=6)
    c["pad_2"] = model(graph([node("Pad", ["x"], ["y"], "pad", attrs=[attr_ints("pads", [0, 1, 0, 0, 1, 2]),
                                                                      attr_f("value", 1.5)])],
                             [x234], [anyout]), opset=2)
    c["pad_1"] = model(graph([node("Pad", ["x"], ["y"], "pad", attrs=[attr_ints("paddings", [0, 0, 1, 0, 0, 1]),
                                                                      attr_s("mode", "reflect")])],
                             [x234], [anyout]), opset=1)
    c["slice_1"] = model(graph([node("Slice", ["x"], ["y"], "slice", attrs=[attr_ints("starts", [0, 1]),
                                                                            attr_ints("ends", [1, 3]),
                                                                            attr_ints("axes", [0, 2])])],
                               [x234], [anyout]), opset=1)
    c["reshape_1"] = model(graph([node("Reshape", ["x"], ["y"], "rs", attrs=[attr_ints("shape", [6, 4])])],
                                 [x234], [anyout]), opset=1)
    c["squeeze_11"] = model(graph([node("Unsqueeze", ["x"], ["u"], "unsq", attrs=[attr_ints("axes", [0, -1])]),
                                   node("Squeeze", ["u"], ["y"], "sq", attrs=[attr_ints("axes", [0])])],
                                  [x234], [anyout]), opset=11)
    c["reducesum_11"] = model(graph([node("ReduceSum", ["x"], ["y"], "rsum", attrs=[attr_ints("axes", [1]),
                                                                                  attr_i("keepdims", 0)])],
                                    [x234], [anyout]), opset=11)
    c["split_2"] = model(graph([node("Split", ["x"], ["y", "z"], "split", attrs=[attr_i("axis", 2),
                                                                                 attr_ints("split", [1, 3])])],
                               [x234], [anyout, value_info("z", FLOAT, None)]), opset=2)
    c["concat_1"] = model(graph([node("Concat", ["x", "x"], ["y"], "cat")], [x234], [anyout]), opset=1)
    c["cast_1"] = model(graph([node("Cast", ["x"], ["y"], "cast", attrs=[attr_s("to", "INT32")])],
                              [x234], [value_info("y", INT32, None)]), opset=1)
    c["dropout_6"] = model(graph([node("Dropout", ["x"], ["y"], "drop", attrs=[attr_f("ratio", 0.3),
                                                                               attr_i("is_test", 1)])],
                                 [x234], [anyout]), opset=6)
    c["batchnorm_6"] = model(graph([node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], "bn",
                                         attrs=[attr_i("is_test", 1), attr_i("spatial", 1),
                                                attr_f("epsilon", 1e-3)])],
                                   [x234], [anyout],
                                   [tensor(n, FLOAT, [3], floats=[1.0, 1.0, 1.0]) for n in "sbmv"]), opset=6)
    c["gemm_6"] = model(graph([node("Gemm", ["a", "bm", "cv"], ["y"], "gemm", attrs=[attr_i("broadcast", 1)])],
                              [value_info("a", FLOAT, [2, 3])], [anyout],
                              [tensor("bm", FLOAT, [3, 4], floats=[0.0] * 12),
                               tensor("cv", FLOAT, [4], floats=[0.0] * 4)]), opset=6)
    c["resize_10"] = model(graph([node("Resize", ["x", "sc"], ["y"], "resize", attrs=[attr_s("mode", "nearest")])],
                                 [value_info("x", FLOAT, [1, 1, 2, 2])], [anyout],
                                 [tensor("sc", FLOAT, [4], floats=[1.0, 1.0, 2.0, 2.0])]), opset=10)
    c["tile_1"] = model(graph([node("Tile", ["x", "t", "a"], ["y"], "tile")], [x234], [anyout],
                              [tensor("t", INT64, [], int64s=[2]), tensor("a", INT64, [], int64s=[1])]), opset=1)
    c["upsample_9"] = model(graph([node("Upsample", ["x", "sc"], ["y"], "up")],
                                  [value_info("x", FLOAT, [1, 1, 2, 2])], [anyout],
                                  [tensor("sc", FLOAT, [4], floats=[1.0, 1.0, 2.0, 2.0])]), opset=9)
    # Node attributes holding graphs holding nodes ... 1000 levels deep (protobuf-c would recurse
    # once per level; the importer refuses more than 64).  Built inside out by lengths alone.
    hdrs, length = [], 0
    for field in reversed([1, 5, 6] * 333):   # GraphProto.node, NodeProto.attribute, AttributeProto.g
        h = key(field, 2) + varint(length)
        hdrs.append(h)
        length += len(h)
    c["deep_nesting"] = model(b"".join(reversed(hdrs)))
    c["opset_18"] = model(graph([node("Relu", ["x"], ["y"], "r")], [x23], [y23]), opset=18)
    # What the ONNX checker rejects: opset 0, a name assigned twice, an attribute given twice,
    # an input whose element count overflows int64.
    c["opset_0"] = model(graph([node("Relu", ["x"], ["y"], "r")], [x23], [y23]), opset=0)
    c["dup_output"] = model(graph([node("Relu", ["x"], ["y"], "r1"), node("Neg", ["x"], ["y"], "r2")], [x23], [y23]))
    c["dup_input"] = model(graph([node("Relu", ["x"], ["y"], "r")], [x23, x23], [y23]))
    c["dup_attr"] = model(graph([node("Softmax", ["x"], ["y"], "s", attrs=[attr_i("axis", 1), attr_i("axis", 0)])],
                                [x23], [y23]))
    c["huge_input"] = model(graph([node("Relu", ["x"], ["y"], "r")],
                                  [value_info("x", FLOAT, [1 << 40, 1 << 40])], [value_info("y", FLOAT, None)]))
    return c


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in cases().items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
    # External data: 8 bytes of padding, then the two floats the `external` model reads.
    with open(os.path.join(out, "weights.bin"), "wb") as f:
        f.write(b"\xff" * 8 + f32(10.0, 20.0))
    # --bind-input values as ONNX TensorProto .pb files.
    with open(os.path.join(out, "shape.pb"), "wb") as f:
        f.write(tensor("shape", INT64, [2], int64s=[3, 2]))
    with open(os.path.join(out, "shape_f.pb"), "wb") as f:
        f.write(tensor("shape", FLOAT, [2], floats=[3.0, 2.0]))
    with open(os.path.join(out, "x6.pb"), "wb") as f:
        f.write(tensor("x", FLOAT, [2, 3], raw=f32(1, 2, 3, 4, 5, 6)))


if __name__ == "__main__":
    main()
