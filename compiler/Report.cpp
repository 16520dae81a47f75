//===- Report.cpp - what a compile did, for people and for CI -------------===//

#include "compiler/Report.h"

#include "dialects/exir/IR/ExirDialect.h"
#include "serde/pte/PteInspect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
    Block &body = f.getBody().front();
    for (Operation &op : body) {
      auto copy = llvm::dyn_cast<exir::CopyOp>(op);
      if (!copy)
        continue;
      Copy c;
      if (auto arg = llvm::dyn_cast<BlockArgument>(copy.getDst()))
        if (exir::InputAttr in = exir::getInputAttr(f, arg.getArgNumber()))
          c.state = in.getFqn() ? in.getFqn().getValue().str() : "";
      for (Operation *next = op.getNextNode(); next && next != body.getTerminator();
           next = next->getNextNode())
        ++c.movedUp;
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

void CompileReport::recordPartition(ModuleOp module) {
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
  for (func::FuncOp f : methodsOf(module)) {
    Method &m = method(f.getSymName().str());
    if (auto plan = f->getAttrOfType<DictionaryAttr>("exir.plan")) {
      if (auto a = plan.getAs<StringAttr>("algorithm"))
        m.planner = a.str();
      if (auto n = plan.getAs<IntegerAttr>("lower_bound"))
        m.lowerBound = n.getInt();
      if (auto n = plan.getAs<IntegerAttr>("total"))
        m.planned = n.getInt();
    }
    if (auto sizes = f->getAttrOfType<DenseI64ArrayAttr>("exir.arena_sizes"))
      m.arenas.assign(sizes.asArrayRef().begin(), sizes.asArrayRef().end());
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
    for (const fb::ExecutionPlan *plan : *plans) {
      Method &m = method(plan->name() ? plan->name()->str() : "");
      const auto *instrs = plan->chains() && plan->chains()->size()
                               ? plan->chains()->Get(0)->instructions()
                               : nullptr;
      m.instructions = instrs ? instrs->size() : 0;
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

std::string CompileReport::toText() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  char buf[160];
  os << "== phases\n";
  for (const Phase &p : phases) {
    std::snprintf(buf, sizeof buf, "  %-13s %8.1f ms  %6lld aten ops  %4lld delegate calls  "
                                   "%4lld copies\n",
                  p.name.c_str(), p.ms, (long long)p.atenOps, (long long)p.delegateCalls,
                  (long long)p.copies);
    os << buf;
  }
  for (const Method &m : methods) {
    os << "== method " << m.name << "\n";
    os << "  " << m.atenOps << " ATen ops before partitioning, " << m.instructions
       << " instructions in the program\n";
    for (auto &[backend, n] : m.delegatedOps) {
      std::snprintf(buf, sizeof buf, "  %s: %lld ops delegated (%.1f%% of the graph)\n",
                    backend.c_str(), (long long)n,
                    m.atenOps ? 100.0 * static_cast<double>(n) / m.atenOps : 0.0);
      os << buf;
    }
    for (size_t d = 0; d < m.delegates.size(); ++d) {
      const Delegate &del = m.delegates[d];
      os << "  delegate " << d << " (" << del.backend << "): " << del.callSites
         << (del.callSites == 1 ? " call site" : " call sites sharing one handle");
      for (uint64_t b : del.scratchBytes)
        os << ", scratch " << b << " B";
      os << "\n";
    }
    os << "  write-back: " << m.copies.size() << " copies, " << m.inPlace << " in place, "
       << m.snapshots << " snapshots\n";
    for (const Copy &c : m.copies)
      os << "    copy into '" << c.state << "': "
         << (c.movedUp ? std::to_string(c.movedUp) + " ops before the end" : "at the end")
         << "\n";
    std::snprintf(buf, sizeof buf,
                  "  memory plan (%s): %lld bytes, lower bound %lld (ratio %.3f)\n",
                  m.planner.c_str(), (long long)m.planned, (long long)m.lowerBound,
                  m.lowerBound ? static_cast<double>(m.planned) / m.lowerBound : 1.0);
    os << buf;
  }
  os << "== refused (left on portable kernels): " << refusals.size() << " ops\n";
  for (const Refusal &r : refusals)
    os << "  " << r.method << ": " << r.op << " at " << r.location << ": " << r.reasons
       << "\n";
  os << "== output: " << fileSize << " bytes (program " << programSize << ")\n";
  for (size_t i = 0; i < segments.size(); ++i)
    os << "  segment " << i << ": " << segments[i].size << " bytes, "
       << segments[i].kind << "\n";
  os << "== warnings: " << warnings.size() << "\n";
  for (const std::string &w : warnings)
    os << "  " << w << "\n";
  return os.str();
}

std::string CompileReport::toJson() const {
  using llvm::json::Array;
  using llvm::json::Object;
  Array ph, ms, rf, sg, wn;
  for (const Phase &p : phases)
    ph.push_back(Object{{"name", p.name},
                        {"ms", p.ms},
                        {"aten_ops", p.atenOps},
                        {"delegate_calls", p.delegateCalls},
                        {"copies", p.copies}});
  for (const Method &m : methods) {
    Object delegated;
    for (auto &[backend, n] : m.delegatedOps)
      delegated[backend] = n;
    Array copies, delegates, arenas;
    for (const Copy &c : m.copies)
      copies.push_back(Object{{"state", c.state}, {"moved_up", c.movedUp}});
    for (const Delegate &d : m.delegates) {
      Array scratch;
      for (uint64_t b : d.scratchBytes)
        scratch.push_back(static_cast<int64_t>(b));
      delegates.push_back(Object{{"backend", d.backend},
                                 {"call_sites", d.callSites},
                                 {"scratch_bytes", std::move(scratch)}});
    }
    for (int64_t a : m.arenas)
      arenas.push_back(a);
    ms.push_back(Object{
        {"name", m.name},
        {"aten_ops", m.atenOps},
        {"instructions", m.instructions},
        {"delegated_ops", std::move(delegated)},
        {"delegates", std::move(delegates)},
        {"write_back", Object{{"copies", std::move(copies)},
                              {"in_place", m.inPlace},
                              {"snapshots", m.snapshots}}},
        {"memory_plan", Object{{"algorithm", m.planner},
                               {"planned_bytes", m.planned},
                               {"lower_bound_bytes", m.lowerBound},
                               {"arena_sizes", std::move(arenas)}}},
    });
  }
  for (const Refusal &r : refusals)
    rf.push_back(Object{{"method", r.method},
                        {"op", r.op},
                        {"location", r.location},
                        {"reasons", r.reasons}});
  for (const Segment &s : segments)
    sg.push_back(Object{{"kind", s.kind}, {"bytes", static_cast<int64_t>(s.size)}});
  for (const std::string &w : warnings)
    wn.push_back(w);
  Object root{{"schema", "ptec-compile-report"},
              {"version", kVersion},
              {"phases", std::move(ph)},
              {"methods", std::move(ms)},
              {"refused", std::move(rf)},
              {"output", Object{{"file_bytes", static_cast<int64_t>(fileSize)},
                                {"program_bytes", static_cast<int64_t>(programSize)},
                                {"segments", std::move(sg)}}},
              {"warnings", std::move(wn)}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return os.str();
}

} // namespace ptec
