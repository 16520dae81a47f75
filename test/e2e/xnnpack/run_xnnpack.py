#!/usr/bin/env python3
"""One zoo model through --backend xnnpack: compiled twice (identical bytes),
every method run by pte-run against PyTorch's outputs (run_model.py's check),
and the program's delegation checked with pte-inspect: at least
--min-delegates XnnpackBackend entries per method (or exactly --entries), the
number of DelegateCall instructions (--calls), and whether the entries carry
planned scratch (--scratch yes|no). --no-portable PREFIX fails when a kernel
call left on the portable kernels runs an operator whose name starts with
PREFIX (e.g. quantized_decomposed:: for an int8 program that must be wholly
delegated); --atol replaces meta.json's tolerance (rtol 0) for a backend
whose arithmetic differs from PyTorch's by design (int8 requantization).

Standard library only; exits non-zero on any failure, 77 when pte-run was
built without XnnpackBackend.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run_model  # noqa: E402

SKIP = 77


def inspect(bin_dir, pte):
    p = subprocess.run([os.path.join(bin_dir, "pte-inspect"), pte, "--json", "--elide-bytes"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stdout)
    d = json.loads(p.stdout)
    return d.get("program", d)


def check_delegation(args, pte):
    failures = 0
    for plan in inspect(args.bin, pte)["execution_plan"]:
        name = plan["name"]
        xnn = [d for d in plan.get("delegates", []) if d["id"] == "XnnpackBackend"]
        calls = [i for i in plan["chains"][0]["instructions"]
                 if i["instr_args_type"] == "DelegateCall"]
        if args.entries is not None and len(xnn) != args.entries:
            print(f"FAIL: {name} has {len(xnn)} XnnpackBackend entries, expected {args.entries}")
            failures += 1
        elif len(xnn) < args.min_delegates:
            print(f"FAIL: {name} has {len(xnn)} XnnpackBackend entries, "
                  f"expected at least {args.min_delegates}")
            failures += 1
        else:
            print(f"ok: {name} has {len(xnn)} XnnpackBackend entries, {len(calls)} calls")
        if args.calls is not None and len(calls) != args.calls:
            print(f"FAIL: {name} has {len(calls)} delegate calls, expected {args.calls}")
            failures += 1
        ops = plan.get("operators", [])
        for i in plan["chains"][0]["instructions"]:
            if i["instr_args_type"] != "KernelCall":
                continue
            op = ops[i["instr_args"].get("op_index", 0)]["name"]  # 0 is omitted
            if any(op.startswith(prefix) for prefix in args.no_portable):
                print(f"FAIL: {name} runs {op} on the portable kernels")
                failures += 1
        if args.scratch is not None:
            have = all(d.get("scratch") for d in xnn) and bool(xnn)
            if have != (args.scratch == "yes"):
                print(f"FAIL: {name}: scratch on every entry is {have}, expected {args.scratch}")
                failures += 1
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--backend", default="xnnpack", help="e.g. xnnpack:scratch")
    ap.add_argument("--extra", action="append", default=[], help="more aot-compile options")
    ap.add_argument("--min-delegates", type=int, default=1)
    ap.add_argument("--entries", type=int, default=None)
    ap.add_argument("--calls", type=int, default=None)
    ap.add_argument("--scratch", choices=["yes", "no"], default=None)
    ap.add_argument("--no-portable", action="append", default=[], metavar="PREFIX",
                    help="fail when a portable kernel call runs an operator named PREFIX...")
    ap.add_argument("--atol", type=float, default=None,
                    help="tolerance instead of meta.json's (rtol 0)")
    ap.add_argument("--pybind", action="store_true",
                    help="also run on the executorch package's runtime bindings")
    ap.add_argument("--oracle", default=None, metavar="RUNNER",
                    help="also run every call on upstream's runtime (executorch-runner)")
    args = ap.parse_args()

    listing = subprocess.run([os.path.join(args.bin, "pte-run"), "--help"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if "--xnnpack-threads" not in listing:
        print("skipped: pte-run was built without XnnpackBackend")
        return SKIP

    meta = json.load(open(os.path.join(args.model, "meta.json")))
    if args.atol is not None:
        meta["rtol"], meta["atol"] = 0.0, args.atol
    run_args = argparse.Namespace(bin=args.bin, model=args.model, expect_delegates=None,
                                  oracle=args.oracle, pybind=args.pybind)
    options = ["--backend", args.backend, "--write-back", "earliest"] + args.extra
    with tempfile.TemporaryDirectory() as tmp:
        failures = run_model.check(run_args, meta, tmp, options, f" [{' '.join(options)}]")
        pte = os.path.join(tmp, "model0.pte")
        if os.path.exists(pte):
            failures += check_delegation(args, pte)
    print(f"{meta['name']} on xnnpack: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
