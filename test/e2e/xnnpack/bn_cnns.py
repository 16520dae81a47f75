#!/usr/bin/env python3
"""Real batch-norm-heavy CNNs through --backend xnnpack, checked against eager.

    bn_cnns.py --bin BUILD/bin [--oracle RUNNER] [--only NAME] [--keep DIR]
               [--full] [-v]

Each model is built from its library's own constructor (torchvision, timm)
with random weights, sized down (fewer blocks, narrower layers, small
inputs) so that a sanitized build compiles all of them in about two minutes;
`--full` uses each library's default configuration instead (the model sweep's
sizes, for a manual run). Nothing is downloaded or committed: every model is
generated here, at test time.

Random init leaves every batch norm at mean 0 / variance 1, which makes deep
networks' activations vanish or explode (efficientnet's logits are ~1e-14,
inception's ~1e9) so that a comparison says nothing. Before export each batch
norm's running statistics are set from the data (a training-mode pass over
random batches, momentum None) and its affine parameters are randomized:
activations stay near unit scale at every depth, and the folded scales and
shifts the XNNPACK lowering computes all matter.

Each model is exported the documented way (torch.export.export in eval mode
under no_grad, then torch.export.save), compiled by aot-compile with
--backend xnnpack, run by pte-run (and by upstream's runtime with --oracle),
and compared with eager PyTorch: |got - want| <= atol + rtol * |want| with
rtol 1e-3, atol 1e-4 (outputs are O(1) after calibration; float32 CNNs of
this depth differ from eager by about 1e-6 relative from summation order and
the batch norm folded into the weights, so a factor of 100 separates
rounding from a real error, and garbage such as 1e33 fails at any tolerance).

Runs itself under the modern-PyTorch venv's python (scripts/venv.sh;
PTEC_VENV); exits 77 (skipped) where that venv is not ready. Exits 1 when any
model fails to compile, run or match.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

SKIP = 77
RTOL, ATOL = 1e-3, 1e-4


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


# --- the models: (builder, input H = W), small and full -------------------

def densenet(full):
    import torchvision
    if full:
        return torchvision.models.densenet121(weights=None), 64
    # densenet121's structure (pre-activation BN -> ReLU -> conv after each
    # cat, transitions with BN alone) with fewer, narrower layers.
    return torchvision.models.DenseNet(growth_rate=8, block_config=(2, 3, 3, 2),
                                       num_init_features=16, bn_size=2, num_classes=10), 48


def efficientnet(full):
    import torchvision
    if full:
        return torchvision.models.efficientnet_b0(weights=None), 64
    # efficientnet_b0's blocks (depthwise, squeeze-excite, SiLU, BN after
    # every conv) at a quarter of its width and depth.
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return EfficientNet(setting, dropout=0.0, last_channel=last, num_classes=10), 48


def tinynet(full):
    import timm
    return timm.create_model("tinynet_e", pretrained=False,
                             **({} if full else {"num_classes": 10})), 64 if full else 48


def resnet50d(full):
    import timm
    if full:
        return timm.create_model("resnet50d", pretrained=False), 64
    # resnet50d's deep stem and average-pool downsampling, one bottleneck
    # per stage, narrow channels.
    return timm.create_model("resnet50d", pretrained=False, layers=(1, 1, 1, 1),
                             stem_width=8, channels=(16, 32, 64, 128), num_classes=10), 48


def inception(full):
    import timm
    if full:
        return timm.create_model("inception_v3", pretrained=False), 96
    # Every kind of inception_v3 block (A to E: 1x1, 5x5, 3x3 double, 1x7 /
    # 7x1 factorized and split 1x3 / 3x1 branches, pooling branches, cat),
    # each once, after a small stem; inception_v3's own widths inside them.
    from functools import partial
    import torch.nn as nn
    from timm.layers import ConvNormAct
    from timm.models.inception_v3 import (InceptionA, InceptionB, InceptionC, InceptionD,
                                          InceptionE)
    # inception_v3's own conv block: conv, batch norm (eps 1e-3), relu.
    conv = partial(ConvNormAct, padding=0, norm_kwargs=dict(eps=1e-3))

    class SmallInception(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(conv(3, 16, kernel_size=3, stride=2),
                                      conv(16, 32, kernel_size=3, padding=1))
            self.blocks = nn.Sequential(
                InceptionA(32, pool_features=16, conv_block=conv),   # 240 channels
                InceptionB(240, conv_block=conv),                    # 720
                InceptionC(720, channels_7x7=32, conv_block=conv),   # 768
                InceptionD(768, conv_block=conv),                    # 1280
                InceptionE(1280, conv_block=conv))                   # 2048
            self.fc = nn.Linear(2048, 10)

        def forward(self, x):
            x = self.blocks(self.stem(x))
            return self.fc(x.mean((2, 3)))

    return SmallInception(), 35


def hrnet(full):
    import copy
    import timm
    if full:
        return timm.create_model("hrnet_w18_small", pretrained=False), 64
    # hrnet_w18_small's four stages of parallel branches fused by strided
    # convs and nearest upsampling, half as wide, one block per branch.
    from timm.models.hrnet import HighResolutionNet, cfg_cls
    cfg = copy.deepcopy(cfg_cls["hrnet_w18_small"])
    cfg["stem_width"] = 16
    for name in ("stage1", "stage2", "stage3", "stage4"):
        s = cfg[name]
        s["num_blocks"] = tuple(1 for _ in s["num_blocks"])
        s["num_channels"] = tuple(max(4, c // 2) for c in s["num_channels"])
    return HighResolutionNet(cfg, num_classes=10), 32


def dpn(full):
    import timm
    if full:
        return timm.create_model("dpn68", pretrained=False), 64
    # dpn68's dual-path blocks (grouped 3x3, residual add and dense cat,
    # pre-activation BN) with one block per stage and fewer groups.
    return timm.create_model("dpn68", pretrained=False, k_sec=(1, 1, 1, 1), k_r=16, groups=4,
                             inc_sec=(8, 8, 8, 16), num_init_features=16, num_classes=10), 48


MODELS = {"densenet": densenet, "efficientnet": efficientnet, "tinynet": tinynet,
          "resnet50d": resnet50d, "inception": inception, "hrnet": hrnet, "dpn": dpn}


def calibrate(model, hw, seed):
    """Batch norm statistics from data and random affine parameters (above)."""
    import torch
    g = torch.Generator().manual_seed(seed)
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
        if m.affine:
            with torch.no_grad():
                m.weight.copy_(0.5 + torch.rand(m.weight.shape, generator=g))
                m.bias.copy_(0.2 * torch.randn(m.bias.shape, generator=g))
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(4, 3, hw, hw, generator=g))
    model.eval()
    return len(bns)


# glibc fills freed memory with this byte pattern (MALLOC_PERTURB_) in the
# tools this script runs, so a read of freed memory (a pointer kept into a
# container that grew) fails loudly in an unsanitized build too, as it would
# under ASan, instead of reading stale values that happen to be right.
TOOL_ENV = dict(os.environ, MALLOC_PERTURB_="165")


def run(cmd, timeout=900):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout, env=TOOL_ENV)
    return p.returncode, p.stdout


def check_model(name, args, tmp):
    """(failures, note) for one model."""
    import numpy as np
    import torch
    torch.manual_seed(0)
    model, hw = MODELS[name](args.full)
    nbn = calibrate(model, hw, seed=1)
    x = torch.randn(1, 3, hw, hw, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        want = model(x)
        ep = torch.export.export(model, (x,))
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    pt2, pte, inp = (os.path.join(d, f) for f in ("model.pt2", "xnnpack.pte", "in0.npy"))
    torch.export.save(ep, pt2)
    np.save(inp, x.numpy())
    want = want.numpy()
    t0 = time.time()
    rc, out = run([os.path.join(args.bin, "aot-compile"), pt2, "-o", pte, "--no-progress",
                   "--backend", "xnnpack", "--report"])
    secs = time.time() - t0
    if rc != 0:
        return [f"aot-compile --backend xnnpack exit {rc}: {out.strip()[-800:]}"], ""
    failures = []
    runners = [("pte-run", [os.path.join(args.bin, "pte-run"), pte, "--input", inp,
                            "--output-dir"], "output_0.npy")]
    if args.oracle:
        runners.append(("executorch", [args.oracle, pte, "--input", inp, "--out_dir"],
                        "call0_out0.npy"))
    errs = []
    for rname, base, fname in runners:
        od = os.path.join(d, rname)
        os.makedirs(od, exist_ok=True)
        rc, out = run(base + [od])
        if rc != 0:
            failures.append(f"[{rname}] exit {rc}: {out.strip()[-600:]}")
            continue
        got = np.load(os.path.join(od, fname))
        if got.shape != want.shape:
            failures.append(f"[{rname}] shape {got.shape}, eager {want.shape}")
            continue
        err = np.abs(got.astype(np.float64) - want)
        bad = err > ATOL + RTOL * np.abs(want)
        errs.append(f"{rname} max err {err.max():.2e}")
        if bad.any() or not np.isfinite(got).all():
            failures.append(f"[{rname}] {int(bad.sum())} of {bad.size} outputs outside "
                            f"rtol {RTOL} atol {ATOL}: max abs err {err.max():.3g} "
                            f"(outputs up to {np.abs(want).max():.3g})")
    note = (f"{nbn} batch norms, input {hw}x{hw}, |out| <= {np.abs(want).max():.2f}, "
            f"compile {secs:.1f} s, " + ", ".join(errs))
    return failures, note


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--oracle", help="upstream's executorch-runner (also run there)")
    ap.add_argument("--only", action="append", default=[], help="run only this model")
    ap.add_argument("--full", action="store_true",
                    help="the libraries' default sizes instead of the sized-down ones")
    ap.add_argument("--keep", help="keep the work files here")
    args = ap.parse_args()
    if args.oracle and not os.path.exists(args.oracle):
        args.oracle = None
    try:
        import torch  # noqa: F401
        import timm  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError:
        py = venv_python()
        if py is None or os.environ.get("PTEC_IN_VENV"):  # not there, or lacks a package
            print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
            return SKIP
        os.environ["PTEC_IN_VENV"] = "1"
        os.execv(py, [py] + sys.argv)
    names = args.only or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"unknown models {unknown}; known: {list(MODELS)}")
        return 2
    tmp = args.keep or tempfile.mkdtemp(prefix="bn_cnns_")
    failed = 0
    for name in names:
        try:
            failures, note = check_model(name, args, tmp)
        except subprocess.TimeoutExpired as e:
            failures, note = [f"timed out: {e.cmd[0]}"], ""
        if failures:
            failed += 1
            print(f"FAIL {name} {note}")
            for f in failures:
                print(f"    {f}")
        else:
            print(f"ok   {name}: {note}", flush=True)
    print(f"{len(names) - failed} of {len(names)} models matched eager "
          f"(rtol {RTOL}, atol {ATOL})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
