// The demo backend's runtime half: blob parsing, upstream-exact arithmetic,
// malformed blobs, handle sharing and the scratch mode.
#include "backends/demo/runtime/DemoBackend.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

using namespace ptec;
using rt::Error;

namespace {

/// A float tensor boxed in an EValue; pinned (the EValue points at it).
struct FloatArg {
  std::vector<float> data;
  rt::Tensor tensor;
  rt::EValue value;
  explicit FloatArg(std::vector<float> v) : data(std::move(v)) {
    const int64_t n = static_cast<int64_t>(data.size());
    REQUIRE(tensor.init(rt::ScalarType::Float, rt::Span<const int64_t>(&n, 1)) ==
            Error::Ok);
    tensor.setData(data.data(), data.size() * sizeof(float));
    value = rt::EValue::fromTensor(&tensor);
  }
  FloatArg(const FloatArg &) = delete;
};

struct Fixture {
  alignas(16) uint8_t memory[1 << 14] = {};
  rt::MemoryAllocator allocator{memory, sizeof memory};
  rt::BackendInitContext ctx;
  demo::DemoBackend backend;
  // Compile spec values: the one-byte upstream form, padded like FlatBuffers.
  uint8_t maxValueBytes[4] = {4, 0, 0, 0};
  std::vector<rt::CompileSpec> specs;

  Fixture() {
    ctx.runtimeAllocator = &allocator;
    specs.push_back({"max_value", maxValueBytes, 1});
  }
  // Blobs outlive their handles (the handle points into them), as in a
  // loaded program.
  std::deque<std::string> blobs;

  rt::Result<void *> init(const std::string &text) {
    const std::string &blob = blobs.emplace_back(text);
    return backend.init(ctx, {blob.data(), blob.size()},
                        rt::Span<const rt::CompileSpec>(specs.data(), specs.size()));
  }
  Error run(void *handle, std::vector<rt::EValue *> args) {
    rt::BackendExecuteContext ectx;
    return backend.execute(ectx, handle,
                           rt::Span<rt::EValue *>(args.data(), args.size()));
  }
  bool ownsMemory(const void *p) const {
    auto *b = static_cast<const uint8_t *>(p);
    return b >= memory && b < memory + sizeof memory;
  }
};

std::string record(const std::string &op, int numel,
                   const std::string &dtype = "torch.float32", int debug = 1) {
  return "op:demo::" + op + ", numel:" + std::to_string(numel) +
         ", dtype:" + dtype + "<debug_handle>" + std::to_string(debug) + "#";
}

std::string blobOf(const std::vector<std::string> &records, int count = -1,
                   int version = 0) {
  if (count < 0)
    count = static_cast<int>(records.size());
  std::string b = std::to_string(count) + "version:" + std::to_string(version) + "#";
  for (const auto &r : records)
    b += r;
  return b;
}

float upstreamSin(float x) { return x - x * x * x / 6.0; }

} // namespace

TEST_CASE("demo: the worked example, sin of [1, 2]", "[demo]") {
  Fixture f;
  const std::string blob =
      "1version:0#op:demo::aten.sin.default, numel:2, dtype:torch.float32"
      "<debug_handle>1#";
  f.maxValueBytes[0] = 2;
  auto h = f.init(blob);
  REQUIRE(h.ok());
  FloatArg x({1.0f, 2.0f}), y({0.0f, 0.0f});
  REQUIRE(f.run(h.get(), {&x.value, &y.value}) == Error::Ok);
  CHECK(y.data[0] == Approx(0.833333f).margin(1e-6));
  CHECK(y.data[1] == Approx(0.666667f).margin(1e-6));
  // Bit-exact with upstream's expression (cube in float, division in double).
  CHECK(y.data[0] == static_cast<float>(1.0 - 1.0 / 6.0));
  CHECK(y.data[1] == static_cast<float>(2.0 - static_cast<double>(8.0f) / 6.0));
}

TEST_CASE("demo: records are parsed into the runtime allocator", "[demo]") {
  Fixture f;
  const std::string blob = blobOf({record("aten.mm.default", 4, "torch.float32", 7),
                                   record("aten.add.Tensor", 4, "torch.float32", -1)});
  const size_t before = f.allocator.used();
  auto h = f.init(blob);
  REQUIRE(h.ok());
  CHECK(f.allocator.used() > before);
  const auto *handle = static_cast<const demo::DemoHandle *>(h.get());
  REQUIRE(f.ownsMemory(handle));
  REQUIRE(handle->count == 2);
  REQUIRE(f.ownsMemory(handle->records));
  const demo::DemoRecord &r0 = handle->records[0];
  CHECK(std::string(r0.name, r0.nameSize) == "demo::aten.mm.default");
  CHECK(std::string(r0.dtype, r0.dtypeSize) == "torch.float32");
  CHECK(r0.numel == 4);
  CHECK(r0.debugHandle == 7);
  CHECK(handle->records[1].debugHandle == -1);
  // Names and dtypes point into the blob (it outlives the handle).
  const std::string &stored = f.blobs.back();
  CHECK(r0.name > stored.data());
  CHECK(r0.name < stored.data() + stored.size());
  CHECK(f.backend.isAvailable());
  f.backend.destroy(h.get()); // nothing to free; must not crash
}

TEST_CASE("demo: mm then add computes a@x + b with upstream arithmetic", "[demo]") {
  Fixture f;
  auto h = f.init(blobOf({record("aten.mm.default", 4), record("aten.add.Tensor", 4)}));
  REQUIRE(h.ok());
  FloatArg a({1.5f, -2.0f, 0.25f, 3.0f}), x({2.0f, 1.0f, -1.0f, 0.5f});
  FloatArg b({0.1f, 0.2f, 0.3f, 0.4f}), out({9.0f, 9.0f, 9.0f, 9.0f});
  REQUIRE(f.run(h.get(), {&a.value, &x.value, &b.value, &out.value}) == Error::Ok);
  const float *A = a.data.data(), *X = x.data.data(), *B = b.data.data();
  CHECK(out.data[0] == (A[0] * X[0] + A[1] * X[2]) + B[0]);
  CHECK(out.data[1] == (A[0] * X[1] + A[1] * X[3]) + B[1]);
  CHECK(out.data[2] == (A[2] * X[0] + A[3] * X[2]) + B[2]);
  CHECK(out.data[3] == (A[2] * X[1] + A[3] * X[3]) + B[3]);
  CHECK(out.data[0] == Approx(5.1f));
  CHECK(out.data[3] == Approx(2.15f));
}

TEST_CASE("demo: add accumulates in place and never reads args 0 and 1", "[demo]") {
  Fixture f;
  auto h = f.init(blobOf({record("aten.add.Tensor", 3)}));
  REQUIRE(h.ok());
  rt::EValue none0, none1; // None: reading them as tensors would be a bug
  FloatArg b({1.0f, 2.0f, 3.0f}), z({10.0f, 20.0f, 30.0f});
  REQUIRE(f.run(h.get(), {&none0, &none1, &b.value, &z.value}) == Error::Ok);
  CHECK(z.data == std::vector<float>{11.0f, 22.0f, 33.0f});
  CHECK(b.data == std::vector<float>{1.0f, 2.0f, 3.0f});
}

TEST_CASE("demo: sin matches upstream bit for bit over a range", "[demo]") {
  Fixture f;
  std::vector<float> xs;
  for (int i = -40; i <= 40; ++i)
    xs.push_back(0.137f * static_cast<float>(i));
  auto h = f.init(blobOf({record("aten.sin.default", static_cast<int>(xs.size()))}));
  REQUIRE(h.ok());
  FloatArg x(xs), y(std::vector<float>(xs.size(), 0.0f));
  REQUIRE(f.run(h.get(), {&x.value, &y.value}) == Error::Ok);
  for (size_t i = 0; i < xs.size(); ++i)
    CHECK(y.data[i] == upstreamSin(xs[i]));
}

TEST_CASE("demo: execute-time refusals", "[demo]") {
  Fixture f;
  FloatArg a({1, 2, 3, 4}), x({1, 2, 3, 4}), b({1, 2, 3, 4}), z({0, 0, 0, 0});
  std::vector<rt::EValue *> args = {&a.value, &x.value, &b.value, &z.value};

  SECTION("mm with numel other than 4 is NotSupported") {
    auto h = f.init(blobOf({record("aten.mm.default", 2)}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), args) == Error::NotSupported);
  }
  SECTION("a dtype other than torch.float32 is NotSupported") {
    auto h = f.init(blobOf({record("aten.add.Tensor", 4, "torch.int64")}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), args) == Error::NotSupported);
    CHECK(z.data == std::vector<float>{0, 0, 0, 0});
  }
  SECTION("the dtype is matched by prefix, as upstream") {
    auto h = f.init(blobOf({record("aten.add.Tensor", 4, "torch.float32_extra")}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), args) == Error::Ok);
    CHECK(z.data == std::vector<float>{1, 2, 3, 4});
  }
  SECTION("unknown ops are skipped") {
    auto h = f.init(blobOf({record("aten.linear.default", 4),
                            record("aten.upsample_nearest2d.vec", 4),
                            record("aten.scaled_dot_product_attention.default", 4),
                            record("sin.default", 4)}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), args) == Error::Ok);
    CHECK(z.data == std::vector<float>{0, 0, 0, 0});
  }
  SECTION("a blob numel larger than the tensor is refused, not overrun") {
    auto h = f.init(blobOf({record("aten.add.Tensor", 5)}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), args) == Error::InvalidArgument);
  }
  SECTION("missing or non-tensor arguments are refused") {
    auto h = f.init(blobOf({record("aten.add.Tensor", 4)}));
    REQUIRE(h.ok());
    CHECK(f.run(h.get(), {&a.value, &x.value}) == Error::InvalidArgument);
    rt::EValue notTensor = rt::EValue::fromInt(3);
    CHECK(f.run(h.get(), {&a.value, &x.value, &notTensor, &z.value}) ==
          Error::InvalidArgument);
  }
  SECTION("a null handle is refused") {
    CHECK(f.run(nullptr, args) == Error::DelegateInvalidHandle);
  }
}

TEST_CASE("demo: malformed blobs and compile specs", "[demo]") {
  Fixture f;
  const std::string good = blobOf({record("aten.sin.default", 2)});

  SECTION("negative count") {
    CHECK(f.init("-1version:0#").error() == Error::InvalidArgument);
  }
  SECTION("bad version") {
    CHECK(f.init(blobOf({record("aten.sin.default", 2)}, -1, 1)).error() ==
          Error::DelegateInvalidCompatibility);
  }
  SECTION("truncated record") {
    const std::string cut = good.substr(0, good.size() - 10);
    CHECK(f.init(cut).error() == Error::InvalidArgument);
  }
  SECTION("record missing a field") {
    CHECK(f.init("1version:0#op:demo::aten.sin.default, dtype:torch.float32"
                 "<debug_handle>1#")
              .error() == Error::InvalidArgument);
    CHECK(f.init("1version:0#op:demo::aten.sin.default, numel:2, dtype:torch.float32#")
              .error() == Error::InvalidArgument);
  }
  SECTION("negative numel") {
    CHECK(f.init(blobOf({record("aten.sin.default", -3)})).error() ==
          Error::InvalidArgument);
  }
  SECTION("COUNT must match the records") {
    CHECK(f.init(blobOf({record("aten.sin.default", 2)}, 2)).error() ==
          Error::InvalidArgument);
    CHECK(f.init(blobOf({record("aten.sin.default", 2), record("aten.sin.default", 2)},
                        1))
              .error() == Error::InvalidArgument);
    CHECK(f.init("999999999999version:0#").error() == Error::InvalidArgument);
    CHECK(f.init("99999999999999999999999version:0#").error() ==
          Error::InvalidArgument);
  }
  SECTION("missing version, count or separator") {
    CHECK(f.init("1#" + record("aten.sin.default", 2)).error() ==
          Error::InvalidArgument);
    CHECK(f.init("version:0#").error() == Error::InvalidArgument);
    CHECK(f.init("0version:0").error() == Error::InvalidArgument);
    CHECK(f.init("").error() == Error::InvalidArgument);
  }
  SECTION("a failed init allocates nothing from the runtime allocator") {
    const size_t before = f.allocator.used();
    CHECK(!f.init(good.substr(0, good.size() - 1)).ok());
    CHECK(f.allocator.used() == before);
  }
  SECTION("missing compile spec is an error, not an abort") {
    f.specs.clear();
    CHECK(f.init(good).error() == Error::InvalidArgument);
  }
  SECTION("compile spec value 5 is refused; 4 is accepted") {
    f.maxValueBytes[0] = 5;
    CHECK(f.init(good).error() == Error::InvalidArgument);
    f.maxValueBytes[0] = 4;
    CHECK(f.init(good).ok());
  }
  SECTION("compile spec 0 is read whatever its key, little-endian int32") {
    uint8_t wide[4] = {0, 1, 0, 0}; // 256
    f.specs[0] = {"anything", wide, 4};
    CHECK(f.init(good).error() == Error::InvalidArgument);
    uint8_t three[4] = {3, 0, 0, 0};
    f.specs[0] = {"anything", three, 4};
    CHECK(f.init(good).ok());
    f.specs[0] = {"empty", nullptr, 0}; // zero-extended: 0
    CHECK(f.init(good).ok());
    f.specs[0] = {"broken", nullptr, 4};
    CHECK(f.init(good).error() == Error::InvalidArgument);
  }
  SECTION("no runtime allocator or no blob") {
    CHECK(f.backend
              .init(f.ctx, {nullptr, 5},
                    rt::Span<const rt::CompileSpec>(f.specs.data(), f.specs.size()))
              .error() == Error::InvalidArgument);
    f.ctx.runtimeAllocator = nullptr;
    CHECK(f.init(good).error() == Error::InvalidArgument);
  }
  SECTION("runtime allocator exhausted") {
    rt::MemoryAllocator tiny(f.memory, 8);
    f.ctx.runtimeAllocator = &tiny;
    CHECK(f.init(good).error() == Error::MemoryAllocationFailed);
  }
}

TEST_CASE("demo: parsing uses the blob size, never a terminator", "[demo]") {
  Fixture f;
  // The bytes after the blob are garbage that looks like more records; the
  // blob is the first `size` bytes only.
  const std::string good = blobOf({record("aten.sin.default", 2)});
  const std::string buffer = good + record("aten.sin.default", 2) + "junk";
  auto h = f.backend.init(f.ctx, {buffer.data(), good.size()},
                          rt::Span<const rt::CompileSpec>(f.specs.data(), 1));
  REQUIRE(h.ok());
  CHECK(static_cast<const demo::DemoHandle *>(h.get())->count == 1);
  // NUL padding after the last record is accepted.
  std::string padded = good;
  padded.append(3, '\0');
  CHECK(f.init(padded).ok());
  // An embedded NUL does not end the blob: the record it breaks is still
  // seen (and refused) instead of being silently dropped.
  std::string withNul =
      blobOf({record("aten.sin.default", 2), record("aten.sin.default", 2)});
  withNul[good.size() + 1] = '\0'; // the 'p' of the second record's "op:"
  CHECK(f.init(withNul).error() == Error::InvalidArgument);
}

TEST_CASE("demo: one handle serves many calls with their own arguments", "[demo]") {
  Fixture f;
  auto h = f.init(blobOf({record("aten.sin.default", 2)}));
  REQUIRE(h.ok());
  FloatArg x1({1.0f, 2.0f}), y1({0, 0}), x2({0.5f, -1.0f}), y2({0, 0});
  REQUIRE(f.run(h.get(), {&x1.value, &y1.value}) == Error::Ok);
  REQUIRE(f.run(h.get(), {&x2.value, &y2.value}) == Error::Ok);
  REQUIRE(f.run(h.get(), {&x1.value, &y1.value}) == Error::Ok);
  CHECK(y1.data == std::vector<float>{upstreamSin(1.0f), upstreamSin(2.0f)});
  CHECK(y2.data == std::vector<float>{upstreamSin(0.5f), upstreamSin(-1.0f)});
}

TEST_CASE("demo: scratch mode stages inputs in the delegate's scratch", "[demo]") {
  Fixture f;
  uint8_t scratchBytes[4] = {8, 0, 0, 0};
  f.specs.push_back({demo::kScratchBytesKey, scratchBytes, 4});
  alignas(8) uint8_t scratch[8] = {};
  std::vector<float> xs = {1.0f, 2.0f, -0.5f, 3.0f, 0.25f};

  SECTION("sin in chunks gives the same result and uses the scratch") {
    f.ctx.scratch = rt::Span<uint8_t>(scratch, sizeof scratch);
    auto h = f.init(blobOf({record("aten.sin.default", 5)}));
    REQUIRE(h.ok());
    FloatArg x(xs), y(std::vector<float>(5, 0.0f));
    REQUIRE(f.run(h.get(), {&x.value, &y.value}) == Error::Ok);
    for (size_t i = 0; i < xs.size(); ++i)
      CHECK(y.data[i] == upstreamSin(xs[i]));
    float last;
    std::memcpy(&last, scratch, sizeof last);
    CHECK(last == 0.25f); // the last chunk staged was [0.25]
  }
  SECTION("mm and add with enough scratch for both operands") {
    scratchBytes[0] = 32;
    alignas(8) uint8_t big[32] = {};
    f.ctx.scratch = rt::Span<uint8_t>(big, sizeof big);
    auto h = f.init(blobOf({record("aten.mm.default", 4), record("aten.add.Tensor", 4)}));
    REQUIRE(h.ok());
    FloatArg a({1, 2, 3, 4}), x({5, 6, 7, 8}), b({1, 1, 1, 1}), z({0, 0, 0, 0});
    REQUIRE(f.run(h.get(), {&a.value, &x.value, &b.value, &z.value}) == Error::Ok);
    CHECK(z.data == std::vector<float>{20, 23, 44, 51});
  }
  SECTION("too little scratch is refused at init") {
    f.ctx.scratch = rt::Span<uint8_t>(scratch, 4);
    CHECK(f.init(blobOf({record("aten.sin.default", 5)})).error() ==
          Error::InvalidArgument);
    f.ctx.scratch = rt::Span<uint8_t>();
    CHECK(f.init(blobOf({record("aten.sin.default", 5)})).error() ==
          Error::InvalidArgument);
  }
  SECTION("without the key no scratch is needed or touched") {
    f.specs.pop_back();
    f.ctx.scratch = rt::Span<uint8_t>(scratch, sizeof scratch);
    auto h = f.init(blobOf({record("aten.sin.default", 5)}));
    REQUIRE(h.ok());
    CHECK(static_cast<const demo::DemoHandle *>(h.get())->scratchBytes == 0);
    FloatArg x(xs), y(std::vector<float>(5, 0.0f));
    REQUIRE(f.run(h.get(), {&x.value, &y.value}) == Error::Ok);
    CHECK(std::all_of(scratch, scratch + 8, [](uint8_t c) { return c == 0; }));
  }
}

#ifdef PTEC_HAVE_BACKEND_REGISTRY
TEST_CASE("demo: registration is idempotent", "[demo]") {
  demo::registerDemoBackend();
  demo::registerDemoBackend();
  CHECK(rt::findBackend(demo::kDemoBackendId) == &demo::demoBackend());
}
#endif
