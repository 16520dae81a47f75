"""Programs the upstream runtime refused while pte-run ran them (issue 33).

- Run-time sequence lengths through split / chunk / unbind (training IR): the
  split_copy.Tensor_out and unbind_copy.int_out kernels check that their outs
  already have their pieces' shapes and never resize them, so outs planned at
  the bound failed every shorter call upstream ("InvalidArgument at
  aten::split_copy.Tensor_out"); the compiler now writes one slice / select
  per piece there, and pte-run's kernels check the outs as upstream's do.
  Each example input is below its bound, where the two differed.
- Global average pooling kept 4-d at an XNNPACK delegate's edge (convnext's
  mean(-1, -2, keepdim) then permute, a squeeze-excite gate): the blob lacked
  XNNPACK's keep-dims flag, so upstream's XNNPACK computed [N, C] and its
  runtime refused the 4-d output tensor ("Size needs to be equal to the
  number of dimensions ... Failed to retrieve dim order from tensor").
"""
import torch

from op_cases import Case

T = torch.export.Dim("T", min=2, max=15)


class DecoderBlock(torch.nn.Module):
    """A GPT-2-style block: one qkv linear split into q, k, v."""

    def __init__(self, c=16, heads=2):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(c), torch.nn.LayerNorm(c)
        self.qkv, self.proj = torch.nn.Linear(c, 3 * c), torch.nn.Linear(c, c)
        self.fc, self.out = torch.nn.Linear(c, 4 * c), torch.nn.Linear(4 * c, c)
        self.c, self.heads = c, heads

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(self.c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class SplitSizes(torch.nn.Module):
    """split_with_sizes: its kernel resizes its outs (upstream's too)."""

    def forward(self, x):
        a, b = x.split([4, 8], dim=-1)
        return a.sum(-1, keepdim=True) * b, a


class Unbind(torch.nn.Module):
    def forward(self, x):
        a, b = x.unbind(0)
        return a - b, b


class ConvNextHead(torch.nn.Module):
    """convnext's last stage: the NHWC LayerNorm between permutes, the
    depthwise convolution, then mean over H, W (keepdim) and a permute that
    leaves the delegate as [N, 1, 1, C]."""

    def __init__(self, c=8):
        super().__init__()
        self.dw = torch.nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = torch.nn.LayerNorm(c)
        self.fc = torch.nn.Linear(c, 2 * c)

    def forward(self, x):
        y = self.ln(self.dw(x).permute(0, 2, 3, 1))
        y = self.fc(y).permute(0, 3, 1, 2)
        return y.mean((-1, -2), keepdim=True).permute(0, 2, 3, 1)


class SqueezeExcite(torch.nn.Module):
    """The pooled [N, C, 1, 1] value feeds 1x1 convolutions inside the delegate."""

    def __init__(self, c=8):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, c, 3, padding=1)
        self.down, self.up = torch.nn.Conv2d(c, 4, 1), torch.nn.Conv2d(4, c, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        g = torch.sigmoid(self.up(torch.relu(self.down(y.mean((2, 3), keepdim=True)))))
        return y * g, g


CASES = [
    Case("decoder_block_dynamic_seq", DecoderBlock, lambda: (torch.randn(1, 7, 16),),
         dynamic_shapes={"x": {1: T}}),
    Case("split_sizes_dynamic_seq", SplitSizes, lambda: (torch.randn(2, 5, 12),),
         dynamic_shapes={"x": {1: T}}),
    Case("unbind_dynamic_seq", Unbind, lambda: (torch.randn(2, 6),),
         dynamic_shapes={"x": {1: T}}),
    Case("convnext_head_keepdim_pool", ConvNextHead, lambda: (torch.randn(2, 8, 5, 5),)),
    Case("squeeze_excite", SqueezeExcite, lambda: (torch.randn(2, 3, 6, 6),)),
]
