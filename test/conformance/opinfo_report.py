"""The driving half of opinfo_sweep.py: workers over the items, the cache of upstream's
results, the JSON and the per-op table (docs/op-coverage.md), the CI verdict."""
import collections
import json
import os
import time

from sweep import env, pool, report
from sweep.cache import UpstreamCache
from sweep import flows
from sweep.flows import FLOWS, LABELS

import opinfo_sweep as sweep


def select(args):
    items = sweep.all_items()
    if args.ci:
        missing = [i for i in sweep.CI_ITEMS if i not in items]
        if missing:
            print(f"CI items not in this torch's databases: {missing}")
        names = [i for i in sweep.CI_ITEMS if i in items]
    else:
        names = sorted(items)
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    return names


def brief(flows_res):
    short = {"ptec_portable": "ptec", "ptec_xnnpack": "ptec-x", "upstream_portable": "up",
             "upstream_xnnpack": "up-x"}
    c = collections.defaultdict(collections.Counter)
    for fr in flows_res:
        for f, r in fr.items():
            c[f][r.get("status")] += 1
    return "  ".join(f"{short[f]} {report.cell(c[f], sum(c[f].values()))}"
                     for f in FLOWS if f in c)


def drive(args, cfg):
    names = select(args)
    vers = dict(env.versions(), judge=flows.CACHE_VERSION)
    # CI runs (ptec only) neither read nor write the cache.
    use_cache = not args.no_cache and any(f.startswith("upstream") for f in cfg.flows)
    cache = UpstreamCache("opinfo-upstream.json", vers, use_cache)
    snap = cache.snapshot()
    extra = ["--bin", cfg.bin_dir, "--oracle", cfg.oracle or "", "--flows", ",".join(cfg.flows),
             "--samples", str(args.samples), "--cache-file", snap]
    if args.keep:
        extra += ["--keep", os.path.abspath(args.keep)]
        os.makedirs(args.keep, exist_ok=True)
    print(f"{len(names)} items, {args.samples} samples each, flows {','.join(cfg.flows)}, "
          f"{args.jobs} workers", flush=True)
    progress = {"n": 0, "written": time.time()}
    done = {}

    def on_result(item, res):
        progress["n"] += 1
        done[item] = res
        if time.time() - progress["written"] > 600 and args.markdown:
            # A table to look at while the sweep runs (the items done so far).
            part = [n for n in names if n in done]
            data = summarize(part, done, cfg, args, vers)
            data["partial"] = f"{len(part)} of {len(names)} items so far"
            report.write_atomic(args.markdown, markdown(data, cfg))
            progress["written"] = time.time()
        for smp in res.get("samples", []):
            cache.add(smp.get("key"), smp.get("flows", {}))
        frs = [s["flows"] for s in res.get("samples", []) if "flows" in s]
        other = res.get("worker_died") or res.get("harness_error") or res.get("error") or ""
        print(f"[{progress['n']}/{len(names)}] {item}: {brief(frs)} {other}".rstrip(), flush=True)
        if args.verbose:
            for s in res.get("samples", []):
                for f, r in s.get("flows", {}).items():
                    if r.get("status") != "matched":
                        print(f"    #{s['idx']} {f}: {r.get('status')}: {r.get('error')}")
                if s.get("status") not in ("exported",):
                    print(f"    #{s['idx']} {s.get('status')}: {s.get('error')}")

    results = pool.run_pool(names, lambda ids, out: pool.self_argv(
        extra + ["--worker", ids, "--worker-out", out]), jobs=args.jobs, on_result=on_result,
        nice=args.nice)
    cache.close()
    data = summarize(names, results, cfg, args, vers)
    if args.json_samples:
        report.write_json(args.json_samples, data)
    if args.json:  # without the per-sample records (those are in --json-samples)
        report.write_json(args.json, compact(data))
    if args.markdown:
        report.write_atomic(args.markdown, markdown(data, cfg))
    if args.write_expect:
        exp = {f"{i}#{s['idx']}": {f: "matched" for f, r in s["flows"].items()
                                   if f.startswith("ptec") and r.get("status") == "matched"}
               for i, res in results.items() for s in res.get("samples", []) if "flows" in s}
        report.write_json(args.write_expect, {k: v for k, v in exp.items() if v})
    return verdict(data, args)


def summarize(names, results, cfg, args, vers):
    """The JSON: per item its counts and samples; the totals; the lists that matter."""
    items, units, wrong, crashed, harness, split = {}, [], [], [], [], []
    for item in names:
        res = results.get(item, {})
        samples = res.get("samples", [])
        counts = {f: collections.Counter() for f in cfg.flows}
        st = collections.Counter(s.get("status") for s in samples)
        for s in samples:
            for f, r in s.get("flows", {}).items():
                counts[f][r["status"]] += 1
                tag = {"item": item, "sample": s["idx"], "flow": f, "inputs": s.get("inputs"),
                       "error": r.get("error"), "desc": s.get("desc")}
                # pte-run's verdict counts; upstream's runtime on the same file
                # disagreeing is listed apart (runtimes_disagree).
                if r["status"] == "wrong":
                    wrong.append(tag)
                if r["status"] == "crashed":
                    crashed.append(tag)
                ex = r.get("executorch")
                if ex and ex.get("status") != r["status"] and r["status"] in ("matched", "wrong"):
                    # The same ptec program, pte-run against upstream's runtime.
                    split.append(dict(tag, pte_run=r["status"], executorch=ex.get("status"),
                                      error=r.get("error") or ex.get("error")))
            if "flows" in s:
                units.append(s["flows"])
        if res.get("worker_died") or res.get("harness_error") or res.get("error"):
            harness.append({"item": item, "error": res.get("worker_died")
                            or res.get("harness_error") or res.get("error")})
        items[item] = {"samples": len(samples), "exported": st["exported"],
                       "export_failed": st["export-failed"], "eager_failed": st["eager-failed"],
                       "random": sum(1 for s in samples if s.get("random")),
                       "flows": {f: dict(c) for f, c in counts.items()},
                       "first_error": {f: next((r.get("error") for s in samples
                                                for g, r in s.get("flows", {}).items()
                                                if g == f and r["status"] != "matched"), None)
                                       for f in cfg.flows},
                       "export_error": next((s.get("error") for s in samples
                                             if s.get("status") != "exported"), None),
                       "sample_results": [{k: v for k, v in s.items() if k != "key"}
                                          for s in samples]}
    t = report.tally(units)
    return {"versions": vers, "samples_per_item": args.samples, "flows": cfg.flows,
            "items": items, "totals": {f: dict(t[f]) for f in cfg.flows},
            "exported_samples": len(units),
            "wrong": wrong, "crashed": crashed, "harness_errors": harness,
            "runtimes_disagree": split,
            "blocking": {f: dict(report.blocking(units, f)) for f in cfg.flows},
            "upstream_only": upstream_only(results, cfg)}


def compact(data):
    out = dict(data)
    out["items"] = {k: {f: v for f, v in it.items() if f != "sample_results"}
                    for k, it in data["items"].items()}
    return out


def upstream_only(results, cfg):
    """Samples upstream's flow matched and ptec's did not (the issue's 'done' gap)."""
    out = []
    pairs = [("ptec_portable", "upstream_portable"), ("ptec_xnnpack", "upstream_xnnpack")]
    for item, res in sorted(results.items()):
        for s in res.get("samples", []):
            fr = s.get("flows", {})
            for p, u in pairs:
                if (fr.get(u, {}).get("status") == "matched"
                        and fr.get(p, {}).get("status") not in (None, "matched")):
                    out.append({"item": item, "sample": s["idx"], "flow": p,
                                "status": fr[p]["status"], "error": fr[p].get("error")})
    return out


def verdict(data, args):
    bad = [w for w in data["wrong"] if w["flow"].startswith("ptec")]
    bad += [c for c in data["crashed"] if c["flow"].startswith("ptec")]
    for b in bad:
        print(f"FAIL {b['item']} #{b['sample']} {b['flow']}: {b['error']}")
    regress = []
    if args.expect:
        with open(args.expect) as f:
            expect = json.load(f)
        for key, want_flows in sorted(expect.items()):
            item, idx = key.rsplit("#", 1)
            if item not in data["items"]:
                continue
            srs = data["items"][item]["sample_results"]
            s = next((x for x in srs if str(x["idx"]) == idx), None)
            for f, want in want_flows.items():
                got = (s or {}).get("flows", {}).get(f, {})
                if f in data["flows"] and got.get("status") != want:
                    regress.append(f"{key} {f}: {got.get('status', 'missing')} "
                                   f"(was {want}): {got.get('error')}")
    for r in regress:
        print(f"REGRESSION {r}")
    for h in data["harness_errors"]:
        print(f"HARNESS {h['item']}: {h['error']}")
    tot = data["totals"]
    print("totals (samples): " + "; ".join(
        f"{LABELS[f]} " + ", ".join(f"{k} {v}" for k, v in sorted(tot[f].items()))
        for f in data["flows"]))
    return 1 if bad or regress else 0


def markdown(data, cfg):
    from opinfo_markdown import render
    return render(data, cfg)
