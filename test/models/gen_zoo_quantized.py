#!/usr/bin/env python3
"""Generate the PT2E-quantized zoo fixtures (test/models/quantized_*/).

Run with the modern-PyTorch venv (scripts/venv.sh prints its python):

    $(scripts/venv.sh | tail -1) test/models/gen_zoo_quantized.py           # all
    $(scripts/venv.sh | tail -1) test/models/gen_zoo_quantized.py --only quantized_mlp

Each fixture is the standard ExecuTorch int8 flow: torch.export(...).module(),
prepare_pt2e with XNNPACKQuantizer (symmetric config, per-channel or per-tensor
weights), calibration on a few deterministic batches, convert_pt2e, and
torch.export again; the result is saved with torch.export.save as model.pt2 (node
`stack_trace` and `from_node` metadata removed: they hold paths of this machine and
object addresses). Weights are folded to int8 constants (fold_quantize, the default)
read through dequantize_per_channel / dequantize_per_tensor.

Reference outputs (expected_0.npy) are the converted module's eager outputs: PyTorch's
reference path, which simulates quantization in float (q/dq around float ops). The
float model's outputs are kept as float_expected_0.npy. meta.json states both errors
an int8 implementation is allowed (in output quantization steps) and what PyTorch's
own float model differs by: "quantization": {...}.

Fixtures:

    quantized_cnn      conv+relu, depthwise conv+relu, 1x1 conv, residual add,
                       maxpool, adaptive avg pool to 1x1, linear (per-channel weights)
    quantized_mlp      linear+relu, linear (per-channel weights)
    quantized_mlp_pt   the same MLP with per-tensor weights
"""

import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer, get_symmetric_quantization_config)
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gen_zoo_modern import strip_metadata

HERE = os.path.dirname(os.path.abspath(__file__))
# The int8 program may differ from the reference by requantization rounding: the
# reference rounds float products once per op, XNNPACK rounds its fixed-point
# requantization; a step or two at the output after a few ops.
STEPS = 2


class QuantCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c2 = nn.Conv2d(8, 8, 1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        a = F.relu(self.c1(x))
        b = F.relu(self.dw(a))
        c = self.c2(b) + a
        d = self.pool(c)
        e = F.adaptive_avg_pool2d(d, 1).flatten(1)
        return self.fc(e)


class QuantMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def _gen(seed, *shape):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


FIXTURES = {
    # name: (model class, seed, input shape, per-channel weights, notes)
    "quantized_cnn": (QuantCNN, 301, (1, 3, 16, 16), True,
                      "PT2E int8 CNN (XNNPACKQuantizer, symmetric, per-channel weights): "
                      "Conv2d(3,8,3,p1)+ReLU, depthwise Conv2d(8,8,3,p1,groups 8)+ReLU, "
                      "Conv2d(8,8,1), residual add, MaxPool2d(2), adaptive_avg_pool2d(1), "
                      "flatten, Linear(8,10)."),
    "quantized_mlp": (QuantMLP, 302, (4, 16), True,
                      "PT2E int8 MLP (XNNPACKQuantizer, symmetric, per-channel weights): "
                      "Linear(16,32)+ReLU, Linear(32,8)."),
    "quantized_mlp_pt": (QuantMLP, 302, (4, 16), False,
                         "PT2E int8 MLP (XNNPACKQuantizer, symmetric, per-tensor weights): "
                         "Linear(16,32)+ReLU, Linear(32,8)."),
}


def output_qparams(ep):
    """(scale, zero_point) of the dequantize that produces the program's output."""
    out = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0]
    assert "dequantize_per_tensor" in str(out.target), out.target
    return float(out.args[1]), int(out.args[2])


def graph_text(name, ep):
    text = ep.graph_module.print_readable(print_output=False, include_stride=False,
                                          include_device=False)
    text = "\n".join(l.rstrip() for l in text.splitlines() if l.strip() and
                     "No stacktrace found" not in l and not l.strip().startswith("#"))
    return ("# %s (forward): PT2E-quantized program, torch %s; written by "
            "test/models/gen_zoo_quantized.py\n" % (name, torch.__version__.split("+")[0]) +
            text + "\n")


def generate(name, out_root):
    cls, seed, shape, per_channel, notes = FIXTURES[name]
    torch.manual_seed(seed)
    model = cls().eval()
    x = _gen(seed, *shape)
    m = torch.export.export(model, (x,)).module()
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=per_channel))
    m = prepare_pt2e(m, quantizer)
    for i in range(4):  # calibration batches, then the test input itself
        m(_gen(seed * 10 + i, *shape))
    m(x)
    m = convert_pt2e(m)
    ep = strip_metadata(torch.export.export(m, (x,)))
    with torch.no_grad():
        ref = m(x)
        flt = model(x)
    out_dir = os.path.join(out_root, name)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "model.pt2")
    torch.export.save(ep, path)
    # The saved program reproduces the reference.
    back = torch.export.load(path).module()(x)
    assert torch.equal(back, ref), "the saved program differs from the converted module"
    scale, zp = output_qparams(ep)
    np.save(os.path.join(out_dir, "input_0.npy"), x.numpy())
    np.save(os.path.join(out_dir, "expected_0.npy"), ref.numpy())
    np.save(os.path.join(out_dir, "float_expected_0.npy"), flt.numpy())
    float_err = float((ref - flt).abs().max())
    with open(os.path.join(out_dir, "graph.txt"), "w") as f:
        f.write(graph_text(name, ep))
    io_in = [{"name": "x", "dtype": "float32", "shape": list(shape), "file": "input_0.npy"}]
    io_out = [{"name": "output", "dtype": "float32", "shape": list(ref.shape),
               "file": "expected_0.npy"}]
    meta = {
        "name": name, "file": "model.pt2", "inputs": io_in, "outputs": io_out,
        "methods": [{"method": "forward", "file": "model.pt2", "inputs": io_in,
                     "outputs": io_out, "buffers_after": {}}],
        # Portable kernels compute q/dq as PyTorch does, in float; a value that
        # lands within float rounding of a quantization tie may still take the other
        # step, so the bound is one output step.
        "rtol": 0.0, "atol": scale * 1.001,
        "buffers_after": {},
        "quantization": {
            "output_scale": scale, "output_zero_point": zp,
            "int8_atol": scale * STEPS * 1.001, "int8_steps": STEPS,
            "float_expected": "float_expected_0.npy",
            "reference_vs_float_max_abs": float_err,
        },
        "export": {"torch": torch.__version__.split("+")[0]},
        "notes": notes + " Reference: the converted module's eager outputs (q/dq simulated "
                 "in float). An int8 backend (XNNPACK) requantizes in fixed point: allowed "
                 "%d output steps (quantization.int8_atol). The float model differs from "
                 "the reference by %.3g (max abs)." % (STEPS, float_err),
    }
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print("%s: output scale %.4g, reference vs float %.4g, %d bytes" %
          (name, scale, float_err, os.path.getsize(path)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append")
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    for name in args.only or FIXTURES:
        generate(name, args.out)


if __name__ == "__main__":
    main()
