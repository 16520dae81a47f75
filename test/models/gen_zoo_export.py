#!/usr/bin/env python3
"""Generate the fixture zoo with REAL torch.export (PyTorch 2.x, tested design: 2.9).

This is the reference counterpart of gen_zoo.py (which fakes the export with torch 1.13):
for each model in zoo_models.py it runs

    ep = torch.export.export(model, args)        # TRAINING dialect
    ep = ep.run_decompositions()                 # core ATen ("ATEN" verifier)
    torch.export.save(ep, "<dir>/<stem>.pt2")

and writes the same side files as gen_zoo.py (zoo_calls.py: input_<i>.npy,
expected_<i>.npy from the ORIGINAL eager module, state_after_<fqn>.npy, three calls for
stateful methods, meta.json, graph.txt).

It cannot run on the Debian build machines (torch 1.13 has no torch.export). Usage on a
machine with PyTorch >= 2.8:

    python3 test/models/gen_zoo_export.py --out /some/dir [--only mlp ...]

Differences to expect against the committed (gen_zoo.py) zoo: stack traces hold absolute
paths and torch frames, nn_module_stack keys/type names follow that torch's conventions,
node names may differ, and the archive has `torch_fn`/`source_fn_stack` metadata. The
graph structure, signature kinds, weights and reference outputs should match.
Do not commit its output without scrubbing absolute paths from the stack traces.
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_models  # noqa: E402
from zoo_calls import (CALLS, call_files, call_inputs, fixture_meta,  # noqa: E402
                       method_meta, record_sequence)

def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def export_method(entry, method, stem, user_names, inputs, out_dir):
    files = {}
    model = entry.factory()
    ep = torch.export.export(model, tuple(t.clone() for t in inputs))
    ep = ep.run_decompositions()
    path = os.path.join(out_dir, "%s.pt2" % stem)
    torch.export.save(ep, path)
    loaded = torch.export.load(path)
    sig = loaded.graph_signature
    kinds = torch.export.graph_signature.OutputKind
    user_in_names = [i.arg.name for i in sig.input_specs
                     if i.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    mutated_inputs = [user_in_names.index(s.target) for s in sig.output_specs
                      if s.kind == kinds.USER_INPUT_MUTATION]
    out_names = [s.arg.name for s in sig.output_specs
                 if s.kind in (kinds.USER_OUTPUT, kinds.USER_INPUT_MUTATION)]
    buffers = [s.target for s in sig.output_specs if s.kind == kinds.BUFFER_MUTATION]
    # A model with a multi-method 'sequence' records its state there instead.
    stateful = bool(buffers or mutated_inputs) and entry.sequence is None

    # Reference: the ORIGINAL eager module, called CALLS times (state carries over);
    # round trip: the saved program's module, called alongside, reproduces it.
    ref_model = entry.factory()
    mod = loaded.module()
    calls = []
    for call in range(CALLS if stateful else 1):
        ins = call_inputs(entry.name, method, inputs, call)
        ref_inputs = [t.clone() for t in ins]
        run_inputs = [t.clone() for t in ins]
        with torch.no_grad():
            ref_outs = _flat(ref_model(*ref_inputs))
            got = _flat(mod(*run_inputs))
        for g, w in zip(got, ref_outs):
            assert torch.allclose(g, w, rtol=1e-4, atol=1e-5), \
                "%s call %d: output mismatch" % (entry.name, call)
        outs = [ref_inputs[i].clone() for i in mutated_inputs] + ref_outs
        state_after = {b: dict(ref_model.named_buffers())[b].clone() for b in buffers}
        calls.append((ins, outs, state_after))

    prefix = "" if stem == "model" else stem + "_"
    txt = "graph.txt" if stem == "model" else "graph_%s.txt" % stem
    files[txt] = str(loaded.graph_module.print_readable(print_output=False)).encode()
    f, metas = call_files(prefix, user_names, out_names, calls)
    files.update(f)
    return files, method_meta(method, stem, metas, stateful)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--only", nargs="*", help="model names to generate")
    args = ap.parse_args(argv)
    if not hasattr(torch, "export"):
        print("error: torch %s has no torch.export; use gen_zoo.py" % torch.__version__)
        return 1
    for entry in zoo_models.zoo():
        if args.only and entry.name not in args.only:
            continue
        d = os.path.join(args.out, entry.name)
        os.makedirs(d, exist_ok=True)
        files, methods = {}, []
        for method, stem, user_names, inputs in entry.methods:
            f, m = export_method(entry, method, stem, user_names, inputs, d)
            files.update(f)
            methods.append(m)
        meta = fixture_meta(entry.name, methods, 1e-4, 1e-5)
        if entry.sequence is not None:
            f, meta["sequence"] = record_sequence(entry, {m["method"]: m for m in methods})
            files.update(f)
        meta["notes"] = entry.notes + " (exported with torch %s)" % torch.__version__
        files["meta.json"] = (json.dumps(meta, indent=2) + "\n").encode()
        for fn in sorted(files):
            with open(os.path.join(d, fn), "wb") as f:
                f.write(files[fn])
        print("%-18s ok" % entry.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
