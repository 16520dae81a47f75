#!/usr/bin/env python3
"""cat, slice and permute of convolution results (NHWC inside the blob), numerically.

The lowering keeps a convolution's result in NHWC and concatenates, slices and
permutes it there, with the axis, offsets and permutation mapped onto NHWC's dims
(a permute(0, 2, 3, 1) costs no node at all). This test exports a small model doing
each of those on convolution outputs, compiles it with `aot-compile --backend
xnnpack` (one delegate must take every op), and checks every output against
PyTorch on pte-run and, with --oracle, on upstream's runner.

Needs the modern-PyTorch venv (scripts/venv.sh; PTEC_VENV): exits 77 (skipped)
without it, or when pte-run was built without XnnpackBackend.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_upstream_int8 as cmp  # noqa: E402

SKIP = 77


def inner(args):
    import numpy as np
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.c2 = torch.nn.Conv2d(3, 5, 1)

        def forward(self, x):
            a, b = self.c1(x), self.c2(x)
            cat = torch.cat([a, b], 1)          # along channels: NHWC axis 3
            return (cat[:, 2:7] * 2.0,          # channel slice
                    cat[:, :, 1:5] + 1.0,       # row slice
                    a.permute(0, 2, 3, 1),      # the NHWC bytes themselves
                    b.permute(0, 1, 3, 2),      # composed with the layout
                    torch.relu(cat).transpose(1, 3))

    torch.manual_seed(0)
    model, x = Model().eval(), torch.rand(1, 3, 6, 7)
    with torch.no_grad():
        expected = [o.numpy() for o in model(x)]
        ep = torch.export.export(model, (x,)).run_decompositions()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        pt2, pte, rep = (os.path.join(tmp, n) for n in ("m.pt2", "m.pte", "r.json"))
        torch.export.save(ep, pt2)
        np.save(os.path.join(tmp, "x.npy"), x.numpy())
        subprocess.run([os.path.join(args.bin, "aot-compile"), pt2, "--backend", "xnnpack",
                        "-o", pte, "--report=json", "--report-file", rep], check=True)
        method = json.load(open(rep))["methods"][0]
        if len(method["delegates"]) != 1 or method.get("delegated_ops", {}).get(
                "XnnpackBackend") != method["aten_ops"]:
            print("FAIL: expected one delegate taking every op, got %d delegates, %s of %d ops"
                  % (len(method["delegates"]), method.get("delegated_ops"), method["aten_ops"]))
            failures += 1
        runs = [("pte-run", [os.path.join(args.bin, "pte-run"), pte, "--input",
                             os.path.join(tmp, "x.npy"), "--output-dir", os.path.join(tmp, "a")],
                 os.path.join(tmp, "a", "output_%d.npy"))]
        if args.oracle:
            runs.append(("upstream's runner",
                         [args.oracle, pte, "--input", os.path.join(tmp, "x.npy"), "--out_dir",
                          os.path.join(tmp, "b"), "--no-print"],
                         os.path.join(tmp, "b", "call0_out%d.npy")))
        for name, cmd, pattern in runs:
            os.makedirs(os.path.dirname(pattern), exist_ok=True)
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode:
                print("FAIL: %s exit %d:\n%s" % (name, p.returncode, p.stdout))
                failures += 1
                continue
            for i, e in enumerate(expected):
                got = np.load(pattern % i)
                if got.shape != e.shape or not np.allclose(got, e, rtol=1e-5, atol=1e-5):
                    print("FAIL: %s output %d: shape %s (expected %s), max abs err %s" %
                          (name, i, got.shape, e.shape,
                           np.abs(got - e).max() if got.shape == e.shape else "-"))
                    failures += 1
                else:
                    print("ok: %s output %d %s" % (name, i, list(e.shape)))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile and pte-run")
    ap.add_argument("--oracle", default=None, metavar="RUNNER",
                    help="also run on upstream's runtime (executorch-runner)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return inner(args)
    listing = subprocess.run([os.path.join(args.bin, "pte-run"), "--help"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if "--xnnpack-threads" not in listing:
        print("skipped: pte-run was built without XnnpackBackend")
        return SKIP
    py = cmp.venv_python()
    if not py:
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        return SKIP
    cmd = [py, os.path.abspath(__file__), "--inner", "--bin", args.bin]
    if args.oracle:
        cmd += ["--oracle", args.oracle]
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
