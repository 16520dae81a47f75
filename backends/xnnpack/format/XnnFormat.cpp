//===- XnnFormat.cpp - the XnnpackBackend blob: header, graph, plan -------===//

#include "backends/xnnpack/format/XnnFormat.h"
#include "backends/xnnpack/format/XnnQuant.h"
#include "backends/xnnpack/format/XnnCapability.h"

#include <algorithm>
#include <cstring>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

uint32_t loadU32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint64_t loadU64(const uint8_t *p) { return loadU32(p) | uint64_t(loadU32(p + 4)) << 32; }

void putLE(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

Error fail(std::string *why, Error e, std::string text) {
  if (why)
    *why = std::move(text);
  return e;
}

/// Shapes shared by several node kinds (the union's aliased tables).
enum class Shape { Unknown, Binary, Unary, Conv, Pooling, Cat, Special };

Shape shapeOf(Kind k) {
  switch (k) {
  case Kind::XNNAdd: case Kind::XNNDiv: case Kind::XNNMinimum: case Kind::XNNMultiply:
  case Kind::XNNSubtract: case Kind::XNNMaximum: case Kind::XNNPReLU:
  case Kind::XNNBatchMatrixMultiply:
    return Shape::Binary;
  case Kind::XNNSoftmax: case Kind::XNNSigmoid: case Kind::XNNClamp: case Kind::XNNFloor:
  case Kind::XNNConvert: case Kind::XNNGlobalAvgPooling2d: case Kind::XNNSquareRoot:
  case Kind::XNNCeiling: case Kind::XNNHardswish: case Kind::XNNNegate: case Kind::XNNSquare:
  case Kind::XNNAbs: case Kind::XNNReciprocalSquareRoot: case Kind::XNNLog: case Kind::XNNGelu:
  case Kind::XNNTanh: case Kind::XNNExp: case Kind::XNNSin: case Kind::XNNCopy:
  case Kind::XNNCos:
    return Shape::Unary;
  case Kind::XNNConv2d: case Kind::XNNDepthwiseConv2d: case Kind::XNNConvTranspose2d:
    return Shape::Conv;
  case Kind::XNNAvgPooling2d: case Kind::XNNMaxPooling2d:
    return Shape::Pooling;
  case Kind::XNNConcatenate2: case Kind::XNNConcatenate3: case Kind::XNNConcatenate4:
  case Kind::XNNConcatenate5:
    return Shape::Cat;
  case Kind::XNNFullyConnected: case Kind::XNNStaticTranspose:
  case Kind::XNNStaticResizeBilinear2D: case Kind::XNNStaticConstantPad:
  case Kind::XNNStaticReshape: case Kind::XNNArgMaxPooling2d: case Kind::XNNLeakyReLU:
  case Kind::XNNELU: case Kind::XNNStaticSlice: case Kind::XNNScaledDotProductAttention:
    return Shape::Special;
  default:
    return Shape::Unknown;
  }
}

template <typename T> const T *body(const fb::XNode *n) {
  return static_cast<const T *>(n->xnode_union());
}

} // namespace

Error parseBlob(const void *data, size_t size, BlobView *out, std::string *why) {
  *out = BlobView();
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (bytes == nullptr || size < 8)
    return fail(why, Error::InvalidArgument, "the blob has " + std::to_string(size) +
                                                 " bytes, too few for a flatbuffer");
  const uint8_t *fbData = bytes;
  size_t fbSize = size;
  if (std::memcmp(bytes + kHeaderMagicOffset, kHeaderMagic, 4) == 0) {
    if (size < kHeaderLength)
      return fail(why, Error::InvalidArgument, "the blob header is truncated");
    const uint32_t length = uint32_t(bytes[8]) | uint32_t(bytes[9]) << 8;
    if (length < kHeaderLength)
      return fail(why, Error::InvalidArgument,
                  "the blob header says it has " + std::to_string(length) +
                      " bytes, fewer than the 30 its fields need");
    const uint64_t fbOffset = loadU32(bytes + 10), fbLen = loadU32(bytes + 14);
    const uint64_t cOffset = loadU32(bytes + 18), cLen = loadU64(bytes + 22);
    if (fbOffset < kHeaderLength || fbOffset > size || fbLen > size - fbOffset || fbLen < 8)
      return fail(why, Error::InvalidArgument, "the blob header's flatbuffer range runs past "
                                               "the blob or overlaps the header");
    if (cOffset > size || cLen > size - cOffset)
      return fail(why, Error::InvalidArgument,
                  "the blob header's constant data range runs past the blob");
    fbData = bytes + fbOffset;
    fbSize = static_cast<size_t>(fbLen);
    out->hasHeader = true;
    out->constantData = bytes + cOffset;
    out->constantDataSize = cLen;
  }
  std::memcpy(out->identifier, fbData + 4, 4);
  out->identifier[4] = '\0';
  if (std::memcmp(out->identifier, "XN00", 4) != 0 && std::memcmp(out->identifier, "XN01", 4) != 0) {
    std::string shown;
    for (int i = 0; i < 4; ++i) {
      char c = out->identifier[i];
      shown += (c >= 32 && c < 127) ? std::string(1, c) : "\\x" + std::to_string(uint8_t(c));
    }
    return fail(why, Error::DelegateInvalidCompatibility,
                "the XNNPACK graph's identifier is '" + shown +
                    "'; this runtime reads XN00 and XN01 (docs/backend-guide.md)");
  }
  flatbuffers::Verifier verifier(fbData, fbSize);
  // The identifier was checked above (XN00 or XN01); the generated verifier
  // would insist on XN01 alone.
  if (!verifier.VerifyBuffer<fb::XNNGraph>(nullptr))
    return fail(why, Error::InvalidArgument, "the XNNPACK graph flatbuffer fails verification");
  out->graph = fb::GetXNNGraph(fbData);
  return Error::Ok;
}

std::string writeBlob(const uint8_t *flatbuffer, size_t flatbufferSize,
                      const std::string &constantData) {
  const size_t paddedFb = (flatbufferSize + kConstantAlignment - 1) / kConstantAlignment *
                          kConstantAlignment;
  std::string out(4, '\0');
  out.append(kHeaderMagic, 4);
  putLE(out, kHeaderLength, 2);
  putLE(out, kHeaderPaddedLength, 4);
  putLE(out, flatbufferSize, 4);
  putLE(out, kHeaderPaddedLength + paddedFb, 4);
  putLE(out, constantData.size(), 8);
  out.resize(kHeaderPaddedLength, '\0');
  out.append(reinterpret_cast<const char *>(flatbuffer), flatbufferSize);
  out.resize(kHeaderPaddedLength + paddedFb, '\0');
  out += constantData;
  return out;
}

std::string nodeKindName(Kind kind) {
  const char *name = fb::EnumNameXNodeUnion(kind);
  if (name == nullptr || *name == '\0')
    return "node type " + std::to_string(static_cast<unsigned>(kind));
  return name;
}

bool nodeOperands(const fb::XNode *n, NodeOperands *out) {
  out->inputs.clear();
  out->outputs.clear();
  if (n == nullptr || n->xnode_union() == nullptr)
    return false;
  auto in = [&](uint32_t id) { out->inputs.push_back(id); };
  auto optIn = [&](uint32_t id) {
    if (id != kInvalidValueId)
      in(id);
  };
  auto res = [&](uint32_t id) { out->outputs.push_back(id); };
  // Nodes with one input and one output, whatever their other fields.
  auto oneToOne = [&](const auto *b) {
    in(b->input_id()), res(b->output_id());
    return true;
  };
  // Nodes that read an input, a filter and an optional bias.
  auto filtered = [&](const auto *b) {
    in(b->input1_id()), in(b->filter_id()), optIn(b->bias_id()), res(b->output_id());
    return true;
  };
  const Kind k = n->xnode_union_type();
  switch (shapeOf(k)) {
  case Shape::Unknown:
    return false;
  case Shape::Binary: {
    const auto *b = body<fb::_XNNNode2x1>(n);
    in(b->input1_id()), in(b->input2_id()), res(b->output_id());
    return true;
  }
  case Shape::Unary:
    return oneToOne(body<fb::_XNNNode1x1>(n));
  case Shape::Conv:
    return filtered(body<fb::_XNNNodeConv>(n));
  case Shape::Pooling:
    return oneToOne(body<fb::_XNNPooling2D>(n));
  case Shape::Cat: {
    const auto *b = body<fb::_XNNCat>(n);
    const int count = k == Kind::XNNConcatenate2 ? 2 : k == Kind::XNNConcatenate3 ? 3
                      : k == Kind::XNNConcatenate4 ? 4 : 5;
    const uint32_t ids[5] = {b->input1_id(), b->input2_id(), b->input3_id(), b->input4_id(),
                             b->input5_id()};
    for (int i = 0; i < count; ++i)
      in(ids[i]);
    res(b->output_id());
    return true;
  }
  case Shape::Special:
    break;
  }
  switch (k) {
  case Kind::XNNFullyConnected: return filtered(body<fb::XNNFullyConnected>(n));
  case Kind::XNNStaticTranspose: return oneToOne(body<fb::XNNStaticTranspose>(n));
  case Kind::XNNStaticResizeBilinear2D: return oneToOne(body<fb::XNNStaticResizeBilinear2D>(n));
  case Kind::XNNStaticConstantPad: return oneToOne(body<fb::XNNStaticConstantPad>(n));
  case Kind::XNNStaticReshape: return oneToOne(body<fb::XNNStaticReshape>(n));
  case Kind::XNNStaticSlice: return oneToOne(body<fb::XNNStaticSlice>(n));
  case Kind::XNNArgMaxPooling2d: {
    const auto *b = body<fb::XNNArgMaxPooling2d>(n);
    in(b->input_id()), res(b->output_value_id()), res(b->output_index_id());
    return true;
  }
  case Kind::XNNLeakyReLU: return oneToOne(body<fb::XNNLeakyReLU>(n));
  case Kind::XNNELU: return oneToOne(body<fb::XNNELU>(n));
  case Kind::XNNScaledDotProductAttention: {
    const auto *b = body<fb::XNNScaledDotProductAttention>(n);
    in(b->query_id()), in(b->key_id()), in(b->value_id()), in(b->scale_id()),
        optIn(b->mask_id()), res(b->output_id());
    return true;
  }
  default:
    return false;
  }
}

bool isOwnKernel(Kind kind) { return nodeCapability(kind).runsOn == RunsOn::OwnKernel; }

namespace {

std::string valueName(uint32_t id) { return "value " + std::to_string(id); }

std::string nodeName(const fb::XNode *n, size_t index) {
  return "node " + std::to_string(index) + " (" + nodeKindName(n->xnode_union_type()) +
         ", debug handle " + std::to_string(n->debug_handle()) + ")";
}

Error readValues(const fb::XNNGraph *g, GraphPlan *out, std::string *why) {
  const auto *values = g->xvalues();
  if (values == nullptr)
    return fail(why, Error::InvalidArgument, "the graph has no xvalues");
  out->numExterns = g->num_externs();
  std::vector<bool> externSeen(out->numExterns, false);
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
    const fb::XValue *v = values->Get(i);
    if (v == nullptr || v->xvalue_union() == nullptr)
      return fail(why, Error::InvalidArgument, "xvalues[" + std::to_string(i) + "] is empty");
    ValueInfo info;
    const fb::XNNTensorValue *t = v->xvalue_union_as_XNNTensorValue();
    if (v->xvalue_union_type() == fb::XValueUnion::XNNQuantizedTensorValue) {
      // int8 graphs (XnnQuant.h): datatype, element size and quantization.
      const auto *q = v->xvalue_union_as_XNNQuantizedTensorValue();
      PTEC_TRY(readQuantizedValue(q, &info, why));
      t = q->tensor_value();
    }
    if (t == nullptr)
      return fail(why, Error::NotSupported,
                  "xvalues[" + std::to_string(i) + "] has a value kind this schema does not know");
    info.id = t->id_out();
    info.dtype = t->datatype();
    info.constantIndex = t->constant_buffer_idx();
    info.externalId = t->external_id();
    info.flags = t->flags();
    const std::string name = valueName(info.id);
    if (!info.quantized && info.dtype == fb::XNNDatatype::xnn_datatype_fp16) {
      info.half = true;
      info.dtype = fb::XNNDatatype::xnn_datatype_fp32;
    }
    if (!info.quantized && info.dtype != fb::XNNDatatype::xnn_datatype_fp32)
      return fail(why, Error::NotSupported,
                  name + " has datatype " +
                      std::string(fb::EnumNameXNNDatatype(info.dtype)) +
                      "; this backend runs float32 and float16 graphs only");
    if (t->dq_datatype() != fb::XNNDatatype::xnn_datatype_invalid)
      return fail(why, Error::NotSupported, name + " asks for dynamic quantization");
    if (t->dims() == nullptr || t->dims()->size() != t->num_dims() || t->num_dims() > kMaxDims)
      return fail(why, Error::InvalidArgument,
                  name + ": dims must list num_dims (at most 6) sizes");
    for (uint32_t d : *t->dims()) {
      info.dims.push_back(d);
      if (d != 0 && info.numel > (uint64_t(1) << 40) / d)
        return fail(why, Error::InvalidArgument, name + " is too large");
      info.numel *= d;
    }
    if ((info.flags & ~(kFlagExternalInput | kFlagExternalOutput)) != 0 ||
        (info.isInput() && info.isOutput()))
      return fail(why, Error::InvalidArgument, name + " has flags " +
                                                   std::to_string(info.flags) +
                                                   " (an input, an output or neither)");
    if (info.isInput() || info.isOutput()) {
      if (info.externalId >= out->numExterns)
        return fail(why, Error::InvalidArgument,
                    name + ": external id " + std::to_string(info.externalId) +
                        " is not below num_externs " + std::to_string(out->numExterns));
      if (externSeen[info.externalId])
        return fail(why, Error::InvalidArgument,
                    name + ": external id " + std::to_string(info.externalId) +
                        " is used by two values");
      externSeen[info.externalId] = true;
      if (info.isConstant())
        return fail(why, Error::InvalidArgument, name + " is both external and constant");
    }
    if (!out->indexOf.emplace(info.id, static_cast<uint32_t>(out->values.size())).second)
      return fail(why, Error::InvalidArgument, "two values have id " + std::to_string(info.id));
    out->values.push_back(std::move(info));
  }
  return Error::Ok;
}

/// First-fit placement, largest first (lifetimes are closed node intervals).
uint64_t place(const std::vector<uint64_t> &size, const std::vector<int> &first,
               const std::vector<int> &last, std::vector<int64_t> &offset) {
  std::vector<size_t> order;
  for (size_t i = 0; i < size.size(); ++i)
    if (size[i] > 0)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return size[a] > size[b]; });
  std::vector<size_t> placed;
  uint64_t total = 0;
  for (size_t i : order) {
    uint64_t at = 0;
    // Candidate offsets: 0 and the end of every overlapping placed slot.
    std::vector<uint64_t> candidates{0};
    for (size_t j : placed)
      if (!(last[j] < first[i] || last[i] < first[j]))
        candidates.push_back(uint64_t(offset[j]) + size[j]);
    std::sort(candidates.begin(), candidates.end());
    for (uint64_t c : candidates) {
      bool clash = false;
      for (size_t j : placed) {
        const bool overlapTime = !(last[j] < first[i] || last[i] < first[j]);
        const bool overlapSpace = c < uint64_t(offset[j]) + size[j] && uint64_t(offset[j]) < c + size[i];
        if (overlapTime && overlapSpace) {
          clash = true;
          break;
        }
      }
      if (!clash) {
        at = c;
        break;
      }
    }
    offset[i] = static_cast<int64_t>(at);
    total = std::max(total, at + size[i]);
    placed.push_back(i);
  }
  return total;
}

} // namespace

Error planGraph(const fb::XNNGraph *g, GraphPlan *out, std::string *why) {
  *out = GraphPlan();
  if (g == nullptr)
    return fail(why, Error::InvalidArgument, "no graph");
  PTEC_TRY(readValues(g, out, why));
  const size_t nv = out->values.size();
  const auto *nodes = g->xnodes();
  const size_t nn = nodes ? nodes->size() : 0;
  std::vector<int> producer(nv, -1), firstUse(nv, -1), lastUse(nv, -1);
  std::vector<bool> readByXnnpack(nv, false);
  for (size_t i = 0; i < nn; ++i) {
    const fb::XNode *n = nodes->Get(static_cast<flatbuffers::uoffset_t>(i));
    NodeOperands ops;
    if (n == nullptr || !nodeOperands(n, &ops))
      return fail(why, Error::NotSupported,
                  "node " + std::to_string(i) + " has " +
                      (n ? nodeKindName(n->xnode_union_type()) : std::string("no body")) +
                      ", which this schema does not know");
    // The index of value `id`, which the node `verb`s ("reads", "writes").
    auto indexOf = [&](uint32_t id, const char *verb, uint32_t *v) {
      auto it = out->indexOf.find(id);
      if (it == out->indexOf.end())
        return fail(why, Error::InvalidArgument,
                    nodeName(n, i) + " " + verb + " " + valueName(id) + ", which is not defined");
      *v = it->second;
      return Error::Ok;
    };
    NodeOperands indices;
    for (uint32_t id : ops.inputs) {
      uint32_t v = 0;
      if (Error e = indexOf(id, "reads", &v); e != Error::Ok)
        return e;
      const ValueInfo &info = out->values[v];
      if (!info.isConstant() && !info.isInput() && producer[v] < 0)
        return fail(why, Error::InvalidArgument,
                    nodeName(n, i) + " reads " + valueName(id) + " before any node writes it");
      if (firstUse[v] < 0)
        firstUse[v] = static_cast<int>(i);
      lastUse[v] = static_cast<int>(i);
      if (!isOwnKernel(n->xnode_union_type()))
        readByXnnpack[v] = true;
      indices.inputs.push_back(v);
    }
    for (uint32_t id : ops.outputs) {
      uint32_t v = 0;
      if (Error e = indexOf(id, "writes", &v); e != Error::Ok)
        return e;
      const ValueInfo &info = out->values[v];
      if (info.isConstant() || info.isInput() || producer[v] >= 0)
        return fail(why, Error::InvalidArgument,
                    nodeName(n, i) + " writes " + valueName(id) +
                        ", which is a constant, an input or written twice");
      producer[v] = static_cast<int>(i);
      indices.outputs.push_back(v);
    }
    out->operands.push_back(std::move(indices));
  }

  // Workspace: intermediates from their producer to their last reader; staged
  // inputs from the start to their last XNNPACK reader.
  const size_t slots = 2 * nv;
  std::vector<uint64_t> size(slots, 0);
  std::vector<int> first(slots, 0), last(slots, 0);
  auto slotBytes = [](uint64_t bytes) {
    return (bytes + kExtraReadBytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
           kWorkspaceAlignment;
  };
  for (size_t v = 0; v < nv; ++v) {
    const ValueInfo &info = out->values[v];
    if (info.isOutput() && producer[v] < 0)
      return fail(why, Error::InvalidArgument,
                  "output " + valueName(info.id) + " is not written by any node");
    if (!info.isConstant() && !info.isInput() && (!info.isOutput() || info.half) &&
        producer[v] >= 0) {
      size[v] = slotBytes(info.bytes());
      first[v] = producer[v];
      // A float16 output lives until it is converted, after the last node.
      last[v] = info.isOutput() ? int(nn) : std::max(producer[v], lastUse[v]);
    }
    if (info.isInput() && (readByXnnpack[v] || info.half)) {
      size[nv + v] = slotBytes(info.bytes());
      first[nv + v] = -1;
      last[nv + v] = lastUse[v];
    }
  }
  std::vector<int64_t> offset(slots, -1);
  out->workspaceBytes = place(size, first, last, offset);
  out->workspaceOffset.assign(offset.begin(), offset.begin() + nv);
  out->stagingOffset.assign(offset.begin() + nv, offset.end());
  return Error::Ok;
}

Error constantBytes(const BlobView &blob, uint32_t index, const NamedDataLookup &named,
                    ConstantBytes *out, std::string *why) {
  *out = ConstantBytes();
  const fb::XNNGraph *g = blob.graph;
  const std::string name = "constant " + std::to_string(index);
  if (g->constant_data() && g->constant_data()->size() > 0) {
    if (index >= g->constant_data()->size())
      return fail(why, Error::InvalidArgument,
                  name + " is past the " + std::to_string(g->constant_data()->size()) +
                      " entries of constant_data");
    const fb::ConstantDataOffset *c = g->constant_data()->Get(index);
    if (c == nullptr)
      return fail(why, Error::InvalidArgument, name + " is empty");
    if (c->named_key() != nullptr && c->named_key()->size() > 0) {
      out->namedKey = c->named_key()->str();
      const uint8_t *data = nullptr;
      size_t size = 0;
      if (!named || !named(out->namedKey.c_str(), &data, &size))
        return fail(why, Error::NotFound,
                    name + " names '" + out->namedKey + "', which the program's named data "
                                                        "does not hold");
      if (size < c->size())
        return fail(why, Error::InvalidArgument,
                    name + ": named data '" + out->namedKey + "' has " +
                        std::to_string(size) + " bytes, fewer than " +
                        std::to_string(c->size()));
      out->data = data;
      out->size = c->size();
      return Error::Ok;
    }
    if (!blob.hasHeader)
      return fail(why, Error::InvalidArgument,
                  name + " lives in constant data, but the blob has no header");
    if (c->offset() > blob.constantDataSize || c->size() > blob.constantDataSize - c->offset())
      return fail(why, Error::InvalidArgument, name + " runs past the blob's constant data");
    out->data = blob.constantData + c->offset();
    out->size = c->size();
    return Error::Ok;
  }
  const auto *buffers = g->constant_buffer();
  if (buffers == nullptr || index >= buffers->size() || buffers->Get(index) == nullptr ||
      buffers->Get(index)->storage() == nullptr)
    return fail(why, Error::InvalidArgument, name + " has no bytes in the graph");
  out->data = buffers->Get(index)->storage()->data();
  out->size = buffers->Get(index)->storage()->size();
  return Error::Ok;
}

uint64_t hashBytes(const void *data, size_t size, uint64_t seed) {
  constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                     kP3 = 0x165667B19E3779F9ull;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](uint64_t acc, uint64_t w) { return rotl(acc + w * kP2, 31) * kP1; };
  const auto *p = static_cast<const uint8_t *>(data);
  uint64_t lane[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * l, 8);
      lane[l] = round(lane[l], w);
    }
  uint64_t h = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18);
  h += size;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = rotl(h ^ round(0, w), 27) * kP1 + kP3;
  }
  for (; i < size; ++i)
    h = rotl(h ^ (p[i] * kP3), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

} // namespace ptec::xnnpack
