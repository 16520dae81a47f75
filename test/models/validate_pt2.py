#!/usr/bin/env python3
"""Structural validator for the PT2 archives of the fixture zoo (no torch needed).

Checks, for every `*.pt2` under the given paths (default: this folder and
test/models_pending, the fixtures that wait for dynamic shapes / control flow):
  * the zip: central directory readable, every entry STORED, general-purpose flags 0x0808,
    record data starting on a 64-byte boundary (computed from the LOCAL header), an 'FB'
    padding extra field, CRC-32 and sizes in the central directory, ZIP64 end records;
  * the PT2 records: root folder found via `archive_format` (= pt2), `archive_version` (= 0),
    `byteorder`, `.data/version`, weights config, constants config, models/model.json;
  * model.json: schema 8.x, every tensor name used by a node, a graph input/output or the
    signature is defined exactly once and before use and has a tensor_values entry;
    signature specs match graph inputs/outputs by position;
  * weights: every parameter / persistent buffer FQN is in the weights config, its payload
    exists and has exactly numel * element_size bytes, its TensorMeta matches the graph's;
  * node arguments: names, order and kinds match the ATen schema (embedded table below,
    torch 2.9 names), required arguments are present, output arity matches the returns.
  * symbolic sizes: every SymInt expression (sympy srepr: Symbol, Integer, Add, Mul, Pow)
    parses, its symbols have range_constraints holding the hints, symbolic ints
    (sym_size.int, _operator.*) are defined before use with sym_int_values entries;
  * higher-order ops: cond / while_loop operand layouts (pt2 spec 6.6), their inlined
    subgraphs checked recursively, each in its own name space;
  * the fixture files listed in meta.json exist and are numpy .npy v1.0 files; each
    'refused_calls' input breaks a range constraint;
  * when torch and numpy are importable (skip with --no-run): every archive is executed
    from its own bytes (weights from the payloads, arguments decoded from the JSON, ATen
    kernels of the local torch) and must reproduce expected_<i>.npy and state_after_*.npy
    (the first call of a stateful method, later ones are checked by the e2e tests; every
    call of a stateless one), with every tensor's shape equal to its (evaluated) sizes.

Exit status 0 when everything passes; 1 otherwise (every problem is printed).
"""

import json
import os
import re
import struct
import sys
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "conformance"))
from schema_table import split_top  # noqa: E402
# fixtures that wait for ptec support (dynamic shapes, control flow): gen_zoo_dynamic.py
PENDING = os.path.join(os.path.dirname(HERE), "models_pending")

# ATen schemas (torch 2.9 native_functions.yaml spelling) of every op the zoo uses.
SCHEMAS = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
    "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps) "
    "-> (Tensor, Tensor, Tensor)",
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "relu(Tensor self) -> Tensor",
    "sin(Tensor self) -> Tensor",
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)",
    "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    # llama_decoder
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
    "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "neg(Tensor self) -> Tensor",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "rsqrt(Tensor self) -> Tensor",
    "silu(Tensor self) -> Tensor",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    # fixtures of test/models_pending (dynamic shapes, control flow)
    "sym_size.int(Tensor self, int dim) -> SymInt",
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    "cos(Tensor self) -> Tensor",
    # vit_encoder (and cat above), cnn_bf16, fp16_affine_pool, qdq_linear
    "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
    "MemoryFormat? memory_format=None) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "quantized_decomposed::quantize_per_tensor(Tensor input, float scale, int zero_point, "
    "int quant_min, int quant_max, ScalarType dtype) -> Tensor",
    "quantized_decomposed::dequantize_per_tensor(Tensor input, float scale, int zero_point, "
    "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
    # quantized_cnn / quantized_mlp(_pt): torch 2.x training IR after convert_pt2e
    "quantized_decomposed::dequantize_per_channel(Tensor input, Tensor scales, "
    "Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, "
    "ScalarType? out_dtype=None) -> Tensor",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
    "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
    "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
]

# Python symbolic ops (section 6.2 of the pt2 spec): positional, no schema.
SYM_OPS = {"_operator.add": lambda a, b: a + b, "_operator.sub": lambda a, b: a - b,
           "_operator.mul": lambda a, b: a * b, "_operator.floordiv": lambda a, b: a // b,
           "_operator.mod": lambda a, b: a % b, "_operator.neg": lambda a: -a,
           "_operator.eq": lambda a, b: a == b, "_operator.lt": lambda a, b: a < b,
           "_operator.le": lambda a, b: a <= b, "_operator.gt": lambda a, b: a > b,
           "_operator.ge": lambda a, b: a >= b}
HOP = "torch.ops.higher_order."

ELEMENT_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8, 11: 16, 12: 1,
                13: 2}
NPY_DTYPE = {"float32": "<f4", "int64": "<i8", "bool": "|b1", "int32": "<i4", "float64": "<f8"}


def parse_schema(s):
    m = re.match(r"^(?:(\w+)::)?([\w]+)(?:\.(\w+))?\((.*)\)\s*->\s*(.*)$", s)
    ns, name, overload = m.group(1) or "aten", m.group(2), m.group(3) or "default"
    params, rets = m.group(4), m.group(5)
    args, kwarg_only = [], False
    for p in split_top(params):
        if p == "*":
            kwarg_only = True
            continue
        decl, _, default = p.partition("=")
        ty, arg_name = decl.strip().rsplit(" ", 1)
        args.append({"name": arg_name, "type": ty, "kwarg_only": kwarg_only,
                     "has_default": bool(_)})
    rets = rets.strip()
    n_ret = len(split_top(rets[1:-1])) if rets.startswith("(") else 1
    return "torch.ops.%s.%s.%s" % (ns, name, overload), {"args": args, "n_returns": n_ret}


SCHEMA_TABLE = dict(parse_schema(s) for s in SCHEMAS)


def parse_expr(text):
    """A sympy srepr string (Symbol, Integer, Add, Mul, Pow) as a nested tuple:
    ('sym', name) | ('int', n) | (op, [args]). Raises ValueError on anything else."""
    pos = [0]

    def skip():
        while pos[0] < len(text) and text[pos[0]] in " ,":
            pos[0] += 1

    def node():
        skip()
        m = re.match(r"(\w+)\(", text[pos[0]:])
        if not m:
            raise ValueError("bad expression at %d: %r" % (pos[0], text))
        head = m.group(1)
        pos[0] += m.end()
        if head == "Symbol":
            m = re.match(r"'(\w+)'((?:, \w+=(?:True|False))*)\)", text[pos[0]:])
            if not m:
                raise ValueError("bad Symbol in %r" % text)
            pos[0] += m.end()
            return ("sym", m.group(1))
        if head == "Integer":
            m = re.match(r"(-?\d+)\)", text[pos[0]:])
            if not m:
                raise ValueError("bad Integer in %r" % text)
            pos[0] += m.end()
            return ("int", int(m.group(1)))
        if head not in ("Add", "Mul", "Pow"):
            raise ValueError("unsupported sympy function %s in %r" % (head, text))
        args = []
        while True:
            skip()
            if text[pos[0]] == ")":
                pos[0] += 1
                return (head, args)
            args.append(node())

    e = node()
    if pos[0] != len(text):
        raise ValueError("trailing text in %r" % text)
    return e


def eval_expr(e, env):
    k = e[0]
    if k == "sym":
        return env[e[1]]
    if k == "int":
        return e[1]
    vals = [eval_expr(a, env) for a in e[1]]
    if k == "Add":
        return sum(vals)
    if k == "Mul":
        r = 1
        for v in vals:
            r *= v
        return r
    return vals[0] ** vals[1]


def expr_symbols(e):
    if e[0] == "sym":
        return {e[1]}
    if e[0] == "int":
        return set()
    return set().union(*[expr_symbols(a) for a in e[1]])


def symint_value(s, env):
    """A SymInt union ({"as_int"} / {"as_expr"}) evaluated with the symbol values."""
    if "as_int" in s:
        return s["as_int"]
    return eval_expr(parse_expr(s["as_expr"]["expr_str"]), env)


def sym_names(arg):
    """Names of symbolic ints an Argument refers to."""
    (k, v), = arg.items()
    if k == "as_sym_int":
        return [v["as_name"]] if "as_name" in v else []
    if k == "as_sym_ints":
        return [x["as_name"] for x in v if "as_name" in x]
    return []


class Checker:
    def __init__(self):
        self.errors = []

    def check(self, cond, msg):
        if not cond:
            self.errors.append(msg)
        return cond


def check_zip(c, path, raw):
    where = os.path.relpath(path)
    eocd = raw.rfind(b"PK\x05\x06")
    c.check(eocd >= 0, "%s: no end of central directory" % where)
    c.check(raw.rfind(b"PK\x06\x06") >= 0 and raw.rfind(b"PK\x06\x07") >= 0,
            "%s: no ZIP64 end records" % where)
    zf = zipfile.ZipFile(path)
    for info in zf.infolist():
        off = info.header_offset
        sig, _ver, flags, method = struct.unpack_from("<IHHH", raw, off)
        c.check(sig == 0x04034B50, "%s: %s bad local header" % (where, info.filename))
        c.check(method == 0 and info.compress_type == 0,
                "%s: %s is not STORED" % (where, info.filename))
        c.check(flags == 0x0808, "%s: %s flags 0x%x" % (where, info.filename, flags))
        nlen, elen = struct.unpack_from("<HH", raw, off + 26)
        extra = raw[off + 30 + nlen: off + 30 + nlen + elen]
        c.check(extra[:2] == b"FB", "%s: %s has no FB padding field" % (where, info.filename))
        start = off + 30 + nlen + elen
        c.check(start % 64 == 0, "%s: %s data at %d is not 64-byte aligned"
                % (where, info.filename, start))
        data = raw[start:start + info.file_size]
        c.check(zlib.crc32(data) & 0xFFFFFFFF == info.CRC, "%s: %s CRC" % (where, info.filename))
        desc = raw[start + info.file_size: start + info.file_size + 16]
        c.check(desc[:4] == b"PK\x07\x08" and
                struct.unpack_from("<III", desc, 4) == (info.CRC, info.file_size, info.file_size),
                "%s: %s bad data descriptor" % (where, info.filename))
    return zf


def tensor_names(arg):
    (k, v), = arg.items()
    if k == "as_tensor":
        return [v["name"]]
    if k == "as_tensors":
        return [t["name"] for t in v]
    if k == "as_optional_tensors":
        return [t["as_tensor"]["name"] for t in v if "as_tensor" in t]
    return []


def check_node_schema(c, where, node):
    sch = SCHEMA_TABLE.get(node["target"])
    if not c.check(sch is not None, "%s: op %s not in the schema table" % (where, node["target"])):
        return
    names = [a["name"] for a in sch["args"]]
    pos = -1
    given = set()
    for inp in node["inputs"]:
        nm = inp["name"]
        if not c.check(nm in names, "%s: %s has no argument %r" % (where, node["target"], nm)):
            continue
        i = names.index(nm)
        c.check(i > pos, "%s: %s argument %r out of schema order" % (where, node["target"], nm))
        pos = i
        given.add(nm)
        want_kind = 2 if sch["args"][i]["kwarg_only"] else 1
        c.check(inp["kind"] == want_kind, "%s: %s argument %r kind %s, want %s"
                % (where, node["target"], nm, inp["kind"], want_kind))
    for a in sch["args"]:
        c.check(a["has_default"] or a["name"] in given,
                "%s: %s misses required argument %r" % (where, node["target"], a["name"]))
    c.check(len(node["outputs"]) == sch["n_returns"], "%s: %s has %d outputs, schema %d"
            % (where, node["target"], len(node["outputs"]), sch["n_returns"]))


def check_symints(c, where, g, symbols):
    """Every SymInt of tensor_values / sym_int_values parses; collects its symbols and
    checks that the hint equals the expression at the hinted symbol values."""
    def one(s, what):
        if "as_int" in s:
            return
        if not c.check("as_expr" in s, "%s: %s: unknown SymInt %s" % (where, what, s)):
            return
        try:
            e = parse_expr(s["as_expr"]["expr_str"])
        except ValueError as err:
            c.check(False, "%s: %s: %s" % (where, what, err))
            return
        symbols.setdefault("uses", []).append((e, (s["as_expr"].get("hint") or {}).get("as_int"),
                                               what))
        for sym in expr_symbols(e):
            symbols.setdefault("names", set()).add(sym)
            # a bare symbol's hint is the symbol's example value
            if e[0] == "sym" and s["as_expr"].get("hint"):
                h = s["as_expr"]["hint"]["as_int"]
                prev = symbols.setdefault("hints", {}).setdefault(sym, h)
                c.check(prev == h, "%s: %s: symbol %s hinted %d and %d" % (where, what, sym,
                                                                         prev, h))

    for name, tm in g["tensor_values"].items():
        for i, d in enumerate(tm["sizes"]):
            one(d, "%s size %d" % (name, i))
        for i, d in enumerate(tm["strides"]):
            one(d, "%s stride %d" % (name, i))
        one(tm["storage_offset"], "%s storage offset" % name)
    for name, v in g.get("sym_int_values", {}).items():
        one(v, "symbolic int %s" % name)


def check_hop(c, where, node):
    """Operand layouts of pt2 spec section 6.6 (cond, while_loop)."""
    hop = node["target"][len(HOP):]
    args = [i["arg"] for i in node["inputs"]]
    c.check(all(i["name"] == "" and i["kind"] == 1 for i in node["inputs"]),
            "%s: HOP inputs must be positional and unnamed" % where)
    graphs = [a["as_graph"]["graph"] for a in args if "as_graph" in a]
    if hop == "cond":
        if not c.check(len(args) == 4 and "as_graph" in args[1] and "as_graph" in args[2]
                       and "as_tensors" in args[3] and
                       ("as_tensor" in args[0] or "as_sym_bool" in args[0]
                        or "as_bool" in args[0]),
                       "%s: cond takes (pred, true graph, false graph, operands)" % where):
            return
        n_ops = len(args[3]["as_tensors"])
        for gr in graphs:
            c.check(len(gr["inputs"]) == n_ops, "%s: branch takes %d inputs, %d operands"
                    % (where, len(gr["inputs"]), n_ops))
            c.check(len(gr["outputs"]) == len(node["outputs"]),
                    "%s: branch returns %d values, the node %d"
                    % (where, len(gr["outputs"]), len(node["outputs"])))
    elif hop == "while_loop":
        if not c.check(len(args) == 4 and "as_graph" in args[0] and "as_graph" in args[1]
                       and "as_tensors" in args[2] and "as_tensors" in args[3],
                       "%s: while_loop takes (cond graph, body graph, carried, additional)"
                       % where):
            return
        n_car, n_add = len(args[2]["as_tensors"]), len(args[3]["as_tensors"])
        for gr in graphs:
            c.check(len(gr["inputs"]) == n_car + n_add, "%s: subgraph takes %d inputs, want %d"
                    % (where, len(gr["inputs"]), n_car + n_add))
        c.check(len(graphs[0]["outputs"]) == 1, "%s: cond graph must return one value" % where)
        c.check(len(graphs[1]["outputs"]) == n_car, "%s: body returns %d values, %d carried"
                % (where, len(graphs[1]["outputs"]), n_car))
        c.check(len(node["outputs"]) == n_car, "%s: %d outputs, %d carried"
                % (where, len(node["outputs"]), n_car))
    else:
        c.check(False, "%s: unknown higher-order op %s" % (where, hop))


def check_graph_body(c, where, g, symbols):
    """Names defined once and before use, tensor_values / sym_int_values entries, node
    schemas; subgraphs (as_graph) recursively, each in its own name space."""
    tv = g["tensor_values"]
    sv = g.get("sym_int_values", {})
    defined, defined_syms = set(), set()
    check_symints(c, where, g, symbols)

    def define(name):
        c.check(name not in defined, "%s: %s defined twice" % (where, name))
        c.check(name in tv, "%s: %s has no tensor_values entry" % (where, name))
        defined.add(name)

    def define_sym(name):
        c.check(name not in defined_syms, "%s: %s defined twice" % (where, name))
        c.check(name in sv, "%s: %s has no sym_int_values entry" % (where, name))
        defined_syms.add(name)

    for a in g["inputs"]:
        for n in tensor_names(a):
            define(n)
        for n in sym_names(a):
            define_sym(n)
    for i, node in enumerate(g["nodes"]):
        nw = "%s node %d (%s)" % (where, i, node["target"])
        for inp in node["inputs"]:
            for n in tensor_names(inp["arg"]):
                c.check(n in defined, "%s: uses %s before definition" % (nw, n))
                c.check(n in tv, "%s: %s not in tensor_values" % (nw, n))
            for n in sym_names(inp["arg"]):
                c.check(n in defined_syms, "%s: uses symbolic int %s before definition"
                        % (nw, n))
            if "as_graph" in inp["arg"]:
                sub = inp["arg"]["as_graph"]
                check_graph_body(c, "%s/%s" % (where, sub["name"]), sub["graph"], symbols)
        for o in node["outputs"]:
            for n in tensor_names(o):
                define(n)
            for n in sym_names(o):
                define_sym(n)
        if node["target"].startswith(HOP):
            check_hop(c, nw, node)
        elif node["target"] in SYM_OPS:
            c.check(all(i["kind"] == 1 for i in node["inputs"]),
                    "%s: symbolic op inputs must be positional" % nw)
        else:
            check_node_schema(c, nw, node)
        st = node["metadata"].get("stack_trace", "")
        c.check(not re.search(r'File "/', st), "%s: absolute path in stack trace" % nw)
    for a in g["outputs"]:
        for n in tensor_names(a):
            c.check(n in defined, "%s: graph output %s undefined" % (where, n))
        for n in sym_names(a):
            c.check(n in defined_syms, "%s: graph output %s undefined" % (where, n))
    c.check(set(tv) == defined, "%s: tensor_values has unused entries %s"
            % (where, sorted(set(tv) - defined)))
    c.check(set(sv) == defined_syms, "%s: sym_int_values has unused entries %s"
            % (where, sorted(set(sv) - defined_syms)))


def check_graph(c, where, ep):
    c.check(ep["schema_version"]["major"] == 8, "%s: schema major != 8" % where)
    gm = ep["graph_module"]
    g = gm["graph"]
    symbols = {}
    check_graph_body(c, where, g, symbols)
    # every symbol is bounded by range_constraints; hints lie in the range and agree
    rc = ep.get("range_constraints", {})
    for sym in sorted(symbols.get("names", ())):
        r = rc.get(sym)
        if not c.check(r is not None, "%s: symbol %s has no range_constraints entry"
                       % (where, sym)):
            continue
        lo, hi = r.get("min_val"), r.get("max_val")
        c.check(lo is None or hi is None or lo <= hi, "%s: %s range [%s, %s]" % (where, sym,
                                                                                 lo, hi))
        h = symbols.get("hints", {}).get(sym)
        c.check(h is not None and (lo is None or lo <= h) and (hi is None or h <= hi),
                "%s: symbol %s hint %s outside [%s, %s]" % (where, sym, h, lo, hi))
    hints = symbols.get("hints", {})
    for e, h, what in symbols.get("uses", []):
        if h is not None and expr_symbols(e) <= set(hints):
            c.check(eval_expr(e, hints) == h, "%s: %s hint %d, expression gives %d"
                    % (where, what, h, eval_expr(e, hints)))
    sig = gm["signature"]
    c.check(len(sig["input_specs"]) == len(g["inputs"]), "%s: input spec count" % where)
    c.check(len(sig["output_specs"]) == len(g["outputs"]), "%s: output spec count" % where)
    for spec, a in zip(sig["input_specs"], g["inputs"]):
        (k, v), = spec.items()
        nm = v["arg"]["as_tensor"]["name"] if k == "user_input" else v["arg"]["name"]
        c.check(tensor_names(a) == [nm], "%s: input spec %s does not match graph input" % (where, nm))
    for spec, a in zip(sig["output_specs"], g["outputs"]):
        (k, v), = spec.items()
        nm = v["arg"]["as_tensor"]["name"] if k == "user_output" else v["arg"]["name"]
        c.check(tensor_names(a) == [nm], "%s: output spec %s does not match" % (where, nm))
    root = [e for e in gm["module_call_graph"] if e["fqn"] == ""]
    c.check(len(root) == 1 and root[0]["signature"] is not None,
            "%s: module_call_graph root entry" % where)
    if root and root[0]["signature"]:
        for key in ("in_spec", "out_spec"):
            spec = json.loads(root[0]["signature"][key])
            c.check(spec[0] == 1, "%s: %s protocol" % (where, key))


def check_archive(c, path):
    where = os.path.relpath(path)
    raw = open(path, "rb").read()
    zf = check_zip(c, path, raw)
    names = zf.namelist()
    fmt = [n for n in names if n.endswith("/archive_format") and n.count("/") == 1]
    if not c.check(len(fmt) == 1, "%s: no archive_format record" % where):
        return None
    root = fmt[0].split("/")[0]

    def rd(rel):
        return zf.read("%s/%s" % (root, rel))

    c.check(rd("archive_format") == b"pt2", "%s: archive_format" % where)
    c.check(rd("archive_version") == b"0", "%s: archive_version" % where)
    c.check(rd("byteorder") == b"little", "%s: byteorder" % where)
    c.check(rd(".data/version") == b"6\n", "%s: .data/version" % where)
    ep = json.loads(rd("models/model.json"))
    wcfg = json.loads(rd("data/weights/model_weights_config.json"))["config"]
    ccfg = json.loads(rd("data/constants/model_constants_config.json"))["config"]
    check_graph(c, where, ep)
    tv = ep["graph_module"]["graph"]["tensor_values"]
    for spec in ep["graph_module"]["signature"]["input_specs"]:
        (k, v), = spec.items()
        if k == "parameter" or (k == "buffer" and v["persistent"]):
            fqn = v.get("parameter_name") or v.get("buffer_name")
            cfg = wcfg
        elif k in ("buffer", "tensor_constant"):
            fqn = v.get("buffer_name") or v.get("tensor_constant_name")
            cfg = ccfg
        else:
            continue
        if not c.check(fqn in cfg, "%s: weight %s missing from config" % (where, fqn)):
            continue
        meta = cfg[fqn]
        c.check(meta["use_pickle"] is False, "%s: %s is pickled" % (where, fqn))
        tm = meta["tensor_meta"]
        numel = 1
        for s in tm["sizes"]:
            numel *= s["as_int"]
        sub = "weights" if cfg is wcfg else "constants"
        blob = rd("data/%s/%s" % (sub, meta["path_name"]))
        c.check(len(blob) == numel * ELEMENT_SIZE[tm["dtype"]],
                "%s: weight %s has %d bytes, want %d" % (where, fqn, len(blob),
                                                         numel * ELEMENT_SIZE[tm["dtype"]]))
        gmeta = tv[v["arg"]["name"]]
        c.check(gmeta["dtype"] == tm["dtype"] and gmeta["sizes"] == tm["sizes"],
                "%s: weight %s meta differs from the graph's" % (where, fqn))
        c.check(meta["is_param"] == (k == "parameter"), "%s: %s is_param" % (where, fqn))
    return ep


def check_npy(c, path, dtype, shape):
    where = os.path.relpath(path)
    if not c.check(os.path.exists(path), "%s: missing" % where):
        return
    b = open(path, "rb").read()
    c.check(b[:8] == b"\x93NUMPY\x01\x00", "%s: not a .npy v1.0 file" % where)
    hlen = struct.unpack_from("<H", b, 8)[0]
    header = b[10:10 + hlen].decode("latin1")
    c.check((10 + hlen) % 64 == 0, "%s: header not 64-byte padded" % where)
    c.check("'descr': '%s'" % NPY_DTYPE[dtype] in header, "%s: dtype %s" % (where, header))
    c.check("'fortran_order': False" in header, "%s: not C order" % where)
    shp = "(%d,)" % shape[0] if len(shape) == 1 else \
        "(%s)" % ", ".join(str(d) for d in shape)
    c.check("'shape': %s" % shp in header, "%s: shape %s, header %s" % (where, shape, header))
    n = 1
    for d in shape:
        n *= d
    size = int(NPY_DTYPE[dtype][2:])
    c.check(len(b) == 10 + hlen + n * size, "%s: payload size" % where)


def run_archive(c, path, inputs):
    """Execute the archive's graph from the archive alone (weights from the payloads,
    arguments decoded from the JSON) with the local torch's ATen kernels. Returns
    {output spec index: numpy array} or None when torch is not importable."""
    try:
        import numpy as np
        import torch
    except ImportError:
        return None
    zf = zipfile.ZipFile(path)
    root = [n for n in zf.namelist() if n.endswith("/archive_format")][0].split("/")[0]
    ep = json.loads(zf.read(root + "/models/model.json"))
    wcfg = json.loads(zf.read(root + "/data/weights/model_weights_config.json"))["config"]
    np_dtype = {7: "<f4", 5: "<i8", 12: "|b1", 4: "<i4", 8: "<f8", 6: "<i2", 13: "<i2",
                1: "|u1", 2: "|i1"}
    half = {6: torch.float16, 13: torch.bfloat16}   # numpy has no bfloat16: int16 bits
    g = ep["graph_module"]["graph"]
    env = {}
    users = iter(inputs)
    for spec, a in zip(ep["graph_module"]["signature"]["input_specs"], g["inputs"]):
        (k, v), = spec.items()
        name = tensor_names(a)[0]
        if k in ("parameter", "buffer"):
            meta = wcfg[v.get("parameter_name") or v.get("buffer_name")]
            tm = meta["tensor_meta"]
            raw = zf.read("%s/data/weights/%s" % (root, meta["path_name"]))
            flat = torch.from_numpy(np.frombuffer(raw, dtype=np_dtype[tm["dtype"]]).copy())
            if tm["dtype"] in half:
                flat = flat.view(half[tm["dtype"]])
            env[name] = flat.as_strided(
                [s["as_int"] for s in tm["sizes"]], [s["as_int"] for s in tm["strides"]],
                tm["storage_offset"]["as_int"])
        else:
            env[name] = torch.from_numpy(np.array(next(users)))

    where = os.path.relpath(path)
    # symbol values, bound from the user inputs' declared sizes (a bare symbol there)
    binding = {}
    for spec, a in zip(ep["graph_module"]["signature"]["input_specs"], g["inputs"]):
        name = tensor_names(a)[0]
        for i, d in enumerate(g["tensor_values"][name]["sizes"]):
            if "as_expr" in d:
                e = parse_expr(d["as_expr"]["expr_str"])
                if e[0] == "sym":
                    got = int(env[name].shape[i])
                    c.check(binding.setdefault(e[1], got) == got,
                            "%s: inputs disagree on symbol %s" % (where, e[1]))
    for sym, val in binding.items():
        r = ep.get("range_constraints", {}).get(sym, {})
        c.check((r.get("min_val") is None or r["min_val"] <= val) and
                (r.get("max_val") is None or val <= r["max_val"]),
                "%s: %s = %d is outside its range_constraints" % (where, sym, val))
    run_graph(c, where, g, env, binding)
    return [env[tensor_names(a)[0]].numpy() for a in g["outputs"]], ep


def run_graph(c, where, g, env, binding):
    """Runs one graph (method body or subgraph) in `env`, checking every tensor's
    shape against its tensor_values entry (symbolic sizes evaluated with `binding`)."""
    import torch
    torch_dtype = {6: torch.float16, 13: torch.bfloat16, 1: torch.uint8, 2: torch.int8,
                   7: torch.float32, 5: torch.int64, 12: torch.bool, 4: torch.int32,
                   8: torch.float64}
    mem_fmt = {1: torch.contiguous_format, 2: torch.channels_last, 4: torch.preserve_format}

    def decode(a):
        (k, v), = a.items()
        if k == "as_tensor":
            return env[v["name"]]
        if k == "as_tensors":
            return [env[t["name"]] for t in v]
        if k == "as_optional_tensors":
            return [env[t["as_tensor"]["name"]] if "as_tensor" in t else None for t in v]
        if k == "as_none":
            return None
        if k == "as_scalar_type":
            return torch_dtype[v]
        if k == "as_layout":
            return torch.strided
        if k == "as_device":
            return torch.device(v["type"])
        if k == "as_memory_format":
            return mem_fmt[v]
        if k == "as_sym_int":
            return env[v["as_name"]] if "as_name" in v else v["as_int"]
        if k == "as_sym_ints":
            return [env[x["as_name"]] if "as_name" in x else x["as_int"] for x in v]
        if k == "as_graph":
            return v["graph"]
        return v

    def call_sub(sub, args):
        sub_env = {}
        for a, val in zip(sub["inputs"], args):
            sub_env[tensor_names(a)[0]] = val
        run_graph(c, where, sub, sub_env, binding)
        return [sub_env[tensor_names(a)[0]] for a in sub["outputs"]]

    def check_shape(name, val):
        tm = g["tensor_values"].get(name)
        if tm is None or not isinstance(val, torch.Tensor):
            return
        try:
            want = [symint_value(d, binding) for d in tm["sizes"]]
        except KeyError:
            return   # a symbol no input binds (not in the zoo)
        c.check(list(val.shape) == want, "%s: %s has shape %s, tensor_values says %s"
                % (where, name, list(val.shape), want))

    for a in g["inputs"]:
        for n in tensor_names(a):
            check_shape(n, env[n])
    for node in g["nodes"]:
        target = node["target"]
        args = [decode(i["arg"]) for i in node["inputs"] if i["kind"] == 1]
        kwargs = {i["name"]: decode(i["arg"]) for i in node["inputs"] if i["kind"] == 2}
        if target == HOP + "cond":
            pred, true_g, false_g, ops = args
            res = call_sub(true_g if bool(pred) else false_g, ops)
        elif target == HOP + "while_loop":
            cond_g, body_g, carried, extra = args
            while bool(call_sub(cond_g, carried + extra)[0]):
                carried = call_sub(body_g, carried + extra)
            res = carried
        elif target in SYM_OPS:
            res = [SYM_OPS[target](*args)]
        else:
            _, _, ns, op, overload = target.split(".")
            if ns == "quantized_decomposed":
                import zoo_models  # noqa: F401  (defines the ops where torch lacks them)
                packet = getattr(torch.ops.quantized_decomposed, op)
                res = getattr(packet, overload)(*args, **kwargs)
            elif op == "_native_batch_norm_legit_no_training" and \
                    not hasattr(torch.ops.aten, op):
                res = torch.ops.aten.native_batch_norm.default(*args[:5], False, *args[5:])
            else:
                res = getattr(getattr(torch.ops.aten, op), overload)(*args, **kwargs)
            if len(node["outputs"]) == 1:
                res = [res]
        for o, r in zip(node["outputs"], res):
            for n in tensor_names(o):
                env[n] = r
                check_shape(n, r)
            for n in sym_names(o):
                env[n] = int(r)
                want = symint_value(g["sym_int_values"][n], binding)
                c.check(int(r) == want, "%s: symbolic int %s is %d, sym_int_values says %d"
                        % (where, n, int(r), want))


def check_fixture_run(c, d, meta):
    """Run every archive of a fixture folder from its bytes alone and compare with the
    stored reference outputs and post-call state: the first call of a stateful method,
    every recorded call of a stateless one (several shapes / values)."""
    try:
        import numpy as np
    except ImportError:
        return
    for m in meta["methods"]:
        calls = m.get("calls", [m])
        stateful = any(call["buffers_after"] for call in calls)
        for k, call in enumerate(calls[:1] if stateful else calls):
            inputs = [np.load(os.path.join(d, i["file"])) for i in call["inputs"]]
            r = run_archive(c, os.path.join(d, m["file"]), inputs)
            if r is None:
                return
            results, ep = r
            where = os.path.relpath(os.path.join(d, m["file"]))
            users = iter(call["outputs"])
            for spec, got in zip(ep["graph_module"]["signature"]["output_specs"], results):
                (kind, v), = spec.items()
                if kind in ("user_output", "user_input_mutation"):
                    fn = next(users)["file"]  # both stay method outputs, in order
                else:
                    fn = call["buffers_after"][v["buffer_name"]]
                want = np.load(os.path.join(d, fn))
                c.check(got.shape == want.shape and got.dtype == want.dtype and
                        np.allclose(got, want, rtol=meta["rtol"], atol=meta["atol"]),
                        "%s: running the archive does not reproduce %s" % (where, fn))
        print("ran   %s: outputs and state match the references (%d call(s))"
              % (where, 1 if stateful else len(calls)))


def check_refused(c, d, m):
    """meta 'refused_calls': inputs the runtime must refuse. Each must break a bound of
    the archive's range_constraints (a symbol bound by an input size)."""
    refused = m.get("refused_calls", [])
    if not refused:
        return
    zf = zipfile.ZipFile(os.path.join(d, m["file"]))
    root = [n for n in zf.namelist() if n.endswith("/archive_format")][0].split("/")[0]
    ep = json.loads(zf.read(root + "/models/model.json"))
    g = ep["graph_module"]["graph"]
    users = [tensor_names(a)[0] for spec, a in
             zip(ep["graph_module"]["signature"]["input_specs"], g["inputs"])
             if "user_input" in spec]
    for k, call in enumerate(refused):
        where = "%s refused_calls[%d]" % (os.path.relpath(d), k)
        c.check(isinstance(call.get("error"), str) and call["error"],
                "%s: no expected error text" % where)
        broken = []
        for name, io in zip(users, call["inputs"]):
            for i, dim in enumerate(g["tensor_values"][name]["sizes"]):
                if "as_expr" not in dim:
                    continue
                e = parse_expr(dim["as_expr"]["expr_str"])
                r = ep["range_constraints"].get(e[1], {}) if e[0] == "sym" else {}
                v = io["shape"][i]
                if (r.get("min_val") is not None and v < r["min_val"]) or \
                        (r.get("max_val") is not None and v > r["max_val"]):
                    broken.append(e[1])
        c.check(broken, "%s: the inputs respect every range constraint" % where)


def check_fixture_dir(c, d):
    meta_path = os.path.join(d, "meta.json")
    if not os.path.exists(meta_path):
        return
    meta = json.load(open(meta_path))
    for m in meta["methods"]:
        c.check(os.path.exists(os.path.join(d, m["file"])), "%s: %s missing" % (d, m["file"]))
        for call in m.get("calls", [m]):
            for io in call["inputs"] + call["outputs"]:
                check_npy(c, os.path.join(d, io["file"]), io["dtype"], io["shape"])
            for fqn, fn in call["buffers_after"].items():
                c.check(os.path.exists(os.path.join(d, fn)), "%s: %s missing" % (d, fn))
        for call in m.get("refused_calls", []):
            for io in call["inputs"]:
                check_npy(c, os.path.join(d, io["file"]), io["dtype"], io["shape"])
        check_refused(c, d, m)
    for k, call in enumerate(meta.get("sequence", [])):  # ordered multi-method calls
        c.check(call["method"] in [m["method"] for m in meta["methods"]],
                "%s: sequence call %d names an unknown method" % (d, k))
        for io in call["inputs"] + call["outputs"]:
            check_npy(c, os.path.join(d, io["file"]), io["dtype"], io["shape"])
        for fqn, fn in call["buffers_after"].items():
            c.check(os.path.exists(os.path.join(d, fn)), "%s: %s missing" % (d, fn))
    if RUN:
        check_fixture_run(c, d, meta)


def cross_check_with_torch(c):
    """When torch is importable, compare the embedded schema table with its schemas
    (argument names, order and keyword-only flags). Ops the local torch lacks are skipped."""
    try:
        import torch
    except ImportError:
        return
    for target, sch in SCHEMA_TABLE.items():
        _, _, ns, op, overload = target.split(".")
        if ns != "aten":
            continue   # quantized_decomposed: not in every torch
        packet = getattr(torch.ops.aten, op, None)
        if packet is None:
            continue
        try:
            real = getattr(packet, overload)._schema.arguments
        except (AttributeError, RuntimeError):
            continue
        got = [(a.name, a.kwarg_only) for a in real]
        want = [(a["name"], a["kwarg_only"]) for a in sch["args"]]
        c.check(got == want, "schema table entry %s differs from torch %s: %s"
                % (target, torch.__version__, got))


RUN = True


def main(argv):
    global RUN
    if "--no-run" in argv:
        RUN = False
        argv = [a for a in argv if a != "--no-run"]
    roots = argv or [HERE] + ([PENDING] if os.path.isdir(PENDING) else [])
    c = Checker()
    cross_check_with_torch(c)
    archives = []
    for r in roots:
        if os.path.isfile(r):
            archives.append(r)
            continue
        for dp, dirs, fns in os.walk(r):
            # Programs written by upstream's exporter (.pte, their own meta.json
            # layout), checked by test/e2e/xnnpack/run_upstream_conformance.py.
            dirs[:] = [d for d in dirs if d != "upstream_xnnpack"]
            archives += [os.path.join(dp, f) for f in fns if f.endswith(".pt2")]
            if "meta.json" in fns:
                check_fixture_dir(c, dp)
    for a in sorted(archives):
        n0 = len(c.errors)
        ep = check_archive(c, a)
        n_nodes = len(ep["graph_module"]["graph"]["nodes"]) if ep else 0
        print("%-5s %s (%d nodes)" % ("ok" if len(c.errors) == n0 else "FAIL",
                                      os.path.relpath(a), n_nodes))
    for e in c.errors:
        print("error:", e)
    if not archives:
        print("error: no .pt2 archives found")
        return 1
    print("%d archives, %d errors" % (len(archives), len(c.errors)))
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
