// Loading a plan's instructions: operand indices of every instruction kind,
// operator resolution against the KernelResolver (with the dim orders each
// kernel accepts) and the DelegateCall sites that delegate loading checks.
#include "runtime/executor/MethodLoader.h"

#include "runtime/executor/DimOrderCheck.h"

#include <cstring>

namespace ptec::rt {

Error Method::Loader::checkArgs(size_t pc, const char *what,
                                const flatbuffers::Vector<int32_t> *args, Span<EValue *> &out) {
  if (args == nullptr)
    return fail(Error::InvalidProgram, "instruction %zu: %s args is missing", pc, what);
  size_t n = args->size();
  EValue **ptrs = alloc<EValue *>(n);
  if (ptrs == nullptr)
    return outOfMemory("instruction args");
  for (size_t k = 0; k < n; ++k) {
    int32_t idx = args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (idx < 0 || static_cast<size_t>(idx) >= m_.numValues_)
      return fail(Error::InvalidProgram, "instruction %zu: %s arg %zu = %d out of range (%zu values)",
                  pc, what, k, idx, m_.numValues_);
    ptrs[k] = &m_.values_[idx];
  }
  out = Span<EValue *>(ptrs, n);
  return Error::Ok;
}

Error Method::Loader::loadInstructions() {
  const fb::Chain *chain = plan_.chains()->Get(0);
  if (chain == nullptr || chain->instructions() == nullptr)
    return fail(Error::InvalidProgram, "chains[0].instructions is missing");
  const auto *instrs = chain->instructions();
  m_.numInstrs_ = instrs->size();
  m_.instrs_ = alloc<Instr>(m_.numInstrs_);
  if (m_.instrs_ == nullptr)
    return outOfMemory("instructions");

  const auto *ops = plan_.operators();
  m_.numOps_ = ops ? ops->size() : 0;
  m_.ops_ = alloc<Op>(m_.numOps_);
  if (m_.ops_ == nullptr)
    return outOfMemory("operators");
  const size_t numDelegates = plan_.delegates()->size();
  delegateUses_.assign(numDelegates, 0);
  delegateFirstUse_.assign(numDelegates, 0);
  delegateSecondUse_.assign(numDelegates, 0);

  for (size_t pc = 0; pc < m_.numInstrs_; ++pc) {
    const fb::Instruction *ins = instrs->Get(static_cast<flatbuffers::uoffset_t>(pc));
    if (ins == nullptr)
      return fail(Error::InvalidProgram, "instruction %zu is null", pc);
    Instr &out = m_.instrs_[pc];
    auto valueIndex = [&](int32_t v, const char *field, uint32_t &dst) {
      if (v < 0 || static_cast<size_t>(v) >= m_.numValues_)
        return fail(Error::InvalidProgram, "instruction %zu: %s %d out of range (%zu values)", pc,
                    field, v, m_.numValues_);
      dst = static_cast<uint32_t>(v);
      return Error::Ok;
    };
    const fb::InstructionArguments kind = ins->instr_args_type();
    // Every known kind names a table, which must be there.
    if (kind > fb::InstructionArguments::NONE && kind <= fb::InstructionArguments::MAX &&
        ins->instr_args() == nullptr)
      return fail(Error::InvalidProgram, "instruction %zu: %s table is missing", pc,
                  fb::EnumNameInstructionArguments(kind));
    switch (kind) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall *kc = ins->instr_args_as_KernelCall();
      int32_t op = kc->op_index();
      if (op < 0 || static_cast<size_t>(op) >= m_.numOps_)
        return fail(Error::InvalidProgram,
                    "instruction %zu: KernelCall op_index %d out of range (%zu operators)", pc,
                    op, m_.numOps_);
      out.kind = Kind::Kernel;
      out.a = static_cast<uint32_t>(op);
      PTEC_TRY(checkArgs(pc, "KernelCall", kc->args(), out.args));
      m_.ops_[op].used = true;
      break;
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall *dc = ins->instr_args_as_DelegateCall();
      int32_t d = dc->delegate_index();
      if (d < 0 || static_cast<size_t>(d) >= numDelegates)
        return fail(Error::InvalidProgram,
                    "instruction %zu: DelegateCall delegate_index %d out of range (%zu "
                    "delegates)",
                    pc, d, numDelegates);
      out.kind = Kind::Delegate;
      out.a = static_cast<uint32_t>(d);
      PTEC_TRY(checkArgs(pc, "DelegateCall", dc->args(), out.args));
      if (delegateUses_[d] == 0)
        delegateFirstUse_[d] = pc;
      else if (delegateUses_[d] == 1)
        delegateSecondUse_[d] = pc;
      ++delegateUses_[d];
      break;
    }
    case fb::InstructionArguments::MoveCall: {
      const fb::MoveCall *mc = ins->instr_args_as_MoveCall();
      out.kind = Kind::Move;
      PTEC_TRY(valueIndex(mc->move_from(), "MoveCall move_from", out.a));
      PTEC_TRY(valueIndex(mc->move_to(), "MoveCall move_to", out.b));
      // Kernel layouts are checked per value at load; a move must not bring
      // a tensor of another dim order into a value a kernel reads.
      const EValue &from = m_.values_[out.a], &to = m_.values_[out.b];
      if (from.isTensor() && to.isTensor() &&
          !(from.toTensor().isContiguous() && to.toTensor().isContiguous()) &&
          !from.toTensor().sameDimOrder(to.toTensor()))
        return fail(Error::NotSupported,
                    "instruction %zu: MoveCall from value %u (dim_order %s) to value %u "
                    "(dim_order %s)",
                    pc, out.a, dimOrderString(from.toTensor()).c_str(), out.b,
                    dimOrderString(to.toTensor()).c_str());
      break;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall *jf = ins->instr_args_as_JumpFalseCall();
      out.kind = Kind::JumpFalse;
      PTEC_TRY(valueIndex(jf->cond_value_index(), "JumpFalseCall cond_value_index", out.a));
      const EValue &c = m_.values_[out.a];
      if (!c.isBool() && !(c.isTensor() && c.toTensor().dtype() == ScalarType::Bool))
        return fail(Error::InvalidProgram,
                    "instruction %zu: JumpFalseCall condition (value %u) is not a Bool or a "
                    "bool tensor",
                    pc, out.a);
      int32_t dest = jf->destination_instruction();
      // Destination == instruction count means "jump to the end".
      if (dest < 0 || static_cast<size_t>(dest) > m_.numInstrs_)
        return fail(Error::InvalidProgram,
                    "instruction %zu: JumpFalseCall destination %d out of range (%zu "
                    "instructions)",
                    pc, dest, m_.numInstrs_);
      out.b = static_cast<uint32_t>(dest);
      break;
    }
    case fb::InstructionArguments::FreeCall: {
      const fb::FreeCall *fc = ins->instr_args_as_FreeCall();
      out.kind = Kind::Free;
      PTEC_TRY(valueIndex(fc->value_index(), "FreeCall value_index", out.a));
      if (!m_.values_[out.a].isTensor())
        return fail(Error::InvalidProgram, "instruction %zu: FreeCall value %u is not a tensor",
                    pc, out.a);
      break;
    }
    default:
      return fail(Error::InvalidProgram, "instruction %zu: unknown instruction type tag %u", pc,
                  static_cast<unsigned>(ins->instr_args_type()));
    }
  }

  // Resolve every operator a KernelCall uses; report all missing ones at once.
  std::string missing;
  size_t numMissing = 0;
  for (size_t k = 0; k < m_.numOps_; ++k) {
    Op &op = m_.ops_[k];
    if (!op.used)
      continue;
    const fb::Operator *o = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (o == nullptr || o->name() == nullptr)
      return fail(Error::InvalidProgram, "operators[%zu].name is missing", k);
    std::string full = o->name()->str();
    if (o->overload() != nullptr && o->overload()->size() > 0)
      full += "." + o->overload()->str();
    char *name = alloc<char>(full.size() + 1);
    if (name == nullptr)
      return outOfMemory("operator names");
    std::memcpy(name, full.c_str(), full.size() + 1);
    op.fullName = name;
    const KernelEntry *e = kernels_.find(name);
    if (e == nullptr || e->fn == nullptr) {
      missing += (numMissing++ ? ", " : "") + full;
      continue;
    }
    op.fn = e->fn;
    // Upstream's generated kernel wrappers take exactly schema arguments + 1
    // entries; check every call site here so a wrong emission fails at load.
    for (size_t pc = 0; pc < m_.numInstrs_; ++pc) {
      const Instr &in = m_.instrs_[pc];
      if (in.kind != Kind::Kernel || in.a != k)
        continue;
      if (e->numArgs < 1 || in.args.size() != static_cast<size_t>(e->numArgs))
        return fail(Error::InvalidProgram,
                    "instruction %zu (%s): KernelCall has %zu args, the kernel takes exactly "
                    "%d (%d schema arguments + 1 return)",
                    pc, name, in.args.size(), e->numArgs, e->numArgs - 1);
      std::string why;
      if (!kernelAcceptsDimOrders(e->dimOrders, {in.args.data(), in.args.size()}, m_.values_,
                                  &why))
        return fail(Error::NotSupported, "instruction %zu (%s): %s", pc, name, why.c_str());
    }
  }
  if (numMissing > 0) {
    // Built as a string, not through the fixed-size formatter: the list of
    // names may be long and must not be cut short.
    if (detail_ != nullptr)
      *detail_ = std::string("plan '") + m_.name_ + "' " + std::to_string(numMissing) +
                 (numMissing == 1 ? " operator" : " operators") + " without a kernel: " + missing;
    return Error::OperatorMissing;
  }

  // A delegate with scratch has per-call-site memory: it may not be shared.
  for (size_t d = 0; d < numDelegates; ++d) {
    const fb::BackendDelegate *bd = plan_.delegates()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (bd != nullptr && bd->scratch() != nullptr && bd->scratch()->size() > 0 &&
        delegateUses_[d] > 1)
      return fail(Error::InvalidProgram,
                  "delegate %zu declares scratch memory but is used by %u DelegateCalls "
                  "(instructions %zu and %zu); a delegate with scratch cannot be shared",
                  d, delegateUses_[d], delegateFirstUse_[d], delegateSecondUse_[d]);
  }
  return Error::Ok;
}

} // namespace ptec::rt
