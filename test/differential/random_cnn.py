#!/usr/bin/env python3
"""Random CNNs: --backend xnnpack against portable and eager PyTorch.

    random_cnn.py --bin BUILD/bin [--seeds 0:20] [--oracle RUNNER] [--keep DIR]
                  [--show SEED] [-v]

Each seed gives one random nn.Module built from the blocks real CNNs are
made of: convolutions (plain, depthwise, grouped, dilated, strided, with or
without bias), batch norm before a convolution, after it and alone (random
running statistics and affine parameters, so folding them matters), relu /
relu6 / hardswish / sigmoid / silu / leaky relu / elu / gelu / tanh, max and
average pooling, cat of parallel branches, split into channel groups
processed apart, residual add, multiply by a gate, squeeze-excite blocks,
channel shuffle, and a head of global pooling and a linear layer (or the
feature map itself). The module is exported the documented way
(torch.export.export in eval mode under no_grad, torch.export.save),
compiled by aot-compile for portable kernels and with --backend xnnpack, run
by pte-run (and upstream's runtime with --oracle), and every output is
compared with eager PyTorch, and the two builds with each other:
|got - want| <= atol + rtol * |want| with rtol 1e-3 and atol 1e-4 times the
largest eager output (at least 1): float32 graphs of this depth differ from
eager by about 1e-6 relative (summation order, folded batch norms).

A failure prints the seed and the module; `--show SEED` prints a seed's
module without running it; `--keep DIR` keeps every program. Run under the
ASan+UBSan tree's binaries (--bin BUILD/sanitize-asan-suite/bin) for the
memory checks. Runs itself under the modern-PyTorch venv's python
(scripts/venv.sh; PTEC_VENV); exits 77 (skipped) where that venv is not
ready. Exit 1 on any failure.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

SKIP = 77
RTOL, ATOL = 1e-3, 1e-4


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    _py = venv_python()
    if _py is None or os.environ.get("PTEC_IN_VENV"):
        print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
        sys.exit(SKIP)
    os.environ["PTEC_IN_VENV"] = "1"
    os.execv(_py, [_py] + sys.argv)


# --- blocks: each maps [N, C, H, W] to [N, C', H', W'] ---------------------

class Act(nn.Module):
    KINDS = ["relu", "relu6", "hardswish", "sigmoid", "silu", "leaky", "elu", "gelu", "tanh"]

    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        k = self.kind
        if k == "relu":
            return F.relu(x)
        if k == "relu6":
            return F.relu6(x)
        if k == "hardswish":
            return F.hardswish(x)
        if k == "sigmoid":
            return torch.sigmoid(x)
        if k == "silu":
            return F.silu(x)
        if k == "leaky":
            return F.leaky_relu(x, 0.1)
        if k == "elu":
            return F.elu(x)
        if k == "gelu":
            return F.gelu(x)
        return torch.tanh(x)

    def extra_repr(self):
        return self.kind


class Branches(nn.Module):
    """Parallel branches on one input, joined by cat on channels."""

    def __init__(self, branches):
        super().__init__()
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        return torch.cat([b(x) for b in self.branches], dim=1)


class Split(nn.Module):
    """Channels split into groups, each processed apart, joined by cat."""

    def __init__(self, sizes, parts):
        super().__init__()
        self.sizes = sizes
        self.parts = nn.ModuleList(parts)

    def forward(self, x):
        xs = torch.split(x, self.sizes, dim=1)
        return torch.cat([p(t) for p, t in zip(self.parts, xs)], dim=1)

    def extra_repr(self):
        return f"sizes={self.sizes}"


class Residual(nn.Module):
    """x + f(x) or x * f(x)."""

    def __init__(self, body, op):
        super().__init__()
        self.body, self.op = body, op

    def forward(self, x):
        y = self.body(x)
        return x + y if self.op == "add" else x * y

    def extra_repr(self):
        return self.op


class SqueezeExcite(nn.Module):
    def __init__(self, c, r, gate):
        super().__init__()
        self.reduce = nn.Conv2d(c, r, 1)
        self.expand = nn.Conv2d(r, c, 1)
        self.gate = gate

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        s = self.expand(F.relu(self.reduce(s)))
        return x * (torch.sigmoid(s) if self.gate == "sigmoid" else F.hardsigmoid(s))

    def extra_repr(self):
        return self.gate


class Shuffle(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        n, c, h, w = x.shape
        x = x.view(n, self.groups, c // self.groups, h, w).transpose(1, 2)
        return x.reshape(n, c, h, w)

    def extra_repr(self):
        return f"groups={self.groups}"


class Head(nn.Module):
    def __init__(self, c, pool, classes):
        super().__init__()
        self.pool = pool
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = x.mean((2, 3)) if self.pool == "mean" else F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)

    def extra_repr(self):
        return self.pool


def randomize_bn(bn, r):
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([r.uniform(-0.5, 0.5) for _ in range(bn.num_features)]))
        bn.running_var.copy_(torch.tensor([r.uniform(0.3, 2.0) for _ in range(bn.num_features)]))
        if bn.affine:
            bn.weight.copy_(torch.tensor([r.uniform(0.5, 1.5) for _ in range(bn.num_features)]))
            bn.bias.copy_(torch.tensor([r.uniform(-0.3, 0.3) for _ in range(bn.num_features)]))
    return bn


class Gen:
    """Random blocks from a seed; tracks channels and spatial size."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def bn(self, c):
        return randomize_bn(nn.BatchNorm2d(c, affine=self.r.random() < 0.8,
                                           eps=self.r.choice([1e-5, 1e-3])), self.r)

    def act(self):
        return Act(self.r.choice(Act.KINDS))

    def divisors(self, c):
        return [g for g in range(1, c + 1) if c % g == 0]

    def conv(self, c, h, w, same=False):
        """A convolution (+ batch norm before / after, + activation)."""
        r = self.r
        kind = r.choice(["plain", "plain", "depthwise", "grouped", "dilated", "pointwise"])
        k = r.choice([1, 3, 3, 5]) if kind != "pointwise" else 1
        dil = r.choice([2, 3]) if kind == "dilated" and k > 1 else 1
        stride = 1 if same else r.choice([1, 1, 2])
        span = dil * (k - 1) + 1
        pad = (span - 1) // 2 if (same or r.random() < 0.8) else 0
        if same and span % 2 == 0:
            k, dil, span, pad = 1, 1, 1, 0
        if h + 2 * pad < span or w + 2 * pad < span:
            k, dil, span, pad = 1, 1, 1, 0
        if kind == "depthwise":
            groups, c2 = c, c * r.choice([1, 1, 2])
        elif kind == "grouped" and c > 1:
            groups = r.choice([g for g in self.divisors(c) if g > 1] or [1])
            c2 = groups * r.choice([1, 2, 3])
        else:
            groups, c2 = 1, r.choice([4, 6, 8, 12, 16])
        layers = []
        if r.random() < 0.2:
            layers.append(self.bn(c))  # pre-activation style: BN -> act -> conv
            layers.append(self.act())
        layers.append(nn.Conv2d(c, c2, k, stride=stride, padding=pad, dilation=dil,
                                groups=groups, bias=r.random() < 0.6))
        if r.random() < 0.7:
            layers.append(self.bn(c2))
        if r.random() < 0.7:
            layers.append(self.act())
        h2 = (h + 2 * pad - span) // stride + 1
        w2 = (w + 2 * pad - span) // stride + 1
        return nn.Sequential(*layers), c2, h2, w2

    def same_shape(self, c, h, w):
        """A block that keeps [C, H, W] (for residuals and gates)."""
        r = self.r
        choice = r.choice(["conv", "conv", "bn", "act", "se"])
        if choice == "bn":
            return nn.Sequential(self.bn(c), self.act())
        if choice == "act":
            return self.act()
        if choice == "se":
            return SqueezeExcite(c, max(1, c // r.choice([2, 4])), r.choice(["sigmoid", "hard"]))
        layers = []
        m, c2, _, _ = self.conv(c, h, w, same=True)
        layers.append(m)
        if c2 != c:
            layers.append(nn.Conv2d(c2, c, 1, bias=r.random() < 0.5))
        return nn.Sequential(*layers)

    def block(self, c, h, w):
        r = self.r
        kinds = ["conv", "conv", "conv", "bn", "pool", "cat", "split", "add", "mul", "se",
                 "shuffle", "act"]
        kind = r.choice(kinds)
        if kind == "bn":
            return nn.Sequential(self.bn(c), *( [self.act()] if r.random() < 0.5 else [])), c, h, w
        if kind == "act":
            return self.act(), c, h, w
        if kind == "pool" and h >= 2 and w >= 2:
            k = r.choice([2, 3]) if min(h, w) >= 3 else 2
            stride = r.choice([1, 2, k])
            pad = r.choice([0, 0, 1]) if k == 3 else 0
            if r.random() < 0.5:
                m = nn.MaxPool2d(k, stride, pad)
            else:
                m = nn.AvgPool2d(k, stride, pad, count_include_pad=r.random() < 0.5)
            return m, c, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        if kind == "cat":
            parts, total = [], 0
            for _ in range(r.choice([2, 2, 3])):
                m, c2, _, _ = self.conv(c, h, w, same=True)
                parts.append(m)
                total += c2
            if r.random() < 0.3:
                parts.append(nn.Identity())
                total += c
            return Branches(parts), total, h, w
        if kind == "split" and c >= 2:
            cut = r.randint(1, c - 1)
            sizes = [cut, c - cut]
            parts, total = [], 0
            for s in sizes:
                m, c2, _, _ = self.conv(s, h, w, same=True)
                parts.append(m)
                total += c2
            return Split(sizes, parts), total, h, w
        if kind in ("add", "mul"):
            body = self.same_shape(c, h, w)
            if kind == "mul":
                body = nn.Sequential(body, Act(r.choice(["sigmoid", "tanh"])))
            return Residual(body, kind), c, h, w
        if kind == "se":
            return SqueezeExcite(c, max(1, c // r.choice([2, 4])), r.choice(["sigmoid", "hard"])), \
                c, h, w
        if kind == "shuffle":
            groups = [g for g in self.divisors(c) if 1 < g < c]
            if groups:
                return Shuffle(r.choice(groups)), c, h, w
        return self.conv(c, h, w)

    def model(self):
        r = self.r
        n = r.choice([1, 1, 2])
        c = r.choice([1, 3, 3, 4, 8])
        h = r.randint(6, 20)
        w = r.randint(6, 20)
        shape = (n, c, h, w)
        blocks = []
        for _ in range(r.randint(2, 7)):
            m, c, h, w = self.block(c, h, w)
            blocks.append(m)
        if r.random() < 0.7:
            blocks.append(Head(c, r.choice(["mean", "adaptive"]), r.choice([5, 10])))
        return nn.Sequential(*blocks).eval(), shape


# --- one seed --------------------------------------------------------------

# glibc fills freed memory with this byte pattern (MALLOC_PERTURB_) in the
# tools this script runs, so a read of freed memory (a pointer kept into a
# container that grew) fails loudly in an unsanitized build too, as it would
# under ASan, instead of reading stale values that happen to be right.
TOOL_ENV = dict(os.environ, MALLOC_PERTURB_="165")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600, env=TOOL_ENV)
    return p.returncode, p.stdout


def check(seed, args, tmp):
    """A list of failure messages (empty: passed) and the module's text."""
    torch.manual_seed(seed)
    model, shape = Gen(seed).model()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed + 7))
    with torch.no_grad():
        want = model(x).numpy().astype(np.float64)
        ep = torch.export.export(model, (x,))
    d = os.path.join(tmp, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    pt2, inp = os.path.join(d, "model.pt2"), os.path.join(d, "in0.npy")
    torch.export.save(ep, pt2)
    np.save(inp, x.numpy())
    atol = ATOL * max(1.0, float(np.abs(want).max()))
    failures, got = [], {}
    for backend in ("portable", "xnnpack"):
        pte = os.path.join(d, f"{backend}.pte")
        cmd = [os.path.join(args.bin, "aot-compile"), pt2, "-o", pte, "--no-progress"]
        if backend == "xnnpack":
            cmd += ["--backend", "xnnpack"]
        rc, out = run(cmd)
        if rc != 0:
            failures.append(f"[{backend}] aot-compile exit {rc}: {out.strip()[-600:]}")
            continue
        runners = [("pte-run", [os.path.join(args.bin, "pte-run"), pte, "--input", inp,
                                "--output-dir"], "output_0.npy")]
        if args.oracle:
            runners.append(("executorch", [args.oracle, pte, "--input", inp, "--out_dir"],
                            "call0_out0.npy"))
        for rname, base, fname in runners:
            od = os.path.join(d, f"{backend}_{rname}")
            os.makedirs(od, exist_ok=True)
            rc, out = run(base + [od])
            if rc != 0:
                failures.append(f"[{backend}/{rname}] exit {rc}: {out.strip()[-600:]}")
                continue
            y = np.load(os.path.join(od, fname)).astype(np.float64)
            got[(backend, rname)] = y
            if y.shape != want.shape:
                failures.append(f"[{backend}/{rname}] shape {y.shape}, eager {want.shape}")
                continue
            err = np.abs(y - want)
            if not (err <= atol + RTOL * np.abs(want)).all():
                failures.append(f"[{backend}/{rname}] vs eager: max abs err {err.max():.3g} "
                                f"(outputs up to {np.abs(want).max():.3g})")
    a, b = got.get(("portable", "pte-run")), got.get(("xnnpack", "pte-run"))
    if a is not None and b is not None and a.shape == b.shape:
        err = np.abs(a - b)
        if not (err <= atol + RTOL * np.abs(a)).all():
            failures.append(f"xnnpack vs portable: max abs err {err.max():.3g}")
    return failures, str(model), shape


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", default="0:20", help="FIRST:END (END excluded)")
    ap.add_argument("--oracle", help="upstream's executorch-runner (also run there)")
    ap.add_argument("--keep", help="keep every program here")
    ap.add_argument("--show", type=int, help="print this seed's module and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.show is not None:
        model, shape = Gen(args.show).model()
        print(f"input {shape}\n{model}")
        return 0
    if args.oracle and not os.path.exists(args.oracle):
        args.oracle = None
    first, end = (int(s) for s in args.seeds.split(":"))
    tmp = args.keep or tempfile.mkdtemp(prefix="random_cnn_")
    failed = 0
    for seed in range(first, end):
        try:
            failures, text, shape = check(seed, args, tmp)
        except subprocess.TimeoutExpired as e:
            failures, text, shape = [f"timed out: {e.cmd[0]}"], "", None
        if failures:
            failed += 1
            print(f"FAIL seed {seed}: input {shape}")
            for f in failures:
                print(f"    {f}")
            print("    " + text.replace("\n", "\n    "))
        elif args.verbose:
            print(f"ok   seed {seed}", flush=True)
    print(f"{end - first - failed} of {end - first} random CNNs matched "
          f"(xnnpack and portable vs eager, rtol {RTOL}, atol {ATOL} x max |output|)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
