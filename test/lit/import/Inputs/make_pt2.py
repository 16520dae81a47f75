#!/usr/bin/env python3
"""Writes a small PT2 archive for one importer test case (no torch needed).

    make_pt2.py CASE OUT.pt2

Every case is the same tiny program, y = op(x, w) with a 2x2 float user input
`x` and a 2x2 float parameter `w`, with one thing changed: an unknown
operator, a symbolic dimension, a higher-order op, ... The archive follows the
PT2 layout of the pt2 format spec (root folder, archive_format,
models/model.json, weights config and raw little-endian payloads).
"""

import json
import struct
import sys
import zipfile


def meta(sizes, dtype=7):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s if isinstance(s, int) else 1
    as_sym = lambda v: {"as_int": v} if isinstance(v, int) else {"as_expr": v}
    return {"dtype": dtype, "sizes": [as_sym(s) for s in sizes], "requires_grad": False,
            "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": s} for s in strides],
            "storage_offset": {"as_int": 0}, "layout": 7}


def tensor(name):
    return {"as_tensor": {"name": name}}


def node(target, inputs, outputs, line=None):
    n = {"target": target, "outputs": outputs, "metadata": {},
         "inputs": [{"name": k, "arg": v, "kind": 1} for k, v in inputs]}
    if line:
        n["metadata"]["stack_trace"] = (
            '  File "model.py", line %d, in forward\n    y = op(x, w)\n' % line)
    return n


def program(nodes, out="y", values=None, input_specs=None, extra_inputs=()):
    tv = {"x": meta([2, 2]), "w": meta([2, 2]), out: meta([2, 2])}
    tv.update(values or {})
    specs = input_specs or [
        {"parameter": {"arg": {"name": "w"}, "parameter_name": "w"}},
        {"user_input": {"arg": tensor("x")}},
    ]
    inputs = [tensor("w"), tensor("x")] + list(extra_inputs)
    graph = {"inputs": inputs, "outputs": [tensor(out)], "nodes": nodes,
             "tensor_values": tv, "sym_int_values": {}, "sym_bool_values": {},
             "is_single_tensor_return": False, "custom_obj_values": {},
             "sym_float_values": {}}
    return {"graph_module": {
                "graph": graph,
                "signature": {"input_specs": specs,
                              "output_specs": [{"user_output": {"arg": tensor(out)}}]},
                "module_call_graph": [{"fqn": "", "signature": None}],
                "metadata": {}, "treespec_namedtuple_fields": {}},
            "opset_version": {"aten": 10}, "range_constraints": {},
            "schema_version": {"major": 8, "minor": 12}, "verifiers": ["ATEN"],
            "torch_version": "2.9.0"}


def add(line=12, alpha=None):
    ins = [("self", tensor("x")), ("other", tensor("w"))]
    if alpha is not None:
        ins.append(("alpha", alpha))
    return node("torch.ops.aten.add.Tensor", ins, [tensor("y")], line)


def case(name):
    """The model JSON and the bytes of parameter w for test case `name`."""
    w = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    if name == "ok":
        return program([add()]), w
    if name == "other_weights":  # same fqn 'w', different bytes
        return program([add()]), struct.pack("<4f", 5.0, 6.0, 7.0, 8.0)
    if name == "positional":  # no argument names: matched by position
        n = add()
        for i in n["inputs"]:
            i["name"] = ""
        return program([n]), w
    if name == "unknown_op":
        return program([node("torch.ops.aten.definitely_not_an_op.default",
                             [("self", tensor("x"))], [tensor("y")], 12)]), w
    if name == "bad_arg_type":
        return program([add(alpha={"as_string": "two"})]), w
    if name == "missing_arg":
        return program([node("torch.ops.aten.mm.default", [("self", tensor("x"))],
                             [tensor("y")], 12)]), w
    if name == "python_op":
        return program([node("_operator.add", [("", tensor("x")), ("", tensor("w"))],
                             [tensor("y")], 12)]), w
    if name == "unknown_target":  # neither torch.ops nor size arithmetic
        return program([node("mylib.frobnicate", [("", tensor("x"))],
                             [tensor("y")], 12)]), w
    if name == "negative_size":
        return program([add()], values={"x": meta([-3, 2])}), w
    if name == "two_errors":  # two independent bad nodes and one that uses
        # the first's output: the two are reported, the user of 'p' is not
        return program([node("torch.ops.aten.permute.default",
                              [("self", tensor("x")), ("dims", {"as_ints": [0, 0]})],
                              [tensor("p")], 12),
                        node("torch.ops.aten.mm.default",
                              [("self", tensor("p")), ("mat2", tensor("p"))],
                              [tensor("q")], 13),
                        node("torch.ops.aten.permute.default",
                              [("self", tensor("x")), ("dims", {"as_ints": [1, 1]})],
                              [tensor("y")], 14)],
                       values={"p": meta([2, 2]), "q": meta([2, 3])}), w
    if name == "cond":
        return program([node("torch.ops.higher_order.cond",
                             [("", {"as_bool": True}), ("", tensor("x"))],
                             [tensor("y")], 12)]), w
    if name == "map":
        return program([node("torch.ops.higher_order.map_impl",
                             [("", tensor("x"))], [tensor("y")], 12)]), w
    if name in ("grad_wrapper", "autocast_wrapper"):
        # wrap_with_set_grad_enabled(False, sub, x, w) /
        # wrap_with_autocast("cpu", bfloat16, True, False, sub, x, w)
        sub = {"inputs": [tensor("a"), tensor("b")], "outputs": [tensor("s")],
               "nodes": [node("torch.ops.aten.mul.Tensor",
                              [("self", tensor("a")), ("other", tensor("b"))],
                              [tensor("s")], 14)],
               "tensor_values": {k: meta([2, 2]) for k in ("a", "b", "s")},
               "sym_int_values": {}, "sym_bool_values": {},
               "is_single_tensor_return": True}
        body = [("", {"as_graph": {"name": "submod_1", "graph": sub}}),
                ("", tensor("x")), ("", tensor("w"))]
        if name == "grad_wrapper":
            hop = node("torch.ops.higher_order.wrap_with_set_grad_enabled",
                       [("", {"as_bool": False})] + body, [tensor("y")], 13)
        else:
            hop = node("torch.ops.higher_order.wrap_with_autocast",
                       [("", {"as_string": "cpu"}), ("", {"as_scalar_type": 13}),
                        ("", {"as_bool": True}), ("", {"as_bool": False})] + body,
                       [tensor("y")], 13)
        return program([hop]), w
    if name == "undefined_value":  # uses a name no input or node defines
        return program([node("torch.ops.aten.add.Tensor",
                             [("self", tensor("x")), ("other", tensor("ghost"))],
                             [tensor("y")], 12)]), w
    if name == "no_meta":  # the node's output has no tensor_values entry
        p = program([add()])
        del p["graph_module"]["graph"]["tensor_values"]["y"]
        return p, w
    if name == "result_count":  # max.dim returns two values, the node lists one
        return program([node("torch.ops.aten.max.dim",
                             [("self", tensor("x")), ("dim", {"as_int": 0})],
                             [tensor("y")], 12)]), w
    if name == "number_for_tensor":  # mm has no Scalar overload
        return program([node("torch.ops.aten.mm.default",
                             [("self", tensor("x")), ("mat2", {"as_float": 2.0})],
                             [tensor("y")], 12)]), w
    if name == "unknown_arg":
        n = add()
        n["inputs"].append({"name": "beta", "arg": {"as_int": 1}, "kind": 2})
        return program([n]), w
    if name.startswith("symbolic_dim"):
        # x: [size, 2] with a symbolic size (the import stops there, or at
        # the add, whose other operand is static).
        s0 = "Symbol('s0', integer=True, positive=True)"
        size = {"symbolic_dim": s0,                                   # broadcast mismatch
                "symbolic_dim_unbounded": s0,
                "symbolic_dim_no_range": "Symbol('u0', integer=True)",
                "symbolic_dim_decreasing": "Add(Integer(32), Mul(Integer(-1), %s))" % s0,
                "symbolic_dim_weight": s0}[name]
        sym = {"expr_str": size, "hint": {"as_int": 2}}
        p = program([add()])
        tv = p["graph_module"]["graph"]["tensor_values"]
        tv["x"] = meta([sym, 2])
        if name == "symbolic_dim_weight":
            tv["w"] = meta([sym, 2])
        p["range_constraints"] = {"s0": {"min_val": 2, "max_val": 64}}
        if name == "symbolic_dim_unbounded":
            p["range_constraints"]["s0"]["max_val"] = None
        return p, w
    if name == "custom_obj":
        specs = [{"parameter": {"arg": {"name": "w"}, "parameter_name": "w"}},
                 {"user_input": {"arg": tensor("x")}},
                 {"custom_obj": {"arg": {"name": "obj", "class_fqn": "__torch__.torch.classes.my.Obj"},
                                 "custom_obj_name": "obj"}}]
        return program([add()], input_specs=specs,
                       extra_inputs=[{"as_custom_obj": {
                           "name": "obj", "class_fqn": "__torch__.torch.classes.my.Obj"}}]), w
    # Nodes the schema accepts but the operator's semantics do not: each must
    # be reported at the node's line, naming the node (shape rules).
    if name in ("permute_out_of_range", "permute_duplicate", "permute_empty"):
        dims = {"permute_out_of_range": [0, 5], "permute_duplicate": [0, 0],
                "permute_empty": []}[name]
        return program([node("torch.ops.aten.permute.default",
                             [("self", tensor("x")), ("dims", {"as_ints": dims})],
                             [tensor("y")], 12)]), w
    if name == "declared_dtype":  # add of two float32 tensors declared int64
        return program([add()], values={"y": meta([2, 2], dtype=5)}), w
    if name == "declared_shape":  # add of two [2, 2] tensors declared [2, 3]
        return program([add()], values={"y": meta([2, 3])}), w
    if name == "view_count":  # 4 elements viewed as 6
        return program([node("torch.ops.aten.view.default",
                             [("self", tensor("x")), ("size", {"as_ints": [3, 2]})],
                             [tensor("y")], 12)], values={"y": meta([3, 2])}), w
    if name == "mm_inner":  # [2, 3] @ [2, 2]
        return program([node("torch.ops.aten.mm.default",
                             [("self", tensor("x")), ("mat2", tensor("w"))],
                             [tensor("y")], 12)], values={"x": meta([2, 3])}), w
    if name == "rank_limit":  # an output of 17 dims
        return program([node("torch.ops.aten.view.default",
                             [("self", tensor("x")), ("size", {"as_ints": [1] * 15 + [2, 2]})],
                             [tensor("y")], 12)], values={"y": meta([1] * 15 + [2, 2])}), w
    if name == "hop_body":  # a bad node inside an inlined wrapper's subgraph
        sub = {"inputs": [tensor("a")], "outputs": [tensor("s")],
               "nodes": [node("torch.ops.aten.permute.default",
                              [("self", tensor("a")), ("dims", {"as_ints": [1, 1]})],
                              [tensor("s")], 14)],
               "tensor_values": {k: meta([2, 2]) for k in ("a", "s")},
               "sym_int_values": {}, "sym_bool_values": {},
               "is_single_tensor_return": True}
        hop = node("torch.ops.higher_order.wrap_with_set_grad_enabled",
                   [("", {"as_bool": False}),
                    ("", {"as_graph": {"name": "submod_1", "graph": sub}}),
                    ("", tensor("x"))], [tensor("y")], 13)
        return program([hop]), w
    if name == "auto_functionalized_custom":  # a custom op: no kernel
        n = node("torch.ops.higher_order.auto_functionalized_v2",
                 [("", {"as_operator": "torch.ops.mylib.scale_.default"}),
                  ("_x_base_index", {"as_int": 0}),
                  ("_all_bases", {"as_tensors": [{"name": "x"}]})],
                 [{"as_none": True}, tensor("y")], 12)
        return program([n]), w
    if name.startswith("auto_functionalized"):
        # After run_decompositions() an op that writes its arguments and has
        # no functional form is wrapped. torch wraps only custom ops; these
        # wrap aten::mul_.Scalar so that the unwrapped program can run:
        # y = x with the written view of x's clone tripled (x unchanged).
        view = name.split(":")[1] if ":" in name else "slice"
        if name.startswith("auto_functionalized_v1"):
            kw = [("self", tensor("x")), ("other", {"as_float": 3.0})]
            hop = "torch.ops.higher_order.auto_functionalized"
        else:
            info = {"slice": [("_self_slice_dim", {"as_int": 0}),
                              ("_self_slice_start", {"as_int": 1}),
                              ("_self_slice_end", {"as_int": 2})],
                    "strided": [("_self_size", {"as_ints": [2]}),   # the diagonal
                                ("_self_stride", {"as_ints": [3]}),
                                ("_self_storage_offset", {"as_int": 0})],
                    "alias": [("_self_alias", {"as_bool": True})],
                    "base": []}[view]
            kw = ([("other", {"as_float": 3.0}), ("_self_base_index", {"as_int": 0})] +
                  info + [("_all_bases", {"as_tensors": [{"name": "x"}]})])
            hop = "torch.ops.higher_order.auto_functionalized_v2"
        n = node(hop, [("", {"as_operator": "torch.ops.aten.mul_.Scalar"})] + kw,
                 [{"as_none": True}, tensor("y")], 12)
        for i in n["inputs"][1:]:
            i["kind"] = 2
        return program([n]), w
    if name == "with_effects":
        # with_effects(token, aten._print, "hi") and with_effects(token,
        # aten.mul.Tensor, x, w): tokens in and out of the signature.
        p = program([node("torch.ops.higher_order.with_effects",
                          [("", tensor("t0")), ("", {"as_operator": "torch.ops.aten._print.default"}),
                           ("", {"as_string": "hi"})],
                          [tensor("t1"), {"as_none": True}], 12),
                     node("torch.ops.higher_order.with_effects",
                          [("", tensor("t1")), ("", {"as_operator": "torch.ops.aten.mul.Tensor"}),
                           ("", tensor("x")), ("", tensor("w"))],
                          [tensor("t2"), tensor("y")], 13)],
                    values={"t0": meta([0]), "t1": meta([0]), "t2": meta([0])},
                    input_specs=[{"token": {"arg": {"name": "t0"}}},
                                 {"parameter": {"arg": {"name": "w"}, "parameter_name": "w"}},
                                 {"user_input": {"arg": tensor("x")}}])
        g = p["graph_module"]["graph"]
        g["inputs"] = [tensor("t0")] + g["inputs"]
        g["outputs"] = [tensor("t2")] + g["outputs"]
        p["graph_module"]["signature"]["output_specs"].insert(
            0, {"token": {"arg": {"name": "t2"}}})
        return p, w
    if name in ("item", "item_unbounded"):
        # u = p.item() (p: i64 scalar input) used as a slice start; with
        # range_constraints u0 in [0, 1] (torch._check) or without a bound.
        p = program([node("torch.ops.aten.item.default", [("self", tensor("p"))],
                          [{"as_sym_int": {"as_name": "u"}}], 12),
                     node("torch.ops.aten.slice.Tensor",
                          [("self", tensor("x")), ("dim", {"as_int": 0}),
                           ("start", {"as_sym_int": {"as_name": "u"}}),
                           ("end", {"as_sym_int": {"as_name": "e"}})],
                          [tensor("s")], 13),
                     node("_operator.add", [("", {"as_sym_int": {"as_name": "u"}}),
                                            ("", {"as_int": 1})],
                          [{"as_sym_int": {"as_name": "e"}}], 13),
                     node("torch.ops.aten.mul.Tensor", [("self", tensor("s")), ("other", tensor("w"))],
                          [tensor("y")], 14)],
                    values={"p": meta([], dtype=5), "s": meta([1, 2]), "y": meta([2, 2])},
                    input_specs=[{"parameter": {"arg": {"name": "w"}, "parameter_name": "w"}},
                                 {"user_input": {"arg": tensor("x")}},
                                 {"user_input": {"arg": tensor("p")}}],
                    extra_inputs=[tensor("p")])
        g = p["graph_module"]["graph"]
        # the add must come before the slice that uses it
        g["nodes"] = [g["nodes"][0], g["nodes"][2], g["nodes"][1], g["nodes"][3]]
        g["sym_int_values"] = {"u": {"as_expr": {"expr_str": "u0", "hint": None}},
                               "e": {"as_expr": {"expr_str": "u0 + 1", "hint": None}}}
        if name == "item":
            p["range_constraints"] = {"u0": {"min_val": 0, "max_val": 1}}
        return p, w
    if name == "stray_token":  # a token used as a tensor
        p = case("with_effects")[0]
        p["graph_module"]["graph"]["nodes"].append(
            node("torch.ops.aten.relu.default", [("self", tensor("t2"))], [tensor("r")], 14))
        return p, w
    raise SystemExit("unknown case " + name)


def write(path, model, w):
    root = "model/"
    weights = {"config": {"w": {"path_name": "weight_0", "is_param": True,
                                "use_pickle": False, "tensor_meta": meta([2, 2])}}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(root + "archive_format", "pt2")
        z.writestr(root + "archive_version", "0")
        z.writestr(root + "byteorder", "little")
        z.writestr(root + "models/model.json", json.dumps(model))
        z.writestr(root + "data/weights/model_weights_config.json", json.dumps(weights))
        z.writestr(root + "data/weights/weight_0", w)
        z.writestr(root + "data/constants/model_constants_config.json",
                   json.dumps({"config": {}}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    write(sys.argv[2], *case(sys.argv[1]))
