// The .pte Program table, packed field by field in upstream's order (spec
// section 2.9) with the segment offsets of the writer's Layout. Separate from
// PteWriter.cpp, which lays out segments and assembles the file, because
// this is the part that mirrors program.fbs table by table.
#include "serde/pte/PteLayout.h"

namespace ptec::pte {
using flatbuffers::Offset;

namespace {

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
  /// A table of two offset fields, added in this order (children first:
  /// `a` and `b` are already written).
  template <typename T, typename A, typename B>
  Offset<T> twoFields(flatbuffers::voffset_t fieldA, Offset<A> a, flatbuffers::voffset_t fieldB,
                      Offset<B> b) {
    auto start = fbb_.StartTable();
    fbb_.AddOffset(fieldA, a);
    fbb_.AddOffset(fieldB, b);
    return Offset<T>(fbb_.EndTable(start));
  }

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
                          return twoFields<fb::CompileSpec>(fb::CompileSpec::VT_KEY, key,
                                                            fb::CompileSpec::VT_VALUE, value);
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
      meta = twoFields<fb::ContainerMetadata>(fb::ContainerMetadata::VT_ENCODED_INP_STR, in,
                                              fb::ContainerMetadata::VT_ENCODED_OUT_STR, out);
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
                        return twoFields<fb::Operator>(fb::Operator::VT_NAME, n,
                                                       fb::Operator::VT_OVERLOAD, ov);
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

} // namespace

Offset<fb::Program> packProgram(flatbuffers::FlatBufferBuilder &fbb, const Layout &layout,
                                const fb::ProgramT &p, const ProgramBuilder &side,
                                std::string &error) {
  Packer packer(fbb, layout);
  Offset<fb::Program> root = packer.program(p, side);
  error = packer.error;
  return root;
}

} // namespace ptec::pte
