#!/usr/bin/env python3
"""Registers the in-place and out= forms of supported ops that torch's list names.

    add_variant_schemas.py --aot-compile BIN [--list training_ops.txt] [--write]

Functionalization turns `op_` and `op.out` into `op`, so such a form is supported
as soon as its functional form is, provided its schema is registered (else the
importer cannot read the node). For every op of training_ops.txt that
`aot-compile --list-ops` answers 'missing' with "not in the operator schema
registry", whose name marks it as an in-place or out= form, and whose functional
form (found by the registry once the schema is added) is legalized or has a
kernel, this adds torch's schema to dialects/exir/schema/aten/composite_variants.txt.
Without --write it prints what it would add. Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PART = os.path.join(ROOT, "dialects", "exir", "schema", "aten", "composite_variants.txt")
HEADER = """# In-place and out= forms of ops that ptec legalizes or runs on a kernel, as
# torch 2.15 spells them (test/conformance/training_ops.txt): functionalization
# turns each into its functional form. Written by
# test/conformance/add_variant_schemas.py; check_training_ops.py checks them.
"""


def list_ops(binary, names):
    p = subprocess.run([binary, "--list-ops"] + names, stdout=subprocess.PIPE, text=True,
                       check=True)
    out = {}
    for line in p.stdout.splitlines():
        name, st, detail = line.split("\t", 2)
        out[name] = (st, detail)
    return out


def is_variant(name):
    base, _, overload = name.partition("::")[2].partition(".")
    inplace = base.endswith("_") and not base.startswith("__")
    out = overload == "out" or overload.endswith("_out") or overload.startswith("Out") or \
        overload in ("output", "values", "grad_input")
    return inplace or out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aot-compile", required=True)
    ap.add_argument("--list", default=os.path.join(HERE, "training_ops.txt"))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    ops = []
    for line in open(args.list):
        if line.startswith("#") or not line.strip():
            continue
        name, _, schema = line.rstrip("\n").split("\t", 2)
        ops.append((name, schema))
    status = list_ops(args.aot_compile, [n for n, _ in ops])
    have = set()
    if os.path.exists(PART):
        have = {l.split("(")[0].strip() for l in open(PART) if l.strip() and not l.startswith("#")}
    new = []
    for name, schema in ops:
        st, detail = status[name]
        if st == "missing" and is_variant(name):
            short = schema.split("::", 1)[1]
            if short.split("(")[0] not in have:
                new.append(short)
    for s in new:
        print(s)
    if args.write and new:
        lines = open(PART).read().splitlines() if os.path.exists(PART) else HEADER.splitlines()
        lines += new
        with open(PART + ".tmp", "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(PART + ".tmp", PART)
    print(f"{len(new)} schemas {'added' if args.write else 'to add'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
