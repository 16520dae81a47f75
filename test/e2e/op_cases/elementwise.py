"""Composite pointwise ops, conversions and factories (passes/LegalizeElementwise*.cpp).

Each case is the Python API users write, exported as torch.export writes it (the
op named in the case is the ATen op the graph holds). Cases group a few ops
into one module with several outputs to keep the family's CI time down; every
output is compared with eager. Inputs hold the values where the ops' edges
are: 0, +-inf, NaN, negative numbers, integers and bools.
"""
import torch
import torch.nn.functional as F

from op_cases import Case

inf, nan = float("inf"), float("nan")
N = torch.export.Dim("n", min=2, max=16)


class Fn(torch.nn.Module):
    """A module that calls `f` (and keeps `params` as parameters)."""

    def __init__(self, f, **params):
        super().__init__()
        self.f = f
        for k, v in params.items():
            setattr(self, k, torch.nn.Parameter(v, requires_grad=False))

    def forward(self, *args):
        return self.f(self, *args)


def fn(f, **params):
    return lambda: Fn(f, **params)


def case(name, f, inputs, **kw):
    return Case(name, fn(lambda m, *a: f(*a)), inputs, **kw)


def special():
    """Finite values of both signs, zeros and the IEEE specials."""
    return torch.tensor([[-3.5, -1.0, -0.25, 0.0, 0.25, 1.0, 2.5, 40.0],
                         [-0.0, 0.5, -0.5, inf, -inf, nan, 7.0, -90.0]])


def rnd(*shape):
    return torch.randn(*shape)


def ints(*shape, lo=-6, hi=7, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=dtype)


def bools(*shape):
    return torch.rand(*shape) > 0.5


def finite():
    """Finite values of both signs (XNNPACK's NaN and infinity handling is its
    own: cases with special() run on the portable kernels, their twins with
    these values on every backend)."""
    return torch.tensor([[-3.5, -1.0, -0.25, 0.0, 0.25, 1.0, 2.5, 40.0],
                         [-0.1, 0.5, -0.5, 3.0, -7.0, 0.75, 7.0, -90.0]])


def twins(name, f, specials, finites, **kw):
    """`name` on special values (portable) and `name_finite` on finite ones."""
    return [case(name, f, specials, backends=["portable"], **kw),
            case(name + "_finite", f, finites, **kw)]


def inplace(f):
    """f applied in place to a clone of the first argument, which is returned."""
    def g(x, *rest):
        x = x.clone()
        f(x, *rest)
        return x
    return g


def to_copy_then_inplace(x):
    y = x.to(torch.float32, copy=True)
    y.add_(1)
    return x * 1, y


def to_same_dtype_write_through(x):
    x = x.clone()
    y = x.to(torch.float32)  # PyTorch returns x itself: the write reaches x
    y.add_(1)
    return x * 1, y


def to_memory_format_write(x):
    x = x.clone()
    y = x.to(memory_format=torch.channels_last)  # alias or copy, by x's strides
    y.add_(1)
    return x * 1, y


CASES = [
    # ---- dtype and device conversions: to.dtype, to.dtype_layout, to.device,
    # to.other, type_as, _cast_*. A conversion that changes nothing is the input.
    case("to_dtype", lambda x, i: (x.to(torch.float64), x.to(torch.int32), x.to(torch.float16),
                                    x.to(torch.float32) + 1, x.to(dtype=torch.bool), i.float(),
                                    i.to(torch.int8), x.long(), x.double(), x.half(), x.int(),
                                    x.bool()),
         lambda: (rnd(3, 4) * 4, ints(3, 4))),
    case("to_dtype_bfloat16", lambda x: (x.bfloat16().float(), (x.to(torch.bfloat16) + 1).float()),
         lambda: (rnd(3, 4),), backends=["portable"]),
    case("to_device_layout", lambda x, i: (x.to("cpu"), x.to("cpu", torch.float64), x.cpu() + 1,
                                            x.to(i), x.type_as(i), i.type_as(x),
                                            x.type(torch.float64), x.to(torch.float64,
                                                                         non_blocking=True)),
         lambda: (rnd(3, 4) * 3, ints(3, 4))),
    case("to_memory_format", lambda x: x.to(memory_format=torch.channels_last) * 2,
         lambda: (rnd(1, 3, 4, 4),)),
    case("cast_ops", lambda x, i: (torch._cast_Long(x), torch._cast_Float(i),
                                    torch._cast_Double(x), torch._cast_Half(x),
                                    torch._cast_Int(x), torch._cast_Short(i).int(),
                                    torch._cast_Char(i), torch._cast_Byte(i.abs()),
                                    torch._cast_Float(x) + 1),
         lambda: (rnd(3, 4) * 5, ints(3, 4))),
    # copy=True makes a new tensor: a write to it must not reach the input.
    case("to_copy_then_inplace", to_copy_then_inplace, lambda: (rnd(2, 3),)),
    case("to_same_dtype_write_through", to_same_dtype_write_through, lambda: (rnd(2, 3),)),
    case("to_memory_format_write_refused", to_memory_format_write, lambda: (rnd(1, 2, 2, 2),),
         refused=r"write through 'aten::to.dtype_layout'"),
    # ---- *_as.
    case("view_reshape_expand_as", lambda x, y, z: (x.view_as(y), x.t().reshape_as(y),
                                                     z.expand_as(x), x.reshape_as(x)),
         lambda: (rnd(3, 4), rnd(2, 6), rnd(1, 4))),
    Case("view_expand_as_dynamic", fn(lambda m, x, y: (x.view_as(y) + 1, m.w.expand_as(x) * x),
                                       w=torch.randn(1, 4)),
         lambda: (rnd(6, 4), rnd(6, 2, 2)),
         dynamic_shapes=(({0: N}, {0: N}),), backends=["portable"]),
    # ---- factories.
    case("new_factories", lambda x, i: (x.new_zeros((2, 3)), x.new_ones((2, 3), dtype=torch.int64),
                                         i.new_full((3,), 2.5, dtype=torch.float32),
                                         i.new_full((2,), 7), x.new_empty((2, 2)).fill_(3),
                                         x.new_empty_strided((2, 3), (1, 2)).fill_(1),
                                         torch.empty_like(x).fill_(4),
                                         torch.empty_strided((2, 3), (3, 1)).fill_(5),
                                         torch.zeros_like(i), torch.ones_like(x, dtype=torch.bool)),
         lambda: (rnd(3, 4), ints(3, 4))),
    case("plain_factories", lambda x: (torch.zeros(2, 3) + x[:2], torch.ones(4, dtype=torch.int64),
                                       torch.full((2, 2), 1.5), torch.full((3,), 7),
                                       torch.empty(2, 3).fill_(2.0), torch.zeros_like(x, dtype=torch.int32)),
         lambda: (rnd(3, 3),)),
    Case("new_ones_dynamic", fn(lambda m, x: (x.new_ones(x.shape[0], 3) * 2,
                                               torch.empty_like(x).fill_(1) + x)),
         lambda: (rnd(5, 3),), dynamic_shapes=(({0: N},),), backends=["portable"]),
    # The pointwise rewrites on run-time shapes: each kernel takes its inputs' sizes.
    Case("pointwise_dynamic", fn(lambda m, x, i: (F.mish(x), torch.xlogy(x, x.abs()),
                                                   torch.where(x > 0, x, 0.5), x.to(torch.float64),
                                                   torch.isclose(x, x * 1.000001),
                                                   torch.lerp(x, x * 2, 0.7), x.new_zeros(x.shape),
                                                   torch.nan_to_num(x / 0), torch.square(i),
                                                   i & 6, torch.isfinite(x))),
         lambda: (rnd(5, 3), ints(5, 3)), dynamic_shapes=(({0: N}, {0: N}),),
         backends=["portable"]),
    # Random: only the range and dtype are compared.
    case("rand_like", lambda x: ((torch.rand_like(x) < 1) & (torch.rand_like(x) >= 0),
                                 torch.randn_like(x).isfinite()),
         lambda: (rnd(3, 4),), backends=["portable"]),
    case("randint_like_refused", lambda x: torch.randint_like(x, 5), lambda: (rnd(3, 4),),
         refused=r"randint_like.*random integers"),
    case("randint_refused", lambda x: x + torch.randint(0, 5, (3, 4)), lambda: (rnd(3, 4),),
         refused=r"'aten::randint.low' is not supported: random sampling"),
    case("randperm_refused", lambda x: x + torch.randperm(4), lambda: (rnd(3, 4),),
         refused=r"'aten::randperm' is not supported: random sampling"),
    # ---- a number first: a 0-dim tensor of the promoted dtype, then .Tensor
    # (bool & 3 is int64, 3.5 % int8 is float32). Divisors are nonzero:
    # PyTorch raises on an integer remainder by zero.
    case("scalar_first", lambda i, b, x, h: (
        torch.bitwise_and(3, i), torch.bitwise_or(-6, i), torch.bitwise_xor(5, i),
        torch.bitwise_and(3, b), torch.bitwise_or(True, b), torch.bitwise_xor(2, b),
        torch.remainder(7, i.abs()), torch.remainder(3.5, i),
        torch.remainder(2, x), torch.remainder(-2.5, x), torch.remainder(-3.5, h),
        torch.bitwise_and(9, i.to(torch.int8))),
        lambda: (ints(3, 4, lo=1, hi=7) * (1 - 2 * ints(3, 4, lo=0, hi=2)), bools(3, 4),
                 rnd(3, 4), rnd(3, 4).half())),
    # upstream's integer remainder kernel differs from PyTorch where the signs
    # differ (remainder(-7, 2) is 1 in PyTorch and on pte-run)
    case("scalar_first_remainder_negative", lambda i: (torch.remainder(7, i), torch.remainder(-7, i)),
         lambda: (ints(3, 4, lo=1, hi=7) * (1 - 2 * ints(3, 4, lo=0, hi=2)),), oracle=False),
    case("conj_physical_real", lambda x, i: (torch._conj_physical(x), torch._conj_physical(i)),
         lambda: (rnd(3, 4), ints(3, 4))),
    # ---- bitwise dunders: GPT-2/LLaMA masks use __and__.Tensor on bools.
    case("bitwise_bool", lambda b, c: (b & c, b | c, b ^ c, b & True, b | False, b ^ True),
         lambda: (bools(3, 4), bools(3, 4))),
    case("bitwise_int", lambda i, j: (i & j, i | j, i ^ j, i & 3, i | 8, i ^ -1,
                                      i.to(torch.int32) & 5, i.to(torch.uint8) | 1),
         lambda: (ints(3, 4, lo=-50, hi=50), ints(3, 4, lo=-50, hi=50))),
    case("shifts", lambda i, j: (i << j, i >> j, i << 2, i >> 1,
                                 torch.bitwise_left_shift(3, j), torch.bitwise_right_shift(96, j),
                                 i.to(torch.int32) << 3, i.to(torch.uint8) >> 2),
         lambda: (ints(3, 4, lo=-40, hi=40), ints(3, 4, lo=0, hi=6))),
    case("bitwise_inplace", lambda b, c, i, j: (inplace(lambda x, y: x.__iand__(y))(b, c),
                                                inplace(lambda x, y: x.__ior__(y))(b, c),
                                                inplace(lambda x, y: x.__ixor__(y))(b, c),
                                                inplace(lambda x: x.__iand__(6))(i),
                                                inplace(lambda x, y: x.__ilshift__(y))(i, j),
                                                inplace(lambda x: x.__irshift__(1))(i)),
         lambda: (bools(3, 4), bools(3, 4), ints(3, 4, lo=-20, hi=20), ints(3, 4, lo=0, hi=5))),
    case("causal_padding_mask", lambda ids: (
        (torch.arange(8)[None, :] <= torch.arange(8)[:, None])[None] & (ids != 0)[:, None, :]),
         lambda: (torch.tensor([[5, 3, 0, 2, 9, 0, 1, 4]]),)),
    # ---- activations.
    *twins("square", lambda x, i, b: (torch.square(x), torch.square(i), torch.square(b),
                                       inplace(lambda t: t.square_())(x)),
           lambda: (special(), ints(3, 4), bools(3, 4)), lambda: (finite(), ints(3, 4), bools(3, 4))),
    *twins("mish_softplus", lambda x: (F.mish(x), F.softplus(x), F.softplus(x, beta=2, threshold=5),
                                       F.softplus(x, beta=0.5), inplace(lambda t: F.mish(t, True))(x)),
           lambda: (torch.cat([special().flatten(), rnd(16) * 10]),),
           lambda: (torch.cat([finite().flatten(), rnd(16) * 10]),)),
    case("elu_family", lambda x: (F.celu(x), F.celu(x, alpha=0.5), F.selu(x),
                                  inplace(lambda t: F.celu(t, 2.0, True))(x),
                                  inplace(lambda t: F.selu(t, True))(x), F.elu(x, 0.7)),
         lambda: (torch.cat([special().flatten(), rnd(16) * 3]),)),
    *twins("shrink_threshold", lambda x, i: (F.softshrink(x), F.softshrink(x, 1.5),
                                             F.softshrink(x, 0.0), F.hardshrink(x),
                                             F.hardshrink(x, 0.1), F.threshold(x, 0.1, 20.0),
                                             F.threshold(i, 2, -7), F.threshold(i, -0.5, 3),
                                             inplace(lambda t: F.threshold(t, 0.0, 1.0, True))(x)),
           lambda: (special(), ints(3, 4)), lambda: (finite(), ints(3, 4))),
    *twins("log_sigmoid", lambda x: (F.logsigmoid(x), torch.ops.aten.log_sigmoid_forward(x)),
           lambda: (torch.cat([special().flatten(), rnd(16) * 30]),),
           lambda: (torch.cat([finite().flatten(), rnd(16) * 30]),)),
    case("rrelu_eval", lambda x: (F.rrelu(x), F.rrelu(x, 0.1, 0.5), inplace(F.rrelu_)(x)),
         lambda: (rnd(3, 4),)),
    Case("rrelu_module_eval", lambda: torch.nn.RReLU(0.2, 0.4), lambda: (rnd(3, 4),)),
    case("rrelu_training_refused", lambda x: F.rrelu(x, training=True), lambda: (rnd(3, 4),),
         refused=r"rrelu.*training mode"),
    Case("prelu", fn(lambda m, x, y: (F.prelu(x, m.w1), F.prelu(x, m.wc), F.prelu(y, m.w1),
                                      torch.ops.aten._prelu_kernel(x, m.wb)),
                     w1=torch.tensor([0.25]), wc=torch.tensor([0.1, -0.5, 2.0]),
                     wb=torch.tensor([[[0.3]], [[0.6]], [[-1.0]]])),
         lambda: (rnd(2, 3, 4, 4), rnd(5))),
    # A 0-dim input: upstream's XNNPACK delegate cannot take 0-dim tensors.
    Case("prelu_0dim", fn(lambda m, z: F.prelu(z, m.w1), w1=torch.tensor([0.25])),
         lambda: (torch.tensor(-2.0),), backends=["portable"]),
    Case("prelu_module", lambda: torch.nn.PReLU(3), lambda: (rnd(2, 3, 5),)),
    case("hardtanh_inplace", lambda x: (inplace(lambda t: F.hardtanh(t, -0.5, 0.5, True))(x),
                                        inplace(lambda t: F.relu6(t, True))(x)),
         lambda: (rnd(3, 4) * 8,)),
    case("activations_f16", lambda x: (F.mish(x), F.softplus(x), F.logsigmoid(x), F.celu(x)),
         lambda: ((rnd(4, 8) * 4).half(),), backends=["portable"]),
    # Gradients of activations (PyTorch's default decomposition table has them).
    case("activation_grads", lambda g, x, p, m: (
        torch.ops.aten.tanh_backward(g, torch.tanh(x)), torch.ops.aten.sigmoid_backward(g, p),
        torch.ops.aten.silu_backward(g, x), torch.ops.aten.logit_backward(g, p),
        torch.ops.aten.logit_backward(g, p, 0.2), torch.ops.aten.gelu_backward(g, x),
        torch.ops.aten.gelu_backward(g, x, approximate="tanh"),
        torch.ops.aten.threshold_backward(g, x, 0.1),
        torch.ops.aten.native_dropout_backward(g, m, 2.0)),
         lambda: (rnd(3, 4), rnd(3, 4) * 3, torch.tensor([[-0.5, 0.0, 0.1, 0.5]] * 3) + torch.rand(3, 4) * 0.6,
                  bools(3, 4))),
    case("refused_math", lambda x: torch.lgamma(x), lambda: (rnd(3, 4),),
         refused=r"'aten::lgamma' is not supported: no portable kernel"),
    case("refused_copysign", lambda x, y: torch.copysign(x, y), lambda: (rnd(3, 4), rnd(3, 4)),
         refused=r"'aten::copysign.Tensor' is not supported: it reads the sign bit"),
    # ---- binary math.
    *twins("logaddexp", lambda a, b: (torch.logaddexp(a, b), torch.logaddexp2(a, b),
                                      torch.logaddexp(a, a), torch.logaddexp2(b, b)),
           lambda: (torch.tensor([0.0, 1.0, -inf, inf, inf, nan, -100.0, 80.0]),
                    torch.tensor([0.0, -2.0, -inf, inf, -inf, 1.0, 90.0, 80.5])),
           lambda: (rnd(3, 4) * 10, rnd(3, 4) * 10)),
    *twins("xlogy", lambda a, b, i: (torch.xlogy(a, b), torch.xlogy(a, 3.0), torch.xlogy(2, b),
                                   torch.xlogy(i, i.abs()), torch.special.xlogy(a, b),
                                   torch.special.xlog1py(a, b), torch.special.xlog1py(a, 0.5),
                                   torch.special.xlog1py(2.0, b), torch.special.xlogy(a, 2.0),
                                   torch.special.xlogy(0.5, b),
                                   inplace(lambda t, u: t.xlogy_(u))(a, b)),
         lambda: (torch.tensor([0.0, 0.0, 1.0, 2.0, -1.0, 3.0, nan, 0.5]),
                  torch.tensor([0.0, nan, 0.5, 4.0, 2.0, -1.0, 1.0, inf]),
                  ints(8, lo=-3, hi=4)),
         lambda: (torch.tensor([0.0, 0.0, 1.0, 2.0, -1.0, 3.0, 0.1, 0.5]),
                  torch.rand(8) + 0.1, ints(8, lo=-3, hi=4))),
    case("heaviside", lambda x, v, i: (torch.heaviside(x, v), torch.heaviside(x, torch.tensor(0.5)),
                                       torch.heaviside(i, torch.tensor(7))),
         lambda: (torch.tensor([-2.0, 0.0, -0.0, 3.0, nan, inf, -inf, 0.0]),
                  torch.tensor([9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.25]), ints(8, lo=-2, hi=3))),
    case("float_power", lambda x, y, i: (torch.float_power(x.abs(), y), torch.float_power(x, 2),
                                         torch.float_power(2, y), torch.float_power(i, 3),
                                         torch.float_power(x.abs(), 0.5)),
         lambda: (rnd(3, 4) * 3, rnd(3, 4), ints(3, 4))),
    *twins("fmax_fmin_ldexp", lambda a, b, i, j: (torch.fmax(a, b), torch.fmin(a, b), torch.fmax(i, j),
                                               torch.fmin(i, j), torch.ldexp(a, j),
                                               torch.ldexp(i, j)),
         lambda: (torch.tensor([1.0, nan, nan, -inf, 0.0, 5.0]),
                  torch.tensor([2.0, 3.0, nan, 1.0, -0.0, -5.0]), ints(6), ints(6, lo=0, hi=5)),
         lambda: (rnd(6), rnd(6), ints(6), ints(6, lo=0, hi=5))),
    # ---- unary math.
    case("nan_to_num", lambda x, i: (torch.nan_to_num(x), torch.nan_to_num(x, 1.5, 100.0, -100.0),
                                     torch.nan_to_num(x, posinf=7.0), torch.nan_to_num(i),
                                     torch.nan_to_num(x.double()), torch.nan_to_num(x.half()),
                                     inplace(lambda t: t.nan_to_num_(2.0))(x)),
         lambda: (special(), ints(3, 4))),
    *twins("frac_fix", lambda x, i: (torch.frac(x), torch.fix(x), torch.fix(i), torch.sgn(i),
                                     inplace(lambda t: t.frac_())(x),
                                     inplace(lambda t: t.fix_())(x)),
           lambda: (special() * 1.7, ints(3, 4)), lambda: (finite() * 1.7, ints(3, 4))),
    case("sgn", lambda x: (torch.sgn(x), inplace(lambda t: t.sgn_())(x)), lambda: (finite(),)),
    # upstream's sign kernel gives NaN for NaN; PyTorch (and pte-run) give 0
    case("sgn_special", lambda x: torch.sgn(x), lambda: (special(),), backends=["portable"],
         oracle=False),
    *twins("angles_sinc", lambda x, i: (torch.deg2rad(x), torch.rad2deg(x), torch.deg2rad(i),
                                      torch.rad2deg(i), torch.sinc(x), torch.sinc(i),
                                      torch.special.sinc(x), inplace(lambda t: t.deg2rad_())(x)),
         lambda: (special(), ints(3, 4)), lambda: (finite(), ints(3, 4))),
    case("predicates", lambda x, i, b: (torch.isfinite(x), torch.isposinf(x), torch.isneginf(x),
                                        torch.isreal(x), torch.isfinite(i), torch.isposinf(i),
                                        torch.isneginf(b), torch.isreal(i)),
         lambda: (special(), ints(3, 4), bools(3, 4))),
    *twins("erfc_exp2_ndtr", lambda x, i: (torch.erfc(x), torch.special.erfc(x), torch.exp2(x),
                                         torch.exp2(i), torch.special.exp2(x),
                                         torch.special.ndtr(x), torch.special.ndtr(i)),
         lambda: (torch.cat([special().flatten(), rnd(16) * 2]), ints(4)),
         lambda: (torch.cat([finite().flatten(), rnd(16) * 2]), ints(4))),
    *twins("special_aliases", lambda x, p: (torch.special.expit(x), torch.special.erf(x),
                                          torch.special.expm1(x), torch.special.log1p(p),
                                          torch.special.logit(p), torch.special.logit(p, 1e-3),
                                          torch.special.entr(x), torch.special.entr(p)),
         lambda: (special(), torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0, 0.999])),
         lambda: (finite(), torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0, 0.999]))),
    case("round_decimals", lambda x: (torch.round(x, decimals=2), torch.round(x, decimals=-1),
                                      torch.special.round(x), torch.special.round(x, decimals=1)),
         lambda: (rnd(4, 8) * 300,)),
    # ---- ternary math.
    case("lerp", lambda s, e, w: (torch.lerp(s, e, 0.3), torch.lerp(s, e, 0.75), torch.lerp(s, e, w),
                                  torch.lerp(s, e[0], w), inplace(lambda t, u: t.lerp_(u, 0.5))(s, e)),
         lambda: (rnd(3, 4), rnd(3, 4), torch.tensor([[-0.5, 0.0, 0.49, 0.5],
                                                      [0.51, 1.0, 1.5, 0.25],
                                                      [2.0, -1.0, 0.7, 0.3]]))),
    case("addcmul_addcdiv", lambda s, a, b, i, j: (torch.addcmul(s, a, b), torch.addcmul(s, a, b, value=0.5),
                                                   torch.addcdiv(s, a, b), torch.addcdiv(s, a, b, value=-2),
                                                   torch.addcmul(i, j, j, value=3),
                                                   torch.addcmul(s, a[0], b[:, :1]),
                                                   inplace(lambda t, u, v: t.addcmul_(u, v))(s, a, b)),
         lambda: (rnd(3, 4), rnd(3, 4), rnd(3, 4) + 3, ints(3, 4), ints(3, 4))),
    case("isclose", lambda a, b, i, j, p, q: (torch.isclose(a, b), torch.isclose(a, b, equal_nan=True),
                                              torch.isclose(a, b, rtol=0.1, atol=0.0),
                                              torch.isclose(a, b, rtol=0, atol=0),
                                              torch.isclose(i, j), torch.isclose(i, j, atol=1.5),
                                              torch.isclose(p, q)),
         lambda: (torch.tensor([1.0, nan, inf, -inf, 1.0, 100.0, 0.0]),
                  torch.tensor([1.000001, nan, inf, inf, 1.05, 109.0, 1e-9]),
                  ints(7), ints(7), bools(7), bools(7))),
    case("clip", lambda x, lo, hi, i: (torch.clip(x, -0.5, 0.5), x.clip(min=0.1), torch.clip(x, lo, hi),
                                       torch.clip(i, -2, 3), inplace(lambda t: t.clip_(0, 1))(x)),
         lambda: (rnd(3, 4), rnd(3, 4) - 1, rnd(3, 4) + 1, ints(3, 4))),
    # ---- other names of core ops.
    case("aliases_unary", lambda x, p: (torch.absolute(x), torch.negative(x), torch.arccos(p),
                                        torch.arcsin(p), torch.arctan(x), torch.arccosh(x.abs() + 1),
                                        torch.arcsinh(x), torch.arctanh(p), torch.positive(x) + 1,
                                        inplace(lambda t: t.absolute_())(x),
                                        inplace(lambda t: t.arccos_())(p)),
         lambda: (rnd(3, 4) * 3, torch.rand(3, 4) * 1.8 - 0.9)),
    case("aliases_binary", lambda x, y, i, j: (torch.arctan2(x, y), torch.divide(x, y),
                                               torch.divide(x, 2.5), torch.divide(i, j, rounding_mode="floor"),
                                               torch.divide(x, y, rounding_mode="trunc"),
                                               torch.divide(i, 3, rounding_mode="floor"),
                                               torch.true_divide(i, j), torch.true_divide(x, 4),
                                               torch.multiply(x, y), torch.multiply(i, 3),
                                               torch.subtract(x, y, alpha=2), torch.subtract(i, 5),
                                               inplace(lambda t, u: t.divide_(u))(x, y),
                                               inplace(lambda t, u: t.multiply_(u))(x, y),
                                               inplace(lambda t, u: t.subtract_(u))(x, y)),
         lambda: (rnd(3, 4), rnd(3, 4), ints(3, 4, lo=-20, hi=20), ints(3, 4, lo=1, hi=5))),
    case("aliases_compare", lambda x, y, i: (torch.greater(x, y), torch.greater(x, 0.0),
                                             torch.greater_equal(x, y), torch.greater_equal(i, 1),
                                             torch.less(x, y), torch.less(i, 0),
                                             torch.less_equal(x, y), torch.less_equal(x, 0.5),
                                             torch.not_equal(i, i.flip(0)), torch.not_equal(x, 0),
                                             inplace(lambda t, u: t.greater_(u))(x, y),
                                             inplace(lambda t: t.not_equal_(0))(i)),
         lambda: (rnd(3, 4), rnd(3, 4), ints(3, 4, lo=-2, hi=3))),
    # ---- selection with numbers.
    case("where_scalars", lambda c, x, i: (torch.where(c, 1.5, -2.0), torch.where(c, 1, 0),
                                           torch.where(c, True, False), torch.where(c, x, 0.0),
                                           torch.where(c, 0.5, x), torch.where(c, i, 0.5),
                                           torch.where(c, 2, i), torch.where(c, x, 3)),
         lambda: (bools(3, 4), rnd(3, 4), ints(3, 4))),
    case("masked_fill_tensor", lambda x, m, i: (x.masked_fill(m, torch.tensor(2.5)),
                                                 i.masked_fill(m, torch.tensor(7)),
                                                 x.masked_fill(m[0], torch.tensor(-inf)),
                                                 x[0].masked_fill(m, 3.0), i[:, :1].masked_fill(m, 4),
                                                 x[0].masked_fill(m, torch.tensor(5.0)),
                                                 inplace(lambda t, u: t.masked_fill_(u, torch.tensor(1.0)))(x, m)),
         lambda: (rnd(3, 4), bools(3, 4), ints(3, 4))),
    case("floor_divide_scalar", lambda x, i: (x // 2, x // -0.75, i // 3, i // -4, i // 2.5,
                                              torch.floor_divide(x, 1.5)),
         lambda: (special() * 3, ints(3, 4, lo=-20, hi=20))),
]

# Met by the OpInfo sweep: complex views of real tensors are the tensor; angle
# of a real tensor is pi below 0, 0 from 0 on (-0.0 included), NaN for NaN;
# integers give float32.
CASES += [
    *twins("angle", lambda x, i: (torch.angle(x), torch.angle(i)),
           lambda: (special(), ints(3, 4)), lambda: (finite(), ints(3, 4))),
    case("real_views", lambda x: (torch.conj_physical(x), torch.real(x) * 1, x.resolve_conj() * 1,
                                  x.resolve_neg() * 1), lambda: (rnd(3, 4),)),
]

# Refused by name: special functions no portable kernel computes, frexp.
CASES += [
    case("special_zeta_refused", lambda x, q: torch.special.zeta(x, q),
         lambda: (rnd(3) + 2, rnd(3).abs() + 1), refused=r"special_zeta' is not supported: a special function"),
    case("chebyshev_refused", lambda x, n: torch.special.chebyshev_polynomial_t(x, n),
         lambda: (rnd(3), ints(3, lo=0, hi=4)), refused=r"special_chebyshev_polynomial_t' is not supported"),
    case("frexp_refused", lambda x: torch.frexp(x), lambda: (rnd(3),), refused=r"frexp.Tensor' is not supported"),
]
