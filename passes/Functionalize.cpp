//===- Functionalize.cpp - in-place ops and writes through views -> values -===//
//
// torch.export writes non-functional graphs: in-place ops (`relu_`, `add_`,
// `copy_`, `index_put_`, ...) that write their `self`, often through a view
// (`b[1:3] = v` is `slice` + `copy_`), and buffers or user inputs written that
// way have no mutation output. Every later pass assumes value semantics, so
// this pass runs first and rewrites a method into its functional form.
//
// What is a write, a view or neither comes from the schema's alias
// annotations only (`Tensor(a!)` is written; a return in an argument's set
// `(a)` is a view of it; `(a -> *)` is an untracked alias), never from op
// names. The algorithm is one forward walk over each block:
//
//  - A root is a value that is not a view: a function argument or a fresh op
//    result. `current[root]` is the SSA value holding its contents now, and
//    `version[root]` counts the writes to it so far.
//  - A view remembers its parent (root or view) and the op that made it.
//    Reading a view whose root was written after the view was made re-derives
//    it from the root's current value by replaying its chain of view ops
//    (cached per version).
//  - A write `op_(w, ...)` becomes the functional op (the registry's
//    functional form: `add_.Tensor` -> `add.Tensor`, `add.out` -> `add.Tensor`,
//    `_native_batch_norm_legit` -> `..._functional`), whose result is the new
//    contents of `w`. When `w` is a view, the new contents are written back
//    into each parent with the inverse of each view op, innermost first
//    (`slice` -> `slice_scatter`, `select` -> `select_scatter`, `diagonal` ->
//    `diagonal_scatter`, `as_strided` -> `as_strided_scatter`, a reshape back
//    to the parent's shape, `permute` -> the inverse permutation,
//    `transpose`/`t` -> themselves, `alias`/`detach` -> nothing), up to the
//    root, which gets a new current value.
//  - Uses of the in-place op's result (it IS its `self`) read `self` instead.
//  - At the return, each written function argument gets its mutation output
//    (`buffer_mutation` / `user_input_mutation`, in argument order, before the
//    other outputs, as torch's own functionalization orders them); a written
//    parameter becomes a mutable buffer; written buffers are marked mutable.
//    Re-inplacing and write-back placement then handle them as any other.
//
// What it cannot do is refused with the node and the rule: writes through a
// view whose inverse would write an element twice (expand, unfold, an
// overlapping as_strided) or through an untracked alias (`split`, `unbind`),
// reads of such an alias after its base was written, writes through a
// `reshape`/`contiguous` of a non-contiguous view (PyTorch copies there or
// not depending on strides), writes to a lifted constant, writes inside a
// cond/while body to a value from outside it, mixing an explicit mutation
// output with in-place writes of the same state, and mutating ops without a
// functional form. `batch_norm` / `native_batch_norm` in training mode
// update their running statistics although their schemas carry no `!`
// (a documented exception of ATen's annotations): they are treated as
// writing them.
//
//===----------------------------------------------------------------------===//

#include "passes/AtenBuilder.h"
#include "passes/Passes.h"

#include "dialects/exir/IR/Dynamism.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <numeric>

namespace ptec {
#define GEN_PASS_DEF_FUNCTIONALIZE
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

const schema::OperatorRegistry &registry() {
  return schema::OperatorRegistry::builtin();
}

RankedTensorType rankedType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

/// How a view's result relates to its source, for replay and write-back.
enum class ViewKind {
  Slice, Select, Narrow, Diagonal, AsStrided, Reshape, Permute, Transpose, T,
  Identity, Overlapping, Other
};

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
      .Cases("aten::expand", "aten::expand_as", "aten::unfold", ViewKind::Overlapping)
      .Default(ViewKind::Other);
}

/// Reshape-like ops whose result is a view only when their source is
/// contiguous (PyTorch copies otherwise).
bool viewOnlyIfContiguous(StringRef name) {
  return llvm::is_contained({"aten::reshape", "aten::reshape_as", "aten::contiguous",
                             "aten::flatten.using_ints"},
                            name);
}

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
  // `to`, `type_as` and friends alias only when they convert nothing.
  if (src && src.getType() != op->getResult(0).getType() &&
      viewKind(op.getOpName()) == ViewKind::Other)
    return {};
  return src;
}

struct ViewInfo {
  Value root;          // the storage this view shows part of
  Value parent;        // the value it was made from (root or view)
  exir::AtenOp op;     // the view op (template for replays)
  bool contiguous;     // the view covers a contiguous run of root elements
  bool untracked;      // an alias the schema does not say how to invert
};

struct Counters {
  int64_t writes = 0, viewWrites = 0, replays = 0, state = 0;
};

class BlockFunctionalizer {
public:
  BlockFunctionalizer(Block &block, const DenseSet<Value> &dynamic, Counters &n)
      : block(block), dynamic(dynamic), n(n) {}

  LogicalResult run();
  /// Roots written in this block that were defined before the walk started
  /// (function arguments), with their final values.
  llvm::MapVector<Value, Value> writtenRoots;

private:
  Value rootOf(Value v) const {
    auto it = views.find(v);
    return it == views.end() ? v : it->second.root;
  }
  unsigned versionOf(Value root) const { return version.lookup(root); }

  FailureOr<Value> resolve(Value v, Operation *user);
  LogicalResult resolveOperands(Operation *op);
  void recordView(exir::AtenOp op, Value src, bool untracked);
  LogicalResult writeBack(Value target, Value newValue, Operation *at);
  FailureOr<Value> invertView(ViewInfo info, Value parentNow, Value newValue,
                              Operation *at);
  LogicalResult functionalize(exir::AtenOp op);
  LogicalResult nested(Operation *op);

  Block &block;
  const DenseSet<Value> &dynamic;
  Counters &n;
  DenseMap<Value, ViewInfo> views;
  DenseMap<Value, Value> current;  // root -> its contents now
  DenseMap<Value, unsigned> version; // root -> writes so far
  DenseMap<Value, std::pair<unsigned, Value>> materialized; // view -> (version, value)
};

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
  IRMapping map;
  map.map(info.op.getOperand(0), *parent);
  Operation *replay = b.clone(*info.op, map);
  ++n.replays;
  materialized[v] = {ver, replay->getResult(0)};
  return replay->getResult(0);
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

/// Does this view keep a contiguous parent contiguous? Conservative: only
/// reshapes, identities and leading-dimension slices / selects do.
bool keepsContiguity(exir::AtenOp op) {
  switch (viewKind(op.getOpName())) {
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

void BlockFunctionalizer::recordView(exir::AtenOp op, Value src, bool untracked) {
  Value root = rootOf(src);
  bool parentContiguous = true;
  if (auto it = views.find(src); it != views.end())
    parentContiguous = it->second.contiguous;
  for (Value r : op->getResults()) {
    if (!llvm::isa<TensorType>(r.getType()))
      continue;
    views[r] = ViewInfo{root, src, op, parentContiguous && keepsContiguity(op), untracked};
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
  if (info.untracked)
    return refuse("the schema marks that alias as untracked ((a -> *)), so which "
                  "elements of the base it writes is unknown");
  switch (viewKind(name)) {
  case ViewKind::Slice:
    return buildFrom(b, view, "aten::slice_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Select:
    return buildFrom(b, view, "aten::select_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Diagonal:
    return buildFrom(b, view, "aten::diagonal_scatter", parentType, {{parentNow}, {newValue}});
  case ViewKind::Narrow: {
    auto start = view->getAttrOfType<IntegerAttr>("start");
    auto length = view->getAttrOfType<IntegerAttr>("length");
    if (!start || !length || view.getSymArgs())
      return refuse("a narrow with a run-time start or length");
    return buildFrom(b, view, "aten::slice_scatter", parentType, {{parentNow}, {newValue}},
                     {b.getNamedAttr("start", start),
                      b.getNamedAttr("end", b.getI64IntegerAttr(start.getInt() +
                                                                length.getInt()))});
  }
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

/// Written schema arguments of `op` (single tensors), with `training`-mode
/// batch norm's running statistics added (ATen's schemas omit their `!`).
SmallVector<unsigned> writtenArgs(exir::AtenOp op, const schema::FunctionSchema &s) {
  SmallVector<unsigned> out;
  for (auto [i, a] : llvm::enumerate(s.arguments))
    if (a.isWrite())
      out.push_back(i);
  if (out.empty() && (op.getOpName() == "aten::batch_norm" ||
                      op.getOpName() == "aten::native_batch_norm")) {
    auto training = op->getAttrOfType<BoolAttr>("training");
    int rm = s.findArgument("running_mean"), rv = s.findArgument("running_var");
    if (training && training.getValue() && rm >= 0 && rv >= 0 &&
        op.getArgOperands(rm).size() == 1 && op.getArgOperands(rv).size() == 1)
      out = {static_cast<unsigned>(rm), static_cast<unsigned>(rv)};
  }
  return out;
}

LogicalResult BlockFunctionalizer::functionalize(exir::AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  SmallVector<unsigned> written = s ? writtenArgs(op, *s) : SmallVector<unsigned>();
  if (written.empty())
    return success();
  auto refuse = [&](const Twine &why) {
    return op.emitError("cannot functionalize '") << op.getOpName() << "': " << why;
  };
  // The logical values written (before operands are resolved to current ones).
  SmallVector<Value> targets;
  for (unsigned a : written) {
    OperandRange r = op.getArgOperands(a);
    const schema::SchemaType &t = s->arguments[a].type;
    bool single = t.kind == schema::TypeKind::Tensor ||
                  (t.kind == schema::TypeKind::Optional &&
                   t.elems.front().kind == schema::TypeKind::Tensor);
    if (r.size() != 1 || !single)
      return refuse("it writes a list of tensors or an optional one in place");
    targets.push_back(r.front());
  }
  if (failed(resolveOperands(op)))
    return failure();

  // The functional form and which of its results holds each written value.
  const schema::FunctionSchema *f = nullptr;
  SmallVector<unsigned> newValueResult; // per target
  SmallVector<int> origResult;          // per original result: functional result or -1
  bool outForm = s->isOutVariant();
  StringRef name = op.getOpName();
  bool bnTraining = name == "aten::batch_norm" || name == "aten::native_batch_norm";
  if (bnTraining) {
    f = registry().lookup("aten::_native_batch_norm_legit_functional");
    newValueResult = {3, 4};
    origResult = name == "aten::batch_norm" ? SmallVector<int>{0} : SmallVector<int>{0, 1, 2};
  } else if (outForm) {
    f = registry().functionalOf(*s);
    if (f && f->returns.size() != written.size())
      f = nullptr;
    for (unsigned i = 0; i < written.size(); ++i)
      newValueResult.push_back(i);
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      origResult.push_back(i < written.size() ? static_cast<int>(i) : -1);
  } else if (written.size() == 1 && s->isInplace()) {
    f = registry().functionalOf(*s);
    newValueResult = {0};
    origResult = {0};
  } else {
    // Several written arguments (`_native_batch_norm_legit`): torch's
    // `<name>_functional` form returns the original results, then the new
    // value of each written argument in order.
    f = registry().lookup(s->ns + "::" + s->name + "_functional");
    if (f && f->returns.size() == s->returns.size() + written.size()) {
      for (unsigned i = 0; i < written.size(); ++i)
        newValueResult.push_back(s->returns.size() + i);
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        origResult.push_back(i);
    } else {
      f = nullptr;
    }
  }
  if (!f)
    return refuse("it writes its arguments in place and the schema registry has no "
                  "functional form of it");
  if (!f->returns.empty() && f->returns.front().alias()) {
    // An in-place view op (`t_`, `squeeze_`, `as_strided_`) changes the
    // tensor's shape or strides, not its elements; `detach_` changes neither.
    if (viewKind(f->fullName()) != ViewKind::Identity)
      return refuse("it changes its argument's shape or strides in place; export "
                    "the out-of-place form");
    op->getResult(0).replaceAllUsesWith(targets.front());
    op->erase();
    return success();
  }

  // Operands and attributes by argument name; written out-arguments dropped.
  OpBuilder b(op);
  SmallVector<SmallVector<Value, 1>> tensors;
  SmallVector<NamedAttribute> attrs;
  for (auto [i, a] : llvm::enumerate(f->arguments)) {
    int orig = s->findArgument(a.name);
    if (orig < 0 && f->arguments.size() == s->arguments.size())
      orig = static_cast<int>(i); // same arguments under other names, by position
    if (a.type.isTensorLike()) {
      if (orig < 0)
        return refuse(Twine("its functional form '") + f->fullName() +
                      "' takes an argument '" + a.name + "' it does not have");
      OperandRange r = op.getArgOperands(orig);
      tensors.push_back(SmallVector<Value, 1>(r.begin(), r.end()));
      if (Attribute present = op->getAttr(a.name)) // a Tensor?[]'s presence mask
        attrs.push_back(b.getNamedAttr(a.name, present));
    } else if (Attribute v = orig >= 0 ? op->getAttr(s->arguments[orig].name) : Attribute()) {
      attrs.push_back(b.getNamedAttr(a.name, v));
    }
  }
  SmallVector<Type> types;
  for (unsigned i = 0; i < f->returns.size(); ++i) {
    int from = -1;
    for (unsigned t = 0; t < newValueResult.size(); ++t)
      if (newValueResult[t] == i)
        from = t;
    if (from >= 0) {
      types.push_back(targets[from].getType());
      continue;
    }
    int orig = -1;
    for (auto [k, r] : llvm::enumerate(origResult))
      if (r == static_cast<int>(i))
        orig = k;
    if (orig < 0 || static_cast<unsigned>(orig) >= op->getNumResults()) {
      // A statistics result the graph did not ask for (batch norm's save_*):
      // per-channel, shaped like the running mean.
      types.push_back(targets.front().getType());
      continue;
    }
    types.push_back(op->getResult(orig).getType());
  }
  FailureOr<exir::AtenOp> fop = buildAten(b, op.getLoc(), f->fullName(), types, tensors, attrs);
  if (failed(fop))
    return failure();
  if (ArrayAttr syms = op.getSymArgs()) {
    SmallVector<Value> operands((*fop)->getOperands());
    llvm::append_range(operands, op.getSymOperands());
    (*fop)->setOperands(operands);
    (*fop)->setAttr(exir::kSymArgsAttrName, syms);
  }
  copyAnnotations(op, *fop);

  // Results: in-place results are their self; others map to the functional op.
  for (auto [k, r] : llvm::enumerate(op->getResults())) {
    Value aliased = op.getAliasedOperand(k);
    int t = -1;
    for (unsigned j = 0; j < written.size(); ++j)
      if (aliased && op.getArgOperands(written[j]).front() == aliased)
        t = j;
    if (t >= 0)
      r.replaceAllUsesWith(targets[t]);
    else if (origResult[k] >= 0)
      r.replaceAllUsesWith((*fop)->getResult(origResult[k]));
    else if (!r.use_empty())
      return refuse("a result of it has no counterpart in its functional form");
  }
  for (auto [t, target] : llvm::enumerate(targets))
    if (failed(writeBack(target, (*fop)->getResult(newValueResult[t]), op)))
      return failure();
  op->erase();
  return success();
}

LogicalResult BlockFunctionalizer::nested(Operation *op) {
  // Values from outside that ops inside read: their current contents.
  LogicalResult ok = success();
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (OpOperand &o : inner->getOpOperands()) {
      if (op->isProperAncestor(o.get().getParentRegion()->getParentOp()) ||
          o.get().getParentRegion()->getParentOp() == op)
        continue;
      FailureOr<Value> now = resolve(o.get(), inner);
      if (failed(now)) {
        ok = failure();
        continue;
      }
      o.set(*now);
    }
  });
  if (failed(ok))
    return failure();
  for (Region &r : op->getRegions())
    for (Block &blk : r) {
      BlockFunctionalizer inner(blk, dynamic, n);
      if (failed(inner.run()))
        return failure();
      if (!inner.writtenRoots.empty())
        return op->emitError("cannot functionalize: a cond/while body writes its block "
                             "argument in place; return the new value instead");
    }
  return success();
}

LogicalResult BlockFunctionalizer::run() {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops) {
    auto aten = llvm::dyn_cast<exir::AtenOp>(op);
    const schema::FunctionSchema *s = aten ? aten.getSchema() : nullptr;
    if (aten && s && !writtenArgs(aten, *s).empty()) {
      if (failed(functionalize(aten)))
        return failure();
      continue;
    }
    // A view's logical source, before operands become current values.
    Value viewSrc;
    bool untracked = false;
    if (aten) {
      viewSrc = viewSource(aten, untracked);
      if (untracked)
        for (auto [i, operand] : llvm::enumerate(aten.getTensorInputs())) {
          int arg = aten.getSchemaArgForOperand(i);
          const schema::AliasInfo *ai = arg >= 0 ? s->arguments[arg].alias() : nullptr;
          if (ai && ai->isWildcardAfter()) {
            viewSrc = operand;
            break;
          }
        }
    }
    if (op->getNumRegions() > 0 && failed(nested(op)))
      return failure();
    if (failed(resolveOperands(op)))
      return failure();
    if (viewSrc)
      recordView(aten, viewSrc, untracked);
  }
  return success();
}

/// Gives `func` its mutation outputs for the written arguments (argument
/// order, before the existing outputs) and makes written weights mutable
/// buffers in the whole module.
LogicalResult addStateOutputs(func::FuncOp func, const llvm::MapVector<Value, Value> &written,
                              ModuleOp module) {
  if (written.empty())
    return success();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  auto ret = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // Existing mutation outputs must not name written state too.
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto out = func.getResultAttrOfType<exir::OutputAttr>(
            i, exir::ExirDialect::kOutputAttrName);
        out && out.getTarget())
      for (auto [arg, value] : written) {
        auto in = func.getArgAttrOfType<exir::InputAttr>(
            llvm::cast<BlockArgument>(arg).getArgNumber(), exir::ExirDialect::kInputAttrName);
        if (in && in.getFqn() == out.getTarget())
          return mlir::emitError(arg.getLoc(), "cannot functionalize: '")
                 << out.getTarget().getValue()
                 << "' is written in place and also has an explicit "
                 << out.getKind().getValue() << " output; which one is final is ambiguous";
      }
  SmallVector<std::pair<unsigned, Value>> ordered;
  for (auto [arg, value] : written)
    ordered.push_back({llvm::cast<BlockArgument>(arg).getArgNumber(), value});
  llvm::sort(ordered, [](auto &a, auto &b) { return a.first < b.first; });

  SmallVector<Value> results;
  SmallVector<Attribute> resultAttrs;
  for (auto [argNo, value] : ordered) {
    auto in = func.getArgAttrOfType<exir::InputAttr>(argNo, exir::ExirDialect::kInputAttrName);
    StringRef kind = in ? in.getKind().getValue() : "";
    StringAttr fqn = in ? in.getFqn() : StringAttr();
    StringRef outKind;
    if (kind == "user_input") {
      outKind = "user_input_mutation";
    } else if ((kind == "buffer" || kind == "parameter") && fqn) {
      outKind = "buffer_mutation";
      auto weight = SymbolTable::lookupNearestSymbolFrom<exir::WeightOp>(
          module, SymbolRefAttr::get(fqn));
      if (!weight)
        return func.emitError("cannot functionalize: written ")
               << kind << " '" << fqn.getValue() << "' has no exir.weight";
      // A parameter written in place is state: a mutable buffer in every
      // method, so it is never folded, deduplicated or baked into a delegate.
      weight.setKindAttr(b.getStringAttr("buffer"));
      weight.setIsMutable(true);
      if (kind == "parameter")
        module.walk([&](func::FuncOp f) {
          for (unsigned i = 0; i < f.getNumArguments(); ++i)
            if (auto a = f.getArgAttrOfType<exir::InputAttr>(i, exir::ExirDialect::kInputAttrName);
                a && a.getKind().getValue() == "parameter" && a.getFqn() == fqn)
              f.setArgAttr(i, exir::ExirDialect::kInputAttrName,
                           exir::InputAttr::get(ctx, b.getStringAttr("buffer"), fqn));
        });
    } else {
      return mlir::emitError(func.getArgument(argNo).getLoc(), "cannot functionalize: ")
             << (kind.empty() ? StringRef("argument") : kind) << " '"
             << (fqn ? fqn.getValue() : StringRef("#") ) << (fqn ? "" : std::to_string(argNo))
             << "' is written in place; only buffers, parameters and user inputs can "
                "hold state";
    }
    results.push_back(value);
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        exir::ExirDialect::kOutputAttrName,
        exir::OutputAttr::get(ctx, b.getStringAttr(outKind), fqn ? fqn : StringAttr()))));
  }
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    results.push_back(v);
    resultAttrs.push_back(func.getResultAttrDict(i) ? Attribute(func.getResultAttrDict(i))
                                                    : Attribute(b.getDictionaryAttr({})));
  }
  ret->setOperands(results);
  func.setFunctionType(
      b.getFunctionType(func.getArgumentTypes(), ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  return success();
}

struct FunctionalizePass : impl::FunctionalizeBase<FunctionalizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      DenseSet<Value> dynamic = exir::findDynamicValues(func);
      Counters n;
      BlockFunctionalizer walk(func.getBody().front(), dynamic, n);
      if (failed(walk.run()) || failed(addStateOutputs(func, walk.writtenRoots, module)))
        return signalPassFailure();
      n.state = walk.writtenRoots.size();
      if (n.writes == 0 && n.replays == 0)
        continue; // Already functional: the IR is left exactly as it was.
      Builder b(func.getContext());
      func->setAttr("exir.functionalize",
                    b.getDictionaryAttr({b.getNamedAttr("writes", b.getI64IntegerAttr(n.writes)),
                                         b.getNamedAttr("view_writes", b.getI64IntegerAttr(n.viewWrites)),
                                         b.getNamedAttr("replays", b.getI64IntegerAttr(n.replays)),
                                         b.getNamedAttr("state", b.getI64IntegerAttr(n.state))}));
    }
  }
};

} // namespace
} // namespace ptec
