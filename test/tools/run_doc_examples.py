#!/usr/bin/env python3
"""Runs the examples of the tool pages (docs/tools/*.md), so the docs cannot
drift from the tools.

Every line of a ```sh block is a command. Each page runs in a fresh folder
holding the bundled fixtures under short names (below); a page can prepare
more with hidden lines `<!-- doc-setup: COMMAND -->`, run first. A command
must exit 0, unless it ends with the comment `# exits N`. Afterwards every
.pte in the folder must pass `pte-inspect --check`, every .svg must be
well-formed XML and every .json valid JSON, so an example that writes a
broken file fails too.

  run_doc_examples.py --docs DIR --bin DIR --models DIR [--page NAME.md]

Folder contents (from test/models):
  model.pt2, x.npy, y.npy      the example MLP, its input and PyTorch's output
  prefill.pt2, decode.pt2      the two-method example
  kv.pt2, x_<k>.npy, y_<k>.npy, cache_<k>.npy   a model with a buffer, calls 0..2
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

SETUP = re.compile(r"<!--\s*doc-setup:\s*(.*?)\s*-->")
EXITS = re.compile(r"#\s*exits\s+(\d+)\b")


def examples(text):
    """(setup commands, example commands) of one page."""
    setup = SETUP.findall(text)
    cmds, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```sh" if not inside else False
            continue
        if inside and line.strip() and not line.lstrip().startswith("#"):
            cmds.append(line.strip())
    return setup, cmds


def populate(work, models):
    def cp(src, dst):
        shutil.copyfile(os.path.join(models, src), os.path.join(work, dst))
    cp("mlp/model.pt2", "model.pt2")
    cp("mlp/input_0.npy", "x.npy")
    cp("mlp/expected_0.npy", "y.npy")
    cp("two_methods/prefill.pt2", "prefill.pt2")
    cp("two_methods/decode.pt2", "decode.pt2")
    cp("mutable_buffer/model.pt2", "kv.pt2")
    for k in range(3):
        pre = "" if k == 0 else "call%d_" % k
        cp("mutable_buffer/%sinput_0.npy" % pre, "x_%d.npy" % k)
        cp("mutable_buffer/%sexpected_0.npy" % pre, "y_%d.npy" % k)
        state = "state_after_cache.npy" if k == 0 else "call%d_state_cache.npy" % k
        cp("mutable_buffer/" + state, "cache_%d.npy" % k)


def run(cmd, work, env, expect):
    p = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    if p.returncode != expect:
        tail = "\n".join(p.stdout.splitlines()[-15:])
        print("FAIL: `%s` exited %d, expected %d:\n%s" % (cmd, p.returncode, expect, tail))
        return False
    return True


def check_outputs(work, env):
    ok = True
    for path in sorted(glob.glob(os.path.join(work, "**", "*"), recursive=True)):
        rel = os.path.relpath(path, work)
        try:
            if path.endswith(".pte"):
                ok &= run("pte-inspect --check '%s' > /dev/null" % rel, work, env, 0)
            elif path.endswith(".svg"):
                ET.parse(path)
            elif path.endswith(".json"):
                json.load(open(path))
        except (ET.ParseError, ValueError) as e:
            print("FAIL: %s is not well-formed: %s" % (rel, e))
            ok = False
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--page")
    a = ap.parse_args()
    env = dict(os.environ, PATH=os.path.abspath(a.bin) + os.pathsep + os.environ["PATH"])
    pages = sorted(glob.glob(os.path.join(a.docs, "*.md")))
    if a.page:
        pages = [p for p in pages if os.path.basename(p) == a.page]
    failures, total = 0, 0
    for page in pages:
        setup, cmds = examples(open(page).read())
        if not cmds:
            continue
        name = os.path.basename(page)
        with tempfile.TemporaryDirectory() as work:
            populate(work, a.models)
            ok = all(run(c, work, env, 0) for c in setup)
            for c in cmds if ok else []:
                total += 1
                m = EXITS.search(c)
                if not run(c, work, env, int(m.group(1)) if m else 0):
                    ok = False
            ok = ok and check_outputs(work, env)
        print("%s: %d examples %s" % (name, len(cmds), "ok" if ok else "FAILED"))
        failures += 0 if ok else 1
    if total == 0:
        print("FAIL: no examples found under %s" % a.docs)
        return 1
    print("doc examples: %d commands, %d pages failed" % (total, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
