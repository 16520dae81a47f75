// DataLoader: the bytes of one .pte file, either mapped from disk, copied into
// an aligned buffer we own, or borrowed from the caller. Every read is
// bounds-checked; views stay valid as long as the loader lives.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptec::rt {

class DataLoader {
public:
  /// Map a file read-only (copy-on-write, so a stray kernel write into a
  /// constant cannot fault). `detail` receives the OS error on failure.
  static Result<DataLoader> fromFile(const char *path, std::string *detail = nullptr);
  /// Borrow caller memory; it must outlive the loader and every Program.
  static DataLoader fromBuffer(const void *data, size_t size);
  /// Copy bytes into a buffer aligned to alignof(std::max_align_t).
  static Result<DataLoader> fromBufferCopy(const void *data, size_t size);

  DataLoader(DataLoader &&other) noexcept;
  DataLoader &operator=(DataLoader &&other) noexcept;
  DataLoader(const DataLoader &) = delete;
  DataLoader &operator=(const DataLoader &) = delete;
  ~DataLoader();

  size_t size() const { return size_; }
  const uint8_t *data() const { return data_; }
  /// View of [offset, offset+nbytes); InvalidArgument when it leaves the data.
  Result<Span<const uint8_t>> load(uint64_t offset, uint64_t nbytes) const;

private:
  enum class Kind { Borrowed, Mapped, Owned };
  DataLoader() = default;
  void release();

  Kind kind_ = Kind::Borrowed;
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
  void *owned_ = nullptr; ///< mmap base or malloc'd block
  size_t ownedSize_ = 0;
};

} // namespace ptec::rt
