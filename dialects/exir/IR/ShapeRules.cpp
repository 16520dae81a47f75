//===- ShapeRules.cpp - the shape-rule driver -----------------------------===//
//
// Finds the rule of an op (its own, or its functional form's for out-variants
// and in-place ops), runs it, and compares what it says the operator produces
// with what the op declares: its result types, the types of its out
// arguments, or the argument an in-place op writes.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRules.h"

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include <algorithm>

using namespace mlir;
namespace schema = ptec::schema;

namespace ptec::exir {
using namespace rules;

namespace {

const RuleTable &ruleTable() {
  static const RuleTable table = [] {
    RuleTable t;
    addElementwiseRules(t);
    addReductionRules(t);
    addViewRules(t);
    addSplitJoinRules(t);
    addIndexingRules(t);
    addNNRules(t);
    addNormRules(t);
    addLinalgRules(t);
    addFactoryRules(t);
    addCompositeNNRules(t);
    addCompositeReduceRules(t);
    addCompositeShapeRules(t);
    addCompositeMiscRules(t);
    addCompositeElementwiseRules(t); // reuses rules added above
    return t;
  }();
  return table;
}

enum class Form { Own, Out, Inplace };

struct Resolved {
  RuleFn fn = nullptr;
  Form form = Form::Own;
};

/// The rule of `s`: its own, else its functional form's when `s` is an
/// out-variant or an in-place op.
Resolved resolve(const schema::FunctionSchema &s) {
  const RuleTable &t = ruleTable();
  if (auto it = t.find(s.fullName()); it != t.end())
    return {it->second, Form::Own};
  const schema::OperatorRegistry &reg = schema::OperatorRegistry::builtin();
  if (!s.isOutVariant() && !s.isInplace())
    return {};
  const schema::FunctionSchema *f = reg.functionalOf(s);
  if ((!f || f == &s) && s.isOutVariant()) {
    // An out form whose other arguments differ in annotations from its
    // functional form (written running stats): "foo.out" -> "foo".
    StringRef overload(s.overload);
    if (overload == "out" || overload.consume_back("_out"))
      f = reg.lookup(s.ns + "::" + s.name +
                     (overload == "out" ? "" : "." + overload.str()));
  }
  if (!f || f == &s)
    return {};
  auto it = t.find(f->fullName());
  if (it == t.end())
    return {};
  return {it->second, s.isOutVariant() ? Form::Out : Form::Inplace};
}

/// Do the declared type and the spec agree? Dynamic declared dims (only in
/// hand-written IR) match anything.
bool agrees(const Spec &spec, RankedTensorType declared) {
  if (spec.dtype && spec.dtype != declared.getElementType())
    return false;
  if (!spec.rankKnown)
    return true;
  if (static_cast<int64_t>(spec.shape.size()) != declared.getRank())
    return false;
  for (auto [want, have] : llvm::zip(spec.shape, declared.getShape()))
    if (want != kDataDependent && !ShapedType::isDynamic(have) && want != have)
      return false;
  return true;
}

LogicalResult compare(RuleContext &ctx, const Spec &spec, Type declared,
                      const llvm::Twine &what) {
  if (spec.isScalar && llvm::isa<TensorType>(declared))
    return ctx.error() << what << " is declared " << describe(declared)
                       << ", but the operator returns a number, not a tensor";
  auto t = llvm::dyn_cast<RankedTensorType>(declared);
  if (!t || agrees(spec, t)) // None results: an unused output of the node
    return success();
  return ctx.error() << what << " is declared " << describe(t)
                     << ", but the operator produces " << describe(spec)
                     << " for these arguments";
}

/// Operands and names of the out arguments of out-variant `s`, in order.
void outOperands(RuleContext &ctx, const schema::FunctionSchema &s,
                 SmallVectorImpl<std::pair<Value, std::string>> &outs) {
  for (size_t i : s.outArguments()) {
    const std::string &name = s.arguments[i].name;
    SmallVector<Value> vs = ctx.tensors(name);
    for (auto [k, v] : llvm::enumerate(vs))
      outs.emplace_back(v, vs.size() == 1 ? "out argument '" + name + "'"
                                          : "out argument '" + name + "'[" +
                                                std::to_string(k) + "]");
  }
}

LogicalResult checkResults(RuleContext &ctx, const schema::FunctionSchema &s,
                           Form form) {
  AtenOp op = ctx.getOp();
  ArrayRef<Spec> specs = ctx.results;
  if (form == Form::Out) {
    SmallVector<std::pair<Value, std::string>> outs;
    outOperands(ctx, s, outs);
    if (outs.size() != specs.size())
      return ctx.error() << "has " << outs.size()
                         << " out tensors, but the operator produces "
                         << specs.size();
    for (auto [spec, out] : llvm::zip(specs, outs))
      if (!out.first || failed(compare(ctx, spec, out.first.getType(), out.second)))
        return failure();
    for (auto [i, r] : llvm::enumerate(op->getResults()))
      if (i < outs.size() && r.getType() != outs[i].first.getType())
        return ctx.error() << "result #" << i << " is " << describe(r.getType())
                           << ", but it is " << outs[i].second << " of type "
                           << describe(outs[i].first.getType());
    return success();
  }
  if (form == Form::Inplace) {
    const std::string &name = s.arguments.front().name;
    RankedTensorType self = ctx.type(name);
    if (!self || specs.empty())
      return success();
    const Spec &spec = specs.front();
    if (spec.rankKnown && (spec.shape.size() != self.getShape().size() ||
                           !llvm::equal(spec.shape, self.getShape())))
      return ctx.error() << "the result " << describe(spec)
                         << " does not fit in '" << name << "' "
                         << describe(self) << ", which the op writes";
    if (spec.dtype && !canCast(spec.dtype, self.getElementType()))
      return ctx.error() << "the result dtype " << dtypeName(spec.dtype)
                         << " cannot be cast to the dtype of '" << name
                         << "' (" << dtypeName(self.getElementType())
                         << "), which the op writes";
    for (Value r : op->getResults())
      if (r.getType() != self)
        return ctx.error() << "the result is " << describe(r.getType())
                           << ", but the op writes '" << name << "' "
                           << describe(self);
    return success();
  }
  if (op->getNumResults() != specs.size())
    return ctx.error() << "has " << op->getNumResults()
                       << " results, but the operator produces " << specs.size();
  for (auto [i, spec] : llvm::enumerate(specs))
    if (failed(compare(ctx, spec, op->getResult(i).getType(),
                       "result #" + llvm::Twine(i))))
      return failure();
  return success();
}

bool isStatic(Type t) {
  auto r = llvm::dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape();
}

} // namespace

LogicalResult verifySemantics(AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  if (!s)
    return success(); // AtenOp::verify reports unknown operators
  RuleContext ctx(op, *s);

  // The runtime's rank limit holds for every value an op touches.
  auto checkRank = [&](Type t, StringRef what, unsigned i) -> LogicalResult {
    auto r = llvm::dyn_cast<RankedTensorType>(t);
    if (!r || r.getRank() <= kMaxTensorRank)
      return success();
    return ctx.error() << what << " #" << i << " has " << r.getRank()
                       << " dims; the runtime supports at most " << kMaxTensorRank;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(checkRank(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(checkRank(v.getType(), "result", i)))
      return failure();

  // Rules compute with static shapes; the importer never makes others.
  if (!llvm::all_of(op->getOperandTypes(), isStatic))
    return success();
  Resolved rule = resolve(*s);
  if (!rule.fn)
    return success(); // every builtin operator has a rule (a unit test checks)
  if (failed(rule.fn(ctx)))
    return failure();
  return checkResults(ctx, *s, rule.form);
}

FailureOr<SmallVector<Type>> inferResultTypes(AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  if (!s)
    return op.emitError("unknown operator '") << op.getOpName() << "'";
  if (!llvm::all_of(op->getOperandTypes(), isStatic))
    return op.emitError("'") << op.getOpName()
                             << "': result types are inferred from static shapes only";
  Resolved rule = resolve(*s);
  if (!rule.fn || rule.form != Form::Own)
    return op.emitError("'") << op.getOpName() << "' has no shape rule to infer its results";
  RuleContext ctx(op, *s);
  if (failed(rule.fn(ctx)))
    return failure();
  SmallVector<Type> types;
  for (const Spec &spec : ctx.results) {
    bool determined = spec.rankKnown && spec.dtype && !spec.isScalar &&
                      llvm::none_of(spec.shape, [](int64_t d) { return d == kDataDependent; });
    if (!determined)
      return ctx.error() << "its result " << describe(spec)
                         << " is not determined by its arguments";
    types.push_back(RankedTensorType::get(spec.shape, spec.dtype));
  }
  return types;
}

LogicalResult verifySemanticsIn(Operation *root) {
  bool ok = true;
  root->walk([&](AtenOp op) { ok &= succeeded(verifySemantics(op)); });
  return success(ok);
}

bool hasShapeRule(llvm::StringRef opName) {
  const schema::FunctionSchema *s =
      schema::OperatorRegistry::builtin().lookup(opName.str());
  return s && resolve(*s).fn != nullptr;
}

std::vector<std::string> shapeRuleNames() {
  std::vector<std::string> names;
  for (const auto &entry : ruleTable())
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace ptec::exir
