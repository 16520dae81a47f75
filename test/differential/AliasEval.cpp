//===- AliasEval.cpp - PyTorch's meaning of a program that writes in place ===//

#include "test/differential/AliasEval.h"
#include "test/differential/RefShapes.h"

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/schema/OperatorSchema.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <set>

namespace ptec::difftest {
using namespace mlir;

namespace {

std::string str(const std::vector<int64_t> &v) { return "[" + commaList(v) + "]"; }

using Storage = AliasMethod::Storage;

/// A tensor as eager PyTorch holds it: a strided view of a storage.
struct View {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  int depth = 0;           // view ops between it and its storage's first tensor
  int64_t writesSeen = 0;  // storage->writes when it was made

  int64_t numel() const { return numelOf(sizes); }
  /// Storage position of element `i` (row-major over sizes).
  int64_t at(int64_t i) const {
    std::vector<int64_t> idx = unflatten(i, sizes);
    int64_t p = offset;
    for (size_t d = 0; d < idx.size(); ++d)
      p += idx[d] * strides[d];
    return p;
  }
  RefTensor read() const {
    RefTensor t;
    t.shape = sizes;
    t.isInt = storage->isInt;
    for (int64_t i = 0; i < numel(); ++i)
      t.data.push_back(storage->data.at(at(i)));
    return t;
  }
  bool sameAs(const View &o) const {
    return storage == o.storage && sizes == o.sizes && strides == o.strides &&
           offset == o.offset;
  }
};

View fresh(const RefTensor &t) {
  View v;
  v.storage = std::make_shared<Storage>();
  v.storage->data = t.data;
  v.storage->isInt = t.isInt;
  v.sizes = t.shape;
  v.strides = contiguousStrides(t.shape);
  return v;
}

int64_t intAttr(Operation *op, StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}
std::vector<int64_t> listAttr(Operation *op, StringRef name) {
  std::vector<int64_t> out;
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    out.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  return out;
}
/// A Scalar argument; nullopt when None or absent.
std::optional<double> scalarAttr(Operation *op, StringRef name) {
  Attribute a = op->getAttr(name);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  if (auto b = llvm::dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  return std::nullopt;
}
int64_t wrapDim(int64_t d, size_t rank) {
  return d < 0 ? d + static_cast<int64_t>(std::max<size_t>(rank, 1)) : d;
}

/// The view `op` makes of `self`, or an error.
std::optional<View> makeView(exir::AtenOp op, const View &self, std::string *error) {
  StringRef name = op.getOpName();
  View v = self;
  size_t rank = self.sizes.size();
  auto bad = [&](const std::string &why) -> std::optional<View> {
    *error = name.str() + ": " + why + " (operand sizes " + str(self.sizes) + ", strides " +
             str(self.strides) + ")";
    return std::nullopt;
  };
  if (name == "aten::alias") {
    return v;
  } else if (name == "aten::slice.Tensor") {
    int64_t dim = wrapDim(intAttr(op, "dim", 0), rank);
    int64_t n = self.sizes.at(dim), step = intAttr(op, "step", 1);
    if (step <= 0)
      return bad("step must be positive");
    // x[start:end] as Python bounds it: from the end when negative, then
    // within [0, n], the end not before the start.
    auto within = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
    int64_t start = within(intAttr(op, "start", 0));
    int64_t end = std::max(start, within(intAttr(op, "end", n)));
    v.offset += start * self.strides[dim];
    v.sizes[dim] = (end - start + step - 1) / step;
    v.strides[dim] *= step;
  } else if (name == "aten::select.int") {
    int64_t dim = wrapDim(intAttr(op, "dim", 0), rank);
    int64_t index = intAttr(op, "index", 0);
    if (index < 0)
      index += self.sizes.at(dim);
    if (index < 0 || index >= self.sizes.at(dim))
      return bad("index out of range");
    v.offset += index * self.strides[dim];
    v.sizes.erase(v.sizes.begin() + dim);
    v.strides.erase(v.strides.begin() + dim);
  } else if (name == "aten::view") {
    std::vector<int64_t> size = inferSize(listAttr(op, "size"), self.numel());
    if (numelOf(size) != self.numel())
      return bad("size " + str(size) + " does not keep the element count");
    std::optional<std::vector<int64_t>> strides = computeStride(self.sizes, self.strides, size);
    if (!strides)
      return bad("view size " + str(size) +
                 " is not compatible with the input's size and stride (PyTorch raises)");
    v.sizes = size;
    v.strides = *strides;
  } else if (name == "aten::t" || name == "aten::transpose.int") {
    if (name == "aten::t" && rank > 2)
      return bad("t() expects a tensor of at most 2 dims");
    if (rank < 2 && name == "aten::t")
      return v;
    int64_t d0 = name == "aten::t" ? 0 : wrapDim(intAttr(op, "dim0", 0), rank);
    int64_t d1 = name == "aten::t" ? 1 : wrapDim(intAttr(op, "dim1", 1), rank);
    if (rank == 0)
      return v;
    std::swap(v.sizes.at(d0), v.sizes.at(d1));
    std::swap(v.strides.at(d0), v.strides.at(d1));
  } else if (name == "aten::permute") {
    std::vector<int64_t> dims = listAttr(op, "dims");
    if (dims.size() != rank)
      return bad("dims do not match the rank");
    for (size_t i = 0; i < rank; ++i) {
      int64_t d = wrapDim(dims[i], rank);
      v.sizes[i] = self.sizes.at(d);
      v.strides[i] = self.strides.at(d);
    }
  } else if (name == "aten::unsqueeze") {
    int64_t dim = wrapDim(intAttr(op, "dim", 0), rank + 1);
    int64_t stride = dim >= static_cast<int64_t>(rank) ? 1 : self.sizes[dim] * self.strides[dim];
    v.sizes.insert(v.sizes.begin() + dim, 1);
    v.strides.insert(v.strides.begin() + dim, stride);
  } else if (name == "aten::squeeze.dim") {
    if (rank == 0)
      return v;
    int64_t dim = wrapDim(intAttr(op, "dim", 0), rank);
    if (self.sizes.at(dim) == 1) {
      v.sizes.erase(v.sizes.begin() + dim);
      v.strides.erase(v.strides.begin() + dim);
    }
  } else if (name == "aten::diagonal") {
    int64_t offset = intAttr(op, "offset", 0);
    int64_t d1 = wrapDim(intAttr(op, "dim1", 0), rank), d2 = wrapDim(intAttr(op, "dim2", 1), rank);
    if (d1 == d2)
      return bad("diagonal dimensions cannot be identical");
    takeDiagonal(v, d1, d2, offset);
  } else if (name == "aten::expand") {
    std::vector<int64_t> size = listAttr(op, "size");
    if (size.size() < rank)
      return bad("expand to fewer dims");
    size_t lead = size.size() - rank;
    v.sizes.assign(size.size(), 0);
    v.strides.assign(size.size(), 0);
    for (size_t i = 0; i < size.size(); ++i) {
      if (i < lead) {
        if (size[i] < 0)
          return bad("-1 in a new leading dim");
        v.sizes[i] = size[i];
        continue;
      }
      int64_t old = self.sizes[i - lead];
      int64_t want = size[i] == -1 ? old : size[i];
      if (old != want && old != 1)
        return bad("cannot expand " + str(self.sizes) + " to " + str(size));
      v.sizes[i] = want;
      v.strides[i] = old == want ? self.strides[i - lead] : 0;
    }
  } else {
    return bad("not a view the reference knows");
  }
  return v;
}

bool isViewOp(StringRef name) {
  return name == "aten::alias" || name == "aten::slice.Tensor" || name == "aten::select.int" ||
         name == "aten::view" || name == "aten::t" || name == "aten::transpose.int" ||
         name == "aten::permute" || name == "aten::unsqueeze" || name == "aten::squeeze.dim" ||
         name == "aten::diagonal" || name == "aten::expand";
}

/// Writes `value` (of `self`'s shape) through `self`.
void writeThrough(const View &self, const RefTensor &value) {
  for (int64_t i = 0; i < self.numel(); ++i)
    self.storage->data.at(self.at(i)) = value.data.at(i);
  self.storage->written = true;
  ++self.storage->writes;
}

/// The new contents of `self` after in-place op `op`, computed from the
/// operands' current contents `operands` (self first); error when PyTorch
/// would refuse the call.
std::optional<RefTensor> inplaceValue(exir::AtenOp op, const std::vector<RefTensor> &operands,
                                      std::string *error) {
  StringRef name = op.getOpName();
  const RefTensor &self = operands.at(0);
  RefTensor r = self;
  auto each = [&](auto fn) {
    for (int64_t i = 0; i < r.numel(); ++i)
      r.data[i] = f32(fn(self.data[i], unflatten(i, r.shape)));
  };
  auto other = [&](unsigned k) -> const RefTensor * {
    if (!broadcastsTo(operands.at(k).shape, self.shape)) {
      *error = name.str() + ": operand " + std::to_string(k) + " of shape " +
               str(operands.at(k).shape) + " does not broadcast to self " + str(self.shape);
      return nullptr;
    }
    return &operands.at(k);
  };
  double alpha = scalarAttr(op, "alpha").value_or(1.0);
  if (name == "aten::add_.Tensor" || name == "aten::sub_.Tensor") {
    const RefTensor *o = other(1);
    if (!o)
      return std::nullopt;
    double sign = name == "aten::sub_.Tensor" ? -1 : 1;
    each([&](double x, const std::vector<int64_t> &idx) {
      return x + sign * alpha * broadcastAt(*o, idx);
    });
  } else if (name == "aten::add_.Scalar" || name == "aten::sub_.Scalar") {
    double s = scalarAttr(op, "other").value_or(0) * alpha *
               (name == "aten::sub_.Scalar" ? -1 : 1);
    each([&](double x, const std::vector<int64_t> &) { return x + s; });
  } else if (name == "aten::mul_.Tensor") {
    const RefTensor *o = other(1);
    if (!o)
      return std::nullopt;
    each([&](double x, const std::vector<int64_t> &idx) { return x * broadcastAt(*o, idx); });
  } else if (name == "aten::mul_.Scalar") {
    double s = scalarAttr(op, "other").value_or(1);
    each([&](double x, const std::vector<int64_t> &) { return x * s; });
  } else if (name == "aten::relu_") {
    each([&](double x, const std::vector<int64_t> &) { return x > 0 ? x : 0.0; });
  } else if (name == "aten::neg_") {
    each([&](double x, const std::vector<int64_t> &) { return -x; });
  } else if (name == "aten::clamp_") {
    std::optional<double> lo = scalarAttr(op, "min"), hi = scalarAttr(op, "max");
    if (!lo && !hi) {
      *error = "clamp_: at least one of min and max must be given (PyTorch raises)";
      return std::nullopt;
    }
    each([&](double x, const std::vector<int64_t> &) {
      if (lo)
        x = std::max(x, f32(*lo));
      if (hi)
        x = std::min(x, f32(*hi));
      return x;
    });
  } else if (name == "aten::copy_") {
    const RefTensor *o = other(1);
    if (!o)
      return std::nullopt;
    each([&](double, const std::vector<int64_t> &idx) { return broadcastAt(*o, idx); });
  } else if (name == "aten::fill_.Scalar") {
    double s = scalarAttr(op, "value").value_or(0);
    each([&](double, const std::vector<int64_t> &) { return s; });
  } else if (name == "aten::zero_") {
    each([&](double, const std::vector<int64_t> &) { return 0.0; });
  } else if (name == "aten::masked_fill_.Scalar") {
    const RefTensor *mask = other(1);
    if (!mask)
      return std::nullopt;
    double s = scalarAttr(op, "value").value_or(0);
    each([&](double x, const std::vector<int64_t> &idx) {
      return broadcastAt(*mask, idx) != 0 ? s : x;
    });
  } else if (name == "aten::index_put_") {
    // self[indices] = values (or +=): the present index tensors are 1-D of
    // one length k; the indexed dims' result dim goes where the first one
    // was when they are adjacent, else in front (advanced indexing).
    auto present = op->getAttrOfType<DenseBoolArrayAttr>("indices");
    if (!present) {
      *error = "index_put_: no presence mask 'indices'";
      return std::nullopt;
    }
    bool accumulate = false;
    if (auto a = op->getAttrOfType<BoolAttr>("accumulate"))
      accumulate = a.getValue();
    std::vector<int64_t> dims; // indexed dims of self
    std::vector<const RefTensor *> index;
    unsigned next = 1;
    for (size_t d = 0; d < present.size(); ++d)
      if (present[d]) {
        dims.push_back(static_cast<int64_t>(d));
        index.push_back(&operands.at(next++));
      }
    const RefTensor &values = operands.at(next);
    if (dims.empty() || present.size() > self.shape.size()) {
      *error = "index_put_: index list not evaluated by the reference";
      return std::nullopt;
    }
    int64_t k = index[0]->numel();
    for (const RefTensor *t : index)
      if (t->shape.size() != 1 || t->numel() != k || !t->isInt) {
        *error = "index_put_: only 1-D integer index tensors of one length are evaluated";
        return std::nullopt;
      }
    bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
    std::vector<int64_t> rest; // self's dims not indexed
    for (size_t d = 0; d < self.shape.size(); ++d)
      if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) == dims.end())
        rest.push_back(static_cast<int64_t>(d));
    // The indexed shape: its dims, each naming self's dim (-1: the k dim).
    std::vector<int64_t> from;
    if (adjacent) {
      for (int64_t d : rest)
        if (d < dims.front())
          from.push_back(d);
      from.push_back(-1);
      for (int64_t d : rest)
        if (d > dims.back())
          from.push_back(d);
    } else {
      from.push_back(-1);
      from.insert(from.end(), rest.begin(), rest.end());
    }
    std::vector<int64_t> shape;
    for (int64_t d : from)
      shape.push_back(d < 0 ? k : self.shape[d]);
    if (!broadcastsTo(values.shape, shape)) {
      *error = "index_put_: values " + str(values.shape) + " do not broadcast to " + str(shape);
      return std::nullopt;
    }
    std::set<int64_t> seen;
    for (int64_t i = 0; i < numelOf(shape); ++i) {
      std::vector<int64_t> idx = unflatten(i, shape), target(self.shape.size());
      int64_t pos = 0;
      for (size_t j = 0; j < from.size(); ++j)
        if (from[j] >= 0)
          target[from[j]] = idx[j];
        else
          pos = idx[j];
      for (size_t j = 0; j < dims.size(); ++j) {
        int64_t x = static_cast<int64_t>(index[j]->data[pos]);
        int64_t n = self.shape[dims[j]];
        if (x < -n || x >= n) {
          *error = "index_put_: index " + std::to_string(x) + " out of range";
          return std::nullopt;
        }
        target[dims[j]] = x < 0 ? x + n : x;
      }
      int64_t flat = flatten(target, self.shape);
      if (!accumulate && !seen.insert(flat).second) {
        *error = "index_put_: the same element written twice (order undefined in PyTorch)";
        return std::nullopt;
      }
      double v = broadcastAt(values, idx);
      r.data[flat] = accumulate ? f32(r.data[flat] + v) : v;
    }
  } else if (name == "aten::index_copy_") {
    int64_t dim = wrapDim(intAttr(op, "dim", 0), self.shape.size());
    const RefTensor &index = operands.at(1), &source = operands.at(2);
    if (index.shape.size() > 1 || !index.isInt) {
      *error = "index_copy_: index must be a 0-D or 1-D integer tensor";
      return std::nullopt;
    }
    std::vector<int64_t> want = self.shape;
    if (!want.empty())
      want[dim] = index.numel();
    if (source.shape != want) {
      *error = "index_copy_: source " + str(source.shape) + ", expected " + str(want);
      return std::nullopt;
    }
    std::set<int64_t> seen;
    for (int64_t i = 0; i < source.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, source.shape);
      int64_t x = static_cast<int64_t>(index.data[idx.empty() ? 0 : idx[dim]]);
      if (!idx.empty()) {
        if (x < 0 || x >= self.shape[dim]) {
          *error = "index_copy_: index " + std::to_string(x) + " out of range";
          return std::nullopt;
        }
        idx[dim] = x;
      }
      int64_t flat = flatten(idx, self.shape);
      if (!seen.insert(flat).second) {
        *error = "index_copy_: the same element written twice (order undefined in PyTorch)";
        return std::nullopt;
      }
      r.data[flat] = source.data[i];
    }
  } else {
    *error = "the reference cannot evaluate '" + name.str() + "'";
    return std::nullopt;
  }
  return r;
}

/// May `read`, an operand of in-place op `name`, share storage with the
/// written `self`? PyTorch refuses a partial overlap (and, for index_put_ /
/// index_copy_ / masked_fill_, any overlap); the same view is a full overlap
/// that elementwise ops and copy_ accept.
bool overlapAllowed(StringRef name, const View &self, const View &read) {
  if (self.storage != read.storage || !sharePosition(self, read))
    return true;
  bool elementwise = name != "aten::index_put_" && name != "aten::index_copy_" &&
                     name != "aten::masked_fill_.Scalar";
  return elementwise && self.sameAs(read);
}

std::vector<int64_t> typeShape(Type t) {
  auto rt = llvm::cast<RankedTensorType>(t);
  return std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end());
}

} // namespace

std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t> &oldShape,
                                                  const std::vector<int64_t> &oldStrides,
                                                  const std::vector<int64_t> &newShape) {
  if (oldShape.empty())
    return std::vector<int64_t>(newShape.size(), 1);
  std::vector<int64_t> newStrides(newShape.size(), 0);
  int64_t viewD = static_cast<int64_t>(newShape.size()) - 1;
  int64_t chunkBaseStride = oldStrides.back();
  int64_t tensorNumel = 1, viewNumel = 1;
  for (int64_t d = static_cast<int64_t>(oldShape.size()) - 1; d >= 0; --d) {
    tensorNumel *= oldShape[d];
    if (d == 0 || (oldShape[d - 1] != 1 && oldStrides[d - 1] != tensorNumel * chunkBaseStride)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
        newStrides[viewD] = viewNumel * chunkBaseStride;
        viewNumel *= newShape[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel)
        return std::nullopt;
      if (d > 0) {
        chunkBaseStride = oldStrides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  if (viewD != -1)
    return std::nullopt;
  return newStrides;
}

bool writesInPlace(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>("forward");
  if (!func)
    return false;
  bool found = false;
  func.walk([&](exir::AtenOp op) {
    const schema::FunctionSchema *s = op.getSchema();
    found |= s && s->isMutable() && !s->isOutVariant();
  });
  return found;
}

std::unique_ptr<AliasMethod> AliasMethod::create(ModuleOp module, std::string *error) {
  auto m = std::make_unique<AliasMethod>();
  m->func_ = module.lookupSymbol<func::FuncOp>("forward");
  if (!m->func_) {
    *error = "no method 'forward'";
    return nullptr;
  }
  if (!m->readSignature(module, m->func_, error))
    return nullptr;
  for (unsigned i = 0; i < m->func_.getNumResults(); ++i) {
    exir::OutputAttr out = exir::getOutputAttr(m->func_, i);
    if (out && out.getKind().getValue() != "user_output") {
      *error = "a program that writes in place with a '" + out.getKind().getValue().str() +
               "' output: the aliasing reference evaluates user outputs only";
      return nullptr;
    }
  }
  for (const Input &in : m->inputs_)
    if (!in.dynamicDims.empty()) {
      *error = "the aliasing reference evaluates static shapes only";
      return nullptr;
    }
  for (auto &[fqn, t] : m->initial_) {
    auto s = std::make_shared<Storage>();
    s->data = t.data;
    s->isInt = t.isInt;
    m->weights_[fqn] = std::move(s);
  }
  return m;
}

std::optional<Evaluator::Result> AliasMethod::call(const std::vector<RefTensor> &inputs,
                                                   std::string *error) {
  llvm::DenseMap<Value, View> env;
  std::vector<View> userInputs; // argument order
  std::map<std::string, std::string> kindOf; // fqn -> buffer / parameter / constant
  std::map<const Storage *, std::string> storageKind;
  coverage_ = Coverage();
  for (auto &[fqn, storage] : weights_)
    storage->writes = 0;
  // A read of a view made before a later write of its storage.
  auto read = [&](const View &v) {
    if (v.writesSeen < v.storage->writes)
      ++(v.depth > 0 ? coverage_.staleReads : coverage_.staleBaseReads);
    return v.read();
  };
  size_t next = 0;
  for (BlockArgument arg : func_.getArguments()) {
    exir::InputAttr in = exir::getInputAttr(func_, arg.getArgNumber());
    std::string fqn = in.getFqn() ? in.getFqn().getValue().str() : "";
    StringRef kind = in.getKind().getValue();
    View v;
    if (kind == "user_input") {
      v = fresh(inputs.at(next++));
      userInputs.push_back(v);
      storageKind[v.storage.get()] = "user_input";
    } else {
      auto it = weights_.find(fqn);
      if (it == weights_.end()) {
        *error = "no weight '" + fqn + "'";
        return std::nullopt;
      }
      v.storage = it->second;
      v.sizes = typeShape(arg.getType());
      v.strides = contiguousStrides(v.sizes);
      kindOf[fqn] = kind.str();
      storageKind[v.storage.get()] = kind.str();
    }
    env[arg] = v;
  }

  for (Operation &opRef : func_.getBody().front().without_terminator()) {
    auto op = llvm::dyn_cast<exir::AtenOp>(&opRef);
    if (!op || op->getNumResults() != 1 || !op.getSymOperands().empty()) {
      *error = "cannot evaluate " + opRef.getName().getStringRef().str() +
               " (one aten op result, no symbolic operands)";
      return std::nullopt;
    }
    StringRef name = op.getOpName();
    std::vector<Value> operands(op.getTensorInputs().begin(), op.getTensorInputs().end());
    View result;
    if (isViewOp(name)) {
      std::optional<View> v = makeView(op, env[operands.at(0)], error);
      if (!v)
        return std::nullopt;
      result = std::move(*v);
      result.depth = env[operands.at(0)].depth + 1;
      result.writesSeen = result.storage->writes;
    } else if (const schema::FunctionSchema *s = op.getSchema();
               s && s->isMutable() && !s->isOutVariant()) {
      if (!s->isInplace()) {
        *error = name.str() + ": only ops that write their first argument are evaluated";
        return std::nullopt;
      }
      const View &self = env[operands.at(0)];
      for (int64_t st = 0; st < static_cast<int64_t>(self.sizes.size()); ++st)
        if (self.strides[st] == 0 && self.sizes[st] > 1) {
          *error = name.str() + ": writes into a view with internal overlap (expand); PyTorch "
                                "refuses it";
          return std::nullopt;
        }
      std::vector<RefTensor> values;
      for (size_t i = 0; i < operands.size(); ++i) {
        const View &v = env[operands[i]];
        if (i > 0 && !overlapAllowed(name, self, v)) {
          *error = name.str() + ": operand " + std::to_string(i) +
                   " partially overlaps the written self (PyTorch raises)";
          return std::nullopt;
        }
        values.push_back(read(v));
      }
      std::optional<RefTensor> value = inplaceValue(op, values, error);
      if (!value)
        return std::nullopt;
      writeThrough(self, *value);
      result = self;
      result.writesSeen = self.storage->writes;
      ++coverage_.writes;
      coverage_.viewWrites += self.depth > 0;
      coverage_.chainWrites += self.depth > 1;
      auto kind = storageKind.find(self.storage.get());
      std::string k = kind == storageKind.end() ? "" : kind->second;
      coverage_.inputWritten |= k == "user_input";
      coverage_.bufferWritten |= k == "buffer";
      coverage_.paramWritten |= k == "parameter";
      coverage_.freshWritten |= k.empty();
    } else {
      std::vector<RefTensor> values;
      for (Value v : operands)
        values.push_back(read(env[v]));
      std::optional<RefTensor> value =
          evaluateOp(op, [&](unsigned i) -> const RefTensor & { return values.at(i); }, {},
                     error);
      if (!value)
        return std::nullopt;
      result = fresh(*value);
    }
    std::vector<int64_t> type = typeShape(op->getResult(0).getType());
    if (type != result.sizes) {
      *error = name.str() + ": the reference computes shape " + str(result.sizes) +
               ", its result type says " + str(type);
      return std::nullopt;
    }
    env[op->getResult(0)] = std::move(result);
  }

  Result result;
  for (const View &in : userInputs)
    if (in.storage->written)
      result.outputs.push_back(in.read());
  Operation *ret = func_.getBody().front().getTerminator();
  for (Value v : ret->getOperands())
    result.outputs.push_back(read(env[v]));
  for (auto &[fqn, storage] : weights_) {
    if (!storage->written)
      continue;
    if (kindOf[fqn] == "constant") {
      *error = "the program writes constant '" + fqn + "'";
      return std::nullopt;
    }
    View v;
    v.storage = storage;
    v.sizes = initial_.at(fqn).shape;
    v.strides = contiguousStrides(v.sizes);
    result.buffers[fqn] = v.read();
  }
  return result;
}

std::unique_ptr<Evaluator> createEvaluator(ModuleOp module, std::string *error) {
  if (writesInPlace(module))
    return AliasMethod::create(module, error);
  std::optional<RefMethod> m = RefMethod::create(module, error);
  if (!m)
    return nullptr;
  return std::make_unique<RefMethod>(std::move(*m));
}

} // namespace ptec::difftest
