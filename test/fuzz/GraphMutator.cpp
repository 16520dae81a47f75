#include "test/fuzz/GraphMutator.h"

#include "dialects/exir/schema/OperatorSchema.h"
#include "serde/pt2/ZipArchive.h"
#include "test/unit/pt2/TestZip.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

namespace ptec::fuzz {

using json = nlohmann::json;
using Rng = std::mt19937;

namespace {

constexpr char kCommentTag[] = "ptec-fuzz";

size_t pick(Rng &rng, size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng) : 0; }
bool chance(Rng &rng, unsigned percent) { return pick(rng, 100) < percent; }

//===----------------------------------------------------------------------===//
// Zip comment: where the pipeline options travel
//===----------------------------------------------------------------------===//

/// Offset of the end of central directory record, or npos.
size_t findEocd(const uint8_t *data, size_t size) {
  if (size < 22)
    return std::string::npos;
  size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
  for (size_t at = size - 22 + 1; at-- > lowest;)
    if (data[at] == 0x50 && data[at + 1] == 0x4b && data[at + 2] == 5 && data[at + 3] == 6)
      return at;
  return std::string::npos;
}

std::string withComment(std::string zip, const std::string &comment) {
  size_t eocd = findEocd(reinterpret_cast<const uint8_t *>(zip.data()), zip.size());
  if (eocd == std::string::npos || comment.size() > 65535)
    return zip;
  zip.resize(eocd + 22);
  zip[eocd + 20] = static_cast<char>(comment.size() & 0xFF);
  zip[eocd + 21] = static_cast<char>(comment.size() >> 8);
  return zip + comment;
}

PipelineOptions randomOptions(Rng &rng) {
  static const char *kBackends[] = {"none", "demo", "cachetest"};
  static const char *kPlanners[] = {"best", "greedy", "best-fit", "first-fit"};
  PipelineOptions o;
  o.backend = kBackends[pick(rng, 3)];
  o.planner = kPlanners[pick(rng, 4)];
  o.writeBackAtEnd = chance(rng, 30);
  o.reinplace = !chance(rng, 30);
  o.shareDelegates = !chance(rng, 20);
  return o;
}

//===----------------------------------------------------------------------===//
// JSON value mutations
//===----------------------------------------------------------------------===//

struct Site {
  json *value;
  std::string key; // the member name that holds it ("" for array items)
};

void collect(json &j, const std::string &key, std::vector<Site> &out) {
  out.push_back({&j, key});
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      collect(it.value(), it.key(), out);
  } else if (j.is_array()) {
    for (json &item : j)
      collect(item, "", out);
  }
}

int64_t interestingInt(Rng &rng, int64_t v) {
  static const int64_t kValues[] = {0, 1, -1, 2, -2, 3, 4, 5, 7, 8, 16, 255, 256, 65535, 65536,
                                    std::numeric_limits<int32_t>::max(),
                                    std::numeric_limits<int32_t>::min(),
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(),
                                    int64_t(1) << 32, int64_t(1) << 40};
  // Wrapping arithmetic: INT64_MAX + 1 is a fine test value, not UB here.
  uint64_t u = static_cast<uint64_t>(v);
  switch (pick(rng, 6)) {
  case 0:
    return static_cast<int64_t>(u + 1);
  case 1:
    return static_cast<int64_t>(u - 1);
  case 2:
    return static_cast<int64_t>(0 - u);
  case 3:
    return static_cast<int64_t>(pick(rng, 9)) - 2; // dims, ranks, small sizes
  default:
    return kValues[pick(rng, sizeof kValues / sizeof *kValues)];
  }
}

json interestingFloat(Rng &rng, double v) {
  switch (pick(rng, 10)) {
  case 0:
    return "NaN";
  case 1:
    return "Infinity";
  case 2:
    return "-Infinity";
  case 3:
    return -v;
  case 4:
    return 0.0;
  case 5:
    return -0.0;
  case 6:
    return 1e308;
  case 7:
    return 1e-45;
  case 8:
    // An integer where a float goes (NaN and huge values do not convert).
    return std::fabs(v) < 1e18 ? static_cast<int64_t>(v) : int64_t(0);
  default:
    return v * 2 + 1;
  }
}

/// dtype codes of pt2-format section 5 (plus out-of-range ones).
int64_t interestingDtype(Rng &rng) {
  static const int64_t kCodes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 24, 28, 29, 30, 31, -1, 1000};
  return kCodes[pick(rng, sizeof kCodes / sizeof *kCodes)];
}

/// Tensor names defined anywhere in the graph (tensor_values keys).
std::vector<std::string> tensorNames(const json &doc) {
  std::vector<std::string> names;
  const json *graph = nullptr;
  if (doc.contains("graph_module") && doc["graph_module"].is_object() &&
      doc["graph_module"].contains("graph"))
    graph = &doc["graph_module"]["graph"];
  if (graph && graph->is_object() && graph->contains("tensor_values") &&
      (*graph)["tensor_values"].is_object())
    for (auto it = (*graph)["tensor_values"].begin(); it != (*graph)["tensor_values"].end(); ++it)
      names.push_back(it.key());
  return names;
}

json *nodesOf(json &doc) {
  if (!doc.is_object() || !doc.contains("graph_module"))
    return nullptr;
  json &gm = doc["graph_module"];
  if (!gm.is_object() || !gm.contains("graph") || !gm["graph"].is_object())
    return nullptr;
  json &graph = gm["graph"];
  if (!graph.contains("nodes") || !graph["nodes"].is_array())
    return nullptr;
  return &graph["nodes"];
}

std::string targetOf(const schema::FunctionSchema &s) {
  return "torch.ops." + s.ns + "." + s.name + "." + (s.overload.empty() ? "default" : s.overload);
}

/// A plausible argument value of `type` (the pt2 union encoding).
json argumentFor(Rng &rng, const schema::SchemaType &type, const std::vector<std::string> &tensors,
                 int depth = 0) {
  using schema::TypeKind;
  auto tensorRef = [&]() { return json{{"name", tensors.empty() ? "x" : tensors[pick(rng, tensors.size())]}}; };
  auto smallInt = [&]() { return chance(rng, 80) ? static_cast<int64_t>(pick(rng, 6)) - 1 : interestingInt(rng, 1); };
  switch (type.kind) {
  case TypeKind::Tensor:
    return {{"as_tensor", tensorRef()}};
  case TypeKind::Int:
  case TypeKind::SymInt:
  case TypeKind::DeviceIndex:
    return {{"as_int", smallInt()}};
  case TypeKind::Float:
    return {{"as_float", chance(rng, 80) ? 0.5 * static_cast<double>(pick(rng, 5)) : 1e30}};
  case TypeKind::Bool:
  case TypeKind::SymBool:
    return {{"as_bool", chance(rng, 50)}};
  case TypeKind::Scalar:
    return chance(rng, 50) ? json{{"as_int", smallInt()}} : json{{"as_float", 1.5}};
  case TypeKind::ScalarType:
    return {{"as_scalar_type", interestingDtype(rng)}};
  case TypeKind::MemoryFormat:
    return {{"as_memory_format", static_cast<int64_t>(pick(rng, 4))}};
  case TypeKind::Layout:
    return {{"as_layout", static_cast<int64_t>(pick(rng, 8))}};
  case TypeKind::Device:
    return {{"as_device", {{"type", "cpu"}, {"index", nullptr}}}};
  case TypeKind::Str:
    return {{"as_string", chance(rng, 50) ? "none" : "tanh"}};
  case TypeKind::Optional:
    if (chance(rng, 40) || type.elems.empty() || depth > 2)
      return {{"as_none", true}};
    if (type.elems[0].kind == TypeKind::Tensor)
      return {{"as_optional_tensor", {{"as_tensor", tensorRef()}}}};
    return argumentFor(rng, type.elems[0], tensors, depth + 1);
  case TypeKind::List: {
    size_t n = type.fixedSize ? static_cast<size_t>(*type.fixedSize) : pick(rng, 5);
    if (chance(rng, 10))
      n = pick(rng, 9);
    schema::TypeKind elem = type.elems.empty() ? TypeKind::Int : type.elems[0].kind;
    json items = json::array();
    for (size_t k = 0; k < n && k < 16; ++k) {
      if (elem == TypeKind::Tensor)
        items.push_back(tensorRef());
      else if (elem == TypeKind::Float)
        items.push_back(0.5 * static_cast<double>(k));
      else if (elem == TypeKind::Bool)
        items.push_back(chance(rng, 50));
      else
        items.push_back(chance(rng, 70) ? static_cast<int64_t>(k) : smallInt());
    }
    if (elem == TypeKind::Tensor)
      return {{"as_tensors", items}};
    if (elem == TypeKind::Float)
      return {{"as_floats", items}};
    if (elem == TypeKind::Bool)
      return {{"as_bools", items}};
    if (elem == TypeKind::Optional)
      return {{"as_optional_tensors", json::array({{{"as_tensor", tensorRef()}}, {{"as_none", true}}})}};
    return {{"as_ints", items}};
  }
  default:
    return {{"as_none", true}};
  }
}

/// Gives a node another target from the registry, with arguments built
/// from its schema (tensor arguments reuse the node's own inputs first).
void retarget(Rng &rng, json &node, const json &doc) {
  static const std::vector<const schema::FunctionSchema *> all = [] {
    std::vector<const schema::FunctionSchema *> v;
    for (const schema::FunctionSchema *s : schema::OperatorRegistry::builtin().all())
      if (s->hasSignature && !s->varArgs)
        v.push_back(s);
    return v;
  }();
  if (all.empty() || !node.is_object())
    return;
  const schema::FunctionSchema &s = *all[pick(rng, all.size())];
  std::vector<std::string> tensors;
  if (node.contains("inputs") && node["inputs"].is_array())
    for (const json &in : node["inputs"])
      if (in.is_object() && in.contains("arg") && in["arg"].is_object() &&
          in["arg"].contains("as_tensor") && in["arg"]["as_tensor"].is_object() &&
          in["arg"]["as_tensor"].contains("name") && in["arg"]["as_tensor"]["name"].is_string())
        tensors.push_back(in["arg"]["as_tensor"]["name"].get<std::string>());
  std::vector<std::string> pool = tensorNames(doc);
  if (tensors.empty() || chance(rng, 20))
    tensors.insert(tensors.end(), pool.begin(), pool.end());
  json inputs = json::array();
  for (const schema::Argument &a : s.arguments) {
    if (a.isOut() && !chance(rng, 5))
      continue;
    if (a.defaultValue && chance(rng, 50))
      continue;
    inputs.push_back({{"name", a.name}, {"arg", argumentFor(rng, a.type, tensors)},
                      {"kind", a.kwargOnly ? 2 : 1}});
  }
  node["target"] = targetOf(s);
  node["inputs"] = std::move(inputs);
}

/// One mutation somewhere in `doc`.
void mutateOnce(Rng &rng, json &doc, const std::vector<std::string> &targets) {
  json *nodes = nodesOf(doc);
  // Whole-node mutations first: they change structure, not just a value.
  if (nodes && !nodes->empty() && chance(rng, 25)) {
    size_t i = pick(rng, nodes->size());
    switch (pick(rng, 5)) {
    case 0:
      retarget(rng, (*nodes)[i], doc);
      return;
    case 1: // another target seen in this graph, arguments unchanged
      if (!targets.empty() && (*nodes)[i].is_object())
        (*nodes)[i]["target"] = targets[pick(rng, targets.size())];
      return;
    case 2: // move a node (use before definition, reordered effects)
    {
      json moved = (*nodes)[i];
      nodes->erase(nodes->begin() + static_cast<std::ptrdiff_t>(i));
      size_t to = pick(rng, nodes->size() + 1);
      nodes->insert(nodes->begin() + static_cast<std::ptrdiff_t>(to), std::move(moved));
      return;
    }
    case 3: // duplicate a node (two definitions of its outputs)
      nodes->insert(nodes->begin() + static_cast<std::ptrdiff_t>(pick(rng, nodes->size() + 1)),
                    (*nodes)[i]);
      return;
    default: // delete a node (uses without a definition)
      nodes->erase(nodes->begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }

  std::vector<Site> sites;
  collect(doc, "", sites);
  if (sites.empty())
    return;
  Site site = sites[pick(rng, sites.size())];
  json &v = *site.value;
  if (site.key == "dtype" && v.is_number()) {
    v = interestingDtype(rng);
  } else if (v.is_number_integer()) {
    v = interestingInt(rng, v.get<int64_t>());
  } else if (v.is_number_float()) {
    v = interestingFloat(rng, v.get<double>());
  } else if (v.is_boolean()) {
    v = !v.get<bool>();
  } else if (v.is_string()) {
    std::string s = v.get<std::string>();
    std::vector<std::string> names = tensorNames(doc);
    if (site.key == "target" && !targets.empty() && chance(rng, 50))
      v = targets[pick(rng, targets.size())];
    else if (site.key == "name" && !names.empty() && chance(rng, 80))
      v = names[pick(rng, names.size())]; // another tensor: shapes/dtypes disagree
    else if (chance(rng, 30))
      v = std::string();
    else if (chance(rng, 50) && !s.empty())
      v = s.substr(0, pick(rng, s.size()));
    else
      v = s + (chance(rng, 50) ? "_1" : ".");
  } else if (v.is_array()) {
    switch (pick(rng, 6)) {
    case 0:
      if (!v.empty())
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(pick(rng, v.size())));
      break;
    case 1:
      if (!v.empty() && v.size() < 64)
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(pick(rng, v.size() + 1)),
                 v[pick(rng, v.size())]);
      break;
    case 2:
      if (v.size() > 1)
        std::swap(v[pick(rng, v.size())], v[pick(rng, v.size())]);
      break;
    case 3:
      std::reverse(v.begin(), v.end());
      break;
    case 4:
      v = json::array();
      break;
    default: // grow to a rank past the runtime's limit
      while (!v.empty() && v.size() < 17)
        v.push_back(v[0]);
      break;
    }
  } else if (v.is_object() && !v.empty()) {
    // Drop a member, null it, or graft a same-keyed subtree from elsewhere.
    auto it = v.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(pick(rng, v.size())));
    std::string key = it.key();
    switch (pick(rng, 3)) {
    case 0:
      v.erase(key);
      break;
    case 1:
      v[key] = nullptr;
      break;
    default: {
      std::vector<json *> same;
      for (const Site &other : sites)
        if (other.key == key && other.value != &v[key])
          same.push_back(other.value);
      if (!same.empty())
        v[key] = *same[pick(rng, same.size())];
      break;
    }
    }
  }
}

bool isPayload(const std::string &name) {
  return (name.find("data/weights/") != std::string::npos ||
          name.find("data/constants/") != std::string::npos) &&
         name.size() > 5 && name.compare(name.size() - 5, 5, ".json") != 0;
}

bool isJson(const std::string &name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

bool isGraphJson(const std::string &name) {
  return isJson(name) && (name.find("models/") != std::string::npos ||
                          name.find("serialized_exported_program") != std::string::npos);
}

/// Byte-level fallback (and the mutation of non-JSON entries).
size_t byteMutate(uint8_t *data, size_t size, size_t maxSize, const ByteMutator &bytes) {
  return bytes ? bytes(data, size, maxSize) : size;
}

} // namespace

std::string PipelineOptions::str() const {
  std::ostringstream os;
  os << kCommentTag << " backend=" << backend << " planner=" << planner
     << " write-back=" << (writeBackAtEnd ? "end" : "earliest") << " reinplace=" << reinplace
     << " share=" << shareDelegates;
  return os.str();
}

std::string PipelineOptions::flags() const {
  std::string f = "--planner " + planner;
  if (backend != "none")
    f += " --backend " + backend;
  if (writeBackAtEnd)
    f += " --write-back end";
  if (!reinplace)
    f += " --no-reinplace";
  if (!shareDelegates)
    f += " --no-share-delegates";
  return f;
}

PipelineOptions readPipelineOptions(const uint8_t *data, size_t size) {
  PipelineOptions o;
  size_t eocd = findEocd(data, size);
  if (eocd == std::string::npos)
    return o;
  size_t len = data[eocd + 20] | (static_cast<size_t>(data[eocd + 21]) << 8);
  if (eocd + 22 + len > size)
    return o;
  std::string comment(reinterpret_cast<const char *>(data + eocd + 22), len);
  std::istringstream words(comment);
  std::string word;
  if (!(words >> word) || word != kCommentTag)
    return o;
  while (words >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      continue;
    std::string k = word.substr(0, eq), v = word.substr(eq + 1);
    if (k == "backend" && (v == "none" || v == "demo" || v == "cachetest"))
      o.backend = v;
    else if (k == "planner" && (v == "best" || v == "greedy" || v == "best-fit" || v == "first-fit"))
      o.planner = v;
    else if (k == "write-back")
      o.writeBackAtEnd = v == "end";
    else if (k == "reinplace")
      o.reinplace = v != "0";
    else if (k == "share")
      o.shareDelegates = v != "0";
  }
  return o;
}

size_t flipSomeBytes(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  Rng rng(seed);
  if (size == 0)
    return maxSize > 0 ? (data[0] = static_cast<uint8_t>(seed), 1) : 0;
  for (int k = 0, n = 1 + static_cast<int>(pick(rng, 4)); k < n; ++k)
    data[pick(rng, size)] ^= static_cast<uint8_t>(1u << pick(rng, 8));
  return size;
}

size_t mutatePt2(uint8_t *data, size_t size, size_t maxSize, unsigned seed,
                 const ByteMutator &bytes) {
  Rng rng(seed);
  std::unique_ptr<pt2::ZipArchive> zip;
  std::vector<pt2::test::ZipEntry> entries;
  try {
    zip = pt2::ZipArchive::openMemory(data, size);
    for (const std::string &name : zip->names()) {
      std::vector<uint8_t> b = zip->read(name);
      entries.push_back({name, std::string(b.begin(), b.end())});
    }
  } catch (const std::exception &) {
    return byteMutate(data, size, maxSize, bytes);
  }
  if (entries.empty())
    return byteMutate(data, size, maxSize, bytes);
  PipelineOptions options = readPipelineOptions(data, size);

  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<pt2::test::ZipEntry> out = entries;
    PipelineOptions outOptions = options;
    std::vector<size_t> graphs, configs, payloads;
    for (size_t k = 0; k < out.size(); ++k) {
      if (isGraphJson(out[k].name))
        graphs.push_back(k);
      else if (isJson(out[k].name))
        configs.push_back(k);
      else if (isPayload(out[k].name))
        payloads.push_back(k);
    }
    size_t roll = pick(rng, 100);
    if (roll < 8) {
      outOptions = randomOptions(rng);
    } else if (roll < 16 && !payloads.empty()) {
      std::string &p = out[payloads[pick(rng, payloads.size())]].data;
      if (!p.empty() && bytes) // same length: the values change, not the layout
        bytes(reinterpret_cast<uint8_t *>(&p[0]), p.size(), p.size());
    } else {
      std::vector<size_t> &from = (roll < 26 && !configs.empty()) || graphs.empty() ? configs : graphs;
      if (from.empty())
        return byteMutate(data, size, maxSize, bytes);
      std::string &text = out[from[pick(rng, from.size())]].data;
      json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (doc.is_discarded() || chance(rng, 3)) {
        // Invalid JSON too, now and then: the reader must refuse it cleanly.
        std::string t = text;
        t.resize(std::max<size_t>(t.size() + 16, 16));
        t.resize(byteMutate(reinterpret_cast<uint8_t *>(&t[0]), text.size(), t.size(), bytes));
        text = t;
      } else {
        std::vector<std::string> targets;
        if (json *nodes = nodesOf(doc))
          for (const json &n : *nodes)
            if (n.is_object() && n.contains("target") && n["target"].is_string())
              targets.push_back(n["target"].get<std::string>());
        for (int k = 0, n = 1 + static_cast<int>(pick(rng, 3)); k < n; ++k)
          mutateOnce(rng, doc, targets);
        text = doc.dump();
      }
    }
    std::string zipBytes;
    try {
      zipBytes = pt2::test::writeZip(out, pt2::test::ZipStyle::Torch);
    } catch (const std::exception &) {
      continue;
    }
    if (outOptions.str() != PipelineOptions().str())
      zipBytes = withComment(std::move(zipBytes), outOptions.str());
    if (zipBytes.size() > maxSize)
      continue;
    std::memcpy(data, zipBytes.data(), zipBytes.size());
    return zipBytes.size();
  }
  return size;
}

} // namespace ptec::fuzz
