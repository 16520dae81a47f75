#include "test/unit/kernels/CaseFile.h"

#include "runtime/core/Half.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ptec::test {

EValue *Boxer::str(const std::string &s) {
  strings_.push_back(s);
  return add(EValue::fromString(strings_.back().data(), strings_.back().size()));
}

EValue *Boxer::intList(const std::vector<int64_t> &items) {
  std::vector<EValue *> ptrs;
  for (int64_t v : items)
    ptrs.push_back(i(v));
  lists_.push_back(ptrs);
  return add(EValue::fromIntList({lists_.back().data(), lists_.back().size()}));
}

EValue *Boxer::doubleList(const std::vector<double> &items) {
  doubleLists_.push_back(items);
  return add(EValue::fromDoubleList({doubleLists_.back().data(), doubleLists_.back().size()}));
}

EValue *Boxer::boolList(const std::vector<uint8_t> &items) {
  boolLists_.push_back(items);
  return add(EValue::fromBoolList({boolLists_.back().data(), boolLists_.back().size()}));
}

EValue *Boxer::tensorList(const std::vector<EValue *> &items) {
  lists_.push_back(items);
  return add(EValue::fromTensorList({lists_.back().data(), lists_.back().size()}));
}

EValue *Boxer::optTensorList(const std::vector<EValue *> &items) {
  lists_.push_back(items);
  return add(EValue::fromOptionalTensorList({lists_.back().data(), lists_.back().size()}));
}

void *Boxer::buffer(size_t nbytes) {
  buffers_.emplace_back(new uint64_t[nbytes / 8 + 1]);
  std::memset(buffers_.back().get(), 0xCD, (nbytes / 8 + 1) * 8); // garbage, not zeros
  return buffers_.back().get();
}

Tensor *Boxer::tensor(ScalarType dt, const std::vector<int64_t> &sizes, size_t capacity) {
  tensors_.emplace_back();
  Tensor &t = tensors_.back();
  if (t.init(dt, {sizes.data(), sizes.size()}) != rt::Error::Ok)
    throw std::runtime_error("bad tensor shape");
  if (capacity == SIZE_MAX)
    capacity = t.nbytes();
  t.setData(buffer(capacity), capacity);
  return &t;
}

/// Copies `values`, one per element, into `x`; `what` names the caller when
/// their count is not x's.
template <typename T> static void fill(Tensor *x, const std::vector<T> &values, const char *what) {
  if (values.size() != static_cast<size_t>(x->numel()))
    throw std::runtime_error(std::string(what) + ": value count does not match shape");
  std::memcpy(x->mutableData(), values.data(), values.size() * sizeof(T));
}

EValue *Boxer::f32(const std::vector<int64_t> &sizes, const std::vector<float> &values) {
  Tensor *x = tensor(ScalarType::Float, sizes);
  fill(x, values, "f32");
  return t(x);
}

EValue *Boxer::i64(const std::vector<int64_t> &sizes, const std::vector<int64_t> &values) {
  Tensor *x = tensor(ScalarType::Long, sizes);
  fill(x, values, "i64");
  return t(x);
}

namespace {

class Reader {
public:
  explicit Reader(std::vector<uint8_t> data) : data_(std::move(data)) {}
  template <typename T> T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string str() {
    uint16_t n = get<uint16_t>();
    need(n);
    std::string s(reinterpret_cast<const char *>(data_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  /// A u32 count, then that many items of type T.
  template <typename T> std::vector<T> list() {
    std::vector<T> items(get<uint32_t>());
    for (T &item : items)
      item = get<T>();
    return items;
  }
  const uint8_t *bytes(size_t n) {
    need(n);
    const uint8_t *p = data_.data() + pos_;
    pos_ += n;
    return p;
  }
  bool done() const { return pos_ == data_.size(); }

private:
  void need(size_t n) {
    if (n > data_.size() - pos_)
      throw std::runtime_error("case file truncated");
  }
  std::vector<uint8_t> data_;
  size_t pos_ = 0;
};

void shape(Reader &r, ScalarType &dt, std::vector<int64_t> &sizes) {
  int8_t d = r.get<int8_t>();
  if (!rt::isValidScalarType(d))
    throw std::runtime_error("bad dtype in case file");
  dt = static_cast<ScalarType>(d);
  uint8_t rank = r.get<uint8_t>();
  sizes.resize(rank);
  for (auto &s : sizes)
    s = r.get<int64_t>();
}

Tensor *tensorWithData(Reader &r, Boxer &box) {
  ScalarType dt;
  std::vector<int64_t> sizes;
  shape(r, dt, sizes);
  Tensor *t = box.tensor(dt, sizes);
  std::memcpy(t->mutableData(), r.bytes(t->nbytes()), t->nbytes());
  return t;
}

Tensor *outTensor(Reader &r, Boxer &box) {
  ScalarType dt;
  std::vector<int64_t> sizes;
  shape(r, dt, sizes);
  int64_t cap = r.get<int64_t>();
  uint8_t noData = r.get<uint8_t>();
  Tensor *t = box.tensor(dt, sizes, static_cast<size_t>(cap));
  if (noData)
    t->setData(nullptr, 0);
  return t;
}

} // namespace

std::vector<std::unique_ptr<Case>> loadCaseFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r(std::move(bytes));
  const uint8_t *magic = r.bytes(4);
  if (std::memcmp(magic, "PTKC", 4) != 0 || r.get<uint32_t>() != 1)
    throw std::runtime_error(path + ": not a version-1 case file");
  std::string kernel = r.str();
  uint32_t n = r.get<uint32_t>();
  std::vector<std::unique_ptr<Case>> cases;
  for (uint32_t c = 0; c < n; ++c) {
    auto cs = std::make_unique<Case>();
    Boxer &box = cs->box;
    cs->kernel = kernel;
    cs->name = r.str();
    cs->rtol = r.get<float>();
    cs->atol = r.get<float>();
    uint32_t nargs = r.get<uint32_t>();
    for (uint32_t a = 0; a < nargs; ++a) {
      uint8_t tag = r.get<uint8_t>();
      EValue *v = nullptr;
      switch (tag) {
      case 0: v = box.none(); break;
      case 1: v = box.i(r.get<int64_t>()); break;
      case 2: v = box.d(r.get<double>()); break;
      case 3: v = box.b(r.get<uint8_t>() != 0); break;
      case 4: v = box.str(r.str()); break;
      case 5: v = box.t(tensorWithData(r, box)); break;
      case 6: v = box.intList(r.list<int64_t>()); break;
      case 7: v = box.doubleList(r.list<double>()); break;
      case 8: v = box.boolList(r.list<uint8_t>()); break;
      case 9:
      case 10: {
        std::vector<EValue *> items(r.get<uint32_t>());
        for (auto &e : items) {
          bool present = tag == 9 || r.get<uint8_t>() != 0;
          e = present ? box.t(tensorWithData(r, box)) : nullptr;
        }
        v = tag == 9 ? box.tensorList(items) : box.optTensorList(items);
        break;
      }
      case 11: v = box.t(outTensor(r, box)); break;
      case 12: {
        uint32_t idx = r.get<uint32_t>();
        if (idx >= cs->args.size())
          throw std::runtime_error("bad Ref index");
        v = cs->args[idx];
        break;
      }
      case 13: {
        std::vector<EValue *> items(r.get<uint32_t>());
        for (auto &e : items) {
          uint32_t idx = r.get<uint32_t>();
          if (idx >= cs->args.size())
            throw std::runtime_error("bad RefList index");
          e = cs->args[idx];
        }
        v = box.tensorList(items);
        break;
      }
      case 14: {
        std::vector<EValue *> items(r.get<uint32_t>());
        for (auto &e : items)
          e = box.t(outTensor(r, box));
        v = box.tensorList(items);
        break;
      }
      default:
        throw std::runtime_error("unknown arg tag " + std::to_string(tag));
      }
      cs->args.push_back(v);
    }
    uint32_t ne = r.get<uint32_t>();
    for (uint32_t e = 0; e < ne; ++e) {
      Case::Expected ex;
      ex.arg = r.get<uint32_t>();
      ex.elem = r.get<int32_t>();
      ex.tensor = tensorWithData(r, box);
      if (ex.arg >= cs->args.size())
        throw std::runtime_error("bad expected index");
      cs->expected.push_back(ex);
    }
    cases.push_back(std::move(cs));
  }
  if (!r.done())
    throw std::runtime_error(path + ": trailing bytes");
  return cases;
}

namespace {
std::string shapeString(const Tensor &t) {
  std::ostringstream os;
  os << "[";
  for (int i = 0; i < t.dim(); ++i)
    os << (i ? ", " : "") << t.size(i);
  os << "]";
  return os.str();
}

double valueAt(const Tensor &t, int64_t i) {
  const void *p = t.data();
  switch (t.dtype()) {
  case ScalarType::Float: return static_cast<const float *>(p)[i];
  case ScalarType::Double: return static_cast<const double *>(p)[i];
  case ScalarType::Long: return static_cast<double>(static_cast<const int64_t *>(p)[i]);
  case ScalarType::Int: return static_cast<const int32_t *>(p)[i];
  case ScalarType::Short: return static_cast<const int16_t *>(p)[i];
  case ScalarType::Char: return static_cast<const int8_t *>(p)[i];
  case ScalarType::Byte: return static_cast<const uint8_t *>(p)[i];
  case ScalarType::Bool: return static_cast<const uint8_t *>(p)[i] != 0;
  case ScalarType::Half: return rt::halfToFloat(static_cast<const uint16_t *>(p)[i]);
  case ScalarType::BFloat16: return rt::bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  default: return NAN;
  }
}
} // namespace

std::string compareTensors(const Tensor &actual, const Tensor &expected, double rtol,
                           double atol) {
  std::ostringstream os;
  if (actual.dtype() != expected.dtype()) {
    os << "dtype " << rt::toString(actual.dtype()) << ", expected "
       << rt::toString(expected.dtype());
    return os.str();
  }
  if (shapeString(actual) != shapeString(expected))
    return "shape " + shapeString(actual) + ", expected " + shapeString(expected);
  if (actual.numel() > 0 && actual.data() == nullptr)
    return "output has no data";
  bool isFloat = rt::isFloatingType(actual.dtype());
  if (!isFloat && actual.dtype() == ScalarType::Long) { // exact, beyond 2^53
    for (int64_t i = 0; i < actual.numel(); ++i)
      if (actual.dataAs<int64_t>()[i] != expected.dataAs<int64_t>()[i]) {
        os << "element " << i << ": " << actual.dataAs<int64_t>()[i] << ", expected "
           << expected.dataAs<int64_t>()[i];
        return os.str();
      }
    return "";
  }
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = valueAt(actual, i), e = valueAt(expected, i);
    bool ok;
    if (!isFloat)
      ok = a == e;
    else if (std::isnan(e))
      ok = std::isnan(a);
    else if (std::isinf(e))
      ok = a == e;
    else
      ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (!ok) {
      os.precision(9);
      os << "element " << i << ": " << a << ", expected " << e << " (rtol " << rtol
         << ", atol " << atol << ")";
      return os.str();
    }
  }
  return "";
}

} // namespace ptec::test
