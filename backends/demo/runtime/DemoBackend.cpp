#include "backends/demo/runtime/DemoBackend.h"

#include <cstring>
#include <new>

namespace ptec::demo {

using rt::Error;
using rt::Result;

namespace {

// --- Bounded text helpers: [begin, end) views, no terminator assumed. ---

/// First occurrence of `needle` in [begin, end), or nullptr.
const char *findText(const char *begin, const char *end, const char *needle) {
  const size_t n = std::strlen(needle);
  if (begin == nullptr || static_cast<size_t>(end - begin) < n)
    return nullptr;
  for (const char *p = begin; p + n <= end; ++p)
    if (std::memcmp(p, needle, n) == 0)
      return p;
  return nullptr;
}

const char *findChar(const char *begin, const char *end, char c) {
  if (begin == nullptr || begin >= end)
    return nullptr;
  return static_cast<const char *>(std::memchr(begin, c, end - begin));
}

/// Decimal integer at `*p` like strtol (leading blanks, optional sign), but
/// bounded by `end` and overflow-checked. Advances `*p` past the digits.
bool parseInt(const char **p, const char *end, int64_t *out) {
  const char *s = *p;
  while (s < end && (*s == ' ' || *s == '\t'))
    ++s;
  bool negative = false;
  if (s < end && (*s == '-' || *s == '+'))
    negative = *s++ == '-';
  if (s >= end || *s < '0' || *s > '9')
    return false;
  uint64_t v = 0;
  const uint64_t limit = negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
  for (; s < end && *s >= '0' && *s <= '9'; ++s) {
    v = v * 10 + static_cast<uint64_t>(*s - '0');
    if (v > limit)
      return false;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  *p = s;
  return true;
}

bool hasPrefix(const char *text, size_t size, const char *prefix) {
  const size_t n = std::strlen(prefix);
  return size >= n && std::memcmp(text, prefix, n) == 0;
}

/// A compile-spec value as little-endian, zero-extended when shorter than 4
/// bytes (upstream reads a native int from a 1-byte FlatBuffers vector whose
/// padding is zero).
bool readSpecU32(const rt::CompileSpec &spec, uint32_t *out) {
  if (spec.nbytes != 0 && spec.value == nullptr)
    return false;
  const uint8_t *b = static_cast<const uint8_t *>(spec.value);
  uint32_t v = 0;
  const size_t n = spec.nbytes < 4 ? spec.nbytes : 4;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(b[i]) << (8 * i);
  *out = v;
  return true;
}

/// One '#'-terminated record, [begin, end) without the '#'.
bool parseRecord(const char *begin, const char *end, DemoRecord *r) {
  const char *op = findText(begin, end, "op:");
  if (op == nullptr)
    return false;
  const char *name = op + 3;
  const char *nameEnd = findChar(name, end, ',');
  if (nameEnd == nullptr)
    return false;
  const char *numel = findText(nameEnd, end, "numel:");
  if (numel == nullptr)
    return false;
  const char *p = numel + 6;
  if (!parseInt(&p, end, &r->numel) || r->numel < 0)
    return false;
  const char *dtype = findText(p, end, "dtype:");
  if (dtype == nullptr)
    return false;
  dtype += 6;
  const char *dtypeEnd = findText(dtype, end, "<debug_handle>");
  if (dtypeEnd == nullptr)
    return false;
  p = dtypeEnd + std::strlen("<debug_handle>");
  if (!parseInt(&p, end, &r->debugHandle))
    return false;
  r->name = name;
  r->nameSize = static_cast<size_t>(nameEnd - name);
  r->dtype = dtype;
  r->dtypeSize = static_cast<size_t>(dtypeEnd - dtype);
  return true;
}

/// Parses the records in [begin, end); exactly `count` of them must be
/// there. Stores them into `out` when it is not null.
Error walkRecords(const char *begin, const char *end, size_t count,
                  DemoRecord *out) {
  size_t found = 0;
  for (const char *r = begin; r < end;) {
    const char *hash = findChar(r, end, '#');
    if (hash == nullptr) {
      // Bytes after the last record: only NUL padding is allowed; anything
      // else is a truncated record.
      for (; r < end; ++r)
        if (*r != '\0')
          return Error::InvalidArgument;
      break;
    }
    if (found == count)
      return Error::InvalidArgument; // more records than COUNT
    DemoRecord rec;
    if (!parseRecord(r, hash, &rec))
      return Error::InvalidArgument;
    if (out != nullptr)
      out[found] = rec;
    ++found;
    r = hash + 1;
  }
  return found == count ? Error::Ok : Error::InvalidArgument;
}

/// Float tensor argument `i` with at least `numel` elements, or nullptr.
rt::Tensor *floatArg(rt::Span<rt::EValue *> args, size_t i, int64_t numel) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isTensor())
    return nullptr;
  rt::Tensor &t = args[i]->toTensor();
  if (t.dtype() != rt::ScalarType::Float || t.numel() < numel ||
      (numel > 0 && t.data() == nullptr))
    return nullptr;
  return &t;
}

float loadFloat(const uint8_t *p) {
  float f;
  std::memcpy(&f, p, sizeof f);
  return f;
}

// The arithmetic, exactly as upstream: float products and sums, and for sin
// the cube in float with the division and subtraction in double.

/// Calls `f(j, xj)` for every element j of `x` in order, each read through
/// the handle's scratch in chunks when it has scratch (the way upstream
/// stages its inputs), directly otherwise.
template <typename F>
void forEachStaged(const DemoHandle &h, int64_t numel, const float *x, F f) {
  const size_t chunk = h.scratchBytes / sizeof(float);
  if (chunk == 0) {
    for (int64_t j = 0; j < numel; ++j)
      f(j, x[j]);
    return;
  }
  for (int64_t base = 0; base < numel; base += chunk) {
    const size_t n = static_cast<size_t>(
        numel - base < static_cast<int64_t>(chunk) ? numel - base : chunk);
    std::memcpy(h.scratch, x + base, n * sizeof(float));
    for (size_t j = 0; j < n; ++j)
      f(base + int64_t(j), loadFloat(h.scratch + j * sizeof(float)));
  }
}

void runAdd(const DemoHandle &h, int64_t numel, const float *b, float *z) {
  forEachStaged(h, numel, b, [&](int64_t j, float bj) { z[j] = bj + z[j]; });
}

void runMm(const DemoHandle &h, const float *a, const float *x, float *z) {
  float staged[8];
  if (h.scratchBytes >= sizeof staged) {
    std::memcpy(h.scratch, a, 4 * sizeof(float));
    std::memcpy(h.scratch + 4 * sizeof(float), x, 4 * sizeof(float));
    std::memcpy(staged, h.scratch, sizeof staged);
  } else {
    std::memcpy(staged, a, 4 * sizeof(float));
    std::memcpy(staged + 4, x, 4 * sizeof(float));
  }
  const float *sa = staged, *sx = staged + 4;
  z[0] = sa[0] * sx[0] + sa[1] * sx[2];
  z[1] = sa[0] * sx[1] + sa[1] * sx[3];
  z[2] = sa[2] * sx[0] + sa[3] * sx[2];
  z[3] = sa[2] * sx[1] + sa[3] * sx[3];
}

float demoSin(float x) {
  const float cube = x * x * x;
  return static_cast<float>(static_cast<double>(x) -
                            static_cast<double>(cube) / 6.0);
}

void runSin(const DemoHandle &h, int64_t numel, const float *x, float *y) {
  forEachStaged(h, numel, x, [&](int64_t j, float xj) { y[j] = demoSin(xj); });
}

} // namespace

Result<void *> DemoBackend::init(rt::BackendInitContext &ctx,
                                 rt::ProcessedBlob processed,
                                 rt::Span<const rt::CompileSpec> specs) {
  // Compile spec 0, whatever its key, bounds the input size (upstream aborts
  // when it is missing; we refuse).
  if (specs.empty())
    return Error::InvalidArgument;
  uint32_t raw = 0;
  if (!readSpecU32(specs[0], &raw))
    return Error::InvalidArgument;
  if (static_cast<int32_t>(raw) > kDemoMaxValue)
    return Error::InvalidArgument;

  size_t scratchBytes = 0;
  for (const rt::CompileSpec &spec : specs) {
    if (spec.key == nullptr || std::strcmp(spec.key, kScratchBytesKey) != 0)
      continue;
    uint32_t v = 0;
    if (!readSpecU32(spec, &v))
      return Error::InvalidArgument;
    scratchBytes = v;
  }
  if (scratchBytes > ctx.scratch.size() ||
      (scratchBytes != 0 && ctx.scratch.data() == nullptr))
    return Error::InvalidArgument;

  if (processed.data == nullptr && processed.size != 0)
    return Error::InvalidArgument;
  const char *begin = static_cast<const char *>(processed.data);
  const char *end = begin + processed.size;

  // Upstream order: version first, then the record count.
  const char *version = findText(begin, end, "version:");
  if (version == nullptr)
    return Error::InvalidArgument;
  const char *p = version + std::strlen("version:");
  int64_t blobVersion = 0;
  if (!parseInt(&p, end, &blobVersion))
    return Error::InvalidArgument;
  if (blobVersion != kDemoBlobVersion)
    return Error::DelegateInvalidCompatibility;

  p = begin;
  int64_t count = 0;
  if (!parseInt(&p, end, &count) || count < 0)
    return Error::InvalidArgument;
  // Every record takes well over one byte: a larger count cannot be right.
  if (static_cast<uint64_t>(count) > processed.size)
    return Error::InvalidArgument;

  const char *first = findChar(begin, end, '#');
  if (first == nullptr)
    return Error::InvalidArgument;

  if (ctx.runtimeAllocator == nullptr)
    return Error::InvalidArgument;
  // Validate everything before allocating, so a bad blob costs the method's
  // allocator nothing; then fill the array in a second pass.
  PTEC_TRY(walkRecords(first + 1, end, static_cast<size_t>(count), nullptr));
  void *handleMemory =
      ctx.runtimeAllocator->allocate(sizeof(DemoHandle), alignof(DemoHandle));
  DemoRecord *records =
      ctx.runtimeAllocator->allocateArray<DemoRecord>(static_cast<size_t>(count));
  if (handleMemory == nullptr || (count != 0 && records == nullptr))
    return Error::MemoryAllocationFailed;
  for (size_t i = 0; i < static_cast<size_t>(count); ++i)
    new (&records[i]) DemoRecord();
  PTEC_TRY(walkRecords(first + 1, end, static_cast<size_t>(count), records));

  DemoHandle *handle = new (handleMemory) DemoHandle();
  handle->records = records;
  handle->count = static_cast<size_t>(count);
  if (scratchBytes != 0) {
    handle->scratch = ctx.scratch.data();
    handle->scratchBytes = scratchBytes;
  }
  return static_cast<void *>(handle);
}

Error DemoBackend::execute(rt::BackendExecuteContext &ctx, void *handle,
                           rt::Span<rt::EValue *> args) {
  (void)ctx;
  if (handle == nullptr)
    return Error::DelegateInvalidHandle;
  const DemoHandle &h = *static_cast<const DemoHandle *>(handle);
  for (size_t i = 0; i < h.count; ++i) {
    const DemoRecord &r = h.records[i];
    if (!hasPrefix(r.dtype, r.dtypeSize, "torch.float32"))
      return Error::NotSupported;
    if (hasPrefix(r.name, r.nameSize, "demo::aten.add.Tensor")) {
      rt::Tensor *b = floatArg(args, 2, r.numel);
      rt::Tensor *z = floatArg(args, 3, r.numel);
      if (b == nullptr || z == nullptr)
        return Error::InvalidArgument;
      runAdd(h, r.numel, b->dataAs<const float>(), z->dataAs<float>());
    } else if (hasPrefix(r.name, r.nameSize, "demo::aten.mm.default")) {
      if (r.numel != 4)
        return Error::NotSupported;
      rt::Tensor *a = floatArg(args, 0, 4);
      rt::Tensor *x = floatArg(args, 1, 4);
      rt::Tensor *z = floatArg(args, 3, 4);
      if (a == nullptr || x == nullptr || z == nullptr)
        return Error::InvalidArgument;
      runMm(h, a->dataAs<const float>(), x->dataAs<const float>(),
            z->dataAs<float>());
    } else if (hasPrefix(r.name, r.nameSize, "demo::aten.sin.default")) {
      rt::Tensor *x = floatArg(args, 0, r.numel);
      rt::Tensor *y = floatArg(args, 1, r.numel);
      if (x == nullptr || y == nullptr)
        return Error::InvalidArgument;
      runSin(h, r.numel, x->dataAs<const float>(), y->dataAs<float>());
    }
    // Any other op (linear, SDPA, upsample, ...) is skipped, as upstream.
  }
  return Error::Ok;
}

DemoBackend &demoBackend() {
  static DemoBackend backend;
  return backend;
}

} // namespace ptec::demo
