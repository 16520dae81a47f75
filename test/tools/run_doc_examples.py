#!/usr/bin/env python3
"""Runs the examples of every documentation page (README.md and docs/**/*.md),
so the docs cannot drift from the tools. docs/testing.md ("Docs that run")
is the writer's guide; in short:

- Every line of a ```sh block is a command (a line ending in `\\` goes on on
  the next; lines starting with `#` are comments). Each page runs in a fresh
  folder holding the bundled fixtures under short names (below), with the
  tools on PATH, `build/bin` naming them too and `scripts/` the repository's. A command must exit 0,
  unless it ends with the comment `# exits N`.
- A fenced block right after a sh block whose info string is `output` is
  what that block prints (stdout and stderr, every command together): each
  line must appear in the output, in this order, each on a later line than
  the one before (a substring of it, as FileCheck's CHECK). Runs of spaces
  compare as one; `...` inside a line matches any text, a line of only
  `...` checks nothing (elided output); `{{regex}}` is a Python regex.
  Hidden `<!-- check: LINE -->` and `<!-- check-not: LINE -->` after a sh
  block add checks without showing them.
- Hidden lines before a block: `<!-- doc-setup: COMMAND -->` (anywhere on
  the page) runs first; `<!-- doc-file: NAME -->` writes the next fenced
  block (any language) to NAME; `<!-- doc-needs: venv|oracle|xnnpack|dot -->`
  skips the next sh block, saying so, where that is missing (the
  modern-PyTorch venv as $PY, upstream's runtime as executorch-runner on
  PATH, pte-run with XnnpackBackend, Graphviz's dot); `<!-- doc-no-run:
  WHY -->` never runs the next sh block (building ptec itself, rewriting
  fixtures) and says why.
- Afterwards every .pte in the folder must pass `pte-inspect --check`,
  every .svg must be well-formed XML and every .json valid JSON.

  run_doc_examples.py --root REPO --bin DIR --models DIR [--page PATH]
                      [--oracle RUNNER] [--python PY] [--list]

Folder contents (from test/models):
  model.pt2, x.npy, y.npy      the example MLP, its input and PyTorch's output
  prefill.pt2, decode.pt2      the two-method example
  kv.pt2, x_<k>.npy, y_<k>.npy, cache_<k>.npy   a model with a buffer, calls 0..2
  transformer.pt2              a transformer layer (47 ATen ops, layer norms)
Exit status: 0 when every example ran as its page says, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

# Hidden lines: an HTML comment alone on its line (one quoted in text is not).
SETUP = re.compile(r"^\s*<!--\s*doc-setup:\s*(.*?)\s*-->\s*$", re.M)
MARK = re.compile(r"^\s*<!--\s*(doc-file|doc-needs|doc-no-run|check|check-not):\s*(.*?)\s*-->\s*$")
EXITS = re.compile(r"#\s*exits\s+(\d+)\b")
NEEDS = ("venv", "oracle", "xnnpack", "dot")


class Block:
    def __init__(self, lang, line):
        self.lang, self.line = lang, line  # info string, first line number
        self.text = []       # the block's lines, dedented
        self.needs = []      # doc-needs before it
        self.no_run = None   # doc-no-run's reason
        self.file = None     # doc-file's name
        self.checks = []     # (kind, pattern): output lines, check, check-not


def parse(text):
    """The page's doc-setup commands and its fenced blocks, with their marks."""
    blocks, pending, cur, indent = [], {}, None, 0
    last_sh = None
    for no, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if cur is None and stripped.startswith("```"):
            cur, indent = Block(stripped[3:].strip(), no), len(line) - len(stripped)
            cur.needs = pending.pop("doc-needs", [])
            cur.no_run = pending.pop("doc-no-run", None)
            cur.file = pending.pop("doc-file", None)
            continue
        if cur is not None:
            if stripped.startswith("```"):
                blocks.append(cur)
                if cur.lang == "sh":
                    last_sh = cur
                elif cur.lang == "output":
                    if last_sh is None or blocks[-2] is not last_sh:
                        raise ValueError("line %d: an output block follows no sh block" % cur.line)
                    last_sh.checks += [("line", t) for t in cur.text]
                cur = None
            else:
                cur.text.append(line[indent:] if line[:indent].strip() == "" else stripped)
            continue
        for kind, value in MARK.findall(line):  # at most one
            if kind == "doc-needs":
                for need in value.split(","):
                    if need.strip() not in NEEDS:
                        raise ValueError("line %d: doc-needs '%s' is none of %s"
                                         % (no, need.strip(), ", ".join(NEEDS)))
                    pending.setdefault("doc-needs", []).append(need.strip())
            elif kind in ("check", "check-not"):
                if last_sh is None:
                    raise ValueError("line %d: a %s follows no sh block" % (no, kind))
                last_sh.checks.append(("line" if kind == "check" else "not", value))
            else:
                pending[kind] = value
    if cur is not None:
        raise ValueError("line %d: a fenced block is never closed" % cur.line)
    return SETUP.findall(text), blocks


def commands(block):
    """The commands of a sh block: comments dropped, continued lines joined."""
    out, partial = [], ""
    for line in block.text:
        s = line.strip()
        if not partial and (not s or s.startswith("#")):
            continue
        if s.endswith("\\"):
            partial += s[:-1] + " "
            continue
        out.append(partial + s)
        partial = ""
    if partial:
        out.append(partial.strip())
    return out


def pattern(line):
    """A check line as a regex over a whitespace-collapsed output line."""
    rx = ""
    for part in re.split(r"(\{\{.*?\}\}|\.\.\.)", " ".join(line.split())):
        if part == "...":
            rx += ".*?"
        elif part.startswith("{{") and part.endswith("}}"):
            rx += "(?:%s)" % part[2:-2]
        else:
            rx += re.escape(part)
    return re.compile(rx)


def check_output(block, output):
    """Problems with `output` against the block's checks ([] when it passes)."""
    lines = [" ".join(l.split()) for l in output.splitlines()]
    problems, at = [], 0
    for kind, text in block.checks:
        if not text.strip() or text.strip() == "...":
            continue
        rx = pattern(text)
        if kind == "not":
            bad = [l for l in lines if rx.search(l)]
            if bad:
                problems.append("must not print `%s`, but printed `%s`" % (text.strip(), bad[0]))
            continue
        found = next((k for k in range(at, len(lines)) if rx.search(lines[k])), None)
        if found is None:
            earlier = any(rx.search(l) for l in lines[:at])
            problems.append("expected `%s`%s" % (text.strip(), " (it came earlier)"
                                                 if earlier else ""))
            break
        at = found + 1
    return problems


def populate(work, models, bin_dir, root):
    def cp(src, dst):
        shutil.copyfile(os.path.join(models, src), os.path.join(work, dst))
    cp("mlp/model.pt2", "model.pt2")
    cp("mlp/input_0.npy", "x.npy")
    cp("mlp/expected_0.npy", "y.npy")
    cp("two_methods/prefill.pt2", "prefill.pt2")
    cp("two_methods/decode.pt2", "decode.pt2")
    cp("mutable_buffer/model.pt2", "kv.pt2")
    cp("transformer_layer/model.pt2", "transformer.pt2")
    for k in range(3):
        pre = "" if k == 0 else "call%d_" % k
        cp("mutable_buffer/%sinput_0.npy" % pre, "x_%d.npy" % k)
        cp("mutable_buffer/%sexpected_0.npy" % pre, "y_%d.npy" % k)
        state = "state_after_cache.npy" if k == 0 else "call%d_state_cache.npy" % k
        cp("mutable_buffer/" + state, "cache_%d.npy" % k)
    # The user guide's commands name the tools as build/bin/<tool>, and
    # scripts/example.sh is the repository's.
    os.makedirs(os.path.join(work, "build"))
    os.symlink(os.path.abspath(bin_dir), os.path.join(work, "build", "bin"))
    os.symlink(os.path.join(os.path.abspath(root), "scripts"), os.path.join(work, "scripts"))


def run(cmd, work, env, expect):
    """(ok, output) of one command."""
    p = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", timeout=600)
    if p.returncode != expect:
        tail = "\n".join(p.stdout.splitlines()[-15:])
        print("FAIL: `%s` exited %d, expected %d:\n%s" % (cmd, p.returncode, expect, tail))
        return False, p.stdout
    return True, p.stdout


def check_outputs(work, env):
    ok = True
    for path in sorted(glob.glob(os.path.join(work, "**", "*"), recursive=True)):
        rel = os.path.relpath(path, work)
        if rel.startswith("build" + os.sep) or rel.startswith("scripts" + os.sep):
            continue
        try:
            if path.endswith(".pte"):
                ok &= run("pte-inspect --check '%s' > /dev/null" % rel, work, env, 0)[0]
            elif path.endswith(".svg"):
                ET.parse(path)
            elif path.endswith(".json"):
                json.load(open(path))
        except (ET.ParseError, ValueError) as e:
            print("FAIL: %s is not well-formed: %s" % (rel, e))
            ok = False
    return ok


def available(args, bin_dir):
    """Which doc-needs this machine has."""
    have = set()
    if args.python and os.path.exists(args.python):
        have.add("venv")
    if args.oracle and os.access(args.oracle, os.X_OK):
        have.add("oracle")
    try:
        listing = subprocess.run([os.path.join(bin_dir, "pte-run"), "--help"],
                                 capture_output=True, text=True, timeout=60).stdout
        if "--xnnpack-threads" in listing:
            have.add("xnnpack")
    except OSError:
        pass
    if shutil.which("dot"):
        have.add("dot")
    return have


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


def run_page(page, rel, args, env, have):
    """(commands run, blocks skipped, ok) for one page."""
    try:
        setup, blocks = parse(open(page).read())
    except ValueError as e:
        print("%s: FAILED: %s" % (rel, e))
        return 0, 0, False
    sh = [b for b in blocks if b.lang == "sh"]
    if not sh:
        return 0, 0, True
    ran = skipped = 0
    ok = True
    with tempfile.TemporaryDirectory() as work:
        populate(work, args.models, args.bin, args.root)
        for b in blocks:
            if b.file:
                with open(os.path.join(work, b.file), "w") as f:
                    f.write("\n".join(b.text) + "\n")
        ok = all(run(c, work, env, 0)[0] for c in setup)
        for b in sh if ok else []:
            where = "%s:%d" % (rel, b.line)
            if b.no_run is not None:
                print("%s: not run: %s" % (where, b.no_run))
                skipped += 1
                continue
            missing = [n for n in b.needs if n not in have]
            if missing:
                print("%s: skipped: needs %s" % (where, ", ".join(missing)))
                skipped += 1
                continue
            output = ""
            for c in commands(b):
                ran += 1
                m = EXITS.search(c)
                good, out = run(c, work, env, int(m.group(1)) if m else 0)
                output += out
                ok &= good
            for problem in check_output(b, output):
                print("FAIL: %s: the output %s; it was:\n%s" % (where, problem,
                                                               "\n".join(output.splitlines()[-25:])))
                ok = False
        ok = ok and check_outputs(work, env)
    print("%s: %d commands%s %s" % (rel, ran, ", %d blocks skipped" % skipped if skipped else "",
                                     "ok" if ok else "FAILED"))
    return ran, skipped, ok


def pages_of(root):
    pages = [os.path.join(root, "README.md")]
    pages += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    return [p for p in pages if os.path.exists(p)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--page", help="one page, by its path under the root or its name")
    ap.add_argument("--oracle", help="upstream's executorch-runner (doc-needs: oracle)")
    ap.add_argument("--python", help="the modern-PyTorch venv's python (doc-needs: venv; "
                                     "default: the one scripts/venv.sh made, if any)")
    ap.add_argument("--list", action="store_true", help="list every sh block, run nothing")
    args = ap.parse_args()
    args.python = args.python or venv_python()
    have = available(args, args.bin)
    # BUILD_DIR: the build scripts/example.sh --no-build uses.
    env = dict(os.environ, PATH=os.path.abspath(args.bin) + os.pathsep + os.environ["PATH"],
               BUILD_DIR=os.path.dirname(os.path.abspath(args.bin)))
    if "oracle" in have:
        env["PATH"] = os.path.dirname(os.path.abspath(args.oracle)) + os.pathsep + env["PATH"]
    if "venv" in have:
        env["PY"] = args.python
    pages = pages_of(args.root)
    if args.page:
        pages = [p for p in pages if os.path.relpath(p, args.root) == args.page
                 or os.path.basename(p) == args.page]
    if args.list:
        for page in pages:
            for b in parse(open(page).read())[1]:
                if b.lang == "sh":
                    print("%s:%d %s" % (os.path.relpath(page, args.root), b.line,
                                        "; ".join(commands(b))))
        return 0
    print("doc examples: %s available" % (", ".join(sorted(have)) or "nothing optional"))
    failures = total = skipped = 0
    for page in pages:
        ran, skip, ok = run_page(page, os.path.relpath(page, args.root), args, env, have)
        total += ran
        skipped += skip
        failures += 0 if ok else 1
    if total == 0:
        print("FAIL: no examples found under %s" % args.root)
        return 1
    print("doc examples: %d commands on %d pages, %d blocks skipped, %d pages failed"
          % (total, len(pages), skipped, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
