#!/usr/bin/env python3
"""Writes test/models/upstream_xnnpack/: XNNPACK programs written by upstream ExecuTorch.

Every case is a tiny PyTorch model exported with torch.export and lowered by
upstream's own Python flow, exactly as a user of ExecuTorch would:

    to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()

(int8 cases first go through PT2E: prepare_pt2e with XNNPACKQuantizer, a few
deterministic calibration batches, convert_pt2e). The program bytes are what
upstream writes; nothing here touches them.

Per case, in <out>/<case>/:
  model.pte                     the program
  input_<i>.npy, expected_<j>.npy, eager_<j>.npy        first call
  call<k>_input_<i>.npy, call<k>_expected_<j>.npy, ...  more calls (dynamic shapes)
  meta.json                     calls, tolerance, what the XNNPACK blobs hold
expected_* are the outputs of upstream's runtime (the executorch package's
pybindings, which include upstream's XnnpackBackend); eager_* are PyTorch
eager outputs of the (for int8: quantized, converted) module, kept for
information. With --oracle RUNNER (upstream's prebuilt executorch-runner) every
call is also run there and must agree with the pybindings.

meta.json's "xnnpack" records what each delegate blob holds (node kinds,
value kinds with datatypes and quantization kinds), taken from the XNNGraph
upstream's XnnpackBackend.preprocess serializes; "portable_ops" lists the
operators left outside the delegates. Each case names the node kinds it exists
for ("expect_nodes"); a case whose blobs lack them is not written (reported as
DROPPED), since then upstream does not delegate that operator.

Regenerate (needs the modern-PyTorch venv of scripts/venv.sh with executorch
1.5.1, torch 2.15, torchao 0.18; never run in CI):

    ~/.cache/ptec/venv/bin/python test/models/gen_upstream_xnnpack.py \
        [--out test/models/upstream_xnnpack] [--only CASE ...] [--oracle RUNNER]

The checker is test/e2e/xnnpack/run_upstream_conformance.py.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT_TOL = {"atol": 1e-5, "rtol": 1e-5}


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------
def models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class MLP(nn.Module):
        def __init__(self, i=16, h=32, o=8):
            super().__init__()
            self.l1, self.l2 = nn.Linear(i, h), nn.Linear(h, o)

        def forward(self, x):
            return self.l2(torch.relu(self.l1(x)))

    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.c2 = nn.Conv2d(8, 8, 3, padding=1)
            self.fc = nn.Linear(8 * 4 * 4, 10)

        def forward(self, x):
            x = F.max_pool2d(torch.relu(self.c1(x)), 2)
            x = F.avg_pool2d(F.hardswish(self.c2(x)), 2)
            return self.fc(torch.flatten(x, 1))

    class CatNeck(nn.Module):
        """YOLOX-nano-like neck: branches concatenated along channels, 2..5 at a time."""
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, padding=1)
            self.b = nn.ModuleList([nn.Conv2d(4, 4, 1) for _ in range(5)])
            self.m2 = nn.Conv2d(8, 4, 1)
            self.m3 = nn.Conv2d(12, 4, 1)
            self.m4 = nn.Conv2d(16, 4, 1)
            self.m5 = nn.Conv2d(20, 4, 3, padding=1)

        def forward(self, x):
            s = torch.relu(self.stem(x))
            y = [torch.relu(c(s)) for c in self.b]
            a = self.m2(torch.cat(y[:2], 1))
            b = self.m3(torch.cat([a] + y[2:4], 1))
            c = self.m4(torch.cat([a, b, y[0], y[4]], 1))
            return self.m5(torch.cat([a, b, c, y[1], y[3]], 1))

    class CatDims(nn.Module):
        def forward(self, x, y):
            a = torch.cat([x, y], 0)
            b = torch.cat([x, y, x], 2)
            c = torch.cat([x, y, x, y], 3)
            d = torch.cat([x[:, 0], y[:, 1]], -1)  # 3-d, last dim
            return a * 2.0, b + 1.0, c - 1.0, d * 3.0

    class Unary(nn.Module):
        """c(x): a function (the unary cases) or one layer, its parameters under `c`
        (ConvT, DwConv)."""

        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, x):
            return self.c(x)

    class Slice(nn.Module):
        def forward(self, x):
            return x[:, 1:5] + 1.0, x[:, :, 2:7:1] * 2.0

    class Bmm(nn.Module):
        def forward(self, a, b):
            return torch.bmm(a, b)

    class Matmul3d(nn.Module):
        def forward(self, a, b):
            return torch.matmul(a, b)

    class Sdpa(nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v)

    class SdpaMask(nn.Module):
        def forward(self, q, k, v, m):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    class PRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.PReLU(4, init=0.2)

        def forward(self, x):
            return self.p(x)

    class Binary(nn.Module):
        def forward(self, x, y):
            return torch.maximum(x, y), torch.minimum(x, y), x / (y.abs() + 1.0), x - y

    class ScalarInput(nn.Module):
        def forward(self, x, s):
            return x * s

    class ScalarConst(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("s", torch.tensor(2.5))

        def forward(self, x):
            return x * self.s + 1.0

    class ScalarOut(nn.Module):
        def forward(self, x):
            return (x * 2.0).sum()

    class CatMany(nn.Module):
        def forward(self, x):
            return torch.cat([x * float(i + 1) for i in range(7)], 1)

    class DynSeq(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = nn.Linear(16, 32), nn.Linear(32, 16)

        def forward(self, x):
            return self.l2(F.gelu(self.l1(x))) + x

    return dict(nn=nn, F=F, torch=torch, MLP=MLP, SmallCNN=SmallCNN, CatNeck=CatNeck,
                CatDims=CatDims, Unary=Unary, Slice=Slice, Bmm=Bmm, Matmul3d=Matmul3d,
                Sdpa=Sdpa, SdpaMask=SdpaMask,
                ConvT=lambda: Unary(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)),
                DwConv=lambda: Unary(nn.Conv2d(6, 6, 3, padding=1, groups=6)),
                PRelu=PRelu, Binary=Binary, ScalarInput=ScalarInput, ScalarConst=ScalarConst,
                ScalarOut=ScalarOut, DynSeq=DynSeq, CatMany=CatMany)


def cases():
    """name -> dict(model, inputs (list of calls, each a list of tensors), expect_nodes,
    notes, quant (None | 'per_channel' | 'per_tensor' | 'dynamic'), dynamic_shapes)."""
    m = models()
    torch, nn, F = m["torch"], m["nn"], m["F"]

    def r(*shape, lo=-2.0, hi=2.0):
        return torch.rand(*shape) * (hi - lo) + lo

    def unary(fn, expect, notes, shape=(2, 3, 8), lo=-2.0, hi=2.0):
        return lambda: dict(model=m["Unary"](fn), inputs=[[r(*shape, lo=lo, hi=hi)]],
                            expect_nodes=expect, notes=notes)

    def one_call(model, shapes, expect, notes):
        """m[model]() (its weights drawn first), called once on fresh float inputs of
        `shapes`."""
        return lambda: dict(model=m[model](), inputs=[[r(*shape) for shape in shapes]],
                            expect_nodes=expect, notes=notes)

    C = collections.OrderedDict()
    # 1. float basics
    C["mlp_f32"] = one_call("MLP", [(4, 16)], ["XNNFullyConnected"],
                            "Linear(16,32) ReLU Linear(32,8).")
    C["cnn_f32"] = one_call("SmallCNN", [(1, 3, 16, 16)],
                            ["XNNConv2d", "XNNMaxPooling2d", "XNNHardswish", "XNNAvgPooling2d",
                             "XNNFullyConnected"],
                            "conv relu maxpool conv hardswish avgpool flatten linear.")
    # 2. concatenate
    C["cat_channels"] = one_call(
        "CatNeck", [(1, 3, 8, 8)],
        ["XNNConcatenate2", "XNNConcatenate3", "XNNConcatenate4", "XNNConcatenate5"],
        "YOLOX-nano-like neck: torch.cat of 2, 3, 4 and 5 conv outputs along channels.")
    C["cat_dims"] = one_call(
        "CatDims", [(2, 3, 4, 5), (2, 3, 4, 5)],
        ["XNNConcatenate2", "XNNConcatenate3", "XNNConcatenate4"],
        "torch.cat on dims 0, 2, 3 (4-d) and -1 (3-d).")
    C["cat_many"] = one_call(
        "CatMany", [(1, 2, 3, 3)], ["XNNConcatenate5"],
        "torch.cat of 7 tensors along channels (upstream splits it into nodes of at most 5 "
        "inputs).")
    # 3. node kinds Debian's XNNPACK lacks (or may lack)
    C["slice"] = one_call("Slice", [(2, 8, 10)], ["XNNStaticSlice"],
                          "x[:, 1:5] and x[:, :, 2:7].")
    C["rsqrt"] = unary(torch.rsqrt, ["XNNReciprocalSquareRoot"], "torch.rsqrt", lo=0.1, hi=4.0)
    C["sqrt"] = unary(torch.sqrt, ["XNNSquareRoot"], "torch.sqrt", lo=0.0, hi=4.0)
    C["tanh"] = unary(torch.tanh, ["XNNTanh"], "torch.tanh")
    C["gelu"] = unary(F.gelu, ["XNNGelu"], "F.gelu (erf)")
    C["exp"] = unary(torch.exp, ["XNNExp"], "torch.exp")
    C["log"] = unary(torch.log, ["XNNLog"], "torch.log", lo=0.1, hi=4.0)
    C["sin"] = unary(torch.sin, ["XNNSin"], "torch.sin", lo=-4.0, hi=4.0)
    C["cos"] = unary(torch.cos, ["XNNCos"], "torch.cos", lo=-4.0, hi=4.0)
    C["square"] = unary(torch.square, ["XNNSquare"], "torch.square")
    C["abs_neg"] = unary(lambda x: -torch.abs(x), ["XNNAbs", "XNNNegate"], "-abs(x)")
    C["floor_ceil"] = unary(lambda x: torch.floor(x) + torch.ceil(x * 3.0),
                            ["XNNFloor", "XNNCeiling"], "floor(x) + ceil(3x)")
    C["sigmoid"] = unary(torch.sigmoid, ["XNNSigmoid"], "torch.sigmoid")
    C["softmax"] = unary(lambda x: torch.softmax(x, -1), ["XNNSoftmax"], "softmax(-1)")
    C["leaky_relu"] = unary(lambda x: F.leaky_relu(x, 0.1), ["XNNLeakyReLU"], "leaky_relu 0.1")
    # F.elu: upstream 1.5.1 leaves aten::elu on portable kernels (no XNNELU written).
    C["hardtanh"] = unary(lambda x: F.hardtanh(x, -0.5, 1.5), ["XNNClamp"], "hardtanh")
    C["prelu"] = one_call("PRelu", [(1, 4, 5, 5)], ["XNNPReLU"], "nn.PReLU(4)")
    C["binary"] = one_call("Binary", [(2, 3, 4), (2, 3, 4)],
                           ["XNNMaximum", "XNNMinimum", "XNNDiv", "XNNSubtract"],
                           "maximum, minimum, div, sub")
    C["bmm"] = one_call("Bmm", [(3, 4, 5), (3, 5, 6)], ["XNNBatchMatrixMultiply"], "torch.bmm")
    C["matmul_3d"] = one_call("Matmul3d", [(2, 4, 5), (2, 5, 3)], ["XNNBatchMatrixMultiply"],
                              "torch.matmul of two 3-d inputs")
    C["sdpa"] = one_call("Sdpa", [(1, 2, 4, 8)] * 3, ["XNNBatchMatrixMultiply", "XNNSoftmax"],
                         "F.scaled_dot_product_attention, no mask: upstream 1.5.1 does not emit "
                         "XNNScaledDotProductAttention; it decomposes SDPA (bmm, softmax, "
                         "transposes, reshapes in the delegate; the mask logic on portable "
                         "kernels)")
    C["sdpa_mask"] = lambda: dict(model=m["SdpaMask"](),
                                  inputs=[[r(1, 2, 4, 8), r(1, 2, 4, 8), r(1, 2, 4, 8),
                                           torch.zeros(4, 4)]],
                                  expect_nodes=["XNNBatchMatrixMultiply", "XNNSoftmax",
                                                "XNNAdd"],
                                  notes="F.scaled_dot_product_attention with a 2-d float "
                                        "mask, decomposed as in sdpa")
    C["permute_3d"] = unary(lambda x: x.permute(2, 0, 1) + 1.0, ["XNNStaticTranspose"],
                            "x.permute(2, 0, 1)", shape=(2, 3, 4))
    C["permute_4d"] = unary(lambda x: (x.permute(0, 2, 3, 1) * 2.0, x.transpose(1, 2) + 1.0),
                            ["XNNStaticTranspose"], "x.permute(0, 2, 3, 1), x.transpose(1, 2)",
                            shape=(1, 3, 4, 5))
    C["conv_transpose"] = one_call("ConvT", [(1, 4, 5, 5)], ["XNNConvTranspose2d"],
                                   "ConvTranspose2d(4, 6, 3, stride 2, pad 1)")
    C["depthwise_conv"] = one_call("DwConv", [(1, 6, 7, 7)], ["XNNDepthwiseConv2d"],
                                   "Conv2d(6, 6, 3, groups=6)")
    C["upsample_bilinear"] = unary(
        lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
        ["XNNStaticResizeBilinear2D"], "F.interpolate bilinear x2", shape=(1, 3, 4, 5))
    C["constant_pad"] = unary(lambda x: F.pad(x, (1, 2, 0, 1), value=0.5) * 2.0,
                              ["XNNStaticConstantPad"], "F.pad (1, 2, 0, 1) value 0.5",
                              shape=(1, 2, 3, 4))
    C["max_dim"] = unary(lambda x: torch.max(x, dim=3, keepdim=True)[0] + 1.0,
                         ["XNNMaxPooling2d"],
                         "torch.max(x, 3, keepdim=True)[0]: upstream writes a 1xW "
                         "XNNMaxPooling2d (no XNNArgMaxPooling2d for values only; dim=-1 is "
                         "refused by upstream's partitioner: 'amax.default only supports "
                         "dim == 2 or dim == 3')", shape=(1, 3, 4, 6))
    C["mean_dims"] = unary(lambda x: torch.mean(x, dim=(-1, -2), keepdim=True),
                           ["XNNGlobalAvgPooling2d"], "mean over H, W keepdim",
                           shape=(1, 3, 4, 6))
    C["mlp_f16"] = lambda: dict(model=m["MLP"]().half(), inputs=[[r(4, 16).half()]],
                                expect_nodes=["XNNFullyConnected"],
                                tol={"atol": 2e-3, "rtol": 2e-3},
                                notes="the MLP in float16 (datatype fp16 values).")
    C["cnn_f16"] = lambda: dict(model=m["SmallCNN"]().half(), inputs=[[r(1, 3, 16, 16).half()]],
                                expect_nodes=["XNNConv2d", "XNNFullyConnected"],
                                tol={"atol": 2e-3, "rtol": 2e-3},
                                notes="the small CNN of cnn_f32 in float16 (datatype fp16 "
                                      "values): conv, pooling, hardswish, linear.")
    # x.to(torch.float16) inside a float32 model: upstream 1.5.1 keeps the conversion on
    # portable kernels (dim_order_ops::_to_dim_order_copy), no XNNConvert; not a case.
    # 4. dynamic shapes
    C["dyn_mlp_batch"] = lambda: dict(
        model=m["MLP"](), inputs=[[r(3, 16)], [r(8, 16)], [r(1, 16)], [r(5, 16)]],
        dynamic_shapes=lambda: ({0: torch.export.Dim("b", min=1, max=8)},),
        expect_nodes=["XNNFullyConnected"],
        notes="MLP, batch dim Dim('b', min=1, max=8); calls with batch 3, 8 (the bound), "
              "1, 5 in one loaded method.")
    C["dyn_seq"] = lambda: dict(
        model=m["DynSeq"](), inputs=[[r(1, 5, 16)], [r(1, 12, 16)], [r(1, 2, 16)]],
        dynamic_shapes=lambda: ({1: torch.export.Dim("s", min=2, max=12)},),
        expect_nodes=["XNNFullyConnected", "XNNGelu", "XNNAdd"],
        notes="Linear GELU Linear + residual on [1, S, 16], Dim('s', min=2, max=12); "
              "calls with S 5, 12 (the bound), 2.")
    # 5. int8 (PT2E + XNNPACKQuantizer)
    C["q_cnn_per_channel"] = lambda: dict(
        model=m["SmallCNN"](), inputs=[[r(1, 3, 16, 16)]], quant="per_channel",
        calib=[[r(1, 3, 16, 16)] for _ in range(4)],
        expect_nodes=["XNNConv2d", "XNNFullyConnected", "XNNConvert"],
        notes="SmallCNN, symmetric int8, per-channel weights.")
    C["q_cnn_per_tensor"] = lambda: dict(
        model=m["SmallCNN"](), inputs=[[r(1, 3, 16, 16)]], quant="per_tensor",
        calib=[[r(1, 3, 16, 16)] for _ in range(4)],
        expect_nodes=["XNNConv2d", "XNNFullyConnected", "XNNConvert"],
        notes="SmallCNN, symmetric int8, per-tensor weights.")
    C["q_mlp_per_channel"] = lambda: dict(
        model=m["MLP"](), inputs=[[r(4, 16)]], quant="per_channel",
        calib=[[r(4, 16)] for _ in range(4)],
        expect_nodes=["XNNFullyConnected", "XNNConvert"],
        notes="MLP, symmetric int8, per-channel weights.")
    C["q_mlp_per_tensor"] = lambda: dict(
        model=m["MLP"](), inputs=[[r(4, 16)]], quant="per_tensor",
        calib=[[r(4, 16)] for _ in range(4)],
        expect_nodes=["XNNFullyConnected", "XNNConvert"],
        notes="MLP, symmetric int8, per-tensor weights.")
    C["q_mlp_dynamic"] = lambda: dict(
        model=m["MLP"](), inputs=[[r(4, 16)]], quant="dynamic",
        calib=[[r(4, 16)] for _ in range(2)],
        expect_nodes=["XNNFullyConnected", "XNNConvert"],
        notes="MLP, dynamically quantized activations (qd8, per-token), per-channel int8 "
              "weights (get_symmetric_quantization_config(is_per_channel=True, "
              "is_dynamic=True)).")
    # 6. 0-d tensors
    C["scalar_input"] = lambda: dict(model=m["ScalarInput"](),
                                     inputs=[[r(2, 3), torch.tensor(1.75)]],
                                     expect_nodes=["XNNMultiply"],
                                     notes="x * s with s a 0-d input")
    C["scalar_const"] = one_call("ScalarConst", [(2, 3)], ["XNNMultiply"],
                                 "x * s + 1 with s a 0-d buffer")
    C["scalar_output"] = one_call("ScalarOut", [(2, 3)], ["XNNMultiply"],
                                  "(x * 2).sum(): a 0-d output (sum stays portable)")
    return C


# --------------------------------------------------------------------------------------
# Lowering, capturing what upstream's XnnpackBackend serializes
# --------------------------------------------------------------------------------------
CAPTURED = []


def install_capture():
    import executorch.backends.xnnpack.xnnpack_preprocess as pre
    original = pre.serialize_xnnpack_binary

    def capture(graph, constant_data):
        CAPTURED.append(graph)
        return original(graph, constant_data)
    pre.serialize_xnnpack_binary = capture


def describe_graph(g):
    """What one XNNGraph holds: node kinds, value kinds, datatypes, quant kinds."""
    nodes = collections.Counter(type(n.xnode_union).__name__ for n in g.xnodes)
    values = collections.Counter()
    for v in g.xvalues:
        u = v.xvalue_union
        kind = type(u).__name__
        if kind == "XNNQuantizedTensorValue":
            t = u.tensor_value
            q = type(u.quant_params).__name__
            values["%s(%s, datatype %d %s)" % (kind, q, int(t.datatype), t.datatype.name)] += 1
        else:
            values["%s(datatype %d %s)" % (kind, int(u.datatype), u.datatype.name)] += 1
    fused = sum(1 for n in g.xnodes if n.output_min_max is not None)
    return {"nodes": dict(sorted(nodes.items())), "values": dict(sorted(values.items())),
            "num_externs": g.num_externs, "fused_min_max": fused,
            "version": g.version}


def output_scales(gm):
    """Per output of a converted PT2E module: the scale of the dequantize feeding it
    (None when the output is not dequantized from a per-tensor quantized value)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    scales = []
    for a in out.args[0]:
        t = str(getattr(a, "target", ""))
        if "dequantize_per_tensor" in t:
            scales.append(float(a.args[1]))
        else:
            scales.append(None)
    return scales


def lower(spec):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    model = spec["model"].eval()
    example = tuple(spec["inputs"][0])
    dyn = spec.get("dynamic_shapes")
    dyn = dyn() if dyn else None
    scales = None
    with torch.no_grad():
        if spec.get("quant"):
            from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
            from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
                XNNPACKQuantizer, get_symmetric_quantization_config)
            q = spec["quant"]
            config = get_symmetric_quantization_config(
                is_per_channel=(q in ("per_channel", "dynamic")), is_dynamic=(q == "dynamic"))
            gm = torch.export.export(model, example, dynamic_shapes=dyn).module()
            gm = prepare_pt2e(gm, XNNPACKQuantizer().set_global(config))
            for batch in spec["calib"]:
                gm(*batch)
            gm = convert_pt2e(gm)
            scales = output_scales(gm)
            model = gm
        ep = torch.export.export(model, example, dynamic_shapes=dyn)
        del CAPTURED[:]
        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
        et = edge.to_executorch()
    graphs = list(CAPTURED)
    plan = et.executorch_program.execution_plan[0]
    portable = sorted({op.name + ("." + op.overload if op.overload else "")
                       for op in plan.operators})
    delegates = [d.id for d in plan.delegates]
    return et.buffer, model, graphs, portable, delegates, scales


# --------------------------------------------------------------------------------------
# Upstream runtime
# --------------------------------------------------------------------------------------
def run_pybind(pte_bytes, calls):
    from executorch.runtime import Runtime
    rt = Runtime.get()
    program = rt.load_program(pte_bytes)
    method = program.load_method("forward")
    outs = []
    for inputs in calls:
        res = method.execute(list(inputs))
        outs.append([o.detach().clone() if hasattr(o, "detach") else o for o in res])
    return outs


def run_oracle(runner, pte_path, case_dir, meta):
    """Each call on upstream's prebuilt C++ runner, outputs compared with expected."""
    import numpy as np
    worst = 0.0
    for k, call in enumerate(meta["calls"]):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [runner, pte_path, "--no-print", "--out_dir", tmp, "--threads", "1"]
            for f in call["inputs"]:
                cmd += ["--input", os.path.join(case_dir, f["file"])]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                raise RuntimeError("executorch-runner failed:\n" + p.stdout[-2000:])
            for j, o in enumerate(call["outputs"]):
                got = np.load(os.path.join(tmp, "call0_out%d.npy" % j))
                want = np.load(os.path.join(case_dir, o["file"]))
                if got.shape != want.shape:
                    raise RuntimeError("oracle shape %s vs %s" % (got.shape, want.shape))
                if got.size:
                    worst = max(worst, float(np.max(np.abs(got.astype(np.float64) -
                                                           want.astype(np.float64)))))
    return worst


# --------------------------------------------------------------------------------------
def write_case(name, spec, out_root, oracle):
    import numpy as np
    import torch

    pte, module, graphs, portable, delegates, scales = lower(spec)
    kinds = collections.Counter()
    for g in graphs:
        kinds.update(type(n.xnode_union).__name__ for n in g.xnodes)
    missing = [k for k in spec["expect_nodes"] if k not in kinds]
    if missing:
        return {"name": name, "dropped": "upstream did not emit %s (portable ops: %s; "
                "nodes: %s)" % (", ".join(missing), ", ".join(portable) or "none",
                                dict(kinds))}

    case_dir = os.path.join(out_root, name)
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.pte"), "wb") as f:
        f.write(pte)

    upstream = run_pybind(pte, spec["inputs"])
    with torch.no_grad():
        eager = []
        for inputs in spec["inputs"]:
            r = module(*inputs)
            eager.append(list(r) if isinstance(r, (tuple, list)) else [r])

    def desc(t, fname):
        return {"dtype": str(np.asarray(t).dtype), "shape": list(t.shape), "file": fname}

    calls = []
    for k, inputs in enumerate(spec["inputs"]):
        pre = "" if k == 0 else "call%d_" % k
        call = {"inputs": [], "outputs": []}
        for i, t in enumerate(inputs):
            fn = "%sinput_%d.npy" % (pre, i)
            np.save(os.path.join(case_dir, fn), t.numpy())
            call["inputs"].append(desc(t.numpy(), fn))
        for j, (u, e) in enumerate(zip(upstream[k], eager[k])):
            fn, en = "%sexpected_%d.npy" % (pre, j), "%seager_%d.npy" % (pre, j)
            u, e = u.numpy(), e.detach().numpy()
            np.save(os.path.join(case_dir, fn), u)
            np.save(os.path.join(case_dir, en), e)
            o = desc(u, fn)
            o["eager"] = en
            o["upstream_vs_eager_max_abs"] = float(np.max(np.abs(u.astype(np.float64) -
                                                                 e.astype(np.float64)))) \
                if u.size else 0.0
            call["outputs"].append(o)
        calls.append(call)

    if spec.get("quant") == "dynamic":
        # Float output; activations quantized per row at run time, so only integer
        # rounding of the dynamic parameters may differ between XNNPACK versions.
        tol = {"kind": "float", "atol": 1e-4, "rtol": 1e-4}
    elif spec.get("quant"):
        if any(s is None for s in scales):
            raise RuntimeError("%s: an output is not dequantized per tensor" % name)
        # One quantization step of each output's scale.
        tol = {"kind": "int8", "steps": 1, "output_scales": scales,
               "atol": [s * 1.0 for s in scales], "rtol": 0.0}
    else:
        tol = dict(kind="float", **spec.get("tol", FLOAT_TOL))
    meta = {
        "name": name,
        "pte": "model.pte",
        "method": "forward",
        "notes": spec["notes"],
        "quantization": spec.get("quant"),
        "dynamic": bool(spec.get("dynamic_shapes")),
        "tolerance": tol,
        "calls": calls,
        "expect_nodes": spec["expect_nodes"],
        "delegates": delegates,
        "portable_ops": portable,
        "xnnpack": [describe_graph(g) for g in graphs],
        "reference": "expected_* from upstream ExecuTorch 1.5.1's runtime (pybindings, "
                     "XnnpackBackend); eager_* from PyTorch eager",
    }
    with open(os.path.join(case_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=False)
        f.write("\n")
    result = {"name": name, "bytes": len(pte)}
    if oracle:
        result["oracle_max_abs"] = run_oracle(oracle, os.path.join(case_dir, "model.pte"),
                                              case_dir, meta)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "upstream_xnnpack"))
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--oracle", default=None, metavar="RUNNER",
                    help="upstream's executorch-runner: also run every call there")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import logging
    logging.disable(logging.WARNING)
    import torch
    install_capture()
    os.makedirs(args.out, exist_ok=True)
    all_cases = cases()
    names = args.only or list(all_cases)
    summary = []
    for idx, name in enumerate(all_cases):
        if name not in names:
            continue
        # Each case: its own deterministic seed (position-independent).
        torch.manual_seed(1000 + sum(map(ord, name)))
        spec = all_cases[name]()
        try:
            res = write_case(name, spec, args.out, args.oracle)
        except Exception as e:  # reported, the other cases still written
            res = {"name": name, "error": "%s: %s" % (type(e).__name__,
                                                      str(e).strip().splitlines()[0][:300])}
        summary.append(res)
        if "dropped" in res:
            print("DROPPED %s: %s" % (name, res["dropped"]), flush=True)
            d = os.path.join(args.out, name)
            if os.path.isdir(d):
                shutil.rmtree(d)
        elif "error" in res:
            print("ERROR %s: %s" % (name, res["error"]), flush=True)
        else:
            print("wrote %s (%d bytes%s)" % (name, res["bytes"],
                  ", oracle max |d| %g" % res["oracle_max_abs"] if "oracle_max_abs" in res
                  else ""), flush=True)
    return 1 if any("error" in r for r in summary) else 0


if __name__ == "__main__":
    sys.exit(main())
