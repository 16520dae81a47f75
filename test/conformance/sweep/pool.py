"""At most N worker processes over a list of items, surviving workers that die.

Each worker is this same script started with a list of item ids; it appends one JSON
line {"id", "start"} before an item and {"id", "result"} after it (worker_loop). A
worker that dies (a native crash in torch or executorch, the OOM killer) or hangs
past the per-item limit costs only the item it was on, which is recorded as crashed;
a new worker takes over the rest. Importing torch once per worker, not per item,
is what makes a sweep of thousands of small programs affordable.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def worker_loop(ids, out_path, fn):
    """Runs fn(id) -> result dict for each id, appending start/result lines to out_path."""
    with open(out_path, "a") as out:
        for item in ids:
            out.write(json.dumps({"id": item, "start": time.time()}) + "\n")
            out.flush()
            try:
                res = fn(item)
            except Exception as e:  # a harness problem, never a flow's outcome
                res = {"harness_error": f"{type(e).__name__}: {e}"[:400]}
            out.write(json.dumps({"id": item, "result": res}) + "\n")
            out.flush()


def _read(path):
    """(results {id: result}, the id started last without a result, its start time)."""
    results, started = {}, {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut by a dying worker
                if "result" in rec:
                    results[rec["id"]] = rec["result"]
                    started.pop(rec["id"], None)
                elif "start" in rec:
                    started[rec["id"]] = rec["start"]
    open_ = [(t, i) for i, t in started.items() if i not in results]
    if not open_:
        return results, None, None
    t, i = max(open_)
    return results, i, t


class _Worker:
    def __init__(self, argv_for, ids, tmp, n, nice):
        self.ids = list(ids)
        fd, self.ids_file = tempfile.mkstemp(prefix=f"ids{n}_", suffix=".json", dir=tmp)
        with os.fdopen(fd, "w") as f:
            json.dump(self.ids, f)
        self.out = os.path.join(tmp, f"out{n}.jsonl")
        self.log = open(os.path.join(tmp, f"log{n}.txt"), "ab")
        cmd = argv_for(self.ids_file, self.out)
        pre = (lambda: os.nice(nice)) if nice else None
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=pre)


def run_pool(items, argv_for, jobs=2, item_timeout=1800, on_result=None, nice=0):
    """Runs every item through workers (argv_for(ids_file, out_jsonl) -> argv); returns
    {id: result}. A crashed or hung item's result is {"worker_died": why}."""
    tmp = tempfile.mkdtemp(prefix="sweep_pool_")
    jobs = max(1, min(jobs, len(items)))
    queues = [items[k::jobs] for k in range(jobs)]
    done, seen = {}, set()
    workers = [_Worker(argv_for, q, tmp, k, nice) for k, q in enumerate(queues) if q]
    serial = len(workers)
    while workers:
        time.sleep(0.5)
        alive = []
        for w in workers:
            results, current, since = _read(w.out)
            for i, r in results.items():
                if i not in seen:
                    seen.add(i)
                    done[i] = r
                    if on_result:
                        on_result(i, r)
            rc = w.proc.poll()
            hung = current is not None and time.time() - since > item_timeout
            if rc is None and not hung:
                alive.append(w)
                continue
            if hung:
                w.proc.kill()
                w.proc.wait()
            left = [i for i in w.ids if i not in done]
            if left and current in left:
                why = (f"timed out after {item_timeout} s" if hung
                       else f"worker exited with status {w.proc.returncode}")
                done[current] = {"worker_died": why}
                seen.add(current)
                if on_result:
                    on_result(current, done[current])
                left.remove(current)
            elif left:
                # Died before starting an item (an import error, a bad argument) or
                # ended without writing these: a new worker would do the same.
                w.log.flush()
                with open(w.log.name, "rb") as f:
                    tail = f.read()[-600:].decode(errors="replace").strip().splitlines()
                why = "worker ended without a result: " + (tail[-1] if tail else f"status {rc}")
                for i in left:
                    done[i] = {"worker_died": why}
                    seen.add(i)
                    if on_result:
                        on_result(i, done[i])
                left = []
            if left:
                alive.append(_Worker(argv_for, left, tmp, serial, nice))
                serial += 1
        workers = alive
    return done


def worker_ids(ids_file):
    with open(ids_file) as f:
        return json.load(f)


def self_argv(extra):
    """argv that starts this script again as a worker (same interpreter)."""
    return [sys.executable, os.path.abspath(sys.argv[0])] + extra
