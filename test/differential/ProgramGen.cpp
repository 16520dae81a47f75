//===- ProgramGen.cpp - random small stateful programs --------------------===//

#include "test/differential/ProgramGen.h"
#include "test/differential/GenModule.h"
#include "test/differential/GenRandom.h"

#include <cstdio>
#include <map>
#include <random>
#include <vector>

namespace ptec::difftest {
namespace {

/// The few shapes the programs use: a 2x2 matrix (mm, the demo pattern), a
/// 4x2 cache, one row of it, a 1x2 row for index_put, a 1-element index.
enum class Shape { S, C, R, P, I };

const char *typeOf(Shape s) {
  switch (s) {
  case Shape::S: return "tensor<2x2xf32>";
  case Shape::C: return "tensor<4x2xf32>";
  case Shape::R: return "tensor<2xf32>";
  case Shape::P: return "tensor<1x2xf32>";
  case Shape::I: return "tensor<1xi64>";
  }
  return "";
}

int rows(Shape s) { return s == Shape::C ? 4 : s == Shape::S ? 2 : 1; }

struct Value {
  std::string name;
  Shape shape;
  bool reserved = false; // an mm result waiting for its add (one use only)
  std::string type;      // set for intermediates outside the shapes above
};

/// A state written back: a buffer or the mutated user input.
struct State {
  std::string name; // fqn / input name
  size_t value;     // index of its argument in `values`
  bool isBuffer;
};

class Generator : GenRandom {
public:
  explicit Generator(uint64_t seed) : GenRandom(seed) {}

  std::string run() {
    declareInputs();
    repeat(3, 12, [&](int) { emitOp(); });
    return finish();
  }

private:

  std::vector<size_t> ofShape(Shape s) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < values_.size(); ++i)
      if (values_[i].shape == s && !values_[i].reserved)
        out.push_back(i);
    return out;
  }
  /// A random value of shape `s`, the most recent ones more likely; -1 if none.
  long pickOf(Shape s) {
    std::vector<size_t> c = ofShape(s);
    if (c.empty())
      return -1;
    if (chance(0.5))
      return static_cast<long>(c.back());
    return static_cast<long>(pick(c));
  }
  std::string literal() {
    static const char *k[] = {"-1.000000e+00", "5.000000e-01", "2.000000e+00",
                               "-2.500000e-01", "3.000000e+00"};
    return oneOf(k);
  }
  std::string dense(Shape s) { return "dense<" + randomRows(rows(s), 2) + ">"; }

  size_t addArg(const std::string &name, Shape s, const std::string &attr) {
    args_.push_back("%" + name + ": " + typeOf(s) + " {exir.input = " + attr + "}");
    values_.push_back({name, s});
    return values_.size() - 1;
  }

  void declareInputs() {
    repeat(1, 3, [&](int i) {
      Shape s = chance(0.5) ? Shape::S : Shape::C;
      std::string name = "b" + std::to_string(i);
      size_t v = addArg(name, s, "#exir.input<buffer, \"" + name + "\">");
      states_.push_back({name, v, true});
      // "mutable" is added by finish() when the buffer is written back.
      weights_.push_back("exir.weight @" + name + " \"buffer\" = " + dense(s) + " : " +
                         typeOf(s));
    });
    addArg("x0", Shape::S, "#exir.input<user_input, \"x0\">");
    if (chance(0.4))
      addArg("x1", Shape::C, "#exir.input<user_input, \"x1\">");
    if (chance(0.35)) {
      size_t v = addArg("m0", Shape::S, "#exir.input<user_input, \"m0\">");
      states_.push_back({"m0", v, false});
    }
  }

  std::string typeOfValue(size_t v) const {
    return values_[v].type.empty() ? typeOf(values_[v].shape) : values_[v].type;
  }

  /// Appends `%vN = exir.aten "op"(operands) {attrs} : (...) -> type`;
  /// `type` overrides the result type of `result` (odd intermediate shapes,
  /// which are never picked as operands).
  size_t op(const std::string &name, const std::vector<size_t> &operands,
            const std::string &attrs, const std::string &segments, Shape result,
            const std::string &type = "") {
    std::string v = "v" + std::to_string(next_++);
    std::string line = "    %" + v + " = exir.aten \"" + name + "\"(";
    std::string types;
    for (size_t i = 0; i < operands.size(); ++i) {
      line += (i ? ", %" : "%") + values_[operands[i]].name;
      types += (i ? ", " : "") + typeOfValue(operands[i]);
    }
    line += ") {" + attrs + (attrs.empty() ? "" : ", ") + "operand_segments = array<i32" +
            segments + ">} : (" + types + ") -> " + (type.empty() ? typeOf(result) : type);
    body_.push_back(line);
    values_.push_back({v, type.empty() ? result : Shape::I, false, type});
    if (!type.empty())
      values_.back().reserved = true; // only its own follow-up op reads it
    return values_.size() - 1;
  }

  /// The value an update of shape `s` starts from: mostly the head of a
  /// state's update chain (the KV-cache pattern), else any value.
  long updateBase(Shape s, long &state) {
    state = -1;
    std::vector<size_t> candidates;
    for (size_t i = 0; i < states_.size(); ++i)
      if (values_[states_[i].value].shape == s)
        candidates.push_back(i);
    if (!candidates.empty() && chance(0.65)) {
      state = static_cast<long>(pick(candidates));
      auto it = head_.find(static_cast<size_t>(state));
      return it != head_.end() ? static_cast<long>(it->second)
                               : static_cast<long>(states_[state].value);
    }
    return pickOf(s);
  }

  size_t indexConstant() {
    std::string name = "k" + std::to_string(constants_);
    ++constants_;
    weights_.push_back("exir.weight @" + name + " \"constant\" = dense<[" +
                       std::to_string(uniform(0, 3)) + "]> : tensor<1xi64>");
    return addArg(name, Shape::I, "#exir.input<constant, \"" + name + "\">");
  }

  void emitOp() {
    Shape big = chance(0.5) || ofShape(Shape::C).empty() ? Shape::S : Shape::C;
    if (ofShape(big).empty())
      big = Shape::S;
    std::string seg1 = ": 1", seg2 = ": 1, 1";
    int kind = uniform(0, 16);
    if (kind > 13)
      kind = 4; // the delegable pattern, more often
    switch (kind) {
    case 0: { // unary
      static const char *ops[] = {"aten::neg", "aten::relu"};
      op(ops[uniform(0, 1)], {size_t(pickOf(big))}, "", seg1, big);
      return;
    }
    case 1:
      op(chance(0.5) ? "aten::add.Scalar" : "aten::mul.Scalar", {size_t(pickOf(big))},
         "other = " + literal() + " : f64", seg1, big);
      return;
    case 2: { // binary
      static const char *ops[] = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor"};
      int k = uniform(0, 2);
      op(ops[k], {size_t(pickOf(big)), size_t(pickOf(big))}, k < 2 ? "alpha = 1 : i64" : "",
         seg2, big);
      return;
    }
    case 3:
      op("aten::mm", {size_t(pickOf(Shape::S)), size_t(pickOf(Shape::S))}, "", seg2, Shape::S);
      return;
    case 4: { // a @ x + b, the demo backend's pattern; the add comes later,
              // perhaps after updates of what the mm read
      std::vector<size_t> s = ofShape(Shape::S);
      if (!pendingMm_.empty() && chance(0.6)) {
        auto [m, b] = pendingMm_.back();
        pendingMm_.pop_back();
        values_[m].reserved = false;
        sums_.push_back(op("aten::add.Tensor", {m, b}, "alpha = 1 : i64", seg2, Shape::S));
        return;
      }
      if (s.size() < 3)
        return;
      // Often one factor is a state (or its latest update): a read of the
      // old state that later updates must not overtake.
      long state;
      long a = chance(0.5) ? updateBase(Shape::S, state) : -1;
      size_t first = a >= 0 ? size_t(a) : pick(s);
      // Four distinct arguments, as the demo runtime needs.
      std::vector<size_t> rest;
      for (size_t v : s)
        if (v != first)
          rest.push_back(v);
      if (rest.size() < 2)
        return;
      size_t x = pick(rest), b;
      do
        b = pick(rest);
      while (b == x);
      size_t m = op("aten::mm", {first, x}, "", seg2, Shape::S);
      values_[m].reserved = true;
      pendingMm_.push_back({m, b});
      return;
    }
    case 5: // views of a 2x2
      if (chance(0.5))
        op("aten::t", {size_t(pickOf(Shape::S))}, "", seg1, Shape::S);
      else
        op("aten::permute", {size_t(pickOf(Shape::S))}, "dims = array<i64: 1, 0>", seg1,
           Shape::S);
      return;
    case 6:
      if (chance(0.5)) {
        op("aten::alias", {size_t(pickOf(big))}, "", seg1, big);
        return;
      }
      { // a reshape round trip (view / unsqueeze, then view / squeeze back):
        // after legalization, copies that may alias their source
        size_t src = size_t(pickOf(big));
        std::string n = big == Shape::S ? "4" : "8";
        std::string mid = chance(0.5) ? "tensor<" + n + "xf32>" : std::string(typeOf(big));
        size_t m;
        if (mid == typeOf(big))
          m = op("aten::unsqueeze", {src}, "dim = 0 : i64", seg1, big,
                 big == Shape::S ? "tensor<1x2x2xf32>" : "tensor<1x4x2xf32>");
        else
          m = op("aten::view", {src}, "size = array<i64: " + n + ">", seg1, big, mid);
        if (values_[m].type.find("tensor<1x") == 0)
          op("aten::squeeze.dim", {m}, "dim = 0 : i64", seg1, big);
        else
          op("aten::view", {m},
             std::string("size = array<i64: ") + (big == Shape::S ? "2, 2" : "4, 2") + ">", seg1,
             big);
        values_[m].reserved = true;
      }
      return;
    case 7: { // slice of the cache (a view)
      long c = pickOf(Shape::C);
      if (c < 0)
        return;
      int start = uniform(0, 2);
      op("aten::slice.Tensor", {size_t(c)},
         "dim = 0 : i64, end = " + std::to_string(start + 2) +
             " : i64, start = " + std::to_string(start) + " : i64, step = 1 : i64",
         seg1, Shape::S);
      return;
    }
    case 8: // one row (a view)
      op("aten::select.int", {size_t(pickOf(big))},
         "dim = 0 : i64, index = " + std::to_string(uniform(0, rows(big) - 1)) + " : i64",
         seg1, Shape::R);
      return;
    case 9: { // cache[start:start+2] = src
      long state;
      long base = updateBase(Shape::C, state);
      if (base < 0)
        return;
      int start = uniform(0, 2);
      size_t r = op("aten::slice_scatter", {size_t(base), size_t(pickOf(Shape::S))},
                    "dim = 0 : i64, end = " + std::to_string(start + 2) +
                        " : i64, start = " + std::to_string(start) + " : i64, step = 1 : i64",
                    seg2, Shape::C);
      if (state >= 0)
        head_[size_t(state)] = r;
      return;
    }
    case 10: { // x[i] = row
      long state;
      long base = updateBase(big, state);
      long row = pickOf(Shape::R);
      if (base < 0 || row < 0)
        return;
      size_t r = op("aten::select_scatter", {size_t(base), size_t(row)},
                    "dim = 0 : i64, index = " + std::to_string(uniform(0, rows(big) - 1)) +
                        " : i64",
                    seg2, big);
      if (state >= 0)
        head_[size_t(state)] = r;
      return;
    }
    case 11: { // cache[idx] = values (index_put with a constant index in 0..3)
      long state;
      long base = updateBase(Shape::C, state);
      if (base < 0)
        return;
      long idx = pickOf(Shape::I);
      if (idx < 0 || chance(0.3))
        idx = long(indexConstant());
      int start = uniform(0, 1);
      size_t vals = op("aten::slice.Tensor", {size_t(pickOf(Shape::S))},
                       "dim = 0 : i64, end = " + std::to_string(start + 1) +
                           " : i64, start = " + std::to_string(start) + " : i64, step = 1 : i64",
                       seg1, Shape::P);
      size_t r = op("aten::index_put", {size_t(base), size_t(idx), vals},
                    "accumulate = false, indices = array<i1: true>", ": 1, 1, 1", Shape::C);
      if (state >= 0)
        head_[size_t(state)] = r;
      return;
    }
    case 12: { // functional copy: same shape (folds to the source) or a broadcast row
      long state;
      long base = updateBase(Shape::S, state);
      if (base < 0)
        return;
      long src = chance(0.5) ? pickOf(Shape::R) : pickOf(Shape::S);
      if (src < 0)
        return;
      size_t r = op("aten::copy", {size_t(base), size_t(src)}, "non_blocking = false", seg2,
                    Shape::S);
      if (state >= 0)
        head_[size_t(state)] = r;
      return;
    }
    case 13:
      op("aten::clone", {size_t(pickOf(big))}, "memory_format = #exir.none", seg1, big);
      return;
    }
  }

  std::string finish() {
    for (auto [m, b] : pendingMm_) {
      values_[m].reserved = false;
      sums_.push_back(op("aten::add.Tensor", {m, b}, "alpha = 1 : i64", ": 1, 1", Shape::S));
    }
    std::vector<std::pair<size_t, std::string>> results; // value, output attr
    for (size_t i = 0; i < states_.size(); ++i) {
      const State &st = states_[i];
      if (!chance(0.85))
        continue;
      Shape s = values_[st.value].shape;
      auto it = head_.find(i);
      size_t v = it != head_.end() && chance(0.7) ? it->second : size_t(pickOf(s));
      if (st.isBuffer)
        for (std::string &w : weights_)
          if (w.rfind("exir.weight @" + st.name + " ", 0) == 0)
            w.replace(w.find("\"buffer\""), 8, "\"buffer\" mutable");
      results.push_back({v, std::string("#exir.output<") +
                                (st.isBuffer ? "buffer_mutation" : "user_input_mutation") +
                                ", \"" + st.name + "\">"});
    }
    // User outputs: every a @ x + b most of the time (so that the demo
    // backend has work), then random values, intermediate ones included.
    for (size_t v : sums_)
      if (chance(0.8))
        results.push_back({v, "#exir.output<user_output>"});
    repeat(1, 3, [&](int) {
      size_t v;
      do
        v = static_cast<size_t>(uniform(0, static_cast<int>(values_.size()) - 1));
      while (values_[v].shape == Shape::I || values_[v].reserved);
      results.push_back({v, "#exir.output<user_output>"});
    });

    std::vector<GenOutput> outputs;
    for (const auto &[v, kind] : results)
      outputs.push_back({values_[v].name, typeOfValue(v), kind});
    return forwardModule("1.1", weights_, args_, body_, outputs);
  }

  std::vector<Value> values_;
  std::vector<State> states_;
  std::vector<std::string> args_, weights_, body_;
  std::map<size_t, size_t> head_; // state -> latest value of its update chain
  std::vector<std::pair<size_t, size_t>> pendingMm_; // mm result, addend
  std::vector<size_t> sums_;                         // a @ x + b results
  int next_ = 0, constants_ = 0;
};

} // namespace

std::string generateProgram(uint64_t seed) { return Generator(seed).run(); }

} // namespace ptec::difftest
