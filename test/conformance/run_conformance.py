#!/usr/bin/env python3
"""The .pte format conformance suite.

Writes the hand-built corpus (make_corpus.py), then for every file:
  - the independent Python checker (pte_check.py) must report exactly the
    manifest's errors and warnings;
  - `pte-inspect --check` must report the same, at the same places, and exit
    3 exactly when there are errors;
  - the reference runtime (pte-run) must run it and match the expected
    outputs, or refuse it with the expected message;
and on seeded random corruptions of every file the two checkers must still
report exactly the same findings.
Standard library only; exits non-zero on any mismatch.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import make_corpus  # noqa: E402
import pte_check  # noqa: E402

LINE = re.compile(r"^(.*): (error|warning): \[([a-z.-]+)\] (\S+): (.*)$")


def inspect_check(tool, path):
    p = subprocess.run([tool, "--check", path], capture_output=True, text=True)
    found = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m:
            found.append((m.group(2), m.group(3), m.group(4)))
    return p.returncode, found, p.stdout + p.stderr


def split(found):
    errors = sorted({r for s, r, _ in found if s == "error"})
    warnings = sorted({r for s, r, _ in found if s == "warning"})
    return errors, warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with pte-run and pte-inspect")
    ap.add_argument("--keep", help="write the corpus here instead of a temporary directory")
    ap.add_argument("--corruptions", type=int, default=8,
                    help="seeded random corruptions of each file both checkers must agree on")
    args, schemas = pte_check.parse_suite_args(ap)
    inspect = os.path.join(args.bin, "pte-inspect")
    run_tool = os.path.join(args.bin, "pte-run")

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or tmp
        sys.argv = ["make_corpus.py", out_dir]
        if make_corpus.main() != 0:
            return 1
        manifest = json.load(open(os.path.join(out_dir, "manifest.json")))
        counts = {"files": 0, "ran": 0, "refused": 0, "violations": 0}
        for e in manifest:
            name, path = e["name"], os.path.join(out_dir, e["file"])
            counts["files"] += 1
            want = (e["errors"], e["warnings"])
            data = open(path, "rb").read()

            py = [(s, r, w) for s, r, w, _ in pte_check.check_bytes(data, schemas)]
            if split(py) != want:
                failures.append("%s: pte_check.py found %s, expected %s" % (name, split(py), want))
            rc, cpp, log = inspect_check(inspect, path)
            if split(cpp) != want:
                failures.append("%s: pte-inspect --check found %s, expected %s\n%s" %
                                (name, split(cpp), want, log))
            if set(cpp) != set(py):
                failures.append("%s: the checkers disagree on places: python %s, C++ %s" %
                                (name, sorted(set(py) - set(cpp)), sorted(set(cpp) - set(py))))
            if rc != (1 if e["errors"] else 0):
                failures.append("%s: pte-inspect --check exited %d" % (name, rc))
            counts["violations"] += len(py)

            cmd = [run_tool, path, "--method", e["method"], "--rtol", "1e-4", "--atol", "1e-5"]
            for i in e.get("inputs", []):
                cmd += ["--input", os.path.join(out_dir, i)]
            for o in e.get("expected", []):
                cmd += ["--expected", os.path.join(out_dir, o)]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if "fail" in e:
                counts["refused"] += 1
                if p.returncode != 1 or e["fail"] not in p.stderr:
                    failures.append("%s: pte-run should refuse it with '%s'; exit %d:\n%s" %
                                    (name, e["fail"], p.returncode, p.stdout + p.stderr))
            else:
                counts["ran"] += 1
                if p.returncode != 0:
                    failures.append("%s: pte-run exit %d:\n%s" %
                                    (name, p.returncode, p.stdout + p.stderr))
        # Differential check: 1-3 flipped bytes per copy; the two checkers,
        # written independently, must still report the same findings.
        rng = random.Random(1234)
        fuzz_path = os.path.join(out_dir, "corrupted.pte")
        agreed = 0
        for e in manifest:
            data = open(os.path.join(out_dir, e["file"]), "rb").read()
            for _ in range(args.corruptions):
                b = bytearray(data)
                for _ in range(rng.randint(1, 3)):
                    b[rng.randrange(8, len(b))] ^= rng.randrange(1, 256)
                open(fuzz_path, "wb").write(b)
                py = {(s, r, w) for s, r, w, _ in pte_check.check_bytes(bytes(b), schemas)}
                _, cpp, log = inspect_check(inspect, fuzz_path)
                if py != set(cpp):
                    failures.append("%s corrupted (with --keep: %s): python-only %s, "
                                    "C++-only %s" % (e["name"], fuzz_path, sorted(py - set(cpp)),
                                                     sorted(set(cpp) - py)))
                    break
                agreed += 1
    for f in failures:
        print("FAIL " + f)
    print("%d corrupted copies: both checkers agree" % agreed)
    print("%d files: %d run and match their expected outputs, %d refused as expected; "
          "%d findings, the same from both checkers%s" %
          (counts["files"], counts["ran"], counts["refused"], counts["violations"],
           "" if not failures else " (%d failures)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
