#!/usr/bin/env python3
"""XNNPACK speed, measured side by side in one run: the same .pte on pte-run and on
upstream's runtime, at 1 and 2 threads, float and int8.

Models (bench/xnnpack/make_speed_models.py writes them with the modern-PyTorch venv):
ResNet-18 and MobileNet-V2 at 64x64, float and PT2E int8. Each is compiled by ptec
(--backend xnnpack, and portable kernels only); upstream's own flow writes a third file.
Every (file, runtime, threads) is timed in R alternating rounds; each round is one
process that runs W warm-up calls, then N timed calls, and reports their median; the
table gives the median over rounds. pte-run: `--warmup W --repeat N --json`;
upstream's runner: `--repeat N` (it warms up once itself; W extra calls are not
available there, so its process runs N + W calls and times N).

Goals checked at the end (printed as held / missed):
  - pte-run <= 1.0x upstream's runtime on the same file, at 1 and 2 threads;
  - float ResNet-18 on XNNPACK >= 2.5x portable kernels at 1 thread;
  - int8 >= 1.5x float (same runtime, 1 thread);
  - 2 threads >= 1.6x 1 thread on ResNet-18.

Usage:
  bench/xnnpack_speed_bench.py [--bin-dir BUILD/bin] [--runner RUNNER] [--models-dir DIR]
                               [--rounds R] [--repeat N] [--warmup W] [--markdown]
Exit 0 when measured (whatever the goals say), 77 when a tool or the venv is missing.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77
MODELS = ["resnet18", "resnet18_int8", "mobilenet_v2", "mobilenet_v2_int8"]


def venv_python():
    r = subprocess.run([os.path.join(ROOT, "scripts", "venv.sh")], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None
    py = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    return py if os.path.exists(py) else None


def ensure_models(args):
    missing = [m for m in MODELS
               if not os.path.exists(os.path.join(args.models_dir, m, "upstream.pte"))]
    if not missing:
        return True
    py = venv_python()
    if py is None:
        print("skipped: the modern-PyTorch venv is missing (scripts/venv.sh)")
        return False
    subprocess.run([py, os.path.join(ROOT, "bench", "xnnpack", "make_speed_models.py"),
                    args.models_dir, "--only", *missing], check=True)
    return True


def compile_(args, model, backend, out):
    if os.path.exists(out):
        return out
    cmd = [os.path.join(args.bin_dir, "aot-compile"),
           os.path.join(args.models_dir, model, "model.pt2"), "-o", out]
    if backend:
        cmd += ["--backend", backend]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("ptec could not compile %s (%s): %s" % (model, backend or "portable",
                                                      r.stderr.strip().splitlines()[-1]))
        return None
    return out


def time_pte_run(args, pte, inp, threads):
    r = subprocess.run([os.path.join(args.bin_dir, "pte-run"), pte, "--input", inp,
                        "--warmup", str(args.warmup), "--repeat", str(args.repeat),
                        "--xnnpack-threads", str(threads), "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(r.stdout)["timings"]["run_ms"]["p50"], None


def time_upstream(args, pte, inp, threads):
    r = subprocess.run([args.runner, pte, "--input", inp, "--repeat", str(args.repeat),
                        "--threads", str(threads), "--no-print"],
                       capture_output=True, text=True)
    m = re.search(r"p50 ([0-9.]+) ms", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        return None, ((r.stdout + r.stderr).strip().splitlines() or ["?"])[-1]
    return float(m.group(1)), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "..", "shared", "oracle", "bin",
                                                     "executorch-runner"))
    ap.add_argument("--models-dir", help="default: BIN_DIR/../bench-speed (written once)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if args.models_dir is None:
        args.models_dir = os.path.join(os.path.dirname(os.path.abspath(args.bin_dir)),
                                       "bench-speed")
    for tool in ("aot-compile", "pte-run"):
        if not os.path.exists(os.path.join(args.bin_dir, tool)):
            print("skipped: %s is not built" % tool)
            return SKIP
    if not os.path.exists(args.runner):
        print("skipped: upstream's runner is missing")
        return SKIP
    if not ensure_models(args):
        return SKIP

    # (model, file label) -> path
    files = {}
    for m in MODELS:
        d = os.path.join(args.models_dir, m)
        files[(m, "upstream")] = os.path.join(d, "upstream.pte")
        files[(m, "ptec")] = compile_(args, m, "xnnpack", os.path.join(d, "ptec_xnnpack.pte"))
        files[(m, "portable")] = compile_(args, m, None, os.path.join(d, "ptec_portable.pte"))
    configs = []
    for (m, label), pte in files.items():
        if pte is None:
            continue
        for threads in (1, 2):
            runtimes = ["pte-run"] if label == "portable" else ["pte-run", "upstream"]
            if label == "portable" and threads == 2:
                continue
            for rt in runtimes:
                configs.append((m, label, rt, threads))
    samples = {c: [] for c in configs}
    errors = {}
    for _ in range(args.rounds):
        for c in configs:
            m, label, rt, threads = c
            inp = os.path.join(args.models_dir, m, "input_0.npy")
            fn = time_pte_run if rt == "pte-run" else time_upstream
            ms, err = fn(args, files[(m, label)], inp, threads)
            if ms is None:
                errors[c] = err
            else:
                samples[c].append(ms)
    ms = {c: statistics.median(v) for c, v in samples.items() if v}

    rows = []
    for c in configs:
        m, label, rt, threads = c
        rows.append((m, label + ".pte", rt, threads,
                     "%.3f" % ms[c] if c in ms else "fails: " + errors.get(c, "?")[:70]))
    if args.markdown:
        print("| model | file | runtime | threads | p50 ms |")
        print("|---|---|---|---:|---:|")
        for r in rows:
            print("| %s | %s | %s | %d | %s |" % r)
    else:
        for r in rows:
            print("%-18s %-18s %-9s %d  %s" % r)

    def ratio(a, b):
        return ms[a] / ms[b] if a in ms and b in ms else None

    print("\ngoals:")
    for m in MODELS:
        for label in ("ptec", "upstream"):
            for t in (1, 2):
                r = ratio((m, label, "pte-run", t), (m, label, "upstream", t))
                if r is not None:
                    print("  pte-run / upstream runtime, %s %s.pte, %d thread(s): %.2fx  %s"
                          % (m, label, t, r, "held" if r <= 1.0 else "missed"))
    r = ratio(("resnet18", "portable", "pte-run", 1), ("resnet18", "ptec", "pte-run", 1))
    if r is not None:
        print("  float ResNet-18, XNNPACK vs portable, 1 thread: %.2fx  %s"
              % (r, "held" if r >= 2.5 else "missed"))
    for base in ("resnet18", "mobilenet_v2"):
        for label in ("ptec", "upstream"):
            r = ratio((base, label, "pte-run", 1), (base + "_int8", label, "pte-run", 1))
            if r is not None:
                print("  int8 vs float, %s %s.pte on pte-run, 1 thread: %.2fx  %s"
                      % (base, label, r, "held" if r >= 1.5 else "missed"))
    for label in ("ptec", "upstream"):
        r = ratio(("resnet18", label, "pte-run", 1), ("resnet18", label, "pte-run", 2))
        if r is not None:
            print("  ResNet-18 %s.pte on pte-run, 2 threads vs 1: %.2fx  %s"
                  % (label, r, "held" if r >= 1.6 else "missed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
