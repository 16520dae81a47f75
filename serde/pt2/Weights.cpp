#include "serde/pt2/Weights.h"

#include "serde/pt2/Pt2Error.h"

#include <cstring>

namespace ptec::pt2 {

namespace {
std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k)
    s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

bool mulOverflows(uint64_t a, uint64_t b, uint64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}
}  // namespace

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    strides[k] = running;
    if (sizes[k] > 0 && !__builtin_mul_overflow(running, sizes[k], &running))
      continue;
    if (sizes[k] > 0)
      running = INT64_MAX;  // overflow; the size check rejects such shapes anyway
  }
  return strides;
}

bool operator==(ByteView a, ByteView b) {
  return a.len == b.len && (a.len == 0 || std::memcmp(a.ptr, b.ptr, a.len) == 0);
}

std::string describeTensor(DType dtype, const std::vector<int64_t> &sizes) {
  return std::string(dtypeName(dtype)) + listText(sizes);
}

std::vector<uint8_t> materializeStrided(ByteView storage,
                                        const TensorMeta &meta, const std::string &what,
                                        uint64_t *expandedSoFar,
                                        bool *wholeStorage) {
  if (wholeStorage)
    *wholeStorage = false;
  const size_t elem = dtypeSize(meta.dtype);
  if (elem == 0)
    fail(what + ": dtype " + dtypeName(meta.dtype) + " has no element size");
  if (storage.size() % elem != 0)
    fail(what + ": payload of " + std::to_string(storage.size()) +
         " bytes is not a multiple of the " + dtypeName(meta.dtype) + " element size " +
         std::to_string(elem));
  const std::vector<int64_t> &sizes = meta.sizes;
  std::vector<int64_t> strides = meta.strides.empty() ? contiguousStrides(sizes) : meta.strides;
  if (strides.size() != sizes.size())
    fail(what + ": " + std::to_string(sizes.size()) + " sizes but " +
         std::to_string(strides.size()) + " strides");

  uint64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0)
      fail(what + ": negative size in " + listText(sizes));
    if (mulOverflows(numel, static_cast<uint64_t>(s), numel))
      fail(what + ": element count of " + listText(sizes) + " overflows");
  }
  uint64_t bytes;
  if (mulOverflows(numel, elem, bytes) || bytes > (uint64_t(1) << 48))
    fail(what + ": tensor of sizes " + listText(sizes) + " is too large");
  if (bytes > storage.size()) {
    uint64_t total = bytes + (expandedSoFar ? *expandedSoFar : 0);
    if (total > kMaxExpandedBytes)
      fail(what + ": view " + describeTensor(meta.dtype, sizes) + " needs " +
           std::to_string(bytes) + " bytes from a " + std::to_string(storage.size()) +
           "-byte payload; refusing to expand it (limit " + std::to_string(kMaxExpandedBytes) +
           " bytes of expanded views)");
    if (expandedSoFar)
      *expandedSoFar = total;
  }
  if (numel == 0)
    return {};
  if (storage.empty())
    fail(what + ": the payload is empty (0 bytes), but " + describeTensor(meta.dtype, sizes) +
         " needs " + std::to_string(bytes) +
         " bytes: the archive holds no values for it (was a fake tensor saved?); export the "
         "program with its real weights");

  const uint64_t storageNumel = storage.size() / elem;
  if (meta.storageOffset < 0)
    fail(what + ": negative storage offset " + std::to_string(meta.storageOffset));
  uint64_t last = static_cast<uint64_t>(meta.storageOffset);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0)
      fail(what + ": negative stride in " + listText(strides));
    uint64_t reach;
    if (mulOverflows(static_cast<uint64_t>(sizes[d] - 1), static_cast<uint64_t>(strides[d]), reach) ||
        __builtin_add_overflow(last, reach, &last))
      fail(what + ": strides " + listText(strides) + " overflow");
  }
  if (last >= storageNumel)
    fail(what + ": as_strided view (sizes " + listText(sizes) + ", strides " + listText(strides) +
         ", offset " + std::to_string(meta.storageOffset) + ") reaches element " +
         std::to_string(last) + " but the payload holds only " + std::to_string(storageNumel) +
         " elements");

  const uint8_t *base = storage.data() + meta.storageOffset * elem;
  if (strides == contiguousStrides(sizes) && wholeStorage && meta.storageOffset == 0 &&
      bytes == storage.size()) {
    *wholeStorage = true; // the caller uses the storage itself: no copy
    return {};
  }
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  if (strides == contiguousStrides(sizes)) {
    std::memcpy(out.data(), base, out.size());
    return out;
  }
  // Odometer walk over the index space; the innermost dimension varies fastest.
  const size_t rank = sizes.size();
  std::vector<int64_t> idx(rank, 0);
  uint64_t srcElem = 0;
  for (uint64_t k = 0; k < numel; ++k) {
    std::memcpy(out.data() + k * elem, base + srcElem * elem, elem);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        srcElem += strides[d];
        break;
      }
      srcElem -= static_cast<uint64_t>(sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace ptec::pt2
