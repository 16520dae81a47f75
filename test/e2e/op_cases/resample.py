"""Resampling without kernels of its own, legalized into core ops: F.interpolate in
every mode (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
antialiased bilinear/bicubic) by size and by scale factor (integral and not,
recompute_scale_factor, align_corners), the default overloads with explicit
scales, grid_sample through `grid_sampler`, affine_grid and pixel_shuffle's
corner cases; against eager on portable and xnnpack, on both runtimes.
"""
import torch
import torch.nn.functional as F
from torch import nn

from op_cases import Case


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def fn(name, f, *inputs, **kw):
    def make_inputs():
        return tuple(i() if callable(i) else torch.randn(*i) for i in inputs)
    return Case(name, lambda: Fn(f), make_inputs, **kw)


def interp(name, shape, **kw):
    return fn(name, lambda x: F.interpolate(x, **kw), shape)


def grid(*shape):
    return lambda: torch.rand(*shape) * 2.4 - 1.2  # a little outside [-1, 1]


UP = [
    # nearest
    interp("nearest1d_size", (2, 3, 7), size=12),
    interp("nearest1d_scale", (2, 3, 5), scale_factor=2.5),
    interp("nearest1d_down", (1, 2, 9), size=4),
    interp("nearest2d_scale_fraction", (1, 2, 5, 7), scale_factor=(1.7, 0.6)),
    interp("nearest3d_size", (2, 2, 3, 4, 5), size=(5, 6, 4)),
    interp("nearest3d_scale", (1, 2, 3, 3, 4), scale_factor=(2, 1.5, 0.75)),
    interp("nearest3d_double", (1, 2, 2, 3, 3), scale_factor=2),
    fn("nearest1d_uint8", lambda x: F.interpolate(x, size=7),
       lambda: torch.randint(0, 255, (2, 3, 5), dtype=torch.uint8)),
    fn("nearest1d_default_with_scale_double_size",  # no 2x shortcut in 1-D
       lambda x: torch.ops.aten.upsample_nearest1d(x, [10], 2.3), (1, 2, 5)),
    fn("nearest2d_default_with_scales",
       lambda x: torch.ops.aten.upsample_nearest2d(x, [7, 8], 1.3, 1.9), (1, 2, 5, 4)),
    fn("nearest3d_default_with_scales",
       lambda x: torch.ops.aten.upsample_nearest3d(x, [4, 5, 6], 1.5, None, 2.2), (1, 2, 3, 3, 3)),
    # nearest-exact
    interp("nearest_exact1d", (2, 3, 7), size=12, mode="nearest-exact"),
    interp("nearest_exact2d_scale", (1, 2, 5, 6), scale_factor=(1.5, 0.7), mode="nearest-exact"),
    interp("nearest_exact3d", (1, 2, 3, 4, 5), size=(6, 3, 7), mode="nearest-exact"),
    fn("nearest_exact2d_uint8", lambda x: F.interpolate(x, size=(5, 3), mode="nearest-exact"),
       lambda: torch.randint(0, 255, (1, 2, 4, 6), dtype=torch.uint8)),
    fn("nearest2d_default_shortcuts",  # 2-D: out == 2*in halves, out == in copies
       lambda x: torch.ops.aten.upsample_nearest2d(x, [4, 10], 1.3, 2.3), (1, 2, 4, 5)),
    # linear family
    interp("linear1d", (2, 3, 6), size=11, mode="linear"),
    interp("linear1d_align", (2, 3, 6), size=4, mode="linear", align_corners=True),
    interp("linear1d_scale", (1, 2, 5), scale_factor=1.7, mode="linear"),
    interp("bilinear_scale_fraction", (1, 2, 5, 7), scale_factor=(1.3, 2.6), mode="bilinear"),
    interp("bilinear_recompute", (1, 2, 5, 7), scale_factor=1.3, mode="bilinear",
           recompute_scale_factor=True),
    fn("bilinear_default_with_scales",
       lambda x: torch.ops.aten.upsample_bilinear2d(x, [9, 6], False, 1.7, None), (1, 2, 5, 4)),
    fn("bilinear_default_by_size",
       lambda x: torch.ops.aten.upsample_bilinear2d(x, [9, 6], True), (1, 2, 5, 4)),
    interp("trilinear", (1, 2, 3, 4, 5), size=(5, 3, 8), mode="trilinear"),
    interp("trilinear_align", (2, 2, 3, 3, 4), size=(4, 5, 2), mode="trilinear",
           align_corners=True),
    interp("trilinear_scale", (1, 2, 3, 4, 4), scale_factor=(1.5, 2, 0.5), mode="trilinear"),
    # bicubic
    interp("bicubic_scale2", (2, 3, 6, 5), scale_factor=2, mode="bicubic"),
    interp("bicubic_size_align", (1, 3, 6, 5), size=(9, 7), mode="bicubic", align_corners=True),
    interp("bicubic_down", (1, 2, 9, 8), size=(4, 5), mode="bicubic"),
    interp("bicubic_scale_fraction", (1, 2, 5, 7), scale_factor=(1.4, 0.6), mode="bicubic"),
    fn("bicubic_float64", lambda x: F.interpolate(x, size=(7, 3), mode="bicubic"),
       lambda: torch.randn(1, 2, 4, 5, dtype=torch.float64)),
    fn("bicubic_default_with_scales",
       lambda x: torch.ops.aten.upsample_bicubic2d(x, [8, 5], False, 1.6, None), (1, 2, 5, 4)),
    # default overloads with explicit scales (direct calls; F.interpolate writes .vec)
    fn("nearest_exact1d_default_scale",
       lambda x: torch.ops.aten._upsample_nearest_exact1d(x, [8], 1.7), (1, 2, 5)),
    fn("nearest_exact2d_default_scales",
       lambda x: torch.ops.aten._upsample_nearest_exact2d(x, [7, 3], None, 0.7), (1, 2, 5, 4)),
    fn("nearest_exact3d_default",
       lambda x: torch.ops.aten._upsample_nearest_exact3d(x, [4, 5, 2], None, None, None),
       (1, 2, 3, 3, 3)),
    fn("linear1d_default_scale",
       lambda x: torch.ops.aten.upsample_linear1d(x, [9], False, 1.9), (1, 2, 5)),
    fn("trilinear_default_scales",
       lambda x: torch.ops.aten.upsample_trilinear3d(x, [4, 5, 6], True, 1.5, None, 2.2),
       (1, 2, 3, 3, 3)),
    fn("bicubic_aa_default",
       lambda x: torch.ops.aten._upsample_bicubic2d_aa(x, [4, 7], False, None, None),
       (1, 2, 9, 5)),
    fn("lanczos_default_refused",
       lambda x: torch.ops.aten._upsample_lanczos2d_aa(x, [4, 4], False, None, None),
       (1, 2, 8, 8), refused=r"_upsample_lanczos2d_aa.*Lanczos"),
    # antialiased
    interp("bilinear_aa_down", (1, 3, 10, 8), size=(5, 4), mode="bilinear", antialias=True),
    interp("bilinear_aa_up", (1, 2, 5, 4), scale_factor=1.5, mode="bilinear", antialias=True),
    interp("bicubic_aa_down", (2, 3, 12, 10), size=(5, 4), mode="bicubic", antialias=True),
    interp("bicubic_aa_up_align", (1, 2, 5, 6), size=(8, 9), mode="bicubic", antialias=True,
           align_corners=True),
    interp("bicubic_aa_scale", (1, 2, 9, 9), scale_factor=0.45, mode="bicubic", antialias=True),
    fn("lanczos_refused", lambda x: torch.ops.aten._upsample_lanczos2d_aa.vec(
        x, [4, 4], False, None), (1, 2, 8, 8), refused=r"_upsample_lanczos2d_aa.*Lanczos"),
]

GRID = [
    fn("grid_sample_bilinear_zeros", lambda x, g: F.grid_sample(x, g, align_corners=False),
       (2, 3, 5, 6), grid(2, 4, 7, 2)),
    fn("grid_sample_nearest_border",
       lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border",
                                  align_corners=True), (1, 2, 5, 5), grid(1, 3, 4, 2)),
    fn("grid_sample_bicubic_reflection",
       lambda x, g: F.grid_sample(x, g, mode="bicubic", padding_mode="reflection",
                                  align_corners=False), (1, 2, 5, 5), grid(1, 3, 4, 2)),
    fn("grid_sample_3d_refused", lambda x, g: F.grid_sample(x, g, align_corners=False),
       (1, 2, 3, 3, 3), grid(1, 2, 2, 2, 3), refused=r"grid_sampler.*3"),
    fn("affine_grid", lambda t: F.affine_grid(t, [2, 3, 5, 4], align_corners=False), (2, 2, 3)),
    fn("affine_grid_align", lambda t: F.affine_grid(t, [1, 1, 1, 3], align_corners=True),
       (1, 2, 3)),
    fn("affine_grid_3d", lambda t: F.affine_grid(t, [2, 1, 3, 4, 5], align_corners=False),
       (2, 3, 4)),
    fn("affine_grid_sample", lambda x, t: F.grid_sample(
        x, F.affine_grid(t, [2, 3, 6, 6], align_corners=False), align_corners=False),
       (2, 3, 6, 6), lambda: torch.eye(2, 3).expand(2, 2, 3) + 0.1 * torch.randn(2, 2, 3)),
    fn("pixel_shuffle_5d", lambda x: F.pixel_shuffle(x, 2), (2, 2, 8, 3, 3)),
    fn("pixel_shuffle_3d", lambda x: F.pixel_shuffle(x, 3), (9, 2, 2)),
    fn("pixel_unshuffle_5d", lambda x: F.pixel_unshuffle(x, 2), (2, 2, 2, 4, 6)),
]

CASES = UP + GRID
