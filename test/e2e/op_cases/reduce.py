"""Norms, statistics, scans, products, einsum, attention and losses
(passes/LegalizeReduce*.cpp): every op and overload the training IR keeps,
against eager, on float32 and on the integer/bool inputs torch promotes.
Related overloads share a module (several outputs) to keep CI time down."""
import torch
import torch.nn.functional as F

from op_cases import Case

A = torch.ops.aten


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def fn_case(name, fn, inputs, **kw):
    return Case(name, lambda: Fn(fn), inputs, **kw)


def randn(*s):
    return torch.randn(*s)


def ints(*s, lo=-5, hi=6, dtype=torch.int64):
    return torch.randint(lo, hi, s, dtype=dtype)


def with_specials(*s):
    """Random values with zeros, negatives, inf, -inf and a NaN mixed in."""
    x = torch.randn(*s)
    flat = x.view(-1)
    flat[0] = 0.0
    flat[3] = float("inf")
    flat[5] = float("-inf")
    flat[7] = float("nan")
    flat[9] = -2.0
    return x


class GroupNormModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.gn = torch.nn.GroupNorm(4, 8)
        self.gn_plain = torch.nn.GroupNorm(2, 8, affine=False, eps=1e-3)

    def forward(self, x):
        y = self.gn(self.conv(x))
        return y, self.gn_plain(y), F.group_norm(y[:, :4, 0], 2)


class InstanceNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.InstanceNorm2d(4, affine=True)
        self.b = torch.nn.InstanceNorm1d(4)
        self.c = torch.nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
        with torch.no_grad():
            self.c.running_mean.copy_(torch.randn(4))
            self.c.running_var.copy_(torch.rand(4) + 0.5)
            self.a.weight.copy_(torch.randn(4))

    def forward(self, x):
        return self.a(x), self.b(x.flatten(2)), self.c(x)


class RmsNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.RMSNorm(6)
        self.b = torch.nn.RMSNorm([4, 6], eps=1e-3, elementwise_affine=False)
        with torch.no_grad():
            self.a.weight.copy_(torch.randn(6))

    def forward(self, x):
        return self.a(x), self.b(x), A._fused_rms_norm(x, [6], None, None)[0]


class WeightNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(5, 4))
        self.b = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(3, 4, 3), dim=1)

    def forward(self, x, y):
        return self.a(x), self.b(y)


class LayerNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.LayerNorm([3, 4])
        self.b = torch.nn.LayerNorm(4, elementwise_affine=False)
        self.c = torch.nn.LayerNorm(4, bias=False)

    def forward(self, x):
        return self.a(x), self.b(x), self.c(x)


def vector_norms(x):
    return (torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, 1, dim=1),
            torch.linalg.vector_norm(x, float("inf"), dim=(0, 2)),
            torch.linalg.vector_norm(x, float("-inf"), dim=-1, keepdim=True),
            torch.linalg.vector_norm(x, 0, dim=1), torch.linalg.vector_norm(x, 3, dim=2),
            torch.linalg.vector_norm(x, -1.5, dim=2), torch.linalg.vector_norm(x, 0.5),
            torch.linalg.vector_norm(x, 2, dim=-1, dtype=torch.float64),
            torch.linalg.vector_norm(x, 4, dim=(1,), keepdim=True))


def norm_overloads(x):
    return (torch.norm(x), torch.norm(x, p=1, dim=1), torch.norm(x, p=3),
            torch.norm(x, dim=(1, 2), keepdim=True), x.norm(dim=-1),
            torch.norm(x, p="fro", dim=(0, 1)), A.norm.Scalar(x, 3),
            A.norm.ScalarOpt_dtype(x, 2, dtype=torch.float64),
            A.norm.ScalarOpt_dim_dtype(x, None, [0], False, dtype=torch.float64),
            A.frobenius_norm.dim(x, [1, 2], True))


def matrix_norms(x):
    return (torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 1),
            torch.linalg.matrix_norm(x, -1, keepdim=True),
            torch.linalg.matrix_norm(x, float("inf"), dim=(0, 2)),
            torch.linalg.matrix_norm(x, float("-inf"), dim=(2, 1)),
            torch.linalg.norm(x), torch.linalg.norm(x, dim=1),
            torch.linalg.norm(x, 3, dim=(2,)), torch.linalg.norm(x[0], 1),
            torch.linalg.norm(x[0], "fro"), torch.linalg.norm(x, float("inf"), dim=(1, 2)))


def variances(x):
    return (torch.std(x), torch.std(x, 1), torch.std(x, (0, 2), unbiased=False, keepdim=True),
            torch.std(x, dim=-1, correction=2), torch.std(x, correction=0.5),
            torch.var(x), torch.var(x, 1, unbiased=False), torch.var(x, dim=(1,), correction=3),
            *torch.std_mean(x), *torch.std_mean(x, 1, keepdim=True),
            *torch.std_mean(x, dim=0, correction=0), *torch.var_mean(x),
            *torch.var_mean(x, (1, 2), unbiased=False))


def reductions(x):
    return (torch.logsumexp(x, 1), torch.logsumexp(x, (0, 2), keepdim=True),
            torch.special.logsumexp(x, -1), torch.nansum(x), torch.nansum(x, 1),
            torch.nanmean(x, (0, 1)), torch.nanmean(x, -1, keepdim=True),
            torch.count_nonzero(x), torch.count_nonzero(x, 1), torch.count_nonzero(x, (0, 2)),
            *torch.aminmax(x), *torch.aminmax(x, dim=1, keepdim=True))


def int_reductions(x, x32):
    return (torch.logsumexp(x, 1), torch.nansum(x, 1), torch.count_nonzero(x, 0),
            torch.all(x), torch.all(x, 1), torch.all(x, (0, 2), keepdim=True), torch.any(x),
            *torch.aminmax(x, dim=-1), torch.trace(x[0]), torch.cumprod(x, 1),
            torch.cumprod(x32, 2), torch.trace(x32[0]), torch.cumprod(x > 0, 0),
            torch.cummax(x, 1)[0], torch.cummax(x, 1)[1], torch.cummin(x, 2)[1])


def bool_reductions(x, u8):
    b = x > 0.3
    return (torch.all(b), torch.all(b, 1), torch.all(b, (1, 2)), torch.all(x),
            torch.all(x, -1, keepdim=True), torch.count_nonzero(b, 2),
            torch.all(u8, 1), torch.all(u8))


def scans(x):
    return (torch.cumprod(x, 1), torch.cumprod(x, -1, dtype=torch.float64),
            torch.logcumsumexp(x, 1), torch.logcumsumexp(x, 0), *torch.cummax(x, 1),
            *torch.cummin(x, -1))


def long_scans(x):
    return torch.cumprod(x, 1), torch.logcumsumexp(x, 1), *torch.cummax(x, 1)


def diffs(x, p, xi):
    return (torch.diff(x), torch.diff(x, dim=0), torch.diff(x, n=2, dim=1),
            torch.diff(x, n=3, dim=1, prepend=p, append=p), torch.diff(x > 0, dim=1),
            torch.diff(x, n=9, dim=1), torch.diff(xi, dim=1), torch.diff(xi, dim=1, prepend=p))


def integration(y, x, yi):
    return (torch.trapezoid(y), torch.trapezoid(y, dx=0.5, dim=0), torch.trapezoid(y, x),
            torch.trapz(y, dx=2.0), torch.trapz(y, x, dim=-1),
            torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, dx=3, dim=0),
            torch.cumulative_trapezoid(y, x), torch.trapezoid(yi), torch.trapezoid(yi, x),
            torch.cumulative_trapezoid(yi, dx=2), torch.cumulative_trapezoid(yi, x),
            torch.trace(y[:, :4]),
            torch.trapezoid(y[:, :0]))


def mean_sum_dtypes(x, i, b):
    return (torch.mean(x, dtype=torch.float64), torch.mean(x, 1, dtype=torch.float64),
            torch.sum(x, dtype=torch.float64), torch.sum(i), torch.sum(i, 1, keepdim=True),
            torch.sum(b), torch.sum(b, 0), torch.sum(i, dtype=torch.float32),
            torch.sum(x, (0, 1)), torch.mean(x, ()), torch.sum(i, dim=-1, dtype=torch.int64))


def in_place(s, a, b, v, m, x):
    y = s.clone()
    y.baddbmm_(a, b, alpha=0.5)
    z = s[0].clone()
    z.addbmm_(a, b)
    w = v.clone()
    w.addmv_(m, v, beta=2)
    r = m.clone()
    r.addr_(v, v, alpha=-1)
    q = x.clone()
    q.renorm_(2, 0, 1.0)
    c = x.clone()
    c.cumprod_(1)
    return y, z, w, r, q, c


def empties(x, e):
    return (torch.cumprod(e, 1), torch.logsumexp(e, 0), torch.nansum(e, 1), torch.std(x, 1),
            torch.diff(e, dim=1), torch.linalg.vector_norm(e, dim=0), torch.all(e, 1),
            torch.einsum("ij,jk->ik", x, e.t()))


def quantiles(x, q):
    return (torch.quantile(x, 0.3), torch.quantile(x, 0.5, dim=1),
            torch.quantile(x, q, dim=-1, keepdim=True), torch.quantile(x, q),
            torch.quantile(x, 0.25, dim=0, interpolation="lower"),
            torch.quantile(x, q, dim=1, interpolation="higher"),
            torch.quantile(x, 0.3, dim=1, interpolation="midpoint"),
            torch.quantile(x, q, dim=1, interpolation="nearest"),
            torch.quantile(x, q[1], dim=1, keepdim=True),
            torch.nanquantile(x, 0.4, dim=1), torch.nanquantile(x, q, dim=0),
            torch.nanquantile(x, q, interpolation="nearest"))


def add_mm(s3, b1, b2, s2, m, v, r1, r2):
    return (torch.baddbmm(s3, b1, b2), torch.baddbmm(s3, b1, b2, beta=0.5, alpha=2),
            torch.baddbmm(s3[0], b1, b2, beta=0.0), torch.addbmm(s2, b1, b2),
            torch.addbmm(s2, b1, b2, beta=2, alpha=0.5), torch.addmv(v[:3], m, v),
            torch.addmv(v[:3], m, v, beta=0, alpha=3), torch.addr(s2, r1, r2),
            torch.addr(s2, r1, r2, beta=2, alpha=-1), torch.addr(s2[0], r1, r2, beta=0))


def vec_products(a, b, m, t3, t4):
    return (torch.outer(a, b), torch.ger(a, b[:3]), torch.dot(a, b[:4]),
            torch.vdot(a, b[:4]), torch.mv(m, b), torch.inner(t3, m),
            torch.inner(a, a), torch.inner(torch.tensor(2.0), m),
            torch.tensordot(t3, t4, dims=2), torch.tensordot(t3, t4, dims=([2, 1], [1, 0])),
            torch.tensordot(m, m, dims=0), torch.tensordot(t3[:1], t4, dims=([0, 1], [2, 0])),
            torch.kron(m, t3), torch.kron(a, b),
            torch.linalg.vecdot(t3, t3[0], dim=-1), torch.linalg.vecdot(a, a))


def int_products(a, b, m):
    return (torch.outer(a, b), torch.dot(a, a), torch.kron(a, b), torch.mv(m, b),
            torch.addr(m, a, b), torch.tensordot(m, m, dims=([1], [1])))


def chain_products(a, b, c, v):
    return (torch.linalg.multi_dot([a, b, c]), torch.linalg.multi_dot([v, b, c]),
            torch.linalg.multi_dot([a, b, c, v[:2]]), torch.chain_matmul(a, b, c),
            torch.linalg.matmul(a, b), torch.linalg.matmul(v, b),
            torch.linalg.matmul(torch.stack([a, a]), b), torch.linalg.matmul(b[0], c))


def crosses(a, b, ai, bi):
    return (torch.linalg.cross(a, b), torch.cross(a, b, dim=1),
            torch.linalg.cross(a[:, :1], b), torch.cross(a.transpose(1, 2)[0], b.transpose(1, 2)[0]),
            torch.linalg.cross(ai, bi), torch.cross(a[0, :1], b[0]))


# (equation, operand builder over the case inputs a[3,4] b[4,5] c[2,3,4] s[4,4] v[4] w[3]
# t[1,2,3,4]): every form torch accepts, incl. ellipsis, repeated labels, implicit output,
# upper-case labels, three operands and broadcasting.
EINSUM = [
    ("ij,jk->ik", lambda a, b, c, s, v, w, t: (a, b)),
    ("bij,bjk->bik", lambda a, b, c, s, v, w, t: (c, c.transpose(1, 2))),
    ("ii->i", lambda a, b, c, s, v, w, t: (s,)),
    ("ii", lambda a, b, c, s, v, w, t: (s,)),
    ("ij->", lambda a, b, c, s, v, w, t: (a,)),
    ("ij->ji", lambda a, b, c, s, v, w, t: (a,)),
    ("i,i", lambda a, b, c, s, v, w, t: (v, v)),
    ("i,j->ij", lambda a, b, c, s, v, w, t: (v, w)),
    ("i,j", lambda a, b, c, s, v, w, t: (v, w)),
    ("bhqd,bhkd->bhqk", lambda a, b, c, s, v, w, t: (t, t)),
    ("...ij,...jk->...ik", lambda a, b, c, s, v, w, t: (c, c.transpose(1, 2))),
    ("b...,b...->b...", lambda a, b, c, s, v, w, t: (c, c[:, :1])),
    ("iij->j", lambda a, b, c, s, v, w, t: (s.unsqueeze(-1).expand(4, 4, 3).contiguous(),)),
    ("ijk,jil->kl", lambda a, b, c, s, v, w, t: (c, c.transpose(0, 1).contiguous())),
    ("ab,bc,cd->ad", lambda a, b, c, s, v, w, t: (a, b, b.t())),
    ("ij,ij->ij", lambda a, b, c, s, v, w, t: (s, s)),
    ("...j,j->...", lambda a, b, c, s, v, w, t: (c, c[0, 0])),
    ("aBc,cBd->aBd", lambda a, b, c, s, v, w, t: (c, c.permute(2, 1, 0))),
    ("ijj,jk->ik", lambda a, b, c, s, v, w, t: (s.unsqueeze(0).expand(2, 4, 4), b)),
    ("i j , j k -> i k", lambda a, b, c, s, v, w, t: (a, b)),
    ("ij,kl->", lambda a, b, c, s, v, w, t: (a, s)),
    ("ij,j->i", lambda a, b, c, s, v, w, t: (a[:1], v)),
    ("...", lambda a, b, c, s, v, w, t: (c,)),
    ("ba", lambda a, b, c, s, v, w, t: (a,)),
]


def einsums(*xs):
    return tuple(torch.einsum(eq, *ops(*xs)) for eq, ops in EINSUM)


def distances(a, b, x1, x2):
    return (torch.cdist(a, b), torch.cdist(a, b, p=1), torch.cdist(a, b, p=float("inf")),
            torch.cdist(x1, x2, p=0.5), F.pdist(a), F.pdist(a, p=3),
            F.cosine_similarity(a, b[:5]), F.cosine_similarity(x1, x2[:, :3], dim=-1, eps=0.5),
            F.cosine_similarity(a, a[:1]), F.pairwise_distance(a, b[:5]),
            F.pairwise_distance(a, b[:5], p=1, keepdim=True), F.pairwise_distance(x1, x2[:, :3]),
            A._euclidean_dist(a, b))


def sdpa_masks(q, k, v, bmask, fmask, kv_short):
    return (F.scaled_dot_product_attention(q, k, v),
            F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
            F.scaled_dot_product_attention(q, k, v, attn_mask=bmask[0, 0]),
            F.scaled_dot_product_attention(q, k, v, attn_mask=fmask),
            F.scaled_dot_product_attention(q, k, v, attn_mask=fmask[:, :1], scale=0.3),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(q, kv_short, kv_short, is_causal=True),
            F.scaled_dot_product_attention(q[:, :, :2], k, v, is_causal=True),
            F.scaled_dot_product_attention(q, k[:1], v[:1]),
            F.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0]))


def sdpa_gqa(q, k, v, m):
    return (F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True,
                                           scale=0.25))


def sdpa_variants(q, k, v, m):
    return (A._scaled_dot_product_attention_math(q, k, v, m)[0],
            A._scaled_dot_product_attention_math(q, k, v, m)[1],
            *A._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True),
            A._safe_softmax(m.masked_fill(m < 0, float("-inf")), -1))


class DynamicBatch(torch.nn.Module):
    """The rules that decompose on run-time shapes (no sizes from static types)."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(6)

    def forward(self, x, b, c):
        return (self.norm(x), torch.std(x, -1), torch.linalg.vector_norm(x, dim=-1),
                torch.logsumexp(x, -1), torch.nansum(x, 1), torch.all(x > -2, -1),
                torch.baddbmm(c, x, b, alpha=0.5), A.mse_loss(x, x * 0.5, 0),
                F.binary_cross_entropy_with_logits(x, torch.sigmoid(x), reduction="none"))


def dynamic_batch():
    batch = torch.export.Dim("batch", min=2, max=16)
    return {"x": {0: batch}, "b": {0: batch}, "c": None}


class MhaKeyPadding(torch.nn.Module):
    """torchvision-style MultiheadAttention with a key padding mask: baddbmm."""

    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, pad):
        return self.mha(x, x, x, key_padding_mask=pad, need_weights=False)[0]


RED = {"none": 0, "mean": 1, "sum": 2}


def pointwise_losses(x, t, p, w, reductions):
    out = []
    for r in reductions:
        k = RED[r]
        out += [A.mse_loss(x, t, k), A.l1_loss(x, t, k), A.smooth_l1_loss(x, t, k, 0.5),
                A.huber_loss(x, t, k, 0.7), A.mse_loss(x, t[0], k),
                F.binary_cross_entropy(p, p.flip(0), weight=w, reduction=r),
                F.binary_cross_entropy_with_logits(x, p, reduction=r),
                F.binary_cross_entropy_with_logits(x, p, weight=w, pos_weight=w[0], reduction=r),
                F.kl_div(x, p, reduction=r), F.kl_div(x, t, reduction=r, log_target=True)]
    if "mean" in reductions:
        out += [A.smooth_l1_loss(x, t, 1, 0.0), F.kl_div(x, p, reduction="batchmean")]
    return tuple(out)


def margin_losses(x, y, t, c, reductions):
    out = []
    for r in reductions:
        out += [F.soft_margin_loss(x, t, reduction=r),
                F.margin_ranking_loss(x, y, t, margin=0.2, reduction=r),
                F.hinge_embedding_loss(x, t, margin=0.5, reduction=r),
                F.cosine_embedding_loss(x, y, t[:, 0], margin=0.1, reduction=r),
                F.poisson_nll_loss(x, y.abs(), reduction=r),
                F.poisson_nll_loss(y.abs(), x.abs() * 3, log_input=False, full=True, reduction=r),
                F.triplet_margin_loss(x, y, x.flip(0), reduction=r),
                F.triplet_margin_loss(x, y, x.flip(0), p=1, swap=True, reduction=r),
                F.multi_margin_loss(x, c, reduction=r),
                F.multi_margin_loss(x, c, p=2, margin=0.5, weight=y[0].abs(), reduction=r)]
    return tuple(out)


def class_losses(x, c, w, x4, c4, probs, reductions):
    out = []
    for r in reductions:
        out += [F.nll_loss(x, c, reduction=r), F.nll_loss(x, c, weight=w, reduction=r),
                F.nll_loss(x, c, ignore_index=1, reduction=r),
                F.nll_loss(x4, c4, weight=w, ignore_index=2, reduction=r),
                F.cross_entropy(x, c, reduction=r), F.cross_entropy(x4, c4, reduction=r),
                F.cross_entropy(x, c, weight=w, label_smoothing=0.1, ignore_index=0, reduction=r),
                F.cross_entropy(x, c, label_smoothing=0.2, reduction=r),
                F.cross_entropy(x, probs, reduction=r),
                F.cross_entropy(x, probs, weight=w, label_smoothing=0.3, reduction=r),
                F.cross_entropy(x[0], c[0], reduction=r)]
    return tuple(out)


def pointwise_inputs():
    return randn(4, 5), randn(4, 5), torch.rand(4, 5) * 0.98 + 0.01, torch.rand(4, 5)


def margin_inputs():
    return (randn(4, 5), randn(4, 5), torch.randint(0, 2, (4, 5)).float() * 2 - 1,
            torch.tensor([0, 3, 4, 1]))


def class_inputs():
    return (torch.log_softmax(randn(4, 5), 1), torch.tensor([0, 1, 4, 1]), torch.rand(5),
            randn(2, 5, 3, 2), torch.randint(0, 5, (2, 3, 2)), torch.softmax(randn(4, 5), 1))


SPECIALS = ("XNNPACK, in both runtimes, does not keep IEEE inf/NaN through mul/sub/sqrt/exp "
            "(NaN becomes -inf, sqrt(inf) NaN): a backend matter, reported; the decomposition "
            "is checked on the portable kernels")
ZERO_DIM = ("upstream's XNNPACK runtime fails on 0-dim delegate tensors ('Failed to retrieve "
            "dim order'), which ptec's partitioner hands it: reported; 'mean'/'sum' losses are "
            "0-dim, so their XNNPACK build runs on pte-run only")


def loss_cases(name, fn, inputs):
    """A loss family three times: 'none' everywhere; 'mean'/'sum' on portable (both
    runtimes) and on XNNPACK with pte-run only (ZERO_DIM)."""
    return [
        fn_case(name + "_none", lambda *a: fn(*a, ("none",)), inputs),
        fn_case(name + "_reduced", lambda *a: fn(*a, ("mean", "sum")), inputs,
                backends=["portable"]),
        fn_case(name + "_reduced_xnnpack", lambda *a: fn(*a, ("mean", "sum")), inputs,
                backends=["xnnpack"], oracle=False, why=ZERO_DIM),
    ]


CASES = [
    # ---- normalizations
    Case("group_norm", GroupNormModel, lambda: (randn(2, 3, 5, 5),)),
    Case("instance_norm", InstanceNorms, lambda: (randn(2, 4, 5, 3),)),
    Case("rms_norm", RmsNorms, lambda: (randn(3, 4, 6) * 3,)),
    Case("weight_norm", WeightNorm, lambda: (randn(3, 5), randn(2, 3, 7))),
    Case("layer_norm_corners", LayerNorms, lambda: (randn(2, 3, 4),)),
    fn_case("renorm", lambda x: (torch.renorm(x, 2, 0, 1.0), torch.renorm(x, 1, 1, 2.5),
                                 torch.renorm(x, 3.5, -1, 0.5)),
            lambda: (randn(3, 4, 5),)),
    # ---- norms
    # torch.matmul beyond matrix x matrix: vectors, and batch dims that broadcast.
    fn_case("matmul_vectors_broadcast",
            lambda a, b, v: (torch.matmul(a, b), torch.matmul(v, b[0]), torch.matmul(b[0, :, 0], v),
                             torch.matmul(b[:, :, :4], v), torch.matmul(a[0, 0], v)),
            lambda: (randn(2, 1, 3, 4), randn(5, 4, 6), randn(4))),
    fn_case("vector_norm", vector_norms, lambda: (randn(3, 4, 5),)),
    fn_case("norm_overloads", norm_overloads, lambda: (randn(3, 4, 5),)),
    fn_case("matrix_norm", matrix_norms, lambda: (randn(3, 4, 5),)),
    fn_case("norm_specials", lambda x: (torch.linalg.vector_norm(x, 2, dim=1),
                                        torch.linalg.vector_norm(x, float("inf"), dim=1),
                                        torch.linalg.vector_norm(x, 0, dim=1),
                                        torch.linalg.vector_norm(x, 1, dim=1)),
            lambda: (with_specials(2, 6),), backends=["portable"], why=SPECIALS),
    fn_case("nuclear_norm_refused", lambda x: torch.linalg.matrix_norm(x, "nuc"),
            lambda: (randn(3, 3),), refused=r"linalg_matrix_norm.*'nuc'.*SVD"),
    fn_case("spectral_norm_refused", lambda x: torch.linalg.matrix_norm(x, 2),
            lambda: (randn(3, 3),), refused=r"linalg_matrix_norm.*ord 2.*SVD"),
    # ---- statistics
    fn_case("std_var", variances, lambda: (randn(3, 4, 5),)),
    fn_case("reductions", reductions, lambda: (randn(3, 4, 5),)),
    fn_case("reductions_specials", reductions, lambda: (with_specials(3, 4, 5),),
            backends=["portable"], why=SPECIALS),
    fn_case("int_reductions", int_reductions,
            lambda: (ints(3, 4, 5, lo=-3, hi=4), ints(3, 4, 5, lo=-3, hi=4, dtype=torch.int32))),
    fn_case("bool_reductions", bool_reductions,
            lambda: (randn(3, 4, 5), ints(3, 4, lo=0, hi=3, dtype=torch.uint8))),
    fn_case("scans", scans, lambda: (randn(3, 6, 4),)),
    fn_case("scans_specials", scans, lambda: (with_specials(2, 10),), backends=["portable"],
            why=SPECIALS),
    fn_case("scans_long", long_scans, lambda: (torch.rand(2, 3000) * 0.1 + 0.95,),
            rtol=1e-4, atol=1e-5,
            why="a 3000-long product in float32: the log-step scan multiplies in another "
                "order than PyTorch's sequential loop; the rounding differs by a few ulps "
                "per step"),
    fn_case("diff", diffs, lambda: (randn(3, 5, 4), randn(3, 2, 4), ints(3, 5, 4, dtype=torch.int32))),
    fn_case("integration", integration,
            lambda: (randn(3, 5), torch.rand(5).cumsum(0), ints(3, 5, dtype=torch.int32))),
    fn_case("mean_sum_dtypes", mean_sum_dtypes,
            lambda: (randn(3, 4), ints(3, 4, dtype=torch.int32), torch.rand(3, 4) > 0.5)),
    fn_case("in_place", in_place, lambda: (randn(2, 3, 5), randn(2, 3, 4), randn(2, 4, 5),
                                           randn(5), randn(5, 5), randn(3, 4))),
    fn_case("empty_inputs", empties, lambda: (randn(3, 4), randn(0, 4))),
    fn_case("quantile", quantiles, lambda: (randn(3, 7), torch.tensor([0.0, 0.3, 0.5, 1.0]))),
    fn_case("quantile_nan", quantiles,
            lambda: (torch.tensor([[1.0, float("nan"), 3.0, -1.0, 2.0, 0.5, 4.0],
                                   [float("nan")] * 7, [5.0, 4.0, 3.0, 2.0, 1.0, 0.0, -1.0]]),
                     torch.tensor([0.0, 0.25, 0.5, 1.0])), backends=["portable"], why=SPECIALS),
    # ---- products
    fn_case("add_mm", add_mm, lambda: (randn(2, 3, 5), randn(2, 3, 4), randn(2, 4, 5),
                                       randn(3, 5), randn(3, 5), randn(5), randn(3),
                                       randn(5))),
    fn_case("vec_products", vec_products, lambda: (randn(4), randn(5), randn(3, 5),
                                                   randn(2, 3, 5), randn(3, 5, 2))),
    fn_case("int_products", int_products, lambda: (ints(4), ints(5), ints(4, 5))),
    fn_case("chain_products", chain_products, lambda: (randn(2, 3), randn(3, 4), randn(4, 2),
                                                       randn(3))),
    fn_case("cross", crosses, lambda: (randn(2, 3, 3), randn(2, 3, 3), ints(1, 3), ints(4, 3))),
    fn_case("bilinear", lambda a, b, w, bias: (F.bilinear(a, b, w, bias), F.bilinear(a, b, w)),
            lambda: (randn(2, 3, 4), randn(2, 3, 5), randn(6, 4, 5), randn(6))),
    Case("bilinear_module", lambda: torch.nn.Bilinear(3, 4, 2), lambda: (randn(5, 3), randn(5, 4))),
    fn_case("einsum", einsums, lambda: (randn(3, 4), randn(4, 5), randn(2, 3, 4), randn(4, 4),
                                        randn(4), randn(3), randn(1, 2, 3, 4))),
    fn_case("distances", distances, lambda: (randn(5, 4), randn(6, 4), randn(2, 3, 4),
                                             randn(2, 5, 4))),
    fn_case("matrix_power", lambda x: (torch.linalg.matrix_power(x, 0),
                                       torch.linalg.matrix_power(x, 1),
                                       torch.linalg.matrix_power(x, 5),
                                       torch.matrix_power(x[0], 2)),
            lambda: (randn(2, 3, 3),)),
    fn_case("matrix_power_negative_refused", lambda x: torch.linalg.matrix_power(x, -2),
            lambda: (randn(3, 3),), refused=r"matrix_power.*negative n.*inverse"),
    fn_case("inv_refused", lambda x: torch.linalg.inv(x), lambda: (randn(3, 3),),
            refused=r"'aten::linalg_inv'.*no kernel.*portable library"),
    fn_case("det_refused", lambda x: torch.linalg.det(x), lambda: (randn(3, 3),),
            refused=r"'aten::linalg_det'.*no kernel"),
    fn_case("svd_refused", lambda x: torch.linalg.svd(x)[1], lambda: (randn(3, 3),),
            refused=r"'aten::linalg_svd'.*no kernel"),
    # ---- attention
    fn_case("sdpa_masks", sdpa_masks,
            lambda: (randn(2, 2, 5, 4), randn(2, 2, 6, 4), randn(2, 2, 6, 4),
                     torch.rand(2, 2, 5, 6) > 0.3, randn(2, 2, 5, 6), randn(2, 2, 3, 4))),
    fn_case("sdpa_masked_rows", lambda q, k, v, m: (
        F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(m.shape).masked_fill(
            ~m, float("-inf")))),
        lambda: (randn(1, 2, 4, 4), randn(1, 2, 6, 4), randn(1, 2, 6, 3),
                 torch.tensor([[True] * 6, [False] * 6, [True, False] * 3, [False] * 5 + [True]]))),
    fn_case("sdpa_gqa", sdpa_gqa, lambda: (randn(1, 6, 5, 8), randn(1, 2, 5, 8),
                                           randn(1, 2, 5, 8), torch.rand(5, 5) > 0.2)),
    fn_case("sdpa_variants", sdpa_variants,
            lambda: (randn(1, 2, 3, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4), randn(1, 2, 3, 5))),
    Case("mha_key_padding", MhaKeyPadding,
         lambda: (randn(2, 5, 8), torch.tensor([[False] * 4 + [True], [False] * 5]))),
    Case("dynamic_batch", DynamicBatch, lambda: (randn(5, 3, 6), randn(5, 6, 2), randn(3, 2)),
         dynamic_shapes=dynamic_batch()),
    # ---- losses
    *loss_cases("pointwise_losses", pointwise_losses, pointwise_inputs),
    *loss_cases("margin_losses", margin_losses, margin_inputs),
    *loss_cases("class_losses", class_losses, class_inputs),
    fn_case("multilabel_margin", lambda x, y, v, w: (
        F.multilabel_margin_loss(x, y), F.multilabel_margin_loss(x, y, reduction="none"),
        F.multilabel_margin_loss(x, y, reduction="sum"), F.multilabel_margin_loss(v, w),
        *A.multilabel_margin_loss_forward(x, y, 1)),
        lambda: (randn(3, 4), torch.tensor([[1, 2, -1, 0], [0, -1, 0, 0], [3, 3, 1, 2]]), randn(4),
                 torch.tensor([2, 0, -1, 1])), backends=["portable"], why=ZERO_DIM),
]

# Met by the OpInfo sweep: dist is the vector p-norm of the broadcast difference.
CASES += [
    fn_case("dist", lambda a, b: (torch.dist(a, b), torch.dist(a, b, 1), torch.dist(a, b, 0),
                                  torch.dist(a, b, float("inf")), torch.dist(a, b, 3)),
            lambda: (randn(2, 3), randn(3)), backends=["portable"], why=ZERO_DIM),
]

CASES += [
    fn_case("histc_refused", lambda x: torch.histc(x, 4), lambda: (randn(10),),
            refused=r"histc' is not supported"),
]
