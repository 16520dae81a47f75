#!/usr/bin/env python3
"""Quantized programs with unusual parameters through --backend xnnpack.

    quantized_variants.py --bin BUILD/bin --zoo test/models [--oracle RUNNER]
                          [--only NAME] [--keep DIR] [--list]

Each variant is one of the PT2E int8 zoo programs (quantized_cnn,
quantized_mlp, quantized_mlp_pt) with its quantization parameters edited in
the exported graph: activation scales scaled far down or up (below 2^-32,
subnormal in float32, 1e30), zero points at the ends of int8, quant ranges
narrower than int8, a dequantize whose parameters differ from its
quantize's, weight scales that are tiny, subnormal, zero or huge, weight zero
points other than 0, and biases that overflow int32 once quantized. Every
one of them is a valid program: PyTorch runs it (the reference is the edited
program's eager output), and so must ptec.

For each variant, aot-compile must compile it for portable and for
--backend xnnpack (the XNNPACK lowering leaves to the portable kernels what
XNNPACK's checks would refuse at delegate init or assert on), pte-run must
run both without error, and both must match PyTorch within two steps of the
output's quantization (the int8 kernels round differently from PyTorch's
float simulation of q/dq, the portable ones by float rounding at ties) plus
1e-5 relative for outputs that grow with the scales. With --oracle, the
XNNPACK program also runs on upstream's runtime and must match the same way.

Runs itself under the modern-PyTorch venv's python (scripts/venv.sh;
PTEC_VENV); exits 77 (skipped) where that venv is not ready.
"""
import argparse
import copy
import os
import subprocess
import sys
import tempfile

SKIP = 77
QD = "quantized_decomposed"


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from ptec_venv import venv_python  # noqa: E402


# --- graph edits -----------------------------------------------------------

def q_nodes(ep):
    return [n for n in ep.graph.nodes
            if n.op == "call_function" and str(n.target) == f"{QD}.quantize_per_tensor.default"]


def pair(q):
    """A quantize and every per-tensor dequantize that reads it."""
    return [q] + [u for u in q.users if str(u.target) == f"{QD}.dequantize_per_tensor.default"]


def set_args(node, **kw):
    names = ["input", "scale", "zero_point", "quant_min", "quant_max", "dtype"]
    args = list(node.args)
    for k, v in kw.items():
        args[names.index(k)] = v
    node.args = tuple(args)


def edit_pairs(which, **kw):
    """An edit of the activation pairs `which` picks from the list of quantizes."""
    def edit(ep):
        for q in which(q_nodes(ep)):
            for n in pair(q):
                fields = {k: (v(n.args[1]) if k == "scale" and callable(v) else v)
                          for k, v in kw.items()}
                set_args(n, **fields)
    return edit


def scale_by(f):
    return lambda s: s * f


def weight_dqs(ep):
    return [n for n in ep.graph.nodes if n.op == "call_function" and
            str(n.target) in (f"{QD}.dequantize_per_channel.default",
                              f"{QD}.dequantize_per_tensor.default") and
            n.args[0].op == "placeholder"]


def state_tensor(ep, node):
    """The state_dict tensor a placeholder names (parameters, buffers)."""
    for spec in ep.graph_signature.input_specs:
        if spec.arg.name == node.name:
            return ep.state_dict[spec.target]
    raise KeyError(node.name)


def edit_weight(field, fn, index=0):
    """Edits the `index`-th weight dequantize's scales or zero points."""
    def edit(ep):
        dq = weight_dqs(ep)[index]
        if str(dq.target).endswith("per_channel.default"):
            t = state_tensor(ep, dq.args[1 if field == "scale" else 2])
            with __import__("torch").no_grad():
                t.copy_(fn(t.clone()))
        else:  # per tensor: number arguments
            i = 1 if field == "scale" else 2
            cur = __import__("torch").tensor([float(dq.args[i])])
            v = fn(cur)[0].item()
            set_args(dq, **{"scale" if field == "scale" else "zero_point":
                            v if field == "scale" else int(v)})
    return edit


def one_channel(value):
    def fn(t):
        t[0] = value
        return t
    return fn


def edit_bias(factor, index=0):
    def edit(ep):
        users = [n for n in ep.graph.nodes if n.op == "call_function" and
                 str(n.target) in ("aten.conv2d.default", "aten.linear.default")]
        bias = users[index].args[2]
        t = state_tensor(ep, bias)
        with __import__("torch").no_grad():
            t.mul_(factor)
    return edit


def edit_dq_mismatch(ep):
    q = q_nodes(ep)[1]
    for n in pair(q)[1:]:
        set_args(n, scale=n.args[1] * 2)


FIRST = lambda qs: qs[:1]          # noqa: E731  the input's pair
MIDDLE = lambda qs: qs[1:2]        # noqa: E731  the first inner pair
LAST = lambda qs: qs[-1:]          # noqa: E731  the output's pair
ALL = lambda qs: qs                # noqa: E731

VARIANTS = {
    # activation scales
    "all_scales_x2^-40": edit_pairs(ALL, scale=scale_by(2.0 ** -40)),
    "all_scales_x2^-33": edit_pairs(ALL, scale=scale_by(2.0 ** -33)),
    "all_scales_x1e-6": edit_pairs(ALL, scale=scale_by(1e-6)),
    "all_scales_x1e3": edit_pairs(ALL, scale=scale_by(1e3)),
    "all_scales_x1e30": edit_pairs(ALL, scale=scale_by(1e30)),
    "input_scale_2^-33": edit_pairs(FIRST, scale=2.0 ** -33),
    "input_scale_2^-40": edit_pairs(FIRST, scale=2.0 ** -40),
    "input_scale_1e-12": edit_pairs(FIRST, scale=1e-12),
    "input_scale_x1e-6": edit_pairs(FIRST, scale=scale_by(1e-6)),
    "input_scale_x1e6": edit_pairs(FIRST, scale=scale_by(1e6)),
    "input_scale_subnormal": edit_pairs(FIRST, scale=1e-40),
    "inner_scale_x1e-9": edit_pairs(MIDDLE, scale=scale_by(1e-9)),
    "inner_scale_x1e9": edit_pairs(MIDDLE, scale=scale_by(1e9)),
    "output_scale_x1e-9": edit_pairs(LAST, scale=scale_by(1e-9)),
    "output_scale_x1e6": edit_pairs(LAST, scale=scale_by(1e6)),
    "output_scale_subnormal": edit_pairs(LAST, scale=1e-41),
    # zero points and ranges
    "inner_zp_-128": edit_pairs(MIDDLE, zero_point=-128),
    "inner_zp_127": edit_pairs(MIDDLE, zero_point=127),
    "input_zp_127": edit_pairs(FIRST, zero_point=127),
    "inner_range_-127_127": edit_pairs(MIDDLE, quant_min=-127, quant_max=127),
    "inner_range_0_127": edit_pairs(MIDDLE, quant_min=0, quant_max=127),
    "input_range_-100_100": edit_pairs(FIRST, quant_min=-100, quant_max=100),
    "inner_dq_scale_differs": edit_dq_mismatch,
    # weights
    "weight_scales_x1e-30": edit_weight("scale", lambda t: t * 1e-30),
    "weight_scales_x1e-12": edit_weight("scale", lambda t: t * 1e-12),
    "weight_scale_subnormal": edit_weight("scale", one_channel(1e-40)),
    "weight_scale_zero": edit_weight("scale", one_channel(0.0)),
    "weight_scales_x1e6": edit_weight("scale", lambda t: t * 1e6),
    "weight_scales_x1e30": edit_weight("scale", lambda t: t * 1e30),
    "weight_zero_point_1": edit_weight("zero_point", one_channel(1)),
    "last_weight_scales_x1e-30": edit_weight("scale", lambda t: t * 1e-30, index=-1),
    # biases
    "bias_x1e6": edit_bias(1e6),
    "bias_x1e9": edit_bias(1e9),
    "last_bias_x1e9": edit_bias(1e9, index=-1),
}
MODELS = ["quantized_cnn", "quantized_mlp", "quantized_mlp_pt"]

# Variants that may end in a stated refusal instead of a match, each with its
# reason: a runtime error naming the cause (exit 1), never XNNPACK's delegate
# init failing.
REFUSED = {
    "weight_scale_zero": ("zero, NaN or infinite",
                          "the portable dequantize_per_channel refuses a zero scale (PyTorch "
                          "multiplies by it); XNNPACK never sees it: the weight stays portable"),
}
# Upstream's runtime differs here, not ptec: its portable quantize / dequantize
# (which run these q/dq ops: XNNPACK takes no subnormal scale) compute with a
# subnormal scale differently from PyTorch. pte-run is still compared.
ORACLE_KNOWN = {
    "output_scale_subnormal": "upstream's portable q/dq kernels and a subnormal scale",
}


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    return p.returncode, p.stdout


def output_scale(ep):
    out = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0]
    return float(out.args[1]) if "dequantize_per_tensor" in str(out.target) else 0.0


def check(model, variant, args, tmp):
    import numpy as np
    import torch
    import torchao.quantization.pt2e.quantize_pt2e  # noqa: F401  (registers the q/dq ops)
    base = os.path.join(args.zoo, model)
    ep = torch.export.load(os.path.join(base, "model.pt2"))
    VARIANTS[variant](ep)
    ep.graph.lint()
    ep.graph_module.recompile()
    x = torch.from_numpy(np.load(os.path.join(base, "input_0.npy")))
    with torch.no_grad():
        want = ep.module()(x).numpy().astype(np.float64)
    d = os.path.join(tmp, f"{model}.{variant}")
    os.makedirs(d, exist_ok=True)
    pt2, inp = os.path.join(d, "model.pt2"), os.path.join(base, "input_0.npy")
    torch.export.save(ep, pt2)
    step = output_scale(ep)
    atol = 2 * step * 1.001
    failures, errs = [], []
    refusal = REFUSED.get(variant)
    for backend in ("portable", "xnnpack"):
        pte = os.path.join(d, f"{backend}.pte")
        cmd = [os.path.join(args.bin, "aot-compile"), pt2, "-o", pte, "--no-progress"]
        if backend == "xnnpack":
            cmd += ["--backend", "xnnpack"]
        rc, out = run(cmd)
        if rc != 0:
            failures.append(f"[{backend}] aot-compile exit {rc}: {out.strip()[-500:]}")
            continue
        runners = [("pte-run", [os.path.join(args.bin, "pte-run"), pte, "--input", inp,
                                "--output-dir"], "output_0.npy")]
        if args.oracle and backend == "xnnpack" and variant not in ORACLE_KNOWN:
            runners.append(("executorch", [args.oracle, pte, "--input", inp, "--out_dir"],
                            "call0_out0.npy"))
        for rname, base_cmd, fname in runners:
            od = os.path.join(d, f"{backend}_{rname}")
            os.makedirs(od, exist_ok=True)
            rc, out = run(base_cmd + [od])
            if refusal and rname == "pte-run" and rc == 1 and refusal[0] in out and \
                    "init failed" not in out:
                errs.append(f"{backend}/{rname} refused as stated ({refusal[1]})")
                continue
            if rc != 0:
                failures.append(f"[{backend}/{rname}] exit {rc}: {out.strip()[-500:]}")
                continue
            got = np.load(os.path.join(od, fname)).astype(np.float64)
            with np.errstate(invalid="ignore"):
                err = np.abs(got - want)
                bad = ~(err <= atol + 1e-5 * np.abs(want))
                bad &= ~(np.isnan(got) & np.isnan(want))
            errs.append(f"{backend}/{rname} {np.nanmax(err) if err.size else 0:.3g}")
            if bad.any():
                failures.append(f"[{backend}/{rname}] {int(bad.sum())} of {bad.size} outputs "
                                f"off by more than {atol:.3g}: max err {np.nanmax(err):.4g} "
                                f"(outputs up to {np.nanmax(np.abs(want)):.4g})")
    return failures, f"step {step:.3g}, max err " + ", ".join(errs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoo", required=True, help="test/models")
    ap.add_argument("--oracle", help="upstream's executorch-runner (also run there)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only variants whose name contains this (repeatable)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--keep", help="keep the work files here")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(VARIANTS))
        return 0
    if args.oracle and not os.path.exists(args.oracle):
        args.oracle = None
    try:
        import torch  # noqa: F401
        import torchao  # noqa: F401
    except ImportError:
        py = venv_python()
        if py is None or os.environ.get("PTEC_IN_VENV"):  # not there, or lacks a package
            print("skipped: the modern-PyTorch venv is not ready (scripts/venv.sh; PTEC_VENV)")
            return SKIP
        os.environ["PTEC_IN_VENV"] = "1"
        os.execv(py, [py] + sys.argv)
    tmp = args.keep or tempfile.mkdtemp(prefix="q_variants_")
    names = [v for v in VARIANTS if not args.only or any(o in v for o in args.only)]
    total = failed = 0
    for model in args.models.split(","):
        for v in names:
            total += 1
            try:
                failures, note = check(model, v, args, tmp)
            except subprocess.TimeoutExpired as e:
                failures, note = [f"timed out: {e.cmd[0]}"], ""
            if failures:
                failed += 1
                print(f"FAIL {model} {v}: {note}")
                for f in failures:
                    print(f"    {f}")
            else:
                print(f"ok   {model} {v}: {note}", flush=True)
    print(f"{total - failed} of {total} variants compiled, ran and matched PyTorch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
