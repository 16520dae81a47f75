#include "serde/pt2/TorchSave.h"

#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/Unpickler.h"
#include "serde/pt2/Weights.h"
#include "serde/pt2/ZipArchive.h"

namespace ptec::pt2 {

namespace {
// torch.save's root folder is "archive" for buffers and the file stem
// otherwise; find it by its data.pkl.
std::string findRoot(const ZipArchive &zip, const std::string &entryName) {
  for (const std::string &name : zip.names()) {
    if (name == "data.pkl")
      return "";
    size_t slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash, std::string::npos, "/data.pkl") == 0)
      return name.substr(0, slash + 1);
  }
  fail(entryName + ": not a torch.save archive (no data.pkl)");
}
}  // namespace

std::map<std::string, WeightTensor> readTorchSaveTensors(const std::vector<uint8_t> &zipBytes,
                                                         const std::string &entryName) {
  std::unique_ptr<ZipArchive> zip;
  try {
    zip = ZipArchive::openMemory(zipBytes.data(), zipBytes.size());
  } catch (const Pt2Error &e) {
    fail(entryName + ": nested torch.save archive: " + e.what());
  }
  std::string root = findRoot(*zip, entryName);
  auto inner = [&](const std::string &name) { return entryName + ": " + root + name; };
  if (zip->has(root + "byteorder")) {
    std::string order = zip->readTrimmedText(root + "byteorder");
    if (order != "little")
      fail(inner("byteorder") + ": byte order '" + order + "' is unsupported (little only)");
  }

  std::vector<uint8_t> pkl = zip->read(root + "data.pkl");
  pickle::Unpickler unpickler;
  const pickle::Object *top = nullptr;
  try {
    top = unpickler.load(pkl.data(), pkl.size());
  } catch (const Pt2Error &e) {
    fail(inner("data.pkl") + ": " + e.what());
  }
  if (top->kind != pickle::Object::Kind::Dict)
    fail(inner("data.pkl") + ": expected a dict of tensors, got a " + pickle::kindName(top->kind));

  std::map<std::string, std::shared_ptr<const ByteStorage>> storages;
  std::map<std::string, WeightTensor> out;
  uint64_t expandedBytes = 0;
  for (size_t k = 0; k + 1 < top->items.size(); k += 2) {
    const pickle::Object *key = top->items[k];
    const pickle::Object *value = top->items[k + 1];
    if (key->kind != pickle::Object::Kind::String)
      fail(inner("data.pkl") + ": dict key is a " + pickle::kindName(key->kind) + ", not a str");
    if (value->kind != pickle::Object::Kind::Tensor)
      fail(inner("data.pkl") + ": entry '" + key->s + "' is a " + pickle::kindName(value->kind) +
           ", not a plain tensor");
    const pickle::Object &storage = *value->storage;
    const std::string dataName = root + "data/" + storage.key;
    std::string what = "tensor '" + key->s + "' (" + entryName + ": " + dataName + ")";
    auto &bytes = storages[storage.key];
    if (!bytes) {
      if (!zip->has(dataName))
        fail(what + ": storage file is missing");
      std::shared_ptr<const ByteStorage> data = zip->readPayload(dataName, what);
      uint64_t want = static_cast<uint64_t>(storage.numel) * dtypeSize(storage.dtype);
      if (storage.numel > 0 && want / static_cast<uint64_t>(storage.numel) != dtypeSize(storage.dtype))
        fail(what + ": storage size overflows");
      if (data->size() != want)
        fail(what + ": storage file has " + std::to_string(data->size()) + " bytes, expected " +
             std::to_string(want) + " (" + std::to_string(storage.numel) + " x " +
             dtypeName(storage.dtype) + ")");
      bytes = std::move(data);
    }
    WeightTensor w;
    w.fqn = key->s;
    w.isParam = value->isParam;
    w.meta.dtype = value->dtype;
    w.meta.sizes = value->sizes;
    w.meta.strides = value->strides;
    w.meta.storageOffset = value->storageOffset;
    w.meta.requiresGrad = value->requiresGrad;
    w.meta.device = storage.location;
    w.storage = bytes;
    w.data = materializeStrided(bytes->view(), w.meta, what, &expandedBytes,
                                &w.wholeStorage);
    out[w.fqn] = std::move(w);
  }
  try {
    zip->checkUnreadEntries();
  } catch (const Pt2Error &e) {
    fail(entryName + ": nested torch.save archive: " + e.what());
  }
  return out;
}

}  // namespace ptec::pt2
