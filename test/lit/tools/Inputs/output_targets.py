#!/usr/bin/env python3
"""Every output option of every tool against every kind of target
(docs/tools/aot-compile.md, "Outputs"; serde/pte/OutputTarget.h).

For each option the reference bytes are written to a regular file first;
then, in a fresh temporary folder each time, the option names:

  link-file   a symlink to a regular file: the target gets the bytes, the
              link stays a link to it
  link-fifo   a symlink to a FIFO (a device-like target): the bytes go
              through the FIFO, link and FIFO stay as they were
  fifo        a FIFO: the bytes go through it, it stays a FIFO
  dash        `-`: the bytes on standard output (options that stream)
  directory   a directory: exit 1, "it is a directory", nothing written
  read-only   a file in a read-only folder: exit 1, nothing written (skipped
              when running as root, who may write there anyway)

and nothing else in the folder changes (names, kinds, link targets and
bytes are compared before and after). A failed compile leaves an existing
output as it was. Prints one line per case and a count; exits 1 on any
failure.

  output_targets.py MODELS_DIR
"""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

failures = []
cases = 0
TIMEOUT = 300


def check(cond, what):
    global cases
    cases += 1
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def snapshot(folder):
    """name -> (kind, link target or content hash) for everything in folder."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            p = os.path.join(root, name)
            rel = os.path.relpath(p, folder)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[rel] = ("file", hashlib.sha256(f.read()).hexdigest(),
                                stat.S_IMODE(st.st_mode))
            else:
                out[rel] = (stat.filemode(st.st_mode)[0], stat.S_IMODE(st.st_mode))
    return out


class FifoReader:
    """Reads a FIFO to its end in a thread (the tool is the writer)."""

    def __init__(self, path):
        self.path, self.data = path, None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        with open(self.path, "rb") as f:
            self.data = f.read()

    def finish(self):
        if self.data is None and self.thread.is_alive():
            # The tool never opened it: let the reader go.
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        self.thread.join(10)
        return self.data


class Option:
    """One output option: how to run the tool with `target` as the file,
    and the folder the run happens in."""

    def __init__(self, name, argv, streams=True, compare=None, name_in_dir=False):
        self.name, self.argv, self.streams = name, argv, streams
        self.compare = compare or (lambda got, want: got == want)
        # pte-run writes output_0.npy inside --output-dir: the target is
        # that file, the option names its folder.
        self.name_in_dir = name_in_dir

    def run(self, folder, target):
        argv = self.argv(folder, target)
        return subprocess.run(argv, cwd=folder, capture_output=True, timeout=TIMEOUT)


def report_same(got, want):
    try:
        a, b = json.loads(got), json.loads(want)
    except ValueError:
        return False
    return a.keys() == b.keys() and a.get("ops") == b.get("ops")


def options(models):
    mlp = os.path.join(models, "mlp", "model.pt2")
    aot = lambda extra: (lambda d, t: ["aot-compile", mlp, *extra(d, t)])
    return [
        Option("aot-compile -o (.pte)", aot(lambda d, t: ["-o", t])),
        Option("aot-compile -o (IR)", aot(lambda d, t: ["--compile-to=import", "-o", t])),
        Option("aot-compile --external-weights",
               aot(lambda d, t: ["-o", os.path.join(d, "side.pte"), "--external-weights=" + t])),
        Option("aot-compile --report-file",
               aot(lambda d, t: ["-o", os.path.join(d, "side.pte"), "--report=json",
                                 "--report-file", t]), compare=report_same),
        Option("aot-compile --debug-map",
               aot(lambda d, t: ["-o", os.path.join(d, "side.pte"), "--debug-map", t])),
        Option("aot-compile --plan-svg",
               aot(lambda d, t: ["-o", os.path.join(d, "side.pte"), "--plan-svg", t])),
        Option("aot-compile --partition-dot",
               aot(lambda d, t: ["--backend", "demo", "-o", os.path.join(d, "side.pte"),
                                 "--partition-dot", t])),
        Option("ptec-opt -o",
               lambda d, t: ["ptec-opt", os.path.join(d, "in.mlir"), "-o", t]),
        Option("pte-inspect --plan-svg",
               lambda d, t: ["pte-inspect", os.path.join(d, "in.pte"), "--plan-svg", t]),
        Option("pte-run --output-dir (output_0.npy)",
               lambda d, t: ["pte-run", os.path.join(d, "in.pte"), "--output-dir",
                             os.path.dirname(t)], streams=False, name_in_dir=True),
    ]


def prepare(folder, models):
    """Inputs the ptec-opt, pte-inspect and pte-run cases read."""
    mlp = os.path.join(models, "mlp", "model.pt2")
    subprocess.run(["aot-compile", mlp, "-o", os.path.join(folder, "in.pte")], check=True)
    subprocess.run(["aot-compile", mlp, "--compile-to=legalize", "-o",
                    os.path.join(folder, "in.mlir")], check=True)


def reference(opt, models):
    with tempfile.TemporaryDirectory() as d:
        prepare(d, models)
        target = os.path.join(d, "out", "output_0.npy") if opt.name_in_dir else \
            os.path.join(d, "ref.out")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        r = opt.run(d, target)
        if r.returncode != 0:
            sys.exit(f"{opt.name}: the reference run failed: {r.stderr.decode()}")
        with open(target, "rb") as f:
            return f.read()


def one_case(opt, kind, models, want):
    with tempfile.TemporaryDirectory() as d:
        prepare(d, models)
        out = os.path.join(d, "out")
        os.mkdir(out)
        name = os.path.join(out, "output_0.npy" if opt.name_in_dir else "x.out")
        reader = None
        expect_changed = set()
        if kind == "link-file":
            real = os.path.join(d, "real.bin")
            with open(real, "wb") as f:
                f.write(b"old bytes")
            os.symlink(real, name)
            expect_changed = {"real.bin"}
            # --partition-dot FILE also writes FILE.svg where Graphviz's dot is
            # installed (never through a link: it is named after the link).
            if opt.name == "aot-compile --partition-dot" and shutil.which("dot"):
                expect_changed.add("out/x.out.svg")
        elif kind == "link-fifo":
            fifo = os.path.join(d, "pipe")
            os.mkfifo(fifo)
            os.symlink(fifo, name)
            reader = FifoReader(fifo)
        elif kind == "fifo":
            os.mkfifo(name)
            reader = FifoReader(name)
        elif kind == "dash":
            name = "-"
        elif kind == "directory":
            os.mkdir(name)
        elif kind == "read-only":
            os.chmod(out, 0o555)
        before = snapshot(d)
        r = opt.run(d, name)
        got_fifo = reader.finish() if reader else None
        after = snapshot(d)
        label = f"{opt.name} -> {kind}"
        if kind == "read-only":
            os.chmod(out, 0o755)
        # Outputs the command writes besides the one under test (side.pte) are
        # expected; the rest of the folder must be as it was.
        changed = {k for k in set(before) | set(after)
                   if before.get(k) != after.get(k) and not k.startswith("side.")}
        if kind in ("directory", "read-only"):
            why = "it is a directory" if kind == "directory" else "Permission denied"
            check(r.returncode == 1 and why in r.stderr.decode(),
                  f"{label}: exit 1 saying '{why}' (exit {r.returncode}: "
                  f"{r.stderr.decode().strip()[:200]!r})")
            check(before == after, f"{label}: nothing written, nothing left behind")
            return
        check(r.returncode == 0, f"{label}: exit 0 ({r.stderr.decode().strip()[:200]!r})")
        if kind == "link-file":
            with open(os.path.join(d, "real.bin"), "rb") as f:
                check(opt.compare(f.read(), want), f"{label}: the link's target has the bytes")
            check(os.path.islink(name) and os.readlink(name) == os.path.join(d, "real.bin"),
                  f"{label}: the link is still the same link")
        elif kind in ("link-fifo", "fifo"):
            check(got_fifo is not None and opt.compare(got_fifo, want),
                  f"{label}: the bytes came through the FIFO")
            if kind == "link-fifo":
                check(os.path.islink(name) and stat.S_ISFIFO(os.stat(name).st_mode),
                      f"{label}: still a link to a FIFO")
            else:
                check(stat.S_ISFIFO(os.lstat(name).st_mode), f"{label}: still a FIFO")
        elif kind == "dash":
            check(opt.compare(r.stdout, want), f"{label}: the bytes on standard output")
            check(not os.path.exists(os.path.join(d, "-")), f"{label}: no file named '-'")
        check(changed == expect_changed,
              f"{label}: nothing else changed (changed: {sorted(changed)})")


def failed_compile_keeps_outputs(models):
    """A compile that fails leaves every existing output as it was."""
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.pt2")
        with open(os.path.join(models, "mlp", "model.pt2"), "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 2])
        names = ["o.pte", "o.ptd", "map.json", "plan.svg", "g.dot"]
        for n in names:
            with open(os.path.join(d, n), "w") as f:
                f.write("previous " + n)
        before = snapshot(d)
        r = subprocess.run(["aot-compile", bad, "--backend", "demo", "-o", "o.pte",
                            "--external-weights=o.ptd", "--debug-map", "map.json",
                            "--plan-svg", "plan.svg", "--partition-dot", "g.dot"],
                           cwd=d, capture_output=True, timeout=TIMEOUT)
        check(r.returncode == 1, f"a failed compile exits 1 (got {r.returncode})")
        check(snapshot(d) == before, "a failed compile leaves every existing output as it was")


def main():
    models = sys.argv[1]
    kinds = ["link-file", "link-fifo", "fifo", "dash", "directory", "read-only"]
    for opt in options(models):
        want = reference(opt, models)
        for kind in kinds:
            if kind == "dash" and not opt.streams:
                continue
            if kind == "read-only" and os.geteuid() == 0:
                print(f"skipped: {opt.name} -> read-only (running as root, who may write "
                      "into a read-only folder)")
                continue
            one_case(opt, kind, models, want)
    failed_compile_keeps_outputs(models)
    print(f"output targets: {cases} checks, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
