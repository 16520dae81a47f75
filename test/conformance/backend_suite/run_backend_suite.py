#!/usr/bin/env python3
"""ExecuTorch's backend test suite under ptec's flows and upstream's, summarized.

    run_backend_suite.py --bin BUILD/bin [--oracle RUNNER] [--suite operators,models]
                         [--only FAMILY ...] [--flows ptec,ptec_xnnpack,portable,xnnpack]
                         [--jobs 2] [--json FILE] [--markdown FILE] [--ci] [--no-cache]

Runs the pytest suites shipped in the executorch package
(executorch.backends.test.suite.operators and .models) with the ptec_flows plugin
(this folder), one pytest process per test file ("family"), at most --jobs at once.
A process that dies (a native crash in upstream's in-process flow) costs only the
test it was in: that test is recorded as crashed and the family runs again without
the tests already done.

Upstream's flows (portable, xnnpack) do not depend on ptec: their results are
cached outside the repo (PTEC_SWEEP_CACHE, else ~/.cache/ptec/sweeps) per executorch
version and input seed, and reused (--no-cache: run them again).

--ci: one operator family (test_relu, which ptec passes whole) under ptec and
ptec_xnnpack; fails when a test fails or crashes (the suite's own skips aside) or
none passes. Exits 77 without the venv.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from sweep import env, report  # noqa: E402

UPSTREAM = ("portable", "xnnpack")
ALL_FLOWS = ("ptec", "ptec_xnnpack", "portable", "xnnpack")
CI_FAMILIES = ["operators/test_relu"]
SEED = 0


def suite_dir():
    import importlib.util
    spec = importlib.util.find_spec("executorch.backends.test.suite")
    return os.path.dirname(spec.origin)


def families(suites):
    out = []
    root = suite_dir()
    for s in suites:
        for f in sorted(os.listdir(os.path.join(root, s))):
            if f.startswith("test_") and f.endswith(".py"):
                out.append(f"{s}/{f[:-3]}")
    return out


def _read_jsonl(path):
    recs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
    return recs


def run_family(fam, flows, args, tmp):
    """Starts one pytest process; returns (Popen, report path, skip-file path)."""
    rep = os.path.join(tmp, fam.replace("/", "_") + ".jsonl")
    skip = rep + ".skip"
    done = [r["id"] for r in _read_jsonl(rep) if r.get("id") and "outcome" in r]
    with open(skip, "w") as f:
        json.dump(done, f)
    e = dict(os.environ, PTEC_BIN=os.path.abspath(args.bin), PTEC_SUITE_FLOWS=",".join(flows),
             PTEC_SUITE_REPORT=rep, PTEC_SUITE_SKIP=skip, PTEC_SUITE_SEED=str(SEED),
             PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
             PTEC_XNNPACK_THREADS="1")
    if args.oracle and os.path.exists(args.oracle):
        e["PTEC_ORACLE"] = os.path.abspath(args.oracle)
    mod = "executorch.backends.test.suite." + fam.replace("/", ".")
    cmd = [sys.executable, "-m", "pytest", "-p", "ptec_flows", "--pyargs", mod, "-q",
           "-p", "no:cacheprovider", "-W", "ignore"]
    if args.k:
        cmd += ["-k", args.k]
    log = open(rep + ".log", "ab")
    pre = (lambda: os.nice(args.nice)) if args.nice else None
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=e, cwd=tmp,
                            preexec_fn=pre), rep


def collect(rep):
    """{test id: record} of a family's finished tests; the id of a test started and not
    finished (the process died in it), else None."""
    recs = _read_jsonl(rep)
    done = {r["id"]: r for r in recs if "outcome" in r}
    started = [r for r in recs if r.get("start") and r["id"] not in done]
    return done, (started[-1] if started else None)


def run_all(fams, flows_for, args, on_done=None):
    """{family: {test id: record}} running at most args.jobs pytest processes."""
    tmp = tempfile.mkdtemp(prefix="backend_suite_")
    queue = list(fams)
    running, results, attempts = {}, {}, collections.Counter()
    while queue or running:
        while queue and len(running) < args.jobs:
            fam = queue.pop(0)
            flows = flows_for(fam)
            if not flows:
                results[fam] = {}
                continue
            attempts[fam] += 1
            running[fam] = run_family(fam, flows, args, tmp) + (time.time(),)
        time.sleep(1)
        for fam, (proc, rep, t0) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[fam]
            done, current = collect(rep)
            if proc.returncode < 0 and current is not None and attempts[fam] < 50:
                with open(rep, "a") as f:
                    f.write(json.dumps({"id": current["id"], "outcome": "crashed",
                                        "flow": current.get("flow"), "error":
                                        f"pytest process killed by signal {-proc.returncode}"})
                            + "\n")
                queue.insert(0, fam)  # again, without what is done
                continue
            if proc.returncode not in (0, 1) and not done:
                with open(rep + ".log", "rb") as f:
                    tail = f.read()[-2000:].decode(errors="replace").strip().splitlines()
                done = {f"{fam}::<collection>": {"outcome": "error", "flow": None,
                                                  "error": tail[-1] if tail else "?"}}
            results[fam] = done
            print(f"{fam}: {brief(done)} ({time.time() - t0:.0f} s)", flush=True)
            if on_done:
                on_done(fam, done)
    return results


def brief(done):
    c = collections.defaultdict(collections.Counter)
    for r in done.values():
        c[r.get("flow")][r["outcome"]] += 1
    return "  ".join(f"{f}: " + ",".join(f"{k} {v}" for k, v in sorted(c[f].items()))
                     for f in sorted(c, key=str))


def load_cache(path):
    key = {"versions": env.versions(), "seed": SEED, "judge": 1}
    if path and os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
            if data.get("key") == key:
                return data
        except ValueError:
            pass
    return {"key": key, "families": {}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--oracle", default=env.DEFAULT_ORACLE)
    ap.add_argument("--suite", default="operators,models")
    ap.add_argument("--only", action="append", default=[], help="families containing this")
    ap.add_argument("--flows", default=",".join(ALL_FLOWS))
    ap.add_argument("-k", help="pytest's -k expression inside the families")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("--ci", action="store_true")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args()
    skip = env.ensure_venv(("torch", "executorch", "pytest"))
    if skip:
        return skip
    args.jobs = max(1, min(args.jobs, 2))
    flows = args.flows.split(",")
    if args.ci:
        fams, flows = CI_FAMILIES, ["ptec", "ptec_xnnpack"]
    else:
        fams = families(args.suite.split(","))
    if args.only:
        fams = [f for f in fams if any(o in f for o in args.only)]
    ups = [f for f in flows if f in UPSTREAM]
    use_cache = bool(ups) and not args.no_cache
    cache_file = os.path.join(env.cache_dir(), "backend-suite-upstream.json") if use_cache \
        else None
    cache = load_cache(cache_file) if use_cache else load_cache(None)

    def flows_for(fam):
        have = cache["families"].get(fam, {})
        return [f for f in flows if f not in UPSTREAM or f not in have]

    print(f"{len(fams)} families, flows {','.join(flows)}, {args.jobs} processes", flush=True)
    def keep_upstream(fam, fresh):
        """Upstream's fresh results of a finished family go to the cache at once."""
        for f in ups:
            got = {k: v for k, v in fresh.items() if v.get("flow") == f}
            if got and f not in cache["families"].get(fam, {}) and \
                    not any(v["outcome"] == "crashed" for v in got.values()):
                cache["families"].setdefault(fam, {})[f] = got
                if use_cache:
                    report.write_json(cache_file, cache)

    results = run_all(fams, flows_for, args, keep_upstream)
    for fam in fams:
        fresh = results.get(fam, {})
        for f in ups:
            if not any(v.get("flow") == f for v in fresh.values()):
                fresh.update(cache["families"].get(fam, {}).get(f, {}))
        results[fam] = fresh
    import suite_report
    data = suite_report.summarize(results, flows)
    if args.json:
        report.write_json(args.json, data)
    if args.markdown:
        report.write_atomic(args.markdown, suite_report.markdown(data))
    print(suite_report.text_totals(data))
    if args.ci:
        # The suite skips a test for every flow when its model fails in eager or does
        # not export; anything else short of a pass is ptec's.
        bad = [f"{k}: {r['outcome']}: {r.get('error')}" for fam in results.values()
               for k, r in fam.items() if r["outcome"] not in ("passed", "skipped")]
        passed = sum(r["outcome"] == "passed" for fam in results.values() for r in fam.values())
        for b in bad:
            print(f"FAIL {b}")
        return 1 if bad or not passed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
