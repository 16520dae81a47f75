"""Upstream's results, kept outside the repo between runs (they do not depend on ptec).

One JSON file per sweep under env.cache_dir(): {"key": what the results depend on
(versions, the judging code, tolerances), "entries": {program digest: {flow: result}}}.
A file with another key is ignored. Fresh results are written back at most every
minute and at the end, so a sweep that is stopped keeps what upstream already did.
"""
import os
import shutil
import tempfile
import time

from . import env, report


class UpstreamCache:
    def __init__(self, name, key, enabled=True):
        self.key = key
        self.path = os.path.join(env.cache_dir(), name) if enabled else None
        self.entries = {}
        self.dirty = False
        self.saved_at = time.time()
        if self.path and os.path.exists(self.path):
            try:
                import json
                with open(self.path) as f:
                    data = json.load(f)
                if data.get("key") == key:
                    self.entries = data.get("entries", {})
            except ValueError:
                pass
        self._snap_dir = None

    def snapshot(self):
        """A copy for the worker processes (they read it once; only the driver writes)."""
        self._snap_dir = tempfile.mkdtemp(prefix="sweep_cache_")
        path = os.path.join(self._snap_dir, "upstream.json")
        report.write_json(path, {"key": self.key, "entries": self.entries})
        return path

    def add(self, digest, results):
        """Keeps the fresh upstream results of one program (not those read from here)."""
        ups = {f: r for f, r in results.items() if f.startswith("upstream") and not r.get("cached")}
        if ups and digest and self.path:
            self.entries.setdefault(digest, {}).update(ups)
            self.dirty = True
            if time.time() - self.saved_at > 60:
                self.save()

    def save(self):
        if self.path and self.dirty:
            report.write_json(self.path, {"key": self.key, "entries": self.entries})
            self.dirty = False
        self.saved_at = time.time()

    def close(self):
        self.save()
        if self._snap_dir:
            shutil.rmtree(self._snap_dir, ignore_errors=True)


def read_snapshot(path):
    """{digest: {flow: result}} for a worker, from the driver's snapshot (or {})."""
    import json
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f).get("entries", {})
