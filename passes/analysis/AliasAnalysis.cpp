//===- AliasAnalysis.cpp - storage classes of tensors in a method ---------===//

#include "passes/analysis/AliasAnalysis.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <iterator>

namespace ptec {
using namespace mlir;

namespace {

bool isTensor(Value v) { return llvm::isa<TensorType>(v.getType()); }

/// Type variables (`t`, `Any`) and tuples: the schema cannot say which
/// tensors flow where (`__getitem__`, tuple and list projections).
bool hasGenericType(const schema::SchemaType &t) {
  using K = schema::TypeKind;
  if (t.kind == K::Other || t.kind == K::Any || t.kind == K::Tuple)
    return true;
  return llvm::any_of(t.elems, hasGenericType);
}

bool hasWildcard(const schema::SchemaType &t) {
  if (t.alias && (t.alias->isWildcardBefore() || t.alias->isWildcardAfter()))
    return true;
  return llvm::any_of(t.elems, hasWildcard);
}

/// Alias sets named by an argument or return (outer type or element).
llvm::SmallVector<llvm::StringRef, 2> setNames(const schema::Argument &a) {
  llvm::SmallVector<llvm::StringRef, 2> names;
  if (const schema::AliasInfo *info = a.alias())
    for (const std::string &s : info->beforeSets)
      if (s != "*")
        names.push_back(s);
  return names;
}

int inplaceOf(Operation *op) { return exir::getInplaceOperand(op); }

} // namespace

AliasAnalysis::AliasAnalysis(Operation *funcOp) {
  values.push_back(Value()); // the wildcard set
  parent.push_back(0);
  wildcard = 0;
  funcOp->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isTensor(arg))
            idOf(arg);
    if (op != funcOp)
      visit(op);
  });
  buildIndex();
}

void AliasAnalysis::buildIndex() {
  auto add = [](SmallVector<unsigned, 4> &list, unsigned i) {
    if (list.empty() || list.back() != i)
      list.push_back(i);
  };
  for (auto [i, acc] : llvm::enumerate(accesses)) {
    for (Value r : acc.reads)
      add(bySet[find(lookupId(r))].readers, i);
    for (Value w : acc.writes)
      add(bySet[find(lookupId(w))].writers, i);
  }
  for (unsigned id = 1; id < values.size(); ++id)
    bySet[find(id)].members.push_back(id);
}

unsigned AliasAnalysis::idOf(Value v) {
  auto [it, inserted] = ids.try_emplace(v, values.size());
  if (inserted) {
    values.push_back(v);
    parent.push_back(it->second);
  }
  return it->second;
}

unsigned AliasAnalysis::lookupId(Value v) const {
  auto it = ids.find(v);
  return it == ids.end() ? kNoSet : it->second;
}

unsigned AliasAnalysis::find(unsigned x) const {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

void AliasAnalysis::unite(unsigned a, unsigned b) {
  a = find(a);
  b = find(b);
  if (a == b)
    return;
  // The smaller id stays the representative: ids are then stable and
  // deterministic (the wildcard node, 0, always represents its set).
  if (b < a)
    std::swap(a, b);
  parent[b] = a;
}

void AliasAnalysis::visitOpaque(Operation *op) {
  opaque.insert(op);
  Access acc{op, {}, {}};
  std::optional<unsigned> anchor;
  auto join = [&](Value v) {
    unsigned id = idOf(v);
    if (anchor)
      unite(*anchor, id);
    else
      anchor = id;
  };
  for (Value v : op->getOperands()) {
    if (!isTensor(v))
      continue;
    join(v);
    acc.reads.push_back(v);
    acc.writes.push_back(v);
  }
  for (Value r : op->getResults())
    if (isTensor(r))
      join(r);
  accessIndex[op] = accesses.size();
  accesses.push_back(std::move(acc));
}

void AliasAnalysis::visit(Operation *op) {
  for (Value r : op->getResults())
    if (isTensor(r))
      idOf(r);

  if (llvm::isa<func::ReturnOp, exir::AllocOp>(op))
    return; // The return is not a reader; an alloc is fresh storage.

  if (auto copy = llvm::dyn_cast<exir::CopyOp>(op)) {
    Access acc{op, {copy.getSrc()}, {copy.getDst()}};
    idOf(copy.getSrc());
    idOf(copy.getDst());
    accessIndex[op] = accesses.size();
    accesses.push_back(std::move(acc));
    return;
  }

  // Region terminators forward values: the parent's results are them.
  if (op->hasTrait<OpTrait::IsTerminator>() && !llvm::isa<func::FuncOp>(op->getParentOp())) {
    Operation *parentOp = op->getParentOp();
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (isTensor(v) && i < parentOp->getNumResults() &&
          isTensor(parentOp->getResult(i)))
        unite(idOf(v), idOf(parentOp->getResult(i)));
    return;
  }
  if (llvm::isa<exir::DelegateRegionOp>(op))
    return; // Its body is visited op by op; its yield joins the results.

  // Ops without memory effects that make no tensor (exir.sym_size,
  // exir.sym_item): they only read their tensor operands.
  if (!llvm::isa<exir::AtenOp>(op) && isMemoryEffectFree(op) &&
      llvm::none_of(op->getResults(), [](Value r) { return isTensor(r); })) {
    Access acc{op, {}, {}};
    for (Value v : op->getOperands())
      if (isTensor(v)) {
        idOf(v);
        acc.reads.push_back(v);
      }
    accessIndex[op] = accesses.size();
    accesses.push_back(std::move(acc));
    return;
  }

  auto aten = llvm::dyn_cast<exir::AtenOp>(op);
  const schema::FunctionSchema *s = aten ? aten.getSchema() : nullptr;
  bool generic = s && (s->varArgs || s->varRets ||
                       llvm::any_of(s->arguments, [](const schema::Argument &a) {
                         return hasGenericType(a.type);
                       }) ||
                       llvm::any_of(s->returns, [](const schema::Argument &a) {
                         return hasGenericType(a.type);
                       }));
  if (!s || generic)
    return visitOpaque(op);

  // Reads and writes per schema argument (lists included: an annotation on
  // `Tensor(a!)[]` covers every element).
  Access acc{op, {}, {}};
  int inplaceIdx = inplaceOf(op);
  for (OpOperand &o : op->getOpOperands()) {
    if (!isTensor(o.get()))
      continue;
    idOf(o.get());
    int argIdx = aten.getSchemaArgForOperand(o.getOperandNumber());
    const schema::Argument *arg = argIdx >= 0 ? &s->arguments[argIdx] : nullptr;
    bool isWrite = !arg || arg->isWrite() ||
                   static_cast<int>(o.getOperandNumber()) == inplaceIdx;
    bool isRead = !arg || !arg->isOut();
    if (isRead)
      acc.reads.push_back(o.get());
    if (isWrite)
      acc.writes.push_back(o.get());
  }
  accessIndex[op] = accesses.size();
  accesses.push_back(std::move(acc));

  // A wildcard anywhere: everything the op touches may alias anything else
  // that ever met a wildcard.
  bool wild = llvm::any_of(s->arguments, [](const schema::Argument &a) {
                return hasWildcard(a.type);
              }) ||
              llvm::any_of(s->returns, [](const schema::Argument &a) {
                return hasWildcard(a.type);
              });
  if (wild) {
    for (Value v : op->getOperands())
      if (isTensor(v))
        unite(wildcard, idOf(v));
    for (Value r : op->getResults())
      if (isTensor(r))
        unite(wildcard, idOf(r));
  }

  // Named sets: single-tensor arguments sharing a name share storage (the
  // elements of one list keep their own); a result joins every argument
  // tensor with one of its names.
  llvm::StringMap<llvm::SmallVector<unsigned, 2>> bySet, singles;
  for (auto [i, arg] : llvm::enumerate(s->arguments)) {
    if (!arg.type.isTensorLike())
      continue;
    OperandRange operands = aten.getArgOperands(i);
    bool list = operands.size() > 1 || arg.type.kind == schema::TypeKind::List ||
                (arg.type.kind == schema::TypeKind::Optional &&
                 arg.type.elems.front().kind == schema::TypeKind::List);
    for (llvm::StringRef name : setNames(arg))
      for (Value v : operands) {
        bySet[name].push_back(idOf(v));
        if (!list)
          singles[name].push_back(idOf(v));
      }
  }
  for (auto &entry : singles)
    for (unsigned id : entry.second)
      unite(entry.second.front(), id);
  bool listReturn = s->returns.size() == 1 &&
                    s->returns.front().type.kind == schema::TypeKind::List;
  for (OpResult r : op->getResults()) {
    if (!isTensor(r))
      continue;
    unsigned ri = listReturn ? 0 : r.getResultNumber();
    if (ri >= s->returns.size())
      continue;
    for (llvm::StringRef name : setNames(s->returns[ri])) {
      auto it = bySet.find(name);
      if (it != bySet.end())
        for (unsigned id : it->second)
          unite(id, idOf(r));
    }
  }

  // Re-inplacing's storage-sharing annotation.
  if (inplaceIdx >= 0 && isTensor(op->getOperand(inplaceIdx)) &&
      isTensor(op->getResult(0)))
    unite(idOf(op->getOperand(inplaceIdx)), idOf(op->getResult(0)));
}

unsigned AliasAnalysis::getAliasSet(Value v) const {
  unsigned id = lookupId(v);
  return id == kNoSet ? kNoSet : find(id);
}

bool AliasAnalysis::mayAlias(Value a, Value b) const {
  if (a == b)
    return true;
  unsigned sa = getAliasSet(a), sb = getAliasSet(b);
  return sa != kNoSet && sa == sb;
}

const AliasAnalysis::SetIndex *AliasAnalysis::indexOf(Value v) const {
  unsigned set = getAliasSet(v);
  if (set == kNoSet)
    return nullptr;
  auto it = bySet.find(set);
  return it == bySet.end() ? nullptr : &it->second;
}

SmallVector<Value> AliasAnalysis::getAliases(Value v) const {
  SmallVector<Value> out;
  if (const SetIndex *index = indexOf(v))
    for (unsigned id : index->members)
      out.push_back(values[id]);
  return out;
}

bool AliasAnalysis::touches(Operation *op, Value v, bool write) const {
  auto it = accessIndex.find(op);
  if (it == accessIndex.end())
    return false;
  const Access &a = accesses[it->second];
  return llvm::any_of(write ? a.writes : a.reads, [&](Value x) { return mayAlias(x, v); });
}

bool AliasAnalysis::reads(Operation *op, Value v) const { return touches(op, v, false); }

bool AliasAnalysis::writes(Operation *op, Value v) const { return touches(op, v, true); }

// Every value an access reads or writes has an id, so a value without one
// (outside the function, not a tensor) is accessed by nothing.
template <typename Select>
SmallVector<Operation *> AliasAnalysis::opsOf(Value v, Select select) const {
  SmallVector<Operation *> out;
  if (const SetIndex *index = indexOf(v))
    for (unsigned i : select(*index))
      out.push_back(accesses[i].op);
  return out;
}

SmallVector<Operation *> AliasAnalysis::getReaders(Value v) const {
  return opsOf(v, [](const SetIndex &s) { return ArrayRef<unsigned>(s.readers); });
}

SmallVector<Operation *> AliasAnalysis::getWriters(Value v) const {
  return opsOf(v, [](const SetIndex &s) { return ArrayRef<unsigned>(s.writers); });
}

SmallVector<Operation *> AliasAnalysis::getAccesses(Value v) const {
  SmallVector<unsigned> both;
  return opsOf(v, [&](const SetIndex &s) {
    std::set_union(s.readers.begin(), s.readers.end(), s.writers.begin(),
                   s.writers.end(), std::back_inserter(both));
    return ArrayRef<unsigned>(both);
  });
}

Value AliasAnalysis::getWrittenOperand(OpResult r) {
  Operation *op = r.getOwner();
  int idx = inplaceOf(op);
  if (idx >= 0 && r.getResultNumber() == 0)
    return op->getOperand(idx);
  auto aten = llvm::dyn_cast<exir::AtenOp>(op);
  if (!aten)
    return {};
  const schema::FunctionSchema *s = aten.getSchema();
  if (!s)
    return {};
  bool listReturn = s->returns.size() == 1 &&
                    s->returns.front().type.kind == schema::TypeKind::List;
  unsigned ri = listReturn ? 0 : r.getResultNumber();
  if (ri >= s->returns.size() || !s->returns[ri].isWrite() || listReturn)
    return {};
  return aten.getAliasedOperand(ri);
}

Value AliasAnalysis::getInPlaceRoot(Value v) {
  while (auto r = llvm::dyn_cast<OpResult>(v)) {
    Value next = getWrittenOperand(r);
    if (!next)
      break;
    v = next;
  }
  return v;
}

} // namespace ptec
