#include "runtime/executor/Npy.h"

#include "runtime/core/Tensor.h"
#include "runtime/executor/ErrorDetail.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ptec::rt {
namespace {

const char kMagic[] = "\x93NUMPY";

struct DtypeName {
  const char *descr;
  ScalarType type;
};
const DtypeName kDtypes[] = {
    {"<f4", ScalarType::Float}, {"<f8", ScalarType::Double}, {"<i8", ScalarType::Long},
    {"<i4", ScalarType::Int},   {"|b1", ScalarType::Bool},   {"|u1", ScalarType::Byte},
    {"<u1", ScalarType::Byte},  {"<b1", ScalarType::Bool},   {"|i1", ScalarType::Char},
    {"<f2", ScalarType::Half},
};

const char *descrOf(ScalarType t) {
  switch (t) {
  case ScalarType::Float: return "<f4";
  case ScalarType::Double: return "<f8";
  case ScalarType::Half: return "<f2";
  case ScalarType::Long: return "<i8";
  case ScalarType::Int: return "<i4";
  case ScalarType::Bool: return "|b1";
  case ScalarType::Byte: return "|u1";
  case ScalarType::Char: return "|i1";
  default: return nullptr;
  }
}

// Value of `key` in the header dict: the text after "'key':" up to the next
// top-level ',' or '}' (or the matching ')' for the shape tuple).
bool findValue(const std::string &h, const char *key, std::string &out) {
  std::string k = std::string("'") + key + "'";
  size_t p = h.find(k);
  if (p == std::string::npos)
    return false;
  p = h.find(':', p + k.size());
  if (p == std::string::npos)
    return false;
  ++p;
  while (p < h.size() && h[p] == ' ')
    ++p;
  size_t end;
  if (p < h.size() && h[p] == '(') {
    end = h.find(')', p);
    if (end == std::string::npos)
      return false;
    ++end;
  } else {
    end = h.find_first_of(",}", p);
    if (end == std::string::npos)
      return false;
  }
  out = h.substr(p, end - p);
  return true;
}

} // namespace

int64_t NpyArray::numel() const { return numelOf({shape.data(), shape.size()}); }

Result<NpyArray> parseNpy(const uint8_t *bytes, size_t size, std::string *detail) {
  if (size < 10 || std::memcmp(bytes, kMagic, 6) != 0)
    return failWith(detail, Error::InvalidArgument, "not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, pos;
  if (major == 1) {
    headerLen = bytes[8] | (size_t(bytes[9]) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return failWith(detail, Error::InvalidArgument, ".npy header is truncated");
    headerLen = bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) |
                (size_t(bytes[11]) << 24);
    pos = 12;
  } else {
    return failWith(detail, Error::NotSupported, ".npy version %u is not supported", major);
  }
  if (headerLen > size - pos)
    return failWith(detail, Error::InvalidArgument, ".npy header runs past the end of the file");
  std::string h(reinterpret_cast<const char *>(bytes + pos), headerLen);
  pos += headerLen;

  std::string descr, fortran, shape;
  if (!findValue(h, "descr", descr) || !findValue(h, "fortran_order", fortran) ||
      !findValue(h, "shape", shape))
    return failWith(detail, Error::InvalidArgument,
                    ".npy header lacks descr, fortran_order or shape");
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  NpyArray a;
  bool known = false;
  for (const DtypeName &d : kDtypes)
    if (descr == d.descr) {
      a.dtype = d.type;
      known = true;
    }
  if (!known)
    return failWith(detail, Error::NotSupported,
                    ".npy dtype '%s' is not supported (float32, float64, float16, int64, int32, bool, "
                    "uint8, int8)",
                    descr.c_str());
  if (fortran.find("True") != std::string::npos)
    return failWith(detail, Error::NotSupported, ".npy fortran_order arrays are not supported");
  // shape: "(2, 3)" or "(4,)" or "()"
  uint64_t numel = 1;
  const char *s = shape.c_str() + 1;
  while (*s != '\0' && *s != ')') {
    while (*s == ' ' || *s == ',')
      ++s;
    if (*s == ')' || *s == '\0')
      break;
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(s, &end, 10);
    if (end == s || v < 0 || errno != 0)
      return failWith(detail, Error::InvalidArgument, ".npy shape '%s' is malformed",
                      shape.c_str());
    if (v != 0 && numel > (uint64_t(1) << 48) / uint64_t(v))
      return failWith(detail, Error::InvalidArgument, ".npy shape '%s' is too large",
                      shape.c_str());
    numel *= uint64_t(v);
    a.shape.push_back(v);
    s = end;
  }
  // A runtime tensor holds at most kTensorMaxRank sizes: a larger rank would
  // fail to bind later with a message about something else.
  if (a.shape.size() > static_cast<size_t>(kTensorMaxRank))
    return failWith(detail, Error::NotSupported,
                    ".npy shape %s has rank %zu; the runtime's tensors have at most %d "
                    "dimensions",
                    shape.c_str(), a.shape.size(), kTensorMaxRank);
  size_t nbytes = static_cast<size_t>(numel) * elementSize(a.dtype);
  if (nbytes > size - pos)
    return failWith(detail, Error::InvalidArgument,
                    ".npy data has %zu bytes, shape %s needs %zu", size - pos, shape.c_str(),
                    nbytes);
  a.data.assign(bytes + pos, bytes + pos + nbytes);
  return a;
}

Result<NpyArray> readNpy(const char *path, std::string *detail) {
  FILE *f = std::fopen(path, "rb");
  if (f == nullptr)
    return failWith(detail, Error::AccessFailed, "cannot open '%s': %s", path,
                    std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(f);
  std::string why;
  auto a = parseNpy(bytes.data(), bytes.size(), &why);
  if (!a.ok())
    return failWith(detail, a.error(), "%s: %s", path, why.c_str());
  return a;
}

Result<std::vector<uint8_t>> encodeNpy(ScalarType dtype, Span<const int64_t> shape,
                                       const void *data, size_t nbytes) {
  const char *descr = descrOf(dtype);
  if (descr == nullptr)
    return Error::NotSupported;
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                  dims + "), }";
  // Pad so the data starts at a multiple of 64, header ends with '\n'.
  size_t total = 10 + h.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  h.append(pad, ' ');
  h.push_back('\n');
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(h.size() & 0xff));
  out.push_back(static_cast<uint8_t>(h.size() >> 8));
  out.insert(out.end(), h.begin(), h.end());
  const uint8_t *p = static_cast<const uint8_t *>(data);
  if (nbytes > 0)
    out.insert(out.end(), p, p + nbytes);
  return out;
}

Error writeNpy(const char *path, ScalarType dtype, Span<const int64_t> shape, const void *data,
               size_t nbytes, std::string *detail) {
  auto bytes = encodeNpy(dtype, shape, data, nbytes);
  if (!bytes.ok())
    return failWith(detail, bytes.error(), "dtype %s cannot be written as .npy",
                    toString(dtype));
  FILE *f = std::fopen(path, "wb");
  if (f == nullptr)
    return failWith(detail, Error::AccessFailed, "cannot create '%s': %s", path,
                    std::strerror(errno));
  size_t w = std::fwrite(bytes->data(), 1, bytes->size(), f);
  bool ok = w == bytes->size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return failWith(detail, Error::AccessFailed, "cannot write '%s'", path);
  return Error::Ok;
}

} // namespace ptec::rt
