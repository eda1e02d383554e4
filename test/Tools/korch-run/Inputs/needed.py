#!/usr/bin/env python3
"""Prints the NEEDED entries of `readelf -d` output on stdin ("needed: a b c", sorted) and exits 1
when one is not in the allowed list given as arguments."""
import re
import sys

libs = sorted(re.findall(r"NEEDED.*\[(.*)\]", sys.stdin.read()))
print("needed:", " ".join(libs))
sys.exit(1 if any(lib not in sys.argv[1:] for lib in libs) else 0)
