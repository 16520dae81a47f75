//===- DynamicGen.cpp - random small programs with run-time sizes ---------===//
//
// The dynamic-shape half of the program generator: a user input whose rows
// are dynamic (type at the bound, exir.dynamic_dims), exir.sym_size of it and
// of intermediates, size arithmetic with Python rounding, and ops whose size
// arguments are bound to those symbolic ints (view / view_copy, slice with a
// symbolic end, expand, full, cat, mm / addmm with a dynamic row count,
// reductions over the dynamic dim). The generator knows the value of every
// symbolic int at every run-time size (a table over 1..bound), so each
// attribute holds the value at the bound and every size it uses stays within
// its planned bound at every size. Buffers stay static: one may accumulate a
// reduction over the dynamic dim.
//
//===----------------------------------------------------------------------===//

#include "test/differential/ProgramGen.h"
#include "test/differential/GenModule.h"
#include "test/differential/GenRandom.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace ptec::difftest {
namespace {

/// Python's // on int64 (rounds toward negative infinity).
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct Sym {
  std::string name;
  std::vector<int64_t> at; // value at run-time size s = 0..bound (0 unused)
};

/// One dim: static `n`, or the symbolic int `sym`.
struct Dim {
  int64_t n = 0;
  int sym = -1;
};

struct Tensor {
  std::string name;
  std::vector<Dim> dims;
};

class DynGenerator : GenRandom {
public:
  explicit DynGenerator(uint64_t seed) : GenRandom(seed ^ 0x9e3779b97f4a7c15ull) {}

  std::string run() {
    bound_ = uniform(3, 8);
    cols_ = uniform(2, 4);
    declareInputs();
    repeat(4, 12, [&](int) { emitOp(); });
    return finish();
  }

private:
  std::string literal() {
    static const char *k[] = {"-1.000000e+00", "5.000000e-01", "2.000000e+00",
                               "-2.500000e-01", "1.500000e+00"};
    return oneOf(k);
  }

  int64_t boundOf(const Dim &d) const { return d.sym >= 0 ? syms_[d.sym].at[bound_] : d.n; }
  std::string typeOf(const std::vector<Dim> &dims) const {
    std::string t = "tensor<";
    for (const Dim &d : dims)
      t += std::to_string(boundOf(d)) + "x";
    return t + "f32>";
  }
  std::string typeOf(size_t v) const { return typeOf(values_[v].dims); }
  bool isDynamic(size_t v) const {
    for (const Dim &d : values_[v].dims)
      if (d.sym >= 0)
        return true;
    return false;
  }
  /// Same sizes at every run-time size.
  bool sameDim(const Dim &a, const Dim &b) const {
    if (a.sym < 0 && b.sym < 0)
      return a.n == b.n;
    for (int s = 1; s <= bound_; ++s)
      if ((a.sym >= 0 ? syms_[a.sym].at[s] : a.n) != (b.sym >= 0 ? syms_[b.sym].at[s] : b.n))
        return false;
    return true;
  }
  bool sameShape(size_t a, size_t b) const {
    const auto &x = values_[a].dims, &y = values_[b].dims;
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!sameDim(x[i], y[i]))
        return false;
    return true;
  }
  /// The smallest run-time size of `d`.
  int64_t minOf(const Dim &d) const {
    if (d.sym < 0)
      return d.n;
    int64_t m = syms_[d.sym].at[1];
    for (int s = 2; s <= bound_; ++s)
      m = std::min(m, syms_[d.sym].at[s]);
    return m;
  }
  /// A static [1, n] or [n] value (a row that broadcasts).
  bool isRow(size_t v, int64_t n) const {
    const auto &d = values_[v].dims;
    for (const Dim &x : d)
      if (x.sym >= 0)
        return false;
    return (d.size() == 1 && d[0].n == n) || (d.size() == 2 && d[0].n == 1 && d[1].n == n);
  }
  /// A sym usable as a size: within [lo, value at the bound] at every size.
  bool fits(int sym, int64_t lo) const {
    const std::vector<int64_t> &at = syms_[sym].at;
    for (int s = 1; s <= bound_; ++s)
      if (at[s] < lo || at[s] > at[bound_])
        return false;
    return true;
  }

  // --- symbolic ints ---------------------------------------------------------
  int newSym(const std::string &line, std::vector<int64_t> at) {
    std::string name = "s" + std::to_string(syms_.size());
    body_.push_back("    %" + name + " = " + line);
    syms_.push_back({name, std::move(at)});
    return static_cast<int>(syms_.size()) - 1;
  }
  int symSize(size_t v, int dim) {
    const Dim &d = values_[v].dims[dim];
    std::vector<int64_t> at(bound_ + 1, d.n);
    if (d.sym >= 0)
      at = syms_[d.sym].at;
    return newSym("exir.sym_size %" + values_[v].name + ", " + std::to_string(dim) + " : " +
                      typeOf(v),
                  at);
  }
  int symConst(int64_t k) {
    return newSym("exir.sym_const " + std::to_string(k), std::vector<int64_t>(bound_ + 1, k));
  }
  int symOp(const std::string &fn, int a, int b = -1) {
    std::vector<int64_t> at(bound_ + 1, 0);
    for (int s = 0; s <= bound_; ++s) {
      int64_t x = syms_[a].at[s], y = b >= 0 ? syms_[b].at[s] : 0;
      at[s] = fn == "add" ? x + y : fn == "sub" ? x - y : fn == "mul" ? x * y
            : fn == "floordiv" ? floorDiv(x, y) : fn == "mod" ? x - floorDiv(x, y) * y
            : fn == "max" ? std::max(x, y) : fn == "min" ? std::min(x, y) : -x;
    }
    std::string args = "%" + syms_[a].name, types = "i64";
    if (b >= 0) {
      args += ", %" + syms_[b].name;
      types += ", i64";
    }
    return newSym("exir.sym \"" + fn + "\"(" + args + ") : (" + types + ") -> i64", at);
  }
  /// The rows of `v` as a symbolic int: its own sym, or sometimes a fresh
  /// sym_size of `v` (so that run-time shapes of intermediates are read).
  int rowsSym(size_t v) {
    const Dim &d = values_[v].dims[0];
    if (d.sym >= 0 && !chance(0.3))
      return d.sym;
    return symSize(v, 0);
  }
  /// A random size at most `rows` at every run-time size (at least `lo`),
  /// built with the arithmetic the importer produces.
  int smallerThan(int rows, int64_t lo) {
    for (int attempt = 0; attempt < 4; ++attempt) {
      int r;
      switch (uniform(0, 5)) {
      case 0: r = symOp("floordiv", rows, symConst(uniform(1, 3))); break;
      case 1: // ceil(rows / k) = -((-rows) // k): floor division of a negative
        r = symOp("neg", symOp("floordiv", symOp("neg", rows), symConst(uniform(2, 3))));
        break;
      case 2: r = symOp("sub", rows, symConst(1)); break;
      case 3: r = symOp("min", rows, symConst(uniform(1, 3))); break;
      case 4: r = symOp("max", symOp("sub", rows, symConst(uniform(1, 2))), symConst(1)); break;
      default: r = symOp("sub", rows, symOp("mod", rows, symConst(2))); break;
      }
      if (fits(r, lo) && [&] {
            for (int s = 1; s <= bound_; ++s)
              if (syms_[r].at[s] > syms_[rows].at[s])
                return false;
            return true;
          }())
        return r;
    }
    return rows;
  }

  // --- tensors ---------------------------------------------------------------
  size_t addValue(const std::string &name, std::vector<Dim> dims) {
    values_.push_back({name, std::move(dims)});
    return values_.size() - 1;
  }
  size_t addArg(const std::string &name, std::vector<Dim> dims, const std::string &attrs) {
    size_t v = addValue(name, std::move(dims));
    args_.push_back("%" + name + ": " + typeOf(v) + " {" + attrs + "}");
    return v;
  }
  /// A random f32 literal of shape [rows, cols] ([cols] when rows is 0).
  std::string dense(int64_t rows, int64_t cols) {
    return "dense<" + (rows ? randomRows(rows, cols) : randomRow(cols)) + ">";
  }
  /// A parameter of static shape (rows x cols, or a vector when rows is 0).
  size_t weight(int64_t rows, int64_t cols) {
    std::string name = "w" + std::to_string(weights_.size());
    std::vector<Dim> dims;
    if (rows)
      dims.push_back({rows});
    dims.push_back({cols});
    weights_.push_back("exir.weight @" + name + " \"parameter\" = " + dense(rows, cols) +
                       " : " + typeOf(dims));
    return addArg(name, dims, "exir.input = #exir.input<parameter, \"" + name + "\">");
  }

  void declareInputs() {
    Dim rows{0, -1};
    std::vector<int64_t> at(bound_ + 1);
    for (int s = 0; s <= bound_; ++s)
      at[s] = s;
    // The input's rows: a placeholder sym for typing; the program reads it
    // with sym_size below.
    syms_.push_back({"", at});
    rows.sym = 0;
    x_ = addArg("x", {rows, {cols_}},
                "exir.dynamic_dims = array<i64: 0>, exir.input = #exir.input<user_input, \"x\">");
    values_[x_].dims[0].sym = symSize(x_, 0);
    if (chance(0.4)) { // a second input with the same dynamic rows
      size_t y = addArg("y", {rows, {cols_}},
                        "exir.dynamic_dims = array<i64: 0>, exir.input = "
                        "#exir.input<user_input, \"y\">");
      values_[y].dims[0].sym = values_[x_].dims[0].sym;
    }
    if (chance(0.5)) { // a static buffer accumulating a reduction
      buffer_ = static_cast<long>(values_.size());
      std::vector<Dim> dims = {{1}, {cols_}};
      weights_.push_back("exir.weight @acc \"buffer\" mutable = " + dense(1, cols_) + " : " +
                         typeOf(dims));
      addArg("acc", dims, "exir.input = #exir.input<buffer, \"acc\">");
    }
  }

  /// Appends `%vN = exir.aten "op"(operands, syms) {attrs} : (...) -> dims`.
  size_t op(const std::string &name, const std::vector<size_t> &operands,
            const std::vector<std::pair<int, std::string>> &symArgs, const std::string &attrs,
            const std::string &segments, std::vector<Dim> result) {
    std::string v = "v" + std::to_string(next_++);
    std::string line = "    %" + v + " = exir.aten \"" + name + "\"(", types;
    bool firstOperand = true;
    for (size_t o : operands) {
      line += (firstOperand ? "%" : ", %") + values_[o].name;
      types += (firstOperand ? "" : ", ") + typeOf(o);
      firstOperand = false;
    }
    std::string binds;
    for (const auto &[sym, arg] : symArgs) {
      line += (firstOperand ? "%" : ", %") + syms_[sym].name;
      types += firstOperand ? "i64" : ", i64";
      binds += (binds.empty() ? "\"" : ", \"") + arg + "\"";
      firstOperand = false;
    }
    std::string all = attrs;
    if (!binds.empty())
      all += (all.empty() ? "" : ", ") + std::string("exir.sym_args = [") + binds + "]";
    all += (all.empty() ? "" : ", ") + std::string("operand_segments = array<i32") + segments + ">";
    body_.push_back(line + ") {" + all + "} : (" + types + ") -> " + typeOf(result));
    return addValue(v, std::move(result));
  }

  /// A 2-D value, dynamic ones more likely (most recent first).
  size_t pick2d(bool dynamicOnly = false) {
    std::vector<size_t> dyn, any;
    for (size_t i = 0; i < values_.size(); ++i)
      if (values_[i].dims.size() == 2 && static_cast<long>(i) != buffer_) {
        any.push_back(i);
        if (isDynamic(i))
          dyn.push_back(i);
      }
    const std::vector<size_t> &c = dynamicOnly || chance(0.8) ? dyn : any;
    return chance(0.4) ? c.back() : pick(c);
  }
  std::string dimsAttr(const std::vector<Dim> &dims) const {
    std::string t = "array<i64: ";
    for (size_t i = 0; i < dims.size(); ++i)
      t += (i ? ", " : "") + std::to_string(boundOf(dims[i]));
    return t + ">";
  }

  void emitOp() {
    size_t a = pick2d();
    std::vector<Dim> shape = values_[a].dims;
    const std::string s1 = ": 1", s2 = ": 1, 1";
    switch (uniform(0, 13)) {
    case 0: { // unary / scalar
      int k = uniform(0, 3);
      static const char *ops[] = {"aten::neg", "aten::relu", "aten::add.Scalar",
                                  "aten::mul.Scalar"};
      op(ops[k], {a}, {}, k >= 2 ? "other = " + literal() + " : f64" : "", s1, shape);
      return;
    }
    case 1: { // binary, with a same-shaped value or a broadcast row
      std::vector<size_t> same;
      for (size_t i = 0; i < values_.size(); ++i)
        if (sameShape(i, a) || (shape[1].sym < 0 && isRow(i, shape[1].n)))
          same.push_back(i);
      size_t b = pick(same);
      static const char *ops[] = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor"};
      int k = uniform(0, 2);
      bool swap = values_[b].dims.size() == 2 && sameShape(a, b) && chance(0.5);
      op(ops[k], {swap ? b : a, swap ? a : b}, {}, k < 2 ? "alpha = 1 : i64" : "", s2, shape);
      return;
    }
    case 2: { // reduction over the rows (a static result) or over the columns
      bool rowsDim = chance(0.6), keep = chance(0.6);
      // (A mean over no elements is NaN: only over dims never empty.)
      std::string fn = chance(0.5) || minOf(shape[rowsDim ? 0 : 1]) < 1 ? "aten::sum.dim_IntList"
                                                                         : "aten::mean.dim";
      std::vector<Dim> r = rowsDim ? std::vector<Dim>{{1}, shape[1]}
                                   : std::vector<Dim>{shape[0], {1}};
      if (!keep)
        r.erase(r.begin() + (rowsDim ? 0 : 1));
      op(fn, {a}, {},
         std::string("dim = array<i64: ") + (rowsDim ? "0" : (chance(0.5) ? "1" : "-1")) +
             ">, keepdim = " + (keep ? "true" : "false"),
         s1, r);
      return;
    }
    case 3: { // a @ W (+ bias): a dynamic row count
      if (shape[1].sym >= 0)
        return;
      int64_t k = uniform(1, 4);
      size_t w = weight(shape[1].n, k);
      if (chance(0.5)) {
        op("aten::mm", {a, w}, {}, "", s2, {shape[0], {k}});
      } else {
        size_t bias = weight(0, k);
        op("aten::addmm", {bias, a, w}, {}, "alpha = 1 : i64, beta = 1 : i64", ": 1, 1, 1",
           {shape[0], {k}});
      }
      return;
    }
    case 4: { // a^T @ b: the dynamic dim is the inner one (a static result)
      std::vector<size_t> same;
      for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i].dims.size() == 2 && sameDim(values_[i].dims[0], shape[0]) &&
            values_[i].dims[1].sym < 0 && static_cast<long>(i) != buffer_)
          same.push_back(i);
      if (shape[1].sym >= 0 || same.empty())
        return;
      size_t b = pick(same);
      bool permute = chance(0.5);
      size_t t = op(permute ? "aten::permute" : "aten::t", {a}, {},
                    permute ? "dims = array<i64: 1, 0>" : "", s1, {shape[1], shape[0]});
      op("aten::mm", {t, b}, {}, "", s2, {shape[1], values_[b].dims[1]});
      return;
    }
    case 5: { // flatten with a symbolic size, an op, then back
      if (shape[1].sym >= 0)
        return;
      int rows = rowsSym(a);
      int n = symOp("mul", rows, symConst(shape[1].n));
      const char *view = chance(0.5) ? "aten::view" : "aten::view_copy";
      size_t f = op(view, {a}, {{n, "size[0]"}}, "size = " + dimsAttr({{0, n}}), s1, {{0, n}});
      size_t g = op(chance(0.5) ? "aten::neg" : "aten::relu", {f}, {}, "", s1, {{0, n}});
      if (chance(0.5) || minOf(shape[0]) < 1) // back with a symbolic row count
        op(view, {g}, {{rows, "size[0]"}}, "size = " + dimsAttr({{0, rows}, shape[1]}), s1,
           {{0, rows}, shape[1]});
      else // back with -1: the kernel infers the rows
        op(view, {g}, {}, "size = array<i64: -1, " + std::to_string(shape[1].n) + ">", s1,
           {{0, rows}, shape[1]});
      return;
    }
    case 6: { // rows [0, end) with a symbolic end
      if (shape[0].sym < 0)
        return;
      int rows = rowsSym(a);
      int end = smallerThan(rows, 0);
      op("aten::slice.Tensor", {a}, {{end, "end"}},
         "dim = 0 : i64, end = " + std::to_string(syms_[end].at[bound_]) +
             " : i64, start = 0 : i64, step = 1 : i64",
         s1, {{0, end}, shape[1]});
      return;
    }
    case 7: { // static start and end on a dynamic dim: rows clamp at run time
      if (shape[0].sym < 0)
        return;
      int rows = rowsSym(a);
      if (chance(0.5)) { // [1:] -> max(rows - 1, 0)
        int r = symOp("max", symOp("sub", rows, symConst(1)), symConst(0));
        op("aten::slice.Tensor", {a}, {},
           "dim = 0 : i64, end = 9223372036854775807 : i64, start = 1 : i64, step = 1 : i64",
           s1, {{0, r}, shape[1]});
      } else { // [-k:] -> min(rows, k)
        int k = uniform(1, 3);
        int r = symOp("min", rows, symConst(k));
        op("aten::slice.Tensor", {a}, {},
           "dim = 0 : i64, end = 9223372036854775807 : i64, start = " + std::to_string(-k) +
               " : i64, step = 1 : i64",
           s1, {{0, r}, shape[1]});
      }
      return;
    }
    case 8: { // expand a row to a run-time row count
      size_t x = pick2d(true);
      int rows = rowsSym(x);
      size_t row = op("aten::sum.dim_IntList", {a}, {}, "dim = array<i64: 0>, keepdim = true",
                      s1, {{1}, shape[1]});
      if (shape[1].sym >= 0)
        return;
      std::string size = chance(0.5) ? dimsAttr({{0, rows}, shape[1]})
                                     : "array<i64: " + std::to_string(syms_[rows].at[bound_]) +
                                           ", -1>";
      op("aten::expand", {row}, {{rows, "size[0]"}}, "size = " + size, s1, {{0, rows}, shape[1]});
      return;
    }
    case 9: { // full with a symbolic size
      int rows = smallerThan(rowsSym(pick2d(true)), 0);
      op("aten::full", {}, {{rows, "size[0]"}},
         "device = #exir.none, dtype = #exir.none, fill_value = " + literal() +
             " : f64, layout = #exir.none, pin_memory = #exir.none, size = " +
             dimsAttr({{0, rows}, {cols_}}),
         "", {{0, rows}, {cols_}});
      return;
    }
    case 10: { // cat along the dynamic dim
      std::vector<size_t> c;
      for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i].dims.size() == 2 && sameDim(values_[i].dims[1], shape[1]) &&
            static_cast<long>(i) != buffer_)
          c.push_back(i);
      size_t b = pick(c);
      const Dim &r0 = shape[0], &r1 = values_[b].dims[0];
      Dim rows;
      if (r0.sym < 0 && r1.sym < 0)
        rows.n = r0.n + r1.n;
      else
        rows.sym = symOp("add", r0.sym >= 0 ? r0.sym : symConst(r0.n),
                         r1.sym >= 0 ? r1.sym : symConst(r1.n));
      op("aten::cat", {a, b}, {}, "dim = 0 : i64", ": 2", {rows, shape[1]});
      return;
    }
    case 11: // first or last row: select with a negative index counts from the run-time end
      // (never on a value that may have no rows)
      if (minOf(shape[0]) < 1)
        return;
      op("aten::select.int", {a}, {},
         std::string("dim = 0 : i64, index = ") + (chance(0.5) ? "0" : "-1") + " : i64", s1,
         {shape[1]});
      return;
    case 12: // a fresh sym_size of an intermediate (later sizes read its run-time rows)
      if (shape[0].sym >= 0)
        values_[a].dims[0].sym = symSize(a, 0);
      return;
    default: // clone
      op("aten::clone", {a}, {}, "memory_format = #exir.none", s1, shape);
      return;
    }
  }

  std::string finish() {
    std::vector<std::pair<size_t, std::string>> results;
    if (buffer_ >= 0) { // acc <- acc + sum of a dynamic value over its rows
      size_t a = pick2d(true);
      if (values_[a].dims[1].sym < 0 && values_[a].dims[1].n == cols_) {
        size_t r = op("aten::sum.dim_IntList", {a}, {}, "dim = array<i64: 0>, keepdim = true",
                      ": 1", {{1}, {cols_}});
        size_t n = op("aten::add.Tensor", {size_t(buffer_), r}, {}, "alpha = 1 : i64", ": 1, 1",
                      {{1}, {cols_}});
        results.push_back({n, "#exir.output<buffer_mutation, \"acc\">"});
      } else {
        for (std::string &w : weights_) // never written: not mutable
          if (w.rfind("exir.weight @acc ", 0) == 0)
            w.replace(w.find(" mutable"), 8, "");
      }
    }
    // Outputs: mostly values with run-time shapes (the most recent first).
    std::vector<size_t> dyn, any;
    for (size_t i = 0; i < values_.size(); ++i)
      if (static_cast<long>(i) != buffer_ && values_[i].name[0] != 'w') {
        any.push_back(i);
        if (isDynamic(i))
          dyn.push_back(i);
      }
    repeat(1, 3, [&](int i) {
      const std::vector<size_t> &c = chance(0.75) ? dyn : any;
      results.push_back({i == 0 ? c.back() : pick(c), "#exir.output<user_output>"});
    });
    std::vector<GenOutput> outputs;
    for (const auto &[v, kind] : results)
      outputs.push_back({values_[v].name, typeOf(v), kind});
    return forwardModule("1.2", weights_, args_, body_, outputs);
  }

  int bound_ = 0;
  int64_t cols_ = 0;
  size_t x_ = 0;
  long buffer_ = -1;
  std::vector<Sym> syms_;
  std::vector<Tensor> values_;
  std::vector<std::string> args_, weights_, body_;
  int next_ = 0;
};

} // namespace

std::string generateDynamicProgram(uint64_t seed) { return DynGenerator(seed).run(); }

} // namespace ptec::difftest
