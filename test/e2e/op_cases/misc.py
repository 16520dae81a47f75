"""Composite ops of no larger family (passes/LegalizeMisc.cpp): factories, isin,
list helpers."""
import torch

from op_cases import Case


class Fn(torch.nn.Module):
    """A module that applies `fn` to its inputs."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def case(name, fn, inputs, **kw):
    return Case(name, lambda: Fn(fn), inputs, **kw)


def ints(*shape, high=5):
    return torch.randint(0, high, shape)


CASES = [
    # out= forms (composite_variants.txt): functionalization makes them functional.
    case("out_forms", lambda x, y: (
        torch.ops.aten.logaddexp.out(x, y, out=torch.empty_like(x)),
        torch.ops.aten.trace.out(x, out=torch.empty(())),
        torch.ops.aten.eye.m_out(3, 3, out=torch.empty(3, 3)) + x[:3, :3],
        torch.ops.aten.new_ones.out(x, [2, 2], out=torch.empty(2, 2)) * y[0, 0]),
        lambda: (torch.randn(4, 4), torch.randn(4, 4))),
    # eye, with x added so the graph has an input.
    case("eye_n", lambda x: torch.eye(4) + x, lambda: (torch.randn(4, 4),)),
    case("eye_nm", lambda x: torch.eye(3, 5) * x, lambda: (torch.randn(3, 5),)),
    case("eye_int", lambda x: torch.eye(3, dtype=torch.int64) + x, lambda: (ints(3, 3),)),
    case("eye_bool", lambda x: torch.logical_or(torch.eye(2, 3, dtype=torch.bool), x),
         lambda: (torch.rand(2, 3) > 0.5,)),
    # linspace / logspace: both ends exact, odd and even counts, descending.
    case("linspace_odd", lambda x: torch.linspace(-1.5, 2.25, 7) + x, lambda: (torch.zeros(7),)),
    case("linspace_even", lambda x: torch.linspace(3.0, -4.0, 10) + x,
         lambda: (torch.zeros(10),)),
    case("linspace_one", lambda x: torch.linspace(2.0, 5.0, 1) + x, lambda: (torch.zeros(1),)),
    case("linspace_large", lambda x: torch.linspace(0.0, 1.0, 1000) * x,
         lambda: (torch.ones(1000),)),
    case("logspace", lambda x: torch.logspace(-2.0, 2.0, 9) * x, lambda: (torch.ones(9),)),
    case("logspace_base2", lambda x: torch.logspace(0.0, 10.0, 11, base=2.0) + x,
         lambda: (torch.zeros(11),)),
    case("linspace_int_refused", lambda x: torch.linspace(0, 10, 5, dtype=torch.int64) + x,
         lambda: (ints(5),), refused=r"linspace' with an integer dtype is not supported"),
    # Hann windows (torch.stft users build them in the graph).
    case("hann_periodic", lambda x: torch.hann_window(16) * x, lambda: (torch.ones(16),)),
    case("hann_symmetric", lambda x: torch.hann_window(9, periodic=False) * x,
         lambda: (torch.ones(9),)),
    case("hann_one", lambda x: torch.hann_window(1) * x, lambda: (torch.ones(1),)),
    # isin: every overload, invert, integer and float, an absent value.
    case("isin_tensor", lambda a, b: torch.isin(a, b), lambda: (ints(3, 4, high=8), ints(5, high=8))),
    case("isin_tensor_invert", lambda a, b: torch.isin(a, b, invert=True),
         lambda: (ints(2, 3, high=6), ints(2, 2, high=6))),
    case("isin_float", lambda a, b: torch.isin(a, b),
         lambda: (torch.tensor([0.5, 1.0, 2.0, float("nan")]), torch.tensor([1.0, float("nan")]))),
    case("isin_tensor_scalar", lambda a: torch.isin(a, 3), lambda: (ints(4, 4),)),
    case("isin_scalar_tensor", lambda b: torch.isin(2, b), lambda: (ints(6),)),
    case("isin_scalar_tensor_absent", lambda b: torch.isin(9, b, invert=True), lambda: (ints(6),)),
    # concatenate, sum_to_size.
    case("concatenate", lambda a, b: torch.concatenate([a, b], dim=1),
         lambda: (torch.randn(2, 3), torch.randn(2, 4))),
    case("concat", lambda a, b: torch.concat([a, b]), lambda: (torch.randn(2, 3), torch.randn(1, 3))),
    case("sum_to_size", lambda x: x.sum_to_size(3, 1), lambda: (torch.randn(2, 3, 4),)),
    case("sum_to_size_same", lambda x: x.sum_to_size(2, 3) * 2, lambda: (torch.randn(2, 3),)),
    # pad_sequence: both layouts, both sides, a padding value.
    case("pad_sequence", lambda a, b, c: torch.nn.utils.rnn.pad_sequence([a, b, c]),
         lambda: (torch.randn(3, 2), torch.randn(5, 2), torch.randn(1, 2))),
    case("pad_sequence_batch_first",
         lambda a, b: torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True,
                                                      padding_value=-1.0),
         lambda: (torch.randn(2), torch.randn(4))),
    case("pad_sequence_left",
         lambda a, b: torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True,
                                                      padding_side="left"),
         lambda: (torch.randn(2, 3), torch.randn(4, 3))),
    # block_diag: 0-, 1- and 2-D blocks, mixed dtypes.
    case("block_diag", lambda a, b, c: torch.block_diag(a, b, c),
         lambda: (torch.randn(2, 3), torch.randn(4), torch.randn(1, 1))),
    case("block_diag_promote", lambda a, b: torch.block_diag(a, b),
         lambda: (ints(2, 2), torch.randn(3, 1))),
    # vander / linalg.vander.
    case("vander", lambda x: torch.vander(x), lambda: (torch.randn(4),)),
    case("vander_n_increasing", lambda x: torch.vander(x, N=3, increasing=True),
         lambda: (torch.randn(5),)),
    case("vander_int", lambda x: torch.vander(x, N=4), lambda: (ints(3),)),
    case("linalg_vander", lambda x: torch.linalg.vander(x), lambda: (torch.randn(2, 4),)),
    # combinations.
    case("combinations", lambda x: torch.combinations(x), lambda: (torch.randn(5),)),
    case("combinations_r3_replacement",
         lambda x: torch.combinations(x, r=3, with_replacement=True), lambda: (ints(4),)),
]

CASES += [
    # Tensor bounds (0-dim or one element), both orders.
    case("linspace_tensor_bounds", lambda a, b: torch.linspace(a, b, 6),
         lambda: (torch.tensor(-2.0), torch.tensor(3.5))),
    case("linspace_tensor_scalar", lambda a: torch.linspace(a, 1.0, 5), lambda: (torch.tensor(0.25),)),
    case("logspace_scalar_tensor", lambda b: torch.logspace(0.0, b, 4, base=3.0),
         lambda: (torch.tensor(2.0),)),
    case("special_softmax", lambda x: torch.special.softmax(x, 1), lambda: (torch.randn(2, 5),)),
    case("special_log_softmax", lambda x: torch.special.log_softmax(x, -1, dtype=torch.float64),
         lambda: (torch.randn(3, 4),)),
]

# Met by the OpInfo sweep.
CASES += [
    case("cartesian_prod", lambda a, b, c: (torch.cartesian_prod(a, b, c), torch.cartesian_prod(a) + 0),
         lambda: (ints(2), ints(3), ints(4))),
    case("cartesian_prod_float", lambda a, b: torch.cartesian_prod(a, b),
         lambda: (torch.randn(3), torch.randn(2))),
]
