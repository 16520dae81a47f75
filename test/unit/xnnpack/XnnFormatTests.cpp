// The XnnpackBackend blob format: what GraphWriter writes reads back through
// parseBlob / planGraph / constantBytes field by field, the header follows
// upstream's layout byte for byte, bad bytes are errors (never crashes), and
// the workspace plan reuses bytes only between values whose lifetimes do not
// touch. No XNNPACK library needed.
#include "backends/xnnpack/format/XnnGraphWriter.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace ptec::xnnpack;
using ptec::rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

uint32_t u32(const std::string &b, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = v << 8 | uint8_t(b[at + i]);
  return v;
}

/// x[1,2,4,4] -> transpose NHWC -> conv 3x3 (2->3, pad 1) + relu -> out.
std::string convBlob(std::vector<float> *weights = nullptr) {
  GraphWriter w;
  const uint32_t x = w.addValue({1, 2, 4, 4});
  w.setExternal(x, 0, kFlagExternalInput);
  const uint32_t xt = w.addValue({1, 4, 4, 2});
  w.addTranspose(x, xt, {0, 2, 3, 1});
  std::vector<float> filter(3 * 3 * 3 * 2), bias{0.5f, -0.5f, 0.25f};
  for (size_t i = 0; i < filter.size(); ++i)
    filter[i] = float(i) * 0.01f;
  if (weights)
    *weights = filter;
  const uint32_t f = w.addConstantValue({3, 3, 3, 2}, filter.data());
  const uint32_t b = w.addConstantValue({3}, bias.data());
  const uint32_t y = w.addValue({1, 4, 4, 3});
  ConvParams p;
  p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
  p.kernelH = p.kernelW = 3;
  p.groupInputChannels = 2, p.groupOutputChannels = 3;
  w.addConv(Kind::XNNConv2d, p, xt, f, b, y, OutputClamp{0.0f, 6.0f}, 42);
  const uint32_t out = w.addValue({1, 3, 4, 4});
  w.addTranspose(y, out, {0, 3, 1, 2});
  w.setExternal(out, 1, kFlagExternalOutput);
  return w.finish();
}

} // namespace

TEST_CASE("xnnpack format: header layout is upstream's", "[xnnpack][format]") {
  const std::string blob = convBlob();
  CHECK(u32(blob, 0) == 0);
  CHECK(blob.substr(4, 4) == "XH00");
  CHECK((uint8_t(blob[8]) | uint8_t(blob[9]) << 8) == 30);
  CHECK(u32(blob, 10) == 32); // flatbuffer offset: header padded to 16
  const uint32_t fbSize = u32(blob, 14);
  const uint32_t cOffset = u32(blob, 18);
  CHECK(cOffset == 32 + (fbSize + 15) / 16 * 16);
  uint64_t cSize = u32(blob, 22) | uint64_t(u32(blob, 26)) << 32;
  CHECK(cOffset + cSize == blob.size());
  CHECK(blob.substr(32 + 4, 4) == "XN01"); // flatbuffer identifier
}

TEST_CASE("xnnpack format: a written graph reads back", "[xnnpack][format]") {
  std::vector<float> filter;
  const std::string blob = convBlob(&filter);
  BlobView view;
  std::string why;
  REQUIRE(parseBlob(blob.data(), blob.size(), &view, &why) == Error::Ok);
  CHECK(view.hasHeader);
  CHECK(std::string(view.identifier) == "XN01");
  const fb::XNNGraph *g = view.graph;
  CHECK(g->version()->str() == "0");
  CHECK(g->num_externs() == 2);
  REQUIRE(g->xnodes()->size() == 3);
  REQUIRE(g->xvalues()->size() == 6);
  CHECK(g->constant_data()->Get(0)->size() == 0); // the placeholder
  const fb::XNode *conv = g->xnodes()->Get(1);
  REQUIRE(conv->xnode_union_type() == Kind::XNNConv2d);
  CHECK(conv->debug_handle() == 42);
  REQUIRE(conv->output_min_max() != nullptr);
  CHECK(conv->output_min_max()->output_max() == 6.0f);
  const auto *c = conv->xnode_union_as_XNNConv2d();
  CHECK(c->kernel_height() == 3);
  CHECK(c->padding_left() == 1);
  CHECK(c->group_input_channels() == 2);
  CHECK(c->group_output_channels() == 3);

  GraphPlan plan;
  REQUIRE(planGraph(g, &plan, &why) == Error::Ok);
  const ValueInfo &x = plan.values[plan.indexOf.at(0)];
  CHECK(x.isInput());
  CHECK(x.externalId == 0);
  CHECK(x.dims == std::vector<uint64_t>{1, 2, 4, 4});
  const ValueInfo &out = plan.values[plan.indexOf.at(5)];
  CHECK(out.isOutput());
  CHECK(out.externalId == 1);
  const ValueInfo &f = plan.values[plan.indexOf.at(2)];
  REQUIRE(f.isConstant());
  ConstantBytes bytes;
  REQUIRE(constantBytes(view, f.constantIndex, {}, &bytes, &why) == Error::Ok);
  REQUIRE(bytes.size == filter.size() * 4);
  CHECK(std::memcmp(bytes.data, filter.data(), bytes.size) == 0);
  CHECK(static_cast<uintptr_t>(bytes.data - reinterpret_cast<const uint8_t *>(blob.data())) %
            16 == 0);
  // The transpose reads x exactly (own loop): x is not staged; the two
  // intermediates are live at once (conv reads one, writes the other).
  CHECK(plan.stagingOffset[plan.indexOf.at(0)] == -1);
  const int64_t a = plan.workspaceOffset[plan.indexOf.at(1)];
  const int64_t b = plan.workspaceOffset[plan.indexOf.at(4)];
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  CHECK(a != b);
  CHECK(plan.workspaceBytes >= 2 * (32 * 4 + 16));
}

TEST_CASE("xnnpack format: identifiers, headers and truncation", "[xnnpack][format]") {
  std::string blob = convBlob();
  BlobView view;
  std::string why;
  SECTION("XN00 reads like XN01") {
    blob[36 + 3] = '0';
    CHECK(parseBlob(blob.data(), blob.size(), &view, &why) == Error::Ok);
    CHECK(std::string(view.identifier) == "XN00");
  }
  SECTION("another identifier is an incompatible version") {
    blob[36 + 3] = '7';
    CHECK(parseBlob(blob.data(), blob.size(), &view, &why) == Error::DelegateInvalidCompatibility);
    CHECK(why.find("XN07") != std::string::npos);
  }
  SECTION("a bare flatbuffer (no XH00 header) reads") {
    const uint32_t fbSize = u32(blob, 14);
    std::string bare = blob.substr(32, fbSize);
    REQUIRE(parseBlob(bare.data(), bare.size(), &view, &why) == Error::Ok);
    CHECK_FALSE(view.hasHeader);
  }
  SECTION("a header length below 30") {
    blob[8] = 20;
    CHECK(parseBlob(blob.data(), blob.size(), &view, &why) == Error::InvalidArgument);
  }
  SECTION("a constant range past the end") {
    blob[22] = char(0xff), blob[23] = char(0xff);
    CHECK(parseBlob(blob.data(), blob.size(), &view, &why) == Error::InvalidArgument);
  }
  SECTION("every truncation fails cleanly") {
    for (size_t n = 0; n < blob.size(); ++n) {
      std::string cut = blob.substr(0, n);
      Error e = parseBlob(cut.data(), cut.size(), &view, &why);
      if (e == Error::Ok) {
        GraphPlan plan;
        (void)planGraph(view.graph, &plan, &why);
      }
    }
    SUCCEED();
  }
  SECTION("flipped bytes never crash the reader or the planner") {
    for (size_t i = 0; i < blob.size(); ++i) {
      std::string bad = blob;
      bad[i] = char(bad[i] ^ 0x5a);
      if (parseBlob(bad.data(), bad.size(), &view, &why) == Error::Ok) {
        GraphPlan plan;
        (void)planGraph(view.graph, &plan, &why);
      }
    }
    SUCCEED();
  }
}

TEST_CASE("xnnpack format: planGraph names what is wrong", "[xnnpack][format]") {
  std::string why;
  BlobView view;
  GraphPlan plan;
  auto plan_ = [&](GraphWriter &w, uint32_t externs = 0) {
    std::string blob = w.finish(externs);
    REQUIRE(parseBlob(blob.data(), blob.size(), &view, &why) == Error::Ok);
    return planGraph(view.graph, &plan, &why);
  };
  SECTION("a value read before any node writes it") {
    GraphWriter w;
    uint32_t a = w.addValue({4}), b = w.addValue({4});
    w.addUnary(Kind::XNNSigmoid, a, b);
    w.setExternal(b, 0, kFlagExternalOutput);
    CHECK(plan_(w) == Error::InvalidArgument);
    CHECK(why.find("reads value 0 before") != std::string::npos);
  }
  SECTION("an output nobody writes") {
    GraphWriter w;
    uint32_t a = w.addValue({4});
    w.setExternal(a, 0, kFlagExternalOutput);
    CHECK(plan_(w) == Error::InvalidArgument);
    CHECK(why.find("not written") != std::string::npos);
  }
  SECTION("an external id past num_externs") {
    GraphWriter w;
    uint32_t a = w.addValue({4}), b = w.addValue({4});
    w.setExternal(a, 0, kFlagExternalInput);
    w.setExternal(b, 5, kFlagExternalOutput);
    w.addUnary(Kind::XNNSigmoid, a, b);
    CHECK(plan_(w, 2) == Error::InvalidArgument);
    CHECK(why.find("num_externs") != std::string::npos);
  }
  SECTION("a chain reuses workspace bytes; staged inputs get their own") {
    GraphWriter w;
    uint32_t x = w.addValue({256});
    w.setExternal(x, 0, kFlagExternalInput);
    uint32_t prev = x;
    for (int i = 0; i < 6; ++i) {
      uint32_t next = w.addValue({256});
      w.addUnary(Kind::XNNSigmoid, prev, next);
      prev = next;
    }
    w.setExternal(prev, 1, kFlagExternalOutput);
    REQUIRE(plan_(w) == Error::Ok);
    const uint64_t slot = (256 * 4 + kExtraReadBytes + 63) / 64 * 64;
    // x is staged (XNNPACK reads it); the 5 intermediates alternate
    // between two slots, and the staged copy (dead after node 0) shares the
    // second one.
    CHECK(plan.stagingOffset[0] >= 0);
    CHECK(plan.workspaceBytes == 2 * slot);
  }
}

TEST_CASE("xnnpack format: named constants and hashes", "[xnnpack][format]") {
  GraphWriter w;
  const uint32_t idx = w.addNamedConstant("weights/0", 16);
  const uint32_t c = w.addValue({4}, idx);
  const uint32_t x = w.addValue({4}), y = w.addValue({4});
  w.setExternal(x, 0, kFlagExternalInput);
  w.setExternal(y, 1, kFlagExternalOutput);
  w.addBinary(Kind::XNNAdd, x, c, y);
  const std::string blob = w.finish();
  BlobView view;
  std::string why;
  REQUIRE(parseBlob(blob.data(), blob.size(), &view, &why) == Error::Ok);
  const float data[4] = {1, 2, 3, 4};
  NamedDataLookup named = [&](const char *key, const uint8_t **d, size_t *n) {
    if (std::string(key) != "weights/0")
      return false;
    *d = reinterpret_cast<const uint8_t *>(data);
    *n = sizeof data;
    return true;
  };
  ConstantBytes bytes;
  REQUIRE(constantBytes(view, idx, named, &bytes, &why) == Error::Ok);
  CHECK(bytes.namedKey == "weights/0");
  CHECK(bytes.data == reinterpret_cast<const uint8_t *>(data));
  CHECK(constantBytes(view, idx, {}, &bytes, &why) == Error::NotFound);
  CHECK(why.find("weights/0") != std::string::npos);
  (void)c;

  std::vector<uint8_t> a(1000, 7), b = a;
  CHECK(hashBytes(a.data(), a.size()) == hashBytes(b.data(), b.size()));
  b[999] = 8;
  CHECK(hashBytes(a.data(), a.size()) != hashBytes(b.data(), b.size()));
  CHECK(hashBytes(a.data(), a.size(), 1) != hashBytes(a.data(), a.size(), 2));
}

TEST_CASE("xnnpack format: float16 values are planned as float32", "[xnnpack][format][fp16]") {
  // x (fp16 input) -> tanh (an own kernel, which reads no staged copy of a
  // float32 input) -> y (fp16 output). Both need float32 room in the
  // workspace: the widened input and the output before it is narrowed.
  GraphWriter w;
  const auto f16 = fb::XNNDatatype::xnn_datatype_fp16;
  const uint32_t x = w.addFloatValue({2, 3}, f16), y = w.addFloatValue({2, 3}, f16);
  w.setExternal(x, 0, kFlagExternalInput);
  w.setExternal(y, 1, kFlagExternalOutput);
  w.addUnary(Kind::XNNTanh, x, y);
  const std::string blob = w.finish();
  BlobView view;
  GraphPlan plan;
  std::string why;
  REQUIRE(parseBlob(blob.data(), blob.size(), &view, &why) == Error::Ok);
  REQUIRE(planGraph(view.graph, &plan, &why) == Error::Ok);
  for (const ValueInfo &v : plan.values) {
    CHECK(v.half);
    CHECK(v.dtype == fb::XNNDatatype::xnn_datatype_fp32);
    CHECK(v.declaredDtype() == f16);
    CHECK(v.bytes() == 24);
    CHECK(v.storedBytes() == 12);
  }
  CHECK(plan.stagingOffset[0] >= 0);
  CHECK(plan.workspaceOffset[1] >= 0);
  CHECK(plan.workspaceBytes >= 2 * 24);
}
