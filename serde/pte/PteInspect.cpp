#include "serde/pte/PteInspect.h"

#include "runtime/executor/PteContainer.h"
#include "serde/io/InputFile.h"

#include "flatbuffers/idl.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

namespace {

const char kSchemaBytes[] = {
#include "serde/pte/program_fbs_text.inc"
};

std::string hexBytes(const uint8_t *p, size_t n) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    s += buf;
  }
  return s;
}

uint64_t fnv1a(const uint8_t *d, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

bool fail(std::string *err, const std::string &msg) {
  if (err)
    *err = msg;
  return false;
}

std::string num(uint64_t v) { return std::to_string(v); }

// Narrows a verifier failure down to one method where possible.
std::string locateVerifyFailure(const uint8_t *data, size_t size) {
  flatbuffers::Verifier v(data, size);
  auto *root = reinterpret_cast<const flatbuffers::Table *>(
      data + flatbuffers::ReadScalar<uint32_t>(data));
  if (!v.VerifyTableStart(reinterpret_cast<const uint8_t *>(root)))
    return "the root Program table at offset " +
           num(flatbuffers::ReadScalar<uint32_t>(data)) + " is malformed";
  auto *prog = reinterpret_cast<const fb::Program *>(root);
  flatbuffers::Verifier vp(data, size);
  if (!vp.VerifyTableStart(reinterpret_cast<const uint8_t *>(prog)) ||
      !root->VerifyOffset(vp, fb::Program::VT_EXECUTION_PLAN) ||
      !vp.VerifyVector(prog->execution_plan()))
    return "Program.execution_plan is malformed";
  if (auto *plans = prog->execution_plan())
    for (uint32_t i = 0; i < plans->size(); ++i) {
      flatbuffers::Verifier vi(data, size);
      if (!vi.VerifyTable(plans->Get(i)))
        return "Program.execution_plan[" + num(i) + "] is malformed";
    }
  return "a Program field outside execution_plan is malformed";
}

// The reader rules of spec section 2.2, from the code the runtime's loader
// runs (runtime/executor/PteContainer): whatever it refuses, this refuses
// with the same message.
bool checkContainer(const uint8_t *data, size_t size, PteView *view,
                    std::string *err) {
  view->data = data;
  view->size = size;
  view->programSize = size;
  rt::ContainerInfo info;
  std::vector<rt::ContainerFinding> found;
  rt::checkContainer(data, size, info, found);
  ExtendedHeaderInfo &h = view->header;
  h.present = info.hasHeader;
  h.length = info.headerLength;
  h.programSize = info.hasHeader ? info.programSize : 0;
  h.segmentBaseOffset = info.segmentBaseOffset;
  h.segmentDataSize = info.segmentDataSize;
  if (const rt::ContainerFinding *f = rt::firstRefusal(found))
    return fail(err, f->message);
  view->programSize = static_cast<size_t>(info.programSize);
  // Large models have millions of tables; depth stays small.
  flatbuffers::Verifier v(data, view->programSize, 64, 1u << 30);
  if (!fb::VerifyProgramBuffer(v))
    return fail(err, "flatbuffer verification failed: " +
                         locateVerifyFailure(data, view->programSize));
  view->program = fb::GetProgram(data);
  return true;
}

uint64_t segmentCount(const fb::Program *p) {
  return p->segments() ? p->segments()->size() : 0;
}

// The verifier checks 4-byte alignment of vectors only; 8-byte elements
// must be 8-aligned before anything reads them. An empty vector has none to
// read (a `full([])` size list), wherever its length word lies.
template <typename T>
bool vectorAligned(const PteView &v, const flatbuffers::Vector<T> *vec,
                   const std::string &w, std::string *err) {
  if (!vec || vec->size() == 0)
    return true;
  auto at = static_cast<uint64_t>(vec->Data() - v.data);
  if (at % sizeof(T) == 0)
    return true;
  return fail(err, w + ": " + num(sizeof(T)) + "-byte elements at offset " +
                       num(at) + " are misaligned");
}

// Cross-references the verifier cannot see: indices into segments and
// inline data, and segment bounds.
bool checkReferences(const PteView &v, std::string *err) {
  const fb::Program *p = v.program;
  uint64_t nseg = segmentCount(p);
  rt::ContainerInfo info;
  info.fileSize = v.size;
  info.hasHeader = v.header.present;
  info.headerLength = v.header.length;
  info.programSize = v.programSize;
  info.segmentBaseOffset = v.header.segmentBaseOffset;
  info.segmentDataSize = v.header.segmentDataSize;
  std::vector<rt::ContainerFinding> found;
  rt::checkSegments(info, p, found);
  for (const rt::ContainerFinding &f : found)
    if (f.rule.rfind("segment.", 0) == 0)
      return fail(err, "Program." + f.message);
  auto checkSub = [&](const fb::SubsegmentOffsets *sub,
                      const std::string &w) -> bool {
    if (!vectorAligned(v, sub->offsets(), w + ".offsets", err))
      return false;
    if (!sub->offsets() || sub->offsets()->size() <= 1)
      return true;
    if (sub->segment_index() >= nseg)
      return fail(err, w + ".segment_index " + num(sub->segment_index()) +
                           " is out of range (" + num(nseg) + " segments)");
    uint64_t segSize = p->segments()->Get(sub->segment_index())->size();
    for (uint32_t i = 0; i < sub->offsets()->size(); ++i)
      if (sub->offsets()->Get(i) > segSize)
        return fail(err, w + ".offsets[" + num(i) + "] = " +
                             num(sub->offsets()->Get(i)) +
                             " is beyond the segment size " + num(segSize));
    return true;
  };
  if (p->constant_segment() &&
      !checkSub(p->constant_segment(), "Program.constant_segment"))
    return false;
  if (auto *ms = p->mutable_data_segments())
    for (uint32_t i = 0; i < ms->size(); ++i)
      if (!checkSub(ms->Get(i), "Program.mutable_data_segments[" + num(i) + "]"))
        return false;
  if (auto *nd = p->named_data())
    for (uint32_t i = 0; i < nd->size(); ++i)
      if (nd->Get(i)->segment_index() >= nseg)
        return fail(err, "Program.named_data[" + num(i) + "].segment_index " +
                             num(nd->Get(i)->segment_index()) +
                             " is out of range (" + num(nseg) + " segments)");
  if (!p->execution_plan())
    return fail(err, "Program.execution_plan is missing");
  uint64_t ninline = p->backend_delegate_data() ? p->backend_delegate_data()->size() : 0;
  for (uint32_t m = 0; m < p->execution_plan()->size(); ++m) {
    auto *plan = p->execution_plan()->Get(m);
    std::string pw = "Program.execution_plan[" + num(m) + "]";
    if (!vectorAligned(v, plan->non_const_buffer_sizes(),
                       pw + ".non_const_buffer_sizes", err))
      return false;
    // A union tag without its table passes the verifier; reject it here.
    if (auto *values = plan->values())
      for (uint32_t i = 0; i < values->size(); ++i) {
        auto *ev = values->Get(i);
        if (ev->val_type() != fb::KernelTypes::NONE && !ev->val())
          return fail(err, pw + ".values[" + num(i) + "]: tag " +
                               num(static_cast<uint8_t>(ev->val_type())) +
                               " without a value");
        if (ev->val_type() == fb::KernelTypes::NONE && ev->val())
          return fail(err, pw + ".values[" + num(i) + "]: a value without a tag");
        std::string vw = pw + ".values[" + num(i) + "].items";
        if (auto *il = ev->val_as_IntList())
          if (!vectorAligned(v, il->items(), vw, err))
            return false;
        if (auto *dl = ev->val_as_DoubleList())
          if (!vectorAligned(v, dl->items(), vw, err))
            return false;
      }
    if (auto *chains = plan->chains())
      for (uint32_t c = 0; c < chains->size(); ++c)
        if (auto *instrs = chains->Get(c)->instructions())
          for (uint32_t i = 0; i < instrs->size(); ++i)
            if (!instrs->Get(i)->instr_args() ||
                instrs->Get(i)->instr_args_type() == fb::InstructionArguments::NONE)
              return fail(err, pw + ".chains[" + num(c) + "].instructions[" +
                                   num(i) + "]: instr_args or its tag is missing");
    auto *ds = plan->delegates();
    if (!ds)
      continue;
    for (uint32_t d = 0; d < ds->size(); ++d) {
      std::string w = "Program.execution_plan[" + num(m) + "].delegates[" +
                      num(d) + "].processed";
      auto *ref = ds->Get(d)->processed();
      if (!ref)
        return fail(err, w + " is missing");
      bool seg = ref->location() == fb::DataLocation::SEGMENT;
      uint64_t limit = seg ? nseg : ninline;
      if (ref->index() >= limit)
        return fail(err, w + ".index " + num(ref->index()) + " is out of range (" +
                             num(limit) +
                             (seg ? " segments)" : " inline delegate data entries)"));
    }
  }
  return true;
}

std::string specValue(const fb::CompileSpec *s) {
  auto *v = s->value();
  if (!v)
    return "(no value)";
  const uint8_t *d = v->data();
  size_t n = v->size();
  bool text = n > 1;
  for (size_t i = 0; i < n && text; ++i)
    text = d[i] >= 32 && d[i] < 127;
  if (text)
    return "\"" + std::string(d, d + n) + "\"";
  std::string s2 = "0x" + hexBytes(d, std::min<size_t>(n, 16)) +
                   (n > 16 ? "..." : "");
  return s2 + " (" + num(n) + (n == 1 ? " byte)" : " bytes)");
}

std::string plural(uint64_t n, const std::string &word) {
  return num(n) + " " + word + (n == 1 ? "" : "s");
}

} // namespace

std::string dtypeName(fb::ScalarType t) {
  using S = fb::ScalarType;
  switch (t) {
  case S::BYTE: return "uint8";
  case S::CHAR: return "int8";
  case S::SHORT: return "int16";
  case S::INT: return "int32";
  case S::LONG: return "int64";
  case S::HALF: return "float16";
  case S::FLOAT: return "float32";
  case S::DOUBLE: return "float64";
  case S::BOOL: return "bool";
  case S::BFLOAT16: return "bfloat16";
  case S::UINT16: return "uint16";
  case S::UINT32: return "uint32";
  case S::UINT64: return "uint64";
  default: {
    const char *n = fb::EnumNameScalarType(t);
    if (n && *n)
      return n;
    return "ScalarType(" + std::to_string(static_cast<int>(t)) + ")";
  }
  }
}

std::string describeValue(const fb::ExecutionPlan *plan, int64_t idx) {
  auto *values = plan->values();
  if (!values || idx < 0 || static_cast<uint64_t>(idx) >= values->size())
    return "%" + std::to_string(idx) + " (out of range)";
  auto *ev = values->Get(static_cast<uint32_t>(idx));
  std::ostringstream os;
  os << "%" << idx << " ";
  switch (ev->val_type()) {
  case fb::KernelTypes::Tensor: {
    auto *t = ev->val_as_Tensor();
    os << "Tensor " << dtypeName(t->scalar_type()) << "[";
    if (t->sizes())
      for (uint32_t i = 0; i < t->sizes()->size(); ++i)
        os << (i ? ", " : "") << t->sizes()->Get(i);
    os << "]";
    if (t->shape_dynamism() != fb::TensorShapeDynamism::STATIC)
      os << " " << fb::EnumNameTensorShapeDynamism(t->shape_dynamism());
    if (auto *a = t->allocation_info())
      os << " planned mem " << a->memory_id() << " @ "
         << ((uint64_t{a->memory_offset_high()} << 32) | a->memory_offset_low());
    if (t->data_buffer_idx() > 0)
      os << (t->allocation_info() ? " initial data " : " constant ")
         << t->data_buffer_idx();
    if (auto *x = t->extra_tensor_info();
        x && x->location() == fb::TensorDataLocation::EXTERNAL)
      os << " external key '"
         << (x->fully_qualified_name() ? x->fully_qualified_name()->str() : "")
         << "'";
    else if (x && x->fully_qualified_name()) // a mutable buffer (--emit-state-names)
      os << " state '" << x->fully_qualified_name()->str() << "'";
    break;
  }
  case fb::KernelTypes::Int:
    os << "Int " << ev->val_as_Int()->int_val();
    break;
  case fb::KernelTypes::Double:
    os << "Double " << ev->val_as_Double()->double_val();
    break;
  case fb::KernelTypes::Bool:
    os << "Bool " << (ev->val_as_Bool()->bool_val() ? "true" : "false");
    break;
  default: {
    const char *n = fb::EnumNameKernelTypes(ev->val_type());
    os << (n && *n ? n : "unknown value kind");
  }
  }
  return os.str();
}


const std::string &embeddedProgramSchema() {
  static const std::string text(kSchemaBytes, sizeof kSchemaBytes);
  return text;
}

bool openPte(const uint8_t *data, size_t size, PteView *view, std::string *err) {
  *view = PteView{};
  PteView v;
  if (!data && size > 0)
    return fail(err, "no data");
  if (!checkContainer(data, size, &v, err) || !checkReferences(v, err))
    return false;
  *view = v;
  return true;
}

std::string summarizePte(const PteView &v, const std::string &fileName) {
  std::ostringstream os;
  const fb::Program *p = v.program;
  os << (fileName.empty() ? std::string("<memory>") : fileName) << ": "
     << v.size << " bytes, identifier ET12, program version " << p->version()
     << "\n";
  if (v.header.present)
    os << "extended header: length " << v.header.length << ", program_size "
       << v.header.programSize << ", segment_base_offset "
       << v.header.segmentBaseOffset << ", segment_data_size "
       << v.header.segmentDataSize << "\n";
  else
    os << "extended header: none (no segment data)\n";

  // Which delegate entries each segment / inline blob serves.
  std::map<std::pair<int, uint32_t>, std::vector<std::string>> blobUsers;
  auto *plans = p->execution_plan();
  os << "methods: " << plans->size() << "\n";
  for (uint32_t m = 0; m < plans->size(); ++m) {
    auto *plan = plans->Get(m);
    std::string name = plan->name() ? plan->name()->str() : "<unnamed>";
    os << "\nmethod " << name << "\n";
    auto printIO = [&](const char *what, const flatbuffers::Vector<int32_t> *io) {
      os << "  " << what << " (" << (io ? io->size() : 0) << "):\n";
      if (io)
        for (uint32_t i = 0; i < io->size(); ++i)
          os << "    " << describeValue(plan, io->Get(i)) << "\n";
    };
    printIO("inputs", plan->inputs());
    printIO("outputs", plan->outputs());
    // Tensors whose bytes are in a .ptd, by the key the program names.
    std::vector<uint32_t> external;
    for (uint32_t i = 0; plan->values() && i < plan->values()->size(); ++i) {
      auto *t = plan->values()->Get(i)->val_as_Tensor();
      auto *x = t ? t->extra_tensor_info() : nullptr;
      if (x && x->location() == fb::TensorDataLocation::EXTERNAL)
        external.push_back(i);
    }
    if (!external.empty()) {
      os << "  external tensors (" << external.size() << ", data in a .ptd):\n";
      for (uint32_t i : external)
        os << "    " << describeValue(plan, i) << "\n";
    }
    // Mutable state: planned tensors with initial data (what the runtime
    // carries across calls), named when compiled with --emit-state-names.
    std::vector<uint32_t> state;
    size_t named = 0;
    for (uint32_t i = 0; plan->values() && i < plan->values()->size(); ++i) {
      auto *t = plan->values()->Get(i)->val_as_Tensor();
      if (!t || !t->allocation_info() || t->data_buffer_idx() == 0)
        continue;
      state.push_back(i);
      auto *x = t->extra_tensor_info();
      named += x && x->fully_qualified_name() ? 1 : 0;
    }
    if (!state.empty()) {
      os << "  state (" << state.size() << " mutable buffer" << (state.size() == 1 ? "" : "s");
      if (named < state.size())
        os << (named ? ", some unnamed" : ", unnamed") << ": aot-compile --emit-state-names names them";
      os << "):\n";
      for (uint32_t i : state)
        os << "    " << describeValue(plan, i) << "\n";
    }

    std::map<std::string, uint64_t> kinds;
    uint64_t nvalues = plan->values() ? plan->values()->size() : 0;
    for (uint32_t i = 0; i < nvalues; ++i) {
      const char *k = fb::EnumNameKernelTypes(plan->values()->Get(i)->val_type());
      kinds[k && *k ? k : "unknown"]++;
    }
    os << "  values: " << nvalues;
    for (auto it = kinds.begin(); it != kinds.end(); ++it)
      os << (it == kinds.begin() ? " (" : ", ") << it->second << " " << it->first;
    os << (kinds.empty() ? "" : ")") << "\n";

    // Instruction counts, operator use, delegate use.
    uint64_t nops = plan->operators() ? plan->operators()->size() : 0;
    uint64_t ndel = plan->delegates() ? plan->delegates()->size() : 0;
    std::vector<uint64_t> opUses(nops, 0), delUses(ndel, 0);
    std::vector<std::vector<uint64_t>> delCallSites(ndel);
    std::map<std::string, uint64_t> instrKinds;
    uint64_t ninstr = 0, badDelegate = 0;
    if (plan->chains())
      for (auto *chain : *plan->chains()) {
        if (!chain->instructions())
          continue;
        for (auto *in : *chain->instructions()) {
          ++ninstr;
          const char *k = fb::EnumNameInstructionArguments(in->instr_args_type());
          instrKinds[k && *k ? k : "unknown"]++;
          if (auto *kc = in->instr_args_as_KernelCall()) {
            if (kc->op_index() >= 0 && static_cast<uint64_t>(kc->op_index()) < nops)
              opUses[static_cast<size_t>(kc->op_index())]++;
          } else if (auto *dc = in->instr_args_as_DelegateCall()) {
            if (dc->delegate_index() >= 0 &&
                static_cast<uint64_t>(dc->delegate_index()) < ndel) {
              auto d = static_cast<size_t>(dc->delegate_index());
              delUses[d]++;
              delCallSites[d].push_back(ninstr - 1);
            } else {
              ++badDelegate;
            }
          }
        }
      }
    os << "  chains: " << (plan->chains() ? plan->chains()->size() : 0)
       << ", instructions: " << ninstr;
    for (auto it = instrKinds.begin(); it != instrKinds.end(); ++it)
      os << (it == instrKinds.begin() ? " (" : ", ") << it->second << " "
         << it->first;
    os << (instrKinds.empty() ? "" : ")") << "\n";

    os << "  operators (" << nops << "):\n";
    for (uint32_t i = 0; i < nops; ++i) {
      auto *op = plan->operators()->Get(i);
      std::string full = op->name() ? op->name()->str() : "<no name>";
      if (op->overload() && op->overload()->size() > 0)
        full += "." + op->overload()->str();
      os << "    [" << i << "] " << full << "  (" << plural(opUses[i], "call")
         << ")\n";
    }

    os << "  delegates (" << ndel << "):\n";
    for (uint32_t i = 0; i < ndel; ++i) {
      auto *d = plan->delegates()->Get(i);
      auto *ref = d->processed();
      bool seg = ref->location() == fb::DataLocation::SEGMENT;
      uint64_t size = seg ? p->segments()->Get(ref->index())->size()
                          : (p->backend_delegate_data()->Get(ref->index())->data()
                                 ? p->backend_delegate_data()->Get(ref->index())->data()->size()
                                 : 0);
      blobUsers[{seg ? 1 : 0, ref->index()}].push_back(name + ".delegates[" +
                                                       num(i) + "]");
      os << "    [" << i << "] " << (d->id() ? d->id()->str() : "<no id>")
         << "  processed: " << (seg ? "segment " : "inline ") << ref->index()
         << " (" << size << " bytes)";
      if (delUses[i] == 0)
        os << ", unused";
      else if (delUses[i] == 1)
        os << ", used by 1 call";
      else
        os << ", shared by " << delUses[i] << " calls";
      if (!delCallSites[i].empty()) {
        os << " (instruction" << (delCallSites[i].size() > 1 ? "s" : "");
        for (size_t k = 0; k < delCallSites[i].size() && k < 8; ++k)
          os << (k ? ", " : " ") << delCallSites[i][k];
        os << (delCallSites[i].size() > 8 ? ", ...)" : ")");
      }
      os << "\n";
      if (auto *specs = d->compile_specs())
        for (auto *s : *specs)
          os << "        compile spec " << (s->key() ? s->key()->str() : "<no key>")
             << " = " << specValue(s) << "\n";
      if (auto *scratch = d->scratch())
        for (auto *s : *scratch) {
          os << "        scratch " << s->size() << " bytes";
          if (auto *a = s->allocation())
            os << " at mem " << a->memory_id() << " @ "
               << ((uint64_t{a->memory_offset_high()} << 32) | a->memory_offset_low());
          os << "\n";
        }
    }
    if (badDelegate)
      os << "  warning: " << plural(badDelegate, "DelegateCall")
         << " name a delegate index out of range\n";

    os << "  planned memory:";
    auto *sizes = plan->non_const_buffer_sizes();
    int64_t total = 0;
    bool totalValid = true;
    if (!sizes || sizes->size() <= 1)
      os << " none";
    else
      for (uint32_t i = 1; i < sizes->size(); ++i) {
        os << (i > 1 ? "," : "") << " arena " << i << ": " << sizes->Get(i)
           << " bytes";
        int64_t s = sizes->Get(i);
        totalValid = totalValid && s >= 0 &&
                     !__builtin_add_overflow(total, s, &total);
      }
    if (sizes && sizes->size() > 2 && totalValid)
      os << " (total " << total << " bytes)";
    os << "\n";
  }

  uint64_t nseg = segmentCount(p);
  std::map<uint32_t, std::string> segKind;
  if (auto *cs = p->constant_segment())
    segKind[cs->segment_index()] = "constants";
  if (auto *ms = p->mutable_data_segments())
    for (auto *s : *ms)
      segKind[s->segment_index()] = "mutable data";
  if (auto *nd = p->named_data())
    for (auto *n : *nd)
      segKind[n->segment_index()] =
          "named data '" + (n->key() ? n->key()->str() : std::string()) + "'";
  os << "\nsegments (" << nseg << "):\n";
  for (uint32_t i = 0; i < nseg; ++i) {
    auto *s = p->segments()->Get(i);
    os << "  [" << i << "] offset " << s->offset() << ", size " << s->size();
    if (v.header.present)
      os << ", file offset " << v.header.segmentBaseOffset + s->offset();
    auto users = blobUsers.find({1, i});
    if (users != blobUsers.end()) {
      os << ": delegate blob for";
      for (auto &u : users->second)
        os << " " << u;
    } else if (segKind.count(i)) {
      os << ": " << segKind[i];
    }
    os << "\n";
  }
  if (auto *inl = p->backend_delegate_data()) {
    os << "inline delegate data (" << inl->size() << "):\n";
    for (uint32_t i = 0; i < inl->size(); ++i) {
      os << "  [" << i << "] " << (inl->Get(i)->data() ? inl->Get(i)->data()->size() : 0)
         << " bytes";
      auto users = blobUsers.find({0, i});
      if (users != blobUsers.end()) {
        os << ": for";
        for (auto &u : users->second)
          os << " " << u;
      }
      os << "\n";
    }
  }
  if (auto *cs = p->constant_segment()) {
    uint64_t n = cs->offsets() ? cs->offsets()->size() : 0;
    os << "constants: " << plural(n > 0 ? n - 1 : 0, "buffer") << " in segment "
       << cs->segment_index();
    if (cs->segment_index() < nseg)
      os << " (" << p->segments()->Get(cs->segment_index())->size() << " bytes)";
    os << "\n";
  }
  if (p->constant_buffer() && p->constant_buffer()->size() > 0)
    os << "inline constant_buffer (deprecated): "
       << plural(p->constant_buffer()->size(), "buffer") << "\n";
  return os.str();
}

namespace {

// Replaces the number arrays of byte-vector fields with a short string.
std::string elideByteArrays(const std::string &json) {
  static const char *keys[] = {"\"storage\": [", "\"data\": [", "\"value\": ["};
  std::string out;
  size_t pos = 0;
  while (pos < json.size()) {
    size_t best = std::string::npos, keyLen = 0;
    for (const char *k : keys) {
      size_t at = json.find(k, pos);
      if (at < best)
        best = at, keyLen = std::strlen(k);
    }
    if (best == std::string::npos)
      break;
    size_t open = best + keyLen - 1, close = json.find(']', open);
    if (close == std::string::npos)
      break;
    std::vector<uint8_t> bytes;
    bool onlyBytes = true;
    std::string item;
    for (size_t i = open + 1; i <= close && onlyBytes; ++i) {
      char c = json[i];
      if (c >= '0' && c <= '9') {
        item += c;
      } else if (c == ',' || c == ']' || c == ' ' || c == '\n') {
        if (!item.empty()) {
          unsigned long b = std::strtoul(item.c_str(), nullptr, 10);
          onlyBytes = b <= 255;
          bytes.push_back(static_cast<uint8_t>(b));
          item.clear();
        }
      } else {
        onlyBytes = false;
      }
    }
    out.append(json, pos, open - pos);
    if (onlyBytes) {
      char buf[80];
      std::snprintf(buf, sizeof buf, "\"<%zu byte%s, fnv1a64 %016" PRIx64 ">\"",
                    bytes.size(), bytes.size() == 1 ? "" : "s",
                    fnv1a(bytes.data(), bytes.size()));
      out += buf;
    } else {
      out.append(json, open, close + 1 - open);
    }
    pos = close + 1;
  }
  out.append(json, pos, std::string::npos);
  return out;
}

/// flatbuffers writes non-finite doubles as bare inf / -inf / nan, which is
/// not JSON (a masked_fill with -inf made every consumer fail to parse the
/// program). Outside strings, those tokens become the strings "inf", "-inf"
/// and "nan".
std::string quoteNonFinite(const std::string &json) {
  std::string out;
  out.reserve(json.size());
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < json.size())
        out += json[++i];
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      out += c;
      continue;
    }
    for (const char *tok : {"-inf", "inf", "nan", "-nan"}) {
      size_t n = std::strlen(tok);
      bool boundary = i + n >= json.size() || !std::isalnum(static_cast<unsigned char>(json[i + n]));
      if (json.compare(i, n, tok) == 0 && boundary) {
        out += '"';
        out += tok[0] == '-' && tok[1] == 'n' ? "nan" : tok;
        out += '"';
        i += n - 1;
        c = 0;
        break;
      }
    }
    if (c)
      out += c;
  }
  return out;
}

} // namespace

bool dumpPteJson(const PteView &v, const JsonOptions &opts, std::string *out,
                 std::string *err) {
  flatbuffers::IDLOptions o;
  o.strict_json = true;
  o.indent_step = 2;
  flatbuffers::Parser parser(o);
  if (!parser.Parse(embeddedProgramSchema().c_str()))
    return fail(err, "internal: embedded schema does not parse: " + parser.error_);
  std::string text;
  if (!GenerateText(parser, v.data, &text))
    return fail(err, "cannot render the program as JSON (a string is not "
                     "valid UTF-8)");
  text = quoteNonFinite(text);
  if (opts.elideBytes)
    text = elideByteArrays(text);
  // Append the container keys inside the root object.
  size_t close = text.find_last_of('}');
  if (close == std::string::npos)
    return fail(err, "internal: JSON text has no root object");
  std::string body = text.substr(0, close);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' '))
    body.pop_back();
  bool emptyRoot = !body.empty() && body.back() == '{';
  std::ostringstream os;
  os << body << (emptyRoot ? "\n" : ",\n");
  os << "  \"extended_header\": ";
  if (v.header.present)
    os << "{\n    \"magic\": \"eh00\",\n    \"length\": " << v.header.length
       << ",\n    \"program_size\": " << v.header.programSize
       << ",\n    \"segment_base_offset\": " << v.header.segmentBaseOffset
       << ",\n    \"segment_data_size\": " << v.header.segmentDataSize
       << "\n  },\n";
  else
    os << "null,\n";
  os << "  \"segment_table\": [";
  uint64_t nseg = segmentCount(v.program);
  for (uint32_t i = 0; i < nseg; ++i) {
    auto *s = v.program->segments()->Get(i);
    os << (i ? ",\n" : "\n") << "    {\"index\": " << i << ", \"offset\": "
       << s->offset() << ", \"size\": " << s->size() << ", \"file_offset\": "
       << (v.header.present ? v.header.segmentBaseOffset + s->offset() : 0)
       << "}";
  }
  os << (nseg ? "\n  ]\n}\n" : "]\n}\n");
  *out = os.str();
  return true;
}

bool readFileBytes(const std::string &path, std::vector<uint8_t> *out,
                   std::string *err) {
  // A regular file only: a FIFO or a device would block or never end.
  std::string why;
  if (!io::readInputFile(path, io::kAnySize, out, &why))
    return fail(err, why);
  return true;
}

int inspectPteFile(const std::string &path, bool json, const JsonOptions &opts,
                   std::string *out, std::string *err) {
  std::vector<uint8_t> bytes;
  std::string why;
  PteView view;
  if (!readFileBytes(path, &bytes, &why) ||
      !openPte(bytes.data(), bytes.size(), &view, &why)) {
    *err = path + ": error: " + why;
    return 2;
  }
  if (!json) {
    *out = summarizePte(view, path);
    return 0;
  }
  if (!dumpPteJson(view, opts, out, &why)) {
    *err = path + ": error: " + why;
    return 2;
  }
  return 0;
}

} // namespace ptec::pte
