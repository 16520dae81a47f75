#!/usr/bin/env python3
"""One lower bound everywhere: for every zoo model (and every modern fixture),
compiled without and with delegation, the compile report (--report=json),
pte-inspect --plan and the plan picture (--plan-svg) give the same planned
bytes and the same lower bound per method, and the plan is never below its
bound (docs/memory-planning.md, "The lower bound").

  plan_bound_agree.py --bin BUILD/bin --zoo test/models [--zoo test/models_modern]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def sources_of(model):
    meta = json.load(open(os.path.join(model, "meta.json")))
    if "methods" in meta:
        srcs = [f"{os.path.join(model, m['file'])}:{m['method']}" for m in meta["methods"]]
    else:
        srcs = [os.path.join(model, "model.pt2")]
    share = ["--share-mutable-buffers"] if "sequence" in meta else []
    return srcs, share


def inspect_plan(binary, pte):
    """method -> (planned, bound) from pte-inspect --plan; also every arena's
    size >= its bound."""
    out = subprocess.run([binary, "--plan", pte], capture_output=True, text=True, check=True).stdout
    result, method, problems = {}, None, []
    for line in out.splitlines():
        m = re.match(r"method (\S+): ", line)
        if m:
            method = m.group(1)
        m = re.match(r"  arena (\d+): (\d+) bytes; lower bound (\d+) bytes", line)
        if m and int(m.group(2)) < int(m.group(3)):
            problems.append(f"{method} arena {m.group(1)}: {m.group(2)} < bound {m.group(3)}")
        m = re.match(r"  plan: (\d+) bytes; lower bound (\d+) bytes", line)
        if m:
            result[method] = (int(m.group(1)), int(m.group(2)))
    return result, problems


def svg_plan(path):
    text = open(path).read()
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r'<g class="method" id="method-([^"]+)" data-planned="(\d+)" data-lower-bound="(\d+)"',
        text)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoo", action="append", required=True)
    args = ap.parse_args()
    aot = os.path.join(args.bin, "aot-compile")
    inspect = os.path.join(args.bin, "pte-inspect")
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for zoo in args.zoo:
            for name in sorted(os.listdir(zoo)):
                model = os.path.join(zoo, name)
                if not os.path.exists(os.path.join(model, "meta.json")):
                    continue
                srcs, share = sources_of(model)
                if not all(os.path.exists(s.rsplit(":", 1)[0] if not os.path.exists(s) else s)
                           for s in srcs):
                    continue
                for backend in ("none", "demo"):
                    pte = os.path.join(tmp, f"{name}.{backend}.pte")
                    rep = os.path.join(tmp, f"{name}.{backend}.json")
                    svg = os.path.join(tmp, f"{name}.{backend}.svg")
                    cmd = [aot, *srcs, *share, "--backend", backend, "-o", pte,
                           "--report=json", "--report-file", rep, "--plan-svg", svg]
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode != 0:
                        failures.append(f"{name} ({backend}): aot-compile failed: {r.stderr.strip()}")
                        continue
                    report = {m["name"]: (m["memory_plan"]["planned_bytes"],
                                          m["memory_plan"]["lower_bound_bytes"])
                              for m in json.load(open(rep))["methods"]}
                    listed, problems = inspect_plan(inspect, pte)
                    drawn = svg_plan(svg)
                    failures += [f"{name} ({backend}): {p}" for p in problems]
                    for method, (planned, bound) in sorted(report.items()):
                        checked += 1
                        seen = {"report": (planned, bound), "pte-inspect --plan": listed.get(method),
                                "--plan-svg": drawn.get(method)}
                        if len(set(seen.values())) != 1:
                            failures.append(f"{name} ({backend}) {method}: disagree: {seen}")
                        elif planned < bound:
                            failures.append(f"{name} ({backend}) {method}: plan {planned} < "
                                            f"lower bound {bound}")
                        else:
                            print(f"{name} ({backend}) {method}: plan {planned}, lower bound {bound}")
    for f in failures:
        print("FAIL: " + f)
    print(f"{checked} methods checked, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
