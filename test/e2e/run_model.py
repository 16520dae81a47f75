#!/usr/bin/env python3
"""End-to-end check of one zoo model: .pt2 -> aot-compile -> .pte -> pte-run.

Compiles every method listed in the model's meta.json into ONE program,
checks that compiling twice gives identical bytes, then runs each method on
the stored inputs and compares its outputs with PyTorch's reference outputs
(meta.json's rtol/atol). A method that mutates state (meta 'calls') is run for
every recorded call in ONE loaded program, and after each call its outputs AND
every mutated buffer are compared (the program is compiled with
--emit-state-names so pte-run can find the buffers).

A method may record several calls without state (meta 'calls' with empty
buffers_after: several input shapes of a dynamic-shape program, or inputs that
take different control-flow paths); they run the same way, in one loaded program.
Its 'refused_calls' ({"inputs": [...], "error": "<text>"}) are inputs the
runtime must refuse (e.g. a dynamic dim above its bound): pte-run must exit
non-zero and print <text> (case-insensitive).

A model with an ordered multi-method 'sequence' (llama_decoder: prefill,
then decode steps) is compiled with --share-mutable-buffers and the whole
sequence runs in ONE loaded program (pte-run --sequence), outputs and buffers
compared after every call; the same sequence must FAIL when the methods do
not share their state (compiled without sharing, or run with
--no-shared-state), so a broken sharing cannot pass unnoticed.

--matrix repeats all of it for every combination of --write-back
earliest|end, re-inplacing on|off and --backend none|demo.

Fixtures with several forms of the same program (meta 'forms', the modern
torch.export fixtures of test/models_modern written by
test/models/gen_zoo_modern.py: {"raw": {method: archive}, "decomposed": {...}})
are compiled from the archives of --form (default raw); the expected files are
the same for every form. Without 'forms' the methods' 'file' entries are used
and --form is refused.

--oracle RUNNER also runs every call (and the 'sequence') of the compiled
program on upstream ExecuTorch's runtime (executorch-runner, --out_dir) and
compares its outputs with the expected files under the same rtol/atol; state
is not visible there except through the outputs.

--compare-plan OTHER_FORM only compiles --form and OTHER_FORM and requires the
planned memory of every method of --form (pte-inspect --json: the sum of
non_const_buffer_sizes, arena 1 on) to be no larger than OTHER_FORM's (raw vs
decomposed: functionalizing in the compiler must not cost memory).

--generate GEN builds the fixture first: runs GEN --only <basename of
--model> --out <its parent> with the modern-PyTorch venv's python (PTEC_VENV,
else $XDG_CACHE_HOME/ptec/venv or ~/.cache/ptec/venv, ready when it holds
.ptec-ready, as scripts/venv.sh makes it), unless the fixture is there and
newer than GEN; exits 77 (skipped) when that venv is not ready.
Standard library only; exits non-zero on any failure.
"""
import argparse
import ast
import itertools
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def link_calls(tmp, model_dir, method, calls):
    """Per-call files under one naming pattern ('{call}' for pte-run --calls):
    in<i>_{call}.npy, out<i>_{call}.npy, state_<fqn>_{call}.npy. Returns the
    --input, --expected and --expected-state arguments."""
    d = os.path.join(tmp, "calls_" + method)
    os.makedirs(d, exist_ok=True)
    ins, outs, states = [], [], []
    for k, call in enumerate(calls):
        for i, f in enumerate(call["inputs"]):
            os.symlink(os.path.join(model_dir, f["file"]), os.path.join(d, "in%d_%d.npy" % (i, k)))
        for i, f in enumerate(call["outputs"]):
            os.symlink(os.path.join(model_dir, f["file"]), os.path.join(d, "out%d_%d.npy" % (i, k)))
        for fqn, f in call["buffers_after"].items():
            os.symlink(os.path.join(model_dir, f), os.path.join(d, "state_%s_%d.npy" % (fqn, k)))
    first = calls[0]
    for i in range(len(first["inputs"])):
        ins += ["--input", os.path.join(d, "in%d_{call}.npy" % i)]
    for i in range(len(first["outputs"])):
        outs += ["--expected", os.path.join(d, "out%d_{call}.npy" % i)]
    for fqn in first["buffers_after"]:
        states += ["--expected-state", "%s=%s" % (fqn, os.path.join(d, "state_%s_{call}.npy" % fqn))]
    return ins + outs + states + ["--calls", str(len(calls))]


def sequence_args(tmp, model_dir, seq):
    """pte-run arguments for meta 'sequence': --sequence m0,m1,... and per-call
    files under one naming pattern ('{call}'). Every call must have the same
    number of inputs and outputs and the same buffers (None otherwise)."""
    first = seq[0]
    if any(len(c["inputs"]) != len(first["inputs"]) or
           len(c["outputs"]) != len(first["outputs"]) or
           set(c["buffers_after"]) != set(first["buffers_after"]) for c in seq):
        return None
    return ["--sequence", ",".join(c["method"] for c in seq)] + \
        link_calls(tmp, os.path.abspath(model_dir), "sequence", seq)[:-2]  # no --calls


def check_sequence(args, meta, tmp, pte, unshared_pte, label):
    """Runs meta 'sequence' on `pte` (must match) and on programs whose methods do
    not share state (must not). Returns the number of failures."""
    seq_args = sequence_args(tmp, args.model, meta["sequence"])
    if seq_args is None:
        print(f"FAIL{label}: the calls of 'sequence' differ in inputs, outputs or buffers")
        return 1
    run_tool = os.path.join(args.bin, "pte-run")
    tol = ["--rtol", str(meta.get("rtol", 1e-4)), "--atol", str(meta.get("atol", 1e-5))]
    failures = 0
    rc, log = run([run_tool, pte, *seq_args, *tol])
    print(log.rstrip())
    methods = " ".join(c["method"] for c in meta["sequence"])
    if rc != 0:
        print(f"FAIL{label}: sequence ({methods}) (exit {rc})")
        failures += 1
    else:
        print(f"ok{label}: sequence of {len(meta['sequence'])} calls ({methods}) "
              f"matches PyTorch, outputs and state after every call")
    # Without shared state a later method starts from the initial state: it
    # must not match (otherwise the test could not see sharing break).
    for what, cmd in (("compiled without --share-mutable-buffers",
                       [run_tool, unshared_pte, *seq_args, *tol]),
                      ("run with --no-shared-state",
                       [run_tool, pte, *seq_args, *tol, "--no-shared-state"])):
        rc, log = run(cmd)
        if rc != 1 or "output 0 vs expected" not in log:
            print(log.rstrip())
            print(f"FAIL{label}: the sequence {what} gave exit {rc}, expected "
                  "a mismatch (exit 1)")
            failures += 1
        else:
            print(f"ok{label}: the sequence {what} does not match, as it must not")
    return failures


# --------------------------------------------------------------------------------------
# .npy files without numpy, for comparing upstream's outputs
# --------------------------------------------------------------------------------------
NPY_CODES = {"f4": ("f", 4), "f8": ("d", 8), "f2": ("e", 2), "i8": ("q", 8), "i4": ("i", 4),
             "i2": ("h", 2), "i1": ("b", 1), "u1": ("B", 1), "b1": ("?", 1)}


def read_npy(path):
    """(dtype code such as 'f4', shape, flat values in C order) of a little-endian .npy."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    if data[6] == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    if descr[0] == ">" or descr[1:] not in NPY_CODES or header.get("fortran_order"):
        raise ValueError("%s: unsupported .npy layout %s" % (path, header))
    code, size = NPY_CODES[descr[1:]]
    n = 1
    for d in shape:
        n *= d
    body = data[start + hlen:start + hlen + n * size]
    if len(body) != n * size:
        raise ValueError("%s: truncated" % path)
    return descr[1:], shape, struct.unpack("<%d%s" % (n, code), body)


def compare_npy(got_path, want_path, rtol, atol):
    """None when the arrays match (floats: |got - want| <= atol + rtol * |want|, NaN
    matches NaN; other dtypes exactly), else what differs."""
    gd, gs, gv = read_npy(got_path)
    wd, ws, wv = read_npy(want_path)
    if gd != wd or gs != ws:
        return "dtype/shape %s%s vs expected %s%s" % (gd, list(gs), wd, list(ws))
    bad, worst = 0, 0.0
    first = None
    for k, (g, w) in enumerate(zip(gv, wv)):
        if gd[0] == "f":
            if math.isnan(g) or math.isnan(w):
                ok = math.isnan(g) and math.isnan(w)
            elif math.isinf(g) or math.isinf(w):
                ok = g == w
            else:
                ok = abs(g - w) <= atol + rtol * abs(w)
                worst = max(worst, abs(g - w))
        else:
            ok = g == w
        if not ok:
            bad += 1
            if first is None:
                first = (k, g, w)
    if bad:
        return "%d of %d elements differ (first at flat index %d: %r vs %r; max |d| %g)" % (
            bad, len(gv), first[0], first[1], first[2], worst)
    return None


# --------------------------------------------------------------------------------------
# Upstream ExecuTorch's runtime as an oracle (--oracle)
# --------------------------------------------------------------------------------------
# pte-inspect's scalar type names -> (.npy code, struct code, bytes)
STATE_TYPES = {"FLOAT": ("f4", "f", 4), "LONG": ("i8", "q", 8), "INT": ("i4", "i", 4),
               "DOUBLE": ("f8", "d", 8), "BOOL": ("b1", "?", 1)}


def state_locations(args, pte):
    """{method: {fqn: (memory_id, offset, scalar type, numel)}} of the planned
    tensors that carry a fully qualified name (--emit-state-names)."""
    rc, log = run([os.path.join(args.bin, "pte-inspect"), pte, "--json", "--elide-bytes"])
    if rc != 0:
        raise RuntimeError(log)
    prog = json.loads(log)
    prog = prog.get("program", prog)
    out = {}
    for plan in prog["execution_plan"]:
        found = out.setdefault(plan["name"], {})
        for v in plan["values"]:
            t = v["val"] if v["val_type"] == "Tensor" else None
            fqn = ((t or {}).get("extra_tensor_info") or {}).get("fully_qualified_name")
            alloc = (t or {}).get("allocation_info")
            if not fqn or not alloc:
                continue
            numel = 1
            for d in t["sizes"]:
                numel *= d
            offset = alloc.get("memory_offset_low", 0) + (alloc.get("memory_offset_high", 0) << 32)
            found[fqn] = (alloc.get("memory_id", 0), offset, t["scalar_type"], numel)
    return out


def oracle_state(args, meta, pte, dumps, methods, calls, what):
    """Compares each call's buffers (meta 'buffers_after') with what upstream's runtime
    left in its arenas (--dump-arenas). Returns (failures, buffers checked)."""
    where = state_locations(args, pte)
    rtol, atol = meta.get("rtol", 1e-4), meta.get("atol", 1e-5)
    failures = checked = 0
    for k, (method, call) in enumerate(zip(methods, calls)):
        for fqn, f in sorted(call.get("buffers_after", {}).items()):
            loc = where.get(method, {}).get(fqn)
            if loc is None or loc[2] not in STATE_TYPES:
                print(f"FAIL oracle: {what} call {k}: buffer '{fqn}' is not a named planned "
                      "tensor of a known type in the program")
                failures += 1
                continue
            mem, offset, stype, numel = loc
            code, fmt, size = STATE_TYPES[stype]
            with open(os.path.join(dumps, "call%d_arena%d.bin" % (k, mem)), "rb") as fh:
                fh.seek(offset)
                raw = fh.read(numel * size)
            wd, ws, wv = read_npy(os.path.join(os.path.abspath(args.model), f))
            if len(raw) != numel * size or wd != code:
                print(f"FAIL oracle: {what} call {k}: buffer '{fqn}' is {stype}[{numel}], "
                      f"expected {wd}{list(ws)}")
                failures += 1
                continue
            got = struct.unpack("<%d%s" % (numel, fmt), raw)
            bad = [i for i, (g, w) in enumerate(zip(got, wv))
                   if not (abs(g - w) <= atol + rtol * abs(w) if code[0] == "f" else g == w)]
            checked += 1
            if bad:
                print(f"FAIL oracle: {what} call {k}: buffer '{fqn}': {len(bad)} of {numel} "
                      f"elements differ (first at {bad[0]}: {got[bad[0]]!r} vs {wv[bad[0]]!r})")
                failures += 1
    return failures, checked


def oracle_run(args, meta, tmp, pte, what, method_args, calls, methods):
    """Runs executorch-runner on `pte` for `calls` (dicts with inputs/outputs, in call
    order; method_args selects --method/--calls or --sequence; `methods` names each
    call's method) and compares every output and every buffer after each call with
    the expected files. Returns the number of failures."""
    d = os.path.join(tmp, "oracle_%d" % len(os.listdir(tmp)))
    out = os.path.join(d, "out")
    os.makedirs(out)
    dumps = os.path.join(d, "arenas")
    os.makedirs(dumps)
    model = os.path.abspath(args.model)
    for k, call in enumerate(calls):
        for i, f in enumerate(call["inputs"]):
            os.symlink(os.path.join(model, f["file"]), os.path.join(d, "in%d_%d.npy" % (i, k)))
    ins = []
    for i in range(len(calls[0]["inputs"])):
        ins += ["--input", os.path.join(d, "in%d_{call}.npy" % i)]
    rc, log = run([args.oracle, pte, *method_args, *ins, "--out_dir", out, "--no-print",
                   "--dump-arenas", dumps])
    if rc != 0:
        print(log.rstrip())
        print(f"FAIL oracle: {what} on upstream's runtime (exit {rc})")
        return 1
    rtol, atol = meta.get("rtol", 1e-4), meta.get("atol", 1e-5)
    if getattr(args, "oracle_atol", None) is not None:
        # A stated upstream kernel difference for this case, never a default.
        atol = args.oracle_atol
        print(f"note oracle: atol {atol} for upstream's runtime: {args.oracle_reason}")
    failures = 0
    for k, call in enumerate(calls):
        for i, o in enumerate(call["outputs"]):
            got = os.path.join(out, "call%d_out%d.npy" % (k, i))
            if not os.path.exists(got):
                print(f"FAIL oracle: {what} call {k} wrote no output {i}")
                failures += 1
                continue
            diff = compare_npy(got, os.path.join(model, o["file"]), rtol, atol)
            if diff:
                print(f"FAIL oracle: {what} call {k} output {i}: {diff}")
                failures += 1
    bad_state, checked = oracle_state(args, meta, pte, dumps, methods, calls, what)
    failures += bad_state
    if not failures:
        state = f"outputs and {checked} buffer state(s)" if checked else "outputs"
        print(f"ok oracle: {what} on upstream's runtime matches PyTorch "
              f"({len(calls)} call(s), {state})")
    return failures


def oracle_checks(args, meta, tmp, pte, label):
    failures = 0
    for m in meta["methods"]:
        calls = m.get("calls", [m])
        margs = ["--method", m["method"]] + (["--calls", str(len(calls))] if len(calls) > 1 else [])
        failures += oracle_run(args, meta, tmp, pte, f"method {m['method']}{label}", margs, calls,
                               [m["method"]] * len(calls))
    if "sequence" in meta:
        seq = meta["sequence"]
        failures += oracle_run(args, meta, tmp, pte, f"sequence{label}",
                               ["--sequence", ",".join(c["method"] for c in seq)], seq,
                               [c["method"] for c in seq])
    return failures


# --------------------------------------------------------------------------------------
# Forms (meta 'forms'), planned memory, on-demand generation
# --------------------------------------------------------------------------------------
def select_form(meta, form):
    """Points every method's 'file' at `form`'s archive. Returns an error or None."""
    forms = meta.get("forms")
    if not forms:
        return "meta.json has no 'forms'; --form and --compare-plan need them"
    if form not in forms:
        return f"no form '{form}' (meta 'forms': {', '.join(sorted(forms))})"
    for m in meta["methods"]:
        if m["method"] not in forms[form]:
            return f"form '{form}' has no archive for method {m['method']}"
        m["file"] = forms[form][m["method"]]
    return None


def planned_memory(args, meta, tmp, form):
    """{method: planned bytes} of the program compiled from `form` (sum of
    non_const_buffer_sizes from arena 1 on), or an error string."""
    meta = json.loads(json.dumps(meta))
    err = select_form(meta, form)
    if err:
        return err
    sources = [f"{os.path.join(args.model, m['file'])}:{m['method']}" for m in meta["methods"]]
    share = ["--share-mutable-buffers"] if "sequence" in meta else []
    pte = os.path.join(tmp, f"plan_{form}.pte")
    rc, log = run([os.path.join(args.bin, "aot-compile"), *sources, "-o", pte, *share])
    if rc != 0:
        return f"compiling the {form} form failed ({rc}):\n{log}"
    p = subprocess.run([os.path.join(args.bin, "pte-inspect"), pte, "--json", "--elide-bytes"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return f"pte-inspect failed on the {form} form:\n{p.stdout}{p.stderr}"
    # pte-inspect writes non-finite doubles as flatc does (inf, -inf, nan), which is
    # not JSON; only the plans are needed here.
    js = re.sub(r"([:\[,]\s*)(-?)inf\b", r"\1\2Infinity", p.stdout)
    js = re.sub(r"([:\[,]\s*)-?nan\b", r"\1NaN", js)
    try:
        prog = json.loads(js)
    except ValueError as e:
        return f"pte-inspect --json output of the {form} form does not parse: {e}"
    prog = prog.get("program", prog)
    return {p["name"]: sum(p.get("non_const_buffer_sizes", [0])[1:])
            for p in prog["execution_plan"]}


def compare_plan(args, meta):
    with tempfile.TemporaryDirectory() as tmp:
        mine = planned_memory(args, meta, tmp, args.form)
        other = planned_memory(args, meta, tmp, args.compare_plan)
    for name, got in ((args.form, mine), (args.compare_plan, other)):
        if isinstance(got, str):
            print(f"FAIL plan: {got}")
            return 1
    failures = 0
    for method in sorted(mine):
        a, b = mine[method], other.get(method)
        if b is None:
            print(f"FAIL plan: method {method} is missing from the {args.compare_plan} form")
            failures += 1
        elif a > b:
            print(f"FAIL plan: method {method}: the {args.form} form plans {a} bytes, "
                  f"more than the {args.compare_plan} form's {b}")
            failures += 1
        else:
            print(f"ok plan: method {method}: {args.form} {a} bytes <= "
                  f"{args.compare_plan} {b} bytes")
    print(f"{meta['name']}: planned memory {args.form} vs {args.compare_plan} "
          f"{'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ptec_venv import venv_python as modern_python  # noqa: E402


def generate(args):
    """--generate: makes the fixture unless it is newer than the generator. Returns 0,
    77 (no venv: skipped) or the generator's failure."""
    model = os.path.abspath(args.model)
    meta = os.path.join(model, "meta.json")
    gen = os.path.abspath(args.generate)
    deps = [gen, os.path.join(os.path.dirname(gen), "zoo_calls.py")]
    newest = max(os.path.getmtime(f) for f in deps if os.path.exists(f))
    if os.path.exists(meta) and os.path.getmtime(meta) >= newest:
        print(f"{model}: up to date")
        return 0
    py = modern_python()
    if py is None:
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        return 77
    cmd = [py, gen, "--only", os.path.basename(model), "--out", os.path.dirname(model)]
    print("generating: " + " ".join(cmd))
    sys.stdout.flush()
    rc = subprocess.call(cmd)
    if rc != 0:
        print(f"FAIL: the generator exited {rc}")
        return 1
    return 0


def check(args, meta, tmp, options, label):
    """Compile with `options`, check determinism and delegates, run every method.
    Returns the number of failures."""
    methods = meta["methods"]
    aot = os.path.join(args.bin, "aot-compile")
    run_tool = os.path.join(args.bin, "pte-run")
    inspect = os.path.join(args.bin, "pte-inspect")
    failures = 0
    sources = [f"{os.path.join(args.model, m['file'])}:{m['method']}" for m in methods]
    share = ["--share-mutable-buffers"] if "sequence" in meta else []
    outs = []
    for k in range(3 if share else 2):
        out = os.path.join(tmp, f"model{k}.pte")
        # Shape rules after every pass too: a pass that breaks them fails here.
        # (The third program, for the sequence check, shares nothing.)
        rc, log = run([aot, *sources, "-o", out, "--emit-state-names",
                       "--exir-verify-each", *options, *(share if k < 2 else [])])
        if rc != 0:
            print(f"FAIL compile{label} ({rc}):\n{log}")
            return 1
        outs.append(out)
    if open(outs[0], "rb").read() != open(outs[1], "rb").read():
        print(f"FAIL{label}: compiling twice gave different bytes")
        failures += 1
    else:
        print(f"ok{label}: deterministic ({os.path.getsize(outs[0])} bytes)")

    if args.expect_delegates is not None and os.path.exists(inspect):
        rc, js = run([inspect, outs[0], "--json", "--elide-bytes"])
        if rc != 0:
            print(f"FAIL pte-inspect:\n{js}")
            failures += 1
        else:
            prog = json.loads(js)
            program = prog.get("program", prog)
            for plan in program["execution_plan"]:
                n = len(plan.get("delegates", []))
                if n != args.expect_delegates:
                    print(f"FAIL: method {plan['name']} has {n} delegate entries, "
                          f"expected {args.expect_delegates}")
                    failures += 1
                else:
                    print(f"ok: method {plan['name']} has {n} delegate entries")

    for m in methods:
        cmd = [run_tool, outs[0], "--method", m["method"],
               "--rtol", str(meta.get("rtol", 1e-4)), "--atol", str(meta.get("atol", 1e-5))]
        if "calls" in m:
            cmd += link_calls(tmp, args.model, m["method"], m["calls"])
        else:
            for i in m["inputs"]:
                cmd += ["--input", os.path.join(args.model, i["file"])]
            for o in m["outputs"]:
                cmd += ["--expected", os.path.join(args.model, o["file"])]
        rc, log = run(cmd)
        print(log.rstrip())
        if rc != 0:
            print(f"FAIL{label}: method {m['method']} (exit {rc})")
            failures += 1
        else:
            n = len(m.get("calls", [m]))
            print(f"ok{label}: method {m['method']} matches PyTorch over {n} call(s)")
        for k, call in enumerate(m.get("refused_calls", [])):
            cmd = [run_tool, outs[0], "--method", m["method"]]
            for i in call["inputs"]:
                cmd += ["--input", os.path.join(args.model, i["file"])]
            rc, log = run(cmd)
            shapes = [i["shape"] for i in call["inputs"]]
            if rc == 0 or call["error"].lower() not in log.lower():
                print(log.rstrip())
                print(f"FAIL{label}: method {m['method']} with inputs of shapes {shapes} "
                      f"must be refused (exit {rc}, want non-zero and '{call['error']}')")
                failures += 1
            else:
                print(f"ok{label}: method {m['method']} refuses inputs of shapes {shapes}: "
                      f"{log.strip().splitlines()[-1] if log.strip() else ''}")
    if share:
        failures += check_sequence(args, meta, tmp, outs[0], outs[2], label)
    # (getattr: other scripts call check() with their own argument namespace)
    if getattr(args, "oracle", None):
        failures += oracle_checks(args, meta, tmp, outs[0], label)
    if getattr(args, "pybind", False):
        failures += pybind_checks(args, outs[0], label)
    return failures


def pybind_checks(args, pte, label):
    """--pybind: the same file on the executorch package's runtime bindings (the venv's
    python; a note, not a failure, where the venv is missing)."""
    py = modern_python()
    if py is None:
        print(f"note pybind{label}: no modern-PyTorch venv (scripts/venv.sh); not run")
        return 0
    extra = ["--atol", str(args.oracle_atol)] if getattr(args, "oracle_atol", None) else []
    rc, log = run([py, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pybind_run.py"),
                   "--pte", pte, "--model", os.path.abspath(args.model), *extra])
    lines = [l for l in log.splitlines() if l.startswith(("ok pybind", "FAIL pybind"))]
    for l in lines:
        print(l.replace(" on the", f"{label} on the", 1))
    if rc != 0:
        if not any(l.startswith("FAIL") for l in lines):
            print(log.rstrip())
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="directory with aot-compile and pte-run")
    ap.add_argument("--model", required=True, help="zoo model directory (has meta.json)")
    ap.add_argument("--backend", default="none")
    ap.add_argument("--write-back", default="earliest")
    ap.add_argument("--no-reinplace", action="store_true")
    ap.add_argument("--matrix-backends", default="none,demo",
                    help="backends --matrix tries (comma-separated; add xnnpack where the "
                         "XNNPACK runtime is built)")
    ap.add_argument("--matrix", action="store_true",
                    help="every write-back x re-inplacing x backend(none, demo) combination")
    ap.add_argument("--expect-delegates", type=int, default=None,
                    help="require this many delegate entries in every method")
    ap.add_argument("--form", choices=["raw", "decomposed"], default=None,
                    help="which of meta 'forms' to compile (default: raw where the "
                         "fixture has forms)")
    ap.add_argument("--oracle-atol", type=float, default=None,
                    help="absolute tolerance on upstream's runtime for a known kernel "
                         "difference (needs --oracle-reason)")
    ap.add_argument("--oracle-reason", default=None,
                    help="why upstream's kernels differ here (printed with every run)")
    ap.add_argument("--pybind", action="store_true",
                    help="also run every method's calls on the executorch package's runtime "
                         "bindings (the modern-PyTorch venv)")
    ap.add_argument("--oracle", default=None, metavar="RUNNER",
                    help="also run every call and sequence on upstream's "
                         "executorch-runner and compare its outputs")
    ap.add_argument("--compare-plan", default=None, metavar="OTHER_FORM",
                    help="only compare planned memory: --form's must not exceed "
                         "OTHER_FORM's, per method")
    ap.add_argument("--generate", default=None, metavar="GEN",
                    help="generate the fixture with GEN (modern-PyTorch venv) first; "
                         "exit 77 when that venv is not ready")
    args = ap.parse_args()
    if (args.oracle_atol is None) != (args.oracle_reason is None):
        ap.error("--oracle-atol and --oracle-reason go together")
    args.model = os.path.abspath(args.model)  # the per-call files are symlinks to it

    if args.generate:
        rc = generate(args)
        if rc != 0:
            return rc
    meta = json.load(open(os.path.join(args.model, "meta.json")))
    form = args.form
    if form is None and (meta.get("forms") or args.compare_plan):
        form = args.form = "raw"
    if args.compare_plan:
        return compare_plan(args, meta)
    if form is not None:
        err = select_form(meta, form)
        if err:
            print(f"error: {err}")
            return 2
    if args.matrix:
        combos = list(itertools.product(["earliest", "end"], [False, True],
                                        args.matrix_backends.split(",")))
    else:
        combos = [(args.write_back, args.no_reinplace, args.backend)]
    failures = 0
    for wb, noreinplace, backend in combos:
        options = ["--backend", backend, "--write-back", wb] + \
            (["--no-reinplace"] if noreinplace else [])
        label = f" [{' '.join(options)}]" if args.matrix else ""
        with tempfile.TemporaryDirectory() as tmp:
            failures += check(args, meta, tmp, options, label)
    shown = f"{meta['name']} [{form} form]" if form else meta["name"]
    print(f"{shown}: {'FAILED' if failures else 'passed'} "
          f"({len(combos)} option combination(s))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
