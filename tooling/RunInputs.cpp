// pte-run's input files, random inputs and written .npy files (see
// RunInputs.h).
#include "tooling/RunInputs.h"

#include "runtime/executor/Npy.h"
#include "serde/io/ContentKind.h"
#include "serde/io/InputFile.h"
#include "serde/pte/FileChunks.h"
#include "tooling/CallSequence.h"
#include "tooling/ExitCodes.h"
#include "tooling/ValueFormat.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace ptec::tooling {
using namespace ptec::rt;

void fillRandom(ScalarType dtype, size_t numel, std::vector<uint8_t> &bytes, std::mt19937 &rng) {
  bytes.assign(numel * elementSize(dtype), 0);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  for (size_t i = 0; i < numel; ++i) {
    switch (dtype) {
    case ScalarType::Float: reinterpret_cast<float *>(bytes.data())[i] = float(real(rng)); break;
    case ScalarType::Double: reinterpret_cast<double *>(bytes.data())[i] = real(rng); break;
    case ScalarType::Long: reinterpret_cast<int64_t *>(bytes.data())[i] = small(rng); break;
    case ScalarType::Int: reinterpret_cast<int32_t *>(bytes.data())[i] = small(rng); break;
    case ScalarType::Bool: bytes[i] = uint8_t(small(rng) & 1); break;
    default: bytes[i * elementSize(dtype)] = uint8_t(small(rng)); break;
    }
  }
}

namespace {

/// Why a tensor data file holds something else ("" when it may hold tensor
/// data): a .pte, .pt2, .ptd, IR, ... is named as what it is. Raw bytes
/// have no signature, so only files with one are refused.
std::string otherContent(const std::string &path, const uint8_t *bytes, size_t size) {
  std::string_view all(reinterpret_cast<const char *>(bytes), size);
  io::ContentKind kind =
      io::sniffContent(all.substr(0, io::kSniffHeadBytes),
                       all.substr(size - std::min(size, io::kSniffTailBytes)));
  switch (kind) {
  case io::ContentKind::Npy:
  case io::ContentKind::Binary:
  case io::ContentKind::Text:
  case io::ContentKind::Empty:
    return "";
  default:
    return io::wrongContentMessage(path, kind, "tensor data (.npy, or raw bytes)");
  }
}

bool readRaw(const std::string &src, const Tensor &t, InputData &d, std::string &problem) {
  uint64_t size = 0;
  if (std::string why = io::checkInputFile(src, io::kAnySize, &size); !why.empty()) {
    problem = ": " + src + ": " + why;
    return false;
  }
  if (size != t.nbytes()) {
    io::ContentKind kind = io::ContentKind::Binary;
    std::string err;
    if (io::sniffFile(src, &kind, &err)) {
      if (kind != io::ContentKind::Npy && kind != io::ContentKind::Binary &&
          kind != io::ContentKind::Text && kind != io::ContentKind::Empty) {
        problem = ": " + io::wrongContentMessage(src, kind, "tensor data (.npy, or raw bytes)");
        return false;
      }
      if (kind == io::ContentKind::Npy) {
        problem = ": " + src + " is a NumPy array (.npy) under another name; name it .npy "
                               "(other names are read as raw bytes)";
        return false;
      }
    }
    problem = ": raw file '" + src + "' has " + std::to_string(size) + " bytes, " +
              toString(t.dtype()) + " " + shapeString(t.sizes()) + " needs " +
              std::to_string(t.nbytes());
    return false;
  }
  std::string why;
  if (!io::readInputFile(src, t.nbytes(), &d.bytes, &why)) {
    problem = ": " + src + ": " + why;
    return false;
  }
  if (std::string other = otherContent(src, d.bytes.data(), d.bytes.size()); !other.empty()) {
    problem = ": " + other;
    return false;
  }
  d.sizes.assign(t.sizes().begin(), t.sizes().end());
  return true;
}

bool readNpyInput(const std::string &src, const Tensor &t, InputData &d, std::string &problem) {
  std::string why;
  auto arr = readNpyFile(src, static_cast<size_t>(t.numel()), &why);
  if (!arr.ok()) {
    problem = ": " + why;
    return false;
  }
  if (arr->dtype != t.dtype()) {
    problem = ": " + src + " holds " + toString(arr->dtype) + ", the method expects " +
              toString(t.dtype());
    return false;
  }
  d.sizes = arr->shape;
  d.bytes = std::move(arr->data);
  return true;
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

Result<NpyArray> readNpyFile(const std::string &path, size_t maxElements, std::string *why) {
  // Room for the widest element (16 bytes) and a generous header: the file
  // is refused before it is read when it cannot be a tensor of that size.
  const uint64_t limit = uint64_t(maxElements) * 16 + (uint64_t(1) << 20);
  std::vector<uint8_t> bytes;
  std::string problem;
  if (!io::readInputFile(path, limit, &bytes, &problem)) {
    *why = path + ": " + problem;
    return Error::AccessFailed;
  }
  std::string detail;
  auto arr = parseNpy(bytes.data(), bytes.size(), &detail);
  if (!arr.ok()) {
    std::string other = otherContent(path, bytes.data(), bytes.size());
    *why = other.empty() ? path + ": " + detail : other;
  }
  return arr;
}

bool readInputs(const std::vector<std::string> &sources, const Method &method, int call,
                std::mt19937 &rng, std::vector<InputData> &data, std::string &problem,
                int &code) {
  code = kExitFailed;
  for (size_t i = 0; i < data.size(); ++i) {
    const EValue &decl = *method.input(i);
    std::string src = sources.empty() ? "random" : forCall(sources[i], call);
    std::string what = "input " + std::to_string(i);
    if (!decl.isTensor()) {
      if (src != "random") {
        problem = what + " is a " + describeValue(decl) +
                  ", fixed by the program; pass 'random' for it";
        code = kExitUsage;
        return false;
      }
      continue;
    }
    const Tensor &t = decl.toTensor();
    InputData &d = data[i];
    std::string why;
    if (src == "random") {
      if (call > 0 && !d.bytes.empty())
        continue; // random inputs are drawn once and reused by every call
      d.sizes.assign(t.sizes().begin(), t.sizes().end());
      fillRandom(t.dtype(), static_cast<size_t>(t.numel()), d.bytes, rng);
    } else if (!(endsWith(src, ".npy") ? readNpyInput(src, t, d, why) : readRaw(src, t, d, why))) {
      problem = what + why;
      return false;
    }
    Span<const int64_t> sizes(d.sizes.data(), d.sizes.size());
    if (d.tensor.init(t.dtype(), sizes) != Error::Ok) {
      // Never bind a half-initialised tensor: it would run with another shape.
      problem = what + ": " + src + ": shape " + shapeString(sizes) + " (rank " +
                std::to_string(d.sizes.size()) + ") cannot be a tensor of this runtime (at most " +
                std::to_string(kTensorMaxRank) + " dimensions, no negative size)";
      return false;
    }
    d.tensor.setData(d.bytes.data(), d.bytes.size());
  }
  return true;
}

bool makeDirs(const std::string &dir, std::string &why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = "cannot create directory '" + dir + "': " + ec.message();
    return false;
  }
  return true;
}

namespace {
bool writeNpyFile(const std::string &path, const Tensor &t, std::string &why) {
  auto bytes = encodeNpy(t.dtype(), t.sizes(), t.data(), t.nbytes());
  if (!bytes.ok()) {
    why = path + ": cannot encode " + toString(t.dtype()) + " as .npy";
    return false;
  }
  std::string err;
  if (!pte::writeFileAtomic(path, bytes.get(), &err)) {
    why = "cannot write " + path + ": " + err;
    return false;
  }
  return true;
}
} // namespace

bool writeTensor(const std::string &path, const EValue &v, std::string &why) {
  if (!v.isTensor())
    return true;
  const Tensor &t = v.toTensor();
  if (t.isContiguous())
    return writeNpyFile(path, t, why);
  // .npy is row-major: convert a channels-last (or other) output first.
  std::vector<uint8_t> bytes(t.nbytes());
  Tensor c;
  if (c.init(t.dtype(), t.sizes()) != Error::Ok) {
    why = "shape " + shapeString(t.sizes()) + " cannot be converted";
    return false;
  }
  c.setData(bytes.data(), bytes.size());
  c.copyElementsFrom(t);
  return writeNpyFile(path, c, why);
}

} // namespace ptec::tooling
