#!/usr/bin/env python3
"""Runs a .pte with the executorch package's own runtime bindings (run_model.py --pybind).

    pybind_run.py --pte FILE.pte --model FIXTURE_DIR [--atol A] [--rtol R]

Every method of meta.json is loaded once (executorch.runtime) and called over its
recorded calls in order (state carries over between the calls of one method), and
each output is compared with the fixture's expected file. Sequences across methods
are not run here: the bindings give each loaded method its own arenas. Prints one
line per method; exits 1 on a mismatch or load/execute error. Runs in the
modern-PyTorch venv (numpy, torch, executorch).
"""
import argparse
import json
import os
import sys
import warnings


def attempt(what, fn, *args):
    """fn(*args), or None after printing `FAIL pybind: what: the error` when it raises."""
    try:
        return fn(*args)
    except Exception as e:
        print(f"FAIL pybind: {what}: {e}")
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pte", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--atol", type=float, default=None)
    ap.add_argument("--rtol", type=float, default=None)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import numpy as np
    import torch
    from executorch.runtime import Runtime
    try:  # the quantize/dequantize kernels are a separate registration
        import executorch.kernels.quantized  # noqa: F401
    except ImportError:
        pass

    meta = json.load(open(os.path.join(args.model, "meta.json")))
    rtol = args.rtol if args.rtol is not None else meta.get("rtol", 1e-4)
    atol = args.atol if args.atol is not None else meta.get("atol", 1e-5)
    program = Runtime.get().load_program(args.pte)
    failures = 0
    for m in meta["methods"]:
        name = m["method"]
        method = attempt(f"method {name} does not load", program.load_method, name)
        if method is None:
            failures += 1
            continue
        calls = m.get("calls") or [m]
        bad = 0
        for k, call in enumerate(calls):
            inputs = [torch.from_numpy(np.load(os.path.join(args.model, f["file"])))
                      for f in call["inputs"]]
            outs = attempt(f"method {name} call {k}", method.execute, inputs)
            if outs is None:
                bad += 1
                break
            for i, (got, want) in enumerate(zip(outs, call["outputs"])):
                w = np.load(os.path.join(args.model, want["file"]))
                g = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
                if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol,
                                                         equal_nan=True):
                    diff = np.abs(g.astype(np.float64) - w.astype(np.float64)).max() \
                        if g.shape == w.shape else f"shape {g.shape} vs {w.shape}"
                    print(f"FAIL pybind: method {name} call {k} output {i}: max |d| {diff}")
                    bad += 1
            if len(outs) != len(call["outputs"]):
                print(f"FAIL pybind: method {name} call {k}: {len(outs)} outputs, "
                      f"expected {len(call['outputs'])}")
                bad += 1
        if not bad:
            print(f"ok pybind: method {name} on the executorch package's runtime matches "
                  f"PyTorch ({len(calls)} call(s), outputs)")
        failures += bad
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
