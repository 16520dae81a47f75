#!/usr/bin/env python3
"""Says whether the e2e tests also ran on upstream's runtimes, and checks that they work.

    upstream_available.py --bin BUILD/bin --model FIXTURE_DIR --oracle RUNNER

The e2e tests run every program on upstream's C++ runtime (--oracle) where the prebuilt
runner exists beside the repository, and on the executorch package's bindings (--pybind)
where the modern-PyTorch venv exists; without them those parts are silently absent from
each test. This test makes their absence visible: it exits 77 (skipped) when neither
runtime is there, and otherwise runs one fixture through run_model.py on each runtime
present and fails when that run fails.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_model  # noqa: E402

SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--oracle", required=True)
    args = ap.parse_args()
    oracle = os.path.exists(args.oracle)
    venv = run_model.modern_python() is not None
    print(f"upstream C++ runtime (oracle runner): {'present' if oracle else 'absent'}")
    print(f"executorch package bindings (modern venv): {'present' if venv else 'absent'}")
    if not oracle and not venv:
        print("skipped: neither upstream runtime is here; the e2e tests ran on pte-run only")
        return SKIP
    cmd = [sys.executable, os.path.join(HERE, "run_model.py"), "--bin", args.bin,
           "--model", args.model]
    if oracle:
        cmd += ["--oracle", args.oracle]
    if venv:
        cmd.append("--pybind")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout.rstrip())
    wanted = (["ok oracle"] if oracle else []) + (["ok pybind"] if venv else [])
    missing = [w for w in wanted if w not in p.stdout]
    if p.returncode != 0 or missing:
        print(f"FAIL: the run on upstream's runtimes failed or did not happen ({missing})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
