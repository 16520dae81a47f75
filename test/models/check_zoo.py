#!/usr/bin/env python3
"""Regenerate the fixture zoo into a temporary folder and compare it byte for byte with
the committed files: test/models/<name>/ (gen_zoo.py) and test/models_pending/<name>/
(gen_zoo_dynamic.py: dynamic shapes and control flow, not yet run by the e2e tests).

Exit status: 0 when identical; 77 when torch is not available (prints
"skipped: torch not available"; ctest shows the test as skipped); 1 when any file
differs, is missing or is extra.
Run it with the interpreter that has torch (Debian: /usr/bin/python3).
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PENDING = os.path.join(os.path.dirname(HERE), "models_pending")
SKIPPED = 77  # ctest SKIP_RETURN_CODE


def fixture_files(root, names):
    out = set()
    for name in names:
        d = os.path.join(root, name)
        if os.path.isdir(d):
            out |= {os.path.join(name, f) for f in os.listdir(d)
                    if os.path.isfile(os.path.join(d, f))}
    return out


def main():
    try:
        import torch  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        print("skipped: torch not available")
        return SKIPPED
    sys.path.insert(0, HERE)
    import zoo_models
    import gen_zoo_dynamic
    sets = [("gen_zoo.py", HERE, [e.name for e in zoo_models.zoo()]),
            ("gen_zoo_dynamic.py", HERE, gen_zoo_dynamic.enabled()),
            ("gen_zoo_dynamic.py", PENDING, gen_zoo_dynamic.pending())]
    bad = total = 0
    for script, committed, names in sets:
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(HERE, script), "--out", tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                sys.stdout.write(r.stdout.decode(errors="replace"))
                print("FAIL: %s exited with %d" % (script, r.returncode))
                return 1
            new = fixture_files(tmp, names)
            old = fixture_files(committed, names)
            total += len(new)
            for f in sorted(new | old):
                shown = os.path.relpath(os.path.join(committed, f), HERE)
                if f not in old:
                    print("extra (not committed): %s" % shown)
                    bad += 1
                elif f not in new:
                    print("stale (no longer generated): %s" % shown)
                    bad += 1
                else:
                    with open(os.path.join(tmp, f), "rb") as a, \
                            open(os.path.join(committed, f), "rb") as b:
                        if a.read() != b.read():
                            print("differs: %s" % shown)
                            bad += 1
    if bad:
        print("FAIL: %d fixture files differ; rerun test/models/gen_zoo.py and "
              "test/models/gen_zoo_dynamic.py" % bad)
        return 1
    print("ok: %d fixture files identical" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
