#!/usr/bin/env python3
"""scripts/gen-op-docs.py - generates docs/Dialects/op.md from dialects/op/ops.def.

    scripts/gen-op-docs.py            rewrite docs/Dialects/op.md
    scripts/gen-op-docs.py --check    exit 1 (with a diff) when the checked-in page is stale
    scripts/gen-op-docs.py -o FILE    write elsewhere

The operand, result and attribute tables come from ops.def (the dialect's single source of
truth); ONNX versions and allowed types from scripts/op_docs_data.py (dumped from ONNX 1.12's
schema registry); shape rules and upgrade notes from scripts/op_docs_notes.py (hand-written).
The lit test test/Dialect/op/docs-up-to-date.kir runs --check, so a change to ops.def without
regenerating the page fails the tests.
"""
import argparse
import difflib
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree (the lit test runs this)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import op_docs_data as data  # noqa: E402
import op_docs_notes as notes  # noqa: E402

ROW = re.compile(r'^KR_ONNX_OP\(\s*(\w+),\s*(\w+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*'
                 r'"((?:[^"\\]|\\.)*)"\)', re.M)
FAMILIES = [
    ('unary', 'Unary elementwise'), ('binary', 'Binary and n-ary elementwise (broadcasting)'),
    ('reduce', 'Reductions'), ('norm', 'Normalisation'), ('linear', 'Linear algebra and convolution'),
    ('pool', 'Pooling'), ('layout', 'Layout, indexing and shapes'),
]
KIND = {'i': 'integer (`i64`)', 'f': 'float (`f32`)', 's': 'string', 'ints': '`array<i64>`',
        'floats': '`array<f32>`', 't': 'tensor (`dense` / `dense_resource`)', 'type': 'element type'}


def parse_operands(spec):
    out = []
    for tok in spec.split():
        # '#': shape operand (True); '$': static operand ('static'), constant only to lower.
        shape = True if tok.startswith('#') else 'static' if tok.startswith('$') else False
        tok = tok.lstrip('#$')
        variadic = tok.endswith('...')
        optional = tok.endswith('?')
        name = tok.rstrip('.?')
        out.append((name, shape, optional, variadic))
    return out


def parse_attrs(spec):
    out = []
    for tok in spec.split():
        m = re.match(r'(\w+):(\w+)(!?)(?:=(.*))?$', tok)
        out.append((m.group(1), m.group(2), m.group(3) == '!', m.group(4)))
    return out


def fmt_default(onnx, name, kind, required, default):
    if required:
        return 'required'
    if default is None and '%s.%s' % (onnx, name) in notes.ABSENT:
        return 'absent: ' + notes.ABSENT['%s.%s' % (onnx, name)]
    if default is None:
        return 'absent: see the shape rule' if kind in ('ints', 'i') else 'absent'
    if kind == 's':
        return '`"%s"`' % default
    if kind == 'ints':
        return '`array<i64: %s>`' % ', '.join(default.split(','))
    if kind == 'f':
        return '`%s : f32`' % default
    return '`%s : i64`' % default if kind == 'i' else '`%s`' % default


def types_of(onnx, index, is_result):
    ins, outs = data.OPERAND_TYPES.get(onnx, ([], []))
    lst = outs if is_result else ins
    if not lst:
        return ''
    t = lst[min(index, len(lst) - 1)]
    cons = dict(data.TYPE_CONSTRAINTS.get(onnx, []))
    if t in cons:
        return '%s: %s' % (t, cons[t] or '(none korch has)')
    return t


def op_section(stem, family, onnx, operands, results, attrs, summary):
    name = 'op.' + stem
    versions = data.SINCE_VERSIONS[onnx]
    current = [v for v in versions if v <= 17] or versions
    form = current[-1]
    older = [v for v in versions if v < form]
    lines = ['### `%s`' % name, '']
    lines.append('ONNX **%s** — %s.  Form: %s-%d%s.' % (
        onnx, summary, onnx, form,
        '; older version%s %s %s upgraded by the importer' % (
            's' if len(older) > 1 else '', ', '.join(map(str, older)), 'are' if len(older) > 1 else 'is')
        if older else
        ' (no older version)'))
    lines.append('')
    lines.append('| | name | notes | element types (ONNX) |')
    lines.append('|---|---|---|---|')
    for i, (n, shape, optional, variadic) in enumerate(parse_operands(operands)):
        flags = []
        if shape == 'static':
            flags.append('static operand: constant to lower to primitives')
        elif shape:
            flags.append('shape operand: must be constant')
        if optional:
            flags.append('optional')
        if variadic:
            flags.append('variadic (1 or more)')
        lines.append('| operand %d | `%s` | %s | %s |' % (i, n, ', '.join(flags), types_of(onnx, i, False)))
    for i, (n, _, optional, variadic) in enumerate(parse_operands(results)):
        flags = ['optional'] if optional else []
        if variadic:
            flags.append('variadic (1 or more)')
        lines.append('| result %d | `%s` | %s | %s |' % (i, n, ', '.join(flags), types_of(onnx, i, True)))
    lines.append('')
    a = parse_attrs(attrs)
    if a:
        lines.append('Attributes: ' + '; '.join('`%s` %s, %s' % (n, KIND[k], fmt_default(onnx, n, k, req, d))
                                                for n, k, req, d in a) + '.')
    else:
        lines.append('Attributes: none.')
    lines.append('')
    lines.append('Shape: ' + notes.SHAPE[onnx])
    lines.append('')
    up = notes.UPGRADE.get(onnx)
    if up:
        lines.append('Upgrade: ' + up + '.')
        lines.append('')
    return lines


HEADER = '''<!-- Generated by scripts/gen-op-docs.py from dialects/op/ops.def, scripts/op_docs_data.py and
     scripts/op_docs_notes.py.  Do not edit: edit those and rerun the script (the lit test
     test/Dialect/op/docs-up-to-date.kir fails when this page is stale). -->
# The `op` dialect

Source: `dialects/op/` (`ops.def`, `op.c`, `shape_<family>.c`, `fold.c`, `canonicalize.c`), CPU
kernels in `backend/interp/kernels_<family>.c`; C API in `include/korch/op.h`.

The operator level of korch: one op per ONNX operator of `../shared/onnx-core-ops.txt`, with the
inputs (operands), outputs (results) and attributes of **ONNX opset 17**, names verbatim.  Models of
older opsets are upgraded to this form by the importer (`korch-translate --import-onnx`, see
[../Import.md](../Import.md)); the *Upgrade* line of each op says how.  Op names are the ONNX
names in snake_case under `op.` (`Conv` -> `op.conv`, `ReduceMean` -> `op.reduce_mean`).

## Conventions

- **Form.**  Ops print in the generic form:
  `%y = "op.conv"(%x, %w, %b) {group = 1 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>,
  tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>`.
- **Types.**  Operands and results are ranked tensors with static shapes (`tensor<1x3x8x8xf32>`,
  row-major, ONNX layouts: NCHW images, [M, K] x [K, N] matrices).  A dynamic dim is an error
  naming the tensor; the importer fixes symbolic dims (`--input-shape`) and folds shape
  computations so that none is left.  ONNX element types map to `f32` (FLOAT), `f64`, `f16`,
  `bf16`, `i8` `i16` `i32` `i64` (signed), `ui8` `ui16` `ui32` `ui64`, and `i1` (BOOL).  The
  *element types* column lists what ONNX allows for each operand (its type parameter, e.g.
  `T: f32 f64 f16`); f32 is first-class in korch, i64/i32/i1 serve shapes, indices and masks.
- **Attributes.**  Encodings: integer `1 : i64`; float `0.5 : f32`; string `"NOTSET"`; integer
  list `array<i64: 1, 1>`; float list `array<f32: 1.0>`; tensor `dense<...> : tensor<...>` or
  `dense_resource<...>`; element type (Cast's `to`) a type, `to = f16`.  An absent attribute
  means the ONNX default shown in each op's list (`kr_op_attr_*()` return it); "absent: see the
  shape rule" marks defaults that depend on the operands (kernel_shape, strides, ...).
  Attributes with a dialect prefix (`onnx.name`, ...) are discardable and not checked.
- **Optional operands.**  Trailing omitted operands are left out; one omitted in the middle is
  the result of `op.none` (type `none`).  `kr_op_operand_present()` tells them apart.
- **Shape operands** (`#` in `ops.def`, "shape operand" below) decide a result shape, so shape
  inference needs them constant: produced by `op.constant` (the importer folds them, or binds
  the graph input feeding them with `--bind-input`).  With a non-constant shape operand the
  verifier keeps the declared result types as written.
- **Static operands** (`$` in `ops.def`) never decide a result shape (the verifier checks the
  declared type and the interpreter runs them as data), but fission into primitives needs their
  value (CumSum's `axis` picks the axis `prim.cum_sum` scans): the importer lists the graph
  inputs feeding them among the inputs to bind (`--list-shape-inputs`).
- **Verification.**  Every op checks its operand/result counts and attribute kinds against its
  `ops.def` row (`expects 2 operands (ONNX Add), got 3`, `unknown attribute 'foo' (ONNX Conv
  opset 17)`, `attribute 'group' must be an integer`), that each operand is a static tensor, and
  that its declared result types equal shape inference's (`result #0 ('Y') has type ... but shape
  inference gives ...`).  Shape inference reports the ONNX rule it found broken at the op.
- **Folding.**  Every op is pure and constant-folds by running its CPU kernel on constant
  operands (`dialects/op/fold.c`; results up to 2^22 elements), so the interpreter is the single
  definition of each op's numerics.  `op.shape` / `op.size` fold from their operand's static
  type, constant or not (after which exporters' shape sub-graphs fold).
- **Canonicalization** (`dialects/op/canonicalize.c`, run by `--canonicalize`): Reshape's `shape`, Expand's `shape` and ConstantOfShape's `input` become the result dims;
  Squeeze/Unsqueeze with run-time axes become Reshape; no-op ops forward their operand (Identity,
  inference Dropout, Reshape/Flatten/Squeeze/Unsqueeze/Expand/Tile/Cast/CastLike/Split keeping
  the type, single-input Concat/Sum/Max/Min/Mean, identity Transpose, Slice of everything, Pad by
  zeros, Resize by 1, Clip without bounds, x + -0.0, x - 0, x * 1, x / 1, x ^ 1, Where with a
  splat condition); chains collapse (reshape-like of reshape-like, Transpose of Transpose, Cast
  through a type that holds every value, Neg/Not twice, Relu/Abs/Floor/Ceil/Round twice, nested
  Concat on one axis); CastLike becomes Cast; a Transpose moving only size-1 axes becomes a
  Reshape; empty Concat operands are dropped.  Every rewrite is exact for every input (signed
  zeros included).  Tests: `test/Dialect/op/canonicalize.kir`, `test/Transforms/op-shape-folding.kir`.

## Ops that are not ONNX operators

### `op.constant`

A tensor constant: ONNX `Constant` nodes and initializers.  No operands; one result whose type
equals the `value` attribute's (`dense<...>` or `dense_resource<...>`, static shape).
Constant-like: folding materializes constants as `op.constant`.
`%c = "op.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>`.

### `op.none`

The value of an omitted optional operand (ONNX's empty input name): no operands, one result of
type `none`.  `%n = "op.none"() : () -> none`.

## Index

| op | ONNX | family | summary |
|---|---|---|---|
'''


def generate():
    text = open(os.path.join(ROOT, 'dialects', 'op', 'ops.def')).read()
    rows = [r for r in ROW.findall(text)]
    out = HEADER.splitlines()
    for stem, family, onnx, _, _, _, summary in rows:
        out.append('| [`op.%s`](#op%s) | %s | %s | %s |' % (stem, stem, onnx, family, summary.replace('|', '\\|')))
    out.append('')
    for fam, title in FAMILIES:
        out.append('## %s' % title)
        out.append('')
        for r in rows:
            if r[1] == fam:
                out.extend(op_section(*r))
    missing = sorted({r[1] for r in rows} - {f for f, _ in FAMILIES})
    if missing:
        sys.exit('gen-op-docs.py: ops.def family without a section: %s' % ', '.join(missing))
    return '\n'.join(out).rstrip('\n') + '\n'


def write_or_check(page, output, check, script):
    """Writes `page` to `output`; with `check`, compares instead and exits 1 with a unified diff
    and '<script>: <output> is stale: run scripts/<script>' when they differ (gen-prim-docs.py
    uses it too)."""
    if check:
        try:
            old = open(output).read()
        except OSError as e:
            sys.exit('%s: cannot read %s: %s' % (script, output, e))
        if old != page:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), page.splitlines(True),
                                                       output, 'regenerated'))
            sys.exit('%s: %s is stale: run scripts/%s' % (script, output, script))
        return
    with open(output, 'w') as f:
        f.write(page)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--check', action='store_true', help='fail (with a diff) when the page is stale')
    ap.add_argument('-o', '--output', default=os.path.join(ROOT, 'docs', 'Dialects', 'op.md'))
    args = ap.parse_args()
    write_or_check(generate(), args.output, args.check, 'gen-op-docs.py')


if __name__ == '__main__':
    main()
