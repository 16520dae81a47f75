//===- PassRecord.cpp - which exir passes already ran on a module ---------===//

#include "passes/PassRecord.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

namespace ptec {
using namespace mlir;

std::string passText(Pass &pass) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  return text;
}

void RecordExirPasses::runAfterPass(Pass *pass, Operation *op) {
  // Only programs (IR that aot-compile wrote or reads carries exir.version);
  // hand-written snippets that lit tests feed to ptec-opt stay as they are.
  auto module = llvm::dyn_cast<ModuleOp>(op);
  if (!module || !pass->getArgument().starts_with("exir-") ||
      !module->hasAttr("exir.version"))
    return;
  Builder b(module.getContext());
  SmallVector<Attribute> done;
  if (auto prior = module->getAttrOfType<ArrayAttr>(kPassesAttrName))
    done.append(prior.begin(), prior.end());
  done.push_back(b.getStringAttr(passText(*pass)));
  module->setAttr(kPassesAttrName, b.getArrayAttr(done));
}

std::vector<std::string> recordedPasses(ModuleOp module) {
  std::vector<std::string> out;
  if (auto done = module->getAttrOfType<ArrayAttr>(kPassesAttrName))
    for (Attribute a : done)
      if (auto s = llvm::dyn_cast<StringAttr>(a))
        out.push_back(s.str());
  return out;
}

} // namespace ptec
