#!/usr/bin/env python3
"""Generate the MODERN torch.export fixtures (test/models_modern/<name>/).

Run with the modern-PyTorch venv (scripts/venv.sh prints its python):

    $(scripts/venv.sh | tail -1) test/models/gen_zoo_modern.py            # all committed
    $(scripts/venv.sh | tail -1) test/models/gen_zoo_modern.py --only llama_kv
    $(scripts/venv.sh | tail -1) test/models/gen_zoo_modern.py --only resnet18 --out DIR

Every fixture is what current PyTorch's `torch.export.export(model, args,
dynamic_shapes=...)` returns: the TRAINING IR, which is in general NOT functional (it
keeps in-place ops such as relu_, add_, masked_fill_, copy_, index_copy_, index_put_,
mutates buffers and user inputs in place, also through slice/select/view/t views, and
its signature has no buffer_mutation / user_input_mutation outputs for them). Each
method is saved twice with `torch.export.save`:

* raw:        the program exactly as export returns it      -> <stem>.pt2
* decomposed: `ep.run_decompositions()` (core ATen, functional, mutation outputs)
                                                             -> <stem>_dec.pt2

(<stem> is `model` for one-method fixtures, else the method name.) Node `stack_trace`
metadata (absolute paths of this machine and of the torch install) and `from_node`
provenance (graph ids that are object addresses) are removed before saving; everything
else is as torch writes it. The output is deterministic
(fixed seeds; torch.export.save writes fixed zip timestamps).

Reference outputs come from the ORIGINAL eager module (eval mode, except `bn_train`,
which is exported and run in train mode), over CALLS = 3 consecutive calls with the
state carried over for stateful methods (zoo_calls.py: call_inputs, call_files), or
over a multi-method `sequence` (zoo_calls.record_sequence). Per call: the inputs, the
expected outputs, and every buffer the program mutates after the call. Expected outputs
are in the DECOMPOSED program's output order without buffer mutations: mutated user
inputs first (their value after the call, in the order of the user_input_mutation
output specs), then the user outputs. The raw form has the same user-visible outputs;
a functionalizing compiler must give the mutated inputs back in that same order.
The generator checks its references independently: both saved archives are loaded
back (`torch.export.load(...).module()`) and run over all calls / the whole sequence
(state carried over, shared by FQN between the methods of a sequence); every output,
mutated input and mutated buffer must match eager (asserted).

Files in a fixture folder (the zoo's layout, docs/fixtures.md, plus the forms):

    <stem>.pt2, <stem>_dec.pt2            raw and decomposed archives
    graph[_<stem>].txt, graph[_<stem>]_dec.txt
                                          the graphs as torch prints them, with the
                                          signature and a list of the in-place and view
                                          ops each one contains
    input_<i>.npy, expected_<i>.npy, state_after_<fqn>.npy, call<k>_*, seq<k>_*, ...
    meta.json                             the zoo's format (test/e2e/run_model.py);
                                          methods[].file name the RAW archives, and

    "forms": {"raw":        {"<method>": "<stem>.pt2", ...},
              "decomposed": {"<method>": "<stem>_dec.pt2", ...}},
    "graphs": {"raw": {"<method>": "graph....txt"}, "decomposed": {...}},

    names each form's archive per method (run_model.py --form raw|decomposed).
    "export": {"torch": version, "dialect": {"raw": "TRAINING", "decomposed": "ATEN"}}.

Fixtures (models defined below; sizes small enough to commit, except resnet18):

    inplace_ops         in-place ops and writes through views, a mutated user input
    bn_train            conv + BatchNorm2d exported in TRAIN mode (running stats mutate)
    llama_kv            tiny LLaMA decoder, prefill + decode sharing in-place KV caches
                        (k: index_copy_, v: v_cache[:, :, input_pos] = v, ExecuTorch's
                        static-shape KVCache.update)
    llama_kv_item       the same, v written as ExecuTorch's dynamic-shape path does:
                        start = input_pos[0].item(); v_cache[:, :, start:start + S] = v
                        (a copy_ into a slice view with an unbacked start)
    llama_kv_dynamic    llama_kv with a dynamic prompt length (Dim "seq") for prefill
    mobilenet_v3_small  torchvision, width 0.2, 1x3x64x64
    vit_small           torchvision VisionTransformer, 32x32, 2 layers, dim 32
    resnet18            torchvision, 1x3x64x64: ~90 MB for both forms, NOT committed;
                        only generated when named (--only resnet18 --out DIR), as the
                        e2e_modern_resnet18_* ctests do in the build tree.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from zoo_calls import (CALLS, NP_DTYPE, call_files, call_inputs,  # noqa: E402
                       fixture_meta, method_meta, npy_bytes, record_sequence)

DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "models_modern")
RTOL, ATOL = 1e-4, 1e-5

# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------


class InplaceOps(nn.Module):
    """In-place ops on intermediates, buffers written through views, a mutated input."""

    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.register_buffer("n", torch.zeros((), dtype=torch.int64))
        self.register_buffer("buf", torch.randn(6, 4))
        self.register_buffer("buf2", torch.randn(3, 4))
        self.register_buffer("buf3", torch.randn(2, 6))
        self.register_buffer("m", torch.randn(4, 3))

    def forward(self, x, y, idx):
        x.mul_(2)                                   # user input mutation
        h = x + 1
        h += y                                      # add_ on an intermediate
        h = self.relu(h)                            # relu_
        h.masked_fill_(h > 1.5, 1.5)                # masked_fill_
        self.n += 1                                 # counter buffer
        self.buf[1:3] = h[:2]                       # write through slice
        self.buf2[0] = y                            # write through select
        self.buf3.view(-1)[2:5].copy_(h[0, :3])     # write through view + slice
        self.buf3.view(-1)[idx] = h[1, :1]          # index_put_ through view
        self.m.t()[0].add_(1)                       # add_ through t() + select
        c = self.buf.clone()
        c[0:2].copy_(h[2:4])                        # slice copy_ into a clone
        out = c.sum(0) + self.buf2.sum(0) + self.m.sum() + self.buf3.sum() + self.n
        return out, h


class PrintEffects(nn.Module):
    """A debug print between in-place writes: run_decompositions() threads it through
    an effect token (with_effects, token input and output)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4, 3))

    def forward(self, x):
        self.acc[1:3].add_(x)                      # add_ through a slice of a buffer
        torch.ops.aten._print("acc updated")       # with_effects(token, aten._print, ...)
        y = self.acc * 2
        y.relu_()
        return y


class ConvBNTrain(nn.Module):
    """Conv + BatchNorm2d (train mode: batch statistics, running stats updated)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn(self.conv(x)))
        return y, y.mean((2, 3))


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotary(x, cos, sin):
    """Rotate-half rotary embedding; x [B, H, S, D], cos/sin [S, D]."""
    half = x.shape[-1] // 2
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


class KVAttention(nn.Module):
    """Grouped-query attention over KV caches [1, n_kv_heads, max_ctx, head_dim] that are
    updated IN PLACE, as ExecuTorch's llama example does (examples/models/llama,
    KVCache.update): k by `index_copy_` along the sequence dim at `input_pos`; v
    (v_update) either by `v_cache[:, :, input_pos] = v` ("index": index_put_, its
    static-shape path) or by a slice assignment at the start position read from
    `input_pos` ("slice_item": `.item()`, bounds declared with torch._check, then
    `v_cache[:, :, start:start + S] = v`, as its dynamic-shape path's narrow + copy_)."""

    def __init__(self, dim, n_heads, n_kv_heads, max_ctx, v_update="index"):
        super().__init__()
        self.v_update = v_update
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.max_ctx = max_ctx
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        shape = (1, n_kv_heads, max_ctx, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def forward(self, x, cos, sin, mask, input_pos):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, s, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, s, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q = _rotary(q, cos, sin)
        k = _rotary(k, cos, sin)
        self.k_cache.index_copy_(2, input_pos, k)
        if self.v_update == "slice_item":
            start = input_pos[0].item()
            torch._check(start >= 0)
            torch._check(start + s <= self.max_ctx)
            self.v_cache[:, :, start:start + s] = v
        else:
            self.v_cache[:, :, input_pos] = v
        rep = self.n_heads // self.n_kv_heads
        t = self.max_ctx
        keys = self.k_cache[:, :, None].expand(b, self.n_kv_heads, rep, t, self.head_dim)
        keys = keys.reshape(b, self.n_heads, t, self.head_dim)
        vals = self.v_cache[:, :, None].expand(b, self.n_kv_heads, rep, t, self.head_dim)
        vals = vals.reshape(b, self.n_heads, t, self.head_dim)
        y = F.scaled_dot_product_attention(q, keys, vals, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(b, s, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderLayer(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden, max_ctx, v_update):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = KVAttention(dim, n_heads, n_kv_heads, max_ctx, v_update)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, hidden)

    def forward(self, x, cos, sin, mask, input_pos):
        h = x + self.attention(self.attention_norm(x), cos, sin, mask, input_pos)
        return h + self.feed_forward(self.ffn_norm(h))


class KVLlama(nn.Module):
    """forward(tokens i64[1, S], input_pos i64[S]) -> logits f32[1, S, vocab]; the same
    module serves prefill (S = prompt length) and decode (S = 1). The rotary tables and
    the causal mask are non-persistent buffers indexed by input_pos (as in ExecuTorch's
    llama: freqs_cos / freqs_sin, mask)."""

    def __init__(self, vocab=64, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, hidden=64,
                 max_ctx=16, v_update="index"):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            DecoderLayer(dim, n_heads, n_kv_heads, hidden, max_ctx, v_update)
            for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        hd = dim // n_heads
        inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        ang = torch.outer(torch.arange(max_ctx, dtype=torch.float32), inv)
        ang = torch.cat([ang, ang], dim=-1)
        self.register_buffer("freqs_cos", ang.cos(), persistent=False)
        self.register_buffer("freqs_sin", ang.sin(), persistent=False)
        self.register_buffer("mask", torch.tril(torch.ones(max_ctx, max_ctx, dtype=torch.bool)),
                             persistent=False)

    def forward(self, tokens, input_pos):
        x = self.tok_embeddings(tokens)
        cos, sin = self.freqs_cos[input_pos], self.freqs_sin[input_pos]
        mask = self.mask[input_pos]                    # [S, max_ctx], True = visible
        for layer in self.layers:
            x = layer(x, cos, sin, mask, input_pos)
        return self.output(self.norm(x))


# --------------------------------------------------------------------------------------
# Fixture definitions
# --------------------------------------------------------------------------------------


class Method:
    """One exported method: example inputs (the export example and the first call),
    dynamic_shapes for torch.export, and optionally an explicit list of calls (input
    lists, state carried over) and inputs the runtime must refuse."""

    def __init__(self, method, stem, user_names, inputs, dynamic_shapes=None, calls=None,
                 refused=None):
        self.method, self.stem, self.user_names = method, stem, user_names
        self.inputs = inputs
        self.dynamic_shapes = dynamic_shapes
        self.calls = calls
        self.refused = refused or []


class Fixture:
    def __init__(self, name, factory, methods, notes, sequence=None, rtol=RTOL, atol=ATOL,
                 committed=True, extra_meta=None):
        self.name, self.factory, self.methods, self.notes = name, factory, methods, notes
        self.sequence = sequence
        self.rtol, self.atol = rtol, atol
        self.committed = committed
        self.extra_meta = extra_meta or {}


def _seeded(seed, make, train=False, bn=False):
    def factory():
        torch.manual_seed(seed)
        m = make()
        if bn:
            _randomize_bn(m, torch.Generator().manual_seed(seed + 1000))
        return m.train() if train else m.eval()
    return factory


def _randomize_bn(module, gen):
    """Non-trivial BatchNorm affine params and running statistics (eval-mode models)."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            with torch.no_grad():
                m.weight.copy_(1.0 + 0.2 * torch.randn(n, generator=gen))
                m.bias.copy_(0.1 * torch.randn(n, generator=gen))
                m.running_mean.copy_(0.1 * torch.randn(n, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(n, generator=gen))
                m.num_batches_tracked.fill_(100)


def _randn(tag, *shape):
    gen = torch.Generator().manual_seed(zlib.crc32(tag.encode()))
    return torch.randn(*shape, generator=gen)


LLAMA_SEED = 41
LLAMA_CTX = 16
LLAMA_PROMPT = 8
LLAMA_STEPS = 5
DYN_LO, DYN_HI, DYN_HINT = 1, 12, 5
DYN_CONVERSATIONS = [(5, 4), (12, 3), (1, 2)]      # (prompt length, greedy decode steps)


def _llama(v_update="index"):
    return lambda: KVLlama(max_ctx=LLAMA_CTX, v_update=v_update)


def _prompt(name, s):
    gen = torch.Generator().manual_seed(zlib.crc32(("%s/prompt/%d" % (name, s)).encode()))
    return [torch.randint(0, 64, (1, s), generator=gen), torch.arange(s)]


def _greedy(call, name, conversations):
    for s, steps in conversations:
        logits = call("prefill", _prompt(name, s))[0]
        for k in range(steps):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            logits = call("decode", (nxt, torch.tensor([s + k])))[0]


def _torchvision(fn, **kw):
    import torchvision
    return lambda: getattr(torchvision.models, fn)(**kw) if fn != "VisionTransformer" \
        else torchvision.models.VisionTransformer(**kw)


def fixtures():
    seq = torch.export.Dim("seq", min=DYN_LO, max=DYN_HI)
    def llama_notes(v_update):
        v = ("v_cache[:, :, input_pos] = v (index_put_; ExecuTorch's static-shape "
             "KVCache.update)" if v_update == "index" else
             "start = input_pos[0].item() (torch._check(start >= 0), torch._check(start + "
             "S <= %d)) and v_cache[:, :, start:start + S] = v (copy_ into a slice view "
             "with an unbacked start; ExecuTorch's dynamic-shape KVCache.update, narrow + "
             "copy_)" % LLAMA_CTX)
        return ("Tiny LLaMA-style decoder (vocab 64, dim 32, 2 layers, 4 query / 2 KV "
                "heads, RMSNorm, rotate-half rotary from non-persistent freqs_cos/freqs_sin "
                "buffers indexed by input_pos, SiLU-gated MLP, F.scaled_dot_product_attention "
                "with a boolean mask row-indexed from a non-persistent causal `mask` buffer, "
                "context %d). Per layer k_cache and v_cache f32[1, 2, %d, 8] updated IN "
                "PLACE: k_cache.index_copy_(2, input_pos, k); %s. "
                % (LLAMA_CTX, LLAMA_CTX, v))

    def static_llama(name, seed, v_update):
        return Fixture(
            name, _seeded(seed, _llama(v_update)),
            [Method("prefill", "prefill", ["tokens", "input_pos"],
                    _prompt(name, LLAMA_PROMPT)),
             Method("decode", "decode", ["tokens", "input_pos"],
                    [torch.tensor([[7]]), torch.tensor([LLAMA_PROMPT])])],
            llama_notes(v_update) + "Two methods of one module: prefill (%d tokens) and "
            "decode (1 token). 'sequence': prefill of %d tokens, then %d greedy decode steps "
            "(compile with --share-mutable-buffers)."
            % (LLAMA_PROMPT, LLAMA_PROMPT, LLAMA_STEPS),
            sequence=lambda call: _greedy(call, name, [(LLAMA_PROMPT, LLAMA_STEPS)]))

    return [
        Fixture("inplace_ops", _seeded(51, InplaceOps),
                [Method("forward", "model", ["x", "y", "idx"],
                        [_randn("inplace_ops/x", 4, 4), _randn("inplace_ops/y", 4),
                         torch.tensor([3])])],
                "x.mul_(2) (user input mutation); h = x + 1; h += y; ReLU(inplace=True); "
                "h.masked_fill_(h > 1.5, 1.5); buffers: n += 1 (i64 counter), "
                "buf[1:3] = h[:2] (slice), buf2[0] = y (select), "
                "buf3.view(-1)[2:5].copy_(h[0, :3]) (view + slice), "
                "buf3.view(-1)[idx] = h[1, :1] (index_put_ through a view), "
                "m.t()[0].add_(1) (t + select); c = buf.clone(); c[0:2].copy_(h[2:4]). "
                "Returns (c.sum(0) + buf2.sum(0) + m.sum() + buf3.sum() + n, h). Expected "
                "outputs: x after the call, then the two results. Three calls, state "
                "carried over."),
        Fixture("effects_print", _seeded(57, PrintEffects),
                [Method("forward", "model", ["x"], [_randn("effects_print/x", 2, 3)])],
                "acc[1:3].add_(x) on a f32[4, 3] buffer, torch.ops.aten._print('acc "
                "updated'), y = acc * 2, y.relu_(). The decomposed graph wraps the print in "
                "with_effects with a token input and output (ptec drops the print with a "
                "warning and the tokens with it). Three calls, state carried over."),
        Fixture("bn_train", _seeded(52, ConvBNTrain, train=True),
                [Method("forward", "model", ["x"], [_randn("bn_train/x", 2, 3, 8, 8)])],
                "Conv2d(3, 8, 3, padding 1) + BatchNorm2d(8) + ReLU(inplace=True), "
                "exported and run in TRAIN mode: batch statistics, running_mean / "
                "running_var (momentum 0.1) and num_batches_tracked updated every call "
                "(buffer state compared after each of three calls). Returns (y, y.mean((2, "
                "3))). x f32[2, 3, 8, 8]."),
        static_llama("llama_kv", LLAMA_SEED, "index"),
        static_llama("llama_kv_item", LLAMA_SEED + 2, "slice_item"),
        Fixture("llama_kv_dynamic", _seeded(LLAMA_SEED + 1, _llama("index")),
                [Method("prefill", "prefill", ["tokens", "input_pos"],
                        _prompt("llama_kv_dynamic", DYN_HINT),
                        dynamic_shapes={"tokens": {1: seq}, "input_pos": {0: seq}},
                        calls=[_prompt("llama_kv_dynamic", s) for s, _ in DYN_CONVERSATIONS],
                        refused=[_prompt("llama_kv_dynamic", DYN_HI + 1)]),
                 Method("decode", "decode", ["tokens", "input_pos"],
                        [torch.tensor([[7]]), torch.tensor([DYN_HINT])])],
                llama_notes("index") + "prefill has a DYNAMIC prompt length: Dim('seq', "
                "min=%d, max=%d) on tokens dim 1 and input_pos dim 0 (export example %d); "
                "decode is static (1 token). prefill 'calls': prompts of %s tokens from "
                "position 0 in one loaded program (state carried over; stale cache entries "
                "above the prompt stay masked); a %d-token prompt must be refused. "
                "'sequence': conversations %s (prompt length, greedy decode steps), each "
                "from position 0 (compile with --share-mutable-buffers)."
                % (DYN_LO, DYN_HI, DYN_HINT, [s for s, _ in DYN_CONVERSATIONS], DYN_HI + 1,
                   DYN_CONVERSATIONS),
                sequence=lambda call: _greedy(call, "llama_kv_dynamic", DYN_CONVERSATIONS)),
        Fixture("mobilenet_v3_small",
                _seeded(53, _torchvision("mobilenet_v3_small", num_classes=10,
                                         width_mult=0.15), bn=True),
                [Method("forward", "model", ["x"],
                        [_randn("mobilenet_v3_small/x", 1, 3, 64, 64)])],
                "torchvision.models.mobilenet_v3_small(num_classes=10, width_mult=0.15), "
                "random init (seed 53) with non-trivial BatchNorm statistics, eval mode; "
                "x f32[1, 3, 64, 64]. Its activations are inplace=True (relu_, "
                "hardswish_ in the raw graph).", atol=1e-4),
        Fixture("vit_small",
                _seeded(54, _torchvision("VisionTransformer", image_size=32, patch_size=8,
                                         num_layers=2, num_heads=2, hidden_dim=32,
                                         mlp_dim=64, num_classes=10)),
                [Method("forward", "model", ["x"], [_randn("vit_small/x", 1, 3, 32, 32)])],
                "torchvision.models.VisionTransformer(image_size=32, patch_size=8, "
                "num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10), "
                "random init (seed 54), eval mode; x f32[1, 3, 32, 32]. Attention is "
                "nn.MultiheadAttention.", atol=1e-4),
        Fixture("resnet18",
                _seeded(55, _torchvision("resnet18", num_classes=10), bn=True),
                [Method("forward", "model", ["x"], [_randn("resnet18/x", 1, 3, 64, 64)])],
                "torchvision.models.resnet18(num_classes=10), random init (seed 55) with "
                "non-trivial BatchNorm statistics, eval mode; x f32[1, 3, 64, 64]. About 45 "
                "MB per archive: generated on demand (--only resnet18 --out DIR), never "
                "committed.", atol=1e-4, committed=False),
    ]


# --------------------------------------------------------------------------------------
# Export, reference, checks
# --------------------------------------------------------------------------------------

# Ops whose schema writes an argument (in place / out=) and ops that return a view.
VIEW_OPS = {"view", "_unsafe_view", "slice", "select", "t", "transpose", "permute",
            "expand", "unsqueeze", "squeeze", "as_strided", "narrow", "alias", "diagonal",
            "unfold", "split", "split_with_sizes", "chunk", "unbind", "view_as", "reshape",
            "detach", "_reshape_alias"}


def op_summary(ep):
    """(mutating ops, view ops, other ops): sorted 'overload xN' strings. An op counts
    as mutating when its schema marks an argument written (alias annotation with '!')."""
    mut, view, other = {}, {}, {}
    for n in ep.graph.nodes:
        if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        name = "%s.%s" % (n.target._schema.name.split("::")[-1], n.target._overloadname)
        if any(a.alias_info is not None and a.alias_info.is_write
               for a in n.target._schema.arguments):
            d = mut
        elif _hidden_write(n):
            d, name = mut, name + " (training=True: writes running_mean/var, no alias " \
                "annotation in its schema)"
        elif n.target._schema.name.split("::")[-1] in VIEW_OPS:
            d = view
        else:
            d = other
        d[name] = d.get(name, 0) + 1
    fmt = lambda d: ["%s x%d" % (k, v) if v > 1 else k for k, v in sorted(d.items())]
    return fmt(mut), fmt(view), fmt(other)


def _hidden_write(n):
    """batch_norm-style ops whose schema has no write annotation but which update the
    running statistics they are given in training mode."""
    base = n.target._schema.name.split("::")[-1]
    if base not in ("batch_norm", "native_batch_norm", "_batch_norm_impl_index",
                    "instance_norm"):
        return False
    args = n.target._schema.arguments
    vals = {a.name: (n.args[i] if i < len(n.args) else n.kwargs.get(a.name, a.default_value))
            for i, a in enumerate(args)}
    training = vals.get("training", vals.get("use_input_stats"))
    return bool(training) and vals.get("running_mean") is not None


def strip_metadata(ep):
    """Removes node metadata that would make the files machine- or run-dependent:
    `stack_trace` (absolute paths) and `from_node` (provenance holding graph ids, which
    are Python object addresses)."""
    for mod in ep.graph_module.modules():
        if isinstance(mod, torch.fx.GraphModule):
            for n in mod.graph.nodes:
                n.meta.pop("stack_trace", None)
                n.meta.pop("from_node", None)
    return ep


def graph_text(name, method, form, ep):
    mut, view, other = op_summary(ep)
    lines = ["# %s (%s), %s form: %s dialect, torch %s; written by "
             "test/models/gen_zoo_modern.py" % (name, method, form, ep.verifiers[0].dialect
                                               if hasattr(ep, "verifiers") else "?",
                                               torch.__version__.split("+")[0]),
             "# in-place / mutating ops: " + (", ".join(mut) or "none"),
             "# view ops: " + (", ".join(view) or "none"),
             "# other ops: " + (", ".join(other) or "none")]
    if ep.range_constraints:
        lines.append("# range_constraints: " + ", ".join(
            "%s: [%s, %s]" % (k, v.lower, v.upper) for k, v in
            sorted(ep.range_constraints.items(), key=lambda kv: str(kv[0]))))
    lines.append("# signature:")
    lines += ["#   " + l for l in str(ep.graph_signature).strip().splitlines() if l.strip()]
    text = ep.graph_module.print_readable(print_output=False, include_stride=False,
                                          include_device=False)
    text = "\n".join(l.rstrip() for l in text.splitlines() if l.strip() and
                     "No stacktrace found" not in l)
    return "\n".join(lines) + "\n" + text + "\n"


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _close(a, b, rtol, atol):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if not a.dtype.is_floating_point:
        return bool(torch.equal(a, b))
    return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


class Exported:
    """Both forms of one method, saved and loaded back."""

    def __init__(self, fx, m, out_dir):
        model = fx.factory()
        ep = torch.export.export(model, tuple(t.clone() for t in m.inputs),
                                 dynamic_shapes=m.dynamic_shapes)
        strip_metadata(ep)
        dec = strip_metadata(ep.run_decompositions())
        self.paths = {"raw": "%s.pt2" % m.stem, "decomposed": "%s_dec.pt2" % m.stem}
        self.programs = {"raw": ep, "decomposed": dec}
        for form, fn in self.paths.items():
            torch.export.save(self.programs[form], os.path.join(out_dir, fn))
        self.loaded = {form: torch.export.load(os.path.join(out_dir, fn))
                       for form, fn in self.paths.items()}
        kinds = torch.export.graph_signature.OutputKind
        sig = self.loaded["decomposed"].graph_signature
        user_in = [s.arg.name for s in sig.input_specs
                   if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
        self.mutated_inputs = [user_in.index(s.target) for s in sig.output_specs
                               if s.kind == kinds.USER_INPUT_MUTATION]
        self.out_names = [s.arg.name for s in sig.output_specs
                          if s.kind in (kinds.USER_OUTPUT, kinds.USER_INPUT_MUTATION)]
        self.buffers = [s.target for s in sig.output_specs if s.kind == kinds.BUFFER_MUTATION]
        assert [s.kind for s in sig.output_specs if s.kind != kinds.BUFFER_MUTATION][
            :len(self.mutated_inputs)] == [kinds.USER_INPUT_MUTATION] * len(self.mutated_inputs), \
            "user_input_mutation outputs are expected before the user outputs"
        self.out_dir = out_dir
        self.graph_files = {}
        for form, prog in self.loaded.items():
            suffix = "" if m.stem == "model" else "_" + m.stem
            fn = "graph%s%s.txt" % (suffix, "_dec" if form == "decomposed" else "")
            self.graph_files[form] = fn

    def fresh(self, form):
        """A module of the saved program in its initial state. (Loaded again: the
        modules of one loaded program share its buffer tensors, so a call of one would
        change the starting state of the next.)"""
        return torch.export.load(os.path.join(self.out_dir, self.paths[form])).module()


def run_program(mod, inputs, mutated_inputs):
    """Runs an unlifted exported module; returns the outputs in fixture order (mutated
    inputs after the call first)."""
    ins = [t.clone() for t in inputs]
    with torch.no_grad():
        outs = _flat(mod(*ins))
    return [ins[i].clone() for i in mutated_inputs] + [o.clone() for o in outs]


def check_outputs(what, got, want, rtol, atol):
    assert len(got) == len(want), "%s: %d outputs, want %d" % (what, len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        assert _close(g, w, rtol, atol), "%s: output %d differs from eager (max |d| %s)" % (
            what, i, (g.double() - w.double()).abs().max().item()
            if g.shape == w.shape else "shape %s vs %s" % (list(g.shape), list(w.shape)))


def check_state(what, mod, want, rtol, atol):
    bufs = dict(mod.named_buffers())
    for fqn, w in want.items():
        assert fqn in bufs, "%s: the loaded program has no buffer %s" % (what, fqn)
        assert _close(bufs[fqn], w, rtol, atol), "%s: buffer %s differs from eager" % (
            what, fqn)


def method_calls(fx, m, ex):
    """The list of input lists a method records: explicit calls, CALLS fresh calls for a
    stateful method of a fixture without a sequence, else the example alone."""
    if m.calls is not None:
        return [list(c) for c in m.calls]
    stateful = bool(ex.buffers or ex.mutated_inputs) and fx.sequence is None
    return [call_inputs(fx.name, m.method, m.inputs, k) for k in range(CALLS if stateful else 1)]


def record_method(fx, m, ex):
    """Eager references over the method's calls (state carried over) and the check of
    both loaded forms against them. Returns (files, meta entry)."""
    ref = fx.factory()
    calls = []
    inputs = method_calls(fx, m, ex)
    # Loaded modules whose buffers start from the initial state, like `ref`.
    mods = {form: ex.fresh(form) for form in ex.paths}
    for k, ins in enumerate(inputs):
        ref_ins = [t.clone() for t in ins]
        with torch.no_grad():
            ref_outs = _flat(ref(*ref_ins))
        outs = [ref_ins[i].clone() for i in ex.mutated_inputs] + [o.clone() for o in ref_outs]
        bufs = dict(ref.named_buffers())
        state = {b: bufs[b].clone() for b in ex.buffers}
        for form, mod in mods.items():
            what = "%s/%s %s call %d" % (fx.name, m.method, form, k)
            check_outputs(what, run_program(mod, ins, ex.mutated_inputs), outs, fx.rtol,
                          fx.atol)
            check_state(what, mod, state, fx.rtol, fx.atol)
        calls.append(([t.clone() for t in ins], outs, state))
    prefix = "" if m.stem == "model" else m.stem + "_"
    files, metas = call_files(prefix, m.user_names, ex.out_names, calls)
    meta = method_meta(m.method, m.stem, metas, len(calls) > 1)
    refused = []
    for r, ins in enumerate(m.refused):
        entry = []
        for i, (nm, t) in enumerate(zip(m.user_names, ins)):
            fn = "%srefused_%d_input_%d.npy" % (prefix, r, i)
            files[fn] = npy_bytes(t)
            entry.append({"name": nm, "dtype": NP_DTYPE[t.dtype], "shape": list(t.shape),
                          "file": fn})
        # The decomposed program must refuse it too (torch's own range check).
        try:
            ex.fresh("decomposed")(*[t.clone() for t in ins])
            accepted = True
        except Exception:  # noqa: BLE001  (torch's guard: "Guard failed: ...")
            accepted = False
        assert not accepted, "%s: torch accepts the refused inputs" % fx.name
        refused.append({"inputs": entry, "error": "bound",
                        "why": "shapes %s: a dynamic dim is above its bound" %
                               [list(t.shape) for t in ins]})
    if refused:
        meta["refused_calls"] = refused
    return files, meta


def sequence_check(fx, exported):
    """check() for record_sequence: both loaded forms of every method, the state shared
    by FQN across methods (copied into a method's module before it runs, read back
    after), against the eager call."""
    state = {form: None for form in ("raw", "decomposed")}
    mods = {form: {meth: ex.fresh(form) for meth, ex in exported.items()} for form in state}

    def check(method, inputs, outputs, buffers):
        ex = exported[method]
        for form in state:
            mod = mods[form][method]
            own = dict(mod.named_buffers())
            if state[form] is not None:
                with torch.no_grad():
                    for fqn, t in state[form].items():
                        if fqn in own:
                            own[fqn].copy_(t)
            what = "%s sequence %s %s" % (fx.name, method, form)
            check_outputs(what, run_program(mod, inputs, ex.mutated_inputs),
                          [o for o in outputs], fx.rtol, fx.atol)
            check_state(what, mod, buffers, fx.rtol, fx.atol)
            state[form] = {fqn: t.clone() for fqn, t in mod.named_buffers()}
    return check


def generate(fx, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    files, methods, exported = {}, [], {}
    forms = {"raw": {}, "decomposed": {}}
    graphs = {"raw": {}, "decomposed": {}}
    for m in fx.methods:
        ex = Exported(fx, m, out_dir)
        exported[m.method] = ex
        for form in forms:
            forms[form][m.method] = ex.paths[form]
            graphs[form][m.method] = ex.graph_files[form]
            files[ex.graph_files[form]] = graph_text(fx.name, m.method, form,
                                                     ex.programs[form]).encode()
        f, meta = record_method(fx, m, ex)
        files.update(f)
        methods.append(meta)
    meta = fixture_meta(fx.name, methods, fx.rtol, fx.atol)
    meta["forms"] = forms
    meta["graphs"] = graphs
    dyn = {m.method: {nm: {str(d): _sym_name(exported[m.method], m.user_names.index(nm), d)
                           for d in spec}
                      for nm, spec in m.dynamic_shapes.items()}
           for m in fx.methods if m.dynamic_shapes}
    if dyn:
        meta["dynamic_dims"] = dyn
        meta["range_constraints"] = {
            str(k): {"min_val": int(v.lower), "max_val": int(v.upper)}
            for m in fx.methods if m.dynamic_shapes
            for k, v in exported[m.method].programs["decomposed"].range_constraints.items()
            if str(k).startswith("s")}
    if fx.sequence is not None:
        entry = type("Entry", (), {"factory": staticmethod(fx.factory),
                                   "sequence": staticmethod(fx.sequence)})
        f, meta["sequence"] = record_sequence(entry, {m["method"]: m for m in methods},
                                              sequence_check(fx, exported))
        files.update(f)
    meta["export"] = {"torch": torch.__version__.split("+")[0],
                      "dialect": {form: _dialect(exported[fx.methods[0].method].loaded[form])
                                  for form in forms}}
    meta["notes"] = fx.notes
    files["meta.json"] = (json.dumps(meta, indent=2) + "\n").encode()
    for fn in sorted(files):
        with open(os.path.join(out_dir, fn), "wb") as f:
            f.write(files[fn])
    return meta


def _dialect(ep):
    v = getattr(ep, "verifiers", None)
    return v[0].dialect if v else ep.dialect


def _sym_name(ex, input_index, dim):
    """The symbol of dynamic dim `dim` of user input `input_index` (decomposed form)."""
    users = [n for n in ex.programs["decomposed"].graph.nodes if n.op == "placeholder"]
    specs = ex.programs["decomposed"].graph_signature.input_specs
    user = [n for n, s in zip(users, specs)
            if s.kind == torch.export.graph_signature.InputKind.USER_INPUT][input_index]
    return str(user.meta["val"].shape[dim])


def _size(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output directory, one folder per fixture (default: "
                         "test/models_modern)")
    ap.add_argument("--only", nargs="*",
                    help="fixture names (default: every committed one; resnet18 only when "
                         "named)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    known = {fx.name: fx for fx in fixtures()}
    for n in args.only or []:
        if n not in known:
            print("error: unknown fixture %s (known: %s)" % (n, ", ".join(known)))
            return 2
    for fx in known.values():
        if (args.only and fx.name not in args.only) or (not args.only and not fx.committed):
            continue
        # Written into a scratch folder beside the target, then moved: a folder is
        # either the old fixture or the complete new one.
        os.makedirs(args.out, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".%s." % fx.name, dir=args.out)
        try:
            generate(fx, tmp)
            final = os.path.join(args.out, fx.name)
            if os.path.isdir(final):
                shutil.rmtree(final)
            os.rename(tmp, final)
            os.chmod(final, 0o755)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        print("%-20s %3d files %9d bytes" % (fx.name, len(os.listdir(final)), _size(final)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
