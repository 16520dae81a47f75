#!/usr/bin/env python3
"""Rewrite the operator table of docs/kernels.md.

    python3 test/unit/kernels/kernel_table.py

Reads the kernel list (runtime/kernels/portable/KernelList.h), the
conformance case files (test/unit/kernels/cases/, names only) and the dtype
classes below, and replaces the text between the kernel-table markers in
docs/kernels.md. Standard library only. kernel_tests fails when a kernel is
missing from the document, so run this after adding one.
"""
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LIST = os.path.join(ROOT, "runtime/kernels/portable/KernelList.h")
CASES = os.path.join(ROOT, "test/unit/kernels/cases")
DOC = os.path.join(ROOT, "docs/kernels.md")
BEGIN, END = "<!-- kernel-table:begin -->", "<!-- kernel-table:end -->"

# Dtype classes. "all": bool, uint8, int8, int16, int32, int64, float16,
# bfloat16, float32, float64. "real": all but bool. "float": float16,
# bfloat16, float32, float64. "int": the integer dtypes (and bool where said).
ALL, REAL, FLOAT = "all", "real", "float"
DTYPES = {}


def classes(names, text):
    for n in names.split():
        DTYPES[n if "::" in n else "aten::" + n] = text


classes("add.out add.Scalar_out sub.out sub.Scalar_out rsub.Scalar_out mul.out mul.Scalar_out "
        "maximum.out minimum.out where.self_out masked_fill.Scalar_out eq.Scalar_out "
        "eq.Tensor_out ne.Scalar_out ne.Tensor_out lt.Scalar_out lt.Tensor_out le.Scalar_out "
        "le.Tensor_out gt.Scalar_out gt.Tensor_out ge.Scalar_out ge.Tensor_out logical_and.out "
        "logical_or.out logical_xor.out logical_not.out isnan.out isinf.out sign.out",
        ALL + " (sub: not bool)")
classes("div.out div.Scalar_out acos.out acosh.out asin.out asinh.out atan.out atanh.out cos.out "
        "cosh.out sin.out sinh.out tan.out tanh.out exp.out expm1.out log.out log10.out log1p.out "
        "log2.out sqrt.out rsqrt.out reciprocal.out sigmoid.out erf.out atan2.out logit.out",
        ALL + " in, float out")
classes("div.out_mode div.Scalar_mode_out floor_divide.out fmod.Tensor_out fmod.Scalar_out "
        "remainder.Tensor_out remainder.Scalar_out pow.Tensor_Scalar_out pow.Tensor_Tensor_out "
        "pow.Scalar_out clamp.out clamp.Tensor_out hardtanh.out neg.out abs.out relu.out",
        REAL + " (integer division by zero fails)")
classes("ceil.out floor.out trunc.out round.out", REAL + " (integers pass through)")
classes("bitwise_and.Tensor_out bitwise_and.Scalar_out bitwise_or.Tensor_out "
        "bitwise_or.Scalar_out bitwise_xor.Tensor_out bitwise_xor.Scalar_out bitwise_not.out",
        "int, bool")
classes("bitwise_left_shift.Tensor_out bitwise_left_shift.Tensor_Scalar_out "
        "bitwise_right_shift.Tensor_out bitwise_right_shift.Tensor_Scalar_out", "int")
classes("gelu.out leaky_relu.out elu.out glu.out _softmax.out _log_softmax.out "
        "native_layer_norm.out native_group_norm.out _native_batch_norm_legit_no_training.out "
        "_native_batch_norm_legit.out _native_batch_norm_legit.no_stats_out "
        "max_pool2d_with_indices.out max_pool2d_with_indices_backward.grad_input "
        "avg_pool2d.out _adaptive_avg_pool2d.out upsample_bilinear2d.vec_out "
        "_upsample_bilinear2d_aa.out grid_sampler_2d.out _cdist_forward.out _pdist_forward.out "
        "convolution_backward.out var.out var.correction_out var_mean.correction_out "
        "rand.out randn.out native_dropout.out", FLOAT)
classes("mm.out bmm.out addmm.out convolution.out", REAL)
classes("sum.IntList_out prod.out prod.int_out cumsum.out", ALL + " (integers and bool sum to int64)")
classes("mean.out mean.dtype_out", ALL + " in with a float dtype; float out")
classes("amax.out amin.out max.unary_out min.unary_out max.dim_max min.dim_min argmax.out "
        "argmin.out topk.values", ALL + " (indices int64)")
classes("any.all_out any.out any.dims_out", ALL + " in; bool out (uint8 for uint8)")
classes("nonzero.out", ALL + " in; int64 out")
classes("repeat_interleave.Tensor_out", "int32, int64")
classes("arange.out arange.start_out full.out full_like.out zeros.out ones.out scalar_tensor.out "
        "fill.Scalar_out fill.Tensor_out empty.out dim_order_ops::_empty_dim_order.out", ALL)
classes("_to_copy.out dim_order_ops::_to_dim_order_copy.out copy.out copy_", ALL + " (converting)")
classes("quantized_decomposed::quantize_per_tensor.out "
        "quantized_decomposed::quantize_per_tensor.Tensor_out "
        "quantized_decomposed::quantize_per_channel.out",
        "float in; uint8, int8, int16, int32 out")
classes("quantized_decomposed::dequantize_per_tensor.out "
        "quantized_decomposed::dequantize_per_tensor.Tensor_out "
        "quantized_decomposed::dequantize_per_channel.out",
        "uint8, int8, int16, int32 in; float out (float32 default)")
DEFAULT = ALL  # shape, view, copy and indexing kernels move elements of any dtype


def kernels():
    text = open(LIST).read()
    return re.findall(r'X\("([^"]+)", \w+, (\d+), (\w+)\)', text)


def case_names(kernel):
    path = os.path.join(CASES, kernel.replace("::", "__") + ".case")
    if not os.path.exists(path):
        return []
    data = open(path, "rb").read()
    pos = 8
    n = struct.unpack_from("<H", data, pos)[0]
    pos += 2 + n
    count = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    names = []
    for _ in range(count):  # each case starts with its name (CaseFile.h)
        n = struct.unpack_from("<H", data, pos)[0]
        names.append(data[pos + 2:pos + 2 + n].decode())
        pos = skip_case(data, pos + 2 + n)
    return names


def skip_tensor(data, pos, with_data=True):
    dt, rank = struct.unpack_from("<bB", data, pos)
    pos += 2
    sizes = struct.unpack_from("<%dq" % rank, data, pos)
    pos += 8 * rank
    if with_data:
        numel = 1
        for s in sizes:
            numel *= s
        esize = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2}[dt]
        pos += numel * esize
    return pos


def skip_case(data, pos):
    pos += 8  # rtol, atol
    nargs = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    for _ in range(nargs):
        tag = data[pos]
        pos += 1
        if tag == 0:
            pass
        elif tag in (1, 2):
            pos += 8
        elif tag == 3:
            pos += 1
        elif tag == 4:
            pos += 2 + struct.unpack_from("<H", data, pos)[0]
        elif tag == 5:
            pos = skip_tensor(data, pos)
        elif tag in (6, 7):
            pos += 4 + 8 * struct.unpack_from("<I", data, pos)[0]
        elif tag == 8:
            pos += 4 + struct.unpack_from("<I", data, pos)[0]
        elif tag in (9, 10):
            n = struct.unpack_from("<I", data, pos)[0]
            pos += 4
            for _ in range(n):
                if tag == 10:
                    present = data[pos]
                    pos += 1
                    if not present:
                        continue
                pos = skip_tensor(data, pos)
        elif tag == 11:
            pos = skip_tensor(data, pos, False) + 9
        elif tag == 12:
            pos += 4
        elif tag == 13:
            pos += 4 + 4 * struct.unpack_from("<I", data, pos)[0]
        elif tag == 14:
            n = struct.unpack_from("<I", data, pos)[0]
            pos += 4
            for _ in range(n):
                pos = skip_tensor(data, pos, False) + 9
        else:
            raise ValueError("unknown tag %d" % tag)
    nexp = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    for _ in range(nexp):
        pos = skip_tensor(data, pos + 8)
    return pos


def table():
    rows = ["| operator | args | dim orders | dtypes | conformance cases (`cases/<operator>.case`) |",
            "|---|---|---|---|---|"]
    for name, nargs, layout in kernels():
        shown = name[len("aten::"):] if name.startswith("aten::") else name
        names = case_names(name)
        rows.append("| `%s` | %s | %s | %s | %d: %s |" % (
            shown, nargs, layout, DTYPES.get(name, DEFAULT), len(names), " ".join(names)))
    return "\n".join(rows)


def main():
    doc = open(DOC).read()
    a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    doc = doc[:a] + "\n" + table() + "\n" + doc[b:]
    open(DOC, "w").write(doc)
    unknown = [n for n, _, _ in kernels() if n not in DTYPES]
    print("%d kernels; %d with the default dtype class" % (len(kernels()), len(unknown)))


if __name__ == "__main__":
    main()
