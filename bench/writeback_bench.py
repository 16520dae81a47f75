#!/usr/bin/env python3
"""Planned memory with write-back copies at the earliest safe point vs at the end.

For each model with mutable state, runs the same pipeline three ways and
prints the planned arena sizes side by side:

  end       --exir-place-write-back=at-end=true --exir-to-out-variants --exir-plan-memory
  earliest  --exir-place-write-back             --exir-to-out-variants --exir-plan-memory
  reinplace --exir-reinplace-state --exir-place-write-back ... (the default pipeline)

Models are textual IR (.mlir, e.g. bench/models/kv_cache_update.mlir) or
.pt2 archives, which aot-compile first imports and legalizes
(--compile-to=legalize) so that all three runs start from the same IR.
The ratios are against the end-of-method baseline of the same run.

Usage:
  bench/writeback_bench.py [--bin-dir BUILD/bin] [model ...]
Without models, runs bench/models/kv_cache_update.mlir and the mutable-state
models of the fixture zoo (test/models/{mutable_buffer,mutate_input}).
Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = [
    "bench/models/kv_cache_update.mlir",
    "test/models/mutable_buffer/model.pt2",
    "test/models/mutate_input/model.pt2",
]
TAIL = ["--exir-to-out-variants", "--exir-plan-memory"]
VARIANTS = [
    ("end", ["--exir-place-write-back=at-end=true"] + TAIL),
    ("earliest", ["--exir-place-write-back"] + TAIL),
    ("reinplace", ["--exir-reinplace-state", "--exir-place-write-back"] + TAIL),
]
ARENAS = re.compile(r"exir\.arena_sizes = array<i64(?::\s*([0-9, ]*))?>")
COPIES = re.compile(r"exir\.write_back = \{[^}]*copies = (\d+)[^}]*earliest = (\d+)")


def find_tool(name, bin_dir):
    if bin_dir:
        path = os.path.join(bin_dir, name)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), proc.stderr.strip()))
    return proc.stdout


def planned_bytes(ir):
    """Sum of the planned arenas of every method, and the write-back counters."""
    total = 0
    found = False
    for m in ARENAS.finditer(ir):
        found = True
        total += sum(int(x) for x in (m.group(1) or "").replace(" ", "").split(",") if x)
    if not found:
        raise RuntimeError("no exir.arena_sizes in the planned IR")
    copies = sum(int(m.group(1)) for m in COPIES.finditer(ir))
    early = sum(int(m.group(2)) for m in COPIES.finditer(ir))
    return total, copies, early


def measure(model, opt, aot, tmp):
    path = model if os.path.isabs(model) else os.path.join(ROOT, model)
    if not os.path.exists(path):
        raise RuntimeError("missing model %s" % model)
    if path.endswith(".pt2"):
        if not aot:
            raise RuntimeError("aot-compile not found (needed for .pt2 models)")
        ir = os.path.join(tmp, os.path.basename(os.path.dirname(path)) + ".mlir")
        run([aot, path, "--compile-to=legalize", "-o", ir])
        path = ir
    return {name: planned_bytes(run([opt, path] + flags)) for name, flags in VARIANTS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="models (.mlir or .pt2); default: %s"
                    % ", ".join(DEFAULT_MODELS))
    ap.add_argument("--bin-dir", help="directory holding ptec-opt and aot-compile "
                    "(default: PATH)")
    args = ap.parse_args()

    opt = find_tool("ptec-opt", args.bin_dir)
    aot = find_tool("aot-compile", args.bin_dir)
    if not opt:
        sys.exit("writeback_bench: ptec-opt not found; pass --bin-dir")

    header = "%-40s %10s %10s %8s %10s %8s %9s" % (
        "model", "end (B)", "earliest", "ratio", "reinplace", "ratio", "copies")
    print(header)
    print("-" * len(header))
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models or DEFAULT_MODELS:
            try:
                r = measure(model, opt, aot, tmp)
            except RuntimeError as e:
                print("%-40s error: %s" % (model, str(e).splitlines()[0]))
                failed = True
                continue
            end, early, inpl = r["end"][0], r["earliest"][0], r["reinplace"][0]
            copies, moved = r["earliest"][1], r["earliest"][2]
            print("%-40s %10d %10d %8.3f %10d %8.3f %9s" % (
                model, end, early, early / end if end else 1.0, inpl,
                inpl / end if end else 1.0, "%d/%d" % (moved, copies)))
    print("\nratio = planned bytes / end-of-method placement; copies = "
          "placed early / inserted (earliest run)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
