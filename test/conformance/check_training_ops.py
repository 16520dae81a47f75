#!/usr/bin/env python3
"""Every op a saved training-IR graph may hold is legalized by ptec or refused by name.

    check_training_ops.py --aot-compile BIN [--list training_ops.txt] [--summary]

Reads the committed list (gen_training_ops.py made it from torch: the keys of
torch.export.default_decompositions() plus the ops the sweeps met), asks
`aot-compile --list-ops` what ptec does with each, and fails naming every op
that is 'missing' (neither legalized, nor run by a portable kernel, nor
refused with a reason). Standard library only: torch is not needed here.
"""
import argparse
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_list(path):
    ops = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, core, schema = line.rstrip("\n").split("\t", 2)
        ops.append((name, core, schema))
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aot-compile", required=True)
    ap.add_argument("--list", default=os.path.join(HERE, "training_ops.txt"))
    ap.add_argument("--summary", action="store_true", help="print every op's status")
    args = ap.parse_args()
    ops = read_list(args.list)
    names = [n for n, _, _ in ops]
    p = subprocess.run([args.aot_compile, "--list-ops"] + names, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"aot-compile --list-ops failed ({p.returncode}): {p.stderr}")
        return 1
    status = {}
    for line in p.stdout.splitlines():
        name, st, detail = line.split("\t", 2)
        status[name] = (st, detail)
    counts = collections.Counter()
    missing = []
    for name, core, _ in ops:
        st, detail = status.get(name, ("absent", "not answered by --list-ops"))
        counts[st] += 1
        if args.summary:
            print(f"{name}\t{core}\t{st}\t{detail}")
        if st not in ("legalized", "kernel", "refused"):
            missing.append(f"{name} ({core}): {st}: {detail}")
        elif st == "refused" and not detail.strip():
            missing.append(f"{name}: refused without a reason")
    print(f"{len(ops)} ops: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if missing:
        print(f"{len(missing)} ops are neither legalized nor refused by name:")
        for m in missing:
            print(f"  {m}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
