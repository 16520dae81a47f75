"""Model definitions of the ptec fixture zoo.

Shared by gen_zoo.py (torch 1.13: make_fx + functionalization + our own PT2 writer)
and gen_zoo_export.py (torch 2.x: torch.export + torch.export.save). Every model is
small, built with a fixed seed, and has deterministic example inputs.

Line numbers of the forward() bodies end up in the fixtures' stack traces, so editing
this file changes the committed archives: regenerate the zoo afterwards.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401  (kept: line numbers are in the fixtures)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(64, 16)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.relu2 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        x = self.relu2(self.conv2(x))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, ReLU6, 1x1 project, residual."""

    def __init__(self, channels=8, expand=4):
        super().__init__()
        hidden = channels * expand
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.act1 = nn.ReLU6()
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.act2 = nn.ReLU6()
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = self.act1(self.bn1(self.expand(x)))
        y = self.act2(self.bn2(self.depthwise(y)))
        y = self.bn3(self.project(y))
        return x + y


class BasicBlock(nn.Module):
    """ResNet basic block, stride 2 with a 1x1 conv + BN downsample path."""

    def __init__(self, cin=8, cout=16, stride=2):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.downsample(x)
        return self.relu(out)


class EncoderLayer(nn.Module):
    """Post-norm transformer encoder layer written out by hand."""

    def __init__(self, d_model=32, nhead=4, d_ff=64):
        super().__init__()
        self.nhead = nhead
        self.head_dim = d_model // nhead
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.act = nn.GELU()
        self.ff2 = nn.Linear(d_ff, d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
        b, s, d = x.shape
        q = self.q_proj(x).view(b, s, self.nhead, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.nhead, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.nhead, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / self.head_dim ** 0.5)
        attn = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, d)
        x = self.norm1(x + self.out_proj(ctx))
        x = self.norm2(x + self.ff2(self.act(self.ff1(x))))
        return x


class MutableBuffer(nn.Module):
    """A call counter and a KV-cache style slice write into a buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.register_buffer("cache", torch.randn(1, 16, 8))

    def forward(self, x):
        self.count += 1
        self.cache[:, 4:8] = x
        return self.cache.sum(1) + self.count


class Step(nn.Module):
    """sin(a @ x + b): only aten.mm, aten.add.Tensor and aten.sin."""

    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.randn(2, 2) * 0.5)
        self.register_buffer("b", torch.randn(2, 2) * 0.5)

    def forward(self, x):
        return torch.sin(torch.mm(self.a, x) + self.b)


class TenCalls(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = Step()

    def forward(self, x):
        for _ in range(10):
            x = self.step(x)
        return x


class MutateInput(nn.Module):
    def forward(self, x):
        x.add_(1)
        return x * 2


class NoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(4))
        self.w = nn.Parameter(torch.randn(3, 4))

    def forward(self):
        return torch.ones(3, 4) * self.scale + self.w


class TwoMethods(nn.Module):
    """The same weights used by prefill ([1,4,16]) and decode ([1,1,16])."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 32)
        self.act = nn.ReLU()
        self.out = nn.Linear(32, 16)

    def forward(self, x):
        return self.out(self.act(self.proj(x)))


class DemoOps(nn.Module):
    """The two graphs the demo delegate backend supports: sin(x) and a @ x + b."""

    def forward(self, a, x, b):
        return torch.sin(a), torch.mm(a, x) + b


class StateOrder(nn.Module):
    """State updates that read each other's OLD values.

    `a` takes the old `b` while `b` is updated (registered first, so its write-back
    comes first in output order); `snap` takes the cache between the two halves of a
    KV-style update, so the first half must not be done in place in the cache."""

    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.randn(2, 3))
        self.register_buffer("a", torch.randn(2, 3))
        self.register_buffer("cache", torch.randn(4, 3))
        self.register_buffer("snap", torch.zeros(4, 3))

    def forward(self, x):
        self.a.copy_(self.b)
        self.b.add_(x)
        self.cache[0:2] = x
        self.snap.copy_(self.cache)
        self.cache[2:4] = x * 2.0
        return self.cache.sum(0) + self.a.sum(0)


class Linear1D(nn.Module):
    """nn.Linear on a 1-D input (torch unsqueezes and squeezes around the matmul)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)


def _randomize_bn(module, gen):
    """Give every BatchNorm non-trivial affine params and running statistics."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            with torch.no_grad():
                m.weight.copy_(1.0 + 0.2 * torch.randn(n, generator=gen))
                m.bias.copy_(0.1 * torch.randn(n, generator=gen))
                m.running_mean.copy_(0.1 * torch.randn(n, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(n, generator=gen))
                m.num_batches_tracked.fill_(100)


def _build(cls, seed, bn=False):
    torch.manual_seed(seed)
    m = cls()
    if bn:
        gen = torch.Generator().manual_seed(seed + 1000)
        _randomize_bn(m, gen)
    return m.eval()


def _inputs(seed, *shapes):
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*s, generator=gen) for s in shapes)


class ZooEntry:
    """One fixture: model factory, methods and their example inputs.

    methods: list of (method_name, file_stem, input_names, example_inputs). A model with
    one method is written as `model.pt2`; several methods as `<file_stem>.pt2` each.
    """

    def __init__(self, name, factory, methods, notes, sequence=None):
        self.name = name
        self.factory = factory
        self.methods = methods
        self.notes = notes
        # sequence(call): an ordered multi-method run on ONE eager module;
        # call(method, inputs) runs it and returns its outputs (zoo_calls.py).
        self.sequence = sequence


def zoo():
    return [
        ZooEntry("mlp", lambda: _build(MLP, 1),
                 [("forward", "model", ["x"], _inputs(101, (4, 32)))],
                 "Linear(32,64) ReLU Linear(64,16)."),
        ZooEntry("small_cnn", lambda: _build(SmallCNN, 2, bn=True),
                 [("forward", "model", ["x"], _inputs(102, (1, 3, 16, 16)))],
                 "conv, eval batch norm with non-trivial running stats, relu, max pool, "
                 "adaptive avg pool (lowers to mean.dim), flatten, linear."),
        ZooEntry("mobilenet_block", lambda: _build(InvertedResidual, 3, bn=True),
                 [("forward", "model", ["x"], _inputs(103, (1, 8, 12, 12)))],
                 "MobileNetV2 inverted residual: 1x1 expand, depthwise 3x3 (groups=32), "
                 "ReLU6 (hardtanh), 1x1 project, BN, residual add."),
        ZooEntry("resnet_block", lambda: _build(BasicBlock, 4, bn=True),
                 [("forward", "model", ["x"], _inputs(104, (1, 8, 12, 12)))],
                 "ResNet basic block 8->16 channels, stride 2, conv+BN downsample."),
        ZooEntry("transformer_layer", lambda: _build(EncoderLayer, 5),
                 [("forward", "model", ["x"], _inputs(105, (1, 8, 32)))],
                 "Encoder layer: q/k/v Linear, matmul attention, softmax, layer_norm, "
                 "GELU MLP, residuals. d_model 32, 4 heads, seq 8, batch 1."),
        ZooEntry("mutable_buffer", lambda: _build(MutableBuffer, 6),
                 [("forward", "model", ["x"], _inputs(106, (1, 4, 8)))],
                 "Buffer mutations: count += 1 and cache[:, 4:8] = x. Three consecutive "
                 "calls from the initial buffer state (meta 'calls'): per call the inputs, "
                 "expected outputs and every buffer after the call."),
        ZooEntry("state_order", lambda: _build(StateOrder, 13),
                 [("forward", "model", ["x"], _inputs(113, (2, 3)))],
                 "a <- old b while b += x; snap <- the cache between two slice writes. "
                 "Three calls: outputs and all four buffers after each."),
        ZooEntry("linear_1d", lambda: _build(Linear1D, 14),
                 [("forward", "model", ["x"], _inputs(114, (8,)))],
                 "nn.Linear(8, 4) on a 1-D input of 8 features."),
        ZooEntry("ten_calls", lambda: _build(TenCalls, 7),
                 [("forward", "model", ["x"], _inputs(107, (2, 2)))],
                 "Submodule `step` (sin(mm(a, x) + b)) called 10 times; nn_module_stack "
                 "keys carry the call index (`@i` suffix for calls after the first)."),
        ZooEntry("mutate_input", lambda: _build(MutateInput, 8),
                 [("forward", "model", ["x"], _inputs(108, (2, 3)))],
                 "x.add_(1); return x * 2. The signature has a user_input_mutation output, "
                 "which stays a method output (expected_0 is x after the call, expected_1 "
                 "is x * 2); three calls with fresh inputs."),
        ZooEntry("no_inputs", lambda: _build(NoInputs, 9),
                 [("forward", "model", [], ())],
                 "No user inputs: ones(3,4) * scale + w (ones lowers to aten.full)."),
        ZooEntry("two_methods", lambda: _build(TwoMethods, 10),
                 [("prefill", "prefill", ["x"], _inputs(110, (1, 4, 16))),
                  ("decode", "decode", ["x"], _inputs(111, (1, 1, 16)))],
                 "Two archives (prefill.pt2, decode.pt2) with identical weight FQNs and bytes."),
        ZooEntry("demo_ops", lambda: _build(DemoOps, 11),
                 [("forward", "model", ["a", "x", "b"], _inputs(112, (2, 2), (2, 2), (2, 2)))],
                 "sin(a) and mm(a, x) + b on 2x2 floats, for the demo delegate backend."),
        ZooEntry("llama_decoder", lambda: _build(LlamaDecoder, 20),
                 [("prefill", "prefill", ["tokens", "input_pos"], llama_prompt()),
                  ("decode", "decode", ["tokens", "input_pos"], llama_decode_example())],
                 "LLaMA-style decoder (vocab 64, dim 32, 2 layers, 4 query / 2 KV heads, "
                 "RMSNorm, rotary embeddings, SiLU-gated MLP, context 16) with a KV cache "
                 "per layer in mutable buffers, written by index_put at input_pos. "
                 "'sequence': prefill of 8 tokens, then 5 greedy decode steps on one "
                 "module (compile with --share-mutable-buffers).",
                 sequence=llama_sequence),
    ] + zoo_issue14()


# --------------------------------------------------------------------------------------
# llama_decoder (appended last: line numbers above are in committed stack traces)
# --------------------------------------------------------------------------------------
LLAMA_PROMPT_LEN = 8      # prefill length: a plain parameter (dynamic later)
LLAMA_DECODE_STEPS = 5


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * self.weight


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class Attention(nn.Module):
    """Grouped-query attention over a KV cache written at `input_pos`."""

    def __init__(self, dim, n_heads, n_kv_heads, max_ctx):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # [position, kv head, head dim] (batch 1): index_put along dim 0 only
        shape = (max_ctx, n_kv_heads, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def forward(self, x, cos, sin, mask, input_pos):
        b, s, _ = x.shape
        q = self.wq(x).view(s, self.n_heads, self.head_dim)
        k = self.wk(x).view(s, self.n_kv_heads, self.head_dim)
        v = self.wv(x).view(s, self.n_kv_heads, self.head_dim)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        self.k_cache[input_pos] = k
        self.v_cache[input_pos] = v
        rep = self.n_heads // self.n_kv_heads
        t = self.k_cache.shape[0]
        keys = self.k_cache.permute(1, 0, 2)[:, None].expand(self.n_kv_heads, rep, t, -1)
        keys = keys.reshape(1, self.n_heads, t, self.head_dim)
        vals = self.v_cache.permute(1, 0, 2)[:, None].expand(self.n_kv_heads, rep, t, -1)
        vals = vals.reshape(1, self.n_heads, t, self.head_dim)
        q = q.transpose(0, 1)[None]
        scores = torch.matmul(q, keys.transpose(2, 3)) * (1.0 / self.head_dim ** 0.5)
        scores = scores.masked_fill(mask, -1e9)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), vals)
        return self.wo(ctx.transpose(1, 2).reshape(b, s, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderLayer(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden, max_ctx):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_heads, n_kv_heads, max_ctx)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, hidden)

    def forward(self, x, cos, sin, mask, input_pos):
        x = x + self.attention(self.attention_norm(x), cos, sin, mask, input_pos)
        return x + self.feed_forward(self.ffn_norm(x))


class LlamaDecoder(nn.Module):
    """forward(tokens [1, S] i64, input_pos [S] i64) -> logits [1, S, vocab]; the same
    module serves prefill (S = prompt length) and decode (S = 1)."""

    def __init__(self, vocab=64, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, hidden=64,
                 max_ctx=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [DecoderLayer(dim, n_heads, n_kv_heads, hidden, max_ctx) for _ in range(n_layers)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        head_dim = dim // n_heads
        inv = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        freqs = torch.outer(torch.arange(max_ctx).float(), inv)
        freqs = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("rope_cos", freqs.cos())
        self.register_buffer("rope_sin", freqs.sin())
        self.register_buffer("cache_pos", torch.arange(max_ctx))

    def forward(self, tokens, input_pos):
        x = self.tok_embeddings(tokens)
        cos, sin = self.rope_cos[input_pos][:, None], self.rope_sin[input_pos][:, None]
        mask = self.cache_pos[None, :] > input_pos[:, None]  # True: not visible yet
        for layer in self.layers:
            x = layer(x, cos, sin, mask, input_pos)
        return self.output(self.norm(x))


def llama_prompt():
    gen = torch.Generator().manual_seed(115)
    return (torch.randint(0, 64, (1, LLAMA_PROMPT_LEN), generator=gen),
            torch.arange(LLAMA_PROMPT_LEN))


def llama_decode_example():
    return (torch.tensor([[7]]), torch.tensor([LLAMA_PROMPT_LEN]))


def llama_sequence(call):
    """Prefill the prompt, then greedy decoding: each step feeds back the argmax token."""
    tokens, pos = llama_prompt()
    logits = call("prefill", (tokens, pos))[0]
    n = LLAMA_PROMPT_LEN
    for step in range(LLAMA_DECODE_STEPS):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        logits = call("decode", (nxt, torch.tensor([n + step])))[0]


# --------------------------------------------------------------------------------------
# Real-model shapes. Appended at the end: line numbers of the classes above are
# in the committed fixtures' stack traces.
# --------------------------------------------------------------------------------------
class ViTBlock(nn.Module):
    """Pre-norm transformer block: x + attn(norm1(x)), then x + mlp(norm2(x))."""

    def __init__(self, dim=32, heads=4, hidden=64):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.norm1 = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        b, n, d = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        attn = torch.softmax(q @ k.transpose(-2, -1) * self.head_dim ** -0.5, dim=-1)
        ctx = (attn @ v).transpose(1, 2).reshape(b, n, d)
        x = x + self.proj(ctx)
        return x + self.fc2(self.act(self.fc1(self.norm2(x))))


class ViTEncoder(nn.Module):
    """Small ViT: conv patch embedding, class token, learned position embedding,
    pre-norm blocks, final LayerNorm, linear head on the class token."""

    def __init__(self, image=32, patch=8, dim=32, depth=2, heads=4, classes=10):
        super().__init__()
        n = (image // patch) ** 2
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.5)
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, dim) * 0.5)
        self.blocks = nn.ModuleList([ViTBlock(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, 0])


class CNNBf16(nn.Module):
    """A CNN computed in bfloat16 (weights stored as bf16); float32 in and out."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = x.to(torch.bfloat16)
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        x = self.relu2(self.conv2(x))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x).float()


class AffinePoolFp16(nn.Module):
    """float16 compute made only of ops torch 1.13 runs in Half on CPU (no conv, matmul,
    relu, softmax there): per-channel affine, leaky ReLU via where, spatial mean, a
    linear layer written as broadcast multiply + sum."""

    def __init__(self, channels=8, classes=4):
        super().__init__()
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(channels, 1, 1))
        self.shift = nn.Parameter(0.5 * torch.randn(channels, 1, 1))
        self.w = nn.Parameter(torch.randn(channels, classes) * 0.5)
        self.b = nn.Parameter(torch.randn(classes) * 0.1)

    def forward(self, x):
        y = x.to(torch.float16) * self.scale + self.shift
        y = torch.where(y > 0, y, y * 0.125)
        pooled = y.mean((2, 3))
        return ((pooled.unsqueeze(2) * self.w).sum(1) + self.b).float()


def _qdq_ops():
    """quantized_decomposed::quantize_per_tensor / dequantize_per_tensor.

    torch 2.x registers them in torch.ao.quantization.fx._decomposed. torch 1.13 has no
    such module: define the two ops there with the same schemas and the same float32
    math, so that make_fx records them as single nodes and eager mode computes them.
      quantize:   clamp(round_half_even(x * (1 / scale)) + zero_point, qmin, qmax).to(dtype)
      dequantize: (q.to(float32) - zero_point) * scale
    Returns the Library object (it must stay alive) or None."""
    import importlib
    try:
        importlib.import_module("torch.ao.quantization.fx._decomposed")
        return None
    except ImportError:
        pass
    lib = torch.library.Library("quantized_decomposed", "DEF")
    lib.define("quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, "
               "int quant_max, ScalarType dtype) -> Tensor")
    lib.define("dequantize_per_tensor(Tensor input, float scale, int zero_point, "
               "int quant_min, int quant_max, ScalarType dtype, *, "
               "ScalarType? out_dtype=None) -> Tensor")

    def quantize(input, scale, zero_point, quant_min, quant_max, dtype):
        assert input.dtype == torch.float32
        inv_scale = 1.0 / scale
        return torch.clamp(torch.round(input * inv_scale) + zero_point,
                           quant_min, quant_max).to(dtype)

    def dequantize(input, scale, zero_point, quant_min, quant_max, dtype, out_dtype=None):
        assert input.dtype == dtype
        return (input.to(out_dtype or torch.float32) - zero_point) * scale

    lib.impl("quantize_per_tensor", quantize, "CompositeExplicitAutograd")
    lib.impl("dequantize_per_tensor", dequantize, "CompositeExplicitAutograd")
    return lib


_QDQ_LIB = _qdq_ops()


def _f32(v):
    """v rounded to float32 (the runtime and torch's kernels use the scale as float)."""
    return float(torch.tensor(float(v), dtype=torch.float32))


class QdqLinear(nn.Module):
    """What convert_pt2e (fold_quantize=False) leaves for static per-tensor quantization
    of linear -> relu -> linear: every activation and weight goes through a
    quantize/dequantize pair, the float ops run on the dequantized values, the bias
    stays float. Activations int8 (input, output) and uint8 (after the relu)."""

    IN_SCALE, IN_ZP = 1.0 / 32, -2   # power of two: the input ties below are exact

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 8)
        self.w1_scale = _f32(self.fc1.weight.detach().abs().max() / 127)
        self.w2_scale = _f32(self.fc2.weight.detach().abs().max() / 127)
        self.h_scale, self.out_scale, self.out_zp = 1.0, 1.0, 0

    def calibrate(self, x):
        """Observer-style min/max calibration on x (set once, from the example input)."""
        with torch.no_grad():
            h = self.relu(self.fc1(x))
            y = self.fc2(h)
        self.h_scale = _f32(h.max() / 255)
        lo, hi = min(float(y.min()), 0.0), max(float(y.max()), 0.0)
        self.out_scale = _f32((hi - lo) / 255)
        self.out_zp = int(-128 - round(lo / self.out_scale))
        return self

    def forward(self, x):
        q = torch.ops.quantized_decomposed
        i8, u8 = torch.int8, torch.uint8
        x = q.quantize_per_tensor(x, self.IN_SCALE, self.IN_ZP, -128, 127, i8)
        x = q.dequantize_per_tensor(x, self.IN_SCALE, self.IN_ZP, -128, 127, i8)
        w1 = q.quantize_per_tensor(self.fc1.weight, self.w1_scale, 0, -127, 127, i8)
        w1 = q.dequantize_per_tensor(w1, self.w1_scale, 0, -127, 127, i8)
        h = self.relu(F.linear(x, w1, self.fc1.bias))
        h = q.quantize_per_tensor(h, self.h_scale, 0, 0, 255, u8)
        h = q.dequantize_per_tensor(h, self.h_scale, 0, 0, 255, u8)
        w2 = q.quantize_per_tensor(self.fc2.weight, self.w2_scale, 0, -127, 127, i8)
        w2 = q.dequantize_per_tensor(w2, self.w2_scale, 0, -127, 127, i8)
        y = F.linear(h, w2, self.fc2.bias)
        y = q.quantize_per_tensor(y, self.out_scale, self.out_zp, -128, 127, i8)
        return q.dequantize_per_tensor(y, self.out_scale, self.out_zp, -128, 127, i8)


def _randomize_ln(module, gen):
    """Give every LayerNorm non-trivial affine params."""
    for m in module.modules():
        if isinstance(m, nn.LayerNorm):
            with torch.no_grad():
                m.weight.copy_(1.0 + 0.2 * torch.randn(m.weight.shape, generator=gen))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=gen))


def _vit():
    m = _build(ViTEncoder, 15)
    _randomize_ln(m, torch.Generator().manual_seed(1015))
    return m


def _qdq_input():
    """randn inputs plus exact quantization ties: (k + 0.5) * IN_SCALE for both parities
    of k, positive and negative, which only round half to even quantizes right."""
    x, = _inputs(117, (4, 16))
    ties = torch.tensor([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5]) * QdqLinear.IN_SCALE
    x[0, :8] = ties
    x[1, 0], x[1, 1] = 10.0, -10.0   # saturates at quant_max / quant_min
    return (x,)


def _qdq_margins(m, x):
    """The smallest distance (in quantization steps) of a value that the hidden and the
    output quantize see from a rounding boundary, for input x. Far from 0.5 steps, a
    different but correct float summation order cannot move a value to another step."""
    def frac(v, scale):
        r = (v / scale) - torch.floor(v / scale)
        return (r - 0.5).abs().min().item()
    q = torch.ops.quantized_decomposed
    with torch.no_grad():
        xd = q.dequantize_per_tensor(q.quantize_per_tensor(x, m.IN_SCALE, m.IN_ZP, -128, 127,
                                                           torch.int8),
                                     m.IN_SCALE, m.IN_ZP, -128, 127, torch.int8)
        w1 = q.dequantize_per_tensor(q.quantize_per_tensor(m.fc1.weight, m.w1_scale, 0, -127,
                                                           127, torch.int8),
                                     m.w1_scale, 0, -127, 127, torch.int8)
        h = torch.relu(F.linear(xd, w1, m.fc1.bias))
        hd = q.dequantize_per_tensor(q.quantize_per_tensor(h, m.h_scale, 0, 0, 255, torch.uint8),
                                     m.h_scale, 0, 0, 255, torch.uint8)
        w2 = q.dequantize_per_tensor(q.quantize_per_tensor(m.fc2.weight, m.w2_scale, 0, -127,
                                                           127, torch.int8),
                                     m.w2_scale, 0, -127, 127, torch.int8)
        y = F.linear(hd, w2, m.fc2.bias)
    return min(frac(h, m.h_scale), frac(y, m.out_scale))


def _qdq():
    torch.manual_seed(17)
    x = _qdq_input()[0]
    m = QdqLinear().calibrate(x).eval()
    margin = _qdq_margins(m, x)
    # 1e-3 steps is >= 8e-6 here, far above float32 summation-order differences of
    # these 16- and 32-term dot products (~1e-7)
    assert margin > 1e-3, "qdq_linear: a value lies %.2g steps from a rounding tie" % margin
    return m


def zoo_issue14():
    """The issue-14 entries (appended to zoo())."""
    return [
        ZooEntry("vit_encoder", _vit,
                 [("forward", "model", ["x"], _inputs(115, (1, 3, 32, 32)))],
                 "ViT encoder: Conv2d(3,32,8,stride 8) patch embedding, class token concat, "
                 "learned position embedding, 2 pre-norm blocks (LayerNorm, 4-head "
                 "self-attention from q/k/v Linears, softmax, GELU MLP 32-64-32), final "
                 "LayerNorm, Linear(32,10) head on the class token. LayerNorms have "
                 "non-trivial affine params."),
        _tolerance(ZooEntry("cnn_bf16",
                            lambda: _build(CNNBf16, 16, bn=True).to(torch.bfloat16),
                            [("forward", "model", ["x"], _inputs(116, (1, 3, 16, 16)))],
                            BF16_NOTES), rtol=4e-3, atol=1e-4),
        _tolerance(ZooEntry("fp16_affine_pool",
                            lambda: _build(AffinePoolFp16, 18).to(torch.float16),
                            [("forward", "model", ["x"], _inputs(118, (1, 8, 6, 6)))],
                            FP16_NOTES), rtol=1e-3, atol=1e-5),
        ZooEntry("qdq_linear", _qdq, [("forward", "model", ["x"], _qdq_input())],
                 QDQ_NOTES),
    ]


def _tolerance(entry, rtol, atol):
    """meta.json's rtol/atol for a reduced-precision model (default 1e-4 / 1e-5)."""
    entry.rtol, entry.atol = rtol, atol
    return entry


BF16_NOTES = (
    "conv, eval batch norm (non-trivial stats), relu, max pool, conv, relu, adaptive avg "
    "pool, linear, all in bfloat16 (weights stored as bf16); x is cast to bf16 first and "
    "the logits back to float32 (_to_copy), so the .npy files stay float32. Reference: "
    "PyTorch 1.13 eager in bf16 on CPU (mkldnn kernels: float accumulation, one rounding "
    "per op). Tolerance rtol 4e-3 (about one bf16 step, 2^-8..2^-7 relative) + atol 1e-4: "
    "ptec reproduces the reference exactly; a float64 emulation without any bf16 rounding "
    "stays inside (max rel 2.7e-3), while an addmm that rounds the product before adding "
    "the bias (max rel 1.2e-2), round-toward-zero stores (4.6e-2), a conv accumulating in "
    "bf16 (6.5e-3), batch norm eps 1e-3 instead of 1e-5 (6.4e-3) or a missing op all fail.")
FP16_NOTES = (
    "float16 compute from ops torch 1.13 runs in Half on CPU (it has no Half conv, matmul, "
    "relu, softmax or layer norm there): x cast to f16, per-channel scale and shift, leaky "
    "relu as where(y > 0, y, y * 0.125), spatial mean, a 8->4 linear written as broadcast "
    "mul + sum, bias, cast back to float32. Reference: PyTorch 1.13 eager in Half on CPU. "
    "Tolerance rtol 1e-3 (about one f16 step, 2^-11..2^-10 relative) + atol 1e-5: ptec "
    "reproduces the reference exactly; round-toward-zero stores (max rel 7.5e-3), a mean "
    "accumulating in f16 (1.3e-3) and skipping the per-op f16 rounding (1.5e-3) all fail.")
QDQ_NOTES = (
    "PT2E static per-tensor quantization as convert_pt2e(fold_quantize=False) leaves it: "
    "quantized_decomposed quantize/dequantize_per_tensor around the input (int8, scale "
    "1/32, zero point -2), each weight (int8 symmetric [-127, 127], scale max|w|/127), the "
    "hidden activation after the relu (uint8) and the output (int8, zero point from "
    "min/max calibration on the example input); the linears run in float32 on the "
    "dequantized values, biases stay float. torch 1.13 has no quantized_decomposed ops: "
    "zoo_models.py defines them with torch.library (same schemas, same float32 math as "
    "torch.ao.quantization.fx._decomposed: clamp(round_half_even(x * (1 / scale)) + zp) "
    "cast to the integer dtype; (q - zp) * scale), so the reference is PyTorch eager "
    "running that math. The input holds exact ties ((k + 0.5) / 32, both signs and "
    "parities) that only round-half-to-even quantizes right, and two values that "
    "saturate; the generator checks that no hidden or output value lies within 1e-3 "
    "steps of a rounding boundary. Default tolerance: the outputs are multiples of the "
    "output scale (8.2e-3), so any step off fails.")
