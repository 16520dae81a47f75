#include "serde/pte/PteWriter.h"
#include "test/unit/emitter/TestPrograms.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <csignal>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ptec::pte;
using namespace ptec::pte::testing;

namespace {

uint64_t readLE(const std::vector<uint8_t> &b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | b[at + static_cast<size_t>(i)];
  return v;
}

// Program region of a written file, checked by the flatbuffers verifier.
const fb::Program *readBack(const std::vector<uint8_t> &bytes) {
  size_t size = bytes.size();
  if (bytes.size() >= 16 && std::memcmp(bytes.data() + 8, "eh00", 4) == 0)
    size = readLE(bytes, 16, 8);
  flatbuffers::Verifier v(bytes.data(), size);
  REQUIRE(fb::VerifyProgramBuffer(v));
  REQUIRE(fb::ProgramBufferHasIdentifier(bytes.data()));
  return fb::GetProgram(bytes.data());
}

std::vector<uint8_t> bytesOf(const std::string &s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

std::string makeTempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ptec-writer-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  REQUIRE(mkdtemp(buf.data()) != nullptr);
  return buf.data();
}

} // namespace

TEST_CASE("writer: program without segment data has no extended header",
          "[writer]") {
  ProgramBuilder b;
  b.program.execution_plan.push_back(addPlan("forward", 0));
  std::vector<uint8_t> bytes = serializeProgram(b);
  REQUIRE(bytes.size() > 8);
  CHECK(std::memcmp(bytes.data() + 4, "ET12", 4) == 0);
  CHECK(std::memcmp(bytes.data() + 8, "eh00", 4) != 0);
  const fb::Program *p = readBack(bytes);
  REQUIRE(p->segments());
  REQUIRE(p->segments()->size() == 1);
  CHECK(p->segments()->Get(0)->offset() == 0);
  CHECK(p->segments()->Get(0)->size() == 0);
  REQUIRE(p->constant_segment());
  CHECK(p->constant_segment()->segment_index() == 0);
  REQUIRE(p->constant_segment()->offsets()->size() == 1);
  CHECK(p->constant_segment()->offsets()->Get(0) == 0);
  REQUIRE(p->constant_buffer());
  CHECK(p->constant_buffer()->size() == 0);
  REQUIRE(p->backend_delegate_data());
  CHECK(p->backend_delegate_data()->size() == 0);
  CHECK(p->mutable_data_segments() == nullptr);
  const fb::ExecutionPlan *plan = p->execution_plan()->Get(0);
  CHECK(plan->name()->str() == "forward");
  REQUIRE(plan->delegates() != nullptr);
  CHECK(plan->delegates()->size() == 0);
  CHECK(plan->non_const_buffer_sizes()->Get(1) == 64);
  auto *op = plan->operators()->Get(0);
  CHECK(op->name()->str() == "aten::add");
  CHECK(op->overload()->str() == "out");
  auto *kc = plan->chains()->Get(0)->instructions()->Get(0)->instr_args_as_KernelCall();
  REQUIRE(kc);
  CHECK(std::vector<int32_t>(kc->args()->begin(), kc->args()->end()) ==
        std::vector<int32_t>{0, 1, 2, 3, 3});
  auto *t = plan->values()->Get(3)->val_as_Tensor();
  REQUIRE(t);
  CHECK(t->allocation_info()->memory_id() == 1);
  CHECK(t->allocation_info()->memory_offset_low() == 32);
}

TEST_CASE("writer: required vectors are written even when empty", "[writer]") {
  ProgramBuilder b;
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan->name = "empty";
  plan->values.push_back(tensorValue(fb::ScalarType::LONG, {}, 0, 1, 0));
  fb::StringT s;
  auto sv = std::make_unique<fb::EValueT>();
  sv->val.Set(std::move(s));
  plan->values.push_back(std::move(sv));
  plan->chains.push_back(std::make_unique<fb::ChainT>());
  auto op = std::make_unique<fb::OperatorT>();
  op->name = "aten::copy_";
  plan->operators.push_back(std::move(op));
  b.program.execution_plan.push_back(std::move(plan));
  std::vector<uint8_t> bytes = serializeProgram(b);
  const fb::ExecutionPlan *p = readBack(bytes)->execution_plan()->Get(0);
  REQUIRE(p->inputs());
  REQUIRE(p->outputs());
  REQUIRE(p->delegates());
  REQUIRE(p->non_const_buffer_sizes());
  CHECK(p->non_const_buffer_sizes()->size() == 0);
  const fb::Tensor *t = p->values()->Get(0)->val_as_Tensor();
  REQUIRE(t->sizes());
  REQUIRE(t->dim_order());
  CHECK(t->sizes()->size() == 0);
  CHECK(t->allocation_info()->memory_id() == 1);
  REQUIRE(p->values()->Get(1)->val_as_String()->string_val());
  CHECK(p->values()->Get(1)->val_as_String()->string_val()->str().empty());
  REQUIRE(p->operators()->Get(0)->overload());
  CHECK(p->operators()->Get(0)->overload()->str().empty());
  const fb::Chain *c = p->chains()->Get(0);
  REQUIRE(c->instructions());
  REQUIRE(c->inputs());
  CHECK(c->stacktrace() == nullptr);
}

TEST_CASE("writer: constant segment with placeholder, padding and dedup",
          "[writer]") {
  ProgramBuilder b;
  std::vector<uint8_t> a = {1, 2, 3}, w(20, 7);
  CHECK(b.addConstant(a.data(), a.size()) == 1);
  CHECK(b.addConstant(w.data(), w.size()) == 2);
  CHECK(b.addConstant(a.data(), a.size()) == 1); // same bytes, same entry
  CHECK(b.constants().size() == 3);
  b.program.execution_plan.push_back(addPlan("forward", 2));
  std::vector<uint8_t> bytes = serializeProgram(b);

  // Extended header at byte 8.
  REQUIRE(bytes.size() > 40);
  CHECK(std::memcmp(bytes.data() + 8, "eh00", 4) == 0);
  CHECK(readLE(bytes, 12, 4) == 32);
  uint64_t programSize = readLE(bytes, 16, 8);
  uint64_t base = readLE(bytes, 24, 8);
  uint64_t dataSize = readLE(bytes, 32, 8);
  CHECK(base % 128 == 0);
  CHECK(base >= programSize);
  CHECK(base - programSize < 128);
  CHECK(dataSize == 36); // 3 bytes, pad to 16, then 20 bytes, no tail pad
  CHECK(bytes.size() == base + dataSize);
  for (uint64_t i = programSize; i < base; ++i)
    REQUIRE(bytes[i] == 0);
  // Root offset points past the header.
  CHECK(readLE(bytes, 0, 4) >= 40);

  const fb::Program *p = readBack(bytes);
  auto *offs = p->constant_segment()->offsets();
  REQUIRE(offs->size() == 3);
  CHECK(offs->Get(0) == 0);
  CHECK(offs->Get(1) == 0);
  CHECK(offs->Get(2) == 16);
  REQUIRE(p->segments()->size() == 1);
  CHECK(p->segments()->Get(0)->offset() == 0);
  CHECK(p->segments()->Get(0)->size() == 36);
  CHECK(std::equal(a.begin(), a.end(), bytes.begin() + static_cast<long>(base)));
  for (int i = 3; i < 16; ++i)
    CHECK(bytes[base + static_cast<uint64_t>(i)] == 0);
  CHECK(std::equal(w.begin(), w.end(), bytes.begin() + static_cast<long>(base) + 16));
}

TEST_CASE("writer: constant alignment option", "[writer]") {
  ProgramBuilder b;
  std::vector<uint8_t> a = {1}, c = {2};
  b.addConstant(a.data(), 1);
  b.addConstant(c.data(), 1);
  b.program.execution_plan.push_back(addPlan("forward", 1));
  WriteOptions o;
  o.constantTensorAlignment = 64;
  o.segmentAlignment = 4096;
  std::vector<uint8_t> bytes = serializeProgram(b, o);
  const fb::Program *p = readBack(bytes);
  CHECK(p->constant_segment()->offsets()->Get(2) == 64);
  CHECK(readLE(bytes, 24, 8) % 4096 == 0);
  CHECK(readLE(bytes, 32, 8) == 65);
}

TEST_CASE("writer: mutable data segment follows the constants", "[writer]") {
  ProgramBuilder b;
  std::vector<uint8_t> c(40, 9), m1 = {1, 2, 3, 4, 5}, m2(7, 6);
  b.addConstant(c.data(), c.size());
  CHECK(b.addMutableData(m1.data(), m1.size()) == 1);
  CHECK(b.addMutableData(m2.data(), m2.size()) == 2);
  b.program.execution_plan.push_back(addPlan("forward", 1));
  std::vector<uint8_t> bytes = serializeProgram(b);
  const fb::Program *p = readBack(bytes);
  REQUIRE(p->segments()->size() == 2);
  CHECK(p->segments()->Get(1)->offset() == 128);
  CHECK(p->segments()->Get(1)->size() == 12);
  REQUIRE(p->mutable_data_segments());
  REQUIRE(p->mutable_data_segments()->size() == 1);
  auto *ms = p->mutable_data_segments()->Get(0);
  CHECK(ms->segment_index() == 1);
  CHECK(std::vector<uint64_t>(ms->offsets()->begin(), ms->offsets()->end()) ==
        std::vector<uint64_t>{0, 0, 5});
  uint64_t base = readLE(bytes, 24, 8);
  CHECK(readLE(bytes, 32, 8) == 140);
  CHECK(bytes[base + 128] == 1);
  CHECK(bytes[base + 133] == 6); // no padding between mutable entries
  CHECK(bytes.size() == base + 140);
}

TEST_CASE("writer: delegate blobs move to segments, deduplicated", "[writer]") {
  ProgramBuilder b;
  uint32_t blob = addBlob(b, demoBlob());
  CHECK(addBlob(b, demoBlob()) == blob);
  uint32_t empty = addBlob(b, "");
  uint32_t unused = addBlob(b, "never referenced");
  (void)unused;
  auto fwd = delegatePlan("forward", blob, 3);
  fwd->delegates.push_back(demoDelegate(empty));
  fwd->delegates.push_back(demoDelegate(blob));
  b.program.execution_plan.push_back(std::move(fwd));
  b.program.execution_plan.push_back(delegatePlan("prefill", blob, 1));

  std::vector<uint8_t> bytes = serializeProgram(b);
  const fb::Program *p = readBack(bytes);
  REQUIRE(p->segments()->size() == 2); // constants + one blob
  CHECK(p->segments()->Get(1)->offset() == 0); // constant segment is empty
  CHECK(p->segments()->Get(1)->size() == demoBlob().size());
  auto *d = p->execution_plan()->Get(0)->delegates();
  REQUIRE(d->size() == 3);
  CHECK(d->Get(0)->processed()->location() == fb::DataLocation::SEGMENT);
  CHECK(d->Get(0)->processed()->index() == 1);
  CHECK(d->Get(1)->processed()->location() == fb::DataLocation::INLINE);
  CHECK(d->Get(1)->processed()->index() == 0);
  CHECK(d->Get(2)->processed()->location() == fb::DataLocation::SEGMENT);
  CHECK(d->Get(2)->processed()->index() == 1);
  auto *d2 = p->execution_plan()->Get(1)->delegates()->Get(0);
  CHECK(d2->processed()->location() == fb::DataLocation::SEGMENT);
  CHECK(d2->processed()->index() == 1);
  // Only the empty blob stays inline; the unused one is dropped.
  REQUIRE(p->backend_delegate_data()->size() == 1);
  CHECK(p->backend_delegate_data()->Get(0)->data()->size() == 0);
  uint64_t base = readLE(bytes, 24, 8);
  CHECK(std::string(bytes.begin() + static_cast<long>(base),
                    bytes.begin() + static_cast<long>(base + demoBlob().size())) ==
        demoBlob());
  CHECK(bytes.size() == base + demoBlob().size());
}

TEST_CASE("writer: named data, one segment per key, shared and checked", "[writer]") {
  ProgramBuilder b;
  uint32_t blob = addBlob(b, demoBlob());
  b.program.execution_plan.push_back(delegatePlan("forward", blob, 1));
  const std::string w1 = "sixteen bytes!!!", w2 = "other";
  auto add = [&](const std::string &key, const std::string &v) {
    return b.addNamedData(key, reinterpret_cast<const uint8_t *>(v.data()), v.size());
  };
  CHECK(add("k2", w2));
  CHECK(add("k1", w1));
  CHECK(add("k1", w1));      // a second delegate naming the same bytes: shared
  CHECK_FALSE(add("k1", w2)); // the same key for other bytes is refused
  CHECK(b.namedData().size() == 2);

  std::vector<uint8_t> bytes = serializeProgram(b);
  const fb::Program *p = readBack(bytes);
  REQUIRE(p->named_data() != nullptr);
  REQUIRE(p->named_data()->size() == 2);
  // Key order (deterministic), each its own segment after the blob's.
  CHECK(p->named_data()->Get(0)->key()->str() == "k1");
  CHECK(p->named_data()->Get(1)->key()->str() == "k2");
  REQUIRE(p->segments()->size() == 4); // constants, blob, k1, k2
  uint64_t base = readLE(bytes, 24, 8);
  auto segment = [&](uint32_t i) {
    const fb::DataSegment *seg = p->segments()->Get(i);
    return std::string(bytes.begin() + static_cast<long>(base + seg->offset()),
                       bytes.begin() + static_cast<long>(base + seg->offset() + seg->size()));
  };
  CHECK(segment(p->named_data()->Get(0)->segment_index()) == w1);
  CHECK(segment(p->named_data()->Get(1)->segment_index()) == w2);
  CHECK(p->segments()->Get(p->named_data()->Get(0)->segment_index())->offset() % 128 == 0);
}

TEST_CASE("writer: delegate extraction off keeps blobs inline", "[writer]") {
  ProgramBuilder b;
  uint32_t blob = addBlob(b, demoBlob());
  b.program.execution_plan.push_back(delegatePlan("forward", blob, 1));
  WriteOptions o;
  o.extractDelegateSegments = false;
  std::vector<uint8_t> bytes = serializeProgram(b, o);
  CHECK(std::memcmp(bytes.data() + 8, "eh00", 4) != 0);
  const fb::Program *p = readBack(bytes);
  REQUIRE(p->backend_delegate_data()->size() == 1);
  auto *data = p->backend_delegate_data()->Get(0)->data();
  CHECK(std::string(data->begin(), data->end()) == demoBlob());
  CHECK(reinterpret_cast<uintptr_t>(data->data()) % 16 ==
        reinterpret_cast<uintptr_t>(bytes.data()) % 16);
  auto *ref = p->execution_plan()->Get(0)->delegates()->Get(0)->processed();
  CHECK(ref->location() == fb::DataLocation::INLINE);
  CHECK(ref->index() == 0);
}

TEST_CASE("writer: one-byte compile spec is followed by zero bytes", "[writer]") {
  ProgramBuilder b;
  uint32_t blob = addBlob(b, demoBlob());
  b.program.execution_plan.push_back(delegatePlan("forward", blob, 1));
  std::vector<uint8_t> bytes = serializeProgram(b);
  auto *spec = readBack(bytes)->execution_plan()->Get(0)->delegates()->Get(0)
                   ->compile_specs()->Get(0);
  CHECK(spec->key()->str() == "max_value");
  REQUIRE(spec->value()->size() == 1);
  const uint8_t *v = spec->value()->data();
  size_t at = static_cast<size_t>(v - bytes.data());
  REQUIRE(at + 4 <= bytes.size());
  CHECK(v[0] == 4);
  CHECK(v[1] == 0);
  CHECK(v[2] == 0);
  CHECK(v[3] == 0);
}

TEST_CASE("writer: output is byte-deterministic", "[writer]") {
  auto build = [](ProgramBuilder &b) {
    addSampleMethods(b, std::vector<uint8_t>(100, 3), std::vector<uint8_t>(8, 1), "method2", 2);
  };
  ProgramBuilder b1, b2;
  build(b1);
  build(b2);
  std::vector<uint8_t> first = serializeProgram(b1);
  REQUIRE(!first.empty());
  CHECK(serializeProgram(b1) == first); // builder left untouched
  CHECK(serializeProgram(b2) == first);
}

TEST_CASE("writer: bad input is reported, naming the field", "[writer]") {
  std::vector<uint8_t> out;
  std::string err;
  {
    ProgramBuilder b;
    b.program.execution_plan.push_back(delegatePlan("forward", 5, 1));
    CHECK_FALSE(trySerializeProgram(b, {}, &out, &err));
    CHECK(err == "Program.execution_plan[0].delegates[0].processed.index: 5 is "
                 "not a blob from addDelegateBlob (0 blobs)");
    CHECK(serializeProgram(b).empty());
  }
  {
    ProgramBuilder b;
    b.program.execution_plan.push_back(addPlan("forward", 0));
    b.program.execution_plan.push_back(nullptr);
    CHECK_FALSE(trySerializeProgram(b, {}, &out, &err));
    CHECK(err == "Program.execution_plan[1]: is null");
  }
  {
    ProgramBuilder b;
    b.program.execution_plan.push_back(addPlan("forward", 0));
    b.program.execution_plan[0]->chains.clear();
    CHECK_FALSE(trySerializeProgram(b, {}, &out, &err));
    CHECK(err == "Program.execution_plan[0].chains: a plan needs at least one chain");
  }
  {
    ProgramBuilder b;
    b.program.execution_plan.push_back(addPlan("forward", 0));
    b.program.segments.push_back(std::make_unique<fb::DataSegmentT>());
    CHECK_FALSE(trySerializeProgram(b, {}, &out, &err));
    CHECK(err.find("Program.segments must be left empty") == 0);
  }
  {
    ProgramBuilder b;
    b.program.execution_plan.push_back(addPlan("forward", 0));
    b.program.execution_plan[0]->chains[0]->instructions.push_back(
        std::make_unique<fb::InstructionT>());
    CHECK_FALSE(trySerializeProgram(b, {}, &out, &err));
    CHECK(err == "Program.execution_plan[0].chains[0].instructions[1].instr_args: "
                 "is missing");
  }
  {
    ProgramBuilder b;
    WriteOptions o;
    o.segmentAlignment = 100;
    CHECK_FALSE(trySerializeProgram(b, o, &out, &err));
    CHECK(err.find("powers of two") != std::string::npos);
  }
}

TEST_CASE("writer: atomic file write", "[writer]") {
  std::string dir = makeTempDir();
  std::string path = dir + "/model.pte";
  std::vector<uint8_t> bytes = bytesOf("hello pte");
  std::string err;
  REQUIRE(writeFileAtomic(path, bytes, &err));
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> back((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
  CHECK(back == bytes);
  CHECK(listDir(dir) == std::vector<std::string>{"model.pte"});

  // Overwrite in place.
  REQUIRE(writeFileAtomic(path, bytesOf("v2"), &err));
  CHECK(listDir(dir) == std::vector<std::string>{"model.pte"});

  // A missing directory: a clear error, nothing created.
  CHECK_FALSE(writeFileAtomic(dir + "/missing/model.pte", bytes, &err));
  CHECK(err == "cannot write '" + dir + "/missing/model.pte': No such file or directory");

  // Target is a directory: refused before anything is written.
  std::string sub = dir + "/sub";
  REQUIRE(mkdir(sub.c_str(), 0755) == 0);
  std::string inner = sub + "/x";
  REQUIRE(mkdir(inner.c_str(), 0755) == 0);
  CHECK_FALSE(writeFileAtomic(sub, bytes, &err));
  CHECK(err == "cannot write '" + sub + "': it is a directory");
  CHECK(listDir(dir).size() == 2);

  // An unwritable directory (not meaningful as root, who may write anyway).
  if (geteuid() != 0) {
    std::string ro = dir + "/ro";
    REQUIRE(mkdir(ro.c_str(), 0555) == 0);
    CHECK_FALSE(writeFileAtomic(ro + "/model.pte", bytes, &err));
    CHECK(listDir(ro).empty());
    rmdir(ro.c_str());
  }
  // A write that fails half way (file size limit; works as root too): the
  // temporary file is removed and the old file is left as it was.
  {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    rlimit small = old;
    small.rlim_cur = 4;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
    bool ok = writeFileAtomic(path, bytesOf("much longer than four bytes"), &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK_FALSE(ok);
    CHECK(err.find("cannot write") == 0);
    CHECK(listDir(dir).size() == 2);
    std::ifstream again(path, std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(again)),
                        std::istreambuf_iterator<char>());
    CHECK(content == "v2");
  }
  rmdir(inner.c_str());
  rmdir(sub.c_str());
  unlink(path.c_str());
  rmdir(dir.c_str());
}
