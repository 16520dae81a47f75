#include "runtime/executor/FlatTensorData.h"

#include "serde/pte/flat_tensor_generated.h"

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
  flatbuffers::Verifier verifier(p, base == 0 ? n : base, 64, 1u << 20);
  if (!ft::VerifyFlatTensorBuffer(verifier))
    return fail("the FlatTensor flatbuffer does not verify");
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
  }
  return Error::Ok;
}

Result<Span<const uint8_t>> FlatTensorData::get(const char *key) const {
  auto it = key ? entries_.find(key) : entries_.end();
  if (it == entries_.end())
    return Error::NotFound;
  return it->second;
}

} // namespace ptec::rt
