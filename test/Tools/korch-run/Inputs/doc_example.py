#!/usr/bin/env python3
"""Prints the first ```xml block after the heading "## `model.plan.xml`" of docs/PlanFormat.md,
so a test can run korch-run's plan reader on the documented example (plan-format-doc.test).

  doc_example.py DOC.md > model.plan.xml
"""
import sys

lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = lines.index("## `model.plan.xml`")
begin = lines.index("```xml", start) + 1
end = lines.index("```", begin)
sys.stdout.write("\n".join(lines[begin:end]) + "\n")
