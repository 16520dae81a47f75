#!/usr/bin/env python3
"""ExecuTorch's own Python flow on saved ExportedPrograms, for upstream_compare_bench.py.

    upstream_export.py --method NAME=FILE.pt2 [--method ...] --backend portable|xnnpack
                       [--share-mutable-buffers] -o OUT.pte

Loads each archive with torch.export.load (parameters set not to require grad, a
user's workaround for upstream's refusal of in-place KV-cache updates otherwise), then
to_edge_transform_and_lower (with
XnnpackPartitioner for --backend xnnpack) and to_executorch, and writes the buffer.
Several methods become one program (a dict of ExportedPrograms); with
--share-mutable-buffers the memory planner shares their mutable buffers, as
aot-compile --share-mutable-buffers does. Prints one JSON line: the seconds spent
importing torch/executorch and compiling (the caller measures the whole process),
or the error upstream raised. Needs the modern-PyTorch venv (scripts/venv.sh).
"""
import argparse
import json
import sys
import time
import warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", action="append", required=True, metavar="NAME=FILE")
    ap.add_argument("--backend", choices=["portable", "xnnpack"], default="portable")
    ap.add_argument("--share-mutable-buffers", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")

    t0 = time.perf_counter()
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
    from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
    partitioners = []
    if args.backend == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner)
        partitioners = [XnnpackPartitioner()]
    t1 = time.perf_counter()

    try:
        programs = {}
        for spec in args.method:
            name, path = spec.split("=", 1)
            ep = torch.export.load(path)
            # Parameters come back from torch.export.load requiring grad, and
            # upstream's passes (legalize_portable_dim_order_pass) then refuse
            # the in-place ops of a KV-cache update ("a leaf Variable that
            # requires grad is being used in an in-place operation"). A user's
            # workaround, applied so that upstream gets its best chance:
            for t in list(ep.state_dict.values()) + list(ep.constants.values()):
                if isinstance(t, torch.Tensor):
                    t.requires_grad_(False)
            programs[name] = ep
        source = programs if len(programs) > 1 else next(iter(programs.values()))
        with torch.no_grad():
            edge = to_edge_transform_and_lower(source, partitioner=partitioners)
            config = ExecutorchBackendConfig(
                memory_planning_pass=MemoryPlanningPass(
                    share_mutable_buffers=args.share_mutable_buffers),
                emit_mutable_buffer_names=args.share_mutable_buffers)
            et = edge.to_executorch(config)
        with open(args.output, "wb") as f:
            f.write(et.buffer)
    except Exception as e:  # upstream's refusal, reported by the caller
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        print(json.dumps({"error": f"{type(e).__name__}: {msg}"[:400]}))
        return 1
    t2 = time.perf_counter()
    print(json.dumps({"import_s": t1 - t0, "compile_s": t2 - t1}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
