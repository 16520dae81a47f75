#!/usr/bin/env python3
"""PyTorch's OpInfo and ModuleInfo databases as a conformance sweep for ptec and upstream.

    opinfo_sweep.py --bin BUILD/bin [--oracle RUNNER] [--ci | --only NAME ...]
                    [--samples 3] [--jobs 2] [--flows ptec_portable,ptec_xnnpack,...]
                    [--json FILE] [--markdown FILE] [--expect FILE] [--no-cache]

For every OpInfo in torch.testing._internal.common_methods_invocations.op_db and
every ModuleInfo in common_modules.module_db with float32 CPU samples, the first
--samples samples are each wrapped in an nn.Module (tensor arguments become inputs,
everything else is baked in), exported (torch.export.export in eval mode under
no_grad: the training IR), saved, and run through the four flows of sweep/flows.py:
ptec portable and XNNPACK (aot-compile, pte-run; the same program also on upstream's
runtime, to tell runtime faults from compiler faults) and upstream's Python flow portable
and XNNPACK (to_edge_transform_and_lower, to_executorch, upstream's runtime). Every
output is compared with eager under torch.testing.assert_close's defaults for its
dtype (float32: rtol 1.3e-6, atol 1e-5). Samples whose eager outputs differ between
two seeds (random ops) and ops named *empty* are compared by dtype and shape only.

Each sample and flow is matched / wrong (a value differs, nothing refused: listed
first) / refused (with its first error line) / crashed (a signal or a time-out);
samples that do not export are counted apart. Upstream's results do not depend on
ptec: they are cached outside the repo (sweep/env.py: cache_dir) under a digest of
the graph, inputs and weights, so a rerun redoes only ptec (--no-cache: all).

--ci: 30 ops, 2 samples each, ptec flows only; fails on any wrong value or crash,
and on any sample --expect lists as matched that no longer is. The whole sweep:
bench/run_sweeps.sh BUILD opinfo (writes docs/op-coverage.md and docs/op-coverage.json).
Runs under the modern-PyTorch venv (scripts/venv.sh; PTEC_VENV); exits 77 without it.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sweep import env  # noqa: E402

# The CI subset: ops ptec compiles today across elementwise, reductions, shape ops,
# matmuls, convolutions, pooling, normalization and indexing.
CI_ITEMS = [
    "op:abs", "op:add", "op:mul", "op:sub", "op:div.no_rounding_mode", "op:exp", "op:sigmoid",
    "op:tanh", "op:clamp", "op:where", "op:sum", "op:mean", "op:amax", "op:argmax",
    "op:softmax", "op:permute", "op:transpose", "op:view", "op:cat", "op:expand",
    "op:mm", "op:bmm", "op:addmm", "op:nn.functional.linear", "op:nn.functional.relu",
    "op:nn.functional.gelu", "op:nn.functional.layer_norm", "op:index_select",
    "module:nn.Conv2d", "module:nn.MaxPool2d",
]
EMPTY_OPS = ("empty",)  # undefined values: compared by dtype and shape
# Operators that sample: their values are compared by dtype and shape even where
# two eager runs happened to agree (a generator baked into the sample, a seed the
# sample resets), which the value check above cannot tell from a deterministic op.
RANDOM_TARGETS = ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
                  "randperm", "bernoulli", "normal", "uniform", "exponential", "cauchy",
                  "geometric", "log_normal", "random", "multinomial", "native_dropout",
                  "poisson")


def item_id(kind, name, variant=""):
    return f"{kind}:{name}" + (f".{variant}" if variant else "")


def all_items():
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db
    items = {}
    for op in op_db:
        if torch.float32 in op.supported_dtypes("cpu"):
            items[item_id("op", op.name, op.variant_test_name)] = op
    for m in module_db:
        if torch.float32 in m.dtypes:
            items[item_id("module", m.name)] = m
    return items


class Wrapped:
    """Builds the nn.Module that calls fn with the sample's arguments, tensors as inputs."""

    @staticmethod
    def make(fn, args, kwargs):
        import torch
        import torch.utils._pytree as pytree
        from sweep.compare import tensor_leaves
        leaves, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
        tensors = [leaves[i].detach().clone().contiguous() for i in slots]
        consts = [None if isinstance(x, torch.Tensor) else x for x in leaves]

        class OpModule(torch.nn.Module):
            def __init__(self):
                super().__init__()
                if isinstance(fn, torch.nn.Module):
                    self.inner = fn
                self._fn = fn

            def forward(self, *ts):
                vals = list(consts)
                for s, t in zip(slots, ts):
                    vals[s] = t
                a, kw = pytree.tree_unflatten(vals, spec)
                return tuple(tensor_leaves(self._fn(*a, **kw)))

        return OpModule().eval(), tensors


def samples_of(item, entry, limit):
    """[(desc, fn, args, kwargs)] for the first `limit` float32 CPU samples."""
    import itertools
    import torch
    out = []
    if item.startswith("op:"):
        it = entry.sample_inputs("cpu", torch.float32, requires_grad=False)
        for s in itertools.islice(it, limit):
            out.append((s.name or "", entry.op, (s.input,) + tuple(s.args), s.kwargs))
        return out
    torch.manual_seed(0)
    mis = entry.module_inputs_func(entry, device="cpu", dtype=torch.float32,
                                   requires_grad=False, training=False)
    for mi in mis[:limit]:
        if mi.forward_input is None:
            continue
        torch.manual_seed(0)
        c = mi.constructor_input
        try:
            mod = entry.module_cls(*c.args, **c.kwargs).to(torch.float32).eval()
        except Exception as e:
            out.append((mi.desc, e, (), {}))
            continue
        out.append((mi.desc, mod, mi.forward_input.args, mi.forward_input.kwargs))
    return out


def eager(mod, tensors, seed):
    import torch
    from sweep.compare import tensor_leaves
    torch.manual_seed(seed)
    with torch.no_grad():
        return tensor_leaves(mod(*[t.clone() for t in tensors]))


def same(a, b):
    import torch
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not torch.equal(torch.nan_to_num(x.double() if x.is_floating_point() else x),
                           torch.nan_to_num(y.double() if y.is_floating_point() else y)):
            return False
    return True


def check_sample(item, idx, desc, fn, args, kwargs, cfg, cache, tmp):
    """One sample: export, then every flow. Returns the sample's record."""
    import torch
    from sweep import compare as cmp
    from sweep import flows
    rec = {"idx": idx, "desc": desc}
    if isinstance(fn, Exception):
        rec.update(status="eager-failed", error=f"construct: {type(fn).__name__}: {fn}"[:300])
        return rec
    try:
        mod, tensors = Wrapped.make(fn, args, kwargs)
        want = eager(mod, tensors, 1)
        again = eager(mod, tensors, 2)
    except Exception as e:
        rec.update(status="eager-failed", error=f"{type(e).__name__}: {e}".splitlines()[0][:300])
        return rec
    rec["inputs"] = [f"{str(t.dtype)[6:]}{list(t.shape)}" for t in tensors]
    random_values = not same(want, again) or any(k in item for k in EMPTY_OPS)
    if not want:
        rec.update(status="export-failed", error="no tensor output")
        return rec
    d = os.path.join(tmp, f"{item.replace(':', '_').replace('/', '_')}_{idx}")
    os.makedirs(d, exist_ok=True)
    pt2 = os.path.join(d, "model.pt2")
    try:
        with torch.no_grad():
            ep = torch.export.export(mod, tuple(tensors))
        torch.export.save(ep, pt2)
    except Exception as e:
        msg = (str(e).strip().splitlines() or [""])[0]
        rec.update(status="export-failed", error=f"{type(e).__name__}: {msg}"[:300])
        return rec
    rec["status"] = "exported"
    rec["nodes"] = sum(1 for n in ep.graph.nodes if n.op == "call_function")
    random_values = random_values or any(
        getattr(getattr(n.target, "_schema", None), "name", "").split("::")[-1].rstrip("_")
        in RANDOM_TARGETS for n in ep.graph.nodes if n.op == "call_function")
    if random_values:
        rec["random"] = True
    key = f"{item}#{idx}:" + cmp.digest(ep.graph, *tensors, *ep.state_dict.values(),
                                         *[v for v in ep.constants.values()
                                           if isinstance(v, torch.Tensor)])
    rec["key"] = key
    c = cfg.but(shape_only=True) if random_values else cfg
    rec["flows"] = flows.judge(ep, pt2, [(tensors, want)], d, c, cached=cache.get(key),
                               ref64=lambda: [eager64(mod, tensors)])
    return rec


def eager64(mod, tensors):
    """Float64 eager outputs (the arbiter of float32 rounding differences, as in the
    model sweep): the module and its floating inputs in float64."""
    import copy
    import torch
    m = copy.deepcopy(mod).double()
    xs = [t.double() if t.is_floating_point() else t for t in tensors]
    return [t.double() for t in eager(m, xs, 1)]


def run_item(item, entry, args, cfg, cache):
    import shutil
    tmp = tempfile.mkdtemp(prefix="opinfo_", dir=args.keep)
    try:
        samples = samples_of(item, entry, args.samples)
    except Exception as e:
        return {"samples": [], "error": f"sample_inputs: {type(e).__name__}: {e}"[:300]}
    recs = []
    for idx, (desc, fn, a, kw) in enumerate(samples):
        recs.append(check_sample(item, idx, desc, fn, a, kw, cfg, cache, tmp))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"samples": recs}


def worker_main(args, cfg):
    import torch
    from sweep import pool
    torch.set_num_threads(1)
    env.quiet_torch()
    from sweep.cache import read_snapshot
    cache = read_snapshot(args.cache_file)
    items = all_items()
    pool.worker_loop(pool.worker_ids(args.worker), args.worker_out,
                     lambda i: run_item(i, items[i], args, cfg, cache))
    return 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the folder with aot-compile, pte-run")
    ap.add_argument("--oracle", default=env.DEFAULT_ORACLE, help="upstream's executorch-runner")
    ap.add_argument("--ci", action="store_true", help="the CI subset (see the docstring)")
    ap.add_argument("--only", action="append", default=[],
                    help="items whose id contains this (op:NAME, module:nn.NAME; repeatable)")
    ap.add_argument("--samples", type=int, default=3, help="samples per op (the first N)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2 here)")
    ap.add_argument("--nice", type=int, default=0, help="niceness of the workers")
    ap.add_argument("--flows", default=",".join(
        ["ptec_portable", "ptec_xnnpack", "upstream_portable", "upstream_xnnpack"]))
    ap.add_argument("--json", help="write the results here: per op, without the samples")
    ap.add_argument("--json-samples", help="write every result here, per sample too")
    ap.add_argument("--markdown", help="write the per-op table here (docs/op-coverage.md)")
    ap.add_argument("--expect", help="JSON {sample: status} the ptec flows must still reach")
    ap.add_argument("--write-expect", help="write the ptec samples that matched here")
    ap.add_argument("--no-cache", action="store_true", help="recompute upstream's results")
    ap.add_argument("--keep", help="keep every work file under this folder")
    ap.add_argument("--render", metavar="JSON",
                    help="only write --markdown from an earlier run's --json-samples")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    ap.add_argument("--cache-file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ci:
        args.flows = "ptec_portable,ptec_xnnpack"
        args.samples = min(args.samples, 2)
    args.jobs = max(1, min(args.jobs, 2))
    return args


def main():
    args = parse_args()
    if args.render:
        import json
        from opinfo_markdown import render
        from sweep import report
        with open(args.render) as f:
            report.write_atomic(args.markdown, render(json.load(f), None))
        return 0
    skip = env.ensure_venv()
    if skip:
        return skip
    from sweep import flows
    cfg = flows.Config(os.path.abspath(args.bin), args.oracle, args.flows.split(","),
                       ptec_on_oracle=not args.ci)
    if args.worker:
        return worker_main(args, cfg)
    import opinfo_report
    return opinfo_report.drive(args, cfg)


if __name__ == "__main__":
    sys.exit(main())
