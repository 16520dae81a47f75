#!/usr/bin/env python3
"""Library models (torchvision, timm, Hugging Face; random init) through ptec and upstream.

    bench/model_sweep.py --bin BUILD/bin [--oracle RUNNER] [--only ID ...] [--ci]
                         [--jobs 2] [--max-params 320] [--json FILE] [--markdown FILE]
                         [--no-cache] [--keep DIR] [--list]

Every model of bench/sweep_models (every torchvision classification model and its
segmentation and detection models, 119 timm architectures, 19 Hugging Face families,
the decoders also with a static KV cache) is built with random weights, exported the
documented way (torch.export.export in eval mode under no_grad, the training IR;
strict where the library's recipe says so) and saved, then run through the four flows
of test/conformance/sweep/flows.py: ptec portable and XNNPACK (aot-compile; pte-run,
and the same program on upstream's runtime), upstream portable and XNNPACK
(to_edge_transform_and_lower + to_executorch; upstream's runtime). Every output of
every call is compared with eager: |got - eager| <= 1e-4 + 1e-3 |eager| elementwise
(torch.testing.assert_close with rtol 1e-3, atol 1e-4: deep float32 models
accumulate in another order in each kernel library).

Per model: parameters, graph nodes, export time, each flow's result, the compile-time
ratio (upstream's to_edge_transform_and_lower + to_executorch, measured in its
process, over ptec's whole aot-compile process) and the arena ratio (planned memory,
pte-inspect --json, ptec over upstream), and the first error line of a failure.
Upstream's results are cached outside the repo (PTEC_SWEEP_CACHE, else
~/.cache/ptec/sweeps) under a digest of the graph, inputs and weights.

--ci: three small models (a timm CNN, a Hugging Face encoder, a LLaMA with a static
KV cache), ptec flows only; fails on a wrong value or a crash, and when a model
CI_MODELS says must match does not. Exits 77 without the modern-PyTorch venv
(scripts/venv.sh).
"""
import argparse
import copy
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "conformance"))
from sweep import env  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
# The CI subset: True = must compile and match on both ptec flows; False = may still
# be refused (never give a wrong value or crash). efficientvim_m1: XNNPACK's convex
# cuts once missed a dependence through an earlier delegate region's body, and the
# partition wrote IR that does not verify.
CI_MODELS = {"timm/resnet10t": True, "hf/bert": True, "hf/llama-kv": True,
             "timm/efficientvim_m1": True}


def registry():
    from sweep_models import all_models
    return {m.id: m for m in all_models()}


def export_and_eager(built, d):
    """(ep, pt2, calls [(flat inputs, eager outputs)], export seconds)."""
    import torch
    from sweep.compare import tensor_leaves
    a0, kw0 = built.calls[0]
    # A stateful module (its buffers written in place) is run in eager on a copy: the
    # exported program keeps the state as it was when exported.
    eager_mod = copy.deepcopy(built.module) if len(built.calls) > 1 else built.module
    t0 = time.perf_counter()
    with torch.no_grad():
        ep = torch.export.export(built.module, tuple(a0), dict(kw0), strict=built.strict)
    seconds = time.perf_counter() - t0
    pt2 = os.path.join(d, "model.pt2")
    torch.export.save(ep, pt2)
    calls = []
    with torch.no_grad():
        for a, kw in built.calls:
            want = tensor_leaves(eager_mod(*a, **kw))
            calls.append((list(a) + list(kw.values()), want))
    return ep, pt2, calls, seconds


def eager64(built):
    """Float64 eager outputs per call (the arbiter of float32 differences): the
    module, its weights and its floating inputs in float64, the same calls in order."""
    import torch
    from sweep.compare import tensor_leaves
    m = copy.deepcopy(built.module).double()

    def d(x):
        return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
    outs = []
    with torch.no_grad():
        for a, kw in built.calls:
            outs.append([t.double() for t in tensor_leaves(
                m(*[d(x) for x in a], **{k: d(v) for k, v in kw.items()}))])
    return outs


def run_model(mid, entry, args, cfg, cache):
    import torch
    from sweep import compare as cmp
    from sweep import flows
    rec = {"id": mid}
    if entry.params_hint > args.max_params:
        rec.update(status="skipped", error=f"{entry.params_hint} M parameters, above "
                   f"--max-params {args.max_params}")
        return rec
    try:
        built = entry.build()
    except Exception as e:
        rec.update(status="build-failed", error=f"{type(e).__name__}: {e}".splitlines()[0][:300])
        return rec
    rec["params"] = sum(p.numel() for p in built.module.parameters())
    rec["note"] = built.note
    if rec["params"] > args.max_params * 1e6:
        rec.update(status="skipped", error=f"{rec['params'] / 1e6:.0f} M parameters, above "
                   f"--max-params {args.max_params}")
        return rec
    d = tempfile.mkdtemp(prefix="model_", dir=args.keep)
    try:
        try:
            ep, pt2, calls, secs = export_and_eager(built, d)
        except Exception as e:
            msg = (str(e).strip().splitlines() or [""])[0]
            rec.update(status="export-failed", error=f"{type(e).__name__}: {msg}"[:300])
            return rec
        rec.update(status="exported", export_s=secs, calls=len(calls),
                   nodes=sum(1 for n in ep.graph.nodes if n.op == "call_function"))
        consts = [v for v in ep.constants.values() if isinstance(v, torch.Tensor)]
        key = mid + ":" + cmp.digest(ep.graph, *[x for c in calls for x in c[0]],
                                     *ep.state_dict.values(), *consts)
        rec["key"] = key
        rec["flows"] = flows.judge(ep, pt2, calls, d, cfg, cached=cache.get(key),
                                   ref64=lambda: eager64(built))
        return rec
    finally:
        if not args.keep:
            shutil.rmtree(d, ignore_errors=True)


def worker_main(args, cfg):
    import torch
    from sweep import pool
    torch.set_num_threads(1)
    env.quiet_torch()
    from sweep.cache import read_snapshot
    cache = read_snapshot(args.cache_file)
    reg = registry()
    pool.worker_loop(pool.worker_ids(args.worker), args.worker_out,
                     lambda i: run_model(i, reg[i], args, cfg, cache))
    return 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", "--bin-dir", dest="bin", required=True)
    ap.add_argument("--oracle", default=env.DEFAULT_ORACLE)
    ap.add_argument("--only", action="append", default=[], help="ids containing this")
    ap.add_argument("--ci", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--max-params", type=int, default=320, help="millions; larger: skipped")
    ap.add_argument("--flows", default="ptec_portable,ptec_xnnpack,upstream_portable,"
                                        "upstream_xnnpack")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--list", action="store_true", help="print the model ids and exit")
    ap.add_argument("--render", metavar="JSON",
                    help="only write --markdown from the JSON of an earlier run")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    ap.add_argument("--cache-file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ci:
        args.flows = "ptec_portable,ptec_xnnpack"
    args.jobs = max(1, min(args.jobs, 2))
    return args


def main():
    args = parse_args()
    if args.render:
        import json
        from sweep import report
        from sweep_models import markdown
        with open(args.render) as f:
            report.write_atomic(args.markdown, markdown.render(json.load(f)))
        return 0
    skip = env.ensure_venv(("torch", "executorch", "timm", "transformers"))
    if skip:
        return skip
    from sweep import flows
    cfg = flows.Config(os.path.abspath(args.bin), args.oracle, args.flows.split(","),
                       rtol=RTOL, atol=ATOL, ptec_on_oracle=True, planned=True,
                       compile_timeout=1800, run_timeout=900)
    if args.worker:
        return worker_main(args, cfg)
    from sweep_models import drive
    return drive.drive(args, cfg)


if __name__ == "__main__":
    sys.exit(main())
