#!/usr/bin/python3
"""Generate the portable-kernel conformance cases from PyTorch.

Run with Debian's python3-torch (not a pyenv/venv python):
    /usr/bin/python3 test/unit/kernels/gen_cases.py

Writes one binary case file per kernel into test/unit/kernels/cases/. Each
case holds the boxed argument list exactly as a KernelCall passes it (schema
args in order, then the return value(s)) plus PyTorch's expected outputs. The
format is read by CaseFile.cpp; it is described there. Output is
deterministic (fixed seed, sorted files).
"""
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "cases")

# .pte ScalarType numbering.
DTYPE = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.float16: 5, torch.bfloat16: 15,
}
# Tolerance classes (rtol, atol); documented in docs/kernels.md.
EW = (1e-5, 1e-6)     # element-wise, copies, indexing
RED = (1e-4, 1e-5)    # reductions, normalisation, matmul, convolution, pooling
# float16 / bfloat16 results may differ from PyTorch's by one rounding step
# (upstream and we compute in float and round once; the reference is PyTorch
# computing in float32 and rounding): a little over one ulp.
HALF = (2e-3, 1e-3)
BF16 = (1.6e-2, 1e-2)
# Sums in float16/bfloat16 (matmul, normalisation, pooling, reductions): the
# reference rounds once after float32 accumulation, as we do, but inputs
# already carry their rounding error through many terms.
HALF_RED = (4e-3, 4e-3)
BF16_RED = (3e-2, 3e-2)

TAG_NONE, TAG_INT, TAG_DOUBLE, TAG_BOOL, TAG_STRING, TAG_TENSOR = 0, 1, 2, 3, 4, 5
TAG_INTLIST, TAG_DOUBLELIST, TAG_BOOLLIST, TAG_TENSORLIST, TAG_OPTTENSORLIST = 6, 7, 8, 9, 10
TAG_OUT, TAG_REF, TAG_REFLIST, TAG_OUTLIST = 11, 12, 13, 14


class IL:
    """int[] argument (boxed IntList)."""
    def __init__(self, items): self.items = [int(i) for i in items]


class TL:
    """Tensor[] argument."""
    def __init__(self, items): self.items = items


class OTL:
    """Tensor?[] argument (None entries allowed)."""
    def __init__(self, items): self.items = items


class Out:
    """An out tensor, checked against `expected` after the call."""
    def __init__(self, expected, cap=None, nodata=False):
        self.expected = expected
        self.cap = cap
        self.nodata = nodata


class OutList:
    """Tensor(a!)[] out argument (split_with_sizes_copy)."""
    def __init__(self, expected): self.expected = expected


class OutUnchecked(Out):
    """An out tensor the kernel must leave alone (convolution_backward's
    masked outputs): passed like Out, not compared."""


class Ref:
    """The same EValue as argument `index` (out args appear twice)."""
    def __init__(self, index): self.index = index


class RefList:
    """A TensorList of earlier argument EValues (several returns)."""
    def __init__(self, indices): self.indices = indices


class Expect:
    """Check argument `index` (an in-place op's self) after the call."""
    def __init__(self, index, tensor): self.index, self.tensor = index, tensor


def u32(v): return struct.pack("<I", v)


def s(text):
    b = text.encode()
    return struct.pack("<H", len(b)) + b


def tensor_blob(t):
    t = t.contiguous()
    out = struct.pack("<bB", DTYPE[t.dtype], t.dim())
    out += b"".join(struct.pack("<q", d) for d in t.shape)
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: write the raw bits
        t = t.view(torch.int16)
    out += t.numpy().tobytes() if t.numel() else b""
    return out


def shape_blob(t):
    return struct.pack("<bB", DTYPE[t.dtype], t.dim()) + b"".join(
        struct.pack("<q", d) for d in t.shape)


def arg_blob(a):
    if a is None:
        return bytes([TAG_NONE])
    if isinstance(a, bool):
        return bytes([TAG_BOOL]) + struct.pack("<B", a)
    if isinstance(a, int):
        return bytes([TAG_INT]) + struct.pack("<q", a)
    if isinstance(a, float):
        return bytes([TAG_DOUBLE]) + struct.pack("<d", a)
    if isinstance(a, str):
        return bytes([TAG_STRING]) + s(a)
    if isinstance(a, torch.Tensor):
        return bytes([TAG_TENSOR]) + tensor_blob(a)
    if isinstance(a, list) and a and all(isinstance(v, bool) for v in a):
        return bytes([TAG_BOOLLIST]) + u32(len(a)) + bytes(1 if v else 0 for v in a)
    if isinstance(a, list) and all(isinstance(v, float) for v in a):
        return bytes([TAG_DOUBLELIST]) + u32(len(a)) + b"".join(struct.pack("<d", v) for v in a)
    if isinstance(a, IL):
        return bytes([TAG_INTLIST]) + u32(len(a.items)) + b"".join(
            struct.pack("<q", i) for i in a.items)
    if isinstance(a, TL):
        return bytes([TAG_TENSORLIST]) + u32(len(a.items)) + b"".join(
            tensor_blob(t) for t in a.items)
    if isinstance(a, OTL):
        out = bytes([TAG_OPTTENSORLIST]) + u32(len(a.items))
        for t in a.items:
            out += b"\x00" if t is None else b"\x01" + tensor_blob(t)
        return out
    if isinstance(a, Out):
        cap = a.expected.numel() * a.expected.element_size() if a.cap is None else a.cap
        return bytes([TAG_OUT]) + shape_blob(a.expected) + struct.pack(
            "<qB", cap, 1 if a.nodata else 0)
    if isinstance(a, OutList):
        return bytes([TAG_OUTLIST]) + u32(len(a.expected)) + b"".join(
            shape_blob(t) + struct.pack("<qB", t.numel() * t.element_size(), 0)
            for t in a.expected)
    if isinstance(a, Ref):
        return bytes([TAG_REF]) + u32(a.index)
    if isinstance(a, RefList):
        return bytes([TAG_REFLIST]) + u32(len(a.indices)) + b"".join(u32(i) for i in a.indices)
    raise TypeError("unsupported argument %r" % (a,))


CASES = {}  # kernel name -> list of case blobs


def case(kernel, name, args, tol=EW, expect=()):
    expected = []
    for i, a in enumerate(args):
        if isinstance(a, OutUnchecked):
            continue
        if isinstance(a, Out):
            expected.append((i, -1, a.expected))
        elif isinstance(a, OutList):
            expected += [(i, k, t) for k, t in enumerate(a.expected)]
    expected += [(e.index, -1, e.tensor) for e in expect]
    blob = s(name) + struct.pack("<ff", tol[0], tol[1]) + u32(len(args))
    blob += b"".join(arg_blob(a) for a in args)
    blob += u32(len(expected))
    for idx, elem, t in expected:
        blob += u32(idx) + struct.pack("<i", elem) + tensor_blob(t)
    CASES.setdefault(kernel, []).append(blob)


def out1(kernel, name, args, expected, tol=EW):
    """Schema args, then the out tensor twice (arg and return)."""
    n = len(args)
    case(kernel, name, list(args) + [Out(expected), Ref(n)], tol)


def outN(kernel, name, args, expected, tol=RED):
    """Several out tensors, then one TensorList holding them."""
    n = len(args)
    outs = [Out(e) for e in expected]
    case(kernel, name, list(args) + outs + [RefList(list(range(n, n + len(outs))))], tol)


# ---------------------------------------------------------------------------

g = torch.Generator().manual_seed(1234)


def rnd(*shape, dtype=torch.float32, lo=-2.0, hi=2.0):
    t = torch.rand(shape, generator=g) * (hi - lo) + lo
    return t.to(dtype) if dtype != torch.float32 else t


def rint(*shape, lo=-5, hi=6, dtype=torch.int64):
    return torch.randint(lo, hi, shape, generator=g, dtype=dtype)


def rbool(*shape):
    return torch.rand(shape, generator=g) > 0.5


def aten(name):
    return "aten::" + name


def gen_binary():
    pairs = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)),
             ((0, 3), (3,)), ((), ())]
    for op, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul),
                   ("div", torch.div)]:
        k = aten(op + ".out")
        for i, (sa, sb) in enumerate(pairs):
            a, b = rnd(*sa), rnd(*sb)
            if op == "div":
                b = b + torch.sign(b) * 0.5
            args = [a, b, 1] if op in ("add", "sub") else [a, b]
            out1(k, "f32_bcast%d" % i, args, fn(a, b))
        if op in ("add", "sub"):
            a, b = rnd(3, 4), rnd(4)
            out1(k, "alpha_float", [a, b, 2.5], fn(a, b, alpha=2.5))
            a, b = rint(3, 4), rint(4)
            out1(k, "i64_alpha", [a, b, 3], fn(a, b, alpha=3))
        if op == "mul":
            a, b = rint(3, 4), rint(3, 1)
            out1(k, "i64", [a, b], a * b)
            a, b = rbool(2, 3), rbool(3)
            out1(k, "bool", [a, b], a * b)
            a, b = rint(2, 3), rnd(3)
            out1(k, "i64_times_f32", [a, b], a * b)
        if op == "div":
            a, b = rint(2, 3), rint(2, 3, lo=1, hi=4)
            out1(k, "i64_true_div", [a, b], a / b)
    # Scalar overloads.
    a = rnd(2, 3)
    out1(aten("add.Scalar_out"), "f32", [a, 1.5, 2], torch.add(a, 1.5, alpha=2))
    ai = rint(2, 3)
    out1(aten("add.Scalar_out"), "i64", [ai, 4, 1], ai + 4)
    out1(aten("add.Scalar_out"), "i64_plus_float", [ai, 0.5, 1], ai + 0.5)
    out1(aten("sub.Scalar_out"), "f32", [a, 0.75, 1], a - 0.75)
    out1(aten("mul.Scalar_out"), "f32", [a, -3.0], a * -3.0)
    out1(aten("mul.Scalar_out"), "i64", [ai, 3], ai * 3)
    out1(aten("div.Scalar_out"), "f32", [a, 4.0], a / 4.0)
    out1(aten("div.Scalar_out"), "i64", [ai, 2], ai / 2)
    out1(aten("rsub.Scalar_out"), "f32", [a, 2.0, 3], torch.rsub(a, 2.0, alpha=3))
    out1(aten("rsub.Scalar_out"), "i64", [ai, 7, 1], torch.rsub(ai, 7))
    # div with rounding modes.
    a, b = rnd(3, 4, lo=-9, hi=9), rnd(4, lo=0.5, hi=3)
    b[1] = -b[1]
    k = aten("div.out_mode")
    out1(k, "none", [a, b, None], torch.div(a, b))
    out1(k, "trunc_f32", [a, b, "trunc"], torch.div(a, b, rounding_mode="trunc"))
    out1(k, "floor_f32", [a, b, "floor"], torch.div(a, b, rounding_mode="floor"))
    ai, bi = rint(3, 4, lo=-20, hi=20), rint(4, lo=1, hi=5)
    bi[0] = -3
    out1(k, "trunc_i64", [ai, bi, "trunc"], torch.div(ai, bi, rounding_mode="trunc"))
    out1(k, "floor_i64", [ai, bi, "floor"], torch.div(ai, bi, rounding_mode="floor"))
    # pow.
    a = rnd(2, 3, lo=0.1, hi=3)
    out1(aten("pow.Tensor_Scalar_out"), "f32_sq", [a, 2], a ** 2)
    out1(aten("pow.Tensor_Scalar_out"), "f32_frac", [a, 0.5], a ** 0.5)
    ai = rint(2, 3, lo=-3, hi=4)
    out1(aten("pow.Tensor_Scalar_out"), "i64", [ai, 3], ai ** 3)
    b = rnd(3, lo=-2, hi=2)
    out1(aten("pow.Tensor_Tensor_out"), "f32_bcast", [a, b], a ** b)
    e = rint(3, lo=0, hi=4)
    out1(aten("pow.Tensor_Tensor_out"), "i64", [ai, e], torch.pow(ai, e))
    a32, b32 = rint(2, 3, dtype=torch.int32), rint(3, dtype=torch.int32)
    out1(aten("add.out"), "i32", [a32, b32, 1], a32 + b32)
    out1(aten("sub.out"), "u8_wraps", [torch.tensor([1, 200], dtype=torch.uint8),
                                       torch.tensor([2, 100], dtype=torch.uint8), 1],
         torch.tensor([1, 200], dtype=torch.uint8) - torch.tensor([2, 100], dtype=torch.uint8))
    big = torch.tensor([2 ** 62, -3])
    out1(aten("mul.Scalar_out"), "i64_wraps", [big, 4], big * 4)
    x = rnd(2, 2)
    out1(aten("add.out"), "f32_plus_i64_rank0", [x, torch.tensor(3), 1], x + torch.tensor(3))


def gen_compare():
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        fn = getattr(torch, op)
        a = rint(3, 4, lo=0, hi=3).float()
        b = rint(4, lo=0, hi=3).float()
        out1(aten(op + ".Tensor_out"), "f32_bcast", [a, b], fn(a, b))
        ai, bi = rint(2, 3, lo=0, hi=3), rint(2, 1, lo=0, hi=3)
        out1(aten(op + ".Tensor_out"), "i64", [ai, bi], fn(ai, bi))
        out1(aten(op + ".Scalar_out"), "f32", [a, 1.0], fn(a, 1.0))
        out1(aten(op + ".Scalar_out"), "i64", [ai, 1], fn(ai, 1))
        out1(aten(op + ".Scalar_out"), "empty", [rnd(0, 2), 0.0], fn(rnd(0, 2), 0.0))
    a, b = rbool(3, 4), rbool(4)
    out1(aten("logical_and.out"), "bool", [a, b], torch.logical_and(a, b))
    out1(aten("eq.Tensor_out"), "bool", [a, b], torch.eq(a, b))
    xi = rint(5)
    out1(aten("lt.Scalar_out"), "i64_vs_float", [xi, 0.5], torch.lt(xi, 0.5))
    fa, fb = rint(3, 4, lo=0, hi=2).float(), rint(3, 4, lo=0, hi=2).float()
    out1(aten("logical_and.out"), "f32", [fa, fb], torch.logical_and(fa, fb))
    out1(aten("logical_not.out"), "bool", [a], torch.logical_not(a))
    out1(aten("logical_not.out"), "f32", [fa], torch.logical_not(fa))
    out1(aten("bitwise_not.out"), "bool", [a], torch.bitwise_not(a))
    ai = rint(2, 3)
    out1(aten("bitwise_not.out"), "i64", [ai], torch.bitwise_not(ai))
    x = rnd(2, 3)
    x[0, 1] = float("nan")
    x[1, 2] = float("inf")
    out1(aten("isnan.out"), "f32", [x], torch.isnan(x))


def gen_unary():
    ops = [("neg", torch.neg, (-3, 3)), ("abs", torch.abs, (-3, 3)), ("exp", torch.exp, (-3, 3)),
           ("log", torch.log, (0.1, 5)), ("sqrt", torch.sqrt, (0, 5)),
           ("rsqrt", torch.rsqrt, (0.1, 5)), ("sin", torch.sin, (-4, 4)),
           ("cos", torch.cos, (-4, 4)), ("tanh", torch.tanh, (-4, 4)),
           ("sigmoid", torch.sigmoid, (-6, 6)), ("relu", torch.relu, (-2, 2)),
           ("reciprocal", torch.reciprocal, (0.2, 4)), ("erf", torch.erf, (-3, 3))]
    for op, fn, (lo, hi) in ops:
        k = aten(op + ".out")
        for i, shape in enumerate([(2, 3, 4), (), (0, 5)]):
            x = rnd(*shape, lo=lo, hi=hi)
            out1(k, "f32_%d" % i, [x], fn(x))
    for op, fn in [("neg", torch.neg), ("abs", torch.abs), ("relu", torch.relu)]:
        x = rint(7)
        out1(aten(op + ".out"), "i64", [x], fn(x))
    x = rint(5, lo=1, hi=9)
    out1(aten("exp.out"), "i64_to_f32", [x], torch.exp(x))
    out1(aten("sqrt.out"), "i64_to_f32", [x], torch.sqrt(x))
    x = rnd(3, 5, lo=-4, hi=4)
    out1(aten("gelu.out"), "none", [x, "none"], torch.nn.functional.gelu(x))
    out1(aten("gelu.out"), "tanh", [x, "tanh"], torch.nn.functional.gelu(x, approximate="tanh"))
    out1(aten("hardtanh.out"), "default", [x, -1, 1], torch.nn.functional.hardtanh(x))
    out1(aten("hardtanh.out"), "relu6", [x, 0.0, 6.0], torch.nn.functional.hardtanh(x, 0.0, 6.0))
    out1(aten("leaky_relu.out"), "default", [x, 0.01], torch.nn.functional.leaky_relu(x))
    out1(aten("leaky_relu.out"), "slope", [x, 0.2], torch.nn.functional.leaky_relu(x, 0.2))
    out1(aten("clamp.out"), "both", [x, -0.5, 0.5], torch.clamp(x, -0.5, 0.5))
    out1(aten("clamp.out"), "min_only", [x, 0.0, None], torch.clamp(x, min=0.0))
    out1(aten("clamp.out"), "max_only", [x, None, 1], torch.clamp(x, max=1))
    xi = rint(8)
    out1(aten("clamp.out"), "i64", [xi, -2, 2], torch.clamp(xi, -2, 2))


def gen_select():
    c, a, b = rbool(3, 1), rnd(3, 4), rnd(4)
    out1(aten("where.self_out"), "f32_bcast", [c, a, b], torch.where(c, a, b))
    ai, bi = rint(2, 3), rint(2, 3)
    c = rbool(2, 3)
    out1(aten("where.self_out"), "i64", [c, ai, bi], torch.where(c, ai, bi))
    x, m = rnd(2, 3, 4), rbool(3, 1)
    out1(aten("masked_fill.Scalar_out"), "f32_bcast", [x, m, -1e4], x.masked_fill(m, -1e4))
    xi, m = rint(2, 3), rbool(2, 3)
    out1(aten("masked_fill.Scalar_out"), "i64", [xi, m, 7], xi.masked_fill(m, 7))
    x = rnd(2, 3)
    m = rbool(2, 3)
    out1(aten("masked_fill.Scalar_out"), "neg_inf", [x, m, float("-inf")],
         x.masked_fill(m, float("-inf")))


def gen_linear():
    a, b = rnd(4, 5), rnd(5, 3)
    out1(aten("mm.out"), "4x5x3", [a, b], a @ b, RED)
    a, b = rnd(33, 17), rnd(17, 9)
    out1(aten("mm.out"), "33x17x9", [a, b], a @ b, RED)
    out1(aten("mm.out"), "k0", [rnd(3, 0), rnd(0, 2)], torch.zeros(3, 2), RED)
    a, b = rnd(2, 3, 4), rnd(2, 4, 5)
    out1(aten("bmm.out"), "2x3x4x5", [a, b], torch.bmm(a, b), RED)
    s, a, b = rnd(3), rnd(2, 4), rnd(4, 3)
    out1(aten("addmm.out"), "bias_bcast", [s, a, b, 1, 1], torch.addmm(s, a, b), RED)
    s = rnd(2, 3)
    out1(aten("addmm.out"), "beta_alpha", [s, a, b, 0.5, 2.0],
         torch.addmm(s, a, b, beta=0.5, alpha=2.0), RED)
    k = aten("convolution.out")

    def conv(name, x, w, bias, stride, pad, dil, groups):
        y = torch.convolution(x, w, bias, stride, pad, dil, False, [0] * len(stride), groups)
        out1(k, name, [x, w, bias, IL(stride), IL(pad), IL(dil), False,
                       IL([0] * len(stride)), groups], y, RED)

    conv("2d_basic", rnd(1, 3, 8, 8), rnd(4, 3, 3, 3), rnd(4), [1, 1], [1, 1], [1, 1], 1)
    conv("2d_stride_nobias", rnd(2, 2, 9, 7), rnd(3, 2, 3, 2), None, [2, 1], [0, 1], [1, 1], 1)
    conv("2d_dilation", rnd(1, 2, 10, 10), rnd(2, 2, 3, 3), rnd(2), [1, 1], [2, 2], [2, 2], 1)
    conv("2d_groups", rnd(1, 4, 6, 6), rnd(6, 2, 3, 3), rnd(6), [1, 1], [1, 1], [1, 1], 2)
    conv("2d_depthwise", rnd(2, 3, 5, 5), rnd(3, 1, 3, 3), rnd(3), [2, 2], [1, 1], [1, 1], 3)
    conv("2d_pointwise", rnd(1, 5, 4, 4), rnd(7, 5, 1, 1), rnd(7), [1, 1], [0, 0], [1, 1], 1)
    conv("1d_basic", rnd(2, 3, 10), rnd(4, 3, 3), rnd(4), [1], [1], [1], 1)
    conv("1d_stride_groups", rnd(1, 4, 11), rnd(4, 2, 5), None, [2], [2], [1], 2)
    # Absent bias as the emitter writes it: an empty BYTE tensor of sizes [0].
    x, w = rnd(1, 2, 5, 5), rnd(2, 2, 3, 3)
    y = torch.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    out1(k, "2d_bias_placeholder", [x, w, torch.zeros(0, dtype=torch.uint8), IL([1, 1]),
                                    IL([0, 0]), IL([1, 1]), False, IL([0, 0]), 1], y, RED)


def gen_norm():
    for op, fn in [("_softmax", torch._softmax), ("_log_softmax", torch._log_softmax)]:
        k = aten(op + ".out")
        x = rnd(3, 5, 4, lo=-5, hi=5)
        for d in [-1, 0, 1]:
            out1(k, "dim%d" % d, [x, d, False], fn(x, d, False), RED)
        x = rnd(2, 3) * 50
        out1(k, "large", [x, 1, False], fn(x, 1, False), RED)
        x = rnd()
        out1(k, "rank0", [x, 0, False], fn(x, 0, False), RED)
        x = rnd(3, 1)
        out1(k, "size1_dim", [x, 1, False], fn(x, 1, False), RED)
        x = rnd(2, 4)
        x[0, 1] = float("-inf")
        out1(k, "neg_inf", [x, 1, False], fn(x, 1, False), RED)
    k = aten("native_layer_norm.out")
    x, w, b = rnd(2, 3, 8), rnd(8), rnd(8)
    outN(k, "last_dim", [x, IL([8]), w, b, 1e-5], list(torch.native_layer_norm(x, [8], w, b, 1e-5)))
    x, w = rnd(2, 4, 3), rnd(4, 3)
    outN(k, "two_dims_no_bias", [x, IL([4, 3]), w, None, 1e-6],
         list(torch.native_layer_norm(x, [4, 3], w, None, 1e-6)))
    outN(k, "no_affine", [x, IL([3]), None, None, 1e-5],
         list(torch.native_layer_norm(x, [3], None, None, 1e-5)))
    k = aten("_native_batch_norm_legit_no_training.out")
    for name, shape in [("nchw", (2, 3, 4, 5)), ("nc", (4, 3)), ("ncl", (2, 3, 6))]:
        x = rnd(*shape)
        w, b, m, v = rnd(3), rnd(3), rnd(3), rnd(3, lo=0.5, hi=2)
        y = torch.nn.functional.batch_norm(x, m, v, w, b, False, 0.1, 1e-5)
        empty = torch.zeros(0)
        outN(k, name, [x, w, b, m, v, 0.1, 1e-5], [y, empty, empty])
    x, m, v = rnd(1, 3, 2, 2), rnd(3), rnd(3, lo=0.5, hi=2)
    y = torch.nn.functional.batch_norm(x, m, v, None, None, False, 0.1, 1e-3)
    outN(k, "no_affine", [x, None, None, m, v, 0.1, 1e-3], [y, torch.zeros(0), torch.zeros(0)])


def gen_pool():
    k = aten("max_pool2d_with_indices.out")
    cases = [("k2s2", (1, 2, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False),
             ("k3s2p1", (2, 3, 7, 7), [3, 3], [2, 2], [1, 1], [1, 1], False),
             ("ceil", (1, 1, 7, 7), [2, 2], [2, 2], [0, 0], [1, 1], True),
             ("dilated", (1, 2, 9, 9), [3, 3], [1, 1], [1, 1], [2, 2], False),
             ("chw_default_stride", (3, 6, 6), [2], [], [0], [1], False)]
    for name, shape, ks, st, pd, dl, ceil in cases:
        x = rnd(*shape)
        y, idx = torch.nn.functional.max_pool2d_with_indices(
            x, ks, st if st else None, pd, dl, ceil, True)
        outN(k, name, [x, IL(ks), IL(st), IL(pd), IL(dl), ceil], [y, idx], EW)
    k = aten("avg_pool2d.out")
    cases = [("k2s2", (1, 2, 6, 6), [2, 2], [2, 2], [0, 0], False, True, None),
             ("pad_count", (1, 2, 5, 5), [3, 3], [2, 2], [1, 1], False, True, None),
             ("pad_nocount", (1, 2, 5, 5), [3, 3], [2, 2], [1, 1], False, False, None),
             ("ceil", (2, 1, 7, 7), [2, 2], [2, 2], [0, 0], True, True, None),
             ("divisor", (1, 1, 4, 4), [2, 2], [1, 1], [0, 0], False, True, 3)]
    for name, shape, ks, st, pd, ceil, cip, div in cases:
        x = rnd(*shape)
        y = torch.nn.functional.avg_pool2d(x, ks, st, pd, ceil, cip, div)
        out1(k, name, [x, IL(ks), IL(st), IL(pd), ceil, cip, div], y, RED)
    k = aten("_adaptive_avg_pool2d.out")
    for name, shape, os_ in [("to1", (2, 3, 5, 7), [1, 1]), ("uneven", (1, 2, 7, 5), [3, 2]),
                             ("same", (1, 1, 4, 4), [4, 4]), ("chw", (3, 6, 6), [2, 3])]:
        x = rnd(*shape)
        out1(k, name, [x, IL(os_)], torch._adaptive_avg_pool2d(x, os_), RED)


def gen_reduce():
    x = rnd(3, 4, 5)
    for op, fn in [("mean.out", torch.mean), ("sum.IntList_out", torch.sum)]:
        k = aten(op)
        out1(k, "dim1", [x, IL([1]), False, None], fn(x, [1]), RED)
        out1(k, "dims_neg_keep", [x, IL([0, -1]), True, None], fn(x, [0, -1], keepdim=True), RED)
        out1(k, "all_none", [x, None, False, None], fn(x, [0, 1, 2]) if op == "mean.out"
             else fn(x), RED)
        out1(k, "all_empty_list", [x, IL([]), False, None], fn(x), RED)
        out1(k, "dtype_f32", [x, IL([2]), False, 6], fn(x, [2], dtype=torch.float32), RED)
        r0 = rnd()
        out1(k, "rank0", [r0, IL([]), False, None], fn(r0), RED)
    xi = rint(3, 4)
    out1(aten("sum.IntList_out"), "i64", [xi, IL([1]), False, None], torch.sum(xi, [1]))
    b = rbool(3, 4)
    out1(aten("sum.IntList_out"), "bool_to_i64", [b, IL([0]), False, 4],
         torch.sum(b, [0], dtype=torch.int64))
    out1(aten("mean.out"), "i64_with_dtype", [xi, IL([0]), False, 6],
         torch.mean(xi.float(), [0]), RED)
    out1(aten("mean.out"), "empty_dim", [rnd(0, 3), IL([1]), False, None],
         torch.mean(rnd(0, 3), [1]), RED)
    k = aten("amax.out")
    out1(k, "dim1", [x, IL([1]), False], torch.amax(x, [1]))
    out1(k, "all", [x, IL([]), True], torch.amax(x, [], keepdim=True))
    y = x.clone()
    y[1, 2, 3] = float("nan")
    out1(k, "nan", [y, IL([2]), False], torch.amax(y, [2]))
    out1(k, "i64", [xi, IL([0]), False], torch.amax(xi, [0]))
    k = aten("argmax.out")
    xt = rint(4, 6, lo=0, hi=4).float()  # ties: first index wins
    out1(k, "dim1_ties", [xt, 1, False], torch.argmax(xt, 1))
    out1(k, "dim0_keep", [x[0], 0, True], torch.argmax(x[0], 0, keepdim=True))
    out1(k, "flat", [x, None, False], torch.argmax(x))
    out1(k, "i64", [xi, -1, False], torch.argmax(xi, -1))
    k = aten("cumsum.out")
    out1(k, "dim1", [x, 1, None], torch.cumsum(x, 1), RED)
    out1(k, "dim_neg", [x, -1, None], torch.cumsum(x, -1), RED)
    out1(k, "i64", [xi, 0, None], torch.cumsum(xi, 0))
    out1(k, "i64_to_f32", [xi, 1, 6], torch.cumsum(xi, 1, dtype=torch.float32), RED)


def gen_shape():
    x = rnd(2, 3, 4)
    out1(aten("permute_copy.out"), "201", [x, IL([2, 0, 1])], x.permute(2, 0, 1))
    out1(aten("permute_copy.out"), "neg", [x, IL([-1, -2, 0])], x.permute(-1, -2, 0))
    xi = rint(2, 3)
    out1(aten("permute_copy.out"), "i64", [xi, IL([1, 0])], xi.permute(1, 0))
    out1(aten("view_copy.out"), "infer", [x, IL([4, -1])], x.reshape(4, -1))
    y = rnd(1, 1)
    out1(aten("view_copy.out"), "to_rank0", [y, IL([])], y.reshape(()))
    y = rnd(3, 1)
    out1(aten("expand_copy.out"), "bcast", [y, IL([2, 3, 4]), False], y.expand(2, 3, 4))
    out1(aten("expand_copy.out"), "minus1", [y, IL([-1, 5]), False], y.expand(-1, 5))
    out1(aten("clone.out"), "f32", [x, None], x.clone())
    b = rbool(3)
    out1(aten("clone.out"), "bool_contig", [b, 0], b.clone())
    out1(aten("alias_copy.out"), "f32", [x], x.clone())
    out1(aten("detach_copy.out"), "f32", [x], x.clone())
    out1(aten("lift_fresh_copy.out"), "i64", [xi], xi.clone())
    out1(aten("unsqueeze_copy.out"), "dim1", [x, 1], x.unsqueeze(1))
    out1(aten("unsqueeze_copy.out"), "neg", [x, -1], x.unsqueeze(-1))
    r0 = rnd()
    out1(aten("unsqueeze_copy.out"), "rank0", [r0, 0], r0.unsqueeze(0))
    y = rnd(1, 3, 1, 2)
    out1(aten("squeeze_copy.dims_out"), "some", [y, IL([0, 2])], y.squeeze(2).squeeze(0))
    out1(aten("squeeze_copy.dims_out"), "non_one_kept", [y, IL([1, -2])], y.squeeze(2))
    out1(aten("select_copy.int_out"), "mid", [x, 1, 2], x.select(1, 2))
    out1(aten("select_copy.int_out"), "neg", [x, -1, -1], x.select(-1, -1))
    v = rnd(4)
    out1(aten("select_copy.int_out"), "to_rank0", [v, 0, 3], v.select(0, 3))
    k = aten("slice_copy.Tensor_out")
    out1(k, "basic", [x, 2, 1, 3, 1], x[:, :, 1:3])
    out1(k, "step", [x, 2, 0, 4, 2], x[:, :, 0:4:2])
    out1(k, "none_bounds", [x, 1, None, None, 2], x[:, ::2])
    out1(k, "neg_clamped", [x, 0, -1, 100, 1], x[-1:100])
    out1(k, "empty", [x, 1, 2, 1, 1], x[:, 2:1])
    out1(aten("transpose_copy.int_out"), "01", [x, 0, 1], x.transpose(0, 1))
    out1(aten("transpose_copy.int_out"), "neg", [x, -1, 0], x.transpose(-1, 0))
    m = rnd(3, 5)
    out1(aten("t_copy.out"), "2d", [m], m.t())
    out1(aten("t_copy.out"), "1d", [v], v.t())
    a, b, c = rnd(2, 3), rnd(2, 1), rnd(2, 4)
    out1(aten("cat.out"), "dim1", [TL([a, b, c]), 1], torch.cat([a, b, c], 1))
    out1(aten("cat.out"), "dim0", [TL([a, a]), 0], torch.cat([a, a], 0))
    out1(aten("cat.out"), "neg_legacy_empty", [TL([a, torch.zeros(0), c]), -1],
         torch.cat([a, c], -1))
    ai = rint(2, 2)
    out1(aten("cat.out"), "mixed_int_float", [TL([ai.float(), ai]), 0],
         torch.cat([ai.float(), ai.float()], 0))
    out1(aten("stack.out"), "dim0", [TL([a, a * 2]), 0], torch.stack([a, a * 2], 0))
    out1(aten("stack.out"), "dim_last", [TL([a, a, a]), -1], torch.stack([a, a, a], -1))
    out1(aten("stack.out"), "dim1", [TL([a, a + 1]), 1], torch.stack([a, a + 1], 1))
    # The split family returns (): the out list is passed again as the
    # return entry (schema arguments + 1), so Ref(out index).
    k = aten("split_with_sizes_copy.out")
    parts = list(torch.split(x, [1, 3], dim=2))
    case(k, "dim2", [x, IL([1, 3]), 2, OutList(parts), Ref(3)])
    parts = list(torch.split(x, [2, 0, 1], dim=1))
    case(k, "with_empty", [x, IL([2, 0, 1]), 1, OutList(parts), Ref(3)])
    k = aten("split_copy.Tensor_out")
    parts = list(torch.split(x, 3, dim=2))
    case(k, "uneven_last", [x, 3, 2, OutList(parts), Ref(3)])
    parts = list(torch.split(x, 1, dim=-3))
    case(k, "neg_dim", [x, 1, -3, OutList(parts), Ref(3)])
    k = aten("unbind_copy.int_out")
    case(k, "dim1", [x, 1, OutList(list(torch.unbind(x, 1))), Ref(2)])
    case(k, "dim_last", [x, -1, OutList(list(torch.unbind(x, -1))), Ref(2)])
    # et_view: the output aliases the input's storage (no planned memory).
    case("executorch_prim::et_view.default", "infer",
         [x, IL([-1, 4]), Out(x.reshape(-1, 4), cap=0, nodata=True)])
    case("executorch_prim::et_view.default", "rank0",
         [r0, IL([1, 1]), Out(r0.reshape(1, 1), cap=0, nodata=True)])


def gen_index():
    x = rnd(4, 5, 3)
    i0 = torch.tensor([0, 2, -1, 3])
    k = aten("index.Tensor_out")
    out1(k, "first_dim", [x, OTL([i0])], x[i0])
    i1 = torch.tensor([[1, 4], [0, 2]])
    out1(k, "middle_dim", [x, OTL([None, i1])], x[:, i1])
    out1(k, "two_adjacent", [x, OTL([torch.tensor([0, 3]), torch.tensor([1, 2])])],
         x[torch.tensor([0, 3]), torch.tensor([1, 2])])
    a0, a2 = torch.tensor([[0], [2]]), torch.tensor([0, 2, 1])
    out1(k, "non_adjacent_bcast", [x, OTL([a0, None, a2])], x[a0, :, a2])
    m = x[:, :, 0] > 0
    out1(k, "bool_mask_2d", [x, OTL([m])], x[m])
    m1 = torch.tensor([True, False, True, True, False])
    out1(k, "bool_mask_middle", [x, OTL([None, m1])], x[:, m1])
    out1(k, "int32", [x, OTL([torch.tensor([1, 0], dtype=torch.int32)])],
         x[torch.tensor([1, 0])])
    k = aten("index_put.out")
    v = rnd(4, 5, 3)
    vals = rnd(3)
    idx = torch.tensor([0, 2])
    out1(k, "row_bcast", [v, OTL([idx]), vals, False],
         torch.index_put(v, (idx,), vals, False))
    idx = torch.tensor([1, 1, 3])
    vals = rnd(3, 5, 3)
    out1(k, "accumulate_dup", [v, OTL([idx]), vals, True],
         torch.index_put(v, (idx,), vals, True))
    ia, ib = torch.tensor([0, 3]), torch.tensor([4, 0])
    vals = rnd(2, 3)
    out1(k, "two_dims", [v, OTL([ia, ib]), vals, False], torch.index_put(v, (ia, ib), vals))
    mask = v > 0.5
    out1(k, "mask_scalar_value", [v, OTL([mask]), torch.tensor(0.0), False],
         torch.index_put(v, (mask,), torch.tensor(0.0)))
    # index_put_: in place, returns self.
    s0 = rnd(5)
    idx = torch.tensor([4, 0])
    vals = torch.tensor([10.0, 20.0])
    case(aten("index_put_"), "inplace", [s0.clone(), OTL([idx]), vals, False, Ref(0)],
         expect=[Expect(0, torch.index_put(s0, (idx,), vals))])
    c = torch.zeros(3, dtype=torch.int64)
    case(aten("index_put_"), "accumulate_i64", [c.clone(), OTL([torch.tensor([0, 0, 2])]),
                                               torch.tensor([1, 2, 3]), True, Ref(0)],
         expect=[Expect(0, torch.tensor([3, 0, 3]))])
    k = aten("index_select.out")
    out1(k, "dim1", [x, 1, torch.tensor([4, 0, 0])], x.index_select(1, torch.tensor([4, 0, 0])))
    out1(k, "dim_neg_i32", [x, -1, torch.tensor([2, 1], dtype=torch.int32)],
         x.index_select(-1, torch.tensor([2, 1])))
    out1(k, "empty_index", [x, 0, torch.zeros(0, dtype=torch.int64)],
         x.index_select(0, torch.zeros(0, dtype=torch.int64)))
    k = aten("embedding.out")
    w = rnd(10, 4)
    ids = torch.tensor([[1, 9, 0], [3, 3, 7]])
    out1(k, "2d_ids", [w, ids, -1, False, False], torch.nn.functional.embedding(ids, w))
    ids = torch.tensor([5])
    out1(k, "padding_idx", [w, ids, 0, False, False], torch.nn.functional.embedding(ids, w, 0))
    k = aten("gather.out")
    idx = torch.tensor([[0, 1, 0], [2, 2, 1]])
    y = rnd(3, 3)
    out1(k, "dim0", [y, 0, idx, False], torch.gather(y, 0, idx))
    out1(k, "dim1_neg", [y, -1, idx, False], torch.gather(y, -1, idx))
    k = aten("slice_scatter.out")
    base, src = rnd(4, 6), rnd(4, 2)
    out1(k, "dim1_step2", [base, src, 1, 1, 5, 2], torch.slice_scatter(base, src, 1, 1, 5, 2))
    src = rnd(2, 6)
    out1(k, "dim0_none", [base, src, 0, None, None, 2],
         torch.slice_scatter(base, src, 0, None, None, 2))
    k = aten("select_scatter.out")
    src = rnd(6)
    out1(k, "dim0", [base, src, 0, 2], torch.select_scatter(base, src, 0, 2))
    src = rnd(4)
    out1(k, "dim_neg", [base, src, -1, -1], torch.select_scatter(base, src, -1, -1))


def gen_creation():
    out1(aten("full.out"), "f32", [IL([2, 3]), 1.5], torch.full((2, 3), 1.5))
    out1(aten("full.out"), "i64", [IL([4]), 7], torch.full((4,), 7))
    out1(aten("full.out"), "rank0", [IL([]), 2.0], torch.full((), 2.0))
    x = rnd(2, 2)
    out1(aten("full_like.out"), "f32", [x, -3.0, None], torch.full_like(x, -3.0))
    out1(aten("full_like.out"), "bool", [rbool(3), True, 0],
         torch.full_like(rbool(3), True))
    out1(aten("zeros.out"), "f32", [IL([2, 0, 3])], torch.zeros(2, 0, 3))
    out1(aten("zeros.out"), "i64", [IL([3])], torch.zeros(3, dtype=torch.int64))
    out1(aten("ones.out"), "f32", [IL([2, 2])], torch.ones(2, 2))
    out1(aten("ones.out"), "bool", [IL([3])], torch.ones(3, dtype=torch.bool))
    out1(aten("scalar_tensor.out"), "f32", [2.5], torch.scalar_tensor(2.5))
    out1(aten("scalar_tensor.out"), "i64", [3], torch.scalar_tensor(3, dtype=torch.int64))
    k = aten("arange.start_out")
    out1(k, "i64", [0, 5, 1], torch.arange(0, 5))
    out1(k, "i64_step", [10, 1, -3], torch.arange(10, 1, -3))
    out1(k, "f32_frac", [0.0, 1.0, 0.25], torch.arange(0.0, 1.0, 0.25))
    out1(k, "f32_from_ints", [1, 4, 1], torch.arange(1, 4, 1, dtype=torch.float32))
    out1(k, "empty", [3, 3, 1], torch.arange(3, 3))
    x = rnd(2, 3, 4)
    k = aten("constant_pad_nd.out")
    out1(k, "last_dim", [x, IL([1, 2]), 0.0], torch.constant_pad_nd(x, [1, 2], 0.0))
    out1(k, "two_dims_value", [x, IL([0, 1, 2, 0]), -1.5],
         torch.constant_pad_nd(x, [0, 1, 2, 0], -1.5))
    out1(k, "negative_crop", [x, IL([-1, 1, 1, -2]), 3.0],
         torch.constant_pad_nd(x, [-1, 1, 1, -2], 3.0))
    xi = rint(2, 3)
    out1(k, "i64", [xi, IL([1, 1]), 9], torch.constant_pad_nd(xi, [1, 1], 9))
    out1(aten("fill.Scalar_out"), "f32", [x, 0.5], torch.full_like(x, 0.5))
    out1(aten("fill.Scalar_out"), "i64", [xi, -2], torch.full_like(xi, -2))
    k = aten("_to_copy.out")
    y = rnd(2, 3, lo=-5, hi=5)
    out1(k, "f32_to_i64", [y, False, None], y.to(torch.int64))
    out1(k, "i64_to_f32", [xi, False, None], xi.to(torch.float32))
    out1(k, "f32_to_bool", [y, False, 0], y.to(torch.bool))
    b = rbool(4)
    out1(k, "bool_to_f32", [b, False, None], b.to(torch.float32))
    out1(k, "i64_to_i32", [xi, False, None], xi.to(torch.int32))
    out1(k, "f32_to_u8", [y.abs(), False, None], y.abs().to(torch.uint8))
    k = "dim_order_ops::_to_dim_order_copy.out"
    out1(k, "f32_to_i64", [y, False, None], y.to(torch.int64))
    out1(k, "contiguous_order", [x, False, IL([0, 1, 2])], x.clone())
    # Channels-last layouts are not expressible in case files; KernelTests.cpp
    # covers them with hand-built strided tensors.
    k = "dim_order_ops::_clone_dim_order.out"
    out1(k, "keep_order", [x, False, None], x.clone())
    out1(k, "contiguous_order", [x, False, IL([0, 1, 2])], x.clone())
    out1(k, "i64", [xi, False, None], xi.clone())
    k = aten("copy.out")
    src = rnd(3)
    dst = rnd(2, 3)
    out1(k, "bcast", [dst, src, False], src.expand(2, 3).clone())
    out1(k, "i64_src", [dst, xi, False], xi.float())
    # copy_: [self, src, non_blocking, self]; self is checked after the call.
    case(aten("copy_"), "bcast", [dst.clone(), src, False, Ref(0)],
         expect=[Expect(0, src.expand(2, 3).clone())])
    buf = torch.zeros((), dtype=torch.int64)
    case(aten("copy_"), "rank0_i64", [buf, torch.tensor(41), False, Ref(0)],
         expect=[Expect(0, torch.tensor(41))])
    # Appended last so the random draws of the cases above stay the same.
    y = rnd(1, 3, 1, 2)
    k = aten("squeeze_copy.dim_out")
    out1(k, "size_one", [y, 2], y.squeeze(2))
    out1(k, "neg", [y, -4], y.squeeze(-4))
    out1(k, "not_one_kept", [y, 1], y.squeeze(1))


# ---------------------------------------------------------------------------
# Operators added for upstream's full portable set. Every generator below
# draws after all of the above, so earlier cases keep their random values.
# ---------------------------------------------------------------------------

F16, BF = torch.float16, torch.bfloat16


def lowp(fn, dt, *xs):
    """PyTorch's result for float16/bfloat16 inputs, computed in float32 and
    rounded once (torch 1.13's CPU kernels lack many half ops; upstream's
    portable kernels also compute in float and round)."""
    return fn(*[x.float() if torch.is_tensor(x) and x.is_floating_point() else x
                for x in xs]).to(dt)


def tol_of(dt, base=EW):
    return HALF if dt == F16 else BF16 if dt == BF else base


def gen_unary_math():
    ops = [("acos", torch.acos, (-0.95, 0.95)), ("acosh", torch.acosh, (1.0, 5.0)),
           ("asin", torch.asin, (-0.95, 0.95)), ("asinh", torch.asinh, (-4, 4)),
           ("atan", torch.atan, (-4, 4)), ("atanh", torch.atanh, (-0.95, 0.95)),
           ("cosh", torch.cosh, (-3, 3)), ("sinh", torch.sinh, (-3, 3)),
           ("tan", torch.tan, (-1.2, 1.2)), ("expm1", torch.expm1, (-3, 3)),
           ("log10", torch.log10, (0.1, 50)), ("log1p", torch.log1p, (-0.9, 5)),
           ("log2", torch.log2, (0.1, 50))]
    for op, fn, (lo, hi) in ops:
        k = aten(op + ".out")
        for i, shape in enumerate([(2, 3, 4), (), (0, 3)]):
            x = rnd(*shape, lo=lo, hi=hi)
            out1(k, "f32_%d" % i, [x], fn(x))
        x = rnd(3, 4, lo=lo, hi=hi).double()
        out1(k, "f64", [x], fn(x))
        for dt in (F16, BF):
            x = rnd(7, lo=lo, hi=hi).to(dt)
            out1(k, str(dt)[6:], [x], lowp(fn, dt, x), tol_of(dt))
    xi = rint(6, lo=1, hi=9)
    for op, fn in [("log2", torch.log2), ("atan", torch.atan), ("expm1", torch.expm1)]:
        out1(aten(op + ".out"), "i64_to_f32", [xi], fn(xi))
    x = rbool(5)
    out1(aten("asinh.out"), "bool_to_f32", [x], torch.asinh(x))
    # Rounding keeps the dtype; integers pass through.
    x = rnd(3, 5, lo=-4, hi=4)
    x[0, :4] = torch.tensor([0.5, 1.5, -2.5, -0.5])
    for op, fn in [("ceil", torch.ceil), ("floor", torch.floor), ("trunc", torch.trunc),
                   ("round", torch.round)]:
        k = aten(op + ".out")
        out1(k, "f32", [x], fn(x))
        out1(k, "f64", [x.double()], fn(x.double()))
        out1(k, "i64", [xi], fn(xi))
        for dt in (F16, BF):
            out1(k, str(dt)[6:], [x.to(dt)], lowp(fn, dt, x.to(dt)), tol_of(dt))
    y = torch.tensor([-2.5, 0.0, -0.0, 3.0, float("nan"), float("-inf")])
    k = aten("sign.out")
    out1(k, "f32_nan", [y], torch.sign(y))
    x32 = rint(6, dtype=torch.int32)
    out1(k, "i32", [x32], torch.sign(x32))
    b = rbool(4)
    out1(k, "bool", [b], torch.sign(b))
    out1(k, "f16", [y.half()], torch.sign(y).half(), HALF)
    k = aten("isinf.out")
    out1(k, "f32", [y], torch.isinf(y))
    out1(k, "i64", [xi], torch.isinf(xi))
    out1(k, "bf16", [y.bfloat16()], torch.isinf(y))
    k = aten("logit.out")
    p = rnd(2, 5, lo=0.01, hi=0.99)
    p[0, 0], p[0, 1] = 0.0, 1.0
    out1(k, "no_eps", [p, None], torch.logit(p))
    out1(k, "eps", [p, 0.05], torch.logit(p, 0.05))
    out1(k, "f16", [p.half(), 0.05], lowp(lambda t: torch.logit(t, 0.05), F16, p.half()), HALF)
    k = aten("elu.out")
    x = rnd(3, 4, lo=-3, hi=3)
    out1(k, "default", [x, 1, 1, 1], torch.nn.functional.elu(x))
    out1(k, "alpha_scale", [x, 0.5, 2.0, 1.5], torch.ops.aten.elu(x, 0.5, 2.0, 1.5))
    out1(k, "bf16", [x.bfloat16(), 1.0, 1, 1],
         lowp(torch.nn.functional.elu, BF, x.bfloat16()), BF16)
    k = aten("glu.out")
    x = rnd(2, 6, 3)
    out1(k, "dim1", [x, 1], torch.nn.functional.glu(x, 1))
    y = rnd(4, 2)
    out1(k, "dim_last", [y, -1], torch.nn.functional.glu(y, -1))
    out1(k, "f16", [x.half(), 1], lowp(lambda t: torch.nn.functional.glu(t, 1), F16, x.half()),
         HALF)


def gen_binary_more():
    a, b = rnd(3, 4, lo=-3, hi=3), rnd(4, lo=-3, hi=3)
    out1(aten("atan2.out"), "f32_bcast", [a, b], torch.atan2(a, b))
    ai, bi = rint(3, 4), rint(4, lo=1, hi=4)
    out1(aten("atan2.out"), "i64_to_f32", [ai, bi], torch.atan2(ai, bi))
    out1(aten("atan2.out"), "f16", [a.half(), b.half()], lowp(torch.atan2, F16, a.half(), b.half()),
         HALF)
    ba, bb = rbool(2, 3), rbool(3)
    x8, y8 = rint(2, 3, lo=-100, hi=100, dtype=torch.int8), rint(3, lo=-100, hi=100, dtype=torch.int8)
    for op in ["and", "or", "xor"]:
        fn = getattr(torch, "bitwise_" + op)
        kt, ks = aten("bitwise_%s.Tensor_out" % op), aten("bitwise_%s.Scalar_out" % op)
        out1(kt, "i64", [ai, bi], fn(ai, bi))
        out1(kt, "bool", [ba, bb], fn(ba, bb))
        out1(kt, "i8_bcast", [x8, y8], fn(x8, y8))
        out1(ks, "i64", [ai, 6], fn(ai, 6))
        out1(ks, "bool", [ba, True], fn(ba, True))
        out1(ks, "u8", [x8.to(torch.uint8), 0x5A], fn(x8.to(torch.uint8), 0x5A))
    v = torch.tensor([1, -8, 200, 3, -1, 7])
    s = torch.tensor([0, 1, 3, 62, 5, 63])
    u = torch.tensor([200, 1, 255, 128], dtype=torch.uint8)
    us = torch.tensor([1, 7, 3, 0], dtype=torch.uint8)
    i32 = torch.tensor([1, -5, 1 << 30, -(1 << 30)], dtype=torch.int32)
    s32 = torch.tensor([31, 2, 1, 3], dtype=torch.int32)
    for left in (True, False):
        name = "bitwise_left_shift" if left else "bitwise_right_shift"
        fn = getattr(torch, name)
        kt, ks = aten(name + ".Tensor_out"), aten(name + ".Tensor_Scalar_out")
        out1(kt, "i64", [v, s], fn(v, s))
        out1(kt, "u8", [u, us], fn(u, us))
        out1(kt, "i32", [i32, s32], fn(i32, s32))
        out1(ks, "i64", [v, 2], fn(v, 2))
        out1(ks, "i16", [v.to(torch.int16), 3], fn(v.to(torch.int16), 3))
    # Shift amounts < 0 or >= the dtype's width: hand-computed, because torch
    # 1.13 shifts with C++ undefined behaviour there. PyTorch >= 2.0 defines
    # a left shift as 0 and a right shift as the sign fill (x >> (width - 1)).
    x = torch.tensor([5, -5, 7, -7])
    sh = torch.tensor([64, 64, -1, 100])
    out1(aten("bitwise_left_shift.Tensor_out"), "i64_out_of_range", [x, sh],
         torch.tensor([0, 0, 0, 0]))
    out1(aten("bitwise_right_shift.Tensor_out"), "i64_out_of_range", [x, sh],
         torch.tensor([0, -1, 0, -1]))
    xu = torch.tensor([200, 100], dtype=torch.uint8)
    out1(aten("bitwise_right_shift.Tensor_out"), "u8_out_of_range",
         [xu, torch.tensor([8, 9], dtype=torch.uint8)], torch.tensor([1, 0], dtype=torch.uint8))
    out1(aten("bitwise_left_shift.Tensor_Scalar_out"), "i32_out_of_range",
         [torch.tensor([3, -3], dtype=torch.int32), 32], torch.tensor([0, 0], dtype=torch.int32))
    for op in ["or", "xor"]:
        fn = getattr(torch, "logical_" + op)
        k = aten("logical_%s.out" % op)
        out1(k, "bool_bcast", [ba, bb], fn(ba, bb))
        fa, fb = rint(3, 4, lo=0, hi=2).float(), rint(4, lo=0, hi=2)
        out1(k, "f32_i64", [fa, fb], fn(fa, fb))
    x, y = rnd(3, 4), rnd(4)
    x[0, 0], y[1] = float("nan"), float("nan")
    for op in ["maximum", "minimum"]:
        fn = getattr(torch, op)
        k = aten(op + ".out")
        out1(k, "f32_nan_bcast", [x, y], fn(x, y))
        out1(k, "i64", [ai, bi], fn(ai, bi))
        out1(k, "i64_f32", [ai, y], fn(ai, y))
        out1(k, "bool", [ba, bb], fn(ba, bb))
        out1(k, "bf16", [x.bfloat16(), y.bfloat16()], lowp(fn, BF, x.bfloat16(), y.bfloat16()),
             BF16)
    n = torch.tensor([-7, 7, -7, 7, 0, 9])
    d = torch.tensor([2, 2, -2, -2, 3, 1])
    nf, df = rnd(3, 4, lo=-9, hi=9), rnd(4, lo=0.5, hi=3)
    df[0] = -df[0]
    for op, kname in [("floor_divide", "floor_divide.out"), ("fmod", "fmod.Tensor_out"),
                      ("remainder", "remainder.Tensor_out")]:
        fn = getattr(torch, op)
        k = aten(kname)
        out1(k, "i64_signs", [n, d], fn(n, d))
        out1(k, "f32_bcast", [nf, df], fn(nf, df))
        out1(k, "i32_f32", [n.int(), d.float()], fn(n.int(), d.float()))
        out1(k, "f16", [nf.half(), df.half()], lowp(fn, F16, nf.half(), df.half()), HALF)
    for op in ["fmod", "remainder"]:
        fn = getattr(torch, op)
        k = aten(op + ".Scalar_out")
        out1(k, "i64", [n, -3], fn(n, -3))
        out1(k, "f32", [nf, 2.5], fn(nf, 2.5))
        out1(k, "i64_float_scalar", [n, 1.5], fn(n, 1.5))
    k = aten("pow.Scalar_out")
    e = rnd(2, 3, lo=-2, hi=2)
    out1(k, "float_base", [2.5, e], torch.pow(2.5, e))
    ei = rint(5, lo=0, hi=6)
    out1(k, "int_base_int_exp", [3, ei], torch.pow(3, ei))
    out1(k, "int_base_f32_exp", [2, e], torch.pow(2, e))
    out1(k, "float_base_int_exp", [0.5, ei], torch.pow(0.5, ei))
    out1(k, "f16", [2.0, e.half()], lowp(lambda t: torch.pow(2.0, t), F16, e.half()), HALF)
    k = aten("div.Scalar_mode_out")
    out1(k, "none", [nf, 2.5, None], torch.div(nf, 2.5))
    out1(k, "trunc_f32", [nf, -2.5, "trunc"], torch.div(nf, -2.5, rounding_mode="trunc"))
    out1(k, "floor_i64", [n, -2, "floor"], torch.div(n, -2, rounding_mode="floor"))
    out1(k, "trunc_i64", [n, 2, "trunc"], torch.div(n, 2, rounding_mode="trunc"))
    k = aten("clamp.Tensor_out")
    x = rnd(3, 4, lo=-3, hi=3)
    lo_, hi_ = rnd(4, lo=-2, hi=0), rnd(3, 1, lo=0, hi=2)
    out1(k, "both_bcast", [x, lo_, hi_], torch.clamp(x, lo_, hi_))
    out1(k, "min_only", [x, lo_, None], torch.clamp(x, min=lo_))
    out1(k, "max_only_placeholder", [x, torch.zeros(0, dtype=torch.uint8), hi_],
         torch.clamp(x, max=hi_))
    out1(k, "i64", [ai, bi, torch.tensor(2)], torch.clamp(ai, bi, torch.tensor(2)))
    xn = x.clone()
    xn[0, 0] = float("nan")
    out1(k, "nan", [xn, lo_, hi_], torch.clamp(xn, lo_, hi_))


def gen_reduce_more():
    x = rnd(3, 4, 5)
    xn = x.clone()
    xn[1, 2, 3] = float("nan")
    xi = rint(3, 4)
    xt = rint(4, 6, lo=0, hi=3).float()  # ties: the first index wins
    k = aten("amin.out")
    out1(k, "dim1", [x, IL([1]), False], torch.amin(x, [1]))
    out1(k, "all_keep", [x, IL([]), True], torch.amin(x, [], keepdim=True))
    out1(k, "nan", [xn, IL([2]), False], torch.amin(xn, [2]))
    out1(k, "i64", [xi, IL([0]), False], torch.amin(xi, [0]))
    out1(k, "f16", [x.half(), IL([-1]), False], torch.amin(x.half().float(), [-1]).half(), HALF)
    k = aten("argmin.out")
    out1(k, "dim1_ties", [xt, 1, False], torch.argmin(xt, 1))
    out1(k, "flat", [x, None, False], torch.argmin(x))
    out1(k, "nan", [xn, 2, True], torch.argmin(xn, 2, keepdim=True))
    out1(k, "i64", [xi, -1, False], torch.argmin(xi, -1))
    out1(k, "bf16", [x.bfloat16(), 0, False], torch.argmin(x.bfloat16().float(), 0))
    for op in ["max", "min"]:
        fn = getattr(torch, op)
        k = aten("%s.dim_%s" % (op, op))
        for name, t, d, kd in [("dim1", x, 1, False), ("keep_neg", x, -1, True),
                               ("ties", xt, 1, False), ("nan", xn, 2, False),
                               ("i64", xi, 0, False)]:
            r = fn(t, d, kd)
            outN(k, name, [t, d, kd], [r.values, r.indices], EW)
        b = rbool(3, 4)
        r = fn(b, 1)
        outN(k, "bool", [b, 1, False], [r.values, r.indices], EW)
        r = fn(x.half().float(), 1)
        outN(k, "f16", [x.half(), 1, False], [r.values.half(), r.indices], HALF)
        k = aten("%s.unary_out" % op)
        out1(k, "f32", [x], fn(x))
        out1(k, "nan", [xn], fn(xn))
        out1(k, "i64", [xi], fn(xi))
        out1(k, "rank0", [torch.tensor(2.5)], fn(torch.tensor(2.5)))
        out1(k, "bf16", [x.bfloat16()], fn(x.bfloat16().float()).bfloat16(), BF16)
    m = rint(3, 4, lo=0, hi=2)
    m[1] = 0
    mb = m.bool()
    out1(aten("any.all_out"), "bool", [mb], torch.any(mb))
    out1(aten("any.all_out"), "f32_zeros", [torch.zeros(2, 3)], torch.any(torch.zeros(2, 3)))
    out1(aten("any.all_out"), "i64", [m], torch.any(m))
    out1(aten("any.all_out"), "empty", [torch.zeros(0, 3)], torch.any(torch.zeros(0, 3)))
    out1(aten("any.out"), "dim1", [mb, 1, False], torch.any(mb, 1))
    out1(aten("any.out"), "dim0_keep_f32", [m.float(), 0, True], torch.any(m.float(), 0, True))
    out1(aten("any.out"), "u8_out_u8", [m.to(torch.uint8), 1, False],
         torch.any(m.to(torch.uint8), 1))
    # any.dims is newer than torch 1.13: the reference reduces one dim at a time.
    out1(aten("any.dims_out"), "two_dims", [mb.view(3, 2, 2), IL([0, 2]), False],
         torch.any(torch.any(mb.view(3, 2, 2), 2), 0))
    out1(aten("any.dims_out"), "none_all", [m, None, False], torch.any(m).reshape(()))
    out1(aten("any.dims_out"), "keep", [mb, IL([1]), True], torch.any(mb, 1, True))
    k = aten("mean.dtype_out")
    out1(k, "f32", [x, None], torch.mean(x), RED)
    out1(k, "i64_to_f64", [xi, 7], torch.mean(xi.double()), RED)
    out1(k, "f16", [x.half(), None], torch.mean(x.half().float()).half(), HALF)
    out1(k, "f32_to_f64", [x, 7], torch.mean(x, dtype=torch.float64), RED)
    p = rnd(3, 4, lo=0.5, hi=1.5)
    k = aten("prod.int_out")
    out1(k, "dim1", [p, 1, False, None], torch.prod(p, 1), RED)
    out1(k, "keep_neg", [p, -2, True, None], torch.prod(p, -2, True), RED)
    out1(k, "i64", [xi, 0, False, None], torch.prod(xi, 0))
    out1(k, "i32_to_i64", [xi.int(), 1, False, None], torch.prod(xi.int(), 1))
    out1(k, "bool_to_i64", [mb, 1, False, None], torch.prod(mb, 1))
    out1(k, "f32_to_f64", [p, 1, False, 7], torch.prod(p, 1, dtype=torch.float64), RED)
    out1(k, "bf16", [p.bfloat16(), 0, False, None], torch.prod(p.bfloat16().float(), 0).bfloat16(),
         BF16)
    k = aten("prod.out")
    out1(k, "f32", [p, None], torch.prod(p), RED)
    out1(k, "i64", [xi, None], torch.prod(xi))
    out1(k, "bool", [mb, None], torch.prod(mb))
    out1(k, "i64_to_f32", [xi, 6], torch.prod(xi, dtype=torch.float32), RED)
    k = aten("var.out")
    out1(k, "dim1_unbiased", [x, IL([1]), True, False], torch.var(x, [1], True), RED)
    out1(k, "dims_biased_keep", [x, IL([0, 2]), False, True], torch.var(x, [0, 2], False, True),
         RED)
    out1(k, "all_none", [x, None, True, False], torch.var(x), RED)
    out1(k, "single_nan", [rnd(2, 1), IL([1]), True, False], torch.full((2,), float("nan")), RED)
    out1(k, "f16", [x.half(), IL([2]), True, False], torch.var(x.half().float(), [2]).half(), HALF)
    k = aten("var.correction_out")
    out1(k, "correction2", [x, IL([2]), 2, False], torch.var(x, 2, correction=2), RED)
    out1(k, "default_none", [x, IL([1]), None, True], torch.var(x, 1, keepdim=True), RED)
    # torch 1.13 takes only integer corrections: rescale the biased variance.
    out1(k, "float_correction", [x, None, 0.5, False],
         torch.var(x, unbiased=False) * x.numel() / (x.numel() - 0.5), RED)
    out1(k, "f64", [x.double(), IL([0]), 0, False], torch.var(x.double(), 0, correction=0), RED)
    k = aten("var_mean.correction_out")
    v, mu = torch.var_mean(x, [1], correction=1)
    outN(k, "dim1", [x, IL([1]), None, False], [v, mu])
    v, mu = torch.var_mean(x, None, correction=0, keepdim=True)
    outN(k, "all_keep", [x, None, 0, True], [v, mu])
    v, mu = torch.var_mean(x.bfloat16().float(), [2])
    outN(k, "bf16", [x.bfloat16(), IL([2]), 1, False], [v.bfloat16(), mu.bfloat16()], BF16)


def gen_norm_more():
    k = aten("_native_batch_norm_legit.out")
    for name, shape in [("train_nchw", (2, 3, 4, 5)), ("train_nc", (6, 3))]:
        x = rnd(*shape)
        w, b = rnd(3), rnd(3)
        rm, rv = rnd(3), rnd(3, lo=0.5, hi=2)
        rm2, rv2 = rm.clone(), rv.clone()
        y, sm, si = torch.native_batch_norm(x, w, b, rm2, rv2, True, 0.1, 1e-5)
        # The running statistics are updated in place (Tensor(a!) arguments).
        case(k, name, [x, w, b, rm.clone(), rv.clone(), True, 0.1, 1e-5, Out(y), Out(sm),
                       Out(si), RefList([8, 9, 10])], RED,
             expect=[Expect(3, rm2), Expect(4, rv2)])
    x = rnd(2, 3, 4)
    w, b, rm, rv = rnd(3), rnd(3), rnd(3), rnd(3, lo=0.5, hi=2)
    y = torch.nn.functional.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5)
    case(k, "eval", [x, w, b, rm, rv, False, 0.1, 1e-5, Out(y), Out(torch.zeros(0)),
                     Out(torch.zeros(0)), RefList([8, 9, 10])], RED,
         expect=[Expect(3, rm), Expect(4, rv)])
    x = rnd(4, 2, 3)
    y, sm, si = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-3)
    outN(aten("_native_batch_norm_legit.no_stats_out"), "train_no_affine",
         [x, None, None, True, 0.1, 1e-3], [y, sm, si])
    w, b = rnd(2), rnd(2)
    y, sm, si = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    outN(aten("_native_batch_norm_legit.no_stats_out"), "train_affine",
         [x, w, b, True, 0.1, 1e-5], [y, sm, si])
    xh = x.half()
    y, sm, si = torch.native_batch_norm(xh.float(), w, b, None, None, True, 0.1, 1e-5)
    outN(aten("_native_batch_norm_legit.no_stats_out"), "f16",
         [xh, w.half(), b.half(), True, 0.1, 1e-5], [y.half(), sm.half(), si.half()], HALF)
    k = aten("native_group_norm.out")
    for name, shape, g in [("nchw_g2", (2, 4, 3, 3), 2), ("ncl_g1", (3, 6, 5), 1),
                           ("nc_g3", (2, 6), 3)]:
        x = rnd(*shape)
        n, c = shape[0], shape[1]
        hw = x.numel() // (n * c)
        w, b = rnd(c), rnd(c)
        outN(k, name, [x, w, b, n, c, hw, g, 1e-5],
             list(torch.native_group_norm(x, w, b, n, c, hw, g, 1e-5)))
    x = rnd(2, 4, 5)
    outN(k, "no_affine", [x, None, None, 2, 4, 5, 4, 1e-6],
         list(torch.native_group_norm(x, None, None, 2, 4, 5, 4, 1e-6)))
    r = torch.native_group_norm(x.bfloat16().float(), None, None, 2, 4, 5, 2, 1e-5)
    outN(k, "bf16", [x.bfloat16(), None, None, 2, 4, 5, 2, 1e-5], [t.bfloat16() for t in r], BF16)
    # native_dropout: only the deterministic settings (p = 0 or 1, or not
    # training) have fixed values; kernel_tests checks the random ones.
    k = aten("native_dropout.out")
    x = rnd(3, 4)
    outN(k, "p0_train", [x, 0.0, True], [x, torch.ones(3, 4, dtype=torch.bool)], EW)
    outN(k, "eval", [x, 0.5, False], [x, torch.ones(3, 4, dtype=torch.bool)], EW)
    outN(k, "p1_train_none", [x, 1.0, None], [torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.bool)],
         EW)
    xi = rint(5)
    outN(k, "i64_eval", [xi, 0.3, False], [xi, torch.ones(5, dtype=torch.bool)], EW)


def gen_creation_more():
    k = aten("arange.out")
    out1(k, "i64", [5], torch.arange(5))
    out1(k, "f32_frac_end", [2.5], torch.arange(2.5))
    out1(k, "f32_int_end", [4], torch.arange(4, dtype=torch.float32))
    out1(k, "empty", [0], torch.arange(0))
    out1(k, "f16", [6], torch.arange(6, dtype=torch.float16), HALF)
    # empty and rand/randn: values are unspecified or random, so
    # ConformanceTests.cpp compares dtype and shape only.
    out1(aten("empty.out"), "f32", [IL([2, 3]), None], torch.zeros(2, 3))
    out1(aten("empty.out"), "i64_contiguous", [IL([4]), 0], torch.zeros(4, dtype=torch.int64))
    out1("dim_order_ops::_empty_dim_order.out", "f32", [IL([2, 0, 3]), None], torch.zeros(2, 0, 3))
    out1("dim_order_ops::_empty_dim_order.out", "contiguous_order", [IL([2, 3]), IL([0, 1])],
         torch.zeros(2, 3, dtype=torch.bool))
    out1(aten("rand.out"), "f32", [IL([3, 4])], torch.zeros(3, 4))
    out1(aten("rand.out"), "f16", [IL([5])], torch.zeros(5, dtype=torch.float16))
    out1(aten("randn.out"), "f64", [IL([2, 2, 2])], torch.zeros(2, 2, 2, dtype=torch.float64))
    out1(aten("randn.out"), "rank0", [IL([])], torch.zeros(()))
    k = aten("fill.Tensor_out")
    x = rnd(2, 3)
    out1(k, "f32", [x, torch.tensor(1.25)], torch.full_like(x, 1.25))
    out1(k, "f32_from_i64", [x, torch.tensor(3)], torch.full_like(x, 3))
    xi = rint(4)
    out1(k, "i64_from_f32_truncates", [xi, torch.tensor(2.75)], torch.full_like(xi, 2))
    out1(k, "bf16", [x.bfloat16(), torch.tensor(-0.5)], torch.full_like(x, -0.5).bfloat16(), BF16)
    # The device copies are plain copies on this single-memory runtime.
    for kname in ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"]:
        out1(kname, "f32", [x], x.clone())
        out1(kname, "i64", [xi], xi.clone())
        out1(kname, "f16_rank0", [torch.tensor(1.5).half()], torch.tensor(1.5).half())


def gen_rearrange():
    x = rnd(3, 4, 5)
    xi = rint(3, 4)
    k = aten("as_strided_copy.out")
    out1(k, "transpose_like", [x, IL([5, 4]), IL([1, 5]), None], torch.as_strided(x, (5, 4), (1, 5)))
    out1(k, "offset_overlap", [x, IL([3, 3]), IL([2, 1]), 7], torch.as_strided(x, (3, 3), (2, 1), 7))
    out1(k, "zero_stride", [xi, IL([2, 3]), IL([0, 1]), 1], torch.as_strided(xi, (2, 3), (0, 1), 1))
    k = aten("diagonal_copy.out")
    out1(k, "main", [x, 0, 0, 1], torch.diagonal(x, 0, 0, 1))
    out1(k, "offset_pos", [x, 2, 1, 2], torch.diagonal(x, 2, 1, 2))
    out1(k, "offset_neg_swapped", [x, -1, 2, 0], torch.diagonal(x, -1, 2, 0))
    out1(k, "empty", [x, 7, 0, 1], torch.diagonal(x, 7, 0, 1))
    out1(k, "i64_2d", [xi, 0, -2, -1], torch.diagonal(xi))
    k = aten("narrow_copy.out")
    out1(k, "dim1", [x, 1, 1, 2], x.narrow(1, 1, 2))
    out1(k, "neg_start", [x, -1, -3, 3], x.narrow(-1, -3, 3))
    out1(k, "empty", [xi, 0, 3, 0], xi.narrow(0, 3, 0))
    k = aten("unfold_copy.out")
    out1(k, "dim2", [x, 2, 2, 1], x.unfold(2, 2, 1))
    out1(k, "step2", [x, 1, 2, 2], x.unfold(1, 2, 2))
    out1(k, "whole", [xi, 0, 3, 1], xi.unfold(0, 3, 1))
    out1(k, "rank0", [torch.tensor(4.0), 0, 1, 1], torch.tensor(4.0).unfold(0, 1, 1))
    k = aten("flip.out")
    out1(k, "one_dim", [x, IL([1])], torch.flip(x, [1]))
    out1(k, "two_dims_neg", [x, IL([0, -1])], torch.flip(x, [0, -1]))
    out1(k, "none", [xi, IL([])], torch.flip(xi, []))
    b = rbool(2, 3)
    out1(k, "bool", [b, IL([1])], torch.flip(b, [1]))
    y = rnd(2, 8, 3, 2)
    out1(aten("pixel_shuffle.out"), "r2", [y, 2], torch.pixel_shuffle(y, 2))
    y3 = rnd(9, 2, 2)
    out1(aten("pixel_shuffle.out"), "chw_r3", [y3, 3], torch.pixel_shuffle(y3, 3))
    z = rnd(1, 2, 4, 6)
    out1(aten("pixel_unshuffle.out"), "r2", [z, 2], torch.pixel_unshuffle(z, 2))
    z5 = rint(2, 1, 1, 3, 3)
    out1(aten("pixel_unshuffle.out"), "rank5_i64_r3", [z5, 3], torch.pixel_unshuffle(z5, 3))
    k = aten("roll.out")
    out1(k, "flat", [x, IL([7]), IL([])], torch.roll(x, 7))
    out1(k, "two_dims", [x, IL([1, -2]), IL([0, 2])], torch.roll(x, (1, -2), (0, 2)))
    out1(k, "large_shift", [xi, IL([9]), IL([-1])], torch.roll(xi, 9, -1))
    k = aten("repeat.out")
    out1(k, "same_rank", [xi, IL([2, 1])], xi.repeat(2, 1))
    out1(k, "leading", [x, IL([2, 1, 1, 2])], x.repeat(2, 1, 1, 2))
    out1(k, "zero", [xi, IL([0, 3])], xi.repeat(0, 3))
    out1(k, "rank0", [torch.tensor(1.5), IL([3])], torch.tensor(1.5).repeat(3))
    k = aten("tril.out")
    m = rnd(2, 4, 5)
    out1(k, "main", [m, 0], torch.tril(m))
    out1(k, "pos", [m, 2], torch.tril(m, 2))
    out1(k, "neg_i64", [xi, -1], torch.tril(xi, -1))
    bb = rbool(3, 3)
    out1(k, "bool", [bb, 0], torch.tril(bb))
    F = torch.nn.functional
    p1 = rnd(2, 3, 6)
    p2 = rnd(1, 2, 4, 5)
    p3 = rnd(2, 3, 3, 4)
    for mode in ["reflection", "replication"]:
        fmode = "reflect" if mode == "reflection" else "replicate"
        out1(aten(mode + "_pad1d.out"), "ncw", [p1, IL([2, 3])], F.pad(p1, (2, 3), fmode))
        out1(aten(mode + "_pad1d.out"), "cw_i64", [xi.float().long(), IL([1, 2])],
             F.pad(xi.float(), (1, 2), fmode).long())
        out1(aten(mode + "_pad2d.out"), "nchw", [p2, IL([1, 2, 3, 0])], F.pad(p2, (1, 2, 3, 0), fmode))
        out1(aten(mode + "_pad2d.out"), "chw_f16", [p2[0].half(), IL([2, 2, 1, 1])],
             F.pad(p2[0].half().float(), (2, 2, 1, 1), fmode).half(), HALF)
        out1(aten(mode + "_pad3d.out"), "cdhw", [p3, IL([1, 1, 2, 0, 1, 1])],
             F.pad(p3.unsqueeze(0), (1, 1, 2, 0, 1, 1), fmode).squeeze(0))
        out1(aten(mode + "_pad3d.out"), "ncdhw", [p3.unsqueeze(0), IL([0, 3, 1, 1, 0, 2])],
             F.pad(p3.unsqueeze(0), (0, 3, 1, 1, 0, 2), fmode))


def gen_selection():
    x = rnd(3, 4)
    m = rbool(3, 4)
    mb = rbool(4)
    k = aten("masked_select.out")
    out1(k, "same_shape", [x, m], torch.masked_select(x, m))
    out1(k, "mask_bcast", [x, mb], torch.masked_select(x, mb))
    v = rnd(4)
    out1(k, "self_bcast", [v, m], torch.masked_select(v, m))
    xi = rint(3, 4)
    out1(k, "i64_none", [xi, torch.zeros(3, 4, dtype=torch.bool)],
         torch.masked_select(xi, torch.zeros(3, 4, dtype=torch.bool)))
    k = aten("masked_scatter.out")
    src = rnd(12)
    out1(k, "same_shape", [x, m, src], x.masked_scatter(m, src))
    out1(k, "mask_bcast_2d_src", [x, mb, src.view(3, 4)], x.masked_scatter(mb, src.view(3, 4)))
    si = rint(20)
    out1(k, "i64", [xi, m, si], xi.masked_scatter(m, si))
    k = aten("nonzero.out")
    out1(k, "f32_2d", [x * m], torch.nonzero(x * m))
    b3 = rbool(2, 3, 2)
    out1(k, "bool_3d", [b3], torch.nonzero(b3))
    out1(k, "rank0", [torch.tensor(3)], torch.nonzero(torch.tensor(3)))
    out1(k, "none", [torch.zeros(4)], torch.nonzero(torch.zeros(4)))
    k = aten("repeat_interleave.Tensor_out")
    r = torch.tensor([2, 0, 3, 1])
    out1(k, "i64", [r, None], torch.repeat_interleave(r))
    out1(k, "output_size", [r, 6], torch.repeat_interleave(r, output_size=6))
    r32 = torch.tensor([1, 2], dtype=torch.int32)
    out1(k, "i32", [r32, None], torch.repeat_interleave(r32))
    base = rnd(3, 5)
    idx = torch.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
    srcm = rnd(2, 4)
    for kind in ["src", "value", "add"]:
        kname = {"src": "scatter.src_out", "value": "scatter.value_out",
                 "add": "scatter_add.out"}[kind]
        k = aten(kname)
        if kind == "src":
            # Unique targets per column: scatter with duplicates is unspecified.
            out1(k, "dim0", [base, 0, idx[:1], srcm], torch.scatter(base, 0, idx[:1], srcm))
            i1 = torch.tensor([[4, 0], [1, 3], [2, 2]])
            s3 = rnd(3, 3)
            out1(k, "dim1", [base, 1, i1, s3], torch.scatter(base, 1, i1, s3))
            bi = rint(2, 3)
            out1(k, "i64_empty_index", [bi, 0, torch.zeros(0, 3, dtype=torch.long), rint(1, 3)],
                 bi.clone())
        elif kind == "value":
            out1(k, "dim0_float", [base, 0, idx, 9.5], torch.scatter(base, 0, idx, 9.5))
            bi = rint(2, 3)
            out1(k, "i64_dim1", [bi, 1, torch.tensor([[2], [0]]), -4],
                 torch.scatter(bi, 1, torch.tensor([[2], [0]]), -4))
        else:
            out1(k, "dim0_dups", [base, 0, idx, srcm], torch.scatter_add(base, 0, idx, srcm))
            bi, si2 = rint(2, 3), rint(2, 3)
            i2 = torch.tensor([[0, 0, 2], [1, 1, 1]])
            out1(k, "i64_dim1", [bi, 1, i2, si2], torch.scatter_add(bi, 1, i2, si2))
            out1(k, "f16", [base.half(), 0, idx, srcm.half()],
                 torch.scatter_add(base, 0, idx, srcm.half().float()).half(), HALF)
    k = aten("topk.values")
    t = torch.randperm(24, generator=g).float().view(4, 6) / 4  # distinct values: no ties
    for name, kk, d, largest in [("largest_last", 3, -1, True), ("smallest_dim0", 2, 0, False),
                                 ("all", 6, 1, True), ("zero", 0, 1, True)]:
        r_ = torch.topk(t, kk, d, largest, True)
        outN(k, name, [t, kk, d, largest, True], [r_.values, r_.indices], EW)
    tn = t.clone()
    tn[0, 2] = float("nan")
    r_ = torch.topk(tn, 2, 1)
    outN(k, "nan_largest", [tn, 2, 1, True, True], [r_.values, r_.indices], EW)
    ti = torch.randperm(10, generator=g)
    r_ = torch.topk(ti, 4, 0, False)
    outN(k, "i64_smallest", [ti, 4, 0, False, False], [r_.values, r_.indices], EW)
    r_ = torch.topk(t.half().float(), 2, 1)
    outN(k, "f16", [t.half(), 2, 1, True, True], [r_.values.half(), r_.indices], HALF)


def gen_resample():
    F = torch.nn.functional
    x = rnd(1, 2, 3, 4)
    x3 = rnd(2, 4, 3)
    k = aten("upsample_nearest2d.vec_out")
    out1(k, "size_up", [x, IL([6, 8]), None], F.interpolate(x, size=(6, 8), mode="nearest"))
    out1(k, "size_odd", [x, IL([5, 7]), None], F.interpolate(x, size=(5, 7), mode="nearest"))
    out1(k, "size_down", [x, IL([2, 3]), None], F.interpolate(x, size=(2, 3), mode="nearest"))
    out1(k, "scales", [x, None, [1.5, 2.5]],
         torch.ops.aten.upsample_nearest2d.vec(x, None, [1.5, 2.5]))
    out1(k, "chw_i64", [x3.mul(10).long(), IL([6, 5]), None],
         F.interpolate(x3.mul(10).unsqueeze(0), size=(6, 5), mode="nearest").squeeze(0).long())
    k = aten("upsample_bilinear2d.vec_out")
    for name, size, ac in [("up", [6, 9], False), ("down", [2, 3], False),
                           ("align_up", [7, 5], True), ("align_one", [1, 1], True)]:
        out1(k, name, [x, IL(size), ac, None],
             F.interpolate(x, size=tuple(size), mode="bilinear", align_corners=ac), RED)
    out1(k, "scales", [x, None, False, [2.0, 1.5]],
         torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [2.0, 1.5]), RED)
    out1(k, "chw_f16", [x3.half(), IL([5, 5]), False, None],
         F.interpolate(x3.half().float().unsqueeze(0), size=(5, 5), mode="bilinear",
                       align_corners=False).squeeze(0).half(), HALF)
    k = aten("_upsample_bilinear2d_aa.out")
    big = rnd(1, 2, 9, 12)
    for name, size, ac in [("down3", [3, 4], False), ("down_uneven", [4, 5], False),
                           ("up", [12, 15], False), ("align", [4, 5], True)]:
        out1(k, name, [big, IL(size), ac, None, None],
             torch._C._nn._upsample_bilinear2d_aa(big, size, ac), RED)
    k = aten("grid_sampler_2d.out")
    inp = rnd(2, 3, 5, 6)
    grid = rnd(2, 4, 3, 2, lo=-1.3, hi=1.3)
    for mi, mode in enumerate(["bilinear", "nearest", "bicubic"]):
        for pi, pad in enumerate(["zeros", "border", "reflection"]):
            for ac in (False, True):
                if mode == "nearest" and ac:
                    continue
                out1(k, "%s_%s%s" % (mode, pad, "_align" if ac else ""),
                     [inp, grid, mi, pi, ac],
                     torch.grid_sampler_2d(inp, grid, mi, pi, ac), RED)


def gen_distance_backward():
    a, b = rnd(4, 3), rnd(5, 3)
    k = aten("_cdist_forward.out")
    for p in [2.0, 1.0, 0.0, 3.0, float("inf")]:
        out1(k, "p%s" % p, [a, b, p, None], torch.ops.aten._cdist_forward(a, b, p, None), RED)
    ab, bb = rnd(2, 1, 3, 4), rnd(3, 2, 4)
    out1(k, "batch_bcast", [ab, bb, 2.0, None], torch.cdist(ab, bb), RED)
    k = aten("_pdist_forward.out")
    for p in [2.0, 1.0, 0.5, float("inf")]:
        out1(k, "p%s" % p, [a, p], torch.ops.aten._pdist_forward(a, p), RED)
    r1 = rnd(1, 3)
    out1(k, "one_row", [r1, 2.0], torch.ops.aten._pdist_forward(r1, 2.0), RED)
    k = aten("convolution_backward.out")

    def conv_bwd(name, x, w, stride, pad, dil, groups, mask, has_bias=True):
        xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
        bias = torch.zeros(w.shape[0], requires_grad=True) if has_bias else None
        y = torch.convolution(xr, wr, bias, stride, pad, dil, False, [0] * len(stride), groups)
        gy = rnd(*y.shape)
        y.backward(gy)
        gb = bias.grad if has_bias else torch.zeros(w.shape[0])
        outs = [Out(xr.grad), Out(wr.grad), Out(gb)]
        outs = [o if m else OutUnchecked(o.expected) for o, m in zip(outs, mask)]
        args = [gy, x, w, IL([w.shape[0]]) if has_bias else None, IL(stride), IL(pad), IL(dil),
                False, IL([0] * len(stride)), groups, mask]
        case(k, name, args + outs + [RefList([11, 12, 13])], RED)

    conv_bwd("2d_basic", rnd(2, 3, 6, 6), rnd(4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1,
             [True, True, True])
    conv_bwd("2d_stride_dil_groups", rnd(1, 4, 9, 8), rnd(6, 2, 3, 2), [2, 1], [1, 0], [1, 2], 2,
             [True, True, True])
    conv_bwd("2d_input_only", rnd(1, 2, 5, 5), rnd(2, 2, 3, 3), [1, 1], [0, 0], [1, 1], 1,
             [True, False, False], has_bias=False)
    conv_bwd("1d_weight_bias", rnd(2, 3, 10), rnd(4, 3, 3), [2], [1], [1], 1,
             [False, True, True])
    k = aten("max_pool2d_with_indices_backward.grad_input")
    for name, shape, ks, st, pd, dl, ceil in [
            ("k2s2", (1, 2, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False),
            ("overlap_k3s1p1", (2, 1, 5, 5), [3, 3], [1, 1], [1, 1], [1, 1], False),
            ("ceil_dil", (1, 1, 7, 7), [2, 2], [2, 2], [0, 0], [2, 2], True)]:
        x = rnd(*shape)
        xr = x.clone().requires_grad_()
        y, idx = torch.nn.functional.max_pool2d_with_indices(xr, ks, st, pd, dl, ceil, True)
        gy = rnd(*y.shape)
        y.backward(gy)
        out1(k, name, [gy, x, IL(ks), IL(st), IL(pd), IL(dl), ceil, idx], xr.grad, RED)


# quantized_decomposed ops are newer than torch 1.13 (no
# torch.ao.quantization.fx._decomposed): the references below are computed
# with the same torch expressions that module uses (float32 arithmetic,
# round half to even, clamp), per tensor and per channel.
def ref_quant(x, scale, zp, qmin, qmax, dtype):
    return torch.clamp(torch.round(x.float() * (1.0 / scale)) + zp, qmin, qmax).to(dtype)


def ref_dequant(q, scale, zp, out_dtype=torch.float32):
    return ((q.to(torch.float32) - zp) * scale).to(out_dtype)


def ref_quant_channel(x, scales, zps, axis, qmin, qmax, dtype):
    xt = x.float().transpose(0, axis)
    res = torch.zeros_like(xt)
    for i in range(xt.size(0)):
        res[i] = torch.clamp(torch.round(xt[i] * (1.0 / scales[i])) + zps[i], qmin, qmax)
    return res.transpose(0, axis).contiguous().to(dtype)


def ref_dequant_channel(q, scales, zps, axis, out_dtype=torch.float32):
    qt = q.transpose(0, axis)
    res = torch.zeros(qt.shape, dtype=torch.float32)
    for i in range(qt.size(0)):
        zp = zps[i] if zps is not None else 0
        res[i] = (qt[i].to(torch.float32) - zp) * scales[i]
    return res.transpose(0, axis).contiguous().to(out_dtype)


def gen_quantized():
    q = "quantized_decomposed::"
    x = rnd(3, 5, lo=-3, hi=3)
    x[0, :3] = torch.tensor([0.25, -0.75, 100.0])  # a tie at scale 0.5 and a clamp
    u8, i8 = torch.uint8, torch.int8
    k = q + "quantize_per_tensor.out"
    out1(k, "u8", [x, 0.5, 128, 0, 255, 0], ref_quant(x, 0.5, 128, 0, 255, u8))
    out1(k, "i8_narrow", [x, 0.02, -3, -127, 127, 1], ref_quant(x, 0.02, -3, -127, 127, i8))
    out1(k, "i16_f64_in", [x.double(), 0.001, 0, -32768, 32767, 2],
         ref_quant(x, 0.001, 0, -32768, 32767, torch.int16))
    out1(k, "f16_in", [x.half(), 0.1, 0, -128, 127, 1], ref_quant(x.half(), 0.1, 0, -128, 127, i8))
    k = q + "quantize_per_tensor.Tensor_out"
    out1(k, "i8", [x, torch.tensor([0.05], dtype=torch.float64), torch.tensor([2]), -128, 127, 1],
         ref_quant(x, 0.05, 2, -128, 127, i8))
    qu = ref_quant(x, 0.5, 128, 0, 255, u8)
    qi = ref_quant(x, 0.02, -3, -127, 127, i8)
    k = q + "dequantize_per_tensor.out"
    out1(k, "u8", [qu, 0.5, 128, 0, 255, 0, None], ref_dequant(qu, 0.5, 128))
    out1(k, "i8_to_f16", [qi, 0.02, -3, -127, 127, 1, 5], ref_dequant(qi, 0.02, -3, F16), HALF)
    out1(k, "i8_to_bf16", [qi, 0.02, -3, -127, 127, 1, 15], ref_dequant(qi, 0.02, -3, BF), BF16)
    k = q + "dequantize_per_tensor.Tensor_out"
    out1(k, "u8", [qu, torch.tensor(0.5, dtype=torch.float64), torch.tensor(128), 0, 255, 0, None],
         ref_dequant(qu, 0.5, 128))
    w = rnd(4, 3, 2)
    scales = torch.tensor([0.01, 0.02, 0.05, 0.1], dtype=torch.float64)
    zps = torch.tensor([0, 1, -2, 3])
    k = q + "quantize_per_channel.out"
    out1(k, "axis0_i8", [w, scales, zps, 0, -128, 127, 1],
         ref_quant_channel(w, scales, zps, 0, -128, 127, i8))
    s3, z3 = scales[:3], torch.tensor([10, 20, 30])
    out1(k, "axis1_u8", [w, s3, z3, 1, 0, 255, 0], ref_quant_channel(w, s3, z3, 1, 0, 255, u8))
    s2, z2 = torch.tensor([0.03, 0.07], dtype=torch.float64), torch.tensor([0, 0])
    out1(k, "axis_neg", [w, s2, z2, -1, -128, 127, 1],
         ref_quant_channel(w, s2, z2, 2, -128, 127, i8))
    qw = ref_quant_channel(w, scales, zps, 0, -128, 127, i8)
    k = q + "dequantize_per_channel.out"
    out1(k, "axis0", [qw, scales, zps, 0, -128, 127, 1, None],
         ref_dequant_channel(qw, scales, zps, 0))
    out1(k, "no_zero_points", [qw, scales, None, 0, -128, 127, 1, None],
         ref_dequant_channel(qw, scales, None, 0))
    qw1 = ref_quant_channel(w, s3, z3, 1, 0, 255, u8)
    out1(k, "axis1_f16", [qw1, s3, z3, 1, 0, 255, 0, 5],
         ref_dequant_channel(qw1, s3, z3, 1, F16), HALF)


def gen_lowp_existing():
    """float16 and bfloat16 cases for the kernels that predate them, and
    integer matmul/convolution (upstream's REALHBF16 kernels)."""
    F = torch.nn.functional
    for dt in (F16, BF):
        tag = str(dt)[6:]
        tl, tr = tol_of(dt), (HALF_RED if dt == F16 else BF16_RED)
        x = rnd(3, 4).to(dt)
        y = rnd(4).to(dt)
        pos = rnd(3, 4, lo=0.2, hi=3).to(dt)
        for op, fn, xin in [("neg", torch.neg, x), ("abs", torch.abs, x), ("exp", torch.exp, x),
                            ("log", torch.log, pos), ("sqrt", torch.sqrt, pos),
                            ("rsqrt", torch.rsqrt, pos), ("sin", torch.sin, x),
                            ("cos", torch.cos, x), ("tanh", torch.tanh, x),
                            ("sigmoid", torch.sigmoid, x), ("relu", torch.relu, x),
                            ("reciprocal", torch.reciprocal, pos), ("erf", torch.erf, x)]:
            out1(aten(op + ".out"), tag, [xin], lowp(fn, dt, xin), tl)
        out1(aten("gelu.out"), tag, [x, "tanh"], lowp(lambda t: F.gelu(t, approximate="tanh"), dt, x), tl)
        out1(aten("hardtanh.out"), tag, [x, -0.5, 0.5], lowp(lambda t: F.hardtanh(t, -0.5, 0.5), dt, x), tl)
        out1(aten("leaky_relu.out"), tag, [x, 0.1], lowp(lambda t: F.leaky_relu(t, 0.1), dt, x), tl)
        out1(aten("clamp.out"), tag, [x, -0.25, None], lowp(lambda t: torch.clamp(t, -0.25), dt, x), tl)
        out1(aten("isnan.out"), tag, [x], torch.isnan(x.float()))
        for op, fn in [("add", torch.add), ("sub", torch.sub)]:
            out1(aten(op + ".out"), tag, [x, y, 1], lowp(fn, dt, x, y), tl)
            out1(aten(op + ".Scalar_out"), tag, [x, 1.5, 2], lowp(lambda t: fn(t, 1.5, alpha=2), dt, x), tl)
        out1(aten("mul.out"), tag, [x, y], lowp(torch.mul, dt, x, y), tl)
        out1(aten("mul.Scalar_out"), tag, [x, 3], lowp(lambda t: t * 3, dt, x), tl)
        out1(aten("div.out"), tag, [x, pos], lowp(torch.div, dt, x, pos), tl)
        out1(aten("div.Scalar_out"), tag, [x, 4.0], lowp(lambda t: t / 4.0, dt, x), tl)
        out1(aten("div.out_mode"), tag, [x * 4, pos, "floor"],
             lowp(lambda a, b: torch.div(a, b, rounding_mode="floor"), dt, x * 4, pos), tl)
        out1(aten("rsub.Scalar_out"), tag, [x, 2.0, 1], lowp(lambda t: 2.0 - t, dt, x), tl)
        out1(aten("pow.Tensor_Scalar_out"), tag, [pos, 2], lowp(lambda t: t ** 2, dt, pos), tl)
        out1(aten("pow.Tensor_Tensor_out"), tag, [pos, y], lowp(torch.pow, dt, pos, y), tl)
        xi = rint(3, 4)
        out1(aten("add.out"), tag + "_plus_i64", [x, xi, 1], lowp(torch.add, dt, x, xi), tl)
        for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
            fn = getattr(torch, op)
            out1(aten(op + ".Tensor_out"), tag, [x, y], fn(x.float(), y.float()))
            out1(aten(op + ".Scalar_out"), tag, [x, 0.0], fn(x.float(), 0.0))
        m = rbool(3, 4)
        out1(aten("where.self_out"), tag, [m, x, y], torch.where(m, x.float(), y.float()).to(dt), tl)
        out1(aten("masked_fill.Scalar_out"), tag, [x, m, -2.0], x.masked_fill(m, -2.0), tl)
        out1(aten("logical_and.out"), tag, [x, y], torch.logical_and(x.float(), y.float()))
        out1(aten("logical_not.out"), tag, [x], torch.logical_not(x.float()))
        a, b = rnd(3, 5).to(dt), rnd(5, 2).to(dt)
        out1(aten("mm.out"), tag, [a, b], lowp(torch.mm, dt, a, b), tr)
        ab, bb = rnd(2, 3, 4).to(dt), rnd(2, 4, 2).to(dt)
        out1(aten("bmm.out"), tag, [ab, bb], lowp(torch.bmm, dt, ab, bb), tr)
        bias = rnd(2).to(dt)
        out1(aten("addmm.out"), tag, [bias, a, b, 1, 1], lowp(torch.addmm, dt, bias, a, b), tr)
        ci, cw, cb = rnd(1, 2, 5, 5).to(dt), rnd(3, 2, 3, 3).to(dt), rnd(3).to(dt)
        out1(aten("convolution.out"), tag,
             [ci, cw, cb, IL([1, 1]), IL([1, 1]), IL([1, 1]), False, IL([0, 0]), 1],
             lowp(lambda i, w_, b_: torch.convolution(i, w_, b_, [1, 1], [1, 1], [1, 1], False,
                                                      [0, 0], 1), dt, ci, cw, cb), tr)
        z = rnd(2, 5, lo=-3, hi=3).to(dt)
        out1(aten("_softmax.out"), tag, [z, 1, False], lowp(lambda t: torch._softmax(t, 1, False), dt, z), tr)
        out1(aten("_log_softmax.out"), tag, [z, 1, False],
             lowp(lambda t: torch._log_softmax(t, 1, False), dt, z), tr)
        ln, lw, lb = rnd(2, 3, 4).to(dt), rnd(4).to(dt), rnd(4).to(dt)
        r = torch.native_layer_norm(ln.float(), [4], lw.float(), lb.float(), 1e-5)
        outN(aten("native_layer_norm.out"), tag, [ln, IL([4]), lw, lb, 1e-5], [t.to(dt) for t in r], tr)
        bx = rnd(2, 3, 2, 2).to(dt)
        bm, bv = rnd(3).to(dt), rnd(3, lo=0.5, hi=2).to(dt)
        yb = F.batch_norm(bx.float(), bm.float(), bv.float(), None, None, False, 0.1, 1e-5).to(dt)
        outN(aten("_native_batch_norm_legit_no_training.out"), tag,
             [bx, None, None, bm, bv, 0.1, 1e-5], [yb, torch.zeros(0, dtype=dt), torch.zeros(0, dtype=dt)], tr)
        px = rnd(1, 2, 4, 4).to(dt)
        pv, pi = F.max_pool2d_with_indices(px.float(), [2, 2], [2, 2], [0, 0], [1, 1], False, True)
        outN(aten("max_pool2d_with_indices.out"), tag,
             [px, IL([2, 2]), IL([2, 2]), IL([0, 0]), IL([1, 1]), False], [pv.to(dt), pi], tl)
        out1(aten("avg_pool2d.out"), tag, [px, IL([2, 2]), IL([2, 2]), IL([0, 0]), False, True, None],
             lowp(lambda t: F.avg_pool2d(t, 2, 2), dt, px), tr)
        out1(aten("_adaptive_avg_pool2d.out"), tag, [px, IL([1, 1])],
             lowp(lambda t: torch._adaptive_avg_pool2d(t, [1, 1]), dt, px), tr)
        out1(aten("sum.IntList_out"), tag, [x, IL([1]), False, None], lowp(lambda t: t.sum(1), dt, x), tr)
        out1(aten("mean.out"), tag, [x, IL([0]), True, None], lowp(lambda t: t.mean(0, True), dt, x), tr)
        out1(aten("amax.out"), tag, [x, IL([1]), False], lowp(lambda t: t.amax(1), dt, x), tl)
        out1(aten("argmax.out"), tag, [x, 1, False], torch.argmax(x.float(), 1))
        out1(aten("cumsum.out"), tag, [x, 1, None], lowp(lambda t: t.cumsum(1), dt, x), tr)
        # Copies and views move float16/bfloat16 bits unchanged.
        out1(aten("permute_copy.out"), tag, [x, IL([1, 0])], x.permute(1, 0))
        out1(aten("view_copy.out"), tag, [x, IL([2, 6])], x.reshape(2, 6))
        out1(aten("expand_copy.out"), tag, [y, IL([2, 4]), False], y.expand(2, 4))
        out1(aten("clone.out"), tag, [x, None], x.clone())
        out1(aten("cat.out"), tag, [TL([x, x]), 0], torch.cat([x, x], 0))
        out1(aten("stack.out"), tag, [TL([y, y]), 1], torch.stack([y, y], 1))
        out1(aten("select_copy.int_out"), tag, [x, 0, 1], x.select(0, 1))
        out1(aten("slice_copy.Tensor_out"), tag, [x, 1, 1, 3, 1], x[:, 1:3])
        out1(aten("transpose_copy.int_out"), tag, [x, 0, 1], x.transpose(0, 1))
        out1(aten("unsqueeze_copy.out"), tag, [x, 0], x.unsqueeze(0))
        out1(aten("index_select.out"), tag, [x, 1, torch.tensor([3, 0])], x.index_select(1, torch.tensor([3, 0])))
        out1(aten("index.Tensor_out"), tag, [x, OTL([torch.tensor([2, 0])])], x[torch.tensor([2, 0])])
        out1(aten("embedding.out"), tag, [x, torch.tensor([[2, 1]]), -1, False, False],
             F.embedding(torch.tensor([[2, 1]]), x))
        out1(aten("gather.out"), tag, [x, 1, torch.tensor([[0], [3], [1]]), False],
             torch.gather(x, 1, torch.tensor([[0], [3], [1]])))
        out1(aten("index_put.out"), tag, [x, OTL([torch.tensor([1])]), y, True],
             torch.index_put(x.float(), (torch.tensor([1]),), y.float(), True).to(dt), tl)
        out1(aten("constant_pad_nd.out"), tag, [x, IL([1, 1]), 0.5], F.pad(x.float(), (1, 1), value=0.5).to(dt))
        out1(aten("full.out"), tag, [IL([2, 2]), 1.25], torch.full((2, 2), 1.25, dtype=dt))
        out1(aten("zeros.out"), tag, [IL([3])], torch.zeros(3, dtype=dt))
        out1(aten("ones.out"), tag, [IL([3])], torch.ones(3, dtype=dt))
        out1(aten("fill.Scalar_out"), tag, [x, -1.5], torch.full_like(x, -1.5))
        out1(aten("arange.start_out"), tag, [0.0, 2.0, 0.5], torch.arange(0.0, 2.0, 0.5, dtype=dt))
        xf = rnd(3, 4, lo=-100, hi=100)
        out1(aten("_to_copy.out"), "f32_to_" + tag, [xf, False, None], xf.to(dt))
        out1(aten("_to_copy.out"), tag + "_to_f32", [x, False, None], x.float())
        out1(aten("_to_copy.out"), tag + "_to_i64", [x * 10, False, None], (x * 10).float().to(torch.int64))
        out1(aten("copy.out"), tag + "_from_f64", [x, y.double(), False], y.double().expand(3, 4).to(dt))
    hb = rnd(5, lo=-70000, hi=70000)
    out1(aten("_to_copy.out"), "f32_to_f16_overflow", [hb, False, None], hb.half())
    out1(aten("_to_copy.out"), "bf16_to_f16", [hb.bfloat16() / 1000, False, None],
         (hb.bfloat16() / 1000).half())
    # Integer matmul and convolution: exact, wrapping like PyTorch's.
    ai, bi = rint(3, 4), rint(4, 2)
    out1(aten("mm.out"), "i64", [ai, bi], torch.mm(ai, bi))
    out1(aten("mm.out"), "i32", [ai.int(), bi.int()], torch.mm(ai.int(), bi.int()))
    a8, b8 = rint(2, 2, 3, lo=0, hi=9).to(torch.uint8), rint(2, 3, 2, lo=0, hi=9).to(torch.uint8)
    out1(aten("bmm.out"), "u8_wraps", [a8, b8], torch.bmm(a8.long(), b8.long()).to(torch.uint8))
    s_ = rint(2)
    out1(aten("addmm.out"), "i64_beta_alpha", [s_, ai, bi, 2, 3], torch.addmm(s_, ai, bi, beta=2, alpha=3))
    # torch 1.13's CPU convolution has no integer kernel: integers small
    # enough to be exact in float32 give the same result through float.
    ci, cw, cb = rint(1, 2, 4, 4), rint(3, 2, 2, 2), rint(3)
    out1(aten("convolution.out"), "i64_via_f32",
         [ci, cw, cb, IL([1, 1]), IL([0, 0]), IL([1, 1]), False, IL([0, 0]), 1],
         torch.convolution(ci.float(), cw.float(), cb.float(), [1, 1], [0, 0], [1, 1], False,
                           [0, 0], 1).long())


def gen_conv_transposed():
    k = aten("convolution.out")

    def convt(name, x, w, bias, stride, pad, dil, opad, groups, tol=RED):
        y = torch.convolution(x, w, bias, stride, pad, dil, True, opad, groups)
        out1(k, name, [x, w, bias, IL(stride), IL(pad), IL(dil), True, IL(opad), groups], y, tol)

    convt("transposed_2d", rnd(1, 3, 4, 4), rnd(3, 2, 3, 3), rnd(2), [2, 2], [1, 1], [1, 1],
          [1, 1], 1)
    convt("transposed_2d_groups_dil", rnd(2, 4, 3, 5), rnd(4, 3, 2, 3), None, [1, 2], [0, 1],
          [2, 1], [0, 1], 2)
    convt("transposed_1d", rnd(2, 2, 6), rnd(2, 3, 4), rnd(3), [3], [1], [1], [2], 1)
    x, w = rnd(1, 2, 3, 3), rnd(2, 1, 2, 2)
    y = torch.convolution(x, w, None, [2, 2], [0, 0], [1, 1], True, [0, 0], 1)
    out1(k, "transposed_f16", [x.half(), w.half(), None, IL([2, 2]), IL([0, 0]), IL([1, 1]), True,
                               IL([0, 0]), 1],
         torch.convolution(x.half().float(), w.half().float(), None, [2, 2], [0, 0], [1, 1], True,
                           [0, 0], 1).half(), HALF_RED)


def main():
    if not sys.executable.startswith("/usr/bin/"):
        print("warning: run with /usr/bin/python3 (Debian torch)", file=sys.stderr)
    gen_binary()
    gen_compare()
    gen_unary()
    gen_select()
    gen_linear()
    gen_norm()
    gen_pool()
    gen_reduce()
    gen_shape()
    gen_index()
    gen_creation()
    gen_unary_math()
    gen_binary_more()
    gen_reduce_more()
    gen_norm_more()
    gen_creation_more()
    gen_rearrange()
    gen_selection()
    gen_resample()
    gen_distance_backward()
    gen_quantized()
    gen_lowp_existing()
    gen_conv_transposed()
    os.makedirs(OUT_DIR, exist_ok=True)
    for f in os.listdir(OUT_DIR):
        if f.endswith(".case"):
            os.remove(os.path.join(OUT_DIR, f))
    total = 0
    for kernel in sorted(CASES):
        fname = kernel.replace("::", "__") + ".case"
        blob = b"PTKC" + u32(1) + s(kernel) + u32(len(CASES[kernel])) + b"".join(CASES[kernel])
        with open(os.path.join(OUT_DIR, fname), "wb") as f:
            f.write(blob)
        total += len(blob)
    n = sum(len(v) for v in CASES.values())
    print("wrote %d cases for %d kernels, %d bytes" % (n, len(CASES), total))


if __name__ == "__main__":
    main()
