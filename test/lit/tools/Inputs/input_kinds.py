#!/usr/bin/env python3
"""Every file a tool reads is checked for its kind before it is read
(serde/io/InputFile.h): a directory, a FIFO or a character device (made in
a temporary folder: a copy of /dev/null where this user may make devices)
is refused with exit 1 and a message naming the kind, at once. Reading a
FIFO nobody writes would block; a device like /dev/zero would never end;
a directory aborted pte-run with an uncaught exception.

Each command runs with a time limit: a tool that waits on a FIFO fails the
case instead of hanging the suite. Prints one line per case and a count.

  input_kinds.py MODELS_DIR
"""
import os
import stat
import subprocess
import sys
import tempfile

failures = []
cases = 0


def check(cond, what):
    global cases
    cases += 1
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def main():
    models = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        p = lambda n: os.path.join(d, n)
        mlp = os.path.join(models, "mlp", "model.pt2")
        subprocess.run(["aot-compile", mlp, "-o", p("m.pte")], check=True)
        subprocess.run(["aot-compile", mlp, "-o", p("w.pte"), "--external-weights"], check=True)
        kinds = {}
        os.mkdir(p("dir"))
        kinds["directory"] = p("dir")
        os.mkfifo(p("fifo"))
        kinds["FIFO (named pipe)"] = p("fifo")
        try:
            os.mknod(p("null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            kinds["character device"] = p("null")
        except OSError:
            print("skipped: character devices (this user may not make one)")

        commands = {
            "pte-run MODEL": lambda f: ["pte-run", f],
            "pte-run --input": lambda f: ["pte-run", p("m.pte"), "--input", f],
            "pte-run --input (.npy name)": lambda f: ["pte-run", p("m.pte"), "--input",
                                                      link(f, ".npy")],
            "pte-run --expected": lambda f: ["pte-run", p("m.pte"), "--expected",
                                             link(f, ".npy")],
            "pte-run --data": lambda f: ["pte-run", p("w.pte"), "--data", f],
            "pte-inspect FILE": lambda f: ["pte-inspect", f],
            "pte-inspect --check --data": lambda f: ["pte-inspect", "--check", p("w.pte"),
                                                     "--data", f],
            "aot-compile INPUT.pt2": lambda f: ["aot-compile", link(f, ".pt2"), "-o",
                                                p("x.pte")],
            "aot-compile INPUT.mlir": lambda f: ["aot-compile", link(f, ".mlir"), "-o",
                                                 p("x.pte")],
            "ptec-opt INPUT": lambda f: ["ptec-opt", f],
        }
        serial = [0]

        def link(f, ext):
            # The tools pick the reader by the name: give the file one.
            serial[0] += 1
            name = p(f"named{serial[0]}{ext}")
            os.symlink(f, name)
            return name

        for what, argv in commands.items():
            for kind, path in kinds.items():
                cmd = argv(path)
                label = f"{what} <{kind}>"
                try:
                    r = subprocess.run(cmd, capture_output=True, timeout=20, text=True)
                except subprocess.TimeoutExpired:
                    check(False, f"{label}: refused at once (it waited on the file)")
                    continue
                check(r.returncode == 1 and f"not a regular file: it is a {kind}" in r.stderr,
                      f"{label}: exit 1, 'not a regular file: it is a {kind}' "
                      f"(exit {r.returncode}: {r.stderr.strip()[:200]!r})")

        # A raw input of the wrong size is refused by its size, before it is read.
        with open(p("short.bin"), "wb") as f:
            f.write(b"\0" * 7)
        r = subprocess.run(["pte-run", p("m.pte"), "--input", p("short.bin")],
                           capture_output=True, text=True, timeout=20)
        check(r.returncode == 1 and "has 7 bytes, float32" in r.stderr,
              f"a raw input of the wrong size: exit 1 ({r.returncode}: {r.stderr.strip()!r})")
    print(f"input kinds: {cases} checks, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
