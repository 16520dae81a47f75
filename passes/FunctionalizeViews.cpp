//===- FunctionalizeViews.cpp - views for functionalize -------------------===//
//
// The view half of functionalize: which ops are views and of what kind,
// re-deriving a view from its root's current value (replaying its chain of
// view ops), and writing a new value back through a view with the inverse of
// each view op (slice -> slice_scatter, ...), innermost first. Each result of
// a list view (split, chunk, tensor_split, unbind) is tracked as the slice or
// select of its base that it shows (listViewPieces). The pass's
// walk and the rewrite of each write are in Functionalize.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/Functionalizer.h"

#include "dialects/exir/IR/Dynamism.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <numeric>

namespace ptec::functionalize {
namespace {

RankedTensorType rankedType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

} // namespace

ViewKind viewKind(StringRef name) {
  return llvm::StringSwitch<ViewKind>(name)
      .Case("aten::slice.Tensor", ViewKind::Slice)
      .Case("aten::select.int", ViewKind::Select)
      .Case("aten::narrow", ViewKind::Narrow)
      .Case("aten::diagonal", ViewKind::Diagonal)
      .Case("aten::as_strided", ViewKind::AsStrided)
      .Cases("aten::view", "aten::_unsafe_view", "aten::reshape", "aten::view_as",
             "aten::reshape_as", ViewKind::Reshape)
      .Cases("aten::squeeze", "aten::squeeze.dim", "aten::squeeze.dims",
             "aten::unsqueeze", "aten::flatten.using_ints", "aten::unflatten.int",
             ViewKind::Reshape)
      .Case("aten::permute", ViewKind::Permute)
      .Case("aten::transpose.int", ViewKind::Transpose)
      .Case("aten::t", ViewKind::T)
      .Cases("aten::alias", "aten::detach", "aten::contiguous", "aten::lift_fresh",
             ViewKind::Identity)
      // Conversions that convert nothing (viewSource decides which do).
      .Cases("aten::to.dtype", "aten::to.dtype_layout", "aten::to.device", "aten::to.other",
             "aten::positive", ViewKind::Identity)
      .Cases("aten::expand", "aten::expand_as", "aten::unfold", ViewKind::Overlapping)
      .Default(ViewKind::Other);
}

namespace {

bool isConversion(StringRef name) { return name.starts_with("aten::to."); }

/// The kind of `op` as a view. A conversion asked for a memory format may
/// alias or copy depending on its input's strides: writes through it are
/// refused (ViewKind::Other) rather than guessed.
ViewKind viewKindOf(exir::AtenOp op) {
  if (isConversion(op.getOpName())) {
    auto mf = op->getAttrOfType<StringAttr>("memory_format");
    if (mf && mf.getValue() != "preserve_format")
      return ViewKind::Other;
  }
  return viewKind(op.getOpName());
}

/// Reshape-like ops whose result is a view only when their source is
/// contiguous (PyTorch copies otherwise).
bool viewOnlyIfContiguous(StringRef name) {
  return llvm::is_contained({"aten::reshape", "aten::reshape_as", "aten::contiguous",
                             "aten::flatten.using_ints"},
                            name);
}

} // namespace

/// The tensor operand a result aliases per the schema (`-> Tensor(a)` for an
/// argument `Tensor(a)` that is not written), or null. `wildcard` is set when
/// the op's aliasing is untracked (`(a -> *)` or a list of views).
Value viewSource(exir::AtenOp op, bool &wildcard) {
  wildcard = false;
  const schema::FunctionSchema *s = op.getSchema();
  if (!s || s->isMutable() || op->getNumResults() == 0)
    return {};
  for (const schema::Argument &a : s->arguments)
    if (const schema::AliasInfo *ai = a.alias(); ai && a.type.isTensorLike() &&
                                                 ai->isWildcardAfter())
      wildcard = true;
  if (wildcard)
    return {};
  if (s->returns.size() != 1 || op->getNumResults() != 1)
    return {};
  const schema::Argument &ret = s->returns.front();
  if (ret.type.kind != schema::TypeKind::Tensor || !ret.alias())
    return {};
  Value src = op.getAliasedOperand(0);
  // `to` and friends alias only when they convert nothing and are not asked
  // for a copy (`copy=True`).
  if (src && isConversion(op.getOpName())) {
    auto copy = op->getAttrOfType<BoolAttr>("copy");
    if (src.getType() != op->getResult(0).getType() || (copy && copy.getValue()))
      return {};
  }
  if (src && src.getType() != op->getResult(0).getType() &&
      viewKind(op.getOpName()) == ViewKind::Other)
    return {};
  return src;
}

bool isListView(StringRef name) {
  return llvm::is_contained({"aten::unbind.int", "aten::split.Tensor", "aten::split.sizes",
                             "aten::split_with_sizes", "aten::chunk",
                             "aten::tensor_split.sections", "aten::tensor_split.indices"},
                            name) ||
         name.starts_with("aten::hsplit.") || name.starts_with("aten::vsplit.") ||
         name.starts_with("aten::dsplit.");
}

SmallVector<Piece> listViewPieces(exir::AtenOp op, Value src, const DenseSet<Value> &dynamic) {
  StringRef name = op.getOpName();
  bool select = name == "aten::unbind.int";
  auto t = llvm::dyn_cast<RankedTensorType>(src.getType());
  if (!isListView(name) || !t || !t.hasStaticShape() || t.getRank() == 0 || dynamic.contains(src) ||
      !op.getSymOperands().empty())
    return {};
  int64_t rank = t.getRank(), dim;
  if (name.starts_with("aten::hsplit."))
    dim = rank == 1 ? 0 : 1;
  else if (name.starts_with("aten::vsplit."))
    dim = 0;
  else if (name.starts_with("aten::dsplit."))
    dim = 2;
  else if (auto d = op->getAttrOfType<IntegerAttr>("dim"))
    dim = d.getInt() < 0 ? d.getInt() + rank : d.getInt();
  else
    dim = 0;
  if (dim < 0 || dim >= rank)
    return {};
  int64_t size = t.getDimSize(dim);
  SmallVector<Piece> pieces;
  if (select) {
    for (int64_t i = 0; i < size; ++i)
      pieces.push_back({dim, i, i + 1, true});
  } else if (auto indices = op->getAttrOfType<DenseI64ArrayAttr>("indices")) {
    // tensor_split / h-v-dsplit by indices: Python slice bounds, in order given.
    auto clampBound = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + size : i, 0, size); };
    int64_t start = 0;
    for (int64_t e : indices.asArrayRef()) {
      int64_t s = clampBound(start);
      pieces.push_back({dim, s, std::max(s, clampBound(e)), false});
      start = e;
    }
    pieces.push_back({dim, clampBound(start), size, false});
  } else {
    // Consecutive pieces: each starts where the one before ends.
    int64_t start = 0;
    for (Value r : op->getResults()) {
      auto rt = llvm::dyn_cast<RankedTensorType>(r.getType());
      if (!rt || rt.getRank() != rank)
        return {};
      pieces.push_back({dim, start, start + rt.getDimSize(dim), false});
      start += rt.getDimSize(dim);
    }
    if (start != size)
      return {};
  }
  if (pieces.size() != op->getNumResults())
    return {};
  return pieces;
}

namespace {

/// The view op that shows `piece` of `parent` (its replay), typed `type`.
FailureOr<Value> buildPieceView(OpBuilder &b, Location loc, const Piece &piece, Value parent,
                                Type type) {
  if (piece.select)
    return buildAtenValue(b, loc, "aten::select.int", type, {{parent}},
                          {b.getNamedAttr("dim", b.getI64IntegerAttr(piece.dim)),
                           b.getNamedAttr("index", b.getI64IntegerAttr(piece.start))});
  return buildAtenValue(b, loc, "aten::slice.Tensor", type, {{parent}},
                        {b.getNamedAttr("dim", b.getI64IntegerAttr(piece.dim)),
                         b.getNamedAttr("start", b.getI64IntegerAttr(piece.start)),
                         b.getNamedAttr("end", b.getI64IntegerAttr(piece.end)),
                         b.getNamedAttr("step", b.getI64IntegerAttr(1))});
}

/// Writes `newValue` (the piece's new contents) into `parentNow`.
FailureOr<Value> buildPieceScatter(OpBuilder &b, Location loc, const Piece &piece,
                                   Value parentNow, Value newValue) {
  if (piece.select)
    return buildAtenValue(b, loc, "aten::select_scatter", parentNow.getType(),
                          {{parentNow}, {newValue}},
                          {b.getNamedAttr("dim", b.getI64IntegerAttr(piece.dim)),
                           b.getNamedAttr("index", b.getI64IntegerAttr(piece.start))});
  return buildAtenValue(b, loc, "aten::slice_scatter", parentNow.getType(),
                        {{parentNow}, {newValue}},
                        {b.getNamedAttr("dim", b.getI64IntegerAttr(piece.dim)),
                         b.getNamedAttr("start", b.getI64IntegerAttr(piece.start)),
                         b.getNamedAttr("end", b.getI64IntegerAttr(piece.end)),
                         b.getNamedAttr("step", b.getI64IntegerAttr(1))});
}

} // namespace

FailureOr<Value> BlockFunctionalizer::resolve(Value v, Operation *user) {
  auto it = views.find(v);
  if (it == views.end())
    return current.lookup(v) ? current.lookup(v) : v;
  ViewInfo info = it->second;
  unsigned ver = versionOf(info.root);
  auto m = materialized.find(v);
  if (m != materialized.end() && m->second.first == ver)
    return m->second.second;
  if (info.untracked)
    return user->emitError("cannot functionalize: this reads a value made by '")
           << info.op.getOpName()
           << "' after its base was written in place; the schema marks that alias as "
              "untracked ((a -> *)), so its new contents cannot be derived";
  if (!info.contiguous && viewOnlyIfContiguous(info.op.getOpName()))
    return user->emitError("cannot functionalize: this reads the result of '")
           << info.op.getOpName()
           << "' of a non-contiguous view after its base was written; PyTorch "
              "aliases or copies there depending on strides";
  FailureOr<Value> parent = resolve(info.parent, user);
  if (failed(parent))
    return failure();
  OpBuilder b(user);
  Value replayed;
  if (info.piece.dim >= 0) {
    // One result of a list view: the slice or select that shows it.
    FailureOr<Value> r = buildPieceView(b, info.op.getLoc(), info.piece, *parent, v.getType());
    if (failed(r))
      return failure();
    copyAnnotations(info.op, r->getDefiningOp());
    replayed = *r;
  } else {
    IRMapping map;
    map.map(info.op.getOperand(0), *parent);
    replayed = b.clone(*info.op, map)->getResult(0);
  }
  ++n.replays;
  materialized[v] = {ver, replayed};
  return replayed;
}

LogicalResult BlockFunctionalizer::resolveOperands(Operation *op) {
  for (OpOperand &o : op->getOpOperands()) {
    FailureOr<Value> now = resolve(o.get(), op);
    if (failed(now))
      return failure();
    if (*now != o.get())
      o.set(*now);
  }
  return success();
}

namespace {

/// Does this view keep a contiguous parent contiguous? Conservative: only
/// reshapes, identities and leading-dimension slices / selects do.
bool keepsContiguity(exir::AtenOp op) {
  switch (viewKindOf(op)) {
  case ViewKind::Reshape:
  case ViewKind::Identity:
    return true;
  case ViewKind::Slice: {
    auto dim = op->getAttrOfType<IntegerAttr>("dim");
    auto step = op->getAttrOfType<IntegerAttr>("step");
    return (!dim || dim.getInt() == 0) && (!step || step.getInt() == 1);
  }
  case ViewKind::Select: {
    auto dim = op->getAttrOfType<IntegerAttr>("dim");
    return dim && dim.getInt() == 0;
  }
  default:
    return false;
  }
}

} // namespace

void BlockFunctionalizer::recordView(exir::AtenOp op, Value src, bool untracked) {
  Value root = rootOf(src);
  bool parentContiguous = true;
  if (auto it = views.find(src); it != views.end())
    parentContiguous = it->second.contiguous;
  // The results of a list view are tracked when their pieces are known.
  SmallVector<Piece> pieces = untracked ? listViewPieces(op, src, dynamic) : SmallVector<Piece>();
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    if (!llvm::isa<TensorType>(r.getType()))
      continue;
    ViewInfo info{root, src, op, parentContiguous && keepsContiguity(op), untracked};
    if (!pieces.empty()) {
      info.piece = pieces[i];
      info.untracked = false;
      // Pieces of the leading dim are contiguous runs of a contiguous parent.
      info.contiguous = parentContiguous && pieces[i].dim == 0;
    }
    views[r] = info;
    materialized[r] = {versionOf(root), r};
  }
}

/// Copies `from`'s annotations (discardable attributes that are not schema
/// arguments, e.g. `exir.scope`) onto `to`.
void copyAnnotations(exir::AtenOp from, Operation *to) {
  const schema::FunctionSchema *s = from.getSchema();
  for (NamedAttribute a : from->getDiscardableAttrs()) {
    if (a.getName() == exir::kSymArgsAttrName || (s && s->findArgument(a.getName().getValue()) >= 0))
      continue;
    to->setAttr(a.getName(), a.getValue());
  }
}

namespace {

/// Builds `name` from `like`'s non-tensor arguments (by schema name, symbolic
/// operands included) with `tensors` as the tensor operands.
FailureOr<Value> buildFrom(OpBuilder &b, exir::AtenOp like, StringRef name, Type type,
                           ArrayRef<SmallVector<Value, 1>> tensors,
                           ArrayRef<NamedAttribute> overrides = {}) {
  const schema::FunctionSchema *s = registry().lookup(name.str());
  if (!s)
    return like.emitError("internal: no schema for '") << name << "'";
  SmallVector<NamedAttribute> attrs(overrides.begin(), overrides.end());
  // Only the overrides replace `like`'s arguments (and their symbolic
  // operands); the copied ones keep their run-time values below.
  auto given = [&](StringRef n) {
    return llvm::any_of(overrides, [&](NamedAttribute a) { return a.getName() == n; });
  };
  for (const schema::Argument &a : s->arguments)
    if (!a.type.isTensorLike() && !given(a.name))
      if (Attribute v = like->getAttr(a.name))
        attrs.push_back(b.getNamedAttr(a.name, v));
  FailureOr<exir::AtenOp> op = buildAten(b, like.getLoc(), name, TypeRange(type), tensors, attrs);
  if (failed(op))
    return failure();
  // Symbolic operands bound to arguments the new op has.
  if (ArrayAttr syms = like.getSymArgs()) {
    SmallVector<Attribute> keep;
    SmallVector<Value> operands((*op)->getOperands());
    for (auto [attr, v] : llvm::zip(syms, like.getSymOperands())) {
      StringRef bound = llvm::cast<StringAttr>(attr).getValue();
      if (s->findArgument(bound.split('[').first) < 0 || given(bound.split('[').first))
        continue;
      keep.push_back(attr);
      operands.push_back(v);
    }
    if (!keep.empty()) {
      (*op)->setOperands(operands);
      (*op)->setAttr(exir::kSymArgsAttrName, b.getArrayAttr(keep));
    }
  }
  copyAnnotations(like, *op);
  return (*op)->getResult(0);
}

} // namespace

/// The inverse of narrow(self, dim, start, length): slice_scatter over
/// [start', start' + length) with start' the start wrapped into the dim (a
/// negative start counts from the end). A start or length known only at run
/// time gives symbolic bounds: start' = (start + n) mod max(n, 1) with n the
/// run-time size (a non-negative operand: C's mod and Python's agree).
static FailureOr<Value> narrowScatter(OpBuilder &b, exir::AtenOp view, Value parentNow,
                                      Value newValue) {
  auto pt = llvm::dyn_cast<RankedTensorType>(parentNow.getType());
  auto dimAttr = view->getAttrOfType<IntegerAttr>("dim");
  auto start = view->getAttrOfType<IntegerAttr>("start");
  auto length = view->getAttrOfType<IntegerAttr>("length");
  if (!pt || pt.getRank() == 0 || !dimAttr || !start || !length)
    return view.emitError("internal: narrow without a ranked input, dim, start or length");
  int64_t dim = dimAttr.getInt() < 0 ? dimAttr.getInt() + pt.getRank() : dimAttr.getInt();
  int64_t s = start.getInt() < 0 ? start.getInt() + pt.getDimSize(dim) : start.getInt();
  Location loc = view.getLoc();
  // Run-time bounds first: the scatter reads them.
  SmallVector<Value> syms;
  if (ArrayAttr binds = view.getSymArgs()) {
    Value symStart, symLength;
    for (auto [a, v] : llvm::zip(binds, view.getSymOperands()))
      (llvm::cast<StringAttr>(a).getValue() == "start" ? symStart : symLength) = v;
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) -> Value {
      return b.create<exir::SymConstOp>(loc, i64, b.getI64IntegerAttr(v));
    };
    auto sym = [&](StringRef fn, Value x, Value y) -> Value {
      return b.create<exir::SymOp>(loc, i64, b.getStringAttr(fn), ValueRange{x, y});
    };
    Value n = b.create<exir::SymSizeOp>(loc, i64, parentNow, b.getI64IntegerAttr(dim));
    Value atLeast1 = sym("max", n, constant(1));
    Value first = symStart ? symStart : constant(start.getInt());
    Value wrapped = sym("mod", sym("add", first, n), atLeast1);
    syms = {wrapped, sym("add", wrapped, symLength ? symLength : constant(length.getInt()))};
  }
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("dim", b.getI64IntegerAttr(dim)),
      b.getNamedAttr("start", b.getI64IntegerAttr(s)),
      b.getNamedAttr("end", b.getI64IntegerAttr(s + length.getInt())),
      b.getNamedAttr("step", b.getI64IntegerAttr(1))};
  FailureOr<Value> r = buildAtenValue(b, loc, "aten::slice_scatter", pt, {{parentNow}, {newValue}},
                                      attrs);
  if (failed(r))
    return failure();
  Operation *op = r->getDefiningOp();
  copyAnnotations(view, op);
  if (!syms.empty()) {
    SmallVector<Value> operands(op->getOperands());
    operands.append(syms.begin(), syms.end());
    op->setOperands(operands);
    op->setAttr(exir::kSymArgsAttrName,
                b.getArrayAttr({b.getStringAttr("start"), b.getStringAttr("end")}));
  }
  return r;
}

FailureOr<Value> BlockFunctionalizer::invertView(ViewInfo info, Value parentNow,
                                                 Value newValue, Operation *at) {
  exir::AtenOp view = info.op;
  StringRef name = view.getOpName();
  OpBuilder b(at);
  Type parentType = parentNow.getType();
  auto refuse = [&](StringRef why) -> LogicalResult {
    InFlightDiagnostic d = at->emitError("cannot functionalize a write through '")
                           << name << "': " << why;
    d.attachNote(view.getLoc()) << "the view written through is made here";
    return d;
  };
  if (info.untracked && isListView(name))
    return refuse("the base's shape is only known at run time, so where its pieces lie "
                  "in it is not known when the program is compiled");
  if (info.untracked)
    return refuse("the schema marks that alias as untracked ((a -> *)), so which "
                  "elements of the base it writes is unknown");
  if (info.piece.dim >= 0) {
    FailureOr<Value> r = buildPieceScatter(b, view.getLoc(), info.piece, parentNow, newValue);
    if (succeeded(r))
      copyAnnotations(view, r->getDefiningOp());
    return r;
  }
  switch (viewKindOf(view)) {
  case ViewKind::Slice:
    return buildFrom(b, view, "aten::slice_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Select:
    return buildFrom(b, view, "aten::select_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Diagonal:
    return buildFrom(b, view, "aten::diagonal_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Narrow:
    return narrowScatter(b, view, parentNow, newValue);
  case ViewKind::AsStrided: {
    auto size = view->getAttrOfType<DenseI64ArrayAttr>("size");
    auto stride = view->getAttrOfType<DenseI64ArrayAttr>("stride");
    if (!size || !stride || view.getSymArgs())
      return refuse("an as_strided with run-time sizes");
    // Non-overlapping iff, sorted by stride, each stride is at least the
    // extent of the dimensions below it.
    SmallVector<std::pair<int64_t, int64_t>> dims;
    for (auto [sz, st] : llvm::zip(size.asArrayRef(), stride.asArrayRef()))
      if (sz > 1)
        dims.push_back({st, sz});
    llvm::sort(dims);
    int64_t extent = 1;
    for (auto [st, sz] : dims) {
      if (st < extent)
        return refuse("the as_strided view has overlapping elements, so one element "
                      "would be written several times");
      extent = st * sz;
    }
    return buildFrom(b, view, "aten::as_strided_scatter", parentType,
                     {{parentNow}, {newValue}});
  }
  case ViewKind::Reshape: {
    if (viewOnlyIfContiguous(name) && !info.contiguous)
      return refuse("its source is not contiguous, where PyTorch may copy instead "
                    "of aliasing");
    auto pt = llvm::dyn_cast<RankedTensorType>(parentType);
    if (!pt || !pt.hasStaticShape() || exir::usesDynamicValue(view, dynamic) ||
        dynamic.contains(info.parent))
      return refuse("the shape is only known at run time");
    if (newValue.getType() == parentType)
      return newValue;
    return buildAtenValue(b, view.getLoc(), "aten::view", parentType, {{newValue}},
                          {b.getNamedAttr("size", b.getDenseI64ArrayAttr(pt.getShape()))});
  }
  case ViewKind::Permute: {
    auto dims = view->getAttrOfType<DenseI64ArrayAttr>("dims");
    auto pt = llvm::dyn_cast<RankedTensorType>(parentType);
    if (!dims || !pt)
      return refuse("the permutation is not known");
    int64_t rank = pt.getRank();
    SmallVector<int64_t> inverse(rank, 0);
    for (auto [i, d] : llvm::enumerate(dims.asArrayRef()))
      inverse[((d % rank) + rank) % rank] = static_cast<int64_t>(i);
    return buildAtenValue(b, view.getLoc(), "aten::permute", parentType, {{newValue}},
                          {b.getNamedAttr("dims", b.getDenseI64ArrayAttr(inverse))});
  }
  case ViewKind::Transpose:
  case ViewKind::T:
    return buildFrom(b, view, name, parentType, {{newValue}});
  case ViewKind::Identity:
    return newValue;
  case ViewKind::Overlapping:
    return refuse("that view repeats elements of its base, so one element would be "
                  "written several times");
  case ViewKind::Other:
    break;
  }
  return refuse("no inverse (scatter) is known for this view kind");
}

LogicalResult BlockFunctionalizer::writeBack(Value target, Value newValue, Operation *at) {
  ++n.writes;
  auto it = views.find(target);
  if (it == views.end()) {
    if (target.getParentBlock() != &block)
      return at->emitError("cannot functionalize: this writes in place a value defined "
                           "outside its cond/while body; write the state outside the "
                           "control flow or return the new value");
    current[target] = newValue;
    ++version[target];
    if (llvm::isa<BlockArgument>(target))
      writtenRoots[target] = newValue;
    return success();
  }
  ++n.viewWrites;
  ViewInfo info = it->second;
  FailureOr<Value> parentNow = resolve(info.parent, at);
  if (failed(parentNow))
    return failure();
  FailureOr<Value> parentNew = invertView(info, *parentNow, newValue, at);
  if (failed(parentNew) || failed(writeBack(info.parent, *parentNew, at)))
    return failure();
  materialized[target] = {versionOf(info.root), newValue};
  return success();
}

} // namespace ptec::functionalize
