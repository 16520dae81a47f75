#!/usr/bin/python3
"""Generate the ptec fixture zoo with torch 1.13 (Debian's python3-torch).

torch 1.13 has no torch.export, so this script does by hand what
`torch.export.export(...).run_decompositions()` + `torch.export.save` do in torch 2.9:

1. trace each model to ATen with make_fx over a functionalized function whose explicit
   inputs are the parameters, the buffers and the user inputs (eval mode);
2. rewrite the few 1.13-only spellings to the core ATen ops torch 2.9 emits
   (t/transpose -> permute, _reshape_alias/_unsafe_view -> view, ones -> full,
   native_batch_norm(training=False) -> _native_batch_norm_legit_no_training);
3. turn functionalization's trailing `copy_(input, new)` writes into buffer_mutation /
   user_input_mutation outputs;
4. serialize the graph as ExportedProgram JSON (schema 8.12) and write a PT2 archive
   (STORED entries, 64-byte aligned data, raw weights + PayloadConfig JSON) the way
   torch 2.9 does (see docs/fixtures.md and the pt2-format spec).

Usage (from the repository root):
    /usr/bin/python3 test/models/gen_zoo.py [--out DIR] [--only NAME ...]

The output is deterministic: rerunning gives byte-identical files.
"""

import argparse
import builtins
import dataclasses
import hashlib
import io
import json
import keyword
import operator
import os
import struct
import sys
import traceback
import zlib

import torch
import torch.fx
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils.stateless import functional_call

try:
    from functorch.experimental import functionalize
except ImportError:  # newer torch
    from torch.func import functionalize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_models  # noqa: E402
from zoo_calls import (CALLS, call_files, call_inputs, fixture_meta,  # noqa: E402
                       method_meta, record_sequence)

MODELS_FILE = os.path.abspath(zoo_models.__file__).replace(".pyc", ".py")
MODELS_REL = "test/models/zoo_models.py"   # path written into stack traces

aten = torch.ops.aten

# --------------------------------------------------------------------------------------
# Serialization enums (torch/_export/serde/schema.py values, not c10 ones)
# --------------------------------------------------------------------------------------
SCALAR_TYPE = {
    torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
    torch.float16: 6, torch.float32: 7, torch.float64: 8, torch.complex32: 9,
    torch.complex64: 10, torch.complex128: 11, torch.bool: 12, torch.bfloat16: 13,
}
LAYOUT = {torch.strided: 7}
MEMORY_FORMAT = {torch.contiguous_format: 1, torch.channels_last: 2,
                 torch.channels_last_3d: 3, torch.preserve_format: 4}
POSITIONAL, KEYWORD = 1, 2

SCHEMA_VERSION = {"major": 8, "minor": 12}
TORCH_VERSION = "2.9.0"
OPSET_VERSION = {"aten": 10}


# --------------------------------------------------------------------------------------
# Ops that exist in torch 2.9 but not in 1.13
# --------------------------------------------------------------------------------------
class FutureArg:
    def __init__(self, name, kwarg_only=False, has_default=False, default=None):
        self.name = name
        self.kwarg_only = kwarg_only
        self.default_value = default
        self.has_default = has_default


class FutureOp:
    """An ATen op of torch 2.9 that 1.13 lacks; executable through `impl`."""

    def __init__(self, name, overload, args, n_returns, impl):
        self.packet_name = name
        self.overload = overload
        self.args = args
        self.n_returns = n_returns
        self.impl = impl
        self.__name__ = name

    @property
    def target_string(self):
        return "torch.ops.aten.%s.%s" % (self.packet_name, self.overload or "default")

    def __call__(self, *args, **kwargs):
        return self.impl(*args, **kwargs)

    def __repr__(self):
        return "aten.%s.%s" % (self.packet_name, self.overload or "default")


def _bn_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    return aten.native_batch_norm.default(input, weight, bias, running_mean, running_var,
                                          False, momentum, eps)


# _native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias,
#   Tensor running_mean, Tensor running_var, float momentum, float eps)
#   -> (Tensor, Tensor, Tensor)
BN_NO_TRAINING = FutureOp(
    "_native_batch_norm_legit_no_training", "",
    [FutureArg("input"), FutureArg("weight"), FutureArg("bias"),
     FutureArg("running_mean"), FutureArg("running_var"),
     FutureArg("momentum"), FutureArg("eps")],
    3, _bn_no_training)


# --------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------
class TraceContext:
    """Records, for every FX node created while tracing, the user stack trace (frames in
    zoo_models.py only, with a repository-relative path) and the nn.Module stack."""

    def __init__(self):
        self.module_stack = []   # [(key, path, type_str, fqn)]
        self.call_counts = {}

    def capture_stack_trace(self):
        frames = [f for f in traceback.extract_stack()
                  if os.path.abspath(f.filename) == MODELS_FILE]
        if not frames:
            return None
        out = []
        for f in frames:
            out.append('  File "%s", line %d, in %s\n    %s\n'
                       % (MODELS_REL, f.lineno, f.name, (f.line or "").strip()))
        return "".join(out)


_ACTIVE = []


def _patched_create_node(orig):
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        node = orig(self, op, target, args, kwargs, name, type_expr)
        if _ACTIVE and op == "call_function":
            ctx = _ACTIVE[-1]
            node.meta["zoo_stack_trace"] = ctx.capture_stack_trace()
            node.meta["zoo_module_stack"] = list(ctx.module_stack)
        return node
    return create_node


def _type_str(mod):
    cls = type(mod)
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def _install_module_hooks(model, ctx):
    handles = []
    # type strings now: functional_call swaps module classes while tracing
    types = {fqn: _type_str(mod) for fqn, mod in model.named_modules()}
    for fqn, mod in model.named_modules():
        if fqn == "":
            continue

        def pre(m, inp, fqn=fqn):
            n = ctx.call_counts.get(fqn, 0)
            ctx.call_counts[fqn] = n + 1
            # The path is the module FQN; from its second call on a module's own path
            # segment gets "@<n>" (and its children inherit that prefix), as torch 2.x
            # export does, so that every call site stays distinguishable.
            parent, _, leaf = fqn.rpartition(".")
            parent_path = ctx.module_stack[-1][1] if ctx.module_stack else ""
            if parent and ctx.module_stack and ctx.module_stack[-1][3] == parent:
                leaf = parent_path + "." + leaf
            elif parent:
                leaf = fqn
            path = leaf + ("@%d" % n if n > 0 else "")
            key = "L__self___" + path.replace(".", "_")
            ctx.module_stack.append((key, path, types[fqn], fqn))

        def post(m, inp, out):
            ctx.module_stack.pop()

        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    return handles


def _permute_t(x):
    return aten.permute.default(x, [1, 0])


def _permute_transpose(x, dim0, dim1):
    nd = x.dim()
    perm = list(range(nd))
    d0, d1 = dim0 % nd, dim1 % nd
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return aten.permute.default(x, perm)


def _view_reshape_alias(x, size, stride):
    return aten.view.default(x, size)


def _view_unsafe(x, size):
    return aten.view.default(x, size)


def _full_ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(size, 1,
                             dtype=dtype if dtype is not None else torch.get_default_dtype(),
                             layout=layout if layout is not None else torch.strided,
                             device=device if device is not None else torch.device("cpu"),
                             pin_memory=pin_memory if pin_memory is not None else False)


DECOMPOSITIONS = {
    aten.t.default: _permute_t,
    aten.transpose.int: _permute_transpose,
    aten._reshape_alias.default: _view_reshape_alias,
    aten._unsafe_view.default: _view_unsafe,
    aten.ones.default: _full_ones,
}


def trace_method(model, user_inputs):
    """Returns (fx.GraphModule, param_names, buffer_names)."""
    pnames = [n for n, _ in model.named_parameters()]
    bnames = [n for n, _ in model.named_buffers()]
    state = ([p.detach().clone() for _, p in model.named_parameters()]
             + [b.detach().clone() for _, b in model.named_buffers()])
    nstate = len(state)
    names = pnames + bnames

    def fn(*flat):
        return functional_call(model, dict(zip(names, flat[:nstate])), tuple(flat[nstate:]))

    ctx = TraceContext()
    handles = _install_module_hooks(model, ctx)
    orig = torch.fx.Graph.create_node
    torch.fx.Graph.create_node = _patched_create_node(orig)
    _ACTIVE.append(ctx)
    try:
        with torch.no_grad():
            gm = make_fx(functionalize(fn, remove="mutations"),
                         decomposition_table=DECOMPOSITIONS)(
                *state, *[t.clone() for t in user_inputs])
    finally:
        _ACTIVE.pop()
        torch.fx.Graph.create_node = orig
        for h in handles:
            h.remove()
    return gm, pnames, bnames


# --------------------------------------------------------------------------------------
# Graph clean-up to the torch 2.9 ATen dialect
# --------------------------------------------------------------------------------------
@dataclasses.dataclass(eq=False)
class Program:
    """A traced method in export form: ordered inputs with kinds, outputs with kinds."""

    graph: torch.fx.Graph    # output = mutations + user outputs
    placeholders: list       # fx placeholder nodes, graph input order
    input_kinds: list        # (kind, fqn or user name), same order
    output_kinds: list       # (kind, target name or None), graph output order
    single_return: bool      # forward returned a bare tensor (leaf out_spec)
    model: torch.nn.Module
    pnames: list
    bnames: list
    user_names: list
    node_names: dict = dataclasses.field(default_factory=dict)  # fx node -> serialized name


def build_program(gm, model, pnames, bnames, user_names):
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    assert len(placeholders) == len(pnames) + len(bnames) + len(user_names), \
        "unexpected placeholder count"
    persistent = set(model.state_dict().keys())
    assert all(b in persistent for b in bnames), \
        "non-persistent buffers are not supported (they belong in the constants config)"
    assert not any(n.op == "get_attr" for n in graph.nodes), \
        "lifted tensor constants are not supported by this generator"
    kinds = ([("parameter", n) for n in pnames] + [("buffer", n) for n in bnames]
             + [("user_input", n) for n in user_names])

    out_node = [n for n in graph.nodes if n.op == "output"][0]
    outs = out_node.args[0]
    user_outputs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    single_return = not isinstance(outs, (tuple, list))

    # functionalization's input write-backs -> mutation outputs. torch 1.13 may chain
    # them (a <- copy_(b, new_b) for `a.copy_(b); b.add_(x)`), which read sequentially
    # gives `a` the NEW b; eager PyTorch gives it the old one. In the functional program
    # a placeholder IS the old value, so a use of a write-back becomes its placeholder
    # (the self-check against eager PyTorch below confirms every state).
    mutations = {}
    for n in list(graph.nodes):
        if n.op == "call_function" and n.target is aten.copy_.default:
            dst, src = n.args[0], n.args[1]
            assert dst.op == "placeholder", "copy_ into a non-input"
            mutations[placeholders.index(dst)] = src
            n.replace_all_uses_with(dst)
            graph.erase_node(n)
    for n in graph.nodes:
        if n.op == "call_function":
            assert n.target is not aten.copy_.default
            if isinstance(n.target, torch._ops.OpOverload):
                assert not n.target.overloadpacket.__name__.endswith("_"), \
                    "in-place op left: %s" % n.target

    # native_batch_norm(training=False) -> _native_batch_norm_legit_no_training
    for n in list(graph.nodes):
        if n.op == "call_function" and n.target is aten.native_batch_norm.default:
            a = list(n.args)
            assert a[5] is False, "training-mode batch norm in an eval fixture"
            with graph.inserting_before(n):
                new = graph.create_node("call_function", BN_NO_TRAINING,
                                        tuple(a[:5] + a[6:8]), {},
                                        name=BN_NO_TRAINING.packet_name)
            new.meta = dict(n.meta)
            n.replace_all_uses_with(new)
            graph.erase_node(n)

    mutation_order = sorted(mutations)
    output_kinds = []
    new_outputs = []
    for idx in mutation_order:
        kind, target = kinds[idx]
        output_kinds.append(("buffer_mutation" if kind == "buffer" else
                             "user_input_mutation" if kind == "user_input" else
                             "parameter_mutation", target))
        new_outputs.append(mutations[idx])
    for o in user_outputs:
        output_kinds.append(("user_output", None))
        new_outputs.append(o)
    out_node.args = (tuple(new_outputs),)

    # dead code elimination (functionalization leaves unused views behind)
    changed = True
    while changed:
        changed = False
        for n in reversed(list(graph.nodes)):
            if n.op == "call_function" and not n.users:
                graph.erase_node(n)
                changed = True
    graph.lint()

    prog = Program(graph=graph, placeholders=placeholders, input_kinds=kinds,
                   output_kinds=output_kinds, single_return=single_return, model=model,
                   pnames=pnames, bnames=bnames, user_names=user_names)
    _assign_names(prog)
    return prog


def _base_name(node):
    t = node.target
    if t is operator.getitem:
        return "getitem"
    if isinstance(t, FutureOp):
        return t.packet_name
    return t.overloadpacket.__name__


def _assign_names(prog):
    used = set()
    names = {}

    def unique(base):
        if base in used or hasattr(builtins, base) or keyword.iskeyword(base):
            i = 1
            while "%s_%d" % (base, i) in used:
                i += 1
            base = "%s_%d" % (base, i)
        used.add(base)
        return base

    for ph, (kind, target) in zip(prog.placeholders, prog.input_kinds):
        if kind == "parameter":
            nm = "p_" + target.replace(".", "_")
        elif kind == "buffer":
            nm = "b_" + target.replace(".", "_")
        else:
            nm = target
        assert nm not in used
        used.add(nm)
        names[ph] = nm
    for n in prog.graph.nodes:
        if n.op == "call_function":
            names[n] = unique(_base_name(n))
    prog.node_names = names


# --------------------------------------------------------------------------------------
# Running the final graph (records every value; checks it against eager PyTorch)
# --------------------------------------------------------------------------------------
def run_program(prog, state, user_inputs):
    env = {}
    args = list(state) + [t.clone() for t in user_inputs]
    for ph, a in zip(prog.placeholders, args):
        env[ph] = a

    def load(a):
        return torch.fx.node.map_arg(a, lambda n: env[n])

    result = None
    with torch.no_grad():
        for n in prog.graph.nodes:
            if n.op == "call_function":
                env[n] = n.target(*load(n.args), **load(n.kwargs))
            elif n.op == "output":
                result = load(n.args[0])
    return env, list(result)


# --------------------------------------------------------------------------------------
# ExportedProgram JSON
# --------------------------------------------------------------------------------------
def tensor_meta(t, requires_grad=False):
    return {
        "dtype": SCALAR_TYPE[t.dtype],
        "sizes": [{"as_int": int(s)} for s in t.shape],
        "requires_grad": bool(requires_grad),
        "device": {"type": "cpu", "index": None},
        "strides": [{"as_int": int(s)} for s in t.stride()],
        "storage_offset": {"as_int": 0},
        "layout": LAYOUT[t.layout],
    }


def _schema_args(target):
    if isinstance(target, FutureOp):
        return target.args
    return target._schema.arguments


def _schema_returns(target):
    if isinstance(target, FutureOp):
        return target.n_returns
    return len(target._schema.returns)


def _same_default(arg, value):
    d = arg.default_value
    if isinstance(value, torch.fx.Node) or isinstance(d, torch.fx.Node):
        return False
    if type(value) is not type(d):
        return False
    return value == d


def _has_default(arg):
    if isinstance(arg, FutureArg):
        return arg.has_default
    return arg.has_default_value()


class Serializer:
    def __init__(self, prog, env):
        self.prog = prog
        self.env = env
        self.names = prog.node_names
        self.tensor_values = {}

    # Argument union -------------------------------------------------------------
    def arg(self, a, arg_type=None):
        if isinstance(a, torch.fx.Node):
            return {"as_tensor": {"name": self.names[a]}}
        if type(a) is bool:
            return {"as_bool": a}
        if type(a) is str:
            return {"as_string": a}
        if type(a) is int:
            return {"as_int": a}
        if type(a) is float:
            return {"as_float": a}
        if a is None:
            return {"as_none": True}
        if isinstance(a, (list, tuple)):
            if len(a) == 0:
                t = str(arg_type) if arg_type is not None else ""
                if "bool" in t:
                    return {"as_bools": []}
                if "int" in t or "SymInt" in t:
                    return {"as_ints": []}
                if "float" in t:
                    return {"as_floats": []}
                return {"as_tensors": []}
            if all(type(x) is bool for x in a):
                return {"as_bools": list(a)}
            if all(type(x) is int for x in a):
                return {"as_ints": list(a)}
            if all(type(x) is float for x in a):
                return {"as_floats": list(a)}
            if all(type(x) is str for x in a):
                return {"as_strings": list(a)}
            if all(isinstance(x, torch.fx.Node) for x in a):
                return {"as_tensors": [{"name": self.names[x]} for x in a]}
            if all(isinstance(x, torch.fx.Node) or x is None for x in a):
                return {"as_optional_tensors": [
                    {"as_none": True} if x is None else {"as_tensor": {"name": self.names[x]}}
                    for x in a]}
            raise TypeError("unsupported list argument %r" % (a,))
        if isinstance(a, torch.dtype):
            return {"as_scalar_type": SCALAR_TYPE[a]}
        if isinstance(a, torch.device):
            return {"as_device": {"type": a.type, "index": a.index}}
        if isinstance(a, torch.memory_format):
            return {"as_memory_format": MEMORY_FORMAT[a]}
        if isinstance(a, torch.layout):
            return {"as_layout": LAYOUT[a]}
        raise TypeError("unsupported argument %r" % (a,))

    def inputs(self, node):
        schema_args = _schema_args(node.target)
        args = list(node.args)
        kwargs = dict(node.kwargs)
        # The dispatcher drops trailing positional args and kwarg-only args that equal
        # their schema defaults before the serializer sees them; do the same.
        for sa in schema_args:
            if sa.kwarg_only and sa.name in kwargs and _has_default(sa) \
                    and _same_default(sa, kwargs[sa.name]):
                del kwargs[sa.name]
        while args:
            i = len(args) - 1
            sa = schema_args[i]
            if _has_default(sa) and _same_default(sa, args[i]):
                args.pop()
            else:
                break
        out = []
        for i, sa in enumerate(schema_args):
            t = getattr(sa, "type", None)
            if sa.name in kwargs:
                out.append({"name": sa.name, "arg": self.arg(kwargs[sa.name], t),
                            "kind": KEYWORD})
            elif not sa.kwarg_only and i < len(args):
                out.append({"name": sa.name, "arg": self.arg(args[i], t),
                            "kind": POSITIONAL})
        return out

    def outputs(self, node):
        n_ret = _schema_returns(node.target)
        val = self.env[node]
        if n_ret == 0:
            return []
        if n_ret == 1:
            self.add_tensor(self.names[node], val)
            return [{"as_tensor": {"name": self.names[node]}}]
        by_index = {}
        for u in node.users:
            assert u.target is operator.getitem
            by_index.setdefault(u.args[1], u)
        res = []
        for i, v in enumerate(val):
            if v is None:
                res.append({"as_none": True})
                continue
            nm = self.names[by_index[i]] if i in by_index else \
                "%s_unused_%d" % (self.names[node], i)
            self.add_tensor(nm, v)
            res.append({"as_tensor": {"name": nm}})
        return res

    def add_tensor(self, name, t, requires_grad=False):
        assert name not in self.tensor_values, name
        self.tensor_values[name] = tensor_meta(t, requires_grad)

    def metadata(self, node):
        md = {}
        st = node.meta.get("zoo_stack_trace")
        if st:
            md["stack_trace"] = st
        ms = node.meta.get("zoo_module_stack")
        if ms:
            md["nn_module_stack"] = ";".join("%s,%s,%s" % m[:3] for m in ms)
        return md

    def graph(self):
        prog = self.prog
        inputs = []
        for ph, (kind, _) in zip(prog.placeholders, prog.input_kinds):
            self.add_tensor(self.names[ph], self.env[ph], requires_grad=(kind == "parameter"))
            inputs.append({"as_tensor": {"name": self.names[ph]}})
        nodes = []
        for n in prog.graph.nodes:
            if n.op != "call_function" or n.target is operator.getitem:
                continue
            target = n.target.target_string if isinstance(n.target, FutureOp) else \
                "torch.ops.%s.%s" % (n.target._schema.name.replace("::", "."),
                                     n.target._overloadname)
            nodes.append({
                "target": target,
                "inputs": self.inputs(n),
                "outputs": self.outputs(n),
                "metadata": self.metadata(n),
                "is_hop_single_tensor_return": None,
            })
        out_node = [n for n in prog.graph.nodes if n.op == "output"][0]
        outputs = [self.arg(o) for o in out_node.args[0]]
        return {
            "inputs": inputs,
            "outputs": outputs,
            "nodes": nodes,
            "tensor_values": self.tensor_values,
            "sym_int_values": {},
            "sym_bool_values": {},
            "is_single_tensor_return": False,
            "custom_obj_values": {},
            "sym_float_values": {},
        }

    def signature(self):
        prog = self.prog
        ins = []
        for ph, (kind, target) in zip(prog.placeholders, prog.input_kinds):
            nm = self.names[ph]
            if kind == "parameter":
                ins.append({"parameter": {"arg": {"name": nm}, "parameter_name": target}})
            elif kind == "buffer":
                ins.append({"buffer": {"arg": {"name": nm}, "buffer_name": target,
                                       "persistent": True}})
            else:
                ins.append({"user_input": {"arg": {"as_tensor": {"name": nm}}}})
        outs = []
        out_node = [n for n in prog.graph.nodes if n.op == "output"][0]
        for o, (kind, target) in zip(out_node.args[0], prog.output_kinds):
            nm = self.names[o]
            if kind == "user_output":
                outs.append({"user_output": {"arg": {"as_tensor": {"name": nm}}}})
            elif kind == "buffer_mutation":
                outs.append({"buffer_mutation": {"arg": {"name": nm}, "buffer_name": target}})
            elif kind == "user_input_mutation":
                outs.append({"user_input_mutation": {"arg": {"name": nm},
                                                     "user_input_name": target}})
            else:
                outs.append({"parameter_mutation": {"arg": {"name": nm},
                                                    "parameter_name": target}})
        return {"input_specs": ins, "output_specs": outs}


LEAF = {"type": None, "context": None, "children_spec": []}


def treespec_str(node):
    return json.dumps([1, node])


def in_spec(n_inputs):
    args = {"type": "builtins.tuple", "context": "null",
            "children_spec": [dict(LEAF) for _ in range(n_inputs)]}
    kwargs = {"type": "builtins.dict", "context": "[]", "children_spec": []}
    return treespec_str({"type": "builtins.tuple", "context": "null",
                         "children_spec": [args, kwargs]})


def out_spec(n_outputs, single):
    if single:
        return treespec_str(dict(LEAF))
    return treespec_str({"type": "builtins.tuple", "context": "null",
                         "children_spec": [dict(LEAF) for _ in range(n_outputs)]})


def exported_program_json(prog, env):
    s = Serializer(prog, env)
    graph = s.graph()
    sig = s.signature()
    n_user_out = sum(1 for k, _ in prog.output_kinds if k == "user_output")
    call_graph = [{"fqn": "", "signature": {
        "inputs": [], "outputs": [],
        "in_spec": in_spec(len(prog.user_names)),
        "out_spec": out_spec(n_user_out, prog.single_return),
        "forward_arg_names": list(prog.user_names) or None,
    }}]
    for fqn, _ in prog.model.named_modules(remove_duplicate=False):
        if fqn:
            call_graph.append({"fqn": fqn, "signature": None})
    ep = {
        "graph_module": {
            "graph": graph,
            "signature": sig,
            "module_call_graph": call_graph,
            "metadata": {},
            "treespec_namedtuple_fields": {},
        },
        "opset_version": dict(OPSET_VERSION),
        "range_constraints": {},
        "schema_version": dict(SCHEMA_VERSION),
        "verifiers": ["ATEN"],
        "torch_version": TORCH_VERSION,
    }
    return ep


# --------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------
def weights_payloads(model):
    """[(fqn, is_param, tensor)] in state_dict order (parameters + persistent buffers)."""
    params = dict(model.named_parameters())
    out = []
    for fqn, t in model.state_dict(keep_vars=True).items():
        out.append((fqn, fqn in params, t.detach()))
    return out


def weights_config_and_files(model):
    config = {}
    files = []
    for i, (fqn, is_param, t) in enumerate(weights_payloads(model)):
        assert t.is_contiguous() and t.storage_offset() == 0
        assert t.storage().size() == t.numel(), "weight %s is a view" % fqn
        if t.dtype in (torch.bfloat16, torch.float16):   # numpy has no bfloat16
            t16 = t.contiguous().view(torch.int16)
            data = t16.numpy().astype("<i2").tobytes()
        else:
            data = t.contiguous().numpy().tobytes()
        path = "weight_%d" % i
        config[fqn] = {"path_name": path, "is_param": is_param, "use_pickle": False,
                       "tensor_meta": tensor_meta(t, requires_grad=is_param)}
        files.append((path, data))
    return {"config": config}, files


# --------------------------------------------------------------------------------------
# Zip writer in the style of PyTorchStreamWriter (miniz): STORED, 64-byte aligned data
# via an 'FB' local extra field, flags 0x0808 with a data descriptor, ZIP64 end records.
# --------------------------------------------------------------------------------------
ALIGN = 64
DOS_TIME = 0
DOS_DATE = (0 << 9) | (1 << 5) | 1   # 1980-01-01


class AlignedZipWriter:
    def __init__(self):
        self.buf = bytearray()
        self.entries = []

    def add(self, name, data):
        name_b = name.encode("utf-8")
        offset = len(self.buf)
        start = offset + 30 + len(name_b) + 4
        pad = (-start) % ALIGN
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        crc = zlib.crc32(data) & 0xFFFFFFFF
        self.buf += struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0x0808, 0, DOS_TIME, DOS_DATE,
                                0, 0, 0, len(name_b), len(extra))
        self.buf += name_b + extra
        assert len(self.buf) % ALIGN == 0
        self.buf += data
        self.buf += struct.pack("<IIII", 0x08074B50, crc, len(data), len(data))
        self.entries.append((name_b, offset, crc, len(data)))

    def finish(self):
        cd_start = len(self.buf)
        for name_b, offset, crc, size in self.entries:
            self.buf += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 0, 0x0808, 0,
                                    DOS_TIME, DOS_DATE, crc, size, size, len(name_b), 0, 0,
                                    0, 0, 0, offset)
            self.buf += name_b
        cd_size = len(self.buf) - cd_start
        n = len(self.entries)
        z64_off = len(self.buf)
        self.buf += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 0x002D, 0, 0, n, n,
                                cd_size, cd_start)
        self.buf += struct.pack("<IIQI", 0x07064B50, 0, z64_off, 1)
        self.buf += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, cd_size, cd_start, 0)
        return bytes(self.buf)


def write_pt2(root, ep_json, model, sample_inputs):
    wcfg, wfiles = weights_config_and_files(model)
    z = AlignedZipWriter()
    for path, data in wfiles:
        z.add("%s/data/weights/%s" % (root, path), data)
    z.add("%s/data/weights/model_weights_config.json" % root, json.dumps(wcfg).encode())
    z.add("%s/data/constants/model_constants_config.json" % root,
          json.dumps({"config": {}}).encode())
    model_json = json.dumps(ep_json).encode("utf-8")
    z.add("%s/models/model.json" % root, model_json)
    sbuf = io.BytesIO()
    torch.save((tuple(t.clone() for t in sample_inputs), {}), sbuf)
    z.add("%s/data/sample_inputs/model.pt" % root, sbuf.getvalue())
    z.add("%s/archive_format" % root, b"pt2")
    z.add("%s/archive_version" % root, b"0")
    z.add("%s/.data/version" % root, b"6\n")
    z.add("%s/byteorder" % root, b"little")
    digest = hashlib.sha1(model_json).hexdigest()
    serialization_id = str(int(digest, 16)).rjust(40, "0")[-40:]
    z.add("%s/.data/serialization_id" % root, serialization_id.encode())
    return z.finish()


# --------------------------------------------------------------------------------------
# Human-readable graph dump
# --------------------------------------------------------------------------------------
def _fmt_arg(a):
    (k, v), = a.items()
    if k == "as_tensor":
        return "%" + v["name"]
    if k == "as_tensors":
        return "[" + ", ".join("%" + x["name"] for x in v) + "]"
    if k == "as_none":
        return "None"
    if k == "as_scalar_type":
        return "dtype(%d)" % v
    if k == "as_layout":
        return "layout(%d)" % v
    if k == "as_memory_format":
        return "memory_format(%d)" % v
    if k == "as_device":
        return "device(%s)" % v["type"]
    return json.dumps(v)


def _shape(meta):
    return "%s[%s]" % ({7: "f32", 5: "i64", 12: "bool", 4: "i32", 8: "f64", 6: "f16",
                        13: "bf16", 1: "u8", 2: "i8"}.get(
        meta["dtype"], "t%d" % meta["dtype"]), ",".join(str(s["as_int"]) for s in meta["sizes"]))


def graph_text(name, ep):
    g = ep["graph_module"]["graph"]
    tv = g["tensor_values"]
    sig = ep["graph_module"]["signature"]
    lines = ["# %s: traced ATen graph (generated by test/models/gen_zoo.py)" % name, "inputs:"]
    for spec in sig["input_specs"]:
        (k, v), = spec.items()
        nm = v["arg"]["as_tensor"]["name"] if k == "user_input" else v["arg"]["name"]
        extra = v.get("parameter_name") or v.get("buffer_name") or ""
        lines.append("  %%%s: %s  %s %s" % (nm, _shape(tv[nm]), k, extra))
    lines.append("nodes:")
    for n in g["nodes"]:
        outs = ", ".join(_fmt_arg(o) + (": " + _shape(tv[o["as_tensor"]["name"]])
                                         if "as_tensor" in o else "") for o in n["outputs"])
        args = ", ".join(("%s=" % i["name"] if i["kind"] == KEYWORD else "")
                         + _fmt_arg(i["arg"]) for i in n["inputs"])
        tgt = n["target"][len("torch.ops."):]
        lines.append("  %s = %s(%s)" % (outs, tgt, args))
    lines.append("outputs:")
    for spec in sig["output_specs"]:
        (k, v), = spec.items()
        nm = v["arg"]["as_tensor"]["name"] if k == "user_output" else v["arg"]["name"]
        extra = v.get("buffer_name") or v.get("user_input_name") or ""
        lines.append("  %%%s  %s %s" % (nm, k, extra))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------
def generate_method(entry, method, stem, user_names, inputs, progs=None):
    """Returns {relative file name: bytes} for one method + its meta pieces.

    A method that mutates state is recorded over CALLS consecutive calls of ONE eager
    module (state carries over), with fresh inputs per call: per call the outputs (in
    the program's output order: user_input_mutation and user outputs) and every
    mutated buffer after the call. Call 0 keeps the plain file names."""
    files = {}
    model = entry.factory()
    gm, pnames, bnames = trace_method(model, inputs)
    prog = build_program(gm, model, pnames, bnames, user_names)
    n_mut = sum(1 for k, _ in prog.output_kinds if k != "user_output")
    # A model with an ordered multi-method sequence records its state there, not
    # over random independent calls.
    stateful = n_mut > 0 and entry.sequence is None
    n_calls = CALLS if stateful else 1
    if progs is not None:
        progs[method] = prog

    # Reference: the ORIGINAL eager module, called n_calls times from its initial state.
    ref_model = entry.factory()
    state = ([p.detach().clone() for _, p in model.named_parameters()]
             + [b.detach().clone() for _, b in model.named_buffers()])
    n_params = len(pnames)
    calls = []
    for call in range(n_calls):
        ins = call_inputs(entry.name, method, inputs, call)
        ref_inputs = [t.clone() for t in ins]
        with torch.no_grad():
            ref_out = ref_model(*ref_inputs)
        ref_outs = list(ref_out) if isinstance(ref_out, (tuple, list)) else [ref_out]
        # self-check: the final graph, run with the carried state, computes the same
        env, results = run_program(prog, state, ins)
        for got, want in zip(results[n_mut:], ref_outs):
            assert torch.allclose(got, want, rtol=1e-5, atol=1e-6), \
                "%s call %d: output mismatch" % (entry.name, call)
        outs, state_after = [], {}
        for (kind, target), got in zip(prog.output_kinds[:n_mut], results[:n_mut]):
            if kind == "buffer_mutation":
                want = dict(ref_model.named_buffers())[target]
                state[n_params + bnames.index(target)] = got.clone()
                state_after[target] = want.clone()
            else:
                want = ref_inputs[user_names.index(target)]
                outs.append(want.clone())  # upstream keeps it as a method output
            assert torch.equal(got, want) or torch.allclose(got, want), \
                "%s call %d: state mismatch for %s" % (entry.name, call, target)
        outs += ref_outs
        calls.append((ins, outs, state_after, env if call == 0 else None))

    ep = exported_program_json(prog, calls[0][3])
    pt2 = write_pt2(stem, ep, model, inputs)
    files["%s.pt2" % stem] = pt2
    prefix = "" if stem == "model" else stem + "_"
    txt_name = "graph.txt" if stem == "model" else "graph_%s.txt" % stem
    files[txt_name] = graph_text("%s (%s)" % (entry.name, method), ep).encode()

    # Output names in program order (buffer mutations are not method outputs).
    out_names = [spec[kind]["arg"]["as_tensor"]["name"] if kind == "user_output"
                 else spec[kind]["arg"]["name"]
                 for spec in ep["graph_module"]["signature"]["output_specs"]
                 for kind in spec if kind in ("user_output", "user_input_mutation")]

    f, metas = call_files(prefix, user_names, out_names,
                          [(ins, outs, st) for ins, outs, st, _ in calls])
    files.update(f)
    return files, method_meta(method, stem, metas, stateful)


def sequence_check(entry, progs):
    """check() for record_sequence: runs each method's final graph with the state
    carried over (by FQN, shared by all methods) and compares it with eager PyTorch."""
    model = entry.factory()
    state = dict([(n, p.detach().clone()) for n, p in model.named_parameters()]
                 + [(n, b.detach().clone()) for n, b in model.named_buffers()])

    def check(method, ins, outs, buffers):
        prog = progs[method]
        n_mut = sum(1 for k, _ in prog.output_kinds if k != "user_output")
        _, results = run_program(prog, [state[n] for n in prog.pnames + prog.bnames], ins)
        for got, want in zip(results[n_mut:], outs):
            assert torch.allclose(got, want, rtol=1e-5, atol=1e-5), \
                "%s %s: sequence output mismatch" % (entry.name, method)
        for (kind, target), got in zip(prog.output_kinds[:n_mut], results[:n_mut]):
            assert kind == "buffer_mutation", "sequence with a mutated input"
            assert torch.allclose(got, buffers[target], rtol=1e-5, atol=1e-6), \
                "%s %s: sequence state mismatch for %s" % (entry.name, method, target)
            state[target] = got.clone()
    return check


def generate_entry(entry):
    files = {}
    methods = []
    progs = {}
    for method, stem, user_names, inputs in entry.methods:
        f, m = generate_method(entry, method, stem, user_names, inputs, progs)
        files.update(f)
        methods.append(m)
    # an entry may set its own tolerance (reduced-precision models; the notes say why)
    meta = fixture_meta(entry.name, methods, getattr(entry, "rtol", 1e-4),
                        getattr(entry, "atol", 1e-5))
    if entry.sequence is not None:
        f, meta["sequence"] = record_sequence(entry, {m["method"]: m for m in methods},
                                              sequence_check(entry, progs))
        files.update(f)
    meta["notes"] = entry.notes
    files["meta.json"] = (json.dumps(meta, indent=2) + "\n").encode()
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=HERE, help="output directory (default: this folder)")
    ap.add_argument("--only", nargs="*", help="model names to generate")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    for entry in zoo_models.zoo():
        if args.only and entry.name not in args.only:
            continue
        files = generate_entry(entry)
        d = os.path.join(args.out, entry.name)
        os.makedirs(d, exist_ok=True)
        total = 0
        for fn in sorted(files):
            with open(os.path.join(d, fn), "wb") as f:
                f.write(files[fn])
            total += len(files[fn])
        print("%-18s %3d files %8d bytes" % (entry.name, len(files), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
