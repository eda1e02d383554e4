#!/usr/bin/env python3
"""scripts/gen-prim-docs.py - generates docs/Dialects/prim.md from dialects/prim/ops.def.

    scripts/gen-prim-docs.py             rewrite docs/Dialects/prim.md
    scripts/gen-prim-docs.py --check     exit 1 (with a diff) when the checked-in page is stale
    scripts/gen-prim-docs.py -o FILE     write elsewhere
    scripts/gen-prim-docs.py --examples  print every example as a .kir module (for korch-opt)

The operand, result and attribute tables, the semantics (ops.def's comments and summaries) and
the class of every primitive come from ops.def, the dialect's single source of truth; element
types, shape rules, examples and the design section from scripts/prim_docs_notes.py
(hand-written).  The row parsing and the page check are scripts/gen-op-docs.py's.  The lit test
test/Dialect/prim/docs-up-to-date.kir runs --check and verifies the examples with korch-opt, so a
change to ops.def without regenerating the page, or an example that no longer verifies, fails the
tests.
"""
import argparse
import importlib.util
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree (the lit test runs this)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import prim_docs_notes as notes  # noqa: E402

_spec = importlib.util.spec_from_file_location('gen_op_docs', os.path.join(ROOT, 'scripts', 'gen-op-docs.py'))
op_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(op_docs)

ROW = re.compile(r'KR_PRIM_OP\(\s*(\w+),\s*(\w+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*"((?:[^"\\]|\\.)*)"\)')
TOKEN = re.compile(r'/\*.*?\*/|' + ROW.pattern, re.S)
CLASSES = ['elementwise', 'reduction', 'layout', 'linear', 'constant']


def comment_text(c):
    """The text of a /* ... */ comment, lines joined, leading ` * ` removed."""
    body = c[2:-2]
    lines = [re.sub(r'^\s*\*?\s?', '', l).rstrip() for l in body.split('\n')]
    return ' '.join(l for l in lines if l).strip()


def parse_def():
    """[(group_title, group_text, [row...])], row = dict(stem, cls, operands, results, attrs,
    summary, comment)."""
    text = open(os.path.join(ROOT, 'dialects', 'prim', 'ops.def')).read()
    groups, pending, first = [], None, True
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith('/*'):
            if first:            # the file's header comment
                first = False
                continue
            t = comment_text(tok)
            if t.startswith('-----'):
                t = t.strip('- ').strip()
                title, _, rest = t.partition(':')
                groups.append((title.strip(), rest.strip(), []))
                pending = None
            else:
                pending = t
            continue
        r = ROW.match(tok)
        if not groups:
            sys.exit('gen-prim-docs.py: row %s before any group comment' % r.group(1))
        groups[-1][2].append(dict(stem=r.group(1), cls=r.group(2), operands=r.group(3), results=r.group(4),
                                  attrs=r.group(5), summary=r.group(6).replace('\\"', '"'), comment=pending))
        pending = None
    return groups


def fmt_default(stem, name, kind, required, default):
    if required:
        return 'required'
    if default is None:
        return 'absent: ' + notes.ABSENT.get('%s.%s' % (stem, name), 'see the shape rule')
    if kind == 's':
        return 'default `"%s"`' % default
    if kind == 'ints':
        return 'default `array<i64: %s>`' % ', '.join(default.split(','))
    return 'default `%s : i64`' % default if kind == 'i' else 'default `%s`' % default


def op_section(row):
    stem = row['stem']
    for table, what in ((notes.SHAPE, 'shape rule'), (notes.TYPES, 'element types'), (notes.EXAMPLE, 'example')):
        if stem not in table:
            sys.exit('gen-prim-docs.py: prim.%s has no %s in scripts/prim_docs_notes.py' % (stem, what))
    lines = ['### `prim.%s`' % stem, '']
    lines.append('%s.  Class: **%s**.' % (row['summary'][0].upper() + row['summary'][1:], row['cls']))
    lines.append('')
    lines.append('```mlir')
    lines.append(notes.EXAMPLE[stem][1])
    lines.append('```')
    lines.append('')
    ops = op_docs.parse_operands(row['operands'])
    res = op_docs.parse_operands(row['results'])
    if ops or res:
        lines.append('| | name | notes |')
        lines.append('|---|---|---|')
        for i, (n, _, optional, variadic) in enumerate(ops):
            flags = (['optional'] if optional else []) + (['variadic (1 or more)'] if variadic else [])
            lines.append('| operand %d | `%s` | %s |' % (i, n, ', '.join(flags)))
        for i, (n, _, _, _) in enumerate(res):
            lines.append('| result %d | `%s` | |' % (i, n))
        lines.append('')
    if not ops:
        lines.append('Operands: none.')
        lines.append('')
    lines.append('Element types: %s.' % notes.TYPES[stem])
    lines.append('')
    a = op_docs.parse_attrs(row['attrs'])
    if a:
        lines.append('Attributes: ' + '; '.join('`%s` %s, %s' % (n, op_docs.KIND[k], fmt_default(stem, n, k, req, d))
                                                for n, k, req, d in a) + '.')
    else:
        lines.append('Attributes: none.')
    lines.append('')
    sem = row['summary'] + '.'
    if row['comment']:
        sem += '  ' + row['comment']
    lines.append('Semantics: ' + sem)
    lines.append('')
    lines.append('Shape: ' + notes.SHAPE[stem])
    lines.append('')
    return lines


HEADER = '''<!-- Generated by scripts/gen-prim-docs.py from dialects/prim/ops.def and
     scripts/prim_docs_notes.py.  Do not edit: edit those and rerun the script (the lit test
     test/Dialect/prim/docs-up-to-date.kir fails when this page is stale). -->
# The `prim` dialect

Source: `dialects/prim/` (`ops.def`, `prim.c`, `shape_<class>.c`, `fold.c`, `canonicalize.c`), CPU
kernels in `backend/interp/prim_<class>.c`; C API in `include/korch/prim.h`.  Operator fission
(`--op-to-prim`, `passes/fission/`) lowers every op of the [`op` dialect](op.md) into these.

The primitive level of korch: Korch's primitive algebra (ASPLOS'24, §3, "operator fission").
Instead of fusing whole operators, every operator is split into a small, closed set of
primitives, and orchestration regroups primitives into kernels at that finer grain.  Each
primitive carries the **class** orchestration reasons with:

| class | what it is | primitives |
|---|---|---|
{classes}

## Conventions

- **Form.**  Primitives print in the generic form, attributes in a dictionary:
  `%y = "prim.reduce_sum"(%x) {{axes = array<i64: 1>, keepdims = 0 : i64}} : (tensor<2x3xf32>) ->
  tensor<2xf32>`.  Attribute encodings are the op dialect's (integer `1 : i64`, string `"lt"`,
  integer list `array<i64: 1, 2>`, element type `to = f16`); an absent attribute takes the
  default shown (`kr_op_attr_*()` of `korch/op.h` return it: the schema accessors work on prim
  ops).
- **Types.**  Operands and results are tensors with static shapes, rank <= 16, row-major.
  Element types: `f16` `bf16` `f32` `f64`, signless (two's complement) `i8`..`i64`, unsigned
  `ui8`..`ui64`, and `i1` (booleans).
- **No implicit conversions.**  Elementwise primitives take operands of one shape and one element
  type: broadcasting is an explicit `prim.broadcast`, conversion an explicit `prim.cast`.
- **Normalised attributes.**  Axes are never negative; slice bounds are clamped; reshape shapes
  have no -1 or 0-copies; every conv/pool list is given in full.  Fission normalises ONNX's
  conventions, so a primitive has one meaning per attribute value.
- **Verification.**  Every primitive checks its operand count and attribute kinds against its
  `ops.def` row (`expects 2 operands, got 1`, `unknown attribute 'axis'`, `attribute 'perm'
  must be an array<i64>`), that each operand is a static tensor, then its shape rule, and that
  the declared result types equal the rule's (`result #0 ('y') has type ... but shape inference
  gives ...`).  Errors name the operand or attribute: `operands #0 ('lhs') and #1 ('rhs') must
  have the same type (no implicit broadcast), got 'tensor<2x3xf32>' and 'tensor<1x3xf32>'`.
  `kr_prim_build()` builds a primitive and infers its result type, or reports the rule broken.
  Tests: `test/Dialect/prim/ops.kir`, `test/Dialect/prim/invalid-*.kir`,
  `test/unit/test_prim_api.c`.
- **Folding and canonicalization.**  Primitives fold through their kernels under a size policy
  (below); `--canonicalize` removes no-op primitives and collapses chains
  (`dialects/prim/canonicalize.c`).
'''


def generate():
    groups = parse_def()
    rows = [r for _, _, rs in groups for r in rs]
    bad = sorted({r['cls'] for r in rows} - set(CLASSES))
    if bad:
        sys.exit('gen-prim-docs.py: unknown class in ops.def: %s' % ', '.join(bad))
    what = {
        'elementwise': 'one output element from the same-index elements of its operands; free to recompute, fuses anywhere',
        'reduction': 'an output element combines a set of input elements along axes or a window',
        'layout': 'moves or selects elements without arithmetic',
        'linear': 'the compute-bound primitives; a kernel holds at most one',
        'constant': 'data, not computation; never part of a kernel',
    }
    cls_rows = []
    for c in CLASSES:
        members = [r['stem'] for r in rows if r['cls'] == c] if c != 'constant' else ['constant']
        cls_rows.append('| %s | %s | %s |' % (c, what[c], ', '.join('`%s`' % m for m in members)))
    out = HEADER.format(classes='\n'.join(cls_rows)).splitlines()
    out.extend(notes.DESIGN.strip('\n').splitlines())
    out.append('')
    out.append('## Index')
    out.append('')
    out.append('| primitive | class | summary |')
    out.append('|---|---|---|')
    out.append('| [`prim.constant`](#primconstant) | constant | a tensor constant |')
    for r in rows:
        out.append('| [`prim.%s`](#prim%s) | %s | %s |' % (r['stem'], r['stem'], r['cls'], r['summary'].replace('|', '\\|')))
    out.append('')
    for title, text, rs in groups:
        out.append('## %s' % (title[0].upper() + title[1:]))
        out.append('')
        if text:
            out.append(text[0].upper() + text[1:].rstrip('.') + '.')
            out.append('')
        for r in rs:
            out.extend(op_section(r))
    out.append('## Constants')
    out.append('')
    out.append('### `prim.constant`')
    out.append('')
    out.append('A tensor constant.  Class: **constant**.')
    out.append('')
    out.append('```mlir')
    out.append(CONSTANT_EXAMPLE)
    out.append('```')
    out.append('')
    out.append('No operands; one result whose type equals the `value` attribute\'s (`dense<...>` or '
               '`dense_resource<...>`, static shape).  Constant-like: folding materialises '
               '`prim.constant`.  Not an `ops.def` row (no schema): `kr_op_get_schema()` is NULL for it.')
    return '\n'.join(out).rstrip('\n') + '\n'


CONSTANT_EXAMPLE = '%c = "prim.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>'


def examples():
    """Every example as one .kir module (a function per primitive)."""
    out = []
    rows = [r for _, _, rs in parse_def() for r in rs]
    for r in rows:
        args, op = notes.EXAMPLE[r['stem']]
        out.append('func.func @%s(%s) {' % (r['stem'], args))
        out.append('  ' + op)
        out.append('  return')
        out.append('}')
    out.append('func.func @constant() {')
    out.append('  ' + CONSTANT_EXAMPLE)
    out.append('  return')
    out.append('}')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--check', action='store_true', help='fail (with a diff) when the page is stale')
    ap.add_argument('--examples', action='store_true', help='print the examples as a .kir module')
    ap.add_argument('-o', '--output', default=os.path.join(ROOT, 'docs', 'Dialects', 'prim.md'))
    args = ap.parse_args()
    if args.examples:
        sys.stdout.write(examples())
        return
    op_docs.write_or_check(generate(), args.output, args.check, 'gen-prim-docs.py')


if __name__ == '__main__':
    main()
