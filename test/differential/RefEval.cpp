//===- RefEval.cpp - reference evaluation of a stateful method ------------===//

#include "test/differential/RefEval.h"
#include "test/differential/RefShapes.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cstring>

namespace ptec::difftest {
using namespace mlir;

int64_t RefTensor::numel() const { return numelOf(shape); }

namespace {

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    st[i] = st[i + 1] * shape[i + 1];
  return st;
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

/// Python's // and % on int64 (rounding toward negative infinity).
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// The arguments of one op: attributes, except those bound by exir.sym_args
/// to a symbolic-int operand, which take the operand's run-time value.
struct Args {
  Operation *op;
  std::map<std::string, int64_t> bound; // "end", "size[1]" -> value

  int64_t integer(StringRef name, int64_t dflt) const {
    if (auto it = bound.find(name.str()); it != bound.end())
      return it->second;
    if (auto a = op->getAttrOfType<IntegerAttr>(name))
      return a.getInt();
    return dflt;
  }
  std::vector<int64_t> list(StringRef name) const {
    std::vector<int64_t> out;
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
      out.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    for (size_t k = 0; k < out.size(); ++k)
      if (auto it = bound.find(name.str() + "[" + std::to_string(k) + "]"); it != bound.end())
        out[k] = it->second;
    return out;
  }
  double scalar(StringRef name, double dflt) const {
    Attribute a = op->getAttr(name);
    if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
      return f.getValueAsDouble();
    if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
      return static_cast<double>(i.getInt());
    return dflt;
  }
  /// Normalised [start, end) of a slice along a dimension of size `n`.
  std::pair<int64_t, int64_t> slice(int64_t n) const {
    int64_t start = integer("start", 0), end = integer("end", n);
    if (start < 0)
      start += n;
    if (end < 0)
      end += n;
    start = std::min(std::max<int64_t>(start, 0), n);
    end = std::min(std::max<int64_t>(end, start), n);
    return {start, end};
  }
};

int64_t normDim(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

std::vector<int64_t> broadcastShape(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = x == 1 ? y : x;
  }
  return out;
}

} // namespace

std::optional<RefTensor> evaluateOp(Operation *opRef,
                                    llvm::function_ref<const RefTensor &(unsigned)> in,
                                    const std::map<std::string, int64_t> &bound,
                                    std::string *error) {
  auto op = llvm::dyn_cast<exir::AtenOp>(opRef);
  if (!op || op->getNumResults() != 1) {
    *error = "cannot evaluate " + opRef->getName().getStringRef().str();
    return std::nullopt;
  }
  StringRef name = op.getOpName();
  Args args{op, bound};
  RefTensor r;
  bool negative = false; // a size below 0: reported below, nothing allocated
  auto make = [&](const std::vector<int64_t> &shape) {
    for (int64_t d : shape)
      negative |= d < 0;
    r = negative ? RefTensor{shape, {}, false} : like(shape);
  };
  auto elementwise = [&](auto fn) {
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, r.shape);
      r.data[i] = f32(fn(idx));
    }
  };
  if (name == "aten::neg") {
    make(in(0).shape);
    elementwise([&](auto &idx) { return -broadcastAt(in(0), idx); });
  } else if (name == "aten::relu") {
    make(in(0).shape);
    elementwise([&](auto &idx) { return std::max(0.0, broadcastAt(in(0), idx)); });
  } else if (name == "aten::add.Scalar" || name == "aten::mul.Scalar") {
    make(in(0).shape);
    double other = args.scalar("other", 0), alpha = args.scalar("alpha", 1);
    bool add = name == "aten::add.Scalar";
    elementwise([&](auto &idx) {
      double x = broadcastAt(in(0), idx);
      return add ? x + f32(alpha * other) : x * other;
    });
  } else if (name == "aten::gt.Scalar") { // a mask (bool, held as 0 / 1)
    make(in(0).shape);
    r.isInt = true;
    double other = args.scalar("other", 0);
    for (int64_t i = 0; i < r.numel(); ++i)
      r.data[i] = broadcastAt(in(0), unflatten(i, r.shape)) > other ? 1 : 0;
  } else if (name == "aten::add.Tensor" || name == "aten::sub.Tensor") {
    make(broadcastShape(in(0).shape, in(1).shape));
    double alpha = args.scalar("alpha", 1) * (name == "aten::sub.Tensor" ? -1 : 1);
    elementwise([&](auto &idx) {
      return broadcastAt(in(0), idx) + alpha * broadcastAt(in(1), idx);
    });
  } else if (name == "aten::mul.Tensor") {
    make(broadcastShape(in(0).shape, in(1).shape));
    elementwise([&](auto &idx) { return broadcastAt(in(0), idx) * broadcastAt(in(1), idx); });
  } else if (name == "aten::mm" || name == "aten::addmm") {
    bool bias = name == "aten::addmm";
    const RefTensor &a = in(bias ? 1 : 0), &b = in(bias ? 2 : 1);
    int64_t n = a.shape[0], k = a.shape[1], mcols = b.shape[1];
    make({n, mcols});
    double alpha = args.scalar("alpha", 1), beta = args.scalar("beta", 1);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < mcols; ++j) {
        float acc = 0; // float accumulation, in order, like a plain kernel
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<float>(a.data[i * k + p]) * static_cast<float>(b.data[p * mcols + j]);
        r.data[i * mcols + j] =
            bias ? f32(alpha * acc + beta * broadcastAt(in(0), {i, j})) : acc;
      }
  } else if (name == "aten::t" || name == "aten::permute" || name == "aten::transpose.int") {
    std::vector<int64_t> dims = {1, 0};
    if (name == "aten::permute") {
      dims = args.list("dims");
    } else if (name == "aten::transpose.int") {
      size_t rank = in(0).shape.size();
      dims.resize(rank);
      for (size_t k = 0; k < rank; ++k)
        dims[k] = static_cast<int64_t>(k);
      if (rank > 0)
        std::swap(dims.at(normDim(args.integer("dim0", 0), rank)),
                  dims.at(normDim(args.integer("dim1", 1), rank)));
    }
    std::vector<int64_t> shape;
    for (int64_t d : dims)
      shape.push_back(in(0).shape.at(normDim(d, dims.size())));
    make(shape);
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, r.shape), src(idx.size());
      for (size_t k = 0; k < dims.size(); ++k)
        src[normDim(dims[k], dims.size())] = idx[k];
      r.data[i] = in(0).data[flatten(src, in(0).shape)];
    }
  } else if (name == "aten::alias" || name == "aten::clone") {
    r = in(0);
  } else if (name == "aten::view" || name == "aten::view_copy" ||
             name == "aten::_unsafe_view") {
    make(inferSize(args.list("size"), in(0).numel()));
    if (r.numel() != in(0).numel()) {
      *error = name.str() + ": a run-time size does not keep the element count";
      return std::nullopt;
    }
    r.data = in(0).data;
  } else if (name == "aten::squeeze.dim" || name == "aten::unsqueeze") {
    std::vector<int64_t> shape = in(0).shape;
    if (name == "aten::unsqueeze") {
      shape.insert(shape.begin() + normDim(args.integer("dim", 0), shape.size() + 1), 1);
    } else {
      int64_t d = normDim(args.integer("dim", 0), shape.size());
      if (shape[d] == 1)
        shape.erase(shape.begin() + d);
    }
    make(shape);
    r.data = in(0).data;
  } else if (name == "aten::slice.Tensor") {
    int64_t dim = normDim(args.integer("dim", 0), in(0).shape.size());
    int64_t step = args.integer("step", 1);
    auto [start, end] = args.slice(in(0).shape[dim]);
    std::vector<int64_t> shape = in(0).shape;
    shape[dim] = (end - start + step - 1) / step;
    make(shape);
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, r.shape);
      idx[dim] = start + idx[dim] * step;
      r.data[i] = in(0).data[flatten(idx, in(0).shape)];
    }
  } else if (name == "aten::select.int") {
    int64_t dim = normDim(args.integer("dim", 0), in(0).shape.size());
    int64_t index = args.integer("index", 0);
    if (index < 0)
      index += in(0).shape[dim];
    if (index < 0 || index >= in(0).shape[dim]) {
      *error = "select: index out of range at this size";
      return std::nullopt;
    }
    std::vector<int64_t> shape = in(0).shape;
    shape.erase(shape.begin() + dim);
    make(shape);
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, r.shape);
      idx.insert(idx.begin() + dim, index);
      r.data[i] = in(0).data[flatten(idx, in(0).shape)];
    }
  } else if (name == "aten::slice_scatter") {
    r = in(0);
    int64_t dim = normDim(args.integer("dim", 0), r.shape.size());
    int64_t step = args.integer("step", 1);
    int64_t start = args.slice(in(0).shape[dim]).first;
    const RefTensor &src = in(1);
    for (int64_t i = 0; i < src.numel(); ++i) {
      std::vector<int64_t> idx = unflatten(i, src.shape);
      idx[dim] = start + idx[dim] * step;
      r.data[flatten(idx, r.shape)] = src.data[i];
    }
  } else if (name == "aten::select_scatter") {
    r = in(0);
    int64_t dim = normDim(args.integer("dim", 0), r.shape.size());
    int64_t index = args.integer("index", 0);
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
    r = in(0);
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
    make(in(0).shape);
    elementwise([&](auto &idx) { return broadcastAt(in(1), idx); });
  } else if (name == "aten::expand") {
    std::vector<int64_t> size = args.list("size");
    size_t off = size.size() - in(0).shape.size();
    for (size_t i = 0; i < size.size(); ++i)
      if (size[i] == -1)
        size[i] = in(0).shape.at(i - off);
    make(size);
    elementwise([&](auto &idx) { return broadcastAt(in(0), idx); });
  } else if (name == "aten::full") {
    make(args.list("size"));
    double v = f32(args.scalar("fill_value", 0));
    elementwise([&](auto &) { return v; });
  } else if (name == "aten::cat") {
    int64_t dim = normDim(args.integer("dim", 0), in(0).shape.size());
    std::vector<int64_t> shape = in(0).shape;
    shape[dim] = 0;
    for (unsigned i = 0; i < op.getNumTensorInputs(); ++i)
      shape[dim] += in(i).shape[dim];
    make(shape);
    int64_t base = 0;
    for (unsigned i = 0; i < op.getNumTensorInputs(); ++i) {
      const RefTensor &src = in(i);
      for (int64_t k = 0; k < src.numel(); ++k) {
        std::vector<int64_t> idx = unflatten(k, src.shape);
        idx[dim] += base;
        r.data[flatten(idx, r.shape)] = src.data[k];
      }
      base += src.shape[dim];
    }
  } else if (name == "aten::sum.dim_IntList" || name == "aten::mean.dim") {
    const RefTensor &src = in(0);
    std::vector<int64_t> dims = args.list("dim");
    std::vector<bool> reduced(src.shape.size(), dims.empty());
    for (int64_t d : dims)
      reduced[normDim(d, src.shape.size())] = true;
    bool keep = false;
    if (auto a = op->getAttrOfType<BoolAttr>("keepdim"))
      keep = a.getValue();
    std::vector<int64_t> kept; // the result with kept dims
    int64_t count = 1;
    for (size_t i = 0; i < src.shape.size(); ++i) {
      kept.push_back(reduced[i] ? 1 : src.shape[i]);
      count *= reduced[i] ? src.shape[i] : 1;
    }
    RefTensor acc = like(kept);
    for (int64_t k = 0; k < src.numel(); ++k) {
      std::vector<int64_t> idx = unflatten(k, src.shape);
      for (size_t i = 0; i < idx.size(); ++i)
        if (reduced[i])
          idx[i] = 0;
      acc.data[flatten(idx, kept)] += src.data[k];
    }
    std::vector<int64_t> shape;
    for (size_t i = 0; i < kept.size(); ++i)
      if (keep || !reduced[i])
        shape.push_back(kept[i]);
    make(shape);
    for (int64_t k = 0; k < r.numel(); ++k)
      r.data[k] = f32(name == "aten::mean.dim" ? acc.data[k] / static_cast<double>(count)
                                               : acc.data[k]);
  } else {
    *error = "the reference cannot evaluate '" + name.str() + "'";
    return std::nullopt;
  }
  if (negative) {
    *error = name.str() + ": a run-time size is negative";
    return std::nullopt;
  }  return r;
}

bool Evaluator::readSignature(ModuleOp module, func::FuncOp func, std::string *error) {
  for (auto w : module.getOps<exir::WeightOp>()) {
    std::vector<uint8_t> bytes;
    if (failed(exir::getElementsBytes(w, w.getValue(), bytes))) {
      *error = "cannot read weight " + w.getSymName().str();
      return false;
    }
    RefTensor t;
    auto type = llvm::cast<RankedTensorType>(w.getValue().getType());
    t.shape = shapeOf(type);
    t.isInt = type.getElementType().isInteger(64);
    if (!t.isInt && !type.getElementType().isF32()) {
      *error = "weight " + w.getSymName().str() + ": only f32 and i64 are evaluated";
      return false;
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
    initial_[w.getSymName().str()] = std::move(t);
  }
  for (BlockArgument arg : func.getArguments()) {
    exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
    if (!in) {
      *error = "argument without #exir.input";
      return false;
    }
    if (in.getKind().getValue() == "user_input") {
      Input input{in.getFqn() ? in.getFqn().getValue().str() : "", shapeOf(arg.getType()), {}};
      if (auto d = func.getArgAttrOfType<DenseI64ArrayAttr>(arg.getArgNumber(),
                                                             "exir.dynamic_dims"))
        input.dynamicDims.assign(d.asArrayRef().begin(), d.asArrayRef().end());
      inputs_.push_back(std::move(input));
    }
  }
  return true;
}

std::optional<RefMethod> RefMethod::create(ModuleOp module, std::string *error) {
  RefMethod m;
  m.func_ = module.lookupSymbol<func::FuncOp>("forward");
  if (!m.func_) {
    *error = "no method 'forward'";
    return std::nullopt;
  }
  if (!m.readSignature(module, m.func_, error))
    return std::nullopt;
  m.weights_ = m.initial_;
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

  llvm::DenseMap<Value, int64_t> ints; // symbolic ints at this call's sizes
  bool dynamic = false;
  for (const Input &in : inputs_)
    dynamic |= !in.dynamicDims.empty();
  for (Operation &opRef : func_.getBody().front().without_terminator()) {
    if (auto size = llvm::dyn_cast<exir::SymSizeOp>(&opRef)) {
      const RefTensor &t = env[size.getInput()];
      int64_t dim = normDim(static_cast<int64_t>(size.getDim()), t.shape.size());
      ints[size.getResult()] = t.shape.at(dim);
      continue;
    }
    if (auto c = llvm::dyn_cast<exir::SymConstOp>(&opRef)) {
      ints[c.getResult()] = static_cast<int64_t>(c.getValue());
      continue;
    }
    if (auto sym = llvm::dyn_cast<exir::SymOp>(&opRef)) {
      StringRef fn = sym.getFn();
      int64_t a = ints.lookup(sym.getArgs()[0]);
      int64_t b = sym.getArgs().size() > 1 ? ints.lookup(sym.getArgs()[1]) : 0;
      if ((fn == "floordiv" || fn == "mod") && b == 0) {
        *error = "symbolic " + fn.str() + " by zero";
        return std::nullopt;
      }
      int64_t r = fn == "add" ? a + b : fn == "sub" ? a - b : fn == "mul" ? a * b
                : fn == "floordiv" ? floorDiv(a, b) : fn == "mod" ? a - floorDiv(a, b) * b
                : fn == "max" ? std::max(a, b) : fn == "min" ? std::min(a, b) : -a;
      if (fn != "add" && fn != "sub" && fn != "mul" && fn != "floordiv" && fn != "mod" &&
          fn != "max" && fn != "min" && fn != "neg") {
        *error = "the reference cannot evaluate exir.sym \"" + fn.str() + "\"";
        return std::nullopt;
      }
      ints[sym.getResult()] = r;
      continue;
    }
    auto op = llvm::dyn_cast<exir::AtenOp>(&opRef);
    if (!op || op->getNumResults() != 1) {
      *error = "cannot evaluate " + opRef.getName().getStringRef().str();
      return std::nullopt;
    }
    std::map<std::string, int64_t> bound;
    if (ArrayAttr binds = op.getSymArgs())
      for (auto [v, b] : llvm::zip(op.getSymOperands(), binds.getValue()))
        bound[llvm::cast<StringAttr>(b).getValue().str()] = ints.lookup(v);
    std::optional<RefTensor> value = evaluateOp(
        op, [&](unsigned i) -> const RefTensor & { return env[op->getOperand(i)]; }, bound,
        error);
    if (!value)
      return std::nullopt;
    RefTensor r = std::move(*value);
    StringRef name = op.getOpName();
    // The type bounds the run-time shape (and is it, in a static program).
    std::vector<int64_t> type = shapeOf(op->getResult(0).getType());
    bool fits = type.size() == r.shape.size();
    for (size_t i = 0; fits && i < type.size(); ++i)
      fits = dynamic ? r.shape[i] <= type[i] : r.shape[i] == type[i];
    if (!fits) {
      std::string got;
      for (int64_t d : r.shape)
        got += (got.empty() ? "" : ", ") + std::to_string(d);
      *error = name.str() + ": the reference computes shape [" + got +
               "], outside its result type";
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
