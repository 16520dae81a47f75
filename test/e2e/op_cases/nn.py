"""Convolution entry points, pools and im2col/col2im without kernels of their own,
legalized into core ops: against eager on portable and xnnpack, on both runtimes.

Convolutions: conv3d (the kernel is 1-D/2-D: one 2-D convolution over folded
depth taps), 'same'/'valid' string padding (odd totals pad one extra on the
right), transposed 1-D/2-D/3-D with groups, dilation and output_padding, the
older entry points (_convolution, _convolution_mode, thnn_conv2d, slow_conv3d)
and a core `convolution` op in 3-D. Pools: 1-D on the 2-D kernels, 3-D as two
separable 2-D passes (ceil_mode, count_include_pad, divisor_override,
dilation, indices), adaptive pools of sizes that do not divide, max_unpool,
lp pools (which export as avg pools). F.unfold/F.fold (im2col/col2im).
"""
import torch
import torch.nn.functional as F
from torch import nn

from op_cases import Case


class Fn(nn.Module):
    """A function of the inputs (and of fixed non-tensor arguments)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def fn(name, f, *shapes, **kw):
    return Case(name, lambda: Fn(f), lambda: tuple(torch.randn(*s) for s in shapes), **kw)


def mod(name, make, *shapes, **kw):
    return Case(name, make, lambda: tuple(torch.randn(*s) for s in shapes), **kw)


def unpool2d(x):
    v, i = F.max_pool2d(x, 2, return_indices=True)
    return F.max_unpool2d(v, i, 2, output_size=[7, 9])


def unpool3d(x):
    v, i = F.max_pool3d(x, 2, stride=2, return_indices=True)
    return F.max_unpool3d(v, i, 2, stride=2)


def unpool1d(x):
    v, i = F.max_pool1d(x, 3, stride=2, return_indices=True)
    return F.max_unpool1d(v, i, 3, stride=2)


CONV = [
    mod("conv3d", lambda: nn.Conv3d(3, 4, 3), (2, 3, 5, 6, 6)),
    mod("conv3d_stride_pad_dilation_groups",
        lambda: nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                          dilation=(2, 1, 1), groups=2), (2, 4, 7, 5, 6)),
    fn("conv3d_unbatched_no_bias", lambda x, w: F.conv3d(x, w, stride=2), (3, 5, 5, 5),
       (2, 3, 2, 2, 2)),
    mod("conv3d_depthwise", lambda: nn.Conv3d(4, 4, 3, padding=1, groups=4), (1, 4, 4, 5, 5)),
    fn("conv2d_unbatched", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
       (4, 5, 6), (6, 2, 3, 3), (6,)),
    fn("conv1d_unbatched", lambda x, w: F.conv1d(x, w, stride=2, dilation=2), (3, 11), (2, 3, 3)),
    Case("conv3d_float64", lambda: nn.Conv3d(2, 3, 2, stride=(1, 2, 1)).double(),
         lambda: (torch.randn(1, 2, 3, 5, 4, dtype=torch.float64),)),
    mod("conv1d_same_even_kernel", lambda: nn.Conv1d(3, 4, 4, padding="same"), (2, 3, 9)),
    mod("conv2d_same_dilation", lambda: nn.Conv2d(3, 4, 3, padding="same", dilation=2),
        (2, 3, 8, 7)),
    mod("conv2d_same_asymmetric_groups",
        lambda: nn.Conv2d(4, 6, (2, 3), padding="same", groups=2), (1, 4, 6, 6)),
    mod("conv2d_valid", lambda: nn.Conv2d(3, 4, 3, padding="valid", stride=2), (2, 3, 9, 8)),
    mod("conv3d_same", lambda: nn.Conv3d(2, 3, (2, 3, 3), padding="same"), (1, 2, 4, 5, 5)),
    fn("conv1d_same_unbatched", lambda x, w: F.conv1d(x, w, padding="same", dilation=3),
       (3, 10), (4, 3, 2)),
    mod("conv_transpose1d",
        lambda: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 6)),
    mod("conv_transpose2d_groups",
        lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
        (2, 4, 5, 4)),
    mod("conv_transpose2d_dilation",
        lambda: nn.ConvTranspose2d(3, 2, (3, 2), stride=(2, 3), padding=(2, 0),
                                   output_padding=(1, 2), dilation=(2, 1)), (1, 3, 4, 3)),
    fn("conv_transpose2d_unbatched", lambda x, w: F.conv_transpose2d(x, w, stride=2),
       (3, 4, 4), (3, 2, 3, 3)),
    mod("conv_transpose3d",
        lambda: nn.ConvTranspose3d(4, 6, (3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
                                   output_padding=(1, 0, 1), groups=2, dilation=(1, 2, 1)),
        (2, 4, 3, 4, 3)),
    fn("conv_transpose3d_no_bias", lambda x, w: F.conv_transpose3d(x, w, stride=2, padding=1),
       (1, 2, 3, 3, 3), (2, 3, 2, 3, 2)),
    fn("convolution_3d_core_op",
       lambda x, w, b: torch.ops.aten.convolution(x, w, b, [1, 2, 1], [1, 1, 0], [1, 1, 2],
                                                  False, [0, 0, 0], 1),
       (1, 2, 4, 6, 6), (3, 2, 3, 3, 2), (3,)),
    fn("_convolution_transposed",
       lambda x, w: torch.ops.aten._convolution(x, w, None, [2, 2], [1, 1], [1, 1], True,
                                                [1, 1], 1, False, False, True, True),
       (1, 3, 4, 4), (3, 2, 3, 3)),
    fn("_convolution_3d",
       lambda x, w: torch.ops.aten._convolution(x, w, None, [1, 1, 1], [0, 1, 1], [1, 1, 1],
                                                False, [0, 0, 0], 1, False, False, True, True),
       (1, 2, 3, 4, 4), (2, 2, 2, 3, 3)),
    fn("_convolution_deprecated",
       lambda x, w, b: torch.ops.aten._convolution.deprecated(
           x, w, b, [1, 2], [1, 0], [2, 1], False, [0, 0], 1, False, False, True),
       (1, 3, 7, 6), (2, 3, 3, 2), (2,)),
    fn("_convolution_mode_same",
       lambda x, w: torch.ops.aten._convolution_mode(x, w, None, [1, 1], "same", [1, 2], 1),
       (1, 3, 6, 6), (2, 3, 2, 3)),
    fn("thnn_conv2d", lambda x, w, b: torch.ops.aten.thnn_conv2d(x, w, [3, 3], b, [2, 1],
                                                                  [1, 0]),
       (2, 3, 7, 6), (4, 3, 3, 3), (4,)),
    fn("slow_conv3d", lambda x, w: torch.ops.aten.slow_conv3d(x, w, [2, 2, 2], None,
                                                               [1, 2, 1], [0, 1, 0]),
       (1, 2, 4, 5, 4), (3, 2, 2, 2, 2)),
]

POOL = [
    fn("avg_pool1d", lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True,
                                            count_include_pad=False), (2, 3, 10)),
    fn("avg_pool1d_unbatched", lambda x: F.avg_pool1d(x, 2), (3, 7)),
    fn("avg_pool3d", lambda x: F.avg_pool3d(x, 2), (2, 3, 4, 6, 6)),
    fn("avg_pool3d_ceil_pad_exclude",
       lambda x: F.avg_pool3d(x, (3, 2, 3), stride=(2, 2, 2), padding=(1, 1, 1),
                              ceil_mode=True, count_include_pad=False), (1, 2, 5, 6, 7)),
    fn("avg_pool3d_pad_include", lambda x: F.avg_pool3d(x, 3, stride=2, padding=1),
       (1, 2, 5, 5, 5)),
    fn("avg_pool3d_divisor_override",
       lambda x: F.avg_pool3d(x, 2, stride=1, padding=1, divisor_override=3), (1, 2, 3, 4, 4)),
    fn("avg_pool3d_unbatched", lambda x: F.avg_pool3d(x, (1, 2, 2)), (2, 3, 4, 4)),
    fn("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1, dilation=2,
                                            ceil_mode=True), (2, 3, 11)),
    fn("max_pool1d_indices", lambda x: F.max_pool1d(x, 2, return_indices=True), (2, 3, 9)),
    fn("max_pool3d", lambda x: F.max_pool3d(x, 2), (2, 3, 4, 6, 6)),
    fn("max_pool3d_pad_dilation_ceil",
       lambda x: F.max_pool3d(x, (3, 2, 3), stride=(2, 1, 2), padding=(1, 1, 1),
                              dilation=(1, 2, 1), ceil_mode=True), (1, 2, 6, 6, 7)),
    fn("max_pool3d_indices",
       lambda x: F.max_pool3d(x, 3, stride=2, padding=1, return_indices=True), (2, 2, 5, 5, 6)),
    fn("max_pool3d_unbatched_indices", lambda x: F.max_pool3d(x, 2, return_indices=True),
       (3, 4, 4, 4)),
    fn("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 10)),
    fn("adaptive_avg_pool1d_unbatched", lambda x: F.adaptive_avg_pool1d(x, 3), (3, 7)),
    fn("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), (2, 3, 5, 7, 6)),
    fn("_adaptive_avg_pool3d", lambda x: torch.ops.aten._adaptive_avg_pool3d(x, [3, 2, 4]),
       (1, 2, 5, 5, 7)),
    fn("adaptive_avg_pool3d_global", lambda x: F.adaptive_avg_pool3d(x, 1), (2, 3, 3, 4, 4)),
    fn("adaptive_max_pool1d_indices",
       lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), (2, 3, 10)),
    fn("adaptive_max_pool2d_even", lambda x: F.adaptive_max_pool2d(x, (2, 3)), (2, 3, 6, 9)),
    fn("adaptive_max_pool2d_uneven_indices",
       lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), (2, 3, 7, 10)),
    fn("adaptive_max_pool2d_unbatched", lambda x: F.adaptive_max_pool2d(x, 5), (3, 7, 6)),
    fn("adaptive_max_pool3d_indices",
       lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), return_indices=True), (1, 2, 5, 7, 3)),
    fn("max_unpool2d", unpool2d, (2, 3, 7, 9)),
    fn("max_unpool1d", unpool1d, (2, 3, 9)),
    fn("max_unpool3d", unpool3d, (1, 2, 4, 4, 6)),
    fn("lp_pool1d", lambda x: F.lp_pool1d(x, 2, 3, stride=2), (2, 3, 9)),
    fn("lp_pool3d", lambda x: F.lp_pool3d(x, 3, 2), (1, 2, 4, 4, 4)),
    fn("fractional_max_pool3d_refused",
       lambda x: F.fractional_max_pool3d(x, 2, output_size=2), (1, 2, 5, 5, 5),
       refused=r"fractional_max_pool3d.*random"),
    fn("fractional_max_pool2d_refused",
       lambda x: F.fractional_max_pool2d(x, 2, output_size=3), (1, 2, 7, 7),
       refused=r"fractional_max_pool2d.*random"),
]

BLOCKS = [
    fn("unfold", lambda x: F.unfold(x, 3, padding=1, stride=2), (2, 3, 8, 7)),
    fn("unfold_dilation_rect", lambda x: F.unfold(x, (2, 3), dilation=(2, 1), stride=(1, 2)),
       (1, 2, 6, 9)),
    fn("unfold_unbatched", lambda x: F.unfold(x, 2), (3, 4, 5)),
    fn("fold", lambda x: F.fold(x, (6, 7), 3, padding=1, stride=2), (2, 18, 12)),
    fn("fold_overlapping_dilation", lambda x: F.fold(x, (5, 6), (2, 3), dilation=(2, 1)),
       (1, 12, 12)),
    fn("fold_unbatched", lambda x: F.fold(x, (4, 4), 2, stride=2), (8, 4)),
    fn("unfold_fold_roundtrip", lambda x: F.fold(F.unfold(x, 3, padding=1), (5, 5), 3, padding=1),
       (1, 2, 5, 5)),
]

EVAL = [
    # Eval-mode ops that are their input or the no-training batch norm.
    Case("native_batch_norm_eval", lambda: Fn(lambda x, w, b, m, v: (
        torch.native_batch_norm(x, w, b, m, v, False, 0.1, 1e-5)[0],
        torch.native_batch_norm(x, None, None, m, v, False, 0.1, 1e-3)[0])),
         lambda: (torch.randn(2, 3, 4, 5), torch.randn(3), torch.randn(3), torch.randn(3),
                  torch.rand(3) + 0.5)),
    fn("alpha_dropouts_eval", lambda x: (F.alpha_dropout(x, 0.5, False) * 2,
                                         F.feature_alpha_dropout(x, 0.3, False) + 1,
                                         torch.ops.aten.lift(x) - 1), (2, 3, 4)),
    fn("alpha_dropout_train_refused", lambda x: F.alpha_dropout(x, 0.5, True), (2, 3),
       refused=r"'aten::alpha_dropout' in training mode is random"),
]

CASES = CONV + POOL + BLOCKS + EVAL
