#!/usr/bin/env python3
"""End-to-end check of one zoo model: .pt2 -> aot-compile -> .pte -> pte-run.

Compiles every method listed in the model's meta.json into ONE program,
checks that compiling twice gives identical bytes, then runs each method on
the stored inputs and compares its outputs with PyTorch's reference outputs
(meta.json's rtol/atol). Standard library only; exits non-zero on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile and pte-run")
    ap.add_argument("--model", required=True, help="zoo model directory (has meta.json)")
    ap.add_argument("--backend", default="none")
    ap.add_argument("--write-back", default="earliest")
    ap.add_argument("--expect-delegates", type=int, default=None,
                    help="require this many delegate entries in every method")
    args = ap.parse_args()

    meta = json.load(open(os.path.join(args.model, "meta.json")))
    methods = meta["methods"]
    aot = os.path.join(args.bin, "aot-compile")
    run_tool = os.path.join(args.bin, "pte-run")
    inspect = os.path.join(args.bin, "pte-inspect")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        sources = [f"{os.path.join(args.model, m['file'])}:{m['method']}" for m in methods]
        outs = []
        for k in range(2):
            out = os.path.join(tmp, f"model{k}.pte")
            rc, log = run([aot, *sources, "-o", out, "--backend", args.backend,
                           "--write-back", args.write_back])
            if rc != 0:
                print(f"FAIL compile ({rc}):\n{log}")
                return 1
            outs.append(out)
        if open(outs[0], "rb").read() != open(outs[1], "rb").read():
            print("FAIL: compiling twice gave different bytes")
            failures += 1
        else:
            print(f"ok: deterministic ({os.path.getsize(outs[0])} bytes)")

        if args.expect_delegates is not None and os.path.exists(inspect):
            rc, js = run([inspect, outs[0], "--json", "--elide-bytes"])
            if rc != 0:
                print(f"FAIL pte-inspect:\n{js}")
                failures += 1
            else:
                prog = json.loads(js)
                program = prog.get("program", prog)
                for plan in program["execution_plan"]:
                    n = len(plan.get("delegates", []))
                    if n != args.expect_delegates:
                        print(f"FAIL: method {plan['name']} has {n} delegate entries, "
                              f"expected {args.expect_delegates}")
                        failures += 1
                    else:
                        print(f"ok: method {plan['name']} has {n} delegate entries")

        for m in methods:
            cmd = [run_tool, outs[0], "--method", m["method"],
                   "--rtol", str(meta.get("rtol", 1e-4)), "--atol", str(meta.get("atol", 1e-5))]
            for i in m["inputs"]:
                cmd += ["--input", os.path.join(args.model, i["file"])]
            for o in m["outputs"]:
                cmd += ["--expected", os.path.join(args.model, o["file"])]
            rc, log = run(cmd)
            print(log.rstrip())
            if rc != 0:
                print(f"FAIL: method {m['method']} (exit {rc})")
                failures += 1
            else:
                print(f"ok: method {m['method']} matches PyTorch")
    print(f"{meta['name']}: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
