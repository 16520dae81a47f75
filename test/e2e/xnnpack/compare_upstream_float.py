#!/usr/bin/env python3
"""Our float32 XNNPACK blobs against upstream's for the conformance cases.

For each named case of test/models/gen_upstream_xnnpack.py (the tiny models whose
upstream-written programs are test/models/upstream_xnnpack/<case>/model.pte), exports
the same model with torch.export, compiles it with `aot-compile --backend xnnpack` and
compares our delegate blobs node by node with the ones in upstream's model.pte (kinds,
parameters, clamps, value dims and datatypes), with
compare_upstream_int8.py's normalization (pooling keep-dims flag; a layout move of a
map whose channels or pixels are 1). The models' weights are drawn anew, so constants
compare by dims and datatype, not by their bytes; a [1] operand that upstream passes
in (a lifted Python scalar) and ptec bakes counts as the same. Each case must also be delegated in as many
blobs as upstream's.

Needs the modern-PyTorch venv (scripts/venv.sh; PTEC_VENV) and flatc: exits 77
(skipped) without them. Exit 1 on any difference.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import compare_upstream_int8 as cmp  # noqa: E402

SKIP = 77


def blobs(path, schema, tmp):
    """Each XnnpackBackend blob's graph as JSON, with default-valued fields written
    (value id 0 would otherwise be left out, and ids differ between writers)."""
    graphs = cmp.blobs(path, schema, tmp, defaults=True)
    for g in graphs:
        # Unused operands of Concatenate2..4 hold the invalid id.
        for n in g["xnodes"]:
            body = n["xnode_union"]
            for k in [k for k in body if k.endswith("_id")]:
                if body[k] >= len(g["xvalues"]):
                    del body[k]
    return graphs


def normalize(lines):
    """The models' weights are drawn anew here, so constants compare by presence, dims
    and datatype, not by their bytes' keys. A Python scalar operand (x + 1.0) is a
    lifted tensor constant that upstream passes in as a delegate input and ptec bakes:
    the same [1]."""
    return [re.sub(r"fp32\[1\] (external1|data)$", "fp32[1] scalar",
                   re.sub(r"data:[0-9a-f]+", "data", x), flags=re.M) for x in lines]


def inner(args):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "models"))
    import gen_upstream_xnnpack as gen
    schema = cmp.xnnpack_schema()
    if not schema:
        return SKIP
    torch.manual_seed(0)
    cases = gen.cases()
    failures = 0
    for name in args.case:
        spec = cases[name]()
        theirs = os.path.join(ROOT, "models", "upstream_xnnpack", name, "model.pte")
        with tempfile.TemporaryDirectory() as tmp:
            pt2, ours = os.path.join(tmp, "model.pt2"), os.path.join(tmp, "ours.pte")
            dyn = spec.get("dynamic_shapes")
            with torch.no_grad():
                ep = torch.export.export(spec["model"].eval(), tuple(spec["inputs"][0]),
                                         dynamic_shapes=dyn() if dyn else None)
                torch.export.save(ep.run_decompositions(), pt2)
            p = subprocess.run([os.path.join(args.bin, "aot-compile"), pt2, "--backend",
                                "xnnpack", "-o", ours], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode:
                print("FAIL: %s: aot-compile failed:\n%s" % (name, p.stdout))
                failures += 1
                continue
            a, b = blobs(ours, schema, tmp), blobs(theirs, schema, tmp)
        failures += cmp.compare(name, a, b, normalize)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile")
    ap.add_argument("--case", action="append", required=True,
                    help="a case of gen_upstream_xnnpack.py (repeatable)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return inner(args)
    return cmp.run_inner(__file__, ["--bin", args.bin] + [a for c in args.case
                                                           for a in ("--case", c)])


if __name__ == "__main__":
    sys.exit(main())
