#include "serde/pt2/Pt2Reader.h"

#include "serde/io/MappedFile.h"

#include "serde/pt2/GraphJson.h"
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/SchemaHistory.h"
#include "serde/pt2/TorchSave.h"
#include "serde/pt2/Weights.h"
#include "serde/pt2/ZipArchive.h"

#include <new>

namespace ptec::pt2 {

namespace {
bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The folder ("" or "x/") holding `leaf` directly, for names at depth <= 1.
bool rootOf(const std::string &name, const std::string &leaf, std::string &root) {
  if (name == leaf) {
    root.clear();
    return true;
  }
  size_t slash = name.find('/');
  if (slash == std::string::npos || name.compare(slash + 1, std::string::npos, leaf) != 0)
    return false;
  root = name.substr(0, slash + 1);
  return true;
}

// ---------------------------------------------------------------- PT2 archive

struct PayloadDir {
  const char *dir;          // "data/weights/"
  const char *configs[2];   // config file names, "%" = model name
  const char *word;         // "weight" / "constant" in messages
};

std::string withModel(const char *pattern, const std::string &model) {
  std::string s(pattern);
  size_t p = s.find('%');
  return p == std::string::npos ? s : s.replace(p, 1, model);
}

void loadPayloads(const ZipArchive &zip, const std::string &root, const std::string &model,
                  const PayloadDir &pd, std::map<std::string, WeightTensor> &out,
                  uint64_t &expandedBytes) {
  const std::string dir = root + pd.dir;
  std::string configName;
  for (const char *c : pd.configs)
    if (zip.has(dir + withModel(c, model))) {
      configName = dir + withModel(c, model);
      break;
    }
  if (configName.empty()) {
    // torch 2.8 wrote one pickled torch.save of the whole dict instead.
    if (zip.has(dir + model + ".pt"))
      fail(dir + model + ".pt: " + pd.word +
           "s are a pickled torch.save dict (torch 2.8 archive); unsupported, re-save with a "
           "newer torch");
    return;
  }
  std::vector<PayloadMeta> metas = parsePayloadConfigJson(zip.read(configName), configName);
  std::map<std::string, std::shared_ptr<const ByteStorage>> storages;
  for (const PayloadMeta &m : metas) {
    const std::string file = dir + m.pathName;
    std::string what = std::string(pd.word) + " '" + m.fqn + "' (" + file + ")";
    if (m.usePickle) {
      if (!m.hasTensorMeta || m.pathName.rfind("custom_obj", 0) == 0)
        fail(what + " is a pickled custom object; unsupported");
      fail(what + " is a pickled tensor subclass; unsupported");
    }
    if (!m.hasTensorMeta)
      fail(what + ": config entry has no tensor_meta");
    if (m.pathName.empty() || m.pathName.find("..") != std::string::npos)
      fail(what + ": bad path_name '" + m.pathName + "'");
    if (m.meta.layout != 7)
      fail(what + ": layout " + std::to_string(m.meta.layout) + " is not strided; unsupported");
    auto &bytes = storages[m.pathName];
    if (!bytes) {
      if (!zip.has(file))
        fail(what + ": payload file is missing");
      bytes = zip.readPayload(file, what);
    }
    WeightTensor w;
    w.fqn = m.fqn;
    w.meta = m.meta;
    w.isParam = m.isParam;
    w.storage = bytes;
    w.data = materializeStrided(bytes->view(), w.meta, what, &expandedBytes,
                                &w.wholeStorage);
    out[w.fqn] = std::move(w);
  }
}

const PayloadDir kWeightsDir{"data/weights/",
                             {"%_weights_config.json", "%_model_param_config.json"},
                             "weight"};
const PayloadDir kConstantsDir{"data/constants/",
                               {"%_constants_config.json", "%_model_constants_config.json"},
                               "constant"};

void readPt2Archive(const ZipArchive &zip, const std::string &root, ExportedProgram &ep) {
  ep.container = ExportedProgram::Container::Pt2Archive;
  ep.archiveRoot = root;
  const std::string format = zip.readTrimmedText(root + "archive_format");
  if (format != "pt2")
    fail(root + "archive_format: says '" + format.substr(0, 40) + "', expected 'pt2'");
  if (zip.has(root + "archive_version")) {
    std::string version = zip.readTrimmedText(root + "archive_version");
    if (version != "0")
      fail(root + "archive_version: version '" + version.substr(0, 40) +
           "' is unsupported (only 0)");
  }
  if (zip.has(root + "byteorder")) {
    std::string order = zip.readTrimmedText(root + "byteorder");
    if (order != "little")
      fail(root + "byteorder: byte order '" + order.substr(0, 40) +
           "' is unsupported (little only)");
  }

  // The model JSON: models/model.json, or the only models/*.json.
  const std::string modelsDir = root + "models/";
  std::vector<std::string> models;
  for (const std::string &name : zip.names())
    if (name.compare(0, modelsDir.size(), modelsDir) == 0 && endsWith(name, ".json") &&
        name.find('/', modelsDir.size()) == std::string::npos)
      models.push_back(name);
  std::string modelJson;
  if (zip.has(modelsDir + "model.json"))
    modelJson = modelsDir + "model.json";
  else if (models.size() == 1)
    modelJson = models.front();
  else if (models.empty())
    fail(root + "archive_format: PT2 archive has no " + modelsDir +
         "*.json (an AOTInductor-only package?)");
  else
    fail(modelsDir + ": several models and none is model.json; cannot choose");
  std::string model = modelJson.substr(modelsDir.size());
  model.resize(model.size() - 5);

  // Parsed in place where the archive is mapped (tens of MiB on big graphs:
  // no copy), then its pages are given back.
  std::shared_ptr<const ByteStorage> text = zip.readPayload(modelJson, modelJson);
  parseExportedProgramJson(text->view(), modelJson, ep);
  io::releasePages(text->data(), text->size());
  uint64_t expandedBytes = 0;
  loadPayloads(zip, root, model, kWeightsDir, ep.weights, expandedBytes);
  loadPayloads(zip, root, model, kConstantsDir, ep.constants, expandedBytes);
}

// ------------------------------------------------------------------ legacy zip

void readLegacyZip(const ZipArchive &zip, const std::string &root, ExportedProgram &ep) {
  ep.container = ExportedProgram::Container::LegacyZip;
  ep.archiveRoot = root;
  // `version` holds the schema version ("1" from torch 2.1, "2" from 2.2,
  // "<major>.<minor>" later). The JSON's own schema_version wins; the record
  // stands in when the JSON has none.
  ExternalSchemaVersion recorded;
  bool hasRecord = zip.has(root + "version");
  if (hasRecord) {
    std::string version = zip.readTrimmedText(root + "version");
    if (!parseVersionRecord(version, recorded.major, recorded.minor))
      fail(root + "version: '" + version.substr(0, 40) +
           "' is not a schema version (<major> or <major>.<minor>)");
  }
  const std::string json = root + "serialized_exported_program.json";
  std::shared_ptr<const ByteStorage> text = zip.readPayload(json, json);
  parseExportedProgramJson(text->view(), json, ep, hasRecord ? &recorded : nullptr);
  io::releasePages(text->data(), text->size());

  auto nested = [&](const char *pt, const char *alias, std::map<std::string, WeightTensor> &out) {
    // torch 2.1 wrote the .json names for what are torch.save zips too.
    for (const char *name : {pt, alias}) {
      if (zip.has(root + name)) {
        out = readTorchSaveTensors(zip.read(root + name), root + name);
        return;
      }
    }
  };
  nested("serialized_state_dict.pt", "serialized_state_dict.json", ep.weights);
  nested("serialized_constants.pt", "serialized_constants.json", ep.constants);
}

// ---------------------------------------------------------------- validation

// Every lifted input must have its bytes, in the map the API promises, with
// the dtype and shape the graph expects.
void bindSignature(ExportedProgram &ep, const std::string &where) {
  for (const InputSpec &spec : ep.inputSpecs) {
    const char *word = nullptr;
    std::map<std::string, WeightTensor> *home = nullptr, *other = nullptr;
    switch (spec.kind) {
    case InputKind::Parameter:
      word = "parameter";
      home = &ep.weights;
      other = &ep.constants;
      break;
    case InputKind::Buffer:
      word = "buffer";
      home = spec.persistent ? &ep.weights : &ep.constants;
      other = spec.persistent ? &ep.constants : &ep.weights;
      break;
    case InputKind::TensorConstant:
      word = "tensor constant";
      home = &ep.constants;
      other = &ep.weights;
      break;
    case InputKind::CustomObj:
      fail("custom object '" + spec.target + "' (class " + spec.arg.s +
           ") is a pickled TorchScript object; unsupported");
    default:
      continue;
    }
    auto it = home->find(spec.target);
    if (it == home->end()) {
      auto moved = other->find(spec.target);
      if (moved == other->end())
        fail(std::string(word) + " '" + spec.target + "' (graph input '" + spec.arg.name +
             "') has no stored data in " + where);
      it = home->emplace(spec.target, std::move(moved->second)).first;
      other->erase(moved);
    }
    if (spec.kind == InputKind::Parameter)
      it->second.isParam = true;
    auto tv = ep.graph.tensorValues.find(spec.arg.name);
    if (tv == ep.graph.tensorValues.end())
      continue;
    const TensorMeta &want = tv->second;
    const TensorMeta &have = it->second.meta;
    if (!want.symSizes.empty())
      fail(std::string(word) + " '" + spec.target + "' (graph input '" + spec.arg.name +
           "') has a symbolic size; only user inputs can be dynamic");
    if (want.dtype != have.dtype || want.sizes != have.sizes)
      fail(std::string(word) + " '" + spec.target + "': stored tensor is " +
           describeTensor(have.dtype, have.sizes) + " but graph input '" + spec.arg.name +
           "' is " + describeTensor(want.dtype, want.sizes));
  }
}

// ------------------------------------------------------------------- dispatch

ExportedProgram readArchive(const ZipArchive &zip) {
  ExportedProgram ep;
  // PT2 archive: find the root by its archive_format record, never by file name.
  std::string pt2Root;
  bool isPt2 = false;
  for (const std::string &name : zip.names()) {
    std::string root;
    if (!rootOf(name, "archive_format", root))
      continue;
    // Several candidates: prefer the one that also holds models/.
    bool hasModels = false;
    for (const std::string &n : zip.names())
      if (n.compare(0, root.size() + 7, root + "models/") == 0) {
        hasModels = true;
        break;
      }
    if (!isPt2 || hasModels) {
      pt2Root = root;
      isPt2 = true;
      if (hasModels)
        break;
    }
  }
  if (isPt2) {
    readPt2Archive(zip, pt2Root, ep);
    bindSignature(ep, pt2Root + "data/");
    return ep;
  }
  for (const std::string &name : zip.names()) {
    std::string root;
    if (rootOf(name, "serialized_exported_program.json", root)) {
      readLegacyZip(zip, root, ep);
      bindSignature(ep, root + "serialized_state_dict.pt / serialized_constants.pt");
      return ep;
    }
  }
  for (const std::string &name : zip.names())
    if (name.find("models/") != std::string::npos && endsWith(name, ".json"))
      fail("no archive_format record (found '" + name +
           "'); not a PT2 archive written by torch.export.save");
  fail("not a torch.export archive: neither an archive_format record nor "
       "serialized_exported_program.json");
}

template <typename Open>
std::optional<ExportedProgram> guarded(const std::string &path, ReadError *err, Open open) {
  std::string message;
  try {
    std::unique_ptr<ZipArchive> zip = open();
    ExportedProgram ep = readArchive(*zip);
    zip->checkUnreadEntries();
    ep.path = path;
    return ep;
  } catch (const Pt2Error &e) {
    message = e.what();
  } catch (const std::bad_alloc &) {
    message = "out of memory while reading";
  } catch (const std::exception &e) {
    message = std::string("internal error: ") + e.what();
  } catch (...) {
    message = "internal error";
  }
  if (err)
    err->message = path + ": " + message;
  return std::nullopt;
}
}  // namespace

std::optional<ExportedProgram> readPt2(const std::string &path, ReadError *err) {
  return guarded(path, err, [&] { return ZipArchive::openFile(path); });
}

std::optional<ExportedProgram> readPt2FromMemory(const void *data, size_t size,
                                                 const std::string &nameForErrors,
                                                 ReadError *err) {
  return guarded(nameForErrors, err, [&] { return ZipArchive::openMemory(data, size); });
}

}  // namespace ptec::pt2
