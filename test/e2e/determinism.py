#!/usr/bin/env python3
"""Deterministic output: every zoo model compiles to the same bytes every time.

For each model under the zoo folder (each folder with a meta.json), every
method of meta.json is compiled into one program twice with MLIR threading
off and twice with it on (aot-compile --threads), without delegation and
through the demo backend, with the shape rules checked after every pass. All
four .pte files of a configuration must be byte-identical, and the
configurations without and with threads must agree. Standard library only;
exits non-zero on any difference.

    determinism.py --bin BUILD/bin --zoo test/models [--model NAME ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def compile_once(aot, sources, out, options):
    p = subprocess.run([aot, *sources, "-o", out, "--emit-state-names",
                        "--exir-verify-each", *options],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return None, p.stdout
    with open(out, "rb") as f:
        return f.read(), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--model", action="append", help="only these models")
    args = ap.parse_args()
    aot = os.path.join(args.bin, "aot-compile")
    models = sorted(m for m in os.listdir(args.zoo)
                    if os.path.exists(os.path.join(args.zoo, m, "meta.json")))
    if args.model:
        models = [m for m in models if m in args.model]
    failures = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            meta = json.load(open(os.path.join(args.zoo, model, "meta.json")))
            sources = ["%s:%s" % (os.path.join(args.zoo, model, m["file"]), m["method"])
                       for m in meta["methods"]]
            for backend in ("none", "demo"):
                results = {}
                for threads in (False, True):
                    for run in range(2):
                        options = ["--backend", backend] + (["--threads"] if threads else [])
                        out = os.path.join(tmp, "%s_%s_%d_%d.pte" % (model, backend, threads, run))
                        data, log = compile_once(aot, sources, out, options)
                        if data is None:
                            print("FAIL %s [%s]: compile failed:\n%s" % (model, " ".join(options), log))
                            failures += 1
                            continue
                        results[(threads, run)] = data
                if len(results) != 4:
                    continue
                checked += 1
                first = results[(False, 0)]
                differ = [k for k, v in results.items() if v != first]
                label = "%s --backend %s" % (model, backend)
                if differ:
                    names = ", ".join("threads %s run %d" % ("on" if t else "off", r) for t, r in differ)
                    print("FAIL %s: bytes differ from the first compile in: %s" % (label, names))
                    failures += 1
                else:
                    print("ok   %s: 4 compiles, threads off and on, %d identical bytes" % (label, len(first)))
    print("%d passed, %d failed" % (checked - failures if checked >= failures else 0, failures))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
