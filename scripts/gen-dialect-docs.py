#!/usr/bin/env python3
"""scripts/gen-dialect-docs.py - the generated op index of the hand-written dialect pages.

    scripts/gen-dialect-docs.py            rewrite the index of every page below
    scripts/gen-dialect-docs.py --check    exit 1 (with a diff) when an index is stale, or when an op
                                           of ops.def is not described in its page's own text

docs/Dialects/op.md and prim.md are generated whole (scripts/gen-op-docs.py, gen-prim-docs.py).
The other dialect pages (builtin, func, arith, kernel, test) are written by hand, because their
ops' custom forms and verifier messages are prose; this script keeps them honest against the
dialect's single source of truth, its `ops.def` table (KR_OP rows, dialects/dialect_macros.h):

- it writes, between the markers `<!-- BEGIN generated op index -->` and `<!-- END generated op
  index -->` of the page, a table of every row of ops.def: name, summary, operand / result /
  region counts, traits (the table's own #defines expanded), which hooks exist (verifier, folder,
  canonicalization pattern, custom form) and the section of the page that describes the op;
- --check also fails when an op has no description: its name, in backticks, must appear in the
  page outside the generated index (`arith.addi`, or the short `addi` in arith.md's tables).

So adding an op to an ops.def without documenting it, or without regenerating the index, fails
the lit test test/Dialect/dialect-docs-up-to-date.kir.
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree (the lit test runs this)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# page -> the ops.def it documents
PAGES = [
    ('docs/Dialects/builtin.md', 'dialects/builtin/ops.def'),
    ('docs/Dialects/func.md', 'dialects/func/ops.def'),
    ('docs/Dialects/arith.md', 'dialects/arith/ops.def'),
    ('docs/Dialects/kernel.md', 'dialects/kernel/ops.def'),
    ('docs/Dialects/test.md', 'test/lib/ops.def'),
]
BEGIN = '<!-- BEGIN generated op index: scripts/gen-dialect-docs.py writes it from %s; do not edit -->'
END = '<!-- END generated op index -->'

ROW = re.compile(r'^KR_OP\(\s*"([\w.]+)",(.*?)"((?:[^"\\]|\\.)*)"\)', re.S | re.M)
DEFINE = re.compile(r'^#define\s+(\w+)\s+\((.*?)\)\s*$', re.M)


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)


def parse_def(path):
    """[dict(name, traits[], nops, nres, nreg, hooks[], summary)] in table order."""
    text = strip_comments(open(os.path.join(ROOT, path)).read())
    macros = {m.group(1): m.group(2) for m in DEFINE.finditer(text)}

    def traits(expr):
        out = []
        for t in (x.strip() for x in expr.split('|')):
            if t in macros:
                out.extend(traits(macros[t]))
            elif t.startswith('KR_TRAIT_'):
                out.append(t[len('KR_TRAIT_'):])
            elif t not in ('0', ''):
                sys.exit('gen-dialect-docs.py: %s: unknown trait expression %r' % (path, t))
        return out

    rows = []
    for m in ROW.finditer(text):
        cols = [c.strip() for c in m.group(2).split(',') if c.strip()]
        if len(cols) != 9:
            sys.exit('gen-dialect-docs.py: %s: row %s has %d columns between name and summary, '
                     'expected 9' % (path, m.group(1), len(cols)))
        count = lambda c: 'var' if c == 'KR_VARIADIC' else c
        verify, fold, canon, parse, _ = cols[4:]
        hooks = [what for what, fn in (('verifier', verify), ('folder', fold), ('canonicalization', canon),
                                       ('custom form', parse)) if fn != 'NONE']
        rows.append(dict(name=m.group(1), traits=traits(cols[0]), nops=count(cols[1]), nres=count(cols[2]),
                         nreg=cols[3], hooks=hooks, summary=m.group(3).replace('\\"', '"')))
    if not rows:
        sys.exit('gen-dialect-docs.py: %s: no KR_OP rows' % path)
    return rows


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    h = heading.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')


def split_page(page, path):
    """(before, after) the generated block (markers excluded)."""
    b = page.find('<!-- BEGIN generated op index')
    e = page.find(END)
    if b < 0 or e < b:
        sys.exit('gen-dialect-docs.py: %s has no "<!-- BEGIN generated op index ... -->" / "%s" markers'
                 % (path, END))
    b_end = page.index('-->', b) + 3
    return page[:b], page[b_end:e], page[e + len(END):]


def where_described(name, before, after):
    """The heading of the section that describes `name`: one whose title names the op, else the
    first whose table has a row for it (first cell), else the first that mentions it at all
    ('' when the mention precedes every heading); None when the hand-written text never does."""
    short = name.split('.', 1)[1]
    mention = re.compile(r'`(?:%s|%s)`|`%s[ `(\[]' % (re.escape(name), re.escape(short), re.escape(name)))
    found = [None, None, None]
    for part in (before, after):
        heading = ''
        for line in part.splitlines():
            if line.startswith('#'):
                heading = line.lstrip('#').strip()
                if found[0] is None and '`%s`' % name in heading:
                    found[0] = heading
            elif line.startswith('|') and found[1] is None and mention.search(line.split('|')[1]):
                found[1] = heading
            elif found[2] is None and mention.search(line):
                found[2] = heading
    return next((f for f in found if f is not None), None)


def index_block(rows, def_path, before, after, missing):
    out = [BEGIN % def_path, '', '## Op index', '',
           'Every row of `%s`, in table order (operands / results / regions: exact counts or `var` '
           'for variadic; hooks: what the row implements beyond the generic verifier).' % def_path, '',
           '| op | summary | operands / results / regions | traits | hooks | described in |',
           '|---|---|---|---|---|---|']
    for r in rows:
        h = where_described(r['name'], before, after)
        if h is None:
            missing.append(r['name'])
            where = '**not described**'
        elif h == '':
            where = 'above'
        else:
            where = '[%s](#%s)' % (h.replace('`', ''), anchor(h))
        out.append('| `%s` | %s | %s / %s / %s | %s | %s | %s |' % (
            r['name'], r['summary'].replace('|', '\\|'), r['nops'], r['nres'], r['nreg'],
            ', '.join('`%s`' % t for t in r['traits']) or 'none', ', '.join(r['hooks']) or 'none', where))
    out.append('')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--check', action='store_true', help='fail (with a diff) when a page is stale or incomplete')
    args = ap.parse_args()
    failed = False
    for page_path, def_path in PAGES:
        full = os.path.join(ROOT, page_path)
        page = open(full).read()
        before, _, after = split_page(page, page_path)
        missing = []
        block = index_block(parse_def(def_path), def_path, before, after, missing)
        new = before + block + END + after
        if missing:
            sys.stderr.write('gen-dialect-docs.py: %s does not describe %s (write a section, or a row of its '
                             'tables, naming the op in backticks)\n' % (page_path, ', '.join(missing)))
            failed = True
        if args.check:
            if new != page:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(page.splitlines(True), new.splitlines(True),
                                                           page_path, 'regenerated'))
                sys.stderr.write('gen-dialect-docs.py: %s is stale: run scripts/gen-dialect-docs.py\n' % page_path)
                failed = True
        elif new != page:
            with open(full, 'w') as f:
                f.write(new)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
