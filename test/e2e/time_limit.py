#!/usr/bin/env python3
"""The runtime's loop guard is a time budget, not an instruction count.

With the zoo's while_model (a torch while_loop: i counts to n, acc = acc/2 + x):
1. n = 2,000,000 runs about 12 M instructions, past the old cap of 10 M, and must
   end with the right outputs (i == n; acc has converged to 2x, so 2*acc == 4x);
2. the same call with `pte-run --time-limit 0.05` must stop with a message that
   names the time limit, exit 1, and do so in well under the run's own time;
3. `--time-limit` rejects a negative value (usage error, exit 2).

Usage: time_limit.py --bin BUILD/bin --model test/models/while_model
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_model import read_npy  # noqa: E402


def write_npy(path, descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(payload)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        pte = os.path.join(tmp, "while.pte")
        subprocess.run([os.path.join(args.bin, "aot-compile"),
                        os.path.join(args.model, "model.pt2"), "-o", pte], check=True)
        x = [0.5, -1.0, 2.0, 0.25, 3.0, -0.5, 1.5, 0.0]
        n = 2_000_000
        write_npy(os.path.join(tmp, "x.npy"), "<f4", (2, 4), struct.pack("<8f", *x))
        write_npy(os.path.join(tmp, "n.npy"), "<i8", (), struct.pack("<q", n))
        base = [os.path.join(args.bin, "pte-run"), pte, "--input", os.path.join(tmp, "x.npy"),
                "--input", os.path.join(tmp, "n.npy")]
        out = os.path.join(tmp, "out")
        t0 = time.monotonic()
        r = subprocess.run(base + ["--output-dir", out], capture_output=True, text=True)
        full = time.monotonic() - t0
        if r.returncode != 0:
            failures.append("n = %d did not run: %s" % (n, r.stderr.strip()))
        else:
            _, _, i = read_npy(os.path.join(out, "output_0.npy"))
            _, _, y = read_npy(os.path.join(out, "output_1.npy"))
            if list(i) != [n]:
                failures.append("i = %s, want %d" % (list(i), n))
            if [round(v, 5) for v in y] != [round(4 * v, 5) for v in x]:
                failures.append("2*acc = %s, want %s" % (list(y), [4 * v for v in x]))
            print("n = %d: ran in %.2f s, outputs right" % (n, full))

        t0 = time.monotonic()
        r = subprocess.run(base + ["--time-limit", "0.05"], capture_output=True, text=True)
        took = time.monotonic() - t0
        if r.returncode != 1 or "time limit" not in r.stderr:
            failures.append("--time-limit 0.05: exit %d, stderr %r" % (r.returncode, r.stderr))
        else:
            print("--time-limit 0.05: stopped after %.2f s: %s" % (took, r.stderr.strip()))

        r = subprocess.run(base + ["--time-limit", "-1"], capture_output=True, text=True)
        if r.returncode != 2:
            failures.append("--time-limit -1: exit %d, want 2" % r.returncode)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
