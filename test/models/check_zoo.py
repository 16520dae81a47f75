#!/usr/bin/env python3
"""Regenerate the fixture zoo into a temporary folder and compare it with the committed
files: test/models/<name>/ (gen_zoo.py) and test/models_pending/<name>/
(gen_zoo_dynamic.py: dynamic shapes and control flow, not yet run by the e2e tests).

What the generator decides is compared byte for byte: archives (graphs and weights),
inputs, graph listings, metadata. What PyTorch computes on this machine (expected
outputs and state after calls: `*expected*.npy`, `*state*.npy`) is compared by value,
since another CPU may round differently (bf16 convolutions, attention): same dtype and
shape, and floating values within OUTPUT_RTOL / OUTPUT_ATOL of the committed ones;
integer and bool values must be equal.

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
OUTPUT_RTOL = 1e-4
OUTPUT_ATOL = 1e-5


def computed(name):
    """Whether a fixture file holds values PyTorch computed (compared by value)."""
    base = os.path.basename(name)
    return base.endswith(".npy") and ("expected" in base or "state" in base)


def same_values(new_path, old_path):
    """'' when two computed .npy files agree within tolerance, else why not."""
    import numpy as np
    a, b = np.load(new_path), np.load(old_path)
    if a.dtype != b.dtype or a.shape != b.shape:
        return "dtype/shape %s%s vs committed %s%s" % (a.dtype, list(a.shape), b.dtype,
                                                      list(b.shape))
    if a.dtype.kind not in "fc":
        return "" if np.array_equal(a, b) else "values differ (exact dtype %s)" % a.dtype
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if np.array_equal(np.isnan(a64), np.isnan(b64)) and np.allclose(
            a64, b64, rtol=OUTPUT_RTOL, atol=OUTPUT_ATOL, equal_nan=True):
        return ""
    err = np.nanmax(np.abs(a64 - b64)) if a64.size else 0.0
    return "values differ beyond rtol %g atol %g (max abs err %g)" % (OUTPUT_RTOL, OUTPUT_ATOL,
                                                                     err)


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
                        if a.read() == b.read():
                            continue
                    why = (same_values(os.path.join(tmp, f), os.path.join(committed, f))
                           if computed(f) else "bytes differ")
                    if why:
                        print("differs: %s: %s" % (shown, why))
                        bad += 1
    if bad:
        print("FAIL: %d fixture files differ; rerun test/models/gen_zoo.py and "
              "test/models/gen_zoo_dynamic.py" % bad)
        return 1
    print("ok: %d fixture files identical (computed outputs within tolerance)" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
