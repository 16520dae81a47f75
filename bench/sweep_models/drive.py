"""The driving half of bench/model_sweep.py: workers, the upstream cache, the JSON,
docs/model-coverage.md and the CI verdict."""
import collections
import os
import time

from sweep import env, flows, pool, report
from sweep.cache import UpstreamCache

import model_sweep


def _short(r):
    if r is None:
        return "-"
    s = r.get("status", "?")
    ex = r.get("executorch", {}).get("status")
    return s + ("" if ex in (None, "matched") or s != "matched" else f" (executorch {ex})")


def drive(args, cfg):
    reg = model_sweep.registry()
    if args.list:
        print("\n".join(reg))
        return 0
    ids = list(model_sweep.CI_MODELS) if args.ci else list(reg)
    if args.only:
        ids = [i for i in ids if any(o in i for o in args.only)]
    from sweep.compare import NOISE_FACTOR
    key = dict(env.versions(), judge=flows.CACHE_VERSION, rtol=cfg.rtol, atol=cfg.atol,
               noise=NOISE_FACTOR)
    use_cache = not args.no_cache and any(f.startswith("upstream") for f in cfg.flows)
    cache = UpstreamCache("model-sweep-upstream.json", key, use_cache)
    snap = cache.snapshot()
    extra = ["--bin", cfg.bin_dir, "--oracle", cfg.oracle or "", "--flows", ",".join(cfg.flows),
             "--max-params", str(args.max_params), "--cache-file", snap]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        extra += ["--keep", os.path.abspath(args.keep)]
    print(f"{len(ids)} models, flows {','.join(cfg.flows)}, {args.jobs} workers", flush=True)
    n = {"done": 0, "written": time.time()}
    done = {}

    def on_result(mid, rec):
        n["done"] += 1
        done[mid] = rec
        cache.add(rec.get("key"), rec.get("flows", {}))
        if time.time() - n["written"] > 600:  # a table to look at while the sweep runs
            write_tables(ids, done, args, cfg, partial=True)
            n["written"] = time.time()
        fl = rec.get("flows", {})
        what = "  ".join(f"{f}: {_short(fl.get(f))}" for f in cfg.flows) if fl else \
            f"{rec.get('status') or 'worker died'}: {rec.get('error') or rec.get('worker_died')}"
        print(f"[{n['done']}/{len(ids)}] {mid}: {what}", flush=True)
        if args.verbose:
            for f, r in fl.items():
                if r.get("status") != "matched" or r.get("executorch", {}).get("status") \
                        not in (None, "matched"):
                    print(f"    {f}: {r.get('error') or r.get('executorch', {}).get('error')}")

    order = sorted(ids, key=lambda i: RUN_ORDER.index(group_of(i)))
    results = pool.run_pool(order, lambda i, o: pool.self_argv(
        extra + ["--worker", i, "--worker-out", o]), jobs=args.jobs, on_result=on_result,
        item_timeout=3 * 3600, nice=args.nice)
    cache.close()
    rows = write_tables(ids, results, args, cfg)
    return verdict(rows, args, cfg)


def write_tables(ids, results, args, cfg, partial=False):
    """The JSON and the markdown of the models that have a result (in the registry's
    order); a partial table says how many of the selected models it holds."""
    from sweep_models import markdown
    rows = [dict(results[i], id=i) for i in ids if i in results]
    for r in rows:
        r.pop("key", None)
        if "worker_died" in r:
            r.update(status="crashed", error=r.pop("worker_died"))
    data = {"versions": env.versions(), "rtol": cfg.rtol, "atol": cfg.atol,
            "flows": cfg.flows, "models": rows}
    if partial:
        data["partial"] = f"{len(rows)} of {len(ids)} models so far"
    data["summary"] = markdown.summary(rows, cfg.flows)
    if args.json:
        report.write_json(args.json, data)
    if args.markdown:
        report.write_atomic(args.markdown, markdown.render(data))
    if not partial:
        print(markdown.text_totals(data))
    return rows


def verdict(rows, args, cfg):
    bad = []
    for r in rows:
        for f, res in r.get("flows", {}).items():
            if not f.startswith("ptec"):
                continue
            ex = res.get("executorch", {})
            if res["status"] in ("wrong", "crashed") or ex.get("status") in ("wrong", "crashed"):
                bad.append(f"{r['id']} {f}: {res.get('error') or ex.get('error')}")
            elif args.ci and model_sweep.CI_MODELS.get(r["id"]) and res["status"] != "matched":
                bad.append(f"{r['id']} {f}: {res['status']}: {res.get('error')}")
        if args.ci and r.get("status") != "exported":
            bad.append(f"{r['id']}: {r.get('status')}: {r.get('error')}")
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


# Quick and telling first: a sweep stopped early still has the language models.
RUN_ORDER = ["hf", "timm", "tv-seg", "tv-det", "tv"]


def group_of(mid):
    return mid.split("/")[0]


def counts(rows, flow):
    c = collections.Counter()
    for r in rows:
        res = r.get("flows", {}).get(flow)
        if res:
            c[res["status"]] += 1
    return c
