#!/usr/bin/env python3
"""Planned arena size per model, method and planner, against the peak-live lower bound.

For every model of the fixture zoo (test/models/*/meta.json; every method of
multi-method models, compiled together as one program the way aot-compile
does it), runs

  aot-compile <pt2>[:method] ... --compile-to=plan --planner <algorithm>

for each algorithm (greedy, best-fit, first-fit, and best = smallest of all,
the default) and reads what the plan phase leaves on each func.func:
exir.arena_sizes (the arenas; their sum is the planned bytes) and
exir.plan = {algorithm, lower_bound, total}. lower_bound is the peak of the
bytes live at any one instruction: no plan can be smaller.

Tables:
  1. model, method, algorithm, arena bytes, lower bound, plan / lower bound;
     '*' marks the smallest plan among the concrete algorithms.
  2. --write-back earliest vs end (default planner) for every model whose
     plan carries write-back copies, and for bench/models/*.mlir (saved IR,
     resumed by aot-compile): planned bytes and earliest / end.
  3. The planner's goal: with the default planner, every method's plan is
     within 1.10x of its lower bound. One PASS/FAIL line per model.

Exit status: 0, unless --strict and a model fails the criterion or a compile
fails. Python 3 standard library only.

Usage:
  bench/memory_plan_report.py [--bin-dir BUILD/bin] [--strict] [model-dir ...]
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALGORITHMS = ["greedy", "best-fit", "first-fit", "best"]
DEFAULT_PLANNER = "best"
CRITERION = 1.10

FUNC = re.compile(r"func\.func\s+(?:(?:private|public|nested)\s+)?@([\w.$-]+|\"[^\"]*\")")
ARENAS = re.compile(r"exir\.arena_sizes = array<i64(?::\s*([0-9, ]*))?>")
PLAN = re.compile(r'exir\.plan = \{algorithm = "([^"]*)", lower_bound = (\d+)'
                  r'(?: : i64)?, total = (\d+)')
WRITE_BACK = re.compile(r"exir\.write_back = \{([^}]*)\}")
COUNTER = re.compile(r"(\w+) = (\d+)")


class CompileError(RuntimeError):
    pass


def compile_to_plan(aot, inputs, extra):
    cmd = [aot] + inputs + ["--compile-to=plan"] + extra
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or "exit status %d" % proc.returncode).splitlines()
        raise CompileError(lines[0])
    return proc.stdout


def plans(ir):
    """{method: (arena bytes, algorithm, lower bound)} for every planned func.func."""
    out = {}
    starts = [(m.start(), m.group(1).strip('"')) for m in FUNC.finditer(ir)]
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(ir)
        # The attributes sit on the func.func line, before the body.
        header = ir[start:ir.find("\n", start, end) if "\n" in ir[start:end] else end]
        arenas = ARENAS.search(header)
        plan = PLAN.search(header)
        if not arenas or not plan:
            continue
        size = sum(int(x) for x in (arenas.group(1) or "").replace(" ", "").split(",") if x)
        out[name] = (size, plan.group(1), int(plan.group(2)))
    return out


def write_back_counts(ir):
    """(copies inserted, updates done in place) over every function."""
    copies = in_place = 0
    for m in WRITE_BACK.finditer(ir):
        counters = dict((k, int(v)) for k, v in COUNTER.findall(m.group(1)))
        copies += counters.get("copies", 0)
        in_place += counters.get("in_place", 0)
    return copies, in_place


def zoo_models(dirs):
    """(name, inputs for aot-compile) per model directory holding a meta.json."""
    models = []
    for d in dirs:
        meta_path = os.path.join(d, "meta.json")
        if not os.path.exists(meta_path):
            continue
        with open(meta_path) as f:
            meta = json.load(f)
        methods = meta.get("methods") or [{"method": "forward",
                                           "file": meta.get("file", "model.pt2")}]
        inputs = ["%s:%s" % (os.path.join(d, m["file"]), m["method"]) for m in methods]
        models.append((meta.get("name", os.path.basename(d)), inputs))
    return models


def ratio(size, bound):
    return size / bound if bound else (1.0 if size == 0 else float("inf"))


def plan_table(aot, models):
    """Prints table 1; returns {model: {method: (bytes, bound)}} for the default planner."""
    header = "%-18s %-8s %-28s %12s %12s %8s" % (
        "model", "method", "algorithm", "arena bytes", "lower bound", "ratio")
    print(header)
    print("-" * len(header))
    default = {}
    for name, inputs in models:
        runs = {}
        try:
            for algo in ALGORITHMS:
                runs[algo] = plans(compile_to_plan(aot, inputs, ["--planner", algo]))
        except CompileError as e:
            print("%-18s error: %s" % (name, e))
            default[name] = None
            continue
        default[name] = {m: (v[0], v[2]) for m, v in runs[DEFAULT_PLANNER].items()}
        for method in runs[DEFAULT_PLANNER]:
            concrete = [runs[a][method][0] for a in ALGORITHMS
                        if a != "best" and method in runs[a]]
            smallest = min(concrete) if concrete else None
            for algo in ALGORITHMS:
                if method not in runs[algo]:
                    continue
                size, chosen, bound = runs[algo][method]
                label = algo if algo != "best" else "best (%s)" % chosen
                mark = "*" if algo != "best" and size == smallest else " "
                print("%-18s %-8s %-28s %12d %12d %7.3f%s" % (
                    name, method, label, size, bound, ratio(size, bound), mark))
    print("\n* = smallest plan of the concrete algorithms (ties all marked); "
          "ratio = arena bytes / peak-live lower bound")
    return default


def write_back_table(aot, models, ir_models):
    header = "%-36s %-8s %12s %12s %8s %10s %16s" % (
        "model", "method", "end (B)", "earliest", "ratio", "reduction", "copies/in place")
    print(header)
    print("-" * len(header))
    failed = False
    # Zoo models only when they have mutable state; saved IR models always.
    candidates = [(n, i, True) for n, i in models] + [
        (os.path.relpath(p, ROOT), [p], False) for p in ir_models]
    shown = 0
    for name, inputs, only_mutable in candidates:
        try:
            early_ir = compile_to_plan(aot, inputs, ["--write-back", "earliest"])
            counts = write_back_counts(early_ir)
            if only_mutable and sum(counts) == 0:
                continue
            end = plans(compile_to_plan(aot, inputs, ["--write-back", "end"]))
            early = plans(early_ir)
        except CompileError as e:
            print("%-36s error: %s" % (name, e))
            failed = True
            continue
        for method, (e_size, _, _) in early.items():
            end_size = end.get(method, (0,))[0]
            r = ratio(e_size, end_size)
            print("%-36s %-8s %12d %12d %8.3f %9.1f%% %16s" % (
                name, method, end_size, e_size, r, (1 - r) * 100, "%d/%d" % counts))
            shown += 1
    if not shown and not failed:
        print("(no model with mutable state)")
    print("\nratio = planned bytes with write-backs at the earliest safe point / at the "
          "end of the method (default pipeline, default planner); reduction = 1 - ratio;\n"
          "copies/in place = write-back copies inserted / state updates re-inplaced "
          "(no copy at all), whole program")
    return failed


def criterion(default):
    failed = False
    for name, methods in default.items():
        if methods is None:
            print("FAIL %-18s (compile error)" % name)
            failed = True
            continue
        worst = max((ratio(s, b), m) for m, (s, b) in methods.items()) if methods else (1.0, "-")
        ok = worst[0] <= CRITERION
        failed |= not ok
        print("%s %-18s worst plan / lower bound %.3f (%s)" % (
            "PASS" if ok else "FAIL", name, worst[0], worst[1]))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*",
                    help="model directories with a meta.json (default: test/models/*)")
    ap.add_argument("--bin-dir", default=os.path.join("build", "bin"),
                    help="directory holding aot-compile (default: ./build/bin)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a model misses the 1.10x criterion or fails to compile")
    args = ap.parse_args()

    aot = os.path.join(args.bin_dir, "aot-compile")
    if not os.access(aot, os.X_OK):
        sys.exit("memory_plan_report: %s not found; pass --bin-dir" % aot)
    dirs = args.models or sorted(glob.glob(os.path.join(ROOT, "test", "models", "*")))
    models = zoo_models(dirs)
    if not models:
        sys.exit("memory_plan_report: no model directories with a meta.json")
    ir_models = [] if args.models else sorted(
        glob.glob(os.path.join(ROOT, "bench", "models", "*.mlir")))

    print("== Memory plan per algorithm (aot-compile --compile-to=plan --planner ...)\n")
    default = plan_table(aot, models)
    print("\n== Write-back placement: --write-back earliest vs end\n")
    wb_failed = write_back_table(aot, models, ir_models)
    print("\n== Goal: plan within %.2fx of the peak-live lower bound "
          "(default planner, every method)\n" % CRITERION)
    failed = criterion(default)
    if args.strict and (failed or wb_failed):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
