#!/usr/bin/env python3
"""Writes training_ops.txt: every op that can reach ptec from a saved training-IR graph and
is not plain core ATen, read from torch itself (run with the modern-PyTorch venv's python).

    gen_training_ops.py [--out training_ops.txt] [--extra training_ops_extra.txt]

The training IR that torch.export.export saves keeps every op that is not
CompositeImplicitAutograd; ExecuTorch's flow lowers them with
`ExportedProgram.run_decompositions()`, whose table is
`torch.export.default_decompositions()`. Its keys are the list (a few of them
are tagged core and are listed as such), plus the ops named in --extra (ops the
model and OpInfo sweeps met that are neither core nor in the table). Every op on
the list must be legalized by ptec or refused by name: check_training_ops.py
checks that against `aot-compile --list-ops`.

Output: a header naming the torch version, then one line per overload, sorted:
    <ptec name>\t<core|non-core>\t<schema>
where the ptec name is the schema name ("aten::pad", "aten::add.Tensor").
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def ptec_name(op):
    s = op._schema
    return s.name + ("." + s.overload_name if s.overload_name else "")


def lookup(name):
    """torch.ops overload for a ptec name ("aten::pad", "aten::add.Tensor")."""
    import torch
    ns, rest = name.split("::", 1)
    if ns == "torch_nn":
        import torch.nn.modules.linear_cross_entropy  # noqa: F401 (registers torch_nn ops)
    base, _, overload = rest.partition(".")
    packet = getattr(getattr(torch.ops, ns), base)
    return getattr(packet, overload or "default")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "training_ops.txt"))
    ap.add_argument("--extra", default=os.path.join(HERE, "training_ops_extra.txt"))
    args = ap.parse_args()
    import torch
    ops = {}
    for op in torch.export.default_decompositions():
        ops[ptec_name(op)] = op
    if os.path.exists(args.extra):
        for line in open(args.extra):
            line = line.split("#", 1)[0].strip()
            if line:
                ops[line] = lookup(line)
    version = torch.__version__.split("+")[0]
    lines = [
        "# Ops a saved training-IR graph may hold that are not plain core ATen, from",
        f"# torch {version}: the keys of torch.export.default_decompositions() plus",
        "# training_ops_extra.txt. Made by gen_training_ops.py; checked against ptec by",
        "# check_training_ops.py. Columns: ptec name, core|non-core, schema.",
        f"# torch {version}, {len(ops)} ops",
    ]
    for name in sorted(ops):
        op = ops[name]
        core = "core" if torch.Tag.core in op.tags else "non-core"
        lines.append(f"{name}\t{core}\t{op._schema}")
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, args.out)
    print(f"{args.out}: {len(ops)} ops (torch {version})")


if __name__ == "__main__":
    sys.exit(main())
