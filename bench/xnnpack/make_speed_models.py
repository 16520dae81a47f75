#!/usr/bin/env python3
"""Writes the XNNPACK speed benchmark's models with modern PyTorch, into OUT/<name>/:

  model.pt2      torch.export.save of the model (float, or PT2E int8: the standard
                 XNNPACKQuantizer flow, symmetric, per-channel weights, calibrated on
                 four random batches)
  upstream.pte   the same program through upstream ExecuTorch's own flow
                 (to_edge_transform_and_lower with XnnpackPartitioner, to_executorch)
  input_0.npy    one input batch

Models: resnet18, mobilenet_v2 (the architectures of make_bench_models.py, random
weights with fixed seeds) and resnet18_int8, mobilenet_v2_int8, at SIZE x SIZE
(default 64, the size outside measurements used). Needs the modern-PyTorch venv
(scripts/venv.sh); bench/xnnpack_speed_bench.py runs it when a model is missing.

Usage: $(scripts/venv.sh | tail -1) bench/xnnpack/make_speed_models.py OUT [--size 64]
       [--only NAME ...]
"""
import argparse
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import make_bench_models as mbm  # noqa: E402
from zoo_models import _build  # noqa: E402

BUILDERS = {
    "resnet18": lambda: _build(mbm.ResNet18, 201, bn=True),
    "mobilenet_v2": lambda: _build(mbm.MobileNetV2, 202, bn=True),
}


def quantize(model, example, seed):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True))
    captured = torch.export.export(model, (example,)).module()
    prepared = prepare_pt2e(captured, quantizer)
    g = torch.Generator().manual_seed(seed)
    for _ in range(4):
        prepared(torch.randn(example.shape, generator=g))
    return convert_pt2e(prepared)


def upstream_pte(ep):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    return edge.to_executorch().buffer


def write(out, name, model, example):
    ep = torch.export.export(model, (example,))
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    with open(os.path.join(d, "upstream.pte"), "wb") as f:
        f.write(upstream_pte(ep))
    np.save(os.path.join(d, "input_0.npy"), example.numpy())
    print("%-20s written" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    for i, (base, build) in enumerate(BUILDERS.items()):
        example = torch.randn((1, 3, args.size, args.size),
                              generator=torch.Generator().manual_seed(400 + i))
        with torch.no_grad():
            if not args.only or base in args.only:
                write(args.out, base, build().eval(), example)
            if not args.only or base + "_int8" in args.only:
                write(args.out, base + "_int8", quantize(build().eval(), example, 500 + i),
                      example)
    return 0


if __name__ == "__main__":
    sys.exit(main())
