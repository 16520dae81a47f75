#!/usr/bin/env python3
"""End-to-end check of one zoo model: .pt2 -> aot-compile -> .pte -> pte-run.

Compiles every method listed in the model's meta.json into ONE program,
checks that compiling twice gives identical bytes, then runs each method on
the stored inputs and compares its outputs with PyTorch's reference outputs
(meta.json's rtol/atol). A method that mutates state (meta 'calls') is run for
every recorded call in ONE loaded program, and after each call its outputs AND
every mutated buffer are compared (the program is compiled with
--emit-state-names so pte-run can find the buffers).

A method may record several calls without state (meta 'calls' with empty
buffers_after: several input shapes of a dynamic-shape program, or inputs that
take different control-flow paths); they run the same way, in one loaded program.
Its 'refused_calls' ({"inputs": [...], "error": "<text>"}) are inputs the
runtime must refuse (e.g. a dynamic dim above its bound): pte-run must exit
non-zero and print <text> (case-insensitive).

--matrix repeats all of it for every combination of --write-back
earliest|end, re-inplacing on|off and --backend none|demo.
Standard library only; exits non-zero on any failure.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def link_calls(tmp, model_dir, method, calls):
    """Per-call files under one naming pattern ('{call}' for pte-run --calls):
    in<i>_{call}.npy, out<i>_{call}.npy, state_<fqn>_{call}.npy. Returns the
    --input, --expected and --expected-state arguments."""
    d = os.path.join(tmp, "calls_" + method)
    os.makedirs(d, exist_ok=True)
    ins, outs, states = [], [], []
    for k, call in enumerate(calls):
        for i, f in enumerate(call["inputs"]):
            os.symlink(os.path.join(model_dir, f["file"]), os.path.join(d, "in%d_%d.npy" % (i, k)))
        for i, f in enumerate(call["outputs"]):
            os.symlink(os.path.join(model_dir, f["file"]), os.path.join(d, "out%d_%d.npy" % (i, k)))
        for fqn, f in call["buffers_after"].items():
            os.symlink(os.path.join(model_dir, f), os.path.join(d, "state_%s_%d.npy" % (fqn, k)))
    first = calls[0]
    for i in range(len(first["inputs"])):
        ins += ["--input", os.path.join(d, "in%d_{call}.npy" % i)]
    for i in range(len(first["outputs"])):
        outs += ["--expected", os.path.join(d, "out%d_{call}.npy" % i)]
    for fqn in first["buffers_after"]:
        states += ["--expected-state", "%s=%s" % (fqn, os.path.join(d, "state_%s_{call}.npy" % fqn))]
    return ins + outs + states + ["--calls", str(len(calls))]


def check(args, meta, tmp, options, label):
    """Compile with `options`, check determinism and delegates, run every method.
    Returns the number of failures."""
    methods = meta["methods"]
    aot = os.path.join(args.bin, "aot-compile")
    run_tool = os.path.join(args.bin, "pte-run")
    inspect = os.path.join(args.bin, "pte-inspect")
    failures = 0
    sources = [f"{os.path.join(args.model, m['file'])}:{m['method']}" for m in methods]
    outs = []
    for k in range(2):
        out = os.path.join(tmp, f"model{k}.pte")
        # Shape rules after every pass too: a pass that breaks them fails here.
        rc, log = run([aot, *sources, "-o", out, "--emit-state-names",
                       "--exir-verify-each", *options])
        if rc != 0:
            print(f"FAIL compile{label} ({rc}):\n{log}")
            return 1
        outs.append(out)
    if open(outs[0], "rb").read() != open(outs[1], "rb").read():
        print(f"FAIL{label}: compiling twice gave different bytes")
        failures += 1
    else:
        print(f"ok{label}: deterministic ({os.path.getsize(outs[0])} bytes)")

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
        if "calls" in m:
            cmd += link_calls(tmp, args.model, m["method"], m["calls"])
        else:
            for i in m["inputs"]:
                cmd += ["--input", os.path.join(args.model, i["file"])]
            for o in m["outputs"]:
                cmd += ["--expected", os.path.join(args.model, o["file"])]
        rc, log = run(cmd)
        print(log.rstrip())
        if rc != 0:
            print(f"FAIL{label}: method {m['method']} (exit {rc})")
            failures += 1
        else:
            n = len(m.get("calls", [m]))
            print(f"ok{label}: method {m['method']} matches PyTorch over {n} call(s)")
        for k, call in enumerate(m.get("refused_calls", [])):
            cmd = [run_tool, outs[0], "--method", m["method"]]
            for i in call["inputs"]:
                cmd += ["--input", os.path.join(args.model, i["file"])]
            rc, log = run(cmd)
            shapes = [i["shape"] for i in call["inputs"]]
            if rc == 0 or call["error"].lower() not in log.lower():
                print(log.rstrip())
                print(f"FAIL{label}: method {m['method']} with inputs of shapes {shapes} "
                      f"must be refused (exit {rc}, want non-zero and '{call['error']}')")
                failures += 1
            else:
                print(f"ok{label}: method {m['method']} refuses inputs of shapes {shapes}: "
                      f"{log.strip().splitlines()[-1] if log.strip() else ''}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile and pte-run")
    ap.add_argument("--model", required=True, help="zoo model directory (has meta.json)")
    ap.add_argument("--backend", default="none")
    ap.add_argument("--write-back", default="earliest")
    ap.add_argument("--no-reinplace", action="store_true")
    ap.add_argument("--matrix", action="store_true",
                    help="every write-back x re-inplacing x backend(none, demo) combination")
    ap.add_argument("--expect-delegates", type=int, default=None,
                    help="require this many delegate entries in every method")
    args = ap.parse_args()

    meta = json.load(open(os.path.join(args.model, "meta.json")))
    if args.matrix:
        combos = list(itertools.product(["earliest", "end"], [False, True], ["none", "demo"]))
    else:
        combos = [(args.write_back, args.no_reinplace, args.backend)]
    failures = 0
    for wb, noreinplace, backend in combos:
        options = ["--backend", backend, "--write-back", wb] + \
            (["--no-reinplace"] if noreinplace else [])
        label = f" [{' '.join(options)}]" if args.matrix else ""
        with tempfile.TemporaryDirectory() as tmp:
            failures += check(args, meta, tmp, options, label)
    print(f"{meta['name']}: {'FAILED' if failures else 'passed'} "
          f"({len(combos)} option combination(s))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
