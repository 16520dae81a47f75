#!/usr/bin/env python3
"""Our XNNPACK int8 blob against upstream's for the same PT2E program.

Compiles a quantized zoo fixture with `aot-compile --backend xnnpack`, lowers the same
model.pt2 with upstream's `to_edge_transform_and_lower(..., partitioner=
[XnnpackPartitioner()])`, reads both programs' delegate blobs (flatc with the schema
the executorch package ships) and compares them node by node: kinds, parameters,
output clamps, and for every value a node names its datatype, dims, quantization
(scale, zero point, channel dim, number of scales, where the scales live) and the
named-data key of its constant (a SHA-256 of the bytes, so equal keys mean equal
filter, bias and scale bytes). Two known, equivalent differences are normalized
away: the keep-dims flag (64) upstream sets on pooling nodes, and a layout move of a
map whose channels or pixels are 1, which upstream writes as a StaticTranspose and
ptec as a StaticReshape (the same bytes).

Needs the modern-PyTorch venv (scripts/venv.sh; PTEC_VENV) and flatc: exits 77
(skipped) without them. Exit 1 on any difference.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


def upstream_pte(model_pt2, out):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    ep = torch.export.load(model_pt2)
    prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    with open(out, "wb") as f:
        f.write(prog.buffer)


def blobs(path, schema, tmp, defaults=False):
    """Each XnnpackBackend blob's graph in the program at `path`, as JSON (flatc with
    `schema`); `defaults` also writes default-valued fields (value id 0 would
    otherwise be left out)."""
    from executorch.exir._serialize._program import deserialize_pte_binary
    pte = deserialize_pte_binary(open(path, "rb").read())
    prog = getattr(pte, "program", pte)
    graphs = []
    for plan in prog.execution_plan:
        for d in plan.delegates:
            if d.id != "XnnpackBackend":
                continue
            blob = bytes(prog.backend_delegate_data[d.processed.index].data)
            # XNNHeader: 4 bytes, "XH00", u16 size, u32 flatbuffer offset, u32 size.
            off, size = struct.unpack_from("<II", blob, 10)
            fb = os.path.join(tmp, "g.bin")
            with open(fb, "wb") as f:
                f.write(blob[off:off + size])
            subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "-o", tmp]
                           + (["--defaults-json"] if defaults else []) + [schema, "--", fb],
                           check=True)
            text = open(os.path.join(tmp, "g.json")).read()
            text = text.replace("-inf", '"-inf"').replace(" inf", ' "inf"')
            graphs.append(json.loads(text))
    return graphs


def describe(g):
    """One line per node: kind, parameters, clamp and its values' descriptions."""
    vals, consts = g["xvalues"], g.get("constant_data", [])

    def key(index):
        return consts[index].get("named_key", "<inline>") if index else ""

    def value(i):
        u = vals[i]["xvalue_union"]
        t = u.get("tensor_value", u)
        s = "%s%s" % (t.get("datatype", "?").replace("xnn_datatype_", ""), t.get("dims"))
        if t.get("flags"):
            s += " external%d" % t["flags"]
        if t.get("constant_buffer_idx"):
            s += " data:" + key(t["constant_buffer_idx"])
        q = u.get("quant_params")
        if q is not None and u.get("quant_params_type") == "PerTensorQuant":
            s += " scale %r zp %d" % (q.get("scale", 0.0), q.get("zero_point", 0))
        elif q is not None:
            s += " per-channel dim %d n %d scales:%s" % (
                q.get("channel_dim", 0), q.get("num_scales", len(q.get("scale", []))),
                key(q["scale_buffer_idx"]) if q.get("scale_buffer_idx") else
                repr(q.get("scale", [])))
        return s

    out = []
    for n in g["xnodes"]:
        kind, body = n["xnode_union_type"], dict(n["xnode_union"])
        ids = {k: body.pop(k) for k in list(body) if k.endswith("_id")}
        if kind in ("XNNMaxPooling2d", "XNNAvgPooling2d", "XNNGlobalAvgPooling2d"):
            body["flags"] = body.get("flags", 0) & ~64
            if not body["flags"]:
                del body["flags"]
        if kind in ("XNNStaticTranspose", "XNNStaticReshape"):
            din = vals[ids["input_id"]]["xvalue_union"]
            dout = vals[ids["output_id"]]["xvalue_union"]
            din = din.get("tensor_value", din)["dims"]
            dout = dout.get("tensor_value", dout)["dims"]
            if len(din) == 4 and len(dout) == 4 and sorted(din) == sorted(dout) and (
                    din[3] == 1 or din[1] * din[2] == 1 or dout[1] == 1 or dout[2] * dout[3] == 1):
                kind, body = "LayoutMove", {}
        line = kind + " " + json.dumps(body, sort_keys=True)
        if n.get("output_min_max"):
            line += " clamp " + json.dumps(n["output_min_max"], sort_keys=True)
        for k in sorted(ids):
            line += "\n    %s: %s" % (k, value(ids[k]))
        out.append(line)
    return out


def xnnpack_schema():
    """The XNNPACK flatbuffer schema the executorch package ships, or None (printed as
    a skip)."""
    import executorch.backends.xnnpack as xnn
    schema = os.path.join(os.path.dirname(xnn.__file__), "serialization", "runtime_schema.fbs")
    if not os.path.exists(schema):
        print("skipped: the executorch package has no XNNPACK runtime schema")
        return None
    return schema


def compare(name, a, b, normalize=lambda lines: lines):
    """Prints how our delegate graphs `a` compare with upstream's `b` (describe()'s lines,
    passed through `normalize`), one line per delegate and a diff where they differ;
    returns the number of failures."""
    import difflib
    if len(a) != len(b):
        print("FAIL: %s: %d XNNPACK delegates, upstream writes %d" % (name, len(a), len(b)))
        return 1
    failures = 0
    for i, (ga, gb) in enumerate(zip(a, b)):
        da, db = normalize(describe(ga)), normalize(describe(gb))
        if da == db:
            print("ok: %s delegate %d: %d nodes as upstream writes them" % (name, i, len(da)))
            continue
        failures += 1
        print("FAIL: %s delegate %d differs from upstream's (%d vs %d nodes):" %
              (name, i, len(da), len(db)))
        for line in difflib.unified_diff("\n".join(da).split("\n"), "\n".join(db).split("\n"),
                                         "ptec", "upstream", lineterm="", n=2):
            print(line)
    return failures


def run_inner(script, args):
    """`script --inner ARGS` in the modern-PyTorch venv; SKIP without the venv or flatc."""
    py = venv_python()
    if not py:
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        return SKIP
    if not shutil.which("flatc"):
        print("skipped: flatc is not installed")
        return SKIP
    return subprocess.run([py, os.path.abspath(script), "--inner"] + args).returncode


def inner(args):
    schema = xnnpack_schema()
    if not schema:
        return SKIP
    model = os.path.join(args.model, "model.pt2")
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = os.path.join(tmp, "ours.pte"), os.path.join(tmp, "upstream.pte")
        subprocess.run([os.path.join(args.bin, "aot-compile"), model, "--backend", "xnnpack",
                        "-o", ours], check=True)
        upstream_pte(model, theirs)
        a, b = blobs(ours, schema, tmp), blobs(theirs, schema, tmp)
    name = os.path.basename(os.path.normpath(args.model))
    return 1 if compare(name, a, b) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile")
    ap.add_argument("--model", required=True, help="quantized zoo fixture directory")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return inner(args)
    return run_inner(__file__, ["--bin", args.bin, "--model", args.model])


if __name__ == "__main__":
    sys.exit(main())
