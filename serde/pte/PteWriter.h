// The .pte writer: turns a program in the flatbuffers object API plus its
// side data (constant tensor bytes, initial mutable state, delegate blobs)
// into the bytes of a finished .pte file: flatbuffer, extended header and
// segments, laid out as spec/pte-format.md section 2 says. The emitter is its
// one caller; pte-inspect reads what it writes.
#pragma once

#include "serde/pte/ContentIndex.h"
#include "serde/pte/FileChunks.h"
#include "serde/pte/PtdWriter.h"
#include "serde/pte/program_generated.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptec::pte {

// What the emitter fills. Segment-related Program fields (segments,
// constant_segment, mutable_data_segments, backend_delegate_data,
// constant_buffer, named_data) stay empty: the writer derives them.
struct ProgramBuilder {
  executorch_flatbuffer::ProgramT program;

  // Constant tensor bytes, deduplicated by content. Returns the
  // Tensor.data_buffer_idx to use (>= 1; 0 is the empty placeholder).
  uint32_t addConstant(const uint8_t *data, size_t size);
  // The same, taking the bytes over (no copy when they are new).
  uint32_t addConstant(std::vector<uint8_t> &&bytes);
  // The same, borrowing: the bytes must stay valid until the program is
  // written (the emitter lends MLIR's weight blobs, so weights are not
  // copied before they reach the file).
  uint32_t addConstantView(const uint8_t *data, size_t size);
  // Bytes of constant `i`, owned or borrowed.
  std::pair<const uint8_t *, size_t> constantBytes(size_t i) const {
    return i < borrowed_.size() && borrowed_[i].first
               ? borrowed_[i]
               : std::make_pair(constants_[i].data(), constants_[i].size());
  }
  // Initial state of a planned mutable tensor. Returns its index (>= 1) into
  // the mutable-data segment's offsets, to use as Tensor.data_buffer_idx.
  uint32_t addMutableData(const uint8_t *data, size_t size);
  // A delegate's processed blob, deduplicated by bytes. Returns the index to
  // put in BackendDelegate.processed = {INLINE, index}; the writer moves
  // non-empty blobs into segments and rewrites the reference.
  uint32_t addDelegateBlob(const uint8_t *data, size_t size);
  // Bytes a delegate names by key (Program.named_data, one segment each).
  // A key added twice must name the same bytes (false otherwise); the
  // second time is a no-op, so delegates and methods share the entry.
  bool addNamedData(const std::string &key, const uint8_t *data, size_t size);
  const std::map<std::string, std::vector<uint8_t>> &namedData() const { return named_; }

  // Index 0 of constants() and mutableData() is the empty placeholder.
  const std::vector<std::vector<uint8_t>> &constants() const { return constants_; }
  const std::vector<std::vector<uint8_t>> &mutableData() const { return mutable_; }
  const std::vector<std::vector<uint8_t>> &delegateBlobs() const { return blobs_; }

  // Tensors kept outside the program, by key (fully qualified name): the
  // caller writes them to a .ptd (serializePtd). Not part of the .pte.
  std::map<std::string, PtdEntry> external;

private:
  std::vector<std::vector<uint8_t>> constants_{1};
  // Parallel to constants_ where a constant is borrowed ({null, 0} if not).
  std::vector<std::pair<const uint8_t *, size_t>> borrowed_;
  std::vector<std::vector<uint8_t>> mutable_{1};
  std::vector<std::vector<uint8_t>> blobs_;
  std::map<std::string, std::vector<uint8_t>> named_; // key order: deterministic
  ContentIndex constantIndex_, blobIndex_;  // by content (ContentIndex.h)
  uint32_t internConstant(const uint8_t *d, size_t n, std::vector<uint8_t> *owned);
};

struct WriteOptions {
  uint64_t segmentAlignment = 128;       // power of two
  uint64_t constantTensorAlignment = 16; // power of two
  bool extractDelegateSegments = true;
};

// The finished .pte bytes; empty when the program cannot be written (use
// trySerializeProgram to learn why). The builder is not modified, so calling
// this twice gives identical bytes.
std::vector<uint8_t> serializeProgram(ProgramBuilder &b,
                                      const WriteOptions &o = {});

// Same, reporting bad input (a null table, an out-of-range blob index, a
// segment field filled by the caller) in *err, naming the field.
bool trySerializeProgram(const ProgramBuilder &b, const WriteOptions &o,
                         std::vector<uint8_t> *out, std::string *err);

// The bytes trySerializeProgram would give, written to `path` atomically
// without building them in memory: segment data (the weights) goes from the
// builder straight to the file, so a large program costs its weights once.
bool writeProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      std::string *err);
// The same, staged in `out` (written when `out` commits).
bool stageProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      OutputFiles &out, std::string *err);

// Layout constants of the extended header (spec section 2.2).
inline constexpr size_t kExtendedHeaderOffset = 8;
inline constexpr size_t kExtendedHeaderSize = 32;
inline constexpr char kExtendedHeaderMagic[4] = {'e', 'h', '0', '0'};

} // namespace ptec::pte
