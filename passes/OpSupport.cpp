//===- OpSupport.cpp - what ptec does with each operator ------------------===//

#include "passes/OpSupport.h"

#include "passes/Legalizer.h"

#include "dialects/exir/schema/OperatorSchema.h"
#include "dialects/exir/schema/Unsupported.h"
#include "runtime/kernels/KernelRegistry.h"

#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <set>

namespace ptec {

llvm::StringRef statusName(OpStatus s) {
  switch (s) {
  case OpStatus::Legalized:
    return "legalized";
  case OpStatus::Kernel:
    return "kernel";
  case OpStatus::Refused:
    return "refused";
  case OpStatus::Missing:
    return "missing";
  }
  return "missing";
}

namespace {

/// The support of a functional operator (no in-place/out= resolution).
OpSupport functionalSupport(llvm::StringRef name, const schema::FunctionSchema *s) {
  const legalize::LegalizeTable &rules = legalize::legalizeTable();
  if (auto it = rules.find(name); it != rules.end()) {
    if (!it->second.refusal.empty())
      return {OpStatus::Refused, it->second.refusal};
    return {OpStatus::Legalized, "rule"};
  }
  if (s) {
    const schema::OperatorRegistry &reg = schema::OperatorRegistry::builtin();
    if (const schema::FunctionSchema *out = reg.outVariantOf(*s)) {
      std::string outName = out->fullName();
      if (rt::findKernel(outName.c_str()))
        return {OpStatus::Kernel, outName};
    }
    if (rt::findKernel(name.str().c_str())) // prim ops, and kernels under their own name
      return {OpStatus::Kernel, name.str()};
  }
  std::string why = schema::unsupportedReason(name.str());
  if (!why.empty())
    return {OpStatus::Refused, why};
  if (!s)
    return {OpStatus::Missing, "not an operator ptec knows"};
  return {OpStatus::Missing,
          "ptec has no CPU kernel for it and no rewrite of it into operators it has"};
}

} // namespace

OpSupport opSupport(llvm::StringRef name) {
  // Read by the importer itself: scalars and shape checks, not tensor ops.
  static const llvm::StringSet<> kImported = {
      "aten::item", "aten::_local_scalar_dense", "aten::sym_size.int",
      "aten::_assert_scalar", "aten::sym_constrain_range",
      "aten::sym_constrain_range_for_size", "aten::_assert_tensor_metadata"};
  if (kImported.contains(name))
    return {OpStatus::Legalized, "read by the importer (a number or a shape check)"};
  const schema::OperatorRegistry &reg = schema::OperatorRegistry::builtin();
  const schema::FunctionSchema *s = reg.lookup(name.str());
  if (s && (s->isInplace() || s->isOutVariant())) {
    // Functionalization turns these into their functional form first.
    const schema::FunctionSchema *f = reg.functionalOf(*s);
    if (f && f != s) {
      OpSupport fs = functionalSupport(f->fullName(), f);
      if (fs.status == OpStatus::Legalized || fs.status == OpStatus::Kernel)
        fs.detail = "as " + f->fullName() + " (" + fs.detail + ")";
      return fs;
    }
  }
  return functionalSupport(name, s);
}

std::vector<std::string> knownOperators() {
  std::set<std::string> names;
  for (const schema::FunctionSchema *s : schema::OperatorRegistry::builtin().all())
    names.insert(s->fullName());
  for (const auto &e : legalize::legalizeTable())
    names.insert(e.getKey().str());
  for (const std::string &n : schema::unsupportedOperatorNames())
    names.insert(n);
  return {names.begin(), names.end()};
}

void printOperatorSupport(llvm::raw_ostream &os, const std::vector<std::string> &names) {
  for (const std::string &name : names.empty() ? knownOperators() : names) {
    OpSupport s = opSupport(name);
    os << name << "\t" << statusName(s.status) << "\t" << s.detail << "\n";
  }
}

} // namespace ptec
