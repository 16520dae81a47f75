// The built-in operator table and the registry queries.
#include "dialects/exir/schema/OperatorSchema.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <thread>

using namespace ptec::schema;

namespace {

const OperatorRegistry &reg() { return OperatorRegistry::builtin(); }

const FunctionSchema &get(const std::string &name) {
  const FunctionSchema *s = reg().lookup(name);
  INFO("lookup " << name);
  REQUIRE(s != nullptr);
  return *s;
}

std::string outOf(const std::string &name) {
  const FunctionSchema *out = reg().outVariantOf(get(name));
  return out ? out->fullName() : std::string("<none>");
}

const DefaultValue &defaultOf(const FunctionSchema &s, const char *arg) {
  int i = s.findArgument(arg);
  INFO(s.fullName() << " argument " << arg);
  REQUIRE(i >= 0);
  REQUIRE(s.arguments[size_t(i)].defaultValue.has_value());
  return *s.arguments[size_t(i)].defaultValue;
}

} // namespace

TEST_CASE("the built-in table loads without errors", "[schema][registry]") {
  for (const std::string &e : reg().loadErrors())
    FAIL_CHECK(e);
  CHECK(reg().loadErrors().empty());
  CHECK(reg().size() >= 500);
  CHECK(reg().all().size() == reg().size());
}

TEST_CASE("every built-in schema round-trips through str()", "[schema][registry]") {
  size_t checked = 0;
  for (const FunctionSchema *s : reg().all()) {
    ParseError err;
    std::optional<FunctionSchema> again = parseSchema(s->str(), &err);
    INFO(s->str() << " -> " << err.message);
    REQUIRE(again.has_value());
    CHECK(*again == *s);
    CHECK(again->str() == s->str());
    ++checked;
  }
  CHECK(checked == reg().size());
}

TEST_CASE("all() is sorted by full name and names are unique", "[schema][registry]") {
  std::vector<const FunctionSchema *> all = reg().all();
  for (size_t i = 1; i < all.size(); ++i)
    CHECK(all[i - 1]->fullName() < all[i]->fullName());
}

TEST_CASE("every core ATen op of spec section 8 is present", "[schema][registry]") {
  const char *core[] = {
      "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d",
      "_cdist_forward", "_embedding_bag", "_fft_r2c", "_local_scalar_dense", "_log_softmax",
      "_native_batch_norm_legit", "_native_batch_norm_legit.no_stats",
      "_native_batch_norm_legit_no_training", "_pdist_forward", "_softmax", "_to_copy", "abs",
      "acos", "acosh", "adaptive_avg_pool1d", "add.Scalar", "add.Tensor", "addmm", "alias",
      "amax", "amin", "any", "any.dim", "any.dims", "arange.start_step", "argmax", "argmin",
      "as_strided", "asin", "asinh", "atan", "atan2", "atan2.out", "atanh", "avg_pool1d",
      "avg_pool2d", "avg_pool2d_backward", "avg_pool3d", "bitwise_and.Scalar",
      "bitwise_and.Tensor", "bitwise_not", "bitwise_or.Scalar", "bitwise_or.Tensor",
      "bitwise_xor.Scalar", "bitwise_xor.Tensor", "bmm", "cat", "ceil", "clamp", "clamp.Tensor",
      "clone", "col2im", "constant_pad_nd", "convolution", "convolution_backward", "copy", "cos",
      "cosh", "cumsum", "diagonal", "div.Scalar", "div.Scalar_mode", "div.Tensor",
      "div.Tensor_mode", "embedding", "embedding_dense_backward", "empty.memory_format",
      "empty_strided", "eq.Scalar", "eq.Tensor", "erf", "exp", "expand", "expm1", "fill.Scalar",
      "flip", "floor", "fmod.Scalar", "fmod.Tensor", "full", "full_like", "gather", "ge.Scalar",
      "ge.Tensor", "gelu", "grid_sampler_2d", "gt.Scalar", "gt.Tensor", "hardtanh",
      "index.Tensor", "index_put", "index_select", "isinf", "isnan", "le.Scalar", "le.Tensor",
      "leaky_relu", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or",
      "logical_xor", "lt.Scalar", "lt.Tensor", "masked_scatter", "max.dim",
      "max_pool2d_with_indices", "max_pool2d_with_indices_backward", "max_pool3d_with_indices",
      "maximum", "mean", "mean.dim", "min.dim", "minimum", "mm", "mul.Scalar", "mul.Tensor",
      "native_dropout", "native_group_norm", "native_group_norm_backward", "native_layer_norm",
      "native_layer_norm_backward", "ne.Scalar", "ne.Tensor", "neg", "nonzero", "permute",
      "pow.Scalar", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "prod", "prod.dim_int", "rand",
      "randn", "randperm", "reciprocal", "reflection_pad1d", "reflection_pad2d",
      "reflection_pad3d", "relu", "remainder.Scalar", "remainder.Tensor", "repeat",
      "replication_pad2d", "replication_pad3d", "resize_", "round", "rsqrt", "scalar_tensor",
      "scatter.src", "scatter.value", "scatter_add", "scatter_reduce.two", "select.int",
      "select_scatter", "sigmoid", "sign", "sin", "sinh", "slice.Tensor", "slice_scatter", "sort",
      "split_with_sizes", "sqrt", "squeeze.dim", "squeeze.dims", "sub.Scalar", "sub.Tensor",
      "sum.dim_IntList", "sym_numel", "sym_size.int", "sym_storage_offset", "sym_stride.int",
      "tan", "tanh", "topk", "trunc", "unsqueeze", "upsample_bilinear2d.vec",
      "upsample_nearest2d.vec", "var.correction", "var.dim", "view", "where.self"};
  size_t n = 0;
  for (const char *name : core) {
    INFO(name);
    CHECK(reg().lookup(name) != nullptr);
    ++n;
  }
  CHECK(n == 190);
}

TEST_CASE("every functional core op except factories has an out variant", "[schema][registry]") {
  // Core ops that have no out form in PyTorch (views, symbolic sizes, ...).
  std::set<std::string> none = {
      "aten::alias", "aten::as_strided", "aten::diagonal", "aten::expand", "aten::permute",
      "aten::select.int", "aten::slice.Tensor", "aten::split_with_sizes", "aten::squeeze.dim",
      "aten::squeeze.dims", "aten::unsqueeze", "aten::view", "aten::sym_numel",
      "aten::sym_size.int", "aten::sym_storage_offset", "aten::sym_stride.int",
      "aten::_local_scalar_dense", "aten::adaptive_avg_pool1d", "aten::avg_pool1d",
      "aten::resize_", "aten::atan2.out"};
  for (const char *name :
       {"abs", "add.Tensor", "add.Scalar", "addmm", "bmm", "cat", "clone", "convolution",
        "div.Tensor_mode", "div.Scalar_mode", "mean.dim", "sum.dim_IntList", "var.correction",
        "native_layer_norm", "_native_batch_norm_legit", "_native_batch_norm_legit.no_stats",
        "_embedding_bag", "upsample_nearest2d.vec", "upsample_bilinear2d.vec", "pow.Scalar",
        "where.self", "scatter_reduce.two", "prod", "prod.dim_int", "any", "any.dims", "max.dim",
        "min.dim", "sort", "topk", "gelu", "hardtanh", "leaky_relu", "split_with_sizes"}) {
    std::string full = get(name).fullName();
    INFO(full);
    if (none.count(full))
      CHECK(reg().outVariantOf(get(name)) == nullptr);
    else
      CHECK(reg().outVariantOf(get(name)) != nullptr);
  }
}

TEST_CASE("lookup forms", "[schema][registry]") {
  CHECK(reg().lookup("aten::add.Tensor") != nullptr);
  CHECK(reg().lookup("add.Tensor") == reg().lookup("aten::add.Tensor"));
  CHECK(reg().lookup("aten::relu.default") == reg().lookup("aten::relu"));
  CHECK(reg().lookup("aten::relu")->overload.empty());
  CHECK(reg().lookup("aten::add.NoSuchOverload") == nullptr);
  CHECK(reg().lookup("nosuchns::add.Tensor") == nullptr);
  CHECK(reg().lookup("") == nullptr);
  CHECK(reg().lookup("aten::") == nullptr);
  CHECK(reg().lookup("aten::add.") == nullptr);
  CHECK(reg().lookup("aten::a.b.c") == nullptr);

  CHECK(reg().lookupTarget("torch.ops.aten.add.Tensor") == reg().lookup("aten::add.Tensor"));
  CHECK(reg().lookupTarget("torch.ops.aten.linear.default") == reg().lookup("aten::linear"));
  CHECK(reg().lookupTarget("aten.sym_size.int") == reg().lookup("aten::sym_size.int"));
  CHECK(reg().lookupTarget("torch.ops.aten.nope.default") == nullptr);
  CHECK(reg().lookupTarget("nodots") == nullptr);
  CHECK(reg().lookupTarget(".") == nullptr);

  // ExecuTorch operators.
  const FunctionSchema &etView = get("executorch_prim::et_view.default");
  CHECK(etView.overload == "default");
  CHECK(reg().lookup("executorch_prim::et_view") == &etView);
  const FunctionSchema &dimOrder = get("dim_order_ops::_to_dim_order_copy");
  // As ExecuTorch defines it: _to_copy's options with dim_order for memory_format.
  CHECK(dimOrder.arguments.size() == 7);
  CHECK(dimOrder.findArgument("dtype") == 1);
  CHECK(dimOrder.arguments[6].name == "dim_order");
  CHECK(dimOrder.arguments[6].kwargOnly);
  CHECK(reg().outVariantOf(dimOrder) == reg().lookup("dim_order_ops::_to_dim_order_copy.out"));
  CHECK(reg().lookup("dim_order_ops::_to_dim_order_copy.out")->arguments.size() == 4);
  CHECK(outOf("dim_order_ops::_clone_dim_order") == "dim_order_ops::_clone_dim_order.out");
  CHECK(outOf("dim_order_ops::_empty_dim_order") == "dim_order_ops::_empty_dim_order.out");
  const FunctionSchema &primAdd = get("executorch_prim::add.Scalar");
  CHECK(primAdd.arguments.size() == 2);
  CHECK(primAdd.returns[0].type.kind == TypeKind::Scalar);
  CHECK(get("executorch_prim::mod.Scalar").arguments[0].type.kind == TypeKind::SymInt);
  CHECK(get("copy_").str() ==
        "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)");
}

TEST_CASE("alias and write queries on known ops", "[schema][registry][alias]") {
  const FunctionSchema &addInplace = get("aten::add_.Tensor");
  CHECK(addInplace.arguments[0].isWrite());
  CHECK_FALSE(addInplace.arguments[1].isWrite());
  CHECK(addInplace.isMutable());
  CHECK(addInplace.isInplace());
  CHECK_FALSE(addInplace.isOutVariant());

  const FunctionSchema &view = get("aten::view");
  const AliasInfo *va = view.arguments[0].alias();
  REQUIRE(va);
  CHECK_FALSE(va->isWrite);
  CHECK(va->beforeSets == std::vector<std::string>{"a"});
  REQUIRE(view.returns[0].alias());
  CHECK(view.returns[0].alias()->beforeSets == va->beforeSets);
  CHECK_FALSE(view.isMutable());
  CHECK_FALSE(view.isInplace());

  const FunctionSchema &addOut = get("aten::add.out");
  int out = addOut.findArgument("out");
  REQUIRE(out == 3);
  CHECK(addOut.arguments[3].isWrite());
  CHECK(addOut.arguments[3].isOut());
  CHECK(addOut.arguments[3].kwargOnly);
  CHECK(addOut.isOutVariant());
  CHECK(addOut.isMutable());
  CHECK_FALSE(addOut.isInplace());
  CHECK(addOut.outArguments() == std::vector<size_t>{3});
  CHECK(addOut.returns[0].alias()->isWrite);

  const FunctionSchema &tr = get("aten::transpose.int");
  REQUIRE(tr.arguments[0].alias());
  REQUIRE(tr.returns[0].alias());
  CHECK(tr.arguments[0].alias()->beforeSets == tr.returns[0].alias()->beforeSets);
  CHECK_FALSE(tr.isMutable());

  const FunctionSchema &split = get("aten::split.Tensor");
  const AliasInfo *sa = split.arguments[0].alias();
  REQUIRE(sa);
  CHECK(sa->beforeSets == std::vector<std::string>{"a"});
  CHECK(sa->isWildcardAfter());
  REQUIRE(split.returns.size() == 1);
  CHECK(split.returns[0].type.kind == TypeKind::List);
  CHECK(split.returns[0].type.isTensorLike());
  REQUIRE(split.returns[0].alias());
  CHECK(split.returns[0].alias()->beforeSets == std::vector<std::string>{"a"});
  CHECK_FALSE(split.isMutable());

  const FunctionSchema &bn = get("aten::_native_batch_norm_legit");
  CHECK(bn.isMutable());
  CHECK_FALSE(bn.isOutVariant());
  CHECK_FALSE(bn.isInplace());
  CHECK(bn.arguments[size_t(bn.findArgument("running_mean"))].isWrite());

  const FunctionSchema &swsc = get("aten::split_with_sizes_copy.out");
  int o = swsc.findArgument("out");
  REQUIRE(o >= 0);
  CHECK(swsc.arguments[size_t(o)].isOut());
  CHECK(swsc.arguments[size_t(o)].type.kind == TypeKind::List);
  CHECK(swsc.returns.empty());

  CHECK(get("aten::relu").findArgument("nope") == -1);
  CHECK_FALSE(get("aten::relu").isMutable());
  CHECK(get("aten::copy_").isInplace());
  CHECK(get("aten::index_put_").isInplace());
}

TEST_CASE("out variants of functional ops", "[schema][registry][out]") {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"add.Tensor", "aten::add.out"},
      {"add.Scalar", "aten::add.Scalar_out"},
      {"sub.Tensor", "aten::sub.out"},
      {"mul.Tensor", "aten::mul.out"},
      {"mul.Scalar", "aten::mul.Scalar_out"},
      {"div.Tensor", "aten::div.out"},
      {"div.Tensor_mode", "aten::div.out_mode"},
      {"div.Scalar_mode", "aten::div.Scalar_mode_out"},
      {"relu", "aten::relu.out"},
      {"abs", "aten::abs.out"},
      {"addmm", "aten::addmm.out"},
      {"mm", "aten::mm.out"},
      {"bmm", "aten::bmm.out"},
      {"cat", "aten::cat.out"},
      {"clone", "aten::clone.out"},
      {"convolution", "aten::convolution.out"},
      {"max.dim", "aten::max.dim_max"},
      {"min.dim", "aten::min.dim_min"},
      {"max", "aten::max.unary_out"},
      {"topk", "aten::topk.values"},
      {"sort", "aten::sort.values"},
      {"native_layer_norm", "aten::native_layer_norm.out"},
      {"max_pool2d_with_indices", "aten::max_pool2d_with_indices.out"},
      {"_native_batch_norm_legit_no_training", "aten::_native_batch_norm_legit_no_training.out"},
      {"_native_batch_norm_legit", "aten::_native_batch_norm_legit.out"},
      {"_native_batch_norm_legit.no_stats", "aten::_native_batch_norm_legit.no_stats_out"},
      {"sum.dim_IntList", "aten::sum.IntList_out"},
      {"mean.dim", "aten::mean.out"},
      {"mean", "aten::mean.dtype_out"},
      {"prod.dim_int", "aten::prod.int_out"},
      {"var.correction", "aten::var.correction_out"},
      {"any.dims", "aten::any.dims_out"},
      {"any", "aten::any.all_out"},
      {"where.self", "aten::where.self_out"},
      {"pow.Tensor_Scalar", "aten::pow.Tensor_Scalar_out"},
      {"transpose_copy.int", "aten::transpose_copy.int_out"},
      {"slice_copy.Tensor", "aten::slice_copy.Tensor_out"},
      {"split_with_sizes_copy", "aten::split_with_sizes_copy.out"},
      {"upsample_nearest2d.vec", "aten::upsample_nearest2d.vec_out"},
      {"index.Tensor", "aten::index.Tensor_out"},
      {"embedding", "aten::embedding.out"},
      {"native_dropout", "aten::native_dropout.out"},
      {"max_pool2d_with_indices_backward", "aten::max_pool2d_with_indices_backward.grad_input"},
      {"scatter.src", "aten::scatter.src_out"},
      {"gelu", "aten::gelu.out"},
      {"_to_copy", "aten::_to_copy.out"},
      {"zeros", "aten::zeros.out"},
      {"full_like", "aten::full_like.out"},
      {"arange.start_step", "aten::arange.start_out"},
      {"fill.Scalar", "aten::fill.Scalar_out"},
      {"copy", "aten::copy.out"},
      {"view_copy", "aten::view_copy.out"},
      {"view", "<none>"},
      {"sym_size.int", "<none>"},
      {"linear", "aten::linear.out"},
  };
  for (const auto &c : cases) {
    INFO(c.first);
    CHECK(outOf(c.first) == c.second);
  }
  // Out variants map to themselves; in-place ops go through their functional form.
  CHECK(outOf("add.out") == "aten::add.out");
  CHECK(outOf("add_.Tensor") == "aten::add.out");
  CHECK(outOf("relu_") == "aten::relu.out");
  CHECK(outOf("resize_") == "<none>");
}

TEST_CASE("functional forms of in-place and out ops", "[schema][registry][out]") {
  auto functional = [](const std::string &name) {
    const FunctionSchema *f = reg().functionalOf(get(name));
    return f ? f->fullName() : std::string("<none>");
  };
  CHECK(functional("add_.Tensor") == "aten::add.Tensor");
  CHECK(functional("add_.Scalar") == "aten::add.Scalar");
  CHECK(functional("add.out") == "aten::add.Tensor");
  CHECK(functional("add.Scalar_out") == "aten::add.Scalar");
  CHECK(functional("div.out_mode") == "aten::div.Tensor_mode");
  CHECK(functional("max.dim_max") == "aten::max.dim");
  CHECK(functional("topk.values") == "aten::topk");
  CHECK(functional("relu_") == "aten::relu");
  CHECK(functional("copy_") == "aten::copy");
  // Same types under another first-argument name: matched by position.
  CHECK(functional("dropout_") == "aten::dropout");
  CHECK(functional("index_copy_") == "aten::index_copy");
  CHECK(functional("masked_fill_.Scalar") == "aten::masked_fill.Scalar");
  CHECK(functional("index_put_") == "aten::index_put");
  CHECK(functional("pow_.Scalar") == "aten::pow.Tensor_Scalar");
  CHECK(functional("hardtanh_") == "aten::hardtanh");
  CHECK(functional("fill_.Scalar") == "aten::fill.Scalar");
  CHECK(functional("zero_") == "aten::zero");
  CHECK(functional("clamp_") == "aten::clamp");
  CHECK(functional("sum.IntList_out") == "aten::sum.dim_IntList");
  CHECK(functional("zeros.out") == "aten::zeros");
  CHECK(functional("_to_copy.out") == "aten::_to_copy");
  CHECK(functional("relu") == "aten::relu");
  CHECK(functional("resize_") == "<none>");
  CHECK(functional("_native_batch_norm_legit") == "<none>");
}

TEST_CASE("defaults on built-in schemas", "[schema][registry][defaults]") {
  const FunctionSchema &add = get("aten::add.Tensor");
  const DefaultValue &alpha = defaultOf(add, "alpha");
  CHECK(alpha.kind == DefaultValue::Kind::Int);
  CHECK(alpha.i == 1);
  CHECK(add.arguments[2].kwargOnly);

  const FunctionSchema &mp = get("aten::max_pool2d_with_indices");
  CHECK(defaultOf(mp, "padding").kind == DefaultValue::Kind::IntList);
  CHECK(defaultOf(mp, "padding").ints == std::vector<int64_t>{0, 0});
  CHECK(defaultOf(mp, "dilation").ints == std::vector<int64_t>{1, 1});
  CHECK(defaultOf(mp, "stride").ints.empty());
  CHECK(defaultOf(mp, "ceil_mode").kind == DefaultValue::Kind::Bool);
  CHECK_FALSE(defaultOf(mp, "ceil_mode").b);
  CHECK(mp.returns.size() == 2);

  const FunctionSchema &ln = get("aten::layer_norm");
  CHECK(defaultOf(ln, "eps").kind == DefaultValue::Kind::Double);
  CHECK(defaultOf(ln, "eps").d == Approx(1e-05));
  CHECK(defaultOf(ln, "cudnn_enable").b);

  CHECK(defaultOf(get("aten::gelu"), "approximate").s == "none");
  CHECK(defaultOf(get("aten::leaky_relu"), "negative_slope").d == Approx(0.01));
  CHECK(defaultOf(get("aten::hardtanh"), "min_val").i == -1);
  CHECK(defaultOf(get("aten::contiguous"), "memory_format").s == "contiguous_format");
  CHECK(defaultOf(get("aten::randperm"), "dtype").i == 4); // long
  CHECK(defaultOf(get("aten::amax"), "dim").ints.empty());
  CHECK(defaultOf(get("aten::slice.Tensor"), "step").i == 1);
  CHECK(defaultOf(get("aten::slice.Tensor"), "start").kind == DefaultValue::Kind::None);
  CHECK(defaultOf(get("aten::pad"), "mode").s == "constant");
  CHECK(defaultOf(get("aten::conv2d"), "stride").ints == std::vector<int64_t>{1, 1});
  CHECK(defaultOf(get("aten::scaled_dot_product_attention"), "dropout_p").d == 0.0);
  CHECK(defaultOf(get("aten::embedding"), "padding_idx").i == -1);
}

TEST_CASE("a user registry: add, duplicates, overrides, tables", "[schema][registry]") {
  OperatorRegistry r;
  ParseError err;
  CHECK(r.add("mylib::foo(Tensor x, int n=2) -> Tensor", &err));
  CHECK(r.add("mylib::foo.out(Tensor x, int n=2, *, Tensor(a!) out) -> Tensor(a!)", &err));
  CHECK(r.size() == 2);
  CHECK_FALSE(r.add("mylib::foo(Tensor x) -> Tensor", &err));
  CHECK(err.message.find("duplicate schema 'mylib::foo'") != std::string::npos);
  CHECK_FALSE(r.add("mylib::bar", &err));
  CHECK(err.message.find("no signature") != std::string::npos);
  CHECK_FALSE(r.add("mylib::bar(", &err));
  CHECK(err.position == 11);
  CHECK(r.size() == 2);
  CHECK(r.outVariantOf(*r.lookup("mylib::foo")) == r.lookup("mylib::foo.out"));

  CHECK(r.add("mylib::make(int n, *, ScalarType? dtype=None) -> Tensor", &err));
  CHECK(r.add("mylib::make.out(int n, *, Tensor(a!) out) -> Tensor(a!)", &err));
  CHECK(r.outVariantOf(*r.lookup("mylib::make")) == nullptr);
  CHECK_FALSE(r.addOutOverride("mylib::make", "mylib::nope", &err));
  CHECK(err.message.find("unknown operator 'mylib::nope'") != std::string::npos);
  CHECK_FALSE(r.addOutOverride("mylib::make", "mylib::foo", &err));
  CHECK(err.message.find("is not an out variant") != std::string::npos);
  CHECK(r.addOutOverride("mylib::make", "mylib::make.out", &err));
  CHECK(r.outVariantOf(*r.lookup("mylib::make")) == r.lookup("mylib::make.out"));
  CHECK(r.functionalOf(*r.lookup("mylib::make.out")) == r.lookup("mylib::make"));

  OperatorRegistry t;
  std::vector<std::string> errors;
  CHECK_FALSE(t.addTable("# comment\n"
                         "a::x(Tensor s) -> Tensor   # trailing comment\n"
                         "\n"
                         "a::y(Tensor s, str c='#') -> Tensor\n"
                         "a::z(Tensor s -> Tensor\n"
                         "@out a::x a::missing\n"
                         "@out onlyone\n",
                         &errors));
  CHECK(t.size() == 2);
  REQUIRE(t.lookup("a::y"));
  CHECK(t.lookup("a::y")->arguments[1].defaultValue->s == "#");
  REQUIRE(errors.size() == 3);
  CHECK(errors[0].rfind("line 5: ", 0) == 0);
  CHECK(errors[1].rfind("line 7: ", 0) == 0);
  CHECK(errors[2].rfind("line 6: unknown operator 'a::missing'", 0) == 0);
}

TEST_CASE("builtin() is built once and safe to call from many threads", "[schema][registry]") {
  std::vector<const OperatorRegistry *> seen(8, nullptr);
  std::atomic<int> found{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      seen[i] = &OperatorRegistry::builtin();
      if (seen[i]->lookup("aten::add.Tensor"))
        ++found;
    });
  for (std::thread &t : threads)
    t.join();
  for (const OperatorRegistry *r : seen)
    CHECK(r == &OperatorRegistry::builtin());
  CHECK(found.load() == int(seen.size()));
}
