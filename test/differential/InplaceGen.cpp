//===- InplaceGen.cpp - random programs that write in place ---------------===//
//
// The non-functional half of the program generator: programs in the form
// torch.export writes before functionalization. In-place ops (add_, sub_,
// mul_ with a tensor or a scalar, relu_, neg_, clamp_, copy_, fill_, zero_,
// masked_fill_, index_put_, index_copy_) write user inputs, buffers,
// parameters (less often), clones and intermediates, directly or through
// views and chains of views of every kind (slice, select, view, t, permute,
// transpose, unsqueeze, squeeze, diagonal, alias; expand for reads only).
// Views made before a write are read after it, the result of an in-place op
// is used later (it aliases its self), the base is read after writes
// through a view, and one state is written several times. The signature has
// user inputs, buffers, parameters and constants (index tensors) and only
// user outputs: the mutations are implicit, as in PyTorch.
//
// The generator keeps the strided layout (sizes, strides, offset of a
// storage) of every value, as eager PyTorch would, so that it emits only
// what PyTorch runs: a view() only where the strides allow one, never a
// write into an expanded view, no read operand that partially overlaps the
// written self (PyTorch raises), no element written twice by one
// index_put_ / index_copy_ (undefined order).
//
//===----------------------------------------------------------------------===//

#include "test/differential/AliasEval.h"
#include "test/differential/GenModule.h"
#include "test/differential/GenRandom.h"
#include "test/differential/ProgramGen.h"
#include "test/differential/RefShapes.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace ptec::difftest {
namespace {

using Shape = std::vector<int64_t>;


enum class Kind { Input, Buffer, Param, Fresh, Constant };

struct Storage {
  Kind kind;
  int writes = 0; // in-place ops that wrote it so far
};

enum class DType { F32, Bool, I64 };

struct Val {
  std::string name;
  Shape sizes, strides;
  int64_t offset = 0;
  int storage = -1;
  DType dtype = DType::F32;
  bool writable = true;   // no internal overlap (not derived from expand)
  bool exact = true;      // layout as PyTorch has it (view() may be used)
  int writesAtCreation = 0; // storage writes when this value was made
  bool reserved = false;  // an mm waiting for its add (one use only)

  std::string type() const {
    std::string t = "tensor<";
    for (int64_t d : sizes)
      t += std::to_string(d) + "x";
    return t + (dtype == DType::F32 ? "f32>" : dtype == DType::Bool ? "i1>" : "i64>");
  }
  bool isContiguous() const {
    Shape want = contiguousStrides(sizes);
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] != 1 && strides[d] != want[d])
        return false;
    return true;
  }
};

class InplaceGenerator : GenRandom {
public:
  explicit InplaceGenerator(uint64_t seed) : GenRandom(seed ^ 0x5bd1e995c0ffee11ull) {}

  std::string run() {
    declareInputs();
    repeat(4, 14, [&](int) { step(); });
    if (inplaceOps_ == 0) // always a non-functional program
      while (inplaceOps_ == 0)
        inplace(pickTarget(true));
    return finish();
  }

private:
  // ---- values and their text ----------------------------------------------

  std::string literal() {
    static const char *k[] = {"-1.000000e+00", "5.000000e-01", "2.000000e+00",
                               "-2.500000e-01", "1.500000e+00", "3.000000e+00"};
    return oneOf(k);
  }
  std::string dense(const Shape &s, bool isInt, const std::vector<int64_t> &intValues = {}) {
    if (s.empty()) {
      const std::string f = randomFloat(); // drawn for an int too
      return "dense<" + (isInt ? std::to_string(intValues.at(0)) : f) + ">";
    }
    int64_t k = 0;
    std::function<std::string(size_t)> level = [&](size_t d) {
      std::string t = "[";
      for (int64_t i = 0; i < s[d]; ++i) {
        t += i ? ", " : "";
        if (d + 1 < s.size()) {
          t += level(d + 1);
        } else if (isInt) {
          t += std::to_string(intValues.at(k++));
        } else {
          t += randomFloat();
        }
      }
      return t + "]";
    };
    return "dense<" + level(0) + ">";
  }

  Shape randomShape() {
    // Square and cubic shapes too: there a wrong (self-)inverse of t /
    // transpose / permute keeps the shape and only the values tell.
    static const std::vector<Shape> shapes = {{2, 3}, {3, 3}, {4, 3}, {3, 4}, {4},    {2, 2, 3},
                                              {2, 2}, {3, 2}, {2, 4}, {2, 2, 2}};
    return pick(shapes);
  }

  size_t addArg(const std::string &name, const Shape &s, Kind kind, const char *inputKind,
                DType dtype = DType::F32) {
    Val v;
    v.name = name;
    v.sizes = s;
    v.strides = contiguousStrides(s);
    v.dtype = dtype;
    v.storage = static_cast<int>(storages_.size());
    storages_.push_back({kind});
    values_.push_back(v);
    args_.push_back("%" + name + ": " + v.type() + " {exir.input = #exir.input<" + inputKind +
                    ", \"" + name + "\">}");
    return values_.size() - 1;
  }

  void declareInputs() {
    repeat(0, 3, [&](int i) {
      std::string name = "b" + std::to_string(i);
      Shape s = randomShape();
      weights_.push_back("exir.weight @" + name + " \"buffer\" = " + dense(s, false) + " : " +
                         Val{"", s}.type());
      addArg(name, s, Kind::Buffer, "buffer");
    });
    if (chance(0.5)) {
      Shape s = randomShape();
      weights_.push_back("exir.weight @p0 \"parameter\" = " + dense(s, false) + " : " +
                         Val{"", s}.type());
      addArg("p0", s, Kind::Param, "parameter");
    }
    int numInputs = uniform(1, 2);
    for (int i = 0; i < numInputs; ++i)
      addArg("x" + std::to_string(i), randomShape(), Kind::Input, "user_input");
    if (chance(0.25)) // a 2x2 pair for the demo backend's a @ x + b
      addArg("x" + std::to_string(numInputs), {2, 2}, Kind::Input, "user_input");
  }

  /// An index constant: `values` (distinct) as a 1-D i64 tensor.
  size_t indexConstant(const std::vector<int64_t> &values) {
    std::string name = "k" + std::to_string(constants_++);
    Shape s = {static_cast<int64_t>(values.size())};
    weights_.push_back("exir.weight @" + name + " \"constant\" = " + dense(s, true, values) +
                       " : " + Val{"", s, {}, 0, 0, DType::I64}.type());
    return addArg(name, s, Kind::Constant, "constant", DType::I64);
  }

  /// Appends `%vN = exir.aten "op"(operands) {attrs} : (...) -> type` and
  /// returns the new value (its layout filled in by the caller).
  size_t emit(const std::string &opName, const std::vector<size_t> &operands,
              const std::string &attrs, const std::string &segments, Val result) {
    result.name = "v" + std::to_string(next_++);
    std::string line = "    %" + result.name + " = exir.aten \"" + opName + "\"(";
    std::string types;
    for (size_t i = 0; i < operands.size(); ++i) {
      line += (i ? ", %" : "%") + values_[operands[i]].name;
      types += (i ? ", " : "") + values_[operands[i]].type();
    }
    line += ") {" + attrs + (attrs.empty() ? "" : ", ") + "operand_segments = array<i32" +
            segments + ">} : (" + types + ") -> " + result.type();
    body_.push_back(line);
    if (result.storage >= 0)
      result.writesAtCreation = storages_[result.storage].writes;
    values_.push_back(result);
    return values_.size() - 1;
  }

  /// A fresh value (a functional op's result) of `sizes`, contiguous in
  /// PyTorch when `exact`.
  Val freshVal(const Shape &sizes, bool exact, DType dtype = DType::F32) {
    Val v;
    v.sizes = sizes;
    v.strides = contiguousStrides(sizes);
    v.dtype = dtype;
    v.exact = exact;
    v.storage = static_cast<int>(storages_.size());
    storages_.push_back({Kind::Fresh});
    return v;
  }

  // ---- choosing values -----------------------------------------------------

  std::vector<size_t> floats(bool writableOnly) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < values_.size(); ++i) {
      const Val &v = values_[i];
      if (v.dtype == DType::F32 && !v.reserved && (!writableOnly || v.writable))
        out.push_back(i);
    }
    return out;
  }
  /// Values made before their storage's last write (a read must see it).
  bool stale(const Val &v) const { return v.writesAtCreation < storages_[v.storage].writes; }

  /// A float value to read: recent ones, and stale views, more likely.
  long pickRead() { return pickFavouringStale(floats(false), true); }

  /// One of `c` (-1 if none), stale views more likely, and with
  /// `favourRecent` the most recent one too.
  long pickFavouringStale(const std::vector<size_t> &c, bool favourRecent) {
    if (c.empty())
      return -1;
    std::vector<size_t> old;
    for (size_t i : c)
      if (stale(values_[i]))
        old.push_back(i);
    if (!old.empty() && chance(0.4))
      return static_cast<long>(pick(old));
    if (favourRecent && chance(0.4))
      return static_cast<long>(c.back());
    return static_cast<long>(pick(c));
  }

  /// A value to write: by the kind of its storage (inputs, buffers,
  /// clones / intermediates; parameters less often), states written before
  /// more likely (several writes to one state).
  size_t pickTarget(bool any) {
    std::vector<size_t> all = floats(true);
    std::vector<size_t> byKind[5], again;
    for (size_t i : all) {
      byKind[static_cast<int>(storages_[values_[i].storage].kind)].push_back(i);
      if (storages_[values_[i].storage].writes > 0)
        again.push_back(i);
    }
    if (!again.empty() && chance(0.3) && !any)
      return pick(again);
    static const std::pair<Kind, int> weights[] = {
        {Kind::Input, 30}, {Kind::Buffer, 35}, {Kind::Param, 8}, {Kind::Fresh, 27}};
    for (int tries = 0; tries < 8; ++tries) {
      int r = uniform(0, 99);
      for (auto [kind, w] : weights) {
        if (r < w) {
          if (!byKind[static_cast<int>(kind)].empty())
            return chance(0.5) ? byKind[static_cast<int>(kind)].back()
                               : pick(byKind[static_cast<int>(kind)]);
          break;
        }
        r -= w;
      }
    }
    return pick(all);
  }

  /// May `read` be an operand of in-place op `op` that writes `self`?
  /// PyTorch refuses a partial overlap, and any overlap for index_put_ /
  /// index_copy_ / masked_fill_.
  bool readable(const Val &self, const Val &read, bool elementwise) const {
    if (self.storage != read.storage || !sharePosition(self, read))
      return true;
    return elementwise && self.sizes == read.sizes && self.strides == read.strides &&
           self.offset == read.offset;
  }

  /// A float operand whose shape broadcasts to `to` (exactly `to` when
  /// `exact`) and that `self` may read; -1 if none.
  long pickOperand(const Val &self, const Shape &to, bool exactShape, bool elementwise) {
    std::vector<size_t> c;
    for (size_t i : floats(false)) {
      const Val &v = values_[i];
      if ((exactShape ? v.sizes == to : broadcastsTo(v.sizes, to)) &&
          readable(self, v, elementwise))
        c.push_back(i);
    }
    return pickFavouringStale(c, false);
  }

  /// A fresh float of `sizes` (aten::full), for when nothing fits.
  size_t full(const Shape &sizes) {
    return emit("aten::full", {},
                "fill_value = " + literal() + " : f64, size = array<i64" +
                    (sizes.empty() ? "" : ": " + commaList(sizes)) + ">",
                "", freshVal(sizes, true));
  }

  // ---- the steps -----------------------------------------------------------

  void step() {
    int r = uniform(0, 99);
    if (r < 26)
      view(size_t(pickRead()));
    else if (r < 42)
      chainWrite();
    else if (r < 74)
      inplace(pickTarget(false));
    else if (r < 92)
      functional();
    else
      demoPattern();
  }

  /// A write through a fresh chain of one to three views of a state (or any
  /// writable value), the other views of the chain kept for later reads.
  void chainWrite() {
    size_t v = pickTarget(false);
    repeat(1, 3, [&](int) {
      long next = view(v);
      if (next >= 0 && values_[next].writable && numelOf(values_[next].sizes) > 0)
        v = size_t(next);
    });
    inplace(v);
  }

  /// A view of `src`, of a random applicable kind; its index, or -1.
  long view(size_t src) {
    Val s = values_[src];
    Val v = s;
    v.reserved = false;
    int64_t rank = static_cast<int64_t>(s.sizes.size());
    std::string attrs, op;
    for (int tries = 0; tries < 6 && op.empty(); ++tries) {
      switch (uniform(0, 10)) {
      case 0: { // slice (dim, start, end, step; sometimes negative or open ends)
        if (rank == 0)
          break;
        int64_t dim = uniform(0, int(rank) - 1), n = s.sizes[dim];
        int64_t start = uniform(0, int(n) - 1), end = uniform(int(start) + 1, int(n));
        int64_t stepBy = end - start >= 2 && chance(0.3) ? 2 : 1;
        std::string startText = std::to_string(start), endText = std::to_string(end);
        if (chance(0.15))
          startText = std::to_string(start - n); // x[-k:]
        if (end == n && chance(0.4))
          endText = "9223372036854775807"; // x[a:]
        v.offset = s.offset + start * s.strides[dim];
        v.sizes[dim] = (end - start + stepBy - 1) / stepBy;
        v.strides[dim] = s.strides[dim] * stepBy;
        std::string dimText = chance(0.2) ? std::to_string(dim - rank) : std::to_string(dim);
        op = "aten::slice.Tensor";
        attrs = "dim = " + dimText + " : i64, end = " + endText + " : i64, start = " +
                startText + " : i64, step = " + std::to_string(stepBy) + " : i64";
        break;
      }
      case 1: { // select
        if (rank == 0)
          break;
        int64_t dim = uniform(0, int(rank) - 1), n = s.sizes[dim];
        int64_t index = uniform(0, int(n) - 1);
        v.offset = s.offset + index * s.strides[dim];
        v.sizes.erase(v.sizes.begin() + dim);
        v.strides.erase(v.strides.begin() + dim);
        op = "aten::select.int";
        attrs = "dim = " + std::to_string(dim) + " : i64, index = " +
                std::to_string(chance(0.2) ? index - n : index) + " : i64";
        break;
      }
      case 2: { // view: where the strides allow it (PyTorch raises elsewhere)
        if (!s.exact || rank == 0)
          break;
        std::vector<Shape> candidates;
        int64_t n = numelOf(s.sizes);
        candidates.push_back({n});
        for (int64_t a = 2; a < n; ++a)
          if (n % a == 0) {
            candidates.push_back({a, n / a});
            for (int64_t b = 2; b < n / a; ++b)
              if ((n / a) % b == 0)
                candidates.push_back({a, b, n / a / b});
          }
        Shape with1 = s.sizes;
        with1.insert(with1.begin() + uniform(0, int(rank)), 1);
        candidates.push_back(with1);
        Shape size = pick(candidates);
        std::optional<std::vector<int64_t>> st = computeStride(s.sizes, s.strides, size);
        if (!st)
          break;
        v.sizes = size;
        v.strides = *st;
        Shape attr = size;
        if (chance(0.3))
          attr[uniform(0, int(attr.size()) - 1)] = -1;
        op = "aten::view";
        attrs = "size = array<i64: " + commaList(attr) + ">";
        break;
      }
      case 3: // t (rank <= 2; the identity below 2)
        if (rank > 2)
          break;
        if (rank == 2) {
          std::swap(v.sizes[0], v.sizes[1]);
          std::swap(v.strides[0], v.strides[1]);
        }
        op = "aten::t";
        break;
      case 4: { // permute
        if (rank < 2)
          break;
        Shape dims(rank);
        std::iota(dims.begin(), dims.end(), 0);
        std::shuffle(dims.begin(), dims.end(), rng_);
        for (int64_t i = 0; i < rank; ++i) {
          v.sizes[i] = s.sizes[dims[i]];
          v.strides[i] = s.strides[dims[i]];
        }
        op = "aten::permute";
        attrs = "dims = array<i64: " + commaList(dims) + ">";
        break;
      }
      case 5: { // transpose
        if (rank < 2)
          break;
        int64_t d0 = uniform(0, int(rank) - 1), d1 = uniform(0, int(rank) - 1);
        std::swap(v.sizes[d0], v.sizes[d1]);
        std::swap(v.strides[d0], v.strides[d1]);
        op = "aten::transpose.int";
        attrs = "dim0 = " + std::to_string(d0) + " : i64, dim1 = " +
                std::to_string(chance(0.3) ? d1 - rank : d1) + " : i64";
        break;
      }
      case 6: { // unsqueeze
        if (rank >= 4)
          break;
        int64_t dim = uniform(0, int(rank));
        int64_t stride = dim >= rank ? 1 : s.sizes[dim] * s.strides[dim];
        v.sizes.insert(v.sizes.begin() + dim, 1);
        v.strides.insert(v.strides.begin() + dim, stride);
        op = "aten::unsqueeze";
        attrs = "dim = " + std::to_string(chance(0.2) ? dim - rank - 1 : dim) + " : i64";
        break;
      }
      case 7: { // squeeze a size-1 dim (or, sometimes, a no-op on another)
        if (rank == 0)
          break;
        std::vector<int64_t> ones;
        for (int64_t d = 0; d < rank; ++d)
          if (s.sizes[d] == 1)
            ones.push_back(d);
        if (ones.empty() && !chance(0.2))
          break;
        int64_t dim = ones.empty() ? uniform(0, int(rank) - 1) : pick(ones);
        if (s.sizes[dim] == 1) {
          v.sizes.erase(v.sizes.begin() + dim);
          v.strides.erase(v.strides.begin() + dim);
        }
        op = "aten::squeeze.dim";
        attrs = "dim = " + std::to_string(dim) + " : i64";
        break;
      }
      case 8: { // diagonal
        if (rank < 2)
          break;
        int64_t d1 = uniform(0, int(rank) - 1), d2;
        do
          d2 = uniform(0, int(rank) - 1);
        while (d2 == d1);
        int64_t offset = uniform(-int(s.sizes[d1]) + 1, int(s.sizes[d2]) - 1);
        if (diagonalLength(s.sizes, d1, d2, offset) <= 0)
          break;
        takeDiagonal(v, d1, d2, offset);
        op = "aten::diagonal";
        attrs = "dim1 = " + std::to_string(d1) + " : i64, dim2 = " + std::to_string(d2) +
                " : i64, offset = " + std::to_string(offset) + " : i64";
        break;
      }
      case 9: // alias
        op = "aten::alias";
        break;
      case 10: { // expand: read only
        if (rank >= 4)
          break;
        Shape size;
        if (chance(0.5) || rank == 0)
          size.push_back(uniform(2, 3)); // a new leading dim
        v.sizes.assign(size.begin(), size.end());
        v.strides.assign(size.size(), 0);
        for (int64_t d = 0; d < rank; ++d) {
          int64_t want = s.sizes[d] == 1 && chance(0.7) ? uniform(2, 3) : s.sizes[d];
          size.push_back(want != s.sizes[d] || chance(0.5) ? want : -1);
          v.sizes.push_back(want);
          v.strides.push_back(want == s.sizes[d] ? s.strides[d] : 0);
        }
        if (v.sizes == s.sizes)
          break;
        v.writable = false;
        op = "aten::expand";
        attrs = "size = array<i64: " + commaList(size) + ">";
        break;
      }
      }
    }
    if (op.empty())
      return -1;
    return long(emit(op, {src}, attrs, ": 1", v));
  }

  /// An in-place op on `target`, of a random kind that applies.
  void inplace(size_t target) {
    Val self = values_[target];
    self.reserved = false;
    Shape shape = self.sizes;
    int64_t rank = static_cast<int64_t>(shape.size());
    std::string op, attrs, segments = ": 1";
    std::vector<size_t> operands = {target};
    for (int tries = 0; tries < 6 && op.empty(); ++tries) {
      switch (uniform(0, 12)) {
      case 0:
      case 1: { // add_ / sub_ / mul_ with a tensor
        long o = pickOperand(self, shape, false, true);
        if (o < 0)
          break;
        int k = uniform(0, 2);
        op = k == 0 ? "aten::add_.Tensor" : k == 1 ? "aten::sub_.Tensor" : "aten::mul_.Tensor";
        if (k < 2 && chance(0.5))
          attrs = chance(0.6) ? "alpha = 1 : i64" : "alpha = " + literal() + " : f64";
        operands.push_back(size_t(o));
        segments = ": 1, 1";
        break;
      }
      case 2: { // add_ / sub_ / mul_ with a scalar
        int k = uniform(0, 2);
        op = k == 0 ? "aten::add_.Scalar" : k == 1 ? "aten::sub_.Scalar" : "aten::mul_.Scalar";
        attrs = "other = " + (chance(0.2) ? std::to_string(uniform(-2, 3)) + " : i64"
                                          : literal() + " : f64");
        if (k < 2 && chance(0.3))
          attrs = "alpha = " + literal() + " : f64, " + attrs;
        break;
      }
      case 3:
        op = chance(0.6) ? "aten::relu_" : "aten::neg_";
        break;
      case 4: { // clamp_ with one or both bounds
        int k = uniform(0, 2);
        std::string lo = "-" + std::string(chance(0.5) ? "2.500000e-01" : "5.000000e-01");
        std::string hi = chance(0.5) ? "5.000000e-01" : "7.500000e-01";
        op = "aten::clamp_";
        attrs = "max = " + (k == 0 ? "#exir.none" : hi + " : f64") + ", min = " +
                (k == 1 ? "#exir.none" : lo + " : f64");
        break;
      }
      case 5:
      case 6: { // copy_ (src broadcast to self)
        long o = pickOperand(self, shape, false, true);
        if (o < 0)
          break;
        op = "aten::copy_";
        if (chance(0.5))
          attrs = "non_blocking = false";
        operands.push_back(size_t(o));
        segments = ": 1, 1";
        break;
      }
      case 7:
        op = "aten::fill_.Scalar";
        attrs = "value = " + (chance(0.2) ? std::to_string(uniform(-1, 2)) + " : i64"
                                          : literal() + " : f64");
        break;
      case 8:
        op = "aten::zero_";
        break;
      case 9: { // masked_fill_ with a computed mask (gt of something that broadcasts)
        long src = pickOperand(self, shape, false, false);
        if (src < 0)
          src = long(target); // its own sign: read before the write
        size_t mask = emit("aten::gt.Scalar", {size_t(src)}, "other = 0.000000e+00 : f64",
                           ": 1", freshVal(values_[src].sizes, values_[src].exact &&
                                                                   values_[src].isContiguous(),
                                           DType::Bool));
        op = "aten::masked_fill_.Scalar";
        attrs = "value = " + literal() + " : f64";
        operands.push_back(mask);
        segments = ": 1, 1";
        break;
      }
      case 10:
      case 11: { // index_put_: self[..., idx] = values, or self[idx0, idx1] = values
        if (rank == 0)
          break;
        int64_t dim = uniform(0, int(rank) - 1);
        bool pair = rank >= 2 && dim + 1 < rank && chance(0.3);
        int64_t k = uniform(1, int(std::min<int64_t>(shape[dim], 3)));
        if (pair)
          k = std::min(k, shape[dim + 1]);
        bool accumulate = chance(0.3);
        std::vector<int64_t> idx0 = distinct(shape[dim], k, accumulate);
        std::vector<size_t> idx = {indexConstant(idx0)};
        if (pair) // distinct first indices: distinct pairs
          idx.push_back(indexConstant(distinct(shape[dim + 1], k, true)));
        Shape indexed; // dims before, k, dims after the indexed ones
        for (int64_t d = 0; d < dim; ++d)
          indexed.push_back(shape[d]);
        indexed.push_back(k);
        for (int64_t d = dim + (pair ? 2 : 1); d < rank; ++d)
          indexed.push_back(shape[d]);
        long vals = pickOperand(self, indexed, false, false);
        if (vals < 0 || chance(0.15))
          vals = long(full(chance(0.5) || indexed.empty()
                               ? indexed
                               : Shape(indexed.begin() + 1, indexed.end())));
        std::string mask;
        for (int64_t d = 0; d <= dim + (pair ? 1 : 0); ++d)
          mask += std::string(d ? ", " : "") + (d < dim ? "false" : "true");
        op = "aten::index_put_";
        attrs = std::string("accumulate = ") + (accumulate ? "true" : "false") +
                ", indices = array<i1: " + mask + ">";
        operands.insert(operands.end(), idx.begin(), idx.end());
        operands.push_back(size_t(vals));
        segments = ": 1, " + std::to_string(idx.size()) + ", 1";
        break;
      }
      case 12: { // index_copy_ along a dim
        if (rank == 0)
          break;
        int64_t dim = uniform(0, int(rank) - 1);
        int64_t k = uniform(1, int(std::min<int64_t>(shape[dim], 3)));
        size_t idx = indexConstant(distinct(shape[dim], k, false));
        Shape src = shape;
        src[dim] = k;
        long source = pickOperand(self, src, true, false);
        if (source < 0)
          source = long(full(src));
        op = "aten::index_copy_";
        attrs = "dim = " + std::to_string(dim) + " : i64";
        operands.push_back(idx);
        operands.push_back(size_t(source));
        segments = ": 1, 1, 1";
        break;
      }
      }
    }
    if (op.empty())
      return;
    ++storages_[self.storage].writes;
    ++inplaceOps_;
    emit(op, operands, attrs, segments, self); // the result aliases self
  }

  /// `k` values in [0, n), distinct unless `repeats` allows a repeat.
  std::vector<int64_t> distinct(int64_t n, int64_t k, bool repeats) {
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng_);
    all.resize(k);
    if (repeats && k > 1 && chance(0.3))
      all[1] = all[0];
    return all;
  }

  /// A functional op: a fresh value.
  void functional() {
    long a = pickRead();
    if (a < 0)
      return;
    const Val &va = values_[a];
    bool exact = va.exact && va.isContiguous(); // PyTorch keeps the operand's layout
    switch (uniform(0, 5)) {
    case 0:
      emit("aten::clone", {size_t(a)}, chance(0.5) ? "memory_format = #exir.none" : "", ": 1",
           freshVal(va.sizes, exact));
      return;
    case 1:
    case 2: { // add / mul of two tensors
      Shape to = va.sizes;
      long b = -1;
      std::vector<size_t> c;
      for (size_t i : floats(false))
        if (broadcastsTo(values_[i].sizes, to))
          c.push_back(i);
      if (!c.empty())
        b = long(pick(c));
      if (b < 0)
        return;
      bool add = chance(0.5);
      emit(add ? "aten::add.Tensor" : "aten::mul.Tensor", {size_t(a), size_t(b)},
           add ? "alpha = 1 : i64" : "", ": 1, 1",
           freshVal(to, exact && values_[b].exact && values_[b].isContiguous()));
      return;
    }
    case 3:
      emit(chance(0.5) ? "aten::add.Scalar" : "aten::mul.Scalar", {size_t(a)},
           "other = " + literal() + " : f64", ": 1", freshVal(va.sizes, exact));
      return;
    case 4:
      emit(chance(0.5) ? "aten::neg" : "aten::relu", {size_t(a)}, "", ": 1",
           freshVal(va.sizes, exact));
      return;
    case 5: { // mm of two matrices
      std::vector<std::pair<size_t, size_t>> pairs;
      std::vector<size_t> all = floats(false);
      for (size_t i : all)
        for (size_t j : all)
          if (values_[i].sizes.size() == 2 && values_[j].sizes.size() == 2 &&
              values_[i].sizes[1] == values_[j].sizes[0])
            pairs.push_back({i, j});
      if (pairs.empty())
        return;
      auto [x, y] = pick(pairs);
      emit("aten::mm", {x, y}, "", ": 1, 1",
           freshVal({values_[x].sizes[0], values_[y].sizes[1]}, true));
      return;
    }
    }
  }

  /// The demo backend's a @ x + b on 2x2 values, three distinct ones: the
  /// add comes now or after later steps (perhaps writes of what mm read).
  void demoPattern() {
    if (!pendingMm_.empty() && chance(0.6)) {
      auto [m, b] = pendingMm_.back();
      pendingMm_.pop_back();
      values_[m].reserved = false;
      emit("aten::add.Tensor", {m, b}, "alpha = 1 : i64", ": 1, 1", freshVal({2, 2}, true));
      return;
    }
    std::vector<size_t> s;
    for (size_t i : floats(false))
      if (values_[i].sizes == Shape{2, 2})
        s.push_back(i);
    if (s.size() < 3)
      return;
    std::shuffle(s.begin(), s.end(), rng_);
    size_t m = emit("aten::mm", {s[0], s[1]}, "", ": 1, 1", freshVal({2, 2}, true));
    values_[m].reserved = true;
    pendingMm_.push_back({m, s[2]});
  }

  std::string finish() {
    for (auto [m, b] : pendingMm_) {
      values_[m].reserved = false;
      emit("aten::add.Tensor", {m, b}, "alpha = 1 : i64", ": 1, 1", freshVal({2, 2}, true));
    }
    // User outputs: reads when the method returns; stale views, in-place
    // results and intermediates alike (a state itself now and then).
    std::vector<size_t> results;
    int numOutputs = uniform(1, 3);
    std::vector<size_t> all = floats(false);
    for (int i = 0; i < numOutputs; ++i) {
      long v = pickRead();
      if (v >= 0 && (values_[v].name[0] == 'v' || chance(0.3)))
        results.push_back(size_t(v));
    }
    if (results.empty())
      results.push_back(all.back());

    std::vector<GenOutput> outputs;
    for (size_t v : results)
      outputs.push_back({values_[v].name, values_[v].type(), "#exir.output<user_output>"});
    return forwardModule("1.1", weights_, args_, body_, outputs);
  }

  std::vector<Val> values_;
  std::vector<Storage> storages_;
  std::vector<std::string> args_, weights_, body_;
  std::vector<std::pair<size_t, size_t>> pendingMm_;
  int next_ = 0, constants_ = 0, inplaceOps_ = 0;
};

} // namespace

std::string generateInplaceProgram(uint64_t seed) { return InplaceGenerator(seed).run(); }

} // namespace ptec::difftest
