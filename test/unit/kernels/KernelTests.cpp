// Portable kernels: the table, and clean failures for bad input (wrong arg
// count or tags, bad dtypes, non-broadcastable shapes, too-small outputs).
#include "dialects/exir/schema/OperatorSchema.h"
#include "runtime/core/Half.h"
#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/kernels/KernelTestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace ptec;
using namespace ptec::test;

namespace {

bool contains(const std::string &s, const char *part) { return s.find(part) != std::string::npos; }

} // namespace

TEST_CASE("kernel table is sorted, unique and searchable", "[kernels]") {
  auto table = rt::portableKernels();
  REQUIRE(table.size() >= 100);
  for (size_t i = 1; i < table.size(); ++i) {
    INFO(table[i - 1].name << " vs " << table[i].name);
    CHECK(std::strcmp(table[i - 1].name, table[i].name) < 0);
  }
  for (const auto &k : table) {
    INFO(k.name);
    CHECK(rt::findKernel(k.name) == &k);
    CHECK(std::strlen(k.name) < 100);
  }
  CHECK(rt::findKernel("aten::add.out")->numArgs == 5);
  CHECK(rt::findKernel("aten::convolution.out")->numArgs == 11);
  CHECK(rt::findKernel("aten::_native_batch_norm_legit_no_training.out")->numArgs == 11);
  CHECK(rt::findKernel("aten::max_pool2d_with_indices.out")->numArgs == 9);
  CHECK(rt::findKernel("aten::copy_")->numArgs == 4);
  CHECK(rt::findKernel("aten::add") == nullptr);
  CHECK(rt::findKernel("aten::zzz.out") == nullptr);
  CHECK(rt::findKernel("") == nullptr);
  CHECK(rt::findKernel(nullptr) == nullptr);
}

// Spec section 4: a KernelCall passes every schema argument and then exactly
// one return entry, whatever the schema returns (one tensor, several, or ()).
TEST_CASE("every kernel takes schema arguments + 1", "[kernels]") {
  const auto &registry = schema::OperatorRegistry::builtin();
  REQUIRE(registry.loadErrors().empty());
  size_t voidReturns = 0;
  for (const auto &k : rt::portableKernels()) {
    INFO(k.name);
    const schema::FunctionSchema *s = registry.lookup(k.name);
    REQUIRE(s != nullptr);
    CHECK(k.numArgs == static_cast<int>(s->arguments.size()) + 1);
    if (s->returns.empty())
      ++voidReturns;
  }
  // split_with_sizes_copy.out, split_copy.Tensor_out, unbind_copy.int_out.
  CHECK(voidReturns == 3);
  CHECK(rt::findKernel("aten::split_with_sizes_copy.out")->numArgs == 5);
  CHECK(rt::findKernel("aten::split_copy.Tensor_out")->numArgs == 5);
  CHECK(rt::findKernel("aten::unbind_copy.int_out")->numArgs == 4);
}

// ToOutVariants rewrites a functional op to the out variant the registry
// names and keeps it only when findKernel has that name: every out-variant
// kernel must be what its functional form maps to.
TEST_CASE("every out-variant kernel is its functional form's out variant", "[kernels]") {
  const auto &registry = schema::OperatorRegistry::builtin();
  std::set<std::string> reachable; // out variants some functional op maps to
  for (const schema::FunctionSchema *f : registry.all())
    if (!f->isOutVariant())
      if (const schema::FunctionSchema *o = registry.outVariantOf(*f))
        reachable.insert(o->fullName());
  size_t checked = 0;
  for (const auto &k : rt::portableKernels()) {
    const schema::FunctionSchema *s = registry.lookup(k.name);
    REQUIRE(s != nullptr);
    if (!s->isOutVariant())
      continue;
    INFO(k.name);
    CHECK(reachable.count(k.name) == 1);
    ++checked;
  }
  CHECK(checked > 200);
  // The PT2E q/dq ops, as torch emits them.
  for (const char *fn : {"quantized_decomposed::quantize_per_tensor",
                         "quantized_decomposed::quantize_per_tensor.tensor",
                         "quantized_decomposed::dequantize_per_tensor",
                         "quantized_decomposed::dequantize_per_tensor.tensor",
                         "quantized_decomposed::quantize_per_channel",
                         "quantized_decomposed::dequantize_per_channel"}) {
    INFO(fn);
    const schema::FunctionSchema *f = registry.lookup(fn);
    REQUIRE(f != nullptr);
    const schema::FunctionSchema *o = registry.outVariantOf(*f);
    REQUIRE(o != nullptr);
    CHECK(rt::findKernel(o->fullName().c_str()) != nullptr);
  }
}

// docs/kernels.md's operator table is generated (kernel_table.py); a kernel
// added without regenerating it fails here.
TEST_CASE("docs/kernels.md lists every kernel", "[kernels]") {
  std::ifstream in(PTEC_KERNELS_DOC);
  REQUIRE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto &k : rt::portableKernels()) {
    std::string name = k.name;
    if (name.rfind("aten::", 0) == 0)
      name = name.substr(6);
    INFO(k.name);
    CHECK(doc.find("| `" + name + "` | " + std::to_string(k.numArgs) + " |") != std::string::npos);
  }
}

TEST_CASE("split kernels reject the pre-fix 4-argument form", "[kernels]") {
  Boxer b;
  EValue *x = b.f32({4}, {1, 2, 3, 4});
  EValue *o0 = b.t(b.tensor(ScalarType::Float, {2}));
  EValue *o1 = b.t(b.tensor(ScalarType::Float, {2}));
  EValue *outs = b.tensorList({o0, o1});
  rt::KernelContext ctx;
  CHECK(call(ctx, "aten::split_with_sizes_copy.out", {x, b.intList({2, 2}), b.i(0), outs}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "expected 5 arguments, got 4"));
  rt::KernelContext ok;
  REQUIRE(call(ok, "aten::split_with_sizes_copy.out",
               {x, b.intList({2, 2}), b.i(0), outs, outs}) == Error::Ok);
  CHECK(o1->toTensor().dataAs<float>()[0] == 3);
  CHECK(o1->toTensor().dataAs<float>()[1] == 4);
}

TEST_CASE("add.out computes and broadcasts", "[kernels]") {
  Boxer b;
  EValue *out = b.t(b.tensor(ScalarType::Float, {2, 2}));
  rt::KernelContext ctx;
  REQUIRE(call(ctx, "aten::add.out",
               {b.f32({2, 2}, {1, 2, 3, 4}), b.f32({2}, {10, 20}), b.i(2), out, out}) ==
          Error::Ok);
  const float *p = out->toTensor().dataAs<float>();
  CHECK(p[0] == 21);
  CHECK(p[1] == 42);
  CHECK(p[2] == 23);
  CHECK(p[3] == 44);
}

TEST_CASE("wrong argument count fails cleanly", "[kernels]") {
  Boxer b;
  EValue *out = b.t(b.tensor(ScalarType::Float, {2}));
  rt::KernelContext ctx;
  CHECK(call(ctx, "aten::add.out", {b.f32({2}, {1, 2}), b.f32({2}, {1, 2}), out, out}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "expected 5 arguments, got 4"));
  // Every kernel rejects an empty argument list without crashing.
  for (const auto &k : rt::portableKernels()) {
    rt::KernelContext c2;
    INFO(k.name);
    CHECK(k.fn(c2, {}) == Error::InvalidArgument);
    CHECK(std::strlen(c2.message()) > 0);
  }
}

TEST_CASE("arguments bind in schema order and stop at the first bad one", "[kernels]") {
  Boxer b;
  EValue *x = b.f32({2, 2}, {1, 2, 3, 4});
  EValue *out = b.t(b.tensor(ScalarType::Float, {2}));
  rt::KernelContext ctx;
  // dim and keepdim are both wrong: dim (argument 1) is reported.
  CHECK(call(ctx, "aten::amin.out", {x, b.d(1.0), b.i(0), out, out}) == Error::InvalidArgument);
  CHECK(contains(ctx.message(), "argument 1 (dim): expected IntList, got Double"));
  CHECK(call(ctx, "aten::amin.out", {x, b.intList({1}), b.i(0), out, out}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "argument 2 (keepdim): expected Bool, got Int"));
  // The return slot is checked after every schema argument.
  CHECK(call(ctx, "aten::amin.out", {x, b.intList({1}), b.b(false), out, nullptr}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "argument 4 (return): null value"));
  // A kernel-specific argument kind (convolution_backward's output_mask).
  EValue *g = b.f32({1, 1, 2}, {1, 1});
  EValue *in = b.f32({1, 1, 2}, {1, 2});
  EValue *w = b.f32({1, 1, 1}, {1});
  EValue *gi = b.t(b.tensor(ScalarType::Float, {1, 1, 2}));
  EValue *gw = b.t(b.tensor(ScalarType::Float, {1, 1, 1}));
  EValue *gb = b.t(b.tensor(ScalarType::Float, {1}));
  CHECK(call(ctx, "aten::convolution_backward.out",
             {g, in, w, b.none(), b.intList({1}), b.intList({0}), b.intList({1}), b.b(false),
              b.intList({0}), b.i(1), b.intList({1, 1, 1}), gi, gw, gb, gi}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "argument 10 (output_mask): expected BoolList of 3, got IntList"));
}

TEST_CASE("every kernel rejects all-None arguments with a message", "[kernels]") {
  Boxer b;
  for (const auto &k : rt::portableKernels()) {
    int n = k.numArgs;
    std::vector<EValue *> args;
    for (int i = 0; i < n; ++i)
      args.push_back(b.none());
    rt::KernelContext ctx;
    INFO(k.name);
    Error e = k.fn(ctx, {args.data(), args.size()});
    CHECK(e != Error::Ok);
    CHECK(std::strlen(ctx.message()) > 0);
  }
}

TEST_CASE("wrong argument tag names the argument", "[kernels]") {
  Boxer b;
  EValue *out = b.t(b.tensor(ScalarType::Float, {2}));
  rt::KernelContext ctx;
  CHECK(call(ctx, "aten::mul.out", {b.f32({2}, {1, 2}), b.i(3), out, out}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "argument 1 (other): expected Tensor, got Int"));
}

TEST_CASE("non-broadcastable shapes fail with both shapes", "[kernels]") {
  Boxer b;
  EValue *out = b.t(b.tensor(ScalarType::Float, {2, 3}));
  rt::KernelContext ctx;
  CHECK(call(ctx, "aten::mul.out",
             {b.f32({2, 3}, {1, 2, 3, 4, 5, 6}), b.f32({2}, {1, 2}), out, out}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "[2, 3]"));
  CHECK(contains(ctx.message(), "[2]"));
  CHECK(contains(ctx.message(), "not broadcastable"));
}

TEST_CASE("output too small fails cleanly", "[kernels]") {
  Boxer b;
  // Capacity for 2 floats, result needs 4.
  EValue *out = b.t(b.tensor(ScalarType::Float, {2}, 8));
  rt::KernelContext ctx;
  CHECK(call(ctx, "aten::add.out",
             {b.f32({4}, {1, 2, 3, 4}), b.f32({4}, {1, 2, 3, 4}), b.i(1), out, out}) ==
        Error::InvalidArgument);
  CHECK(contains(ctx.message(), "cannot resize out to [4]"));
  CHECK(contains(ctx.message(), "capacity is 8"));

  rt::KernelContext c2;
  EValue *small = b.t(b.tensor(ScalarType::Float, {1, 1}, 4));
  CHECK(call(c2, "aten::mm.out",
             {b.f32({2, 2}, {1, 2, 3, 4}), b.f32({2, 2}, {1, 0, 0, 1}), small, small}) ==
        Error::InvalidArgument);
  CHECK(contains(c2.message(), "cannot resize"));
}

TEST_CASE("bad dtypes are refused", "[kernels]") {
  Boxer b;
  rt::KernelContext ctx;
  // A floating result cannot go into an int64 out.
  EValue *outL = b.t(b.tensor(ScalarType::Long, {2}));
  CHECK(call(ctx, "aten::exp.out", {b.f32({2}, {1, 2}), outL, outL}) == Error::InvalidArgument);
  CHECK(contains(ctx.message(), "int64"));
  // Matmul takes one non-bool dtype for every operand.
  rt::KernelContext c2;
  EValue *o2 = b.t(b.tensor(ScalarType::Bool, {1, 1}));
  CHECK(call(c2, "aten::mm.out",
             {b.t(b.tensor(ScalarType::Bool, {1, 1})), b.t(b.tensor(ScalarType::Bool, {1, 1})),
              o2, o2}) == Error::InvalidArgument);
  CHECK(contains(c2.message(), "mm"));
  rt::KernelContext c2b;
  EValue *o2b = b.t(b.tensor(ScalarType::Float, {1, 1}));
  CHECK(call(c2b, "aten::mm.out", {b.i64({1, 1}, {2}), b.f32({1, 1}, {3}), o2b, o2b}) ==
        Error::InvalidArgument);
  // An unsupported dtype (a quantized one) in an input.
  rt::KernelContext c3;
  EValue *q = b.t(b.tensor(ScalarType::QInt8, {2}));
  EValue *o3 = b.t(b.tensor(ScalarType::Float, {2}));
  CHECK(call(c3, "aten::relu.out", {q, o3, o3}) == Error::InvalidArgument);
  CHECK(contains(c3.message(), "qint8"));
  // where needs a bool condition.
  rt::KernelContext c4;
  EValue *o4 = b.t(b.tensor(ScalarType::Float, {2}));
  CHECK(call(c4, "aten::where.self_out",
             {b.f32({2}, {1, 0}), b.f32({2}, {1, 2}), b.f32({2}, {3, 4}), o4, o4}) ==
        Error::InvalidArgument);
  CHECK(contains(c4.message(), "condition"));
}

TEST_CASE("out-of-range indices and dims fail cleanly", "[kernels]") {
  Boxer b;
  rt::KernelContext ctx;
  EValue *out = b.t(b.tensor(ScalarType::Float, {2, 2}));
  CHECK(call(ctx, "aten::embedding.out",
             {b.f32({3, 2}, {1, 2, 3, 4, 5, 6}), b.i64({2}, {0, 3}), b.i(-1), b.b(false),
              b.b(false), out, out}) == Error::InvalidArgument);
  CHECK(contains(ctx.message(), "index 3 out of range"));

  rt::KernelContext c2;
  EValue *o2 = b.t(b.tensor(ScalarType::Float, {2}));
  CHECK(call(c2, "aten::index.Tensor_out",
             {b.f32({2}, {1, 2}), b.optTensorList({b.i64({1}, {5})}), o2, o2}) ==
        Error::InvalidArgument);
  CHECK(contains(c2.message(), "out of bounds"));

  rt::KernelContext c3;
  EValue *o3 = b.t(b.tensor(ScalarType::Float, {2}));
  CHECK(call(c3, "aten::_softmax.out", {b.f32({2}, {1, 2}), b.i(3), b.b(false), o3, o3}) ==
        Error::InvalidArgument);
  CHECK(contains(c3.message(), "dim 3 out of range"));

  rt::KernelContext c4;
  EValue *o4 = b.t(b.tensor(ScalarType::Long, {2}));
  CHECK(call(c4, "aten::div.out_mode",
             {b.i64({2}, {4, 5}), b.i64({2}, {2, 0}), b.str("trunc"), o4, o4}) ==
        Error::InvalidArgument);
  CHECK(contains(c4.message(), "division by zero"));
}

TEST_CASE("transposed convolution checks output_padding", "[kernels]") {
  Boxer b;
  rt::KernelContext ctx;
  EValue *out = b.t(b.tensor(ScalarType::Float, {1, 1, 4, 4}));
  std::vector<float> ones(9, 1.0f);
  // output_padding must be smaller than stride or dilation (both 1 here).
  CHECK(call(ctx, "aten::convolution.out",
             {b.f32({1, 1, 3, 3}, ones), b.f32({1, 1, 1, 1}, {1}), b.none(), b.intList({1, 1}),
              b.intList({0, 0}), b.intList({1, 1}), b.b(true), b.intList({1, 1}), b.i(1), out,
              out}) == Error::InvalidArgument);
  CHECK(contains(ctx.message(), "output_padding"));
  // The same call without output_padding computes: a 1x1 kernel of 1 is the identity.
  rt::KernelContext ok;
  EValue *out3 = b.t(b.tensor(ScalarType::Float, {1, 1, 3, 3}));
  REQUIRE(call(ok, "aten::convolution.out",
               {b.f32({1, 1, 3, 3}, ones), b.f32({1, 1, 1, 1}, {1}), b.none(), b.intList({1, 1}),
                b.intList({0, 0}), b.intList({1, 1}), b.b(true), b.intList({0, 0}), b.i(1), out3,
                out3}) == Error::Ok);
  CHECK(out3->toTensor().dataAs<float>()[4] == 1.0f);
}

TEST_CASE("convolution falls back to direct loops when scratch is too small", "[kernels]") {
  Boxer b;
  std::vector<float> x(16), w(9);
  for (int i = 0; i < 16; ++i)
    x[i] = static_cast<float>(i);
  for (int i = 0; i < 9; ++i)
    w[i] = static_cast<float>(i % 3) - 1.0f;
  auto run = [&](rt::MemoryAllocator *temp) {
    EValue *out = b.t(b.tensor(ScalarType::Float, {1, 1, 2, 2}));
    rt::KernelContext ctx(temp);
    REQUIRE(call(ctx, "aten::convolution.out",
                 {b.f32({1, 1, 4, 4}, x), b.f32({1, 1, 3, 3}, w), b.none(), b.intList({1, 1}),
                  b.intList({0, 0}), b.intList({1, 1}), b.b(false), b.intList({0, 0}), b.i(1),
                  out, out}) == Error::Ok);
    const float *p = out->toTensor().dataAs<float>();
    return std::vector<float>(p, p + 4);
  };
  uint64_t tiny[2];
  rt::MemoryAllocator small(tiny, sizeof(tiny));
  std::vector<uint64_t> big(1024);
  rt::MemoryAllocator large(big.data(), big.size() * 8);
  auto a = run(nullptr), c = run(&small), d = run(&large);
  // Row-wise kernel (-1, 0, 1): each output is 2 * 3 = 6.
  CHECK(a == std::vector<float>{6, 6, 6, 6});
  CHECK(c == a);
  CHECK(d == a);
}

TEST_CASE("et_view aliases the input storage", "[kernels]") {
  Boxer b;
  EValue *in = b.f32({2, 3}, {1, 2, 3, 4, 5, 6});
  rt::Tensor *o = b.tensor(ScalarType::Float, {6});
  o->setData(nullptr, 0);
  EValue *out = b.t(o);
  rt::KernelContext ctx;
  REQUIRE(call(ctx, "executorch_prim::et_view.default", {in, b.intList({3, -1}), out}) ==
          Error::Ok);
  CHECK(o->data() == in->toTensor().data());
  CHECK(o->dim() == 2);
  CHECK(o->size(0) == 3);
  CHECK(o->size(1) == 2);
  rt::KernelContext c2;
  CHECK(call(c2, "executorch_prim::et_view.default", {in, b.intList({4, -1}), out}) ==
        Error::InvalidArgument);
  CHECK(contains(c2.message(), "view"));
}

TEST_CASE("absent optional tensors: None and the BYTE [0] placeholder", "[kernels]") {
  Boxer b;
  auto run = [&](EValue *weight) {
    EValue *o0 = b.t(b.tensor(ScalarType::Float, {1, 2}));
    EValue *o1 = b.t(b.tensor(ScalarType::Float, {1, 1}));
    EValue *o2 = b.t(b.tensor(ScalarType::Float, {1, 1}));
    EValue *ret = b.tensorList({o0, o1, o2});
    rt::KernelContext ctx;
    REQUIRE(call(ctx, "aten::native_layer_norm.out",
                 {b.f32({1, 2}, {1, 3}), b.intList({2}), weight, b.none(), b.d(0.0), o0, o1, o2,
                  ret}) == Error::Ok);
    const float *p = o0->toTensor().dataAs<float>();
    return std::vector<float>(p, p + 2);
  };
  EValue *placeholder = b.t(b.tensor(ScalarType::Byte, {0}));
  CHECK(run(b.none()) == std::vector<float>{-1, 1});
  CHECK(run(placeholder) == std::vector<float>{-1, 1});
}

TEST_CASE("empty and rank-0 tensors", "[kernels]") {
  Boxer b;
  rt::KernelContext ctx;
  EValue *out = b.t(b.tensor(ScalarType::Float, {0, 3}, 0));
  CHECK(call(ctx, "aten::relu.out", {b.t(b.tensor(ScalarType::Float, {0, 3})), out, out}) ==
        Error::Ok);
  CHECK(out->toTensor().numel() == 0);
  EValue *s = b.t(b.tensor(ScalarType::Float, {}));
  CHECK(call(ctx, "aten::add.out",
             {b.f32({}, {2}), b.f32({}, {3}), b.i(1), s, s}) == Error::Ok);
  CHECK(s->toTensor().dim() == 0);
  CHECK(s->toTensor().dataAs<float>()[0] == 5);
}

TEST_CASE("mm: Eigen path (scratch) and plain loop (no scratch) agree on large shapes",
          "[kernels]") {
  Boxer b;
  const int64_t n = 131, k = 700, m = 77;
  std::vector<float> av(n * k), bv(k * m);
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) - 0.5f;
  };
  for (auto &v : av)
    v = next();
  for (auto &v : bv)
    v = next();
  EValue *a = b.f32({n, k}, av), *bb = b.f32({k, m}, bv);
  auto run = [&](rt::MemoryAllocator *temp) {
    EValue *out = b.t(b.tensor(ScalarType::Float, {n, m}));
    rt::KernelContext ctx(temp);
    REQUIRE(call(ctx, "aten::mm.out", {a, bb, out, out}) == Error::Ok);
    const float *p = out->toTensor().dataAs<float>();
    return std::vector<float>(p, p + n * m);
  };
  std::vector<uint64_t> arena(4 << 20 >> 3);
  rt::MemoryAllocator temp(arena.data(), arena.size() * 8);
  auto eigen = run(&temp);
  REQUIRE(temp.used() > 0); // the packing buffers came from the temp allocator
  auto loop = run(nullptr);
  // Reference for a few entries, in double.
  for (int64_t i : {int64_t(0), n / 2, n - 1})
    for (int64_t j : {int64_t(0), m / 3, m - 1}) {
      double ref = 0;
      for (int64_t p = 0; p < k; ++p)
        ref += double(av[i * k + p]) * double(bv[p * m + j]);
      CHECK(eigen[i * m + j] == Approx(ref).margin(1e-4));
      CHECK(loop[i * m + j] == Approx(ref).margin(1e-4));
    }
  for (size_t i = 0; i < eigen.size(); ++i)
    REQUIRE(eigen[i] == Approx(loop[i]).margin(1e-4));
}

// ---------------------------------------------------------------------------
// Dim orders (spec 3.3): channels-last tensors through the dim_order_ops
// copies and the element-wise kernels.
// ---------------------------------------------------------------------------

namespace {

const uint8_t kContiguous[] = {0, 1, 2, 3}, kChannelsLast[] = {0, 2, 3, 1};

/// A float [n, c, h, w] tensor in dim order `order`, holding `logical` (its
/// row-major NCHW values) laid out in that order.
EValue *nchw(Boxer &b, std::vector<int64_t> sizes, const uint8_t *order,
             const std::vector<float> &logical) {
  rt::Tensor *t = b.tensor(ScalarType::Float, sizes);
  REQUIRE(t->init(ScalarType::Float, {sizes.data(), sizes.size()},
                  {order, sizes.size()}) == Error::Ok);
  REQUIRE(static_cast<size_t>(t->numel()) == logical.size());
  for (int64_t i = 0; i < t->numel(); ++i)
    t->dataAs<float>()[t->offsetOf(i)] = logical[static_cast<size_t>(i)];
  return b.t(t);
}

/// The tensor's values in row-major (logical) order, whatever its layout.
std::vector<float> logicalValues(const EValue *v) {
  const rt::Tensor &t = v->toTensor();
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.dataAs<const float>()[t.offsetOf(i)]);
  return out;
}

std::vector<float> iota(int n, float from = 0) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i)
    v.push_back(from + static_cast<float>(i));
  return v;
}

} // namespace

TEST_CASE("tensor strides follow the dim order", "[kernels][dim_order]") {
  rt::Tensor t;
  std::vector<int64_t> sizes = {2, 3, 4, 5};
  REQUIRE(t.init(ScalarType::Float, {sizes.data(), 4}, {kChannelsLast, 4}) == Error::Ok);
  // NHWC memory: c is innermost, then w, h, n.
  CHECK(t.stride(1) == 1);
  CHECK(t.stride(3) == 3);
  CHECK(t.stride(2) == 15);
  CHECK(t.stride(0) == 60);
  CHECK(t.isChannelsLast());
  CHECK_FALSE(t.isContiguous());
  // Logical (n=0, c=1, h=0, w=0) is element 20 in row-major order.
  CHECK(t.offsetOf(20) == 1);
  // Resizing keeps the order; changing the rank of such a tensor fails.
  CHECK(t.resize({2, 3, 4, 4}) == Error::Ok);
  CHECK(t.isChannelsLast());
  CHECK(t.resize({2, 3}) == Error::InvalidArgument);
  const uint8_t notPerm[] = {0, 1, 1, 2};
  CHECK(t.init(ScalarType::Float, {sizes.data(), 4}, {notPerm, 4}) == Error::InvalidArgument);
}

TEST_CASE("_to_dim_order_copy converts NCHW to channels-last and back", "[kernels][dim_order]") {
  Boxer b;
  EValue *x = nchw(b, {1, 3, 2, 2}, kContiguous, iota(12));
  EValue *cl = nchw(b, {1, 3, 2, 2}, kChannelsLast, std::vector<float>(12, 0));
  rt::KernelContext ctx;
  REQUIRE(call(ctx, "dim_order_ops::_to_dim_order_copy.out",
               {x, b.b(false), b.intList({0, 2, 3, 1}), cl, cl}) == Error::Ok);
  // Memory is NHWC: (h, w, c) -> c * 4 + h * 2 + w.
  const float *p = cl->toTensor().dataAs<float>();
  CHECK(std::vector<float>(p, p + 12) ==
        std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(logicalValues(cl) == iota(12));
  // And back to contiguous, converting the dtype on the way.
  rt::Tensor *back = b.tensor(ScalarType::Long, {1, 3, 2, 2});
  EValue *bv = b.t(back);
  REQUIRE(call(ctx, "dim_order_ops::_to_dim_order_copy.out",
               {cl, b.b(false), b.intList({0, 1, 2, 3}), bv, bv}) == Error::Ok);
  for (int i = 0; i < 12; ++i)
    CHECK(back->dataAs<int64_t>()[i] == i);
}

TEST_CASE("dim_order_ops argument checks", "[kernels][dim_order]") {
  Boxer b;
  EValue *x = nchw(b, {1, 2, 2, 2}, kContiguous, iota(8));
  EValue *cl = nchw(b, {1, 2, 2, 2}, kChannelsLast, std::vector<float>(8, 0));
  rt::KernelContext ctx;
  const char *clone = "dim_order_ops::_clone_dim_order.out";
  // `op` refuses (x, nonBlocking, dimOrder, out, out), saying `why` (if given).
  auto refused = [&](const char *op, bool nonBlocking, EValue *dimOrder, EValue *out,
                     const char *why) {
    CHECK(call(ctx, op, {x, b.b(nonBlocking), dimOrder, out, out}) == Error::InvalidArgument);
    if (why)
      CHECK(contains(ctx.message(), why));
  };
  SECTION("out's order must be the requested one") {
    refused(clone, false, b.intList({0, 1, 2, 3}), cl, "out's dim order differs from dim_order");
  }
  SECTION("without dim_order out keeps self's") {
    refused(clone, false, b.none(), cl, "out must keep self's dim order");
  }
  SECTION("only contiguous or channels-last orders") {
    refused("dim_order_ops::_to_dim_order_copy.out", false, b.intList({1, 0, 2, 3}), cl,
            "contiguous or channels-last");
  }
  SECTION("clone keeps the dtype") {
    refused(clone, false, b.none(), b.t(b.tensor(ScalarType::Long, {1, 2, 2, 2})), nullptr);
  }
  SECTION("blocking only") {
    refused(clone, true, b.intList({0, 2, 3, 1}), cl, "non_blocking");
  }
  SECTION("clone into channels-last") {
    REQUIRE(call(ctx, clone, {x, b.b(false), b.intList({0, 2, 3, 1}), cl, cl}) == Error::Ok);
    CHECK(logicalValues(cl) == iota(8));
  }
}

TEST_CASE("element-wise kernels compute channels-last tensors", "[kernels][dim_order]") {
  Boxer b;
  // x + bias over [1, 3, 2, 2] with a per-channel [1, 3, 1, 1] bias, all NHWC.
  EValue *x = nchw(b, {1, 3, 2, 2}, kChannelsLast, iota(12));
  EValue *bias = nchw(b, {1, 3, 1, 1}, kChannelsLast, {100, 200, 300});
  EValue *out = nchw(b, {1, 3, 2, 2}, kChannelsLast, std::vector<float>(12, 0));
  rt::KernelContext ctx;
  REQUIRE(call(ctx, "aten::add.out", {x, bias, b.i(1), out, out}) == Error::Ok);
  CHECK(logicalValues(out) == std::vector<float>{100, 101, 102, 103, 204, 205, 206, 207, 308,
                                                 309, 310, 311});
  // Unary: relu(x - 5) keeps the layout.
  EValue *shifted = nchw(b, {1, 3, 2, 2}, kChannelsLast, iota(12, -5));
  EValue *r = nchw(b, {1, 3, 2, 2}, kChannelsLast, std::vector<float>(12, -1));
  REQUIRE(call(ctx, "aten::relu.out", {shifted, r, r}) == Error::Ok);
  CHECK(logicalValues(r) == std::vector<float>{0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6});
  // copy_ and clone between channels-last tensors.
  EValue *c = nchw(b, {1, 3, 2, 2}, kChannelsLast, std::vector<float>(12, 0));
  REQUIRE(call(ctx, "aten::copy_", {c, x, b.b(false), c}) == Error::Ok);
  CHECK(logicalValues(c) == iota(12));
}

// addmm in float16/bfloat16 rounds bias + product once. The exact product
// here lies halfway between two representable values, so rounding it first
// (ties to even) and then adding the bias -1 gives 2 units of the last place
// instead of the exact, representable 1.5 (found by the cnn_bf16 zoo model).
TEST_CASE("addmm in float16/bfloat16 rounds bias + product once", "[kernels][half]") {
  struct Dt {
    ScalarType type;
    int mantissa; // explicit mantissa bits: the ulp of 1 is 2^-mantissa
    uint16_t (*narrow)(float);
    float (*widen)(uint16_t);
  };
  for (const Dt &dt : {Dt{ScalarType::BFloat16, 7, rt::floatToBf16, rt::bf16ToFloat},
                       Dt{ScalarType::Half, 10, rt::floatToHalf, rt::halfToFloat}}) {
    INFO(rt::toString(dt.type));
    Boxer b;
    auto make = [&](std::vector<int64_t> sizes, std::vector<float> v) {
      rt::Tensor *t = b.tensor(dt.type, sizes);
      for (size_t i = 0; i < v.size(); ++i)
        t->dataAs<uint16_t>()[i] = dt.narrow(v[i]);
      return b.t(t);
    };
    const float ulp = std::ldexp(1.0f, -dt.mantissa);
    // [1, 3] x [3, 2]: column 0 sums to 1 + 1.5 ulp (a tie), column 1 to 1.
    EValue *a = make({1, 3}, {1.0f, ulp, ulp / 2});
    EValue *m2 = make({3, 2}, {1, 1, 1, 0, 1, 0});
    EValue *bias = make({2}, {-1.0f, 0.5f});
    EValue *out = b.t(b.tensor(dt.type, {1, 2}));
    rt::KernelContext ctx;
    REQUIRE(call(ctx, "aten::addmm.out", {bias, a, m2, b.i(1), b.i(1), out, out}) == Error::Ok);
    const uint16_t *p = out->toTensor().dataAs<uint16_t>();
    CHECK(dt.widen(p[0]) == 1.5f * ulp); // not 2 ulp (the product rounded first)
    CHECK(dt.widen(p[1]) == 1.5f);
    // beta and alpha apply before the single rounding too.
    // 0.5 * -1 + (1 + 1.5 ulp) = 0.5 + 1.5 ulp is representable (the ulp of
    // 0.5 is ulp / 2); the product rounded first would give 0.5 + 2 ulp.
    REQUIRE(call(ctx, "aten::addmm.out", {bias, a, m2, b.d(0.5), b.d(1.0), out, out}) ==
            Error::Ok);
    CHECK(dt.widen(p[0]) == 0.5f + 1.5f * ulp);
  }
}

TEST_CASE("argmax and argmin compare int64 exactly, beyond 2^53", "[kernels]") {
  // 2^53 and 2^53 + 1 are the same double: a comparison through double
  // would keep the first index.
  const int64_t big = int64_t(1) << 53;
  for (bool isMax : {true, false}) {
    Boxer b;
    rt::KernelContext ctx;
    EValue *out = b.t(b.tensor(ScalarType::Long, {}));
    std::vector<int64_t> values =
        isMax ? std::vector<int64_t>{big, big + 1, big} : std::vector<int64_t>{-big, -big - 1, -big};
    REQUIRE(call(ctx, isMax ? "aten::argmax.out" : "aten::argmin.out",
                 {b.i64({3}, values), b.none(), b.b(false), out, out}) == Error::Ok);
    INFO((isMax ? "argmax" : "argmin"));
    CHECK(out->toTensor().dataAs<int64_t>()[0] == 1);
  }
}
