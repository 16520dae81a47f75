#!/usr/bin/env python3
"""Hand-built .pte files for the format conformance suite.

Every file is written with ptefb.py straight from the spec (header and
segment layout of section 2, the tables of section 3, the conventions of
section 4), not by ptec's writer. Each comes with what must happen to it:
whether the runtime loads and runs it (and its outputs), and which rules the
two checkers (pte_check.py and `pte-inspect --check`) must report.

    make_corpus.py OUT_DIR      writes OUT_DIR/<name>.pte, inputs, expected
                                outputs and OUT_DIR/manifest.json
"""
import json
import math
import os
import struct
import sys

from ptefb import T, U, V, align_up, layout_segments, pte_file

F32, I64, BOOL = 6, 4, 11
DEMO = "BackendWithCompilerDemo"


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def demo_sin(xs):
    """The demo backend's sin: the cube in float, the rest in double (spec 8)."""
    out = []
    for x in xs:
        cube = f32(f32(x * x) * x)
        out.append(f32(x - cube / 6.0))
    return out


def demo_blob(numel):
    return ("1version:0#op:demo::aten.sin.default, numel:%d, dtype:torch.float32"
            "<debug_handle>1#" % numel).encode()


# ---------------------------------------------------------------------------
# Building plans
# ---------------------------------------------------------------------------

class Plan:
    def __init__(self, name="forward"):
        self.name, self.values, self.ops, self.instrs = name, [], [], []
        self.delegates, self.inputs, self.outputs, self.arena = [], [], [], 0
        self.extra = {}

    def add(self, table):
        self.values.append(T("EValue", val=U(table)))
        return len(self.values) - 1

    def tensor(self, sizes, dtype=F32, planned=True, idx=0, order=None, **fields):
        """A tensor value; planned ones get the next 16-aligned arena slot."""
        f = dict(scalar_type=dtype, sizes=V("i", sizes),
                 dim_order=V("B", order if order is not None else range(len(sizes))))
        if idx:
            f["data_buffer_idx"] = idx
        if planned:
            n = math.prod(sizes) * {F32: 4, I64: 8, BOOL: 1}[dtype]
            f["allocation_info"] = T("AllocationDetails", memory_id=1,
                                     memory_offset_low=self.arena, memory_offset_high=0)
            self.arena = align_up(self.arena + n, 16)
        f.update(fields)
        return self.add(T("Tensor", **f))

    def int(self, v):
        return self.add(T("Int", int_val=v))

    def bool(self, v):
        return self.add(T("Bool", bool_val=v))

    def double(self, v):
        return self.add(T("Double", double_val=v))

    def null(self):
        return self.add(T("Null"))

    def string(self, s):
        return self.add(T("String", string_val=s))

    def int_list(self, items):
        return self.add(T("IntList", items=V("q", [self.int(i) for i in items])))

    def tensor_list(self, items):
        return self.add(T("TensorList", items=V("i", items)))

    def op(self, name, overload):
        key = (name, overload)
        if key not in self.ops:
            self.ops.append(key)
        return self.ops.index(key)

    def kernel(self, full, args):
        name, _, overload = full.partition(".")
        self.instrs.append(U(T("KernelCall", op_index=self.op(name, overload),
                               args=V("i", args))))

    def delegate(self, location, index, specs=((b"max_value", b"\x04"),), **fields):
        self.delegates.append(T("BackendDelegate", id=DEMO,
                                processed=T("BackendDelegateDataReference", location=location,
                                            index=index),
                                compile_specs=[T("CompileSpec", key=k.decode(),
                                                 value=V("B", v)) for k, v in specs],
                                **fields))
        return len(self.delegates) - 1

    def delegate_call(self, d, args):
        self.instrs.append(U(T("DelegateCall", delegate_index=d, args=V("i", args))))

    def build(self, **override):
        f = dict(name=self.name, values=self.values, inputs=V("i", self.inputs),
                 outputs=V("i", self.outputs),
                 chains=[T("Chain", instructions=[T("Instruction", instr_args=u)
                                                  for u in self.instrs])],
                 operators=[T("Operator", name=n, overload=o) for n, o in self.ops],
                 delegates=self.delegates,
                 non_const_buffer_sizes=V("q", [0, align_up(self.arena, 16)]))
        f.update(override)
        return T("ExecutionPlan", **{k: v for k, v in f.items() if v is not None})


def constant_segment(entries):
    """Constant segment bytes and offsets (spec 2.4): the empty placeholder at
    0, each entry padded to 16 except the last."""
    data, offsets = bytearray(), [0]
    for e in entries:
        while len(data) % 16:
            data.append(0)
        offsets.append(len(data))
        data += e
    return bytes(data), offsets


def program(plans, blobs=(), constant=None, mutable=None, **fields):
    """A Program over `blobs` (segment payloads in order). `constant` and
    `mutable` are (segment index, offsets)."""
    offsets, data = layout_segments(blobs)
    f = dict(execution_plan=plans,
             segments=[T("DataSegment", offset=o, size=len(b)) for o, b in zip(offsets, blobs)])
    if constant is not None:
        f["constant_segment"] = T("SubsegmentOffsets", segment_index=constant[0],
                                  offsets=V("Q", constant[1]))
    if mutable is not None:
        f["mutable_data_segments"] = [T("SubsegmentOffsets", segment_index=mutable[0],
                                        offsets=V("Q", mutable[1]))]
    f.update(fields)
    return T("Program", **f), data


def floats(xs):
    return struct.pack("<%df" % len(xs), *xs)


# ---------------------------------------------------------------------------
# The programs
# ---------------------------------------------------------------------------

X2 = [0.5, -0.25]
W2 = [0.25, 0.5]
STATE2 = [1.0, 2.0]


def segmented(constant_index=0):
    """add(x, w) -> demo sin -> add(state): constant, mutable and delegate
    segments (0, 1, 2)."""
    p = Plan()
    x = p.tensor([2])
    w = p.tensor([2], planned=False, idx=1)
    t = p.tensor([2])
    u = p.tensor([2])
    state = p.tensor([2], idx=1)
    out = p.tensor([2])
    one = p.int(1)
    p.kernel("aten::add.out", [x, w, one, t, t])
    d = p.delegate(1, 2)
    p.delegate_call(d, [t, u])
    p.kernel("aten::add.out", [u, state, p.int(1), out, out])
    p.inputs, p.outputs = [x], [out]
    cdata, coffs = constant_segment([floats(W2)])
    prog, data = program([p.build()], [cdata, floats(STATE2), demo_blob(2)],
                         constant=(constant_index, coffs), mutable=(1, [0, 0]))
    t_vals = [f32(a + b) for a, b in zip(X2, W2)]
    expected = [f32(a + b) for a, b in zip(demo_sin(t_vals), STATE2)]
    return prog, data, expected


def plain_add(return_input=False):
    """x + y on [2], no constants: a plain flatbuffer. `return_input`: the add.out's
    return entry is x instead of its out argument."""
    p = Plan()
    x, y, out = p.tensor([2]), p.tensor([2]), p.tensor([2])
    p.kernel("aten::add.out", [x, y, p.int(1), out, x if return_input else out])
    p.inputs, p.outputs = [x, y], [out]
    return program([p.build()], [b""], constant=(0, [0]))


def with_constant(entry_bytes=None, sizes=(2,), inline=False, both=False):
    """x + w; w from the constant segment, or from the inline constant_buffer."""
    p = Plan()
    x = p.tensor(list(sizes))
    w = p.tensor(list(sizes), planned=False, idx=1)
    out = p.tensor(list(sizes))
    p.kernel("aten::add.out", [x, w, p.int(1), out, out])
    p.inputs, p.outputs = [x], [out]
    wb = entry_bytes if entry_bytes is not None else floats(W2)
    inline_buffers = [T("Buffer", storage=V("B", b"", align=16)),
                      T("Buffer", storage=V("B", wb, align=16))]
    if inline:
        return program([p.build()], [], constant_buffer=inline_buffers)
    cdata, coffs = constant_segment([wb])
    extra = dict(constant_buffer=inline_buffers) if both else {}
    return program([p.build()], [cdata], constant=(0, coffs), **extra)


def all_instructions():
    """KernelCall, JumpFalseCall (taken and not), DelegateCall (inline blob),
    MoveCall and FreeCall in one chain."""
    p = Plan()
    x, t, u = p.tensor([2]), p.tensor([2]), p.tensor([2])
    out = p.tensor([2], planned=False)
    free_me = p.tensor([2], planned=False)
    no, yes = p.bool(False), p.bool(True)
    p.kernel("aten::add.out", [x, x, p.int(1), t, t])                    # 0: t = 2x
    p.instrs.append(U(T("JumpFalseCall", cond_value_index=no, destination_instruction=3)))
    p.kernel("aten::add.out", [t, t, p.int(1), t, t])                    # 2: skipped
    p.instrs.append(U(T("JumpFalseCall", cond_value_index=yes, destination_instruction=6)))
    d = p.delegate(0, 0)
    p.delegate_call(d, [t, u])                                           # 4: u = sin(t)
    p.instrs.append(U(T("MoveCall", move_from=u, move_to=out)))          # 5
    p.instrs.append(U(T("FreeCall", value_index=free_me)))               # 6
    p.inputs, p.outputs = [x], [out]
    prog, data = program([p.build()], [b""], constant=(0, [0]),
                         backend_delegate_data=[T("BackendDelegateInlineData",
                                                  data=V("B", demo_blob(2), align=16))])
    return prog, data, demo_sin([f32(2 * v) for v in X2])


def gelu_tanh(v):
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def all_evalues():
    """Every EValue kind: Null, Int, Bool, Double, Tensor, String, IntList,
    DoubleList, BoolList, TensorList, OptionalTensorList."""
    p = Plan()
    x = p.tensor([2])
    cat_in = p.tensor_list([x, x])
    a = p.tensor([4])
    p.kernel("aten::cat.out", [cat_in, p.int(0), a, a])
    b = p.tensor([4])
    p.kernel("aten::mul.Scalar_out", [a, p.double(0.5), b, b])
    c = p.tensor([4])
    p.kernel("aten::gelu.out", [b, p.string("tanh"), c, c])
    idx = p.tensor([2], dtype=I64, planned=False, idx=1)
    indices = p.add(T("OptionalTensorList", items=V("i", [idx])))
    d = p.tensor([2])
    p.kernel("aten::index.Tensor_out", [c, indices, d, d])
    e = p.tensor([])
    p.kernel("aten::sum.IntList_out", [d, p.int_list([0]), p.bool(False), p.null(), e, e])
    p.add(T("DoubleList", items=V("d", [1.5, 2.5])))
    p.add(T("BoolList", items=V("?", [True, False])))
    p.inputs, p.outputs = [x], [d, e]
    cdata, coffs = constant_segment([struct.pack("<2q", 3, 0)])
    prog, data = program([p.build()], [cdata], constant=(0, coffs))
    xs = [0.5, -1.0]
    cs = [f32(gelu_tanh(f32(v * 0.5))) for v in xs + xs]
    ds = [cs[3], cs[0]]
    return prog, data, xs, [ds, [f32(ds[0] + ds[1])]]


def split_program(nargs=5):
    p = Plan()
    x = p.tensor([2, 3])
    o1, o2 = p.tensor([2, 1]), p.tensor([2, 2])
    outs = p.tensor_list([o1, o2])
    args = [x, p.int_list([1, 2]), p.int(1), outs, outs][:nargs]
    p.kernel("aten::split_with_sizes_copy.out", args)
    p.inputs, p.outputs = [x], [o1, o2]
    return program([p.build()], [b""], constant=(0, [0]))


def max_pool_program():
    p = Plan()
    x = p.tensor([1, 1, 2, 2])
    out, ind = p.tensor([1, 1, 1, 1]), p.tensor([1, 1, 1, 1], dtype=I64)
    ret = p.tensor_list([out, ind])
    p.kernel("aten::max_pool2d_with_indices.out",
             [x, p.int_list([2, 2]), p.int_list([2, 2]), p.int_list([0, 0]),
              p.int_list([1, 1]), p.bool(False), out, ind, ret])
    p.inputs, p.outputs = [x], [out, ind]
    return program([p.build()], [b""], constant=(0, [0]))


def inplace_copy():
    """A mutable buffer written by aten::copy_ [target, src, false, target]."""
    p = Plan()
    x = p.tensor([2])
    state = p.tensor([2], idx=1)
    out = p.tensor([2])
    p.kernel("aten::copy_", [state, x, p.bool(False), state])
    p.kernel("aten::add.out", [state, state, p.int(1), out, out])
    p.inputs, p.outputs = [x], [out]
    return program([p.build()], [b"", floats(STATE2)], constant=(0, [0]), mutable=(1, [0, 0]))


CL = [0, 2, 3, 1]


def channels_last(unsupported=False):
    p = Plan()
    x = p.tensor([1, 2, 2, 2])
    if unsupported:
        s = p.tensor([1, 2, 2, 2], order=CL, planned=False)
        out = p.tensor([1, 2, 2, 1])
        p.kernel("aten::sum.IntList_out", [s, p.int_list([3]), p.bool(True), p.null(), out, out])
        p.inputs, p.outputs = [x], [out]
        return program([p.build()], [b""], constant=(0, [0]))
    xc = p.tensor([1, 2, 2, 2], order=CL)
    p.kernel("dim_order_ops::_to_dim_order_copy.out",
             [x, p.bool(False), p.int_list(CL), xc, xc])
    yc = p.tensor([1, 2, 2, 2], order=CL)
    p.kernel("aten::add.out", [xc, xc, p.int(1), yc, yc])
    out = p.tensor([1, 2, 2, 2])
    p.kernel("dim_order_ops::_clone_dim_order.out",
             [yc, p.bool(False), p.int_list([0, 1, 2, 3]), out, out])
    p.inputs, p.outputs = [x], [out, yc]
    return program([p.build()], [b""], constant=(0, [0]))


def broken(kind):
    """Programs with one reference or field wrong (section 5.2's checks)."""
    p = Plan()
    x, out = p.tensor([2]), p.tensor([2])
    override = {}
    if kind == "bad_indices":
        p.kernel("aten::add.out", [x, 99, p.int(1), out, out])
    elif kind == "bad_jump":
        p.kernel("aten::add.out", [x, x, p.int(1), out, out])
        p.instrs.append(U(T("JumpFalseCall", cond_value_index=p.bool(False),
                            destination_instruction=9)))
    elif kind == "list_forward_ref":
        p.tensor_list([x, len(p.values) + 1])
        p.tensor([2], planned=False)
        p.kernel("aten::add.out", [x, x, p.int(1), out, out])
    else:
        extra = {"scalar_type_invalid": dict(scalar_type=9),
                 "dynamic_unbound": dict(shape_dynamism=2)}.get(kind, {})
        y = p.tensor([2], planned=kind != "planned_out_of_arena", **extra)
        if kind == "planned_out_of_arena":
            p.values[y] = T("EValue", val=U(T(
                "Tensor", scalar_type=F32, sizes=V("i", [2]), dim_order=V("B", [0]),
                allocation_info=T("AllocationDetails", memory_id=1, memory_offset_low=4096))))
        p.kernel("aten::add.out", [x, y, p.int(1), out, out])
        p.inputs = [x, y]
        if kind == "missing_delegates":
            override["delegates"] = None
    if not p.inputs:
        p.inputs = [x]
    p.outputs = [out]
    return program([p.build(**override)], [b""], constant=(0, [0]))


def shared_delegate():
    """One BackendDelegate entry used by two DelegateCalls (spec section 9)."""
    p = Plan()
    x, u, v = p.tensor([2]), p.tensor([2]), p.tensor([2])
    d = p.delegate(1, 1)
    p.delegate_call(d, [x, u])
    p.delegate_call(d, [u, v])
    p.inputs, p.outputs = [x], [v]
    prog, data = program([p.build()], [b"", demo_blob(2)], constant=(0, [0]))
    return prog, data, demo_sin(demo_sin(X2))


def two_methods(names):
    plans = []
    for n in names:
        p = Plan(n)
        x, out = p.tensor([2]), p.tensor([2])
        p.kernel("aten::add.out", [x, x, p.int(1), out, out])
        p.inputs, p.outputs = [x], [out]
        plans.append(p.build())
    return program(plans, [b""], constant=(0, [0]))


# ---------------------------------------------------------------------------
# The corpus: file, runtime expectation, checker expectation
# ---------------------------------------------------------------------------

def put(b, at, fmt, v):
    b = bytearray(b)
    struct.pack_into("<" + fmt, b, at, v)
    return bytes(b)


def cases():
    """(name, bytes, run, errors, warnings). `run` is None for a file the
    runtime must refuse ("fail": substring of the error), else inputs and
    expected outputs as (shape, values, dtype) lists."""
    out = []

    def case(name, data, run, errors=(), warnings=()):
        out.append((name, data, run, sorted(errors), sorted(warnings)))

    def ok(inputs, expected, method="forward"):
        return {"inputs": inputs, "expected": expected, "method": method}

    def fail(substring, method="forward"):
        return {"fail": substring, "method": method}

    # Header and segment variants (spec 2.2).
    prog, data, expected = segmented()
    seg_run = ok([([2], X2)], [([2], expected)])
    full32 = pte_file(prog, data)
    case("header32_segments", full32, seg_run)
    case("header24_segments", pte_file(prog, data, header_length=24), seg_run,
         warnings=["header.legacy-length"])
    case("header32_truncated", full32[:-3], fail("past the end of the file"),
         errors=["header.file-size", "segment.bounds"])
    case("header24_truncated_blob", pte_file(prog, data, header_length=24)[:-3],
         fail("segments[2]"), errors=["segment.bounds"], warnings=["header.legacy-length"])
    dsize = struct.unpack_from("<Q", full32, 32)[0]
    case("header32_short_data_size", put(full32, 32, "Q", dsize - 8), seg_run,
         errors=["header.data-size"])
    # Segment data inside the program: the loader would read the constant
    # from the flatbuffer's own bytes; it refuses the file as the checkers do.
    case("segment_base_inside_program", put(full32, 24, "Q", 16),
         fail("lies inside the program"), errors=["header.segment-base"])
    case("no_header_with_segments", pte_file(prog, data, header_length=0) + data,
         fail("no segment data"), errors=["segment.no-header"])
    prog, data = plain_add()
    add_run = ok([([2], X2), ([2], W2)], [([2], [f32(a + b) for a, b in zip(X2, W2)])])
    plain = pte_file(prog, data)
    case("plain_no_constants", plain, add_run)
    case("header32_no_segments", pte_file(prog, data, header_length=32), add_run,
         warnings=["header.without-segments"])
    case("header24_no_segments", pte_file(prog, data, header_length=24), add_run,
         warnings=["header.legacy-length", "header.without-segments"])
    case("header_length_16", put(pte_file(prog, data, header_length=32), 12, "I", 16),
         fail("below the minimum"), errors=["header.length"])
    case("tiny_file", plain[:40], fail("at least 64"), errors=["file.size"])
    case("bad_identifier", pte_file(prog, data, ident=b"ET13"), fail("incompatible"),
         errors=["file.identifier"])
    bad_root = bytearray(plain)
    root = struct.unpack_from("<I", bad_root, 0)[0]
    struct.pack_into("<i", bad_root, root, -100000)  # the vtable lies outside the file
    case("malformed_flatbuffer", bytes(bad_root), fail("verification failed"),
         errors=["flatbuffer.verify"])

    # Constant data: segment, deprecated inline buffer, both, out of range.
    const_run = ok([([2], X2)], [([2], [f32(a + b) for a, b in zip(X2, W2)])])
    prog, data = with_constant(inline=True)
    case("inline_constant_buffer", pte_file(prog, data), const_run,
         warnings=["constant.inline-deprecated", "constant.segment-missing"])
    prog, data = with_constant()
    case("constant_segment", pte_file(prog, data), const_run)
    prog, data = with_constant(both=True)
    case("both_constant_forms", pte_file(prog, data), fail("both set"),
         errors=["constant.both"], warnings=["constant.inline-deprecated"])
    prog, data = with_constant(sizes=(4,), entry_bytes=floats(W2))
    case("constant_out_of_bounds", pte_file(prog, data), fail("runs past the constant segment"),
         errors=["constant.bounds"])
    prog, data, _ = segmented(constant_index=7)
    case("constant_segment_index", pte_file(prog, data), fail("segment_index 7 out of range"),
         errors=["constant.segment-index", "constant.bounds"])

    # Every instruction kind and every EValue kind.
    prog, data, expected = all_instructions()
    case("all_instructions", pte_file(prog, data), ok([([2], X2)], [([2], expected)]))
    prog, data, xs, expected = all_evalues()
    case("all_evalues", pte_file(prog, data),
         ok([([2], xs)], [([2], expected[0]), ([], expected[1])]))
    prog, data, expected = shared_delegate()
    case("shared_delegate", pte_file(prog, data), ok([([2], X2)], [([2], expected)]))
    prog, data = two_methods(["zeta", "alpha"])
    case("unsorted_methods", pte_file(prog, data),
         ok([([2], X2)], [([2], [2 * v for v in X2])], method="alpha"),
         warnings=["plan.methods-sorted"])

    # Operator argument conventions (spec 4).
    xs6 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    prog, data = split_program()
    case("void_return_split", pte_file(prog, data),
         ok([([2, 3], xs6)], [([2, 1], [1.0, 4.0]), ([2, 2], [2.0, 3.0, 5.0, 6.0])]))
    prog, data = split_program(nargs=4)
    case("void_return_split_short", pte_file(prog, data), fail("KernelCall has 4 args"),
         errors=["kernel.arg-count"])
    prog, data = max_pool_program()
    case("multi_return_max_pool", pte_file(prog, data),
         ok([([1, 1, 2, 2], [1.0, 4.0, 3.0, 2.0])],
            [([1, 1, 1, 1], [4.0]), ([1, 1, 1, 1], [1], "int64")]))
    prog, data = plain_add(return_input=True)
    case("return_not_out", pte_file(prog, data), add_run, errors=["kernel.return"])
    prog, data = inplace_copy()
    case("inplace_copy", pte_file(prog, data), ok([([2], X2)], [([2], [2 * v for v in X2])]))

    # Dim orders (spec 3.3).
    xs8 = [-4.0, -3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0]
    prog, data = channels_last()
    case("channels_last", pte_file(prog, data),
         ok([([1, 2, 2, 2], xs8)], [([1, 2, 2, 2], [2 * v for v in xs8])] * 2))
    prog, data = channels_last(unsupported=True)
    case("channels_last_unsupported_kernel", pte_file(prog, data),
         fail("this kernel handles only contiguous tensors"))

    # Broken references and fields (spec 3.4, 5.2).
    for kind, substring, rule in [
            ("bad_indices", "out of range", "instruction.index"),
            ("bad_jump", "destination 9 out of range", "instruction.jump"),
            ("list_forward_ref", "TensorList", "value.list-index"),
            ("scalar_type_invalid", "scalar_type 9", "tensor.scalar-type"),
            ("dynamic_unbound", "DYNAMIC_UNBOUND", "tensor.dynamism"),
            ("planned_out_of_arena", "runs past arena", "tensor.allocation"),
            ("missing_delegates", "delegates", "required.field")]:
        prog, data = broken(kind)
        case(kind, pte_file(prog, data), fail(substring), errors=[rule])
    return out


def npy(path, shape, values, dtype="float32"):
    descr, fmt = {"float32": ("<f4", "f"), "int64": ("<i8", "q")}[dtype]
    shape_text = "(%s)" % ("".join("%d, " % s for s in shape).rstrip(" ") if shape else "")
    if len(shape) > 1:
        shape_text = "(%s)" % ", ".join(str(s) for s in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for name, data, run, errors, warnings in cases():
        with open(os.path.join(out_dir, name + ".pte"), "wb") as f:
            f.write(data)
        entry = {"name": name, "file": name + ".pte", "errors": errors, "warnings": warnings,
                 "method": run["method"]}
        if "fail" in run:
            entry["fail"] = run["fail"]
        else:
            entry["inputs"], entry["expected"] = [], []
            for k, (shape, values, *dt) in enumerate(run["inputs"]):
                path = os.path.join(out_dir, "%s.in%d.npy" % (name, k))
                npy(path, shape, values, *dt)
                entry["inputs"].append(os.path.basename(path))
            for k, (shape, values, *dt) in enumerate(run["expected"]):
                path = os.path.join(out_dir, "%s.out%d.npy" % (name, k))
                npy(path, shape, values, *dt)
                entry["expected"].append(os.path.basename(path))
        manifest.append(entry)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("wrote %d files to %s" % (len(manifest), out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
