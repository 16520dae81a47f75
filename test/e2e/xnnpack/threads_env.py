#!/usr/bin/env python3
"""PTEC_XNNPACK_THREADS gets the limits of pte-run's --xnnpack-threads.

    threads_env.py --bin BUILD/bin --model test/models/small_cnn

Compiles the model with --backend xnnpack, then runs pte-run under values of
PTEC_XNNPACK_THREADS: each whole number in 0..1024 runs and matches the
expected outputs; everything else (above 1024, 20 digits, signs, spaces,
fractions, NaN) must exit 1 within seconds with a message naming the
variable, never crash (once: SIGSEGV on 99999999999999999999) or hang
(once: 1025..100000 started that many threads). Python standard library only.
"""
import argparse
import os
import subprocess
import sys
import tempfile

GOOD = ["0", "1", "3", ""]  # "" counts as unset
BAD = ["99999999999999999999", "1025", "100000", "-1", "1.5", "nan", " 2", "abc"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="threads_env_")
    pte = os.path.join(tmp, "model.pte")
    p = subprocess.run([os.path.join(args.bin, "aot-compile"),
                        os.path.join(args.model, "model.pt2"), "-o", pte, "--no-progress",
                        "--backend", "xnnpack"], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"aot-compile failed ({p.returncode}): {p.stderr}")
        return 1
    base = [os.path.join(args.bin, "pte-run"), pte,
            "--input", os.path.join(args.model, "input_0.npy"),
            "--expected", os.path.join(args.model, "expected_0.npy"),
            "--rtol", "1e-4", "--atol", "1e-5"]
    failures = 0
    for value in GOOD + BAD:
        env = dict(os.environ, PTEC_XNNPACK_THREADS=value)
        try:
            p = subprocess.run(base, env=env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print(f"FAIL {value!r}: pte-run did not finish in 60 s")
            failures += 1
            continue
        text = p.stdout + p.stderr
        if value in GOOD:
            ok = p.returncode == 0
            what = "runs and matches"
        else:
            ok = p.returncode == 1 and "PTEC_XNNPACK_THREADS" in text and "0..1024" in text
            what = "refused naming the variable and its limits"
        print(f"{'ok  ' if ok else 'FAIL'} {value!r}: exit {p.returncode} ({what})")
        if not ok:
            print("    " + text.strip().replace("\n", "\n    ")[-600:])
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
