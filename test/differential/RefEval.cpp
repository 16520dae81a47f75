//===- RefEval.cpp - reference evaluation of a stateful method ------------===//

#include "test/differential/RefEval.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cstring>

namespace ptec::difftest {
using namespace mlir;

int64_t RefTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    st[i] = st[i + 1] * shape[i + 1];
  return st;
}

/// Multi-index of flat position `flat` in `shape`.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

int64_t flatten(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    f = f * shape[i] + idx[i];
  return f;
}

/// Value of `src` broadcast (numpy rules) at multi-index `idx` of `shape`.
double broadcastAt(const RefTensor &src, const std::vector<int64_t> &idx) {
  size_t off = idx.size() - src.shape.size();
  std::vector<int64_t> sidx(src.shape.size());
  for (size_t i = 0; i < src.shape.size(); ++i)
    sidx[i] = src.shape[i] == 1 ? 0 : idx[off + i];
  return src.data[flatten(sidx, src.shape)];
}

RefTensor like(const std::vector<int64_t> &shape) {
  RefTensor t;
  t.shape = shape;
  t.data.assign(t.numel(), 0.0);
  return t;
}

std::vector<int64_t> shapeOf(Type t) {
  auto rt = llvm::cast<RankedTensorType>(t);
  return std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end());
}

int64_t intAttr(Operation *op, StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

double scalarAttr(Operation *op, StringRef name, double dflt) {
  Attribute a = op->getAttr(name);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  return dflt;
}

/// Normalised [start, end) of a slice along a dimension of size `n`.
std::pair<int64_t, int64_t> sliceBounds(Operation *op, int64_t n) {
  int64_t start = intAttr(op, "start", 0), end = intAttr(op, "end", n);
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  start = std::min(std::max<int64_t>(start, 0), n);
  end = std::min(std::max<int64_t>(end, start), n);
  return {start, end};
}

} // namespace

std::optional<RefMethod> RefMethod::create(ModuleOp module, std::string *error) {
  RefMethod m;
  m.func_ = module.lookupSymbol<func::FuncOp>("forward");
  if (!m.func_) {
    *error = "no method 'forward'";
    return std::nullopt;
  }
  for (auto w : module.getOps<exir::WeightOp>()) {
    std::vector<uint8_t> bytes;
    if (failed(exir::getElementsBytes(w, w.getValue(), bytes))) {
      *error = "cannot read weight " + w.getSymName().str();
      return std::nullopt;
    }
    RefTensor t;
    auto type = llvm::cast<RankedTensorType>(w.getValue().getType());
    t.shape = shapeOf(type);
    t.isInt = type.getElementType().isInteger(64);
    if (!t.isInt && !type.getElementType().isF32()) {
      *error = "weight " + w.getSymName().str() + ": only f32 and i64 are evaluated";
      return std::nullopt;
    }
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (t.isInt) {
        int64_t v;
        std::memcpy(&v, bytes.data() + 8 * i, 8);
        t.data.push_back(static_cast<double>(v));
      } else {
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        t.data.push_back(v);
      }
    }
    m.initial_[w.getSymName().str()] = t;
    m.weights_[w.getSymName().str()] = std::move(t);
  }
  for (BlockArgument arg : m.func_.getArguments()) {
    exir::InputAttr in = exir::getInputAttr(m.func_, arg.getArgNumber());
    if (!in) {
      *error = "argument without #exir.input";
      return std::nullopt;
    }
    if (in.getKind().getValue() == "user_input")
      m.inputs_.push_back({in.getFqn() ? in.getFqn().getValue().str() : "", shapeOf(arg.getType())});
  }
  return m;
}

std::optional<RefMethod::Result> RefMethod::call(const std::vector<RefTensor> &inputs,
                                                 std::string *error) {
  llvm::DenseMap<Value, RefTensor> env;
  size_t next = 0;
  for (BlockArgument arg : func_.getArguments()) {
    exir::InputAttr in = exir::getInputAttr(func_, arg.getArgNumber());
    std::string fqn = in.getFqn() ? in.getFqn().getValue().str() : "";
    if (in.getKind().getValue() == "user_input") {
      env[arg] = inputs.at(next++);
    } else {
      auto it = weights_.find(fqn);
      if (it == weights_.end()) {
        *error = "no weight '" + fqn + "'";
        return std::nullopt;
      }
      env[arg] = it->second;
    }
  }

  for (Operation &opRef : func_.getBody().front().without_terminator()) {
    auto op = llvm::dyn_cast<exir::AtenOp>(&opRef);
    if (!op || op->getNumResults() != 1) {
      *error = "cannot evaluate " + opRef.getName().getStringRef().str();
      return std::nullopt;
    }
    StringRef name = op.getOpName();
    auto in = [&](unsigned i) -> const RefTensor & { return env[op->getOperand(i)]; };
    RefTensor r = like(shapeOf(op->getResult(0).getType()));
    auto elementwise = [&](auto fn) {
      for (int64_t i = 0; i < r.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, r.shape);
        r.data[i] = f32(fn(idx));
      }
    };
    if (name == "aten::neg") {
      elementwise([&](auto &idx) { return -broadcastAt(in(0), idx); });
    } else if (name == "aten::relu") {
      elementwise([&](auto &idx) { return std::max(0.0, broadcastAt(in(0), idx)); });
    } else if (name == "aten::add.Scalar" || name == "aten::mul.Scalar") {
      double other = scalarAttr(op, "other", 0), alpha = scalarAttr(op, "alpha", 1);
      bool add = name == "aten::add.Scalar";
      elementwise([&](auto &idx) {
        double x = broadcastAt(in(0), idx);
        return add ? x + f32(alpha * other) : x * other;
      });
    } else if (name == "aten::add.Tensor" || name == "aten::sub.Tensor") {
      double alpha = scalarAttr(op, "alpha", 1) * (name == "aten::sub.Tensor" ? -1 : 1);
      elementwise([&](auto &idx) {
        return broadcastAt(in(0), idx) + alpha * broadcastAt(in(1), idx);
      });
    } else if (name == "aten::mul.Tensor") {
      elementwise([&](auto &idx) { return broadcastAt(in(0), idx) * broadcastAt(in(1), idx); });
    } else if (name == "aten::mm") {
      const RefTensor &a = in(0), &b = in(1);
      int64_t n = a.shape[0], k = a.shape[1], mcols = b.shape[1];
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < mcols; ++j) {
          float acc = 0; // float accumulation, in order, like a plain kernel
          for (int64_t p = 0; p < k; ++p)
            acc += static_cast<float>(a.data[i * k + p]) * static_cast<float>(b.data[p * mcols + j]);
          r.data[i * mcols + j] = acc;
        }
    } else if (name == "aten::t" || name == "aten::permute") {
      std::vector<int64_t> dims = {1, 0};
      if (auto d = op->getAttrOfType<DenseI64ArrayAttr>("dims"))
        dims.assign(d.asArrayRef().begin(), d.asArrayRef().end());
      for (int64_t i = 0; i < r.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, r.shape), src(idx.size());
        for (size_t k = 0; k < dims.size(); ++k)
          src[dims[k]] = idx[k];
        r.data[i] = in(0).data[flatten(src, in(0).shape)];
      }
    } else if (name == "aten::alias" || name == "aten::clone" || name == "aten::view" ||
               name == "aten::view_copy" || name == "aten::_unsafe_view" ||
               name.starts_with("aten::squeeze") || name.starts_with("aten::unsqueeze")) {
      // Same elements in the same order; the result type gives the shape.
      r.data = in(0).data;
    } else if (name == "aten::slice.Tensor") {
      int64_t dim = intAttr(op, "dim", 0), step = intAttr(op, "step", 1);
      int64_t start = sliceBounds(op, in(0).shape[dim]).first;
      for (int64_t i = 0; i < r.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, r.shape);
        idx[dim] = start + idx[dim] * step;
        r.data[i] = in(0).data[flatten(idx, in(0).shape)];
      }
    } else if (name == "aten::select.int") {
      int64_t dim = intAttr(op, "dim", 0), index = intAttr(op, "index", 0);
      if (index < 0)
        index += in(0).shape[dim];
      for (int64_t i = 0; i < r.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, r.shape);
        idx.insert(idx.begin() + dim, index);
        r.data[i] = in(0).data[flatten(idx, in(0).shape)];
      }
    } else if (name == "aten::slice_scatter") {
      r.data = in(0).data;
      int64_t dim = intAttr(op, "dim", 0), step = intAttr(op, "step", 1);
      int64_t start = sliceBounds(op, in(0).shape[dim]).first;
      const RefTensor &src = in(1);
      for (int64_t i = 0; i < src.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, src.shape);
        idx[dim] = start + idx[dim] * step;
        r.data[flatten(idx, r.shape)] = src.data[i];
      }
    } else if (name == "aten::select_scatter") {
      r.data = in(0).data;
      int64_t dim = intAttr(op, "dim", 0), index = intAttr(op, "index", 0);
      if (index < 0)
        index += r.shape[dim];
      const RefTensor &src = in(1);
      for (int64_t i = 0; i < src.numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, src.shape);
        idx.insert(idx.begin() + dim, index);
        r.data[flatten(idx, r.shape)] = src.data[i];
      }
    } else if (name == "aten::index_put" && op->getNumOperands() == 3) {
      // One index tensor for dim 0; values broadcast to [len(index), rest...].
      r.data = in(0).data;
      const RefTensor &index = in(1), &values = in(2);
      bool accumulate = false;
      if (auto a = op->getAttrOfType<BoolAttr>("accumulate"))
        accumulate = a.getValue();
      std::vector<int64_t> vshape = r.shape;
      vshape[0] = index.numel();
      for (int64_t i = 0; i < like(vshape).numel(); ++i) {
        std::vector<int64_t> idx = unflatten(i, vshape);
        double v = broadcastAt(values, idx);
        idx[0] = static_cast<int64_t>(index.data[idx[0]]);
        if (idx[0] < 0)
          idx[0] += r.shape[0];
        double &dst = r.data[flatten(idx, r.shape)];
        dst = accumulate ? f32(dst + v) : v;
      }
    } else if (name == "aten::copy") {
      elementwise([&](auto &idx) { return broadcastAt(in(1), idx); });
    } else {
      *error = "the reference cannot evaluate '" + name.str() + "'";
      return std::nullopt;
    }
    env[op->getResult(0)] = std::move(r);
  }

  // Outputs (buffer mutations are not outputs); then the new states, all
  // computed above from the old ones.
  Result result;
  Operation *ret = func_.getBody().front().getTerminator();
  std::map<std::string, RefTensor> newStates;
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    exir::OutputAttr out = exir::getOutputAttr(func_, i);
    StringRef kind = out ? out.getKind().getValue() : "user_output";
    const RefTensor &v = env[ret->getOperand(i)];
    if (kind == "buffer_mutation")
      newStates[out.getTarget().getValue().str()] = v;
    else
      result.outputs.push_back(v);
  }
  for (auto &[fqn, value] : newStates)
    weights_[fqn] = value;
  for (auto w : func_->getParentOfType<ModuleOp>().getOps<exir::WeightOp>())
    if (w.getIsMutable())
      result.buffers[w.getSymName().str()] = weights_[w.getSymName().str()];
  return result;
}

} // namespace ptec::difftest
