#!/usr/bin/env python3
"""Per-op end-to-end checks against eager PyTorch: export, aot-compile, run, compare.

    run_op_cases.py --bin BUILD/bin FAMILY [FAMILY...] [--only NAME] [--oracle RUNNER]
                [--backends portable,xnnpack] [--keep DIR] [-v]

Each FAMILY is a module test/e2e/op_cases/<FAMILY>.py with a list CASES of
`Case`s (op_cases/__init__.py): a small nn.Module, its inputs, and what ptec must do with it. For
every case and backend the module is exported the documented way
(torch.export.export in eval mode under no_grad, then torch.export.save: the
training IR, never run_decompositions), compiled by aot-compile, run by
pte-run (and by upstream's runtime with --oracle), and every output is compared
with eager within torch.testing.assert_close's defaults for its dtype (or the
case's rtol/atol, each such case saying why). A case with `refused=REGEX`
must instead fail to compile, exit 1, and print REGEX: a refusal by name is
checked like a result. A case with `calls=N` (N > 1, a stateful module) is
called N times with the same inputs in one loaded program on each runtime; the
outputs of every call, and on pte-run every buffer after every call (compiled
with --emit-state-names), are compared with N eager calls.

Runs itself under the modern-PyTorch venv's python (scripts/venv.sh; PTEC_VENV);
exits 77 (skipped) where that venv is not ready. Exits 1 when any case fails.
"""
import argparse
import importlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def flat_outputs(out):
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flat_outputs(o))
        return res
    if out is None:
        return []
    raise TypeError(f"unsupported output {type(out)}")


def compare(name, got, want, case):
    """None when `got` (a numpy array) matches eager tensor `want`, else a message."""
    import numpy as np
    import torch
    g = torch.from_numpy(np.array(got, copy=True))  # ascontiguousarray makes 0-d arrays 1-d
    if want.dtype == torch.bool and g.dtype != torch.bool:
        g = g.to(torch.bool)
    kw = {}
    if case.rtol is not None or case.atol is not None:
        kw = {"rtol": case.rtol or 0.0, "atol": case.atol or 0.0}
    try:
        torch.testing.assert_close(g, want.detach().contiguous(), equal_nan=True, **kw)
    except AssertionError as e:
        return f"{name}: " + " ".join(str(e).split())[:400]
    return None


def eager_calls(mod, inputs, calls):
    """Outputs of each of `calls` calls (flat lists) and, with more than one call,
    every buffer after each call ({fqn: tensor}) and the names of those a call changed
    (the training IR writes buffers in place, without mutation outputs to name them)."""
    import torch
    outs, states, changed = [], [], set()
    before = {n: b.detach().clone() for n, b in mod.named_buffers()}
    for _ in range(calls):
        outs.append(flat_outputs(mod(*inputs)))
        if calls > 1:
            now = {n: b.detach().clone() for n, b in mod.named_buffers()}
            changed |= {n for n, b in now.items() if not torch.equal(b, before[n])}
            states.append(now)
    return outs, states, changed


def check_case(case, args, tmp):
    """Returns a list of failure messages (empty: passed)."""
    import copy
    import numpy as np
    import torch
    torch.manual_seed(0)
    mod = case.make().eval()
    torch.manual_seed(1)
    inputs = case.inputs()
    with torch.no_grad():
        # Exported before eager runs: a stateful module's calls change its buffers.
        ep = torch.export.export(copy.deepcopy(mod), inputs, dynamic_shapes=case.dynamic_shapes)
        want_calls, want_states, changed = eager_calls(mod, inputs, case.calls)
        want = want_calls[0]
    d = os.path.join(tmp, case.name)
    os.makedirs(d, exist_ok=True)
    pt2 = os.path.join(d, "model.pt2")
    torch.export.save(ep, pt2)
    in_files = []
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            continue
        f = os.path.join(d, f"in{i}.npy")
        np.save(f, x.detach().numpy())
        in_files.append(f)
    failures = []
    backends = [b for b in args.backends if case.backends is None or b in case.backends]
    for backend in backends:
        pte = os.path.join(d, f"{backend}.pte")
        cmd = [os.path.join(args.bin, "aot-compile"), pt2, "-o", pte, "--no-progress"]
        if case.calls > 1:
            cmd += ["--emit-state-names"]
        if backend != "portable":
            cmd += ["--backend", backend]
        rc, out = run(cmd)
        if case.refused is not None:
            if rc != 1 or not re.search(case.refused, out):
                failures.append(f"[{backend}] expected a refusal matching {case.refused!r}, "
                                f"got exit {rc}: {out.strip()[:300]}")
            continue
        if rc != 0:
            failures.append(f"[{backend}] aot-compile exit {rc}: {out.strip()[:600]}")
            continue
        ins = sum((["--input", f] for f in in_files), [])
        many = case.calls > 1
        calls = ["--calls", str(case.calls)] if many else []
        runners = [("pte-run", [os.path.join(args.bin, "pte-run"), pte] + ins + calls +
                    ["--output-dir"])]
        if args.oracle and case.oracle:
            runners.append(("executorch", [args.oracle, pte] + ins + calls + ["--out_dir"]))
        for rname, base in runners:
            od = os.path.join(d, f"{backend}_{rname}")
            os.makedirs(od, exist_ok=True)
            cmd = base + [od]
            if many and rname == "pte-run":
                cmd += ["--state-dir", od]
            rc, out = run(cmd)
            if rc != 0:
                failures.append(f"[{backend}/{rname}] exit {rc}: {out.strip()[:600]}")
                continue
            for k, want_k in enumerate(want_calls):
                for i, w in enumerate(want_k):
                    name = (f"call{k}_output_{i}.npy" if many else f"output_{i}.npy") \
                        if rname == "pte-run" else f"call{k}_out{i}.npy"
                    f = os.path.join(od, name)
                    label = f"call {k} output {i}" if many else f"output {i}"
                    if not os.path.exists(f):
                        failures.append(f"[{backend}/{rname}] {label} missing")
                        continue
                    msg = compare(label, np.load(f), w, case)
                    if msg:
                        failures.append(f"[{backend}/{rname}] {msg}")
                if rname != "pte-run":
                    continue  # upstream's runner does not show state
                # Every buffer the program keeps as state is compared; one that
                # eager changed must be state.
                for fqn, w in (want_states[k] if many else {}).items():
                    f = os.path.join(od, f"call{k}_state_{fqn}.npy")
                    if not os.path.exists(f):
                        if fqn in changed:
                            failures.append(f"[{backend}/{rname}] call {k} state '{fqn}' missing")
                        continue
                    msg = compare(f"call {k} state '{fqn}'", np.load(f), w, case)
                    if msg:
                        failures.append(f"[{backend}/{rname}] {msg}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("families", nargs="+")
    ap.add_argument("--only", action="append", default=[],
                    help="run only cases whose name contains this (repeatable)")
    ap.add_argument("--oracle", help="upstream's executorch-runner (also run there)")
    ap.add_argument("--backends", default="portable,xnnpack")
    ap.add_argument("--keep", help="keep the work files here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.backends = args.backends.split(",")
    if args.oracle and not os.path.exists(args.oracle):
        args.oracle = None
    try:
        import torch  # noqa: F401
    except ImportError:
        py = venv_python()
        if py is None:
            print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
            return SKIP
        os.execv(py, [py] + sys.argv)
    sys.path.insert(0, HERE)
    cases = []
    for fam in args.families:
        cases += importlib.import_module(f"op_cases.{fam}").CASES
    if args.only:
        cases = [c for c in cases if any(o in c.name for o in args.only)]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print(f"duplicate case names: {sorted(dup)}")
        return 1
    tmp = args.keep or tempfile.mkdtemp(prefix="op_cases_")
    failed = 0
    for case in cases:
        try:
            failures = check_case(case, args, tmp)
        except Exception as e:  # export or eager failed: the case itself is wrong
            failures = [f"case error: {type(e).__name__}: {e}"]
        if failures:
            failed += 1
            print(f"FAIL {case.name}")
            for f in failures:
                print(f"    {f}")
        else:
            print(f"ok   {case.name}" + (" (refused as expected)" if case.refused else ""))
    print(f"{len(cases) - failed} of {len(cases)} cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
