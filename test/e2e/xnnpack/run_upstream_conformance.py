#!/usr/bin/env python3
"""Runs upstream-written XNNPACK programs (test/models/upstream_xnnpack) on pte-run.

Every case directory holds a model.pte that upstream ExecuTorch's own Python
flow wrote (XnnpackPartitioner, to_executorch; written by
test/models/gen_upstream_xnnpack.py), its inputs and the outputs of upstream's
runtime (meta.json lists the calls and the tolerance). Each case runs all its
calls in ONE loaded method (pte-run --calls N: dynamic-shape cases change the
input shape from call to call) and every output is compared with upstream's:
|got - want| <= atol + rtol * |want| (float cases: atol 1e-5, rtol 1e-5; int8:
atol one quantization step of the output's scale, from meta.json).

    run_upstream_conformance.py --bin BUILD/bin [--cases DIR] [--case NAME ...]
                                [--list] [--json FILE|-] [--threads N]

Prints one line per case: PASS or FAIL with the largest |difference|, or the
error pte-run printed. --json writes a summary ({"cases": [{name, status,
max_abs_err, error, calls}], "passed", "failed"}; '-' for stdout, the lines then
go to stderr). Standard library only. Exits 0 when every selected case passes,
1 otherwise, 77 when pte-run was built without XnnpackBackend.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from run_model import read_npy  # noqa: E402

SKIP = 77
DEFAULT_CASES = os.path.normpath(os.path.join(HERE, "..", "..", "models", "upstream_xnnpack"))


def load_cases(root):
    cases = []
    for name in sorted(os.listdir(root)):
        meta = os.path.join(root, name, "meta.json")
        if os.path.isfile(meta):
            with open(meta) as f:
                cases.append((name, os.path.join(root, name), json.load(f)))
    return cases


def tolerances(meta, j):
    tol = meta["tolerance"]
    atol = tol["atol"][j] if isinstance(tol["atol"], list) else tol["atol"]
    if tol.get("kind") == "int8":
        atol *= 1.0 + 1e-6  # one step, not a rounding of it
    return atol, tol.get("rtol", 0.0)


def compare(got_path, want_path, atol, rtol):
    """(max |d|, problem or None)."""
    gd, gs, gv = read_npy(got_path)
    wd, ws, wv = read_npy(want_path)
    if gd != wd or list(gs) != list(ws):
        return None, "dtype/shape %s%s, expected %s%s" % (gd, list(gs), wd, list(ws))
    worst, bad, first = 0.0, 0, None
    for k, (g, w) in enumerate(zip(gv, wv)):
        if gd[0] == "f" and (math.isnan(g) or math.isnan(w)):
            ok = math.isnan(g) and math.isnan(w)
        elif gd[0] == "f" and (math.isinf(g) or math.isinf(w)):
            ok = g == w
        else:
            d = abs(g - w)
            worst = max(worst, d)
            ok = d <= atol + rtol * abs(w)
        if not ok:
            bad += 1
            if first is None:
                first = (k, g, w)
    if bad:
        return worst, "%d of %d elements differ (first at flat index %d: %r, expected %r)" % (
            bad, len(gv), first[0], first[1], first[2])
    return worst, None


def error_text(out):
    """The lines of pte-run's output that say what went wrong."""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    keep = [l for l in lines if any(w in l.lower() for w in ("error", "fail", "refus",
                                                             "unsupported", "not supported",
                                                             "lacks", "cannot", "invalid"))]
    return " | ".join((keep or lines[-3:])[:4])[:600]


def run_case(args, name, case_dir, meta):
    calls = meta["calls"]
    res = {"name": name, "status": "FAIL", "max_abs_err": None, "error": None,
           "calls": len(calls)}
    with tempfile.TemporaryDirectory() as tmp:
        links = os.path.join(tmp, "in")
        outdir = os.path.join(tmp, "out")
        os.makedirs(links)
        os.makedirs(outdir)
        for k, call in enumerate(calls):
            for i, f in enumerate(call["inputs"]):
                os.symlink(os.path.join(case_dir, f["file"]),
                           os.path.join(links, "in%d_%d.npy" % (i, k)))
        cmd = [os.path.join(args.bin, "pte-run"), os.path.join(case_dir, meta["pte"]),
               "--method", meta.get("method", "forward"), "--output-dir", outdir,
               "--xnnpack-threads", str(args.threads)]
        if len(calls) > 1:
            cmd += ["--calls", str(len(calls))]
        for i in range(len(calls[0]["inputs"])):
            cmd += ["--input", os.path.join(links, "in%d_{call}.npy" % i)
                    if len(calls) > 1 else os.path.join(links, "in%d_0.npy" % i)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if args.verbose:
            print(" ".join(cmd), file=sys.stderr)
            print(p.stdout, file=sys.stderr)
        if p.returncode != 0:
            text = p.stdout.replace(os.path.join(case_dir, ""), "").replace(tmp + os.sep, "")
            res["error"] = "pte-run exit %d: %s" % (p.returncode, error_text(text))
            return res
        worst, problems = 0.0, []
        for k, call in enumerate(calls):
            prefix = "call%d_" % k if len(calls) > 1 else ""
            for j, o in enumerate(call["outputs"]):
                got = os.path.join(outdir, "%soutput_%d.npy" % (prefix, j))
                if not os.path.exists(got):
                    problems.append("call %d output %d: not written" % (k, j))
                    continue
                atol, rtol = tolerances(meta, j)
                w, problem = compare(got, os.path.join(case_dir, o["file"]), atol, rtol)
                if w is not None:
                    worst = max(worst, w)
                if problem:
                    problems.append("call %d output %d: %s" % (k, j, problem))
        res["max_abs_err"] = worst
        if problems:
            res["error"] = "; ".join(problems)[:600]
        else:
            res["status"] = "PASS"
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="the folder holding pte-run")
    ap.add_argument("--cases", default=DEFAULT_CASES, help="the case folders' parent")
    ap.add_argument("--case", action="append", default=[], metavar="NAME",
                    help="run only this case (repeatable)")
    ap.add_argument("--list", action="store_true",
                    help="list the cases (name, calls, node kinds) and exit")
    ap.add_argument("--json", metavar="FILE", help="write a JSON summary ('-': stdout)")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("PTEC_XNNPACK_THREADS",
                                                                      "1") or 1))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    cases = load_cases(args.cases)
    if args.case:
        known = {c[0] for c in cases}
        unknown = [n for n in args.case if n not in known]
        if unknown:
            print("unknown case(s): %s" % ", ".join(unknown), file=sys.stderr)
            return 2
        cases = [c for c in cases if c[0] in args.case]
    if args.list:
        for name, _, meta in cases:
            nodes = sorted({k for g in meta.get("xnnpack", []) for k in g["nodes"]})
            print("%-20s calls=%d %s  %s" % (name, len(meta["calls"]),
                                             meta["tolerance"].get("kind"), " ".join(nodes)))
        return 0
    if not args.bin:
        ap.error("--bin is required")

    listing = subprocess.run([os.path.join(args.bin, "pte-run"), "--help"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if "--xnnpack-threads" not in listing:
        print("skipped: pte-run was built without XnnpackBackend")
        return SKIP

    log = sys.stderr if args.json == "-" else sys.stdout
    results = []
    for name, case_dir, meta in cases:
        r = run_case(args, name, case_dir, meta)
        results.append(r)
        err = "" if r["max_abs_err"] is None else " max|d|=%.3g" % r["max_abs_err"]
        print("%s %-20s%s%s" % (r["status"], name, err,
                                "  " + r["error"] if r["error"] else ""), file=log, flush=True)
    passed = sum(r["status"] == "PASS" for r in results)
    print("%d of %d upstream XNNPACK cases pass" % (passed, len(results)), file=log)
    if args.json:
        doc = json.dumps({"cases": results, "passed": passed,
                          "failed": len(results) - passed}, indent=1)
        if args.json == "-":
            print(doc)
        else:
            with open(args.json, "w") as f:
                f.write(doc + "\n")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
