// The portable kernel table, sorted by name (byte order):
// X(name, fn, numArgs, dimOrders).
// numArgs is the exact KernelCall argument count: schema arguments + 1 (the
// return: the out argument again, one TensorList for several returns, and the
// out argument again for a schema returning `()`), as upstream's generated
// kernel wrappers require. Method::load enforces it for every call site.
// dimOrders (DimOrderSupport) says which tensor layouts the kernel handles, as
// upstream's portable kernels do: element-wise and copy kernels take all
// tensors in one dim order (contiguous or channels-last), the dim_order_ops
// copies convert between any, everything else needs contiguous tensors.
// Keep sorted: findKernel() binary-searches it and kernel_tests checks the order.
#pragma once

#define PTEC_PORTABLE_KERNEL_LIST(X) \
  X("aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out, 4, Contiguous) \
  X("aten::_log_softmax.out", log_softmax_out, 5, Contiguous) \
  X("aten::_native_batch_norm_legit_no_training.out", batch_norm_no_training_out, 11, Contiguous) \
  X("aten::_softmax.out", softmax_out, 5, Contiguous) \
  X("aten::_to_copy.out", to_copy_out, 5, SameDimOrder) \
  X("aten::abs.out", abs_out, 3, SameDimOrder) \
  X("aten::add.Scalar_out", add_scalar_out, 5, SameDimOrder) \
  X("aten::add.out", add_out, 5, SameDimOrder) \
  X("aten::addmm.out", addmm_out, 7, Contiguous) \
  X("aten::alias_copy.out", alias_copy_out, 3, SameDimOrder) \
  X("aten::amax.out", amax_out, 5, Contiguous) \
  X("aten::arange.start_out", arange_start_out, 5, Contiguous) \
  X("aten::argmax.out", argmax_out, 5, Contiguous) \
  X("aten::avg_pool2d.out", avg_pool2d_out, 9, Contiguous) \
  X("aten::bitwise_not.out", bitwise_not_out, 3, SameDimOrder) \
  X("aten::bmm.out", bmm_out, 4, Contiguous) \
  X("aten::cat.out", cat_out, 4, Contiguous) \
  X("aten::clamp.out", clamp_out, 5, SameDimOrder) \
  X("aten::clone.out", clone_out, 4, SameDimOrder) \
  X("aten::constant_pad_nd.out", constant_pad_nd_out, 5, Contiguous) \
  X("aten::convolution.out", convolution_out, 11, Contiguous) \
  X("aten::copy.out", copy_out, 5, SameDimOrder) \
  X("aten::copy_", copy_inplace, 4, SameDimOrder) \
  X("aten::cos.out", cos_out, 3, SameDimOrder) \
  X("aten::cumsum.out", cumsum_out, 5, Contiguous) \
  X("aten::detach_copy.out", detach_copy_out, 3, SameDimOrder) \
  X("aten::div.Scalar_out", div_scalar_out, 4, SameDimOrder) \
  X("aten::div.out", div_out, 4, SameDimOrder) \
  X("aten::div.out_mode", div_out_mode, 5, SameDimOrder) \
  X("aten::embedding.out", embedding_out, 7, Contiguous) \
  X("aten::eq.Scalar_out", eq_scalar_out, 4, SameDimOrder) \
  X("aten::eq.Tensor_out", eq_tensor_out, 4, SameDimOrder) \
  X("aten::erf.out", erf_out, 3, SameDimOrder) \
  X("aten::exp.out", exp_out, 3, SameDimOrder) \
  X("aten::expand_copy.out", expand_copy_out, 5, Contiguous) \
  X("aten::fill.Scalar_out", fill_scalar_out, 4, SameDimOrder) \
  X("aten::full.out", full_out, 4, SameDimOrder) \
  X("aten::full_like.out", full_like_out, 5, SameDimOrder) \
  X("aten::gather.out", gather_out, 6, Contiguous) \
  X("aten::ge.Scalar_out", ge_scalar_out, 4, SameDimOrder) \
  X("aten::ge.Tensor_out", ge_tensor_out, 4, SameDimOrder) \
  X("aten::gelu.out", gelu_out, 4, SameDimOrder) \
  X("aten::gt.Scalar_out", gt_scalar_out, 4, SameDimOrder) \
  X("aten::gt.Tensor_out", gt_tensor_out, 4, SameDimOrder) \
  X("aten::hardtanh.out", hardtanh_out, 5, SameDimOrder) \
  X("aten::index.Tensor_out", index_tensor_out, 4, Contiguous) \
  X("aten::index_put.out", index_put_out, 6, Contiguous) \
  X("aten::index_put_", index_put_inplace, 5, Contiguous) \
  X("aten::index_select.out", index_select_out, 5, Contiguous) \
  X("aten::isnan.out", isnan_out, 3, SameDimOrder) \
  X("aten::le.Scalar_out", le_scalar_out, 4, SameDimOrder) \
  X("aten::le.Tensor_out", le_tensor_out, 4, SameDimOrder) \
  X("aten::leaky_relu.out", leaky_relu_out, 4, SameDimOrder) \
  X("aten::lift_fresh_copy.out", lift_fresh_copy_out, 3, SameDimOrder) \
  X("aten::log.out", log_out, 3, SameDimOrder) \
  X("aten::logical_and.out", logical_and_out, 4, SameDimOrder) \
  X("aten::logical_not.out", logical_not_out, 3, SameDimOrder) \
  X("aten::lt.Scalar_out", lt_scalar_out, 4, SameDimOrder) \
  X("aten::lt.Tensor_out", lt_tensor_out, 4, SameDimOrder) \
  X("aten::masked_fill.Scalar_out", masked_fill_scalar_out, 5, SameDimOrder) \
  X("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out, 9, Contiguous) \
  X("aten::mean.out", mean_out, 6, Contiguous) \
  X("aten::mm.out", mm_out, 4, Contiguous) \
  X("aten::mul.Scalar_out", mul_scalar_out, 4, SameDimOrder) \
  X("aten::mul.out", mul_out, 4, SameDimOrder) \
  X("aten::native_layer_norm.out", native_layer_norm_out, 9, Contiguous) \
  X("aten::ne.Scalar_out", ne_scalar_out, 4, SameDimOrder) \
  X("aten::ne.Tensor_out", ne_tensor_out, 4, SameDimOrder) \
  X("aten::neg.out", neg_out, 3, SameDimOrder) \
  X("aten::ones.out", ones_out, 3, SameDimOrder) \
  X("aten::permute_copy.out", permute_copy_out, 4, Contiguous) \
  X("aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out, 4, SameDimOrder) \
  X("aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out, 4, SameDimOrder) \
  X("aten::reciprocal.out", reciprocal_out, 3, SameDimOrder) \
  X("aten::relu.out", relu_out, 3, SameDimOrder) \
  X("aten::rsqrt.out", rsqrt_out, 3, SameDimOrder) \
  X("aten::rsub.Scalar_out", rsub_scalar_out, 5, SameDimOrder) \
  X("aten::scalar_tensor.out", scalar_tensor_out, 3, Contiguous) \
  X("aten::select_copy.int_out", select_copy_int_out, 5, Contiguous) \
  X("aten::select_scatter.out", select_scatter_out, 6, Contiguous) \
  X("aten::sigmoid.out", sigmoid_out, 3, SameDimOrder) \
  X("aten::sin.out", sin_out, 3, SameDimOrder) \
  X("aten::slice_copy.Tensor_out", slice_copy_tensor_out, 7, Contiguous) \
  X("aten::slice_scatter.out", slice_scatter_out, 8, Contiguous) \
  X("aten::split_copy.Tensor_out", split_copy_tensor_out, 5, Contiguous) \
  X("aten::split_with_sizes_copy.out", split_with_sizes_copy_out, 5, Contiguous) \
  X("aten::sqrt.out", sqrt_out, 3, SameDimOrder) \
  X("aten::squeeze_copy.dim_out", squeeze_copy_dim_out, 4, Contiguous) \
  X("aten::squeeze_copy.dims_out", squeeze_copy_dims_out, 4, Contiguous) \
  X("aten::stack.out", stack_out, 4, Contiguous) \
  X("aten::sub.Scalar_out", sub_scalar_out, 5, SameDimOrder) \
  X("aten::sub.out", sub_out, 5, SameDimOrder) \
  X("aten::sum.IntList_out", sum_intlist_out, 6, Contiguous) \
  X("aten::t_copy.out", t_copy_out, 3, Contiguous) \
  X("aten::tanh.out", tanh_out, 3, SameDimOrder) \
  X("aten::transpose_copy.int_out", transpose_copy_int_out, 5, Contiguous) \
  X("aten::unbind_copy.int_out", unbind_copy_int_out, 4, Contiguous) \
  X("aten::unsqueeze_copy.out", unsqueeze_copy_out, 4, Contiguous) \
  X("aten::view_copy.out", view_copy_out, 4, Contiguous) \
  X("aten::where.self_out", where_self_out, 5, SameDimOrder) \
  X("aten::zeros.out", zeros_out, 3, SameDimOrder) \
  X("dim_order_ops::_clone_dim_order.out", clone_dim_order_out, 5, Any) \
  X("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out, 5, Any) \
  X("executorch_prim::et_view.default", et_view, 3, Contiguous)
