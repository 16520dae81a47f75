"""pytest plugin: ptec's lowering flows in ExecuTorch's backend test suite.

    PTEC_BIN=BUILD/bin pytest -p ptec_flows --pyargs executorch.backends.test.suite.operators

The suite (executorch.backends.test.suite) parametrizes every test over the flows of
`flow.all_flows()`, each a TestFlow whose Tester runs export -> lower -> to_executorch
-> serialize -> run on ExecuTorch's runtime -> compare with the exported program. This
plugin adds two flows whose lowering stage is ptec:

- `ptec`: the suite's ExportedProgram is saved with torch.export.save (.pt2) and
  compiled by `aot-compile`; `ptec_xnnpack`: the same with `--backend xnnpack`.
- The .pte runs on upstream's C++ runtime: the prebuilt executorch-runner (PTEC_ORACLE)
  in a child process, so that a crash fails one test instead of the session; without
  it (or PTEC_SUITE_RUNTIME=pybind), the executorch package's bindings as the
  upstream flows use.

A compile refusal is the suite's "Lowering Failed", a runtime error "PTE Run Failed",
a difference "Output Mismatch" (the suite's own tolerance, atol 1e-1 / rtol 4e-2, for
every flow). Both flows are marked not delegating, so the suite always runs their
programs (it skips the run of a delegating flow that delegated nothing).

Environment: PTEC_BIN (aot-compile; required for the ptec flows), PTEC_ORACLE,
PTEC_SUITE_FLOWS (comma-separated flows to keep, e.g. "ptec,portable"; default all
registered), PTEC_SUITE_REPORT (append one JSON line per test: flow, outcome, the
suite's result detail and error), PTEC_SUITE_SEED (the suite's input seed; default 0).
"""
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest
import torch

import executorch.backends.test.suite.flow as flow_mod
from executorch.backends.test.harness import Tester
from executorch.backends.test.harness.stages import Serialize, Stage, StageType
from executorch.backends.test.suite.flow import TestFlow

_WORK = tempfile.mkdtemp(prefix="ptec_suite_")


# "file:line: " before a diagnostic: the exported node's Python line (dropped so that
# the same refusal reads the same in every test).
_LOC_RE = re.compile(r"^\S+?:\d+(?::\d+)?: (?=error|warning|note)")


def _first_error(out):
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    line = next((l for l in lines if "error" in l.lower()), lines[-1] if lines else "")
    return _LOC_RE.sub("", line)


class _EdgeView:
    """What the suite's runner reads from a lowered artifact: the program before and
    after delegation (for its op counts) and, after to_executorch, the buffer."""

    def __init__(self, ep, buffer):
        self._edge_programs = {"forward": ep}
        self._etrecord = type("ETRecordView", (), {"edge_dialect_program": ep})()
        self.buffer = buffer

    def exported_program(self):
        return self._edge_programs["forward"]


class PtecLower(Stage):
    """The lowering stage: torch.export.save, then aot-compile (a refusal raises)."""

    def __init__(self, backend):
        self.backend = backend
        self.ep = None
        self.view = None

    def stage_type(self):
        return StageType.TO_EDGE_TRANSFORM_AND_LOWER

    def run(self, artifact, inputs=None, generate_etrecord=False):
        self.ep = artifact
        d = tempfile.mkdtemp(dir=_WORK)
        pt2, pte = os.path.join(d, "model.pt2"), os.path.join(d, "model.pte")
        torch.export.save(artifact, pt2)
        cmd = [os.path.join(os.environ["PTEC_BIN"], "aot-compile"), pt2, "-o", pte,
               "--no-progress"]
        if self.backend != "portable":
            cmd += ["--backend", self.backend]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=900)
        if p.returncode != 0:
            why = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
            raise RuntimeError(f"aot-compile {why}: {_first_error(p.stdout)}")
        with open(pte, "rb") as f:
            self.view = _EdgeView(artifact, f.read())

    @property
    def artifact(self):
        return self.view

    @property
    def graph_module(self):
        return self.ep.graph_module


class PtecToExecutorch(Stage):
    """aot-compile already wrote the program: this stage hands its bytes on."""

    def __init__(self, *args, **kwargs):
        self.view = None

    def stage_type(self):
        return StageType.TO_EXECUTORCH

    def run(self, artifact, inputs=None):
        self.view = artifact

    @property
    def artifact(self):
        return self.view

    @property
    def graph_module(self):
        return self.view.exported_program().graph_module


class PtecSerialize(Serialize):
    """Runs the program on upstream's C++ runtime in a child process (else the bindings)."""

    def run_artifact(self, inputs):
        oracle = os.environ.get("PTEC_ORACLE")
        if os.environ.get("PTEC_SUITE_RUNTIME") == "pybind" or not oracle \
                or not os.path.exists(oracle):
            return super().run_artifact(inputs)
        flat, _ = torch.utils._pytree.tree_flatten(inputs)
        d = tempfile.mkdtemp(dir=_WORK)
        pte = os.path.join(d, "model.pte")
        with open(pte, "wb") as f:
            f.write(self.buffer)
        cmd = [oracle, pte, "--out_dir", d, "--no-print", "--threads", "1"]
        for i, x in enumerate(flat):
            np.save(os.path.join(d, f"in{i}.npy"), x.detach().contiguous().numpy())
            cmd += ["--input", os.path.join(d, f"in{i}.npy")]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=1200)
        if p.returncode != 0:
            why = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
            raise RuntimeError(f"executorch-runner {why}: {_first_error(p.stdout)}")
        outs = sorted((int(f[len("call0_out"):-4]), f) for f in os.listdir(d)
                      if f.startswith("call0_out") and f.endswith(".npy"))
        return [torch.from_numpy(np.load(os.path.join(d, f))) for _, f in outs]


def _tester_factory(backend):
    def make(module, example_inputs, dynamic_shapes=None, **kwargs):
        stages = Tester.default_stage_classes()
        stages[StageType.TO_EDGE_TRANSFORM_AND_LOWER] = lambda *a, **k: PtecLower(backend)
        stages[StageType.TO_EXECUTORCH] = PtecToExecutorch
        stages[StageType.SERIALIZE] = PtecSerialize
        return Tester(module, example_inputs, stage_classes=stages,
                      dynamic_shapes=dynamic_shapes)
    return make


PTEC_FLOWS = [
    TestFlow("ptec", backend="ptec", tester_factory=_tester_factory("portable"),
             is_delegated=False),
    TestFlow("ptec_xnnpack", backend="ptec", tester_factory=_tester_factory("xnnpack"),
             is_delegated=False),
]

_upstream_all_flows = flow_mod.all_flows


def all_flows():
    flows = dict(_upstream_all_flows())
    if os.environ.get("PTEC_BIN"):
        flows.update({f.name: f for f in PTEC_FLOWS})
    keep = os.environ.get("PTEC_SUITE_FLOWS")
    if keep:
        names = keep.split(",")
        flows = {n: flows[n] for n in names if n in flows}
    return flows


# Before the suite's conftest imports all_flows (pytest loads -p plugins first).
flow_mod.all_flows = all_flows


def pytest_configure(config):
    from executorch.backends.test.suite.reporting import (begin_test_session,
                                                          get_active_test_session)
    # A fixed seed: the same inputs for every flow and every run (the suite otherwise
    # draws a new seed per test when no session is active).
    if get_active_test_session() is None:
        begin_test_session(None, seed=int(os.environ.get("PTEC_SUITE_SEED", "0")))


def _id(item):
    """A test's id across runs: its file and name with parameters (test_add::t[ptec])."""
    return os.path.basename(str(item.path))[:-3] + "::" + item.name


def _flow(item):
    cs = getattr(item, "callspec", None)
    flow = cs.params.get("test_runner") if cs else None
    return getattr(flow, "name", None)


def _write(rec):
    path = os.environ.get("PTEC_SUITE_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def pytest_collection_modifyitems(config, items):
    """Drops the tests a previous process already finished (PTEC_SUITE_SKIP: their ids)."""
    path = os.environ.get("PTEC_SUITE_SKIP")
    if not path or not os.path.exists(path):
        return
    with open(path) as f:
        done = set(json.load(f))
    keep = [i for i in items if _id(i) not in done]
    gone = [i for i in items if _id(i) in done]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    _write({"id": _id(item), "flow": _flow(item), "start": True})


def _record(item, rep):
    runner = getattr(item, "funcargs", {}).get("test_runner")
    details = []
    for r in getattr(runner, "_results", []) or []:
        err = "" if r.error is None else " ".join(str(r.error).split())[:300]
        details.append({"result": r.result.name, "error": err})
    err = ""
    if rep.outcome != "passed" and rep.longrepr is not None:
        text = str(rep.longrepr)
        if isinstance(rep.longrepr, tuple):  # a skip: (file, line, reason)
            text = str(rep.longrepr[2])
        err = _first_error(text)[:300]
    for d in details:  # the suite's own error (the cause) says more than the traceback
        if d["error"]:
            err = d["error"]
    outcome = rep.outcome
    if hasattr(rep, "wasxfail"):
        outcome = "xfail" if rep.outcome == "skipped" else "xpass"
    _write({"id": _id(item), "flow": _flow(item), "when": rep.when, "outcome": outcome,
            "details": details, "error": err})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" or (rep.when == "setup" and rep.outcome != "passed"):
        _record(item, rep)
