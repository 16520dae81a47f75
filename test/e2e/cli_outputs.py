#!/usr/bin/env python3
"""aot-compile's outputs are written all or none, and special files are
written in place (docs/tools/aot-compile.md, "Outputs").

- A compile with every side output (--report-file, --plan-svg, --debug-map,
  --partition-dot) writes them all and leaves no temporary behind.
- One side output that cannot be written (a missing folder) fails the
  command (exit 1) with a message naming the file and why, and leaves
  nothing: no .pte, no other output, no temporary.
- -o naming a character device (a copy of /dev/null, made with mknod when
  allowed, else /dev/null itself) is written into, not replaced by a regular
  file; a device that refuses the bytes (/dev/full) fails with its reason.

  cli_outputs.py --bin BUILD/bin --model test/models/mlp
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def device_copy(folder, name, major_minor, original):
    """A character device like `original` inside `folder`, or `original`
    itself when this user may not make one (then no rename could replace it
    either)."""
    path = os.path.join(folder, name)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(*major_minor))
        return path
    except OSError:
        return original


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    aot = os.path.join(args.bin, "aot-compile")
    pt2 = os.path.join(args.model, "model.pt2")

    def run(*cmd):
        return subprocess.run([aot, pt2, *cmd], capture_output=True, text=True)

    with tempfile.TemporaryDirectory() as d:
        out = lambda n: os.path.join(d, n)
        r = run("--backend", "demo", "-o", out("m.pte"), "--report=json", "--report-file",
                out("r.json"), "--plan-svg", out("p.svg"), "--debug-map", out("map.json"),
                "--partition-dot", out("g.dot"))
        check(r.returncode == 0, f"every output written (exit {r.returncode}: {r.stderr.strip()})")
        names = sorted(n for n in os.listdir(d) if not n.endswith(".dot.svg"))
        check(names == ["g.dot", "m.pte", "map.json", "p.svg", "r.json"],
              f"exactly the outputs, no temporaries: {names}")

    for side in (["--plan-svg", "missing/p.svg"], ["--report=text", "--report-file", "missing/r.txt"],
                 ["--debug-map", "missing/map.json"], ["--partition-dot", "missing/g.dot"]):
        with tempfile.TemporaryDirectory() as d:
            side = [os.path.join(d, a) if a.startswith("missing/") else a for a in side]
            extra = ["--backend", "demo"] if "--partition-dot" in side else []
            r = run(*extra, "-o", os.path.join(d, "m.pte"), "--external-weights", *side)
            flag = side[0].split("=")[0]
            check(r.returncode == 1, f"{flag} into a missing folder: exit 1 (got {r.returncode})")
            check("No such file or directory" in r.stderr and "missing/" in r.stderr,
                  f"{flag}: the message names the file and why: {r.stderr.strip()!r}")
            check(sorted(os.listdir(d)) == [], f"{flag}: nothing written: {os.listdir(d)}")

    with tempfile.TemporaryDirectory() as d:
        null = device_copy(d, "null", (1, 3), "/dev/null")
        for what, cmd in (("a .pte", ["-o", null]),
                          ("IR", ["--compile-to=import", "-o", null]),
                          ("a .pte with --report and --plan-svg",
                           ["-o", null, "--report=json", "--report-file", os.path.join(d, "r.json"),
                            "--plan-svg", os.path.join(d, "p.svg")])):
            r = run(*cmd)
            check(r.returncode == 0, f"{what} into {null}: exit 0 ({r.stderr.strip()})")
            check(stat.S_ISCHR(os.stat(null).st_mode), f"{what}: {null} is still a device")
        full = device_copy(d, "full", (1, 7), "/dev/full")
        r = run("-o", full)
        check(r.returncode == 1 and "No space left on device" in r.stderr,
              f"a .pte into {full}: exit 1 with the device's reason ({r.returncode}: "
              f"{r.stderr.strip()!r})")
        check(stat.S_ISCHR(os.stat(full).st_mode), f"{full} is still a device")
        left = sorted(n for n in os.listdir(d) if n not in ("null", "full", "r.json", "p.svg"))
        check(left == [], f"no temporaries next to the devices: {left}")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
