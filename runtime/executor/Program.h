// Program: a verified view of one .pte file. Loading follows the reader rules
// of spec section 2.2 (64-byte minimum, 24- or 32-byte extended header, file
// size, segment data after the program; the same code pte-inspect runs),
// checks the program buffer's alignment and identifier, runs the
// flatbuffers Verifier (unless the caller vouches for the bytes), and
// bounds-checks every segment against the file, the constant segment and the
// mutable-data segment. Methods are
// built from it with Method::load (or through Module).
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/executor/DataLoader.h"
#include "runtime/executor/PteContainer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace executorch_flatbuffer {
struct Program;
struct ExecutionPlan;
struct BackendDelegateDataReference;
struct Tensor;
} // namespace executorch_flatbuffer

namespace ptec::rt {

enum class Verification {
  /// Run the flatbuffers Verifier over the program buffer (default).
  Full,
  /// Only check the root offset. For buffers the caller produced itself.
  Minimal,
};

/// Parsed extended header ("eh00"); absent for plain flatbuffers.
struct ExtendedHeader {
  uint32_t length = 0; ///< 32 today; 24 in files of ExecuTorch < 1.0
  uint64_t programSize = 0;
  uint64_t segmentBaseOffset = 0;
  /// 0 when the header is shorter than 32 bytes (the field is absent).
  uint64_t segmentDataSize = 0;
};

class Program {
public:
  /// `loader` must outlive the Program. On failure `detail` (if given) says
  /// which field is wrong.
  static Result<std::unique_ptr<Program>> load(const DataLoader &loader,
                                               Verification verification = Verification::Full,
                                               std::string *detail = nullptr);

  /// The container rules (runtime/executor/PteContainer.h) over a whole
  /// file: InvalidProgram with `detail` for the first one that refuses it.
  static Error checkFile(Span<const uint8_t> file, ContainerInfo &info,
                         std::string *detail = nullptr);

  const executorch_flatbuffer::Program *flat() const { return flat_; }
  size_t numMethods() const;
  std::vector<std::string> methodNames() const;
  /// The plan with exactly this name; NotFound otherwise.
  Result<const executorch_flatbuffer::ExecutionPlan *> plan(const char *name) const;

  bool hasExtendedHeader() const { return hasHeader_; }
  const ExtendedHeader &extendedHeader() const { return header_; }
  /// Bytes of segment `index`. Like upstream, a segment that lies outside the
  /// file is an error only when read (InvalidProgram, with `detail`).
  Result<Span<const uint8_t>> segment(size_t index, std::string *detail = nullptr) const;

  /// Constant tensor data: entry `bufferIdx` of the constant segment, which
  /// must hold `nbytes` bytes.
  Result<const uint8_t *> constantData(uint32_t bufferIdx, size_t nbytes,
                                       std::string *detail = nullptr) const;
  /// Initial bytes of a planned mutable tensor (mutable_data_segments[0]).
  Result<const uint8_t *> mutableData(uint32_t bufferIdx, size_t nbytes,
                                      std::string *detail = nullptr) const;
  /// Processed bytes of a delegate: INLINE is a view into the program buffer,
  /// SEGMENT a view of the segment.
  Result<ProcessedBlob> delegateData(const executorch_flatbuffer::BackendDelegateDataReference *ref,
                                     std::string *detail = nullptr) const;
  /// Named data by key: the program's named_data table first, then the
  /// external data map (a .ptd) when one is set; NotFound when absent.
  Result<Span<const uint8_t>> namedData(const char *key) const;
  /// Data kept outside the program (EXTERNAL tensors, backends' named
  /// data); must outlive the program. Null: none.
  void setExternalData(const NamedDataMap *data) { external_ = data; }
  const NamedDataMap *externalData() const { return external_; }
  /// For an EXTERNAL tensor found in the external data map: why the layout
  /// recorded there (a .ptd's tensor_layout) is not `t`'s, naming the key and
  /// both layouts; "" when they agree or nothing is recorded.
  std::string externalLayoutProblem(const char *key,
                                    const executorch_flatbuffer::Tensor &t) const;

private:
  Program() = default;
  Error loadSegments(std::string *detail);

  const DataLoader *loader_ = nullptr;
  const NamedDataMap *external_ = nullptr;
  const executorch_flatbuffer::Program *flat_ = nullptr;
  Span<const uint8_t> programBytes_;
  ContainerInfo container_;
  bool hasHeader_ = false;
  ExtendedHeader header_;
  std::vector<Span<const uint8_t>> segments_;
  std::vector<std::string> segmentProblems_; ///< why segment i cannot be read; "" if it can
  Span<const uint8_t> constantSegment_;
  const void *constantOffsets_ = nullptr; ///< flatbuffers::Vector<uint64_t>*
  bool hasMutableSegment_ = false;
  uint32_t mutableSegmentIndex_ = 0;
  Span<const uint8_t> mutableSegment_;
  const void *mutableOffsets_ = nullptr;
};

} // namespace ptec::rt
