#include "runtime/executor/FlatTensorData.h"

#include "serde/pte/flat_tensor_generated.h"
#include "serde/pte/program_generated.h"

#include <algorithm>
#include <cstring>

namespace ptec::rt {
namespace ft = ptec_flat_tensor;

namespace {
constexpr size_t kHeaderAt = 8;
constexpr uint32_t kMinHeaderLength = 40;

uint64_t readLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
// Narrows a verifier failure down to one table, so that a message can say
// which part of the file is damaged.
std::string locateVerifyFailure(const uint8_t *p, size_t n) {
  const uint64_t rootAt = readLE(p, 4);
  if (rootAt < 8 || rootAt > n - 4)
    return "the root table offset " + std::to_string(rootAt) + " is outside it";
  const auto *table = reinterpret_cast<const flatbuffers::Table *>(p + rootAt);
  const auto *root = reinterpret_cast<const ft::FlatTensor *>(table);
  {
    flatbuffers::Verifier v(p, n, 64, 1u << 20);
    if (!v.VerifyTableStart(reinterpret_cast<const uint8_t *>(table)))
      return "the root FlatTensor table at offset " + std::to_string(rootAt) + " is malformed";
  }
  {
    flatbuffers::Verifier v(p, n, 64, 1u << 20);
    if (!v.VerifyTableStart(reinterpret_cast<const uint8_t *>(table)) ||
        !table->VerifyOffset(v, ft::FlatTensor::VT_SEGMENTS) || !v.VerifyVector(root->segments()))
      return "the segments vector is malformed";
  }
  for (uint32_t i = 0; root->segments() && i < root->segments()->size(); ++i) {
    flatbuffers::Verifier v(p, n, 64, 1u << 20);
    if (!v.VerifyTable(root->segments()->Get(i)))
      return "segments[" + std::to_string(i) + "] is malformed";
  }
  {
    flatbuffers::Verifier v(p, n, 64, 1u << 20);
    if (!v.VerifyTableStart(reinterpret_cast<const uint8_t *>(table)) ||
        !table->VerifyOffset(v, ft::FlatTensor::VT_NAMED_DATA) ||
        !v.VerifyVector(root->named_data()))
      return "the named_data vector is malformed";
  }
  for (uint32_t i = 0; root->named_data() && i < root->named_data()->size(); ++i) {
    flatbuffers::Verifier v(p, n, 64, 1u << 20);
    if (!v.VerifyTable(root->named_data()->Get(i)))
      return "named_data[" + std::to_string(i) + "] (its key, segment index or tensor_layout) " +
             "is malformed";
  }
  return "a FlatTensor field outside segments and named_data is malformed";
}

} // namespace

Result<std::unique_ptr<FlatTensorData>> FlatTensorData::load(const char *path,
                                                             std::string *detail) {
  auto loader = DataLoader::fromFile(path, detail);
  if (!loader.ok())
    return loader.error();
  std::unique_ptr<FlatTensorData> d(new FlatTensorData(std::move(loader.get())));
  if (Error e = d->parse(detail); e != Error::Ok)
    return e;
  return d;
}

Result<std::unique_ptr<FlatTensorData>> FlatTensorData::fromBuffer(const void *data, size_t size,
                                                                   std::string *detail) {
  std::unique_ptr<FlatTensorData> d(new FlatTensorData(DataLoader::fromBuffer(data, size)));
  if (Error e = d->parse(detail); e != Error::Ok)
    return e;
  return d;
}

Error FlatTensorData::parse(std::string *detail) {
  auto fail = [&](const std::string &why) {
    if (detail)
      *detail = why;
    return Error::InvalidProgram;
  };
  const uint8_t *p = loader_.data();
  size_t n = loader_.size();
  if (n < kHeaderAt + kMinHeaderLength)
    return fail("not a .ptd file: " + std::to_string(n) + " bytes is too short");
  if (std::memcmp(p + 4, "FT", 2) != 0)
    return fail("not a .ptd file: the flatbuffer identifier is not FT..");
  if (std::memcmp(p + 4, "FT01", 4) != 0)
    return fail("unsupported .ptd version: identifier '" + std::string(p + 4, p + 8) +
                "' (this runtime reads FT01)");
  if (std::memcmp(p + kHeaderAt, "FH01", 4) != 0)
    return fail("the .ptd header magic at byte 8 is not FH01");
  uint64_t length = readLE(p + kHeaderAt + 4, 4);
  uint64_t fbSize = readLE(p + kHeaderAt + 16, 8);
  uint64_t base = readLE(p + kHeaderAt + 24, 8);
  uint64_t dataSize = readLE(p + kHeaderAt + 32, 8);
  if (length < kMinHeaderLength)
    return fail("header length " + std::to_string(length) + " < 40");
  if (base > n || dataSize > n - base)
    return fail("segment data [" + std::to_string(base) + ", +" + std::to_string(dataSize) +
                ") runs past the file (" + std::to_string(n) + " bytes)");
  if (fbSize > base)
    return fail("flatbuffer_size " + std::to_string(fbSize) +
                " runs into the segment data at " + std::to_string(base));
  const size_t fbBytes = base == 0 ? n : base;
  flatbuffers::Verifier verifier(p, fbBytes, 64, 1u << 20);
  if (!ft::VerifyFlatTensorBuffer(verifier))
    return fail("the FlatTensor flatbuffer (bytes [0, " + std::to_string(fbBytes) +
                ") of the file) does not verify: " + locateVerifyFailure(p, fbBytes));
  const ft::FlatTensor *root = ft::GetFlatTensor(p);
  const auto *segments = root->segments();
  const auto *named = root->named_data();
  if (named == nullptr)
    return Error::Ok;
  for (uint32_t i = 0; i < named->size(); ++i) {
    const ft::NamedData *e = named->Get(i);
    std::string where = "named_data[" + std::to_string(i) + "]";
    if (e->key() == nullptr)
      return fail(where + ": no key");
    if (segments == nullptr || e->segment_index() >= segments->size())
      return fail(where + " '" + e->key()->str() + "': segment_index " +
                  std::to_string(e->segment_index()) + " out of range");
    const ft::DataSegment *s = segments->Get(e->segment_index());
    if (s->offset() > dataSize || s->size() > dataSize - s->offset())
      return fail(where + " '" + e->key()->str() + "': segment " +
                  std::to_string(e->segment_index()) + " runs past the segment data");
    if (!entries_.emplace(e->key()->str(),
                          Span<const uint8_t>(p + base + s->offset(), s->size()))
             .second)
      return fail(where + ": key '" + e->key()->str() + "' appears twice");
    if (const ft::TensorLayout *l = e->tensor_layout()) {
      TensorLayoutRef ref;
      ref.scalarType = l->scalar_type();
      if (l->sizes())
        ref.sizes = Span<const int32_t>(l->sizes()->data(), l->sizes()->size());
      if (l->dim_order())
        ref.dimOrder = Span<const uint8_t>(l->dim_order()->data(), l->dim_order()->size());
      layouts_.emplace(e->key()->str(), ref);
    }
  }
  return Error::Ok;
}

Result<Span<const uint8_t>> FlatTensorData::get(const char *key) const {
  auto it = key ? entries_.find(key) : entries_.end();
  if (it == entries_.end())
    return Error::NotFound;
  return it->second;
}

Result<TensorLayoutRef> FlatTensorData::layout(const char *key) const {
  auto it = key ? layouts_.find(key) : layouts_.end();
  if (it == layouts_.end())
    return Error::NotFound;
  return it->second;
}

namespace {
std::string describe(const TensorLayoutRef &l) {
  std::string s = toString(static_cast<ScalarType>(l.scalarType));
  s += " [";
  for (size_t i = 0; i < l.sizes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(l.sizes[i]);
  s += "] dim order [";
  for (size_t i = 0; i < l.dimOrder.size(); ++i)
    s += (i ? ", " : "") + std::to_string(l.dimOrder[i]);
  return s + "]";
}

bool sameDimOrder(const TensorLayoutRef &a, const TensorLayoutRef &b) {
  // An empty dim order means 0..rank-1.
  const size_t rank = a.sizes.size();
  if ((!a.dimOrder.empty() && a.dimOrder.size() != rank) ||
      (!b.dimOrder.empty() && b.dimOrder.size() != rank))
    return a.dimOrder.size() == b.dimOrder.size() &&
           std::equal(a.dimOrder.begin(), a.dimOrder.end(), b.dimOrder.begin());
  for (size_t i = 0; i < rank; ++i) {
    size_t x = a.dimOrder.empty() ? i : a.dimOrder[i];
    size_t y = b.dimOrder.empty() ? i : b.dimOrder[i];
    if (x != y)
      return false;
  }
  return true;
}
} // namespace

TensorLayoutRef FlatTensorData::programLayout(const executorch_flatbuffer::Tensor &t) {
  TensorLayoutRef ref;
  ref.scalarType = static_cast<int8_t>(t.scalar_type());
  if (t.sizes())
    ref.sizes = Span<const int32_t>(t.sizes()->data(), t.sizes()->size());
  if (t.dim_order())
    ref.dimOrder = Span<const uint8_t>(t.dim_order()->data(), t.dim_order()->size());
  return ref;
}

std::string FlatTensorData::layoutMismatch(const char *key, const TensorLayoutRef &stored,
                                           const TensorLayoutRef &program) {
  bool same = stored.scalarType == program.scalarType &&
              stored.sizes.size() == program.sizes.size() &&
              std::equal(stored.sizes.begin(), stored.sizes.end(), program.sizes.begin()) &&
              sameDimOrder(stored, program);
  if (same)
    return "";
  return std::string("external tensor '") + (key ? key : "") + "': the .ptd's tensor_layout is " +
         describe(stored) + ", the program's tensor is " + describe(program);
}

} // namespace ptec::rt
