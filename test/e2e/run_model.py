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

A model with an ordered multi-method 'sequence' (llama_decoder: prefill,
then decode steps) is compiled with --share-mutable-buffers and the whole
sequence runs in ONE loaded program (pte-run --sequence), outputs and buffers
compared after every call; the same sequence must FAIL when the methods do
not share their state (compiled without sharing, or run with
--no-shared-state), so a broken sharing cannot pass unnoticed.

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


def sequence_args(tmp, model_dir, seq):
    """pte-run arguments for meta 'sequence': --sequence m0,m1,... and per-call
    files under one naming pattern ('{call}'). Every call must have the same
    number of inputs and outputs and the same buffers (None otherwise)."""
    first = seq[0]
    if any(len(c["inputs"]) != len(first["inputs"]) or
           len(c["outputs"]) != len(first["outputs"]) or
           set(c["buffers_after"]) != set(first["buffers_after"]) for c in seq):
        return None
    return ["--sequence", ",".join(c["method"] for c in seq)] + \
        link_calls(tmp, os.path.abspath(model_dir), "sequence", seq)[:-2]  # no --calls


def check_sequence(args, meta, tmp, pte, unshared_pte, label):
    """Runs meta 'sequence' on `pte` (must match) and on programs whose methods do
    not share state (must not). Returns the number of failures."""
    seq_args = sequence_args(tmp, args.model, meta["sequence"])
    if seq_args is None:
        print(f"FAIL{label}: the calls of 'sequence' differ in inputs, outputs or buffers")
        return 1
    run_tool = os.path.join(args.bin, "pte-run")
    tol = ["--rtol", str(meta.get("rtol", 1e-4)), "--atol", str(meta.get("atol", 1e-5))]
    failures = 0
    rc, log = run([run_tool, pte, *seq_args, *tol])
    print(log.rstrip())
    methods = " ".join(c["method"] for c in meta["sequence"])
    if rc != 0:
        print(f"FAIL{label}: sequence ({methods}) (exit {rc})")
        failures += 1
    else:
        print(f"ok{label}: sequence of {len(meta['sequence'])} calls ({methods}) "
              f"matches PyTorch, outputs and state after every call")
    # Without shared state a later method starts from the initial state: it
    # must not match (otherwise the test could not see sharing break).
    for what, cmd in (("compiled without --share-mutable-buffers",
                       [run_tool, unshared_pte, *seq_args, *tol]),
                      ("run with --no-shared-state",
                       [run_tool, pte, *seq_args, *tol, "--no-shared-state"])):
        rc, log = run(cmd)
        if rc != 1 or "output 0 vs expected" not in log:
            print(log.rstrip())
            print(f"FAIL{label}: the sequence {what} gave exit {rc}, expected "
                  "a mismatch (exit 1)")
            failures += 1
        else:
            print(f"ok{label}: the sequence {what} does not match, as it must not")
    return failures


def check(args, meta, tmp, options, label):
    """Compile with `options`, check determinism and delegates, run every method.
    Returns the number of failures."""
    methods = meta["methods"]
    aot = os.path.join(args.bin, "aot-compile")
    run_tool = os.path.join(args.bin, "pte-run")
    inspect = os.path.join(args.bin, "pte-inspect")
    failures = 0
    sources = [f"{os.path.join(args.model, m['file'])}:{m['method']}" for m in methods]
    share = ["--share-mutable-buffers"] if "sequence" in meta else []
    outs = []
    for k in range(3 if share else 2):
        out = os.path.join(tmp, f"model{k}.pte")
        # Shape rules after every pass too: a pass that breaks them fails here.
        # (The third program, for the sequence check, shares nothing.)
        rc, log = run([aot, *sources, "-o", out, "--emit-state-names",
                       "--exir-verify-each", *options, *(share if k < 2 else [])])
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
    if share:
        failures += check_sequence(args, meta, tmp, outs[0], outs[2], label)
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
