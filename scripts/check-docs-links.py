#!/usr/bin/env python3
"""scripts/check-docs-links.py - the documentation's index and links are complete.

    scripts/check-docs-links.py     exit 1, listing each problem, when
      - a page under docs/ (any *.md, Dialects/ included) is not linked from docs/README.md, the index;
      - a relative link `[text](target)` in README.md or any page under docs/ names a file that does
        not exist (the `#anchor` part is not checked; http(s) and mailto links are not followed).

Run by the lit test test/Tools/docs/links.kir, so a new page left out of the index, or a page
renamed under its links, fails the tests.
"""
import os
import re
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, 'docs')
LINK = re.compile(r'\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*```')


def links(path):
    """(line number, target) of every markdown link outside fenced code blocks."""
    out, in_code = [], False
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        line = re.sub(r'`[^`]*`', '', line)   # inline code is not a link
        out.extend((n, m.group(1)) for m in LINK.finditer(line))
    return out


def main():
    problems = []
    pages = []
    for d, _, files in os.walk(DOCS):
        pages.extend(os.path.join(d, f) for f in files if f.endswith('.md'))
    index = os.path.join(DOCS, 'README.md')
    indexed = {os.path.normpath(os.path.join(DOCS, t.split('#')[0])) for _, t in links(index)}
    for p in sorted(pages):
        if p != index and os.path.normpath(p) not in indexed:
            problems.append('docs/README.md does not link to %s' % os.path.relpath(p, ROOT))
    for p in sorted(pages) + [os.path.join(ROOT, 'README.md')]:
        for n, target in links(p):
            if re.match(r'^(https?:|mailto:|#)', target):
                continue
            f = os.path.normpath(os.path.join(os.path.dirname(p), target.split('#')[0]))
            if not os.path.exists(f):
                problems.append('%s:%d: link to a missing file: %s' % (os.path.relpath(p, ROOT), n, target))
    for line in problems:
        print('check-docs-links.py: ' + line)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
