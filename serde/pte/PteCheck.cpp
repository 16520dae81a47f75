#include "serde/pte/PteCheck.h"

#include "serde/pte/FlatbufferGet.h"

#include "runtime/executor/PteContainer.h"

#include "dialects/exir/schema/OperatorSchema.h"
#include "serde/pte/program_generated.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <utility>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

namespace {

constexpr uint8_t kNull = 1, kInt = 2, kBool = 3, kTensor = 5, kString = 6, kIntList = 7,
                  kDoubleList = 8, kBoolList = 9, kTensorList = 10, kOptTensorList = 11;

std::string num(uint64_t v) { return std::to_string(v); }
std::string snum(int64_t v) { return std::to_string(v); }
std::string at(const std::string &base, uint64_t i) { return base + "[" + num(i) + "]"; }

/// Element size of a valid ScalarType, 0 for an invalid one.
size_t elementSize(int st) {
  switch (st) {
  case 0: case 1: case 11: case 12: case 13: case 16: case 17: case 23: case 24: case 25:
  case 26: return 1;
  case 2: case 5: case 15: case 22: case 27: return 2;
  case 3: case 6: case 14: case 28: return 4;
  case 4: case 7: case 29: return 8;
  default: return 0;
  }
}

class Checker {
public:
  Checker(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  std::vector<Violation> run();

private:
  void error(const std::string &rule, const std::string &where, const std::string &msg) {
    add(Violation::Severity::Error, rule, where, msg);
  }
  void warning(const std::string &rule, const std::string &where, const std::string &msg) {
    add(Violation::Severity::Warning, rule, where, msg);
  }
  void add(Violation::Severity s, const std::string &rule, const std::string &where,
           const std::string &msg) {
    if (seen_.insert({rule, where}).second)
      out_.push_back({s, rule, where, msg});
  }
  bool checkContainer();
  void checkProgram(const fb::Program *p);
  void checkPlan(const std::string &P, const fb::ExecutionPlan *plan);
  void checkTensor(const std::string &V, const fb::Tensor *t,
                   const flatbuffers::Vector<int64_t> *arenas);
  void checkInstruction(const std::string &I, const fb::Instruction *ins, size_t ninstr,
                        std::vector<uint32_t> &uses);
  void checkKernelArgs(const std::string &I, const std::string *full,
                       const flatbuffers::Vector<int32_t> *args);

  const uint8_t *data_;
  size_t size_;
  std::vector<Violation> out_;
  std::set<std::pair<std::string, std::string>> seen_;

  // Container facts.
  rt::ContainerInfo info_;

  // Program facts the per-tensor checks need.
  const fb::Program *prog_ = nullptr;
  const flatbuffers::Vector<uint64_t> *constOffsets_ = nullptr;
  uint64_t constSize_ = 0;
  bool inlinePath_ = false;
  const flatbuffers::Vector<uint64_t> *mutOffsets_ = nullptr;
  uint64_t mutSize_ = 0;
  bool hasMut_ = false;
  size_t nseg_ = 0, ninline_ = 0;
  std::set<uint32_t> referenced_;

  // Per plan.
  const flatbuffers::Vector<flatbuffers::Offset<fb::EValue>> *values_ = nullptr;
  std::vector<uint8_t> tags_;
  std::vector<std::pair<bool, std::string>> ops_; ///< (has name, full name)
  size_t ndel_ = 0;
};

std::vector<Violation> Checker::run() {
  if (!checkContainer())
    return out_;
  checkProgram(fb::GetProgram(data_));
  return out_;
}

// Spec 2.2: the rules the runtime's loader applies, from the same code
// (runtime/executor/PteContainer), then the flatbuffers verifier.
bool Checker::checkContainer() {
  std::vector<rt::ContainerFinding> found;
  bool readable = rt::checkContainer(data_, size_, info_, found);
  for (const rt::ContainerFinding &f : found)
    add(f.error ? Violation::Severity::Error : Violation::Severity::Warning, f.rule, f.where,
        f.message);
  if (!readable)
    return false;
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 1u << 30;
  flatbuffers::Verifier v(data_, static_cast<size_t>(info_.programSize), opts);
  if (!fb::VerifyProgramBuffer(v)) {
    error("flatbuffer.verify", "root", "malformed flatbuffer (the FlatBuffers verifier failed)");
    return false;
  }
  return true;
}

void Checker::checkProgram(const fb::Program *p) {
  prog_ = p;
  const auto *segs = p->segments();
  nseg_ = segs ? segs->size() : 0;
  std::vector<rt::ContainerFinding> found;
  rt::checkSegments(info_, p, found);
  for (const rt::ContainerFinding &f : found)
    add(f.error ? Violation::Severity::Error : Violation::Severity::Warning, f.rule, f.where,
        f.message);

  const fb::SubsegmentOffsets *cs = p->constant_segment();
  const auto *cb = p->constant_buffer();
  const size_t ncb = cb ? cb->size() : 0;
  constOffsets_ = cs ? cs->offsets() : nullptr;
  if (constOffsets_ && constOffsets_->size() > 1) {
    if (ncb > 0)
      error("constant.both", "constant_segment",
            "constant_segment and the deprecated constant_buffer are both used");
    if (cs->segment_index() >= nseg_) {
      error("constant.segment-index", "constant_segment",
            "segment_index " + num(cs->segment_index()) + " out of range (" + num(nseg_) +
                " segments)");
    } else {
      constSize_ = segs->Get(cs->segment_index())->size();
      for (uint32_t i = 0; i < constOffsets_->size(); ++i) {
        uint64_t o = get8(constOffsets_, i);
        std::string w = at("constant_segment.offsets", i);
        if (o > constSize_)
          error("constant.offsets", w,
                "offset " + num(o) + " past the segment (" + num(constSize_) + " bytes)");
        else if (o % 16)
          warning("constant.alignment", w, "offset " + num(o) + " is not 16-byte aligned");
      }
    }
  }
  inlinePath_ = !constOffsets_ || constOffsets_->size() == 0;
  if (inlinePath_)
    warning("constant.segment-missing", "constant_segment",
            "no constant_segment offsets: loaders fall back to the deprecated path");
  if (ncb > 0)
    warning("constant.inline-deprecated", "constant_buffer",
            "the deprecated inline constant_buffer is used");

  if (const auto *ms = p->mutable_data_segments(); ms && ms->size() > 0) {
    const fb::SubsegmentOffsets *m0 = ms->Get(0);
    if (!m0->offsets()) {
      error("required.field", "mutable_data_segments[0].offsets", "missing");
    } else if (m0->segment_index() >= nseg_) {
      error("mutable.segment-index", "mutable_data_segments[0]",
            "segment_index " + num(m0->segment_index()) + " out of range");
    } else {
      hasMut_ = true;
      mutOffsets_ = m0->offsets();
      mutSize_ = segs->Get(m0->segment_index())->size();
    }
    if (ms->size() > 1)
      warning("mutable.count", "mutable_data_segments",
              num(ms->size()) + " entries; loaders use only the first");
  }
  if (const auto *nd = p->named_data())
    for (uint32_t i = 0; i < nd->size(); ++i) {
      if (!nd->Get(i)->key())
        error("required.field", at("named_data", i) + ".key", "missing");
      if (nd->Get(i)->segment_index() >= nseg_)
        error("named-data.segment-index", at("named_data", i), "segment out of range");
    }

  const auto *plans = p->execution_plan();
  if (!plans) {
    error("required.field", "execution_plan", "missing");
    return;
  }
  std::vector<std::string> present;
  std::set<std::string> names;
  for (uint32_t m = 0; m < plans->size(); ++m) {
    const auto *name = plans->Get(m)->name();
    if (!name)
      continue;
    if (!names.insert(name->str()).second)
      error("plan.name-duplicate", at("execution_plan", m), "duplicate name '" + name->str() + "'");
    present.push_back(name->str());
  }
  if (!std::is_sorted(present.begin(), present.end()))
    warning("plan.methods-sorted", "execution_plan", "methods are not sorted by name");
  ninline_ = p->backend_delegate_data() ? p->backend_delegate_data()->size() : 0;
  for (uint32_t m = 0; m < plans->size(); ++m)
    checkPlan(at("execution_plan", m), plans->Get(m));
  for (uint32_t i = 0; i < ninline_; ++i)
    if (!referenced_.count(i))
      warning("delegate.inline-unreferenced", at("backend_delegate_data", i),
              "no delegate references this inline blob");
}

void Checker::checkTensor(const std::string &V, const fb::Tensor *t,
                          const flatbuffers::Vector<int64_t> *arenas) {
  const auto *sizes = t->sizes();
  const auto *order = t->dim_order();
  if (!sizes || !order) {
    error("required.field", V + (!sizes ? ".sizes" : ".dim_order"), "missing");
    return;
  }
  int st = static_cast<int>(t->scalar_type());
  size_t es = elementSize(st);
  if (es == 0)
    error("tensor.scalar-type", V, "scalar_type " + snum(st) + " is not valid");
  if (t->storage_offset() != 0)
    error("tensor.storage-offset", V, "storage_offset must be 0");
  if (t->layout() != 0)
    error("tensor.layout", V, "layout must be 0 (strided)");
  int dyn = static_cast<int>(t->shape_dynamism());
  if (dyn != 0 && dyn != 1)
    error("tensor.dynamism", V, "shape_dynamism " + snum(dyn) + " (DYNAMIC_UNBOUND or unknown)");
  bool badShape = sizes->size() > 16 || order->size() != sizes->size();
  std::vector<bool> used(sizes->size(), false);
  for (uint32_t d = 0; !badShape && d < sizes->size(); ++d) {
    uint8_t o = order->Get(d);
    badShape = sizes->Get(d) < 0 || o >= sizes->size() || used[o];
    if (!badShape)
      used[o] = true;
  }
  if (badShape)
    error("tensor.shape", V, "sizes and dim_order do not describe a tensor");
  if (es == 0 || badShape)
    return;
  // Byte size with overflow detection; a zero dimension makes it 0.
  unsigned __int128 nb = es;
  bool zero = false;
  for (uint32_t d = 0; d < sizes->size(); ++d) {
    zero = zero || sizes->Get(d) == 0;
    if (nb < (unsigned __int128)1 << 64)
      nb *= static_cast<uint64_t>(sizes->Get(d));
  }
  if (zero)
    nb = 0;
  if (nb >= (unsigned __int128)1 << 63) {
    error("tensor.shape", V, "byte size overflows");
    return;
  }
  const uint64_t nbytes = static_cast<uint64_t>(nb);
  const fb::ExtraTensorInfo *extra = t->extra_tensor_info();
  if (extra && extra->device_type() != fb::DeviceType::CPU)
    warning("tensor.device", V,
            "device_type " + snum(static_cast<int>(extra->device_type())) + " (not CPU)");
  bool external = extra && extra->location() == fb::TensorDataLocation::EXTERNAL;
  if (external && !extra->fully_qualified_name())
    error("required.field", V + ".extra_tensor_info.fully_qualified_name", "missing");
  const fb::AllocationDetails *ai = t->allocation_info();
  const uint32_t idx = t->data_buffer_idx();
  if (ai) {
    uint32_t mid = ai->memory_id();
    uint64_t off = uint64_t(ai->memory_offset_high()) << 32 | ai->memory_offset_low();
    size_t narenas = arenas ? arenas->size() : 0;
    if (mid == 0 || mid >= narenas) {
      error("tensor.allocation", V, "memory_id " + num(mid) + " out of range");
    } else {
      int64_t arena = get8(arenas, mid);
      if (arena < 0 || off > uint64_t(arena) || nbytes > uint64_t(arena) - off)
        error("tensor.allocation", V,
              "[" + num(off) + ", +" + num(nbytes) + ") runs past arena " + num(mid) + " (" +
                  snum(arena) + " bytes)");
      else if (off % 16)
        warning("tensor.alignment", V, "planned offset " + num(off) + " is not 16-aligned");
    }
    if (idx > 0 && !external) {
      bool fits = hasMut_ && idx < mutOffsets_->size() &&
                  get8(mutOffsets_, idx) <= mutSize_ && nbytes <= mutSize_ - get8(mutOffsets_, idx);
      if (!fits)
        error("mutable.bounds", V,
              "initial data " + num(idx) + " not in the mutable segment");
    }
  } else if (idx > 0 && !external) {
    if (inlinePath_) {
      const auto *cb = prog_->constant_buffer();
      const fb::Buffer *b = cb && idx < cb->size() ? cb->Get(idx) : nullptr;
      if (!b || !b->storage() || b->storage()->size() < nbytes)
        error("constant.bounds", V,
              "constant_buffer[" + num(idx) + "] lacks " + num(nbytes) + " bytes");
    } else if (idx >= constOffsets_->size() || get8(constOffsets_, idx) > constSize_ ||
               nbytes > constSize_ - get8(constOffsets_, idx)) {
      error("constant.bounds", V,
            "constant " + num(idx) + ": " + num(nbytes) + " bytes not in the segment");
    }
  }
}

void Checker::checkPlan(const std::string &P, const fb::ExecutionPlan *plan) {
  const std::pair<const char *, bool> required[] = {
      {"name", plan->name() != nullptr},
      {"values", plan->values() != nullptr},
      {"inputs", plan->inputs() != nullptr},
      {"outputs", plan->outputs() != nullptr},
      {"non_const_buffer_sizes", plan->non_const_buffer_sizes() != nullptr},
      {"delegates", plan->delegates() != nullptr},
      {"chains", plan->chains() != nullptr}};
  for (const auto &[field, has] : required)
    if (!has)
      error("required.field", P + "." + field, "missing");
  values_ = plan->values();
  const size_t n = values_ ? values_->size() : 0;
  const auto *arenas = plan->non_const_buffer_sizes();
  if (arenas) {
    bool negative = false;
    for (flatbuffers::uoffset_t k = 0; k < arenas->size(); ++k)
      negative = negative || get8(arenas, k) < 0;
    if (arenas->size() == 0 || negative)
      error("plan.buffer-sizes", P + ".non_const_buffer_sizes", "empty or negative");
    else if (get8(arenas, 0) != 0)
      warning("plan.buffer-sizes", P + ".non_const_buffer_sizes",
              "entry 0 is reserved and should be 0");
  }
  // A value's kind; 0 when its tag is NONE, unknown or has no table.
  tags_.assign(n, 0);
  for (uint32_t v = 0; v < n; ++v) {
    const fb::EValue *ev = values_->Get(v);
    uint8_t tag = static_cast<uint8_t>(ev->val_type());
    tags_[v] = (tag >= kNull && tag <= kOptTensorList && ev->val()) ? tag : 0;
  }
  for (uint32_t v = 0; v < n; ++v) {
    const std::string V = at(P + ".values", v);
    const fb::EValue *ev = values_->Get(v);
    uint8_t tag = static_cast<uint8_t>(ev->val_type());
    if (tags_[v] == 0) {
      error("value.tag", V, "tag " + num(tag) + " without a known value table");
      continue;
    }
    if (tag == kTensor) {
      checkTensor(V, ev->val_as_Tensor(), arenas);
    } else if (tag == kIntList) {
      const auto *items = ev->val_as_IntList()->items();
      if (!items) {
        error("required.field", V + ".items", "missing");
        continue;
      }
      for (flatbuffers::uoffset_t k = 0; k < items->size(); ++k) {
        int64_t i = get8(items, k);
        if (i < 0 || uint64_t(i) >= n || tags_[i] != kInt)
          error("value.list-index", V, "IntList items must index Int values");
      }
    } else if (tag == kTensorList || tag == kOptTensorList) {
      const auto *items = tag == kTensorList ? ev->val_as_TensorList()->items()
                                             : ev->val_as_OptionalTensorList()->items();
      if (!items) {
        error("required.field", V + ".items", "missing");
        continue;
      }
      for (int32_t i : *items) {
        if (tag == kOptTensorList && i == -1)
          continue;
        bool ok = i >= 0 && uint32_t(i) < v &&
                  (tags_[i] == kTensor || (tag == kOptTensorList && tags_[i] == kNull));
        if (!ok)
          error("value.list-index", V, "item " + snum(i) + " is not an earlier tensor");
      }
    } else if (tag == kDoubleList || tag == kBoolList) {
      bool has = tag == kDoubleList ? ev->val_as_DoubleList()->items() != nullptr
                                    : ev->val_as_BoolList()->items() != nullptr;
      if (!has)
        error("required.field", V + ".items", "missing");
    } else if (tag == kString && !ev->val_as_String()->string_val()) {
      error("required.field", V + ".string_val", "missing");
    }
  }
  for (const char *kind : {"inputs", "outputs"}) {
    const auto *io = std::strcmp(kind, "inputs") == 0 ? plan->inputs() : plan->outputs();
    if (io)
      for (uint32_t i = 0; i < io->size(); ++i)
        if (io->Get(i) < 0 || uint64_t(io->Get(i)) >= n)
          error("plan.io-index", at(P + "." + kind, i),
                "value " + snum(io->Get(i)) + " out of range");
  }

  ops_.clear();
  std::set<std::string> fullNames;
  if (const auto *ops = plan->operators())
    for (uint32_t k = 0; k < ops->size(); ++k) {
      const fb::Operator *op = ops->Get(k);
      if (!op->name()) {
        error("required.field", at(P + ".operators", k) + ".name", "missing");
        ops_.push_back({false, ""});
        continue;
      }
      std::string full = op->name()->str();
      if (op->overload() && op->overload()->size() > 0)
        full += "." + op->overload()->str();
      if (full.size() >= 100)
        error("operator.name", at(P + ".operators", k), "name is 100 characters or more");
      if (!fullNames.insert(full).second)
        warning("operator.duplicate", at(P + ".operators", k), full + " listed twice");
      ops_.push_back({true, full});
    }

  const auto *dels = plan->delegates();
  ndel_ = dels ? dels->size() : 0;
  for (uint32_t d = 0; d < ndel_; ++d) {
    const std::string D = at(P + ".delegates", d);
    const fb::BackendDelegate *bd = dels->Get(d);
    if (!bd->id())
      error("required.field", D + ".id", "missing");
    if (const fb::BackendDelegateDataReference *ref = bd->processed()) {
      int loc = static_cast<int>(ref->location());
      uint32_t idx = ref->index();
      if (loc == 0 && idx < ninline_)
        referenced_.insert(idx);
      if ((loc != 0 && loc != 1) || idx >= (loc == 0 ? ninline_ : nseg_))
        error("delegate.processed", D,
              "location " + snum(loc) + " index " + num(idx) + " out of range");
    } else {
      error("required.field", D + ".processed", "missing");
    }
    if (const auto *specs = bd->compile_specs())
      for (uint32_t j = 0; j < specs->size(); ++j) {
        if (!specs->Get(j)->key())
          error("required.field", at(D + ".compile_specs", j) + ".key", "missing");
        if (!specs->Get(j)->value())
          error("required.field", at(D + ".compile_specs", j) + ".value", "missing");
      }
  }

  const auto *chains = plan->chains();
  if (chains && chains->size() == 0)
    error("plan.chains", P + ".chains", "no chain");
  else if (chains && chains->size() > 1)
    warning("plan.chains", P + ".chains", num(chains->size()) + " chains; writers emit one");
  std::vector<uint32_t> uses(ndel_, 0);
  for (uint32_t c = 0; chains && c < chains->size(); ++c) {
    const auto *instrs = chains->Get(c)->instructions();
    if (!instrs) {
      error("required.field", at(P + ".chains", c) + ".instructions", "missing");
      continue;
    }
    for (uint32_t i = 0; i < instrs->size(); ++i)
      checkInstruction(at(at(P + ".chains", c) + ".instructions", i), instrs->Get(i),
                       instrs->size(), uses);
  }
  for (uint32_t d = 0; d < ndel_; ++d)
    if (uses[d] > 1 && dels->Get(d)->scratch() && dels->Get(d)->scratch()->size() > 0)
      error("delegate.scratch-shared", at(P + ".delegates", d),
            "a delegate with scratch is used by " + num(uses[d]) + " calls");
}

void Checker::checkInstruction(const std::string &I, const fb::Instruction *ins,
                               size_t ninstr, std::vector<uint32_t> &uses) {
  const size_t n = tags_.size();
  auto bad = [&](int64_t idx) { return idx < 0 || uint64_t(idx) >= n; };
  uint8_t tag = static_cast<uint8_t>(ins->instr_args_type());
  if (tag < 1 || tag > 5 || !ins->instr_args()) {
    error("instruction.tag", I, "tag " + num(tag) + " without a known instruction table");
    return;
  }
  switch (ins->instr_args_type()) {
  case fb::InstructionArguments::KernelCall:
  case fb::InstructionArguments::DelegateCall: {
    const bool kernel = ins->instr_args_type() == fb::InstructionArguments::KernelCall;
    const auto *args = kernel ? ins->instr_args_as_KernelCall()->args()
                              : ins->instr_args_as_DelegateCall()->args();
    if (!args) {
      error("required.field", I + ".args", "missing");
      return;
    }
    for (int32_t a : *args)
      if (bad(a)) {
        error("instruction.index", I, "an argument is out of range (" + num(n) + " values)");
        return;
      }
    if (!kernel) {
      int32_t d = ins->instr_args_as_DelegateCall()->delegate_index();
      if (d < 0 || uint64_t(d) >= ndel_)
        error("instruction.index", I, "delegate_index " + snum(d) + " out of range");
      else
        ++uses[d];
      return;
    }
    int32_t k = ins->instr_args_as_KernelCall()->op_index();
    if (k < 0 || uint64_t(k) >= ops_.size()) {
      error("instruction.index", I, "op_index " + snum(k) + " out of range");
      return;
    }
    checkKernelArgs(I, ops_[k].first ? &ops_[k].second : nullptr, args);
    return;
  }
  case fb::InstructionArguments::MoveCall: {
    const fb::MoveCall *mc = ins->instr_args_as_MoveCall();
    if (bad(mc->move_from()) || bad(mc->move_to()))
      error("instruction.index", I, "MoveCall index out of range");
    return;
  }
  case fb::InstructionArguments::JumpFalseCall: {
    const fb::JumpFalseCall *jf = ins->instr_args_as_JumpFalseCall();
    int32_t cond = jf->cond_value_index();
    if (bad(cond)) {
      error("instruction.index", I, "condition " + snum(cond) + " out of range");
    } else {
      bool isBool = tags_[cond] == kBool ||
                    (tags_[cond] == kTensor && values_->Get(cond)->val_as_Tensor()->scalar_type() ==
                                                   fb::ScalarType::BOOL);
      if (!isBool)
        error("instruction.jump", I, "condition " + snum(cond) + " is not a Bool");
    }
    int32_t dest = jf->destination_instruction();
    if (dest < 0 || uint64_t(dest) > ninstr)
      error("instruction.jump", I, "destination " + snum(dest) + " out of range");
    return;
  }
  case fb::InstructionArguments::FreeCall: {
    int32_t v = ins->instr_args_as_FreeCall()->value_index();
    if (bad(v))
      error("instruction.index", I, "value " + snum(v) + " out of range");
    else if (tags_[v] != kTensor)
      error("instruction.free", I, "value " + snum(v) + " is not a tensor");
    return;
  }
  default:
    return;
  }
}

/// The alias set name of a schema type ("a" for Tensor(a!)), or "".
std::string aliasSet(const schema::Argument &a) {
  const schema::AliasInfo *info = a.alias();
  return info && !info->beforeSets.empty() ? info->beforeSets.front() : std::string();
}

// Spec 4: schema arguments + 1 entries; the last one is the written
// argument again (one return or ()), or a TensorList of them.
void Checker::checkKernelArgs(const std::string &I, const std::string *full,
                              const flatbuffers::Vector<int32_t> *args) {
  if (!full)
    return;
  const schema::FunctionSchema *s = schema::OperatorRegistry::builtin().lookup(*full);
  if (!s)
    return;
  const size_t want = s->arguments.size() + 1;
  if (args->size() != want) {
    error("kernel.arg-count", I,
          *full + " has " + num(args->size()) + " args, expected " + num(want) + " (" +
              num(want - 1) + " schema arguments + 1)");
    return;
  }
  std::map<std::string, size_t> written;
  int lastWritten = -1;
  for (size_t j = 0; j < s->arguments.size(); ++j)
    if (s->arguments[j].isWrite()) {
      written[aliasSet(s->arguments[j])] = j;
      lastWritten = static_cast<int>(j);
    }
  const int32_t ret = args->Get(args->size() - 1);
  auto listItems = [&](int32_t v) -> const flatbuffers::Vector<int32_t> * {
    return tags_[v] == kTensorList ? values_->Get(v)->val_as_TensorList()->items() : nullptr;
  };
  if (s->returns.empty()) {
    if (lastWritten < 0)
      return;
    int32_t wantIdx = args->Get(lastWritten);
    const auto *a = listItems(ret), *b = listItems(wantIdx);
    bool sameList = a && b && a->size() == b->size() &&
                    std::equal(a->begin(), a->end(), b->begin());
    if (ret != wantIdx && !sameList)
      error("kernel.return", I, *full + " returns (): the last entry must be the out argument");
    return;
  }
  std::vector<int32_t> expect;
  for (const schema::Argument &r : s->returns) {
    std::string set = aliasSet(r);
    auto it = set.empty() ? written.end() : written.find(set);
    if (it == written.end())
      return; // a functional return; nothing to compare with
    expect.push_back(args->Get(static_cast<flatbuffers::uoffset_t>(it->second)));
  }
  if (s->returns.size() == 1 && s->returns.front().type.kind != schema::TypeKind::List) {
    if (ret != expect.front())
      error("kernel.return", I,
            *full + ": the last entry must be the out argument (value " + snum(expect.front()) +
                ")");
    return;
  }
  const auto *items = listItems(ret);
  if (!items || items->size() != expect.size() ||
      !std::equal(items->begin(), items->end(), expect.begin()))
    error("kernel.return", I, *full + ": the last entry must be a TensorList of the outs");
}

} // namespace

std::vector<Violation> checkPte(const uint8_t *data, size_t size) {
  return Checker(data, size).run();
}

size_t formatViolations(const std::string &file, const std::vector<Violation> &v,
                        std::string *out) {
  size_t errors = 0, warnings = 0;
  for (const Violation &x : v) {
    bool err = x.severity == Violation::Severity::Error;
    (err ? errors : warnings)++;
    *out += file + ": " + (err ? "error" : "warning") + ": [" + x.rule + "] " + x.where + ": " +
            x.message + "\n";
  }
  if (v.empty())
    *out += file + ": ok\n";
  else
    *out += file + ": " + num(errors) + (errors == 1 ? " error, " : " errors, ") + num(warnings) +
            (warnings == 1 ? " warning\n" : " warnings\n");
  return errors;
}

} // namespace ptec::pte
