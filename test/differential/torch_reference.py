#!/usr/bin/env python3
"""Checks state_diff's aliasing reference (AliasEval.cpp) against eager PyTorch.

    torch_reference.py STATE_DIFF [--seeds N] [--first S]

Runs `STATE_DIFF --inplace --dump-reference FILE` (the random non-functional
programs of InplaceGen.cpp with their inputs and the reference's results per
call, nothing compiled), then replays every program in eager PyTorch: weights
become tensors that live across calls, user inputs fresh tensors per call,
and each `exir.aten` op runs as `torch.ops.aten.<name>.<overload>` with its
operands and attributes mapped by the op's own schema, so views alias and
in-place ops write exactly as PyTorch does. The expected results follow the
functionalized program's convention: the final contents of every user input
that was written (its version counter moved), in argument order, then the
user outputs; every buffer or parameter that was ever written is state.

Uses the modern-PyTorch venv (scripts/venv.sh; PTEC_VENV, else
$XDG_CACHE_HOME/ptec/venv or ~/.cache/ptec/venv); exits 77 (skipped) when
that venv is not ready. Exit 1 on any disagreement.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from schema_table import split_top  # noqa: E402


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


try:
    import torch  # noqa: E402
except ImportError:
    py = venv_python()
    if py is None or os.environ.get("PTEC_TORCH_REFERENCE_REEXEC"):
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        sys.exit(77)
    os.environ["PTEC_TORCH_REFERENCE_REEXEC"] = "1"
    os.execv(py, [py] + sys.argv)

DTYPES = {"f32": torch.float32, "i64": torch.int64, "i1": torch.bool}


def parse_type(t):
    m = re.fullmatch(r"tensor<(?:([0-9x]+)x)?(f32|i64|i1)>", t.strip())
    assert m, t
    shape = [int(d) for d in m.group(1).split("x")] if m.group(1) else []
    return shape, DTYPES[m.group(2)]


def parse_value(v):
    """An attribute's value as the schema argument it stands for."""
    v = v.strip()
    if v == "#exir.none":
        return None
    if v in ("true", "false"):
        return v == "true"
    m = re.fullmatch(r"array<(i64|i32|i1|f64)(?::\s*(.*))?>", v)
    if m:
        items = [x.strip() for x in (m.group(2) or "").split(",") if x.strip()]
        if m.group(1) == "i1":
            return [x == "true" for x in items]
        if m.group(1) == "f64":
            return [float(x) for x in items]
        return [int(x) for x in items]
    m = re.fullmatch(r"(\S+) : (i64|f64)", v)
    if m:
        return int(m.group(1)) if m.group(2) == "i64" else float(m.group(1))
    raise ValueError("attribute value not understood: " + v)


def split_attrs(text):
    """`a = 1 : i64, b = array<i64: 1, 2>` -> {a: ..., b: ...}."""
    pairs = (p.split("=", 1) for p in split_top(text, brackets="<>[]()"))
    return {k.strip(): v.strip() for k, v in pairs}


def parse_dense(text, shape, dtype):
    body = re.fullmatch(r"dense<(.*)>", text.strip()).group(1)
    return torch.tensor(json.loads(body), dtype=dtype).reshape(shape)


class Program:
    def __init__(self, text):
        self.weights = {}  # fqn -> (kind, tensor)
        self.args = []     # (name, kind, fqn)
        self.ops = []      # (result, op name, operands, attrs)
        self.results = []
        for line in text.splitlines():
            line = line.strip()
            m = re.match(r'exir\.weight @(\w+) "(\w+)"(?: mutable)? = (dense<.*>) : (tensor<[^>]*>)$', line)
            if m:
                shape, dtype = parse_type(m.group(4))
                self.weights[m.group(1)] = (m.group(2), parse_dense(m.group(3), shape, dtype))
                continue
            if line.startswith("func.func @forward("):
                for a in re.finditer(r'%(\w+): tensor<[^>]*> \{exir\.input = #exir\.input<(\w+), "([^"]*)">\}', line):
                    self.args.append((a.group(1), a.group(2), a.group(3)))
                if "exir.output<user_output>" not in line or re.search(r"exir\.output<(?!user_output)", line):
                    raise ValueError("only user outputs are replayed")
                continue
            m = re.match(r'%(\w+) = exir\.aten "([^"]+)"\(([^)]*)\) \{(.*)\} : \(.*\) -> (tensor<[^>]*>)$', line)
            if m:
                operands = [o.strip().lstrip("%") for o in m.group(3).split(",") if o.strip()]
                self.ops.append((m.group(1), m.group(2), operands, split_attrs(m.group(4)),
                                 parse_type(m.group(5))[0]))
                continue
            m = re.match(r"return (.*) : ", line)
            if m:
                self.results = [r.strip().lstrip("%") for r in m.group(1).split(",")]


def overload(name):
    ns_op, _, ov = name.partition("::")[2].partition(".")
    packet = getattr(torch.ops.aten, ns_op)
    return getattr(packet, ov or "default")


def run_op(name, operands, attrs, env):
    op = overload(name)
    segments = parse_value(attrs.get("operand_segments", "array<i32>"))
    args, kwargs, k, seg = [], {}, 0, 0
    for arg in op._schema.arguments:
        t = str(arg.type)
        if "Tensor" in t:
            n = segments[seg]
            seg += 1
            vals = [env[o] for o in operands[k:k + n]]
            k += n
            if t == "List[Optional[Tensor]]":
                mask = parse_value(attrs[arg.name])
                it = iter(vals)
                value = [next(it) if present else None for present in mask]
            elif t.startswith("List"):
                value = vals
            else:
                value = vals[0] if vals else None
        elif arg.name in attrs:
            value = parse_value(attrs[arg.name])
        else:
            continue  # the schema default
        if arg.kwarg_only:
            kwargs[arg.name] = value
        else:
            args.append(value)
    return op(*args, **kwargs)


def close(got, want):
    got = torch.as_tensor(got, dtype=torch.float64)
    want = torch.as_tensor(want, dtype=torch.float64)
    return bool(((got - want).abs() <= 1e-4 + 1e-3 * want.abs()).all())


def check(entry):
    prog = Program(entry["program"])
    weights = {fqn: t.clone() for fqn, (_, t) in prog.weights.items()}
    problems = []
    for c, call in enumerate(entry["calls"]):
        env, inputs = {}, []
        it = iter(call["inputs"])
        for name, kind, fqn in prog.args:
            if kind == "user_input":
                t = next(it)
                env[name] = torch.tensor(t["data"], dtype=torch.float32).reshape(t["shape"])
                inputs.append(env[name])
            else:
                env[name] = weights[fqn]
        for result, name, operands, attrs, shape in prog.ops:
            env[result] = run_op(name, operands, attrs, env)
            if list(env[result].shape) != shape:
                problems.append(f"call {c}: {name} gives shape {list(env[result].shape)}, type says {shape}")
        want_out = [x for x in inputs if x._version > 0] + [env[r] for r in prog.results]
        if len(want_out) != len(call["outputs"]):
            problems.append(f"call {c}: PyTorch gives {len(want_out)} outputs, the reference "
                            f"{len(call['outputs'])}")
        else:
            for i, (w, r) in enumerate(zip(want_out, call["outputs"])):
                if list(w.shape) != r["shape"] or not close(r["data"], w.reshape(-1).tolist()):
                    problems.append(f"call {c}: output {i}: reference {r}, PyTorch {w.tolist()}")
        written = {fqn: t for fqn, t in weights.items() if t._version > 0}
        if set(written) != set(call["state"]):
            problems.append(f"call {c}: PyTorch writes state {sorted(written)}, the reference "
                            f"{sorted(call['state'])}")
        for fqn, t in written.items():
            r = call["state"].get(fqn)
            if r is not None and not close(r["data"], t.reshape(-1).tolist()):
                problems.append(f"call {c}: state {fqn}: reference {r['data']}, PyTorch {t.tolist()}")
        if problems:
            break
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("state_diff")
    p.add_argument("--seeds", type=int, default=500)
    p.add_argument("--first", type=int, default=0)
    a = p.parse_args()
    torch.set_grad_enabled(False)
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "reference.jsonl")
        subprocess.run([a.state_diff, "--inplace", "--seeds", str(a.seeds), "--first",
                        str(a.first), "--dump-reference", dump], check=True,
                       stdout=subprocess.DEVNULL)
        entries = [json.loads(line) for line in open(dump)]
    failures = 0
    for e in entries:
        try:
            problems = check(e)
        except Exception as ex:  # an op PyTorch refuses is a generator bug
            problems = [f"PyTorch raises: {type(ex).__name__}: {ex}"]
        if problems:
            failures += 1
            print(f"FAIL {e['label']}:\n  " + "\n  ".join(problems[:5]))
            if failures <= 3:
                print(e["program"])
    print(f"torch_reference: {len(entries)} programs replayed in eager PyTorch "
          f"{torch.__version__}, {failures} disagree with the aliasing reference")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
