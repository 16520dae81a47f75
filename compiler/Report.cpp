//===- Report.cpp - what a compile did, for people and for CI -------------===//

#include "compiler/Report.h"

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/schema/OperatorSchema.h"
#include "serde/pte/PlanBound.h"
#include "serde/pte/PteInspect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace ptec {
using namespace mlir;
namespace fb = executorch_flatbuffer;

CompileReport::Method &CompileReport::method(const std::string &name) {
  for (Method &m : methods)
    if (m.name == name)
      return m;
  methods.push_back({});
  methods.back().name = name;
  return methods.back();
}

namespace {

/// Public methods (private functions are helpers of extract-calls).
SmallVector<func::FuncOp> methodsOf(ModuleOp module) {
  SmallVector<func::FuncOp> out;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() && f.isPublic())
      out.push_back(f);
  return out;
}

} // namespace

void CompileReport::recordPhase(ModuleOp module, const std::string &name, double ms) {
  Phase p{name, ms};
  module.walk([&](Operation *op) {
    if (llvm::isa<exir::AtenOp>(op))
      ++p.atenOps;
    else if (llvm::isa<exir::DelegateCallOp>(op))
      ++p.delegateCalls;
    else if (llvm::isa<exir::CopyOp>(op))
      ++p.copies;
  });
  phases.push_back(p);
}

void CompileReport::recordWriteBack(ModuleOp module) {
  for (func::FuncOp f : methodsOf(module)) {
    Method &m = method(f.getSymName().str());
    m.copies.clear();
    Block &body = f.getBody().front();
    // One pass: a copy's distance to the return is the ops after it.
    int64_t index = 0, terminator = static_cast<int64_t>(body.getOperations().size()) - 1;
    for (Operation &op : body) {
      int64_t at = index++;
      auto copy = llvm::dyn_cast<exir::CopyOp>(op);
      if (!copy)
        continue;
      Copy c;
      if (auto arg = llvm::dyn_cast<BlockArgument>(copy.getDst()))
        if (exir::InputAttr in = exir::getInputAttr(f, arg.getArgNumber()))
          c.state = in.getFqn() ? in.getFqn().getValue().str() : "";
      c.movedUp = std::max<int64_t>(0, terminator - at - 1);
      m.copies.push_back(c);
    }
    if (auto wb = f->getAttrOfType<DictionaryAttr>("exir.write_back")) {
      if (auto n = wb.getAs<IntegerAttr>("in_place"))
        m.inPlace = n.getInt();
      if (auto n = wb.getAs<IntegerAttr>("snapshots"))
        m.snapshots = n.getInt();
    }
  }
}

void CompileReport::recordOpsBeforePartition(ModuleOp module) {
  for (func::FuncOp f : methodsOf(module)) {
    int64_t n = 0;
    f.walk([&](exir::AtenOp) { ++n; });
    method(f.getSymName().str()).atenOps = n;
  }
}

void dropRefusalReasons(ModuleOp module) {
  auto refused = StringAttr::get(module.getContext(), "exir.refused");
  module.walk([&](exir::AtenOp op) { op->removeAttr(refused); });
}

void CompileReport::recordPartition(ModuleOp module) {
  regions.clear();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration())
      continue;
    int64_t index = 0;
    for (auto region : f.getBody().front().getOps<exir::DelegateRegionOp>()) {
      int64_t ops = 0;
      region.walk([&](exir::AtenOp) { ++ops; });
      regions.push_back({f.getSymName().str(), index++, region.getBackend().str(), ops});
    }
  }
  // Ops inside delegate regions, per backend; private callees (lower once,
  // call many) count once per call.
  llvm::StringMap<std::map<std::string, int64_t>> perFunc;
  module.walk([&](exir::DelegateRegionOp region) {
    auto f = region->getParentOfType<func::FuncOp>();
    int64_t n = 0;
    region.walk([&](exir::AtenOp) { ++n; });
    perFunc[f.getSymName()][region.getBackend().str()] += n;
  });
  for (func::FuncOp f : methodsOf(module)) {
    Method &m = method(f.getSymName().str());
    auto add = [&](llvm::StringRef fn) {
      auto it = perFunc.find(fn);
      if (it != perFunc.end())
        for (auto &[backend, n] : it->second)
          m.delegatedOps[backend] += n;
    };
    add(f.getSymName());
    f.walk([&](func::CallOp call) { add(call.getCallee()); });
  }
}

void CompileReport::recordPlan(ModuleOp module) {
  // The planner's own figures; recordProgram replaces the sizes with the
  // written program's and adds the lower bound (PlanBound.h).
  for (func::FuncOp f : methodsOf(module)) {
    Method &m = method(f.getSymName().str());
    if (auto plan = f->getAttrOfType<DictionaryAttr>("exir.plan")) {
      if (auto a = plan.getAs<StringAttr>("algorithm"))
        m.planner = a.str();
      if (auto n = plan.getAs<IntegerAttr>("total"))
        m.planned = n.getInt();
    }
    if (auto sizes = f->getAttrOfType<DenseI64ArrayAttr>("exir.arena_sizes"))
      m.arenas.assign(sizes.asArrayRef().begin(), sizes.asArrayRef().end());
  }
}

std::optional<FileLineColLoc> innermostFileLoc(Location loc) {
  if (auto f = llvm::dyn_cast<FileLineColLoc>(loc))
    return f;
  if (auto n = llvm::dyn_cast<NameLoc>(loc))
    return innermostFileLoc(n.getChildLoc());
  if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
    return innermostFileLoc(c.getCallee());
  if (auto f = llvm::dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (auto found = innermostFileLoc(l))
        return found;
  return std::nullopt;
}

namespace {

/// "file:line" of the innermost file location in `loc`, or "".
std::string fileLine(Location loc) {
  std::optional<FileLineColLoc> f = innermostFileLoc(loc);
  return f ? f->getFilename().str() + ":" + std::to_string(f->getLine()) : "";
}

/// The portable kernel an ATen op runs as once in out form.
std::string kernelOf(exir::AtenOp op) {
  if (op.getOpName() == "aten::view")
    return "none (a static view aliases its input)";
  const schema::FunctionSchema *s = op.getSchema();
  if (!s)
    return "unknown operator";
  if (s->isMutable())
    return s->fullName();
  if (const schema::FunctionSchema *out = schema::OperatorRegistry::builtin().outVariantOf(*s))
    return out->fullName();
  return "none (no out-variant)";
}

} // namespace

void CompileReport::recordOps(ModuleOp module, llvm::StringRef otherwise) {
  ops.clear();
  refusals.clear();
  opsRecorded = true;
  auto refused = StringAttr::get(module.getContext(), "exir.refused");
  llvm::StringMap<std::string> kernels; // op name -> kernel, looked up once
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration())
      continue;
    std::string fn = f.getSymName().str();
    f.walk([&](exir::AtenOp op) {
      std::string name = op.getOpName().str();
      OpStats &st = ops[name];
      ++st.count;
      if (auto region = op->getParentOfType<exir::DelegateRegionOp>()) {
        ++st.delegated[region.getBackend().str()];
        op->removeAttr(refused);
        return;
      }
      std::string reason;
      if (auto why = op->getAttrOfType<StringAttr>(refused)) {
        reason = why.str();
        op->removeAttr(refused);
      } else if (!llvm::isa<func::FuncOp>(op->getParentOp())) {
        reason = "inside a cond/while branch (control flow stays on portable kernels)";
      } else {
        reason = otherwise.str();
      }
      ++st.portable;
      ++st.reasons[reason];
      auto [k, fresh] = kernels.try_emplace(name);
      if (fresh)
        k->second = kernelOf(op);
      st.kernel = k->second;
      std::string where = fileLine(op.getLoc());
      refusals.push_back({fn, name, where.empty() ? "unknown location" : where, reason});
    });
  }
}

void CompileReport::recordLoaded(ModuleOp module, bool afterWriteBack, bool afterPartition) {
  if (afterWriteBack)
    recordWriteBack(module);
  if (afterPartition) {
    recordOpsBeforePartition(module);
    recordPartition(module);
    recordOps(module, "outside every delegate region of the saved IR");
  }
}

void CompileReport::recordProgram(const uint8_t *data, size_t size) {
  pte::PteView view;
  std::string err;
  if (!pte::openPte(data, size, &view, &err)) {
    warnings.push_back("the report cannot read the program it wrote: " + err);
    return;
  }
  fileSize = size;
  programSize = view.programSize;
  const fb::Program *p = view.program;
  if (auto *plans = p->execution_plan())
    for (uint32_t planIndex = 0; planIndex < plans->size(); ++planIndex) {
      const fb::ExecutionPlan *plan = plans->Get(planIndex);
      Method &m = method(plan->name() ? plan->name()->str() : "");
      const auto *instrs = plan->chains() && plan->chains()->size()
                               ? plan->chains()->Get(0)->instructions()
                               : nullptr;
      m.instructions = instrs ? instrs->size() : 0;
      // The one lower bound (pte-inspect --plan and the pictures use it too).
      pte::PlanBound bound = pte::planLowerBound(view, planIndex);
      m.planned = static_cast<int64_t>(bound.planned);
      m.lowerBound = static_cast<int64_t>(bound.lowerBound);
      m.arenas.assign(1, 0);
      for (auto &[arena, bytes] : bound.arenaBytes) {
        m.arenas.resize(arena + 1, 0);
        m.arenas[arena] = static_cast<int64_t>(bytes);
      }
      m.delegates.clear();
      if (auto *ds = plan->delegates())
        for (const fb::BackendDelegate *d : *ds) {
          Delegate del;
          del.backend = d->id() ? d->id()->str() : "";
          if (d->scratch())
            for (const fb::DelegateScratch *s : *d->scratch())
              del.scratchBytes.push_back(s->size());
          m.delegates.push_back(del);
        }
      for (uint32_t i = 0; instrs && i < instrs->size(); ++i)
        if (auto *call = instrs->Get(i)->instr_args_as_DelegateCall())
          if (call->delegate_index() >= 0 &&
              static_cast<size_t>(call->delegate_index()) < m.delegates.size())
            ++m.delegates[call->delegate_index()].callSites;
    }
  // What each segment holds.
  std::map<uint32_t, std::string> kind;
  if (auto *cs = p->constant_segment())
    kind[cs->segment_index()] = "constants";
  if (auto *ms = p->mutable_data_segments())
    for (const fb::SubsegmentOffsets *s : *ms)
      kind[s->segment_index()] = "mutable state";
  if (auto *plans = p->execution_plan())
    for (const fb::ExecutionPlan *plan : *plans)
      if (auto *ds = plan->delegates())
        for (const fb::BackendDelegate *d : *ds)
          if (d->processed() && d->processed()->location() == fb::DataLocation::SEGMENT)
            kind[d->processed()->index()] = "delegate blob";
  if (auto *nd = p->named_data())
    for (const fb::NamedData *n : *nd)
      kind[n->segment_index()] = "named data";
  if (auto *segs = p->segments())
    for (uint32_t i = 0; i < segs->size(); ++i)
      segments.push_back({kind.count(i) ? kind[i] : "unreferenced", segs->Get(i)->size()});
}

std::string plannerFlagName(llvm::StringRef algorithm) {
  if (algorithm == "greedy-by-size")
    return "greedy";
  if (algorithm == "in-order-first-fit")
    return "first-fit";
  return algorithm.str();
}

namespace {

/// The exported node a location names (the importer's NameLoc), or "".
std::string nodeOf(Location loc) {
  if (auto n = llvm::dyn_cast<NameLoc>(loc)) {
    llvm::StringRef name = n.getName().getValue();
    if (name != "aot-compile") // the command itself, not a node
      return name.str();
    return nodeOf(n.getChildLoc());
  }
  if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
    return nodeOf(c.getCallee());
  if (auto f = llvm::dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (std::string found = nodeOf(l); !found.empty())
        return found;
  return "";
}

/// "file:line" (or the file alone) of the innermost file location, or "".
std::string placeOf(Location loc) {
  std::optional<FileLineColLoc> f = innermostFileLoc(loc);
  if (!f)
    return "";
  std::string s = f->getFilename().str();
  return f->getLine() > 0 ? s + ":" + std::to_string(f->getLine()) : s;
}

const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Note: return "note";
  case DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

} // namespace

ReportDiagnostics::ReportDiagnostics(MLIRContext &ctx,
                                     std::vector<CompileReport::Diagnostic> &out)
    : ctx_(ctx) {
  id_ = ctx.getDiagEngine().registerHandler([&out](Diagnostic &d) {
    // exir-partition's refusal remarks: the report has them per op already.
    if (d.getSeverity() == DiagnosticSeverity::Remark &&
        llvm::StringRef(d.str()).contains(" not delegated ("))
      return failure();
    CompileReport::Diagnostic r{severityName(d.getSeverity()), placeOf(d.getLocation()),
                                nodeOf(d.getLocation()), d.str(), {}};
    for (Diagnostic &note : d.getNotes())
      r.notes.push_back({placeOf(note.getLocation()), note.str()});
    out.push_back(std::move(r));
    return failure(); // not handled: the printer registered before still prints it
  });
}

ReportDiagnostics::~ReportDiagnostics() { ctx_.getDiagEngine().eraseHandler(id_); }

} // namespace ptec
