#!/usr/bin/env python3
"""Writes a legacy-zip .pt2 in an older ExportedProgram schema (no torch needed).

    make_old_pt2.py MAJOR OUT.pt2

One program in the spelling of schema MAJOR (1: torch 2.1, 2: torch 2.2,
3: development builds of early 2024, 5: torch 2.3), per the pt2 format spec
and docs/pt2-reader.md ("Schema versions"):

    inputs   parameter w float32[2,2] = 1 2 3 4, buffer count int64[] = 41,
             user input x float32[2,2]
    y = aten.add.Tensor(x, w);  c = aten.add.Scalar(count, 1)
    outputs  buffer mutation count <- c, user output y

The container is what torch.export.save wrote then: Python zipfile entries
serialized_exported_program.json, the state dict as a torch.save zip
(hand-written pickle, protocol 2) named serialized_state_dict.json in torch
2.1 and .pt later, and a `version` record.
"""

import json
import struct
import sys
import zipfile

ARGUMENT = ["as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float",
            "as_floats", "as_string", "as_strings", "as_sym_int", "as_sym_ints",
            "as_scalar_type", "as_memory_format", "as_layout", "as_device", "as_bool",
            "as_bools", "as_sym_bool", "as_sym_bools", "as_graph", "as_optional_tensors",
            "as_custom_obj"]
FIELDS = {"Argument": ARGUMENT, "SymInt": ["as_expr", "as_int"],
          "InputSpec": ["user_input", "parameter", "buffer", "tensor_constant", "custom_obj"],
          "OutputSpec": ["user_output", "loss_output", "buffer_mutation",
                         "gradient_to_parameter", "gradient_to_user_input"]}


def union(major, kind, key, value):
    if major >= 5:
        return {key: value}
    if major >= 3:
        return {"$type": key, "$value": value}
    u = {f: None for f in FIELDS[kind]}  # dataclasses.asdict: every field
    u[key] = value
    return u


def program(m):
    arg = lambda key, value: union(m, "Argument", key, value)
    tensor = lambda name: arg("as_tensor", {"name": name})
    sym = lambda v: union(m, "SymInt", "as_int", v)

    def meta(dtype, sizes):
        strides = [sizes[1], 1] if sizes else []
        return {"dtype": dtype, "sizes": [sym(s) for s in sizes], "requires_grad": False,
                "device": {"type": "cpu", "index": None},
                "strides": [sym(s) for s in strides],
                "storage_offset": 0 if m < 5 else sym(0), "layout": 7}

    def node(target, inputs, out):
        return {"target": target, "outputs": [tensor(out)], "metadata": {},
                "inputs": [{"name": k, "arg": v} for k, v in inputs]}

    w, count, x = ("arg0_1", "arg1_1", "arg2_1") if m <= 4 else ("p_w", "b_count", "x")
    graph = {"inputs": [tensor(w), tensor(count), tensor(x)],
             "outputs": [tensor("c"), tensor("y")],
             "nodes": [node("torch.ops.aten.add.Tensor",
                            [("self", tensor(x)), ("other", tensor(w))], "y"),
                       node("torch.ops.aten.add.Scalar",
                            [("self", tensor(count)), ("other", arg("as_int", 1))], "c")],
             "tensor_values": {w: meta(7, [2, 2]), count: meta(5, []), x: meta(7, [2, 2]),
                               "y": meta(7, [2, 2]), "c": meta(5, [])},
             "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False}
    in_spec = '[1, {"type": "builtins.tuple", "context": "null", "children_spec": []}]'
    out_spec = '[1, {"type": "builtins.tuple", "context": "null", "children_spec": []}]'
    if m == 1:  # name maps, pytree specs in call_spec
        gm = {"graph": graph,
              "signature": {"inputs_to_parameters": {w: "w"}, "inputs_to_buffers": {count: "count"},
                            "user_inputs": [x], "user_outputs": ["y"],
                            "buffers_to_mutate": {"c": "count"}, "backward_signature": None},
              "call_spec": {"in_spec": in_spec, "out_spec": out_spec}}
    else:
        spec = lambda kind, key, value: union(m, kind, key, value)
        buffer = {"arg": {"name": count}, "buffer_name": "count"}
        if m >= 3:
            buffer["persistent"] = True
        gm = {"graph": graph,
              "signature": {
                  "input_specs": [
                      spec("InputSpec", "parameter", {"arg": {"name": w}, "parameter_name": "w"}),
                      spec("InputSpec", "buffer", buffer),
                      spec("InputSpec", "user_input", {"arg": tensor(x)})],
                  "output_specs": [
                      spec("OutputSpec", "buffer_mutation", {"arg": {"name": "c"}, "buffer_name": "count"}),
                      spec("OutputSpec", "user_output", {"arg": tensor("y")})]},
              "module_call_graph": [{"fqn": "", "signature": {
                  "inputs": [], "outputs": [], "in_spec": in_spec, "out_spec": out_spec}}]}
    doc = {"graph_module": gm, "opset_version": {"aten": 10}, "range_constraints": {}}
    if m <= 2:
        doc["schema_version"] = m
    else:
        doc["schema_version"] = {"major": m, "minor": 1}
    if m == 1:
        doc["equality_constraints"] = []
        doc["example_inputs"] = None
    else:
        doc["dialect"] = "ATEN"
    return doc


def state_dict():
    """torch.save(OrderedDict(w=..., count=...)) as a zip, pickle written by hand."""
    def uni(s):
        return b"X" + struct.pack("<I", len(s)) + s.encode()

    def storage(kind, key, numel):
        return (b"((" + uni("storage") + b"ctorch\n" + kind.encode() + b"\n" + uni(key) +
                uni("cpu") + b"K" + bytes([numel]) + b"tQ")

    p = b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01"
    p += uni("w") + b"ctorch._utils\n_rebuild_tensor_v2\nq\x02"
    p += storage("FloatStorage", "0", 4) + b"K\x00K\x02K\x02\x86K\x02K\x01\x86\x89h\x00)RtRs"
    p += uni("count") + b"h\x02" + storage("LongStorage", "1", 1) + b"K\x00))\x89h\x00)RtRs."
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", p)
        z.writestr("archive/data/0", struct.pack("<4f", 1.0, 2.0, 3.0, 4.0))
        z.writestr("archive/data/1", struct.pack("<q", 41))
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


def write(path, major):
    version = str(major) if major <= 2 else "%d.1" % major
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("serialized_exported_program.json", json.dumps(program(major)))
        z.writestr("serialized_state_dict.json" if major == 1 else "serialized_state_dict.pt",
                   state_dict())
        z.writestr("version", version)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    write(sys.argv[2], int(sys.argv[1]))
