#!/usr/bin/env python3
"""Run one libFuzzer target of ptec for a bounded time (docs/testing.md).

    run_fuzzer.py --bin BUILD/bin --target pipeline --source REPO \\
                  [--seconds 25] [--seed 1] [--work DIR] [--fresh] [--jobs N]
                  [-- extra libFuzzer flags]

Targets: pt2, unpickler, schema, pipeline, pte, ptd, ir (test/fuzz/<target>_fuzz.cpp).
Seeds come from the fixtures (test/models, test/unit/pt2/data, test/lit, the
schema table and corpora) plus test/fuzz/corpus/<target> and every committed
regression input; the pte and ir targets also get programs compiled from the
zoo with the same build's aot-compile. New inputs go to WORK/corpus (kept
between runs unless --fresh), crashes to WORK/artifacts.

Exit status: 0 when the time ran out without a finding, 1 on a finding (the
reproducer's path and how to minimize it are printed), 77 when BUILD/bin has
no such fuzzer (a build without -DPTEC_BUILD_FUZZERS=ON): ctest shows that
as skipped, never as passed.
"""
import argparse
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

MAX_LEN = {"pt2": 262144, "unpickler": 65536, "schema": 4096, "pipeline": 262144,
           "pte": 262144, "ptd": 65536, "ir": 262144}
# Zoo models whose compiled forms seed the pte and ir targets (small ones).
SEED_MODELS = ["mlp", "mutable_buffer", "mutate_input", "no_inputs", "state_order",
               "demo_ops", "small_cnn", "dyn_attention"]


def copy_files(paths, dest, prefix):
    os.makedirs(dest, exist_ok=True)
    for k, p in enumerate(sorted(paths)):
        if os.path.isfile(p) and os.path.getsize(p) > 0:
            shutil.copyfile(p, os.path.join(dest, "%s_%03d%s" % (prefix, k, os.path.splitext(p)[1])))


def pickles_in(path):
    """data.pkl of every torch.save zip inside `path` (itself or nested)."""
    out = []
    try:
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                data = z.read(name)
                if name.endswith("data.pkl"):
                    out.append(data)
                elif name.endswith(".pt") and data[:2] == b"PK":
                    with zipfile.ZipFile(io.BytesIO(data)) as inner:
                        out += [inner.read(n) for n in inner.namelist() if n.endswith("data.pkl")]
    except (zipfile.BadZipFile, OSError):
        pass
    return out


def compile_seeds(bin_dir, src, dest, kind):
    """Zoo programs as .pte (kind 'pte') or saved after phases (kind 'ir')."""
    aot = os.path.join(bin_dir, "aot-compile")
    if not os.path.exists(aot):
        return
    os.makedirs(dest, exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0")
    for m in SEED_MODELS:
        model = os.path.join(src, "test", "models", m, "model.pt2")
        if not os.path.exists(model):
            continue
        jobs = []
        if kind == "pte":
            jobs.append(([model, "-o", os.path.join(dest, m + ".pte")]))
            if m == "demo_ops":
                jobs.append(([model, "--backend", "demo", "-o", os.path.join(dest, m + "_demo.pte")]))
        else:
            for phase in ("import", "write-back", "out-variants", "plan"):
                for ext in ("mlir", "mlirbc"):
                    jobs.append([model, "--compile-to", phase, "-o",
                                 os.path.join(dest, "%s_%s.%s" % (m, phase, ext))])
        for args in jobs:
            subprocess.run([aot] + args, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=300)


def make_seeds(target, bin_dir, src, seeds):
    fz = os.path.join(src, "test", "fuzz")
    dirs = [os.path.join(fz, "regressions", target), os.path.join(fz, "corpus", target)]
    models = glob.glob(os.path.join(src, "test", "models", "*", "*.pt2"))
    pt2data = glob.glob(os.path.join(src, "test", "unit", "pt2", "data", "*.pt*"))
    if target == "pt2":
        copy_files(models + pt2data, seeds, "fixture")
        driver = os.path.join(bin_dir, "pt2_fuzz_corpus_driver")
        if os.path.exists(driver):
            subprocess.run([driver, "--write-corpus", os.path.join(seeds, "builtin")],
                           stdout=subprocess.DEVNULL, env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0"))
    elif target == "pipeline":
        copy_files(models + [p for p in pt2data if p.endswith(".pt2")], seeds, "fixture")
    elif target == "unpickler":
        os.makedirs(seeds, exist_ok=True)
        k = 0
        for p in pt2data + models:
            for data in pickles_in(p):
                with open(os.path.join(seeds, "pickle_%03d" % k), "wb") as f:
                    f.write(data)
                k += 1
    elif target == "schema":
        dirs.append(os.path.join(src, "test", "unit", "schema", "fuzz_corpus"))
        os.makedirs(seeds, exist_ok=True)
        sys.path.insert(0, os.path.join(src, "test", "conformance"))
        import schema_table  # the table's parts in the build's order
        table = os.path.join(src, "dialects", "exir", "schema", "aten")
        lines = [l.strip() for l in schema_table.table_lines(table)
                 if l.strip() and not l.startswith("#")]
        for k, line in enumerate(lines):
            with open(os.path.join(seeds, "schema_%04d" % k), "w") as f:
                f.write(line)
    elif target == "pte":
        compile_seeds(bin_dir, src, os.path.join(seeds, "zoo"), "pte")
        conf = os.path.join(src, "test", "conformance", "make_corpus.py")
        out = os.path.join(seeds, "conformance")
        subprocess.run([sys.executable, conf, out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        # Only the programs: manifests and .npy files are not worth mutating.
        for f in glob.glob(os.path.join(out, "*")):
            if not f.endswith(".pte"):
                os.remove(f) if os.path.isfile(f) else shutil.rmtree(f)
    elif target == "ir":
        copy_files(glob.glob(os.path.join(src, "test", "lit", "**", "*.mlir"), recursive=True),
                   seeds, "lit")
        compile_seeds(bin_dir, src, os.path.join(seeds, "zoo"), "ir")
    return [d for d in dirs + [seeds] if os.path.isdir(d)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="bin/ of a -DPTEC_BUILD_FUZZERS=ON build")
    ap.add_argument("--target", required=True, choices=sorted(MAX_LEN))
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--seconds", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", help="corpus/artifacts folder (default: BIN/../fuzz-work/TARGET)")
    ap.add_argument("--fresh", action="store_true", help="start from the seeds only")
    ap.add_argument("--jobs", type=int, default=1, help="parallel fuzzing processes")
    ap.add_argument("extra", nargs="*", help="more libFuzzer flags (after --)")
    a = ap.parse_args()

    fuzzer = os.path.join(a.bin, a.target + "_fuzz")
    if not os.path.exists(fuzzer):
        print("SKIPPED: %s not built (configure with clang and -DPTEC_BUILD_FUZZERS=ON)" % fuzzer)
        return 77
    src = os.path.abspath(a.source)
    work = os.path.abspath(a.work or os.path.join(a.bin, "..", "fuzz-work", a.target))
    corpus, artifacts, seeds = (os.path.join(work, d) for d in ("corpus", "artifacts", "seeds"))
    if a.fresh:
        shutil.rmtree(work, ignore_errors=True)
    for d in (corpus, artifacts):
        os.makedirs(d, exist_ok=True)
    shutil.rmtree(seeds, ignore_errors=True)
    seed_dirs = make_seeds(a.target, a.bin, src, seeds)

    cmd = [fuzzer, corpus] + seed_dirs + [
        "-seed=%d" % a.seed, "-max_total_time=%d" % a.seconds, "-timeout=20",
        "-rss_limit_mb=4096", "-max_len=%d" % MAX_LEN[a.target], "-print_final_stats=1",
        # libFuzzer's default error exit code is 77, which ctest reads as SKIPPED.
        "-error_exitcode=1", "-timeout_exitcode=1",
        "-artifact_prefix=" + artifacts + "/"] + a.extra
    if a.jobs > 1:
        cmd += ["-jobs=%d" % a.jobs, "-workers=%d" % a.jobs]
    env = dict(os.environ)
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
    # inlined into our instrumented code but not inside the prebuilt libMLIR,
    # so MLIR objects would read as poisoned (false use-after-poison).
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1:halt_on_error=1:"
                                   "allow_user_poisoning=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    log = p.stdout
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", log, re.M))
    execs = stats.get("number_of_executed_units", "?")
    print("%s_fuzz: %s execs in %s s, seed %d, corpus %d files, exit %d" % (
        a.target, execs, a.seconds, a.seed, len(os.listdir(corpus)), p.returncode))
    if p.returncode == 0:
        return 0
    print(log[-12000:])
    crashes = sorted(glob.glob(os.path.join(artifacts, "*")), key=os.path.getmtime)
    if crashes:
        c = crashes[-1]
        print("FINDING: %s\n  reproduce: %s %s\n  minimize:  %s -minimize_crash=1 -runs=20000 "
              "-exact_artifact_path=%s.min %s\n  then commit it as test/fuzz/regressions/%s/<what>"
              " (fuzz_replay_%s replays it)" % (c, fuzzer, c, fuzzer, c, c, a.target, a.target))
    return 1


if __name__ == "__main__":
    sys.exit(main())
