#!/usr/bin/env python3
"""One delegate handle shared across calls vs one handle per call.

Compiles the ten_calls zoo model (step(x) = sin(mm(a, x) + b), 10 calls)
through the demo backend with shared handles (the default) and with
--no-share-delegates, then loads and runs each program with pte-run several
times (fresh process each time) and prints, side by side: call sites,
delegate entries, backend init() calls observed by the runtime, program
load time, method init time (every delegate's init) and peak RSS (medians).
Two partitions: `demo` (mm-then-add and sin: 2 lowered modules x 10 calls)
and `demo:ops=sin` (1 lowered module x 10 calls). Ratios are unshared over
shared, from the same invocation.

Usage:
  bench/delegate_sharing_bench.py [--bin-dir BUILD/bin] [--runs N]
Python 3 standard library only.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "test", "models", "ten_calls")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def measure(bin_dir, pte, runs):
    inspect = run([os.path.join(bin_dir, "pte-inspect"), pte])
    calls = int(re.search(r"\((\d+) DelegateCall", inspect).group(1))
    loads, inits, rss, entries, init_calls = [], [], [], 0, 0
    for _ in range(runs):
        out = run([os.path.join(bin_dir, "pte-run"), pte,
                   "--input", os.path.join(MODEL, "input_0.npy")])
        d = re.search(r"delegates: (\d+) entries, init calls: \S+=(\d+)", out)
        t = re.search(r"load ([\d.]+) ms, method init ([\d.]+) ms.*peak RSS ([\d.]+) MiB", out)
        entries, init_calls = int(d.group(1)), int(d.group(2))
        loads.append(float(t.group(1)))
        inits.append(float(t.group(2)))
        rss.append(float(t.group(3)))
    return {"calls": calls, "entries": entries, "inits": init_calls,
            "load": statistics.median(loads), "init": statistics.median(inits),
            "rss": statistics.median(rss), "size": os.path.getsize(pte)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    aot = os.path.join(args.bin_dir, "aot-compile")
    print(f"ten_calls, {args.runs} runs each (medians)\n")
    print(f"{'backend':<14}{'handles':<10}{'calls':>6}{'entries':>8}{'init()':>8}"
          f"{'load ms':>9}{'init ms':>9}{'peak RSS MiB':>14}{'.pte bytes':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("demo", "demo:ops=sin"):
            rows = {}
            for mode, flags in (("shared", []), ("unshared", ["--no-share-delegates"])):
                pte = os.path.join(tmp, f"{backend.replace(':', '_')}_{mode}.pte")
                run([aot, os.path.join(MODEL, "model.pt2"), "--backend", backend, *flags, "-o", pte])
                r = rows[mode] = measure(args.bin_dir, pte, args.runs)
                print(f"{backend:<14}{mode:<10}{r['calls']:>6}{r['entries']:>8}{r['inits']:>8}"
                      f"{r['load']:>9.3f}{r['init']:>9.3f}{r['rss']:>14.1f}{r['size']:>12}")
            s, u = rows["shared"], rows["unshared"]
            ratio = lambda k: u[k] / s[k] if s[k] else float("nan")
            print(f"{'':<14}{'ratio':<10}{'':>6}{ratio('entries'):>7.1f}x{ratio('inits'):>7.1f}x"
                  f"{ratio('load'):>8.2f}x{ratio('init'):>8.2f}x{ratio('rss'):>13.2f}x"
                  f"{ratio('size'):>11.2f}x\n")


if __name__ == "__main__":
    main()
