#!/usr/bin/env python3
"""The report's portable ops against the IR: counts, per ATen op name, the
exir.aten ops outside every exir.delegate_region in IR printed after the
partition phase (branches of cond / while included), and compares them with
the report's ops[].portable and with its refused[] entries.
Usage: check_portable.py PARTITIONED.mlir REPORT.json
Prints "portable ops agree: N ops" or each difference."""
import collections
import json
import re
import sys

ir = open(sys.argv[1]).read().splitlines()
report = json.load(open(sys.argv[2]))

portable = collections.Counter()
depth, regions = 0, []  # brace depth at which each open delegate region started
for line in ir:
    if line.startswith("{-#"):
        break  # the resource blobs at the end
    m = re.search(r'exir\.aten "([^"]+)"', line)
    if m and not regions:
        portable[m.group(1)] += 1
    if "exir.delegate_region" in line:
        regions.append(depth)
    depth += line.count("{") - line.count("}")
    while regions and depth <= regions[-1]:
        regions.pop()

stats = {o["op"]: o["portable"] for o in report["ops"] if o["portable"]}
listed = collections.Counter(r["op"] for r in report["refused"])
problems = []
for name in sorted(set(portable) | set(stats) | set(listed)):
    want = portable.get(name, 0)
    if stats.get(name, 0) != want or listed.get(name, 0) != want:
        problems.append(f"{name}: {want} portable in the IR, report ops[] says "
                        f"{stats.get(name, 0)}, refused[] lists {listed.get(name, 0)}")
for p in problems:
    print(p)
if not problems:
    print(f"portable ops agree: {sum(portable.values())} ops")
sys.exit(1 if problems else 0)
