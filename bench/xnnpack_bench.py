#!/usr/bin/env python3
"""XnnpackBackend, measured side by side in one run.

1. Run time, XNNPACK-delegated vs portable kernels only, for every CNN and
   transformer of the zoo and for ResNet-18 / MobileNet-V2 at 224x224
   (bench/xnnpack/make_bench_models.py writes those with Debian's torch).
   Each model is compiled both ways; rounds alternate portable and XNNPACK
   processes (`xnnpack_bench run`), each timing R executes after a warm-up;
   medians of process CPU time (steady on a shared machine) and wall time.
2. Lower once, call many with a weight-heavy step (two Linear(1024, 1024),
   8 MiB, called ten times): shared handles (1 init) vs unshared (10), with
   the packed-weight cache and, as the pre-sharing/pre-cache baseline,
   without it: init() calls, operators packed, load + init time, peak RSS.
3. prefill + decode of one program over 16 MiB of weights: weight bytes
   packed and init time with the packed-weight cache vs without.

Usage:
  bench/xnnpack_bench.py [--bin-dir BUILD/bin] [--models-dir DIR] [--rounds K]
                         [--threads T] [--quick] [--markdown]
Needs aot-compile and xnnpack_bench (built when XNNPACK is installed);
/usr/bin/python3 with torch to write the large models once.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = os.path.join(ROOT, "test", "models")


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def measure(args, mode, pte, *extra):
    out = run([os.path.join(args.bin_dir, "xnnpack_bench"), mode, pte,
               "--threads", str(args.threads), *extra])
    return json.loads(out.strip().splitlines()[-1])


def compile_(args, sources, out, *options):
    run([os.path.join(args.bin_dir, "aot-compile"), *sources, "-o", out, *options])
    return out


def ensure_models(args):
    need = ["resnet18", "mobilenet_v2", "heavy_ten_calls", "heavy_two_methods"]
    missing = [m for m in need if not os.path.exists(os.path.join(args.models_dir, m, "meta.json"))]
    if missing:
        print(f"writing {', '.join(missing)} into {args.models_dir} (torch 1.13)...", flush=True)
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "xnnpack", "make_bench_models.py"),
             args.models_dir, "--only", *missing])


def table(args, title, header, rows):
    print(f"\n{title}\n")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def run_times(args, tmp):
    models = [("mlp", ZOO, "model.pt2", "forward"), ("small_cnn", ZOO, "model.pt2", "forward"),
              ("mobilenet_block", ZOO, "model.pt2", "forward"),
              ("resnet_block", ZOO, "model.pt2", "forward"),
              ("transformer_layer", ZOO, "model.pt2", "forward"),
              ("two_methods", ZOO, "prefill.pt2", "prefill"),
              ("resnet18", args.models_dir, "model.pt2", "forward"),
              ("mobilenet_v2", args.models_dir, "model.pt2", "forward")]
    rows = []
    for name, base, file, method in models:
        src = [os.path.join(base, name, file) + (f":{method}" if method != "forward" else "")]
        port = compile_(args, src, os.path.join(tmp, f"{name}.portable.pte"))
        xnn = compile_(args, src, os.path.join(tmp, f"{name}.xnnpack.pte"), "--backend", "xnnpack")
        big = name in ("resnet18", "mobilenet_v2")
        repeat = "3" if big else ("20" if args.quick else "200")
        p, x = {"cpu_ms": [], "wall_ms": []}, {"cpu_ms": [], "wall_ms": []}
        for _ in range(args.rounds):
            for acc, pte in ((p, port), (x, xnn)):
                m = measure(args, "run", pte, "--method", method, "--repeat", repeat)
                acc["cpu_ms"].append(m["cpu_ms"])
                acc["wall_ms"].append(m["wall_ms"])
        pc, xc = statistics.median(p["cpu_ms"]), statistics.median(x["cpu_ms"])
        pw, xw = statistics.median(p["wall_ms"]), statistics.median(x["wall_ms"])
        rows.append([name + ("" if method == "forward" else f" ({method})"), f"{pc:.3f}",
                     f"{xc:.3f}", f"{pc / xc:.1f}x", f"{pw / xw:.1f}x"])
        print(f"  {name}: portable {pc:.3f} ms, xnnpack {xc:.3f} ms (cpu)", flush=True)
    table(args, f"Run time per execute, portable vs XNNPACK ({args.threads} XNNPACK thread(s), "
          f"medians of {args.rounds} alternating rounds)",
          ["model", "portable cpu ms", "xnnpack cpu ms", "speed-up (cpu)", "speed-up (wall)"],
          rows)


def load_rows(args, configs, methods):
    rows, results = [], {}
    for label, pte, extra in configs:
        ms = [measure(args, "load", pte, "--methods", methods, *extra) for _ in range(args.rounds)]
        r = {k: statistics.median(m[k] for m in ms) for k in ms[0]}
        results[label] = r
    return results


def ten_calls(args, tmp):
    src = [os.path.join(args.models_dir, "heavy_ten_calls", "model.pt2")]
    shared = compile_(args, src, os.path.join(tmp, "ten_shared.pte"), "--backend", "xnnpack")
    unshared = compile_(args, src, os.path.join(tmp, "ten_unshared.pte"), "--backend", "xnnpack",
                        "--no-share-delegates")
    configs = [("shared handle, cache", shared, []),
               ("unshared, cache", unshared, []),
               ("unshared, no cache (baseline)", unshared, ["--no-cache"])]
    res = load_rows(args, configs, "forward")
    base = res["unshared, no cache (baseline)"]
    rows = []
    for label, _, _ in configs:
        r = res[label]
        li = r["load_ms"] + r["init_ms"]
        rows.append([label, f"{int(r['inits'])}", f"{int(r['packs'])}", f"{li:.1f}",
                     f"{(base['load_ms'] + base['init_ms']) / li:.1f}x",
                     f"{r['rss_peak_kib'] / 1024:.1f}",
                     f"{base['rss_peak_kib'] / r['rss_peak_kib']:.2f}x"])
    table(args, "Ten calls of one 8 MiB step: load + init (medians; ratios: baseline / row)",
          ["configuration", "init() calls", "operators packed", "load+init ms",
           "faster", "peak RSS MiB", "less memory"], rows)


def prefill_decode(args, tmp):
    d = os.path.join(args.models_dir, "heavy_two_methods")
    pte = compile_(args, [os.path.join(d, "prefill.pt2:prefill"), os.path.join(d, "decode.pt2:decode")],
                   os.path.join(tmp, "two.pte"), "--backend", "xnnpack")
    res = load_rows(args, [("cache", pte, []), ("no cache", pte, ["--no-cache"])], "prefill,decode")
    c, n = res["cache"], res["no cache"]
    rows = []
    for label, r in (("with the cache", c), ("without", n)):
        rows.append([label, f"{int(r['packs'])}", f"{r['weight_bytes'] / 2**20:.1f}",
                     f"{r['init_ms']:.1f}", f"{r['rss_peak_kib'] / 1024:.1f}"])
    rows.append(["ratio (without / with)", f"{n['packs'] / c['packs']:.1f}x",
                 f"{n['weight_bytes'] / c['weight_bytes']:.1f}x", f"{n['init_ms'] / c['init_ms']:.2f}x",
                 f"{n['rss_peak_kib'] / c['rss_peak_kib']:.2f}x"])
    table(args, "prefill + decode of one program, 16 MiB of weights (medians)",
          ["", "operators packed", "weight MiB packed", "init ms (both methods)", "peak RSS MiB"],
          rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--models-dir", default=None,
                    help="where the large models are (default: BIN/../bench-models)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="XNNPACK threads (default 1)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats of the small models")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    args.models_dir = args.models_dir or os.path.join(os.path.dirname(args.bin_dir), "bench-models")
    if not os.path.exists(os.path.join(args.bin_dir, "xnnpack_bench")):
        sys.exit("xnnpack_bench is not built (XNNPACK not installed?)")
    ensure_models(args)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f}; "
          f"XNNPACK threads {args.threads}; {args.rounds} rounds")
    with tempfile.TemporaryDirectory() as tmp:
        run_times(args, tmp)
        ten_calls(args, tmp)
        prefill_decode(args, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
