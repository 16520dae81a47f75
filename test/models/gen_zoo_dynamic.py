#!/usr/bin/python3
"""Generate the fixtures that need dynamic shapes or control flow (real models).

torch 1.13 (Debian's python3-torch) has no torch.export, no symbolic export and no
torch.cond / while_loop, so the archives are written the way torch 2.9's
`torch.export.export(m, args, dynamic_shapes=...).run_decompositions()` +
`torch.export.save` writes them, with gen_zoo.py's tracer and writer:

* dynamic shapes (dyn_mlp, dyn_attention): the model is traced statically by gen_zoo at
  three values of the dynamic dim (hint, hint+1, hint+2). The graphs must be identical
  except for integer arguments; every integer that follows the dim (a == v at every
  value) becomes a use of one `torch.ops.aten.sym_size.int(x, dim)` node (`as_sym_int` /
  `as_sym_ints` arguments), placed first, where torch 2.9 puts the `x.shape` read.
  Anything else that varies is refused. The resulting graph is then RUN at four values
  and every size, stride and storage offset is fitted to an integer polynomial (degree
  <= 2) in the symbol, checked at the fourth value, and written as a sympy `srepr`
  expression with the hint's value (`{"as_expr": {"expr_str": ..., "hint": {"as_int"}}}`).
  `range_constraints` holds the symbol's bounds.
* control flow (cond_model, while_model): each branch / loop function is traced by
  gen_zoo (static shapes) into its own graph; the method graph is assembled by hand
  around a `torch.ops.higher_order.cond` / `while_loop` node whose operands follow the
  pt2 spec, section 6.6 (subgraphs inlined as `as_graph`, names `true_graph_0`,
  `false_graph_0`, `while_loop_cond_graph_0`, `while_loop_body_graph_0`).

Every program is executed here (symbolic graphs at every recorded shape, HOPs with
Python if/while over their subgraphs) and must match the eager module of
zoo_models_dynamic.py, which also gives the reference outputs.

Usage (from the repository root):
    /usr/bin/python3 test/models/gen_zoo_dynamic.py [--out DIR] [--only NAME ...]
writes test/models_pending/<name>/ (outside test/models until ptec supports them).
Deterministic: rerunning gives byte-identical files (check_zoo.py checks it).
"""

import argparse
import contextlib
import inspect
import json
import operator
import os
import sys
import zlib
from fractions import Fraction

import sympy
import torch
import torch.fx
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_zoo as gz  # noqa: E402
import zoo_models_dynamic as zd  # noqa: E402
from zoo_calls import call_files, method_meta, npy_bytes, NP_DTYPE  # noqa: E402

MODELS_FILE = os.path.abspath(zd.__file__).replace(".pyc", ".py")
MODELS_REL = "test/models/zoo_models_dynamic.py"   # path written into stack traces
# Until ptec compiles them, the fixtures live OUTSIDE test/models (whose every .pt2 and
# meta.json the reader, determinism and conformance tests take): test/models_pending/<name>/.
PENDING_DIR = os.path.join(os.path.dirname(HERE), "models_pending")

aten = torch.ops.aten


@contextlib.contextmanager
def models_file():
    """gen_zoo's tracer keeps stack frames of its models file only: point it at ours."""
    saved = gz.MODELS_FILE, gz.MODELS_REL
    gz.MODELS_FILE, gz.MODELS_REL = MODELS_FILE, MODELS_REL
    try:
        yield
    finally:
        gz.MODELS_FILE, gz.MODELS_REL = saved


def frame(cls, method, snippet, rel=MODELS_REL):
    """A stack_trace frame (repository-relative path `rel`) for the line of cls.method
    holding `snippet`, in the format gen_zoo's tracer writes."""
    lines, start = inspect.getsourcelines(getattr(cls, method))
    for k, line in enumerate(lines):
        if snippet in line:
            return '  File "%s", line %d, in %s\n    %s\n' % (rel, start + k, method,
                                                           line.strip())
    raise KeyError(snippet)


def _build(cls, seed):
    torch.manual_seed(seed)
    return cls().eval()


def _randn(seed_text, shape):
    gen = torch.Generator().manual_seed(zlib.crc32(seed_text.encode()))
    return torch.randn(*shape, generator=gen)


# --------------------------------------------------------------------------------------
# Higher-order ops: executable stand-ins for torch.ops.higher_order.{cond,while_loop}
# --------------------------------------------------------------------------------------
class Hop(gz.FutureOp):
    """A HOP node target. Its subgraph operands are gen_zoo Programs."""

    def __init__(self, name, impl):
        super().__init__(name, "", [], None, impl)

    @property
    def target_string(self):
        return "torch.ops.higher_order.%s" % self.packet_name


def _run_sub(prog, args):
    _, res = gz.run_program(prog, [], list(args))
    return res


def _cond_impl(pred, true_graph, false_graph, operands):
    return tuple(_run_sub(true_graph if bool(pred) else false_graph, operands))


def _while_impl(cond_graph, body_graph, carried, additional):
    carried = list(carried)
    while bool(_run_sub(cond_graph, carried + list(additional))[0]):
        carried = _run_sub(body_graph, carried + list(additional))
    return tuple(carried)


COND = Hop("cond", _cond_impl)
WHILE_LOOP = Hop("while_loop", _while_impl)


def is_sym(a):
    return isinstance(a, torch.fx.Node) and a.target is aten.sym_size.int


# --------------------------------------------------------------------------------------
# Serialization: gen_zoo's Serializer plus symbolic sizes, SymInt values and HOPs
# --------------------------------------------------------------------------------------
class Serializer(gz.Serializer):
    metas = {}       # id(tensor at the hint) -> symbolic TensorMeta
    sym_exprs = {}   # sym node -> sympy expression
    graph_names = {}  # subgraph Program -> attribute name

    def __init__(self, prog, env):
        super().__init__(prog, env)
        self.sym_int_values = {}

    def arg(self, a, arg_type=None):
        if is_sym(a):
            return {"as_sym_int": {"as_name": self.names[a]}}
        if isinstance(a, (list, tuple)) and any(is_sym(x) for x in a):
            return {"as_sym_ints": [{"as_name": self.names[x]} if is_sym(x) else
                                    {"as_int": x} for x in a]}
        if isinstance(a, gz.Program):
            return {"as_graph": {"name": self.graph_names[a], "graph": subgraph_json(a)}}
        return super().arg(a, arg_type)

    def inputs(self, node):
        if isinstance(node.target, Hop):   # no schema: every argument positional, no name
            return [{"name": "", "arg": self.arg(a), "kind": gz.POSITIONAL}
                    for a in node.args]
        return super().inputs(node)

    def outputs(self, node):
        if is_sym(node):
            nm = self.names[node]
            self.sym_int_values[nm] = symint_json(self.sym_exprs[node], self.env[node])
            return [{"as_sym_int": {"as_name": nm}}]
        if isinstance(node.target, Hop):
            by_index = {u.args[1]: u for u in node.users}
            res = []
            for i, v in enumerate(self.env[node]):
                nm = self.names[by_index[i]] if i in by_index else \
                    "%s_unused_%d" % (self.names[node], i)
                self.add_tensor(nm, v)
                res.append({"as_tensor": {"name": nm}})
            return res
        return super().outputs(node)

    def add_tensor(self, name, t, requires_grad=False):
        super().add_tensor(name, t, requires_grad)
        if id(t) in self.metas:
            meta = dict(self.metas[id(t)])
            meta["requires_grad"] = bool(requires_grad)
            self.tensor_values[name] = meta

    def graph(self):
        g = super().graph()
        g["sym_int_values"] = self.sym_int_values
        hop_nodes = [n for n in self.prog.graph.nodes
                     if n.op == "call_function" and n.target is not operator.getitem]
        for n, js in zip(hop_nodes, g["nodes"]):
            if isinstance(n.target, Hop):
                js["is_hop_single_tensor_return"] = False
        return g


def subgraph_json(prog):
    env, _ = gz.run_program(prog, [], prog.example_inputs)
    g = Serializer(prog, env).graph()
    g["is_single_tensor_return"] = bool(prog.single_return)
    return g


def symint_json(expr, hint):
    expr = sympy.sympify(expr)
    if expr.is_Integer:
        return {"as_int": int(expr)}
    return {"as_expr": {"expr_str": sympy.srepr(expr), "hint": {"as_int": int(hint)}}}


@contextlib.contextmanager
def our_serializer():
    saved = gz.Serializer
    gz.Serializer = Serializer
    try:
        yield
    finally:
        gz.Serializer = saved


# --------------------------------------------------------------------------------------
# Dynamic shapes
# --------------------------------------------------------------------------------------
class DynSpec:
    """One dynamic-shape fixture: input `x` of `shape(v)`, dim `dim` = symbol in [lo, hi]."""

    def __init__(self, name, cls, seed, shape, dim, lo, hi, hint, calls, refused, notes,
                 size_line, symbol="s0"):
        self.name, self.cls, self.seed = name, cls, seed
        self.shape, self.dim, self.lo, self.hi, self.hint = shape, dim, lo, hi, hint
        self.calls, self.refused, self.notes = calls, refused, notes
        self.size_line = size_line   # snippet of the forward line reading x.shape
        self.symbol = sympy.Symbol(symbol, integer=True, positive=True)

    def factory(self):
        return _build(self.cls, self.seed)

    def input(self, v):
        return _randn("%s/%d" % (self.name, v), self.shape(v))

    def inputs(self, v):
        """The user inputs at size v (one here; gen_zoo_llama's spec has two)."""
        return [self.input(v)]

    # the input whose dim `dim` is the symbol, by placeholder index; the sym_size node's
    # stack trace
    sym_input = -1

    def size_trace(self):
        return frame(self.cls, "forward", self.size_line)


def fit(points):
    """Integer polynomial c0 + c1 v + c2 v^2 through the first three (v, y) points,
    checked on the rest. Returns (c0, c1, c2)."""
    (x0, y0), (x1, y1), (x2, y2) = points[:3]
    # Newton divided differences, exact
    d01 = Fraction(y1 - y0, x1 - x0)
    d12 = Fraction(y2 - y1, x2 - x1)
    c2 = (d12 - d01) / (x2 - x0)
    c1 = d01 - c2 * (x0 + x1)
    c0 = y0 - c1 * x0 - c2 * x0 * x0
    for x, y in points:
        assert c0 + c1 * x + c2 * x * x == y, "not a polynomial of degree <= 2: %r" % points
    assert all(c.denominator == 1 for c in (c0, c1, c2)), points
    return int(c0), int(c1), int(c2)


def symbolize(spec, progs, values):
    """progs: the same method traced at `values`. Rewrites progs[0] in place: integer
    arguments equal to the dynamic dim become uses of a sym_size.int node."""
    base = progs[0]
    per_prog = [[n for n in p.graph.nodes if n.op == "call_function"] for p in progs]
    assert len({len(ns) for ns in per_prog}) == 1, "graphs differ in length"
    x = base.placeholders[spec.sym_input]
    state = {"sym": None}

    def sym():
        if state["sym"] is None:
            first = per_prog[0][0]
            with base.graph.inserting_before(first):
                s = base.graph.create_node("call_function", aten.sym_size.int,
                                           (x, spec.dim), {}, name="sym_size_int")
            s.meta["zoo_stack_trace"] = spec.size_trace()
            s.meta["zoo_module_stack"] = []
            state["sym"] = s
        return state["sym"]

    def merge(vals, where):
        a = vals[0]
        if isinstance(a, (list, tuple)):
            assert all(isinstance(v, type(a)) and len(v) == len(a) for v in vals), where
            return type(a)(merge([v[i] for v in vals], where) for i in range(len(a)))
        if isinstance(a, torch.fx.Node):
            return a   # the node of progs[0] (positions agree: same graph shape)
        if type(a) is int and any(v != a for v in vals):
            assert all(v == val for v, val in zip(vals, values)), \
                "%s: integer %r does not follow the dynamic dim" % (where, vals)
            return sym()
        assert all(v == a for v in vals), "%s: %r differs between traces" % (where, vals)
        return a

    for nodes in zip(*per_prog):
        n = nodes[0]
        assert all(m.target == n.target for m in nodes), "graphs differ at %s" % n
        n.args = merge([m.args for m in nodes], str(n))
        n.kwargs = merge([m.kwargs for m in nodes], str(n))
    gz._assign_names(base)
    if state["sym"] is not None:   # torch names the node after target and overload
        base.node_names[state["sym"]] = "sym_size_int"
    return base


def symbolic_metas(spec, prog, model, values):
    """Runs the symbolic program at `values`; returns ({id(tensor at values[0]): meta},
    {sym node: expr}, env at values[0])."""
    state = ([p.detach().clone() for _, p in model.named_parameters()]
             + [b.detach().clone() for _, b in model.named_buffers()])
    envs = [gz.run_program(prog, state, spec.inputs(v))[0] for v in values]
    s = spec.symbol

    def expr(ys):
        c0, c1, c2 = fit(list(zip(values, ys)))
        return sympy.Integer(c0) + c1 * s + c2 * s ** 2

    def meta_of(ts):
        t0 = ts[0]
        m = gz.tensor_meta(t0)
        m["sizes"] = [symint_json(expr([t.shape[i] for t in ts]), t0.shape[i])
                      for i in range(t0.dim())]
        m["strides"] = [symint_json(expr([t.stride()[i] for t in ts]), t0.stride()[i])
                        for i in range(t0.dim())]
        m["storage_offset"] = symint_json(expr([t.storage_offset() for t in ts]),
                                          t0.storage_offset())
        return m

    metas, syms = {}, {}
    for n in envs[0]:
        vals = [e[n] for e in envs]
        if isinstance(vals[0], torch.Tensor):
            metas[id(vals[0])] = meta_of(vals)
        elif is_sym(n):
            syms[n] = expr(vals)
            assert syms[n] == s
    return metas, syms, envs[0]


def generate_dynamic(spec):
    values = [spec.hint, spec.hint + 1, spec.hint + 2]
    progs = []
    for v in values:
        model = spec.factory()
        gm, pnames, bnames = gz.trace_method(model, [spec.input(v)])
        progs.append(gz.build_program(gm, model, pnames, bnames, ["x"]))
    model = progs[0].model
    prog = symbolize(spec, progs, values)
    Serializer.metas, Serializer.sym_exprs, env = symbolic_metas(
        spec, prog, model, values + [spec.hint + 3])

    # every recorded call: the symbolic program at that shape == the eager module
    ref = spec.factory()
    state = ([p.detach().clone() for _, p in model.named_parameters()]
             + [b.detach().clone() for _, b in model.named_buffers()])
    calls = []
    for v in spec.calls:
        assert spec.lo <= v <= spec.hi
        x = spec.input(v)
        with torch.no_grad():
            want = ref(x.clone())
        _, got = gz.run_program(prog, state, [x])
        assert torch.allclose(got[0], want, rtol=1e-5, atol=1e-5), "%s at %d" % (spec.name, v)
        calls.append(([x], [want], {}))

    ep = gz.exported_program_json(prog, env)
    ep["range_constraints"] = {str(spec.symbol): {"min_val": spec.lo, "max_val": spec.hi}}
    files = {"model.pt2": gz.write_pt2("model", ep, model, [spec.input(spec.hint)])}
    files["graph.txt"] = graph_text(spec.name, ep).encode()
    out_name = ep["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"][
        "as_tensor"]["name"]
    f, metas = call_files("", ["x"], [out_name], calls)
    files.update(f)
    m = method_meta("forward", "model", metas, True)
    x = spec.input(spec.refused)
    files["refused_0_input_0.npy"] = npy_bytes(x)
    m["refused_calls"] = [{
        "inputs": [{"name": "x", "dtype": NP_DTYPE[x.dtype], "shape": list(x.shape),
                    "file": "refused_0_input_0.npy"}],
        "error": "bound",
        "why": "x dim %d = %d is above the bound %s <= %d" % (spec.dim, spec.refused,
                                                              spec.symbol, spec.hi)}]
    meta_extra = {"dynamic_dims": {"x": {str(spec.dim): str(spec.symbol)}},
                  "range_constraints": ep["range_constraints"]}
    return files, m, meta_extra


# --------------------------------------------------------------------------------------
# Control flow
# --------------------------------------------------------------------------------------
class _Fn(nn.Module):
    """A bound method as a parameter-free module, so gen_zoo can trace it alone."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def trace_sub(fn, names, example):
    wrapper = _Fn(fn)
    gm, pnames, bnames = gz.trace_method(wrapper, example)
    assert not pnames and not bnames
    prog = gz.build_program(gm, wrapper, [], [], names)
    prog.example_inputs = [t.clone() for t in example]
    return prog


def main_program(model, user_names, build):
    """Assembles a method graph by hand: build(graph, placeholders by name) returns the
    output nodes. Parameters first (p_<fqn>), then user inputs."""
    g = torch.fx.Graph()
    pnames = [n for n, _ in model.named_parameters()]
    phs = {}
    kinds = [("parameter", n) for n in pnames] + [("user_input", n) for n in user_names]
    order = []
    for kind, nm in kinds:
        ph = g.placeholder(("p_" + nm.replace(".", "_")) if kind == "parameter" else nm)
        phs[nm] = ph
        order.append(ph)
    outs, single = build(g, phs)
    g.output(tuple(outs))
    prog = gz.Program(graph=g, placeholders=order, input_kinds=kinds,
                      output_kinds=[("user_output", None)] * len(outs), single_return=single,
                      model=model, pnames=pnames, bnames=[], user_names=user_names)
    gz._assign_names(prog)
    return prog


def node(g, target, args, kwargs=None, trace=None, module=None):
    n = g.call_function(target, tuple(args), kwargs or {})
    n.meta["zoo_stack_trace"] = trace
    n.meta["zoo_module_stack"] = [module] if module else []
    return n


def cond_program(model, x):
    C = zd.CondModel
    t = trace_sub(model.true_branch, ["x"], [x])
    f = trace_sub(model.false_branch, ["x"], [x])
    Serializer.graph_names = {t: "true_graph_0", f: "false_graph_0"}
    at = frame(C, "forward", "cond(")
    at_proj = frame(C, "forward", "self.proj(y)")
    proj = ("L__self___proj", "proj", gz._type_str(model.proj), "proj")

    def build(g, p):
        s = node(g, aten.sum.default, [p["x"]], trace=at)
        gt = node(g, aten.gt.Scalar, [s, 0], trace=at)
        c = node(g, COND, [gt, t, f, [p["x"]]], trace=at)
        y = node(g, operator.getitem, [c, 0], trace=at)
        w = node(g, aten.permute.default, [p["proj.weight"], [1, 0]], trace=at_proj, module=proj)
        out = node(g, aten.addmm.default, [p["proj.bias"], y, w], trace=at_proj, module=proj)
        return [out], True
    return main_program(model, ["x"], build)


def while_program(model, x, n):
    W = zd.WhileModel
    i0 = torch.zeros((), dtype=torch.int64)
    names = ["i", "acc", "x", "n"]
    c = trace_sub(model.loop_cond, names, [i0, x, x, n])
    b = trace_sub(model.loop_body, names, [i0, x, x, n])
    Serializer.graph_names = {c: "while_loop_cond_graph_0", b: "while_loop_body_graph_0"}
    at_i = frame(W, "forward", "torch.zeros(")
    at = frame(W, "forward", "while_loop(")
    at_ret = frame(W, "forward", "return count")

    def build(g, p):
        i = node(g, aten.full.default, [[], 0],
                 {"dtype": torch.int64, "layout": torch.strided,
                  "device": torch.device("cpu"), "pin_memory": False}, trace=at_i)
        w = node(g, WHILE_LOOP, [c, b, [i, p["x"]], [p["x"], p["n"]]], trace=at)
        count = node(g, operator.getitem, [w, 0], trace=at)
        acc = node(g, operator.getitem, [w, 1], trace=at)
        out = node(g, aten.mul.Tensor, [acc, 2.0], trace=at_ret)
        return [count, out], False
    return main_program(model, ["x", "n"], build)


def generate_control_flow(name, cls, seed, user_names, make_prog, call_inputs, check):
    model = _build(cls, seed)
    ref = _build(cls, seed)
    with models_file():
        prog = make_prog(model, *call_inputs[0])
    state = [p.detach().clone() for _, p in model.named_parameters()]
    calls, env0 = [], None
    for ins in call_inputs:
        with torch.no_grad():
            want = ref(*[t.clone() for t in ins])
        want = list(want) if isinstance(want, tuple) else [want]
        env, got = gz.run_program(prog, state, ins)
        env0 = env0 or env
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and torch.allclose(a, b, rtol=1e-5, atol=1e-5), name
        calls.append(([t.clone() for t in ins], want, {}))
    check(calls)
    Serializer.metas, Serializer.sym_exprs = {}, {}
    with models_file():
        ep = gz.exported_program_json(prog, env0)
    files = {"model.pt2": gz.write_pt2("model", ep, model, call_inputs[0])}
    files["graph.txt"] = graph_text(name, ep).encode()
    out_names = [s["user_output"]["arg"]["as_tensor"]["name"]
                 for s in ep["graph_module"]["signature"]["output_specs"]]
    f, metas = call_files("", user_names, out_names, calls)
    files.update(f)
    return files, method_meta("forward", "model", metas, True), {}


def cond_inputs():
    out = []
    for k, positive in enumerate([True, False, True]):
        x = _randn("cond_model/%d" % k, (4, 8))
        if (float(x.sum()) > 0) != positive:
            x = -x
        out.append([x])
    return out


def cond_check(calls):
    signs = [bool(ins[0].sum() > 0) for ins, _, _ in calls]
    assert True in signs and False in signs, "both branches must be exercised"


def while_inputs():
    return [[_randn("while_model/%d" % k, (2, 4)), torch.tensor(n, dtype=torch.int64)]
            for k, n in enumerate([3, 0, 5])]


def while_check(calls):
    counts = [int(outs[0]) for _, outs, _ in calls]
    assert counts == [3, 0, 5], counts


# --------------------------------------------------------------------------------------
# Human-readable graph dump (symbolic sizes, SymInts and subgraphs)
# --------------------------------------------------------------------------------------
DT = {7: "f32", 5: "i64", 12: "bool", 4: "i32", 8: "f64"}


def _dim(s):
    if "as_int" in s:
        return str(s["as_int"])
    return str(sympy.sympify(s["as_expr"]["expr_str"]))


def _shape(meta):
    return "%s[%s]" % (DT.get(meta["dtype"], "t%d" % meta["dtype"]),
                       ",".join(_dim(s) for s in meta["sizes"]))


def _fmt(a):
    (k, v), = a.items()
    if k == "as_sym_int":
        return "%" + v["as_name"] if "as_name" in v else str(v["as_int"])
    if k == "as_sym_ints":
        return "[" + ", ".join("%" + x["as_name"] if "as_name" in x else str(x["as_int"])
                               for x in v) + "]"
    if k == "as_graph":
        return "@" + v["name"]
    return gz._fmt_arg(a)


def _graph_lines(g, indent):
    tv = g["tensor_values"]
    lines = []
    for n in g["nodes"]:
        outs = []
        for o in n["outputs"]:
            if "as_tensor" in o:
                outs.append("%%%s: %s" % (o["as_tensor"]["name"], _shape(tv[o["as_tensor"]["name"]])))
            elif "as_sym_int" in o:
                nm = o["as_sym_int"]["as_name"]
                outs.append("%%%s: Sym(%s)" % (nm, _dim(g["sym_int_values"][nm])))
            else:
                outs.append(_fmt(o))
        args = ", ".join(("%s=" % i["name"] if i["kind"] == gz.KEYWORD else "")
                         + _fmt(i["arg"]) for i in n["inputs"])
        lines.append("%s%s = %s(%s)" % (indent, ", ".join(outs),
                                        n["target"][len("torch.ops."):], args))
    for n in g["nodes"]:
        for i in n["inputs"]:
            if "as_graph" in i["arg"]:
                sub = i["arg"]["as_graph"]
                sg = sub["graph"]
                ins = ", ".join("%%%s: %s" % (a["as_tensor"]["name"],
                                              _shape(sg["tensor_values"][a["as_tensor"]["name"]]))
                                for a in sg["inputs"])
                lines.append("%s@%s(%s):" % (indent, sub["name"], ins))
                lines += _graph_lines(sg, indent + "    ")
                lines.append("%s    return %s%s" % (
                    indent, ", ".join(_fmt(o) for o in sg["outputs"]),
                    "  (single tensor)" if sg["is_single_tensor_return"] else ""))
    return lines


def graph_text(name, ep, method="forward"):
    g = ep["graph_module"]["graph"]
    tv = g["tensor_values"]
    sig = ep["graph_module"]["signature"]
    lines = ["# %s (%s): graph as stored in the archive "
             "(generated by test/models/gen_zoo_dynamic.py)" % (name, method)]
    if ep["range_constraints"]:
        lines.append("range_constraints: " + ", ".join(
            "%d <= %s <= %d" % (r["min_val"], s, r["max_val"])
            for s, r in sorted(ep["range_constraints"].items())))
    lines.append("inputs:")
    for spec in sig["input_specs"]:
        (k, v), = spec.items()
        nm = v["arg"]["as_tensor"]["name"] if k == "user_input" else v["arg"]["name"]
        lines.append("  %%%s: %s  %s %s" % (nm, _shape(tv[nm]), k, v.get("parameter_name")
                                            or v.get("buffer_name") or ""))
    lines.append("nodes:")
    lines += _graph_lines(g, "  ")
    lines.append("outputs:")
    for spec in sig["output_specs"]:
        (k, v), = spec.items()
        arg = v["arg"]
        lines.append("  %%%s  %s" % (arg["as_tensor"]["name"] if "as_tensor" in arg else
                                     arg["name"], k)
                     + (" " + v["buffer_name"] if "buffer_name" in v else ""))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------
DYNAMIC = [
    DynSpec("dyn_mlp", zd.DynMLP, 1, lambda b: (b, 32), 0, 1, 16, 7, [7, 1, 16], 17,
            "Linear(32,64) ReLU Linear(64,16) on x f32[s0, 32], s0 (batch) dynamic in "
            "[1, 16]. Calls at b = 7 (the export example), 1, 16; b = 17 must be refused.",
            "def forward"),
    DynSpec("dyn_attention", zd.DynAttention, 21, lambda s: (1, s, 32), 1, 2, 32, 9,
            [9, 2, 32], 33,
            "Self-attention on x f32[1, s0, 32], s0 (sequence) dynamic in [2, 32]: q/k/v "
            "Linear, view to [1, s0, 4, 8] through sym_size.int, permute, matmul as "
            "expand/view/bmm, softmax, view back to [1, s0, 32], residual add. Calls at "
            "s = 9 (the export example), 2, 32; s = 33 must be refused.",
            "b, s, d = x.shape"),
]

CONTROL_FLOW = [
    ("cond_model", zd.CondModel, 31, ["x"], cond_program, cond_inputs, cond_check,
     "torch.cond(x.sum() > 0, sin(x) * 2, cos(x) + 1) on x f32[4, 8], then Linear(8, 4). "
     "Calls: positive sum (true branch), negative sum (false branch), positive sum."),
    ("while_model", zd.WhileModel, 32, ["x", "n"], while_program, while_inputs, while_check,
     "while_loop over (i, acc) with extra inputs (x, n): while i < n: i + 1, acc * 0.5 + x; "
     "returns (i, acc * 2). x f32[2, 4], n i64[] (0-d). Calls: n = 3, 0 (no iteration), 5."),
]


# Multi-method dynamic fixtures with their own module (gen_zoo_llama.py: a dynamic
# prefill and a static decode sharing a KV cache, run as a sequence).
MULTI_METHOD = ["llama_dynamic"]


def names():
    return [s.name for s in DYNAMIC] + MULTI_METHOD + [c[0] for c in CONTROL_FLOW]


# Fixtures the compiler supports live in the zoo (test/models) and run as e2e
# tests; the others wait in test/models_pending.
ENABLED = {"dyn_mlp", "dyn_attention", "llama_dynamic", "cond_model", "while_model"}


def enabled():
    return [n for n in names() if n in ENABLED]


def pending():
    return [n for n in names() if n not in ENABLED]


def home(name):
    return HERE if name in ENABLED else PENDING_DIR


def generate(name):
    if name in MULTI_METHOD:
        import gen_zoo_llama   # imports this module: not at the top
        files, meta = gen_zoo_llama.generate()
        if name not in ENABLED:
            meta["pending"] = "needs dynamic shapes in ptec (PTEC_ZOO_PENDING)"
        files["meta.json"] = (json.dumps(meta, indent=2) + "\n").encode()
        return files
    for spec in DYNAMIC:
        if spec.name == name:
            with models_file(), our_serializer():
                files, m, extra = generate_dynamic(spec)
            notes = spec.notes
    for (nm, cls, seed, user_names, make, ins, check, nts) in CONTROL_FLOW:
        if nm == name:
            with our_serializer():
                files, m, extra = generate_control_flow(nm, cls, seed, user_names, make,
                                                        ins(), check)
            notes = nts
    meta = {"name": name, "file": m["file"], "inputs": m["inputs"], "outputs": m["outputs"],
            "methods": [m], "rtol": 1e-4, "atol": 1e-5, "buffers_after": {}}
    meta.update(extra)
    if name not in ENABLED:
        meta["pending"] = "needs %s in ptec; not run by the e2e tests yet (PTEC_ZOO_PENDING)" % (
            "dynamic shapes" if extra else "control flow (torch.ops.higher_order)")
    meta["notes"] = notes
    files["meta.json"] = (json.dumps(meta, indent=2) + "\n").encode()
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None,
                    help="output directory, one folder per fixture (default: test/models for "
                         "the fixtures the compiler supports, test/models_pending for the rest)")
    ap.add_argument("--only", nargs="*", help="model names to generate")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    for name in names():
        if args.only and name not in args.only:
            continue
        files = generate(name)
        d = os.path.join(args.out or home(name), name)
        os.makedirs(d, exist_ok=True)
        for fn in sorted(files):
            with open(os.path.join(d, fn), "wb") as f:
                f.write(files[fn])
        print("%-18s %3d files %8d bytes" % (name, len(files),
                                             sum(len(b) for b in files.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
