"""Multi-call reference records shared by gen_zoo.py (torch 1.13) and
gen_zoo_export.py (torch.export): per-call inputs, the side files of each call
and their meta.json entries.

A method that mutates state is recorded over CALLS consecutive calls of one
eager module (state carries over) with fresh inputs per call. Call 0 keeps the
plain file names (input_<i>.npy, expected_<i>.npy, state_after_<fqn>.npy);
call k >= 1 writes call<k>_input_<i>.npy, call<k>_expected_<i>.npy and
call<k>_state_<fqn>.npy. Expected outputs follow the program's output order
without buffer mutations (user_input_mutation outputs stay, as in the .pte).
"""

import io
import zlib

import numpy as np
import torch

CALLS = 3

NP_DTYPE = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool",
            torch.int32: "int32", torch.float64: "float64"}


def npy_bytes(t):
    a = np.array(t.detach().cpu().numpy(), order="C", copy=True)  # keeps 0-d shapes
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    b = io.BytesIO()
    np.lib.format.write_array(b, a, version=(1, 0), allow_pickle=False)
    return b.getvalue()


def call_inputs(model_name, method, inputs, call):
    """Inputs of call `call`: the example inputs first, then fresh ones of the same
    shapes and dtypes from a seed derived from the model, method and call."""
    if call == 0:
        return [t.clone() for t in inputs]
    seed = zlib.crc32(("%s/%s/%d" % (model_name, method, call)).encode())
    gen = torch.Generator().manual_seed(seed)
    out = []
    for t in inputs:
        if t.dtype.is_floating_point:
            out.append(torch.randn(t.shape, generator=gen, dtype=t.dtype))
        else:
            out.append(torch.randint(0, 4, t.shape, generator=gen, dtype=t.dtype))
    return out


def call_files(prefix, user_names, out_names, calls):
    """calls: [(inputs, outputs, {fqn: state after the call})] in call order.
    Returns ({file name: bytes}, [meta entry per call])."""
    files, metas = {}, []
    for call, (ins, outs, state_after) in enumerate(calls):
        p = prefix if call == 0 else "%scall%d_" % (prefix, call)
        state_fmt = p + ("state_after_%s.npy" if call == 0 else "state_%s.npy")
        m = {"inputs": [], "outputs": [], "buffers_after": {}}
        for i, (nm, t) in enumerate(zip(user_names, ins)):
            fn = p + "input_%d.npy" % i
            files[fn] = npy_bytes(t)
            m["inputs"].append({"name": nm, "dtype": NP_DTYPE[t.dtype],
                                "shape": list(t.shape), "file": fn})
        for i, (t, nm) in enumerate(zip(outs, out_names)):
            fn = p + "expected_%d.npy" % i
            files[fn] = npy_bytes(t)
            m["outputs"].append({"name": nm, "dtype": NP_DTYPE[t.dtype],
                                 "shape": list(t.shape), "file": fn})
        for target, t in state_after.items():
            files[state_fmt % target] = npy_bytes(t)
            m["buffers_after"][target] = state_fmt % target
        metas.append(m)
    return files, metas


def method_meta(method, stem, metas, stateful):
    """The meta.json entry of one method: call 0 at top level, all calls in 'calls'."""
    first = metas[0]
    meta = {"method": method, "file": "%s.pt2" % stem, "inputs": first["inputs"],
            "outputs": first["outputs"], "buffers_after": first["buffers_after"]}
    if stateful:
        meta["calls"] = metas
    return meta


def fixture_meta(name, methods, rtol, atol):
    """meta.json's leading entries, from its methods' entries (method_meta): a
    single-method fixture also has that method's file, inputs, outputs and buffers at
    top level."""
    single = methods[0] if len(methods) == 1 else None
    meta = {"name": name}
    if single:
        meta.update({"file": single["file"], "inputs": single["inputs"],
                     "outputs": single["outputs"]})
    meta["methods"] = methods
    meta["rtol"], meta["atol"] = rtol, atol
    meta["buffers_after"] = single["buffers_after"] if single else {}
    return meta


def record_sequence(entry, method_metas, check=None):
    """An ordered multi-method run (entry.sequence) on ONE eager module: the state
    carries over from call to call and from method to method. `method_metas` maps a
    method to its meta entry (input/output names; its buffers_after keys are the
    buffers it mutates). check(method, inputs, outputs, buffers) lets the generator
    compare its own program run with the eager call. Files are seq<k>_input_<i>.npy,
    seq<k>_expected_<i>.npy, seq<k>_state_<fqn>.npy. Returns ({file: bytes},
    [{"method", "inputs", "outputs", "buffers_after"}] in call order)."""
    model = entry.factory()
    files, metas = {}, []

    def call(method, inputs):
        m = method_metas[method]
        ins = [t.clone() for t in inputs]
        with torch.no_grad():
            out = model(*[t.clone() for t in ins])
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        buffers = dict(model.named_buffers())
        state = {fqn: buffers[fqn].clone() for fqn in m["buffers_after"]}
        if check is not None:
            check(method, ins, outs, state)
        p = "seq%d_" % len(metas)
        rec = {"method": method, "inputs": [], "outputs": [], "buffers_after": {}}
        for i, (decl, t) in enumerate(zip(m["inputs"], ins)):
            files[p + "input_%d.npy" % i] = npy_bytes(t)
            rec["inputs"].append({"name": decl["name"], "dtype": NP_DTYPE[t.dtype],
                                  "shape": list(t.shape), "file": p + "input_%d.npy" % i})
        for i, (decl, t) in enumerate(zip(m["outputs"], outs)):
            files[p + "expected_%d.npy" % i] = npy_bytes(t)
            rec["outputs"].append({"name": decl["name"], "dtype": NP_DTYPE[t.dtype],
                                   "shape": list(t.shape), "file": p + "expected_%d.npy" % i})
        for fqn, t in state.items():
            files[p + "state_%s.npy" % fqn] = npy_bytes(t)
            rec["buffers_after"][fqn] = p + "state_%s.npy" % fqn
        metas.append(rec)
        return [o.clone() for o in outs]

    entry.sequence(call)
    return files, metas
