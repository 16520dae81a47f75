#include "serde/pte/PteWriter.h"

#include "serde/io/MappedFile.h"
#include "serde/pte/ContentIndex.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;
using flatbuffers::Offset;

namespace {


uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
bool isPow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void putLE(std::vector<uint8_t> &buf, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    buf[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// Where every delegate blob ended up.
struct BlobPlacement {
  fb::DataLocation location = fb::DataLocation::INLINE;
  uint32_t index = 0;
  bool used = false;
};

// Segment-related Program fields, computed by the writer.
struct Layout {
  std::vector<std::pair<uint64_t, uint64_t>> segments; // {offset, size}
  std::vector<uint64_t> constantOffsets;
  std::vector<uint64_t> mutableOffsets;
  uint32_t mutableSegment = 0;
  bool hasMutable = false;
  std::vector<uint32_t> inlineBlobs; // blob ids kept in backend_delegate_data
  std::vector<BlobPlacement> blobs;  // by blob id
  std::vector<std::pair<const std::string *, uint32_t>> named; // key, segment
  // The segment data as pieces of the builder's own bytes, each at its
  // offset from the segment base; zeros between them. The bytes are copied
  // once, into the finished file (weights are most of a large program).
  struct Piece {
    uint64_t at;
    const uint8_t *data;
    size_t size;
  };
  std::vector<Piece> pieces;
  uint64_t segmentDataSize = 0;
};

// Packs the object API with the low-level builder in upstream's order:
// children first in field declaration order, then the table's fields in
// declaration order (spec section 2.9). Unlike the generated Pack, vectors
// and strings the runtime requires are written even when empty.
class Packer {
public:
  Packer(flatbuffers::FlatBufferBuilder &fbb, const Layout &layout)
      : fbb_(fbb), layout_(layout) {}

  // The root table; call once. On bad input `error` names the field. The
  // entry point is at the end of the class: the helpers it calls return
  // `auto` and must be defined first.
  Offset<fb::Program> program(const fb::ProgramT &p, const ProgramBuilder &side);
  std::string error;

private:
  flatbuffers::FlatBufferBuilder &fbb_;
  const Layout &layout_;

  template <typename T> auto vec(const std::vector<T> &v) {
    return fbb_.CreateVector(v);
  }
  auto str(const std::string &s) { return fbb_.CreateString(s); }

  void fail(const std::string &where, const std::string &what) {
    if (error.empty())
      error = where + ": " + what;
  }

  // A vector of tables, elements packed in index order. Null entries are
  // reported (the object API allows them; the format does not).
  template <typename T, typename F>
  auto tables(const std::vector<std::unique_ptr<T>> &v, const std::string &where,
              F packOne) {
    using R = decltype(packOne(*v[0], where));
    std::vector<R> offs;
    offs.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      std::string w = where + "[" + std::to_string(i) + "]";
      if (!v[i]) {
        fail(w, "is null"); // skipped: the builder must never see offset 0
        continue;
      }
      offs.push_back(packOne(*v[i], w));
    }
    return fbb_.CreateVector(offs);
  }

  Offset<fb::SubsegmentOffsets> subsegment(uint32_t seg,
                                           const std::vector<uint64_t> &offs) {
    auto offsets = vec(offs);
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint32_t>(fb::SubsegmentOffsets::VT_SEGMENT_INDEX, seg, 0);
    fbb_.AddOffset(fb::SubsegmentOffsets::VT_OFFSETS, offsets);
    return Offset<fb::SubsegmentOffsets>(fbb_.EndTable(start));
  }

  Offset<fb::AllocationDetails> allocation(const fb::AllocationDetailsT &a) {
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint32_t>(fb::AllocationDetails::VT_MEMORY_ID, a.memory_id, 0);
    fbb_.AddElement<uint32_t>(fb::AllocationDetails::VT_MEMORY_OFFSET_LOW,
                              a.memory_offset_low, 0);
    fbb_.AddElement<uint32_t>(fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH,
                              a.memory_offset_high, 0);
    return Offset<fb::AllocationDetails>(fbb_.EndTable(start));
  }

  Offset<fb::ExtraTensorInfo> extraInfo(const fb::ExtraTensorInfoT &e) {
    Offset<flatbuffers::String> fqn;
    if (!e.fully_qualified_name.empty())
      fqn = str(e.fully_qualified_name);
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint64_t>(fb::ExtraTensorInfo::VT_MUTABLE_DATA_SEGMENTS_IDX,
                              e.mutable_data_segments_idx, 0);
    if (!e.fully_qualified_name.empty())
      fbb_.AddOffset(fb::ExtraTensorInfo::VT_FULLY_QUALIFIED_NAME, fqn);
    fbb_.AddElement<int8_t>(fb::ExtraTensorInfo::VT_LOCATION,
                            static_cast<int8_t>(e.location), 0);
    fbb_.AddElement<int8_t>(fb::ExtraTensorInfo::VT_DEVICE_TYPE,
                            static_cast<int8_t>(e.device_type), 0);
    fbb_.AddElement<int8_t>(fb::ExtraTensorInfo::VT_DEVICE_INDEX, e.device_index, 0);
    return Offset<fb::ExtraTensorInfo>(fbb_.EndTable(start));
  }

  Offset<fb::Tensor> tensor(const fb::TensorT &t) {
    auto sizes = vec(t.sizes);
    auto dimOrder = vec(t.dim_order);
    Offset<fb::AllocationDetails> alloc;
    if (t.allocation_info)
      alloc = allocation(*t.allocation_info);
    Offset<fb::ExtraTensorInfo> extra;
    if (t.extra_tensor_info)
      extra = extraInfo(*t.extra_tensor_info);
    auto start = fbb_.StartTable();
    fbb_.AddElement<int8_t>(fb::Tensor::VT_SCALAR_TYPE,
                            static_cast<int8_t>(t.scalar_type), 0);
    fbb_.AddElement<int32_t>(fb::Tensor::VT_STORAGE_OFFSET, t.storage_offset, 0);
    fbb_.AddOffset(fb::Tensor::VT_SIZES, sizes);
    fbb_.AddOffset(fb::Tensor::VT_DIM_ORDER, dimOrder);
    fbb_.AddElement<uint8_t>(fb::Tensor::VT_REQUIRES_GRAD, t.requires_grad, 0);
    fbb_.AddElement<uint32_t>(fb::Tensor::VT_DATA_BUFFER_IDX, t.data_buffer_idx, 0);
    if (t.allocation_info)
      fbb_.AddOffset(fb::Tensor::VT_ALLOCATION_INFO, alloc);
    fbb_.AddElement<int8_t>(fb::Tensor::VT_LAYOUT, t.layout, 0);
    fbb_.AddElement<int8_t>(fb::Tensor::VT_SHAPE_DYNAMISM,
                            static_cast<int8_t>(t.shape_dynamism), 0);
    if (t.extra_tensor_info)
      fbb_.AddOffset(fb::Tensor::VT_EXTRA_TENSOR_INFO, extra);
    return Offset<fb::Tensor>(fbb_.EndTable(start));
  }

  // A table whose only field is a vector (the list kinds).
  template <typename V> flatbuffers::uoffset_t itemsTable(V items) {
    auto start = fbb_.StartTable();
    fbb_.AddOffset(4, items); // slot 0 of every *List table
    return fbb_.EndTable(start);
  }

  flatbuffers::uoffset_t kernelValue(const fb::KernelTypesUnion &u,
                                     const std::string &w) {
    using K = fb::KernelTypes;
    switch (u.type) {
    case K::Null:
      return fbb_.EndTable(fbb_.StartTable());
    case K::Int: {
      auto start = fbb_.StartTable();
      fbb_.AddElement<int64_t>(fb::Int::VT_INT_VAL, u.AsInt()->int_val, 0);
      return fbb_.EndTable(start);
    }
    case K::Bool: {
      auto start = fbb_.StartTable();
      fbb_.AddElement<uint8_t>(fb::Bool::VT_BOOL_VAL, u.AsBool()->bool_val, 0);
      return fbb_.EndTable(start);
    }
    case K::Double: {
      auto start = fbb_.StartTable();
      fbb_.AddElement<double>(fb::Double::VT_DOUBLE_VAL, u.AsDouble()->double_val,
                              0.0);
      return fbb_.EndTable(start);
    }
    case K::Tensor:
      return tensor(*u.AsTensor()).o;
    case K::String: {
      auto s = str(u.AsString()->string_val);
      auto start = fbb_.StartTable();
      fbb_.AddOffset(fb::String::VT_STRING_VAL, s);
      return fbb_.EndTable(start);
    }
    case K::IntList:
      return itemsTable(vec(u.AsIntList()->items));
    case K::DoubleList:
      return itemsTable(vec(u.AsDoubleList()->items));
    case K::BoolList: {
      const auto &b = u.AsBoolList()->items;
      std::vector<uint8_t> bytes(b.begin(), b.end());
      return itemsTable(fbb_.CreateVector(bytes));
    }
    case K::TensorList:
      return itemsTable(vec(u.AsTensorList()->items));
    case K::OptionalTensorList:
      return itemsTable(vec(u.AsOptionalTensorList()->items));
    default:
      fail(w, "unknown KernelTypes tag " +
                  std::to_string(static_cast<int>(u.type)));
      return 0;
    }
  }

  Offset<fb::EValue> evalue(const fb::EValueT &e, const std::string &w) {
    bool has = e.val.type != fb::KernelTypes::NONE;
    if (has && !e.val.value)
      fail(w + ".val", "tag set but no value");
    flatbuffers::uoffset_t val = has && e.val.value ? kernelValue(e.val, w + ".val") : 0;
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint8_t>(fb::EValue::VT_VAL_TYPE,
                             static_cast<uint8_t>(e.val.type), 0);
    if (val)
      fbb_.AddOffset(fb::EValue::VT_VAL, Offset<void>(val));
    return Offset<fb::EValue>(fbb_.EndTable(start));
  }

  template <typename T>
  flatbuffers::uoffset_t indexCall(int32_t index, const std::vector<int32_t> &args) {
    auto a = vec(args);
    auto start = fbb_.StartTable();
    fbb_.AddElement<int32_t>(4, index, 0); // slot 0: op_index / delegate_index
    fbb_.AddOffset(6, a);                 // slot 1: args
    return fbb_.EndTable(start);
  }

  flatbuffers::uoffset_t twoInts(int32_t a, int32_t b) {
    auto start = fbb_.StartTable();
    fbb_.AddElement<int32_t>(4, a, 0);
    fbb_.AddElement<int32_t>(6, b, 0);
    return fbb_.EndTable(start);
  }

  Offset<fb::Instruction> instruction(const fb::InstructionT &in,
                                      const std::string &w) {
    using I = fb::InstructionArguments;
    const auto &u = in.instr_args;
    flatbuffers::uoffset_t val = 0;
    if (u.type != I::NONE && !u.value) {
      fail(w + ".instr_args", "tag set but no value");
    } else {
      switch (u.type) {
      case I::NONE:
        fail(w + ".instr_args", "is missing");
        break;
      case I::KernelCall:
        val = indexCall<fb::KernelCall>(u.AsKernelCall()->op_index,
                                        u.AsKernelCall()->args);
        break;
      case I::DelegateCall:
        val = indexCall<fb::DelegateCall>(u.AsDelegateCall()->delegate_index,
                                          u.AsDelegateCall()->args);
        break;
      case I::MoveCall:
        val = twoInts(u.AsMoveCall()->move_from, u.AsMoveCall()->move_to);
        break;
      case I::JumpFalseCall:
        val = twoInts(u.AsJumpFalseCall()->cond_value_index,
                      u.AsJumpFalseCall()->destination_instruction);
        break;
      case I::FreeCall: {
        auto start = fbb_.StartTable();
        fbb_.AddElement<int32_t>(fb::FreeCall::VT_VALUE_INDEX,
                                 u.AsFreeCall()->value_index, 0);
        val = fbb_.EndTable(start);
        break;
      }
      default:
        fail(w + ".instr_args", "unknown InstructionArguments tag " +
                                    std::to_string(static_cast<int>(u.type)));
      }
    }
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint8_t>(fb::Instruction::VT_INSTR_ARGS_TYPE,
                             static_cast<uint8_t>(u.type), 0);
    if (val)
      fbb_.AddOffset(fb::Instruction::VT_INSTR_ARGS, Offset<void>(val));
    return Offset<fb::Instruction>(fbb_.EndTable(start));
  }

  Offset<fb::Frame> frame(const fb::FrameT &f) {
    auto file = str(f.filename);
    auto name = str(f.name);
    auto ctx = str(f.context);
    auto start = fbb_.StartTable();
    fbb_.AddOffset(fb::Frame::VT_FILENAME, file);
    fbb_.AddElement<int32_t>(fb::Frame::VT_LINENO, f.lineno, 0);
    fbb_.AddOffset(fb::Frame::VT_NAME, name);
    fbb_.AddOffset(fb::Frame::VT_CONTEXT, ctx);
    return Offset<fb::Frame>(fbb_.EndTable(start));
  }

  Offset<fb::Chain> chain(const fb::ChainT &c, const std::string &w) {
    auto inputs = vec(c.inputs);
    auto outputs = vec(c.outputs);
    auto instrs = tables(c.instructions, w + ".instructions",
                         [&](const fb::InstructionT &i, const std::string &iw) {
                           return instruction(i, iw);
                         });
    Offset<flatbuffers::Vector<Offset<fb::FrameList>>> stack;
    if (!c.stacktrace.empty())
      stack = tables(c.stacktrace, w + ".stacktrace",
                     [&](const fb::FrameListT &fl, const std::string &fw) {
                       auto items = tables(fl.items, fw + ".items",
                                           [&](const fb::FrameT &f,
                                               const std::string &) {
                                             return frame(f);
                                           });
                       auto start = fbb_.StartTable();
                       fbb_.AddOffset(fb::FrameList::VT_ITEMS, items);
                       return Offset<fb::FrameList>(fbb_.EndTable(start));
                     });
    auto start = fbb_.StartTable();
    fbb_.AddOffset(fb::Chain::VT_INPUTS, inputs);
    fbb_.AddOffset(fb::Chain::VT_OUTPUTS, outputs);
    fbb_.AddOffset(fb::Chain::VT_INSTRUCTIONS, instrs);
    if (!c.stacktrace.empty())
      fbb_.AddOffset(fb::Chain::VT_STACKTRACE, stack);
    return Offset<fb::Chain>(fbb_.EndTable(start));
  }

  Offset<fb::BackendDelegate> delegate(const fb::BackendDelegateT &d,
                                       const std::string &w) {
    auto id = str(d.id);
    BlobPlacement where;
    if (!d.processed) {
      fail(w + ".processed", "is missing");
    } else if (d.processed->location != fb::DataLocation::INLINE) {
      fail(w + ".processed", "must be {INLINE, index from addDelegateBlob}");
    } else if (d.processed->index >= layout_.blobs.size()) {
      fail(w + ".processed.index", std::to_string(d.processed->index) +
                                       " is not a blob from addDelegateBlob (" +
                                       std::to_string(layout_.blobs.size()) +
                                       " blobs)");
    } else {
      where = layout_.blobs[d.processed->index];
    }
    auto processedStart = fbb_.StartTable();
    fbb_.AddElement<int8_t>(fb::BackendDelegateDataReference::VT_LOCATION,
                            static_cast<int8_t>(where.location), 0);
    fbb_.AddElement<uint32_t>(fb::BackendDelegateDataReference::VT_INDEX,
                              where.index, 0);
    auto processed = fbb_.EndTable(processedStart);
    auto specs = tables(d.compile_specs, w + ".compile_specs",
                        [&](const fb::CompileSpecT &s, const std::string &) {
                          // Key before value: a 1-byte value is then followed
                          // by three zero padding bytes (spec section 8).
                          auto key = str(s.key);
                          auto value = vec(s.value);
                          auto start = fbb_.StartTable();
                          fbb_.AddOffset(fb::CompileSpec::VT_KEY, key);
                          fbb_.AddOffset(fb::CompileSpec::VT_VALUE, value);
                          return Offset<fb::CompileSpec>(fbb_.EndTable(start));
                        });
    Offset<flatbuffers::Vector<Offset<fb::DelegateScratch>>> scratch;
    if (!d.scratch.empty())
      scratch = tables(d.scratch, w + ".scratch",
                       [&](const fb::DelegateScratchT &s, const std::string &) {
                         Offset<fb::AllocationDetails> alloc;
                         if (s.allocation)
                           alloc = allocation(*s.allocation);
                         auto start = fbb_.StartTable();
                         if (s.allocation)
                           fbb_.AddOffset(fb::DelegateScratch::VT_ALLOCATION, alloc);
                         fbb_.AddElement<uint64_t>(fb::DelegateScratch::VT_SIZE,
                                                   s.size, 0);
                         fbb_.AddElement<uint32_t>(fb::DelegateScratch::VT_ALIGNMENT,
                                                   s.alignment, 0);
                         return Offset<fb::DelegateScratch>(fbb_.EndTable(start));
                       });
    auto start = fbb_.StartTable();
    fbb_.AddOffset(fb::BackendDelegate::VT_ID, id);
    fbb_.AddOffset(fb::BackendDelegate::VT_PROCESSED, Offset<void>(processed));
    fbb_.AddOffset(fb::BackendDelegate::VT_COMPILE_SPECS, specs);
    if (!d.scratch.empty())
      fbb_.AddOffset(fb::BackendDelegate::VT_SCRATCH, scratch);
    return Offset<fb::BackendDelegate>(fbb_.EndTable(start));
  }

  Offset<fb::ExecutionPlan> plan(const fb::ExecutionPlanT &p,
                                 const std::string &w) {
    auto name = str(p.name);
    Offset<fb::ContainerMetadata> meta;
    if (p.container_meta_type) {
      auto in = str(p.container_meta_type->encoded_inp_str);
      auto out = str(p.container_meta_type->encoded_out_str);
      auto start = fbb_.StartTable();
      fbb_.AddOffset(fb::ContainerMetadata::VT_ENCODED_INP_STR, in);
      fbb_.AddOffset(fb::ContainerMetadata::VT_ENCODED_OUT_STR, out);
      meta = Offset<fb::ContainerMetadata>(fbb_.EndTable(start));
    }
    auto values = tables(p.values, w + ".values",
                         [&](const fb::EValueT &e, const std::string &ew) {
                           return evalue(e, ew);
                         });
    auto inputs = vec(p.inputs);
    auto outputs = vec(p.outputs);
    if (p.chains.empty())
      fail(w + ".chains", "a plan needs at least one chain");
    auto chains = tables(p.chains, w + ".chains",
                         [&](const fb::ChainT &c, const std::string &cw) {
                           return chain(c, cw);
                         });
    auto ops = tables(p.operators, w + ".operators",
                      [&](const fb::OperatorT &o, const std::string &) {
                        auto n = str(o.name);
                        auto ov = str(o.overload);
                        auto start = fbb_.StartTable();
                        fbb_.AddOffset(fb::Operator::VT_NAME, n);
                        fbb_.AddOffset(fb::Operator::VT_OVERLOAD, ov);
                        return Offset<fb::Operator>(fbb_.EndTable(start));
                      });
    // Written even when empty: the runtime requires `delegates`.
    auto delegates = tables(p.delegates, w + ".delegates",
                            [&](const fb::BackendDelegateT &d,
                                const std::string &dw) { return delegate(d, dw); });
    auto sizes = vec(p.non_const_buffer_sizes);
    Offset<flatbuffers::Vector<Offset<fb::NonConstBufferDevice>>> devices;
    if (!p.non_const_buffer_device.empty())
      devices = tables(p.non_const_buffer_device, w + ".non_const_buffer_device",
                       [&](const fb::NonConstBufferDeviceT &d, const std::string &) {
                         auto start = fbb_.StartTable();
                         fbb_.AddElement<int32_t>(
                             fb::NonConstBufferDevice::VT_BUFFER_IDX, d.buffer_idx, 0);
                         fbb_.AddElement<int8_t>(
                             fb::NonConstBufferDevice::VT_DEVICE_TYPE,
                             static_cast<int8_t>(d.device_type), 0);
                         fbb_.AddElement<int8_t>(
                             fb::NonConstBufferDevice::VT_DEVICE_INDEX,
                             d.device_index, 0);
                         return Offset<fb::NonConstBufferDevice>(fbb_.EndTable(start));
                       });
    auto start = fbb_.StartTable();
    fbb_.AddOffset(fb::ExecutionPlan::VT_NAME, name);
    if (p.container_meta_type)
      fbb_.AddOffset(fb::ExecutionPlan::VT_CONTAINER_META_TYPE, meta);
    fbb_.AddOffset(fb::ExecutionPlan::VT_VALUES, values);
    fbb_.AddOffset(fb::ExecutionPlan::VT_INPUTS, inputs);
    fbb_.AddOffset(fb::ExecutionPlan::VT_OUTPUTS, outputs);
    fbb_.AddOffset(fb::ExecutionPlan::VT_CHAINS, chains);
    fbb_.AddOffset(fb::ExecutionPlan::VT_OPERATORS, ops);
    fbb_.AddOffset(fb::ExecutionPlan::VT_DELEGATES, delegates);
    fbb_.AddOffset(fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES, sizes);
    if (!p.non_const_buffer_device.empty())
      fbb_.AddOffset(fb::ExecutionPlan::VT_NON_CONST_BUFFER_DEVICE, devices);
    return Offset<fb::ExecutionPlan>(fbb_.EndTable(start));
  }

  Offset<fb::Program> programImpl(const fb::ProgramT &p,
                                  const ProgramBuilder &side) {
    auto plans = tables(p.execution_plan, "execution_plan",
                        [&](const fb::ExecutionPlanT &e, const std::string &w) {
                          return plan(e, w);
                        });
    auto constantBuffer = fbb_.CreateVector<Offset<fb::Buffer>>({});
    std::vector<Offset<fb::BackendDelegateInlineData>> inl;
    for (uint32_t id : layout_.inlineBlobs) {
      const auto &bytes = side.delegateBlobs()[id];
      fbb_.ForceVectorAlignment(bytes.size(), 1, 16);
      auto data = fbb_.CreateVector(bytes);
      auto start = fbb_.StartTable();
      fbb_.AddOffset(fb::BackendDelegateInlineData::VT_DATA, data);
      inl.push_back(Offset<fb::BackendDelegateInlineData>(fbb_.EndTable(start)));
    }
    auto inlineData = fbb_.CreateVector(inl);
    std::vector<Offset<fb::DataSegment>> segs;
    for (const auto &[off, size] : layout_.segments) {
      auto start = fbb_.StartTable();
      fbb_.AddElement<uint64_t>(fb::DataSegment::VT_OFFSET, off, 0);
      fbb_.AddElement<uint64_t>(fb::DataSegment::VT_SIZE, size, 0);
      segs.push_back(Offset<fb::DataSegment>(fbb_.EndTable(start)));
    }
    auto segments = fbb_.CreateVector(segs);
    auto constantSegment = subsegment(0, layout_.constantOffsets);
    Offset<flatbuffers::Vector<Offset<fb::SubsegmentOffsets>>> mutableSegs;
    if (layout_.hasMutable) {
      auto one = subsegment(layout_.mutableSegment, layout_.mutableOffsets);
      mutableSegs = fbb_.CreateVector(&one, 1);
    }
    Offset<flatbuffers::Vector<Offset<fb::NamedData>>> namedData;
    if (!layout_.named.empty()) {
      std::vector<Offset<fb::NamedData>> entries;
      for (const auto &[key, segment] : layout_.named) {
        auto k = fbb_.CreateString(*key);
        auto s = fbb_.StartTable();
        fbb_.AddOffset(fb::NamedData::VT_KEY, k);
        fbb_.AddElement<uint32_t>(fb::NamedData::VT_SEGMENT_INDEX, segment, 0);
        entries.push_back(Offset<fb::NamedData>(fbb_.EndTable(s)));
      }
      namedData = fbb_.CreateVector(entries);
    }
    auto start = fbb_.StartTable();
    fbb_.AddElement<uint32_t>(fb::Program::VT_VERSION, p.version, 0);
    fbb_.AddOffset(fb::Program::VT_EXECUTION_PLAN, plans);
    fbb_.AddOffset(fb::Program::VT_CONSTANT_BUFFER, constantBuffer);
    fbb_.AddOffset(fb::Program::VT_BACKEND_DELEGATE_DATA, inlineData);
    fbb_.AddOffset(fb::Program::VT_SEGMENTS, segments);
    fbb_.AddOffset(fb::Program::VT_CONSTANT_SEGMENT, constantSegment);
    if (layout_.hasMutable)
      fbb_.AddOffset(fb::Program::VT_MUTABLE_DATA_SEGMENTS, mutableSegs);
    if (!layout_.named.empty())
      fbb_.AddOffset(fb::Program::VT_NAMED_DATA, namedData);
    return Offset<fb::Program>(fbb_.EndTable(start));
  }
};

Offset<fb::Program> Packer::program(const fb::ProgramT &p,
                                    const ProgramBuilder &side) {
  return programImpl(p, side);
}

bool checkCallerLeftSegmentsEmpty(const fb::ProgramT &p, std::string *err) {
  const char *field = nullptr;
  if (!p.segments.empty())
    field = "segments";
  else if (p.constant_segment)
    field = "constant_segment";
  else if (!p.mutable_data_segments.empty())
    field = "mutable_data_segments";
  else if (!p.backend_delegate_data.empty())
    field = "backend_delegate_data";
  else if (!p.constant_buffer.empty())
    field = "constant_buffer";
  else if (!p.named_data.empty())
    field = "named_data";
  if (!field)
    return true;
  if (err)
    *err = std::string("Program.") + field +
           " must be left empty: the writer derives it (use addConstant, "
           "addMutableData, addDelegateBlob)";
  return false;
}

// Appends a segment at the next aligned offset of the segment data.
uint32_t appendSegment(Layout &l, const uint8_t *d, size_t n, uint64_t align) {
  uint64_t at = 0;
  if (!l.segments.empty())
    at = alignUp(l.segments.back().first + l.segments.back().second, align);
  l.pieces.push_back({at, d, n});
  l.segmentDataSize = at + n;
  l.segments.emplace_back(at, n);
  return static_cast<uint32_t>(l.segments.size() - 1);
}

Layout computeLayout(const ProgramBuilder &b, const WriteOptions &o) {
  Layout l;
  // Segment 0: the constants, 16-byte padded between entries, not after
  // the last; offsets[0] is the empty placeholder.
  uint64_t end = 0;
  for (size_t i = 0; i < b.constants().size(); ++i) {
    if (i > 0)
      end = alignUp(end, o.constantTensorAlignment);
    auto [data, size] = b.constantBytes(i);
    l.constantOffsets.push_back(end);
    l.pieces.push_back({end, data, size});
    end += size;
  }
  l.segments.emplace_back(0, end);
  l.segmentDataSize = end;

  // The mutable-data segment, only when there is data; no padding.
  if (b.mutableData().size() > 1) {
    // One segment, its entries back to back (no padding).
    uint64_t at = alignUp(l.segmentDataSize, o.segmentAlignment), size = 0;
    for (const auto &m : b.mutableData()) {
      l.mutableOffsets.push_back(size);
      l.pieces.push_back({at + size, m.data(), m.size()});
      size += m.size();
    }
    l.hasMutable = true;
    l.segments.emplace_back(at, size);
    l.segmentDataSize = at + size;
    l.mutableSegment = static_cast<uint32_t>(l.segments.size() - 1);
  }

  // Delegate blobs that some delegate references, in first-added order:
  // non-empty ones become segments, the rest stay inline (compacted).
  l.blobs.resize(b.delegateBlobs().size());
  for (const auto &plan : b.program.execution_plan)
    if (plan)
      for (const auto &d : plan->delegates)
        if (d && d->processed && d->processed->location == fb::DataLocation::INLINE &&
            d->processed->index < l.blobs.size())
          l.blobs[d->processed->index].used = true;
  for (size_t id = 0; id < l.blobs.size(); ++id) {
    if (!l.blobs[id].used)
      continue;
    const auto &blob = b.delegateBlobs()[id];
    if (o.extractDelegateSegments && !blob.empty()) {
      l.blobs[id].location = fb::DataLocation::SEGMENT;
      l.blobs[id].index =
          appendSegment(l, blob.data(), blob.size(), o.segmentAlignment);
    } else {
      l.blobs[id].location = fb::DataLocation::INLINE;
      l.blobs[id].index = static_cast<uint32_t>(l.inlineBlobs.size());
      l.inlineBlobs.push_back(static_cast<uint32_t>(id));
    }
  }
  // Named data (delegate constants by key): one segment each, in key order.
  for (const auto &[key, bytes] : b.namedData())
    l.named.push_back(
        {&key, appendSegment(l, bytes.data(), bytes.size(), o.segmentAlignment)});
  return l;
}

} // namespace

uint32_t ProgramBuilder::addConstant(const uint8_t *d, size_t n) {
  // Copies: the owned overload (shares the lookup of borrowed entries).
  return addConstant(std::vector<uint8_t>(d, d + n));
}

uint32_t ProgramBuilder::addConstant(std::vector<uint8_t> &&bytes) {
  return internConstant(bytes.data(), bytes.size(), &bytes);
}

uint32_t ProgramBuilder::addConstantView(const uint8_t *d, size_t n) {
  return internConstant(d, n, nullptr);
}

uint32_t ProgramBuilder::internConstant(const uint8_t *d, size_t n, std::vector<uint8_t> *owned) {
  const uint32_t next = static_cast<uint32_t>(constants_.size());
  // An owned vector's heap buffer stays where it is when the vector moves.
  uint32_t id = constantIndex_.intern(d, n, next);
  if (id != next)
    return id;
  if (owned) {
    constants_.push_back(std::move(*owned));
  } else {
    constants_.emplace_back();
    borrowed_.resize(constants_.size(), {nullptr, 0});
    borrowed_.back() = {d, n};
  }
  return next;
}

uint32_t ProgramBuilder::addMutableData(const uint8_t *d, size_t n) {
  mutable_.emplace_back(d, d + n);
  return static_cast<uint32_t>(mutable_.size() - 1);
}

bool ProgramBuilder::addNamedData(const std::string &key, const uint8_t *d, size_t n) {
  auto [it, inserted] = named_.try_emplace(key, d, d + n);
  return inserted || (it->second.size() == n && std::equal(d, d + n, it->second.begin()));
}

uint32_t ProgramBuilder::addDelegateBlob(const uint8_t *d, size_t n) {
  const uint32_t next = static_cast<uint32_t>(blobs_.size());
  std::vector<uint8_t> copy(d, d + n);
  uint32_t id = blobIndex_.intern(copy.data(), copy.size(), next);
  if (id == next)
    blobs_.push_back(std::move(copy));
  return id;
}

namespace {
// The file image of a program in two parts: `out` holds every byte up to the
// segment base (flatbuffer, extended header, padding; the whole file when
// there is no segment data) and `layout.pieces` the segment data, each at
// `base` + its offset, zeros between.
bool buildImage(const ProgramBuilder &b, const WriteOptions &o, std::vector<uint8_t> *out,
                Layout &layout, uint64_t &base, std::string *err) {
  out->clear();
  if (!isPow2(o.segmentAlignment) || !isPow2(o.constantTensorAlignment)) {
    if (err)
      *err = "WriteOptions: segmentAlignment and constantTensorAlignment must "
             "be powers of two";
    return false;
  }
  if (!checkCallerLeftSegmentsEmpty(b.program, err))
    return false;
  layout = computeLayout(b, o);
  base = 0;

  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  Packer packer(fbb, layout);
  auto root = packer.program(b.program, b);
  if (!packer.error.empty()) {
    if (err)
      *err = "Program." + packer.error;
    return false;
  }
  fbb.Finish(root, fb::ProgramIdentifier());
  const uint8_t *fbData = fbb.GetBufferPointer();
  size_t fbSize = fbb.GetSize();
  // Self-check: what we hand out always passes the verifier.
  flatbuffers::Verifier verifier(fbData, fbSize, 64, 1u << 30);
  if (!fb::VerifyProgramBuffer(verifier)) {
    if (err)
      *err = "internal: the written program does not pass the flatbuffers "
             "verifier";
    return false;
  }

  if (layout.segmentDataSize == 0) {
    out->assign(fbData, fbData + fbSize);
    return true;
  }
  // Splice the extended header in at byte 8 and move the root offset past it.
  uint64_t programSize = fbSize + kExtendedHeaderSize;
  base = alignUp(programSize, o.segmentAlignment);
  out->reserve(base);
  out->assign(fbData, fbData + kExtendedHeaderOffset);
  out->resize(kExtendedHeaderOffset + kExtendedHeaderSize, 0);
  out->insert(out->end(), fbData + kExtendedHeaderOffset, fbData + fbSize);
  uint32_t root32 = flatbuffers::ReadScalar<uint32_t>(fbData);
  putLE(*out, 0, root32 + kExtendedHeaderSize, 4);
  std::memcpy(out->data() + 8, kExtendedHeaderMagic, 4);
  putLE(*out, 12, kExtendedHeaderSize, 4);
  putLE(*out, 16, programSize, 8);
  putLE(*out, 24, base, 8);
  putLE(*out, 32, layout.segmentDataSize, 8);
  out->resize(base, 0);
  return true;
}
} // namespace

bool trySerializeProgram(const ProgramBuilder &b, const WriteOptions &o,
                         std::vector<uint8_t> *out, std::string *err) {
  Layout layout;
  uint64_t base = 0;
  if (!buildImage(b, o, out, layout, base, err))
    return false;
  if (layout.segmentDataSize == 0)
    return true;
  out->resize(base + layout.segmentDataSize, 0);
  for (const Layout::Piece &piece : layout.pieces)
    if (piece.size > 0)
      std::memcpy(out->data() + base + piece.at, piece.data, piece.size);
  return true;
}

bool writeProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      std::string *err) {
  OutputFiles out;
  return stageProgramFile(b, o, path, out, err) && out.commit(err);
}

bool stageProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      OutputFiles &out, std::string *err) {
  std::vector<uint8_t> head;
  Layout layout;
  uint64_t base = 0;
  if (!buildImage(b, o, &head, layout, base, err))
    return false;
  std::vector<FileChunk> chunks{{head.data(), head.size()}};
  uint64_t at = 0; // in the segment data
  for (const Layout::Piece &piece : layout.pieces) {
    if (piece.size == 0)
      continue;
    if (piece.at > at)
      chunks.push_back({nullptr, static_cast<size_t>(piece.at - at)});
    chunks.push_back({piece.data, piece.size});
    at = piece.at + piece.size;
  }
  if (layout.segmentDataSize > at)
    chunks.push_back({nullptr, static_cast<size_t>(layout.segmentDataSize - at)});
  return out.stage(path, chunks, err);
}

std::vector<uint8_t> serializeProgram(ProgramBuilder &b, const WriteOptions &o) {
  std::vector<uint8_t> out;
  std::string err;
  if (!trySerializeProgram(b, o, &out, &err))
    out.clear();
  return out;
}

} // namespace ptec::pte
