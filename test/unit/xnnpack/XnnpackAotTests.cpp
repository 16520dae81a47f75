// The ahead-of-time half of XnnpackBackend: capability checks (what is
// taken, and the reason for each refusal) and preprocess (the blob it writes
// read back through the runtime's reader: layout transposes, batch norm
// folded, clamps fused, weights baked, scratch declared on request).
#include "backends/xnnpack/aot/XnnpackAot.h"
#include "backends/xnnpack/format/XnnFormat.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace ptec;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx, const std::string &text) {
  ctx.loadDialect<exir::ExirDialect, mlir::func::FuncDialect>();
  return mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
}

// One method whose ops each exercise a capability rule. `tag` attributes
// name them for the test.
const char *kMethod = R"mlir(
module {
  exir.weight @w "parameter" = dense<0.5> : tensor<4x3x3x3xf32>
  exir.weight @dw "parameter" = dense<0.5> : tensor<3x1x3x3xf32>
  exir.weight @wT "constant" = dense<0.25> : tensor<8x4xf32>
  exir.weight @bias "parameter" = dense<0.1> : tensor<4xf32>
  exir.weight @state "buffer" mutable = dense<0.0> : tensor<4x3x3x3xf32>
  func.func @forward(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                     %y: tensor<4x3x3x3xf32> {exir.input = #exir.input<user_input, "y">},
                     %w: tensor<4x3x3x3xf32> {exir.input = #exir.input<parameter, "w">},
                     %dw: tensor<3x1x3x3xf32> {exir.input = #exir.input<parameter, "dw">},
                     %wT: tensor<8x4xf32> {exir.input = #exir.input<constant, "wT">},
                     %bias: tensor<4xf32> {exir.input = #exir.input<parameter, "bias">},
                     %state: tensor<4x3x3x3xf32> {exir.input = #exir.input<buffer, "state">},
                     %m: tensor<2x8xf32> {exir.input = #exir.input<user_input, "m">},
                     %h: tensor<2x8xf16> {exir.input = #exir.input<user_input, "h">},
                     %b3: tensor<2x4x4xf32> {exir.input = #exir.input<user_input, "b3">}) {
    %0 = exir.aten "aten::convolution"(%x, %w, %bias) {test.tag = "conv", dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %1 = exir.aten "aten::convolution"(%x, %y) {test.tag = "conv_dynamic", dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %2 = exir.aten "aten::convolution"(%x, %state) {test.tag = "conv_mutable", dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %3 = exir.aten "aten::convolution"(%x, %dw) {test.tag = "depthwise", dilation = array<i64: 1, 1>, groups = 3 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x4x4xf32>
    %4 = exir.aten "aten::permute_copy"(%x) {test.tag = "permute", dims = array<i64: 0, 2, 3, 1>, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    %5 = exir.aten "aten::addmm"(%bias, %m, %wT) {test.tag = "addmm", alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %6 = exir.aten "aten::mm"(%m, %m) {test.tag = "mm_dynamic", operand_segments = array<i32: 1, 1>} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2xf32>
    %7 = exir.aten "aten::bmm"(%b3, %b3) {test.tag = "bmm", operand_segments = array<i32: 1, 1>} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %8 = exir.aten "aten::gelu"(%m) {test.tag = "gelu", approximate = "none", operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %9 = exir.aten "aten::tanh"(%m) {test.tag = "tanh", operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %10 = exir.aten "aten::add.Tensor"(%m, %m) {test.tag = "add", alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %11 = exir.aten "aten::add.Tensor"(%m, %m) {test.tag = "add_alpha", alpha = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %12 = exir.aten "aten::sigmoid"(%h) {test.tag = "f16", operand_segments = array<i32: 1>} : (tensor<2x8xf16>) -> tensor<2x8xf16>
    %13 = exir.aten "aten::_softmax"(%b3) {test.tag = "softmax", dim = -1 : i64, half_to_float = false, operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %14 = exir.aten "aten::_softmax"(%b3) {test.tag = "softmax_dim1", dim = 1 : i64, half_to_float = false, operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %15 = exir.aten "aten::mean.dim"(%x) {test.tag = "mean_hw", dim = array<i64: -1, -2>, dtype = #exir.none, keepdim = true, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
    %16 = exir.aten "aten::mean.dim"(%x) {test.tag = "mean_c", dim = array<i64: 1>, dtype = #exir.none, keepdim = true, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x1x8x8xf32>
    %17 = exir.aten "aten::avg_pool2d"(%x) {test.tag = "avg_pad_counted", ceil_mode = false, count_include_pad = true, divisor_override = #exir.none, kernel_size = array<i64: 3, 3>, operand_segments = array<i32: 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %18 = exir.aten "aten::avg_pool2d"(%x) {test.tag = "avg", ceil_mode = false, count_include_pad = true, divisor_override = #exir.none, kernel_size = array<i64: 2, 2>, operand_segments = array<i32: 1>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    %19:2 = exir.aten "aten::max_pool2d_with_indices"(%x) {test.tag = "maxpool", ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, operand_segments = array<i32: 1>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
    %20:2 = exir.aten "aten::max_pool2d_with_indices"(%x) {test.tag = "maxpool_indices", ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, operand_segments = array<i32: 1>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
    %21 = exir.aten "aten::hardtanh"(%m) {test.tag = "hardtanh", min_val = 0.0 : f64, max_val = 6.0 : f64, operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %22 = exir.aten "aten::cat"(%m, %m) {test.tag = "cat", dim = 0 : i64, operand_segments = array<i32: 2>} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    %23 = exir.aten "aten::constant_pad_nd"(%m) {test.tag = "pad", pad = array<i64: 1, 2>, value = 0.0 : f64, operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x11xf32>
    %24 = exir.aten "aten::view_copy"(%m) {test.tag = "view", size = array<i64: 16>, operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<16xf32>
    return
  }
}
)mlir";

/// refuseOp for every tagged op: "" when accepted.
std::map<std::string, std::string> verdicts(mlir::ModuleOp m) {
  std::map<std::string, std::string> out;
  m.walk([&](exir::AtenOp op) {
    auto tag = op->getAttrOfType<mlir::StringAttr>("test.tag");
    if (!tag)
      return;
    std::optional<std::string> why = aot::xnnpack::refuseOp(op);
    out[tag.getValue().str()] = why ? *why : "";
  });
  return out;
}

ptec::xnnpack::GraphPlan readBack(const std::string &blob, ptec::xnnpack::BlobView *view) {
  std::string why;
  ptec::xnnpack::GraphPlan plan;
  REQUIRE(ptec::xnnpack::parseBlob(blob.data(), blob.size(), view, &why) == rt::Error::Ok);
  INFO(why);
  REQUIRE(ptec::xnnpack::planGraph(view->graph, &plan, &why) == rt::Error::Ok);
  return plan;
}

std::vector<Kind> kinds(const fb::XNNGraph *g) {
  std::vector<Kind> k;
  for (const fb::XNode *n : *g->xnodes())
    k.push_back(n->xnode_union_type());
  return k;
}

} // namespace

TEST_CASE("xnnpack capability: what is taken and why the rest is not", "[xnnpack][aot]") {
  mlir::MLIRContext ctx;
  auto m = parse(ctx, kMethod);
  REQUIRE(m);
  auto v = verdicts(*m);
  // permute, bmm, gelu, tanh and cat run as the runtime's own kernels.
  for (const char *taken : {"conv", "depthwise", "addmm", "add", "softmax", "mean_hw", "avg",
                            "maxpool", "hardtanh", "pad", "view", "permute", "bmm", "gelu",
                            "tanh", "cat"}) {
    INFO(taken << ": " << v[taken]);
    CHECK(v[taken].empty());
  }
  auto refused = [&](const char *tag, const char *reason) {
    INFO(tag << ": '" << v[tag] << "' should say '" << reason << "'");
    CHECK(v[tag].find(reason) != std::string::npos);
  };
  refused("conv_dynamic", "weight is not a constant");
  refused("conv_mutable", "weight is not a constant");
  refused("mm_dynamic", "right operand is not a constant");
  refused("add_alpha", "alpha other than 1");
  refused("f16", "static float32");
  refused("softmax_dim1", "other than the last");
  refused("mean_c", "dims other than H and W");
  refused("avg_pad_counted", "counts padding");
  // Its indices feed nothing here, but a user of them would refuse it.
  CHECK(v["maxpool_indices"].empty());
}

TEST_CASE("xnnpack preprocess: NCHW conv + batch norm + relu is one NHWC conv between two "
          "transposes", "[xnnpack][aot]") {
  mlir::MLIRContext ctx;
  auto m = parse(ctx, R"mlir(
func.func private @r(%x: tensor<1x2x4x4xf32>,
    %w: tensor<3x2x1x1xf32> {exir.weight_value = dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>},
    %g: tensor<3xf32> {exir.weight_value = dense<2.0> : tensor<3xf32>},
    %b: tensor<3xf32> {exir.weight_value = dense<1.0> : tensor<3xf32>},
    %mean: tensor<3xf32> {exir.weight_value = dense<0.5> : tensor<3xf32>},
    %var: tensor<3xf32> {exir.weight_value = dense<3.0> : tensor<3xf32>}) -> tensor<1x3x4x4xf32> {
  %0 = exir.aten "aten::convolution"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %1:3 = exir.aten "aten::_native_batch_norm_legit_no_training"(%0, %g, %b, %mean, %var) {eps = 1.0 : f64, momentum = 0.1 : f64, operand_segments = array<i32: 1, 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  %2 = exir.aten "aten::relu"(%1#0) {operand_segments = array<i32: 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %2 : tensor<1x3x4x4xf32>
}
)mlir");
  REQUIRE(m);
  auto region = *m->getOps<mlir::func::FuncOp>().begin();
  std::string error;
  auto backend = aot::createAotBackend("xnnpack", &error);
  REQUIRE(backend);
  CHECK(backend->id() == "XnnpackBackend");
  auto r = backend->preprocess(region);
  REQUIRE(mlir::succeeded(r));
  CHECK(r->shareHandleAcrossCalls);
  CHECK(r->scratch.empty());
  CHECK(r->compileSpecs.empty());
  ptec::xnnpack::BlobView view;
  auto plan = readBack(r->blob, &view);
  CHECK(kinds(view.graph) ==
        std::vector<Kind>{Kind::XNNStaticTranspose, Kind::XNNConv2d, Kind::XNNStaticTranspose});
  CHECK(view.graph->num_externs() == 2); // x + 1 result: the 5 weights are baked
  CHECK(r->bakedArgs == std::vector<unsigned>{1, 2, 3, 4, 5});
  const fb::XNode *conv = view.graph->xnodes()->Get(1);
  REQUIRE(conv->output_min_max() != nullptr); // the relu
  CHECK(conv->output_min_max()->output_min() == 0.0f);
  // Folded: s = 2 / sqrt(3 + 1) = 1, so w' = w and b' = (0 - 0.5) * 1 + 1.
  const auto *c = conv->xnode_union_as_XNNConv2d();
  const auto &bias = plan.values[plan.indexOf.at(c->bias_id())];
  // Constants live in the program's named data (upstream's XnnpackBackend
  // frees the blob after init), keyed by the SHA-256 of their bytes; the
  // blob only names them.
  CHECK(view.constantDataSize == 0);
  REQUIRE(r->namedData.size() == 2); // filter and bias
  for (const auto &[key, data] : r->namedData)
    CHECK(key.size() == 64);
  ptec::xnnpack::NamedDataLookup named = [&](const char *key, const uint8_t **data,
                                             size_t *size) {
    for (const auto &[k, v] : r->namedData)
      if (k == key) {
        *data = reinterpret_cast<const uint8_t *>(v.data());
        *size = v.size();
        return true;
      }
    return false;
  };
  ptec::xnnpack::ConstantBytes bytes;
  std::string why;
  CHECK(ptec::xnnpack::constantBytes(view, bias.constantIndex, {}, &bytes, &why) !=
        rt::Error::Ok); // nothing inside the blob
  REQUIRE(ptec::xnnpack::constantBytes(view, bias.constantIndex, named, &bytes, &why) ==
          rt::Error::Ok);
  CHECK(!bytes.namedKey.empty());
  const float *bv = reinterpret_cast<const float *>(bytes.data);
  CHECK(bv[0] == Approx(0.5f));
  // The filter went to OHWI: [3, 1, 1, 2], row o = (w[o][0], w[o][1]).
  const auto &filter = plan.values[plan.indexOf.at(c->filter_id())];
  CHECK(filter.dims == std::vector<uint64_t>{3, 1, 1, 2});
  REQUIRE(ptec::xnnpack::constantBytes(view, filter.constantIndex, named, &bytes, &why) ==
          rt::Error::Ok);
  const float *fv = reinterpret_cast<const float *>(bytes.data);
  CHECK(fv[2] == 3.0f);
  CHECK(fv[3] == 4.0f);

  auto scratchy = aot::createAotBackend("xnnpack:scratch", &error);
  REQUIRE(scratchy);
  r = scratchy->preprocess(region);
  REQUIRE(mlir::succeeded(r));
  REQUIRE(r->scratch.size() == 1);
  CHECK(uint64_t(r->scratch[0].size) == plan.workspaceBytes);
  CHECK(r->scratch[0].alignment == 64);
  CHECK_FALSE(aot::createAotBackend("xnnpack:bogus", &error));
  CHECK(error.find("bogus") != std::string::npos);
}

TEST_CASE("xnnpack preprocess: linear with a relu, outputs in their own values",
          "[xnnpack][aot]") {
  mlir::MLIRContext ctx;
  auto m = parse(ctx, R"mlir(
func.func private @r(%b: tensor<2xf32> {exir.weight_value = dense<[1.0, -1.0]> : tensor<2xf32>},
    %x: tensor<3x4xf32>,
    %wT: tensor<4x2xf32> {exir.weight_value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>})
    -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %0 = exir.aten "aten::addmm"(%b, %x, %wT) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %1 = exir.aten "aten::relu"(%0) {operand_segments = array<i32: 1>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %1, %1 : tensor<3x2xf32>, tensor<3x2xf32>
}
)mlir");
  REQUIRE(m);
  std::string error;
  auto backend = aot::createAotBackend("xnnpack", &error);
  auto r = backend->preprocess(*m->getOps<mlir::func::FuncOp>().begin());
  REQUIRE(mlir::succeeded(r));
  ptec::xnnpack::BlobView view;
  auto plan = readBack(r->blob, &view);
  // The relu fuses; the second result gets a copy of the first.
  CHECK(kinds(view.graph) == std::vector<Kind>{Kind::XNNFullyConnected, Kind::XNNStaticReshape});
  size_t inputs = 0, outputs = 0;
  for (const auto &v : plan.values) {
    inputs += v.isInput();
    outputs += v.isOutput();
    if (v.isInput())
      CHECK(v.externalId == 0); // x: the weights are baked and not passed
  }
  CHECK(inputs == 1);
  CHECK(outputs == 2);
  // The call passes x only: arguments 0 and 2 (the weights) are baked.
  CHECK(r->bakedArgs == std::vector<unsigned>{0, 2});
  CHECK(view.graph->num_externs() == 3); // x + 2 results
  const auto *fc = view.graph->xnodes()->Get(0)->xnode_union_as_XNNFullyConnected();
  const auto &filter = plan.values[plan.indexOf.at(fc->filter_id())];
  CHECK(filter.dims == std::vector<uint64_t>{2, 4}); // [N, K], transposed from wT
}

TEST_CASE("xnnpack capability: weights inside lower-once-call-many functions",
          "[xnnpack][aot]") {
  // @step is called twice with the same weight @w (baked) and with two
  // different weights @w / @v (not a constant: each call differs).
  mlir::MLIRContext ctx;
  auto m = parse(ctx, R"mlir(
module {
  exir.weight @w "parameter" = dense<0.5> : tensor<4x4xf32>
  exir.weight @v "parameter" = dense<0.25> : tensor<4x4xf32>
  func.func @forward(%x: tensor<2x4xf32> {exir.input = #exir.input<user_input, "x">},
                     %w: tensor<4x4xf32> {exir.input = #exir.input<parameter, "w">},
                     %v: tensor<4x4xf32> {exir.input = #exir.input<parameter, "v">}) -> tensor<2x4xf32> {
    %0 = call @same(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %1 = call @same(%0, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %2 = call @differ(%1, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %3 = call @differ(%2, %v) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    return %3 : tensor<2x4xf32>
  }
  func.func private @same(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
    %0 = exir.aten "aten::mm"(%x, %w) {test.tag = "same", operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
  func.func private @differ(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
    %0 = exir.aten "aten::mm"(%x, %w) {test.tag = "differ", operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
)mlir");
  REQUIRE(m);
  auto v = verdicts(*m);
  CHECK(v["same"].empty());
  CHECK(v["differ"].find("not a constant") != std::string::npos);
  std::string why;
  for (auto f : m->getOps<mlir::func::FuncOp>()) {
    if (f.getSymName() == "differ") {
      CHECK_FALSE(aot::constantWeightOf(f.getArgument(1), &why));
      CHECK(why.find("pass different weights ('w', 'v')") != std::string::npos);
    }
    if (f.getSymName() == "same") {
      aot::ConstantWeight w = aot::constantWeightOf(f.getArgument(1), &why);
      CHECK(w);
      CHECK(w.fqn == "w");
      CHECK_FALSE(aot::constantWeightOf(f.getArgument(0), &why)); // activations are not
    }
  }
}
