// .ptd summaries and the external-data check of pte-inspect (see
// PtdInspect.h).
#include "tooling/PtdInspect.h"

#include "runtime/core/ScalarType.h"
#include "runtime/executor/FlatTensorData.h"
#include "serde/io/InputFile.h"
#include "serde/io/MappedFile.h"
#include "serde/pte/PtdHeader.h"
#include "serde/pte/flat_tensor_generated.h"
#include "serde/pte/program_generated.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstring>

namespace ptec::tooling {
namespace ft = ptec_flat_tensor;
namespace fb = executorch_flatbuffer;

bool looksLikePtd(const std::vector<uint8_t> &bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "FT", 2) == 0;
}

uint64_t alignmentOf(uint64_t offset) {
  uint64_t a = 1;
  while (a < 4096 && offset % (a * 2) == 0)
    a *= 2;
  return a;
}

namespace {

uint64_t readLE(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

std::string dtypeText(int8_t code) {
  return rt::toString(static_cast<rt::ScalarType>(code));
}

template <typename V> std::string listText(const V *v) {
  std::string s = "[";
  for (uint32_t i = 0; v && i < v->size(); ++i)
    s += (i ? ", " : "") + std::to_string(v->Get(i));
  return s + "]";
}

} // namespace

bool inspectPtd(const std::vector<uint8_t> &bytes, const std::string &fileName, bool json,
                std::string *out, std::string *err) {
  std::string detail;
  if (!rt::FlatTensorData::fromBuffer(bytes.data(), bytes.size(), &detail).ok()) {
    *err = fileName + ": error: " + detail;
    return false;
  }
  const uint8_t *h = bytes.data() + 8;
  const uint64_t length = readLE(h + 4, 4), fbOffset = readLE(h + 8, 8),
                 fbSize = readLE(h + 16, 8), base = readLE(h + 24, 8),
                 dataSize = readLE(h + 32, 8);
  const ft::FlatTensor *root = ft::GetFlatTensor(bytes.data());
  const auto *segments = root->segments();
  const auto *named = root->named_data();
  nlohmann::ordered_json doc = {
      {"file", fileName},
      {"size", bytes.size()},
      {"identifier", std::string(bytes.begin() + 4, bytes.begin() + 8)},
      {"version", root->version()},
      {"header",
       {{"magic", std::string(h, h + 4)},
        {"length", length},
        {"flatbuffer_offset", fbOffset},
        {"flatbuffer_size", fbSize},
        {"segment_base_offset", base},
        {"segment_data_size", dataSize}}},
      {"segments", nlohmann::ordered_json::array()},
      {"named_data", nlohmann::ordered_json::array()}};
  std::string text = fileName + ": " + std::to_string(bytes.size()) + " bytes, identifier " +
                     doc["identifier"].get<std::string>() + ", FlatTensor version " +
                     std::to_string(root->version()) + "\nheader: magic FH01, length " +
                     std::to_string(length) + ", flatbuffer_offset " + std::to_string(fbOffset) +
                     ", flatbuffer_size " + std::to_string(fbSize) + ", segment_base_offset " +
                     std::to_string(base) + ", segment_data_size " + std::to_string(dataSize) +
                     "\n";
  const uint32_t nseg = segments ? segments->size() : 0;
  text += "segments (" + std::to_string(nseg) + "):\n";
  for (uint32_t i = 0; i < nseg; ++i) {
    const ft::DataSegment *s = segments->Get(i);
    text += "  [" + std::to_string(i) + "] offset " + std::to_string(s->offset()) + ", size " +
            std::to_string(s->size()) + "\n";
    doc["segments"].push_back({{"offset", s->offset()}, {"size", s->size()}});
  }
  const uint32_t nnamed = named ? named->size() : 0;
  text += "named data (" + std::to_string(nnamed) + "):\n";
  for (uint32_t i = 0; i < nnamed; ++i) {
    const ft::NamedData *e = named->Get(i);
    const ft::DataSegment *s = segments->Get(e->segment_index()); // checked by the reader
    const uint64_t at = base + s->offset();
    nlohmann::ordered_json entry = {{"key", e->key()->str()},
                                    {"segment_index", e->segment_index()},
                                    {"file_offset", at},
                                    {"size", s->size()},
                                    {"alignment", alignmentOf(at)}};
    std::string layout = "no tensor layout";
    if (const ft::TensorLayout *l = e->tensor_layout()) {
      layout = dtypeText(l->scalar_type()) + " " + listText(l->sizes()) + " dim order " +
               listText(l->dim_order());
      entry["dtype"] = dtypeText(l->scalar_type());
      entry["sizes"] = l->sizes() ? std::vector<int32_t>(l->sizes()->begin(), l->sizes()->end())
                                  : std::vector<int32_t>{};
      entry["dim_order"] = l->dim_order() ? std::vector<int>(l->dim_order()->begin(),
                                                             l->dim_order()->end())
                                          : std::vector<int>{};
    }
    text += "  '" + e->key()->str() + "': " + layout + ", segment " +
            std::to_string(e->segment_index()) + " at file offset " + std::to_string(at) +
            ", " + std::to_string(s->size()) + " bytes, aligned " +
            std::to_string(alignmentOf(at)) + "\n";
    doc["named_data"].push_back(entry);
  }
  *out = json ? doc.dump(2) + "\n" : text;
  return true;
}

size_t checkPtd(const std::vector<uint8_t> &bytes, std::string *out) {
  size_t errors = 0;
  auto error = [&](const char *rule, const std::string &why) {
    *out += std::string("error: [") + rule + "] " + why + "\n";
    ++errors;
  };
  pte::PtdHeader header;
  if (std::string why = pte::checkPtdHeader(bytes.data(), bytes.size(), &header); !why.empty())
    error("ptd.header", why);
  std::string detail;
  if (!rt::FlatTensorData::fromBuffer(bytes.data(), bytes.size(), &detail).ok()) {
    error("ptd.read", detail);
    return errors; // nothing below can be trusted
  }
  const ft::FlatTensor *root = ft::GetFlatTensor(bytes.data());
  const auto *named = root->named_data();
  const uint64_t base = header.segmentBaseOffset;
  for (uint32_t i = 0; named && i < named->size(); ++i) {
    const ft::NamedData *e = named->Get(i);
    const ft::TensorLayout *l = e->tensor_layout();
    if (!l)
      continue;
    // Index and range were checked by the reader.
    const uint64_t at = base + root->segments()->Get(e->segment_index())->offset();
    const size_t esize = rt::elementSize(static_cast<rt::ScalarType>(l->scalar_type()));
    if (esize > 1 && at % esize != 0)
      error("ptd.align", "named_data[" + std::to_string(i) + "] '" + e->key()->str() +
                             "': " + dtypeText(l->scalar_type()) + " data at file offset " +
                             std::to_string(at) + " is not aligned to its " +
                             std::to_string(esize) +
                             "-byte elements (a program using it fails to load)");
  }
  return errors;
}

namespace {
/// Why the .ptd's tensor_layout for `key` is not `t`'s ("" when it agrees or
/// it has none): the comparison the runtime's loader makes.
std::string layoutProblem(const rt::FlatTensorData &ptd, const char *key, const fb::Tensor &t) {
  auto stored = ptd.layout(key);
  if (!stored.ok())
    return "";
  return rt::FlatTensorData::layoutMismatch(key, stored.get(),
                                            rt::FlatTensorData::programLayout(t));
}
} // namespace

size_t checkExternalData(const std::vector<uint8_t> &bytes, const std::string &dataPath,
                         std::string *problems) {
  // A regular file only (a FIFO would block the open), mapped as the
  // runtime maps it, so data pointers are aligned as they are there.
  if (std::string why = io::checkInputFile(dataPath); !why.empty()) {
    *problems = why;
    return SIZE_MAX;
  }
  std::shared_ptr<const io::MappedFile> map = io::MappedFile::open(dataPath, problems);
  if (!map)
    return SIZE_MAX;
  pte::PtdHeader header;
  if (std::string why = pte::checkPtdHeader(map->data(), map->size(), &header); !why.empty()) {
    *problems = why;
    return SIZE_MAX;
  }
  auto ptd = rt::FlatTensorData::fromBuffer(map->data(), map->size(), problems);
  if (!ptd.ok())
    return SIZE_MAX;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), 64, 1u << 30);
  if (!fb::VerifyProgramBuffer(verifier))
    return 0; // --check has said why already
  size_t missing = 0, found = 0;
  const auto *plans = fb::GetProgram(bytes.data())->execution_plan();
  for (uint32_t m = 0; plans && m < plans->size(); ++m) {
    const auto *values = plans->Get(m)->values();
    for (uint32_t i = 0; values && i < values->size(); ++i) {
      const fb::Tensor *t = values->Get(i)->val_as_Tensor();
      const fb::ExtraTensorInfo *x = t ? t->extra_tensor_info() : nullptr;
      if (!x || x->location() != fb::TensorDataLocation::EXTERNAL || !x->fully_qualified_name())
        continue;
      size_t need = rt::elementSize(static_cast<rt::ScalarType>(t->scalar_type()));
      for (uint32_t d = 0; t->sizes() && d < t->sizes()->size(); ++d)
        need *= static_cast<size_t>(std::max(0, t->sizes()->Get(d)));
      const char *key = x->fully_qualified_name()->c_str();
      auto data = ptd.get()->get(key);
      std::string where = "execution_plan[" + std::to_string(m) + "].values[" +
                          std::to_string(i) + "] '" + key + "'";
      if (!data.ok()) {
        *problems += "error: [external.missing] " + where + ": not in " + dataPath + "\n";
        ++missing;
      } else if (data->size() < need) {
        *problems += "error: [external.size] " + where + ": " + std::to_string(data->size()) +
                     " bytes in " + dataPath + ", the tensor needs " + std::to_string(need) +
                     "\n";
        ++missing;
      } else if (std::string why = layoutProblem(*ptd.get(), key, *t); !why.empty()) {
        *problems += "error: [external.layout] " + where + ": " + why + "\n";
        ++missing;
      } else if (size_t esize = rt::elementSize(static_cast<rt::ScalarType>(t->scalar_type()));
                 esize > 1 && reinterpret_cast<uintptr_t>(data->data()) % esize != 0) {
        // What a method's load refuses (pte-run: "external data is not aligned").
        *problems += "error: [external.align] " + where + ": its data in " + dataPath +
                     " is not aligned to its " + std::to_string(esize) + "-byte elements\n";
        ++missing;
      } else {
        ++found;
      }
    }
  }
  *problems += dataPath + ": " + std::to_string(found) + " external tensors found, " +
               std::to_string(missing) + " missing, short, laid out differently or misaligned\n";
  return missing;
}

} // namespace ptec::tooling
