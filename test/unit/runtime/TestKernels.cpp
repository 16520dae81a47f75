#include "test/unit/runtime/TestKernels.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

namespace ptec::rt::test {
namespace {

bool isFloatTensor(const EValue *v) {
  return v->isTensor() && v->toTensor().dtype() == ScalarType::Float;
}

Error addOut(KernelContext &ctx, Span<EValue *> args) {
  if (!isFloatTensor(args[0]) || !isFloatTensor(args[1]) || !isFloatTensor(args[3]))
    return ctx.fail(Error::InvalidArgument, "add.out: expected float tensors");
  const Tensor &a = args[0]->toTensor(), &b = args[1]->toTensor();
  Tensor &out = args[3]->toTensor();
  if (a.numel() != b.numel())
    return ctx.fail(Error::InvalidArgument, "add.out: %lld vs %lld elements",
                    (long long)a.numel(), (long long)b.numel());
  double alpha = args[2]->isScalar() ? args[2]->scalarAsDouble() : 1.0;
  if (out.resize(a.sizes()) != Error::Ok)
    return ctx.fail(Error::InvalidArgument, "add.out: output too small");
  if (a.numel() > 0 && (!a.data() || !b.data() || !out.data()))
    return ctx.fail(Error::InvalidState, "add.out: missing data");
  for (int64_t i = 0; i < a.numel(); ++i)
    out.dataAs<float>()[i] =
        a.dataAs<const float>()[i] + static_cast<float>(alpha) * b.dataAs<const float>()[i];
  return Error::Ok;
}

Error copyInPlace(KernelContext &ctx, Span<EValue *> args) {
  if (!args[0]->isTensor() || !args[1]->isTensor())
    return ctx.fail(Error::InvalidArgument, "copy_: expected tensors");
  Tensor &dst = args[0]->toTensor();
  const Tensor &src = args[1]->toTensor();
  if (dst.nbytes() != src.nbytes() || !dst.data() || !src.data())
    return ctx.fail(Error::InvalidArgument, "copy_: size mismatch");
  std::memmove(dst.mutableData(), src.data(), src.nbytes());
  return Error::Ok;
}

Error failKernel(KernelContext &ctx, Span<EValue *>) {
  return ctx.fail(Error::InvalidArgument, "boom %d", 7);
}

Error incKernel(KernelContext &ctx, Span<EValue *> args) {
  if (args.size() != 1 || !isFloatTensor(args[0]) || args[0]->toTensor().numel() < 1 ||
      !args[0]->toTensor().data())
    return ctx.fail(Error::InvalidArgument, "inc: expected a float tensor");
  args[0]->toTensor().dataAs<float>()[0] += 1.0f;
  return Error::Ok;
}

Error sumInts(KernelContext &ctx, Span<EValue *> args) {
  if (!args[0]->isIntList() || !isFloatTensor(args[1]) || !args[1]->toTensor().data())
    return ctx.fail(Error::InvalidArgument, "sum_ints: bad args");
  int64_t s = 0;
  for (size_t i = 0; i < args[0]->listSize(); ++i)
    s += args[0]->intListAt(i);
  args[1]->toTensor().dataAs<float>()[0] = static_cast<float>(s);
  return Error::Ok;
}

const KernelEntry kKernels[] = {
    // Same-shape element-wise over raw memory: right for any shared layout.
    {"aten::add.out", addOut, 5, DimOrderSupport::SameDimOrder},
    {"aten::copy_", copyInPlace, 4},
    {"test::fail", failKernel, 1}, {"test::inc", incKernel, 1},
    {"test::sum_ints", sumInts, 2},
};

struct Handle {
  float scale;
};

class TestBackend : public Backend {
public:
  Result<void *> init(BackendInitContext &ctx, ProcessedBlob blob,
                      Span<const CompileSpec> specs) override {
    Handle *h = ctx.runtimeAllocator->allocateArray<Handle>(1);
    if (h == nullptr)
      return Error::MemoryAllocationFailed;
    h->scale = 1.0f;
    if (specs.size() > 0 && specs[0].nbytes == 4)
      std::memcpy(&h->scale, specs[0].value, 4);
    testBackendStats().inits++;
    testBackendStats().lastScratchBytes = ctx.scratch.size();
    testBackendStats().lastBlob.assign(static_cast<const char *>(blob.data), blob.size);
    return static_cast<void *>(h);
  }
  Error execute(BackendExecuteContext &ctx, void *handle, Span<EValue *> args) override {
    if (args.size() != 3 || !isFloatTensor(args[0]) || !isFloatTensor(args[1]) ||
        !isFloatTensor(args[2])) {
      // Says why, as a backend may (the method appends it to its error).
      if (ctx.errorMessage != nullptr && ctx.errorMessageSize > 0)
        std::snprintf(ctx.errorMessage, ctx.errorMessageSize, "expects 3 float tensors, got %zu",
                      args.size());
      return Error::InvalidArgument;
    }
    const Tensor &a = args[0]->toTensor(), &b = args[1]->toTensor();
    Tensor &out = args[2]->toTensor();
    if (a.numel() != b.numel() || out.resize(a.sizes()) != Error::Ok || !a.data() ||
        !b.data() || !out.data())
      return Error::InvalidArgument;
    float s = static_cast<Handle *>(handle)->scale;
    for (int64_t i = 0; i < a.numel(); ++i)
      out.dataAs<float>()[i] = (a.dataAs<const float>()[i] + b.dataAs<const float>()[i]) * s;
    testBackendStats().executes++;
    return Error::Ok;
  }
  void destroy(void *) override { testBackendStats().destroys++; }
};

class QuietBackend : public Backend {
public:
  Result<void *> init(BackendInitContext &ctx, ProcessedBlob, Span<const CompileSpec>) override {
    Handle *h = ctx.runtimeAllocator->allocateArray<Handle>(1);
    if (h == nullptr)
      return Error::MemoryAllocationFailed;
    h->scale = 2.0f;
    return static_cast<void *>(h);
  }
  Error execute(BackendExecuteContext &, void *handle, Span<EValue *> args) override {
    if (args.size() != 3 || !isFloatTensor(args[0]) || !isFloatTensor(args[1]) ||
        !isFloatTensor(args[2]))
      return Error::InvalidArgument;
    const Tensor &a = args[0]->toTensor(), &b = args[1]->toTensor();
    Tensor &out = args[2]->toTensor();
    float s = static_cast<Handle *>(handle)->scale;
    for (int64_t i = 0; i < a.numel() && i < out.numel(); ++i)
      out.dataAs<float>()[i] = (a.dataAs<const float>()[i] + b.dataAs<const float>()[i]) * s;
    return Error::Ok;
  }
};

class FailBackend : public Backend {
public:
  Result<void *> init(BackendInitContext &, ProcessedBlob, Span<const CompileSpec>) override {
    return Error::DelegateInvalidCompatibility;
  }
  Error execute(BackendExecuteContext &, void *, Span<EValue *>) override {
    return Error::Internal;
  }
};

} // namespace

Span<const KernelEntry> testKernels() { return kKernels; }
KernelResolver testResolver() { return KernelResolver(testKernels()); }

TestBackendStats &testBackendStats() {
  static TestBackendStats s;
  return s;
}

void registerTestBackends() {
  static TestBackend ok;
  static FailBackend bad;
  static QuietBackend quiet;
  if (findBackend("RtQuietBackend") == nullptr)
    REQUIRE(registerBackend("RtQuietBackend", &quiet) == Error::Ok);
  if (findBackend("RtTestBackend") == nullptr)
    REQUIRE(registerBackend("RtTestBackend", &ok) == Error::Ok);
  if (findBackend("RtFailBackend") == nullptr)
    REQUIRE(registerBackend("RtFailBackend", &bad) == Error::Ok);
}

} // namespace ptec::rt::test
