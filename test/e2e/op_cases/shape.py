"""Shape, split/join, padding, indexing and sorting ops of the training IR (issue 32).

Each case is what a user writes (F.pad, x.chunk, torch.roll, ...); the comment or the
name says which ATen op torch.export keeps for it. Every op the `Shape` legalizations
handle has float32 cases, plus int64/bool ones where the op takes them, edge cases
(negative dims and pads, empty pieces, duplicate indices, ties) and its refusals.
"""
import torch
import torch.nn.functional as F

from op_cases import Case


class Fn(torch.nn.Module):
    """A module whose forward is `fn`."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def C(name, fn, *inputs, **kw):
    """A case calling fn(*inputs); each input is a tensor or a function making one."""
    return Case(name, lambda: Fn(fn),
                lambda: tuple(i() if callable(i) else i for i in inputs), **kw)


def randn(*shape):
    return lambda: torch.randn(*shape)


def randint(hi, *shape, lo=0):
    return lambda: torch.randint(lo, hi, shape)


def randbool(*shape):
    return lambda: torch.rand(*shape) > 0.5


def tensor(*a, **kw):
    return lambda: torch.tensor(*a, **kw)


def special(*shape):
    """randn with a NaN, +inf and -inf in it."""
    def make():
        x = torch.randn(*shape)
        f = x.view(-1)
        f[0], f[1], f[-1] = float("nan"), float("inf"), float("-inf")
        return x
    return make


PAD = [
    # aten::pad, mode constant: constant_pad_nd; negative pads crop.
    C("pad_constant", lambda x: F.pad(x, (1, 2)), randn(2, 3, 5)),
    C("pad_constant_value_4d", lambda x: F.pad(x, (1, 2, 0, 3, 1, 1), value=-2.5), randn(2, 3, 4, 5)),
    C("pad_constant_negative", lambda x: F.pad(x, (-1, 2, 1, -2)), randn(2, 3, 5, 6)),
    C("pad_constant_int64", lambda x: F.pad(x, (2, 1), value=7), randint(9, 3, 4)),
    C("pad_constant_bool", lambda x: F.pad(x, (1, 1)), randbool(3, 4)),
    C("pad_zeropad2d", lambda x: torch.nn.ZeroPad2d((1, 0, 2, 1))(x), randn(1, 2, 3, 3)),
    C("pad_constant_all_dims", lambda x: F.pad(x, (1, 1, 2, 0, 0, 3)), randn(2, 3, 4)),
    # reflect: reflection_pad1d/2d/3d (batched and unbatched)
    C("pad_reflect_1d", lambda x: F.pad(x, (2, 3), mode="reflect"), randn(2, 3, 7)),
    C("pad_reflect_1d_unbatched", lambda x: F.pad(x, (3, 1), mode="reflect"), randn(3, 7)),
    C("pad_reflect_2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), randn(2, 3, 5, 6)),
    C("pad_reflect_3d", lambda x: F.pad(x, (1, 1, 0, 2, 1, 0), mode="reflect"), randn(1, 2, 3, 4, 5)),
    C("pad_reflect_int64", lambda x: F.pad(x, (1, 2), mode="reflect"), randint(50, 2, 3, 5)),
    C("pad_reflect_negative", lambda x: F.pad(x, (-1, 2), mode="reflect"), randn(2, 3, 6)),
    # replicate: replication_pad1d/2d/3d
    C("pad_replicate_1d", lambda x: F.pad(x, (2, 3), mode="replicate"), randn(2, 3, 4)),
    C("pad_replicate_2d", lambda x: F.pad(x, (3, 0, 1, 4), mode="replicate"), randn(2, 3, 2, 3)),
    C("pad_replicate_3d", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"), randn(1, 2, 2, 3, 2)),
    C("pad_replicate_negative", lambda x: F.pad(x, (2, -1, -1, 1), mode="replicate"), randn(1, 2, 4, 5)),
    # circular: slices and cat
    C("pad_circular_1d", lambda x: F.pad(x, (2, 3), mode="circular"), randn(2, 3, 5)),
    C("pad_circular_2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="circular"), randn(2, 3, 4, 5)),
    C("pad_circular_3d", lambda x: F.pad(x, (1, 0, 0, 2, 1, 1), mode="circular"), randn(1, 2, 3, 4, 5)),
    C("pad_circular_negative", lambda x: F.pad(x, (-1, 2, 1, -2), mode="circular"), randn(1, 2, 4, 5)),
    C("pad_circular_int64", lambda x: F.pad(x, (1, 1), mode="circular"), randint(9, 1, 2, 4)),
    C("pad_circular_module", lambda x: torch.nn.CircularPad2d(1)(x), randn(1, 2, 3, 3)),
    # what swin_t does: new_zeros and a pad of the window remainder
    C("pad_after_new_zeros", lambda x: F.pad(x, (0, 0, 0, 1, 0, 2)) + 1, randn(1, 5, 6, 3)),
]

SPLIT = [
    # chunk: split_with_sizes_copy with torch's piece sizes
    C("chunk_even", lambda x: x.chunk(2, 1), randn(2, 6, 3)),
    C("chunk_uneven_negdim", lambda x: torch.chunk(x, 3, -1), randn(2, 3, 7)),
    C("chunk_fewer_pieces", lambda x: x.chunk(4, 0), randn(6, 2)),  # 3 pieces of 2
    C("chunk_more_than_size", lambda x: x.chunk(5, 0), randn(3, 2)),
    C("chunk_int64", lambda x: x.chunk(2, 0), randint(9, 5, 3)),
    C("chunk_shufflenet", lambda x: [c * 2 for c in x.chunk(2, dim=1)], randn(1, 4, 3, 3)),
    C("tensor_split_sections", lambda x: torch.tensor_split(x, 3, 2), randn(2, 3, 7)),
    C("tensor_split_sections_more", lambda x: torch.tensor_split(x, 4, 0), randn(3, 2)),
    C("tensor_split_indices", lambda x: torch.tensor_split(x, [1, 4], 2), randn(2, 3, 7)),
    C("tensor_split_indices_unordered", lambda x: torch.tensor_split(x, [3, 1, 9, -2], 1), randn(2, 6)),
    C("hsplit", lambda x: torch.hsplit(x, [1, 3]), randn(4, 5)),
    C("vsplit", lambda x: torch.vsplit(x, 2), randn(4, 5)),
    C("dsplit", lambda x: torch.dsplit(x, [2]), randn(2, 3, 4)),
    C("unsafe_split", lambda x: torch.unsafe_split(x, 2, 1), randn(4, 5)),
    C("unsafe_split_with_sizes", lambda x: torch.unsafe_split_with_sizes(x, [2, 3], 1), randn(4, 5)),
    C("unsafe_chunk", lambda x: torch.unsafe_chunk(x, 2, 1), randn(4, 5)),
    C("narrow", lambda x: x.narrow(2, 1, 3), randn(2, 3, 7)),
    C("narrow_negative_start", lambda x: x.narrow(-1, -3, 2), randn(2, 3, 7)),
    C("narrow_copy", lambda x: torch.narrow_copy(x, 0, 1, 2), randn(4, 3)),
    C("narrow_bool", lambda x: x.narrow(1, 2, 2), randbool(3, 5)),
]

REARRANGE = [
    C("roll_dim", lambda x: torch.roll(x, 2, 1), randn(2, 5, 3)),
    C("roll_negative", lambda x: torch.roll(x, -7, -1), randn(2, 5, 3)),
    C("roll_flat", lambda x: torch.roll(x, 4), randn(3, 5)),
    C("roll_two_dims", lambda x: torch.roll(x, (1, -2), (0, 2)), randn(3, 4, 5)),
    C("roll_int64", lambda x: torch.roll(x, 1, 0), randint(9, 4, 2)),
    C("roll_swin", lambda x: torch.roll(x, shifts=(-1, -1), dims=(1, 2)), randn(1, 4, 4, 3)),
    C("flip", lambda x: torch.flip(x, [0, 2]), randn(2, 3, 4)),
    C("flip_negative_bool", lambda x: torch.flip(x, [-1]), randbool(3, 4)),
    C("fliplr", lambda x: torch.fliplr(x), randn(3, 4, 2)),
    C("flipud", lambda x: torch.flipud(x), randint(9, 3, 4)),
    C("rot90_1", lambda x: torch.rot90(x), randn(3, 4)),
    C("rot90_2", lambda x: torch.rot90(x, 2, [1, 2]), randn(2, 3, 4)),
    C("rot90_3", lambda x: torch.rot90(x, -1, [2, 0]), randn(2, 3, 4)),
    C("rot90_0", lambda x: torch.rot90(x, 4), randn(3, 4)),
    C("tril", lambda x: torch.tril(x), randn(4, 5)),
    C("tril_batched_offset", lambda x: torch.tril(x, -1), randn(2, 4, 3)),
    C("triu", lambda x: torch.triu(x), randn(4, 5)),
    C("triu_offset_special", lambda x: torch.triu(x, 1), special(2, 4, 5)),
    C("triu_negative_offset", lambda x: torch.triu(x, -2), randn(5, 3)),
    C("triu_int64", lambda x: torch.triu(x, 2), randint(9, 4, 6)),
    C("triu_bool", lambda x: torch.triu(x), randbool(4, 4)),
    C("triu_offset_past_width", lambda x: torch.triu(x, 7), randn(3, 4)),
    C("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), randn(1, 2, 4, 6)),
    C("channel_shuffle", lambda x: F.channel_shuffle(x, 3), randn(2, 6, 2, 3)),
    C("channel_shuffle_module", lambda x: torch.nn.ChannelShuffle(2)(x), randn(1, 4, 3)),
    C("native_channel_shuffle", lambda x: torch.native_channel_shuffle(x, 2), randn(1, 4, 2, 2)),
    C("movedim", lambda x: torch.movedim(x, 0, 2), randn(2, 3, 4)),
    C("movedim_list", lambda x: torch.movedim(x, (0, -1), (2, 0)), randn(2, 3, 4)),
    C("moveaxis", lambda x: torch.moveaxis(x, -1, 0), randn(2, 3, 4)),
    C("swapaxes", lambda x: torch.swapaxes(x, 0, 2), randn(2, 3, 4)),
    C("numpy_T", lambda x, m, v: (x.T + 0, m.T + 0, v.T + 0), randn(2, 3, 4), randn(3, 5), randn(4)),
    C("swapdims", lambda x: torch.swapdims(x, -1, 1), randn(2, 3, 4)),
    C("ravel", lambda x: x.t().ravel(), randn(3, 4)),
    C("squeeze_all", lambda x: x.squeeze(), randn(1, 3, 1)),
    C("squeeze_dims", lambda x: x.squeeze((0, 2)), randn(1, 3, 1, 2)),
    C("unflatten", lambda x: x.unflatten(1, (2, -1)), randn(3, 8)),
    C("expand_minus_one", lambda x: x.expand(3, -1, 5), randn(4, 1)),
    C("broadcast_to", lambda x: torch.broadcast_to(x, (2, 4, 5)), randn(4, 1)),
    C("expand_as", lambda x, y: x.expand_as(y), randn(1, 5), randn(4, 5)),
]

JOIN = [
    C("repeat_interleave_int", lambda x: x.repeat_interleave(2), randn(2, 3)),
    C("repeat_interleave_int_dim", lambda x: x.repeat_interleave(3, dim=-1), randn(2, 3)),
    C("repeat_interleave_int64", lambda x: x.repeat_interleave(2, dim=0), randint(9, 3, 2)),
    C("repeat_interleave_tensor_output_size",
      lambda x: x.repeat_interleave(torch.tensor([1, 0, 3, 2]), dim=0, output_size=6), randn(4, 2)),
    C("repeat_interleave_repeats_only",
      lambda r: torch.repeat_interleave(r, output_size=6), tensor([1, 2, 3])),
    C("one_hot", lambda x: F.one_hot(x, 5), randint(5, 3, 4)),
    C("one_hot_scaled", lambda x: F.one_hot(x, 4) * 2, randint(4, 6)),
    C("tile", lambda x: x.tile((2, 1, 2)), randn(2, 3)),
    C("tile_fewer_dims", lambda x: x.tile((2,)), randn(2, 3)),
    C("meshgrid_ij", lambda a, b: torch.meshgrid(a, b, indexing="ij"), randn(4), randn(3)),
    C("meshgrid_xy", lambda a, b, c: torch.meshgrid(a, b, c, indexing="xy"), randn(4), randn(3), randn(2)),
    C("meshgrid_scalar", lambda a, b: torch.meshgrid(a, b, indexing="ij"), randn(()), randn(3)),
    C("broadcast_tensors", lambda a, b, c: torch.broadcast_tensors(a, b, c), randn(4, 1), randn(3, 1, 5), randn(())),
    C("stack", lambda a, b: torch.stack([a, b], 1), randn(4, 5), randn(4, 5)),
    C("stack_negative", lambda a, b: torch.stack([a, b], -1), randint(9, 4, 5), randint(9, 4, 5)),
    C("hstack", lambda a, b: torch.hstack([a, b]), randn(4, 2), randn(4, 5)),
    C("hstack_1d", lambda a, b: torch.hstack([a, b]), randn(4), randn(5)),
    C("vstack", lambda a, b: torch.vstack([a, b]), randn(5), randn(2, 5)),
    C("row_stack", lambda a, b: torch.row_stack([a, b]), randn(5), randn(5)),
    C("dstack", lambda a, b: torch.dstack([a, b]), randn(4, 5), randn(4, 5, 2)),
    C("column_stack", lambda a, b, c: torch.column_stack([a, b, c]), randn(4), randn(4, 2), randn(4)),
    C("atleast_1d", lambda a: torch.atleast_1d(a) * 2, randn(())),
    C("atleast_2d", lambda a: torch.atleast_2d(a) * 2, randn(5)),
    C("atleast_3d", lambda a, b: (torch.atleast_3d(a) * 2, torch.atleast_3d(b) * 2), randn(4, 5), randn(3)),
    C("diag_vector", lambda x: torch.diag(x), randn(4)),
    C("diag_vector_offset", lambda x: torch.diag(x, -2), randn(3)),
    C("diag_matrix", lambda x: torch.diag(x, 1), randn(4, 5)),
    C("diag_embed", lambda x: torch.diag_embed(x), randn(2, 3)),
    C("diag_embed_offset_dims", lambda x: torch.diag_embed(x, 1, 0, 2), randn(2, 3)),
    C("diag_embed_negative_swapped", lambda x: torch.diag_embed(x, -1, -1, 0), special(2, 3)),
    C("diagflat", lambda x: torch.diagflat(x, 1), randn(2, 2)),
    C("diag_int64", lambda x: torch.diag(x), randint(9, 3)),
]

INDEXING = [
    C("take", lambda x, i: torch.take(x, i), randn(4, 5), tensor([[0, 19], [7, -1]])),
    C("take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), randn(4, 5), randint(5, 4, 2)),
    C("take_along_dim_broadcast", lambda x, i: torch.take_along_dim(x, i, 0), randn(4, 5), randint(4, 2, 1)),
    C("take_along_dim_flat", lambda x, i: torch.take_along_dim(x, i), randn(4, 5), randint(20, 6)),
    C("index_add", lambda x, i, s: x.index_add(0, i, s), randn(4, 5), tensor([0, 2, 0]), randn(3, 5)),
    C("index_add_alpha_dim1", lambda x, i, s: x.index_add(1, i, s, alpha=2.5), randn(4, 5), tensor([4, 4, 1]), randn(4, 3)),
    C("index_add_int64", lambda x, i, s: x.index_add(-1, i, s, alpha=3), randint(9, 2, 3), tensor([2, 0]), randint(9, 2, 2)),
    C("index_add_inplace", lambda x, i, s: x.clone().index_add_(0, i, s), randn(3, 2), tensor([1, 1]), randn(2, 2)),
    C("index_fill", lambda x, i: x.index_fill(1, i, -1.5), randn(3, 5), tensor([0, 3, 3])),
    C("index_fill_tensor", lambda x, i, v: x.index_fill(0, i, v), randn(3, 5), tensor([2]), randn(())),
    C("index_fill_int64", lambda x, i: x.index_fill(-1, i, 4), randint(9, 3, 5), tensor([1])),
    C("index_fill_bool", lambda x, i: x.index_fill(0, i, True), randbool(3, 2), tensor([0, 2])),
    C("scatter_reduce_sum", lambda x, i, s: x.scatter_reduce(1, i, s, "sum"), randn(3, 4), randint(4, 3, 5), randn(3, 5)),
    C("scatter_reduce_sum_exclude", lambda x, i, s: x.scatter_reduce(0, i, s, "sum", include_self=False),
      randn(3, 4), randint(3, 2, 4), randn(2, 4)),
    C("scatter_reduce_prod", lambda x, i, s: x.scatter_reduce(1, i, s, "prod"), randn(3, 4), randint(4, 3, 5), randn(3, 5)),
    C("scatter_reduce_prod_exclude", lambda x, i, s: x.scatter_reduce(1, i, s, "prod", include_self=False),
      randn(3, 4), randint(4, 2, 3), randn(3, 5)),
    C("scatter_reduce_amax", lambda x, i, s: x.scatter_reduce(0, i, s, "amax"), randn(3, 4), randint(3, 5, 4), randn(5, 4)),
    C("scatter_reduce_amin_exclude", lambda x, i, s: x.scatter_reduce(0, i, s, "amin", include_self=False),
      randn(3, 4), randint(3, 2, 4), randn(2, 4)),
    C("scatter_reduce_mean", lambda x, i, s: x.scatter_reduce(1, i, s, "mean"), randn(3, 4), randint(4, 3, 5), randn(3, 5)),
    # Tensor.scatter(reduce=): scatter_reduce 'sum'/'prod' with self; a value is a full source.
    C("scatter_reduce_old", lambda x, i, s, n: (
        x.scatter(1, i, s, reduce="add"), x.scatter(1, i, s, reduce="multiply"),
        x.scatter(0, i[:2, :4] % 3, 2.5, reduce="add"), x.scatter(1, i, -1.5, reduce="multiply"),
        n.scatter(1, i, 3, reduce="multiply"), x.clone().scatter_(1, i, s, reduce="add")),
      randn(3, 4), randint(4, 3, 5), randn(3, 6), randint(9, 3, 4, lo=-9)),
    C("scatter_reduce_mean_exclude", lambda x, i, s: x.scatter_reduce(1, i, s, "mean", include_self=False),
      randn(3, 4), randint(4, 3, 2), randn(3, 5)),
    C("scatter_reduce_mean_int64", lambda x, i, s: x.scatter_reduce(0, i, s, "mean"),
      randint(20, 3, 4, lo=-20), randint(3, 4, 4), randint(20, 4, 4, lo=-20)),
    C("scatter_reduce_amax_int64", lambda x, i, s: x.scatter_reduce(0, i, s, "amax", include_self=False),
      randint(20, 3, 4), randint(3, 4, 4), randint(20, 4, 4)),
    C("masked_scatter", lambda x, m, s: x.masked_scatter(m, s), randn(4, 5), randbool(4, 5), randn(20)),
    C("masked_scatter_broadcast", lambda x, m, s: x.masked_scatter(m, s), randn(4, 5), randbool(5), randn(4, 6)),
    C("index_negative", lambda x: x[..., [0, -1]], randn(3, 4)),
    C("index_put_accumulate", lambda x, i, v: x.index_put((i,), v, accumulate=True), randn(5), tensor([1, 1, 3]), randn(3)),
]

SORT = [
    C("sort", lambda x: torch.sort(x, 1), randn(4, 6)),
    C("sort_descending", lambda x: torch.sort(x, 0, descending=True), randn(5, 3)),
    C("sort_int64_ties", lambda x: torch.sort(x, -1), randint(3, 3, 8)),
    C("sort_stable_ties", lambda x: torch.sort(x, dim=-1, stable=True), randint(3, 3, 8)),
    C("sort_stable_ties_descending", lambda x: torch.sort(x, dim=0, stable=True, descending=True), randint(3, 7, 2)),
    C("argsort", lambda x: torch.argsort(x, 1), randn(4, 6)),
    C("argsort_descending_ties", lambda x: torch.argsort(x, 0, descending=True), randint(3, 6, 3)),
    C("msort", lambda x: torch.msort(x), randn(5, 3)),
    C("sort_special", lambda x: torch.sort(x, 1), special(3, 5)),
    # Past the exact formulation's 2^22 comparisons: topk over the whole dim (no ties
    # in random floats, so the indices are unique too; NaN and inf placed as torch does).
    C("sort_large_topk", lambda x: torch.sort(x, descending=True), special(2100)),
    C("argsort_large_topk", lambda x: torch.argsort(x), special(2100)),
    C("sort_large_stable_refused", lambda x: torch.sort(x, stable=True), randn(2100),
      refused=r"sort.stable' with stable=True over 2100 elements"),
    C("topk", lambda x: torch.topk(x, 2), randn(4, 6)),
    # bucketize: PyTorch's binary search, NaN past the end; ties at boundaries
    # either side; compared in result_type's dtype: a number or 0-dim float64
    # 0.1 in the boundaries' float32 (equal to 0.1f), a float64 [2] in float64.
    C("bucketize", lambda x, b, i, d: (
        torch.bucketize(x, b), torch.bucketize(x, b, right=True),
        torch.bucketize(x, b, out_int32=True), torch.bucketize(i, b),
        torch.bucketize(0.1, b, right=True), torch.bucketize(3, b), torch.bucketize(x, d),
        torch.bucketize(x[0, 0], b), torch.bucketize(d[0], b, right=True),
        torch.bucketize(d, b, right=True), torch.bucketize(16777217, b * 16777216)),
      tensor([[float("nan"), -1.0, 0.1, 0.5, 2.0], [float("inf"), -float("inf"), 1.0, 0.0, 0.3]]),
      tensor([-1.0, 0.1, 0.5, 1.0, 2.0]), randint(4, 2, 3, lo=-3),
      tensor([0.1, 0.5], dtype=torch.float64)),
    C("topk_smallest_dim0", lambda x: torch.topk(x, 3, 0, largest=False), randn(5, 3)),
    C("topk_int64", lambda x: torch.topk(x, 2, -1), randint(100, 3, 6)),
]

EMBEDDING_BAG = [
    C("embedding_bag_sum", lambda w, i, o: F.embedding_bag(i, w, o, mode="sum"),
      randn(10, 3), tensor([1, 2, 4, 5, 4, 3]), tensor([0, 2])),
    C("embedding_bag_mean", lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"),
      randn(10, 3), tensor([1, 2, 4, 5, 4, 3, 9]), tensor([0, 3, 3])),
    C("embedding_bag_max", lambda w, i, o: F.embedding_bag(i, w, o, mode="max"),
      randn(10, 3), tensor([1, 2, 4, 5, 4, 3]), tensor([0, 1, 4])),
    C("embedding_bag_2d", lambda w, i: F.embedding_bag(i, w, mode="mean"), randn(10, 3), randint(10, 4, 3)),
    C("embedding_bag_weights", lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
      randn(10, 3), tensor([1, 2, 4, 5, 4, 3]), tensor([0, 2]), randn(6)),
    C("embedding_bag_last_offset", lambda w, i, o: F.embedding_bag(i, w, o, mode="sum", include_last_offset=True),
      randn(10, 3), tensor([1, 2, 4, 5, 4, 3]), tensor([0, 2, 5])),
    C("embedding_bag_padding_idx", lambda w, i, o: F.embedding_bag(i, w, o, mode="mean", padding_idx=4),
      randn(10, 3), tensor([1, 4, 4, 5, 4, 3]), tensor([0, 2, 3])),
    Case("embedding_bag_module", lambda: torch.nn.EmbeddingBag(10, 3, mode="max"),
         lambda: (torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2]))),
]

DATA_DEPENDENT = [
    C("count_nonzero", lambda x: torch.count_nonzero(x, 1), lambda: torch.randint(0, 3, (4, 5)).float()),
    C("count_nonzero_all", lambda x: torch.count_nonzero(x), randint(3, 4, 5)),
    C("count_nonzero_dims", lambda x: torch.count_nonzero(x, (0, 2)), randbool(2, 3, 4)),
    C("argwhere", lambda x: torch.argwhere(x), randn(3, 4), refused=r"argwhere|data-dependent|u0"),
    C("nonzero_tuple", lambda x: torch.nonzero(x, as_tuple=True), randn(3, 4), refused=r"nonzero|data-dependent|u0"),
]

CASES = PAD + SPLIT + REARRANGE + JOIN + INDEXING + SORT + EMBEDDING_BAG + DATA_DEPENDENT


class SplitWrites(torch.nn.Module):
    """Writes through the results of split / unbind / chunk / tensor_split of a buffer,
    and reads of pieces after the buffer was written (functionalize tracks each piece
    as a slice or select of its base)."""

    def __init__(self, how):
        super().__init__()
        self.how = how
        self.register_buffer("buf", torch.arange(18.0).view(6, 3))
        self.register_buffer("n", torch.zeros(4, 4))

    def forward(self, x):
        how = self.how
        if how == "split":
            a, b, c = self.buf.split(2)
            a.add_(x[:2])
            return self.buf + 1, b * 2
        if how == "unbind":
            self.buf.unbind(0)[4].copy_(x[0])
            rows = self.n.unbind(1)
            rows[3].add_(x[1, 0])
            return self.buf.sum(0), rows[0] + rows[3]
        if how == "chunk":
            left, right = self.buf.chunk(2, dim=1)  # columns [0, 1] and [2]
            right.mul_(2)
            left[1:3].sub_(x[:2, :2])
            return left * 1, right + 0
        if how == "tensor_split":
            p = torch.tensor_split(self.buf, [1, 5])
            p[1].mul_(0.5)
            p[2].fill_(-1)
            return p[0] + p[1].sum(0)
        if how == "stale_read":
            a, b = self.buf.split([4, 2])
            self.buf.add_(x)  # pieces made before this write read the new values
            return a * 1, b * 1
        if how == "piece_view":
            a, b = self.buf.split(3)
            b[:, 1:].add_(x[:3, :2])
            b.t()[0].fill_(7)
            return self.buf * 1
        if how == "local":
            t = x.clone()
            a, b = t.split([1, 5])
            a.zero_()
            b.clamp_(min=0)
            return t
        raise ValueError(how)


def split_write(how):
    return Case(f"split_write_{how}", lambda: SplitWrites(how), lambda: (torch.randn(6, 3),), calls=3)


CASES += [split_write(h) for h in
          ("split", "unbind", "chunk", "tensor_split", "stale_read", "piece_view", "local")]


class NarrowRuntime(torch.nn.Module):
    """narrow with a start read from a tensor (x.item(), bounded by torch._check):
    a read, and (stateful) a write through it, as a KV-cache update does; plus a
    write through a narrow with a negative static start."""

    def __init__(self, write):
        super().__init__()
        self.write = write
        self.register_buffer("cache", torch.zeros(8, 3))

    def forward(self, x, p):
        s = p.item()
        torch._check(s >= 0)
        torch._check(s <= 6)
        if not self.write:
            return x.narrow(0, s, 2) * 2
        self.cache.narrow(0, s, 2).copy_(x[:2])
        self.cache.narrow(0, -2, 2).add_(1)
        return self.cache * 1


CASES += [
    Case("narrow_runtime_start", lambda: NarrowRuntime(False),
         lambda: (torch.randn(8, 3), torch.tensor(5))),
    Case("narrow_runtime_start_write", lambda: NarrowRuntime(True),
         lambda: (torch.randn(8, 3), torch.tensor(3)), calls=3),
]


class EmbeddingMaxNorm(torch.nn.Module):
    """nn.Embedding(max_norm=...) renormalizes the rows it looks up, in place in
    its weight (embedding_renorm_): the weight becomes state."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4, max_norm=1.0)

    def forward(self, i):
        return self.emb(i) * 1


CASES += [
    # Corner cases found with PyTorch's OpInfo samples.
    C("pad_crop_to_empty", lambda x: F.pad(x, (-1, -2, 1, 1), value=1.0), randn(5, 3)),
    C("pad_circular_empty_batch", lambda x: F.pad(x, (1, 2), mode="circular"), randn(0, 3, 3)),
    C("constant_pad_nd_negative", lambda x: torch.constant_pad_nd(x, (-1, 2, 1, -1), 0.5), randn(3, 4)),
    C("take_along_dim_negative", lambda x, i: torch.take_along_dim(x, i, 1), randn(4, 5),
      tensor([[-1, -5], [0, -2], [-3, 4], [2, -4]])),
    C("index_add_0dim", lambda x, i, s: x.index_add(0, i, s, alpha=2), randn(()), tensor([0]), randn(())),
    C("index_fill_0dim", lambda x, i: x.index_fill(0, i, 3.0), randn(()), tensor([0])),
    C("scatter_reduce_0dim", lambda x, i, s: x.scatter_reduce(0, i, s, "amax"), randn(()),
      tensor(0), randn(())),
    C("masked_scatter_mask_broadcasts_self", lambda x, m, s: x.masked_scatter(m, s), randn(5),
      randbool(4, 5), randn(20)),
    C("atleast_2d_sequence", lambda a, b: torch.atleast_2d(a, b), randn(3), randn(2, 2)),
    C("embedding_bag_negative_padding_idx",
      lambda w, i, o: F.embedding_bag(i, w, o, mode="mean", padding_idx=-1),
      randn(5, 3), tensor([4, 1, 1, 0, 4, 4]), tensor([0, 3])),
    Case("embedding_max_norm", EmbeddingMaxNorm, lambda: (torch.tensor([[1, 3], [3, 7]]),), calls=2),
]


def dyn(name, fn, shape, dim, hi, lo=2, **kw):
    """fn(x) with dim `dim` of x dynamic (lo..hi), run at `shape` (below the bound)."""
    return C(name, fn, randn(*shape),
             dynamic_shapes=(({dim: torch.export.Dim("n", min=lo, max=hi)},),), **kw)


CASES += [
    # Rewrites that read run-time sizes, run below the programs' bounds.
    dyn("dynamic_pad_constant_crop", lambda x: F.pad(x, (-1, 2, 1, 0), value=3.0), (2, 5, 7), 2, 16),
    dyn("dynamic_pad_reflect", lambda x: F.pad(x, (2, 1), mode="reflect"), (2, 3, 6), 2, 16, lo=3),
    dyn("dynamic_pad_circular", lambda x: F.pad(x, (2, 1), mode="circular"), (2, 3, 6), 2, 16),
    dyn("dynamic_triu", lambda x: torch.triu(x, 1), (5, 4), 0, 12),
    dyn("dynamic_roll_flat", lambda x: torch.roll(x, 3), (5, 4), 0, 12),
    dyn("dynamic_rot90", lambda x: torch.rot90(x, 1, (0, 1)), (5, 4), 0, 12),
    dyn("dynamic_narrow", lambda x: x.narrow(0, -2, 2), (5, 4), 0, 12),
    dyn("dynamic_movedim", lambda x: torch.movedim(x, 0, -1) * 2, (5, 4, 3), 0, 12),
    dyn("dynamic_unflatten_static_dim", lambda x: x.unflatten(1, (3, 2)) * 2, (5, 6), 0, 12),
    dyn("dynamic_unflatten_dynamic_dim", lambda x: x.unflatten(0, (-1, 1)) * 2, (5, 6), 0, 12),
]

# Met by the OpInfo sweep: matrix transposes and diagonals, order statistics.
NAN = float("nan")
CASES += [
    C("matrix_transposes", lambda x, m, i: (x.mT + 0, x.mH + 0, m.mH + 0, m.H + 0, i.mT + 0),
      randn(2, 3, 4), randn(3, 5), randint(9, 2, 3, 4)),
    C("linalg_diagonal", lambda x: (torch.linalg.diagonal(x) + 0,
                                    torch.linalg.diagonal(x, offset=1, dim1=0, dim2=2) + 0,
                                    torch.linalg.diagonal(x, offset=-1) + 0),
      randn(2, 3, 4)),
    # Distinct values: PyTorch leaves the index of equal elements unspecified.
    C("kthvalue", lambda x, i: (torch.kthvalue(x, 2, 1), torch.kthvalue(x, 3, 0, keepdim=True),
                                torch.kthvalue(x, 5), torch.kthvalue(i, 4, -1)),
      randn(3, 5), lambda: torch.randperm(12).view(2, 6)),
    C("median", lambda x, i: (torch.median(x), torch.median(x, 1), torch.median(x, 0, keepdim=True),
                              torch.median(i), torch.median(i, 1)),
      randn(3, 4), lambda: torch.randperm(15).view(3, 5)),
    # NaN: median is NaN at the first NaN's index; nanmedian skips NaN. (An
    # all-NaN row's nanmedian is NaN at an index std::nth_element picks in
    # PyTorch's kernel: its value only is checked, in median_all_nan.)
    C("median_nan", lambda x: (torch.median(x), torch.median(x, 1), torch.nanmedian(x),
                               torch.nanmedian(x, 1), torch.nanmedian(x, 0, keepdim=True)),
      lambda: torch.tensor([[3.0, NAN, -1.0, NAN, 2.0], [0.5, 4.0, -2.0, 1.5, 7.0],
                            [NAN, NAN, 0.25, NAN, NAN], [6.0, NAN, 5.0, -3.0, 1.0]])),
    C("median_all_nan", lambda x: (torch.median(x, 1), torch.nanmedian(x, 1).values,
                                   torch.nanmedian(x)),
      lambda: torch.tensor([[NAN, NAN, NAN, NAN, NAN], [1.0, NAN, 2.0, NAN, 3.0]])),
]

# searchsorted (bucketize's formulation per row), put (index_put on the flat
# tensor), index_reduce (scatter_reduce along dim).
CASES += [
    C("searchsorted", lambda s, x, r: (
        torch.searchsorted(s, x), torch.searchsorted(s, x, right=True),
        torch.searchsorted(s, x, side="right", out_int32=True),
        torch.searchsorted(r, x), torch.searchsorted(r, x[0, 0]),
        torch.searchsorted(torch.tensor([3.0, -1.0, 0.5, 2.0]), x,
                           sorter=torch.tensor([1, 2, 3, 0]))),
      lambda: torch.tensor([[-1.0, 0.0, 0.5, 2.0], [-2.0, -1.0, 1.0, 1.0]]),
      lambda: torch.tensor([[0.5, -3.0, float("nan")], [1.0, 5.0, -1.0]]),
      lambda: torch.tensor([-1.0, 0.0, 0.5, 2.0])),
    C("put", lambda x, i, s: (x.put(i, s), x.put(i, s, accumulate=True),
                              x.put(torch.tensor([0, 0, -1]), s, accumulate=True)),
      randn(2, 3), lambda: torch.tensor([4, -1, 0]), randn(3)),
    C("index_reduce", lambda x, i, s, t: (
        x.index_reduce(0, i, s, "prod"), x.index_reduce(0, i, s, "mean"),
        x.index_reduce(0, i, s, "amax", include_self=False),
        x.index_reduce(1, torch.tensor([2, 0, 2]), t, "amin")),
      randn(4, 4), lambda: torch.tensor([0, 2, 0, 3, 2]), randn(5, 4), randn(4, 3)),
]

# nonzero_static: fewer nonzeros than size (rows filled), more (cut), NaN and
# -0.0 (nonzero and zero), bool and int inputs.
CASES += [
    C("nonzero_static", lambda x, b, i: (
        torch.nonzero_static(x, size=8), torch.nonzero_static(x, size=2, fill_value=-5),
        torch.nonzero_static(b, size=5), torch.nonzero_static(i, size=4, fill_value=7)),
      lambda: torch.tensor([[0.0, 1.5, -0.0], [float("nan"), 0.0, -2.0]]),
      lambda: torch.tensor([[[True, False], [False, True]], [[True, True], [False, False]]]),
      lambda: torch.tensor([0, 3, 0, -1, 0])),
]

# Refused by name: the most frequent value; empty_permuted's values are
# unspecified (filled here), its logical sizes are empty's.
CASES += [
    C("mode_refused", lambda x: torch.mode(x, 1), randn(3, 4), refused=r"aten::mode' is not supported"),
    C("empty_permuted", lambda x: torch.empty_permuted((2, 3), (1, 0)).fill_(2.0) + x, randn(2, 3)),
]
