#!/usr/bin/env python3
"""Validates an aot-compile --report=json file against the documented schema
(docs/report.md, version 1): every key present with its type, nothing unknown.
Usage: check_report.py REPORT.json. Prints "report ok" or the first problem."""
import json
import sys

INT, NUM, STR, BOOL = int, (int, float), str, "bool"
SCHEMA = {
    "schema": STR, "version": INT,
    "phases": [{"name": STR, "ms": NUM, "aten_ops": INT, "delegate_calls": INT,
                "copies": INT}],
    "methods": [{
        "name": STR, "aten_ops": INT, "instructions": INT,
        "delegated_ops": {"*": INT},
        "delegates": [{"backend": STR, "call_sites": INT, "scratch_bytes": [INT]}],
        "write_back": {"copies": [{"state": STR, "moved_up": INT}], "in_place": INT,
                       "snapshots": INT},
        "memory_plan": {"algorithm": STR, "planner": STR, "planned_bytes": INT,
                        "lower_bound_bytes": INT, "arena_sizes": [INT],
                        "delegate_scratch_bytes": INT, "delegates_without_scratch": INT},
    }],
    "ops": [{"op": STR, "count": INT, "delegated": {"*": INT}, "portable": INT,
             "refused": [{"reason": STR, "count": INT}], "kernel": STR}],
    "regions": [{"function": STR, "index": INT, "backend": STR, "ops": INT}],
    "refused": [{"method": STR, "op": STR, "location": STR, "reasons": STR}],
    "output": {"file_bytes": INT, "program_bytes": INT,
               "segments": [{"kind": STR, "bytes": INT}],
               "segment_kinds": [{"kind": STR, "segments": INT, "bytes": INT}]},
    "warnings": [STR],
    "diagnostics": [{"severity": STR, "location": STR, "node": STR, "text": STR,
                     "notes": [{"location": STR, "text": STR}]}],
    "result": {"ok": BOOL, "failed_during": STR},
}


def check(value, schema, where):
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return "%s: expected an object" % where
        if "*" in schema:
            for k, v in value.items():
                err = check(v, schema["*"], "%s.%s" % (where, k))
                if err:
                    return err
            return None
        for k in schema:
            if k not in value:
                return "%s: missing key '%s'" % (where, k)
        for k in value:
            if k not in schema:
                return "%s: unknown key '%s'" % (where, k)
            err = check(value[k], schema[k], "%s.%s" % (where, k))
            if err:
                return err
        return None
    if isinstance(schema, list):
        if not isinstance(value, list):
            return "%s: expected an array" % where
        for i, v in enumerate(value):
            err = check(v, schema[0], "%s[%d]" % (where, i))
            if err:
                return err
        return None
    if schema == BOOL:
        return None if isinstance(value, bool) else "%s: expected a bool, got %r" % (where, value)
    if isinstance(value, bool) or not isinstance(value, schema):
        return "%s: expected %s, got %r" % (where, schema, value)
    return None


report = json.load(open(sys.argv[1]))
problem = check(report, SCHEMA, "report")
if not problem and (report["schema"] != "ptec-compile-report" or report["version"] != 1):
    problem = "report: schema/version is %s %s" % (report["schema"], report["version"])
print(problem or "report ok")
sys.exit(1 if problem else 0)
