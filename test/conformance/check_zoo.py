#!/usr/bin/env python3
"""Our writer's output against the format rules, checked independently.

Compiles every zoo model (test/models/*/meta.json: all methods into one
program, as the end-to-end tests do) plus the backend variants the e2e tests
use, then runs the independent Python checker (pte_check.py) and
`pte-inspect --check` over every .pte. A file our writer produces must have
no findings at all, not even warnings. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pte_check  # noqa: E402

# (model, extra aot-compile arguments, label): the variants test/e2e compiles.
VARIANTS = [
    ("demo_ops", ["--backend", "demo"], "demo"),
    ("ten_calls", ["--backend", "demo"], "demo"),
    ("ten_calls", ["--backend", "demo", "--no-share-delegates"], "demo-unshared"),
    ("two_methods", ["--backend", "cachetest"], "cachetest"),
    ("mutable_buffer", ["--write-back", "end"], "write-back-end"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile and pte-inspect")
    ap.add_argument("--models", required=True, help="the zoo (test/models)")
    ap.add_argument("--extra", nargs="*", default=[],
                    help="more compiler inputs (.pt2 or saved IR) to compile and check")
    args, schemas = pte_check.parse_suite_args(ap)
    aot = os.path.join(args.bin, "aot-compile")
    inspect = os.path.join(args.bin, "pte-inspect")

    jobs = []
    for model in sorted(os.listdir(args.models)):
        meta_path = os.path.join(args.models, model, "meta.json")
        if not os.path.exists(meta_path):
            continue
        meta = json.load(open(meta_path))
        sources = ["%s:%s" % (os.path.join(args.models, model, m["file"]), m["method"])
                   for m in meta["methods"]]
        jobs.append((model, sources, []))
        for name, extra, label in VARIANTS:
            if name == model:
                jobs.append(("%s-%s" % (model, label), sources, extra))
    for path in args.extra:
        jobs.append((os.path.basename(path), [path], []))

    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, sources, extra in jobs:
            out = os.path.join(tmp, label + ".pte")
            p = subprocess.run([aot, *sources, "-o", out, *extra], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append("%s: aot-compile failed:\n%s" % (label, p.stderr))
                continue
            checked += 1
            findings = pte_check.check_bytes(open(out, "rb").read(), schemas)
            for sev, rule, where, msg in findings:
                failures.append("%s: pte_check.py: %s [%s] %s: %s" % (label, sev, rule, where, msg))
            p = subprocess.run([inspect, "--check", out], capture_output=True, text=True)
            if p.returncode != 0 or not p.stdout.strip().endswith(": ok"):
                failures.append("%s: pte-inspect --check (exit %d):\n%s" %
                                (label, p.returncode, p.stdout + p.stderr))
            print("%-32s %7d bytes  %s" % (label, os.path.getsize(out),
                                          "ok" if not findings else "%d findings" % len(findings)))
    for f in failures:
        print("FAIL " + f)
    print("%d programs compiled by ptec checked by both checkers%s" %
          (checked, "" if not failures else ", %d failures" % len(failures)))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
