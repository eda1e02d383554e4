#!/usr/bin/env python3
"""scripts/gen-pass-docs.py - the generated pass reference of docs/Passes.md.

    build/tools/korch-opt --help | scripts/gen-pass-docs.py -           rewrite the reference
    build/tools/korch-opt --help | scripts/gen-pass-docs.py --check -   exit 1 (with a diff) when stale

The pass registry is the source of truth: `korch-opt --help` lists every registered pass (core
passes, and the test passes korch-opt registers with the test dialect) with its options, their
kinds, defaults and descriptions (tools/korch-opt/options.c, print_passes).  This script parses
that listing and writes it as a table between the markers `<!-- BEGIN generated pass reference`
and `<!-- END generated pass reference -->` of docs/Passes.md, each pass linked to the section
that describes it (a heading of Passes.md naming it in backticks; test passes to
docs/Dialects/test.md).  --check fails when the table differs, so registering a pass or changing
an option without regenerating fails the lit test test/Pass/pass-docs-up-to-date.kir.
"""
import argparse
import difflib
import os
import re
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, 'docs', 'Passes.md')
BEGIN = '<!-- BEGIN generated pass reference: scripts/gen-pass-docs.py writes it from `korch-opt --help`; do not edit -->'
END = '<!-- END generated pass reference -->'

PASS = re.compile(r'^      --([\w-]+)\s+-   (.*)$')
OPTION = re.compile(r'^        --([\w-]+)(=<(\w+)>)?\s+- (.*?)(?: \(default: (.*)\))?$')
KIND = {None: 'bool', 'long': 'int', 'ulong': 'uint', 'number': 'double', 'string': 'string'}


def parse_help(text):
    """[(name, summary, [(option, kind, default, description)])] in registry (--help) order."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == 'Passes:') + 1
    except StopIteration:
        sys.exit('gen-pass-docs.py: no "Passes:" section in the input (pipe `korch-opt --help` into it)')
    passes = []
    for l in lines[start:]:
        if not l.strip():
            break
        m = PASS.match(l)
        if m:
            passes.append((m.group(1), m.group(2).strip(), []))
            continue
        m = OPTION.match(l)
        if not m or not passes:
            sys.exit('gen-pass-docs.py: cannot parse --help line: %r' % l)
        passes[-1][2].append((m.group(1), KIND[m.group(3)], m.group(5), m.group(4).strip()))
    if not passes:
        sys.exit('gen-pass-docs.py: no passes in the input')
    return passes


def anchor(heading):
    h = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return h.replace(' ', '-')


def section_of(name, hand):
    if name.startswith('test-'):
        return 'Dialects/test.md#test-passes'
    for line in hand.splitlines():
        if line.startswith('#') and ('`%s`' % name) in line:
            return '#' + anchor(line.lstrip('#'))
    return '#passes'


def esc(s):
    return s.replace('|', '\\|')


def block(passes, hand):
    out = [BEGIN, '', '## Pass reference', '',
           'Every pass `korch-opt --help` lists, in its order, with every option (kind, default, meaning) '
           'as the registry declares them.  `test-*` passes exist only in korch-opt (the test dialect\'s, '
           '[Dialects/test.md](Dialects/test.md#test-passes)); a plugin\'s passes appear in `--help` once it '
           'is loaded.  Options are given as `--pass=opt=value` on the command line or `pass{opt=value}` '
           'in a pipeline ([Pipelines](#pipelines)).', '',
           '| pass | summary | options: `name` kind = default: meaning |',
           '|---|---|---|']
    for name, summary, opts in passes:
        o = '<br>'.join('`%s` %s%s: %s' % (n, k, ' = `%s`' % d if d not in (None, '') else '', esc(desc))
                        for n, k, d, desc in opts) or 'none'
        out.append('| [`%s`](%s) | %s | %s |' % (name, section_of(name, hand), esc(summary), o))
    out.append('')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('help_file', help='`korch-opt --help` output, - for standard input')
    ap.add_argument('--check', action='store_true', help='fail (with a diff) when the reference is stale')
    args = ap.parse_args()
    text = sys.stdin.read() if args.help_file == '-' else open(args.help_file).read()
    passes = parse_help(text)
    page = open(PAGE).read()
    b, e = page.find('<!-- BEGIN generated pass reference'), page.find(END)
    if b < 0 or e < b:
        sys.exit('gen-pass-docs.py: docs/Passes.md has no generated pass reference markers')
    hand = page[:b] + page[e:]
    new = page[:b] + block(passes, hand) + page[e:]
    if args.check:
        if new != page:
            sys.stdout.writelines(difflib.unified_diff(page.splitlines(True), new.splitlines(True),
                                                       'docs/Passes.md', 'regenerated'))
            sys.exit('gen-pass-docs.py: docs/Passes.md is stale: run '
                     '`build/tools/korch-opt --help | scripts/gen-pass-docs.py -`')
        return
    if new != page:
        with open(PAGE, 'w') as f:
            f.write(new)


if __name__ == '__main__':
    main()
