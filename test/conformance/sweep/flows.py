"""One exported program through the four flows, each judged against eager.

    ptec_portable      aot-compile                    -> pte-run (and upstream's runtime)
    ptec_xnnpack       aot-compile --backend xnnpack  -> pte-run (and upstream's runtime)
    upstream_portable  to_edge_transform_and_lower + to_executorch -> upstream's runtime
    upstream_xnnpack   the same with XnnpackPartitioner           -> upstream's runtime

A flow's result is a dict: status (matched / wrong / refused / crashed), error (the
first error line), errors (every refusal line), stage (compile / run), seconds (the
compile: ptec's whole process, upstream's to_edge..to_executorch in this process),
planned (planned arena bytes, pte-inspect), and for ptec `executorch`: the same
program on upstream's runtime (status, error).
"""
import copy
import os
import time

from . import compare as cmp
from . import tools

# Bumped whenever the judging of a result changes: cached upstream results of another
# version are recomputed.
CACHE_VERSION = 2
FLOWS = ("ptec_portable", "ptec_xnnpack", "upstream_portable", "upstream_xnnpack")
LABELS = {"ptec_portable": "ptec portable", "ptec_xnnpack": "ptec xnnpack",
          "upstream_portable": "upstream portable", "upstream_xnnpack": "upstream xnnpack"}


class Config:
    """What a sweep runs: bin_dir (aot-compile, pte-run, pte-inspect), oracle (upstream's
    runner or None), flows, tolerance (rtol/atol, None = assert_close's defaults),
    ptec_on_oracle (run ptec's programs on upstream's runtime too), planned (read the
    plans), timeouts."""

    def __init__(self, bin_dir, oracle, flows=FLOWS, rtol=None, atol=None,
                 ptec_on_oracle=False, planned=False, compile_timeout=600, run_timeout=300,
                 shape_only=False):
        self.bin_dir = bin_dir
        self.oracle = oracle if oracle and os.path.exists(oracle) else None
        self.flows = [f for f in flows if f.startswith("ptec") or self.oracle]
        self.rtol, self.atol = rtol, atol
        self.ptec_on_oracle = ptec_on_oracle and self.oracle is not None
        self.planned = planned
        self.compile_timeout, self.run_timeout = compile_timeout, run_timeout
        self.shape_only = shape_only
        self.ref64 = None  # a callable giving float64 eager outputs per call (arbiter)

    def but(self, **kw):
        c = copy.copy(self)
        c.__dict__.update(kw)
        return c


def _check_run(res, files_for_call, calls, what, strip, cfg):
    """The outcome of a finished run: refused/crashed, else matched or wrong per call."""
    bad = tools.outcome_of(res, what, strip)
    if bad:
        bad["stage"] = "run"
        return bad
    noise = []
    for k, (_, want) in enumerate(calls):
        files = files_for_call(k, len(want))
        msg = cmp.compare(files, want, cfg.rtol, cfg.atol, getattr(cfg, "shape_only", False))
        if msg and cfg.ref64 is not None:
            ref = cfg.ref64()
            if ref is not None:
                ok, detail = cmp.arbitrate(files, want, ref[k], cfg.atol)
                if ok:
                    noise.append(f"call {k}: {detail}" if len(calls) > 1 else detail)
                    continue
                msg += f"; {detail}"
        if msg:
            where = f"call {k}, " if len(calls) > 1 else ""
            return {"status": "wrong", "stage": "run", "error": f"{what}: {where}{msg}"}
    out = {"status": "matched"}
    if noise:  # beyond rtol/atol of float32 eager, within its own float32 error
        out["float32_noise"] = "; ".join(noise)[:300]
    return out


def _call_inputs(d, calls, prefix):
    """Input files per call; for several calls the pte-run pattern with '{call}'."""
    if len(calls) == 1:
        return cmp.save_inputs(calls[0][0], d, prefix + "_")
    for k, (ins, _) in enumerate(calls):
        for i, x in enumerate(ins):
            import numpy as np
            np.save(os.path.join(d, f"{prefix}_{i}_{k}.npy"), x.detach().contiguous().numpy())
    return [os.path.join(d, f"{prefix}_{i}_{{call}}.npy") for i in range(len(calls[0][0]))]


def run_ptec(flow, pt2, calls, d, cfg, extra=()):
    backend = "xnnpack" if flow == "ptec_xnnpack" else "portable"
    pte = os.path.join(d, flow + ".pte")
    strip = (d,)
    res = tools.aot_compile(cfg.bin_dir, pt2, pte, backend, cfg.compile_timeout, extra)
    bad = tools.outcome_of(res, "compile", strip)
    if bad:
        bad.update(stage="compile", seconds=res["seconds"])
        return bad
    out = {"seconds": res["seconds"]}
    if cfg.planned:
        out["planned"] = tools.planned_bytes(cfg.bin_dir, pte)
    if flow == "ptec_xnnpack":
        out["delegates"] = tools.delegate_count(cfg.bin_dir, pte)
    ins = _call_inputs(d, calls, "in")
    od = os.path.join(d, flow + "_pte_run")
    res = tools.pte_run(cfg.bin_dir, pte, ins, od, cfg.run_timeout, calls=len(calls))
    files = (lambda k, n: tools.pte_run_outputs(od, n, None if len(calls) == 1 else k))
    out.update(_check_run(res, files, calls, "pte-run", strip, cfg))
    if cfg.ptec_on_oracle:
        ins0 = cmp.save_inputs(calls[0][0], d, "in_first_")
        od = os.path.join(d, flow + "_executorch")
        res = tools.oracle_run(cfg.oracle, pte, ins0, od, cfg.run_timeout)
        out["executorch"] = _check_run(res, lambda k, n: tools.oracle_outputs(od, n, k),
                                       calls[:1], "executorch runtime", strip, cfg)
    return out


_MEMO = {}


def _memoize_cia_scan():
    """torch re-scans the dispatcher for CompositeImplicitAutograd ops on every
    run_decompositions (several times per to_edge: about 40% of upstream's time on a
    small program). The scan's answer changes only when an op is registered, so it is
    kept until the number of registrations or of op namespaces changes. The results
    are the same; thousands of small programs get through in half the time."""
    if _MEMO:
        return
    import torch
    import torch._export.utils as eu
    import torch.export.decomp_utils as du
    import torch.export.exported_program as xp

    def stamp():
        regs = torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")
        return len(regs), len(torch.ops._dir)

    def memo(name, fn):
        def wrapper():
            key = (name, stamp())
            if key not in _MEMO:
                _MEMO[key] = fn()
            return _MEMO[key]
        return wrapper

    _MEMO["installed"] = True
    eu._materialize_cpp_cia_ops = memo("materialize", eu._materialize_cpp_cia_ops)
    collect = memo("collect", eu._collect_all_valid_cia_ops)
    for mod in (eu, du, xp):
        if hasattr(mod, "_collect_all_valid_cia_ops"):
            mod._collect_all_valid_cia_ops = collect


def upstream_compile(ep, flow, pte):
    """ExecuTorch's Python flow on the exported program; returns (seconds, error or None)."""
    import torch
    _memoize_cia_scan()
    from executorch.exir import to_edge_transform_and_lower
    partitioners = []
    if flow == "upstream_xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        partitioners = [XnnpackPartitioner()]
    try:
        prog = copy.deepcopy(ep)
    except Exception:
        prog = ep
    # Parameters of an exported program require grad, and upstream's passes then refuse
    # in-place updates of state (a KV cache); the workaround a user applies, so that
    # upstream gets its best chance (bench/upstream_export.py does the same).
    for t in list(prog.state_dict.values()) + list(prog.constants.values()):
        if isinstance(t, torch.Tensor):
            t.requires_grad_(False)
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            et = to_edge_transform_and_lower(prog, partitioner=partitioners).to_executorch()
            buf = et.buffer
    except Exception as e:  # upstream's refusal
        msg = (str(e).strip().splitlines() or [""])[0]
        return time.perf_counter() - t0, f"{type(e).__name__}: {msg}"[:300]
    seconds = time.perf_counter() - t0
    with open(pte, "wb") as f:
        f.write(buf)
    return seconds, None


def run_upstream(flow, ep, calls, d, cfg):
    pte = os.path.join(d, flow + ".pte")
    seconds, err = upstream_compile(ep, flow, pte)
    if err:
        return {"status": "refused", "stage": "compile", "error": err, "seconds": seconds}
    out = {"seconds": seconds}
    if cfg.planned:
        out["planned"] = tools.planned_bytes(cfg.bin_dir, pte)
    ins0 = cmp.save_inputs(calls[0][0], d, "in_first_")
    od = os.path.join(d, flow + "_executorch")
    res = tools.oracle_run(cfg.oracle, pte, ins0, od, cfg.run_timeout)
    out.update(_check_run(res, lambda k, n: tools.oracle_outputs(od, n, k), calls[:1],
                          "executorch runtime", (d,), cfg))
    return out


def judge(ep, pt2, calls, d, cfg, cached=None, extra=(), ref64=None):
    """{flow: result} for every flow of cfg. `calls`: [(input tensors, eager outputs)],
    one entry per call of the method (state carries over between calls). `cached`:
    earlier upstream results for this very program ({flow: result}), reused as they are.
    `ref64`: a callable giving float64 eager outputs per call, computed once when a
    result first differs from float32 eager (compare.arbitrate)."""
    if ref64 is not None:
        memo = []

        def once():
            if not memo:
                try:
                    memo.append(ref64())
                except Exception:  # the model does not run in float64: no arbiter
                    memo.append(None)
            return memo[0]
        cfg = cfg.but(ref64=once)
    results = {}
    for flow in cfg.flows:
        if flow.startswith("ptec"):
            results[flow] = run_ptec(flow, pt2, calls, d, cfg, extra)
        elif cached and flow in cached:
            results[flow] = dict(cached[flow], cached=True)
        else:
            results[flow] = run_upstream(flow, ep, calls, d, cfg)
    return results
