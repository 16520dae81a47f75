"""llama_dynamic (real-model shapes): zoo_models.LlamaDecoder as two methods sharing weights and
KV caches, `prefill` with a DYNAMIC prompt length and `decode` (one token), plus a
meta 'sequence' of three conversations in one loaded program. Written by
gen_zoo_dynamic.py (`--only llama_dynamic`); this module holds what is llama-specific.

The prefill archive is what torch 2.9 writes for
    export(m, (tokens, input_pos), dynamic_shapes={"tokens": {1: seq},
           "input_pos": {0: seq}}).run_decompositions()
with seq = Dim("seq", min=1, max=12): both inputs share the symbol s0 in [1, 12]
(context 16), the sizes that follow the prompt length are `sym_size.int(tokens, 1)`.
torch 1.13 cannot export symbolically, so the module is traced statically at
s = 5, 6, 7 and gen_zoo_dynamic.symbolize turns the integers that follow s into uses of
one sym_size node. The sizes avoid the model's constants (head_dim 8, 4 query / 2 KV
heads, rotate-half 4, dim 32, hidden and vocab 64, context 16, batch 1), so no size
list mixes the prompt length with an equal constant, even at the hint; an integer
that changes between the traces must equal s in every trace or generation stops (a
derived size such as 4 * s would need _operator nodes; none occurs here).
The rotary tables and the causal mask are indexed / compared by `input_pos`, a tensor,
so they need no size arithmetic; the KV cache is written by index_put at input_pos
and read whole (16 positions, masked), so its shapes are static.

`decode` is the static graph of the same module at one token (gen_zoo.generate_method,
as for llama_decoder). The sequence (zoo_calls.record_sequence on ONE eager module,
checked against both graphs with the state shared by FQN) runs three conversations,
each a prefill from position 0 then greedy decode steps: prompt 5 (the export
example), then 12 (the bound) and 1 (the lower bound). A later conversation overwrites
the cache from position 0; the stale entries above its positions stay masked. A prompt
of 13 tokens must be refused (meta 'refused_calls').
"""

import zlib

import sympy
import torch

import gen_zoo as gz
import gen_zoo_dynamic as gd
import zoo_models as zm
from zoo_calls import call_files, method_meta, npy_bytes, record_sequence, NP_DTYPE

NAME = "llama_dynamic"
SEED = 24
USER_NAMES = ["tokens", "input_pos"]
LO, HI, HINT = 1, 12, 5           # s0 in [LO, HI]; export example and first trace: HINT
REFUSED = HI + 1
CONVERSATIONS = [(5, 4), (12, 3), (1, 2)]   # (prompt length, greedy decode steps)
RTOL, ATOL = 1e-4, 1e-5
NOTES = ("zoo_models.LlamaDecoder (vocab 64, dim 32, 2 layers, 4 query / 2 KV heads, "
         "RMSNorm, rotary, SiLU MLP, context 16, KV caches in mutable buffers) as two "
         "methods sharing weights and caches: prefill with a DYNAMIC prompt length "
         "(tokens i64[1, s0], input_pos i64[s0], 1 <= s0 <= 12; sizes from "
         "sym_size.int(tokens, 1)) and decode (one token, static). 'sequence': three "
         "conversations in one loaded program, prefill of 5, 12 and 1 tokens from "
         "position 0, each followed by greedy decode steps (4, 3, 2). A 13-token prompt "
         "must be refused. Compile with --share-mutable-buffers.")


def factory():
    return zm._build(zm.LlamaDecoder, SEED)


def prompt(s):
    gen = torch.Generator().manual_seed(zlib.crc32(("%s/prompt/%d" % (NAME, s)).encode()))
    return [torch.randint(0, 64, (1, s), generator=gen), torch.arange(s)]


def decode_example():
    return [torch.tensor([[7]]), torch.tensor([HINT])]


def sequence(call):
    """Three conversations: prefill from position 0, then greedy decoding (each step
    feeds back the argmax token at the next position)."""
    for s, steps in CONVERSATIONS:
        logits = call("prefill", prompt(s))[0]
        for k in range(steps):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            logits = call("decode", (nxt, torch.tensor([s + k])))[0]


class Spec:
    """What gen_zoo_dynamic.symbolize / symbolic_metas need: s0 is dim 1 of `tokens`
    (placeholder -2; `input_pos` dim 0 is the same symbol)."""
    name = NAME
    dim = 1
    sym_input = -2
    symbol = sympy.Symbol("s0", integer=True, positive=True)

    def inputs(self, v):
        return prompt(v)

    def size_trace(self):
        rel = gz.MODELS_REL
        return (gd.frame(zm.LlamaDecoder, "forward", "x = layer(", rel)
                + gd.frame(zm.DecoderLayer, "forward", "self.attention(", rel)
                + gd.frame(zm.Attention, "forward", "b, s, _ = x.shape", rel))


def entry():
    e = zm.ZooEntry(NAME, factory, [], NOTES, sequence=sequence)
    e.rtol, e.atol = RTOL, ATOL
    return e


def prefill_method(spec):
    """The symbolic prefill program, its files and meta entry (one call from the
    initial state at the export example, and the refused call)."""
    values = [HINT, HINT + 1, HINT + 2]
    progs = []
    for v in values:
        model = factory()
        gm, pnames, bnames = gz.trace_method(model, prompt(v))
        progs.append(gz.build_program(gm, model, pnames, bnames, USER_NAMES))
    model = progs[0].model
    prog = gd.symbolize(spec, progs, values)
    gd.Serializer.metas, gd.Serializer.sym_exprs, env = gd.symbolic_metas(
        spec, prog, model, values + [HINT + 3])

    ins = prompt(HINT)
    ref = factory()
    with torch.no_grad():
        want = ref(*[t.clone() for t in ins])
    n_mut = sum(1 for k, _ in prog.output_kinds if k != "user_output")
    state = ([p.detach().clone() for _, p in model.named_parameters()]
             + [b.detach().clone() for _, b in model.named_buffers()])
    _, got = gz.run_program(prog, state, ins)
    assert torch.allclose(got[n_mut], want, rtol=1e-5, atol=1e-5), "prefill output"
    buffers = dict(ref.named_buffers())
    state_after = {}
    for (kind, target), g in zip(prog.output_kinds[:n_mut], got[:n_mut]):
        assert kind == "buffer_mutation" and torch.allclose(g, buffers[target]), target
        state_after[target] = buffers[target].clone()

    ep = gz.exported_program_json(prog, env)
    ep["range_constraints"] = {str(spec.symbol): {"min_val": LO, "max_val": HI}}
    files = {"prefill.pt2": gz.write_pt2("prefill", ep, model, ins),
             "graph_prefill.txt": gd.graph_text(NAME, ep, "prefill").encode()}
    out_names = [o["user_output"]["arg"]["as_tensor"]["name"]
                 for o in ep["graph_module"]["signature"]["output_specs"] if "user_output" in o]
    f, metas = call_files("prefill_", USER_NAMES, out_names, [(ins, [want], state_after)])
    files.update(f)
    m = method_meta("prefill", "prefill", metas, False)
    refused = []
    for i, (nm, t) in enumerate(zip(USER_NAMES, prompt(REFUSED))):
        fn = "prefill_refused_0_input_%d.npy" % i
        files[fn] = npy_bytes(t)
        refused.append({"name": nm, "dtype": NP_DTYPE[t.dtype], "shape": list(t.shape),
                        "file": fn})
    m["refused_calls"] = [{
        "inputs": refused, "error": "bound",
        "why": "a prompt of %d tokens: tokens dim 1 = input_pos dim 0 = %d is above the "
               "bound %s <= %d" % (REFUSED, REFUSED, spec.symbol, HI)}]
    return prog, files, m, ep["range_constraints"]


def generate():
    """Returns (files, meta.json dict)."""
    spec, e = Spec(), entry()
    with gd.our_serializer():
        prefill, files, pm, ranges = prefill_method(spec)
    gd.Serializer.metas, gd.Serializer.sym_exprs = {}, {}
    progs = {"prefill": prefill}
    f, dm = gz.generate_method(e, "decode", "decode", USER_NAMES, decode_example(), progs)
    files.update(f)
    methods = [pm, dm]
    meta = {"name": NAME, "methods": methods, "rtol": RTOL, "atol": ATOL,
            "buffers_after": {},
            "dynamic_dims": {"prefill": {"tokens": {"1": "s0"}, "input_pos": {"0": "s0"}}},
            "range_constraints": ranges}
    f, meta["sequence"] = record_sequence(e, {m["method"]: m for m in methods},
                                          gz.sequence_check(e, progs))
    files.update(f)
    meta["notes"] = NOTES
    return files, meta
