// Test-only helpers: build .pte files from the flatbuffers object API
// (executorch_flatbuffer::ProgramT), with segments and the extended header,
// plus a ProgramT builder with one-line helpers for values and instructions.
#pragma once

#include "serde/pte/program_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::rt::test {

namespace fb = executorch_flatbuffer;

/// Serialize `program` (its `segments` are replaced by `segments` laid out at
/// 128-byte alignment). Unlike ProgramT's generated Pack, every vector the
/// runtime requires is written even when empty, as the upstream writer does.
/// Adds the 32-byte extended header when the segment data is non-empty.
std::vector<uint8_t> serialize(fb::ProgramT &program,
                               const std::vector<std::vector<uint8_t>> &segments = {});

/// Builds one ExecutionPlan of a ProgramT.
class PlanBuilder {
public:
  explicit PlanBuilder(fb::ExecutionPlanT &plan);

  /// Planned float32 tensor in arena memory_id (offset in bytes); grows the
  /// plan's arena to fit.
  int plannedTensor(std::vector<int32_t> sizes, uint32_t memoryId, uint64_t offset,
                    fb::ScalarType dtype = fb::ScalarType::FLOAT, uint32_t dataBufferIdx = 0);
  /// Unplanned tensor; data from the constant segment when dataBufferIdx > 0.
  int tensor(std::vector<int32_t> sizes, uint32_t dataBufferIdx = 0,
             fb::ScalarType dtype = fb::ScalarType::FLOAT);
  int intValue(int64_t v);
  int boolValue(bool v);
  int doubleValue(double v);
  int noneValue();
  int intList(std::vector<int64_t> items);
  int tensorList(std::vector<int32_t> items);
  int optionalTensorList(std::vector<int32_t> items);

  int op(const std::string &name, const std::string &overload);
  void kernelCall(int op, std::vector<int32_t> args);
  void delegateCall(int delegate, std::vector<int32_t> args);
  void move(int from, int to);
  void jumpFalse(int cond, int destination);
  void freeValue(int value);
  /// Delegate with an INLINE blob index (into Program.backend_delegate_data).
  int delegate(const std::string &id, uint32_t inlineIndex,
               std::vector<std::pair<std::string, std::vector<uint8_t>>> specs = {});

  fb::TensorT &tensorAt(int value);
  fb::ExecutionPlanT &plan() { return plan_; }
  fb::ChainT &chain() { return *plan_.chains[0]; }

private:
  int push(fb::EValueT &&v);
  fb::ExecutionPlanT &plan_;
};

/// A ProgramT with one plan named `name` (arena sizes [0, 0]).
fb::ExecutionPlanT &addPlan(fb::ProgramT &program, const std::string &name);
/// Add an inline delegate blob; returns its index.
uint32_t addInlineBlob(fb::ProgramT &program, const std::string &bytes);
/// Points delegate `d`'s processed blob at segment `segmentIndex`.
void useSegmentBlob(fb::BackendDelegateT &d, uint32_t segmentIndex);
/// Set Program.constant_segment over segment `segmentIndex` from blobs:
/// returns the segment bytes (placeholder at 0, entries padded to 16).
std::vector<uint8_t> constantSegment(fb::ProgramT &program, uint32_t segmentIndex,
                                     const std::vector<std::vector<uint8_t>> &entries);
/// Empty constant segment ({segment_index 0, offsets [0]}) as upstream writes.
void emptyConstantSegment(fb::ProgramT &program);
/// Add a mutable-data segment over segment `segmentIndex` (offsets [0, 0]:
/// the placeholder and one entry at the segment's start).
void addMutableSegment(fb::ProgramT &program, uint32_t segmentIndex);

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  const uint8_t *p = reinterpret_cast<const uint8_t *>(v.data());
  return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}

} // namespace ptec::rt::test
