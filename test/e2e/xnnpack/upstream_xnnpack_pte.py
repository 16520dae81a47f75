#!/usr/bin/env python3
"""A .pte laid out the way ExecuTorch's exporter writes an XNNPACK-delegated
program, built here from the published formats (no upstream tool needed),
then run by pte-run against outputs computed here in plain Python.

How it is built (what upstream's XNNPACK partitioner + to_executorch emit):
- the delegate blob: a 30-byte XH00 header padded to 32, the XNNGraph
  flatbuffer (identifier XN01, version "0", constant_data[0] a (0, 0)
  placeholder) padded to 16, then the constants, each padded to 16;
- the graph is NHWC inside: a StaticTranspose from the NCHW input, a 3x3
  convolution (OHWI filter, fused relu as output_min_max), 2x2 max pooling,
  hardswish, a broadcast add of a constant, global average pooling, a
  static reshape to [1, C] and a fully-connected layer;
- weights are baked: most in the blob's constant data (offset + size), the
  fully-connected filter in the program's named data (named_key, offset
  UINT64_MAX) the way newer exporters store weights;
- the delegate's arguments are the user input and the output only (external
  ids 0 and 1), no compile specs, the blob in segment 1 (segment 0 is the
  empty constant segment), the named data in segment 2;
- after the delegate a portable kernel (aten::sigmoid.out) runs on its
  result: a mixed program, planned in one arena.
Variants check init failures: a node this XNNPACK lacks (concatenate)
must be refused naming it, and an unknown graph version (XN07) refused.

Standard library only. Exit 0 when all checks pass, 1 otherwise, 77 when
pte-run was built without XnnpackBackend.
"""
import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "conformance"))
import ptefb  # noqa: E402
from ptefb import S, STR, TAB, VEC, VTAB, T, V  # noqa: E402
import make_corpus  # noqa: E402

SKIP = 77
U32 = S("I")

# The XNNGraph tables this file uses, slot by slot (schema:
# backends/xnnpack/schema/xnnpack_graph.fbs; a union takes two slots).
XNN_SCHEMA = {
    "XNNGraph": {0: ("version", STR), 1: ("xnodes", VTAB("XNode")),
                 2: ("xvalues", VTAB("XValue")), 3: ("num_externs", U32),
                 4: ("input_ids", VEC("I")), 5: ("output_ids", VEC("I")),
                 6: ("constant_buffer", VTAB("Buffer")), 7: ("mem_buffer_sizes", VEC("I")),
                 8: ("constant_data", VTAB("ConstantDataOffset"))},
    "XNode": {0: ("xnode_union_type", ("union_type", "XNodeUnion")),
              1: ("xnode_union", ("union", "XNodeUnion")), 2: ("debug_handle", U32),
              3: ("output_min_max", TAB("OutputMinMax"))},
    "XValue": {0: ("xvalue_union_type", ("union_type", "XValueUnion")),
               1: ("xvalue_union", ("union", "XValueUnion"))},
    "XNNTensorValue": {0: ("datatype", S("h")), 1: ("num_dims", U32), 2: ("dims", VEC("I")),
                       3: ("constant_buffer_idx", U32), 4: ("external_id", U32),
                       5: ("flags", U32), 6: ("id_out", U32)},
    "OutputMinMax": {0: ("output_min", S("f", 0.0)), 1: ("output_max", S("f", 0.0))},
    "_XNNNode2x1": {i: (n, U32) for i, n in enumerate(
        ["input1_id", "input2_id", "output_id", "flags"])},
    "_XNNNode1x1": {i: (n, U32) for i, n in enumerate(["input_id", "output_id", "flags"])},
    "_XNNCat": {i: (n, U32) for i, n in enumerate(
        ["axis", "input1_id", "input2_id", "input3_id", "input4_id", "output_id", "flags",
         "input5_id"])},
    "_XNNNodeConv": {i: (n, U32) for i, n in enumerate(
        ["padding_top", "padding_right", "padding_bottom", "padding_left", "kernel_height",
         "kernel_width", "subsampling_height", "subsampling_width", "dilation_height",
         "dilation_width", "group_input_channels", "group_output_channels", "groups",
         "adjustment_height", "adjustment_width", "input1_id", "filter_id", "bias_id",
         "output_id", "flags"])},
    "_XNNPooling2D": {i: (n, U32) for i, n in enumerate(
        ["padding_top", "padding_right", "padding_bottom", "padding_left", "pooling_height",
         "pooling_width", "stride_height", "stride_width", "dilation_height", "dilation_width",
         "input_id", "output_id", "flags"])},
    "XNNFullyConnected": {i: (n, U32) for i, n in enumerate(
        ["input1_id", "filter_id", "bias_id", "output_id", "flags"])},
    "XNNStaticTranspose": {0: ("num_dims", U32), 1: ("perm", VEC("I")), 2: ("input_id", U32),
                           3: ("output_id", U32), 4: ("flags", U32)},
    "XNNStaticReshape": {0: ("num_dims", U32), 1: ("new_shape", VEC("I")),
                         2: ("input_id", U32), 3: ("output_id", U32), 4: ("flags", U32)},
    "ConstantDataOffset": {0: ("offset", S("Q")), 1: ("size", S("Q")), 2: ("named_key", STR)},
}
# Union tags (member positions in XNodeUnion / XValueUnion).
TAG = {"XNNAdd": 1, "XNNFullyConnected": 2, "XNNStaticTranspose": 5, "XNNConv2d": 7,
       "XNNMaxPooling2d": 14, "XNNGlobalAvgPooling2d": 19, "XNNStaticReshape": 20,
       "XNNHardswish": 24, "XNNConcatenate2": 32}
XNN_TENSOR_VALUE = 1
EXTERNAL_INPUT, EXTERNAL_OUTPUT, NO_VALUE = 1, 2, 0xFFFFFFFF

ptefb.SCHEMA.update(XNN_SCHEMA)
for _t, _fields in XNN_SCHEMA.items():
    ptefb._SLOTS[_t] = {name: slot for slot, (name, _) in _fields.items()}


def randoms(n, seed):
    """Deterministic values in [-1, 1) (an LCG: no numpy here)."""
    out, s = [], seed
    for _ in range(n):
        s = (s * 1103515245 + 12345) % (1 << 31)
        out.append(struct.unpack("<f", struct.pack("<f", s / (1 << 30) - 1.0))[0])
    return out


def f32(xs):
    return struct.pack("<%df" % len(xs), *xs)


class Graph:
    """XNNGraph values, nodes and constant data, as upstream serializes them."""

    def __init__(self):
        self.values, self.nodes, self.constant = [], [], bytearray()
        self.table = [T("ConstantDataOffset", offset=0, size=0)]

    def value(self, dims, const=0, ext=NO_VALUE, flags=0):
        vid = len(self.values)
        self.values.append(T("XValue", xvalue_union_type=XNN_TENSOR_VALUE, xvalue_union=T(
            "XNNTensorValue", datatype=1, num_dims=len(dims), dims=V("I", dims),
            constant_buffer_idx=const, external_id=ext, flags=flags, id_out=vid)))
        return vid

    def constant_value(self, dims, floats):
        self.table.append(T("ConstantDataOffset", offset=len(self.constant),
                            size=4 * len(floats)))
        self.constant += f32(floats)
        while len(self.constant) % 16:
            self.constant.append(0)
        return self.value(dims, const=len(self.table) - 1)

    def named_value(self, dims, key, nbytes):
        self.table.append(T("ConstantDataOffset", offset=(1 << 64) - 1, size=nbytes,
                            named_key=key))
        return self.value(dims, const=len(self.table) - 1)

    def node(self, kind, table, clamp=None, debug=0):
        fields = dict(xnode_union_type=TAG[kind], xnode_union=table, debug_handle=debug)
        if clamp:
            fields["output_min_max"] = T("OutputMinMax", output_min=clamp[0],
                                         output_max=clamp[1])
        self.nodes.append(T("XNode", **fields))

    def blob(self, num_externs, ident=b"XN01"):
        graph = T("XNNGraph", version="0", xnodes=self.nodes, xvalues=self.values,
                  num_externs=num_externs, input_ids=V("I", []), output_ids=V("I", []),
                  constant_data=self.table)
        fbuf = bytes(ptefb.Builder().finish(graph, ident))
        padded = fbuf + bytes((-len(fbuf)) % 16)
        header = (b"\0\0\0\0" + b"XH00" + struct.pack("<H", 30) +
                  struct.pack("<III", 32, len(fbuf), 32 + len(padded)) +
                  struct.pack("<Q", len(self.constant)))
        return header + bytes(2) + padded + bytes(self.constant)


# Sizes: x [1, C, H, W] -> conv 3x3 to K channels -> pool 2x2 -> ... -> [1, N].
C, H, W, K, N = 2, 6, 6, 4, 3
WEIGHT = randoms(K * C * 9, 1)          # OIHW, as PyTorch holds it
BIAS = randoms(K, 2)
SHIFT = randoms(K, 3)                   # the constant added after hardswish
FC = randoms(N * K, 4)                  # [N, K]
FC_BIAS = randoms(N, 5)
X = randoms(C * H * W, 6)
FC_KEY = "2c1f9b0e5a7d4c3b8e6f0a1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b"


def build_blob(variant):
    g = Graph()
    x = g.value([1, C, H, W], ext=0, flags=EXTERNAL_INPUT)
    xt = g.value([1, H, W, C])
    g.node("XNNStaticTranspose", T("XNNStaticTranspose", num_dims=4, perm=V("I", [0, 2, 3, 1]),
                                   input_id=x, output_id=xt, flags=0))
    ohwi = [WEIGHT[((o * C + i) * 3 + ky) * 3 + kx]
            for o in range(K) for ky in range(3) for kx in range(3) for i in range(C)]
    w = g.constant_value([K, 3, 3, C], ohwi)
    b = g.constant_value([K], BIAS)
    conv = g.value([1, H, W, K])
    g.node("XNNConv2d", T("_XNNNodeConv", padding_top=1, padding_right=1, padding_bottom=1,
                          padding_left=1, kernel_height=3, kernel_width=3, subsampling_height=1,
                          subsampling_width=1, dilation_height=1, dilation_width=1,
                          group_input_channels=C, group_output_channels=K, groups=1,
                          adjustment_height=0, adjustment_width=0, input1_id=xt, filter_id=w,
                          bias_id=b, output_id=conv, flags=0),
           clamp=(0.0, float("inf")), debug=11)
    pooled = g.value([1, H // 2, W // 2, K])
    g.node("XNNMaxPooling2d", T("_XNNPooling2D", padding_top=0, padding_right=0,
                                padding_bottom=0, padding_left=0, pooling_height=2,
                                pooling_width=2, stride_height=2, stride_width=2,
                                dilation_height=1, dilation_width=1, input_id=conv,
                                output_id=pooled, flags=0))
    act = g.value([1, H // 2, W // 2, K])
    if variant == "concat":
        g.node("XNNConcatenate2", T("_XNNCat", axis=3, input1_id=pooled, input2_id=pooled,
                                     output_id=act, flags=0), debug=12)
    else:
        g.node("XNNHardswish", T("_XNNNode1x1", input_id=pooled, output_id=act, flags=0), debug=12)
    shift = g.constant_value([K], SHIFT)
    added = g.value([1, H // 2, W // 2, K])
    g.node("XNNAdd", T("_XNNNode2x1", input1_id=act, input2_id=shift, output_id=added, flags=0))
    gap = g.value([1, 1, 1, K])
    g.node("XNNGlobalAvgPooling2d", T("_XNNNode1x1", input_id=added, output_id=gap, flags=0))
    flat = g.value([1, K])
    g.node("XNNStaticReshape", T("XNNStaticReshape", num_dims=2, new_shape=V("I", [1, K]),
                                 input_id=gap, output_id=flat, flags=0))
    fw = g.named_value([N, K], FC_KEY, 4 * N * K)
    fb_ = g.constant_value([N], FC_BIAS)
    y = g.value([1, N], ext=1, flags=EXTERNAL_OUTPUT)
    g.node("XNNFullyConnected", T("XNNFullyConnected", input1_id=flat, filter_id=fw,
                                  bias_id=fb_, output_id=y, flags=0))
    return g.blob(2, b"XN07" if variant == "version" else b"XN01")


def build_pte(variant):
    plan = make_corpus.Plan()
    x = plan.tensor([1, C, H, W])
    y = plan.tensor([1, N])
    z = plan.tensor([1, N])
    plan.inputs, plan.outputs = [x], [z]
    plan.delegates.append(T("BackendDelegate", id="XnnpackBackend",
                            processed=T("BackendDelegateDataReference", location=1, index=1),
                            compile_specs=[]))
    plan.delegate_call(0, [x, y])
    plan.kernel("aten::sigmoid.out", [y, z, z])
    blobs = [b"", build_blob(variant), f32(FC)]
    prog, data = make_corpus.program(
        [plan.build()], blobs, constant=(0, [0]),
        named_data=[T("NamedData", key=FC_KEY, segment_index=2)])
    return ptefb.pte_file(prog, data)


def reference():
    """The same computation on NCHW data."""
    out = []
    for o in range(K):
        plane = []
        for yy in range(H):
            for xx in range(W):
                acc = BIAS[o]
                for i in range(C):
                    for ky in range(3):
                        for kx in range(3):
                            iy, ix = yy + ky - 1, xx + kx - 1
                            if 0 <= iy < H and 0 <= ix < W:
                                acc += X[(i * H + iy) * W + ix] * WEIGHT[((o * C + i) * 3 + ky) * 3 + kx]
                plane.append(max(acc, 0.0))
        pooled = [max(plane[(2 * py + dy) * W + 2 * px + dx] for dy in (0, 1) for dx in (0, 1))
                  for py in range(H // 2) for px in range(W // 2)]
        hs = [v * min(max(v + 3.0, 0.0), 6.0) / 6.0 + SHIFT[o] for v in pooled]
        out.append(sum(hs) / len(hs))
    y = [FC_BIAS[n] + sum(FC[n * K + k] * out[k] for k in range(K)) for n in range(N)]
    return [1.0 / (1.0 + math.exp(-v)) for v in y]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--keep", help="also write the .pte files into this folder")
    args = ap.parse_args()
    pte_run = os.path.join(args.bin, "pte-run")
    listing = subprocess.run([pte_run, "--help"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout
    if "--xnnpack-threads" not in listing:
        print("skipped: pte-run was built without XnnpackBackend")
        return SKIP
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        d = args.keep or tmp
        os.makedirs(d, exist_ok=True)
        paths = {}
        for variant in ("ok", "concat", "version"):
            paths[variant] = os.path.join(d, "upstream_xnnpack_%s.pte" % variant)
            open(paths[variant], "wb").write(build_pte(variant))
        make_corpus.npy(os.path.join(tmp, "x.npy"), [1, C, H, W], X)
        make_corpus.npy(os.path.join(tmp, "z.npy"), [1, N], reference())
        p = subprocess.run([pte_run, paths["ok"], "--input", os.path.join(tmp, "x.npy"),
                            "--expected", os.path.join(tmp, "z.npy"), "--rtol", "1e-4",
                            "--atol", "1e-5"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(p.stdout.rstrip())
        if p.returncode != 0 or "XnnpackBackend=1" not in p.stdout:
            print("FAIL: the upstream-format program did not run and match (exit %d)"
                  % p.returncode)
            failures += 1
        for variant, needle in (("concat", "node 3 (XNNConcatenate2, debug handle 12)"),
                                ("version", "XN07")):
            p = subprocess.run([pte_run, paths[variant]], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode != 1 or needle not in p.stdout:
                print("FAIL: %s: expected a load error naming '%s', got (exit %d):\n%s"
                      % (variant, needle, p.returncode, p.stdout))
                failures += 1
            else:
                print("ok: %s refused: %s" % (variant, p.stdout.strip().splitlines()[-1]))
    print("upstream-format XNNPACK program: %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
