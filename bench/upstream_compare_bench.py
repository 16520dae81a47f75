#!/usr/bin/env python3
"""The same ExportedProgram through ExecuTorch's Python flow and through ptec.

For each modern fixture (test/models_modern, the raw torch.export form) and each
backend (portable kernels, XNNPACK), compiles the same archives with upstream's
`to_edge_transform_and_lower` + `to_executorch` (bench/upstream_export.py in the
modern-PyTorch venv) and with `aot-compile`, then reports side by side, measured
in this one run:

- compile wall time and peak RSS of each whole process (median of --repeat runs,
  interleaved), and the Python start-up (importing torch and executorch) alone;
- planned arena bytes per method and its peak-live lower bound (pte-inspect --plan),
  the .pte size, delegate entries and instructions;
- run time of the first method (p50 of --runs) of both files on upstream's runtime
  (../shared/oracle/bin/executorch-runner) and on pte-run, and pte-run's load+init;
- whether both files give the fixture's outputs on upstream's runtime.

    bench/upstream_compare_bench.py [--bin-dir build/bin] [--only NAME ...] [--repeat 3]
                              [--runs 50] [--markdown FILE]

Standard library only (the upstream half runs in the venv: PTEC_VENV, else
~/.cache/ptec/venv). Exits 77 when the venv or the oracle runner is missing.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import run_model  # noqa: E402  (compare_npy, modern_python)

MODERN = os.path.join(ROOT, "test", "models_modern")
ORACLE = os.path.join(ROOT, "..", "shared", "oracle", "bin", "executorch-runner")
SKIP = 77


def measure(cmd):
    """(exit status, wall seconds, peak RSS in MiB, output) of one whole process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, usage.ru_maxrss / 1024.0, out.decode(errors="replace")


def inspect(bin_dir, pte):
    """{method: (arena bytes, lower bound, delegates, instructions)} and the file size."""
    out = subprocess.run([os.path.join(bin_dir, "pte-inspect"), pte, "--json", "--elide-bytes"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    prog = json.loads(out)
    prog = prog.get("program", prog)
    plan_text = subprocess.run([os.path.join(bin_dir, "pte-inspect"), pte, "--plan"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    # "method NAME: ..." headers, then "arena K: N bytes; peak live M bytes" lines.
    bounds, current = {}, None
    for line in plan_text.splitlines():
        m = re.match(r"method (\S+):", line)
        if m:
            current = m.group(1)
        m = re.search(r"arena \d+: (\d+) bytes; peak live (\d+) bytes", line)
        if m and current:
            bounds[current] = bounds.get(current, 0) + int(m.group(2))
    methods = {}
    for p in prog["execution_plan"]:
        arena = sum(p.get("non_const_buffer_sizes", [0])[1:])
        instrs = sum(len(c.get("instructions", [])) for c in p.get("chains", []))
        methods[p["name"]] = (arena, bounds.get(p["name"]), len(p.get("delegates", [])), instrs)
    return methods, os.path.getsize(pte)


def first_call(meta, method):
    m = next(x for x in meta["methods"] if x["method"] == method)
    call = (m.get("calls") or [m])[0]
    return call


def run_oracle(pte, method, inputs, out_dir, runs):
    """(p50 ms or None, output files or error text) on upstream's runtime."""
    os.makedirs(out_dir, exist_ok=True)
    cmd = [ORACLE, pte, "--method", method, "--no-print"]
    for f in inputs:
        cmd += ["--input", f]
    p = subprocess.run(cmd + ["--out_dir", out_dir], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return None, [l.replace(pte, os.path.basename(pte))
                      for l in p.stdout.strip().splitlines()[-1:]] or ["failed"]
    p = subprocess.run(cmd + ["--repeat", str(runs)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    m = re.search(r"p50 ([0-9.]+) ms", p.stdout)
    outs = sorted(f for f in os.listdir(out_dir) if f.startswith("call0_out"))
    return (float(m.group(1)) if m else None), [os.path.join(out_dir, f) for f in outs]


def run_ptec(bin_dir, pte, method, inputs, expected, runs):
    """(p50 ms, load ms, init ms, outputs agree) on pte-run, or Nones."""
    base = [os.path.join(bin_dir, "pte-run"), pte, "--method", method]
    for f in inputs:
        base += ["--input", f]
    p = subprocess.run(base + ["--repeat", str(runs)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    m = re.search(r"load ([0-9.]+) ms, method init ([0-9.]+) ms, run \(\d+\) p50 ([0-9.]+) ms",
                  p.stdout)
    if p.returncode != 0 or not m:
        why = " ".join(p.stdout.strip().splitlines()[-1:]).replace(pte, os.path.basename(pte))
        return None, None, None, "fails: " + why
    check = subprocess.run(base + [a for f in expected for a in ("--expected", f)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return (float(m.group(3)), float(m.group(1)), float(m.group(2)),
            "yes" if check.returncode == 0 else "no")


def agree(outs, call, model_dir, rtol, atol):
    if not outs or len(outs) != len(call["outputs"]):
        return "no outputs"
    for got, want in zip(outs, call["outputs"]):
        if run_model.compare_npy(got, os.path.join(model_dir, want["file"]), rtol, atol):
            return "no"
    return "yes"


def compare(args, name, py, tmp):
    model_dir = os.path.join(MODERN, name)
    meta = json.load(open(os.path.join(model_dir, "meta.json")))
    methods = meta["forms"]["raw"]
    share = len(methods) > 1
    rows = []
    for backend in ("portable", "xnnpack"):
        ptec_pte = os.path.join(tmp, f"{name}_{backend}_ptec.pte")
        up_pte = os.path.join(tmp, f"{name}_{backend}_upstream.pte")
        ptec_cmd = [os.path.join(args.bin_dir, "aot-compile"),
                    *[f"{os.path.join(model_dir, f)}:{m}" for m, f in methods.items()],
                    "-o", ptec_pte]
        up_cmd = [py, os.path.join(HERE, "upstream_export.py"), "--backend", backend,
                  *[a for m, f in methods.items()
                    for a in ("--method", f"{m}={os.path.join(model_dir, f)}")],
                  "-o", up_pte]
        if backend == "xnnpack":
            ptec_cmd += ["--backend", "xnnpack"]
        if share:
            ptec_cmd.append("--share-mutable-buffers")
            up_cmd.append("--share-mutable-buffers")
        times = {"ptec": [], "upstream": []}
        rss = {"ptec": 0.0, "upstream": 0.0}
        errors = {}
        upstream_form = "raw"
        for _ in range(args.repeat):  # interleaved
            for who in ("upstream", "ptec"):
                cmd = up_cmd if who == "upstream" else ptec_cmd
                rc, wall, mib, out = measure(cmd)
                if rc != 0 and who == "upstream" and upstream_form == "raw" and \
                        "decomposed" in meta["forms"]:
                    # Upstream refuses torch's raw training-IR form: give it torch's
                    # own run_decompositions() output instead (stated in the table).
                    errors["upstream (raw form)"] = refusal(out, rc)
                    dec = meta["forms"]["decomposed"]
                    up_cmd = [a if not a.startswith(tuple(f"{m}=" for m in dec)) else
                              f"{a.split('=', 1)[0]}={os.path.join(model_dir, dec[a.split('=', 1)[0]])}"
                              for a in up_cmd]
                    upstream_form = "decomposed"
                    rc, wall, mib, out = measure(up_cmd)
                if rc != 0:
                    errors[who] = refusal(out, rc)
                    continue
                times[who].append(wall)
                rss[who] = max(rss[who], mib)
        row = {"model": name, "backend": backend, "errors": errors,
               "upstream_form": upstream_form,
               "compile_s": {k: statistics.median(v) if v else None for k, v in times.items()},
               "rss_mib": rss, "methods": {}, "size": {}, "run": {}}
        first = next(iter(methods))
        call = first_call(meta, first)
        inputs = [os.path.join(model_dir, f["file"]) for f in call["inputs"]]
        for who, pte in (("ptec", ptec_pte), ("upstream", up_pte)):
            if who in errors or not os.path.exists(pte):
                continue
            per_method, size = inspect(args.bin_dir, pte)
            row["methods"][who] = per_method
            row["size"][who] = size
            p50_up, outs = run_oracle(pte, first, inputs, os.path.join(tmp, f"o_{name}_{backend}_{who}"),
                                      args.runs)
            expected = [os.path.join(model_dir, f["file"]) for f in call["outputs"]]
            p50_pr, load, init, pr_agrees = run_ptec(args.bin_dir, pte, first, inputs, expected,
                                                     args.runs)
            row["run"][who] = {"oracle_p50_ms": p50_up, "ptec_p50_ms": p50_pr,
                               "ptec_load_ms": load, "ptec_init_ms": init,
                               "pte_run_agrees": pr_agrees,
                               "agrees": agree(outs, call, model_dir, meta.get("rtol", 1e-4),
                                               meta.get("atol", 1e-5))
                               if p50_up is not None else "fails: " + " ".join(outs)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def refusal(out, rc):
    """The first line of a refusal: upstream_export.py's JSON 'error', else the
    first line naming an error."""
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line).get("error", f"exit {rc}")[:300]
            except ValueError:
                pass
    lines = [l for l in out.splitlines() if "error" in l] or out.strip().splitlines()[-1:]
    return (lines[0] if lines else f"exit {rc}")[:300]


def fmt(v, spec="{:.2f}"):
    return "-" if v is None else spec.format(v)


def ratio(a, b):
    return "-" if not a or not b else "{:.1f}x".format(b / a)


def markdown(rows, startup, command):
    out = [f"Command: `{command}`", "",
           f"Python start-up alone (import torch, executorch, XnnpackPartitioner): "
           f"{startup[0]:.2f} s, {startup[1]:.0f} MiB peak RSS.", "",
           "| model | backend | compile s upstream / ptec (ratio) | peak RSS MiB upstream / ptec | "
           ".pte bytes upstream / ptec | method: arena upstream / ptec (lower bound ptec) | "
           "delegates, instructions upstream / ptec | run p50 ms on upstream's runtime "
           "upstream / ptec file | run p50 ms on pte-run upstream / ptec file | "
           "outputs agree on upstream's runtime, upstream / ptec file | "
           "outputs agree on pte-run, upstream / ptec file |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c, m = r["compile_s"], r["rss_mib"]
        arenas, shape = [], []
        for meth in sorted(set(r["methods"].get("ptec", {})) | set(r["methods"].get("upstream", {}))):
            u = r["methods"].get("upstream", {}).get(meth)
            p = r["methods"].get("ptec", {}).get(meth)
            arenas.append(f"{meth}: {u[0] if u else '-'} / {p[0] if p else '-'}"
                          f" ({p[1] if p and p[1] is not None else '-'})")
            shape.append(f"{meth}: {u[2] if u else '-'},{u[3] if u else '-'} / "
                         f"{p[2] if p else '-'},{p[3] if p else '-'}")
        ru, rp = r["run"].get("upstream", {}), r["run"].get("ptec", {})
        err = "; ".join(f"{k} refused: {v.replace('|', '/')}" for k, v in r["errors"].items())
        model = r["model"] + (" (upstream: decomposed form)"
                              if r.get("upstream_form") == "decomposed" else "")
        out.append("| {} | {} | {} / {} ({}) | {} / {} | {} / {} | {} | {} | {} / {} | {} / {} | {} / {} | {} / {} |"
                   .format(model, r["backend"], fmt(c["upstream"]), fmt(c["ptec"], "{:.3f}"),
                           ratio(c["ptec"], c["upstream"]),
                           fmt(m["upstream"] or None, "{:.0f}"), fmt(m["ptec"] or None, "{:.0f}"),
                           r["size"].get("upstream", "-"), r["size"].get("ptec", "-"),
                           "<br>".join(arenas) or "-", "<br>".join(shape) or "-",
                           fmt(ru.get("oracle_p50_ms"), "{:.3f}"),
                           fmt(rp.get("oracle_p50_ms"), "{:.3f}"),
                           fmt(ru.get("ptec_p50_ms"), "{:.3f}"), fmt(rp.get("ptec_p50_ms"), "{:.3f}"),
                           ru.get("agrees", "-"), rp.get("agrees", "-"),
                           ru.get("pte_run_agrees", "-"), rp.get("pte_run_agrees", "-")) +
                   (f"\n| | | {err} | | | | | | | | |" if err else ""))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--only", nargs="*", help="fixture names (default: every committed one)")
    ap.add_argument("--repeat", type=int, default=3, help="compiles per flow (median)")
    ap.add_argument("--runs", type=int, default=50, help="timed calls per run")
    ap.add_argument("--markdown", help="also write the table here")
    args = ap.parse_args()
    py = run_model.modern_python()
    if not py or not os.path.exists(ORACLE):
        print("skipped: needs the modern-PyTorch venv (scripts/venv.sh) and the oracle runner")
        return SKIP
    names = args.only or sorted(
        d for d in os.listdir(MODERN)
        if os.path.exists(os.path.join(MODERN, d, "meta.json")) and
        "raw" in json.load(open(os.path.join(MODERN, d, "meta.json"))).get("forms", {}))
    _, s_wall, s_rss, _ = measure([py, "-W", "ignore", "-c",
                                   "import torch, executorch.exir; from executorch.backends."
                                   "xnnpack.partition.xnnpack_partitioner import "
                                   "XnnpackPartitioner"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            rows += compare(args, n, py, tmp)
    # The command as run, without machine paths (the build's bin/ and the table file).
    shown, skip = [], False
    for a in sys.argv[1:]:
        if skip:
            skip = False
            continue
        if a in ("--bin-dir", "--markdown"):
            skip = True
            continue
        shown.append(a)
    command = "bench/upstream_compare_bench.py " + " ".join(shown)
    table = markdown(rows, (s_wall, s_rss), command.strip())
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
