#!/usr/bin/env python3
"""Checks of the sweeps' own machinery (test/conformance/sweep), which every table
of op-coverage.md, backend-suite.md and model-coverage.md depends on:

- tools: a child's exit is classified as the sweeps count it (0: ok; a non-zero exit:
  refused, with the first error line and without the node's source location; a
  signal or a time-out: crashed);
- report: the operator a refusal line names, for ptec's and upstream's messages;
- pool: a worker that dies or hangs costs only the item it was on (recorded as
  crashed), the other items still get their results;
- cache: only fresh upstream results are kept, and a file made under another key
  (other versions, other judging) is ignored;
- compare (with the modern-PyTorch venv, else skipped with a note): a 0-d output
  stays 0-d, dtype and shape must agree, NaN equals NaN, and the float64 arbiter.

    sweep_selftest.py            (exit 0: all passed; 1: a check failed)
"""
import os
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sweep import cache, env, pool, report, tools  # noqa: E402

FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def py(code):
    return [sys.executable, "-c", code]


def test_tools():
    r = tools.run(py("print('fine')"), 30)
    check(tools.outcome_of(r, "compile") is None, "exit 0 is no failure")
    r = tools.run(py("import sys; print('a/b/model.py:12: error: unknown operator "
                     "\\'torch.ops.aten.diff.default\\''); print('noise'); sys.exit(1)"), 30)
    o = tools.outcome_of(r, "compile")
    check(o and o["status"] == "refused", "exit 1 is a refusal")
    check(o and o["error"] == "error: unknown operator 'torch.ops.aten.diff.default'",
          f"the refusal's first error line, without its source location: {o and o['error']}")
    r = tools.run(py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), 30)
    o = tools.outcome_of(r, "pte-run")
    check(o and o["status"] == "crashed" and "SIGSEGV" in o["error"],
          f"a signal is a crash: {o and o['error']}")
    r = tools.run(py("import time; time.sleep(30)"), 1)
    o = tools.outcome_of(r, "pte-run")
    check(o and o["status"] == "crashed" and "timed out" in o["error"], "a time-out is a crash")


def test_op_of():
    cases = {
        "error: unknown operator 'torch.ops.aten.__and__.Tensor' (node 'and_')": "aten::__and__.Tensor",
        "error: operator 'aten::to.dtype' has no out-variant, so it cannot run": "aten::to.dtype",
        "error: no portable kernel for 'aten::addcdiv.out' (needed by 'aten::addcdiv')": "aten::addcdiv",
        "SpecViolationError: Operator torch._ops.aten.angle.default is not in Core ATen opset": "aten::angle",
        "error: cannot functionalize a write through 'aten::to.dtype_layout': no inverse": "aten::to.dtype_layout",
        "executorch runtime: ERROR: Program::load_method(forward) failed: Error::OperatorMissing": None,
    }
    for line, want in cases.items():
        got = report.op_of(line)
        check(got == want, f"op_of({line[:50]}...) = {got!r}, expected {want!r}")
    k = report.reason_key({"error": "executorch runtime: error 17 at node 42"})
    check(k == ["executorch runtime: error N at node N"], f"a reason without an operator: {k}")


def _worker(item):
    if item == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "hang":
        time.sleep(120)
    return {"value": item.upper()}


def test_pool():
    items = ["a", "crash", "b", "hang", "c", "d"]
    got = pool.run_pool(items, lambda ids, out: [sys.executable, os.path.abspath(__file__),
                                                 "--worker", ids, out],
                        jobs=2, item_timeout=8)
    check(sorted(got) == sorted(items), f"every item has a result: {sorted(got)}")
    for i in ("a", "b", "c", "d"):
        check(got.get(i) == {"value": i.upper()}, f"item {i} ran: {got.get(i)}")
    check("worker_died" in got.get("crash", {}), f"a crashing item is recorded: {got.get('crash')}")
    check("timed out" in got.get("hang", {}).get("worker_died", ""),
          f"a hanging item is recorded: {got.get('hang')}")


def test_cache():
    os.environ["PTEC_SWEEP_CACHE"] = tempfile.mkdtemp(prefix="sweep_selftest_")
    c = cache.UpstreamCache("t.json", {"v": 1})
    c.add("p1", {"ptec_portable": {"status": "matched"},
                 "upstream_portable": {"status": "refused", "error": "x"},
                 "upstream_xnnpack": {"status": "matched", "cached": True}})
    c.close()
    again = cache.UpstreamCache("t.json", {"v": 1})
    check(again.entries == {"p1": {"upstream_portable": {"status": "refused", "error": "x"}}},
          f"only fresh upstream results are kept: {again.entries}")
    other = cache.UpstreamCache("t.json", {"v": 2})
    check(other.entries == {}, "a cache made under another key is ignored")
    snap = again.snapshot()
    check(cache.read_snapshot(snap) == again.entries, "workers read the driver's snapshot")
    again.close()


def test_compare():
    try:
        import numpy as np
        import torch
    except ImportError:
        print("note: compare checks skipped (no torch here; scripts/venv.sh)")
        return
    from sweep import compare
    d = tempfile.mkdtemp(prefix="sweep_selftest_")

    def npy(name, arr):
        p = os.path.join(d, name)
        np.save(p, arr)
        return p
    f = npy("scalar.npy", np.array(3.0, dtype=np.float32))
    check(compare.compare([f], [torch.tensor(3.0)]) is None, "a 0-d output stays 0-d")
    check(compare.compare([f], [torch.tensor([3.0])]) is not None, "shape [] is not [1]")
    f = npy("i64.npy", np.array([1, 2], dtype=np.int32))
    check(compare.compare([f], [torch.tensor([1, 2])]) is not None, "int32 is not int64")
    f = npy("nan.npy", np.array([np.nan, 1.0], dtype=np.float32))
    check(compare.compare([f], [torch.tensor([float("nan"), 1.0])]) is None, "NaN equals NaN")
    check(compare.compare([f], [torch.tensor([float("nan"), 1.001])]) is not None,
          "float32 defaults: 1e-3 off is wrong")
    check(compare.compare([f], [torch.tensor([1.0, 1.0])]) is not None,
          "NaN where eager is not is wrong")
    check(compare.compare([f], [torch.tensor([0.0])], shape_only=True) is not None,
          "shape only still checks the shape")
    # The arbiter: far from float32 eager yet as close to float64 as float32 eager is.
    ref = torch.tensor([1e9 + 1000.0], dtype=torch.float64)
    got = npy("big.npy", np.array([1e9 + 1000.0 + 256.0], dtype=np.float32))
    ok, _ = compare.arbitrate([got], [torch.tensor([1e9 + 1000.0 - 128.0])], [ref], 1e-4)
    check(ok, "within 10x of float32 eager's own error: noise")
    ok, _ = compare.arbitrate([got], [torch.tensor([1e9 + 1000.0])], [ref], 1e-4)
    check(not ok, "float32 eager exact, the program 256 off: wrong")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        pool.worker_loop(pool.worker_ids(sys.argv[2]), sys.argv[3], _worker)
        return 0
    try:
        import torch  # noqa: F401
    except ImportError:
        py_venv = env.venv_python()
        if py_venv and os.path.realpath(os.path.dirname(os.path.dirname(py_venv))) != \
                os.path.realpath(sys.prefix):
            os.execv(py_venv, [py_venv] + sys.argv)
    for t in (test_tools, test_op_of, test_pool, test_cache, test_compare):
        t()
    print(f"{len(FAILED)} failed" if FAILED else "all passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
