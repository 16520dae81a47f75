#!/usr/bin/env python3
"""XNNPACK thread count, measured side by side in one run: the same .pte on pte-run
with 1 thread, 2 threads, one per core, and pte-run's default (no flag), on the
machine as it is and on the machine loaded with busy processes (a shared CI runner,
where other jobs hold the cores).

The model is torchvision's efficientnet_b0 (random weights, seed 0, 1x3x64x64),
exported with the modern-PyTorch venv (scripts/venv.sh) and compiled with
`aot-compile --backend xnnpack`; `--model FILE.pt2` takes another one (its input is
random). Every (load, threads) pair is timed in R alternating rounds; a round is one
pte-run process: `--warmup W --repeat N --json`, its run p50. The table gives the
median over rounds and the ratio to 1 thread under the same load.

pthreadpool's workers spin while they wait for work: with more threads than free
cores, a worker that is not scheduled holds every other one at the barrier of each
operator, so a loaded runner pays for threads it cannot run.

Usage:
  bench/xnnpack_threads_bench.py [--bin-dir BUILD/bin] [--model FILE.pt2] [--rounds R]
                                 [--repeat N] [--warmup W] [--load K] [--keep DIR]
`--load K`: busy processes for the loaded rows (default: one per core).
Exit 0 when measured, 77 when a tool, the XNNPACK backend or the venv is missing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77

EXPORT = r"""
import sys, torch, torchvision
torch.manual_seed(0)
m = torchvision.models.efficientnet_b0().eval()
x = torch.randn(1, 3, 64, 64)
torch.export.save(torch.export.export(m, (x,)), sys.argv[1])
"""


def venv_python():
    r = subprocess.run([os.path.join(ROOT, "scripts", "venv.sh")], capture_output=True,
                       text=True)
    py = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else ""
    return py if os.path.exists(py) else None


def run_once(args, pte, threads):
    """Run p50 in ms and the thread count pte-run reports (None: it says none)."""
    cmd = [os.path.join(args.bin_dir, "pte-run"), pte, "--warmup", str(args.warmup),
           "--repeat", str(args.repeat), "--json"]
    if threads is not None:
        cmd += ["--xnnpack-threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("pte-run failed: %s" % r.stderr.strip())
    t = json.loads(r.stdout)["timings"]
    return t["run_ms"]["p50"], t.get("xnnpack_threads")


def start_load(k):
    """k busy processes (ours; stopped by pid)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def stop_load(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--model")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--load", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep")
    args = ap.parse_args()
    for tool in ("aot-compile", "pte-run"):
        if not os.path.exists(os.path.join(args.bin_dir, tool)):
            print("skipped: %s is not built in %s" % (tool, args.bin_dir))
            return SKIP
    work = args.keep or tempfile.mkdtemp(prefix="xnn-threads-")
    os.makedirs(work, exist_ok=True)
    pt2 = args.model
    if pt2 is None:
        pt2 = os.path.join(work, "efficientnet_b0.pt2")
        if not os.path.exists(pt2):
            py = venv_python()
            if py is None:
                print("skipped: the modern-PyTorch venv is missing (scripts/venv.sh)")
                return SKIP
            subprocess.run([py, "-c", EXPORT, pt2], check=True)
    pte = os.path.join(work, "model.pte")
    r = subprocess.run([os.path.join(args.bin_dir, "aot-compile"), pt2, "--backend",
                        "xnnpack", "-o", pte], capture_output=True, text=True)
    if r.returncode != 0:
        print("skipped: aot-compile --backend xnnpack failed: %s" % r.stderr.strip())
        return SKIP
    probe = subprocess.run([os.path.join(args.bin_dir, "pte-run"), pte, "--xnnpack-threads",
                            "1"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("skipped: this pte-run cannot run XNNPACK delegates: %s" % probe.stderr.strip())
        return SKIP
    cores = os.cpu_count() or 1
    settings = [1, 2] + ([cores] if cores > 2 else []) + [None]  # None: pte-run's default
    name = lambda t: "default" if t is None else str(t)
    print("model %s, %d cores, %d rounds of %d runs after %d warm-up calls"
          % (os.path.basename(pt2), cores, args.rounds, args.repeat, args.warmup))
    rows = []
    for loaded in (False, True):
        procs = start_load(args.load) if loaded else []
        try:
            times = {name(t): [] for t in settings}
            reported = {}
            for _ in range(args.rounds):
                for t in settings:
                    ms, n = run_once(args, pte, t)
                    times[name(t)].append(ms)
                    reported[name(t)] = n
        finally:
            stop_load(procs)
        base = statistics.median(times["1"])
        for t in settings:
            med = statistics.median(times[name(t)])
            rows.append((("%d busy processes" % args.load) if loaded else "as is", name(t),
                         reported[name(t)], med, med / base))
    print("| load | --xnnpack-threads | threads pte-run reports | run p50 (ms) | vs 1 thread |")
    print("|---|---|---|---|---|")
    for load, t, n, med, ratio in rows:
        print("| %s | %s | %s | %.3f | %.2fx |" % (load, t, "-" if n is None else n, med, ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
